/*
  Probes (probe.<name> in the case file): velocity and pressure at a point, by multilinear
  interpolation from where each field lives (u_a on its faces, p at cell centres), and with a
  `reference` point the pressure difference p(at) - p(reference).

  The interpolation cell of a point is owned by exactly one rank (the one that owns its lower
  corner index), which evaluates it from its ghosted arrays; one MPI_Allreduce (sum) shares the
  values. Between a wall and the first interior value the normal velocity uses the boundary face;
  tangential velocities and the pressure extrapolate linearly from the first two interior values.
*/
#include <fg/solver.h>

/* The interpolation stencil at x of a field at loc: the 2^dim corner offsets into a ghosted
   array and their weights, if this rank owns the interpolation cell; returns whether it does. */
static PetscBool FGProbeStencil_Private(FGGrid g, FGLocation loc, const PetscReal x[], PetscInt off[8], PetscReal wt[8])
{
  const FGBox *bx = &g->box;
  PetscInt     i0[3] = {0, 0, 0};
  PetscReal    w[3]  = {0, 0, 0};

  for (PetscInt d = 0; d < g->dim; d++) {
    /* lower index: faces along their own direction may use the boundary face -1; cell-centred
       values stay within [0, n-1] (linear extrapolation next to a wall) unless periodic */
    PetscInt lo = (g->periodic[d] || loc == (FGLocation)(FG_LOC_FACE_X + d)) ? -1 : 0, hi = g->n[d] - 2;
    PetscInt i;
    if (g->periodic[d]) hi = g->n[d] - 1;
    if (g->uniform[d]) {
      PetscReal c0 = FGGridCoordinate(g, loc, d, 0), s = (x[d] - c0) / g->h[d];
      i    = PetscMin(PetscMax((PetscInt)PetscFloorReal(s), lo), hi);
      w[d] = s - (PetscReal)i;
    } else {
      PetscReal ci;
      i    = PetscMin(PetscMax(FGGridFloor(g, loc, d, x[d]), lo), hi);
      ci   = FGGridCoordinate(g, loc, d, i);
      w[d] = (x[d] - ci) / (FGGridCoordinate(g, loc, d, i + 1) - ci);
    }
    i0[d] = i;
    /* owner: the rank whose owned range holds max(i, 0) */
    if (PetscMax(i, 0) < bx->lo[d] || PetscMax(i, 0) >= bx->hi[d]) return PETSC_FALSE;
    if (i + 1 >= bx->ghi[d]) return PETSC_FALSE; /* cannot happen with ghost width 1; be safe */
  }
  for (PetscInt corner = 0; corner < (1 << g->dim); corner++) {
    PetscInt idx[3] = {0, 0, 0};
    wt[corner]      = 1;
    for (PetscInt d = 0; d < g->dim; d++) {
      PetscInt up = (corner >> d) & 1;
      idx[d]      = i0[d] + up;
      wt[corner] *= up ? w[d] : 1 - w[d];
    }
    off[corner] = FGBoxIndex(bx, idx[0], idx[1], idx[2]);
  }
  return PETSC_TRUE;
}

/* Multilinear interpolation of the ghosted array f (location loc) at x, if this rank owns the
   interpolation cell; returns whether it does. */
static PetscBool FGProbeInterpolate_Private(FGGrid g, FGLocation loc, const PetscScalar *f, const PetscReal x[], PetscReal *val)
{
  PetscInt  off[8];
  PetscReal wt[8];

  if (!FGProbeStencil_Private(g, loc, x, off, wt)) return PETSC_FALSE;
  *val = 0;
  for (PetscInt corner = 0; corner < (1 << g->dim); corner++) *val += wt[corner] * PetscRealPart(f[off[corner]]);
  return PETSC_TRUE;
}

/*@C
  FGProbeInterpolateAdjoint - the transpose of the probes' interpolation: fbar (a ghosted array
  of a field at loc) += w times the interpolation weights at x, on the rank that owns the point
  (the caller applies the boundary fill's adjoint, for velocities, and DMLocalToGlobal(ADD_VALUES)).
@*/
PetscErrorCode FGProbeInterpolateAdjoint(FGGrid g, FGLocation loc, const PetscReal x[], PetscReal w, Vec fbar)
{
  PetscInt     off[8];
  PetscReal    wt[8];
  PetscScalar *f;

  PetscFunctionBeginUser;
  if (!FGProbeStencil_Private(g, loc, x, off, wt)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArray(fbar, &f));
  for (PetscInt corner = 0; corner < (1 << g->dim); corner++) f[off[corner]] += w * wt[corner];
  PetscCall(VecRestoreArray(fbar, &f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGProbesEvaluate - the probe values of the current state: per probe u, v[, w], p and, with a
  reference point, dp; in case order (FGProbesCount() values in all). Collective.
@*/
PetscErrorCode FGProbesEvaluate(FGSolver s, PetscReal vals[])
{
  FGGrid             g   = s->grid;
  const FGCase      *c   = s->c;
  const PetscInt     dim = g->dim;
  const PetscScalar *U[3], *P;
  PetscInt           n = 0;

  PetscFunctionBeginUser;
  if (!c->nprobes) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  PetscCall(DMGlobalToLocal(g->da, s->p, INSERT_VALUES, s->phil)); /* phil is free between steps */
  for (PetscInt a = 0; a < dim; a++) PetscCall(VecGetArrayRead(s->ul[a], &U[a]));
  PetscCall(VecGetArrayRead(s->phil, &P));
  for (PetscInt q = 0; q < c->nprobes; q++) {
    const FGProbeCase *pc = &c->probe[q];
    PetscReal          v, pr;
    for (PetscInt a = 0; a < dim; a++, n++) vals[n] = FGProbeInterpolate_Private(g, (FGLocation)(FG_LOC_FACE_X + a), U[a], pc->at, &v) ? v : 0;
    vals[n++] = FGProbeInterpolate_Private(g, FG_LOC_CELL, P, pc->at, &v) ? v : 0;
    if (pc->has_reference) vals[n++] = FGProbeInterpolate_Private(g, FG_LOC_CELL, P, pc->reference, &pr) ? pr : 0;
  }
  PetscCall(VecRestoreArrayRead(s->phil, &P));
  for (PetscInt a = 0; a < dim; a++) PetscCall(VecRestoreArrayRead(s->ul[a], &U[a]));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, vals, (PetscMPIInt)n, MPIU_REAL, MPIU_SUM, s->comm));
  /* p(reference) -> p(at) - p(reference) */
  n = 0;
  for (PetscInt q = 0; q < c->nprobes; q++) {
    n += dim + 1;
    if (c->probe[q].has_reference) {
      vals[n] = vals[n - 1] - vals[n];
      n++;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGProbesCount - the number of values FGProbesEvaluate() gives.
@*/
PetscInt FGProbesCount(const FGCase *c)
{
  PetscInt n = 0;
  for (PetscInt q = 0; q < c->nprobes; q++) n += c->grid.dim + 1 + (c->probe[q].has_reference ? 1 : 0);
  return n;
}
