/*
  Parameterized shapes (src/body/shape.c, shape_geometry.c):

  1. For every kind and every parameter (placement included): d phi/dp, d chi/dp and d phi/dx
     agree with central finite differences (step 1e-6 max(|p_k|, 0.1)) to 1e-6 relative, on points
     spread across the smoothing band and around the body. Relative error
       |a - fd| / max(|a|, |fd|, floor),  floor = 1e-2 (phi: derivatives are O(1)) and 1e-2/eps (chi: O(1/eps)), so that the
     FD round-off (~1e-16/h ~ 1e-10) on near-zero derivatives is not counted as an error.
  2. The zero contour is the shape: |phi| on known boundary points (tolerances in the table below).
  3. Geometric functionals (area/volume, centroid, perimeter, thickness): gradient vs central FD
     to 1e-6 relative (floor 1e-2 max_k |dF/dp_k|, step 1e-6 max(|p_k|, 1); placement and the first kind parameters, 7 in all); circle area -> pi R^2 as h, eps -> 0.
  4. Bad input returns FG_ERR_INPUT.
*/
#include <fg/shape.h>

#define NPTS 200

static PetscInt fails = 0;
static PetscBool dbg = PETSC_FALSE;
static double    t0;

static PetscErrorCode Expect_Private(PetscBool ok, const char *what)
{
  PetscFunctionBeginUser;
  if (!ok) {
    fails++;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  FAILED: %s\n", what));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal RelErr_Private(PetscReal a, PetscReal b, PetscReal floor)
{
  return PetscAbsReal(a - b) / PetscMax(PetscMax(PetscAbsReal(a), PetscAbsReal(b)), floor);
}

/* ---- 1. derivatives vs FD ------------------------------------------------------------------- */
static PetscErrorCode CheckDerivatives(const char *label, FGShape s, PetscReal scale, PetscRandom r)
{
  PetscInt  dim, np, nband = 0;
  PetscReal p[FG_SHAPE_MAX_PARAMS], pp[FG_SHAPE_MAX_PARAMS], eps = 0.04 * scale, wphi = 0, wchi = 0, wx = 0;

  PetscFunctionBeginUser;
  PetscCall(FGShapeGetDimension(s, &dim));
  PetscCall(FGShapeGetNumParameters(s, &np));
  PetscCall(FGShapeGetParameters(s, p));
  PetscCall(FGShapeValidate(s));
  for (PetscInt ip = 0; ip < NPTS; ip++) {
    PetscReal x[3], phi, gx[3], gp[FG_SHAPE_MAX_PARAMS], chi, cx[3], cp[FG_SHAPE_MAX_PARAMS], g2 = 0, off;
    /* a random point in a box around the body; 3 of 4 are moved into the band */
    for (PetscInt d = 0; d < dim; d++) {
      PetscCall(PetscRandomGetValueReal(r, &x[d]));
      x[d] = p[d] + (2 * x[d] - 1) * 1.3 * scale;
    }
    if (ip % 4) {
      for (PetscInt it = 0; it < 3; it++) {
        PetscCall(FGShapeLevelSet(s, x, &phi, gx, NULL));
        g2 = 0;
        for (PetscInt d = 0; d < dim; d++) g2 += gx[d] * gx[d];
        for (PetscInt d = 0; d < dim; d++) x[d] -= phi * gx[d] / g2;
      }
      PetscCall(PetscRandomGetValueReal(r, &off));
      off = (2 * off - 1) * eps;
      for (PetscInt d = 0; d < dim; d++) x[d] += off * gx[d] / PetscSqrtReal(g2);
      /* random jitter: offsets exactly along a normal would put points exactly on the lines where
         the curvature of a curve kind's distance jumps (C^{1,1}: normals through the leading edge,
         the edges of the trailing-edge corner wedge), where central FD loses its second order */
      for (PetscInt d = 0; d < dim; d++) {
        PetscCall(PetscRandomGetValueReal(r, &off));
        x[d] += 0.3 * eps * (2 * off - 1);
      }
    }
    PetscCall(FGShapeLevelSet(s, x, &phi, gx, gp));
    PetscCall(FGShapeMask(s, eps, x, &chi, cx, cp));
    if (chi > 0 && chi < 1) nband++;
    for (PetscInt k = 0; k < np; k++) {
      PetscReal h = 1e-6 * PetscMax(PetscAbsReal(p[k]), 0.1), fp, fm, cpl, cm;
      PetscCall(PetscArraycpy(pp, p, np));
      pp[k] = p[k] + h;
      PetscCall(FGShapeSetParameters(s, pp));
      PetscCall(FGShapeLevelSet(s, x, &fp, NULL, NULL));
      PetscCall(FGShapeMask(s, eps, x, &cpl, NULL, NULL));
      pp[k] = p[k] - h;
      PetscCall(FGShapeSetParameters(s, pp));
      PetscCall(FGShapeLevelSet(s, x, &fm, NULL, NULL));
      PetscCall(FGShapeMask(s, eps, x, &cm, NULL, NULL));
      PetscCall(FGShapeSetParameters(s, p));
      if (RelErr_Private(gp[k], (fp - fm) / (2 * h), 1e-2) > 1e-6 && dbg) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    p%d x=(%g,%g) phi=%g an=%g fd=%g\n", (int)k, (double)x[0], (double)x[1], (double)phi, (double)gp[k], (double)((fp - fm) / (2 * h))));
      wphi = PetscMax(wphi, RelErr_Private(gp[k], (fp - fm) / (2 * h), 1e-2));
      wchi = PetscMax(wchi, RelErr_Private(cp[k], (cpl - cm) / (2 * h), 1e-2 / eps));
    }
    for (PetscInt d = 0; d < dim; d++) {
      PetscReal h = 1e-6 * scale, xs = x[d], fp, fm;
      x[d] = xs + h;
      PetscCall(FGShapeLevelSet(s, x, &fp, NULL, NULL));
      x[d] = xs - h;
      PetscCall(FGShapeLevelSet(s, x, &fm, NULL, NULL));
      x[d] = xs;
      wx   = PetscMax(wx, RelErr_Private(gx[d], (fp - fm) / (2 * h), 1e-2));
      (void)cx;
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-18s np=%2" PetscInt_FMT " band pts=%3" PetscInt_FMT "  worst rel err: dphi/dp %.2e  dchi/dp %.2e  dphi/dx %.2e\n", label, np, nband, (double)wphi, (double)wchi, (double)wx));
  PetscCall(Expect_Private((PetscBool)(wphi <= 1e-6 && wchi <= 1e-6 && wx <= 1e-6), label));
  PetscCall(Expect_Private((PetscBool)(nband >= NPTS / 2), "enough points in the band"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- test shapes ---------------------------------------------------------------------------- */
typedef struct {
  const char *label;
  FGShapeKind kind;
  PetscBool   extruded;
  PetscInt    n;
  PetscReal   scale;
  PetscInt    nset;
  const char *names[16];
  PetscReal   vals[16];
} ShapeDef;

static const ShapeDef defs[] = {
  {"circle", FG_SHAPE_CIRCLE, PETSC_FALSE, 0, 0.5, 4, {"x0", "y0", "angle", "r"}, {0.1, -0.05, 0.3, 0.4}},
  {"ellipse", FG_SHAPE_ELLIPSE, PETSC_FALSE, 0, 0.5, 5, {"x0", "y0", "angle", "a", "b"}, {0.05, 0.1, 0.4, 0.5, 0.3}},
  {"fourier", FG_SHAPE_FOURIER, PETSC_FALSE, 3, 0.6, 9, {"x0", "y0", "angle", "r0", "a1", "a2", "a3", "b2", "b3"}, {0.1, 0.2, 0.3, 0.5, 0.05, 0.04, 0.02, 0.05, -0.02}},
  {"naca0012", FG_SHAPE_NACA4, PETSC_FALSE, 0, 1.0, 4, {"x0", "y0", "aoa", "t"}, {-0.5, 0.05, 0.1, 0.12}},
  {"naca2412", FG_SHAPE_NACA4, PETSC_FALSE, 0, 1.0, 7, {"x0", "y0", "aoa", "m", "p", "t", "c"}, {-0.5, 0.05, 0.15, 0.02, 0.4, 0.12, 1.1}},
  {"cst", FG_SHAPE_CST, PETSC_FALSE, 3, 1.0, 12, {"x0", "y0", "aoa", "c", "Au0", "Au1", "Au2", "Au3", "Al0", "Al1", "Al2", "Al3"}, {-0.5, 0.0, 0.08, 1.0, 0.17, 0.2, 0.16, 0.15, -0.17, -0.1, -0.08, -0.06}},
  {"bspline", FG_SHAPE_BSPLINE, PETSC_FALSE, 8, 0.6, 5, {"x0", "y0", "angle", "X1", "Y2"}, {0.1, -0.1, 0.2, 0.45, 0.25}},
  {"sphere", FG_SHAPE_SPHERE, PETSC_FALSE, 0, 0.5, 5, {"x0", "y0", "z0", "angle", "r"}, {0.1, -0.1, 0.05, 0.2, 0.4}},
  {"ellipsoid", FG_SHAPE_ELLIPSOID, PETSC_FALSE, 0, 0.5, 7, {"x0", "y0", "z0", "angle", "a", "b", "c"}, {0.1, -0.1, 0.05, 0.5, 0.5, 0.35, 0.25}},
  {"extruded naca2412", FG_SHAPE_NACA4, PETSC_TRUE, 0, 1.0, 5, {"x0", "aoa", "m", "p", "t"}, {-0.5, 0.1, 0.02, 0.4, 0.15}},
  {"extruded fourier", FG_SHAPE_FOURIER, PETSC_TRUE, 2, 0.6, 5, {"angle", "r0", "a1", "b2", "z0"}, {0.3, 0.5, 0.06, 0.04, 0.1}},
};

static PetscErrorCode MakeShape(const ShapeDef *sd, FGShape *s)
{
  PetscFunctionBeginUser;
  if (sd->extruded) PetscCall(FGShapeCreateExtruded(sd->kind, sd->n, s));
  else PetscCall(FGShapeCreate(sd->kind, sd->n, s));
  PetscCall(FGShapeSetName(*s, sd->label));
  for (PetscInt i = 0; i < sd->nset; i++) PetscCall(FGShapeSetParameter(*s, sd->names[i], sd->vals[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- outline: FGShapeOutline's points lie on phi = 0 and follow the curve closely ---------- */
static PetscErrorCode CheckOutline(void)
{
  const PetscInt M = 256;
  PetscReal      xy[2 * 256];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "outline (%" PetscInt_FMT " points): max |phi| / scale, largest gap / scale\n", M));
  for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
    FGShape   sh;
    PetscReal p[FG_SHAPE_MAX_PARAMS], pmax = 0, gap = 0;
    PetscInt  dim;
    PetscCall(MakeShape(&defs[i], &sh));
    PetscCall(FGShapeGetDimension(sh, &dim));
    PetscCall(FGShapeGetParameters(sh, p));
    PetscCall(FGShapeOutline(sh, M, xy));
    for (PetscInt k = 0; k < M; k++) {
      PetscReal x[3] = {xy[2 * k], xy[2 * k + 1], dim == 3 ? p[2] : 0}, phi;
      const PetscInt k1 = (k + 1) % M;
      PetscCall(FGShapeLevelSet(sh, x, &phi, NULL, NULL));
      pmax = PetscMax(pmax, PetscAbsReal(phi));
      gap  = PetscMax(gap, PetscSqrtReal(PetscSqr(xy[2 * k1] - xy[2 * k]) + PetscSqr(xy[2 * k1 + 1] - xy[2 * k + 1])));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-20s %.1e  %.3f\n", defs[i].label, (double)(pmax / defs[i].scale), (double)(gap / defs[i].scale)));
    PetscCall(Expect_Private((PetscBool)(pmax <= 1e-9 * defs[i].scale), "outline points on phi = 0"));
    PetscCall(Expect_Private((PetscBool)(gap <= 0.05 * defs[i].scale && gap > 0), "outline points spread along the curve"));
    PetscCall(FGShapeDestroy(&sh));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- 2. zero contour ---------------------------------------------------------------------- */
static void Place(const PetscReal p[], PetscReal th, PetscReal lx, PetscReal ly, PetscReal x[])
{
  x[0] = p[0] + PetscCosReal(th) * lx - PetscSinReal(th) * ly;
  x[1] = p[1] + PetscSinReal(th) * lx + PetscCosReal(th) * ly;
}

static PetscReal NacaYt(PetscReal t, PetscReal s)
{
  return 5 * t * (0.2969 * PetscSqrtReal(s) - 0.1260 * s - 0.3516 * s * s + 0.2843 * s * s * s - 0.1036 * s * s * s * s);
}

static PetscErrorCode CheckZeroContour(void)
{
  FGShape   s;
  PetscReal p[FG_SHAPE_MAX_PARAMS], x[3], phi, worst;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "zero contours (max |phi| on boundary points):\n"));
  /* circle, ellipse, Fourier: exact formulas; tolerance 1e-14 (round-off only) */
  for (PetscInt kd = 0; kd < 3; kd++) {
    PetscCall(MakeShape(&defs[kd], &s));
    PetscCall(FGShapeGetParameters(s, p));
    worst = 0;
    for (PetscInt i = 0; i < 100; i++) {
      PetscReal th = 2 * PETSC_PI * (i + 0.3) / 100, lx, ly;
      if (kd == 0) lx = p[3] * PetscCosReal(th), ly = p[3] * PetscSinReal(th);
      else if (kd == 1) lx = p[3] * PetscCosReal(th), ly = p[4] * PetscSinReal(th);
      else {
        PetscReal rr = p[3];
        for (PetscInt k = 1; k <= 3; k++) rr += p[3 + k] * PetscCosReal(k * th) + p[6 + k] * PetscSinReal(k * th);
        lx = rr * PetscCosReal(th), ly = rr * PetscSinReal(th);
      }
      Place(p, p[2], lx, ly, x);
      PetscCall(FGShapeLevelSet(s, x, &phi, NULL, NULL));
      worst = PetscMax(worst, PetscAbsReal(phi));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-10s %.2e (tol 1e-14)\n", defs[kd].label, (double)worst));
    PetscCall(Expect_Private((PetscBool)(worst <= 1e-14), "zero contour (exact kinds)"));
    /* inside and outside */
    PetscCall(FGShapeLevelSet(s, p, &phi, NULL, NULL));
    PetscCall(Expect_Private((PetscBool)(phi < 0), "centre inside"));
    x[0] = p[0] + 2, x[1] = p[1];
    PetscCall(FGShapeLevelSet(s, x, &phi, NULL, NULL));
    PetscCall(Expect_Private((PetscBool)(phi > 0), "far point outside"));
    PetscCall(FGShapeDestroy(&s));
  }
  /* NACA 0012 and 2412 from the standard formulas (thickness normal to the camber line) and from
     the vertical construction used here; tolerance 1e-10 c (Newton projection), 2e-3 c for the
     standard cambered section, which differs from the vertical construction by O(y_t (dy_c/dx)^2) */
  for (PetscInt kd = 3; kd <= 4; kd++) {
    PetscReal m, pc, t, c, wstd = 0, wvert = 0, a;
    PetscCall(MakeShape(&defs[kd], &s));
    PetscCall(FGShapeGetParameters(s, p));
    m = p[3], pc = p[4], t = p[5], c = p[6], a = -p[2];
    for (PetscInt i = 1; i < 200; i++) {
      PetscReal sx = 0.5 * (1 - PetscCosReal(PETSC_PI * i / 200)), yc, dyc, th, yt = NacaYt(t, sx);
      if (m == 0) yc = dyc = 0;
      else if (sx < pc) yc = m / (pc * pc) * (2 * pc * sx - sx * sx), dyc = 2 * m / (pc * pc) * (pc - sx);
      else yc = m / ((1 - pc) * (1 - pc)) * (1 - 2 * pc + 2 * pc * sx - sx * sx), dyc = 2 * m / ((1 - pc) * (1 - pc)) * (pc - sx);
      th = PetscAtanReal(dyc);
      for (PetscInt side = -1; side <= 1; side += 2) {
        Place(p, a, c * (sx - side * yt * PetscSinReal(th)), c * (yc + side * yt * PetscCosReal(th)), x);
        PetscCall(FGShapeLevelSet(s, x, &phi, NULL, NULL));
        wstd = PetscMax(wstd, PetscAbsReal(phi));
        Place(p, a, c * sx, c * (yc + side * yt), x);
        PetscCall(FGShapeLevelSet(s, x, &phi, NULL, NULL));
        wvert = PetscMax(wvert, PetscAbsReal(phi));
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-10s standard formula %.2e (tol %s), vertical construction %.2e (tol 1e-10)\n", defs[kd].label, (double)wstd, m == 0 ? "1e-10" : "2e-3", (double)wvert));
    PetscCall(Expect_Private((PetscBool)(wvert <= 1e-10 * c && wstd <= (m == 0 ? 1e-10 : 2e-3) * c), "NACA zero contour"));
    x[0] = p[0] + 0.3 * c * PetscCosReal(a), x[1] = p[1] + 0.3 * c * PetscSinReal(a);
    PetscCall(FGShapeLevelSet(s, x, &phi, NULL, NULL));
    PetscCall(Expect_Private((PetscBool)(phi < 0), "NACA mid-chord inside"));
    PetscCall(FGShapeDestroy(&s));
  }
  /* CST from its formula; B-spline curve points; tolerance 1e-10 */
  for (PetscInt kd = 5; kd <= 6; kd++) {
    PetscInt n = defs[kd].n;
    PetscCall(MakeShape(&defs[kd], &s));
    PetscCall(FGShapeGetParameters(s, p));
    worst = 0;
    for (PetscInt i = 1; i < 200; i++) {
      if (kd == 5) {
        PetscReal sx = 0.5 * (1 - PetscCosReal(PETSC_PI * i / 200)), c = p[3];
        for (PetscInt side = 0; side < 2; side++) {
          PetscReal sum = 0;
          for (PetscInt j = 0; j <= n; j++) {
            PetscReal b = 1;
            for (PetscInt l = 1; l <= j; l++) b = b * (n - j + l) / l;
            sum += p[4 + side * (n + 1) + j] * b * PetscPowRealInt(sx, j) * PetscPowRealInt(1 - sx, n - j);
          }
          Place(p, -p[2], c * sx, c * PetscSqrtReal(sx) * (1 - sx) * sum, x);
          PetscCall(FGShapeLevelSet(s, x, &phi, NULL, NULL));
          worst = PetscMax(worst, PetscAbsReal(phi));
        }
      } else {
        PetscCall(FGShapeCurvePoint(s, n * (i + 0.1) / 200.0, x));
        PetscCall(FGShapeLevelSet(s, x, &phi, NULL, NULL));
        worst = PetscMax(worst, PetscAbsReal(phi));
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-10s %.2e (tol 1e-10)\n", defs[kd].label, (double)worst));
    PetscCall(Expect_Private((PetscBool)(worst <= 1e-10), "CST/B-spline zero contour"));
    PetscCall(FGShapeDestroy(&s));
  }
  /* sphere, ellipsoid, extruded NACA (random z): 1e-14 / 1e-10 */
  for (PetscInt kd = 7; kd <= 9; kd++) {
    PetscCall(MakeShape(&defs[kd], &s));
    PetscCall(FGShapeGetParameters(s, p));
    worst = 0;
    for (PetscInt i = 0; i < 50; i++) {
      PetscReal th = PETSC_PI * (i + 0.5) / 50, ps = 2 * PETSC_PI * 0.37 * i, l[3];
      if (kd == 7) l[0] = p[4] * PetscSinReal(th) * PetscCosReal(ps), l[1] = p[4] * PetscSinReal(th) * PetscSinReal(ps), l[2] = p[4] * PetscCosReal(th);
      else if (kd == 8) l[0] = p[4] * PetscSinReal(th) * PetscCosReal(ps), l[1] = p[5] * PetscSinReal(th) * PetscSinReal(ps), l[2] = p[6] * PetscCosReal(th);
      else {
        PetscReal sx = 0.5 * (1 - PetscCosReal(th)), yt = NacaYt(p[6], sx), pc = p[5], mm = p[4], yc;
        yc   = sx < pc ? mm / (pc * pc) * (2 * pc * sx - sx * sx) : mm / ((1 - pc) * (1 - pc)) * (1 - 2 * pc + 2 * pc * sx - sx * sx);
        l[0] = p[7] * sx, l[1] = p[7] * (yc + (i % 2 ? yt : -yt)), l[2] = 3 * PetscSinReal(ps) - p[2];
      }
      Place(p, kd == 9 ? -p[3] : p[3], l[0], l[1], x);
      x[2] = p[2] + l[2];
      PetscCall(FGShapeLevelSet(s, x, &phi, NULL, NULL));
      worst = PetscMax(worst, PetscAbsReal(phi));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-10s %.2e (tol %s)\n", defs[kd].label, (double)worst, kd == 9 ? "1e-10" : "1e-14"));
    PetscCall(Expect_Private((PetscBool)(worst <= (kd == 9 ? 1e-10 : 1e-14)), "3D zero contour"));
    PetscCall(FGShapeDestroy(&s));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- 3. functionals ------------------------------------------------------------------------- */
typedef enum {
  F_AREA,
  F_CX,
  F_CY,
  F_PERIM,
  F_THICK
} FuncKind;
static const char *fnames[] = {"area", "centroid x", "centroid y", "perimeter", "thickness"};

static PetscErrorCode EvalF(FGShape s, const FGSampleGrid *g, PetscReal eps, FuncKind f, PetscReal *F, PetscReal dF[])
{
  PetscReal xc[3], dxc[3 * FG_SHAPE_MAX_PARAMS];
  PetscInt  np;

  PetscFunctionBeginUser;
  PetscCall(FGShapeGetNumParameters(s, &np));
  switch (f) {
  case F_AREA:
    PetscCall(FGShapeArea(s, g, eps, F, dF));
    break;
  case F_CX:
  case F_CY:
    PetscCall(FGShapeCentroid(s, g, eps, xc, dF ? dxc : NULL));
    *F = xc[f - F_CX];
    if (dF) PetscCall(PetscArraycpy(dF, dxc + (f - F_CX) * np, np));
    break;
  case F_PERIM:
    PetscCall(FGShapePerimeter(s, g, eps, 1e-3 / g->h[0], F, dF));
    break;
  case F_THICK:
    PetscCall(FGShapeThickness(s, 0.3, F, dF));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckFunctional(const char *label, FGShape s, const FGSampleGrid *g, PetscReal eps, FuncKind f)
{
  PetscInt  np, nk;
  PetscReal p[FG_SHAPE_MAX_PARAMS], pp[FG_SHAPE_MAX_PARAMS], F, dF[FG_SHAPE_MAX_PARAMS], fd[FG_SHAPE_MAX_PARAMS], gmax = 0, worst = 0;

  PetscFunctionBeginUser;
  PetscCall(FGShapeGetNumParameters(s, &np));
  PetscCall(FGShapeGetParameters(s, p));
  PetscCall(EvalF(s, g, eps, f, &F, dF));
  nk = PetscMin(np, 7); /* placement and the first kind parameters (runtime) */
  for (PetscInt k = 0; k < nk; k++) {
    PetscReal h = 1e-6 * PetscMax(PetscAbsReal(p[k]), 1.0), Fp, Fm;
    PetscCall(PetscArraycpy(pp, p, np));
    pp[k] = p[k] + h;
    PetscCall(FGShapeSetParameters(s, pp));
    PetscCall(EvalF(s, g, eps, f, &Fp, NULL));
    pp[k] = p[k] - h;
    PetscCall(FGShapeSetParameters(s, pp));
    PetscCall(EvalF(s, g, eps, f, &Fm, NULL));
    fd[k] = (Fp - Fm) / (2 * h);
    
  }
  PetscCall(FGShapeSetParameters(s, p));
  for (PetscInt k = 0; k < np; k++) gmax = PetscMax(gmax, PetscAbsReal(dF[k]));
  for (PetscInt k = 0; k < nk; k++) worst = PetscMax(worst, RelErr_Private(dF[k], fd[k], 1e-2 * gmax));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  [%5.1fs] %-10s %-10s F = %-12.6g max|dF/dp| = %-10.4g worst rel err %.2e\n", (double)(MPI_Wtime() - t0), label, fnames[f], (double)F, (double)gmax, (double)worst));
  PetscCall(Expect_Private((PetscBool)(worst <= 1e-6 && gmax > 0), "functional gradient"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckFunctionals(void)
{
  FGShape      s;
  FGSampleGrid g2 = {2, {48, 48, 1}, {-0.8, -0.8, 0}, {1.6 / 48, 1.6 / 48, 1}};
  FGSampleGrid ga = {2, {60, 30, 1}, {-0.7, -0.35, 0}, {1.4 / 60, 0.7 / 30, 1}};
  FGSampleGrid g3 = {3, {24, 24, 24}, {-0.6, -0.6, -0.6}, {0.05, 0.05, 0.05}};

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "functionals: gradient vs central FD\n"));
  for (PetscInt kd = 0; kd <= 8; kd++) {
    const FGSampleGrid *g   = kd == 7 || kd == 8 ? &g3 : (kd >= 3 && kd <= 5 ? &ga : &g2);
    PetscReal           eps = 2 * g->h[0];
    if (kd == 4) continue; /* NACA 0012 stands for the NACA kind */
    PetscCall(MakeShape(&defs[kd], &s));
    for (FuncKind f = F_AREA; f <= F_THICK; f++) {
      if (f == F_THICK && !(kd == 3 || kd == 5)) continue;
      if (kd >= 7 && (f == F_CY || f == F_PERIM)) continue; /* 3D: volume, centroid x */
      PetscCall(CheckFunctional(defs[kd].label, s, g, eps, f));
    }
    PetscCall(FGShapeDestroy(&s));
  }
  /* circle area and perimeter -> pi R^2, 2 pi R as h and eps = 1.5 h shrink */
  {
    PetscReal R = 0.37, prevA = 1, prevP = 1;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "circle R = %g: area and perimeter on grids with eps = 1.5 h\n", (double)R));
    PetscCall(FGShapeCreate(FG_SHAPE_CIRCLE, 0, &s));
    PetscCall(FGShapeSetParameter(s, "r", R));
    PetscCall(FGShapeSetParameter(s, "x0", 0.013));
    PetscCall(FGShapeSetParameter(s, "y0", -0.021));
    for (PetscInt n = 32; n <= 256; n *= 2) {
      FGSampleGrid g = {2, {n, n, 1}, {-0.5, -0.5, 0}, {1.0 / n, 1.0 / n, 1}};
      PetscReal    A, P, eA, eP;
      PetscCall(FGShapeArea(s, &g, 1.5 / n, &A, NULL));
      PetscCall(FGShapePerimeter(s, &g, 1.5 / n, 1e-3 * n, &P, NULL));
      eA = PetscAbsReal(A - PETSC_PI * R * R) / (PETSC_PI * R * R);
      eP = PetscAbsReal(P - 2 * PETSC_PI * R) / (2 * PETSC_PI * R);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  n = %4" PetscInt_FMT "  area rel err %.2e  perimeter rel err %.2e\n", n, (double)eA, (double)eP));
      PetscCall(Expect_Private((PetscBool)(eA < prevA && eP < 0.05), "area converges, perimeter within 5%"));
      prevA = eA, prevP = eP;
    }
    PetscCall(Expect_Private((PetscBool)(prevA < 1e-4 && prevP < 0.01), "area within 1e-4, perimeter within 1% at n = 256"));
    PetscCall(FGShapeDestroy(&s));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- 4. bad input --------------------------------------------------------------------------- */
static PetscErrorCode ExpectBad(FGShapeKind kind, PetscInt n, PetscInt nset, const char *const names[], const PetscReal vals[], const char *what)
{
  FGShape        s = NULL;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FGShapeCreate(kind, n, &s);
  if (!ierr) {
    for (PetscInt i = 0; i < nset && !ierr; i++) ierr = FGShapeSetParameter(s, names[i], vals[i]);
    if (!ierr) ierr = FGShapeValidate(s);
  }
  PetscCall(PetscPopErrorHandler());
  if (s) PetscCall(FGShapeDestroy(&s));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-40s -> error %d\n", what, (int)ierr));
  PetscCall(Expect_Private((PetscBool)(ierr == FG_ERR_INPUT), what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckBadInput(void)
{
  const char *r[] = {"r"}, *ab[] = {"a", "b"}, *abc[] = {"a", "b", "c"}, *m[] = {"m"}, *mp[] = {"m", "p"}, *t[] = {"t"}, *c[] = {"c"}, *fa[] = {"r0", "a1"}, *cs[] = {"Al1"}, *bad[] = {"nope"};
  const char *xy[] = {"X0", "Y0", "X1", "Y1", "X2", "Y2", "X3", "Y3", "X4", "Y4", "X5", "Y5", "X6", "Y6", "X7", "Y7"};
  PetscReal   eight[16];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bad input:\n"));
  PetscCall(ExpectBad(FG_SHAPE_CIRCLE, 0, 1, r, (PetscReal[]){0.0}, "circle r = 0"));
  PetscCall(ExpectBad(FG_SHAPE_SPHERE, 0, 1, r, (PetscReal[]){-1.0}, "sphere r = -1"));
  PetscCall(ExpectBad(FG_SHAPE_ELLIPSE, 0, 2, ab, (PetscReal[]){0.5, -0.1}, "ellipse b = -0.1"));
  PetscCall(ExpectBad(FG_SHAPE_ELLIPSOID, 0, 3, abc, (PetscReal[]){0.5, 0.3, 0.0}, "ellipsoid c = 0"));
  PetscCall(ExpectBad(FG_SHAPE_FOURIER, 2, 2, fa, (PetscReal[]){0.5, 0.6}, "fourier r(theta) < 0"));
  PetscCall(ExpectBad(FG_SHAPE_NACA4, 0, 1, m, (PetscReal[]){0.1}, "naca m = 0.1"));
  PetscCall(ExpectBad(FG_SHAPE_NACA4, 0, 1, m, (PetscReal[]){-0.01}, "naca m = -0.01"));
  PetscCall(ExpectBad(FG_SHAPE_NACA4, 0, 2, mp, (PetscReal[]){0.02, 0.05}, "naca p = 0.05 with m = 0.02"));
  PetscCall(ExpectBad(FG_SHAPE_NACA4, 0, 2, mp, (PetscReal[]){0.02, 0.95}, "naca p = 0.95 with m = 0.02"));
  PetscCall(ExpectBad(FG_SHAPE_NACA4, 0, 1, t, (PetscReal[]){0.0}, "naca t = 0"));
  PetscCall(ExpectBad(FG_SHAPE_NACA4, 0, 1, t, (PetscReal[]){0.45}, "naca t = 0.45"));
  PetscCall(ExpectBad(FG_SHAPE_NACA4, 0, 1, c, (PetscReal[]){-1.0}, "naca c = -1"));
  PetscCall(ExpectBad(FG_SHAPE_CST, 2, 1, c, (PetscReal[]){0.0}, "cst c = 0"));
  PetscCall(ExpectBad(FG_SHAPE_CST, 2, 1, cs, (PetscReal[]){0.5}, "cst surfaces cross"));
  PetscCall(ExpectBad(FG_SHAPE_BSPLINE, 3, 0, NULL, NULL, "bspline with 3 control points"));
  PetscCall(ExpectBad(FG_SHAPE_CIRCLE, 0, 1, bad, (PetscReal[]){1.0}, "unknown parameter name"));
  for (PetscInt i = 0; i < 8; i++) { /* figure eight */
    PetscReal th = 2 * PETSC_PI * i / 8;
    eight[2 * i] = 0.5 * PetscCosReal(th), eight[2 * i + 1] = 0.25 * PetscSinReal(2 * th);
  }
  PetscCall(ExpectBad(FG_SHAPE_BSPLINE, 8, 16, xy, eight, "self-intersecting bspline (figure eight)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscRandom r;

  PetscCall(FGInitialize(&argc, &argv, NULL));
  t0 = MPI_Wtime();
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dbg", &dbg, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &r));
  PetscCall(PetscRandomSetSeed(r, 12345));
  PetscCall(PetscRandomSeed(r));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "derivatives vs central FD (%d points per shape):\n", NPTS));
  for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
    FGShape s;
    PetscCall(MakeShape(&defs[i], &s));
    PetscCall(CheckDerivatives(defs[i].label, s, defs[i].scale, r));
    PetscCall(FGShapeDestroy(&s));
  }
  PetscCall(PetscRandomDestroy(&r));
  PetscCall(CheckZeroContour());
  PetscCall(CheckOutline());
  PetscCall(CheckFunctionals());
  PetscCall(CheckBadInput());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failures\n", fails ? "FAIL" : "PASS", fails));
  PetscCall(FGFinalize());
  return fails ? 1 : 0;
}
