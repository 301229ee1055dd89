/*
  The momentum right-hand side of the forward step in one pass:

    H_a = -A_a(u) + nu D_a(u)   on the interior faces of component a,   H_a = 0 on its other faces,

  with A (advection.c) and D (diffusion.c) exactly as defined there. FGOpAdvection and
  FGOpDiffusion each sweep every (a, b) pair and read-modify-write rhs once per pair: 2 d^2 passes
  over the arrays; here each component is one sweep that reads the d velocity arrays around its
  face and writes H_a once, and it needs no VecSet of H beforehand. On a grid with a stretched
  direction the row kernel carries the metrics of advection.c and diffusion.c: the coefficients
  that vary along x (x's advection factor and diffusion coefficients, and for u the weights of the
  cross fluxes' transport velocity) in arrays over the row, filled once per component, the others
  once per row. Only the rounding differs from VecSet + FGOpAdvection + FGOpDiffusion
  (tests/unit/test_ops.c compares them, 1e-14, uniform and stretched, the split form too). The
  linearized step keeps the separate operators, whose tangents and adjoints sit next to them.
*/
#include <fg/ops.h>

#if defined(__GNUC__)
  #define FG_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
  #define FG_ALWAYS_INLINE inline
#endif

/* One row of interior faces, i in [0, n): ua, u0, u1, u2 point at the row's first face (ghosted
   arrays; u2 NULL in 2D), sa, sy, sz the strides of component a's direction, y and z. */
static void FGMomentumRow_Private(PetscInt n, const PetscScalar *restrict ua, const PetscScalar *restrict u0, const PetscScalar *restrict u1, const PetscScalar *restrict u2, PetscInt sa, PetscInt sy, PetscInt sz, const PetscReal q[3], const PetscReal nh2[3], PetscReal nu2, PetscScalar *restrict h)
{
  const PetscReal qx = q[0], qy = q[1], qz = q[2], cx = nh2[0], cy = nh2[1], cz = nh2[2];
  if (!u2) {
    for (PetscInt i = 0; i < n; i++) {
      const PetscReal c = ua[i];
      const PetscReal fx = (u0[i] + u0[i + sa]) * (c + ua[i + 1]) - (u0[i - 1] + u0[i - 1 + sa]) * (ua[i - 1] + c);
      const PetscReal fy = (u1[i] + u1[i + sa]) * (c + ua[i + sy]) - (u1[i - sy] + u1[i - sy + sa]) * (ua[i - sy] + c);
      h[i]               = cx * (ua[i + 1] + ua[i - 1]) + cy * (ua[i + sy] + ua[i - sy]) - nu2 * c - (qx * fx + qy * fy);
    }
  } else {
    for (PetscInt i = 0; i < n; i++) {
      const PetscReal c = ua[i];
      const PetscReal fx = (u0[i] + u0[i + sa]) * (c + ua[i + 1]) - (u0[i - 1] + u0[i - 1 + sa]) * (ua[i - 1] + c);
      const PetscReal fy = (u1[i] + u1[i + sa]) * (c + ua[i + sy]) - (u1[i - sy] + u1[i - sy + sa]) * (ua[i - sy] + c);
      const PetscReal fz = (u2[i] + u2[i + sa]) * (c + ua[i + sz]) - (u2[i - sz] + u2[i - sz + sa]) * (ua[i - sz] + c);
      h[i]               = cx * (ua[i + 1] + ua[i - 1]) + cy * (ua[i + sy] + ua[i - sy]) + cz * (ua[i + sz] + ua[i - sz]) - nu2 * c - (qx * fx + qy * fy + qz * fz);
    }
  }
}

