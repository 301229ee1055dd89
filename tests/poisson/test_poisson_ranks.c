/*
  Rank independence of the Poisson solvers, self-contained: in one MPI run every problem is
  solved twice, on PETSC_COMM_WORLD (distributed) and on PETSC_COMM_SELF (every rank solves the
  whole problem serially); the distributed solution is brought to natural ordering on rank 0 and
  compared with rank 0's serial one:

      max |x_np - x_1| / max |x_1| <= 1e-12

  for the FFT solver in 2D and 3D with several boundary mixes (including one where some rank owns
  no row of the transposed spectral block), and for the KSP solver on the slab and on the block
  decomposition. The right-hand side is smooth plus a hash of the global cell index (all
  frequencies, the same on any decomposition). Registered at np = 1, 2, 3, 4 with slab axes of
  24 cells, so that 3 and 4 ranks get slabs.

  Sample runs:
    mpiexec -n 4 --oversubscribe ./test_poisson_ranks -fg_fftw_planner estimate
    mpiexec -n 3 --oversubscribe ./test_poisson_ranks -fg_fftw_planner estimate -ksp_rtol 1e-12
*/
#include "poisson_test.h"

static const char help[] = "Poisson solvers: the same answer on any number of ranks.\n";

typedef struct {
  FGTestProblem p;
  FGPoissonType type;
  FGDecomp      decomp;
} RankCase;

static const RankCase cases[] = {
  {{"2d-fft-per-neu", 2, {32, 24, 1}, {2.0, 1.0, 1}, {0, 0, 0}, {{P_, P_}, {N_, N_}, {P_, P_}}}, FG_POISSON_FFTW, FG_DECOMP_SLAB},
  {{"2d-fft-dn-per", 2, {6, 24, 1}, {1.0, 1.5, 1}, {0, 0, 0}, {{D_, N_}, {P_, P_}, {P_, P_}}}, FG_POISSON_FFTW, FG_DECOMP_SLAB}, /* 6 spectral rows over 4 ranks: one gets none */
  {{"2d-fft-neumann", 2, {20, 24, 1}, {1.0, 1.0, 1}, {0, 0, 0}, {{N_, N_}, {N_, D_}, {P_, P_}}}, FG_POISSON_FFTW, FG_DECOMP_SLAB},
  {{"3d-fft-mixed", 3, {8, 10, 24}, {2.0, 1.0, 1.0}, {0, 0, 0}, {{P_, P_}, {N_, D_}, {D_, D_}}}, FG_POISSON_FFTW, FG_DECOMP_SLAB},
  {{"3d-fft-neumann", 3, {12, 8, 24}, {1.0, 1.0, 2.0}, {0, 0, 0}, {{N_, N_}, {N_, N_}, {N_, N_}}}, FG_POISSON_FFTW, FG_DECOMP_SLAB},
  {{"3d-fft-periodic", 3, {6, 6, 24}, {1.0, 1.0, 1.0}, {0, 0, 0}, {{P_, P_}, {P_, P_}, {P_, P_}}}, FG_POISSON_FFTW, FG_DECOMP_SLAB},
  /* the tridiagonal path: odd nx (no r2c cosine transform, lines one by one), nx = 16 as 2 blocks
     of 8 lines over up to 4 ranks (some hold none), 3D with y periodic (FFTW r2r in the plane) */
  {{"2d-fft-odd-nn", 2, {21, 24, 1}, {1.0, 1.3, 1}, {0, 0, 0}, {{N_, N_}, {N_, N_}, {P_, P_}}}, FG_POISSON_FFTW, FG_DECOMP_SLAB},
  {{"2d-fft-nn-16", 2, {16, 24, 1}, {1.0, 1.0, 1}, {0, 0, 0}, {{N_, N_}, {D_, N_}, {P_, P_}}}, FG_POISSON_FFTW, FG_DECOMP_SLAB},
  {{"3d-fft-nn-per-nn", 3, {10, 6, 24}, {1.0, 1.0, 2.0}, {0, 0, 0}, {{N_, N_}, {P_, P_}, {N_, N_}}}, FG_POISSON_FFTW, FG_DECOMP_SLAB},
  {{"2d-ksp-neumann", 2, {24, 24, 1}, {1.0, 1.0, 1}, {0, 0, 0}, {{N_, N_}, {N_, N_}, {P_, P_}}}, FG_POISSON_KSP, FG_DECOMP_SLAB},
  {{"2d-ksp-per-dir", 2, {24, 24, 1}, {2.0, 1.0, 1}, {0, 0, 0}, {{P_, P_}, {D_, N_}, {P_, P_}}}, FG_POISSON_KSP, FG_DECOMP_BLOCK},
  {{"3d-ksp-mixed", 3, {8, 10, 24}, {1.0, 1.0, 2.0}, {0, 0, 0}, {{P_, P_}, {N_, N_}, {N_, D_}}}, FG_POISSON_KSP, FG_DECOMP_BLOCK},
  {{"3d-ksp-neumann", 3, {8, 8, 24}, {1.0, 1.0, 2.0}, {0, 0, 0}, {{N_, N_}, {N_, N_}, {N_, N_}}}, FG_POISSON_KSP, FG_DECOMP_SLAB},
};

