/*
  Parameterized shapes: smooth level sets and masks, with exact derivatives (what a shape
  measures, its bounding box and functionals on a sample grid: shape_geometry.c).

  A shape is a kind, a parameter vector p = [placement, kind parameters] and a name. In the body
  frame the local coordinates of a point x are

    \xi = R(\theta)^T (x - x_0),   R(\theta) = [[cos \theta, -sin \theta], [sin \theta, cos \theta]]

  (3D: the same rotation about z, \zeta = z - z_0). \theta is the "angle" parameter; airfoils use
  \theta = -aoa so that a positive angle of attack lifts the nose for a flow in +x. The level set
  \phi(x; p) = f(\xi(x; x_0, \theta); q) is negative inside. Its derivatives follow from the chain
  rule: \partial\phi/\partial x = R \nabla_\xi f, \partial\phi/\partial x_0 = -\partial\phi/\partial x,
  \partial\phi/\partial\theta = f_\xi \eta - f_\eta \xi. All of them, and \partial f/\partial q,
  are computed in one pass with forward-mode dual numbers (AD below): every derivative is the
  derivative of what the code computes, to round-off.

  Local level sets f(\xi; q):
    circle     f = |\xi| - r                                           (exact signed distance)
    ellipse    f = \rho(\rho - 1)/k,  \rho = |(\xi/a, \eta/b)|, k = |(\xi/a^2, \eta/b^2)|
               exact zero contour, |\nabla f| = 1 on it, a first-order distance estimate off it
    Fourier    f = |\xi| - r(\vartheta),  \vartheta = atan2(\eta, \xi)   (a level set, |\nabla f| != 1)
    sphere, ellipsoid: the 3D versions of circle and ellipse
    extruded   f(\xi, \eta, \zeta) = f_{2D}(\xi, \eta)     (infinite extrusion along z, no end caps)
  (circle, ellipse, Fourier, sphere, ellipsoid are singular only at \xi = 0, deep inside the body,
   where \chi = 1 identically as long as the body is thicker than \epsilon.)

  Curves (NACA 4-digit, CST, periodic cubic B-spline): a closed curve C(t; q) with a coarse search
  on M samples then Newton on g(t) = (C(t) - \xi)\cdot C'(t) = 0 gives the closest point t^*, and

    f = (\xi - C(t^*))\cdot n(t^*),   n = outward unit normal,

  a signed distance. With t^* and n frozen, \partial f/\partial q = -C_q(t^*)\cdot n exactly, because
  \partial f/\partial t = 0 at the projection and n\cdot\partial n = 0 (envelope theorem). A point
  whose closest point is the trailing-edge corner (airfoils, t^* clamped at an end; Newton runs from
  both ends there) is outside and gets f = |\xi - C|, the distance to the corner. f is smooth except on the medial axis, which for
  airfoils reaches the surface only at the trailing edge (inside the last cells of a sharp TE).

    NACA 4-digit, u in [-1, 1] (lower TE -> LE -> upper TE), s = u^2:
      x = c s,  y = c [y_c(s) + T(u)],  T(u) = sign(u) y_t(|u|^2)   (thickness added vertically)
      y_t = 5t(0.2969 sqrt(s) - 0.1260 s - 0.3516 s^2 + 0.2843 s^3 - 0.1036 s^4)  (closed TE)
      y_c = m/p^2 (2ps - s^2) (s < p),  m/(1-p)^2 (1 - 2p + 2ps - s^2) (s >= p)
      In u the leading edge is smooth (x = c u^2, y ~ 1.48 t c u); the curve is C^1 (curvature
      jumps at the LE by the -0.126 s term and at s = p by the camber line).
    CST (Kulfan), N1 = 0.5, N2 = 1: y = c sqrt(s)(1 - s) \sum_i A_i B_i^n(s), A = Au (u >= 0),
      Al (u < 0); the LE is C^1 when Al_0 = -Au_0.
    B-spline: C(t) = \sum_{k=0}^3 b_k(t - j) P_{(j+k) mod n}, j = floor(t), t in [0, n), uniform
      cubic basis (C^2 closed curve).

  Mask: \chi = H_\epsilon(-\phi) with the C^2 quintic smoothed Heaviside
    H(s) = 0 (s <= -\epsilon), 1 (s >= \epsilon), 1/2 + 15/16 r - 5/8 r^3 + 3/16 r^5, r = s/\epsilon,
    H'(s) = 15/(16\epsilon)(1 - r^2)^2.
  Exact 0/1 outside the band |\phi| < \epsilon: \partial\chi/\partial p vanishes there, so the
  adjoint of the mask touches only the band cells; H is C^2, so \chi is C^2 in p wherever \phi is.

  Airfoil thickness at a chord fraction s (computed in the dual numbers, so here):
  2 c y_t(s) (NACA), c sqrt(s)(1 - s)(\sum Au_i B_i - \sum Al_i B_i) (CST).
*/
#include "shapeimpl.h"

