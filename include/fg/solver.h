/* flowgrad forward solver (src/solver/): the state, the parameters a design changes, set-up,
   ghost fill, monitor quantities, probes, exact fields. The time step is include/fg/step.h.
     solver.c    the solver object: grid, boundary data, Poisson solver, bodies, state, work
                 vectors; its parameter values (FGSolverSetParams); monitor quantities; the
                 control-volume diagnostic around a step
     params.c    the parameters' layout and objects (values, perturbations, adjoints)
     initial.c   initial conditions and exact solutions
     probe.c     point probes and the adjoint of their interpolation */
#ifndef FG_SOLVER_H
#define FG_SOLVER_H

#include <fg/ops.h>
#include <fg/poisson.h>
#include <fg/body.h>
#include <fg/viscous.h>

typedef struct _p_FGSolver *FGSolver;

/* The parameters of a time step: what a design changes (src/solver/params.c). Their layout is
   made once from the case (FGParamLayout; no cap on any count), and one object of that layout
   serves three uses:

     values          the solver's own (FGSolver.prm): what the step runs with; whoever changes
                     them (the design map, FGDesignApply) calls FGSolverSetParams() next, which
                     applies them (boundary data, the exact field's nu, the bodies' masks)
     perturbations   the tangent step's input (FGStepTangent_RK3)
     adjoints        the adjoint step's output (FGStepAdjoint_RK3): local partial sums until
                     FGParamsReduce()

   The scalars v[] (the same on every rank):
     v[FG_PARAM_NU]                         the kinematic viscosity nu
     v[FG_PARAM_INFLOW]                     values: the inflow speed U (every inflow velocity is
                                            U / U_case times the case's; U_case: the first inflow
                                            face with a nonzero velocity, 0 when none);
                                            perturbations and adjoints: the relative change dU/U
     v[act + (3 n + a) nbasis + k]          actuator n's force amplitude, component a, coefficient
                                            k of the controls' basis in time (FGTimeBasis)
     v[body[b] + i], i < nbody[b]           body b's parameters theta_b (include/fg/body.h; none
                                            for a density body)
   and the fields of the density bodies:
     rho[b]       values: body b's density rho (a global cell Vec; NULL for a shape body)
     chif[b][a]   perturbations and adjoints: body b's face mask of component a (NULL: none)
   An adjoint object may also ask for two gradient fields (NULL: not wanted): chibar[a], the
   adjoint of the summed face masks, and sens[a], its shape-sensitivity part (FGBodiesPenalizeAdjoint). */
#define FG_PARAM_NU     0
#define FG_PARAM_INFLOW 1
typedef struct {
  PetscInt  n;       /* scalars */
  PetscInt  nbasis;  /* basis functions in time of the controls (design.time_basis, at least 1) */
  PetscInt  nact;    /* actuators */
  PetscInt  act;     /* offset of the actuator coefficients (3 nact nbasis of them) */
  PetscInt  nbodies; /* bodies */
  PetscInt *body;    /* [nbodies]: offset of theta_b */
  PetscInt *nbody;   /* [nbodies]: its length (0: a density body) */
} FGParamLayout;

typedef struct {
  const FGParamLayout *L;
  PetscReal           *v;
  PetscReal          **theta;    /* [nbodies]: theta_b in v (NULL for a density body) */
  Vec                 *rho;      /* [nbodies] */
  Vec                (*chif)[3]; /* [nbodies][3] */
  Vec                  chibar[3], sens[3];
} FGParams;

