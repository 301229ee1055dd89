/*
  Tangent and adjoint of every operator on the step path and of the whole RK3 step (issue 5).

  For each case: a few forward steps give a nontrivial state, then one step is recorded (the
  tape) and, at that linearization point,

    1. dot-product tests  |<T v, w> - <v, T^T w>| <= 1e-12 max(|<T v, w>|, |<v, T^T w>|)
       with random v, w, for: the boundary fill (with the inflow scale), the prescribed boundary
       faces, advection, diffusion (with the viscosity), outflow, divergence, gradient, the
       Poisson solve, the penalization (with every body parameter and the stage forces), the
       actuators, and the whole step (state u, p; all parameters; the step's body forces);
    2. the tangent step against central differences of the forward step (eps = 1e-5),
       along a random state direction and along each parameter group: relative error <= 1e-6.

  Cases: a 2D rotating cylinder with two jets and an actuator in a channel (inflow, outflow,
  slip walls), its controls piecewise linear in time (design.time_basis 4); a heaving NACA 2412 next to an ellipse (a moving mask; walls, lid); a 3D sphere
  in a duct (inflow, outflow, a wall, a slip wall, periodic in z) with an actuator; a 3D rotating
  circular column (an extruded circle) with two jets, periodic in z. Registered at 1 and 3 ranks.
*/
#include "../forward/forward_test.h"
#include <fg/adjoint.h>

static const char help[] = "Tangent and adjoint of the operators and of the step: dot-product and finite-difference tests.\n";

typedef struct {
  const char *name;
  const char *yaml;
} StepCase;

static const StepCase cases[] = {
  {"cylinder", "grid: {cells: [48, 32], lengths: [12, 8]}\n"
               "flow: {re: 100}\n"
               "time: {dt: 0.04, steps: 4}\n"
               "initial: {type: uniform, velocity: [1, 0]}\n"
               "boundary: {x_lo: {type: inflow, velocity: [1, 0.1], modulation_amplitude: 0.2, modulation_frequency: 0.5}, x_hi: {type: outflow}, y_lo: {type: slip}, y_hi: {type: slip}}\n"
               "body: {cyl: {shape: circle, position: [4, 4.1], radius: 0.6, rotation_rate: 0.5, eta: 0.01,\n"
               "             jet_angles: [90, 250], jet_amplitude: [0.3, -0.2], jet_width: 40, jet_frequency: 1}}\n"
               "actuator: {push: {center: [6, 4.3], radius: 0.6, force: [0.2, 0.5], frequency: 0.7}}\n"
               "design: {time_basis: 4}\n"},
  {"pitching", "grid: {cells: [48, 32], lengths: [6, 4]}\n"
               "flow: {re: 200}\n"
               "time: {dt: 0.01, steps: 4}\n"
               "initial: {type: uniform, velocity: [1, 0]}\n"
               "boundary: {x_lo: {type: inflow, velocity: [1, 0]}, x_hi: {type: outflow}, y_lo: {type: wall}, y_hi: {type: lid, velocity: [0.5, 0]}}\n"
               "body: {wing: {shape: naca, naca: \"2412\", position: [1.5, 2], angle: 6, eta: 0.01, oscillation_amplitude: [0, 0.1], oscillation_frequency: 2},\n"
               "       rock: {shape: ellipse, position: [4.2, 1.7], semi_axes: [0.4, 0.2], angle: 20, eta: 0.01, rotation_rate: 0.3}}\n"},
  {"sphere", "grid: {cells: [24, 16, 12], lengths: [4, 3, 3], periodic: [false, false, true]}\n"
             "flow: {re: 50}\n"
             "time: {dt: 0.03, steps: 3}\n"
             "initial: {type: uniform, velocity: [1, 0, 0]}\n"
             "boundary: {x_lo: {type: inflow, velocity: [1, 0, 0.1]}, x_hi: {type: outflow}, y_lo: {type: wall}, y_hi: {type: slip}, z_lo: {type: periodic}, z_hi: {type: periodic}}\n"
             "body: {ball: {shape: sphere, position: [1.3, 1.5, 1.45], radius: 0.5, eta: 0.01}}\n"
             "actuator: {push: {center: [2.5, 1.5, 1.5], radius: 0.5, force: [0.1, 0.3, 0.2]}}\n"},
  {"column", "grid: {cells: [24, 16, 8], lengths: [4, 3, 1.5], periodic: [false, false, true]}\n"
             "flow: {re: 60}\n"
             "time: {dt: 0.03, steps: 3}\n"
             "initial: {type: uniform, velocity: [1, 0, 0]}\n"
             "boundary: {x_lo: {type: inflow, velocity: [1, 0.05, 0]}, x_hi: {type: outflow}, y_lo: {type: slip}, y_hi: {type: slip}, z_lo: {type: periodic}, z_hi: {type: periodic}}\n"
             "body: {col: {shape: circle, position: [1.3, 1.55, 0.7], radius: 0.45, eta: 0.01, rotation_rate: 0.4,\n"
             "             jet_angles: [80, 260], jet_amplitude: [0.2, -0.1], jet_width: 50}}\n"},
};

