/*
  The approximately factored path of the implicit viscous term's Helmholtz problems
  (include/fg/viscous.h): the Crank-Nicolson operator of component a,

    I - s L_0 = I - s sum_b L_b        (L_b: the 1-D second difference along b, src/ops/diffusion.c)

  is replaced by the product of its one-dimensional factors (Beam & Warming; Kim & Moin 1985 in
  RK3 stages, as AFiD and other channel-flow codes do):

    M~(s) = prod_b (I - s L_b),      S~ = M~^{-1} = prod_b (I - s L_b)^{-1},

  each factor one tridiagonal (Thomas) solve per line of b. M~ = I - s L_0 + O(s^2): the splitting
  is second order in time when it acts on the stage's increment (src/step/rk3.c uses the delta form
  u* = u + S~ r, which keeps every steady state a fixed point whatever dt), and unconditionally
  stable: for a mode with eigenvalues lambda_b <= 0 of L_b, prod (1 - s lambda_b) >= 1 - s sum
  lambda_b, so the stage's amplification 1 + 2 s lambda / prod (1 - s lambda_b) lies in (-1, 1].

  The factors commute (a tensor-product grid: L_b's couplings depend on the index along b only),
  and each is symmetric in the face-volume inner product, so S~^T = V S~ V^{-1} as on the exact
  paths. Its cost is two passes over the field per direction, against an FFT pair and a Thomas
  sweep for the direct path (bench/viscous.sh).

  Lines. For component a along b: the unknowns t < nu[a][b] (all n_b cells, or the n_a - 1
  interior faces when b == a and a is not periodic: the upper boundary face is data), the rows
    x_t - s (cp_t (x_{t+1} - x_t) - cm_t (x_t - x_{t-1})),
  closed by the ghost rule x_{-1} = glo x_0, x_{nu} = ghi x_{nu-1} (FGOpGhostCoefficient; 0 where
  the neighbour is a boundary face), or cyclic on a periodic direction (Sherman-Morrison: the
  second solution z is the same for every line and computed once per factorization). Every line
  of (a, b) has the same matrix: it is factored once per call (O(n_b)), and a sweep is two
  multiply-adds per entry, vectorized across the lines side by side (x lines: 4 interleaved, each
  recurrence in a register; more lines 4 KiB apart thrash the L1 sets).

  Layout: the grid's FFTW slabs (decomposition slab). The in-slab directions are local and solved
  in place on the owned array. The slab direction is too on one rank; on several, the lines are
  gathered by fftw_mpi_plan_many_transpose ([n_s][n_mid][B] to [n_mid][n_s][B], as the direct
  path) and only the interior faces are copied back. Any direction may be stretched.

  Conditions (else the KSP path): the slab decomposition, a periodic direction has 1 or at least 3
  cells, no outflow face at the lower end of a direction.
*/
#include "viscousimpl.h"

/* One factorization of I - s L_b: multipliers l, 1/pivots i, super-diagonal c; a cyclic line's
   Sherman-Morrison vector z and den = 1/(1 + z_0 + beta z_{n-1}/gam), beta, gam. */
typedef struct {
  PetscReal *l, *i, *c, *z;
  PetscReal  den, beta, gam;
} FGAFFactor;


struct _p_FGViscousAF {
  PetscInt   dim, sd, n[3];
  PetscInt   nu[3][3];             /* unknowns of component a along b */
  PetscReal *cm[3][3], *cp[3][3];  /* row couplings of component a along b (t < nu) */
  PetscReal  glo[3][3], ghi[3][3]; /* the closures */
  PetscBool  cyc[3];               /* b periodic (with at least 3 cells): cyclic lines */
  FGAFFactor fac[3];               /* the current factorization along each direction */
  PetscReal *scr;                  /* one component's owned array (scratch for L_b x) */
  /* several ranks: the slab direction's lines */
  ptrdiff_t  P, nsl, ns, B, nmid, lnmid;
  double    *buf, *tbuf;
  fftw_plan  t1, t2;
};

