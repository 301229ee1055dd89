/* Shared helpers of the forward-solver tests (tests/forward): cases from YAML text, a
   divergence monitor that sees the velocity after every projection, exact-solution errors,
   natural-ordering gathers and a failure counter. Header-only (static inline). */
#ifndef FG_FORWARD_TEST_H
#define FG_FORWARD_TEST_H

#ifndef _POSIX_C_SOURCE
  #define _POSIX_C_SOURCE 200809L /* nanosleep under -std=c11; include this header first */
#endif

#include <flowgrad.h>
#include "../fgtest.h"
#include <fg/step.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>



/* A case from printf-formatted YAML text (collective on comm; *c is allocated here, PetscFree it). */
static inline PetscErrorCode FGTestCaseLoad(MPI_Comm comm, const char *name, FGCase **c, const char *fmt, ...)
{
  char   *text;
  size_t  len = 1 << 16;
  int     n;
  va_list ap;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(len, &text));
  va_start(ap, fmt);
  n = vsnprintf(text, len, fmt, ap);
  va_end(ap);
  PetscCheck(n >= 0 && (size_t)n < len, PETSC_COMM_SELF, PETSC_ERR_PLIB, "case text too long (%d characters)", n);
  PetscCall(PetscNew(c));
  PetscCall(FGCaseLoadString(comm, name, text, 0, NULL, *c));
  PetscCall(PetscFree(text));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Divergence after every projection. The solver's body-force hook (FGSolverSetForcing) is called at
   the start of every RK3 stage, after s->ul has been filled from u^{k-1}, i.e. from the output of
   the previous projection (the last stage of the previous step or the initial projection, or
   stage 1 and 2 of this one);
   it adds nothing to the right-hand side and records max|D u| h_min / u_ref. The projection of
   the last stage of the last step is seen by FGTestDivergenceFinal(). */
typedef struct {
  Vec       div;
  PetscReal uref, max;
  PetscInt  count; /* projections seen */
} FGTestDivMonitor;

