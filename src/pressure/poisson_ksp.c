/*
  Iterative pressure Poisson solver: PETSc KSP on the assembled operator (any decomposition).

  The matrix is $A = -L$, symmetric positive (semi-)definite:

  $$ A_{cc} = \sum_d \frac{2}{h_d^2} - \sum_{\text{faces } f \text{ of } c \text{ on the boundary}}
     \frac{\sigma_f}{h_{d(f)}^2}, \qquad A_{c,c\pm e_d} = -\frac{1}{h_d^2}, $$

  where the ghost closure $x_{ghost} = \sigma_f x_c$ ($\sigma = +1$ Neumann, $-1$ Dirichlet) is
  folded into the diagonal and periodic neighbours wrap around (MatSetValuesStencil on a
  periodic DMDA). We solve $A x = -b$.

  Without a Dirichlet face $A$ is singular with the constants as null space: the matrix carries
  the constant null space (MatSetNullSpace and MatSetTransposeNullSpace), the mean of b is
  removed before the solve (the projection of b onto the range of A) and the mean of x after,
  so the result is $x = L^+ b$ like the FFTW path's, up to the tolerance.

  Defaults: CG + GAMG (smoothed aggregation, Chebyshev/Jacobi smoothers), the convergence test on
  the *unpreconditioned* residual (so rtol means ||b - A x|| <= rtol ||b||), rtol 1e-10,
  atol 1e-50, max_it 500, zero initial guess. GAMG is the default rather than hypre BoomerAMG
  (-poisson_pc_type hypre): measured here (bench/poisson.sh, 2 cores, Release, all-Neumann,
  rtol 1e-10) CG+GAMG took 3.3 s per 128^3 solve against 5.0 s for CG+BoomerAMG (1 rank; 2.7 vs
  4.2 s on 2), while BoomerAMG was faster in 2D 1024^2 (0.95 vs 1.5 s; 0.63 vs 0.83 s on 2);
  above all, BoomerAMG's transpose through PETSc 3.18 returns zero, so KSPSolveTranspose
  "converges" at once to x = 0 (caught below, FG_ERR_NUMERIC), and the adjoint needs the
  transpose. GAMG's other settings were left at PETSc's defaults (SOR smoothing, a threshold, or
  unsmoothed aggregation were all slower), except in 2D on cells longer than 3:1 (the aspect ratio
  of a grid stretched along both axes), where GAMG gets the threshold 0.05. Measured (1 core, a
  NACA 0012 grid refined in x and y near its trailing edge, 13 solves): at aspect ratio 16,
  63 -> 20 iterations per solve and 4.4 -> 1.7 s; at 4, 26 -> 18 and 2.5 -> 2.1 s; at 2, 18
  either way and 2.9 -> 3.5 s, and at 2.4 (bench/poisson.sh's tanh grid, 1024^2) 3.82 -> 3.84 s,
  so not there; on square cells 2D 1024^2 the same time, 3D 96^3 1.8x slower; on a 3D grid
  stretched along every axis (aspect 8) half the iterations at 1.7x the time, so 3D keeps PETSc's
  default. Everything can be changed from the options database
  with the prefix "poisson_" (-poisson_ksp_type, -poisson_pc_type,
  -poisson_ksp_monitor, -poisson_ksp_rtol, ...): KSPSetFromOptions() runs after the defaults.

  After every solve KSPGetConvergedReason() is checked, and the true residual with a loose bound
  (one MatMult): a solve that did not converge is FG_ERR_NUMERIC, never a silently wrong
  pressure. The attainable relative residual is limited by rounding (about 4e-14 on a 24^2
  grid, more on finer ones): below that, CG stagnates and then diverges, so an rtol under
  ~1e-13 ends in FG_ERR_NUMERIC. SolveTranspose runs KSPSolveTranspose (the transpose null space
  is set too), i.e. the transpose of the preconditioned iteration.

  The matrix lives on a private star-stencil DMDA with the grid's ownership ranges (the grid's
  DMDA has a box stencil, whose preallocation would store 9 or 27 entries per row); its Vecs
  have exactly the grid's layout.

  Face weights (FGPoissonSetFaceWeights) scale each interior face's coupling; the matrix is
  assembled again at the first solve after they are set, and KSPSetOperators makes the
  preconditioner follow. A face operator (FGPoissonSetFaceOperator: a sharp wall's line flux)
  adds G^T M R G, R = W M^-1 W^T M - I, formed by PETSc's sparse products (MatTranspose,
  MatMatMult, MatPtAP) from W - I and the faces' gradient G: nonzero on the faces near the bodies
  only, it widens their cells' rows (a face reads the next two along its line) and keeps the matrix
  symmetric, so CG and GAMG still apply. Measured on Schäfer-Turek 2D-1 at D/20 (1 core, the
  steady adjoint): 49 s against 35 s with the apertures, from more Krylov iterations; forming the
  products costs 0.04 s a design.
*/
#include "poissonimpl.h"
#include <petscksp.h>

