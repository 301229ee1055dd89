static const char help[] = "The r2c-based cosine transforms of the FFT Poisson solver (src/pressure/dct.c) against FFTW's own\n"
                           "REDFT10/REDFT01 kinds: every even n from 2 to 40 and 256, 1, 3, 8 and 70 rows (blocks of 8192/n rows and a remainder), to 1e-14 relative;\n"
                           "the inverse's scale argument, in-place calls, and odd n refused; and the\n"
                           "tridiagonal path on nearly singular lines (4 x 4096 all-Neumann) as accurate as the transforms.\n";

/* Serial (every rank runs the same checks on its own data). */
#include <flowgrad.h>
#include <fftw3.h>
#include <fg/poisson.h>
#include "../fgtest.h"
#include "../../src/pressure/poissonimpl.h"

static PetscReal MaxRel(const double *a, const double *b, PetscInt n)
{
  PetscReal d = 0, m = 0;
  for (PetscInt i = 0; i < n; i++) {
    d = PetscMax(d, PetscAbsReal(a[i] - b[i]));
    m = PetscMax(m, PetscAbsReal(b[i]));
  }
  return m > 0 ? d / m : d;
}

static PetscErrorCode CheckOne(PetscInt n, PetscInt rows, PetscReal *worst)
{
  FGDCT         dct;
  double       *x, *y, *ref, *back, *yy;
  fftw_plan     pf, pb;
  int           nn = (int)n;
  fftw_r2r_kind kf = FFTW_REDFT10, kb = FFTW_REDFT01;
  PetscInt      N  = n * rows;
  PetscReal     ef, eb, ei, es;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc5(N, &x, N, &y, N, &ref, N, &back, N, &yy));
  for (PetscInt i = 0; i < N; i++) x[i] = PetscSinReal(0.7 * (PetscReal)i + 0.1) + 0.3 * PetscCosReal(0.013 * (PetscReal)(i * i)) + 0.25;
  PetscCall(FGDCTCreate(n, rows, FFTW_ESTIMATE, &dct));
  pf = fftw_plan_many_r2r(1, &nn, (int)rows, x, NULL, 1, nn, ref, NULL, 1, nn, &kf, FFTW_ESTIMATE);
  FGDCTForward(dct, x, y);
  fftw_execute(pf);
  ef = MaxRel(y, ref, N);
  /* inverse: scale REDFT01(y) against FFTW's, and the round trip 1/(2n) REDFT01(REDFT10 x) = x */
  pb = fftw_plan_many_r2r(1, &nn, (int)rows, y, NULL, 1, nn, ref, NULL, 1, nn, &kb, FFTW_ESTIMATE);
  fftw_execute(pb); /* ref = REDFT01(y), y unchanged */
  FGDCTInverse(dct, y, back, 1.0);
  eb = MaxRel(back, ref, N);
  FGDCTInverse(dct, y, back, 1.0 / (2.0 * (PetscReal)n));
  ei = MaxRel(back, x, N);
  /* in place, both ways */
  PetscCall(PetscArraycpy(yy, x, N));
  FGDCTForward(dct, yy, yy);
  es = MaxRel(yy, y, N);
  FGDCTInverse(dct, yy, yy, 1.0 / (2.0 * (PetscReal)n));
  es = PetscMax(es, MaxRel(yy, back, N));
  FGTestCheck(ef <= 1e-14, "n %" PetscInt_FMT " rows %" PetscInt_FMT ": forward differs from REDFT10 by %g", n, rows, (double)ef);
  FGTestCheck(eb <= 1e-14, "n %" PetscInt_FMT " rows %" PetscInt_FMT ": inverse differs from REDFT01 by %g", n, rows, (double)eb);
  FGTestCheck(ei <= 1e-14, "n %" PetscInt_FMT " rows %" PetscInt_FMT ": the scaled round trip differs from x by %g", n, rows, (double)ei);
  FGTestCheck(es == 0, "n %" PetscInt_FMT " rows %" PetscInt_FMT ": an aliased call differs by %g", n, rows, (double)es);
  *worst = PetscMax(*worst, PetscMax(PetscMax(ef, eb), ei));
  fftw_destroy_plan(pf);
  fftw_destroy_plan(pb);
  PetscCall(FGDCTDestroy(&dct));
  PetscCall(PetscFree5(x, y, ref, back, yy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The tridiagonal path on nearly singular lines: a 2D all-Neumann grid of 4 x 4096 cells on the
   unit square, whose in-slab mode 1 gives mu = lambda_x h_y^2 ~ -5.6e-7 (condition number ~7e6,
   so cond x eps ~ 1.5e-9); x random with zero mean, b = L x, and the error of S b against x with
   the default path and with every direction transformed (-fg_fftw_tridiagonal 0): the Thomas
   sweeps must be as accurate as the transforms (within 1.5x; both ~1e-11 measured). */
static PetscErrorCode SolveError(PetscBool tridiag, PetscReal *err)
{
  const PetscInt    n[3] = {4, 4096, 1};
  const PetscReal   L[3] = {1, 1, 1}, x0[3] = {0, 0, 0};
  const PetscBool   per[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
  const FGPoissonBC bc[3][2] = {{FG_PBC_NEUMANN, FG_PBC_NEUMANN}, {FG_PBC_NEUMANN, FG_PBC_NEUMANN}, {FG_PBC_NEUMANN, FG_PBC_NEUMANN}};
  FGGrid            g;
  FGPoisson         p;
  Vec               x, b, y;
  PetscRandom       r;
  PetscScalar       sum;
  PetscReal         e, m;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsSetValue(NULL, "-fg_fftw_tridiagonal", tridiag ? "1" : "0"));
  PetscCall(FGGridCreate(PETSC_COMM_SELF, 2, n, L, x0, per, FG_DECOMP_SLAB, &g));
  PetscCall(FGPoissonCreate(g, FG_POISSON_FFTW, bc, &p));
  PetscCall(FGPoissonSetUp(p));
  PetscCall(PetscOptionsClearValue(NULL, "-fg_fftw_tridiagonal"));
  PetscCall(DMCreateGlobalVector(g->da, &x));
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetSeed(r, 11));
  PetscCall(PetscRandomSeed(r));
  PetscCall(VecSetRandom(x, r));
  PetscCall(VecSum(x, &sum));
  PetscCall(VecShift(x, -sum / (PetscReal)(n[0] * n[1])));
  PetscCall(FGPoissonApply(p, x, b));
  PetscCall(FGPoissonSolve(p, b, y));
  PetscCall(VecNorm(x, NORM_INFINITY, &m));
  PetscCall(VecAXPY(y, -1.0, x));
  PetscCall(VecNorm(y, NORM_INFINITY, &e));
  *err = e / m;
  PetscCall(PetscRandomDestroy(&r));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&y));
  PetscCall(FGPoissonDestroy(&p));
  PetscCall(FGGridDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckNearlySingular(void)
{
  PetscReal et, ef;

  PetscFunctionBeginUser;
  PetscCall(SolveError(PETSC_TRUE, &et));
  PetscCall(SolveError(PETSC_FALSE, &ef));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "4 x 4096 all-Neumann: |S L x - x|/|x| = %.2e (tridiagonal), %.2e (every direction transformed)\n", (double)et, (double)ef));
  FGTestCheck(et <= 1.5 * ef && et <= 1e-10, "4 x 4096 all-Neumann: the tridiagonal path's error %g against %g with transforms (bound 1.5x, and 1e-10)", (double)et, (double)ef);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunAll(void)
{
  const PetscInt rows[] = {1, 3, 8, 70};
  PetscReal      worst  = 0;
  PetscInt       count  = 0;

  PetscFunctionBeginUser;
  for (PetscInt r = 0; r < 4; r++) {
    for (PetscInt n = 2; n <= 40; n += 2, count++) PetscCall(CheckOne(n, rows[r], &worst));
    PetscCall(CheckOne(256, rows[r], &worst));
    count++;
  }
  PetscCall(CheckNearlySingular());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " sizes: largest relative difference from FFTW's REDFT10/REDFT01 %.2e\n", count, (double)worst));
  FGTestCheck(worst > 0, "every difference is exactly 0: the comparison sees nothing");
  { /* odd n is refused with an error, not a wrong answer */
    FGTestCaught   caught = {0, ""};
    FGDCT          dct    = NULL;
    PetscErrorCode e;
    PetscCall(PetscPushErrorHandler(FGTestCatchError, &caught));
    e = FGDCTCreate(7, 2, FFTW_ESTIMATE, &dct);
    PetscCall(PetscPopErrorHandler());
    FGTestCheck(e != 0 && dct == NULL && strstr(caught.msg, "must be even"), "FGDCTCreate(7): error %d, message '%s'", (int)e, caught.msg);
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
