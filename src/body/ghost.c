/*
  A sharp wall's shared ghost (body.<body>.shared_ghost; docs/bodies.md, "The shared ghost"): the
  velocity a face outside the body sees at a neighbour inside is not extrapolated along the axis
  that joins them (mask.c's linear and quadratic ghosts, one per face and axis), but taken from
  one profile per inside node that every neighbour reads alike. tests/validation/ghost_model.py
  is the scalar model of it: the axis ghosts' slope in the design jumps wherever a face crosses
  the surface obliquely, the shared one's does not.

  The profile at node G (a face position, inside or outside) evaluated at level set value p: along
  each axis e, the quadratic in phi through u = 0 at the wall and the first two faces out from G
  (the side phi grows towards), Q_e(p) = c1 u(z1) + c2 u(z2); blended over the axes with weights
  n_e^2 s(t_e), n the unit normal at G and s the C1 smoother t^2 (3 - 2 t) of the first face's
  distance t_e = min(phi(z1)/h1, 1) in its spacing (an axis whose first face sits on the wall
  drops out continuously). Where t_e < FG_SG_NEAR the axis's quadratic fades into the one through
  the second and third faces out (c1 grows as 1/t_e). A profile whose coefficients are still large
  (an axis nearly tangent to the wall left alone by the blend: a waist, a corner) is scaled down
  towards u_s (FG_SG_CMAX). The normal is differenced, (phi(G + d e) - phi(G - d e)) / 2d with d a
  quarter cell, so that every coefficient is a function of the level set at points.

  A face f outside (phi_f > 0) whose axis neighbour y lies inside sees in its viscous stencil
  nu w (u_y - u_f) the profile at y, nu w (sum_k c_k u_k - u_f): the profile's coefficient on f
  itself joins the implicit penalty (chi/eta = nu w (1 - c_f), c_f the coefficient of f at y: the
  face's own weight), the others an explicit term E = sum_k X_fk u_k from the stage's start
  velocity. Within a cell of the surface the face is also relaxed towards its own profile (from the
  faces beyond it) with the rate P = nu/h^2 (h/phi - 1)^2, which grows without bound at the
  surface; the sum is saturated smoothly, (c + P)/(1 + eta P) with the ghosts' part faded by
  1/(1 + eta P), so that chi -> 1 (the stiff value, as inside) at phi -> 0. A face inside (phi < 0)
  has chi = 1. E's coefficients X form one parallel AIJ matrix per component (a row reads faces up
  to three away along an axis and one across, on any rank).

  The design derivative. Every coefficient is evaluated in forward-mode dual numbers in the level
  set at the points it reads (FG_SG_MAXP at most: the face, its neighbours, each profile's four
  normal points and up to three faces per axis), so that its derivative is a sum over those points; with
  the shape's dphi/dtheta there (kept per face, FGSharedList) chi's derivative joins the
  linearization of penalize.c, X's gives its tangent dX (X's pattern) and, from the adjoint of X's
  entries (outer products Eb_f u_k on X's pattern, MatDiagonalScale), its adjoint.

  The body must be at rest (the profiles pass through u = 0 at the wall); 2D, with the line-flux
  continuity (lineflux.c), as measured in docs/bodies.md.
*/
#include "bodyimpl.h"

#define FG_SG_MAXP  64   /* level-set points a face's coefficients read */
#define FG_SG_MAXC  32   /* faces a face's explicit term reads */
#define FG_SG_DELTA 0.25 /* the normal's difference step, in cells */
#define FG_SG_NEAR  0.5  /* a first face nearer the wall than this (in cells) fades into the next pair */
#define FG_SG_CMAX  12.0 /* a profile's coefficients' 2-norm above which it is scaled down */

/* dual numbers in the level set at the points (every slot carried: a point registered after a
   number was made must find its slot 0 there) */
typedef struct {
  PetscReal v, d[FG_SG_MAXP];
} FGSGDual;

typedef struct {
  PetscInt  n;
  PetscReal y[FG_SG_MAXP][3], phi[FG_SG_MAXP];
} FGSGPoints;

