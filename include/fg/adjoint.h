/* flowgrad discrete adjoint: the design vector, the objective, the unsteady reverse sweep and
   gradient verification (src/adjoint/).

   Design vector p: one PETSc Vec with named blocks (design.parameters in the case file):
     scalar blocks, held by rank 0:  flow.nu, flow.inflow_speed, body.NAME.shape (the shape's
                                     parameters, placement first), body.NAME.shape.PARAM (one of
                                     them, by its name: x0, r, aoa, ...), body.NAME.rotation_rate,
                                     body.NAME.jet_amplitude, actuator.NAME.force
     field blocks, distributed:      body.NAME.density (rho per cell), initial.velocity (u, v[, w]
                                     on their faces, in the grid's global Vec layout, one component
                                     after the other)
   FGDesignApply() maps p to the forward inputs; the reverse sweep's parameter adjoints
   (FGStepParams) map back through the transposed maps to g = dJ/dp.

   Objective J = sum_i J_i (objective.<name>): each J_i = weight_i times a statistic (value,
   square, variance) of a time functional (average over a window, optionally with sin^2 ramps;
   final; instant) of a quantity evaluated after every step. FGObjectiveCreate takes the case's
   terms; FGObjectiveCreateTerms any list of FGObjectiveCase (e.g. a constraint built in memory;
   the array must outlive the objective).

   Reverse sweep (FGAdjointCompute, src/adjoint/sweep.c): the adjoint steps from the last to the
   first, each about its step's tape, accumulating the gradient; the states they need come from a
   checkpoint schedule within a memory budget (src/adjoint/schedule.c: tapes or states in RAM,
   binomial checkpointing, states on disk), and the sweep is resumable. */
#ifndef FG_ADJOINT_H
#define FG_ADJOINT_H

#include <fg/step.h>

typedef enum { FG_DESIGN_NU, FG_DESIGN_INFLOW, FG_DESIGN_SHAPE, FG_DESIGN_ROTATION, FG_DESIGN_JETS, FG_DESIGN_ACTUATOR, FG_DESIGN_DENSITY, FG_DESIGN_INITIAL } FGDesignKind;

typedef struct {
  char         name[FG_CASE_DESIGN_LEN];
  FGDesignKind kind;
  PetscInt     index;  /* the body or actuator */
  PetscInt     first;  /* shape blocks: the first of the body's shape parameters in the block */
  PetscInt     n;      /* entries (global) */
  PetscBool    field;  /* distributed */
  PetscInt     offset; /* scalar blocks: first scalar; field blocks: first entry in this rank's local array */
} FGDesignBlock;

typedef struct _p_FGDesign *FGDesign;
PETSC_EXTERN PetscErrorCode FGDesignCreate(FGSolver, const FGCase *, FGDesign *);
PETSC_EXTERN PetscErrorCode FGDesignDestroy(FGDesign *);
PETSC_EXTERN PetscErrorCode FGDesignCreateVec(FGDesign, Vec *);
PETSC_EXTERN PetscErrorCode FGDesignGetValues(FGDesign, Vec);
PETSC_EXTERN PetscErrorCode FGDesignApply(FGDesign, Vec);
PETSC_EXTERN PetscErrorCode FGDesignSetInitialState(FGDesign, Vec);
PETSC_EXTERN PetscErrorCode FGDesignGetBlocks(FGDesign, PetscInt *, const FGDesignBlock **);
PETSC_EXTERN PetscErrorCode FGDesignBlockFields(FGDesign, PetscInt, Vec, Vec[], PetscBool);
PETSC_EXTERN PetscErrorCode FGDesignGetScalars(FGDesign, Vec, PetscInt *, PetscReal **);
PETSC_EXTERN PetscErrorCode FGDesignScalarName(FGDesign, PetscInt, char[], size_t);
PETSC_EXTERN PetscErrorCode FGDesignGradient(FGDesign, const FGParams *, Vec[], Vec);
PETSC_EXTERN PetscErrorCode FGDesignGradientScalars(FGDesign, const FGParams *, PetscReal[]);
PETSC_EXTERN PetscErrorCode FGDesignHash(FGDesign, Vec, unsigned long long *);
PETSC_EXTERN PetscErrorCode FGDesignIsControl(FGDesign, PetscInt, PetscBool *);
PETSC_EXTERN PetscReal      FGDesignScalarScale(FGDesign, PetscInt, PetscReal);

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

/* Output of the reverse sweep besides J and g (NULL members: not wanted), and how to run it. */
typedef struct {
  Vec       chibar[3], sens[3]; /* dJ/dchi on the faces (summed over the steps), shape sensitivity */
  Vec       ubar0[3], pbar0;    /* the adjoint state at t = 0 */
  /* called during the reverse sweep with the adjoint state after step n's adjoint (at t_n-1) */
  PetscErrorCode (*monitor)(FGSolver, PetscInt, PetscReal, Vec[], Vec, void *);
  void *ctx;
  /* run */
  PetscBool resume;  /* continue from <output.dir>/adjoint/resume.h5 or the newest state in
                        adjoint/checkpoints/ (else those files are removed first) */
  PetscBool resume_required; /* with resume: no file to resume from is an error (FG_ERR_INPUT) */
  PetscBool signals; /* stop on SIGUSR1/SIGTERM (FGSignalInstall) at the next step: write
                        adjoint/resume.h5 (or a state file during the forward run), FG_ERR_SIGNAL */
  PetscBool gradient_time; /* fill gtime */
  /* results */
  PetscInt64 recomputed, planned; /* forward steps recomputed by the reverse sweep (and as planned) */
  PetscInt   gtime_n;             /* gtime[(n - 1) ns + i]: the part of dJ/dp_i (design scalar i) that */
  PetscReal *gtime;               /* step n's adjoint contributes, n = 1..gtime_n (PetscFree it) */
} FGAdjointOutput;

