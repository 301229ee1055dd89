/*
  The case keys of `flowgrad optimize` (src/optim/, src/app/optimize.c): the design's bounds and
  scale (design.lower, .upper, .max_change, .scale), constraints.<name>, points.<name> and the
  callbacks of their rows in the key table (keys.c). Like validate.c, every error names the file,
  line and key and is FG_ERR_INPUT on every rank.
*/
#include "caseimpl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static PetscInt FGCaseOptimIndex_Private(FGCaseCtx ctx, const char *section, const char *name)
{
  const FGKeyFamily *fam = FGCaseFamilyOfSection_Internal(section, strlen(section));

  for (PetscInt i = 0; fam && i < FGCaseInstanceCount_Internal(ctx, fam); i++)
    if (!strcmp(FGCaseInstanceName_Internal(ctx, fam, i), name)) return i;
  return -1;
}

static PetscErrorCode FGCaseOptimWhere_Private(FGCaseCtx ctx, const FGKeyRef *ref, char *where, size_t len)
{
  PetscFunctionBeginUser;
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A finite number, all of the text. */
static PetscBool FGCaseOptimNumber_Private(const char *text, PetscReal *v)
{
  char  *end;
  double x;

  if (!text[0]) return PETSC_FALSE;
  x = strtod(text, &end);
  if (*end || !isfinite(x)) return PETSC_FALSE;
  *v = (PetscReal)x;
  return PETSC_TRUE;
}

/*
  design.lower, design.upper, design.max_change, design.scale: as many entries as design.parameters
  (or one for all, or none), each a number or the key's word (`none`; `auto` for scale); lower <=
  upper entry by entry, max_change and scale > 0. Fills has_* and the values per design entry.
*/
PetscErrorCode FGCaseCheckDesignBounds_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGCase     *c    = ctx->c;
  const char *key  = strrchr(ref->path, '.') + 1, *word = strcmp(key, "scale") ? "none" : "auto";
  PetscBool   positive = (PetscBool)(!strcmp(key, "max_change") || !strcmp(key, "scale"));
  PetscInt    n;
  char (*text)[32];
  PetscBool *has;
  PetscReal *val;
  char       where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (!strcmp(key, "lower")) n = c->design.n_lower, text = c->design.lower_text, has = c->design.has_lower, val = c->design.lower;
  else if (!strcmp(key, "upper")) n = c->design.n_upper, text = c->design.upper_text, has = c->design.has_upper, val = c->design.upper;
  else if (!strcmp(key, "max_change")) n = c->design.n_max_change, text = c->design.max_change_text, has = c->design.has_max_change, val = c->design.max_change;
  else n = c->design.n_scale, text = c->design.scale_text, has = c->design.has_scale, val = c->design.scale;
  for (PetscInt i = 0; i < FG_CASE_MAX_DESIGN; i++) has[i] = PETSC_FALSE, val[i] = 0;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseOptimWhere_Private(ctx, ref, where, sizeof(where)));
  PetscCheck(n == 1 || n == c->design.n, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " entries, but design.parameters has %" PetscInt_FMT " (give one per entry, or one for all)", where, n, c->design.n);
  for (PetscInt i = 0; i < c->design.n; i++) {
    const char *t = text[n == 1 ? 0 : i];
    PetscReal   v;
    if (!strcmp(t, word)) continue;
    PetscCheck(FGCaseOptimNumber_Private(t, &v), ctx->comm, FG_ERR_INPUT, "%s: entry %" PetscInt_FMT " '%s': not a number or `%s`", where, (n == 1 ? 0 : i) + 1, t, word);
    PetscCheck(!positive || v > 0, ctx->comm, FG_ERR_INPUT, "%s: entry %" PetscInt_FMT " (%s): %s must be > 0", where, (n == 1 ? 0 : i) + 1, c->design.parameters[i], t);
    has[i] = PETSC_TRUE, val[i] = v;
  }
  if (!strcmp(key, "upper"))
    for (PetscInt i = 0; i < c->design.n; i++)
      PetscCheck(!(c->design.has_lower[i] && c->design.has_upper[i]) || c->design.lower[i] <= c->design.upper[i], ctx->comm, FG_ERR_INPUT,
                 "%s: %s: the lower bound %g is above the upper bound %g (design.lower, design.upper)", where, c->design.parameters[i], (double)c->design.lower[i], (double)c->design.upper[i]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static FGConstraintCase *FGCaseConstraint_Private(FGCaseCtx ctx, const FGKeyRef *ref)
{
  return (FGConstraintCase *)FGCaseInstance_Internal(ctx, ref);
}

static PetscBool FGCaseConstraintIsFlow_Private(FGConstraintKind k)
{
  return (PetscBool)(k == FG_CON_LIFT || k == FG_CON_DRAG || k == FG_CON_MOMENT);
}

PetscErrorCode FGCaseCheckConstraintKind_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGConstraintCase *k = FGCaseConstraint_Private(ctx, ref);
  char                    where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  PetscCall(FGCaseOptimWhere_Private(ctx, ref, where, sizeof(where)));
  PetscCheck(!(k->kind == FG_CON_AREA && ctx->dim != 2), ctx->comm, FG_ERR_INPUT, "%s: area is for 2D cases; this one is %" PetscInt_FMT "D (use volume)", where, ctx->dim);
  PetscCheck(!(k->kind == FG_CON_VOLUME && ctx->dim != 3), ctx->comm, FG_ERR_INPUT, "%s: volume is for 3D cases; this one is 2D (use area)", where);
  PetscCheck(!(k->kind == FG_CON_THICKNESS && ctx->dim != 2), ctx->comm, FG_ERR_INPUT, "%s: thickness is for 2D airfoils", where);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGCaseComputeConstraintBody_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGConstraintCase  *k   = FGCaseConstraint_Private(ctx, ref);
  const FGKeyFamily *fam = FGCaseFamilyOfSection_Internal("body", 4);
  char               names[512];

  PetscFunctionBeginUser;
  if (ctx->c->nbodies == 1) {
    PetscCall(PetscStrncpy(k->body, ctx->c->body[0].name, sizeof(k->body)));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(ctx->c->nbodies, ctx->comm, FG_ERR_INPUT, "%s: a %s constraint measures a body, and the case has no bodies", k->where, FGConstraintKindNames[k->kind]);
  PetscCall(FGCaseInstancesString_Internal(ctx, fam, names, sizeof(names)));
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: missing required key body: the case has %" PetscInt_FMT " bodies (%s); name the one the %s constraint measures", k->where, ctx->c->nbodies, names, FGConstraintKindNames[k->kind]);
}

/* The body exists and has the right kind of shape for the constraint. */
PetscErrorCode FGCaseCheckConstraintBody_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGConstraintCase *k = FGCaseConstraint_Private(ctx, ref);
  PetscInt                b = FGCaseOptimIndex_Private(ctx, "body", k->body);
  char                    where[FG_CASE_WHERE_LEN];
  FGBodyShape             sh;

  PetscFunctionBeginUser;
  PetscCall(FGCaseOptimWhere_Private(ctx, ref, where, sizeof(where)));
  if (b < 0) {
    const FGKeyFamily *fam = FGCaseFamilyOfSection_Internal("body", 4);
    char               names[512];
    PetscCall(FGCaseInstancesString_Internal(ctx, fam, names, sizeof(names)));
    PetscCheck(names[0], ctx->comm, FG_ERR_INPUT, "%s: the case has no body %s: it has no bodies", where, k->body);
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: the case has no body %s (its bodies: %s)", where, k->body, names);
  }
  sh = ctx->c->body[b].shape;
  switch (k->kind) {
  case FG_CON_AREA:
  case FG_CON_VOLUME:
  case FG_CON_CENTROID:
    PetscCheck(sh != FG_BODY_DENSITY, ctx->comm, FG_ERR_INPUT, "%s: body %s is a density body: constrain its volume_fraction (area, volume and centroid are for shape bodies)", where, k->body);
    break;
  case FG_CON_THICKNESS:
    PetscCheck(sh == FG_BODY_CST || sh == FG_BODY_NACA, ctx->comm, FG_ERR_INPUT, "%s: body %s is a %s: thickness is for airfoils (cst, naca)", where, k->body, FGBodyShapeNames[sh]);
    break;
  case FG_CON_VOLUME_FRACTION:
    PetscCheck(sh == FG_BODY_DENSITY, ctx->comm, FG_ERR_INPUT, "%s: body %s is a %s: volume_fraction is for density bodies", where, k->body, FGBodyShapeNames[sh]);
    break;
  default:
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGCaseComputeConstraintRelation_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGConstraintCase *k = FGCaseConstraint_Private(ctx, ref);

  PetscFunctionBeginUser;
  switch (k->kind) {
  case FG_CON_THICKNESS:
  case FG_CON_LIFT:
    k->relation = FG_REL_GE;
    break;
  case FG_CON_VOLUME_FRACTION:
  case FG_CON_DRAG:
    k->relation = FG_REL_LE;
    break;
  default:
    k->relation = FG_REL_EQ;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGCaseCheckConstraintRelation_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGConstraintCase *k = FGCaseConstraint_Private(ctx, ref);
  char                    where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (k->kind != FG_CON_CENTROID || k->relation == FG_REL_EQ) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseOptimWhere_Private(ctx, ref, where, sizeof(where)));
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: a centroid constraint keeps the centroid fixed: relation eq only", where);
}

/* `initial` or a number; a volume fraction in (0, 1) (else no design can meet it), a thickness > 0. */
PetscErrorCode FGCaseCheckConstraintValue_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGConstraintCase *k = FGCaseConstraint_Private(ctx, ref);
  char              where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  PetscCall(FGCaseOptimWhere_Private(ctx, ref, where, sizeof(where)));
  k->value_initial = (PetscBool)!strcmp(k->value_text, "initial");
  k->value         = 0;
  if (k->value_initial) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(FGCaseOptimNumber_Private(k->value_text, &k->value), ctx->comm, FG_ERR_INPUT, "%s: '%s': not a number or `initial`", where, k->value_text);
  PetscCheck(k->kind != FG_CON_CENTROID, ctx->comm, FG_ERR_INPUT, "%s: a centroid constraint keeps the initial centroid: value `initial` only", where);
  PetscCheck(k->kind != FG_CON_VOLUME_FRACTION || (k->value > 0 && k->value < 1), ctx->comm, FG_ERR_INPUT,
             "%s: %s: a volume fraction must be in (0, 1): no design can meet this constraint", where, k->value_text);
  PetscCheck(!(k->kind == FG_CON_THICKNESS || k->kind == FG_CON_AREA || k->kind == FG_CON_VOLUME) || k->value > 0, ctx->comm, FG_ERR_INPUT, "%s: %s: the %s must be > 0", where, k->value_text, FGConstraintKindNames[k->kind]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool FGCaseConstraintApplies_Private(FGCaseCtx ctx, const FGKeyRef *ref, PetscBool ok, const char *what, char *why, size_t len)
{
  if (!ok) snprintf(why, len, "%s is for %s constraints; constraint %s is a %s", strrchr(ref->path, '.') + 1, what, FGCaseConstraint_Private(ctx, ref)->name, FGConstraintKindNames[FGCaseConstraint_Private(ctx, ref)->kind]);
  return ok;
}

PetscBool FGCaseAppliesConstraintThickness_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseConstraintApplies_Private(ctx, ref, (PetscBool)(FGCaseConstraint_Private(ctx, ref)->kind == FG_CON_THICKNESS), "thickness", why, len);
}

PetscBool FGCaseAppliesConstraintFraction_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseConstraintApplies_Private(ctx, ref, (PetscBool)(FGCaseConstraint_Private(ctx, ref)->kind == FG_CON_VOLUME_FRACTION), "volume_fraction", why, len);
}

