/*
  The case keys of the objectives and of the design (objective.<name>, design.parameters): which
  keys apply to which objective kind and time functional, a force objective's body by default,
  the checks of an objective's kind, body, probe, region, target or observations file, window,
  ramp, instant, statistic and weight, and of each design parameter (a name of the grammar in
  include/fg/case.h, of an instance this case has, listed once). These are the callbacks of their
  rows in the key table (keys.c), run by validate.c (steps 5 and 6). Like validate.c, every error
  names the file, line and key and is FG_ERR_INPUT on every rank.
*/
#include "caseimpl.h"
#include <fg/iofile.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Objectives: the keys that apply to some kinds, or to one time functional, only. */
#define FG_KIND(k)    (1u << (k))
#define FG_OBJ_FORCES (FG_KIND(FG_OBJ_DRAG) | FG_KIND(FG_OBJ_LIFT) | FG_KIND(FG_OBJ_SIDE) | FG_KIND(FG_OBJ_MOMENT) | FG_KIND(FG_OBJ_NEG_LIFT_DRAG))

static FGObjectiveCase *FGCaseObjective_Private(FGCaseCtx ctx, const FGKeyRef *ref)
{
  return (FGObjectiveCase *)FGCaseInstance_Internal(ctx, ref);
}

/* Whether the key applies to its objective's kind: one of `kinds`, named in `which`. `why` says
   why not, or why it is needed (see FGCaseBodyIs_Private, validate_body.c). */
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
  PetscInt               kt   = FGCaseSibling_Internal(ctx, ref, "time");

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
  kr = FGCaseFind_Internal(ctx, path);
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
    PetscCheck(lo < hi, ctx->comm, FG_ERR_INPUT, "%s: the lower corner must be below the upper corner, and in %c it is not (%s >= %s)", where, FGCaseAxis_Internal[d], slo, shi);
    PetscCheck(lo >= x0 - tol && hi <= x1 + tol, ctx->comm, FG_ERR_INPUT, "%s: the region reaches outside the domain in %c: [%s, %s] is not within [%s, %s]", where, FGCaseAxis_Internal[d], slo, shi, s0, s1);
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
  const PetscInt         kt = FGCaseSibling_Internal(ctx, ref, "target");
  char                   where[FG_CASE_WHERE_LEN], wt[FG_CASE_WHERE_LEN], msg[PETSC_MAX_PATH_LEN + 128];
  PetscBool              ok;

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
  PetscCall(FGIOCheckReadable(ctx->comm, o->observations, msg, sizeof(msg), &ok));
  PetscCheck(ok, ctx->comm, FG_ERR_INPUT, "%s: %s", where, msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* field_tracking's target file must be there now (rank 0 looks; the fields themselves are read,
   and their shape checked, when the objective is set up). */
PetscErrorCode FGCaseCheckObjectiveTargetFile_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGObjectiveCase *o = FGCaseObjective_Private(ctx, ref);
  char                   where[FG_CASE_WHERE_LEN];
  PetscBool              ok;
  char                   msg[PETSC_MAX_PATH_LEN + 128];

  PetscFunctionBeginUser;
  if (o->kind != FG_OBJ_FIELD_TRACKING) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCall(FGIOCheckReadable(ctx->comm, o->target_file, msg, sizeof(msg), &ok));
  PetscCheck(ok, ctx->comm, FG_ERR_INPUT, "%s: %s", where, msg);
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
