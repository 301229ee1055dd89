/* flowgrad operators on the MAC grid (one file each under src/ops/).

   Conventions. u[a] is velocity component a at the +a face of each cell (include/fg/grid.h).
   "Local" Vecs are ghosted (DMGetLocalVector of grid->da) and have had FGOpFillBoundary applied;
   "global" Vecs are owned values. Operators loop over raw arrays with FGBox strides.

   Unknown faces of component a: all faces along a periodic direction; along a bounded direction
   the faces 0..n_a-2, plus the upper boundary face n_a-1 when that face is an outflow. The other
   boundary faces hold prescribed values (FGOpSetBoundaryFaces) that the step never changes.

   Every operator is smooth (polynomial) in the velocity: no max/min/abs/branches on values,
   so its tangent and adjoint (next to it in the same file) are exact. */
#ifndef FG_OPS_H
#define FG_OPS_H

#include <fg/grid.h>
#include <fg/case.h>

/* An analytic velocity field (for `profile: exact` boundary data): component a at the point x
   (absolute coordinates) and time t, for the viscosity nu (the solver's parameter value) and the
   case's other data; in 2D optionally its stream function psi (u = dpsi/dy, v = -dpsi/dx), which
   gives exact face averages of the normal velocity. */
typedef struct {
  PetscReal (*velocity)(PetscInt, const PetscReal[], PetscReal, PetscReal, const FGCase *);
  PetscReal (*stream)(const PetscReal[], PetscReal, PetscReal, const FGCase *);
  const FGCase *c;
  PetscReal     nu;
} FGExactField;

/* Velocity boundary conditions of the six faces, as the operators need them. */
typedef struct {
  FGBCKind  kind[3][2];
  PetscReal velocity[3][2][3]; /* [dir][side][component] */
  FGProfile profile[3][2];
  PetscReal modulation[3][2][2]; /* inflow: U(t) = U (1 + A sin(2 pi f t)), [A, f] */
  PetscReal convective_speed;  /* outflow: u_t + U_c du/dn = 0 */
  FGExactField exact;          /* profile exact: the analytic field */
} FGBoundary;

/* Index range [lo, hi) of the owned faces of component a that the momentum equation updates
   (interior faces; boundary faces excluded). */
PETSC_EXTERN void FGOpInteriorFaces(FGGrid, const FGBoundary *, PetscInt, PetscInt[3], PetscInt[3]);
/* The same including an outflow face: every unknown face of component a. */
PETSC_EXTERN void FGOpUnknownFaces(FGGrid, const FGBoundary *, PetscInt, PetscInt[3], PetscInt[3]);

/* Log events (src/ops/log.c), registered by FGOpsInitializePackage() on first use. */
PETSC_EXTERN PetscLogEvent  FG_EVENT_Momentum, FG_EVENT_Advection, FG_EVENT_Diffusion, FG_EVENT_Divergence, FG_EVENT_Gradient, FG_EVENT_FillBoundary, FG_EVENT_GhostUpdate, FG_EVENT_Step;
/* the linearized step and the operators' adjoints (tangents of the linear operators log as the
   operator itself; FGOpAdvectionTan is the advection's), and the bodies' penalization */
PETSC_EXTERN PetscLogEvent  FG_EVENT_StepTangent, FG_EVENT_StepAdjoint, FG_EVENT_AdvectionTangent, FG_EVENT_AdvectionAdjoint, FG_EVENT_DiffusionAdjoint, FG_EVENT_DivergenceAdjoint, FG_EVENT_GradientAdjoint, FG_EVENT_FillBoundaryAdjoint;
PETSC_EXTERN PetscLogEvent  FG_EVENT_BodyBuild, FG_EVENT_BodyPenalize, FG_EVENT_BodyPenalizeTangent, FG_EVENT_BodyPenalizeAdjoint, FG_EVENT_BodyControlVolume;
PETSC_EXTERN PetscErrorCode FGOpsInitializePackage(void);

PETSC_EXTERN PetscErrorCode FGBoundaryFromCase(const FGCase *, FGBoundary *);
PETSC_EXTERN PetscErrorCode FGOpSetBoundaryFaces(FGGrid, const FGBoundary *, PetscReal, Vec[]);
PETSC_EXTERN PetscErrorCode FGOpFillBoundary(FGGrid, const FGBoundary *, PetscReal, Vec[]);
PETSC_EXTERN PetscErrorCode FGOpOutflow(FGGrid, const FGBoundary *, Vec[], Vec[]);

/* The coefficients (cm, cp) of the finite-volume Laplacian of component a along b at index t of
   b (src/ops/diffusion.c): D_a u = sum_b cp (u(+e_b) - u) - cm (u - u(-e_b)). */
static inline void FGOpDiffusionCoefficients(FGGrid g, PetscInt a, PetscInt b, PetscInt t, PetscReal *cm, PetscReal *cp)
{
  const FGAxis *x = &g->ax[b];
  if (a == b) *cp = x->idxf[t + 1] * x->idxc[t], *cm = x->idxf[t] * x->idxc[t];
  else *cp = x->idxc[t] * x->idxf[t], *cm = x->idxc[t - 1] * x->idxf[t];
}
/* The weights of the transport velocity of component a's cross fluxes at index t along a
   (src/ops/advection.c): P = wl u_b(c) + wr u_b(c + e_a), wl = dxf_a(t)/dxc_a(t), wr = dxf_a(t+1)/dxc_a(t). */
