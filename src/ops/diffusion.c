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

  Gather form: with rbar_a taken as 0 off the interior faces, (L^T rbar)(e) = sum_b (rbar(e - e_b)
  - 2 rbar(e) + rbar(e + e_b)) / h_b^2 on the entries e that the stencil reaches (the interior
  faces and their neighbours along each direction), each written once; and
  <rbar, L ul> = <L^T rbar, ul> over the same entries, so nubar costs one product per entry.
@*/
PetscErrorCode FGOpDiffusionAdjoint(FGGrid g, const FGBoundary *bc, PetscReal nu, Vec ul[], Vec rbar[], Vec ulbar[], PetscReal *nubar)
{
  const FGBox    *bx  = &g->box;
  const PetscInt  dim = g->dim, nbuf = bx->ghi[0] - bx->glo[0] + 4;
  PetscReal       h2[3] = {0, 0, 0}, *buf, *Z, *T;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_DiffusionAdjoint, 0, 0, 0, 0));
  PetscCall(PetscMalloc1(2 * nbuf, &buf));
  Z = buf, T = buf + nbuf;
  for (PetscInt b = 0; b < dim; b++) h2[b] = 1.0 / (g->h[b] * g->h[b]);
  for (PetscInt a = 0; a < dim; a++) {
    const PetscScalar *r, *ua = NULL;
    PetscScalar       *ba;
    PetscInt           lo[3], hi[3], n0;
    PetscReal          dn    = 0;
    PetscBool          empty = PETSC_FALSE;
    FGOpInteriorFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArrayRead(rbar[a], &r));
    PetscCall(VecGetArray(ulbar[a], &ba));
    if (nubar) PetscCall(VecGetArrayRead(ul[a], &ua));
    for (PetscInt d = 0; d < 3; d++)
      if (hi[d] <= lo[d]) empty = PETSC_TRUE;
    n0 = hi[0] - lo[0];
    if (!empty) {
      const PetscInt e1 = dim > 1 ? 1 : 0, e2 = dim > 2 ? 1 : 0;
      for (PetscInt k = lo[2] - e2; k < hi[2] + e2; k++)
        for (PetscInt j = lo[1] - e1; j < hi[1] + e1; j++) {
          const PetscBool jin = (PetscBool)(j >= lo[1] && j < hi[1]), kin = (PetscBool)(k >= lo[2] && k < hi[2]);
          const PetscInt  idx[3] = {0, j, k};
          PetscInt        ilo, n;
          if (!jin && !kin) continue; /* a corner row: no stencil reaches it */
          if (jin && kin) {           /* an interior row: the entries lo - 1 .. hi */
            const PetscScalar *rr = r + FGBoxOwnedIndex(bx, lo[0], j, k);
            ilo = lo[0] - 1, n = n0 + 2;
            /* Z[p] = rbar at i = lo - 2 + p, zero off the interior faces */
            Z[0] = Z[1] = Z[n0 + 2] = Z[n0 + 3] = 0;
            for (PetscInt t = 0; t < n0; t++) Z[t + 2] = rr[t];
            for (PetscInt t = 0; t < n; t++) T[t] = h2[0] * (Z[t] - 2.0 * Z[t + 1] + Z[t + 2]);
            for (PetscInt b = 1; b < dim; b++) { /* the rows idx -+ e_b, where interior */
              const PetscReal *zm = idx[b] > lo[b] ? rr - bx->os[b] : NULL, *zp = idx[b] + 1 < hi[b] ? rr + bx->os[b] : NULL;
              PetscReal       *Tb = T + 1;
              if (zm && zp)
                for (PetscInt t = 0; t < n0; t++) Tb[t] += h2[b] * (zm[t] - 2.0 * rr[t] + zp[t]);
              else if (zm)
                for (PetscInt t = 0; t < n0; t++) Tb[t] += h2[b] * (zm[t] - 2.0 * rr[t]);
              else if (zp)
                for (PetscInt t = 0; t < n0; t++) Tb[t] += h2[b] * (zp[t] - 2.0 * rr[t]);
              else
                for (PetscInt t = 0; t < n0; t++) Tb[t] -= h2[b] * 2.0 * rr[t];
            }
          } else { /* one row off the interior along b: the entries lo .. hi - 1 from its interior neighbour */
            const PetscInt     b = jin ? 2 : 1, o = FGBoxOwnedIndex(bx, lo[0], j, k);
            const PetscScalar *rn = idx[b] < lo[b] ? r + o + bx->os[b] : r + o - bx->os[b];
            ilo = lo[0], n = n0;
            for (PetscInt t = 0; t < n; t++) T[t] = h2[b] * rn[t];
          }
          {
            const PetscInt c0 = FGBoxIndex(bx, ilo, j, k);
            PetscScalar   *bo = ba + c0;
            for (PetscInt t = 0; t < n; t++) bo[t] += nu * T[t];
            if (ua) {
              const PetscScalar *uo = ua + c0;
              for (PetscInt t = 0; t < n; t++) dn += T[t] * uo[t];
            }
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
  PetscCall(PetscFree(buf));
  PetscCall(PetscLogEventEnd(FG_EVENT_DiffusionAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
