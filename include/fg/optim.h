/* flowgrad optimization (src/optim/): the optimization problem over the flow conditions
   (points) of a case, its constraints, and the optimizer that hands it to PETSc TAO
   (`flowgrad optimize`, src/app/optimize.c, is a short driver of FGOptimizer).

   Files (struct and internal calls in src/optim/optimimpl.h):
     problem.c    FGProblem: the points, the constraint rows, one evaluation (J, dJ/dp, the rows'
                  quantities and gradients) at a design p
     optimizer.c  FGOptimizer: create, set up, solve, view, destroy
     tao.c        the TAO side: variables x = p / scale, f = J / |J_0|, bounds, ALMM constraints
                  and Jacobians, the monitor
     penalty.c    flowgrad's augmented Lagrangian (optimizer.type penalty)
     evaluate.c   the evaluation cache, the replay of the evaluation log (--resume), signals
     output.c     the files: eval_NNNNNN.h5 (the log), optimization.csv/.h5, iter_NNNN.h5,
                  result.csv

   Problem. The design vector p (include/fg/adjoint.h) is shared by every point k = 1..K (the case
   alone, or points.<name>: the case with that point's overrides, in output.dir/points/<name>):

     J(p) = sum_k w_k J_k(p)       (J_k: the case's objective at point k; forward + adjoint each)

   Constraint rows. Each constraints.<name> gives one row per scalar it constrains: area/volume,
   volume_fraction (one), centroid (one per direction: NAME.x, NAME.y[, NAME.z]), thickness (one
   per station: NAME@x/c), lift/drag/moment (one per point: NAME, or NAME@point with several
   points; each its own adjoint). A row is a quantity q_i(p) with its gradient, a relation
   (eq, ge, le) and a value v_i (given, or q_i at the initial design); its scale is
   sigma_i = |v_i|, at least the body's reference length (centroid) or 0.01 (force coefficients),
   else |q_i(p_0)| when v_i = 0 (1 when both are 0), and its normalized value
   h_i = (q_i - v_i)/sigma_i (ge), (v_i - q_i)/sigma_i (le), (q_i - v_i)/sigma_i (eq): the row
   holds when h_i >= -tol (ge, le) or |h_i| <= tol (eq), tol = optimizer.constraint_tol.

   Geometric rows are computed from point 1's bodies: the area (2D) / volume (3D) and centroid of a
   shape body as sum chi dV on a sample lattice of spacing h/4 (h: the finest grid spacing;
   anchored at the domain origin, so the sum is a smooth function of p) with the smoothed
   Heaviside of half-width 2 h/4 (FGShapeArea, FGShapeCentroid), the thickness / chord of an
   airfoil (FGShapeThickness), and the volume fraction of a density body as the mean over the
   cells of chi (solid) or 1 - chi (fluid). */
#ifndef FG_OPTIM_H
#define FG_OPTIM_H

#include <fg/adjoint.h>

#define FG_OPT_MAX_ROWS 64

typedef struct {
  char             name[96];
  FGConstraintKind kind;
  FGRelation       relation;
  PetscInt         con;   /* the index in case->constraint */
  PetscInt         point; /* flow rows: the point; else -1 */
  PetscInt         comp;  /* centroid: the direction; thickness: the station */
  PetscReal        value, scale;
} FGConstraintRow;

/* One evaluation at a design p. */
typedef struct {
  PetscBool gradient;                       /* g and dq were computed */
  PetscBool failed;                         /* flowgrad optimize: the flow blew up (src/optim/evaluate.c); no values */
  PetscReal J;                              /* sum_k w_k J_k */
  PetscReal Jk[FG_CASE_MAX_CONDITIONS];     /* per point */
  PetscInt  nterms;                         /* the objective's terms at point 1 */
  PetscReal term[FG_CASE_MAX_OBJECTIVES];
  PetscReal q[FG_OPT_MAX_ROWS];             /* the constraint quantities */
  Vec       g;                              /* dJ/dp */
  Vec       dq[FG_OPT_MAX_ROWS];            /* dq_i/dp */
  Vec       chibar[3], sens[3];             /* point 1: dJ/dchi and the shape sensitivity (FGAdjointOutput) */
} FGEval;