#define FG_POISSON_GAMG_ASPECT 3.0

typedef struct {
  DM           da;  /* star stencil, same layout as the grid's DMDA */
  Mat          A0;  /* -L as the grid's stencil assembles it (the face weights included) */
  Mat          A;   /* -L: A0, or A0 plus the face operator's part (FGPoissonSetFaceOperator) */
  KSP          ksp; /* prefix poisson_ */
  MatNullSpace nsp; /* constants, when singular */
  Vec          rhs; /* work: -(b - mean b) */
  Vec          res; /* work: the true residual */
} FGPoisson_KSP;

/* Assemble A = -L row by row (on a stretched grid A = -V L, V the cell volumes: symmetric, with
   the coupling of two cells across a face its area over the distance of their centres);
   ADD_VALUES so that a periodic direction of one or two cells (where the two neighbours
   coincide, or are the cell itself) still gets the right entries. */
static PetscErrorCode FGPoissonKSPAssemble_Private(FGPoisson p, Mat A)
{
  const FGGrid g = p->grid;
  const FGBox       *b = &g->box;
  PetscReal          ih2[3] = {0, 0, 0};
  const PetscScalar *wa[3]; /* the face weights' arrays (FGPoissonSetFaceWeights) */

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < g->dim; d++) ih2[d] = 1.0 / (g->h[d] * g->h[d]);
  PetscCall(FGPoissonFaceWeightsGet_Private(p, wa));
  for (PetscInt k = b->lo[2]; k < b->hi[2]; k++) {
    for (PetscInt j = b->lo[1]; j < b->hi[1]; j++) {
      for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) {
        const PetscInt c[3] = {i, j, k};
        MatStencil     row  = {.k = k, .j = j, .i = i, .c = 0}, col[7];
        PetscScalar    v[7];
        PetscInt       nc   = 1;

        col[0] = row;
        v[0]   = 0;
        for (PetscInt d = 0; d < g->dim; d++) {
          for (PetscInt f = 0; f < 2; f++) {
            const PetscInt nb       = c[d] + (f ? 1 : -1);
            const PetscBool outside = (PetscBool)(nb < 0 || nb >= g->n[d]);
            PetscReal       w       = ih2[d];
            if (!g->isuniform) { /* V idxc idxf_d = (the other widths) / dxc_d */
              w = g->ax[d].idxc[f ? c[d] : c[d] - 1];
              for (PetscInt e = 0; e < g->dim; e++)
                if (e != d) w *= g->ax[e].dxf[c[e]];
            }
            if (p->wl[d] && (!outside || p->bc[d][f] == FG_PBC_PERIODIC)) { /* the face's weight (FGPoissonSetFaceWeights; a periodic seam's too) */
              PetscInt fi[3] = {c[0], c[1], c[2]};
              if (!f) fi[d]--;
              w *= FGPoissonFaceWeight_Private(p, wa, d, fi);
            }
            v[0] += w;
            if (outside && p->bc[d][f] != FG_PBC_PERIODIC) {
              v[0] -= (p->bc[d][f] == FG_PBC_NEUMANN ? 1.0 : -1.0) * w; /* ghost = +-x_c */
              continue;
            }
            col[nc]                            = row;
            if (d == 0) col[nc].i = nb;
            else if (d == 1) col[nc].j = nb;
            else col[nc].k = nb;
            v[nc++] = -w;
          }
        }
        PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, ADD_VALUES));
      }
    }
  }
  PetscCall(FGPoissonFaceWeightsRestore_Private(p, wa));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The face operator's part (FGPoissonSetFaceOperator): with R = W M^-1 W^T M - I, A gains
   G^T M R G (on a uniform grid M is one number per component and cancels: G^T R G). With X = M Wm,
   M R = X + X^T + X M^-1 X^T: symmetric, nonzero on the faces near the bodies only. G: the faces'
   gradient (rows: the owned interior faces). *Aop = A0 + that part, made again. */
