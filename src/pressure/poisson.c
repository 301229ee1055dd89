/*
  The pressure Poisson problem: common API, dispatch, the reference operator and the boundary
  kinds that go with a case.

  The discrete Laplacian of the MAC grid at the cell centres, $x_c$, $c = (i,j,k)$,

  $$ (L x)_c = \sum_{d} \frac{x_{c+e_d} - 2 x_c + x_{c-e_d}}{h_d^2}, $$

  is closed at a domain face by a ghost value: periodic faces wrap around (the DMDA does it),
  a Neumann face mirrors the boundary cell, $x_{-1} = x_0$ ($\partial_n x = 0$ at the face, to
  second order), and a Dirichlet face mirrors it with the sign changed, $x_{-1} = -x_0$ ($x = 0$
  at the face, to second order). Every closure keeps $L$ symmetric. Without a Dirichlet face
  $L$ is singular with the constants as null space; the solvers then return the minimum-norm
  (zero-mean) solution of $L x = b - \bar b$, i.e. $x = L^{+} b$.

  On a stretched grid the operator is the finite-volume one that D G of the MAC grid makes,

  $$ (L x)_c = \sum_d \frac{1}{\Delta_d(c)} \Big( \frac{x_{c+e_d} - x_c}{\delta_d^+(c)}
                                         - \frac{x_c - x_{c-e_d}}{\delta_d^-(c)} \Big), $$

  ($\Delta$ the cell widths dxf, $\delta^\pm$ the distances to the neighbouring centres dxc; the
  mirrored ghost cells keep the closures above). It is $L = V^{-1} A$ with $V$ the cell volumes
  and $A$ symmetric, so the solvers return $x = S b = A^{+} V b$ (the zero-mean solution of the
  singular case, as above), and the transpose is $S^T = V A^{+} = V S V^{-1}$: SolveTranspose
  divides by V, solves and multiplies by V, for both implementations.

  Face weights (FGPoissonSetFaceWeights: the apertures of a sharp wall's cut-cell continuity,
  src/body/aperture.c) scale each interior face's coupling, L_w = D W G: every formula above with
  the term of face f multiplied by w_f (still symmetric: A_w = V L_w). Only the KSP solver takes
  them; it assembles L_w again at the first solve after the weights were set.

  FGPoissonApply() is this operator written out matrix-free, with ghost updates; it is the
  reference that residual checks use, and the implementations in poisson_fftw.c (direct,
  eigen-decomposition by real-to-real transforms) and poisson_ksp.c (assembled $-L$, CG + AMG)
  are checked against it (tests/poisson).
*/
#include "poissonimpl.h"

const char *const FGPoissonBCNames[] = {"periodic", "neumann", "dirichlet", "FGPoissonBC", "FG_PBC_", NULL};

PetscLogEvent        FG_EVENT_PoissonSolveFFTW, FG_EVENT_PoissonSolveKSP, FG_EVENT_PoissonSetUp, FG_EVENT_PoissonApply;
static PetscClassId  FG_CLASSID_Poisson;
static PetscBool     FGPoissonPackageInitialized = PETSC_FALSE;

