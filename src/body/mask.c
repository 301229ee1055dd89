/*
  Bodies: where the mask lives (include/fg/body.h).

  Mask: chi = H_eps(-phi - delta), eps = mask_width h / 2 (h: the largest spacing; on a stretched
  grid the largest cell width around the body, bodies.c), delta = mask_offset eps (the band's
  centre lies at phi = -delta: inside the surface for delta > 0; see docs/bodies.md, "Bodies").

  Each body keeps, per velocity component a, the list of its owned interior faces where chi > 0
  (the body and its smoothing band; a bounding box limits the search), with the face position,
  chi, and for jets the outward normal and the jet footprints. A body whose geometry changes in
  time (translation, oscillation, rotation of a shape that is not a circle or sphere) is placed
  again at every stage time (FGBodyPlace_Internal), reusing a kept placement of the same time when
  there is one; the others build their lists once. A density body lists the faces of its filtered,
  projected density (FGBodyDensityMasks_Internal). The box of cells around each body as placed is
  the control volume of the force cross-check (src/body/diagnostics.c).
*/
#include "bodyimpl.h"

static const char *const FGAxisNames = "xyz";

/* Room for n faces, keeping the first l->n. */
static PetscErrorCode FGFaceListReserve_Private(FGFaceList *l, PetscInt n, PetscInt njets)
{
  FGFaceList o = *l;
  PetscInt   nj = PetscMax(njets, 1);

  PetscFunctionBeginUser;
  if (n <= l->cap) PetscFunctionReturn(PETSC_SUCCESS);
  l->cap = PetscMax(n, 2 * o.cap);
  PetscCall(PetscMalloc7(l->cap, &l->off, 3 * l->cap, &l->x, l->cap, &l->chi, l->cap, &l->vol, l->cap, &l->us, 3 * l->cap, &l->nrm, l->cap * nj, &l->jet));
  PetscCall(PetscMalloc1(FG_FACE_GEO * l->cap, &l->geo));
  PetscCall(PetscArraycpy(l->geo, o.geo, FG_FACE_GEO * o.n));
  PetscCall(PetscFree(o.geo));
  PetscCall(PetscArraycpy(l->off, o.off, o.n));
  PetscCall(PetscArraycpy(l->x, o.x, 3 * o.n));
  PetscCall(PetscArraycpy(l->chi, o.chi, o.n));
  PetscCall(PetscArraycpy(l->vol, o.vol, o.n));
  PetscCall(PetscArraycpy(l->us, o.us, o.n));
  PetscCall(PetscArraycpy(l->nrm, o.nrm, 3 * o.n));
  PetscCall(PetscArraycpy(l->jet, o.jet, nj * o.n));
  PetscCall(PetscFree7(o.off, o.x, o.chi, o.vol, o.us, o.nrm, o.jet));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Owned index range [lo, hi) of component a's faces (interior ones) whose position lies in [xlo, xhi]. */
void FGBodyFaceRange_Internal(FGBodies B, PetscInt a, const PetscReal xlo[], const PetscReal xhi[], PetscInt lo[3], PetscInt hi[3])
{
  FGGrid g = B->g;

  FGOpInteriorFaces(g, B->bc, a, lo, hi);
  for (PetscInt d = 0; d < g->dim; d++) {
    PetscInt l, h;
    if (xlo[d] <= PETSC_MIN_REAL || xhi[d] >= PETSC_MAX_REAL) continue;
    FGGridIndexRange(g, (FGLocation)(FG_LOC_FACE_X + a), d, xlo[d], xhi[d], &l, &h);
    lo[d] = PetscMax(lo[d], PetscMax(l, -1));
    hi[d] = PetscMin(hi[d], PetscMin(h, g->n[d] + 1));
    if (hi[d] < lo[d]) hi[d] = lo[d];
  }
}

/* The cells [cl, ch) of a control box along d: [blo, bhi] widened by m, and by at least 3 cells. */
static void FGBodyBoxCells_Private(FGGrid g, PetscInt d, PetscReal blo, PetscReal bhi, PetscReal m, PetscInt *cl, PetscInt *ch)
{
  if (g->uniform[d]) {
    m   = PetscMax(m, 3 * g->h[d]);
    *cl = (PetscInt)PetscFloorReal((blo - m - g->x0[d]) / g->h[d]);
    *ch = (PetscInt)PetscCeilReal((bhi + m - g->x0[d]) / g->h[d]);
  } else {
    *cl = PetscMin(FGGridCellOf(g, d, blo - m), FGGridCellOf(g, d, blo) - 3);
    *ch = PetscMax(FGGridCellOf(g, d, bhi + m), FGGridCellOf(g, d, bhi) + 3) + 1;
  }
}

/* Set the shape's placement (position and angle) to the body's at time t; the centre and the
   body-frame angle (the shape's angle, ccw). */
static PetscErrorCode FGBodyShapeAt_Private(FGBodyItem *it, PetscInt dim, PetscReal t, PetscReal xc[3], PetscReal *thb)
{
  PetscReal V[3], th, om, p[FG_SHAPE_MAX_PARAMS];

  PetscFunctionBeginUser;
  FGBodyState_Internal(it, dim, t, xc, V, &th, &om);
  PetscCall(FGShapeGetParameters(it->shape, p));
  for (PetscInt d = 0; d < dim; d++) p[d] = xc[d];
  p[dim] = it->airfoil ? it->angle0 - th : it->angle0 + th;
  *thb   = it->airfoil ? -p[dim] : p[dim];
  PetscCall(FGShapeSetParameters(it->shape, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The mask's profile G(s) of half-width e (0 for s <= -e, 1 for s >= e) and G'(s): the quintic
   FGHeaviside, or the integral of the cardinal cubic B-spline, S(t) = int_{-2}^t B3, t = 2 s / e
   (C^3; S' = B3 sums to 1 over any unit-spaced samples). */
void FGBodyMaskProfile_Internal(PetscBool bspline, PetscReal s, PetscReal e, PetscReal *G, PetscReal *dG)
{
  PetscReal t = 2 * s / e, a = PetscAbsReal(t), S, B;

  if (!bspline) {
    (void)FGHeaviside(s, e, G, dG);
    return;
  }
  if (a >= 2) S = 0, B = 0;
  else if (a >= 1) S = PetscPowReal(2 - a, 4) / 24, B = PetscPowReal(2 - a, 3) / 6;
  else S = 0.5 - 2 * a / 3 + a * a * a / 3 - a * a * a * a / 8, B = 2.0 / 3 - a * a + a * a * a / 2;
  *G  = t >= 0 ? 1 - S : S; /* S above: the integral from -2 to -a */
  *dG = 2 * B / e;
}

/* The penalty weight chi of a point at level set phi (K = chi / eta) and dchi / d(-phi): the
   profile at s = -phi - shift; with a soft skin, skin G(s) + G(s - core) of half-width h (the stiff
   core, core below the skin's centre). */
void FGBodyMaskWeight_Internal(const FGBodyItem *it, PetscReal phi, PetscReal *chi, PetscReal *dchi)
{
  const PetscReal s = -phi - it->shift;
  PetscReal       G, dG, Gc, dGc;

  FGBodyMaskProfile_Internal(it->bspline, s, it->eps, &G, &dG);
  if (it->skin <= 0) {
    *chi = G, *dchi = dG;
    return;
  }
  FGBodyMaskProfile_Internal(it->bspline, s - it->core, it->h, &Gc, &dGc);
  *chi  = it->skin * G + Gc;
  *dchi = it->skin * dG + dGc;
}

/* The position y of the neighbour of component a's face idx (at x) along axis d on side s (-1, +1). */
void FGBodySharpNeighbour_Internal(FGGrid g, PetscInt a, const PetscInt idx[], PetscInt d, PetscInt s, const PetscReal x[], PetscReal y[])
{
  for (PetscInt e = 0; e < 3; e++) y[e] = x[e];
  y[d] = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d] + s);
}

/* A sharp wall (wall: sharp; after Luchini et al., arXiv 2506.14328, 2025). A face inside the body
   (phi < 0) has chi = 1 (the stiff eta). A face outside whose neighbour along axis d lies inside
   sees, in the viscous stencil nu w (u_nb - u), the body's velocity there where the flow's,
   extrapolated linearly through u_s at the surface, would be u_s - (u - u_s)(1 - th)/th, th the
   surface's distance from the face as a fraction of the spacing (the level set interpolated
   linearly between the two faces: th = phi / (phi - phi_nb)). The difference is the penalty
   (chi/eta)(u - u_s) with chi/eta = nu w (1/th - 1) = nu w (-phi_nb/phi): only the stencil's
   centre weight changes, and the implicit penalization of the stage applies it. Summed over the
   inside neighbours, chi = num/phi, num = eta nu sum w (-phi_nb), capped at 1 (the stiff value;
   so chi is continuous as a face crosses the surface, and as a neighbour does: th -> 1 gives 0).
   Its derivatives: dchi/d(-phi) = num/phi^2 (G[4]) and dchi/dphi_nb = -eta nu w/phi
   (G[FG_GEO_SHARP_DNB + 2 d + side]); 0 where capped. The cap holds the velocity of the faces
   within num of the surface fixed, and the drag's slope in the design dips while a face crosses
   that window (docs/bodies.md). With apertures (aperture.c), whose continuity removes the kink
   of the crossing itself, chi saturates smoothly instead: chi = num/(phi + num) (1 at the
   surface, as inside), so that a face's velocity falls linearly with its distance all the way to
   the surface (u ~ u* (phi + num)/(gdt nu w (-phi_nb)) for a body at rest: the wall about
   eta nu/h further in, 1e-3 of a cell with the default eta); dchi/d(-phi) = num/(phi + num)^2,
   dchi/dphi_nb = -eta nu w phi/(phi + num)^2. G must hold FG_FACE_GEO zeros on entry.
   gap (may be NULL): set when the face and its upper neighbour along some axis both lie outside
   with the body between them (phi < 0 at a quarter, half or three quarters of the way, the axis
   within 60 degrees of the normal there, so that a segment clipping a convex body's edge does not
   count): the body is thinner than a cell there, and neither face's stencil sees its wall. */
PetscErrorCode FGBodySharpWeight_Internal(FGBodies B, FGBodyItem *it, PetscInt a, const PetscInt idx[], const PetscReal x[], PetscReal phi, PetscReal *chi, PetscReal *G, PetscBool *gap)
{
  FGGrid    g   = B->g;
  PetscReal num = 0, c[6] = {0, 0, 0, 0, 0, 0}, gn[6] = {0, 0, 0, 0, 0, 0};

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++) G[FG_GEO_SHARP_IDX + d] = idx[d];
  *chi = 0;
  if (gap) *gap = PETSC_FALSE;
  if (phi < 0) {
    *chi = 1;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (it->bc->shared_ghost) { /* ghost.c */
    PetscCall(FGBodySharedGhostChi_Internal(B, it, a, idx, x, chi));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt d = 0; d < g->dim; d++)
    for (PetscInt side = 0; side < 2; side++) {
      PetscReal y[3], pn, gy[3], cm, cp, q = 0;
      FGBodySharpNeighbour_Internal(g, a, idx, d, 2 * side - 1, x, y);
      PetscCall(FGShapeLevelSet(it->shape, y, &pn, gy, NULL));
      if (pn >= 0) {
        for (PetscInt q4 = 1; gap && side && q4 < 4 && !*gap; q4++) {
          PetscReal z[3], pz, gz[3] = {0, 0, 0}, gg = 0;
          for (PetscInt e = 0; e < 3; e++) z[e] = x[e] + 0.25 * q4 * (y[e] - x[e]);
          PetscCall(FGShapeLevelSet(it->shape, z, &pz, gz, NULL));
          for (PetscInt e = 0; e < g->dim; e++) gg += gz[e] * gz[e];
          if (pz < 0 && 4 * gz[d] * gz[d] >= gg) *gap = PETSC_TRUE; /* crossed within 60 degrees of the normal (not a convex cap's sliver) */
        }
        continue;
      }
      FGOpDiffusionCoefficients(g, a, d, idx[d], &cm, &cp); /* the viscous stencil's weight of that neighbour */
      c[2 * d + side] = it->bc->eta * it->nu * (side ? cp : cm);
      if (it->bc->quadratic_ghost) { /* the ghost through the next face out too, where that lies outside */
        PetscReal z[3], pz, gz[3];
        FGBodySharpNeighbour_Internal(g, a, idx, d, 1 - 2 * side, x, z);
        PetscCall(FGShapeLevelSet(it->shape, z, &pz, gz, NULL));
        if (pz > 0) {
          PetscReal q2 = 0;
          for (PetscInt e = 0; e < g->dim; e++) q2 += gy[e] * gy[e];
          c[2 * d + side] *= 2;
          G[FG_GEO_QPN + 2 * d + side] = pn;
          G[FG_GEO_QGN + 2 * d + side] = PetscSqrtReal(q2);
        }
      }
      num += c[2 * d + side] * -pn;
      for (PetscInt e = 0; e < g->dim; e++) q += gy[e] * gy[e];
      gn[2 * d + side] = PetscSqrtReal(q);
    }
  if (num <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (!it->bc->apertures) { /* capped */
    if (num >= phi) { /* within the cap's distance of the surface: stiff, its derivatives 0 */
      *chi = 1;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    *chi = num / phi;
    G[4] = num / (phi * phi);
    for (PetscInt k = 0; k < 6; k++) {
      G[FG_GEO_SHARP_DNB + k] = -c[k] / phi;
      G[FG_GEO_SHARP_SENS] += c[k] / phi * gn[k];
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  { /* with apertures, saturated smoothly: chi = num / (phi + num) */
    const PetscReal den = phi + num, q = phi / (den * den);
    *chi = num / den;
    G[4] = num / (den * den);
    for (PetscInt k = 0; k < 6; k++) {
      G[FG_GEO_SHARP_DNB + k] = -c[k] * q;
      G[FG_GEO_SHARP_SENS] += c[k] * q * gn[k];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A sharp wall's quadratic ghost (body.<body>.quadratic_ghost) along axis d on side s of listed
   face f (component a, index k = 2 d + s), whose neighbour there lies inside: the ghost through u_s at
   the surface (a fraction th = phi/(phi - phi_nb) of the spacing away), the face and the next face
   out is u_s - 2 (1 - th)/th (u - u_s) + (1 - th)/(1 + th) (u_ff - u_s). Its first part doubles the
   linear ghost's penalty (FGBodySharpWeight_Internal); the second is the explicit term
   xi (u_ff - u_s), xi = nu w (1 - th)/(1 + th) (at most a quarter of the implicit part: stable),
   0 as the neighbour reaches the surface (th -> 1), like the penalty. Returns xi, its derivatives in
   phi and phi_nb, and the next face's index in the ghosted local arrays; xi = 0 where the ghost is
   linear. */
void FGBodySharpGhostXi_Internal(FGBodies B, const FGBodyItem *it, PetscInt a, PetscInt f, PetscInt k, PetscReal *xi, PetscReal *dphi, PetscReal *dpn, PetscInt *ffl)
{
  FGGrid           g  = B->g;
  const PetscReal *G  = it->f[a].geo + FG_FACE_GEO * f, phi = G[0], pn = G[FG_GEO_QPN + k];
  const PetscInt   d  = k / 2, s = 2 * (k % 2) - 1;
  PetscInt         j[3];
  PetscReal        cm, cp, w, th, q, den;

  *xi = *dphi = *dpn = 0, *ffl = -1;
  if (pn == 0) return;
  for (PetscInt e = 0; e < 3; e++) j[e] = (PetscInt)G[FG_GEO_SHARP_IDX + e];
  FGOpDiffusionCoefficients(g, a, d, j[d], &cm, &cp);
  w   = it->nu * (s > 0 ? cp : cm);
  den = phi - pn;
  th  = phi / den;
  q   = 1 / (1 + th);
  *xi = w * (1 - th) * q;
  /* dxi/dth = -2 w q^2; dth/dphi = -pn/den^2, dth/dpn = phi/den^2 */
  *dphi = -2 * w * q * q * (-pn / (den * den));
  *dpn  = -2 * w * q * q * (phi / (den * den));
  j[d] -= s;
  *ffl = FGBoxIndex(&g->box, j[0], j[1], j[2]);
}

/* Place the shape at time t and collect its faces. Collective (the inside-the-domain check). */
PetscErrorCode FGBodyBuild_Internal(FGBodies B, FGBodyItem *it, PetscReal t)
{
  FGGrid            g  = B->g;
  const FGBodyCase *bc = it->bc;
  const PetscInt    dim = g->dim, nj = bc->n_jets;
  PetscReal         xc[3], lo[3], hi[3], bl[3], bh[3];
  PetscReal         thb; /* the body-frame angle: the shape's angle (ccw) */
  PetscReal         cover[2] = {0, 0}; /* soft skin: the core's and the shape's volume on the x-faces */
  char              msg[512] = "";

  PetscFunctionBeginUser;
  PetscCall(FGBodyShapeAt_Private(it, dim, t, xc, &thb));
  PetscCall(FGShapeBoundingBox(it->shape, bl, bh));

  /* the body and the part of its band outside it (phi < eps - delta) strictly inside the domain
     (every rank computes the same) */
  const PetscReal out = PetscMax(it->eps - it->shift, 0);
  for (PetscInt d = 0; d < dim && !msg[0]; d++) {
    if (bl[d] <= PETSC_MIN_REAL) continue; /* extruded */
    if (bl[d] - out <= g->x0[d] || bh[d] + out >= g->x0[d] + g->L[d]) {
      char when[64] = "";
      if (t != 0) PetscCall(PetscSNPrintf(when, sizeof(when), " at t = %g (its motion took it there)", (double)t));
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "the body spans %c in [%g, %g]%s%s, not inside the domain [%g, %g]", FGAxisNames[d], (double)(bl[d] - out), (double)(bh[d] + out), out > 0 ? " with its mask band" : "", when, (double)g->x0[d], (double)(g->x0[d] + g->L[d])));
    }
  }
  PetscCheck(!msg[0], g->comm, FG_ERR_INPUT, "%s: %s", bc->where, msg);
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_BodyBuild, 0, 0, 0, 0)); /* (after the check: an invalid placement may be caught) */

  /* where to look for chi > 0: phi < eps - delta, which reaches past the body when the band sticks
     out (delta < eps) and further where |grad phi| < 1 (Fourier, ellipse): the box widened by 2 eps + h */
  for (PetscInt d = 0; d < 3; d++) {
    lo[d] = d < dim ? bl[d] - it->reach : 0;
    hi[d] = d < dim ? bh[d] + it->reach : 0;
  }
  it->out.volume = 0;
  it->gaps.n      = 0;
  for (PetscInt d = 0; d < 3; d++) it->gaps.lo[d] = PETSC_MAX_REAL, it->gaps.hi[d] = -PETSC_MAX_REAL;
  for (PetscInt a = 0; a < dim; a++) {
    FGFaceList *l = &it->f[a];
    PetscInt    flo[3], fhi[3];
    FGBodyFaceRange_Internal(B, a, lo, hi, flo, fhi);
    l->n = 0;
    for (PetscInt k = flo[2]; k < fhi[2]; k++)
      for (PetscInt j = flo[1]; j < fhi[1]; j++)
        for (PetscInt i = flo[0]; i < fhi[0]; i++) {
          const PetscInt idx[3] = {i, j, k};
          PetscReal      x[3]   = {0, 0, 0}, phi, gx[3], chi, dH;
          for (PetscInt d = 0; d < dim; d++) x[d] = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]);
          PetscReal      sg[FG_FACE_GEO];
          PetscCall(FGShapeLevelSet(it->shape, x, &phi, gx, NULL));
          if (it->sharp) {
            PetscBool gap;
            PetscCall(PetscArrayzero(sg, FG_FACE_GEO));
            PetscCall(FGBodySharpWeight_Internal(B, it, a, idx, x, phi, &chi, sg, &gap));
            dH = sg[4];
            if (gap) {
              it->gaps.n++;
              for (PetscInt d = 0; d < 3; d++) it->gaps.lo[d] = PetscMin(it->gaps.lo[d], x[d]), it->gaps.hi[d] = PetscMax(it->gaps.hi[d], x[d]);
            }
          } else FGBodyMaskWeight_Internal(it, phi, &chi, &dH); /* the band at -shift */
          if (chi <= 0) continue;
          PetscCall(FGFaceListReserve_Private(l, l->n + 1, nj));
          l->off[l->n] = FGBoxOwnedIndex(&g->box, i, j, k);
          for (PetscInt d = 0; d < 3; d++) l->x[3 * l->n + d] = x[d];
          l->chi[l->n] = chi;
          l->vol[l->n] = FGGridVolume(g, (FGLocation)(FG_LOC_FACE_X + a), idx);
          {
            PetscReal *G = l->geo + FG_FACE_GEO * l->n, g2 = 0;
            if (it->sharp) PetscCall(PetscArraycpy(G, sg, FG_FACE_GEO));
            else PetscCall(PetscArrayzero(G, FG_FACE_GEO));
            G[0] = phi;
            for (PetscInt d = 0; d < 3; d++) G[1 + d] = d < dim ? gx[d] : 0;
            G[4] = dH;
            for (PetscInt d = 0; d < dim; d++) g2 += gx[d] * gx[d];
            G[5] = PetscSqrtReal(g2);
            G[6] = G[7] = 0;
            if (it->skin_n > 0) { /* the normal band: the skin's profile depth_n below it, weight eta/eta_n (normal.c) */
              FGBodyMaskProfile_Internal(it->bspline, -phi - it->shift - it->depth_n, it->eps, &G[6], &G[7]);
              G[6] *= it->skin_n, G[7] *= it->skin_n;
              PetscCall(FGBodyNormal_Internal(it, dim, x, gx, l->nrm + 3 * l->n));
            }
          }
          if (nj) {
            PetscReal gn = 0, r = (phi + it->shift) / it->eps, w = PetscAbsReal(r) < 1 ? (1 - r * r) * (1 - r * r) : 0;
            PetscReal psi = PetscAtan2Real(x[1] - xc[1], x[0] - xc[0]) - thb, W = bc->jet_width * PETSC_PI / 180;
            for (PetscInt d = 0; d < dim; d++) gn += gx[d] * gx[d];
            gn = PetscSqrtReal(gn);
            for (PetscInt d = 0; d < 3; d++) l->nrm[3 * l->n + d] = d < dim && gn > 0 ? gx[d] / gn : 0;
            for (PetscInt jj = 0; jj < nj; jj++) {
              PetscReal del = PetscFmodReal(psi - bc->jet_angles[jj] * PETSC_PI / 180, 2 * PETSC_PI);
              if (del > PETSC_PI) del -= 2 * PETSC_PI;
              if (del < -PETSC_PI) del += 2 * PETSC_PI;
              l->jet[nj * l->n + jj] = PetscAbsReal(del) < W / 2 ? PetscSqr(PetscCosReal(PETSC_PI * del / W)) * w : 0;
            }
          }
          if (a == 0) { /* the mask's area or volume: the profile's (without the skin's weights) */
            PetscReal G = it->sharp ? (phi < 0 ? 1.0 : 0.0) : chi, dG; /* a sharp wall: the faces inside */
            if (it->skin > 0) {
              PetscReal Gc;
              FGBodyMaskProfile_Internal(it->bspline, -phi - it->shift, it->eps, &G, &dG);
              FGBodyMaskProfile_Internal(it->bspline, -phi - it->shift - it->core, it->h, &Gc, &dG);
              cover[0] += Gc * l->vol[l->n];                    /* the stiff core's */
              cover[1] += (phi < 0 ? 1.0 : 0.0) * l->vol[l->n]; /* the shape's */
            }
            it->out.volume += G * l->vol[l->n];
          }
          l->n++;
        }
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &it->out.volume, 1, MPIU_REAL, MPIU_SUM, g->comm));
  if (it->sharp) {
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &it->gaps.n, 1, MPIU_INT, MPI_SUM, g->comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, it->gaps.lo, 3, MPIU_REAL, MPIU_MIN, g->comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, it->gaps.hi, 3, MPIU_REAL, MPIU_MAX, g->comm));
  }
  if (it->skin > 0) {
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, cover, 2, MPIU_REAL, MPIU_SUM, g->comm));
    it->corefrac = cover[1] > 0 ? cover[0] / cover[1] : 0;
  }

  /* control volume: the bounding box widened by half its size (at least 3 cells) */
  {
    PetscReal size = 0;
    for (PetscInt d = 0; d < dim; d++)
      if (bl[d] > PETSC_MIN_REAL) size = PetscMax(size, bh[d] - bl[d]);
    for (PetscInt d = 0; d < 3; d++) {
      it->boxlo[d] = 0, it->boxhi[d] = d < dim ? g->n[d] : 1;
      it->boxwhole[d] = PETSC_TRUE;
      if (d >= dim || bl[d] <= PETSC_MIN_REAL) continue;
      {
        PetscInt cl, ch;
        FGBodyBoxCells_Private(g, d, bl[d], bh[d], 0.5 * size, &cl, &ch);
        if (g->periodic[d] && cl <= 0 && ch >= g->n[d]) continue; /* whole periodic span */
        it->boxwhole[d] = PETSC_FALSE;
        it->boxlo[d]    = PetscMax(cl, 2);
        it->boxhi[d]    = PetscMin(ch, g->n[d] - 2);
      }
    }
  }
  it->tbuilt = t;
  PetscCall(PetscLogEventEnd(FG_EVENT_BodyBuild, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Exchange the body's current placement with a kept one. */
static void FGBodySwapPlacement_Private(FGBodyItem *it, FGBodyPlacement *k)
{
  FGBodyPlacement cur;
  cur.valid  = PETSC_TRUE;
  cur.t      = it->tbuilt;
  cur.volume = it->out.volume;
  for (PetscInt d = 0; d < 3; d++) cur.f[d] = it->f[d], cur.boxlo[d] = it->boxlo[d], cur.boxhi[d] = it->boxhi[d], cur.boxwhole[d] = it->boxwhole[d];
  it->tbuilt     = k->t;
  it->out.volume = k->volume;
  for (PetscInt d = 0; d < 3; d++) it->f[d] = k->f[d], it->boxlo[d] = k->boxlo[d], it->boxhi[d] = k->boxhi[d], it->boxwhole[d] = k->boxwhole[d];
  *k = cur;
}

/* Forget the kept placements (the body's parameters changed). */
void FGBodyForgetPlacements_Internal(FGBodyItem *it)
{
  for (PetscInt i = 0; i < it->nkept; i++) it->kept[i].valid = PETSC_FALSE;
}

PetscErrorCode FGFaceListFree_Internal(FGFaceList *l)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree7(l->off, l->x, l->chi, l->vol, l->us, l->nrm, l->jet));
  PetscCall(PetscFree(l->geo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGBodyPlacementFree_Internal(FGBodyPlacement *k)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < 3; a++) PetscCall(FGFaceListFree_Internal(&k->f[a]));
  PetscCall(PetscMemzero(k, sizeof(*k)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesSetPlacementCapacity - how many earlier placements each moving body keeps for reuse
  (at least 3; the reverse sweep asks for 3 L + 1 while it reverses L taped steps, so that the
  adjoint steps find every stage's placement instead of building it again).

  Not collective.
@*/
PetscErrorCode FGBodiesSetPlacementCapacity(FGBodies B, PetscInt n)
{
  PetscFunctionBeginUser;
  n = PetscMax(n, FG_BODY_PLACEMENTS);
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem *it = &B->b[b];
    if (!it->moving || n == it->nkept) continue;
    for (PetscInt i = n; i < it->nkept; i++) PetscCall(FGBodyPlacementFree_Internal(&it->kept[i]));
    PetscCall(PetscRealloc(sizeof(FGBodyPlacement) * (size_t)n, &it->kept));
    if (n > it->nkept) PetscCall(PetscArrayzero(it->kept + it->nkept, n - it->nkept));
    it->nkept    = n;
    it->nextkept = it->nextkept % n;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetPlacementBytes - the memory of one placement of all moving bodies (their face lists
  as now), summed over the ranks: what each kept placement costs.

  Collective.
@*/
PetscErrorCode FGBodiesGetPlacementBytes(FGBodies B, PetscReal *bytes)
{
  double mine = 0;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < B->nb; b++) {
    const FGBodyItem *it = &B->b[b];
    if (!it->moving) continue;
    for (PetscInt a = 0; a < 3; a++) mine += (double)it->f[a].n * (double)(sizeof(PetscInt) + sizeof(PetscReal) * (3 + 1 + 1 + 1 + 3 + PetscMax(it->bc->n_jets, 1) + FG_FACE_GEO));
  }
  PetscCallMPI(MPI_Allreduce(&mine, bytes, 1, MPI_DOUBLE, MPI_SUM, B->g->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A moving body placed at time t: the current placement, a kept one (the same doubles: every
   rank takes the same branch, and a placement is a function of t and the body's parameters), or
   a new build into the oldest kept one's memory, the current placement kept in its stead. */
PetscErrorCode FGBodyPlace_Internal(FGBodies B, FGBodyItem *it, PetscReal t)
{
  PetscReal xc[3], thb;

  PetscFunctionBeginUser;
  if (!it->moving || it->tbuilt == t) PetscFunctionReturn(PETSC_SUCCESS);
  if (!it->nkept) {
    PetscCall(PetscCalloc1(FG_BODY_PLACEMENTS, &it->kept));
    it->nkept = FG_BODY_PLACEMENTS;
  }
  for (PetscInt i = 0; i < it->nkept; i++)
    if (it->kept[i].valid && it->kept[i].t == t) {
      FGBodySwapPlacement_Private(it, &it->kept[i]);
      PetscCall(FGBodyShapeAt_Private(it, B->g->dim, t, xc, &thb));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  FGBodySwapPlacement_Private(it, &it->kept[it->nextkept]); /* the current one kept; its lists reused */
  it->nextkept = (it->nextkept + 1) % it->nkept;
  PetscCall(FGBodyBuild_Internal(B, it, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A density body: chi = P(F rho) at cells from it->rho, each component's interior faces, the
   centroid, and the control volume around the solid (chi > 1/2). Collective. */
PetscErrorCode FGBodyDensityMasks_Internal(FGBodies B, FGBodyItem *it)
{
  FGGrid            g   = B->g;
  const FGBox      *bx  = &g->box;
  const FGBodyCase *bc  = it->bc;
  const PetscInt    dim = g->dim;
  PetscReal         loc[7] = {0, 0, 0, 0, 0, 0, 0}, ext[6];
  const PetscScalar *c;

  PetscFunctionBeginUser;
  PetscCall(FGDensityMask(it->dens, it->rho, it->chic));
  /* centroid and extent of the solid */
  for (PetscInt d = 0; d < 3; d++) ext[d] = PETSC_MAX_REAL, ext[3 + d] = PETSC_MIN_REAL;
  PetscCall(VecGetArrayRead(it->chic, &c));
  for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
    for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
      for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
        const PetscInt  idx[3] = {i, j, k};
        const PetscReal w      = PetscRealPart(c[FGBoxOwnedIndex(bx, i, j, k)]), dV = FGGridVolume(g, FG_LOC_CELL, idx);
        loc[0] += w * dV;
        for (PetscInt d = 0; d < dim; d++) {
          PetscReal x = FGGridCoordinate(g, FG_LOC_CELL, d, idx[d]), h = FGGridWidth(g, FG_LOC_CELL, d, idx[d]);
          loc[1 + d] += w * x * dV;
          if (w > 0.5) ext[d] = PetscMin(ext[d], x - h), ext[3 + d] = PetscMax(ext[3 + d], x + h);
        }
      }
  PetscCall(VecRestoreArrayRead(it->chic, &c));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, loc, 4, MPIU_REAL, MPIU_SUM, g->comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, ext, 3, MPIU_REAL, MPIU_MIN, g->comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, ext + 3, 3, MPIU_REAL, MPIU_MAX, g->comm));
  PetscCheck(loc[0] > 0, g->comm, FG_ERR_INPUT, "%s: the density field %s:/%s has no solid (chi = P(F rho) is 0 everywhere)", bc->where, bc->density_file, bc->density_dataset);
  it->out.volume = loc[0];
  for (PetscInt d = 0; d < dim; d++) it->centroid[d] = loc[1 + d] / loc[0];
  /* the faces */
  for (PetscInt a = 0; a < dim; a++) {
    FGFaceList        *l = &it->f[a];
    const PetscScalar *cf;
    PetscInt           lo[3], hi[3];
    PetscCall(FGDensityFaceMask(it->dens, it->chic, a, it->chif));
    FGOpInteriorFaces(g, B->bc, a, lo, hi);
    PetscCall(VecGetArrayRead(it->chif, &cf));
    l->n = 0;
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) {
          const PetscInt  idx[3] = {i, j, k}, o = FGBoxOwnedIndex(bx, i, j, k);
          const PetscReal chi    = PetscRealPart(cf[o]);
          /* with rho a design variable, every interior face, also where chi = 0: a change of rho
             makes chi nonzero wherever the filter carries it, and the linearized penalization
             needs those faces (in the forward step a face with chi = 0 changes nothing: K = S = 0
             there); otherwise only the faces with chi > 0 */
          if (chi <= 0 && !it->allfaces) continue;
          PetscCall(FGFaceListReserve_Private(l, l->n + 1, 0));
          l->off[l->n] = o;
          for (PetscInt d = 0; d < 3; d++) l->x[3 * l->n + d] = d < dim ? FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]) : 0;
          l->chi[l->n] = chi;
          l->vol[l->n] = FGGridVolume(g, (FGLocation)(FG_LOC_FACE_X + a), idx);
          l->n++;
        }
    PetscCall(VecRestoreArrayRead(it->chif, &cf));
  }
  /* the control volume: the solid's box widened by half its size */
  for (PetscInt d = 0; d < 3; d++) {
    it->boxlo[d] = 0, it->boxhi[d] = d < dim ? g->n[d] : 1;
    it->boxwhole[d] = PETSC_TRUE;
    if (d >= dim || ext[d] > ext[3 + d]) continue;
    {
      PetscInt cl, ch;
      FGBodyBoxCells_Private(g, d, ext[d], ext[3 + d], 0.5 * (ext[3 + d] - ext[d]), &cl, &ch);
      if (g->periodic[d] && cl <= 0 && ch >= g->n[d]) continue;
      it->boxwhole[d] = PETSC_FALSE;
      it->boxlo[d]    = PetscMax(cl, 2);
      it->boxhi[d]    = PetscMin(ch, g->n[d] - 2);
    }
  }
  it->tbuilt = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool FGInBox_Private(PetscInt dim, const PetscReal x[], const PetscReal lo[], const PetscReal hi[])
{
  for (PetscInt d = 0; d < dim; d++)
    if (x[d] < lo[d] || x[d] > hi[d]) return PETSC_FALSE;
  return PETSC_TRUE;
}

/*@C
  FGBodiesCellMask - the combined mask 1 - prod_b (1 - chi_b) at the cell centres, at time t
  (for output and postprocessing).
@*/
PetscErrorCode FGBodiesCellMask(FGBodies B, PetscReal t, Vec chi)
{
  FGGrid       g  = B->g;
  const FGBox *bx = &g->box;
  PetscScalar *m;

  PetscFunctionBeginUser;
  PetscCall(VecSet(chi, 0.0));
  PetscCall(VecGetArray(chi, &m));
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem        *it   = &B->b[b];
    const PetscScalar *chic = NULL;
    PetscReal          bl[3], bh[3];
    PetscCall(FGBodyPlace_Internal(B, it, t));
    if (it->dens) PetscCall(VecGetArrayRead(it->chic, &chic));
    else {
      PetscCall(FGShapeBoundingBox(it->shape, bl, bh));
      for (PetscInt d = 0; d < g->dim; d++) bl[d] -= it->reach, bh[d] += it->reach;
    }
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
        for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
          const PetscInt idx[3] = {i, j, k};
          PetscReal      x[3]   = {0, 0, 0}, c;
          PetscInt       o      = FGBoxOwnedIndex(bx, i, j, k);
          for (PetscInt d = 0; d < g->dim; d++) x[d] = FGGridCoordinate(g, FG_LOC_CELL, d, idx[d]);
          if (it->dens) c = chic[o];
          else if (!FGInBox_Private(g->dim, x, bl, bh)) c = 0; /* chi = 0 outside the body */
          else {
            PetscReal phi, dH;
            PetscCall(FGShapeLevelSet(it->shape, x, &phi, NULL, NULL));
            if (it->sharp) c = phi < 0 ? 1 : 0;
            else FGBodyMaskProfile_Internal(it->bspline, -phi - it->shift, it->eps, &c, &dH);
          }
          m[o] = 1 - (1 - m[o]) * (1 - c);
        }
    if (it->dens) PetscCall(VecRestoreArrayRead(it->chic, &chic));
  }
  PetscCall(VecRestoreArray(chi, &m));
  PetscFunctionReturn(PETSC_SUCCESS);
}
