/*
  One time step: low-storage third-order Runge-Kutta (Wray 1986, as in CaNS) with a pressure
  projection in every stage.

  Semi-discrete system: du/dt = P H(u, t), H(u) = -A(u) + nu L(u) + f, P = I - G L_p^{-1} D the
  discrete projection onto divergence-free fields (L_p = D G). For stage k = 1, 2, 3:

    u*      = u^{k-1} + dt ( alpha_k H(u^{k-1}) + beta_k H(u^{k-2}) )
    L_p phi = D u* / (gamma_k dt)                    gamma_k = alpha_k + beta_k
    u^k     = u* - gamma_k dt G phi,      p^k = phi

  alpha = (8/15, 5/12, 3/4), beta = (0, -17/60, -5/12), stage times t + (0, 8/15, 2/3) dt.

  With bodies, u* is penalized implicitly before the projection (include/fg/body.h):
  u* <- (u* + gamma_k dt sum chi/eta u_s) / (1 + gamma_k dt sum chi/eta), and the pressure is
  incremental: u* also gets -gamma_k dt G p^{k-1}, the projection finds the increment phi and
  p^k = p^{k-1} + phi. Without a penalty this is the same scheme (P G = 0: the projected velocity
  is unchanged, and p^k = phi_k up to round-off). With one it makes a steady state a fixed point of
  every stage (u^k = u, phi = 0), at which chi/eta (u - u_s) = H - G p holds face by face: the
  penalty force then equals the discrete momentum balance of any control volume. With the
  non-incremental form each stage's projection pushes flow back into the penalized band by
  O(1/(gamma_k dt)), and the stages of a steady state differ (a 5% larger drag on a cylinder).
  Since P is linear and idempotent and u^{k-1} is divergence free, this is exactly RK3 applied
  to du/dt = P H(u): third order in time for the velocity (with boundary data fixed in time).
*/
#include <fg/solver.h>

static const PetscReal FG_RK3_ALPHA[3] = {8.0 / 15.0, 5.0 / 12.0, 3.0 / 4.0};
static const PetscReal FG_RK3_BETA[3]  = {0.0, -17.0 / 60.0, -5.0 / 12.0};
static const PetscReal FG_RK3_C[4]     = {0.0, 8.0 / 15.0, 2.0 / 3.0, 1.0};

