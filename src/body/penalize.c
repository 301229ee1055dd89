/*
  Bodies: the Brinkman penalization of a stage, its forces, its tangent and its adjoint
  (include/fg/body.h).

  Penalization in a stage (t = the stage's end time, g dt its weight):
    K_a = sum_b chi_b/eta_b,  S_a = sum_b (chi_b/eta_b) u_s,b     (sparse, then dense work Vecs)
    u_a <- (u_a + g dt (S_a + E_a)) / (1 + g dt K_a)              (every owned face: exact where K = 0)
    F_b += g sum_faces ((chi_b/eta_b)(u_a - u_s,b,a) - E_b,a) dV  (the stage's force, weight g)
  E is a sharp wall's quadratic ghosts' explicit term (0 without them; FGBodyGhostQ_Private), from
  the stage's start velocity.
  Overlapping bodies are penalized jointly (one implicit solve per face). The step's force is the
  sum over its stages (FGBodiesResetForces at its start, FGBodiesReduceForces at its end).

  Body velocity:  u_s = V(t) + Omega(t) e_z x (x - x_c(t)) + sum_j A_j(t) f_j(x) n(x)
    (x_c, V, Omega: src/body/motion.c)
    jets: f_j = c_j(psi) w(phi), psi the polar angle of x about x_c in the body frame,
          c_j = cos^2(pi (psi - psi_j)/W) for |psi - psi_j| < W/2 (W = jet_width), else 0,
          w = (1 - ((phi + delta)/eps)^2)^2 in the band (1 at its centre, 0 off it),
          n = grad phi/|grad phi|, A_j(t) = jet_amplitude_j (jet_frequency 0) or times cos(2 pi f_j t).
  The jets live in the smoothing band only, so their velocity has no divergence deep in the body.

  Linearization: chi and u_s of every listed face with respect to theta_b (FGBodyFaceLinearize_Internal),
  shared by the tangent (FGBodiesPenalizeTangent) and its transpose (FGBodiesPenalizeAdjoint),
  which follow the forward function here.
*/
#include "bodyimpl.h"

/*@C
  FGBodiesResetForces - zero the step's force and moment accumulators (the step's start).
@*/
PetscErrorCode FGBodiesResetForces(FGBodies B)
{
  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < B->nb; b++) PetscCall(PetscArrayzero(B->b[b].acc, 6));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Quadratic ghosts (a sharp wall's body.<body>.quadratic_ghost; FGBodySharpGhostXi_Internal): the
   explicit term of listed face f, from the stage's start velocity ula (ghosted, component a),
   E = (1 - chi) Q, Q = sum_k xi_k (u_ff,k - u_s): it joins S in the implicit update,
   u** = (u* + gdt (S + E))/(1 + gdt K), and the force is the momentum removed,
   (chi/eta (u** - u_s) - E) dV. The factor 1 - chi takes it to 0 at the surface (chi -> 1), so
   that it vanishes continuously as the face enters the body. Also returns xi, its derivatives,
   the next faces' local indices and m_k = u_ff,k - u_s (the weights of xi's derivatives). */
static PetscReal FGBodyGhostQ_Private(FGBodies B, const FGBodyItem *it, PetscInt a, PetscInt f, const PetscScalar *ula, PetscReal xi[6], PetscReal dxf[6], PetscReal dxn[6], PetscInt ffl[6], PetscReal mk[6])
{
  PetscReal Q = 0;

  for (PetscInt k = 0; k < 6; k++) {
    FGBodySharpGhostXi_Internal(B, it, a, f, k, &xi[k], &dxf[k], &dxn[k], &ffl[k]);
    mk[k] = ffl[k] >= 0 ? PetscRealPart(ula[ffl[k]]) - it->f[a].us[f] : 0;
    Q += xi[k] * mk[k];
  }
  return Q;
}

static PetscReal FGBodyGhostE_Private(FGBodies B, const FGBodyItem *it, PetscInt a, PetscInt f, const PetscScalar *ula)
{
  PetscReal xi[6], dxf[6], dxn[6], mk[6];
  PetscInt  ffl[6];

  return (1 - it->f[a].chi[f]) * FGBodyGhostQ_Private(B, it, a, f, ula, xi, dxf, dxn, ffl, mk);
}

/* The explicit ghost term E of listed face f: the quadratic ghosts' (from ula), or the shared
   ghost's (ghost.c; Ega: X u_l, computed once per component by FGBodiesGhostAddS_Private), or 0. */
static PetscReal FGBodyGhostTerm_Private(FGBodies B, const FGBodyItem *it, PetscInt a, PetscInt f, const PetscScalar *ula, const PetscScalar *Ega)
{
  if (!ula) return 0;
  if (it->bc->quadratic_ghost) return FGBodyGhostE_Private(B, it, a, f, ula);
  if (it->bc->shared_ghost && Ega) return PetscRealPart(Ega[it->f[a].off[f]]);
  return 0;
}

/* S += E on the faces with quadratic ghosts (ul NULL: none), and the shared ghost's term X u_l
   on every face (into B->Eg[a] too: FGBodyGhostTerm_Private reads it). */
