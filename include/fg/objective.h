/* flowgrad objective (src/objective/).

   Objective J = sum_i J_i (objective.<name>): each J_i = weight_i times a statistic (value,
   square, variance) of a time functional (average over a window, optionally with sin^2 ramps;
   final; instant) of a quantity evaluated after every step (FGObjectiveRecord). FGObjectiveCreate
   takes the case's terms; FGObjectiveCreateTerms any list of FGObjectiveCase (e.g. a constraint
   built in memory; the array must outlive the objective). The adjoints of J with respect to the
   state, the step's body forces and the design (FGObjectiveAdjoint*) seed the reverse sweep.
     objective.c         the terms, recording, time functionals, J and its adjoints
     objective_terms.c   the quantities that are sums over the grid (energy, enstrophy,
                         dissipation) and the observations of probe tracking */
#ifndef FG_OBJECTIVE_H
#define FG_OBJECTIVE_H

#include <fg/design.h>

typedef struct _p_FGObjective *FGObjective;
PETSC_EXTERN PetscErrorCode FGObjectiveCreate(FGSolver, FGDesign, FGObjective *);
PETSC_EXTERN PetscErrorCode FGObjectiveCreateTerms(FGSolver, FGDesign, PetscInt, const FGObjectiveCase[], FGObjective *);
PETSC_EXTERN PetscErrorCode FGObjectiveDestroy(FGObjective *);
PETSC_EXTERN PetscErrorCode FGObjectiveReset(FGObjective);
PETSC_EXTERN PetscErrorCode FGObjectiveRecord(FGObjective);
PETSC_EXTERN PetscErrorCode FGObjectiveFinish(FGObjective, Vec, PetscReal *);
PETSC_EXTERN PetscErrorCode FGObjectiveGetTerm(FGObjective, PetscInt, const char **, PetscReal *);
PETSC_EXTERN PetscErrorCode FGObjectiveAdjointState(FGObjective, PetscInt, Vec[], Vec, PetscReal *);
PETSC_EXTERN PetscErrorCode FGObjectiveAdjointForces(FGObjective, PetscInt, PetscReal[]);
PETSC_EXTERN PetscErrorCode FGObjectiveAdjointDesign(FGObjective, Vec, Vec);
PETSC_EXTERN PetscInt       FGObjectiveRecordSize(FGObjective, PetscInt);
PETSC_EXTERN PetscErrorCode FGObjectiveGetRecord(FGObjective, PetscInt, PetscReal[]);
PETSC_EXTERN PetscErrorCode FGObjectiveSetRecord(FGObjective, PetscInt, const PetscReal[]);

/* Steady mode (adjoint.mode steady): every term is the value of the step taken at the steady state. */
PETSC_EXTERN PetscErrorCode FGObjectiveSetSteady(FGObjective, PetscBool);

#endif
