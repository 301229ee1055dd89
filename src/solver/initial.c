/*
  Initial conditions (case section `initial`):

    rest          u = 0
    uniform       u = initial.velocity
    taylor_green  (2D) with k_d = 2 pi / L_d, X = x - x0, amplitude A:
                    u =  A sin(k_x X) cos(k_y Y),  v = -A (k_x/k_y) cos(k_x X) sin(k_y Y)
                  an exact solution of the Navier-Stokes equations on a periodic box, decaying
                  as exp(-nu (k_x^2 + k_y^2) t)
    abc           (3D, cube of side L, k = 2 pi / L) Arnold-Beltrami-Childress flow, A = B = C:
                    u = A (sin kZ + cos kY), v = A (sin kX + cos kZ), w = A (sin kY + cos kX)
                  a Beltrami field (curl u = k u), exact with decay exp(-nu k^2 t)
    kovasznay     (2D, steady) Kovasznay (1948) flow behind a grid, with U = u_ref, L = l_ref,
                  Re = U L / nu, lambda = Re/2 - sqrt(Re^2/4 + 4 pi^2), absolute coordinates:
                    u = U (1 - e^{lambda x/L} cos(2 pi y/L)),  v = U lambda/(2 pi) e^{lambda x/L} sin(2 pi y/L)
                  stream function psi = U L (y/L - e^{lambda x/L} sin(2 pi y/L) / (2 pi)),
                  pressure p = U^2 (1 - e^{2 lambda x/L}) / 2
    file          the state read from initial.file (a flowgrad fields_*.h5 or steady.h5 file): u, v[, w]
                  and, where the file has it, p. On another grid of the same domain the fields are
                  interpolated (FGIOReadFieldAnyGrid, src/io/regrid.c) and the velocity projected

  Each component is sampled at its own face centre; analytic fields are then projected, so the
  discrete initial state is exactly divergence free. Boundary faces get their boundary values.
*/
#include <fg/solver.h>
#include <fg/io.h>


PetscReal FGExactTaylorGreen(PetscInt a, const PetscReal X[], PetscReal A, const PetscReal L[], PetscReal decay)
{
  const PetscReal kx = 2 * PETSC_PI / L[0], ky = 2 * PETSC_PI / L[1];
  if (a == 0) return A * PetscSinReal(kx * X[0]) * PetscCosReal(ky * X[1]) * decay;
  if (a == 1) return -A * (kx / ky) * PetscCosReal(kx * X[0]) * PetscSinReal(ky * X[1]) * decay;
  return 0.0;
}

PetscReal FGExactABC(PetscInt a, const PetscReal X[], PetscReal A, const PetscReal L[], PetscReal decay)
{
  const PetscReal k = 2 * PETSC_PI / L[0];
  if (a == 0) return A * (PetscSinReal(k * X[2]) + PetscCosReal(k * X[1])) * decay;
  if (a == 1) return A * (PetscSinReal(k * X[0]) + PetscCosReal(k * X[2])) * decay;
  return A * (PetscSinReal(k * X[1]) + PetscCosReal(k * X[0])) * decay;
}

/* The analytic fields in absolute coordinates and time, for FGExactField (profile exact). */
static PetscReal FGTaylorGreenField_Private(PetscInt a, const PetscReal x[], PetscReal t, PetscReal nu, const FGCase *c)
{
  const PetscReal kx = 2 * PETSC_PI / c->grid.lengths[0], ky = 2 * PETSC_PI / c->grid.lengths[1];
  const PetscReal X[3] = {x[0] - c->grid.origin[0], x[1] - c->grid.origin[1], 0.0};
  return FGExactTaylorGreen(a, X, c->initial.amplitude, c->grid.lengths, PetscExpReal(-nu * (kx * kx + ky * ky) * t));
}

static PetscReal FGABCField_Private(PetscInt a, const PetscReal x[], PetscReal t, PetscReal nu, const FGCase *c)
{
  const PetscReal k    = 2 * PETSC_PI / c->grid.lengths[0];
  const PetscReal X[3] = {x[0] - c->grid.origin[0], x[1] - c->grid.origin[1], x[2] - c->grid.origin[2]};
  return FGExactABC(a, X, c->initial.amplitude, c->grid.lengths, PetscExpReal(-nu * k * k * t));
}

