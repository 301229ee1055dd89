/*
  The evaluations of flowgrad optimize (src/optim/): every objective, gradient, constraint and
  monitor call of TAO asks FGOptEvaluate_Internal for the evaluation at a design p, answered from a
  cache of the last FG_OPT_NCACHE evaluations, from the evaluation log (a replay), or computed by
  FGProblemEvaluate and logged (optimization/evaluations/eval_NNNNNN.h5, src/optim/output.c).

  Restart. TAO is deterministic, so --resume (or a SLURM requeue) reruns TaoSolve from the
  initial design and answers each evaluation from the log while its design matches the logged one
  (to 1e-12 relative: the same run to round-off), then evaluates again: the run continues from its
  last evaluation and follows the same path as an uninterrupted one. A log of another case (hash
  of every key that changes the result) is refused (exit 2); a design that departs from the log
  ends the replay there (the rest of the log is removed).

  Signals. SIGUSR1/SIGTERM stop the run after the current evaluation (its log written; an unsteady
  adjoint sweep stops at its next step), exit 75; --resume continues.

  Failed trial designs. A design whose flow blows up (FGSolverCheckFlow: the CFL number past twice
  time.cfl_max at a step's end, on every rank, the forward and adjoint having freed what they
  held) after TAO has accepted an iterate is not the end of the run: the evaluation is logged as
  failed, and TAO is told f = f_a + |g_a . (x - x_a)| with the gradient g_a, (x_a, f_a, g_a) its
  last accepted iterate (FGOptFailedValue_Internal). More-Thuente's cubic through (0, f_a, g_a.s)
  and that point then takes about a tenth of the failed step (a larger f than f_a, the same slope:
  a minimum close to x_a), and the search goes on from there. The first evaluation, any other
  failure (a linear solve that does not converge, bad input), ALMM (its constraints have no such
  value) and FG_OPT_MAX_FAILED failures in a row stop the run as before, naming the design.

  Test hooks: -fg_test_optimize_kill_at N (TEST ONLY in -help) kills every rank with SIGKILL right after the N-th
  evaluation of this run is logged; -fg_test_optimize_signal_at N sends every rank SIGUSR1 there
  (the run stops with exit 75).
*/
#include "optimimpl.h"
#include <string.h>
#include <signal.h>

#define FG_OPT_MAX_FAILED 5 /* failed trial designs in a row before the run stops */

/* The hash of every key that changes the optimization's result: the checkpoint restart keys (all
   but name, description, time.steps, time.cfl_max, poisson.*, output.*), time.steps, and not the
   adjoint's memory settings nor optimizer.max_iterations, max_evaluations, fields_every. */
static PetscErrorCode FGOptHash_Private(FGOptimizer O)
{
  char              *keys, *line;
  size_t             len = 1 << 20;
  unsigned long long h   = 14695981039346656037ULL, hk;
  const char *const  skip[] = {"adjoint.memory", "adjoint.checkpoints", "adjoint.storage", "adjoint.segment", "adjoint.fields_every", "optimizer.max_iterations", "optimizer.max_evaluations", "optimizer.fields_every"};

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(len, &keys));
  PetscCall(FGCaseRestartKeys(O->c, keys, len, &hk));
  for (line = keys; *line;) {
    char     *end = strchr(line, '\n');
    size_t    n   = end ? (size_t)(end - line + 1) : strlen(line);
    PetscBool use = PETSC_TRUE;
    for (size_t k = 0; k < sizeof(skip) / sizeof(skip[0]); k++)
      if (!strncmp(line, skip[k], strlen(skip[k])) && line[strlen(skip[k])] == ':') use = PETSC_FALSE;
    if (use)
      for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)line[i]) * 1099511628211ULL;
    line += n;
  }
  PetscCall(PetscFree(keys));
  O->hash = (h ^ (unsigned long long)O->c->time.steps) * 1099511628211ULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The log at the start: replayed (O->replay: its length, checked against --resume), or removed
   with the iteration files of an earlier run (a fresh start). */