static PetscErrorCode FGBodiesGhostAddS_Private(FGBodies B, PetscInt a, Vec ul[])
{
  const PetscScalar *ula;
  PetscScalar       *S;

  PetscFunctionBeginUser;
  if (!B->ghost || !ul) PetscFunctionReturn(PETSC_SUCCESS);
  if (B->shared) {
    PetscCall(FGBodiesSharedGhostApply_Internal(B, a, ul[a], B->Eg[a]));
    PetscCall(VecAXPY(B->S[a], 1.0, B->Eg[a]));
  }
  PetscCall(VecGetArrayRead(ul[a], &ula));
  PetscCall(VecGetArray(B->S[a], &S));
  for (PetscInt b = 0; b < B->nb; b++) {
    const FGBodyItem *it = &B->b[b];
    if (!it->bc->quadratic_ghost) continue;
    for (PetscInt f = 0; f < it->f[a].n; f++) S[it->f[a].off[f]] += FGBodyGhostE_Private(B, it, a, f, ula);
  }
  PetscCall(VecRestoreArray(B->S[a], &S));
  PetscCall(VecRestoreArrayRead(ul[a], &ula));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesPenalize - the implicit penalization of one RK3 stage, u <- (u + g dt S)/(1 + g dt K),
  and the stage's force, weighted by g, added to each body's step force.

  Input Parameters:
+ B     - the bodies
. t     - the stage's end time (body position and velocity)
. gamma - the stage's weight alpha_k + beta_k
. dt    - the step
. ul    - the stage's start velocity (ghosted local Vecs: the quadratic ghosts' explicit term; NULL: none)
- u     - the predicted velocity (global Vecs), penalized in place
@*/
PetscErrorCode FGBodiesPenalize(FGBodies B, PetscReal t, PetscReal gamma, PetscReal dt, Vec ul[], Vec u[])
{
  const PetscInt  dim = B->g->dim;
  const PetscReal gdt = gamma * dt;

  PetscFunctionBeginUser;
  if (!B || !B->nb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_BodyPenalize, 0, 0, 0, 0));
  for (PetscInt b = 0; b < B->nb; b++)
    PetscCall(FGBodyPlace_Internal(B, &B->b[b], t));
  if (B->normal) { /* the tensor with the normal part: a coupled update (normal.c) */
    PetscCall(FGBodiesPenalizeNormal_Internal(B, t, gamma, dt, u));
    PetscCall(PetscLogEventEnd(FG_EVENT_BodyPenalize, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt a = 0; a < dim; a++) {
    PetscScalar       *K, *S, *ua;
    const PetscScalar *ula = NULL, *Ega = NULL;
    PetscInt           nloc;
    /* 1. K and S (with the ghosts' explicit term), and u_s of each listed face */
    PetscCall(FGBodiesKS_Internal(B, a, t));
    PetscCall(FGBodiesGhostAddS_Private(B, a, ul));
    if (B->ghost && ul) PetscCall(VecGetArrayRead(ul[a], &ula));
    if (B->shared && ul) PetscCall(VecGetArrayRead(B->Eg[a], &Ega));
    PetscCall(VecGetArray(B->K[a], &K));
    PetscCall(VecGetArray(B->S[a], &S));
    /* 2. the implicit update (where K = 0 it leaves u as it is, exactly) */
    PetscCall(VecGetLocalSize(u[a], &nloc));
    PetscCall(VecGetArray(u[a], &ua));
    for (PetscInt i = 0; i < nloc; i++) ua[i] = (ua[i] + gdt * S[i]) / (1 + gdt * K[i]);
    /* 3. the stage force and moment on each body */
    for (PetscInt b = 0; b < B->nb; b++) {
      FGBodyItem *it = &B->b[b];
      FGFaceList *l  = &it->f[a];
      PetscReal   xc[3], V[3], th, om, F = 0, M[3] = {0, 0, 0};
      FGBodyState_Internal(it, dim, t, xc, V, &th, &om);
      for (PetscInt f = 0; f < l->n; f++) {
        const PetscReal *x  = l->x + 3 * f;
        const PetscReal  E  = FGBodyGhostTerm_Private(B, it, a, f, ula, Ega);
        const PetscReal  fa = (l->chi[f] / it->bc->eta * (ua[l->off[f]] - l->us[f]) - E) * l->vol[f];
        F += fa;
        /* M = r x F, r = x - x_c, F along a */
        for (PetscInt m = 0; m < 3; m++) {
          PetscInt i1 = (m + 1) % 3, i2 = (m + 2) % 3; /* M_m = r_i1 F_i2 - r_i2 F_i1 */
          if (a == i2) M[m] += (x[i1] - xc[i1]) * fa;
          if (a == i1) M[m] -= (x[i2] - xc[i2]) * fa;
        }
      }
      it->acc[a] += gamma * F;
      for (PetscInt m = 0; m < 3; m++) it->acc[3 + m] += gamma * M[m];
    }
    PetscCall(VecRestoreArray(u[a], &ua));
    PetscCall(VecRestoreArray(B->S[a], &S));
    PetscCall(VecRestoreArray(B->K[a], &K));
    if (ula) PetscCall(VecRestoreArrayRead(ul[a], &ula));
    if (Ega) PetscCall(VecRestoreArrayRead(B->Eg[a], &Ega));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_BodyPenalize, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetPenalty - the penalization's coefficients at time t, K_a = sum_b chi_b/eta_b and
  S_a = sum_b (chi_b/eta_b) u_s,b on every owned face (global Vecs, overwritten): the steady
  momentum balance carries -(K u - S) (src/adjoint/steady_pc.c). K and S are 0 without bodies.
  A normal band (normal.c) is not in them: the preconditioner's Jacobian leaves it out.
@*/
PetscErrorCode FGBodiesGetPenalty(FGBodies B, PetscReal t, Vec K[], Vec S[])
{
  PetscFunctionBeginUser;
  if (!B || !B->nb) {
    for (PetscInt a = 0; B && a < B->g->dim; a++) {
      PetscCall(VecSet(K[a], 0.0));
      PetscCall(VecSet(S[a], 0.0));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt b = 0; b < B->nb; b++) PetscCall(FGBodyPlace_Internal(B, &B->b[b], t));
  for (PetscInt a = 0; a < B->g->dim; a++) {
    PetscCall(FGBodiesKS_Internal(B, a, t));
    PetscCall(VecCopy(B->K[a], K[a]));
    PetscCall(VecCopy(B->S[a], S[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetPenaltyRead - K_a = sum_b chi_b/eta_b at time t, read-only, for every component (NULL
  without bodies; FGBodiesRestorePenaltyRead gives them back). Allocates nothing: the monitor's
  CFL number reads it every step (src/solver/solver.c).
@*/
PetscErrorCode FGBodiesGetPenaltyRead(FGBodies B, PetscReal t, const PetscScalar *K[])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < 3; a++) K[a] = NULL;
  if (!B || !B->nb) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt b = 0; b < B->nb; b++) PetscCall(FGBodyPlace_Internal(B, &B->b[b], t));
  for (PetscInt a = 0; a < B->g->dim; a++) {
    PetscCall(FGBodiesKS_Internal(B, a, t));
    PetscCall(VecGetArrayRead(B->K[a], &K[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGBodiesRestorePenaltyRead(FGBodies B, const PetscScalar *K[])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; B && B->nb && a < B->g->dim; a++) PetscCall(VecRestoreArrayRead(B->K[a], &K[a]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesReduceForces - reduce the step's forces and moments (one MPI_Allreduce), form the
  coefficients (the step's end). Collective.
@*/
PetscErrorCode FGBodiesReduceForces(FGBodies B)
{
  PetscReal buf[6 * FG_CASE_MAX_BODIES];

  PetscFunctionBeginUser;
  if (!B || !B->nb) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt b = 0; b < B->nb; b++) PetscCall(PetscArraycpy(buf + 6 * b, B->b[b].acc, 6));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, buf, (PetscMPIInt)(6 * B->nb), MPIU_REAL, MPIU_SUM, B->g->comm));
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem      *it = &B->b[b];
    const PetscReal  q  = 0.5 * it->bc->ref_speed * it->bc->ref_speed * it->bc->ref_area;
    for (PetscInt d = 0; d < 3; d++) {
      it->out.force[d]  = buf[6 * b + d];
      it->out.moment[d] = buf[6 * b + 3 + d];
      it->out.coeff[d]  = it->out.force[d] / q;
    }
    it->out.cm = it->out.moment[2] / (q * it->bc->ref_length);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGBodiesGetForces(FGBodies B, PetscInt b, FGBodyForces *f)
{
  PetscFunctionBeginUser;
  *f = B->b[b].out;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   The linearized penalization: tangent and adjoint */


/* chi and u_s (component a) of listed face f of body it at time t (the body placed at t), and
   their derivatives with respect to theta_b (dchi, dus of FG_BODY_NTHETA entries). The rotation
   enters through Omega(t) = sum_k c_k phi_k(t) (the rigid velocity) and through the angle
   int_0^t Omega = sum_k c_k Phi_k(t) (a non-round mask, the jets' footprint): each coefficient c_k
   gets phi_k(t) times the first part and Phi_k(t) times the second. */
/* A body's motion and the controls' basis at time t (FGBodyState_Internal, FGTimeBasis), once for
   all its faces. */
void FGBodyAt_Internal(const FGBodyItem *it, PetscInt dim, PetscReal t, FGBodyAt *at)
{
  FGBodyState_Internal(it, dim, t, at->xc, at->V, &at->th, &at->om);
  FGTimeBasis(it->nbasis, it->T, t, at->bphi, at->bPhi);
}

/* at: the body at t (FGBodyAt_Internal). phi and grad phi are the face list's (the same evaluation
   at the same placement); d phi/d theta is evaluated only where something multiplies it: in the
   band of chi (H' != 0) or of the jets. Elsewhere every term it enters is a product with an exact
   zero, so it is left 0. With mk (quadratic ghosts; NULL: none), dxi = sum_k mk[k] d xi_k/d theta
   (FGBodySharpGhostXi_Internal), through phi at the face and at its neighbours inside. */
PetscErrorCode FGBodyFaceLinearize_Internal(FGBodies B, FGBodyItem *it, PetscInt a, PetscInt f, PetscReal t, const FGBodyAt *at, const PetscReal *mk, PetscReal *dxi, PetscReal *dchi, PetscReal *dus)
{
  const FGBodyCase *bc = it->bc;
  const PetscInt    dim = B->g->dim, np = it->np, nj = bc->n_jets, nb = it->nbasis, nt = FG_BODY_NTHETA(it);
  const PetscReal  *x   = it->f[a].x + 3 * f, *G = it->f[a].geo + FG_FACE_GEO * f;
  const PetscReal   sa  = it->airfoil ? -1.0 : 1.0; /* d(shape angle)/d(theta), theta the rotation angle */
  const PetscReal  *xc = at->xc, th = at->th, om = at->om, *bphi = at->bphi, *bPhi = at->bPhi;
  PetscReal         phi = G[0], gx[3] = {G[1], G[2], G[3]}, gp[FG_SHAPE_MAX_PARAMS] = {0}, dH = G[4];
  PetscReal         chi_th, us_om = 0, us_th = 0, xi_th = 0; /* d chi / d theta, d u_s / d Omega, d u_s / d theta, d xi / d theta */
  PetscBool         ghost = PETSC_FALSE;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; mk && k < 2 * dim; k++)
    if (G[FG_GEO_QPN + k] != 0) ghost = PETSC_TRUE;
  if (dH != 0 || ghost || (nj && PetscAbsReal((phi + it->shift) / it->eps) < 1)) PetscCall(FGShapeLevelSet(it->shape, x, &phi, gx, gp));
  else
    for (PetscInt k = 0; k < np; k++) gp[k] = 0;
  for (PetscInt i = 0; i < nt; i++) dchi[i] = dus[i] = 0;
  if (dxi)
    for (PetscInt i = 0; i < nt; i++) dxi[i] = 0;
  for (PetscInt k = 0; k < np; k++) dchi[k] = -dH * gp[k];
  chi_th = -dH * gp[dim] * sa; /* the shape angle is angle0 + sa theta(t) */
  if (it->bc->shared_ghost) FGBodySharedGhostDchi_Internal(it, a, f, dchi); /* through the level set at its points (ghost.c; a body at rest) */
  if (it->sharp && (dH != 0 || ghost)) { /* a sharp wall: chi (and xi) depend on phi at the neighbours inside too (mask.c) */
    const PetscInt idx[3] = {(PetscInt)G[FG_GEO_SHARP_IDX], (PetscInt)G[FG_GEO_SHARP_IDX + 1], (PetscInt)G[FG_GEO_SHARP_IDX + 2]};
    for (PetscInt d = 0; d < dim; d++)
      for (PetscInt side = 0; side < 2; side++) {
        const PetscInt  kk = 2 * d + side;
        const PetscReal c  = G[FG_GEO_SHARP_DNB + kk];
        PetscReal       y[3], pn, gy[3], gq[FG_SHAPE_MAX_PARAMS], xi = 0, dxf = 0, dxn = 0;
        PetscInt        ffl;
        if (ghost) FGBodySharpGhostXi_Internal(B, it, a, f, kk, &xi, &dxf, &dxn, &ffl);
        if (c == 0 && dxf == 0 && dxn == 0) continue;
        FGBodySharpNeighbour_Internal(B->g, a, idx, d, 2 * side - 1, x, y);
        PetscCall(FGShapeLevelSet(it->shape, y, &pn, gy, gq));
        for (PetscInt k = 0; k < np; k++) dchi[k] += c * gq[k];
        chi_th += c * gq[dim] * sa;
        if (ghost) { /* xi_kk through phi at the face and at this neighbour */
          for (PetscInt k = 0; k < np; k++) dxi[k] += mk[kk] * (dxf * gp[k] + dxn * gq[k]);
          xi_th += mk[kk] * (dxf * gp[dim] + dxn * gq[dim]) * sa;
        }
      }
  }
  /* rigid rotation Omega e_z x (x - x_c): d/d Omega, d/d x_c */
  if (a == 0) us_om = -(x[1] - xc[1]), dus[1] = om;
  if (a == 1) us_om = x[0] - xc[0], dus[0] = -om;
  if (nj) {
    const PetscReal W = bc->jet_width * PETSC_PI / 180, sig = FGJetSignal_Internal(bc, t);
    const PetscReal r = (phi + it->shift) / it->eps, inband = PetscAbsReal(r) < 1 ? 1.0 : 0.0;
    const PetscReal w = inband * (1 - r * r) * (1 - r * r), dw = inband * (-4 * r * (1 - r * r) / it->eps); /* d w / d phi */
    const PetscReal thb = it->airfoil ? -(it->angle0 - th) : it->angle0 + th; /* body-frame angle */
    const PetscReal rx = x[0] - xc[0], ry = x[1] - xc[1], rr = rx * rx + ry * ry;
    const PetscReal psi = PetscAtan2Real(ry, rx) - thb;
    PetscReal       gn = 0, n[3] = {0, 0, 0}, dn[3] = {0, 0, 0}; /* n and d n_a / d x_c */
    for (PetscInt d = 0; d < dim; d++) gn += gx[d] * gx[d];
    gn = PetscSqrtReal(gn);
    for (PetscInt d = 0; d < dim; d++) n[d] = gn > 0 ? gx[d] / gn : 0;
    if (FG_JET_EXACT(it)) { /* n = (x - x_c)/|x - x_c|: d n_a / d x_c,k = -(delta_ak - n_a n_k)/|x - x_c|, over the
                               axes the level set depends on (an extruded circle in 3D: x and y only) */
      const PetscInt nd  = bc->shape == FG_BODY_CIRCLE ? 2 : dim;
      PetscReal      rho = 0;
      for (PetscInt d = 0; d < nd; d++) rho += (x[d] - xc[d]) * (x[d] - xc[d]);
      rho = PetscSqrtReal(rho);
      for (PetscInt k = 0; k < nd; k++) dn[k] = rho > 0 && a < nd ? -((a == k ? 1.0 : 0.0) - n[a] * n[k]) / rho : 0;
    }
    for (PetscInt j = 0; j < nj; j++) {
      PetscReal del = PetscFmodReal(psi - bc->jet_angles[j] * PETSC_PI / 180, 2 * PETSC_PI), c = 0, dc = 0;
      if (del > PETSC_PI) del -= 2 * PETSC_PI;
      if (del < -PETSC_PI) del += 2 * PETSC_PI;
      if (PetscAbsReal(del) < W / 2) {
        c  = PetscSqr(PetscCosReal(PETSC_PI * del / W));
        dc = -(PETSC_PI / W) * PetscSinReal(2 * PETSC_PI * del / W); /* d c / d psi */
      }
      {
        const PetscReal A = FGJetAmplitude_Internal(it, j, bphi) * sig;
        /* shape parameters through phi (band weight), the placement through psi and n, the angle through psi */
        for (PetscInt k = 0; k < np; k++) dus[k] += A * c * dw * gp[k] * n[a];
        if (rr > 0) {
          dus[0] += A * dc * (ry / rr) * w * n[a];
          dus[1] += A * dc * (-rx / rr) * w * n[a];
        }
        for (PetscInt k = 0; k < dim; k++) dus[k] += A * c * w * dn[k];
        dus[dim] += A * dc * (-(it->airfoil ? -1.0 : 1.0)) * w * n[a];
        us_th += A * dc * (-1) * w * n[a]; /* psi = atan2 - theta_b, theta_b = +-angle0 + theta */
        for (PetscInt k = 0; k < nb; k++) dus[np + nb * (1 + j) + k] += bphi[k] * sig * c * w * n[a];
      }
    }
  }
  for (PetscInt k = 0; k < nb; k++) {
    dchi[np + k] = chi_th * bPhi[k];
    dus[np + k]  = us_om * bphi[k] + us_th * bPhi[k];
    if (ghost) dxi[np + k] = xi_th * bPhi[k];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *s += chibar H'(-phi - delta) |grad phi| at x (the body placed at the current time): an outward
   normal displacement V_n of the level sets changes phi by -V_n |grad phi|, so chi by
   H' |grad phi| V_n. A sharp wall's chi depends on phi at the face's neighbours too: their part
   (G[FG_GEO_SHARP_SENS], 0 for a band) is added at the face, so the sum over the faces stays the
   derivative with respect to a uniform displacement. */

static inline void FGBodyAddSensitivity_Private(const FGFaceList *l, PetscInt f, PetscReal chibar, PetscScalar *s)
{
  const PetscReal *G = l->geo + FG_FACE_GEO * f; /* H' and |grad phi| at the face, from the list's build */

  *s += chibar * (G[4] * G[5] + G[FG_GEO_SHARP_SENS]);
}

PetscErrorCode FGBodiesWork_Internal(FGBodies B)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < B->g->dim; a++)
    if (!B->W[a]) {
      PetscCall(VecDuplicate(B->K[a], &B->W[a]));
      PetscCall(VecDuplicate(B->K[a], &B->Z[a]));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* K and S of component a at time t into B->K[a], B->S[a] (and each listed face's u_s). */
PetscErrorCode FGBodiesKS_Internal(FGBodies B, PetscInt a, PetscReal t)
{
  const PetscInt dim = B->g->dim;
  PetscScalar   *K, *S;

  PetscFunctionBeginUser;
  PetscCall(VecSet(B->K[a], 0.0));
  PetscCall(VecSet(B->S[a], 0.0));
  PetscCall(VecGetArray(B->K[a], &K));
  PetscCall(VecGetArray(B->S[a], &S));
  for (PetscInt b = 0; b < B->nb; b++) {
    const FGBodyCase *bc = B->b[b].bc;
    FGFaceList       *l  = &B->b[b].f[a];
    PetscReal         xc[3], V[3], th, om, A[FG_CASE_MAX_JETS];
    FGBodyState_Internal(&B->b[b], dim, t, xc, V, &th, &om);
    {
      PetscReal phi[FG_MAX_TIME_BASIS], Phi[FG_MAX_TIME_BASIS];
      FGTimeBasis(B->b[b].nbasis, B->b[b].T, t, phi, Phi);
      for (PetscInt j = 0; j < bc->n_jets; j++) A[j] = FGJetAmplitude_Internal(&B->b[b], j, phi) * FGJetSignal_Internal(bc, t);
    }
    for (PetscInt f = 0; f < l->n; f++) {
      const PetscReal *x = l->x + 3 * f, k = l->chi[f] / bc->eta;
      PetscReal        us = V[a] + (a == 0 ? -om * (x[1] - xc[1]) : a == 1 ? om * (x[0] - xc[0]) : 0.0);
      for (PetscInt j = 0; j < bc->n_jets; j++) us += A[j] * l->jet[bc->n_jets * f + j] * l->nrm[3 * f + a];
      l->us[f] = us;
      K[l->off[f]] += k;
      S[l->off[f]] += k * us;
    }
  }
  PetscCall(VecRestoreArray(B->K[a], &K));
  PetscCall(VecRestoreArray(B->S[a], &S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The quadratic ghosts' term E of listed face f (FGBodyGhostQ_Private) and its tangent: the state's
   part through dula (the stage's start perturbation, ghosted; NULL: none), the design's through
   dth (NULL: none): chi's and u_s's perturbations dc and du_s, and xi's. */
static PetscErrorCode FGBodyGhostTangent_Private(FGBodies B, FGBodyItem *it, PetscInt a, PetscInt f, PetscReal t, const FGBodyAt *at, const PetscScalar *ula, const PetscScalar *dula, const PetscReal *dth, PetscReal dc, PetscReal du_s, PetscReal *E, PetscReal *dE)
{
  const PetscReal chi = it->f[a].chi[f];
  const PetscInt  nt  = FG_BODY_NTHETA(it);
  PetscReal       xi[6], dxf[6], dxn[6], mk[6], Q, dQ = 0;
  PetscInt        ffl[6];

  PetscFunctionBeginUser;
  Q = FGBodyGhostQ_Private(B, it, a, f, ula, xi, dxf, dxn, ffl, mk);
  for (PetscInt k = 0; k < 6; k++)
    if (ffl[k] >= 0) dQ += xi[k] * ((dula ? PetscRealPart(dula[ffl[k]]) : 0) - du_s);
  if (dth && nt) {
    PetscReal dxi[FG_BODY_MAX_PARAMS], dchi[FG_BODY_MAX_PARAMS], dus[FG_BODY_MAX_PARAMS];
    PetscCall(FGBodyFaceLinearize_Internal(B, it, a, f, t, at, mk, dxi, dchi, dus));
    for (PetscInt i = 0; i < nt; i++) dQ += dxi[i] * dth[i];
  }
  *E  = (1 - chi) * Q;
  *dE = -dc * Q + (1 - chi) * dQ;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Its transpose for the adjoint Eb of E at listed face f: ulb (ghosted, component a; NULL: not
   wanted) += the state's part; *cbf and *usb += the parts of chi's and u_s's adjoints; thetabar
   (NULL: not wanted) += xi's design part, and *sb (NULL: not wanted) += xi's part of the
   sensitivity field (an outward displacement V_n changes phi by -V_n |grad phi|, at the face and
   at its neighbours inside). */
static PetscErrorCode FGBodyGhostAdjoint_Private(FGBodies B, FGBodyItem *it, PetscInt a, PetscInt f, PetscReal t, const FGBodyAt *at, const PetscScalar *ula, PetscReal Eb, PetscScalar *ulb, PetscReal *thetabar, PetscReal *cbf, PetscReal *usb, PetscScalar *sb)
{
  const PetscReal  chi = it->f[a].chi[f], w = Eb * (1 - chi);
  const PetscReal *G   = it->f[a].geo + FG_FACE_GEO * f;
  const PetscInt   nt  = FG_BODY_NTHETA(it);
  PetscReal        xi[6], dxf[6], dxn[6], mk[6], Q;
  PetscInt         ffl[6];

  PetscFunctionBeginUser;
  Q = FGBodyGhostQ_Private(B, it, a, f, ula, xi, dxf, dxn, ffl, mk);
  *cbf -= Eb * Q;
  for (PetscInt k = 0; k < 6; k++) {
    if (ffl[k] < 0) continue;
    if (ulb) ulb[ffl[k]] += w * xi[k];
    *usb -= w * xi[k];
    if (sb) *sb -= w * mk[k] * (dxf[k] * G[5] + dxn[k] * G[FG_GEO_QGN + k]);
  }
  if (thetabar && nt) {
    PetscReal dxi[FG_BODY_MAX_PARAMS], dchi[FG_BODY_MAX_PARAMS], dus[FG_BODY_MAX_PARAMS];
    PetscCall(FGBodyFaceLinearize_Internal(B, it, a, f, t, at, mk, dxi, dchi, dus));
    for (PetscInt i = 0; i < nt; i++) thetabar[i] += w * dxi[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesPenalizeTangent - the tangent of FGBodiesPenalize at the predicted velocity ustar (its
  input, global Vecs): du holds d(u*) on entry and d(u**) on return, for the parameter
  perturbations dtheta[b] (theta_b layout; NULL: none; read only) and, for density bodies,
  dchif[b][a] (the perturbation of the face mask of component a; NULL: none). With dacc non-NULL,
  dacc[6 b + m] += the stage's (gamma-weighted, local) force and moment perturbations. ul and dul
  (ghosted local Vecs; NULL: none) are the stage's start velocity and its perturbation, which the
  quadratic ghosts' explicit term reads.
@*/
PetscErrorCode FGBodiesPenalizeTangent(FGBodies B, PetscReal t, PetscReal gamma, PetscReal dt, Vec ustar[], Vec ul[], Vec dul[], PetscReal *const dtheta[], Vec (*dchif)[3], Vec du[], PetscReal dacc[])
{
  const PetscInt  dim = B->g->dim;
  const PetscReal gdt = gamma * dt;
  PetscReal       dchi[FG_BODY_MAX_PARAMS], dus[FG_BODY_MAX_PARAMS];

  PetscFunctionBeginUser;
  if (!B || !B->nb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_BodyPenalizeTangent, 0, 0, 0, 0));
  PetscCall(FGBodiesWork_Internal(B));
  for (PetscInt b = 0; b < B->nb; b++)
    PetscCall(FGBodyPlace_Internal(B, &B->b[b], t));
  if (B->normal) {
    PetscCall(FGBodiesPenalizeTangentNormal_Internal(B, t, gamma, dt, ustar, dtheta, dchif, du, dacc));
    PetscCall(PetscLogEventEnd(FG_EVENT_BodyPenalizeTangent, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt a = 0; a < dim; a++) {
    PetscScalar       *dK, *dS, *d;
    const PetscScalar *K, *S, *us0, *ula = NULL, *dula = NULL, *Ega = NULL, *dEga = NULL;
    PetscInt           nloc;
    PetscCall(FGBodiesKS_Internal(B, a, t));
    PetscCall(FGBodiesGhostAddS_Private(B, a, ul));
    if (B->ghost && ul) {
      PetscCall(VecGetArrayRead(ul[a], &ula));
      if (dul) PetscCall(VecGetArrayRead(dul[a], &dula));
    }
    if (B->shared && ul) { /* the shared ghost's term X u_l and its tangent X du_l + dX u_l (ghost.c) */
      if (dul) PetscCall(FGBodiesSharedGhostApply_Internal(B, a, dul[a], B->dEg[a]));
      else PetscCall(VecSet(B->dEg[a], 0.0));
      PetscCall(FGBodiesSharedGhostTangentAdd_Internal(B, a, ul[a], dtheta, B->dEg[a]));
      PetscCall(VecGetArrayRead(B->Eg[a], &Ega));
      PetscCall(VecGetArrayRead(B->dEg[a], &dEga));
    }
    PetscCall(VecSet(B->W[a], 0.0));
    PetscCall(VecSet(B->Z[a], 0.0));
    PetscCall(VecGetArrayRead(B->K[a], &K));
    PetscCall(VecGetArrayRead(B->S[a], &S));
    PetscCall(VecGetArrayRead(ustar[a], &us0));
    PetscCall(VecGetArray(B->W[a], &dK));
    PetscCall(VecGetArray(B->Z[a], &dS));
    PetscCall(VecGetArray(du[a], &d));
    /* dK, dS, and the force perturbation (which needs u** and d(u**): done after the update) */
    for (PetscInt b = 0; b < B->nb; b++) {
      FGBodyItem        *it = &B->b[b];
      FGFaceList        *l  = &it->f[a];
      const PetscScalar *dcf = NULL;
      const PetscInt     nt  = it->dens ? 0 : FG_BODY_NTHETA(it);
      FGBodyAt           at;
      FGBodyAt_Internal(it, dim, t, &at);
      if (it->dens && dchif && dchif[b][a]) PetscCall(VecGetArrayRead(dchif[b][a], &dcf));
      for (PetscInt f = 0; f < l->n; f++) {
        PetscReal dc = 0, du_s = 0;
        if (nt && dtheta && dtheta[b]) {
          PetscCall(FGBodyFaceLinearize_Internal(B, it, a, f, t, &at, NULL, NULL, dchi, dus));
          for (PetscInt i = 0; i < nt; i++) dc += dchi[i] * dtheta[b][i], du_s += dus[i] * dtheta[b][i];
        }
        if (dcf) dc += PetscRealPart(dcf[l->off[f]]);
        dK[l->off[f]] += dc / it->bc->eta;
        dS[l->off[f]] += (dc * l->us[f] + l->chi[f] * du_s) / it->bc->eta;
        if (ula && it->bc->quadratic_ghost) {
          PetscReal E, dE;
          PetscCall(FGBodyGhostTangent_Private(B, it, a, f, t, &at, ula, dula, dtheta ? dtheta[b] : NULL, dc, du_s, &E, &dE));
          dS[l->off[f]] += dE;
        }
      }
      if (dcf) PetscCall(VecRestoreArrayRead(dchif[b][a], &dcf));
    }
    PetscCall(VecGetLocalSize(du[a], &nloc));
    if (dEga)
      for (PetscInt i = 0; i < nloc; i++) dS[i] += dEga[i];
    for (PetscInt i = 0; i < nloc; i++) {
      if (K[i] != 0) {
        const PetscReal den = 1 + gdt * K[i], uss = (us0[i] + gdt * S[i]) / den;
        d[i]                = (d[i] + gdt * dS[i] - gdt * uss * dK[i]) / den;
      } else { /* the denominator is 1 exactly: the same values without the two divisions */
        const PetscReal uss = us0[i] + gdt * S[i];
        d[i]                = d[i] + gdt * dS[i] - gdt * uss * dK[i];
      }
    }
    if (dacc)
      for (PetscInt b = 0; b < B->nb; b++) {
        FGBodyItem        *it = &B->b[b];
        FGFaceList        *l  = &it->f[a];
        const PetscScalar *dcf = NULL;
        const PetscInt     nt  = it->dens ? 0 : FG_BODY_NTHETA(it);
        PetscReal          xc[3], V[3], th, om;
        FGBodyAt           at;
        FGBodyState_Internal(it, dim, t, xc, V, &th, &om);
        FGBodyAt_Internal(it, dim, t, &at);
        if (it->dens && dchif && dchif[b][a]) PetscCall(VecGetArrayRead(dchif[b][a], &dcf));
        for (PetscInt f = 0; f < l->n; f++) {
          const PetscInt   o   = l->off[f];
          const PetscReal *x   = l->x + 3 * f;
          const PetscReal  uss = (us0[o] + gdt * S[o]) / (1 + gdt * K[o]), eta = it->bc->eta;
          PetscReal        dc = 0, du_s = 0, dxc[3] = {0, 0, 0}, fa, dfa;
          if (nt && dtheta && dtheta[b]) {
            PetscCall(FGBodyFaceLinearize_Internal(B, it, a, f, t, &at, NULL, NULL, dchi, dus));
            for (PetscInt i = 0; i < nt; i++) dc += dchi[i] * dtheta[b][i], du_s += dus[i] * dtheta[b][i];
            for (PetscInt k = 0; k < dim; k++) dxc[k] = dtheta[b][k];
          }
          if (dcf) dc += PetscRealPart(dcf[o]);
          fa  = l->chi[f] / eta * (uss - l->us[f]) * l->vol[f];
          dfa = (dc * (uss - l->us[f]) + l->chi[f] * (PetscRealPart(d[o]) - du_s)) / eta * l->vol[f];
          if (ula && it->bc->quadratic_ghost) { /* the force is (chi/eta (u** - u_s) - E) dV */
            PetscReal E, dE;
            PetscCall(FGBodyGhostTangent_Private(B, it, a, f, t, &at, ula, dula, dtheta ? dtheta[b] : NULL, dc, du_s, &E, &dE));
            fa -= E * l->vol[f], dfa -= dE * l->vol[f];
          }
          if (Ega && it->bc->shared_ghost) fa -= PetscRealPart(Ega[o]) * l->vol[f], dfa -= PetscRealPart(dEga[o]) * l->vol[f];
          dacc[6 * b + a] += gamma * dfa;
          for (PetscInt m = 0; m < 3; m++) {
            PetscInt i1 = (m + 1) % 3, i2 = (m + 2) % 3;
            if (a == i2) dacc[6 * b + 3 + m] += gamma * ((x[i1] - xc[i1]) * dfa - dxc[i1] * fa);
            if (a == i1) dacc[6 * b + 3 + m] -= gamma * ((x[i2] - xc[i2]) * dfa - dxc[i2] * fa);
          }
        }
        if (dcf) PetscCall(VecRestoreArrayRead(dchif[b][a], &dcf));
      }
    PetscCall(VecRestoreArray(du[a], &d));
    PetscCall(VecRestoreArray(B->Z[a], &dS));
    PetscCall(VecRestoreArray(B->W[a], &dK));
    PetscCall(VecRestoreArrayRead(ustar[a], &us0));
    PetscCall(VecRestoreArrayRead(B->S[a], &S));
    PetscCall(VecRestoreArrayRead(B->K[a], &K));
    if (ula) PetscCall(VecRestoreArrayRead(ul[a], &ula));
    if (dula) PetscCall(VecRestoreArrayRead(dul[a], &dula));
    if (Ega) PetscCall(VecRestoreArrayRead(B->Eg[a], &Ega));
    if (dEga) PetscCall(VecRestoreArrayRead(B->dEg[a], &dEga));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_BodyPenalizeTangent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The adjoint of listed face f's stage force fa = chi/eta (u** - u_s) dV and its moment about x_c,
   weighted by gamma, for the accumulator weights w (6 per body): fb = dJ/dfa, and the parts of
   the adjoints of chi, u_s and x_c through fa and r = x - x_c. */
static inline void FGBodyForceAdjoint_Private(FGBodies B, const FGBodyItem *it, PetscInt a, PetscInt f, const PetscReal xc[], PetscReal gamma, PetscReal gdt, const PetscScalar *K, const PetscScalar *S, const PetscScalar *us0, const PetscReal w[], PetscReal E, PetscReal *fb, PetscReal *cbf, PetscReal *usb, PetscReal xcb[3])
{
  const FGFaceList *l   = &it->f[a];
  const PetscInt    o   = l->off[f];
  const PetscReal  *x   = l->x + 3 * f, eta = it->bc->eta;
  const PetscReal   uss = PetscRealPart((us0[o] + gdt * S[o]) / (1 + gdt * K[o]));
  const PetscReal   fa  = (l->chi[f] / eta * (uss - l->us[f]) - E) * l->vol[f]; /* E: quadratic ghosts' (FGBodyGhostQ_Private) */
  PetscReal         g   = w[a];

  for (PetscInt m = 0; m < 3; m++) xcb[m] = 0;
  for (PetscInt m = 0; m < 3; m++) {
    PetscInt i1 = (m + 1) % 3, i2 = (m + 2) % 3;
    if (a == i2) g += w[3 + m] * (x[i1] - xc[i1]), xcb[i1] -= w[3 + m] * fa;
    if (a == i1) g -= w[3 + m] * (x[i2] - xc[i2]), xcb[i2] += w[3 + m] * fa;
  }
  g *= gamma;
  *fb  = g;
  *cbf = g * (uss - l->us[f]) / eta * l->vol[f];
  *usb = -g * l->chi[f] / eta * l->vol[f];
}

/*@C
  FGBodiesPenalizeAdjoint - the transpose of FGBodiesPenalizeTangent: ubar holds the adjoint of
  u** on entry and that of u* on return; wacc[6 b + m] (NULL: none) is the adjoint of the step's
  force and moment accumulators of body b (the same on every rank); thetabar[b] += the local part
  of the parameters' adjoint (NULL: not wanted); chibar[a] (NULL: not wanted) += the adjoint of
  the summed face masks; sens[a] (NULL: not wanted) += for shape bodies that adjoint times
  dchi/dn = H'(-phi - delta), the derivative of chi under an outward normal displacement of the
  surface (summed over the faces it is the derivative with respect to a uniform one, e.g. a
  circle's radius); and for density bodies chifbar[b][a] += the adjoint of their face masks. ul is
  the stage's start velocity (ghosted local Vecs; NULL: no quadratic ghosts' term) and ulbar
  (ghosted local Vecs; NULL: not wanted) += the adjoint of that term's part in it.
@*/
PetscErrorCode FGBodiesPenalizeAdjoint(FGBodies B, PetscReal t, PetscReal gamma, PetscReal dt, Vec ustar[], Vec ul[], const PetscReal wacc[], Vec ubar[], Vec ulbar[], PetscReal *const thetabar[], Vec chibar[], Vec sens[], Vec (*chifbar)[3])
{
  const PetscInt  dim = B->g->dim;
  const PetscReal gdt = gamma * dt;
  PetscReal       dchi[FG_BODY_MAX_PARAMS], dus[FG_BODY_MAX_PARAMS];

  PetscFunctionBeginUser;
  if (!B || !B->nb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_BodyPenalizeAdjoint, 0, 0, 0, 0));
  PetscCall(FGBodiesWork_Internal(B));
  for (PetscInt b = 0; b < B->nb; b++)
    PetscCall(FGBodyPlace_Internal(B, &B->b[b], t));
  if (B->normal) {
    PetscCall(FGBodiesPenalizeAdjointNormal_Internal(B, t, gamma, dt, ustar, wacc, ubar, thetabar, chibar, sens, chifbar));
    PetscCall(PetscLogEventEnd(FG_EVENT_BodyPenalizeAdjoint, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt a = 0; a < dim; a++) {
    PetscScalar       *Kb, *Sb, *ub, *cb = NULL, *sb = NULL, *ulb = NULL, *Ebg = NULL;
    const PetscScalar *K, *S, *us0, *ula = NULL, *Ega = NULL;
    PetscInt           nloc;
    PetscCall(FGBodiesKS_Internal(B, a, t));
    PetscCall(FGBodiesGhostAddS_Private(B, a, ul));
    if (B->ghost && ul) {
      PetscCall(VecGetArrayRead(ul[a], &ula));
      if (ulbar) PetscCall(VecGetArray(ulbar[a], &ulb));
    }
    if (B->shared && ul) { /* the shared ghost's term X u_l: its adjoint gathered per face into dEg, then X^T */
      PetscCall(VecGetArrayRead(B->Eg[a], &Ega));
      PetscCall(VecSet(B->dEg[a], 0.0));
      PetscCall(VecGetArray(B->dEg[a], &Ebg));
    }
    PetscCall(VecGetArrayRead(B->K[a], &K));
    PetscCall(VecGetArrayRead(B->S[a], &S));
    PetscCall(VecGetArrayRead(ustar[a], &us0));
    PetscCall(VecGetArray(B->W[a], &Kb));
    PetscCall(VecGetArray(B->Z[a], &Sb));
    PetscCall(VecGetArray(ubar[a], &ub));
    if (chibar) PetscCall(VecGetArray(chibar[a], &cb));
    if (sens) PetscCall(VecGetArray(sens[a], &sb));
    PetscCall(VecGetLocalSize(ubar[a], &nloc));
    /* 1. the forces fa = chi/eta (u** - u_s) dV (weighted by gamma): their adjoint adds to that of
          u** before the implicit update's adjoint divides it; their chi and u_s parts are added in 2 */
    if (wacc)
      for (PetscInt b = 0; b < B->nb; b++) {
        FGBodyItem *it = &B->b[b];
        FGFaceList *l  = &it->f[a];
        PetscReal   xc[3], V[3], th, om, fb, cbf, usb, xcb[3];
        FGBodyState_Internal(it, dim, t, xc, V, &th, &om);
        for (PetscInt f = 0; f < l->n; f++) {
          FGBodyForceAdjoint_Private(B, it, a, f, xc, gamma, gdt, K, S, us0, wacc + 6 * b, 0, &fb, &cbf, &usb, xcb);
          ub[l->off[f]] += fb * l->chi[f] / it->bc->eta * l->vol[f];
        }
      }
    /* 2. the implicit update u** = (u* + gdt S)/(1 + gdt K): the adjoints of K and S on the listed
          faces (the only ones 3 reads; a face two bodies list gets the same values twice), then
          ubar /= 1 + gdt K where K != 0 (elsewhere that is 1 exactly: ubar stays as it is) */
    for (PetscInt b = 0; b < B->nb; b++) {
      const FGFaceList *l = &B->b[b].f[a];
      for (PetscInt f = 0; f < l->n; f++) {
        const PetscInt  o   = l->off[f];
        const PetscReal den = 1 + gdt * K[o], uss = (us0[o] + gdt * S[o]) / den;
        Sb[o] = gdt * ub[o] / den;
        Kb[o] = -gdt * uss * ub[o] / den;
      }
    }
    for (PetscInt i = 0; i < nloc; i++)
      if (K[i] != 0) ub[i] = ub[i] / (1 + gdt * K[i]);
    /* 3. per face: chi and u_s adjoints of both parts, then one linearization */
    for (PetscInt b = 0; b < B->nb; b++) {
      FGBodyItem    *it = &B->b[b];
      FGFaceList    *l  = &it->f[a];
      const PetscInt nt = it->dens ? 0 : FG_BODY_NTHETA(it);
      PetscScalar   *cfb = NULL;
      PetscReal      xc[3], V[3], th, om;
      FGBodyAt       at;
      FGBodyState_Internal(it, dim, t, xc, V, &th, &om);
      FGBodyAt_Internal(it, dim, t, &at);
      if (it->dens && chifbar && chifbar[b][a]) PetscCall(VecGetArray(chifbar[b][a], &cfb));
      for (PetscInt f = 0; f < l->n; f++) {
        const PetscInt o   = l->off[f];
        PetscReal      cbf = (PetscRealPart(Kb[o]) + PetscRealPart(Sb[o]) * l->us[f]) / it->bc->eta;
        PetscReal      usb = PetscRealPart(Sb[o]) * l->chi[f] / it->bc->eta, xcb[3] = {0, 0, 0};
        const PetscReal E   = FGBodyGhostTerm_Private(B, it, a, f, ula, Ega);
        PetscReal       Eb  = PetscRealPart(Sb[o]); /* E joins S in the update */
        if (wacc) {
          PetscReal fb, fc, fu;
          FGBodyForceAdjoint_Private(B, it, a, f, xc, gamma, gdt, K, S, us0, wacc + 6 * b, E, &fb, &fc, &fu, xcb);
          cbf += fc, usb += fu;
          Eb -= fb * l->vol[f]; /* and is taken from the force */
        }
        if (ula && it->bc->quadratic_ghost) PetscCall(FGBodyGhostAdjoint_Private(B, it, a, f, t, &at, ula, Eb, ulb, thetabar ? thetabar[b] : NULL, &cbf, &usb, sb ? &sb[o] : NULL));
        if (Ebg && it->bc->shared_ghost) Ebg[o] = Eb; /* (a face another body lists too: E joins S once) */
        if (cb) cb[o] += cbf;
        if (sb && !it->dens) FGBodyAddSensitivity_Private(l, f, cbf, &sb[o]);
        if (cfb) cfb[o] += cbf;
        if (nt && thetabar && thetabar[b]) {
          PetscCall(FGBodyFaceLinearize_Internal(B, it, a, f, t, &at, NULL, NULL, dchi, dus));
          for (PetscInt i = 0; i < nt; i++) thetabar[b][i] += dchi[i] * cbf + dus[i] * usb;
          for (PetscInt k = 0; k < dim; k++) thetabar[b][k] += gamma * xcb[k];
        }
      }
      if (cfb) PetscCall(VecRestoreArray(chifbar[b][a], &cfb));
    }
    if (chibar) PetscCall(VecRestoreArray(chibar[a], &cb));
    if (sens) PetscCall(VecRestoreArray(sens[a], &sb));
    PetscCall(VecRestoreArray(ubar[a], &ub));
    if (ula) PetscCall(VecRestoreArrayRead(ul[a], &ula));
    if (ulb) PetscCall(VecRestoreArray(ulbar[a], &ulb));
    if (Ega) PetscCall(VecRestoreArrayRead(B->Eg[a], &Ega));
    if (Ebg) {
      PetscCall(VecRestoreArray(B->dEg[a], &Ebg));
      if (ulbar) PetscCall(FGBodiesSharedGhostApplyTranspose_Internal(B, a, B->dEg[a], ulbar[a]));
      if (thetabar || sens) PetscCall(FGBodiesSharedGhostAdjointAdd_Internal(B, a, ul[a], B->dEg[a], thetabar, sens ? sens[a] : NULL));
    }
    PetscCall(VecRestoreArray(B->Z[a], &Sb));
    PetscCall(VecRestoreArray(B->W[a], &Kb));
    PetscCall(VecRestoreArrayRead(ustar[a], &us0));
    PetscCall(VecRestoreArrayRead(B->S[a], &S));
    PetscCall(VecRestoreArrayRead(B->K[a], &K));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_BodyPenalizeAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
