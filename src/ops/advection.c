/*
  Advection: second-order conservative central differences on the MAC grid.

  For component a at its face (the +a face of cell c), with e_b the unit step along b,

    A_a(u) = sum_b [ F_ab(c) - F_ab(c - e_b) ] / h_b ,
    F_ab(c) = (u_b(c) + u_b(c + e_a))/2 * (u_a(c) + u_a(c + e_b))/2 ,

  i.e. the flux of a-momentum through the b-faces of the a-control volume, with both factors
  interpolated linearly (for b = a this is the square of u_a at the cell centre). This is the
  classic energy-conserving form (Harlow & Welch; Morinishi et al. 1998): for a discretely
  divergence-free u it neither creates nor destroys kinetic energy. It is a quadratic polynomial
  in u, so its tangent and adjoint are exact.

  FGOpAdvection subtracts A(u) from rhs on the interior faces: rhs_a -= A_a(ul).

  Stretched grids. The same fluxes through the faces of the a-control volume (width dxc_a along
  a, dxf_b along b != a), with the transport velocity of a b-face weighted by the parts of the
  two cells it spans, so that its mass flux is the mean of the two cells' b-face fluxes:

    A_a(u) = sum_{b != a} [ P_ab(c) Q_ab(c) - P_ab(c - e_b) Q_ab(c - e_b) ] / (4 dxf_b)
           + [ (u_a(c) + u_a(c + e_a))^2 - (u_a(c - e_a) + u_a(c))^2 ] / (4 dxc_a),
    P_ab(c) = (dxf_a(t) u_b(c) + dxf_a(t + 1) u_b(c + e_a)) / dxc_a(t),   Q_ab(c) = u_a(c) + u_a(c + e_b)

  (t the index of c along a). The mass fluxes of each a-control volume then sum to the mean of
  the divergences of its two cells, which makes sum_a <u_a, A_a(u)>_{V_a} = 0 (V_a = dxc_a x the
  other widths) for a discretely divergence-free u: energy conserving on any tensor grid
  (Morinishi et al. 1998; Vasilyev 2000). On a uniform direction the weights are exactly 1 and
  the formula is the one above, rounding included. Those kernels (FGAdvStretched*_Private) run
  when the grid has a stretched direction; the uniform grid keeps its optimized ones.
*/
#include <fg/ops.h>

typedef enum { FG_ADV_FORWARD, FG_ADV_TANGENT, FG_ADV_ADJOINT } FGAdvMode;

/* The advection on a grid with a stretched direction, face by face, in one of three modes:
   forward r_a -= A_a(u); tangent r_a -= A_a'(u)[du]; adjoint ub += (-A'(u))^T rbar (ub ghosted,
   rbar owned, accumulated). */
