/*
  Batched cosine transforms of contiguous rows through a real-to-complex FFT (Makhoul 1980).

  FFTW's r2r kinds REDFT10/REDFT01 run on scalar code, while its r2c/c2r transforms use the SIMD
  codelets: for 256 rows of 256 points a REDFT10 + REDFT01 pair costs ~8 ns per point here, an
  r2c + c2r pair ~2 ns. The cosine transforms of the Poisson solver's Neumann directions are
  therefore computed as (n even, the same unnormalized conventions as FFTW's kinds):

    REDFT10 (DCT-II):   Y_k = 2 sum_j x_j cos(pi k (2j+1) / 2n)
      v_j = x_{2j}, v_{n-1-j} = x_{2j+1} (j < n/2);   V = r2c(v);   c_k = W_k V_k, W_k = e^{-i pi k/2n}
      Y_0 = 2 V_0,   Y_k = 2 Re c_k,   Y_{n-k} = -2 Im c_k (0 < k < n/2),   Y_{n/2} = sqrt(2) V_{n/2}

    REDFT01 (DCT-III):  x_j = Y_0 + 2 sum_{k>0} Y_k cos(pi k (2j+1) / 2n)
      V_k = conj(W_k) (Y_k - i Y_{n-k})  (k = 0..n/2, Y_n = 0);   v = c2r(V);   x_{2j} = v_j, x_{2j+1} = v_{n-1-j}

  (The second inverts the first up to FFTW's factor 2n: with c_k = W_k V_k, Y_k - i Y_{n-k} = 2 c_k.)
  The permutations are fused with the reads and writes of the caller's arrays, and the rows are
  done in blocks of about 64 KiB (two plans: the block and the remainder) with the FFT's own
  buffers, so a block stays in cache from the permutation through the FFT to the twiddles: the
  transform streams the caller's arrays once in and once out. tests/poisson checks the result
  against FFTW's own REDFT10/REDFT01 (test_poisson_dct).
*/
#include "poissonimpl.h"
#include <fftw3.h>

struct _p_FGDCT {
  PetscInt      n, rows, block; /* row length, rows, rows per block */
  fftw_plan     r2c[2], c2r[2]; /* a full block, the remainder (NULL if none) */
  double       *v;              /* block x n: the permuted rows */
  fftw_complex *c;              /* block x (n/2 + 1): their spectra */
  double       *wr, *wi;        /* W_k = wr_k + i wi_k, k = 0..n/2 */
};

/*@C
  FGDCTCreate - plans for REDFT10/REDFT01 of `rows` contiguous rows of n points (n even, >= 2).

  Not collective (serial FFTW plans; call on every rank in the same order when wisdom is shared).
@*/
PetscErrorCode FGDCTCreate(PetscInt n, PetscInt rows, unsigned planner, FGDCT *dct)
{
  FGDCT d;
  int   nn = (int)n;

  PetscFunctionBeginUser;
  *dct = NULL;
  PetscCheck(n >= 2 && n % 2 == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "FGDCT: n = %" PetscInt_FMT " must be even", n);
  PetscCall(PetscNew(&d));
  d->n     = n;
  d->rows  = rows;
  d->block = PetscMax(1, PetscMin(rows, 8192 / n));
  PetscCall(PetscMalloc2(n / 2 + 1, &d->wr, n / 2 + 1, &d->wi));
  d->v = fftw_alloc_real((size_t)(n * d->block));
  d->c = fftw_alloc_complex((size_t)((n / 2 + 1) * d->block));
  if (!d->v || !d->c) {
    PetscCall(FGDCTDestroy(&d));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "FGDCT: fftw_alloc failed (n %" PetscInt_FMT ", %" PetscInt_FMT " rows)", n, rows);
  }
  for (PetscInt p = 0; p < 2; p++) {
    const PetscInt m = p == 0 ? (rows >= d->block ? d->block : 0) : rows % d->block;
    if (m == 0) continue;
    d->r2c[p] = fftw_plan_many_dft_r2c(1, &nn, (int)m, d->v, NULL, 1, nn, d->c, NULL, 1, nn / 2 + 1, planner);
    d->c2r[p] = fftw_plan_many_dft_c2r(1, &nn, (int)m, d->c, NULL, 1, nn / 2 + 1, d->v, NULL, 1, nn, planner);
    if (!d->r2c[p] || !d->c2r[p]) {
      PetscCall(FGDCTDestroy(&d));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "FGDCT: FFTW r2c/c2r planning failed (n %" PetscInt_FMT ", %" PetscInt_FMT " rows)", n, m);
    }
  }
  for (PetscInt k = 0; k <= n / 2; k++) {
    const PetscReal a = -PETSC_PI * (PetscReal)k / (2.0 * (PetscReal)n);
    d->wr[k]          = PetscCosReal(a);
    d->wi[k]          = PetscSinReal(a);
  }
  *dct = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGDCTDestroy(FGDCT *dct)
{
  FGDCT d = *dct;

  PetscFunctionBeginUser;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt p = 0; p < 2; p++) {
    if (d->r2c[p]) fftw_destroy_plan(d->r2c[p]);
    if (d->c2r[p]) fftw_destroy_plan(d->c2r[p]);
  }
  if (d->v) fftw_free(d->v);
  if (d->c) fftw_free(d->c);
  PetscCall(PetscFree2(d->wr, d->wi));
  PetscCall(PetscFree(d));
  *dct = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = REDFT10(x), row by row (x, y: rows x n; y may be x). */
