/*
  The unsteady reverse sweep (include/fg/adjoint.h).

  Forward: from the initial state x_0, N steps x_n = F(x_{n-1}, p), each start state kept in RAM
  (u, and p with bodies), the objective recorded after every step. Reverse, n = N .. 1:

    restore x_{n-1}; recompute step n with the tape attached (the stage values it needs)
    lambda += dJ/dx_n                           (FGObjectiveAdjointState: the state at step n)
    lambda  = F_x^T lambda,  g_F += F_p^T lambda (FGStepAdjoint_RK3, with dJ/d(step n's forces))

  after which lambda = dJ/dx_0 and g = dp^T g_F + dJ/dp. Memory: N + 1 states; time: one forward
  run plus, per step, a recomputed step and an adjoint step.
*/
#include <fg/adjoint.h>

/*@C
  FGAdjointForward - J(p): apply p, run the forward steps from the initial state, evaluate the
  objective. Collective.
@*/
PetscErrorCode FGAdjointForward(FGSolver s, FGDesign d, FGObjective o, Vec p, PetscReal *J)
{
  PetscFunctionBeginUser;
  if (s->c->adjoint.mode == FG_ADJOINT_STEADY) {
    PetscCall(FGAdjointForwardSteady(s, d, o, p, J));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FGDesignApply(d, p));
  PetscCall(FGDesignSetInitialState(d, p));
  PetscCall(FGObjectiveReset(o));
  for (PetscInt n = 0; n < s->c->time.steps; n++) {
    PetscCall(FGStepForward_RK3(s));
    PetscCall(FGObjectiveRecord(o));
  }
  PetscCall(FGObjectiveFinish(o, p, J));
  PetscCheck(!PetscIsInfOrNanReal(*J), s->comm, FG_ERR_NUMERIC, "the objective is %g (the forward run blew up?)", (double)*J);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGAdjointCompute - J(p) and g = dJ/dp (a Vec of the design's layout), and optionally the
  gradient fields (out). Collective.
@*/
PetscErrorCode FGAdjointCompute(FGSolver s, FGDesign d, FGObjective o, Vec p, PetscReal *J, Vec g, FGAdjointOutput *out)
{
  FGGrid         grid = s->grid;
  const PetscInt dim = grid->dim, N = s->c->time.steps;
  PetscInt       nb, every = s->c->output.monitor_every > 0 ? s->c->output.monitor_every : 0;
  Vec           *U, *P, ubar[3], pbar;
  PetscReal     *T, wacc[6 * FG_CASE_MAX_BODIES];
  FGStepTape     tape;
  FGStepParams   bar;
  PetscLogDouble w0, w1;

  PetscFunctionBeginUser;
  if (s->c->adjoint.mode == FG_ADJOINT_STEADY) {
    PetscCall(FGAdjointComputeSteady(s, d, o, p, J, g, out));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  PetscCall(PetscMalloc3(N * dim, &U, N, &P, N + 1, &T));
  for (PetscInt n = 0; n < N; n++) {
    for (PetscInt a = 0; a < dim; a++) PetscCall(VecDuplicate(s->u[a], &U[n * dim + a]));
    PetscCall(VecDuplicate(s->p, &P[n]));
  }
  /* forward, keeping the start states */
  PetscCall(PetscTime(&w0));
  PetscCall(FGDesignApply(d, p));
  PetscCall(FGDesignSetInitialState(d, p));
  PetscCall(FGObjectiveReset(o));
  for (PetscInt n = 0; n < N; n++) {
    for (PetscInt a = 0; a < dim; a++) PetscCall(VecCopy(s->u[a], U[n * dim + a]));
    PetscCall(VecCopy(s->p, P[n]));
    T[n] = s->t;
    PetscCall(FGStepForward_RK3(s));
    PetscCall(FGObjectiveRecord(o));
  }
  PetscCall(FGObjectiveFinish(o, p, J));
  PetscCheck(!PetscIsInfOrNanReal(*J), s->comm, FG_ERR_NUMERIC, "the objective is %g (the forward run blew up?)", (double)*J);
  PetscCall(PetscTime(&w1));
  if (every) PetscCall(PetscPrintf(s->comm, "adjoint: forward %" PetscInt_FMT " steps, J = %.10e (%.1f s)\n", N, (double)*J, (double)(w1 - w0)));

  /* reverse */
  PetscCall(FGStepTapeCreate(s, &tape));
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecDuplicate(s->u[a], &ubar[a]));
    PetscCall(VecSet(ubar[a], 0.0));
  }
  PetscCall(VecDuplicate(s->p, &pbar));
  PetscCall(VecSet(pbar, 0.0));
  PetscCall(FGStepParamsZero(&bar));
  for (PetscInt b = 0; b < nb; b++) {
    Vec rho;
    PetscCall(FGBodiesGetDensity(s->bodies, b, &rho, NULL));
    if (!rho) continue;
    for (PetscInt a = 0; a < dim; a++) {
      PetscCall(VecDuplicate(rho, &bar.chif[b][a]));
      PetscCall(VecSet(bar.chif[b][a], 0.0));
    }
  }
  if (out)
    for (PetscInt a = 0; a < dim; a++) {
      bar.chibar[a] = out->chibar[a];
      bar.sens[a]   = out->sens[a];
      if (bar.chibar[a]) PetscCall(VecSet(bar.chibar[a], 0.0));
      if (bar.sens[a]) PetscCall(VecSet(bar.sens[a], 0.0));
    }
  for (PetscInt n = N; n >= 1; n--) {
    for (PetscInt a = 0; a < dim; a++) PetscCall(VecCopy(U[(n - 1) * dim + a], s->u[a]));
    PetscCall(VecCopy(P[n - 1], s->p));
    s->t    = T[n - 1];
    s->step = n - 1;
    s->tape = tape;
    PetscCall(FGStepForward_RK3(s));
    s->tape = NULL;
    PetscCall(FGObjectiveAdjointState(o, n, ubar, pbar, &bar.inflow));
    PetscCall(FGObjectiveAdjointForces(o, n, wacc));
    PetscCall(FGStepAdjoint_RK3(s, tape, wacc, ubar, pbar, &bar));
    if (out && out->monitor) PetscCall(out->monitor(s, n - 1, T[n - 1], ubar, pbar, out->ctx));
    if (every && ((N - n + 1) % every == 0 || n == 1)) {
      PetscReal nrm = 0, v;
      for (PetscInt a = 0; a < dim; a++) {
        PetscCall(VecNorm(ubar[a], NORM_INFINITY, &v));
        nrm = PetscMax(nrm, v);
      }
      PetscCall(PetscTime(&w0));
      PetscCall(PetscPrintf(s->comm, "adjoint: step %6" PetscInt_FMT " t %10.4f  max|u_adj| %.3e  (%.1f s)\n", n - 1, (double)T[n - 1], (double)nrm, (double)(w0 - w1)));
    }
  }
  PetscCall(FGStepParamsReduce(s->comm, &bar));
  PetscCall(FGDesignGradient(d, &bar, ubar, g));
  PetscCall(FGObjectiveAdjointDesign(o, p, g));
  {
    PetscReal gn;
    PetscCall(VecNorm(g, NORM_2, &gn));
    PetscCheck(!PetscIsInfOrNanReal(gn), s->comm, FG_ERR_NUMERIC, "the gradient is not finite (|g| = %g): the adjoint blew up", (double)gn);
  }
  if (out) {
    for (PetscInt a = 0; a < dim; a++)
      if (out->ubar0[a]) PetscCall(VecCopy(ubar[a], out->ubar0[a]));
    if (out->pbar0) PetscCall(VecCopy(pbar, out->pbar0));
  }
  for (PetscInt b = 0; b < nb; b++)
    for (PetscInt a = 0; a < dim; a++) PetscCall(VecDestroy(&bar.chif[b][a]));
  for (PetscInt a = 0; a < dim; a++) PetscCall(VecDestroy(&ubar[a]));
  PetscCall(VecDestroy(&pbar));
  PetscCall(FGStepTapeDestroy(&tape));
  for (PetscInt n = 0; n < N; n++) {
    for (PetscInt a = 0; a < dim; a++) PetscCall(VecDestroy(&U[n * dim + a]));
    PetscCall(VecDestroy(&P[n]));
  }
  PetscCall(PetscFree3(U, P, T));
  PetscFunctionReturn(PETSC_SUCCESS);
}