/* H = -A(ul) + nu Lap(ul) + f on the interior faces, the outflow condition on outflow faces. */
static PetscErrorCode FGMomentumRHS_Private(FGSolver s, PetscReal t, Vec H[])
{
  PetscFunctionBeginUser;
  PetscCall(FGOpMomentum(s->grid, &s->bc, s->nu, s->ul, H)); /* -A + nu L in one sweep, 0 elsewhere */
  PetscCall(FGOpOutflow(s->grid, &s->bc, s->ul, H));
  if (s->forcefn) PetscCall(s->forcefn(s, t, H, s->forcectx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Constant body force on the interior faces. */
static PetscErrorCode FGAddForce_Private(FGSolver s, Vec H[])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    PetscScalar *h;
    PetscInt     lo[3], hi[3];
    if (s->force[a] == 0.0) continue;
    FGOpInteriorFaces(s->grid, &s->bc, a, lo, hi);
    PetscCall(VecGetArray(H[a], &h));
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) h[FGBoxOwnedIndex(&s->grid->box, i, j, k)] += s->force[a];
    PetscCall(VecRestoreArray(H[a], &h));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* u <- u + dt (alpha H + beta Hold) (H = 0 on prescribed faces, so they keep their values). */
static PetscErrorCode FGAdvance_Private(FGSolver s, PetscInt k)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(VecAXPBYPCZ(s->u[a], s->dt * FG_RK3_ALPHA[k], s->dt * FG_RK3_BETA[k], 1.0, s->H[a], s->Hold[a]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGSwapRHS_Private(FGSolver s)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    Vec tmp    = s->Hold[a];
    s->Hold[a] = s->H[a];
    s->H[a]    = tmp;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solve L_p phi = D u / (gamma dt), correct u <- u - gamma dt G phi. */
static PetscErrorCode FGProject_Private(FGSolver s, PetscReal gdt, PetscReal t)
{
  PetscFunctionBeginUser;
  PetscCall(FGSolverFillGhosts(s, s->u, t));
  PetscCall(FGOpDivergence(s->grid, s->ul, s->div));
  PetscCall(VecScale(s->div, 1.0 / gdt));
  PetscCall(FGPoissonSolve(s->poisson, s->div, s->phi));
  PetscCall(DMGlobalToLocal(s->grid->da, s->phi, INSERT_VALUES, s->phil));
  PetscCall(FGOpGradientCorrect(s->grid, &s->bc, gdt, s->phil, s->u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGViscousTimeStepLimit - the largest dt for which the explicit viscous term is stable in RK3:
  its stability polynomial 1 + z + z^2/2 + z^3/6 covers [-2.5127, 0] of the real axis, and the
  most negative eigenvalue of nu L is -nu sum_d 4/h_d^2.
@*/
PetscReal FGViscousTimeStepLimit(const FGCase *c)
{
  PetscReal lam = 0;
  for (PetscInt d = 0; d < c->grid.dim; d++) {
    const PetscReal h = c->grid.lengths[d] / (PetscReal)c->grid.cells[d];
    lam += 4.0 / (h * h);
  }
  return 2.5127 / (c->flow.nu * lam);
}

/*@C
  FGStepForward_RK3 - advance the state by one step of size s->dt.
@*/
PetscErrorCode FGStepForward_RK3(FGSolver s)
{
  const PetscReal t0 = s->t, dt = s->dt;
  PetscInt        nb;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_Step, 0, 0, 0, 0));
  if (s->tape) s->tape->t0 = t0, s->tape->dt = dt;
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  if (nb) PetscCall(FGBodiesBeginStep(s->bodies, t0, s->u));
  for (PetscInt k = 0; k < 3; k++) {
    const PetscReal tk = t0 + FG_RK3_C[k] * dt, tk1 = t0 + FG_RK3_C[k + 1] * dt;
    const PetscReal gdt = (FG_RK3_ALPHA[k] + FG_RK3_BETA[k]) * dt;
    PetscCall(FGSolverFillGhosts(s, s->u, tk));       /* 1. boundary values at the stage start */
    if (s->tape)
      for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(VecCopy(s->ul[a], s->tape->ul[k][a]));
    PetscCall(FGMomentumRHS_Private(s, tk, s->H));    /* 2. H = -A(u) + nu L(u) + f            */
    PetscCall(FGAddForce_Private(s, s->H));
    PetscCall(FGAdvance_Private(s, k));               /* 3. u* = u + dt(alpha H + beta Hold)  */
    PetscCall(FGSwapRHS_Private(s));
    if (nb) { /* bodies: u* -= gamma dt G p, the incremental form (see above) */
      PetscCall(DMGlobalToLocal(s->grid->da, s->p, INSERT_VALUES, s->phil));
      PetscCall(FGOpGradientCorrect(s->grid, &s->bc, gdt, s->phil, s->u));
    }
    PetscCall(FGOpSetBoundaryFaces(s->grid, &s->bc, tk1, s->u));
    if (s->tape)
      for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(VecCopy(s->u[a], s->tape->ustar[k][a]));
    PetscCall(FGBodiesPenalize(s->bodies, tk1, gdt / dt, dt, s->u)); /* 4. implicit penalization */
    PetscCall(FGProject_Private(s, gdt, tk1));        /* 5. u = u* - gamma dt G phi           */
    if (nb) PetscCall(VecAXPY(s->p, 1.0, s->phi));    /* 6. p = p + phi (bodies), else      */
  }
  if (!nb) PetscCall(VecCopy(s->phi, s->p));          /*    p = phi of the last stage         */
  s->t = t0 + dt;
  s->step++;
  if (nb) { /* 7. body forces: penalty (reduced), control-volume cross-check */
    PetscCall(FGBodiesEndStep(s->bodies, s->t));
    PetscCall(FGSolverFillGhosts(s, s->u, s->t));
    PetscCall(DMGlobalToLocal(s->grid->da, s->p, INSERT_VALUES, s->phil));
    PetscCall(FGBodiesControlVolume(s->bodies, s->t, dt, s->nu, s->u, s->ul, s->phil));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_Step, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   The linearized step. The state is (u, p) with bodies (the pressure is incremental) and u
   without (p is then the last stage's phi, an output). Both functions linearize about the step
   recorded in the tape (FGStepForward_RK3 with s->tape set, from the same start state).

   Tangent, stage k (d = perturbation; ul_k, u*_k from the tape):
     dul  = Fill'(du)                                      (+ the inflow data times dp->inflow)
     dH_k = -A'(ul_k) dul + nu L dul + dnu L ul_k + Out dul + f(dF)
     du  += dt (alpha_k dH_k + beta_k dH_{k-1});  bodies: du -= gamma dt G dp
     du   = SetBoundaryFaces'(du);  du = Pen'(u*_k)[du, dtheta, dchi]
     dphi = Lp^{-1} D Fill'(du) / (gamma dt);  du -= gamma dt G dphi;  dp += dphi (bodies)
   Adjoint: the same in reverse, each operator replaced by its transpose. */

PetscErrorCode FGStepParamsZero(FGStepParams *p)
{
  PetscFunctionBeginUser;
  p->nu = p->inflow = 0;
  for (PetscInt a = 0; a < 3; a++) p->chibar[a] = p->sens[a] = NULL;
  for (PetscInt b = 0; b < FG_CASE_MAX_BODIES; b++)
    for (PetscInt a = 0; a < 3; a++) p->chif[b][a] = NULL;
  PetscCall(PetscArrayzero(p->act, FG_STEP_NACT));
  PetscCall(PetscArrayzero(&p->body[0][0], FG_CASE_MAX_BODIES * FG_BODY_MAX_PARAMS));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGStepParamsReduce - sum the scalar adjoints over the ranks (the face-mask Vecs are global Vecs
  already).
@*/
PetscErrorCode FGStepParamsReduce(MPI_Comm comm, FGStepParams *p)
{
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &p->nu, 1, MPIU_REAL, MPIU_SUM, comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &p->inflow, 1, MPIU_REAL, MPIU_SUM, comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, p->act, FG_STEP_NACT, MPIU_REAL, MPIU_SUM, comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &p->body[0][0], FG_CASE_MAX_BODIES * FG_BODY_MAX_PARAMS, MPIU_REAL, MPIU_SUM, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGStepTapeCreate - a tape: the recorded stage values of one step, and the work vectors of the
  tangent and adjoint steps.

  Collective.

.seealso: FGStepTapeDuplicate()
@*/
/* A tape with its recorded vectors (the stage values), without work vectors. */
static PetscErrorCode FGStepTapeCreateRecord_Private(FGSolver s, FGStepTape *tape)
{
  FGStepTape T;
  DM         da = s->grid->da;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&T));
  for (PetscInt a = 0; a < s->grid->dim; a++)
    for (PetscInt k = 0; k < 3; k++) {
      PetscCall(DMCreateLocalVector(da, &T->ul[k][a]));
      PetscCall(DMCreateGlobalVector(da, &T->ustar[k][a]));
    }
  *tape = T;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGStepTapeCreate(FGSolver s, FGStepTape *tape)
{
  FGStepTape T;
  DM         da = s->grid->da;

  PetscFunctionBeginUser;
  PetscCall(FGStepTapeCreateRecord_Private(s, &T));
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    PetscCall(DMCreateLocalVector(da, &T->wl[a]));
    PetscCall(DMCreateGlobalVector(da, &T->wH[a]));
    PetscCall(DMCreateGlobalVector(da, &T->wHo[a]));
  }
  PetscCall(DMCreateGlobalVector(da, &T->wdiv));
  PetscCall(DMCreateGlobalVector(da, &T->wphi));
  PetscCall(DMCreateLocalVector(da, &T->wphil));
  *tape = T;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGStepTapeDuplicate - a tape with its own recorded values that shares the work vectors of
  another (a reference each), for keeping the tapes of many steps: only one tangent or adjoint
  step may run at a time among tapes that share work.

  Collective.
@*/
PetscErrorCode FGStepTapeDuplicate(FGSolver s, FGStepTape work, FGStepTape *tape)
{
  FGStepTape T;

  PetscFunctionBeginUser;
  PetscCall(FGStepTapeCreateRecord_Private(s, &T));
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    T->wl[a]  = work->wl[a];
    T->wH[a]  = work->wH[a];
    T->wHo[a] = work->wHo[a];
    PetscCall(PetscObjectReference((PetscObject)T->wl[a]));
    PetscCall(PetscObjectReference((PetscObject)T->wH[a]));
    PetscCall(PetscObjectReference((PetscObject)T->wHo[a]));
  }
  T->wdiv  = work->wdiv;
  T->wphi  = work->wphi;
  T->wphil = work->wphil;
  PetscCall(PetscObjectReference((PetscObject)T->wdiv));
  PetscCall(PetscObjectReference((PetscObject)T->wphi));
  PetscCall(PetscObjectReference((PetscObject)T->wphil));
  *tape = T;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGStepTapeDestroy(FGStepTape *tape)
{
  FGStepTape T = *tape;

  PetscFunctionBeginUser;
  if (!T) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt a = 0; a < 3; a++) {
    for (PetscInt k = 0; k < 3; k++) {
      PetscCall(VecDestroy(&T->ul[k][a]));
      PetscCall(VecDestroy(&T->ustar[k][a]));
    }
    PetscCall(VecDestroy(&T->wl[a]));
    PetscCall(VecDestroy(&T->wH[a]));
    PetscCall(VecDestroy(&T->wHo[a]));
  }
  PetscCall(VecDestroy(&T->wdiv));
  PetscCall(VecDestroy(&T->wphi));
  PetscCall(VecDestroy(&T->wphil));
  PetscCall(PetscFree(*tape));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGStepCheckForce_Private(FGSolver s)
{
  PetscFunctionBeginUser;
  PetscCheck(!s->forcefn || s->forcefn == FGActuatorsAddForce, s->comm, PETSC_ERR_SUP, "the step's body-force hook has no tangent or adjoint (only the actuators have)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The body parameter and face-mask pointers of an FGStepParams, as FGBodiesPenalize* take them. */
static void FGStepParamsPointers_Private(const FGStepParams *p, PetscReal *th[], Vec *chif[])
{
  for (PetscInt b = 0; b < FG_CASE_MAX_BODIES; b++) {
    th[b]   = p ? (PetscReal *)p->body[b] : NULL;
    chif[b] = p && p->chif[b][0] ? (Vec *)p->chif[b] : NULL;
  }
}

/*@C
  FGStepTangent_RK3 - the tangent of the recorded step: du (global Vecs) and, with bodies, dp hold
  the start state's perturbation on entry and the end state's on return (without bodies dp
  receives the tangent of the output pressure); dprm the parameter perturbations (NULL: none);
  dacc (NULL: not wanted) receives the reduced tangent of each body's step force and moment
  [6 b + m].
@*/
PetscErrorCode FGStepTangent_RK3(FGSolver s, FGStepTape T, const FGStepParams *dprm, Vec du[], Vec dp, PetscReal dacc[])
{
  FGGrid          g = s->grid;
  const PetscReal t0 = T->t0, dt = T->dt;
  const PetscReal dnu = dprm ? dprm->nu : 0, dinf = dprm ? dprm->inflow : 0;
  PetscInt        nb;
  PetscReal      *th[FG_CASE_MAX_BODIES];
  Vec            *chif[FG_CASE_MAX_BODIES];

  PetscFunctionBeginUser;
  PetscCall(FGStepCheckForce_Private(s));
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_StepTangent, 0, 0, 0, 0));
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  FGStepParamsPointers_Private(dprm, th, chif);
  if (dacc) PetscCall(PetscArrayzero(dacc, 6 * nb));
  for (PetscInt k = 0; k < 3; k++) {
    const PetscReal tk = t0 + FG_RK3_C[k] * dt, tk1 = t0 + FG_RK3_C[k + 1] * dt;
    const PetscReal gdt = (FG_RK3_ALPHA[k] + FG_RK3_BETA[k]) * dt;
    Vec            *tmp;
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscCall(DMGlobalToLocal(g->da, du[a], INSERT_VALUES, T->wl[a]));
      PetscCall(VecSet(T->wH[a], 0.0));
    }
    PetscCall(FGOpFillBoundaryTangent(g, &s->bc, tk, dinf, T->wl));
    PetscCall(FGOpAdvectionTangent(g, &s->bc, T->ul[k], T->wl, T->wH));
    PetscCall(FGOpDiffusionTangent(g, &s->bc, s->nu, dnu, T->ul[k], T->wl, T->wH));
    PetscCall(FGOpOutflowTangent(g, &s->bc, T->wl, T->wH));
    if (s->forcefn && dprm) PetscCall(FGActuatorsAddForceTangent(s, tk, dprm->act, T->wH));
    for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecAXPBYPCZ(du[a], dt * FG_RK3_ALPHA[k], dt * FG_RK3_BETA[k], 1.0, T->wH[a], T->wHo[a]));
    tmp = T->wH; /* swap the stage right-hand sides (arrays of 3 Vecs) */
    for (PetscInt a = 0; a < g->dim; a++) {
      Vec v     = tmp[a];
      T->wH[a]  = T->wHo[a];
      T->wHo[a] = v;
    }
    if (nb) {
      PetscCall(DMGlobalToLocal(g->da, dp, INSERT_VALUES, T->wphil));
      PetscCall(FGOpGradientCorrectTangent(g, &s->bc, gdt, T->wphil, du));
    }
    PetscCall(FGOpSetBoundaryFacesTangent(g, &s->bc, tk1, dinf, du));
    PetscCall(FGBodiesPenalizeTangent(s->bodies, tk1, gdt / dt, dt, T->ustar[k], (const PetscReal *const *)th, (Vec *const *)chif, du, dacc));
    for (PetscInt a = 0; a < g->dim; a++) PetscCall(DMGlobalToLocal(g->da, du[a], INSERT_VALUES, T->wl[a]));
    PetscCall(FGOpFillBoundaryTangent(g, &s->bc, tk1, dinf, T->wl));
    PetscCall(FGOpDivergenceTangent(g, T->wl, T->wdiv));
    PetscCall(VecScale(T->wdiv, 1.0 / gdt));
    PetscCall(FGPoissonSolve(s->poisson, T->wdiv, T->wphi));
    PetscCall(DMGlobalToLocal(g->da, T->wphi, INSERT_VALUES, T->wphil));
    PetscCall(FGOpGradientCorrectTangent(g, &s->bc, gdt, T->wphil, du));
    if (nb) PetscCall(VecAXPY(dp, 1.0, T->wphi));
  }
  if (!nb) PetscCall(VecCopy(T->wphi, dp));
  if (dacc && nb) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, dacc, (PetscMPIInt)(6 * nb), MPIU_REAL, MPIU_SUM, s->comm));
  PetscCall(PetscLogEventEnd(FG_EVENT_StepTangent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGStepAdjoint_RK3 - the transpose of FGStepTangent_RK3: ubar (global Vecs) and pbar hold the
  adjoint of the end state on entry and that of the start state on return (without bodies pbar is
  the adjoint of the output pressure on entry and 0 on return); wacc (NULL: none) the adjoint of
  each body's step force and moment [6 b + m]; bar (NULL: not wanted) accumulates the local parts
  of the parameters' adjoints (FGStepParamsReduce sums them), and its chif Vecs the face masks'.
@*/
PetscErrorCode FGStepAdjoint_RK3(FGSolver s, FGStepTape T, const PetscReal wacc[], Vec ubar[], Vec pbar, FGStepParams *bar)
{
  FGGrid          g = s->grid;
  const PetscReal t0 = T->t0, dt = T->dt;
  PetscInt        nb;
  PetscReal      *th[FG_CASE_MAX_BODIES], nub = 0, infb = 0;
  Vec            *chif[FG_CASE_MAX_BODIES];
  PetscBool       broken = PETSC_FALSE; /* -fg_test_break_adjoint (tests only: flowgrad check must fail) */

  PetscFunctionBeginUser;
  PetscCall(FGStepCheckForce_Private(s));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-fg_test_break_adjoint", &broken, NULL));
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_StepAdjoint, 0, 0, 0, 0));
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  FGStepParamsPointers_Private(bar, th, chif);
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecSet(T->wHo[a], 0.0)); /* the carry beta_{k+1} dt ubar* */
  for (PetscInt k = 2; k >= 0; k--) {
    const PetscReal tk = t0 + FG_RK3_C[k] * dt, tk1 = t0 + FG_RK3_C[k + 1] * dt;
    const PetscReal gdt = (FG_RK3_ALPHA[k] + FG_RK3_BETA[k]) * dt;
    /* p = p_prev + phi (bodies), p = phi_3 (none) */
    if (nb) PetscCall(VecCopy(pbar, T->wphi));
    else if (k == 2) {
      PetscCall(VecCopy(pbar, T->wphi));
      PetscCall(VecSet(pbar, 0.0));
    } else PetscCall(VecSet(T->wphi, 0.0));
    /* u = u** - gdt G phi */
    PetscCall(VecSet(T->wphil, 0.0));
    PetscCall(FGOpGradientCorrectAdjoint(g, &s->bc, gdt, ubar, T->wphil));
    PetscCall(DMLocalToGlobal(g->da, T->wphil, ADD_VALUES, T->wphi));
    /* phi = Lp^{-1} div, div = D Fill(u**) / gdt */
    PetscCall(FGPoissonSolveTranspose(s->poisson, T->wphi, T->wdiv));
    PetscCall(VecScale(T->wdiv, 1.0 / gdt));
    for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecSet(T->wl[a], 0.0));
    PetscCall(FGOpDivergenceAdjoint(g, T->wdiv, T->wl));
    PetscCall(FGOpFillBoundaryAdjoint(g, &s->bc, tk1, T->wl, &infb));
    for (PetscInt a = 0; a < g->dim; a++) PetscCall(DMLocalToGlobal(g->da, T->wl[a], ADD_VALUES, ubar[a]));
    /* u** = Pen(u*), u* on the prescribed faces = boundary data */
    PetscCall(FGBodiesPenalizeAdjoint(s->bodies, tk1, gdt / dt, dt, T->ustar[k], wacc, ubar, bar ? th : NULL, bar && bar->chibar[0] ? bar->chibar : NULL, bar && bar->sens[0] ? bar->sens : NULL, bar ? chif : NULL));
    PetscCall(FGOpSetBoundaryFacesAdjoint(g, &s->bc, tk1, ubar, &infb));
    if (nb) { /* u* -= gdt G p_prev */
      PetscCall(VecSet(T->wphil, 0.0));
      PetscCall(FGOpGradientCorrectAdjoint(g, &s->bc, gdt, ubar, T->wphil));
      PetscCall(DMLocalToGlobal(g->da, T->wphil, ADD_VALUES, pbar));
    }
    /* u* = u + dt (alpha H_k + beta H_{k-1}) */
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscCall(VecWAXPY(T->wH[a], dt * FG_RK3_ALPHA[k], ubar[a], T->wHo[a]));
      PetscCall(VecAXPBY(T->wHo[a], dt * FG_RK3_BETA[k], 0.0, ubar[a]));
    }
    /* H_k = RHS(ul_k), ul_k = Fill(u) */
    for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecSet(T->wl[a], 0.0));
    PetscCall(FGOpAdvectionAdjoint(g, &s->bc, T->ul[k], T->wH, T->wl));
    if (broken) PetscCall(VecScale(T->wl[0], 1 + 1e-3)); /* test hook: a wrong adjoint */
    PetscCall(FGOpDiffusionAdjoint(g, &s->bc, s->nu, T->ul[k], T->wH, T->wl, bar ? &nub : NULL)); /* nubar only when wanted */
    PetscCall(FGOpOutflowAdjoint(g, &s->bc, T->wH, T->wl));
    if (s->forcefn && bar) PetscCall(FGActuatorsAddForceAdjoint(s, tk, T->wH, bar->act));
    PetscCall(FGOpFillBoundaryAdjoint(g, &s->bc, tk, T->wl, &infb));
    for (PetscInt a = 0; a < g->dim; a++) PetscCall(DMLocalToGlobal(g->da, T->wl[a], ADD_VALUES, ubar[a]));
  }
  if (bar) bar->nu += nub, bar->inflow += infb;
  PetscCall(PetscLogEventEnd(FG_EVENT_StepAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
