/*
  Checkpoints (layout in include/fg/checkpoint.h): the dt history, the restart keys, finding the
  checkpoints of an output directory, and writing one. Checking and loading one: checkpoint_load.c.

  Writing reuses the field-file writer: FGIOWriteFields() puts u, v[, w], p and the root
  attributes into checkpoint_NNNNNN.h5.part (collectively, itself through a .tmp); this file then
  opens it again collectively to add the group /checkpoint (format, restart hash, the compared
  case keys, the dt history), flushes and closes it, and FGIORename() has rank 0 rename it to
  checkpoint_NNNNNN.h5 and sync the directory. A crash at any point leaves only *.part* files,
  which the next write removes. Older checkpoints are deleted after the rename: all but the newest
  output.checkpoint_keep, and every checkpoint with a step after the new one (left by an earlier,
  longer run in the same directory), so that "the newest checkpoint" is always the last one
  written.

  Restart keys. The hash on the root (case_hash) covers the whole resolved case, so it changes
  with time.steps or output.dir. The restart compares only what defines the trajectory: the
  caller passes the restart keys (FGCheckpointRun; FGCaseRestartKeys, src/case/resolved.c: every
  key of the resolved case except name, description, time.steps, time.cfl_max, poisson.* and
  output.*). They are kept in the checkpoint as text, so a refusal names the keys that differ.
*/
#define _POSIX_C_SOURCE 200809L /* dirent, unlink under -std=c11 */
#include <fg/checkpoint.h>
#include <fg/io.h>
#include <fg/iofile.h>
#include "ioimpl.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FG_CKPT_DIR_LEN (PETSC_MAX_PATH_LEN + 16) /* <output.dir>/checkpoints */

/* ---------------------------------------------------------------------------------------------
   dt history
   --------------------------------------------------------------------------------------------- */

