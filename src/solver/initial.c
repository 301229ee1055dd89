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
    file          velocity (u, v, w) read from initial.file (a flowgrad fields_*.h5 file)

  Each component is sampled at its own face centre; analytic fields are then projected, so the
  discrete initial state is exactly divergence free. Boundary faces get their boundary values.
*/
#include <fg/solver.h>
#include <fg/io.h>

typedef PetscReal (*FGFieldFn)(PetscInt, const PetscReal[], PetscReal, const PetscReal[], PetscReal);

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

static PetscErrorCode FGSampleField_Private(FGSolver s, FGFieldFn fn, PetscReal A, PetscReal decay)
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
          PetscReal      X[3]   = {0, 0, 0};
          for (PetscInt d = 0; d < g->dim; d++) X[d] = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]) - g->x0[d];
          ua[FGBoxOwnedIndex(&g->box, i, j, k)] = fn(a, X, A, g->L, decay);
        }
    PetscCall(VecRestoreArray(s->u[a], &ua));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Make u discretely divergence free: u <- u - G L^{-1} D u (the step's projection with dt = 1). */
static PetscErrorCode FGProjectInitial_Private(FGSolver s)
{
  PetscFunctionBeginUser;
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  PetscCall(FGOpDivergence(s->grid, s->ul, s->div));
  PetscCall(FGPoissonSolve(s->poisson, s->div, s->phi));
  PetscCall(DMGlobalToLocal(s->grid->da, s->phi, INSERT_VALUES, s->phil));
  PetscCall(FGOpGradientCorrect(s->grid, &s->bc, 1.0, s->phil, s->u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverSetInitialCondition - the state at t = 0 from the case's `initial` section.
@*/
PetscErrorCode FGSolverSetInitialCondition(FGSolver s)
{
  const FGCase *c = s->c;

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
    PetscCall(FGSampleField_Private(s, FGExactTaylorGreen, c->initial.amplitude, 1.0));
    break;
  case FG_IC_ABC:
    PetscCall(FGSampleField_Private(s, FGExactABC, c->initial.amplitude, 1.0));
    break;
  case FG_IC_FILE: {
    static const char *names[3] = {"u", "v", "w"};
    for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(FGIOReadField(s->grid, c->initial.file, names[a], s->u[a]));
  } break;
  }
  PetscCall(FGOpSetBoundaryFaces(s->grid, &s->bc, s->t, s->u));
  if (c->initial.type != FG_IC_FILE) PetscCall(FGProjectInitial_Private(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}
