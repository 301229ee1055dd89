/*
  The implicit viscous term's Helmholtz solves (include/fg/viscous.h) on 2D and 3D grids with
  walls, slip, inflow and outflow faces, periodic directions (the slab direction too: cyclic
  lines) and stretched directions (the slab direction; with -stretch_all every direction, which
  only the factored and the KSP paths take):

  1. The direct path (transforms + Thomas, viscous_fftw.c) solves y_U - s L(Fill_0(y))_U = x_U:
     the residual, with the operators of src/ops/ (FGOpFillBoundaryTangent + FGOpDiffusion), is
     <= 1e-12 of max|x| (KSP path: 1e-9, its tolerance is -viscous_ksp_rtol 1e-13 here).
  2. The direct and the KSP paths agree to 1e-10 of max|y| on the interior faces.
  3. The factored path (viscous_af.c) solves prod_b (I - s L_b) y = x, each factor applied here
     by its own stencil loop along b on Fill_0(y): residual <= 1e-12 of max|x|; its distance from
     the exact solve is printed (an O(s^2) splitting, not asserted).
  4. <S v, w> = <v, S^T w> to 1e-12 (relative to ||S v|| ||w||) on the three paths.
  5. The derivative in s: (S(s(1+e)) x - S(s(1-e)) x) / (2 s e) against S E S x, E = L_0 +
     FGViscousAddCorrection's term (zero on the exact paths), to 1e-6 (e = 1e-4: the difference's
     truncation ~1e-8, its round-off ~1e-12).
  s = 10 h_min^2 (s lambda_max ~ 40 d: far above what an RK3 stage at the explicit limit needs).
*/
#include <fg/viscous.h>

typedef struct {
  const char *name;
  PetscInt    dim, n[3];
  FGBCKind    kind[3][2];
  PetscBool   stretch; /* the slab direction (y in 2D, z in 3D) stretched (tanh at both ends) */
} VCase;

static PetscBool stretch_all = PETSC_FALSE; /* -stretch_all: every non-periodic direction stretched */

static PetscInt nfail = 0, nchecks = 0;
#define CHECK(cond, ...) \
  do { \
    nchecks++; \
    if (!(cond)) { \
      nfail++; \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: ", vc->name)); \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, __VA_ARGS__)); \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n")); \
    } \
  } while (0)

