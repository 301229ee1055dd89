/* flowgrad density-field bodies (topology optimization): a design variable rho in [0, 1] per cell
   and the solid mask chi = P(F rho) it defines, with F a linear smoothing filter and P a smooth
   projection (src/body/density.c).

     F   radius R cells: K = ceil(2 R^2) explicit heat-kernel passes per axis, variance R^2 per
         axis; zero flux at non-periodic boundaries, periodic wrap on periodic axes. Linear,
         symmetric (F^T = F), positive, preserves constants and (with the zero-flux walls) the
         total mass sum_i rho_i. R = 0: the identity.
     P   P(s) = (tanh(beta theta) + tanh(beta (s - theta))) / (tanh(beta theta) + tanh(beta (1 - theta)))
         (Wang, Lazarov & Sigmund 2011); beta = 0: P(s) = s.

   chi lives at cell centres; FGDensityFaceMask() averages it to the velocity faces. Every
   operation has its transpose (Jacobian-transpose products for the adjoint). All Vecs are global
   Vecs of grid->da. */
#ifndef FG_DENSITY_H
#define FG_DENSITY_H

#include <fg/grid.h>

typedef struct _p_FGDensity *FGDensity;

PETSC_EXTERN PetscErrorCode FGDensityRead(FGGrid, const char[], const char[], const char[], Vec);

PETSC_EXTERN PetscErrorCode FGDensityCreate(FGGrid, PetscReal, PetscReal, PetscReal, FGDensity *);
PETSC_EXTERN PetscErrorCode FGDensityDestroy(FGDensity *);
PETSC_EXTERN PetscErrorCode FGDensitySetProjection(FGDensity, PetscReal, PetscReal);
PETSC_EXTERN PetscErrorCode FGDensityGetFilter(FGDensity, PetscInt *, PetscReal *);
PETSC_EXTERN PetscErrorCode FGDensityView(FGDensity, PetscViewer);

PETSC_EXTERN PetscErrorCode FGDensityProjection(PetscReal, PetscReal, PetscReal, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode FGDensityFilter(FGDensity, Vec, Vec);
PETSC_EXTERN PetscErrorCode FGDensityMask(FGDensity, Vec, Vec);
PETSC_EXTERN PetscErrorCode FGDensityMaskAdjoint(FGDensity, Vec, Vec, Vec);
PETSC_EXTERN PetscErrorCode FGDensityFaceMask(FGDensity, Vec, PetscInt, Vec);
PETSC_EXTERN PetscErrorCode FGDensityFaceMaskAdjoint(FGDensity, Vec, PetscInt, Vec);

#endif
