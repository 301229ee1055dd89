/*
  Pressure-gradient correction on the unknown faces:

    u_a(c) <- u_a(c) - s * (G_a phi)(c),   (G_a phi)(c) = ( phi(c + e_a) - phi(c) ) / h_a ,

  with phi's ghost beyond an upper outflow face equal to -phi (phi = 0 on the face, the
  Dirichlet closure of the Poisson solver). Prescribed boundary faces are not touched (there
  G = 0: the Neumann closure). phil is the ghosted phi (DMGlobalToLocal done by the caller).
*/
#include <fg/ops.h>

PetscErrorCode FGOpGradientCorrect(FGGrid g, const FGBoundary *bc, PetscReal s, Vec phil, Vec u[])
{
  const FGBox       *bx = &g->box;
  const PetscScalar *p;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_Gradient, 0, 0, 0, 0));
  PetscCall(VecGetArrayRead(phil, &p));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar    *ua;
    PetscInt        lo[3], hi[3], ilo[3], ihi[3];
    const PetscInt  sa = bx->s[a];
    const PetscReal q  = s / g->h[a];
    FGOpInteriorFaces(g, bc, a, ilo, ihi);
    FGOpUnknownFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArray(u[a], &ua));
    for (PetscInt k = ilo[2]; k < ihi[2]; k++)
      for (PetscInt j = ilo[1]; j < ihi[1]; j++) {
        const PetscInt c0 = FGBoxIndex(bx, 0, j, k), o0 = FGBoxOwnedIndex(bx, 0, j, k);
        for (PetscInt i = ilo[0]; i < ihi[0]; i++) ua[o0 + i] -= q * (p[c0 + i + sa] - p[c0 + i]);
      }
    if (hi[a] != ihi[a]) { /* the upper outflow faces: phi(ghost) = -phi */
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
    const PetscReal    q  = s / g->h[a];
    FGOpInteriorFaces(g, bc, a, ilo, ihi);
    FGOpUnknownFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArrayRead(ubar[a], &ua));
    for (PetscInt k = ilo[2]; k < ihi[2]; k++)
      for (PetscInt j = ilo[1]; j < ihi[1]; j++) {
        const PetscInt c0 = FGBoxIndex(bx, 0, j, k), o0 = FGBoxOwnedIndex(bx, 0, j, k);
        for (PetscInt i = ilo[0]; i < ihi[0]; i++) {
          pb[c0 + i + sa] -= q * ua[o0 + i];
          pb[c0 + i] += q * ua[o0 + i];
        }
      }
    if (hi[a] != ihi[a]) {
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