static PetscErrorCode FGAdvStretched_Private(FGGrid g, const FGBoundary *bc, FGAdvMode mode, Vec ul[], Vec dul[], Vec rv[], Vec ubv[])
{
  const FGBox       *bx = &g->box;
  const PetscInt     dim = g->dim;
  const PetscScalar *u[3], *du[3] = {NULL, NULL, NULL};
  PetscScalar       *r[3] = {NULL, NULL, NULL}, *ub[3] = {NULL, NULL, NULL};
  const PetscScalar *rb[3] = {NULL, NULL, NULL};

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecGetArrayRead(ul[a], &u[a]));
    if (mode == FG_ADV_TANGENT) PetscCall(VecGetArrayRead(dul[a], &du[a]));
    if (mode == FG_ADV_ADJOINT) {
      PetscCall(VecGetArrayRead(rv[a], &rb[a]));
      PetscCall(VecGetArray(ubv[a], &ub[a]));
    } else PetscCall(VecGetArray(rv[a], &r[a]));
  }
  for (PetscInt a = 0; a < dim; a++) {
    PetscInt       lo[3], hi[3];
    const PetscInt sa = bx->s[a];
    FGOpInteriorFaces(g, bc, a, lo, hi);
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) {
          const PetscInt idx[3] = {i, j, k}, c = FGBoxIndex(bx, i, j, k), o = FGBoxOwnedIndex(bx, i, j, k);
          const PetscInt ta = idx[a];
          PetscReal      acc = 0;
          for (PetscInt b = 0; b < dim; b++) {
            const PetscScalar *ua = u[a], *ubb = u[b];
            const PetscInt     sb = bx->s[b], m = c - sb;
            PetscReal          q, wl = 1, wr = 1;
            if (b == a) q = 0.25 * g->ax[a].idxc[ta];
            else {
              q = 0.25 * g->ax[b].idxf[idx[b]];
              FGOpAdvectionWeights(g, a, ta, &wl, &wr);
            }
            {
              const PetscReal Pp = wl * ubb[c] + wr * ubb[c + sa], Qp = ua[c] + ua[c + sb];
              const PetscReal Pm = wl * ubb[m] + wr * ubb[m + sa], Qm = ua[m] + ua[c];
              if (mode == FG_ADV_FORWARD) acc += q * (Pp * Qp - Pm * Qm);
              else if (mode == FG_ADV_TANGENT) {
                const PetscScalar *dua = du[a], *dub = du[b];
                const PetscReal    dPp = wl * dub[c] + wr * dub[c + sa], dQp = dua[c] + dua[c + sb];
                const PetscReal    dPm = wl * dub[m] + wr * dub[m + sa], dQm = dua[m] + dua[c];
                acc += q * (dPp * Qp + Pp * dQp - dPm * Qm - Pm * dQm);
              } else { /* r_a(c) -= q (Pp Qp - Pm Qm): each factor's inputs get -q rbar x the other factor */
                const PetscReal w = -q * rb[a][o];
                PetscScalar    *ba = ub[a], *bb = ub[b];
                bb[c] += w * Qp * wl, bb[c + sa] += w * Qp * wr;
                ba[c] += w * Pp, ba[c + sb] += w * Pp;
                bb[m] -= w * Qm * wl, bb[m + sa] -= w * Qm * wr;
                ba[m] -= w * Pm, ba[c] -= w * Pm;
              }
            }
          }
          if (mode != FG_ADV_ADJOINT) r[a][o] -= acc;
        }
  }
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecRestoreArrayRead(ul[a], &u[a]));
    if (mode == FG_ADV_TANGENT) PetscCall(VecRestoreArrayRead(dul[a], &du[a]));
    if (mode == FG_ADV_ADJOINT) {
      PetscCall(VecRestoreArrayRead(rv[a], &rb[a]));
      PetscCall(VecRestoreArray(ubv[a], &ub[a]));
    } else PetscCall(VecRestoreArray(rv[a], &r[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGOpAdvection(FGGrid g, const FGBoundary *bc, Vec ul[], Vec rhs[])
{
  const FGBox       *bx = &g->box;
  const PetscScalar *u[3];

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_Advection, 0, 0, 0, 0));
  if (!g->isuniform) {
    PetscCall(FGAdvStretched_Private(g, bc, FG_ADV_FORWARD, ul, NULL, rhs, NULL));
    PetscCall(PetscLogEventEnd(FG_EVENT_Advection, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecGetArrayRead(ul[a], &u[a]));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar *r;
    PetscInt     lo[3], hi[3];
    const PetscInt sa = bx->s[a];
    FGOpInteriorFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArray(rhs[a], &r));
    for (PetscInt b = 0; b < g->dim; b++) {
      const PetscScalar *ua = u[a], *ub = u[b];
      const PetscInt     sb = bx->s[b];
      const PetscReal    q  = 0.25 / g->h[b];
      for (PetscInt k = lo[2]; k < hi[2]; k++)
        for (PetscInt j = lo[1]; j < hi[1]; j++) {
          const PetscInt c0 = FGBoxIndex(bx, 0, j, k), o0 = FGBoxOwnedIndex(bx, 0, j, k);
          for (PetscInt i = lo[0]; i < hi[0]; i++) {
            const PetscInt c  = c0 + i;
            const PetscReal fp = (ub[c] + ub[c + sa]) * (ua[c] + ua[c + sb]);
            const PetscReal fm = (ub[c - sb] + ub[c - sb + sa]) * (ua[c - sb] + ua[c]);
            r[o0 + i] -= q * (fp - fm);
          }
        }
    }
    PetscCall(VecRestoreArray(rhs[a], &r));
  }
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecRestoreArrayRead(ul[a], &u[a]));
  PetscCall(PetscLogEventEnd(FG_EVENT_Advection, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpAdvectionTangent - the linearization of FGOpAdvection about ul in the direction dul:
  rhs_a -= A_a'(ul)[dul] on the interior faces (both ghosted, boundary-filled; dul with the
  homogeneous boundary rule of FGOpFillBoundaryTangent).
@*/
PetscErrorCode FGOpAdvectionTangent(FGGrid g, const FGBoundary *bc, Vec ul[], Vec dul[], Vec rhs[])
{
  const FGBox       *bx = &g->box;
  const PetscScalar *u[3], *du[3];

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_AdvectionTangent, 0, 0, 0, 0));
  if (!g->isuniform) {
    PetscCall(FGAdvStretched_Private(g, bc, FG_ADV_TANGENT, ul, dul, rhs, NULL));
    PetscCall(PetscLogEventEnd(FG_EVENT_AdvectionTangent, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecGetArrayRead(ul[a], &u[a]));
    PetscCall(VecGetArrayRead(dul[a], &du[a]));
  }
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar   *r;
    PetscInt       lo[3], hi[3];
    const PetscInt sa = bx->s[a];
    FGOpInteriorFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArray(rhs[a], &r));
    for (PetscInt b = 0; b < g->dim; b++) {
      const PetscScalar *ua = u[a], *ub = u[b], *dua = du[a], *dub = du[b];
      const PetscInt     sb = bx->s[b];
      const PetscReal    q  = 0.25 / g->h[b];
      for (PetscInt k = lo[2]; k < hi[2]; k++)
        for (PetscInt j = lo[1]; j < hi[1]; j++) {
          const PetscInt c0 = FGBoxIndex(bx, 0, j, k), o0 = FGBoxOwnedIndex(bx, 0, j, k);
          for (PetscInt i = lo[0]; i < hi[0]; i++) {
            const PetscInt  c  = c0 + i, m = c - sb;
            const PetscReal dfp = (dub[c] + dub[c + sa]) * (ua[c] + ua[c + sb]) + (ub[c] + ub[c + sa]) * (dua[c] + dua[c + sb]);
            const PetscReal dfm = (dub[m] + dub[m + sa]) * (ua[m] + ua[c]) + (ub[m] + ub[m + sa]) * (dua[m] + dua[c]);
            r[o0 + i] -= q * (dfp - dfm);
          }
        }
    }
    PetscCall(VecRestoreArray(rhs[a], &r));
  }
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecRestoreArrayRead(ul[a], &u[a]));
    PetscCall(VecRestoreArrayRead(dul[a], &du[a]));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_AdvectionTangent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dst[t] += z[t] + z[t - 1] for t in [0, n]: the fluxes t of a row update the faces t and t + 1
   along x (gather form, needs the padding z[-1] = z[n] = 0) */
