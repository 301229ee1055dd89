/*
  Divergence at cell centres:  (D u)(c) = sum_a ( u_a(c) - u_a(c - e_a) ) / dxf_a(c_a) ,

  the net flux out of the cell over its volume (dxf_a the cell's width along a; h_a on a uniform
  direction).
  u_a(c - e_a) on the lower boundary is the ghost (boundary face) value of FGOpFillBoundary.
  Linear; with the gradient below, D G is the pressure Laplacian of include/fg/poisson.h.

  Weighted (FGOpDivergenceWeighted): D (w u), each face's flux scaled by a face weight w_a(c),
  ghosted like u (the cut-cell continuity of a sharp wall's apertures, src/body/aperture.c). Its
  transpose in u is w (D^T divbar) and in w is u (D^T divbar): FGOpDivergenceWeightedAdjoint.
*/
#include <fg/ops.h>

/* div (+)= D (w u), w NULL: 1. */
static PetscErrorCode FGOpDivergence_Private(FGGrid g, Vec wl[], Vec ul[], PetscBool add, Vec div)
{
  const FGBox *bx = &g->box;
  PetscScalar *r;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_Divergence, 0, 0, 0, 0));
  if (!add) PetscCall(VecSet(div, 0.0));
  PetscCall(VecGetArray(div, &r));
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *ua, *wa = NULL;
    const PetscInt     sa = bx->s[a];
    const PetscReal   *iw = g->ax[a].idxf;
    PetscCall(VecGetArrayRead(ul[a], &ua));
    if (wl) PetscCall(VecGetArrayRead(wl[a], &wa));
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++) {
        const PetscInt  c0 = FGBoxIndex(bx, 0, j, k), o0 = FGBoxOwnedIndex(bx, 0, j, k);
        const PetscReal q  = a == 0 ? 0 : iw[a == 1 ? j : k];
        if (wa)
          for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) r[o0 + i] += (a == 0 ? iw[i] : q) * (wa[c0 + i] * ua[c0 + i] - wa[c0 + i - sa] * ua[c0 + i - sa]);
        else if (a == 0)
          for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) r[o0 + i] += iw[i] * (ua[c0 + i] - ua[c0 + i - sa]);
        else
          for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) r[o0 + i] += q * (ua[c0 + i] - ua[c0 + i - sa]);
      }
    if (wl) PetscCall(VecRestoreArrayRead(wl[a], &wa));
    PetscCall(VecRestoreArrayRead(ul[a], &ua));
  }
  PetscCall(VecRestoreArray(div, &r));
  PetscCall(PetscLogEventEnd(FG_EVENT_Divergence, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGOpDivergence(FGGrid g, Vec ul[], Vec div)
{
  PetscFunctionBeginUser;
  PetscCall(FGOpDivergence_Private(g, NULL, ul, PETSC_FALSE, div));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpDivergenceWeighted - div = D (w u), or div += D (w u) with add (wl, ul ghosted; wl NULL:
  the plain divergence). Linear in u and in w: with (w, du) it is the tangent in u, with (dw, u)
  the one in w.
@*/
PetscErrorCode FGOpDivergenceWeighted(FGGrid g, Vec wl[], Vec ul[], PetscBool add, Vec div)
{
  PetscFunctionBeginUser;
  PetscCall(FGOpDivergence_Private(g, wl, ul, add, div));
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

/* ulbar_a += w_a D_a^T divbar (w NULL: 1). */
static PetscErrorCode FGOpDivergenceAdjoint_Private(FGGrid g, Vec wl[], Vec divbar, Vec ulbar[])
{
  const FGBox       *bx = &g->box;
  const PetscScalar *r;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_DivergenceAdjoint, 0, 0, 0, 0));
  PetscCall(VecGetArrayRead(divbar, &r));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar       *ba;
    const PetscScalar *wa = NULL;
    const PetscInt     sa = bx->s[a];
    const PetscReal *iw = g->ax[a].idxf;
    PetscCall(VecGetArray(ulbar[a], &ba));
    if (wl) PetscCall(VecGetArrayRead(wl[a], &wa));
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++) {
        const PetscInt c0 = FGBoxIndex(bx, 0, j, k), o0 = FGBoxOwnedIndex(bx, 0, j, k);
        for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
          const PetscReal q = iw[a == 0 ? i : a == 1 ? j : k];
          ba[c0 + i] += (wa ? wa[c0 + i] : 1.0) * q * r[o0 + i];
          ba[c0 + i - sa] -= (wa ? wa[c0 + i - sa] : 1.0) * q * r[o0 + i];
        }
      }
    if (wl) PetscCall(VecRestoreArrayRead(wl[a], &wa));
    PetscCall(VecRestoreArray(ulbar[a], &ba));
  }
  PetscCall(VecRestoreArrayRead(divbar, &r));
  PetscCall(PetscLogEventEnd(FG_EVENT_DivergenceAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpDivergenceAdjoint - the transpose: ulbar_a += D_a^T divbar (ulbar ghosted, accumulated).
@*/
PetscErrorCode FGOpDivergenceAdjoint(FGGrid g, Vec divbar, Vec ulbar[])
{
  PetscFunctionBeginUser;
  PetscCall(FGOpDivergenceAdjoint_Private(g, NULL, divbar, ulbar));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpDivergenceWeightedAdjoint - the transpose of FGOpDivergenceWeighted in its second argument:
  ulbar_a += w_a D_a^T divbar (ulbar ghosted, accumulated). With (u, divbar) for (w, divbar) it
  is the transpose in the weights: wbar_a += u_a D_a^T divbar.
@*/
PetscErrorCode FGOpDivergenceWeightedAdjoint(FGGrid g, Vec wl[], Vec divbar, Vec ulbar[])
{
  PetscFunctionBeginUser;
  PetscCall(FGOpDivergenceAdjoint_Private(g, wl, divbar, ulbar));
  PetscFunctionReturn(PETSC_SUCCESS);
}
