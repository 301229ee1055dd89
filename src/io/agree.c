/*
  Files that one rank writes for all (include/fg/iofile.h): the verdict agreed on by every rank,
  renames that complete a file, text files written atomically, directories.

  Every function here that touches the file system does it on rank 0 and ends in FGIOAgree(), so
  a failure is one message raised alike on every rank of the communicator (a collective error:
  printed once, exit code of its class), never an error on one rank while the others wait.
*/
#define _POSIX_C_SOURCE 200809L /* fsync, fileno, O_DIRECTORY under -std=c11 */
#include <fg/iofile.h>
#include "ioimpl.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*@C
  FGIOAgree - agree on a verdict: ok when no rank has a message; otherwise every rank gets the
  message of the lowest rank that has one.

  Collective.

  Input Parameters:
+ comm - communicator
. msg  - this rank's message: empty (msg[0] == 0) when all went well; NUL-terminated
- len  - the size of msg, the same on every rank

  Output Parameters:
+ msg - (when not ok) the same message on every rank
- ok  - whether no rank had a message

  Notes:
  Typically only rank 0 did the work and may have a message; then the verdict is rank 0's. Raise
  the error on comm with the class of the failure, so that it is reported once:
.vb
  PetscCall(FGIOAgree(comm, msg, sizeof(msg), &ok));
  PetscCheck(ok, comm, FG_ERR_IO_WRITE, "%s", msg);
.ve
  One MPI_Allreduce, and one MPI_Bcast when some rank failed.

.seealso: FGIOWriteTextAtomic(), FGIORename(), FGIOMakeDirectory()
@*/
PetscErrorCode FGIOAgree(MPI_Comm comm, char msg[], size_t len, PetscBool *ok)
{
  PetscMPIInt rank, size;
  int         mine, first;

  PetscFunctionBeginUser;
  PetscCheck(len > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "FGIOAgree: empty message buffer");
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  msg[len - 1] = '\0';
  mine         = msg[0] ? (int)rank : (int)size;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  *ok = (PetscBool)(first == (int)size);
  if (!*ok) PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)len, MPI_CHAR, first, comm));
  msg[len - 1] = '\0';
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The directory that holds path: "." for a bare name, "/" for a name in the root. */
void FGIODirectoryOf_Internal(const char *path, char *dir, size_t len)
{
  const char *slash = strrchr(path, '/');

  if (!slash) snprintf(dir, len, ".");
  else snprintf(dir, len, "%.*s", (int)(slash == path ? 1 : slash - path), path);
}

/* fsync the directory that holds path, so that a rename into it survives a crash (best effort:
   some file systems refuse it). Not collective. */
void FGIOSyncDirectory_Internal(const char *path)
{
  char dir[PETSC_MAX_PATH_LEN];
  int  fd;

  FGIODirectoryOf_Internal(path, dir, sizeof(dir));
  fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    (void)fsync(fd);
    (void)close(fd);
  }
}

/* Rank 0's part of FGIORename(): rename from to to and sync the directory; on failure from is
   removed and msg says why (untouched on success). */
void FGIORenameLocal_Internal(const char *from, const char *to, char *msg, size_t len)
{
  if (rename(from, to) != 0) {
    snprintf(msg, len, "cannot rename %s to %s: %s", from, to, strerror(errno));
    (void)remove(from);
  } else FGIOSyncDirectory_Internal(to);
}

