/*
  flowgrad's augmented Lagrangian (optimizer.type penalty; src/optim/).

  An augmented-Lagrangian loop (Powell-Hestenes-Rockafellar) around TAO blmvm: each outer
  iteration minimizes, within the bounds,
      L(x) = f(x) + sum_eq (l_i h_i + mu/2 h_i^2) + sum_ineq (max(0, l_i - mu h_i)^2 - l_i^2) / (2 mu)
  (at most 10 inner iterations, -fg_penalty_inner_its), then updates l_i = l_i + mu h_i (eq),
  l_i = max(0, l_i - mu h_i) (ineq) and multiplies mu by 10 when the largest violation did not
  fall below a quarter of the previous one; mu starts at optimizer.penalty. It stops when the
  violation is within optimizer.constraint_tol and the inner solve converged, or after
  optimizer.max_iterations inner iterations in all. Each outer iteration's end is a row of
  optimization/outer.csv (rewritten atomically): outer, iteration (the history's iteration it ended
  at), violation, penalty (mu of that solve), converged (1 when its inner solve converged).
*/
#include "optimimpl.h"

/* The augmented-Lagrangian terms of the penalty method at evaluation e: value, and with G the
   gradient in x added to G. */
PetscErrorCode FGOptPenalty_Internal(FGOptimizer O, const FGEval *e, PetscReal *f, Vec G)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < O->nrows; i++) {
    const FGConstraintRow *r = &O->rows[i];
    const PetscReal        h = FGProblemRowNormalized(r, e->q[i]), l = O->lambda[i], mu = O->mu;
    PetscReal              dLdh;
    if (r->relation == FG_REL_EQ) {
      *f += l * h + 0.5 * mu * h * h;
      dLdh = l + mu * h;
    } else {
      const PetscReal m = PetscMax(0.0, l - mu * h);
      *f += (m * m - l * l) / (2 * mu);
      dLdh = -m;
    }
    if (G && dLdh != 0) { /* dh/dp = sign dq/dp / scale; dx = dp * scale */
      const PetscReal sg = r->relation == FG_REL_LE ? -1.0 : 1.0;
      PetscCall(VecPointwiseMult(O->p, e->dq[i], O->scale));
      PetscCall(VecAXPY(G, dLdh * sg / r->scale, O->p));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The outer loop: inner TAO solves from O->x (updated in place) until the rows hold. */
PetscErrorCode FGOptSolvePenalty_Internal(FGOptimizer O)
{
  const FGCase *c     = O->c;
  PetscInt      inner = O->inner_its, used = 0;
  PetscReal     viol_prev = PETSC_MAX_REAL;
  Tao           tao;

  FGTable       tab;
  char          path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  O->mu = c->optimizer.penalty;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/outer.csv", O->dir));
  PetscCall(FGTableCreate(O->comm, &tab));
  PetscCall(FGTableAddColumn(tab, "outer", "%lld"));
  PetscCall(FGTableAddColumn(tab, "iteration", "%lld"));
  PetscCall(FGTableAddColumn(tab, "violation", "%.17g"));
  PetscCall(FGTableAddColumn(tab, "penalty", "%.17g"));
  PetscCall(FGTableAddColumn(tab, "converged", "%lld"));
  for (PetscInt outer = 0; outer < 50 && used < O->maxits && !(c->optimizer.max_evaluations && O->nevals >= c->optimizer.max_evaluations); outer++) {
    FGEval   *e;
    PetscReal viol;
    PetscInt  its;
    O->itbase = used;
    PetscCall(FGOptSetUpTao_Internal(O, &tao, O->x, O->taotype, PetscMin(inner, O->maxits - used), NULL, NULL, NULL, NULL));
    PetscCall(TaoSolve(tao));
    PetscCall(TaoGetConvergedReason(tao, &O->reason));
    PetscCall(TaoGetIterationNumber(tao, &its));
    PetscCall(TaoDestroy(&tao));
    used += PetscMax(its, 1);
    PetscCall(FGOptToDesign_Internal(O, O->x));
    PetscCall(FGOptEvaluate_Internal(O, O->p, PETSC_TRUE, &e));
    viol = FGOptViolation_Internal(O, e);
    PetscCall(PetscPrintf(O->comm, "augmented Lagrangian: outer iteration %" PetscInt_FMT ": violation %.3e, penalty %g, inner solve %s\n", outer, (double)viol, (double)O->mu, TaoConvergedReasons[O->reason]));
    {
      const PetscReal row[5] = {(PetscReal)outer, (PetscReal)used, viol, O->mu, O->reason > 0 ? 1.0 : 0.0};
      PetscCall(FGTableAddRow(tab, NULL, row));
      PetscCall(FGTableWriteCSV(tab, path));
    }
    if (viol <= c->optimizer.constraint_tol && O->reason > 0) {
      O->penalty_done = PETSC_TRUE;
      break;
    }
    for (PetscInt i = 0; i < O->nrows; i++) {
      const PetscReal h = FGProblemRowNormalized(&O->rows[i], e->q[i]);
      O->lambda[i]      = O->rows[i].relation == FG_REL_EQ ? O->lambda[i] + O->mu * h : PetscMax(0.0, O->lambda[i] - O->mu * h);
    }
    if (viol > 0.25 * viol_prev) O->mu *= 10;
    viol_prev = viol;
  }
  PetscCall(FGTableDestroy(&tab));
  PetscFunctionReturn(PETSC_SUCCESS);
}
