/*
  Convergence of the forward solver (RK3 + projection, central MAC operators) against exact
  solutions of the incompressible Navier-Stokes equations on periodic boxes [0, L]^d:

    tg         2D Taylor-Green vortex, u = A sin(kx) cos(ky), v = -A cos(kx) sin(ky), k = 2 pi / L,
               decaying as exp(-2 nu k^2 t) (FGExactTaylorGreen)
    tg_moving  the same vortex carried by a uniform stream U0 = (1, 0.5): u(x, t) = U0 +
               u_tg(x - U0 t, t) (Galilean invariance; exact too). Unlike the steady vortex it
               moves, so advection and the time integration are exercised, not only the decay.
    abc        3D Arnold-Beltrami-Childress flow (A = B = C), decaying as exp(-nu k^2 t) (FGExactABC)
    cavity     (-mode time only; no exact solution) the lid-driven cavity at Re = 100 on [0,1]^2,
               started from its state at t = 1 (computed with the finest dt), so that the time
               order is measured with no-slip walls and a lid, past the impulsive start
    channel    (-mode time only) a 2D channel [0,2] x [0,1], Re = 100: parabolic inflow with centre
               speed 1.5 (1 + A sin(pi t)) (A = -modulation, 0.2), convective outflow, no-slip
               walls; started from its state at t = 1 like the cavity: boundary data that change
               in time

  The velocity is compared with the exact one sampled at each component's own face centre, at
  t = T, per component in the max norm and the L2 norm sqrt(sum e^2 dV / V).

  -mode space (default): three (-levels) grids n0, 2 n0, 4 n0 (-n) with dt proportional to h
    (steps s0, 2 s0, 4 s0 (-steps) to the same T); the observed order log2(e_2h / e_h) of every component, in both
    norms, between every pair of successive grids must be >= -min_order (1.9).
  -mode time: one grid, dt halved twice (steps s0, 2 s0, 4 s0), each compared with a reference
    run on the same grid with 2^-ref_levels of the finest dt: the error is then the time error
    alone (the spatial error, much larger, cancels); the observed order must be >= -min_order.

  -stretch A: x (3D: x and z) stretched by the periodic map x = L (s - A sin(2 pi s)/(2 pi)),
  faces at s = i/n (smooth across the periodic boundary; needs -poisson ksp); the errors are then
  RMS over the faces (not volume-weighted). -min_order_max: a separate bound for the max norm.

  In every run, max|D u| h_min / u_ref after every projection (all three RK3 stages of every step
  and the initial one; see FGTestDivMonitor) must be <= -div_tol (1e-10).

  Measured (defaults; tests/forward/tests.cmake): tg 32^2..128^2 max|e_u| 1.23e-4, 3.08e-5, 7.71e-6
  (orders 1.99, 2.00); tg_moving 6.28e-3, 1.57e-3, 3.94e-4 (2.00, 2.00); abc 16^3..64^3 1.19e-3,
  3.04e-4, 7.63e-5 (1.97, 1.99); time only: 3.00 (tg_moving), 3.01 (cavity), 3.00 (channel);
  max|div u| h/U <= 7e-16.

  Sample runs:
    mpiexec -n 2 ./test_forward_convergence -problem tg
    mpiexec -n 2 ./test_forward_convergence -problem tg -n 16 -steps 10 -levels 5 -poisson ksp
    mpiexec -n 2 ./test_forward_convergence -problem tg_moving -mode time -n 64 -levels 4
    mpiexec -n 2 ./test_forward_convergence -problem cavity -mode time
    mpiexec -n 2 ./test_forward_convergence -problem abc -n 8 -steps 8 -levels 4
*/
#include "forward_test.h"

static const char help[] = "Forward solver: observed order of accuracy against exact solutions.\n";

typedef enum { PROBLEM_TG, PROBLEM_TG_MOVING, PROBLEM_ABC, PROBLEM_CAVITY, PROBLEM_CHANNEL } Problem;
static const char *const ProblemNames[] = {"tg", "tg_moving", "abc", "cavity", "channel", "Problem", "PROBLEM_", NULL};