static PetscReal FGKovasznayLambda_Private(PetscReal nu, const FGCase *c)
{
  const PetscReal re = c->flow.u_ref * c->flow.l_ref / nu;
  return 0.5 * re - PetscSqrtReal(0.25 * re * re + 4 * PETSC_PI * PETSC_PI);
}

PetscReal FGExactKovasznay(PetscInt a, const PetscReal x[], PetscReal t, PetscReal nu, const FGCase *c)
{
  const PetscReal U = c->flow.u_ref, L = c->flow.l_ref, lam = FGKovasznayLambda_Private(nu, c);
  const PetscReal e = PetscExpReal(lam * x[0] / L), q = 2 * PETSC_PI * x[1] / L;
  if (a == 0) return U * (1.0 - e * PetscCosReal(q));
  if (a == 1) return U * lam / (2 * PETSC_PI) * e * PetscSinReal(q);
  return 0.0;
}

PetscReal FGExactKovasznayStream(const PetscReal x[], PetscReal t, PetscReal nu, const FGCase *c)
{
  const PetscReal U = c->flow.u_ref, L = c->flow.l_ref, lam = FGKovasznayLambda_Private(nu, c);
  return U * L * (x[1] / L - PetscExpReal(lam * x[0] / L) * PetscSinReal(2 * PETSC_PI * x[1] / L) / (2 * PETSC_PI));
}

PetscReal FGExactKovasznayPressure(const PetscReal x[], PetscReal nu, const FGCase *c)
{
  const PetscReal U = c->flow.u_ref, lam = FGKovasznayLambda_Private(nu, c);
  return 0.5 * U * U * (1.0 - PetscExpReal(2 * lam * x[0] / c->flow.l_ref));
}