static inline void FGAddPairX_Private(PetscScalar *restrict dst, const PetscReal *restrict z, PetscInt n)
{
  for (PetscInt t = 0; t <= n; t++) dst[t] += z[t] + z[t - 1];
}

/* Fluxes of a pair (a, a) along a row: Fbar = q (r1 - r0), u_a(c), u_a(c + e_a) += 2 Fbar P; with
   sa = 1 (x) the products go to Z (FGAddPairX_Private adds them), else straight to ba. */
static void FGAdvAdjRowSame_Private(PetscInt n, PetscReal q, const PetscReal *restrict r0, const PetscReal *restrict r1, const PetscScalar *restrict ua, PetscInt sa, PetscScalar *restrict ba, PetscReal *restrict Z)
{
  if (sa == 1)
    for (PetscInt t = 0; t < n; t++) Z[t] = 2.0 * q * (r1[t] - r0[t]) * (ua[t] + ua[t + 1]);
  else
    for (PetscInt t = 0; t < n; t++) {
      const PetscReal v = 2.0 * q * (r1[t] - r0[t]) * (ua[t] + ua[t + sa]);
      ba[t] += v, ba[t + sa] += v;
    }
}

/* Fluxes of the pairs (a, b) and (b, a), a < b, along a row. They sit at the same places and share
   their factors: F_ab = P Q = F_ba with P = u_b(c) + u_b(c + e_a), Q = u_a(c) + u_a(c + e_b), so
   their adjoints add: G = Fbar_ab + Fbar_ba = qb (a1 - a0) + qa (b1 - b0) (the rbar_a values at
   the flux's two faces along b, the rbar_b ones along a, zero off the interior), then
   u_a(c), u_a(c + e_b) += G P and u_b(c), u_b(c + e_a) += G Q. With sa = 1 (a = x) the products
   for u_b go to Z (FGAddPairX_Private adds them), the others straight to ba, bb. */