static FGSGDual SGConst(PetscReal v)
{
  FGSGDual r;
  r.v = v;
  for (PetscInt i = 0; i < FG_SG_MAXP; i++) r.d[i] = 0;
  return r;
}
static FGSGDual SGLin(PetscReal s, FGSGDual a, PetscReal c) /* s a + c */
{
  for (PetscInt i = 0; i < FG_SG_MAXP; i++) a.d[i] *= s;
  a.v = s * a.v + c;
  return a;
}
static FGSGDual SGAdd(FGSGDual a, FGSGDual b)
{
  for (PetscInt i = 0; i < FG_SG_MAXP; i++) a.d[i] += b.d[i];
  a.v += b.v;
  return a;
}
static FGSGDual SGSub(FGSGDual a, FGSGDual b)
{
  for (PetscInt i = 0; i < FG_SG_MAXP; i++) a.d[i] -= b.d[i];
  a.v -= b.v;
  return a;
}
static FGSGDual SGMul(FGSGDual a, FGSGDual b)
{
  FGSGDual r;
  r.v = a.v * b.v;
  for (PetscInt i = 0; i < FG_SG_MAXP; i++) r.d[i] = a.d[i] * b.v + a.v * b.d[i];
  return r;
}
static FGSGDual SGSqrt(FGSGDual a) /* a.v > 0 */
{
  FGSGDual r;
  r.v = PetscSqrtReal(a.v);
  for (PetscInt i = 0; i < FG_SG_MAXP; i++) r.d[i] = a.d[i] / (2 * r.v);
  return r;
}
static FGSGDual SGDiv(FGSGDual a, FGSGDual b)
{
  FGSGDual r;
  r.v = a.v / b.v;
  for (PetscInt i = 0; i < FG_SG_MAXP; i++) r.d[i] = (a.d[i] - r.v * b.d[i]) / b.v;
  return r;
}

/* the C1 smoother z^2 (3 - 2 z), z clamped to [0, 1] */
static FGSGDual SGStep3(FGSGDual z)
{
  if (z.v <= 0) return SGConst(0);
  if (z.v >= 1) return SGConst(1);
  return SGMul(SGMul(z, z), SGLin(-2, z, 3));
}

