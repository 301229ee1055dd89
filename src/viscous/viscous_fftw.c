/*
  The direct path of the implicit viscous term's Helmholtz problems (include/fg/viscous.h), as
  CaNS solves its implicit diffusion: real-to-real transforms in the in-slab directions, the
  Thomas algorithm along the slab direction s (y in 2D, z in 3D), on the grid's FFTW slabs.

  Component a, in-slab direction b (uniform, spacing h_b), each with its 1-D operator and closure:

    periodic                 R2HC / HC2R on n points      theta_m = 2 pi min(m, n-m) / n      N = n
    b != a (a cell line)     the pressure's table (poisson_fftw.c) with the ghost rule's sign:
                             cf = -1 Dirichlet, +1 Neumann: REDFT10/01, RODFT10/01, REDFT11,
                             RODFT11                                                           N = 2n
    b == a (a face line)     RODFT00 on the n - 1 interior faces (the boundary faces are data:
                             Dirichlet at both nodes), theta_m = pi (m+1)/n, m < n - 1         N = 2n

  lambda_m = -4/h_b^2 sin^2(theta_m/2), and Lambda = sum_b lambda of each in-slab mode. The face
  line's last entry (a boundary face) is outside its transform and its lines along s are left
  alone: only the interior faces are copied back. Along s, each in-slab mode leaves the line

    x_j - s (Lambda x_j + cp_j (x_{j+1} - x_j) - cm_j (x_j - x_{j-1})) = b_j

  over the unknowns of component a along s (all n_s cells, or the n_s - 1 interior faces when
  a == s), with (cm, cp) of src/ops/diffusion.c (stretched s allowed) and the ghost rule
  x_{-1} = cf x_0 folded into the first and last rows (cf = 0 where the neighbour is a boundary
  face: data). Diagonally dominant (1 - s Lambda >= 1, |cf| <= 1): Thomas without pivoting, the
  pivots computed on the fly (no factor storage: three stage values of s per step).

  Layout: on one rank the lines run down the local array [n_s][P] (P in-slab points), the sweeps
  vectorized across P. On several, fftw_mpi_plan_many_transpose turns [n_s][n_mid][B] into
  [n_mid][n_s][B] (3D: B = n_x, n_mid = n_y; 2D: B in 8, 4, 2, 1 dividing n_x) and back.

  Plans are FFTW_ESTIMATE: measured plans could differ between a run and its resumption, and
  restart is bit for bit.

  A periodic slab direction makes the lines cyclic: Sherman-Morrison on top of the same sweep
  (FGViscousCyclic_Private).

  Conditions (else the KSP path): the grid's slab decomposition (poisson.type fftw), uniform
  in-slab directions, at least 3 cells along a periodic slab direction, no outflow face at the
  lower end of an in-slab direction.

  Transpose: (I - s L_0) is symmetric in the face-volume inner product, so S^T = V S V^{-1}.
*/
#include "viscousimpl.h"

struct _p_FGViscousFFTW {
  PetscInt  dim, sd;      /* dimension; the slab direction */
  ptrdiff_t P, nsl, ns;   /* in-slab points per plane; local planes; planes */
  ptrdiff_t B, nmid, lnmid, mid0; /* the line layout [lnmid][ns][B] (several ranks) */
  double   *buf, *tbuf;   /* alloc_local each */
  fftw_plan fwd[3], bwd[3]; /* the in-slab transforms per component (in place on buf) */
  fftw_plan t1, t2;       /* slab -> line layout and back (NULL on one rank) */
  PetscReal norm[3];      /* 1 / prod N of the in-slab transforms, per component */
  PetscReal *lam[3];      /* Lambda of each in-slab point p (P), per component */
  PetscReal *cm[3], *cp[3]; /* along s: the couplings of row j (cm[0] and cp[last] with the closures) */
  PetscReal  glo[3], ghi[3]; /* the closures' cf at the two ends */
  PetscInt   nu[3];       /* the unknowns along s per component */
  PetscBool  cyclic;      /* the slab direction is periodic: cyclic lines (Sherman-Morrison) */
  double    *zb;          /* cyclic: the second right-hand side's scratch (n_s x the lines side by side) */
};

/* The kinds, the transform length and the eigenvalues of component a along the in-slab direction
   b (uniform); lam[i] for i < n (the entries a transform does not reach: 0). */
