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

/*@C
  FGOpAdvectionAdjoint - the transpose of FGOpAdvectionTangent: ulbar += (-A'(ul))^T rbar, with
  rbar the adjoint of rhs (owned values, read on the interior faces) and ulbar ghosted (the
  caller zeroes it, then applies FGOpFillBoundaryAdjoint and DMLocalToGlobal with ADD_VALUES).
@*/
PetscErrorCode FGOpAdvectionAdjoint(FGGrid g, const FGBoundary *bc, Vec ul[], Vec rbar[], Vec ulbar[])
{
  const FGBox       *bx = &g->box;
  const PetscScalar *u[3];
  PetscScalar       *ub_[3];

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_AdvectionAdjoint, 0, 0, 0, 0));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecGetArrayRead(ul[a], &u[a]));
    PetscCall(VecGetArray(ulbar[a], &ub_[a]));
  }
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *r;
    PetscInt           lo[3], hi[3];
    const PetscInt     sa = bx->s[a];
    FGOpInteriorFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArrayRead(rbar[a], &r));
    for (PetscInt b = 0; b < g->dim; b++) {
      const PetscScalar *ua = u[a], *ub = u[b];
      PetscScalar       *bua = ub_[a], *bub = ub_[b];
      const PetscInt     sb = bx->s[b];
      const PetscReal    q  = 0.25 / g->h[b];
      for (PetscInt k = lo[2]; k < hi[2]; k++)
        for (PetscInt j = lo[1]; j < hi[1]; j++) {
          const PetscInt c0 = FGBoxIndex(bx, 0, j, k), o0 = FGBoxOwnedIndex(bx, 0, j, k);
          for (PetscInt i = lo[0]; i < hi[0]; i++) {
            const PetscInt  c = c0 + i, m = c - sb;
            const PetscReal w = -q * r[o0 + i];
            const PetscReal P = ub[c] + ub[c + sa], Q = ua[c] + ua[c + sb];
            const PetscReal Pm = ub[m] + ub[m + sa], Qm = ua[m] + ua[c];
            /* fp = P Q */
            bub[c] += w * Q, bub[c + sa] += w * Q;
            bua[c] += w * P, bua[c + sb] += w * P;
            /* -fm = -Pm Qm */
            bub[m] -= w * Qm, bub[m + sa] -= w * Qm;
            bua[m] -= w * Pm, bua[c] -= w * Pm;
          }
        }
    }
    PetscCall(VecRestoreArrayRead(rbar[a], &r));
  }
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecRestoreArrayRead(ul[a], &u[a]));
    PetscCall(VecRestoreArray(ulbar[a], &ub_[a]));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_AdvectionAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
