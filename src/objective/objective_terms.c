/*
  The quantities of an objective's terms (objective.c) that are sums over the grid, and the
  observations a probe_tracking term compares with. Each sum is one function for the quantity and
  its adjoint: called with the quantity's address it computes q (reduced over the ranks), called
  with a weight w and adjoint arrays it adds w dq/d(state) to them instead.

    kinetic_energy   1/2 sum u_a^2 dV over the faces in the term's region (a box; none: all)
    field_tracking   1/2 sum (u_a - u_target,a)^2 dV there, u_target from a fields file
                     (both FGObjectiveEnergy_Internal)
    enstrophy        1/2 sum omega^2 dV over the cell edges in the region
                     (FGObjectiveEnstrophy_Internal)
    dissipation      P = -sum (p + |u|^2/2) u.n dA over the inflow and outflow faces
                     (FGObjectiveDissipation_Internal)
    probe_tracking   u_obs(t_n): the target, constant, or interpolated linearly in time from a
                     history.csv with columns time and PROBE_u, PROBE_v[, PROBE_w]
                     (FGObjectiveReadObservations_Internal, FGObjectiveObserved_Internal)

  The force coefficients and the probes' values are taken from the bodies and the probes in
  FGObjectiveRecord (objective.c).
*/
#ifndef _POSIX_C_SOURCE
  #define _POSIX_C_SOURCE 200809L /* strtok_r */
#endif
#include "objectiveimpl.h"
#include <fg/iofile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