/* The checkpoint schedule (src/adjoint/schedule.c). */
typedef enum { FG_SEGMENT_TAPES, FG_SEGMENT_STATES, FG_SEGMENT_BINOMIAL } FGSegmentKind;
typedef struct {
  PetscInt  N;                       /* steps */
  PetscReal state_bytes, tape_bytes; /* a state; a taped step (its start state and tape), all ranks */
  PetscReal budget;                  /* bytes for kept states, all ranks */
  PetscInt  states, tapes;           /* how many fit in the budget */
  PetscBool disk;                    /* two levels: every segment-th state on disk */
  PetscInt  segment, nsegments, disk_states;
  PetscInt64 recomputed;             /* planned recomputed steps (a run from the start) */
} FGSchedule;
PETSC_EXTERN PetscErrorCode FGSchedulePlan(FGSolver, FGSchedule *);
PETSC_EXTERN PetscErrorCode FGSchedulePrint(FGSolver, const FGSchedule *);
PETSC_EXTERN FGSegmentKind  FGScheduleSegmentKind(const FGSchedule *, PetscInt);
PETSC_EXTERN PetscInt64     FGScheduleSegmentCost(const FGSchedule *, PetscInt, PetscBool);
PETSC_EXTERN PetscInt64     FGScheduleBinomialCost(PetscInt, PetscInt);
PETSC_EXTERN PetscInt       FGScheduleBinomialSplit(PetscInt, PetscInt);

/* The sweep's options (src/adjoint/sweep.c; -help lists them): test hooks only. */
typedef struct {
  PetscInt test_signal_at; /* -fg_test_adjoint_signal_at: SIGUSR1 after adjoint step n (> 0), forward step -n (< 0) */
  PetscInt test_kill_at;   /* -fg_test_adjoint_kill_at: SIGKILL after adjoint step n (-1: never) */
} FGAdjointOptions;
PETSC_EXTERN PetscErrorCode FGAdjointGetOptions(MPI_Comm, FGAdjointOptions *);

PETSC_EXTERN PetscErrorCode FGAdjointForward(FGSolver, FGDesign, FGObjective, Vec, PetscReal *);
PETSC_EXTERN PetscErrorCode FGAdjointCompute(FGSolver, FGDesign, FGObjective, Vec, PetscReal *, Vec, FGAdjointOutput *);

/* Verification (src/adjoint/check.c), and the tolerances of `flowgrad check` (-help lists them). */
typedef struct {
  PetscReal dot_rtol, taylor_eps, taylor_order, fd_rtol, fd_step; /* -fg_check_dot_rtol, ... */
  PetscInt  seed;                                                  /* -fg_check_seed */
} FGAdjointCheckOptions;
PETSC_EXTERN PetscErrorCode FGAdjointCheckGetOptions(MPI_Comm, FGAdjointCheckOptions *);
#define FG_DOT_MAX_TESTS 16
typedef struct {
  char      name[48];
  PetscReal lhs, rhs, rel; /* <T v, w>, <v, T^T w>, |lhs - rhs| / max(|lhs|, |rhs|) */
  PetscReal relnorm;       /* |lhs - rhs| / (||T v|| ||w||) */
} FGDotResult;
PETSC_EXTERN PetscErrorCode FGParamsSetRandom(FGSolver, PetscRandom, FGParams *);
PETSC_EXTERN PetscErrorCode FGAdjointDotTests(FGSolver, FGStepTape, PetscRandom, PetscInt *, FGDotResult[]);
PETSC_EXTERN PetscErrorCode FGAdjointTaylor(FGSolver, FGDesign, FGObjective, Vec, PetscReal, Vec, PetscRandom, PetscReal, PetscInt, PetscReal[], PetscReal[], PetscReal[], PetscReal *);
typedef struct {
  char      name[96];
  PetscReal value, step, adjoint, fd, scale; /* p_i, h, dJ/dp_i (adjoint), central difference, scale of p_i */
} FGFDResult;
PETSC_EXTERN PetscErrorCode FGAdjointFD(FGSolver, FGDesign, FGObjective, Vec, Vec, PetscReal, PetscInt *, FGFDResult[]);


/* The steady adjoint (adjoint.mode: steady; src/adjoint/steady.c): J and dJ/dp at the steady
   state x* = F(x*, p) of one time step F, reached by time.steps steps from the initial state and
   Newton-Krylov (KSP prefix steady_) to adjoint.steady_tol; the adjoint state from
   (I - F_x^T) mu = dJ/dx with KSP (prefix adjoint_) on a MatShell of one adjoint step. Every
   objective term is the value of the step taken at x* (FGObjectiveSetSteady). FGAdjointForward
   and FGAdjointCompute call these in steady mode. */
PETSC_EXTERN PetscErrorCode FGObjectiveSetSteady(FGObjective, PetscBool);
PETSC_EXTERN PetscErrorCode FGAdjointForwardSteady(FGSolver, FGDesign, FGObjective, Vec, PetscReal *);
PETSC_EXTERN PetscErrorCode FGAdjointComputeSteady(FGSolver, FGDesign, FGObjective, Vec, PetscReal *, Vec, FGAdjointOutput *);

#endif
