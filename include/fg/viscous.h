/* flowgrad implicit viscous term (src/viscous/): the Helmholtz problems of a Crank-Nicolson
   viscous step, one per velocity component.

   For component a with unknowns U (its interior faces, FGOpInteriorFaces) and the other faces
   K (boundary and outflow faces: known when the problem is solved), the homogeneous viscous
   operator L_0 is the finite-volume Laplacian of src/ops/diffusion.c with the ghost rules of
   src/ops/boundary.c and the boundary data set to zero (FGOpGhostCoefficient), restricted to U.
   With the face volumes V (FGGridVolume), K_a = V L_0 is symmetric negative definite (negative
   semi-definite on a fully periodic domain), and for s > 0

     M_a(s) = V - s K_a = V (I - s L_0)

   is symmetric positive definite. FGViscousSolve replaces the interior faces of each component
   by S x_U, S = M(s)^{-1} V = (I - s L_0)^{-1}, and leaves the K faces alone; the affine part
   (the boundary data and the K faces as neighbours) is the caller's (src/step/rk3.c).
   FGViscousSolveTranspose applies S^T = V M(s)^{-1} (M is symmetric) the same way.

   Solvers (-fg_viscous_solver). `af` (the default, src/viscous/viscous_af.c): the approximately
   factored operator prod_b (I - s L_b), one Thomas sweep per direction; S~ = (prod_b (I - s
   L_b))^{-1} = S + O(s^2), second order in time on the stage's increment (FGViscousSolveIncrement)
   and unconditionally stable; any direction stretched; it needs the grid's FFTW slabs
   (poisson.type fftw). `direct` (src/viscous/viscous_fftw.c, as CaNS): real-to-real transforms in
   the in-slab directions and the Thomas algorithm along the slab direction (stretched or not),
   S exact to round-off; it needs the slabs and uniform in-slab directions (a periodic slab
   direction: cyclic lines). Where the chosen one does not apply, and with `ksp`: PETSc KSP on the
   assembled M(s), options prefix "viscous_" (-viscous_ksp_type, -viscous_pc_type,
   -viscous_ksp_rtol, ...); defaults CG + Jacobi, rtol 1e-12 on the unpreconditioned residual,
   the input as the initial guess; M(s) is rebuilt from K when s changes (three stages per step:
   three values); a solve that does not converge is FG_ERR_NUMERIC. `direct` and `ksp` solve the
   Crank-Nicolson problem itself; all three give the same steady states.

   FGViscousSolveIncrement applies the solve to an increment, x_U = w_U + S~ (x_U - w_U) (fused on
   the factored path). FGViscousAddCorrection adds c (E(s) - L_0) d_U to x_U, E = -dM~/ds with
   M~ = S~^{-1}, so that dS~/ds = S~ E S~: the part of the solve's derivative in s (in the
   viscosity) that the exact solve (E = L_0) does not have; nothing on the exact paths. */
#ifndef FG_VISCOUS_H
#define FG_VISCOUS_H

#include <fg/ops.h>
#include <petscksp.h>

typedef struct _p_FGViscous *FGViscous;

typedef enum {
  FG_VISCOUS_SOLVER_AF,
  FG_VISCOUS_SOLVER_DIRECT,
  FG_VISCOUS_SOLVER_KSP
} FGViscousSolverType;
PETSC_EXTERN const char *const FGViscousSolverTypes[];

/* The options (FGViscousGetOptions: -help lists them). */
typedef struct {
  FGViscousSolverType type; /* -fg_viscous_solver: af (default), direct, ksp */
} FGViscousOptions;
PETSC_EXTERN PetscErrorCode FGViscousGetOptions(MPI_Comm, FGViscousOptions *);

PETSC_EXTERN PetscReal      FGViscousTimeStepLimit(FGGrid, PetscReal);
PETSC_EXTERN PetscBool      FGViscousIsImplicit(const FGCase *, FGGrid);
PETSC_EXTERN PetscErrorCode FGViscousCreate(FGGrid, const FGBoundary *, FGViscous *);
PETSC_EXTERN PetscErrorCode FGViscousSolve(FGViscous, PetscReal, Vec[]);
PETSC_EXTERN PetscErrorCode FGViscousSolveTranspose(FGViscous, PetscReal, Vec[]);
PETSC_EXTERN PetscErrorCode FGViscousSolveIncrement(FGViscous, PetscReal, PetscBool, Vec[], Vec[]);
PETSC_EXTERN PetscErrorCode FGViscousAddCorrection(FGViscous, PetscReal, PetscReal, Vec[], Vec[]);
PETSC_EXTERN FGViscousSolverType FGViscousGetType(FGViscous);
PETSC_EXTERN PetscBool           FGViscousBoundaryFacesInGhosts(FGViscous);
PETSC_EXTERN FGViscousSolverType FGViscousTypeFor(FGGrid, const FGBoundary *, FGViscousSolverType);
PETSC_EXTERN const char         *FGViscousDescription(FGViscousSolverType);
PETSC_EXTERN PetscErrorCode FGViscousDestroy(FGViscous *);

#endif
