/* Shared helpers of the Poisson tests (tests/poisson): problem descriptions, manufactured
   solutions, natural-ordering gathers and a failure counter. Header-only (static inline). */
#ifndef FG_POISSON_TEST_H
#define FG_POISSON_TEST_H

#include <flowgrad.h>
#include "../fgtest.h"

/* A test problem: dimension, cells, lengths, lower corner and boundary kinds. */
typedef struct {
  const char *name;
  PetscInt    dim;
  PetscInt    n[3];
  PetscReal   L[3], x0[3];
  FGPoissonBC bc[3][2];
} FGTestProblem;

#define P_ FG_PBC_PERIODIC
#define N_ FG_PBC_NEUMANN
#define D_ FG_PBC_DIRICHLET

static inline PetscErrorCode FGTestGridCreate(MPI_Comm comm, const FGTestProblem *t, PetscInt refine, FGDecomp decomp, FGGrid *g)
{
  PetscInt  n[3];
  PetscBool per[3];

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++) {
    n[d]   = t->n[d] * refine;
    per[d] = (PetscBool)(t->bc[d][0] == FG_PBC_PERIODIC);
  }
  PetscCall(FGGridCreate(comm, t->dim, n, t->L, t->x0, per, decomp, g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One direction of the manufactured solution: phi(x) with phi'' = -k2 phi satisfying the
   homogeneous boundary conditions (lo, hi) on [x0, x0+L]:
     periodic  sin(2 pi s + 0.3)   (both the cosine and the sine part of a mode)
     N-N       cos(pi s)     D-D  sin(pi s)     N-D  cos(pi s / 2)     D-N  sin(pi s / 2)
   with s = (x - x0)/L. */
static inline PetscReal FGTestPhi(FGPoissonBC lo, FGPoissonBC hi, PetscReal L, PetscReal x0, PetscReal x, PetscReal *k2)
{
  PetscReal s = (x - x0) / L, k;

  if (lo == FG_PBC_PERIODIC) {
    k   = 2 * PETSC_PI / L;
    *k2 = k * k;
    return PetscSinReal(2 * PETSC_PI * s + 0.3);
  }
  if (lo == FG_PBC_NEUMANN && hi == FG_PBC_NEUMANN) {
    k   = PETSC_PI / L;
    *k2 = k * k;
    return PetscCosReal(PETSC_PI * s);
  }
  if (lo == FG_PBC_DIRICHLET && hi == FG_PBC_DIRICHLET) {
    k   = PETSC_PI / L;
    *k2 = k * k;
    return PetscSinReal(PETSC_PI * s);
  }
  k   = 0.5 * PETSC_PI / L;
  *k2 = k * k;
  return lo == FG_PBC_NEUMANN ? PetscCosReal(0.5 * PETSC_PI * s) : PetscSinReal(0.5 * PETSC_PI * s);
}

/* u = prod_d phi_d(x_d) and f = Laplacian(u) = -(sum_d k2_d) u at the cell centres. */
static inline PetscErrorCode FGTestManufactured(FGGrid g, const FGTestProblem *t, Vec u, Vec f)
{
  const FGBox *b = &g->box;
  PetscScalar *ua, *fa;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayWrite(u, &ua));
  PetscCall(VecGetArrayWrite(f, &fa));
  for (PetscInt k = b->lo[2]; k < b->hi[2]; k++)
    for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
      for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) {
        const PetscInt ijk[3] = {i, j, k};
        PetscReal      v = 1, k2sum = 0, k2;
        for (PetscInt d = 0; d < g->dim; d++) {
          v *= FGTestPhi(t->bc[d][0], t->bc[d][1], g->L[d], g->x0[d], FGGridCoordinate(g, FG_LOC_CELL, d, ijk[d]), &k2);
          k2sum += k2;
        }
        ua[FGBoxOwnedIndex(b, i, j, k)] = v;
        fa[FGBoxOwnedIndex(b, i, j, k)] = -k2sum * v;
      }
  PetscCall(VecRestoreArrayWrite(u, &ua));
  PetscCall(VecRestoreArrayWrite(f, &fa));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A deterministic, rank-independent right-hand side with all frequencies: a smooth part plus a
   hash of the global cell index (the same on any decomposition). */
static inline PetscErrorCode FGTestRoughRHS(FGGrid g, Vec f)
{
  const FGBox *b = &g->box;
  PetscScalar *fa;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayWrite(f, &fa));
  for (PetscInt k = b->lo[2]; k < b->hi[2]; k++)
    for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
      for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) {
        unsigned long long h = (unsigned long long)(i + g->n[0] * (j + g->n[1] * k)) * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 32;
        PetscReal x = FGGridCoordinate(g, FG_LOC_CELL, 0, i), y = FGGridCoordinate(g, FG_LOC_CELL, 1, j), z = FGGridCoordinate(g, FG_LOC_CELL, 2, k);
        fa[FGBoxOwnedIndex(b, i, j, k)] = PetscSinReal(2.1 * x + 0.4) * PetscCosReal(3.3 * y) + 0.5 * z + ((PetscReal)(h >> 11) / 9007199254740992.0 - 0.5);
      }
  PetscCall(VecRestoreArrayWrite(f, &fa));
  PetscFunctionReturn(PETSC_SUCCESS);
}


