/*
  Checkpoints: write, find, validate and load the state of a forward run (layout in
  include/fg/checkpoint.h).

  Writing reuses the field-file writer: FGIOWriteFields() puts u, v[, w], p and the root
  attributes into checkpoint_NNNNNN.h5.part (collectively, itself through a .tmp); this file then
  opens it again collectively to add the group /checkpoint (format, restart hash, the compared
  case keys, the dt history), flushes and closes it, and rank 0 renames it to
  checkpoint_NNNNNN.h5 and syncs the directory. A crash at any point leaves only *.part* files,
  which the next write removes. Older checkpoints are deleted after the rename: all but the newest
  output.checkpoint_keep, and every checkpoint with a step after the new one (left by an earlier,
  longer run in the same directory), so that "the newest checkpoint" is always the last one
  written.

  Loading checks, before any state is touched and with one verdict on every rank (HDF5 metadata
  is read collectively; every check ends in an MPI reduction):
    - the file is complete and readable: HDF5 signature, opens, has /checkpoint, its datasets and
      attributes, u, v[, w], p of the grid's shape, a dt history that adds up to its step, and
      finite values                                                        (damaged: exit 4)
    - format 1, the same grid (dim, cells, lengths, origin)                (mismatch: exit 2)
    - the same physics: the restart keys of the case equal the checkpoint's (mismatch: exit 2)

  Restart keys. The hash on the root (case_hash) covers the whole resolved case, so it changes
  with time.steps or output.dir. The restart compares only what defines the trajectory: every
  key of the resolved case except name, description, time.steps, time.cfl_max, poisson.* and
  output.*; that is grid.*, flow.*, time.dt, initial.*, boundary.* and any section added later
  (a new physics section is compared unless it is excluded here on purpose). The keys are kept in
  the checkpoint as text, so a refusal names the keys that differ.
*/
#define _POSIX_C_SOURCE 200809L /* fsync, O_DIRECTORY, dirent under -std=c11 */
#include <fg/checkpoint.h>
#include <fg/io.h>
#include "ioimpl.h"
#include <hdf5.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FG_CKPT_DIR_LEN (PETSC_MAX_PATH_LEN + 16)          /* <output.dir>/checkpoints */
#define FG_CKPT_MSG_LEN (3 * FG_CHECKPOINT_PATH_LEN + 1024) /* room for three paths */

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
   Restart keys
   --------------------------------------------------------------------------------------------- */

/* Keys of the resolved case that may change between a run and its resumption. */
static PetscBool FGCkptKeyExcluded_Private(const char *path)
{
  static const char *const exact[]  = {"name", "description", "time.steps", "time.cfl_max"};
  static const char *const prefix[] = {"poisson.", "output."};
  for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
    if (!strcmp(path, exact[i])) return PETSC_TRUE;
  for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
    if (!strncmp(path, prefix[i], strlen(prefix[i]))) return PETSC_TRUE;
  return PETSC_FALSE;
}

