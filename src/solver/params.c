/*
  The parameters of a time step (include/fg/solver.h): their layout, made once from the case and
  its bodies, and objects of that layout (values, perturbations, adjoints), their reduction over
  the ranks and their inner product.

  Layout: v = [nu, inflow, actuator coefficients (3 per actuator per basis function in time),
  theta_0, theta_1, ...]: one contiguous array, so that packing, reducing and writing the
  parameter adjoints is one operation on v, whatever the numbers of bodies, actuators and basis
  functions (no cap).
*/
#include <fg/solver.h>

/*@C
  FGParamLayoutCreate - the parameters' layout of a case with its bodies. Not collective.
@*/
PetscErrorCode FGParamLayoutCreate(const FGCase *c, FGBodies B, FGParamLayout *L)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(L, sizeof(*L)));
  L->nbasis = PetscMax(c->design.time_basis, 1);
  L->nact   = c->nactuators;
  L->act    = 2;
  L->n      = L->act + 3 * L->nact * L->nbasis;
  PetscCall(FGBodiesGetCount(B, &L->nbodies));
  PetscCall(PetscMalloc2(L->nbodies, &L->body, L->nbodies, &L->nbody));
  for (PetscInt b = 0; b < L->nbodies; b++) {
    PetscCall(FGBodiesGetParameterCount(B, b, &L->nbody[b]));
    L->body[b] = L->n;
    L->n += L->nbody[b];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGParamLayoutDestroy(FGParamLayout *L)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(L->body, L->nbody));
  PetscCall(PetscMemzero(L, sizeof(*L)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGParamsCreate - an object of layout L, all scalars 0, no fields. The layout must outlive it.
  Not collective.
@*/
PetscErrorCode FGParamsCreate(const FGParamLayout *L, FGParams *p)
{
  const PetscInt nb = L->nbodies;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  p->L = L;
  PetscCall(PetscCalloc1(PetscMax(L->n, 1), &p->v));
  PetscCall(PetscCalloc3(PetscMax(nb, 1), &p->theta, PetscMax(nb, 1), &p->rho, PetscMax(nb, 1), &p->chif));
  for (PetscInt b = 0; b < nb; b++) p->theta[b] = L->nbody[b] ? p->v + L->body[b] : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGParamsDestroy - free the scalars and the fields the object holds (rho, chif); chibar and sens
  are the caller's and stay.
@*/
PetscErrorCode FGParamsDestroy(FGParams *p)
{
  PetscFunctionBeginUser;
  if (!p->L) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt b = 0; b < p->L->nbodies; b++) {
    PetscCall(VecDestroy(&p->rho[b]));
    for (PetscInt a = 0; a < 3; a++) PetscCall(VecDestroy(&p->chif[b][a]));
  }
  PetscCall(PetscFree(p->v));
  PetscCall(PetscFree3(p->theta, p->rho, p->chif));
  PetscCall(PetscMemzero(p, sizeof(*p)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGParamsZero - every scalar and every face-mask field 0 (chibar and sens are left alone).
  Collective when it holds fields.
@*/
PetscErrorCode FGParamsZero(FGParams *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(p->v, p->L->n));
  for (PetscInt b = 0; b < p->L->nbodies; b++)
    for (PetscInt a = 0; a < 3; a++)
      if (p->chif[b][a]) PetscCall(VecSet(p->chif[b][a], 0.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGParamsCreateFaceMasks - give a perturbation or adjoint object the face-mask fields of every
  density body (dim components, global Vecs of the grid, 0). Collective.
@*/
PetscErrorCode FGParamsCreateFaceMasks(FGParams *p, FGBodies B, PetscInt dim)
{
  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < p->L->nbodies; b++) {
    Vec rho;
    PetscCall(FGBodiesGetDensity(B, b, &rho, NULL));
    if (!rho) continue;
    for (PetscInt a = 0; a < dim; a++) {
      PetscCall(VecDuplicate(rho, &p->chif[b][a]));
      PetscCall(VecSet(p->chif[b][a], 0.0));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGParamsReduce - sum the scalars over the ranks (the adjoint step leaves local partial sums; the
  face-mask fields are global Vecs already). Collective.
@*/
PetscErrorCode FGParamsReduce(MPI_Comm comm, FGParams *p)
{
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, p->v, (PetscMPIInt)p->L->n, MPIU_REAL, MPIU_SUM, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGParamsDot - the Euclidean inner product of the scalars of two objects of one layout.
@*/
PetscReal FGParamsDot(const FGParams *x, const FGParams *y)
{
  PetscReal d = 0;
  for (PetscInt i = 0; i < x->L->n; i++) d += x->v[i] * y->v[i];
  return d;
}
