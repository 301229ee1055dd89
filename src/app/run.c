/*
  flowgrad run: the forward simulation.

    1. resume (--resume, or SLURM_RESTART_COUNT > 0): find the newest checkpoint
       in <output.dir>/checkpoints, check it against the case and load it, before anything in
       output.dir is touched (a refused checkpoint leaves the directory as it was)
    2. case.resolved.yaml; history.csv: new, or (resumed) cut after the checkpoint's step and
       appended to
    3. initial condition, or the checkpoint's state
    4. time loop, per step:
         RK3 step (with bodies, the control-volume check of its forces around it: history.csv)
         every monitor_every steps: CFL, max|div u|, kinetic energy -> stdout (rank 0) and
           history.csv; NaN or CFL over time.cfl_max stops the run (exit 3)
         every fields_every steps: fields/fields_NNNNNN.h5
         one MPI_Allreduce: did any rank get SIGUSR1/SIGTERM?
         every checkpoint_every steps, or on a stop request: health check (as the monitor's),
           then checkpoints/checkpoint_NNNNNN.h5; a stop request then ends the run with
           FG_ERR_SIGNAL on every rank (exit 75: requeue, rerun with --resume)
    5. at the end: fields and a checkpoint

  Test hooks (marked TEST ONLY in -help): -fg_test_raise_signal_at_step N
  [-fg_test_raise_signal_rank R] [-fg_test_raise_signal USR1|TERM] make rank R (default: the
  last) raise the signal in itself after step N, so that a test can stop a run at a known step and
  see the ranks agree.
*/
#include "appimpl.h"
#include <fg/step.h>
#include <fg/io.h>
#include <fg/iofile.h>
#include <fg/table.h>
#include <fg/checkpoint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  FGTable        history; /* history.csv, streamed */
  PetscReal     *row;     /* its current row */
  PetscLogDouble t0;
  PetscInt       step0;   /* the step this process started from (0, or the checkpoint's) */
  Vec            uc[3];   /* cell-centred velocity for output */
  FGDtHistory    dts;     /* dt of every step since t = 0 (checkpoints carry it) */
  FGCheckpointRun ckpt;   /* what the checkpoints belong to */
  FGRunOptions   opt;     /* test hooks */
  char           last[FG_CHECKPOINT_PATH_LEN]; /* the newest checkpoint written or resumed from */
  PetscInt       nbodies, nprobe; /* bodies; probe values per row */
  PetscReal     *probe;   /* the probe values of the current row */
  /* lift signal of each body (rank 0, since this process started), for the Strouhal number */
  PetscInt       nsig, capsig;
  PetscReal     *sigt, *sigcl; /* times; lift coefficients [body][sample] */
  PetscReal      st[FG_CASE_MAX_BODIES];
} FGRunContext;

