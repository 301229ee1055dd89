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