/* Solve on a grid of comm; x is created here. */
static PetscErrorCode SolveOn(MPI_Comm comm, const RankCase *c, PetscReal rtol, FGGrid *g, FGPoisson *p, Vec *x, PetscInt *its)
{
  Vec b;

  PetscFunctionBeginUser;
  PetscCall(FGTestGridCreate(comm, &c->p, 1, c->decomp, g));
  PetscCall(FGPoissonCreate(*g, c->type, c->p.bc, p));
  PetscCall(FGPoissonSetTolerances(*p, rtol, 2000));
  PetscCall(DMCreateGlobalVector((*g)->da, &b));
  PetscCall(VecDuplicate(b, x));
  PetscCall(FGTestRoughRHS(*g, b));
  PetscCall(FGPoissonSolve(*p, b, *x));
  PetscCall(FGPoissonGetIterations(*p, its));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunAll(void)
{
  PetscMPIInt size;
  PetscReal   rtol = 1e-13; /* the rounding floor of these problems is ~4e-14: rtol 1e-14 is not reachable */

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ksp_rtol", &rtol, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d ranks against 1 (PETSC_COMM_SELF); KSP rtol %g\n", (int)size, (double)rtol));
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    const RankCase *c = &cases[i];
    FGGrid          gw, gs;
    FGPoisson       pw, ps;
    Vec             xw, xs;
    PetscInt        itw, its;
    PetscReal       rel;
    char            bcs[64];

    PetscCall(SolveOn(PETSC_COMM_WORLD, c, rtol, &gw, &pw, &xw, &itw));
    PetscCall(SolveOn(PETSC_COMM_SELF, c, rtol, &gs, &ps, &xs, &its));
    PetscCall(FGTestRelDiffNatural(PETSC_COMM_WORLD, gw, xw, gs, xs, &rel));
    FGTestBCString(&c->p, bcs, sizeof(bcs));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-16s %-22s %s/%-5s  its %3" PetscInt_FMT " vs %3" PetscInt_FMT "  max|x_np - x_1|/max|x_1| = %.2e\n", c->p.name, bcs, c->type == FG_POISSON_FFTW ? "fft" : "ksp", FGDecompNames[c->decomp], itw, its, (double)rel));
    FGTestCheck(rel <= 1e-12, "%s: the solution on %d ranks differs from the serial one by %g > 1e-12", c->p.name, (int)size, (double)rel);
    if (i == 0) { /* the comparison itself must see a difference: perturb one serial entry by 1e-10 max|x| */
      PetscReal   mx, rel2;
      PetscInt    n;
      PetscScalar *a;
      PetscCall(VecNorm(xs, NORM_INFINITY, &mx));
      PetscCall(VecGetLocalSize(xs, &n));
      PetscCall(VecGetArray(xs, &a));
      a[n / 2] += 1e-10 * mx;
      PetscCall(VecRestoreArray(xs, &a));
      PetscCall(FGTestRelDiffNatural(PETSC_COMM_WORLD, gw, xw, gs, xs, &rel2));
      FGTestCheck(rel2 > 0.5e-10 && rel2 < 2e-10, "%s: a perturbation of 1e-10 was measured as %g", c->p.name, (double)rel2);
    }
    PetscCall(VecDestroy(&xw));
    PetscCall(VecDestroy(&xs));
    PetscCall(FGPoissonDestroy(&pw));
    PetscCall(FGPoissonDestroy(&ps));
    PetscCall(FGGridDestroy(&gw));
    PetscCall(FGGridDestroy(&gs));
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
