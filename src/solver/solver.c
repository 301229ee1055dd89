/*
  The forward solver object: grid, boundary conditions, Poisson solver, bodies, the parameters'
  values, state and work vectors. All vectors are made here, once; the time loop allocates
  nothing. The case is only read: what a design changes lives in the parameters (FGSolver.prm),
  which FGSolverSetParams() applies.
*/
#include <fg/solver.h>

/*@C
  FGSolverGetOptions - the solver's options, in one PetscOptionsBegin block (so -help lists them);
  FGSolverCreate reads them once. Collective.

  Options Database Keys:
. -fg_test_break_adjoint - TEST ONLY: perturb the adjoint step (flowgrad check must then fail)
- -fg_test_steady_no_nullspace - TEST ONLY: the steady solver's operators without the constant pressure (their solves stall)
@*/
PetscErrorCode FGSolverGetOptions(MPI_Comm comm, FGSolverOptions *o)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(o, sizeof(*o)));
  PetscOptionsBegin(comm, NULL, "flowgrad: solver (test hooks)", NULL);
  PetscCall(PetscOptionsBool("-fg_test_break_adjoint", "TEST ONLY: perturb the adjoint step by 1e-3 (flowgrad check must then fail)", NULL, o->test_break_adjoint, &o->test_break_adjoint, NULL));
  PetscCall(PetscOptionsBool("-fg_test_steady_no_nullspace", "TEST ONLY: the steady solver's operators without the constant pressure, so that their solves stall", NULL, o->test_steady_no_nullspace, &o->test_steady_no_nullspace, NULL));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The parameters' values of the case: its viscosity, inflow speed, actuator forces (constant in
   time: every basis coefficient the same), the bodies' parameters and density fields. */
