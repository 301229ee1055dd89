/*
  Verification of the discrete adjoint (flowgrad check; include/fg/adjoint.h):

    FGAdjointDotTests  <T v, w> = <v, T^T w> with random v, w for every operator on the step path
                       and for the whole step (state, parameters, forces), at a recorded step
    FGAdjointTaylor    the remainder |J(p + eps d) - J(p) - eps g.d| for eps halving: order 2
    FGAdjointFD        central differences of J per design scalar (and a sample of field entries)
*/
#include <fg/adjoint.h>

/*@C
  FGAdjointCheckGetOptions - the tolerances of `flowgrad check`, in one PetscOptionsBegin block
  (so -help lists them). Collective.

  Options Database Keys:
+ -fg_check_dot_rtol <1e-12>    - dot-product tests: |<T v, w> - <v, T^T w>| / (||T v|| ||w||)
. -fg_check_taylor_eps <1e-3>   - Taylor test: the largest step (halved 5 times)
. -fg_check_taylor_order <1.9>  - Taylor test: the least observed order of the remainder
. -fg_check_fd_rtol <1e-6>      - central differences: relative tolerance against the adjoint
. -fg_check_fd_step <3e-6>      - central differences: the step relative to a scalar's scale
. -fg_check_fd_order <2>        - central differences: 2 (J at +-h) or 4 (also at +-2h: Richardson's
                                  extrapolation, for a J whose curvature makes the step's error
                                  and round-off meet near the tolerance)
- -fg_check_seed <1>            - seed of the random vectors and directions
@*/
PetscErrorCode FGAdjointCheckGetOptions(MPI_Comm comm, FGAdjointCheckOptions *o)
{
  PetscFunctionBeginUser;
  o->dot_rtol     = 1e-12;
  o->taylor_eps   = 1e-3;
  o->taylor_order = 1.9;
  o->fd_rtol      = 1e-6;
  o->fd_step      = 3e-6;
  o->fd_order     = 2;
  o->seed         = 1;
  PetscBool set;
  PetscOptionsBegin(comm, NULL, "flowgrad check: verification of the adjoint", NULL);
  PetscCall(PetscOptionsReal("-fg_check_dot_rtol", "dot-product tests: largest |<T v, w> - <v, T^T w>| / (||T v|| ||w||)", NULL, o->dot_rtol, &o->dot_rtol, &set));
  PetscCall(FGOptionsCheckValue("-fg_check_dot_rtol", set)); /* given without a value: not silently unset */
  PetscCall(PetscOptionsReal("-fg_check_taylor_eps", "Taylor test: the largest step along the random direction (halved 5 times)", NULL, o->taylor_eps, &o->taylor_eps, &set));
  PetscCall(FGOptionsCheckValue("-fg_check_taylor_eps", set)); /* given without a value: not silently unset */
  PetscCall(PetscOptionsReal("-fg_check_taylor_order", "Taylor test: the least observed order of the remainder", NULL, o->taylor_order, &o->taylor_order, &set));
  PetscCall(FGOptionsCheckValue("-fg_check_taylor_order", set)); /* given without a value: not silently unset */
  PetscCall(PetscOptionsReal("-fg_check_fd_rtol", "central differences: relative tolerance against the adjoint gradient", NULL, o->fd_rtol, &o->fd_rtol, &set));
  PetscCall(FGOptionsCheckValue("-fg_check_fd_rtol", set)); /* given without a value: not silently unset */
  PetscCall(PetscOptionsReal("-fg_check_fd_step", "central differences: the step, relative to each design scalar's scale", NULL, o->fd_step, &o->fd_step, &set));
  PetscCall(FGOptionsCheckValue("-fg_check_fd_step", set)); /* given without a value: not silently unset */
  PetscCall(PetscOptionsInt("-fg_check_fd_order", "central differences: the order, 2 (J at +-h) or 4 (also at +-2h)", NULL, o->fd_order, &o->fd_order, &set));
  PetscCall(FGOptionsCheckValue("-fg_check_fd_order", set)); /* given without a value: not silently unset */
  PetscCall(PetscOptionsInt("-fg_check_seed", "seed of the random vectors and the Taylor direction", NULL, o->seed, &o->seed, &set));
  PetscCall(FGOptionsCheckValue("-fg_check_seed", set)); /* given without a value: not silently unset */
  PetscOptionsEnd();
  PetscCheck(o->dot_rtol > 0, comm, FG_ERR_INPUT, "-fg_check_dot_rtol %g: must be > 0", (double)o->dot_rtol); /* NaN too */
  PetscCheck(o->taylor_eps > 0, comm, FG_ERR_INPUT, "-fg_check_taylor_eps %g: must be > 0", (double)o->taylor_eps);
  PetscCheck(o->taylor_order > 0, comm, FG_ERR_INPUT, "-fg_check_taylor_order %g: must be > 0", (double)o->taylor_order);
  PetscCheck(o->fd_rtol > 0, comm, FG_ERR_INPUT, "-fg_check_fd_rtol %g: must be > 0", (double)o->fd_rtol);
  PetscCheck(o->fd_step > 0, comm, FG_ERR_INPUT, "-fg_check_fd_step %g: must be > 0", (double)o->fd_step);
  PetscCheck(o->fd_order == 2 || o->fd_order == 4, comm, FG_ERR_INPUT, "-fg_check_fd_order %" PetscInt_FMT ": must be 2 or 4", o->fd_order);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGParamsSetRandom - random scalar parameter perturbations (the same on every rank), in
  [-1, 1] times a scale per kind: 1e-2 for the viscosity, 1 for the inflow and the actuators,
  0.1 for the bodies' parameters. Collective.

  Notes:
  The numbers are drawn in a fixed order that does not depend on the case: 2 (viscosity,
  inflow), then 3 x 16 per possible actuator (FG_CASE_MAX_ACTUATORS; components, basis
  coefficients up to FG_CASE_MAX_TIME_BASIS), then FG_BODY_MAX_PARAMS per possible body
  (FG_CASE_MAX_BODIES), each entry of the layout taking its slot. That is the order in which
  flowgrad check has always drawn them, so its random vectors, and with them its printed numbers
  and verdicts, stay the same for a case from one version to the next.
@*/
PetscErrorCode FGParamsSetRandom(FGSolver s, PetscRandom rnd, FGParams *p)
{
  const FGParamLayout *L     = p->L;
  const PetscInt       nact  = 3 * FG_CASE_MAX_ACTUATORS * FG_CASE_MAX_TIME_BASIS;
  const PetscInt       ndraw = 2 + nact + FG_CASE_MAX_BODIES * FG_BODY_MAX_PARAMS;
  PetscReal           *buf, *act = FGParamsActuators(p);

  PetscFunctionBeginUser;
  PetscCheck(L->nact <= FG_CASE_MAX_ACTUATORS && L->nbasis <= FG_CASE_MAX_TIME_BASIS && L->nbodies <= FG_CASE_MAX_BODIES, s->comm, PETSC_ERR_SUP, "the random parameters' draw order covers at most %d actuators, %d basis functions and %d bodies", FG_CASE_MAX_ACTUATORS, FG_CASE_MAX_TIME_BASIS, FG_CASE_MAX_BODIES);
  PetscCall(FGParamsZero(p));
  PetscCall(PetscMalloc1(ndraw, &buf));
  for (PetscInt i = 0; i < ndraw; i++) PetscCall(PetscRandomGetValueReal(rnd, &buf[i]));
  PetscCallMPI(MPI_Bcast(buf, (PetscMPIInt)ndraw, MPIU_REAL, 0, s->comm));
  p->v[FG_PARAM_NU]     = buf[0] * 1e-2;
  p->v[FG_PARAM_INFLOW] = buf[1];
  for (PetscInt i = 0; i < 3 * L->nact; i++)
    for (PetscInt k = 0; k < L->nbasis; k++) act[i * L->nbasis + k] = buf[2 + i * FG_CASE_MAX_TIME_BASIS + k];
  for (PetscInt b = 0; b < L->nbodies; b++)
    for (PetscInt i = 0; i < L->nbody[b]; i++) p->theta[b][i] = buf[2 + nact + b * FG_BODY_MAX_PARAMS + i] * 0.1;
  PetscCall(PetscFree(buf));
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

/* ||x|| ||y|| of two lists of Vecs (local: ghosted, every rank's copy counts). */
static PetscErrorCode NormProduct(MPI_Comm comm, PetscInt n, Vec x[], Vec y[], PetscBool local, PetscReal *s)
{
  PetscReal sq[2] = {0, 0}, v;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < n; a++) {
    PetscCall(VecNorm(x[a], NORM_2, &v));
    sq[0] += v * v;
    PetscCall(VecNorm(y[a], NORM_2, &v));
    sq[1] += v * v;
  }
  if (local) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, sq, 2, MPIU_REAL, MPIU_SUM, comm));
  *s = PetscSqrtReal(sq[0] * sq[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||x||^2 ||y||^2 of two arrays (added to a squared norm product: a rough bound, enough for a scale). */
static PetscReal ScalarNorms(PetscInt n, const PetscReal x[], const PetscReal y[])
{
  PetscReal a = 0, b = 0;
  for (PetscInt i = 0; i < n; i++) a += x[i] * x[i], b += y[i] * y[i];
  return a * b;
}

static PetscErrorCode FGDotRecord_Private(PetscInt *n, FGDotResult res[], PetscReal scale, const char *name, PetscReal lhs, PetscReal rhs)
{
  FGDotResult *r = &res[(*n)++];
  PetscReal    m = PetscMax(PetscAbsReal(lhs), PetscAbsReal(rhs));

  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(r->name, name, sizeof(r->name)));
  r->lhs     = lhs;
  r->rhs     = rhs;
  r->rel     = m > 0 ? PetscAbsReal(lhs - rhs) / m : 0;
  r->relnorm = scale > 0 ? PetscAbsReal(lhs - rhs) / scale : r->rel;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGAdjointDotTests - dot-product tests of every operator and of the whole step, linearized about
  the step recorded in the tape T (FGStepForward_RK3 with the tape T). res[] (FG_DOT_MAX_TESTS
  entries) receives (name, <T v, w>, <v, T^T w>, their difference relative to the larger of the
  two and relative to ||T v|| ||w||); *n their number. The second is what round-off can reach on
  any grid: a random w makes <T v, w> a sum of n terms of both signs, of size ||T v|| ||w|| / sqrt(n),
  so the first measure loses a factor sqrt(n) on large grids.
  The random numbers come from rnd (give each rank its own seed). Collective.
@*/
PetscErrorCode FGAdjointDotTests(FGSolver s, FGStepTape T, PetscRandom rnd, PetscInt *n, FGDotResult res[])
{
  MPI_Comm       comm = s->comm;
  FGGrid         g    = s->grid;
  const FGCase  *c    = s->c;
  const PetscInt dim  = g->dim;
  PetscInt       nb;
  Vec            du[3], ub[3], vl[3], wl[3], vg[3], wg[3], dp, pb, sc1, sc2;
  PetscReal      lhs, rhs, scale = 0, dacc[6 * FG_CASE_MAX_BODIES], wacc[6 * FG_CASE_MAX_BODIES];
  FGParams       dprm, bar;

  PetscFunctionBeginUser;
  *n = 0;
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  PetscCall(FGParamsCreate(&s->layout, &dprm));
  PetscCall(FGParamsCreate(&s->layout, &bar));
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecDuplicate(s->u[a], &du[a]));
    PetscCall(VecDuplicate(s->u[a], &ub[a]));
    PetscCall(VecDuplicate(s->u[a], &vg[a]));
    PetscCall(VecDuplicate(s->u[a], &wg[a]));
    PetscCall(DMCreateLocalVector(g->da, &vl[a]));
    PetscCall(DMCreateLocalVector(g->da, &wl[a]));
  }
  PetscCall(VecDuplicate(s->p, &dp));
  PetscCall(VecDuplicate(s->p, &pb));
  PetscCall(VecDuplicate(s->p, &sc1));
  PetscCall(VecDuplicate(s->p, &sc2));
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
    PetscCall(NormProduct(comm, dim, vl, wl, PETSC_TRUE, &scale));
    dsb = 0;
    PetscCall(FGOpFillBoundaryAdjoint(g, &s->bc, tk, wl, &dsb));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &dsb, 1, MPIU_REAL, MPIU_SUM, comm));
    for (PetscInt a = 0; a < dim; a++) {
      PetscCall(VecSet(wg[a], 0.0));
      PetscCall(DMLocalToGlobal(g->da, wl[a], ADD_VALUES, wg[a]));
    }
    PetscCall(GlobalDot(dim, vg, wg, &rhs));
    PetscCall(FGDotRecord_Private(n, res, scale, "fill boundary (+ inflow scale)", lhs, rhs + ds * dsb));
    /* prescribed boundary faces */
    for (PetscInt a = 0; a < dim; a++) {
      PetscCall(VecSetRandom(vg[a], rnd));
      PetscCall(VecSetRandom(wg[a], rnd));
      PetscCall(VecCopy(vg[a], du[a]));
    }
    PetscCall(FGOpSetBoundaryFacesTangent(g, &s->bc, tk, ds, du));
    PetscCall(GlobalDot(dim, du, wg, &lhs));
    PetscCall(NormProduct(comm, dim, du, wg, PETSC_FALSE, &scale));
    dsb = 0;
    PetscCall(FGOpSetBoundaryFacesAdjoint(g, &s->bc, tk, wg, &dsb));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &dsb, 1, MPIU_REAL, MPIU_SUM, comm));
    PetscCall(GlobalDot(dim, vg, wg, &rhs));
    /* the tangent keeps du off those faces: <P v, w> with P the identity elsewhere */
    PetscCall(FGDotRecord_Private(n, res, scale, "boundary faces (+ inflow scale)", lhs, rhs + ds * dsb));
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
      PetscCall(NormProduct(comm, dim, vg, wg, PETSC_FALSE, &scale));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(wl[a], 0.0));
      PetscCall(FGOpAdvectionAdjoint(g, &s->bc, T->ul[0], wg, wl));
      PetscCall(LocalDot(comm, dim, vl, wl, &rhs));
      PetscCall(FGDotRecord_Private(n, res, scale, "advection", lhs, rhs));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(vg[a], 0.0));
      PetscCall(FGOpDiffusionTangent(g, &s->bc, s->prm.v[FG_PARAM_NU], dnu, T->ul[0], vl, vg));
      PetscCall(GlobalDot(dim, vg, wg, &lhs));
      PetscCall(NormProduct(comm, dim, vg, wg, PETSC_FALSE, &scale));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(wl[a], 0.0));
      PetscCall(FGOpDiffusionAdjoint(g, &s->bc, s->prm.v[FG_PARAM_NU], T->ul[0], wg, wl, &nub));
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &nub, 1, MPIU_REAL, MPIU_SUM, comm));
      PetscCall(LocalDot(comm, dim, vl, wl, &rhs));
      PetscCall(FGDotRecord_Private(n, res, scale, "diffusion (+ nu)", lhs, rhs + dnu * nub));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(vg[a], 0.0));
      PetscCall(FGOpOutflowTangent(g, &s->bc, vl, vg));
      PetscCall(GlobalDot(dim, vg, wg, &lhs));
      PetscCall(NormProduct(comm, dim, vg, wg, PETSC_FALSE, &scale));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(wl[a], 0.0));
      PetscCall(FGOpOutflowAdjoint(g, &s->bc, wg, wl));
      PetscCall(LocalDot(comm, dim, vl, wl, &rhs));
      PetscCall(FGDotRecord_Private(n, res, scale, "outflow", lhs, rhs));
    }
    /* divergence: local -> global cells; gradient: local cells -> global faces */
    PetscCall(VecSetRandom(sc2, rnd));
    PetscCall(FGOpDivergenceTangent(g, vl, sc1));
    PetscCall(VecDot(sc1, sc2, &lhs));
    PetscCall(NormProduct(comm, 1, &sc1, &sc2, PETSC_FALSE, &scale));
    for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(wl[a], 0.0));
    PetscCall(FGOpDivergenceAdjoint(g, sc2, wl));
    PetscCall(LocalDot(comm, dim, vl, wl, &rhs));
    PetscCall(FGDotRecord_Private(n, res, scale, "divergence", lhs, rhs));
    {
      Vec pl, plb;
      PetscCall(DMGetLocalVector(g->da, &pl));
      PetscCall(DMGetLocalVector(g->da, &plb));
      PetscCall(VecSetRandom(pl, rnd));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(vg[a], 0.0));
      PetscCall(FGOpGradientCorrectTangent(g, &s->bc, 0.7, pl, vg));
      PetscCall(GlobalDot(dim, vg, wg, &lhs));
      PetscCall(NormProduct(comm, dim, vg, wg, PETSC_FALSE, &scale));
      PetscCall(VecSet(plb, 0.0));
      PetscCall(FGOpGradientCorrectAdjoint(g, &s->bc, 0.7, wg, plb));
      PetscCall(LocalDot(comm, 1, &pl, &plb, &rhs));
      PetscCall(FGDotRecord_Private(n, res, scale, "gradient correction", lhs, rhs));
      PetscCall(DMRestoreLocalVector(g->da, &pl));
      PetscCall(DMRestoreLocalVector(g->da, &plb));
    }
    /* Poisson */
    PetscCall(VecSetRandom(sc1, rnd));
    PetscCall(VecSetRandom(sc2, rnd));
    PetscCall(FGPoissonSolve(s->poisson, sc1, dp));
    PetscCall(VecDot(dp, sc2, &lhs));
    PetscCall(NormProduct(comm, 1, &dp, &sc2, PETSC_FALSE, &scale));
    PetscCall(FGPoissonSolveTranspose(s->poisson, sc2, pb));
    PetscCall(VecDot(sc1, pb, &rhs));
    PetscCall(FGDotRecord_Private(n, res, scale, "Poisson solve", lhs, rhs));
    /* the implicit viscous term's Helmholtz solves (stage 1's s = gamma dt nu / 2) */
    if (s->viscous) {
      const PetscReal sv = 0.5 * (8.0 / 15.0) * T->dt * s->prm.v[FG_PARAM_NU];
      for (PetscInt a = 0; a < dim; a++) {
        PetscCall(VecSetRandom(vg[a], rnd));
        PetscCall(VecSetRandom(wg[a], rnd));
        PetscCall(VecCopy(vg[a], du[a]));
        PetscCall(VecCopy(wg[a], ub[a]));
      }
      PetscCall(FGViscousSolve(s->viscous, sv, du));
      PetscCall(GlobalDot(dim, du, wg, &lhs));
      PetscCall(NormProduct(comm, dim, du, wg, PETSC_FALSE, &scale));
      PetscCall(FGViscousSolveTranspose(s->viscous, sv, ub));
      PetscCall(GlobalDot(dim, vg, ub, &rhs));
      PetscCall(FGDotRecord_Private(n, res, scale, "implicit viscous solve", lhs, rhs));
    }
    /* actuators */
    if (c->nactuators) {
      PetscCall(FGParamsSetRandom(s, rnd, &dprm));
      PetscCall(FGParamsZero(&bar));
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(vg[a], 0.0));
      PetscCall(FGActuatorsAddForceTangent(g, &s->bc, c, FGParamsActuators(&dprm), tk, vg));
      PetscCall(GlobalDot(dim, vg, wg, &lhs));
      PetscCall(NormProduct(comm, dim, vg, wg, PETSC_FALSE, &scale));
      PetscCall(FGActuatorsAddForceAdjoint(g, &s->bc, c, tk, wg, FGParamsActuators(&bar)));
      PetscCall(FGParamsReduce(comm, &bar));
      rhs = 0;
      for (PetscInt i = 0; i < 3 * s->layout.nact * s->layout.nbasis; i++) rhs += FGParamsActuators(&bar)[i] * FGParamsActuators(&dprm)[i];
      PetscCall(FGDotRecord_Private(n, res, scale, "actuators", lhs, rhs));
    }
    /* penalization with the body parameters and the stage forces */
    if (nb) {
      PetscCall(FGParamsSetRandom(s, rnd, &dprm));
      PetscCall(FGParamsZero(&bar));
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
      PetscCall(FGBodiesPenalizeTangent(s->bodies, T->t0 + T->dt, 0.75, T->dt, T->ustar[2], NULL, NULL, dprm.theta, NULL, du, dacc));
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, dacc, (PetscMPIInt)(6 * nb), MPIU_REAL, MPIU_SUM, comm));
      PetscCall(GlobalDot(dim, du, wg, &lhs));
      for (PetscInt i = 0; i < 6 * nb; i++) lhs += dacc[i] * wacc[i];
      PetscCall(NormProduct(comm, dim, du, wg, PETSC_FALSE, &scale));
      scale = PetscSqrtReal(PetscSqr(scale) + ScalarNorms(6 * nb, dacc, wacc));
      PetscCall(FGBodiesPenalizeAdjoint(s->bodies, T->t0 + T->dt, 0.75, T->dt, T->ustar[2], NULL, wacc, wg, NULL, bar.theta, NULL, NULL, NULL));
      PetscCall(FGParamsReduce(comm, &bar));
      PetscCall(GlobalDot(dim, vg, wg, &rhs));
      rhs += FGParamsDot(&dprm, &bar);
      PetscCall(FGDotRecord_Private(n, res, scale, "penalization (+ parameters, forces)", lhs, rhs));
    }
  }

  /* 2. the whole step */
  PetscCall(FGParamsSetRandom(s, rnd, &dprm));
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
  { /* ||(du, dp, dacc)|| ||(ub', pb', wacc)|| */
    PetscReal a2 = 0, b2 = 0, x;
    for (PetscInt a = 0; a < dim; a++) {
      PetscCall(VecNorm(du[a], NORM_2, &x));
      a2 += x * x;
      PetscCall(VecNorm(wg[a], NORM_2, &x));
      b2 += x * x;
    }
    PetscCall(VecNorm(dp, NORM_2, &x));
    a2 += x * x;
    PetscCall(VecNorm(sc2, NORM_2, &x));
    b2 += x * x;
    for (PetscInt i = 0; i < 6 * nb; i++) a2 += dacc[i] * dacc[i], b2 += wacc[i] * wacc[i];
    scale = PetscSqrtReal(a2 * b2);
  }
  PetscCall(FGParamsZero(&bar));
  PetscCall(FGStepAdjoint_RK3(s, T, wacc, ub, pb, &bar));
  PetscCall(FGParamsReduce(comm, &bar));
  PetscCall(GlobalDot(dim, vg, ub, &rhs));
  {
    PetscScalar v;
    PetscCall(VecDot(sc1, pb, &v));
    rhs += PetscRealPart(v) + FGParamsDot(&dprm, &bar);
  }
  PetscCall(FGDotRecord_Private(n, res, scale, "whole step (u, p, parameters, forces)", lhs, rhs));

  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecDestroy(&du[a]));
    PetscCall(VecDestroy(&ub[a]));
    PetscCall(VecDestroy(&vg[a]));
    PetscCall(VecDestroy(&wg[a]));
    PetscCall(VecDestroy(&vl[a]));
    PetscCall(VecDestroy(&wl[a]));
  }
  PetscCall(VecDestroy(&dp));
  PetscCall(VecDestroy(&pb));
  PetscCall(VecDestroy(&sc1));
  PetscCall(VecDestroy(&sc2));
  PetscCall(FGParamsDestroy(&dprm));
  PetscCall(FGParamsDestroy(&bar));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The scale of a field entry for perturbations. */
