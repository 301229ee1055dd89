/* flowgrad parameterized shapes: smooth level sets phi(x; p), masks chi = H_eps(-phi), their
   derivatives with respect to x and to every parameter, and geometric functionals on a sample grid.
   Pure geometry: no grid, solver or case-file dependence (src/body/shape.c; the bounding box and
   the functionals on a sample grid: src/body/shape_geometry.c). */
#ifndef FG_SHAPE_H
#define FG_SHAPE_H

#include <fg/sys.h>

/* Shape kinds. The parameter vector p of a shape is [placement, kind parameters]:
     2D placement: x0, y0, angle          3D placement: x0, y0, z0, angle (rotation about z)
   angle rotates the body counterclockwise about (x0,y0); airfoils (NACA, CST) name it "aoa" and
   rotate clockwise (nose up for a flow in +x), pivoting about the leading edge at (x0,y0).
     FG_SHAPE_CIRCLE     r
     FG_SHAPE_ELLIPSE    a, b                                  (semi-axes along the body axes)
     FG_SHAPE_FOURIER    r0, a1..aK, b1..bK                    r(th) = r0 + sum a_k cos k th + b_k sin k th
     FG_SHAPE_NACA4      m, p, t, c                            (real-valued NACA 4-digit, closed TE)
     FG_SHAPE_CST        c, Au0..Aun, Al0..Aln                 (N1 = 0.5, N2 = 1, Bernstein order n)
     FG_SHAPE_BSPLINE    X0, Y0, ..., X(n-1), Y(n-1)           (periodic cubic, control points)
     FG_SHAPE_SPHERE     r                                     (3D)
     FG_SHAPE_ELLIPSOID  a, b, c                               (3D)
     FG_SHAPE_EXTRUDED   the 2D section's kind parameters      (3D, infinite extrusion along z) */
typedef enum {
  FG_SHAPE_CIRCLE,
  FG_SHAPE_ELLIPSE,
  FG_SHAPE_FOURIER,
  FG_SHAPE_NACA4,
  FG_SHAPE_CST,
  FG_SHAPE_BSPLINE,
  FG_SHAPE_SPHERE,
  FG_SHAPE_ELLIPSOID,
  FG_SHAPE_EXTRUDED
} FGShapeKind;

#define FG_SHAPE_MAX_PARAMS 48 /* placement included */

typedef struct _p_FGShape *FGShape;

/* A uniform Cartesian sample grid: points at lo[d] + (i + 1/2) h[d], i = 0..n[d]-1 (cell centres). */
typedef struct {
  PetscInt  dim;
  PetscInt  n[3];
  PetscReal lo[3], h[3];
} FGSampleGrid;

PETSC_EXTERN PetscErrorCode FGShapeCreate(FGShapeKind, PetscInt, FGShape *);
PETSC_EXTERN PetscErrorCode FGShapeCreateExtruded(FGShapeKind, PetscInt, FGShape *);
PETSC_EXTERN PetscErrorCode FGShapeDuplicate(FGShape, FGShape *);
PETSC_EXTERN PetscErrorCode FGShapeDestroy(FGShape *);
PETSC_EXTERN PetscErrorCode FGShapeSetName(FGShape, const char[]);
PETSC_EXTERN PetscErrorCode FGShapeGetDimension(FGShape, PetscInt *);
PETSC_EXTERN PetscErrorCode FGShapeGetNumParameters(FGShape, PetscInt *);
PETSC_EXTERN PetscErrorCode FGShapeGetParameterName(FGShape, PetscInt, const char **);
PETSC_EXTERN PetscErrorCode FGShapeSetParameters(FGShape, const PetscReal[]);
PETSC_EXTERN PetscErrorCode FGShapeGetParameters(FGShape, PetscReal[]);
PETSC_EXTERN PetscErrorCode FGShapeSetParameter(FGShape, const char[], PetscReal);
PETSC_EXTERN PetscErrorCode FGShapeValidate(FGShape);

PETSC_EXTERN PetscErrorCode FGShapeLevelSet(FGShape, const PetscReal[], PetscReal *, PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode FGShapeMask(FGShape, PetscReal, const PetscReal[], PetscReal *, PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode FGHeaviside(PetscReal, PetscReal, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode FGShapeCurvePoint(FGShape, PetscReal, PetscReal[]);
PETSC_EXTERN PetscErrorCode FGShapeBoundingBox(FGShape, PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode FGShapeOutline(FGShape, PetscInt, PetscReal[]);

PETSC_EXTERN PetscErrorCode FGShapeMaskGrid(FGShape, const FGSampleGrid *, PetscReal, PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode FGShapeArea(FGShape, const FGSampleGrid *, PetscReal, PetscReal *, PetscReal[]);
PETSC_EXTERN PetscErrorCode FGShapeCentroid(FGShape, const FGSampleGrid *, PetscReal, PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode FGShapePerimeter(FGShape, const FGSampleGrid *, PetscReal, PetscReal, PetscReal *, PetscReal[]);
PETSC_EXTERN PetscErrorCode FGShapeThickness(FGShape, PetscReal, PetscReal *, PetscReal[]);

#endif
