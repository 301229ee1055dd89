/*
  Diffusion: the second-order central Laplacian of each velocity component at its face,

    D_a(u) = nu * sum_b ( u_a(c + e_b) - 2 u_a(c) + u_a(c - e_b) ) / h_b^2 ,

  closed at walls by the ghost values of FGOpFillBoundary. Linear in u (and in nu).
  FGOpDiffusion adds it to rhs on the interior faces: rhs_a += D_a(ul).
*/
#include <fg/ops.h>

PetscErrorCode FGOpDiffusion(FGGrid g, const FGBoundary *bc, PetscReal nu, Vec ul[], Vec rhs[])
{
  const FGBox *bx = &g->box;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_Diffusion, 0, 0, 0, 0));
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *ua;
    PetscScalar       *r;
    PetscInt           lo[3], hi[3];
    FGOpInteriorFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArrayRead(ul[a], &ua));
    PetscCall(VecGetArray(rhs[a], &r));
    for (PetscInt b = 0; b < g->dim; b++) {
      const PetscInt  sb = bx->s[b];
      const PetscReal q  = nu / (g->h[b] * g->h[b]);
      for (PetscInt k = lo[2]; k < hi[2]; k++)
        for (PetscInt j = lo[1]; j < hi[1]; j++) {
          const PetscInt c0 = FGBoxIndex(bx, 0, j, k), o0 = FGBoxOwnedIndex(bx, 0, j, k);
          for (PetscInt i = lo[0]; i < hi[0]; i++) {
            const PetscInt c = c0 + i;
            r[o0 + i] += q * (ua[c + sb] - 2.0 * ua[c] + ua[c - sb]);
          }
        }
    }
    PetscCall(VecRestoreArray(rhs[a], &r));
    PetscCall(VecRestoreArrayRead(ul[a], &ua));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_Diffusion, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpDiffusionTangent - the tangent of FGOpDiffusion in the velocity (dul) and the viscosity
  (dnu): rhs_a += nu L(dul) + dnu L(ul). Linear in each, so the operator itself twice.
@*/
PetscErrorCode FGOpDiffusionTangent(FGGrid g, const FGBoundary *bc, PetscReal nu, PetscReal dnu, Vec ul[], Vec dul[], Vec rhs[])
{
  PetscFunctionBeginUser;
  PetscCall(FGOpDiffusion(g, bc, nu, dul, rhs));
  if (dnu != 0) PetscCall(FGOpDiffusion(g, bc, dnu, ul, rhs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpDiffusionAdjoint - the transpose: ulbar += nu L^T rbar (ghosted, accumulated; see
  FGOpAdvectionAdjoint), and with nubar non-NULL, *nubar += <rbar, L(ul)> over this rank's owned
  interior faces (the caller reduces).
@*/
PetscErrorCode FGOpDiffusionAdjoint(FGGrid g, const FGBoundary *bc, PetscReal nu, Vec ul[], Vec rbar[], Vec ulbar[], PetscReal *nubar)
{
  const FGBox *bx = &g->box;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_DiffusionAdjoint, 0, 0, 0, 0));
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *r, *ua = NULL;
    PetscScalar       *ba;
    PetscInt           lo[3], hi[3];
    PetscReal          dn = 0;
    FGOpInteriorFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArrayRead(rbar[a], &r));
    PetscCall(VecGetArray(ulbar[a], &ba));
    if (nubar) PetscCall(VecGetArrayRead(ul[a], &ua));
    for (PetscInt b = 0; b < g->dim; b++) {
      const PetscInt  sb = bx->s[b];
      const PetscReal h2 = 1.0 / (g->h[b] * g->h[b]), q = nu * h2;
      for (PetscInt k = lo[2]; k < hi[2]; k++)
        for (PetscInt j = lo[1]; j < hi[1]; j++) {
          const PetscInt c0 = FGBoxIndex(bx, 0, j, k), o0 = FGBoxOwnedIndex(bx, 0, j, k);
          for (PetscInt i = lo[0]; i < hi[0]; i++) {
            const PetscInt  c  = c0 + i;
            const PetscReal rb = r[o0 + i];
            ba[c + sb] += q * rb, ba[c] -= 2.0 * q * rb, ba[c - sb] += q * rb;
            if (ua) dn += rb * h2 * (ua[c + sb] - 2.0 * ua[c] + ua[c - sb]);
          }
        }
    }
    if (nubar) {
      PetscCall(VecRestoreArrayRead(ul[a], &ua));
      *nubar += dn;
    }
    PetscCall(VecRestoreArray(ulbar[a], &ba));
    PetscCall(VecRestoreArrayRead(rbar[a], &r));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_DiffusionAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