typedef struct _p_FGProblem *FGProblem;
PETSC_EXTERN PetscErrorCode FGProblemCreate(MPI_Comm, const FGCase *, PetscInt, const char *const[], FGProblem *);
PETSC_EXTERN PetscErrorCode FGProblemDestroy(FGProblem *);
PETSC_EXTERN PetscErrorCode FGProblemGetDesign(FGProblem, FGDesign *);
PETSC_EXTERN PetscErrorCode FGProblemGetSolver(FGProblem, PetscInt, FGSolver *);
PETSC_EXTERN PetscErrorCode FGProblemGetPoints(FGProblem, PetscInt *, const char *const **, const PetscReal **);
PETSC_EXTERN PetscErrorCode FGProblemGetRows(FGProblem, PetscInt *, FGConstraintRow **);
PETSC_EXTERN PetscErrorCode FGProblemCreateVec(FGProblem, Vec *);
PETSC_EXTERN PetscErrorCode FGProblemEvalCreate(FGProblem, FGEval *);
PETSC_EXTERN PetscErrorCode FGProblemEvalDestroy(FGProblem, FGEval *);
PETSC_EXTERN PetscErrorCode FGProblemEvaluate(FGProblem, Vec, PetscBool, FGEval *);
PETSC_EXTERN PetscErrorCode FGProblemSetRowValues(FGProblem, const FGEval *);
PETSC_EXTERN PetscReal      FGProblemRowNormalized(const FGConstraintRow *, PetscReal);
PETSC_EXTERN PetscReal      FGProblemRowViolation(const FGConstraintRow *, PetscReal);
PETSC_EXTERN PetscErrorCode FGProblemWriteFields(FGProblem, const char *, PetscInt, Vec, const FGEval *);
PETSC_EXTERN PetscErrorCode FGProblemGetBounds(FGProblem, Vec, Vec, Vec, Vec);
PETSC_EXTERN PetscErrorCode FGProblemCheckRows(FGProblem, Vec, PetscReal, PetscReal, PetscInt *, PetscInt *);

/* The optimizer: Create (the case must have design parameters), SetResume (replay the evaluation
   log; required: --resume), SetUp (the problem, the log, output.dir/optimization), Solve (TAO or
   the augmented Lagrangian, then the result's files), View (the outcome), Destroy. */
typedef struct _p_FGOptimizer *FGOptimizer;
/* flowgrad optimize's options (src/optim/optimizer.c; -help lists them). */
typedef struct {
  PetscInt penalty_inner_its;           /* -fg_penalty_inner_its */
  PetscInt test_kill_at, test_signal_at; /* -fg_test_optimize_kill_at, -fg_test_optimize_signal_at */
} FGOptimizerOptions;
PETSC_EXTERN PetscErrorCode FGOptimizerGetOptions(MPI_Comm, FGOptimizerOptions *);
PETSC_EXTERN PetscErrorCode FGOptimizerCreate(MPI_Comm, const FGCase *, PetscInt, const char *const[], FGOptimizer *);
PETSC_EXTERN PetscErrorCode FGOptimizerSetResume(FGOptimizer, PetscBool, PetscBool);
PETSC_EXTERN PetscErrorCode FGOptimizerSetUp(FGOptimizer);
PETSC_EXTERN PetscErrorCode FGOptimizerGetProblem(FGOptimizer, FGProblem *);
PETSC_EXTERN PetscErrorCode FGOptimizerSolve(FGOptimizer);
PETSC_EXTERN PetscErrorCode FGOptimizerView(FGOptimizer);
PETSC_EXTERN PetscErrorCode FGOptimizerDestroy(FGOptimizer *);

#endif
