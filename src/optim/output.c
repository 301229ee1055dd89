/*
  The files of flowgrad optimize (src/optim/): every read and write of the optimizer's files, in
  one place.

  Output (output.dir):
    optimization.csv, optimization.h5   one row per iteration (iteration 0: the start): J, J/J_0,
                   TAO's gradient norm and step length, the largest constraint violation, the
                   evaluations and seconds so far, J per point, each constraint row's quantity and
                   every design scalar (rewritten atomically after every iteration)
    optimization/iterations.xmf         every iter_NNNN.xmf in one XDMF time series (time = iteration)
    optimization/iter_NNNN.h5 (+ .xmf)  chi (the bodies' mask), dJ/dchi, the shape sensitivity,
                   density fields and their gradient, every optimizer.fields_every iterations, the
                   first and the last (FGProblemWriteFields)
    optimization/evaluations/eval_NNNNNN.h5  every evaluation: p, J, g, the rows and their
                   gradients, dJ/dchi (the log that --resume replays, src/optim/evaluate.c)
    optimization/result.csv             name, initial, final, lower, upper of every design scalar
    optimization/outer.csv              optimizer.type penalty: one row per outer iteration of the
                   augmented Lagrangian (src/optim/penalty.c)
    optimization/outcome.txt            how the run ended, J_0 -> J, every constraint row's final
                   status, and the lines "status: converged|stopped", "constraints: all hold|
                   VIOLATED|none" (FGOptimizerView; only once a run has reached its end)

  Everything through src/io: the log and the iteration fields are field files (include/fg/io.h),
  the history and result.csv tables (include/fg/table.h); rank 0 writes what is not parallel, and
  every rank gets the outcome.
*/
#include "optimimpl.h"
#include <fg/io.h>
#include <fg/table.h>
#include <fg/iofile.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

/* --- the evaluation log ------------------------------------------------------------------ */

static PetscErrorCode FGOptEvalPath_Private(FGOptimizer O, PetscInt n, char *path, size_t len)
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, len, "%s/eval_%06" PetscInt_FMT ".h5", O->evdir, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Field block i of the design (nc = 0 for a scalar block): a grid Vec per component, where it
   lives, and its dataset name in the log, PREFIX_<block index>_<component>. */
