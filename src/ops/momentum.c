/*
  The momentum right-hand side of the forward step in one pass:

    H_a = -A_a(u) + nu D_a(u)   on the interior faces of component a,   H_a = 0 on its other faces,

  with A (advection.c) and D (diffusion.c) exactly as defined there. FGOpAdvection and
  FGOpDiffusion each sweep every (a, b) pair and read-modify-write rhs once per pair: 2 d^2 passes
  over the arrays; here each component is one sweep that reads the d velocity arrays around its
  face and writes H_a once, and it needs no VecSet of H beforehand. On a grid with a stretched
  direction it is VecSet + FGOpAdvection + FGOpDiffusion, whose kernels carry the metrics. Only the rounding differs from
  VecSet + FGOpAdvection + FGOpDiffusion (tests/unit/test_ops.c compares them, 1e-14). The linearized
  step keeps the separate operators, whose tangents and adjoints sit next to them.
*/
#include <fg/ops.h>

/* One row of interior faces, i in [0, n): ua, u0, u1, u2 point at the row's first face (ghosted
   arrays; u2 NULL in 2D), sa, sy, sz the strides of component a's direction, y and z. */
static void FGMomentumRow_Private(PetscInt n, const PetscScalar *restrict ua, const PetscScalar *restrict u0, const PetscScalar *restrict u1, const PetscScalar *restrict u2, PetscInt sa, PetscInt sy, PetscInt sz, const PetscReal q[3], const PetscReal nh2[3], PetscReal nu2, PetscScalar *restrict h)
{
  const PetscReal qx = q[0], qy = q[1], qz = q[2], cx = nh2[0], cy = nh2[1], cz = nh2[2];
  if (!u2) {
    for (PetscInt i = 0; i < n; i++) {
      const PetscReal c = ua[i];
      const PetscReal fx = (u0[i] + u0[i + sa]) * (c + ua[i + 1]) - (u0[i - 1] + u0[i - 1 + sa]) * (ua[i - 1] + c);
      const PetscReal fy = (u1[i] + u1[i + sa]) * (c + ua[i + sy]) - (u1[i - sy] + u1[i - sy + sa]) * (ua[i - sy] + c);
      h[i]               = cx * (ua[i + 1] + ua[i - 1]) + cy * (ua[i + sy] + ua[i - sy]) - nu2 * c - (qx * fx + qy * fy);
    }
  } else {
    for (PetscInt i = 0; i < n; i++) {
      const PetscReal c = ua[i];
      const PetscReal fx = (u0[i] + u0[i + sa]) * (c + ua[i + 1]) - (u0[i - 1] + u0[i - 1 + sa]) * (ua[i - 1] + c);
      const PetscReal fy = (u1[i] + u1[i + sa]) * (c + ua[i + sy]) - (u1[i - sy] + u1[i - sy + sa]) * (ua[i - sy] + c);
      const PetscReal fz = (u2[i] + u2[i + sa]) * (c + ua[i + sz]) - (u2[i - sz] + u2[i - sz + sa]) * (ua[i - sz] + c);
      h[i]               = cx * (ua[i + 1] + ua[i - 1]) + cy * (ua[i + sy] + ua[i - sy]) + cz * (ua[i + sz] + ua[i - sz]) - nu2 * c - (qx * fx + qy * fy + qz * fz);
    }
  }
}

/* The same row with the viscous term sent elsewhere: h = -A, r += (the nh2-weighted Laplacian). */
static void FGMomentumRowSplit_Private(PetscInt n, const PetscScalar *restrict ua, const PetscScalar *restrict u0, const PetscScalar *restrict u1, const PetscScalar *restrict u2, PetscInt sa, PetscInt sy, PetscInt sz, const PetscReal q[3], const PetscReal nh2[3], PetscReal nu2, PetscScalar *restrict h, PetscScalar *restrict r)
{
  const PetscReal qx = q[0], qy = q[1], qz = q[2], cx = nh2[0], cy = nh2[1], cz = nh2[2];
  if (!u2) {
    for (PetscInt i = 0; i < n; i++) {
      const PetscReal c = ua[i];
      const PetscReal fx = (u0[i] + u0[i + sa]) * (c + ua[i + 1]) - (u0[i - 1] + u0[i - 1 + sa]) * (ua[i - 1] + c);
      const PetscReal fy = (u1[i] + u1[i + sa]) * (c + ua[i + sy]) - (u1[i - sy] + u1[i - sy + sa]) * (ua[i - sy] + c);
      h[i]               = -(qx * fx + qy * fy);
      r[i] += cx * (ua[i + 1] + ua[i - 1]) + cy * (ua[i + sy] + ua[i - sy]) - nu2 * c;
    }
  } else {
    for (PetscInt i = 0; i < n; i++) {
      const PetscReal c = ua[i];
      const PetscReal fx = (u0[i] + u0[i + sa]) * (c + ua[i + 1]) - (u0[i - 1] + u0[i - 1 + sa]) * (ua[i - 1] + c);
      const PetscReal fy = (u1[i] + u1[i + sa]) * (c + ua[i + sy]) - (u1[i - sy] + u1[i - sy + sa]) * (ua[i - sy] + c);
      const PetscReal fz = (u2[i] + u2[i + sa]) * (c + ua[i + sz]) - (u2[i - sz] + u2[i - sz + sa]) * (ua[i - sz] + c);
      h[i]               = -(qx * fx + qy * fy + qz * fz);
      r[i] += cx * (ua[i + 1] + ua[i - 1]) + cy * (ua[i + sy] + ua[i - sy]) + cz * (ua[i + sz] + ua[i - sz]) - nu2 * c;
    }
  }
}

