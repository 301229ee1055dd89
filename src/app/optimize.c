/*
  flowgrad optimize CASE [--resume]: PETSc TAO on the case's optimization problem
  (include/fg/optim.h): the forward run and adjoint of every point as the objective-and-gradient
  callback.

  Variables. TAO works on x = p / scale (design.scale per entry) and on f = J / |J_0| (J_0 the
  objective at the initial design), so its tolerances (optimizer.gatol, grtol) are relative and
  its first steps have a sensible size; bounds are design.lower/upper intersected with
  p_0 -/+ design.max_change. Constraint rows enter as h_i (include/fg/optim.h): TAO's ALMM
  (optimizer.type almm: equality rows h = 0, inequality rows h >= 0, Jacobians as dense rows on
  rank 0) or flowgrad's own augmented Lagrangian (penalty, below).

  penalty. An augmented-Lagrangian loop (Powell-Hestenes-Rockafellar) around TAO blmvm: each outer
  iteration minimizes, within the bounds,
      L(x) = f(x) + sum_eq (l_i h_i + mu/2 h_i^2) + sum_ineq (max(0, l_i - mu h_i)^2 - l_i^2) / (2 mu)
  (at most 10 inner iterations, -fg_penalty_inner_its), then updates l_i = l_i + mu h_i (eq),
  l_i = max(0, l_i - mu h_i) (ineq) and multiplies mu by 10 when the largest violation did not
  fall below a quarter of the previous one; mu starts at optimizer.penalty. It stops when the
  violation is within optimizer.constraint_tol and the inner solve converged, or after
  optimizer.max_iterations inner iterations in all.

  Output (output.dir):
    optimization.csv, optimization.h5   one row per iteration (iteration 0: the start): J, J/J_0,
                   TAO's gradient norm and step length, the largest constraint violation, the
                   evaluations and seconds so far, J per point, each constraint row's quantity and
                   every design scalar (rewritten atomically after every iteration)
    optimization/iter_NNNN.h5 (+ .xmf)  chi (the bodies' mask), dJ/dchi, the shape sensitivity,
                   density fields and their gradient, every optimizer.fields_every iterations, the
                   first and the last (FGProblemWriteFields)
    optimization/evaluations/eval_NNNNNN.h5  every evaluation: p, J, g, the rows and their
                   gradients, dJ/dchi (the log that --resume replays)
    optimization/result.csv             name, initial, final, lower, upper of every design scalar

  Restart. TAO is deterministic, so --resume (or a SLURM requeue) reruns TaoSolve from the
  initial design and answers each evaluation from the log while its design matches the logged one
  (to 1e-12 relative: the same run to round-off), then evaluates again: the run continues from its
  last evaluation and follows the same path as an uninterrupted one. A log of another case (hash
  of every key that changes the result) is refused (exit 2); a design that departs from the log
  ends the replay there (the rest of the log is removed).

  Signals. SIGUSR1/SIGTERM stop the run after the current evaluation (its log written; an unsteady
  adjoint sweep stops at its next step), exit 75; --resume continues.

  Test hooks: -fg_test_optimize_kill_at N kills every rank with SIGKILL right after the N-th
  evaluation of this run is logged; -fg_test_optimize_signal_at N sends every rank SIGUSR1 there
  (the run stops with exit 75).
*/
#include <fg/app.h>
#include <fg/optim.h>
#include <fg/io.h>
#include <fg/checkpoint.h>
#include <petsctao.h>
#include <hdf5.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <dirent.h>
#include <unistd.h>

#define FG_OPT_NCACHE 6

typedef struct {
  PetscInt  it, evals;
  PetscReal J, gnorm, step, viol, seconds;
} FGHistRow;

typedef struct {
  MPI_Comm         comm;
  FGCase          *c;
  FGProblem        P;
  FGDesign         d;
  PetscInt         ns, nrows, K;
  FGConstraintRow *rows;
  Vec              p0, scale, plo, phi, xlo, xhi, p; /* p: work */
  PetscReal        J0s;                              /* |J_0| (1 if 0) */
  unsigned long long hash;
  char             dir[PETSC_MAX_PATH_LEN], evdir[PETSC_MAX_PATH_LEN];
  /* evaluations */
  FGEval    cache[FG_OPT_NCACHE];
  Vec       cachep[FG_OPT_NCACHE];
  PetscBool cacheset[FG_OPT_NCACHE];
  PetscInt  cnext;
  PetscInt  nevals, nlog, nreal, kill_at, signal_at;
  PetscReal seconds; /* evaluation time so far (replayed ones as logged) */
  /* history */
  PetscInt   nhist, caphist;
  FGHistRow *hist;
  PetscReal *hq, *hp, *hJk; /* nrows, ns, K per row */
  PetscLogDouble t0;
  PetscInt   maxits;
  /* penalty */
  PetscBool  penalty;
  PetscReal  mu, lambda[FG_OPT_MAX_ROWS];
  PetscInt   itbase; /* penalty: iterations of the earlier inner solves */
  Tao        tao;
} FGOpt;

/* --- the evaluation log ------------------------------------------------------------------ */

/* The hash of every key that changes the optimization's result: the checkpoint restart keys (all
   but name, description, time.steps, time.cfl_max, poisson.*, output.*), time.steps, and not the
   adjoint's memory settings nor optimizer.max_iterations, max_evaluations, fields_every. */
static PetscErrorCode FGOptHash_Private(FGOpt *O)
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

static PetscErrorCode FGOptEvalPath_Private(FGOpt *O, PetscInt n, char *path, size_t len)
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, len, "%s/eval_%06" PetscInt_FMT ".h5", O->evdir, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Field block i of the design (nc = 0 for a scalar block): a grid Vec per component, where it
   lives, and its dataset name in the log, PREFIX_<block index>_<component>. */
