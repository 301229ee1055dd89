/* flowgrad Poisson solvers for the pressure projection (src/pressure/: poisson.c the common
   interface and the boundary kinds, poisson_fftw.c the direct FFTW solver, dct.c its cosine
   transforms through r2c FFTs, poisson_ksp.c the PETSc KSP solver).

   Solves L x = b for the discrete Laplacian of the MAC grid at cell centres,
     (L x)_c = sum_d (x_{c+e_d} - 2 x_c + x_{c-e_d}) / h_d^2,
   closed at each domain face by a ghost value:
     FG_PBC_PERIODIC   wrap-around (both faces of a periodic direction)
     FG_PBC_NEUMANN    x_ghost =  x_boundary-cell   (zero normal derivative at the face)
     FG_PBC_DIRICHLET  x_ghost = -x_boundary-cell   (zero value at the face)
   L is symmetric. When no face is Dirichlet, L is singular with the constants as null space:
   Solve() then removes the mean of b (the projection onto the range of L) and returns the
   zero-mean solution, which makes the solve the Moore-Penrose pseudo-inverse (symmetric too).

   Types:
     FG_POISSON_FFTW  direct: FFTW-MPI real-to-real transforms in every direction, the exact
                      eigenvalues of L, plans made once (FFTW_MEASURE; -fg_fftw_planner
                      estimate|measure|patient|exhaustive). Needs the grid's FG_DECOMP_SLAB.
     FG_POISSON_KSP   PETSc KSP on the assembled -L (SPD): CG + GAMG by default, options
                      prefix "poisson_" (-poisson_ksp_type, -poisson_pc_type, ...), the Neumann
                      null space attached. Any decomposition. rtol (default 1e-10) applies to the
                      unpreconditioned residual; not converged is FG_ERR_NUMERIC.

   SolveTranspose() applies the transpose of the solve operator (needed by the adjoint). Vecs are
   global Vecs of the grid's DMDA; Solve(p, b, b) is allowed. Implementation: src/pressure/. */
#ifndef FG_POISSON_H
#define FG_POISSON_H

#include <fg/grid.h>
#include <fg/case.h>
#include <petscksp.h>

typedef enum { FG_PBC_PERIODIC = 0, FG_PBC_NEUMANN, FG_PBC_DIRICHLET } FGPoissonBC;
PETSC_EXTERN const char *const FGPoissonBCNames[];

typedef struct _p_FGPoisson *FGPoisson;

/* bc[d][FG_FACE_LO|FG_FACE_HI]; periodic exactly where the grid is periodic. */
PETSC_EXTERN PetscErrorCode FGPoissonCreate(FGGrid, FGPoissonType, const FGPoissonBC[3][2], FGPoisson *);
PETSC_EXTERN PetscErrorCode FGPoissonSetTolerances(FGPoisson, PetscReal, PetscInt);
PETSC_EXTERN PetscErrorCode FGPoissonSetUp(FGPoisson);
PETSC_EXTERN PetscErrorCode FGPoissonSolve(FGPoisson, Vec, Vec);
PETSC_EXTERN PetscErrorCode FGPoissonSolveTranspose(FGPoisson, Vec, Vec);
PETSC_EXTERN PetscErrorCode FGPoissonApply(FGPoisson, Vec, Vec);
PETSC_EXTERN PetscErrorCode FGPoissonSetFaceWeights(FGPoisson, Vec[]);
PETSC_EXTERN PetscErrorCode FGPoissonSetFaceOperator(FGPoisson, Mat[]);
PETSC_EXTERN PetscErrorCode FGPoissonIsSingular(FGPoisson, PetscBool *);
PETSC_EXTERN PetscErrorCode FGPoissonGetIterations(FGPoisson, PetscInt *);
PETSC_EXTERN PetscErrorCode FGPoissonDestroy(FGPoisson *);
/* The FFTW solver's options (src/pressure/poisson_fftw.c; read once, in FGPoissonSetUp). */
typedef struct {
  char      planner[64];                /* -fg_fftw_planner: estimate, measure, patient, exhaustive */
  char      wisdom[PETSC_MAX_PATH_LEN]; /* -fg_fftw_wisdom ("": none) */
  PetscBool tridiagonal;                /* -fg_fftw_tridiagonal */
  PetscBool r2c_dct;                    /* -fg_fftw_r2c_dct */
} FGPoissonFFTWOptions;
PETSC_EXTERN PetscErrorCode FGPoissonFFTWGetOptions(MPI_Comm, FGPoissonFFTWOptions *);

/* The KSP of a FG_POISSON_KSP solver after FGPoissonSetUp() (NULL for FFTW). */
PETSC_EXTERN PetscErrorCode FGPoissonGetKSP(FGPoisson, KSP *);

/* The pressure boundary kinds that go with the velocity boundary kinds of a case. */
PETSC_EXTERN PetscErrorCode FGPoissonBCFromCase(const FGCase *, FGPoissonBC[3][2]);

#endif