static inline void FGOpAdvectionWeights(FGGrid g, PetscInt a, PetscInt t, PetscReal *wl, PetscReal *wr)
{
  const FGAxis *x = &g->ax[a];
  *wl = x->dxf[t] * x->idxc[t];
  *wr = x->dxf[t + 1] * x->idxc[t];
}
/* The ghost rule's coefficient of component a beyond face (d, side) (src/ops/boundary.c). */
PETSC_EXTERN PetscReal      FGOpGhostCoefficient(const FGBoundary *, PetscInt, PetscInt, PetscInt);
PETSC_EXTERN PetscErrorCode FGOpZeroInteriorFaces(FGGrid, const FGBoundary *, Vec[]);
PETSC_EXTERN PetscErrorCode FGOpInteriorFromLocal(FGGrid, const FGBoundary *, Vec[], Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGOpBoundaryFacesToLocal(FGGrid, const FGBoundary *, Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGOpCopyBoundaryPlanes(FGGrid, Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGOpInteriorToLocalAdd(FGGrid, const FGBoundary *, Vec[], Vec[]);

PETSC_EXTERN PetscErrorCode FGOpMomentum(FGGrid, const FGBoundary *, PetscReal, Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGOpMomentumSplit(FGGrid, const FGBoundary *, PetscReal, Vec[], Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGOpAdvection(FGGrid, const FGBoundary *, Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGOpDiffusion(FGGrid, const FGBoundary *, PetscReal, Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGOpDiffusionShell(FGGrid, const FGBoundary *, PetscReal, Vec[], Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGOpDivergence(FGGrid, Vec[], Vec);
PETSC_EXTERN PetscErrorCode FGOpDivergenceWeighted(FGGrid, Vec[], Vec[], PetscBool, Vec);
PETSC_EXTERN PetscErrorCode FGOpGradientCorrect(FGGrid, const FGBoundary *, PetscReal, Vec, Vec[]);

/* Tangents and adjoints (next to each operator in its file). Conventions: a tangent takes the
   linearization point and the perturbation, both as the forward takes them (ghosted dul with
   FGOpFillBoundaryTangent applied); an adjoint reads the adjoint of the operator's output and
   ADDS into the adjoint of its input (ghosted ulbar/philbar: the caller zeroes them first, then
   applies FGOpFillBoundaryAdjoint and DMLocalToGlobal(ADD_VALUES)). ds is a relative change of
   every inflow velocity (U -> U (1 + ds)); nubar, dsbar receive local sums (the caller reduces).
   ⟨Tangent v, w⟩ = ⟨v, Adjoint w⟩ to round-off: tests/adjoint/test_ops_adjoint.c. */
PETSC_EXTERN PetscErrorCode FGOpFillBoundaryTangent(FGGrid, const FGBoundary *, PetscReal, PetscReal, Vec[]);
PETSC_EXTERN PetscErrorCode FGOpFillBoundaryAdjoint(FGGrid, const FGBoundary *, PetscReal, Vec[], PetscReal *);
PETSC_EXTERN PetscErrorCode FGOpSetBoundaryFacesTangent(FGGrid, const FGBoundary *, PetscReal, PetscReal, Vec[]);
PETSC_EXTERN PetscErrorCode FGOpSetBoundaryFacesAdjoint(FGGrid, const FGBoundary *, PetscReal, Vec[], PetscReal *);
PETSC_EXTERN PetscErrorCode FGOpOutflowTangent(FGGrid, const FGBoundary *, Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGOpOutflowAdjoint(FGGrid, const FGBoundary *, Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGOpAdvectionTangent(FGGrid, const FGBoundary *, Vec[], Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGOpAdvectionAdjoint(FGGrid, const FGBoundary *, Vec[], Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGOpDiffusionTangent(FGGrid, const FGBoundary *, PetscReal, PetscReal, Vec[], Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGOpDiffusionAdjoint(FGGrid, const FGBoundary *, PetscReal, Vec[], Vec[], Vec[], PetscReal *);
PETSC_EXTERN PetscErrorCode FGOpDiffusionShellAdjoint(FGGrid, const FGBoundary *, PetscReal, Vec[], Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGOpDivergenceTangent(FGGrid, Vec[], Vec);
PETSC_EXTERN PetscErrorCode FGOpDivergenceAdjoint(FGGrid, Vec, Vec[]);
PETSC_EXTERN PetscErrorCode FGOpDivergenceWeightedAdjoint(FGGrid, Vec[], Vec, Vec[]);
PETSC_EXTERN PetscErrorCode FGOpGradientCorrectTangent(FGGrid, const FGBoundary *, PetscReal, Vec, Vec[]);
PETSC_EXTERN PetscErrorCode FGOpGradientCorrectAdjoint(FGGrid, const FGBoundary *, PetscReal, Vec[], Vec);


#endif