/* phi at y as a dual number seeded in its point (a point already registered is reused) */
static PetscErrorCode SGPoint(FGShape shape, FGSGPoints *P, const PetscReal y[3], FGSGDual *r)
{
  PetscInt p;

  PetscFunctionBeginUser;
  for (p = 0; p < P->n; p++)
    if (P->y[p][0] == y[0] && P->y[p][1] == y[1] && P->y[p][2] == y[2]) break;
  if (p == P->n) {
    PetscCheck(P->n < FG_SG_MAXP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "shared ghost: more than %d level-set points at one face", FG_SG_MAXP);
    for (PetscInt d = 0; d < 3; d++) P->y[p][d] = y[d];
    PetscCall(FGShapeLevelSet(shape, y, &P->phi[p], NULL, NULL));
    P->n++;
  }
  *r = SGConst(P->phi[p]);
  r->d[p] = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A row's terms: face grid indices and dual coefficients (merged by face). */
typedef struct {
  PetscInt n, idx[FG_SG_MAXC][3];
  FGSGDual c[FG_SG_MAXC];
} FGSGTerms;

static PetscErrorCode SGTermAdd(FGSGTerms *T, const PetscInt idx[3], FGSGDual c)
{
  PetscInt k;

  PetscFunctionBeginUser;
  for (k = 0; k < T->n; k++)
    if (T->idx[k][0] == idx[0] && T->idx[k][1] == idx[1] && T->idx[k][2] == idx[2]) break;
  if (k == T->n) {
    PetscCheck(T->n < FG_SG_MAXC, PETSC_COMM_SELF, PETSC_ERR_PLIB, "shared ghost: more than %d terms at one face", FG_SG_MAXC);
    for (PetscInt d = 0; d < 3; d++) T->idx[k][d] = idx[d];
    T->c[k] = SGConst(0);
    T->n++;
  }
  T->c[k] = SGAdd(T->c[k], c);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The profile at node gidx (component a, at xg) evaluated at level set value pt: its terms, each
   times s, added to T. */
static PetscErrorCode SGProfile(FGBodies B, FGBodyItem *it, FGSGPoints *P, PetscInt a, const PetscInt gidx[], const PetscReal xg[], FGSGDual pt, PetscReal s, FGSGTerms *T)
{
  FGGrid          g   = B->g;
  const PetscReal del = FG_SG_DELTA * it->h;
  FGSGDual        gh[3], g2 = SGConst(0), wsum = SGConst(0), wd[3], c1[3], c2[3], c3[3];
  PetscInt        i1[3][3], i2[3][3], i3[3][3];
  PetscBool       on[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}, u3[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
  FGSGTerms       Tp; /* the profile's own terms */

  PetscFunctionBeginUser;
  for (PetscInt e = 0; e < g->dim; e++) { /* the differenced normal */
    PetscReal yp[3] = {xg[0], xg[1], xg[2]}, ym[3] = {xg[0], xg[1], xg[2]};
    FGSGDual  pp, pm;
    yp[e] += del, ym[e] -= del;
    PetscCall(SGPoint(it->shape, P, yp, &pp));
    PetscCall(SGPoint(it->shape, P, ym, &pm));
    gh[e] = SGLin(1 / (2 * del), SGSub(pp, pm), 0);
    g2    = SGAdd(g2, SGMul(gh[e], gh[e]));
  }
  if (g2.v <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt e = 0; e < g->dim; e++) {
    const PetscInt sg = gh[e].v > 0 ? 1 : -1;
    PetscReal      z1[3], z2[3], h1;
    FGSGDual       p1, p2, t, den;
    for (PetscInt q = 0; q < 3; q++) i1[e][q] = i2[e][q] = i3[e][q] = gidx[q];
    i1[e][e] += sg, i2[e][e] += 2 * sg, i3[e][e] += 3 * sg;
    FGBodySharpNeighbour_Internal(g, a, gidx, e, sg, xg, z1);
    FGBodySharpNeighbour_Internal(g, a, gidx, e, 2 * sg, xg, z2);
    PetscCall(SGPoint(it->shape, P, z1, &p1));
    PetscCall(SGPoint(it->shape, P, z2, &p2));
    if (p1.v <= 0 || p2.v <= 0) continue;
    h1 = PetscAbsReal(z1[e] - xg[e]);
    t  = p1.v >= h1 ? SGConst(1) : SGLin(1 / h1, p1, 0);
    /* n_e^2 t^2 (3 - 2 t) */
    wd[e] = SGMul(SGDiv(SGMul(gh[e], gh[e]), g2), SGMul(SGMul(t, t), SGLin(-2, t, 3)));
    if (wd[e].v <= 0) continue;
    on[e] = PETSC_TRUE;
    wsum  = SGAdd(wsum, wd[e]);
    /* the quadratic through (0, 0), (p1, u1), (p2, u2) at pt: c1 = pt (p2 - pt) / (p1 (p2 - p1)), c2 = pt (pt - p1) / (p2 (p2 - p1)) */
    den   = SGSub(p2, p1);
    c1[e] = SGDiv(SGMul(pt, SGSub(p2, pt)), SGMul(p1, den));
    c2[e] = SGDiv(SGMul(pt, SGSub(pt, p1)), SGMul(p2, den));
    c3[e] = SGConst(0);
    if (t.v < FG_SG_NEAR) {
      /* The first face within FG_SG_NEAR cells of the wall: c1 grows as 1/t (a node a cell inside
         extrapolates from a face at t h). So the quadratic fades, by s(t / FG_SG_NEAR), into the
         one through the second and third faces out (exact for the same profiles), or, where the
         third face lies inside, into the line through the second. Measured (the profiles' 2-norm
         |c|, below): without the fade up to 158 on 2D-1's circle at D/20, 132 on an ellipse, 374 on
         a B-spline (4-8 % of the profiles above FG_SG_CMAX); with it at most 3.1, 6.5 and 3.1. */
      const FGSGDual sig = SGStep3(SGLin(1 / FG_SG_NEAR, t, 0)), rest = SGLin(-1, sig, 1);
      PetscReal      z3[3];
      FGSGDual       p3, b2, b3;
      FGBodySharpNeighbour_Internal(g, a, gidx, e, 3 * sg, xg, z3);
      PetscCall(SGPoint(it->shape, P, z3, &p3));
      if (p3.v > 0) { /* b2 = pt (p3 - pt) / (p2 (p3 - p2)), b3 = pt (pt - p2) / (p3 (p3 - p2)) */
        const FGSGDual den3 = SGSub(p3, p2);
        b2 = SGDiv(SGMul(pt, SGSub(p3, pt)), SGMul(p2, den3));
        b3 = SGDiv(SGMul(pt, SGSub(pt, p2)), SGMul(p3, den3));
      } else b2 = SGDiv(pt, p2), b3 = SGConst(0);
      c1[e] = SGMul(sig, c1[e]);
      c2[e] = SGAdd(SGMul(sig, c2[e]), SGMul(rest, b2));
      c3[e] = SGMul(rest, b3), u3[e] = (PetscBool)(p3.v > 0);
    }
  }
  if (wsum.v <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  Tp.n = 0;
  for (PetscInt e = 0; e < g->dim; e++) {
    FGSGDual w;
    if (!on[e]) continue;
    w = SGDiv(wd[e], wsum);
    PetscCall(SGTermAdd(&Tp, i1[e], SGMul(w, c1[e])));
    PetscCall(SGTermAdd(&Tp, i2[e], SGMul(w, c2[e])));
    if (u3[e]) PetscCall(SGTermAdd(&Tp, i3[e], SGMul(w, c3[e])));
  }
  { /* The profile's size |c|, its coefficients' 2-norm, is O(1) where the axes see a wall a
       few cells thick (measured: at most 3.2 on the circles, the B-spline and a NACA 0012 at
       c/64, 6.5 on an ellipse's flat side at 20 degrees). Where they do not (a waist, a corner:
       the axis the blend is left with nearly tangent, p2 - p1 -> 0) it grows without bound:
       measured 2030 on a Fourier body with a waist 1.7 cells thick, whose explicit term, 10^3
       times the viscous stencil's weight, blew up the first step (CFL 232; an optimizer's trial
       design, cases/shape_drag/shape_drag_sharp.yaml). Above FG_SG_CMAX it is scaled by
       1/(1 + (|c|/CMAX - 1)^2), C1 and at most 1.21 CMAX: there the readers fall back towards the
       node's own velocity (u_s). */
    FGSGDual n2 = SGConst(0), f = SGConst(1);
    for (PetscInt k = 0; k < Tp.n; k++) n2 = SGAdd(n2, SGMul(Tp.c[k], Tp.c[k]));
    if (n2.v > FG_SG_CMAX * FG_SG_CMAX) {
      const FGSGDual r = SGLin(1 / FG_SG_CMAX, SGSqrt(n2), -1); /* |c|/CMAX - 1 */
      f                = SGDiv(SGConst(1), SGAdd(SGConst(1), SGMul(r, r)));
    }
    for (PetscInt k = 0; k < Tp.n; k++) PetscCall(SGTermAdd(T, Tp.idx[k], SGLin(s, SGMul(f, Tp.c[k]), 0)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Face idx (component a, at x) of a body with the shared ghost: chi and the explicit term's
   coefficients on the faces T (not f itself), as dual numbers in phi at the points P. */
static PetscErrorCode SGFace(FGBodies B, FGBodyItem *it, PetscInt a, const PetscInt idx[], const PetscReal x[], FGSGPoints *P, FGSGDual *chi, FGSGTerms *T)
{
  FGGrid    g   = B->g;
  FGSGTerms Tn;
  FGSGDual  phi, c = SGConst(0);
  PetscBool any = PETSC_FALSE;

  PetscFunctionBeginUser;
  P->n = 0, T->n = 0;
  PetscCall(SGPoint(it->shape, P, x, &phi));
  if (phi.v < 0) { /* inside: held (on the surface, phi = 0, the saturated penalty below gives chi = 1 too, and its derivative is the limit from outside, as the lines take it) */
    *chi = SGConst(1);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt d = 0; d < g->dim; d++)
    for (PetscInt side = 0; side < 2; side++) {
      PetscReal y[3], cm, cp;
      PetscInt  jdx[3] = {idx[0], idx[1], idx[2]};
      FGSGDual  pn;
      FGBodySharpNeighbour_Internal(g, a, idx, d, 2 * side - 1, x, y);
      PetscCall(SGPoint(it->shape, P, y, &pn));
      if (pn.v >= 0) continue; /* (a neighbour on the surface, phi = 0, counts as outside: as the face itself and the lines do) */
      any = PETSC_TRUE;
      jdx[d] += 2 * side - 1;
      FGOpDiffusionCoefficients(g, a, d, idx[d], &cm, &cp); /* the viscous stencil's weight of that neighbour */
      Tn.n = 0;
      PetscCall(SGProfile(B, it, P, a, jdx, y, pn, it->nu * (side ? cp : cm), &Tn));
      for (PetscInt k = 0; k < Tn.n; k++) {
        if (Tn.idx[k][0] == idx[0] && Tn.idx[k][1] == idx[1] && Tn.idx[k][2] == idx[2]) c = SGSub(c, Tn.c[k]); /* the face's own weight: implicit */
        else PetscCall(SGTermAdd(T, Tn.idx[k], Tn.c[k]));
      }
    }
  if (phi.v < it->h) { /* within a cell of the surface: relaxed towards its own profile at rate P = q/phi^2, saturated */
    /* in the form bounded at phi -> 0 (P itself overflows there): with q = nu (1 - phi/h)^2 and
       den = phi^2 + eta q, the fade 1/(1 + eta P) = phi^2/den and P/(1 + eta P) = q/den */
    const FGSGDual r    = SGLin(-1 / it->h, phi, 1); /* 1 - phi/h */
    const FGSGDual q    = SGLin(it->nu, SGMul(r, r), 0);
    const FGSGDual p2   = SGMul(phi, phi);
    const FGSGDual den  = SGAdd(p2, SGLin(it->bc->eta, q, 0));
    const FGSGDual fade = SGDiv(p2, den), pf = SGDiv(q, den);
    for (PetscInt k = 0; k < T->n; k++) T->c[k] = SGMul(T->c[k], fade);
    c = SGAdd(SGMul(c, fade), pf);
    Tn.n = 0;
    PetscCall(SGProfile(B, it, P, a, idx, x, phi, 1.0, &Tn));
    for (PetscInt k = 0; k < Tn.n; k++) PetscCall(SGTermAdd(T, Tn.idx[k], SGMul(Tn.c[k], pf)));
    any = PETSC_TRUE;
  }
  *chi = SGLin(it->bc->eta, c, 0);
  if (!any) *chi = SGConst(0);
  else if (chi->v < 1e-300) *chi = SGConst(1e-300); /* listed all the same: its explicit term counts in the force */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* chi of face idx (component a, at x) of a body with the shared ghost (mask.c lists the faces by it) */
PetscErrorCode FGBodySharedGhostChi_Internal(FGBodies B, FGBodyItem *it, PetscInt a, const PetscInt idx[], const PetscReal x[], PetscReal *chi)
{
  FGSGPoints P;
  FGSGTerms  T;
  FGSGDual   c;

  PetscFunctionBeginUser;
  PetscCall(SGFace(B, it, a, idx, x, &P, &c, &T));
  *chi = c.v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* grow a pool of n used entries to hold m more */
static PetscErrorCode SGGrowInt(PetscInt **v, PetscInt *cap, PetscInt n, PetscInt m)
{
  PetscFunctionBeginUser;
  if (n + m > *cap) {
    PetscInt *w, c = PetscMax(2 * *cap, PetscMax(n + m, 256));
    PetscCall(PetscMalloc1(c, &w));
    if (n) PetscCall(PetscArraycpy(w, *v, n));
    PetscCall(PetscFree(*v));
    *v = w, *cap = c;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode SGGrowReal(PetscReal **v, PetscInt *cap, PetscInt n, PetscInt m)
{
  PetscFunctionBeginUser;
  if (n + m > *cap) {
    PetscReal *w;
    PetscInt   c = PetscMax(2 * *cap, PetscMax(n + m, 256));
    PetscCall(PetscMalloc1(c, &w));
    if (n) PetscCall(PetscArraycpy(w, *v, n));
    PetscCall(PetscFree(*v));
    *v = w, *cap = c;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGSharedListFree_Internal(FGSharedList *L)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree6(L->npt, L->po, L->nc, L->co, L->xo, L->row));
  PetscCall(PetscFree(L->col));
  PetscCall(PetscFree(L->wchi));
  PetscCall(PetscFree(L->sv));
  PetscCall(PetscFree(L->wx));
  PetscCall(PetscMemzero(L, sizeof(*L)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entry f of L: face f's points P with chi's weights and the shape's derivatives there, and its
   row's columns with their weights. */
static PetscErrorCode SGListAdd(FGSharedList *L, FGShape shape, PetscInt np, PetscInt row, const FGSGPoints *P, const FGSGDual *chi, PetscInt nc, const PetscInt cols[], const FGSGDual c[])
{
  PetscFunctionBeginUser;
  if (L->n + 1 > L->cap) {
    PetscInt  cap = PetscMax(2 * L->cap, 256), *a[6];
    PetscInt *old[6] = {L->npt, L->po, L->nc, L->co, L->xo, L->row};
    PetscCall(PetscMalloc6(cap, &a[0], cap, &a[1], cap, &a[2], cap, &a[3], cap, &a[4], cap, &a[5]));
    for (PetscInt i = 0; L->n && i < 6; i++) PetscCall(PetscArraycpy(a[i], old[i], L->n));
    PetscCall(PetscFree6(L->npt, L->po, L->nc, L->co, L->xo, L->row));
    L->npt = a[0], L->po = a[1], L->nc = a[2], L->co = a[3], L->xo = a[4], L->row = a[5], L->cap = cap;
  }
  /* the point pools grow together (wchi: 1 per point, sv: ns per point) */
  if (L->pn + P->n > L->pcap) {
    const PetscInt pc = PetscMax(2 * L->pcap, PetscMax(L->pn + P->n, 256));
    PetscInt       wcap = L->pcap, scap = L->pcap * L->ns;
    PetscCall(SGGrowReal(&L->wchi, &wcap, L->pn, pc - L->pn));
    PetscCall(SGGrowReal(&L->sv, &scap, L->pn * L->ns, (pc - L->pn) * L->ns));
    L->pcap = pc;
  }
  PetscCall(SGGrowInt(&L->col, &L->ccap, L->cn, nc));
  PetscCall(SGGrowReal(&L->wx, &L->xcap, L->xn, nc * P->n));
  L->npt[L->n] = P->n, L->po[L->n] = L->pn, L->nc[L->n] = nc, L->co[L->n] = L->cn, L->xo[L->n] = L->xn, L->row[L->n] = row;
  for (PetscInt p = 0; p < P->n; p++) {
    PetscReal *sp = L->sv + (L->pn + p) * L->ns, phi, gy[3] = {0, 0, 0}, gq[FG_SHAPE_MAX_PARAMS];
    PetscBool  used = (PetscBool)(chi->d[p] != 0);
    L->wchi[L->pn + p] = chi->d[p];
    for (PetscInt k = 0; k < nc; k++) {
      L->wx[L->xn + k * P->n + p] = c[k].d[p];
      if (c[k].d[p] != 0) used = PETSC_TRUE;
    }
    PetscCall(PetscArrayzero(sp, L->ns));
    if (!used) continue; /* nothing reads the shape's derivative there */
    PetscCall(FGShapeLevelSet(shape, P->y[p], &phi, gy, gq));
    for (PetscInt i = 0; i < np; i++) sp[i] = gq[i];
    sp[L->ns - 1] = PetscSqrtReal(gy[0] * gy[0] + gy[1] * gy[1] + gy[2] * gy[2]);
  }
  for (PetscInt k = 0; k < nc; k++) L->col[L->cn + k] = cols[k];
  L->pn += P->n, L->cn += nc, L->xn += nc * P->n, L->n++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dchi[k] += dchi/dtheta_k of listed face f of component a (a body with the shared ghost; k < np) */
void FGBodySharedGhostDchi_Internal(const FGBodyItem *it, PetscInt a, PetscInt f, PetscReal dchi[])
{
  const FGSharedList *L = &it->sg[a];

  if (f >= L->n) return;
  for (PetscInt p = 0; p < L->npt[f]; p++) {
    const PetscReal  w  = L->wchi[L->po[f] + p];
    const PetscReal *sp = L->sv + (L->po[f] + p) * L->ns;
    if (w == 0) continue;
    for (PetscInt k = 0; k < it->np; k++) dchi[k] += w * sp[k];
  }
}

/* The explicit term's coefficients X of every body with the shared ghost, one parallel AIJ matrix
   per component on the grid's global layout (made again: the pattern follows the shape), over the
   bodies' listed faces. Collective. */
PetscErrorCode FGBodiesSharedGhostBuild_Internal(FGBodies B)
{
  FGGrid   g = B->g;
  PetscInt nloc, N, edge = 0, bedge = PETSC_MAX_INT; /* bedge: the first body at the edge */

  PetscFunctionBeginUser;
  if (!B->shared) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetLocalSize(B->K[0], &nloc));
  PetscCall(VecGetSize(B->K[0], &N));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(MatDestroy(&B->Xm[a]));
    PetscCall(MatCreateAIJ(g->comm, nloc, nloc, N, N, FG_SG_MAXC, NULL, FG_SG_MAXC, NULL, &B->Xm[a]));
    PetscCall(MatSetOption(B->Xm[a], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    if (!B->Eg[a]) {
      PetscCall(VecDuplicate(B->K[a], &B->Eg[a]));
      PetscCall(VecDuplicate(B->K[a], &B->Ug[a]));
      PetscCall(VecDuplicate(B->K[a], &B->dEg[a]));
    }
    PetscCall(MatDestroy(&B->Xone[a]));
    PetscCall(MatDestroy(&B->dXm[a]));
    PetscCall(MatDestroy(&B->Xt[a]));
    PetscCall(MatCreateAIJ(g->comm, nloc, nloc, N, N, FG_SG_MAXC, NULL, FG_SG_MAXC, NULL, &B->Xone[a]));
    PetscCall(MatSetOption(B->Xone[a], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    for (PetscInt b = 0; b < B->nb; b++) {
      FGBodyItem   *it = &B->b[b];
      FGFaceList   *l  = &it->f[a];
      FGSharedList *L  = &it->sg[a];
      if (!it->bc->shared_ghost) continue;
      if (L->ns != it->np + 1) PetscCall(FGSharedListFree_Internal(L));
      L->ns = it->np + 1, L->n = L->pn = L->cn = L->xn = 0;
      for (PetscInt f = 0; f < l->n; f++) {
        PetscReal     *G = l->geo + FG_FACE_GEO * f;
        const PetscInt idx[3] = {(PetscInt)G[FG_GEO_SHARP_IDX], (PetscInt)G[FG_GEO_SHARP_IDX + 1], (PetscInt)G[FG_GEO_SHARP_IDX + 2]};
        FGSGPoints     P;
        FGSGTerms      T;
        FGSGDual       c;
        PetscInt       row = FGGridGlobalIndex(g, idx), cols[FG_SG_MAXC], nc = 0;
        PetscScalar    v[FG_SG_MAXC], one[FG_SG_MAXC];
        FGSGDual       cd[FG_SG_MAXC];
        PetscCall(SGFace(B, it, a, idx, l->x + 3 * f, &P, &c, &T));
        for (PetscInt k = 0; k < T.n; k++) { /* every term, zero or not: its derivative may not be */
          cols[nc] = FGGridGlobalIndex(g, T.idx[k]);
          if (cols[nc] < 0) {
            edge++, bedge = PetscMin(bedge, b);
            continue;
          }
          cd[nc] = T.c[k], one[nc] = 1, v[nc++] = T.c[k].v;
        }
        if (nc) {
          PetscCall(MatSetValues(B->Xm[a], 1, &row, nc, cols, v, ADD_VALUES));
          PetscCall(MatSetValues(B->Xone[a], 1, &row, nc, cols, one, INSERT_VALUES));
        }
        PetscCall(SGListAdd(L, it->shape, it->np, row, &P, &c, nc, cols, cd));
        { /* the surface sensitivity of chi: an outward displacement V_n changes phi by -V_n |grad phi| at each point */
          PetscReal sn = 0;
          for (PetscInt p = 0; p < P.n; p++) sn -= L->wchi[L->po[f] + p] * L->sv[(L->po[f] + p) * L->ns + L->ns - 1];
          G[4] = 0, G[FG_GEO_SHARP_SENS] = sn;
        }
      }
    }
    PetscCall(MatAssemblyBegin(B->Xm[a], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B->Xm[a], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyBegin(B->Xone[a], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B->Xone[a], MAT_FINAL_ASSEMBLY));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &edge, 1, MPIU_INT, MPI_SUM, g->comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bedge, 1, MPIU_INT, MPI_MIN, g->comm));
  PetscCheck(!edge, g->comm, FG_ERR_INPUT, "%s: shared_ghost: the body lies within 4 cells of the domain's boundary (%" PetscInt_FMT " ghost terms outside), which is not supported; move it or enlarge the domain", edge ? B->b[bedge].bc->where : "", edge);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the owned part of a ghosted local Vec into a global one, and (add) back */
static PetscErrorCode SGOwned(FGGrid g, Vec l, Vec gv, PetscBool toglobal)
{
  const FGBox *b = &g->box;
  PetscScalar *la, *ga;

  PetscFunctionBeginUser;
  PetscCall(VecGetArray(l, &la));
  PetscCall(VecGetArray(gv, &ga));
  for (PetscInt k = b->lo[2]; k < b->hi[2]; k++)
    for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
      for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) {
        const PetscInt lo = FGBoxIndex(b, i, j, k), go = FGBoxOwnedIndex(b, i, j, k);
        if (toglobal) ga[go] = la[lo];
        else la[lo] += ga[go];
      }
  PetscCall(VecRestoreArray(gv, &ga));
  PetscCall(VecRestoreArray(l, &la));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* E = X u for component a, u the owned part of the ghosted local ul. Collective. */
PetscErrorCode FGBodiesSharedGhostApply_Internal(FGBodies B, PetscInt a, Vec ul, Vec E)
{
  PetscFunctionBeginUser;
  PetscCall(SGOwned(B->g, ul, B->Ug[a], PETSC_TRUE));
  PetscCall(MatMult(B->Xm[a], B->Ug[a], E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Its transpose: ulbar's owned part (ghosted local) += X^T Eb. Collective. */
PetscErrorCode FGBodiesSharedGhostApplyTranspose_Internal(FGBodies B, PetscInt a, Vec Eb, Vec ulbar)
{
  PetscFunctionBeginUser;
  PetscCall(MatMultTranspose(B->Xm[a], Eb, B->Ug[a]));
  PetscCall(SGOwned(B->g, ulbar, B->Ug[a], PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dE += dX u for component a, dX the explicit term's tangent for the bodies' parameter
   perturbations dtheta[b] (NULL: none), u the owned part of the ghosted local ul. Collective. */
PetscErrorCode FGBodiesSharedGhostTangentAdd_Internal(FGBodies B, PetscInt a, Vec ul, PetscReal *const dtheta[], Vec dE)
{
  PetscBool any = PETSC_FALSE;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; dtheta && b < B->nb; b++) any = (PetscBool)(any || (B->b[b].bc->shared_ghost && dtheta[b]));
  if (!any) PetscFunctionReturn(PETSC_SUCCESS);
  if (!B->dXm[a]) PetscCall(MatDuplicate(B->Xone[a], MAT_DO_NOT_COPY_VALUES, &B->dXm[a]));
  PetscCall(MatZeroEntries(B->dXm[a]));
  for (PetscInt b = 0; b < B->nb; b++) {
    const FGBodyItem   *it = &B->b[b];
    const FGSharedList *L  = &it->sg[a];
    if (!it->bc->shared_ghost || !dtheta[b]) continue;
    for (PetscInt f = 0; f < L->n; f++) {
      PetscScalar v[FG_SG_MAXC];
      for (PetscInt k = 0; k < L->nc[f]; k++) v[k] = 0;
      for (PetscInt p = 0; p < L->npt[f]; p++) {
        const PetscReal *sp = L->sv + (L->po[f] + p) * L->ns;
        PetscReal        dp = 0;
        for (PetscInt i = 0; i < it->np; i++) dp += sp[i] * dtheta[b][i];
        if (dp == 0) continue;
        for (PetscInt k = 0; k < L->nc[f]; k++) v[k] += L->wx[L->xo[f] + k * L->npt[f] + p] * dp;
      }
      if (L->nc[f]) PetscCall(MatSetValues(B->dXm[a], 1, &L->row[f], L->nc[f], L->col + L->co[f], v, ADD_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(B->dXm[a], MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B->dXm[a], MAT_FINAL_ASSEMBLY));
  PetscCall(SGOwned(B->g, ul, B->Ug[a], PETSC_TRUE));
  PetscCall(MatMultAdd(B->dXm[a], B->Ug[a], dE, dE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Its transpose for the adjoint Eb of the term X u (component a, u the owned part of ul): the
   adjoint of X's entries, Eb_f u_k on X's pattern, gives thetabar[b] += its local part (NULL: not
   wanted) and sens (NULL: not wanted) += the term's part of the derivative under an outward normal
   displacement of the surface, at each row's face. Collective. */
PetscErrorCode FGBodiesSharedGhostAdjointAdd_Internal(FGBodies B, PetscInt a, Vec ul, Vec Eb, PetscReal *const thetabar[], Vec sens)
{
  PetscScalar *sb = NULL;
  Mat          Xb;

  PetscFunctionBeginUser;
  PetscCall(SGOwned(B->g, ul, B->Ug[a], PETSC_TRUE));
  if (!B->Xt[a]) PetscCall(MatDuplicate(B->Xone[a], MAT_DO_NOT_COPY_VALUES, &B->Xt[a])); /* work, once per X */
  Xb = B->Xt[a];
  PetscCall(MatCopy(B->Xone[a], Xb, SAME_NONZERO_PATTERN));
  PetscCall(MatDiagonalScale(Xb, Eb, B->Ug[a]));
  if (sens) PetscCall(VecGetArray(sens, &sb));
  for (PetscInt b = 0; b < B->nb; b++) {
    const FGBodyItem   *it = &B->b[b];
    const FGSharedList *L  = &it->sg[a];
    if (!it->bc->shared_ghost) continue;
    for (PetscInt f = 0; f < L->n; f++) {
      const PetscInt    *cols;
      const PetscScalar *vals;
      PetscInt           ncols;
      PetscReal          xb[FG_SG_MAXC];
      PetscBool          any = PETSC_FALSE;
      if (!L->nc[f]) continue;
      PetscCall(MatGetRow(Xb, L->row[f], &ncols, &cols, &vals));
      for (PetscInt k = 0; k < L->nc[f]; k++) {
        xb[k] = 0;
        for (PetscInt q = 0; q < ncols; q++)
          if (cols[q] == L->col[L->co[f] + k]) xb[k] = PetscRealPart(vals[q]);
        if (xb[k] != 0) any = PETSC_TRUE;
      }
      PetscCall(MatRestoreRow(Xb, L->row[f], &ncols, &cols, &vals));
      if (!any) continue;
      for (PetscInt p = 0; p < L->npt[f]; p++) {
        const PetscReal *sp = L->sv + (L->po[f] + p) * L->ns;
        PetscReal        w  = 0;
        for (PetscInt k = 0; k < L->nc[f]; k++) w += xb[k] * L->wx[L->xo[f] + k * L->npt[f] + p];
        if (w == 0) continue;
        if (thetabar && thetabar[b])
          for (PetscInt i = 0; i < it->np; i++) thetabar[b][i] += w * sp[i];
        if (sb) sb[it->f[a].off[f]] -= w * sp[L->ns - 1]; /* phi changes by -V_n |grad phi| */
      }
    }
  }
  if (sens) PetscCall(VecRestoreArray(sens, &sb));
  PetscFunctionReturn(PETSC_SUCCESS);
}
