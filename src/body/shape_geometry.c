/*
  What a parameterized shape (shape.c) measures, with exact derivatives: an axis-aligned box that
  contains it (from its parameters and curve points), and geometric functionals of its mask
  \chi = H_\epsilon(-\phi) on a sample grid (cell centres x_i, cell volume \Delta V):

    A = \sum \chi_i \Delta V,   x_c = \sum \chi_i x_i \Delta V / A,
    P = \sum_{interior} (sqrt(|g_i|^2 + \delta^2) - \delta) \Delta V,  g_i = central difference of \chi

  (the perimeter is the total variation of the discrete mask that the solver sees), each
  differentiated through \partial\chi_i/\partial p (FGShapeMask). The airfoil thickness, computed
  in the dual numbers of the level sets, is in shape.c.
*/
#include "shapeimpl.h"

/* Point i of M samples of the section's boundary in the x-y plane, in global coordinates (x[2],
   where 3D, the placement's z0): an angle 2 pi i/M (circle, ellipse, Fourier; spheres and
   ellipsoids: their section through the centre), the curve parameter n i/M (B-spline) or
   t = -1 + 2 i/(M - 1) (airfoils: the trailing edge at both ends). */
static PetscErrorCode FGShapeSectionPoint_Private(FGShape s, PetscInt i, PetscInt M, PetscReal x[])
{
  const PetscReal *q  = s->p + s->nplace;
  const PetscReal  th = s->p[s->dim] * (FGShapeIsAirfoil_Internal(s->section) ? -1.0 : 1.0), a = 2 * PETSC_PI * i / M;

  PetscFunctionBeginUser;
  switch (s->section) {
  case FG_SHAPE_CIRCLE:
  case FG_SHAPE_SPHERE:
  case FG_SHAPE_ELLIPSE:
  case FG_SHAPE_ELLIPSOID: { /* (A cos a, B sin a) in the body's axes, rotated by th */
    const PetscBool round = (PetscBool)(s->section == FG_SHAPE_CIRCLE || s->section == FG_SHAPE_SPHERE);
    const PetscReal A = q[0] * PetscCosReal(a), B = (round ? q[0] : q[1]) * PetscSinReal(a);
    x[0]              = s->p[0] + PetscCosReal(th) * A - PetscSinReal(th) * B;
    x[1]              = s->p[1] + PetscSinReal(th) * A + PetscCosReal(th) * B;
  } break;
  case FG_SHAPE_FOURIER: {
    PetscReal r = q[0];
    for (PetscInt k = 1; k <= s->nk; k++) r += q[k] * PetscCosReal(k * a) + q[s->nk + k] * PetscSinReal(k * a);
    x[0] = s->p[0] + r * PetscCosReal(a + th);
    x[1] = s->p[1] + r * PetscSinReal(a + th);
  } break;
  case FG_SHAPE_BSPLINE:
    PetscCall(FGShapeCurvePoint(s, (PetscReal)s->nk * i / M, x));
    break;
  default: /* airfoils */
    PetscCall(FGShapeCurvePoint(s, -1.0 + 2.0 * i / (M - 1), x));
  }
  if (s->dim == 3) x[2] = s->p[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeBoundingBox - An axis-aligned box that contains the body {phi <= 0}, in global coordinates.

  Not Collective

  Output Parameters:
+ lo - lower corner (dim entries)
- hi - upper corner

  Notes:
  Exact for circles, spheres, ellipses and ellipsoids; the others take the box of 4096 boundary
  samples (curve points, r(theta)), widened by 1e-3 of its size for what lies between samples.
  An extruded shape is unbounded along z (lo[2] = -inf, hi[2] = +inf). Call FGShapeValidate() first.
@*/
PetscErrorCode FGShapeBoundingBox(FGShape s, PetscReal lo[], PetscReal hi[])
{
  const PetscReal *q  = s->p + s->nplace;
  PetscReal        th = s->p[s->dim] * (FGShapeIsAirfoil_Internal(s->section) ? -1.0 : 1.0), c = PetscCosReal(th), sn = PetscSinReal(th);

  PetscFunctionBeginUser;
  switch (s->section) {
  case FG_SHAPE_CIRCLE:
  case FG_SHAPE_SPHERE:
    for (PetscInt d = 0; d < 2; d++) lo[d] = s->p[d] - q[0], hi[d] = s->p[d] + q[0];
    if (s->section == FG_SHAPE_SPHERE) lo[2] = s->p[2] - q[0], hi[2] = s->p[2] + q[0];
    break;
  case FG_SHAPE_ELLIPSE:
  case FG_SHAPE_ELLIPSOID: { /* the rotated ellipse (a cos t, b sin t) spans sqrt(a^2 c^2 + b^2 s^2) along x */
    PetscReal wx = PetscSqrtReal(q[0] * q[0] * c * c + q[1] * q[1] * sn * sn), wy = PetscSqrtReal(q[0] * q[0] * sn * sn + q[1] * q[1] * c * c);
    lo[0] = s->p[0] - wx, hi[0] = s->p[0] + wx;
    lo[1] = s->p[1] - wy, hi[1] = s->p[1] + wy;
    if (s->section == FG_SHAPE_ELLIPSOID) lo[2] = s->p[2] - q[2], hi[2] = s->p[2] + q[2];
  } break;
  default: { /* Fourier and curves: boundary samples */
    const PetscInt M = 4096;
    PetscReal      x[3], pad;
    lo[0] = lo[1] = PETSC_MAX_REAL;
    hi[0] = hi[1] = PETSC_MIN_REAL;
    for (PetscInt i = 0; i < M; i++) {
      PetscCall(FGShapeSectionPoint_Private(s, i, M, x));
      for (PetscInt d = 0; d < 2; d++) lo[d] = PetscMin(lo[d], x[d]), hi[d] = PetscMax(hi[d], x[d]);
    }
    pad = 1e-3 * PetscMax(hi[0] - lo[0], hi[1] - lo[1]);
    for (PetscInt d = 0; d < 2; d++) lo[d] -= pad, hi[d] += pad;
  } break;
  }
  if (s->kind == FG_SHAPE_EXTRUDED) lo[2] = PETSC_MIN_REAL, hi[2] = PETSC_MAX_REAL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeOutline - M points of the boundary {phi = 0} in the x-y plane, in order along it: the
  outline that pictures draw (exact points of the shape, not a contour of sampled values).

  Not Collective

  Output Parameter:
. xy - 2 M values x0, y0, x1, y1, ...

  Notes:
  Closed curves (circle, ellipse, Fourier, B-spline) at M parameters of one period (the polyline
  closes from the last point to the first); airfoils from the trailing edge along the lower surface
  to the leading edge and back along the upper surface (t = -1 .. 1, t^2 the chord fraction, which
  clusters the points at the leading edge). 3D: the section in the plane z = z0 (spheres and
  ellipsoids: through their centre; extrusions: their section, at every z).
@*/
PetscErrorCode FGShapeOutline(FGShape s, PetscInt M, PetscReal xy[])
{
  PetscReal x[3];

  PetscFunctionBeginUser;
  PetscCheck(M >= 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "an outline needs at least 3 points, not %" PetscInt_FMT, M);
  for (PetscInt i = 0; i < M; i++) {
    PetscCall(FGShapeSectionPoint_Private(s, i, M, x));
    xy[2 * i] = x[0], xy[2 * i + 1] = x[1];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Geometric functionals on a sample grid */

static PetscInt GridSize_Private(const FGSampleGrid *g)
{
  PetscInt N = 1;
  for (PetscInt d = 0; d < g->dim; d++) N *= g->n[d];
  return N;
}

static void GridPoint_Private(const FGSampleGrid *g, PetscInt idx, PetscReal x[3])
{
  for (PetscInt d = 0; d < g->dim; d++) {
    x[d] = g->lo[d] + (idx % g->n[d] + 0.5) * g->h[d];
    idx /= g->n[d];
  }
}

static PetscReal GridVolume_Private(const FGSampleGrid *g)
{
  PetscReal dV = 1;
  for (PetscInt d = 0; d < g->dim; d++) dV *= g->h[d];
  return dV;
}

/*@C
  FGShapeMaskGrid - The mask and its parameter derivatives at every point of a sample grid.

  Input Parameters:
+ s   - the shape (its dimension must equal g->dim)
. g   - the sample grid; point index i + n0 (j + n1 k), x fastest
- eps - smoothing half-width

  Output Parameters:
+ chi  - N values
- dchi - N x np values, dchi[i*np + k] = d chi_i / d p_k, or NULL
@*/
PetscErrorCode FGShapeMaskGrid(FGShape s, const FGSampleGrid *g, PetscReal eps, PetscReal chi[], PetscReal dchi[])
{
  PetscInt  N = GridSize_Private(g);
  PetscReal x[3];

  PetscFunctionBeginUser;
  PetscCheck(g->dim == s->dim, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "shape '%s' is %" PetscInt_FMT "D, sample grid %" PetscInt_FMT "D", s->name, s->dim, g->dim);
  for (PetscInt i = 0; i < N; i++) {
    GridPoint_Private(g, i, x);
    PetscCall(FGShapeMask(s, eps, x, &chi[i], NULL, dchi ? dchi + i * s->np : NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeArea - Area (2D) or volume (3D) A = sum chi_i dV of the smoothed mask, and dA/dp.
@*/
PetscErrorCode FGShapeArea(FGShape s, const FGSampleGrid *g, PetscReal eps, PetscReal *A, PetscReal dA[])
{
  PetscInt   N = GridSize_Private(g), np = s->np;
  PetscReal  dV = GridVolume_Private(g), *chi, *dchi;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(N, &chi, N * np, &dchi));
  PetscCall(FGShapeMaskGrid(s, g, eps, chi, dchi));
  *A = 0;
  if (dA) PetscCall(PetscArrayzero(dA, np));
  for (PetscInt i = 0; i < N; i++) {
    *A += chi[i] * dV;
    if (dA)
      for (PetscInt k = 0; k < np; k++) dA[k] += dchi[i * np + k] * dV;
  }
  PetscCall(PetscFree2(chi, dchi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeCentroid - Centroid x_c = sum chi_i x_i dV / A of the smoothed mask and its derivatives.

  Output Parameters:
+ xc  - dim values
- dxc - dim x np values, dxc[d*np + k] = d xc_d / d p_k, or NULL
@*/
PetscErrorCode FGShapeCentroid(FGShape s, const FGSampleGrid *g, PetscReal eps, PetscReal xc[], PetscReal dxc[])
{
  PetscInt  N = GridSize_Private(g), np = s->np, dim = g->dim;
  PetscReal dV = GridVolume_Private(g), *chi, *dchi, A = 0, dA[FG_SHAPE_MAX_PARAMS] = {0}, M[3] = {0}, dM[3][FG_SHAPE_MAX_PARAMS] = {{0}}, x[3];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(N, &chi, N * np, &dchi));
  PetscCall(FGShapeMaskGrid(s, g, eps, chi, dchi));
  for (PetscInt i = 0; i < N; i++) {
    GridPoint_Private(g, i, x);
    A += chi[i] * dV;
    for (PetscInt k = 0; k < np; k++) dA[k] += dchi[i * np + k] * dV;
    for (PetscInt d = 0; d < dim; d++) {
      M[d] += chi[i] * x[d] * dV;
      for (PetscInt k = 0; k < np; k++) dM[d][k] += dchi[i * np + k] * x[d] * dV;
    }
  }
  PetscCall(PetscFree2(chi, dchi));
  PetscCheck(A > 0, PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s': no part of the body on the sample grid", s->name);
  for (PetscInt d = 0; d < dim; d++) {
    xc[d] = M[d] / A;
    if (dxc)
      for (PetscInt k = 0; k < np; k++) dxc[d * np + k] = (dM[d][k] - xc[d] * dA[k]) / A;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapePerimeter - Perimeter (2D) or surface area (3D) as the total variation of the mask on
  the sample grid, P = sum_interior (sqrt(|g_i|^2 + delta^2) - delta) dV, g_i the central
  difference gradient of chi, and dP/dp.

  Input Parameters:
+ s, g, eps - the shape, sample grid, smoothing half-width
- delta     - smoothing of the norm (> 0; e.g. 1e-6/h): P is C^1 in p

  Notes:
  The band must lie inside the grid (points on the grid boundary are not centres of a stencil).
  Converges to the true perimeter as h/eps -> 0 and eps -> 0.
@*/
PetscErrorCode FGShapePerimeter(FGShape s, const FGSampleGrid *g, PetscReal eps, PetscReal delta, PetscReal *P, PetscReal dP[])
{
  PetscInt  N = GridSize_Private(g), np = s->np, dim = g->dim, str[3] = {1, g->n[0], g->n[0] * g->n[1]};
  PetscReal dV = GridVolume_Private(g), *chi, *dchi;

  PetscFunctionBeginUser;
  PetscCheck(delta > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "perimeter: delta must be positive");
  PetscCall(PetscMalloc2(N, &chi, N * np, &dchi));
  PetscCall(FGShapeMaskGrid(s, g, eps, chi, dchi));
  *P = 0;
  if (dP) PetscCall(PetscArrayzero(dP, np));
  for (PetscInt i = 0; i < N; i++) {
    PetscInt  idx = i, ijk[3];
    PetscBool interior = PETSC_TRUE;
    PetscReal gr[3], g2 = 0, nrm;
    for (PetscInt d = 0; d < dim; d++) {
      ijk[d] = idx % g->n[d];
      idx /= g->n[d];
      if (ijk[d] == 0 || ijk[d] == g->n[d] - 1) interior = PETSC_FALSE;
    }
    if (!interior) continue;
    for (PetscInt d = 0; d < dim; d++) {
      gr[d] = (chi[i + str[d]] - chi[i - str[d]]) / (2 * g->h[d]);
      g2 += gr[d] * gr[d];
    }
    if (g2 == 0) continue;
    nrm = PetscSqrtReal(g2 + delta * delta);
    *P += (nrm - delta) * dV;
    if (dP)
      for (PetscInt k = 0; k < np; k++) {
        PetscReal t = 0;
        for (PetscInt d = 0; d < dim; d++) t += gr[d] * (dchi[(i + str[d]) * np + k] - dchi[(i - str[d]) * np + k]) / (2 * g->h[d]);
        dP[k] += t / nrm * dV;
      }
  }
  PetscCall(PetscFree2(chi, dchi));
  PetscFunctionReturn(PETSC_SUCCESS);
}
