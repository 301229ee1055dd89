/*
  flowgrad's own options (-fg_*), for -help.

  Every -fg_* option is read in a PetscOptionsBegin block of the module it configures, at that
  module's set-up (the FFTW solver, the solver, the implicit viscous term, the reverse sweep, flowgrad check, flowgrad run,
  flowgrad optimize); PETSc prints a block's options with -help when the block runs. A command
  runs only some of them, so with -help main() runs them all first (FGOptionsView): `flowgrad
  CMD CASE -help` lists every -fg_* option with its description and default, then the command
  runs as usual (as PETSc programs do with -help). Options marked TEST ONLY are test hooks.
*/
#include <fg/app.h>
#include <fg/adjoint.h>
#include <fg/optim.h>
#include <string.h>

/*@C
  FGOptionsView - run every -fg_* options block once (with -help PETSc prints them). Collective.
@*/
PetscErrorCode FGOptionsView(MPI_Comm comm)
{
  FGPoissonFFTWOptions  fftw;
  FGSolverOptions       solver;
  FGViscousOptions      viscous;
  FGAdjointOptions      adjoint;
  FGAdjointCheckOptions check;
  FGRunOptions          run;
  FGOptimizerOptions    optimize;
  double                budget;

  PetscFunctionBeginUser;
  PetscCall(FGPoissonFFTWGetOptions(comm, &fftw));
  PetscCall(FGSolverGetOptions(comm, &solver));
  PetscCall(FGViscousGetOptions(comm, &viscous));
  PetscCall(FGRunGetOptions(comm, &run));
  PetscCall(FGAdjointGetOptions(comm, &adjoint));
  PetscCall(FGAdjointCheckGetOptions(comm, &check));
  PetscCall(FGOptimizerGetOptions(comm, &optimize));
  PetscCall(FGMemoryBudget(comm, &budget));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOptionsCheck - every -fg_* option's value (each options block run once, as with -help), and
  the viewers PETSc opens only at its end (-log_view), read at the start: a bad one is a usage
  error (FG_ERR_INPUT, exit 2) naming the option, before anything runs. Collective.
@*/
PetscErrorCode FGOptionsCheck(MPI_Comm comm)
{
  static const char *const atend[] = {"-log_view"};
  char                     msg[1024], opt[512];
  PetscErrorCode           ierr;

  PetscFunctionBeginUser;
  PetscCall(FGErrorCapturePush(msg, sizeof(msg)));
  ierr = FGOptionsView(comm);
  PetscCall(FGErrorCapturePop());
  if (ierr) {
    PetscCheck(msg[0] != '-', comm, FG_ERR_INPUT, "%s", msg); /* it names the option itself */
    PetscCall(FGOptionsFindQuoted(msg, opt, sizeof(opt)));
    SETERRQ(comm, FG_ERR_INPUT, "%s%s%s (-help lists flowgrad's options)", opt[0] ? opt : "a flowgrad option", ": ", msg);
  }
  for (size_t i = 0; i < sizeof(atend) / sizeof(atend[0]); i++) {
    PetscViewer       v   = NULL;
    PetscViewerFormat fmt = PETSC_VIEWER_DEFAULT;
    PetscBool         set = PETSC_FALSE;
    char              value[PETSC_MAX_PATH_LEN] = "";
    PetscCall(PetscOptionsGetString(NULL, NULL, atend[i], value, sizeof(value), &set));
    if (!set || !value[0]) continue;
    PetscCall(FGErrorCapturePush(msg, sizeof(msg)));
    ierr = PetscOptionsGetViewer(comm, NULL, NULL, atend[i], &v, &fmt, &set);
    if (!ierr && v) ierr = PetscViewerDestroy(&v);
    PetscCall(FGErrorCapturePop());
    if (ierr) PetscCall(PetscOptionsClearValue(NULL, atend[i])); /* PETSc's end would fail on it again */
    PetscCheck(!ierr, comm, FG_ERR_INPUT, "%s %s: %s", atend[i], value, msg);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
