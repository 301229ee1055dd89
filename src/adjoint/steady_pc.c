/*
  The preconditioner of the steady solver's Krylov solves (src/adjoint/steady.c): an Oseen
  (Newton) solve with the assembled Jacobian of the steady equations.

  Why. Newton on x = F(x), F one time step, solves (I - F_x) dx = r. For the slow modes of the
  flow (transport through the domain, the largest viscous scales) I - F_x ~ -dt P K, K the
  Jacobian of the momentum right-hand side, P the projection; the fast ones (viscous at the cell
  scale, the penalization) it damps, I - F_x ~ I. Unpreconditioned GMRES then needs ~1/(dt mu_min)
  iterations (795-942 on the 400 x 100 confined cylinder at dt = 1e-2, measured), which a smaller
  dt makes worse and the CFL limit keeps from making better.

  What. The steady equations of the step (its fixed point, rk3.c) on the velocity faces and
  pressure cells,

    R_u(u, p) = H(u) - G p - (K u - S) = 0   on the unknown faces (interior and outflow),
    R_u       = u                            on the prescribed faces (their values are data),
    R_p(u)    = D (Ap u) = 0,               Ap a sharp wall's apertures (1 without),

  H = -A + nu L + f + the outflow condition (FGStepMomentumRHS with the viscosity), K, S the
  penalization (FGBodiesGetPenalty). Left out (they reach past the stencil below): the line
  flux's D (W - I) (R_p is D u with it) and the shared ghosts' explicit term X u; assembled and
  added, they changed Newton's Krylov iterations on 2D-1 by under 10 % (75 -> 73 at D/40, 160 ->
  158 at D/80). What grows those with the grid is the step (adjoint.steady_dt, docs/adjoint.md).
  Their Jacobian J = [K_u  -G; D  0] at the current state is
  assembled by coloring (MatFDColoring on a DMDA with the d + 1 fields interlaced and a box
  stencil of width 1, which holds every coupling of these operators), and

    M r = r + S_out J^{-1} S_in r,   S_in r = (-r_u / dt on the unknown faces, 0),
                                     S_out (z, q) = (z, q on the pressure when it is a state),

  the inverse of I - F_x^ for the backward-Euler step F^ with the Oseen operator: M ~ (-dt P K)^{-1}
  on the slow modes, M ~ I on the fast ones, and on the pressure of the state (incremental with
  bodies or the implicit viscous term) dp = r_p + q, the linearized projection's pressure
  increment. The adjoint's Krylov solve takes M^T = I + S_in^T J^{-T} S_out^T.

  The inner solve has the prefix <outer>oseen_ of the solve that created it (steady_oseen_ for
  Newton's, which the adjoints at the same steady state share; adjoint_oseen_ where Newton had
  none): by default a
  sparse LU (MUMPS, which pivots: the pressure block of J is 0, and runs on any rank count); for
  large 3D runs -steady_oseen_ksp_type gmres -steady_oseen_pc_type fieldsplit ... or any other
  PETSc solver. Without a Dirichlet face in the pressure problem the constant pressure is in the
  null space of J: one pressure row is pinned (the multiplier's constant does not matter).
*/
#include "steadyimpl.h"

struct _n_FGSteadyPC {
  FGSolver      s;
  PetscInt      dim, nf, nloc; /* components, fields (dim + 1), local entries of one field */
  PetscBool     withp, singular, ready; /* ready: set up (FGSteadyPCSetUp) */
  PetscReal     t, dt;
  DM            da;                       /* dof nf, box stencil 1, the grid's layout */
  Mat           J;                        /* the Jacobian of the steady equations */
  MatFDColoring fdc;
  KSP           ksp;                      /* the inner solve (<outer>oseen_) */
  Vec           X, b, y;                  /* interlaced: the state, the inner right-hand side and solution */
  Vec           u[3], ul[3], H[3], K[3], S[3], mask[3], p, pl, div; /* grid layout */
  PetscInt      pin;                      /* the pinned pressure row (global, interlaced), -1: none */
};

