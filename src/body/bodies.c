/*
  Bodies: set-up from the case and parameters (include/fg/body.h).

  FGBodiesCreate makes each body.<name> of the case: a parameterized shape (include/fg/shape.h)
  from its keys, validated, placed at t = 0 with its face lists (src/body/mask.c), or a density
  body read from its file with its filter and projection (include/fg/density.h).

  The parameters of body b: theta_b = [its shape's parameters (placement first: x0, y0[, z0],
  angle, then the kind's), rotation_rate, jet_amplitude_1..n_jets], the controls with
  design.time_basis coefficients each. The penalization of a stage depends on them through chi
  (the shape; the rotation turns a non-round shape: the angle is angle0 + rate t) and through u_s
  (placement, rotation rate, jets). The jets' footprint turns and moves with the body, and its
  normal n = grad phi / |grad phi| is differentiated exactly for circles and spheres only;
  FGBodiesGetParameterSupport() says which parameters have an exact derivative.
*/
#include "bodyimpl.h"

static PetscErrorCode FGBodyShapeCreate_Private(const FGBodyCase *bc, PetscInt dim, FGShape *shape, PetscBool *airfoil)
{
  static const FGShapeKind kinds[] = {FG_SHAPE_CIRCLE, FG_SHAPE_ELLIPSE, FG_SHAPE_FOURIER, FG_SHAPE_NACA4, FG_SHAPE_CST, FG_SHAPE_BSPLINE, FG_SHAPE_SPHERE, FG_SHAPE_ELLIPSOID};
  FGShapeKind              kind  = kinds[bc->shape];
  PetscInt                 n = 0, np, nq, np0;
  PetscReal                p[FG_SHAPE_MAX_PARAMS], *q;

  PetscFunctionBeginUser;
  switch (bc->shape) {
  case FG_BODY_FOURIER:
    n = bc->n_fourier;
    break;
  case FG_BODY_CST:
    n = bc->n_cst - 1; /* Bernstein order */
    break;
  case FG_BODY_BSPLINE:
    n = bc->n_points;
    break;
  default:
    break;
  }
  if (dim == 3 && bc->shape <= FG_BODY_BSPLINE) PetscCall(FGShapeCreateExtruded(kind, n, shape));
  else PetscCall(FGShapeCreate(kind, n, shape));
  PetscCall(FGShapeSetName(*shape, bc->name));
  PetscCall(FGShapeGetNumParameters(*shape, &np));
  *airfoil = (PetscBool)(bc->shape == FG_BODY_NACA || bc->shape == FG_BODY_CST);
  np0      = dim + 1;
  nq       = np - np0;
  for (PetscInt d = 0; d < dim; d++) p[d] = bc->position[d];
  p[dim] = bc->angle * PETSC_PI / 180; /* the shape's "aoa" of an airfoil is the same nose-up angle */
  q      = p + np0;
  switch (bc->shape) {
  case FG_BODY_CIRCLE:
  case FG_BODY_SPHERE:
    q[0] = bc->radius;
    break;
  case FG_BODY_ELLIPSE:
  case FG_BODY_ELLIPSOID:
    for (PetscInt i = 0; i < nq; i++) q[i] = bc->semi_axes[i];
    break;
  case FG_BODY_FOURIER:
    q[0] = bc->radius;
    for (PetscInt k = 0; k < n; k++) q[1 + k] = bc->fourier_cos[k], q[1 + n + k] = bc->fourier_sin[k];
    break;
  case FG_BODY_NACA: {
    const char *code = bc->naca;
    q[0] = (code[0] - '0') / 100.0;
    q[1] = (code[1] - '0') / 10.0;
    q[2] = ((code[2] - '0') * 10 + (code[3] - '0')) / 100.0;
    q[3] = bc->chord;
  } break;
  case FG_BODY_CST:
    q[0] = bc->chord;
    for (PetscInt i = 0; i < bc->n_cst; i++) q[1 + i] = bc->cst_upper[i], q[1 + bc->n_cst + i] = bc->cst_lower[i];
    break;
  case FG_BODY_BSPLINE:
    for (PetscInt i = 0; i < 2 * n; i++) q[i] = bc->control_points[i];
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "body '%s': shape %s has no level set", bc->name, FGBodyShapeNames[bc->shape]);
  }
  PetscCall(FGShapeSetParameters(*shape, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A density body: read rho, make the filter and the masks. Collective. */
static PetscErrorCode FGBodyBuildDensity_Private(FGBodies B, FGBodyItem *it)
{
  FGGrid            g  = B->g;
  const FGBodyCase *bc = it->bc;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(g->da, &it->rho));
  PetscCall(VecDuplicate(it->rho, &it->chic));
  PetscCall(VecDuplicate(it->rho, &it->chif));
  PetscCall(FGDensityRead(g, bc->density_file, bc->density_dataset, bc->where, it->rho));
  PetscCall(FGDensityCreate(g, bc->filter_radius, bc->projection_beta, bc->projection_threshold, &it->dens));
  PetscCall(FGBodyDensityMasks_Internal(B, it));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetDensity - a density body's rho (a global cell Vec owned by the bodies; NULL for a
  shape body) and its filter/projection.
@*/
PetscErrorCode FGBodiesGetDensity(FGBodies B, PetscInt b, Vec *rho, FGDensity *dens)
{
  PetscFunctionBeginUser;
  if (rho) *rho = B->b[b].rho;
  if (dens) *dens = B->b[b].dens;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesSetDensityDifferentiable - make a density body list every interior face (not only those
  with chi > 0), as its linearization with respect to rho needs; rebuilds its masks (collective).
@*/
PetscErrorCode FGBodiesSetDensityDifferentiable(FGBodies B, PetscInt b)
{
  FGBodyItem *it = &B->b[b];

  PetscFunctionBeginUser;
  PetscCheck(it->dens, B->g->comm, PETSC_ERR_ARG_WRONG, "body %s is not a density body", it->bc->name);
  it->allfaces = PETSC_TRUE;
  PetscCall(FGBodyDensityMasks_Internal(B, it));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesSetDensity - replace a density body's rho and rebuild its masks (collective).
@*/
PetscErrorCode FGBodiesSetDensity(FGBodies B, PetscInt b, Vec rho)
{
  FGBodyItem *it = &B->b[b];

  PetscFunctionBeginUser;
  PetscCheck(it->dens, B->g->comm, PETSC_ERR_ARG_WRONG, "body %s is not a density body", it->bc->name);
  PetscCall(VecCopy(rho, it->rho));
  PetscCall(FGBodyDensityMasks_Internal(B, it));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The spacing h of a body's mask on a stretched grid: the largest cell width, over the directions
   the shape is bounded in, of the cells its bounding box (as the case places it) overlaps. Fixed
   for the run, as h is on a uniform grid: the band does not change its width as the design moves
   the body (a smooth J), nor as a moving body travels. */
static PetscErrorCode FGBodySpacing_Private(FGGrid g, FGShape shape, PetscReal *h)
{
  PetscReal bl[3], bh[3];

  PetscFunctionBeginUser;
  PetscCall(FGShapeBoundingBox(shape, bl, bh));
  *h = 0;
  for (PetscInt d = 0; d < g->dim; d++)
    if (bl[d] > PETSC_MIN_REAL) *h = PetscMax(*h, FGGridSpacingIn(g, d, bl[d], bh[d]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the case's body does not translate or oscillate (fixed), and whether it turns (a
   rotation rate, its amplitude or its values in time): what the normal penalization and the
   sharp wall need of a surface that does not move. */
static void FGBodyCaseMotion_Private(const FGBodyCase *bc, PetscBool *fixed, PetscBool *turns)
{
  PetscBool osc = (PetscBool)(bc->oscillation_frequency != 0 && (bc->oscillation_amplitude[0] != 0 || bc->oscillation_amplitude[1] != 0 || bc->oscillation_amplitude[2] != 0));

  *fixed = (PetscBool)(!osc && bc->velocity[0] == 0 && bc->velocity[1] == 0 && bc->velocity[2] == 0);
  *turns = (PetscBool)(bc->rotation_rate != 0 || bc->rotation_amplitude != 0);
  for (PetscInt k = 0; k < bc->n_rate_values; k++) *turns = (PetscBool)(*turns || bc->rotation_rate_values[k] != 0);
}

/*@C
  FGBodiesCreate - the bodies of a case on a grid: shapes, validation (FG_ERR_INPUT naming the
  case file's body entry), inside-the-domain check, face lists at t = 0. Collective.
@*/
PetscErrorCode FGBodiesCreate(FGGrid g, const FGBoundary *bnd, const FGCase *c, FGBodies *bodies)
{
  FGBodies  B;
  PetscReal hmax = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&B));
  B->g  = g;
  B->bc = bnd;
  B->c  = c;
  B->nb = c->nbodies;
  B->dV = 1;
  for (PetscInt d = 0; d < g->dim; d++) {
    B->dV *= g->h[d];
    hmax = PetscMax(hmax, g->h[d]);
  }
  PetscCall(PetscCalloc1(PetscMax(B->nb, 1), &B->b));
  *bodies = B;
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem       *it = &B->b[b];
    const FGBodyCase *bc = &c->body[b];
    char              msg[1024];
    PetscErrorCode    ierr;

    it->bc = bc;
    if (bc->shape == FG_BODY_DENSITY) {
      PetscCall(FGBodyBuildDensity_Private(B, it));
      continue;
    }
    PetscCall(FGErrorCapturePush(msg, sizeof(msg)));
    ierr = FGBodyShapeCreate_Private(bc, g->dim, &it->shape, &it->airfoil);
    if (!ierr) ierr = FGShapeValidate(it->shape);
    PetscCall(FGErrorCapturePop());
    PetscCheck(!ierr, g->comm, ierr == FG_ERR_INPUT ? FG_ERR_INPUT : ierr, "%s: %s", bc->where, msg);
    {
      PetscReal h = hmax;
      if (!g->isuniform) PetscCall(FGBodySpacing_Private(g, it->shape, &h));
      it->h = h;
    }
    it->eps    = 0.5 * bc->mask_width * it->h;
    it->shift  = bc->mask_offset * it->eps;
    it->bspline = (PetscBool)(bc->mask_profile == FG_MASK_BSPLINE);
    it->nu      = c->flow.nu;
    if (bc->wall == FG_WALL_SHARP) { /* no band: the faces inside and their outside neighbours (mask.c) */
      PetscBool fixed, turns;
      FGBodyCaseMotion_Private(bc, &fixed, &turns);
      /* its chi is continuous in the surface's position but has kinks where a face or a neighbour
         crosses it: a surface moving across the faces would put kinks in every step's derivative */
      PetscCheck(fixed && (!turns || FG_JET_EXACT(it)), g->comm, FG_ERR_INPUT, "%s: wall: sharp applies to bodies whose surface does not move (no translation or oscillation; circles and spheres may rotate)", bc->where);
      it->sharp = PETSC_TRUE;
      it->eps = it->h, it->shift = 0;
    }
    if (bc->skin_layer > 0) { /* the soft skin: eta_s, the core, the band's centre (skin.c) */
      PetscCall(FGBodySkinOffset(it->bspline, bc->mask_width, bc->skin_layer, bc->core_depth, it->h * it->h / (c->flow.nu * bc->eta), &it->skinauto, &it->skinripple));
      it->skin  = bc->eta * c->flow.nu / PetscSqr(bc->skin_layer * it->h), it->core = bc->core_depth * it->h;
      it->shift = (bc->skin_offset_auto ? it->skinauto : bc->skin_offset_cells) * it->h;
      if (bc->skin_normal > 0) { /* the normal penalization (normal.c): bodies whose surface does not move */
        PetscBool fixed, turns;
        FGBodyCaseMotion_Private(bc, &fixed, &turns);
        PetscCheck(bc->skin_normal >= 1, g->comm, FG_ERR_INPUT, "%s: skin_normal %g: expected 0 (none) or >= 1 (eta_n = skin_normal eta, no stiffer than the core)", bc->where, (double)bc->skin_normal);
        PetscCheck(fixed && bc->n_jets == 0, g->comm, FG_ERR_INPUT, "%s: skin_normal applies to bodies that do not translate and have no jets (their normal velocity is then 0; a circle or sphere may rotate)", bc->where);
        PetscCheck(!turns || FG_JET_EXACT(it), g->comm, FG_ERR_INPUT, "%s: skin_normal applies to a rotating body only if it is a circle or a sphere (a turning %s moves its surface: its normal velocity is not 0)", bc->where, FGBodyShapeNames[bc->shape]);
        it->skin_n  = 1 / bc->skin_normal;
        it->depth_n = bc->skin_normal_depth * it->h;
        B->normal   = PETSC_TRUE;
      }
    }
    it->reach  = PetscMax(2 * it->eps, it->eps - it->shift) + it->h;
    it->nbasis = PetscMax(c->design.time_basis, 1);
    it->T      = (PetscReal)c->time.steps * c->time.dt;
    for (PetscInt k = 0; k < it->nbasis; k++) { /* the case's constants, or its values in time (validated: nbasis each) */
      it->ratec[k] = bc->n_rate_values ? bc->rotation_rate_values[k] : bc->rotation_rate;
      for (PetscInt j = 0; j < bc->n_jets; j++) it->jetc[j][k] = bc->n_jet_values ? bc->jet_amplitude_values[j * it->nbasis + k] : bc->jet_amplitude[j];
    }
    it->moving = FGBodyMoves_Internal(bc, FGBodyRateZero_Internal(it) ? 0.0 : 1.0);
    PetscCall(FGShapeGetNumParameters(it->shape, &it->np));
    {
      PetscReal p[FG_SHAPE_MAX_PARAMS];
      PetscCall(FGShapeGetParameters(it->shape, p));
      it->angle0 = p[g->dim];
    }
    PetscCall(FGBodyBuild_Internal(B, it, 0.0));
    if (bc->apertures) B->apertures = PETSC_TRUE;
    if (bc->line_flux) B->lineflux = PETSC_TRUE;
    if (bc->quadratic_ghost) B->ghost = PETSC_TRUE;
    if (bc->shared_ghost) B->ghost = B->shared = PETSC_TRUE; /* its explicit term reads the stage's start velocity too */
  }
  PetscCheck(!B->ghost || !B->normal, g->comm, FG_ERR_INPUT, "%s: quadratic_ghost or shared_ghost (a sharp wall) and another body's skin_normal in one case are not supported", c->file);
  if (B->nb)
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscCall(DMCreateGlobalVector(g->da, &B->K[a]));
      PetscCall(VecDuplicate(B->K[a], &B->S[a]));
    }
  PetscCall(FGBodiesApertureBuild_Internal(B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGBodiesDestroy(FGBodies *bodies)
{
  FGBodies B = *bodies;

  PetscFunctionBeginUser;
  if (!B) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt b = 0; b < B->nb; b++) {
    for (PetscInt a = 0; a < 3; a++) PetscCall(FGFaceListFree_Internal(&B->b[b].f[a]));
    for (PetscInt a = 0; a < 3; a++) PetscCall(FGApertureListFree_Internal(&B->b[b].ap[a]));
    for (PetscInt a = 0; a < 3; a++) PetscCall(FGSharedListFree_Internal(&B->b[b].sg[a]));
    for (PetscInt i = 0; i < B->b[b].nkept; i++) PetscCall(FGBodyPlacementFree_Internal(&B->b[b].kept[i]));
    PetscCall(PetscFree(B->b[b].kept));
    PetscCall(FGShapeDestroy(&B->b[b].shape));
    PetscCall(FGDensityDestroy(&B->b[b].dens));
    PetscCall(VecDestroy(&B->b[b].rho));
    PetscCall(VecDestroy(&B->b[b].chic));
    PetscCall(VecDestroy(&B->b[b].chif));
  }
  for (PetscInt a = 0; a < 3; a++) {
    PetscCall(VecDestroy(&B->K[a]));
    PetscCall(VecDestroy(&B->S[a]));
    PetscCall(VecDestroy(&B->W[a]));
    PetscCall(VecDestroy(&B->Z[a]));
    PetscCall(VecDestroy(&B->X[a]));
    PetscCall(VecDestroy(&B->D[a]));
    PetscCall(VecDestroy(&B->R[a]));
    PetscCall(VecDestroy(&B->A[a]));
    PetscCall(VecDestroy(&B->Al[a]));
    PetscCall(VecDestroy(&B->dA[a]));
    PetscCall(MatDestroy(&B->Xm[a]));
    PetscCall(MatDestroy(&B->Xone[a]));
    PetscCall(MatDestroy(&B->dXm[a]));
    PetscCall(MatDestroy(&B->Xt[a]));
    PetscCall(VecDestroy(&B->Eg[a]));
    PetscCall(VecDestroy(&B->Ug[a]));
    PetscCall(VecDestroy(&B->dEg[a]));
    PetscCall(MatDestroy(&B->Wm[a]));
    PetscCall(MatDestroy(&B->dWm[a]));
    PetscCall(MatDestroy(&B->Wone[a]));
    PetscCall(MatDestroy(&B->Wbar[a]));
    PetscCall(MatDestroy(&B->Wt[a]));
    PetscCall(FGLineFluxListFree_Internal(&B->lf[a]));
  }
  PetscCall(PetscFree(B->b));
  PetscCall(PetscFree(B));
  *bodies = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGBodiesGetCount(FGBodies B, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = B ? B->nb : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesHasGhostTerm - whether some body's penalization reads the stage's start velocity (a sharp
  wall's quadratic ghosts: FGBodiesPenalize's ul), so that its adjoint has a part there.
@*/
PetscErrorCode FGBodiesHasGhostTerm(FGBodies B, PetscBool *has)
{
  PetscFunctionBeginUser;
  *has = B ? B->ghost : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGBodiesGetName(FGBodies B, PetscInt b, const char **name)
{
  PetscFunctionBeginUser;
  *name = B->b[b].bc->name;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGBodiesGetShape(FGBodies B, PetscInt b, FGShape *shape)
{
  PetscFunctionBeginUser;
  *shape = B->b[b].shape;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetSkinOffset - body b's soft skin as FGBodySkinOffset found it: the band centre's depth
  that puts the wall on the surface (`skin_offset: auto`), and the ripple left, in cells (0 and 0
  without a skin). Not collective.
@*/
PetscErrorCode FGBodiesGetSkinOffset(FGBodies B, PetscInt b, PetscReal *offset, PetscReal *ripple)
{
  PetscFunctionBeginUser;
  *offset = B->b[b].skinauto, *ripple = B->b[b].skinripple;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetCoreFraction - with a soft skin, the stiff core's volume (area in 2D) over the
  shape's, as placed last: near 1 for a body thick against the skin's layers, small for a body
  thinner than twice the core's depth below the surface, whose penalization is then mostly the
  soft band's and stops little flow (0 without a skin). Not collective.
@*/
PetscErrorCode FGBodiesGetCoreFraction(FGBodies B, PetscInt b, PetscReal *frac)
{
  PetscFunctionBeginUser;
  *frac = B->b[b].skin > 0 ? B->b[b].corefrac : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetWallGaps - with a sharp wall (wall: sharp), the pairs of neighbouring faces of one
  velocity component along one axis that both lie outside body b with the body between them, as
  placed last (n = 0 otherwise): where the body is thinner than a cell, so that no face inside it
  holds the wall in those stencils and the wall has a gap (a thin trailing edge). The box of
  those faces in lo, hi. Not collective (reduced when the body is placed).
@*/
PetscErrorCode FGBodiesGetWallGaps(FGBodies B, PetscInt b, FGBodyWallGaps *gaps)
{
  PetscFunctionBeginUser;
  *gaps = B->b[b].gaps;
  if (!B->b[b].sharp) gaps->n = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The unit normal grad phi/|grad phi| of body b's level set at x (0 where the gradient vanishes). */
static PetscErrorCode FGBodyNormalAt_Private(FGShape shape, PetscInt dim, const PetscReal x[], PetscReal n[])
{
  PetscReal phi, gx[3] = {0, 0, 0}, g2 = 0;

  PetscFunctionBeginUser;
  PetscCall(FGShapeLevelSet(shape, x, &phi, gx, NULL));
  for (PetscInt d = 0; d < dim; d++) g2 += gx[d] * gx[d];
  for (PetscInt d = 0; d < dim; d++) n[d] = g2 > 0 ? gx[d] / PetscSqrtReal(g2) : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetSharpestTurn - with a sharp wall (wall: sharp), the smallest radius of curvature of
  body b's surface in cells, and where: over the faces of its last placement within half a cell of
  the surface, |(dim - 1)/div n - d| (n the level set's unit normal, its divergence differenced over
  a thousandth of the cell; d the face's signed distance) over the face's largest cell width. A
  tip or an edge that turns within a couple of cells is not resolved, and the forces follow where
  the grid cuts it (docs/bodies.md: an ellipse turned by 2 degrees). PETSC_MAX_REAL for other
  bodies. Collective.
@*/
PetscErrorCode FGBodiesGetSharpestTurn(FGBodies B, PetscInt b, PetscReal *cells, PetscReal where[])
{
  FGBodyItem    *it  = &B->b[b];
  FGGrid         g   = B->g;
  const PetscInt dim = g->dim;
  PetscReal      best = PETSC_MAX_REAL, at[3] = {0, 0, 0}, glob;
  PetscMPIInt    rank, size, owner;

  PetscFunctionBeginUser;
  *cells = PETSC_MAX_REAL;
  for (PetscInt d = 0; d < 3; d++) where[d] = 0;
  if (!it->sharp) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt a = 0; a < dim; a++) {
    const FGFaceList *l = &it->f[a];
    for (PetscInt f = 0; f < l->n; f++) {
      const PetscReal *G = l->geo + FG_FACE_GEO * f, *x = l->x + 3 * f;
      const PetscReal  dist = G[0] / PetscMax(G[5], PETSC_SMALL); /* phi/|grad phi|: the signed distance */
      PetscReal        h = 0, div = 0, r;
      for (PetscInt d = 0; d < dim; d++) h = PetscMax(h, g->ax[d].dxf[(PetscInt)G[FG_GEO_SHARP_IDX + d]]);
      if (PetscAbsReal(dist) > 0.5 * h) continue;
      for (PetscInt d = 0; d < dim; d++) {
        PetscReal y[3] = {x[0], x[1], x[2]}, np[3], nm[3];
        y[d] = x[d] + 1e-3 * h;
        PetscCall(FGBodyNormalAt_Private(it->shape, dim, y, np));
        y[d] = x[d] - 1e-3 * h;
        PetscCall(FGBodyNormalAt_Private(it->shape, dim, y, nm));
        div += (np[d] - nm[d]) / (2e-3 * h);
      }
      /* the level set through the face lies dist off the surface, its radius that much larger on
         a convex part (a corner's: dist, the surface's 0) */
      r = PetscAbsReal(div) > 0 ? PetscAbsReal((PetscReal)(dim - 1) / div - dist) / h : PETSC_MAX_REAL;
      if (r < best) {
        best = r;
        for (PetscInt d = 0; d < 3; d++) at[d] = x[d];
      }
    }
  }
  PetscCallMPI(MPI_Allreduce(&best, &glob, 1, MPIU_REAL, MPIU_MIN, g->comm));
  PetscCallMPI(MPI_Comm_rank(g->comm, &rank));
  PetscCallMPI(MPI_Comm_size(g->comm, &size));
  owner = best == glob ? rank : size;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &owner, 1, MPI_INT, MPI_MIN, g->comm));
  PetscCallMPI(MPI_Bcast(at, 3, MPIU_REAL, owner, g->comm));
  *cells = glob;
  for (PetscInt d = 0; d < 3; d++) where[d] = at[d];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetMaskSpacing - the spacing h the mask band of body b is measured in (its width is
  mask_width h): the largest grid spacing on a uniform grid, the largest cell width around the
  body on a stretched one (0 for a density body, whose mask is per cell).
@*/
PetscErrorCode FGBodiesGetMaskSpacing(FGBodies B, PetscInt b, PetscReal *h)
{
  PetscFunctionBeginUser;
  *h = B->b[b].dens ? 0 : B->b[b].h;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Parameters

   The parameters of body b: theta_b = [its shape's parameters (placement first: x0, y0[, z0],
   angle, then the kind's), rotation_rate, jet_amplitude_1..n_jets]. The penalization of a stage
   depends on them through chi (the shape; the rotation turns a non-round shape: the angle is
   angle0 + rate t) and through u_s (placement, rotation rate, jets). The jets' footprint turns
   and moves with the body, and its normal n = grad phi / |grad phi| is differentiated exactly
   for circles and spheres only; FGBodiesGetParameterSupport() says which parameters have an exact
   derivative. */


/*@C
  FGBodiesGetParameterCount - the number of scalar parameters theta_b of body b (0 for a density body).
@*/
PetscErrorCode FGBodiesGetParameterCount(FGBodies B, PetscInt b, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = B->b[b].dens ? 0 : FG_BODY_NTHETA(&B->b[b]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetShapeParameterCount - the number of shape parameters (placement included) of body b.
@*/
PetscErrorCode FGBodiesGetShapeParameterCount(FGBodies B, PetscInt b, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = B->b[b].dens ? 0 : B->b[b].np;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetTimeBasis - the number of basis functions in time of the controls (design.time_basis).
@*/
PetscErrorCode FGBodiesGetTimeBasis(FGBodies B, PetscInt *nb)
{
  PetscFunctionBeginUser;
  *nb = PetscMax(B->c->design.time_basis, 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetParameterName - the name of parameter i of body b: the shape's name for it, or
  "rotation_rate", or "jet_amplitude[j]", with "[k]" appended for basis coefficient k when the
  controls have a basis in time (buffer of len bytes).
@*/
PetscErrorCode FGBodiesGetParameterName(FGBodies B, PetscInt b, PetscInt i, char name[], size_t len)
{
  const FGBodyItem *it = &B->b[b];

  PetscFunctionBeginUser;
  if (i < it->np) {
    const char *pn;
    PetscCall(FGShapeGetParameterName(it->shape, i, &pn));
    PetscCall(PetscStrncpy(name, pn, len));
  } else if (i < it->np + it->nbasis) {
    if (it->nbasis == 1) PetscCall(PetscStrncpy(name, "rotation_rate", len));
    else PetscCall(PetscSNPrintf(name, len, "rotation_rate[%" PetscInt_FMT "]", i - it->np));
  } else {
    const PetscInt q = i - it->np - it->nbasis;
    if (it->nbasis == 1) PetscCall(PetscSNPrintf(name, len, "jet_amplitude[%" PetscInt_FMT "]", q));
    else PetscCall(PetscSNPrintf(name, len, "jet_amplitude[%" PetscInt_FMT "][%" PetscInt_FMT "]", q / it->nbasis, q % it->nbasis));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetParameterSupport - whether the derivative with respect to parameter i of body b is
  exact (PETSC_FALSE: the shape and rotation of a non-round body with jets, whose jet normals
  would need second derivatives of the level set; the rotation rate of a non-round body with
  skin_normal or a sharp wall, which assume a surface that does not move).
@*/
PetscErrorCode FGBodiesGetParameterSupport(FGBodies B, PetscInt b, PetscInt i, PetscBool *ok)
{
  const FGBodyItem *it = &B->b[b];

  PetscFunctionBeginUser;
  *ok = (PetscBool)(it->bc->n_jets == 0 || FG_JET_EXACT(it) || i >= it->np + it->nbasis);
  if ((it->skin_n > 0 || it->sharp) && !FG_JET_EXACT(it) && i >= it->np && i < it->np + it->nbasis) *ok = PETSC_FALSE; /* the normal band or the sharp wall of a turning non-round body */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetParameters - theta_b of body b (at t = 0).
@*/
PetscErrorCode FGBodiesGetParameters(FGBodies B, PetscInt b, PetscReal theta[])
{
  FGBodyItem *it = &B->b[b];
  PetscReal   p[FG_SHAPE_MAX_PARAMS];

  PetscFunctionBeginUser;
  if (it->dens) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGShapeGetParameters(it->shape, p));
  for (PetscInt d = 0; d < B->g->dim; d++) p[d] = it->bc->position[d] + it->dpos[d];
  p[B->g->dim] = it->angle0;
  for (PetscInt i = 0; i < it->np; i++) theta[i] = p[i];
  for (PetscInt k = 0; k < it->nbasis; k++) {
    theta[it->np + k] = it->ratec[k];
    for (PetscInt j = 0; j < it->bc->n_jets; j++) theta[it->np + it->nbasis * (1 + j) + k] = it->jetc[j][k];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesSetParameters - set theta_b of body b and rebuild its mask at t = 0 (collective: the
  inside-the-domain check). Errors (an invalid shape) are FG_ERR_INPUT naming the body.
@*/
PetscErrorCode FGBodiesSetParameters(FGBodies B, PetscInt b, const PetscReal theta[])
{
  FGBodyItem    *it  = &B->b[b];
  const PetscInt dim = B->g->dim;
  PetscReal      p[FG_SHAPE_MAX_PARAMS];
  char           msg[1024];
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  if (it->dens) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < it->np; i++) p[i] = theta[i];
  for (PetscInt d = 0; d < dim; d++) it->dpos[d] = theta[d] - it->bc->position[d];
  it->angle0 = theta[dim];
  for (PetscInt k = 0; k < it->nbasis; k++) {
    it->ratec[k] = theta[it->np + k];
    for (PetscInt j = 0; j < it->bc->n_jets; j++) it->jetc[j][k] = theta[it->np + it->nbasis * (1 + j) + k];
  }
  it->moving = FGBodyMoves_Internal(it->bc, FGBodyRateZero_Internal(it) ? 0.0 : 1.0);
  PetscCall(FGErrorCapturePush(msg, sizeof(msg)));
  ierr = FGShapeSetParameters(it->shape, p);
  if (!ierr) ierr = FGShapeValidate(it->shape);
  PetscCall(FGErrorCapturePop());
  PetscCheck(!ierr, B->g->comm, FG_ERR_INPUT, "%s: with the design's parameters: %s", it->bc->where, msg);
  FGBodyForgetPlacements_Internal(it);
  PetscCall(FGBodyBuild_Internal(B, it, 0.0));
  if (it->bc->apertures) PetscCall(FGBodiesApertureBuild_Internal(B));
  PetscFunctionReturn(PETSC_SUCCESS);
}
