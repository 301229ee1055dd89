/*
  Loading a case: rank 0 reads the file and broadcasts a status and the bytes; every rank then
  parses the same bytes, applies the --set overrides in order, validates and resolves. So every
  input error is raised on every rank alike (FG_ERR_INPUT on `comm`), and the caller can print it
  once and exit without a hang.
*/
#include "caseimpl.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef enum { FG_READ_OK = 0, FG_READ_OPEN, FG_READ_DIR, FG_READ_NOTREG, FG_READ_TOOBIG, FG_READ_READ } FGReadStatus;

static PetscErrorCode FGCaseCtxDestroy_Private(FGCaseCtx *ctx)
{
  PetscFunctionBeginUser;
  if (!*ctx) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseYAMLRelease_Internal(*ctx));
  PetscCall(PetscFree(*ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Parse, override, validate, resolve. */
static PetscErrorCode FGCaseProcess_Private(FGCaseCtx ctx, const char *bytes, size_t len, PetscInt nset, const char *const sets[])
{
  PetscFunctionBeginUser;
  PetscCall(FGCaseParseText_Internal(ctx, bytes, len)); /* sets up the keys once it knows the file's instances */
  for (PetscInt i = 0; i < nset; i++) PetscCall(FGCaseParseSet_Internal(ctx, sets[i]));
  PetscCall(FGCaseValidate_Internal(ctx));
  PetscCall(FGCaseResolve_Internal(ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGCaseLoadBytes_Private(MPI_Comm comm, const char *name, const char *bytes, size_t len, PetscInt nset, const char *const sets[], FGCase *c)
{
  FGCaseCtx      ctx = NULL;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  PetscCheck(strlen(name) < sizeof(c->file), comm, FG_ERR_INPUT, "case file name too long (%zu bytes; at most %zu)", strlen(name), sizeof(c->file) - 1);
  PetscCheck(nset >= 0 && (nset == 0 || sets), comm, PETSC_ERR_ARG_WRONG, "bad --set list");
  PetscCall(PetscStrncpy(c->file, name, sizeof(c->file)));
  PetscCall(PetscNew(&ctx));
  ctx->comm = comm;
  ctx->file = c->file;
  ctx->c    = c;
  ctx->dim  = FG_CASE_MAX_DIM;
  /* release the libyaml objects and the context on every path, error or not */
  ierr = FGCaseProcess_Private(ctx, bytes, len, nset, sets);
  PetscCall(FGCaseCtxDestroy_Private(&ctx));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGCaseLoad - read, parse, override and validate a case file.

  Collective

  Input Parameters:
+ comm - communicator (every rank gets the case, or the same error)
. file - the case file (YAML)
. nset - number of overrides
- sets - the overrides, "KEY=VALUE" each (the arguments of --set), applied in order

  Output Parameter:
. c - the case, defaults filled in, with its resolved YAML text and hash

  Notes:
  Rank 0 reads the file (at most 1 MiB) and broadcasts its bytes; every rank parses them. Every
  input error is FG_ERR_INPUT on comm, raised on every rank alike, with a message
  "FILE:LINE: KEY: what is wrong" or "--set KEY=VALUE: what is wrong". No solver object is
  created.

  Sample use:
.vb
  mpiexec -n 2 flowgrad info cases/cavity/cavity.yaml --set flow.re=200 --set grid.cells=[128,128]
.ve

.seealso: FGCaseLoadString(), FGCasePrepareOutput(), FGCaseWriteResolved(), FGCasePrintKeys()
@*/
PetscErrorCode FGCaseLoad(MPI_Comm comm, const char *file, PetscInt nset, const char *const sets[], FGCase *c)
{
  PetscMPIInt rank;
  long long   info[3] = {FG_READ_OK, 0, 0}; /* status, errno, size */
  char       *buf     = NULL;

  PetscFunctionBeginUser;
  PetscCheck(file && file[0], comm, FG_ERR_INPUT, "no case file given");
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    struct stat st;
    if (stat(file, &st) != 0) info[0] = FG_READ_OPEN, info[1] = errno;
    else if (S_ISDIR(st.st_mode)) info[0] = FG_READ_DIR;
    else if (!S_ISREG(st.st_mode)) info[0] = FG_READ_NOTREG, info[1] = (long long)st.st_mode;
    else if (st.st_size > FG_CASE_MAX_BYTES) info[0] = FG_READ_TOOBIG, info[2] = (long long)st.st_size;
    else {
      FILE *fp = fopen(file, "rb");
      if (!fp) info[0] = FG_READ_OPEN, info[1] = errno;
      else {
        size_t n;
        PetscCall(PetscMalloc1(FG_CASE_MAX_BYTES + 2, &buf));
        n = fread(buf, 1, FG_CASE_MAX_BYTES + 1, fp); /* one byte more than allowed: the file may have grown */
        if (ferror(fp)) info[0] = FG_READ_READ, info[1] = errno ? errno : EIO;
        else if (n > FG_CASE_MAX_BYTES) info[0] = FG_READ_TOOBIG, info[2] = (long long)n;
        info[2] = info[0] == FG_READ_TOOBIG ? info[2] : (long long)n;
        (void)fclose(fp);
      }
    }
  }
  PetscCallMPI(MPI_Bcast(info, 3, MPI_LONG_LONG, 0, comm));
  if (info[0] != FG_READ_OK) {
    PetscCall(PetscFree(buf));
    PetscCheck(info[0] != FG_READ_OPEN, comm, FG_ERR_INPUT, "%s: cannot open the case file: %s", file, strerror((int)info[1]));
    PetscCheck(info[0] != FG_READ_DIR, comm, FG_ERR_INPUT, "%s: is a directory, not a case file", file);
    PetscCheck(info[0] != FG_READ_NOTREG, comm, FG_ERR_INPUT, "%s: it is %s, not a case file", file, FGFileKind((unsigned)info[1]));
    PetscCheck(info[0] != FG_READ_TOOBIG, comm, FG_ERR_INPUT, "%s: too large (%lld bytes; a case file is at most 1 MiB)", file, info[2]);
    SETERRQ(comm, FG_ERR_INPUT, "%s: cannot read the case file: %s", file, strerror((int)info[1]));
  }
  if (rank != 0) PetscCall(PetscMalloc1((size_t)info[2] + 1, &buf));
  if (info[2] > 0) PetscCallMPI(MPI_Bcast(buf, (PetscMPIInt)info[2], MPI_CHAR, 0, comm));
  buf[info[2]] = '\0';
  {
    PetscErrorCode ierr = FGCaseLoadBytes_Private(comm, file, buf, (size_t)info[2], nset, sets, c);
    PetscCall(PetscFree(buf));
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGCaseLoadString - FGCaseLoad() from text in memory (tests).

  Collective

  Input Parameters:
+ comm - communicator
. name - stands for the file name in messages and gives the default case name
. text - the YAML text (the same on every rank)
. nset - number of overrides
- sets - the overrides, "KEY=VALUE" each

  Output Parameter:
. c - the case

.seealso: FGCaseLoad()
@*/
PetscErrorCode FGCaseLoadString(MPI_Comm comm, const char *name, const char *text, PetscInt nset, const char *const sets[], FGCase *c)
{
  PetscFunctionBeginUser;
  PetscCheck(name && text, comm, PETSC_ERR_ARG_NULL, "name and text are required");
  PetscCall(FGCaseLoadBytes_Private(comm, name, text, strlen(text), nset, sets, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}
