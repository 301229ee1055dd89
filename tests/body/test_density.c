/*
  Density-field bodies (src/body/density.c): chi = P(F rho) at cells and faces, the filter, the
  projection, and reading rho from a file. On 2D and 3D grids with walls and periodic axes, slab
  and block decompositions:

  1. Jacobian: <chibar, J drho> by central finite differences (step 1e-6) agrees with
     <J^T chibar, drho> from FGDensityMaskAdjoint() to 1e-6 relative, for the cell mask and for
     the face masks of every direction (through FGDensityFaceMaskAdjoint()); the face average and
     its transpose pass the dot-product test (|<c_f, A c> - <A^T c_f, c>| <= 1e-14 |c_f| |c|) and match their definition exactly.
  2. The filter is symmetric: <F a, b> = <a, F b> to 1e-14 relative.
  3. It preserves a constant exactly (1e-14) and the total mass sum rho (1e-13 relative), keeps
     F rho in [min rho, max rho], and a unit impulse on a periodic grid spreads to a kernel of
     mass 1 and variance R^2 per axis (1e-12).
  4. Rank independence: chi, the face masks and J^T chibar on PETSC_COMM_WORLD, gathered in
     natural order, equal those computed on PETSC_COMM_SELF (every rank, the whole grid) to 1e-13
     (in fact bit for bit: no sum in these operators depends on the decomposition).
  5. Projection: P(0) = 0, P(1) = 1, P' vs FD, beta = 0 is the identity, bad beta/theta/radius
     are FG_ERR_INPUT.
  6. FGDensityRead(): a file written by FGIOWriteFields() on one decomposition reads back bit for
     bit on another (2D and 3D); values within 1e-12 of [0, 1] are clipped; a wrong size, a
     missing dataset, a missing file, a non-HDF5 file, a value > 1, a NaN and an invalid dataset
     name are FG_ERR_INPUT with messages that start with `where` and name the file (and the
     expected and actual shapes); no HDF5 object is left open.

  Sample runs (from the build tree's tests/body):
    mpiexec -n 1 ./test_density
    mpiexec -n 3 --oversubscribe ./test_density
*/
#include "../fgtest.h"
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char help[] = "Density-field bodies: filter, projection, masks, adjoints, reading.\n";

typedef struct {
  const char *name;
  PetscInt    dim, n[3];
  PetscBool   periodic[3];
  FGDecomp    decomp;
  PetscReal   radius, beta, theta;
} DensityCase;

#define T_ PETSC_TRUE
#define F_ PETSC_FALSE
static const DensityCase cases[] = {
  {"2d-walls", 2, {24, 18, 1}, {F_, F_, F_}, FG_DECOMP_SLAB, 1.5, 8.0, 0.5},
  {"2d-periodic-x", 2, {20, 15, 1}, {T_, F_, F_}, FG_DECOMP_BLOCK, 2.2, 4.0, 0.4},
  {"3d-walls", 3, {10, 8, 6}, {F_, F_, F_}, FG_DECOMP_BLOCK, 1.2, 6.0, 0.5},
  {"3d-periodic-yz", 3, {9, 7, 6}, {F_, T_, T_}, FG_DECOMP_SLAB, 0.7, 16.0, 0.6},
};

static const PetscReal Lbox[3] = {1.0, 0.8, 0.6};

/* ---------------------------------------------------------------------------------------------
   Deterministic data: a hash of (seed, natural cell index), the same on any decomposition
   --------------------------------------------------------------------------------------------- */
static PetscReal Hash01(uint64_t seed, uint64_t n)
{
  uint64_t z = seed * 0x9E3779B97F4A7C15ULL + n + 0x632BE59BD9B4E019ULL; /* splitmix64 */
  z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z          = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z          = z ^ (z >> 31);
  return (PetscReal)(z >> 11) * 0x1.0p-53;
}

static uint64_t Natural(FGGrid g, PetscInt i, PetscInt j, PetscInt k)
{
  return (uint64_t)i + (uint64_t)g->n[0] * ((uint64_t)j + (uint64_t)g->n[1] * (uint64_t)k);
}

