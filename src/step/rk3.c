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

  Implicit viscous term (time.viscous; include/fg/viscous.h): H holds -A + f only, and with
  s = gamma_k dt nu / 2 a stage is Crank-Nicolson in the delta form
    u^ = u^{k-1} + dt (alpha_k H_k + beta_k H_{k-1}) + 2 s L(u^{k-1}) - gamma_k dt G p^{k-1}
    u** = Pen(u^)                                        (the implicit, pointwise penalization)
    (I - s L_0) (u* - u^{k-1}) = u** - u^{k-1} + s [L(Fill(u~, t_k+1)) - L(Fill(u^{k-1}, t_k))]
  (per component, FGViscousSolveIncrement; u~ = u^{k-1} on the interior faces and u** on the
  boundary and outflow faces, so the bracket is the change of the boundary data over the stage,
  nonzero on the faces next to a boundary only: FGOpDiffusionShell), then the projection, with
  the pressure incremental and p^k = p^{k-1} + phi - s (D u*) / (gamma dt) (CaNS's update). With
  the exact solve this is u* - s L(u*) = u** - s L(u^{k-1}) (with the boundary data of each
  time): without bodies u* - s L u* = u + gamma dt H + s L u, Crank-Nicolson. With them, the
  penalization sees the whole explicit viscous term, so a steady state is a fixed point of every
  stage with chi/eta (u - u_s) = -A + nu L u + f - G p, whatever dt (with the solve before the
  penalization, s L applied to the penalty force made the fixed point depend on dt). The delta
  form keeps this with the approximately factored solve (the default: (I - s L_0)^{-1} replaced
  by prod_b (I - s L_b)^{-1}, an O(s^2) change of the operator acting on an O(dt) increment:
  still second order, and a steady state, where the right-hand side vanishes, is still a fixed
  point).

  The step is pure: a function of the state, the solver's parameters (FGSolver.prm) and dt, with
  the bodies' penalty forces of the step as its other output; a tape, passed as an argument,
  records what the linearization needs. The phases of a stage are helpers shared by the forward
  step and its tangent (FGStageAdvance_Private, FGStagePressure_Private, FGStageProject_Private),
  each with its transpose next to it for the adjoint step.
*/
#include <fg/step.h>
#include <fg/viscous.h>

static const PetscReal FG_RK3_ALPHA[3] = {8.0 / 15.0, 5.0 / 12.0, 3.0 / 4.0};
static const PetscReal FG_RK3_BETA[3]  = {0.0, -17.0 / 60.0, -5.0 / 12.0};
static const PetscReal FG_RK3_C[4]     = {0.0, 8.0 / 15.0, 2.0 / 3.0, 1.0};

/* ---------------------------------------------------------------------------------------------
   The phases of a stage, each with its transpose */

/* u += dt (alpha_k H + beta_k Hold) (H = 0 on prescribed faces, so they keep their values); then
   H and Hold swap: this stage's right-hand side is the next one's previous. Linear in (u, H, Hold):
   the tangent is the same with the perturbations. */
static PetscErrorCode FGStageAdvance_Private(PetscInt dim, PetscReal dt, PetscInt k, Vec u[], Vec H[], Vec Hold[])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < dim; a++) PetscCall(VecAXPBYPCZ(u[a], dt * FG_RK3_ALPHA[k], dt * FG_RK3_BETA[k], 1.0, H[a], Hold[a]));
  for (PetscInt a = 0; a < dim; a++) {
    Vec tmp = Hold[a];
    Hold[a] = H[a];
    H[a]    = tmp;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The transpose, run backwards through the stages: Hbar = dt alpha_k ubar + the carry Hobar
   (beta_{k+1} dt ubar of the stage after), then Hobar = dt beta_k ubar for the stage before
   (ubar passes through: the identity part). */
static PetscErrorCode FGStageAdvanceAdjoint_Private(PetscInt dim, PetscReal dt, PetscInt k, Vec ubar[], Vec Hbar[], Vec Hobar[])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecWAXPY(Hbar[a], dt * FG_RK3_ALPHA[k], ubar[a], Hobar[a]));
    PetscCall(VecAXPBY(Hobar[a], dt * FG_RK3_BETA[k], 0.0, ubar[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* u -= gdt G p (p global; pl its ghosted work copy): the incremental pressure of a stage with
   bodies, and the correction of the projection. Linear in (u, p). */
static PetscErrorCode FGStagePressure_Private(FGSolver s, PetscReal gdt, Vec p, Vec pl, Vec u[])
{
  PetscFunctionBeginUser;
  PetscCall(DMGlobalToLocal(s->grid->da, p, INSERT_VALUES, pl));
  PetscCall(FGOpGradientCorrect(s->grid, &s->bc, gdt, pl, u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The transpose in p: pbar += -gdt G^T ubar (plbar: ghosted work; ubar passes through). */
static PetscErrorCode FGStagePressureAdjoint_Private(FGSolver s, PetscReal gdt, Vec ubar[], Vec plbar, Vec pbar)
{
  PetscFunctionBeginUser;
  PetscCall(VecSet(plbar, 0.0));
  PetscCall(FGOpGradientCorrectAdjoint(s->grid, &s->bc, gdt, ubar, plbar));
  PetscCall(DMLocalToGlobal(s->grid->da, plbar, ADD_VALUES, pbar));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The projection: L_A phi = D (A ul) / gdt, u -= gdt G phi (ul: u ghosted and boundary-filled;
   A: the apertures of a sharp wall's cut-cell continuity, 1 without them, and L_A = D A G;
   div, phi, phil: work, phi the result, div = D (A ul) / gdt). Linear in u. */
static PetscErrorCode FGStageProject_Private(FGSolver s, PetscReal gdt, Vec ul[], Vec div, Vec phi, Vec phil, Vec u[])
{
  PetscFunctionBeginUser;
  PetscCall(FGSolverDivergence(s, ul, div));
  PetscCall(VecScale(div, 1.0 / gdt));
  PetscCall(FGPoissonSolve(s->poisson, div, phi));
  PetscCall(FGSolverProjectionCorrect(s, gdt, phi, phil, u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Its tangent with a perturbation dA of the apertures too (dAl ghosted; NULL: none, the same as
   the projection of dul). With the recorded output u_out = u* - gdt G phi and input u_in = u*
   (uinl: needed with the implicit viscous term only), d(D A G phi) = D (A dul + dA u*) / gdt gives
     L_A dphi = D (A dul + dA u_out) / gdt,   du -= gdt G dphi,
   and div = D (A dul + dA u_in) / gdt, the tangent of the pressure update's divergence. With the
   line flux's perturbation dW instead (phik the stage's recorded phi), the same with W for A and
   the correction's own perturbation (FGSolverLineFluxTangent). */
static PetscErrorCode FGStageProjectTangent_Private(FGSolver s, PetscReal gdt, Vec dul[], Vec dAl[], Mat dW[], Vec phik, Vec uinl[], Vec uoutl[], Vec div, Vec phi, Vec phil, Vec du[])
{
  PetscFunctionBeginUser;
  if (dW) { /* the line flux's perturbation dW (src/solver/continuity.c): L dphi = D (W dul + dW u_out) / gdt - D W y, du -= gdt (C G dphi + y) */
    PetscCall(FGSolverDivergence(s, dul, div));
    PetscCall(VecScale(div, 1.0 / gdt));
    PetscCall(FGSolverLineFluxTangent(s, dW, gdt, phik, phil, uoutl, div, du));
    PetscCall(FGPoissonSolve(s->poisson, div, phi));
    PetscCall(FGSolverProjectionCorrect(s, gdt, phi, phil, du));
    if (uinl) { /* the pressure update's divergence D (W dul + dW u_in) / gdt */
      PetscCall(FGSolverDivergence(s, dul, div));
      PetscCall(VecScale(div, 1.0 / gdt));
      PetscCall(FGSolverLineFluxDivergence(s, dW, uinl, 1.0 / gdt, div));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!dAl) {
    PetscCall(FGStageProject_Private(s, gdt, dul, div, phi, phil, du));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FGSolverDivergence(s, dul, div));
  PetscCall(FGOpDivergenceWeighted(s->grid, dAl, uoutl, PETSC_TRUE, div));
  PetscCall(VecScale(div, 1.0 / gdt));
  PetscCall(FGPoissonSolve(s->poisson, div, phi));
  PetscCall(FGSolverProjectionCorrect(s, gdt, phi, phil, du));
  if (uinl) {
    PetscCall(FGSolverDivergence(s, dul, div));
    PetscCall(FGOpDivergenceWeighted(s->grid, dAl, uinl, PETSC_TRUE, div));
    PetscCall(VecScale(div, 1.0 / gdt));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The transpose: phibar (in: the adjoint of the output phi) += -gdt G^T ubar, psi = L_A^-T phibar, then
   ulbar = A D^T (psi - sc pbar) / gdt (sc pbar: the pressure update's correction of the
   implicit viscous term, sc = 0 without it) (ulbar ghosted, overwritten; the caller applies the fill's
   transpose and adds it to ubar). With Abarl (ghosted, accumulated; NULL: not wanted) the
   apertures' part: Abar += u_out D^T psi / gdt - u_in D^T sc pbar / gdt (uinl with sc != 0
   only); with phik (the stage's recorded phi; NULL: not wanted) the line flux's, the adjoint of
   W's entries (FGSolverLineFluxAdjoint). phil, div: work; phibar is overwritten. */
static PetscErrorCode FGStageProjectAdjoint_Private(FGSolver s, PetscReal gdt, Vec ubar[], Vec phibar, Vec phil, Vec div, Vec ulbar[], PetscReal sc, Vec pbar, Vec uinl[], Vec uoutl[], Vec Abarl[], Vec phik)
{
  PetscFunctionBeginUser;
  PetscCall(FGSolverProjectionCorrectAdjoint(s, gdt, ubar, phil, phibar));
  PetscCall(FGPoissonSolveTranspose(s->poisson, phibar, div));
  PetscCall(VecScale(div, 1.0 / gdt));
  if (phik) PetscCall(FGSolverLineFluxAdjoint(s, gdt, div, ubar, phik, phil, uoutl, uinl, sc, pbar)); /* W's entries' adjoint */
  if (Abarl) PetscCall(FGOpDivergenceWeightedAdjoint(s->grid, uoutl, div, Abarl));
  if (sc != 0) { /* p += phi - sc D (A ul) / gdt (implicit viscous term) */
    PetscCall(VecAXPY(div, -sc / gdt, pbar));
    if (Abarl) {
      PetscCall(VecAXPBY(phibar, -sc / gdt, 0.0, pbar));
      PetscCall(FGOpDivergenceWeightedAdjoint(s->grid, uinl, phibar, Abarl));
    }
  }
  PetscCall(FGSolverDivergenceAdjoint(s, div, ulbar));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The implicit half of the Crank-Nicolson viscous term (include/fg/viscous.h), s = gamma_k dt nu / 2,
   in the delta form: on entry u holds u** (the penalized predictor with the explicit half
   2 s L(u^{k-1})) on the interior faces and its final values on the others (the data of the solve:
   boundary faces set, outflow faces advanced); uol is the stage's start state, ghosted and filled
   at its time. On return
     u_U = w_U + S (u_U - w_U + s [L(Fill(w, t)) - L(uol)]_U),   w = (uol on U, u on K),
   S the viscous solve. tangent: the fill's tangent with the inflow perturbation dinf (and uol the
   tangent's). w: global work (where a ghost exchange is needed: then as above). Linear in
   (u, uol, dinf) for a tangent; affine in (u, uol) for the forward. */
static PetscErrorCode FGStageViscous_Private(FGSolver s, PetscReal sc, PetscReal t, PetscBool tangent, PetscReal dinf, Vec uol[], Vec w[], Vec u[])
{
  FGGrid          g     = s->grid;
  Vec             wl[3] = {NULL, NULL, NULL};
  const PetscBool exch = FGViscousBoundaryFacesInGhosts(s->viscous);

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(DMGetLocalVector(g->da, &wl[a]));
  if (exch) {
    PetscCall(FGOpInteriorFromLocal(g, &s->bc, uol, u, w));
    for (PetscInt a = 0; a < g->dim; a++) PetscCall(DMGlobalToLocal(g->da, w[a], INSERT_VALUES, wl[a]));
  } else { /* no exchange: the fill and the shell read wl next to the boundaries only, where it is uol
            but for the owned boundary faces (no rank's ghosts hold another's); w_U is uol's */
    PetscCall(FGOpCopyBoundaryPlanes(g, uol, wl));
    PetscCall(FGOpBoundaryFacesToLocal(g, &s->bc, u, wl));
  }
  if (tangent) PetscCall(FGOpFillBoundaryTangent(g, &s->bc, t, dinf, wl));
  else PetscCall(FGOpFillBoundary(g, &s->bc, t, wl));
  PetscCall(FGOpDiffusionShell(g, &s->bc, sc, wl, uol, u));
  PetscCall(FGViscousSolveIncrement(s->viscous, sc, (PetscBool)!exch, exch ? w : uol, u));
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(DMRestoreLocalVector(g->da, &wl[a]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The solve's dependence on s (on nu) at the recorded stage: with delta = u* - u^{k-1},
   d(u*)/ds = S ([L(Fill(u*, t)) - L(ul_k)]_U + C delta), C = E - L_0 the factored solve's part
   (FGViscousAddCorrection). r += c times the bracket plus C delta (interior faces). */
static PetscErrorCode FGStageViscousDs_Private(FGSolver s, PetscReal sc, PetscReal t, Vec ustar[], Vec ulk[], PetscReal c, Vec r[])
{
  FGGrid g = s->grid;
  Vec    ql[3] = {NULL, NULL, NULL}, dg[3] = {NULL, NULL, NULL};

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(DMGetLocalVector(g->da, &ql[a]));
    PetscCall(DMGetGlobalVector(g->da, &dg[a]));
    PetscCall(DMGlobalToLocal(g->da, ustar[a], INSERT_VALUES, ql[a]));
    PetscCall(DMLocalToGlobal(g->da, ulk[a], INSERT_VALUES, dg[a]));
    PetscCall(VecAYPX(dg[a], -1.0, ustar[a])); /* delta */
  }
  PetscCall(FGOpFillBoundary(g, &s->bc, t, ql));
  PetscCall(FGOpDiffusion(g, &s->bc, c, ql, r));
  PetscCall(FGOpDiffusion(g, &s->bc, -c, ulk, r));
  PetscCall(FGViscousAddCorrection(s->viscous, sc, c, dg, r));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(DMRestoreLocalVector(g->da, &ql[a]));
    PetscCall(DMRestoreGlobalVector(g->da, &dg[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The transpose of the tangent of FGStageViscous_Private at the recorded stage k (ustar: the
   solve's output, T->uvis; ulk: T->ul[k]): on entry ubar is the adjoint of the output, on return
   that of the input u (interior: qbar = S^T ubar_U; the K faces: passed through, plus w's part);
   ulkbar (ghosted, accumulated) receives the start state's part; with nk non-NULL,
   *nk += the local <qbar, d(u*)/ds> (FGStageViscousDs_Private), the solve's part of nubar / (gamma dt / 2);
   *infb += the inflow scale's part. wg, wl: global and ghosted work. */
static PetscErrorCode FGStageViscousAdjoint_Private(FGSolver s, PetscReal sc, PetscReal t, Vec ustar[], Vec ulk[], Vec wg[], Vec wl[], Vec ubar[], Vec ulkbar[], PetscReal *nk, PetscReal *infb)
{
  FGGrid g = s->grid;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecCopy(ubar[a], wg[a]));
  PetscCall(FGViscousSolveTranspose(s->viscous, sc, ubar)); /* qbar (the K faces kept) */
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecAXPY(wg[a], -1.0, ubar[a])); /* wbar_U = ubar_U - qbar (0 on K) */
    PetscCall(VecSet(wl[a], 0.0));
  }
  if (nk) { /* <qbar, d(u*)/ds>, locally */
    Vec z[3] = {NULL, NULL, NULL};
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscCall(DMGetGlobalVector(g->da, &z[a]));
      PetscCall(VecSet(z[a], 0.0));
    }
    PetscCall(FGStageViscousDs_Private(s, sc, t, ustar, ulk, 1.0, z));
    for (PetscInt a = 0; a < g->dim; a++) {
      const PetscScalar *zz, *qq;
      PetscInt           n;
      PetscCall(VecGetLocalSize(z[a], &n));
      PetscCall(VecGetArrayRead(z[a], &zz));
      PetscCall(VecGetArrayRead(ubar[a], &qq));
      for (PetscInt i = 0; i < n; i++) *nk += PetscRealPart(qq[i] * zz[i]); /* z is 0 off the interior */
      PetscCall(VecRestoreArrayRead(ubar[a], &qq));
      PetscCall(VecRestoreArrayRead(z[a], &zz));
      PetscCall(DMRestoreGlobalVector(g->da, &z[a]));
    }
  }
  /* s [L(wl) - L(ulk)] on the shell: wl's and ulk's adjoints */
  PetscCall(FGOpDiffusionShellAdjoint(g, &s->bc, sc, ubar, wl, ulkbar));
  /* wl = Fill(w, t), w = (ulk on U, u on K) */
  PetscCall(FGOpFillBoundaryAdjoint(g, &s->bc, t, wl, infb));
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(DMLocalToGlobal(g->da, wl[a], ADD_VALUES, wg[a]));
  PetscCall(FGOpInteriorToLocalAdd(g, &s->bc, wg, ulkbar));
  PetscCall(FGOpZeroInteriorFaces(g, &s->bc, wg));
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecAXPY(ubar[a], 1.0, wg[a]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGStepMomentumRHS_Private(FGSolver, PetscReal, PetscReal, Vec[], Vec[], Vec[]);

/*@C
  FGStepMomentumRHS - H = -A(ul) + nu L(ul) + f on the interior faces, the outflow condition on
  outflow faces, 0 on the prescribed faces; f: the actuators with the parameters' amplitudes, a
  forcing hook, the constant flow.force. ul: ghosted, boundary-filled at t. The stages call it
  with nu = 0 when the viscous term is implicit; the steady preconditioner with the viscosity.
@*/
PetscErrorCode FGStepMomentumRHS(FGSolver s, PetscReal t, PetscReal nu, Vec ul[], Vec H[])
{
  PetscFunctionBeginUser;
  PetscCall(FGStepMomentumRHS_Private(s, t, nu, NULL, ul, H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same; with R, H = -A + f and R += nu L(ul) instead (the implicit stage's explicit half, in
   the same sweep). */
static PetscErrorCode FGStepMomentumRHS_Private(FGSolver s, PetscReal t, PetscReal nu, Vec R[], Vec ul[], Vec H[])
{
  FGGrid g = s->grid;

  PetscFunctionBeginUser;
  if (R) PetscCall(FGOpMomentumSplit(g, &s->bc, nu, ul, H, R)); /* -A into H, nu L into R */
  else PetscCall(FGOpMomentum(g, &s->bc, nu, ul, H));           /* -A + nu L in one sweep, 0 elsewhere */
  PetscCall(FGOpOutflow(g, &s->bc, ul, H));
  if (s->layout.nact) PetscCall(FGActuatorsAddForce(g, &s->bc, s->c, FGParamsActuators(&s->prm), t, H));
  if (s->forcefn) PetscCall(s->forcefn(s, t, H, s->forcectx));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar *h;
    PetscInt     lo[3], hi[3];
    if (s->force[a] == 0.0) continue;
    FGOpInteriorFaces(g, &s->bc, a, lo, hi);
    PetscCall(VecGetArray(H[a], &h));
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) h[FGBoxOwnedIndex(&g->box, i, j, k)] += s->force[a];
    PetscCall(VecRestoreArray(H[a], &h));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGStepForward_RK3 - advance the state by one step of size s->dt with the solver's parameters;
  with a tape T (NULL: none), record what FGStepTangent_RK3 and FGStepAdjoint_RK3 need.
  Collective.
@*/
PetscErrorCode FGStepForward_RK3(FGSolver s, FGStepTape T)
{
  const PetscReal t0 = s->t, dt = s->dt;
  const PetscInt  dim = s->grid->dim;
  PetscInt        nb;
  PetscBool       incr; /* the pressure is incremental (bodies, or the implicit viscous term) */

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_Step, 0, 0, 0, 0));
  if (T) T->t0 = t0, T->dt = dt;
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  incr = (PetscBool)(nb || s->viscous);
  if (nb) PetscCall(FGBodiesResetForces(s->bodies));
  for (PetscInt k = 0; k < 3; k++) {
    const PetscReal tk = t0 + FG_RK3_C[k] * dt, tk1 = t0 + FG_RK3_C[k + 1] * dt;
    const PetscReal gdt = (FG_RK3_ALPHA[k] + FG_RK3_BETA[k]) * dt, sc = 0.5 * gdt * s->prm.v[FG_PARAM_NU];
    PetscCall(FGSolverFillGhosts(s, s->u, tk));                 /* 1. boundary values at the stage start */
    if (T)
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecCopy(s->ul[a], T->ul[k][a]));
    if (s->viscous) PetscCall(FGStepMomentumRHS_Private(s, tk, 2 * sc, s->u, s->ul, s->H)); /* 2. implicit: H = -A(u) + f, u += 2 s L(u) */
    else PetscCall(FGStepMomentumRHS(s, tk, s->prm.v[FG_PARAM_NU], s->ul, s->H));          /*    H = -A(u) + nu L(u) + f */
    PetscCall(FGStageAdvance_Private(dim, dt, k, s->u, s->H, s->Hold)); /* 3. u* = u + dt(alpha H + beta Hold) */
    if (incr) PetscCall(FGStagePressure_Private(s, gdt, s->p, s->phil, s->u)); /* bodies: u* -= gamma dt G p  */
    PetscCall(FGOpSetBoundaryFaces(s->grid, &s->bc, tk1, s->u));
    if (T)
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecCopy(s->u[a], T->ustar[k][a]));
    PetscCall(FGBodiesPenalize(s->bodies, tk1, gdt / dt, dt, s->ul, s->u)); /* 4. implicit penalization (ul: the stage's start) */
    if (s->viscous) { /*  implicit: (I - s L)(u* - u) = u** - u + (the boundary data's change)      */
      PetscCall(FGStageViscous_Private(s, sc, tk1, PETSC_FALSE, 0, s->ul, s->H, s->u));
      if (T)
        for (PetscInt a = 0; a < dim; a++) PetscCall(VecCopy(s->u[a], T->uvis[k][a]));
    }
    PetscCall(FGSolverFillGhosts(s, s->u, tk1));                /* 5. u = u* - gamma dt G phi            */
    if (T && T->upin[k][0])
      for (PetscInt a = 0; a < dim; a++) PetscCall(VecCopy(s->ul[a], T->upin[k][a]));
    PetscCall(FGStageProject_Private(s, gdt, s->ul, s->div, s->phi, s->phil, s->u));
    if (T && T->phik[k]) PetscCall(VecCopy(s->phi, T->phik[k])); /* the line flux's design derivative */
    if (s->viscous) PetscCall(VecAXPBYPCZ(s->p, 1.0, -sc, 1.0, s->phi, s->div)); /* 6. p = p + phi - s L_p phi (implicit) */
    else if (incr) PetscCall(VecAXPY(s->p, 1.0, s->phi));       /*    p = p + phi (bodies), else         */
    if (s->viscous && T) PetscCall(VecCopy(s->div, T->div[k]));
  }
  if (!incr) PetscCall(VecCopy(s->phi, s->p));                  /*    p = phi of the last stage          */
  if (T && T->uend[0]) { /* apertures: the last projection's output, for their derivative */
    PetscCall(FGSolverFillGhosts(s, s->u, t0 + dt));
    for (PetscInt a = 0; a < dim; a++) PetscCall(VecCopy(s->ul[a], T->uend[a]));
  }
  s->t = t0 + dt;
  s->step++;
  if (nb) PetscCall(FGBodiesReduceForces(s->bodies));           /* 7. the step's penalty forces          */
  PetscCall(PetscLogEventEnd(FG_EVENT_Step, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   The linearized step. The state is (u, p) with bodies (the pressure is incremental) and u
   without (p is then the last stage's phi, an output). Both functions linearize about the step
   recorded in the tape (FGStepForward_RK3 with that tape, from the same start state).

   Tangent, stage k (d = perturbation; ul_k, u*_k from the tape):
     dul  = Fill'(du)                                      (+ the inflow data times dp->inflow)
     dH_k = -A'(ul_k) dul + nu L dul + dnu L ul_k + Out dul + f(dF)
     du  += dt (alpha_k dH_k + beta_k dH_{k-1});  bodies: du -= gamma dt G dp
     du   = SetBoundaryFaces'(du);  du = Pen'(u*_k)[du, dtheta, dchi]
     dphi = Lp^{-1} D Fill'(du) / (gamma dt);  du -= gamma dt G dphi;  dp += dphi (bodies)
   Adjoint: the same in reverse, each operator replaced by its transpose. */

static PetscErrorCode FGStepCheckForce_Private(FGSolver s)
{
  PetscFunctionBeginUser;
  PetscCheck(!s->forcefn, s->comm, PETSC_ERR_SUP, "the step's body-force hook has no tangent or adjoint (only the actuators have)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGStepTangent_RK3 - the tangent of the recorded step: du (global Vecs) and, with bodies, dp hold
  the start state's perturbation on entry and the end state's on return (without bodies dp
  receives the tangent of the output pressure); dprm the parameter perturbations (NULL: none);
  dacc (NULL: not wanted) receives the reduced tangent of each body's step force and moment
  [6 b + m].
@*/
PetscErrorCode FGStepTangent_RK3(FGSolver s, FGStepTape T, const FGParams *dprm, Vec du[], Vec dp, PetscReal dacc[])
{
  FGGrid          g = s->grid;
  const PetscInt  dim = g->dim;
  const PetscReal t0 = T->t0, dt = T->dt;
  const PetscReal dnu = dprm ? dprm->v[FG_PARAM_NU] : 0, dinf = dprm ? dprm->v[FG_PARAM_INFLOW] : 0;
  PetscInt        nb;
  PetscBool       incr;
  Vec            *dAl = NULL; /* the apertures' perturbation (NULL: none) */
  Mat            *Wm, *dW = NULL; /* the line flux's W - I and its perturbation (NULL: none) */

  PetscFunctionBeginUser;
  PetscCall(FGStepCheckForce_Private(s));
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_StepTangent, 0, 0, 0, 0));
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  incr = (PetscBool)(nb || s->viscous);
  if (dacc) PetscCall(PetscArrayzero(dacc, 6 * nb));
  PetscCall(FGBodiesGetLineFlux(s->bodies, &Wm));
  if (Wm && dprm && dprm->theta) PetscCall(FGBodiesLineFluxTangent(s->bodies, dprm->theta, &dW)); /* W's perturbation (the same at every stage) */
  else if (T->uend[0] && dprm && dprm->theta) { /* the apertures' perturbation (the same at every stage: the surface does not move) */
    PetscCall(FGBodiesApertureTangent(s->bodies, dprm->theta, T->wA));
    dAl = T->wA;
  }
  for (PetscInt k = 0; k < 3; k++) {
    const PetscReal tk = t0 + FG_RK3_C[k] * dt, tk1 = t0 + FG_RK3_C[k + 1] * dt;
    const PetscReal gdt = (FG_RK3_ALPHA[k] + FG_RK3_BETA[k]) * dt, ch = 0.5 * gdt, sc = ch * s->prm.v[FG_PARAM_NU];
    for (PetscInt a = 0; a < dim; a++) {
      PetscCall(DMGlobalToLocal(g->da, du[a], INSERT_VALUES, T->wl[a]));
      PetscCall(VecSet(T->wH[a], 0.0));
    }
    PetscCall(FGOpFillBoundaryTangent(g, &s->bc, tk, dinf, T->wl));
    PetscCall(FGOpAdvectionTangent(g, &s->bc, T->ul[k], T->wl, T->wH));
    if (!s->viscous) PetscCall(FGOpDiffusionTangent(g, &s->bc, s->prm.v[FG_PARAM_NU], dnu, T->ul[k], T->wl, T->wH));
    PetscCall(FGOpOutflowTangent(g, &s->bc, T->wl, T->wH));
    if (s->layout.nact && dprm) PetscCall(FGActuatorsAddForceTangent(g, &s->bc, s->c, FGParamsActuators(dprm), tk, T->wH));
    PetscCall(FGStageAdvance_Private(dim, dt, k, du, T->wH, T->wHo));
    if (s->viscous) PetscCall(FGOpDiffusionTangent(g, &s->bc, 2 * sc, 2 * ch * dnu, T->ul[k], T->wl, du));
    if (incr) PetscCall(FGStagePressure_Private(s, gdt, dp, T->wphil, du));
    PetscCall(FGOpSetBoundaryFacesTangent(g, &s->bc, tk1, dinf, du));
    PetscCall(FGBodiesPenalizeTangent(s->bodies, tk1, gdt / dt, dt, T->ustar[k], T->ul[k], T->wl, dprm ? dprm->theta : NULL, dprm ? dprm->chif : NULL, du, dacc));
    if (s->viscous) { /* the solve's dependence on nu, then the same solve of the perturbation */
      if (dnu != 0) PetscCall(FGStageViscousDs_Private(s, sc, tk1, T->uvis[k], T->ul[k], ch * dnu, du));
      PetscCall(FGStageViscous_Private(s, sc, tk1, PETSC_TRUE, dinf, T->wl, T->wH, du));
    }
    for (PetscInt a = 0; a < dim; a++) PetscCall(DMGlobalToLocal(g->da, du[a], INSERT_VALUES, T->wl[a]));
    PetscCall(FGOpFillBoundaryTangent(g, &s->bc, tk1, dinf, T->wl));
    PetscCall(FGStageProjectTangent_Private(s, gdt, T->wl, dAl, dW, T->phik[k], T->upin[k][0] ? T->upin[k] : NULL, k < 2 ? T->ul[k + 1] : T->uend, T->wdiv, T->wphi, T->wphil, du));
    if (incr) PetscCall(VecAXPY(dp, 1.0, T->wphi));
    if (s->viscous) PetscCall(VecAXPY(dp, -sc, T->wdiv));
    if (s->viscous && dnu != 0) PetscCall(VecAXPY(dp, -ch * dnu, T->div[k]));
  }
  if (!incr) PetscCall(VecCopy(T->wphi, dp));
  if (dacc && nb) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, dacc, (PetscMPIInt)(6 * nb), MPIU_REAL, MPIU_SUM, s->comm));
  PetscCall(PetscLogEventEnd(FG_EVENT_StepTangent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGStepAdjoint_RK3 - the transpose of FGStepTangent_RK3: ubar (global Vecs) and pbar hold the
  adjoint of the end state on entry and that of the start state on return (without bodies pbar is
  the adjoint of the output pressure on entry and 0 on return); wacc (NULL: none) the adjoint of
  each body's step force and moment [6 b + m]; bar (NULL: not wanted) accumulates the local parts
  of the parameters' adjoints (FGParamsReduce sums them), its chif Vecs the face masks', and its
  chibar and sens (when given) the gradient fields.
@*/
PetscErrorCode FGStepAdjoint_RK3(FGSolver s, FGStepTape T, const PetscReal wacc[], Vec ubar[], Vec pbar, FGParams *bar)
{
  FGGrid          g = s->grid;
  const PetscInt  dim = g->dim;
  const PetscReal t0 = T->t0, dt = T->dt;
  PetscInt        nb;
  PetscBool       incr, ghost; /* ghost: the penalization reads ul_k (FGBodiesHasGhostTerm) */
  PetscReal       nub = 0, infb = 0;
  Vec            *Abarl = NULL; /* the apertures' adjoint (NULL: not wanted) */
  Mat            *Wm;

  PetscFunctionBeginUser;
  PetscCall(FGStepCheckForce_Private(s));
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_StepAdjoint, 0, 0, 0, 0));
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  incr = (PetscBool)(nb || s->viscous);
  PetscCall(FGBodiesHasGhostTerm(s->bodies, &ghost));
  for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(T->wHo[a], 0.0)); /* the carry beta_{k+1} dt ubar* */
  PetscCall(FGBodiesGetLineFlux(s->bodies, &Wm));
  if (T->uend[0] && bar && !Wm) { /* the apertures' adjoint, summed over the stages (with the line flux, W's entries': FGBodiesLineFluxAdjointAdd) */
    Abarl = T->wA;
    for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(Abarl[a], 0.0));
  }
  for (PetscInt k = 2; k >= 0; k--) {
    const PetscReal tk = t0 + FG_RK3_C[k] * dt, tk1 = t0 + FG_RK3_C[k + 1] * dt;
    const PetscReal gdt = (FG_RK3_ALPHA[k] + FG_RK3_BETA[k]) * dt, ch = 0.5 * gdt, sc = ch * s->prm.v[FG_PARAM_NU];
    PetscReal       nk  = 0;
    Vec             ulk[3] = {NULL, NULL, NULL}, ulq[3] = {NULL, NULL, NULL};
    /* p = p_prev + phi (bodies), p = phi_3 (none) */
    if (s->viscous && bar) { /* p += phi - gdt nu / 2 div: nubar -= gdt / 2 <pbar, div> (local part) */
      const PetscScalar *pb, *dv;
      PetscInt           n;
      PetscCall(VecGetLocalSize(pbar, &n));
      PetscCall(VecGetArrayRead(pbar, &pb));
      PetscCall(VecGetArrayRead(T->div[k], &dv));
      for (PetscInt i = 0; i < n; i++) nub -= ch * PetscRealPart(pb[i] * dv[i]);
      PetscCall(VecRestoreArrayRead(T->div[k], &dv));
      PetscCall(VecRestoreArrayRead(pbar, &pb));
    }
    if (incr) PetscCall(VecCopy(pbar, T->wphi));
    else if (k == 2) {
      PetscCall(VecCopy(pbar, T->wphi));
      PetscCall(VecSet(pbar, 0.0));
    } else PetscCall(VecSet(T->wphi, 0.0));
    /* u = u** - gdt G phi, phi = Lp^{-1} D Fill(u**) / gdt */
    PetscCall(FGStageProjectAdjoint_Private(s, gdt, ubar, T->wphi, T->wphil, T->wdiv, T->wl, s->viscous ? sc : 0, pbar, T->upin[k][0] ? T->upin[k] : NULL, k < 2 ? T->ul[k + 1] : T->uend, Abarl, Wm && bar ? T->phik[k] : NULL));
    PetscCall(FGOpFillBoundaryAdjoint(g, &s->bc, tk1, T->wl, &infb));
    for (PetscInt a = 0; a < dim; a++) PetscCall(DMLocalToGlobal(g->da, T->wl[a], ADD_VALUES, ubar[a]));
    /* u** = Pen(u*), u* on the prescribed faces = boundary data */
    if (s->viscous) { /* the solve on the increment (the start state's part into ulk, added below) */
      for (PetscInt a = 0; a < dim; a++) {
        PetscCall(DMGetLocalVector(g->da, &ulk[a]));
        PetscCall(VecSet(ulk[a], 0.0));
      }
      PetscCall(FGStageViscousAdjoint_Private(s, sc, tk1, T->uvis[k], T->ul[k], T->wH, T->wl, ubar, ulk, bar ? &nk : NULL, &infb));
    }
    if (ghost)
      for (PetscInt a = 0; a < dim; a++) {
        PetscCall(DMGetLocalVector(g->da, &ulq[a]));
        PetscCall(VecSet(ulq[a], 0.0));
      }
    PetscCall(FGBodiesPenalizeAdjoint(s->bodies, tk1, gdt / dt, dt, T->ustar[k], T->ul[k], wacc, ubar, ghost ? ulq : NULL, bar ? bar->theta : NULL, bar && bar->chibar[0] ? bar->chibar : NULL, bar && bar->sens[0] ? bar->sens : NULL, bar ? bar->chif : NULL));
    PetscCall(FGOpSetBoundaryFacesAdjoint(g, &s->bc, tk1, ubar, &infb));
    if (incr) PetscCall(FGStagePressureAdjoint_Private(s, gdt, ubar, T->wphil, pbar)); /* u* -= gdt G p_prev */
    /* u* = u + dt (alpha H_k + beta H_{k-1}) (+ s L(ul_k), implicit) */
    PetscCall(FGStageAdvanceAdjoint_Private(dim, dt, k, ubar, T->wH, T->wHo));
    /* H_k = RHS(ul_k), ul_k = Fill(u) */
    for (PetscInt a = 0; a < dim; a++) PetscCall(VecSet(T->wl[a], 0.0));
    if (ghost) /* the quadratic ghosts' explicit term reads ul_k too */
      for (PetscInt a = 0; a < dim; a++) {
        PetscCall(VecAXPY(T->wl[a], 1.0, ulq[a]));
        PetscCall(DMRestoreLocalVector(g->da, &ulq[a]));
      }
    PetscCall(FGOpAdvectionAdjoint(g, &s->bc, T->ul[k], T->wH, T->wl));
    if (s->opt.test_break_adjoint) PetscCall(VecScale(T->wl[0], 1 + 1e-3)); /* test hook: a wrong adjoint */
    if (s->viscous) { /* the explicit 2 s L(ul_k), and the viscous solve's part from above */
      PetscReal n2 = 0;
      PetscCall(FGOpDiffusionAdjoint(g, &s->bc, 2 * sc, T->ul[k], ubar, T->wl, bar ? &n2 : NULL));
      nk += 2 * n2;
      for (PetscInt a = 0; a < dim; a++) {
        PetscCall(VecAXPY(T->wl[a], 1.0, ulk[a]));
        PetscCall(DMRestoreLocalVector(g->da, &ulk[a]));
      }
    } else PetscCall(FGOpDiffusionAdjoint(g, &s->bc, s->prm.v[FG_PARAM_NU], T->ul[k], T->wH, T->wl, bar ? &nub : NULL)); /* nubar only when wanted */
    nub += ch * nk;
    PetscCall(FGOpOutflowAdjoint(g, &s->bc, T->wH, T->wl));
    if (s->layout.nact && bar) PetscCall(FGActuatorsAddForceAdjoint(g, &s->bc, s->c, tk, T->wH, FGParamsActuators(bar)));
    PetscCall(FGOpFillBoundaryAdjoint(g, &s->bc, tk, T->wl, &infb));
    for (PetscInt a = 0; a < dim; a++) PetscCall(DMLocalToGlobal(g->da, T->wl[a], ADD_VALUES, ubar[a]));
  }
  if (bar) bar->v[FG_PARAM_NU] += nub, bar->v[FG_PARAM_INFLOW] += infb;
  if (Abarl) PetscCall(FGBodiesApertureAdjoint(s->bodies, Abarl, bar->theta, bar->sens[0] ? bar->sens : NULL));
  if (Wm && bar) PetscCall(FGBodiesLineFluxAdjoint(s->bodies, bar->theta, bar->sens[0] ? bar->sens : NULL));
  PetscCall(PetscLogEventEnd(FG_EVENT_StepAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
