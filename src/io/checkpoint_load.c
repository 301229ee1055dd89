/*
  Checkpoints: checking one against the case and loading it (layout in include/fg/checkpoint.h;
  writing, finding and the restart keys: checkpoint.c).

  Loading checks, before any state is touched and with one verdict on every rank (HDF5 metadata
  is read collectively; every check ends in FGIOAgree or an MPI reduction):
    - the file is complete and readable: HDF5 signature, opens, has /checkpoint, its datasets and
      attributes, u, v[, w], p of the grid's shape, a dt history that adds up to its step, and
      finite values                                                        (damaged: exit 4)
    - format 1, the same grid (dim, cells, lengths, origin)                (mismatch: exit 2)
    - the same physics: the restart keys of the case equal the checkpoint's (mismatch: exit 2)
  A refusal names the file and, for a damaged newest checkpoint, the one before it.
*/
#include <fg/checkpoint.h>
#include <fg/io.h>
#include <fg/iofile.h>
#include "ioimpl.h"
#include <stdio.h>
#include <string.h>

#define FG_CKPT_MSG_LEN (3 * FG_CHECKPOINT_PATH_LEN + 1024) /* room for three paths */

/* ---------------------------------------------------------------------------------------------
   Restart keys that differ
   --------------------------------------------------------------------------------------------- */

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
   Load
   --------------------------------------------------------------------------------------------- */

typedef struct {
  long long  dim, cells[3], format, nranks, step;
  double     lengths[3], origin[3], time;
  char      *hash, *keys, *meta_sum, *sums[4]; /* sums: the checksums of u, v, w, p */
  long long *count;
  double    *dt;
  hsize_t    ndt;
} FGCkptContents;