/* ---------------------------------------------------------------------------------------------
   Forward-mode dual numbers: value and derivatives with respect to the first adn_ inputs.
   Serial use (one evaluation at a time per process), as everywhere in flowgrad. */
#define AD_MAX (FG_SHAPE_MAX_PARAMS + 3)
static PetscInt adn_ = 0;

static const char *const KindNames_Private[] = {"circle", "ellipse", "fourier", "naca4", "cst", "bspline", "sphere", "ellipsoid", "extruded"};

static PetscBool IsCurve_Private(FGShapeKind k)
{
  return (PetscBool)(k == FG_SHAPE_NACA4 || k == FG_SHAPE_CST || k == FG_SHAPE_BSPLINE);
}

/* number of kind parameters of a 2D or 3D kind with size argument n */
static PetscErrorCode KindNumParameters_Private(FGShapeKind kind, PetscInt n, PetscInt *nq)
{
  PetscFunctionBeginUser;
  switch (kind) {
  case FG_SHAPE_CIRCLE:
  case FG_SHAPE_SPHERE:
    *nq = 1;
    break;
  case FG_SHAPE_ELLIPSE:
    *nq = 2;
    break;
  case FG_SHAPE_ELLIPSOID:
    *nq = 3;
    break;
  case FG_SHAPE_FOURIER:
    PetscCheck(n >= 0, PETSC_COMM_SELF, FG_ERR_INPUT, "fourier shape: number of modes %" PetscInt_FMT " < 0", n);
    *nq = 1 + 2 * n;
    break;
  case FG_SHAPE_NACA4:
    *nq = 4;
    break;
  case FG_SHAPE_CST:
    PetscCheck(n >= 1, PETSC_COMM_SELF, FG_ERR_INPUT, "cst shape: Bernstein order %" PetscInt_FMT " < 1", n);
    *nq = 1 + 2 * (n + 1);
    break;
  case FG_SHAPE_BSPLINE:
    PetscCheck(n >= 4, PETSC_COMM_SELF, FG_ERR_INPUT, "bspline shape: %" PetscInt_FMT " control points, need at least 4", n);
    *nq = 2 * n;
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, FG_ERR_INPUT, "unknown shape kind %d", (int)kind);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* names and default values of the kind parameters, written at q */
static PetscErrorCode KindDefaults_Private(FGShape s)
{
  PetscInt   o = s->nplace, n = s->nk;
  PetscReal *q = s->p + o;
  char(*nm)[16] = s->pname + o;

  PetscFunctionBeginUser;
  switch (s->section) {
  case FG_SHAPE_CIRCLE:
  case FG_SHAPE_SPHERE:
    PetscCall(PetscStrcpy(nm[0], "r"));
    q[0] = 0.5;
    break;
  case FG_SHAPE_ELLIPSE:
    PetscCall(PetscStrcpy(nm[0], "a"));
    PetscCall(PetscStrcpy(nm[1], "b"));
    q[0] = 0.5;
    q[1] = 0.25;
    break;
  case FG_SHAPE_ELLIPSOID:
    PetscCall(PetscStrcpy(nm[0], "a"));
    PetscCall(PetscStrcpy(nm[1], "b"));
    PetscCall(PetscStrcpy(nm[2], "c"));
    q[0] = 0.5;
    q[1] = 0.4;
    q[2] = 0.3;
    break;
  case FG_SHAPE_FOURIER:
    PetscCall(PetscStrcpy(nm[0], "r0"));
    q[0] = 0.5;
    for (PetscInt k = 1; k <= n; k++) {
      PetscCall(PetscSNPrintf(nm[k], 16, "a%" PetscInt_FMT, k));
      PetscCall(PetscSNPrintf(nm[n + k], 16, "b%" PetscInt_FMT, k));
      q[k] = q[n + k] = 0;
    }
    break;
  case FG_SHAPE_NACA4:
    PetscCall(PetscStrcpy(nm[0], "m"));
    PetscCall(PetscStrcpy(nm[1], "p"));
    PetscCall(PetscStrcpy(nm[2], "t"));
    PetscCall(PetscStrcpy(nm[3], "c"));
    q[0] = 0;
    q[1] = 0.4;
    q[2] = 0.12;
    q[3] = 1;
    break;
  case FG_SHAPE_CST:
    PetscCall(PetscStrcpy(nm[0], "c"));
    q[0] = 1;
    for (PetscInt i = 0; i <= n; i++) {
      PetscCall(PetscSNPrintf(nm[1 + i], 16, "Au%" PetscInt_FMT, i));
      PetscCall(PetscSNPrintf(nm[2 + n + i], 16, "Al%" PetscInt_FMT, i));
      q[1 + i]     = 0.15;
      q[2 + n + i] = -0.15;
    }
    break;
  case FG_SHAPE_BSPLINE:
    for (PetscInt i = 0; i < n; i++) {
      PetscCall(PetscSNPrintf(nm[2 * i], 16, "X%" PetscInt_FMT, i));
      PetscCall(PetscSNPrintf(nm[2 * i + 1], 16, "Y%" PetscInt_FMT, i));
      q[2 * i]     = 0.5 * PetscCosReal(2 * PETSC_PI * i / n);
      q[2 * i + 1] = 0.5 * PetscSinReal(2 * PETSC_PI * i / n);
    }
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, FG_ERR_INPUT, "unknown shape kind %d", (int)s->section);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ShapeCreate_Private(FGShapeKind kind, FGShapeKind section, PetscInt n, FGShape *shape)
{
  FGShape  s;
  PetscInt nq;

  PetscFunctionBeginUser;
  PetscCall(KindNumParameters_Private(section, n, &nq));
  PetscCall(PetscNew(&s));
  s->kind    = kind;
  s->section = section;
  s->dim     = (kind == FG_SHAPE_SPHERE || kind == FG_SHAPE_ELLIPSOID || kind == FG_SHAPE_EXTRUDED) ? 3 : 2;
  s->nplace  = s->dim + 1;
  s->nk      = n;
  s->np      = s->nplace + nq;
  if (s->np > FG_SHAPE_MAX_PARAMS) {
    PetscCall(PetscFree(s));
    SETERRQ(PETSC_COMM_SELF, FG_ERR_INPUT, "%s shape: %" PetscInt_FMT " parameters, at most %d", KindNames_Private[kind], nq + s->dim + 1, FG_SHAPE_MAX_PARAMS);
  }
  for (PetscInt d = 0; d < s->dim; d++) PetscCall(PetscSNPrintf(s->pname[d], 16, "%c0", "xyz"[d]));
  PetscCall(PetscStrcpy(s->pname[s->dim], FGShapeIsAirfoil_Internal(section) ? "aoa" : "angle"));
  PetscCall(PetscStrcpy(s->name, KindNames_Private[kind]));
  PetscCall(KindDefaults_Private(s));
  *shape = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeCreate - Creates a shape of a given kind with default parameters.

  Not Collective

  Input Parameters:
+ kind - any kind but FG_SHAPE_EXTRUDED (see FGShapeCreateExtruded())
- n    - number of Fourier modes K (FG_SHAPE_FOURIER), Bernstein order (FG_SHAPE_CST), number of
         control points (FG_SHAPE_BSPLINE); ignored otherwise

  Output Parameter:
. shape - the shape; parameters [placement, kind parameters] are listed in include/fg/shape.h

  Notes:
  Defaults: placement at the origin, angle 0; circle r = 0.5; ellipse 0.5 x 0.25; NACA 0012 with
  c = 1; CST with all Au = 0.15, Al = -0.15; B-spline control points on a circle of radius 0.5.

.seealso: FGShapeSetParameters(), FGShapeValidate(), FGShapeLevelSet(), FGShapeDestroy()
@*/
PetscErrorCode FGShapeCreate(FGShapeKind kind, PetscInt n, FGShape *shape)
{
  PetscFunctionBeginUser;
  PetscCheck(kind != FG_SHAPE_EXTRUDED, PETSC_COMM_SELF, FG_ERR_INPUT, "use FGShapeCreateExtruded() for an extruded shape");
  PetscCall(ShapeCreate_Private(kind, kind, n, shape));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeCreateExtruded - Creates a 3D shape that extrudes a 2D section infinitely along z.

  Not Collective

  Input Parameters:
+ section - a 2D kind (circle, ellipse, fourier, naca4, cst, bspline)
- n       - as in FGShapeCreate() for the section

  Output Parameter:
. shape - parameters [x0, y0, z0, angle/aoa, section parameters]; z0 is inert (derivative 0)

  Notes:
  \phi_3D(x, y, z) = \phi_2D(x, y): for a span across a periodic domain or between walls. No end caps.

.seealso: FGShapeCreate()
@*/
PetscErrorCode FGShapeCreateExtruded(FGShapeKind section, PetscInt n, FGShape *shape)
{
  PetscFunctionBeginUser;
  PetscCheck(section <= FG_SHAPE_BSPLINE, PETSC_COMM_SELF, FG_ERR_INPUT, "extruded shape: the section must be a 2D kind, got %s", KindNames_Private[section]);
  PetscCall(ShapeCreate_Private(FG_SHAPE_EXTRUDED, section, n, shape));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeDuplicate - a new shape with the kind, name and parameters of another (to evaluate it
  without touching the original, e.g. a body's shape posed elsewhere).

  Not Collective
@*/
PetscErrorCode FGShapeDuplicate(FGShape shape, FGShape *copy)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(copy));
  **copy = *shape;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeDestroy - Destroys a shape.
@*/
PetscErrorCode FGShapeDestroy(FGShape *shape)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(*shape));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeSetName - Sets the name used in error messages (for example the case-file body name).
@*/
PetscErrorCode FGShapeSetName(FGShape s, const char name[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(s->name, name, sizeof(s->name)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeGetDimension - Gets the space dimension (2 or 3) of a shape.
@*/
PetscErrorCode FGShapeGetDimension(FGShape s, PetscInt *dim)
{
  PetscFunctionBeginUser;
  *dim = s->dim;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeGetNumParameters - Gets the length of the parameter vector, placement included.
@*/
PetscErrorCode FGShapeGetNumParameters(FGShape s, PetscInt *np)
{
  PetscFunctionBeginUser;
  *np = s->np;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeGetParameterName - Gets the name of parameter k ("x0", "angle", "r", "Au2", "X3", ...).
@*/
PetscErrorCode FGShapeGetParameterName(FGShape s, PetscInt k, const char **name)
{
  PetscFunctionBeginUser;
  PetscCheck(k >= 0 && k < s->np, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "shape '%s': parameter %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", s->name, k, s->np);
  *name = s->pname[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeSetParameters - Sets the whole parameter vector (length FGShapeGetNumParameters()).

  Notes:
  Does not validate (finite-difference perturbations may pass through); call FGShapeValidate().
@*/
PetscErrorCode FGShapeSetParameters(FGShape s, const PetscReal p[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(s->p, p, s->np));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeGetParameters - Copies the parameter vector out.
@*/
PetscErrorCode FGShapeGetParameters(FGShape s, PetscReal p[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(p, s->p, s->np));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeSetParameter - Sets one parameter by name; FG_ERR_INPUT for an unknown name.
@*/
PetscErrorCode FGShapeSetParameter(FGShape s, const char name[], PetscReal v)
{
  PetscBool eq;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < s->np; k++) {
    PetscCall(PetscStrcmp(s->pname[k], name, &eq));
    if (eq) {
      s->p[k] = v;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  SETERRQ(PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s' (%s): no parameter named '%s'", s->name, KindNames_Private[s->kind], name);
}

/* ---------------------------------------------------------------------------------------------
   Curves: C(t; q) for NACA 4-digit, CST and periodic B-spline. q are the kind parameters. */
static void CurveRange_Private(FGShape s, PetscReal *ta, PetscReal *tb, PetscBool *periodic, PetscInt *M)
{
  if (s->section == FG_SHAPE_BSPLINE) {
    *ta       = 0;
    *tb       = (PetscReal)s->nk;
    *periodic = PETSC_TRUE;
    *M        = 16 * s->nk;
  } else {
    *ta       = -1;
    *tb       = 1;
    *periodic = PETSC_FALSE;
    *M        = 400;
  }
}

/* the dual numbers (src/body/shape_ad.inc): AD with every derivative a shape can have, ADs with
   AD_SMALL of them (what the mask of a grid needs, and all the derivatives of a simple shape) */
#define AD_SMALL 8
static void CurveProject_Private(FGShape, const PetscReal[], const PetscReal[2], PetscReal *, PetscReal[2], PetscBool *);
#define AD_T  AD
#define AD_N  AD_MAX
#define AD_(f) f
#define AD_INIT
#include "shape_ad.inc"
#undef AD_T
#undef AD_N
#undef AD_
#undef AD_INIT
#define AD_T  ADs
#define AD_N  AD_SMALL
#define AD_(f) f##_s
#define AD_INIT = {0}
#include "shape_ad.inc"
#undef AD_T
#undef AD_N
#undef AD_
#undef AD_INIT

/* C(t) and C'(t) in plain reals (q values only) */
static void CurveValue_Private(FGShape s, const PetscReal qv[], PetscReal t, PetscReal C[2], PetscReal dC[2])
{
  PetscInt save = adn_;
  ADs      q[FG_SHAPE_MAX_PARAMS], X[2]; /* one derivative: the small dual numbers */
  PetscInt nq   = s->np - s->nplace;

  adn_ = 1;
  for (PetscInt k = 0; k < nq; k++) q[k] = adc_s(qv[k]);
  CurvePoint_Private_s(s, q, adseed_s(t, 0), X);
  adn_ = save;
  for (PetscInt d = 0; d < 2; d++) {
    C[d] = X[d].v;
    if (dC) dC[d] = X[d].d[0];
  }
}

/* g(t) = (C - xi).C' and g'(t) = |C'|^2 + (C - xi).C'' (C'' by a central difference of C') */
static void CurveG_Private(FGShape s, const PetscReal qv[], const PetscReal xi[2], PetscReal t, PetscReal h, PetscReal *g, PetscReal *gp, PetscReal *nC2)
{
  PetscReal C[2], dC[2], Cm[2], Cp[2], dCm[2], dCp[2], ddC[2];

  CurveValue_Private(s, qv, t, C, dC);
  CurveValue_Private(s, qv, t - h, Cm, dCm);
  CurveValue_Private(s, qv, t + h, Cp, dCp);
  ddC[0] = (dCp[0] - dCm[0]) / (2 * h);
  ddC[1] = (dCp[1] - dCm[1]) / (2 * h);
  *nC2   = dC[0] * dC[0] + dC[1] * dC[1];
  *g     = (C[0] - xi[0]) * dC[0] + (C[1] - xi[1]) * dC[1];
  *gp    = *nC2 + (C[0] - xi[0]) * ddC[0] + (C[1] - xi[1]) * ddC[1];
}

/* Minimizes |C(t) - xi|^2 near the sample t: safeguarded Newton on g = 0 inside the bracket
   [t - dt, t + dt] (dt the sample spacing) when g changes sign there (bisection whenever a Newton
   step leaves the bracket, so it converges to round-off also across curvature jumps), an end of an
   open curve when g pushes past it, plain damped Newton otherwise */
static void CurveNewton_Private(FGShape s, const PetscReal qv[], const PetscReal xi[2], PetscReal ta, PetscReal tb, PetscBool periodic, PetscInt M, PetscReal *tio, PetscBool *atend, PetscReal *dist2)
{
  PetscReal L = tb - ta, h = 1e-7 * L, t = *tio, lo = t - L / M, hi = t + L / M, glo, ghi, g, gp, nC2, C[2];

  *atend = PETSC_FALSE;
  if (!periodic) lo = PetscMax(lo, ta), hi = PetscMin(hi, tb);
  CurveG_Private(s, qv, xi, lo, h, &glo, &gp, &nC2);
  CurveG_Private(s, qv, xi, hi, h, &ghi, &gp, &nC2);
  if (!periodic && lo == ta && glo >= 0 && (ghi >= 0 || t == ta)) {
    t      = ta;
    *atend = PETSC_TRUE;
  } else if (!periodic && hi == tb && ghi <= 0 && (glo <= 0 || t == tb)) {
    t      = tb;
    *atend = PETSC_TRUE;
  } else if (glo <= 0 && ghi >= 0) {
    for (PetscInt it = 0; it < 200 && hi - lo > 1e-15 * L; it++) {
      PetscReal tn;
      CurveG_Private(s, qv, xi, t, h, &g, &gp, &nC2);
      if (g == 0) break;
      if (g < 0) lo = t;
      else hi = t;
      tn = gp > 0 ? t - g / gp : 0.5 * (lo + hi);
      if (!(tn > lo && tn < hi)) tn = 0.5 * (lo + hi);
      if (PetscAbsReal(tn - t) < 1e-15 * L) {
        t = tn;
        break;
      }
      t = tn;
    }
  } else {
    for (PetscInt it = 0; it < 100; it++) {
      PetscReal dt;
      CurveG_Private(s, qv, xi, t, h, &g, &gp, &nC2);
      dt = gp > 0.1 * nC2 ? -g / gp : -g / (nC2 > 0 ? nC2 : 1);
      dt = PetscMax(-2 * L / M, PetscMin(2 * L / M, dt));
      t += dt;
      if (periodic) {
        t = ta + PetscFmodReal(t - ta, L);
        if (t < ta) t += L;
      } else if (t <= ta || t >= tb) {
        t      = t <= ta ? ta : tb;
        *atend = PETSC_TRUE;
        break;
      }
      if (PetscAbsReal(dt) < 1e-15 * L) break;
    }
  }
  CurveValue_Private(s, qv, t, C, NULL);
  *dist2 = (C[0] - xi[0]) * (C[0] - xi[0]) + (C[1] - xi[1]) * (C[1] - xi[1]);
  *tio   = t;
}

/* closest point t* of the curve to xi; returns the unit outward normal and whether t* is an end.
   Open curves (airfoils) start and end at the trailing edge: when the coarse search lands on an
   end, Newton runs from both ends and the nearer result wins. */
static void CurveProject_Private(FGShape s, const PetscReal qv[], const PetscReal xi[2], PetscReal *tstar, PetscReal n[2], PetscBool *atend)
{
  PetscReal ta, tb, L, best = PETSC_MAX_REAL, t = 0, area = 0, Pp[2] = {0, 0}, C[2], dC[2], orient, d2;
  PetscBool periodic, same = PETSC_FALSE;
  PetscInt  M, ibest = 0;

  CurveRange_Private(s, &ta, &tb, &periodic, &M);
  L = tb - ta;
  /* coarse samples and the orientation of the curve (signed area of the sample polygon), cached */
  same = s->cached;
  for (PetscInt k = 0; k < s->np - s->nplace && same; k++) same = (PetscBool)(s->cq[k] == qv[k]);
  if (!same) {
    for (PetscInt i = 0; i <= M; i++) {
      CurveValue_Private(s, qv, ta + L * i / M, C, NULL);
      s->samples[2 * i] = C[0], s->samples[2 * i + 1] = C[1];
      if (i > 0) area += Pp[0] * C[1] - C[0] * Pp[1];
      Pp[0] = C[0], Pp[1] = C[1];
    }
    area += Pp[0] * s->samples[1] - s->samples[0] * Pp[1];
    s->orient = area >= 0 ? 1.0 : -1.0;
    for (PetscInt k = 0; k < s->np - s->nplace; k++) s->cq[k] = qv[k];
    s->cached = PETSC_TRUE;
  }
  orient = s->orient;
  for (PetscInt i = 0; i <= M; i++) {
    PetscReal e2 = (s->samples[2 * i] - xi[0]) * (s->samples[2 * i] - xi[0]) + (s->samples[2 * i + 1] - xi[1]) * (s->samples[2 * i + 1] - xi[1]);
    if (e2 < best) {
      best  = e2;
      t     = ta + L * i / M;
      ibest = i;
    }
  }
  CurveNewton_Private(s, qv, xi, ta, tb, periodic, M, &t, atend, &d2);
  if (!periodic && (ibest == 0 || ibest == M)) {
    PetscReal t2 = ibest == 0 ? tb : ta, e2;
    PetscBool end2;
    CurveNewton_Private(s, qv, xi, ta, tb, periodic, M, &t2, &end2, &e2);
    if (e2 < d2) {
      t      = t2;
      *atend = end2;
    }
  }
  CurveValue_Private(s, qv, t, C, dC);
  {
    PetscReal nn = PetscSqrtReal(dC[0] * dC[0] + dC[1] * dC[1]);
    nn           = nn > 0 ? nn : 1;
    n[0]         = orient * dC[1] / nn;
    n[1]         = -orient * dC[0] / nn;
  }
  *tstar = t;
}


/*@C
  FGShapeLevelSet - Evaluates the level set phi(x; p) (negative inside) and its derivatives.

  Not Collective

  Input Parameters:
+ s - the shape
- x - the point (dim coordinates)

  Output Parameters:
+ phi    - the level set value (a signed distance for circle, sphere and the curve kinds)
. dphidx - d phi/dx (dim entries), or NULL
- dphidp - d phi/dp (FGShapeGetNumParameters() entries), or NULL

.seealso: FGShapeMask(), FGShapeCreate()
@*/
PetscErrorCode FGShapeLevelSet(FGShape s, const PetscReal x[], PetscReal *phi, PetscReal dphidx[], PetscReal dphidp[])
{
  PetscFunctionBeginUser;
  adn_ = dphidp ? s->dim + s->np : s->dim; /* without d/dp only the x-derivatives are carried (the mask of a grid) */
  if (adn_ <= AD_SMALL) PetscCall(LevelSet_Private_s(s, x, phi, dphidx, dphidp));
  else PetscCall(LevelSet_Private(s, x, phi, dphidx, dphidp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGHeaviside - The C^2 quintic smoothed Heaviside H_eps(s) and its derivative.

  Notes:
  H = 0 for s <= -eps, 1 for s >= eps, 1/2 + 15/16 r - 5/8 r^3 + 3/16 r^5 (r = s/eps) between;
  H' = 15/(16 eps) (1 - r^2)^2. The band is |s| < eps (set eps to 1-3 cells).
@*/
PetscErrorCode FGHeaviside(PetscReal sv, PetscReal eps, PetscReal *H, PetscReal *dH)
{
  PetscReal r = sv / eps;

  PetscFunctionBeginUser;
  if (r <= -1) *H = 0, *dH = 0;
  else if (r >= 1) *H = 1, *dH = 0;
  else {
    PetscReal r2 = r * r;
    *H           = 0.5 + r * (15.0 / 16 + r2 * (-5.0 / 8 + r2 * 3.0 / 16));
    *dH          = 15.0 / (16 * eps) * (1 - r2) * (1 - r2);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeMask - The smoothed mask chi = H_eps(-phi(x; p)) and its derivatives.

  Input Parameters:
+ s   - the shape
. eps - half-width of the smoothing band
- x   - the point

  Output Parameters:
+ chi    - the mask, 1 inside, 0 outside
. dchidx - d chi/dx, or NULL
- dchidp - d chi/dp = -H'(-phi) d phi/dp, or NULL

.seealso: FGHeaviside(), FGShapeLevelSet(), FGShapeMaskGrid()
@*/
PetscErrorCode FGShapeMask(FGShape s, PetscReal eps, const PetscReal x[], PetscReal *chi, PetscReal dchidx[], PetscReal dchidp[])
{
  PetscReal phi, dH, gx[3], gp[FG_SHAPE_MAX_PARAMS];

  PetscFunctionBeginUser;
  PetscCall(FGShapeLevelSet(s, x, &phi, gx, dchidp ? gp : NULL));
  PetscCall(FGHeaviside(-phi, eps, chi, &dH));
  if (dchidx)
    for (PetscInt d = 0; d < s->dim; d++) dchidx[d] = -dH * gx[d];
  if (dchidp)
    for (PetscInt k = 0; k < s->np; k++) dchidp[k] = -dH * gp[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeCurvePoint - A point of the curve of a curve kind (NACA, CST, B-spline), in global
  coordinates, at curve parameter t (airfoils: t in [-1, 1], t^2 = chord fraction, t > 0 upper;
  B-spline: t in [0, n)).
@*/
PetscErrorCode FGShapeCurvePoint(FGShape s, PetscReal t, PetscReal x[])
{
  PetscReal C[2], th = s->p[s->dim] * (FGShapeIsAirfoil_Internal(s->section) ? -1.0 : 1.0);

  PetscFunctionBeginUser;
  PetscCheck(IsCurve_Private(s->section), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "shape '%s' is not a curve kind", s->name);
  CurveValue_Private(s, s->p + s->nplace, t, C, NULL);
  x[0] = s->p[0] + PetscCosReal(th) * C[0] - PetscSinReal(th) * C[1];
  x[1] = s->p[1] + PetscSinReal(th) * C[0] + PetscCosReal(th) * C[1];
  if (s->dim == 3) x[2] = s->p[2];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Validation */

/* do segments [a,b] and [c,d] cross (proper intersection or touching)? */
static PetscBool SegCross_Private(const PetscReal a[2], const PetscReal b[2], const PetscReal c[2], const PetscReal d[2])
{
  PetscReal o1 = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  PetscReal o2 = (b[0] - a[0]) * (d[1] - a[1]) - (b[1] - a[1]) * (d[0] - a[0]);
  PetscReal o3 = (d[0] - c[0]) * (a[1] - c[1]) - (d[1] - c[1]) * (a[0] - c[0]);
  PetscReal o4 = (d[0] - c[0]) * (b[1] - c[1]) - (d[1] - c[1]) * (b[0] - c[0]);
  return (PetscBool)(o1 * o2 <= 0 && o3 * o4 <= 0);
}

/*@C
  FGShapeValidate - Checks the parameters of a shape; FG_ERR_INPUT with a message naming the shape.

  Not Collective

  Notes:
  Radii, semi-axes and chords must be positive; Fourier r(theta) > 0 on 4096 angles; NACA:
  m in [0, 0.095], p in [0.1, 0.9] unless m = 0, t in (0, 0.4]; CST: the upper surface above the
  lower on (0, 1) (999 stations); B-spline: the curve (16 points per segment) must not intersect
  itself nor have a vanishing tangent.
@*/
PetscErrorCode FGShapeValidate(FGShape s)
{
  const PetscReal *q  = s->p + s->nplace;
  const char      *nm = s->name, *kn = KindNames_Private[s->section];
  PetscInt         n  = s->nk;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < s->np; k++) PetscCheck(!PetscIsInfOrNanReal(s->p[k]), PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s' (%s): parameter %s is not finite", nm, kn, s->pname[k]);
  switch (s->section) {
  case FG_SHAPE_CIRCLE:
  case FG_SHAPE_SPHERE:
    PetscCheck(q[0] > 0, PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s' (%s): radius r = %g must be positive", nm, kn, (double)q[0]);
    break;
  case FG_SHAPE_ELLIPSE:
  case FG_SHAPE_ELLIPSOID:
    for (PetscInt d = 0; d < (s->section == FG_SHAPE_ELLIPSE ? 2 : 3); d++) PetscCheck(q[d] > 0, PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s' (%s): semi-axis %c = %g must be positive", nm, kn, "abc"[d], (double)q[d]);
    break;
  case FG_SHAPE_FOURIER:
    for (PetscInt i = 0; i < 4096; i++) {
      PetscReal th = 2 * PETSC_PI * i / 4096, r = q[0];
      for (PetscInt k = 1; k <= n; k++) r += q[k] * PetscCosReal(k * th) + q[n + k] * PetscSinReal(k * th);
      PetscCheck(r > 0, PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s' (%s): radius r(theta) = %g <= 0 at theta = %g", nm, kn, (double)r, (double)th);
    }
    break;
  case FG_SHAPE_NACA4:
    PetscCheck(q[0] >= 0 && q[0] <= 0.095, PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s' (%s): maximum camber m = %g outside [0, 0.095]", nm, kn, (double)q[0]);
    PetscCheck(q[0] == 0 || (q[1] >= 0.1 && q[1] <= 0.9), PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s' (%s): camber position p = %g outside [0.1, 0.9]", nm, kn, (double)q[1]);
    PetscCheck(q[2] > 0 && q[2] <= 0.4, PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s' (%s): thickness t = %g outside (0, 0.4]", nm, kn, (double)q[2]);
    PetscCheck(q[3] > 0, PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s' (%s): chord c = %g must be positive", nm, kn, (double)q[3]);
    break;
  case FG_SHAPE_CST:
    PetscCheck(q[0] > 0, PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s' (%s): chord c = %g must be positive", nm, kn, (double)q[0]);
    for (PetscInt i = 1; i < 1000; i++) {
      PetscReal x = i / 1000.0, du = 0;
      for (PetscInt j = 0; j <= n; j++) {
        PetscReal b = 1;
        for (PetscInt l = 1; l <= j; l++) b = b * (n - j + l) / l;
        du += (q[1 + j] - q[2 + n + j]) * b * PetscPowRealInt(x, j) * PetscPowRealInt(1 - x, n - j);
      }
      PetscCheck(du > 0, PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s' (%s): upper and lower surfaces cross at x/c = %g", nm, kn, (double)x);
    }
    break;
  case FG_SHAPE_BSPLINE: {
    PetscInt   N = 16 * n;
    PetscReal *P, dC[2], C[2];
    PetscCall(PetscMalloc1(2 * N, &P));
    for (PetscInt i = 0; i < N; i++) {
      CurveValue_Private(s, q, (PetscReal)i / 16, C, dC);
      P[2 * i] = C[0], P[2 * i + 1] = C[1];
      if (!(PetscSqrtReal(dC[0] * dC[0] + dC[1] * dC[1]) > 1e-12)) {
        PetscCall(PetscFree(P));
        SETERRQ(PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s' (%s): the curve has a vanishing tangent (coincident control points?)", nm, kn);
      }
    }
    for (PetscInt i = 0; i < N; i++)
      for (PetscInt j = i + 2; j < N; j++) {
        if (i == 0 && j == N - 1) continue;
        if (SegCross_Private(P + 2 * i, P + 2 * ((i + 1) % N), P + 2 * j, P + 2 * ((j + 1) % N))) {
          PetscCall(PetscFree(P));
          SETERRQ(PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s' (%s): the closed B-spline curve intersects itself (near curve parameters %g and %g)", nm, kn, (double)i / 16, (double)j / 16);
        }
      }
    PetscCall(PetscFree(P));
  } break;
  default:
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGShapeThickness - Airfoil thickness at chord fraction xs in (0, 1), from the analytic thickness
  distribution (NACA: 2 c y_t(xs), measured vertically; CST: c sqrt(xs)(1 - xs)(sum Au B - sum Al B)),
  and its derivatives with respect to all parameters.
@*/
PetscErrorCode FGShapeThickness(FGShape s, PetscReal xs, PetscReal *th, PetscReal dth[])
{
  AD       P[FG_SHAPE_MAX_PARAMS], *q, u, T;
  PetscInt n = s->nk;

  PetscFunctionBeginUser;
  PetscCheck(FGShapeIsAirfoil_Internal(s->section), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "shape '%s': thickness is defined for airfoils (naca4, cst) only", s->name);
  PetscCheck(xs > 0 && xs < 1, PETSC_COMM_SELF, FG_ERR_INPUT, "shape '%s': thickness station x/c = %g outside (0, 1)", s->name, (double)xs);
  adn_ = s->np;
  for (PetscInt k = 0; k < s->np; k++) P[k] = adseed(s->p[k], k);
  q = P + s->nplace;
  u = adc(PetscSqrtReal(xs));
  if (s->section == FG_SHAPE_NACA4) T = admul(adscale(admul(q[3], q[2]), 10), NacaThick_Private(u));
  else {
    AD sum = adc(0);
    for (PetscInt i = 0; i <= n; i++) sum = adadd(sum, admul(adsub(q[1 + i], q[2 + n + i]), Bernstein_Private(n, i, adc(xs))));
    T = admul(adscale(q[0], PetscSqrtReal(xs) * (1 - xs)), sum);
  }
  *th = T.v;
  if (dth)
    for (PetscInt k = 0; k < s->np; k++) dth[k] = T.d[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}
