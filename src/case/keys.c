/*
  The table of case-file keys: the one place that says which keys exist, their types, defaults,
  ranges and documentation, and where each is stored in FGCase. The parser accepts exactly these
  keys; --set, validation, the resolved YAML and the Markdown docs (FGCasePrintKeys) all read
  this table. See caseimpl.h for how to add a key.
*/
#include "caseimpl.h"
#include <stddef.h>
#include <string.h>

const char *const FGBCKindNames[]       = {"periodic", "wall", "lid", "slip", "inflow", "outflow", "FGBCKind", "FG_BC_", NULL};
const char *const FGProfileNames[]      = {"uniform", "parabolic", "exact", "FGProfile", "FG_PROFILE_", NULL};
const char *const FGPoissonTypeNames[]  = {"fftw", "ksp", "FGPoissonType", "FG_POISSON_", NULL};
const char *const FGInitialTypeNames[]  = {"rest", "uniform", "taylor_green", "abc", "kovasznay", "file", "FGInitialType", "FG_IC_", NULL};
static const char *const FGFaceNames[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};

#define FG_AT(f)   .offset = offsetof(FGCase, f)
#define FG_STR(f)  .offset = offsetof(FGCase, f), .size = sizeof(((FGCase *)0)->f)
#define FG_FACE(f) .offset = offsetof(FGBoundaryFace, f)
#define FG_GT(a)   .min = (a), .minb = FG_BOUND_OPEN
#define FG_GE(a)   .min = (a), .minb = FG_BOUND_CLOSED

