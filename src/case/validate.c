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
*/
#include "caseimpl.h"
#include <fg/grid.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

static const char FGAxis_Private[] = "xyz";

/* Whether the key exists in this case: face keys only up to the dimension. */
PetscBool FGCaseKeyExists_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  return (PetscBool)(ref->axis < ctx->dim);
}

static PetscInt FGCaseFind_Private(FGCaseCtx ctx, const char *path)
{
  for (PetscInt i = 0; i < ctx->nkeys; i++)
    if (!strcmp(ctx->keys[i].path, path)) return i;
  return -1;
}

/* The key `leaf` of the same face as ref (boundary.x_lo.velocity -> boundary.x_lo.type). */
static PetscInt FGCaseSibling_Private(FGCaseCtx ctx, const FGKeyRef *ref, const char *leaf)
{
  char        path[FG_CASE_PATH_LEN];
  const char *dot = strrchr(ref->path, '.');
  snprintf(path, sizeof(path), "%.*s.%s", (int)(dot - ref->path), ref->path, leaf);
  return FGCaseFind_Private(ctx, path);
}

static FGBoundaryFace *FGCaseFace_Private(FGCaseCtx ctx, const FGKeyRef *ref)
{
  return &ctx->c->boundary[ref->axis][ref->side];
}

static FGBodyCase *FGCaseBody_Private(FGCaseCtx ctx, const FGKeyRef *ref)
{
  return (FGBodyCase *)FGCaseInstance_Internal(ctx, ref);
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
  int n = snprintf(ctx->c->output.dir, sizeof(ctx->c->output.dir), "out/%s", ctx->c->name);

  PetscFunctionBeginUser;
  PetscCheck(n > 0 && (size_t)n < sizeof(ctx->c->output.dir), ctx->comm, FG_ERR_INPUT, "%s: output.dir: out/<name> is too long; set output.dir", ctx->file);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGCaseComputeFaceType_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  PetscFunctionBeginUser;
  FGCaseFace_Private(ctx, ref)->kind = ctx->c->grid.periodic[ref->axis] ? FG_BC_PERIODIC : FG_BC_WALL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* nu from re; when neither is given, the missing-key error. */
PetscErrorCode FGCaseComputeNu_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGCase  *c  = ctx->c;
  PetscInt kr = FGCaseFind_Private(ctx, "flow.re");

  PetscFunctionBeginUser;
  if (!ctx->vals[kr].set) {
    int line;
    PetscCall(FGCaseSectionLine_Internal(ctx, "flow", &line));
    PetscCheck(!line, ctx->comm, FG_ERR_INPUT, "%s:%d: flow.nu: missing required key: give flow.nu or flow.re (section flow has neither)", ctx->file, line);
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: flow.nu: missing required key: give flow.nu or flow.re (the file has no section flow)", ctx->file);
  }
  c->flow.nu = c->flow.u_ref * c->flow.l_ref / c->flow.re;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGCaseComputeRe_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGCase *c = ctx->c;

  PetscFunctionBeginUser;
  c->flow.re = c->flow.u_ref * c->flow.l_ref / c->flow.nu;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Both nu and re given: they must agree. */
PetscErrorCode FGCaseCheckRe_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGCase   *c  = ctx->c;
  PetscInt  kn = FGCaseFind_Private(ctx, "flow.nu"), kr = FGCaseFind_Private(ctx, "flow.re");
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
  char     ax = FGAxis_Private[ref->axis];

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
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: a lid moves in its own plane: the normal (%c) component must be 0, got %s", where, FGAxis_Private[ref->axis], v);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool FGCaseFaceIs_Private(FGCaseCtx ctx, const FGKeyRef *ref, PetscBool lid, PetscBool inflow, const char *what, char *why, size_t len)
{
  FGBCKind kind = FGCaseFace_Private(ctx, ref)->kind;
  PetscInt kt   = FGCaseSibling_Private(ctx, ref, "type");

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
  PetscInt      kf   = FGCaseFind_Private(ctx, "initial.file");
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

/* Bodies: the keys that apply to some shapes only. */
#define FG_SHAPE(s) (1u << (s))

/* Whether the key applies to its body's shape: one of `shapes`, named in `which` (NULL: every
   shape but density). `why` says why not, or, when it applies, why it is needed (for the
   missing-key message of a required key). */
static PetscBool FGCaseBodyIs_Private(FGCaseCtx ctx, const FGKeyRef *ref, unsigned shapes, const char *which, char *why, size_t len)
{
  const FGBodyCase *b    = FGCaseBody_Private(ctx, ref);
  const char       *leaf = strrchr(ref->path, '.') + 1;

  if (shapes & FG_SHAPE(b->shape)) {
    snprintf(why, len, "required for %s bodies", FGBodyShapeNames[b->shape]);
    return PETSC_TRUE;
  }
  if (which) snprintf(why, len, "%s applies to %s bodies; body.%s is a %s body", leaf, which, b->name, FGBodyShapeNames[b->shape]);
  else snprintf(why, len, "%s does not apply to density bodies (body.%s is a per-cell field)", leaf, b->name);
  return PETSC_FALSE;
}

PetscBool FGCaseAppliesBodySolid_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, ~FG_SHAPE(FG_BODY_DENSITY), NULL, why, len);
}

