/*
  Validation of a parsed case, in this order (each step may rely on the ones before):

    1. required keys are present (those with an `applies` callback: in step 6);
    2. the dimension: grid.dim, or the length of grid.cells;
    3. no key or section of a face that does not exist (z faces in 2D);
    4. every list has grid.dim entries;
    5. defaults: first the literal ones of the table, then the computed ones (in table order:
       name before output.dir; grid.periodic before the face types; u_ref, l_ref before nu, re,
       before a body's eta and ref_*; a body's ref_length before its ref_area); a computed
       default runs whether its key applies or not (step 6 says), so it looks for itself (an
       objective's body only for the force kinds);
    6. a key given where it does not apply is an error (a wall's velocity, a naca body's radius),
       and one missing where it applies and is required (a circle's radius); lists that go in
       pairs have the same length; then the cross-checks.

  Types and ranges were checked by the parser. Every error names the file and line (or the --set
  argument) of the key at fault.

  This file holds the steps and the callbacks of the key table's rows (keys.c) for the sections
  of the case as a whole (name, output, flow, boundary faces, initial, adjoint.memory). Those of
  the families are in validate_body.c (body.<name>, probe.<name>) and validate_objective.c
  (objective.<name>, design.parameters); those of `flowgrad optimize` in validate_optim.c.
*/
#include "caseimpl.h"
#include <fg/grid.h>
#include <fg/iofile.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

const char FGCaseAxis_Internal[] = "xyz";

/* Whether the key exists in this case: face keys only up to the dimension. */
PetscBool FGCaseKeyExists_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  return (PetscBool)(ref->axis < ctx->dim);
}

PetscInt FGCaseFind_Internal(FGCaseCtx ctx, const char *path)
{
  for (PetscInt i = 0; i < ctx->nkeys; i++)
    if (!strcmp(ctx->keys[i].path, path)) return i;
  return -1;
}

/* The key `leaf` of the same face as ref (boundary.x_lo.velocity -> boundary.x_lo.type). */
PetscInt FGCaseSibling_Internal(FGCaseCtx ctx, const FGKeyRef *ref, const char *leaf)
{
  char        path[FG_CASE_PATH_LEN];
  const char *dot = strrchr(ref->path, '.');
  snprintf(path, sizeof(path), "%.*s.%s", (int)(dot - ref->path), ref->path, leaf);
  return FGCaseFind_Internal(ctx, path);
}

static FGBoundaryFace *FGCaseFace_Private(FGCaseCtx ctx, const FGKeyRef *ref)
{
  return &ctx->c->boundary[ref->axis][ref->side];
}

