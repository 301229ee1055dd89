/*
  flowgrad optimize CASE [--resume]: PETSc TAO on the case's optimization problem, the forward run
  and adjoint of every point as the objective-and-gradient callback (FGOptimizer,
  include/fg/optim.h; the method, the files and the restart are described in src/optim/).

  Sample runs:
    mpiexec -n 2 flowgrad optimize cases/shape_drag/quick.yaml
    mpiexec -n 2 flowgrad optimize cases/shape_drag/quick.yaml --resume   (replay the log, go on)
    mpiexec -n 2 flowgrad optimize cases/shape_drag/quick.yaml --set optimizer.type=almm -tao_monitor

  Signals. SIGUSR1/SIGTERM stop the run after the current evaluation (its log written), exit 75;
  --resume (or a SLURM requeue, SLURM_RESTART_COUNT > 0) continues.
*/
#include "appimpl.h"
#include <fg/optim.h>

/*@C
  FGOptimizeMain - flowgrad optimize CASE [--resume]; (nset, set): the command line's --set
  overrides (the points' cases are loaded with them).
@*/
PetscErrorCode FGOptimizeMain(MPI_Comm comm, const FGCase *c, PetscBool resume, PetscInt nset, const char *const set[])
{
  FGOptimizer opt;
  PetscInt    slurm;

  PetscFunctionBeginUser;
  PetscCall(FGOptimizerCreate(comm, c, nset, set, &opt));
  PetscCall(FGAppSetUpOutput_Internal(comm, c));
  PetscCall(FGSlurmRestartCount(comm, &slurm));
  PetscCall(FGOptimizerSetResume(opt, (PetscBool)(resume || slurm > 0), resume));
  PetscCall(FGOptimizerSetUp(opt));
  {
    FGProblem P;
    FGSolver  s;
    PetscCall(FGOptimizerGetProblem(opt, &P));
    PetscCall(FGProblemGetSolver(P, 0, &s)); /* the points share the bodies' case keys */
    PetscCall(FGAppWarnBodies_Internal(comm, c, s->bodies));
  }
  PetscCall(FGSignalInstall());
  PetscCall(FGOptimizerSolve(opt));
  PetscCall(FGOptimizerView(opt)); /* the handlers stay to the process's exit */
  PetscCall(FGOptimizerDestroy(&opt));
  PetscFunctionReturn(PETSC_SUCCESS);
}
