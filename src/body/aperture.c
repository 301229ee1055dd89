/*
  A sharp wall's cut-cell continuity (body.<body>.apertures; docs/bodies.md): the apertures A_f
  that weight each face's flux in the projection's divergence, D (A u), and in its Poisson
  operator D A G (FGPoissonSetFaceWeights), with their design derivatives.

  The model. Take a column of faces of component a stacked along a tangential axis d (d != a) and
  a wall crossing it, the flow's profile linear in the distance from the wall (u_a = 0 there, a
  no-slip wall at rest). Let t be the wall's distance from a face across its span, in cells
  along d. Point sampling, u_f h, misses the exact flux of the face's open span by up to h^2 u'/8,
  and its derivative in the wall's position jumps by h u' each time a face crosses the wall: the
  staircase the forces of a sharp wall showed. The weights

    A(t) = g(t) / t,   g(t) = t^2 (15/8 - 3 t/4)                               0 <= t <= 1
                       g(t) = t + 3/4 s^3 - 11/8 s^2 + s/2 + 1/8,  s = t - 1    1 < t <= 2
                       g(t) = t                                                t > 2

  (A: 0 at the surface, 3/4 at half a cell, 9/8 at one, 1 from two) make the column's flux the
  exact integral of the profile over the open part of its spans, wherever the wall falls, and
  C1 in the wall's position. The faces inside hold the body's velocity, u_s = 0 for a body at
  rest, so their weight does not enter the flux; they mirror the outside's, A(|t|), so that A is
  continuous as a face crosses the surface (with A = 1 inside, the flux of a face crossing would
  jump by its velocity inside, O(eta), and the Poisson operator by the face's whole coupling;
  measured: a Taylor test of the sharp-walled cylinder with eta = 0.01 failed). In 3D a face spans two
  tangential axes: A is the product of the two factors (exact for a wall parallel to one of them).

  The distance. t = 2 phi_f / |phi(x + e_d) - phi(x - e_d)| (the face's level set over its
  centred difference along d, in cells of the neighbours' spacing): a plane's exact distance
  along d, smooth in the design wherever the axis is not parallel to the wall (there t -> oo and
  A = 1). The derivative of A in the level set at the face and at its two neighbours along each
  tangential axis is kept per face; the shape's derivative of phi at those points gives A's
  derivative in the body's parameters (FGBodiesApertureTangent, FGBodiesApertureAdjoint).

  A sharp wall's surface does not move (src/body/bodies.c), so the apertures depend on the
  body's shape parameters only and are built with its mask at t = 0 (FGBodyApertureBuild_Internal).
  Two bodies whose aperture bands overlap are refused (the product's derivative would mix them).
*/
#include "bodyimpl.h"

/* A(t) and dA/dt (t > 0; A(0) = 0, A'(0) = 15/8). */
static void FGApertureWeight_Private(PetscReal t, PetscReal *A, PetscReal *dA)
{
  if (t >= 2) {
    *A = 1, *dA = 0;
  } else if (t <= 1) {
    *A  = t * (15.0 / 8 - 0.75 * t);
    *dA = 15.0 / 8 - 1.5 * t;
  } else {
    const PetscReal s  = t - 1;
    const PetscReal g  = t + 0.75 * s * s * s - 11.0 / 8 * s * s + 0.5 * s + 0.125;
    const PetscReal dg = 1 + 2.25 * s * s - 2.75 * s + 0.5;
    *A  = g / t;
    *dA = (dg * t - g) / (t * t);
  }
}

/* The points a face's aperture reads: 0 the face, 1 + 2 m + side the neighbours along the m-th
   tangential axis (side 1: +). */
static void FGAperturePoint_Private(FGGrid g, PetscInt a, const PetscInt idx[], const PetscReal x[], PetscInt p, PetscReal y[])
{
  PetscInt m = (p - 1) / 2, d = -1;

  for (PetscInt e = 0; e < 3; e++) y[e] = x[e];
  if (p == 0) return;
  for (PetscInt e = 0, n = 0; e < g->dim; e++)
    if (e != a && n++ == m) d = e;
  FGBodySharpNeighbour_Internal(g, a, idx, d, (p - 1) % 2 ? 1 : -1, x, y);
}

/* Face idx of component a (at x, level set phi there): its aperture factor A and dA/dphi at the
   FG_APERTURE_POINTS points (0 where unused); *near: some axis has |t| < 2 (the face is listed). */
