/*
  What the output files carry to draw the bodies: the design's surface {phi = 0}, not a contour of
  the mask (the mask's band is shifted into the body and its chi = 0.5 contour sits inside the
  surface by the shift, 0.75 cells with the default profile).

    chi              the combined mask at the cell centres (FGBodiesCellMask)
    phi              the level set of the nearest body at the cell centres (min over the bodies
                     with a shape; negative inside, a signed distance for circles, spheres and
                     curves): exact within each body's reach of its bounding box, beyond it the
                     distance to that box, a lower bound of the distance to the body, so that
                     phi = 0 on the surfaces only. ParaView's Contour at 0 draws them in 2D and 3D.
    outline_<body>   (2D) FG_BODY_OUTLINE_POINTS points of the surface, x0 y0 x1 y1 ...
                     (FGShapeOutline): exact points, so a drawn outline is the shape to the
                     chords between them (a sagitta of 2e-5 of a circle's radius), which a
                     contour of sampled values is not at a sharp trailing edge.

  Density bodies have no level set: they contribute chi only.
*/
#include "bodyimpl.h"

static PetscReal FGBoxDistance_Private(PetscInt dim, const PetscReal x[], const PetscReal lo[], const PetscReal hi[])
{
  PetscReal d2 = 0;
  for (PetscInt d = 0; d < dim; d++) {
    const PetscReal e = x[d] < lo[d] ? lo[d] - x[d] : x[d] > hi[d] ? x[d] - hi[d] : 0;
    d2 += e * e;
  }
  return PetscSqrtReal(d2);
}

/*@C
  FGBodiesCellLevelSet - phi = min_b phi_b at the cell centres at time t over the bodies with a
  shape (see the file's header); *has = PETSC_FALSE (and phi untouched) when no body has one.
  Not collective.
@*/
PetscErrorCode FGBodiesCellLevelSet(FGBodies B, PetscReal t, Vec phi, PetscBool *has)
{
  FGGrid       g  = B->g;
  const FGBox *bx = &g->box;
  PetscScalar *m;

  PetscFunctionBeginUser;
  *has = PETSC_FALSE;
  for (PetscInt b = 0; b < B->nb; b++)
    if (!B->b[b].dens) *has = PETSC_TRUE;
  if (!*has) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecSet(phi, PETSC_MAX_REAL));
  PetscCall(VecGetArray(phi, &m));
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem *it = &B->b[b];
    PetscReal   bl[3] = {0, 0, 0}, bh[3] = {0, 0, 0}, el[3], eh[3];
    if (it->dens) continue;
    PetscCall(FGBodyPlace_Internal(B, it, t));
    PetscCall(FGShapeBoundingBox(it->shape, bl, bh));
    for (PetscInt d = 0; d < g->dim; d++) el[d] = bl[d] - it->reach, eh[d] = bh[d] + it->reach;
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
        for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
          const PetscInt idx[3] = {i, j, k}, o = FGBoxOwnedIndex(bx, i, j, k);
          PetscReal      x[3]   = {0, 0, 0}, v;
          for (PetscInt d = 0; d < g->dim; d++) x[d] = FGGridCoordinate(g, FG_LOC_CELL, d, idx[d]);
          if (FGBoxDistance_Private(g->dim, x, el, eh) > 0) v = FGBoxDistance_Private(g->dim, x, bl, bh);
          else PetscCall(FGShapeLevelSet(it->shape, x, &v, NULL, NULL));
          m[o] = PetscMin(PetscRealPart(m[o]), v);
        }
  }
  PetscCall(VecRestoreArray(phi, &m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesOutputAdd - appends what draws the bodies at time t to a file's lists (FGIOWriteFields):
  the cell fields chi and (with a shape body) phi, and in 2D a vector outline_<body> per shape
  body. The Vecs and buffers live in out until FGBodiesOutputDestroy(). Collective (no
  communication but the Vecs' creation). Nothing is appended without bodies.
@*/
PetscErrorCode FGBodiesOutputAdd(FGBodies B, PetscReal t, Vec like, FGBodiesOutput *out, FGIOField f[], PetscInt *nf, FGIOVector v[], PetscInt *nv)
{
  PetscBool      has;
  const PetscInt M = FG_BODY_OUTLINE_POINTS;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(out, sizeof(*out)));
  if (!B || !B->nb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecDuplicate(like, &out->chi));
  PetscCall(FGBodiesCellMask(B, t, out->chi));
  f[(*nf)++] = (FGIOField){.name = "chi", .location = FG_LOC_CELL, .vec = out->chi};
  PetscCall(VecDuplicate(like, &out->phi));
  PetscCall(FGBodiesCellLevelSet(B, t, out->phi, &has));
  if (has) f[(*nf)++] = (FGIOField){.name = "phi", .location = FG_LOC_CELL, .vec = out->phi};
  if (B->g->dim != 2 || !has) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(2 * M * B->nb, &out->xy));
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem *it = &B->b[b];
    if (it->dens) continue;
    PetscCall(FGBodyPlace_Internal(B, it, t));
    PetscCall(FGShapeOutline(it->shape, M, out->xy + 2 * M * b));
    PetscCall(PetscSNPrintf(out->names[b], sizeof(out->names[b]), "outline_%s", it->bc->name));
    v[(*nv)++] = (FGIOVector){.name = out->names[b], .n = 2 * M, .values = out->xy + 2 * M * b};
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGBodiesOutputDestroy(FGBodiesOutput *out)
{
  PetscFunctionBeginUser;
  PetscCall(VecDestroy(&out->chi));
  PetscCall(VecDestroy(&out->phi));
  PetscCall(PetscFree(out->xy));
  PetscFunctionReturn(PETSC_SUCCESS);
}
