/*
  Bodies: diagnostics between steps (include/fg/body.h). Nothing here is part of the scheme; the
  step never calls it. Whoever writes a history row asks for it.

  Control volume (cross-check of the penalty force): a box of cells around the body (its bounding
  box widened by half its size, at least 3 cells, clipped 2 cells from non-periodic walls; a
  periodic direction the box spans whole has no faces there), fixed at the step's start
  (FGBodiesControlVolumeBegin). With density 1,
    F = f V_box - d/dt sum_box u dV - sum_faces (u_a u_n + p n_a - nu du_a/dn) dA
  with second-order face-centre interpolation of the end-of-step state, and d/dt from the
  momentum in the box at the step's start and end (FGBodiesControlVolumeEnd).

  Strouhal number: the frequency of a signal from its mean crossings (FGSignalFrequency).
*/
#include "bodyimpl.h"

/* The weight of a-face idx in the box's integrals (the trapezoidal rule along a): its control
   volume inside the box, half the inner cell's along a for the faces on the box's surfaces (face
   indices cvlo-1, cvhi-1); on a uniform grid 1/2 or 1 times the cell volume dV. */
static PetscReal FGBodyBoxWeight_Private(FGBodies B, const FGBodyItem *it, PetscInt a, const PetscInt idx[])
{
  FGGrid    g    = B->g;
  PetscBool surf = (PetscBool)(!it->cvwhole[a] && (idx[a] == it->cvlo[a] - 1 || idx[a] == it->cvhi[a] - 1));
  PetscReal v    = 1;

  if (g->isuniform) return (surf ? 0.5 : 1.0) * B->dV;
  for (PetscInt d = 0; d < g->dim; d++) {
    if (d != a) v *= FGGridWidth(g, FG_LOC_CELL, d, idx[d]);
    else if (!surf) v *= FGGridWidth(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]);
    else v *= 0.5 * g->ax[d].dxf[idx[d] == it->cvlo[d] - 1 ? idx[d] + 1 : idx[d]];
  }
  return v;
}