/* max over the interior faces of |a - b| (b NULL: |a|) */
static PetscErrorCode MaxInterior(FGGrid g, const FGBoundary *bc, Vec a[], Vec b[], PetscReal *m)
{
  PetscFunctionBeginUser;
  *m = 0;
  for (PetscInt c = 0; c < g->dim; c++) {
    const PetscScalar *x, *y = NULL;
    PetscInt           lo[3], hi[3];
    FGOpInteriorFaces(g, bc, c, lo, hi);
    PetscCall(VecGetArrayRead(a[c], &x));
    if (b) PetscCall(VecGetArrayRead(b[c], &y));
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) {
          const PetscInt o = FGBoxOwnedIndex(&g->box, i, j, k);
          *m               = PetscMax(*m, PetscAbsScalar(x[o] - (y ? y[o] : 0)));
        }
    PetscCall(VecRestoreArrayRead(a[c], &x));
    if (b) PetscCall(VecRestoreArrayRead(b[c], &y));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, m, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* r = y_U - s L(Fill_0(y with the K faces zeroed))_U (the K faces of r: y's, unused) */
static PetscErrorCode Apply(FGGrid g, const FGBoundary *bc, PetscReal s, Vec y[], Vec r[])
{
  Vec k[3], zl[3];

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecDuplicate(y[a], &k[a]));
    PetscCall(VecCopy(y[a], k[a]));
    PetscCall(DMGetLocalVector(g->da, &zl[a]));
  }
  PetscCall(FGOpZeroInteriorFaces(g, bc, k)); /* k: the K faces of y */
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecAYPX(k[a], -1.0, y[a])); /* y with its K faces zeroed */
    PetscCall(DMGlobalToLocal(g->da, k[a], INSERT_VALUES, zl[a]));
    PetscCall(VecCopy(k[a], r[a]));
  }
  PetscCall(FGOpFillBoundaryTangent(g, bc, 0.0, 0.0, zl));
  PetscCall(FGOpDiffusion(g, bc, -s, zl, r));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecDestroy(&k[a]));
    PetscCall(DMRestoreLocalVector(g->da, &zl[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y_U <- y_U - s (L_b Fill_0(y with its K faces zeroed))_U: one factor of the factored operator,
   along b only, by a stencil loop of its own (the couplings of src/ops/diffusion.c). */
static PetscErrorCode ApplyFactor(FGGrid g, const FGBoundary *bc, PetscReal s, PetscInt b, Vec y[])
{
  const FGBox *bx = &g->box;
  Vec          k[3], zl[3];

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecDuplicate(y[a], &k[a]));
    PetscCall(VecCopy(y[a], k[a]));
    PetscCall(DMGetLocalVector(g->da, &zl[a]));
  }
  PetscCall(FGOpZeroInteriorFaces(g, bc, k));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecAYPX(k[a], -1.0, y[a]));
    PetscCall(DMGlobalToLocal(g->da, k[a], INSERT_VALUES, zl[a]));
  }
  PetscCall(FGOpFillBoundaryTangent(g, bc, 0.0, 0.0, zl));
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *z;
    PetscScalar       *yy;
    PetscInt           lo[3], hi[3];
    FGOpInteriorFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArrayRead(zl[a], &z));
    PetscCall(VecGetArray(y[a], &yy));
    for (PetscInt kk = lo[2]; kk < hi[2]; kk++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) {
          const PetscInt idx[3] = {i, j, kk}, c = FGBoxIndex(bx, i, j, kk), sb = bx->s[b];
          PetscReal      cm, cp;
          FGOpDiffusionCoefficients(g, a, b, idx[b], &cm, &cp);
          yy[FGBoxOwnedIndex(bx, i, j, kk)] -= s * (cp * (z[c + sb] - z[c]) - cm * (z[c] - z[c - sb]));
        }
    PetscCall(VecRestoreArray(y[a], &yy));
    PetscCall(VecRestoreArrayRead(zl[a], &z));
  }
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecDestroy(&k[a]));
    PetscCall(DMRestoreLocalVector(g->da, &zl[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rel = |fd - S E S x| / |S E S x| over the interior faces: the derivative of the solve in s
   against its central difference (t[0..3]: work). */
static PetscErrorCode DerivativeCheck(FGGrid g, const FGBoundary *bc, FGViscous v, PetscReal s, Vec x[], Vec t0[], Vec t1[], Vec t2[], PetscReal *rel)
{
  const PetscReal e = 1e-4;
  PetscReal       num, den;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecCopy(x[a], t0[a]));
  PetscCall(FGViscousSolve(v, s, t0)); /* d = S x */
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecCopy(t0[a], t1[a]));
  PetscCall(Apply(g, bc, 1.0, t0, t2)); /* t2 = d - L_0 d */
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecAYPX(t2[a], -1.0, t0[a])); /* L_0 d */
  PetscCall(FGViscousAddCorrection(v, s, 1.0, t0, t2)); /* E d */
  PetscCall(FGViscousSolve(v, s, t2));                  /* S E S x */
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecCopy(x[a], t0[a]));
  PetscCall(FGViscousSolve(v, s * (1 + e), t0));
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecCopy(x[a], t1[a]));
  PetscCall(FGViscousSolve(v, s * (1 - e), t1));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecAXPY(t0[a], -1.0, t1[a]));
    PetscCall(VecScale(t0[a], 1.0 / (2 * s * e)));
  }
  PetscCall(MaxInterior(g, bc, t0, t2, &num));
  PetscCall(MaxInterior(g, bc, t2, NULL, &den));
  *rel = num / den;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Dot(FGGrid g, const FGBoundary *bc, Vec a[], Vec b[], PetscReal *d)
{
  Vec t[3];

  PetscFunctionBeginUser;
  *d = 0;
  for (PetscInt c = 0; c < g->dim; c++) { /* over the interior faces: b with its K faces zeroed */
    PetscCall(VecDuplicate(b[c], &t[c]));
    PetscCall(VecCopy(b[c], t[c]));
  }
  PetscCall(FGOpZeroInteriorFaces(g, bc, t));
  for (PetscInt c = 0; c < g->dim; c++) {
    PetscScalar v;
    PetscCall(VecAYPX(t[c], -1.0, b[c]));
    PetscCall(VecDot(a[c], t[c], &v));
    *d += PetscRealPart(v);
    PetscCall(VecDestroy(&t[c]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunCase(const VCase *vc, PetscRandom rnd)
{
  const PetscReal L[3] = {1.0, 1.3, 0.8};
  PetscBool       per[3];
  FGGrid          g;
  FGBoundary      bc;
  FGViscous       vf, vk, va;
  Vec             x[3], yf[3], yk[3], ya[3], r[3], w[3], sw[3];
  PetscReal       s, xm, ym, res, diff, lhs, rhs, nrm[3], der[3];

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&bc, sizeof(bc)));
  for (PetscInt d = 0; d < 3; d++) {
    per[d] = (PetscBool)(d >= vc->dim || vc->kind[d][0] == FG_BC_PERIODIC);
    for (PetscInt side = 0; side < 2; side++) bc.kind[d][side] = d < vc->dim ? vc->kind[d][side] : FG_BC_PERIODIC;
  }
  bc.convective_speed = 1.0;
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, vc->dim, vc->n, L, NULL, per, FG_DECOMP_SLAB, &g));
  for (PetscInt d = 0; d < vc->dim; d++) {
    PetscReal *f;
    if (!(d == vc->dim - 1 ? vc->stretch : stretch_all) || per[d]) continue;
    PetscCall(PetscMalloc1(vc->n[d] + 1, &f));
    PetscCall(FGStretchTanh(0.0, L[d], vc->n[d], 1.5, FG_CLUSTER_BOTH, f));
    PetscCall(FGGridSetFaces(g, d, f));
    PetscCall(PetscFree(f));
  }
  s = 10 * PetscSqr(FGGridMinSpacing(g));
  PetscCall(PetscOptionsSetValue(NULL, "-fg_viscous_solver", "direct"));
  PetscCall(FGViscousCreate(g, &bc, &vf));
  PetscCall(PetscOptionsSetValue(NULL, "-fg_viscous_solver", "ksp"));
  PetscCall(FGViscousCreate(g, &bc, &vk));
  PetscCall(PetscOptionsSetValue(NULL, "-fg_viscous_solver", "af"));
  PetscCall(FGViscousCreate(g, &bc, &va));
  PetscCall(PetscOptionsClearValue(NULL, "-fg_viscous_solver"));
  CHECK(FGViscousGetType(vk) == FG_VISCOUS_SOLVER_KSP && FGViscousGetType(va) == FG_VISCOUS_SOLVER_AF, "the KSP or the factored path was not taken");
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(DMCreateGlobalVector(g->da, &x[a]));
    PetscCall(VecSetRandom(x[a], rnd));
    PetscCall(VecDuplicate(x[a], &yf[a]));
    PetscCall(VecDuplicate(x[a], &yk[a]));
    PetscCall(VecDuplicate(x[a], &ya[a]));
    PetscCall(VecDuplicate(x[a], &r[a]));
    PetscCall(VecDuplicate(x[a], &w[a]));
    PetscCall(VecDuplicate(x[a], &sw[a]));
    PetscCall(VecCopy(x[a], yf[a]));
    PetscCall(VecCopy(x[a], yk[a]));
    PetscCall(VecCopy(x[a], ya[a]));
  }
  PetscCall(FGViscousSolve(vf, s, yf));
  PetscCall(FGViscousSolve(vk, s, yk));
  PetscCall(FGViscousSolve(va, s, ya));
  PetscCall(MaxInterior(g, &bc, x, NULL, &xm));
  PetscCall(MaxInterior(g, &bc, yf, NULL, &ym));
  /* 1. residuals (the direct path where it applies: uniform in-slab directions) */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-28s", vc->name));
  if (FGViscousGetType(vf) == FG_VISCOUS_SOLVER_DIRECT) {
    PetscCall(Apply(g, &bc, s, yf, r));
    PetscCall(MaxInterior(g, &bc, r, x, &res));
    CHECK(res <= 1e-12 * xm, "direct path: residual %.3e of max|x| > 1e-12", (double)(res / xm));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, " direct residual %.2e", (double)(res / xm)));
  } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, " (no direct path)"));
  PetscCall(Apply(g, &bc, s, yk, r));
  PetscCall(MaxInterior(g, &bc, r, x, &res));
  CHECK(res <= 1e-9 * xm, "KSP path: residual %.3e of max|x| > 1e-9", (double)(res / xm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  KSP residual %.2e", (double)(res / xm)));
  /* 2. the two exact paths */
  if (FGViscousGetType(vf) == FG_VISCOUS_SOLVER_DIRECT) {
    PetscCall(MaxInterior(g, &bc, yf, yk, &diff));
    CHECK(diff <= 1e-10 * ym, "the direct and the KSP paths differ by %.3e of max|y| > 1e-10", (double)(diff / ym));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  paths differ %.2e", (double)(diff / ym)));
  }
  /* 3. the factored path: prod_b (I - s L_b) ya = x */
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecCopy(ya[a], r[a]));
  for (PetscInt b = 0; b < g->dim; b++) PetscCall(ApplyFactor(g, &bc, s, b, r));
  PetscCall(MaxInterior(g, &bc, r, x, &res));
  CHECK(res <= 1e-12 * xm, "factored path: residual %.3e of max|x| > 1e-12", (double)(res / xm));
  PetscCall(MaxInterior(g, &bc, ya, yk, &diff));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  AF residual %.2e (from exact %.2e)", (double)(res / xm), (double)(diff / ym)));
  /* 4. transposes */
  for (PetscInt p = 0; p < 3; p++) {
    FGViscous v = p == 2 ? va : p ? vk : vf;
    PetscReal a2 = 0, b2 = 0, t;
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscCall(VecSetRandom(w[a], rnd));
      PetscCall(VecCopy(x[a], yf[a]));
      PetscCall(VecCopy(w[a], sw[a]));
    }
    PetscCall(FGViscousSolve(v, s, yf));
    PetscCall(FGViscousSolveTranspose(v, s, sw));
    PetscCall(Dot(g, &bc, yf, w, &lhs));
    PetscCall(Dot(g, &bc, sw, x, &rhs));
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscCall(VecNorm(yf[a], NORM_2, &t));
      a2 += t * t;
      PetscCall(VecNorm(w[a], NORM_2, &t));
      b2 += t * t;
    }
    nrm[p] = PetscAbsReal(lhs - rhs) / PetscSqrtReal(a2 * b2);
    CHECK(nrm[p] <= 1e-12, "%s path: <S v, w> - <v, S^T w> = %.3e relative > 1e-12", p == 2 ? "factored" : p ? "KSP" : "direct", (double)nrm[p]);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  transpose %.1e / %.1e / %.1e", (double)nrm[0], (double)nrm[1], (double)nrm[2]));
  /* 5. the derivative in s (vf: the KSP path where the direct one does not apply) */
  for (PetscInt p = 0; p < 3; p += 2) {
    PetscCall(DerivativeCheck(g, &bc, p ? va : vf, s, x, yf, yk, r, &der[p]));
    CHECK(der[p] <= 1e-6, "%s path: d(S x)/ds off its central difference by %.3e relative > 1e-6", p ? "factored" : "exact", (double)der[p]);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  d/ds %.1e / %.1e\n", (double)der[0], (double)der[2]));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecDestroy(&x[a]));
    PetscCall(VecDestroy(&yf[a]));
    PetscCall(VecDestroy(&yk[a]));
    PetscCall(VecDestroy(&ya[a]));
    PetscCall(VecDestroy(&r[a]));
    PetscCall(VecDestroy(&w[a]));
    PetscCall(VecDestroy(&sw[a]));
  }
  PetscCall(FGViscousDestroy(&vf));
  PetscCall(FGViscousDestroy(&vk));
  PetscCall(FGViscousDestroy(&va));
  PetscCall(FGGridDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const FGBCKind W = FG_BC_WALL, P = FG_BC_PERIODIC, In = FG_BC_INFLOW, O = FG_BC_OUTFLOW, S = FG_BC_SLIP, Lid = FG_BC_LID;
  const VCase    cases[] = {
    {"2D cavity", 2, {24, 20, 1}, {{W, W}, {W, Lid}, {P, P}}, PETSC_FALSE},
    {"2D channel, y stretched", 2, {32, 18, 1}, {{In, O}, {W, W}, {P, P}}, PETSC_TRUE},
    {"2D periodic x, slip y", 2, {16, 12, 1}, {{P, P}, {S, W}, {P, P}}, PETSC_TRUE},
    {"3D channel, z stretched", 3, {12, 10, 8}, {{In, O}, {S, S}, {W, W}}, PETSC_TRUE},
    {"3D periodic x, walls y z", 3, {8, 10, 12}, {{P, P}, {W, W}, {W, Lid}}, PETSC_FALSE},
    {"2D periodic, y stretched", 2, {16, 12, 1}, {{P, P}, {P, P}, {P, P}}, PETSC_TRUE},
    {"3D channel, z periodic", 3, {8, 10, 12}, {{P, P}, {W, W}, {P, P}}, PETSC_FALSE},
    {"2D x walls, y periodic", 2, {12, 16, 1}, {{W, Lid}, {P, P}, {P, P}}, PETSC_FALSE},
  };
  PetscRandom rnd;
  PetscMPIInt rank;

  if (FGInitialize(&argc, &argv, "Implicit viscous term: the Helmholtz solves.\n")) return 1;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(PetscOptionsSetValue(NULL, "-viscous_ksp_rtol", "1e-13"));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-stretch_all", &stretch_all, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 7 + (unsigned long)rank));
  PetscCall(PetscRandomSeed(rnd));
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) PetscCall(RunCase(&cases[i], rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " checks, %" PetscInt_FMT " failed\n%s\n", nchecks, nfail, nfail ? "FAILED" : "all checks passed"));
  PetscCall(FGFinalize());
  return nfail ? 1 : 0;
}
