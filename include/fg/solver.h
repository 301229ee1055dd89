/* flowgrad forward solver: state, time step, monitor. */
#ifndef FG_SOLVER_H
#define FG_SOLVER_H

#include <fg/ops.h>
#include <fg/poisson.h>
#include <fg/body.h>

typedef struct _p_FGSolver *FGSolver;

/* The parameters that enter a time step, as perturbations (tangent) or as adjoints (reverse;
   local sums until FGStepParamsReduce): the viscosity, a relative change of every inflow velocity
   (U -> U (1 + inflow)), the actuators' force amplitudes (basis coefficient k of component a of
   actuator n at [(3 n + a) FG_MAX_TIME_BASIS + k]), each body's parameters theta_b
   (include/fg/body.h), and for density bodies their face masks per component (NULL: none). */
#define FG_STEP_NACT (3 * FG_CASE_MAX_ACTUATORS * FG_MAX_TIME_BASIS) /* entries of FGStepParams.act */
typedef struct {
  PetscReal nu;
  PetscReal inflow;
  PetscReal act[3 * FG_CASE_MAX_ACTUATORS * FG_MAX_TIME_BASIS]; /* [(3 n + a) FG_MAX_TIME_BASIS + k] */
  PetscReal body[FG_CASE_MAX_BODIES][FG_BODY_MAX_PARAMS];
  Vec       chif[FG_CASE_MAX_BODIES][3];
  Vec       chibar[3], sens[3]; /* adjoint only (NULL: not wanted): the adjoint of the summed face masks, and its
                                   product with dchi/d(normal displacement) of the shape bodies (FGBodiesPenalizeAdjoint) */
} FGStepParams;

/* What the linearized step needs from its forward step (src/step/rk3.c): the start state, each
   stage's ghosted start velocity and its predicted velocity before the penalization; and the work
   vectors of the tangent and adjoint steps. */
typedef struct _p_FGStepTape *FGStepTape;
struct _p_FGStepTape {
  PetscReal t0, dt;
  Vec       ul[3][3];    /* [stage][component], ghosted, boundary-filled at the stage start */
  Vec       ustar[3][3]; /* [stage][component], before FGBodiesPenalize */
  Vec       wl[3], wH[3], wHo[3], wdiv, wphi, wphil; /* work */
};

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

  FGBodies   bodies; /* penalized bodies (none: count 0) */
  PetscReal  actc[FG_CASE_MAX_ACTUATORS][3][FG_MAX_TIME_BASIS]; /* actuator force amplitudes in time (basis coefficients) */
  FGStepTape tape;   /* non-NULL: FGStepForward_RK3 records what the linearized step needs */

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
PETSC_EXTERN PetscErrorCode FGStepTapeCreate(FGSolver, FGStepTape *);
PETSC_EXTERN PetscErrorCode FGStepTapeDuplicate(FGSolver, FGStepTape, FGStepTape *);
PETSC_EXTERN PetscErrorCode FGStepTapeDestroy(FGStepTape *);
PETSC_EXTERN PetscErrorCode FGStepTangent_RK3(FGSolver, FGStepTape, const FGStepParams *, Vec[], Vec, PetscReal[]);
PETSC_EXTERN PetscErrorCode FGStepAdjoint_RK3(FGSolver, FGStepTape, const PetscReal[], Vec[], Vec, FGStepParams *);
PETSC_EXTERN PetscErrorCode FGStepParamsZero(FGStepParams *);
PETSC_EXTERN PetscErrorCode FGStepParamsReduce(MPI_Comm, FGStepParams *);
PETSC_EXTERN PetscErrorCode FGActuatorsAddForceTangent(FGSolver, PetscReal, const PetscReal[], Vec[]);
PETSC_EXTERN PetscErrorCode FGActuatorsAddForceAdjoint(FGSolver, PetscReal, Vec[], PetscReal[]);
PETSC_EXTERN PetscErrorCode FGActuatorsAddForce(FGSolver, PetscReal, Vec[], void *);
PETSC_EXTERN PetscErrorCode FGProbesEvaluate(FGSolver, PetscReal[]);
PETSC_EXTERN PetscInt       FGProbesCount(const FGCase *);
PETSC_EXTERN PetscErrorCode FGProbeInterpolateAdjoint(FGGrid, FGLocation, const PetscReal[], PetscReal, Vec);

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