/* Open and read everything but the fields' values; msg says what is wrong (empty: fine). */
static PetscErrorCode FGCkptReadContents_Private(FGGrid g, const char *path, FGCkptContents *k, char *msg, size_t len)
{
  hid_t     fid, root, grp;
  PetscBool f[4] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
  char      why[400];

  PetscFunctionBeginUser;
  PetscCall(FGH5OpenFile_Internal(g->comm, path, H5F_ACC_RDONLY, &fid, why, sizeof(why)));
  if (fid < 0) {
    snprintf(msg, len, "HDF5 cannot open it: %s", why);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  root = H5Gopen2(fid, "/", H5P_DEFAULT);
  if (root >= 0) {
    PetscCall(FGH5ReadAttrNumbers_Internal(root, "dim", H5T_NATIVE_LLONG, 1, &k->dim, &f[0]));
    if (f[0]) PetscCall(FGH5ReadAttrNumbers_Internal(root, "cells", H5T_NATIVE_LLONG, 3, k->cells, &f[1]));
    if (f[1]) PetscCall(FGH5ReadAttrNumbers_Internal(root, "lengths", H5T_NATIVE_DOUBLE, 3, k->lengths, &f[2]));
    if (f[2]) PetscCall(FGH5ReadAttrNumbers_Internal(root, "origin", H5T_NATIVE_DOUBLE, 3, k->origin, &f[3]));
    if (f[3]) PetscCall(FGH5ReadAttrNumbers_Internal(root, "time", H5T_NATIVE_DOUBLE, 1, &k->time, &f[3]));
    if (f[3]) PetscCall(FGH5ReadAttrNumbers_Internal(root, "step", H5T_NATIVE_LLONG, 1, &k->step, &f[3]));
  }
  if (!f[3]) snprintf(msg, len, "the attributes dim, cells, lengths, origin, time, step of / are missing or malformed");
  else if (H5Lexists(fid, "checkpoint", H5P_DEFAULT) <= 0 || (grp = H5Gopen2(fid, "checkpoint", H5P_DEFAULT)) < 0) snprintf(msg, len, "no group /checkpoint (a field file, or a checkpoint whose writing did not finish?)");
  else {
    hsize_t   nc = 0;
    void     *pc = NULL, *pd = NULL;
    PetscBool ok;
    PetscCall(FGH5ReadAttrNumbers_Internal(grp, "format", H5T_NATIVE_LLONG, 1, &k->format, &ok));
    if (!ok) snprintf(msg, len, "attribute /checkpoint/format is missing or malformed");
    if (ok) PetscCall(FGH5ReadAttrNumbers_Internal(grp, "nranks", H5T_NATIVE_LLONG, 1, &k->nranks, &ok));
    if (!ok && !msg[0]) snprintf(msg, len, "attribute /checkpoint/nranks is missing or malformed");
    if (ok) PetscCall(FGH5ReadString_Internal(grp, "restart_hash", PETSC_FALSE, &k->hash, &ok));
    if (!ok && !msg[0]) snprintf(msg, len, "attribute /checkpoint/restart_hash is missing or malformed");
    if (ok) PetscCall(FGH5ReadString_Internal(grp, "restart_keys", PETSC_TRUE, &k->keys, &ok));
    if (!ok && !msg[0]) snprintf(msg, len, "dataset /checkpoint/restart_keys is missing or malformed");
    if (ok) PetscCall(FGH5ReadArray_Internal(grp, "dt_count", H5T_NATIVE_LLONG, sizeof(long long), &pc, &nc, &ok));
    if (ok) PetscCall(FGH5ReadArray_Internal(grp, "dt_value", H5T_NATIVE_DOUBLE, sizeof(double), &pd, &k->ndt, &ok));
    if ((!ok || nc != k->ndt) && !msg[0]) snprintf(msg, len, "the dt history /checkpoint/dt_count, dt_value is missing or malformed");
    k->count = (long long *)pc;
    k->dt    = (double *)pd;
    if (!msg[0] && k->format >= 2) PetscCall(FGH5ReadString_Internal(grp, "meta_checksum", PETSC_FALSE, &k->meta_sum, &ok));
    if (!msg[0] && k->format >= 2 && !ok) snprintf(msg, len, "attribute /checkpoint/meta_checksum is missing or malformed");
    (void)H5Gclose(grp);
  }
  if (!msg[0] && k->format >= 2 && k->dim >= 2 && k->dim <= 3) { /* the fields' checksums, and the metadata's */
    FGCkptMeta m = {.time = k->time, .step = k->step, .dim = k->dim, .format = k->format, .restart_hash = k->hash, .restart_keys = k->keys, .ndt = (long long)k->ndt, .dt_count = k->count, .dt_value = k->dt};
    char       want[17];
    for (int a = 0; a < 4 && !msg[0]; a++) {
      const char *nm = a < 3 ? (const char *[]){"u", "v", "w"}[a] : "p";
      hid_t       dset;
      PetscBool   ok = PETSC_FALSE;
      if (a >= k->dim && a < 3) continue; /* no w in 2D */
      if (H5Lexists(fid, nm, H5P_DEFAULT) <= 0 || (dset = H5Dopen2(fid, nm, H5P_DEFAULT)) < 0) {
        snprintf(msg, len, "no dataset /%s", nm);
        break;
      }
      PetscCall(FGH5ReadString_Internal(dset, "checksum", PETSC_FALSE, &k->sums[a], &ok));
      (void)H5Dclose(dset);
      if (!ok) snprintf(msg, len, "dataset /%s has no attribute checksum", nm);
    }
    for (int d = 0; d < 3; d++) m.cells[d] = k->cells[d], m.lengths[d] = k->lengths[d], m.origin[d] = k->origin[d];
    for (int a = 0; a < 4; a++) m.field_sums[a] = k->sums[a];
    snprintf(want, sizeof(want), "%016llx", FGCheckpointMetaChecksum_Internal(&m));
    if (!msg[0] && strcmp(want, k->meta_sum)) snprintf(msg, len, "its metadata (time, step, grid, restart keys, dt history, the fields' checksums) do not match /checkpoint/meta_checksum");
  }
  if (!msg[0] && k->dim >= 2 && k->dim <= 3 && k->dim == g->dim) {
    /* the fields (their grid is checked by the caller, so only when it is this one) */
    PetscBool same = PETSC_TRUE;
    hsize_t   dims[3];
    for (PetscInt d = 0; d < 3; d++) same = (PetscBool)(same && k->cells[d] == (long long)g->n[d]);
    for (PetscInt d = 0; d < g->dim; d++) dims[d] = (hsize_t)g->n[g->dim - 1 - d]; /* slowest first */
    for (PetscInt a = 0; same && a <= g->dim && !msg[0]; a++) {
      FGH5DatasetStatus st;
      PetscCall(FGH5CheckDataset_Internal(fid, a < g->dim ? (const char *[]){"u", "v", "w"}[a] : "p", (int)g->dim, dims, g->dim == 2 ? "(ny, nx)" : "(nz, ny, nx)", &st, msg, len));
    }
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
  PetscCall(PetscFree(k->meta_sum));
  for (int a = 0; a < 4; a++) PetscCall(PetscFree(k->sums[a]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "16 x 16 cells, lengths 1 x 1, origin 0, 0" */
static void FGCkptGridString_Private(PetscInt dim, const long long cells[], const double L[], const double x0[], char *buf, size_t len)
{
  if (dim == 3) snprintf(buf, len, "%lld x %lld x %lld cells, lengths %g x %g x %g, origin (%g, %g, %g)", cells[0], cells[1], cells[2], L[0], L[1], L[2], x0[0], x0[1], x0[2]);
  else snprintf(buf, len, "%lld x %lld cells, lengths %g x %g, origin (%g, %g)", cells[0], cells[1], L[0], L[1], x0[0], x0[1]);
}

static PetscErrorCode FGCkptLoadPath_Private(FGGrid g, const FGCheckpointRun *run, const char *path, Vec u[], Vec p, PetscReal *t, PetscInt *step, FGDtHistory *h, PetscInt *nranks)
{
  MPI_Comm           comm = g->comm;
  PetscMPIInt        rank;
  char               msg[FG_CKPT_MSG_LEN] = "";
  FGCkptContents     k;
  PetscBool          ok;
  FGIOMeta           meta = {0};
  long long          total = 0;
  Vec                fields[4];
  PetscInt           nf = 0;

  PetscFunctionBeginUser;
  FGH5Quiet_Internal();
  PetscCall(PetscMemzero(&k, sizeof(k)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));

  /* 1. a complete HDF5 file with everything a checkpoint holds */
  if (rank == 0) {
    char      why[256];
    PetscBool syserr;
    FGH5Probe_Internal(path, why, sizeof(why), &syserr);
    if (why[0]) snprintf(msg, sizeof(msg), "%s%s", syserr ? "cannot read it: " : "", why);
  }
  PetscCall(FGIOAgree(comm, msg, sizeof(msg), &ok));
  if (ok) PetscCall(FGCkptReadContents_Private(g, path, &k, msg, sizeof(msg)));
  PetscCall(FGIOAgree(comm, msg, sizeof(msg), &ok));
  if (!ok) PetscCall(FGCkptContentsFree_Private(&k));
  PetscCheck(ok, comm, FG_ERR_IO_READ, "checkpoint %s is damaged or not a flowgrad checkpoint: %s", path, msg);

  /* 2. this flowgrad's format, this grid, this case */
  if (k.format != FG_CHECKPOINT_FORMAT && k.format != 1) { /* format 1: the same without checksums */
    long long format = k.format;
    PetscCall(FGCkptContentsFree_Private(&k));
    SETERRQ(comm, FG_ERR_INPUT, "checkpoint %s has format %lld; this flowgrad (%s) reads formats 1 and %d", path, format, FGVersion(), FG_CHECKPOINT_FORMAT);
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
  {
    char hex[17];
    snprintf(hex, sizeof(hex), "%016llx", run->keys_hash);
    ok = (PetscBool)(!strcmp(hex, k.hash) && !strcmp(run->keys, k.keys));
  }
  if (!ok) {
    FGCkptKeysDiff_Private(k.keys, run->keys, msg, sizeof(msg));
    PetscCall(FGCkptContentsFree_Private(&k));
    SETERRQ(comm, FG_ERR_INPUT, "checkpoint %s was written by another case: %s (a resume may change only time.steps, time.cfl_max, poisson.*, output.*, name and description)", path, msg);
  }

  /* 3. step, time and the dt history agree: the steps add up to the step, their sizes to the time
        (to the round-off of summing them one by one) */
  PetscCall(FGIOReadMeta(comm, path, &meta, NULL, 0));
  {
    double sum = 0;
    for (hsize_t i = 0; ok && i < k.ndt; i++) {
      ok = (PetscBool)(k.count[i] > 0 && k.dt[i] > 0 && !PetscIsInfOrNanReal((PetscReal)k.dt[i]));
      total += k.count[i];
      sum += (double)k.count[i] * k.dt[i];
    }
    ok = (PetscBool)(ok && PetscAbsReal((PetscReal)(meta.time - sum)) <= 1e-9 * PetscMax(PetscAbsReal((PetscReal)sum), 1e-300) + 4 * PETSC_MACHINE_EPSILON * (PetscReal)total * PetscAbsReal((PetscReal)sum));
  }
  if (!ok || total != (long long)meta.step || meta.step < 0 || PetscIsInfOrNanReal(meta.time)) {
    PetscCall(FGCkptContentsFree_Private(&k));
    SETERRQ(comm, FG_ERR_IO_READ, "checkpoint %s is damaged or not a flowgrad checkpoint: its dt history (%lld steps) does not match its step %" PetscInt_FMT " and time %.17g", path, total, meta.step, (double)meta.time);
  }

  /* 4. the state (into work vectors first: nothing changes unless all is well) */
  for (PetscInt a = 0; a <= g->dim; a++) {
    PetscReal nrm;
    PetscCall(VecDuplicate(p, &fields[nf]));
    PetscCall(FGIOReadField(g, path, a < g->dim ? (const char *[]){"u", "v", "w"}[a] : "p", fields[nf])); /* its checksum too */
    PetscCall(VecNorm(fields[nf], NORM_INFINITY, &nrm));
    nf++;
    if (PetscIsInfOrNanReal(nrm)) {
      for (PetscInt i = 0; i < nf; i++) PetscCall(VecDestroy(&fields[i]));
      PetscCall(FGCkptContentsFree_Private(&k));
      SETERRQ(comm, FG_ERR_IO_READ, "checkpoint %s is damaged: dataset /%s holds non-finite values (flowgrad never writes a checkpoint from a blown-up state)", path, a < g->dim ? (const char *[]){"u", "v", "w"}[a] : "p");
    }
  }
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecCopy(fields[a], u[a]));
  PetscCall(VecCopy(fields[g->dim], p));
  for (PetscInt i = 0; i < nf; i++) PetscCall(VecDestroy(&fields[i]));
  *t    = meta.time;
  *step = meta.step;
  h->n    = 0;
  for (hsize_t i = 0; i < k.ndt; i++) {
    PetscCall(FGDtHistoryPush(h, (PetscReal)k.dt[i])); /* a new run of 1 step, or one more in the last run */
    h->count[h->n - 1] += (PetscInt)k.count[i] - 1;
  }
  if (nranks) *nranks = (PetscInt)k.nranks;
  PetscCall(FGCkptContentsFree_Private(&k));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGCheckpointLoad - check a checkpoint against the run (its grid and restart keys) and load its state.

  Collective on the grid's communicator.

  Input Parameters:
+ g    - the grid of the case (any number of ranks, any decomposition)
. run  - the run (its restart keys: FGCheckpointRun)
- list - the checkpoints found (FGCheckpointFind()); the newest one, list->path, is loaded

  Output Parameters:
+ u      - the velocity components (global Vecs of g->da)
. p      - the pressure
. t      - the time of the state
. step   - its step
. h      - the dt history of the checkpoint (replaces the contents of h)
- nranks - (may be NULL) how many ranks wrote it

  Notes:
  Nothing is changed when a check fails. A damaged file (not HDF5, truncated, a dataset or
  attribute missing, a checksum that does not match, a time or step that the dt history does not
  add up to, non-finite values) is FG_ERR_IO_READ (exit 4); a checkpoint of another grid or
  another case (see FGCaseRestartKeys()) is FG_ERR_INPUT (exit 2). Every message names the file;
  for a damaged newest checkpoint it says whether the one before it is intact (checked the same
  way), and then how to resume from it (`flowgrad run --resume-from FILE`). A checkpoint of format
  1 (before the checksums) is loaded unverified.

.seealso: FGCheckpointFind(), FGCheckpointWrite(), FGCaseRestartKeys()
@*/
PetscErrorCode FGCheckpointLoad(FGGrid g, const FGCheckpointRun *run, const FGCheckpointList *list, Vec u[], Vec p, PetscReal *t, PetscInt *step, FGDtHistory *h, PetscInt *nranks)
{
  static char    msg[FG_CKPT_MSG_LEN], why[FG_CKPT_MSG_LEN];
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(FGErrorCapturePush(msg, sizeof(msg)));
  ierr = FGCkptLoadPath_Private(g, run, list->path, u, p, t, step, h, nranks);
  PetscCall(FGErrorCapturePop());
  if (!ierr) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(ierr == FG_ERR_IO_READ, g->comm, ierr, "%s", msg);
  PetscCheck(list->prev[0], g->comm, FG_ERR_IO_READ, "%s; no older checkpoint is left", msg);
  { /* the one before it, checked the same way (into work vectors) */
    Vec         w[3] = {NULL, NULL, NULL}, q;
    PetscReal   t2;
    PetscInt    s2;
    FGDtHistory h2 = {0};
    PetscCall(VecDuplicate(p, &q));
    for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecDuplicate(u[a], &w[a]));
    PetscCall(FGErrorCapturePush(why, sizeof(why)));
    ierr = FGCkptLoadPath_Private(g, run, list->prev, w, q, &t2, &s2, &h2, NULL);
    PetscCall(FGErrorCapturePop());
    for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecDestroy(&w[a]));
    PetscCall(VecDestroy(&q));
    PetscCall(FGDtHistoryDestroy(&h2));
  }
  PetscCheck(ierr, g->comm, FG_ERR_IO_READ, "%s; the checkpoint before it is intact: rerun with --resume-from %s to continue from it", msg, list->prev);
  SETERRQ(g->comm, FG_ERR_IO_READ, "%s; the checkpoint before it, %s, cannot be used either", msg, list->prev);
}
