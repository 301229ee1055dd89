/*
  Properties of the forward operators on the MAC grid (2D and 3D, several boundary mixes):

  1. D G phi = L phi, with L the Poisson solver's operator (FGPoissonApply): the projection and
     the pressure solve use the same discrete Laplacian (walls: Neumann; outflow: Dirichlet).
  2. After u <- u - G L^{-1} D u:  max |D u| <= 1e-12 * max|u|/h.
  3. Energy conservation of the advection: <u, A(u)> = 0 (to 1e-12 relative) for a discretely
     divergence-free u with u.n = 0 on walls (periodic or no-slip walls at rest).
  4. The fused FGOpMomentum (the forward step's) equals VecSet(0) + FGOpAdvection + FGOpDiffusion
     on every owned face to 1e-14 relative (random u, H filled with garbage first).
*/
#include <fg/ops.h>
#include <fg/poisson.h>

typedef struct {
  const char *name;
  PetscInt    dim, n[3];
  FGBCKind    kind[3][2];
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
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, oc->dim, oc->n, L, NULL, per, FG_DECOMP_SLAB, g));
  PetscCall(FGPoissonCreate(*g, FG_POISSON_FFTW, (const FGPoissonBC(*)[2])pbc, ps));
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
    hmin = PetscMin(hmin, g->h[a]);
  }
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
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscScalar dot, nrm;
      Vec         absA;
      PetscCall(VecDot(u[a], A[a], &dot));
      PetscCall(VecDuplicate(A[a], &absA));
      PetscCall(VecPointwiseMult(absA, u[a], A[a]));
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
    {"2D periodic", 2, {24, 16, 1}, {{P, P}, {P, P}, {P, P}}},
    {"2D walls", 2, {24, 16, 1}, {{W, W}, {W, W}, {P, P}}},
    {"2D channel (periodic x)", 2, {16, 24, 1}, {{P, P}, {W, S}, {P, P}}},
    {"2D inflow/outflow", 2, {20, 24, 1}, {{In, Out}, {W, W}, {P, P}}},
    {"3D periodic", 3, {12, 10, 16}, {{P, P}, {P, P}, {P, P}}},
    {"3D walls", 3, {12, 10, 16}, {{W, W}, {W, W}, {W, W}}},
    {"3D mixed + outflow in z", 3, {12, 10, 16}, {{P, P}, {S, W}, {W, Out}}},
  };
  PetscInt fails = 0;

  PetscCall(FGInitialize(&argc, &argv, NULL));
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) PetscCall(RunCase(&cases[i], &fails));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failures\n", fails ? "FAIL" : "PASS", fails));
  PetscCall(FGFinalize());
  return fails ? 1 : 0;
}
