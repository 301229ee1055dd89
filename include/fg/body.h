/* flowgrad bodies: Brinkman volume penalization of the case's body.<name> entries (src/body/:
   bodies.c set-up and parameters, motion.c rigid motion and the controls' basis in time, mask.c
   face lists and placements, penalize.c the penalization with its tangent and adjoint,
   diagnostics.c control volume and Strouhal frequency, actuator.c body-force actuators, aperture.c
   a sharp wall's cut-cell continuity (the projection's face weights); the
   shapes are include/fg/shape.h, the density fields include/fg/density.h).

   Each body b is a mask chi_b(x, t) = H_eps(-phi_b(x; p, t) - delta) in [0, 1] (include/fg/shape.h;
   delta = mask_offset eps shifts the band into the body), or a
   filtered, projected density field (include/fg/density.h), sampled where every velocity component
   lives (its faces). The momentum equation gets the penalty

     du/dt = ... - sum_b (chi_b / eta_b) (u - u_s,b)

   with u_s,b the body's velocity: rigid motion V(t) + Omega(t) e_z x (x - x_c(t)) plus the surface
   jets. In each RK3 stage it is applied implicitly and pointwise to the predicted velocity u*,

     u** = (u* + g dt sum_b k_b u_s,b) / (1 + g dt sum_b k_b),   k_b = chi_b / eta_b,   g = gamma_k,

   before the projection (stable for any eta). The force on body b is the momentum the penalty takes
   out of the fluid, F_b = sum_faces k_b (u** - u_s,b) dV, averaged over the stages with the weights
   gamma_k (they sum to 1); the moment about x_c(t) likewise. */
#ifndef FG_BODY_H
#define FG_BODY_H

#include <fg/grid.h>
#include <fg/ops.h>
#include <fg/shape.h>
#include <fg/density.h>
#include <fg/io.h>

typedef struct _p_FGBodies *FGBodies;

/* The soft skin's calibrated band centre (src/body/skin.c). */
PETSC_EXTERN PetscErrorCode FGBodySkinOffset(PetscBool, PetscReal, PetscReal, PetscReal, PetscReal, PetscReal *, PetscReal *);

/* Forces of one body over the last step (reduced: every rank has them). */
typedef struct {
  PetscReal force[3];  /* F on the body (penalty), per unit span in 2D */
  PetscReal moment[3]; /* about the body's reference point x_c(t); 2D: moment[2] */
  PetscReal coeff[3];  /* force coefficients F / (1/2 ref_speed^2 ref_area): [0] drag (x), [1] lift (y), [2] side (z) */
  PetscReal cm;        /* moment coefficient M_z / (1/2 ref_speed^2 ref_area ref_length) */
  PetscReal cv_force[3]; /* control-volume momentum balance on a box around the body (cross-check) */
  PetscReal volume;    /* sum of chi dV over the x-faces (the mask's area in 2D, volume in 3D) */
} FGBodyForces;

/* A sharp wall's gaps (wall: sharp): the pairs of neighbouring faces, both outside the body, with
   the body between them, where it is thinner than a cell; the box of their faces (reduced). */
typedef struct {
  PetscInt  n;
  PetscReal lo[3], hi[3];
} FGBodyWallGaps;

