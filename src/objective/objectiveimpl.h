/* Private to the objective: the FGObjective object shared by objective.c (create, record, the
   time functionals, J and its adjoints) and objective_terms.c (the quantities that are sums over
   the grid, with their adjoints, and the observations of probe_tracking). */
#ifndef FG_OBJECTIVEIMPL_H
#define FG_OBJECTIVEIMPL_H

#include <fg/objective.h>

typedef struct {
  const FGObjectiveCase *oc;
  PetscInt               body, probe, nq; /* nq quantities: 2 for neg_lift_drag ([Cl, Cd]) */
  PetscReal             *q[2];            /* q[k][n], n = 0..N (0 unused) */
  PetscReal              T[2], dJdT[2], value; /* T[k] = T(q_k); value = J_i */
  PetscInt               nobs;
  PetscReal             *tobs, *uobs; /* observations: times, velocity [nobs][dim] */
  Vec                    target[3];   /* field_tracking: the target velocity (global Vecs) */
} FGObjTerm;

struct _p_FGObjective {
  FGSolver  s;
  FGDesign  d;
  PetscInt  nterms, n, cap; /* steps recorded */
  FGObjTerm term[FG_CASE_MAX_OBJECTIVES];
  PetscReal *t;             /* t[n] */
  PetscReal *omega[FG_CASE_MAX_OBJECTIVES];
  PetscReal J;
  Vec       ul[3], pl;
  Vec       pw;     /* dissipation: the pressure with its ghosts (local work vector) */
  PetscBool steady; /* FGObjectiveSetSteady */
};

/* objective_terms.c */
PETSC_INTERN PetscErrorCode FGObjectiveReadObservations_Internal(FGObjective, FGObjTerm *);
PETSC_INTERN void           FGObjectiveObserved_Internal(const FGObjTerm *, PetscInt, PetscReal, PetscReal[]);
PETSC_INTERN PetscErrorCode FGObjectiveEnergy_Internal(FGObjective, const FGObjectiveCase *, Vec[], PetscReal *, PetscReal, Vec[]);
PETSC_INTERN PetscErrorCode FGObjectiveEnstrophy_Internal(FGObjective, const FGObjectiveCase *, PetscReal *, PetscReal, Vec[]);
PETSC_INTERN PetscErrorCode FGObjectiveDissipation_Internal(FGObjective, PetscReal *, PetscReal, Vec[], Vec);

#endif
