/*
  Body-force actuators (actuator.<name> in the case file): a smooth force field added to the
  momentum equation on the interior faces,

    f(x, t) = force exp(-|x - center|^2 / radius^2) s(t),   s = 1 (frequency 0) or sin(2 pi frequency t).

  The step adds them to the momentum right-hand side (src/step/rk3.c), with the force amplitudes
  in time from the solver's parameters (include/fg/solver.h, FGParamsActuators): the design may
  change them; every other parameter (center, radius, frequency) is a case key.
*/
#include <fg/body.h>

/*@C
  FGActuatorValue - component a of one actuator's force field at x (dim coordinates), time t.
@*/
PetscReal FGActuatorValue(const FGActuatorCase *ac, PetscInt dim, PetscInt a, const PetscReal x[], PetscReal t)
{
  PetscReal r2 = 0;
  for (PetscInt d = 0; d < dim; d++) r2 += (x[d] - ac->center[d]) * (x[d] - ac->center[d]);
  return ac->force[a] * (ac->frequency > 0 ? PetscSinReal(2 * PETSC_PI * ac->frequency * t) : 1.0) * PetscExpReal(-r2 / (ac->radius * ac->radius));
}

/*@C
  FGActuatorAmplitude - the force amplitude of component a of actuator n at time t: sum_k
  c[(3 n + a) nb + k] phi_k(t) over the nb basis functions in time on [0, T] (FGTimeBasis;
  nb = 1: the constant c_0). c: the actuator coefficients of the parameters (FGParamsActuators).
@*/
PetscReal FGActuatorAmplitude(const PetscReal *c, PetscInt nb, PetscReal T, PetscInt n, PetscInt a, PetscReal t)
{
  PetscReal phi[FG_MAX_TIME_BASIS], Phi[FG_MAX_TIME_BASIS], v = 0;

  FGTimeBasis(nb, T, t, phi, Phi);
  for (PetscInt k = 0; k < nb; k++) v += c[(3 * n + a) * nb + k] * phi[k];
  return v;
}

/* The actuators' force on the interior faces, in two modes: H += f with the amplitude
   coefficients F (forward; the tangent is the same with the perturbations dF: f is linear in F),
   Fbar[(3 n + a) nb + k] += <Hbar, phi_k(t) f_n,a / amplitude> (adjoint). */
static PetscErrorCode FGActuators_Private(FGGrid g, const FGBoundary *bc, const FGCase *c, PetscReal t, PetscBool adjoint, const PetscReal F[], PetscReal Fbar[], Vec H[])
{
  const PetscInt  nb = PetscMax(c->design.time_basis, 1);
  const PetscReal T  = (PetscReal)c->time.steps * c->time.dt;
  PetscReal       phi[FG_MAX_TIME_BASIS], Phi[FG_MAX_TIME_BASIS];

  PetscFunctionBeginUser;
  FGTimeBasis(nb, T, t, phi, Phi);
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar *h;
    PetscInt     lo[3], hi[3];
    FGOpInteriorFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArray(H[a], &h));
    for (PetscInt n = 0; n < c->nactuators; n++) {
      const FGActuatorCase *ac  = &c->actuator[n];
      const PetscReal       sig = ac->frequency > 0 ? PetscSinReal(2 * PETSC_PI * ac->frequency * t) : 1.0;
      const PetscReal       amp = (adjoint ? 1.0 : FGActuatorAmplitude(F, nb, T, n, a, t)) * sig;
      PetscReal             sum = 0;
      PetscInt              blo[3], bhi[3];
      if (amp == 0) continue;
      /* the Gaussian is below 1e-16 of its peak beyond 6 radii */
      for (PetscInt d = 0; d < 3; d++) {
        blo[d] = lo[d], bhi[d] = hi[d];
        if (d >= g->dim) continue;
        FGGridIndexRange(g, (FGLocation)(FG_LOC_FACE_X + a), d, ac->center[d] - 6 * ac->radius, ac->center[d] + 6 * ac->radius, &blo[d], &bhi[d]);
        blo[d] = PetscMax(lo[d], blo[d]);
        bhi[d] = PetscMin(hi[d], bhi[d]);
      }
      for (PetscInt k = blo[2]; k < bhi[2]; k++)
        for (PetscInt j = blo[1]; j < bhi[1]; j++)
          for (PetscInt i = blo[0]; i < bhi[0]; i++) {
            const PetscInt idx[3] = {i, j, k}, o = FGBoxOwnedIndex(&g->box, i, j, k);
            PetscReal      r2     = 0, gauss;
            for (PetscInt d = 0; d < g->dim; d++) {
              PetscReal x = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]) - ac->center[d];
              r2 += x * x;
            }
            gauss = PetscExpReal(-r2 / (ac->radius * ac->radius));
            if (adjoint) sum += PetscRealPart(h[o]) * gauss;
            else h[o] += amp * gauss;
          }
      if (adjoint)
        for (PetscInt k = 0; k < nb; k++) Fbar[(3 * n + a) * nb + k] += phi[k] * sig * sum;
    }
    PetscCall(VecRestoreArray(H[a], &h));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGActuatorsAddForce - H_a += f_a(x, t) of every actuator of the case, on the interior faces,
  with the amplitude coefficients F.
@*/
PetscErrorCode FGActuatorsAddForce(FGGrid g, const FGBoundary *bc, const FGCase *c, const PetscReal F[], PetscReal t, Vec H[])
{
  PetscFunctionBeginUser;
  PetscCall(FGActuators_Private(g, bc, c, t, PETSC_FALSE, F, NULL, H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGActuatorsAddForceTangent - dH_a += the actuators' force with the amplitude perturbations dF
  (linear in them; the state does not enter).
@*/
PetscErrorCode FGActuatorsAddForceTangent(FGGrid g, const FGBoundary *bc, const FGCase *c, const PetscReal dF[], PetscReal t, Vec dH[])
{
  PetscFunctionBeginUser;
  PetscCall(FGActuators_Private(g, bc, c, t, PETSC_FALSE, dF, NULL, dH));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGActuatorsAddForceAdjoint - the transpose: Fbar[(3 n + a) nb + k] += phi_k(t) times the sum
  over this rank's interior faces of Hbar_a times the force of unit amplitude (local sums; the
  caller reduces).
@*/
PetscErrorCode FGActuatorsAddForceAdjoint(FGGrid g, const FGBoundary *bc, const FGCase *c, PetscReal t, Vec Hbar[], PetscReal Fbar[])
{
  PetscFunctionBeginUser;
  PetscCall(FGActuators_Private(g, bc, c, t, PETSC_TRUE, NULL, Fbar, Hbar));
  PetscFunctionReturn(PETSC_SUCCESS);
}
