/*
  Poisson solve time per grid point, against a bare FFTW-MPI transform pair.

  For one grid (2D n^2 or 3D n^3) and one boundary set (all Neumann, like a cavity, or all
  periodic), on the ranks of the run, it times:
    fft   FGPoissonSolve with FG_POISSON_FFTW (copy in, forward r2r, scale, inverse r2r, copy out)
    bare  fftw_execute of a forward + inverse fftw_mpi_plan_many_r2r pair of the same size, kinds,
          slab layout and flags (TRANSPOSED_OUT / TRANSPOSED_IN), i.e. what the solve cannot avoid
    ksp   FGPoissonSolve with FG_POISSON_KSP (default CG + GAMG; -poisson_pc_type hypre etc. pass
          through), on the same grid or a smaller one (-ksp_n)
  Each is run -warmup times, then -reps times; a repetition's time is the slowest rank's, and the
  median is reported as nanoseconds per grid point. One CSV row per measurement goes to -csv FILE
  (appended). bench/poisson.sh runs the standard set. -stretch BETA: the same on a stretched grid
  (a tanh map, both ends refined): the FFT solve with the slab direction stretched (transforms in
  the others, the Thomas algorithm along it: "fft-stretched"), the KSP solve with every direction
  stretched ("ksp-gamg-stretched"); the bare pair stays the uniform one.

  Sample runs:
    ./poisson_bench -dim 2 -n 1024 -bc neumann
    mpiexec -n 2 ./poisson_bench -dim 3 -n 128 -bc periodic -reps 10 -ksp -ksp_n 64
*/
#include <flowgrad.h>
#include <fftw3-mpi.h>

static const char help[] = "Poisson solve time per point (FFT, bare FFTW, KSP).\n";

static int CompareReal_Private(const void *a, const void *b)
{
  PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return (x > y) - (x < y);
}

typedef PetscErrorCode (*BenchFn)(void *);

/* Median over reps of the slowest rank's time of fn[0](ctx[0]) and, if fn[1] is given, of
   fn[1](ctx[1]), the two alternating in every repetition so that both see the same machine load;
   warmup untimed calls first. prep[f](ctx[f]), if given, runs before each call, untimed. */
