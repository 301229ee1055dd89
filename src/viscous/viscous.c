/*
  The Helmholtz problems of the implicit viscous term (include/fg/viscous.h): the dispatch to the
  approximately factored path (viscous_af.c), the direct path (viscous_fftw.c) or PETSc KSP, and
  the KSP path itself.

  K_a = V L_0 is assembled once per component on a star-stencil DMDA with the grid's layout
  (FGGridCreateStarDM). Row of an interior face f (global index idx, volume V_f), for each
  direction b and side -/+ with the coefficients (cm, cp) of src/ops/diffusion.c:

    K(f, f)       -= V_f (cm + cp)
    K(f, f -+ e_b) = V_f c-+       where that neighbour is an interior face (periodic: wrapped)
    K(f, f)       += V_f c-+ cf    where it is a ghost with the rule v = cf v(f) + data
                                   (FGOpGhostCoefficient; the data is the caller's)
    nothing                        where it is a K face (a boundary or outflow face of component
                                   a along a: its value is data too)

  Rows of K faces are empty, so M(s) = V - s K is block diagonal between U and K (the K block is
  V): the solution's U part depends on the right-hand side's U part only. Symmetric: the coupling
  of faces f and f + e_b is V_f cp(f) = V_{f+e_b} cm(f+e_b) (the face area over the distance
  of the two faces' centres).

  ADD_VALUES throughout, so that a periodic direction of one or two cells (where the two
  neighbours coincide, or are the face itself) gets the sum of its couplings.
*/
#include "viscousimpl.h"

struct _p_FGViscous {
  FGGrid     grid;
  FGBoundary bc;
  DM         da;     /* star stencil, the grid's layout */
  Mat        K[3];   /* V L_0 per component */
  Mat        M[3];   /* V - s K, for s = sM[a] */
  PetscReal  sM[3];  /* the s of M[a]; -1: not built */
  Vec        vol[3]; /* the face volumes of component a */
  KSP        ksp[3]; /* prefix viscous_ */
  Vec        rhs, y; /* work */
  FGViscousSolverType type;
  FGViscousFFTW fft; /* the direct path (viscous_fftw.c) */
  FGViscousAF   af;  /* the approximately factored path (viscous_af.c) */
  PetscScalar  *w0, *w1; /* the factored path's scratch for its correction */
  PetscBool     kghost;  /* some rank's ghost planes hold a neighbour's boundary faces */
};

const char *const FGViscousSolverTypes[] = {"af", "direct", "ksp", "FGViscousSolverType", "FG_VISCOUS_SOLVER_", NULL};

static PetscLogEvent FG_EVENT_ViscousSolve, FG_EVENT_ViscousSolveTranspose;
static PetscBool     FGViscousPackageInitialized = PETSC_FALSE;