PETSC_EXTERN PetscErrorCode FGParamLayoutCreate(const FGCase *, FGBodies, FGParamLayout *);
PETSC_EXTERN PetscErrorCode FGParamLayoutDestroy(FGParamLayout *);
PETSC_EXTERN PetscErrorCode FGParamsCreate(const FGParamLayout *, FGParams *);
PETSC_EXTERN PetscErrorCode FGParamsDestroy(FGParams *);
PETSC_EXTERN PetscErrorCode FGParamsZero(FGParams *);
PETSC_EXTERN PetscErrorCode FGParamsCreateFaceMasks(FGParams *, FGBodies, PetscInt);
PETSC_EXTERN PetscErrorCode FGParamsReduce(MPI_Comm, FGParams *);
PETSC_EXTERN PetscReal      FGParamsDot(const FGParams *, const FGParams *);
/* the actuator coefficients inside v */
static inline PetscReal *FGParamsActuators(const FGParams *p)
{
  return p->v + p->L->act;
}

/* The solver's options (FGSolverGetOptions: -help lists them). */
typedef struct {
  PetscBool test_break_adjoint;        /* -fg_test_break_adjoint: TEST ONLY, a wrong adjoint step */
  PetscBool test_steady_no_nullspace;  /* -fg_test_steady_no_nullspace: TEST ONLY, the steady operators without it */
} FGSolverOptions;
PETSC_EXTERN PetscErrorCode FGSolverGetOptions(MPI_Comm, FGSolverOptions *);

/* Body-force hook: rhs_a += f_a(x, t) on the interior faces, called at the start of every stage
   after the ghost fill (FGSolverSetForcing; a forward-only model term: the linearized step
   refuses a solver that has one). */
typedef PetscErrorCode (*FGForceFn)(FGSolver, PetscReal, Vec[], void *);

/* The last steady state the steady solver converged to (src/adjoint/steady.c, adjoint.mode
   steady), kept with its solver: its velocity and pressure, the design it was converged for, and
   the fixed time and step index of its step. A forward at that design reuses it (no transient, no
   Newton): a flow constraint's forward after the objective's at one design of flowgrad optimize.
   pc: the Oseen preconditioner of this state (src/adjoint/steady_pc.c; NULL: none), set up once
   by its Newton and shared by the adjoints at its design; a container, so that the solver can
   destroy it without knowing it. */
typedef struct {
  PetscBool      set;
  Vec            u[3], p, design;
  PetscReal      t, dt; /* dt: Newton's step (adjoint.steady_dt) */
  PetscInt       step;
  PetscContainer pc;
} FGSteadyState;

struct _p_FGSolver {
  MPI_Comm      comm;
  const FGCase *c;
  FGGrid        grid;
  FGBoundary    bc;
  FGPoisson     poisson;
  FGViscous     viscous;  /* the implicit viscous term's solver (NULL: explicit; time.viscous) */
  FGBodies      bodies;   /* penalized bodies (none: count 0) */
  FGParamLayout layout;   /* of the parameters */
  FGParams      prm;      /* their values */
  PetscReal     force[3]; /* constant body force (flow.force) */
  FGForceFn     forcefn;  /* optional f(x, t) (FGSolverSetForcing) */
  void         *forcectx;
  FGSolverOptions opt;    /* read at set-up (FGSolverGetOptions) */

  Vec u[3], p;        /* state: velocity on faces, pressure at cells (global) */
  Vec ul[3];          /* ghosted velocity with boundary values */
  Vec H[3], Hold[3];  /* RK3 right-hand sides of the current and the previous stage */
  Vec div, phi, phil; /* projection: divergence, correction potential (global, ghosted) */
  Vec Mf[3];          /* the faces' volumes, for a line-flux continuity on a stretched grid (else NULL; continuity.c) */

  PetscReal  vel0[3][2][3]; /* the case's boundary velocities; U0 its inflow speed */
  PetscReal  U0;
  PetscReal *theta_work; /* FGSolverSetParams: work */

  PetscReal t, dt;
  PetscInt  step;

  FGSteadyState steady; /* owned by src/adjoint/steady.c; destroyed with the solver */

  /* monitor quantities of the current state (FGSolverMonitorCompute) */
  PetscReal cfl, maxdiv, ke, umax; /* umax: max over faces and components of |u_a| */
  PetscBool blown;                 /* FGSolverCheckFlow stopped the forward run from its initial state */
};