/* The sweep: H = -A + nu D, or with R, H = -A and R += nu D. */
static PetscErrorCode FGOpMomentum_Private(FGGrid g, const FGBoundary *bc, PetscReal nu, Vec ul[], Vec H[], Vec R[])
{
  const FGBox       *bx = &g->box;
  const PetscInt     dim = g->dim;
  const PetscScalar *u[3] = {NULL, NULL, NULL};
  PetscReal          q[3] = {0, 0, 0}, nh2[3] = {0, 0, 0}, nu2 = 0;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_Momentum, 0, 0, 0, 0));
  if (!g->isuniform) { /* a stretched grid: the operators one by one, with their metrics */
    for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(H[a], 0.0));
    PetscCall(FGOpAdvection(g, bc, ul, H));
    PetscCall(FGOpDiffusion(g, bc, nu, ul, R ? R : H));
    PetscCall(PetscLogEventEnd(FG_EVENT_Momentum, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt b = 0; b < dim; b++) {
    q[b]   = 0.25 / g->h[b];
    nh2[b] = nu / (g->h[b] * g->h[b]);
    nu2 += 2.0 * nh2[b];
    PetscCall(VecGetArrayRead(ul[b], &u[b]));
  }
  for (PetscInt a = 0; a < dim; a++) {
    PetscScalar   *h, *r = NULL;
    PetscInt       lo[3], hi[3];
    const PetscInt nx = bx->hi[0] - bx->lo[0];
    FGOpInteriorFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArrayWrite(H[a], &h));
    if (R) PetscCall(VecGetArray(R[a], &r));
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++) {
        const PetscInt c0 = FGBoxIndex(bx, lo[0], j, k);
        PetscScalar   *hr = h + FGBoxOwnedIndex(bx, bx->lo[0], j, k);
        if (j < lo[1] || j >= hi[1] || k < lo[2] || k >= hi[2]) { /* a boundary row of faces */
          PetscCall(PetscArrayzero(hr, nx));
          continue;
        }
        if (r) FGMomentumRowSplit_Private(hi[0] - lo[0], u[a] + c0, u[0] + c0, u[1] + c0, dim == 3 ? u[2] + c0 : NULL, bx->s[a], bx->s[1], bx->s[2], q, nh2, nu2, hr + (lo[0] - bx->lo[0]), r + FGBoxOwnedIndex(bx, lo[0], j, k));
        else FGMomentumRow_Private(hi[0] - lo[0], u[a] + c0, u[0] + c0, u[1] + c0, dim == 3 ? u[2] + c0 : NULL, bx->s[a], bx->s[1], bx->s[2], q, nh2, nu2, hr + (lo[0] - bx->lo[0]));
        if (hi[0] < bx->hi[0]) PetscCall(PetscArrayzero(hr + (hi[0] - bx->lo[0]), bx->hi[0] - hi[0]));
      }
    PetscCall(VecRestoreArrayWrite(H[a], &h));
    if (R) PetscCall(VecRestoreArray(R[a], &r));
  }
  for (PetscInt b = 0; b < dim; b++) PetscCall(VecRestoreArrayRead(ul[b], &u[b]));
  PetscCall(PetscLogEventEnd(FG_EVENT_Momentum, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpMomentum - H = -A(ul) + nu D(ul) on the interior faces and 0 on the other owned faces, in
  one sweep per component.

  Collective (no communication).

  Input Parameters:
+ g, bc - the grid and the boundary kinds
. nu    - the kinematic viscosity
- ul    - the ghosted velocity with its boundary values (FGOpFillBoundary)

  Output Parameter:
. H - global Vecs of the components (overwritten)

.seealso: FGOpAdvection(), FGOpDiffusion()
@*/
PetscErrorCode FGOpMomentum(FGGrid g, const FGBoundary *bc, PetscReal nu, Vec ul[], Vec H[])
{
  PetscFunctionBeginUser;
  PetscCall(FGOpMomentum_Private(g, bc, nu, ul, H, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpMomentumSplit - H = -A(ul) on the interior faces (0 on the other owned faces) and
  R += c D(ul) on the interior faces, in the same sweep: the implicit viscous term's stage, whose
  explicit half goes into the velocity rather than into H. Collective (no communication).
@*/
PetscErrorCode FGOpMomentumSplit(FGGrid g, const FGBoundary *bc, PetscReal c, Vec ul[], Vec H[], Vec R[])
{
  PetscFunctionBeginUser;
  PetscCall(FGOpMomentum_Private(g, bc, c, ul, H, R));
  PetscFunctionReturn(PETSC_SUCCESS);
}
