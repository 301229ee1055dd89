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

  PetscFunctionBeginUser;
  PetscCall(FGPoissonFFTWGetOptions(comm, &fftw));
  PetscCall(FGSolverGetOptions(comm, &solver));
  PetscCall(FGViscousGetOptions(comm, &viscous));
  PetscCall(FGRunGetOptions(comm, &run));
  PetscCall(FGAdjointGetOptions(comm, &adjoint));
  PetscCall(FGAdjointCheckGetOptions(comm, &check));
  PetscCall(FGOptimizerGetOptions(comm, &optimize));
  PetscFunctionReturn(PETSC_SUCCESS);
}
