/* The optimizer's internals (FGOptimizer, include/fg/optim.h): the state of one optimization run
   and the calls that the files of src/optim/ (listed in include/fg/optim.h) make of each other. */
#ifndef FG_OPTIMIMPL_H
#define FG_OPTIMIMPL_H

#include <fg/optim.h>
#include <fg/table.h>
#include <petsctao.h>

#define FG_OPT_NCACHE 6

/* One row of the history (the start of a row of optimization.csv, optimization.h5). */
typedef struct {
  PetscInt  it, evals;
  PetscReal J, gnorm, step, viol, seconds;
} FGHistRow;

struct _p_FGOptimizer {
  MPI_Comm           comm;
  const FGCase      *c;
  PetscInt           nset;   /* the command line's --set overrides (the points' cases get them) */
  const char *const *set;
  FGProblem          P;
  FGDesign           d;
  PetscInt           ns, nrows, K;
  FGConstraintRow   *rows;
  Vec                p0, scale, plo, phi, xlo, xhi, p; /* p: work */
  Vec                x;                                /* TAO's variables, x = p / scale */
  PetscReal          J0s;                              /* |J_0| (1 if 0) */
  FGOptimizerType    type;
  const char        *taotype;
  unsigned long long hash;
  char               dir[PETSC_MAX_PATH_LEN], evdir[PETSC_MAX_PATH_LEN];
  PetscBool          replay, replay_required; /* --resume or a SLURM requeue; --resume */
  /* evaluations */
  FGEval    cache[FG_OPT_NCACHE];
  Vec       cachep[FG_OPT_NCACHE];
  PetscBool cacheset[FG_OPT_NCACHE];
  PetscInt  cnext;
  PetscInt  nevals, nlog, nreal, kill_at, signal_at;
  PetscReal seconds; /* evaluation time so far (replayed ones as logged) */
  /* failed trial designs (evaluate.c): TAO's last accepted iterate, its f and gradient */
  Vec       xacc, gacc;
  PetscReal facc;
  PetscBool accset;
  PetscInt  nfail; /* failed evaluations in a row */
  /* history */
  PetscInt   nhist, caphist;
  FGHistRow *hist;
  FGTable    history; /* optimization.csv, optimization.h5: these rows with J per point, q, p */
  PetscInt   maxits;
  /* ALMM */
  Mat Ae, Ai;
  Vec ce, ci;
  /* penalty */
  PetscBool penalty;
  PetscReal mu, lambda[FG_OPT_MAX_ROWS];
  PetscInt  itbase;    /* penalty: iterations of the earlier inner solves */
  PetscInt  inner_its; /* penalty: TAO iterations per outer iteration (-fg_penalty_inner_its) */
  Tao       tao;
  /* the outcome */
  TaoConvergedReason reason;
  PetscBool          penalty_done; /* penalty: feasible and the last inner solve converged */
  FGEval            *final;        /* the evaluation at the result */
};

/* tao.c */
PETSC_INTERN PetscErrorCode FGOptSetUpBounds_Internal(FGOptimizer);
PETSC_INTERN PetscErrorCode FGOptToDesign_Internal(FGOptimizer, Vec);
PETSC_INTERN PetscErrorCode FGOptSetUpTao_Internal(FGOptimizer, Tao *, Vec, const char *, PetscInt, Mat *, Mat *, Vec *, Vec *);

/* penalty.c */
PETSC_INTERN PetscErrorCode FGOptPenalty_Internal(FGOptimizer, const FGEval *, PetscReal *, Vec);
PETSC_INTERN PetscErrorCode FGOptSolvePenalty_Internal(FGOptimizer);

/* evaluate.c */
PETSC_INTERN PetscErrorCode FGOptCacheCreate_Internal(FGOptimizer);
PETSC_INTERN PetscErrorCode FGOptCacheDestroy_Internal(FGOptimizer);
PETSC_INTERN PetscErrorCode FGOptLogStart_Internal(FGOptimizer);
PETSC_INTERN PetscErrorCode FGOptEvaluate_Internal(FGOptimizer, Vec, PetscBool, FGEval **);
PETSC_INTERN PetscReal      FGOptViolation_Internal(FGOptimizer, const FGEval *);
PETSC_INTERN PetscErrorCode FGOptFailedValue_Internal(FGOptimizer, Vec, PetscReal *, Vec);

/* output.c */
PETSC_INTERN PetscErrorCode FGOptLogWrite_Internal(FGOptimizer, PetscInt, Vec, const FGEval *, PetscReal);
PETSC_INTERN PetscErrorCode FGOptLogReadDesign_Internal(FGOptimizer, PetscInt, Vec, PetscBool *, PetscReal *);
PETSC_INTERN PetscErrorCode FGOptLogReadEval_Internal(FGOptimizer, PetscInt, FGEval *);
PETSC_INTERN PetscErrorCode FGOptLogScan_Internal(FGOptimizer, PetscInt, PetscBool, PetscInt *);
PETSC_INTERN PetscErrorCode FGOptRemoveIterFields_Internal(FGOptimizer);
PETSC_INTERN PetscErrorCode FGOptWriteOutcome_Internal(FGOptimizer, const char *);
PETSC_INTERN PetscErrorCode FGOptRemoveOutcome_Internal(FGOptimizer);
PETSC_INTERN PetscErrorCode FGOptRecord_Internal(FGOptimizer, PetscInt, Vec, const FGEval *, PetscReal, PetscReal);
PETSC_INTERN PetscErrorCode FGOptWriteIterFields_Internal(FGOptimizer, PetscInt, Vec, const FGEval *);
PETSC_INTERN PetscErrorCode FGOptWriteResult_Internal(FGOptimizer, Vec);

#endif
