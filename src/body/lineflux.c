/*
  A sharp wall's line-flux continuity (body.<body>.line_flux; docs/bodies.md, "A continuity exact
  cell by cell: lines"): a sparse operator W on the faces that replaces the apertures' diagonal in
  the projection. The projection then makes D W u zero, with the correction u -= gdt M^-1 W^T M G phi
  (M the faces' volumes) and the Poisson operator D W M^-1 W^T M G (src/solver/continuity.c,
  src/pressure/poisson_ksp.c).

  The model. Take the line of faces of component a along a tangential axis e (2D: e = 1 - a) and
  the wall crossing it at s_w (the root of phi on the line, by bracketed Newton). A face whose span
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
  The design derivative. A row depends on the wall's root s_w, the |cosine| of the line's angle to
  the normal there and the face's aperture A. The root's derivative is the level set's at the root
  over its slope along the line, ds_w = -dphi(x_w) / phi_e(x_w); the normal is differenced,
  (phi(x_w + d e_i) - phi(x_w - d e_i)) / 2d with d a quarter span, so that its derivative too is the
  level set's at points (the four, moved with the root); A's is aperture.c's at its five points.
  The row is evaluated in forward-mode dual numbers in (s_w, cos, A), and the chain rule gives each
  coefficient's derivative as weights on dphi at FG_LF_POINTS points (FGLineFluxList), which the
  shape's dphi/dtheta there turns into W's tangent (FGBodiesLineFluxTangent, a matrix dW with W's
  pattern) and its adjoint (FGBodiesLineFluxAdjoint, from the adjoint of W's entries).

  The body must be at rest (the quadratics pass through u = 0 at the wall); 2D only.
*/
#include <math.h>
#include "bodyimpl.h"

#define FG_LF_SEARCH 3    /* faces searched each side along the line for the wall */
#define FG_LF_FLOOR  1e-3 /* the inside faces' floor */
#define FG_LF_COS0   0.2  /* grazing lines: the apertures below, the lines above FG_LF_COS1 */
#define FG_LF_COS1   0.4
#define FG_LF_DELTA  0.25 /* the normal's difference step, in spans */

/* Forward-mode dual numbers in the row's three inputs (s_w, cos, A). */
typedef struct {
  PetscReal v, d[3];
} FGDual;

static FGDual FGDConst(PetscReal v)
{
  FGDual r = {v, {0, 0, 0}};
  return r;
}
static FGDual FGDSeed(PetscReal v, PetscInt i)
{
  FGDual r = FGDConst(v);
  r.d[i]   = 1;
  return r;
}
static FGDual FGDAdd(FGDual a, FGDual b)
{
  for (PetscInt i = 0; i < 3; i++) a.d[i] += b.d[i];
  a.v += b.v;
  return a;
}
static FGDual FGDLin(PetscReal s, FGDual a, PetscReal c) /* s a + c */
{
  for (PetscInt i = 0; i < 3; i++) a.d[i] *= s;
  a.v = s * a.v + c;
  return a;
}
static FGDual FGDMul(FGDual a, FGDual b)
{
  FGDual r;
  r.v = a.v * b.v;
  for (PetscInt i = 0; i < 3; i++) r.d[i] = a.d[i] * b.v + a.v * b.d[i];
  return r;
}
static FGDual FGDDiv(FGDual a, FGDual b)
{
  FGDual r;
  r.v = a.v / b.v;
  for (PetscInt i = 0; i < 3; i++) r.d[i] = (a.d[i] - r.v * b.d[i]) / b.v;
  return r;
}
/* The C1 smoother z^2 (3 - 2 z) and the C2 one z^3 (10 - 15 z + 6 z^2), clamped to [0, 1]. */
static FGDual FGDStep3(FGDual z)
{
  const PetscReal x = PetscMin(PetscMax(z.v, 0.0), 1.0), s = (z.v > 0 && z.v < 1) ? 6 * x * (1 - x) : 0;
  return FGDLin(s, z, x * x * (3 - 2 * x) - s * z.v);
}
static FGDual FGDStep5(FGDual z)
{
  const PetscReal x = PetscMin(PetscMax(z.v, 0.0), 1.0), s = (z.v > 0 && z.v < 1) ? 30 * x * x * (1 - x) * (1 - x) : 0;
  return FGDLin(s, z, x * x * x * (10 - 15 * x + 6 * x * x) - s * z.v);
}

