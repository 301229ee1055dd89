/* Private to src/viscous/: the direct path of the Helmholtz problems (viscous_fftw.c), used by
   viscous.c where it applies. */
#ifndef FG_VISCOUSIMPL_H
#define FG_VISCOUSIMPL_H

#include <fg/viscous.h>

typedef struct _p_FGViscousFFTW *FGViscousFFTW;
PETSC_INTERN PetscErrorCode FGViscousFFTWCreate(FGGrid, const FGBoundary *, FGViscousFFTW *);
PETSC_INTERN PetscErrorCode FGViscousFFTWSolve(FGViscousFFTW, PetscInt, PetscReal, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode FGViscousFFTWDestroy(FGViscousFFTW *);

#endif