void FGDCTForward(FGDCT d, const double *x, double *y)
{
  const PetscInt n = d->n, h = n / 2, nc = h + 1;

  for (PetscInt r0 = 0; r0 < d->rows; r0 += d->block) {
    const PetscInt m = PetscMin(d->block, d->rows - r0);
    for (PetscInt r = 0; r < m; r++) {
      const double *restrict xr = x + (r0 + r) * n;
      double *restrict       vr = d->v + r * n;
      for (PetscInt j = 0; j < h; j++) {
        vr[j]         = xr[2 * j];
        vr[n - 1 - j] = xr[2 * j + 1];
      }
    }
    fftw_execute(d->r2c[m == d->block ? 0 : 1]);
    for (PetscInt r = 0; r < m; r++) {
      const double *restrict c  = (const double *)(d->c + r * nc); /* re, im interleaved */
      const double *restrict wr = d->wr, *restrict wi = d->wi;
      double *restrict       yr = y + (r0 + r) * n;
      yr[0] = 2.0 * c[0];
      for (PetscInt k = 1; k < h; k++) {
        const double re = c[2 * k], im = c[2 * k + 1];
        yr[k]     = 2.0 * (wr[k] * re - wi[k] * im);
        yr[n - k] = -2.0 * (wr[k] * im + wi[k] * re);
      }
      yr[h] = PETSC_SQRT2 * c[2 * h];
    }
  }
}

/* x = scale REDFT01(y), row by row (x, y: rows x n; x may be y). */
void FGDCTInverse(FGDCT d, const double *y, double *x, double scale)
{
  const PetscInt n = d->n, h = n / 2, nc = h + 1;

  for (PetscInt r0 = 0; r0 < d->rows; r0 += d->block) {
    const PetscInt m = PetscMin(d->block, d->rows - r0);
    for (PetscInt r = 0; r < m; r++) {
      double *restrict       c  = (double *)(d->c + r * nc);
      const double *restrict wr = d->wr, *restrict wi = d->wi;
      const double *restrict yr = y + (r0 + r) * n;
      c[0] = yr[0];
      c[1] = 0.0;
      for (PetscInt k = 1; k < h; k++) { /* conj(W_k) (a - i b), a = Y_k, b = Y_{n-k} */
        const double a = yr[k], b = yr[n - k];
        c[2 * k]     = wr[k] * a - wi[k] * b;
        c[2 * k + 1] = -wr[k] * b - wi[k] * a;
      }
      c[2 * h]     = PETSC_SQRT2 * yr[h];
      c[2 * h + 1] = 0.0;
    }
    fftw_execute(d->c2r[m == d->block ? 0 : 1]);
    for (PetscInt r = 0; r < m; r++) {
      const double *restrict vr = d->v + r * n;
      double *restrict       xr = x + (r0 + r) * n;
      for (PetscInt j = 0; j < h; j++) {
        xr[2 * j]     = scale * vr[j];
        xr[2 * j + 1] = scale * vr[n - 1 - j];
      }
    }
  }
}