static PetscErrorCode FGViscousFinalizePackage_Private(void)
{
  PetscFunctionBeginUser;
  FGViscousPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGViscousInitializePackage_Private(void)
{
  PetscClassId id;

  PetscFunctionBeginUser;
  if (FGViscousPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  FGViscousPackageInitialized = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("FG Viscous", &id));
  PetscCall(PetscLogEventRegister("FGViscousSolve", id, &FG_EVENT_ViscousSolve));
  PetscCall(PetscLogEventRegister("FGViscousSolveT", id, &FG_EVENT_ViscousSolveTranspose));
  PetscCall(PetscRegisterFinalize(FGViscousFinalizePackage_Private));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGViscousVolumes_Private(FGViscous, PetscInt);

/* K_a = V L_0 (see the header). */
static PetscErrorCode FGViscousAssemble_Private(FGViscous v, PetscInt a)
{
  const FGGrid     g   = v->grid;
  const FGLocation loc = (FGLocation)(FG_LOC_FACE_X + a);
  PetscInt         lo[3], hi[3];

  PetscFunctionBeginUser;
  FGOpInteriorFaces(g, &v->bc, a, lo, hi);
  for (PetscInt k = lo[2]; k < hi[2]; k++)
    for (PetscInt j = lo[1]; j < hi[1]; j++)
      for (PetscInt i = lo[0]; i < hi[0]; i++) {
        const PetscInt  idx[3] = {i, j, k};
        const PetscReal V      = FGGridVolume(g, loc, idx);
        MatStencil      row    = {.k = k, .j = j, .i = i, .c = 0}, col[7];
        PetscScalar     val[7];
        PetscInt        nc = 1;

        col[0] = row, val[0] = 0;
        for (PetscInt b = 0; b < g->dim; b++) {
          PetscReal cm, cp;
          FGOpDiffusionCoefficients(g, a, b, idx[b], &cm, &cp);
          if (g->uniform[b]) cm = cp = 1.0 / (g->h[b] * g->h[b]); /* as src/ops/diffusion.c computes it */
          for (PetscInt side = 0; side < 2; side++) {
            const PetscInt  nb = idx[b] + (side ? 1 : -1);
            const PetscReal c  = V * (side ? cp : cm);
            val[0] -= c;
            if (!g->periodic[b] && (nb < 0 || nb >= g->n[b])) { /* a ghost: folded into the diagonal */
              val[0] += c * FGOpGhostCoefficient(&v->bc, b, side, a);
              continue;
            }
            if (!g->periodic[b] && b == a && nb == g->n[a] - 1) continue; /* the upper boundary face: data */
            col[nc] = row;
            if (b == 0) col[nc].i = nb;
            else if (b == 1) col[nc].j = nb;
            else col[nc].k = nb;
            val[nc++] = c;
          }
        }
        PetscCall(MatSetValuesStencil(v->K[a], 1, &row, nc, col, val, ADD_VALUES));
      }
  PetscCall(MatAssemblyBegin(v->K[a], MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(v->K[a], MAT_FINAL_ASSEMBLY));
  PetscCall(FGViscousVolumes_Private(v, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The face volumes of component a, on every owned face. */
static PetscErrorCode FGViscousVolumes_Private(FGViscous v, PetscInt a)
{
  const FGGrid     g   = v->grid;
  const FGBox     *bx  = &g->box;
  const FGLocation loc = (FGLocation)(FG_LOC_FACE_X + a);

  PetscFunctionBeginUser;
  {
    PetscScalar *w;
    PetscCall(VecGetArrayWrite(v->vol[a], &w));
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
        for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
          const PetscInt idx[3] = {i, j, k};
          w[FGBoxOwnedIndex(bx, i, j, k)] = FGGridVolume(g, loc, idx);
        }
    PetscCall(VecRestoreArrayWrite(v->vol[a], &w));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGViscousTimeStepLimit - the largest dt for which the explicit viscous term is stable in RK3:
  its stability polynomial 1 + z + z^2/2 + z^3/6 covers [-2.5127, 0] of the real axis, and the
  most negative eigenvalue of nu L is -nu sum_d 4/h_d^2 (on a stretched direction its
  Gershgorin bound, the largest 2 (cp + cm) of the finite-volume Laplacian over the cells).
@*/
PetscReal FGViscousTimeStepLimit(FGGrid g, PetscReal nu)
{
  PetscReal lam = 0;
  for (PetscInt d = 0; d < g->dim; d++) {
    const FGAxis *x = &g->ax[d];
    PetscReal     m = 0;
    if (g->uniform[d]) m = 4.0 / (g->h[d] * g->h[d]);
    else
      for (PetscInt t = 0; t < g->n[d]; t++) m = PetscMax(m, 2.0 * x->idxf[t] * (x->idxc[t] + x->idxc[t - 1]));
    lam += m;
  }
  return 2.5127 / (nu * lam);
}

/*@C
  FGViscousGetOptions - the implicit viscous term's options (-help lists them). Collective.
@*/
PetscErrorCode FGViscousGetOptions(MPI_Comm comm, FGViscousOptions *o)
{
  char      name[16] = "af";
  PetscBool found    = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "Implicit viscous term", NULL);
  PetscCall(PetscOptionsString("-fg_viscous_solver", "the Helmholtz solves: af (approximately factored: a Thomas sweep per direction), direct (transforms + Thomas: exact Crank-Nicolson), ksp (CG + Jacobi); af and direct need poisson.type fftw's slabs, else ksp", NULL, name, name, sizeof(name), NULL));
  PetscOptionsEnd();
  /* read as a string and checked here, so that a bad value is an input error on every rank
     (PetscOptionsEnum raises it on PETSC_COMM_SELF) */
  for (PetscInt t = 0; t < 3; t++)
    if (!strcmp(name, FGViscousSolverTypes[t])) o->type = (FGViscousSolverType)t, found = PETSC_TRUE;
  PetscCheck(found, comm, FG_ERR_INPUT, "-fg_viscous_solver %s: unknown solver (af, direct, ksp)", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGViscousTypeFor - the solver that a grid and its boundary kinds get when `want` is asked for:
  want itself where it applies, else ksp. Not collective.
@*/
FGViscousSolverType FGViscousTypeFor(FGGrid g, const FGBoundary *bc, FGViscousSolverType want)
{
  if (want == FG_VISCOUS_SOLVER_AF && FGViscousAFApplies(g, bc)) return FG_VISCOUS_SOLVER_AF;
  if (want == FG_VISCOUS_SOLVER_DIRECT && FGViscousDirectApplies(g, bc)) return FG_VISCOUS_SOLVER_DIRECT;
  return FG_VISCOUS_SOLVER_KSP;
}

/*@C
  FGViscousDescription - how a solver type solves the Helmholtz problems, for the logs.
@*/
const char *FGViscousDescription(FGViscousSolverType t)
{
  return t == FG_VISCOUS_SOLVER_AF ? "approximately factored Helmholtz solves" : t == FG_VISCOUS_SOLVER_DIRECT ? "direct Helmholtz solves" : "CG Helmholtz solves";
}

/*@C
  FGViscousIsImplicit - whether a case's viscous term is implicit: time.viscous implicit, or auto
  with time.dt above the explicit term's stability limit (for the case's nu: the choice is made
  once, so that a design that changes nu keeps the scheme).
@*/
PetscBool FGViscousIsImplicit(const FGCase *c, FGGrid g)
{
  if (c->time.viscous == FG_VISCOUS_AUTO) return (PetscBool)(c->time.dt > FGViscousTimeStepLimit(g, c->flow.nu));
  return (PetscBool)(c->time.viscous == FG_VISCOUS_IMPLICIT);
}

/*@C
  FGViscousCreate - assemble K_a for each component and set up the KSPs (options prefix
  "viscous_"). The boundary kinds are copied. Collective.
@*/
PetscErrorCode FGViscousCreate(FGGrid g, const FGBoundary *bc, FGViscous *out)
{
  FGViscous        v;
  FGViscousOptions opt;

  PetscFunctionBeginUser;
  PetscCall(FGViscousInitializePackage_Private());
  PetscCall(PetscNew(&v));
  v->grid = g;
  v->bc   = *bc;
  PetscCall(FGViscousGetOptions(g->comm, &opt));
  v->type = FGViscousTypeFor(g, bc, opt.type);
  for (PetscInt a = 0; a < g->dim; a++) v->kghost = (PetscBool)(v->kghost || (!g->periodic[a] && g->box.hi[a] == g->n[a] - 1));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &v->kghost, 1, MPIU_BOOL, MPI_LOR, g->comm));
  if (v->type == FG_VISCOUS_SOLVER_AF) PetscCall(FGViscousAFCreate(g, bc, &v->af));
  if (v->type == FG_VISCOUS_SOLVER_DIRECT) PetscCall(FGViscousFFTWCreate(g, bc, &v->fft));
  PetscCall(FGGridCreateStarDM(g, "viscous_", &v->da));
  PetscCall(DMCreateGlobalVector(v->da, &v->rhs));
  PetscCall(VecDuplicate(v->rhs, &v->y));
  for (PetscInt a = 0; a < g->dim; a++) {
    PC pc;
    if (v->fft || v->af) { /* the face volumes only (the transpose) */
      PetscCall(VecDuplicate(v->rhs, &v->vol[a]));
      PetscCall(FGViscousVolumes_Private(v, a));
      continue;
    }
    PetscCall(DMCreateMatrix(v->da, &v->K[a]));
    PetscCall(MatSetOption(v->K[a], MAT_SYMMETRIC, PETSC_TRUE));
    PetscCall(MatDuplicate(v->K[a], MAT_DO_NOT_COPY_VALUES, &v->M[a]));
    PetscCall(VecDuplicate(v->rhs, &v->vol[a]));
    PetscCall(FGViscousAssemble_Private(v, a));
    v->sM[a] = -1;
    PetscCall(KSPCreate(g->comm, &v->ksp[a]));
    PetscCall(KSPSetOptionsPrefix(v->ksp[a], "viscous_"));
    PetscCall(KSPSetType(v->ksp[a], KSPCG));
    PetscCall(KSPSetNormType(v->ksp[a], KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPGetPC(v->ksp[a], &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetTolerances(v->ksp[a], 1e-12, 1e-50, PETSC_DEFAULT, 1000));
    PetscCall(KSPSetInitialGuessNonzero(v->ksp[a], PETSC_TRUE));
    PetscCall(KSPSetFromOptions(v->ksp[a]));
    PetscCall(FGKSPCheckOptions(v->ksp[a]));
  }
  *out = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M[a] = V - s K[a] (when s changed), as the KSP's operator. */
static PetscErrorCode FGViscousOperator_Private(FGViscous v, PetscInt a, PetscReal s)
{
  PetscFunctionBeginUser;
  PetscCheck(s > 0, v->grid->comm, PETSC_ERR_ARG_OUTOFRANGE, "the viscous Helmholtz problem needs s = c nu > 0, got %g", (double)s);
  if (v->sM[a] == s) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatCopy(v->K[a], v->M[a], SAME_NONZERO_PATTERN));
  PetscCall(MatScale(v->M[a], -s));
  PetscCall(MatDiagonalSet(v->M[a], v->vol[a], ADD_VALUES));
  PetscCall(MatSetOption(v->M[a], MAT_SPD, PETSC_TRUE));
  PetscCall(KSPSetOperators(v->ksp[a], v->M[a], v->M[a]));
  v->sM[a] = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x_U = (scale by V ? V y : y)_U, for the interior faces of component a. */
static PetscErrorCode FGViscousCopyInterior_Private(FGViscous v, PetscInt a, Vec y, PetscBool byvol, Vec x)
{
  const FGBox       *bx = &v->grid->box;
  const PetscScalar *yy, *w = NULL;
  PetscScalar       *xx;
  PetscInt           lo[3], hi[3];

  PetscFunctionBeginUser;
  FGOpInteriorFaces(v->grid, &v->bc, a, lo, hi);
  PetscCall(VecGetArrayRead(y, &yy));
  if (byvol) PetscCall(VecGetArrayRead(v->vol[a], &w));
  PetscCall(VecGetArray(x, &xx));
  for (PetscInt k = lo[2]; k < hi[2]; k++)
    for (PetscInt j = lo[1]; j < hi[1]; j++)
      for (PetscInt i = lo[0]; i < hi[0]; i++) {
        const PetscInt o = FGBoxOwnedIndex(bx, i, j, k);
        xx[o]            = byvol ? w[o] * yy[o] : yy[o];
      }
  PetscCall(VecRestoreArray(x, &xx));
  if (byvol) PetscCall(VecRestoreArrayRead(v->vol[a], &w));
  PetscCall(VecRestoreArrayRead(y, &yy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGViscousCheck_Private(FGViscous v, PetscInt a, PetscBool transpose)
{
  KSPConvergedReason reason;
  PetscInt           its, maxit;
  PetscReal          rnorm, rtol;

  PetscFunctionBeginUser;
  PetscCall(KSPGetConvergedReason(v->ksp[a], &reason));
  PetscCall(KSPGetIterationNumber(v->ksp[a], &its));
  if (reason > 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetResidualNorm(v->ksp[a], &rnorm));
  PetscCall(KSPGetTolerances(v->ksp[a], &rtol, NULL, NULL, &maxit));
  SETERRQ(v->grid->comm, FG_ERR_NUMERIC, "implicit viscous term, component %" PetscInt_FMT " (KSP%s): did not converge: reason %s after %" PetscInt_FMT " iterations, residual %g (rtol %g, max_it %" PetscInt_FMT "); try -viscous_ksp_max_it or another -viscous_pc_type", a, transpose ? " transpose" : "",
          KSPConvergedReasons[reason], its, (double)rnorm, (double)rtol, maxit);
}

/* y = (I - s L_0)^{-1} x on the direct path (y's interior faces). */
static PetscErrorCode FGViscousFFTWApply_Private(FGViscous v, PetscInt a, PetscReal s, Vec x, Vec y)
{
  const PetscScalar *xx;
  PetscScalar       *yy;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(x, &xx));
  PetscCall(VecGetArrayWrite(y, &yy));
  PetscCall(FGViscousFFTWSolve(v->fft, a, s, xx, yy));
  PetscCall(VecRestoreArrayWrite(y, &yy));
  PetscCall(VecRestoreArrayRead(x, &xx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGViscousSolve - x_U = (I - s L_0)^{-1} x_U for each component (global Vecs; the K faces are
  left as they are), with s > 0. Collective.
@*/
PetscErrorCode FGViscousSolve(FGViscous v, PetscReal s, Vec x[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FG_EVENT_ViscousSolve, 0, 0, 0, 0));
  for (PetscInt a = 0; a < v->grid->dim; a++) {
    if (v->af) {
      PetscScalar *xx;
      PetscCheck(s > 0, v->grid->comm, PETSC_ERR_ARG_OUTOFRANGE, "the viscous Helmholtz problem needs s = c nu > 0, got %g", (double)s);
      PetscCall(VecGetArray(x[a], &xx));
      PetscCall(FGViscousAFSolve(v->af, v->grid, a, s, NULL, NULL, xx));
      PetscCall(VecRestoreArray(x[a], &xx));
      continue;
    }
    if (v->fft) {
      PetscCall(FGViscousFFTWApply_Private(v, a, s, x[a], v->y));
      PetscCall(FGViscousCopyInterior_Private(v, a, v->y, PETSC_FALSE, x[a]));
      continue;
    }
    PetscCall(FGViscousOperator_Private(v, a, s));
    PetscCall(VecPointwiseMult(v->rhs, v->vol[a], x[a]));
    PetscCall(VecCopy(x[a], v->y)); /* the initial guess: the right-hand side itself */
    PetscCall(KSPSolve(v->ksp[a], v->rhs, v->y));
    PetscCall(FGViscousCheck_Private(v, a, PETSC_FALSE));
    PetscCall(FGViscousCopyInterior_Private(v, a, v->y, PETSC_FALSE, x[a]));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_ViscousSolve, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGViscousSolveTranspose - the transpose of FGViscousSolve: x_U = V M(s)^{-T} x_U for each
  component (the K faces left as they are). Collective.
@*/
PetscErrorCode FGViscousSolveTranspose(FGViscous v, PetscReal s, Vec x[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(FG_EVENT_ViscousSolveTranspose, 0, 0, 0, 0));
  for (PetscInt a = 0; a < v->grid->dim; a++) {
    if (v->af) { /* S~^T = V S~ V^{-1} (the factors commute) */
      PetscScalar *yy;
      PetscCall(VecPointwiseDivide(v->y, x[a], v->vol[a]));
      PetscCall(VecGetArray(v->y, &yy));
      PetscCall(FGViscousAFSolve(v->af, v->grid, a, s, NULL, NULL, yy));
      PetscCall(VecRestoreArray(v->y, &yy));
      PetscCall(FGViscousCopyInterior_Private(v, a, v->y, PETSC_TRUE, x[a]));
      continue;
    }
    if (v->fft) { /* S^T = V S V^{-1} */
      PetscCall(VecPointwiseDivide(v->rhs, x[a], v->vol[a]));
      PetscCall(FGViscousFFTWApply_Private(v, a, s, v->rhs, v->y));
      PetscCall(FGViscousCopyInterior_Private(v, a, v->y, PETSC_TRUE, x[a]));
      continue;
    }
    PetscCall(FGViscousOperator_Private(v, a, s));
    PetscCall(VecCopy(x[a], v->rhs));
    PetscCall(VecPointwiseDivide(v->y, x[a], v->vol[a])); /* the initial guess: M^{-T} ~ V^{-1} */
    PetscCall(KSPSolveTranspose(v->ksp[a], v->rhs, v->y));
    PetscCall(FGViscousCheck_Private(v, a, PETSC_TRUE));
    PetscCall(FGViscousCopyInterior_Private(v, a, v->y, PETSC_TRUE, x[a]));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_ViscousSolveTranspose, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x_U += alpha w_U for component a (owned arrays). */
static void FGViscousAXPYInterior_Private(FGViscous v, PetscInt a, PetscReal alpha, const PetscScalar *w, PetscScalar *x)
{
  const FGBox *bx = &v->grid->box;
  PetscInt     lo[3], hi[3];

  FGOpInteriorFaces(v->grid, &v->bc, a, lo, hi);
  for (PetscInt k = lo[2]; k < hi[2]; k++)
    for (PetscInt j = lo[1]; j < hi[1]; j++) {
      const PetscInt o = FGBoxOwnedIndex(bx, lo[0], j, k);
      for (PetscInt i = 0; i < hi[0] - lo[0]; i++) x[o + i] += alpha * w[o + i];
    }
}

/*@C
  FGViscousSolveIncrement - x_U = w_U + S (x_U - w_U) for each component (the K faces of x left
  as they are; w is not changed); w global, or with local true ghosted (its owned entries used).
  Collective.
@*/
PetscErrorCode FGViscousSolveIncrement(FGViscous v, PetscReal s, PetscBool local, Vec w[], Vec x[])
{
  const FGBox *bx = &v->grid->box;

  PetscFunctionBeginUser;
  if (v->af) { /* the subtraction and the addition inside the solve, reading w where it is */
    const PetscInt ws[3] = {1, local ? bx->s[1] : bx->os[1], local ? bx->s[2] : bx->os[2]};
    PetscCheck(s > 0, v->grid->comm, PETSC_ERR_ARG_OUTOFRANGE, "the viscous Helmholtz problem needs s = c nu > 0, got %g", (double)s);
    PetscCall(PetscLogEventBegin(FG_EVENT_ViscousSolve, 0, 0, 0, 0));
    for (PetscInt a = 0; a < v->grid->dim; a++) {
      const PetscScalar *ww;
      PetscScalar       *xx;
      PetscCall(VecGetArrayRead(w[a], &ww));
      PetscCall(VecGetArray(x[a], &xx));
      PetscCall(FGViscousAFSolve(v->af, v->grid, a, s, ww + (local ? FGBoxIndex(bx, bx->lo[0], bx->lo[1], bx->lo[2]) : 0), ws, xx));
      PetscCall(VecRestoreArray(x[a], &xx));
      PetscCall(VecRestoreArrayRead(w[a], &ww));
    }
    PetscCall(PetscLogEventEnd(FG_EVENT_ViscousSolve, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt pass = 0; pass < 2; pass++) { /* x_U -= w_U; the solve; x_U += w_U */
    if (pass == 1) PetscCall(FGViscousSolve(v, s, x));
    for (PetscInt a = 0; a < v->grid->dim; a++) {
      const PetscScalar *ww;
      PetscScalar       *xx;
      PetscInt           lo[3], hi[3];
      FGOpInteriorFaces(v->grid, &v->bc, a, lo, hi);
      PetscCall(VecGetArrayRead(w[a], &ww));
      PetscCall(VecGetArray(x[a], &xx));
      for (PetscInt k = lo[2]; k < hi[2]; k++)
        for (PetscInt j = lo[1]; j < hi[1]; j++) {
          const PetscInt o = FGBoxOwnedIndex(bx, lo[0], j, k), q = local ? FGBoxIndex(bx, lo[0], j, k) : o;
          for (PetscInt i = 0; i < hi[0] - lo[0]; i++) xx[o + i] += (pass ? 1.0 : -1.0) * ww[q + i];
        }
      PetscCall(VecRestoreArray(x[a], &xx));
      PetscCall(VecRestoreArrayRead(w[a], &ww));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGViscousAddCorrection - x_U += c (E(s) - L_0) d_U for each component (see the header; d is
  not changed); nothing on the exact paths. Collective.
@*/
PetscErrorCode FGViscousAddCorrection(FGViscous v, PetscReal s, PetscReal c, Vec d[], Vec x[])
{
  PetscFunctionBeginUser;
  if (!v->af) PetscFunctionReturn(PETSC_SUCCESS);
  if (!v->w0) {
    PetscInt n;
    PetscCall(VecGetLocalSize(v->y, &n));
    PetscCall(PetscMalloc2(PetscMax(n, 1), &v->w0, PetscMax(n, 1), &v->w1));
  }
  for (PetscInt a = 0; a < v->grid->dim; a++) {
    const PetscScalar *yy;
    PetscScalar       *yw, *xx;
    PetscCall(VecCopy(d[a], v->y));
    PetscCall(VecGetArray(v->y, &yw));
    PetscCall(FGViscousAFCorrection(v->af, v->grid, a, s, yw, v->w0, v->w1));
    PetscCall(VecRestoreArray(v->y, &yw));
    PetscCall(VecGetArrayRead(v->y, &yy));
    PetscCall(VecGetArray(x[a], &xx));
    FGViscousAXPYInterior_Private(v, a, c, yy, xx);
    PetscCall(VecRestoreArray(x[a], &xx));
    PetscCall(VecRestoreArrayRead(v->y, &yy));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGViscousBoundaryFacesInGhosts - whether some rank's ghost planes hold boundary faces of a
  neighbour (the rank below the last plane of a direction, when the last rank owns that plane
  only): then a ghosted field with new boundary faces needs a ghost exchange, else a local copy
  and the owned faces suffice (src/step/rk3.c). The same on every rank.
@*/
PetscBool FGViscousBoundaryFacesInGhosts(FGViscous v)
{
  return v->kghost;
}

/*@C
  FGViscousGetType - the solver the Helmholtz problems take (FGViscousTypeFor).
@*/
FGViscousSolverType FGViscousGetType(FGViscous v)
{
  return v->type;
}

PetscErrorCode FGViscousDestroy(FGViscous *vp)
{
  FGViscous v = *vp;

  PetscFunctionBeginUser;
  if (!v) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt a = 0; a < 3; a++) {
    PetscCall(KSPDestroy(&v->ksp[a]));
    PetscCall(MatDestroy(&v->K[a]));
    PetscCall(MatDestroy(&v->M[a]));
    PetscCall(VecDestroy(&v->vol[a]));
  }
  PetscCall(VecDestroy(&v->rhs));
  PetscCall(VecDestroy(&v->y));
  PetscCall(FGViscousFFTWDestroy(&v->fft));
  PetscCall(FGViscousAFDestroy(&v->af));
  if (v->w0) PetscCall(PetscFree2(v->w0, v->w1));
  PetscCall(DMDestroy(&v->da));
  PetscCall(PetscFree(*vp));
  PetscFunctionReturn(PETSC_SUCCESS);
}
