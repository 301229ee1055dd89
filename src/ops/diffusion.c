/*
  Diffusion: the second-order finite-volume Laplacian of each velocity component at its face,

    D_a(u) = nu * sum_b [ cp_ab (u_a(c + e_b) - u_a(c)) - cm_ab (u_a(c) - u_a(c - e_b)) ] ,

  the difference of the gradients at the two b-faces of the face's control volume over its width:
    b != a (u_a sits at a centre along b, index t):  cp = 1/(dxc_b(t) dxf_b(t)), cm = 1/(dxc_b(t-1) dxf_b(t))
    b == a (u_a sits at a face along a, index t):    cp = 1/(dxf_a(t+1) dxc_a(t)), cm = 1/(dxf_a(t) dxc_a(t))
  which on a uniform direction is (u_a(c + e_b) - 2 u_a(c) + u_a(c - e_b)) / h_b^2 (computed so
  there, as on the uniform grid). Multiplied by the face volumes it is symmetric (the viscous
  operator is self-adjoint in the volume-weighted inner product). Closed at walls by the ghost
  values of FGOpFillBoundary (mirrored ghost cells: the wall halfway). Linear in u (and in nu).
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
      if (!g->uniform[b]) { /* the finite-volume form with the metrics of b */
        for (PetscInt k = lo[2]; k < hi[2]; k++)
          for (PetscInt j = lo[1]; j < hi[1]; j++) {
            const PetscInt c0 = FGBoxIndex(bx, 0, j, k), o0 = FGBoxOwnedIndex(bx, 0, j, k);
            for (PetscInt i = lo[0]; i < hi[0]; i++) {
              const PetscInt c = c0 + i, t = b == 0 ? i : b == 1 ? j : k;
              PetscReal      cm, cp;
              FGOpDiffusionCoefficients(g, a, b, t, &cm, &cp);
              r[o0 + i] += nu * (cp * (ua[c + sb] - ua[c]) - cm * (ua[c] - ua[c - sb]));
            }
          }
        continue;
      }
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

/* (L^T rbar) on an interior row, at the entry t (x index lo + t) with t in [-1, n0]: rr the row
   of rbar (n0 interior faces), m1/p1 (and in 3D m2/p2) the rows -+ e_1 (-+ e_2), or a zero row
   where that row is off the interior; cx = -2 sum_b h2_b. */
static inline PetscReal FGDiffAdjEntry_Private(PetscInt t, PetscInt n0, const PetscReal *rr, const PetscReal *m1, const PetscReal *p1, const PetscReal *m2, const PetscReal *p2, const PetscReal h2[3], PetscReal cx, PetscBool three)
{
  PetscReal v;
  if (t < 0) return h2[0] * rr[0];
  if (t >= n0) return h2[0] * rr[n0 - 1];
  v = h2[0] * ((t > 0 ? rr[t - 1] : 0) + (t < n0 - 1 ? rr[t + 1] : 0)) + cx * rr[t] + h2[1] * (m1[t] + p1[t]);
  if (three) v += h2[2] * (m2[t] + p2[t]);
  return v;
}

/* One interior row: ba[t] += nu (L^T rbar)(t), and with ua non-NULL acc[t] += (L^T rbar)(t) ua[t]
   (the terms of nubar, summed per column so that the loop vectorizes), for t in [-1, n0]: the
   ends apart, the middle in one loop. */