static void FGAdvAdjRowPair_Private(PetscInt n, PetscReal qb, const PetscReal *restrict a0, const PetscReal *restrict a1, PetscReal qa, const PetscReal *restrict b0, const PetscReal *restrict b1, const PetscScalar *restrict ua, const PetscScalar *restrict ub, PetscInt sa, PetscInt sb, PetscScalar *restrict ba, PetscScalar *restrict bb, PetscReal *restrict Z)
{
  if (sa == 1)
    for (PetscInt t = 0; t < n; t++) {
      const PetscReal G = qb * (a1[t] - a0[t]) + qa * (b1[t] - b0[t]), y = G * (ub[t] + ub[t + 1]);
      Z[t] = G * (ua[t] + ua[t + sb]);
      ba[t] += y, ba[t + sb] += y;
    }
  else
    for (PetscInt t = 0; t < n; t++) {
      const PetscReal G = qb * (a1[t] - a0[t]) + qa * (b1[t] - b0[t]), y = G * (ub[t] + ub[t + sa]), x = G * (ua[t] + ua[t + sb]);
      ba[t] += y, ba[t + sb] += y;
      bb[t] += x, bb[t + sa] += x;
    }
}

/* A row of rbar seen at x index i + shift: its values p[i + shift - l] on [l, h) (p NULL: a row
   off the interior), zero elsewhere. A row is split into segments on which each one is either
   read in place or all zero: no copies, no padding. */
typedef struct {
  const PetscScalar *p;
  PetscInt           l, h, shift;
} FGRowRef;

static inline const PetscReal *FGRowSeg_Private(const FGRowRef *r, PetscInt s0, PetscInt s1, const PetscReal *zero)
{
  if (r->p && s0 + r->shift >= r->l && s1 + r->shift <= r->h) return r->p + (s0 + r->shift - r->l);
  return zero;
}

/* the segment ends in [ilo, ihi) of the rows ref[0..nr): sorted, distinct, ilo first, ihi last */
static PetscInt FGRowCuts_Private(const FGRowRef ref[], PetscInt nr, PetscInt ilo, PetscInt ihi, PetscInt cut[])
{
  PetscInt nc = 0;
  cut[nc++] = ilo, cut[nc++] = ihi;
  for (PetscInt m = 0; m < nr; m++) {
    const PetscInt e[2] = {ref[m].l - ref[m].shift, ref[m].h - ref[m].shift};
    if (!ref[m].p) continue;
    for (PetscInt q = 0; q < 2; q++)
      if (e[q] > ilo && e[q] < ihi) cut[nc++] = e[q];
  }
  for (PetscInt x = 1; x < nc; x++) /* insertion sort, at most 10 entries */
    for (PetscInt y = x; y > 0 && cut[y - 1] > cut[y]; y--) {
      const PetscInt tmp = cut[y];
      cut[y] = cut[y - 1], cut[y - 1] = tmp;
    }
  {
    PetscInt m = 1;
    for (PetscInt x = 1; x < nc; x++)
      if (cut[x] != cut[m - 1]) cut[m++] = cut[x];
    nc = m;
  }
  return nc;
}

