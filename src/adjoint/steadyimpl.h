/* The steady solver's preconditioner (src/adjoint/steady_pc.c), private to src/adjoint/. */
#ifndef FG_STEADYIMPL_H
#define FG_STEADYIMPL_H

#include <fg/adjoint.h>
#include <petscsnes.h>

typedef struct _n_FGSteadyPC *FGSteadyPC;

PETSC_INTERN PetscErrorCode FGSteadyPCCreate(FGSolver, PetscBool, const char[], FGSteadyPC *);
PETSC_INTERN PetscErrorCode FGSteadyPCSetUp(FGSteadyPC, Vec[], Vec, PetscReal, PetscReal);
PETSC_INTERN PetscErrorCode FGSteadyPCIsSetUp(FGSteadyPC, PetscBool *);
PETSC_INTERN PetscErrorCode FGSteadyPCGetOptionsPrefix(FGSteadyPC, const char **);
PETSC_INTERN PetscErrorCode FGSteadyPCApply(FGSteadyPC, Vec, Vec);
PETSC_INTERN PetscErrorCode FGSteadyPCApplyTranspose(FGSteadyPC, Vec, Vec);
PETSC_INTERN PetscErrorCode FGSteadyPCDestroy(FGSteadyPC *);
PETSC_INTERN PetscErrorCode FGSteadyPCStep(FGSolver, PetscBool, PetscReal *);

#endif
