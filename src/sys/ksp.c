/*
  KSP helpers shared by the solvers: checks of the tolerances a user can set, and a stall test.

  The stall test. A Krylov solve that stops making progress (an operator that is singular on a
  component of the right-hand side, a residual at the round-off of an inexact operator, an
  unsuitable preconditioner) otherwise runs to its iteration limit: Newton's solves of the steady
  state allow 5000 GMRES iterations, ten minutes on a 2D-1 grid of D/20 for a solve whose residual
  had stopped at 1e-7 (measured on a cut-cell patch not kept); tests/adjoint/steady_periodic.yaml
  without its pressure null space ran 5000 iterations at its fifth Newton step and exited 3, and
  with the test ends that solve after 460 at |r|/|b| 2.9e-9 and converges (measured).
  The test wraps PETSc's default one (KSPConvergedDefault: rtol, atol, divtol, max_it, unchanged)
  and ends a solve whose residual norm has not halved within the last `its` iterations: with
  KSP_CONVERGED_ITS when |r| <= accept |r_0| (a stalled solve that is good enough for its caller,
  such as an inexact Newton step), else with KSP_DIVERGED_ITS; FGKSPStallGet tells which solves
  stalled, so that a caller names it. A solve that converges, however slowly, at least halves its
  residual every `its` iterations on average (the default tolerances, 1e-12 in 5000 iterations,
  ask for a halving every 125), but not evenly: Newton's solves of tests/adjoint/steady.yaml
  without a preconditioner, which converge in 1200-3700 iterations, went up to 31, 49 and 198
  iterations without halving their residual with GMRES(60), GMRES(5) and GMRES(2) (measured), and a
  window of two restarts (10) ended GMRES(5)'s first solve at |r|/|b| 0.66. So the default window
  is 400 iterations, or two GMRES restarts where that is more (a full restart cycle without
  progress means restarted GMRES stagnates for good).
*/
#include <fg/sys.h>

/*@C
  FGKSPCheckOptions - after KSPSetFromOptions: the tolerances a user can set on the command line
  (-<prefix>ksp_max_it, _rtol, _atol, _divtol) are ones a solve can meet; else FG_ERR_INPUT naming
  the option (a negative max_it would end every solve at once, "not converged": exit 3). Collective.
@*/
PetscErrorCode FGKSPCheckOptions(KSP ksp)
{
  PetscReal   rtol, atol, dtol;
  PetscInt    maxit;
  const char *prefix;
  MPI_Comm    comm;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectGetComm((PetscObject)ksp, &comm));
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  if (!prefix) prefix = "";
  PetscCall(KSPGetTolerances(ksp, &rtol, &atol, &dtol, &maxit));
  PetscCheck(maxit >= 1, comm, FG_ERR_INPUT, "-%sksp_max_it %" PetscInt_FMT ": must be >= 1", prefix, maxit);
  PetscCheck(rtol >= 0 && rtol < 1, comm, FG_ERR_INPUT, "-%sksp_rtol %g: must be in [0, 1)", prefix, (double)rtol);
  PetscCheck(atol >= 0 && !PetscIsInfOrNanReal(atol), comm, FG_ERR_INPUT, "-%sksp_atol %g: must be >= 0 and finite", prefix, (double)atol);
  PetscCheck(dtol > 1 || dtol == (PetscReal)PETSC_DEFAULT, comm, FG_ERR_INPUT, "-%sksp_divtol %g: must be > 1", prefix, (double)dtol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  void     *dctx;    /* KSPConvergedDefault's context */
  PetscInt  its;     /* the window: at most this many iterations without halving |r| */
  PetscReal accept;  /* a stalled solve with |r| <= accept |r_0| counts as converged */
  PetscReal r0, ref; /* |r_0|; |r| at the last halving */
  PetscInt  kref;    /* its iteration */
  PetscBool stalled; /* the last solve stalled */
} FGKSPStall;

