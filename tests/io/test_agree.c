/*
  The rank-0 file helpers (src/io/agree.c, include/fg/iofile.h): whatever happens on rank 0 (or on
  any rank), every rank gets the same verdict and raises the same error.

    FGIOAgree            no message: ok everywhere; a message on rank 0 only, or on the last rank
                         only, reaches every rank; messages on two ranks: the lower rank's
    FGIOWriteTextAtomic  the file holds what the writer wrote, no .tmp left; a missing directory
                         is FG_ERR_IO_WRITE "cannot write [what ]<path>: open failed: ...", nothing
                         created; an empty name: "empty file name"; a directory in the way: "rename failed", no .tmp left; an error
                         of the writer (on rank 0) is raised on every rank with its class
    FGIORename           renames; a missing file: FG_ERR_IO_WRITE naming both names
    FGIOMakeDirectory    creates the parents; a regular file in the way: not ok, the message
                         names it, the same on every rank
  Files are named agree_np<size>_*, so runs at different sizes do not collide.

  Sample runs (from the build tree's tests/io):
    mpiexec -n 1 ../test_io_agree
    mpiexec -n 3 ../test_io_agree
*/
#define _POSIX_C_SOURCE 200809L /* access under -std=c11 */
#include "../fgtest.h"
#include "iotest.h"
#include <string.h>
#include <unistd.h>

/* run call under FGTestCatchError and check its code and that its message contains must */

/* whether path exists (rank 0 looks, all get it) */
static PetscBool Exists(const char *path)
{
  PetscBool e = PETSC_FALSE;
  (void)IOTestExists(path, &e);
  return e;
}