static PetscErrorCode FGOptBlockVecs_Private(FGOptimizer O, PetscInt i, const char *prefix, PetscInt *nc, Vec w[], FGLocation loc[], char names[][48])
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
static PetscErrorCode FGOptAddBlockFields_Private(FGOptimizer O, const char *prefix, Vec v, FGIOField f[], PetscInt *nf, Vec tmp[], PetscInt *ntmp, char names[][48])
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
      f[*nf] = (FGIOField){.name = names[*nf], .location = loc[a], .vec = w[a]};
      (*nf)++;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptReadBlockFields_Private(FGOptimizer O, const char *path, const char *prefix, Vec v)
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
static PetscErrorCode FGOptScalars_Private(FGOptimizer O, Vec x, PetscReal v[])
{
  PetscInt   ns;
  PetscReal *a;

  PetscFunctionBeginUser;
  PetscCall(FGDesignGetScalars(O->d, x, &ns, &a));
  PetscCall(PetscArraycpy(v, a, ns));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptSetScalars_Private(FGOptimizer O, const PetscReal v[], Vec x)
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

/* Log entry n: the design p, its evaluation e and the seconds it took (every rank; the log's
   vectors are rank 0's values). */
PetscErrorCode FGOptLogWrite_Internal(FGOptimizer O, PetscInt n, Vec p, const FGEval *e, PetscReal seconds)
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
  head[0] = e->J, head[1] = e->failed ? 2 : e->gradient ? 1 : 0, head[2] = seconds, head[3] = (PetscReal)e->nterms; /* 2: failed, no values */
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
PetscErrorCode FGOptLogReadDesign_Internal(FGOptimizer O, PetscInt n, Vec p, PetscBool *gradient, PetscReal *seconds)
{
  char       path[PETSC_MAX_PATH_LEN], msg[256];
  FGIOMeta   meta;
  PetscReal *buf, head[4];

  PetscFunctionBeginUser;
  PetscCall(FGOptEvalPath_Private(O, n, path, sizeof(path)));
  PetscCall(FGIOReadMeta(O->comm, path, &meta, msg, sizeof(msg)));
  PetscCheck(meta.case_hash == O->hash, O->comm, FG_ERR_INPUT, "%s was written for another case (hash %016llx, this one %016llx): to start over, run `flowgrad optimize` without --resume (it removes the log), or remove %s (a requeued SLURM job always resumes)", path, meta.case_hash, O->hash, O->evdir);
  PetscCall(FGIOReadVector(O->comm, path, "head", 4, head));
  *gradient = (PetscBool)(head[1] != 0); /* (a failed one answers every request) */
  *seconds  = head[2];
  PetscCall(PetscMalloc1(PetscMax(O->ns, 1), &buf));
  if (O->ns) PetscCall(FGIOReadVector(O->comm, path, "p", O->ns, buf));
  PetscCall(VecSet(p, 0.0));
  PetscCall(FGOptSetScalars_Private(O, buf, p));
  PetscCall(PetscFree(buf));
  PetscCall(FGOptReadBlockFields_Private(O, path, "p", p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGOptLogReadEval_Internal(FGOptimizer O, PetscInt n, FGEval *e)
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
  e->failed   = (PetscBool)(head[1] == 2);
  e->nterms   = (PetscInt)head[3];
  if (e->failed) PetscFunctionReturn(PETSC_SUCCESS);
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
PetscErrorCode FGOptLogScan_Internal(FGOptimizer O, PetscInt from, PetscBool remove, PetscInt *count)
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

/* --- the history ----------------------------------------------------------------------- */

/* The table of optimization.csv and optimization.h5, one row per iteration (FGOptRecord_Internal):
   iteration, evaluations, J, J/J_0, TAO's gradient norm and step, the largest violation, the
   seconds (%.3f), J at each point (J@NAME: in the CSV with more than one point only), each
   constraint row's quantity, each design scalar. optimization.h5: every column but J_rel as a 1-D
   dataset, and the matrices J_points (labels: the points), constraints and design (labels: their
   column names). */
static PetscErrorCode FGOptHistoryCreate_Private(FGOptimizer O)
{
  static const char *const head[8] = {"iteration", "evaluations", "J", "J_rel", "gradient_norm", "step", "max_violation", "seconds"};
  static const char *const fmt[8]  = {FG_TABLE_INT, FG_TABLE_INT, "%.17g", "%.17g", "%.17g", "%.17g", "%.17g", "%.3f"};
  const char *const       *pnames;
  PetscInt                 P, Q, S;
  FGTable                  t;

  PetscFunctionBeginUser;
  PetscCall(FGProblemGetPoints(O->P, &O->K, &pnames, NULL));
  P = 8, Q = P + O->K, S = Q + O->nrows;
  PetscCall(FGTableCreate(O->comm, &t));
  for (PetscInt j = 0; j < 8; j++) PetscCall(FGTableAddColumn(t, head[j], fmt[j]));
  for (PetscInt k = 0; k < O->K; k++) {
    char nm[PETSC_MAX_PATH_LEN];
    PetscCall(PetscSNPrintf(nm, sizeof(nm), "J@%s", pnames[k]));
    PetscCall(FGTableAddColumn(t, nm, "%.17g"));
    PetscCall(FGTableSetColumnHidden(t, P + k, (PetscBool)(O->K <= 1)));
  }
  for (PetscInt i = 0; i < O->nrows; i++) PetscCall(FGTableAddColumn(t, O->rows[i].name, "%.17g"));
  for (PetscInt i = 0; i < O->ns; i++) {
    char nm[128];
    PetscCall(FGDesignScalarName(O->d, i, nm, sizeof(nm)));
    PetscCall(FGTableAddColumn(t, nm, "%.17g"));
  }
  for (PetscInt j = 0; j < 8; j++)
    if (j != 3) PetscCall(FGTableAddDataset(t, head[j], j, 1, PETSC_FALSE, NULL)); /* J_rel: the CSV's alone */
  PetscCall(FGTableAddDataset(t, "J_points", P, O->K, PETSC_TRUE, pnames));
  PetscCall(FGTableAddDataset(t, "constraints", Q, O->nrows, PETSC_TRUE, NULL));
  PetscCall(FGTableAddDataset(t, "design", S, O->ns, PETSC_TRUE, NULL));
  O->history = t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Row h of the history, with the point values Jk, row quantities q and design scalars of p, into
   the table; then optimization.csv and optimization.h5 rewritten (rank 0, atomically). */
static PetscErrorCode FGOptHistoryAdd_Private(FGOptimizer O, const FGHistRow *h, const PetscReal Jk[], const PetscReal q[], Vec p)
{
  const PetscInt P = 8, Q = P + O->K, S = Q + O->nrows;
  PetscReal     *row;
  char           path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  if (!O->history) PetscCall(FGOptHistoryCreate_Private(O));
  PetscCall(PetscMalloc1(S + O->ns, &row));
  row[0] = (PetscReal)h->it, row[1] = (PetscReal)h->evals, row[2] = h->J, row[3] = h->J / (O->hist[0].J != 0 ? O->hist[0].J : 1.0);
  row[4] = h->gnorm, row[5] = h->step, row[6] = h->viol, row[7] = h->seconds;
  for (PetscInt k = 0; k < O->K; k++) row[P + k] = Jk[k];
  for (PetscInt i = 0; i < O->nrows; i++) row[Q + i] = q[i];
  PetscCall(FGOptScalars_Private(O, p, row + S));
  PetscCall(FGTableAddRow(O->history, NULL, row));
  PetscCall(PetscFree(row));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/optimization.csv", O->c->output.dir));
  PetscCall(FGTableWriteCSV(O->history, path));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/optimization.h5", O->c->output.dir));
  PetscCall(FGTableWriteHDF5(O->history, path));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* optimization/iter_NNNN.h5 (+ .xmf): the fields of iterate p; optimization/iterations.xmf: all
   of them as one series over the iterations (ParaView's time = the iteration). */
PetscErrorCode FGOptWriteIterFields_Internal(FGOptimizer O, PetscInt it, Vec p, const FGEval *e)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/iter_%04" PetscInt_FMT ".h5", O->dir, it));
  PetscCall(FGProblemWriteFields(O->P, path, it, p, e));
  PetscCall(FGIOWriteXDMFSeries(O->comm, O->dir, "iter_", "iterations"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One row of the history (the iterate p with its evaluation e), the files, the progress line. */
PetscErrorCode FGOptRecord_Internal(FGOptimizer O, PetscInt it, Vec p, const FGEval *e, PetscReal gnorm, PetscReal step)
{
  FGHistRow *h;

  PetscFunctionBeginUser;
  if (O->nhist == O->caphist) {
    O->caphist = PetscMax(16, 2 * O->caphist);
    PetscCall(PetscRealloc(sizeof(FGHistRow) * (size_t)O->caphist, &O->hist));
  }
  h          = &O->hist[O->nhist];
  h->it      = it;
  h->evals   = O->nevals;
  h->J       = e->J;
  h->gnorm   = gnorm;
  h->step    = it ? step : 0; /* (TAO reports its initial value at iteration 0) */
  h->viol    = FGOptViolation_Internal(O, e);
  h->seconds = O->seconds;
  O->nhist++;
  PetscCall(FGOptHistoryAdd_Private(O, h, e->Jk, e->q, p));
  if (it == 0 || (O->c->optimizer.fields_every && it % O->c->optimizer.fields_every == 0)) PetscCall(FGOptWriteIterFields_Internal(O, it, p, e));
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

/* optimization/result.csv: name, initial, final, lower, upper of every design scalar (rank 0,
   atomically). */
PetscErrorCode FGOptWriteResult_Internal(FGOptimizer O, Vec p)
{
  static const char *const head[4] = {"initial", "final", "lower", "upper"};
  const PetscInt           n       = PetscMax(O->ns, 1);
  PetscReal               *v0, *v1, *lo, *hi;
  char                     path[PETSC_MAX_PATH_LEN];
  FGTable                  t;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc4(n, &v0, n, &v1, n, &lo, n, &hi));
  PetscCall(FGOptScalars_Private(O, O->p0, v0));
  PetscCall(FGOptScalars_Private(O, p, v1));
  PetscCall(FGOptScalars_Private(O, O->plo, lo));
  PetscCall(FGOptScalars_Private(O, O->phi, hi));
  PetscCall(FGTableCreate(O->comm, &t));
  PetscCall(FGTableSetLabelColumn(t, "name"));
  for (PetscInt j = 0; j < 4; j++) PetscCall(FGTableAddColumn(t, head[j], "%.17g"));
  for (PetscInt i = 0; i < O->ns; i++) {
    const PetscReal row[4] = {v0[i], v1[i], lo[i], hi[i]};
    char            nm[128];
    PetscCall(FGDesignScalarName(O->d, i, nm, sizeof(nm)));
    PetscCall(FGTableAddRow(t, nm, row));
  }
  PetscCall(PetscFree4(v0, v1, lo, hi));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/result.csv", O->dir));
  PetscCall(FGTableWriteCSV(t, path));
  PetscCall(FGTableDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptOutcomeWriter_Private(FILE *fp, void *ctx)
{
  PetscFunctionBeginUser;
  (void)fputs((const char *)ctx, fp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* optimization/outcome.txt: FGOptimizerView's text (atomically). A run that does not reach its
   end (a signal, an error) leaves none: every start removes the last one
   (FGOptRemoveOutcome_Internal), so the file never describes another run. */
PetscErrorCode FGOptWriteOutcome_Internal(FGOptimizer O, const char *text)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/outcome.txt", O->dir));
  PetscCall(FGIOWriteTextAtomic(O->comm, path, "the optimization's outcome", FGOptOutcomeWriter_Private, (void *)text));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGOptRemoveOutcome_Internal(FGOptimizer O)
{
  PetscMPIInt rank;
  char        path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(O->comm, &rank));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/outcome.txt", O->dir));
  if (!rank) (void)unlink(path);
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/outer.csv", O->dir)); /* rebuilt as the run goes */
  if (!rank) (void)unlink(path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A fresh start: the iteration files of an earlier run removed (rank 0). */
PetscErrorCode FGOptRemoveIterFields_Internal(FGOptimizer O)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(O->comm, &rank));
  if (!rank) {
    DIR           *dir = opendir(O->dir);
    struct dirent *de;
    while (dir && (de = readdir(dir))) {
      char path[2 * PETSC_MAX_PATH_LEN];
      if (strncmp(de->d_name, "iter_", 5)) continue;
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", O->dir, de->d_name));
      (void)unlink(path);
    }
    if (dir) closedir(dir);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
