/*
  The TAO side of flowgrad optimize (src/optim/): the variables, the objective-and-gradient
  callback, the bounds, the ALMM constraints and their Jacobians, and the monitor.

  Variables. TAO works on x = p / scale (design.scale per entry) and on f = J / |J_0| (J_0 the
  objective at the initial design), so its tolerances (optimizer.gatol, grtol) are relative and
  its first steps have a sensible size; bounds are design.lower/upper intersected with
  p_0 -/+ design.max_change. Constraint rows enter as h_i (include/fg/optim.h): TAO's ALMM
  (optimizer.type almm: equality rows h = 0, inequality rows h >= 0, Jacobians as dense rows on
  rank 0) or flowgrad's own augmented Lagrangian (penalty, src/optim/penalty.c).

  Every callback asks for the evaluation at its x (FGOptEvaluate_Internal, src/optim/evaluate.c):
  the objective, its gradient, the rows and the monitor at one x cost one forward run and adjoint.
*/
#include "optimimpl.h"

/* The x-space bounds xlo, xhi (from plo, phi; "none" stays PETSc's infinity) and TAO's start
   x = p_0 / scale. */
PetscErrorCode FGOptSetUpBounds_Internal(FGOptimizer O)
{
  const PetscScalar *l, *u, *sc;
  PetscScalar       *xl, *xu;
  PetscInt           n, nb = 0;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(O->p0, &n));
  PetscCall(VecGetArrayRead(O->plo, &l));
  PetscCall(VecGetArrayRead(O->phi, &u));
  PetscCall(VecGetArrayRead(O->scale, &sc));
  PetscCall(VecGetArray(O->xlo, &xl));
  PetscCall(VecGetArray(O->xhi, &xu));
  for (PetscInt i = 0; i < n; i++) {
    xl[i] = PetscRealPart(l[i]) <= PETSC_NINFINITY ? PETSC_NINFINITY : l[i] / sc[i];
    xu[i] = PetscRealPart(u[i]) >= PETSC_INFINITY ? PETSC_INFINITY : u[i] / sc[i];
    if (PetscRealPart(l[i]) > PETSC_NINFINITY || PetscRealPart(u[i]) < PETSC_INFINITY) nb++;
  }
  PetscCall(VecRestoreArrayRead(O->plo, &l));
  PetscCall(VecRestoreArrayRead(O->phi, &u));
  PetscCall(VecRestoreArrayRead(O->scale, &sc));
  PetscCall(VecRestoreArray(O->xlo, &xl));
  PetscCall(VecRestoreArray(O->xhi, &xu));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &nb, 1, MPIU_INT, MPI_SUM, O->comm));
  PetscCheck(!(O->type == FG_OPT_LMVM && nb), O->comm, FG_ERR_INPUT, "%s: optimizer.type lmvm ignores bounds, and %" PetscInt_FMT " design entries have one (design.lower, .upper, .max_change; flow.nu and flow.inflow_speed always): use blmvm", O->c->file, nb);
  PetscCall(VecPointwiseDivide(O->x, O->p0, O->scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The design p = x scale, into O->p. */
PetscErrorCode FGOptToDesign_Internal(FGOptimizer O, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(VecPointwiseMult(O->p, x, O->scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptObjGrad_Private(Tao tao, Vec x, PetscReal *f, Vec G, void *ctx)
{
  FGOptimizer O = (FGOptimizer)ctx;
  FGEval     *e;

  PetscFunctionBeginUser;
  PetscCall(FGOptToDesign_Internal(O, x));
  PetscCall(FGOptEvaluate_Internal(O, O->p, PETSC_TRUE, &e));
  if (e->failed) { /* a trial design whose flow blew up (evaluate.c) */
    PetscCall(FGOptFailedValue_Internal(O, x, f, G));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *f = e->J / O->J0s;
  PetscCall(VecPointwiseMult(G, e->g, O->scale));
  PetscCall(VecScale(G, 1.0 / O->J0s));
  if (O->penalty) PetscCall(FGOptPenalty_Internal(O, e, f, G));
  (void)tao;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptObj_Private(Tao tao, Vec x, PetscReal *f, void *ctx)
{
  FGOptimizer O = (FGOptimizer)ctx;
  FGEval     *e;

  PetscFunctionBeginUser;
  PetscCall(FGOptToDesign_Internal(O, x));
  PetscCall(FGOptEvaluate_Internal(O, O->p, PETSC_FALSE, &e));
  if (e->failed) {
    PetscCall(FGOptFailedValue_Internal(O, x, f, NULL));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *f = e->J / O->J0s;
  if (O->penalty) PetscCall(FGOptPenalty_Internal(O, e, f, NULL));
  (void)tao;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ALMM: the equality rows (eq = PETSC_TRUE) or the inequality rows as a Vec held by rank 0. */
static PetscErrorCode FGOptConstraints_Private(FGOptimizer O, Vec x, Vec C, PetscBool eq)
{
  FGEval      *e;
  PetscScalar *a;
  PetscMPIInt  rank;
  PetscInt     m = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(O->comm, &rank));
  PetscCall(FGOptToDesign_Internal(O, x));
  PetscCall(FGOptEvaluate_Internal(O, O->p, PETSC_TRUE, &e));
  PetscCall(VecGetArray(C, &a));
  for (PetscInt i = 0; i < O->nrows; i++)
    if ((O->rows[i].relation == FG_REL_EQ) == eq) {
      if (!rank) a[m] = FGProblemRowNormalized(&O->rows[i], e->q[i]);
      m++;
    }
  PetscCall(VecRestoreArray(C, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptEq_Private(Tao tao, Vec x, Vec C, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(FGOptConstraints_Private((FGOptimizer)ctx, x, C, PETSC_TRUE));
  (void)tao;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptIneq_Private(Tao tao, Vec x, Vec C, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(FGOptConstraints_Private((FGOptimizer)ctx, x, C, PETSC_FALSE));
  (void)tao;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Jacobian of the equality or inequality rows: a dense matrix with every row on rank 0. */
static PetscErrorCode FGOptJacobian_Private(FGOptimizer O, Vec x, Mat A, PetscBool eq)
{
  FGEval            *e;
  PetscInt           m = 0, N;
  PetscMPIInt        rank;
  VecScatter         sc;
  Vec                all;
  const PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(O->comm, &rank));
  PetscCall(FGOptToDesign_Internal(O, x));
  PetscCall(FGOptEvaluate_Internal(O, O->p, PETSC_TRUE, &e));
  PetscCall(VecGetSize(x, &N));
  PetscCall(VecScatterCreateToZero(x, &sc, &all));
  for (PetscInt i = 0; i < O->nrows; i++) {
    const FGConstraintRow *r = &O->rows[i];
    if ((r->relation == FG_REL_EQ) != eq) continue;
    PetscCall(VecPointwiseMult(O->p, e->dq[i], O->scale));
    PetscCall(VecScale(O->p, (r->relation == FG_REL_LE ? -1.0 : 1.0) / r->scale));
    PetscCall(VecScatterBegin(sc, O->p, all, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(sc, O->p, all, INSERT_VALUES, SCATTER_FORWARD));
    if (!rank) {
      PetscCall(VecGetArrayRead(all, &a));
      for (PetscInt j = 0; j < N; j++) PetscCall(MatSetValue(A, m, j, a[j], INSERT_VALUES));
      PetscCall(VecRestoreArrayRead(all, &a));
    }
    m++;
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptJacEq_Private(Tao tao, Vec x, Mat A, Mat B, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(FGOptJacobian_Private((FGOptimizer)ctx, x, A, PETSC_TRUE));
  (void)tao, (void)B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptJacIneq_Private(Tao tao, Vec x, Mat A, Mat B, void *ctx)
{
  PetscFunctionBeginUser;
  PetscCall(FGOptJacobian_Private((FGOptimizer)ctx, x, A, PETSC_FALSE));
  (void)tao, (void)B;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGOptMonitor_Private(Tao tao, void *ctx)
{
  FGOptimizer        O;
  PetscInt           its;
  PetscReal          f, res, cnorm, xdiff;
  TaoConvergedReason reason;
  Vec                x;
  FGEval            *e;

  PetscFunctionBeginUser;
  PetscCall(PetscContainerGetPointer((PetscContainer)ctx, (void **)&O));
  if (tao != O->tao) PetscFunctionReturn(PETSC_SUCCESS); /* ALMM's subsolver inherits the monitor */
  PetscCall(TaoGetSolutionStatus(tao, &its, &f, &res, &cnorm, &xdiff, &reason));
  PetscCall(TaoGetSolution(tao, &x));
  /* the accepted iterate, its f and gradient (with the penalty's terms of this inner solve): what a
     failed trial design's value is made of (evaluate.c) */
  PetscCall(FGOptObjGrad_Private(tao, x, &O->facc, O->gacc, O));
  PetscCall(VecCopy(x, O->xacc));
  O->accset = PETSC_TRUE;
  if (its == 0 && O->nhist) PetscFunctionReturn(PETSC_SUCCESS); /* penalty: later inner solves start at a recorded iterate */
  PetscCall(FGOptToDesign_Internal(O, x));
  PetscCall(FGOptEvaluate_Internal(O, O->p, PETSC_TRUE, &e));
  PetscCall(FGOptRecord_Internal(O, O->itbase + its, O->p, e, res, xdiff));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A TAO of the given type and iteration limit on the variables x, with the callbacks above, the
   bounds (but for lmvm) and the monitor; with Ae (ALMM) also the constraint rows, Ae, Ai and the
   Vecs ce, ci created here (left alone where there is no row of the kind). */
PetscErrorCode FGOptSetUpTao_Internal(FGOptimizer O, Tao *tao, Vec x, const char *type, PetscInt maxits, Mat *Ae, Mat *Ai, Vec *ce, Vec *ci)
{
  const FGCase *c = O->c;
  PetscBool     bounded;

  PetscFunctionBeginUser;
  PetscCall(TaoCreate(O->comm, tao));
  O->tao = *tao;
  PetscCall(TaoSetType(*tao, type));
  PetscCall(TaoSetSolution(*tao, x));
  PetscCall(TaoSetObjectiveAndGradient(*tao, NULL, FGOptObjGrad_Private, O));
  PetscCall(TaoSetObjective(*tao, FGOptObj_Private, O));
  PetscCall(PetscStrcmp(type, TAOLMVM, &bounded));
  bounded = (PetscBool)!bounded;
  if (bounded) PetscCall(TaoSetVariableBounds(*tao, O->xlo, O->xhi));
  PetscCall(TaoSetTolerances(*tao, c->optimizer.gatol, c->optimizer.grtol, 0.0));
  PetscCall(TaoSetMaximumIterations(*tao, maxits));
  /* the evaluations left of optimizer.max_evaluations (the penalty loop's inner solves share them) */
  PetscCall(TaoSetMaximumFunctionEvaluations(*tao, c->optimizer.max_evaluations ? PetscMax(c->optimizer.max_evaluations - O->nevals, 1) : 1000000));
  /* the monitor's context is a PetscContainer: ALMM hands the monitor to its subsolver and takes a
     reference to the context as to a PetscObject */
  {
    PetscContainer box;
    PetscCall(PetscContainerCreate(O->comm, &box));
    PetscCall(PetscContainerSetPointer(box, O));
    PetscCall(TaoSetMonitor(*tao, FGOptMonitor_Private, box, (PetscErrorCode(*)(void **))PetscContainerDestroy));
  }
  if (Ae) { /* ALMM */
    PetscMPIInt rank;
    PetscInt    me = 0, mi = 0, n, N;
    PetscCallMPI(MPI_Comm_rank(O->comm, &rank));
    for (PetscInt i = 0; i < O->nrows; i++) {
      if (O->rows[i].relation == FG_REL_EQ) me++;
      else mi++;
    }
    PetscCall(VecGetLocalSize(x, &n));
    PetscCall(VecGetSize(x, &N));
    if (me) {
      PetscCall(VecCreateMPI(O->comm, rank ? 0 : me, me, ce));
      PetscCall(MatCreateDense(O->comm, rank ? 0 : me, n, me, N, NULL, Ae));
      PetscCall(TaoSetEqualityConstraintsRoutine(*tao, *ce, FGOptEq_Private, O));
      PetscCall(TaoSetJacobianEqualityRoutine(*tao, *Ae, *Ae, FGOptJacEq_Private, O));
    }
    if (mi) {
      PetscCall(VecCreateMPI(O->comm, rank ? 0 : mi, mi, ci));
      PetscCall(MatCreateDense(O->comm, rank ? 0 : mi, n, mi, N, NULL, Ai));
      PetscCall(TaoSetInequalityConstraintsRoutine(*tao, *ci, FGOptIneq_Private, O));
      PetscCall(TaoSetJacobianInequalityRoutine(*tao, *Ai, *Ai, FGOptJacIneq_Private, O));
    }
    PetscCall(TaoSetConstraintTolerances(*tao, c->optimizer.constraint_tol, 0.0));
    {
      PetscBool set;
      char      v[32];
      PetscCall(PetscOptionsHasName(NULL, NULL, "-tao_almm_mu_init", &set));
      PetscCall(PetscSNPrintf(v, sizeof(v), "%g", (double)c->optimizer.penalty));
      if (!set) PetscCall(PetscOptionsSetValue(NULL, "-tao_almm_mu_init", v));
      PetscCall(PetscOptionsHasName(NULL, NULL, "-tao_almm_type", &set));
      if (!set) PetscCall(PetscOptionsSetValue(NULL, "-tao_almm_type", "phr"));
    }
  }
  PetscCall(TaoSetFromOptions(*tao));
  PetscFunctionReturn(PETSC_SUCCESS);
}