/* interlaced x <-> the fields' arrays (the same owned box: the DMDA's ordering is the box's) */
static PetscErrorCode FGSteadyPCScatter_Private(FGSteadyPC P, Vec x, Vec f[], PetscBool toFields)
{
  PetscScalar *a, *v;

  PetscFunctionBeginUser;
  PetscCall(VecGetArray(x, &a));
  for (PetscInt c = 0; c < P->nf; c++) {
    PetscCall(VecGetArray(f[c], &v));
    if (toFields)
      for (PetscInt i = 0; i < P->nloc; i++) v[i] = a[i * P->nf + c];
    else
      for (PetscInt i = 0; i < P->nloc; i++) a[i * P->nf + c] = v[i];
    PetscCall(VecRestoreArray(f[c], &v));
  }
  PetscCall(VecRestoreArray(x, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* F = R(X), the steady equations (header), interlaced. */
static PetscErrorCode FGSteadyPCResidual_Private(void *unused, Vec X, Vec F, void *ctx)
{
  FGSteadyPC  P = (FGSteadyPC)ctx;
  FGSolver    s = P->s;
  FGGrid      g = s->grid;
  Vec         f[4];
  PetscScalar       *h;
  const PetscScalar *m, *k, *sv, *ua;

  PetscFunctionBeginUser;
  (void)unused;
  for (PetscInt a = 0; a < P->dim; a++) f[a] = P->u[a];
  f[P->dim] = P->p;
  PetscCall(FGSteadyPCScatter_Private(P, X, f, PETSC_TRUE));
  for (PetscInt a = 0; a < P->dim; a++) PetscCall(DMGlobalToLocal(g->da, P->u[a], INSERT_VALUES, P->ul[a]));
  PetscCall(FGOpFillBoundary(g, &s->bc, P->t, P->ul));
  PetscCall(FGStepMomentumRHS(s, P->t, s->prm.v[FG_PARAM_NU], P->ul, P->H));
  PetscCall(DMGlobalToLocal(g->da, P->p, INSERT_VALUES, P->pl));
  PetscCall(FGOpGradientCorrect(g, &s->bc, 1.0, P->pl, P->H)); /* H - G p */
  for (PetscInt a = 0; a < P->dim; a++) {
    PetscCall(VecGetArray(P->H[a], &h));
    PetscCall(VecGetArrayRead(P->mask[a], &m));
    PetscCall(VecGetArrayRead(P->K[a], &k));
    PetscCall(VecGetArrayRead(P->S[a], &sv));
    PetscCall(VecGetArrayRead(P->u[a], &ua));
    for (PetscInt i = 0; i < P->nloc; i++) h[i] = m[i] != 0 ? h[i] - (k[i] * ua[i] - sv[i]) : ua[i];
    PetscCall(VecRestoreArrayRead(P->u[a], &ua));
    PetscCall(VecRestoreArrayRead(P->S[a], &sv));
    PetscCall(VecRestoreArrayRead(P->K[a], &k));
    PetscCall(VecRestoreArrayRead(P->mask[a], &m));
    PetscCall(VecRestoreArray(P->H[a], &h));
    f[a] = P->H[a];
  }
  { /* the continuity the projection enforces: D (Ap u) with apertures (Ap diagonal: in the stencil);
       with the line flux D u (W - I reaches beyond the coloring's stencil of width 1) */
    Vec *Al = NULL;
    Mat *Wm = NULL;
    PetscCall(FGBodiesGetLineFlux(s->bodies, &Wm));
    if (!Wm) PetscCall(FGBodiesGetApertures(s->bodies, &Al));
    PetscCall(FGOpDivergenceWeighted(g, Al, P->ul, PETSC_FALSE, P->div));
  }
  f[P->dim] = P->div;
  PetscCall(FGSteadyPCScatter_Private(P, F, f, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSteadyPCCreate - the preconditioner for the packed state of the steady solver (dim velocity
  fields, then the pressure when withp), its inner solve under the prefix <prefix>oseen_.
  Collective.
@*/
PetscErrorCode FGSteadyPCCreate(FGSolver s, PetscBool withp, const char prefix[], FGSteadyPC *pc)
{
  FGGrid          g = s->grid;
  FGSteadyPC      P;
  const PetscInt *l[3] = {NULL, NULL, NULL};
  DMBoundaryType  bt[3];
  char            pre[64];
  PC              ipc;
  ISColoring      isc;
  MatColoring     mc;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&P));
  P->s     = s;
  P->dim   = g->dim;
  P->nf    = g->dim + 1;
  P->withp = withp;
  P->pin   = -1;
  PetscCall(VecGetLocalSize(s->p, &P->nloc));
  for (PetscInt d = 0; d < 3; d++) bt[d] = g->periodic[d] ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_GHOSTED;
  if (g->dim == 2) {
    PetscCall(DMDAGetOwnershipRanges(g->da, &l[0], &l[1], NULL));
    PetscCall(DMDACreate2d(g->comm, bt[0], bt[1], DMDA_STENCIL_BOX, g->n[0], g->n[1], g->nproc[0], g->nproc[1], P->nf, 1, l[0], l[1], &P->da));
  } else {
    PetscCall(DMDAGetOwnershipRanges(g->da, &l[0], &l[1], &l[2]));
    PetscCall(DMDACreate3d(g->comm, bt[0], bt[1], bt[2], DMDA_STENCIL_BOX, g->n[0], g->n[1], g->n[2], g->nproc[0], g->nproc[1], g->nproc[2], P->nf, 1, l[0], l[1], l[2], &P->da));
  }
  PetscCall(DMSetUp(P->da));
  PetscCall(DMCreateMatrix(P->da, &P->J));
  PetscCall(MatSetOption(P->J, MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE)); /* the pinned row (the coloring's pattern) */
  PetscCall(DMCreateGlobalVector(P->da, &P->X));
  PetscCall(VecDuplicate(P->X, &P->b));
  PetscCall(VecDuplicate(P->X, &P->y));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscInt lo[3], hi[3];
    PetscScalar *m;
    PetscCall(VecDuplicate(s->u[a], &P->u[a]));
    PetscCall(VecDuplicate(s->ul[a], &P->ul[a]));
    PetscCall(VecDuplicate(s->u[a], &P->H[a]));
    PetscCall(VecDuplicate(s->u[a], &P->K[a]));
    PetscCall(VecDuplicate(s->u[a], &P->S[a]));
    PetscCall(VecDuplicate(s->u[a], &P->mask[a]));
    PetscCall(VecSet(P->mask[a], 0.0));
    FGOpUnknownFaces(g, &s->bc, a, lo, hi);
    PetscCall(VecGetArray(P->mask[a], &m));
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) m[FGBoxOwnedIndex(&g->box, i, j, k)] = 1.0;
    PetscCall(VecRestoreArray(P->mask[a], &m));
  }
  PetscCall(VecDuplicate(s->p, &P->p));
  PetscCall(VecDuplicate(s->phil, &P->pl));
  PetscCall(VecDuplicate(s->p, &P->div));
  PetscCall(FGPoissonIsSingular(s->poisson, &P->singular));
  if (P->singular) { /* pin the pressure of the first cell (rank 0 owns it) */
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(g->comm, &rank));
    if (rank == 0) P->pin = P->dim;
  }

  /* the coloring of J's graph (distance 2: columns of one color share no row) */
  PetscCall(MatColoringCreate(P->J, &mc));
  PetscCall(MatColoringSetDistance(mc, 2));
  PetscCall(MatColoringSetType(mc, MATCOLORINGGREEDY));
  PetscCall(MatColoringApply(mc, &isc));
  PetscCall(MatColoringDestroy(&mc));
  PetscCall(MatFDColoringCreate(P->J, isc, &P->fdc));
  PetscCall(MatFDColoringSetFunction(P->fdc, (PetscErrorCode(*)(void))(void (*)(void))FGSteadyPCResidual_Private, P));
  PetscCall(PetscSNPrintf(pre, sizeof(pre), "%soseen_", prefix));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)P->fdc, pre));
  PetscCall(MatFDColoringSetFromOptions(P->fdc));
  PetscCall(MatFDColoringSetUp(P->J, isc, P->fdc));
  PetscCall(ISColoringDestroy(&isc));

  PetscCall(KSPCreate(g->comm, &P->ksp));
  PetscCall(KSPSetOptionsPrefix(P->ksp, pre));
  PetscCall(KSPSetType(P->ksp, KSPPREONLY));
  PetscCall(KSPGetPC(P->ksp, &ipc));
  PetscCall(PCSetType(ipc, PCLU));
  PetscCall(PCFactorSetMatSolverType(ipc, MATSOLVERMUMPS));
  PetscCall(KSPSetFromOptions(P->ksp));
  PetscCall(FGKSPCheckOptions(P->ksp));
  *pc = P;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSteadyPCSetUp - assemble J at the state (u, p) and time t, set up (factor) the inner solve;
  dt: the step's. Collective.