static inline PetscErrorCode FGTestDivergenceOf_Private(FGSolver s, Vec ul[], FGTestDivMonitor *m)
{
  PetscReal dmax, hmin = s->grid->h[0];

  PetscFunctionBeginUser;
  for (PetscInt d = 1; d < s->grid->dim; d++) hmin = PetscMin(hmin, s->grid->h[d]);
  PetscCall(FGOpDivergence(s->grid, ul, m->div));
  PetscCall(VecNorm(m->div, NORM_INFINITY, &dmax));
  m->max = PetscMax(m->max, dmax * hmin / m->uref);
  if (PetscIsInfOrNanReal(dmax)) m->max = (PetscReal)INFINITY;
  m->count++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode FGTestDivHook_Private(FGSolver s, PetscReal t, Vec H[], void *ctx)
{
  FGTestDivMonitor *m = (FGTestDivMonitor *)ctx;

  PetscFunctionBeginUser;
  PetscCall(FGTestDivergenceOf_Private(s, s->ul, m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode FGTestDivMonitorAttach(FGSolver s, PetscReal uref, FGTestDivMonitor *m)
{
  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(s->p, &m->div));
  m->uref     = uref;
  m->max      = 0;
  m->count    = 0;
  PetscCall(FGSolverSetForcing(s, FGTestDivHook_Private, m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After the last step: the last projection, then detach. */
static inline PetscErrorCode FGTestDivMonitorFinish(FGSolver s, FGTestDivMonitor *m)
{
  PetscFunctionBeginUser;
  PetscCall(FGSolverFillGhosts(s, s->u, s->t));
  PetscCall(FGTestDivergenceOf_Private(s, s->ul, m));
  PetscCall(FGSolverSetForcing(s, NULL, NULL));
  PetscCall(VecDestroy(&m->div));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An exact velocity: component a at the position x (absolute coordinates) and time t. */
typedef PetscReal (*FGTestExactFn)(PetscInt a, const PetscReal x[], PetscReal t, void *ctx);

/* Errors of the state against an exact solution sampled at each component's own face centres,
   per component: max norm and L2 norm sqrt(sum e^2 dV / V) (collective). */
static inline PetscErrorCode FGTestVelocityError(FGSolver s, FGTestExactFn fn, void *ctx, PetscReal emax[3], PetscReal el2[3])
{
  FGGrid    g = s->grid;
  PetscReal loc[3] = {0, 0, 0}, sq[3] = {0, 0, 0};
  PetscReal ncell = (PetscReal)g->n[0] * g->n[1] * g->n[2];

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *ua;
    PetscCall(VecGetArrayRead(s->u[a], &ua));
    for (PetscInt k = g->box.lo[2]; k < g->box.hi[2]; k++)
      for (PetscInt j = g->box.lo[1]; j < g->box.hi[1]; j++)
        for (PetscInt i = g->box.lo[0]; i < g->box.hi[0]; i++) {
          const PetscInt idx[3] = {i, j, k};
          PetscReal      x[3]   = {0, 0, 0}, e;
          for (PetscInt d = 0; d < g->dim; d++) x[d] = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]);
          e      = PetscRealPart(ua[FGBoxOwnedIndex(&g->box, i, j, k)]) - fn(a, x, s->t, ctx);
          loc[a] = PetscMax(loc[a], PetscAbsReal(e));
          if (PetscIsInfOrNanReal(e)) loc[a] = (PetscReal)INFINITY;
          sq[a] += e * e;
        }
    PetscCall(VecRestoreArrayRead(s->u[a], &ua));
  }
  PetscCall(MPIU_Allreduce(loc, emax, 3, MPIU_REAL, MPIU_MAX, s->comm));
  PetscCall(MPIU_Allreduce(sq, el2, 3, MPIU_REAL, MPIU_SUM, s->comm));
  for (PetscInt a = 0; a < 3; a++) el2[a] = PetscSqrtReal(el2[a] / ncell);
  PetscFunctionReturn(PETSC_SUCCESS);
}


/* max|x_world - x_self| / max|x_self| of a field: xw distributed on sw's grid, xs the same field
   of a 1-rank run in natural order (rank 0 only; NULL elsewhere). On rank 0, broadcast. */
static inline PetscErrorCode FGTestCompareField(FGSolver sw, Vec xw, Vec xs, PetscReal *rel)
{
  Vec         seq;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(FGGridGatherNatural(sw->grid, xw, &seq));
  *rel = 0;
  if (rank == 0) {
    const PetscScalar *a, *b;
    PetscInt           n, m;
    PetscReal          dmax = 0, bmax = 0;
    PetscCall(VecGetLocalSize(seq, &n));
    PetscCall(VecGetLocalSize(xs, &m));
    PetscCheck(n == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "sizes differ: %" PetscInt_FMT " vs %" PetscInt_FMT, n, m);
    PetscCall(VecGetArrayRead(seq, &a));
    PetscCall(VecGetArrayRead(xs, &b));
    for (PetscInt i = 0; i < n; i++) {
      dmax = PetscMax(dmax, PetscAbsScalar(a[i] - b[i]));
      bmax = PetscMax(bmax, PetscAbsScalar(b[i]));
      if (PetscIsInfOrNanScalar(a[i]) || PetscIsInfOrNanScalar(b[i])) dmax = (PetscReal)INFINITY;
    }
    PetscCall(VecRestoreArrayRead(seq, &a));
    PetscCall(VecRestoreArrayRead(xs, &b));
    *rel = bmax > 0 ? dmax / bmax : dmax;
  }
  PetscCallMPI(MPI_Bcast(rel, 1, MPIU_REAL, 0, PETSC_COMM_WORLD));
  PetscCall(VecDestroy(&seq));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A barrier that sleeps instead of spinning: ranks that wait for rank 0's serial run leave the
   (oversubscribed) cores to it. */
static inline PetscErrorCode FGTestIdleBarrier(MPI_Comm comm)
{
  MPI_Request req;
  int         done = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Ibarrier(comm, &req));
  while (!done) {
    const struct timespec ts = {0, 1000000};
    PetscCallMPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    if (!done) nanosleep(&ts, NULL);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Orders of convergence log(e[i]/e[i+1]) / log(r) of a sequence refined by the factor r. */
static inline PetscReal FGTestOrder(PetscReal coarse, PetscReal fine, PetscReal r)
{
  return PetscLogReal(coarse / fine) / PetscLogReal(r);
}

#endif
