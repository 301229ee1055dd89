/*
  A sharp wall's line-flux continuity (body.<body>.line_flux; docs/bodies.md, "A continuity exact
  cell by cell: lines"): a sparse operator W on the faces that replaces the apertures' diagonal in
  the projection. The projection then makes D W u zero, with the correction u -= gdt M^-1 W^T M G phi
  (M the faces' volumes) and the Poisson operator D W M^-1 W^T M G (src/solver/continuity.c,
  src/pressure/poisson_ksp.c).

  The model. Take the line of faces of component a along a tangential axis e (2D: e = 1 - a) and
  the wall crossing it at s_w (the root of phi on the line, found by bisection). A face whose span
  the wall cuts (its centre within half a span of the wall outside, or up to 3/2 spans inside)
  takes as its flux over the span the integral, over the span's open part, of the quadratic along
  the line through u = 0 at the wall and the next two faces out, blended C1 (a quintic smoother in
  2 tau, tau the centre's distance from the wall in spans) into the quadratic through the wall, the
  face and the next face; as the centre reaches half a span outside, a midpoint correction
  L^2 P''/24 fades in (a cubic smoother), so that the flux is u_f there and beyond: the weights are
  C1 in the wall's position. The faces inside ramp back to 1 between tau = -1/2 and -3/2 (they
  hold the body's velocity, 0), with a floor of 10^-3 near the wall that keeps the operator regular
  inside. Lines that graze the wall (|cos| of the angle between the line and the wall's normal
  under 0.4) blend into the apertures (aperture.c) over |cos| 0.2 to 0.4, where the root moves
  fast along the line. Faces with no root within three faces along the line keep their aperture.
  tests/validation/aperture_model.py ("lines") is the same scheme in a scalar model: its error per
  cut cell is first order and 20-140x below the apertures'.

  W - I is kept per velocity component as a parallel AIJ matrix on the grid's global layout
  (rows: the owned faces; a row reads its face and the next two along the line, on any rank).
  The body must be at rest (the quadratics pass through u = 0 at the wall); 2D only; the design
  derivative of W is not built (shape parameters of such a body are refused by the case's checks).
*/
#include "bodyimpl.h"

#define FG_LF_SEARCH 3     /* faces searched each side along the line for the wall */
#define FG_LF_FLOOR  1e-3  /* the inside faces' floor */
#define FG_LF_COS0   0.2   /* grazing lines: the apertures below, the lines above FG_LF_COS1 */
#define FG_LF_COS1   0.4

static PetscReal FGStep3_Private(PetscReal z)
{
  z = PetscMin(PetscMax(z, 0.0), 1.0);
  return z * z * (3 - 2 * z);
}

static PetscReal FGStep5_Private(PetscReal z)
{
  z = PetscMin(PetscMax(z, 0.0), 1.0);
  return z * z * z * (10 - 15 * z + 6 * z * z);
}