/*@C
  FGViscousAFApplies - whether the approximately factored path applies (the conditions above).
  Not collective.
@*/
PetscBool FGViscousAFApplies(FGGrid g, const FGBoundary *bc)
{
  if (g->decomp != FG_DECOMP_SLAB) return PETSC_FALSE;
  for (PetscInt b = 0; b < g->dim; b++) {
    if (g->periodic[b] && g->n[b] == 2) return PETSC_FALSE;
    if (!g->periodic[b] && g->n[b] < 2) return PETSC_FALSE;
    if (!g->periodic[b] && bc->kind[b][FG_FACE_LO] == FG_BC_OUTFLOW) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

PetscErrorCode FGViscousAFCreate(FGGrid g, const FGBoundary *bc, FGViscousAF *out)
{
  FGViscousAF    f;
  const PetscInt dim = g->dim, sd = dim - 1;
  PetscMPIInt    size;
  PetscInt       nmax = 0;

  PetscFunctionBeginUser;
  *out = NULL;
  if (!FGViscousAFApplies(g, bc)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(g->comm, &size));
  PetscCall(PetscNew(&f));
  f->dim = dim, f->sd = sd;
  for (PetscInt b = 0; b < dim; b++) {
    f->n[b] = g->n[b];
    f->cyc[b] = (PetscBool)(g->periodic[b] && g->n[b] >= 3);
    nmax      = PetscMax(nmax, g->n[b]);
  }
  for (PetscInt a = 0; a < dim; a++)
    for (PetscInt b = 0; b < dim; b++) {
      const PetscInt n = (b == a && !g->periodic[a]) ? g->n[b] - 1 : g->n[b];
      f->nu[a][b]      = n;
      f->glo[a][b]     = g->periodic[b] ? 0.0 : FGOpGhostCoefficient(bc, b, FG_FACE_LO, a);
      f->ghi[a][b]     = g->periodic[b] || b == a ? 0.0 : FGOpGhostCoefficient(bc, b, FG_FACE_HI, a);
      PetscCall(PetscMalloc2(PetscMax(n, 1), &f->cm[a][b], PetscMax(n, 1), &f->cp[a][b]));
      for (PetscInt t = 0; t < n; t++) {
        PetscReal cm, cp;
        FGOpDiffusionCoefficients(g, a, b, t, &cm, &cp);
        if (g->uniform[b]) cm = cp = 1.0 / (g->h[b] * g->h[b]); /* as src/ops/diffusion.c computes it */
        if (g->periodic[b] && g->n[b] == 1) cm = cp = 0;       /* a one-cell periodic line: L_b = 0 */
        f->cm[a][b][t] = cm, f->cp[a][b][t] = cp;
      }
    }
  for (PetscInt b = 0; b < dim; b++) PetscCall(PetscMalloc4(nmax, &f->fac[b].l, nmax, &f->fac[b].i, nmax, &f->fac[b].c, nmax, &f->fac[b].z));
  f->P   = dim == 2 ? g->n[0] : g->n[0] * g->n[1];
  f->nsl = g->box.hi[sd] - g->box.lo[sd];
  f->ns  = g->n[sd];
  PetscCall(PetscMalloc1(f->nsl * f->P + f->ns * (dim == 3 ? g->n[1] : 1) + 1, &f->scr)); /* a field, and a z sweep's saved faces */
  if (size > 1) {
    FGViscousLines L;
    ptrdiff_t      alloc;
    PetscCall(FGViscousLinesLayout(g, "viscous AF", &L));
    f->B = L.B, f->nmid = L.nmid, f->lnmid = L.lnmid;
    alloc   = PetscMax(L.alloc, f->nsl * f->P);
    f->buf  = fftw_alloc_real((size_t)PetscMax(alloc, 1));
    f->tbuf = fftw_alloc_real((size_t)PetscMax(alloc, 1));
    PetscCheck(f->buf && f->tbuf, PETSC_COMM_SELF, PETSC_ERR_MEM, "viscous AF: out of memory");
    PetscCall(FGViscousLinesPlans(g, &L, "viscous AF", f->buf, f->tbuf, &f->t1, &f->t2));
  }
  *out = f;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Factor I - s L_b of component a into f->fac[b] (FGAFFactor): rows
   A_t x_{t-1} + D_t x_t + C_t x_{t+1}; l_t = A_t / piv_{t-1}, piv_t = D_t - l_t C_{t-1}. A cyclic
   line is the tridiagonal with D_0 - gam and D_{n-1} - alpha beta / gam (gam = -D_0; alpha, beta the
   corners) plus a rank-one correction along z = T^{-1} (gam, 0, .., 0, alpha). */
static void FGViscousAFFactor_Private(FGViscousAF f, PetscInt a, PetscInt b, PetscReal s)
{
  FGAFFactor      *F = &f->fac[b];
  const PetscInt   n = f->nu[a][b];
  const PetscReal *cm = f->cm[a][b], *cp = f->cp[a][b];
  const PetscBool  cyc = f->cyc[b];
  const PetscReal  alpha = cyc ? -s * cp[n - 1] : 0, beta = cyc ? -s * cm[0] : 0;
  const PetscReal  gam = cyc ? -(1 + s * (cm[0] + cp[0])) : 0;
  PetscReal        piv = 0;

  for (PetscInt t = 0; t < n; t++) {
    const PetscReal A = t > 0 ? -s * cm[t] : 0;
    PetscReal       D = 1 + s * (cm[t] + cp[t]);
    if (t == 0) D -= cyc ? gam : s * cm[0] * f->glo[a][b];
    if (t == n - 1) D -= cyc ? alpha * beta / gam : s * cp[n - 1] * f->ghi[a][b];
    F->l[t] = t > 0 ? A / piv : 0;
    piv     = D - (t > 0 ? F->l[t] * F->c[t - 1] : 0);
    F->i[t] = 1.0 / piv;
    F->c[t] = t < n - 1 ? -s * cp[t] : 0;
  }
  if (!cyc) return;
  for (PetscInt t = 0; t < n; t++) F->z[t] = (t == 0 ? gam : t == n - 1 ? alpha : 0) - (t > 0 ? F->l[t] * F->z[t - 1] : 0);
  F->z[n - 1] *= F->i[n - 1];
  for (PetscInt t = n - 2; t >= 0; t--) F->z[t] = (F->z[t] - F->c[t] * F->z[t + 1]) * F->i[t];
  F->beta = beta, F->gam = gam;
  F->den  = 1.0 / (1 + F->z[0] + beta * F->z[n - 1] / gam);
}

/* The factored solve on nl lines side by side: x[t * st + l], t < n, l < nl. */
static void FGViscousAFSweep_Private(const FGAFFactor *F, PetscInt n, ptrdiff_t st, ptrdiff_t nl, PetscReal *restrict x, PetscBool cyc)
{
  const PetscReal *fl = F->l, *fi = F->i, *fc = F->c;
  for (PetscInt t = 1; t < n; t++) {
    PetscReal *restrict xt = x + t * st;
    const PetscReal *restrict xp = xt - st;
    const PetscReal m = fl[t];
    for (ptrdiff_t l = 0; l < nl; l++) xt[l] -= m * xp[l];
  }
  {
    PetscReal *restrict xt = x + (n - 1) * st;
    const PetscReal m = fi[n - 1];
    for (ptrdiff_t l = 0; l < nl; l++) xt[l] *= m;
  }
  for (PetscInt t = n - 2; t >= 0; t--) {
    PetscReal *restrict xt = x + t * st;
    const PetscReal *restrict xn = xt + st;
    const PetscReal c = fc[t], m = fi[t];
    for (ptrdiff_t l = 0; l < nl; l++) xt[l] = (xt[l] - c * xn[l]) * m;
  }
  if (cyc)
    for (ptrdiff_t l = 0; l < nl; l++) {
      const PetscReal fac = (x[l] + F->beta * x[(n - 1) * st + l] / F->gam) * F->den;
      for (PetscInt t = 0; t < n; t++) x[t * st + l] -= fac * F->z[t];
    }
}

/* The same on lines along the contiguous direction: line r's entries x[r * ls + t], t < n, r < nr,
   four of them side by side (independent recurrences in flight, each in a register; more lines
   4 KiB apart thrash the L1 sets). */
static void FGViscousAFSweepRows_Private(const FGAFFactor *F, PetscInt n, ptrdiff_t ls, ptrdiff_t nr, PetscReal *restrict x, PetscBool cyc)
{
  const PetscReal *fl = F->l, *fi = F->i, *fc = F->c;
  ptrdiff_t        r0 = 0;
  for (; r0 + 4 <= nr; r0 += 4) {
    PetscReal *restrict y0 = x + r0 * ls, *restrict y1 = y0 + ls, *restrict y2 = y1 + ls, *restrict y3 = y2 + ls;
    PetscReal           p0 = y0[0], p1 = y1[0], p2 = y2[0], p3 = y3[0];
    for (PetscInt t = 1; t < n; t++) {
      const PetscReal m = fl[t];
      y0[t] = p0 = y0[t] - m * p0;
      y1[t] = p1 = y1[t] - m * p1;
      y2[t] = p2 = y2[t] - m * p2;
      y3[t] = p3 = y3[t] - m * p3;
    }
    {
      const PetscReal m = fi[n - 1];
      y0[n - 1] = p0 *= m, y1[n - 1] = p1 *= m, y2[n - 1] = p2 *= m, y3[n - 1] = p3 *= m;
    }
    for (PetscInt t = n - 2; t >= 0; t--) {
      const PetscReal c = fc[t], m = fi[t];
      y0[t] = p0 = (y0[t] - c * p0) * m;
      y1[t] = p1 = (y1[t] - c * p1) * m;
      y2[t] = p2 = (y2[t] - c * p2) * m;
      y3[t] = p3 = (y3[t] - c * p3) * m;
    }
  }
  for (ptrdiff_t r = r0; r < nr; r++) FGViscousAFSweep_Private(F, n, 1, 1, x + r * ls, PETSC_FALSE);
  if (!cyc) return;
  for (ptrdiff_t r = 0; r < nr; r++) {
    PetscReal      *y   = x + r * ls;
    const PetscReal fac = (y[0] + F->beta * y[n - 1] / F->gam) * F->den;
    for (PetscInt t = 0; t < n; t++) y[t] -= fac * F->z[t];
  }
}

/* y = L_b x on nl lines side by side (x[t * st + l]), out of place. */
static void FGViscousAFApplyLines_Private(FGViscousAF f, PetscInt a, PetscInt b, ptrdiff_t st, ptrdiff_t nl, const PetscReal *restrict x, PetscReal *restrict y)
{
  const PetscInt   n = f->nu[a][b];
  const PetscReal *cm = f->cm[a][b], *cp = f->cp[a][b];
  for (PetscInt t = 0; t < n; t++) {
    const PetscReal *xt = x + t * st, *xm, *xp;
    PetscReal       *yt = y + t * st, wm = 1, wp = 1;
    if (t > 0) xm = xt - st;
    else if (f->cyc[b]) xm = x + (n - 1) * st;
    else xm = xt, wm = f->glo[a][b];
    if (t < n - 1) xp = xt + st;
    else if (f->cyc[b]) xp = x;
    else xp = xt, wp = f->ghi[a][b];
    for (ptrdiff_t l = 0; l < nl; l++) yt[l] = cp[t] * (wp * xp[l] - xt[l]) - cm[t] * (xt[l] - wm * xm[l]);
  }
}

/* The interior-face ranges of component a on this rank, in the owned array's local indices:
   [0, m[d]) per direction (the slab direction: the owned planes that are interior). */
static void FGViscousAFRange_Private(FGViscousAF f, FGGrid g, PetscInt a, PetscInt m[3])
{
  for (PetscInt d = 0; d < 3; d++) m[d] = 1;
  for (PetscInt d = 0; d < f->dim; d++) m[d] = d == f->sd ? PetscMax(0, PetscMin(g->box.hi[d], f->nu[a][d]) - g->box.lo[d]) : f->nu[a][d];
}

/* x += alpha w on the interior faces (the ranges m of FGViscousAFRange_Private); w's rows and
   planes ws[1], ws[2] apart (the owned layout's, or a ghosted array's). */
static void FGViscousAFAxpy_Private(FGViscousAF f, FGGrid g, const PetscInt m[3], PetscReal alpha, const PetscReal *w, const PetscInt ws[3], PetscReal *x)
{
  for (PetscInt k = 0; k < m[2]; k++)
    for (PetscInt j = 0; j < m[1]; j++) {
      const ptrdiff_t  o = k * f->P + j * g->n[0];
      const PetscReal *wr = w + k * ws[2] + j * ws[1];
      for (PetscInt i = 0; i < m[0]; i++) x[o + i] += alpha * wr[i];
    }
}

/* One direction b of component a on the owned array x (interior faces only): mode 0 the factor
   solve (I - s L_b)^{-1}, mode 1 x = L_b x. Collective when b is the slab direction on several
   ranks. */
static PetscErrorCode FGViscousAFDirection_Private(FGViscousAF f, FGGrid g, PetscInt a, PetscInt b, PetscInt mode, PetscReal s, PetscReal *x)
{
  const PetscInt n = f->nu[a][b], n0 = g->n[0];
  PetscInt       m[3];

  PetscFunctionBeginUser;
  FGViscousAFRange_Private(f, g, a, m);
  if (g->periodic[b] && g->n[b] == 1) { /* L_b = 0: the factor is the identity */
    if (mode == 1) PetscCall(PetscArrayzero(x, f->nsl * f->P));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (mode == 0) FGViscousAFFactor_Private(f, a, b, s);
  if (b == f->sd && f->t1) { /* across the slabs: transpose, the lines, transpose back */
    PetscCall(PetscArraycpy(f->buf, x, f->nsl * f->P));
    fftw_execute(f->t1);
    for (ptrdiff_t q = 0; q < f->lnmid; q++) {
      PetscReal *xl = f->tbuf + q * f->ns * f->B;
      if (mode == 0) FGViscousAFSweep_Private(&f->fac[b], n, f->B, f->B, xl, f->cyc[b]);
      else {
        FGViscousAFApplyLines_Private(f, a, b, f->B, f->B, xl, f->buf);
        PetscCall(PetscArraycpy(xl, f->buf, n * f->B));
      }
    }
    fftw_execute(f->t2);
    for (PetscInt k = 0; k < m[2]; k++) /* back: the interior faces only */
      for (PetscInt j = 0; j < m[1]; j++) PetscCall(PetscArraycpy(x + k * f->P + j * n0, f->buf + k * f->P + j * n0, m[0]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (b == 0) { /* rows along x: contiguous lines */
    for (PetscInt k = 0; k < m[2]; k++) {
      PetscReal *xk = x + k * (f->dim == 3 ? f->P : 0);
      if (mode == 0) FGViscousAFSweepRows_Private(&f->fac[0], n, n0, m[1], xk, f->cyc[0]);
      else
        for (PetscInt j = 0; j < m[1]; j++) {
          FGViscousAFApplyLines_Private(f, a, 0, 1, 1, xk + j * n0, f->scr);
          PetscCall(PetscArraycpy(xk + j * n0, f->scr, n));
        }
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (b == 1) { /* along y: stride n0, the x entries side by side, per z plane */
    for (PetscInt k = 0; k < m[2]; k++) {
      PetscReal *xk = x + k * (f->dim == 3 ? f->P : 0);
      if (mode == 0) FGViscousAFSweep_Private(&f->fac[1], n, n0, m[0], xk, f->cyc[1]);
      else {
        FGViscousAFApplyLines_Private(f, a, 1, n0, m[0], xk, f->scr);
        for (PetscInt j = 0; j < n; j++) PetscCall(PetscArraycpy(xk + j * n0, f->scr + j * n0, m[0]));
      }
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* along z (one rank): stride P; the rows j < m[1] of each plane side by side, as one span (the
     boundary faces inside it, x's last entry of each row when a = 0, saved and put back) */
  {
    const ptrdiff_t span = m[1] > 0 ? (m[1] - 1) * n0 + m[0] : 0, nk = m[0] < n0 ? m[1] - 1 : 0;
    PetscReal      *save = f->scr;
    if (span == 0) PetscFunctionReturn(PETSC_SUCCESS);
    for (PetscInt k = 0; k < n; k++)
      for (PetscInt j = 0; j < nk; j++)
        for (PetscInt i = m[0]; i < n0; i++) *save++ = x[k * f->P + j * n0 + i];
    if (mode == 0) FGViscousAFSweep_Private(&f->fac[2], n, f->P, span, x, f->cyc[2]);
    else {
      PetscReal *y = f->scr + n * nk * (n0 - m[0]);
      FGViscousAFApplyLines_Private(f, a, 2, f->P, span, x, y);
      for (PetscInt k = 0; k < n; k++) PetscCall(PetscArraycpy(x + k * f->P, y + k * f->P, span));
    }
    save = f->scr;
    for (PetscInt k = 0; k < n; k++)
      for (PetscInt j = 0; j < nk; j++)
        for (PetscInt i = m[0]; i < n0; i++) x[k * f->P + j * n0 + i] = *save++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGViscousAFSolve - x_U = S~(s) x_U for component a, in place on the owned array (the other
  faces untouched); with w (its entry (0, 0, 0) of the owned box, rows and planes ws[1], ws[2]
  apart: an owned array, or a ghosted one from its first owned entry), the increment form
  x_U = w_U + S~ (x_U - w_U) (the subtraction and the addition are contiguous passes: fused
  into the sweeps they made the strided sweeps slower than the passes cost). Collective.
@*/
PetscErrorCode FGViscousAFSolve(FGViscousAF f, FGGrid g, PetscInt a, PetscReal s, const PetscScalar *w, const PetscInt ws[3], PetscScalar *x)
{
  PetscInt m[3];

  PetscFunctionBeginUser;
  FGViscousAFRange_Private(f, g, a, m);
  if (f->dim == 3 && !(g->periodic[0] && g->n[0] == 1) && !(g->periodic[1] && g->n[1] == 1)) {
    /* plane by plane: the subtraction and the x and y sweeps of a z plane while it is in cache */
    const PetscInt n0 = g->n[0];
    FGViscousAFFactor_Private(f, a, 0, s);
    FGViscousAFFactor_Private(f, a, 1, s);
    for (PetscInt k = 0; k < m[2]; k++) {
      PetscReal *xk = x + k * f->P;
      if (w)
        for (PetscInt j = 0; j < m[1]; j++)
          for (PetscInt i = 0; i < m[0]; i++) xk[j * n0 + i] -= w[k * ws[2] + j * ws[1] + i];
      FGViscousAFSweepRows_Private(&f->fac[0], f->nu[a][0], n0, m[1], xk, f->cyc[0]);
      FGViscousAFSweep_Private(&f->fac[1], f->nu[a][1], n0, m[0], xk, f->cyc[1]);
    }
    PetscCall(FGViscousAFDirection_Private(f, g, a, 2, 0, s, x));
  } else {
    if (w) FGViscousAFAxpy_Private(f, g, m, -1.0, w, ws, x);
    for (PetscInt b = 0; b < f->dim; b++) PetscCall(FGViscousAFDirection_Private(f, g, a, b, 0, s, x));
  }
  if (w) FGViscousAFAxpy_Private(f, g, m, 1.0, w, ws, x);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGViscousAFCorrection - x_U = (E(s) - L_0) x_U for component a, in place, where
  E = -dM~/ds = sum_b L_b prod_{c != b} (I - s L_c): in 2D -2 s L_0 L_1, in 3D
  -2 s (L_0 L_1 + L_0 L_2 + L_1 L_2) + 3 s^2 L_0 L_1 L_2 (the factors commute). dS~/ds = S~ E S~,
  so the derivative of the factored solve differs from the exact one's (E = L_0) by this term.
  w: scratch of the owned array's size (3D: two). Collective.
@*/
PetscErrorCode FGViscousAFCorrection(FGViscousAF f, FGGrid g, PetscInt a, PetscReal s, PetscScalar *x, PetscScalar *w0, PetscScalar *w1)
{
  const ptrdiff_t nloc = f->nsl * f->P;

  PetscFunctionBeginUser;
  if (f->dim == 2) {
    PetscCall(FGViscousAFDirection_Private(f, g, a, 0, 1, s, x));
    PetscCall(FGViscousAFDirection_Private(f, g, a, 1, 1, s, x));
    for (ptrdiff_t i = 0; i < nloc; i++) x[i] *= -2 * s;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* 3D: w0 = L_0 x, w1 = L_1 w0 (= L_0 L_1 x); x <- L_2 (L_1 x + w0) ... */
  PetscCall(PetscArraycpy(w0, x, nloc));
  PetscCall(FGViscousAFDirection_Private(f, g, a, 0, 1, s, w0)); /* L0 x */
  PetscCall(PetscArraycpy(w1, w0, nloc));
  PetscCall(FGViscousAFDirection_Private(f, g, a, 1, 1, s, w1)); /* L0 L1 x */
  PetscCall(FGViscousAFDirection_Private(f, g, a, 1, 1, s, x));  /* L1 x */
  for (ptrdiff_t i = 0; i < nloc; i++) w0[i] += x[i];             /* (L0 + L1) x */
  for (ptrdiff_t i = 0; i < nloc; i++) x[i] = w1[i];              /* L0 L1 x */
  PetscCall(FGViscousAFDirection_Private(f, g, a, 2, 1, s, w0)); /* (L0 L2 + L1 L2) x */
  PetscCall(FGViscousAFDirection_Private(f, g, a, 2, 1, s, w1)); /* L0 L1 L2 x */
  for (ptrdiff_t i = 0; i < nloc; i++) x[i] = -2 * s * (x[i] + w0[i]) + 3 * s * s * w1[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGViscousAFDestroy(FGViscousAF *fp)
{
  FGViscousAF f = *fp;

  PetscFunctionBeginUser;
  if (!f) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt b = 0; b < 3; b++) PetscCall(PetscFree2(f->cm[a][b], f->cp[a][b]));
  for (PetscInt b = 0; b < f->dim; b++) PetscCall(PetscFree4(f->fac[b].l, f->fac[b].i, f->fac[b].c, f->fac[b].z));
  PetscCall(PetscFree(f->scr));
  if (f->t1) fftw_destroy_plan(f->t1);
  if (f->t2) fftw_destroy_plan(f->t2);
  if (f->buf) fftw_free(f->buf);
  if (f->tbuf) fftw_free(f->tbuf);
  PetscCall(PetscFree(*fp));
  PetscFunctionReturn(PETSC_SUCCESS);
}