/*@C
  FGOpAdvectionAdjoint - the transpose of FGOpAdvectionTangent: ulbar += (-A'(ul))^T rbar, with
  rbar the adjoint of rhs (owned values, read on the interior faces) and ulbar ghosted (the
  caller zeroes it, then applies FGOpFillBoundaryAdjoint and DMLocalToGlobal with ADD_VALUES).

  Flux form: the flux F_ab(c) = P Q, P = u_b(c) + u_b(c + e_a), Q = u_a(c) + u_a(c + e_b) (the
  factor 1/4 in q), enters rhs_a(c) with -q and rhs_a(c + e_b) with +q, so its adjoint is
  Fbar(c) = q (rbar_a(c + e_b) - rbar_a(c)) with rbar_a taken as 0 off the interior faces, over
  the fluxes c in [lo_a - e_b, hi_a). Then u_b(c), u_b(c + e_a) += Fbar Q and
  u_a(c), u_a(c + e_b) += Fbar P: four updates per flux instead of eight per face and direction;
  the pairs (a, b) and (b, a) share their fluxes, so they are done together (on the union of
  their flux ranges). One sweep over the rows (j, k) does every pair, so each array streams
  through once.
@*/
PetscErrorCode FGOpAdvectionAdjoint(FGGrid g, const FGBoundary *bc, Vec ul[], Vec rbar[], Vec ulbar[])
{
  const FGBox       *bx  = &g->box;
  const PetscInt     dim = g->dim, nbuf = bx->ghi[0] - bx->glo[0] + 2;
  const PetscScalar *u[3], *r[3];
  PetscScalar       *bu[3];
  PetscInt           lo[3][3], hi[3][3], rlo[3] = {0, 0, 0}, rhi[3] = {0, 0, 0};
  PetscBool          empty[3];
  PetscReal         *buf, *Z, *zero;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_AdvectionAdjoint, 0, 0, 0, 0));
  if (!g->isuniform) {
    PetscCall(FGAdvStretched_Private(g, bc, FG_ADV_ADJOINT, ul, NULL, rbar, ulbar));
    PetscCall(PetscLogEventEnd(FG_EVENT_AdvectionAdjoint, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscCalloc1(2 * nbuf, &buf));
  zero = buf, Z = buf + nbuf + 1;
  for (PetscInt d = 1; d < 3; d++) rlo[d] = PETSC_MAX_INT, rhi[d] = PETSC_MIN_INT;
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecGetArrayRead(ul[a], &u[a]));
    PetscCall(VecGetArrayRead(rbar[a], &r[a]));
    PetscCall(VecGetArray(ulbar[a], &bu[a]));
    FGOpInteriorFaces(g, bc, a, lo[a], hi[a]);
    empty[a] = PETSC_FALSE;
    for (PetscInt d = 0; d < 3; d++)
      if (hi[a][d] <= lo[a][d]) empty[a] = PETSC_TRUE;
    if (empty[a]) continue;
    /* the rows of all fluxes: the union of [lo_a - e_b, hi_a) in directions 1 and 2 */
    for (PetscInt d = 1; d < 3; d++) {
      rlo[d] = PetscMin(rlo[d], lo[a][d] - (d < dim ? 1 : 0));
      rhi[d] = PetscMax(rhi[d], hi[a][d]);
    }
  }
