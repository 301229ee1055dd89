/*
  The unsteady reverse sweep (include/fg/adjoint.h).

  Forward: from the initial state x_0, N steps x_n = F(x_{n-1}, p), the objective recorded after
  every step. Reverse, n = N .. 1, with step n's tape (its stage values, from a run of step n):

    lambda += dJ/dx_n                           (FGObjectiveAdjointState: the state at step n)
    lambda  = F_x^T lambda,  g_F += F_p^T lambda (FGStepAdjoint_RK3, with dJ/d(step n's forces))

  after which lambda = dJ/dx_0 and g = dp^T g_F + dJ/dp.

  Which states are kept follows the schedule (src/adjoint/schedule.c). The run is cut at the
  boundaries b_0 = 0 < b_1 < ... (every `segment` steps, with disk storage; else only 0): the
  forward run writes x_b to adjoint/checkpoints/state_NNNNNN.h5 at each boundary, with the
  objective's record so far, until it reaches the last one; the last segment [b_last, N) is then
  run by the segment executor (its first pass is the rest of the forward run), and the segments
  before it, last to first, from their disk states. A segment's executor (FGSweepSegment_Private)
  keeps tapes, states, or binomial checkpoints in RAM (slots allocated on first use).

  Every step is computed by FGSweepAdvance_Private: a step beyond the forward run's frontier is
  new (the objective records it), any other one counts as recomputed. The result does not depend
  on the schedule: each adjoint step sees the same tape, and the states are the same doubles
  (bit for bit, whether kept in RAM, recomputed or read back from disk).

  Resume (out->resume): after each segment (with disk storage) and on SIGUSR1/SIGTERM, the sweep
  writes adjoint/resume.h5: the position n (steps n+1..N done), lambda (u_adj.., p_adj), the
  parameter adjoints so far (scalars reduced to rank 0; density face fields), the gradient fields
  of out, the objective's record of all N steps and the gradient in time so far. A resumed sweep
  reads it, skips the forward run and reverses the segments below n. Stopped during the forward
  run, the sweep writes the current state as a state file; a resumed sweep continues the forward
  run from the newest state file. Files carry a hash of the case (the keys that change the result)
  and of the design vector; a mismatch is refused. A finished sweep removes its files.
*/
#include "sweepimpl.h"
#include <signal.h>

