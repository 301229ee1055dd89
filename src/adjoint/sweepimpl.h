/* The unsteady reverse sweep's state and its files (src/adjoint/sweep.c: the schedule's
   executor; src/adjoint/resume.c: state files, resume.h5, the hash that ties them to a run). */
#ifndef FG_SWEEPIMPL_H
#define FG_SWEEPIMPL_H

#include <fg/adjoint.h>
#include <fg/io.h>
#include <string.h>

#define FG_SWEEP_FORMAT  1
#define FG_SWEEP_NSCALAR (2 + FG_STEP_NACT + FG_CASE_MAX_BODIES * FG_BODY_MAX_PARAMS)

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

  Vec          ubar[3], pbar;
  FGStepParams bar;
  PetscReal    wacc[6 * FG_CASE_MAX_BODIES];
  PetscInt     position; /* lambda = dJ/dx_position */
  PetscInt64   recomputed;
  PetscInt     adjoint_steps;

  PetscInt   ns; /* design scalars; gradient in time */
  PetscReal *gtime, *snap0, *snap1, *gs;

  unsigned long long hash;
  PetscBool          resumable; /* files in adjoint/ (else adjoint/scratch/), resume.h5 written */
  char               dir[PETSC_MAX_PATH_LEN], resume_path[PETSC_MAX_PATH_LEN + 32];
  PetscInt          *bound, nbound; /* segment boundaries (ascending, bound[0] = 0) */
  PetscInt           test_signal_at, test_kill_at;
  PetscInt           every;
  PetscLogDouble     tstart, treverse;
} FGSweep;

/* The parameter adjoints' scalars, packed (local partial sums until reduced). */
static inline void FGSweepPack_Private(const FGStepParams *b, PetscReal *v)
{
  v[0] = b->nu;
  v[1] = b->inflow;
  memcpy(v + 2, b->act, sizeof(b->act));
  memcpy(v + 2 + FG_STEP_NACT, &b->body[0][0], sizeof(b->body));
}

static inline void FGSweepUnpack_Private(const PetscReal *v, FGStepParams *b)
{
  b->nu     = v[0];
  b->inflow = v[1];
  memcpy(b->act, v + 2, sizeof(b->act));
  memcpy(&b->body[0][0], v + 2 + FG_STEP_NACT, sizeof(b->body));
}

PETSC_INTERN PetscErrorCode FGSweepClean_Internal(FGSweep *);
PETSC_INTERN PetscErrorCode FGSweepHash_Internal(FGSweep *);
PETSC_INTERN PetscErrorCode FGSweepListStates_Internal(FGSweep *, PetscInt **, PetscInt *);
PETSC_INTERN PetscErrorCode FGSweepReadResume_Internal(FGSweep *);
PETSC_INTERN PetscErrorCode FGSweepReadState_Internal(FGSweep *, PetscInt, PetscBool);
PETSC_INTERN PetscErrorCode FGSweepWriteResume_Internal(FGSweep *);
PETSC_INTERN PetscErrorCode FGSweepWriteState_Internal(FGSweep *);

#endif