PetscBool FGCaseAppliesBodyRadius_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_CIRCLE) | FG_SHAPE(FG_BODY_SPHERE) | FG_SHAPE(FG_BODY_FOURIER), "circle, sphere and fourier", why, len);
}

PetscBool FGCaseAppliesBodySemiAxes_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_ELLIPSE) | FG_SHAPE(FG_BODY_ELLIPSOID), "ellipse and ellipsoid", why, len);
}

PetscBool FGCaseAppliesBodyFourier_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_FOURIER), "fourier", why, len);
}

PetscBool FGCaseAppliesBodyNaca_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_NACA), "naca", why, len);
}

PetscBool FGCaseAppliesBodyChord_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_NACA) | FG_SHAPE(FG_BODY_CST), "naca and cst", why, len);
}

PetscBool FGCaseAppliesBodyCst_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_CST), "cst", why, len);
}

PetscBool FGCaseAppliesBodyBspline_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_BSPLINE), "bspline", why, len);
}

PetscBool FGCaseAppliesBodyDensity_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_DENSITY), "density", why, len);
}

PetscErrorCode FGCaseComputeBodyEta_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  PetscFunctionBeginUser;
  FGCaseBody_Private(ctx, ref)->eta = 1e-4 * ctx->c->flow.l_ref / ctx->c->flow.u_ref;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGCaseComputeBodyRefLength_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  PetscFunctionBeginUser;
  FGCaseBody_Private(ctx, ref)->ref_length = ctx->c->flow.l_ref;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGCaseComputeBodyRefSpeed_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  PetscFunctionBeginUser;
  FGCaseBody_Private(ctx, ref)->ref_speed = ctx->c->flow.u_ref;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 2D: per unit span; after ref_length (table order). */
PetscErrorCode FGCaseComputeBodyRefArea_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGBodyCase *b = FGCaseBody_Private(ctx, ref);

  PetscFunctionBeginUser;
  b->ref_area = ctx->dim == 2 ? b->ref_length : b->ref_length * b->ref_length;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sphere and ellipsoid are 3D shapes (the 2D ones are extruded in 3D). */
PetscErrorCode FGCaseCheckBodyShape_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGBodyShape shape = FGCaseBody_Private(ctx, ref)->shape;
  char        where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (ctx->dim == 3 || (shape != FG_BODY_SPHERE && shape != FG_BODY_ELLIPSOID)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %s is a 3D shape, and this case is %" PetscInt_FMT "D (use %s)", where, FGBodyShapeNames[shape], ctx->dim, shape == FG_BODY_SPHERE ? "circle" : "ellipse");
}

/* An ellipse has two semi-axes, an ellipsoid three. */
PetscErrorCode FGCaseCheckBodySemiAxes_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGBodyCase *b = FGCaseBody_Private(ctx, ref);
  char              where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (b->shape != FG_BODY_ELLIPSE && b->shape != FG_BODY_ELLIPSOID) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  if (b->shape == FG_BODY_ELLIPSE) PetscCheck(b->n_semi_axes == 2, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " entries, but an ellipse has 2 semi-axes [a, b]", where, b->n_semi_axes);
  else PetscCheck(b->n_semi_axes == 3, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " entries, but an ellipsoid has 3 semi-axes [a, b, c]", where, b->n_semi_axes);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A NACA 4-digit code MPTT: camber M % of the chord at P tenths of the chord, thickness TT %. */
PetscErrorCode FGCaseCheckBodyNaca_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGBodyCase *b = FGCaseBody_Private(ctx, ref);
  const char       *s = b->naca;
  char              where[FG_CASE_WHERE_LEN];
  PetscBool         digits = (PetscBool)(strlen(s) == 4);
  int               m, p, t;

  PetscFunctionBeginUser;
  if (b->shape != FG_BODY_NACA) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  for (size_t i = 0; digits && i < 4; i++) digits = (PetscBool)(s[i] >= '0' && s[i] <= '9');
  PetscCheck(digits, ctx->comm, FG_ERR_INPUT, "%s: \"%s\" is not a NACA 4-digit code: expected 4 digits MPTT, e.g. \"2412\"", where, s);
  m = s[0] - '0', p = s[1] - '0', t = 10 * (s[2] - '0') + (s[3] - '0');
  PetscCheck(m == 0 || p >= 1, ctx->comm, FG_ERR_INPUT, "%s: \"%s\": a cambered airfoil (M = %d) needs the position of its maximum camber, P, in 1..9 tenths of the chord", where, s, m);
  PetscCheck(t >= 1 && t <= 40, ctx->comm, FG_ERR_INPUT, "%s: \"%s\": the thickness TT = %02d %% of the chord must be in 01..40", where, s, t);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rotation_rate_values, jet_amplitude_values: the control's values at the nodes of the time basis,
   so they need design.time_basis >= 2 and N values per control (rotation: N; jets: n_jets N). */
