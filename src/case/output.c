/*
  The case's output directory: created and probed for writability before any work (an input
  error, FG_ERR_INPUT), and the resolved case written into it atomically (an I/O error,
  FG_ERR_IO_WRITE). Rank 0 does the file system work and the outcome is agreed on (FGIOAgree,
  FGIOWriteTextAtomic), so every rank raises the same error.
*/
#define _POSIX_C_SOURCE 200809L
#include "caseimpl.h"
#include <fg/iofile.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FG_MSG_LEN 1024

static PetscErrorCode FGCaseOutput_Private(MPI_Comm, const FGCase *, PetscBool);

/*@C
  FGCasePrepareOutput - create the case's output directory and check that it is writable.

  Collective

  Input Parameters:
+ comm - communicator
- c    - the case (FGCaseLoad())

  Notes:
  Rank 0 creates output.dir (with its parents) and creates and removes a probe file in it; the
  outcome is agreed on, and a failure is FG_ERR_INPUT on every rank, naming output.dir, where it
  was set, and the path.

.seealso: FGCaseLoad(), FGCaseWriteResolved()
@*/
PetscErrorCode FGCasePrepareOutput(MPI_Comm comm, const FGCase *c)
{
  PetscFunctionBeginUser;
  PetscCall(FGCaseOutput_Private(comm, c, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGCaseCheckOutput - check, as FGCasePrepareOutput() does, that the case's output directory can
  be created and written, and leave the file system as it was: the directories the check created
  are removed again (`flowgrad info`, which job scripts run before submitting).

  Collective

  Input Parameters:
+ comm - communicator
- c    - the case (FGCaseLoad())

.seealso: FGCasePrepareOutput()
@*/
PetscErrorCode FGCaseCheckOutput(MPI_Comm comm, const FGCase *c)
{
  PetscFunctionBeginUser;
  PetscCall(FGCaseOutput_Private(comm, c, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define FG_MAX_MISSING 256

/* The prefixes of path (at '/' boundaries, and path itself) that do not exist yet, as their
   lengths, shallowest first; components "." and ".." are skipped (they are never created). */
static int FGMissingPrefixes_Private(const char *path, size_t len[FG_MAX_MISSING])
{
  char        buf[PETSC_MAX_PATH_LEN];
  size_t      n = strlen(path), start = 0;
  int         m = 0;
  struct stat st;

  if (n >= sizeof(buf)) return 0;
  for (size_t i = 1; i <= n && m < FG_MAX_MISSING; i++) {
    if (i < n && path[i] != '/') continue;
    if (path[i - 1] != '/') {
      const char *comp = path + start;
      size_t      cl   = i - start;
      int         dots = (cl == 1 && comp[0] == '.') || (cl == 2 && comp[0] == '.' && comp[1] == '.');
      memcpy(buf, path, i);
      buf[i] = '\0';
      if (!dots && stat(buf, &st) != 0) len[m++] = i;
    }
    start = i + 1;
  }
  return m;
}

static PetscErrorCode FGCaseOutput_Private(MPI_Comm comm, const FGCase *c, PetscBool keep)
{
  PetscMPIInt rank;
  PetscBool   ok;
  char        msg[FG_MSG_LEN] = "";

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    PetscErrorCode ierr;
    size_t         missing[FG_MAX_MISSING];
    int            nmissing = keep ? 0 : FGMissingPrefixes_Private(c->output.dir, missing);
    PetscCall(FGErrorCapturePush(msg, sizeof(msg)));
    ierr = FGMakeDirectory(c->output.dir);
    PetscCall(FGErrorCapturePop());
    if (ierr && !msg[0]) snprintf(msg, sizeof(msg), "cannot create it");
    if (!ierr) {
      char probe[PETSC_MAX_PATH_LEN + 64];
      int  fd, n = snprintf(probe, sizeof(probe), "%s/.flowgrad-probe-%ld", c->output.dir, (long)getpid());
      if (n < 0 || (size_t)n >= sizeof(probe)) snprintf(msg, sizeof(msg), "path too long");
      else if ((fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600)) < 0) snprintf(msg, sizeof(msg), "not writable: cannot create a file in it: %s", strerror(errno));
      else {
        (void)close(fd);
        if (unlink(probe)) snprintf(msg, sizeof(msg), "cannot remove its probe file .flowgrad-probe-*: %s", strerror(errno));
      }
    }
    for (int k = nmissing - 1; k >= 0; k--) { /* remove what this check created, deepest first */
      char buf[PETSC_MAX_PATH_LEN];
      memcpy(buf, c->output.dir, missing[k]);
      buf[missing[k]] = '\0';
      (void)rmdir(buf); /* only empty directories go; a failure leaves one behind, no more */
    }
  }
  PetscCall(FGIOAgree(comm, msg, sizeof(msg), &ok));
  PetscCheck(ok, comm, FG_ERR_INPUT, "%s: cannot use %s as the output directory: %s", c->output.dir_from, c->output.dir, msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The resolved case's text (rank 0, through FGIOWriteTextAtomic). */
static PetscErrorCode FGCaseWriteResolved_Private(FILE *fp, void *ctx)
{
  const FGCase *c = (const FGCase *)ctx;

  PetscFunctionBeginUser;
  (void)fwrite(c->resolved, 1, strlen(c->resolved), fp); /* checked by the caller (ferror) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGCaseWriteResolved - write the resolved case to <output.dir>/case.resolved.yaml.

  Collective

  Input Parameters:
+ comm - communicator
- c    - the case

  Notes:
  Rank 0 writes <path>.tmp, flushes it to disk and renames it (FGIOWriteTextAtomic()), so the file
  is either the old one or the complete new one. Failure is FG_ERR_IO_WRITE on every rank. Call
  FGCasePrepareOutput() first.

.seealso: FGCasePrepareOutput(), FGCaseLoad(), FGIOWriteTextAtomic()
@*/
PetscErrorCode FGCaseWriteResolved(MPI_Comm comm, const FGCase *c)
{
  char path[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBeginUser;
  PetscCheck(strlen(c->output.dir) + 20 < sizeof(path), comm, FG_ERR_IO_WRITE, "cannot write the resolved case %s/case.resolved.yaml: path too long", c->output.dir);
  snprintf(path, sizeof(path), "%s/case.resolved.yaml", c->output.dir);
  PetscCall(FGIOWriteTextAtomic(comm, path, "the resolved case", FGCaseWriteResolved_Private, (void *)c));
  PetscFunctionReturn(PETSC_SUCCESS);
}
