/*
  Objectives (objective.<name> in the case file; include/fg/adjoint.h).

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
  the enstrophy 1/2 sum omega^2 dV over the cell edges in a box (FGObjectiveEnstrophy_Private),
  1/2 sum (u_a - u_target,a)^2 dV over the faces in a box (u_target from a fields file),
  1/2 |u(probe) - u_obs(t_n)|^2 with u_obs constant (target) or interpolated linearly in time from
  a history.csv (observations: columns time and PROBE_u, PROBE_v[, PROBE_w]), and the dissipated
  power P = -sum (p + |u|^2/2) u.n dA over the inflow and outflow faces
  (FGObjectiveDissipation_Private).

  The reverse sweep asks for dJ/dq_i(n) times dq/d(state at step n) (FGObjectiveAdjointState) and
  dq/d(step n's forces) (FGObjectiveAdjointForces).
*/
#ifndef _POSIX_C_SOURCE
  #define _POSIX_C_SOURCE 200809L /* strtok_r */
#endif
#include <fg/adjoint.h>
#include <fg/io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

typedef struct {
  const FGObjectiveCase *oc;
  PetscInt               body, probe, nq; /* nq quantities: 2 for neg_lift_drag ([Cl, Cd]) */
  PetscReal             *q[2];            /* q[k][n], n = 0..N (0 unused) */
  PetscReal              T[2], dJdT[2], value; /* T[k] = T(q_k); value = J_i */
  PetscInt               nobs;
  PetscReal             *tobs, *uobs; /* observations: times, velocity [nobs][dim] */
  Vec                    target[3];   /* field_tracking: the target velocity (global Vecs) */
} FGObjTerm;

struct _p_FGObjective {
  FGSolver  s;
  FGDesign  d;
  PetscInt  nterms, n, cap; /* steps recorded */
  FGObjTerm term[FG_CASE_MAX_OBJECTIVES];
  PetscReal *t;             /* t[n] */
  PetscReal *omega[FG_CASE_MAX_OBJECTIVES];
  PetscReal J;
  Vec       ul[3], pl;
  Vec       pw;     /* dissipation: the pressure with its ghosts (local work vector) */
  PetscBool steady; /* FGObjectiveSetSteady */
};

