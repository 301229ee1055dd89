/*
  Objectives (objective.<name> in the case file; include/fg/objective.h).

  Each term i has a quantity q_i(n) evaluated after every step n = 1..N (end time t_n) and a time
  functional T_i = sum_n omega_n q_i(n):
    average  omega_n = r(t_n) / sum r over the steps with t_n in [t0, t1] (0 elsewhere), where r = 1,
             or with `ramp` R > 0, r = sin^2(pi/2 min(1, (t - t0)/R, (t1 - t)/R)) (a smooth window)
    final    omega_N = 1
    instant  omega_n = 1 for the step ending nearest to `at`
  and J_i = weight S_i with the term's statistic S_i:
    value     S = T(q)
    square    S = T(q^2)
    variance  S = T(q^2) - T(q)^2 (time average only, whose weights sum to 1), computed as
              T((q - T(q))^2) (the same, without the cancellation of the first form)
  except neg_lift_drag: J_i = -weight T(Cl)/T(Cd), and control_cost: J_i = weight (t1 - t0)/2
  sum_k theta_k^2 over the design's control scalars (rotation rates, jet amplitudes, actuator
  forces), a function of p alone. J = sum_i J_i. The exact derivatives with respect to q(n)
  (FGObjectiveStepWeight_Private): weight omega_n times 1, 2 q(n), 2 (q(n) - T(q)).

  Quantities: force coefficients of a body (its penalty force over the step, include/fg/body.h),
  the probe pressure difference p(at) - p(reference), 1/2 sum u_a^2 dV over the faces in a box,
  the enstrophy 1/2 sum omega^2 dV over the cell edges in a box (FGObjectiveEnstrophy_Internal),
  1/2 sum (u_a - u_target,a)^2 dV over the faces in a box (u_target from a fields file),
  1/2 |u(probe) - u_obs(t_n)|^2 with u_obs constant (target) or interpolated linearly in time from
  a history.csv (observations: columns time and PROBE_u, PROBE_v[, PROBE_w]), and the dissipated
  power P = -sum (p + |u|^2/2) u.n dA over the inflow and outflow faces
  (FGObjectiveDissipation_Internal). The sums over the grid and the observations are in
  objective_terms.c.

  The reverse sweep asks for dJ/dq_i(n) times dq/d(state at step n) (FGObjectiveAdjointState) and
  dq/d(step n's forces) (FGObjectiveAdjointForces).
*/
#include "objectiveimpl.h"
#include <fg/io.h>
#include <string.h>

