/*
  Divergence at cell centres:  (D u)(c) = sum_a ( u_a(c) - u_a(c - e_a) ) / dxf_a(c_a) ,

  the net flux out of the cell over its volume (dxf_a the cell's width along a; h_a on a uniform
  direction).
  u_a(c - e_a) on the lower boundary is the ghost (boundary face) value of FGOpFillBoundary.
  Linear; with the gradient below, D G is the pressure Laplacian of include/fg/poisson.h.
*/
#include <fg/ops.h>

PetscErrorCode FGOpDivergence(FGGrid g, Vec ul[], Vec div)
{
  const FGBox *bx = &g->box;
  PetscScalar *r;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_Divergence, 0, 0, 0, 0));
  PetscCall(VecSet(div, 0.0));
  PetscCall(VecGetArray(div, &r));
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *ua;
    const PetscInt     sa = bx->s[a];
    const PetscReal   *iw = g->ax[a].idxf;
    PetscCall(VecGetArrayRead(ul[a], &ua));
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++) {
        const PetscInt c0 = FGBoxIndex(bx, 0, j, k), o0 = FGBoxOwnedIndex(bx, 0, j, k);
        if (a == 0)
          for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) r[o0 + i] += iw[i] * (ua[c0 + i] - ua[c0 + i - sa]);
        else {
          const PetscReal q = iw[a == 1 ? j : k];
          for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) r[o0 + i] += q * (ua[c0 + i] - ua[c0 + i - sa]);
        }
      }
    PetscCall(VecRestoreArrayRead(ul[a], &ua));
  }
  PetscCall(VecRestoreArray(div, &r));
  PetscCall(PetscLogEventEnd(FG_EVENT_Divergence, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpDivergenceTangent - linear: the tangent is the divergence of dul.
@*/
PetscErrorCode FGOpDivergenceTangent(FGGrid g, Vec dul[], Vec ddiv)
{
  PetscFunctionBeginUser;
  PetscCall(FGOpDivergence(g, dul, ddiv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpDivergenceAdjoint - the transpose: ulbar_a += D_a^T divbar (ulbar ghosted, accumulated).
@*/
PetscErrorCode FGOpDivergenceAdjoint(FGGrid g, Vec divbar, Vec ulbar[])
{
  const FGBox       *bx = &g->box;
  const PetscScalar *r;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_DivergenceAdjoint, 0, 0, 0, 0));
  PetscCall(VecGetArrayRead(divbar, &r));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar     *ba;
    const PetscInt   sa = bx->s[a];
    const PetscReal *iw = g->ax[a].idxf;
    PetscCall(VecGetArray(ulbar[a], &ba));
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++) {
        const PetscInt c0 = FGBoxIndex(bx, 0, j, k), o0 = FGBoxOwnedIndex(bx, 0, j, k);
        for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
          const PetscReal q = iw[a == 0 ? i : a == 1 ? j : k];
          ba[c0 + i] += q * r[o0 + i];
          ba[c0 + i - sa] -= q * r[o0 + i];
        }
      }
    PetscCall(VecRestoreArray(ulbar[a], &ba));
  }
  PetscCall(VecRestoreArrayRead(divbar, &r));
  PetscCall(PetscLogEventEnd(FG_EVENT_DivergenceAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