static PetscErrorCode FGObjectiveReadObservations_Private(FGObjective o, FGObjTerm *tm)
{
  MPI_Comm       comm = o->s->comm;
  const PetscInt dim  = o->s->grid->dim;
  PetscMPIInt    rank;
  char           msg[512] = "";
  PetscInt       n = 0;
  PetscReal     *buf = NULL;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    FILE    *f = fopen(tm->oc->observations, "r");
    char     line[65536], *tok, *save;
    PetscInt col[4] = {-1, -1, -1, -1}, ncol = 0, cap = 0;
    if (!f) PetscCall(PetscSNPrintf(msg, sizeof(msg), "cannot open %s: %s", tm->oc->observations, strerror(errno)));
    else if (!fgets(line, sizeof(line), f)) PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s is empty", tm->oc->observations));
    else {
      const char *pn = o->s->c->probe[tm->probe].name;
      for (tok = strtok_r(line, ",\r\n", &save); tok; tok = strtok_r(NULL, ",\r\n", &save), ncol++) {
        char want[FG_CASE_NAME_LEN + 4];
        if (!strcmp(tok, "time")) col[0] = ncol;
        for (PetscInt a = 0; a < dim; a++) {
          snprintf(want, sizeof(want), "%s_%c", pn, "uvw"[a]);
          if (!strcmp(tok, want)) col[1 + a] = ncol;
        }
      }
      for (PetscInt a = 0; a <= dim && !msg[0]; a++)
        if (col[a] < 0) PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s has no column %s%s%c", tm->oc->observations, a ? pn : "time", a ? "_" : "", a ? "uvw"[a - 1] : ' '));
      while (!msg[0] && fgets(line, sizeof(line), f)) {
        PetscReal v[4] = {0, 0, 0, 0};
        PetscInt  k = 0, got = 0;
        const char *q = line;
        while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n') q++;
        if (!*q) continue; /* a blank line (at the end of a file, say) */
        if (n + 1 > cap) {
          PetscReal *nb;
          cap = PetscMax(2 * cap, 256);
          nb  = (PetscReal *)realloc(buf, sizeof(PetscReal) * 4 * (size_t)cap); /* no PetscCall on one rank: the others wait in the Bcast */
          if (!nb) {
            snprintf(msg, sizeof(msg), "out of memory reading the file");
            break;
          }
          buf = nb;
        }
        for (tok = strtok_r(line, ",\r\n", &save); tok; tok = strtok_r(NULL, ",\r\n", &save), k++)
          for (PetscInt a = 0; a <= dim; a++)
            if (col[a] == k) {
              char *end;
              v[a] = strtod(tok, &end);
              if (end != tok) got++;
            }
        if (got != dim + 1) PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: line %" PetscInt_FMT ": expected numbers in columns time and %s_u..", tm->oc->observations, n + 2, pn));
        else if (n && v[0] <= buf[4 * (n - 1)]) PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: line %" PetscInt_FMT ": times must increase", tm->oc->observations, n + 2));
        for (PetscInt a = 0; a < 4; a++) buf[4 * n + a] = v[a];
        n++;
      }
      if (!msg[0] && n < 1) PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s has no data rows", tm->oc->observations));
    }
    if (f) fclose(f);
  }
  PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, comm));
  if (msg[0]) free(buf);
  PetscCheck(!msg[0], comm, FG_ERR_INPUT, "%s.observations: %s", tm->oc->where, msg);
  PetscCallMPI(MPI_Bcast(&n, 1, MPIU_INT, 0, comm));
  tm->nobs = n;
  PetscCall(PetscMalloc2(n, &tm->tobs, n * dim, &tm->uobs));
  {
    PetscReal *all;
    PetscCall(PetscMalloc1(4 * n, &all));
    if (!rank) PetscCall(PetscArraycpy(all, buf, 4 * n));
    free(buf);
    PetscCallMPI(MPI_Bcast(all, (PetscMPIInt)(4 * n), MPIU_REAL, 0, comm));
    for (PetscInt i = 0; i < n; i++) {
      tm->tobs[i] = all[4 * i];
      for (PetscInt a = 0; a < dim; a++) tm->uobs[i * dim + a] = all[4 * i + 1 + a];
    }
    PetscCall(PetscFree(all));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGObjectiveCreate - the case's objective terms (at least one; FGObjectiveCreateTerms with
  s->c->objective). Collective.