/*@C
  FGCheckpointRestartKeys - the part of the resolved case a checkpoint must agree with, and its hash.

  Not collective.

  Input Parameters:
+ c   - the case
- len - the size of keys

  Output Parameters:
+ keys - one line "dotted.key: value" per compared key of c->resolved, in its order
- hash - FNV-1a 64-bit hash of keys

  Notes:
  Every key except name, description, time.steps, time.cfl_max, poisson.* and output.*: a run
  may be resumed with more steps, another output directory, monitor or checkpoint cadence, another
  blow-up guard or another Poisson solver (fftw and ksp solve the same equations; ksp only to its
  tolerance).

.seealso: FGCheckpointLoad()
@*/
PetscErrorCode FGCheckpointRestartKeys(const FGCase *c, char *keys, size_t len, unsigned long long *hash)
{
  char        stack[8][64];
  size_t      used = 0;
  const char *line = c->resolved;

  PetscFunctionBeginUser;
  keys[0] = '\0';
  while (*line) {
    const char *end = strchr(line, '\n'), *colon;
    size_t      n   = end ? (size_t)(end - line) : strlen(line), indent = 0, klen;
    PetscInt    level;

    while (indent < n && line[indent] == ' ') indent++;
    colon = memchr(line, ':', n);
    if (indent < n && line[indent] != '#' && colon) {
      const char *value = colon + 1;
      char        path[256] = "";
      level             = (PetscInt)(indent / 2);
      klen              = (size_t)(colon - (line + indent));
      PetscCheck(level < 8 && klen < sizeof(stack[0]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "unexpected line in the resolved case: %.*s", (int)n, line);
      snprintf(stack[level], sizeof(stack[level]), "%.*s", (int)klen, line + indent);
      if (value < line + n) { /* a key with a value (a section line ends at its colon) */
        while (value < line + n && *value == ' ') value++;
        for (PetscInt l = 0; l <= level; l++) {
          size_t pl = strlen(path);
          snprintf(path + pl, sizeof(path) - pl, "%s%s", l ? "." : "", stack[l]);
        }
        if (!FGCkptKeyExcluded_Private(path)) {
          int w = snprintf(keys + used, len - used, "%s: %.*s\n", path, (int)(line + n - value), value);
          PetscCheck(w > 0 && (size_t)w < len - used, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the restart keys do not fit in %zu bytes", len);
          used += (size_t)w;
        }
      }
    }
    line = end ? end + 1 : line + n;
  }
  *hash = 14695981039346656037ULL;
  for (size_t i = 0; i < used; i++) {
    *hash ^= (unsigned char)keys[i];
    *hash *= 1099511628211ULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The value of "key: value" in a restart-keys text (NULL when absent). */
static const char *FGCkptKeyValue_Private(const char *text, const char *key, size_t klen, size_t *vlen)
{
  for (const char *l = text; l && *l;) {
    const char *end = strchr(l, '\n');
    if (!strncmp(l, key, klen) && l[klen] == ':' && l[klen + 1] == ' ') {
      const char *v = l + klen + 2;
      *vlen         = end ? (size_t)(end - v) : strlen(v);
      return v;
    }
    l = end ? end + 1 : NULL;
  }
  return NULL;
}

/* "flow.re = 200 in the checkpoint, 100 now; ..." for the keys that differ (at most 4 named). */
static void FGCkptKeysDiff_Private(const char *old, const char *now, char *out, size_t len)
{
  int    named = 0, more = 0;
  size_t used  = 0;

  out[0] = '\0';
  for (int pass = 0; pass < 2; pass++) {
    const char *a = pass ? old : now, *b = pass ? now : old;
    for (const char *l = a; l && *l;) {
      const char *end = strchr(l, '\n'), *colon = strchr(l, ':');
      size_t      klen, alen, blen = 0;
      const char *av, *bv;
      if (!colon || (end && colon > end)) break;
      klen = (size_t)(colon - l);
      av   = colon + 2;
      alen = end ? (size_t)(end - av) : strlen(av);
      bv   = FGCkptKeyValue_Private(b, l, klen, &blen);
      if ((pass == 0 && (!bv || blen != alen || strncmp(av, bv, alen))) || (pass == 1 && !bv)) {
        if (named < 4 && used < len) {
          int w;
          if (pass == 1) w = snprintf(out + used, len - used, "%s%.*s = %.*s in the checkpoint, not set now", named ? "; " : "", (int)klen, l, (int)alen, av);
          else if (!bv) w = snprintf(out + used, len - used, "%s%.*s = %.*s now, not in the checkpoint", named ? "; " : "", (int)klen, l, (int)alen, av);
          else w = snprintf(out + used, len - used, "%s%.*s = %.*s in the checkpoint, %.*s now", named ? "; " : "", (int)klen, l, (int)blen, bv, (int)alen, av);
          if (w > 0) used += (size_t)w;
          named++;
        } else more++;
      }
      l = end ? end + 1 : NULL;
    }
  }
  if (more && used < len) snprintf(out + used, len - used, "; and %d more", more);
  if (!named && len) snprintf(out, len, "the compared keys are equal, but the stored hash is not theirs");
}

/* ---------------------------------------------------------------------------------------------
   Helpers: HDF5 errors, verdicts shared by all ranks
   --------------------------------------------------------------------------------------------- */

/* An HDF5 call that should not fail (the file is open and ours): error on this rank. */
#define FGCkptCheckHDF5_Private(cls, path, func, value) \
  do { \
    if (PetscUnlikely((long long)(value) < 0)) { \
      char _fg_m[320]; \
      FGIOHDF5Message(_fg_m, sizeof(_fg_m)); \
      SETERRQ(PETSC_COMM_SELF, cls, "checkpoint %s: HDF5 call %s failed: %s", path, #func, _fg_m); \
    } \
  } while (0)
#define FGCkptCallW_Private(path, func, args)     FGCkptCheckHDF5_Private(FG_ERR_IO_WRITE, path, func, func args)
#define FGCkptGetW_Private(path, var, func, args) FGCkptCheckHDF5_Private(FG_ERR_IO_WRITE, path, func, (var) = func args)
#define FGCkptCallR_Private(path, func, args)     FGCkptCheckHDF5_Private(FG_ERR_IO_READ, path, func, func args)

/* Whether msg is empty on every rank; if not, msg becomes the message of the lowest rank that
   has one (the same text everywhere, so the error can be raised on comm). */
static PetscErrorCode FGCkptVerdict_Private(MPI_Comm comm, char *msg, size_t len, PetscBool *ok)
{
  PetscMPIInt rank, size;
  int         mine, first;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  mine = msg[0] ? (int)rank : (int)size;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  *ok = (PetscBool)(first == (int)size);
  if (!*ok) PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)len, MPI_CHAR, first, comm));
  msg[len - 1] = '\0';
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGCkptFileAccess_Private(MPI_Comm comm, const char *path, hid_t *fapl)
{
  PetscFunctionBeginUser;
  FGCkptCheckHDF5_Private(FG_ERR_IO_OPEN, path, H5Pcreate, *fapl = H5Pcreate(H5P_FILE_ACCESS));
  FGCkptCheckHDF5_Private(FG_ERR_IO_OPEN, path, H5Pset_fapl_mpio, H5Pset_fapl_mpio(*fapl, comm, MPI_INFO_NULL));
  FGCkptCheckHDF5_Private(FG_ERR_IO_OPEN, path, H5Pset_all_coll_metadata_ops, H5Pset_all_coll_metadata_ops(*fapl, 1));
  FGCkptCheckHDF5_Private(FG_ERR_IO_OPEN, path, H5Pset_coll_metadata_write, H5Pset_coll_metadata_write(*fapl, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* fsync the directory holding path (makes a rename durable; best effort). */
static void FGCkptSyncDir_Private(const char *path)
{
  char        dir[PETSC_MAX_PATH_LEN];
  const char *slash = strrchr(path, '/');
  int         fd;

  if (!slash) snprintf(dir, sizeof(dir), ".");
  else snprintf(dir, sizeof(dir), "%.*s", (int)(slash == path ? 1 : slash - path), path);
  fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    (void)fsync(fd);
    (void)close(fd);
  }
}

/* ---------------------------------------------------------------------------------------------
   Names and the directory
   --------------------------------------------------------------------------------------------- */

/*@C
  FGCheckpointPath - <output.dir>/checkpoints/checkpoint_NNNNNN.h5 of a step.

  Not collective.
@*/
PetscErrorCode FGCheckpointPath(const FGCase *c, PetscInt step, char *path, size_t len)
{
  int n;

  PetscFunctionBeginUser;
  n = snprintf(path, len, "%s/checkpoints/checkpoint_%06" PetscInt_FMT ".h5", c->output.dir, step);
  PetscCheck(n > 0 && (size_t)n < len, PETSC_COMM_SELF, FG_ERR_INPUT, "checkpoint file name too long (output.dir = %s)", c->output.dir);
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
+ comm - communicator
- c    - the case

  Output Parameter:
. list - how many, and the paths and steps of the newest two (the same on every rank)

  Notes:
  A complete checkpoint is a file named checkpoint_NNNNNN.h5 (the writer renames it to that name
  once it is complete); files of interrupted writes (*.part, *.tmp) are not counted. Whether a
  file is readable is checked by FGCheckpointLoad().

.seealso: FGCheckpointLoad(), FGCheckpointWrite()
@*/
PetscErrorCode FGCheckpointFind(MPI_Comm comm, const FGCase *c, FGCheckpointList *list)
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
    snprintf(dir, sizeof(dir), "%s/checkpoints", c->output.dir);
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

static PetscErrorCode FGCkptWriteAttr_Private(const char *path, hid_t loc, const char *name, hid_t filetype, hid_t memtype, const void *v)
{
  hid_t space, attr;

  PetscFunctionBeginUser;
  FGCkptGetW_Private(path, space, H5Screate, (H5S_SCALAR));
  FGCkptGetW_Private(path, attr, H5Acreate2, (loc, name, filetype, space, H5P_DEFAULT, H5P_DEFAULT));
  FGCkptCallW_Private(path, H5Awrite, (attr, memtype, v));
  FGCkptCallW_Private(path, H5Aclose, (attr));
  FGCkptCallW_Private(path, H5Sclose, (space));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A fixed-length, null-terminated ASCII string type of strlen(s) + 1 bytes. */
static PetscErrorCode FGCkptStringType_Private(const char *path, const char *s, hid_t *type)
{
  PetscFunctionBeginUser;
  FGCkptGetW_Private(path, *type, H5Tcopy, (H5T_C_S1));
  FGCkptCallW_Private(path, H5Tset_size, (*type, strlen(s) + 1));
  FGCkptCallW_Private(path, H5Tset_strpad, (*type, H5T_STR_NULLTERM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A small dataset of the group: created by all ranks, written in one collective H5Dwrite in
   which rank 0 selects everything and the others nothing. */
static PetscErrorCode FGCkptWriteDataset_Private(const char *path, hid_t loc, const char *name, hid_t filetype, hid_t memtype, hid_t space, const void *v, PetscMPIInt rank)
{
  hid_t dset, sel, dxpl;

  PetscFunctionBeginUser;
  FGCkptGetW_Private(path, dset, H5Dcreate2, (loc, name, filetype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (H5Sget_simple_extent_npoints(space) > 0) { /* the same on every rank */
    FGCkptGetW_Private(path, sel, H5Scopy, (space));
    if (rank != 0) FGCkptCallW_Private(path, H5Sselect_none, (sel));
    FGCkptGetW_Private(path, dxpl, H5Pcreate, (H5P_DATASET_XFER));
    FGCkptCallW_Private(path, H5Pset_dxpl_mpio, (dxpl, H5FD_MPIO_COLLECTIVE));
    FGCkptCallW_Private(path, H5Dwrite, (dset, memtype, sel, sel, dxpl, v));
    FGCkptCallW_Private(path, H5Pclose, (dxpl));
    FGCkptCallW_Private(path, H5Sclose, (sel));
  }
  FGCkptCallW_Private(path, H5Dclose, (dset));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Add the group /checkpoint to the complete field file `part` (collective). */
static PetscErrorCode FGCkptWriteGroup_Private(FGSolver s, const FGDtHistory *h, const char *part)
{
  MPI_Comm           comm = s->comm;
  PetscMPIInt        rank, size;
  hid_t              fapl, fid, grp, type, space;
  hsize_t            n = (hsize_t)h->n;
  long long          format = FG_CHECKPOINT_FORMAT, nranks, *count;
  double            *dt;
  char              *keys, hex[17];
  unsigned long long hash;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  nranks = (long long)size;
  PetscCall(PetscMalloc1(sizeof(s->c->resolved), &keys));
  PetscCall(FGCheckpointRestartKeys(s->c, keys, sizeof(s->c->resolved), &hash));
  snprintf(hex, sizeof(hex), "%016llx", hash);
  PetscCall(PetscMalloc2(PetscMax(h->n, 1), &count, PetscMax(h->n, 1), &dt));
  for (PetscInt i = 0; i < h->n; i++) {
    count[i] = (long long)h->count[i];
    dt[i]    = (double)h->dt[i];
  }

  PetscCall(FGCkptFileAccess_Private(comm, part, &fapl));
  fid = H5Fopen(part, H5F_ACC_RDWR, fapl);
  FGCkptCheckHDF5_Private(FG_ERR_IO_WRITE, part, H5Fopen, fid);
  FGCkptCallW_Private(part, H5Pclose, (fapl));
  FGCkptGetW_Private(part, grp, H5Gcreate2, (fid, "checkpoint", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  PetscCall(FGCkptWriteAttr_Private(part, grp, "format", H5T_STD_I64LE, H5T_NATIVE_LLONG, &format));
  PetscCall(FGCkptWriteAttr_Private(part, grp, "nranks", H5T_STD_I64LE, H5T_NATIVE_LLONG, &nranks));
  PetscCall(FGCkptStringType_Private(part, hex, &type));
  PetscCall(FGCkptWriteAttr_Private(part, grp, "restart_hash", type, type, hex));
  FGCkptCallW_Private(part, H5Tclose, (type));

  PetscCall(FGCkptStringType_Private(part, keys, &type));
  FGCkptGetW_Private(part, space, H5Screate, (H5S_SCALAR));
  PetscCall(FGCkptWriteDataset_Private(part, grp, "restart_keys", type, type, space, keys, rank));
  FGCkptCallW_Private(part, H5Sclose, (space));
  FGCkptCallW_Private(part, H5Tclose, (type));

  FGCkptGetW_Private(part, space, H5Screate_simple, (1, &n, NULL));
  PetscCall(FGCkptWriteDataset_Private(part, grp, "dt_count", H5T_STD_I64LE, H5T_NATIVE_LLONG, space, count, rank));
  PetscCall(FGCkptWriteDataset_Private(part, grp, "dt_value", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, space, dt, rank));
  FGCkptCallW_Private(part, H5Sclose, (space));

  FGCkptCallW_Private(part, H5Gclose, (grp));
  FGCkptCallW_Private(part, H5Fflush, (fid, H5F_SCOPE_GLOBAL)); /* on disk before the rename */
  FGCkptCallW_Private(part, H5Fclose, (fid));
  PetscCall(PetscFree2(count, dt));
  PetscCall(PetscFree(keys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGCheckpointWrite - write the solver's state as checkpoint_NNNNNN.h5 and delete old ones.

  Collective.

  Input Parameters:
+ s   - the solver (its state u, p, t, step)
. h   - the dt of every step so far
- len - the size of path

  Output Parameter:
. path - the checkpoint written

  Notes:
  The caller checks the state first (a checkpoint is never written from a blown-up state). The
  file appears under its name only once complete; then all but the newest output.checkpoint_keep
  checkpoints are deleted, and any with a later step. Errors: FG_ERR_IO_OPEN / FG_ERR_IO_WRITE
  (exit 4), naming the file.

.seealso: FGCheckpointLoad(), FGIOWriteFields()
@*/
PetscErrorCode FGCheckpointWrite(FGSolver s, const FGDtHistory *h, char *path, size_t len)
{
  const FGCase *c    = s->c;
  MPI_Comm      comm = s->comm;
  PetscMPIInt   rank;
  char          dir[FG_CKPT_DIR_LEN], part[FG_CHECKPOINT_PATH_LEN + 8], msg[FG_CKPT_MSG_LEN] = "";
  FGIOField     f[4];
  PetscInt      nf = 0;
  FGIOMeta      meta = {0};
  PetscBool     ok;

  PetscFunctionBeginUser;
  (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(FGDtHistorySteps(h) == s->step, comm, PETSC_ERR_PLIB, "the dt history has %" PetscInt_FMT " steps, the solver is at step %" PetscInt_FMT, FGDtHistorySteps(h), s->step);
  PetscCall(FGCheckpointPath(c, s->step, path, len));
  PetscCheck(snprintf(part, sizeof(part), "%s.part", path) < (int)sizeof(part), comm, FG_ERR_INPUT, "checkpoint file name too long: %s", path);
  snprintf(dir, sizeof(dir), "%s/checkpoints", c->output.dir);
  if (rank == 0) {
    struct stat st;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) snprintf(msg, sizeof(msg), "cannot create the checkpoint directory %s: %s", dir, strerror(errno));
    else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) snprintf(msg, sizeof(msg), "cannot use %s as the checkpoint directory: not a directory", dir);
  }
  PetscCall(FGCkptVerdict_Private(comm, msg, sizeof(msg), &ok));
  PetscCheck(ok, comm, FG_ERR_IO_WRITE, "%s", msg);

  /* 1. the fields, through FGIOWriteFields (which writes part.tmp and renames it to part) */
  PetscCall(FGIOAddState(s->grid, PETSC_FALSE, s->u, s->p, f, &nf));
  meta.time      = s->t;
  meta.step      = s->step;
  meta.case_hash = c->hash;
  meta.case_name = c->name;
  PetscCall(FGIOWriteFields(s->grid, part, &meta, nf, f));
  if (rank == 0) { /* a checkpoint needs no XDMF sidecar */
    char xmf[FG_CHECKPOINT_PATH_LEN + 16];
    PetscCall(FGIOXDMFPath(part, xmf, sizeof(xmf)));
    (void)unlink(xmf);
  }

  /* 2. the group /checkpoint */
  PetscCall(FGCkptWriteGroup_Private(s, h, part));

  /* 3. complete: rank 0 renames it */
  PetscCallMPI(MPI_Barrier(comm));
  if (rank == 0) {
    if (rename(part, path) != 0) {
      snprintf(msg, sizeof(msg), "cannot rename %s to %s: %s", part, path, strerror(errno));
      (void)unlink(part);
    } else FGCkptSyncDir_Private(path);
  }
  PetscCall(FGCkptVerdict_Private(comm, msg, sizeof(msg), &ok));
  PetscCheck(ok, comm, FG_ERR_IO_WRITE, "%s", msg);

  /* 4. older checkpoints */
  if (rank == 0) PetscCall(FGCkptPrune_Private(dir, s->step, c->output.checkpoint_keep));
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Load
   --------------------------------------------------------------------------------------------- */

/* Read a numeric attribute of n elements; false when missing or not a number of n elements. */
static PetscBool FGCkptReadAttrNumber_Private(hid_t loc, const char *name, hid_t memtype, hssize_t n, void *v)
{
  hid_t     attr, space, type;
  PetscBool ok = PETSC_FALSE;

  if (H5Aexists(loc, name) <= 0) return PETSC_FALSE;
  if ((attr = H5Aopen(loc, name, H5P_DEFAULT)) < 0) return PETSC_FALSE;
  space = H5Aget_space(attr);
  type  = H5Aget_type(attr);
  if (space >= 0 && type >= 0 && H5Sget_simple_extent_npoints(space) == n && (H5Tget_class(type) == H5T_INTEGER || H5Tget_class(type) == H5T_FLOAT)) ok = (PetscBool)(H5Aread(attr, memtype, v) >= 0);
  if (type >= 0) (void)H5Tclose(type);
  if (space >= 0) (void)H5Sclose(space);
  (void)H5Aclose(attr);
  return ok;
}

/* Read a fixed-length string attribute or scalar dataset into a new buffer (PetscFree it). */
static PetscBool FGCkptReadString_Private(hid_t loc, const char *name, PetscBool dataset, char **out)
{
  hid_t     obj, type, mem;
  size_t    size;
  PetscBool ok = PETSC_FALSE;

  *out = NULL;
  if (dataset ? H5Lexists(loc, name, H5P_DEFAULT) <= 0 : H5Aexists(loc, name) <= 0) return PETSC_FALSE;
  obj = dataset ? H5Dopen2(loc, name, H5P_DEFAULT) : H5Aopen(loc, name, H5P_DEFAULT);
  if (obj < 0) return PETSC_FALSE;
  type = dataset ? H5Dget_type(obj) : H5Aget_type(obj);
  if (type >= 0 && H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) == 0 && (size = H5Tget_size(type)) > 0 && size < (1u << 24) && !PetscMalloc1(size + 1, out)) {
    mem = H5Tcopy(H5T_C_S1);
    if (mem >= 0 && H5Tset_size(mem, size + 1) >= 0 && H5Tset_strpad(mem, H5T_STR_NULLTERM) >= 0) ok = (PetscBool)((dataset ? H5Dread(obj, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) : H5Aread(obj, mem, *out)) >= 0);
    if (mem >= 0) (void)H5Tclose(mem);
    (*out)[size] = '\0';
  }
  if (type >= 0) (void)H5Tclose(type);
  (void)(dataset ? H5Dclose(obj) : H5Aclose(obj));
  if (!ok && *out) {
    (void)PetscFree(*out);
    *out = NULL;
  }
  return ok;
}

/* Read a 1-D numeric dataset of the group (all elements, on every rank); n = its length. */
static PetscBool FGCkptReadArray_Private(hid_t loc, const char *name, hid_t memtype, size_t elsize, void **v, hsize_t *n)
{
  hid_t     dset, space, type;
  PetscBool ok = PETSC_FALSE;

  *v = NULL;
  *n = 0;
  if (H5Lexists(loc, name, H5P_DEFAULT) <= 0 || (dset = H5Dopen2(loc, name, H5P_DEFAULT)) < 0) return PETSC_FALSE;
  space = H5Dget_space(dset);
  type  = H5Dget_type(dset);
  if (space >= 0 && type >= 0 && H5Sget_simple_extent_ndims(space) == 1 && (H5Tget_class(type) == H5T_INTEGER || H5Tget_class(type) == H5T_FLOAT) && H5Sget_simple_extent_dims(space, n, NULL) == 1 && *n < ((hsize_t)1 << 40)) {
    if (!PetscMalloc(elsize * (size_t)(*n > 0 ? *n : 1), v)) ok = (PetscBool)(*n == 0 || H5Dread(dset, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, *v) >= 0);
  }
  if (type >= 0) (void)H5Tclose(type);
  if (space >= 0) (void)H5Sclose(space);
  (void)H5Dclose(dset);
  if (!ok && *v) {
    (void)PetscFree(*v);
    *v = NULL;
  }
  return ok;
}

/* Whether dataset name is a float array of the grid's shape; why not in msg. */
static void FGCkptCheckField_Private(FGGrid g, hid_t fid, const char *name, char *msg, size_t len)
{
  hid_t   dset, space, type;
  hsize_t dims[H5S_MAX_RANK];
  int     nd;

  if (H5Lexists(fid, name, H5P_DEFAULT) <= 0 || (dset = H5Dopen2(fid, name, H5P_DEFAULT)) < 0) {
    snprintf(msg, len, "no dataset /%s", name);
    return;
  }
  space = H5Dget_space(dset);
  type  = H5Dget_type(dset);
  nd    = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
  if (type < 0 || H5Tget_class(type) != H5T_FLOAT) snprintf(msg, len, "dataset /%s is not floating point", name);
  else if (nd != (int)g->dim || H5Sget_simple_extent_dims(space, dims, NULL) != nd) snprintf(msg, len, "dataset /%s has %d dimensions, not %d", name, nd, (int)g->dim);
  else
    for (int d = 0; d < nd; d++)
      if (dims[d] != (hsize_t)g->n[g->dim - 1 - d]) {
        snprintf(msg, len, "dataset /%s does not have the shape of the grid named by its attributes", name);
        break;
      }
  if (type >= 0) (void)H5Tclose(type);
  if (space >= 0) (void)H5Sclose(space);
  (void)H5Dclose(dset);
}

typedef struct {
  long long  dim, cells[3], format, nranks;
  double     lengths[3], origin[3];
  char      *hash, *keys;
  long long *count;
  double    *dt;
  hsize_t    ndt;
} FGCkptContents;

/* Rank 0: the file exists, is a regular non-empty file with the HDF5 signature at offset 0. */
static void FGCkptCheckFile_Private(const char *path, char *msg, size_t len)
{
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char              buf[8];
  struct stat                st;
  FILE                      *fp;

  if (stat(path, &st) != 0) snprintf(msg, len, "cannot read it: %s", strerror(errno));
  else if (!S_ISREG(st.st_mode)) snprintf(msg, len, "not a regular file");
  else if (st.st_size == 0) snprintf(msg, len, "empty file");
  else if (!(fp = fopen(path, "rb"))) snprintf(msg, len, "cannot read it: %s", strerror(errno));
  else {
    if (fread(buf, 1, 8, fp) != 8 || memcmp(buf, sig, 8)) snprintf(msg, len, "not an HDF5 file");
    (void)fclose(fp);
  }
}

/* Open and read everything but the fields' values; msg says what is wrong (empty: fine). */
static PetscErrorCode FGCkptReadContents_Private(FGSolver s, const char *path, FGCkptContents *k, char *msg, size_t len)
{
  hid_t fapl, fid, root, grp = -1;

  PetscFunctionBeginUser;
  PetscCall(FGCkptFileAccess_Private(s->comm, path, &fapl));
  fid = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  if (fid < 0) {
    char h5[400];
    FGIOHDF5Message(h5, sizeof(h5)); /* before any other HDF5 call clears the stack */
    snprintf(msg, len, "HDF5 cannot open it: %s", h5);
  }
  (void)H5Pclose(fapl);
  if (fid < 0) PetscFunctionReturn(PETSC_SUCCESS);
  root = H5Gopen2(fid, "/", H5P_DEFAULT);
  if (root < 0 || !FGCkptReadAttrNumber_Private(root, "dim", H5T_NATIVE_LLONG, 1, &k->dim) || !FGCkptReadAttrNumber_Private(root, "cells", H5T_NATIVE_LLONG, 3, k->cells) || !FGCkptReadAttrNumber_Private(root, "lengths", H5T_NATIVE_DOUBLE, 3, k->lengths) ||
      !FGCkptReadAttrNumber_Private(root, "origin", H5T_NATIVE_DOUBLE, 3, k->origin))
    snprintf(msg, len, "the attributes dim, cells, lengths, origin of / are missing or malformed");
  else if (H5Lexists(fid, "checkpoint", H5P_DEFAULT) <= 0 || (grp = H5Gopen2(fid, "checkpoint", H5P_DEFAULT)) < 0) snprintf(msg, len, "no group /checkpoint (a field file, or a checkpoint whose writing did not finish?)");
  else {
    hsize_t nc = 0;
    void   *pc = NULL, *pd = NULL;
    if (!FGCkptReadAttrNumber_Private(grp, "format", H5T_NATIVE_LLONG, 1, &k->format)) snprintf(msg, len, "attribute /checkpoint/format is missing or malformed");
    else if (!FGCkptReadAttrNumber_Private(grp, "nranks", H5T_NATIVE_LLONG, 1, &k->nranks)) snprintf(msg, len, "attribute /checkpoint/nranks is missing or malformed");
    else if (!FGCkptReadString_Private(grp, "restart_hash", PETSC_FALSE, &k->hash)) snprintf(msg, len, "attribute /checkpoint/restart_hash is missing or malformed");
    else if (!FGCkptReadString_Private(grp, "restart_keys", PETSC_TRUE, &k->keys)) snprintf(msg, len, "dataset /checkpoint/restart_keys is missing or malformed");
    else if (!FGCkptReadArray_Private(grp, "dt_count", H5T_NATIVE_LLONG, sizeof(long long), &pc, &nc) || !FGCkptReadArray_Private(grp, "dt_value", H5T_NATIVE_DOUBLE, sizeof(double), &pd, &k->ndt) || nc != k->ndt) snprintf(msg, len, "the dt history /checkpoint/dt_count, dt_value is missing or malformed");
    k->count = (long long *)pc;
    k->dt    = (double *)pd;
    (void)H5Gclose(grp);
  }
  if (!msg[0] && k->dim >= 2 && k->dim <= 3 && k->dim == s->grid->dim) {
    /* the fields (their grid is checked by the caller, so only when it is this one) */
    PetscBool same = PETSC_TRUE;
    for (PetscInt d = 0; d < 3; d++) same = (PetscBool)(same && k->cells[d] == (long long)s->grid->n[d]);
    for (PetscInt a = 0; same && a <= s->grid->dim && !msg[0]; a++) FGCkptCheckField_Private(s->grid, fid, a < s->grid->dim ? (const char *[]){"u", "v", "w"}[a] : "p", msg, len);
  }
  if (root >= 0) (void)H5Gclose(root);
  if (H5Fclose(fid) < 0 && !msg[0]) snprintf(msg, len, "HDF5 cannot close it");
  (void)H5Eclear2(H5E_DEFAULT);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGCkptContentsFree_Private(FGCkptContents *k)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(k->hash));
  PetscCall(PetscFree(k->keys));
  PetscCall(PetscFree(k->count));
  PetscCall(PetscFree(k->dt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "16 x 16 cells, lengths 1 x 1, origin 0, 0" */
static void FGCkptGridString_Private(PetscInt dim, const long long cells[], const double L[], const double x0[], char *buf, size_t len)
{
  if (dim == 3) snprintf(buf, len, "%lld x %lld x %lld cells, lengths %g x %g x %g, origin (%g, %g, %g)", cells[0], cells[1], cells[2], L[0], L[1], L[2], x0[0], x0[1], x0[2]);
  else snprintf(buf, len, "%lld x %lld cells, lengths %g x %g, origin (%g, %g)", cells[0], cells[1], L[0], L[1], x0[0], x0[1]);
}

/*@C
  FGCheckpointLoad - check a checkpoint against the case and load it into the solver.

  Collective.

  Input Parameters:
+ s    - the solver of the case (any number of ranks)
- list - the checkpoints found (FGCheckpointFind()); the newest one, list->path, is loaded

  Output Parameters:
+ h      - the dt history of the checkpoint (replaces the contents of h)
- nranks - (may be NULL) how many ranks wrote it

  Notes:
  Sets u, p, t and step. Nothing is changed when a check fails. A damaged file (not HDF5,
  truncated, a dataset or attribute missing, non-finite values) is FG_ERR_IO_READ (exit 4); a
  checkpoint of another grid or another case (see FGCheckpointRestartKeys()) is FG_ERR_INPUT
  (exit 2). Every message names the file; for a damaged newest checkpoint it names the one before
  it, which a resume uses once the damaged one is deleted.

.seealso: FGCheckpointFind(), FGCheckpointWrite(), FGCheckpointRestartKeys()
@*/
PetscErrorCode FGCheckpointLoad(FGSolver s, const FGCheckpointList *list, FGDtHistory *h, PetscInt *nranks)
{
  MPI_Comm           comm = s->comm;
  const char        *path = list->path;
  FGGrid             g    = s->grid;
  PetscMPIInt        rank;
  char               msg[FG_CKPT_MSG_LEN] = "", advice[FG_CHECKPOINT_PATH_LEN + 128], *keys;
  FGCkptContents     k;
  PetscBool          ok;
  unsigned long long hash;
  FGIOMeta           meta = {0};
  long long          total = 0;
  Vec                fields[4];
  PetscInt           nf = 0;

  PetscFunctionBeginUser;
  (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  PetscCall(PetscMemzero(&k, sizeof(k)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (list->prev[0]) snprintf(advice, sizeof(advice), "delete it to resume from the checkpoint before it, %s", list->prev);
  else snprintf(advice, sizeof(advice), "no older checkpoint is left");

  /* 1. a complete HDF5 file with everything a checkpoint holds */
  if (rank == 0) FGCkptCheckFile_Private(path, msg, sizeof(msg));
  PetscCall(FGCkptVerdict_Private(comm, msg, sizeof(msg), &ok));
  if (ok) PetscCall(FGCkptReadContents_Private(s, path, &k, msg, sizeof(msg)));
  PetscCall(FGCkptVerdict_Private(comm, msg, sizeof(msg), &ok));
  if (!ok) PetscCall(FGCkptContentsFree_Private(&k));
  PetscCheck(ok, comm, FG_ERR_IO_READ, "checkpoint %s is damaged or not a flowgrad checkpoint: %s; %s", path, msg, advice);

  /* 2. this flowgrad's format, this grid, this case */
  if (k.format != FG_CHECKPOINT_FORMAT) {
    long long format = k.format;
    PetscCall(FGCkptContentsFree_Private(&k));
    SETERRQ(comm, FG_ERR_INPUT, "checkpoint %s has format %lld; this flowgrad (%s) reads format %d", path, format, FG_VERSION_STRING, FG_CHECKPOINT_FORMAT);
  }
  ok = (PetscBool)(k.dim == (long long)g->dim);
  for (PetscInt d = 0; ok && d < 3; d++) ok = (PetscBool)(k.cells[d] == (long long)g->n[d] && k.lengths[d] == (double)g->L[d] && k.origin[d] == (double)g->x0[d]);
  if (!ok) {
    char      was[256], now[256];
    long long cells[3];
    double    L[3], x0[3];
    for (PetscInt d = 0; d < 3; d++) cells[d] = (long long)g->n[d], L[d] = (double)g->L[d], x0[d] = (double)g->x0[d];
    FGCkptGridString_Private((PetscInt)k.dim, k.cells, k.lengths, k.origin, was, sizeof(was));
    FGCkptGridString_Private(g->dim, cells, L, x0, now, sizeof(now));
    PetscCall(FGCkptContentsFree_Private(&k));
    SETERRQ(comm, FG_ERR_INPUT, "checkpoint %s belongs to another grid: %s; this case has %s (grid.* must stay as it was to resume)", path, was, now);
  }
  PetscCall(PetscMalloc1(sizeof(s->c->resolved), &keys));
  PetscCall(FGCheckpointRestartKeys(s->c, keys, sizeof(s->c->resolved), &hash));
  {
    char hex[17];
    snprintf(hex, sizeof(hex), "%016llx", hash);
    ok = (PetscBool)(!strcmp(hex, k.hash) && !strcmp(keys, k.keys));
  }
  if (!ok) {
    FGCkptKeysDiff_Private(k.keys, keys, msg, sizeof(msg));
    PetscCall(PetscFree(keys));
    PetscCall(FGCkptContentsFree_Private(&k));
    SETERRQ(comm, FG_ERR_INPUT, "checkpoint %s was written by another case: %s (a resume may change only time.steps, time.cfl_max, poisson.*, output.*, name and description)", path, msg);
  }
  PetscCall(PetscFree(keys));

  /* 3. step, time and the dt history agree */
  PetscCall(FGIOReadMeta(comm, path, &meta, NULL, 0));
  for (hsize_t i = 0; ok && i < k.ndt; i++) {
    ok = (PetscBool)(k.count[i] > 0 && k.dt[i] > 0 && !PetscIsInfOrNanReal((PetscReal)k.dt[i]));
    total += k.count[i];
  }
  if (!ok || total != (long long)meta.step || meta.step < 0 || PetscIsInfOrNanReal(meta.time)) {
    PetscCall(FGCkptContentsFree_Private(&k));
    SETERRQ(comm, FG_ERR_IO_READ, "checkpoint %s is damaged or not a flowgrad checkpoint: its dt history (%lld steps) does not match its step %" PetscInt_FMT " and time %g; %s", path, total, meta.step, (double)meta.time, advice);
  }

  /* 4. the state (into work vectors first: nothing changes unless all is well) */
  for (PetscInt a = 0; a <= g->dim; a++) {
    PetscReal nrm;
    PetscCall(VecDuplicate(s->p, &fields[nf]));
    PetscCall(FGIOReadField(g, path, a < g->dim ? (const char *[]){"u", "v", "w"}[a] : "p", fields[nf]));
    PetscCall(VecNorm(fields[nf], NORM_INFINITY, &nrm));
    nf++;
    if (PetscIsInfOrNanReal(nrm)) {
      for (PetscInt i = 0; i < nf; i++) PetscCall(VecDestroy(&fields[i]));
      PetscCall(FGCkptContentsFree_Private(&k));
      SETERRQ(comm, FG_ERR_IO_READ, "checkpoint %s is damaged: dataset /%s holds non-finite values (flowgrad never writes a checkpoint from a blown-up state); %s", path, a < g->dim ? (const char *[]){"u", "v", "w"}[a] : "p", advice);
    }
  }
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecCopy(fields[a], s->u[a]));
  PetscCall(VecCopy(fields[g->dim], s->p));
  for (PetscInt i = 0; i < nf; i++) PetscCall(VecDestroy(&fields[i]));
  s->t    = meta.time;
  s->step = meta.step;
  h->n    = 0;
  for (hsize_t i = 0; i < k.ndt; i++) {
    PetscCall(FGDtHistoryPush(h, (PetscReal)k.dt[i])); /* a new run of 1 step, or one more in the last run */
    h->count[h->n - 1] += (PetscInt)k.count[i] - 1;
  }
  if (nranks) *nranks = (PetscInt)k.nranks;
  PetscCall(FGCkptContentsFree_Private(&k));
  PetscFunctionReturn(PETSC_SUCCESS);
}