static PetscErrorCode FGPoissonFinalizePackage_Private(void)
{
  PetscFunctionBeginUser;
  FGPoissonPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Register the class id and the log events once per PetscInitialize. */
static PetscErrorCode FGPoissonInitializePackage_Private(void)
{
  PetscFunctionBeginUser;
  if (FGPoissonPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  FGPoissonPackageInitialized = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("FG Poisson", &FG_CLASSID_Poisson));
  PetscCall(PetscLogEventRegister("FGPoissonSolveFFT", FG_CLASSID_Poisson, &FG_EVENT_PoissonSolveFFTW));
  PetscCall(PetscLogEventRegister("FGPoissonSolveKSP", FG_CLASSID_Poisson, &FG_EVENT_PoissonSolveKSP));
  PetscCall(PetscLogEventRegister("FGPoissonSetUp", FG_CLASSID_Poisson, &FG_EVENT_PoissonSetUp));
  PetscCall(PetscLogEventRegister("FGPoissonApply", FG_CLASSID_Poisson, &FG_EVENT_PoissonApply));
  PetscCall(PetscRegisterFinalize(FGPoissonFinalizePackage_Private));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGPoissonCreate - create a Poisson solver for the cell-centred Laplacian of a grid.

  Collective on the grid's communicator.

  Input Parameters:
+ grid - the grid (must outlive the solver)
. type - FG_POISSON_FFTW (direct; needs the grid's FG_DECOMP_SLAB) or FG_POISSON_KSP
- bc   - bc[d][FG_FACE_LO|FG_FACE_HI], d < grid->dim: the boundary kind of each face; periodic
         exactly where the grid is periodic (both faces)

  Output Parameter:
. p - the solver

  Notes:
  Nothing expensive happens here; FGPoissonSetUp() (or the first solve) makes the FFTW plans or
  assembles the matrix and sets up the preconditioner. Errors in the arguments are FG_ERR_INPUT.

.seealso: FGPoissonSetUp(), FGPoissonSolve(), FGPoissonApply(), FGPoissonBCFromCase()
@*/
PetscErrorCode FGPoissonCreate(FGGrid grid, FGPoissonType type, const FGPoissonBC bc[3][2], FGPoisson *p)
{
  FGPoisson q;

  PetscFunctionBeginUser;
  PetscCall(FGPoissonInitializePackage_Private());
  PetscCheck(type == FG_POISSON_FFTW || type == FG_POISSON_KSP, grid->comm, FG_ERR_INPUT, "unknown Poisson solver type %d", (int)type);
  for (PetscInt d = 0; d < grid->dim; d++) {
    for (PetscInt f = 0; f < 2; f++) {
      PetscCheck(bc[d][f] >= FG_PBC_PERIODIC && bc[d][f] <= FG_PBC_DIRICHLET, grid->comm, FG_ERR_INPUT, "Poisson: unknown boundary kind %d on the %s %c face", (int)bc[d][f], f ? "upper" : "lower", "xyz"[d]);
      PetscCheck((bc[d][f] == FG_PBC_PERIODIC) == (grid->periodic[d] ? PETSC_TRUE : PETSC_FALSE), grid->comm, FG_ERR_INPUT, "Poisson: the %s %c face is %s but the grid is %speriodic along %c", f ? "upper" : "lower", "xyz"[d], FGPoissonBCNames[bc[d][f]], grid->periodic[d] ? "" : "not ", "xyz"[d]);
    }
  }
  PetscCheck(type != FG_POISSON_FFTW || grid->decomp == FG_DECOMP_SLAB, grid->comm, FG_ERR_INPUT, "Poisson: the FFTW solver needs the grid's slab decomposition (FG_DECOMP_SLAB, split along %c only), but this grid is decomposed as '%s'; create the grid with FG_DECOMP_SLAB or use the KSP solver", "xyz"[grid->dim - 1], FGDecompNames[grid->decomp]);

  PetscCall(PetscNew(&q));
  q->grid     = grid;
  q->type     = type;
  q->singular = PETSC_TRUE;
  q->rtol     = 1e-10;
  q->max_it   = 500;
  for (PetscInt d = 0; d < 3; d++) {
    for (PetscInt f = 0; f < 2; f++) {
      q->bc[d][f] = d < grid->dim ? bc[d][f] : FG_PBC_PERIODIC; /* 2D: z is a dummy direction of one cell */
      if (d < grid->dim && bc[d][f] == FG_PBC_DIRICHLET) q->singular = PETSC_FALSE;
    }
  }
  if (type == FG_POISSON_FFTW) PetscCall(FGPoissonCreate_FFTW(q));
  else PetscCall(FGPoissonCreate_KSP(q));
  *p = q;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGPoissonSetTolerances - KSP relative tolerance and iteration limit.

  Logically collective.

  Input Parameters:
+ p      - the solver
. rtol   - relative tolerance on the unpreconditioned residual (PETSC_DEFAULT: keep; default 1e-10)
- max_it - iteration limit (PETSC_DEFAULT: keep; default 500)

  Notes:
  The absolute tolerance is tiny (1e-50), so rtol alone decides. The FFTW solver is direct and
  ignores both. Command-line options (-poisson_ksp_rtol, -poisson_ksp_max_it) given before
  FGPoissonSetUp() are overridden by a later call of this function.

.seealso: FGPoissonSolve(), FGPoissonGetIterations()
@*/
PetscErrorCode FGPoissonSetTolerances(FGPoisson p, PetscReal rtol, PetscInt max_it)
{
  PetscFunctionBeginUser;
  if (rtol != (PetscReal)PETSC_DEFAULT) {
    PetscCheck(rtol > 0 && rtol < 1, p->grid->comm, FG_ERR_INPUT, "Poisson: rtol must lie in (0, 1), got %g", (double)rtol);
    p->rtol = rtol;
  }
  if (max_it != PETSC_DEFAULT) {
    PetscCheck(max_it >= 1, p->grid->comm, FG_ERR_INPUT, "Poisson: max_it must be at least 1, got %" PetscInt_FMT, max_it);
    p->max_it = max_it;
  }
  if (p->setupcalled && p->ops.settolerances) PetscCall(p->ops.settolerances(p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGPoissonSetUp - make the FFTW plans and eigenvalues, or assemble the matrix and set up the
  KSP and its preconditioner. Called by the first solve if not called before.

  Collective.

  Options Database Keys:
+ -fg_fftw_planner <estimate,measure,patient,exhaustive> - FFTW planner rigour (default measure)
- -poisson_ksp_type, -poisson_pc_type, ... - the KSP solver (prefix poisson_)
@*/
PetscErrorCode FGPoissonSetUp(FGPoisson p)
{
  PetscFunctionBeginUser;
  if (p->setupcalled) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogEventBegin(FG_EVENT_PoissonSetUp, 0, 0, 0, 0));
  if (!p->grid->isuniform) { /* the cell volumes */
    const FGGrid g = p->grid;
    const FGBox *b = &g->box;
    PetscScalar *v;
    PetscCall(DMCreateGlobalVector(g->da, &p->vol));
    PetscCall(VecDuplicate(p->vol, &p->work));
    PetscCall(VecGetArrayWrite(p->vol, &v));
    for (PetscInt k = b->lo[2]; k < b->hi[2]; k++)
      for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
        for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) v[FGBoxOwnedIndex(b, i, j, k)] = FGGridCellVolume(g, i, j, k);
    PetscCall(VecRestoreArrayWrite(p->vol, &v));
  }
  PetscCall(p->ops.setup(p));
  PetscCall(PetscLogEventEnd(FG_EVENT_PoissonSetUp, 0, 0, 0, 0));
  p->setupcalled = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGPoissonSolve - solve L x = b (for a singular L: x = L^+ b, the zero-mean solution of
  L x = b - mean(b)).

  Collective.

  Input Parameters:
+ p - the solver
- b - right-hand side, a global Vec of the grid's DMDA (cell centres); not changed

  Output Parameter:
. x - the solution (may be the same Vec as b)

  Notes:
  A KSP solve that does not converge raises FG_ERR_NUMERIC (exit code 3), never returns a
  wrong answer.

.seealso: FGPoissonSolveTranspose(), FGPoissonApply()
@*/
PetscErrorCode FGPoissonSolve(FGPoisson p, Vec b, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(FGPoissonSetUp(p));
  PetscCall(p->ops.solve(p, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGPoissonSolveTranspose - apply the transpose of the solve operator: x = S^T b.

  Collective.

  Notes:
  S = L^{-1} (or L^+) is symmetric because L is; the FFTW path applies the same solve, the KSP
  path calls KSPSolveTranspose (with the transpose null space). The adjoint uses this.

.seealso: FGPoissonSolve()
@*/
PetscErrorCode FGPoissonSolveTranspose(FGPoisson p, Vec b, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(FGPoissonSetUp(p));
  if (p->vol) { /* S^T = V S V^{-1} (see the header) */
    PetscCall(VecPointwiseDivide(p->work, b, p->vol));
    PetscCall(p->ops.solve(p, p->work, x));
    PetscCall(VecPointwiseMult(x, x, p->vol));
  } else PetscCall(p->ops.solvetranspose(p, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Fill the ghost layer of the non-periodic faces of a local array by the boundary closure:
   x_ghost = +x_boundary (Neumann) or -x_boundary (Dirichlet). Periodic ghosts come from the DMDA. */
static PetscErrorCode FGPoissonFillGhosts_Private(FGPoisson p, PetscScalar *xa)
{
  const FGGrid g = p->grid;
  const FGBox *b = &g->box;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < g->dim; d++) {
    for (PetscInt f = 0; f < 2; f++) {
      PetscInt  lo[3], hi[3], off;
      PetscReal sign;

      if (p->bc[d][f] == FG_PBC_PERIODIC) continue;
      if (f == FG_FACE_LO && b->lo[d] != 0) continue;
      if (f == FG_FACE_HI && b->hi[d] != g->n[d]) continue;
      sign = p->bc[d][f] == FG_PBC_NEUMANN ? 1.0 : -1.0;
      off  = f == FG_FACE_LO ? -b->s[d] : b->s[d];
      for (PetscInt e = 0; e < 3; e++) lo[e] = b->lo[e], hi[e] = b->hi[e];
      lo[d] = f == FG_FACE_LO ? 0 : g->n[d] - 1;
      hi[d] = lo[d] + 1;
      for (PetscInt k = lo[2]; k < hi[2]; k++)
        for (PetscInt j = lo[1]; j < hi[1]; j++)
          for (PetscInt i = lo[0]; i < hi[0]; i++) {
            const PetscInt c = FGBoxIndex(b, i, j, k);
            xa[c + off]      = sign * xa[c];
          }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGPoissonApply - y = L x, the discrete Laplacian with the boundary closure (matrix-free).

  Collective.

  Input Parameters:
+ p - the solver (its grid and boundary kinds; no set-up needed)
- x - a global Vec of the grid's DMDA

  Output Parameter:
. y - L x (may be the same Vec as x)

  Notes:
  $(Lx)_c = \sum_d (x_{c+e_d} - 2x_c + x_{c-e_d})/h_d^2$ with the ghosts of FGPoissonFillGhosts_Private().

.seealso: FGPoissonSolve()
@*/
PetscErrorCode FGPoissonApply(FGPoisson p, Vec x, Vec y)
{
  const FGGrid g = p->grid;
  const FGBox *b = &g->box;
  Vec                xl;
  PetscScalar       *xa, *ya;
  const PetscScalar *w[3];
  PetscReal    ih2[3] = {0, 0, 0}, diag = 0;
  PetscInt     nx     = b->hi[0] - b->lo[0];

  PetscFunctionBeginUser;
  PetscCheck(!p->Wm[0], g->comm, PETSC_ERR_SUP, "FGPoissonApply: the face operator (FGPoissonSetFaceOperator) is not included; use FGPoissonSolve");
  PetscCall(PetscLogEventBegin(FG_EVENT_PoissonApply, 0, 0, 0, 0));
  for (PetscInt d = 0; d < g->dim; d++) {
    ih2[d] = 1.0 / (g->h[d] * g->h[d]);
    diag += 2.0 * ih2[d];
  }
  PetscCall(DMGetLocalVector(g->da, &xl));
  PetscCall(DMGlobalToLocalBegin(g->da, x, INSERT_VALUES, xl));
  PetscCall(DMGlobalToLocalEnd(g->da, x, INSERT_VALUES, xl));
  PetscCall(VecGetArray(xl, &xa));
  PetscCall(FGPoissonFillGhosts_Private(p, xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  PetscCall(FGPoissonFaceWeightsGet_Private(p, w));
  {
    const PetscInt sy = b->s[1], sz = b->s[2];
    for (PetscInt k = b->lo[2]; k < b->hi[2]; k++) {
      for (PetscInt j = b->lo[1]; j < b->hi[1]; j++) {
        const PetscScalar *xc = xa + FGBoxIndex(b, b->lo[0], j, k);
        PetscScalar       *yc = ya + FGBoxOwnedIndex(b, b->lo[0], j, k);
        if (p->wl[0]) { /* face weights: the general form, each face's term times its weight */
          const PetscInt s[3] = {1, sy, sz};
          for (PetscInt i = 0; i < nx; i++) {
            const PetscInt c[3] = {b->lo[0] + i, j, k};
            PetscReal      sum  = 0;
            for (PetscInt d = 0; d < g->dim; d++) {
              const FGAxis *ax = &g->ax[d];
              PetscInt      fm[3] = {c[0], c[1], c[2]};
              fm[d]--;
              sum += ax->idxf[c[d]] * (FGPoissonFaceWeight_Private(p, w, d, c) * ax->idxc[c[d]] * (xc[i + s[d]] - xc[i]) - FGPoissonFaceWeight_Private(p, w, d, fm) * ax->idxc[c[d] - 1] * (xc[i] - xc[i - s[d]]));
            }
            yc[i] = sum;
          }
        } else if (!g->isuniform) {
          const PetscInt s[3] = {1, sy, sz}, t0[3] = {b->lo[0], j, k};
          for (PetscInt i = 0; i < nx; i++) {
            PetscReal sum = 0;
            for (PetscInt d = 0; d < g->dim; d++) {
              const FGAxis  *ax = &g->ax[d];
              const PetscInt t  = d == 0 ? t0[0] + i : t0[d];
              sum += ax->idxf[t] * (ax->idxc[t] * (xc[i + s[d]] - xc[i]) - ax->idxc[t - 1] * (xc[i] - xc[i - s[d]]));
            }
            yc[i] = sum;
          }
        } else if (g->dim == 2) {
          for (PetscInt i = 0; i < nx; i++) yc[i] = ih2[0] * (xc[i - 1] + xc[i + 1]) + ih2[1] * (xc[i - sy] + xc[i + sy]) - diag * xc[i];
        } else {
          for (PetscInt i = 0; i < nx; i++) yc[i] = ih2[0] * (xc[i - 1] + xc[i + 1]) + ih2[1] * (xc[i - sy] + xc[i + sy]) + ih2[2] * (xc[i - sz] + xc[i + sz]) - diag * xc[i];
        }
      }
    }
  }
  PetscCall(FGPoissonFaceWeightsRestore_Private(p, w));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArray(xl, &xa));
  PetscCall(DMRestoreLocalVector(g->da, &xl));
  {
    PetscInt nloc = 1;
    for (PetscInt d = 0; d < g->dim; d++) nloc *= b->hi[d] - b->lo[d];
    PetscCall(PetscLogFlops((PetscLogDouble)nloc * (3.0 * (PetscLogDouble)g->dim + 1.0)));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_PoissonApply, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGPoissonSetFaceWeights - scale the coupling across each interior face by a weight: the operator
  becomes D W G (the header). wl[d]: the weights of the faces normal to d, a local (ghosted) Vec
  of the grid's DMDA laid out like the velocity component d (face i at the upper side of cell i),
  its ghosts filled; NULL: no weights. The solver keeps a reference; after changing the values,
  set them again (the operator is assembled again at the next solve).

  Collective.

  Notes:
  Only FG_POISSON_KSP takes weights (FG_ERR_INPUT for the FFTW solver, whose transforms need the
  constant coefficients); the weights must be > 0 somewhere around every cell and are not
  checked.
@*/
PetscErrorCode FGPoissonSetFaceWeights(FGPoisson p, Vec wl[])
{
  PetscFunctionBeginUser;
  PetscCheck(!wl || p->type == FG_POISSON_KSP, p->grid->comm, FG_ERR_INPUT, "the pressure Poisson solver's face weights (a sharp wall's apertures) need poisson.type: ksp; the FFTW solver takes constant coefficients only");
  for (PetscInt d = 0; d < 3; d++) {
    if (wl && d < p->grid->dim) PetscCall(PetscObjectReference((PetscObject)wl[d]));
    PetscCall(VecDestroy(&p->wl[d]));
    p->wl[d] = wl && d < p->grid->dim ? wl[d] : NULL;
  }
  p->wdirty = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGPoissonSetFaceOperator - a sparse operator on the faces in the continuity (a sharp wall's
  line-flux continuity, src/body/lineflux.c): the operator becomes D W M^-1 W^T M G, W = I + Wm,
  M the faces' volumes (area times the distance of the centres across), so that the projection's
  correction M^-1 W^T M G phi makes D W u zero and the operator stays symmetric. Wm[d]: W - I on
  the faces normal to d, a square AIJ matrix on the grid's global layout (face i at the upper side
  of cell i), nonzero on interior faces only; NULL: none. Replaces the face weights
  (FGPoissonSetFaceWeights). The solver keeps a reference; the operator is assembled again at the
  next solve.

  Collective.

  Notes:
  Only FG_POISSON_KSP takes it (FG_ERR_INPUT for the FFTW solver); FGPoissonApply does not
  include it (PETSC_ERR_SUP).
@*/
PetscErrorCode FGPoissonSetFaceOperator(FGPoisson p, Mat Wm[])
{
  PetscFunctionBeginUser;
  PetscCheck(!Wm || p->type == FG_POISSON_KSP, p->grid->comm, FG_ERR_INPUT, "the pressure Poisson solver's face operator (a sharp wall's line-flux continuity) needs poisson.type: ksp; the FFTW solver takes constant coefficients only");
  if (Wm) PetscCall(FGPoissonSetFaceWeights(p, NULL));
  for (PetscInt d = 0; d < 3; d++) {
    if (Wm && d < p->grid->dim) PetscCall(PetscObjectReference((PetscObject)Wm[d]));
    PetscCall(MatDestroy(&p->Wm[d]));
    p->Wm[d] = Wm && d < p->grid->dim ? Wm[d] : NULL;
  }
  p->wdirty = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGPoissonFaceWeightsGet_Private(FGPoisson p, const PetscScalar *w[3])
{
  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++) {
    w[d] = NULL;
    if (p->wl[d]) PetscCall(VecGetArrayRead(p->wl[d], &w[d]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGPoissonFaceWeightsRestore_Private(FGPoisson p, const PetscScalar *w[3])
{
  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++)
    if (p->wl[d]) PetscCall(VecRestoreArrayRead(p->wl[d], &w[d]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscReal FGPoissonFaceWeight_Private(FGPoisson p, const PetscScalar *const w[3], PetscInt d, const PetscInt fi[])
{
  if (!w[d]) return 1.0;
  if (!p->grid->periodic[d] && (fi[d] < 0 || fi[d] >= p->grid->n[d] - 1)) return 1.0; /* a face on the domain's boundary (a periodic seam's is a ghost) */
  return PetscRealPart(w[d][FGBoxIndex(&p->grid->box, fi[0], fi[1], fi[2])]);
}

/* Subtract the mean over all cells (the projection onto the range of a singular L). */
PetscErrorCode FGPoissonRemoveMean_Private(FGPoisson p, Vec v)
{
  PetscScalar sum;
  PetscReal   ncell = (PetscReal)p->grid->n[0] * (PetscReal)p->grid->n[1] * (PetscReal)p->grid->n[2];

  PetscFunctionBeginUser;
  PetscCall(VecSum(v, &sum));
  PetscCall(VecShift(v, -sum / ncell));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGPoissonIsSingular - whether L is singular (no Dirichlet face): then solutions have zero mean.
@*/
PetscErrorCode FGPoissonIsSingular(FGPoisson p, PetscBool *singular)
{
  PetscFunctionBeginUser;
  *singular = p->singular;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGPoissonGetIterations - KSP iterations of the last solve (0 for the direct FFTW solver).
@*/
PetscErrorCode FGPoissonGetIterations(FGPoisson p, PetscInt *its)
{
  PetscFunctionBeginUser;
  *its = p->its;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGPoissonDestroy - free the solver (FFTW plans and buffers, or matrix and KSP).

  Collective.
@*/
PetscErrorCode FGPoissonDestroy(FGPoisson *p)
{
  PetscFunctionBeginUser;
  if (!*p) PetscFunctionReturn(PETSC_SUCCESS);
  if ((*p)->ops.destroy) PetscCall((*p)->ops.destroy(*p));
  PetscCall(VecDestroy(&(*p)->vol));
  PetscCall(VecDestroy(&(*p)->work));
  for (PetscInt d = 0; d < 3; d++) PetscCall(VecDestroy(&(*p)->wl[d]));
  for (PetscInt d = 0; d < 3; d++) PetscCall(MatDestroy(&(*p)->Wm[d]));
  PetscCall(PetscFree(*p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGPoissonBCFromCase - the pressure boundary kinds that go with the velocity boundary kinds of
  a case.

  Not collective.

  Input Parameter:
. c - the case

  Output Parameter:
. bc - bc[d][FG_FACE_LO|FG_FACE_HI]

  Notes:
  periodic -> periodic; wall, lid, slip, inflow (the normal velocity is prescribed, so the
  projection must not change it: dp/dn = 0) -> Neumann; outflow (the pressure level is fixed
  there) -> Dirichlet. In 2D the z entries are set to Neumann and are ignored. A direction
  periodic on one face only is FG_ERR_INPUT.

.seealso: FGPoissonCreate()
@*/
PetscErrorCode FGPoissonBCFromCase(const FGCase *c, FGPoissonBC bc[3][2])
{
  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++) {
    for (PetscInt f = 0; f < 2; f++) {
      if (d >= c->grid.dim) {
        bc[d][f] = FG_PBC_NEUMANN;
        continue;
      }
      switch (c->boundary[d][f].kind) {
      case FG_BC_PERIODIC:
        bc[d][f] = FG_PBC_PERIODIC;
        break;
      case FG_BC_WALL:
      case FG_BC_LID:
      case FG_BC_SLIP:
      case FG_BC_INFLOW:
        bc[d][f] = FG_PBC_NEUMANN;
        break;
      case FG_BC_OUTFLOW:
        bc[d][f] = FG_PBC_DIRICHLET;
        break;
      default:
        SETERRQ(PETSC_COMM_SELF, FG_ERR_INPUT, "Poisson: unknown boundary kind %d on the %s %c face", (int)c->boundary[d][f].kind, f ? "upper" : "lower", "xyz"[d]);
      }
    }
    if (d < c->grid.dim) PetscCheck((bc[d][0] == FG_PBC_PERIODIC) == (bc[d][1] == FG_PBC_PERIODIC), PETSC_COMM_SELF, FG_ERR_INPUT, "Poisson: direction %c is periodic on one face only", "xyz"[d]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