static PetscErrorCode TimeIt_Private(MPI_Comm comm, BenchFn fn[2], BenchFn prep[2], void *ctx[2], PetscInt warmup, PetscInt reps, PetscReal median[2])
{
  PetscReal *t[2];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(reps, &t[0], reps, &t[1]));
  for (PetscInt r = 0; r < warmup + reps; r++) {
    for (PetscInt f = 0; f < 2; f++) {
      double t0, dt, dtmax;
      if (!fn[f]) continue;
      if (prep[f]) PetscCall(prep[f](ctx[f]));
      PetscCallMPI(MPI_Barrier(comm));
      t0 = MPI_Wtime();
      PetscCall(fn[f](ctx[f]));
      dt = MPI_Wtime() - t0;
      PetscCallMPI(MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, comm));
      if (r >= warmup) t[f][r - warmup] = dtmax;
    }
  }
  for (PetscInt f = 0; f < 2; f++) {
    median[f] = 0;
    if (!fn[f]) continue;
    qsort(t[f], (size_t)reps, sizeof(PetscReal), CompareReal_Private);
    median[f] = reps % 2 ? t[f][reps / 2] : 0.5 * (t[f][reps / 2 - 1] + t[f][reps / 2]);
  }
  PetscCall(PetscFree2(t[0], t[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  FGPoisson p;
  Vec       b, x;
} SolveCtx;

static PetscErrorCode Solve_Private(void *ctx)
{
  SolveCtx *s = (SolveCtx *)ctx;

  PetscFunctionBeginUser;
  PetscCall(FGPoissonSolve(s->p, s->b, s->x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  fftw_plan fwd, bwd;
  double   *in, *out;
  Vec       b; /* the right-hand side: the input of every repetition */
} BareCtx;

/* Load the right-hand side into the input buffer (the unnormalized pair scales by N each time). */
static PetscErrorCode BarePrep_Private(void *ctx)
{
  BareCtx           *s = (BareCtx *)ctx;
  const PetscScalar *a;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(s->b, &n));
  PetscCall(VecGetArrayRead(s->b, &a));
  PetscCall(PetscArraycpy(s->in, a, n));
  PetscCall(VecRestoreArrayRead(s->b, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Bare_Private(void *ctx)
{
  BareCtx *s = (BareCtx *)ctx;

  PetscFunctionBeginUser;
  fftw_execute(s->fwd);
  fftw_execute(s->bwd);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A rough right-hand side: smooth part plus a hash of the global index (all frequencies). */
static PetscErrorCode FillRHS_Private(FGGrid g, Vec b)
{
  const FGBox *bx = &g->box;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayWrite(b, &a));
  for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
    for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
      for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
        unsigned long long h = (unsigned long long)(i + g->n[0] * (j + g->n[1] * k)) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 31;
        a[FGBoxOwnedIndex(bx, i, j, k)] = PetscSinReal(6.0 * FGGridCoordinate(g, FG_LOC_CELL, 0, i)) + ((PetscReal)(h >> 11) / 9007199254740992.0 - 0.5);
      }
  PetscCall(VecRestoreArrayWrite(b, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Row_Private(FILE *csv, PetscInt dim, PetscInt n, const char *bc, int size, const char *solver, PetscInt reps, PetscReal t, PetscReal points, PetscReal bare, PetscInt its)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%dD %5" PetscInt_FMT "^%d  %-9s np %d  %-11s %10.4f s  %8.2f ns/pt", (int)dim, n, (int)dim, bc, size, solver, (double)t, (double)(1e9 * t / points)));
  if (bare > 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  bare %6.2f ns/pt  solve/bare %5.2f", (double)(1e9 * bare / points), (double)(t / bare)));
  if (its >= 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %3" PetscInt_FMT " its", its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  if (csv) {
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, csv, "%d,%" PetscInt_FMT ",%s,%d,%s,%" PetscInt_FMT ",%.6e,%.3f,", (int)dim, n, bc, size, solver, reps, (double)t, (double)(1e9 * t / points)));
    if (bare > 0) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, csv, "%.3f,%.3f,", (double)(1e9 * bare / points), (double)(t / bare)));
    else PetscCall(PetscFPrintf(PETSC_COMM_WORLD, csv, ",,"));
    if (its >= 0) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, csv, "%" PetscInt_FMT "\n", its));
    else PetscCall(PetscFPrintf(PETSC_COMM_WORLD, csv, "\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Bench(void)
{
  PetscInt    dim = 2, n = 1024, kspn = -1, reps = 10, warmup = 2, ksp_reps = 3, which = 0;
  PetscBool   doksp = PETSC_FALSE, dofft = PETSC_TRUE;
  PetscReal   beta  = 0;
  const char *bcnames[] = {"neumann", "periodic"};
  char        csvname[PETSC_MAX_PATH_LEN] = "";
  FILE       *csv                         = NULL;
  PetscMPIInt size, rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Poisson benchmark", NULL);
  PetscCall(PetscOptionsInt("-dim", "2 or 3", NULL, dim, &dim, NULL));
  PetscCall(PetscOptionsInt("-n", "cells per direction", NULL, n, &n, NULL));
  PetscCall(PetscOptionsEList("-bc", "boundary kinds on every face", NULL, bcnames, 2, bcnames[which], &which, NULL));
  PetscCall(PetscOptionsInt("-reps", "timed repetitions", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsInt("-warmup", "untimed repetitions first", NULL, warmup, &warmup, NULL));
  PetscCall(PetscOptionsBool("-fft", "time the FFT solve and the bare transforms", NULL, dofft, &dofft, NULL));
  PetscCall(PetscOptionsBool("-ksp", "also time the KSP solve", NULL, doksp, &doksp, NULL));
  PetscCall(PetscOptionsInt("-ksp_n", "cells per direction for the KSP solve (default -n)", NULL, kspn, &kspn, NULL));
  PetscCall(PetscOptionsInt("-ksp_reps", "timed repetitions of the KSP solve", NULL, ksp_reps, &ksp_reps, NULL));
  PetscCall(PetscOptionsString("-csv", "append CSV rows to this file", NULL, csvname, csvname, sizeof(csvname), NULL));
  PetscCall(PetscOptionsReal("-stretch", "> 0: a tanh map of this beta (refined at both ends) along the slab direction (FFT: transforms + Thomas) and along every direction (KSP)", NULL, beta, &beta, NULL));
  PetscOptionsEnd();
  if (kspn < 0) kspn = n;
  if (csvname[0]) PetscCall(PetscFOpen(PETSC_COMM_WORLD, csvname, "a", &csv));

  for (PetscInt pass = 0; pass < 2; pass++) {
    const PetscInt nn = pass == 0 ? n : kspn;
    PetscInt       cells[3] = {nn, nn, nn};
    PetscReal      L[3]     = {1, 1, 1}, points = 1;
    PetscBool      per[3];
    FGPoissonBC    bc[3][2];
    FGGrid         g;
    SolveCtx       s;
    PetscReal      t;

    if (pass == 0 && !dofft) continue;
    if (pass == 1 && !doksp) continue;
    for (PetscInt d = 0; d < 3; d++) {
      per[d]   = (PetscBool)(which == 1);
      bc[d][0] = bc[d][1] = which == 1 ? FG_PBC_PERIODIC : FG_PBC_NEUMANN;
    }
    for (PetscInt d = 0; d < dim; d++) points *= (PetscReal)nn;
    PetscCall(FGGridCreate(PETSC_COMM_WORLD, dim, cells, L, NULL, per, FG_DECOMP_SLAB, &g));
    if (beta > 0)
      for (PetscInt d = pass == 0 ? dim - 1 : 0; d < dim; d++) {
        PetscReal *f;
        PetscCall(PetscMalloc1(nn + 1, &f));
        PetscCall(FGStretchTanh(0, L[d], nn, beta, FG_CLUSTER_BOTH, f));
        PetscCall(FGGridSetFaces(g, d, f));
        PetscCall(PetscFree(f));
      }
    PetscCall(DMCreateGlobalVector(g->da, &s.b));
    PetscCall(VecDuplicate(s.b, &s.x));
    PetscCall(FillRHS_Private(g, s.b));

    if (pass == 0) {
      /* the FFT solve */
      PetscReal     bare;
      BareCtx       bc_;
      ptrdiff_t     dims[3], alloc_local, ln0, l0s, ln1, l1s;
      fftw_r2r_kind kf[3], kb[3];
      double       *in, *out;
      unsigned      flags = FFTW_MEASURE;
      PetscInt      pl    = 1;
      const char   *pnames[] = {"estimate", "measure", "patient", "exhaustive"};
      const unsigned pflags[] = {FFTW_ESTIMATE, FFTW_MEASURE, FFTW_PATIENT, FFTW_EXHAUSTIVE};

      PetscCall(FGPoissonCreate(g, FG_POISSON_FFTW, (const FGPoissonBC(*)[2])bc, &s.p));
      PetscCall(FGPoissonSetUp(s.p));

      /* the bare transform pair: same sizes, kinds, layout and planner flags (FFTW's wisdom from
         the solver's planning gives it the same algorithms) */
      PetscCall(PetscOptionsGetEList(NULL, NULL, "-fg_fftw_planner", pnames, 4, &pl, NULL));
      flags = pflags[pl];
      for (PetscInt a = 0; a < dim; a++) {
        dims[a] = (ptrdiff_t)nn;
        kf[a]   = which == 1 ? FFTW_R2HC : FFTW_REDFT10;
        kb[a]   = which == 1 ? FFTW_HC2R : FFTW_REDFT01;
      }
      alloc_local = fftw_mpi_local_size_many_transposed((int)dim, dims, 1, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, PETSC_COMM_WORLD, &ln0, &l0s, &ln1, &l1s);
      in          = fftw_alloc_real((size_t)alloc_local);
      out         = fftw_alloc_real((size_t)alloc_local);
      PetscCheck(in && out, PETSC_COMM_SELF, PETSC_ERR_MEM, "fftw_alloc_real failed");
      bc_.fwd = fftw_mpi_plan_many_r2r((int)dim, dims, 1, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, in, out, PETSC_COMM_WORLD, kf, flags | FFTW_MPI_TRANSPOSED_OUT);
      bc_.bwd = fftw_mpi_plan_many_r2r((int)dim, dims, 1, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, out, in, PETSC_COMM_WORLD, kb, flags | FFTW_MPI_TRANSPOSED_IN);
      PetscCheck(bc_.fwd && bc_.bwd, PETSC_COMM_WORLD, PETSC_ERR_LIB, "fftw_mpi_plan_many_r2r failed");
      for (ptrdiff_t i = 0; i < alloc_local; i++) in[i] = out[i] = 0.0;
      bc_.in = in, bc_.out = out, bc_.b = s.b;
      {
        BenchFn   fn[2] = {Solve_Private, Bare_Private}, prep[2] = {NULL, BarePrep_Private};
        void     *ctx[2] = {&s, &bc_};
        PetscReal med[2];
        PetscCall(TimeIt_Private(PETSC_COMM_WORLD, fn, prep, ctx, warmup, reps, med));
        t = med[0], bare = med[1];
      }
      fftw_destroy_plan(bc_.fwd);
      fftw_destroy_plan(bc_.bwd);
      fftw_free(in);
      fftw_free(out);
      PetscCall(Row_Private(csv, dim, nn, bcnames[which], size, beta > 0 ? "fft-stretched" : "fft", reps, t, points, bare, -1));
    } else {
      PetscInt its;
      char     pc[64] = "gamg", name[80];
      PetscCall(FGPoissonCreate(g, FG_POISSON_KSP, (const FGPoissonBC(*)[2])bc, &s.p));
      PetscCall(FGPoissonSetUp(s.p));
      {
        BenchFn   fn[2] = {Solve_Private, NULL}, prep[2] = {NULL, NULL};
        void     *ctx[2] = {&s, NULL};
        PetscReal med[2];
        PetscCall(TimeIt_Private(PETSC_COMM_WORLD, fn, prep, ctx, 1, ksp_reps, med));
        t = med[0];
      }
      PetscCall(FGPoissonGetIterations(s.p, &its));
      PetscCall(PetscOptionsGetString(NULL, "poisson_", "-pc_type", pc, sizeof(pc), NULL));
      PetscCall(PetscSNPrintf(name, sizeof(name), "ksp-%s%s", pc, beta > 0 ? "-stretched" : ""));
      PetscCall(Row_Private(csv, dim, nn, bcnames[which], size, name, ksp_reps, t, points, -1, its));
    }
    PetscCall(FGPoissonDestroy(&s.p));
    PetscCall(VecDestroy(&s.b));
    PetscCall(VecDestroy(&s.x));
    PetscCall(FGGridDestroy(&g));
  }
  if (csv) PetscCall(PetscFClose(PETSC_COMM_WORLD, csv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  int            code = 0;

  if (FGInitialize(&argc, &argv, help)) return 1;
  ierr = Bench();
  if (ierr) (void)FGErrorReport(ierr, &code);
  if (FGFinalize()) code = code ? code : 1;
  return code;
}
