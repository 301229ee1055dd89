/*
  The files of flowgrad optimize (src/optim/): every read and write of the optimizer's files, in
  one place.

  Output (output.dir):
    optimization.csv, optimization.h5   one row per iteration (iteration 0: the start): J, J/J_0,
                   TAO's gradient norm and step length, the largest constraint violation, the
                   evaluations and seconds so far, J per point, each constraint row's quantity and
                   every design scalar (rewritten atomically after every iteration)
    optimization/iter_NNNN.h5 (+ .xmf)  chi (the bodies' mask), dJ/dchi, the shape sensitivity,
                   density fields and their gradient, every optimizer.fields_every iterations, the
                   first and the last (FGProblemWriteFields)
    optimization/evaluations/eval_NNNNNN.h5  every evaluation: p, J, g, the rows and their
                   gradients, dJ/dchi (the log that --resume replays, src/optim/evaluate.c)
    optimization/result.csv             name, initial, final, lower, upper of every design scalar
*/
#include "optimimpl.h"
#include <fg/io.h>
#include <hdf5.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
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
      f[*nf].name     = names[*nf];
      f[*nf].location = loc[a];
      f[*nf].vec      = w[a];
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

/* optimization.csv: rank 0, atomically. */
static PetscErrorCode FGOptWriteCSV_Private(FGOptimizer O)
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

/* optimization.h5: the columns of optimization.csv as datasets (rank 0, atomically). */
static PetscErrorCode FGOptWriteH5_Private(FGOptimizer O)
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

/* optimization/iter_NNNN.h5 (+ .xmf): the fields of iterate p. */
PetscErrorCode FGOptWriteIterFields_Internal(FGOptimizer O, PetscInt it, Vec p, const FGEval *e)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/iter_%04" PetscInt_FMT ".h5", O->dir, it));
  PetscCall(FGProblemWriteFields(O->P, path, it, p, e));
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
  h->viol    = FGOptViolation_Internal(O, e);
  h->seconds = O->seconds;
  for (PetscInt i = 0; i < O->nrows; i++) O->hq[O->nhist * O->nrows + i] = e->q[i];
  for (PetscInt k = 0; k < O->K; k++) O->hJk[O->nhist * O->K + k] = e->Jk[k];
  PetscCall(FGOptScalars_Private(O, p, O->hp + O->nhist * O->ns));
  O->nhist++;
  PetscCall(FGOptWriteCSV_Private(O));
  PetscCall(FGOptWriteH5_Private(O));
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

/* optimization/result.csv: rank 0, atomically. */
PetscErrorCode FGOptWriteResult_Internal(FGOptimizer O, Vec p)
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