static PetscErrorCode FGViscousFFTWAxis_Private(FGGrid g, const FGBoundary *bc, PetscInt a, PetscInt b, fftw_r2r_kind *kf, fftw_r2r_kind *kb, int *len, PetscReal *N, PetscReal lam[])
{
  const PetscInt  n  = g->n[b];
  const PetscReal q  = 4.0 / (g->h[b] * g->h[b]);

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) lam[i] = 0;
  if (g->periodic[b]) {
    *kf = FFTW_R2HC, *kb = FFTW_HC2R, *len = (int)n, *N = (PetscReal)n;
    for (PetscInt m = 0; m < n; m++) lam[m] = -q * PetscSqr(PetscSinReal(PETSC_PI * (PetscReal)PetscMin(m, n - m) / (PetscReal)n));
  } else if (b == a) {
    *kf = FFTW_RODFT00, *kb = FFTW_RODFT00, *len = (int)(n - 1), *N = 2.0 * (PetscReal)n;
    for (PetscInt m = 0; m < n - 1; m++) lam[m] = -q * PetscSqr(PetscSinReal(0.5 * PETSC_PI * (PetscReal)(m + 1) / (PetscReal)n));
  } else {
    const PetscBool nlo = (PetscBool)(FGOpGhostCoefficient(bc, b, FG_FACE_LO, a) > 0), nhi = (PetscBool)(FGOpGhostCoefficient(bc, b, FG_FACE_HI, a) > 0);
    PetscReal       shift;
    if (nlo && nhi) *kf = FFTW_REDFT10, *kb = FFTW_REDFT01, shift = 0;
    else if (!nlo && !nhi) *kf = FFTW_RODFT10, *kb = FFTW_RODFT01, shift = 1;
    else if (nlo) *kf = FFTW_REDFT11, *kb = FFTW_REDFT11, shift = 0.5;
    else *kf = FFTW_RODFT11, *kb = FFTW_RODFT11, shift = 0.5;
    *len = (int)n, *N = 2.0 * (PetscReal)n;
    for (PetscInt m = 0; m < n; m++) lam[m] = -q * PetscSqr(PetscSinReal(0.5 * PETSC_PI * ((PetscReal)m + shift) / (PetscReal)n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGViscousDirectApplies - whether the direct path applies to a grid and its boundary kinds (the
  conditions above). Not collective.
@*/
PetscBool FGViscousDirectApplies(FGGrid g, const FGBoundary *bc)
{
  const PetscInt sd = g->dim - 1;
  if (g->decomp != FG_DECOMP_SLAB || (g->periodic[sd] && g->n[sd] < 3)) return PETSC_FALSE;
  for (PetscInt b = 0; b < sd; b++) {
    if (!g->uniform[b] || (!g->periodic[b] && g->n[b] < 2)) return PETSC_FALSE;
    if (!g->periodic[b] && bc->kind[b][FG_FACE_LO] == FG_BC_OUTFLOW) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

/*@C
  FGViscousLinesLayout - the line layout of the slab direction (viscousimpl.h); checks that FFTW's
  slabs are the grid's. Collective.
@*/
PetscErrorCode FGViscousLinesLayout(FGGrid g, const char *who, FGViscousLines *L)
{
  const PetscInt sd = g->dim - 1;
  ptrdiff_t      n2[2], ln0, s0;

  PetscFunctionBeginUser;
  if (g->dim == 3) L->B = g->n[0], L->nmid = g->n[1];
  else {
    L->B = 1;
    for (PetscInt b = 8; b > 1; b /= 2)
      if (g->n[0] % b == 0) {
        L->B = b;
        break;
      }
    L->nmid = g->n[0] / L->B;
  }
  n2[0] = g->n[sd], n2[1] = L->nmid;
  L->alloc = fftw_mpi_local_size_many_transposed(2, n2, L->B, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, g->comm, &ln0, &s0, &L->lnmid, &L->mid0);
  PetscCheck(ln0 == g->box.hi[sd] - g->box.lo[sd] && s0 == g->box.lo[sd], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the slabs differ from the grid's", who);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGViscousLinesPlans - the two transposes, slabs (buf) to lines (tbuf) and back (FFTW_ESTIMATE:
  a run and its resumption plan alike). Collective.
@*/
PetscErrorCode FGViscousLinesPlans(FGGrid g, const FGViscousLines *L, const char *who, double *buf, double *tbuf, fftw_plan *t1, fftw_plan *t2)
{
  const ptrdiff_t ns = g->n[g->dim - 1];

  PetscFunctionBeginUser;
  *t1 = fftw_mpi_plan_many_transpose(ns, L->nmid, L->B, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, buf, tbuf, g->comm, FFTW_ESTIMATE);
  *t2 = fftw_mpi_plan_many_transpose(L->nmid, ns, L->B, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, tbuf, buf, g->comm, FFTW_ESTIMATE);
  PetscCheck(*t1 && *t2, g->comm, PETSC_ERR_LIB, "%s: fftw_mpi_plan_many_transpose failed", who);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGViscousFFTWCreate - the direct path where it applies (see above); *f = NULL where it does not.
  Collective.
@*/
PetscErrorCode FGViscousFFTWCreate(FGGrid g, const FGBoundary *bc, FGViscousFFTW *out)
{
  FGViscousFFTW f;
  const PetscInt dim = g->dim, sd = dim - 1;
  PetscMPIInt    size;
  ptrdiff_t      alloc;
  PetscReal     *l1[2];

  PetscFunctionBeginUser;
  *out = NULL;
  if (!FGViscousDirectApplies(g, bc)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(g->comm, &size));
  PetscCall(PetscNew(&f));
  f->dim = dim, f->sd = sd, f->ns = g->n[sd], f->cyclic = g->periodic[sd];
  f->P   = dim == 2 ? g->n[0] : g->n[0] * g->n[1];
  f->nsl = g->box.hi[sd] - g->box.lo[sd];
  {
    FGViscousLines L;
    PetscCall(FGViscousLinesLayout(g, "viscous FFTW", &L));
    f->B = L.B, f->nmid = L.nmid, f->lnmid = L.lnmid, f->mid0 = L.mid0;
    alloc = PetscMax(L.alloc, f->nsl * f->P);
  }
  f->buf   = fftw_alloc_real((size_t)PetscMax(alloc, 1));
  f->tbuf  = fftw_alloc_real((size_t)PetscMax(alloc, f->ns * f->P * (size == 1)) + 1);
  if (f->cyclic) f->zb = fftw_alloc_real((size_t)(f->ns * (size == 1 ? f->P : f->B)));
  PetscCheck(f->buf && f->tbuf && (!f->cyclic || f->zb), PETSC_COMM_SELF, PETSC_ERR_MEM, "viscous FFTW: out of memory");
  if (size > 1) {
    const FGViscousLines L = {f->B, f->nmid, f->lnmid, f->mid0, alloc};
    PetscCall(FGViscousLinesPlans(g, &L, "viscous FFTW", f->buf, f->tbuf, &f->t1, &f->t2));
  }
  PetscCall(PetscMalloc2(g->n[0], &l1[0], dim == 3 ? g->n[1] : 1, &l1[1]));
  for (PetscInt a = 0; a < dim; a++) {
    fftw_r2r_kind kf[2], kb[2];
    int           len[2], emb[2];
    PetscReal     N[2] = {1, 1};
    const PetscInt nb = dim - 1; /* in-slab directions: x (2D); x, y (3D) */
    for (PetscInt b = 0; b < nb; b++) PetscCall(FGViscousFFTWAxis_Private(g, bc, a, b, &kf[b], &kb[b], &len[b], &N[b], l1[b]));
    f->norm[a] = 1.0 / (N[0] * (nb > 1 ? N[1] : 1.0));
    PetscCall(PetscMalloc1(f->P, &f->lam[a]));
    for (ptrdiff_t p = 0; p < f->P; p++) f->lam[a][p] = l1[0][p % g->n[0]] + (nb > 1 ? l1[1][p / g->n[0]] : 0.0);
    if (nb == 1) {
      emb[0]     = (int)g->n[0];
      f->fwd[a] = fftw_plan_many_r2r(1, len, (int)f->nsl, f->buf, emb, 1, (int)g->n[0], f->buf, emb, 1, (int)g->n[0], kf, FFTW_ESTIMATE);
      f->bwd[a] = fftw_plan_many_r2r(1, len, (int)f->nsl, f->buf, emb, 1, (int)g->n[0], f->buf, emb, 1, (int)g->n[0], kb, FFTW_ESTIMATE);
    } else { /* row-major [y][x]: the first dimension is y */
      int           l2[2] = {len[1], len[0]};
      fftw_r2r_kind f2[2] = {kf[1], kf[0]}, b2[2] = {kb[1], kb[0]};
      emb[0] = (int)g->n[1], emb[1] = (int)g->n[0];
      f->fwd[a] = fftw_plan_many_r2r(2, l2, (int)f->nsl, f->buf, emb, 1, (int)f->P, f->buf, emb, 1, (int)f->P, f2, FFTW_ESTIMATE);
      f->bwd[a] = fftw_plan_many_r2r(2, l2, (int)f->nsl, f->buf, emb, 1, (int)f->P, f->buf, emb, 1, (int)f->P, b2, FFTW_ESTIMATE);
    }
    PetscCheck(f->fwd[a] && f->bwd[a], PETSC_COMM_SELF, PETSC_ERR_LIB, "viscous FFTW: fftw_plan_many_r2r failed");
    /* along s */
    f->nu[a]  = a == sd && !f->cyclic ? f->ns - 1 : f->ns;
    f->glo[a] = f->cyclic ? 0.0 : FGOpGhostCoefficient(bc, sd, FG_FACE_LO, a);
    f->ghi[a] = f->cyclic || a == sd ? 0.0 : FGOpGhostCoefficient(bc, sd, FG_FACE_HI, a);
    PetscCall(PetscMalloc2(f->ns, &f->cm[a], f->ns, &f->cp[a]));
    for (PetscInt j = 0; j < f->ns; j++) {
      PetscReal cm, cp;
      FGOpDiffusionCoefficients(g, a, sd, j, &cm, &cp);
      if (g->uniform[sd]) cm = cp = 1.0 / (g->h[sd] * g->h[sd]); /* as src/ops/diffusion.c computes it */
      f->cm[a][j] = cm, f->cp[a][j] = cp;
    }
  }
  PetscCall(PetscFree2(l1[0], l1[1]));
  *out = f;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Thomas along s for nl lines side by side (x[j * st + l], l < nl; lam[l] each line's Lambda),
   j < n unknowns; c: scratch of n * st. */
static void FGViscousThomas_Private(FGViscousFFTW f, PetscInt a, PetscReal s, PetscInt n, ptrdiff_t st, ptrdiff_t nl, const PetscReal *restrict lam, PetscReal *restrict x, PetscReal *restrict c)
{
  const PetscReal *cm = f->cm[a], *cp = f->cp[a];
  for (PetscInt j = 0; j < n; j++) {
    const PetscReal A = j > 0 ? -s * cm[j] : 0, C = j < n - 1 ? -s * cp[j] : 0;
    PetscReal       d0 = 1 + s * (cm[j] + cp[j]);
    PetscReal      *xj = x + j * st, *cj = c + j * st;
    if (j == 0) d0 -= s * cm[0] * f->glo[a];
    if (j == n - 1) d0 -= s * cp[n - 1] * f->ghi[a];
    if (j == 0)
      for (ptrdiff_t l = 0; l < nl; l++) {
        const PetscReal m = 1.0 / (d0 - s * lam[l]);
        cj[l] = C * m, xj[l] *= m;
      }
    else {
      const PetscReal *xp = xj - st, *cq = cj - st;
      for (ptrdiff_t l = 0; l < nl; l++) {
        const PetscReal m = 1.0 / (d0 - s * lam[l] - A * cq[l]);
        cj[l] = C * m, xj[l] = (xj[l] - A * xp[l]) * m;
      }
    }
  }
  for (PetscInt j = n - 2; j >= 0; j--) {
    PetscReal       *xj = x + j * st;
    const PetscReal *xn = xj + st, *cj = c + j * st;
    for (ptrdiff_t l = 0; l < nl; l++) xj[l] -= cj[l] * xn[l];
  }
}

/* The same on a periodic slab direction: the lines are cyclic, row 0 coupled to row n-1 by
   -s cm_0 and row n-1 to row 0 by -s cp_{n-1}. Sherman-Morrison (as in Numerical Recipes'
   cyclic): with gamma = -D_0, the tridiagonal T (D_0 - gamma, D_{n-1} - alpha beta / gamma, the
   corners dropped; alpha = -s cp_{n-1}, beta = -s cm_0) is solved for x and for z with the
   right-hand side (gamma, 0, .., alpha), both in one sweep, and x -= z (x_0 + beta x_{n-1} / gamma)
   / (1 + z_0 + beta z_{n-1} / gamma). T is diagonally dominant (D_0 - gamma = 2 D_0). */
static void FGViscousCyclic_Private(FGViscousFFTW f, PetscInt a, PetscReal s, PetscInt n, ptrdiff_t st, ptrdiff_t nl, const PetscReal *restrict lam, PetscReal *restrict x, PetscReal *restrict c, PetscReal *restrict z)
{
  const PetscReal *cm = f->cm[a], *cp = f->cp[a], alpha = -s * cp[n - 1], beta = -s * cm[0];
  for (PetscInt j = 0; j < n; j++) {
    const PetscReal A = j > 0 ? -s * cm[j] : 0, C = j < n - 1 ? -s * cp[j] : 0, d0 = 1 + s * (cm[j] + cp[j]);
    PetscReal      *xj = x + j * st, *cj = c + j * st, *zj = z + j * st;
    if (j == 0)
      for (ptrdiff_t l = 0; l < nl; l++) {
        const PetscReal D = d0 - s * lam[l], m = 1.0 / (2 * D); /* D_0 - gamma */
        cj[l] = C * m, xj[l] *= m, zj[l] = -D * m;               /* z's rhs: gamma = -D_0 */
      }
    else {
      const PetscReal *xp = xj - st, *zp = zj - st, *cq = cj - st;
      const PetscReal  zr = j == n - 1 ? alpha : 0;
      for (ptrdiff_t l = 0; l < nl; l++) {
        const PetscReal D0 = 1 + s * (cm[0] + cp[0]) - s * lam[l]; /* -gamma */
        const PetscReal D  = d0 - s * lam[l] + (j == n - 1 ? alpha * beta / D0 : 0);
        const PetscReal m  = 1.0 / (D - A * cq[l]);
        cj[l] = C * m, xj[l] = (xj[l] - A * xp[l]) * m, zj[l] = (zr - A * zp[l]) * m;
      }
    }
  }
  for (PetscInt j = n - 2; j >= 0; j--) {
    PetscReal       *xj = x + j * st, *zj = z + j * st;
    const PetscReal *xn = xj + st, *zn = zj + st, *cj = c + j * st;
    for (ptrdiff_t l = 0; l < nl; l++) xj[l] -= cj[l] * xn[l], zj[l] -= cj[l] * zn[l];
  }
  {
    PetscReal *xl = x + (n - 1) * st, *zl = z + (n - 1) * st;
    for (ptrdiff_t l = 0; l < nl; l++) {
      const PetscReal gam = -(1 + s * (cm[0] + cp[0]) - s * lam[l]);
      const PetscReal fac = (x[l] + beta * xl[l] / gam) / (1 + z[l] + beta * zl[l] / gam);
      for (PetscInt j = 0; j < n; j++) x[j * st + l] -= fac * z[j * st + l];
    }
  }
}

/*@C
  FGViscousFFTWSolve - y = (I - s L_0)^{-1} x for component a (owned arrays of the grid's layout;
  y may be x). Only y's interior faces are meaningful. Collective.
@*/
PetscErrorCode FGViscousFFTWSolve(FGViscousFFTW f, PetscInt a, PetscReal s, const PetscScalar *x, PetscScalar *y)
{
  const ptrdiff_t nloc = f->nsl * f->P;

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(f->buf, x, nloc));
  fftw_execute(f->fwd[a]);
  if (!f->t1) {
    if (f->cyclic) FGViscousCyclic_Private(f, a, s, f->nu[a], f->P, f->P, f->lam[a], f->buf, f->tbuf, f->zb);
    else FGViscousThomas_Private(f, a, s, f->nu[a], f->P, f->P, f->lam[a], f->buf, f->tbuf);
  } else {
    PetscReal *c = f->buf; /* the slab buffer is free while the lines are solved: scratch */
    fftw_execute(f->t1);
    for (ptrdiff_t q = 0; q < f->lnmid; q++) {
      const PetscReal *lam = f->lam[a] + (f->mid0 + q) * f->B;
      PetscReal       *xl  = f->tbuf + q * f->ns * f->B;
      if (f->cyclic) FGViscousCyclic_Private(f, a, s, f->nu[a], f->B, f->B, lam, xl, c, f->zb);
      else FGViscousThomas_Private(f, a, s, f->nu[a], f->B, f->B, lam, xl, c);
    }
    fftw_execute(f->t2);
  }
  fftw_execute(f->bwd[a]);
  for (ptrdiff_t i = 0; i < nloc; i++) y[i] = f->buf[i] * f->norm[a];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGViscousFFTWDestroy(FGViscousFFTW *fp)
{
  FGViscousFFTW f = *fp;

  PetscFunctionBeginUser;
  if (!f) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt a = 0; a < 3; a++) {
    if (f->fwd[a]) fftw_destroy_plan(f->fwd[a]);
    if (f->bwd[a]) fftw_destroy_plan(f->bwd[a]);
    PetscCall(PetscFree(f->lam[a]));
    PetscCall(PetscFree2(f->cm[a], f->cp[a]));
  }
  if (f->t1) fftw_destroy_plan(f->t1);
  if (f->t2) fftw_destroy_plan(f->t2);
  fftw_free(f->buf);
  fftw_free(f->tbuf);
  if (f->zb) fftw_free(f->zb);
  PetscCall(PetscFree(*fp));
  PetscFunctionReturn(PETSC_SUCCESS);
}