/* The same row with the viscous term sent elsewhere: h = -A, r += (the nh2-weighted Laplacian). */
static void FGMomentumRowSplit_Private(PetscInt n, const PetscScalar *restrict ua, const PetscScalar *restrict u0, const PetscScalar *restrict u1, const PetscScalar *restrict u2, PetscInt sa, PetscInt sy, PetscInt sz, const PetscReal q[3], const PetscReal nh2[3], PetscReal nu2, PetscScalar *restrict h, PetscScalar *restrict r)
{
  const PetscReal qx = q[0], qy = q[1], qz = q[2], cx = nh2[0], cy = nh2[1], cz = nh2[2];
  if (!u2) {
    for (PetscInt i = 0; i < n; i++) {
      const PetscReal c = ua[i];
      const PetscReal fx = (u0[i] + u0[i + sa]) * (c + ua[i + 1]) - (u0[i - 1] + u0[i - 1 + sa]) * (ua[i - 1] + c);
      const PetscReal fy = (u1[i] + u1[i + sa]) * (c + ua[i + sy]) - (u1[i - sy] + u1[i - sy + sa]) * (ua[i - sy] + c);
      h[i]               = -(qx * fx + qy * fy);
      r[i] += cx * (ua[i + 1] + ua[i - 1]) + cy * (ua[i + sy] + ua[i - sy]) - nu2 * c;
    }
  } else {
    for (PetscInt i = 0; i < n; i++) {
      const PetscReal c = ua[i];
      const PetscReal fx = (u0[i] + u0[i + sa]) * (c + ua[i + 1]) - (u0[i - 1] + u0[i - 1 + sa]) * (ua[i - 1] + c);
      const PetscReal fy = (u1[i] + u1[i + sa]) * (c + ua[i + sy]) - (u1[i - sy] + u1[i - sy + sa]) * (ua[i - sy] + c);
      const PetscReal fz = (u2[i] + u2[i + sa]) * (c + ua[i + sz]) - (u2[i - sz] + u2[i - sz + sa]) * (ua[i - sz] + c);
      h[i]               = -(qx * fx + qy * fy + qz * fz);
      r[i] += cx * (ua[i + 1] + ua[i - 1]) + cy * (ua[i + sy] + ua[i - sy]) + cz * (ua[i + sz] + ua[i - sz]) - nu2 * c;
    }
  }
}

/* The coefficients of one row on a stretched grid: x's along the row (q0 the advection factor,
   cp0/cm0 nu x the diffusion coefficients, wl/wr the weights of direction a = 0), the others per
   row (wl/wr per direction b: 1 for b = a, direction a's weights otherwise). */
typedef struct {
  const PetscReal *q0, *cp0, *cm0, *wl0, *wr0;
  PetscReal        q[3], cp[3], cm[3], wl[3], wr[3];
} FGMomentumMetrics;

/* q (P+ Q+ - P- Q-) of advection.c for the b-fluxes of component a at face i; sb = sa and
   wl = wr = 1 with ub = ua is the a-flux. */
static FG_ALWAYS_INLINE PetscReal FGMomentumFlux_Private(PetscReal q, PetscReal wl, PetscReal wr, const PetscScalar *restrict ua, const PetscScalar *restrict ub, PetscInt i, PetscInt sa, PetscInt sb)
{
  return q * ((wl * ub[i] + wr * ub[i + sa]) * (ua[i] + ua[i + sb]) - (wl * ub[i - sb] + wr * ub[i - sb + sa]) * (ua[i - sb] + ua[i]));
}

static FG_ALWAYS_INLINE PetscReal FGMomentumLaplacian_Private(PetscReal cp, PetscReal cm, const PetscScalar *restrict ua, PetscInt i, PetscInt s)
{
  return cp * (ua[i + s] - ua[i]) - cm * (ua[i] - ua[i - s]);
}

/* One row of interior faces of component a on a stretched grid, as FGMomentumRow(Split)_Private
   (m's x arrays start at the row's first face). Inlined with constant flags (a == 0: x's weights
   vary along the row; three: 3D; split: h = -A, r += nu D), so that each variant is a loop of its own. */
static FG_ALWAYS_INLINE void FGMomentumRowStretched_Private(PetscInt n, const PetscScalar *restrict ua, const PetscScalar *restrict u0, const PetscScalar *restrict u1, const PetscScalar *restrict u2, PetscInt sa, PetscInt sy, PetscInt sz, const FGMomentumMetrics *m, PetscBool xw, PetscBool three, PetscBool split, PetscScalar *restrict h, PetscScalar *restrict r)
{
  const PetscReal *restrict q0 = m->q0, *restrict cp0 = m->cp0, *restrict cm0 = m->cm0, *restrict wl0 = m->wl0, *restrict wr0 = m->wr0;
  const PetscReal qy = m->q[1], qz = m->q[2], cpy = m->cp[1], cmy = m->cm[1], cpz = m->cp[2], cmz = m->cm[2];
  const PetscReal wlx = m->wl[0], wrx = m->wr[0], wly = m->wl[1], wry = m->wr[1], wlz = m->wl[2], wrz = m->wr[2];
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal wl = xw ? wl0[i] : wly, wr = xw ? wr0[i] : wry;
    PetscReal       adv, dif;
    adv = FGMomentumFlux_Private(q0[i], wlx, wrx, ua, u0, i, sa, 1) + FGMomentumFlux_Private(qy, wl, wr, ua, u1, i, sa, sy);
    dif = FGMomentumLaplacian_Private(cp0[i], cm0[i], ua, i, 1) + FGMomentumLaplacian_Private(cpy, cmy, ua, i, sy);
    if (three) {
      adv += FGMomentumFlux_Private(qz, xw ? wl0[i] : wlz, xw ? wr0[i] : wrz, ua, u2, i, sa, sz);
      dif += FGMomentumLaplacian_Private(cpz, cmz, ua, i, sz);
    }
    if (split) h[i] = -adv, r[i] += dif;
    else h[i] = dif - adv;
  }
}