typedef enum { MODE_SPACE, MODE_TIME } Mode;
static const char *const ModeNames[] = {"space", "time", "Mode", "MODE_", NULL};

typedef struct {
  Problem   problem;
  PetscInt  dim;
  PetscReal L, nu, A, U0[3], T;
  char      poisson[16];
  char      viscous[16]; /* time.viscous */
  PetscReal rtol;    /* poisson.rtol (ksp) */
  PetscReal stretch; /* > 0: x (and z in 3D) stretched by the periodic map x = L (s - a sin(2 pi s)/(2 pi)) */
  PetscReal modulation; /* channel: inflow modulation amplitude */
  Vec       init[3]; /* if set: the initial velocity (instead of initial.type) */
} Setup;

static PetscReal Exact_Private(PetscInt a, const PetscReal x[], PetscReal t, void *ctx)
{
  const Setup    *p    = (const Setup *)ctx;
  const PetscReal L[3] = {p->L, p->L, p->L}, k = 2 * PETSC_PI / p->L;
  PetscReal       X[3] = {0, 0, 0};

  for (PetscInt d = 0; d < p->dim; d++) X[d] = x[d] - p->U0[d] * t;
  if (p->problem == PROBLEM_ABC) return p->U0[a] + FGExactABC(a, X, p->A, L, PetscExpReal(-p->nu * k * k * t));
  return p->U0[a] + FGExactTaylorGreen(a, X, p->A, L, PetscExpReal(-2 * p->nu * k * k * t));
}

typedef struct {
  PetscReal emax[3], el2[3]; /* against the exact solution */
  PetscReal maxdiv, cfl, wall;
  PetscReal dtlim; /* dt over the explicit viscous term's stability limit */
  PetscInt  nproj;
} RunResult;

