/*
  Rank independence of the forward solver, self-contained: every case is run for 100 steps twice
  in one MPI job, first on PETSC_COMM_SELF by rank 0 alone (the 1-rank run; the other ranks wait
  in a sleeping barrier), then on PETSC_COMM_WORLD (distributed). The distributed u, v[, w] and p
  are gathered to natural ordering on rank 0 and compared with the serial ones:

      max |x_np - x_1| / max |x_1| <= -tol (1e-12)    for every field

  Cases: the 2D lid-driven cavity (Re = 100, 64^2), a 3D lid-driven cavity (16 x 16 x 24) and a
  3D channel (parabolic inflow, convective outflow, no-slip walls at y = 0 and z = 0, slip walls
  at y = 1 and z = 2), and the 2D cavity and the channel stretched along their slab direction (a
  tanh map: y at both walls, z at z = 0; the FFTW path solves along it with the Thomas algorithm
  across the ranks' slabs; run when -cases names them), each with poisson.type fftw (slab decomposition) and ksp (CG + GAMG, rtol -ksp_rtol = 1e-13, block
  decomposition). Measured (np 2, 3, 4): fftw with FFTW_ESTIMATE plans gives bit-identical fields
  (the slab FFTs do the same arithmetic on any number of slabs); with FFTW_MEASURE plans (which
  may pick other algorithms per run) u, v, w differ by <= 1e-15 and p by ~3e-15; ksp differs by
  ~1e-15 in the velocity and up to ~2e-14 in p (GAMG's aggregates and smoothers depend on the
  partition, so each solve differs at the 1e-13 tolerance level, and the next projection removes
  most of it from u). -ksp_tol (default: -tol) is the ksp bound. max|div u| h/U after every
  projection of the distributed run must be <= 1e-10. Last, the comparison itself is checked: a
  perturbation of 1e-10 max|u| in one serial entry must be measured as such.

  Registered at np = 2, 3, 4 (3 and 4 oversubscribe the 2 cores; the slab axes have 24 or 64
  planes, so every rank gets a slab).

  Sample runs:
    mpiexec -n 3 --oversubscribe ./test_forward_ranks -fg_fftw_planner estimate
    mpiexec -n 4 --oversubscribe ./test_forward_ranks -cases cavity3d -steps 200 -ksp 0
*/
#include "forward_test.h"

static const char help[] = "Forward solver: the same fields on any number of ranks.\n";

typedef struct {
  const char *name;
  PetscReal   dt;
  const char *yaml;   /* grid, flow, boundary, initial; time and poisson are appended */
  PetscBool   named;  /* run only when -cases names it */
} RankCase;

static const RankCase cases[] = {
  {"cavity2d", 2.0e-3, "grid: {cells: [64, 64], lengths: [1.0, 1.0]}\n"
               "flow: {re: 100}\n"
               "boundary: {y_hi: {type: lid, velocity: [1.0, 0.0]}}\n", PETSC_FALSE},
  {"cavity3d", 4.0e-3, "grid: {cells: [16, 16, 24], lengths: [1.0, 1.0, 1.5]}\n"
               "flow: {re: 100}\n"
               "boundary: {y_hi: {type: lid, velocity: [1.0, 0.0, 0.5]}}\n", PETSC_FALSE},
  {"channel3d", 1.0e-2, "grid: {cells: [24, 12, 24], lengths: [2.0, 1.0, 2.0]}\n"
                "flow: {re: 100}\n"
                "initial: {type: uniform, velocity: [0.5, 0.0, 0.0]}\n"
                "boundary: {x_lo: {type: inflow, velocity: [1.0, 0.0, 0.2], profile: parabolic}, x_hi: {type: outflow},\n"
                "           y_lo: {type: wall}, y_hi: {type: slip}, z_lo: {type: wall}, z_hi: {type: slip}}\n", PETSC_FALSE},
  /* stretched along the slab direction (FFTW: Thomas along it, across the ranks' slabs) */
  {"cavity2d_stretched", 2.0e-3, "grid: {cells: [64, 64], lengths: [1.0, 1.0], stretch: {y: {type: tanh, beta: 1.5}}}\n"
                         "flow: {re: 100}\n"
                         "boundary: {y_hi: {type: lid, velocity: [1.0, 0.0]}}\n", PETSC_TRUE},
  {"channel3d_stretched", 1.0e-2, "grid: {cells: [24, 12, 24], lengths: [2.0, 1.0, 2.0], stretch: {z: {type: tanh, beta: 1.5, cluster: lower}}}\n"
                          "flow: {re: 100}\n"
                          "initial: {type: uniform, velocity: [0.5, 0.0, 0.0]}\n"
                          "boundary: {x_lo: {type: inflow, velocity: [1.0, 0.0, 0.2], profile: parabolic}, x_hi: {type: outflow},\n"
                          "           y_lo: {type: wall}, y_hi: {type: slip}, z_lo: {type: wall}, z_hi: {type: slip}}\n", PETSC_TRUE},
};