PetscBool FGCaseAppliesConstraintFlow_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseConstraintApplies_Private(ctx, ref, FGCaseConstraintIsFlow_Private(FGCaseConstraint_Private(ctx, ref)->kind), "lift, drag and moment", why, len);
}

PetscErrorCode FGCaseCheckConstraintTime_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGConstraintCase *k = FGCaseConstraint_Private(ctx, ref);
  char                    where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (!FGCaseConstraintIsFlow_Private(k->kind) || k->time != FG_OBJ_TIME_INSTANT) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseOptimWhere_Private(ctx, ref, where, sizeof(where)));
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: a constraint takes the average or the final value (instant is not offered)", where);
}

PetscErrorCode FGCaseCheckConstraintWindow_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGConstraintCase *k = FGCaseConstraint_Private(ctx, ref);
  const PetscReal         T = (PetscReal)ctx->c->time.steps * ctx->c->time.dt;
  char                    where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (!FGCaseConstraintIsFlow_Private(k->kind) || !k->n_window) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseOptimWhere_Private(ctx, ref, where, sizeof(where)));
  PetscCheck(k->time == FG_OBJ_TIME_AVERAGE, ctx->comm, FG_ERR_INPUT, "%s: a window is for time: average", where);
  PetscCheck(k->window[0] < k->window[1], ctx->comm, FG_ERR_INPUT, "%s: [%g, %g]: the window [t0, t1] must end after it starts (t0 < t1)", where, (double)k->window[0], (double)k->window[1]);
  PetscCheck(k->window[1] <= T * (1 + 1e-12), ctx->comm, FG_ERR_INPUT, "%s: [%g, %g]: the window ends after the run (time.steps * time.dt = %g)", where, (double)k->window[0], (double)k->window[1], (double)T);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "key=value" with a key of the flow condition (not of the optimization itself). */
