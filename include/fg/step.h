/* flowgrad time step (src/step/): the RK3 projection step, its tangent and its adjoint (rk3.c),
   and the tape that records what the linearized steps need (tape.c).

   The step is a function of (state, parameters, dt) -> state: FGStepForward_RK3 advances the
   solver's state (u, p, t, step) with its parameters (FGSolver.prm) and, as outputs of the
   scheme, the bodies' penalty forces of the step (FGBodiesGetForces). Nothing else happens in
   it: diagnostics (monitor quantities, the control-volume cross-check, probes) are computed by
   whoever asks for them, between steps. With a tape (an argument, NULL: none) the step records
   what its linearization needs; the tangent and the adjoint linearize about a recorded step. */
#ifndef FG_STEP_H
#define FG_STEP_H

#include <fg/solver.h>

/* What the linearized step needs from its forward step: the start time and step, each stage's
   ghosted start velocity and its predicted velocity before the penalization; and the work
   vectors of the tangent and adjoint steps. */
typedef struct _p_FGStepTape *FGStepTape;
struct _p_FGStepTape {
  PetscReal t0, dt;
  Vec       ul[3][3];    /* [stage][component], ghosted, boundary-filled at the stage start */
  Vec       ustar[3][3]; /* [stage][component], before FGBodiesPenalize */
  Vec       div[3];      /* [stage]: D ul / (gamma dt) of the projection (implicit viscous term only; else NULL) */
  Vec       uvis[3][3];  /* [stage][component]: the viscous solve's output (implicit viscous term only) */
  Vec       upin[3][3];  /* [stage][component]: the projection's input, ghosted (apertures with the implicit viscous term only) */
  Vec       uend[3];     /* [component]: the step's end state, ghosted (apertures only: the last projection's output) */
  Vec       phik[3];     /* [stage]: the projection's phi (the line-flux continuity only) */
  Vec       wl[3], wH[3], wHo[3], wdiv, wphi, wphil; /* work */
  Vec       wA[3];       /* work (apertures only), ghosted: their tangent, or their adjoint over the step */
};

PETSC_EXTERN PetscErrorCode FGStepForward_RK3(FGSolver, FGStepTape);
PETSC_EXTERN PetscErrorCode FGStepTangent_RK3(FGSolver, FGStepTape, const FGParams *, Vec[], Vec, PetscReal[]);
PETSC_EXTERN PetscErrorCode FGStepAdjoint_RK3(FGSolver, FGStepTape, const PetscReal[], Vec[], Vec, FGParams *);
PETSC_EXTERN PetscErrorCode FGStepMomentumRHS(FGSolver, PetscReal, PetscReal, Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGStepTapeCreate(FGSolver, FGStepTape *);
PETSC_EXTERN PetscErrorCode FGStepTapeDuplicate(FGSolver, FGStepTape, FGStepTape *);
PETSC_EXTERN PetscErrorCode FGStepTapeDestroy(FGStepTape *);

#endif
