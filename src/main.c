/*
  flowgrad - differentiable incompressible Navier-Stokes on PETSc, FFTW and parallel HDF5.

  Sample runs:
    mpiexec -n 2 flowgrad info cases/cavity/cavity.yaml
    mpiexec -n 2 flowgrad run  cases/cavity/cavity.yaml --set time.steps=2000 -log_view
    flowgrad info --keys

  main() is thin: parse the command line (before MPI), start PETSc, load and validate the case
  (nothing is allocated before the case is valid), dispatch, and turn an error into one message
  and a documented exit code (src/sys/sys.c).
*/
#define _POSIX_C_SOURCE 200809L /* sigprocmask under -std=c11 */
#include <flowgrad.h>
#include <fg/app.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static const char help[] = "flowgrad: see flowgrad --help\n";

/* A PETSc option that nothing read is most likely misspelled: say so (rank 0). */
static PetscErrorCode FGWarnUnusedOptions_Private(void)
{
  PetscInt n;
  char   **names, **values;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt i = 0; i < n; i++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "flowgrad: warning: PETSc option -%s was not used (misspelled, or not for this command?)\n", names[i]));
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGMain_Private(const FGCommandLine *cl)
{
  FGCase *c;

  PetscFunctionBeginUser;
  if (cl->keys) {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    if (rank == 0) PetscCall(FGCasePrintKeys(stdout));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FGOptionsCheck(PETSC_COMM_WORLD)); /* every -fg_* option (-help: listed), then the command as usual */
  if (cl->resume_from) PetscCall(PetscOptionsSetValue(NULL, "-fg_resume_from", cl->resume_from)); /* read by FGRunGetOptions */
  PetscCall(PetscNew(&c));
  PetscCall(FGCaseLoad(PETSC_COMM_WORLD, cl->case_file, cl->nset, cl->set, c));
  PetscCall(FGMemoryCheck(PETSC_COMM_WORLD, c)); /* before anything the size of the grid is allocated */
  if (cl->command == FG_CMD_INFO) PetscCall(FGCaseCheckOutput(PETSC_COMM_WORLD, c)); /* info leaves no trace */
  else PetscCall(FGCasePrepareOutput(PETSC_COMM_WORLD, c));
  switch (cl->command) {
  case FG_CMD_INFO:
    PetscCall(FGInfoCheckPoints(PETSC_COMM_WORLD, c, cl->nset, cl->set)); /* as optimize loads them */
    PetscCall(FGInfo(PETSC_COMM_WORLD, c));
    break;
  case FG_CMD_RUN:
    PetscCall(FGRun(PETSC_COMM_WORLD, c, cl->resume));
    break;
  case FG_CMD_ADJOINT:
    PetscCall(FGAdjointMain(PETSC_COMM_WORLD, c, cl->resume));
    break;
  case FG_CMD_CHECK:
    PetscCall(FGCheckMain(PETSC_COMM_WORLD, c));
    break;
  case FG_CMD_OPTIMIZE:
    PetscCall(FGOptimizeMain(PETSC_COMM_WORLD, c, cl->resume, cl->nset, cl->set));
    break;
  default:
    SETERRQ(PETSC_COMM_WORLD, FG_ERR_INPUT, "flowgrad: no command");
  }
  PetscCall(PetscFree(c));
  if (cl->command != FG_CMD_INFO) PetscCall(FGWarnUnusedOptions_Private());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FLOWGRAD_EXIT_FILE=PATH in the environment: rank 0 writes its exit code there (atomically) as
   its last act. The job scripts use it because a launcher's own exit code can mislead: srun
   returns 0 when it could not start the tasks at all. */
static int FGExit_Private(int code)
{
  const char *path = getenv("FLOWGRAD_EXIT_FILE");
  if (path && *path && FGLaunchRank() == 0) {
    char  tmp[4096];
    FILE *fp;
    if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) < (int)sizeof(tmp) && (fp = fopen(tmp, "w"))) {
      int ok = fprintf(fp, "%d\n", code) > 0;
      if (fclose(fp) || !ok || rename(tmp, path)) (void)remove(tmp);
    }
  }
  return code;
}

int main(int argc, char **argv)
{
  FGCommandLine  cl;
  char           msg[1024] = "";
  int            code      = FGCommandLineParse(argc, argv, &cl, msg, sizeof(msg));
  PetscErrorCode ierr;

  if (code) {
    char line[sizeof(msg)];
    FGEscapeLine(msg, line, sizeof(line)); /* one line: an argument may hold a newline */
    if (FGLaunchRank() == 0) fprintf(stderr, "flowgrad: error: %s\n", line);
    free(cl.petsc_argv);
    return FGExit_Private(code);
  }
  if (cl.help || cl.version) {
    if (FGLaunchRank() == 0) {
      if (cl.help) FGCommandLinePrintHelp(stdout);
      else FGCommandLinePrintVersion(stdout);
    }
    free(cl.petsc_argv);
    return FGExit_Private(0);
  }
  /* SIGUSR1/SIGTERM are stop requests from here to the exit (src/sys/signal.c): caught from now,
     held during PetscInitialize (MPI_Init), which puts its own handler (traceback, abort) on them,
     caught again after it */
  {
    sigset_t stop;
    (void)sigemptyset(&stop);
    (void)sigaddset(&stop, SIGUSR1);
    (void)sigaddset(&stop, SIGTERM);
    (void)FGSignalCatch();
    (void)sigprocmask(SIG_BLOCK, &stop, NULL); /* held while PETSc's handler is on them (and in MPI's threads) */
    ierr = FGInitialize(&cl.petsc_argc, &cl.petsc_argv, help);
    if (ierr) { /* PETSc refused its start-up options (-malloc_dump abc): every rank alike */
      int mpi = 0;
      if (FGLaunchRank() == 0) fprintf(stderr, "flowgrad: error: PETSc options: %s\n", FGInitializeMessage()[0] ? FGInitializeMessage() : "PetscInitialize failed");
      free(cl.petsc_argv);
      if (!MPI_Initialized(&mpi) && mpi) (void)MPI_Finalize();
      return FGExit_Private(FG_EXIT_INPUT);
    }
    ierr = FGSignalInstall();
    (void)sigprocmask(SIG_UNBLOCK, &stop, NULL); /* one that came meanwhile is delivered now */
  }
  if (!ierr && (cl.command == FG_CMD_INFO || cl.command == FG_CMD_CHECK || cl.keys)) /* nothing to stop cleanly: end by the signal */
    ierr = FGSignalSetExit(cl.command == FG_CMD_CHECK ? "flowgrad check keeps no checkpoint; run it again" : "nothing was written");
  if (!ierr) ierr = FGMain_Private(&cl);
  if (ierr) {
    (void)FGErrorReport(ierr, &code); /* an error on one rank only aborts the job here */
  }
  if (FGFinalize()) { /* what PETSc does at its end (-log_view's file was checked at the start) */
    if (FGLaunchRank() == 0) fprintf(stderr, "flowgrad: error: PETSc at the end of the run: %s\n", FGInitializeMessage()[0] ? FGInitializeMessage() : "PetscFinalize failed");
    code = code ? code : FG_EXIT_INTERNAL;
  }
  free(cl.petsc_argv);
  return FGExit_Private(code);
}