PetscErrorCode FGCaseCheckPointSet_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGPointCase *pt = (const FGPointCase *)FGCaseInstance_Internal(ctx, ref);
  const char *const  banned[] = {"design.", "constraints.", "optimizer.", "points.", "output.", "name=", "adjoint."};
  char               where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  PetscCall(FGCaseOptimWhere_Private(ctx, ref, where, sizeof(where)));
  for (PetscInt i = 0; i < pt->nset; i++) {
    const char *eq = strchr(pt->set[i], '=');
    PetscCheck(eq && eq != pt->set[i] && eq[1], ctx->comm, FG_ERR_INPUT, "%s: entry %" PetscInt_FMT " '%s': not key=value (as --set takes it)", where, i + 1, pt->set[i]);
    for (size_t b = 0; b < sizeof(banned) / sizeof(banned[0]); b++)
      PetscCheck(strncmp(pt->set[i], banned[b], strlen(banned[b])), ctx->comm, FG_ERR_INPUT, "%s: entry %" PetscInt_FMT " '%s': a point sets its flow condition; %.*s keys are the optimization's own", where, i + 1, pt->set[i],
                 (int)(strlen(banned[b]) - 1), banned[b]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Constraints need a method that handles them (almm, penalty, or auto, which picks penalty). */
PetscErrorCode FGCaseCheckOptimizerType_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGCase *c = ctx->c;
  char          where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (!c->nconstraints || c->optimizer.type == FG_OPT_AUTO || c->optimizer.type == FG_OPT_ALMM || c->optimizer.type == FG_OPT_PENALTY) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %s cannot handle constraints, and the case has %" PetscInt_FMT " (constraints.*): use almm or penalty (or auto)", where, FGOptimizerTypeNames[c->optimizer.type], c->nconstraints);
}