static PetscErrorCode FGPoissonKSPFaceOperator_Private(FGPoisson p, Mat A0, Mat *Aop)
{
  const FGGrid g = p->grid;
  const FGBox *b = &g->box;
  PetscInt     nloc, N;

  PetscFunctionBeginUser;
  PetscCall(MatDestroy(Aop));
  PetscCall(MatDuplicate(A0, MAT_COPY_VALUES, Aop));
  PetscCall(MatGetLocalSize(A0, &nloc, NULL));
  PetscCall(MatGetSize(A0, &N, NULL));
  for (PetscInt d = 0; d < g->dim; d++) {
    Mat          X, Xt, Z, S, G, Add;
    Vec          M = NULL, Mi = NULL;
    PetscScalar *m = NULL;
    if (!g->isuniform) {
      PetscCall(MatCreateVecs(p->Wm[d], &M, NULL));
      PetscCall(VecSet(M, 1.0));
      PetscCall(VecGetArray(M, &m));
    }
    PetscCall(MatCreateAIJ(g->comm, nloc, nloc, N, N, 2, NULL, 1, NULL, &G));
    for (PetscInt k = b->lo[2]; k < b->hi[2]; k++)
      for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
        for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) {
          const PetscInt f[3] = {i, j, k};
          PetscInt       u[3] = {i, j, k}, row, col[2];
          PetscScalar    v[2];
          PetscReal      idist = g->isuniform ? 1.0 / g->h[d] : g->ax[d].idxc[f[d]];
          u[d]++;
          if (!g->periodic[d] && u[d] >= g->n[d]) continue; /* a boundary face: no row */
          row = FGGridGlobalIndex(g, f), col[0] = row, col[1] = FGGridGlobalIndex(g, u);
          v[0] = -idist, v[1] = idist;
          PetscCall(MatSetValues(G, 1, &row, 2, col, v, ADD_VALUES));
          if (m) m[FGBoxOwnedIndex(b, i, j, k)] = FGGridVolume(g, (FGLocation)(FG_LOC_FACE_X + d), f); /* the face's volume: its area times the distance of the centres across */
        }
    PetscCall(MatAssemblyBegin(G, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(G, MAT_FINAL_ASSEMBLY));
    PetscCall(MatDuplicate(p->Wm[d], MAT_COPY_VALUES, &X));
    if (M) {
      PetscCall(VecRestoreArray(M, &m));
      PetscCall(VecDuplicate(M, &Mi));
      PetscCall(VecCopy(M, Mi));
      PetscCall(VecReciprocal(Mi));
      PetscCall(MatDiagonalScale(X, M, NULL));
    }
    PetscCall(MatTranspose(X, MAT_INITIAL_MATRIX, &Xt));
    PetscCall(MatDuplicate(Xt, MAT_COPY_VALUES, &Z));
    if (Mi) PetscCall(MatDiagonalScale(Z, Mi, NULL));
    PetscCall(MatMatMult(X, Z, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &S)); /* X M^-1 X^T */
    PetscCall(MatAXPY(S, 1.0, X, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatAXPY(S, 1.0, Xt, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatPtAP(S, G, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Add));
    PetscCall(MatAXPY(*Aop, 1.0, Add, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&Add));
    PetscCall(MatDestroy(&S));
    PetscCall(MatDestroy(&Z));
    PetscCall(MatDestroy(&Xt));
    PetscCall(MatDestroy(&X));
    PetscCall(MatDestroy(&G));
    PetscCall(VecDestroy(&M));
    PetscCall(VecDestroy(&Mi));
  }
  PetscCall(MatSetOption(*Aop, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*Aop, MAT_SPD, p->singular ? PETSC_FALSE : PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Assemble the operator from the grid, the face weights and the face operator into k->A0 and
   k->A (the null space follows). */
static PetscErrorCode FGPoissonKSPOperator_Private(FGPoisson p)
{
  FGPoisson_KSP *k = (FGPoisson_KSP *)p->data;

  PetscFunctionBeginUser;
  PetscCall(MatZeroEntries(k->A0));
  PetscCall(FGPoissonKSPAssemble_Private(p, k->A0));
  if (p->Wm[0]) PetscCall(FGPoissonKSPFaceOperator_Private(p, k->A0, &k->A));
  else {
    PetscCall(PetscObjectReference((PetscObject)k->A0));
    PetscCall(MatDestroy(&k->A));
    k->A = k->A0;
  }
  if (k->nsp) {
    PetscCall(MatSetNullSpace(k->A, k->nsp));
    PetscCall(MatSetTransposeNullSpace(k->A, k->nsp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGPoissonSetTolerances_KSP(FGPoisson p)
{
  FGPoisson_KSP *k = (FGPoisson_KSP *)p->data;

  PetscFunctionBeginUser;
  PetscCall(KSPSetTolerances(k->ksp, p->rtol, 1e-50, PETSC_DEFAULT, p->max_it));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The largest aspect ratio of the grid's cells: on a tensor grid every pair of widths meets in
   some cell, so it is the largest width along one axis over the smallest along another. */
static PetscReal FGPoissonAspect_Private(FGGrid g)
{
  PetscReal lo[3], hi[3], a = 1;

  for (PetscInt d = 0; d < g->dim; d++) {
    lo[d] = hi[d] = g->h[d];
    if (g->uniform[d]) continue;
    lo[d] = PETSC_MAX_REAL, hi[d] = 0;
    for (PetscInt i = 0; i < g->n[d]; i++) lo[d] = PetscMin(lo[d], g->ax[d].dxf[i]), hi[d] = PetscMax(hi[d], g->ax[d].dxf[i]);
  }
  for (PetscInt d = 0; d < g->dim; d++)
    for (PetscInt e = 0; e < g->dim; e++)
      if (e != d) a = PetscMax(a, hi[d] / lo[e]);
  return a;
}

static PetscErrorCode FGPoissonSetUp_KSP(FGPoisson p)
{
  FGPoisson_KSP *k = (FGPoisson_KSP *)p->data;
  PC             pc;

  PetscFunctionBeginUser;
  PetscCall(FGGridCreateStarDM(p->grid, "poisson_", &k->da));
  PetscCall(DMDASetInterpolationType(k->da, DMDA_Q0)); /* cell-centred: -poisson_pc_type mg coarsens by 2 with piecewise-constant transfers */
  PetscCall(DMCreateMatrix(k->da, &k->A0));
  PetscCall(MatSetOption(k->A0, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(k->A0, MAT_SPD, p->singular ? PETSC_FALSE : PETSC_TRUE));
  if (p->singular) PetscCall(MatNullSpaceCreate(p->grid->comm, PETSC_TRUE, 0, NULL, &k->nsp));
  PetscCall(FGPoissonKSPOperator_Private(p));
  p->wdirty = PETSC_FALSE;
  PetscCall(DMCreateGlobalVector(k->da, &k->rhs));
  PetscCall(VecDuplicate(k->rhs, &k->res));

  PetscCall(KSPCreate(p->grid->comm, &k->ksp));
  PetscCall(KSPSetOptionsPrefix(k->ksp, "poisson_"));
  PetscCall(KSPSetDM(k->ksp, k->da)); /* lets -poisson_pc_type mg coarsen geometrically */
  PetscCall(KSPSetDMActive(k->ksp, PETSC_FALSE));
  PetscCall(KSPSetOperators(k->ksp, k->A, k->A));
  PetscCall(KSPSetType(k->ksp, KSPCG));
  PetscCall(KSPSetNormType(k->ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPGetPC(k->ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  { /* GAMG's threshold in 2D where cells are longer than 3:1 (measured: see above) */
    const PetscReal aspect = FGPoissonAspect_Private(p->grid);
    if (p->grid->dim == 2 && aspect > FG_POISSON_GAMG_ASPECT) {
      PetscReal th = 0.05;
      PetscCall(PCGAMGSetThreshold(pc, &th, 1));
      PetscCall(PetscInfo(pc, "%" PetscInt_FMT "D cells up to %.2f:1: GAMG threshold %g (-poisson_pc_gamg_threshold)\n", p->grid->dim, (double)aspect, (double)th));
    } else PetscCall(PetscInfo(pc, "%" PetscInt_FMT "D cells up to %.2f:1: GAMG with PETSc's default threshold\n", p->grid->dim, (double)aspect));
  }
  PetscCall(FGPoissonSetTolerances_KSP(p));
  PetscCall(KSPSetFromOptions(k->ksp));
  PetscCall(FGKSPCheckOptions(k->ksp));
  { /* -poisson_pc_type mg coarsens the DMDA by 2 per level (Q0 transfers need the fine cells a whole
       multiple of the coarse ones): say so in one line rather than let DMCreateInterpolation fail */
    PetscBool ismg;
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCMG, &ismg));
    if (ismg) {
      PetscInt         nl;
      PCMGGalerkinType gal;
      PetscCall(PCMGGetLevels(pc, &nl));
      PetscCall(PCMGGetGalerkin(pc, &gal));
      PetscCheck(nl <= 1 || gal != PC_MG_GALERKIN_NONE, p->grid->comm, FG_ERR_INPUT, "-poisson_pc_type mg with %" PetscInt_FMT " levels: flowgrad assembles the finest operator only; add -poisson_pc_mg_galerkin both (the coarse ones from it)", nl);
      for (PetscInt d = 0; d < p->grid->dim && nl > 1; d++) {
        const PetscInt f = nl <= 30 ? (PetscInt)1 << (nl - 1) : PETSC_MAX_INT;
        PetscCheck(p->grid->n[d] % f == 0, p->grid->comm, FG_ERR_INPUT, "-poisson_pc_mg_levels %" PetscInt_FMT ": the geometric multigrid halves the cells %" PetscInt_FMT " times, so the cells along each direction must be a multiple of %" PetscInt_FMT " (%c has %" PetscInt_FMT "); use fewer levels or the default GAMG",
                   nl, nl - 1, f, "xyz"[d], p->grid->n[d]);
      }
    }
  }
  PetscCall(KSPSetUp(k->ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Check the outcome of a KSP solve: anything but convergence is FG_ERR_NUMERIC. KSP's own test
   can be fooled: a preconditioner whose transpose returns zero (hypre's BoomerAMG through PETSc
   3.18 does) makes CG stop at once with CONVERGED_ATOL and x = 0. So the true residual
   ||rhs - A x|| (A^T for the transpose) is checked too, with a loose bound,
   max(100 rtol, 1e-8) ||rhs|| (rtol as KSP has it, after -poisson_ksp_rtol), that only catches such gross failures (rounding and a
   preconditioned norm type stay well inside it); it costs one MatMult per solve. */
static PetscErrorCode FGPoissonKSPCheck_Private(FGPoisson p, Vec x, PetscBool transpose, KSPConvergedReason reason)
{
  FGPoisson_KSP *k    = (FGPoisson_KSP *)p->data;
  const char    *what = transpose ? " transpose" : "";
  PetscReal      rnorm, bnorm, tnorm, bound, rtol;
  PetscInt       maxit;

  PetscFunctionBeginUser;
  PetscCall(KSPGetTolerances(k->ksp, &rtol, NULL, NULL, &maxit)); /* as set, -poisson_ksp_rtol included */
  PetscCall(VecNorm(k->rhs, NORM_2, &bnorm));
  if (transpose) PetscCall(MatMultTranspose(k->A, x, k->res));
  else PetscCall(MatMult(k->A, x, k->res));
  PetscCall(VecAYPX(k->res, -1.0, k->rhs));
  PetscCall(VecNorm(k->res, NORM_2, &tnorm));
  bound = PetscMax(100 * rtol, 1e-8) * bnorm;
  if (reason > 0 && tnorm <= bound) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetResidualNorm(k->ksp, &rnorm));
  if (reason > 0)
    SETERRQ(p->grid->comm, FG_ERR_NUMERIC, "pressure Poisson (KSP%s) reported %s after %" PetscInt_FMT " iterations, but the true residual is %g relative (bound %g): a wrong answer, refused; the preconditioner (-poisson_pc_type) may not support this solve%s", what, KSPConvergedReasons[reason], p->its,
            (double)(bnorm > 0 ? tnorm / bnorm : tnorm), (double)(bnorm > 0 ? bound / bnorm : bound), transpose ? " (its transpose)" : "");
  SETERRQ(p->grid->comm, FG_ERR_NUMERIC, "pressure Poisson (KSP%s) did not converge: reason %s after %" PetscInt_FMT " iterations, residual %g (relative %g; rtol %g, max_it %" PetscInt_FMT "); try -poisson_ksp_max_it or another -poisson_pc_type", what, KSPConvergedReasons[reason], p->its, (double)rnorm,
          (double)(bnorm > 0 ? rnorm / bnorm : rnorm), (double)rtol, maxit);
}

/* x = A^{-1} (-b), or for singular A: x = P A^+ P (-b), P the removal of the mean; on a
   stretched grid -V b for -b (poisson.c applies the transpose as V S V^{-1}). */
static PetscErrorCode FGPoissonSolveAny_KSP(FGPoisson p, Vec b, Vec x, PetscBool transpose)
{
  FGPoisson_KSP     *k = (FGPoisson_KSP *)p->data;
  KSPConvergedReason reason;

  PetscFunctionBeginUser;
  if (p->wdirty) { /* the face weights were set: assemble again (the preconditioner follows) */
    PetscCall(FGPoissonKSPOperator_Private(p));
    PetscCall(KSPSetOperators(k->ksp, k->A, k->A));
    p->wdirty = PETSC_FALSE;
  }
  PetscCall(PetscLogEventBegin(FG_EVENT_PoissonSolveKSP, b, x, 0, 0));
  PetscCall(VecCopy(b, k->rhs)); /* b may be x */
  PetscCall(VecScale(k->rhs, -1.0));
  if (p->vol) PetscCall(VecPointwiseMult(k->rhs, k->rhs, p->vol));
  if (p->singular) PetscCall(FGPoissonRemoveMean_Private(p, k->rhs));
  if (transpose) PetscCall(KSPSolveTranspose(k->ksp, k->rhs, x));
  else PetscCall(KSPSolve(k->ksp, k->rhs, x));
  PetscCall(KSPGetConvergedReason(k->ksp, &reason));
  PetscCall(KSPGetIterationNumber(k->ksp, &p->its));
  PetscCall(PetscLogEventEnd(FG_EVENT_PoissonSolveKSP, b, x, 0, 0));
  PetscCall(FGPoissonKSPCheck_Private(p, x, transpose, reason));
  if (p->singular) PetscCall(FGPoissonRemoveMean_Private(p, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGPoissonSolve_KSP(FGPoisson p, Vec b, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(FGPoissonSolveAny_KSP(p, b, x, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGPoissonSolveTranspose_KSP(FGPoisson p, Vec b, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(FGPoissonSolveAny_KSP(p, b, x, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGPoissonDestroy_KSP(FGPoisson p)
{
  FGPoisson_KSP *k = (FGPoisson_KSP *)p->data;

  PetscFunctionBeginUser;
  PetscCall(KSPDestroy(&k->ksp));
  PetscCall(MatNullSpaceDestroy(&k->nsp));
  PetscCall(MatDestroy(&k->A));
  PetscCall(MatDestroy(&k->A0));
  PetscCall(VecDestroy(&k->rhs));
  PetscCall(VecDestroy(&k->res));
  PetscCall(DMDestroy(&k->da));
  PetscCall(PetscFree(p->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGPoissonGetKSP - the KSP of a FG_POISSON_KSP solver (after FGPoissonSetUp()), for monitors or
  settings beyond the options database; NULL for the FFTW solver.

  Not collective.
@*/
PetscErrorCode FGPoissonGetKSP(FGPoisson p, KSP *ksp)
{
  PetscFunctionBeginUser;
  *ksp = (p->type == FG_POISSON_KSP && p->data) ? ((FGPoisson_KSP *)p->data)->ksp : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGPoissonCreate_KSP(FGPoisson p)
{
  FGPoisson_KSP *k;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&k));
  p->data               = k;
  p->ops.setup          = FGPoissonSetUp_KSP;
  p->ops.solve          = FGPoissonSolve_KSP;
  p->ops.solvetranspose = FGPoissonSolveTranspose_KSP;
  p->ops.settolerances  = FGPoissonSetTolerances_KSP;
  p->ops.destroy        = FGPoissonDestroy_KSP;
  PetscFunctionReturn(PETSC_SUCCESS);
}