PETSC_EXTERN PetscErrorCode FGSolverCreate(MPI_Comm, const FGCase *, FGSolver *);
PETSC_EXTERN PetscErrorCode FGSolverDestroy(FGSolver *);
PETSC_EXTERN PetscErrorCode FGSolverSetParams(FGSolver);
PETSC_EXTERN PetscErrorCode FGSolverSetForcing(FGSolver, FGForceFn, void *);
PETSC_EXTERN PetscErrorCode FGSolverSetInitialCondition(FGSolver);
PETSC_EXTERN PetscErrorCode FGSolverFillGhosts(FGSolver, Vec[], PetscReal);
PETSC_EXTERN PetscErrorCode FGSolverDivergence(FGSolver, Vec[], Vec);
PETSC_EXTERN PetscErrorCode FGSolverDivergenceAdjoint(FGSolver, Vec, Vec[]);
PETSC_EXTERN PetscErrorCode FGSolverProjectionCorrect(FGSolver, PetscReal, Vec, Vec, Vec[]);
PETSC_EXTERN PetscErrorCode FGSolverProjectionCorrectAdjoint(FGSolver, PetscReal, Vec[], Vec, Vec);
PETSC_EXTERN PetscErrorCode FGSolverContinuitySet(FGSolver);
PETSC_EXTERN PetscErrorCode FGSolverLineFluxDivergence(FGSolver, Mat[], Vec[], PetscReal, Vec);
PETSC_EXTERN PetscErrorCode FGSolverLineFluxTangent(FGSolver, Mat[], PetscReal, Vec, Vec, Vec[], Vec, Vec[]);
PETSC_EXTERN PetscErrorCode FGSolverLineFluxAdjoint(FGSolver, PetscReal, Vec, Vec[], Vec, Vec, Vec[], Vec[], PetscReal, Vec);
PETSC_EXTERN PetscErrorCode FGSolverMonitorCompute(FGSolver);
PETSC_EXTERN PetscErrorCode FGSolverStepNumber(FGSolver, PetscReal, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode FGSolverCheckFlow(FGSolver);
PETSC_EXTERN PetscErrorCode FGSolverControlVolumeBegin(FGSolver);
PETSC_EXTERN PetscErrorCode FGSolverControlVolumeEnd(FGSolver);
PETSC_EXTERN PetscErrorCode FGProbesEvaluate(FGSolver, PetscReal[]);
PETSC_EXTERN PetscInt       FGProbesCount(const FGCase *);
PETSC_EXTERN PetscErrorCode FGProbeInterpolateAdjoint(FGGrid, FGLocation, const PetscReal[], PetscReal, Vec);

/* Exact solutions (src/solver/initial.c): component a at X = x - x0, amplitude A, lengths L,
   times the decay factor. */
PETSC_EXTERN PetscReal FGExactTaylorGreen(PetscInt, const PetscReal[], PetscReal, const PetscReal[], PetscReal);
PETSC_EXTERN PetscReal FGExactABC(PetscInt, const PetscReal[], PetscReal, const PetscReal[], PetscReal);
/* Kovasznay flow in absolute coordinates (u_ref, l_ref of the case, viscosity nu): velocity,
   stream function, pressure */
PETSC_EXTERN PetscReal      FGExactKovasznay(PetscInt, const PetscReal[], PetscReal, PetscReal, const FGCase *);
PETSC_EXTERN PetscReal      FGExactKovasznayStream(const PetscReal[], PetscReal, PetscReal, const FGCase *);
PETSC_EXTERN PetscReal      FGExactKovasznayPressure(const PetscReal[], PetscReal, const FGCase *);
PETSC_EXTERN PetscErrorCode FGExactFieldFromCase(const FGCase *, FGExactField *);
PETSC_EXTERN PetscErrorCode FGSolverSampleExact(FGSolver, PetscReal, Vec[]);

#endif
