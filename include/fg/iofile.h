/* flowgrad files that one rank writes for all (src/io/agree.c): one verdict on every rank, atomic
   text files, directories.

   The pattern: rank 0 does file-system work that may fail (create a directory, write a small
   file under a temporary name and rename it); the outcome, ok or a one-line message, is agreed on
   by every rank (FGIOAgree), so that every rank raises the same error on the communicator and
   flowgrad prints it once and exits with the error's code (include/fg/sys.h), with no rank left
   waiting in a collective call.

     char      msg[256] = "";
     PetscBool ok;
     if (rank == 0 && something_failed) snprintf(msg, sizeof(msg), "cannot ...: %s", strerror(errno));
     PetscCall(FGIOAgree(comm, msg, sizeof(msg), &ok));
     PetscCheck(ok, comm, FG_ERR_IO_WRITE, "%s", msg);

   A file written with FGIOWriteTextAtomic() is <path>.tmp until it is complete (written, flushed,
   synced, closed); then it is renamed to <path>, so a reader sees the old file or the complete
   new one, never a part. */
#ifndef FG_IOFILE_H
#define FG_IOFILE_H

#include <fg/sys.h>
#include <stdio.h>

/* Writes a file's contents to fp (rank 0 only). Output errors need not be checked: the caller
   checks ferror() afterwards. A returned error is passed on (on rank 0 alone). */
typedef PetscErrorCode (*FGIOTextWriter)(FILE *, void *);

PETSC_EXTERN PetscErrorCode FGIOAgree(MPI_Comm, char[], size_t, PetscBool *);
PETSC_EXTERN PetscErrorCode FGIOWriteTextAtomic(MPI_Comm, const char *, const char *, FGIOTextWriter, void *);
PETSC_EXTERN PetscErrorCode FGIORename(MPI_Comm, const char *, const char *);
PETSC_EXTERN PetscErrorCode FGIOMakeDirectory(MPI_Comm, const char *, char[], size_t, PetscBool *);
PETSC_EXTERN PetscErrorCode FGIOCheckReadable(MPI_Comm, const char *, char[], size_t, PetscBool *);

/* The HDF5 library flowgrad was built with, "MAJOR.MINOR.RELEASE" (src/io/h5.c). */
PETSC_EXTERN const char *FGIOHDF5Version(void);

#endif
