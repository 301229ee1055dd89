/* flowgrad checkpoints: the state of a forward run at a step boundary, for `flowgrad run --resume`.

   File <output.dir>/checkpoints/checkpoint_NNNNNN.h5 (NNNNNN = the step, at least 6 digits): a
   flowgrad field file (layout in include/fg/io.h, written by FGIOWriteFields: u, v[, w] on faces,
   p at cells; root attributes time, step, dim, cells, lengths, origin, spacing, case_hash,
   case_name, flowgrad_version) plus a group /checkpoint:

     attribute format        int64      2 (this layout; 1: without the checksums, still read)
     attribute restart_hash  string     16 hex digits: FNV-1a of restart_keys
     attribute nranks        int64      ranks of the run that wrote it (information only)
     dataset   restart_keys  string     the compared part of the resolved case, one "key: value"
                                        line per key (see FGCaseRestartKeys)
     dataset   dt_count      int64[n]   the time-step history, run-length encoded: dt_count[i]
     dataset   dt_value      float64[n]   steps of size dt_value[i]; sum(dt_count) = step
     attribute meta_checksum string     16 hex digits: FNV-1a of the metadata a resume uses
                                        (FGCheckpointMetaChecksum_Internal: time, step, dim,
                                        cells, lengths, origin, format, restart_hash,
                                        restart_keys, the dt history and the fields' checksums)

   Every field dataset carries the attribute checksum (FGIOWriteFields: a sum over its values,
   the same for any decomposition), checked whenever the field is read: with meta_checksum, a
   damaged checkpoint (a flipped bit, a hand-edited time or dt) is refused with exit 4 naming the
   file and the dataset, never resumed to a different result.

   The low-storage RK3 needs nothing else at a step boundary (the first stage's beta is 0), and
   every value is stored as the double it is, so a resumed run repeats the uninterrupted one bit
   for bit (same rank count and deterministic FFTW plans; see README "Checkpoints, restart and
   signals"). The arrays are global, so a checkpoint resumes on any number of ranks.

   Written as checkpoint_NNNNNN.h5.part (FGIOWriteFields, itself through a .tmp), completed with
   /checkpoint, flushed, then renamed by rank 0 (FGIORename): a file under the final name is
   always complete.
   Only then are older checkpoints deleted (all but the newest output.checkpoint_keep). */
#ifndef FG_CHECKPOINT_H
#define FG_CHECKPOINT_H

#include <fg/grid.h>

#define FG_CHECKPOINT_FORMAT   2
#define FG_CHECKPOINT_PATH_LEN (PETSC_MAX_PATH_LEN + 320) /* <output.dir>/checkpoints/<name> */

/* The dt of every step taken, run-length encoded: count[i] steps of size dt[i]. */
typedef struct {
  PetscInt   n, cap;
  PetscInt  *count;
  PetscReal *dt;
} FGDtHistory;

PETSC_EXTERN PetscErrorCode FGDtHistoryPush(FGDtHistory *, PetscReal);
PETSC_EXTERN PetscInt       FGDtHistorySteps(const FGDtHistory *);
PETSC_EXTERN PetscErrorCode FGDtHistoryDestroy(FGDtHistory *);

/* The complete checkpoints of an output directory. */
typedef struct {
  PetscInt count;                    /* how many */
  PetscInt step, prev_step;          /* step of the newest and of the one before it (-1: none) */
  char     path[FG_CHECKPOINT_PATH_LEN]; /* the newest ("" when none) */
  char     prev[FG_CHECKPOINT_PATH_LEN]; /* the one before it ("" when none) */
} FGCheckpointList;

/* The run the checkpoints belong to; the caller fills it from the case (src/app/run.c). */
typedef struct {
  const char        *dir;       /* output.dir: the checkpoints are in <dir>/checkpoints */
  PetscInt           keep;      /* output.checkpoint_keep */
  const char        *keys;      /* the part of the resolved case a checkpoint must agree with */
  unsigned long long keys_hash; /*   and its hash (FGCaseRestartKeys, include/fg/case.h) */
  unsigned long long case_hash; /* the resolved case's hash and name (metadata of the file) */
  const char        *case_name;
} FGCheckpointRun;

PETSC_EXTERN PetscErrorCode FGCheckpointPath(const char *, PetscInt, char *, size_t);
PETSC_EXTERN PetscErrorCode FGCheckpointFind(MPI_Comm, const char *, FGCheckpointList *);
/* The state: the grid, the velocity components u[dim] on their faces, the pressure p at the cells
   (global Vecs of grid->da), the time t and the step. */
PETSC_EXTERN PetscErrorCode FGCheckpointWrite(FGGrid, const FGCheckpointRun *, Vec[], Vec, PetscReal, PetscInt, const FGDtHistory *, char *, size_t);
PETSC_EXTERN PetscErrorCode FGCheckpointLoad(FGGrid, const FGCheckpointRun *, const FGCheckpointList *, Vec[], Vec, PetscReal *, PetscInt *, FGDtHistory *, PetscInt *);

#endif