static void FGDiffAdjRow_Private(PetscInt n0, const PetscReal *restrict rr, const PetscReal *restrict m1, const PetscReal *restrict p1, const PetscReal *restrict m2, const PetscReal *restrict p2, const PetscReal h2[3], PetscReal cx, PetscBool three, PetscReal nu, PetscScalar *restrict ba, const PetscScalar *restrict ua, PetscReal *restrict acc)
{
  const PetscInt  ends[4] = {-1, 0, n0 - 1, n0}, ne = n0 > 1 ? 4 : 3;
  const PetscReal h0 = h2[0], h1 = h2[1], hz = h2[2];
  for (PetscInt e = 0; e < ne; e++) {
    const PetscInt  t = e == 2 && n0 == 1 ? n0 : ends[e];
    const PetscReal v = FGDiffAdjEntry_Private(t, n0, rr, m1, p1, m2, p2, h2, cx, three);
    ba[t] += nu * v;
    if (ua) acc[t] += v * ua[t];
  }
#define FG_MID(t) (h0 * (rr[(t) - 1] + rr[(t) + 1]) + cx * rr[t] + h1 * (m1[t] + p1[t]) + (three ? hz * (m2[t] + p2[t]) : 0.0))
  if (ua)
    for (PetscInt t = 1; t < n0 - 1; t++) {
      const PetscReal v = FG_MID(t);
      ba[t] += nu * v, acc[t] += v * ua[t];
    }
  else
    for (PetscInt t = 1; t < n0 - 1; t++) ba[t] += nu * FG_MID(t);
#undef FG_MID
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
/* The transpose on a grid with a stretched direction, in scatter form: each interior face's
   stencil transposed entry by entry (the gather form below is the uniform grid's). */
static PetscErrorCode FGOpDiffusionAdjointStretched_Private(FGGrid g, const FGBoundary *bc, PetscReal nu, Vec ul[], Vec rbar[], Vec ulbar[], PetscReal *nubar)
{
  const FGBox *bx = &g->box;
  PetscReal    dn = 0;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *r, *ua;
    PetscScalar       *ba;
    PetscInt           lo[3], hi[3];
    FGOpInteriorFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArrayRead(rbar[a], &r));
    PetscCall(VecGetArrayRead(ul[a], &ua));
    PetscCall(VecGetArray(ulbar[a], &ba));
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) {
          const PetscInt  c = FGBoxIndex(bx, i, j, k), idx[3] = {i, j, k};
          const PetscReal rb = r[FGBoxOwnedIndex(bx, i, j, k)], v = nu * rb;
          for (PetscInt b = 0; b < g->dim; b++) {
            const PetscInt sb = bx->s[b];
            PetscReal      cm, cp;
            FGOpDiffusionCoefficients(g, a, b, idx[b], &cm, &cp);
            ba[c + sb] += cp * v;
            ba[c - sb] += cm * v;
            ba[c] -= (cp + cm) * v;
            if (nubar) dn += rb * (cp * (ua[c + sb] - ua[c]) - cm * (ua[c] - ua[c - sb]));
          }
        }
    PetscCall(VecRestoreArray(ulbar[a], &ba));
    PetscCall(VecRestoreArrayRead(ul[a], &ua));
    PetscCall(VecRestoreArrayRead(rbar[a], &r));
  }
  if (nubar) *nubar += dn;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGOpDiffusionAdjoint(FGGrid g, const FGBoundary *bc, PetscReal nu, Vec ul[], Vec rbar[], Vec ulbar[], PetscReal *nubar)
{
  const FGBox    *bx  = &g->box;
  const PetscInt  dim = g->dim, nbuf = bx->ghi[0] - bx->glo[0];
  const PetscBool three = (PetscBool)(dim > 2);
  PetscReal       h2[3] = {0, 0, 0}, cx = 0, *zero, *acc;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_DiffusionAdjoint, 0, 0, 0, 0));
  if (!g->isuniform) {
    PetscCall(FGOpDiffusionAdjointStretched_Private(g, bc, nu, ul, rbar, ulbar, nubar));
    PetscCall(PetscLogEventEnd(FG_EVENT_DiffusionAdjoint, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscCalloc1(2 * nbuf + 4, &zero));
  acc = zero + nbuf + 1; /* the terms of nubar per column: acc[t] at x index lo + t, t in [-1, n0] */
  for (PetscInt b = 0; b < dim; b++) h2[b] = 1.0 / (g->h[b] * g->h[b]), cx -= 2.0 * h2[b];
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
          const PetscInt  c0 = FGBoxIndex(bx, lo[0], j, k), o = FGBoxOwnedIndex(bx, lo[0], j, k);
          if (!jin && !kin) continue; /* a corner row: no stencil reaches it */
          if (jin && kin) {           /* an interior row: the entries lo - 1 .. hi */
            const PetscScalar *rr = r + o;
            const PetscReal   *m1 = j > lo[1] ? rr - bx->os[1] : zero, *p1 = j + 1 < hi[1] ? rr + bx->os[1] : zero;
            const PetscReal   *m2 = zero, *p2 = zero;
            if (three) m2 = k > lo[2] ? rr - bx->os[2] : zero, p2 = k + 1 < hi[2] ? rr + bx->os[2] : zero;
            FGDiffAdjRow_Private(n0, rr, m1, p1, m2, p2, h2, cx, three, nu, ba + c0, ua ? ua + c0 : NULL, acc);
          } else { /* one row off the interior along b: the entries lo .. hi - 1 from its interior neighbour */
            const PetscInt     b  = jin ? 2 : 1, idx[3] = {0, j, k};
            const PetscScalar *rn = idx[b] < lo[b] ? r + o + bx->os[b] : r + o - bx->os[b];
            PetscScalar       *bo = ba + c0;
            const PetscReal    hb = h2[b];
            if (ua) {
              const PetscScalar *uo = ua + c0;
              for (PetscInt t = 0; t < n0; t++) {
                const PetscReal v = hb * rn[t];
                bo[t] += nu * v, acc[t] += v * uo[t];
              }
            } else
              for (PetscInt t = 0; t < n0; t++) bo[t] += nu * hb * rn[t];
          }
        }
    }
    if (nubar) {
      if (!empty)
        for (PetscInt t = -1; t <= n0; t++) dn += acc[t], acc[t] = 0;
      PetscCall(VecRestoreArrayRead(ul[a], &ua));
      *nubar += dn;
    }
    PetscCall(VecRestoreArray(ulbar[a], &ba));
    PetscCall(VecRestoreArrayRead(rbar[a], &r));
  }
  PetscCall(PetscFree(zero));
  PetscCall(PetscLogEventEnd(FG_EVENT_DiffusionAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The shell's terms (FGOpDiffusionShell) in one of two modes: forward, r_f += nu c (ula - ulb)(n)
   for each interior face f next to a boundary of b and its neighbour n across it (c: the
   coupling cm or cp of f along b); adjoint, ulabar(n) += nu c rbar_f and ulbbar(n) -= nu c rbar_f. */
static PetscErrorCode FGOpDiffusionShell_Private(FGGrid g, const FGBoundary *bc, PetscReal nu, PetscBool adjoint, Vec ula[], Vec ulb[], Vec r[])
{
  const FGBox *bx = &g->box;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar *ua, *ub, *rr;
    PetscInt     lo[3], hi[3];
    FGOpInteriorFaces(g, bc, a, lo, hi);
    if (adjoint) {
      PetscCall(VecGetArray(ula[a], &ua));
      PetscCall(VecGetArray(ulb[a], &ub));
      PetscCall(VecGetArrayRead(r[a], (const PetscScalar **)&rr));
    } else {
      PetscCall(VecGetArrayRead(ula[a], (const PetscScalar **)&ua));
      PetscCall(VecGetArrayRead(ulb[a], (const PetscScalar **)&ub));
      PetscCall(VecGetArray(r[a], &rr));
    }
    for (PetscInt b = 0; b < g->dim; b++) {
      if (g->periodic[b]) continue;
      for (PetscInt side = 0; side < 2; side++) {
        const PetscInt t = side ? g->n[b] - (b == a ? 2 : 1) : 0, sb = side ? bx->s[b] : -bx->s[b];
        PetscInt       l[3], h[3];
        PetscReal      cm, cp, c;
        if (t < lo[b] || t >= hi[b]) continue; /* not this rank's plane */
        for (PetscInt d = 0; d < 3; d++) l[d] = lo[d], h[d] = hi[d];
        l[b] = t, h[b] = t + 1;
        FGOpDiffusionCoefficients(g, a, b, t, &cm, &cp);
        if (g->uniform[b]) cm = cp = 1.0 / (g->h[b] * g->h[b]);
        c = nu * (side ? cp : cm);
        for (PetscInt k = l[2]; k < h[2]; k++)
          for (PetscInt j = l[1]; j < h[1]; j++) {
            const PetscInt cc = FGBoxIndex(bx, l[0], j, k) + sb, o = FGBoxOwnedIndex(bx, l[0], j, k);
            if (adjoint)
              for (PetscInt i = 0; i < h[0] - l[0]; i++) ua[cc + i] += c * rr[o + i], ub[cc + i] -= c * rr[o + i];
            else
              for (PetscInt i = 0; i < h[0] - l[0]; i++) rr[o + i] += c * (ua[cc + i] - ub[cc + i]);
          }
      }
    }
    if (adjoint) {
      PetscCall(VecRestoreArrayRead(r[a], (const PetscScalar **)&rr));
      PetscCall(VecRestoreArray(ulb[a], &ub));
      PetscCall(VecRestoreArray(ula[a], &ua));
    } else {
      PetscCall(VecRestoreArray(r[a], &rr));
      PetscCall(VecRestoreArrayRead(ulb[a], (const PetscScalar **)&ub));
      PetscCall(VecRestoreArrayRead(ula[a], (const PetscScalar **)&ua));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpDiffusionShell - rhs_a += nu (L(ula) - L(ulb)) on the interior faces, for two ghosted fields
  that agree on every interior face (owned or ghost): their difference lives on the boundary
  faces and the ghosts only, so L of it is one term per interior face next to a boundary and
  direction, the coupling across that boundary times the difference there: O(n^(d-1)) work. The
  implicit viscous term's change of the boundary data over a stage (src/step/rk3.c). Linear in
  (ula, ulb) and in nu.
@*/
PetscErrorCode FGOpDiffusionShell(FGGrid g, const FGBoundary *bc, PetscReal nu, Vec ula[], Vec ulb[], Vec rhs[])
{
  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_Diffusion, 0, 0, 0, 0));
  PetscCall(FGOpDiffusionShell_Private(g, bc, nu, PETSC_FALSE, ula, ulb, rhs));
  PetscCall(PetscLogEventEnd(FG_EVENT_Diffusion, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpDiffusionShellAdjoint - the transpose of FGOpDiffusionShell: ulabar += nu S^T rbar,
  ulbbar -= nu S^T rbar (ghosted, accumulated), S the shell's terms.
@*/
PetscErrorCode FGOpDiffusionShellAdjoint(FGGrid g, const FGBoundary *bc, PetscReal nu, Vec rbar[], Vec ulabar[], Vec ulbbar[])
{
  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_DiffusionAdjoint, 0, 0, 0, 0));
  PetscCall(FGOpDiffusionShell_Private(g, bc, nu, PETSC_TRUE, ulabar, ulbbar, rbar));
  PetscCall(PetscLogEventEnd(FG_EVENT_DiffusionAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