PetscErrorCode FGObjectiveReadObservations_Internal(FGObjective o, FGObjTerm *tm)
{
  MPI_Comm       comm = o->s->comm;
  const PetscInt dim  = o->s->grid->dim;
  PetscMPIInt    rank;
  char           msg[512] = "";
  PetscBool      ok;
  PetscInt       n = 0;
  PetscReal     *buf = NULL;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    FILE    *f = fopen(tm->oc->observations, "r");
    char     line[65536], *tok, *save;
    PetscInt col[4] = {-1, -1, -1, -1}, ncol = 0, cap = 0;
    if (!f) PetscCall(PetscSNPrintf(msg, sizeof(msg), "cannot open %s: %s", tm->oc->observations, strerror(errno)));
    else if (!fgets(line, sizeof(line), f)) PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s is empty", tm->oc->observations));
    else {
      const char *pn = o->s->c->probe[tm->probe].name;
      for (tok = strtok_r(line, ",\r\n", &save); tok; tok = strtok_r(NULL, ",\r\n", &save), ncol++) {
        char want[FG_CASE_NAME_LEN + 4];
        if (!strcmp(tok, "time")) col[0] = ncol;
        for (PetscInt a = 0; a < dim; a++) {
          snprintf(want, sizeof(want), "%s_%c", pn, "uvw"[a]);
          if (!strcmp(tok, want)) col[1 + a] = ncol;
        }
      }
      for (PetscInt a = 0; a <= dim && !msg[0]; a++)
        if (col[a] < 0) PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s has no column %s%s%c", tm->oc->observations, a ? pn : "time", a ? "_" : "", a ? "uvw"[a - 1] : ' '));
      while (!msg[0] && fgets(line, sizeof(line), f)) {
        PetscReal v[4] = {0, 0, 0, 0};
        PetscInt  k = 0, got = 0;
        const char *q = line;
        while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n') q++;
        if (!*q) continue; /* a blank line (at the end of a file, say) */
        if (n + 1 > cap) {
          PetscReal *nb;
          cap = PetscMax(2 * cap, 256);
          nb  = (PetscReal *)realloc(buf, sizeof(PetscReal) * 4 * (size_t)cap); /* no PetscCall on one rank: the others wait in the Bcast */
          if (!nb) {
            snprintf(msg, sizeof(msg), "out of memory reading the file");
            break;
          }
          buf = nb;
        }
        for (tok = strtok_r(line, ",\r\n", &save); tok; tok = strtok_r(NULL, ",\r\n", &save), k++)
          for (PetscInt a = 0; a <= dim; a++)
            if (col[a] == k) {
              char *end;
              v[a] = strtod(tok, &end);
              if (end != tok) got++;
            }
        if (got != dim + 1) PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: line %" PetscInt_FMT ": expected numbers in columns time and %s_u..", tm->oc->observations, n + 2, pn));
        else if (n && v[0] <= buf[4 * (n - 1)]) PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: line %" PetscInt_FMT ": times must increase", tm->oc->observations, n + 2));
        for (PetscInt a = 0; a < 4; a++) buf[4 * n + a] = v[a];
        n++;
      }
      if (!msg[0] && n < 1) PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s has no data rows", tm->oc->observations));
    }
    if (f) fclose(f);
  }
  PetscCall(FGIOAgree(comm, msg, sizeof(msg), &ok));
  if (!ok) free(buf);
  PetscCheck(ok, comm, FG_ERR_INPUT, "%s.observations: %s", tm->oc->where, msg);
  PetscCallMPI(MPI_Bcast(&n, 1, MPIU_INT, 0, comm));
  tm->nobs = n;
  PetscCall(PetscMalloc2(n, &tm->tobs, n * dim, &tm->uobs));
  {
    PetscReal *all;
    PetscCall(PetscMalloc1(4 * n, &all));
    if (!rank) PetscCall(PetscArraycpy(all, buf, 4 * n));
    free(buf);
    PetscCallMPI(MPI_Bcast(all, (PetscMPIInt)(4 * n), MPIU_REAL, 0, comm));
    for (PetscInt i = 0; i < n; i++) {
      tm->tobs[i] = all[4 * i];
      for (PetscInt a = 0; a < dim; a++) tm->uobs[i * dim + a] = all[4 * i + 1 + a];
    }
    PetscCall(PetscFree(all));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Observed velocity at time t (linear interpolation, constant beyond the ends). */
void FGObjectiveObserved_Internal(const FGObjTerm *tm, PetscInt dim, PetscReal t, PetscReal u[])
{
  PetscInt i = 0;
  if (!tm->nobs) {
    for (PetscInt a = 0; a < dim; a++) u[a] = tm->oc->target[a];
    return;
  }
  if (t <= tm->tobs[0] || tm->nobs == 1) {
    for (PetscInt a = 0; a < dim; a++) u[a] = tm->uobs[a];
    return;
  }
  while (i + 1 < tm->nobs && tm->tobs[i + 1] < t) i++;
  if (i + 1 >= tm->nobs) {
    for (PetscInt a = 0; a < dim; a++) u[a] = tm->uobs[(tm->nobs - 1) * dim + a];
    return;
  }
  {
    PetscReal w = (t - tm->tobs[i]) / (tm->tobs[i + 1] - tm->tobs[i]);
    for (PetscInt a = 0; a < dim; a++) u[a] = (1 - w) * tm->uobs[i * dim + a] + w * tm->uobs[(i + 1) * dim + a];
  }
}

/* Is face x (component a) inside the term's region? */
static PetscBool FGObjectiveInRegion_Private(const FGObjectiveCase *oc, PetscInt dim, const PetscReal x[])
{
  if (!oc->n_region) return PETSC_TRUE;
  for (PetscInt d = 0; d < dim; d++)
    if (x[d] < oc->region[d] || x[d] > oc->region[dim + d]) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* 1/2 sum (u - target)^2 dV over the region (reduced; target NULL: 0), or with ubar:
   ubar += w (u - target) dV there. */
PetscErrorCode FGObjectiveEnergy_Internal(FGObjective o, const FGObjectiveCase *oc, Vec target[], PetscReal *ke, PetscReal w, Vec ubar[])
{
  FGGrid       g  = o->s->grid;
  const FGBox *bx = &g->box;
  PetscReal    sum = 0;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *u, *ut = NULL;
    PetscScalar       *ub = NULL;
    PetscCall(VecGetArrayRead(o->s->u[a], &u));
    if (target) PetscCall(VecGetArrayRead(target[a], &ut));
    if (ubar) PetscCall(VecGetArray(ubar[a], &ub));
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
        for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
          const PetscInt idx[3] = {i, j, k}, c = FGBoxOwnedIndex(bx, i, j, k);
          PetscReal      x[3]   = {0, 0, 0};
          for (PetscInt d = 0; d < g->dim; d++) x[d] = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]);
          if (!FGObjectiveInRegion_Private(oc, g->dim, x)) continue;
          {
            const PetscReal du = PetscRealPart(u[c]) - (ut ? PetscRealPart(ut[c]) : 0), dV = FGGridVolume(g, (FGLocation)(FG_LOC_FACE_X + a), idx);
            if (ub) ub[c] += w * du * dV;
            else sum += 0.5 * du * du * dV;
          }
        }
    if (ubar) PetscCall(VecRestoreArray(ubar[a], &ub));
    if (target) PetscCall(VecRestoreArrayRead(target[a], &ut));
    PetscCall(VecRestoreArrayRead(o->s->u[a], &u));
  }
  if (ke) PetscCallMPI(MPI_Allreduce(&sum, ke, 1, MPIU_REAL, MPIU_SUM, o->s->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Enstrophy 1/2 sum_c sum_edges omega_c^2 dV over the region (reduced), omega_c = d u_b/d x_a -
   d u_a/d x_b ((a, b, c) cyclic; 2D: omega_z only) on the cell edges along c at the cells' upper
   corners (2D: the corner (x_{i+1}, y_{j+1})), from the boundary-filled velocity; or with ulbar
   (ghosted): ulbar += w d(...)/d(ul) (the caller applies the fill's adjoint). */
PetscErrorCode FGObjectiveEnstrophy_Internal(FGObjective o, const FGObjectiveCase *oc, PetscReal *E, PetscReal w, Vec ulbar[])
{
  FGSolver           s  = o->s;
  FGGrid             g  = s->grid;
  const FGBox       *bx = &g->box;
  const PetscInt     dim = g->dim;
  const PetscScalar *U[3];
  PetscScalar       *Ub[3] = {NULL, NULL, NULL};
  PetscReal          sum = 0;

  PetscFunctionBeginUser;
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecGetArrayRead(s->ul[a], &U[a]));
    if (ulbar) PetscCall(VecGetArray(ulbar[a], &Ub[a]));
  }
  for (PetscInt c = dim == 2 ? 2 : 0; c < 3; c++) {
    const PetscInt a = (c + 1) % 3, b = (c + 2) % 3; /* omega_c = d u_b/d x_a - d u_a/d x_b */
    const PetscInt sa = bx->s[a], sb = bx->s[b];
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
        for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
          const PetscInt idx[3] = {i, j, k}, m = FGBoxIndex(bx, i, j, k);
          PetscReal      x[3]   = {0, 0, 0}, om, dV = 1, ha, hb;
          /* the edge: at the cell centre along c, on the faces along the others; its control
             volume; the distances between the centres across it along a and b */
          for (PetscInt d = 0; d < dim; d++) {
            const FGLocation at = d == c ? FG_LOC_CELL : (FGLocation)(FG_LOC_FACE_X + d);
            x[d]                = FGGridCoordinate(g, at, d, idx[d]);
            dV *= FGGridWidth(g, at, d, idx[d]);
          }
          if (!FGObjectiveInRegion_Private(oc, dim, x)) continue;
          ha = FGGridWidth(g, (FGLocation)(FG_LOC_FACE_X + a), a, idx[a]);
          hb = FGGridWidth(g, (FGLocation)(FG_LOC_FACE_X + b), b, idx[b]);
          om = PetscRealPart(U[b][m + sa] - U[b][m]) / ha - PetscRealPart(U[a][m + sb] - U[a][m]) / hb;
          if (ulbar) {
            const PetscReal ob = w * om * dV;
            Ub[b][m + sa] += ob / ha, Ub[b][m] -= ob / ha;
            Ub[a][m + sb] -= ob / hb, Ub[a][m] += ob / hb;
          } else sum += 0.5 * om * om * dV;
        }
  }
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecRestoreArrayRead(s->ul[a], &U[a]));
    if (ulbar) PetscCall(VecRestoreArray(ulbar[a], &Ub[a]));
  }
  if (E) PetscCallMPI(MPI_Allreduce(&sum, E, 1, MPIU_REAL, MPIU_SUM, s->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The dissipated power, the net inflow of mechanical energy through the domain's boundary:

     P = - sum over the boundary faces of (p_b + |u_b|^2/2) (u_b . n) dA      (n outward)

   over the faces of the inflow and outflow sides only (u.n = 0 on wall, lid and slip faces;
   periodic directions have no boundary), from the boundary-filled velocity at s->t and the
   pressure state s->p (kinematic; without bodies the last stage's phi). On the face of cell c
   (the cell next to the boundary along d, c_in the next one inward, c_g the ghost cell beyond):
     u_b . n = +-u_d on the face itself (the lower face: the filled ghost value; the upper one: owned)
     p_b     = (3 p(c) - p(c_in)) / 2, linear extrapolation from the two nearest cell centres
               (on a stretched direction with their distances)
               along the normal (the Poisson closure is no help here: Neumann at inflow faces
               would give p(c), first order; Dirichlet at outflow faces 0, whereas a fully
               developed outflow has p(c) = 0 itself: both would shorten the domain by h/2)
     u_b,a   = the mean of the 4 values of u_a (a tangential) around the face centre: at the
               face indices j_a - 1, j_a of c and of c_g (inflow: the prescribed u_a; outflow:
               the zero-gradient ghosts give the interior values)
   and dA = prod_{t != d} of the cell widths. Reduced over the ranks into *P; or, with ulbar (ghosted, the
   caller applies the fill's adjoint) and plbar (ghosted), += w dP/d(ul, p). The pressure is the
   only gauge-dependent part and sum u.n dA = 0 (a divergence-free field), so a constant added
   to p leaves P unchanged. */
PetscErrorCode FGObjectiveDissipation_Internal(FGObjective o, PetscReal *P, PetscReal w, Vec ulbar[], Vec plbar)
{
  FGSolver           s   = o->s;
  FGGrid             g   = s->grid;
  const FGBox       *bx  = &g->box;
  const PetscInt     dim = g->dim;
  const PetscScalar *U[3], *pr;
  PetscScalar       *Ub[3] = {NULL, NULL, NULL}, *Pb = NULL;
  PetscReal          sum = 0;

  PetscFunctionBeginUser;
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  PetscCall(DMGlobalToLocal(g->da, s->p, INSERT_VALUES, o->pw));
  PetscCall(VecGetArrayRead(o->pw, &pr));
  if (plbar) PetscCall(VecGetArray(plbar, &Pb));
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecGetArrayRead(s->ul[a], &U[a]));
    if (ulbar) PetscCall(VecGetArray(ulbar[a], &Ub[a]));
  }
  for (PetscInt d = 0; d < dim; d++) {
    if (g->periodic[d]) continue;
    for (PetscInt side = 0; side < 2; side++) {
      const FGBCKind  kind = s->bc.kind[d][side];
      const PetscReal sgn  = side == FG_FACE_LO ? -1.0 : 1.0; /* u.n = sgn u_d */
      const PetscInt  sd = bx->s[d], in = side == FG_FACE_LO ? sd : -sd;
      PetscInt        lo[3], hi[3];
      if (kind != FG_BC_INFLOW && kind != FG_BC_OUTFLOW) continue;
      if (side == FG_FACE_LO ? bx->lo[d] != 0 : bx->hi[d] != g->n[d]) continue;
      for (PetscInt e = 0; e < 3; e++) lo[e] = bx->lo[e], hi[e] = bx->hi[e];
      lo[d] = side == FG_FACE_LO ? 0 : g->n[d] - 1;
      hi[d] = lo[d] + 1;
      /* p_b = p(c) + r (p(c) - p(c_in)): r = 1/2 on a uniform direction */
      const PetscReal r = g->uniform[d] ? 0.5 : 0.5 * g->ax[d].dxf[lo[d]] * g->ax[d].idxc[side == FG_FACE_LO ? 0 : g->n[d] - 2];
      for (PetscInt k = lo[2]; k < hi[2]; k++)
        for (PetscInt j = lo[1]; j < hi[1]; j++)
          for (PetscInt i = lo[0]; i < hi[0]; i++) {
            const PetscInt  idx[3] = {i, j, k}, c = FGBoxIndex(bx, i, j, k);
            const PetscInt  cg = c - in;                           /* the ghost cell beyond the face */
            const PetscInt  cf = side == FG_FACE_LO ? c - sd : c; /* the face's normal velocity */
            const PetscReal un = PetscRealPart(U[d][cf]);
            const PetscReal pb = (1 + r) * PetscRealPart(pr[c]) - r * PetscRealPart(pr[c + in]);
            PetscReal       ut[3] = {0, 0, 0}, K = 0.5 * un * un, dA = 1;
            for (PetscInt e = 0; e < dim; e++)
              if (e != d) dA *= FGGridWidth(g, FG_LOC_CELL, e, idx[e]);
            for (PetscInt a = 0; a < dim; a++) {
              const PetscInt sa = bx->s[a];
              if (a == d) continue;
              ut[a] = 0.25 * PetscRealPart(U[a][c] + U[a][c - sa] + U[a][cg] + U[a][cg - sa]);
              K += 0.5 * ut[a] * ut[a];
            }
            if (!ulbar) {
              sum -= (pb + K) * sgn * un * dA;
              continue;
            }
            {
              const PetscReal f = -w * sgn * dA; /* w dP/d(un) = f (pb + K + un^2) */
              Ub[d][cf] += f * (pb + K + un * un);
              Pb[c] += (1 + r) * f * un;
              Pb[c + in] -= r * f * un;
              for (PetscInt a = 0; a < dim; a++) {
                const PetscInt  sa = bx->s[a];
                const PetscReal ga = 0.25 * f * un * ut[a];
                if (a == d) continue;
                Ub[a][c] += ga, Ub[a][c - sa] += ga, Ub[a][cg] += ga, Ub[a][cg - sa] += ga;
              }
            }
          }
    }
  }
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecRestoreArrayRead(s->ul[a], &U[a]));
    if (ulbar) PetscCall(VecRestoreArray(ulbar[a], &Ub[a]));
  }
  if (plbar) PetscCall(VecRestoreArray(plbar, &Pb));
  PetscCall(VecRestoreArrayRead(o->pw, &pr));
  if (P) PetscCallMPI(MPI_Allreduce(&sum, P, 1, MPIU_REAL, MPIU_SUM, s->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
