/* Private to src/viscous/: the direct (viscous_fftw.c) and the approximately factored
   (viscous_af.c) paths of the Helmholtz problems, used by viscous.c where they apply. */
#ifndef FG_VISCOUSIMPL_H
#define FG_VISCOUSIMPL_H

#include <fg/viscous.h>
#include <fftw3-mpi.h>

/* The slab direction's lines on several ranks (both paths): FFTW-MPI's transposes between the
   slabs [n_s][n_mid][B] and the lines [n_mid][n_s][B] (3D: B = n_x, n_mid = n_y; 2D: B in 8, 4,
   2, 1 dividing n_x, n_mid = n_x / B); this rank's lines are lnmid from mid0, and alloc the
   buffers' size FFTW asks for. */
typedef struct {
  ptrdiff_t B, nmid, lnmid, mid0, alloc;
} FGViscousLines;
PETSC_INTERN PetscErrorCode FGViscousLinesLayout(FGGrid, const char *, FGViscousLines *);
PETSC_INTERN PetscErrorCode FGViscousLinesPlans(FGGrid, const FGViscousLines *, const char *, double *, double *, fftw_plan *, fftw_plan *);

typedef struct _p_FGViscousFFTW *FGViscousFFTW;
PETSC_INTERN PetscErrorCode FGViscousFFTWCreate(FGGrid, const FGBoundary *, FGViscousFFTW *);
PETSC_INTERN PetscErrorCode FGViscousFFTWSolve(FGViscousFFTW, PetscInt, PetscReal, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode FGViscousFFTWDestroy(FGViscousFFTW *);
PETSC_INTERN PetscBool      FGViscousDirectApplies(FGGrid, const FGBoundary *);

typedef struct _p_FGViscousAF *FGViscousAF;
PETSC_INTERN PetscBool      FGViscousAFApplies(FGGrid, const FGBoundary *);
PETSC_INTERN PetscErrorCode FGViscousAFCreate(FGGrid, const FGBoundary *, FGViscousAF *);
PETSC_INTERN PetscErrorCode FGViscousAFSolve(FGViscousAF, FGGrid, PetscInt, PetscReal, const PetscScalar *, const PetscInt[3], PetscScalar *);
PETSC_INTERN PetscErrorCode FGViscousAFCorrection(FGViscousAF, FGGrid, PetscInt, PetscReal, PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode FGViscousAFDestroy(FGViscousAF *);

#endif