/* Momentum sum_box u_a dV of component a (local part), the trapezoidal rule along a. */
static PetscErrorCode FGBodyBoxMomentum_Private(FGBodies B, const FGBodyItem *it, Vec u[], PetscReal M[3])
{
  FGGrid       g  = B->g;
  const FGBox *bx = &g->box;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *ua;
    PetscInt           lo[3], hi[3];
    M[a] = 0;
    for (PetscInt d = 0; d < 3; d++) {
      PetscBool surf = (PetscBool)(d == a && !it->cvwhole[d]);
      lo[d]          = PetscMax(it->cvlo[d] - (surf ? 1 : 0), bx->lo[d]);
      hi[d]          = PetscMin(it->cvhi[d], bx->hi[d]);
    }
    PetscCall(VecGetArrayRead(u[a], &ua));
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) {
          const PetscInt  idx[3] = {i, j, k};
          M[a] += ua[FGBoxOwnedIndex(bx, i, j, k)] * FGBodyBoxWeight_Private(B, it, a, idx);
        }
    PetscCall(VecRestoreArrayRead(u[a], &ua));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesControlVolumeBegin - fix each body's control volume for the step about to be taken
  (the box around the body placed at t, the step's start) and note the momentum in it of the
  state u (global Vecs). FGBodiesControlVolumeEnd() after the step gives the balance.
@*/
PetscErrorCode FGBodiesControlVolumeBegin(FGBodies B, PetscReal t, Vec u[])
{
  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem *it = &B->b[b];
    PetscCall(FGBodyPlace_Internal(B, it, t));
    for (PetscInt d = 0; d < 3; d++) it->cvlo[d] = it->boxlo[d], it->cvhi[d] = it->boxhi[d], it->cvwhole[d] = it->boxwhole[d];
    PetscCall(FGBodyBoxMomentum_Private(B, it, u, it->cv0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesControlVolumeEnd - the control-volume force on each body's box after the step (see the
  file's comment), into FGBodyForces.cv_force. Collective.

  Input Parameters:
+ B     - the bodies
. t     - the time at the step's end
. dt    - the step just taken
. nu    - viscosity
. act   - the actuators' force amplitudes in time (the solver's parameters, FGParamsActuators)
. u     - velocity at the step's end (global Vecs; the start's momentum is from FGBodiesControlVolumeBegin())
. ul    - the same, ghosted with boundary values (FGSolverFillGhosts)
- pl    - pressure at its end, ghosted (DMGlobalToLocal)
  (the constant flow.force enters as f V_box, the actuators as sum_box f dV)
@*/
PetscErrorCode FGBodiesControlVolumeEnd(FGBodies B, PetscReal t, PetscReal dt, PetscReal nu, const PetscReal act[], Vec u[], Vec ul[], Vec pl)
{
  FGGrid             g  = B->g;
  const FGBox       *bx = &g->box;
  const PetscInt     dim = g->dim;
  const PetscScalar *U[3], *P;
  PetscReal          buf[3 * FG_CASE_MAX_BODIES];

  PetscFunctionBeginUser;
  if (!B || !B->nb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_BodyControlVolume, 0, 0, 0, 0));
  for (PetscInt a = 0; a < dim; a++) PetscCall(VecGetArrayRead(ul[a], &U[a]));
  PetscCall(VecGetArrayRead(pl, &P));
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem *it = &B->b[b];
    PetscReal   M1[3] = {0, 0, 0}, flux[3] = {0, 0, 0};
    PetscCall(FGBodyBoxMomentum_Private(B, it, u, M1));
    /* surface fluxes: faces normal to d at face index cvlo[d]-1 (outward -e_d) and cvhi[d]-1 (+e_d) */
    for (PetscInt d = 0; d < dim; d++) {
      const FGAxis *ax = &g->ax[d];
      if (it->cvwhole[d]) continue;
      for (PetscInt side = 0; side < 2; side++) {
        const PetscInt  fi  = side ? it->cvhi[d] - 1 : it->cvlo[d] - 1;
        const PetscReal sgn = side ? 1.0 : -1.0;
        PetscInt        lo[3], hi[3];
        if (fi < bx->lo[d] || fi >= bx->hi[d]) continue;
        for (PetscInt e = 0; e < 3; e++) lo[e] = PetscMax(it->cvlo[e], bx->lo[e]), hi[e] = PetscMin(it->cvhi[e], bx->hi[e]);
        lo[d] = fi, hi[d] = fi + 1;
        for (PetscInt k = lo[2]; k < hi[2]; k++)
          for (PetscInt j = lo[1]; j < hi[1]; j++)
            for (PetscInt i = lo[0]; i < hi[0]; i++) {
              const PetscInt  idx[3] = {i, j, k}, c = FGBoxIndex(bx, i, j, k), sd = bx->s[d];
              const PetscReal un     = U[d][c];
              PetscReal       dA = 1, wl = 0.5, pf; /* the face's area; the weight of the lower centre in the interpolation to it */
              if (g->isuniform) dA = B->dV / g->h[d];
              else {
                for (PetscInt e = 0; e < dim; e++)
                  if (e != d) dA *= FGGridWidth(g, FG_LOC_CELL, e, idx[e]);
                if (!g->uniform[d]) wl = 0.5 * ax->dxf[fi + 1] * ax->idxc[fi];
              }
              pf = wl * P[c] + (1 - wl) * P[c + sd];
              for (PetscInt a = 0; a < dim; a++) {
                PetscReal ua, dua;
                if (a == d) {
                  ua  = un;
                  dua = g->uniform[d] ? (U[d][c + sd] - U[d][c - sd]) / (2 * g->h[d]) : (U[d][c + sd] - U[d][c - sd]) / (ax->xf[fi + 1] - ax->xf[fi - 1]);
                } else {
                  const PetscInt sa = bx->s[a];
                  if (g->uniform[d]) {
                    ua  = 0.25 * (U[a][c] + U[a][c + sd] + U[a][c - sa] + U[a][c + sd - sa]);
                    dua = 0.5 * ((U[a][c + sd] - U[a][c]) + (U[a][c + sd - sa] - U[a][c - sa])) / g->h[d];
                  } else {
                    ua  = 0.5 * (wl * (U[a][c] + U[a][c - sa]) + (1 - wl) * (U[a][c + sd] + U[a][c + sd - sa]));
                    dua = 0.5 * ((U[a][c + sd] - U[a][c]) + (U[a][c + sd - sa] - U[a][c - sa])) * ax->idxc[fi];
                  }
                }
                flux[a] += sgn * (ua * un + (a == d ? pf : 0.0) - nu * dua) * dA;
              }
            }
      }
    }
    /* body-force actuators: sum_box f dV (trapezoidal along a, as the momentum) */
    for (PetscInt n = 0; n < B->c->nactuators; n++)
      for (PetscInt a = 0; a < dim; a++) {
        PetscInt lo[3], hi[3];
        for (PetscInt d = 0; d < 3; d++) {
          lo[d] = PetscMax(it->cvlo[d] - (d == a && !it->cvwhole[d] ? 1 : 0), bx->lo[d]);
          hi[d] = PetscMin(it->cvhi[d], bx->hi[d]);
        }
        for (PetscInt k = lo[2]; k < hi[2]; k++)
          for (PetscInt j = lo[1]; j < hi[1]; j++)
            for (PetscInt i = lo[0]; i < hi[0]; i++) {
              const PetscInt idx[3] = {i, j, k};
              PetscReal      x[3]   = {0, 0, 0}, w;
              for (PetscInt d = 0; d < dim; d++) x[d] = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]);
              w = FGBodyBoxWeight_Private(B, it, a, idx);
              { /* the amplitude at t from the controls' basis */
                FGActuatorCase ac = B->c->actuator[n];
                ac.force[a]       = FGActuatorAmplitude(act, PetscMax(B->c->design.time_basis, 1), (PetscReal)B->c->time.steps * B->c->time.dt, n, a, t);
                flux[a] -= FGActuatorValue(&ac, dim, a, x, t) * w;
              }
            }
      }
    for (PetscInt a = 0; a < dim; a++) buf[3 * b + a] = -(M1[a] - it->cv0[a]) / dt - flux[a];
    for (PetscInt a = dim; a < 3; a++) buf[3 * b + a] = 0;
  }
  PetscCall(VecRestoreArrayRead(pl, &P));
  for (PetscInt a = 0; a < dim; a++) PetscCall(VecRestoreArrayRead(ul[a], &U[a]));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, buf, (PetscMPIInt)(3 * B->nb), MPIU_REAL, MPIU_SUM, g->comm));
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem *it   = &B->b[b];
    PetscReal   ncell = 1, vbox = 1;
    for (PetscInt d = 0; d < dim; d++) {
      ncell *= (PetscReal)(it->cvhi[d] - it->cvlo[d]);
      vbox *= g->ax[d].xf[it->cvhi[d] - 1] - g->ax[d].xf[it->cvlo[d] - 1];
    }
    if (g->isuniform) vbox = ncell * B->dV;
    for (PetscInt a = 0; a < 3; a++) it->out.cv_force[a] = buf[3 * b + a] + (a < dim ? B->c->flow.force[a] * vbox : 0);
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_BodyControlVolume, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSignalFrequency - the dominant frequency of an oscillating signal y(t) from its upward
  crossings of its mean, both taken over the second half of the samples (the first half is a
  transient); 0 when that half has fewer than 3 crossings or a peak-to-peak amplitude below 2e-4
  (a steady signal: round-off wiggles are no oscillation).

  Not Collective

  Input Parameters:
+ n - number of samples
. t - increasing times
- y - values

  Output Parameter:
. f - (crossings - 1) / (time between the first and the last crossing), crossing times
      interpolated linearly
@*/
PetscErrorCode FGSignalFrequency(PetscInt n, const PetscReal t[], const PetscReal y[], PetscReal *f)
{
  PetscInt  i0 = n / 2, nc = 0;
  PetscReal m = 0, lo = PETSC_MAX_REAL, hi = PETSC_MIN_REAL, tfirst = 0, tlast = 0;

  PetscFunctionBeginUser;
  *f = 0;
  if (n - i0 < 4) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = i0; i < n; i++) {
    m += y[i];
    lo = PetscMin(lo, y[i]);
    hi = PetscMax(hi, y[i]);
  }
  m /= (PetscReal)(n - i0);
  if (hi - lo < 2e-4) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = i0; i + 1 < n; i++)
    if (y[i] < m && y[i + 1] >= m) {
      PetscReal tc = t[i] + (m - y[i]) / (y[i + 1] - y[i]) * (t[i + 1] - t[i]);
      if (!nc) tfirst = tc;
      tlast = tc;
      nc++;
    }
  if (nc >= 3 && tlast > tfirst) *f = (PetscReal)(nc - 1) / (tlast - tfirst);
  PetscFunctionReturn(PETSC_SUCCESS);
}