/* clang-format off */
static const FGKeyDef FGCaseKeys[] = {
  {.path = "name", .type = FG_KEY_STRING, FG_STR(name), FG_GE(1), .compute = FGCaseComputeName_Internal,
   .defdoc = "the file name without `.yaml`/`.yml`", .doc = "Case name (default output directory, metadata of output files)"},
  {.path = "description", .type = FG_KEY_STRING, FG_STR(description), .def = "", .multiline = PETSC_TRUE,
   .doc = "Free text, kept in the resolved case"},

  {.path = "grid.dim", .type = FG_KEY_INT, FG_AT(grid.dim), FG_GE(2), .max = 3, .maxb = FG_BOUND_CLOSED,
   .defdoc = "the length of `grid.cells`", .doc = "Number of dimensions; every list below has this many entries (x, y[, z])"},
  {.path = "grid.cells", .type = FG_KEY_INT, .list = PETSC_TRUE, FG_AT(grid.cells), .required = PETSC_TRUE,
   FG_GE(2), .max = 1048576, .maxb = FG_BOUND_CLOSED, .doc = "Cells per direction"},
  {.path = "grid.lengths", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_AT(grid.lengths), .required = PETSC_TRUE, FG_GT(0),
   .doc = "Domain size per direction"},
  {.path = "grid.origin", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_AT(grid.origin), .def = "0", .defdoc = "all `0`",
   .doc = "Lower corner of the domain"},
  {.path = "grid.periodic", .type = FG_KEY_BOOL, .list = PETSC_TRUE, FG_AT(grid.periodic), .def = "false", .defdoc = "all `false`",
   .doc = "Periodic directions (both faces of a periodic direction are `periodic`)"},

  {.path = "flow.nu", .type = FG_KEY_REAL, FG_AT(flow.nu), FG_GT(0), .compute = FGCaseComputeNu_Internal, .excludes = "flow.re",
   .defdoc = "`u_ref*l_ref/re`", .doc = "Kinematic viscosity. Give `nu` or `re` (both only if they agree to 1e-12); a `--set` of one drops the other one from the file"},
  {.path = "flow.re", .type = FG_KEY_REAL, FG_AT(flow.re), FG_GT(0), .compute = FGCaseComputeRe_Internal, .check = FGCaseCheckRe_Internal,
   .excludes = "flow.nu", .defdoc = "`u_ref*l_ref/nu`", .doc = "Reynolds number `u_ref*l_ref/nu`"},
  {.path = "flow.u_ref", .type = FG_KEY_REAL, FG_AT(flow.u_ref), FG_GT(0), .def = "1", .doc = "Reference speed (for `re`)"},
  {.path = "flow.l_ref", .type = FG_KEY_REAL, FG_AT(flow.l_ref), FG_GT(0), .def = "1", .doc = "Reference length (for `re`)"},
  {.path = "flow.force", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_AT(flow.force), .def = "0", .defdoc = "all `0`",
   .doc = "Constant body force per unit mass (e.g. a pressure gradient driving a periodic channel)"},

  {.path = "time.dt", .type = FG_KEY_REAL, FG_AT(time.dt), .required = PETSC_TRUE, FG_GT(0), .doc = "Time step"},
  {.path = "time.steps", .type = FG_KEY_INT, FG_AT(time.steps), .required = PETSC_TRUE, FG_GE(0), .doc = "Number of time steps"},
  {.path = "time.cfl_max", .type = FG_KEY_REAL, FG_AT(time.cfl_max), FG_GT(0), .def = "1.5",
   .doc = "Blow-up guard: the run stops (exit 3) when the CFL number `dt*max(sum(abs(u_d)/h_d))` exceeds this (RK3 with central advection is stable up to sqrt(3))"},

  {.path = "initial.type", .type = FG_KEY_ENUM, .choices = FGInitialTypeNames, FG_AT(initial.type), .def = "rest", .check = FGCaseCheckInitialType_Internal,
   .doc = "Initial velocity: `rest`, `uniform`, `taylor_green` (2D), `abc` (3D), `kovasznay` (2D, steady, with `nu`), or `file` (a flowgrad fields file)"},
  {.path = "initial.velocity", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_AT(initial.velocity), .def = "0", .defdoc = "all `0`",
   .applies = FGCaseAppliesInitialVelocity_Internal, .doc = "`uniform` only: the velocity"},
  {.path = "initial.amplitude", .type = FG_KEY_REAL, FG_AT(initial.amplitude), .def = "1", .applies = FGCaseAppliesInitialAmplitude_Internal,
   .doc = "`taylor_green` and `abc` only: the velocity amplitude"},
  {.path = "initial.file", .type = FG_KEY_STRING, FG_STR(initial.file), FG_GE(1), .applies = FGCaseAppliesInitialFile_Internal,
   .defdoc = "required for `file`", .doc = "`file` only: the fields file (HDF5) holding u, v[, w]"},

  {.path = "boundary.<face>.type", .type = FG_KEY_ENUM, .choices = FGBCKindNames, FG_FACE(kind),
   .compute = FGCaseComputeFaceType_Internal, .check = FGCaseCheckFaceType_Internal,
   .defdoc = "`periodic` on a periodic axis, else `wall`",
   .doc = "Boundary condition of face `<face>` = `x_lo`, `x_hi`, `y_lo`, `y_hi`, `z_lo`, `z_hi` (z faces only in 3D)"},
  {.path = "boundary.<face>.velocity", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_FACE(velocity), .def = "0", .defdoc = "all `0`",
   .check = FGCaseCheckFaceVelocity_Internal, .applies = FGCaseAppliesFaceVelocity_Internal,
   .doc = "`lid` and `inflow` faces only: wall velocity of a lid (normal component 0) or inflow velocity"},
  {.path = "boundary.<face>.profile", .type = FG_KEY_ENUM, .choices = FGProfileNames, FG_FACE(profile), .def = "uniform",
   .applies = FGCaseAppliesFaceProfile_Internal, .check = FGCaseCheckFaceProfile_Internal,
   .doc = "`inflow` faces only: `uniform` or `parabolic` (peak = `velocity`) across the face, or `exact`: the boundary values of the analytic `initial.type` (taylor_green, abc, kovasznay; for manufactured-solution runs)"},
  {.path = "boundary.<face>.modulation_amplitude", .type = FG_KEY_REAL, FG_FACE(modulation_amplitude), .def = "0",
   .applies = FGCaseAppliesFaceModulation_Internal,
   .doc = "`inflow` faces (not `exact`): time modulation U(t) = U (1 + A sin(2 pi f t)) of the inflow velocity; A = this"},
  {.path = "boundary.<face>.modulation_frequency", .type = FG_KEY_REAL, FG_FACE(modulation_frequency), FG_GE(0), .def = "0",
   .applies = FGCaseAppliesFaceModulation_Internal, .doc = "`inflow` faces (not `exact`): f of the time modulation (1/time)"},

  {.path = "poisson.type", .type = FG_KEY_ENUM, .choices = FGPoissonTypeNames, FG_AT(poisson.type), .def = "fftw",
   .doc = "Pressure Poisson solver: `fftw` (direct, FFT slabs) or `ksp` (CG + multigrid)"},
  {.path = "poisson.rtol", .type = FG_KEY_REAL, FG_AT(poisson.rtol), FG_GT(0), .max = 1, .maxb = FG_BOUND_OPEN, .def = "1e-10",
   .doc = "`ksp`: relative residual tolerance"},
  {.path = "poisson.max_it", .type = FG_KEY_INT, FG_AT(poisson.max_it), FG_GE(1), .def = "500", .doc = "`ksp`: iteration limit"},

  {.path = "output.dir", .type = FG_KEY_STRING, FG_STR(output.dir), FG_GE(1), .compute = FGCaseComputeOutputDir_Internal,
   .defdoc = "`out/<name>`", .doc = "Output directory (created if missing; must be writable)"},
  {.path = "output.fields_every", .type = FG_KEY_INT, FG_AT(output.fields_every), FG_GE(0), .def = "0",
   .doc = "Write the fields every K steps (0: only at the end)"},
  {.path = "output.monitor_every", .type = FG_KEY_INT, FG_AT(output.monitor_every), FG_GE(1), .def = "10",
   .doc = "Print the monitor line every K steps"},
  {.path = "output.checkpoint_every", .type = FG_KEY_INT, FG_AT(output.checkpoint_every), FG_GE(0), .def = "0",
   .doc = "Write a checkpoint (`checkpoints/checkpoint_NNNNNN.h5`, for `run --resume`) every K steps; 0: only at the end of the run and when stopped by SIGUSR1/SIGTERM"},
  {.path = "output.checkpoint_keep", .type = FG_KEY_INT, FG_AT(output.checkpoint_keep), FG_GE(1), .def = "2",
   .doc = "Keep the newest K checkpoints; older ones are deleted once a newer one is complete"},
};