static PetscErrorCode FGApertureFace_Private(FGGrid g, FGShape shape, PetscInt a, const PetscInt idx[], const PetscReal x[], PetscReal phi, const PetscReal phn[], PetscReal *A, PetscReal dA[], PetscBool *near)
{
  PetscReal f[2] = {1, 1}, df[2] = {0, 0}, dt[2][3] = {{0, 0, 0}, {0, 0, 0}};

  PetscFunctionBeginUser;
  for (PetscInt p = 0; p < FG_APERTURE_POINTS; p++) dA[p] = 0;
  *near = PETSC_FALSE;
  for (PetscInt m = 0; m < g->dim - 1; m++) {
    PetscReal ym[3], yp[3], pm, pp, gq[3], del, t, sg;
    FGAperturePoint_Private(g, a, idx, x, 1 + 2 * m, ym);
    FGAperturePoint_Private(g, a, idx, x, 2 + 2 * m, yp);
    if (phn) pm = phn[2 * m], pp = phn[2 * m + 1];
    else {
      PetscCall(FGShapeLevelSet(shape, ym, &pm, gq, NULL));
      PetscCall(FGShapeLevelSet(shape, yp, &pp, gq, NULL));
    }
    del = pp - pm;
    if (PetscAbsReal(phi) >= PetscAbsReal(del)) continue; /* |t| >= 2 (or the axis parallel to the wall) */
    *near = PETSC_TRUE;
    t     = 2 * phi / PetscAbsReal(del); /* signed: < 0 inside, where the faces mirror the outside's */
    sg    = phi < 0 ? -1.0 : 1.0;
    FGApertureWeight_Private(sg * t, &f[m], &df[m]);
    df[m] *= sg;                         /* dA/dt */
    dt[m][0] = 2 / PetscAbsReal(del);    /* dt/dphi_f */
    dt[m][2] = -t / del;                 /* dt/dphi_+ = -2 phi sgn(del) / del^2 */
    dt[m][1] = t / del;                  /* dt/dphi_- */
  }
  *A = f[0] * f[1];
  for (PetscInt m = 0; m < g->dim - 1; m++) {
    const PetscReal o = f[1 - m]; /* the other axis's factor */
    dA[0] += o * df[m] * dt[m][0];
    dA[1 + 2 * m] += o * df[m] * dt[m][1];
    dA[2 + 2 * m] += o * df[m] * dt[m][2];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Face idx of component a (at x, level set phi there; phn: at its points 1, 2, ... if known, or NULL):
   this body's aperture alone, and (dA, y: NULL when not wanted) dA/dphi at the FG_APERTURE_POINTS
   points y it reads (lineflux.c). */
PetscErrorCode FGBodyApertureAt_Internal(FGGrid g, FGShape shape, PetscInt a, const PetscInt idx[], const PetscReal x[], PetscReal phi, const PetscReal phn[], PetscReal *A, PetscReal dA[], PetscReal y[][3])
{
  PetscReal dl[FG_APERTURE_POINTS];
  PetscBool near;

  PetscFunctionBeginUser;
  PetscCall(FGApertureFace_Private(g, shape, a, idx, x, phi, phn, A, dA ? dA : dl, &near));
  for (PetscInt p = 0; y && p < FG_APERTURE_POINTS; p++) FGAperturePoint_Private(g, a, idx, x, p, y[p]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGApertureListReserve_Private(FGApertureList *l, PetscInt n)
{
  PetscFunctionBeginUser;
  if (n <= l->cap) PetscFunctionReturn(PETSC_SUCCESS);
  {
    PetscInt   cap = PetscMax(2 * l->cap, PetscMax(n, 64)), *off, *idx;
    PetscReal *x, *A, *dA;
    PetscCall(PetscMalloc5(cap, &off, 3 * cap, &idx, 3 * cap, &x, cap, &A, FG_APERTURE_POINTS * cap, &dA));
    if (l->n) {
      PetscCall(PetscArraycpy(off, l->off, l->n));
      PetscCall(PetscArraycpy(idx, l->idx, 3 * l->n));
      PetscCall(PetscArraycpy(x, l->x, 3 * l->n));
      PetscCall(PetscArraycpy(A, l->A, l->n));
      PetscCall(PetscArraycpy(dA, l->dA, FG_APERTURE_POINTS * l->n));
    }
    PetscCall(PetscFree5(l->off, l->idx, l->x, l->A, l->dA));
    l->off = off, l->idx = idx, l->x = x, l->A = A, l->dA = dA, l->cap = cap;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGApertureListFree_Internal(FGApertureList *l)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree5(l->off, l->idx, l->x, l->A, l->dA));
  l->n = l->cap = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The apertures of every body that has them, into B->A (global) and B->Al (ghosted, 1 outside the
   domain). Collective. */
PetscErrorCode FGBodiesApertureBuild_Internal(FGBodies B)
{
  FGGrid   g   = B->g;
  PetscInt dim = g->dim, clash = 0;

  PetscFunctionBeginUser;
  if (!B->apertures) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt a = 0; a < dim; a++) {
    if (!B->A[a]) {
      PetscCall(DMCreateGlobalVector(g->da, &B->A[a]));
      PetscCall(DMCreateLocalVector(g->da, &B->Al[a]));
      PetscCall(DMCreateGlobalVector(g->da, &B->dA[a]));
    }
    PetscCall(VecSet(B->A[a], 1.0));
    PetscCall(VecSet(B->dA[a], 0.0));
  }
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem *it = &B->b[b];
    PetscReal   bl[3], bh[3], lo[3], hi[3];
    if (!it->bc->apertures) continue;
    PetscCall(FGShapeBoundingBox(it->shape, bl, bh));
    for (PetscInt d = 0; d < 3; d++) { /* t < 2 lies within 2 cells of the surface along an axis */
      lo[d] = d < dim ? bl[d] - it->reach - 3 * it->h : 0;
      hi[d] = d < dim ? bh[d] + it->reach + 3 * it->h : 0;
    }
    for (PetscInt a = 0; a < dim; a++) {
      FGApertureList *l = &it->ap[a];
      PetscScalar    *Av, *mark;
      PetscInt        flo[3], fhi[3];
      FGBodyFaceRange_Internal(B, a, lo, hi, flo, fhi);
      l->n = 0;
      PetscCall(VecGetArray(B->A[a], &Av));
      PetscCall(VecGetArray(B->dA[a], &mark)); /* the faces an earlier body listed */
      for (PetscInt k = flo[2]; k < fhi[2]; k++)
        for (PetscInt j = flo[1]; j < fhi[1]; j++)
          for (PetscInt i = flo[0]; i < fhi[0]; i++) {
            const PetscInt idx[3] = {i, j, k};
            PetscReal      x[3]   = {0, 0, 0}, phi, gx[3], A = 1, dA[FG_APERTURE_POINTS];
            PetscBool      near;
            for (PetscInt d = 0; d < dim; d++) x[d] = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]);
            PetscCall(FGShapeLevelSet(it->shape, x, &phi, gx, NULL));
            PetscCall(FGApertureFace_Private(g, it->shape, a, idx, x, phi, NULL, &A, dA, &near));
            if (!near) continue;
            PetscCall(FGApertureListReserve_Private(l, l->n + 1));
            l->off[l->n] = FGBoxOwnedIndex(&g->box, i, j, k);
            if (PetscRealPart(mark[l->off[l->n]]) != 0) clash++;
            mark[l->off[l->n]] = 1;
            Av[l->off[l->n]] *= A;
            l->A[l->n] = A;
            for (PetscInt d = 0; d < 3; d++) l->idx[3 * l->n + d] = idx[d], l->x[3 * l->n + d] = x[d];
            PetscCall(PetscArraycpy(l->dA + FG_APERTURE_POINTS * l->n, dA, FG_APERTURE_POINTS));
            l->n++;
          }
      PetscCall(VecRestoreArray(B->dA[a], &mark));
      PetscCall(VecRestoreArray(B->A[a], &Av));
    }
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &clash, 1, MPIU_INT, MPI_SUM, g->comm));
  PetscCheck(!clash, g->comm, FG_ERR_INPUT, "two bodies with apertures (body.<body>.apertures) lie within 2 cells of each other at %" PetscInt_FMT " faces: their cut cells overlap, which is not supported; move them apart or refine the grid", clash);
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecSet(B->Al[a], 1.0)); /* the ghosts outside the domain stay 1 */
    PetscCall(DMGlobalToLocal(g->da, B->A[a], INSERT_VALUES, B->Al[a]));
  }
  PetscCall(FGBodiesLineFluxBuild_Internal(B)); /* the lines' continuity, where a body has it, grazes into these */
  PetscCall(FGBodiesSharedGhostBuild_Internal(B)); /* and the shared ghost goes with the lines */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetApertures - the faces' apertures of the bodies' cut-cell continuity (ghosted Vecs laid
  out like the velocity components, 1 away from the bodies), or NULL when no body has them. They
  change when a body's parameters do (FGBodiesSetParameters); the Vecs stay the same.

  Not collective.