PetscErrorCode FGCaseCheckBodyControlValues_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGBodyCase *b    = FGCaseBody_Private(ctx, ref);
  const PetscBool   jets = (PetscBool)!strcmp(strrchr(ref->path, '.') + 1, "jet_amplitude_values");
  const PetscInt    n    = jets ? b->n_jet_values : b->n_rate_values, N = ctx->c->design.time_basis;
  const PetscInt    want = jets ? b->n_jets * N : N;
  char              where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCheck(N >= 2, ctx->comm, FG_ERR_INPUT, "%s: values in time need design.time_basis >= 2 (it is %" PetscInt_FMT "; a constant control is body.%s.%s)", where, N, b->name, jets ? "jet_amplitude" : "rotation_rate");
  if (jets) PetscCheck(n == want, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " entries, expected %" PetscInt_FMT ": design.time_basis = %" PetscInt_FMT " values for each of the %" PetscInt_FMT " jets (jet_angles), jet by jet", where, n, want, N, b->n_jets);
  else PetscCheck(n == want, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " entries, expected design.time_basis = %" PetscInt_FMT, where, n, N);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Records whether the probe has a reference point (an optional key without a default). */
PetscErrorCode FGCaseCheckProbeReference_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  PetscFunctionBeginUser;
  ((FGProbeCase *)FGCaseInstance_Internal(ctx, ref))->has_reference = ctx->vals[ref - ctx->keys].set;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Objectives: the keys that apply to some kinds, or to one time functional, only. */
#define FG_KIND(k)    (1u << (k))
#define FG_OBJ_FORCES (FG_KIND(FG_OBJ_DRAG) | FG_KIND(FG_OBJ_LIFT) | FG_KIND(FG_OBJ_SIDE) | FG_KIND(FG_OBJ_MOMENT) | FG_KIND(FG_OBJ_NEG_LIFT_DRAG))

static FGObjectiveCase *FGCaseObjective_Private(FGCaseCtx ctx, const FGKeyRef *ref)
{
  return (FGObjectiveCase *)FGCaseInstance_Internal(ctx, ref);
}

/* Whether the key applies to its objective's kind: one of `kinds`, named in `which`. `why` says
   why not, or why it is needed (see FGCaseBodyIs_Private). */
static PetscBool FGCaseObjectiveIs_Private(FGCaseCtx ctx, const FGKeyRef *ref, unsigned kinds, const char *which, char *why, size_t len)
{
  const FGObjectiveCase *o    = FGCaseObjective_Private(ctx, ref);
  const char            *leaf = strrchr(ref->path, '.') + 1;

  if (kinds & FG_KIND(o->kind)) {
    snprintf(why, len, "required for %s objectives", FGObjectiveKindNames[o->kind]);
    return PETSC_TRUE;
  }
  snprintf(why, len, "%s applies to %s objectives; objective.%s is a %s objective", leaf, which, o->name, FGObjectiveKindNames[o->kind]);
  return PETSC_FALSE;
}

/* Whether the key applies to its objective's time functional `time`. control_cost is a time
   average whatever its time says (FGCaseCheckObjectiveTime_Internal refuses the others), so the
   keys of final and instant never apply to it: its one error is then about time. */
static PetscBool FGCaseObjectiveTimeIs_Private(FGCaseCtx ctx, const FGKeyRef *ref, FGObjectiveTime time, char *why, size_t len)
{
  const FGObjectiveCase *o    = FGCaseObjective_Private(ctx, ref);
  const char            *leaf = strrchr(ref->path, '.') + 1;
  PetscInt               kt   = FGCaseSibling_Private(ctx, ref, "time");

  if (o->kind == FG_OBJ_CONTROL_COST && time != FG_OBJ_TIME_AVERAGE) {
    snprintf(why, len, "%s does not apply to control_cost objectives (always a time average)", leaf);
    return PETSC_FALSE;
  }
  if (o->time == time) {
    snprintf(why, len, "required for time %s", FGObjectiveTimeNames[time]);
    return PETSC_TRUE;
  }
  snprintf(why, len, "%s applies to time %s only; objective.%s has time %s%s", leaf, FGObjectiveTimeNames[time], o->name, FGObjectiveTimeNames[o->time], kt >= 0 && !ctx->vals[kt].set ? " (the default)" : "");
  return PETSC_FALSE;
}

PetscBool FGCaseAppliesObjectiveBody_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseObjectiveIs_Private(ctx, ref, FG_OBJ_FORCES, "drag, lift, side, moment and neg_lift_drag", why, len);
}

PetscBool FGCaseAppliesObjectiveProbe_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseObjectiveIs_Private(ctx, ref, FG_KIND(FG_OBJ_PRESSURE_DROP) | FG_KIND(FG_OBJ_PROBE_TRACKING), "pressure_drop and probe_tracking", why, len);
}

PetscBool FGCaseAppliesObjectiveRegion_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseObjectiveIs_Private(ctx, ref, FG_KIND(FG_OBJ_KINETIC_ENERGY) | FG_KIND(FG_OBJ_ENSTROPHY) | FG_KIND(FG_OBJ_FIELD_TRACKING), "kinetic_energy, enstrophy and field_tracking", why, len);
}

PetscBool FGCaseAppliesObjectiveTracking_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseObjectiveIs_Private(ctx, ref, FG_KIND(FG_OBJ_PROBE_TRACKING), "probe_tracking", why, len);
}

PetscBool FGCaseAppliesObjectiveTargetFile_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseObjectiveIs_Private(ctx, ref, FG_KIND(FG_OBJ_FIELD_TRACKING), "field_tracking", why, len);
}

/* statistic: every kind with one quantity and a time functional of it (not neg_lift_drag, a ratio
   of two time functionals, nor control_cost, a function of the design alone). */
