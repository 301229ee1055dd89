/*
  Bodies: rigid motion and the controls' basis in time (include/fg/body.h).

    x_c(t)   = position + velocity t + oscillation_amplitude sin(2 pi f_o t)
    V(t)     = velocity + 2 pi f_o oscillation_amplitude cos(2 pi f_o t)
    Omega(t) = rotation_rate + rotation_amplitude sin(2 pi f_r t),  theta(t) = int_0^t Omega

  With a design, the position is offset and the rotation rate is r(t) = sum_k c_k phi_k(t) in the
  controls' basis in time (FGTimeBasis), its angle R(t) = sum_k c_k Phi_k(t).
*/
#include "bodyimpl.h"

/*@C
  FGBodyMotion - reference point x_c(t), velocity V(t), rotation angle theta(t) since t = 0
  (radians, ccw) and rate Omega(t) of a body's rigid motion.
@*/
void FGBodyMotion(const FGBodyCase *bc, PetscInt dim, PetscReal t, PetscReal xc[3], PetscReal V[3], PetscReal *theta, PetscReal *omega)
{
  const PetscReal wo = 2 * PETSC_PI * bc->oscillation_frequency, wr = 2 * PETSC_PI * bc->rotation_frequency;

  for (PetscInt d = 0; d < 3; d++) xc[d] = V[d] = 0;
  for (PetscInt d = 0; d < dim; d++) {
    xc[d] = bc->position[d] + bc->velocity[d] * t + bc->oscillation_amplitude[d] * PetscSinReal(wo * t);
    V[d]  = bc->velocity[d] + wo * bc->oscillation_amplitude[d] * PetscCosReal(wo * t);
  }
  *omega = bc->rotation_rate + bc->rotation_amplitude * PetscSinReal(wr * t);
  *theta = bc->rotation_rate * t + (wr > 0 ? bc->rotation_amplitude * (1 - PetscCosReal(wr * t)) / wr : 0);
}

/*@C
  FGTimeBasis - the controls' basis in time at t: phi_k(t) and Phi_k(t) = int_0^t phi_k, k < nb.
  nb = 1: phi_0 = 1, Phi_0 = t. nb >= 2: hat functions on the nodes t_k = k T/(nb - 1), the first
  and the last held constant outside [0, T] (so sum_k phi_k = 1 everywhere).
@*/
void FGTimeBasis(PetscInt nb, PetscReal T, PetscReal t, PetscReal phi[], PetscReal Phi[])
{
  if (nb <= 1) {
    phi[0] = 1.0;
    Phi[0] = t;
    return;
  }
  {
    const PetscReal h = T / (PetscReal)(nb - 1);
    for (PetscInt k = 0; k < nb; k++) {
      const PetscReal tk = k * h, s = (t - tk) / h;
      /* phi_k = max(0, 1 - |s|), with the ends extended */
      if (k == 0 && s < 0) phi[k] = 1;
      else if (k == nb - 1 && s > 0) phi[k] = 1;
      else phi[k] = PetscAbsReal(s) < 1 ? 1 - PetscAbsReal(s) : 0;
      /* Phi_k: the integral from 0 to t of that function */
      {
        PetscReal in = 0, a = PetscMax(tk - h, 0), b;
        if (k == 0) { /* phi_0 = 1 before 0 (not integrated: t >= 0), 1 - t/h on [0, h] */
          b = PetscMin(t, h);
          if (b > 0) in = b - 0.5 * b * b / h;
        } else {
          b = PetscMin(t, tk); /* the rising half on [tk - h, tk] */
          if (b > a) in += 0.5 * (b - a) * (b - a) / h;
          if (t > tk) {
            if (k == nb - 1) in += t - tk; /* held at 1 beyond T */
            else {
              const PetscReal c = PetscMin(t, tk + h) - tk; /* the falling half */
              in += c - 0.5 * c * c / h;
            }
          }
        }
        Phi[k] = in;
      }
    }
  }
}

/* Does the rotation rate vanish at all times? */
PetscBool FGBodyRateZero_Internal(const FGBodyItem *it)
{
  for (PetscInt k = 0; k < it->nbasis; k++)
    if (it->ratec[k] != 0) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* The motion of a listed body (with the design's overrides of position and rotation rate); a
   density body's reference point is its centroid. */
void FGBodyState_Internal(const FGBodyItem *it, PetscInt dim, PetscReal t, PetscReal xc[3], PetscReal V[3], PetscReal *th, PetscReal *om)
{
  PetscReal phi[FG_MAX_TIME_BASIS], Phi[FG_MAX_TIME_BASIS], r = 0, R = 0;

  FGBodyMotion(it->bc, dim, t, xc, V, th, om);
  for (PetscInt d = 0; d < dim; d++) xc[d] += it->dpos[d];
  /* the rate r(t) = sum_k c_k phi_k(t) replaces the case's constant rate, its integral R(t) the angle
     rate t (one basis function: r = c_0, R = c_0 t, exactly) */
  FGTimeBasis(it->nbasis, it->T, t, phi, Phi);
  for (PetscInt k = 0; k < it->nbasis; k++) r += it->ratec[k] * phi[k], R += it->ratec[k] * Phi[k];
  *om += r - it->bc->rotation_rate;
  *th += R - it->bc->rotation_rate * t;
  if (it->dens)
    for (PetscInt d = 0; d < dim; d++) xc[d] = it->centroid[d];
}

/* Is the geometry time-dependent? (rate: nonzero if the rotation rate ever is) */
PetscBool FGBodyMoves_Internal(const FGBodyCase *bc, PetscReal rate)
{
  /* a rotating circle or sphere keeps its mask, but not its jets (they turn with the body) */
  PetscBool rot = (PetscBool)((rate != 0 || bc->rotation_amplitude != 0) && ((bc->shape != FG_BODY_CIRCLE && bc->shape != FG_BODY_SPHERE) || bc->n_jets > 0));
  for (PetscInt d = 0; d < 3; d++)
    if (bc->velocity[d] != 0 || (bc->oscillation_amplitude[d] != 0 && bc->oscillation_frequency != 0)) return PETSC_TRUE;
  return rot;
}
