/*
  Properties of the forward operators on the MAC grid (2D and 3D, several boundary mixes):

  1. D G phi = L phi, with L the Poisson solver's operator (FGPoissonApply): the projection and
     the pressure solve use the same discrete Laplacian (walls: Neumann; outflow: Dirichlet).
  2. After u <- u - G L^{-1} D u:  max |D u| <= 1e-12 * max|u|/h.
  3. Energy conservation of the advection: <u, A(u)> = 0 (to 1e-12 relative) for a discretely
     divergence-free u with u.n = 0 on walls (periodic or no-slip walls at rest).
  4. The fused FGOpMomentum (the forward step's) equals VecSet(0) + FGOpAdvection + FGOpDiffusion
     on every owned face to 1e-14 relative (random u, H filled with garbage first); and its split
     form FGOpMomentumSplit (H = -A, R += c D) equals them term by term, R starting from a random
     field.

  The stretched cases repeat 1-4 on grids with smoothly stretched directions (tanh at walls, a
  periodic sine map where periodic): the pressure solve is the FFTW one with Thomas along a
  stretched slab direction, or KSP where other directions are stretched; the energy in 3 is
  weighted by the faces' control volumes. 5. (every case) the transpose of the Poisson solve:
  <S b1, b2> = <b1, S^T b2> to 1e-12, and S b solves L x = b to 1e-9 (KSP) / 1e-12 (FFTW).
*/
#include <fg/ops.h>
#include <fg/poisson.h>

typedef struct {
  const char *name;
  PetscInt    dim, n[3];
  FGBCKind    kind[3][2];
  PetscBool   stretch[3]; /* stretched directions */
  PetscBool   ksp;        /* the KSP Poisson solver (block decomposition) */
} OpsCase;

static PetscErrorCode SetUp(const OpsCase *oc, FGGrid *g, FGBoundary *bc, FGPoisson *ps)
{
  const PetscReal L[3] = {1.0, 1.3, 0.8};
  PetscBool       per[3];
  FGPoissonBC     pbc[3][2];

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(bc, sizeof(*bc)));
  for (PetscInt d = 0; d < 3; d++) {
    per[d] = (PetscBool)(oc->kind[d][0] == FG_BC_PERIODIC);
    for (PetscInt s = 0; s < 2; s++) {
      bc->kind[d][s] = d < oc->dim ? oc->kind[d][s] : FG_BC_PERIODIC;
      pbc[d][s]      = bc->kind[d][s] == FG_BC_PERIODIC ? FG_PBC_PERIODIC : (bc->kind[d][s] == FG_BC_OUTFLOW ? FG_PBC_DIRICHLET : FG_PBC_NEUMANN);
    }
  }
  bc->convective_speed = 1.0;
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, oc->dim, oc->n, L, NULL, per, oc->ksp ? FG_DECOMP_BLOCK : FG_DECOMP_SLAB, g));
  for (PetscInt d = 0; d < oc->dim; d++) {
    PetscReal *f;
    if (!oc->stretch[d]) continue;
    PetscCall(PetscMalloc1(oc->n[d] + 1, &f));
    if (per[d]) /* x = L (s - 0.3 sin(2 pi s)/(2 pi)): smooth and periodic */
      for (PetscInt i = 0; i <= oc->n[d]; i++) {
        const PetscReal sv = (PetscReal)i / (PetscReal)oc->n[d];
        f[i]               = L[d] * (sv - 0.3 * PetscSinReal(2 * PETSC_PI * sv) / (2 * PETSC_PI));
      }
    else PetscCall(FGStretchTanh(0.0, L[d], oc->n[d], 1.5, FG_CLUSTER_BOTH, f));
    PetscCall(FGGridSetFaces(*g, d, f));
    PetscCall(PetscFree(f));
  }
  PetscCall(FGPoissonCreate(*g, oc->ksp ? FG_POISSON_KSP : FG_POISSON_FFTW, (const FGPoissonBC(*)[2])pbc, ps));
  if (oc->ksp) PetscCall(FGPoissonSetTolerances(*ps, 1e-13, 2000));
  PetscCall(FGPoissonSetUp(*ps));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* random velocity on the unknown faces, prescribed faces zero */