/* The quadratic c1 s + c2 s^2 through (0, 0), (s1, v1), (s2, v2): the coefficients of v1 and v2 in
   its integral over [0, hi] (In) and in its second derivative (P2). */
static void FGLineQuadratic_Private(FGDual s1, FGDual s2, FGDual hi, FGDual In[2], FGDual P2[2])
{
  const FGDual det = FGDMul(FGDMul(s1, s2), FGDAdd(s2, FGDLin(-1, s1, 0)));
  const FGDual I1 = FGDLin(0.5, FGDMul(hi, hi), 0), I2 = FGDLin(1.0 / 3, FGDMul(FGDMul(hi, hi), hi), 0);

  In[0] = FGDDiv(FGDAdd(FGDMul(FGDMul(s2, s2), I1), FGDLin(-1, FGDMul(s2, I2), 0)), det);
  In[1] = FGDDiv(FGDAdd(FGDLin(-1, FGDMul(FGDMul(s1, s1), I1), 0), FGDMul(s1, I2)), det);
  P2[0] = FGDDiv(FGDLin(-2, s2, 0), det);
  P2[1] = FGDDiv(FGDLin(2, s1, 0), det);
}

/* A row of W from the wall's root sw on the line (side: the outside's direction along it; 0: no
   wall on the line nearby), the |cosine| cosw there and the face's aperture Aap: c[k] the weight of
   the k-th face outwards along the line (k = 0 the face). xe, x1, x2: the face's and the next two
   faces' positions along the line; spanlo, spanhi: its span. */
static void FGLineFluxRow_Private(PetscInt side, FGDual sw, FGDual cosw, FGDual Aap, PetscReal xe, PetscReal x1, PetscReal x2, PetscReal spanlo, PetscReal spanhi, FGDual c[3])
{
  const PetscReal L = spanhi - spanlo;
  FGDual          w, t, tau;

  c[0] = FGDConst(1), c[1] = c[2] = FGDConst(0);
  if (!side) { /* no wall on the line nearby: the aperture */
    c[0] = Aap;
    return;
  }
  w   = FGDStep3(FGDLin(1 / (FG_LF_COS1 - FG_LF_COS0), cosw, -FG_LF_COS0 / (FG_LF_COS1 - FG_LF_COS0)));
  t   = FGDLin(-side, sw, side * xe); /* the centre's distance from the wall, > 0 outside */
  tau = FGDLin(1 / L, t, 0);
  if (tau.v >= 0.5 || tau.v <= -1.5) c[0] = FGDConst(1);
  else if (tau.v <= -0.5) c[0] = FGDStep3(FGDLin(-1, tau, -0.5));
  else {
    const FGDual hiS  = side > 0 ? FGDLin(-1, sw, spanhi) : FGDLin(1, sw, -spanlo); /* the open part is [0, hiS] from the wall */
    const FGDual s1   = FGDLin(-side, sw, side * x1), s2 = FGDLin(-side, sw, side * x2);
    const FGDual beta = FGDStep5(FGDLin(2, tau, 0)), gm = FGDStep3(FGDLin(2, tau, 0)), omb = FGDLin(-1, beta, 1);
    const FGDual gc   = FGDLin(-L * L / 24, gm, 0); /* -gm L^2 / 24: the midpoint correction's weight */
    FGDual       IB[2], PB[2], IA[2] = {FGDConst(0), FGDConst(0)}, PA[2] = {FGDConst(0), FGDConst(0)};
    FGLineQuadratic_Private(s1, s2, hiS, IB, PB);
    if (t.v > 0) FGLineQuadratic_Private(t, s1, hiS, IA, PA);
    /* flux / L = [beta IA.(u0, u1) + (1 - beta) IB.(u1, u2)] / L - gm L^2/24 [beta PA.(u0, u1) + (1 - beta) PB.(u1, u2)] */
    c[0] = FGDMul(beta, FGDAdd(FGDLin(1 / L, IA[0], 0), FGDMul(gc, PA[0])));
    c[1] = FGDAdd(FGDMul(beta, FGDAdd(FGDLin(1 / L, IA[1], 0), FGDMul(gc, PA[1]))), FGDMul(omb, FGDAdd(FGDLin(1 / L, IB[0], 0), FGDMul(gc, PB[0]))));
    c[2] = FGDMul(omb, FGDAdd(FGDLin(1 / L, IB[1], 0), FGDMul(gc, PB[1])));
  }
  if (tau.v > -1.5 && tau.v < 0.5) { /* the floor that keeps the operator regular inside */
    FGDual f = FGDStep3(FGDLin(-2, tau, 1));
    if (tau.v <= -0.5) f = FGDMul(f, FGDLin(-1, FGDStep3(FGDLin(-1, tau, -0.5)), 1));
    c[0] = FGDAdd(c[0], FGDLin(FG_LF_FLOOR, f, 0));
  }
  for (PetscInt k = 0; k < 3; k++) c[k] = FGDMul(c[k], w); /* grazing lines: the apertures */
  c[0] = FGDAdd(c[0], FGDMul(FGDLin(-1, w, 1), Aap));
}