PetscErrorCode FGOptLogStart_Internal(FGOptimizer O)
{
  PetscFunctionBeginUser;
  PetscCall(FGOptHash_Private(O));
  PetscCall(FGOptRemoveOutcome_Internal(O)); /* written again when this run reaches its end */
  if (O->replay) {
    PetscCall(FGOptLogScan_Internal(O, PETSC_MAX_INT, PETSC_FALSE, &O->nlog));
    PetscCheck(O->nlog || !O->replay_required, O->comm, FG_ERR_INPUT, "--resume: %s holds no evaluations of an earlier run: nothing to resume (run without --resume)", O->evdir);
    if (O->nlog) PetscCall(PetscPrintf(O->comm, "flowgrad optimize: resuming: replaying %" PetscInt_FMT " logged evaluations from %s\n", O->nlog, O->evdir));
  } else { /* a fresh start: no log, no iteration files */
    PetscCall(FGOptLogScan_Internal(O, 0, PETSC_TRUE, NULL));
    PetscCall(FGOptRemoveIterFields_Internal(O));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGOptCacheCreate_Internal(FGOptimizer O)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < FG_OPT_NCACHE; i++) {
    PetscCall(FGProblemEvalCreate(O->P, &O->cache[i]));
    PetscCall(VecDuplicate(O->p0, &O->cachep[i]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGOptCacheDestroy_Internal(FGOptimizer O)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < FG_OPT_NCACHE; i++) {
    PetscCall(FGProblemEvalDestroy(O->P, &O->cache[i]));
    PetscCall(VecDestroy(&O->cachep[i]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptPrintEval_Private(FGOptimizer O, const FGEval *e, const char *how, PetscReal seconds)
{
  PetscFunctionBeginUser;
  if (e->failed) {
    PetscCall(PetscPrintf(O->comm, "  eval %4" PetscInt_FMT ": failed: the flow blew up (%s%.1f s)\n", O->nevals, how[0] ? "from the log, " : "", (double)seconds));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscPrintf(O->comm, "  eval %4" PetscInt_FMT ": J = %.10e%s", O->nevals, (double)e->J, O->nrows ? "  constraints" : ""));
  for (PetscInt i = 0; i < O->nrows; i++) PetscCall(PetscPrintf(O->comm, " %s=%.6g", O->rows[i].name, (double)e->q[i]));
  PetscCall(PetscPrintf(O->comm, "  (%s%s, %.1f s)\n", e->gradient ? "J and gradient" : "J only", how, (double)seconds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An evaluation failed at design p: its scalars, from rank 0's stderr (not collective: the failure
   may be one rank's). */
static PetscErrorCode FGOptPrintFailedDesign_Private(FGOptimizer O, Vec p)
{
  const PetscScalar *a;
  PetscMPIInt        rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(O->comm, &rank));
  if (rank) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayRead(p, &a));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, stderr, "flowgrad optimize: evaluation %" PetscInt_FMT " failed at the design", O->nevals));
  for (PetscInt i = 0; i < O->ns; i++) {
    char nm[128];
    PetscCall(FGDesignScalarName(O->d, i, nm, sizeof(nm)));
    PetscCall(PetscFPrintf(PETSC_COMM_SELF, stderr, "%s %s = %.17g", i ? "," : "", nm, (double)PetscRealPart(a[i])));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, stderr, "%s (the evaluations before it are in %s)\n", O->ns ? "" : " (no design scalars)", O->evdir));
  PetscCall(VecRestoreArrayRead(p, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the failure ierr of the evaluation just tried may be told to TAO (the header: a flow
   that blew up, after an accepted iterate, not ALMM, under FG_OPT_MAX_FAILED in a row). Not
   collective, and the same on every rank: FGSolverCheckFlow raises on all ranks alike (from a
   reduced CFL number), and the rest is replicated; any other failure (which may be one rank's)
   goes back to main as before. */
static PetscErrorCode FGOptRetryable_Private(FGOptimizer O, PetscErrorCode ierr, PetscBool *retry)
{
  PetscBool blown = PETSC_FALSE;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < O->K; k++) {
    FGSolver s;
    PetscCall(FGProblemGetSolver(O->P, k, &s));
    blown = (PetscBool)(blown || s->blown);
  }
  *retry = (PetscBool)(ierr == FG_ERR_NUMERIC && blown && O->accset && O->type != FG_OPT_ALMM && O->nfail < FG_OPT_MAX_FAILED);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* TAO's f and gradient G at x where the evaluation failed: f_a + |g_a . (x - x_a)| and g_a (the
   header). */
PetscErrorCode FGOptFailedValue_Internal(FGOptimizer O, Vec x, PetscReal *f, Vec G)
{
  PetscReal d;

  PetscFunctionBeginUser;
  PetscCall(VecWAXPY(O->p, -1.0, O->xacc, x));
  PetscCall(VecDot(O->gacc, O->p, &d));
  *f = O->facc + PetscAbsReal(d);
  if (G) PetscCall(VecCopy(O->gacc, G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The evaluation at design p (gradient: with the gradient): from the cache, the log (replay) or
   computed and logged. */
PetscErrorCode FGOptEvaluate_Internal(FGOptimizer O, Vec p, PetscBool gradient, FGEval **out)
{
  PetscInt slot = -1;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < FG_OPT_NCACHE; i++) {
    PetscBool eq;
    if (!O->cacheset[i] || (gradient && !O->cache[i].gradient)) continue;
    PetscCall(VecEqual(p, O->cachep[i], &eq));
    if (eq) {
      *out = &O->cache[i];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  slot     = O->cnext;
  O->cnext = (O->cnext + 1) % FG_OPT_NCACHE;
  O->cacheset[slot] = PETSC_FALSE;
  if (O->nevals < O->nlog) { /* replay */
    PetscBool lg  = PETSC_FALSE;
    PetscReal d, nrm, sec = 0;
    PetscCall(FGOptLogReadDesign_Internal(O, O->nevals, O->cachep[slot], &lg, &sec));
    PetscCall(VecAXPY(O->cachep[slot], -1.0, p)); /* the difference in x = p/scale, entry by entry */
    PetscCall(VecPointwiseDivide(O->cachep[slot], O->cachep[slot], O->scale));
    PetscCall(VecNorm(O->cachep[slot], NORM_INFINITY, &d));
    PetscCall(VecPointwiseDivide(O->cachep[slot], p, O->scale));
    PetscCall(VecNorm(O->cachep[slot], NORM_INFINITY, &nrm));
    if (d <= 1e-12 * PetscMax(nrm, 1.0) && (lg || !gradient)) {
      PetscCall(FGOptLogReadEval_Internal(O, O->nevals, &O->cache[slot]));
      O->nfail = O->cache[slot].failed ? O->nfail + 1 : 0; /* as the run that logged it counted */
      PetscCall(VecCopy(p, O->cachep[slot]));
      O->cacheset[slot] = PETSC_TRUE;
      O->seconds += sec;
      PetscCall(FGOptPrintEval_Private(O, &O->cache[slot], ", from the log", sec));
      O->nevals++;
      *out = &O->cache[slot];
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(PetscPrintf(O->comm, "flowgrad optimize: evaluation %" PetscInt_FMT " departs from the log (design difference %.3g%s): evaluating from here on; the rest of the log is removed\n", O->nevals, (double)d,
                          lg || !gradient ? "" : ", or the log has no gradient"));
    PetscCall(FGOptLogScan_Internal(O, O->nevals, PETSC_TRUE, NULL));
    O->nlog = O->nevals;
  }
  {
    PetscLogDouble w0, w1;
    int            sig = 0;
    PetscErrorCode ierr;
    PetscCall(PetscTime(&w0));
    O->cache[slot].failed = PETSC_FALSE;
    for (PetscInt k = 0; k < O->K; k++) {
      FGSolver s;
      PetscCall(FGProblemGetSolver(O->P, k, &s));
      s->blown = PETSC_FALSE;
    }
    ierr = FGProblemEvaluate(O->P, p, gradient, &O->cache[slot]);
    if (ierr) { /* say where it failed (the error's own line follows), then pass the error on ... */
      PetscBool retry = PETSC_FALSE;
      PetscCall(FGOptPrintFailedDesign_Private(O, p));
      PetscCall(FGOptRetryable_Private(O, ierr, &retry));
      if (!retry && O->nfail >= FG_OPT_MAX_FAILED) PetscCall(PetscPrintf(O->comm, "flowgrad optimize: %d failed trial designs in a row before this one: stopping (the last accepted design is in the history)\n", FG_OPT_MAX_FAILED));
      if (!retry) PetscFunctionReturn(ierr);
      { /* ... or, a trial design's flow that blew up, tell TAO and go on */
        char msg[512];
        FGErrorTake(msg, sizeof(msg));
        O->nfail++;
        PetscCall(PetscPrintf(O->comm, "flowgrad optimize: evaluation %" PetscInt_FMT ": %s; TAO takes a shorter step (failure %" PetscInt_FMT " in a row of at most %d)\n", O->nevals, msg, O->nfail, FG_OPT_MAX_FAILED));
        O->cache[slot].failed   = PETSC_TRUE;
        O->cache[slot].gradient = PETSC_FALSE; /* logged without one ... */
        O->cache[slot].J        = (PetscReal)NAN;
      }
    } else O->nfail = 0;
    PetscCall(PetscTime(&w1));
    PetscCall(VecCopy(p, O->cachep[slot]));
    O->cacheset[slot] = PETSC_TRUE;
    PetscCall(FGOptLogWrite_Internal(O, O->nevals, p, &O->cache[slot], (PetscReal)(w1 - w0)));
    O->seconds += (PetscReal)(w1 - w0);
    if (O->cache[slot].failed) O->cache[slot].gradient = PETSC_TRUE; /* ... and answers every request */
    PetscCall(FGOptPrintEval_Private(O, &O->cache[slot], "", (PetscReal)(w1 - w0)));
    O->nevals++, O->nlog = O->nevals, O->nreal++;
    if (O->signal_at > 0 && O->nreal == O->signal_at) (void)raise(SIGUSR1); /* test hook: every rank, as SLURM's signal */
    if (O->kill_at > 0 && O->nreal == O->kill_at) {
      PetscCall(PetscPrintf(O->comm, "flowgrad optimize: test hook: SIGKILL after evaluation %" PetscInt_FMT "\n", O->nevals - 1));
      PetscCallMPI(MPI_Barrier(O->comm));
      (void)raise(SIGKILL);
    }
    PetscCall(FGSignalAgree(O->comm, &sig));
    PetscCheck(!sig, O->comm, FG_ERR_SIGNAL, "flowgrad optimize: stopped by %s after evaluation %" PetscInt_FMT " (logged in %s); rerun with --resume to continue (exit code 75: requeue)", FGSignalName(sig), O->nevals - 1, O->evdir);
  }
  *out = &O->cache[slot];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The largest violation of the constraint rows at evaluation e (0 without rows). */
PetscReal FGOptViolation_Internal(FGOptimizer O, const FGEval *e)
{
  PetscReal v = 0;
  for (PetscInt i = 0; i < O->nrows; i++) v = PetscMax(v, FGProblemRowViolation(&O->rows[i], e->q[i]));
  return v;
}