/*@C
  FGObjectiveCreate - the case's objective terms (at least one; FGObjectiveCreateTerms with
  s->c->objective). Collective.
@*/
PetscErrorCode FGObjectiveCreate(FGSolver s, FGDesign d, FGObjective *obj)
{
  const FGCase *c = s->c;

  PetscFunctionBeginUser;
  PetscCheck(c->nobjectives > 0, s->comm, FG_ERR_INPUT, "%s: the case has no objective (objective.<name>: see docs/adjoint.md)", c->file);
  PetscCall(FGObjectiveCreateTerms(s, d, c->nobjectives, c->objective, obj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGObjectiveCreateTerms - an objective J = sum_i J_i of the n terms given (1 <= n <=
  FG_CASE_MAX_OBJECTIVES), e.g. a constraint built in memory (FGObjectiveCase in
  include/fg/case.h: fill every member as the case file would, `where` for messages), resolved
  against the solver's bodies and probes (by name: s->c->body, s->c->probe). The objective keeps
  pointers into terms[]: the array must outlive it (FGObjectiveDestroy). What the case file's
  validation checks for objective.<name> is the caller's business; this checks what the
  objective needs (a body, a probe with a reference, the statistic's kind and time, ...) and
  errs with FG_ERR_INPUT, naming terms[i].where. Collective.
@*/
PetscErrorCode FGObjectiveCreateTerms(FGSolver s, FGDesign d, PetscInt n, const FGObjectiveCase terms[], FGObjective *obj)
{
  FGObjective   o;
  const FGCase *c    = s->c;
  PetscBool     diss = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= FG_CASE_MAX_OBJECTIVES, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "an objective has 1 to %d terms, not %" PetscInt_FMT, FG_CASE_MAX_OBJECTIVES, n);
  PetscCall(PetscNew(&o));
  *obj      = o;
  o->s      = s;
  o->d      = d;
  o->nterms = n;
  for (PetscInt i = 0; i < o->nterms; i++) {
    FGObjTerm             *tm = &o->term[i];
    const FGObjectiveCase *oc = &terms[i];
    tm->oc                    = oc;
    tm->body = tm->probe = -1;
    PetscCheck(oc->kind >= 0 && oc->kind < FG_OBJ_NKINDS, s->comm, FG_ERR_INPUT, "%s: unknown objective kind %d", oc->where, (int)oc->kind);
    tm->nq = oc->kind == FG_OBJ_NEG_LIFT_DRAG ? 2 : 1;
    PetscCheck(oc->statistic == FG_OBJ_STAT_VALUE || (oc->kind != FG_OBJ_NEG_LIFT_DRAG && oc->kind != FG_OBJ_CONTROL_COST), s->comm, FG_ERR_INPUT, "%s: statistic %s: a %s objective has no statistic (value only)", oc->where, FGObjectiveStatisticNames[oc->statistic], FGObjectiveKindNames[oc->kind]);
    PetscCheck(oc->statistic != FG_OBJ_STAT_VARIANCE || oc->time == FG_OBJ_TIME_AVERAGE, s->comm, FG_ERR_INPUT, "%s: statistic variance needs time average, not %s", oc->where, FGObjectiveTimeNames[oc->time]);
    for (PetscInt b = 0; b < c->nbodies; b++)
      if (!strcmp(c->body[b].name, oc->body)) tm->body = b;
    if (tm->body < 0 && c->nbodies == 1 && !oc->body[0]) tm->body = 0;
    for (PetscInt q = 0; q < c->nprobes; q++)
      if (!strcmp(c->probe[q].name, oc->probe)) tm->probe = q;
    switch (oc->kind) {
    case FG_OBJ_DRAG:
    case FG_OBJ_LIFT:
    case FG_OBJ_SIDE:
    case FG_OBJ_MOMENT:
    case FG_OBJ_NEG_LIFT_DRAG:
      PetscCheck(tm->body >= 0, s->comm, FG_ERR_INPUT, "%s: objective kind %s needs a body", oc->where, FGObjectiveKindNames[oc->kind]);
      if (oc->kind == FG_OBJ_MOMENT && c->body[tm->body].shape == FG_BODY_DENSITY && d) {
        PetscInt             nblk;
        const FGDesignBlock *blk;
        PetscCall(FGDesignGetBlocks(d, &nblk, &blk));
        for (PetscInt k = 0; k < nblk; k++)
          PetscCheck(!(blk[k].kind == FG_DESIGN_DENSITY && blk[k].index == tm->body), s->comm, FG_ERR_INPUT,
                     "%s: the moment of density body '%s' is taken about its centroid, which moves with rho (body.%s.density is a design parameter): that derivative is not implemented", oc->where, c->body[tm->body].name, c->body[tm->body].name);
      }
      break;
    case FG_OBJ_PRESSURE_DROP:
      PetscCheck(tm->probe >= 0 && c->probe[tm->probe].has_reference, s->comm, FG_ERR_INPUT, "%s: pressure_drop needs a probe with a reference point", oc->where);
      break;
    case FG_OBJ_PROBE_TRACKING:
      PetscCheck(tm->probe >= 0, s->comm, FG_ERR_INPUT, "%s: probe_tracking needs a probe", oc->where);
      if (oc->observations[0]) PetscCall(FGObjectiveReadObservations_Internal(o, tm));
      break;
    case FG_OBJ_FIELD_TRACKING:
      for (PetscInt a = 0; a < s->grid->dim; a++) {
        PetscCall(VecDuplicate(s->u[a], &tm->target[a]));
        PetscCall(FGIOReadField(s->grid, oc->target_file, (const char *[]){"u", "v", "w"}[a], tm->target[a]));
      }
      break;
    case FG_OBJ_DISSIPATION: {
      PetscBool open = PETSC_FALSE;
      for (PetscInt dd = 0; dd < s->grid->dim; dd++)
        for (PetscInt side = 0; side < 2; side++)
          if (!s->grid->periodic[dd] && (s->bc.kind[dd][side] == FG_BC_INFLOW || s->bc.kind[dd][side] == FG_BC_OUTFLOW)) open = PETSC_TRUE;
      PetscCheck(open, s->comm, FG_ERR_INPUT, "%s: dissipation is the net inflow of mechanical energy through the inflow and outflow faces, and the case has none (it would be 0)", oc->where);
      diss = PETSC_TRUE;
    } break;
    default:
      break;
    }
  }
  for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(DMCreateLocalVector(s->grid->da, &o->ul[a]));
  PetscCall(DMCreateLocalVector(s->grid->da, &o->pl));
  if (diss) PetscCall(DMCreateLocalVector(s->grid->da, &o->pw));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGObjectiveDestroy(FGObjective *obj)
{
  FGObjective o = *obj;

  PetscFunctionBeginUser;
  if (!o) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < o->nterms; i++) {
    PetscCall(PetscFree(o->term[i].q[0]));
    PetscCall(PetscFree(o->term[i].q[1]));
    PetscCall(PetscFree2(o->term[i].tobs, o->term[i].uobs));
    PetscCall(PetscFree(o->omega[i]));
    for (PetscInt a = 0; a < 3; a++) PetscCall(VecDestroy(&o->term[i].target[a]));
  }
  PetscCall(PetscFree(o->t));
  for (PetscInt a = 0; a < 3; a++) PetscCall(VecDestroy(&o->ul[a]));
  PetscCall(VecDestroy(&o->pl));
  PetscCall(VecDestroy(&o->pw));
  PetscCall(PetscFree(*obj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGObjectiveReset(FGObjective o)
{
  PetscFunctionBeginUser;
  o->n = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGObjectiveSetSteady - steady mode (adjoint.mode: steady, src/adjoint/steady.c): every term's
  time functional is its quantity after the last recorded step, the one taken from the steady
  state x* (so the state it sees is F(x*) = x* and the forces are those of a step at x*): the
  weights are omega_N = 1 and 0 elsewhere, whatever the term's time, window and ramp (the time
  functional of a constant is the constant). The terms' weights apply as usual; control_cost keeps
  its length (the window's, or the time of the last step). A term with statistic variance is an
  error (FG_ERR_INPUT): at a steady state it is identically 0.
@*/
PetscErrorCode FGObjectiveSetSteady(FGObjective o, PetscBool steady)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < o->nterms && steady; i++)
    PetscCheck(o->term[i].oc->statistic != FG_OBJ_STAT_VARIANCE, o->s->comm, FG_ERR_INPUT, "%s: statistic variance in steady mode (adjoint.mode steady): the objective is evaluated at the steady state, where its variance is identically 0", o->term[i].oc->where);
  o->steady = steady;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Room for the records of steps 0..cap-1; the new entries are zero (steady mode records one step,
   N + 1, and the time functionals skip the steps without weight). */
static PetscErrorCode FGObjectiveGrow_Private(FGObjective o, PetscInt cap)
{
  const PetscInt old = o->cap;

  PetscFunctionBeginUser;
  o->cap = cap;
  PetscCall(PetscRealloc(sizeof(PetscReal) * o->cap, &o->t));
  PetscCall(PetscArrayzero(o->t + old, cap - old));
  for (PetscInt i = 0; i < o->nterms; i++)
    for (PetscInt k = 0; k < o->term[i].nq; k++) {
      PetscCall(PetscRealloc(sizeof(PetscReal) * o->cap, &o->term[i].q[k]));
      PetscCall(PetscArrayzero(o->term[i].q[k] + old, cap - old));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGObjectiveRecord - evaluate every term's quantity at the solver's state after step s->step.
  Collective.
@*/
PetscErrorCode FGObjectiveRecord(FGObjective o)
{
  FGSolver       s   = o->s;
  const PetscInt dim = s->grid->dim, n = s->step;
  PetscReal      vals[FG_CASE_MAX_PROBES * 5];
  PetscBool      probes = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (n + 1 > o->cap) PetscCall(FGObjectiveGrow_Private(o, PetscMax(2 * o->cap, n + 64)));
  o->n    = n;
  o->t[n] = s->t;
  for (PetscInt i = 0; i < o->nterms; i++) {
    FGObjTerm *tm = &o->term[i];
    if (tm->oc->kind == FG_OBJ_PRESSURE_DROP || tm->oc->kind == FG_OBJ_PROBE_TRACKING) probes = PETSC_TRUE;
  }
  if (probes) PetscCall(FGProbesEvaluate(s, vals));
  for (PetscInt i = 0; i < o->nterms; i++) {
    FGObjTerm   *tm = &o->term[i];
    FGBodyForces F;
    PetscReal    q = 0;
    PetscInt     off = 0;
    if (tm->probe >= 0)
      for (PetscInt p = 0; p < tm->probe; p++) off += dim + 1 + (s->c->probe[p].has_reference ? 1 : 0);
    if (tm->body >= 0) PetscCall(FGBodiesGetForces(s->bodies, tm->body, &F));
    switch (tm->oc->kind) {
    case FG_OBJ_DRAG:
      q = F.coeff[0];
      break;
    case FG_OBJ_LIFT:
      q = F.coeff[1];
      break;
    case FG_OBJ_SIDE:
      q = F.coeff[2];
      break;
    case FG_OBJ_MOMENT:
      q = F.cm;
      break;
    case FG_OBJ_NEG_LIFT_DRAG:
      tm->q[1][n] = F.coeff[0];
      q           = F.coeff[1];
      break;
    case FG_OBJ_PRESSURE_DROP:
      q = vals[off + dim + 1];
      break;
    case FG_OBJ_KINETIC_ENERGY:
      PetscCall(FGObjectiveEnergy_Internal(o, tm->oc, NULL, &q, 0, NULL));
      break;
    case FG_OBJ_FIELD_TRACKING:
      PetscCall(FGObjectiveEnergy_Internal(o, tm->oc, tm->target, &q, 0, NULL));
      break;
    case FG_OBJ_ENSTROPHY:
      PetscCall(FGObjectiveEnstrophy_Internal(o, tm->oc, &q, 0, NULL));
      break;
    case FG_OBJ_DISSIPATION:
      PetscCall(FGObjectiveDissipation_Internal(o, &q, 0, NULL, NULL));
      break;
    case FG_OBJ_PROBE_TRACKING: {
      PetscReal uo[3];
      FGObjectiveObserved_Internal(tm, dim, s->t, uo);
      for (PetscInt a = 0; a < dim; a++) q += 0.5 * PetscSqr(vals[off + a] - uo[a]);
    } break;
    default:
      break;
    }
    tm->q[0][n] = q;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The window weights omega_n of a term over the recorded steps 1..N. */
static PetscErrorCode FGObjectiveWeights_Private(FGObjective o, PetscInt i)
{
  const FGObjectiveCase *oc = o->term[i].oc;
  const PetscInt         N  = o->n;
  PetscReal             *w, sum = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscFree(o->omega[i]));
  PetscCall(PetscCalloc1(N + 1, &o->omega[i]));
  w = o->omega[i];
  PetscCheck(N >= 1, o->s->comm, FG_ERR_INPUT, "%s: the objective needs at least one time step", oc->where);
  if (o->steady) { /* FGObjectiveSetSteady */
    w[N] = 1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  switch (oc->time) {
  case FG_OBJ_TIME_FINAL:
    w[N] = 1;
    break;
  case FG_OBJ_TIME_INSTANT: {
    PetscInt best = 1;
    for (PetscInt n = 1; n <= N; n++)
      if (PetscAbsReal(o->t[n] - oc->at) < PetscAbsReal(o->t[best] - oc->at)) best = n;
    w[best] = 1;
  } break;
  case FG_OBJ_TIME_AVERAGE: {
    PetscReal t0 = oc->n_window ? oc->window[0] : 0, t1 = oc->n_window ? oc->window[1] : o->t[N];
    for (PetscInt n = 1; n <= N; n++) {
      PetscReal t = o->t[n], r = 1;
      if (t < t0 - 1e-12 * (1 + PetscAbsReal(t0)) || t > t1 + 1e-12 * (1 + PetscAbsReal(t1))) continue;
      if (oc->ramp > 0) r = PetscSqr(PetscSinReal(0.5 * PETSC_PI * PetscMin(1.0, PetscMin((t - t0) / oc->ramp, (t1 - t) / oc->ramp))));
      w[n] = r;
      sum += r;
    }
    PetscCheck(sum > 0, o->s->comm, FG_ERR_INPUT, "%s.window: no time step ends in [%g, %g] with a nonzero weight", oc->where, (double)t0, (double)t1);
    for (PetscInt n = 1; n <= N; n++) w[n] /= sum;
  } break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGObjectiveFinish - after the forward run: the time functionals, J (p: the design, for
  control_cost) and the derivatives dJ_i/dT the reverse sweep needs. Collective.
@*/
PetscErrorCode FGObjectiveFinish(FGObjective o, Vec p, PetscReal *J)
{
  PetscFunctionBeginUser;
  o->J = 0;
  for (PetscInt i = 0; i < o->nterms; i++) {
    FGObjTerm             *tm = &o->term[i];
    const FGObjectiveCase *oc = tm->oc;
    PetscCall(FGObjectiveWeights_Private(o, i));
    for (PetscInt k = 0; k < tm->nq; k++) {
      tm->T[k] = 0;
      if (oc->kind != FG_OBJ_CONTROL_COST)
        for (PetscInt n = 1; n <= o->n; n++)
          if (o->omega[i][n] != 0) tm->T[k] += o->omega[i][n] * tm->q[k][n]; /* (steps without weight may hold no record: steady mode) */
    }
    if (oc->kind == FG_OBJ_NEG_LIFT_DRAG) {
      PetscCheck(tm->T[1] != 0, o->s->comm, FG_ERR_NUMERIC, "%s: the drag (time functional) is 0: -lift/drag is undefined", oc->where);
      tm->value   = -oc->weight * tm->T[0] / tm->T[1];
      tm->dJdT[0] = -oc->weight / tm->T[1];
      tm->dJdT[1] = oc->weight * tm->T[0] / (tm->T[1] * tm->T[1]);
    } else if (oc->kind == FG_OBJ_CONTROL_COST) {
      PetscInt   ns;
      PetscReal *v, len = (oc->n_window ? oc->window[1] - oc->window[0] : o->t[o->n]), sum = 0;
      PetscCall(FGDesignGetScalars(o->d, p, &ns, &v));
      for (PetscInt k = 0; k < ns; k++) {
        PetscBool ctl;
        PetscCall(FGDesignIsControl(o->d, k, &ctl));
        if (ctl) sum += v[k] * v[k];
      }
      tm->value = oc->weight * 0.5 * len * sum;
    } else {
      PetscReal S = tm->T[0];
      if (oc->statistic != FG_OBJ_STAT_VALUE) {
        S = 0;
        for (PetscInt n = 1; n <= o->n; n++) {
          const PetscReal dq = oc->statistic == FG_OBJ_STAT_VARIANCE ? tm->q[0][n] - tm->T[0] : tm->q[0][n];
          if (o->omega[i][n] != 0) S += o->omega[i][n] * dq * dq;
        }
      }
      tm->value   = oc->weight * S;
      tm->dJdT[0] = oc->weight;
    }
    o->J += tm->value;
  }
  *J = o->J;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGObjectiveGetTerm - term i's name and J_i (weight times its statistic of its time functional;
  after FGObjectiveFinish). Not collective.
@*/
PetscErrorCode FGObjectiveGetTerm(FGObjective o, PetscInt i, const char **name, PetscReal *value)
{
  PetscFunctionBeginUser;
  if (name) *name = o->term[i].oc->name;
  if (value) *value = o->term[i].value;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dJ/dq_k(n) of term i: weight omega_n (dJdT[k]) times the statistic's derivative, 1 (value),
   2 q(n) (square), 2 (q(n) - T(q)) (variance; exact as long as the weights sum to 1, i.e. to
   round-off: d/dq(n) of sum_m omega_m (q(m) - T)^2 is 2 omega_n (q(n) - T) - 2 omega_n T (1 - sum omega)). */
static PetscReal FGObjectiveStepWeight_Private(FGObjective o, PetscInt i, PetscInt k, PetscInt n)
{
  const FGObjTerm *tm = &o->term[i];
  const PetscReal  w  = tm->dJdT[k] * o->omega[i][n];

  if (w == 0) return 0;
  switch (tm->oc->statistic) {
  case FG_OBJ_STAT_SQUARE:
    return 2 * w * tm->q[k][n];
  case FG_OBJ_STAT_VARIANCE:
    return 2 * w * (tm->q[k][n] - tm->T[k]);
  default:
    return w;
  }
}

/*@C
  FGObjectiveAdjointForces - wacc[6 b + m] = dJ/d(step n's force (m < 3) or moment (m - 3) of body b).
@*/
PetscErrorCode FGObjectiveAdjointForces(FGObjective o, PetscInt n, PetscReal wacc[])
{
  const FGCase *c = o->s->c;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(wacc, 6 * PetscMax(c->nbodies, 1)));
  for (PetscInt i = 0; i < o->nterms; i++) {
    FGObjTerm  *tm = &o->term[i];
    PetscReal   qref, w0, w1;
    const FGBodyCase *bc;
    if (tm->body < 0 || !o->omega[i][n]) continue;
    bc   = &c->body[tm->body];
    qref = 0.5 * bc->ref_speed * bc->ref_speed * bc->ref_area;
    w0   = FGObjectiveStepWeight_Private(o, i, 0, n);
    w1   = tm->nq > 1 ? FGObjectiveStepWeight_Private(o, i, 1, n) : 0;
    switch (tm->oc->kind) {
    case FG_OBJ_DRAG:
      wacc[6 * tm->body + 0] += w0 / qref;
      break;
    case FG_OBJ_LIFT:
      wacc[6 * tm->body + 1] += w0 / qref;
      break;
    case FG_OBJ_SIDE:
      wacc[6 * tm->body + 2] += w0 / qref;
      break;
    case FG_OBJ_MOMENT:
      wacc[6 * tm->body + 5] += w0 / (qref * bc->ref_length);
      break;
    case FG_OBJ_NEG_LIFT_DRAG:
      wacc[6 * tm->body + 1] += w0 / qref;
      wacc[6 * tm->body + 0] += w1 / qref;
      break;
    default:
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGObjectiveAdjointState - add dJ/d(state after step n) to ubar, pbar (global Vecs), the solver
  holding that state; *inflowbar += the local part through the boundary values probes read.
  Collective.
@*/
PetscErrorCode FGObjectiveAdjointState(FGObjective o, PetscInt n, Vec ubar[], Vec pbar, PetscReal *inflowbar)
{
  FGSolver       s   = o->s;
  FGGrid         g   = s->grid;
  const PetscInt dim = g->dim;
  PetscBool      vel = PETSC_FALSE, pres = PETSC_FALSE, probed = PETSC_FALSE;
  PetscReal      vals[FG_CASE_MAX_PROBES * 5];

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(o->ul[a], 0.0));
  PetscCall(VecSet(o->pl, 0.0));
  for (PetscInt i = 0; i < o->nterms; i++) {
    FGObjTerm             *tm = &o->term[i];
    const FGObjectiveCase *oc = tm->oc;
    const PetscReal        w  = FGObjectiveStepWeight_Private(o, i, 0, n);
    if (w == 0 || oc->kind == FG_OBJ_CONTROL_COST) continue;
    switch (oc->kind) {
    case FG_OBJ_KINETIC_ENERGY:
      PetscCall(FGObjectiveEnergy_Internal(o, oc, NULL, NULL, w, ubar));
      break;
    case FG_OBJ_FIELD_TRACKING:
      PetscCall(FGObjectiveEnergy_Internal(o, oc, tm->target, NULL, w, ubar));
      break;
    case FG_OBJ_ENSTROPHY:
      PetscCall(FGObjectiveEnstrophy_Internal(o, oc, NULL, w, o->ul));
      vel = PETSC_TRUE;
      break;
    case FG_OBJ_PRESSURE_DROP: {
      const FGProbeCase *pc = &s->c->probe[tm->probe];
      PetscCall(FGProbeInterpolateAdjoint(g, FG_LOC_CELL, pc->at, w, o->pl));
      PetscCall(FGProbeInterpolateAdjoint(g, FG_LOC_CELL, pc->reference, -w, o->pl));
      pres = PETSC_TRUE;
    } break;
    case FG_OBJ_PROBE_TRACKING: {
      const FGProbeCase *pc  = &s->c->probe[tm->probe];
      PetscInt           off = 0;
      PetscReal          uo[3];
      for (PetscInt p = 0; p < tm->probe; p++) off += dim + 1 + (s->c->probe[p].has_reference ? 1 : 0);
      if (!probed) PetscCall(FGProbesEvaluate(s, vals));
      probed = PETSC_TRUE;
      FGObjectiveObserved_Internal(tm, dim, s->t, uo);
      for (PetscInt a = 0; a < dim; a++) PetscCall(FGProbeInterpolateAdjoint(g, (FGLocation)(FG_LOC_FACE_X + a), pc->at, w * (vals[off + a] - uo[a]), o->ul[a]));
      vel = PETSC_TRUE;
    } break;
    case FG_OBJ_DISSIPATION:
      PetscCall(FGObjectiveDissipation_Internal(o, NULL, w, o->ul, o->pl));
      vel = pres = PETSC_TRUE;
      break;
    default:
      break;
    }
  }
  if (vel) {
    PetscCall(FGOpFillBoundaryAdjoint(g, &s->bc, s->t, o->ul, inflowbar));
    for (PetscInt a = 0; a < dim; a++) PetscCall(DMLocalToGlobal(g->da, o->ul[a], ADD_VALUES, ubar[a]));
  }
  if (pres) PetscCall(DMLocalToGlobal(g->da, o->pl, ADD_VALUES, pbar));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGObjectiveAdjointDesign - g += dJ/dp of the terms that depend on p directly (control_cost).
@*/
PetscErrorCode FGObjectiveAdjointDesign(FGObjective o, Vec p, Vec g)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(o->s->comm, &rank));
  for (PetscInt i = 0; i < o->nterms; i++) {
    const FGObjectiveCase *oc = o->term[i].oc;
    PetscInt               ns;
    PetscReal             *v, len;
    if (oc->kind != FG_OBJ_CONTROL_COST) continue;
    len = oc->n_window ? oc->window[1] - oc->window[0] : o->t[o->n];
    PetscCall(FGDesignGetScalars(o->d, p, &ns, &v));
    {
      PetscScalar *g_;
      PetscCall(VecGetArray(g, &g_)); /* on every rank: keeps PETSc's cached norms consistent */
      for (PetscInt k = 0; k < ns && !rank; k++) {
        PetscBool ctl;
        PetscCall(FGDesignIsControl(o->d, k, &ctl));
        if (ctl) g_[k] += oc->weight * len * v[k];
      }
      PetscCall(VecRestoreArray(g, &g_));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGObjectiveRecordSize - the length of the record of the first n steps (FGObjectiveGetRecord):
  n (1 + the number of quantities of all terms).

  Not collective.
@*/
PetscInt FGObjectiveRecordSize(FGObjective o, PetscInt n)
{
  PetscInt nq = 1;
  for (PetscInt i = 0; i < o->nterms; i++) nq += o->term[i].nq;
  return n * nq;
}

/*@C
  FGObjectiveGetRecord - the values recorded after steps 1..n (n <= the steps recorded): per step
  its end time, then every term's quantities, for a checkpoint (FGObjectiveSetRecord restores
  them, so the objective and its adjoint need not repeat the forward run).

  Not collective.
@*/
PetscErrorCode FGObjectiveGetRecord(FGObjective o, PetscInt n, PetscReal buf[])
{
  PetscInt j = 0;

  PetscFunctionBeginUser;
  PetscCheck(n <= o->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "asked for the record of %" PetscInt_FMT " steps, %" PetscInt_FMT " recorded", n, o->n);
  for (PetscInt m = 1; m <= n; m++) {
    buf[j++] = o->t[m];
    for (PetscInt i = 0; i < o->nterms; i++)
      for (PetscInt k = 0; k < o->term[i].nq; k++) buf[j++] = o->term[i].q[k][m];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGObjectiveSetRecord - replace the record by the one of steps 1..n (FGObjectiveGetRecord).

  Not collective.
@*/
PetscErrorCode FGObjectiveSetRecord(FGObjective o, PetscInt n, const PetscReal buf[])
{
  PetscInt j = 0;

  PetscFunctionBeginUser;
  if (n + 1 > o->cap) PetscCall(FGObjectiveGrow_Private(o, n + 64));
  o->n = n;
  for (PetscInt m = 1; m <= n; m++) {
    o->t[m] = buf[j++];
    for (PetscInt i = 0; i < o->nterms; i++)
      for (PetscInt k = 0; k < o->term[i].nq; k++) o->term[i].q[k][m] = buf[j++];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