static PetscRandom rnd;

static PetscErrorCode Check(const char *cname, const char *what, PetscReal lhs, PetscReal rhs, PetscReal tol)
{
  PetscReal scale = PetscMax(PetscAbsReal(lhs), PetscAbsReal(rhs)), rel = scale > 0 ? PetscAbsReal(lhs - rhs) / scale : 0;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-9s %-34s %+.15e %+.15e  rel %.2e\n", cname, what, (double)lhs, (double)rhs, (double)rel));
  FGTestCheck(scale > 0 && rel <= tol, "%s: %s: relative mismatch %g > %g", cname, what, (double)rel, (double)tol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Move the solver's parameters to base + eps * dir (or back to base with eps = 0) and apply them
   (the inflow perturbation is relative: U = U_base (1 + eps dinflow)). */
static PetscErrorCode ApplyParams(FGSolver s, const FGParams *base, const FGParams *dir, PetscReal eps)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < base->L->n; i++) s->prm.v[i] = base->v[i] + eps * dir->v[i];
  s->prm.v[FG_PARAM_INFLOW] = base->v[FG_PARAM_INFLOW] * (1 + eps * dir->v[FG_PARAM_INFLOW]);
  PetscCall(FGSolverSetParams(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CopyState(FGSolver s, Vec u[], Vec p, PetscReal t, PetscBool to_solver)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(to_solver ? VecCopy(u[a], s->u[a]) : VecCopy(s->u[a], u[a]));
  PetscCall(to_solver ? VecCopy(p, s->p) : VecCopy(s->p, p));
  if (to_solver) s->t = t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunCase(const StepCase *sc)
{
  MPI_Comm       comm = PETSC_COMM_WORLD;
  FGCase        *c;
  FGSolver       s;
  FGStepTape     T;
  FGGrid         g;
  PetscInt       dim, nb;
  Vec            u0[3], p0, du[3], dp, up[3], pp, um[3], pm;
  PetscReal      t0, dacc[6 * FG_CASE_MAX_BODIES];
  FGParams       base, dprm, dir;

  PetscFunctionBeginUser;
  PetscCall(FGTestCaseLoad(comm, sc->name, &c, "%s", sc->yaml));
  PetscCall(FGSolverCreate(comm, c, &s));
  g   = s->grid;
  dim = g->dim;
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  PetscCall(FGSolverSetInitialCondition(s));
  for (PetscInt n = 0; n + 1 < c->time.steps; n++) PetscCall(FGStepForward_RK3(s, NULL)); /* the last step (within [0, T]) is recorded */
  PetscCall(FGStepTapeCreate(s, &T));
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecDuplicate(s->u[a], &u0[a]));
    PetscCall(VecDuplicate(s->u[a], &du[a]));
    PetscCall(VecDuplicate(s->u[a], &up[a]));
    PetscCall(VecDuplicate(s->u[a], &um[a]));
  }
  PetscCall(VecDuplicate(s->p, &p0));
  PetscCall(VecDuplicate(s->p, &dp));
  PetscCall(VecDuplicate(s->p, &pp));
  PetscCall(VecDuplicate(s->p, &pm));
  PetscCall(CopyState(s, u0, p0, 0, PETSC_FALSE));
  t0 = s->t;
  PetscCall(FGStepForward_RK3(s, T));
  PetscCall(FGParamsCreate(&s->layout, &base));
  PetscCall(FGParamsCreate(&s->layout, &dprm));
  PetscCall(FGParamsCreate(&s->layout, &dir));
  PetscCall(PetscArraycpy(base.v, s->prm.v, s->layout.n));

  /* 1-2. dot-product tests of every operator and of the whole step (src/adjoint/check.c) */
  {
    FGDotResult res[FG_DOT_MAX_TESTS];
    PetscInt    nres;
    PetscCall(FGAdjointDotTests(s, T, rnd, &nres, res));
    FGTestCheck(nres >= 9, "%s: only %" PetscInt_FMT " dot-product tests ran", sc->name, nres);
    for (PetscInt i = 0; i < nres; i++) PetscCall(Check(sc->name, res[i].name, res[i].lhs, res[i].rhs, 1e-12));
  }

  /* 3. tangent vs central differences of the forward step, per perturbation group */
  for (PetscInt grp = 0; grp < 5; grp++) {
    const char     *gname[] = {"FD: state", "FD: viscosity", "FD: inflow", "FD: actuators", "FD: body parameters"};
    const PetscReal eps     = 1e-5;
    PetscReal       err = 0, nrm = 0, fp[6 * FG_CASE_MAX_BODIES], fm[6 * FG_CASE_MAX_BODIES], ferr = 0, fnrm = 0;
    FGBodyForces    F;
    if (grp == 3 && !c->nactuators) continue;
    if (grp == 4 && !nb) continue;
    PetscCall(FGParamsSetRandom(s, rnd, &dprm));
    PetscCall(FGParamsZero(&dir));
    if (grp == 1) dir.v[FG_PARAM_NU] = dprm.v[FG_PARAM_NU];
    if (grp == 2) dir.v[FG_PARAM_INFLOW] = dprm.v[FG_PARAM_INFLOW];
    if (grp == 3)
      for (PetscInt i = s->layout.act; i < s->layout.act + 3 * s->layout.nact * s->layout.nbasis; i++) dir.v[i] = dprm.v[i];
    if (grp == 4)
      for (PetscInt i = s->layout.act + 3 * s->layout.nact * s->layout.nbasis; i < s->layout.n; i++) dir.v[i] = dprm.v[i];
    for (PetscInt a = 0; a < dim; a++) {
      PetscCall(VecSet(du[a], 0.0));
      if (grp == 0) PetscCall(VecSetRandom(du[a], rnd));
    }
    PetscCall(VecSet(dp, 0.0));
    if (grp == 0 && nb) PetscCall(VecSetRandom(dp, rnd));
    /* forward at +eps and -eps */
    for (PetscInt sgn = 1; sgn >= -1; sgn -= 2) {
      PetscCall(ApplyParams(s, &base, &dir, sgn * eps));
      PetscCall(CopyState(s, u0, p0, t0, PETSC_TRUE));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecAXPY(s->u[a], sgn * eps, du[a]));
      PetscCall(VecAXPY(s->p, sgn * eps, dp));
      PetscCall(FGStepForward_RK3(s, NULL));
      PetscCall(CopyState(s, sgn > 0 ? up : um, sgn > 0 ? pp : pm, 0, PETSC_FALSE));
      for (PetscInt b = 0; b < nb; b++) {
        PetscCall(FGBodiesGetForces(s->bodies, b, &F));
        for (PetscInt m = 0; m < 3; m++) (sgn > 0 ? fp : fm)[6 * b + m] = F.force[m], (sgn > 0 ? fp : fm)[6 * b + 3 + m] = F.moment[m];
      }
    }
    PetscCall(ApplyParams(s, &base, &dir, 0));
    PetscCall(FGStepTangent_RK3(s, T, &dir, du, dp, dacc));
    for (PetscInt a = 0; a < dim; a++) {
      PetscReal e, n_;
      PetscCall(VecAXPBY(up[a], -0.5 / eps, 0.5 / eps, um[a])); /* (u+ - u-)/(2 eps) */
      PetscCall(VecNorm(up[a], NORM_INFINITY, &n_));
      PetscCall(VecAXPY(up[a], -1.0, du[a]));
      PetscCall(VecNorm(up[a], NORM_INFINITY, &e));
      err = PetscMax(err, e), nrm = PetscMax(nrm, n_);
    }
    for (PetscInt i = 0; i < 6 * nb; i++) {
      PetscReal fd = (fp[i] - fm[i]) / (2 * eps);
      ferr         = PetscMax(ferr, PetscAbsReal(fd - dacc[i]));
      fnrm         = PetscMax(fnrm, PetscAbsReal(fd));
    }
    PetscCall(PetscPrintf(comm, "  %-9s %-34s |FD| %.3e  |FD - tangent| %.3e  forces %.3e / %.3e\n", sc->name, gname[grp], (double)nrm, (double)err, (double)fnrm, (double)ferr));
    FGTestCheck(nrm > 0 && err <= 1e-6 * nrm, "%s: %s: tangent differs from central differences by %g (|FD| %g)", sc->name, gname[grp], (double)err, (double)nrm);
    FGTestCheck(!nb || ferr <= 1e-6 * PetscMax(fnrm, 1e-3), "%s: %s: force tangent differs from central differences by %g (|FD| %g)", sc->name, gname[grp], (double)ferr, (double)fnrm);
  }

  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecDestroy(&u0[a]));
    PetscCall(VecDestroy(&du[a]));
    PetscCall(VecDestroy(&up[a]));
    PetscCall(VecDestroy(&um[a]));
  }
  PetscCall(VecDestroy(&p0));
  PetscCall(VecDestroy(&dp));
  PetscCall(VecDestroy(&pp));
  PetscCall(VecDestroy(&pm));
  PetscCall(FGParamsDestroy(&base));
  PetscCall(FGParamsDestroy(&dprm));
  PetscCall(FGParamsDestroy(&dir));
  PetscCall(FGStepTapeDestroy(&T));
  PetscCall(FGSolverDestroy(&s));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Main(void)
{
  char only[64] = "";

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", only, sizeof(only), NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCall(PetscRandomSetSeed(rnd, 12345 + 17 * (unsigned long)rank));
    PetscCall(PetscRandomSeed(rnd));
  }
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    PetscBool skip = PETSC_FALSE;
    if (only[0]) {
      PetscCall(PetscStrcmp(only, cases[i].name, &skip));
      skip = (PetscBool)!skip;
    }
    if (!skip) PetscCall(RunCase(&cases[i]));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr = FGInitialize(&argc, &argv, help);
  if (!ierr) ierr = Main();
  return FGTestExit(ierr);
}
