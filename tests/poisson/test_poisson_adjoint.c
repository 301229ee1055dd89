/*
  Transpose and operator identities of the Poisson solvers (both paths, 2D and 3D, singular and
  not):
    - dot-product test of the solve:  <S b1, b2> = <b1, S^T b2>  to 1e-12 (relative), with S^T
      from FGPoissonSolveTranspose (the FFT path's is the same solve, since S is symmetric; the
      KSP path's is KSPSolveTranspose);
    - FGPoissonApply is symmetric:     <L x, y> = <x, L y>   to 1e-13;
    - the solve inverts Apply:         S L x = x (x - mean(x) when singular)  to 1e-9;
    - singular problems: S b has zero mean, and S (b + const) = S b;
    - x and b may be the same Vec.
  And the same with random face weights in [0.2, 1.2] (FGPoissonSetFaceWeights, the KSP path: the
  operator D W G of a sharp wall's apertures), periodic seams included: the weighted Apply is the
  operator the KSP solve inverts, and both stay symmetric.
  Random vectors from PetscRandom in [-1, 1].

  Sample runs:
    mpiexec -n 2 ./test_poisson_adjoint -fg_fftw_planner estimate
*/
#include "poisson_test.h"

static const char help[] = "Poisson solvers: dot-product test of the solve, and operator identities.\n";

static const FGTestProblem problems[] = {
  {"2d-neumann", 2, {24, 16, 1}, {1.5, 1.0, 1}, {0, 0, 0}, {{N_, N_}, {N_, N_}, {P_, P_}}},
  {"2d-per-nd", 2, {16, 24, 1}, {1.0, 2.0, 1}, {0, 0, 0}, {{P_, P_}, {N_, D_}, {P_, P_}}},
  {"2d-dirichlet", 2, {20, 16, 1}, {1.0, 1.0, 1}, {0, 0, 0}, {{D_, D_}, {D_, N_}, {P_, P_}}},
  {"3d-periodic", 3, {8, 12, 8}, {1.0, 1.0, 1.0}, {0, 0, 0}, {{P_, P_}, {P_, P_}, {P_, P_}}},
  {"3d-mixed", 3, {10, 8, 12}, {2.0, 1.0, 1.0}, {0, 0, 0}, {{D_, N_}, {P_, P_}, {N_, D_}}},
  {"3d-neumann", 3, {8, 8, 12}, {1.0, 1.0, 1.5}, {0, 0, 0}, {{N_, N_}, {N_, N_}, {N_, N_}}},
};