/* x = lo + (hi - lo) * hash(seed, cell) */
static PetscErrorCode FillHash(FGGrid g, uint64_t seed, PetscReal lo, PetscReal hi, Vec x)
{
  const FGBox *b = &g->box;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayWrite(x, &a));
  for (PetscInt k = b->lo[2]; k < b->hi[2]; k++)
    for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
      for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) a[FGBoxOwnedIndex(b, i, j, k)] = lo + (hi - lo) * Hash01(seed, Natural(g, i, j, k));
  PetscCall(VecRestoreArrayWrite(x, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal RelDiff(PetscReal a, PetscReal b)
{
  const PetscReal m = PetscMax(PetscAbsReal(a), PetscAbsReal(b));
  return m > 0 ? PetscAbsReal(a - b) / m : 0.0;
}

/* ---------------------------------------------------------------------------------------------
   Error catching (as tests/io/io_errors.c): the code and the first message of a failing call
   --------------------------------------------------------------------------------------------- */

/* the call fails with FG_ERR_INPUT (want 0: succeeds), its message starting with prefix and
   containing must1, must2, must3 (each may be NULL) */
static PetscErrorCode Expect(const char *call, PetscErrorCode e, const FGTestCaught *c, PetscErrorCode want, const char *prefix, const char *must1, const char *must2, const char *must3)
{
  const char *must[3] = {must1, must2, must3};

  PetscFunctionBeginUser;
  FGTestCheck(e == want, "%s gave error %d (want %d): %s", call, (int)e, (int)want, c->msg);
  if (want && e == want) {
    FGTestCheck(!prefix || !strncmp(c->msg, prefix, strlen(prefix)), "%s: message \"%s\" does not start with \"%s\"", call, c->msg, prefix);
    for (int m = 0; m < 3; m++) FGTestCheck(!must[m] || strstr(c->msg, must[m]), "%s: message \"%s\" does not mention \"%s\"", call, c->msg, must[m]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  ok, error %d: %s\n", (int)e, c->msg));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define EXPECT(call, want, prefix, must1, must2, must3) \
  do { \
    FGTestCaught   _c = {0, ""}; \
    PetscErrorCode _e; \
    FGTestCatch(call, &_c, _e); \
    PetscCall(Expect(#call, _e, &_c, want, prefix, must1, must2, must3)); \
  } while (0)

/* ---------------------------------------------------------------------------------------------
   1-3: derivatives, symmetry, conservation
   --------------------------------------------------------------------------------------------- */

/* J(rho) = <chibar, chi(rho)> (faces: sum_a <chibar_a, chi_a(rho)>) */
static PetscErrorCode Functional(FGDensity d, FGGrid g, PetscBool faces, Vec rho, Vec chibar[], Vec chi, Vec chif, PetscReal *J)
{
  PetscScalar v;

  PetscFunctionBeginUser;
  PetscCall(FGDensityMask(d, rho, chi));
  if (!faces) {
    PetscCall(VecDot(chi, chibar[0], &v));
    *J = PetscRealPart(v);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *J = 0;
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(FGDensityFaceMask(d, chi, a, chif));
    PetscCall(VecDot(chif, chibar[a], &v));
    *J += PetscRealPart(v);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckCase(const DensityCase *dc)
{
  FGGrid      g;
  FGDensity   d;
  Vec         rho, drho, chibar[3], rhobar, cellbar, a, b, fa, fb, chi, chif, rp;
  PetscScalar v1, v2;
  PetscReal   worst_fd[2], sym, cerr, mass0, mass1, lo, hi, flo, fhi, tface = 0, defface = 0;
  PetscInt    npass;
  PetscReal   c;
  const PetscReal h = 1e-6;

  PetscFunctionBeginUser;
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, dc->dim, dc->n, Lbox, NULL, dc->periodic, dc->decomp, &g));
  PetscCall(FGDensityCreate(g, dc->radius, dc->beta, dc->theta, &d));
  PetscCall(FGDensityGetFilter(d, &npass, &c));
  FGTestCheck(npass == (PetscInt)PetscCeilReal(2 * dc->radius * dc->radius) && PetscAbsReal(2 * c * npass - dc->radius * dc->radius) <= 1e-14, "%s: filter K = %" PetscInt_FMT ", c = %g", dc->name, npass, (double)c);
  PetscCall(DMCreateGlobalVector(g->da, &rho));
  PetscCall(VecDuplicate(rho, &drho));
  PetscCall(VecDuplicate(rho, &rhobar));
  PetscCall(VecDuplicate(rho, &cellbar));
  PetscCall(VecDuplicate(rho, &a));
  PetscCall(VecDuplicate(rho, &b));
  PetscCall(VecDuplicate(rho, &fa));
  PetscCall(VecDuplicate(rho, &fb));
  PetscCall(VecDuplicate(rho, &chi));
  PetscCall(VecDuplicate(rho, &chif));
  PetscCall(VecDuplicate(rho, &rp));
  for (PetscInt e = 0; e < 3; e++) PetscCall(VecDuplicate(rho, &chibar[e]));
  PetscCall(FillHash(g, 1, 0.05, 0.95, rho));
  PetscCall(FillHash(g, 2, -1.0, 1.0, drho));
  for (PetscInt e = 0; e < 3; e++) PetscCall(FillHash(g, 3 + e, -1.0, 1.0, chibar[e]));

  /* 1. FD vs transpose-Jacobian, cells (faces = false) and faces */
  for (PetscInt f = 0; f < 2; f++) {
    PetscReal Jp, Jm, fd, adj;
    PetscCall(VecWAXPY(rp, h, drho, rho));
    PetscCall(Functional(d, g, (PetscBool)f, rp, chibar, chi, chif, &Jp));
    PetscCall(VecWAXPY(rp, -h, drho, rho));
    PetscCall(Functional(d, g, (PetscBool)f, rp, chibar, chi, chif, &Jm));
    fd = (Jp - Jm) / (2 * h);
    if (!f) PetscCall(FGDensityMaskAdjoint(d, rho, chibar[0], rhobar));
    else {
      PetscCall(VecSet(cellbar, 0.0));
      for (PetscInt e = 0; e < g->dim; e++) PetscCall(FGDensityFaceMaskAdjoint(d, chibar[e], e, cellbar));
      PetscCall(FGDensityMaskAdjoint(d, rho, cellbar, rhobar));
    }
    PetscCall(VecDot(rhobar, drho, &v1));
    adj         = PetscRealPart(v1);
    worst_fd[f] = RelDiff(fd, adj);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s  <chibar, J drho>: FD %.12e  adjoint %.12e  rel. error %.2e\n", dc->name, f ? "faces" : "cells", (double)fd, (double)adj, (double)worst_fd[f]));
    FGTestCheck(worst_fd[f] <= 1e-6, "%s: %s Jacobian: FD %.12e vs adjoint %.12e, relative error %g > 1e-6", dc->name, f ? "face" : "cell", (double)fd, (double)adj, (double)worst_fd[f]);
  }

  /* 1b. face average: dot-product test and the definition */
  PetscCall(FillHash(g, 11, 0.0, 1.0, a));
  for (PetscInt e = 0; e < g->dim; e++) {
    const FGBox       *bx = &g->box;
    const PetscScalar *fv;
    PetscReal          err = 0, rel, n1, n2;
    PetscCall(FGDensityFaceMask(d, a, e, fa));
    PetscCall(VecDot(fa, chibar[e], &v1));
    PetscCall(VecSet(cellbar, 0.0));
    PetscCall(FGDensityFaceMaskAdjoint(d, chibar[e], e, cellbar));
    PetscCall(VecDot(cellbar, a, &v2));
    PetscCall(VecNorm(chibar[e], NORM_2, &n1));
    PetscCall(VecNorm(a, NORM_2, &n2));
    rel   = PetscAbsScalar(v1 - v2) / (n1 * n2); /* relative to the Cauchy-Schwarz bound: the dot products cancel */
    tface = PetscMax(tface, rel);
    FGTestCheck(rel <= 1e-14, "%s: face %" PetscInt_FMT ": <chibar_f, A c> = %.16e, <A^T chibar_f, c> = %.16e, difference / (|chibar_f| |c|) = %g", dc->name, e, (double)PetscRealPart(v1), (double)PetscRealPart(v2), (double)rel);
    /* the definition, from the cell values (the hash of the natural index) */
    PetscCall(VecGetArrayRead(fa, &fv));
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
        for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
          PetscInt  idx[3] = {i, j, k}, nb[3] = {i, j, k};
          PetscReal want;
          nb[e] = idx[e] + 1;
          if (nb[e] == g->n[e]) nb[e] = g->periodic[e] ? 0 : -1;
          if (nb[e] < 0) want = Hash01(11, Natural(g, i, j, k));
          else want = 0.5 * (Hash01(11, Natural(g, i, j, k)) + Hash01(11, Natural(g, nb[0], nb[1], nb[2])));
          err = PetscMax(err, PetscAbsReal(fv[FGBoxOwnedIndex(bx, i, j, k)] - want));
        }
    PetscCall(VecRestoreArrayRead(fa, &fv));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &err, 1, MPIU_REAL, MPI_MAX, PETSC_COMM_WORLD));
    defface = PetscMax(defface, err);
    FGTestCheck(err <= 1e-15, "%s: face %" PetscInt_FMT " mask differs from its definition by %g", dc->name, e, (double)err);
  }

  /* 2. symmetry of the filter */
  PetscCall(FillHash(g, 21, 0.0, 1.0, a));
  PetscCall(FillHash(g, 22, 0.0, 1.0, b));
  PetscCall(FGDensityFilter(d, a, fa));
  PetscCall(FGDensityFilter(d, b, fb));
  PetscCall(VecDot(fa, b, &v1));
  PetscCall(VecDot(a, fb, &v2));
  sym = RelDiff(PetscRealPart(v1), PetscRealPart(v2));
  FGTestCheck(sym <= 1e-14, "%s: <F a, b> = %.16e, <a, F b> = %.16e, relative %g > 1e-14", dc->name, (double)PetscRealPart(v1), (double)PetscRealPart(v2), (double)sym);

  /* 3. constants, mass, bounds */
  PetscCall(VecSum(a, &v1));
  PetscCall(VecSum(fa, &v2));
  mass0 = PetscRealPart(v1), mass1 = PetscRealPart(v2);
  FGTestCheck(RelDiff(mass0, mass1) <= 1e-13, "%s: mass %.16e -> %.16e", dc->name, (double)mass0, (double)mass1);
  PetscCall(VecMin(a, NULL, &lo));
  PetscCall(VecMax(a, NULL, &hi));
  PetscCall(VecMin(fa, NULL, &flo));
  PetscCall(VecMax(fa, NULL, &fhi));
  FGTestCheck(flo >= lo && fhi <= hi && fhi - flo < hi - lo, "%s: F a in [%g, %g], a in [%g, %g]", dc->name, (double)flo, (double)fhi, (double)lo, (double)hi);
  PetscCall(VecSet(a, 0.37));
  PetscCall(FGDensityFilter(d, a, a)); /* in place */
  PetscCall(VecShift(a, -0.37));
  PetscCall(VecNorm(a, NORM_INFINITY, &cerr));
  FGTestCheck(cerr <= 1e-14, "%s: a constant changes by %g", dc->name, (double)cerr);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: K = %" PetscInt_FMT ", c = %.4f; face transpose %.1e, face definition %.1e; <Fa,b> vs <a,Fb> %.1e; constant %.1e; mass %.1e\n", dc->name, npass, (double)c, (double)tface, (double)defface, (double)sym, (double)cerr, (double)RelDiff(mass0, mass1)));

  for (PetscInt e = 0; e < 3; e++) PetscCall(VecDestroy(&chibar[e]));
  PetscCall(VecDestroy(&rho));
  PetscCall(VecDestroy(&drho));
  PetscCall(VecDestroy(&rhobar));
  PetscCall(VecDestroy(&cellbar));
  PetscCall(VecDestroy(&a));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&fa));
  PetscCall(VecDestroy(&fb));
  PetscCall(VecDestroy(&chi));
  PetscCall(VecDestroy(&chif));
  PetscCall(VecDestroy(&rp));
  PetscCall(FGDensityDestroy(&d));
  PetscCall(FGGridDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 3b. the kernel of a unit impulse on a periodic grid: mass 1, mean at the impulse, variance R^2
   per axis (R = 3: 18 passes, support 18 < 24 cells, no wrap-around) */
static PetscErrorCode CheckKernel(void)
{
  const PetscInt  n[2]   = {48, 48}, ic = 24, jc = 20;
  const PetscBool per[3] = {PETSC_TRUE, PETSC_TRUE, PETSC_FALSE};
  const PetscReal R      = 3.0;
  FGGrid          g;
  FGDensity       d;
  Vec             x;
  PetscScalar    *a;
  PetscReal       m[6] = {0, 0, 0, 0, 0, 0}; /* mass, sum di, sum dj, sum di^2, sum dj^2, sum di dj */
  const FGBox    *b;

  PetscFunctionBeginUser;
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, 2, n, Lbox, NULL, per, FG_DECOMP_SLAB, &g));
  b = &g->box;
  PetscCall(FGDensityCreate(g, R, 1.0, 0.5, &d));
  PetscCall(DMCreateGlobalVector(g->da, &x));
  PetscCall(VecSet(x, 0.0));
  if (ic >= b->lo[0] && ic < b->hi[0] && jc >= b->lo[1] && jc < b->hi[1]) {
    PetscCall(VecGetArray(x, &a));
    a[FGBoxOwnedIndex(b, ic, jc, 0)] = 1.0;
    PetscCall(VecRestoreArray(x, &a));
  }
  PetscCall(FGDensityFilter(d, x, x));
  PetscCall(VecGetArray(x, &a));
  for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
    for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) {
      const PetscReal w = a[FGBoxOwnedIndex(b, i, j, 0)], di = (PetscReal)(i - ic), dj = (PetscReal)(j - jc);
      m[0] += w, m[1] += w * di, m[2] += w * dj, m[3] += w * di * di, m[4] += w * dj * dj, m[5] += w * di * dj;
    }
  PetscCall(VecRestoreArray(x, &a));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, m, 6, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "kernel R = %g: mass %.15f, mean (%.1e, %.1e), variance (%.15f, %.15f), covariance %.1e\n", (double)R, (double)m[0], (double)m[1], (double)m[2], (double)m[3], (double)m[4], (double)m[5]));
  FGTestCheck(PetscAbsReal(m[0] - 1) <= 1e-13 && PetscAbsReal(m[1]) <= 1e-12 && PetscAbsReal(m[2]) <= 1e-12, "impulse: mass %g, mean (%g, %g)", (double)m[0], (double)m[1], (double)m[2]);
  FGTestCheck(PetscAbsReal(m[3] - R * R) <= 1e-12 && PetscAbsReal(m[4] - R * R) <= 1e-12 && PetscAbsReal(m[5]) <= 1e-12, "impulse: variances (%.15g, %.15g), covariance %g; want %g, 0", (double)m[3], (double)m[4], (double)m[5], (double)(R * R));
  PetscCall(VecDestroy(&x));
  PetscCall(FGDensityDestroy(&d));

  /* R = 0: the identity */
  PetscCall(FGDensityCreate(g, 0.0, 1.0, 0.5, &d));
  {
    Vec       y, z;
    PetscReal err;
    PetscInt  K;
    PetscCall(DMCreateGlobalVector(g->da, &y));
    PetscCall(VecDuplicate(y, &z));
    PetscCall(FillHash(g, 31, 0.0, 1.0, y));
    PetscCall(FGDensityFilter(d, y, z));
    PetscCall(VecAXPY(z, -1.0, y));
    PetscCall(VecNorm(z, NORM_INFINITY, &err));
    PetscCall(FGDensityGetFilter(d, &K, NULL));
    FGTestCheck(K == 0 && err == 0, "R = 0: K = %" PetscInt_FMT ", |F y - y| = %g", K, (double)err);
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&z));
  }
  PetscCall(FGDensityDestroy(&d));
  PetscCall(FGGridDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   4. rank independence
   --------------------------------------------------------------------------------------------- */

/* the outputs of one grid, in order: chi, chi at the faces of each direction, J^T chibar */
static PetscErrorCode Outputs(MPI_Comm comm, const DensityCase *dc, Vec out[5])
{
  FGGrid    g;
  FGDensity d;
  Vec       rho, chi, chif, chibar, cellbar, rhobar;

  PetscFunctionBeginUser;
  PetscCall(FGGridCreate(comm, dc->dim, dc->n, Lbox, NULL, dc->periodic, dc->decomp, &g));
  PetscCall(FGDensityCreate(g, dc->radius, dc->beta, dc->theta, &d));
  PetscCall(DMCreateGlobalVector(g->da, &rho));
  PetscCall(VecDuplicate(rho, &chi));
  PetscCall(VecDuplicate(rho, &chif));
  PetscCall(VecDuplicate(rho, &chibar));
  PetscCall(VecDuplicate(rho, &cellbar));
  PetscCall(VecDuplicate(rho, &rhobar));
  PetscCall(FillHash(g, 41, 0.0, 1.0, rho));
  PetscCall(FGDensityMask(d, rho, chi));
  PetscCall(FGGridGatherNatural(g, chi, &out[0]));
  PetscCall(VecSet(cellbar, 0.0));
  for (PetscInt a = 0; a < 3; a++) {
    if (a < g->dim) {
      PetscCall(FGDensityFaceMask(d, chi, a, chif));
      PetscCall(FillHash(g, 42 + a, -1.0, 1.0, chibar));
      PetscCall(FGDensityFaceMaskAdjoint(d, chibar, a, cellbar));
    } else PetscCall(VecSet(chif, 0.0));
    PetscCall(FGGridGatherNatural(g, chif, &out[1 + a]));
  }
  PetscCall(FGDensityMaskAdjoint(d, rho, cellbar, rhobar));
  PetscCall(FGGridGatherNatural(g, rhobar, &out[4]));
  PetscCall(VecDestroy(&rho));
  PetscCall(VecDestroy(&chi));
  PetscCall(VecDestroy(&chif));
  PetscCall(VecDestroy(&chibar));
  PetscCall(VecDestroy(&cellbar));
  PetscCall(VecDestroy(&rhobar));
  PetscCall(FGDensityDestroy(&d));
  PetscCall(FGGridDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckRanks(const DensityCase *dc)
{
  static const char *const what[5] = {"chi", "chi_x", "chi_y", "chi_z", "J^T chibar"};
  Vec                      pw[5], ps[5];
  PetscMPIInt              rank, size;
  PetscReal                diff[5] = {0, 0, 0, 0, 0}, worst = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Outputs(PETSC_COMM_WORLD, dc, pw));
  PetscCall(Outputs(PETSC_COMM_SELF, dc, ps));
  if (rank == 0)
    for (PetscInt q = 0; q < 5; q++) {
      PetscCall(VecAXPY(pw[q], -1.0, ps[q]));
      PetscCall(VecNorm(pw[q], NORM_INFINITY, &diff[q]));
    }
  PetscCallMPI(MPI_Bcast(diff, 5, MPIU_REAL, 0, PETSC_COMM_WORLD));
  for (PetscInt q = 0; q < 5; q++) {
    worst = PetscMax(worst, diff[q]);
    FGTestCheck(diff[q] <= 1e-13, "%s: %s on %d ranks differs from 1 rank by %g > 1e-13", dc->name, what[q], (int)size, (double)diff[q]);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %d ranks vs 1 rank, max difference of chi, face masks, J^T chibar: %.1e\n", dc->name, (int)size, (double)worst));
  for (PetscInt q = 0; q < 5; q++) {
    PetscCall(VecDestroy(&pw[q]));
    PetscCall(VecDestroy(&ps[q]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   5. projection and parameters
   --------------------------------------------------------------------------------------------- */
static PetscErrorCode CheckProjection(void)
{
  const PetscReal betas[4] = {0.5, 4.0, 16.0, 64.0}, thetas[3] = {0.3, 0.5, 0.8};
  PetscReal       worst = 0;
  FGGrid          g;
  FGDensity       d;
  const PetscInt  n[2]   = {8, 6};
  const PetscBool per[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};

  PetscFunctionBeginUser;
  for (PetscInt ib = 0; ib < 4; ib++)
    for (PetscInt it = 0; it < 3; it++) {
      const PetscReal beta = betas[ib], theta = thetas[it];
      PetscReal       p0, p1, pt, dpt;
      PetscCall(FGDensityProjection(beta, theta, 0.0, &p0, NULL));
      PetscCall(FGDensityProjection(beta, theta, 1.0, &p1, NULL));
      FGTestCheck(PetscAbsReal(p0) <= 1e-15 && PetscAbsReal(p1 - 1) <= 1e-15, "P(0) = %g, P(1) = %g for beta %g theta %g", (double)p0, (double)p1, (double)beta, (double)theta);
      PetscCall(FGDensityProjection(beta, theta, theta, &pt, &dpt));
      FGTestCheck(PetscAbsReal(pt - PetscTanhReal(beta * theta) / (PetscTanhReal(beta * theta) + PetscTanhReal(beta * (1 - theta)))) <= 1e-15, "P(theta) = %g", (double)pt);
      for (PetscInt q = 0; q <= 20; q++) {
        const PetscReal s = 0.05 * q, hs = 1e-6;
        PetscReal       p, dp, pp, pm;
        PetscCall(FGDensityProjection(beta, theta, s, &p, &dp));
        PetscCall(FGDensityProjection(beta, theta, s + hs, &pp, NULL));
        PetscCall(FGDensityProjection(beta, theta, s - hs, &pm, NULL));
        worst = PetscMax(worst, PetscAbsReal((pp - pm) / (2 * hs) - dp) / PetscMax(PetscAbsReal(dp), 1e-3));
        FGTestCheck(p >= -1e-15 && p <= 1 + 1e-15 && dp >= 0, "P(%g) = %g, P' = %g", (double)s, (double)p, (double)dp);
      }
    }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "projection: P' vs central FD, worst relative error %.1e\n", (double)worst));
  FGTestCheck(worst <= 1e-6, "P' vs FD: relative error %g > 1e-6", (double)worst);
  {
    PetscReal p, dp;
    PetscCall(FGDensityProjection(0.0, 0.5, 0.3, &p, &dp));
    FGTestCheck(p == 0.3 && dp == 1.0, "beta = 0: P(0.3) = %g, P' = %g", (double)p, (double)dp);
  }
  EXPECT(FGDensityProjection(-1.0, 0.5, 0.3, NULL, NULL), FG_ERR_INPUT, "density:", "beta", NULL, NULL);
  EXPECT(FGDensityProjection(1.0, 1.5, 0.3, NULL, NULL), FG_ERR_INPUT, "density:", "threshold", NULL, NULL);
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, 2, n, Lbox, NULL, per, FG_DECOMP_BLOCK, &g));
  EXPECT(FGDensityCreate(g, -1.0, 1.0, 0.5, &d), FG_ERR_INPUT, "density:", "radius", NULL, NULL);
  EXPECT(FGDensityCreate(g, 1.0, (PetscReal)INFINITY, 0.5, &d), FG_ERR_INPUT, "density:", "beta", NULL, NULL);
  PetscCall(FGDensityCreate(g, 1.0, 2.0, 0.5, &d));
  EXPECT(FGDensitySetProjection(d, 4.0, -0.1), FG_ERR_INPUT, "density:", "threshold", NULL, NULL);
  PetscCall(FGDensitySetProjection(d, 4.0, 0.4));
  PetscCall(FGDensityView(d, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(FGDensityDestroy(&d));
  PetscCall(FGGridDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   6. reading
   --------------------------------------------------------------------------------------------- */

/* set one cell (natural (i, j, k)) of x to v, on its owner */
static PetscErrorCode SetCell(FGGrid g, Vec x, PetscInt i, PetscInt j, PetscInt k, PetscReal v)
{
  const FGBox *b = &g->box;
  PetscScalar *a;

  PetscFunctionBeginUser;
  if (i >= b->lo[0] && i < b->hi[0] && j >= b->lo[1] && j < b->hi[1] && k >= b->lo[2] && k < b->hi[2]) {
    PetscCall(VecGetArray(x, &a));
    a[FGBoxOwnedIndex(b, i, j, k)] = v;
    PetscCall(VecRestoreArray(x, &a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckRead(void)
{
  const char     *where = "case.yaml:12: body.topo.density_file";
  const PetscInt  n2[2] = {24, 18}, n2b[2] = {24, 17}, n3[3] = {10, 8, 6};
  const PetscBool per[3] = {PETSC_FALSE, PETSC_TRUE, PETSC_FALSE};
  FGGrid          gw, gr, gb, g3w, g3r;
  Vec             rho, bad, nan, slack, back, rb, r3, back3;
  FGIOMeta        meta = {.time = 0.0, .step = 0, .case_hash = 0x1ULL, .case_name = "density test", .nvectors = 0, .vectors = NULL, .no_sidecar = PETSC_FALSE};
  FGIOField       fields[4];
  PetscMPIInt     size, rank;
  PetscReal       err, mn, mx;
  PetscInt        nobj;
  char            pre[64], file[256], file3[256], wrong[256], missing[256], text[256];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  snprintf(pre, sizeof(pre), "density_np%d_", (int)size);
  snprintf(file, sizeof(file), "%sok.h5", pre);
  snprintf(file3, sizeof(file3), "%s3d.h5", pre);
  snprintf(wrong, sizeof(wrong), "%swrong.h5", pre);
  snprintf(missing, sizeof(missing), "%smissing.h5", pre);
  snprintf(text, sizeof(text), "%stext.h5", pre);

  /* written on a block decomposition, read on a slab one */
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, 2, n2, Lbox, NULL, per, FG_DECOMP_BLOCK, &gw));
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, 2, n2, Lbox, NULL, per, FG_DECOMP_SLAB, &gr));
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, 2, n2b, Lbox, NULL, per, FG_DECOMP_BLOCK, &gb));
  PetscCall(DMCreateGlobalVector(gw->da, &rho));
  PetscCall(VecDuplicate(rho, &bad));
  PetscCall(VecDuplicate(rho, &nan));
  PetscCall(VecDuplicate(rho, &slack));
  PetscCall(DMCreateGlobalVector(gr->da, &back));
  PetscCall(DMCreateGlobalVector(gb->da, &rb));
  PetscCall(FillHash(gw, 51, 0.0, 1.0, rho));
  PetscCall(SetCell(gw, rho, 0, 0, 0, 0.0));
  PetscCall(SetCell(gw, rho, 1, 0, 0, 1.0));
  PetscCall(VecCopy(rho, bad));
  PetscCall(SetCell(gw, bad, 5, 3, 0, 1.5));
  PetscCall(SetCell(gw, bad, 7, 9, 0, -0.25));
  PetscCall(VecCopy(rho, nan));
  PetscCall(SetCell(gw, nan, 20, 17, 0, (PetscReal)NAN));
  PetscCall(VecCopy(rho, slack));
  PetscCall(SetCell(gw, slack, 2, 2, 0, 1 + 1e-13));
  PetscCall(SetCell(gw, slack, 3, 2, 0, -1e-13));
  fields[0] = (FGIOField){.name = "rho", .location = FG_LOC_CELL, .vec = rho};
  fields[1] = (FGIOField){.name = "bad", .location = FG_LOC_CELL, .vec = bad};
  fields[2] = (FGIOField){.name = "nan", .location = FG_LOC_CELL, .vec = nan};
  fields[3] = (FGIOField){.name = "slack", .location = FG_LOC_CELL, .vec = slack};
  PetscCall(FGIOWriteFields(gw, file, &meta, 4, fields));
  PetscCall(VecSet(rb, 0.5));
  fields[0] = (FGIOField){.name = "rho", .location = FG_LOC_CELL, .vec = rb};
  PetscCall(FGIOWriteFields(gb, wrong, &meta, 1, fields));
  if (rank == 0) {
    FILE *fp = fopen(text, "w");
    PetscCheck(fp && fputs("not HDF5\n", fp) >= 0 && fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "test: cannot write %s", text);
    (void)remove(missing);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "reads that must succeed:\n"));
  PetscCall(FGDensityRead(gr, file, "rho", where, back));
  {
    Vec s1, s2;
    PetscCall(FGGridGatherNatural(gw, rho, &s1));
    PetscCall(FGGridGatherNatural(gr, back, &s2));
    PetscCall(VecAXPY(s2, -1.0, s1));
    PetscCall(VecNorm(s2, NORM_INFINITY, &err));
    PetscCallMPI(MPI_Bcast(&err, 1, MPIU_REAL, 0, PETSC_COMM_WORLD));
    FGTestCheck(err == 0, "2D density read back differs by %g", (double)err);
    PetscCall(VecDestroy(&s1));
    PetscCall(VecDestroy(&s2));
  }
  PetscCall(FGDensityRead(gr, file, "slack", NULL, back));
  PetscCall(VecMin(back, NULL, &mn));
  PetscCall(VecMax(back, NULL, &mx));
  FGTestCheck(mn == 0 && mx == 1, "values within 1e-12 of [0, 1] are not clipped: [%.17g, %.17g]", (double)mn, (double)mx);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  ok: 2D read back bit for bit on another decomposition; slack values clipped to [%g, %g]\n", (double)mn, (double)mx));

  /* 3D */
  {
    const PetscBool per3[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_TRUE};
    Vec             s1, s2;
    PetscCall(FGGridCreate(PETSC_COMM_WORLD, 3, n3, Lbox, NULL, per3, FG_DECOMP_SLAB, &g3w));
    PetscCall(FGGridCreate(PETSC_COMM_WORLD, 3, n3, Lbox, NULL, per3, FG_DECOMP_BLOCK, &g3r));
    PetscCall(DMCreateGlobalVector(g3w->da, &r3));
    PetscCall(DMCreateGlobalVector(g3r->da, &back3));
    PetscCall(FillHash(g3w, 52, 0.0, 1.0, r3));
    fields[0] = (FGIOField){.name = "rho3", .location = FG_LOC_CELL, .vec = r3};
    PetscCall(FGIOWriteFields(g3w, file3, &meta, 1, fields));
    PetscCall(FGDensityRead(g3r, file3, "rho3", where, back3));
    PetscCall(FGGridGatherNatural(g3w, r3, &s1));
    PetscCall(FGGridGatherNatural(g3r, back3, &s2));
    PetscCall(VecAXPY(s2, -1.0, s1));
    PetscCall(VecNorm(s2, NORM_INFINITY, &err));
    PetscCallMPI(MPI_Bcast(&err, 1, MPIU_REAL, 0, PETSC_COMM_WORLD));
    FGTestCheck(err == 0, "3D density read back differs by %g", (double)err);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  ok: 3D read back bit for bit on another decomposition\n"));
    PetscCall(VecDestroy(&s1));
    PetscCall(VecDestroy(&s2));
  }

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "reads that must fail (FG_ERR_INPUT):\n"));
  EXPECT(FGDensityRead(gr, wrong, "rho", where, back), FG_ERR_INPUT, where, wrong, "shape (17, 24)", "(ny, nx) = (18, 24)");
  EXPECT(FGDensityRead(gb, file, "rho", where, rb), FG_ERR_INPUT, where, file, "shape (18, 24)", "(17, 24)");
  EXPECT(FGDensityRead(g3r, file, "rho", where, back3), FG_ERR_INPUT, where, file, "shape (18, 24)", "(nz, ny, nx) = (6, 8, 10)");
  EXPECT(FGDensityRead(gr, file, "nope", where, back), FG_ERR_INPUT, where, file, "no dataset /nope", NULL);
  EXPECT(FGDensityRead(gr, missing, "rho", where, back), FG_ERR_INPUT, where, missing, "No such file", NULL);
  EXPECT(FGDensityRead(gr, text, "rho", where, back), FG_ERR_INPUT, where, text, "not a readable HDF5 file", NULL);
  EXPECT(FGDensityRead(gr, file, "bad", where, back), FG_ERR_INPUT, where, file, "2 values outside [0, 1]", "(i, j) = (5, 3), is 1.5");
  EXPECT(FGDensityRead(gr, file, "nan", where, back), FG_ERR_INPUT, where, file, "(i, j) = (20, 17)", "nan");
  EXPECT(FGDensityRead(gr, file, "a/b", where, back), FG_ERR_INPUT, where, "invalid dataset name", NULL, NULL);
  EXPECT(FGDensityRead(gr, "", "rho", where, back), FG_ERR_INPUT, where, "empty", NULL, NULL);
  EXPECT(FGDensityRead(gr, missing, "rho", NULL, back), FG_ERR_INPUT, "density: ", missing, NULL, NULL);

  PetscCall(VecDestroy(&rho));
  PetscCall(VecDestroy(&bad));
  PetscCall(VecDestroy(&nan));
  PetscCall(VecDestroy(&slack));
  PetscCall(VecDestroy(&back));
  PetscCall(VecDestroy(&rb));
  PetscCall(VecDestroy(&r3));
  PetscCall(VecDestroy(&back3));
  PetscCall(FGGridDestroy(&gw));
  PetscCall(FGGridDestroy(&gr));
  PetscCall(FGGridDestroy(&gb));
  PetscCall(FGGridDestroy(&g3w));
  PetscCall(FGGridDestroy(&g3r));
  nobj = (PetscInt)H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nobj, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  FGTestCheck(nobj == 0, "%" PetscInt_FMT " HDF5 objects left open", nobj);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunAll(void)
{
  PetscFunctionBeginUser;
  for (size_t q = 0; q < sizeof(cases) / sizeof(cases[0]); q++) {
    PetscCall(CheckCase(&cases[q]));
    PetscCall(CheckRanks(&cases[q]));
  }
  PetscCall(CheckKernel());
  PetscCall(CheckProjection());
  PetscCall(CheckRead());
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;

  if (FGInitialize(&argc, &argv, help)) return 1;
  ierr = RunAll();
  if (!ierr) ierr = PetscPrintf(PETSC_COMM_WORLD, "%s\n", fg_test_failures ? "FAILED" : "all checks passed");
  return FGTestExit(ierr);
}