static PetscErrorCode FGSolverParamsFromCase_Private(FGSolver s)
{
  const FGCase        *c   = s->c;
  const FGParamLayout *L   = &s->layout;
  const PetscInt       dim = s->grid->dim;
  PetscReal           *act;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++)
    for (PetscInt side = 0; side < 2; side++)
      for (PetscInt a = 0; a < 3; a++) s->vel0[d][side][a] = s->bc.velocity[d][side][a];
  for (PetscInt d = 0; d < dim && s->U0 == 0; d++) /* the first inflow face with a nonzero velocity */
    for (PetscInt side = 0; side < 2 && s->U0 == 0; side++)
      if (s->bc.kind[d][side] == FG_BC_INFLOW) {
        PetscReal u2 = 0;
        for (PetscInt a = 0; a < dim; a++) u2 += PetscSqr(s->bc.velocity[d][side][a]);
        s->U0 = PetscSqrtReal(u2);
      }
  PetscCall(FGParamsCreate(L, &s->prm));
  s->prm.v[FG_PARAM_NU]     = c->flow.nu;
  s->prm.v[FG_PARAM_INFLOW] = s->U0;
  act                       = FGParamsActuators(&s->prm);
  for (PetscInt n = 0; n < L->nact; n++)
    for (PetscInt a = 0; a < 3; a++)
      for (PetscInt k = 0; k < L->nbasis; k++) act[(3 * n + a) * L->nbasis + k] = c->actuator[n].force[a];
  for (PetscInt b = 0; b < L->nbodies; b++) {
    Vec rho;
    if (s->prm.theta[b]) PetscCall(FGBodiesGetParameters(s->bodies, b, s->prm.theta[b]));
    PetscCall(FGBodiesGetDensity(s->bodies, b, &rho, NULL));
    if (!rho) continue;
    PetscCall(VecDuplicate(rho, &s->prm.rho[b]));
    PetscCall(VecCopy(rho, s->prm.rho[b]));
  }
  PetscCall(PetscCalloc1(PetscMax(L->n, 1), &s->theta_work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverCreate - set up the forward solver for a validated case. Collective.
@*/
PetscErrorCode FGSolverCreate(MPI_Comm comm, const FGCase *c, FGSolver *solver)
{
  FGSolver    s;
  FGPoissonBC pbc[3][2];

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&s));
  s->comm = comm;
  s->c    = c;
  s->dt   = c->time.dt;
  for (PetscInt a = 0; a < 3; a++) s->force[a] = c->flow.force[a];
  PetscCall(FGGridCreateFromCase(comm, c, &s->grid));
  PetscCall(FGBoundaryFromCase(c, &s->bc));
  PetscCall(FGExactFieldFromCase(c, &s->bc.exact));
  PetscCall(FGSolverGetOptions(comm, &s->opt));
  PetscCall(FGPoissonBCFromCase(c, pbc));
  PetscCall(FGPoissonCreate(s->grid, c->poisson.type, (const FGPoissonBC(*)[2])pbc, &s->poisson));
  PetscCall(FGPoissonSetTolerances(s->poisson, c->poisson.rtol, c->poisson.max_it));
  PetscCall(FGPoissonSetUp(s->poisson));
  if (FGViscousIsImplicit(c, s->grid)) PetscCall(FGViscousCreate(s->grid, &s->bc, &s->viscous));
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    PetscCall(DMCreateGlobalVector(s->grid->da, &s->u[a]));
    PetscCall(PetscObjectSetName((PetscObject)s->u[a], (const char *[]){"u", "v", "w"}[a]));
    PetscCall(DMCreateLocalVector(s->grid->da, &s->ul[a]));
    PetscCall(VecDuplicate(s->u[a], &s->H[a]));
    PetscCall(VecDuplicate(s->u[a], &s->Hold[a]));
    PetscCall(VecSet(s->Hold[a], 0.0));
  }
  PetscCall(DMCreateGlobalVector(s->grid->da, &s->p));
  PetscCall(PetscObjectSetName((PetscObject)s->p, "p"));
  PetscCall(VecDuplicate(s->p, &s->div));
  PetscCall(VecDuplicate(s->p, &s->phi));
  PetscCall(DMCreateLocalVector(s->grid->da, &s->phil));
  *solver = s; /* from here on FGSolverDestroy cleans up whatever fails below */
  PetscCall(FGBodiesCreate(s->grid, &s->bc, c, &s->bodies));
  PetscCall(FGSolverContinuitySet(s)); /* a sharp wall's cut-cell continuity */
  PetscCall(FGParamLayoutCreate(c, s->bodies, &s->layout));
  PetscCall(FGSolverParamsFromCase_Private(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverSetParams - apply the solver's parameter values (FGSolver.prm, changed by the caller):
  the viscosity, the inflow velocities (U / U_case times the case's), the exact boundary field's
  viscosity, each shape body whose theta_b changed (its masks rebuilt at t = 0) and each density
  body whose rho changed (its masks rebuilt). Collective.

  Errors: FG_ERR_INPUT for nu <= 0 or a body parameter that makes an invalid shape (naming the body).
@*/
PetscErrorCode FGSolverSetParams(FGSolver s)
{
  const FGParamLayout *L = &s->layout;
  const PetscReal      U = s->prm.v[FG_PARAM_INFLOW];

  PetscFunctionBeginUser;
  PetscCheck(s->prm.v[FG_PARAM_NU] > 0, s->comm, FG_ERR_INPUT, "the viscosity nu = %g must be positive", (double)s->prm.v[FG_PARAM_NU]);
  s->bc.exact.nu = s->prm.v[FG_PARAM_NU];
  if (s->U0 > 0)
    for (PetscInt d = 0; d < 3; d++)
      for (PetscInt side = 0; side < 2; side++)
        if (s->bc.kind[d][side] == FG_BC_INFLOW)
          for (PetscInt a = 0; a < 3; a++) s->bc.velocity[d][side][a] = s->vel0[d][side][a] * (U / s->U0);
  for (PetscInt b = 0; b < L->nbodies; b++) {
    if (s->prm.theta[b]) {
      PetscCall(FGBodiesGetParameters(s->bodies, b, s->theta_work));
      for (PetscInt i = 0; i < L->nbody[b]; i++)
        if (s->theta_work[i] != s->prm.theta[b][i]) {
          PetscCall(FGBodiesSetParameters(s->bodies, b, s->prm.theta[b]));
          PetscCall(FGSolverContinuitySet(s)); /* the apertures or lines changed with the shape */
          break;
        }
    }
    if (s->prm.rho[b]) { /* the bodies hold the density last applied */
      Vec       rho;
      PetscBool same;
      PetscCall(FGBodiesGetDensity(s->bodies, b, &rho, NULL));
      PetscCall(VecEqual(s->prm.rho[b], rho, &same));
      if (!same) PetscCall(FGBodiesSetDensity(s->bodies, b, s->prm.rho[b]));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverSetForcing - a body-force term f(x, t) added to the momentum right-hand side of every
  stage (NULL: none). A forward-only model term: the linearized step refuses a solver with one.
@*/
PetscErrorCode FGSolverSetForcing(FGSolver s, FGForceFn fn, void *ctx)
{
  PetscFunctionBeginUser;
  s->forcefn  = fn;
  s->forcectx = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGSolverDestroy(FGSolver *solver)
{
  FGSolver s = *solver;

  PetscFunctionBeginUser;
  if (!s) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    PetscCall(VecDestroy(&s->u[a]));
    PetscCall(VecDestroy(&s->ul[a]));
    PetscCall(VecDestroy(&s->H[a]));
    PetscCall(VecDestroy(&s->Hold[a]));
    PetscCall(VecDestroy(&s->steady.u[a]));
  }
  PetscCall(VecDestroy(&s->steady.p));
  PetscCall(VecDestroy(&s->steady.design));
  PetscCall(PetscContainerDestroy(&s->steady.pc));
  PetscCall(FGViscousDestroy(&s->viscous));
  PetscCall(VecDestroy(&s->p));
  PetscCall(VecDestroy(&s->div));
  PetscCall(VecDestroy(&s->phi));
  PetscCall(VecDestroy(&s->phil));
  for (PetscInt a = 0; a < 3; a++) PetscCall(VecDestroy(&s->Mf[a]));
  PetscCall(FGParamsDestroy(&s->prm));
  PetscCall(FGParamLayoutDestroy(&s->layout));
  PetscCall(PetscFree(s->theta_work));
  PetscCall(FGBodiesDestroy(&s->bodies));
  PetscCall(FGPoissonDestroy(&s->poisson));
  PetscCall(FGGridDestroy(&s->grid));
  PetscCall(PetscFree(*solver));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverFillGhosts - s->ul = ghosted copy of u with inter-rank, periodic and boundary ghosts
  at time t.
@*/
PetscErrorCode FGSolverFillGhosts(FGSolver s, Vec u[], PetscReal t)
{
  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_GhostUpdate, 0, 0, 0, 0));
  for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(DMGlobalToLocal(s->grid->da, u[a], INSERT_VALUES, s->ul[a]));
  PetscCall(PetscLogEventEnd(FG_EVENT_GhostUpdate, 0, 0, 0, 0));
  PetscCall(FGOpFillBoundary(s->grid, &s->bc, t, s->ul));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverMonitorCompute - CFL number, max |div u| (relative to u_ref/h_min) and kinetic energy
  of the current state, reduced over all ranks (every rank gets the same values).

  CFL: FGSolverStepNumber's, dt max_cells sum_a |u_a|/h_a over the faces the bodies' penalization
  does not hold within a step (a face inside a body is reset to the body's velocity every stage,
  and whatever a projection leaves there, e.g. the first one from a field that runs through the
  body, is not the flow's; counting it stopped the 2D-2 cylinder at D/80 at step 0 with CFL 2.0,
  where the flow's is 1.27); NaN, as the kinetic energy, where any velocity is not finite;
  umax = max |u_a| over all faces;
  kinetic energy = 1/2 sum_a sum_faces u_a^2 dV_a over the owned faces (dV_a the face's control
  volume; the cell volume on a uniform grid).
@*/
PetscErrorCode FGSolverMonitorCompute(FGSolver s)
{
  FGGrid             g  = s->grid;
  const FGBox       *bx = &g->box;
  const PetscScalar *ua[3];
  PetscReal          loc[2] = {0, 0}, glob[2], ke = 0, keg, dv = 1, hmin = FGGridMinSpacing(g), divmax, cfl;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < g->dim; d++) dv *= g->h[d]; /* uniform: one volume for all faces */
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecGetArrayRead(s->u[a], &ua[a]));
  for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
    for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
      for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
        const PetscInt o = FGBoxOwnedIndex(bx, i, j, k);
        for (PetscInt a = 0; a < g->dim; a++) {
          if (g->isuniform) ke += PetscRealPart(ua[a][o] * ua[a][o]);
          else { /* the face's own volume dxc_a x the other widths */
            const PetscInt idx[3] = {i, j, k};
            PetscReal      va     = g->ax[a].dxc[idx[a]];
            for (PetscInt b = 0; b < g->dim; b++)
              if (b != a) va *= g->ax[b].dxf[idx[b]];
            ke += va * PetscRealPart(ua[a][o] * ua[a][o]);
          }
          loc[1] = PetscMax(loc[1], PetscAbsScalar(ua[a][o]));
        }
      }
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecRestoreArrayRead(s->u[a], &ua[a]));
  PetscCall(FGSolverStepNumber(s, s->dt, &cfl, NULL));
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  PetscCall(FGSolverDivergence(s, s->ul, s->div));
  PetscCall(VecNorm(s->div, NORM_INFINITY, &divmax));
  loc[0] = PetscIsInfOrNanReal(ke) ? 1.0 : 0.0;
  PetscCall(MPIU_Allreduce(loc, glob, 2, MPIU_REAL, MPIU_MAX, s->comm));
  PetscCall(MPIU_Allreduce(&ke, &keg, 1, MPIU_REAL, MPIU_SUM, s->comm));
  s->cfl    = glob[0] > 0 ? (PetscReal)NAN : cfl;
  s->ke     = glob[0] > 0 ? (PetscReal)NAN : 0.5 * keg * (g->isuniform ? dv : 1.0);
  s->maxdiv = divmax * hmin / s->c->flow.u_ref;
  s->umax   = glob[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverStepNumber - the CFL number and the step number of the current state at the step dt:
  cfl = dt max_cells sum_a |u_a| / h_a (as FGSolverMonitorCompute's) and sigma = dt max_cells
  sum_a (|u_a| + 4 nu / h_a) / h_a, the advection's and the viscous stencil's largest rates
  together (u_a at the cell's + face, h_a the cell's width, nu the viscosity), over the faces the
  bodies' penalization does not hold within a step. Where sigma is small one step is close to any
  other consistent step of the same size (a backward-Euler one: the steady solver's
  preconditioner, src/adjoint/steady_pc.c). Either output may be NULL; a non-finite velocity gives
  infinity. Collective.
@*/
PetscErrorCode FGSolverStepNumber(FGSolver s, PetscReal dt, PetscReal *cfl, PetscReal *sigma)
{
  FGGrid             g  = s->grid;
  const FGBox       *bx = &g->box;
  const PetscReal    nu = s->prm.v[FG_PARAM_NU];
  const PetscScalar *ua[3], *K[3];
  PetscReal          loc[2] = {0, 0};

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecGetArrayRead(s->u[a], &ua[a]));
  PetscCall(FGBodiesGetPenaltyRead(s->bodies, s->t, K));
  for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
    for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
      for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
        const PetscInt o = FGBoxOwnedIndex(bx, i, j, k), idx[3] = {i, j, k};
        PetscReal      c = 0, r = 0;
        for (PetscInt a = 0; a < g->dim; a++) {
          const PetscReal ih = g->isuniform ? 1 / g->h[a] : g->ax[a].idxf[idx[a]];
          if (K[a] && dt * PetscRealPart(K[a][o]) >= 1) continue; /* held by a body */
          c += PetscAbsScalar(ua[a][o]) * ih;
          r += 4 * nu * ih * ih;
        }
        loc[0] = PetscMax(loc[0], c), loc[1] = PetscMax(loc[1], c + r);
        if (PetscIsInfOrNanReal(c)) loc[0] = loc[1] = PETSC_INFINITY; /* NaN would not survive the maxima */
      }
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecRestoreArrayRead(s->u[a], &ua[a]));
  PetscCall(FGBodiesRestorePenaltyRead(s->bodies, K));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, loc, 2, MPIU_REAL, MPIU_MAX, s->comm));
  if (cfl) *cfl = dt * loc[0];
  if (sigma) *sigma = dt * loc[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverCheckFlow - the blow-up guard of the runs that do not monitor (the forward steps of
  flowgrad adjoint, check and optimize): an FG_ERR_NUMERIC error, raised on every rank at a step's
  end, where the CFL number of the current state (FGSolverStepNumber) is not finite or exceeds
  twice time.cfl_max. Twice: these runs had no guard, and their cases run up to the limit of
  flowgrad run's (1.5 by default; measured 1.50-1.56 on four test cases, stable: RK3's limit is
  about 1.7), while a flow that blows up passes any bound within a few steps. Without it such a
  run went on to its last step (the objective then NaN) or stopped in a linear solve that did not
  converge, neither naming the cause. s->blown is set first: a caller may tell this stop, at a
  step's end with nothing half done, from a failure inside a step (flowgrad optimize retries a
  shorter step after it, src/optim/evaluate.c). Collective.
@*/
PetscErrorCode FGSolverCheckFlow(FGSolver s)
{
  const PetscReal lim = 2 * s->c->time.cfl_max;
  PetscReal       cfl;

  PetscFunctionBeginUser;
  PetscCall(FGSolverStepNumber(s, s->dt, &cfl, NULL));
  s->blown = (PetscBool)!(cfl <= lim);
  PetscCheck(!s->blown, s->comm, FG_ERR_NUMERIC, "the flow blew up: CFL number %.3g exceeds %g (twice time.cfl_max) at step %" PetscInt_FMT ", t = %g (time.dt %g)", (double)cfl, (double)lim, s->step, (double)s->t, (double)s->dt);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverControlVolumeBegin - before a step: fix the bodies' control volumes and note the
  momentum in them (src/body/diagnostics.c). A diagnostic: the step itself never computes it.
@*/
PetscErrorCode FGSolverControlVolumeBegin(FGSolver s)
{
  PetscFunctionBeginUser;
  PetscCall(FGBodiesControlVolumeBegin(s->bodies, s->t, s->u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverControlVolumeEnd - after the step: the control-volume force on each body
  (FGBodyForces.cv_force). Collective.
@*/
PetscErrorCode FGSolverControlVolumeEnd(FGSolver s)
{
  PetscInt nb;

  PetscFunctionBeginUser;
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  if (!nb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  PetscCall(DMGlobalToLocal(s->grid->da, s->p, INSERT_VALUES, s->phil));
  PetscCall(FGBodiesControlVolumeEnd(s->bodies, s->t, s->dt, s->prm.v[FG_PARAM_NU], FGParamsActuators(&s->prm), s->u, s->ul, s->phil));
  PetscFunctionReturn(PETSC_SUCCESS);
}
