/* flowgrad discrete adjoint: the unsteady reverse sweep, the steady adjoint and gradient
   verification (src/adjoint/), on the design (include/fg/design.h) and the objective
   (include/fg/objective.h).

   Reverse sweep (FGAdjointCompute, src/adjoint/sweep.c): the adjoint steps from the last to the
   first, each about its step's tape, accumulating the gradient; the states they need come from a
   checkpoint schedule within a memory budget (src/adjoint/schedule.c: tapes or states in RAM,
   binomial checkpointing, states on disk), and the sweep is resumable (src/adjoint/resume.c).
     sweep.c      the reverse sweep: forward run, segments, adjoint steps, gradient in time
     schedule.c   the checkpoint schedule within the memory budget
     resume.c     its files: disk states, resume.h5, the hash that ties them to a run
     steady.c     the steady adjoint: Newton-Krylov to x* = F(x*), (I - F_x^T) mu = dJ/dx
     check.c      verification: dot-product tests, Taylor test, central differences */
#ifndef FG_ADJOINT_H
#define FG_ADJOINT_H

#include <fg/step.h>
#include <fg/objective.h>

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
  PetscInt  fd_order;                                              /* -fg_check_fd_order: 2 or 4 */
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
PETSC_EXTERN PetscErrorCode FGAdjointFD(FGSolver, FGDesign, FGObjective, Vec, Vec, PetscReal, PetscInt, PetscInt *, FGFDResult[]);


/* The steady adjoint (adjoint.mode: steady; src/adjoint/steady.c): J and dJ/dp at the steady
   state x* = F(x*, p) of one time step F, reached by time.steps steps from the initial state and
   Newton-Krylov (KSP prefix steady_) to adjoint.steady_tol; the adjoint state from
   (I - F_x^T) mu = dJ/dx with KSP (prefix adjoint_) on a MatShell of one adjoint step. Every
   objective term is the value of the step taken at x* (FGObjectiveSetSteady). FGAdjointForward
   and FGAdjointCompute call these in steady mode. */
PETSC_EXTERN PetscErrorCode FGAdjointForwardSteady(FGSolver, FGDesign, FGObjective, Vec, PetscReal *);
PETSC_EXTERN PetscErrorCode FGAdjointComputeSteady(FGSolver, FGDesign, FGObjective, Vec, PetscReal *, Vec, FGAdjointOutput *);

#endif
