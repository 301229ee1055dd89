/*
  The continuity the projection enforces, and its correction (docs/bodies.md):

    plain                 D u = 0,          u -= gdt G phi,                L = D G
    apertures (A)         D (A u) = 0,      u -= gdt G phi,                L = D A G
    line flux (W = I+Wm)  D (W u) = 0,      u -= gdt M^-1 W^T M G phi,     L = D W M^-1 W^T M G

  A: a sharp wall's apertures (src/body/aperture.c), a diagonal; W: its line-flux continuity
  (src/body/lineflux.c), sparse, reading faces two away along a line (parallel AIJ matrices, so
  on any rank); M: the faces' volumes, which makes the line flux's correction the M-orthogonal
  projection onto D W u = 0 and keeps L symmetric (on a uniform grid M is one number per component
  and C = M^-1 W^T M is W^T). The Poisson solver assembles the matching operator
  (FGPoissonSetFaceWeights, FGPoissonSetFaceOperator; FGSolverContinuitySet keeps it current).
  Each function here is linear in its field; the adjoints are their transposes (ghosted adjoints
  in the local, not yet summed form the step's adjoint uses).
*/
#include <fg/solver.h>
#include <fg/ops.h>

/*@C
  FGSolverContinuitySet - hand the bodies' continuity (apertures or line flux) to the Poisson
  solver; again whenever a body's parameters changed. Collective.
@*/
PetscErrorCode FGSolverContinuitySet(FGSolver s)
{
  Vec *Al;
  Mat *Wm;

  PetscFunctionBeginUser;
  PetscCall(FGBodiesGetApertures(s->bodies, &Al));
  PetscCall(FGBodiesGetLineFlux(s->bodies, &Wm));
  if (Wm) PetscCall(FGPoissonSetFaceOperator(s->poisson, Wm)); /* replaces the apertures' weights */
  else if (Al) PetscCall(FGPoissonSetFaceWeights(s->poisson, Al));
  if (Wm && !s->grid->isuniform && !s->Mf[0]) { /* the faces' volumes: area times the distance of the centres across */
    FGGrid       g = s->grid;
    const FGBox *b = &g->box;
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscScalar *m;
      PetscCall(VecDuplicate(s->u[a], &s->Mf[a]));
      PetscCall(VecGetArray(s->Mf[a], &m));
      for (PetscInt k = b->lo[2]; k < b->hi[2]; k++)
        for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
          for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) {
            const PetscInt f[3] = {i, j, k};
            PetscReal      v    = g->ax[a].dxc[f[a]];
            for (PetscInt e = 0; e < g->dim; e++)
              if (e != a) v *= g->ax[e].dxf[f[e]];
            m[FGBoxOwnedIndex(b, i, j, k)] = v;
          }
      PetscCall(VecRestoreArray(s->Mf[a], &m));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverDivergence - div = D (A u) or D (W u), the divergence the projection makes zero
  (the header); D u without a body's continuity. ul: ghosted and boundary-filled. Collective.
@*/
PetscErrorCode FGSolverDivergence(FGSolver s, Vec ul[], Vec div)
{
  FGGrid g = s->grid;
  Vec   *Al;
  Mat   *Wm;

  PetscFunctionBeginUser;
  PetscCall(FGBodiesGetLineFlux(s->bodies, &Wm));
  if (Wm) { /* wl = ul + Wm u, ghosted */
    Vec wl[3] = {NULL, NULL, NULL};
    for (PetscInt a = 0; a < g->dim; a++) {
      Vec ug, zg, zl;
      PetscCall(DMGetGlobalVector(g->da, &ug));
      PetscCall(DMGetGlobalVector(g->da, &zg));
      PetscCall(DMGetLocalVector(g->da, &zl));
      PetscCall(DMGetLocalVector(g->da, &wl[a]));
      PetscCall(DMLocalToGlobal(g->da, ul[a], INSERT_VALUES, ug));
      PetscCall(MatMult(Wm[a], ug, zg));
      PetscCall(VecSet(zl, 0.0)); /* the ghosts outside the domain: W is the identity there */
      PetscCall(DMGlobalToLocal(g->da, zg, INSERT_VALUES, zl));
      PetscCall(VecWAXPY(wl[a], 1.0, zl, ul[a]));
      PetscCall(DMRestoreLocalVector(g->da, &zl));
      PetscCall(DMRestoreGlobalVector(g->da, &zg));
      PetscCall(DMRestoreGlobalVector(g->da, &ug));
    }
    PetscCall(FGOpDivergenceWeighted(g, NULL, wl, PETSC_FALSE, div));
    for (PetscInt a = 0; a < g->dim; a++) PetscCall(DMRestoreLocalVector(g->da, &wl[a]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(FGBodiesGetApertures(s->bodies, &Al));
  PetscCall(FGOpDivergenceWeighted(g, Al, ul, PETSC_FALSE, div));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverDivergenceAdjoint - the transpose of FGSolverDivergence: ulbar (ghosted, overwritten;
  the ghosts' parts not yet summed) = (D W)^T div. Collective.
@*/
PetscErrorCode FGSolverDivergenceAdjoint(FGSolver s, Vec div, Vec ulbar[])
{
  FGGrid       g = s->grid;
  const FGBox *b = &g->box;
  Vec         *Al;
  Mat         *Wm;

  PetscFunctionBeginUser;
  PetscCall(FGBodiesGetApertures(s->bodies, &Al));
  PetscCall(FGBodiesGetLineFlux(s->bodies, &Wm));
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecSet(ulbar[a], 0.0));
  PetscCall(FGOpDivergenceWeightedAdjoint(g, Wm ? NULL : Al, div, ulbar));
  if (!Wm) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt a = 0; a < g->dim; a++) { /* ulbar += P_o^T Wm^T (the ghosts' sum of ulbar) */
    Vec                tg, zg;
    PetscScalar       *ub;
    const PetscScalar *z;
    PetscCall(DMGetGlobalVector(g->da, &tg));
    PetscCall(DMGetGlobalVector(g->da, &zg));
    PetscCall(VecSet(tg, 0.0));
    PetscCall(DMLocalToGlobal(g->da, ulbar[a], ADD_VALUES, tg));
    PetscCall(MatMultTranspose(Wm[a], tg, zg));
    PetscCall(VecGetArray(ulbar[a], &ub));
    PetscCall(VecGetArrayRead(zg, &z));
    for (PetscInt k = b->lo[2]; k < b->hi[2]; k++)
      for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
        for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) ub[FGBoxIndex(b, i, j, k)] += z[FGBoxOwnedIndex(b, i, j, k)];
    PetscCall(VecRestoreArrayRead(zg, &z));
    PetscCall(VecRestoreArray(ulbar[a], &ub));
    PetscCall(DMRestoreGlobalVector(g->da, &zg));
    PetscCall(DMRestoreGlobalVector(g->da, &tg));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = (C - I) x = M^-1 Wm^T M x, or with transpose (C - I)^T x = M Wm M^-1 x (M = 1 on a uniform
   grid: Wm^T x, Wm x). x, y: global, distinct. */
static PetscErrorCode FGSolverCm_Private(FGSolver s, Mat Wm, Vec Mf, PetscBool transpose, Vec x, Vec y)
{
  Vec t;

  PetscFunctionBeginUser;
  PetscCall(DMGetGlobalVector(s->grid->da, &t));
  if (!Mf) PetscCall(VecCopy(x, t));
  else if (transpose) PetscCall(VecPointwiseDivide(t, x, Mf));
  else PetscCall(VecPointwiseMult(t, x, Mf));
  if (transpose) PetscCall(MatMult(Wm, t, y));
  else PetscCall(MatMultTranspose(Wm, t, y));
  if (Mf && transpose) PetscCall(VecPointwiseMult(y, y, Mf));
  else if (Mf) PetscCall(VecPointwiseDivide(y, y, Mf));
  PetscCall(DMRestoreGlobalVector(s->grid->da, &t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverProjectionCorrect - the projection's correction u -= gdt C G phi (the header: C = I
  without the line flux). phi: global; phil: ghosted work. Collective.
@*/
PetscErrorCode FGSolverProjectionCorrect(FGSolver s, PetscReal gdt, Vec phi, Vec phil, Vec u[])
{
  FGGrid g = s->grid;
  Mat   *Wm;

  PetscFunctionBeginUser;
  PetscCall(DMGlobalToLocal(g->da, phi, INSERT_VALUES, phil));
  PetscCall(FGOpGradientCorrect(g, &s->bc, gdt, phil, u));
  PetscCall(FGBodiesGetLineFlux(s->bodies, &Wm));
  if (!Wm) PetscFunctionReturn(PETSC_SUCCESS);
  { /* u -= gdt (C - I) G phi */
    Vec gp[3] = {NULL, NULL, NULL}, y;
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscCall(DMGetGlobalVector(g->da, &gp[a]));
      PetscCall(VecSet(gp[a], 0.0));
    }
    PetscCall(FGOpGradientCorrect(g, &s->bc, -1.0, phil, gp)); /* gp = G phi on the interior faces */
    PetscCall(DMGetGlobalVector(g->da, &y));
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscCall(FGSolverCm_Private(s, Wm[a], s->Mf[a], PETSC_FALSE, gp[a], y));
      PetscCall(VecAXPY(u[a], -gdt, y));
    }
    PetscCall(DMRestoreGlobalVector(g->da, &y));
    for (PetscInt a = 0; a < g->dim; a++) PetscCall(DMRestoreGlobalVector(g->da, &gp[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverProjectionCorrectAdjoint - its transpose in phi: pbar += -gdt G^T C^T ubar (ubar:
  global, unchanged; plbar: ghosted work). Collective.
@*/
PetscErrorCode FGSolverProjectionCorrectAdjoint(FGSolver s, PetscReal gdt, Vec ubar[], Vec plbar, Vec pbar)
{
  FGGrid g     = s->grid;
  Vec    v[3]  = {NULL, NULL, NULL};
  Mat   *Wm;

  PetscFunctionBeginUser;
  PetscCall(FGBodiesGetLineFlux(s->bodies, &Wm));
  if (Wm)
    for (PetscInt a = 0; a < g->dim; a++) { /* v = C^T ubar */
      PetscCall(DMGetGlobalVector(g->da, &v[a]));
      PetscCall(FGSolverCm_Private(s, Wm[a], s->Mf[a], PETSC_TRUE, ubar[a], v[a]));
      PetscCall(VecAXPY(v[a], 1.0, ubar[a]));
    }
  PetscCall(VecSet(plbar, 0.0));
  PetscCall(FGOpGradientCorrectAdjoint(g, &s->bc, gdt, Wm ? v : ubar, plbar));
  PetscCall(DMLocalToGlobal(g->da, plbar, ADD_VALUES, pbar));
  if (Wm)
    for (PetscInt a = 0; a < g->dim; a++) PetscCall(DMRestoreGlobalVector(g->da, &v[a]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
