/*
  Forward-solver throughput: cell-steps per second and time per step of FGStepForward_RK3, and
  where the time goes, per operator.

  1. Throughput. -warmup steps untimed, then -reps repetitions of -steps steps of
     FGStepForward_RK3; a repetition's time is the slowest rank's (barrier before, MPI_MAX
     after); the median over the repetitions is reported as seconds per step and as
     cells * steps / time (cell-steps/s), and the fastest repetition next to it.
  2. Breakdown (-breakdown, default on). The same step written out with the public operators of
     include/fg/ops.h, one call per line as in src/step/rk3.c, each call timed and logged as a
     PetscLogEvent of the class "flowgrad-bench" (-log_view shows them in the stage
     "instrumented step", next to the library's own events FGStep, FGOpAdvection, ...):
        momentum    FGOpMomentum (advection + diffusion in one sweep)
        divergence  FGOpDivergence (+ 1/(gamma dt))  poisson    FGPoissonSolve
        gradient    FGOpGradientCorrect              bcfill     FGOpFillBoundary, FGOpSetBoundaryFaces, FGOpOutflow
        ghost       DMGlobalToLocal of u and phi     update     the RK3 vector updates (VecAXPBYPCZ, VecCopy)
     Before it is timed, one instrumented step is compared with one FGStepForward_RK3 step from
     the same state: they must agree to 1e-13 relative (else the bench stops: rk3.c changed and
     this copy has to follow). Each operator's time is the slowest rank's sum over the -steps steps
     of a repetition, median over the repetitions, per step; waiting for a neighbour shows up in
     the ghost exchange (and, inside the FFT, in the Poisson solve). The plain and the
     instrumented repetitions alternate, so that both see the same load of a shared machine.
  The cavity's initial state is smooth and divergence free (a product of sines, projected), not
  a flow from rest: a cavity started from rest spends its first thousands of steps with subnormal numbers
  in the still region, which is slower and not what a developed run costs.

  Cases: -case tg (periodic box of side 2 pi, Taylor-Green vortex in 2D, ABC flow in 3D) or
  cavity (unit box, lid at y = 1, walls), -dim 2|3, -n cells per direction; -poisson fftw|ksp; -csv FILE appends one row.
  bench/forward.sh runs the standard set.

  Sample runs:
    ./forward_bench -case tg -dim 2 -n 1024
    mpiexec -n 2 ./forward_bench -case cavity -dim 3 -n 128 -steps 5 -reps 5 -log_view
*/
#include <flowgrad.h>
#include <fg/step.h>

static const char help[] = "Forward solver throughput and per-operator time.\n";

/* The RK3 coefficients of src/step/rk3.c (the comparison with FGStepForward_RK3 checks them). */
static const PetscReal RK3_ALPHA[3] = {8.0 / 15.0, 5.0 / 12.0, 3.0 / 4.0};
static const PetscReal RK3_BETA[3]  = {0.0, -17.0 / 60.0, -5.0 / 12.0};
static const PetscReal RK3_C[4]     = {0.0, 8.0 / 15.0, 2.0 / 3.0, 1.0};

typedef enum { OP_MOMENTUM, OP_DIVERGENCE, OP_POISSON, OP_GRADIENT, OP_BCFILL, OP_GHOST, OP_UPDATE, OP_N } Op;
static const char *const OpNames[OP_N] = {"momentum", "divergence", "poisson", "gradient", "bcfill", "ghost", "update"};

typedef struct {
  PetscLogEvent  event[OP_N];
  PetscLogDouble acc[OP_N]; /* this rank's seconds */
  PetscLogDouble t0;
  Op             cur;
} Timers;