PetscErrorCode FGCaseComputeName_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const char *base = strrchr(ctx->file, '/');
  size_t      len;

  PetscFunctionBeginUser;
  base = base ? base + 1 : ctx->file;
  len  = strlen(base);
  if (len > 5 && !strcmp(base + len - 5, ".yaml")) len -= 5;
  else if (len > 4 && !strcmp(base + len - 4, ".yml")) len -= 4;
  if (!len) base = "case", len = 4;
  PetscCheck(len < sizeof(ctx->c->name), ctx->comm, FG_ERR_INPUT, "%s: name: the file name is too long to be the case name (at most %zu bytes); set name", ctx->file, sizeof(ctx->c->name) - 1);
  PetscCall(PetscStrncpy(ctx->c->name, base, len + 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGCaseComputeOutputDir_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const char *nm = ctx->c->name;
  int         n  = snprintf(ctx->c->output.dir, sizeof(ctx->c->output.dir), "out/%s", nm);

  PetscFunctionBeginUser;
  /* out/<name> stays in out/: the name is one directory name */
  PetscCheck(!strchr(nm, '/') && strcmp(nm, ".") && strcmp(nm, ".."), ctx->comm, FG_ERR_INPUT, "%s: name: '%s' is the output directory out/<name> when output.dir is not set, and it must be a single directory name (no '/', not . or ..); set output.dir, or another name", ctx->file, nm);
  PetscCheck(n > 0 && (size_t)n < sizeof(ctx->c->output.dir), ctx->comm, FG_ERR_INPUT, "%s: output.dir: out/<name> is too long; set output.dir", ctx->file);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGCaseComputeFaceType_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  PetscFunctionBeginUser;
  FGCaseFace_Private(ctx, ref)->kind = ctx->c->grid.periodic[ref->axis] ? FG_BC_PERIODIC : FG_BC_WALL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cell widths length/cells (of a uniform direction; a stretched one checks its own) are far from
   under- and overflow: the operators take 1/h^2 and h^3. */
PetscErrorCode FGCaseCheckLengths_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGCase *c = ctx->c;
  char          where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  for (PetscInt d = 0; d < c->grid.dim; d++) {
    const PetscReal h = c->grid.cells[d] > 0 ? c->grid.lengths[d] / (PetscReal)c->grid.cells[d] : c->grid.lengths[d];
    PetscCheck(h >= 1e-100 && h <= 1e100, ctx->comm, FG_ERR_INPUT, "%s: %g over %" PetscInt_FMT " cells is a cell width of %g in %c, outside [1e-100, 1e100] (choose the units so that lengths are of order 1)", where, (double)c->grid.lengths[d], c->grid.cells[d], (double)h, FGCaseAxis_Internal[d]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* nu from re; when neither is given, the missing-key error. */
PetscErrorCode FGCaseComputeNu_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGCase  *c  = ctx->c;
  PetscInt kr = FGCaseFind_Internal(ctx, "flow.re");

  PetscFunctionBeginUser;
  if (!ctx->vals[kr].set) {
    int line;
    PetscCall(FGCaseSectionLine_Internal(ctx, "flow", &line));
    PetscCheck(!line, ctx->comm, FG_ERR_INPUT, "%s:%d: flow.nu: missing required key: give flow.nu or flow.re (section flow has neither)", ctx->file, line);
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: flow.nu: missing required key: give flow.nu or flow.re (the file has no section flow)", ctx->file);
  }
  c->flow.nu = c->flow.u_ref * c->flow.l_ref / c->flow.re;
  if (!(c->flow.nu >= 1e-100 && c->flow.nu <= 1e100)) { /* an underflow or overflow of u_ref*l_ref/re */
    char where[FG_CASE_WHERE_LEN];
    PetscCall(FGCaseWhere_Internal(ctx, kr, where, sizeof(where)));
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: re = %g with u_ref = %g and l_ref = %g gives nu = %g, outside [1e-100, 1e100]", where, (double)c->flow.re, (double)c->flow.u_ref, (double)c->flow.l_ref, (double)c->flow.nu);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGCaseComputeRe_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGCase *c = ctx->c;

  PetscFunctionBeginUser;
  c->flow.re = c->flow.u_ref * c->flow.l_ref / c->flow.nu;
  if (!(c->flow.re >= 1e-100 && c->flow.re <= 1e100)) {
    char where[FG_CASE_WHERE_LEN];
    PetscCall(FGCaseWhere_Internal(ctx, FGCaseFind_Internal(ctx, "flow.nu"), where, sizeof(where)));
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: nu = %g with u_ref = %g and l_ref = %g gives re = %g, outside [1e-100, 1e100]", where, (double)c->flow.nu, (double)c->flow.u_ref, (double)c->flow.l_ref, (double)c->flow.re);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The step that time.cfl gives: dt = cfl / (u_ref sum_d 1/h_min,d), h_min,d the smallest cell
   width along d (a grid.stretch that makes no grid is refused by its own check later; the
   uniform width stands in for it here). */
static PetscErrorCode FGCaseDtFromCfl_Private(FGCaseCtx ctx, PetscReal *dt)
{
  FGCase   *c    = ctx->c;
  PetscReal rate = 0;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < c->grid.dim; d++) {
    PetscInt   n;
    PetscReal *faces, h;
    char       msg[256];
    PetscCall(FGCaseGridFaces(ctx->comm, c, d, &n, &faces, msg, sizeof(msg)));
    h = c->grid.lengths[d] / (PetscReal)c->grid.cells[d];
    if (faces) {
      h = PETSC_MAX_REAL;
      for (PetscInt i = 0; i < n; i++) h = PetscMin(h, faces[i + 1] - faces[i]);
      PetscCall(PetscFree(faces));
    }
    rate += c->flow.u_ref / h;
  }
  *dt = c->time.cfl / rate;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* time.dt not given: from time.cfl. */
PetscErrorCode FGCaseComputeDt_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  PetscInt kc = FGCaseFind_Internal(ctx, "time.cfl");

  PetscFunctionBeginUser;
  if (!ctx->vals[kc].set) {
    int line;
    PetscCall(FGCaseSectionLine_Internal(ctx, "time", &line));
    PetscCheck(!line, ctx->comm, FG_ERR_INPUT, "%s:%d: time.dt: missing required key: give time.dt or time.cfl (section time has neither)", ctx->file, line);
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: time.dt: missing required key: give time.dt or time.cfl (the file has no section time)", ctx->file);
  }
  PetscCall(FGCaseDtFromCfl_Private(ctx, &ctx->c->time.dt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Both time.dt and time.cfl given (a resolved case writes both): they must agree. */
PetscErrorCode FGCaseCheckCfl_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  PetscInt  kd = FGCaseFind_Internal(ctx, "time.dt"), kc = FGCaseFind_Internal(ctx, "time.cfl");
  PetscReal dt;
  char      wd[FG_CASE_WHERE_LEN], wc[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (!ctx->vals[kd].set || !ctx->vals[kc].set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseDtFromCfl_Private(ctx, &dt));
  if (PetscAbsReal(dt - ctx->c->time.dt) <= 1e-12 * dt) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, kc, wc, sizeof(wc)));
  PetscCall(FGCaseWhere_Internal(ctx, kd, wd, sizeof(wd)));
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %g gives time.dt = %.17g, but %s is %.17g: give time.dt or time.cfl (both only if they agree to 1e-12)", wc, (double)ctx->c->time.cfl, (double)dt, wd, (double)ctx->c->time.dt);
}

/* Both nu and re given: they must agree. */
PetscErrorCode FGCaseCheckRe_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGCase   *c  = ctx->c;
  PetscInt  kn = FGCaseFind_Internal(ctx, "flow.nu"), kr = FGCaseFind_Internal(ctx, "flow.re");
  PetscReal nu = c->flow.u_ref * c->flow.l_ref / c->flow.re;
  char      where[FG_CASE_WHERE_LEN], wnu[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (!ctx->vals[kn].set || !ctx->vals[kr].set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, kr, where, sizeof(where)));
  PetscCall(FGCaseWhere_Internal(ctx, kn, wnu, sizeof(wnu)));
  if (PetscAbsReal(nu - c->flow.nu) > 1e-12 * PetscMax(PetscAbsReal(nu), PetscAbsReal(c->flow.nu))) {
    char sre[32], snu[32], sfrom[32];
    PetscCall(FGCaseFormatReal_Internal(c->flow.re, sre, sizeof(sre)));
    PetscCall(FGCaseFormatReal_Internal(c->flow.nu, snu, sizeof(snu)));
    PetscCall(FGCaseFormatReal_Internal(nu, sfrom, sizeof(sfrom)));
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: re = %s disagrees with nu = %s (from %s): u_ref*l_ref/re = %s; give only one of flow.nu and flow.re", where, sre, snu, wnu, sfrom);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A periodic axis has periodic faces; a periodic face needs a periodic axis. */
PetscErrorCode FGCaseCheckFaceType_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGBCKind kind = FGCaseFace_Private(ctx, ref)->kind;
  char     where[FG_CASE_WHERE_LEN];
  char     ax = FGCaseAxis_Internal[ref->axis];

  PetscFunctionBeginUser;
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  if (ctx->c->grid.periodic[ref->axis]) PetscCheck(kind == FG_BC_PERIODIC, ctx->comm, FG_ERR_INPUT, "%s: %s, but %c is periodic (grid.periodic), so both %c faces must be periodic (or omitted)", where, FGBCKindNames[kind], ax, ax);
  else PetscCheck(kind != FG_BC_PERIODIC, ctx->comm, FG_ERR_INPUT, "%s: periodic, but %c is not a periodic direction (make it periodic in grid.periodic, or use wall, lid, slip, inflow or outflow)", where, ax);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A lid moves in its own plane. */
PetscErrorCode FGCaseCheckFaceVelocity_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGBoundaryFace *f = FGCaseFace_Private(ctx, ref);
  char            where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (f->kind != FG_BC_LID) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  if (f->velocity[ref->axis] != 0) {
    char v[32];
    PetscCall(FGCaseFormatReal_Internal(f->velocity[ref->axis], v, sizeof(v)));
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: a lid moves in its own plane: the normal (%c) component must be 0, got %s", where, FGCaseAxis_Internal[ref->axis], v);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool FGCaseFaceIs_Private(FGCaseCtx ctx, const FGKeyRef *ref, PetscBool lid, PetscBool inflow, const char *what, char *why, size_t len)
{
  FGBCKind kind = FGCaseFace_Private(ctx, ref)->kind;
  PetscInt kt   = FGCaseSibling_Internal(ctx, ref, "type");

  if ((lid && kind == FG_BC_LID) || (inflow && kind == FG_BC_INFLOW)) return PETSC_TRUE;
  snprintf(why, len, "only %s; this face is %s%s", what, FGBCKindNames[kind], kt >= 0 && !ctx->vals[kt].set ? " (the default: set its type)" : "");
  return PETSC_FALSE;
}

PetscBool FGCaseAppliesFaceVelocity_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  if (FGCaseFace_Private(ctx, ref)->kind == FG_BC_INFLOW && FGCaseFace_Private(ctx, ref)->profile == FG_PROFILE_EXACT) {
    snprintf(why, len, "an inflow face with profile exact takes its velocity from initial.type");
    return PETSC_FALSE;
  }
  return FGCaseFaceIs_Private(ctx, ref, PETSC_TRUE, PETSC_TRUE, "lid and inflow faces have a velocity", why, len);
}

PetscBool FGCaseAppliesFaceProfile_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseFaceIs_Private(ctx, ref, PETSC_FALSE, PETSC_TRUE, "inflow faces have a profile", why, len);
}

PetscBool FGCaseAppliesFaceModulation_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  if (FGCaseFace_Private(ctx, ref)->kind == FG_BC_INFLOW && FGCaseFace_Private(ctx, ref)->profile == FG_PROFILE_EXACT) {
    snprintf(why, len, "an inflow face with profile exact follows initial.type in time");
    return PETSC_FALSE;
  }
  return FGCaseFaceIs_Private(ctx, ref, PETSC_FALSE, PETSC_TRUE, "inflow faces have a time modulation", why, len);
}

/* profile exact: the face takes its values from an analytic initial field. */
PetscErrorCode FGCaseCheckFaceProfile_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGInitialType type = ctx->c->initial.type;
  char          where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (FGCaseFace_Private(ctx, ref)->profile != FG_PROFILE_EXACT) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCheck(type == FG_IC_TAYLOR_GREEN || type == FG_IC_ABC || type == FG_IC_KOVASZNAY, ctx->comm, FG_ERR_INPUT, "%s: exact takes the boundary values of an analytic initial field (taylor_green, abc, kovasznay), and initial.type is %s", where, FGInitialTypeNames[type]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* initial.type: the analytic fields exist in one dimension only; `file` needs initial.file. */
PetscErrorCode FGCaseCheckInitialType_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGInitialType type = ctx->c->initial.type;
  PetscInt      kf   = FGCaseFind_Internal(ctx, "initial.file");
  char          where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCheck(type != FG_IC_TAYLOR_GREEN || ctx->dim == 2, ctx->comm, FG_ERR_INPUT, "%s: taylor_green is a 2D initial condition, and this case is %" PetscInt_FMT "D", where, ctx->dim);
  PetscCheck(type != FG_IC_ABC || ctx->dim == 3, ctx->comm, FG_ERR_INPUT, "%s: abc is a 3D initial condition, and this case is %" PetscInt_FMT "D", where, ctx->dim);
  PetscCheck(type != FG_IC_KOVASZNAY || ctx->dim == 2, ctx->comm, FG_ERR_INPUT, "%s: kovasznay is a 2D initial condition, and this case is %" PetscInt_FMT "D", where, ctx->dim);
  PetscCheck(type != FG_IC_FILE || (kf >= 0 && ctx->vals[kf].set), ctx->comm, FG_ERR_INPUT, "%s: file, but initial.file is missing (required for type file)", where);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool FGCaseInitialIs_Private(FGCaseCtx ctx, PetscBool uniform, PetscBool analytic, PetscBool file, const char *what, char *why, size_t len)
{
  FGInitialType type = ctx->c->initial.type;

  if ((uniform && type == FG_IC_UNIFORM) || (analytic && (type == FG_IC_TAYLOR_GREEN || type == FG_IC_ABC)) || (file && type == FG_IC_FILE)) return PETSC_TRUE;
  snprintf(why, len, "only %s; initial.type is %s", what, FGInitialTypeNames[type]);
  return PETSC_FALSE;
}

PetscBool FGCaseAppliesInitialVelocity_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseInitialIs_Private(ctx, PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, "a uniform initial condition has a velocity", why, len);
}

PetscBool FGCaseAppliesInitialAmplitude_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseInitialIs_Private(ctx, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE, "taylor_green and abc have an amplitude", why, len);
}

PetscBool FGCaseAppliesInitialFile_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseInitialIs_Private(ctx, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, "initial.type file reads a file", why, len);
}

/* Step 1: required keys. */
static PetscErrorCode FGCaseCheckRequired_Private(FGCaseCtx ctx)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < ctx->nkeys; k++) {
    const FGKeyRef *ref = &ctx->keys[k];
    const char     *dot = strrchr(ref->path, '.');
    char            sec[FG_CASE_PATH_LEN] = "";
    int             line                  = 0;

    if (!ref->def->required || ref->def->applies || ctx->vals[k].set || !FGCaseKeyExists_Internal(ctx, ref)) continue;
    if (dot) {
      PetscCall(PetscStrncpy(sec, ref->path, (size_t)(dot - ref->path) + 1));
      PetscCall(FGCaseSectionLine_Internal(ctx, sec, &line));
    }
    PetscCheck(!line, ctx->comm, FG_ERR_INPUT, "%s:%d: %s: missing required key (section %s has no %s)", ctx->file, line, ref->path, sec, dot + 1);
    PetscCheck(!dot, ctx->comm, FG_ERR_INPUT, "%s: %s: missing required key (the file has no section %s)", ctx->file, ref->path, sec);
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %s: missing required key", ctx->file, ref->path);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Steps 2-4: the dimension, keys that do not exist in it, list lengths. */
static PetscErrorCode FGCaseCheckShape_Private(FGCaseCtx ctx)
{
  FGCase  *c     = ctx->c;
  PetscInt kdim  = FGCaseFind_Internal(ctx, "grid.dim");
  PetscInt kcell = FGCaseFind_Internal(ctx, "grid.cells");
  char     where[FG_CASE_WHERE_LEN], wdim[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  PetscCheck(kdim >= 0 && kcell >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "key table lacks grid.dim or grid.cells");
  if (!ctx->vals[kdim].set) {
    PetscCall(FGCaseWhere_Internal(ctx, kcell, where, sizeof(where)));
    PetscCheck(ctx->vals[kcell].n >= 2, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " entry, but a case has 2 or 3 dimensions (one entry per direction)", where, ctx->vals[kcell].n);
    c->grid.dim = ctx->vals[kcell].n;
  }
  ctx->dim = c->grid.dim;
  PetscCall(FGCaseWhere_Internal(ctx, kdim, wdim, sizeof(wdim)));

  for (PetscInt k = 0; k < ctx->nkeys; k++) {
    const FGKeyRef *ref = &ctx->keys[k];
    if (!ctx->vals[k].set || FGCaseKeyExists_Internal(ctx, ref)) continue;
    PetscCall(FGCaseWhere_Internal(ctx, k, where, sizeof(where)));
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %c %s only in 3D cases, and this case is %" PetscInt_FMT "D", where, FGCaseAxis_Internal[ref->axis], ref->side >= 0 ? "faces exist" : "exists", ctx->dim);
  }
  /* a section all of whose keys do not exist (`z_lo: {}` in 2D; `body: {}` has no keys and is fine) */
  for (PetscInt s = 0; s < ctx->nsec; s++) {
    size_t    len    = strlen(ctx->sec[s].path);
    PetscBool exists = PETSC_FALSE, any = PETSC_FALSE;
    for (PetscInt k = 0; k < ctx->nkeys && !exists; k++)
      if (!strncmp(ctx->keys[k].path, ctx->sec[s].path, len) && ctx->keys[k].path[len] == '.') {
        any    = PETSC_TRUE;
        exists = FGCaseKeyExists_Internal(ctx, &ctx->keys[k]);
      }
    PetscCheck(exists || !any, ctx->comm, FG_ERR_INPUT, "%s:%d: %s: this %s exists only in 3D cases, and this case is %" PetscInt_FMT "D", ctx->file, ctx->sec[s].line, ctx->sec[s].path, strncmp(ctx->sec[s].path, "grid.", 5) ? "face" : "direction", ctx->dim);
  }

  for (PetscInt k = 0; k < ctx->nkeys; k++) {
    const FGKeyRef *ref = &ctx->keys[k];
    if (!ref->def->list || !ctx->vals[k].set || !FGCaseKeyExists_Internal(ctx, ref) || ctx->vals[k].n == ctx->dim) continue;
    PetscCall(FGCaseWhere_Internal(ctx, k, where, sizeof(where)));
    if (ctx->vals[kdim].set) SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " %s, but grid.dim is %" PetscInt_FMT " (from %s; one entry per direction)", where, ctx->vals[k].n, ctx->vals[k].n == 1 ? "entry" : "entries", ctx->dim, wdim);
    PetscCall(FGCaseWhere_Internal(ctx, kcell, wdim, sizeof(wdim)));
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " %s, but grid.cells has %" PetscInt_FMT " (from %s; one entry per direction)", where, ctx->vals[k].n, ctx->vals[k].n == 1 ? "entry" : "entries", ctx->dim, wdim);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Step 5: defaults. */
static PetscErrorCode FGCaseDefaults_Private(FGCaseCtx ctx)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < ctx->nkeys; k++) {
    const FGKeyRef *ref = &ctx->keys[k];
    const FGKeyDef *def = ref->def;
    char            where[FG_CASE_WHERE_LEN];
    PetscInt        n = def->list ? ctx->dim : 1;

    if (ctx->vals[k].set || !def->def || !FGCaseKeyExists_Internal(ctx, ref)) continue;
    if (def->maxlen) { /* a variable-length list: empty; its count is zero unless its sibling was given (then their lengths differ: step 6) */
      PetscCheck(!strcmp(def->def, "[]"), PETSC_COMM_SELF, PETSC_ERR_PLIB, "key table: %s: the default of a variable-length list is []", def->path);
      continue;
    }
    snprintf(where, sizeof(where), "%s: %s (default)", ctx->file, ref->path);
    for (PetscInt i = 0; i < n; i++) PetscCall(FGCaseScalar_Internal(ctx, ref, where, def->def, strlen(def->def), (PetscBool)(def->type != FG_KEY_STRING), (char *)ctx->c + ref->offset + (size_t)i * FGCaseElementSize_Internal(def)));
  }
  for (PetscInt k = 0; k < ctx->nkeys; k++) {
    const FGKeyRef *ref = &ctx->keys[k];
    if (ctx->vals[k].set || !ref->def->compute || !FGCaseKeyExists_Internal(ctx, ref)) continue;
    PetscCall(ref->def->compute(ctx, ref));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Step 6: keys given where they do not apply or missing where they are required, list pairs,
   then the cross-checks. */
static PetscErrorCode FGCaseCrossCheck_Private(FGCaseCtx ctx)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < ctx->nkeys; k++) {
    const FGKeyRef *ref = &ctx->keys[k];
    char            why[512] = "", where[FG_CASE_WHERE_LEN];
    PetscBool       applies;

    if (!ref->def->applies || !FGCaseKeyExists_Internal(ctx, ref) || (!ctx->vals[k].set && !ref->def->required)) continue;
    applies = ref->def->applies(ctx, ref, why, sizeof(why));
    if (!ctx->vals[k].set && applies) {
      const char *dot = strrchr(ref->path, '.');
      char        sec[FG_CASE_PATH_LEN];
      int         line;
      PetscCheck(dot, PETSC_COMM_SELF, PETSC_ERR_PLIB, "key table: %s: a required key with an applies callback is in a section", ref->path);
      PetscCall(PetscStrncpy(sec, ref->path, (size_t)(dot - ref->path) + 1));
      PetscCall(FGCaseSectionLine_Internal(ctx, sec, &line));
      SETERRQ(ctx->comm, FG_ERR_INPUT, "%s:%d: %s: missing required key (section %s has no %s%s%s)", ctx->file, line, ref->path, sec, dot + 1, why[0] ? "; " : "", why);
    }
    if (ctx->vals[k].set && !applies) {
      PetscCall(FGCaseWhere_Internal(ctx, k, where, sizeof(where)));
      SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %s", where, why);
    }
  }
  /* lists that go in pairs (fourier_cos, fourier_sin) have as many entries (an absent one: none) */
  for (PetscInt k = 0; k < ctx->nkeys; k++) {
    const FGKeyRef *ref = &ctx->keys[k];
    PetscInt        ks, n, ns, kw, ko;
    char            where[FG_CASE_WHERE_LEN], wother[FG_CASE_WHERE_LEN];

    if (!ref->def->same_length || !FGCaseKeyExists_Internal(ctx, ref)) continue;
    ks = FGCaseSibling_Internal(ctx, ref, ref->def->same_length);
    PetscCheck(ks >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "key table: %s: no sibling %s", ref->path, ref->def->same_length);
    n  = ctx->vals[k].set ? ctx->vals[k].n : 0;
    ns = ctx->vals[ks].set ? ctx->vals[ks].n : 0;
    if (n == ns) continue;
    kw = ctx->vals[k].set ? k : ks; /* the one given, or the later one */
    ko = kw == k ? ks : k;
    PetscCall(FGCaseWhere_Internal(ctx, kw, where, sizeof(where)));
    if (!ctx->vals[ko].set) SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " %s, but %s is not given (it must have as many)", where, ctx->vals[kw].n, ctx->vals[kw].n == 1 ? "entry" : "entries", ctx->keys[ko].path);
    PetscCall(FGCaseWhere_Internal(ctx, ko, wother, sizeof(wother)));
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " %s, but %s has %" PetscInt_FMT " (from %s); they must have as many", where, ctx->vals[kw].n, ctx->vals[kw].n == 1 ? "entry" : "entries", ctx->keys[ko].path, ctx->vals[ko].n, wother);
  }
  for (PetscInt k = 0; k < ctx->nkeys; k++) {
    const FGKeyRef *ref = &ctx->keys[k];
    if (ref->def->check && FGCaseKeyExists_Internal(ctx, ref)) PetscCall(ref->def->check(ctx, ref));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Where key `path` is (its line if set, the file otherwise), for messages. */
static PetscErrorCode FGCaseWherePath_Private(FGCaseCtx ctx, const char *path, char *where, size_t len)
{
  PetscInt k = FGCaseFind_Internal(ctx, path);

  PetscFunctionBeginUser;
  if (k >= 0) PetscCall(FGCaseWhere_Internal(ctx, k, where, len));
  else snprintf(where, len, "%s: %s", ctx->file, path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Step 5: checks across sections, on the complete case (before anything is allocated). */
static PetscErrorCode FGCaseCheckWhole_Private(FGCaseCtx ctx)
{
  FGCase     *c = ctx->c;
  char        where[FG_CASE_WHERE_LEN], path[FG_CASE_PATH_LEN];
  long double ncells = 1;

  PetscFunctionBeginUser;
  /* the grid must fit PETSc's 32-bit indices */
  for (PetscInt d = 0; d < ctx->dim; d++) ncells *= (long double)c->grid.cells[d];
  PetscCall(FGCaseWherePath_Private(ctx, "grid.cells", where, sizeof(where)));
  PetscCheck(ncells <= (long double)PETSC_MAX_INT, ctx->comm, FG_ERR_INPUT, "%s: %.0Lf cells in all, more than this PETSc build's 32-bit indices allow (%d)", where, ncells, (int)PETSC_MAX_INT);

  for (PetscInt d = 0; d < ctx->dim; d++)
    for (PetscInt s = 0; s < 2; s++) {
      const FGBoundaryFace *f = &c->boundary[d][s];
      /* outflow: the convective condition and the Dirichlet pressure closure are implemented on
         upper faces, where the boundary face is an owned unknown */
      if (f->kind == FG_BC_OUTFLOW && s == FG_FACE_LO) {
        snprintf(path, sizeof(path), "boundary.%c_lo.type", "xyz"[d]);
        PetscCall(FGCaseWherePath_Private(ctx, path, where, sizeof(where)));
        SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: outflow is supported on upper faces only (x_hi, y_hi, z_hi); orient the domain so the flow leaves through an upper face", where);
      }
      /* a parabolic profile vanishes at the walls across the face: not across a periodic direction */
      if (f->kind == FG_BC_INFLOW && f->profile == FG_PROFILE_PARABOLIC)
        for (PetscInt t = 0; t < ctx->dim; t++)
          if (t != d && c->grid.periodic[t]) {
            snprintf(path, sizeof(path), "boundary.%c_%s.profile", "xyz"[d], s ? "hi" : "lo");
            PetscCall(FGCaseWherePath_Private(ctx, path, where, sizeof(where)));
            SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: parabolic across %c, which is periodic; a parabolic inflow profile needs walls on both sides (use uniform)", where, "xyz"[t]);
          }
    }

  /* abc is a Beltrami field on a cube */
  if (c->initial.type == FG_IC_ABC) {
    PetscCall(FGCaseWherePath_Private(ctx, "initial.type", where, sizeof(where)));
    PetscCheck(c->grid.lengths[1] == c->grid.lengths[0] && c->grid.lengths[2] == c->grid.lengths[0], ctx->comm, FG_ERR_INPUT, "%s: abc needs a cube (equal grid.lengths), got %g x %g x %g", where, (double)c->grid.lengths[0], (double)c->grid.lengths[1], (double)c->grid.lengths[2]);
  }

  /* initial.file must be there now, not after the solver is set up (rank 0 looks) */
  if (c->initial.type == FG_IC_FILE) {
    PetscBool ok;
    char      msg[PETSC_MAX_PATH_LEN + 128];
    PetscCall(FGIOCheckReadable(ctx->comm, c->initial.file, msg, sizeof(msg), &ok));
    PetscCall(FGCaseWherePath_Private(ctx, "initial.file", where, sizeof(where)));
    PetscCheck(ok, ctx->comm, FG_ERR_INPUT, "%s: %s", where, msg);
  }

  /* the FFT solver's slabs need a plane on every rank */
  if (c->poisson.type == FG_POISSON_FFTW) {
    PetscBool ok;
    char      msg[512];
    PetscCall(FGGridSlabCheck(ctx->comm, ctx->dim, c->grid.cells, &ok, msg, sizeof(msg)));
    PetscCall(FGCaseWherePath_Private(ctx, "grid.cells", where, sizeof(where)));
    PetscCheck(ok, ctx->comm, FG_ERR_INPUT, "%s: %s", where, msg);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Validate the parsed case and fill in every default (see the steps above). */
PetscErrorCode FGCaseValidate_Internal(FGCaseCtx ctx)
{
  FGCase  *c  = ctx->c;
  PetscInt ko = FGCaseFind_Internal(ctx, "output.dir");

  PetscFunctionBeginUser;
  PetscCall(FGCaseCheckRequired_Private(ctx));
  PetscCall(FGCaseCheckShape_Private(ctx));
  PetscCall(FGCaseDefaults_Private(ctx));
  PetscCall(FGCaseCrossCheck_Private(ctx));
  /* entries past the dimension: a neutral third direction in 2D */
  for (PetscInt d = ctx->dim; d < FG_CASE_MAX_DIM; d++) {
    c->grid.cells[d]    = 1;
    c->grid.lengths[d]  = 1.0;
    c->grid.origin[d]   = 0.0;
    c->grid.periodic[d] = PETSC_FALSE;
  }
  for (PetscInt d = 0; d < FG_CASE_MAX_DIM; d++)
    for (PetscInt s = 0; s < 2; s++)
      for (PetscInt e = ctx->dim; e < FG_CASE_MAX_DIM; e++) c->boundary[d][s].velocity[e] = 0.0;
  for (PetscInt e = ctx->dim; e < FG_CASE_MAX_DIM; e++) c->initial.velocity[e] = 0.0;
  for (PetscInt e = ctx->dim; e < FG_CASE_MAX_DIM; e++) c->flow.force[e] = 0.0;
  PetscCheck(ko >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "key table lacks output.dir");
  if (ctx->vals[ko].set) PetscCall(FGCaseWhere_Internal(ctx, ko, c->output.dir_from, sizeof(c->output.dir_from)));
  else snprintf(c->output.dir_from, sizeof(c->output.dir_from), "%s: output.dir (default)", ctx->file);
  PetscCall(FGCaseCheckWhole_Private(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* adjoint.steady_dt: "auto" (steady_dt_value 0), or a positive step. */
PetscErrorCode FGCaseCheckSteadyDt_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGCase     *c = ctx->c;
  const char *v = c->adjoint.steady_dt;
  char        where[FG_CASE_WHERE_LEN], *end;
  double      x;

  PetscFunctionBeginUser;
  c->adjoint.steady_dt_value = 0;
  if (!strcmp(v, "auto")) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  x = strtod(v, &end);
  PetscCheck(end != v && !*end && x > 0 && PetscIsNormalReal((PetscReal)x), ctx->comm, FG_ERR_INPUT, "%s: '%s': expected auto or a time step > 0", where, v);
  c->adjoint.steady_dt_value = (PetscReal)x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* adjoint.memory: "auto", or a size: a positive number with an optional unit (K, M, G, T, with or
   without "iB"/"B", powers of 1024; none: MiB), stored in bytes in adjoint.memory_bytes. */
PetscErrorCode FGCaseCheckAdjointMemory_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGCase     *c = ctx->c;
  const char *v = c->adjoint.memory;
  char        where[FG_CASE_WHERE_LEN], *end, unit[8] = "";
  double      x;
  size_t      k = 0;

  PetscFunctionBeginUser;
  c->adjoint.memory_bytes = 0;
  if (!strcmp(v, "auto")) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  x = strtod(v, &end);
  while (*end == ' ') end++;
  while (*end && k + 1 < sizeof(unit)) unit[k++] = (char)toupper((unsigned char)*end++);
  PetscCheck(end != v && !*end && x > 0 && x < 1e12, ctx->comm, FG_ERR_INPUT, "%s: '%s' is not a memory size (examples: auto, 512 MiB, 4 GiB, 2.5G; a plain number is MiB)", where, v);
  {
    static const char *names[][3] = {{"K", "KB", "KIB"}, {"M", "MB", "MIB"}, {"G", "GB", "GIB"}, {"T", "TB", "TIB"}};
    double             scale      = unit[0] ? 0 : 1024.0 * 1024.0;
    for (int i = 0; i < 4 && !scale; i++)
      for (int j = 0; j < 3; j++)
        if (!strcmp(unit, names[i][j])) scale = pow(1024.0, i + 1);
    PetscCheck(scale > 0, ctx->comm, FG_ERR_INPUT, "%s: '%s': unknown unit '%s' (K, M, G, T, optionally with B or iB; powers of 1024)", where, v, unit);
    c->adjoint.memory_bytes = (PetscReal)(x * scale);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
