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
            m[FGBoxOwnedIndex(b, i, j, k)] = FGGridVolume(g, (FGLocation)(FG_LOC_FACE_X + a), f);
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

/* The line flux's design derivative (W's perturbation dW, or the adjoint of W's entries) in the
   projection; rk3.c has the algebra. Global face Vecs unless named ...l (ghosted). */

/* y = Mt x on the owned faces (x ghosted). */
static PetscErrorCode FGSolverFaceMatMult_Private(FGSolver s, Mat Mt, Vec xl, Vec y)
{
  Vec xg;

  PetscFunctionBeginUser;
  PetscCall(DMGetGlobalVector(s->grid->da, &xg));
  PetscCall(DMLocalToGlobal(s->grid->da, xl, INSERT_VALUES, xg));
  PetscCall(MatMult(Mt, xg, y));
  PetscCall(DMRestoreGlobalVector(s->grid->da, &xg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* div += D (W y) (y global; W = I + Wm, or the apertures, as FGSolverDivergence), or with dW given
   div += D (dW x) (x ghosted). */
static PetscErrorCode FGSolverDivergenceAdd_Private(FGSolver s, Mat dW[], Vec x[], PetscReal scale, Vec div)
{
  FGGrid g = s->grid;
  Vec    t[3] = {NULL, NULL, NULL}, tmp;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    Vec yg;
    PetscCall(DMGetLocalVector(g->da, &t[a]));
    PetscCall(VecSet(t[a], 0.0)); /* the ghosts outside the domain: no flux there */
    if (dW) {
      PetscCall(DMGetGlobalVector(g->da, &yg));
      PetscCall(FGSolverFaceMatMult_Private(s, dW[a], x[a], yg));
      PetscCall(DMGlobalToLocal(g->da, yg, INSERT_VALUES, t[a]));
      PetscCall(DMRestoreGlobalVector(g->da, &yg));
    } else PetscCall(DMGlobalToLocal(g->da, x[a], INSERT_VALUES, t[a]));
  }
  PetscCall(DMGetGlobalVector(g->da, &tmp));
  if (dW) PetscCall(FGOpDivergenceWeighted(g, NULL, t, PETSC_FALSE, tmp));
  else PetscCall(FGSolverDivergence(s, t, tmp));
  PetscCall(VecAXPY(div, scale, tmp));
  PetscCall(DMRestoreGlobalVector(g->da, &tmp));
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(DMRestoreLocalVector(g->da, &t[a]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* gp = M G phi on the interior faces (phil ghosted; M = 1 on a uniform grid). */
static PetscErrorCode FGSolverMGradient_Private(FGSolver s, Vec phil, Vec gp[])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(VecSet(gp[a], 0.0));
  PetscCall(FGOpGradientCorrect(s->grid, &s->bc, -1.0, phil, gp));
  for (PetscInt a = 0; a < s->grid->dim; a++)
    if (s->Mf[a]) PetscCall(VecPointwiseMult(gp[a], gp[a], s->Mf[a]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverLineFluxDivergence - div += scale D (dW x) (x ghosted: the projection's input or output).
  Collective.
@*/
PetscErrorCode FGSolverLineFluxDivergence(FGSolver s, Mat dW[], Vec xl[], PetscReal scale, Vec div)
{
  PetscFunctionBeginUser;
  PetscCall(FGSolverDivergenceAdd_Private(s, dW, xl, scale, div));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverLineFluxTangent - the projection's terms in W's perturbation dW (FGBodiesLineFluxTangent),
  about the recorded stage (phik its phi, global; uoutl its output, ghosted):
    div += D (dW u_out) / gdt - D W y,   du -= gdt y,   y = M^-1 dW^T M G phi_k.
  phil: ghosted work. Collective.
@*/
PetscErrorCode FGSolverLineFluxTangent(FGSolver s, Mat dW[], PetscReal gdt, Vec phik, Vec phil, Vec uoutl[], Vec div, Vec du[])
{
  FGGrid g     = s->grid;
  Vec    gp[3] = {NULL, NULL, NULL}, y[3] = {NULL, NULL, NULL};

  PetscFunctionBeginUser;
  PetscCall(FGSolverDivergenceAdd_Private(s, dW, uoutl, 1.0 / gdt, div));
  PetscCall(DMGlobalToLocal(g->da, phik, INSERT_VALUES, phil));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(DMGetGlobalVector(g->da, &gp[a]));
    PetscCall(DMGetGlobalVector(g->da, &y[a]));
  }
  PetscCall(FGSolverMGradient_Private(s, phil, gp));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(MatMultTranspose(dW[a], gp[a], y[a]));
    if (s->Mf[a]) PetscCall(VecPointwiseDivide(y[a], y[a], s->Mf[a]));
    PetscCall(VecAXPY(du[a], -gdt, y[a]));
  }
  PetscCall(FGSolverDivergenceAdd_Private(s, NULL, y, -1.0, div));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(DMRestoreGlobalVector(g->da, &gp[a]));
    PetscCall(DMRestoreGlobalVector(g->da, &y[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSolverLineFluxAdjoint - the transpose of FGSolverLineFluxTangent in dW: with psi / gdt = div
  (the Poisson transpose solve's output over gdt, before the pressure update's part), ubar the
  adjoint of u_out and (with uinl) sc pbar that of the pressure update, the adjoint of W's entries
  gains (FGBodiesLineFluxAdjointAdd)
    D^T div (x) u_out  -  M G phi_k (x) gdt M^-1 (W^T D^T div + ubar)  -  D^T (sc pbar / gdt) (x) u_in.
  phil: ghosted work. Collective.
@*/
PetscErrorCode FGSolverLineFluxAdjoint(FGSolver s, PetscReal gdt, Vec div, Vec ubar[], Vec phik, Vec phil, Vec uoutl[], Vec uinl[], PetscReal sc, Vec pbar)
{
  FGGrid g     = s->grid;
  Mat   *Wm;
  Vec    l[3] = {NULL, NULL, NULL}, r[3] = {NULL, NULL, NULL}, tl[3] = {NULL, NULL, NULL};

  PetscFunctionBeginUser;
  PetscCall(FGBodiesGetLineFlux(s->bodies, &Wm));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(DMGetGlobalVector(g->da, &l[a]));
    PetscCall(DMGetGlobalVector(g->da, &r[a]));
    PetscCall(DMGetLocalVector(g->da, &tl[a]));
    PetscCall(VecSet(tl[a], 0.0));
  }
  /* D^T div (x) u_out */
  PetscCall(FGOpDivergenceWeightedAdjoint(g, NULL, div, tl));
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(VecSet(l[a], 0.0));
    PetscCall(DMLocalToGlobal(g->da, tl[a], ADD_VALUES, l[a]));
    PetscCall(DMLocalToGlobal(g->da, uoutl[a], INSERT_VALUES, r[a]));
  }
  PetscCall(FGBodiesLineFluxAdjointAdd(s->bodies, l, r));
  /* -M G phi_k (x) gdt M^-1 (W^T D^T div + ubar) */
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(MatMultTransposeAdd(Wm[a], l[a], l[a], r[a])); /* r = W^T D^T div */
    PetscCall(VecAXPY(r[a], 1.0, ubar[a]));
    if (s->Mf[a]) PetscCall(VecPointwiseDivide(r[a], r[a], s->Mf[a]));
    PetscCall(VecScale(r[a], gdt));
  }
  PetscCall(DMGlobalToLocal(g->da, phik, INSERT_VALUES, phil));
  PetscCall(FGSolverMGradient_Private(s, phil, l));
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecScale(l[a], -1.0));
  PetscCall(FGBodiesLineFluxAdjointAdd(s->bodies, l, r));
  if (uinl && sc != 0) { /* -D^T (sc pbar / gdt) (x) u_in */
    Vec q;
    PetscCall(DMGetGlobalVector(g->da, &q));
    PetscCall(VecAXPBY(q, -sc / gdt, 0.0, pbar));
    for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecSet(tl[a], 0.0));
    PetscCall(FGOpDivergenceWeightedAdjoint(g, NULL, q, tl));
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscCall(VecSet(l[a], 0.0));
      PetscCall(DMLocalToGlobal(g->da, tl[a], ADD_VALUES, l[a]));
      PetscCall(DMLocalToGlobal(g->da, uinl[a], INSERT_VALUES, r[a]));
    }
    PetscCall(FGBodiesLineFluxAdjointAdd(s->bodies, l, r));
    PetscCall(DMRestoreGlobalVector(g->da, &q));
  }
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscCall(DMRestoreGlobalVector(g->da, &l[a]));
    PetscCall(DMRestoreGlobalVector(g->da, &r[a]));
    PetscCall(DMRestoreLocalVector(g->da, &tl[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
