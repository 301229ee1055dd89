/*
  The files of the unsteady reverse sweep (src/adjoint/sweepimpl.h), in
  <output.dir>/adjoint/ (resumable runs) or <output.dir>/adjoint/scratch/ (others: flowgrad check,
  the benchmark), written through a temporary name and renamed:

    checkpoints/state_NNNNNN.h5  x_n: u, v[, w], p (flowgrad field file, include/fg/io.h; time, step
                                 and the run's hash as attributes) and the dataset objective_record
                                 (FGObjectiveGetRecord of steps 1..n)
    resume.h5                    the reverse sweep at position n (steps n+1..N done): u_adj.., p_adj,
                                 the gradient fields dJ_dchi_*, sens_* (when the caller wants them),
                                 chif_B_A (density bodies' face-mask adjoints), and the datasets
                                 sweep [format, n, N, recomputed, adjoint steps, design scalars,
                                 gradient in time?, 0], parameter_adjoints (the scalar parameter
                                 adjoints, summed over the ranks), objective_record (all N steps),
                                 gradient_time (N x scalars)

  parameter_adjoints has the layout of the solver's parameters (format 2: FGParamLayout,
  include/fg/solver.h). Format 1 (flowgrad before issue 19) held them in fixed slots:
  [nu, inflow, 3 x 16 per possible actuator, FG_BODY_MAX_PARAMS per possible body]; such a file
  is still read, so a sweep stopped by an earlier version resumes with this one.

  The hash (attribute case_hash) covers every case key that changes the result, the number of
  steps and the design vector; a file with another is refused.
*/
#include "sweepimpl.h"
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

static PetscErrorCode FGSweepStatePath_Private(FGSweep *sw, PetscInt step, char *path, size_t len)
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, len, "%s/state_%06" PetscInt_FMT ".h5", sw->dir, step));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The steps of the state files in the directory (rank 0 lists, all get it), ascending. */
PetscErrorCode FGSweepListStates_Internal(FGSweep *sw, PetscInt **steps, PetscInt *n)
{
  PetscMPIInt rank;
  PetscInt    cnt = 0, cap = 0, *list = NULL;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(sw->s->comm, &rank));
  if (!rank) {
    DIR *dir = opendir(sw->dir);
    if (dir) {
      struct dirent *e;
      while ((e = readdir(dir))) {
        long long k;
        char      tail[8];
        if (sscanf(e->d_name, "state_%lld.h%7s", &k, tail) == 2 && !strcmp(tail, "5") && k > 0) {
          if (cnt == cap) {
            cap = PetscMax(16, 2 * cap);
            PetscCall(PetscRealloc(sizeof(PetscInt) * (size_t)cap, &list));
          }
          list[cnt++] = (PetscInt)k;
        }
      }
      closedir(dir);
    }
    PetscCall(PetscSortInt(cnt, list));
  }
  PetscCallMPI(MPI_Bcast(&cnt, 1, MPIU_INT, 0, sw->s->comm));
  if (rank) PetscCall(PetscMalloc1(PetscMax(cnt, 1), &list));
  if (cnt) PetscCallMPI(MPI_Bcast(list, (PetscMPIInt)cnt, MPIU_INT, 0, sw->s->comm));
  *steps = list;
  *n     = cnt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Remove the sweep's files (rank 0): every state_* entry of the state directory (complete files,
   their sidecars, and temporaries a kill left behind) and, for a resumable run, resume.h5 (and its
   sidecar and temporaries). */
