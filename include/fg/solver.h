/* flowgrad forward solver: state, time step, monitor. */
#ifndef FG_SOLVER_H
#define FG_SOLVER_H

#include <fg/ops.h>
#include <fg/poisson.h>
#include <fg/body.h>

typedef struct _p_FGSolver *FGSolver;

/* Body-force hook: rhs_a += f_a(x, t) on the interior faces (later issues parameterize it). */
typedef PetscErrorCode (*FGForceFn)(FGSolver, PetscReal, Vec[], void *);

struct _p_FGSolver {
  MPI_Comm      comm;
  const FGCase *c;
  FGGrid        grid;
  FGBoundary    bc;
  FGPoisson     poisson;
  PetscReal     nu;       /* kinematic viscosity */
  PetscReal     force[3]; /* constant body force */
  FGForceFn     forcefn;  /* optional f(x,t) */
  void         *forcectx;

  Vec u[3], p;        /* state: velocity on faces, pressure at cells (global) */
  Vec ul[3];          /* ghosted velocity with boundary values */
  Vec H[3], Hold[3];  /* RK3 right-hand sides of the current and the previous stage */
  Vec div, phi, phil; /* projection: divergence, correction potential (global, ghosted) */

  FGBodies bodies; /* penalized bodies (none: count 0) */

  PetscReal t, dt;
  PetscInt  step;

  /* monitor (after each step) */
  PetscReal cfl, maxdiv, ke, umax; /* umax: max over faces and components of |u_a| */
};

PETSC_EXTERN PetscErrorCode FGSolverCreate(MPI_Comm, const FGCase *, FGSolver *);
PETSC_EXTERN PetscErrorCode FGSolverDestroy(FGSolver *);
PETSC_EXTERN PetscErrorCode FGSolverSetInitialCondition(FGSolver);
PETSC_EXTERN PetscErrorCode FGSolverFillGhosts(FGSolver, Vec[], PetscReal);
PETSC_EXTERN PetscErrorCode FGSolverMonitorCompute(FGSolver);
PETSC_EXTERN PetscErrorCode FGStepForward_RK3(FGSolver);
PETSC_EXTERN PetscReal      FGViscousTimeStepLimit(const FGCase *);
PETSC_EXTERN PetscErrorCode FGActuatorsAddForce(FGSolver, PetscReal, Vec[], void *);
PETSC_EXTERN PetscErrorCode FGProbesEvaluate(FGSolver, PetscReal[]);
PETSC_EXTERN PetscInt       FGProbesCount(const FGCase *);

/* Exact solutions (src/solver/initial.c): component a at X = x - x0, amplitude A, lengths L,
   times the decay factor. */
PETSC_EXTERN PetscReal FGExactTaylorGreen(PetscInt, const PetscReal[], PetscReal, const PetscReal[], PetscReal);
PETSC_EXTERN PetscReal FGExactABC(PetscInt, const PetscReal[], PetscReal, const PetscReal[], PetscReal);
/* Kovasznay flow in absolute coordinates (u_ref, l_ref, nu of the case): velocity, stream function, pressure */
PETSC_EXTERN PetscReal      FGExactKovasznay(PetscInt, const PetscReal[], PetscReal, const FGCase *);
PETSC_EXTERN PetscReal      FGExactKovasznayStream(const PetscReal[], PetscReal, const FGCase *);
PETSC_EXTERN PetscReal      FGExactKovasznayPressure(const PetscReal[], const FGCase *);
PETSC_EXTERN PetscErrorCode FGExactFieldFromCase(const FGCase *, FGExactField *);
PETSC_EXTERN PetscErrorCode FGSolverSampleExact(FGSolver, PetscReal, Vec[]);

#endif