static PetscErrorCode FGKSPStallDestroy_Private(void *ctx)
{
  FGKSPStall *st = (FGKSPStall *)ctx;

  PetscFunctionBeginUser;
  PetscCall(KSPConvergedDefaultDestroy(st->dctx));
  PetscCall(PetscFree(st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGKSPStallConverged_Private(KSP ksp, PetscInt it, PetscReal rnorm, KSPConvergedReason *reason, void *ctx)
{
  FGKSPStall *st = (FGKSPStall *)ctx;

  PetscFunctionBeginUser;
  PetscCall(KSPConvergedDefault(ksp, it, rnorm, reason, st->dctx));
  if (it == 0) {
    st->r0 = st->ref = rnorm;
    st->kref         = 0;
    st->stalled      = PETSC_FALSE;
  }
  if (*reason != KSP_CONVERGED_ITERATING || st->its <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (rnorm <= 0.5 * st->ref) {
    st->ref  = rnorm;
    st->kref = it;
  } else if (it - st->kref >= st->its) {
    st->stalled = PETSC_TRUE;
    *reason     = rnorm <= st->accept * st->r0 ? KSP_CONVERGED_ITS : KSP_DIVERGED_ITS;
    PetscCall(PetscInfo(ksp, "stalled: |r| %g not halved since iteration %" PetscInt_FMT " (|r| %g); |r|/|r_0| %g, accept %g\n", (double)rnorm, st->kref, (double)st->ref, (double)(st->r0 > 0 ? rnorm / st->r0 : 0), (double)st->accept));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -<prefix>ksp_stall_its and _stall_rtol over its and accept, checked (FG_ERR_INPUT naming them). */
static PetscErrorCode FGKSPStallOptions_Private(MPI_Comm comm, const char prefix[], PetscInt *its, PetscReal *accept)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetInt(NULL, prefix, "-ksp_stall_its", its, NULL));
  PetscCall(PetscOptionsGetReal(NULL, prefix, "-ksp_stall_rtol", accept, NULL));
  PetscCheck(*its >= 0, comm, FG_ERR_INPUT, "-%sksp_stall_its %" PetscInt_FMT ": must be >= 0 (0: no stall test)", prefix ? prefix : "", *its);
  PetscCheck(*accept >= 0 && *accept < 1, comm, FG_ERR_INPUT, "-%sksp_stall_rtol %g: must be in [0, 1)", prefix ? prefix : "", (double)*accept);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGKSPCheckStallOptions - the stall test's options under prefix (-<prefix>ksp_stall_its,
  _stall_rtol), checked before any solve is set up, so that a bad value for a solve late in a run
  (the adjoint's, after the forward) stops it at the start. Collective.
@*/
PetscErrorCode FGKSPCheckStallOptions(MPI_Comm comm, const char prefix[])
{
  PetscInt  its    = 0;
  PetscReal accept = 0;

  PetscFunctionBeginUser;
  PetscCall(FGKSPStallOptions_Private(comm, prefix, &its, &accept));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGKSPSetStallTest - after KSPSetFromOptions: end ksp's solves that stall (the header). its: the
  window (PETSC_DEFAULT: 400, or twice the restart of GMRES if more; 0: off), accept: a stalled solve
  with |r| <= accept |r_0| counts as converged (0: never). The options -<prefix>ksp_stall_its and
  -<prefix>ksp_stall_rtol override both. Only on PETSc's default convergence test (a test chosen on
  the command line is kept as it is). Collective.
@*/
PetscErrorCode FGKSPSetStallTest(KSP ksp, PetscInt its, PetscReal accept)
{
  PetscErrorCode (*conv)(KSP, PetscInt, PetscReal, KSPConvergedReason *, void *);
  const char *prefix;
  FGKSPStall *st;
  MPI_Comm    comm;
  PetscBool   gmres;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectGetComm((PetscObject)ksp, &comm));
  PetscCall(KSPGetConvergenceTest(ksp, &conv, NULL, NULL));
  if (conv != KSPConvergedDefault) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  if (its == PETSC_DEFAULT) {
    PetscInt restart = 60;
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPGMRES, &gmres));
    if (gmres) PetscCall(KSPGMRESGetRestart(ksp, &restart));
    its = PetscMax(gmres ? 2 * restart : 0, 400);
  }
  PetscCall(FGKSPStallOptions_Private(comm, prefix, &its, &accept));
  PetscCall(PetscNew(&st));
  st->its    = its;
  st->accept = accept;
  PetscCall(KSPConvergedDefaultCreate(&st->dctx));
  PetscCall(KSPSetConvergenceTest(ksp, FGKSPStallConverged_Private, st, FGKSPStallDestroy_Private));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGKSPStallGet - whether ksp's last solve ended by the stall test (FGKSPSetStallTest), and its
  |r|/|r_0| then (NULL: not wanted). PETSC_FALSE where the test is not installed. Not collective.
@*/
PetscErrorCode FGKSPStallGet(KSP ksp, PetscBool *stalled, PetscReal *rrel)
{
  PetscErrorCode (*conv)(KSP, PetscInt, PetscReal, KSPConvergedReason *, void *);
  void *ctx;

  PetscFunctionBeginUser;
  *stalled = PETSC_FALSE;
  if (rrel) *rrel = 0;
  PetscCall(KSPGetConvergenceTest(ksp, &conv, &ctx, NULL));
  if (conv == FGKSPStallConverged_Private) {
    FGKSPStall *st = (FGKSPStall *)ctx;
    PetscReal   rn;
    *stalled = st->stalled;
    PetscCall(KSPGetResidualNorm(ksp, &rn));
    if (rrel) *rrel = st->r0 > 0 ? rn / st->r0 : 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
