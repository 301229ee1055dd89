/*
  One time step: low-storage third-order Runge-Kutta (Wray 1986, as in CaNS) with a pressure
  projection in every stage.

  Semi-discrete system: du/dt = P H(u, t), H(u) = -A(u) + nu L(u) + f, P = I - G L_p^{-1} D the
  discrete projection onto divergence-free fields (L_p = D G). For stage k = 1, 2, 3:

    u*      = u^{k-1} + dt ( alpha_k H(u^{k-1}) + beta_k H(u^{k-2}) )
    L_p phi = D u* / (gamma_k dt)                    gamma_k = alpha_k + beta_k
    u^k     = u* - gamma_k dt G phi,      p^k = phi

  alpha = (8/15, 5/12, 3/4), beta = (0, -17/60, -5/12), stage times t + (0, 8/15, 2/3) dt.

  With bodies, u* is penalized implicitly before the projection (include/fg/body.h):
  u* <- (u* + gamma_k dt sum chi/eta u_s) / (1 + gamma_k dt sum chi/eta), and the pressure is
  incremental: u* also gets -gamma_k dt G p^{k-1}, the projection finds the increment phi and
  p^k = p^{k-1} + phi. Without a penalty this is the same scheme (P G = 0: the projected velocity
  is unchanged, and p^k = phi_k up to round-off). With one it makes a steady state a fixed point of
  every stage (u^k = u, phi = 0), at which chi/eta (u - u_s) = H - G p holds face by face: the
  penalty force then equals the discrete momentum balance of any control volume. With the
  non-incremental form each stage's projection pushes flow back into the penalized band by
  O(1/(gamma_k dt)), and the stages of a steady state differ (a 5% larger drag on a cylinder).
  Since P is linear and idempotent and u^{k-1} is divergence free, this is exactly RK3 applied
  to du/dt = P H(u): third order in time for the velocity (with boundary data fixed in time).
*/
#include <fg/solver.h>

static const PetscReal FG_RK3_ALPHA[3] = {8.0 / 15.0, 5.0 / 12.0, 3.0 / 4.0};
static const PetscReal FG_RK3_BETA[3]  = {0.0, -17.0 / 60.0, -5.0 / 12.0};
static const PetscReal FG_RK3_C[4]     = {0.0, 8.0 / 15.0, 2.0 / 3.0, 1.0};

