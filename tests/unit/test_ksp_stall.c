/*
  The KSP stall test (src/sys/ksp.c, FGKSPSetStallTest), on small systems whose behaviour is
  known exactly, at any number of ranks:

  1. A system on which restarted GMRES stagnates for good without breaking down:
     A = diag(D, Z), D diagonal in [1, 2], Z the cyclic shift of m unknowns (Z e_j = e_{j+1 mod m}),
     b = (b_D, e_0) with |b_D| = 100. GMRES(20) takes the D part of the residual to round-off in
     tens of iterations and never reduces the Z part (a shift's Krylov space from e_0 reaches the
     solution only at iteration m > 20), so |r|/|b| stays at 1/|b| forever. With a window of 30
     iterations the solve ends within 100 by the stall test, its true residual within a halving of
     1/|b| (it cannot halve any more): DIVERGED_ITS where the accepted level is below 1/|b|,
     CONVERGED_ITS with the solution GMRES holds where it is 2/|b|; without the test it runs to
     max_it (5000).
  2. A regular system (diag(D, D)) converges to rtol in the same iterations with the test as without,
     and is not reported as stalled.
  3. Options: -ksp_stall_its and -ksp_stall_rtol under the KSP's prefix override the arguments; a
     negative window is FG_ERR_INPUT naming the option; a convergence test chosen on the command
     line (-ksp_convergence_test skip) is kept.
*/
#include "../fgtest.h"

