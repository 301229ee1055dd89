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
*/
#include <fg/ops.h>

PetscErrorCode FGOpAdvection(FGGrid g, const FGBoundary *bc, Vec ul[], Vec rhs[])
{
  const FGBox       *bx = &g->box;
  const PetscScalar *u[3];

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_Advection, 0, 0, 0, 0));
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

/* One row of the fluxes of a pair (a, a): Fbar = q (r1 - r0), u_a(c), u_a(c + e_a) += 2 Fbar P */
static void FGAdvAdjRowSame_Private(PetscInt n, PetscReal q, const PetscReal *restrict r0, const PetscReal *restrict r1, const PetscScalar *restrict ua, PetscInt sa, PetscScalar *restrict ba, PetscReal *restrict Z)
{
  if (sa == 1) {
    for (PetscInt t = 0; t < n; t++) Z[t] = 2.0 * q * (r1[t] - r0[t]) * (ua[t] + ua[t + 1]);
    Z[-1] = Z[n] = 0;
    FGAddPairX_Private(ba, Z, n);
  } else
    for (PetscInt t = 0; t < n; t++) {
      const PetscReal v = 2.0 * q * (r1[t] - r0[t]) * (ua[t] + ua[t + sa]);
      ba[t] += v, ba[t + sa] += v;
    }
}

/* One row of the fluxes of a pair (a, b), a != b: Fbar = q (r1 - r0), P = u_b(c) + u_b(c + e_a),
   Q = u_a(c) + u_a(c + e_b); u_a(c), u_a(c + e_b) += Fbar P and u_b(c), u_b(c + e_a) += Fbar Q.
   A shift of 1 (x) goes through the row buffer Z, the others are written directly. */
static void FGAdvAdjRowCross_Private(PetscInt n, PetscReal q, const PetscReal *restrict r0, const PetscReal *restrict r1, const PetscScalar *restrict ua, const PetscScalar *restrict ub, PetscInt sa, PetscInt sb, PetscScalar *restrict ba, PetscScalar *restrict bb, PetscReal *restrict Z)
{
  if (sb == 1) { /* b = x: u_a through Z */
    for (PetscInt t = 0; t < n; t++) {
      const PetscReal f = q * (r1[t] - r0[t]), x = f * (ua[t] + ua[t + 1]);
      Z[t] = f * (ub[t] + ub[t + sa]);
      bb[t] += x, bb[t + sa] += x;
    }
    Z[-1] = Z[n] = 0;
    FGAddPairX_Private(ba, Z, n);
  } else if (sa == 1) { /* a = x: u_b through Z */
    for (PetscInt t = 0; t < n; t++) {
      const PetscReal f = q * (r1[t] - r0[t]), y = f * (ub[t] + ub[t + 1]);
      Z[t] = f * (ua[t] + ua[t + sb]);
      ba[t] += y, ba[t + sb] += y;
    }
    Z[-1] = Z[n] = 0;
    FGAddPairX_Private(bb, Z, n);
  } else
    for (PetscInt t = 0; t < n; t++) {
      const PetscReal f = q * (r1[t] - r0[t]), x = f * (ua[t] + ua[t + sb]), y = f * (ub[t] + ub[t + sa]);
      ba[t] += y, ba[t + sb] += y;
      bb[t] += x, bb[t + sa] += x;
    }
}

/*@C
  FGOpAdvectionAdjoint - the transpose of FGOpAdvectionTangent: ulbar += (-A'(ul))^T rbar, with
  rbar the adjoint of rhs (owned values, read on the interior faces) and ulbar ghosted (the
  caller zeroes it, then applies FGOpFillBoundaryAdjoint and DMLocalToGlobal with ADD_VALUES).

  Flux form: the flux F_ab(c) = P Q, P = u_b(c) + u_b(c + e_a), Q = u_a(c) + u_a(c + e_b) (the
  factor 1/4 in q), enters rhs_a(c) with -q and rhs_a(c + e_b) with +q, so its adjoint is
  Fbar(c) = q (rbar_a(c + e_b) - rbar_a(c)) with rbar_a taken as 0 off the interior faces, over
  the fluxes c in [lo_a - e_b, hi_a). Then u_b(c), u_b(c + e_a) += Fbar Q and
  u_a(c), u_a(c + e_b) += Fbar P: four updates per flux instead of eight per face and direction.
  One sweep over the rows (j, k) does every pair (a, b), so each array streams through once.
@*/
PetscErrorCode FGOpAdvectionAdjoint(FGGrid g, const FGBoundary *bc, Vec ul[], Vec rbar[], Vec ulbar[])
{
  const FGBox       *bx  = &g->box;
  const PetscInt     dim = g->dim, nbuf = bx->ghi[0] - bx->glo[0] + 2;
  const PetscScalar *u[3], *r[3];
  PetscScalar       *bu[3];
  PetscInt           lo[3][3], hi[3][3], rlo[3] = {0, 0, 0}, rhi[3] = {0, 0, 0};
  PetscBool          empty[3];
  PetscReal         *buf, *R, *Z, *zero;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_AdvectionAdjoint, 0, 0, 0, 0));
  PetscCall(PetscCalloc1(3 * nbuf, &buf));
  zero = buf, R = buf + nbuf, Z = buf + 2 * nbuf + 1;
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
  for (PetscInt k = rlo[2]; k < rhi[2]; k++)
    for (PetscInt j = rlo[1]; j < rhi[1]; j++) {
      const PetscInt idx[3] = {0, j, k};
      for (PetscInt a = 0; a < dim; a++) {
        if (empty[a]) continue;
        for (PetscInt b = 0; b < dim; b++) {
          const PetscInt  sa = bx->s[a], sb = bx->s[b];
          const PetscReal q  = 0.25 / g->h[b];
          const PetscReal *r0, *r1;
          PetscInt        ilo, n, c0;
          if (j < lo[a][1] - (b == 1) || j >= hi[a][1] || k < lo[a][2] - (b == 2) || k >= hi[a][2]) continue;
          ilo = lo[a][0] - (b == 0), n = hi[a][0] - ilo, c0 = FGBoxIndex(bx, ilo, j, k);
          if (b == 0) { /* the fluxes lo - 1 .. hi - 1 between the faces of the row, padded with zeros in R */
            const PetscScalar *rr = r[a] + FGBoxOwnedIndex(bx, lo[a][0], j, k);
            R[0] = R[n] = 0;
            PetscCall(PetscArraycpy(R + 1, rr, n - 1));
            r0 = R, r1 = R + 1;
          } else { /* the fluxes between the rows idx and idx + e_b; zero off the interior */
            const PetscInt o = FGBoxOwnedIndex(bx, ilo, j, k);
            r0 = idx[b] >= lo[a][b] ? r[a] + o : zero;
            r1 = idx[b] + 1 < hi[a][b] ? r[a] + o + bx->os[b] : zero;
          }
          if (a == b) FGAdvAdjRowSame_Private(n, q, r0, r1, u[a] + c0, sa, bu[a] + c0, Z);
          else FGAdvAdjRowCross_Private(n, q, r0, r1, u[a] + c0, u[b] + c0, sa, sb, bu[a] + c0, bu[b] + c0, Z);
        }
      }
    }
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecRestoreArrayRead(ul[a], &u[a]));
    PetscCall(VecRestoreArrayRead(rbar[a], &r[a]));
    PetscCall(VecRestoreArray(ulbar[a], &bu[a]));
  }
  PetscCall(PetscFree(buf));
  PetscCall(PetscLogEventEnd(FG_EVENT_AdvectionAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