PetscBool FGCaseAppliesObjectiveStatistic_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseObjectiveIs_Private(ctx, ref, (FG_KIND(FG_OBJ_NKINDS) - 1u) & ~(FG_KIND(FG_OBJ_NEG_LIFT_DRAG) | FG_KIND(FG_OBJ_CONTROL_COST)), "all but neg_lift_drag and control_cost", why, len);
}

PetscBool FGCaseAppliesObjectiveAverage_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseObjectiveTimeIs_Private(ctx, ref, FG_OBJ_TIME_AVERAGE, why, len);
}

PetscBool FGCaseAppliesObjectiveInstant_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseObjectiveTimeIs_Private(ctx, ref, FG_OBJ_TIME_INSTANT, why, len);
}

/* "FILE:LINE: objective.NAME.KEY" for a key that is not given: the line of its objective. */
static PetscErrorCode FGCaseObjectiveWhere_Private(FGCaseCtx ctx, const FGKeyRef *ref, char *where, size_t len)
{
  char sec[FG_CASE_PATH_LEN];
  int  line;

  PetscFunctionBeginUser;
  snprintf(sec, sizeof(sec), "objective.%s", FGCaseObjective_Private(ctx, ref)->name);
  PetscCall(FGCaseSectionLine_Internal(ctx, sec, &line));
  if (line) snprintf(where, len, "%s:%d: %s", ctx->file, line, ref->path);
  else snprintf(where, len, "%s: %s", ctx->file, ref->path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The index of the instance of family `section` named `name` (len bytes), or -1. */
static PetscInt FGCaseInstanceIndex_Private(FGCaseCtx ctx, const char *section, const char *name, size_t len)
{
  const FGKeyFamily *fam = FGCaseFamilyOfSection_Internal(section, strlen(section));

  for (PetscInt i = 0; fam && i < FGCaseInstanceCount_Internal(ctx, fam); i++) {
    const char *have = FGCaseInstanceName_Internal(ctx, fam, i);
    if (strlen(have) == len && !strncmp(have, name, len)) return i;
  }
  return -1;
}

/* The error for a name that is not an instance of family `section`: "the case has no body cil
   (its bodies: cyl, wing)"; `where` starts it. */
static PetscErrorCode FGCaseNoInstance_Private(FGCaseCtx ctx, const char *where, const char *section, const char *name, size_t len)
{
  const FGKeyFamily *fam = FGCaseFamilyOfSection_Internal(section, strlen(section));
  char               names[512];

  PetscFunctionBeginUser;
  PetscCheck(fam, PETSC_COMM_SELF, PETSC_ERR_PLIB, "no family %s", section);
  PetscCall(FGCaseInstancesString_Internal(ctx, fam, names, sizeof(names)));
  PetscCheck(names[0], ctx->comm, FG_ERR_INPUT, "%s: the case has no %s %.*s: it has no %s", where, fam->noun, (int)PetscMin(len, 64), name, fam->plural);
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: the case has no %s %.*s (its %s: %s)", where, fam->noun, (int)PetscMin(len, 64), name, fam->plural, names);
}

/* A force objective without a body: the case's only body. */
PetscErrorCode FGCaseComputeObjectiveBody_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGObjectiveCase   *o   = FGCaseObjective_Private(ctx, ref);
  const FGKeyFamily *fam = FGCaseFamilyOfSection_Internal("body", 4);
  char               where[FG_CASE_WHERE_LEN], names[512];

  PetscFunctionBeginUser;
  if (!(FG_OBJ_FORCES & FG_KIND(o->kind))) PetscFunctionReturn(PETSC_SUCCESS); /* computed before the keys that do not apply are refused */
  if (ctx->c->nbodies == 1) {
    PetscCall(PetscStrncpy(o->body, ctx->c->body[0].name, sizeof(o->body)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FGCaseObjectiveWhere_Private(ctx, ref, where, sizeof(where)));
  PetscCheck(ctx->c->nbodies, ctx->comm, FG_ERR_INPUT, "%s: a %s objective measures the force on a body, and the case has no bodies", where, FGObjectiveKindNames[o->kind]);
  PetscCall(FGCaseInstancesString_Internal(ctx, fam, names, sizeof(names)));
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: missing required key: the case has %" PetscInt_FMT " bodies (%s); name the one whose force the %s objective measures", where, ctx->c->nbodies, names, FGObjectiveKindNames[o->kind]);
}

/* side is the force along z; dissipation is a flux through the inflow and outflow faces, so the
   case needs one (elsewhere u.n = 0: it would be identically 0). */
PetscErrorCode FGCaseCheckObjectiveKind_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGObjectiveCase *o = FGCaseObjective_Private(ctx, ref);
  char                   where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (o->kind == FG_OBJ_DISSIPATION) {
    for (PetscInt d = 0; d < ctx->dim; d++)
      for (PetscInt side = 0; side < 2; side++)
        if (ctx->c->boundary[d][side].kind == FG_BC_INFLOW || ctx->c->boundary[d][side].kind == FG_BC_OUTFLOW) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: dissipation is the net inflow of mechanical energy through the inflow and outflow faces, and the case has none (it would be 0)", where);
  }
  if (o->kind != FG_OBJ_SIDE || ctx->dim == 3) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: side is the force coefficient along z, and this case is %" PetscInt_FMT "D", where, ctx->dim);
}

PetscErrorCode FGCaseCheckObjectiveBody_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGObjectiveCase *o = FGCaseObjective_Private(ctx, ref);
  char                   where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (!(FG_OBJ_FORCES & FG_KIND(o->kind)) || FGCaseInstanceIndex_Private(ctx, "body", o->body, strlen(o->body)) >= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCall(FGCaseNoInstance_Private(ctx, where, "body", o->body, strlen(o->body)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The probe exists; pressure_drop reads its pressure difference, so it needs a reference point. */
PetscErrorCode FGCaseCheckObjectiveProbe_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGObjectiveCase *o = FGCaseObjective_Private(ctx, ref);
  char                   where[FG_CASE_WHERE_LEN], path[FG_CASE_PATH_LEN];
  PetscInt               kr;

  PetscFunctionBeginUser;
  if (o->kind != FG_OBJ_PRESSURE_DROP && o->kind != FG_OBJ_PROBE_TRACKING) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  if (FGCaseInstanceIndex_Private(ctx, "probe", o->probe, strlen(o->probe)) < 0) PetscCall(FGCaseNoInstance_Private(ctx, where, "probe", o->probe, strlen(o->probe)));
  if (o->kind != FG_OBJ_PRESSURE_DROP) PetscFunctionReturn(PETSC_SUCCESS);
  snprintf(path, sizeof(path), "probe.%s.reference", o->probe); /* the key itself: its check may not have run yet */
  kr = FGCaseFind_Private(ctx, path);
  PetscCheck(kr >= 0 && ctx->vals[kr].set, ctx->comm, FG_ERR_INPUT, "%s: pressure_drop is p(at) - p(reference) of the probe, and probe.%s has no reference point (give probe.%s.reference)", where, o->probe, o->probe);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 2*dim numbers, a box with positive extent inside the domain (to round-off). */
PetscErrorCode FGCaseCheckObjectiveRegion_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGObjectiveCase *o = FGCaseObjective_Private(ctx, ref);
  const FGCase          *c = ctx->c;
  char                   where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (!o->n_region || (o->kind != FG_OBJ_KINETIC_ENERGY && o->kind != FG_OBJ_ENSTROPHY && o->kind != FG_OBJ_FIELD_TRACKING)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCheck(o->n_region == 2 * ctx->dim, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " entries, but a region in %" PetscInt_FMT "D is the lower corner, then the upper corner: %" PetscInt_FMT " numbers", where, o->n_region, ctx->dim, 2 * ctx->dim);
  for (PetscInt d = 0; d < ctx->dim; d++) {
    const PetscReal lo = o->region[d], hi = o->region[ctx->dim + d];
    const PetscReal x0 = c->grid.origin[d], x1 = c->grid.origin[d] + c->grid.lengths[d], tol = 1e-12 * c->grid.lengths[d];
    char            slo[32], shi[32], s0[32], s1[32];

    PetscCall(FGCaseFormatReal_Internal(lo, slo, sizeof(slo)));
    PetscCall(FGCaseFormatReal_Internal(hi, shi, sizeof(shi)));
    PetscCall(FGCaseFormatReal_Internal(x0, s0, sizeof(s0)));
    PetscCall(FGCaseFormatReal_Internal(x1, s1, sizeof(s1)));
    PetscCheck(lo < hi, ctx->comm, FG_ERR_INPUT, "%s: the lower corner must be below the upper corner, and in %c it is not (%s >= %s)", where, FGAxis_Private[d], slo, shi);
    PetscCheck(lo >= x0 - tol && hi <= x1 + tol, ctx->comm, FG_ERR_INPUT, "%s: the region reaches outside the domain in %c: [%s, %s] is not within [%s, %s]", where, FGAxis_Private[d], slo, shi, s0, s1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Records whether the objective has a target (an optional key without a default). */
PetscErrorCode FGCaseCheckObjectiveTarget_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  PetscFunctionBeginUser;
  FGCaseObjective_Private(ctx, ref)->n_target = ctx->vals[ref - ctx->keys].set ? ctx->dim : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* probe_tracking compares with target or with observations: exactly one. The observations file
   must be there now, not after the forward run (rank 0 looks; its format is the objective's
   business). */
PetscErrorCode FGCaseCheckObjectiveObservations_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGObjectiveCase *o  = FGCaseObjective_Private(ctx, ref);
  const PetscInt         k  = (PetscInt)(ref - ctx->keys);
  const PetscInt         kt = FGCaseSibling_Private(ctx, ref, "target");
  char                   where[FG_CASE_WHERE_LEN], wt[FG_CASE_WHERE_LEN];
  PetscMPIInt            rank;
  int                    ok = 1, err = 0;

  PetscFunctionBeginUser;
  if (o->kind != FG_OBJ_PROBE_TRACKING) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(kt >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "key table: %s: no sibling target", ref->path);
  if (!ctx->vals[k].set) {
    PetscCall(FGCaseObjectiveWhere_Private(ctx, &ctx->keys[kt], where, sizeof(where)));
    PetscCheck(ctx->vals[kt].set, ctx->comm, FG_ERR_INPUT, "%s: missing required key (objective.%s has neither target nor observations; probe_tracking needs one)", where, o->name);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FGCaseWhere_Internal(ctx, k, where, sizeof(where)));
  if (ctx->vals[kt].set) {
    PetscCall(FGCaseWhere_Internal(ctx, kt, wt, sizeof(wt)));
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: give target or observations, not both (target from %s)", where, wt);
  }
  PetscCallMPI(MPI_Comm_rank(ctx->comm, &rank));
  if (rank == 0) {
    FILE *fp = fopen(o->observations, "r");
    ok       = fp != NULL;
    err      = ok ? 0 : errno;
    if (fp) fclose(fp);
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, ctx->comm));
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, ctx->comm));
  PetscCheck(ok, ctx->comm, FG_ERR_INPUT, "%s: cannot open %s: %s", where, o->observations, strerror(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* field_tracking's target file must be there now (rank 0 looks; the fields themselves are read,
   and their shape checked, when the objective is set up). */
PetscErrorCode FGCaseCheckObjectiveTargetFile_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGObjectiveCase *o = FGCaseObjective_Private(ctx, ref);
  char                   where[FG_CASE_WHERE_LEN];
  PetscMPIInt            rank;
  int                    ok = 1, err = 0;

  PetscFunctionBeginUser;
  if (o->kind != FG_OBJ_FIELD_TRACKING) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCallMPI(MPI_Comm_rank(ctx->comm, &rank));
  if (rank == 0) {
    FILE *fp = fopen(o->target_file, "r");
    ok       = fp != NULL;
    err      = ok ? 0 : errno;
    if (fp) fclose(fp);
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, ctx->comm));
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, ctx->comm));
  PetscCheck(ok, ctx->comm, FG_ERR_INPUT, "%s: cannot open %s: %s", where, o->target_file, strerror(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* control_cost integrates the controls over the window: a time average, nothing else. */
PetscErrorCode FGCaseCheckObjectiveTime_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGObjectiveCase *o = FGCaseObjective_Private(ctx, ref);
  char                   where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (o->kind != FG_OBJ_CONTROL_COST || o->time == FG_OBJ_TIME_AVERAGE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %s, but control_cost is an integral of the controls over the window: its time is average", where, FGObjectiveTimeNames[o->time]);
}

/* The length of an average's window: t1 - t0, or the whole run without a window. */
static PetscReal FGCaseObjectiveWindowLength_Private(FGCaseCtx ctx, const FGObjectiveCase *o)
{
  return o->n_window ? o->window[1] - o->window[0] : (PetscReal)ctx->c->time.steps * ctx->c->time.dt;
}

PetscErrorCode FGCaseCheckObjectiveWindow_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGObjectiveCase *o = FGCaseObjective_Private(ctx, ref);
  char                   where[FG_CASE_WHERE_LEN], s0[32], s1[32];

  PetscFunctionBeginUser;
  if (o->time != FG_OBJ_TIME_AVERAGE || !o->n_window) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCall(FGCaseFormatReal_Internal(o->window[0], s0, sizeof(s0)));
  PetscCall(FGCaseFormatReal_Internal(o->window[1], s1, sizeof(s1)));
  PetscCheck(o->window[0] < o->window[1], ctx->comm, FG_ERR_INPUT, "%s: [%s, %s]: the window [t0, t1] must end after it starts (t0 < t1)", where, s0, s1);
  {
    const PetscReal T = (PetscReal)ctx->c->time.steps * ctx->c->time.dt;
    char            sT[32];
    PetscCall(FGCaseFormatReal_Internal(T, sT, sizeof(sT)));
    PetscCheck(o->window[1] <= T * (1 + 1e-12), ctx->comm, FG_ERR_INPUT, "%s: [%s, %s]: the window ends after the run (time.steps * time.dt = %s)", where, s0, s1, sT);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The two ramps fit in the window (to round-off). */
PetscErrorCode FGCaseCheckObjectiveRamp_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGObjectiveCase *o      = FGCaseObjective_Private(ctx, ref);
  const PetscReal        length = FGCaseObjectiveWindowLength_Private(ctx, o);
  char                   where[FG_CASE_WHERE_LEN], sr[32], sl[32], s0[32], s1[32];

  PetscFunctionBeginUser;
  if (o->time != FG_OBJ_TIME_AVERAGE || 2 * o->ramp <= length * (1 + 1e-12)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCall(FGCaseFormatReal_Internal(o->ramp, sr, sizeof(sr)));
  snprintf(sl, sizeof(sl), "%g", (double)length); /* computed: rounded, not to be read back */
  if (!o->n_window) SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %s: the two ramps take 2*ramp, longer than the run (steps*dt = %s, the window without one)", where, sr, sl);
  PetscCall(FGCaseFormatReal_Internal(o->window[0], s0, sizeof(s0)));
  PetscCall(FGCaseFormatReal_Internal(o->window[1], s1, sizeof(s1)));
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %s: the two ramps take 2*ramp, longer than the window [%s, %s] (length %s)", where, sr, s0, s1, sl);
}

/* An instant within the run (to round-off: steps*dt is rounded). */
PetscErrorCode FGCaseCheckObjectiveAt_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGObjectiveCase *o   = FGCaseObjective_Private(ctx, ref);
  const PetscReal        end = (PetscReal)ctx->c->time.steps * ctx->c->time.dt;
  char                   where[FG_CASE_WHERE_LEN], sa[32], se[32];

  PetscFunctionBeginUser;
  if (o->time != FG_OBJ_TIME_INSTANT || o->kind == FG_OBJ_CONTROL_COST || o->at <= end * (1 + 1e-12)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCall(FGCaseFormatReal_Internal(o->at, sa, sizeof(sa)));
  snprintf(se, sizeof(se), "%g", (double)end); /* computed: rounded, not to be read back */
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %s is after the end of the run (steps*dt = %s)", where, sa, se);
}

/* variance is T(q^2) - T(q)^2: a time average only (the final or instant value of one step has none),
   and not in steady mode (the objective is the steady state's value: its variance is 0). */
PetscErrorCode FGCaseCheckObjectiveStatistic_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGObjectiveCase *o = FGCaseObjective_Private(ctx, ref);
  char                   where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (o->statistic != FG_OBJ_STAT_VARIANCE) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCheck(o->time == FG_OBJ_TIME_AVERAGE, ctx->comm, FG_ERR_INPUT, "%s: variance is T(q^2) - T(q)^2 over a time average, and objective.%s has time %s (one step's value has no variance)", where, o->name, FGObjectiveTimeNames[o->time]);
  PetscCheck(ctx->c->adjoint.mode != FG_ADJOINT_STEADY, ctx->comm, FG_ERR_INPUT, "%s: variance with adjoint.mode steady: the objective is evaluated at the steady state, where its variance is identically 0", where);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A zero weight would keep an objective that contributes nothing. */
PetscErrorCode FGCaseCheckObjectiveWeight_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  char where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (FGCaseObjective_Private(ctx, ref)->weight != 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: 0: a weight must not be zero (leave the objective out instead)", where);
}

/* The design parameters of the grammar in include/fg/case.h, and the text of the error for one
   that is not: the closest one of this case, or them all. */
static PetscErrorCode FGCaseDesignUnknown_Private(FGCaseCtx ctx, const char *where, const char *p)
{
  const FGCase *c = ctx->c;
  char          cand[FG_CASE_DESIGN_LEN + FG_CASE_NAME_LEN], best[sizeof(cand)] = "";
  PetscInt      dbest = PETSC_MAX_INT;

  PetscFunctionBeginUser;
#define FG_DESIGN_TRY(...) \
  do { \
    PetscInt d_; \
    snprintf(cand, sizeof(cand), __VA_ARGS__); \
    d_ = FGCaseEditDistance_Internal(p, cand); \
    if (d_ < dbest) dbest = d_, snprintf(best, sizeof(best), "%s", cand); \
  } while (0)
  FG_DESIGN_TRY("flow.nu");
  FG_DESIGN_TRY("flow.inflow_speed");
  FG_DESIGN_TRY("initial.velocity");
  for (PetscInt i = 0; i < c->nbodies; i++) {
    FG_DESIGN_TRY("body.%s.shape", c->body[i].name);
    FG_DESIGN_TRY("body.%s.rotation_rate", c->body[i].name);
    FG_DESIGN_TRY("body.%s.jet_amplitude", c->body[i].name);
    FG_DESIGN_TRY("body.%s.density", c->body[i].name);
  }
  for (PetscInt i = 0; i < c->nactuators; i++) FG_DESIGN_TRY("actuator.%s.force", c->actuator[i].name);
#undef FG_DESIGN_TRY
  PetscCheck(!(best[0] && dbest <= PetscMax(2, (PetscInt)strlen(p) / 4)), ctx->comm, FG_ERR_INPUT, "%s: unknown design parameter '%s' (did you mean %s?)", where, p, best);
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: unknown design parameter '%s' (the design parameters: flow.nu, flow.inflow_speed, body.NAME.shape, body.NAME.shape.PARAM, body.NAME.rotation_rate, body.NAME.jet_amplitude, body.NAME.density, actuator.NAME.force, initial.velocity)", where, p);
}

/* Whether leaf is "shape.PARAM", one parameter of a body's shape (PARAM an identifier, "r", "x0",
   "Au2": the shape's own names, which the design checks when it builds the shapes). */
static PetscBool FGCaseDesignShapeParameter_Private(const char *leaf)
{
  if (strncmp(leaf, "shape.", 6) || !leaf[6] || (leaf[6] >= '0' && leaf[6] <= '9')) return PETSC_FALSE;
  for (const char *q = leaf + 6; *q; q++)
    if (!((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_')) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* One design parameter: a name of the grammar, of an instance this case has, that makes sense
   for it. */
static PetscErrorCode FGCaseCheckDesignEntry_Private(FGCaseCtx ctx, const char *where, const char *p)
{
  const FGCase *c    = ctx->c;
  const char   *d1   = strchr(p, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
  const char   *leaf = d2 ? d2 + 1 : NULL, *name = d1 ? d1 + 1 : NULL;
  size_t        nlen = d2 ? (size_t)(d2 - name) : 0;
  char          w[FG_CASE_WHERE_LEN + FG_CASE_DESIGN_LEN];
  PetscInt      i;

  PetscFunctionBeginUser;
  if (!strcmp(p, "flow.nu") || !strcmp(p, "initial.velocity")) PetscFunctionReturn(PETSC_SUCCESS);
  snprintf(w, sizeof(w), "%s: %s", where, p);
  if (!strcmp(p, "flow.inflow_speed")) {
    /* the speed scales the inflow velocities: some face must have one (exact faces follow initial.type) */
    PetscBool any = PETSC_FALSE;
    for (PetscInt d = 0; d < ctx->dim; d++)
      for (PetscInt s = 0; s < 2; s++) {
        const FGBoundaryFace *f = &c->boundary[d][s];
        if (f->kind != FG_BC_INFLOW || f->profile == FG_PROFILE_EXACT) continue;
        for (PetscInt e = 0; e < ctx->dim; e++) any = (PetscBool)(any || f->velocity[e] != 0);
      }
    PetscCheck(any, ctx->comm, FG_ERR_INPUT, "%s: the case has no inflow face with a nonzero velocity to scale (boundary.<face>.type inflow)", w);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (d1 && d2 && nlen && (size_t)(d1 - p) == 4 && !strncmp(p, "body", 4) &&
      (!strcmp(leaf, "shape") || FGCaseDesignShapeParameter_Private(leaf) || !strcmp(leaf, "rotation_rate") || !strcmp(leaf, "jet_amplitude") || !strcmp(leaf, "density"))) {
    const FGBodyCase *b;

    i = FGCaseInstanceIndex_Private(ctx, "body", name, nlen);
    if (i < 0) PetscCall(FGCaseNoInstance_Private(ctx, w, "body", name, nlen));
    b = &c->body[i];
    if (!strcmp(leaf, "density")) PetscCheck(b->shape == FG_BODY_DENSITY, ctx->comm, FG_ERR_INPUT, "%s: body.%s is a %s body; only a density body has a per-cell density to design", w, b->name, FGBodyShapeNames[b->shape]);
    else PetscCheck(b->shape != FG_BODY_DENSITY, ctx->comm, FG_ERR_INPUT, "%s: body.%s is a density body (a per-cell field; its design parameter is body.%s.density)", w, b->name, b->name);
    if (!strcmp(leaf, "jet_amplitude")) PetscCheck(b->n_jets > 0, ctx->comm, FG_ERR_INPUT, "%s: body.%s has no jets (body.%s.jet_angles is empty)", w, b->name, b->name);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (d1 && d2 && nlen && !strcmp(leaf, "force") && (size_t)(d1 - p) == 8 && !strncmp(p, "actuator", 8)) {
    if (FGCaseInstanceIndex_Private(ctx, "actuator", name, nlen) < 0) PetscCall(FGCaseNoInstance_Private(ctx, w, "actuator", name, nlen));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FGCaseDesignUnknown_Private(ctx, where, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* design.parameters: each entry valid, none twice, and no shape parameter of a body whose whole
   shape is a block too (the same unknown twice in the design vector); messages name the entry's line. */
PetscErrorCode FGCaseCheckDesign_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGCase *c = ctx->c;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < c->design.n; i++) {
    const char *pi = c->design.parameters[i];

    for (PetscInt j = 0; j < i; j++) {
      const char  *pj = c->design.parameters[j];
      const char  *whole = strlen(pi) < strlen(pj) ? pi : pj, *part = whole == pi ? pj : pi;
      const size_t n     = strlen(whole);

      PetscCheck(strcmp(pi, pj), ctx->comm, FG_ERR_INPUT, "%s: %s is listed twice (entries %" PetscInt_FMT " and %" PetscInt_FMT ")", c->design.where[i], pi, j + 1, i + 1);
      PetscCheck(!(n > 6 && !strcmp(whole + n - 6, ".shape") && !strncmp(part, whole, n) && part[n] == '.'), ctx->comm, FG_ERR_INPUT, "%s: %s and %s overlap (entries %" PetscInt_FMT " and %" PetscInt_FMT "): %s holds every parameter of the shape", c->design.where[i], pj, pi, j + 1, i + 1, whole);
    }
    PetscCall(FGCaseCheckDesignEntry_Private(ctx, c->design.where[i], pi));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
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
  PetscInt kdim  = FGCaseFind_Private(ctx, "grid.dim");
  PetscInt kcell = FGCaseFind_Private(ctx, "grid.cells");
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
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %c faces exist only in 3D cases, and this case is %" PetscInt_FMT "D", where, FGAxis_Private[ref->axis], ctx->dim);
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
    PetscCheck(exists || !any, ctx->comm, FG_ERR_INPUT, "%s:%d: %s: this face exists only in 3D cases, and this case is %" PetscInt_FMT "D", ctx->file, ctx->sec[s].line, ctx->sec[s].path, ctx->dim);
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
    ks = FGCaseSibling_Private(ctx, ref, ref->def->same_length);
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
  PetscInt k = FGCaseFind_Private(ctx, path);

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
    PetscMPIInt rank;
    int         ok = 1, err = 0;
    PetscCallMPI(MPI_Comm_rank(ctx->comm, &rank));
    if (rank == 0) {
      FILE *fp = fopen(c->initial.file, "rb");
      ok       = fp != NULL;
      err      = ok ? 0 : errno;
      if (fp) fclose(fp);
    }
    PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, ctx->comm));
    PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, ctx->comm));
    PetscCall(FGCaseWherePath_Private(ctx, "initial.file", where, sizeof(where)));
    PetscCheck(ok, ctx->comm, FG_ERR_INPUT, "%s: cannot open %s: %s", where, c->initial.file, strerror(err));
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
  PetscInt ko = FGCaseFind_Private(ctx, "output.dir");

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