@*/
PetscErrorCode FGSteadyPCSetUp(FGSteadyPC P, Vec u[], Vec p, PetscReal t, PetscReal dt)
{
  FGSolver s = P->s;
  Vec      f[4];

  PetscFunctionBeginUser;
  P->t  = t;
  P->dt = dt;
  PetscCall(FGBodiesGetPenalty(s->bodies, t, P->K, P->S));
  for (PetscInt a = 0; a < P->dim; a++) f[a] = u[a];
  f[P->dim] = p;
  PetscCall(FGSteadyPCScatter_Private(P, P->X, f, PETSC_FALSE));
  PetscCall(MatFDColoringApply(P->J, P->fdc, P->X, P));
  if (P->singular) PetscCall(MatZeroRows(P->J, P->pin >= 0 ? 1 : 0, &P->pin, 1.0, NULL, NULL));
  PetscCall(KSPSetOperators(P->ksp, P->J, P->J));
  PetscCall(KSPSetUp(P->ksp));
  P->ready = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether FGSteadyPCSetUp has set it up. Not collective. */
PetscErrorCode FGSteadyPCIsSetUp(FGSteadyPC P, PetscBool *ready)
{
  PetscFunctionBeginUser;
  *ready = P->ready;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The options prefix of its inner solve (<outer>oseen_). Not collective. */
PetscErrorCode FGSteadyPCGetOptionsPrefix(FGSteadyPC P, const char **prefix)
{
  PetscFunctionBeginUser;
  PetscCall(KSPGetOptionsPrefix(P->ksp, prefix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The packed vector (dim fields, then p when withp) <-> interlaced, with the maps S_in, S_out
   (and their transposes) of the header. in: r -> b; out: y -> r. */
static PetscErrorCode FGSteadyPCIn_Private(FGSteadyPC P, Vec r, PetscBool transpose, Vec b)
{
  const PetscScalar *x;
  PetscScalar       *a;
  const PetscInt     n = P->nloc, nf = P->nf, dim = P->dim;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(r, &x));
  PetscCall(VecGetArray(b, &a));
  for (PetscInt c = 0; c < dim; c++) {
    const PetscScalar *m;
    PetscCall(VecGetArrayRead(P->mask[c], &m));
    for (PetscInt i = 0; i < n; i++) a[i * nf + c] = transpose ? x[c * n + i] : (m[i] != 0 ? -x[c * n + i] / P->dt : 0.0);
    PetscCall(VecRestoreArrayRead(P->mask[c], &m));
  }
  for (PetscInt i = 0; i < n; i++) a[i * nf + dim] = transpose && P->withp ? x[dim * n + i] : 0.0;
  if (!transpose && P->pin >= 0) a[P->pin] = 0.0;
  PetscCall(VecRestoreArray(b, &a));
  PetscCall(VecRestoreArrayRead(r, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y += the packed image of the solution z of the inner solve (forward: S_out z; transpose: S_in^T z) */
static PetscErrorCode FGSteadyPCOut_Private(FGSteadyPC P, Vec z, PetscBool transpose, Vec y)
{
  const PetscScalar *a;
  PetscScalar       *x;
  const PetscInt     n = P->nloc, nf = P->nf, dim = P->dim;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(z, &a));
  PetscCall(VecGetArray(y, &x));
  for (PetscInt c = 0; c < dim; c++) {
    const PetscScalar *m;
    PetscCall(VecGetArrayRead(P->mask[c], &m));
    for (PetscInt i = 0; i < n; i++) x[c * n + i] += transpose ? (m[i] != 0 ? -a[i * nf + c] / P->dt : 0.0) : a[i * nf + c];
    PetscCall(VecRestoreArrayRead(P->mask[c], &m));
  }
  if (!transpose && P->withp)
    for (PetscInt i = 0; i < n; i++) x[dim * n + i] += a[i * nf + dim];
  PetscCall(VecRestoreArray(y, &x));
  PetscCall(VecRestoreArrayRead(z, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGSteadyPCApply_Private(FGSteadyPC P, Vec r, Vec y, PetscBool transpose)
{
  KSPConvergedReason reason;
  PetscInt           its;

  PetscFunctionBeginUser;
  PetscCall(FGSteadyPCIn_Private(P, r, transpose, P->b));
  if (transpose) PetscCall(KSPSolveTranspose(P->ksp, P->b, P->y));
  else PetscCall(KSPSolve(P->ksp, P->b, P->y));
  PetscCall(KSPGetConvergedReason(P->ksp, &reason));
  PetscCall(KSPGetIterationNumber(P->ksp, &its));
  PetscCheck(reason >= 0, P->s->comm, FG_ERR_NUMERIC, "steady: the preconditioner's Oseen solve failed: %s after %" PetscInt_FMT " iterations (options -steady_oseen_*, -adjoint_oseen_*)", KSPConvergedReasons[reason], its);
  PetscCall(VecCopy(r, y));
  PetscCall(FGSteadyPCOut_Private(P, P->y, transpose, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSteadyPCApply - y = M r (packed vectors). Collective.
@*/
PetscErrorCode FGSteadyPCApply(FGSteadyPC P, Vec r, Vec y)
{
  PetscFunctionBeginUser;
  PetscCall(FGSteadyPCApply_Private(P, r, y, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSteadyPCApplyTranspose - y = M^T r (packed vectors). Collective.
@*/
PetscErrorCode FGSteadyPCApplyTranspose(FGSteadyPC P, Vec r, Vec y)
{
  PetscFunctionBeginUser;
  PetscCall(FGSteadyPCApply_Private(P, r, y, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGSteadyPCDestroy(FGSteadyPC *pc)
{
  FGSteadyPC P = *pc;

  PetscFunctionBeginUser;
  if (!P) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt a = 0; a < P->dim; a++) {
    PetscCall(VecDestroy(&P->u[a]));
    PetscCall(VecDestroy(&P->ul[a]));
    PetscCall(VecDestroy(&P->H[a]));
    PetscCall(VecDestroy(&P->K[a]));
    PetscCall(VecDestroy(&P->S[a]));
    PetscCall(VecDestroy(&P->mask[a]));
  }
  PetscCall(VecDestroy(&P->p));
  PetscCall(VecDestroy(&P->pl));
  PetscCall(VecDestroy(&P->div));
  PetscCall(VecDestroy(&P->X));
  PetscCall(VecDestroy(&P->b));
  PetscCall(VecDestroy(&P->y));
  PetscCall(MatFDColoringDestroy(&P->fdc));
  PetscCall(MatDestroy(&P->J));
  PetscCall(KSPDestroy(&P->ksp));
  PetscCall(DMDestroy(&P->da));
  PetscCall(PetscFree(P));
  *pc = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Newton's step where adjoint.steady_dt is auto: time.dt / 2^k, the least k (at most
   FG_STEADY_HALVINGS) that brings the state's step number (FGSolverStepNumber) to FG_STEADY_SIGMA or
   under. Why: M inverts a backward-Euler step F^ while F is the RK3 step; on a mode of rate lambda
   (dt lambda = z) I - F_x and I - F^_x differ by a factor 1 + O(z), so M's error grows with the
   step number (and with the grid at a fixed time.dt). Measured (docs/adjoint.md, "Newton's step"):
   on 2D-1 at D/80 Newton's Krylov iterations fell from 98 and 75 at sigma 10 (time.dt) to 31 at
   1.3 and 24 at 0.66, 20 at 0.33; the fixed point, J and the gradient do not depend on the step.
   Halving, not dividing: a step that does not move with the state within a factor 2, and the
   same at any rank count (a maximum). The floor time.dt / 1024 keeps |F(x) - x| above round-off. */
#define FG_STEADY_SIGMA    0.25
#define FG_STEADY_HALVINGS 10
PetscErrorCode FGSteadyPCStep(FGSolver s, PetscBool print, PetscReal *dt)
{
  const PetscReal dt0 = s->c->time.dt;
  PetscReal       sigma;
  PetscInt        k = 0;

  PetscFunctionBeginUser;
  *dt = dt0;
  if (s->c->adjoint.steady_dt_value > 0) {
    *dt = s->c->adjoint.steady_dt_value;
    if (print && *dt != dt0) PetscCall(PetscPrintf(s->comm, "steady: Newton's map steps dt = %g (adjoint.steady_dt; the transient's time.dt = %g)\n", (double)*dt, (double)dt0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FGSolverStepNumber(s, dt0, NULL, &sigma));
  while (k < FG_STEADY_HALVINGS && sigma / (PetscReal)(1 << k) > FG_STEADY_SIGMA) k++;
  *dt = dt0 / (PetscReal)(1 << k);
  if (print) PetscCall(PetscPrintf(s->comm, "steady: Newton's map steps dt = %g = time.dt/%d (adjoint.steady_dt auto: the step number %.3g at time.dt, %.3g at this step)\n", (double)*dt, 1 << k, (double)sigma, (double)(sigma / (PetscReal)(1 << k))));
  PetscFunctionReturn(PETSC_SUCCESS);
}
