/* Private to src/body: the FGShape object shared by shape.c (the shape, its parameters, level
   sets and masks, in dual numbers) and shape_geometry.c (its bounding box and the functionals on
   a sample grid). */
#ifndef FG_SHAPEIMPL_H
#define FG_SHAPEIMPL_H

#include <fg/shape.h>

struct _p_FGShape {
  FGShapeKind kind;    /* FG_SHAPE_EXTRUDED for an extrusion */
  FGShapeKind section; /* the 2D kind of the level set in the x-y plane (== kind for 2D kinds) */
  PetscInt    dim, nplace, nk, np;
  PetscReal   p[FG_SHAPE_MAX_PARAMS];
  char        name[64];
  char        pname[FG_SHAPE_MAX_PARAMS][16];
  /* curve kinds: the coarse samples C(t_i) and the orientation, cached for the parameters cq */
  PetscBool   cached;
  PetscReal   cq[FG_SHAPE_MAX_PARAMS], samples[2 * 401], orient;
};

/* airfoils (NACA, CST): the placement angle is -aoa and the kind has a thickness */
static inline PetscBool FGShapeIsAirfoil_Internal(FGShapeKind k)
{
  return (PetscBool)(k == FG_SHAPE_NACA4 || k == FG_SHAPE_CST);
}

#endif
