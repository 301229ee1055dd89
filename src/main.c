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
#include <flowgrad.h>
#include <fg/app.h>
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
  {
    PetscBool want;
    PetscCall(PetscOptionsHasHelp(NULL, &want));
    if (want) PetscCall(FGOptionsView(PETSC_COMM_WORLD)); /* every -fg_* option, then the command as usual */
  }
  PetscCall(PetscNew(&c));
  PetscCall(FGCaseLoad(PETSC_COMM_WORLD, cl->case_file, cl->nset, cl->set, c));
  if (cl->command == FG_CMD_INFO) PetscCall(FGCaseCheckOutput(PETSC_COMM_WORLD, c)); /* info leaves no trace */
  else PetscCall(FGCasePrepareOutput(PETSC_COMM_WORLD, c));
  switch (cl->command) {
  case FG_CMD_INFO:
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
    if (FGLaunchRank() == 0) fprintf(stderr, "flowgrad: error: %s\n", msg);
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
  ierr = FGInitialize(&cl.petsc_argc, &cl.petsc_argv, help);
  if (ierr) return FGExit_Private(FG_EXIT_INTERNAL);
  ierr = FGMain_Private(&cl);
  if (ierr) {
    (void)FGErrorReport(ierr, &code); /* an error on one rank only aborts the job here */
  }
  if (FGFinalize()) code = code ? code : FG_EXIT_INTERNAL;
  free(cl.petsc_argv);
  return FGExit_Private(code);
}
