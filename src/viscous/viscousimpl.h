/* Private to src/viscous/: the direct (viscous_fftw.c) and the approximately factored
   (viscous_af.c) paths of the Helmholtz problems, used by viscous.c where they apply. */
#ifndef FG_VISCOUSIMPL_H
#define FG_VISCOUSIMPL_H

#include <fg/viscous.h>

typedef struct _p_FGViscousFFTW *FGViscousFFTW;
PETSC_INTERN PetscErrorCode FGViscousFFTWCreate(FGGrid, const FGBoundary *, FGViscousFFTW *);
PETSC_INTERN PetscErrorCode FGViscousFFTWSolve(FGViscousFFTW, PetscInt, PetscReal, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode FGViscousFFTWDestroy(FGViscousFFTW *);
PETSC_INTERN PetscBool      FGViscousDirectApplies(FGGrid, const FGBoundary *);

typedef struct _p_FGViscousAF *FGViscousAF;
PETSC_INTERN PetscBool      FGViscousAFApplies(FGGrid, const FGBoundary *);
PETSC_INTERN PetscErrorCode FGViscousAFCreate(FGGrid, const FGBoundary *, FGViscousAF *);
PETSC_INTERN PetscErrorCode FGViscousAFSolve(FGViscousAF, FGGrid, PetscInt, PetscReal, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode FGViscousAFCorrection(FGViscousAF, FGGrid, PetscInt, PetscReal, PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode FGViscousAFDestroy(FGViscousAF *);

#endif
