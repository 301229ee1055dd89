/*
  flowgrad run: the forward simulation.

    1. write case.resolved.yaml          4. every monitor_every steps: CFL, max|div u|, kinetic
    2. create the solver (grid, BCs,        energy -> stdout (rank 0) and history.csv; NaN or
       Poisson plans, all vectors)          CFL over time.cfl_max stops the run (exit 3)
    3. initial condition                 5. every fields_every steps and at the end: fields/fields_NNNNNN.h5
*/
#include <fg/app.h>
#include <fg/solver.h>
#include <fg/io.h>
#include <errno.h>
#include <string.h>

typedef struct {
  FILE      *history; /* rank 0 only */
  PetscLogDouble t0;
  Vec        uc[3];   /* cell-centred velocity for output */
} FGRunContext;

static PetscErrorCode FGRunWriteFields_Private(FGSolver s, FGRunContext *ctx)
{
  const FGCase *c = s->c;
  char          path[PETSC_MAX_PATH_LEN];
  FGIOField     f[7];
  PetscInt      nf = 0;
  FGIOMeta      meta;
  const FGBox  *bx = &s->grid->box;

  PetscFunctionBeginUser;
  /* cell-centred velocity: uc_a(c) = (u_a(c) + u_a(c - e_a)) / 2 */
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    const PetscScalar *ul;
    PetscScalar       *uc;
    PetscCall(VecGetArrayRead(s->ul[a], &ul));
    PetscCall(VecGetArray(ctx->uc[a], &uc));
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
        for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
          PetscInt cc = FGBoxIndex(bx, i, j, k);
          uc[FGBoxOwnedIndex(bx, i, j, k)] = 0.5 * (ul[cc] + ul[cc - bx->s[a]]);
        }
    PetscCall(VecRestoreArray(ctx->uc[a], &uc));
    PetscCall(VecRestoreArrayRead(s->ul[a], &ul));
  }
  for (PetscInt a = 0; a < s->grid->dim; a++) f[nf++] = (FGIOField){(const char *[]){"u", "v", "w"}[a], (FGLocation)(FG_LOC_FACE_X + a), s->u[a]};
  f[nf++] = (FGIOField){"p", FG_LOC_CELL, s->p};
  for (PetscInt a = 0; a < s->grid->dim; a++) f[nf++] = (FGIOField){(const char *[]){"velocity_x", "velocity_y", "velocity_z"}[a], FG_LOC_CELL, ctx->uc[a]};
  meta.time      = s->t;
  meta.step      = s->step;
  meta.case_hash = c->hash;
  meta.case_name = c->name;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/fields/fields_%06" PetscInt_FMT ".h5", c->output.dir, s->step));
  PetscCall(FGIOWriteFields(s->grid, path, &meta, nf, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGRunMonitor_Private(FGSolver s, FGRunContext *ctx)
{
  const FGCase  *c = s->c;
  PetscLogDouble now, eta;
  PetscMPIInt    rank;

  PetscFunctionBeginUser;
  PetscCall(FGSolverMonitorCompute(s));
  PetscCall(PetscTime(&now));
  eta = s->step > 0 ? (now - ctx->t0) / (double)s->step * (double)(c->time.steps - s->step) : 0.0;
  PetscCall(PetscPrintf(s->comm, "step %6" PetscInt_FMT "/%" PetscInt_FMT "  t %.6e  dt %.3e  CFL %.3f  max|div u| %.2e  KE %.6e  ETA %.0f s\n", s->step, c->time.steps, (double)s->t, (double)s->dt, (double)s->cfl, (double)s->maxdiv, (double)s->ke, eta));
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  if (rank == 0 && ctx->history) {
    fprintf(ctx->history, "%" PetscInt_FMT ",%.17g,%.17g,%.17g,%.17g,%.17g,%.6f\n", s->step, (double)s->t, (double)s->dt, (double)s->cfl, (double)s->maxdiv, (double)s->ke, now - ctx->t0);
    fflush(ctx->history);
  }
  /* blow-up: the values are reduced, so every rank takes the same branch */
  PetscCheck(!PetscIsInfOrNanReal(s->ke) && !PetscIsInfOrNanReal(s->cfl), s->comm, FG_ERR_NUMERIC, "the solution blew up (NaN) at step %" PetscInt_FMT ", t = %g; reduce time.dt (now %g)", s->step, (double)s->t, (double)s->dt);
  PetscCheck(s->cfl <= c->time.cfl_max, s->comm, FG_ERR_NUMERIC, "CFL number %.3g exceeds time.cfl_max = %g at step %" PetscInt_FMT ", t = %g; reduce time.dt (now %g)", (double)s->cfl, (double)c->time.cfl_max, s->step, (double)s->t, (double)s->dt);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGRun - the forward simulation of a validated case. Collective.
@*/
PetscErrorCode FGRun(MPI_Comm comm, const FGCase *c)
{
  FGSolver       s;
  FGRunContext   ctx;
  PetscMPIInt    rank;
  PetscLogDouble t1;
  PetscInt       ncells = 1;
  char           path[PETSC_MAX_PATH_LEN];
  int            ok = 1;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&ctx, sizeof(ctx)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(FGCaseWriteResolved(comm, c));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/fields", c->output.dir));
  if (rank == 0) {
    ok = FGMakeDirectory(path) == PETSC_SUCCESS;
    if (ok) {
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/history.csv", c->output.dir));
      ctx.history = fopen(path, "w");
      ok          = ctx.history != NULL;
      if (ok) fprintf(ctx.history, "step,time,dt,cfl,max_div,kinetic_energy,wall_time\n");
    }
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, FG_ERR_IO_WRITE, "cannot write %s: %s", path, strerror(errno));

  PetscCall(FGSolverCreate(comm, c, &s));
  for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(VecDuplicate(s->p, &ctx.uc[a]));
  for (PetscInt d = 0; d < s->grid->dim; d++) ncells *= s->grid->n[d];
  PetscCall(PetscPrintf(comm, "flowgrad run: case '%s', output in %s\n", c->name, c->output.dir));
  PetscCall(FGGridView(s->grid, PETSC_VIEWER_STDOUT_(comm)));

  PetscCall(FGSolverSetInitialCondition(s));
  PetscCall(PetscTime(&ctx.t0));
  PetscCall(FGRunMonitor_Private(s, &ctx));
  while (s->step < c->time.steps) {
    PetscCall(FGStepForward_RK3(s));
    if (s->step % c->output.monitor_every == 0 || s->step == c->time.steps) PetscCall(FGRunMonitor_Private(s, &ctx));
    if (c->output.fields_every > 0 && s->step % c->output.fields_every == 0 && s->step != c->time.steps) PetscCall(FGRunWriteFields_Private(s, &ctx));
  }
  PetscCall(FGRunWriteFields_Private(s, &ctx));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(comm, "flowgrad run: %" PetscInt_FMT " steps in %.2f s, %.3g cell-steps/s\n", s->step, t1 - ctx.t0, (double)ncells * (double)s->step / PetscMax(t1 - ctx.t0, 1e-9)));

  if (ctx.history) fclose(ctx.history);
  for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(VecDestroy(&ctx.uc[a]));
  PetscCall(FGSolverDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}
