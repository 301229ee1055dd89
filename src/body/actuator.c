/*
  Body-force actuators (actuator.<name> in the case file): a smooth force field added to the
  momentum equation on the interior faces,

    f(x, t) = force exp(-|x - center|^2 / radius^2) s(t),   s = 1 (frequency 0) or sin(2 pi frequency t).

  Installed as the solver's body-force hook (FGSolver.forcefn). Every parameter (center, radius,
  force, frequency) is a named case key, for the adjoint to differentiate.
*/
#include <fg/solver.h>
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
  c[(3 n + a) FG_MAX_TIME_BASIS + k] phi_k(t) over the nb basis functions in time on [0, T]
  (FGTimeBasis; nb = 1: the constant c_0). c: FGSolver.actc.
@*/
PetscReal FGActuatorAmplitude(const PetscReal *c, PetscInt nb, PetscReal T, PetscInt n, PetscInt a, PetscReal t)
{
  PetscReal phi[FG_MAX_TIME_BASIS], Phi[FG_MAX_TIME_BASIS], v = 0;

  FGTimeBasis(nb, T, t, phi, Phi);
  for (PetscInt k = 0; k < nb; k++) v += c[(3 * n + a) * FG_MAX_TIME_BASIS + k] * phi[k];
  return v;
}

/* The actuators' force on the interior faces, in three modes: H += f (forward, amplitudes from
   s->actc), H += f(dF) (the tangent in the amplitude coefficients dF, FGStepParams.act layout),
   Fbar[(3 n + a) FG_MAX_TIME_BASIS + k] += <Hbar, phi_k(t) f_n,a / amplitude> (adjoint). */
typedef enum { FG_ACT_FORWARD, FG_ACT_TANGENT, FG_ACT_ADJOINT } FGActuatorMode;

static PetscErrorCode FGActuators_Private(FGSolver s, PetscReal t, FGActuatorMode mode, const PetscReal dF[], PetscReal Fbar[], Vec H[])
{
  FGGrid          g  = s->grid;
  const FGCase   *c  = s->c;
  const PetscInt  nb = PetscMax(c->design.time_basis, 1);
  const PetscReal T  = (PetscReal)c->time.steps * c->time.dt;
  PetscReal       phi[FG_MAX_TIME_BASIS], Phi[FG_MAX_TIME_BASIS];

  PetscFunctionBeginUser;
  FGTimeBasis(nb, T, t, phi, Phi);
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar *h;
    PetscInt     lo[3], hi[3];
    FGOpInteriorFaces(g, &s->bc, a, lo, hi);
    PetscCall(VecGetArray(H[a], &h));
    for (PetscInt n = 0; n < c->nactuators; n++) {
      const FGActuatorCase *ac  = &c->actuator[n];
      const PetscReal       sig = ac->frequency > 0 ? PetscSinReal(2 * PETSC_PI * ac->frequency * t) : 1.0;
      const PetscReal       amp = (mode == FG_ACT_FORWARD ? FGActuatorAmplitude(&s->actc[0][0][0], nb, T, n, a, t) : mode == FG_ACT_TANGENT ? FGActuatorAmplitude(dF, nb, T, n, a, t) : 1.0) * sig;
      PetscReal             sum = 0;
      PetscInt              blo[3], bhi[3];
      if (amp == 0) continue;
      /* the Gaussian is below 1e-16 of its peak beyond 6 radii */
      for (PetscInt d = 0; d < 3; d++) {
        blo[d] = lo[d], bhi[d] = hi[d];
        if (d >= g->dim) continue;
        {
          PetscReal c0 = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, 0);
          blo[d]       = PetscMax(lo[d], (PetscInt)PetscFloorReal((ac->center[d] - 6 * ac->radius - c0) / g->h[d]));
          bhi[d]       = PetscMin(hi[d], (PetscInt)PetscCeilReal((ac->center[d] + 6 * ac->radius - c0) / g->h[d]) + 1);
        }
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
            if (mode == FG_ACT_ADJOINT) sum += PetscRealPart(h[o]) * gauss;
            else h[o] += amp * gauss;
          }
      if (mode == FG_ACT_ADJOINT)
        for (PetscInt k = 0; k < nb; k++) Fbar[(3 * n + a) * FG_MAX_TIME_BASIS + k] += phi[k] * sig * sum;
    }
    PetscCall(VecRestoreArray(H[a], &h));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGActuatorsAddForce - H_a += f_a(x, t) of every actuator of the case, on the interior faces.
  (An FGForceFn; ctx is unused.)
@*/
PetscErrorCode FGActuatorsAddForce(FGSolver s, PetscReal t, Vec H[], void *ctx)
{
  PetscFunctionBeginUser;
  (void)ctx;
  PetscCall(FGActuators_Private(s, t, FG_ACT_FORWARD, NULL, NULL, H));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGActuatorsAddForceTangent - dH_a += the actuators' force with the amplitude coefficients dF
  (FGStepParams.act layout; linear in them; the state does not enter).
@*/
PetscErrorCode FGActuatorsAddForceTangent(FGSolver s, PetscReal t, const PetscReal dF[], Vec dH[])
{
  PetscFunctionBeginUser;
  PetscCall(FGActuators_Private(s, t, FG_ACT_TANGENT, dF, NULL, dH));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGActuatorsAddForceAdjoint - the transpose: Fbar[(3 n + a) FG_MAX_TIME_BASIS + k] += phi_k(t)
  times the sum over this rank's interior faces of Hbar_a times the force of unit amplitude (local
  sums; the caller reduces).
@*/
PetscErrorCode FGActuatorsAddForceAdjoint(FGSolver s, PetscReal t, Vec Hbar[], PetscReal Fbar[])
{
  PetscFunctionBeginUser;
  PetscCall(FGActuators_Private(s, t, FG_ACT_ADJOINT, NULL, Fbar, Hbar));
  PetscFunctionReturn(PETSC_SUCCESS);
}
