/* The unsteady reverse sweep's state and its files (src/adjoint/sweep.c: the schedule's
   executor; src/adjoint/resume.c: state files, resume.h5, the hash that ties them to a run). */
#ifndef FG_SWEEPIMPL_H
#define FG_SWEEPIMPL_H

#include <fg/adjoint.h>
#include <fg/io.h>
#include <fg/iofile.h>
#include <string.h>

/* 2: the parameter adjoints in the layout of include/fg/solver.h (FGParamLayout: as many as the
   case has); format 1 (fixed slots) is still read (src/adjoint/resume.c) */
#define FG_SWEEP_FORMAT 2

typedef struct {
  Vec       u[3], p;
  PetscReal t;
  PetscInt  step;
} FGSweepState;

typedef struct {
  FGSolver         s;
  FGDesign         d;
  FGObjective      o;
  Vec              p;
  FGAdjointOutput *out;
  FGSchedule       sc;
  PetscInt         N, dim, nb;

  PetscInt  frontier; /* the forward run has computed steps 1..frontier (objective recorded) */
  PetscBool finished; /* the objective is complete (J, weights) */
  PetscReal J;

  FGSweepState *slot; /* RAM states, vectors created on first use */
  PetscInt      nslot;
  FGStepTape    work, *tape; /* tapes share work's work vectors */
  PetscInt      ntape;

  Vec        ubar[3], pbar;
  FGParams   bar;
  PetscReal  wacc[6 * FG_CASE_MAX_BODIES];
  PetscInt     position; /* lambda = dJ/dx_position */
  PetscInt64   recomputed;
  PetscInt     adjoint_steps;

  PetscInt   ns; /* design scalars; gradient in time */
  PetscReal *gtime, *snap, *gs;
  FGParams   dstep; /* gradient in time: one step's parameter adjoints */

  unsigned long long hash;
  PetscBool          resumable; /* files in adjoint/ (else adjoint/scratch/), resume.h5 written */
  char               dir[PETSC_MAX_PATH_LEN], resume_path[PETSC_MAX_PATH_LEN + 32];
  PetscInt          *bound, nbound; /* segment boundaries (ascending, bound[0] = 0) */
  FGAdjointOptions   opt;
  PetscInt           every;
  PetscLogDouble     tstart, treverse;
} FGSweep;

PETSC_INTERN PetscErrorCode FGSweepClean_Internal(FGSweep *);
PETSC_INTERN PetscErrorCode FGSweepHash_Internal(FGSweep *);
PETSC_INTERN PetscErrorCode FGSweepListStates_Internal(FGSweep *, PetscInt **, PetscInt *);
PETSC_INTERN PetscErrorCode FGSweepReadResume_Internal(FGSweep *);
PETSC_INTERN PetscErrorCode FGSweepReadState_Internal(FGSweep *, PetscInt, PetscBool);
PETSC_INTERN PetscErrorCode FGSweepWriteResume_Internal(FGSweep *);
PETSC_INTERN PetscErrorCode FGSweepWriteState_Internal(FGSweep *);

#endif