/*@C
  FGDtHistoryPush - record one step of size dt (run-length encoded).

  Not collective.
@*/
PetscErrorCode FGDtHistoryPush(FGDtHistory *h, PetscReal dt)
{
  PetscFunctionBeginUser;
  if (h->n > 0 && h->dt[h->n - 1] == dt) {
    h->count[h->n - 1]++;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (h->n == h->cap) {
    PetscInt   cap = PetscMax(8, 2 * h->cap), *count;
    PetscReal *dts;
    PetscCall(PetscMalloc2(cap, &count, cap, &dts));
    if (h->n) {
      PetscCall(PetscArraycpy(count, h->count, h->n));
      PetscCall(PetscArraycpy(dts, h->dt, h->n));
    }
    PetscCall(PetscFree2(h->count, h->dt));
    h->count = count;
    h->dt    = dts;
    h->cap   = cap;
  }
  h->count[h->n] = 1;
  h->dt[h->n++]  = dt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The number of steps recorded. */
PetscInt FGDtHistorySteps(const FGDtHistory *h)
{
  PetscInt n = 0;
  for (PetscInt i = 0; i < h->n; i++) n += h->count[i];
  return n;
}

PetscErrorCode FGDtHistoryDestroy(FGDtHistory *h)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(h->count, h->dt));
  PetscCall(PetscMemzero(h, sizeof(*h)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Names and the directory
   --------------------------------------------------------------------------------------------- */

/*@C
  FGCheckpointPath - <output.dir>/checkpoints/checkpoint_NNNNNN.h5 of a step.

  Not collective.
@*/
PetscErrorCode FGCheckpointPath(const char *dir, PetscInt step, char *path, size_t len)
{
  int n;

  PetscFunctionBeginUser;
  n = snprintf(path, len, "%s/checkpoints/checkpoint_%06" PetscInt_FMT ".h5", dir, step);
  PetscCheck(n > 0 && (size_t)n < len, PETSC_COMM_SELF, FG_ERR_INPUT, "checkpoint file name too long (output.dir = %s)", dir);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The step of a complete checkpoint's name "checkpoint_<6 to 18 digits>.h5", or -1. */
static PetscInt FGCkptNameStep_Private(const char *name)
{
  size_t    n = strlen(name), nd;
  long long step = 0;

  if (n < 11 + 6 + 3 || strncmp(name, "checkpoint_", 11) || strcmp(name + n - 3, ".h5")) return -1;
  nd = n - 11 - 3;
  if (nd > 18) return -1;
  for (size_t i = 11; i < n - 3; i++) {
    if (name[i] < '0' || name[i] > '9') return -1;
    step = 10 * step + (name[i] - '0');
  }
  return (PetscInt)step;
}

typedef struct {
  PetscInt step;
  char     name[256];
} FGCkptEntry;

static int FGCkptEntryCompare_Private(const void *a, const void *b)
{
  const FGCkptEntry *x = (const FGCkptEntry *)a, *y = (const FGCkptEntry *)b;
  return x->step < y->step ? 1 : (x->step > y->step ? -1 : strcmp(x->name, y->name)); /* newest first */
}

/* Rank 0: the complete checkpoints of dir, newest first (none when dir is missing), and, when
   remove_partial, delete the leftovers of interrupted writes (checkpoint_*.h5.part*). */
static PetscErrorCode FGCkptScan_Private(const char *dir, PetscBool remove_partial, FGCkptEntry **list, PetscInt *n)
{
  DIR           *d;
  struct dirent *e;
  PetscInt       cap = 0;

  PetscFunctionBeginUser;
  *list = NULL;
  *n    = 0;
  d     = opendir(dir);
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  while ((e = readdir(d))) {
    PetscInt step = FGCkptNameStep_Private(e->d_name);
    if (step < 0) {
      if (remove_partial && !strncmp(e->d_name, "checkpoint_", 11) && strstr(e->d_name, ".h5.part")) {
        char p[FG_CHECKPOINT_PATH_LEN];
        if (snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) < (int)sizeof(p)) (void)unlink(p);
      }
      continue;
    }
    if (strlen(e->d_name) >= sizeof((*list)[0].name)) continue;
    if (*n == cap) {
      FGCkptEntry *grown;
      cap = PetscMax(16, 2 * cap);
      PetscCall(PetscMalloc1(cap, &grown));
      if (*n) PetscCall(PetscArraycpy(grown, *list, *n));
      PetscCall(PetscFree(*list));
      *list = grown;
    }
    (*list)[*n].step = step;
    snprintf((*list)[*n].name, sizeof((*list)[*n].name), "%s", e->d_name);
    (*n)++;
  }
  (void)closedir(d);
  if (*n > 1) qsort(*list, (size_t)*n, sizeof(FGCkptEntry), FGCkptEntryCompare_Private);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGCheckpointFind - the complete checkpoints in <output.dir>/checkpoints.

  Collective.

  Input Parameters:
+ comm   - communicator
- outdir - the run's output directory (output.dir)

  Output Parameter:
. list - how many, and the paths and steps of the newest two (the same on every rank)

  Notes:
  A complete checkpoint is a file named checkpoint_NNNNNN.h5 (the writer renames it to that name
  once it is complete); files of interrupted writes (*.part, *.tmp) are not counted. Whether a
  file is readable is checked by FGCheckpointLoad().

.seealso: FGCheckpointLoad(), FGCheckpointWrite()
@*/
PetscErrorCode FGCheckpointFind(MPI_Comm comm, const char *outdir, FGCheckpointList *list)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMemzero(list, sizeof(*list)));
  list->step = list->prev_step = -1;
  if (rank == 0) {
    char         dir[FG_CKPT_DIR_LEN];
    FGCkptEntry *e;
    PetscInt     n;
    snprintf(dir, sizeof(dir), "%s/checkpoints", outdir);
    PetscCall(FGCkptScan_Private(dir, PETSC_FALSE, &e, &n));
    list->count = n;
    if (n > 0) {
      list->step = e[0].step;
      snprintf(list->path, sizeof(list->path), "%s/%s", dir, e[0].name);
    }
    if (n > 1) {
      list->prev_step = e[1].step;
      snprintf(list->prev, sizeof(list->prev), "%s/%s", dir, e[1].name);
    }
    PetscCall(PetscFree(e));
  }
  PetscCallMPI(MPI_Bcast(list, (PetscMPIInt)sizeof(*list), MPI_BYTE, 0, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0, after checkpoint `step` is complete: delete every checkpoint with a later step (an
   earlier run's) and all but the newest `keep` up to `step`. Failures are warnings. */
static PetscErrorCode FGCkptPrune_Private(const char *dir, PetscInt step, PetscInt keep)
{
  FGCkptEntry *e;
  PetscInt     n, kept = 0;

  PetscFunctionBeginUser;
  PetscCall(FGCkptScan_Private(dir, PETSC_TRUE, &e, &n));
  for (PetscInt i = 0; i < n; i++) {
    char p[FG_CHECKPOINT_PATH_LEN];
    if (e[i].step <= step && kept < keep) {
      kept++;
      continue;
    }
    if (snprintf(p, sizeof(p), "%s/%s", dir, e[i].name) >= (int)sizeof(p)) continue;
    if (unlink(p) != 0) PetscCall(PetscFPrintf(PETSC_COMM_SELF, stderr, "flowgrad: warning: cannot delete the old checkpoint %s: %s\n", p, strerror(errno)));
  }
  PetscCall(PetscFree(e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Write
   --------------------------------------------------------------------------------------------- */

/* The checksum of a checkpoint's metadata: FNV-1a of each item in turn, numbers as their bytes,
   strings with their terminating zero (so that no two sequences run together). */
unsigned long long FGCheckpointMetaChecksum_Internal(const FGCkptMeta *m)
{
  unsigned long long h = FG_HASH_START;
  h = FGHashBytes(h, &m->time, sizeof(m->time));
  h = FGHashBytes(h, &m->step, sizeof(m->step));
  h = FGHashBytes(h, &m->dim, sizeof(m->dim));
  h = FGHashBytes(h, m->cells, sizeof(m->cells));
  h = FGHashBytes(h, m->lengths, sizeof(m->lengths));
  h = FGHashBytes(h, m->origin, sizeof(m->origin));
  h = FGHashBytes(h, &m->format, sizeof(m->format));
  h = FGHashBytes(h, m->restart_hash, strlen(m->restart_hash) + 1);
  h = FGHashBytes(h, m->restart_keys, strlen(m->restart_keys) + 1);
  h = FGHashBytes(h, &m->ndt, sizeof(m->ndt));
  h = FGHashBytes(h, m->dt_count, (size_t)m->ndt * sizeof(long long));
  h = FGHashBytes(h, m->dt_value, (size_t)m->ndt * sizeof(double));
  for (int a = 0; a < 4; a++)
    if (m->field_sums[a]) h = FGHashBytes(h, m->field_sums[a], strlen(m->field_sums[a]) + 1);
  return h;
}

/* Add the group /checkpoint to the complete field file `part` (collective). */
static PetscErrorCode FGCkptWriteGroup_Private(FGGrid g, const FGCheckpointRun *run, const FGDtHistory *h, PetscReal t, PetscInt step, const char *part)
{
  MPI_Comm           comm = g->comm;
  PetscMPIInt        size;
  PetscBool          ok;
  hid_t              fid, grp;
  hsize_t            n = (hsize_t)h->n;
  long long          format = FG_CHECKPOINT_FORMAT, nranks, *count;
  double            *dt;
  char               hex[17], why[320], msg[FG_CHECKPOINT_PATH_LEN + 400] = "";

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  nranks = (long long)size;
  snprintf(hex, sizeof(hex), "%016llx", run->keys_hash);
  PetscCall(PetscMalloc2(PetscMax(h->n, 1), &count, PetscMax(h->n, 1), &dt));
  for (PetscInt i = 0; i < h->n; i++) {
    count[i] = (long long)h->count[i];
    dt[i]    = (double)h->dt[i];
  }

  PetscCall(FGH5OpenFile_Internal(comm, part, H5F_ACC_RDWR, &fid, why, sizeof(why)));
  if (fid < 0) snprintf(msg, sizeof(msg), "cannot open %s again to complete the checkpoint: %s", part, why);
  PetscCall(FGIOAgree(comm, msg, sizeof(msg), &ok));
  if (!ok && fid >= 0) (void)H5Fclose(fid);
  PetscCheck(ok, comm, FG_ERR_IO_WRITE, "%s", msg);
  FGCallHDF5Return(FG_ERR_IO_WRITE, part, grp, H5Gcreate2, (fid, "checkpoint", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  PetscCall(FGH5WriteAttrInt64s_Internal(part, grp, "format", 1, &format));
  PetscCall(FGH5WriteAttrInt64s_Internal(part, grp, "nranks", 1, &nranks));
  PetscCall(FGH5WriteAttrString_Internal(part, grp, "restart_hash", hex));
  PetscCall(FGH5WriteStringDataset_Internal(comm, part, grp, "restart_keys", run->keys));
  PetscCall(FGH5WriteDataset_Internal(comm, part, grp, "dt_count", H5T_STD_I64LE, H5T_NATIVE_LLONG, 1, &n, count));
  PetscCall(FGH5WriteDataset_Internal(comm, part, grp, "dt_value", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n, dt));
  { /* the metadata's checksum, over the fields' checksums as written */
    FGCkptMeta m    = {.time = (double)t, .step = (long long)step, .dim = (long long)g->dim, .format = format, .restart_hash = hex, .restart_keys = run->keys, .ndt = (long long)n, .dt_count = count, .dt_value = dt};
    char      *sums[4] = {NULL, NULL, NULL, NULL}, mhex[17];
    PetscBool  has = PETSC_TRUE;
    for (PetscInt d = 0; d < 3; d++) m.cells[d] = (long long)g->n[d], m.lengths[d] = (double)g->L[d], m.origin[d] = (double)g->x0[d];
    for (PetscInt a = 0; a <= g->dim && has; a++) {
      hid_t dset;
      FGCallHDF5Return(FG_ERR_IO_WRITE, part, dset, H5Dopen2, (fid, a < g->dim ? (const char *[]){"u", "v", "w"}[a] : "p", H5P_DEFAULT));
      PetscCall(FGH5ReadString_Internal(dset, "checksum", PETSC_FALSE, &sums[a < g->dim ? a : 3], &has));
      FGCallHDF5(FG_ERR_IO_WRITE, part, H5Dclose, (dset));
    }
    PetscCheck(has, comm, FG_ERR_IO_WRITE, "checkpoint %s: a field has no checksum", part);
    for (int a = 0; a < 4; a++) m.field_sums[a] = sums[a];
    snprintf(mhex, sizeof(mhex), "%016llx", FGCheckpointMetaChecksum_Internal(&m));
    PetscCall(FGH5WriteAttrString_Internal(part, grp, "meta_checksum", mhex));
    for (int a = 0; a < 4; a++) PetscCall(PetscFree(sums[a]));
  }
  FGCallHDF5(FG_ERR_IO_WRITE, part, H5Gclose, (grp));
  FGCallHDF5(FG_ERR_IO_WRITE, part, H5Fflush, (fid, H5F_SCOPE_GLOBAL)); /* on disk before the rename */
  FGCallHDF5(FG_ERR_IO_WRITE, part, H5Fclose, (fid));
  PetscCall(PetscFree2(count, dt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGCheckpointWrite - write a state as checkpoint_NNNNNN.h5 and delete old ones.

  Collective on the grid's communicator.

  Input Parameters:
+ g    - the grid
. run  - the run the checkpoints belong to (its directory, how many to keep, the case hash, name and restart keys)
. u    - the velocity components, global Vecs of g->da on their faces
. p    - the pressure, at the cells
. t    - the time of the state
. step - its step
. h    - the dt of every step so far (FGDtHistorySteps(h) == step)
- len  - the size of path

  Output Parameter:
. path - the checkpoint written

  Notes:
  The caller checks the state first (a checkpoint is never written from a blown-up state). The
  file appears under its name only once complete; then all but the newest output.checkpoint_keep
  checkpoints are deleted, and any with a later step. Errors: FG_ERR_IO_OPEN / FG_ERR_IO_WRITE
  (exit 4), naming the file.

.seealso: FGCheckpointLoad(), FGIOWriteFields()
@*/
PetscErrorCode FGCheckpointWrite(FGGrid g, const FGCheckpointRun *run, Vec u[], Vec p, PetscReal t, PetscInt step, const FGDtHistory *h, char *path, size_t len)
{
  MPI_Comm    comm = g->comm;
  PetscMPIInt rank;
  char        dir[FG_CKPT_DIR_LEN], part[FG_CHECKPOINT_PATH_LEN + 8], msg[FG_CKPT_DIR_LEN + 256];
  FGIOField   f[4];
  PetscInt    nf   = 0;
  FGIOMeta    meta = {0};
  PetscBool   ok;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(FGDtHistorySteps(h) == step, comm, PETSC_ERR_PLIB, "the dt history has %" PetscInt_FMT " steps, the state is at step %" PetscInt_FMT, FGDtHistorySteps(h), step);
  PetscCall(FGCheckpointPath(run->dir, step, path, len));
  PetscCheck(snprintf(part, sizeof(part), "%s.part", path) < (int)sizeof(part), comm, FG_ERR_INPUT, "checkpoint file name too long: %s", path);
  snprintf(dir, sizeof(dir), "%s/checkpoints", run->dir);
  PetscCall(FGIOMakeDirectory(comm, dir, msg, sizeof(msg), &ok));
  PetscCheck(ok, comm, FG_ERR_IO_WRITE, "%s", msg);

  /* 1. the fields, through FGIOWriteFields (which writes part.tmp and renames it to part); a
        checkpoint needs no XDMF sidecar */
  PetscCall(FGIOAddState(g, PETSC_FALSE, u, p, f, &nf));
  meta.time       = t;
  meta.step       = step;
  meta.case_hash  = run->case_hash;
  meta.case_name  = run->case_name;
  meta.no_sidecar = PETSC_TRUE;
  PetscCall(FGIOWriteFields(g, part, &meta, nf, f));

  /* 2. the group /checkpoint */
  PetscCall(FGCkptWriteGroup_Private(g, run, h, t, step, part));

  /* 3. complete: rank 0 renames it */
  PetscCall(FGIORename(comm, part, path));

  /* 4. older checkpoints */
  if (rank == 0) PetscCall(FGCkptPrune_Private(dir, step, run->keep));
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