/* H = -A(ul) + nu Lap(ul) + f on the interior faces, the outflow condition on outflow faces. */
static PetscErrorCode FGMomentumRHS_Private(FGSolver s, PetscReal t, Vec H[])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(VecSet(H[a], 0.0));
  PetscCall(FGOpAdvection(s->grid, &s->bc, s->ul, H));
  PetscCall(FGOpDiffusion(s->grid, &s->bc, s->nu, s->ul, H));
  PetscCall(FGOpOutflow(s->grid, &s->bc, s->ul, H));
  if (s->forcefn) PetscCall(s->forcefn(s, t, H, s->forcectx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Constant body force on the interior faces. */
static PetscErrorCode FGAddForce_Private(FGSolver s, Vec H[])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    PetscScalar *h;
    PetscInt     lo[3], hi[3];
    if (s->force[a] == 0.0) continue;
    FGOpInteriorFaces(s->grid, &s->bc, a, lo, hi);
    PetscCall(VecGetArray(H[a], &h));
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) h[FGBoxOwnedIndex(&s->grid->box, i, j, k)] += s->force[a];
    PetscCall(VecRestoreArray(H[a], &h));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* u <- u + dt (alpha H + beta Hold) (H = 0 on prescribed faces, so they keep their values). */
static PetscErrorCode FGAdvance_Private(FGSolver s, PetscInt k)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(VecAXPBYPCZ(s->u[a], s->dt * FG_RK3_ALPHA[k], s->dt * FG_RK3_BETA[k], 1.0, s->H[a], s->Hold[a]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGSwapRHS_Private(FGSolver s)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    Vec tmp    = s->Hold[a];
    s->Hold[a] = s->H[a];
    s->H[a]    = tmp;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solve L_p phi = D u / (gamma dt), correct u <- u - gamma dt G phi. */
static PetscErrorCode FGProject_Private(FGSolver s, PetscReal gdt, PetscReal t)
{
  PetscFunctionBeginUser;
  PetscCall(FGSolverFillGhosts(s, s->u, t));
  PetscCall(FGOpDivergence(s->grid, s->ul, s->div));
  PetscCall(VecScale(s->div, 1.0 / gdt));
  PetscCall(FGPoissonSolve(s->poisson, s->div, s->phi));
  PetscCall(DMGlobalToLocal(s->grid->da, s->phi, INSERT_VALUES, s->phil));
  PetscCall(FGOpGradientCorrect(s->grid, &s->bc, gdt, s->phil, s->u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGViscousTimeStepLimit - the largest dt for which the explicit viscous term is stable in RK3:
  its stability polynomial 1 + z + z^2/2 + z^3/6 covers [-2.5127, 0] of the real axis, and the
  most negative eigenvalue of nu L is -nu sum_d 4/h_d^2.
@*/
PetscReal FGViscousTimeStepLimit(const FGCase *c)
{
  PetscReal lam = 0;
  for (PetscInt d = 0; d < c->grid.dim; d++) {
    const PetscReal h = c->grid.lengths[d] / (PetscReal)c->grid.cells[d];
    lam += 4.0 / (h * h);
  }
  return 2.5127 / (c->flow.nu * lam);
}

/*@C
  FGStepForward_RK3 - advance the state by one step of size s->dt.
@*/
PetscErrorCode FGStepForward_RK3(FGSolver s)
{
  const PetscReal t0 = s->t, dt = s->dt;
  PetscInt        nb;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_Step, 0, 0, 0, 0));
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  if (nb) PetscCall(FGBodiesBeginStep(s->bodies, t0, s->u));
  for (PetscInt k = 0; k < 3; k++) {
    const PetscReal tk = t0 + FG_RK3_C[k] * dt, tk1 = t0 + FG_RK3_C[k + 1] * dt;
    const PetscReal gdt = (FG_RK3_ALPHA[k] + FG_RK3_BETA[k]) * dt;
    PetscCall(FGSolverFillGhosts(s, s->u, tk));       /* 1. boundary values at the stage start */
    PetscCall(FGMomentumRHS_Private(s, tk, s->H));    /* 2. H = -A(u) + nu L(u) + f            */
    PetscCall(FGAddForce_Private(s, s->H));
    PetscCall(FGAdvance_Private(s, k));               /* 3. u* = u + dt(alpha H + beta Hold)  */
    PetscCall(FGSwapRHS_Private(s));
    if (nb) { /* bodies: u* -= gamma dt G p, the incremental form (see above) */
      PetscCall(DMGlobalToLocal(s->grid->da, s->p, INSERT_VALUES, s->phil));
      PetscCall(FGOpGradientCorrect(s->grid, &s->bc, gdt, s->phil, s->u));
    }
    PetscCall(FGOpSetBoundaryFaces(s->grid, &s->bc, tk1, s->u));
    PetscCall(FGBodiesPenalize(s->bodies, tk1, gdt / dt, dt, s->u)); /* 4. implicit penalization */
    PetscCall(FGProject_Private(s, gdt, tk1));        /* 5. u = u* - gamma dt G phi           */
    if (nb) PetscCall(VecAXPY(s->p, 1.0, s->phi));    /* 6. p = p + phi (bodies), else      */
  }
  if (!nb) PetscCall(VecCopy(s->phi, s->p));          /*    p = phi of the last stage         */
  s->t = t0 + dt;
  s->step++;
  if (nb) { /* 7. body forces: penalty (reduced), control-volume cross-check */
    PetscCall(FGBodiesEndStep(s->bodies, s->t));
    PetscCall(FGSolverFillGhosts(s, s->u, s->t));
    PetscCall(DMGlobalToLocal(s->grid->da, s->p, INSERT_VALUES, s->phil));
    PetscCall(FGBodiesControlVolume(s->bodies, s->t, dt, s->nu, s->u, s->ul, s->phil));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_Step, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