#define FG_ROW_IN(a, b) (!empty[a] && j >= lo[a][1] - ((b) == 1) && j < hi[a][1] && k >= lo[a][2] - ((b) == 2) && k < hi[a][2])
/* the rbar_c row at (j, k) + e_d (d < 0: the row itself) seen with a shift along x, if cond */
#define FG_ROW_REF(cond, c, d, sh) \
  ((FGRowRef){(cond) ? r[c] + FGBoxOwnedIndex(bx, lo[c][0], j, k) + ((d) >= 0 ? bx->os[d] : 0) : NULL, lo[c][0], hi[c][0], (sh)})
  for (PetscInt k = rlo[2]; k < rhi[2]; k++)
    for (PetscInt j = rlo[1]; j < rhi[1]; j++) {
      const PetscInt idx[3] = {0, j, k};
      for (PetscInt a = 0; a < dim; a++) {
        /* the pair (a, a): fluxes between the faces c and c + e_a */
        if (FG_ROW_IN(a, a)) {
          const PetscInt  sa = bx->s[a], ilo = lo[a][0] - (a == 0), ihi = hi[a][0], c0 = FGBoxIndex(bx, ilo, j, k);
          const PetscReal q  = 0.25 / g->h[a];
          FGRowRef        ref[2];
          PetscInt        cut[6], nc;
          if (a == 0) ref[0] = FG_ROW_REF(PETSC_TRUE, a, -1, 0), ref[1] = FG_ROW_REF(PETSC_TRUE, a, -1, 1);
          else ref[0] = FG_ROW_REF(idx[a] >= lo[a][a], a, -1, 0), ref[1] = FG_ROW_REF(idx[a] + 1 < hi[a][a], a, a, 0);
          nc = FGRowCuts_Private(ref, 2, ilo, ihi, cut);
          for (PetscInt m = 0; m + 1 < nc; m++) {
            const PetscInt o = cut[m] - ilo;
            FGAdvAdjRowSame_Private(cut[m + 1] - cut[m], q, FGRowSeg_Private(&ref[0], cut[m], cut[m + 1], zero), FGRowSeg_Private(&ref[1], cut[m], cut[m + 1], zero), u[a] + c0 + o, sa, bu[a] + c0 + o, Z + o);
          }
          if (sa == 1) {
            Z[-1] = Z[ihi - ilo] = 0;
            FGAddPairX_Private(bu[a] + c0, Z, ihi - ilo);
          }
        }
        /* the pairs (a, b) and (b, a), b > a */
        for (PetscInt b = a + 1; b < dim; b++) {
          const PetscBool inab = (PetscBool)FG_ROW_IN(a, b), inba = (PetscBool)FG_ROW_IN(b, a);
          const PetscInt  sa = bx->s[a], sb = bx->s[b];
          const PetscReal qa = 0.25 / g->h[a], qb = 0.25 / g->h[b];
          PetscInt        ilo = PETSC_MAX_INT, ihi = PETSC_MIN_INT, c0, cut[10], nc;
          FGRowRef        ref[4];
          if (!inab && !inba) continue;
          if (inab) ilo = PetscMin(ilo, lo[a][0]), ihi = PetscMax(ihi, hi[a][0]);
          if (inba) ilo = PetscMin(ilo, lo[b][0] - (a == 0)), ihi = PetscMax(ihi, hi[b][0]);
          c0 = FGBoxIndex(bx, ilo, j, k);
          /* rbar_a at the rows idx and idx + e_b; rbar_b at c and c + e_a */
          ref[0] = FG_ROW_REF(inab && idx[b] >= lo[a][b], a, -1, 0);
          ref[1] = FG_ROW_REF(inab && idx[b] + 1 < hi[a][b], a, b, 0);
          if (a == 0) ref[2] = FG_ROW_REF(inba, b, -1, 0), ref[3] = FG_ROW_REF(inba, b, -1, 1);
          else ref[2] = FG_ROW_REF(inba && idx[a] >= lo[b][a], b, -1, 0), ref[3] = FG_ROW_REF(inba && idx[a] + 1 < hi[b][a], b, a, 0);
          nc = FGRowCuts_Private(ref, 4, ilo, ihi, cut);
          for (PetscInt m = 0; m + 1 < nc; m++) {
            const PetscInt s0 = cut[m], s1 = cut[m + 1], o = s0 - ilo;
            FGAdvAdjRowPair_Private(s1 - s0, qb, FGRowSeg_Private(&ref[0], s0, s1, zero), FGRowSeg_Private(&ref[1], s0, s1, zero), qa, FGRowSeg_Private(&ref[2], s0, s1, zero), FGRowSeg_Private(&ref[3], s0, s1, zero), u[a] + c0 + o, u[b] + c0 + o, sa, sb, bu[a] + c0 + o, bu[b] + c0 + o, Z + o);
          }
          if (sa == 1) {
            Z[-1] = Z[ihi - ilo] = 0;
            FGAddPairX_Private(bu[b] + c0, Z, ihi - ilo);
          }
        }
      }
    }
#undef FG_ROW_REF
#undef FG_ROW_IN
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecRestoreArrayRead(ul[a], &u[a]));
    PetscCall(VecRestoreArrayRead(rbar[a], &r[a]));
    PetscCall(VecRestoreArray(ulbar[a], &bu[a]));
  }
  PetscCall(PetscFree(buf));
  PetscCall(PetscLogEventEnd(FG_EVENT_AdvectionAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
