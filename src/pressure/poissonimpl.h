/* Private: the FGPoisson object shared by src/pressure/poisson.c (common API, dispatch, Apply)
   and its two implementations, poisson_fftw.c and poisson_ksp.c (the PETSc impl.h pattern). */
#ifndef FG_POISSONIMPL_H
#define FG_POISSONIMPL_H

#include <fg/poisson.h>

typedef struct {
  PetscErrorCode (*setup)(FGPoisson);
  PetscErrorCode (*solve)(FGPoisson, Vec, Vec);
  PetscErrorCode (*solvetranspose)(FGPoisson, Vec, Vec);
  PetscErrorCode (*settolerances)(FGPoisson); /* push rtol/max_it into a set-up solver (may be NULL) */
  PetscErrorCode (*destroy)(FGPoisson);
} FGPoissonOps;

struct _p_FGPoisson {
  FGGrid        grid;
  FGPoissonType type;
  FGPoissonBC   bc[3][2];
  PetscBool     singular; /* no Dirichlet face: the constants are the null space */
  PetscBool     setupcalled;
  PetscReal     rtol;     /* KSP relative tolerance (default 1e-10) */
  PetscInt      max_it;   /* KSP iteration limit (default 500) */
  PetscInt      its;      /* iterations of the last solve (0 for FFTW) */
  Vec           vol, work; /* stretched grids: the cell volumes V and a work Vec (else NULL) */
  Vec           wl[3];     /* face weights (FGPoissonSetFaceWeights; NULL: none), ghosted like the velocity */
  Mat           Wm[3];     /* a face operator W - I (FGPoissonSetFaceOperator; NULL: none) */
  PetscBool     wdirty;    /* the weights or the face operator were set since the operator was last assembled */
  FGPoissonOps  ops;
  void         *data;     /* the implementation's context */
};

/* Log events, registered once by FGPoissonInitializePackage_Private (poisson.c). */
PETSC_INTERN PetscLogEvent FG_EVENT_PoissonSolveFFTW, FG_EVENT_PoissonSolveKSP, FG_EVENT_PoissonSetUp, FG_EVENT_PoissonApply;

PETSC_INTERN PetscErrorCode FGPoissonCreate_FFTW(FGPoisson);
PETSC_INTERN PetscErrorCode FGPoissonCreate_KSP(FGPoisson);
/* The face weights' arrays (NULL without weights), and the weight of face fi (component d's
   index) from them: 1 without weights and on the domain's boundary. */
PETSC_INTERN PetscErrorCode FGPoissonFaceWeightsGet_Private(FGPoisson, const PetscScalar *[3]);
PETSC_INTERN PetscErrorCode FGPoissonFaceWeightsRestore_Private(FGPoisson, const PetscScalar *[3]);
PETSC_INTERN PetscReal      FGPoissonFaceWeight_Private(FGPoisson, const PetscScalar *const[3], PetscInt, const PetscInt[]);
/* Subtract the mean of a global Vec of the grid (collective). */
PETSC_INTERN PetscErrorCode FGPoissonRemoveMean_Private(FGPoisson, Vec);

/* Batched REDFT10/REDFT01 of contiguous rows through r2c/c2r FFTs (dct.c). */
typedef struct _p_FGDCT *FGDCT;
PETSC_INTERN PetscErrorCode FGDCTCreate(PetscInt, PetscInt, unsigned, FGDCT *);
PETSC_INTERN PetscErrorCode FGDCTDestroy(FGDCT *);
PETSC_INTERN void           FGDCTForward(FGDCT, const double *, double *);
PETSC_INTERN void           FGDCTInverse(FGDCT, const double *, double *, double);

#endif