static PetscErrorCode RunOn(MPI_Comm comm, FGCase *c, PetscInt steps, FGTestDivMonitor *dm, FGSolver *s)
{
  PetscFunctionBeginUser;
  PetscCall(FGSolverCreate(comm, c, s));
  PetscCall(FGSolverSetInitialCondition(*s));
  if (dm) PetscCall(FGTestDivMonitorAttach(*s, 1.0, dm));
  for (PetscInt k = 0; k < steps; k++) PetscCall(FGStepForward_RK3(*s, NULL));
  if (dm) PetscCall(FGTestDivMonitorFinish(*s, dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunAll(void)
{
  PetscMPIInt rank, size;
  PetscInt    steps = 100, ncases = 8;
  PetscReal   tol = 1e-12, ksp_tol = -1, ksp_rtol = 1e-13, div_tol = 1e-10;
  char       *sel[8], viscous[16] = "auto";
  PetscBool   has_sel, checked_perturbation = PETSC_FALSE, ksp = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Forward rank-independence test", NULL);
  PetscCall(PetscOptionsInt("-steps", "time steps per run", NULL, steps, &steps, NULL));
  PetscCall(PetscOptionsReal("-tol", "bound on max|x_np - x_1|/max|x_1| (fftw)", NULL, tol, &tol, NULL));
  PetscCall(PetscOptionsReal("-ksp_tol", "the same bound for poisson.type ksp (default: -tol)", NULL, ksp_tol, &ksp_tol, NULL));
  PetscCall(PetscOptionsReal("-ksp_rtol", "poisson.rtol of the ksp runs", NULL, ksp_rtol, &ksp_rtol, NULL));
  PetscCall(PetscOptionsBool("-ksp", "also the poisson.type ksp runs", NULL, ksp, &ksp, NULL));
  PetscCall(PetscOptionsStringArray("-cases", "cases to run (default: all)", NULL, sel, &ncases, &has_sel));
  PetscCall(PetscOptionsString("-viscous", "time.viscous of every case", NULL, viscous, viscous, sizeof(viscous), NULL));
  PetscOptionsEnd();
  if (ksp_tol < 0) ksp_tol = tol;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d ranks against 1 (PETSC_COMM_SELF), %" PetscInt_FMT " steps; bounds: fftw %.0e, ksp %.0e (poisson.rtol %.0e)\n", (int)size, steps, (double)tol, (double)ksp_tol, (double)ksp_rtol));
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    PetscBool run = has_sel || cases[i].named ? PETSC_FALSE : PETSC_TRUE;
    for (PetscInt j = 0; has_sel && j < ncases; j++) {
      PetscBool eq;
      PetscCall(PetscStrcmp(sel[j], cases[i].name, &eq));
      run = (PetscBool)(run || eq);
    }
    if (!run) continue;
    for (PetscInt t = 0; t < (ksp ? 2 : 1); t++) {
      const char      *ptype = t == 0 ? "fftw" : "ksp";
      const PetscReal  bound = t == 0 ? tol : ksp_tol;
      FGCase          *c;
      FGSolver         sw, ss = NULL;
      FGTestDivMonitor dm;
      PetscReal        rel[4] = {0, 0, 0, 0}, worst = 0;
      PetscLogDouble   t0, t1, t2;
      char             name[64];

      PetscCall(PetscSNPrintf(name, sizeof(name), "%s.yaml", cases[i].name));
      PetscCall(FGTestCaseLoad(PETSC_COMM_WORLD, name, &c, "name: %s\n%stime: {dt: %.17g, steps: %" PetscInt_FMT ", viscous: %s}\npoisson: {type: %s, rtol: %g}\n", cases[i].name, cases[i].yaml, (double)cases[i].dt, steps, viscous, ptype, (double)ksp_rtol));
      PetscCall(PetscTime(&t0));
      if (rank == 0) PetscCall(RunOn(PETSC_COMM_SELF, c, steps, NULL, &ss));
      PetscCall(FGTestIdleBarrier(PETSC_COMM_WORLD));
      PetscCall(PetscTime(&t1));
      PetscCall(RunOn(PETSC_COMM_WORLD, c, steps, &dm, &sw));
      PetscCall(PetscTime(&t2));
      for (PetscInt a = 0; a <= sw->grid->dim; a++) {
        Vec xw = a < sw->grid->dim ? sw->u[a] : sw->p;
        Vec xs = ss ? (a < ss->grid->dim ? ss->u[a] : ss->p) : NULL;
        PetscCall(FGTestCompareField(sw, xw, xs, &rel[a]));
        worst = PetscMax(worst, rel[a]);
      }
      {
        char cols[128];
        if (sw->grid->dim == 3) PetscCall(PetscSNPrintf(cols, sizeof(cols), "u %.2e  v %.2e  w %.2e  p %.2e", (double)rel[0], (double)rel[1], (double)rel[2], (double)rel[3]));
        else PetscCall(PetscSNPrintf(cols, sizeof(cols), "u %.2e  v %.2e  p %.2e", (double)rel[0], (double)rel[1], (double)rel[2]));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-10s %-4s %-5s  max|x_np - x_1|/max|x_1|: %-40s  max|div u| h/U %.2e  (1 rank %.2f s, %d ranks %.2f s)\n", cases[i].name, ptype, FGDecompNames[sw->grid->decomp], cols, (double)dm.max, t1 - t0, (int)size, t2 - t1));
      }
      FGTestCheck(worst <= bound, "%s (%s): the fields on %d ranks differ from the 1-rank ones by %.3e > %.0e", cases[i].name, ptype, (int)size, (double)worst, (double)bound);
      FGTestCheck(dm.max <= div_tol, "%s (%s): max|div u| h/U = %.3e > %.0e after a projection", cases[i].name, ptype, (double)dm.max, (double)div_tol);
      if (!checked_perturbation) { /* the comparison must see a difference of 1e-10 max|u| */
        PetscReal rel2, umax = 0;
        if (ss) {
          PetscScalar *a;
          PetscInt     n;
          PetscCall(VecNorm(ss->u[0], NORM_INFINITY, &umax));
          PetscCall(VecGetLocalSize(ss->u[0], &n));
          PetscCall(VecGetArray(ss->u[0], &a));
          a[n / 2 + 3] += 1e-10 * umax;
          PetscCall(VecRestoreArray(ss->u[0], &a));
        }
        PetscCall(FGTestCompareField(sw, sw->u[0], ss ? ss->u[0] : NULL, &rel2));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  (self-check: a perturbation of 1e-10 max|u| is measured as %.3e)\n", (double)rel2));
        FGTestCheck(rel2 > 0.5e-10 && rel2 < 2e-10, "a perturbation of 1e-10 was measured as %.3e", (double)rel2);
        checked_perturbation = PETSC_TRUE;
      }
      PetscCall(FGSolverDestroy(&sw));
      PetscCall(FGSolverDestroy(&ss));
      PetscCall(PetscFree(c));
    }
  }
  for (PetscInt j = 0; has_sel && j < ncases; j++) PetscCall(PetscFree(sel[j]));
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