/* The x arrays of component a over its interior faces [lo, hi) along x (m->*0 point at lo), nu
   scaling the diffusion coefficients; buf holds 5 (hi - lo) reals. */
static void FGMomentumMetricsX_Private(FGGrid g, PetscInt a, PetscReal nu, PetscInt lo, PetscInt hi, PetscReal *buf, FGMomentumMetrics *m)
{
  const PetscInt n = hi - lo;
  PetscReal     *q0 = buf, *cp0 = buf + n, *cm0 = buf + 2 * n, *wl0 = buf + 3 * n, *wr0 = buf + 4 * n;
  for (PetscInt i = lo; i < hi; i++) {
    const PetscInt t = i - lo;
    q0[t]            = 0.25 * (a == 0 ? g->ax[0].idxc[i] : g->ax[0].idxf[i]);
    FGOpDiffusionCoefficients(g, a, 0, i, &cm0[t], &cp0[t]);
    cm0[t] *= nu, cp0[t] *= nu;
    if (a == 0) FGOpAdvectionWeights(g, 0, i, &wl0[t], &wr0[t]);
    else wl0[t] = wr0[t] = 1;
  }
  m->q0 = q0, m->cp0 = cp0, m->cm0 = cm0, m->wl0 = wl0, m->wr0 = wr0;
}

/* The per-row coefficients of component a at row (j, k). */
static void FGMomentumMetricsRow_Private(FGGrid g, PetscInt a, PetscReal nu, PetscInt j, PetscInt k, FGMomentumMetrics *m)
{
  const PetscInt idx[3] = {0, j, k};
  PetscReal      wla = 1, wra = 1;
  if (a > 0) FGOpAdvectionWeights(g, a, idx[a], &wla, &wra);
  m->wl[0] = wla, m->wr[0] = wra;
  for (PetscInt b = 1; b < g->dim; b++) {
    const PetscInt t = idx[b];
    m->q[b]          = 0.25 * (b == a ? g->ax[b].idxc[t] : g->ax[b].idxf[t]);
    FGOpDiffusionCoefficients(g, a, b, t, &m->cm[b], &m->cp[b]);
    m->cm[b] *= nu, m->cp[b] *= nu;
    m->wl[b] = b == a ? 1 : wla, m->wr[b] = b == a ? 1 : wra;
  }
}

/* The row on a stretched grid, dispatched to the variant of its flags. */
static void FGMomentumRowStretchedAny_Private(PetscInt n, const PetscScalar *ua, const PetscScalar *u0, const PetscScalar *u1, const PetscScalar *u2, PetscInt sa, PetscInt sy, PetscInt sz, const FGMomentumMetrics *m, PetscBool xw, PetscScalar *h, PetscScalar *r)
{
  const PetscBool T = PETSC_TRUE, F = PETSC_FALSE;
  if (xw) {
    if (u2) r ? FGMomentumRowStretched_Private(n, ua, u0, u1, u2, sa, sy, sz, m, T, T, T, h, r) : FGMomentumRowStretched_Private(n, ua, u0, u1, u2, sa, sy, sz, m, T, T, F, h, r);
    else r ? FGMomentumRowStretched_Private(n, ua, u0, u1, u2, sa, sy, sz, m, T, F, T, h, r) : FGMomentumRowStretched_Private(n, ua, u0, u1, u2, sa, sy, sz, m, T, F, F, h, r);
  } else {
    if (u2) r ? FGMomentumRowStretched_Private(n, ua, u0, u1, u2, sa, sy, sz, m, F, T, T, h, r) : FGMomentumRowStretched_Private(n, ua, u0, u1, u2, sa, sy, sz, m, F, T, F, h, r);
    else r ? FGMomentumRowStretched_Private(n, ua, u0, u1, u2, sa, sy, sz, m, F, F, T, h, r) : FGMomentumRowStretched_Private(n, ua, u0, u1, u2, sa, sy, sz, m, F, F, F, h, r);
  }
}