@*/
PetscErrorCode FGObjectiveCreate(FGSolver s, FGDesign d, FGObjective *obj)
{
  const FGCase *c = s->c;

  PetscFunctionBeginUser;
  PetscCheck(c->nobjectives > 0, s->comm, FG_ERR_INPUT, "%s: the case has no objective (objective.<name>: see README.md, \"Adjoint\")", c->file);
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
      if (oc->observations[0]) PetscCall(FGObjectiveReadObservations_Private(o, tm));
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

/* Observed velocity at time t (linear interpolation, constant beyond the ends). */
static void FGObjectiveObserved_Private(const FGObjTerm *tm, PetscInt dim, PetscReal t, PetscReal u[])
{
  PetscInt i = 0;
  if (!tm->nobs) {
    for (PetscInt a = 0; a < dim; a++) u[a] = tm->oc->target[a];
    return;
  }
  if (t <= tm->tobs[0] || tm->nobs == 1) {
    for (PetscInt a = 0; a < dim; a++) u[a] = tm->uobs[a];
    return;
  }
  while (i + 1 < tm->nobs && tm->tobs[i + 1] < t) i++;
  if (i + 1 >= tm->nobs) {
    for (PetscInt a = 0; a < dim; a++) u[a] = tm->uobs[(tm->nobs - 1) * dim + a];
    return;
  }
  {
    PetscReal w = (t - tm->tobs[i]) / (tm->tobs[i + 1] - tm->tobs[i]);
    for (PetscInt a = 0; a < dim; a++) u[a] = (1 - w) * tm->uobs[i * dim + a] + w * tm->uobs[(i + 1) * dim + a];
  }
}

/* Is face x (component a) inside the term's region? */
static PetscBool FGObjectiveInRegion_Private(const FGObjectiveCase *oc, PetscInt dim, const PetscReal x[])
{
  if (!oc->n_region) return PETSC_TRUE;
  for (PetscInt d = 0; d < dim; d++)
    if (x[d] < oc->region[d] || x[d] > oc->region[dim + d]) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* 1/2 sum (u - target)^2 dV over the region (reduced; target NULL: 0), or with ubar:
   ubar += w (u - target) dV there. */
static PetscErrorCode FGObjectiveEnergy_Private(FGObjective o, const FGObjectiveCase *oc, Vec target[], PetscReal *ke, PetscReal w, Vec ubar[])
{
  FGGrid       g  = o->s->grid;
  const FGBox *bx = &g->box;
  PetscReal    dV = 1, sum = 0;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < g->dim; d++) dV *= g->h[d];
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *u, *ut = NULL;
    PetscScalar       *ub = NULL;
    PetscCall(VecGetArrayRead(o->s->u[a], &u));
    if (target) PetscCall(VecGetArrayRead(target[a], &ut));
    if (ubar) PetscCall(VecGetArray(ubar[a], &ub));
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
        for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
          const PetscInt idx[3] = {i, j, k}, c = FGBoxOwnedIndex(bx, i, j, k);
          PetscReal      x[3]   = {0, 0, 0};
          for (PetscInt d = 0; d < g->dim; d++) x[d] = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]);
          if (!FGObjectiveInRegion_Private(oc, g->dim, x)) continue;
          {
            const PetscReal du = PetscRealPart(u[c]) - (ut ? PetscRealPart(ut[c]) : 0);
            if (ub) ub[c] += w * du * dV;
            else sum += 0.5 * du * du * dV;
          }
        }
    if (ubar) PetscCall(VecRestoreArray(ubar[a], &ub));
    if (target) PetscCall(VecRestoreArrayRead(target[a], &ut));
    PetscCall(VecRestoreArrayRead(o->s->u[a], &u));
  }
  if (ke) PetscCallMPI(MPI_Allreduce(&sum, ke, 1, MPIU_REAL, MPIU_SUM, o->s->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Enstrophy 1/2 sum_c sum_edges omega_c^2 dV over the region (reduced), omega_c = d u_b/d x_a -
   d u_a/d x_b ((a, b, c) cyclic; 2D: omega_z only) on the cell edges along c at the cells' upper
   corners (2D: the corner (x_{i+1}, y_{j+1})), from the boundary-filled velocity; or with ulbar
   (ghosted): ulbar += w d(...)/d(ul) (the caller applies the fill's adjoint). */
static PetscErrorCode FGObjectiveEnstrophy_Private(FGObjective o, const FGObjectiveCase *oc, PetscReal *E, PetscReal w, Vec ulbar[])
{
  FGSolver           s  = o->s;
  FGGrid             g  = s->grid;
  const FGBox       *bx = &g->box;
  const PetscInt     dim = g->dim;
  const PetscScalar *U[3];
  PetscScalar       *Ub[3] = {NULL, NULL, NULL};
  PetscReal          dV = 1, sum = 0;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < dim; d++) dV *= g->h[d];
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecGetArrayRead(s->ul[a], &U[a]));
    if (ulbar) PetscCall(VecGetArray(ulbar[a], &Ub[a]));
  }
  for (PetscInt c = dim == 2 ? 2 : 0; c < 3; c++) {
    const PetscInt a = (c + 1) % 3, b = (c + 2) % 3; /* omega_c = d u_b/d x_a - d u_a/d x_b */
    const PetscInt sa = bx->s[a], sb = bx->s[b];
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
        for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
          const PetscInt idx[3] = {i, j, k}, m = FGBoxIndex(bx, i, j, k);
          PetscReal      x[3]   = {0, 0, 0}, om;
          for (PetscInt d = 0; d < dim; d++) x[d] = g->x0[d] + ((PetscReal)idx[d] + (d == c ? 0.5 : 1.0)) * g->h[d];
          if (!FGObjectiveInRegion_Private(oc, dim, x)) continue;
          om = PetscRealPart(U[b][m + sa] - U[b][m]) / g->h[a] - PetscRealPart(U[a][m + sb] - U[a][m]) / g->h[b];
          if (ulbar) {
            const PetscReal ob = w * om * dV;
            Ub[b][m + sa] += ob / g->h[a], Ub[b][m] -= ob / g->h[a];
            Ub[a][m + sb] -= ob / g->h[b], Ub[a][m] += ob / g->h[b];
          } else sum += 0.5 * om * om * dV;
        }
  }
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecRestoreArrayRead(s->ul[a], &U[a]));
    if (ulbar) PetscCall(VecRestoreArray(ulbar[a], &Ub[a]));
  }
  if (E) PetscCallMPI(MPI_Allreduce(&sum, E, 1, MPIU_REAL, MPIU_SUM, s->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The dissipated power, the net inflow of mechanical energy through the domain's boundary:

     P = - sum over the boundary faces of (p_b + |u_b|^2/2) (u_b . n) dA      (n outward)

   over the faces of the inflow and outflow sides only (u.n = 0 on wall, lid and slip faces;
   periodic directions have no boundary), from the boundary-filled velocity at s->t and the
   pressure state s->p (kinematic; without bodies the last stage's phi). On the face of cell c
   (the cell next to the boundary along d, c_in the next one inward, c_g the ghost cell beyond):
     u_b . n = +-u_d on the face itself (the lower face: the filled ghost value; the upper one: owned)
     p_b     = (3 p(c) - p(c_in)) / 2, linear extrapolation from the two nearest cell centres
               along the normal (the Poisson closure is no help here: Neumann at inflow faces
               would give p(c), first order; Dirichlet at outflow faces 0, whereas a fully
               developed outflow has p(c) = 0 itself: both would shorten the domain by h/2)
     u_b,a   = the mean of the 4 values of u_a (a tangential) around the face centre: at the
               face indices j_a - 1, j_a of c and of c_g (inflow: the prescribed u_a; outflow:
               the zero-gradient ghosts give the interior values)
   and dA = prod_{t != d} h_t. Reduced over the ranks into *P; or, with ulbar (ghosted, the
   caller applies the fill's adjoint) and plbar (ghosted), += w dP/d(ul, p). The pressure is the
   only gauge-dependent part and sum u.n dA = 0 (a divergence-free field), so a constant added
   to p leaves P unchanged. */
static PetscErrorCode FGObjectiveDissipation_Private(FGObjective o, PetscReal *P, PetscReal w, Vec ulbar[], Vec plbar)
{
  FGSolver           s   = o->s;
  FGGrid             g   = s->grid;
  const FGBox       *bx  = &g->box;
  const PetscInt     dim = g->dim;
  const PetscScalar *U[3], *pr;
  PetscScalar       *Ub[3] = {NULL, NULL, NULL}, *Pb = NULL;
  PetscReal          sum = 0;

  PetscFunctionBeginUser;
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  PetscCall(DMGlobalToLocal(g->da, s->p, INSERT_VALUES, o->pw));
  PetscCall(VecGetArrayRead(o->pw, &pr));
  if (plbar) PetscCall(VecGetArray(plbar, &Pb));
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecGetArrayRead(s->ul[a], &U[a]));
    if (ulbar) PetscCall(VecGetArray(ulbar[a], &Ub[a]));
  }
  for (PetscInt d = 0; d < dim; d++) {
    PetscReal dA = 1;
    if (g->periodic[d]) continue;
    for (PetscInt t = 0; t < dim; t++)
      if (t != d) dA *= g->h[t];
    for (PetscInt side = 0; side < 2; side++) {
      const FGBCKind  kind = s->bc.kind[d][side];
      const PetscReal sgn  = side == FG_FACE_LO ? -1.0 : 1.0; /* u.n = sgn u_d */
      const PetscInt  sd = bx->s[d], in = side == FG_FACE_LO ? sd : -sd;
      PetscInt        lo[3], hi[3];
      if (kind != FG_BC_INFLOW && kind != FG_BC_OUTFLOW) continue;
      if (side == FG_FACE_LO ? bx->lo[d] != 0 : bx->hi[d] != g->n[d]) continue;
      for (PetscInt e = 0; e < 3; e++) lo[e] = bx->lo[e], hi[e] = bx->hi[e];
      lo[d] = side == FG_FACE_LO ? 0 : g->n[d] - 1;
      hi[d] = lo[d] + 1;
      for (PetscInt k = lo[2]; k < hi[2]; k++)
        for (PetscInt j = lo[1]; j < hi[1]; j++)
          for (PetscInt i = lo[0]; i < hi[0]; i++) {
            const PetscInt  c  = FGBoxIndex(bx, i, j, k);
            const PetscInt  cg = c - in;                           /* the ghost cell beyond the face */
            const PetscInt  cf = side == FG_FACE_LO ? c - sd : c; /* the face's normal velocity */
            const PetscReal un = PetscRealPart(U[d][cf]);
            const PetscReal pb = 1.5 * PetscRealPart(pr[c]) - 0.5 * PetscRealPart(pr[c + in]);
            PetscReal       ut[3] = {0, 0, 0}, K = 0.5 * un * un;
            for (PetscInt a = 0; a < dim; a++) {
              const PetscInt sa = bx->s[a];
              if (a == d) continue;
              ut[a] = 0.25 * PetscRealPart(U[a][c] + U[a][c - sa] + U[a][cg] + U[a][cg - sa]);
              K += 0.5 * ut[a] * ut[a];
            }
            if (!ulbar) {
              sum -= (pb + K) * sgn * un * dA;
              continue;
            }
            {
              const PetscReal f = -w * sgn * dA; /* w dP/d(un) = f (pb + K + un^2) */
              Ub[d][cf] += f * (pb + K + un * un);
              Pb[c] += 1.5 * f * un;
              Pb[c + in] -= 0.5 * f * un;
              for (PetscInt a = 0; a < dim; a++) {
                const PetscInt  sa = bx->s[a];
                const PetscReal ga = 0.25 * f * un * ut[a];
                if (a == d) continue;
                Ub[a][c] += ga, Ub[a][c - sa] += ga, Ub[a][cg] += ga, Ub[a][cg - sa] += ga;
              }
            }
          }
    }
  }
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecRestoreArrayRead(s->ul[a], &U[a]));
    if (ulbar) PetscCall(VecRestoreArray(ulbar[a], &Ub[a]));
  }
  if (plbar) PetscCall(VecRestoreArray(plbar, &Pb));
  PetscCall(VecRestoreArrayRead(o->pw, &pr));
  if (P) PetscCallMPI(MPI_Allreduce(&sum, P, 1, MPIU_REAL, MPIU_SUM, s->comm));
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
      PetscCall(FGObjectiveEnergy_Private(o, tm->oc, NULL, &q, 0, NULL));
      break;
    case FG_OBJ_FIELD_TRACKING:
      PetscCall(FGObjectiveEnergy_Private(o, tm->oc, tm->target, &q, 0, NULL));
      break;
    case FG_OBJ_ENSTROPHY:
      PetscCall(FGObjectiveEnstrophy_Private(o, tm->oc, &q, 0, NULL));
      break;
    case FG_OBJ_DISSIPATION:
      PetscCall(FGObjectiveDissipation_Private(o, &q, 0, NULL, NULL));
      break;
    case FG_OBJ_PROBE_TRACKING: {
      PetscReal uo[3];
      FGObjectiveObserved_Private(tm, dim, s->t, uo);
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
      PetscCall(FGObjectiveEnergy_Private(o, oc, NULL, NULL, w, ubar));
      break;
    case FG_OBJ_FIELD_TRACKING:
      PetscCall(FGObjectiveEnergy_Private(o, oc, tm->target, NULL, w, ubar));
      break;
    case FG_OBJ_ENSTROPHY:
      PetscCall(FGObjectiveEnstrophy_Private(o, oc, NULL, w, o->ul));
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
      FGObjectiveObserved_Private(tm, dim, s->t, uo);
      for (PetscInt a = 0; a < dim; a++) PetscCall(FGProbeInterpolateAdjoint(g, (FGLocation)(FG_LOC_FACE_X + a), pc->at, w * (vals[off + a] - uo[a]), o->ul[a]));
      vel = PETSC_TRUE;
    } break;
    case FG_OBJ_DISSIPATION:
      PetscCall(FGObjectiveDissipation_Private(o, NULL, w, o->ul, o->pl));
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
