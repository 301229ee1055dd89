/*
  The forward solver object: grid, boundary conditions, Poisson solver, state and work vectors.
  All vectors are made here, once; the time loop allocates nothing.
*/
#include <fg/solver.h>
#include <fg/app.h>

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
  s->nu   = c->flow.nu;
  s->dt   = c->time.dt;
  for (PetscInt a = 0; a < 3; a++) s->force[a] = c->flow.force[a];
  PetscCall(FGGridCreateFromCase(comm, c, &s->grid));
  PetscCall(FGBoundaryFromCase(c, &s->bc));
  PetscCall(FGExactFieldFromCase(c, &s->bc.exact));
  PetscCall(FGPoissonBCFromCase(c, pbc));
  PetscCall(FGPoissonCreate(s->grid, c->poisson.type, (const FGPoissonBC(*)[2])pbc, &s->poisson));
  PetscCall(FGPoissonSetTolerances(s->poisson, c->poisson.rtol, c->poisson.max_it));
  PetscCall(FGPoissonSetUp(s->poisson));
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
  for (PetscInt n = 0; n < c->nactuators; n++) /* the actuators' amplitudes in time: the case's constants */
    for (PetscInt a = 0; a < 3; a++)
      for (PetscInt k = 0; k < FG_MAX_TIME_BASIS; k++) s->actc[n][a][k] = c->actuator[n].force[a];
  PetscCall(FGBodiesSetActuatorControls(s->bodies, &s->actc[0][0][0]));
  if (c->nactuators) s->forcefn = FGActuatorsAddForce;
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
  }
  PetscCall(VecDestroy(&s->p));
  PetscCall(VecDestroy(&s->div));
  PetscCall(VecDestroy(&s->phi));
  PetscCall(VecDestroy(&s->phil));
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

  CFL = dt max_cells sum_a |u_a|/h_a with u_a at the cell's + face; umax = max |u_a|; kinetic energy
  = 1/2 sum_a sum_faces u_a^2 dV over the owned faces.
@*/
PetscErrorCode FGSolverMonitorCompute(FGSolver s)
{
  FGGrid             g  = s->grid;
  const FGBox       *bx = &g->box;
  const PetscScalar *ua[3];
  PetscReal          loc[3] = {0, 0, 0}, glob[3], ke = 0, keg, dv = 1, hmin = g->h[0], divmax;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < g->dim; d++) {
    dv *= g->h[d];
    hmin = PetscMin(hmin, g->h[d]);
  }
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecGetArrayRead(s->u[a], &ua[a]));
  for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
    for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
      for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
        const PetscInt o   = FGBoxOwnedIndex(bx, i, j, k);
        PetscReal      cfl = 0;
        for (PetscInt a = 0; a < g->dim; a++) {
          ke += PetscRealPart(ua[a][o] * ua[a][o]);
          cfl += PetscAbsScalar(ua[a][o]) / g->h[a];
          loc[2] = PetscMax(loc[2], PetscAbsScalar(ua[a][o]));
        }
        loc[0] = PetscMax(loc[0], cfl);
      }
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecRestoreArrayRead(s->u[a], &ua[a]));
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  PetscCall(FGOpDivergence(g, s->ul, s->div));
  PetscCall(VecNorm(s->div, NORM_INFINITY, &divmax));
  loc[0] *= s->dt;
  loc[1] = PetscIsInfOrNanReal(ke) || PetscIsInfOrNanReal(loc[0]) ? 1.0 : 0.0;
  PetscCall(MPIU_Allreduce(loc, glob, 3, MPIU_REAL, MPIU_MAX, s->comm));
  PetscCall(MPIU_Allreduce(&ke, &keg, 1, MPIU_REAL, MPIU_SUM, s->comm));
  s->cfl    = glob[1] > 0 ? (PetscReal)NAN : glob[0];
  s->ke     = glob[1] > 0 ? (PetscReal)NAN : 0.5 * keg * dv;
  s->maxdiv = divmax * hmin / s->c->flow.u_ref;
  s->umax   = glob[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}