PetscErrorCode FGSweepClean_Internal(FGSweep *sw)
{
  PetscMPIInt rank;
  char        path[PETSC_MAX_PATH_LEN + 300];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(sw->s->comm, &rank));
  if (!rank) {
    DIR *dir = opendir(sw->dir);
    if (dir) {
      struct dirent *e;
      while ((e = readdir(dir)))
        if (!strncmp(e->d_name, "state_", 6)) {
          PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", sw->dir, e->d_name));
          (void)unlink(path);
        }
      closedir(dir);
    }
    if (sw->resumable) {
      static const char *tails[] = {"", ".tmp"};
      char               xmf[PETSC_MAX_PATH_LEN + 32];
      PetscCall(FGIOXDMFPath(sw->resume_path, xmf, sizeof(xmf)));
      for (int i = 0; i < 2; i++) {
        PetscCall(PetscSNPrintf(path, sizeof(path), "%s%s", sw->resume_path, tails[i]));
        (void)unlink(path);
        PetscCall(PetscSNPrintf(path, sizeof(path), "%s%s", xmf, tails[i]));
        (void)unlink(path);
      }
    }
  }
  PetscCallMPI(MPI_Barrier(sw->s->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The objective record of steps 1..n as an FGIOVector (rec: caller frees). */
static PetscErrorCode FGSweepRecord_Private(FGSweep *sw, PetscInt n, PetscReal **rec, FGIOVector *v)
{
  PetscInt len = FGObjectiveRecordSize(sw->o, n);

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(PetscMax(len, 1), rec));
  PetscCall(FGObjectiveGetRecord(sw->o, n, *rec));
  v->name   = "objective_record";
  v->n      = len;
  v->values = *rec;
  v->labels = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGSweepWriteState_Internal(FGSweep *sw)
{
  FGSolver   s = sw->s;
  FGIOField  f[4];
  FGIOMeta   meta = {0};
  FGIOVector v;
  PetscReal *rec;
  PetscInt   nf = 0;
  char       path[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBeginUser;
  PetscCall(FGIOAddState(s->grid, PETSC_FALSE, s->u, s->p, f, &nf));
  PetscCall(FGSweepRecord_Private(sw, s->step, &rec, &v));
  meta.time      = s->t;
  meta.step      = s->step;
  meta.case_hash = sw->hash;
  meta.case_name = s->c->name;
  meta.no_sidecar = PETSC_TRUE;
  meta.nvectors  = v.n ? 1 : 0;
  meta.vectors   = &v;
  PetscCall(FGSweepStatePath_Private(sw, s->step, path, sizeof(path)));
  PetscCall(FGIOWriteFields(s->grid, path, &meta, nf, f));
  PetscCall(PetscFree(rec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGSweepCheckHash_Private(FGSweep *sw, const char *path, FGIOMeta *meta)
{
  char name[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(FGIOReadMeta(sw->s->comm, path, meta, name, sizeof(name)));
  PetscCheck(meta->case_hash == sw->hash, sw->s->comm, FG_ERR_INPUT, "%s was written for another case, design or number of steps (hash %016llx, this run %016llx): run `flowgrad adjoint` without --resume to start over (it removes it)", path, meta->case_hash, sw->hash);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Put x_step from its state file into the solver (step > 0); with the record: the objective's too. */
PetscErrorCode FGSweepReadState_Internal(FGSweep *sw, PetscInt step, PetscBool record)
{
  FGSolver s = sw->s;
  FGIOMeta meta;
  char     path[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBeginUser;
  PetscCall(FGSweepStatePath_Private(sw, step, path, sizeof(path)));
  PetscCall(FGSweepCheckHash_Private(sw, path, &meta));
  PetscCheck(meta.step == step, s->comm, FG_ERR_IO_READ, "%s holds step %" PetscInt_FMT ", expected %" PetscInt_FMT " (damaged?)", path, meta.step, step);
  for (PetscInt a = 0; a < sw->dim; a++) PetscCall(FGIOReadField(s->grid, path, (const char *[]){"u", "v", "w"}[a], s->u[a]));
  PetscCall(FGIOReadField(s->grid, path, "p", s->p));
  s->t    = meta.time;
  s->step = step;
  if (record) {
    PetscInt   len = FGObjectiveRecordSize(sw->o, step);
    PetscReal *rec;
    PetscCall(PetscMalloc1(PetscMax(len, 1), &rec));
    if (len) PetscCall(FGIOReadVector(s->comm, path, "objective_record", len, rec));
    PetscCall(FGObjectiveSetRecord(sw->o, step, rec));
    PetscCall(PetscFree(rec));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* adjoint/resume.h5 at the current position. The scalar parameter adjoints are reduced onto
   rank 0 first (the others continue from 0), so the file holds the whole partial gradient. */
PetscErrorCode FGSweepWriteResume_Internal(FGSweep *sw)
{
  FGSolver    s = sw->s;
  FGIOField   f[4 + 3 + 3 + 3 * FG_CASE_MAX_BODIES];
  FGIOMeta    meta = {0};
  FGIOVector  v[4];
  PetscReal  *rec, info[8];
  PetscInt    nf = 0, nv = 0;
  PetscMPIInt rank;
  char        names[3 * FG_CASE_MAX_BODIES][32];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCall(FGParamsReduce(s->comm, &sw->bar));
  if (rank) PetscCall(PetscArrayzero(sw->bar.v, sw->bar.L->n)); /* the sum on rank 0, 0 elsewhere: the same total */
  PetscCall(FGIOAddState(s->grid, PETSC_TRUE, sw->ubar, sw->pbar, f, &nf));
  for (PetscInt a = 0; a < sw->dim; a++) {
    if (sw->bar.chibar[a]) {
      f[nf++] = (FGIOField){.name = (const char *[]){"dJ_dchi_x", "dJ_dchi_y", "dJ_dchi_z"}[a], .location = (FGLocation)(FG_LOC_FACE_X + a), .vec = sw->bar.chibar[a]};
    }
    if (sw->bar.sens[a]) {
      f[nf++] = (FGIOField){.name = (const char *[]){"sens_x", "sens_y", "sens_z"}[a], .location = (FGLocation)(FG_LOC_FACE_X + a), .vec = sw->bar.sens[a]};
    }
  }
  for (PetscInt b = 0; b < sw->nb; b++)
    for (PetscInt a = 0; a < sw->dim; a++)
      if (sw->bar.chif[b][a]) {
        PetscCall(PetscSNPrintf(names[3 * b + a], sizeof(names[0]), "chif_%" PetscInt_FMT "_%" PetscInt_FMT, b, a));
        f[nf++] = (FGIOField){.name = names[3 * b + a], .location = (FGLocation)(FG_LOC_FACE_X + a), .vec = sw->bar.chif[b][a]};
      }
  info[0]  = FG_SWEEP_FORMAT;
  info[1]  = (PetscReal)sw->position;
  info[2]  = (PetscReal)sw->N;
  info[3]  = (PetscReal)sw->recomputed;
  info[4]  = (PetscReal)sw->adjoint_steps;
  info[5]  = (PetscReal)sw->ns;
  info[6]  = sw->gtime ? 1 : 0;
  info[7]  = 0;
  v[nv++]  = (FGIOVector){"sweep", 8, info, NULL};
  v[nv++]  = (FGIOVector){"parameter_adjoints", sw->bar.L->n, sw->bar.v, NULL};
  PetscCall(FGSweepRecord_Private(sw, sw->N, &rec, &v[nv]));
  if (v[nv].n) nv++;
  if (sw->gtime && sw->ns) v[nv++] = (FGIOVector){"gradient_time", sw->N * sw->ns, sw->gtime, NULL};
  meta.time      = sw->s->t;
  meta.step      = sw->position;
  meta.case_hash = sw->hash;
  meta.case_name = s->c->name;
  meta.no_sidecar = PETSC_TRUE;
  meta.nvectors  = nv;
  meta.vectors   = v;
  PetscCall(FGIOWriteFields(s->grid, sw->resume_path, &meta, nf, f));
  PetscCall(PetscFree(rec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The parameter adjoints of a format-1 resume file (fixed slots, see the header) into the layout. */
static PetscErrorCode FGSweepReadFormat1_Private(FGSweep *sw)
{
  const FGParamLayout *L     = sw->bar.L;
  const PetscInt       nact  = 3 * FG_CASE_MAX_ACTUATORS * FG_CASE_MAX_TIME_BASIS;
  const PetscInt       nslot = 2 + nact + FG_CASE_MAX_BODIES * FG_BODY_MAX_PARAMS;
  PetscReal           *sc, *act = FGParamsActuators(&sw->bar);

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(nslot, &sc));
  PetscCall(FGIOReadVector(sw->s->comm, sw->resume_path, "parameter_adjoints", nslot, sc));
  sw->bar.v[FG_PARAM_NU]     = sc[0];
  sw->bar.v[FG_PARAM_INFLOW] = sc[1];
  for (PetscInt i = 0; i < 3 * L->nact; i++)
    for (PetscInt k = 0; k < L->nbasis; k++) act[i * L->nbasis + k] = sc[2 + i * FG_CASE_MAX_TIME_BASIS + k];
  for (PetscInt b = 0; b < L->nbodies; b++)
    for (PetscInt i = 0; i < L->nbody[b]; i++) sw->bar.theta[b][i] = sc[2 + nact + b * FG_BODY_MAX_PARAMS + i];
  PetscCall(PetscFree(sc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGSweepReadResume_Internal(FGSweep *sw)
{
  FGSolver    s = sw->s;
  FGIOMeta    meta;
  PetscReal   info[8], *rec;
  PetscInt    len = FGObjectiveRecordSize(sw->o, sw->N);
  PetscMPIInt rank;
  char        nm[32];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCall(FGSweepCheckHash_Private(sw, sw->resume_path, &meta));
  PetscCall(FGIOReadVector(s->comm, sw->resume_path, "sweep", 8, info));
  PetscCheck((info[0] == FG_SWEEP_FORMAT || info[0] == 1) && info[2] == (PetscReal)sw->N && info[1] >= 0 && info[1] < sw->N && info[5] == (PetscReal)sw->ns, s->comm, FG_ERR_IO_READ, "%s: not a resume file of this run (format %g, position %g of %g steps; damaged?)", sw->resume_path, (double)info[0], (double)info[1], (double)info[2]);
  sw->position      = (PetscInt)info[1];
  sw->recomputed    = (PetscInt)info[3];
  sw->adjoint_steps = (PetscInt)info[4];
  if (info[0] == FG_SWEEP_FORMAT) PetscCall(FGIOReadVector(s->comm, sw->resume_path, "parameter_adjoints", sw->bar.L->n, sw->bar.v));
  else PetscCall(FGSweepReadFormat1_Private(sw));
  if (rank) PetscCall(PetscArrayzero(sw->bar.v, sw->bar.L->n));
  for (PetscInt a = 0; a < sw->dim; a++) PetscCall(FGIOReadField(s->grid, sw->resume_path, (const char *[]){"u_adj", "v_adj", "w_adj"}[a], sw->ubar[a]));
  PetscCall(FGIOReadField(s->grid, sw->resume_path, "p_adj", sw->pbar));
  for (PetscInt a = 0; a < sw->dim; a++) {
    if (sw->bar.chibar[a]) PetscCall(FGIOReadField(s->grid, sw->resume_path, (const char *[]){"dJ_dchi_x", "dJ_dchi_y", "dJ_dchi_z"}[a], sw->bar.chibar[a]));
    if (sw->bar.sens[a]) PetscCall(FGIOReadField(s->grid, sw->resume_path, (const char *[]){"sens_x", "sens_y", "sens_z"}[a], sw->bar.sens[a]));
  }
  for (PetscInt b = 0; b < sw->nb; b++)
    for (PetscInt a = 0; a < sw->dim; a++)
      if (sw->bar.chif[b][a]) {
        PetscCall(PetscSNPrintf(nm, sizeof(nm), "chif_%" PetscInt_FMT "_%" PetscInt_FMT, b, a));
        PetscCall(FGIOReadField(s->grid, sw->resume_path, nm, sw->bar.chif[b][a]));
      }
  PetscCall(PetscMalloc1(PetscMax(len, 1), &rec));
  if (len) PetscCall(FGIOReadVector(s->comm, sw->resume_path, "objective_record", len, rec));
  PetscCall(FGObjectiveSetRecord(sw->o, sw->N, rec));
  PetscCall(PetscFree(rec));
  if (sw->gtime && sw->ns) {
    PetscCheck(info[6] == 1, s->comm, FG_ERR_IO_READ, "%s has no gradient in time", sw->resume_path);
    PetscCall(FGIOReadVector(s->comm, sw->resume_path, "gradient_time", sw->N * sw->ns, sw->gtime));
  }
  sw->frontier = sw->N;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The case's hash for the sweep's files: the keys that change the forward run or the objective
   (FGCaseRestartKeys: all but output, poisson, ...; here adjoint.* too, except mode), the
   number of steps and the design vector. */
PetscErrorCode FGSweepHash_Internal(FGSweep *sw)
{
  const FGCase      *c = sw->s->c;
  char              *keys, *line;
  size_t             len = 1 << 20;
  unsigned long long h   = 14695981039346656037ULL, hd, hk;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(len, &keys));
  PetscCall(FGCaseRestartKeys(c, keys, len, &hk));
  for (line = keys; *line;) {
    char  *end = strchr(line, '\n');
    size_t n   = end ? (size_t)(end - line + 1) : strlen(line);
    if (strncmp(line, "adjoint.", 8) || !strncmp(line, "adjoint.mode:", 13))
      for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)line[i]) * 1099511628211ULL;
    line += n;
  }
  PetscCall(PetscFree(keys));
  h = (h ^ (unsigned long long)sw->N) * 1099511628211ULL;
  PetscCall(FGDesignHash(sw->d, sw->p, &hd));
  sw->hash = h ^ hd;
  PetscFunctionReturn(PETSC_SUCCESS);
}
