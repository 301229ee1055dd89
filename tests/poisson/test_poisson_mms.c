/*
  Manufactured solutions for the pressure Poisson solvers, 2D and 3D, periodic, Neumann,
  Dirichlet and mixed boundaries (different kinds in different directions, and Neumann at one
  end with Dirichlet at the other of one direction), non-unit lengths and non-square grids.

  For each problem, on three grids (refinement 1, 2, 4), both solvers solve L x = f with
  f = Laplacian(u) of a product u = prod_d phi_d(x_d) at the cell centres (see FGTestPhi), and
  the test asserts:
    - the observed order of the max-norm error, log2(e_h / e_{h/2}), is >= 1.9 (both steps),
    - FFT and KSP solutions agree to 1e-9 (max norm, relative), KSP at rtol 1e-13,
    - ||L x - f|| / ||f|| <= 1e-10 through FGPoissonApply, for both.
  Singular problems (no Dirichlet face) compare zero-mean solutions. The KSP runs on a
  FG_DECOMP_BLOCK grid (PETSc's decomposition), the FFT on the slab grid; they are compared in
  natural ordering.

  Sample runs:
    mpiexec -n 2 ./test_poisson_mms -fg_fftw_planner estimate
    ./test_poisson_mms -fg_fftw_planner estimate -only 3d-mixed -poisson_ksp_monitor
*/
#include "poisson_test.h"

static const char help[] = "Poisson solvers: manufactured solutions, order, FFT vs KSP, residuals.\n";

static const FGTestProblem problems[] = {
  {"2d-periodic",      2, {16, 16, 1},  {2.0, 1.0, 1},  {0.5, -1.0, 0}, {{P_, P_}, {P_, P_}, {P_, P_}}},
  {"2d-neumann",       2, {16, 24, 1},  {1.0, 1.5, 1},  {0, 0, 0},      {{N_, N_}, {N_, N_}, {P_, P_}}},
  {"2d-dirichlet",     2, {24, 16, 1},  {3.0, 1.0, 1},  {-1.0, 0, 0},   {{D_, D_}, {D_, D_}, {P_, P_}}},
  {"2d-per-dir",       2, {16, 16, 1},  {1.0, 2.0, 1},  {0, 0, 0},      {{P_, P_}, {D_, D_}, {P_, P_}}},
  {"2d-nd-dn",         2, {16, 20, 1},  {1.0, 1.0, 1},  {0, 0, 0},      {{N_, D_}, {D_, N_}, {P_, P_}}},
  {"2d-cavity-out",    2, {20, 16, 1},  {1.25, 1.0, 1}, {0, 0, 0},      {{N_, N_}, {N_, D_}, {P_, P_}}},
  {"3d-periodic",      3, {8, 8, 8},    {1.0, 2.0, 1.0},{0, 0, 0},      {{P_, P_}, {P_, P_}, {P_, P_}}},
  {"3d-neumann",       3, {8, 12, 8},   {1.0, 1.5, 1.0},{0, 0, 0},      {{N_, N_}, {N_, N_}, {N_, N_}}},
  {"3d-dirichlet",     3, {8, 8, 12},   {1.0, 1.0, 1.5},{0, 0, 0},      {{D_, D_}, {D_, D_}, {D_, D_}}},
  {"3d-mixed",         3, {8, 8, 8},    {2.0, 1.0, 1.0},{0, 0, 0},      {{P_, P_}, {N_, D_}, {D_, N_}}},
  {"3d-mixed2",        3, {12, 8, 8},   {1.5, 1.0, 1.0},{0, 0.5, 0},    {{D_, D_}, {P_, P_}, {N_, N_}}},
  {"3d-channel-out",   3, {8, 8, 8},    {1.0, 1.0, 2.0},{0, 0, 0},      {{P_, P_}, {N_, N_}, {N_, D_}}},
};

/* Solve one problem on one grid with both solvers; errors against u, and the checks that do not
   need the other grids. */
