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

/* dst[t] += z[t] and dst[s + t] += z[t] for t in [0, n): the two faces that one flux's factor
   is interpolated from. With s = 1 (the x direction) in gather form, dst[t] += z[t] + z[t - 1]
   for t in [0, n], which needs the padding z[-1] = z[n] = 0. */
static inline void FGAddPair_Private(PetscScalar *restrict dst, PetscInt s, const PetscReal *restrict z, PetscInt n)
{
  if (s == 1)
    for (PetscInt t = 0; t <= n; t++) dst[t] += z[t] + z[t - 1];
  else {
    for (PetscInt t = 0; t < n; t++) dst[t] += z[t];
    for (PetscInt t = 0; t < n; t++) dst[s + t] += z[t];
  }
}

/*@C
  FGOpAdvectionAdjoint - the transpose of FGOpAdvectionTangent: ulbar += (-A'(ul))^T rbar, with
  rbar the adjoint of rhs (owned values, read on the interior faces) and ulbar ghosted (the
  caller zeroes it, then applies FGOpFillBoundaryAdjoint and DMLocalToGlobal with ADD_VALUES).

  Flux form: the flux F_ab(c) = P Q, P = u_b(c) + u_b(c + e_a), Q = u_a(c) + u_a(c + e_b) (the
  factor 1/4 in q), enters rhs_a(c) with -q and rhs_a(c + e_b) with +q, so its adjoint is
  Fbar(c) = -q (rbar_a(c) - rbar_a(c + e_b)) with rbar_a taken as 0 off the interior faces, over
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
  PetscReal         *buf, *F, *X, *Y;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_AdvectionAdjoint, 0, 0, 0, 0));
  PetscCall(PetscMalloc1(3 * nbuf, &buf));
  F = buf + 1, X = buf + nbuf + 1, Y = buf + 2 * nbuf + 1;
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
          PetscInt        ilo, n, c0;
          if (j < lo[a][1] - (b == 1) || j >= hi[a][1] || k < lo[a][2] - (b == 2) || k >= hi[a][2]) continue;
          ilo = lo[a][0] - (b == 0), n = hi[a][0] - ilo, c0 = FGBoxIndex(bx, ilo, j, k);
          /* Fbar over the fluxes ilo .. hi_a[0] - 1 of this row */
          if (b == 0) { /* the fluxes lo - 1 .. hi - 1 between the faces lo .. hi - 1 of the row */
            const PetscScalar *rr = r[a] + FGBoxOwnedIndex(bx, lo[a][0], j, k);
            const PetscInt     nr = n - 1;
            F[0] = q * rr[0];
            for (PetscInt t = 1; t < nr; t++) F[t] = q * (rr[t] - rr[t - 1]);
            F[nr] = -q * rr[nr - 1];
          } else { /* the fluxes between the rows idx and idx + e_b */
            const PetscInt  o  = FGBoxOwnedIndex(bx, ilo, j, k);
            const PetscBool i0 = (PetscBool)(idx[b] >= lo[a][b]), i1 = (PetscBool)(idx[b] + 1 < hi[a][b]);
            if (i0 && i1) {
              const PetscScalar *r0 = r[a] + o, *r1 = r[a] + o + bx->os[b];
              for (PetscInt t = 0; t < n; t++) F[t] = q * (r1[t] - r0[t]);
            } else if (i0) {
              const PetscScalar *r0 = r[a] + o;
              for (PetscInt t = 0; t < n; t++) F[t] = -q * r0[t];
            } else {
              const PetscScalar *r1 = r[a] + o + bx->os[b];
              for (PetscInt t = 0; t < n; t++) F[t] = q * r1[t];
            }
          }
          if (a == b) { /* P = Q: u_a(c), u_a(c + e_a) += 2 Fbar P */
            const PetscScalar *ua = u[a] + c0;
            for (PetscInt t = 0; t < n; t++) Y[t] = 2.0 * F[t] * (ua[t] + ua[t + sa]);
            Y[-1] = Y[n] = 0;
            FGAddPair_Private(bu[a] + c0, sa, Y, n);
          } else {
            const PetscScalar *ua = u[a] + c0, *ub = u[b] + c0;
            for (PetscInt t = 0; t < n; t++) {
              Y[t] = F[t] * (ub[t] + ub[t + sa]);
              X[t] = F[t] * (ua[t] + ua[t + sb]);
            }
            X[-1] = X[n] = Y[-1] = Y[n] = 0;
            FGAddPair_Private(bu[a] + c0, sb, Y, n);
            FGAddPair_Private(bu[b] + c0, sa, X, n);
          }
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