/* whether path holds exactly want */
static PetscErrorCode CheckText(const char *path, const char *want)
{
  char *got;

  PetscFunctionBeginUser;
  PetscCall(IOTestReadText(path, &got));
  FGTestCheck(!strcmp(got, want), "%s holds \"%s\", want \"%s\"", path, got, want);
  PetscCall(PetscFree(got));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteHello_Private(FILE *fp, void *ctx)
{
  PetscFunctionBeginUser;
  fprintf(fp, "hello %s\n", (const char *)ctx);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteFails_Private(FILE *fp, void *ctx)
{
  PetscFunctionBeginUser;
  fprintf(fp, "half a file");
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "the writer failed");
}

static PetscErrorCode TestAgree(void)
{
  PetscMPIInt rank, size;
  PetscBool   ok;
  char        msg[64];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FGIOAgree\n"));
  msg[0] = '\0';
  PetscCall(FGIOAgree(PETSC_COMM_WORLD, msg, sizeof(msg), &ok));
  FGTestCheck(ok && !msg[0], "no message: not ok");

  snprintf(msg, sizeof(msg), "%s", rank == 0 ? "rank 0 failed" : "");
  PetscCall(FGIOAgree(PETSC_COMM_WORLD, msg, sizeof(msg), &ok));
  FGTestCheck(!ok && !strcmp(msg, "rank 0 failed"), "rank 0's message: ok %d, \"%s\"", (int)ok, msg);

  snprintf(msg, sizeof(msg), "%s", rank == size - 1 ? "the last rank failed" : "");
  PetscCall(FGIOAgree(PETSC_COMM_WORLD, msg, sizeof(msg), &ok));
  FGTestCheck(!ok && !strcmp(msg, "the last rank failed"), "the last rank's message: ok %d, \"%s\"", (int)ok, msg);

  snprintf(msg, sizeof(msg), "rank %d failed", (int)rank);
  if (size > 1 && rank == 0) msg[0] = '\0';
  PetscCall(FGIOAgree(PETSC_COMM_WORLD, msg, sizeof(msg), &ok));
  FGTestCheck(!ok && !strcmp(msg, size > 1 ? "rank 1 failed" : "rank 0 failed"), "the lowest rank's message: ok %d, \"%s\"", (int)ok, msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestWriteText(const char *pre)
{
  PetscMPIInt size;
  char        path[256], tmp[300];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FGIOWriteTextAtomic\n"));
  snprintf(path, sizeof(path), "%stext.txt", pre);
  snprintf(tmp, sizeof(tmp), "%s.tmp", path);
  PetscCall(FGIOWriteTextAtomic(PETSC_COMM_WORLD, path, NULL, WriteHello_Private, (void *)"world"));
  PetscCall(CheckText(path, "hello world\n"));
  FGTestCheck(!Exists(tmp), "%s left behind", tmp);
  PetscCall(FGIOWriteTextAtomic(PETSC_COMM_WORLD, path, NULL, WriteHello_Private, (void *)"again")); /* replaces it */
  PetscCall(CheckText(path, "hello again\n"));

  snprintf(path, sizeof(path), "%snodir/text.txt", pre);
  IOTestExpect(FGIOWriteTextAtomic(PETSC_COMM_WORLD, path, "the test file", WriteHello_Private, (void *)"x"), FG_ERR_IO_WRITE, "cannot write the test file agree_np");
  IOTestExpect(FGIOWriteTextAtomic(PETSC_COMM_WORLD, path, NULL, WriteHello_Private, (void *)"x"), FG_ERR_IO_WRITE, "nodir/text.txt: open failed: No such file or directory");
  FGTestCheck(!Exists(path), "%s written", path);
  IOTestExpect(FGIOWriteTextAtomic(PETSC_COMM_WORLD, "", "the test file", WriteHello_Private, (void *)"x"), FG_ERR_IO_WRITE, "cannot write the test file : empty file name");

  snprintf(path, sizeof(path), "%sisdir", pre);
  PetscCall(IOTestMake(path, NULL));
  snprintf(tmp, sizeof(tmp), "%s.tmp", path);
  IOTestExpect(FGIOWriteTextAtomic(PETSC_COMM_WORLD, path, NULL, WriteHello_Private, (void *)"x"), FG_ERR_IO_WRITE, "isdir: rename failed");
  FGTestCheck(!Exists(tmp), "%s left behind", tmp);

  { /* the writer's own error, on rank 0 alone: raised on every rank with its class, the .tmp removed */
    snprintf(path, sizeof(path), "%swriter.txt", pre);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    IOTestExpect(FGIOWriteTextAtomic(PETSC_COMM_WORLD, path, NULL, WriteFails_Private, NULL), PETSC_ERR_PLIB, "the writer failed");
    FGTestCheck(!Exists(tmp) && !Exists(path), "%s or its .tmp left behind", path);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestRename(const char *pre)
{
  char from[256], to[256];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FGIORename\n"));
  snprintf(from, sizeof(from), "%srename.txt.tmp", pre);
  snprintf(to, sizeof(to), "%srename.txt", pre);
  PetscCall(IOTestMake(from, "renamed\n"));
  PetscCall(FGIORename(PETSC_COMM_WORLD, from, to));
  PetscCall(CheckText(to, "renamed\n"));
  FGTestCheck(!Exists(from), "%s not renamed to %s", from, to);
  IOTestExpect(FGIORename(PETSC_COMM_WORLD, from, to), FG_ERR_IO_WRITE, "cannot rename agree_np");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestMakeDirectory(const char *pre)
{
  PetscBool ok;
  char      path[256], msg[512], want[300];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FGIOMakeDirectory\n"));
  snprintf(path, sizeof(path), "%sdir/a/b", pre);
  PetscCall(FGIOMakeDirectory(PETSC_COMM_WORLD, path, msg, sizeof(msg), &ok));
  FGTestCheck(ok && !msg[0] && Exists(path), "%s not created: %s", path, msg);
  PetscCall(FGIOMakeDirectory(PETSC_COMM_WORLD, path, msg, sizeof(msg), &ok)); /* exists: fine */
  FGTestCheck(ok, "%s: existing: %s", path, msg);

  snprintf(path, sizeof(path), "%sfile", pre);
  PetscCall(IOTestMake(path, ""));
  snprintf(want, sizeof(want), "%s exists and is not a directory", path);
  snprintf(path, sizeof(path), "%sfile/sub", pre);
  PetscCall(FGIOMakeDirectory(PETSC_COMM_WORLD, path, msg, sizeof(msg), &ok));
  FGTestCheck(!ok && strstr(msg, want), "%s: ok %d, message \"%s\", want \"%s\"", path, (int)ok, msg, want);
  if (!ok) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  ok, not created: %s\n", msg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  PetscMPIInt    size;
  char           pre[64];

  PetscCall(FGInitialize(&argc, &argv, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  snprintf(pre, sizeof(pre), "agree_np%d_", (int)size);
  ierr = TestAgree();
  if (!ierr) ierr = TestWriteText(pre);
  if (!ierr) ierr = TestRename(pre);
  if (!ierr) ierr = TestMakeDirectory(pre);
  if (!ierr) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %d failures\n", fg_test_failures ? "FAIL" : "PASS", fg_test_failures));
  return FGTestExit(ierr);
}