/* diag(D, Z) (zshift) or diag(D, D) of 2m unknowns; D_ii = 1 + (37 i mod 101)/100 */
static PetscErrorCode CreateA(PetscInt m, PetscBool zshift, Mat *A)
{
  PetscInt lo, hi;

  PetscFunctionBeginUser;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 2 * m, 2 * m, 1, NULL, 1, NULL, A));
  PetscCall(MatGetOwnershipRange(*A, &lo, &hi));
  for (PetscInt r = lo; r < hi; r++) {
    const PetscInt k = r % m;
    PetscInt       c = r;
    PetscScalar    v = 1.0 + (PetscReal)((37 * k) % 101) / 100.0;
    if (zshift && r >= m) c = m + (k + m - 1) % m, v = 1.0;
    PetscCall(MatSetValue(*A, r, c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A solve of A x = b with prefix pre (GMRES(20), no preconditioner, rtol 1e-12, max_it 5000) and
   the stall test (window its, accept) unless its < -1; reason, iterations, stalled, |b - A x|/|b|. */
static PetscErrorCode Solve(Mat A, Vec b, const char *pre, PetscInt its, PetscReal accept, KSPConvergedReason *reason, PetscInt *nits, PetscBool *stalled, PetscReal *rtrue)
{
  KSP       ksp;
  PC        pc;
  Vec       x, r;
  PetscReal bn, rn;

  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, pre));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGMRESSetRestart(ksp, 20));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCNONE));
  PetscCall(KSPSetTolerances(ksp, 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, 5000));
  PetscCall(KSPSetFromOptions(ksp));
  if (its >= -1) PetscCall(FGKSPSetStallTest(ksp, its == -1 ? PETSC_DEFAULT : its, accept));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(KSPGetIterationNumber(ksp, nits));
  PetscCall(FGKSPStallGet(ksp, stalled, NULL));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rn));
  PetscCall(VecNorm(b, NORM_2, &bn));
  *rtrue = rn / bn;
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&r));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Run(void)
{
  const PetscInt     m = 200;
  Mat                A, D;
  Vec                b;
  PetscInt           lo, hi;
  PetscReal          bn, floor, rt, rt0;
  KSPConvergedReason reason, reason0;
  PetscInt           its, its0;
  PetscBool          stalled;

  PetscFunctionBeginUser;
  PetscCall(CreateA(m, PETSC_TRUE, &A));
  PetscCall(CreateA(m, PETSC_FALSE, &D));
  PetscCall(MatCreateVecs(A, NULL, &b));
  PetscCall(VecGetOwnershipRange(b, &lo, &hi));
  for (PetscInt r = lo; r < hi; r++) PetscCall(VecSetValue(b, r, r < m ? 10.0 * PetscSinReal((PetscReal)r) : (r == m ? 1.0 : 0.0), INSERT_VALUES));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  PetscCall(VecNorm(b, NORM_2, &bn));
  floor = 1.0 / bn; /* the Z part, e_0, which GMRES(20) never reduces */

  /* 1. the stagnating system: stalls, refused and accepted */
  PetscCall(Solve(A, b, "a_", 30, 0.0, &reason, &its, &stalled, &rt));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "stagnating, refused: %s in %" PetscInt_FMT " iterations, stalled %d, |b - Ax|/|b| %.6e (floor %.6e)\n", KSPConvergedReasons[reason], its, (int)stalled, (double)rt, (double)floor));
  FGTestCheck(reason == KSP_DIVERGED_ITS && stalled && its <= 100, "the stalled solve should end by the stall test within 100 iterations (DIVERGED_ITS), got %s after %" PetscInt_FMT, KSPConvergedReasons[reason], its);
  FGTestCheck(rt >= floor * (1 - 1e-12) && rt <= 2 * floor, "the stalled residual %.10e should be within a halving of the Z part's %.10e", (double)rt, (double)floor);
  PetscCall(Solve(A, b, "b_", 30, 2 * floor, &reason, &its, &stalled, &rt));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "stagnating, accepted: %s in %" PetscInt_FMT " iterations, stalled %d, |b - Ax|/|b| %.6e\n", KSPConvergedReasons[reason], its, (int)stalled, (double)rt));
  FGTestCheck(reason == KSP_CONVERGED_ITS && stalled && its <= 100, "a stall below the accepted level should converge (CONVERGED_ITS) within 100 iterations, got %s after %" PetscInt_FMT, KSPConvergedReasons[reason], its);
  FGTestCheck(rt >= floor * (1 - 1e-12) && rt <= 2 * floor, "the accepted solution's residual %.10e should be within a halving of the Z part's %.10e", (double)rt, (double)floor);
  /* without the test it runs to max_it (the cost the test removes) */
  PetscCall(Solve(A, b, "c_", -2, 0.0, &reason, &its, &stalled, &rt));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "stagnating, no stall test: %s in %" PetscInt_FMT " iterations\n", KSPConvergedReasons[reason], its));
  FGTestCheck(reason == KSP_DIVERGED_ITS && its == 5000, "without the stall test the stagnating solve should run to max_it, got %s after %" PetscInt_FMT, KSPConvergedReasons[reason], its);

  /* 2. the regular system: unchanged */
  PetscCall(Solve(D, b, "d_", -2, 0.0, &reason0, &its0, &stalled, &rt0));
  PetscCall(Solve(D, b, "d_", -1, 0.5, &reason, &its, &stalled, &rt));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "regular: %s in %" PetscInt_FMT " iterations (without the test %s in %" PetscInt_FMT "), |b - Ax|/|b| %.3e\n", KSPConvergedReasons[reason], its, KSPConvergedReasons[reason0], its0, (double)rt));
  FGTestCheck(reason == KSP_CONVERGED_RTOL && reason0 == reason && its == its0 && !stalled && rt == rt0, "the regular solve should be untouched by the stall test");

  /* 3. options: -f_ksp_stall_its 0 switches the test off on the
     stagnating system; a negative window is an input error; a test chosen on the command line stays */
  PetscCall(PetscOptionsSetValue(NULL, "-f_ksp_stall_its", "0"));
  PetscCall(Solve(A, b, "f_", 30, 0.0, &reason, &its, &stalled, &rt));
  FGTestCheck(!stalled && its == 5000, "-f_ksp_stall_its 0 should switch the test off (got %" PetscInt_FMT " iterations, stalled %d)", its, (int)stalled);
  PetscCall(PetscOptionsSetValue(NULL, "-g_ksp_stall_rtol", "0.9"));
  PetscCall(Solve(A, b, "g_", 30, 0.0, &reason, &its, &stalled, &rt));
  FGTestCheck(reason == KSP_CONVERGED_ITS && stalled, "-g_ksp_stall_rtol 0.9 should accept the stall, got %s", KSPConvergedReasons[reason]);
  {
    FGTestCaught   c = {0};
    PetscErrorCode e;
    PetscCall(PetscOptionsSetValue(NULL, "-h_ksp_stall_its", "-3"));
    FGTestCatch(Solve(A, b, "h_", 30, 0.0, &reason, &its, &stalled, &rt), &c, e);
    FGTestCheck(e == FG_ERR_INPUT && strstr(c.msg, "-h_ksp_stall_its -3"), "a negative window should be FG_ERR_INPUT naming the option, got %d: %s", (int)e, c.msg);
  }
  PetscCall(PetscOptionsSetValue(NULL, "-k_ksp_convergence_test", "skip"));
  PetscCall(PetscOptionsSetValue(NULL, "-k_ksp_max_it", "7"));
  PetscCall(Solve(A, b, "k_", 30, 0.0, &reason, &its, &stalled, &rt));
  FGTestCheck(its == 7 && !stalled, "a convergence test chosen on the command line should be kept (got %" PetscInt_FMT " iterations, stalled %d)", its, (int)stalled);

  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&D));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;

  if (FGInitialize(&argc, &argv, "The KSP stall test.\n")) return 1;
  ierr = Run();
  if (!ierr) ierr = PetscPrintf(PETSC_COMM_WORLD, "%s\n", fg_test_failures ? "FAILED" : "all checks passed");
  return FGTestExit(ierr);
}