@*/
PetscErrorCode FGBodiesGetApertures(FGBodies B, Vec **Al)
{
  PetscFunctionBeginUser;
  *Al = B && B->apertures ? B->Al : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The shape's derivative of phi at point p of aperture face f (gq: FG_SHAPE_MAX_PARAMS), and
   |grad phi| there. */
static PetscErrorCode FGAperturePointSens_Private(FGBodies B, FGBodyItem *it, PetscInt a, const FGApertureList *l, PetscInt f, PetscInt p, PetscReal gq[], PetscReal *gn)
{
  PetscReal y[3], phi, gy[3] = {0, 0, 0}, q = 0;

  PetscFunctionBeginUser;
  FGAperturePoint_Private(B->g, a, l->idx + 3 * f, l->x + 3 * f, p, y);
  PetscCall(FGShapeLevelSet(it->shape, y, &phi, gy, gq));
  for (PetscInt e = 0; e < B->g->dim; e++) q += gy[e] * gy[e];
  *gn = PetscSqrtReal(q);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesApertureTangent - dAl (ghosted, overwritten) = the apertures' perturbation for the
  bodies' parameter perturbations dtheta[b] (theta_b layout; NULL: none, dAl = 0). Collective.
@*/
PetscErrorCode FGBodiesApertureTangent(FGBodies B, PetscReal *const dtheta[], Vec dAl[])
{
  FGGrid g = B->g;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar *d;
    PetscCall(VecSet(B->dA[a], 0.0));
    PetscCall(VecGetArray(B->dA[a], &d));
    for (PetscInt b = 0; b < B->nb && dtheta; b++) {
      FGBodyItem           *it = &B->b[b];
      const FGApertureList *l  = &it->ap[a];
      if (!it->bc->apertures || !dtheta[b]) continue;
      for (PetscInt f = 0; f < l->n; f++) {
        const PetscReal *dA = l->dA + FG_APERTURE_POINTS * f;
        PetscReal        s  = 0;
        for (PetscInt p = 0; p < FG_APERTURE_POINTS; p++) {
          PetscReal gq[FG_SHAPE_MAX_PARAMS], gn;
          if (dA[p] == 0) continue;
          PetscCall(FGAperturePointSens_Private(B, it, a, l, f, p, gq, &gn));
          for (PetscInt k = 0; k < it->np; k++) s += dA[p] * gq[k] * dtheta[b][k];
        }
        d[l->off[f]] += s;
      }
    }
    PetscCall(VecRestoreArray(B->dA[a], &d));
    PetscCall(VecSet(dAl[a], 0.0));
    PetscCall(DMGlobalToLocal(g->da, B->dA[a], INSERT_VALUES, dAl[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesApertureAdjoint - the transpose of FGBodiesApertureTangent: Abarl (ghosted, the
  apertures' adjoint with the ghosts' parts not yet summed; zeroed on return) gives
  thetabar[b] += its local part (NULL: not wanted) and sens[a] (NULL: not wanted) += the adjoint
  times dA/dn, the derivative under an outward normal displacement of the surface (at each face,
  its points' parts summed; as FGBodiesPenalizeAdjoint does for chi). Collective.
@*/
PetscErrorCode FGBodiesApertureAdjoint(FGBodies B, Vec Abarl[], PetscReal *const thetabar[], Vec sens[])
{
  FGGrid g = B->g;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *ab;
    PetscScalar       *sb = NULL;
    PetscCall(VecSet(B->dA[a], 0.0));
    PetscCall(DMLocalToGlobal(g->da, Abarl[a], ADD_VALUES, B->dA[a]));
    PetscCall(VecSet(Abarl[a], 0.0));
    PetscCall(VecGetArrayRead(B->dA[a], &ab));
    if (sens) PetscCall(VecGetArray(sens[a], &sb));
    for (PetscInt b = 0; b < B->nb; b++) {
      FGBodyItem           *it = &B->b[b];
      const FGApertureList *l  = &it->ap[a];
      if (!it->bc->apertures) continue;
      for (PetscInt f = 0; f < l->n; f++) {
        const PetscReal *dA = l->dA + FG_APERTURE_POINTS * f, w = PetscRealPart(ab[l->off[f]]);
        if (w == 0) continue;
        for (PetscInt p = 0; p < FG_APERTURE_POINTS; p++) {
          PetscReal gq[FG_SHAPE_MAX_PARAMS], gn;
          if (dA[p] == 0) continue;
          PetscCall(FGAperturePointSens_Private(B, it, a, l, f, p, gq, &gn));
          if (thetabar && thetabar[b])
            for (PetscInt k = 0; k < it->np; k++) thetabar[b][k] += w * dA[p] * gq[k];
          if (sb) sb[l->off[f]] -= w * dA[p] * gn; /* phi changes by -V_n |grad phi| */
        }
      }
    }
    if (sens) PetscCall(VecRestoreArray(sens[a], &sb));
    PetscCall(VecRestoreArrayRead(B->dA[a], &ab));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