static PetscErrorCode RunLevel(const FGTestProblem *t, PetscInt refine, PetscReal err[2])
{
  FGGrid    gs, gb;
  FGPoisson pf, pk;
  Vec       u, f, x, ub, fb, xb;
  PetscReal res[2], agree, e;
  PetscInt  its;
  PetscBool singular;

  PetscFunctionBeginUser;
  PetscCall(FGTestGridCreate(PETSC_COMM_WORLD, t, refine, FG_DECOMP_SLAB, &gs));
  PetscCall(FGTestGridCreate(PETSC_COMM_WORLD, t, refine, FG_DECOMP_BLOCK, &gb));
  PetscCall(FGPoissonCreate(gs, FG_POISSON_FFTW, t->bc, &pf));
  PetscCall(FGPoissonCreate(gb, FG_POISSON_KSP, t->bc, &pk));
  PetscCall(FGPoissonSetTolerances(pk, 1e-13, 1000));
  PetscCall(FGPoissonIsSingular(pf, &singular));

  /* FFT on the slab grid */
  PetscCall(DMCreateGlobalVector(gs->da, &u));
  PetscCall(VecDuplicate(u, &f));
  PetscCall(VecDuplicate(u, &x));
  PetscCall(FGTestManufactured(gs, t, u, f));
  if (singular) PetscCall(FGTestRemoveMean(gs, u));
  PetscCall(FGPoissonSolve(pf, f, x));
  PetscCall(FGTestResidual(pf, gs, x, f, &res[0]));
  PetscCall(VecAXPY(x, -1.0, u));
  PetscCall(VecNorm(x, NORM_INFINITY, &err[0]));
  PetscCall(VecAXPY(x, 1.0, u));

  /* KSP on the block grid */
  PetscCall(DMCreateGlobalVector(gb->da, &ub));
  PetscCall(VecDuplicate(ub, &fb));
  PetscCall(VecDuplicate(ub, &xb));
  PetscCall(FGTestManufactured(gb, t, ub, fb));
  if (singular) PetscCall(FGTestRemoveMean(gb, ub));
  PetscCall(FGPoissonSolve(pk, fb, xb));
  PetscCall(FGPoissonGetIterations(pk, &its));
  PetscCall(FGTestResidual(pk, gb, xb, fb, &res[1]));
  PetscCall(FGTestRelDiffNatural(PETSC_COMM_WORLD, gb, xb, gs, x, &agree));
  PetscCall(VecAXPY(xb, -1.0, ub));
  PetscCall(VecNorm(xb, NORM_INFINITY, &err[1]));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %4" PetscInt_FMT " x %4" PetscInt_FMT " x %4" PetscInt_FMT "  err fft %.3e ksp %.3e  res fft %.1e ksp %.1e (%3" PetscInt_FMT " its)  |fft-ksp| %.1e\n", gs->n[0], gs->n[1], gs->n[2], (double)err[0], (double)err[1], (double)res[0], (double)res[1], its, (double)agree));
  FGTestCheck(res[0] <= 1e-10, "%s refine %" PetscInt_FMT ": FFT residual %g > 1e-10", t->name, refine, (double)res[0]);
  FGTestCheck(res[1] <= 1e-10, "%s refine %" PetscInt_FMT ": KSP residual %g > 1e-10", t->name, refine, (double)res[1]);
  FGTestCheck(agree <= 1e-9, "%s refine %" PetscInt_FMT ": FFT and KSP differ by %g > 1e-9", t->name, refine, (double)agree);
  PetscCall(VecNorm(u, NORM_INFINITY, &e));
  FGTestCheck(err[0] < 0.1 * e, "%s refine %" PetscInt_FMT ": FFT error %g is not small against max|u| %g", t->name, refine, (double)err[0], (double)e);

  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&ub));
  PetscCall(VecDestroy(&fb));
  PetscCall(VecDestroy(&xb));
  PetscCall(FGPoissonDestroy(&pf));
  PetscCall(FGPoissonDestroy(&pk));
  PetscCall(FGGridDestroy(&gs));
  PetscCall(FGGridDestroy(&gb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunAll(void)
{
  char only[64] = "";

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-only", only, sizeof(only), NULL));
  for (size_t c = 0; c < sizeof(problems) / sizeof(problems[0]); c++) {
    const FGTestProblem *t = &problems[c];
    PetscReal            err[3][2];
    char                 bcs[64];

    if (only[0] && strcmp(only, t->name)) continue;
    FGTestBCString(t, bcs, sizeof(bcs));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s (%s), L = %g x %g x %g\n", t->name, bcs, (double)t->L[0], (double)t->L[1], (double)(t->dim == 3 ? t->L[2] : 0)));
    for (PetscInt l = 0; l < 3; l++) PetscCall(RunLevel(t, (PetscInt)1 << l, err[l]));
    for (PetscInt s = 0; s < 2; s++) {
      PetscReal o1 = PetscLog2Real(err[0][s] / err[1][s]), o2 = PetscLog2Real(err[1][s] / err[2][s]);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  observed order %s: %.3f %.3f\n", s ? "ksp" : "fft", (double)o1, (double)o2));
      FGTestCheck(o1 >= 1.9 && o2 >= 1.9, "%s: observed order of the %s solution %.3f, %.3f < 1.9", t->name, s ? "KSP" : "FFT", (double)o1, (double)o2);
    }
  }
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