/* The sweep: H = -A + nu D, or with R, H = -A and R += nu D. */
static PetscErrorCode FGOpMomentum_Private(FGGrid g, const FGBoundary *bc, PetscReal nu, Vec ul[], Vec H[], Vec R[])
{
  const FGBox       *bx = &g->box;
  const PetscInt     dim = g->dim;
  const PetscScalar *u[3] = {NULL, NULL, NULL};
  PetscReal          q[3] = {0, 0, 0}, nh2[3] = {0, 0, 0}, nu2 = 0, *buf = NULL;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_Momentum, 0, 0, 0, 0));
  if (!g->isuniform) PetscCall(PetscMalloc1(5 * (bx->hi[0] - bx->lo[0]), &buf));
  for (PetscInt b = 0; b < dim; b++) {
    q[b]   = 0.25 / g->h[b];
    nh2[b] = nu / (g->h[b] * g->h[b]);
    nu2 += 2.0 * nh2[b];
    PetscCall(VecGetArrayRead(ul[b], &u[b]));
  }
  for (PetscInt a = 0; a < dim; a++) {
    PetscScalar       *h, *r = NULL;
    PetscInt           lo[3], hi[3];
    const PetscInt     nx = bx->hi[0] - bx->lo[0];
    FGMomentumMetrics  m;
    PetscCall(PetscMemzero(&m, sizeof(m)));
    FGOpInteriorFaces(g, bc, a, lo, hi);
    if (buf) FGMomentumMetricsX_Private(g, a, nu, lo[0], hi[0], buf, &m);
    PetscCall(VecGetArrayWrite(H[a], &h));
    if (R) PetscCall(VecGetArray(R[a], &r));
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++) {
        const PetscInt     c0 = FGBoxIndex(bx, lo[0], j, k), n = hi[0] - lo[0];
        const PetscScalar *u2 = dim == 3 ? u[2] + c0 : NULL;
        PetscScalar       *hr = h + FGBoxOwnedIndex(bx, bx->lo[0], j, k), *rr = r ? r + FGBoxOwnedIndex(bx, lo[0], j, k) : NULL;
        if (j < lo[1] || j >= hi[1] || k < lo[2] || k >= hi[2]) { /* a boundary row of faces */
          PetscCall(PetscArrayzero(hr, nx));
          continue;
        }
        if (buf) {
          FGMomentumMetricsRow_Private(g, a, nu, j, k, &m);
          FGMomentumRowStretchedAny_Private(n, u[a] + c0, u[0] + c0, u[1] + c0, u2, bx->s[a], bx->s[1], bx->s[2], &m, (PetscBool)(a == 0), hr + (lo[0] - bx->lo[0]), rr);
        } else if (rr) FGMomentumRowSplit_Private(n, u[a] + c0, u[0] + c0, u[1] + c0, u2, bx->s[a], bx->s[1], bx->s[2], q, nh2, nu2, hr + (lo[0] - bx->lo[0]), rr);
        else FGMomentumRow_Private(n, u[a] + c0, u[0] + c0, u[1] + c0, u2, bx->s[a], bx->s[1], bx->s[2], q, nh2, nu2, hr + (lo[0] - bx->lo[0]));
        if (lo[0] > bx->lo[0]) PetscCall(PetscArrayzero(hr, lo[0] - bx->lo[0]));
        if (hi[0] < bx->hi[0]) PetscCall(PetscArrayzero(hr + (hi[0] - bx->lo[0]), bx->hi[0] - hi[0]));
      }
    PetscCall(VecRestoreArrayWrite(H[a], &h));
    if (R) PetscCall(VecRestoreArray(R[a], &r));
  }
  for (PetscInt b = 0; b < dim; b++) PetscCall(VecRestoreArrayRead(ul[b], &u[b]));
  PetscCall(PetscFree(buf));
  PetscCall(PetscLogEventEnd(FG_EVENT_Momentum, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpMomentum - H = -A(ul) + nu D(ul) on the interior faces and 0 on the other owned faces, in
  one sweep per component.

  Collective (no communication).

  Input Parameters:
+ g, bc - the grid and the boundary kinds
. nu    - the kinematic viscosity
- ul    - the ghosted velocity with its boundary values (FGOpFillBoundary)

  Output Parameter:
. H - global Vecs of the components (overwritten)

.seealso: FGOpAdvection(), FGOpDiffusion()
@*/
PetscErrorCode FGOpMomentum(FGGrid g, const FGBoundary *bc, PetscReal nu, Vec ul[], Vec H[])
{
  PetscFunctionBeginUser;
  PetscCall(FGOpMomentum_Private(g, bc, nu, ul, H, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpMomentumSplit - H = -A(ul) on the interior faces (0 on the other owned faces) and
  R += c D(ul) on the interior faces, in the same sweep: the implicit viscous term's stage, whose
  explicit half goes into the velocity rather than into H. Collective (no communication).
@*/
PetscErrorCode FGOpMomentumSplit(FGGrid g, const FGBoundary *bc, PetscReal c, Vec ul[], Vec H[], Vec R[])
{
  PetscFunctionBeginUser;
  PetscCall(FGOpMomentum_Private(g, bc, c, ul, H, R));
  PetscFunctionReturn(PETSC_SUCCESS);
}