/* One run on an n^dim grid with `steps` steps to p->T. If keep, *u gets copies of the final velocity. */
static PetscErrorCode Run_Private(const Setup *p, PetscInt n, PetscInt steps, RunResult *r, Vec keep[])
{
  FGCase          *c;
  FGSolver         s;
  FGTestDivMonitor dm;
  PetscLogDouble   t0, t1;
  const PetscReal  dt = p->T / (PetscReal)steps;
  const PetscBool  per = (PetscBool)(p->problem != PROBLEM_CAVITY && p->problem != PROBLEM_CHANNEL);
  char             cells[64], lengths[128], periodic[64], initial[128], bc[512], *grid;
  size_t           len = 16384, nc;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(len, &grid));
  grid[0] = 0;
  if (p->stretch > 0) { /* the faces of the periodic sine map (smooth across the periodic boundary) */
    nc = (size_t)snprintf(grid, len, ", stretch: {");
    for (PetscInt d = 0; d < p->dim; d += 2) {
      nc += (size_t)snprintf(grid + nc, len - nc, "%s%c: {type: faces, faces: [", d ? ", " : "", "xyz"[d]);
      for (PetscInt i = 0; i <= n; i++) {
        const PetscReal xi = (PetscReal)i / (PetscReal)n, x = i == n ? p->L : p->L * (xi - p->stretch * PetscSinReal(2 * PETSC_PI * xi) / (2 * PETSC_PI));
        nc += (size_t)snprintf(grid + nc, len - nc, "%s%.17g", i ? ", " : "", (double)x);
      }
      nc += (size_t)snprintf(grid + nc, len - nc, "]}");
    }
    nc += (size_t)snprintf(grid + nc, len - nc, "}");
    PetscCheck(nc < len, PETSC_COMM_SELF, PETSC_ERR_SUP, "-stretch: too many faces for the buffer");
  }
  if (p->dim == 2) {
    const PetscInt m = p->problem == PROBLEM_CHANNEL ? 2 : 1; /* the channel is 2 x 1 */
    PetscCall(PetscSNPrintf(cells, sizeof(cells), "[%" PetscInt_FMT ", %" PetscInt_FMT "]", m * n, n));
    PetscCall(PetscSNPrintf(lengths, sizeof(lengths), "[%.17g, %.17g]", (double)(m * p->L), (double)p->L));
    PetscCall(PetscStrncpy(periodic, per ? "[true, true]" : "[false, false]", sizeof(periodic)));
  } else {
    PetscCall(PetscSNPrintf(cells, sizeof(cells), "[%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT "]", n, n, n));
    PetscCall(PetscSNPrintf(lengths, sizeof(lengths), "[%.17g, %.17g, %.17g]", (double)p->L, (double)p->L, (double)p->L));
    PetscCall(PetscStrncpy(periodic, "[true, true, true]", sizeof(periodic)));
  }
  if (p->problem == PROBLEM_CAVITY) {
    PetscCall(PetscStrncpy(initial, "{type: rest}", sizeof(initial)));
    PetscCall(PetscStrncpy(bc, "{y_hi: {type: lid, velocity: [1.0, 0.0]}}", sizeof(bc)));
  } else if (p->problem == PROBLEM_CHANNEL) {
    PetscCall(PetscStrncpy(initial, "{type: rest}", sizeof(initial)));
    PetscCall(PetscSNPrintf(bc, sizeof(bc), "{x_lo: {type: inflow, velocity: [1.5, 0.0], profile: parabolic, modulation_amplitude: %.17g, modulation_frequency: 0.5}, x_hi: {type: outflow}}", (double)p->modulation));
  } else {
    PetscCall(PetscSNPrintf(initial, sizeof(initial), "{type: %s, amplitude: %.17g}", p->problem == PROBLEM_ABC ? "abc" : "taylor_green", (double)p->A));
    PetscCall(PetscStrncpy(bc, "{}", sizeof(bc)));
  }
  PetscCall(FGTestCaseLoad(PETSC_COMM_WORLD, "convergence.yaml", &c,
                           "name: convergence\n"
                           "grid: {cells: %s, lengths: %s, periodic: %s%s}\n"
                           "flow: {nu: %.17g}\n"
                           "time: {dt: %.17g, steps: %" PetscInt_FMT ", viscous: %s}\n"
                           "initial: %s\n"
                           "boundary: %s\n"
                           "poisson: {type: %s, rtol: %g}\n",
                           cells, lengths, periodic, grid, (double)p->nu, (double)dt, steps, p->viscous, initial, bc, p->poisson, (double)p->rtol));
  PetscCall(PetscFree(grid));
  PetscCall(FGSolverCreate(PETSC_COMM_WORLD, c, &s));
  PetscCall(FGSolverSetInitialCondition(s));
  for (PetscInt a = 0; a < p->dim; a++) {
    if (p->init[a]) PetscCall(VecCopy(p->init[a], s->u[a]));
    PetscCall(VecShift(s->u[a], p->U0[a])); /* periodic: still exact */
  }
  PetscCall(FGTestDivMonitorAttach(s, 1.0, &dm));
  PetscCall(PetscTime(&t0));
  for (PetscInt k = 0; k < steps; k++) PetscCall(FGStepForward_RK3(s, NULL));
  PetscCall(PetscTime(&t1));
  PetscCall(FGTestDivMonitorFinish(s, &dm));
  PetscCall(FGSolverMonitorCompute(s));
  if (p->problem != PROBLEM_CAVITY && p->problem != PROBLEM_CHANNEL) PetscCall(FGTestVelocityError(s, Exact_Private, (void *)p, r->emax, r->el2));
  else
    for (PetscInt a = 0; a < 3; a++) r->emax[a] = r->el2[a] = (PetscReal)NAN;
  r->maxdiv = PetscMax(dm.max, s->maxdiv);
  r->nproj  = dm.count;
  r->cfl    = s->cfl;
  r->wall   = t1 - t0;
  r->dtlim  = dt / FGViscousTimeStepLimit(s->grid, p->nu);
  PetscCheck(PetscAbsReal(s->t - p->T) <= 1e-12 * p->T, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "run ended at t = %.17g, not T = %.17g", (double)s->t, (double)p->T);
  if (keep)
    for (PetscInt a = 0; a < p->dim; a++) {
      PetscCall(VecDuplicate(s->u[a], &keep[a]));
      PetscCall(VecCopy(s->u[a], keep[a]));
    }
  PetscCall(FGSolverDestroy(&s));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckDivergence_Private(const RunResult *r, PetscReal tol, PetscInt n, PetscInt steps)
{
  PetscFunctionBeginUser;
  FGTestCheck(r->nproj == 3 * steps + 1, "n = %" PetscInt_FMT ": the divergence monitor saw %" PetscInt_FMT " projections, expected %" PetscInt_FMT, n, r->nproj, 3 * steps + 1);
  FGTestCheck(r->maxdiv <= tol, "n = %" PetscInt_FMT ", %" PetscInt_FMT " steps: max|div u| h/U = %.3e > %.1e after a projection", n, steps, (double)r->maxdiv, (double)tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Print the errors of one level and, past the first, the observed orders against the previous
   level (refined by `ratio`); then check the orders against min_order. */
static PetscErrorCode ErrorColumns_Private(const char *what, PetscInt dim, PetscInt l, PetscReal ratio, const PetscReal emax[], const PetscReal el2[], const PetscReal emax0[], const PetscReal el20[], const PetscReal min_order[2], PetscReal *worst, const char *row)
{
  const char comp[] = "uvw";
  PetscReal  om[3], o2[3];

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < dim; a++) {
    if (l == 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %9.3e %5s %9.3e %5s", (double)emax[a], "", (double)el2[a], ""));
    else {
      om[a] = FGTestOrder(emax0[a], emax[a], ratio);
      o2[a] = FGTestOrder(el20[a], el2[a], ratio);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %9.3e %5.2f %9.3e %5.2f", (double)emax[a], (double)om[a], (double)el2[a], (double)o2[a]));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s", row));
  for (PetscInt a = 0; l > 0 && a < dim; a++) {
    FGTestCheck(om[a] >= min_order[0], "%c: max-norm %s order %.3f (level %" PetscInt_FMT " against %" PetscInt_FMT ") is below %.2f", comp[a], what, (double)om[a], l, l - 1, (double)min_order[0]);
    FGTestCheck(o2[a] >= min_order[1], "%c: L2 %s order %.3f (level %" PetscInt_FMT " against %" PetscInt_FMT ") is below %.2f", comp[a], what, (double)o2[a], l, l - 1, (double)min_order[1]);
    *worst = PetscMin(*worst, o2[a]);
    if (min_order[0] == min_order[1]) *worst = PetscMin(*worst, om[a]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ModeSpace(const Setup *p, PetscInt nlev, const PetscInt n[], const PetscInt steps[], const PetscReal min_order[2], PetscReal div_tol, PetscReal min_dtlim)
{
  RunResult *r;
  PetscReal  worst = PETSC_MAX_REAL, maxdiv = 0;
  const char comp[] = "uvw";
  char       row[64];

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(nlev, &r));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%6s %6s %10s %6s %7s %9s", "n", "steps", "dt", "CFL", "dt/lim", "max|divu|"));
  for (PetscInt a = 0; a < p->dim; a++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  max|e_%c| order  L2(e_%c)  order", comp[a], comp[a]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  wall s\n"));
  for (PetscInt l = 0; l < nlev; l++) {
    PetscCall(Run_Private(p, n[l], steps[l], &r[l], NULL));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%6" PetscInt_FMT " %6" PetscInt_FMT " %10.4e %6.3f %7.2f %9.2e", n[l], steps[l], (double)(p->T / steps[l]), (double)r[l].cfl, (double)r[l].dtlim, (double)r[l].maxdiv));
    PetscCall(PetscSNPrintf(row, sizeof(row), "  %6.2f\n", (double)r[l].wall));
    PetscCall(ErrorColumns_Private("space+time", p->dim, l, l ? (PetscReal)n[l] / n[l - 1] : 1, r[l].emax, r[l].el2, l ? r[l - 1].emax : NULL, l ? r[l - 1].el2 : NULL, min_order, &worst, row));
    PetscCall(CheckDivergence_Private(&r[l], div_tol, n[l], steps[l]));
    FGTestCheck(r[l].dtlim >= min_dtlim, "n = %" PetscInt_FMT ": dt is %.3g times the explicit viscous limit, below -min_dt_limit %g", n[l], (double)r[l].dtlim, (double)min_dtlim);
    maxdiv = PetscMax(maxdiv, r[l].maxdiv);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s space+time (dt ~ h): lowest observed order %.3f (bound %.2f%s); max|div u| h/U after every projection %.2e (bound %.0e)\n", ProblemNames[p->problem], (double)worst, (double)min_order[1], min_order[0] < min_order[1] ? ", L2 norm" : "", (double)maxdiv, (double)div_tol));
  PetscCall(PetscFree(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max and L2 norms of u - uref over all components (collective). */
static PetscErrorCode DiffNorms_Private(PetscInt dim, Vec u[], Vec uref[], PetscReal emax[], PetscReal el2[])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < dim; a++) {
    Vec      d;
    PetscInt N;
    PetscCall(VecDuplicate(u[a], &d));
    PetscCall(VecWAXPY(d, -1.0, uref[a], u[a]));
    PetscCall(VecNorm(d, NORM_INFINITY, &emax[a]));
    PetscCall(VecNorm(d, NORM_2, &el2[a]));
    PetscCall(VecGetSize(d, &N));
    el2[a] /= PetscSqrtReal((PetscReal)N);
    PetscCall(VecDestroy(&d));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ModeTime(const Setup *p, PetscInt n, PetscInt nlev, const PetscInt steps[], PetscInt ref_steps, const PetscReal min_order[2], PetscReal div_tol)
{
  RunResult  rref, r;
  Vec        uref[3], u[3];
  PetscReal *emax, *el2, worst = PETSC_MAX_REAL, maxdiv;
  const char comp[] = "uvw";

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc2(3 * nlev, &emax, 3 * nlev, &el2));
  PetscCall(Run_Private(p, n, ref_steps, &rref, uref));
  PetscCall(CheckDivergence_Private(&rref, div_tol, n, ref_steps));
  maxdiv = rref.maxdiv;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "grid %" PetscInt_FMT "^%" PetscInt_FMT "%s, T = %g; reference run: %" PetscInt_FMT " steps (dt %.4e)", n, p->dim, p->problem == PROBLEM_CHANNEL ? " x 2 along x" : "", (double)p->T, ref_steps, (double)(p->T / ref_steps)));
  if (p->problem != PROBLEM_CAVITY && p->problem != PROBLEM_CHANNEL) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", its error against the exact solution (space + time) max|e_u| = %.3e", (double)rref.emax[0]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%6s %10s %6s %9s", "steps", "dt", "CFL", "max|divu|"));
  for (PetscInt a = 0; a < p->dim; a++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  max|d_%c| order  L2(d_%c)  order", comp[a], comp[a]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  exact:max|e_u|  (d = u_dt - u_ref, the time error)\n"));
  for (PetscInt l = 0; l < nlev; l++) {
    char row[64];
    PetscCall(Run_Private(p, n, steps[l], &r, u));
    PetscCall(DiffNorms_Private(p->dim, u, uref, &emax[3 * l], &el2[3 * l]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%6" PetscInt_FMT " %10.4e %6.3f %9.2e", steps[l], (double)(p->T / steps[l]), (double)r.cfl, (double)r.maxdiv));
    PetscCall(PetscSNPrintf(row, sizeof(row), "  %9.3e\n", (double)r.emax[0]));
    PetscCall(ErrorColumns_Private("time", p->dim, l, l ? (PetscReal)steps[l] / steps[l - 1] : 1, &emax[3 * l], &el2[3 * l], l ? &emax[3 * (l - 1)] : NULL, l ? &el2[3 * (l - 1)] : NULL, min_order, &worst, row));
    PetscCall(CheckDivergence_Private(&r, div_tol, n, steps[l]));
    maxdiv = PetscMax(maxdiv, r.maxdiv);
    for (PetscInt a = 0; a < p->dim; a++) PetscCall(VecDestroy(&u[a]));
  }
  /* the reference must be far more accurate than the finest run: its own time error, estimated
     from the finest run's with the observed order, must be < 1% of the finest run's */
  if (nlev >= 2) {
    const PetscReal ordr = FGTestOrder(emax[3 * (nlev - 2)], emax[3 * (nlev - 1)], (PetscReal)steps[nlev - 1] / steps[nlev - 2]);
    const PetscReal refe = PetscPowReal((PetscReal)steps[nlev - 1] / ref_steps, ordr);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "estimated time error of the reference / finest run's: %.1e\n", (double)refe));
    FGTestCheck(refe < 1e-2, "the reference run is not accurate enough (%.2e of the finest run's error)", (double)refe);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s time only (grid fixed): lowest observed order %.3f (bound %.2f); max|div u| h/U after every projection %.2e (bound %.0e)\n", ProblemNames[p->problem], (double)worst, (double)min_order[1], (double)maxdiv, (double)div_tol));
  for (PetscInt a = 0; a < p->dim; a++) PetscCall(VecDestroy(&uref[a]));
  PetscCall(PetscFree2(emax, el2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunAll(void)
{
  Setup       p;
  Mode        mode     = MODE_SPACE;
  PetscInt    n0       = 0, s0 = 0, nlev = 3, ref_levels = 5, nlist[16], slist[16];
  PetscReal   min_order = 1.9, min_order_max = -1, div_tol = 1e-10, min_dtlim = 0;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&p, sizeof(p)));
  p.problem = PROBLEM_TG;
  p.A       = 1.0;
  p.L       = 2 * PETSC_PI;
  p.rtol    = 1e-12; /* ksp: 1e-13 is at CG's rounding floor on the periodic 128^2 grid and fails there */
  PetscCall(PetscStrncpy(p.poisson, "fftw", sizeof(p.poisson)));
  PetscCall(PetscStrncpy(p.viscous, "explicit", sizeof(p.viscous)));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Forward convergence test", NULL);
  PetscCall(PetscOptionsEnum("-problem", "exact solution", NULL, ProblemNames, (PetscEnum)p.problem, (PetscEnum *)&p.problem, NULL));
  PetscCall(PetscOptionsEnum("-mode", "space (dt ~ h) or time (grid fixed)", NULL, ModeNames, (PetscEnum)mode, (PetscEnum *)&mode, NULL));
  PetscOptionsEnd();
  /* defaults per problem: CFL ~ 0.5-0.8, diffusion number well inside RK3's stability region */
  switch (p.problem) {
  case PROBLEM_TG:
    p.dim = 2, p.nu = 0.01, p.T = 2.0, n0 = 32, s0 = 20; /* dt = 0.1, CFL = dt max(|u|+|v|)/h ~ 0.5 */
    break;
  case PROBLEM_TG_MOVING:
    p.dim = 2, p.nu = 0.01, p.T = 1.0, n0 = 32, s0 = 20, p.U0[0] = 1.0, p.U0[1] = 0.5; /* CFL ~ 0.63 */
    break;
  case PROBLEM_ABC:
    p.dim = 3, p.nu = 0.05, p.T = 1.0, n0 = 16, s0 = 16; /* CFL ~ 0.63 */
    break;
  case PROBLEM_CAVITY:
    p.dim = 2, p.nu = 0.01, p.T = 0.5, p.L = 1.0, n0 = 32, s0 = 32; /* dt = 1/64: CFL ~ 0.5, nu dt 8/h^2 = 1.3 */
    break;
  case PROBLEM_CHANNEL:
    p.dim = 2, p.nu = 0.01, p.T = 0.5, p.L = 1.0, n0 = 32, s0 = 32, p.modulation = 0.2; /* CFL ~ 0.75 */
    break;
  }
  if (mode == MODE_TIME && p.problem != PROBLEM_CAVITY && p.problem != PROBLEM_CHANNEL) n0 = 32, s0 = 16;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Forward convergence test", NULL);
  PetscCall(PetscOptionsInt("-n", "cells per direction (coarsest grid; the grid in -mode time)", NULL, n0, &n0, NULL));
  PetscCall(PetscOptionsInt("-steps", "steps on the coarsest grid / the fewest steps", NULL, s0, &s0, NULL));
  PetscCall(PetscOptionsInt("-levels", "grids / time steps (each twice as fine)", NULL, nlev, &nlev, NULL));
  PetscCall(PetscOptionsInt("-ref_levels", "-mode time: the reference dt is the finest dt / 2^ref_levels", NULL, ref_levels, &ref_levels, NULL));
  PetscCall(PetscOptionsReal("-T", "final time", NULL, p.T, &p.T, NULL));
  PetscCall(PetscOptionsReal("-nu", "kinematic viscosity", NULL, p.nu, &p.nu, NULL));
  PetscCall(PetscOptionsReal("-min_order", "the lowest acceptable observed order", NULL, min_order, &min_order, NULL));
  PetscCall(PetscOptionsReal("-min_order_max", "the same for the max norm (default -min_order)", NULL, min_order_max, &min_order_max, NULL));
  PetscCall(PetscOptionsReal("-div_tol", "bound on max|div u| h/U after every projection", NULL, div_tol, &div_tol, NULL));
  PetscCall(PetscOptionsString("-poisson", "poisson.type: fftw or ksp", NULL, p.poisson, p.poisson, sizeof(p.poisson), NULL));
  PetscCall(PetscOptionsReal("-rtol", "poisson.rtol (ksp)", NULL, p.rtol, &p.rtol, NULL));
  PetscCall(PetscOptionsReal("-min_dt_limit", "-mode space: every run's dt must be at least this many times the explicit viscous term's stability limit", NULL, min_dtlim, &min_dtlim, NULL));
  PetscCall(PetscOptionsString("-viscous", "time.viscous: explicit, implicit or auto", NULL, p.viscous, p.viscous, sizeof(p.viscous), NULL));
  PetscCall(PetscOptionsReal("-stretch", "> 0: stretch x (3D: x and z) by a periodic sine map of this amplitude (cell widths L/n (1 -+ a))", NULL, p.stretch, &p.stretch, NULL));
  PetscCall(PetscOptionsReal("-modulation", "channel: amplitude of the inflow modulation", NULL, p.modulation, &p.modulation, NULL));
  PetscOptionsEnd();
  PetscCheck(nlev >= 2 && nlev <= 16, PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-levels must be in [2, 16]");
  for (PetscInt l = 0; l < nlev; l++) nlist[l] = n0 << l, slist[l] = s0 << l;

  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, %dD, L = %g, nu = %g, A = %g, U0 = (%g, %g, %g), T = %g, poisson %s, viscous term %s, %d ranks\n", ProblemNames[p.problem], (int)p.dim, (double)p.L, (double)p.nu, (double)p.A, (double)p.U0[0], (double)p.U0[1], (double)p.U0[2], (double)p.T, p.poisson, p.viscous, (int)size));
  PetscCheck(mode == MODE_TIME || (p.problem != PROBLEM_CAVITY && p.problem != PROBLEM_CHANNEL), PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-problem %s has no exact solution: only -mode time", ProblemNames[p.problem]);
  if (p.problem == PROBLEM_CAVITY || p.problem == PROBLEM_CHANNEL) { /* start past the impulsive start: the state at t = 1, computed with the reference dt */
    Setup     w = p;
    RunResult rw;
    w.T = 1.0;
    PetscCall(Run_Private(&w, n0, (PetscInt)(w.T / (p.T / (PetscReal)(s0 << (nlev - 1 + ref_levels))) + 0.5), &rw, p.init));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "initial state: the flow from rest at t = %g (max|div u| h/U %.2e)\n", (double)w.T, (double)rw.maxdiv));
  }
  {
    const PetscReal mo[2] = {min_order_max >= 0 ? min_order_max : min_order, min_order};
    if (mode == MODE_SPACE) PetscCall(ModeSpace(&p, nlev, nlist, slist, mo, div_tol, min_dtlim));
    else PetscCall(ModeTime(&p, n0, nlev, slist, s0 << (nlev - 1 + ref_levels), mo, div_tol));
  }
  for (PetscInt a = 0; a < 3; a++) PetscCall(VecDestroy(&p.init[a]));
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
