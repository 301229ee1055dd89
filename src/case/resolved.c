/*
  The resolved case: every key that applies to this case, defaults filled in, as YAML nested by
  section in table order (z faces and list entries only up to grid.dim; a face's velocity only
  on lid/inflow faces, its profile only on inflow faces; of a body's keys those of its shape; an
  optional key without a default only when given). Lists are flow sequences. The same parser
  reads it back to the same case. Reals are written with the fewest digits (15 to 17) that read back to the same
  double. case->hash is the FNV-1a 64-bit hash of the text: it identifies the case (checkpoints
  carry it).
*/
#include "caseimpl.h"
#include <stdlib.h>
#include <string.h>

/* The shortest %.Ng (N = 15..17) that strtod reads back to v. */
PetscErrorCode FGCaseFormatReal_Internal(PetscReal v, char *buf, size_t len)
{
  PetscFunctionBeginUser;
  for (int p = 15; p <= 17; p++) {
    snprintf(buf, len, "%.*g", p, (double)v);
    if (strtod(buf, NULL) == (double)v) break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  char  *buf;
  size_t len, size;
} FGText;

static PetscErrorCode FGTextAdd_Private(FGText *t, const char *s)
{
  size_t n = strlen(s);

  PetscFunctionBeginUser;
  PetscCheck(t->len + n < t->size, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the resolved case does not fit in %zu bytes", t->size);
  PetscCall(PetscMemcpy(t->buf + t->len, s, n));
  t->len += n;
  t->buf[t->len] = '\0';
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A YAML double-quoted string. */
static PetscErrorCode FGTextAddQuoted_Private(FGText *t, const char *s)
{
  PetscFunctionBeginUser;
  PetscCall(FGTextAdd_Private(t, "\""));
  for (const char *p = s; *p; p++) {
    char one[8];
    if (*p == '"') snprintf(one, sizeof(one), "\\\"");
    else if (*p == '\\') snprintf(one, sizeof(one), "\\\\");
    else if (*p == '\n') snprintf(one, sizeof(one), "\\n");
    else if (*p == '\t') snprintf(one, sizeof(one), "\\t");
    else if ((unsigned char)*p < 0x20 || *p == 0x7f) snprintf(one, sizeof(one), "\\x%02x", (unsigned)(unsigned char)*p);
    else one[0] = *p, one[1] = '\0';
    PetscCall(FGTextAdd_Private(t, one));
  }
  PetscCall(FGTextAdd_Private(t, "\""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGTextAddScalar_Private(FGText *t, const FGKeyDef *def, const char *at)
{
  char buf[64];

  PetscFunctionBeginUser;
  switch (def->type) {
  case FG_KEY_INT:
    snprintf(buf, sizeof(buf), "%" PetscInt_FMT, *(const PetscInt *)at);
    break;
  case FG_KEY_REAL:
    PetscCall(FGCaseFormatReal_Internal(*(const PetscReal *)at, buf, sizeof(buf)));
    break;
  case FG_KEY_BOOL:
    snprintf(buf, sizeof(buf), "%s", *(const PetscBool *)at ? "true" : "false");
    break;
  case FG_KEY_ENUM:
    snprintf(buf, sizeof(buf), "%s", def->choices[*(const int *)at]);
    break;
  case FG_KEY_STRING:
    PetscCall(FGTextAddQuoted_Private(t, at));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FGTextAdd_Private(t, buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Number of dot-separated components of path, and where the i-th starts. */
static PetscInt FGSplit_Private(const char *path, const char *start[], size_t len[], PetscInt max)
{
  PetscInt n = 0;
  for (const char *p = path; n < max;) {
    const char *dot = strchr(p, '.');
    start[n]        = p;
    len[n++]        = dot ? (size_t)(dot - p) : strlen(p);
    if (!dot) break;
    p = dot + 1;
  }
  return n;
}

/* Fill case->resolved and case->hash. */
PetscErrorCode FGCaseResolve_Internal(FGCaseCtx ctx)
{
  FGCase     *c = ctx->c;
  FGText      t = {c->resolved, 0, sizeof(c->resolved)};
  const char *prev[8], *cur[8];
  size_t      prevlen[8], curlen[8];
  PetscInt    nprev = 0;

  PetscFunctionBeginUser;
  c->resolved[0] = '\0';
  PetscCall(FGTextAdd_Private(&t, "# flowgrad resolved case: every key, with the defaults filled in\n"));
  for (PetscInt k = 0; k < ctx->nkeys; k++) {
    const FGKeyRef *ref = &ctx->keys[k];
    const FGKeyDef *def = ref->def;
    const char     *at  = (const char *)c + ref->offset;
    char            why[256], line[FG_CASE_PATH_LEN + 16];
    PetscInt        ncur, same = 0;

    if (!FGCaseKeyExists_Internal(ctx, ref) || (def->applies && !def->applies(ctx, ref, why, sizeof(why)))) continue;
    if (!ctx->vals[k].set && !def->def && !def->compute) continue; /* an optional key without a default, not given */
    ncur = FGSplit_Private(ref->path, cur, curlen, 8);
    /* the sections this key shares with the previous one */
    while (same < ncur - 1 && same < nprev - 1 && curlen[same] == prevlen[same] && !strncmp(cur[same], prev[same], curlen[same])) same++;
    for (PetscInt l = same; l < ncur; l++) {
      snprintf(line, sizeof(line), "%*s%.*s:%s", (int)(2 * l), "", (int)curlen[l], cur[l], l < ncur - 1 ? "\n" : " ");
      PetscCall(FGTextAdd_Private(&t, line));
    }
    if (def->maxlen) {
      const PetscInt n = *(const PetscInt *)((const char *)c + ref->count), tuple = PetscMax(def->tuple, 1);
      const size_t   esize = FGCaseElementSize_Internal(def);

      PetscCall(FGTextAdd_Private(&t, "["));
      for (PetscInt i = 0; i < n; i++) {
        if (i) PetscCall(FGTextAdd_Private(&t, ", "));
        if (def->tuple) PetscCall(FGTextAdd_Private(&t, "["));
        for (PetscInt j = 0; j < tuple; j++) {
          if (j) PetscCall(FGTextAdd_Private(&t, ", "));
          PetscCall(FGTextAddScalar_Private(&t, def, at + (size_t)(i * tuple + j) * esize));
        }
        if (def->tuple) PetscCall(FGTextAdd_Private(&t, "]"));
      }
      PetscCall(FGTextAdd_Private(&t, "]"));
    } else if (def->list) {
      PetscCall(FGTextAdd_Private(&t, "["));
      for (PetscInt i = 0; i < ctx->dim; i++) {
        if (i) PetscCall(FGTextAdd_Private(&t, ", "));
        PetscCall(FGTextAddScalar_Private(&t, def, at + (size_t)i * FGCaseElementSize_Internal(def)));
      }
      PetscCall(FGTextAdd_Private(&t, "]"));
    } else PetscCall(FGTextAddScalar_Private(&t, def, at));
    PetscCall(FGTextAdd_Private(&t, "\n"));
    nprev = ncur;
    for (PetscInt l = 0; l < ncur; l++) prev[l] = cur[l], prevlen[l] = curlen[l];
  }
  /* FNV-1a, 64 bits */
  c->hash = 14695981039346656037ULL;
  for (size_t i = 0; i < t.len; i++) {
    c->hash ^= (unsigned char)c->resolved[i];
    c->hash *= 1099511628211ULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Keys of the resolved case that may change between a run and its resumption. */
static PetscBool FGCaseRestartExcluded_Private(const char *path)
{
  static const char *const exact[]  = {"name", "description", "time.steps", "time.cfl_max", "adjoint.steady_dt"};
  static const char *const prefix[] = {"poisson.", "output."};
  for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
    if (!strcmp(path, exact[i])) return PETSC_TRUE;
  for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
    if (!strncmp(path, prefix[i], strlen(prefix[i]))) return PETSC_TRUE;
  return PETSC_FALSE;
}

/*@C
  FGCaseRestartKeys - the part of the resolved case a restart must agree with, and its hash.

  Not collective.

  Input Parameters:
+ c   - the case
- len - the size of keys

  Output Parameters:
+ keys - one line "dotted.key: value" per compared key of c->resolved, in its order
- hash - FNV-1a 64-bit hash of keys

  Notes:
  Every key except name, description, time.steps, time.cfl_max, adjoint.steady_dt, poisson.* and
  output.*: a run may be resumed with more steps, another output directory, monitor or checkpoint
  cadence, another blow-up guard, another step for the steady solver's Newton (the same fixed
  point) or another Poisson solver (fftw and ksp solve the same equations; ksp only to its
  tolerance).

.seealso: FGCheckpointLoad() (include/fg/checkpoint.h); the adjoint sweep's and the optimizer's logs use it too
@*/
PetscErrorCode FGCaseRestartKeys(const FGCase *c, char *keys, size_t len, unsigned long long *hash)
{
  char        stack[8][64];
  size_t      used = 0;
  const char *line = c->resolved;

  PetscFunctionBeginUser;
  keys[0] = '\0';
  while (*line) {
    const char *end = strchr(line, '\n'), *colon;
    size_t      n   = end ? (size_t)(end - line) : strlen(line), indent = 0, klen;
    PetscInt    level;

    while (indent < n && line[indent] == ' ') indent++;
    colon = memchr(line, ':', n);
    if (indent < n && line[indent] != '#' && colon) {
      const char *value = colon + 1;
      char        path[256] = "";
      level             = (PetscInt)(indent / 2);
      klen              = (size_t)(colon - (line + indent));
      PetscCheck(level < 8 && klen < sizeof(stack[0]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "unexpected line in the resolved case: %.*s", (int)n, line);
      snprintf(stack[level], sizeof(stack[level]), "%.*s", (int)klen, line + indent);
      if (value < line + n) { /* a key with a value (a section line ends at its colon) */
        while (value < line + n && *value == ' ') value++;
        for (PetscInt l = 0; l <= level; l++) {
          size_t pl = strlen(path);
          snprintf(path + pl, sizeof(path) - pl, "%s%s", l ? "." : "", stack[l]);
        }
        if (!FGCaseRestartExcluded_Private(path)) {
          int w = snprintf(keys + used, len - used, "%s: %.*s\n", path, (int)(line + n - value), value);
          PetscCheck(w > 0 && (size_t)w < len - used, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the restart keys do not fit in %zu bytes", len);
          used += (size_t)w;
        }
      }
    }
    line = end ? end + 1 : line + n;
  }
  *hash = 14695981039346656037ULL;
  for (size_t i = 0; i < used; i++) {
    *hash ^= (unsigned char)keys[i];
    *hash *= 1099511628211ULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