PETSC_EXTERN PetscErrorCode FGBodiesCreate(FGGrid, const FGBoundary *, const FGCase *, FGBodies *);
PETSC_EXTERN PetscErrorCode FGBodiesDestroy(FGBodies *);
PETSC_EXTERN PetscErrorCode FGBodiesGetCount(FGBodies, PetscInt *);
PETSC_EXTERN PetscErrorCode FGBodiesGetName(FGBodies, PetscInt, const char **);
PETSC_EXTERN PetscErrorCode FGBodiesGetShape(FGBodies, PetscInt, FGShape *);
PETSC_EXTERN PetscErrorCode FGBodiesGetSkinOffset(FGBodies, PetscInt, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode FGBodiesGetCoreFraction(FGBodies, PetscInt, PetscReal *);
PETSC_EXTERN PetscErrorCode FGBodiesGetMaskSpacing(FGBodies, PetscInt, PetscReal *);
PETSC_EXTERN PetscErrorCode FGBodiesGetWallGaps(FGBodies, PetscInt, FGBodyWallGaps *);
PETSC_EXTERN PetscErrorCode FGBodiesGetSharpestTurn(FGBodies, PetscInt, PetscReal *, PetscReal[]);

/* The step's penalization: ResetForces at the step's start, Penalize once per stage after the
   explicit predictor (stage end time t, stage weight gamma, step dt), ReduceForces at its end
   (src/body/penalize.c). */
PETSC_EXTERN PetscErrorCode FGBodiesResetForces(FGBodies);
PETSC_EXTERN PetscErrorCode FGBodiesPenalize(FGBodies, PetscReal, PetscReal, PetscReal, Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGBodiesReduceForces(FGBodies);
PETSC_EXTERN PetscErrorCode FGBodiesGetPenalty(FGBodies, PetscReal, Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGBodiesGetPenaltyRead(FGBodies, PetscReal, const PetscScalar *[]);
PETSC_EXTERN PetscErrorCode FGBodiesRestorePenaltyRead(FGBodies, const PetscScalar *[]);
PETSC_EXTERN PetscErrorCode FGBodiesGetForces(FGBodies, PetscInt, FGBodyForces *);

/* Control-volume cross-check of a step, outside it (src/body/diagnostics.c): Begin before the
   step (its start time, u global), End after it (t at its end, dt, nu, the actuator amplitudes,
   u global, u ghosted, p ghosted). */
PETSC_EXTERN PetscErrorCode FGBodiesControlVolumeBegin(FGBodies, PetscReal, Vec[]);
PETSC_EXTERN PetscErrorCode FGBodiesControlVolumeEnd(FGBodies, PetscReal, PetscReal, PetscReal, const PetscReal[], Vec[], Vec[], Vec);

/* The combined mask 1 - prod_b (1 - chi_b) at cell centres (output), at time t. */
PETSC_EXTERN PetscErrorCode FGBodiesCellMask(FGBodies, PetscReal, Vec);
/* What the output files carry to draw the bodies (src/body/outline.c): chi, phi, outline_<body>. */
#define FG_BODY_OUTLINE_POINTS 1024
typedef struct {
  Vec        chi, phi;
  PetscReal *xy;
  char       names[FG_CASE_MAX_BODIES][FG_CASE_NAME_LEN + 16];
} FGBodiesOutput;
PETSC_EXTERN PetscErrorCode FGBodiesCellLevelSet(FGBodies, PetscReal, Vec, PetscBool *);
PETSC_EXTERN PetscErrorCode FGBodiesOutputAdd(FGBodies, PetscReal, Vec, FGBodiesOutput *, FGIOField[], PetscInt *, FGIOVector[], PetscInt *);
PETSC_EXTERN PetscErrorCode FGBodiesOutputDestroy(FGBodiesOutput *);

/* The bodies' parameters theta_b = [shape parameters (placement first), rotation rate (nb basis
   coefficients), jet amplitudes (nb per jet, jet-major)] and the tangent and adjoint of the
   penalization (src/body/bodies.c, src/body/penalize.c). */
#define FG_MAX_TIME_BASIS  FG_CASE_MAX_TIME_BASIS /* design.time_basis: at most this many (validated) */
#define FG_BODY_MAX_PARAMS (FG_SHAPE_MAX_PARAMS + FG_MAX_TIME_BASIS * (1 + FG_CASE_MAX_JETS))
/* The controls' basis in time (design.time_basis = nb): nb = 1: phi_0 = 1; nb >= 2: hat functions
   on the nodes t_k = k T/(nb - 1) (constant beyond [0, T]); Phi_k(t) = int_0^t phi_k. */
PETSC_EXTERN void           FGTimeBasis(PetscInt, PetscReal, PetscReal, PetscReal[], PetscReal[]);
PETSC_EXTERN PetscErrorCode FGBodiesGetTimeBasis(FGBodies, PetscInt *);
PETSC_EXTERN PetscReal      FGActuatorAmplitude(const PetscReal *, PetscInt, PetscReal, PetscInt, PetscInt, PetscReal);
PETSC_EXTERN PetscErrorCode FGBodiesGetShapeParameterCount(FGBodies, PetscInt, PetscInt *);
PETSC_EXTERN PetscErrorCode FGBodiesGetParameterCount(FGBodies, PetscInt, PetscInt *);
PETSC_EXTERN PetscErrorCode FGBodiesGetParameterName(FGBodies, PetscInt, PetscInt, char[], size_t);
PETSC_EXTERN PetscErrorCode FGBodiesGetParameterSupport(FGBodies, PetscInt, PetscInt, PetscBool *);
PETSC_EXTERN PetscErrorCode FGBodiesGetParameters(FGBodies, PetscInt, PetscReal[]);
PETSC_EXTERN PetscErrorCode FGBodiesSetPlacementCapacity(FGBodies, PetscInt);
PETSC_EXTERN PetscErrorCode FGBodiesGetPlacementBytes(FGBodies, PetscReal *);
PETSC_EXTERN PetscErrorCode FGBodiesSetParameters(FGBodies, PetscInt, const PetscReal[]);
PETSC_EXTERN PetscErrorCode FGBodiesGetDensity(FGBodies, PetscInt, Vec *, FGDensity *);
PETSC_EXTERN PetscErrorCode FGBodiesSetDensity(FGBodies, PetscInt, Vec);
PETSC_EXTERN PetscErrorCode FGBodiesSetDensityDifferentiable(FGBodies, PetscInt);
PETSC_EXTERN PetscErrorCode FGBodiesPenalizeTangent(FGBodies, PetscReal, PetscReal, PetscReal, Vec[], Vec[], Vec[], PetscReal *const[], Vec (*)[3], Vec[], PetscReal[]);
PETSC_EXTERN PetscErrorCode FGBodiesHasGhostTerm(FGBodies, PetscBool *);
PETSC_EXTERN PetscErrorCode FGBodiesGetApertures(FGBodies, Vec **);
PETSC_EXTERN PetscErrorCode FGBodiesGetLineFlux(FGBodies, Mat **);
PETSC_EXTERN PetscErrorCode FGBodiesLineFluxTangent(FGBodies, PetscReal *const[], Mat **);
PETSC_EXTERN PetscErrorCode FGBodiesLineFluxAdjointAdd(FGBodies, Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGBodiesLineFluxAdjoint(FGBodies, PetscReal *const[], Vec[]);
PETSC_EXTERN PetscErrorCode FGBodiesApertureTangent(FGBodies, PetscReal *const[], Vec[]);
PETSC_EXTERN PetscErrorCode FGBodiesApertureAdjoint(FGBodies, Vec[], PetscReal *const[], Vec[]);
PETSC_EXTERN PetscErrorCode FGBodiesPenalizeAdjoint(FGBodies, PetscReal, PetscReal, PetscReal, Vec[], Vec[], const PetscReal[], Vec[], Vec[], PetscReal *const[], Vec[], Vec[], Vec (*)[3]);

/* Frequency of an oscillating signal from its mean crossings (second half of the samples). */
PETSC_EXTERN PetscErrorCode FGSignalFrequency(PetscInt, const PetscReal[], const PetscReal[], PetscReal *);

/* Body-force actuators (src/body/actuator.c): the force field of one actuator (component a at x,
   time t); the actuators' force on the interior faces with amplitude coefficients c (the
   parameters' layout: c[(3 n + a) nbasis + k]), its tangent in c (the same, linear) and its
   adjoint (cbar += local sums; the caller reduces). */
PETSC_EXTERN PetscReal      FGActuatorValue(const FGActuatorCase *, PetscInt, PetscInt, const PetscReal[], PetscReal);
PETSC_EXTERN PetscErrorCode FGActuatorsAddForce(FGGrid, const FGBoundary *, const FGCase *, const PetscReal[], PetscReal, Vec[]);
PETSC_EXTERN PetscErrorCode FGActuatorsAddForceTangent(FGGrid, const FGBoundary *, const FGCase *, const PetscReal[], PetscReal, Vec[]);
PETSC_EXTERN PetscErrorCode FGActuatorsAddForceAdjoint(FGGrid, const FGBoundary *, const FGCase *, PetscReal, Vec[], PetscReal[]);

/* The reference point x_c(t), velocity V(t), rotation angle theta(t) (radians) and rate Omega(t). */
PETSC_EXTERN void FGBodyMotion(const FGBodyCase *, PetscInt, PetscReal, PetscReal[3], PetscReal[3], PetscReal *, PetscReal *);

#endif
