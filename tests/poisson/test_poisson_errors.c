/*
  Error paths and small contracts of the Poisson module:
    - a KSP solve that cannot converge (max_it too small) raises FG_ERR_NUMERIC with a message
      that says so, instead of returning a wrong answer; the solver is usable afterwards;
    - a KSP that claims convergence with a wrong answer (a preconditioner whose transpose returns
      zero, as hypre's does through PETSc 3.18: CG stops with CONVERGED_ATOL and x = 0) is caught
      by the true-residual check: FG_ERR_NUMERIC; with hypre itself (when PETSc has it) the
      transpose solve is either right or FG_ERR_NUMERIC;
    - the FFT solver on a FG_DECOMP_BLOCK grid, periodicity that does not match the grid, and a
      bad tolerance are FG_ERR_INPUT;
    - FGPoissonBCFromCase maps velocity kinds to pressure kinds (periodic -> periodic; wall, lid,
      slip, inflow -> Neumann; outflow -> Dirichlet) and rejects a half-periodic direction.
  Errors are caught with PetscReturnErrorHandler.

  Sample runs:
    mpiexec -n 2 ./test_poisson_errors -fg_fftw_planner estimate
*/
#include "poisson_test.h"
#include <string.h>

static const char help[] = "Poisson solvers: error paths and boundary kinds from a case.\n";

