/* flowgrad system layer (src/sys/): initialization, error classes, exit codes, library-call
   checks (sys.c); KSP tolerance checks and a stall test (ksp.c); stop requests on SIGUSR1/SIGTERM
   agreed by all ranks (signal.c). */
#ifndef FG_SYS_H
#define FG_SYS_H

#include <petscsys.h>
#include <petscksp.h> /* FGKSPCheckOptions, FGKSPSetStallTest */

/* PETSc < 3.19 (Debian 12 ships 3.18) has no PETSC_SUCCESS. */
#if PETSC_VERSION_LT(3, 19, 0) && !defined(PETSC_SUCCESS)
  #define PETSC_SUCCESS ((PetscErrorCode)0)
#endif

/* Process exit codes (documented in docs/command.md, "Exit codes"). */
#define FG_EXIT_OK        0
#define FG_EXIT_INTERNAL  1  /* a bug or an unexpected library failure */
#define FG_EXIT_INPUT     2  /* bad input or usage: case file, command line, output directory */
#define FG_EXIT_NUMERICAL 3  /* numerical failure: NaN, CFL over limit, solver not converged */
#define FG_EXIT_IO        4  /* I/O failure while running: HDF5 read/write, damaged checkpoint */
#define FG_EXIT_REQUEUE   75 /* EX_TEMPFAIL: stopped on a signal after a checkpoint; requeue */

/* Error classes, as PETSc error codes, so that PetscCheck/SETERRQ carry them:
     FG_ERR_INPUT  bad input (exit 2)         FG_ERR_NUMERIC numerical failure (exit 3)
     FG_ERR_IO_*   I/O failure (exit 4)        FG_ERR_SIGNAL  stopped on a signal (exit 75) */
#define FG_ERR_INPUT    PETSC_ERR_USER_INPUT
#define FG_ERR_NUMERIC  PETSC_ERR_NOT_CONVERGED
#define FG_ERR_IO_READ  PETSC_ERR_FILE_READ
#define FG_ERR_IO_WRITE PETSC_ERR_FILE_WRITE
#define FG_ERR_IO_OPEN  PETSC_ERR_FILE_OPEN
#define FG_ERR_SIGNAL   PETSC_ERR_SIG

/* The version: `git describe` of the source tree at build time (0.1.0-gabcdef0[-dirty] before the
   first release tag, 0.2.0[-N-gabcdef0] after one), else the project's version (a tarball). It is
   in --version, `flowgrad info`, and a root attribute flowgrad_version of every HDF5 file written. */
PETSC_EXTERN const char    *FGVersion(void);
PETSC_EXTERN PetscErrorCode FGInitialize(int *, char ***, const char *);
PETSC_EXTERN PetscErrorCode FGFinalize(void);
PETSC_EXTERN const char    *FGInitializeMessage(void);
PETSC_EXTERN int            FGExitCode(PetscErrorCode);
PETSC_EXTERN PetscErrorCode FGErrorReport(PetscErrorCode, int *);
PETSC_EXTERN void           FGEscapeLine(const char *, char *, size_t);
PETSC_EXTERN const char    *FGExitCodeName(int);
PETSC_EXTERN PetscErrorCode FGMakeDirectory(const char *);
PETSC_EXTERN const char    *FGFileKind(unsigned);
PETSC_EXTERN PetscErrorCode FGOptionsCheckValue(const char *, PetscBool);
PETSC_EXTERN PetscErrorCode FGOptionsFindQuoted(const char *, char *, size_t);
PETSC_EXTERN PetscErrorCode FGKSPCheckOptions(KSP); /* src/sys/ksp.c */
PETSC_EXTERN PetscErrorCode FGKSPSetStallTest(KSP, PetscInt, PetscReal);
PETSC_EXTERN PetscErrorCode FGKSPCheckStallOptions(MPI_Comm, const char[]);
PETSC_EXTERN PetscErrorCode FGKSPStallGet(KSP, PetscBool *, PetscReal *);
PETSC_EXTERN PetscErrorCode FGMemoryBudget(MPI_Comm, double *); /* bytes each rank may use (src/sys/memory.c) */
#define FG_HASH_START 14695981039346656037ULL /* FNV-1a's offset basis */
PETSC_EXTERN unsigned long long FGHashBytes(unsigned long long, const void *, size_t);
PETSC_EXTERN PetscErrorCode FGErrorCapturePush(char *, size_t);
PETSC_EXTERN PetscErrorCode FGErrorCapturePop(void);
PETSC_EXTERN void           FGErrorTake(char *, size_t);

/* Stop requests (src/sys/signal.c): SIGUSR1 and SIGTERM set a flag (async-signal safe) from the
   process's start (FGInitialize) to its exit; the time loop reduces it once per step with
   FGSignalAgree (MPI_Allreduce MAX), so all ranks stop at the same step, write a checkpoint and
   raise FG_ERR_SIGNAL (exit 75). FGSignalSetExit: a command with no step to stop at ends by the
   signal, with one line. */
PETSC_EXTERN int            FGSignalCatch(void);
PETSC_EXTERN PetscErrorCode FGSignalInstall(void);
PETSC_EXTERN PetscErrorCode FGSignalSetExit(const char *);
PETSC_EXTERN PetscErrorCode FGSignalRestore(void);
PETSC_EXTERN PetscErrorCode FGSignalAgree(MPI_Comm, int *);
PETSC_EXTERN PetscErrorCode FGSignalRaise(int);
PETSC_EXTERN const char    *FGSignalName(int);

/* Output only from rank 0 of PETSC_COMM_WORLD. */
#define FGInfoPrintf(...) PetscPrintf(PETSC_COMM_WORLD, __VA_ARGS__)

#endif