/* Number of entries of the key table (a <face> entry counts once), for the tests. */
PetscInt FGCaseKeyDefCount_Internal(void)
{
  return (PetscInt)(sizeof(FGCaseKeys) / sizeof(FGCaseKeys[0]));
}
/* clang-format on */

static PetscBool FGKeyIsFace_Private(const FGKeyDef *def)
{
  return (PetscBool)(strstr(def->path, "<face>") != NULL);
}

static PetscErrorCode FGCaseKeyAdd_Private(FGCaseCtx ctx, const FGKeyDef *def, PetscInt face)
{
  FGKeyRef *ref;

  PetscFunctionBeginUser;
  PetscCheck(ctx->nkeys < FG_CASE_MAX_KEYS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "too many case keys; raise FG_CASE_MAX_KEYS");
  ref         = &ctx->keys[ctx->nkeys++];
  ref->def    = def;
  ref->axis   = -1;
  ref->side   = -1;
  ref->offset = def->offset;
  if (face < 0) {
    PetscCheck(strlen(def->path) < sizeof(ref->path), PETSC_COMM_SELF, PETSC_ERR_PLIB, "key path too long: %s", def->path);
    PetscCall(PetscStrncpy(ref->path, def->path, sizeof(ref->path)));
  } else {
    const char *at = strstr(def->path, "<face>");
    int         n  = snprintf(ref->path, sizeof(ref->path), "%.*s%s%s", (int)(at - def->path), def->path, FGFaceNames[face], at + 6);
    PetscCheck(n > 0 && (size_t)n < sizeof(ref->path), PETSC_COMM_SELF, PETSC_ERR_PLIB, "key path too long: %s", def->path);
    ref->axis   = face / 2;
    ref->side   = face % 2;
    ref->offset = offsetof(FGCase, boundary) + (size_t)face * sizeof(FGBoundaryFace) + def->offset;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Expand the table into concrete keys: a run of <face> rows becomes, face by face, one key per
   row (boundary.x_lo.type, boundary.x_lo.velocity, ..., boundary.x_hi.type, ...). */
PetscErrorCode FGCaseKeysSetUp_Internal(FGCaseCtx ctx)
{
  const size_t n = sizeof(FGCaseKeys) / sizeof(FGCaseKeys[0]);

  PetscFunctionBeginUser;
  ctx->nkeys = 0;
  for (size_t i = 0; i < n;) {
    if (!FGKeyIsFace_Private(&FGCaseKeys[i])) {
      PetscCall(FGCaseKeyAdd_Private(ctx, &FGCaseKeys[i], -1));
      i++;
      continue;
    }
    size_t j = i;
    while (j < n && FGKeyIsFace_Private(&FGCaseKeys[j])) j++;
    for (PetscInt f = 0; f < 6; f++)
      for (size_t r = i; r < j; r++) PetscCall(FGCaseKeyAdd_Private(ctx, &FGCaseKeys[r], f));
    i = j;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The concrete key with this path, or -1. */
PetscErrorCode FGCaseKeyFind_Internal(FGCaseCtx ctx, const char *path, PetscInt *k)
{
  PetscFunctionBeginUser;
  *k = -1;
  for (PetscInt i = 0; i < ctx->nkeys; i++)
    if (!strcmp(ctx->keys[i].path, path)) {
      *k = i;
      break;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A section is a proper prefix (ending at a dot) of a key's path. */
PetscErrorCode FGCaseIsSection_Internal(FGCaseCtx ctx, const char *path, PetscBool *is)
{
  size_t len = strlen(path);

  PetscFunctionBeginUser;
  *is = PETSC_FALSE;
  for (PetscInt i = 0; i < ctx->nkeys && len; i++)
    if (!strncmp(ctx->keys[i].path, path, len) && ctx->keys[i].path[len] == '.') {
      *is = PETSC_TRUE;
      break;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Optimal string alignment distance (Levenshtein with transpositions); strings cut at 127. */
PetscInt FGCaseEditDistance_Internal(const char *a, const char *b)
{
  PetscInt d[128][128];
  PetscInt la = (PetscInt)PetscMin(strlen(a), 127), lb = (PetscInt)PetscMin(strlen(b), 127);

  for (PetscInt i = 0; i <= la; i++) d[i][0] = i;
  for (PetscInt j = 0; j <= lb; j++) d[0][j] = j;
  for (PetscInt i = 1; i <= la; i++)
    for (PetscInt j = 1; j <= lb; j++) {
      PetscInt cost = a[i - 1] == b[j - 1] ? 0 : 1;
      PetscInt v    = PetscMin(PetscMin(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) v = PetscMin(v, d[i - 2][j - 2] + 1);
      d[i][j] = v;
    }
  return d[la][lb];
}

static const char *FGLeaf_Private(const char *path)
{
  const char *dot = strrchr(path, '.');
  return dot ? dot + 1 : path;
}

/* The hint after "unknown key": " (did you mean X?)", or the keys of the enclosing section. */
PetscErrorCode FGCaseSuggest_Internal(FGCaseCtx ctx, const char *path, char *hint, size_t len)
{
  char     best[FG_CASE_PATH_LEN] = "", leafmatch[FG_CASE_PATH_LEN] = "";
  PetscInt dbest = PETSC_MAX_INT, plen = (PetscInt)strlen(path);

  PetscFunctionBeginUser;
  hint[0] = '\0';
  /* candidates: every key and every section (each prefix of a key that ends before a dot) */
  for (PetscInt i = 0; i < ctx->nkeys; i++) {
    const char *kp = ctx->keys[i].path;
    for (const char *end = strchr(kp, '.');; end = strchr(end + 1, '.')) {
      char     cand[FG_CASE_PATH_LEN];
      PetscInt d;
      PetscCall(PetscStrncpy(cand, kp, end ? (size_t)(end - kp) + 1 : sizeof(cand)));
      d = FGCaseEditDistance_Internal(path, cand);
      if (d < dbest) {
        dbest = d;
        PetscCall(PetscStrncpy(best, cand, sizeof(best)));
      }
      if (!leafmatch[0] && strcmp(cand, path) && !strcmp(FGLeaf_Private(cand), FGLeaf_Private(path))) PetscCall(PetscStrncpy(leafmatch, cand, sizeof(leafmatch)));
      if (!end) break;
    }
  }
  if (best[0] && dbest <= 1) snprintf(hint, len, " (did you mean %s?)", best);
  else if (leafmatch[0]) snprintf(hint, len, " (did you mean %s?)", leafmatch); /* the right name in the wrong section */
  else if (best[0] && dbest <= PetscMax(2, plen / 4)) snprintf(hint, len, " (did you mean %s?)", best);
  else {
    /* list what the enclosing section holds */
    const char *dot    = strrchr(path, '.');
    size_t      parent = dot ? (size_t)(dot - path) + 1 : 0; /* length of "grid." */
    size_t      used;
    char        seen[FG_CASE_MAX_KEYS][FG_CASE_PATH_LEN];
    PetscInt    nseen = 0;

    if (parent) snprintf(hint, len, " (keys of %.*s: ", (int)parent - 1, path);
    else snprintf(hint, len, " (top-level keys: ");
    for (PetscInt i = 0; i < ctx->nkeys; i++) {
      const char *kp = ctx->keys[i].path, *end;
      char        child[FG_CASE_PATH_LEN];
      PetscBool   dup = PETSC_FALSE;
      if (parent && strncmp(kp, path, parent)) continue;
      end = strchr(kp + parent, '.');
      PetscCall(PetscStrncpy(child, kp + parent, end ? (size_t)(end - (kp + parent)) + 1 : sizeof(child)));
      for (PetscInt s = 0; s < nseen && !dup; s++) dup = (PetscBool)!strcmp(seen[s], child);
      if (dup) continue;
      PetscCall(PetscStrncpy(seen[nseen++], child, FG_CASE_PATH_LEN));
      used = strlen(hint);
      snprintf(hint + used, len - used, "%s%s", nseen > 1 ? ", " : "", child);
    }
    used = strlen(hint);
    if (nseen) snprintf(hint + used, len - used, ")");
    else hint[0] = '\0';
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "FILE:LINE: KEY", "--set ARG", or "FILE: KEY" for a key that was not given. */
PetscErrorCode FGCaseWhere_Internal(FGCaseCtx ctx, PetscInt k, char *buf, size_t len)
{
  const FGKeyValue *v = &ctx->vals[k];

  PetscFunctionBeginUser;
  if (v->set && v->setarg) snprintf(buf, len, "--set %s", v->setarg);
  else if (v->set) snprintf(buf, len, "%s:%d: %s", ctx->file, v->line, ctx->keys[k].path);
  else snprintf(buf, len, "%s: %s", ctx->file, ctx->keys[k].path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The line of a section in the file (0: not in the file). */
PetscErrorCode FGCaseSectionLine_Internal(FGCaseCtx ctx, const char *path, int *line)
{
  PetscFunctionBeginUser;
  *line = 0;
  for (PetscInt s = 0; s < ctx->nsec; s++)
    if (!strcmp(ctx->sec[s].path, path)) {
      *line = ctx->sec[s].line;
      break;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt FGCaseChoicesCount_Internal(const FGKeyDef *def)
{
  PetscInt n = 0;
  if (!def->choices) return 0;
  while (def->choices[n]) n++;
  return n - 2; /* PETSc-style: the names, then the type name and the prefix */
}

/* "a, b, c" (quote = "`" for Markdown). */
PetscErrorCode FGCaseChoicesString_Internal(const FGKeyDef *def, const char *quote, char *buf, size_t len)
{
  PetscInt n = FGCaseChoicesCount_Internal(def);

  PetscFunctionBeginUser;
  buf[0] = '\0';
  for (PetscInt i = 0; i < n; i++) {
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s%s%s", i ? ", " : "", quote, def->choices[i], quote);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void FGBoundString_Private(const FGKeyDef *def, PetscReal v, char *buf, size_t len)
{
  if (def->type == FG_KEY_INT) snprintf(buf, len, "%lld", (long long)v);
  else snprintf(buf, len, "%g", (double)v);
}

/* The allowed range as text: "[2, 1048576]", "(0, 1)", "> 0", ">= 1", "non-empty", or "". */
PetscErrorCode FGCaseRangeString_Internal(const FGKeyDef *def, char *buf, size_t len)
{
  char lo[64], hi[64];

  PetscFunctionBeginUser;
  buf[0] = '\0';
  if (def->type == FG_KEY_STRING) {
    if (def->minb != FG_BOUND_NONE) snprintf(buf, len, "non-empty");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  FGBoundString_Private(def, def->min, lo, sizeof(lo));
  FGBoundString_Private(def, def->max, hi, sizeof(hi));
  if (def->minb && def->maxb) snprintf(buf, len, "%s%s, %s%s", def->minb == FG_BOUND_OPEN ? "(" : "[", lo, hi, def->maxb == FG_BOUND_OPEN ? ")" : "]");
  else if (def->minb) snprintf(buf, len, "%s %s", def->minb == FG_BOUND_OPEN ? ">" : ">=", lo);
  else if (def->maxb) snprintf(buf, len, "%s %s", def->maxb == FG_BOUND_OPEN ? "<" : "<=", hi);
  PetscFunctionReturn(PETSC_SUCCESS);
}

const char *FGCaseTypeName_Internal(const FGKeyDef *def)
{
  static const char *const scalar[] = {"int", "real", "bool", "string", "enum"};
  static const char *const list[]   = {"int list", "real list", "bool list", "string list", "enum list"};
  return def->list ? list[def->type] : scalar[def->type];
}

/* Print s with the characters that would break a Markdown table cell escaped. */
static PetscErrorCode FGPrintCell_Private(FILE *fp, const char *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " "));
  for (const char *p = s; *p; p++) {
    if (*p == '|') PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "\\|"));
    else PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "%c", *p));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " |"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGCasePrintKeys - print every case-file key as a Markdown table (the README block).

  Not collective: prints on rank 0 of PETSC_COMM_WORLD only.

  Input Parameter:
. fp - the stream (stdout for `flowgrad info --keys`)

  Notes:
  One row per key of the table in src/case/keys.c: key, type, default, allowed range, description.
  The six boundary faces share the rows `boundary.<face>.*`. The README block between the
  `case-keys` markers is this output; the test case_keys_documented compares them.

.seealso: FGCaseLoad()
@*/
PetscErrorCode FGCasePrintKeys(FILE *fp)
{
  const size_t n = sizeof(FGCaseKeys) / sizeof(FGCaseKeys[0]);

  PetscFunctionBeginUser;
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "Every key a case file may hold (generated from `src/case/keys.c`). Lists have one entry per direction\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "(x, y[, z]: `grid.dim` entries); ranges apply to each entry. Any key can be overridden from the\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "command line with `--set key=value` (e.g. `--set flow.re=200`, `--set grid.cells=[128,128]`).\n\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "| key | type | default | range | description |\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "|---|---|---|---|---|\n"));
  for (size_t i = 0; i < n; i++) {
    const FGKeyDef *def = &FGCaseKeys[i];
    char            buf[512];

    snprintf(buf, sizeof(buf), "`%s`", def->path);
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "|"));
    PetscCall(FGPrintCell_Private(fp, buf));
    PetscCall(FGPrintCell_Private(fp, FGCaseTypeName_Internal(def)));
    if (def->required) snprintf(buf, sizeof(buf), "**required**");
    else if (def->defdoc) snprintf(buf, sizeof(buf), "%s", def->defdoc);
    else if (!def->def) snprintf(buf, sizeof(buf), "none");
    else if (def->type == FG_KEY_STRING) snprintf(buf, sizeof(buf), "`\"%s\"`", def->def);
    else snprintf(buf, sizeof(buf), "`%s`", def->def);
    PetscCall(FGPrintCell_Private(fp, buf));
    if (def->type == FG_KEY_ENUM) PetscCall(FGCaseChoicesString_Internal(def, "`", buf, sizeof(buf)));
    else PetscCall(FGCaseRangeString_Internal(def, buf, sizeof(buf)));
    PetscCall(FGPrintCell_Private(fp, buf));
    PetscCall(FGPrintCell_Private(fp, def->doc));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