static PetscErrorCode ExpectError(PetscErrorCode got, PetscErrorCode want, const char *what)
{
  PetscFunctionBeginUser;
  FGTestCheck(got == want, "%s: expected error %d, got %d", what, (int)want, (int)got);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-58s -> error %d %s\n", what, (int)got, got == want ? "(as expected)" : "(WRONG)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestKSPNotConverged(void)
{
  const FGTestProblem t = {"2d", 2, {32, 32, 1}, {1, 1, 1}, {0, 0, 0}, {{N_, N_}, {N_, D_}, {P_, P_}}};
  FGGrid              g;
  FGPoisson           p;
  Vec                 b, x;
  PetscErrorCode      ierr;
  PetscReal           res = 0;
  PetscInt            its;
  const char         *text = NULL;
  char               *specific = NULL;

  PetscFunctionBeginUser;
  PetscCall(FGTestGridCreate(PETSC_COMM_WORLD, &t, 1, FG_DECOMP_BLOCK, &g));
  PetscCall(FGPoissonCreate(g, FG_POISSON_KSP, t.bc, &p));
  PetscCall(FGPoissonSetTolerances(p, 1e-12, 2));
  PetscCall(DMCreateGlobalVector(g->da, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(FGTestRoughRHS(g, b));

  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FGPoissonSolve(p, b, x);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, FG_ERR_NUMERIC, "KSP with max_it 2: FG_ERR_NUMERIC"));
  PetscCall(PetscErrorMessage(ierr, &text, &specific));
  FGTestCheck(specific && strstr(specific, "did not converge") && strstr(specific, "DIVERGED_ITS"), "the message does not say that the solve did not converge: %s", specific ? specific : "(none)");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    message: %s\n", specific ? specific : "(none)"));

  /* the same solver converges once allowed to */
  PetscCall(FGPoissonSetTolerances(p, 1e-10, 500));
  PetscCall(FGPoissonSolve(p, b, x));
  PetscCall(FGPoissonGetIterations(p, &its));
  PetscCall(FGTestResidual(p, g, x, b, &res));
  FGTestCheck(its > 2 && res <= 1e-10, "after the failure: %" PetscInt_FMT " iterations, residual %g", its, (double)res);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  then max_it 500: %" PetscInt_FMT " iterations, residual %.2e\n", its, (double)res));

  /* SolveTranspose checks too */
  PetscCall(FGPoissonSetTolerances(p, 1e-12, 1));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FGPoissonSolveTranspose(p, b, x);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, FG_ERR_NUMERIC, "KSP transpose with max_it 1: FG_ERR_NUMERIC"));

  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(FGPoissonDestroy(&p));
  PetscCall(FGGridDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyIdentity_Private(PC pc, Vec x, Vec y)
{
  PetscFunctionBeginUser;
  PetscCall(VecCopy(x, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApplyZero_Private(PC pc, Vec x, Vec y)
{
  PetscFunctionBeginUser;
  PetscCall(VecSet(y, 0.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A preconditioner that lies in its transpose, and hypre's. */
static PetscErrorCode TestKSPWrongAnswer(void)
{
  const FGTestProblem t = {"2d", 2, {24, 24, 1}, {1, 1, 1}, {0, 0, 0}, {{N_, N_}, {D_, N_}, {P_, P_}}};
  FGGrid              g;
  FGPoisson           p;
  KSP                 ksp;
  PC                  pc;
  Vec                 b, x;
  PetscErrorCode      ierr;
  PetscBool           hypre;

  PetscFunctionBeginUser;
  PetscCall(FGTestGridCreate(PETSC_COMM_WORLD, &t, 1, FG_DECOMP_BLOCK, &g));
  PetscCall(DMCreateGlobalVector(g->da, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(FGTestRoughRHS(g, b));

  PetscCall(FGPoissonCreate(g, FG_POISSON_KSP, t.bc, &p));
  PetscCall(FGPoissonSetUp(p));
  PetscCall(FGPoissonGetKSP(p, &ksp));
  FGTestCheck(ksp != NULL, "FGPoissonGetKSP gave no KSP");
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCSHELL));
  PetscCall(PCShellSetApply(pc, PCApplyIdentity_Private));
  PetscCall(PCShellSetApplyTranspose(pc, PCApplyZero_Private));
  PetscCall(FGPoissonSolve(p, b, x)); /* plain CG: fine */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FGPoissonSolveTranspose(p, b, x);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, FG_ERR_NUMERIC, "KSP transpose 'converged' to x = 0: FG_ERR_NUMERIC"));
  PetscCall(FGPoissonDestroy(&p));

  PetscCall(PetscHasExternalPackage("hypre", &hypre));
  if (hypre) {
    PetscScalar a, c;
    Vec         y;
    PetscCall(PetscOptionsSetValue(NULL, "-poisson_pc_type", "hypre"));
    PetscCall(FGPoissonCreate(g, FG_POISSON_KSP, t.bc, &p));
    PetscCall(FGPoissonSetTolerances(p, 1e-12, 500));
    PetscCall(FGPoissonSetUp(p)); /* reads the options */
    PetscCall(PetscOptionsClearValue(NULL, "-poisson_pc_type"));
    PetscCall(FGPoissonGetKSP(p, &ksp));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCHYPRE, &hypre));
    FGTestCheck(hypre, "-poisson_pc_type hypre did not select hypre");
    PetscCall(VecDuplicate(b, &y));
    PetscCall(FGPoissonSolve(p, b, x));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = FGPoissonSolveTranspose(p, x, y);
    PetscCall(PetscPopErrorHandler());
    if (!ierr) { /* then it must be right: <S b, x> = <b, S^T x> */
      PetscCall(VecDot(x, x, &a));
      PetscCall(VecDot(b, y, &c));
      FGTestCheck(PetscAbsScalar(a - c) <= 1e-9 * PetscAbsScalar(a), "hypre: the transpose solve is wrong without an error: %g vs %g", (double)PetscRealPart(a), (double)PetscRealPart(c));
    }
    FGTestCheck(ierr == 0 || ierr == FG_ERR_NUMERIC, "hypre: the transpose solve failed with error %d", (int)ierr);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-58s -> %s\n", "hypre (BoomerAMG) transpose solve", ierr ? "FG_ERR_NUMERIC (its transpose returns zero)" : "correct"));
    PetscCall(VecDestroy(&y));
    PetscCall(FGPoissonDestroy(&p));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(FGGridDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestInputErrors(void)
{
  const FGTestProblem t   = {"3d", 3, {8, 8, 8}, {1, 1, 1}, {0, 0, 0}, {{P_, P_}, {N_, N_}, {D_, D_}}};
  FGPoissonBC         bad[3][2];
  FGGrid              g;
  FGPoisson           p = NULL;
  PetscErrorCode      ierr;

  PetscFunctionBeginUser;
  PetscCall(FGTestGridCreate(PETSC_COMM_WORLD, &t, 1, FG_DECOMP_BLOCK, &g));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FGPoissonCreate(g, FG_POISSON_FFTW, t.bc, &p);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, FG_ERR_INPUT, "FFT solver on a block-decomposed grid: FG_ERR_INPUT"));

  memcpy(bad, t.bc, sizeof(bad));
  bad[0][1] = FG_PBC_NEUMANN; /* x is periodic in the grid */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FGPoissonCreate(g, FG_POISSON_KSP, (const FGPoissonBC(*)[2])bad, &p);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, FG_ERR_INPUT, "Neumann face on a periodic direction: FG_ERR_INPUT"));

  memcpy(bad, t.bc, sizeof(bad));
  bad[1][0] = FG_PBC_PERIODIC; /* y is not periodic in the grid */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FGPoissonCreate(g, FG_POISSON_KSP, (const FGPoissonBC(*)[2])bad, &p);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, FG_ERR_INPUT, "periodic face on a non-periodic direction: FG_ERR_INPUT"));

  PetscCall(FGPoissonCreate(g, FG_POISSON_KSP, t.bc, &p));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FGPoissonSetTolerances(p, 2.0, 10);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, FG_ERR_INPUT, "rtol 2: FG_ERR_INPUT"));
  PetscCall(FGPoissonDestroy(&p));
  PetscCall(FGGridDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestBCFromCase(void)
{
  FGCase        *c;
  FGPoissonBC    bc[3][2];
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&c));
  c->grid.dim              = 3;
  c->boundary[0][0].kind   = FG_BC_WALL;
  c->boundary[0][1].kind   = FG_BC_OUTFLOW;
  c->boundary[1][0].kind   = FG_BC_INFLOW;
  c->boundary[1][1].kind   = FG_BC_LID;
  c->boundary[2][0].kind   = FG_BC_SLIP;
  c->boundary[2][1].kind   = FG_BC_SLIP;
  PetscCall(FGPoissonBCFromCase(c, bc));
  FGTestCheck(bc[0][0] == FG_PBC_NEUMANN && bc[0][1] == FG_PBC_DIRICHLET, "wall/outflow -> %s/%s", FGPoissonBCNames[bc[0][0]], FGPoissonBCNames[bc[0][1]]);
  FGTestCheck(bc[1][0] == FG_PBC_NEUMANN && bc[1][1] == FG_PBC_NEUMANN, "inflow/lid -> %s/%s", FGPoissonBCNames[bc[1][0]], FGPoissonBCNames[bc[1][1]]);
  FGTestCheck(bc[2][0] == FG_PBC_NEUMANN && bc[2][1] == FG_PBC_NEUMANN, "slip/slip -> %s/%s", FGPoissonBCNames[bc[2][0]], FGPoissonBCNames[bc[2][1]]);

  c->grid.dim            = 2;
  c->boundary[0][0].kind = FG_BC_PERIODIC;
  c->boundary[0][1].kind = FG_BC_PERIODIC;
  c->boundary[1][0].kind = FG_BC_OUTFLOW;
  c->boundary[1][1].kind = FG_BC_WALL;
  PetscCall(FGPoissonBCFromCase(c, bc));
  FGTestCheck(bc[0][0] == FG_PBC_PERIODIC && bc[0][1] == FG_PBC_PERIODIC, "periodic -> %s/%s", FGPoissonBCNames[bc[0][0]], FGPoissonBCNames[bc[0][1]]);
  FGTestCheck(bc[1][0] == FG_PBC_DIRICHLET && bc[1][1] == FG_PBC_NEUMANN, "outflow/wall -> %s/%s", FGPoissonBCNames[bc[1][0]], FGPoissonBCNames[bc[1][1]]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  FGPoissonBCFromCase: wall, lid, slip, inflow -> neumann; outflow -> dirichlet; periodic -> periodic\n"));

  c->boundary[0][1].kind = FG_BC_WALL; /* periodic on one face only */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FGPoissonBCFromCase(c, bc);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ExpectError(ierr, FG_ERR_INPUT, "a direction periodic on one face only: FG_ERR_INPUT"));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunAll(void)
{
  PetscFunctionBeginUser;
  PetscCall(TestKSPNotConverged());
  PetscCall(TestKSPWrongAnswer());
  PetscCall(TestInputErrors());
  PetscCall(TestBCFromCase());
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;

  if (FGInitialize(&argc, &argv, help)) return 1;
  ierr = RunAll();
  if (!ierr) ierr = PetscPrintf(PETSC_COMM_WORLD, "%s\n", fg_test_failures ? "FAILED" : "all checks passed");
  return FGTestExit(ierr);
}