/* phi (and its gradient gx, its parameter derivative gq: NULL when not wanted) at x with its
   coordinate e replaced by s. */
static PetscErrorCode FGLinePhi_Private(FGShape shape, const PetscReal x[], PetscInt e, PetscReal s, PetscReal *phi, PetscReal gx[])
{
  PetscReal y[3] = {x[0], x[1], x[2]}, g[3];

  PetscFunctionBeginUser;
  y[e] = s;
  PetscCall(FGShapeLevelSet(shape, y, phi, gx ? gx : g, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The level set at the faces of one component around a body, evaluated once each (the lines and
   the apertures of neighbouring faces read the same faces): a box of face indices, NaN until read. */
typedef struct {
  PetscInt   lo[2], n[2];
  PetscReal *v;
} FGLinePhiCache;

/* phi at face jdx of component a (evaluated where the box has not got it, or outside the box) */
static PetscErrorCode FGLinePhiCacheGet_Private(FGLinePhiCache *pc, FGGrid g, FGShape shape, PetscInt a, const PetscInt jdx[], PetscReal *phi)
{
  const PetscInt i = jdx[0] - pc->lo[0], j = jdx[1] - pc->lo[1];
  PetscReal     *slot = (i >= 0 && i < pc->n[0] && j >= 0 && j < pc->n[1]) ? &pc->v[j * pc->n[0] + i] : NULL;

  PetscFunctionBeginUser;
  if (slot && !PetscIsNanReal(*slot)) {
    *phi = *slot;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    PetscReal y[3] = {0, 0, 0};
    for (PetscInt d = 0; d < g->dim; d++) y[d] = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, jdx[d]);
    PetscCall(FGShapeLevelSet(shape, y, phi, NULL, NULL));
  }
  if (slot) *slot = *phi;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The nearest wall crossing on the line through face idx (at x) along e within FG_LF_SEARCH faces:
   *side = +1 (the outside, phi > 0, at larger s) or -1, 0 if none; *sw its position. Each sign
   change is refined by Newton on phi along the line kept inside its bracket (bisection when a step
   leaves it or stalls): robust for any shape, and 4-6 level-set evaluations instead of bisection's
   50 (the B-spline's level set is a closest-point projection, the build's cost). */
static PetscErrorCode FGLineRoot_Private(FGGrid g, FGShape shape, FGLinePhiCache *pc, PetscInt a, PetscInt e, const PetscInt idx[], const PetscReal x[], PetscInt *side, PetscReal *sw)
{
  const FGLocation loc = (FGLocation)(FG_LOC_FACE_X + a);
  PetscReal        pos[2 * FG_LF_SEARCH + 1], ph[2 * FG_LF_SEARCH + 1], best = PETSC_MAX_REAL;
  PetscInt         lo = -FG_LF_SEARCH, hi = FG_LF_SEARCH;

  PetscFunctionBeginUser;
  *side = 0, *sw = 0;
  if (!g->periodic[e]) lo = PetscMax(lo, -idx[e]), hi = PetscMin(hi, g->n[e] - 1 - idx[e]);
  for (PetscInt m = lo; m <= hi; m++) {
    PetscInt jdx[3] = {idx[0], idx[1], idx[2]};
    jdx[e] += m;
    pos[m + FG_LF_SEARCH] = FGGridCoordinate(g, loc, e, jdx[e]);
    PetscCall(FGLinePhiCacheGet_Private(pc, g, shape, a, jdx, &ph[m + FG_LF_SEARCH]));
  }
  for (PetscInt m = lo; m < hi; m++) {
    PetscReal a0 = pos[m + FG_LF_SEARCH], a1 = pos[m + FG_LF_SEARCH + 1], f0 = ph[m + FG_LF_SEARCH], f1 = ph[m + FG_LF_SEARCH + 1], r, fr, gr[3], tol;
    if ((f0 > 0) == (f1 > 0)) continue;
    tol = 1e-15 * PetscMax(1.0, PetscMax(PetscAbsReal(a0), PetscAbsReal(a1)));
    r   = a0 - f0 * (a1 - a0) / (f1 - f0); /* the secant's guess */
    for (PetscInt it = 0; it < 200 && a1 - a0 > tol; it++) {
      PetscReal rn;
      PetscCall(FGLinePhi_Private(shape, x, e, r, &fr, gr));
      if (fr == 0) break;
      if ((fr > 0) == (f0 > 0)) a0 = r, f0 = fr;
      else a1 = r;
      rn = gr[e] != 0 ? r - fr / gr[e] : 0.5 * (a0 + a1);
      if (!(rn > a0 && rn < a1)) rn = 0.5 * (a0 + a1);
      if (PetscAbsReal(rn - r) <= tol) {
        r = rn;
        break;
      }
      r = rn;
    }
    if (PetscAbsReal(r - x[e]) < best) best = PetscAbsReal(r - x[e]), *sw = r, *side = ph[m + FG_LF_SEARCH + 1] > 0 ? 1 : -1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGLineFluxListReserve_Private(FGLineFluxList *l, PetscInt n)
{
  PetscFunctionBeginUser;
  if (n <= l->cap) PetscFunctionReturn(PETSC_SUCCESS);
  {
    PetscInt   cap = PetscMax(2 * l->cap, PetscMax(n, 256)), *body, *row, *off, *col;
    PetscReal *sv, *w;
    PetscCall(PetscMalloc6(cap, &body, cap, &row, cap, &off, 3 * cap, &col, l->ns * FG_LF_POINTS * cap, &sv, 3 * FG_LF_POINTS * cap, &w));
    if (l->n) {
      PetscCall(PetscArraycpy(body, l->body, l->n));
      PetscCall(PetscArraycpy(row, l->row, l->n));
      PetscCall(PetscArraycpy(off, l->off, l->n));
      PetscCall(PetscArraycpy(col, l->col, 3 * l->n));
      PetscCall(PetscArraycpy(sv, l->s, l->ns * FG_LF_POINTS * l->n));
      PetscCall(PetscArraycpy(w, l->w, 3 * FG_LF_POINTS * l->n));
    }
    PetscCall(PetscFree6(l->body, l->row, l->off, l->col, l->s, l->w));
    l->body = body, l->row = row, l->off = off, l->col = col, l->s = sv, l->w = w, l->cap = cap;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGLineFluxListFree_Internal(FGLineFluxList *l)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree6(l->body, l->row, l->off, l->col, l->s, l->w));
  l->n = l->cap = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Face idx (at x) of component a, shape the body's: its row (c, the k-th face's global column col[k], -1:
   none) and the derivative weights w[3 p + k] at the points y[p]. *trivial: the identity's row. */
static PetscErrorCode FGLineFluxFace_Private(FGGrid g, FGShape shape, FGLinePhiCache *pc, PetscInt a, const PetscInt idx[], const PetscReal x[], PetscReal c[3], PetscInt col[3], PetscReal y[][3], PetscReal w[], PetscBool *trivial, PetscBool *edge)
{
  const PetscInt   e   = 1 - a;
  const FGLocation loc = (FGLocation)(FG_LOC_FACE_X + a), eloc = (FGLocation)(FG_LOC_FACE_X + e);
  const PetscReal  spanlo = FGGridCoordinate(g, eloc, e, idx[e] - 1), spanhi = FGGridCoordinate(g, eloc, e, idx[e]), del = FG_LF_DELTA * (spanhi - spanlo);
  PetscReal        phi, gx[3], Aap, dA[FG_APERTURE_POINTS], sw = 0, gh[3] = {0, 0, 0}, dcos[3] = {0, 0, 0}, gn = 0, cosv = 0, phie = 1, K = 0;
  PetscInt         side;
  FGDual           cd[3];

  PetscFunctionBeginUser;
  *trivial = PETSC_FALSE, *edge = PETSC_FALSE;
  PetscCall(FGLinePhiCacheGet_Private(pc, g, shape, a, idx, &phi));
  { /* the aperture's neighbours along e (aperture.c's points 1 and 2) */
    PetscReal      phn[2];
    const PetscInt im[3] = {idx[0] - (e == 0), idx[1] - (e == 1), 0}, ip[3] = {idx[0] + (e == 0), idx[1] + (e == 1), 0};
    PetscCall(FGLinePhiCacheGet_Private(pc, g, shape, a, im, &phn[0]));
    PetscCall(FGLinePhiCacheGet_Private(pc, g, shape, a, ip, &phn[1]));
    PetscCall(FGBodyApertureAt_Internal(g, shape, a, idx, x, phi, phn, &Aap, dA, y + 5));
  }
  PetscCall(FGLineRoot_Private(g, shape, pc, a, e, idx, x, &side, &sw));
  for (PetscInt p = 0; p < 5; p++)
    for (PetscInt d = 0; d < 3; d++) y[p][d] = x[d];
  if (side) { /* the root x_w and the differenced normal there: points x_w +- del e_d */
    PetscReal ph, gd[2][3];
    y[0][e] = sw;
    PetscCall(FGShapeLevelSet(shape, y[0], &ph, gx, NULL));
    phie = gx[e];
    for (PetscInt d = 0; d < g->dim; d++) {
      PetscReal pp, pm;
      for (PetscInt q = 0; q < 2; q++) {
        PetscReal *yq = y[1 + 2 * d + q];
        for (PetscInt i = 0; i < 3; i++) yq[i] = y[0][i];
        yq[d] += q ? -del : del;
        PetscCall(FGShapeLevelSet(shape, yq, q ? &pm : &pp, gd[q], NULL));
      }
      gh[d] = (pp - pm) / (2 * del);
      dcos[d] = (gd[0][e] - gd[1][e]) / (2 * del); /* d gh[d] / d s_w */
      gn += gh[d] * gh[d];
    }
    gn   = PetscSqrtReal(gn);
    cosv = gn > 0 ? PetscAbsReal(gh[e]) / gn : 0;
    if (gn > 0) { /* K = d cos / d s_w through the points' move; dcos[] becomes d cos / d gh[] */
      PetscReal part[3];
      for (PetscInt d = 0; d < g->dim; d++) part[d] = (d == e ? (gh[e] >= 0 ? 1.0 : -1.0) / gn : 0) - PetscAbsReal(gh[e]) * gh[d] / (gn * gn * gn);
      for (PetscInt d = 0; d < g->dim; d++) K += part[d] * dcos[d], dcos[d] = part[d];
    } else dcos[0] = dcos[1] = 0;
  }
  FGLineFluxRow_Private(side, FGDSeed(sw, 0), FGDSeed(cosv, 1), FGDSeed(Aap, 2), x[e], side ? FGGridCoordinate(g, loc, e, idx[e] + side) : 0, side ? FGGridCoordinate(g, loc, e, idx[e] + 2 * side) : 0, spanlo, spanhi, cd);
  for (PetscInt k = 0; k < 3; k++) {
    PetscInt fk[3] = {idx[0], idx[1], 0};
    c[k] = cd[k].v;
    fk[e] += k * side;
    col[k] = (k == 0 || side) ? FGGridGlobalIndex(g, fk) : -1;
    if ((k == 0 || side) && col[k] < 0) *edge = PETSC_TRUE;
    /* the weights: the root (through s_w and the normal's points' move), the normal's four points, the aperture's five */
    w[3 * 0 + k] = side ? (cd[k].d[0] + cd[k].d[1] * K) * (-1 / phie) : 0;
    for (PetscInt d = 0; d < 2; d++) {
      w[3 * (1 + 2 * d) + k] = side ? cd[k].d[1] * dcos[d] / (2 * del) : 0;
      w[3 * (2 + 2 * d) + k] = -w[3 * (1 + 2 * d) + k];
    }
    for (PetscInt p = 0; p < 5; p++) w[3 * (5 + p) + k] = cd[k].d[2] * dA[p];
  }
  *trivial = (PetscBool)(c[0] == 1.0 && c[1] == 0 && c[2] == 0);
  for (PetscInt q = 0; q < 3 * FG_LF_POINTS; q++)
    if (w[q] != 0) *trivial = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* W - I of every body with line_flux, into B->Wm (made again: the pattern follows the shape), and
   its rows' derivative weights into B->lf. Collective. */
PetscErrorCode FGBodiesLineFluxBuild_Internal(FGBodies B)
{
  FGGrid   g = B->g;
  PetscInt nloc, N, clash = 0, edge = 0, bedge = PETSC_MAX_INT; /* bedge: the first body at the edge */

  PetscFunctionBeginUser;
  if (!B->lineflux) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(g->dim == 2, g->comm, FG_ERR_INPUT, "body.<body>.line_flux: 2D only (a face's open part in 3D is two-dimensional: not built)");
  PetscCall(VecGetLocalSize(B->A[0], &nloc));
  PetscCall(VecGetSize(B->A[0], &N));
  for (PetscInt a = 0; a < g->dim; a++) {
    FGLineFluxList *l = &B->lf[a];
    PetscScalar    *mark;
    PetscCall(MatDestroy(&B->Wm[a]));
    PetscCall(MatDestroy(&B->dWm[a]));
    PetscCall(MatDestroy(&B->Wone[a]));
    PetscCall(MatDestroy(&B->Wbar[a]));
    PetscCall(MatDestroy(&B->Wt[a]));
    PetscCall(MatCreateAIJ(g->comm, nloc, nloc, N, N, 3, NULL, 2, NULL, &B->Wm[a]));
    PetscCall(MatSetOption(B->Wm[a], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatCreateAIJ(g->comm, nloc, nloc, N, N, 3, NULL, 2, NULL, &B->Wone[a]));
    PetscCall(MatSetOption(B->Wone[a], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(VecSet(B->dA[a], 0.0));
    PetscCall(VecGetArray(B->dA[a], &mark)); /* the rows an earlier body set */
    l->n = 0;
    { /* the values kept per point: the largest np + 1 (a new stride empties the list) */
      PetscInt ns = 1;
      for (PetscInt b = 0; b < B->nb; b++)
        if (B->b[b].bc->line_flux) ns = PetscMax(ns, B->b[b].np + 1);
      if (ns != l->ns) PetscCall(FGLineFluxListFree_Internal(l));
      l->ns = ns;
    }
    for (PetscInt b = 0; b < B->nb; b++) {
      FGBodyItem    *it = &B->b[b];
      PetscReal      bl[3], bh[3], lo[3], hi[3];
      PetscInt       flo[3], fhi[3];
      FGLinePhiCache pc;
      if (!it->bc->line_flux) continue;
      PetscCall(FGShapeBoundingBox(it->shape, bl, bh));
      for (PetscInt d = 0; d < 3; d++) {
        lo[d] = d < g->dim ? bl[d] - it->reach - (FG_LF_SEARCH + 1) * it->h : 0;
        hi[d] = d < g->dim ? bh[d] + it->reach + (FG_LF_SEARCH + 1) * it->h : 0;
      }
      FGBodyFaceRange_Internal(B, a, lo, hi, flo, fhi);
      for (PetscInt d = 0; d < 2; d++) pc.lo[d] = flo[d] - FG_LF_SEARCH, pc.n[d] = PetscMax(fhi[d] - flo[d], 0) + 2 * FG_LF_SEARCH;
      PetscCall(PetscMalloc1(pc.n[0] * pc.n[1], &pc.v));
      for (PetscInt q = 0; q < pc.n[0] * pc.n[1]; q++) pc.v[q] = (PetscReal)NAN;
      for (PetscInt j = flo[1]; j < fhi[1]; j++)
        for (PetscInt i = flo[0]; i < fhi[0]; i++) {
          const PetscInt idx[3] = {i, j, 0}, o = FGBoxOwnedIndex(&g->box, i, j, 0);
          PetscReal      x[3]   = {0, 0, 0}, c[3], y[FG_LF_POINTS][3], w[3 * FG_LF_POINTS];
          PetscInt       col[3], nc = 0, cl[3];
          PetscScalar    v[3];
          PetscBool      trivial, atedge;
          for (PetscInt d = 0; d < g->dim; d++) x[d] = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]);
          PetscCall(FGLineFluxFace_Private(g, it->shape, &pc, a, idx, x, c, col, y, w, &trivial, &atedge));
          if (trivial) continue;
          if (atedge) {
            edge++, bedge = PetscMin(bedge, b);
            continue;
          }
          if (PetscRealPart(mark[o]) != 0) clash++;
          mark[o] = 1;
          for (PetscInt k = 0; k < 3; k++)
            if (col[k] >= 0) cl[nc] = col[k], v[nc++] = k ? c[k] : c[0] - 1;
          PetscCall(MatSetValues(B->Wm[a], 1, &col[0], nc, cl, v, INSERT_VALUES));
          v[0] = v[1] = v[2] = 1;
          PetscCall(MatSetValues(B->Wone[a], 1, &col[0], nc, cl, v, INSERT_VALUES));
          PetscCall(FGLineFluxListReserve_Private(l, l->n + 1));
          l->body[l->n] = b, l->row[l->n] = col[0], l->off[l->n] = o;
          PetscCall(PetscArraycpy(l->col + 3 * l->n, col, 3));
          for (PetscInt p = 0; p < FG_LF_POINTS; p++) { /* the shape's dphi/dtheta and |grad phi| at the points the row reads */
            PetscReal *sp = l->s + l->ns * (FG_LF_POINTS * l->n + p), phi, gy[3] = {0, 0, 0}, gq[FG_SHAPE_MAX_PARAMS];
            PetscCall(PetscArrayzero(sp, l->ns));
            if (w[3 * p] == 0 && w[3 * p + 1] == 0 && w[3 * p + 2] == 0) continue;
            PetscCall(FGShapeLevelSet(it->shape, y[p], &phi, gy, gq));
            for (PetscInt q = 0; q < it->np; q++) sp[q] = gq[q];
            sp[l->ns - 1] = PetscSqrtReal(gy[0] * gy[0] + gy[1] * gy[1] + gy[2] * gy[2]);
          }
          PetscCall(PetscArraycpy(l->w + 3 * FG_LF_POINTS * l->n, w, 3 * FG_LF_POINTS));
          l->n++;
        }
      PetscCall(PetscFree(pc.v));
    }
    PetscCall(VecRestoreArray(B->dA[a], &mark));
    PetscCall(MatAssemblyBegin(B->Wm[a], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B->Wm[a], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(B->Wone[a], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B->Wone[a], MAT_FINAL_ASSEMBLY));
    PetscCall(MatDuplicate(B->Wone[a], MAT_DO_NOT_COPY_VALUES, &B->Wbar[a]));
    PetscCall(VecSet(B->dA[a], 0.0));
  }
  {
    PetscInt cnt[2] = {clash, edge};
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, cnt, 2, MPIU_INT, MPI_SUM, g->comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bedge, 1, MPIU_INT, MPI_MIN, g->comm));
    PetscCheck(!cnt[0], g->comm, FG_ERR_INPUT, "body.<body>.line_flux: two bodies' lines meet at %" PetscInt_FMT " faces (they lie within %d cells of each other along an axis), which is not supported; move them apart or refine the grid", cnt[0], FG_LF_SEARCH + 1);
    PetscCheck(!cnt[1], g->comm, FG_ERR_INPUT, "%s: line_flux: the body lies within 2 cells of the domain's boundary along a face's line (%" PetscInt_FMT " faces), which is not supported; move it or enlarge the domain", cnt[1] ? B->b[bedge].bc->where : "", cnt[1]);
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

/*@C
  FGBodiesLineFluxTangent - dW (W's pattern, W's tangent for the bodies' parameter perturbations
  dtheta[b], theta_b layout; NULL: none), or *dW = NULL when no line-flux body's parameters are
  perturbed. Collective.
@*/
PetscErrorCode FGBodiesLineFluxTangent(FGBodies B, PetscReal *const dtheta[], Mat **dW)
{
  FGGrid    g   = B->g;
  PetscBool any = PETSC_FALSE;

  PetscFunctionBeginUser;
  *dW = NULL;
  for (PetscInt b = 0; B->lineflux && dtheta && b < B->nb; b++) any = (PetscBool)(any || (B->b[b].bc->line_flux && dtheta[b]));
  if (!any) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt a = 0; a < g->dim; a++) {
    const FGLineFluxList *l = &B->lf[a];
    if (!B->dWm[a]) PetscCall(MatDuplicate(B->Wm[a], MAT_DO_NOT_COPY_VALUES, &B->dWm[a]));
    PetscCall(MatZeroEntries(B->dWm[a]));
    for (PetscInt f = 0; f < l->n; f++) {
      FGBodyItem     *it = &B->b[l->body[f]];
      const PetscReal *w = l->w + 3 * FG_LF_POINTS * f;
      PetscScalar      v[3] = {0, 0, 0};
      PetscInt         cl[3], nc = 0;
      if (!dtheta[l->body[f]]) continue;
      for (PetscInt p = 0; p < FG_LF_POINTS; p++) {
        const PetscReal *gq = l->s + l->ns * (FG_LF_POINTS * f + p);
        PetscReal        s  = 0;
        if (w[3 * p] == 0 && w[3 * p + 1] == 0 && w[3 * p + 2] == 0) continue;
        for (PetscInt i = 0; i < it->np; i++) s += gq[i] * dtheta[l->body[f]][i];
        for (PetscInt k = 0; k < 3; k++) v[k] += w[3 * p + k] * s;
      }
      for (PetscInt k = 0; k < 3; k++)
        if (l->col[3 * f + k] >= 0) cl[nc] = l->col[3 * f + k], v[nc++] = v[k];
      PetscCall(MatSetValues(B->dWm[a], 1, &l->row[f], nc, cl, v, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(B->dWm[a], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B->dWm[a], MAT_FINAL_ASSEMBLY));
  }
  *dW = B->dWm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesLineFluxAdjointAdd - the adjoint of W's entries (zeroed when W is made and by
  FGBodiesLineFluxAdjoint) += l_i r_j on W's pattern, per component (l, r: global face Vecs), the
  adjoint of W_ij from a term <l, dW r>. Collective.
@*/
PetscErrorCode FGBodiesLineFluxAdjointAdd(FGBodies B, Vec l[], Vec r[])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < B->g->dim; a++) {
    if (!B->Wt[a]) PetscCall(MatDuplicate(B->Wone[a], MAT_DO_NOT_COPY_VALUES, &B->Wt[a])); /* work, once per W */
    PetscCall(MatCopy(B->Wone[a], B->Wt[a], SAME_NONZERO_PATTERN));
    PetscCall(MatDiagonalScale(B->Wt[a], l[a], r[a]));
    PetscCall(MatAXPY(B->Wbar[a], 1.0, B->Wt[a], SAME_NONZERO_PATTERN));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesLineFluxAdjoint - the transpose of FGBodiesLineFluxTangent: the adjoint of W's entries
  summed by FGBodiesLineFluxAdjointAdd (zeroed on return) gives thetabar[b] += its local part
  (NULL: not wanted) and sens[a] (NULL: not wanted) += the adjoint times dW/dn, the derivative
  under an outward normal displacement of the surface (at each face, its points' parts summed; as
  FGBodiesApertureAdjoint does). Collective.
@*/
PetscErrorCode FGBodiesLineFluxAdjoint(FGBodies B, PetscReal *const thetabar[], Vec sens[])
{
  FGGrid g = B->g;
  Mat   *Wbar = B->Wbar;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    const FGLineFluxList *l  = &B->lf[a];
    PetscScalar          *sb = NULL;
    if (sens) PetscCall(VecGetArray(sens[a], &sb));
    for (PetscInt f = 0; f < l->n; f++) {
      FGBodyItem        *it = &B->b[l->body[f]];
      const PetscReal   *w  = l->w + 3 * FG_LF_POINTS * f;
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscInt           ncols;
      PetscReal          wb[3] = {0, 0, 0};
      PetscCall(MatGetRow(Wbar[a], l->row[f], &ncols, &cols, &vals));
      for (PetscInt k = 0; k < 3; k++)
        for (PetscInt q = 0; q < ncols; q++)
          if (cols[q] == l->col[3 * f + k]) wb[k] = PetscRealPart(vals[q]);
      PetscCall(MatRestoreRow(Wbar[a], l->row[f], &ncols, &cols, &vals));
      if (wb[0] == 0 && wb[1] == 0 && wb[2] == 0) continue;
      for (PetscInt p = 0; p < FG_LF_POINTS; p++) {
        const PetscReal *gq = l->s + l->ns * (FG_LF_POINTS * f + p), gn = gq[l->ns - 1];
        PetscReal        s  = wb[0] * w[3 * p] + wb[1] * w[3 * p + 1] + wb[2] * w[3 * p + 2];
        if (s == 0) continue;
        if (thetabar && thetabar[l->body[f]])
          for (PetscInt i = 0; i < it->np; i++) thetabar[l->body[f]][i] += s * gq[i];
        if (sb) sb[l->off[f]] -= s * gn; /* phi changes by -V_n |grad phi| */
      }
    }
    if (sens) PetscCall(VecRestoreArray(sens[a], &sb));
    PetscCall(MatZeroEntries(Wbar[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