static inline PetscErrorCode Begin_Private(Timers *tm, Op op)
{
  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(tm->event[op], 0, 0, 0, 0));
  tm->cur = op;
  tm->t0  = MPI_Wtime();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode End_Private(Timers *tm)
{
  PetscFunctionBeginUser;
  tm->acc[tm->cur] += MPI_Wtime() - tm->t0;
  PetscCall(PetscLogEventEnd(tm->event[tm->cur], 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define TIMED(tm, op, call) \
  do { \
    PetscCall(Begin_Private(tm, op)); \
    PetscCall(call); \
    PetscCall(End_Private(tm)); \
  } while (0)

/* s->ul = ghosted u with boundary values at time t: the two halves of FGSolverFillGhosts. */
static PetscErrorCode FillGhosts_Private(FGSolver s, Timers *tm, PetscReal t)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < s->grid->dim; a++) TIMED(tm, OP_GHOST, DMGlobalToLocal(s->grid->da, s->u[a], INSERT_VALUES, s->ul[a]));
  TIMED(tm, OP_BCFILL, FGOpFillBoundary(s->grid, &s->bc, t, s->ul));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One step of FGStepForward_RK3 (src/step/rk3.c), one timed call per line (no body force: the
   bench's cases have none, and main() checks it). */
static PetscErrorCode StepInstrumented_Private(FGSolver s, Timers *tm)
{
  const PetscReal t0 = s->t, dt = s->dt;
  const PetscInt  dim = s->grid->dim;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < 3; k++) {
    const PetscReal tk = t0 + RK3_C[k] * dt, tk1 = t0 + RK3_C[k + 1] * dt;
    const PetscReal gdt = (RK3_ALPHA[k] + RK3_BETA[k]) * dt;
    /* 1. boundary values at the stage start */
    PetscCall(FillGhosts_Private(s, tm, tk));
    /* 2. H = -A(u) + nu L(u) (+ outflow condition) */
    TIMED(tm, OP_MOMENTUM, FGOpMomentum(s->grid, &s->bc, s->prm.v[FG_PARAM_NU], s->ul, s->H));
    TIMED(tm, OP_BCFILL, FGOpOutflow(s->grid, &s->bc, s->ul, s->H));
    /* 3. u* = u + dt (alpha H + beta Hold) */
    for (PetscInt a = 0; a < dim; a++) TIMED(tm, OP_UPDATE, VecAXPBYPCZ(s->u[a], dt * RK3_ALPHA[k], dt * RK3_BETA[k], 1.0, s->H[a], s->Hold[a]));
    for (PetscInt a = 0; a < dim; a++) {
      Vec tmp    = s->Hold[a];
      s->Hold[a] = s->H[a];
      s->H[a]    = tmp;
    }
    TIMED(tm, OP_BCFILL, FGOpSetBoundaryFaces(s->grid, &s->bc, tk1, s->u));
    /* 4. L phi = D u* / (gamma dt), u = u* - gamma dt G phi, p = phi */
    PetscCall(FillGhosts_Private(s, tm, tk1));
    TIMED(tm, OP_DIVERGENCE, FGOpDivergence(s->grid, s->ul, s->div));
    TIMED(tm, OP_DIVERGENCE, VecScale(s->div, 1.0 / gdt));
    TIMED(tm, OP_POISSON, FGPoissonSolve(s->poisson, s->div, s->phi));
    TIMED(tm, OP_GHOST, DMGlobalToLocal(s->grid->da, s->phi, INSERT_VALUES, s->phil));
    TIMED(tm, OP_GRADIENT, FGOpGradientCorrect(s->grid, &s->bc, gdt, s->phil, s->u));
  }
  /* 5. p = phi of the last stage */
  TIMED(tm, OP_UPDATE, VecCopy(s->phi, s->p));
  s->t = t0 + dt;
  s->step++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A smooth, divergence-free state that satisfies the boundary conditions:
   u_a = 0.5 prod_d sin(pi (x_d - x0_d)/L_d + 0.7 (a + 1) d), then projected. */
static PetscErrorCode SmoothState_Private(FGSolver s)
{
  FGGrid g = s->grid;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar *ua;
    PetscCall(VecGetArray(s->u[a], &ua));
    for (PetscInt k = g->box.lo[2]; k < g->box.hi[2]; k++)
      for (PetscInt j = g->box.lo[1]; j < g->box.hi[1]; j++)
        for (PetscInt i = g->box.lo[0]; i < g->box.hi[0]; i++) {
          const PetscInt idx[3] = {i, j, k};
          PetscReal      v      = 0.5;
          for (PetscInt d = 0; d < g->dim; d++) v *= PetscSinReal(PETSC_PI * (FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]) - g->x0[d]) / g->L[d] + 0.7 * (a + 1) * d);
          ua[FGBoxOwnedIndex(&g->box, i, j, k)] = v;
        }
    PetscCall(VecRestoreArray(s->u[a], &ua));
  }
  PetscCall(FGOpSetBoundaryFaces(g, &s->bc, s->t, s->u));
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  PetscCall(FGOpDivergence(g, s->ul, s->div));
  PetscCall(FGPoissonSolve(s->poisson, s->div, s->phi));
  PetscCall(DMGlobalToLocal(g->da, s->phi, INSERT_VALUES, s->phil));
  PetscCall(FGOpGradientCorrect(g, &s->bc, 1.0, s->phil, s->u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CompareReal_Private(const void *a, const void *b)
{
  PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return (x > y) - (x < y);
}

static PetscReal Median_Private(PetscInt n, PetscReal *v)
{
  qsort(v, (size_t)n, sizeof(PetscReal), CompareReal_Private);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One FGStepForward_RK3 step and one instrumented step from the same state must agree. */
static PetscErrorCode CheckInstrumented_Private(FGSolver s, Timers *tm)
{
  Vec       u0[3], u1[3], H0[3], Ho0[3], p1;
  PetscReal t = s->t, diff = 0, ref = 0;
  PetscInt  step = s->step;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    PetscCall(VecDuplicate(s->u[a], &u0[a]));
    PetscCall(VecDuplicate(s->u[a], &u1[a]));
    PetscCall(VecDuplicate(s->u[a], &H0[a]));
    PetscCall(VecDuplicate(s->u[a], &Ho0[a]));
    PetscCall(VecCopy(s->u[a], u0[a]));
    PetscCall(VecCopy(s->H[a], H0[a]));
    PetscCall(VecCopy(s->Hold[a], Ho0[a]));
  }
  PetscCall(FGStepForward_RK3(s, NULL));
  PetscCall(VecDuplicate(s->p, &p1));
  PetscCall(VecCopy(s->p, p1));
  PetscCall(VecSet(s->p, 0.0));
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    PetscCall(VecCopy(s->u[a], u1[a]));
    PetscCall(VecCopy(u0[a], s->u[a]));
    PetscCall(VecCopy(H0[a], s->H[a]));
    PetscCall(VecCopy(Ho0[a], s->Hold[a]));
  }
  s->t    = t;
  s->step = step;
  PetscCall(StepInstrumented_Private(s, tm));
  {
    PetscReal d, r;
    PetscCall(VecAXPY(p1, -1.0, s->p));
    PetscCall(VecNorm(p1, NORM_INFINITY, &d));
    PetscCall(VecNorm(s->p, NORM_INFINITY, &r));
    PetscCheck(d <= 1e-13 * r, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the instrumented step's pressure differs from FGStepForward_RK3's by %g (relative): bench/forward_bench.c must follow src/step/rk3.c", (double)(d / r));
    PetscCall(VecDestroy(&p1));
  }
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    PetscReal d, r;
    PetscCall(VecAXPY(u1[a], -1.0, s->u[a]));
    PetscCall(VecNorm(u1[a], NORM_INFINITY, &d));
    PetscCall(VecNorm(s->u[a], NORM_INFINITY, &r));
    diff = PetscMax(diff, d);
    ref  = PetscMax(ref, r);
    PetscCall(VecDestroy(&u0[a]));
    PetscCall(VecDestroy(&u1[a]));
    PetscCall(VecDestroy(&H0[a]));
    PetscCall(VecDestroy(&Ho0[a]));
  }
  PetscCheck(diff <= 1e-13 * ref, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "the instrumented step differs from FGStepForward_RK3 by %g (relative): bench/forward_bench.c must follow src/step/rk3.c", (double)(diff / ref));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "instrumented step = FGStepForward_RK3 to %.1e (relative)\n", (double)(diff / ref)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const char *const cases[] = {"tg", "cavity"};
  PetscInt          which = 0, dim = 2, n = 256, steps = 10, reps = 5, warmup = 3;
  PetscBool         breakdown = PETSC_TRUE;
  char              ptype[16] = "fftw", viscous[16] = "explicit", csvname[PETSC_MAX_PATH_LEN] = "";
  PetscReal         dtlim = 0;
  PetscMPIInt       size;
  FGCase           *c;
  FGSolver          s;
  Timers            tm;
  PetscReal        *t, *to, tstep, tmin, cells = 1, opmed[OP_N], ksum = 0;
  PetscLogStage     stage[2];
  PetscClassId      classid;
  char              text[2048], cellstr[64], lenstr[128];
  FILE             *csv = NULL;

  PetscCall(FGInitialize(&argc, &argv, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Forward benchmark", NULL);
  PetscCall(PetscOptionsEList("-case", "tg (periodic) or cavity (walls + lid)", NULL, cases, 2, cases[which], &which, NULL));
  PetscCall(PetscOptionsInt("-dim", "2 or 3", NULL, dim, &dim, NULL));
  PetscCall(PetscOptionsInt("-n", "cells per direction", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-steps", "steps per timed repetition", NULL, steps, &steps, NULL));
  PetscCall(PetscOptionsInt("-reps", "timed repetitions", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsInt("-warmup", "untimed steps first", NULL, warmup, &warmup, NULL));
  PetscCall(PetscOptionsBool("-breakdown", "time each operator too", NULL, breakdown, &breakdown, NULL));
  PetscCall(PetscOptionsString("-poisson", "poisson.type: fftw or ksp", NULL, ptype, ptype, sizeof(ptype), NULL));
  PetscCall(PetscOptionsString("-csv", "append one CSV row to this file", NULL, csvname, csvname, sizeof(csvname), NULL));
  PetscCall(PetscOptionsString("-viscous", "time.viscous: explicit or implicit (implicit: no breakdown)", NULL, viscous, viscous, sizeof(viscous), NULL));
  PetscCall(PetscOptionsReal("-dt_limit", "> 0: dt is this many times the explicit viscous term's stability limit (else the CFL-0.3 step)", NULL, dtlim, &dtlim, NULL));
  PetscOptionsEnd();
  if (strcmp(viscous, "explicit")) breakdown = PETSC_FALSE; /* the instrumented copy is the explicit step */
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-dim must be 2 or 3");
  PetscCheck(steps >= 1 && reps >= 1, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-steps and -reps must be >= 1");

  /* the case: CFL ~ 0.3 for the initial state's speeds, diffusion number small */
  {
    const PetscReal L = which == 0 ? 2 * PETSC_PI : 1.0, h = L / n, nu = 1e-3; /* re 1000, u_ref = l_ref = 1 */
    const PetscReal dt = dtlim > 0 ? dtlim * 2.5127 * h * h / (4.0 * dim * nu) : (dim == 2 ? 0.3 : 0.15) * h;
    if (dim == 2) {
      PetscCall(PetscSNPrintf(cellstr, sizeof(cellstr), "[%" PetscInt_FMT ", %" PetscInt_FMT "]", n, n));
      PetscCall(PetscSNPrintf(lenstr, sizeof(lenstr), "[%.17g, %.17g]", (double)L, (double)L));
    } else {
      PetscCall(PetscSNPrintf(cellstr, sizeof(cellstr), "[%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "]", n, n, n));
      PetscCall(PetscSNPrintf(lenstr, sizeof(lenstr), "[%.17g, %.17g, %.17g]", (double)L, (double)L, (double)L));
    }
    PetscCall(PetscSNPrintf(text, sizeof(text),
                            "name: bench\n"
                            "grid: {cells: %s, lengths: %s, periodic: %s}\n"
                            "flow: {re: 1000}\n"
                            "time: {dt: %.17g, steps: 1, viscous: %s}\n"
                            "%s"
                            "poisson: {type: %s}\n",
                            cellstr, lenstr, which == 0 ? (dim == 2 ? "[true, true]" : "[true, true, true]") : (dim == 2 ? "[false, false]" : "[false, false, false]"), (double)dt, viscous, which == 0 ? (dim == 2 ? "initial: {type: taylor_green}\n" : "initial: {type: abc}\n") : (dim == 2 ? "boundary: {y_hi: {type: lid, velocity: [1.0, 0.0]}}\n" : "boundary: {y_hi: {type: lid, velocity: [1.0, 0.0, 0.0]}}\n"), ptype));
  }
  PetscCall(PetscNew(&c));
  PetscCall(FGCaseLoadString(PETSC_COMM_WORLD, "bench.yaml", text, 0, NULL, c));
  PetscCall(FGSolverCreate(PETSC_COMM_WORLD, c, &s));
  PetscCall(FGSolverSetInitialCondition(s));
  if (which == 1) PetscCall(SmoothState_Private(s)); /* tg: the Taylor-Green vortex (2D) or the ABC flow (3D) */
  PetscCheck(s->force[0] == 0 && s->force[1] == 0 && s->force[2] == 0 && !s->forcefn && !s->layout.nact, PETSC_COMM_WORLD, PETSC_ERR_SUP, "the instrumented step has no body force");
  for (PetscInt d = 0; d < dim; d++) cells *= (PetscReal)n;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "forward_bench: %s %" PetscInt_FMT "D %" PetscInt_FMT "^%" PetscInt_FMT ", poisson %s, %d ranks (%s decomposition %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT "), dt %.3e (%.3g x the explicit viscous limit), viscous term %s\n", cases[which], dim, n, dim, ptype, (int)size, FGDecompNames[s->grid->decomp], s->grid->nproc[0], s->grid->nproc[1], s->grid->nproc[2], (double)s->dt, (double)(s->dt / FGViscousTimeStepLimit(s->grid, c->flow.nu)), s->viscous ? "implicit" : "explicit"));

  PetscCall(PetscMalloc2(reps, &t, reps * OP_N, &to));
  for (PetscInt k = 0; k < warmup; k++) PetscCall(FGStepForward_RK3(s, NULL));
  PetscCall(PetscMemzero(&tm, sizeof(tm)));
  if (breakdown) {
    PetscCall(PetscClassIdRegister("flowgrad-bench", &classid));
    for (PetscInt o = 0; o < OP_N; o++) {
      char ename[64];
      PetscCall(PetscSNPrintf(ename, sizeof(ename), "FGBench_%s", OpNames[o]));
      PetscCall(PetscLogEventRegister(ename, classid, &tm.event[o]));
    }
    PetscCall(CheckInstrumented_Private(s, &tm));
  }
  PetscCall(PetscLogStageRegister("FGStepForward_RK3", &stage[0]));
  PetscCall(PetscLogStageRegister("instrumented step", &stage[1]));
  /* the plain and the instrumented steps alternate, so that both see the same machine load */
  for (PetscInt r = 0; r < reps; r++) {
    double         t0, dt, dtmax;
    PetscLogDouble mx[OP_N];
    PetscCall(PetscLogStagePush(stage[0]));
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    t0 = MPI_Wtime();
    for (PetscInt k = 0; k < steps; k++) PetscCall(FGStepForward_RK3(s, NULL));
    dt = MPI_Wtime() - t0;
    PetscCallMPI(MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    t[r] = dtmax / steps;
    PetscCall(PetscLogStagePop());
    if (!breakdown) continue;
    PetscCall(PetscLogStagePush(stage[1]));
    for (PetscInt o = 0; o < OP_N; o++) tm.acc[o] = 0;
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    for (PetscInt k = 0; k < steps; k++) PetscCall(StepInstrumented_Private(s, &tm));
    PetscCallMPI(MPI_Allreduce(tm.acc, mx, OP_N, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    for (PetscInt o = 0; o < OP_N; o++) to[o * reps + r] = mx[o] / steps;
    PetscCall(PetscLogStagePop());
  }
  tstep = Median_Private(reps, t); /* sorts t */
  tmin  = t[0];
  PetscCall(FGSolverMonitorCompute(s));
  PetscCheck(!PetscIsInfOrNanReal(s->ke) && s->cfl < 1.5, PETSC_COMM_WORLD, FG_ERR_NUMERIC, "the benchmark run is not healthy: CFL %g, KE %g", (double)s->cfl, (double)s->ke);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "step: median %.4e s over %" PetscInt_FMT " x %" PetscInt_FMT " steps (min %.4e, max %.4e), %.4g cell-steps/s (%.4g at the fastest); CFL %.2f, max|div u| h/U %.1e\n", (double)tstep, reps, steps, (double)t[0], (double)t[reps - 1], (double)(cells / tstep), (double)(cells / tmin), (double)s->cfl, (double)s->maxdiv));
  for (PetscInt o = 0; o < OP_N; o++) {
    opmed[o] = breakdown ? Median_Private(reps, &to[o * reps]) : 0;
    ksum += opmed[o];
  }
  if (breakdown) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "per step (median of the slowest rank's time):"));
    for (PetscInt o = 0; o < OP_N; o++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s %.3e s (%.0f%%)", OpNames[o], (double)opmed[o], (double)(100 * opmed[o] / ksum)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "; sum %.4e s = %.2f x the step\n", (double)ksum, (double)(ksum / tstep)));
  }

  if (csvname[0]) {
    PetscCall(PetscFOpen(PETSC_COMM_WORLD, csvname, "a", &csv));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, csv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%d,%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%.6e,%.6e,%.6e", cases[which], dim, n, (int)size, ptype, steps, reps, (double)tstep, (double)tmin, (double)(cells / tstep)));
    for (PetscInt o = 0; o < OP_N; o++) PetscCall(PetscFPrintf(PETSC_COMM_WORLD, csv, ",%.6e", (double)opmed[o]));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, csv, ",%.6e\n", (double)ksum));
    PetscCall(PetscFClose(PETSC_COMM_WORLD, csv));
  }
  PetscCall(PetscFree2(t, to));
  PetscCall(FGSolverDestroy(&s));
  PetscCall(PetscFree(c));
  PetscCall(FGFinalize());
  return 0;
}