static PetscErrorCode FGRunWriteFields_Private(FGSolver s, FGRunContext *ctx)
{
  const FGCase *c = s->c;
  char          path[PETSC_MAX_PATH_LEN];
  FGIOField      f[10];
  FGIOVector     v[FG_CASE_MAX_BODIES];
  FGBodiesOutput bo = {0};
  PetscInt       nf = 0, nv = 0;
  FGIOMeta      meta = {0};
  const FGBox  *bx = &s->grid->box;

  PetscFunctionBeginUser;
  /* cell-centred velocity: uc_a(c) = (u_a(c) + u_a(c - e_a)) / 2 */
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    const PetscScalar *ul;
    PetscScalar       *uc;
    PetscCall(VecGetArrayRead(s->ul[a], &ul));
    PetscCall(VecGetArray(ctx->uc[a], &uc));
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
        for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
          PetscInt cc = FGBoxIndex(bx, i, j, k);
          uc[FGBoxOwnedIndex(bx, i, j, k)] = 0.5 * (ul[cc] + ul[cc - bx->s[a]]);
        }
    PetscCall(VecRestoreArray(ctx->uc[a], &uc));
    PetscCall(VecRestoreArrayRead(s->ul[a], &ul));
  }
  PetscCall(FGIOAddState(s->grid, PETSC_FALSE, s->u, s->p, f, &nf));
  { /* one cell-centred vector (w = 0 in 2D): ParaView's Glyph, Stream Tracer and |U| take it as is */
    FGIOField vel = {.name = "velocity", .location = FG_LOC_CELL, .ncomp = s->grid->dim};
    for (PetscInt a = 0; a < s->grid->dim; a++) vel.comp[a] = ctx->uc[a];
    f[nf++] = vel;
  }
  if (ctx->nbodies) PetscCall(FGBodiesOutputAdd(s->bodies, s->t, s->p, &bo, f, &nf, v, &nv));
  meta.time      = s->t;
  meta.step      = s->step;
  meta.case_hash = c->hash;
  meta.case_name = c->name;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/fields/fields_%06" PetscInt_FMT ".h5", c->output.dir, s->step));
  meta.nvectors  = nv;
  meta.vectors   = v;
  PetscCall(FGIOWriteFields(s->grid, path, &meta, nf, f));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/fields", c->output.dir));
  PetscCall(FGIOWriteXDMFSeries(s->comm, path, "fields_", "fields")); /* fields/fields.xmf: the run in time */
  PetscCall(FGBodiesOutputDestroy(&bo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Blow-up (NaN, CFL over time.cfl_max): exit 3, naming the last good checkpoint. */
static PetscErrorCode FGRunCheckHealth_Private(FGSolver s, FGRunContext *ctx)
{
  const FGCase *c = s->c;
  char          last[FG_CHECKPOINT_PATH_LEN + 64] = "";

  PetscFunctionBeginUser;
  if (ctx->last[0]) PetscCall(PetscSNPrintf(last, sizeof(last), "; the last checkpoint, %s, is intact", ctx->last));
  /* the values are reduced, so every rank takes the same branch */
  PetscCheck(!PetscIsInfOrNanReal(s->ke) && !PetscIsInfOrNanReal(s->cfl), s->comm, FG_ERR_NUMERIC, "the solution blew up (NaN) at step %" PetscInt_FMT ", t = %g; reduce time.dt (now %g)%s", s->step, (double)s->t, (double)s->dt, last);
  PetscCheck(s->cfl <= c->time.cfl_max, s->comm, FG_ERR_NUMERIC, "CFL number %.3g exceeds time.cfl_max = %g at step %" PetscInt_FMT ", t = %g; reduce time.dt (now %g)%s", (double)s->cfl, (double)c->time.cfl_max, s->step, (double)s->t, (double)s->dt, last);
  /* the projection leaves max|div u| at round-off (fftw) or at the Krylov tolerance (ksp); far
     above that, mass is not conserved: boundary fluxes that do not balance (e.g. a time-modulated
     inflow with no outflow face) */
  {
    PetscReal tol = 1e-8;
    if (c->poisson.type == FG_POISSON_KSP) {
      KSP       ksp;
      PetscReal rtol;
      PetscCall(FGPoissonGetKSP(s->poisson, &ksp));
      PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL)); /* -poisson_ksp_rtol included */
      tol = PetscMax(tol, 1e3 * rtol);
    }
    /* relative to the field's own size: a state far from u_ref (a blow-up under way) has its
       round-off divergence at its own scale, and is caught by the NaN/CFL checks instead */
    PetscCheck(s->maxdiv * c->flow.u_ref / PetscMax(c->flow.u_ref, s->umax) <= tol, s->comm, FG_ERR_NUMERIC, "the velocity is not divergence free at step %" PetscInt_FMT ", t = %g: max|div u| h/u_ref = %.3g > %.1g; the boundary fluxes do not balance (an inflow with no outflow face?)%s", s->step, (double)s->t, (double)s->maxdiv, (double)tol, last);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The lift signal of each body (rank 0), and its Strouhal number St = f ref_length / ref_speed,
   f from the upward crossings of the mean over the second half of the signal (0: not yet). */
static PetscErrorCode FGRunStrouhal_Private(FGSolver s, FGRunContext *ctx, PetscBool update)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  if (rank != 0 || !ctx->nbodies) PetscFunctionReturn(PETSC_SUCCESS);
  if (ctx->nsig == ctx->capsig) {
    PetscReal *t, *cl;
    PetscInt   cap = PetscMax(1024, 2 * ctx->capsig);
    PetscCall(PetscMalloc2(cap, &t, cap * ctx->nbodies, &cl));
    for (PetscInt i = 0; i < ctx->nsig; i++) t[i] = ctx->sigt[i];
    for (PetscInt b = 0; b < ctx->nbodies; b++)
      for (PetscInt i = 0; i < ctx->nsig; i++) cl[b * cap + i] = ctx->sigcl[b * ctx->capsig + i];
    PetscCall(PetscFree2(ctx->sigt, ctx->sigcl));
    ctx->sigt = t, ctx->sigcl = cl, ctx->capsig = cap;
  }
  ctx->sigt[ctx->nsig] = s->t;
  for (PetscInt b = 0; b < ctx->nbodies; b++) {
    FGBodyForces f;
    PetscCall(FGBodiesGetForces(s->bodies, b, &f));
    ctx->sigcl[b * ctx->capsig + ctx->nsig] = f.coeff[1];
  }
  ctx->nsig++;
  if (!update) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt b = 0; b < ctx->nbodies; b++) {
    PetscReal f;
    PetscCall(FGSignalFrequency(ctx->nsig, ctx->sigt, ctx->sigcl + b * ctx->capsig, &f));
    ctx->st[b] = f * s->c->body[b].ref_length / s->c->body[b].ref_speed;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The monitor line (when print), a history.csv row (when log), then the health check (blow-up:
   exit 3). */
static PetscErrorCode FGRunMonitor_Private(FGSolver s, FGRunContext *ctx, PetscBool log, PetscBool print)
{
  const FGCase  *c = s->c;
  PetscLogDouble now, eta;
  PetscMPIInt    rank;

  PetscFunctionBeginUser;
  PetscCall(FGSolverMonitorCompute(s));
  PetscCall(FGProbesEvaluate(s, ctx->probe));
  PetscCall(FGRunStrouhal_Private(s, ctx, print));
  PetscCall(PetscTime(&now));
  eta = s->step > ctx->step0 ? (now - ctx->t0) / (double)(s->step - ctx->step0) * (double)(c->time.steps - s->step) : 0.0;
  if (print) {
    char bodies[512] = "";
    for (PetscInt b = 0; b < ctx->nbodies; b++) {
      FGBodyForces f;
      size_t       n = strlen(bodies);
      PetscCall(FGBodiesGetForces(s->bodies, b, &f));
      snprintf(bodies + n, sizeof(bodies) - n, "  %s: Cd %.4f Cl %+.4f", c->body[b].name, (double)f.coeff[0], (double)f.coeff[1]);
    }
    PetscCall(PetscPrintf(s->comm, "step %6" PetscInt_FMT "/%" PetscInt_FMT "  t %.6e  dt %.3e  CFL %.3f  max|div u| %.2e  KE %.6e%s  ETA %.0f s\n", s->step, c->time.steps, (double)s->t, (double)s->dt, (double)s->cfl, (double)s->maxdiv, (double)s->ke, bodies, eta));
  }
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  if (log && rank == 0 && ctx->history) { /* the columns of FGRunHistoryTable_Private */
    const PetscInt dim = s->grid->dim;
    PetscReal     *r   = ctx->row;
    *r++ = (PetscReal)s->step, *r++ = s->t, *r++ = s->dt, *r++ = s->cfl, *r++ = s->maxdiv, *r++ = s->ke, *r++ = (PetscReal)(now - ctx->t0);
    for (PetscInt b = 0; b < ctx->nbodies; b++) {
      FGBodyForces f;
      PetscCall(FGBodiesGetForces(s->bodies, b, &f));
      for (PetscInt d = 0; d < dim; d++) *r++ = f.force[d];
      for (PetscInt d = dim == 3 ? 0 : 2; d < 3; d++) *r++ = f.moment[d];
      for (PetscInt d = 0; d < dim; d++) *r++ = f.coeff[d];
      *r++ = f.cm;
      for (PetscInt d = 0; d < dim; d++) *r++ = f.cv_force[d];
      *r++ = ctx->st[b];
    }
    for (PetscInt i = 0; i < ctx->nprobe; i++) *r++ = ctx->probe[i];
    PetscCall(FGTableStreamRow(ctx->history, NULL, ctx->row));
  }
  PetscCall(FGRunCheckHealth_Private(s, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The columns of history.csv (docs/output.md, "history.csv"); FGRunMonitor_Private fills them. */
static PetscErrorCode FGRunHistoryTable_Private(MPI_Comm comm, const FGCase *c, FGTable *t)
{
  const PetscInt dim = c->grid.dim;
  const char    *xyz = "xyz";
  char           nm[FG_CASE_NAME_LEN + 16];

  PetscFunctionBeginUser;
  PetscCall(FGTableCreate(comm, t));
  PetscCall(FGTableAddColumn(*t, "step", FG_TABLE_INT));
  for (PetscInt i = 0; i < 5; i++) PetscCall(FGTableAddColumn(*t, (const char *[]){"time", "dt", "cfl", "max_div", "kinetic_energy"}[i], "%.17g"));
  PetscCall(FGTableAddColumn(*t, "wall_time", "%.6f"));
#define FG_ADD(fmt, ...) (snprintf(nm, sizeof(nm), __VA_ARGS__), FGTableAddColumn(*t, nm, fmt))
  for (PetscInt b = 0; b < c->nbodies; b++) {
    const char *bn = c->body[b].name;
    for (PetscInt d = 0; d < dim; d++) PetscCall(FG_ADD("%.17g", "%s_f%c", bn, xyz[d]));
    for (PetscInt d = dim == 3 ? 0 : 2; d < 3; d++) PetscCall(FG_ADD("%.17g", "%s_m%c", bn, xyz[d]));
    for (PetscInt d = 0; d < dim; d++) PetscCall(FG_ADD("%.17g", "%s_%s", bn, (const char *[]){"cd", "cl", "cz"}[d]));
    PetscCall(FG_ADD("%.17g", "%s_cm", bn));
    for (PetscInt d = 0; d < dim; d++) PetscCall(FG_ADD("%.17g", "%s_cv_f%c", bn, xyz[d]));
    PetscCall(FG_ADD("%.8g", "%s_st", bn));
  }
  for (PetscInt q = 0; q < c->nprobes; q++) {
    const char *pn = c->probe[q].name;
    for (PetscInt d = 0; d < dim; d++) PetscCall(FG_ADD("%.17g", "%s_%c", pn, "uvw"[d]));
    PetscCall(FG_ADD("%.17g", "%s_p", pn));
    if (c->probe[q].has_reference) PetscCall(FG_ADD("%.17g", "%s_dp", pn));
  }
#undef FG_ADD
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A checkpoint of the current state; `checked`: the monitor has just checked this state. */
static PetscErrorCode FGRunCheckpoint_Private(FGSolver s, FGRunContext *ctx, PetscBool checked, char *path, size_t len)
{
  PetscLogDouble a, b;

  PetscFunctionBeginUser;
  if (!checked) { /* never a checkpoint of a blown-up state */
    PetscCall(FGSolverMonitorCompute(s));
    PetscCall(FGRunCheckHealth_Private(s, ctx));
  }
  PetscCall(PetscTime(&a));
  PetscCall(FGCheckpointWrite(s->grid, &ctx->ckpt, s->u, s->p, s->t, s->step, &ctx->dts, path, len));
  PetscCall(PetscStrncpy(ctx->last, path, sizeof(ctx->last)));
  PetscCall(PetscTime(&b));
  PetscCall(PetscPrintf(s->comm, "flowgrad run: checkpoint at step %" PetscInt_FMT ", t = %.6e: %s (%.2f s)\n", s->step, (double)s->t, path, b - a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* history.csv: a new file (keep < 0), or the rows of the existing one up to step `keep`
   (a resumed run; rows after the checkpoint and a cut last line are dropped), then appended to.
   Rank 0 writes; the outcome is agreed on (FGTableStreamOpen). */
static PetscErrorCode FGRunOpenHistory_Private(MPI_Comm comm, const FGCase *c, PetscInt keep, FGRunContext *ctx)
{
  char     path[PETSC_MAX_PATH_LEN];
  PetscInt ncols;

  PetscFunctionBeginUser;
  PetscCall(FGRunHistoryTable_Private(comm, c, &ctx->history));
  PetscCall(FGTableGetSize(ctx->history, NULL, &ncols));
  PetscCall(PetscCalloc1(ncols, &ctx->row));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/history.csv", c->output.dir));
  PetscCall(FGTableStreamOpen(ctx->history, path, keep));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SLURM_RESTART_COUNT of the environment (rank 0's), 0 when unset or not a number. */
PetscErrorCode FGSlurmRestartCount(MPI_Comm comm, PetscInt *count)
{
  PetscMPIInt rank;
  long long   n = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    const char *v = getenv("SLURM_RESTART_COUNT");
    char       *end;
    if (v && *v) {
      n = strtoll(v, &end, 10);
      if (*end || n < 0) n = 0;
    }
  }
  PetscCallMPI(MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm));
  *count = (PetscInt)n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGRunGetOptions - `flowgrad run`'s options, in one PetscOptionsBegin block (so -help lists
  them): test hooks only. Collective.

  Options Database Keys:
+ -fg_test_raise_signal_at_step <n>   - TEST ONLY: after step n one rank raises a signal in itself
. -fg_test_raise_signal_rank <r>      - TEST ONLY: that rank (default: the last)
- -fg_test_raise_signal <USR1|TERM>   - TEST ONLY: that signal (default USR1)
@*/
PetscErrorCode FGRunGetOptions(MPI_Comm comm, FGRunOptions *o)
{
  static const char *const names[] = {"USR1", "TERM"};
  PetscMPIInt              size;
  PetscInt                 which = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  o->raise_step     = -1;
  o->resume_from[0] = '\0';
  o->raise_rank = size - 1;
  PetscBool set;
  PetscOptionsBegin(comm, NULL, "flowgrad run (test hooks)", NULL);
  PetscCall(PetscOptionsInt("-fg_test_raise_signal_at_step", "TEST ONLY: after step n (0: during the start; time.steps: after the final checkpoint) one rank raises a signal in itself (the ranks must agree to stop)", NULL, o->raise_step, &o->raise_step, &set));
  PetscCall(FGOptionsCheckValue("-fg_test_raise_signal_at_step", set)); /* given without a value: not silently unset */
  PetscCall(PetscOptionsInt("-fg_test_raise_signal_rank", "TEST ONLY: the rank that raises it (default: the last)", NULL, o->raise_rank, &o->raise_rank, &set));
  PetscCall(FGOptionsCheckValue("-fg_test_raise_signal_rank", set)); /* given without a value: not silently unset */
  PetscCall(PetscOptionsEList("-fg_test_raise_signal", "TEST ONLY: the signal raised", NULL, names, 2, names[which], &which, NULL));
  PetscCall(PetscOptionsString("-fg_resume_from", "resume from this checkpoint file (flowgrad run --resume-from FILE)", NULL, o->resume_from, o->resume_from, sizeof(o->resume_from), NULL));
  PetscOptionsEnd();
  PetscCheck(o->raise_step >= -1, comm, FG_ERR_INPUT, "-fg_test_raise_signal_at_step %" PetscInt_FMT ": must be >= -1 (-1: never)", o->raise_step);
  PetscCheck(o->raise_rank >= 0 && o->raise_rank < size, comm, FG_ERR_INPUT, "-fg_test_raise_signal_rank %" PetscInt_FMT ": must be a rank, 0 to %d", o->raise_rank, (int)size - 1);
  o->raise_signo = which == 1 ? SIGTERM : SIGUSR1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGRun - the forward simulation of a validated case. Collective.

  Input Parameters:
+ comm   - communicator
. c      - the validated case
- resume - continue from the newest checkpoint (`flowgrad run --resume`); resuming also happens
           when the environment has SLURM_RESTART_COUNT > 0, where no checkpoint means t = 0

  Options Database Keys:
. -fg_test_raise_signal_at_step <n> - test hook, see FGRunGetOptions()

  Notes:
  Exit codes through the error raised: 2 for a refused checkpoint or `--resume` without one,
  3 for a blow-up, 4 for a damaged checkpoint or an I/O failure, 75 when stopped by SIGUSR1 or
  SIGTERM (after writing a checkpoint).
@*/
PetscErrorCode FGRun(MPI_Comm comm, const FGCase *c, PetscBool resume)
{
  FGSolver         s;
  FGRunContext     ctx;
  FGCheckpointList list;
  PetscMPIInt      rank;
  PetscLogDouble   t1;
  PetscInt         ncells = 1, slurm = 0, nranks = 0;
  PetscBool        resumed = PETSC_FALSE, monitored, everystep, ok;
  int              signo = 0;
  char             path[PETSC_MAX_PATH_LEN], ckpt[FG_CHECKPOINT_PATH_LEN] = "", msg[PETSC_MAX_PATH_LEN + 128];

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&ctx, sizeof(ctx)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(FGSlurmRestartCount(comm, &slurm));
  PetscCall(FGRunGetOptions(comm, &ctx.opt));
  PetscCall(FGSignalInstall()); /* (main did; a request during the start waits for the first step) */
  if (ctx.opt.raise_step == 0 && rank == ctx.opt.raise_rank) PetscCall(FGSignalRaise(ctx.opt.raise_signo)); /* test hook: during the start */
  if (ctx.opt.resume_from[0]) { /* --resume-from FILE: a file the user named, checked before anything is made */
    char      why[PETSC_MAX_PATH_LEN + 160];
    PetscBool readable;
    PetscCall(FGIOCheckReadable(comm, ctx.opt.resume_from, why, sizeof(why), &readable));
    PetscCheck(readable, comm, FG_ERR_INPUT, "--resume-from: %s", why);
  }

  /* 1. the solver (its FFT plans kept as wisdom in output.dir, so a resumed run plans alike),
        and the checkpoint to resume from */
  {
    PetscBool set;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-fg_fftw_wisdom", &set));
    if (!set && c->poisson.type == FG_POISSON_FFTW) {
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/fftw.wisdom", c->output.dir));
      PetscCall(PetscOptionsSetValue(NULL, "-fg_fftw_wisdom", path));
    }
  }
  PetscCall(FGSolverCreate(comm, c, &s));
  PetscCall(FGAppWarnBodies_Internal(comm, c, s->bodies));
  if (!s->viscous && c->time.dt > FGViscousTimeStepLimit(s->grid, c->flow.nu))
    PetscCall(PetscPrintf(comm, "flowgrad run: warning: time.dt = %g exceeds the stability limit of the explicit viscous term, %.4g (RK3: dt nu sum_d 4/h_d^2 <= 2.51); expect a blow-up (exit 3), or set time.viscous: implicit\n", (double)c->time.dt, (double)FGViscousTimeStepLimit(s->grid, c->flow.nu)));
  { /* the checkpoints belong to this output directory and to the case's restart keys */
    char *keys;
    PetscCall(PetscMalloc1(sizeof(c->resolved), &keys));
    PetscCall(FGCaseRestartKeys(c, keys, sizeof(c->resolved), &ctx.ckpt.keys_hash));
    ctx.ckpt.keys      = keys;
    ctx.ckpt.dir       = c->output.dir;
    ctx.ckpt.keep      = c->output.checkpoint_keep;
    ctx.ckpt.case_hash = c->hash;
    ctx.ckpt.case_name = c->name;
  }
  PetscCall(FGCheckpointFind(comm, c->output.dir, &list));
  if (ctx.opt.resume_from[0]) { /* --resume-from FILE: that one, whatever is newer */
    PetscCall(PetscMemzero(&list, sizeof(list)));
    list.count = 1;
    PetscCall(PetscStrncpy(list.path, ctx.opt.resume_from, sizeof(list.path)));
  }
  if (resume || slurm > 0) {
    if (list.count == 0) {
      PetscCheck(!resume, comm, FG_ERR_INPUT, "--resume: no checkpoint in %s/checkpoints to resume from (run without --resume to start from t = 0)", c->output.dir);
      PetscCall(PetscPrintf(comm, "flowgrad run: SLURM_RESTART_COUNT = %" PetscInt_FMT ", but %s/checkpoints holds no checkpoint: starting from t = 0\n", slurm, c->output.dir));
    } else {
      PetscCall(FGCheckpointLoad(s->grid, &ctx.ckpt, &list, s->u, s->p, &s->t, &s->step, &ctx.dts, &nranks));
      PetscCall(PetscStrncpy(ctx.last, list.path, sizeof(ctx.last)));
      PetscCheck(s->step <= c->time.steps, comm, FG_ERR_INPUT, "checkpoint %s is at step %" PetscInt_FMT ", after time.steps = %" PetscInt_FMT "; to continue, raise it (--set time.steps=N)", list.path, s->step, c->time.steps);
      resumed = PETSC_TRUE;
    }
  } else if (list.count > 0) {
    PetscCall(PetscPrintf(comm, "flowgrad run: note: starting from t = 0; %s/checkpoints holds %" PetscInt_FMT " checkpoint(s) of an earlier run (newest: step %" PetscInt_FMT "), which this run's checkpoints replace (use --resume to continue from them)\n", c->output.dir, list.count, list.step));
  }

  /* 2. the output directory */
  PetscCall(FGCaseWriteResolved(comm, c));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/fields", c->output.dir));
  PetscCall(FGIOMakeDirectory(comm, path, msg, sizeof(msg), &ok));
  PetscCheck(ok, comm, FG_ERR_IO_WRITE, "%s", msg);
  PetscCall(FGRunOpenHistory_Private(comm, c, resumed ? s->step : -1, &ctx));

  for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(VecDuplicate(s->p, &ctx.uc[a]));
  PetscCall(FGBodiesGetCount(s->bodies, &ctx.nbodies));
  ctx.nprobe = FGProbesCount(c);
  PetscCall(PetscCalloc1(PetscMax(ctx.nprobe, 1), &ctx.probe));
  everystep = (PetscBool)(ctx.nbodies > 0 || c->nprobes > 0); /* forces and probes: a history row every step */
  for (PetscInt d = 0; d < s->grid->dim; d++) ncells *= s->grid->n[d];
  PetscCall(PetscPrintf(comm, "flowgrad run: case '%s', output in %s; dt %.6g, viscous term %s%s%s\n", c->name, c->output.dir, (double)c->time.dt, s->viscous ? "implicit (" : "explicit", s->viscous ? FGViscousDescription(FGViscousGetType(s->viscous)) : "", s->viscous ? ")" : ""));
  PetscCall(FGGridView(s->grid, PETSC_VIEWER_STDOUT_(comm)));

  /* 3. the start */
  if (resumed) {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(comm, &size));
    PetscCall(PetscPrintf(comm, "flowgrad run: resuming from %s: step %" PetscInt_FMT ", t = %.17g (written on %" PetscInt_FMT " ranks, now %d)%s\n", list.path, s->step, (double)s->t, nranks, (int)size, resume ? "" : " (SLURM_RESTART_COUNT > 0)"));
  } else PetscCall(FGSolverSetInitialCondition(s));
  ctx.step0 = s->step;
  PetscCall(PetscTime(&ctx.t0));
  PetscCall(FGRunMonitor_Private(s, &ctx, (PetscBool)!resumed, PETSC_TRUE)); /* also checks the start state */
  if (resumed && s->step == c->time.steps) PetscCall(PetscPrintf(comm, "flowgrad run: the checkpoint is at time.steps = %" PetscInt_FMT ": no step to take\n", c->time.steps));

  /* 4. the time loop */
  while (s->step < c->time.steps) {
    if (ctx.nbodies) PetscCall(FGSolverControlVolumeBegin(s));
    PetscCall(FGStepForward_RK3(s, NULL));
    if (ctx.nbodies) PetscCall(FGSolverControlVolumeEnd(s));
    PetscCall(FGDtHistoryPush(&ctx.dts, s->dt));
    monitored = (PetscBool)(s->step % c->output.monitor_every == 0 || s->step == c->time.steps);
    if (monitored || everystep) PetscCall(FGRunMonitor_Private(s, &ctx, PETSC_TRUE, monitored));
    monitored = (PetscBool)(monitored || everystep);
    if (s->step == c->time.steps) break; /* the end: fields and checkpoint below */
    if (c->output.fields_every > 0 && s->step % c->output.fields_every == 0) PetscCall(FGRunWriteFields_Private(s, &ctx));
    if (s->step == ctx.opt.raise_step && rank == ctx.opt.raise_rank) PetscCall(FGSignalRaise(ctx.opt.raise_signo));
    PetscCall(FGSignalAgree(comm, &signo)); /* one Allreduce: every rank stops at the same step */
    if (signo) PetscCall(PetscPrintf(comm, "flowgrad run: %s received: checkpoint at step %" PetscInt_FMT ", then stop\n", FGSignalName(signo), s->step));
    if (signo || (c->output.checkpoint_every > 0 && s->step % c->output.checkpoint_every == 0)) PetscCall(FGRunCheckpoint_Private(s, &ctx, monitored, ckpt, sizeof(ckpt)));
    if (signo) break;
  }

  /* 5. the end */
  if (!signo) {
    PetscCall(FGRunWriteFields_Private(s, &ctx));
    if (s->step > ctx.step0 || !resumed) PetscCall(FGRunCheckpoint_Private(s, &ctx, PETSC_TRUE, ckpt, sizeof(ckpt))); /* the monitor checked the last step */
    if (s->step == ctx.opt.raise_step && rank == ctx.opt.raise_rank) PetscCall(FGSignalRaise(ctx.opt.raise_signo)); /* test hook: after the final checkpoint (ignored) */
    PetscCall(PetscTime(&t1));
    PetscCall(PetscPrintf(comm, "flowgrad run: %" PetscInt_FMT " steps in %.2f s, %.3g cell-steps/s\n", s->step - ctx.step0, t1 - ctx.t0, (double)ncells * (double)(s->step - ctx.step0) / PetscMax(t1 - ctx.t0, 1e-9)));
  }

  {
    const PetscInt  step = s->step;
    const PetscReal t    = s->t;
    PetscCall(FGTableDestroy(&ctx.history));
    PetscCall(PetscFree(ctx.row));
    for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(VecDestroy(&ctx.uc[a]));
    PetscCall(PetscFree(ctx.probe));
    PetscCall(PetscFree2(ctx.sigt, ctx.sigcl));
    PetscCall(FGDtHistoryDestroy(&ctx.dts));
    PetscCall(PetscFree(ctx.ckpt.keys));
    PetscCall(FGSolverDestroy(&s)); /* the handlers stay to the process's exit: a late request is ignored */
    PetscCheck(!signo, comm, FG_ERR_SIGNAL, "stopped on %s at step %" PetscInt_FMT ", t = %.6g; checkpoint written to %s; rerun with --resume to continue (exit code 75: requeue)", FGSignalName(signo), step, (double)t, ckpt);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
