/*
  The optimizer (include/fg/optim.h, FGOptimizer): PETSc TAO on a case's optimization problem
  (FGProblem, src/optim/problem.c), the forward run and adjoint of every point as the
  objective-and-gradient callback; what `flowgrad optimize` (src/app/optimize.c) runs.

    FGOptimizerCreate    the case must have design parameters; the test hooks
    FGOptimizerSetResume replay the evaluation log of an earlier run (src/optim/evaluate.c)
    FGOptimizerSetUp     the problem, the variables and bounds (src/optim/tao.c), the optimizer
                         type, the output directories and the log; prints the problem
    FGOptimizerSolve     J_0 and the constraints at the initial design, then TaoSolve (blmvm,
                         bqnls, bncg, lmvm, almm) or the augmented-Lagrangian loop around blmvm
                         (penalty, src/optim/penalty.c), then the result's files
                         (src/optim/output.c)
    FGOptimizerView      the outcome, J_0 -> J, the constraint rows at the result
    FGOptimizerDestroy

  optimizer.type auto is penalty with constraint rows, blmvm without; rows need almm or penalty.
*/
#include "optimimpl.h"
#include <fg/iofile.h>

/*@C
  FGOptimizerGetOptions - flowgrad optimize's options, in one PetscOptionsBegin block (so -help
  lists them); FGOptimizerCreate reads them once. Collective.

  Options Database Keys:
+ -fg_penalty_inner_its <10>      - optimizer.type penalty: TAO iterations per outer iteration
. -fg_test_optimize_kill_at <n>   - TEST ONLY: SIGKILL every rank right after the n-th evaluation of this run is logged
- -fg_test_optimize_signal_at <n> - TEST ONLY: SIGUSR1 to every rank there (the run stops with exit 75)
@*/
PetscErrorCode FGOptimizerGetOptions(MPI_Comm comm, FGOptimizerOptions *o)
{
  PetscFunctionBeginUser;
  o->penalty_inner_its = 10;
  o->test_kill_at      = 0;
  o->test_signal_at    = 0;
  PetscBool set;
  PetscOptionsBegin(comm, NULL, "flowgrad optimize", NULL);
  PetscCall(PetscOptionsInt("-fg_penalty_inner_its", "optimizer.type penalty: the TAO (blmvm) iterations of each outer iteration of the augmented Lagrangian", NULL, o->penalty_inner_its, &o->penalty_inner_its, &set));
  PetscCall(FGOptionsCheckValue("-fg_penalty_inner_its", set)); /* given without a value: not silently unset */
  PetscCall(PetscOptionsInt("-fg_test_optimize_kill_at", "TEST ONLY: SIGKILL every rank right after the n-th evaluation of this run is logged", NULL, o->test_kill_at, &o->test_kill_at, &set));
  PetscCall(FGOptionsCheckValue("-fg_test_optimize_kill_at", set)); /* given without a value: not silently unset */
  PetscCall(PetscOptionsInt("-fg_test_optimize_signal_at", "TEST ONLY: SIGUSR1 to every rank right after the n-th evaluation (the run stops with exit 75)", NULL, o->test_signal_at, &o->test_signal_at, &set));
  PetscCall(FGOptionsCheckValue("-fg_test_optimize_signal_at", set)); /* given without a value: not silently unset */
  PetscOptionsEnd();
  PetscCheck(o->penalty_inner_its >= 1, comm, FG_ERR_INPUT, "-fg_penalty_inner_its %" PetscInt_FMT ": must be >= 1", o->penalty_inner_its);
  PetscCheck(o->test_kill_at >= 0 && o->test_signal_at >= 0, comm, FG_ERR_INPUT, "-fg_test_optimize_kill_at / -fg_test_optimize_signal_at: must be >= 0 (0: never)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOptimizerCreate - an optimizer for a validated case. Collective.

  Input Parameters:
+ comm - communicator
. c    - the case (design.parameters must not be empty)
. nset - the number of the command line's --set overrides
- set  - the overrides, "key=value" (the points' cases are loaded with them; kept, not copied)

  Output Parameter:
. opt - the optimizer

  Options Database Keys: see FGOptimizerGetOptions()

.seealso: FGOptimizerSetUp(), FGOptimizerSolve(), FGOptimizerDestroy()
@*/
PetscErrorCode FGOptimizerCreate(MPI_Comm comm, const FGCase *c, PetscInt nset, const char *const set[], FGOptimizer *opt)
{
  FGOptimizerOptions o;
  FGOptimizer        O;

  PetscFunctionBeginUser;
  PetscCall(FGOptimizerGetOptions(comm, &o));
  PetscCheck(c->design.n > 0, comm, FG_ERR_INPUT, "%s: design.parameters is empty: flowgrad optimize has nothing to optimize (see docs/optimization.md)", c->file);
  PetscCall(PetscNew(&O));
  O->comm      = comm;
  O->c         = c;
  O->nset      = nset;
  O->set       = set;
  O->kill_at   = o.test_kill_at;
  O->signal_at = o.test_signal_at;
  O->inner_its = o.penalty_inner_its;
  O->reason    = TAO_CONTINUE_ITERATING;
  *opt         = O;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOptimizerSetResume - replay the evaluation log of an earlier run before evaluating (call
  before FGOptimizerSetUp). Logically collective.

  Input Parameters:
+ O        - the optimizer
. replay   - replay the log in output.dir/optimization/evaluations (--resume, or a SLURM requeue);
             without it, FGOptimizerSetUp removes the log and the iteration files of an earlier run
- required - an empty log is an error (--resume: nothing to resume, exit 2)
@*/
PetscErrorCode FGOptimizerSetResume(FGOptimizer O, PetscBool replay, PetscBool required)
{
  PetscFunctionBeginUser;
  O->replay          = replay;
  O->replay_required = required;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The problem on stdout: the optimizer, the design, the objective, the points. */
static PetscErrorCode FGOptimizerPrintProblem_Private(FGOptimizer O)
{
  const FGCase        *c = O->c;
  MPI_Comm             comm = O->comm;
  PetscInt             nblk;
  const FGDesignBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(FGDesignGetBlocks(O->d, &nblk, &blk));
  PetscCall(PetscPrintf(comm, "%s: flowgrad optimize with TAO %s%s; %" PetscInt_FMT " design scalars", c->name, O->taotype, O->penalty ? " (flowgrad's augmented Lagrangian)" : "", O->ns));
  for (PetscInt i = 0; i < nblk; i++)
    if (blk[i].field) PetscCall(PetscPrintf(comm, " + %s (%" PetscInt_FMT ")", blk[i].name, blk[i].n));
  PetscCall(PetscPrintf(comm, "; objective:"));
  for (PetscInt i = 0; i < c->nobjectives; i++) PetscCall(PetscPrintf(comm, " %s%s (%s, weight %g)", i ? "+" : "", c->objective[i].name, FGObjectiveKindNames[c->objective[i].kind], (double)c->objective[i].weight));
  if (O->K > 1) {
    const char *const *pn;
    const PetscReal   *pw;
    PetscCall(FGProblemGetPoints(O->P, &O->K, &pn, &pw));
    PetscCall(PetscPrintf(comm, " over %" PetscInt_FMT " points:", O->K));
    for (PetscInt k = 0; k < O->K; k++) PetscCall(PetscPrintf(comm, " %s (weight %g)", pn[k], (double)pw[k]));
  }
  PetscCall(PetscPrintf(comm, "\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOptimizerGetProblem - the problem FGOptimizerSetUp() made (its points' solvers, design and
  rows); NULL before it.
@*/
PetscErrorCode FGOptimizerGetProblem(FGOptimizer O, FGProblem *P)
{
  PetscFunctionBeginUser;
  *P = O->P;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOptimizerSetUp - the problem (every point's solver), the variables and their bounds, the
  optimizer type, output.dir/optimization and its evaluation log; prints the problem. Collective.

  Notes:
  Errors (exit 2): constraint rows with an optimizer type other than almm, penalty or auto; bounds
  with lmvm; --resume with an empty log; a log of another case.
@*/
PetscErrorCode FGOptimizerSetUp(FGOptimizer O)
{
  const FGCase   *c    = O->c;
  MPI_Comm        comm = O->comm;
  FGOptimizerType type = c->optimizer.type;

  PetscFunctionBeginUser;
  PetscCall(FGProblemCreate(comm, O->c, O->nset, O->set, &O->P));
  PetscCall(FGProblemGetDesign(O->P, &O->d));
  PetscCall(FGProblemGetRows(O->P, &O->nrows, &O->rows));
  PetscCall(FGProblemGetPoints(O->P, &O->K, NULL, NULL));
  PetscCall(FGProblemCreateVec(O->P, &O->p0));
  PetscCall(FGDesignGetValues(O->d, O->p0));
  PetscCall(FGDesignGetScalars(O->d, O->p0, &O->ns, &(PetscReal *){NULL}));
  PetscCall(VecDuplicate(O->p0, &O->scale));
  PetscCall(VecDuplicate(O->p0, &O->plo));
  PetscCall(VecDuplicate(O->p0, &O->phi));
  PetscCall(VecDuplicate(O->p0, &O->xlo));
  PetscCall(VecDuplicate(O->p0, &O->xhi));
  PetscCall(VecDuplicate(O->p0, &O->p));
  PetscCall(VecDuplicate(O->p0, &O->x));
  PetscCall(VecDuplicate(O->p0, &O->xacc));
  PetscCall(VecDuplicate(O->p0, &O->gacc));
  PetscCall(FGProblemGetBounds(O->P, O->p0, O->plo, O->phi, O->scale));
  if (type == FG_OPT_AUTO) type = O->nrows ? FG_OPT_PENALTY : FG_OPT_BLMVM;
  PetscCheck(!(O->nrows && type != FG_OPT_ALMM && type != FG_OPT_PENALTY), comm, FG_ERR_INPUT, "%s: optimizer.type %s cannot handle the %" PetscInt_FMT " constraint rows: use almm or penalty (or auto)", c->file, FGOptimizerTypeNames[type], O->nrows);
  O->type    = type;
  O->penalty = (PetscBool)(type == FG_OPT_PENALTY);
  O->taotype = type == FG_OPT_BLMVM || type == FG_OPT_PENALTY ? TAOBLMVM : type == FG_OPT_BQNLS ? TAOBQNLS : type == FG_OPT_BNCG ? TAOBNCG : type == FG_OPT_LMVM ? TAOLMVM : TAOALMM;
  O->maxits  = c->optimizer.max_iterations;
  PetscCall(FGOptSetUpBounds_Internal(O));
  PetscCall(FGOptCacheCreate_Internal(O));

  /* the directories, the log */
  PetscCall(PetscSNPrintf(O->dir, sizeof(O->dir), "%s/optimization", c->output.dir));
  PetscCall(PetscSNPrintf(O->evdir, sizeof(O->evdir), "%s/evaluations", O->dir));
  {
    PetscBool ok;
    char      msg[PETSC_MAX_PATH_LEN + 128];
    PetscCall(FGIOMakeDirectory(comm, O->evdir, msg, sizeof(msg), &ok)); /* and O->dir */
    PetscCheck(ok, comm, FG_ERR_INPUT, "%s", msg);
  }
  PetscCall(FGOptLogStart_Internal(O));
  PetscCall(FGOptimizerPrintProblem_Private(O));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOptimizerSolve - the optimization: J_0 and the constraints at the initial design, TAO (or the
  augmented-Lagrangian loop), then the evaluation at the result, its fields and result.csv.
  Collective.

  Notes:
  A signal handler installed by the caller (FGSignalInstall) makes SIGUSR1/SIGTERM stop the run
  after the current evaluation with FG_ERR_SIGNAL (exit 75); --resume continues.
@*/
PetscErrorCode FGOptimizerSolve(FGOptimizer O)
{
  MPI_Comm comm = O->comm;
  FGEval  *e0;

  PetscFunctionBeginUser;
  /* the initial design: J_0, the constraints' values */
  PetscCall(FGOptToDesign_Internal(O, O->x)); /* p_0 as TAO will see it (x_0 scale, to round-off) */
  PetscCall(FGOptEvaluate_Internal(O, O->p, PETSC_TRUE, &e0));
  O->J0s = PetscAbsReal(e0->J) > 0 ? PetscAbsReal(e0->J) : 1.0;
  PetscCall(FGProblemSetRowValues(O->P, e0));
  for (PetscInt i = 0; i < O->nrows; i++) {
    const FGConstraintRow *r = &O->rows[i];
    PetscCall(PetscPrintf(comm, "constraint %-20s %s %.10g (initially %.10g; scale %.4g)\n", r->name, r->relation == FG_REL_EQ ? "=" : r->relation == FG_REL_GE ? ">=" : "<=", (double)r->value, (double)e0->q[i], (double)r->scale));
  }

  if (!O->penalty) {
    Tao tao;
    PetscCall(FGOptSetUpTao_Internal(O, &tao, O->x, O->taotype, O->maxits, O->type == FG_OPT_ALMM ? &O->Ae : NULL, O->type == FG_OPT_ALMM ? &O->Ai : NULL, &O->ce, &O->ci));
    PetscCall(TaoSolve(tao));
    PetscCall(TaoGetConvergedReason(tao, &O->reason));
    PetscCall(TaoDestroy(&tao));
  } else PetscCall(FGOptSolvePenalty_Internal(O));

  /* the result */
  PetscCall(FGOptToDesign_Internal(O, O->x));
  PetscCall(FGOptEvaluate_Internal(O, O->p, PETSC_TRUE, &O->final));
  if (!O->nhist) PetscCall(FGOptRecord_Internal(O, 0, O->p, O->final, 0, 0)); /* optimizer.max_iterations 0: the start alone */
  PetscCall(FGOptWriteIterFields_Internal(O, O->hist[O->nhist - 1].it, O->p, O->final));
  PetscCall(FGOptWriteResult_Internal(O, O->p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOptimizerView - the outcome of FGOptimizerSolve on stdout (rank 0) and in
  optimization/outcome.txt: how it stopped, J_0 -> J,
  each constraint row at the result, the files written. Collective.
@*/
PetscErrorCode FGOptimizerView(FGOptimizer O)
{
  const FGCase    *c    = O->c;
  MPI_Comm         comm = O->comm;
  const FGEval    *ef   = O->final;
  const FGHistRow *last = &O->hist[O->nhist - 1];
  const char      *outcome = TaoConvergedReasons[O->reason];
  PetscBool        converged = (PetscBool)(O->reason > 0), hold = PETSC_TRUE;
  char             text[16384], *t = text; /* 64 rows of at most ~180 characters */
  size_t           left = sizeof(text), n;

  PetscFunctionBeginUser;
  if (O->penalty) {
    outcome   = O->penalty_done ? "CONVERGED (the constraints hold and the last inner solve converged)" : last->it >= O->maxits ? "STOPPED at optimizer.max_iterations" : "STOPPED (evaluation or outer-iteration limit)";
    converged = O->penalty_done;
  }
  /* the text on stdout and in optimization/outcome.txt; its lines "status:" and "constraints:"
     are for scripts (postproc/optimization_summary.py) */
#define FG_OUT(...) \
  do { \
    PetscCall(PetscSNPrintf(t, left, __VA_ARGS__)); \
    PetscCall(PetscStrlen(t, &n)); \
    t += n, left -= n; \
  } while (0)
  FG_OUT("flowgrad optimize: %s after %" PetscInt_FMT " iterations, %" PetscInt_FMT " evaluations (%.0f s of evaluations)\n", outcome, last->it, O->nevals, (double)O->seconds);
  FG_OUT("  J: %.10e -> %.10e (%+.3f%%)\n", (double)O->hist[0].J, (double)ef->J, (double)(100 * (ef->J - O->hist[0].J) / O->J0s));
  for (PetscInt i = 0; i < O->nrows; i++) {
    const FGConstraintRow *r = &O->rows[i];
    PetscReal              v = FGProblemRowViolation(r, ef->q[i]);
    if (!(v <= c->optimizer.constraint_tol)) hold = PETSC_FALSE;
    FG_OUT("  constraint %-20s %.10g %s %.10g: violation %.2e (%s)\n", r->name, (double)ef->q[i], r->relation == FG_REL_EQ ? "=" : r->relation == FG_REL_GE ? ">=" : "<=", (double)r->value, (double)v, v <= c->optimizer.constraint_tol ? "holds" : "VIOLATED");
  }
  FG_OUT("status: %s\nconstraints: %s\n", converged && hold ? "converged" : "stopped", !O->nrows ? "none" : hold ? "all hold" : "VIOLATED");
#undef FG_OUT
  PetscCall(PetscPrintf(comm, "\n%s", text));
  PetscCall(FGOptWriteOutcome_Internal(O, text));
  PetscCall(PetscPrintf(comm, "wrote %s/optimization.csv, optimization.h5, %s/result.csv, outcome.txt, %s/iter_NNNN.h5\n", c->output.dir, O->dir, O->dir));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOptimizerDestroy - free an optimizer (and its problem). Collective.
@*/
PetscErrorCode FGOptimizerDestroy(FGOptimizer *opt)
{
  FGOptimizer O = *opt;

  PetscFunctionBeginUser;
  if (!O) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatDestroy(&O->Ae));
  PetscCall(MatDestroy(&O->Ai));
  PetscCall(VecDestroy(&O->ce));
  PetscCall(VecDestroy(&O->ci));
  PetscCall(FGOptCacheDestroy_Internal(O));
  PetscCall(PetscFree(O->hist));
  PetscCall(FGTableDestroy(&O->history));
  PetscCall(VecDestroy(&O->x));
  PetscCall(VecDestroy(&O->xacc));
  PetscCall(VecDestroy(&O->gacc));
  PetscCall(VecDestroy(&O->p0));
  PetscCall(VecDestroy(&O->scale));
  PetscCall(VecDestroy(&O->plo));
  PetscCall(VecDestroy(&O->phi));
  PetscCall(VecDestroy(&O->xlo));
  PetscCall(VecDestroy(&O->xhi));
  PetscCall(VecDestroy(&O->p));
  PetscCall(FGProblemDestroy(&O->P));
  PetscCall(PetscFree(*opt));
  PetscFunctionReturn(PETSC_SUCCESS);
}
