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
  slip walls); a heaving NACA 2412 next to an ellipse (a moving mask; walls, lid); a 3D sphere
  in a duct (inflow, outflow, a wall, a slip wall, periodic in z) with an actuator. Registered at 1 and 3 ranks.
*/
#include "../forward/forward_test.h"

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
               "actuator: {push: {center: [6, 4.3], radius: 0.6, force: [0.2, 0.5], frequency: 0.7}}\n"},
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

/* Sum over ranks of local dot products (ghosted Vecs: every rank's copy counts). */
static PetscErrorCode LocalDot(MPI_Comm comm, PetscInt n, Vec x[], Vec y[], PetscReal *d)
{
  PetscFunctionBeginUser;
  *d = 0;
  for (PetscInt a = 0; a < n; a++) {
    PetscScalar v;
    PetscCall(VecDot(x[a], y[a], &v));
    *d += PetscRealPart(v);
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, d, 1, MPIU_REAL, MPIU_SUM, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GlobalDot(PetscInt n, Vec x[], Vec y[], PetscReal *d)
{
  PetscFunctionBeginUser;
  *d = 0;
  for (PetscInt a = 0; a < n; a++) {
    PetscScalar v;
    PetscCall(VecDot(x[a], y[a], &v));
    *d += PetscRealPart(v);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Random scalar parameters (the same on every rank), each body's theta_b and the actuators. */
static PetscErrorCode RandomParams(FGSolver s, FGStepParams *p)
{
  PetscInt  nb;
  PetscReal buf[2 + 3 * FG_CASE_MAX_ACTUATORS + FG_CASE_MAX_BODIES * FG_BODY_MAX_PARAMS];
  PetscInt  n = 0;

  PetscFunctionBeginUser;
  PetscCall(FGStepParamsZero(p));
  for (PetscInt i = 0; i < (PetscInt)(sizeof(buf) / sizeof(buf[0])); i++) PetscCall(PetscRandomGetValueReal(rnd, &buf[i]));
  PetscCallMPI(MPI_Bcast(buf, (PetscMPIInt)(sizeof(buf) / sizeof(buf[0])), MPIU_REAL, 0, s->comm));
  p->nu     = buf[n++] * 1e-2;
  p->inflow = buf[n++];
  for (PetscInt i = 0; i < s->c->nactuators * 3; i++) p->act[i] = buf[n + i];
  n += 3 * FG_CASE_MAX_ACTUATORS;
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  for (PetscInt b = 0; b < nb; b++) {
    PetscInt np;
    PetscCall(FGBodiesGetParameterCount(s->bodies, b, &np));
    for (PetscInt i = 0; i < np; i++) p->body[b][i] = buf[n + b * FG_BODY_MAX_PARAMS + i] * 0.1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscReal ParamsDot(FGSolver s, const FGStepParams *x, const FGStepParams *y)
{
  PetscInt  nb;
  PetscReal d = x->nu * y->nu + x->inflow * y->inflow;
  for (PetscInt i = 0; i < 3 * FG_CASE_MAX_ACTUATORS; i++) d += x->act[i] * y->act[i];
  (void)FGBodiesGetCount(s->bodies, &nb);
  for (PetscInt b = 0; b < nb; b++)
    for (PetscInt i = 0; i < FG_BODY_MAX_PARAMS; i++) d += x->body[b][i] * y->body[b][i];
  return d;
}

/* Move the forward inputs by eps * dir (or back to base with eps = 0). */
static PetscErrorCode ApplyParams(FGSolver s, FGCase *c, const FGBoundary *bc0, const PetscReal nu0, const FGActuatorCase *act0, PetscReal th0[][FG_BODY_MAX_PARAMS], const FGStepParams *dir, PetscReal eps)
{
  PetscInt nb;

  PetscFunctionBeginUser;
  s->nu = nu0 + eps * dir->nu;
  for (PetscInt d = 0; d < 3; d++)
    for (PetscInt side = 0; side < 2; side++)
      for (PetscInt a = 0; a < 3; a++) s->bc.velocity[d][side][a] = bc0->velocity[d][side][a] * (s->bc.kind[d][side] == FG_BC_INFLOW ? 1 + eps * dir->inflow : 1.0);
  for (PetscInt n = 0; n < c->nactuators; n++)
    for (PetscInt a = 0; a < 3; a++) c->actuator[n].force[a] = act0[n].force[a] + eps * dir->act[3 * n + a];
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  for (PetscInt b = 0; b < nb; b++) {
    PetscReal th[FG_BODY_MAX_PARAMS];
    PetscInt  np;
    PetscCall(FGBodiesGetParameterCount(s->bodies, b, &np));
    for (PetscInt i = 0; i < np; i++) th[i] = th0[b][i] + eps * dir->body[b][i];
    PetscCall(FGBodiesSetParameters(s->bodies, b, th));
  }
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
  Vec            u0[3], p0, du[3], dp, ub[3], pb, vl[3], wl[3], vg[3], wg[3], sc1, sc2, up[3], pp, um[3], pm;
  FGBoundary     bc0;
  PetscReal      nu0, t0, th0[FG_CASE_MAX_BODIES][FG_BODY_MAX_PARAMS], lhs, rhs, dacc[6 * FG_CASE_MAX_BODIES], wacc[6 * FG_CASE_MAX_BODIES];
  FGActuatorCase act0[FG_CASE_MAX_ACTUATORS];
  FGStepParams   dprm, bar, zero;

  PetscFunctionBeginUser;
  PetscCall(FGTestCaseLoad(comm, sc->name, &c, "%s", sc->yaml));
  PetscCall(FGSolverCreate(comm, c, &s));
  g   = s->grid;
  dim = g->dim;
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  PetscCall(FGSolverSetInitialCondition(s));
  for (PetscInt n = 0; n < c->time.steps; n++) PetscCall(FGStepForward_RK3(s));
  PetscCall(FGStepTapeCreate(s, &T));
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecDuplicate(s->u[a], &u0[a]));
    PetscCall(VecDuplicate(s->u[a], &du[a]));
    PetscCall(VecDuplicate(s->u[a], &ub[a]));
    PetscCall(VecDuplicate(s->u[a], &vg[a]));
    PetscCall(VecDuplicate(s->u[a], &wg[a]));
    PetscCall(VecDuplicate(s->u[a], &up[a]));
    PetscCall(VecDuplicate(s->u[a], &um[a]));
    PetscCall(DMCreateLocalVector(g->da, &vl[a]));
    PetscCall(DMCreateLocalVector(g->da, &wl[a]));
  }
  PetscCall(VecDuplicate(s->p, &p0));
  PetscCall(VecDuplicate(s->p, &dp));
  PetscCall(VecDuplicate(s->p, &pb));
  PetscCall(VecDuplicate(s->p, &pp));
  PetscCall(VecDuplicate(s->p, &pm));
  PetscCall(VecDuplicate(s->p, &sc1));
  PetscCall(VecDuplicate(s->p, &sc2));
  PetscCall(CopyState(s, u0, p0, 0, PETSC_FALSE));
  t0 = s->t;
  s->tape = T;
  PetscCall(FGStepForward_RK3(s));
  s->tape = NULL;
  bc0 = s->bc;
  nu0 = s->nu;
  for (PetscInt n = 0; n < c->nactuators; n++) act0[n] = c->actuator[n];
  for (PetscInt b = 0; b < nb; b++) PetscCall(FGBodiesGetParameters(s->bodies, b, th0[b]));
  PetscCall(FGStepParamsZero(&zero));

  /* 1. operators. The stage-1 linearization point T->ul[0], stage end time of stage 1. */
  {
    const PetscReal tk = T->t0 + 0.3 * T->dt;
    PetscReal       ds, dsb;
    /* fill: global v -> local, with the inflow scale */
    for (PetscInt a = 0; a < dim; a++) {
      PetscCall(VecSetRandom(vg[a], rnd));
      PetscCall(VecSetRandom(wl[a], rnd));
      PetscCall(DMGlobalToLocal(g->da, vg[a], INSERT_VALUES, vl[a]));
    }
    PetscCall(PetscRandomGetValueReal(rnd, &ds));
    PetscCallMPI(MPI_Bcast(&ds, 1, MPIU_REAL, 0, comm));
    PetscCall(FGOpFillBoundaryTangent(g, &s->bc, tk, ds, vl));
    PetscCall(LocalDot(comm, dim, vl, wl, &lhs));
    dsb = 0;
    PetscCall(FGOpFillBoundaryAdjoint(g, &s->bc, tk, wl, &dsb));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &dsb, 1, MPIU_REAL, MPIU_SUM, comm));
    for (PetscInt a = 0; a < dim; a++) {
      PetscCall(VecSet(wg[a], 0.0));
      PetscCall(DMLocalToGlobal(g->da, wl[a], ADD_VALUES, wg[a]));
    }
    PetscCall(GlobalDot(dim, vg, wg, &rhs));
    PetscCall(Check(sc->name, "fill boundary (+ inflow scale)", lhs, rhs + ds * dsb, 1e-12));
    /* prescribed boundary faces */
    for (PetscInt a = 0; a < dim; a++) {
      PetscCall(VecSetRandom(vg[a], rnd));
      PetscCall(VecSetRandom(wg[a], rnd));
      PetscCall(VecCopy(vg[a], du[a]));
    }
    PetscCall(FGOpSetBoundaryFacesTangent(g, &s->bc, tk, ds, du));
    PetscCall(GlobalDot(dim, du, wg, &lhs));
    dsb = 0;
    PetscCall(FGOpSetBoundaryFacesAdjoint(g, &s->bc, tk, wg, &dsb));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &dsb, 1, MPIU_REAL, MPIU_SUM, comm));
    PetscCall(GlobalDot(dim, vg, wg, &rhs));
    /* the tangent keeps du off those faces: <P v, w> with P the identity elsewhere */
    PetscCall(Check(sc->name, "boundary faces (+ inflow scale)", lhs, rhs + ds * dsb, 1e-12));
    /* advection, diffusion (+ nu), outflow: local v -> global */
    {
      PetscReal dnu = 0.013, nub = 0;
      for (PetscInt a = 0; a < dim; a++) {
        PetscCall(VecSetRandom(vl[a], rnd));
        PetscCall(VecSetRandom(wg[a], rnd));
        PetscCall(VecSet(vg[a], 0.0));
      }
      PetscCall(FGOpAdvectionTangent(g, &s->bc, T->ul[0], vl, vg));
      PetscCall(GlobalDot(dim, vg, wg, &lhs));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(wl[a], 0.0));
      PetscCall(FGOpAdvectionAdjoint(g, &s->bc, T->ul[0], wg, wl));
      PetscCall(LocalDot(comm, dim, vl, wl, &rhs));
      PetscCall(Check(sc->name, "advection", lhs, rhs, 1e-12));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(vg[a], 0.0));
      PetscCall(FGOpDiffusionTangent(g, &s->bc, s->nu, dnu, T->ul[0], vl, vg));
      PetscCall(GlobalDot(dim, vg, wg, &lhs));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(wl[a], 0.0));
      PetscCall(FGOpDiffusionAdjoint(g, &s->bc, s->nu, T->ul[0], wg, wl, &nub));
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &nub, 1, MPIU_REAL, MPIU_SUM, comm));
      PetscCall(LocalDot(comm, dim, vl, wl, &rhs));
      PetscCall(Check(sc->name, "diffusion (+ nu)", lhs, rhs + dnu * nub, 1e-12));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(vg[a], 0.0));
      PetscCall(FGOpOutflowTangent(g, &s->bc, vl, vg));
      PetscCall(GlobalDot(dim, vg, wg, &lhs));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(wl[a], 0.0));
      PetscCall(FGOpOutflowAdjoint(g, &s->bc, wg, wl));
      PetscCall(LocalDot(comm, dim, vl, wl, &rhs));
      PetscCall(Check(sc->name, "outflow", lhs, rhs, 1e-12));
    }
    /* divergence: local -> global cells; gradient: local cells -> global faces */
    PetscCall(VecSetRandom(sc2, rnd));
    PetscCall(FGOpDivergenceTangent(g, vl, sc1));
    PetscCall(VecDot(sc1, sc2, &lhs));
    for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(wl[a], 0.0));
    PetscCall(FGOpDivergenceAdjoint(g, sc2, wl));
    PetscCall(LocalDot(comm, dim, vl, wl, &rhs));
    PetscCall(Check(sc->name, "divergence", lhs, rhs, 1e-12));
    {
      Vec pl, plb;
      PetscCall(DMGetLocalVector(g->da, &pl));
      PetscCall(DMGetLocalVector(g->da, &plb));
      PetscCall(VecSetRandom(pl, rnd));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(vg[a], 0.0));
      PetscCall(FGOpGradientCorrectTangent(g, &s->bc, 0.7, pl, vg));
      PetscCall(GlobalDot(dim, vg, wg, &lhs));
      PetscCall(VecSet(plb, 0.0));
      PetscCall(FGOpGradientCorrectAdjoint(g, &s->bc, 0.7, wg, plb));
      PetscCall(LocalDot(comm, 1, &pl, &plb, &rhs));
      PetscCall(Check(sc->name, "gradient correction", lhs, rhs, 1e-12));
      PetscCall(DMRestoreLocalVector(g->da, &pl));
      PetscCall(DMRestoreLocalVector(g->da, &plb));
    }
    /* Poisson */
    PetscCall(VecSetRandom(sc1, rnd));
    PetscCall(VecSetRandom(sc2, rnd));
    PetscCall(FGPoissonSolve(s->poisson, sc1, dp));
    PetscCall(VecDot(dp, sc2, &lhs));
    PetscCall(FGPoissonSolveTranspose(s->poisson, sc2, pb));
    PetscCall(VecDot(sc1, pb, &rhs));
    PetscCall(Check(sc->name, "Poisson solve", lhs, rhs, 1e-12));
    /* actuators */
    if (c->nactuators) {
      PetscReal fb[3 * FG_CASE_MAX_ACTUATORS] = {0};
      PetscCall(RandomParams(s, &dprm));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(vg[a], 0.0));
      PetscCall(FGActuatorsAddForceTangent(s, tk, dprm.act, vg));
      PetscCall(GlobalDot(dim, vg, wg, &lhs));
      PetscCall(FGActuatorsAddForceAdjoint(s, tk, wg, fb));
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, fb, 3 * FG_CASE_MAX_ACTUATORS, MPIU_REAL, MPIU_SUM, comm));
      rhs = 0;
      for (PetscInt i = 0; i < 3 * c->nactuators; i++) rhs += fb[i] * dprm.act[i];
      PetscCall(Check(sc->name, "actuators", lhs, rhs, 1e-12));
    }
    /* penalization with the body parameters and the stage forces */
    if (nb) {
      const PetscReal *th[FG_CASE_MAX_BODIES];
      PetscReal       *thb[FG_CASE_MAX_BODIES];
      PetscCall(RandomParams(s, &dprm));
      PetscCall(FGStepParamsZero(&bar));
      for (PetscInt b = 0; b < FG_CASE_MAX_BODIES; b++) th[b] = dprm.body[b], thb[b] = bar.body[b];
      for (PetscInt a = 0; a < dim; a++) {
        PetscCall(VecSetRandom(du[a], rnd));
        PetscCall(VecCopy(du[a], vg[a]));
        PetscCall(VecSetRandom(wg[a], rnd));
      }
      for (PetscInt i = 0; i < 6 * nb; i++) {
        dacc[i] = 0;
        PetscCall(PetscRandomGetValueReal(rnd, &wacc[i]));
      }
      PetscCallMPI(MPI_Bcast(wacc, (PetscMPIInt)(6 * nb), MPIU_REAL, 0, comm));
      PetscCall(FGBodiesPenalizeTangent(s->bodies, T->t0 + T->dt, 0.75, T->dt, T->ustar[2], th, NULL, du, dacc));
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, dacc, (PetscMPIInt)(6 * nb), MPIU_REAL, MPIU_SUM, comm));
      PetscCall(GlobalDot(dim, du, wg, &lhs));
      for (PetscInt i = 0; i < 6 * nb; i++) lhs += dacc[i] * wacc[i];
      PetscCall(FGBodiesPenalizeAdjoint(s->bodies, T->t0 + T->dt, 0.75, T->dt, T->ustar[2], wacc, wg, thb, NULL, NULL));
      PetscCall(FGStepParamsReduce(comm, &bar));
      PetscCall(GlobalDot(dim, vg, wg, &rhs));
      rhs += ParamsDot(s, &dprm, &bar);
      PetscCall(Check(sc->name, "penalization (+ parameters, forces)", lhs, rhs, 1e-12));
    }
  }

  /* 2. the whole step */
  PetscCall(RandomParams(s, &dprm));
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecSetRandom(du[a], rnd));
    PetscCall(VecCopy(du[a], vg[a]));
    PetscCall(VecSetRandom(ub[a], rnd));
    PetscCall(VecCopy(ub[a], wg[a]));
  }
  PetscCall(VecSetRandom(dp, rnd));
  PetscCall(VecCopy(dp, sc1));
  PetscCall(VecSetRandom(pb, rnd));
  PetscCall(VecCopy(pb, sc2));
  for (PetscInt i = 0; i < 6 * nb; i++) PetscCall(PetscRandomGetValueReal(rnd, &wacc[i]));
  PetscCallMPI(MPI_Bcast(wacc, (PetscMPIInt)(6 * nb), MPIU_REAL, 0, comm));
  PetscCall(FGStepTangent_RK3(s, T, &dprm, du, dp, dacc));
  PetscCall(GlobalDot(dim, du, wg, &lhs));
  {
    PetscScalar v;
    PetscCall(VecDot(dp, sc2, &v));
    lhs += PetscRealPart(v);
  }
  for (PetscInt i = 0; i < 6 * nb; i++) lhs += dacc[i] * wacc[i];
  PetscCall(FGStepParamsZero(&bar));
  PetscCall(FGStepAdjoint_RK3(s, T, wacc, ub, pb, &bar));
  PetscCall(FGStepParamsReduce(comm, &bar));
  PetscCall(GlobalDot(dim, vg, ub, &rhs));
  {
    PetscScalar v;
    PetscCall(VecDot(sc1, pb, &v));
    rhs += PetscRealPart(v) + ParamsDot(s, &dprm, &bar);
  }
  PetscCall(Check(sc->name, "whole step (u, p, parameters, forces)", lhs, rhs, 1e-12));

  /* 3. tangent vs central differences of the forward step, per perturbation group */
  for (PetscInt grp = 0; grp < 5; grp++) {
    const char     *gname[] = {"FD: state", "FD: viscosity", "FD: inflow", "FD: actuators", "FD: body parameters"};
    const PetscReal eps     = 1e-5;
    FGStepParams    dir;
    PetscReal       err = 0, nrm = 0, fp[6 * FG_CASE_MAX_BODIES], fm[6 * FG_CASE_MAX_BODIES], ferr = 0, fnrm = 0;
    FGBodyForces    F;
    if (grp == 3 && !c->nactuators) continue;
    if (grp == 4 && !nb) continue;
    PetscCall(RandomParams(s, &dprm));
    dir = zero;
    if (grp == 1) dir.nu = dprm.nu;
    if (grp == 2) dir.inflow = dprm.inflow;
    if (grp == 3) PetscCall(PetscArraycpy(dir.act, dprm.act, 3 * FG_CASE_MAX_ACTUATORS));
    if (grp == 4) PetscCall(PetscArraycpy(&dir.body[0][0], &dprm.body[0][0], FG_CASE_MAX_BODIES * FG_BODY_MAX_PARAMS));
    for (PetscInt a = 0; a < dim; a++) {
      PetscCall(VecSet(du[a], 0.0));
      if (grp == 0) PetscCall(VecSetRandom(du[a], rnd));
    }
    PetscCall(VecSet(dp, 0.0));
    if (grp == 0 && nb) PetscCall(VecSetRandom(dp, rnd));
    /* forward at +eps and -eps */
    for (PetscInt sgn = 1; sgn >= -1; sgn -= 2) {
      PetscCall(ApplyParams(s, c, &bc0, nu0, act0, th0, &dir, sgn * eps));
      PetscCall(CopyState(s, u0, p0, t0, PETSC_TRUE));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecAXPY(s->u[a], sgn * eps, du[a]));
      PetscCall(VecAXPY(s->p, sgn * eps, dp));
      PetscCall(FGStepForward_RK3(s));
      PetscCall(CopyState(s, sgn > 0 ? up : um, sgn > 0 ? pp : pm, 0, PETSC_FALSE));
      for (PetscInt b = 0; b < nb; b++) {
        PetscCall(FGBodiesGetForces(s->bodies, b, &F));
        for (PetscInt m = 0; m < 3; m++) (sgn > 0 ? fp : fm)[6 * b + m] = F.force[m], (sgn > 0 ? fp : fm)[6 * b + 3 + m] = F.moment[m];
      }
    }
    PetscCall(ApplyParams(s, c, &bc0, nu0, act0, th0, &dir, 0));
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
    PetscCall(VecDestroy(&ub[a]));
    PetscCall(VecDestroy(&vg[a]));
    PetscCall(VecDestroy(&wg[a]));
    PetscCall(VecDestroy(&up[a]));
    PetscCall(VecDestroy(&um[a]));
    PetscCall(VecDestroy(&vl[a]));
    PetscCall(VecDestroy(&wl[a]));
  }
  PetscCall(VecDestroy(&p0));
  PetscCall(VecDestroy(&dp));
  PetscCall(VecDestroy(&pb));
  PetscCall(VecDestroy(&pp));
  PetscCall(VecDestroy(&pm));
  PetscCall(VecDestroy(&sc1));
  PetscCall(VecDestroy(&sc2));
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