static PetscReal FGDesignScale_Private(PetscReal v)
{
  return v != 0 ? PetscAbsReal(v) : 1.0;
}

/*@C
  FGAdjointTaylor - the Taylor test along a random direction dir (scalar entries scaled by
  FGDesignScalarScale, field entries by 0.1 max|block|, at least 1e-2): for eps_k = eps0 2^-k,
  k = 0..n-1, rem[k] = |J(p + eps_k dir) - J - eps_k g.dir| and rem1[k] = |J(p + eps_k dir) - J|.
  J, g at p from FGAdjointCompute. Collective.
@*/
PetscErrorCode FGAdjointTaylor(FGSolver s, FGDesign d, FGObjective o, Vec p, PetscReal J, Vec g, PetscRandom rnd, PetscReal eps0, PetscInt n, PetscReal eps[], PetscReal rem[], PetscReal rem1[], PetscReal *gd)
{
  Vec                  dir, q;
  PetscInt             ns, nblk;
  PetscReal           *v;
  const FGDesignBlock *blk;
  PetscScalar         *a;
  const PetscScalar   *pa;
  PetscMPIInt          rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCall(VecDuplicate(p, &dir));
  PetscCall(VecDuplicate(p, &q));
  PetscCall(VecSetRandom(dir, rnd));
  PetscCall(FGDesignGetScalars(d, p, &ns, &v));
  PetscCall(FGDesignGetBlocks(d, &nblk, &blk));
  PetscCall(VecGetArray(dir, &a));
  PetscCall(VecGetArrayRead(p, &pa));
  if (!rank)
    for (PetscInt i = 0; i < ns; i++) a[i] *= FGDesignScalarScale(d, i, v[i]);
  for (PetscInt b = 0; b < nblk; b++) {
    PetscInt  nloc, m = blk[b].kind == FG_DESIGN_INITIAL ? s->grid->dim : 1;
    PetscReal mx = 0;
    if (!blk[b].field) continue;
    PetscCall(VecGetLocalSize(s->p, &nloc));
    for (PetscInt j = 0; j < m * nloc; j++) mx = PetscMax(mx, PetscAbsScalar(pa[blk[b].offset + j]));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPIU_REAL, MPIU_MAX, s->comm));
    for (PetscInt j = 0; j < m * nloc; j++) a[blk[b].offset + j] *= PetscMax(0.1 * mx, 1e-2);
  }
  PetscCall(VecRestoreArrayRead(p, &pa));
  PetscCall(VecRestoreArray(dir, &a));
  {
    PetscScalar dot;
    PetscCall(VecDot(g, dir, &dot));
    *gd = PetscRealPart(dot);
  }
  for (PetscInt k = 0; k < n; k++) {
    PetscReal Jk;
    eps[k] = eps0 * PetscPowReal(0.5, (PetscReal)k);
    PetscCall(VecWAXPY(q, eps[k], dir, p));
    PetscCall(FGAdjointForward(s, d, o, q, &Jk));
    rem[k]  = PetscAbsReal(Jk - J - eps[k] * *gd);
    rem1[k] = PetscAbsReal(Jk - J);
  }
  PetscCall(FGDesignApply(d, p));
  PetscCall(VecDestroy(&dir));
  PetscCall(VecDestroy(&q));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGAdjointFD - central differences (J(p + h e_i) - J(p - h e_i)) / 2h with h = hrel scale_i
  (FGDesignScalarScale; order 4: Richardson's (8 D(h) - D(2h)) / 12 h from J at +-h and +-2h) for
  every design scalar, and for each field block its entry with the largest |g| (a sample of a
  large block; its step is relative to the block's largest |value|). res[] (room for the number of scalars plus the field blocks) gets the entries;
  *n their number. Collective.
@*/
PetscErrorCode FGAdjointFD(FGSolver s, FGDesign d, FGObjective o, Vec p, Vec g, PetscReal hrel, PetscInt order, PetscInt *n, FGFDResult res[])
{
  Vec                  q;
  PetscInt             ns, nblk, lo;
  PetscReal           *v, *sc;
  const FGDesignBlock *blk;
  PetscMPIInt          rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCall(VecDuplicate(p, &q));
  PetscCall(VecGetOwnershipRange(p, &lo, NULL));
  PetscCall(FGDesignGetScalars(d, p, &ns, &v));
  PetscCall(PetscMalloc1(PetscMax(ns, 1), &sc));
  for (PetscInt i = 0; i < ns; i++) sc[i] = v[i];
  PetscCall(FGDesignGetBlocks(d, &nblk, &blk));
  *n = 0;
  /* the entries: every scalar (global index i), then per field block the largest |g| */
  for (PetscInt e = 0; e < ns + nblk; e++) {
    FGFDResult *r = &res[*n];
    PetscInt    gi;
    PetscReal   pv, gv, Jp[2] = {0, 0}, Jm[2] = {0, 0}, h, fscale = 1;
    if (e < ns) {
      gi = e;
      pv = sc[e];
      PetscCall(FGDesignScalarName(d, e, r->name, sizeof(r->name)));
    } else {
      const FGDesignBlock *b = &blk[e - ns];
      struct {
        PetscReal v;
        PetscInt  i;
      } loc = {-1, -1}, glob;
      const PetscScalar *ga, *pa;
      PetscInt           nloc, m = b->kind == FG_DESIGN_INITIAL ? s->grid->dim : 1;
      if (!b->field) continue;
      PetscCall(VecGetLocalSize(s->p, &nloc));
      PetscCall(VecGetArrayRead(g, &ga));
      for (PetscInt j = 0; j < m * nloc; j++)
        if (PetscAbsScalar(ga[b->offset + j]) > loc.v) loc.v = PetscAbsScalar(ga[b->offset + j]), loc.i = lo + b->offset + j;
      PetscCall(VecRestoreArrayRead(g, &ga));
      /* the largest |g| and, among equal ones, the smallest global index */
      PetscCallMPI(MPI_Allreduce(&loc.v, &glob.v, 1, MPIU_REAL, MPIU_MAX, s->comm));
      {
        PetscInt mine = loc.v == glob.v ? loc.i : PETSC_MAX_INT;
        PetscCallMPI(MPI_Allreduce(&mine, &glob.i, 1, MPIU_INT, MPI_MIN, s->comm));
      }
      gi = glob.i;
      pv = 0;
      { /* the block's scale: its largest |value| (1 if it is all 0) */
        PetscReal bmax = 0;
        PetscCall(VecGetArrayRead(p, &pa));
        for (PetscInt j = 0; j < m * nloc; j++) bmax = PetscMax(bmax, PetscAbsScalar(pa[b->offset + j]));
        PetscCall(VecRestoreArrayRead(p, &pa));
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bmax, 1, MPIU_REAL, MPIU_MAX, s->comm));
        fscale = FGDesignScale_Private(bmax);
      }
      PetscCall(VecGetArrayRead(p, &pa));
      if (glob.i >= lo && loc.i == glob.i) pv = PetscRealPart(pa[gi - lo]);
      PetscCall(VecRestoreArrayRead(p, &pa));
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &pv, 1, MPIU_REAL, MPIU_SUM, s->comm));
      PetscCall(PetscSNPrintf(r->name, sizeof(r->name), "%s[%" PetscInt_FMT "]", b->name, gi));
    }
    r->scale = e < ns ? FGDesignScalarScale(d, e, pv) : fscale;
    h        = hrel * r->scale;
    {
      PetscScalar gval = 0;
      PetscInt    glo, ghi;
      PetscCall(VecGetOwnershipRange(g, &glo, &ghi));
      if (gi >= glo && gi < ghi) PetscCall(VecGetValues(g, 1, &gi, &gval));
      gv = PetscRealPart(gval);
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &gv, 1, MPIU_REAL, MPIU_SUM, s->comm));
    }
    for (PetscInt m = 1; m <= order / 2; m++)
      for (PetscInt sg = 1; sg >= -1; sg -= 2) {
        PetscCall(VecCopy(p, q));
        if (!rank || e >= ns) {
          PetscInt qlo, qhi;
          PetscCall(VecGetOwnershipRange(q, &qlo, &qhi));
          if (gi >= qlo && gi < qhi) PetscCall(VecSetValue(q, gi, pv + sg * m * h, INSERT_VALUES));
        }
        PetscCall(VecAssemblyBegin(q));
        PetscCall(VecAssemblyEnd(q));
        PetscCall(FGAdjointForward(s, d, o, q, sg > 0 ? &Jp[m - 1] : &Jm[m - 1]));
      }
    r->value    = pv;
    r->step     = h;
    r->adjoint  = gv;
    r->fd       = order == 4 ? (8 * (Jp[0] - Jm[0]) - (Jp[1] - Jm[1])) / (12 * h) : (Jp[0] - Jm[0]) / (2 * h);
    (*n)++;
  }
  PetscCall(FGDesignApply(d, p));
  PetscCall(VecDestroy(&q));
  PetscCall(PetscFree(sc));
  PetscFunctionReturn(PETSC_SUCCESS);
}