/*@C
  FGIORename - complete a file written under a temporary name: rank 0 renames it to its final
  name, once every rank is done with it.

  Collective.

  Input Parameters:
+ comm - communicator
. from - the temporary name (e.g. <path>.tmp), closed on every rank
- to   - the final name (replaced if it exists)

  Notes:
  A barrier first; then rank 0 renames and syncs the directory (the rename is durable). On
  failure the temporary file is removed and FG_ERR_IO_WRITE is raised on every rank.

.seealso: FGIOAgree(), FGIOWriteTextAtomic()
@*/
PetscErrorCode FGIORename(MPI_Comm comm, const char *from, const char *to)
{
  PetscMPIInt rank;
  PetscBool   ok;
  char        msg[2 * PETSC_MAX_PATH_LEN + 128] = "";

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Barrier(comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) FGIORenameLocal_Internal(from, to, msg, sizeof(msg));
  PetscCall(FGIOAgree(comm, msg, sizeof(msg), &ok));
  PetscCheck(ok, comm, FG_ERR_IO_WRITE, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGIOWriteTextAtomic - write a text file on rank 0 through a temporary name; every rank gets the
  outcome.

  Collective.

  Input Parameters:
+ comm   - communicator
. path   - the file (replaced if it exists)
. what   - what it is, for the message (e.g. "the resolved case"); NULL: nothing
. writer - writes the contents (called on rank 0 only)
- ctx    - the writer's context

  Notes:
  Rank 0 opens <path>.tmp, lets the writer fill it, checks ferror(), then flushes, fsyncs and
  closes it (each checked) and renames it to <path>, so that the file under its name is always
  complete. A failure removes <path>.tmp and raises FG_ERR_IO_WRITE on every rank: "cannot write
  [what ]<path>: <open|write|flush|fsync|close|rename> failed: <strerror>". An error returned by
  the writer is raised on every rank with the writer's error class and its message.

.seealso: FGIOAgree(), FGIORename(), FGTableWriteCSV()
@*/
PetscErrorCode FGIOWriteTextAtomic(MPI_Comm comm, const char *path, const char *what, FGIOTextWriter writer, void *ctx)
{
  PetscMPIInt rank;
  PetscBool   ok;
  char        msg[2 * PETSC_MAX_PATH_LEN + 256] = "";
  int         cls = FG_ERR_IO_WRITE; /* the error class raised: a writer's own error keeps its class */

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    char        tmp[2 * PETSC_MAX_PATH_LEN];
    const char *step = NULL, *bad = NULL;
    int         err  = 0;
    FILE       *fp   = NULL;

    if (!path || !path[0]) bad = "empty file name";
    else if (strlen(path) + 5 > sizeof(tmp)) bad = "path too long";
    else {
      snprintf(tmp, sizeof(tmp), "%s.tmp", path);
      errno = 0;
      (void)remove(tmp); /* a stale one, or a link or FIFO put there: never written through */
      if (!(fp = fopen(tmp, "wx"))) step = "open", err = errno; /* O_EXCL: a new file */
    }
    if (fp) { /* the writer's error is rank 0's alone: captured and agreed on, never raised while the others wait */
      char           why[256] = "";
      PetscErrorCode ierr;
      PetscCall(FGErrorCapturePush(why, sizeof(why)));
      ierr = writer(fp, ctx);
      PetscCall(FGErrorCapturePop());
      if (ierr) {
        (void)fclose(fp);
        (void)remove(tmp);
        fp  = NULL;
        cls = (int)ierr;
        snprintf(msg, sizeof(msg), "cannot write %s%s%s: %s", what ? what : "", what ? " " : "", path, why[0] ? why : "the writer failed");
      }
    }
    if (fp) {
      if (ferror(fp)) step = "write", err = errno;
      else if (fflush(fp) != 0) step = "flush", err = errno;
      else if (fsync(fileno(fp)) != 0) step = "fsync", err = errno;
      if (fclose(fp) != 0 && !step) step = "close", err = errno;
      if (!step && rename(tmp, path) != 0) step = "rename", err = errno;
      if (step) (void)remove(tmp);
      else FGIOSyncDirectory_Internal(path);
    }
    if (bad) snprintf(msg, sizeof(msg), "cannot write %s%s%s: %s", what ? what : "", what ? " " : "", path ? path : "", bad);
    else if (step) snprintf(msg, sizeof(msg), "cannot write %s%s%s: %s failed: %s", what ? what : "", what ? " " : "", path, step, err ? strerror(err) : "?");
  }
  PetscCall(FGIOAgree(comm, msg, sizeof(msg), &ok));
  if (!ok) PetscCallMPI(MPI_Bcast(&cls, 1, MPI_INT, 0, comm)); /* only rank 0 writes: its class */
  PetscCheck(ok, comm, (PetscErrorCode)cls, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGIOMakeDirectory - create a directory and its parents (mkdir -p) on rank 0; every rank gets the
  outcome.

  Collective.

  Input Parameters:
+ comm - communicator
. path - the directory
- len  - the size of msg

  Output Parameters:
+ msg - (when not ok) why, the same on every rank ("cannot create directory out/x: Permission
        denied", "out/x exists and is not a directory")
- ok  - whether the directory exists now

  Notes:
  The caller raises the error with the class that fits: FG_ERR_INPUT for a directory named by
  the user before any work, FG_ERR_IO_WRITE during a run.

.seealso: FGMakeDirectory(), FGIOAgree()
@*/
PetscErrorCode FGIOMakeDirectory(MPI_Comm comm, const char *path, char msg[], size_t len, PetscBool *ok)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  msg[0] = '\0';
  if (rank == 0) {
    PetscErrorCode ierr;
    PetscCall(FGErrorCapturePush(msg, len));
    ierr = FGMakeDirectory(path);
    PetscCall(FGErrorCapturePop());
    if (ierr && !msg[0]) snprintf(msg, len, "cannot create directory %s", path);
  }
  PetscCall(FGIOAgree(comm, msg, len, ok));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGIOCheckReadable - whether rank 0 can open a file for reading and it is a regular file (not a
  directory, FIFO or device), agreed on by every rank (a file the case names, checked before any
  work). Collective.

  Output Parameters:
+ msg - (when not ok) "cannot open PATH: REASON", the same on every rank
- ok  - whether it opened

.seealso: FGIOAgree()
@*/
PetscErrorCode FGIOCheckReadable(MPI_Comm comm, const char *path, char msg[], size_t len, PetscBool *ok)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  msg[0] = '\0';
  if (rank == 0) { /* O_NONBLOCK: a FIFO must not stall the check */
    struct stat st;
    int         fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) snprintf(msg, len, "cannot open %s: %s", path, strerror(errno));
    else if (fstat(fd, &st) != 0) snprintf(msg, len, "cannot open %s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode)) snprintf(msg, len, "cannot open %s: it is %s, not a regular file", path, FGFileKind(st.st_mode));
    if (fd >= 0) (void)close(fd);
  }
  PetscCall(FGIOAgree(comm, msg, len, ok));
  PetscFunctionReturn(PETSC_SUCCESS);
}