static PetscErrorCode RunOne(const FGTestProblem *t, FGPoissonType type, PetscBool weighted, PetscRandom rnd)
{
  FGGrid      g;
  FGPoisson   p;
  Vec         b1, b2, s1, s2, x, y;
  PetscScalar a, c, lx, ly;
  PetscReal   n1, n2, rel = 0, relsym = 0, relinv = 0, rel2 = 0;
  PetscBool   singular;
  const char *name = type == FG_POISSON_FFTW ? "fft" : weighted ? "ksp-w" : "ksp";

  PetscFunctionBeginUser;
  PetscCall(FGTestGridCreate(PETSC_COMM_WORLD, t, 1, type == FG_POISSON_FFTW ? FG_DECOMP_SLAB : FG_DECOMP_BLOCK, &g));
  PetscCall(FGPoissonCreate(g, type, t->bc, &p));
  PetscCall(FGPoissonSetTolerances(p, 1e-13, 1000));
  if (weighted) { /* random face weights in [0.2, 1.2], ghosts filled (1 outside the domain) */
    Vec wl[3] = {NULL, NULL, NULL}, wg;
    for (PetscInt d = 0; d < g->dim; d++) {
      PetscCall(DMCreateGlobalVector(g->da, &wg));
      PetscCall(VecSetRandom(wg, rnd));
      PetscCall(VecScale(wg, 0.5));
      PetscCall(VecShift(wg, 0.7));
      PetscCall(DMCreateLocalVector(g->da, &wl[d]));
      PetscCall(VecSet(wl[d], 1.0));
      PetscCall(DMGlobalToLocal(g->da, wg, INSERT_VALUES, wl[d]));
      PetscCall(VecDestroy(&wg));
    }
    PetscCall(FGPoissonSetFaceWeights(p, wl));
    for (PetscInt d = 0; d < g->dim; d++) PetscCall(VecDestroy(&wl[d]));
  }
  PetscCall(FGPoissonIsSingular(p, &singular));
  PetscCall(DMCreateGlobalVector(g->da, &b1));
  PetscCall(VecDuplicate(b1, &b2));
  PetscCall(VecDuplicate(b1, &s1));
  PetscCall(VecDuplicate(b1, &s2));
  PetscCall(VecDuplicate(b1, &x));
  PetscCall(VecDuplicate(b1, &y));
  PetscCall(VecSetRandom(b1, rnd));
  PetscCall(VecSetRandom(b2, rnd));

  /* 1. <S b1, b2> = <b1, S^T b2> */
  PetscCall(FGPoissonSolve(p, b1, s1));
  PetscCall(FGPoissonSolveTranspose(p, b2, s2));
  PetscCall(VecDot(s1, b2, &a));
  PetscCall(VecDot(b1, s2, &c));
  rel = PetscAbsScalar(a - c) / PetscMax(PetscAbsScalar(a), PetscAbsScalar(c));
  FGTestCheck(rel <= 1e-12, "%s %s: dot-product test <S b1,b2> = %.16e, <b1,S^T b2> = %.16e, relative difference %g > 1e-12", t->name, name, (double)PetscRealPart(a), (double)PetscRealPart(c), (double)rel);

  /* 2. <L x, y> = <x, L y> */
  PetscCall(FGPoissonApply(p, b1, x));
  PetscCall(FGPoissonApply(p, b2, y));
  PetscCall(VecDot(x, b2, &lx));
  PetscCall(VecDot(b1, y, &ly));
  PetscCall(VecNorm(x, NORM_2, &n1));
  PetscCall(VecNorm(b2, NORM_2, &n2));
  relsym = PetscAbsScalar(lx - ly) / (n1 * n2);
  FGTestCheck(relsym <= 1e-13, "%s: <L x, y> - <x, L y> = %g relative > 1e-13", t->name, (double)relsym);

  /* 3. S L b1 = P b1 (x = L b1 already) */
  PetscCall(FGPoissonSolve(p, x, y));
  PetscCall(VecCopy(b1, x));
  if (singular) PetscCall(FGTestRemoveMean(g, x));
  PetscCall(FGTestRelDiff(y, x, &relinv));
  FGTestCheck(relinv <= 1e-9, "%s %s: S L x differs from x by %g > 1e-9", t->name, name, (double)relinv);

  /* 4. in place: Solve(b, b) */
  PetscCall(VecCopy(b1, x));
  PetscCall(FGPoissonSolve(p, x, x));
  PetscCall(FGTestRelDiff(x, s1, &rel2));
  FGTestCheck(rel2 <= 1e-12, "%s %s: the in-place solve differs by %g", t->name, name, (double)rel2);

  /* 5. singular: zero mean, and the constant part of b is ignored */
  if (singular) {
    PetscScalar sum;
    PetscReal   mx, relc = 0;
    PetscCall(VecSum(s1, &sum));
    PetscCall(VecNorm(s1, NORM_INFINITY, &mx));
    FGTestCheck(PetscAbsScalar(sum) / ((PetscReal)g->n[0] * g->n[1] * g->n[2]) <= 1e-14 * mx, "%s %s: the singular solution has mean %g", t->name, name, (double)PetscRealPart(sum));
    PetscCall(VecCopy(b1, x));
    PetscCall(VecShift(x, 7.0));
    PetscCall(FGPoissonSolve(p, x, y));
    PetscCall(FGTestRelDiff(y, s1, &relc));
    FGTestCheck(relc <= 1e-11, "%s %s: S (b + 7) differs from S b by %g", t->name, name, (double)relc);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-13s %s  dot test %.2e   <Lx,y>-<x,Ly> %.2e   |SLx - x| %.2e   in-place %.2e%s\n", t->name, name, (double)rel, (double)relsym, (double)relinv, (double)rel2, singular ? "  (singular)" : ""));

  PetscCall(VecDestroy(&b1));
  PetscCall(VecDestroy(&b2));
  PetscCall(VecDestroy(&s1));
  PetscCall(VecDestroy(&s2));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(FGPoissonDestroy(&p));
  PetscCall(FGGridDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunAll(void)
{
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, 20240611));
  PetscCall(PetscRandomSeed(rnd));
  for (size_t i = 0; i < sizeof(problems) / sizeof(problems[0]); i++) {
    PetscCall(RunOne(&problems[i], FG_POISSON_FFTW, PETSC_FALSE, rnd));
    PetscCall(RunOne(&problems[i], FG_POISSON_KSP, PETSC_FALSE, rnd));
    PetscCall(RunOne(&problems[i], FG_POISSON_KSP, PETSC_TRUE, rnd));
  }
  PetscCall(PetscRandomDestroy(&rnd));
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