/* max|a - b| / max|b| of two Vecs of the same layout (collective). */
static inline PetscErrorCode FGTestRelDiff(Vec a, Vec b, PetscReal *rel)
{
  Vec       d;
  PetscReal nd, nb;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(d, NORM_INFINITY, &nd));
  PetscCall(VecNorm(b, NORM_INFINITY, &nb));
  *rel = nb > 0 ? nd / nb : nd;
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* max|xa - xb| / max|xb| for Vecs of two grids of the same size but any decomposition (or
   communicator: a grid on PETSC_COMM_SELF is whole on every rank), compared in natural ordering
   on rank 0; the result is broadcast to every rank of comm. */
static inline PetscErrorCode FGTestRelDiffNatural(MPI_Comm comm, FGGrid ga, Vec xa, FGGrid gb, Vec xb, PetscReal *rel)
{
  Vec         sa, sb;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(FGGridGatherNatural(ga, xa, &sa));
  PetscCall(FGGridGatherNatural(gb, xb, &sb));
  *rel = 0;
  if (rank == 0) PetscCall(FGTestRelDiff(sa, sb, rel)); /* sequential Vecs, whole grid on rank 0 */
  PetscCallMPI(MPI_Bcast(rel, 1, MPIU_REAL, 0, comm));
  PetscCall(VecDestroy(&sa));
  PetscCall(VecDestroy(&sb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ||L x - b||_2 / ||b||_2 via FGPoissonApply (b with its mean removed when L is singular). */
static inline PetscErrorCode FGTestResidual(FGPoisson p, FGGrid g, Vec x, Vec b, PetscReal *rel)
{
  Vec       r, bb;
  PetscReal nr, nb;
  PetscBool singular;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecDuplicate(b, &bb));
  PetscCall(VecCopy(b, bb));
  PetscCall(FGPoissonIsSingular(p, &singular));
  if (singular) {
    PetscScalar s;
    PetscCall(VecSum(bb, &s));
    PetscCall(VecShift(bb, -s / ((PetscReal)g->n[0] * g->n[1] * g->n[2])));
  }
  PetscCall(FGPoissonApply(p, x, r));
  PetscCall(VecAXPY(r, -1.0, bb));
  PetscCall(VecNorm(r, NORM_2, &nr));
  PetscCall(VecNorm(bb, NORM_2, &nb));
  *rel = nb > 0 ? nr / nb : nr;
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&bb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Remove the mean of a Vec of the grid. */
static inline PetscErrorCode FGTestRemoveMean(FGGrid g, Vec v)
{
  PetscScalar s;

  PetscFunctionBeginUser;
  PetscCall(VecSum(v, &s));
  PetscCall(VecShift(v, -s / ((PetscReal)g->n[0] * g->n[1] * g->n[2])));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A short description of the boundary kinds, e.g. "x:P-P y:N-D". */
static inline void FGTestBCString(const FGTestProblem *t, char *s, size_t len)
{
  const char c[] = {'P', 'N', 'D'};
  size_t     o   = 0;
  for (PetscInt d = 0; d < t->dim && o < len; d++) o += (size_t)snprintf(s + o, len - o, "%s%c:%c-%c", d ? " " : "", "xyz"[d], c[t->bc[d][0]], c[t->bc[d][1]]);
}


#endif