/*@C
  FGAdjointGetOptions - the reverse sweep's options, in one PetscOptionsBegin block (so -help
  lists them); FGAdjointCompute reads them once. Collective.

  Options Database Keys:
+ -fg_test_adjoint_signal_at <n> - TEST ONLY: raise SIGUSR1 after adjoint step n (n > 0) or after
                                   forward step -n (n < 0)
- -fg_test_adjoint_kill_at <n>   - TEST ONLY: SIGKILL every rank after adjoint step n
@*/
PetscErrorCode FGAdjointGetOptions(MPI_Comm comm, FGAdjointOptions *o)
{
  PetscFunctionBeginUser;
  o->test_signal_at = 0;
  o->test_kill_at   = -1;
  PetscBool set;
  PetscOptionsBegin(comm, NULL, "flowgrad: adjoint reverse sweep (test hooks)", NULL);
  PetscCall(PetscOptionsInt("-fg_test_adjoint_signal_at", "TEST ONLY: raise SIGUSR1 after adjoint step n (n > 0) or after forward step -n (n < 0)", NULL, o->test_signal_at, &o->test_signal_at, &set));
  PetscCall(FGOptionsCheckValue("-fg_test_adjoint_signal_at", set)); /* given without a value: not silently unset */
  PetscCall(PetscOptionsInt("-fg_test_adjoint_kill_at", "TEST ONLY: SIGKILL every rank after adjoint step n", NULL, o->test_kill_at, &o->test_kill_at, &set));
  PetscCall(FGOptionsCheckValue("-fg_test_adjoint_kill_at", set)); /* given without a value: not silently unset */
  PetscOptionsEnd();
  PetscCheck(o->test_kill_at >= -1, comm, FG_ERR_INPUT, "-fg_test_adjoint_kill_at %" PetscInt_FMT ": must be >= -1 (-1: never)", o->test_kill_at);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGAdjointForward - J(p): apply p, run the forward steps from the initial state, evaluate the
  objective. Collective.
@*/
PetscErrorCode FGAdjointForward(FGSolver s, FGDesign d, FGObjective o, Vec p, PetscReal *J)
{
  PetscFunctionBeginUser;
  if (s->c->adjoint.mode == FG_ADJOINT_STEADY) {
    PetscCall(FGAdjointForwardSteady(s, d, o, p, J));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FGDesignApply(d, p));
  PetscCall(FGDesignSetInitialState(d, p));
  PetscCall(FGObjectiveReset(o));
  for (PetscInt n = 0; n < s->c->time.steps; n++) {
    PetscCall(FGStepForward_RK3(s, NULL));
    PetscCall(FGSolverCheckFlow(s));
    PetscCall(FGObjectiveRecord(o));
  }
  PetscCall(FGObjectiveFinish(o, p, J));
  PetscCheck(!PetscIsInfOrNanReal(*J), s->comm, FG_ERR_NUMERIC, "the objective is %g (the forward run blew up?)", (double)*J);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* --- states ------------------------------------------------------------------------------ */

static PetscErrorCode FGSweepSlot_Private(FGSweep *sw, PetscInt i, FGSweepState **st)
{
  PetscFunctionBeginUser;
  if (i >= sw->nslot) {
    PetscInt n = PetscMax(i + 1, 2 * sw->nslot);
    PetscCall(PetscRealloc(sizeof(FGSweepState) * (size_t)n, &sw->slot));
    PetscCall(PetscArrayzero(sw->slot + sw->nslot, n - sw->nslot));
    sw->nslot = n;
  }
  if (!sw->slot[i].p) {
    for (PetscInt a = 0; a < sw->dim; a++) PetscCall(VecDuplicate(sw->s->u[a], &sw->slot[i].u[a]));
    PetscCall(VecDuplicate(sw->s->p, &sw->slot[i].p));
  }
  *st = &sw->slot[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGSweepStore_Private(FGSweep *sw, PetscInt i)
{
  FGSweepState *st = NULL;

  PetscFunctionBeginUser;
  PetscCall(FGSweepSlot_Private(sw, i, &st));
  for (PetscInt a = 0; a < sw->dim; a++) PetscCall(VecCopy(sw->s->u[a], st->u[a]));
  PetscCall(VecCopy(sw->s->p, st->p));
  st->t    = sw->s->t;
  st->step = sw->s->step;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGSweepRestore_Private(FGSweep *sw, PetscInt i)
{
  FGSweepState *st = &sw->slot[i];

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < sw->dim; a++) PetscCall(VecCopy(st->u[a], sw->s->u[a]));
  PetscCall(VecCopy(st->p, sw->s->p));
  sw->s->t    = st->t;
  sw->s->step = st->step;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGSweepTape_Private(FGSweep *sw, PetscInt i, FGStepTape *T)
{
  PetscFunctionBeginUser;
  if (i >= sw->ntape) {
    PetscInt n = PetscMax(i + 1, 2 * sw->ntape);
    PetscCall(PetscRealloc(sizeof(FGStepTape) * (size_t)n, &sw->tape));
    PetscCall(PetscArrayzero(sw->tape + sw->ntape, n - sw->ntape));
    sw->ntape = n;
  }
  if (!sw->tape[i]) PetscCall(FGStepTapeDuplicate(sw->s, sw->work, &sw->tape[i]));
  *T = sw->tape[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* --- steps ------------------------------------------------------------------------------- */

static PetscErrorCode FGSweepStop_Private(FGSweep *sw, PetscBool forward)
{
  int signo = 0;

  PetscFunctionBeginUser;
  if (!sw->out || !sw->out->signals) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGSignalAgree(sw->s->comm, &signo));
  if (!signo) PetscFunctionReturn(PETSC_SUCCESS);
  if (forward) {
    PetscCall(FGSweepWriteState_Internal(sw));
    PetscCall(PetscPrintf(sw->s->comm, "adjoint: %s during the forward run: wrote the state at step %" PetscInt_FMT "; rerun with --resume to continue\n", FGSignalName(signo), sw->s->step));
  } else {
    PetscCall(FGSweepWriteResume_Internal(sw));
    PetscCall(PetscPrintf(sw->s->comm, "adjoint: %s: wrote %s at step %" PetscInt_FMT " of the reverse sweep; rerun with --resume to continue\n", FGSignalName(signo), sw->resume_path, sw->position));
  }
  SETERRQ(sw->s->comm, FG_ERR_SIGNAL, "stopped by %s (exit 75: requeue and rerun with --resume)", FGSignalName(signo));
}

/* One forward step, with a tape (T) or not; a step beyond the frontier is recorded. */
static PetscErrorCode FGSweepAdvance_Private(FGSweep *sw, FGStepTape T)
{
  FGSolver s = sw->s;

  PetscFunctionBeginUser;
  PetscCall(FGStepForward_RK3(s, T));
  if (s->step <= sw->frontier) {
    sw->recomputed++;
    /* a resume file is valid at any position once the forward run is complete: a long segment's
       recomputation stops at the next step too */
    if (sw->frontier == sw->N && sw->position < sw->N) PetscCall(FGSweepStop_Private(sw, PETSC_FALSE));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(s->step == sw->frontier + 1, s->comm, PETSC_ERR_PLIB, "the sweep skipped a step (%" PetscInt_FMT " after %" PetscInt_FMT ")", s->step, sw->frontier);
  PetscCall(FGSolverCheckFlow(s));
  PetscCall(FGObjectiveRecord(sw->o));
  sw->frontier = s->step;
  if (sw->every && (s->step % sw->every == 0 || s->step == sw->N)) {
    PetscLogDouble now;
    PetscCall(PetscTime(&now));
    PetscCall(PetscPrintf(s->comm, "adjoint: forward step %6" PetscInt_FMT " t %10.4f  (%.1f s)\n", s->step, (double)s->t, (double)(now - sw->tstart)));
  }
  if (sw->opt.test_signal_at < 0 && -sw->opt.test_signal_at == s->step) PetscCall(FGSignalRaise(SIGUSR1));
  if (s->step < sw->N) PetscCall(FGSweepStop_Private(sw, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The adjoint of step n about tape T; the solver holds x_n. */
static PetscErrorCode FGSweepAdjoint_Private(FGSweep *sw, PetscInt n, FGStepTape T)
{
  FGSolver s = sw->s;

  PetscFunctionBeginUser;
  PetscCheck(s->step == n && n == sw->position, s->comm, PETSC_ERR_PLIB, "the sweep is out of order: adjoint of step %" PetscInt_FMT " at position %" PetscInt_FMT " with the state of step %" PetscInt_FMT, n, sw->position, s->step);
  if (!sw->finished) {
    PetscLogDouble now;
    PetscCall(FGObjectiveFinish(sw->o, sw->p, &sw->J));
    PetscCheck(!PetscIsInfOrNanReal(sw->J), s->comm, FG_ERR_NUMERIC, "the objective is %g (the forward run blew up?)", (double)sw->J);
    sw->finished = PETSC_TRUE;
    PetscCall(PetscTime(&now));
    if (sw->every) PetscCall(PetscPrintf(s->comm, "adjoint: forward %" PetscInt_FMT " steps, J = %.10e (%.1f s)\n", sw->N, (double)sw->J, (double)(now - sw->tstart)));
    sw->treverse = now;
  }
  if (sw->gtime) { /* the step's part alone: the scalar adjoints from 0, then added to the sum */
    PetscCall(PetscArraycpy(sw->snap, sw->bar.v, sw->bar.L->n));
    PetscCall(PetscArrayzero(sw->bar.v, sw->bar.L->n));
  }
  PetscCall(FGObjectiveAdjointState(sw->o, n, sw->ubar, sw->pbar, &sw->bar.v[FG_PARAM_INFLOW]));
  PetscCall(FGObjectiveAdjointForces(sw->o, n, sw->wacc));
  PetscCall(FGStepAdjoint_RK3(s, T, sw->wacc, sw->ubar, sw->pbar, &sw->bar));
  if (sw->gtime) {
    const PetscInt np = sw->bar.L->n;
    PetscCall(PetscArraycpy(sw->dstep.v, sw->bar.v, np));
    for (PetscInt i = 0; i < np; i++) sw->snap[i] += sw->dstep.v[i];
    PetscCall(PetscArraycpy(sw->bar.v, sw->snap, np));
    PetscCall(FGParamsReduce(s->comm, &sw->dstep));
    PetscCall(FGDesignGradientScalars(sw->d, &sw->dstep, sw->gs));
    PetscCall(PetscArraycpy(sw->gtime + (n - 1) * sw->ns, sw->gs, sw->ns));
  }
  sw->position = n - 1;
  sw->adjoint_steps++;
  if (sw->out && sw->out->monitor) PetscCall(sw->out->monitor(s, n - 1, T->t0, sw->ubar, sw->pbar, sw->out->ctx));
  if (sw->every && ((sw->N - n + 1) % sw->every == 0 || n == 1)) {
    PetscReal      nrm = 0, v;
    PetscLogDouble now;
    for (PetscInt a = 0; a < sw->dim; a++) {
      PetscCall(VecNorm(sw->ubar[a], NORM_INFINITY, &v));
      nrm = PetscMax(nrm, v);
    }
    PetscCall(PetscTime(&now));
    PetscCall(PetscPrintf(s->comm, "adjoint: step %6" PetscInt_FMT " t %10.4f  max|u_adj| %.3e  recomputed %" PetscInt64_FMT "  (%.1f s, ETA %.0f s)\n", n - 1, (double)T->t0, (double)nrm, sw->recomputed, (double)(now - sw->tstart),
                          (double)((now - sw->treverse) / PetscMax(sw->adjoint_steps, 1) * (PetscReal)(n - 1))));
  }
  if (sw->opt.test_kill_at == n - 1) {
    PetscCall(PetscPrintf(s->comm, "adjoint: test hook: SIGKILL at step %" PetscInt_FMT "\n", n - 1));
    (void)raise(SIGKILL);
  }
  if (sw->opt.test_signal_at > 0 && sw->opt.test_signal_at == n - 1) PetscCall(FGSignalRaise(SIGUSR1));
  if (n > 1) PetscCall(FGSweepStop_Private(sw, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Treeverse over [lo, hi) with s states from slot b on (x_lo in slot b). */
static PetscErrorCode FGSweepBinomial_Private(FGSweep *sw, PetscInt lo, PetscInt hi, PetscInt s, PetscInt b)
{
  const PetscInt L = hi - lo;

  PetscFunctionBeginUser;
  if (L == 1) {
    PetscCall(FGSweepRestore_Private(sw, b));
    PetscCall(FGSweepAdvance_Private(sw, sw->work));
    PetscCall(FGSweepAdjoint_Private(sw, hi, sw->work));
  } else if (s <= 1) {
    for (PetscInt n = hi; n > lo; n--) {
      PetscCall(FGSweepRestore_Private(sw, b));
      for (PetscInt i = lo + 1; i < n; i++) PetscCall(FGSweepAdvance_Private(sw, NULL));
      PetscCall(FGSweepAdvance_Private(sw, sw->work));
      PetscCall(FGSweepAdjoint_Private(sw, n, sw->work));
    }
  } else {
    const PetscInt k = FGScheduleBinomialSplit(L, s);
    PetscCall(FGSweepRestore_Private(sw, b));
    for (PetscInt i = 0; i < k; i++) PetscCall(FGSweepAdvance_Private(sw, NULL));
    PetscCall(FGSweepStore_Private(sw, b + 1));
    PetscCall(FGSweepBinomial_Private(sw, lo + k, hi, s - 1, b + 1));
    PetscCall(FGSweepBinomial_Private(sw, lo, lo + k, s, b));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Free the RAM states from slot ns on and the tapes from nt on: a segment of another kind than
   the one before keeps within the budget, not the sum of both. */
static PetscErrorCode FGSweepTrim_Private(FGSweep *sw, PetscInt ns, PetscInt nt)
{
  PetscFunctionBeginUser;
  for (PetscInt i = ns; i < sw->nslot; i++) {
    for (PetscInt a = 0; a < 3; a++) PetscCall(VecDestroy(&sw->slot[i].u[a]));
    PetscCall(VecDestroy(&sw->slot[i].p));
  }
  for (PetscInt i = nt; i < sw->ntape; i++) PetscCall(FGStepTapeDestroy(&sw->tape[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reverse steps lo+1..hi; the solver holds x_lo. */
static PetscErrorCode FGSweepSegment_Private(FGSweep *sw, PetscInt lo, PetscInt hi)
{
  const PetscInt      L    = hi - lo;
  const FGSegmentKind kind = FGScheduleSegmentKind(&sw->sc, L);

  PetscFunctionBeginUser;
  PetscCall(FGSweepTrim_Private(sw, kind == FG_SEGMENT_BINOMIAL ? sw->sc.states : L, kind == FG_SEGMENT_TAPES ? L : 0));
  /* moving bodies keep every stage's placement of a taped run for its adjoint steps */
  PetscCall(FGBodiesSetPlacementCapacity(sw->s->bodies, kind == FG_SEGMENT_TAPES ? 3 * L + 1 : 0));
  switch (kind) {
  case FG_SEGMENT_TAPES:
    for (PetscInt i = 0; i < L; i++) {
      FGStepTape T = NULL;
      PetscCall(FGSweepStore_Private(sw, i));
      PetscCall(FGSweepTape_Private(sw, i, &T));
      PetscCall(FGSweepAdvance_Private(sw, T));
    }
    for (PetscInt n = hi; n > lo; n--) {
      if (n < hi) PetscCall(FGSweepRestore_Private(sw, n - lo));
      PetscCall(FGSweepAdjoint_Private(sw, n, sw->tape[n - lo - 1]));
    }
    break;
  case FG_SEGMENT_STATES:
    for (PetscInt i = 0; i < L; i++) {
      PetscCall(FGSweepStore_Private(sw, i));
      if (i < L - 1) PetscCall(FGSweepAdvance_Private(sw, NULL));
    }
    for (PetscInt n = hi; n > lo; n--) {
      PetscCall(FGSweepRestore_Private(sw, n - lo - 1));
      PetscCall(FGSweepAdvance_Private(sw, sw->work));
      PetscCall(FGSweepAdjoint_Private(sw, n, sw->work));
    }
    break;
  default:
    PetscCall(FGSweepStore_Private(sw, 0));
    PetscCall(FGSweepBinomial_Private(sw, lo, hi, sw->sc.states, 0));
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Put x_b into the solver: the initial state, or its state file. */
static PetscErrorCode FGSweepLoad_Private(FGSweep *sw, PetscInt b)
{
  PetscFunctionBeginUser;
  if (b == 0) {
    PetscCall(FGDesignSetInitialState(sw->d, sw->p));
  } else {
    PetscCall(FGSweepReadState_Internal(sw, b, PETSC_FALSE));
    if (sw->every) PetscCall(PetscPrintf(sw->s->comm, "adjoint: segment from the state at step %" PetscInt_FMT " on disk\n", b));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FGAdjointCompute's unsteady sweep, in sw (zeroed; FGSweepDestroy_Private frees it, whatever this returns). */
static PetscErrorCode FGSweepRun_Private(FGSweep *sw, FGSolver s, FGDesign d, FGObjective o, Vec p, PetscReal *J, Vec g, FGAdjointOutput *out)
{
  PetscInt *files = NULL, nfiles = 0, start = 0;
  PetscBool resumed = PETSC_FALSE;
  PetscReal *sv;

  PetscFunctionBeginUser;
  sw->s = s, sw->d = d, sw->o = o, sw->p = p, sw->out = out;
  sw->N   = s->c->time.steps;
  sw->dim = s->grid->dim;
  sw->every = s->c->output.monitor_every > 0 ? s->c->output.monitor_every : 0;
  PetscCall(FGAdjointGetOptions(s->comm, &sw->opt));
  PetscCheck(sw->N >= 1, s->comm, FG_ERR_INPUT, "%s: time.steps: the adjoint needs at least one step", s->c->file);
  PetscCall(FGBodiesGetCount(s->bodies, &sw->nb));
  PetscCall(PetscTime(&sw->tstart));
  sw->treverse = sw->tstart;
  PetscCall(FGSchedulePlan(s, &sw->sc));
  if (sw->every) PetscCall(FGSchedulePrint(s, &sw->sc));
  /* a resumable run's files in adjoint/, another's (check, benchmarks) in adjoint/scratch/, so that
     it cannot touch a stopped run's */
  sw->resumable = (PetscBool)(out && (out->resume || out->signals));
  PetscCall(PetscSNPrintf(sw->dir, sizeof(sw->dir), "%s/adjoint/%s", s->c->output.dir, sw->resumable ? "checkpoints" : "scratch"));
  PetscCall(PetscSNPrintf(sw->resume_path, sizeof(sw->resume_path), "%s/adjoint/resume.h5", s->c->output.dir));

  /* the adjoint state and the parameter adjoints */
  PetscCall(FGStepTapeCreate(s, &sw->work));
  for (PetscInt a = 0; a < sw->dim; a++) {
    PetscCall(VecDuplicate(s->u[a], &sw->ubar[a]));
    PetscCall(VecSet(sw->ubar[a], 0.0));
  }
  PetscCall(VecDuplicate(s->p, &sw->pbar));
  PetscCall(VecSet(sw->pbar, 0.0));
  PetscCall(FGParamsCreate(&s->layout, &sw->bar));
  PetscCall(FGParamsCreateFaceMasks(&sw->bar, s->bodies, sw->dim));
  if (out)
    for (PetscInt a = 0; a < sw->dim; a++) {
      sw->bar.chibar[a] = out->chibar[a];
      sw->bar.sens[a]   = out->sens[a];
      if (sw->bar.chibar[a]) PetscCall(VecSet(sw->bar.chibar[a], 0.0));
      if (sw->bar.sens[a]) PetscCall(VecSet(sw->bar.sens[a], 0.0));
    }
  PetscCall(FGDesignGetScalars(d, p, &sw->ns, &sv));
  if (out && out->gradient_time && sw->ns) {
    PetscCall(PetscCalloc1(sw->N * sw->ns, &sw->gtime));
    PetscCall(PetscCalloc1(s->layout.n, &sw->snap));
    PetscCall(PetscCalloc1(sw->ns, &sw->gs));
    PetscCall(FGParamsCreate(&s->layout, &sw->dstep));
  }

  /* the design, and where to start */
  PetscCall(FGDesignApply(d, p));
  PetscCall(FGObjectiveReset(o));
  PetscCall(FGSweepHash_Internal(sw));
  {
    PetscBool ok;
    char      msg[PETSC_MAX_PATH_LEN + 128];
    PetscCall(FGIOMakeDirectory(s->comm, sw->dir, msg, sizeof(msg), &ok));
    PetscCheck(ok, s->comm, FG_ERR_IO_WRITE, "%s", msg);
  }
  if (out && out->resume) {
    PetscBool have = PETSC_FALSE;
    PetscCall(PetscTestFile(sw->resume_path, 'r', &have));
    PetscCallMPI(MPI_Bcast(&have, 1, MPIU_BOOL, 0, s->comm));
    if (have) {
      PetscCall(FGSweepReadResume_Internal(sw));
      resumed = PETSC_TRUE;
      PetscCall(PetscPrintf(s->comm, "adjoint: resuming the reverse sweep at step %" PetscInt_FMT " from %s\n", sw->position, sw->resume_path));
    } else {
      PetscCall(FGSweepListStates_Internal(sw, &files, &nfiles));
      if (nfiles) {
        start = files[nfiles - 1];
        PetscCall(FGSweepReadState_Internal(sw, start, PETSC_TRUE));
        sw->frontier = start;
        PetscCall(PetscPrintf(s->comm, "adjoint: resuming the forward run at step %" PetscInt_FMT " from %s\n", start, sw->dir));
      } else {
        PetscCheck(!out->resume_required, s->comm, FG_ERR_INPUT, "--resume: nothing to resume from in %s/adjoint (no resume.h5, no state in checkpoints/); run without --resume to start from t = 0", s->c->output.dir);
        PetscCall(PetscPrintf(s->comm, "adjoint: nothing to resume in %s/adjoint: starting from t = 0\n", s->c->output.dir));
      }
      PetscCall(PetscFree(files));
    }
  }
  if (!(out && out->resume) || (!resumed && !start)) PetscCall(FGSweepClean_Internal(sw));
  if (!start && !resumed) PetscCall(FGDesignSetInitialState(d, p));
  if (!resumed) sw->position = sw->N;

  /* the segment boundaries: 0, the state files there are, then every segment-th step */
  PetscCall(FGSweepListStates_Internal(sw, &files, &nfiles));
  PetscCall(PetscMalloc1(nfiles + sw->N / sw->sc.segment + 2, &sw->bound));
  sw->bound[sw->nbound++] = 0;
  for (PetscInt i = 0; i < nfiles; i++)
    if (files[i] < sw->N) sw->bound[sw->nbound++] = files[i];
  if (!resumed) /* the forward run writes these (a resumed reverse sweep has what it wrote) */
    for (PetscInt b = sw->sc.segment; b < sw->N; b += sw->sc.segment)
      if (b > sw->bound[sw->nbound - 1]) sw->bound[sw->nbound++] = b;
  PetscCall(PetscFree(files));

  /* the forward run up to the last boundary, writing the states there */
  if (!resumed) {
    const PetscInt last = sw->bound[sw->nbound - 1];
    while (s->step < last) {
      PetscCall(FGSweepAdvance_Private(sw, NULL));
      for (PetscInt i = 1; i < sw->nbound; i++)
        if (sw->bound[i] == s->step) PetscCall(FGSweepWriteState_Internal(sw));
    }
    PetscCall(FGSweepSegment_Private(sw, last, sw->N)); /* the forward run's end is its first pass */
    if (sw->nbound > 1 && sw->resumable) PetscCall(FGSweepWriteResume_Internal(sw));
  }
  /* the segments before, last to first */
  for (PetscInt i = sw->nbound - (resumed ? 1 : 2); i >= 0; i--) {
    const PetscInt lo = sw->bound[i], hi = PetscMin(i + 1 < sw->nbound ? sw->bound[i + 1] : sw->N, sw->position);
    if (lo >= sw->position) continue;
    if (!sw->finished) { /* resumed: J from the record */
      PetscCall(FGObjectiveFinish(o, p, &sw->J));
      sw->finished = PETSC_TRUE;
    }
    PetscCall(FGSweepLoad_Private(sw, lo));
    PetscCall(FGSweepSegment_Private(sw, lo, hi));
    if (lo > 0 && sw->resumable) PetscCall(FGSweepWriteResume_Internal(sw));
  }
  if (!sw->finished) {
    PetscCall(FGObjectiveFinish(o, p, &sw->J));
    sw->finished = PETSC_TRUE;
  }
  PetscCheck(sw->position == 0, s->comm, PETSC_ERR_PLIB, "the reverse sweep ended at step %" PetscInt_FMT, sw->position);
  *J = sw->J;

  PetscCall(FGParamsReduce(s->comm, &sw->bar));
  PetscCall(FGDesignGradient(d, &sw->bar, sw->ubar, g));
  PetscCall(FGObjectiveAdjointDesign(o, p, g));
  {
    PetscReal gn;
    PetscCall(VecNorm(g, NORM_2, &gn));
    PetscCheck(!PetscIsInfOrNanReal(gn), s->comm, FG_ERR_NUMERIC, "the gradient is not finite (|g| = %g): the adjoint blew up", (double)gn);
  }
  if (sw->every) {
    PetscLogDouble now;
    PetscCall(PetscTime(&now));
    PetscCall(PetscPrintf(s->comm, "adjoint: done: %" PetscInt_FMT " adjoint steps, %" PetscInt64_FMT " recomputed steps (planned %" PetscInt64_FMT "%s) (%.1f s)\n", sw->adjoint_steps, sw->recomputed, sw->sc.recomputed, (resumed || start) ? " for a run from the start" : "", (double)(now - sw->tstart)));
  }
  if (out) {
    for (PetscInt a = 0; a < sw->dim; a++)
      if (out->ubar0[a]) PetscCall(VecCopy(sw->ubar[a], out->ubar0[a]));
    if (out->pbar0) PetscCall(VecCopy(sw->pbar, out->pbar0));
    out->recomputed = sw->recomputed;
    out->planned    = sw->sc.recomputed;
    out->gtime_n    = sw->gtime ? sw->N : 0;
    out->gtime      = sw->gtime; /* the caller's now */
    sw->gtime       = NULL;
  }
  PetscCall(FGSweepClean_Internal(sw));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Everything a sweep holds, after its run or a failure anywhere in it (the caller may go on:
   flowgrad optimize after a trial design's flow blew up, src/optim/evaluate.c). */
static PetscErrorCode FGSweepDestroy_Private(FGSweep *sw)
{
  PetscFunctionBeginUser;
  if (sw->s) PetscCall(FGBodiesSetPlacementCapacity(sw->s->bodies, 0));

  for (PetscInt a = 0; a < 3; a++) sw->bar.chibar[a] = sw->bar.sens[a] = NULL; /* the caller's */
  PetscCall(FGParamsDestroy(&sw->bar));
  for (PetscInt a = 0; a < 3; a++) PetscCall(VecDestroy(&sw->ubar[a]));
  PetscCall(VecDestroy(&sw->pbar));
  for (PetscInt i = 0; i < sw->ntape; i++) PetscCall(FGStepTapeDestroy(&sw->tape[i]));
  PetscCall(PetscFree(sw->tape));
  PetscCall(FGStepTapeDestroy(&sw->work));
  for (PetscInt i = 0; i < sw->nslot; i++) {
    for (PetscInt a = 0; a < 3; a++) PetscCall(VecDestroy(&sw->slot[i].u[a]));
    PetscCall(VecDestroy(&sw->slot[i].p));
  }
  PetscCall(PetscFree(sw->slot));
  PetscCall(PetscFree(sw->bound));
  if (sw->snap) {
    PetscCall(PetscFree(sw->gtime));
    PetscCall(PetscFree(sw->snap));
    PetscCall(PetscFree(sw->gs));
    PetscCall(FGParamsDestroy(&sw->dstep));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGAdjointCompute - J(p) and g = dJ/dp (a Vec of the design's layout), and optionally the
  gradient fields and the run options (out). Collective.
@*/
PetscErrorCode FGAdjointCompute(FGSolver s, FGDesign d, FGObjective o, Vec p, PetscReal *J, Vec g, FGAdjointOutput *out)
{
  FGSweep        sw;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  if (s->c->adjoint.mode == FG_ADJOINT_STEADY) {
    PetscCall(FGAdjointComputeSteady(s, d, o, p, J, g, out));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMemzero(&sw, sizeof(sw)));
  ierr = FGSweepRun_Private(&sw, s, d, o, p, J, g, out);
  PetscCall(FGSweepDestroy_Private(&sw));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
