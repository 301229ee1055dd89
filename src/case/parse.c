/*
  YAML text -> FGCase, strictly: libyaml's document API (yaml_parser_load) gives the tree with
  node marks (lines); the walk below accepts exactly the keys of the table (keys.c), converts
  each value to its key's type and range-checks it, and records where it came from (file line
  or --set argument) for the later messages. Every check raises FG_ERR_INPUT on `comm`: every
  rank parses the same bytes, so every rank raises the same error.

  Scalars: a quoted scalar is a string, never a number or a bool; bools are `true`/`false`;
  numbers are decimal and parsed in full (no trailing junk, no nan/inf, no overflow).
*/
#include "caseimpl.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t FGCaseElementSize_Internal(const FGKeyDef *def)
{
  switch (def->type) {
  case FG_KEY_INT:
    return sizeof(PetscInt);
  case FG_KEY_REAL:
    return sizeof(PetscReal);
  case FG_KEY_BOOL:
    return sizeof(PetscBool);
  case FG_KEY_ENUM:
    return sizeof(int);
  default:
    return def->size;
  }
}

PetscErrorCode FGCaseYAMLRelease_Internal(FGCaseCtx ctx)
{
  PetscFunctionBeginUser;
  if (ctx->has_extra) yaml_document_delete(&ctx->extra);
  if (ctx->has_doc) yaml_document_delete(&ctx->doc);
  if (ctx->has_parser) yaml_parser_delete(&ctx->parser);
  ctx->has_extra = ctx->has_doc = ctx->has_parser = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A short printable copy of a value for messages: at most 40 bytes (cut between UTF-8
   characters), control characters shown as '?'. */
static void FGSnippet_Private(const char *text, size_t len, char *buf, size_t size)
{
  size_t n = PetscMin(len, (size_t)40), i;
  while (n < len && n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80) n--;
  for (i = 0; i < n && i + 4 < size; i++) buf[i] = ((unsigned char)text[i] < 0x20 || text[i] == 0x7f) ? '?' : text[i];
  if (n < len && i + 4 < size) {
    memcpy(buf + i, "...", 3);
    i += 3;
  }
  buf[i] = '\0';
}

static PetscBool FGIsNull_Private(const char *text, size_t len, PetscBool plain)
{
  if (!plain) return PETSC_FALSE;
  return (PetscBool)(len == 0 || !strcmp(text, "~") || !strcmp(text, "null") || !strcmp(text, "Null") || !strcmp(text, "NULL"));
}

static const char *FGExpected_Private(const FGKeyDef *def, char *buf, size_t len)
{
  switch (def->type) {
  case FG_KEY_INT:
    return "an integer";
  case FG_KEY_REAL:
    return "a real number";
  case FG_KEY_BOOL:
    return "true or false";
  case FG_KEY_STRING:
    return "a string";
  default: {
    char names[256];
    if (FGCaseChoicesString_Internal(def, "", names, sizeof(names))) names[0] = '\0';
    snprintf(buf, len, "one of %s", names);
    return buf;
  }
  }
}

static PetscErrorCode FGCaseRangeCheck_Private(FGCaseCtx ctx, const FGKeyDef *def, const char *where, PetscReal v, const char *text)
{
  PetscBool ok = PETSC_TRUE;
  char      range[128];

  PetscFunctionBeginUser;
  if (def->minb == FG_BOUND_CLOSED && v < def->min) ok = PETSC_FALSE;
  if (def->minb == FG_BOUND_OPEN && v <= def->min) ok = PETSC_FALSE;
  if (def->maxb == FG_BOUND_CLOSED && v > def->max) ok = PETSC_FALSE;
  if (def->maxb == FG_BOUND_OPEN && v >= def->max) ok = PETSC_FALSE;
  PetscCall(FGCaseRangeString_Internal(def, range, sizeof(range)));
  PetscCheck(ok, ctx->comm, FG_ERR_INPUT, "%s: %s is out of range (must be %s%s)", where, text, def->minb && def->maxb ? "in " : "", range);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Convert one scalar (text of length len; plain: not quoted) to the element type of the key and
  store it at dst. `where` starts every message ("FILE:LINE: KEY", "--set ARG: KEY[1]").
*/
PetscErrorCode FGCaseScalar_Internal(FGCaseCtx ctx, const FGKeyRef *ref, const char *where, const char *text, size_t len, PetscBool plain, void *dst)
{
  const FGKeyDef *def = ref->def;
  char            snip[64], expect[300];
  const char     *what = FGExpected_Private(def, expect, sizeof(expect));

  PetscFunctionBeginUser;
  FGSnippet_Private(text, len, snip, sizeof(snip));
  PetscCheck(!memchr(text, '\0', len), ctx->comm, FG_ERR_INPUT, "%s: the value holds a NUL character", where);
  PetscCheck(!FGIsNull_Private(text, len, plain), ctx->comm, FG_ERR_INPUT, "%s: no value (expected %s%s)", where, what, def->type == FG_KEY_STRING ? "; write \"\" for an empty string" : "");
  switch (def->type) {
  case FG_KEY_INT: {
    long long v;
    char     *end;
    size_t    i = (text[0] == '+' || text[0] == '-') ? 1 : 0;
    PetscBool digits = (PetscBool)(i < len);

    PetscCheck(plain, ctx->comm, FG_ERR_INPUT, "%s: expected an integer, got the quoted string \"%s\" (quoted values are strings)", where, snip);
    for (; i < len; i++)
      if (text[i] < '0' || text[i] > '9') digits = PETSC_FALSE;
    PetscCheck(digits, ctx->comm, FG_ERR_INPUT, "%s: expected an integer, got '%s'", where, snip);
    errno = 0;
    v     = strtoll(text, &end, 10);
    PetscCheck(errno != ERANGE && v <= PETSC_MAX_INT && v >= PETSC_MIN_INT, ctx->comm, FG_ERR_INPUT, "%s: %s does not fit in an integer (integer overflow)", where, snip);
    PetscCheck(end == text + len, ctx->comm, FG_ERR_INPUT, "%s: expected an integer, got '%s'", where, snip);
    PetscCall(FGCaseRangeCheck_Private(ctx, def, where, (PetscReal)v, snip));
    *(PetscInt *)dst = (PetscInt)v;
  } break;
  case FG_KEY_REAL: {
    double    v;
    char     *end;
    PetscBool chars = PETSC_TRUE, digit = PETSC_FALSE;

    PetscCheck(plain, ctx->comm, FG_ERR_INPUT, "%s: expected a real number, got the quoted string \"%s\" (quoted values are strings)", where, snip);
    for (size_t i = 0; i < len; i++) {
      if (text[i] >= '0' && text[i] <= '9') digit = PETSC_TRUE;
      else if (!strchr("+-.eE", text[i])) chars = PETSC_FALSE;
    }
    if (!chars || !digit) {
      char low[sizeof(snip)];
      for (size_t i = 0; i < sizeof(low); i++) {
        low[i] = (char)((snip[i] >= 'A' && snip[i] <= 'Z') ? snip[i] - 'A' + 'a' : snip[i]);
        if (!snip[i]) break;
      }
      PetscCheck(!strstr(low, "nan") && !strstr(low, "inf"), ctx->comm, FG_ERR_INPUT, "%s: '%s': not a finite number (nan and inf are not allowed)", where, snip);
      SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: expected a real number, got '%s'", where, snip);
    }
    errno = 0;
    v     = strtod(text, &end);
    PetscCheck(end == text + len, ctx->comm, FG_ERR_INPUT, "%s: expected a real number, got '%s'", where, snip);
    PetscCheck(isfinite(v), ctx->comm, FG_ERR_INPUT, "%s: %s is too large for a double (overflow)", where, snip);
    PetscCall(FGCaseRangeCheck_Private(ctx, def, where, (PetscReal)v, snip));
    *(PetscReal *)dst = (PetscReal)v;
  } break;
  case FG_KEY_BOOL: {
    PetscCheck(plain, ctx->comm, FG_ERR_INPUT, "%s: expected true or false, got the quoted string \"%s\" (quoted values are strings)", where, snip);
    PetscCheck(!strcmp(text, "true") || !strcmp(text, "false"), ctx->comm, FG_ERR_INPUT, "%s: expected true or false, got '%s'", where, snip);
    *(PetscBool *)dst = (PetscBool)!strcmp(text, "true");
  } break;
  case FG_KEY_STRING: {
    for (size_t i = 0; i < len; i++) {
      unsigned char b = (unsigned char)text[i];
      PetscCheck(!(b < 0x20 || b == 0x7f) || (def->multiline && (b == '\n' || b == '\t')), ctx->comm, FG_ERR_INPUT, "%s: control character 0x%02x in the string", where, (unsigned)b);
    }
    PetscCheck(len < def->size, ctx->comm, FG_ERR_INPUT, "%s: too long (%zu bytes; at most %zu)", where, len, def->size - 1);
    PetscCheck(def->minb == FG_BOUND_NONE || len >= (size_t)def->min, ctx->comm, FG_ERR_INPUT, "%s: must not be empty", where);
    PetscCall(PetscMemcpy(dst, text, len));
    ((char *)dst)[len] = '\0';
  } break;
  case FG_KEY_ENUM: {
    PetscInt n = FGCaseChoicesCount_Internal(def), found = -1, dbest = PETSC_MAX_INT, best = -1;
    for (PetscInt i = 0; i < n; i++) {
      PetscInt d;
      if (!strcmp(text, def->choices[i])) found = i;
      d = FGCaseEditDistance_Internal(text, def->choices[i]);
      if (d < dbest) dbest = d, best = i;
    }
    if (found < 0) {
      char hint[128] = "";
      if (best >= 0 && dbest <= 2) snprintf(hint, sizeof(hint), " (did you mean %s?)", def->choices[best]);
      SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: expected %s; got '%s'%s", where, what, snip, hint);
    }
    *(int *)dst = (int)found;
  } break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *FGNodeKind_Private(const yaml_node_t *node)
{
  if (!node) return "no value";
  switch (node->type) {
  case YAML_SEQUENCE_NODE:
    return "a list";
  case YAML_MAPPING_NODE:
    return "a mapping";
  default:
    return node->data.scalar.length == 0 && node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? "no value" : "a scalar";
  }
}

/* Where an entry of a list is: "FILE:LINE: KEY[i]" (the entry's line) or "--set ARG: KEY[i]". */
static void FGCaseItemWhere_Private(FGCaseCtx ctx, const FGKeyRef *ref, const char *setarg, const yaml_node_t *item, const char *index, char *buf, size_t len)
{
  if (setarg) snprintf(buf, len, "--set %s: %s%s", setarg, ref->path, index);
  else snprintf(buf, len, "%s:%d: %s%s", ctx->file, (int)item->start_mark.line + 1, ref->path, index);
}

/* One scalar entry of a list, stored at dst. */
static PetscErrorCode FGCaseItem_Private(FGCaseCtx ctx, const FGKeyRef *ref, const char *iwhere, const yaml_node_t *item, void *dst)
{
  char expect[300];

  PetscFunctionBeginUser;
  PetscCheck(item->type == YAML_SCALAR_NODE, ctx->comm, FG_ERR_INPUT, "%s: expected %s, got %s", iwhere, FGExpected_Private(ref->def, expect, sizeof(expect)), FGNodeKind_Private(item));
  PetscCall(FGCaseScalar_Internal(ctx, ref, iwhere, (const char *)item->data.scalar.value, item->data.scalar.length, (PetscBool)(item->data.scalar.style == YAML_PLAIN_SCALAR_STYLE), dst));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A variable-length list (def->maxlen > 0): minlen..maxlen entries, each a number, a string or,
   with def->tuple, a list of that many numbers; stored flat from the key's offset (strings:
   def->size bytes apart), the number of entries at ref->count, and with def->entry_wherelen where
   each entry was given at ref->entry_where. Entries past the list are zeroed (a --set may shorten
   a list). */
static PetscErrorCode FGCaseVarList_Private(FGCaseCtx ctx, yaml_document_t *doc, PetscInt k, yaml_node_t *node, const char *where, const char *setarg)
{
  static const char *const plural[]  = {"integers", "real numbers", "true/false values", "strings", "names"};
  static const char *const example[] = {"[1, 2]", "[0.5, 0.25]", "[true, false]", "[a, b]", "[a, b]"};
  const FGKeyRef          *ref       = &ctx->keys[k];
  const FGKeyDef          *def       = ref->def;
  const PetscInt           tuple     = PetscMax(def->tuple, 1);
  const size_t             esize     = FGCaseElementSize_Internal(def);
  char                    *dst       = (char *)ctx->c + ref->offset;
  char                    *ewhere    = def->entry_wherelen ? (char *)ctx->c + ref->entry_where : NULL;
  const char              *unit      = def->tuple ? "points" : "entries", *unit1 = def->tuple ? "point" : "entry";
  PetscInt                 n, m;

  PetscFunctionBeginUser;
  if (!node || node->type != YAML_SEQUENCE_NODE) {
    char snip[64] = "";
    if (node && node->type == YAML_SCALAR_NODE) FGSnippet_Private((const char *)node->data.scalar.value, node->data.scalar.length, snip, sizeof(snip));
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: expected a list of %s (e.g. %s), got %s%s%s%s", where, def->tuple ? "points [x, y]" : plural[def->type], def->tuple ? "[[0, 0], [1, 0.5], ...]" : example[def->type], FGNodeKind_Private(node), snip[0] ? " '" : "", snip, snip[0] ? "'" : "");
  }
  n = (PetscInt)(node->data.sequence.items.top - node->data.sequence.items.start);
  PetscCheck(n <= def->maxlen, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " %s; at most %" PetscInt_FMT, where, n, unit, def->maxlen);
  PetscCheck(n || !def->minlen, ctx->comm, FG_ERR_INPUT, "%s: empty list; at least %" PetscInt_FMT " %s", where, def->minlen, def->minlen == 1 ? unit1 : unit);
  PetscCheck(n >= def->minlen, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " %s; at least %" PetscInt_FMT, where, n, n == 1 ? unit1 : unit, def->minlen);
  PetscCall(PetscMemzero(dst, (size_t)(def->maxlen * tuple) * esize));
  if (ewhere) PetscCall(PetscMemzero(ewhere, (size_t)def->maxlen * def->entry_wherelen));
  for (PetscInt i = 0; i < n; i++) {
    yaml_node_t *item = yaml_document_get_node(doc, node->data.sequence.items.start[i]);
    char         index[32], iwhere[FG_CASE_WHERE_LEN];

    snprintf(index, sizeof(index), "[%" PetscInt_FMT "]", i);
    FGCaseItemWhere_Private(ctx, ref, setarg, item, index, iwhere, sizeof(iwhere));
    /* the entry's origin for later messages: its own line in a file (a list may span lines) */
    if (ewhere && setarg) snprintf(ewhere + (size_t)i * def->entry_wherelen, def->entry_wherelen, "--set %s", setarg);
    else if (ewhere) snprintf(ewhere + (size_t)i * def->entry_wherelen, def->entry_wherelen, "%s:%d: %s", ctx->file, (int)item->start_mark.line + 1, ref->path);
    if (!def->tuple) {
      PetscCall(FGCaseItem_Private(ctx, ref, iwhere, item, dst + (size_t)i * esize));
      continue;
    }
    PetscCheck(item->type == YAML_SEQUENCE_NODE, ctx->comm, FG_ERR_INPUT, "%s: expected a point [x, y], got %s", iwhere, FGNodeKind_Private(item));
    m = (PetscInt)(item->data.sequence.items.top - item->data.sequence.items.start);
    PetscCheck(m == def->tuple, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " number%s, but a point has %" PetscInt_FMT " coordinates [x, y]", iwhere, m, m == 1 ? "" : "s", def->tuple);
    for (PetscInt j = 0; j < tuple; j++) {
      yaml_node_t *x = yaml_document_get_node(doc, item->data.sequence.items.start[j]);
      char         xindex[64], xwhere[FG_CASE_WHERE_LEN];

      snprintf(xindex, sizeof(xindex), "[%" PetscInt_FMT "][%" PetscInt_FMT "]", i, j);
      FGCaseItemWhere_Private(ctx, ref, setarg, x, xindex, xwhere, sizeof(xwhere));
      PetscCall(FGCaseItem_Private(ctx, ref, xwhere, x, dst + (size_t)(i * tuple + j) * esize));
    }
  }
  *(PetscInt *)((char *)ctx->c + ref->count) = n;
  ctx->vals[k].n                              = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The value of key k from a YAML node (NULL: an empty value), given at file line `line` or by
   the --set argument `setarg`. */
static PetscErrorCode FGCaseNodeValue_Private(FGCaseCtx ctx, yaml_document_t *doc, PetscInt k, yaml_node_t *node, int line, const char *setarg)
{
  const FGKeyRef *ref = &ctx->keys[k];
  const FGKeyDef *def = ref->def;
  char           *dst = (char *)ctx->c + ref->offset;
  char            where[FG_CASE_WHERE_LEN], expect[300];
  const char     *what = FGExpected_Private(def, expect, sizeof(expect));

  PetscFunctionBeginUser;
  if (setarg) snprintf(where, sizeof(where), "--set %s", setarg);
  else snprintf(where, sizeof(where), "%s:%d: %s", ctx->file, line, ref->path);
  PetscCheck(!node || !node->tag || !strncmp((const char *)node->tag, "tag:yaml.org,2002:", 18), ctx->comm, FG_ERR_INPUT, "%s: YAML tags are not supported (%s)", where, (const char *)node->tag);
  if (def->maxlen) {
    PetscCall(FGCaseVarList_Private(ctx, doc, k, node, where, setarg));
  } else if (def->list) {
    static const char *const example[] = {"[64, 64]", "[1.0, 1.0]", "[true, false]", "[a, b]", "[a, b]"};
    static const char *const plural[]  = {"integers", "real numbers", "true/false values", "strings", "names"};
    PetscInt                 n;
    size_t                   esize = FGCaseElementSize_Internal(def);

    if (!node || node->type != YAML_SEQUENCE_NODE) {
      char snip[64] = "";
      if (node && node->type == YAML_SCALAR_NODE) FGSnippet_Private((const char *)node->data.scalar.value, node->data.scalar.length, snip, sizeof(snip));
      SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: expected a list of %s, one per direction (e.g. %s), got %s%s%s%s", where, plural[def->type], example[def->type], FGNodeKind_Private(node), snip[0] ? " '" : "", snip, snip[0] ? "'" : "");
    }
    n = (PetscInt)(node->data.sequence.items.top - node->data.sequence.items.start);
    PetscCheck(n >= 1, ctx->comm, FG_ERR_INPUT, "%s: empty list (expected one entry per direction)", where);
    PetscCheck(n <= FG_CASE_MAX_DIM, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " entries; at most %d (one per direction)", where, n, FG_CASE_MAX_DIM);
    for (PetscInt i = 0; i < n; i++) {
      yaml_node_t *item = yaml_document_get_node(doc, node->data.sequence.items.start[i]);
      char         index[32], iwhere[FG_CASE_WHERE_LEN];

      snprintf(index, sizeof(index), "[%" PetscInt_FMT "]", i);
      FGCaseItemWhere_Private(ctx, ref, setarg, item, index, iwhere, sizeof(iwhere));
      PetscCall(FGCaseItem_Private(ctx, ref, iwhere, item, dst + (size_t)i * esize));
    }
    ctx->vals[k].n = n;
  } else {
    PetscCheck(!node || node->type == YAML_SCALAR_NODE, ctx->comm, FG_ERR_INPUT, "%s: expected %s, got %s", where, what, FGNodeKind_Private(node));
    if (node) PetscCall(FGCaseScalar_Internal(ctx, ref, where, (const char *)node->data.scalar.value, node->data.scalar.length, (PetscBool)(node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE), dst));
    else PetscCall(FGCaseScalar_Internal(ctx, ref, where, "", 0, PETSC_TRUE, dst));
    ctx->vals[k].n = 1;
  }
  ctx->vals[k].set    = PETSC_TRUE;
  ctx->vals[k].line   = line;
  ctx->vals[k].setarg = setarg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool FGIsIdentifier_Private(const char *s, size_t len)
{
  if (!len || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_')) return PETSC_FALSE;
  for (size_t i = 1; i < len; i++)
    if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_')) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Whether the key of pair is a scalar equal to that of an earlier pair of the mapping. */
static PetscBool FGIsDuplicate_Private(yaml_document_t *doc, yaml_node_t *map, yaml_node_pair_t *pair)
{
  yaml_node_t *key = yaml_document_get_node(doc, pair->key);

  for (yaml_node_pair_t *prev = map->data.mapping.pairs.start; prev < pair; prev++) {
    yaml_node_t *pk = yaml_document_get_node(doc, prev->key);
    if (pk->type == YAML_SCALAR_NODE && key->type == YAML_SCALAR_NODE && pk->data.scalar.length == key->data.scalar.length && !memcmp(pk->data.scalar.value, key->data.scalar.value, key->data.scalar.length)) return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

/*
  The instances the file names (body: {cyl: {...}, wing: {...}}), in file order, before the keys
  are set up: each name an identifier, each instance a mapping, at most the family's maximum. The
  other faults of these sections (not a mapping, duplicates, merge keys, keys that are not names)
  are left to the walk, which meets them in file order.
*/
static PetscErrorCode FGCaseFindInstances_Private(FGCaseCtx ctx, yaml_node_t *root)
{
  yaml_document_t *doc = &ctx->doc;

  PetscFunctionBeginUser;
  for (yaml_node_pair_t *pair = root->data.mapping.pairs.start; pair < root->data.mapping.pairs.top; pair++) {
    yaml_node_t       *key = yaml_document_get_node(doc, pair->key);
    yaml_node_t       *sec = yaml_document_get_node(doc, pair->value);
    const FGKeyFamily *fam;

    if (key->type != YAML_SCALAR_NODE || !sec || sec->type != YAML_MAPPING_NODE || FGIsDuplicate_Private(doc, root, pair)) continue;
    fam = FGCaseFamilyOfSection_Internal((const char *)key->data.scalar.value, key->data.scalar.length);
    if (!fam) continue;
    for (yaml_node_pair_t *ipair = sec->data.mapping.pairs.start; ipair < sec->data.mapping.pairs.top; ipair++) {
      yaml_node_t *ikey = yaml_document_get_node(doc, ipair->key);
      yaml_node_t *ival = yaml_document_get_node(doc, ipair->value);
      int          line = (int)ikey->start_mark.line + 1;
      const char  *name;
      size_t       nlen;
      char         snip[64];

      if (ikey->type != YAML_SCALAR_NODE || FGIsDuplicate_Private(doc, sec, ipair)) continue;
      name = (const char *)ikey->data.scalar.value;
      nlen = ikey->data.scalar.length;
      if (nlen == 2 && !memcmp(name, "<<", 2)) continue;
      FGSnippet_Private(name, nlen, snip, sizeof(snip));
      PetscCheck(FGIsIdentifier_Private(name, nlen), ctx->comm, FG_ERR_INPUT, "%s:%d: %s: '%s' is not a valid %s name: a name is an identifier (a letter or _, then letters, digits or _)", ctx->file, line, fam->section, snip, fam->noun);
      PetscCheck(nlen < FG_CASE_NAME_LEN, ctx->comm, FG_ERR_INPUT, "%s:%d: %s: the %s name '%s' is too long (%zu characters; at most %d)", ctx->file, line, fam->section, fam->noun, snip, nlen, FG_CASE_NAME_LEN - 1);
      PetscCheck(FGCaseInstanceCount_Internal(ctx, fam) < fam->max, ctx->comm, FG_ERR_INPUT, "%s:%d: %s.%s: too many %s (at most %" PetscInt_FMT ")", ctx->file, line, fam->section, snip, fam->plural, fam->max);
      if (!ival || ival->type != YAML_MAPPING_NODE) {
        char vsnip[64] = "";
        if (ival && ival->type == YAML_SCALAR_NODE) FGSnippet_Private((const char *)ival->data.scalar.value, ival->data.scalar.length, vsnip, sizeof(vsnip));
        SETERRQ(ctx->comm, FG_ERR_INPUT, "%s:%d: %s.%s: expected a section (the keys of %s %s), got %s%s%s%s; %s: holds named %s, e.g. %s: {NAME: {KEY: VALUE, ...}}", ctx->file, line, fam->section, snip, fam->noun, snip, FGNodeKind_Private(ival), vsnip[0] ? " '" : "", vsnip, vsnip[0] ? "'" : "", fam->section, fam->plural, fam->section);
      }
      PetscCall(FGCaseInstanceAdd_Internal(ctx, fam, name, nlen, line));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Walk one mapping of the file: `prefix` is its section ("" at the top). */
static PetscErrorCode FGCaseWalk_Private(FGCaseCtx ctx, yaml_node_t *map, const char *prefix)
{
  yaml_document_t *doc = &ctx->doc;

  PetscFunctionBeginUser;
  for (yaml_node_pair_t *pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
    yaml_node_t *key = yaml_document_get_node(doc, pair->key);
    yaml_node_t *val = yaml_document_get_node(doc, pair->value);
    int          line = (int)key->start_mark.line + 1;
    char         path[256];
    const char  *name;
    size_t       nlen;
    PetscInt     k = -1;
    PetscBool    section = PETSC_FALSE, plainname;

    PetscCheck(key->type == YAML_SCALAR_NODE, ctx->comm, FG_ERR_INPUT, "%s:%d: %s%sa key must be a name, got %s", ctx->file, line, prefix, prefix[0] ? ": " : "", FGNodeKind_Private(key));
    name = (const char *)key->data.scalar.value;
    nlen = key->data.scalar.length;
    PetscCheck(!(nlen == 2 && !memcmp(name, "<<", 2)), ctx->comm, FG_ERR_INPUT, "%s:%d: %s%s<<: YAML merge keys are not supported; write the keys out", ctx->file, line, prefix, prefix[0] ? "." : "");
    PetscCheck(!val || !val->tag || !strncmp((const char *)val->tag, "tag:yaml.org,2002:", 18), ctx->comm, FG_ERR_INPUT, "%s:%d: %s%s%.*s: YAML tags are not supported (%s)", ctx->file, line, prefix, prefix[0] ? "." : "", (int)PetscMin(nlen, 200), name, (const char *)val->tag);
    snprintf(path, sizeof(path), "%s%s%.*s", prefix, prefix[0] ? "." : "", (int)PetscMin(nlen, 200), name);
    /* a duplicate of an earlier key of this mapping */
    for (yaml_node_pair_t *prev = map->data.mapping.pairs.start; prev < pair; prev++) {
      yaml_node_t *pk = yaml_document_get_node(doc, prev->key);
      PetscCheck(!(pk->type == YAML_SCALAR_NODE && pk->data.scalar.length == nlen && !memcmp(pk->data.scalar.value, name, nlen)), ctx->comm, FG_ERR_INPUT, "%s:%d: %s: duplicate key (first at line %d)", ctx->file, line, path, (int)pk->start_mark.line + 1);
    }
    plainname = (PetscBool)(nlen > 0 && nlen < FG_CASE_PATH_LEN && !memchr(name, '.', nlen) && !memchr(name, '\0', nlen) && strlen(path) < FG_CASE_PATH_LEN);
    if (plainname) {
      PetscCall(FGCaseKeyFind_Internal(ctx, path, &k));
      if (k < 0) PetscCall(FGCaseIsSection_Internal(ctx, path, &section));
    }
    if (k >= 0) {
      PetscCall(FGCaseNodeValue_Private(ctx, doc, k, val, line, NULL));
    } else if (section) {
      if (!val || val->type != YAML_MAPPING_NODE) {
        char snip[64] = "";
        if (val && val->type == YAML_SCALAR_NODE) FGSnippet_Private((const char *)val->data.scalar.value, val->data.scalar.length, snip, sizeof(snip));
        SETERRQ(ctx->comm, FG_ERR_INPUT, "%s:%d: %s: expected a section (a mapping of keys), got %s%s%s%s", ctx->file, line, path, FGNodeKind_Private(val), snip[0] ? " '" : "", snip, snip[0] ? "'" : "");
      }
      PetscCheck(ctx->nsec < FG_CASE_MAX_SECTIONS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "too many sections; raise FG_CASE_MAX_SECTIONS");
      PetscCall(PetscStrncpy(ctx->sec[ctx->nsec].path, path, FG_CASE_PATH_LEN));
      ctx->sec[ctx->nsec++].line = line;
      PetscCall(FGCaseWalk_Private(ctx, val, path));
    } else {
      char hint[1024] = "";
      if (memchr(name, '.', nlen)) snprintf(hint, sizeof(hint), " (dotted keys are for --set; in a file, nest them: `grid:` with `cells:` indented below it)");
      else PetscCall(FGCaseSuggest_Internal(ctx, path, hint, sizeof(hint)));
      SETERRQ(ctx->comm, FG_ERR_INPUT, "%s:%d: %s: unknown key%s", ctx->file, line, path, hint);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Raise libyaml's error: `what` is "FILE" or "--set ARG"; text locates reader errors. */
static PetscErrorCode FGCaseYAMLError_Private(FGCaseCtx ctx, const char *what, PetscBool isset, const char *text, size_t len)
{
  yaml_parser_t *p = &ctx->parser;
  char           context[256] = "";

  PetscFunctionBeginUser;
  PetscCheck(p->error != YAML_MEMORY_ERROR, PETSC_COMM_SELF, PETSC_ERR_MEM, "libyaml: out of memory");
  if (p->error == YAML_READER_ERROR) {
    int line = 1;
    for (size_t i = 0; i < p->problem_offset && i < len; i++)
      if (text[i] == '\n') line++;
    if (isset) SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: not valid text: %s (byte %zu)", what, p->problem ? p->problem : "?", p->problem_offset);
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s:%d: not a text file: %s (byte %zu)", what, line, p->problem ? p->problem : "?", p->problem_offset);
  }
  if (p->context) snprintf(context, sizeof(context), " (%s at line %d)", p->context, (int)p->context_mark.line + 1);
  if (isset) SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: YAML syntax error in the value: %s", what, p->problem ? p->problem : "?");
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s:%d:%d: YAML syntax error: %s%s", what, (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1, p->problem ? p->problem : "?", context);
}

/* libyaml's parser takes time quadratic in the nesting depth (a 1 MiB file of '[' would run for
   half an hour): refuse flow collections nested deeper than FG_CASE_MAX_DEPTH and block nesting
   indented past FG_CASE_MAX_INDENT columns before parsing. Quoted text and comments are skipped. */
#define FG_CASE_MAX_DEPTH  32
#define FG_CASE_MAX_INDENT 512
static PetscErrorCode FGCaseCheckNesting_Private(FGCaseCtx ctx, const char *what, PetscBool isset, const char *text, size_t len)
{
  int    depth = 0, line = 1, col = 0;
  char   quote = 0;
  size_t i;

  PetscFunctionBeginUser;
  for (i = 0; i < len; i++) {
    const char ch = text[i];
    if (ch == '\n' || (ch == '\r' && (i + 1 >= len || text[i + 1] != '\n'))) {
      line++, col = 0;
      if (quote == '#') quote = 0;
      continue;
    }
    if (quote == '#') continue;
    if (quote) {
      if (quote == '"' && ch == '\\') i++;
      else if (ch == quote) quote = 0;
      continue;
    }
    if (col >= 0 && ch == ' ') {
      PetscCheck(++col <= FG_CASE_MAX_INDENT, ctx->comm, FG_ERR_INPUT, "%s%s%d: indented more than %d columns: nesting this deep is not a case file", what, isset ? ": line " : ":", line, FG_CASE_MAX_INDENT);
      continue;
    }
    col = -1; /* past the indentation */
    if (ch == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n' || text[i - 1] == '\r')) quote = '#'; /* a comment, column 0 too */
    else if (ch == '"' || ch == '\'') quote = ch;
    else if (ch == '[' || ch == '{') PetscCheck(++depth <= FG_CASE_MAX_DEPTH, ctx->comm, FG_ERR_INPUT, "%s%s%d: collections nested more than %d deep: not a case file", what, isset ? ": line " : ":", line, FG_CASE_MAX_DEPTH);
    else if ((ch == ']' || ch == '}') && depth > 0) depth--;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Text, not binary: valid UTF-8 without NUL bytes or control characters other than tab, CR, LF. */
static PetscErrorCode FGCaseCheckText_Private(FGCaseCtx ctx, const char *what, PetscBool isset, const char *text, size_t len)
{
  const unsigned char *s    = (const unsigned char *)text;
  size_t               i    = (len >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) ? 3 : 0; /* BOM */
  int                  line = 1;
  const char          *bad  = NULL;
  char                 at[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  while (i < len && !bad) {
    unsigned char b    = s[i];
    size_t        need = 0;
    PetscBool     ok   = PETSC_TRUE;

    if (b < 0x80) {
      if (b == '\n' || (b == '\r' && (i + 1 >= len || s[i + 1] != '\n'))) line++; /* LF, CRLF or CR */
      else if (b == 0) bad = "not a text file: NUL byte";
      else if ((b < 0x20 && b != '\t' && b != '\r') || b == 0x7f) bad = "not a text file: control character";
      if (!bad) i++;
      continue;
    }
    if (b >= 0xC2 && b <= 0xDF) need = 1;
    else if (b >= 0xE0 && b <= 0xEF) need = 2;
    else if (b >= 0xF0 && b <= 0xF4) need = 3;
    else ok = PETSC_FALSE;
    if (ok && i + need >= len) ok = PETSC_FALSE;
    for (size_t j = 1; ok && j <= need; j++)
      if ((s[i + j] & 0xC0) != 0x80) ok = PETSC_FALSE;
    if (ok && b == 0xE0 && s[i + 1] < 0xA0) ok = PETSC_FALSE; /* overlong */
    if (ok && b == 0xED && s[i + 1] > 0x9F) ok = PETSC_FALSE; /* surrogates */
    if (ok && b == 0xF0 && s[i + 1] < 0x90) ok = PETSC_FALSE; /* overlong */
    if (ok && b == 0xF4 && s[i + 1] > 0x8F) ok = PETSC_FALSE; /* past U+10FFFF */
    if (!ok) bad = "not UTF-8 text: invalid byte";
    else i += need + 1;
  }
  if (!bad) PetscCall(FGCaseCheckNesting_Private(ctx, what, isset, text, len));
  if (!bad) PetscFunctionReturn(PETSC_SUCCESS);
  if (isset) snprintf(at, sizeof(at), "%s", what);
  else snprintf(at, sizeof(at), "%s:%d", what, line);
  if (s[i] == 0) SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %s at offset %zu (a binary file?)", at, bad, i);
  if (s[i] < 0x80) SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %s 0x%02x at offset %zu (a binary file?)", at, bad, (unsigned)s[i], i);
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %s 0x%02x at offset %zu (a binary file, or another encoding?)", at, bad, (unsigned)s[i], i);
}

/* No explicit tag anywhere (!!str, !!binary, !!set, !!python/..., !local): the document API gives
   a tagged node the same tag as an untagged one of its kind, so the events are read once first,
   where an explicit tag is set and an implicit one is not; the keys above it are followed, so the
   message names the key ("f.yaml:7: time.dt: YAML tags are not supported (!!str)"). A syntax
   error is left to the load. */
#define FG_TAG_DEPTH 40 /* the nesting is checked before (FG_CASE_MAX_DEPTH, indentation) */
static PetscErrorCode FGCaseCheckTags_Private(FGCaseCtx ctx, const char *what, PetscBool isset, const char *text, size_t len)
{
  yaml_parser_t parser;
  yaml_event_t  ev;
  char          tag[128] = "", key[FG_TAG_DEPTH][64], path[512] = "";
  PetscBool     map[FG_TAG_DEPTH], want_key[FG_TAG_DEPTH];
  int           line = 0, top = -1;

  PetscFunctionBeginUser;
  PetscCheck(yaml_parser_initialize(&parser), PETSC_COMM_SELF, PETSC_ERR_MEM, "libyaml: cannot initialize a parser");
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
  while (!tag[0] && yaml_parser_parse(&parser, &ev)) {
    const yaml_event_type_t type  = ev.type;
    const yaml_char_t      *t     = type == YAML_SCALAR_EVENT ? ev.data.scalar.tag : type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.tag : type == YAML_MAPPING_START_EVENT ? ev.data.mapping_start.tag : NULL;
    const PetscBool         iskey = (PetscBool)(type == YAML_SCALAR_EVENT && top >= 0 && map[top] && want_key[top]);
    if (t) {
      snprintf(tag, sizeof(tag), "%s", (const char *)t);
      line = (int)ev.start_mark.line + 1;
      for (int l = 0; l <= top && l < FG_TAG_DEPTH; l++) {
        size_t u = strlen(path);
        if (map[l] && !(l == top && want_key[l])) snprintf(path + u, sizeof(path) - u, "%s%s", u ? "." : "", key[l]);
      }
    } else if (iskey) {
      snprintf(key[top], sizeof(key[top]), "%.*s", (int)PetscMin(ev.data.scalar.length, 60), (const char *)ev.data.scalar.value);
      want_key[top] = PETSC_FALSE;
    } else if (type == YAML_SCALAR_EVENT || type == YAML_ALIAS_EVENT) {
      if (top >= 0 && map[top]) want_key[top] = PETSC_TRUE; /* a value: a key comes next */
    } else if ((type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) && top + 1 < FG_TAG_DEPTH) {
      top++;
      map[top] = want_key[top] = (PetscBool)(type == YAML_MAPPING_START_EVENT);
      key[top][0] = '\0';
    } else if ((type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) && top >= 0) {
      top--;
      if (top >= 0 && map[top]) want_key[top] = PETSC_TRUE;
    }
    yaml_event_delete(&ev);
    if (type == YAML_STREAM_END_EVENT) break;
  }
  yaml_parser_delete(&parser);
  if (!strncmp(tag, "tag:yaml.org,2002:", 18)) { /* as it was written: !!str */
    char shortened[128];
    snprintf(shortened, sizeof(shortened), "!!%s", tag + 18);
    snprintf(tag, sizeof(tag), "%s", shortened);
  }
  if (isset) PetscCheck(!tag[0], ctx->comm, FG_ERR_INPUT, "%s: YAML tags are not supported (%s)", what, tag);
  PetscCheck(!tag[0], ctx->comm, FG_ERR_INPUT, "%s:%d: %s%sYAML tags are not supported (%s)", what, line, path, path[0] ? ": " : "", tag);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Load one YAML document from text into ctx->doc (root: NULL when the text holds no node),
   checking that no second document follows. */
static PetscErrorCode FGCaseLoadDocument_Private(FGCaseCtx ctx, const char *what, PetscBool isset, const char *text, size_t len, yaml_node_t **root)
{
  yaml_node_t *second;

  PetscFunctionBeginUser;
  PetscCall(FGCaseYAMLRelease_Internal(ctx));
  PetscCall(FGCaseCheckTags_Private(ctx, what, isset, text, len));
  PetscCheck(yaml_parser_initialize(&ctx->parser), PETSC_COMM_SELF, PETSC_ERR_MEM, "libyaml: cannot initialize a parser");
  ctx->has_parser = PETSC_TRUE;
  yaml_parser_set_input_string(&ctx->parser, (const unsigned char *)text, len);
  yaml_parser_set_encoding(&ctx->parser, YAML_UTF8_ENCODING);
  if (!yaml_parser_load(&ctx->parser, &ctx->doc)) PetscCall(FGCaseYAMLError_Private(ctx, what, isset, text, len)); /* the document is already freed */
  ctx->has_doc = PETSC_TRUE;
  if (!yaml_parser_load(&ctx->parser, &ctx->extra)) PetscCall(FGCaseYAMLError_Private(ctx, what, isset, text, len));
  ctx->has_extra = PETSC_TRUE;
  second         = yaml_document_get_root_node(&ctx->extra);
  if (isset) PetscCheck(!second, ctx->comm, FG_ERR_INPUT, "%s: the value holds more than one YAML document", what);
  else PetscCheck(!second, ctx->comm, FG_ERR_INPUT, "%s:%d: a second YAML document; a case file holds exactly one", what, (int)ctx->extra.start_mark.line + 1);
  yaml_document_delete(&ctx->extra);
  ctx->has_extra = PETSC_FALSE;
  *root          = yaml_document_get_root_node(&ctx->doc);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
  Parse the case file's text (len bytes, not NUL-terminated necessarily) into ctx->c, recording
  where each key was given. The keys (FGCaseKeysSetUp_Internal) exist once the file's instances
  (bodies, probes, actuators) are known.
*/
PetscErrorCode FGCaseParseText_Internal(FGCaseCtx ctx, const char *text, size_t len)
{
  yaml_node_t *root;

  PetscFunctionBeginUser;
  PetscCheck(len <= FG_CASE_MAX_BYTES, ctx->comm, FG_ERR_INPUT, "%s: too large (%zu bytes; a case file is at most 1 MiB)", ctx->file, len);
  PetscCheck(len > 0, ctx->comm, FG_ERR_INPUT, "%s:1: empty case file (no keys)", ctx->file);
  PetscCall(FGCaseCheckText_Private(ctx, ctx->file, PETSC_FALSE, text, len));
  if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) text += 3, len -= 3; /* a UTF-8 BOM (libyaml keeps it when told the encoding) */
  PetscCall(FGCaseLoadDocument_Private(ctx, ctx->file, PETSC_FALSE, text, len, &root));
  PetscCheck(root, ctx->comm, FG_ERR_INPUT, "%s:1: empty case file (no keys, only comments or blank lines)", ctx->file);
  PetscCheck(root->type == YAML_MAPPING_NODE, ctx->comm, FG_ERR_INPUT, "%s:%d: the case file must be a mapping of keys (grid:, flow:, time:, ...), got %s", ctx->file, (int)root->start_mark.line + 1, FGNodeKind_Private(root));
  PetscCall(FGCaseFindInstances_Private(ctx, root));
  PetscCall(FGCaseKeysSetUp_Internal(ctx));
  PetscCall(FGCaseWalk_Private(ctx, root, ""));
  PetscCall(FGCaseYAMLRelease_Internal(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A --set of a key of an instance the case file does not name (body.NAME.KEY): an error that
   says which instances there are. Nothing when key is not of a named family or its instance exists. */
static PetscErrorCode FGCaseCheckSetInstance_Private(FGCaseCtx ctx, const char *arg, const char *key)
{
  const char        *dot = strchr(key, '.'), *name, *end;
  const FGKeyFamily *fam = dot ? FGCaseFamilyOfSection_Internal(key, (size_t)(dot - key)) : NULL;
  size_t             nlen;
  char               names[512];
  int                line;

  PetscFunctionBeginUser;
  if (!fam) PetscFunctionReturn(PETSC_SUCCESS);
  name = dot + 1;
  end  = strchr(name, '.');
  nlen = end ? (size_t)(end - name) : strlen(name);
  for (PetscInt i = 0; i < FGCaseInstanceCount_Internal(ctx, fam); i++) {
    const char *have = FGCaseInstanceName_Internal(ctx, fam, i);
    if (strlen(have) == nlen && !strncmp(have, name, nlen)) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FGCaseSectionLine_Internal(ctx, fam->section, &line));
  PetscCall(FGCaseInstancesString_Internal(ctx, fam, names, sizeof(names)));
  PetscCheck(line, ctx->comm, FG_ERR_INPUT, "--set %s: the case has no %s section (--set changes the %s of the case file; it does not add any)", arg, fam->section, fam->plural);
  PetscCheck(names[0], ctx->comm, FG_ERR_INPUT, "--set %s: the case has no %s (its %s section, line %d, is empty; --set does not add any)", arg, fam->plural, fam->section, line);
  SETERRQ(ctx->comm, FG_ERR_INPUT, "--set %s: the case has no %s %.*s (its %s: %s)", arg, fam->noun, (int)PetscMin(nlen, 64), name, fam->plural, names);
}

/* Apply one --set KEY=VALUE: VALUE is a YAML scalar or flow sequence. */
PetscErrorCode FGCaseParseSet_Internal(FGCaseCtx ctx, const char *arg)
{
  const char  *eq = strchr(arg, '='), *value;
  const char  *kb = arg, *ke;
  char         key[FG_CASE_PATH_LEN], what[FG_CASE_WHERE_LEN];
  PetscInt     k = -1;
  PetscBool    section = PETSC_FALSE;
  yaml_node_t *root;

  PetscFunctionBeginUser;
  PetscCheck(eq, ctx->comm, FG_ERR_INPUT, "--set %s: expected KEY=VALUE (no '=')", arg);
  ke = eq;
  while (kb < ke && (*kb == ' ' || *kb == '\t')) kb++;
  while (ke > kb && (ke[-1] == ' ' || ke[-1] == '\t')) ke--;
  PetscCheck(ke > kb, ctx->comm, FG_ERR_INPUT, "--set %s: expected KEY=VALUE (no key before '=')", arg);
  snprintf(what, sizeof(what), "--set %s", arg);
  if ((size_t)(ke - kb) < sizeof(key)) {
    PetscCall(PetscStrncpy(key, kb, (size_t)(ke - kb) + 1));
    PetscCall(FGCaseKeyFind_Internal(ctx, key, &k));
    if (k < 0) PetscCall(FGCaseIsSection_Internal(ctx, key, &section));
    PetscCheck(!section, ctx->comm, FG_ERR_INPUT, "--set %s: %s is a section, not a key; set its keys one by one (--set %s.KEY=VALUE)", arg, key, key);
    if (k < 0) PetscCall(FGCaseCheckSetInstance_Private(ctx, arg, key));
    if (k < 0) {
      char hint[1024];
      PetscCall(FGCaseSuggest_Internal(ctx, key, hint, sizeof(hint)));
      SETERRQ(ctx->comm, FG_ERR_INPUT, "--set %s: unknown key%s", arg, hint);
    }
  }
  PetscCheck(k >= 0, ctx->comm, FG_ERR_INPUT, "--set %s: unknown key", arg);
  value = eq + 1;
  PetscCall(FGCaseCheckText_Private(ctx, what, PETSC_TRUE, value, strlen(value)));
  PetscCall(FGCaseLoadDocument_Private(ctx, what, PETSC_TRUE, value, strlen(value), &root));
  if (ctx->keys[k].def->excludes) {
    PetscInt kx;
    PetscCall(FGCaseKeyFind_Internal(ctx, ctx->keys[k].def->excludes, &kx));
    PetscCheck(kx >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "key table: %s excludes unknown key %s", ctx->keys[k].path, ctx->keys[k].def->excludes);
    if (ctx->vals[kx].set && !ctx->vals[kx].setarg) ctx->vals[kx].set = PETSC_FALSE;
  }
  PetscCall(FGCaseNodeValue_Private(ctx, &ctx->doc, k, root, 0, arg));
  PetscCall(FGCaseYAMLRelease_Internal(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}