/* phi at x with its coordinate e replaced by s. */
static PetscErrorCode FGLinePhi_Private(FGShape shape, const PetscReal x[], PetscInt e, PetscReal s, PetscReal *phi, PetscReal gx[])
{
  PetscReal y[3] = {x[0], x[1], x[2]}, g[3];

  PetscFunctionBeginUser;
  y[e] = s;
  PetscCall(FGShapeLevelSet(shape, y, phi, gx ? gx : g, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The quadratic c1 s + c2 s^2 through (0, 0), (s1, v1), (s2, v2): the coefficients of v1 and v2 in
   its integral over [0, hi] (In) and in its second derivative (P2). */
static void FGLineQuadratic_Private(PetscReal s1, PetscReal s2, PetscReal hi, PetscReal In[2], PetscReal P2[2])
{
  const PetscReal det = s1 * s2 * (s2 - s1), I1 = hi * hi / 2, I2 = hi * hi * hi / 3;

  In[0] = (s2 * s2 * I1 - s2 * I2) / det;
  In[1] = (-s1 * s1 * I1 + s1 * I2) / det;
  P2[0] = -2 * s2 / det;
  P2[1] = 2 * s1 / det;
}

/* The nearest wall crossing on the line through face idx (at x) along e within FG_LF_SEARCH faces:
   *side = +1 (the outside, phi > 0, at larger s) or -1, 0 if none; *sw its position and *cosw the
   |cosine| between the line and the normal there. *edge: the search met the domain's end. */
static PetscErrorCode FGLineRoot_Private(FGGrid g, FGShape shape, PetscInt a, PetscInt e, const PetscInt idx[], const PetscReal x[], PetscInt *side, PetscReal *sw, PetscReal *cosw)
{
  const FGLocation loc = (FGLocation)(FG_LOC_FACE_X + a);
  PetscReal        pos[2 * FG_LF_SEARCH + 1], ph[2 * FG_LF_SEARCH + 1], best = PETSC_MAX_REAL;
  PetscInt         lo = -FG_LF_SEARCH, hi = FG_LF_SEARCH;

  PetscFunctionBeginUser;
  *side = 0, *sw = 0, *cosw = 0;
  if (!g->periodic[e]) lo = PetscMax(lo, -idx[e]), hi = PetscMin(hi, g->n[e] - 1 - idx[e]);
  for (PetscInt m = lo; m <= hi; m++) {
    pos[m + FG_LF_SEARCH] = FGGridCoordinate(g, loc, e, idx[e] + m);
    PetscCall(FGLinePhi_Private(shape, x, e, pos[m + FG_LF_SEARCH], &ph[m + FG_LF_SEARCH], NULL));
  }
  for (PetscInt m = lo; m < hi; m++) {
    PetscReal a0 = pos[m + FG_LF_SEARCH], a1 = pos[m + FG_LF_SEARCH + 1], f0 = ph[m + FG_LF_SEARCH], f1 = ph[m + FG_LF_SEARCH + 1], r;
    if ((f0 > 0) == (f1 > 0)) continue;
    for (PetscInt it = 0; it < 200 && a1 - a0 > 1e-15 * PetscMax(1.0, PetscAbsReal(a0)); it++) { /* bisection: robust for any shape */
      PetscReal am = 0.5 * (a0 + a1), fm;
      PetscCall(FGLinePhi_Private(shape, x, e, am, &fm, NULL));
      if ((fm > 0) == (f0 > 0)) a0 = am, f0 = fm;
      else a1 = am, f1 = fm;
    }
    r = 0.5 * (a0 + a1);
    if (PetscAbsReal(r - x[e]) < best) {
      PetscReal pr, gr[3], gn = 0;
      PetscCall(FGLinePhi_Private(shape, x, e, r, &pr, gr));
      for (PetscInt d = 0; d < g->dim; d++) gn += gr[d] * gr[d];
      best = PetscAbsReal(r - x[e]), *sw = r, *side = ph[m + FG_LF_SEARCH + 1] > 0 ? 1 : -1;
      *cosw = gn > 0 ? PetscAbsReal(gr[e]) / PetscSqrtReal(gn) : 0;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Face idx's row of W: c[k] the weight of the face k along the line on the outside (k = 0 the face
   itself). Aap: the face's aperture. *trivial: the row is the identity's. */
static PetscErrorCode FGLineFluxRow_Private(FGGrid g, FGShape shape, PetscInt a, const PetscInt idx[], const PetscReal x[], PetscReal Aap, PetscInt *side, PetscReal c[3], PetscBool *trivial)
{
  const PetscInt   e   = 1 - a;
  const FGLocation loc = (FGLocation)(FG_LOC_FACE_X + a), eloc = (FGLocation)(FG_LOC_FACE_X + e);
  PetscReal        sw, cosw, w, t, L, tau, spanlo, spanhi;

  PetscFunctionBeginUser;
  c[0] = 1, c[1] = c[2] = 0;
  PetscCall(FGLineRoot_Private(g, shape, a, e, idx, x, side, &sw, &cosw));
  if (!*side) { /* no wall on the line nearby: the aperture */
    c[0]     = Aap;
    *trivial = (PetscBool)(Aap == 1.0);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  w      = FGStep3_Private((cosw - FG_LF_COS0) / (FG_LF_COS1 - FG_LF_COS0));
  t      = *side * (x[e] - sw); /* the centre's distance from the wall, > 0 outside */
  spanlo = FGGridCoordinate(g, eloc, e, idx[e] - 1);
  spanhi = FGGridCoordinate(g, eloc, e, idx[e]);
  L      = spanhi - spanlo;
  tau    = t / L;
  if (tau >= 0.5 || tau <= -1.5) c[0] = 1;
  else if (tau <= -0.5) c[0] = FGStep3_Private(-tau - 0.5);
  else {
    const PetscReal hiS  = *side > 0 ? spanhi - sw : sw - spanlo; /* the open part is [0, hiS] from the wall */
    const PetscReal s1   = *side * (FGGridCoordinate(g, loc, e, idx[e] + *side) - sw);
    const PetscReal s2   = *side * (FGGridCoordinate(g, loc, e, idx[e] + 2 * *side) - sw);
    const PetscReal beta = FGStep5_Private(2 * tau), gm = FGStep3_Private(2 * tau), corr = L * L / 24;
    PetscReal       IB[2], PB[2], IA[2] = {0, 0}, PA[2] = {0, 0};
    FGLineQuadratic_Private(s1, s2, hiS, IB, PB);
    if (t > 0) FGLineQuadratic_Private(t, s1, hiS, IA, PA);
    /* flux / L = [beta IA.(u0, u1) + (1 - beta) IB.(u1, u2)] / L - gm corr [beta PA.(u0, u1) + (1 - beta) PB.(u1, u2)] */
    c[0] = beta * IA[0] / L - gm * corr * beta * PA[0];
    c[1] = (beta * IA[1] + (1 - beta) * IB[0]) / L - gm * corr * (beta * PA[1] + (1 - beta) * PB[0]);
    c[2] = (1 - beta) * IB[1] / L - gm * corr * (1 - beta) * PB[1];
  }
  if (tau > -1.5 && tau < 0.5) c[0] += FG_LF_FLOOR * FGStep3_Private(1 - 2 * tau) * (tau > -0.5 ? 1.0 : 1 - FGStep3_Private(-tau - 0.5));
  for (PetscInt k = 0; k < 3; k++) c[k] *= w;
  c[0] += (1 - w) * Aap;
  *trivial = (PetscBool)(c[0] == 1.0 && c[1] == 0 && c[2] == 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* W - I of every body with line_flux, into B->Wm (made again: the pattern follows the shape).
   Collective. */
PetscErrorCode FGBodiesLineFluxBuild_Internal(FGBodies B)
{
  FGGrid   g = B->g;
  PetscInt nloc, N, clash = 0, edge = 0;

  PetscFunctionBeginUser;
  if (!B->lineflux) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(g->dim == 2, g->comm, FG_ERR_INPUT, "body.<body>.line_flux: 2D only (a face's open part in 3D is two-dimensional: not built)");
  PetscCall(VecGetLocalSize(B->A[0], &nloc));
  PetscCall(VecGetSize(B->A[0], &N));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar *mark;
    PetscCall(MatDestroy(&B->Wm[a]));
    PetscCall(MatCreateAIJ(g->comm, nloc, nloc, N, N, 3, NULL, 2, NULL, &B->Wm[a]));
    PetscCall(MatSetOption(B->Wm[a], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(VecSet(B->dA[a], 0.0));
    PetscCall(VecGetArray(B->dA[a], &mark)); /* the rows an earlier body set */
    for (PetscInt b = 0; b < B->nb; b++) {
      FGBodyItem *it = &B->b[b];
      PetscReal   bl[3], bh[3], lo[3], hi[3];
      PetscInt    flo[3], fhi[3];
      if (!it->bc->line_flux) continue;
      PetscCall(FGShapeBoundingBox(it->shape, bl, bh));
      for (PetscInt d = 0; d < 3; d++) {
        lo[d] = d < g->dim ? bl[d] - it->reach - (FG_LF_SEARCH + 1) * it->h : 0;
        hi[d] = d < g->dim ? bh[d] + it->reach + (FG_LF_SEARCH + 1) * it->h : 0;
      }
      FGBodyFaceRange_Internal(B, a, lo, hi, flo, fhi);
      for (PetscInt j = flo[1]; j < fhi[1]; j++)
        for (PetscInt i = flo[0]; i < fhi[0]; i++) {
          const PetscInt idx[3] = {i, j, 0}, e = 1 - a;
          PetscReal      x[3]   = {0, 0, 0}, phi, gx[3], Aap, c[3];
          PetscInt       side, row, col[3], nc = 0, o = FGBoxOwnedIndex(&g->box, i, j, 0);
          PetscScalar    v[3];
          PetscBool      trivial = PETSC_FALSE;
          for (PetscInt d = 0; d < g->dim; d++) x[d] = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]);
          PetscCall(FGShapeLevelSet(it->shape, x, &phi, gx, NULL));
          PetscCall(FGBodyApertureAt_Internal(g, it->shape, a, idx, x, phi, &Aap));
          PetscCall(FGLineFluxRow_Private(g, it->shape, a, idx, x, Aap, &side, c, &trivial));
          if (trivial) continue;
          if (PetscRealPart(mark[o]) != 0) clash++;
          mark[o] = 1;
          row     = FGGridGlobalIndex(g, idx);
          for (PetscInt k = 0; k < 3; k++) {
            PetscInt fk[3] = {i, j, 0};
            if (k > 0 && c[k] == 0) continue;
            fk[e] += k * side;
            col[nc] = FGGridGlobalIndex(g, fk);
            if (col[nc] < 0) {
              edge++;
              break;
            }
            v[nc++] = k ? c[k] : c[0] - 1;
          }
          if (nc) PetscCall(MatSetValues(B->Wm[a], 1, &row, nc, col, v, INSERT_VALUES));
        }
    }
    PetscCall(VecRestoreArray(B->dA[a], &mark));
    PetscCall(MatAssemblyBegin(B->Wm[a], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B->Wm[a], MAT_FINAL_ASSEMBLY));
    PetscCall(VecSet(B->dA[a], 0.0));
  }
  {
    PetscInt cnt[2] = {clash, edge};
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, cnt, 2, MPIU_INT, MPI_SUM, g->comm));
    PetscCheck(!cnt[0], g->comm, FG_ERR_INPUT, "body.<body>.line_flux: two bodies' lines meet at %" PetscInt_FMT " faces (they lie within %d cells of each other along an axis), which is not supported; move them apart or refine the grid", cnt[0], FG_LF_SEARCH + 1);
    PetscCheck(!cnt[1], g->comm, FG_ERR_INPUT, "body.<body>.line_flux: a body lies within 2 cells of the domain's boundary along a face's line (%" PetscInt_FMT " faces), which is not supported; move it or enlarge the domain", cnt[1]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetLineFlux - W - I of the bodies' line-flux continuity (body.<body>.line_flux), one
  parallel AIJ matrix per velocity component on the grid's global layout (face i at the upper side
  of cell i), or NULL when no body has it. The matrices are made again when a body's parameters
  change (FGBodiesSetParameters): get them again then.

  Not collective.
@*/
PetscErrorCode FGBodiesGetLineFlux(FGBodies B, Mat **Wm)
{
  PetscFunctionBeginUser;
  *Wm = B && B->lineflux ? B->Wm : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
