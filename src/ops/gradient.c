/*
  Pressure-gradient correction on the unknown faces:

    u_a(c) <- u_a(c) - s * (G_a phi)(c),   (G_a phi)(c) = ( phi(c + e_a) - phi(c) ) / dxc_a(c_a) ,

  dxc_a the distance between the two centres (h_a on a uniform direction), with phi's ghost
  beyond an upper outflow face equal to -phi (phi = 0 on the face, the Dirichlet closure of the
  Poisson solver; the mirrored ghost cell makes dxc there the boundary cell's width).
  With the cell volumes V and the face volumes V_a = dxc_a x (the other widths), G = -V_a^{-1}
  D^T V: D G is symmetric in the volume-weighted inner product. Prescribed boundary faces are not touched (there
  G = 0: the Neumann closure). phil is the ghosted phi (DMGlobalToLocal done by the caller).
*/
#include <fg/ops.h>

/* s / dxc_a(i): as s / h_a on a uniform direction (the rounding of the uniform grid kept) */
static inline PetscReal FGGradScale_Private(FGGrid g, PetscReal s, PetscInt a, PetscInt i)
{
  return g->uniform[a] ? s / g->h[a] : s * g->ax[a].idxc[i];
}

PetscErrorCode FGOpGradientCorrect(FGGrid g, const FGBoundary *bc, PetscReal s, Vec phil, Vec u[])
{
  const FGBox       *bx = &g->box;
  const PetscScalar *p;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_Gradient, 0, 0, 0, 0));
  PetscCall(VecGetArrayRead(phil, &p));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar     *ua;
    PetscInt         lo[3], hi[3], ilo[3], ihi[3];
    const PetscInt   sa = bx->s[a];
    const PetscReal *iw = g->ax[a].idxc;
    FGOpInteriorFaces(g, bc, a, ilo, ihi);
    FGOpUnknownFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArray(u[a], &ua));
    for (PetscInt k = ilo[2]; k < ihi[2]; k++)
      for (PetscInt j = ilo[1]; j < ihi[1]; j++) {
        const PetscInt c0 = FGBoxIndex(bx, 0, j, k), o0 = FGBoxOwnedIndex(bx, 0, j, k);
        if (a == 0 && !g->uniform[0])
          for (PetscInt i = ilo[0]; i < ihi[0]; i++) ua[o0 + i] -= s * iw[i] * (p[c0 + i + sa] - p[c0 + i]);
        else {
          const PetscReal q = FGGradScale_Private(g, s, a, a == 1 ? j : k);
          for (PetscInt i = ilo[0]; i < ihi[0]; i++) ua[o0 + i] -= q * (p[c0 + i + sa] - p[c0 + i]);
        }
      }
    if (hi[a] != ihi[a]) { /* the upper outflow faces: phi(ghost) = -phi */
      const PetscReal q = FGGradScale_Private(g, s, a, g->n[a] - 1);
      for (PetscInt e = 0; e < 3; e++) lo[e] = bx->lo[e], hi[e] = bx->hi[e];
      lo[a] = g->n[a] - 1;
      for (PetscInt k = lo[2]; k < hi[2]; k++)
        for (PetscInt j = lo[1]; j < hi[1]; j++)
          for (PetscInt i = lo[0]; i < hi[0]; i++) ua[FGBoxOwnedIndex(bx, i, j, k)] -= q * (-2.0 * p[FGBoxIndex(bx, i, j, k)]);
    }
    PetscCall(VecRestoreArray(u[a], &ua));
  }
  PetscCall(VecRestoreArrayRead(phil, &p));
  PetscCall(PetscLogEventEnd(FG_EVENT_Gradient, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpGradientCorrectTangent - linear in phi: du <- du - s G dphi (the operator itself).
@*/
PetscErrorCode FGOpGradientCorrectTangent(FGGrid g, const FGBoundary *bc, PetscReal s, Vec dphil, Vec du[])
{
  PetscFunctionBeginUser;
  PetscCall(FGOpGradientCorrect(g, bc, s, dphil, du));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpGradientCorrectAdjoint - the transpose of u <- u - s G phi in phi: philbar += -s G^T ubar
  (philbar ghosted, accumulated; the caller adds its ghosts to their owners with
  DMLocalToGlobal(ADD_VALUES)). ubar itself passes through unchanged (the identity part).
@*/
PetscErrorCode FGOpGradientCorrectAdjoint(FGGrid g, const FGBoundary *bc, PetscReal s, Vec ubar[], Vec philbar)
{
  const FGBox *bx = &g->box;
  PetscScalar *pb;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_GradientAdjoint, 0, 0, 0, 0));
  PetscCall(VecGetArray(philbar, &pb));
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *ua;
    PetscInt           lo[3], hi[3], ilo[3], ihi[3];
    const PetscInt     sa = bx->s[a];
    FGOpInteriorFaces(g, bc, a, ilo, ihi);
    FGOpUnknownFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArrayRead(ubar[a], &ua));
    for (PetscInt k = ilo[2]; k < ihi[2]; k++)
      for (PetscInt j = ilo[1]; j < ihi[1]; j++) {
        const PetscInt  c0 = FGBoxIndex(bx, 0, j, k), o0 = FGBoxOwnedIndex(bx, 0, j, k);
        const PetscBool vary = (PetscBool)(a == 0 && !g->uniform[0]);
        const PetscReal qrow = FGGradScale_Private(g, s, a, a == 0 ? 0 : a == 1 ? j : k);
        for (PetscInt i = ilo[0]; i < ihi[0]; i++) {
          const PetscReal q = vary ? s * g->ax[0].idxc[i] : qrow;
          pb[c0 + i + sa] -= q * ua[o0 + i];
          pb[c0 + i] += q * ua[o0 + i];
        }
      }
    if (hi[a] != ihi[a]) {
      const PetscReal q = FGGradScale_Private(g, s, a, g->n[a] - 1);
      for (PetscInt e = 0; e < 3; e++) lo[e] = bx->lo[e], hi[e] = bx->hi[e];
      lo[a] = g->n[a] - 1;
      for (PetscInt k = lo[2]; k < hi[2]; k++)
        for (PetscInt j = lo[1]; j < hi[1]; j++)
          for (PetscInt i = lo[0]; i < hi[0]; i++) pb[FGBoxIndex(bx, i, j, k)] += 2.0 * q * ua[FGBoxOwnedIndex(bx, i, j, k)];
    }
    PetscCall(VecRestoreArrayRead(ubar[a], &ua));
  }
  PetscCall(VecRestoreArray(philbar, &pb));
  PetscCall(PetscLogEventEnd(FG_EVENT_GradientAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
