/* flowgrad application layer (src/app/): the command line and the subcommands, each a short
   driver of the library below it:
     cli.c       the command line, parsed before MPI starts
     options.c   -help: every -fg_* options block (FGOptionsView); their values checked at the start (FGOptionsCheck)
     info.c      flowgrad info
     run.c       flowgrad run (its options, FGRunGetOptions; FGSlurmRestartCount)
     adjoint.c   flowgrad adjoint, and the set-up it shares with check (src/app/appimpl.h)
     check.c     flowgrad check
     optimize.c  flowgrad optimize (FGOptimizer, include/fg/optim.h) */
#ifndef FG_APP_H
#define FG_APP_H

#include <fg/case.h>

typedef enum { FG_CMD_NONE = 0, FG_CMD_RUN, FG_CMD_ADJOINT, FG_CMD_CHECK, FG_CMD_OPTIMIZE, FG_CMD_INFO } FGCommand;

#define FG_CLI_MAX_SET 256

typedef struct {
  FGCommand   command;
  const char *command_name;
  const char *case_file;
  PetscInt    nset;
  const char *set[FG_CLI_MAX_SET]; /* "key=value" */
  PetscBool   help, version, keys;
  PetscBool   resume; /* run/adjoint --resume: continue from the latest checkpoint */
  const char *resume_from; /* run --resume-from FILE: from that checkpoint (main passes it as -fg_resume_from) */
  int         petsc_argc; /* argv for PetscInitialize: program name + PETSc options */
  char      **petsc_argv;
} FGCommandLine;

/* Parse argv (before MPI starts). Returns 0 or an exit code, with a message in msg. */
PETSC_EXTERN int  FGCommandLineParse(int, char **, FGCommandLine *, char *, size_t);
PETSC_EXTERN void FGCommandLinePrintHelp(FILE *);
PETSC_EXTERN void FGCommandLinePrintVersion(FILE *);
PETSC_EXTERN int  FGLaunchRank(void);

/* `flowgrad run`'s options (src/app/run.c; -help lists them): test hooks, and the checkpoint of
   --resume-from. */
typedef struct {
  PetscInt raise_step, raise_rank; /* -fg_test_raise_signal_at_step, -fg_test_raise_signal_rank */
  int      raise_signo;            /* -fg_test_raise_signal USR1|TERM */
  char     resume_from[PETSC_MAX_PATH_LEN]; /* -fg_resume_from FILE ("" : the newest checkpoint) */
} FGRunOptions;
PETSC_EXTERN PetscErrorCode FGRunGetOptions(MPI_Comm, FGRunOptions *);

PETSC_EXTERN PetscErrorCode FGOptionsView(MPI_Comm);
PETSC_EXTERN PetscErrorCode FGOptionsCheck(MPI_Comm);
PETSC_EXTERN PetscErrorCode FGInfo(MPI_Comm, const FGCase *);
PETSC_EXTERN PetscErrorCode FGInfoCheckPoints(MPI_Comm, const FGCase *, PetscInt, const char *const[]);
/* The memory budget (src/app/memory.c): per-rank estimate from the case and the check against
   FGMemoryBudget (src/sys/memory.c). */
PETSC_EXTERN PetscErrorCode FGMemoryEstimate(MPI_Comm, const FGCase *, double[3]);
PETSC_EXTERN PetscErrorCode FGMemoryCheck(MPI_Comm, const FGCase *);
PETSC_EXTERN PetscErrorCode FGRun(MPI_Comm, const FGCase *, PetscBool);
PETSC_EXTERN PetscErrorCode FGAdjointMain(MPI_Comm, const FGCase *, PetscBool);
PETSC_EXTERN PetscErrorCode FGSlurmRestartCount(MPI_Comm, PetscInt *);
PETSC_EXTERN PetscErrorCode FGCheckMain(MPI_Comm, const FGCase *);
PETSC_EXTERN PetscErrorCode FGOptimizeMain(MPI_Comm, const FGCase *, PetscBool, PetscInt, const char *const[]);

#endif
