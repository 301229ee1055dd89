/* What the subcommands of src/app/ share: the set-up of the gradient subcommands (the case written
   out, FFTW wisdom in output.dir) and the objects of flowgrad adjoint and flowgrad check, both
   defined in src/app/adjoint.c. */
#ifndef FG_APPIMPL_H
#define FG_APPIMPL_H

#include <fg/app.h>
#include <fg/adjoint.h>

/* The solver, design, objective, design vector p and gradient g of flowgrad adjoint and check. */
typedef struct {
  const FGCase *c;
  FGSolver    s;
  FGDesign    d;
  FGObjective o;
  Vec         p, g;
} FGAdjointApp;

PETSC_INTERN PetscErrorCode FGAppSetUpOutput_Internal(MPI_Comm, const FGCase *);
PETSC_INTERN PetscErrorCode FGAdjointAppCreate_Internal(MPI_Comm, const FGCase *, FGAdjointApp *);
PETSC_INTERN PetscErrorCode FGAdjointAppDestroy_Internal(FGAdjointApp *);
PETSC_INTERN PetscErrorCode FGAppWarnBodies_Internal(MPI_Comm, const FGCase *, FGBodies);

#endif