static PetscErrorCode RandomVelocity(FGGrid g, const FGBoundary *bc, PetscRandom r, Vec u[])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecSetRandom(u[a], r));
    PetscCall(VecShift(u[a], -0.5));
  }
  PetscCall(FGOpSetBoundaryFaces(g, bc, 0.0, u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Fill(FGGrid g, const FGBoundary *bc, Vec u[], Vec ul[])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(DMGlobalToLocal(g->da, u[a], INSERT_VALUES, ul[a]));
  PetscCall(FGOpFillBoundary(g, bc, 0.0, ul));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunCase(const OpsCase *oc, PetscInt *fails)
{
  FGGrid      g;
  FGBoundary  bc;
  FGPoisson   ps;
  Vec         u[3], ul[3], A[3], phi, phil, div, Lphi;
  PetscRandom r;
  PetscReal   err, ref, umax = 0, hmin = 1e300, num = 0, den = 0;

  PetscFunctionBeginUser;
  PetscCall(SetUp(oc, &g, &bc, &ps));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &r));
  PetscCall(PetscRandomSetSeed(r, 7));
  PetscCall(PetscRandomSeed(r));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(DMCreateGlobalVector(g->da, &u[a]));
    PetscCall(DMCreateLocalVector(g->da, &ul[a]));
    PetscCall(VecDuplicate(u[a], &A[a]));
  }
  hmin = FGGridMinSpacing(g);
  PetscCall(DMCreateGlobalVector(g->da, &phi));
  PetscCall(VecDuplicate(phi, &div));
  PetscCall(VecDuplicate(phi, &Lphi));
  PetscCall(DMCreateLocalVector(g->da, &phil));

  /* 1. D G phi = L phi: take u = 0 on every face, u <- u - G phi, then D u = -D G phi */
  PetscCall(VecSetRandom(phi, r));
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecSet(u[a], 0.0));
  PetscCall(DMGlobalToLocal(g->da, phi, INSERT_VALUES, phil));
  PetscCall(FGOpGradientCorrect(g, &bc, -1.0, phil, u)); /* u = +G phi */
  PetscCall(Fill(g, &bc, u, ul));
  PetscCall(FGOpDivergence(g, ul, div));
  PetscCall(FGPoissonApply(ps, phi, Lphi));
  PetscCall(VecNorm(Lphi, NORM_INFINITY, &ref));
  PetscCall(VecAXPY(div, -1.0, Lphi));
  PetscCall(VecNorm(div, NORM_INFINITY, &err));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-28s |DG phi - L phi|/|L phi| = %.2e\n", oc->name, (double)(err / ref)));
  if (!(err <= 1e-12 * ref)) (*fails)++;

  /* 5. the transpose of the solve, and its residual */
  {
    Vec         b1, b2, x1, x2;
    PetscScalar d1, d2;
    PetscReal   rn, bn;
    PetscCall(VecDuplicate(phi, &b1));
    PetscCall(VecDuplicate(phi, &b2));
    PetscCall(VecDuplicate(phi, &x1));
    PetscCall(VecDuplicate(phi, &x2));
    PetscCall(VecSetRandom(b1, r));
    PetscCall(VecSetRandom(b2, r));
    PetscCall(FGPoissonSolve(ps, b1, x1));
    PetscCall(FGPoissonSolveTranspose(ps, b2, x2));
    PetscCall(VecDot(x1, b2, &d1));
    PetscCall(VecDot(b1, x2, &d2));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-28s |<S b1, b2> - <b1, S^T b2>| / |<S b1, b2>| = %.2e\n", oc->name, (double)(PetscAbsScalar(d1 - d2) / PetscAbsScalar(d1))));
    if (!(PetscAbsScalar(d1 - d2) <= (oc->ksp ? 1e-9 : 1e-12) * PetscAbsScalar(d1))) (*fails)++;
    /* S b1 solves L x = b1 up to the projection of b1 on the range: use a b in the range, L x2 */
    PetscCall(FGPoissonApply(ps, x1, b2));
    PetscCall(FGPoissonSolve(ps, b2, x2));
    PetscCall(FGPoissonApply(ps, x2, b1));
    PetscCall(VecAXPY(b1, -1.0, b2));
    PetscCall(VecNorm(b1, NORM_INFINITY, &rn));
    PetscCall(VecNorm(b2, NORM_INFINITY, &bn));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-28s |L S b - b| / |b| = %.2e (b in the range of L)\n", oc->name, (double)(rn / bn)));
    if (!(rn <= (oc->ksp ? 1e-9 : 1e-11) * bn)) (*fails)++;
    PetscCall(VecDestroy(&b1));
    PetscCall(VecDestroy(&b2));
    PetscCall(VecDestroy(&x1));
    PetscCall(VecDestroy(&x2));
  }

  /* 2. projection: u <- u - G L^{-1} D u */
  PetscCall(RandomVelocity(g, &bc, r, u));
  PetscCall(Fill(g, &bc, u, ul));
  PetscCall(FGOpDivergence(g, ul, div));
  PetscCall(FGPoissonSolve(ps, div, phi));
  PetscCall(DMGlobalToLocal(g->da, phi, INSERT_VALUES, phil));
  PetscCall(FGOpGradientCorrect(g, &bc, 1.0, phil, u));
  PetscCall(Fill(g, &bc, u, ul));
  PetscCall(FGOpDivergence(g, ul, div));
  PetscCall(VecNorm(div, NORM_INFINITY, &err));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscReal m;
    PetscCall(VecNorm(u[a], NORM_INFINITY, &m));
    umax = PetscMax(umax, m);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-28s max|D u| h/max|u| after projection = %.2e\n", oc->name, (double)(err * hmin / umax)));
  if (!(err * hmin / umax <= 1e-12)) (*fails)++;

  /* 3. <u, A(u)> = 0 for the divergence-free u (no outflow: energy flux through it) */
  PetscBool outflow = PETSC_FALSE;
  for (PetscInt d = 0; d < g->dim; d++) outflow = (PetscBool)(outflow || bc.kind[d][1] == FG_BC_OUTFLOW);
  if (!outflow) {
    for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecSet(A[a], 0.0));
    PetscCall(FGOpAdvection(g, &bc, ul, A)); /* A = -adv */
    for (PetscInt a = 0; a < g->dim; a++) { /* weighted by the faces' volumes dxc_a x the other widths */
      PetscScalar dot, nrm, *va;
      Vec         absA, vol;
      PetscCall(VecDuplicate(A[a], &vol));
      PetscCall(VecGetArrayWrite(vol, &va));
      for (PetscInt k = g->box.lo[2]; k < g->box.hi[2]; k++)
        for (PetscInt j = g->box.lo[1]; j < g->box.hi[1]; j++)
          for (PetscInt i = g->box.lo[0]; i < g->box.hi[0]; i++) {
            const PetscInt idx[3] = {i, j, k};
            PetscReal      v      = g->ax[a].dxc[idx[a]];
            for (PetscInt b = 0; b < g->dim; b++)
              if (b != a) v *= g->ax[b].dxf[idx[b]];
            va[FGBoxOwnedIndex(&g->box, i, j, k)] = v;
          }
      PetscCall(VecRestoreArrayWrite(vol, &va));
      PetscCall(VecPointwiseMult(vol, vol, u[a]));
      PetscCall(VecDot(vol, A[a], &dot));
      PetscCall(VecDuplicate(A[a], &absA));
      PetscCall(VecPointwiseMult(absA, vol, A[a]));
      PetscCall(VecDestroy(&vol));
      PetscCall(VecAbs(absA));
      PetscCall(VecSum(absA, &nrm));
      PetscCall(VecDestroy(&absA));
      num += PetscRealPart(dot);
      den += PetscRealPart(nrm);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-28s |<u, A(u)>| / sum|u A(u)| = %.2e\n", oc->name, (double)(PetscAbsReal(num) / den)));
    if (!(PetscAbsReal(num) <= 1e-12 * den)) (*fails)++;
  }

  /* 4. fused momentum = advection + diffusion */
  {
    Vec       M[3];
    PetscReal dmax = 0, mmax = 0;
    PetscCall(RandomVelocity(g, &bc, r, u));
    PetscCall(Fill(g, &bc, u, ul));
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscCall(VecDuplicate(A[a], &M[a]));
      PetscCall(VecSet(M[a], 12345.0));
      PetscCall(VecSet(A[a], 0.0));
    }
    PetscCall(FGOpAdvection(g, &bc, ul, A));
    PetscCall(FGOpDiffusion(g, &bc, 0.013, ul, A));
    PetscCall(FGOpMomentum(g, &bc, 0.013, ul, M));
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscReal d, m;
      PetscCall(VecNorm(A[a], NORM_INFINITY, &m));
      PetscCall(VecAXPY(M[a], -1.0, A[a]));
      PetscCall(VecNorm(M[a], NORM_INFINITY, &d));
      dmax = PetscMax(dmax, d);
      mmax = PetscMax(mmax, m);
      PetscCall(VecDestroy(&M[a]));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-28s |FGOpMomentum - (A + D)|/|A + D| = %.2e\n", oc->name, (double)(dmax / mmax)));
    if (!(dmax <= 1e-14 * mmax) || !(mmax > 0)) (*fails)++;
  }

  /* 4b. the split form: H = -A, R += c D */
  {
    Vec       M[3], R[3], Dref[3];
    PetscReal dmax = 0, mmax = 0, rmax = 0, emax = 0;
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscCall(VecDuplicate(A[a], &M[a]));
      PetscCall(VecDuplicate(A[a], &R[a]));
      PetscCall(VecDuplicate(A[a], &Dref[a]));
      PetscCall(VecSet(M[a], 12345.0));
      PetscCall(VecSetRandom(R[a], r));
      PetscCall(VecCopy(R[a], Dref[a]));
      PetscCall(VecSet(A[a], 0.0));
    }
    PetscCall(FGOpAdvection(g, &bc, ul, A));
    PetscCall(FGOpDiffusion(g, &bc, 0.021, ul, Dref));
    PetscCall(FGOpMomentumSplit(g, &bc, 0.021, ul, M, R));
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscReal d, m;
      PetscCall(VecNorm(A[a], NORM_INFINITY, &m));
      PetscCall(VecAXPY(M[a], -1.0, A[a]));
      PetscCall(VecNorm(M[a], NORM_INFINITY, &d));
      dmax = PetscMax(dmax, d), mmax = PetscMax(mmax, m);
      PetscCall(VecNorm(Dref[a], NORM_INFINITY, &m));
      PetscCall(VecAXPY(R[a], -1.0, Dref[a]));
      PetscCall(VecNorm(R[a], NORM_INFINITY, &d));
      emax = PetscMax(emax, d), rmax = PetscMax(rmax, m);
      PetscCall(VecDestroy(&M[a]));
      PetscCall(VecDestroy(&R[a]));
      PetscCall(VecDestroy(&Dref[a]));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-28s split: |H + A|/|A| = %.2e, |R - (R0 + c D)|/|R0 + c D| = %.2e\n", oc->name, (double)(dmax / mmax), (double)(emax / rmax)));
    if (!(dmax <= 1e-14 * mmax) || !(mmax > 0) || !(emax <= 1e-14 * rmax) || !(rmax > 0)) (*fails)++;
  }

  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecDestroy(&u[a]));
    PetscCall(VecDestroy(&ul[a]));
    PetscCall(VecDestroy(&A[a]));
  }
  PetscCall(VecDestroy(&phi));
  PetscCall(VecDestroy(&div));
  PetscCall(VecDestroy(&Lphi));
  PetscCall(VecDestroy(&phil));
  PetscCall(PetscRandomDestroy(&r));
  PetscCall(FGPoissonDestroy(&ps));
  PetscCall(FGGridDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const FGBCKind P = FG_BC_PERIODIC, W = FG_BC_WALL, S = FG_BC_SLIP, In = FG_BC_INFLOW, Out = FG_BC_OUTFLOW;
  const OpsCase  cases[] = {
    {"2D periodic", 2, {24, 16, 1}, {{P, P}, {P, P}, {P, P}}, {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}, PETSC_FALSE},
    {"2D walls", 2, {24, 16, 1}, {{W, W}, {W, W}, {P, P}}, {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}, PETSC_FALSE},
    {"2D channel (periodic x)", 2, {16, 24, 1}, {{P, P}, {W, S}, {P, P}}, {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}, PETSC_FALSE},
    {"2D inflow/outflow", 2, {20, 24, 1}, {{In, Out}, {W, W}, {P, P}}, {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}, PETSC_FALSE},
    {"3D periodic", 3, {12, 10, 16}, {{P, P}, {P, P}, {P, P}}, {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}, PETSC_FALSE},
    {"3D walls", 3, {12, 10, 16}, {{W, W}, {W, W}, {W, W}}, {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}, PETSC_FALSE},
    {"3D mixed + outflow in z", 3, {12, 10, 16}, {{P, P}, {S, W}, {W, Out}}, {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}, PETSC_FALSE},
    {"2D walls, y stretched", 2, {24, 16, 1}, {{W, W}, {W, W}, {P, P}}, {PETSC_FALSE, PETSC_TRUE, PETSC_FALSE}, PETSC_FALSE},
    {"2D channel, y stretched", 2, {16, 24, 1}, {{P, P}, {W, S}, {P, P}}, {PETSC_FALSE, PETSC_TRUE, PETSC_FALSE}, PETSC_FALSE},
    {"2D in/out, y stretched", 2, {20, 24, 1}, {{In, Out}, {W, W}, {P, P}}, {PETSC_FALSE, PETSC_TRUE, PETSC_FALSE}, PETSC_FALSE},
    {"2D in/out, x+y stretched", 2, {20, 24, 1}, {{In, Out}, {W, W}, {P, P}}, {PETSC_TRUE, PETSC_TRUE, PETSC_FALSE}, PETSC_TRUE},
    {"2D periodic, x+y stretched", 2, {24, 16, 1}, {{P, P}, {P, P}, {P, P}}, {PETSC_TRUE, PETSC_TRUE, PETSC_FALSE}, PETSC_TRUE},
    {"3D walls, z stretched", 3, {12, 10, 16}, {{W, W}, {W, W}, {W, W}}, {PETSC_FALSE, PETSC_FALSE, PETSC_TRUE}, PETSC_FALSE},
    {"3D mixed, all stretched", 3, {12, 10, 16}, {{P, P}, {S, W}, {W, Out}}, {PETSC_TRUE, PETSC_TRUE, PETSC_TRUE}, PETSC_TRUE},
  };
  PetscInt fails = 0;

  PetscCall(FGInitialize(&argc, &argv, NULL));
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) PetscCall(RunCase(&cases[i], &fails));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failures\n", fails ? "FAIL" : "PASS", fails));
  PetscCall(FGFinalize());
  return fails ? 1 : 0;
}