/*@C
  FGExactFieldFromCase - the analytic field of the case's initial.type (taylor_green, abc,
  kovasznay), for `profile: exact` boundary data and error norms; velocity NULL for the others.
@*/
PetscErrorCode FGExactFieldFromCase(const FGCase *c, FGExactField *f)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(f, sizeof(*f)));
  f->c  = c;
  f->nu = c->flow.nu;
  switch (c->initial.type) {
  case FG_IC_TAYLOR_GREEN:
    f->velocity = FGTaylorGreenField_Private;
    break;
  case FG_IC_ABC:
    f->velocity = FGABCField_Private;
    break;
  case FG_IC_KOVASZNAY:
    f->velocity = FGExactKovasznay;
    f->stream   = FGExactKovasznayStream;
    break;
  default:
    break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverSampleExact - u = the analytic field of the case at time t, each component sampled at
  its face centres (no projection). Collective.
@*/
PetscErrorCode FGSolverSampleExact(FGSolver s, PetscReal t, Vec u[])
{
  FGGrid       g = s->grid;
  FGExactField f = s->bc.exact; /* the case's field with the solver's nu */

  PetscFunctionBeginUser;
  PetscCheck(f.velocity, s->comm, FG_ERR_INPUT, "initial.type %s has no analytic field", FGInitialTypeNames[s->c->initial.type]);
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar *ua;
    PetscCall(VecGetArray(u[a], &ua));
    for (PetscInt k = g->box.lo[2]; k < g->box.hi[2]; k++)
      for (PetscInt j = g->box.lo[1]; j < g->box.hi[1]; j++)
        for (PetscInt i = g->box.lo[0]; i < g->box.hi[0]; i++) {
          const PetscInt idx[3] = {i, j, k};
          PetscReal      x[3]   = {0, 0, 0};
          for (PetscInt d = 0; d < g->dim; d++) x[d] = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]);
          ua[FGBoxOwnedIndex(&g->box, i, j, k)] = f.velocity(a, x, t, f.nu, s->c);
        }
    PetscCall(VecRestoreArray(u[a], &ua));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Make u discretely divergence free: u <- u - G L^{-1} D u (the step's projection with dt = 1;
   with a body's continuity D (A u) or D (W u), src/solver/continuity.c). */
static PetscErrorCode FGProjectInitial_Private(FGSolver s)
{
  PetscFunctionBeginUser;
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  PetscCall(FGSolverDivergence(s, s->ul, s->div));
  PetscCall(FGPoissonSolve(s->poisson, s->div, s->phi));
  PetscCall(FGSolverProjectionCorrect(s, 1.0, s->phi, s->phil, s->u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With no Dirichlet (outflow) face the pressure problem is singular: the prescribed boundary
   velocities must carry no net flux, or no divergence-free field exists. sum_c (D u)(c) dV is the
   net outward flux (interior faces cancel), whatever u is inside. */
static PetscErrorCode FGCheckNetFlux_Private(FGSolver s)
{
  FGGrid      g = s->grid;
  PetscBool   singular;
  PetscScalar sum;
  PetscReal   dv = 1, area = 0, net;

  PetscFunctionBeginUser;
  PetscCall(FGPoissonIsSingular(s->poisson, &singular));
  if (!singular) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt d = 0; d < g->dim; d++) dv *= g->h[d];
  for (PetscInt d = 0; d < g->dim; d++)
    if (!g->periodic[d]) area += 2.0 * g->L[(d + 1) % g->dim] * (g->dim == 3 ? g->L[(d + 2) % 3] : 1.0);
  if (area == 0) PetscFunctionReturn(PETSC_SUCCESS); /* periodic everywhere: no boundary, no flux (the sum is round-off) */
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  PetscCall(FGOpDivergence(g, s->ul, s->div));
  if (!g->isuniform) { /* sum_c (D u)(c) V_c with each cell's own volume */
    const FGBox       *b = &g->box;
    const PetscScalar *dv_;
    PetscScalar        loc = 0;
    PetscCall(VecGetArrayRead(s->div, &dv_));
    for (PetscInt k = b->lo[2]; k < b->hi[2]; k++)
      for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
        for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) loc += dv_[FGBoxOwnedIndex(b, i, j, k)] * FGGridCellVolume(g, i, j, k);
    PetscCall(VecRestoreArrayRead(s->div, &dv_));
    PetscCall(MPIU_Allreduce(&loc, &sum, 1, MPIU_SCALAR, MPIU_SUM, s->comm));
    dv = 1;
  } else PetscCall(VecSum(s->div, &sum));
  net = PetscRealPart(sum) * dv;
  PetscCheck(PetscAbsReal(net) <= 1e-10 * s->c->flow.u_ref * PetscMax(area, 1e-300), s->comm, FG_ERR_INPUT, "%s: the boundary velocities carry a net flux of %.6g %s the domain, and no face is an outflow: an incompressible flow cannot take it (make a face an outflow, or balance the inflow)", s->c->file, PetscAbsReal(net), net < 0 ? "into" : "out of");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverSetInitialCondition - the state at t = 0 from the case's `initial` section.
@*/
PetscErrorCode FGSolverSetInitialCondition(FGSolver s)
{
  const FGCase *c            = s->c;
  PetscBool     interpolated = PETSC_FALSE, withp = PETSC_FALSE;

  PetscFunctionBeginUser;
  s->t    = 0.0;
  s->step = 0;
  PetscCall(VecSet(s->p, 0.0));
  for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(VecSet(s->u[a], 0.0));
  switch (c->initial.type) {
  case FG_IC_REST:
    break;
  case FG_IC_UNIFORM:
    for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(VecSet(s->u[a], c->initial.velocity[a]));
    break;
  case FG_IC_TAYLOR_GREEN:
  case FG_IC_ABC:
  case FG_IC_KOVASZNAY:
    PetscCall(FGSolverSampleExact(s, 0.0, s->u));
    break;
  case FG_IC_FILE: {
    static const char *names[3] = {"u", "v", "w"};
    for (PetscInt a = 0; a < s->grid->dim; a++) {
      PetscBool ia;
      PetscCall(FGIOReadFieldAnyGrid(s->grid, c->initial.file, names[a], (FGLocation)(FG_LOC_FACE_X + a), PETSC_FALSE, s->u[a], NULL, &ia));
      if (ia) interpolated = PETSC_TRUE;
    }
    PetscCall(FGIOReadFieldAnyGrid(s->grid, c->initial.file, "p", FG_LOC_CELL, PETSC_TRUE, s->p, &withp, NULL));
  } break;
  }
  PetscCall(FGOpSetBoundaryFaces(s->grid, &s->bc, s->t, s->u));
  PetscCall(FGCheckNetFlux_Private(s));
  if (c->initial.type != FG_IC_FILE || interpolated) PetscCall(FGProjectInitial_Private(s));
  if (interpolated && c->output.monitor_every > 0)
    PetscCall(PetscPrintf(s->comm, "initial state: u%s%s interpolated from %s (another grid) and projected\n", s->grid->dim == 3 ? ", v, w" : ", v", withp ? " and p" : "", c->initial.file));
  PetscFunctionReturn(PETSC_SUCCESS);
}