static PetscErrorCode FGOptBlockVecs_Private(FGOpt *O, PetscInt i, const char *prefix, PetscInt *nc, Vec w[], FGLocation loc[], char names[][48])
{
  PetscInt             nblk;
  const FGDesignBlock *blk;
  FGSolver             s;

  PetscFunctionBeginUser;
  PetscCall(FGProblemGetSolver(O->P, 0, &s));
  PetscCall(FGDesignGetBlocks(O->d, &nblk, &blk));
  *nc = !blk[i].field ? 0 : blk[i].kind == FG_DESIGN_INITIAL ? s->grid->dim : 1;
  for (PetscInt a = 0; a < *nc; a++) {
    PetscCall(VecDuplicate(blk[i].kind == FG_DESIGN_DENSITY ? s->p : s->u[a], &w[a]));
    loc[a] = blk[i].kind == FG_DESIGN_DENSITY ? FG_LOC_CELL : (FGLocation)(FG_LOC_FACE_X + a);
    PetscCall(PetscSNPrintf(names[a], 48, "%s_%" PetscInt_FMT "_%" PetscInt_FMT, prefix, i, a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The field blocks of a design-layout Vec as fields of the log (the Vecs appended to tmp). */
static PetscErrorCode FGOptAddBlockFields_Private(FGOpt *O, const char *prefix, Vec v, FGIOField f[], PetscInt *nf, Vec tmp[], PetscInt *ntmp, char names[][48])
{
  PetscInt             nblk;
  const FGDesignBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(FGDesignGetBlocks(O->d, &nblk, &blk));
  for (PetscInt i = 0; i < nblk; i++) {
    PetscInt   nc;
    Vec        w[3];
    FGLocation loc[3];
    PetscCall(FGOptBlockVecs_Private(O, i, prefix, &nc, w, loc, names + *nf));
    if (!nc) continue;
    PetscCall(FGDesignBlockFields(O->d, i, v, w, PETSC_FALSE));
    for (PetscInt a = 0; a < nc; a++) {
      tmp[(*ntmp)++] = w[a];
      f[*nf].name     = names[*nf];
      f[*nf].location = loc[a];
      f[*nf].vec      = w[a];
      (*nf)++;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptReadBlockFields_Private(FGOpt *O, const char *path, const char *prefix, Vec v)
{
  PetscInt             nblk;
  const FGDesignBlock *blk;
  FGSolver             s;

  PetscFunctionBeginUser;
  PetscCall(FGProblemGetSolver(O->P, 0, &s));
  PetscCall(FGDesignGetBlocks(O->d, &nblk, &blk));
  for (PetscInt i = 0; i < nblk; i++) {
    PetscInt   nc;
    Vec        w[3];
    FGLocation loc[3];
    char       names[3][48];
    PetscCall(FGOptBlockVecs_Private(O, i, prefix, &nc, w, loc, names));
    if (!nc) continue;
    for (PetscInt a = 0; a < nc; a++) PetscCall(FGIOReadField(s->grid, path, names[a], w[a]));
    PetscCall(FGDesignBlockFields(O->d, i, v, w, PETSC_TRUE));
    for (PetscInt a = 0; a < nc; a++) PetscCall(VecDestroy(&w[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Scalars of a design-layout Vec into v (rank 0's values on every rank). */
static PetscErrorCode FGOptScalars_Private(FGOpt *O, Vec x, PetscReal v[])
{
  PetscInt   ns;
  PetscReal *a;

  PetscFunctionBeginUser;
  PetscCall(FGDesignGetScalars(O->d, x, &ns, &a));
  PetscCall(PetscArraycpy(v, a, ns));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptSetScalars_Private(FGOpt *O, const PetscReal v[], Vec x)
{
  PetscScalar *a;
  PetscMPIInt  rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(O->comm, &rank));
  PetscCall(VecGetArray(x, &a));
  if (!rank)
    for (PetscInt i = 0; i < O->ns; i++) a[i] = v[i];
  PetscCall(VecRestoreArray(x, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptLogWrite_Private(FGOpt *O, PetscInt n, Vec p, const FGEval *e, PetscReal seconds)
{
  FGSolver    s;
  FGIOField  *f;
  FGIOVector  vec[8 + FG_OPT_MAX_ROWS];
  FGIOMeta    meta = {0};
  PetscInt    nf = 0, nv = 0, ntmp = 0, nfmax;
  Vec        *tmp;
  char      (*names)[48], vnames[FG_OPT_MAX_ROWS][16], path[PETSC_MAX_PATH_LEN];
  PetscReal  *buf, head[4];
  const PetscInt ns = PetscMax(O->ns, 1);

  PetscFunctionBeginUser;
  PetscCall(FGProblemGetSolver(O->P, 0, &s));
  nfmax = 3 * (2 + O->nrows) * FG_CASE_MAX_DESIGN + 6; /* field components of p, g and each dq; chibar, sens */
  PetscCall(PetscMalloc3(nfmax, &f, nfmax, &tmp, nfmax, &names));
  PetscCall(PetscMalloc1((size_t)ns * (2 + O->nrows), &buf));
  head[0] = e->J, head[1] = e->gradient ? 1 : 0, head[2] = seconds, head[3] = (PetscReal)e->nterms;
  vec[nv++] = (FGIOVector){.name = "head", .n = 4, .values = head};
  vec[nv++] = (FGIOVector){.name = "Jk", .n = O->K, .values = e->Jk};
  vec[nv++] = (FGIOVector){.name = "terms", .n = e->nterms, .values = e->term};
  if (O->nrows) vec[nv++] = (FGIOVector){.name = "q", .n = O->nrows, .values = e->q};
  PetscCall(FGOptScalars_Private(O, p, buf));
  if (O->ns) vec[nv++] = (FGIOVector){.name = "p", .n = O->ns, .values = buf};
  PetscCall(FGOptAddBlockFields_Private(O, "p", p, f, &nf, tmp, &ntmp, names));
  if (e->gradient) {
    PetscCall(FGOptScalars_Private(O, e->g, buf + ns));
    if (O->ns) vec[nv++] = (FGIOVector){.name = "g", .n = O->ns, .values = buf + ns};
    PetscCall(FGOptAddBlockFields_Private(O, "g", e->g, f, &nf, tmp, &ntmp, names));
    for (PetscInt i = 0; i < O->nrows; i++) {
      char pre[16];
      PetscCall(PetscSNPrintf(vnames[i], sizeof(vnames[i]), "dq_%" PetscInt_FMT, i));
      PetscCall(FGOptScalars_Private(O, e->dq[i], buf + (2 + i) * ns));
      if (O->ns) vec[nv++] = (FGIOVector){.name = vnames[i], .n = O->ns, .values = buf + (2 + i) * ns};
      PetscCall(PetscSNPrintf(pre, sizeof(pre), "dq%" PetscInt_FMT, i));
      PetscCall(FGOptAddBlockFields_Private(O, pre, e->dq[i], f, &nf, tmp, &ntmp, names));
    }
    for (PetscInt a = 0; a < s->grid->dim; a++) {
      f[nf++] = (FGIOField){.name = (const char *[]){"chibar_x", "chibar_y", "chibar_z"}[a], .location = (FGLocation)(FG_LOC_FACE_X + a), .vec = e->chibar[a]};
      f[nf++] = (FGIOField){.name = (const char *[]){"sens_x", "sens_y", "sens_z"}[a], .location = (FGLocation)(FG_LOC_FACE_X + a), .vec = e->sens[a]};
    }
  }
  meta.step       = n;
  meta.case_hash  = O->hash;
  meta.case_name  = O->c->name;
  meta.nvectors   = nv;
  meta.vectors    = vec;
  meta.no_sidecar = PETSC_TRUE;
  PetscCall(FGOptEvalPath_Private(O, n, path, sizeof(path)));
  PetscCall(FGIOWriteFields(s->grid, path, &meta, nf, f));
  for (PetscInt i = 0; i < ntmp; i++) PetscCall(VecDestroy(&tmp[i]));
  PetscCall(PetscFree(buf));
  PetscCall(PetscFree3(f, tmp, names));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Read log entry n's design into p (and whether it has the gradient). */
static PetscErrorCode FGOptLogReadDesign_Private(FGOpt *O, PetscInt n, Vec p, PetscBool *gradient, PetscReal *seconds)
{
  char       path[PETSC_MAX_PATH_LEN], msg[256];
  FGIOMeta   meta;
  PetscReal *buf, head[4];

  PetscFunctionBeginUser;
  PetscCall(FGOptEvalPath_Private(O, n, path, sizeof(path)));
  PetscCall(FGIOReadMeta(O->comm, path, &meta, msg, sizeof(msg)));
  PetscCheck(meta.case_hash == O->hash, O->comm, FG_ERR_INPUT, "%s was written for another case (hash %016llx, this one %016llx): to start over, run `flowgrad optimize` without --resume (it removes the log), or remove %s (a requeued SLURM job always resumes)", path, meta.case_hash, O->hash, O->evdir);
  PetscCall(FGIOReadVector(O->comm, path, "head", 4, head));
  *gradient = (PetscBool)(head[1] != 0);
  *seconds  = head[2];
  PetscCall(PetscMalloc1(PetscMax(O->ns, 1), &buf));
  if (O->ns) PetscCall(FGIOReadVector(O->comm, path, "p", O->ns, buf));
  PetscCall(VecSet(p, 0.0));
  PetscCall(FGOptSetScalars_Private(O, buf, p));
  PetscCall(PetscFree(buf));
  PetscCall(FGOptReadBlockFields_Private(O, path, "p", p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptLogReadEval_Private(FGOpt *O, PetscInt n, FGEval *e)
{
  char       path[PETSC_MAX_PATH_LEN];
  PetscReal *buf, head[4];
  FGSolver   s;

  PetscFunctionBeginUser;
  PetscCall(FGProblemGetSolver(O->P, 0, &s));
  PetscCall(FGOptEvalPath_Private(O, n, path, sizeof(path)));
  PetscCall(FGIOReadVector(O->comm, path, "head", 4, head));
  e->J        = head[0];
  e->gradient = (PetscBool)(head[1] != 0);
  e->nterms   = (PetscInt)head[3];
  PetscCall(FGIOReadVector(O->comm, path, "Jk", O->K, e->Jk));
  if (e->nterms) PetscCall(FGIOReadVector(O->comm, path, "terms", e->nterms, e->term));
  if (O->nrows) PetscCall(FGIOReadVector(O->comm, path, "q", O->nrows, e->q));
  if (!e->gradient) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(PetscMax(O->ns, 1), &buf));
  if (O->ns) PetscCall(FGIOReadVector(O->comm, path, "g", O->ns, buf));
  PetscCall(VecSet(e->g, 0.0));
  PetscCall(FGOptSetScalars_Private(O, buf, e->g));
  PetscCall(FGOptReadBlockFields_Private(O, path, "g", e->g));
  for (PetscInt i = 0; i < O->nrows; i++) {
    char nm[16], pre[16];
    PetscCall(PetscSNPrintf(nm, sizeof(nm), "dq_%" PetscInt_FMT, i));
    PetscCall(PetscSNPrintf(pre, sizeof(pre), "dq%" PetscInt_FMT, i));
    if (O->ns) PetscCall(FGIOReadVector(O->comm, path, nm, O->ns, buf));
    PetscCall(VecSet(e->dq[i], 0.0));
    PetscCall(FGOptSetScalars_Private(O, buf, e->dq[i]));
    PetscCall(FGOptReadBlockFields_Private(O, path, pre, e->dq[i]));
  }
  PetscCall(PetscFree(buf));
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    PetscCall(FGIOReadField(s->grid, path, (const char *[]){"chibar_x", "chibar_y", "chibar_z"}[a], e->chibar[a]));
    PetscCall(FGIOReadField(s->grid, path, (const char *[]){"sens_x", "sens_y", "sens_z"}[a], e->sens[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Remove log entries from n on (rank 0); returns how many there were before n (the log's length
   when n = 0 and count = PETSC_TRUE). */
static PetscErrorCode FGOptLogScan_Private(FGOpt *O, PetscInt from, PetscBool remove, PetscInt *count)
{
  PetscMPIInt rank;
  PetscInt    n = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(O->comm, &rank));
  if (!rank) {
    char path[PETSC_MAX_PATH_LEN];
    for (;; n++) { /* the log is consecutive from 0 */
      PetscCall(FGOptEvalPath_Private(O, n, path, sizeof(path)));
      if (access(path, F_OK)) break;
    }
    if (remove) {
      DIR           *dir = opendir(O->evdir);
      struct dirent *de;
      while (dir && (de = readdir(dir))) {
        long k;
        char tail[8];
        if (sscanf(de->d_name, "eval_%ld.h5%7s", &k, tail) == 1 && k >= from) {
          PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", O->evdir, de->d_name));
          (void)unlink(path);
        } else if (strstr(de->d_name, ".tmp")) { /* an interrupted write */
          PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", O->evdir, de->d_name));
          (void)unlink(path);
        }
      }
      if (dir) closedir(dir);
    }
  }
  PetscCallMPI(MPI_Bcast(&n, 1, MPIU_INT, 0, O->comm));
  if (count) *count = PetscMin(n, from);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* --- evaluations ----------------------------------------------------------------------- */

static PetscErrorCode FGOptPrintEval_Private(FGOpt *O, const FGEval *e, const char *how, PetscReal seconds)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(O->comm, "  eval %4" PetscInt_FMT ": J = %.10e%s", O->nevals, (double)e->J, O->nrows ? "  constraints" : ""));
  for (PetscInt i = 0; i < O->nrows; i++) PetscCall(PetscPrintf(O->comm, " %s=%.6g", O->rows[i].name, (double)e->q[i]));
  PetscCall(PetscPrintf(O->comm, "  (%s%s, %.1f s)\n", e->gradient ? "J and gradient" : "J only", how, (double)seconds));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The evaluation at design p (gradient: with the gradient): from the cache, the log (replay) or
   computed and logged. */
static PetscErrorCode FGOptEvaluate_Private(FGOpt *O, Vec p, PetscBool gradient, FGEval **out)
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
    PetscCall(FGOptLogReadDesign_Private(O, O->nevals, O->cachep[slot], &lg, &sec));
    PetscCall(VecAXPY(O->cachep[slot], -1.0, p)); /* the difference in x = p/scale, entry by entry */
    PetscCall(VecPointwiseDivide(O->cachep[slot], O->cachep[slot], O->scale));
    PetscCall(VecNorm(O->cachep[slot], NORM_INFINITY, &d));
    PetscCall(VecPointwiseDivide(O->cachep[slot], p, O->scale));
    PetscCall(VecNorm(O->cachep[slot], NORM_INFINITY, &nrm));
    if (d <= 1e-12 * PetscMax(nrm, 1.0) && (lg || !gradient)) {
      PetscCall(FGOptLogReadEval_Private(O, O->nevals, &O->cache[slot]));
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
    PetscCall(FGOptLogScan_Private(O, O->nevals, PETSC_TRUE, NULL));
    O->nlog = O->nevals;
  }
  {
    PetscLogDouble w0, w1;
    int            sig = 0;
    PetscCall(PetscTime(&w0));
    PetscCall(FGProblemEvaluate(O->P, p, gradient, &O->cache[slot]));
    PetscCall(PetscTime(&w1));
    PetscCall(VecCopy(p, O->cachep[slot]));
    O->cacheset[slot] = PETSC_TRUE;
    PetscCall(FGOptLogWrite_Private(O, O->nevals, p, &O->cache[slot], (PetscReal)(w1 - w0)));
    O->seconds += (PetscReal)(w1 - w0);
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

static PetscErrorCode FGOptToDesign_Private(FGOpt *O, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(VecPointwiseMult(O->p, x, O->scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The augmented-Lagrangian terms of the penalty method at evaluation e: value, and with G the
   gradient in x added to G. */
static PetscErrorCode FGOptPenalty_Private(FGOpt *O, const FGEval *e, PetscReal *f, Vec G)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < O->nrows; i++) {
    const FGConstraintRow *r = &O->rows[i];
    const PetscReal        h = FGProblemRowNormalized(r, e->q[i]), l = O->lambda[i], mu = O->mu;
    PetscReal              dLdh;
    if (r->relation == FG_REL_EQ) {
      *f += l * h + 0.5 * mu * h * h;
      dLdh = l + mu * h;
    } else {
      const PetscReal m = PetscMax(0.0, l - mu * h);
      *f += (m * m - l * l) / (2 * mu);
      dLdh = -m;
    }
    if (G && dLdh != 0) { /* dh/dp = sign dq/dp / scale; dx = dp * scale */
      const PetscReal sg = r->relation == FG_REL_LE ? -1.0 : 1.0;
      PetscCall(VecPointwiseMult(O->p, e->dq[i], O->scale));
      PetscCall(VecAXPY(G, dLdh * sg / r->scale, O->p));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptObjGrad_Private(Tao tao, Vec x, PetscReal *f, Vec G, void *ctx)
{
  FGOpt  *O = (FGOpt *)ctx;
  FGEval *e;

  PetscFunctionBeginUser;
  PetscCall(FGOptToDesign_Private(O, x));
  PetscCall(FGOptEvaluate_Private(O, O->p, PETSC_TRUE, &e));
  *f = e->J / O->J0s;
  PetscCall(VecPointwiseMult(G, e->g, O->scale));
  PetscCall(VecScale(G, 1.0 / O->J0s));
  if (O->penalty) PetscCall(FGOptPenalty_Private(O, e, f, G));
  (void)tao;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptObj_Private(Tao tao, Vec x, PetscReal *f, void *ctx)
{
  FGOpt  *O = (FGOpt *)ctx;
  FGEval *e;

  PetscFunctionBeginUser;
  PetscCall(FGOptToDesign_Private(O, x));
  PetscCall(FGOptEvaluate_Private(O, O->p, PETSC_FALSE, &e));
  *f = e->J / O->J0s;
  if (O->penalty) PetscCall(FGOptPenalty_Private(O, e, f, NULL));
  (void)tao;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ALMM: the equality rows (eq = PETSC_TRUE) or the inequality rows as a Vec held by rank 0. */
static PetscErrorCode FGOptConstraints_Private(FGOpt *O, Vec x, Vec C, PetscBool eq)
{
  FGEval      *e;
  PetscScalar *a;
  PetscMPIInt  rank;
  PetscInt     m = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(O->comm, &rank));
  PetscCall(FGOptToDesign_Private(O, x));
  PetscCall(FGOptEvaluate_Private(O, O->p, PETSC_TRUE, &e));
  PetscCall(VecGetArray(C, &a));
  for (PetscInt i = 0; i < O->nrows; i++)
    if ((O->rows[i].relation == FG_REL_EQ) == eq) {
      if (!rank) a[m] = FGProblemRowNormalized(&O->rows[i], e->q[i]);
      m++;
    }
  PetscCall(VecRestoreArray(C, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptEq_Private(Tao tao, Vec x, Vec C, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(FGOptConstraints_Private((FGOpt *)ctx, x, C, PETSC_TRUE));
  (void)tao;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptIneq_Private(Tao tao, Vec x, Vec C, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(FGOptConstraints_Private((FGOpt *)ctx, x, C, PETSC_FALSE));
  (void)tao;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Jacobian of the equality or inequality rows: a dense matrix with every row on rank 0. */
static PetscErrorCode FGOptJacobian_Private(FGOpt *O, Vec x, Mat A, PetscBool eq)
{
  FGEval            *e;
  PetscInt           m = 0, N;
  PetscMPIInt        rank;
  VecScatter         sc;
  Vec                all;
  const PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(O->comm, &rank));
  PetscCall(FGOptToDesign_Private(O, x));
  PetscCall(FGOptEvaluate_Private(O, O->p, PETSC_TRUE, &e));
  PetscCall(VecGetSize(x, &N));
  PetscCall(VecScatterCreateToZero(x, &sc, &all));
  for (PetscInt i = 0; i < O->nrows; i++) {
    const FGConstraintRow *r = &O->rows[i];
    if ((r->relation == FG_REL_EQ) != eq) continue;
    PetscCall(VecPointwiseMult(O->p, e->dq[i], O->scale));
    PetscCall(VecScale(O->p, (r->relation == FG_REL_LE ? -1.0 : 1.0) / r->scale));
    PetscCall(VecScatterBegin(sc, O->p, all, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(sc, O->p, all, INSERT_VALUES, SCATTER_FORWARD));
    if (!rank) {
      PetscCall(VecGetArrayRead(all, &a));
      for (PetscInt j = 0; j < N; j++) PetscCall(MatSetValue(A, m, j, a[j], INSERT_VALUES));
      PetscCall(VecRestoreArrayRead(all, &a));
    }
    m++;
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptJacEq_Private(Tao tao, Vec x, Mat A, Mat B, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(FGOptJacobian_Private((FGOpt *)ctx, x, A, PETSC_TRUE));
  (void)tao, (void)B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptJacIneq_Private(Tao tao, Vec x, Mat A, Mat B, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(FGOptJacobian_Private((FGOpt *)ctx, x, A, PETSC_FALSE));
  (void)tao, (void)B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* --- history ----------------------------------------------------------------------------- */

static PetscReal FGOptViolation_Private(FGOpt *O, const FGEval *e)
{
  PetscReal v = 0;
  for (PetscInt i = 0; i < O->nrows; i++) v = PetscMax(v, FGProblemRowViolation(&O->rows[i], e->q[i]));
  return v;
}

static PetscErrorCode FGOptWriteCSV_Private(FGOpt *O)
{
  PetscMPIInt rank;
  char        path[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN + 8], msg[PETSC_MAX_PATH_LEN + 128] = "";
  const char *const *pnames;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(O->comm, &rank));
  PetscCall(FGProblemGetPoints(O->P, &O->K, &pnames, NULL));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/optimization.csv", O->c->output.dir));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", path));
  if (!rank) {
    FILE *f = fopen(tmp, "w");
    if (!f) snprintf(msg, sizeof(msg), "cannot write %s: %s", tmp, strerror(errno));
    else {
      fprintf(f, "iteration,evaluations,J,J_rel,gradient_norm,step,max_violation,seconds");
      for (PetscInt k = 0; O->K > 1 && k < O->K; k++) fprintf(f, ",J@%s", pnames[k]);
      for (PetscInt i = 0; i < O->nrows; i++) fprintf(f, ",%s", O->rows[i].name);
      for (PetscInt i = 0; i < O->ns; i++) {
        char nm[128];
        PetscCall(FGDesignScalarName(O->d, i, nm, sizeof(nm)));
        fprintf(f, ",%s", nm);
      }
      fprintf(f, "\n");
      for (PetscInt r = 0; r < O->nhist; r++) {
        const FGHistRow *h = &O->hist[r];
        fprintf(f, "%" PetscInt_FMT ",%" PetscInt_FMT ",%.17g,%.17g,%.17g,%.17g,%.17g,%.3f", h->it, h->evals, (double)h->J, (double)(h->J / (O->hist[0].J != 0 ? O->hist[0].J : 1.0)), (double)h->gnorm, (double)h->step, (double)h->viol, (double)h->seconds);
        for (PetscInt k = 0; O->K > 1 && k < O->K; k++) fprintf(f, ",%.17g", (double)O->hJk[r * O->K + k]);
        for (PetscInt i = 0; i < O->nrows; i++) fprintf(f, ",%.17g", (double)O->hq[r * O->nrows + i]);
        for (PetscInt i = 0; i < O->ns; i++) fprintf(f, ",%.17g", (double)O->hp[r * O->ns + i]);
        fprintf(f, "\n");
      }
      if (fclose(f) || rename(tmp, path)) snprintf(msg, sizeof(msg), "cannot write %s: %s", path, strerror(errno));
    }
  }
  PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, O->comm));
  PetscCheck(!msg[0], O->comm, FG_ERR_IO_WRITE, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A 1-D or 2-D double dataset (rank 0, serial HDF5). */
static herr_t FGOptH5Write_Private(hid_t fid, const char *name, int rank, hsize_t n0, hsize_t n1, const double *v)
{
  hsize_t dims[2] = {n0, n1};
  hid_t   sp, ds;
  herr_t  st;
  sp = H5Screate_simple(rank, dims, NULL);
  if (sp < 0) return -1;
  ds = H5Dcreate2(fid, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (ds < 0) {
    H5Sclose(sp);
    return -1;
  }
  st = (n0 > 0 && (rank == 1 || n1 > 0)) ? H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) : 0;
  H5Dclose(ds);
  H5Sclose(sp);
  return st;
}

static herr_t FGOptH5Names_Private(hid_t fid, const char *name, hsize_t n, char (*names)[128])
{
  hsize_t dims[1] = {n};
  hid_t   t = H5Tcopy(H5T_C_S1), sp, ds;
  herr_t  st;
  H5Tset_size(t, 128);
  sp = H5Screate_simple(1, dims, NULL);
  ds = H5Dcreate2(fid, name, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  st = (ds >= 0 && n) ? H5Dwrite(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, names) : (ds >= 0 ? 0 : -1);
  if (ds >= 0) H5Dclose(ds);
  H5Sclose(sp);
  H5Tclose(t);
  return st;
}

static PetscErrorCode FGOptWriteH5_Private(FGOpt *O)
{
  PetscMPIInt rank;
  char        path[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN + 8], msg[PETSC_MAX_PATH_LEN + 128] = "";

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(O->comm, &rank));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/optimization.h5", O->c->output.dir));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", path));
  if (!rank) {
    const hsize_t n = (hsize_t)O->nhist;
    double       *col;
    char (*names)[128];
    hid_t         fid;
    herr_t        st = 0;
    PetscCall(PetscMalloc1(PetscMax(O->nhist, 1) * 7, &col));
    PetscCall(PetscCalloc1(PetscMax(PetscMax(O->ns, O->nrows), PetscMax(O->K, 1)), &names));
    fid = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (fid < 0) st = -1;
    else {
      for (PetscInt r = 0; r < O->nhist; r++) {
        col[r] = (double)O->hist[r].it, col[n + r] = (double)O->hist[r].evals, col[2 * n + r] = O->hist[r].J, col[3 * n + r] = O->hist[r].gnorm;
        col[4 * n + r] = O->hist[r].step, col[5 * n + r] = O->hist[r].viol, col[6 * n + r] = O->hist[r].seconds;
      }
      st |= FGOptH5Write_Private(fid, "iteration", 1, n, 1, col);
      st |= FGOptH5Write_Private(fid, "evaluations", 1, n, 1, col + n);
      st |= FGOptH5Write_Private(fid, "J", 1, n, 1, col + 2 * n);
      st |= FGOptH5Write_Private(fid, "gradient_norm", 1, n, 1, col + 3 * n);
      st |= FGOptH5Write_Private(fid, "step", 1, n, 1, col + 4 * n);
      st |= FGOptH5Write_Private(fid, "max_violation", 1, n, 1, col + 5 * n);
      st |= FGOptH5Write_Private(fid, "seconds", 1, n, 1, col + 6 * n);
      st |= FGOptH5Write_Private(fid, "J_points", 2, n, (hsize_t)O->K, O->hJk);
      st |= FGOptH5Write_Private(fid, "constraints", 2, n, (hsize_t)O->nrows, O->hq);
      st |= FGOptH5Write_Private(fid, "design", 2, n, (hsize_t)O->ns, O->hp);
      for (PetscInt i = 0; i < O->nrows; i++) PetscCall(PetscSNPrintf(names[i], 128, "%s", O->rows[i].name));
      st |= FGOptH5Names_Private(fid, "constraints_names", (hsize_t)O->nrows, names);
      for (PetscInt i = 0; i < O->ns; i++) PetscCall(FGDesignScalarName(O->d, i, names[i], 128));
      st |= FGOptH5Names_Private(fid, "design_names", (hsize_t)O->ns, names);
      {
        const char *const *pn;
        PetscCall(FGProblemGetPoints(O->P, &O->K, &pn, NULL));
        for (PetscInt k = 0; k < O->K; k++) PetscCall(PetscSNPrintf(names[k], 128, "%s", pn[k]));
        st |= FGOptH5Names_Private(fid, "J_points_names", (hsize_t)O->K, names);
      }
      if (H5Fclose(fid) < 0) st = -1;
    }
    if (st < 0 || rename(tmp, path)) snprintf(msg, sizeof(msg), "cannot write %s", path);
    PetscCall(PetscFree(col));
    PetscCall(PetscFree(names));
  }
  PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, O->comm));
  PetscCheck(!msg[0], O->comm, FG_ERR_IO_WRITE, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptWriteIterFields_Private(FGOpt *O, PetscInt it, Vec p, const FGEval *e)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/iter_%04" PetscInt_FMT ".h5", O->dir, it));
  PetscCall(FGProblemWriteFields(O->P, path, it, p, e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One row of the history (the iterate p with its evaluation e), the files, the progress line. */
static PetscErrorCode FGOptRecord_Private(FGOpt *O, PetscInt it, Vec p, const FGEval *e, PetscReal gnorm, PetscReal step)
{
  FGHistRow *h;

  PetscFunctionBeginUser;
  if (O->nhist == O->caphist) {
    O->caphist = PetscMax(16, 2 * O->caphist);
    PetscCall(PetscRealloc(sizeof(FGHistRow) * (size_t)O->caphist, &O->hist));
    PetscCall(PetscRealloc(sizeof(PetscReal) * (size_t)O->caphist * (size_t)PetscMax(O->nrows, 1), &O->hq));
    PetscCall(PetscRealloc(sizeof(PetscReal) * (size_t)O->caphist * (size_t)PetscMax(O->ns, 1), &O->hp));
    PetscCall(PetscRealloc(sizeof(PetscReal) * (size_t)O->caphist * (size_t)O->K, &O->hJk));
  }
  h          = &O->hist[O->nhist];
  h->it      = it;
  h->evals   = O->nevals;
  h->J       = e->J;
  h->gnorm   = gnorm;
  h->step    = it ? step : 0; /* (TAO reports its initial value at iteration 0) */
  h->viol    = FGOptViolation_Private(O, e);
  h->seconds = O->seconds;
  for (PetscInt i = 0; i < O->nrows; i++) O->hq[O->nhist * O->nrows + i] = e->q[i];
  for (PetscInt k = 0; k < O->K; k++) O->hJk[O->nhist * O->K + k] = e->Jk[k];
  PetscCall(FGOptScalars_Private(O, p, O->hp + O->nhist * O->ns));
  O->nhist++;
  PetscCall(FGOptWriteCSV_Private(O));
  PetscCall(FGOptWriteH5_Private(O));
  if (it == 0 || (O->c->optimizer.fields_every && it % O->c->optimizer.fields_every == 0)) PetscCall(FGOptWriteIterFields_Private(O, it, p, e));
  {
    const PetscReal per = it ? O->seconds / it : 0, left = per * (PetscReal)PetscMax(O->maxits - it, 0);
    PetscCall(PetscPrintf(O->comm, "iteration %3" PetscInt_FMT ": J = %.10e (%+.3f%%)  |g| = %.3e  step = %.3e%s", it, (double)e->J, (double)(100 * (e->J - O->hist[0].J) / O->J0s), (double)gnorm, (double)step, O->nrows ? "  violation = " : ""));
    if (O->nrows) PetscCall(PetscPrintf(O->comm, "%.2e", (double)h->viol));
    PetscCall(PetscPrintf(O->comm, "  evals %" PetscInt_FMT "  %.0f s", O->nevals, (double)O->seconds));
    if (it) PetscCall(PetscPrintf(O->comm, "  ETA <= %.0f s (%" PetscInt_FMT " more iterations at most)", (double)left, PetscMax(O->maxits - it, 0)));
    PetscCall(PetscPrintf(O->comm, "\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptMonitor_Private(Tao tao, void *ctx)
{
  FGOpt             *O;
  PetscInt           its;
  PetscReal          f, res, cnorm, xdiff;
  TaoConvergedReason reason;
  Vec                x;
  FGEval            *e;

  PetscFunctionBeginUser;
  PetscCall(PetscContainerGetPointer((PetscContainer)ctx, (void **)&O));
  if (tao != O->tao) PetscFunctionReturn(PETSC_SUCCESS); /* ALMM's subsolver inherits the monitor */
  PetscCall(TaoGetSolutionStatus(tao, &its, &f, &res, &cnorm, &xdiff, &reason));
  if (its == 0 && O->nhist) PetscFunctionReturn(PETSC_SUCCESS); /* penalty: later inner solves start at a recorded iterate */
  PetscCall(TaoGetSolution(tao, &x));
  PetscCall(FGOptToDesign_Private(O, x));
  PetscCall(FGOptEvaluate_Private(O, O->p, PETSC_TRUE, &e));
  PetscCall(FGOptRecord_Private(O, O->itbase + its, O->p, e, res, xdiff));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* --- the driver -------------------------------------------------------------------------- */

static PetscErrorCode FGOptSetUpTao_Private(FGOpt *O, Tao *tao, Vec x, const char *type, PetscInt maxits, Mat *Ae, Mat *Ai, Vec *ce, Vec *ci)
{
  const FGCase *c = O->c;
  PetscBool     bounded;

  PetscFunctionBeginUser;
  PetscCall(TaoCreate(O->comm, tao));
  O->tao = *tao;
  PetscCall(TaoSetType(*tao, type));
  PetscCall(TaoSetSolution(*tao, x));
  PetscCall(TaoSetObjectiveAndGradient(*tao, NULL, FGOptObjGrad_Private, O));
  PetscCall(TaoSetObjective(*tao, FGOptObj_Private, O));
  PetscCall(PetscStrcmp(type, TAOLMVM, &bounded));
  bounded = (PetscBool)!bounded;
  if (bounded) PetscCall(TaoSetVariableBounds(*tao, O->xlo, O->xhi));
  PetscCall(TaoSetTolerances(*tao, c->optimizer.gatol, c->optimizer.grtol, 0.0));
  PetscCall(TaoSetMaximumIterations(*tao, maxits));
  /* the evaluations left of optimizer.max_evaluations (the penalty loop's inner solves share them) */
  PetscCall(TaoSetMaximumFunctionEvaluations(*tao, c->optimizer.max_evaluations ? PetscMax(c->optimizer.max_evaluations - O->nevals, 1) : 1000000));
  /* the monitor's context is a PetscContainer: ALMM hands the monitor to its subsolver and takes a
     reference to the context as to a PetscObject */
  {
    PetscContainer box;
    PetscCall(PetscContainerCreate(O->comm, &box));
    PetscCall(PetscContainerSetPointer(box, O));
    PetscCall(TaoSetMonitor(*tao, FGOptMonitor_Private, box, (PetscErrorCode(*)(void **))PetscContainerDestroy));
  }
  if (Ae) { /* ALMM */
    PetscMPIInt rank;
    PetscInt    me = 0, mi = 0, n, N;
    PetscCallMPI(MPI_Comm_rank(O->comm, &rank));
    for (PetscInt i = 0; i < O->nrows; i++) {
      if (O->rows[i].relation == FG_REL_EQ) me++;
      else mi++;
    }
    PetscCall(VecGetLocalSize(x, &n));
    PetscCall(VecGetSize(x, &N));
    if (me) {
      PetscCall(VecCreateMPI(O->comm, rank ? 0 : me, me, ce));
      PetscCall(MatCreateDense(O->comm, rank ? 0 : me, n, me, N, NULL, Ae));
      PetscCall(TaoSetEqualityConstraintsRoutine(*tao, *ce, FGOptEq_Private, O));
      PetscCall(TaoSetJacobianEqualityRoutine(*tao, *Ae, *Ae, FGOptJacEq_Private, O));
    }
    if (mi) {
      PetscCall(VecCreateMPI(O->comm, rank ? 0 : mi, mi, ci));
      PetscCall(MatCreateDense(O->comm, rank ? 0 : mi, n, mi, N, NULL, Ai));
      PetscCall(TaoSetInequalityConstraintsRoutine(*tao, *ci, FGOptIneq_Private, O));
      PetscCall(TaoSetJacobianInequalityRoutine(*tao, *Ai, *Ai, FGOptJacIneq_Private, O));
    }
    PetscCall(TaoSetConstraintTolerances(*tao, c->optimizer.constraint_tol, 0.0));
    {
      PetscBool set;
      char      v[32];
      PetscCall(PetscOptionsHasName(NULL, NULL, "-tao_almm_mu_init", &set));
      PetscCall(PetscSNPrintf(v, sizeof(v), "%g", (double)c->optimizer.penalty));
      if (!set) PetscCall(PetscOptionsSetValue(NULL, "-tao_almm_mu_init", v));
      PetscCall(PetscOptionsHasName(NULL, NULL, "-tao_almm_type", &set));
      if (!set) PetscCall(PetscOptionsSetValue(NULL, "-tao_almm_type", "phr"));
    }
  }
  PetscCall(TaoSetFromOptions(*tao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptWriteResult_Private(FGOpt *O, Vec p)
{
  PetscMPIInt rank;
  PetscReal  *v0, *v1, *lo, *hi;
  char        path[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN + 8], msg[PETSC_MAX_PATH_LEN + 128] = "";
  const PetscInt n = PetscMax(O->ns, 1);

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(O->comm, &rank));
  PetscCall(PetscMalloc4(n, &v0, n, &v1, n, &lo, n, &hi));
  PetscCall(FGOptScalars_Private(O, O->p0, v0));
  PetscCall(FGOptScalars_Private(O, p, v1));
  PetscCall(FGOptScalars_Private(O, O->plo, lo));
  PetscCall(FGOptScalars_Private(O, O->phi, hi));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/result.csv", O->dir));
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", path));
  if (!rank) {
    FILE *f = fopen(tmp, "w");
    if (!f) snprintf(msg, sizeof(msg), "cannot write %s: %s", tmp, strerror(errno));
    else {
      fprintf(f, "name,initial,final,lower,upper\n");
      for (PetscInt i = 0; i < O->ns; i++) {
        char nm[128];
        PetscCall(FGDesignScalarName(O->d, i, nm, sizeof(nm)));
        fprintf(f, "%s,%.17g,%.17g,%.17g,%.17g\n", nm, (double)v0[i], (double)v1[i], (double)lo[i], (double)hi[i]);
      }
      if (fclose(f) || rename(tmp, path)) snprintf(msg, sizeof(msg), "cannot write %s: %s", path, strerror(errno));
    }
  }
  PetscCall(PetscFree4(v0, v1, lo, hi));
  PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, O->comm));
  PetscCheck(!msg[0], O->comm, FG_ERR_IO_WRITE, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOptimizeMain - flowgrad optimize CASE [--resume]; (nset, set): the command line's --set
  overrides (the points' cases are loaded with them).
@*/
PetscErrorCode FGOptimizeMain(MPI_Comm comm, FGCase *c, PetscBool resume, PetscInt nset, const char *const set[])
{
  FGOpt             O;
  FGEval           *e0, *ef;
  Vec               x;
  Tao               tao;
  Mat               Ae = NULL, Ai = NULL;
  Vec               ce = NULL, ci = NULL;
  FGOptimizerType   type = c->optimizer.type;
  const char       *taotype;
  TaoConvergedReason reason = TAO_CONTINUE_ITERATING;
  PetscBool          penalty_done = PETSC_FALSE; /* penalty: feasible and the last inner solve converged */
  PetscInt          slurm, nblk;
  const FGDesignBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&O, sizeof(O)));
  O.comm = comm;
  O.c    = c;
  O.kill_at = 0;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-fg_test_optimize_kill_at", &O.kill_at, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-fg_test_optimize_signal_at", &O.signal_at, NULL));
  PetscCheck(c->design.n > 0, comm, FG_ERR_INPUT, "%s: design.parameters is empty: flowgrad optimize has nothing to optimize (see README.md, \"Optimization\")", c->file);
  PetscCall(FGCaseWriteResolved(comm, c));
  { /* FFT plans kept as wisdom in output.dir, as flowgrad adjoint does */
    PetscBool has;
    char      path[PETSC_MAX_PATH_LEN];
    PetscCall(PetscOptionsHasName(NULL, NULL, "-fg_fftw_wisdom", &has));
    if (!has && c->poisson.type == FG_POISSON_FFTW) {
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/fftw.wisdom", c->output.dir));
      PetscCall(PetscOptionsSetValue(NULL, "-fg_fftw_wisdom", path));
    }
  }
  PetscCall(FGProblemCreate(comm, c, nset, set, &O.P));
  PetscCall(FGProblemGetDesign(O.P, &O.d));
  PetscCall(FGProblemGetRows(O.P, &O.nrows, &O.rows));
  PetscCall(FGProblemGetPoints(O.P, &O.K, NULL, NULL));
  PetscCall(FGProblemCreateVec(O.P, &O.p0));
  PetscCall(FGDesignGetValues(O.d, O.p0));
  PetscCall(FGDesignGetScalars(O.d, O.p0, &O.ns, &(PetscReal *){NULL}));
  PetscCall(VecDuplicate(O.p0, &O.scale));
  PetscCall(VecDuplicate(O.p0, &O.plo));
  PetscCall(VecDuplicate(O.p0, &O.phi));
  PetscCall(VecDuplicate(O.p0, &O.xlo));
  PetscCall(VecDuplicate(O.p0, &O.xhi));
  PetscCall(VecDuplicate(O.p0, &O.p));
  PetscCall(VecDuplicate(O.p0, &x));
  PetscCall(FGProblemGetBounds(O.P, O.p0, O.plo, O.phi, O.scale));
  if (type == FG_OPT_AUTO) type = O.nrows ? FG_OPT_PENALTY : FG_OPT_BLMVM;
  PetscCheck(!(O.nrows && type != FG_OPT_ALMM && type != FG_OPT_PENALTY), comm, FG_ERR_INPUT, "%s: optimizer.type %s cannot handle the %" PetscInt_FMT " constraint rows: use almm or penalty (or auto)", c->file, FGOptimizerTypeNames[type], O.nrows);
  O.penalty = (PetscBool)(type == FG_OPT_PENALTY);
  taotype   = type == FG_OPT_BLMVM || type == FG_OPT_PENALTY ? TAOBLMVM : type == FG_OPT_BQNLS ? TAOBQNLS : type == FG_OPT_BNCG ? TAOBNCG : type == FG_OPT_LMVM ? TAOLMVM : TAOALMM;
  O.maxits  = c->optimizer.max_iterations;
  { /* x-space bounds; "none" stays PETSc's infinity */
    const PetscScalar *l, *u, *sc;
    PetscScalar       *xl, *xu;
    PetscInt           n, nb = 0;
    PetscCall(VecGetLocalSize(O.p0, &n));
    PetscCall(VecGetArrayRead(O.plo, &l));
    PetscCall(VecGetArrayRead(O.phi, &u));
    PetscCall(VecGetArrayRead(O.scale, &sc));
    PetscCall(VecGetArray(O.xlo, &xl));
    PetscCall(VecGetArray(O.xhi, &xu));
    for (PetscInt i = 0; i < n; i++) {
      xl[i] = PetscRealPart(l[i]) <= PETSC_NINFINITY ? PETSC_NINFINITY : l[i] / sc[i];
      xu[i] = PetscRealPart(u[i]) >= PETSC_INFINITY ? PETSC_INFINITY : u[i] / sc[i];
      if (PetscRealPart(l[i]) > PETSC_NINFINITY || PetscRealPart(u[i]) < PETSC_INFINITY) nb++;
    }
    PetscCall(VecRestoreArrayRead(O.plo, &l));
    PetscCall(VecRestoreArrayRead(O.phi, &u));
    PetscCall(VecRestoreArrayRead(O.scale, &sc));
    PetscCall(VecRestoreArray(O.xlo, &xl));
    PetscCall(VecRestoreArray(O.xhi, &xu));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &nb, 1, MPIU_INT, MPI_SUM, comm));
    PetscCheck(!(type == FG_OPT_LMVM && nb), comm, FG_ERR_INPUT, "%s: optimizer.type lmvm ignores bounds, and %" PetscInt_FMT " design entries have one (design.lower, .upper, .max_change; flow.nu and flow.inflow_speed always): use blmvm", c->file, nb);
  }
  PetscCall(VecPointwiseDivide(x, O.p0, O.scale));
  for (PetscInt i = 0; i < FG_OPT_NCACHE; i++) {
    PetscCall(FGProblemEvalCreate(O.P, &O.cache[i]));
    PetscCall(VecDuplicate(O.p0, &O.cachep[i]));
  }

  /* the directories, the log */
  PetscCall(PetscSNPrintf(O.dir, sizeof(O.dir), "%s/optimization", c->output.dir));
  PetscCall(PetscSNPrintf(O.evdir, sizeof(O.evdir), "%s/evaluations", O.dir));
  PetscCall(FGMakeDirectory(O.dir));
  PetscCall(FGMakeDirectory(O.evdir));
  PetscCall(FGOptHash_Private(&O));
  PetscCall(FGSlurmRestartCount(comm, &slurm));
  if (resume || slurm > 0) {
    PetscCall(FGOptLogScan_Private(&O, PETSC_MAX_INT, PETSC_FALSE, &O.nlog));
    PetscCheck(O.nlog || !resume, comm, FG_ERR_INPUT, "--resume: %s holds no evaluations of an earlier run: nothing to resume (run without --resume)", O.evdir);
    if (O.nlog) PetscCall(PetscPrintf(comm, "flowgrad optimize: resuming: replaying %" PetscInt_FMT " logged evaluations from %s\n", O.nlog, O.evdir));
  } else { /* a fresh start: no log, no iteration files */
    PetscMPIInt rank;
    PetscCall(FGOptLogScan_Private(&O, 0, PETSC_TRUE, NULL));
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (!rank) {
      DIR           *dir = opendir(O.dir);
      struct dirent *de;
      while (dir && (de = readdir(dir))) {
        char path[2 * PETSC_MAX_PATH_LEN];
        if (strncmp(de->d_name, "iter_", 5)) continue;
        PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", O.dir, de->d_name));
        (void)unlink(path);
      }
      if (dir) closedir(dir);
    }
  }

  /* the problem */
  PetscCall(FGDesignGetBlocks(O.d, &nblk, &blk));
  PetscCall(PetscPrintf(comm, "%s: flowgrad optimize with TAO %s%s; %" PetscInt_FMT " design scalars", c->name, taotype, O.penalty ? " (flowgrad's augmented Lagrangian)" : "", O.ns));
  for (PetscInt i = 0; i < nblk; i++)
    if (blk[i].field) PetscCall(PetscPrintf(comm, " + %s (%" PetscInt_FMT ")", blk[i].name, blk[i].n));
  PetscCall(PetscPrintf(comm, "; objective:"));
  for (PetscInt i = 0; i < c->nobjectives; i++) PetscCall(PetscPrintf(comm, " %s%s (%s, weight %g)", i ? "+" : "", c->objective[i].name, FGObjectiveKindNames[c->objective[i].kind], (double)c->objective[i].weight));
  if (O.K > 1) {
    const char *const *pn;
    const PetscReal   *pw;
    PetscCall(FGProblemGetPoints(O.P, &O.K, &pn, &pw));
    PetscCall(PetscPrintf(comm, " over %" PetscInt_FMT " points:", O.K));
    for (PetscInt k = 0; k < O.K; k++) PetscCall(PetscPrintf(comm, " %s (weight %g)", pn[k], (double)pw[k]));
  }
  PetscCall(PetscPrintf(comm, "\n"));
  PetscCall(FGSignalInstall());
  PetscCall(PetscTime(&O.t0));

  /* the initial design: J_0, the constraints' values */
  PetscCall(FGOptToDesign_Private(&O, x)); /* p_0 as TAO will see it (x_0 scale, to round-off) */
  PetscCall(FGOptEvaluate_Private(&O, O.p, PETSC_TRUE, &e0));
  O.J0s = PetscAbsReal(e0->J) > 0 ? PetscAbsReal(e0->J) : 1.0;
  PetscCall(FGProblemSetRowValues(O.P, e0));
  for (PetscInt i = 0; i < O.nrows; i++) {
    const FGConstraintRow *r = &O.rows[i];
    PetscCall(PetscPrintf(comm, "constraint %-20s %s %.10g (initially %.10g; scale %.4g)\n", r->name, r->relation == FG_REL_EQ ? "=" : r->relation == FG_REL_GE ? ">=" : "<=", (double)r->value, (double)e0->q[i], (double)r->scale));
  }

  if (!O.penalty) {
    PetscCall(FGOptSetUpTao_Private(&O, &tao, x, taotype, O.maxits, type == FG_OPT_ALMM ? &Ae : NULL, type == FG_OPT_ALMM ? &Ai : NULL, &ce, &ci));
    PetscCall(TaoSolve(tao));
    PetscCall(TaoGetConvergedReason(tao, &reason));
    PetscCall(TaoDestroy(&tao));
  } else {
    PetscInt  inner = 10, used = 0;
    PetscReal viol_prev = PETSC_MAX_REAL;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-fg_penalty_inner_its", &inner, NULL));
    O.mu = c->optimizer.penalty;
    for (PetscInt outer = 0; outer < 50 && used < O.maxits && !(c->optimizer.max_evaluations && O.nevals >= c->optimizer.max_evaluations); outer++) {
      FGEval   *e;
      PetscReal viol;
      PetscInt  its;
      O.itbase = used;
      PetscCall(FGOptSetUpTao_Private(&O, &tao, x, taotype, PetscMin(inner, O.maxits - used), NULL, NULL, NULL, NULL));
      PetscCall(TaoSolve(tao));
      PetscCall(TaoGetConvergedReason(tao, &reason));
      PetscCall(TaoGetIterationNumber(tao, &its));
      PetscCall(TaoDestroy(&tao));
      used += PetscMax(its, 1);
      PetscCall(FGOptToDesign_Private(&O, x));
      PetscCall(FGOptEvaluate_Private(&O, O.p, PETSC_TRUE, &e));
      viol = FGOptViolation_Private(&O, e);
      PetscCall(PetscPrintf(comm, "augmented Lagrangian: outer iteration %" PetscInt_FMT ": violation %.3e, penalty %g, inner solve %s\n", outer, (double)viol, (double)O.mu, TaoConvergedReasons[reason]));
      if (viol <= c->optimizer.constraint_tol && reason > 0) {
        penalty_done = PETSC_TRUE;
        break;
      }
      for (PetscInt i = 0; i < O.nrows; i++) {
        const PetscReal h = FGProblemRowNormalized(&O.rows[i], e->q[i]);
        O.lambda[i]       = O.rows[i].relation == FG_REL_EQ ? O.lambda[i] + O.mu * h : PetscMax(0.0, O.lambda[i] - O.mu * h);
      }
      if (viol > 0.25 * viol_prev) O.mu *= 10;
      viol_prev = viol;
    }
  }

  /* the result */
  PetscCall(FGOptToDesign_Private(&O, x));
  PetscCall(FGOptEvaluate_Private(&O, O.p, PETSC_TRUE, &ef));
  if (!O.nhist) PetscCall(FGOptRecord_Private(&O, 0, O.p, ef, 0, 0)); /* optimizer.max_iterations 0: the start alone */
  {
    const FGHistRow *last = &O.hist[O.nhist - 1];
    PetscCall(FGOptWriteIterFields_Private(&O, last->it, O.p, ef));
    PetscCall(FGOptWriteResult_Private(&O, O.p));
    const char *outcome = TaoConvergedReasons[reason];
    if (O.penalty) outcome = penalty_done ? "CONVERGED (the constraints hold and the last inner solve converged)" : last->it >= O.maxits ? "STOPPED at optimizer.max_iterations" : "STOPPED (evaluation or outer-iteration limit)";
    PetscCall(PetscPrintf(comm, "\nflowgrad optimize: %s after %" PetscInt_FMT " iterations, %" PetscInt_FMT " evaluations (%.0f s of evaluations)\n", outcome, last->it, O.nevals, (double)O.seconds));
    PetscCall(PetscPrintf(comm, "  J: %.10e -> %.10e (%+.3f%%)\n", (double)O.hist[0].J, (double)ef->J, (double)(100 * (ef->J - O.hist[0].J) / O.J0s)));
    for (PetscInt i = 0; i < O.nrows; i++) {
      const FGConstraintRow *r = &O.rows[i];
      PetscReal              v = FGProblemRowViolation(r, ef->q[i]);
      PetscCall(PetscPrintf(comm, "  constraint %-20s %.10g %s %.10g: violation %.2e (%s)\n", r->name, (double)ef->q[i], r->relation == FG_REL_EQ ? "=" : r->relation == FG_REL_GE ? ">=" : "<=", (double)r->value, (double)v,
                            v <= c->optimizer.constraint_tol ? "holds" : "VIOLATED"));
    }
    PetscCall(PetscPrintf(comm, "wrote %s/optimization.csv, optimization.h5, %s/result.csv, %s/iter_NNNN.h5\n", c->output.dir, O.dir, O.dir));
  }
  PetscCall(FGSignalRestore());

  PetscCall(MatDestroy(&Ae));
  PetscCall(MatDestroy(&Ai));
  PetscCall(VecDestroy(&ce));
  PetscCall(VecDestroy(&ci));
  for (PetscInt i = 0; i < FG_OPT_NCACHE; i++) {
    PetscCall(FGProblemEvalDestroy(O.P, &O.cache[i]));
    PetscCall(VecDestroy(&O.cachep[i]));
  }
  PetscCall(PetscFree(O.hist));
  PetscCall(PetscFree(O.hq));
  PetscCall(PetscFree(O.hp));
  PetscCall(PetscFree(O.hJk));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&O.p0));
  PetscCall(VecDestroy(&O.scale));
  PetscCall(VecDestroy(&O.plo));
  PetscCall(VecDestroy(&O.phi));
  PetscCall(VecDestroy(&O.xlo));
  PetscCall(VecDestroy(&O.xhi));
  PetscCall(VecDestroy(&O.p));
  PetscCall(FGProblemDestroy(&O.P));
  PetscFunctionReturn(PETSC_SUCCESS);
}
