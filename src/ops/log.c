/*
  Log events of the operators and of the time step (-log_view), registered once per
  PetscInitialize on first use (as PETSc's own packages do).
*/
#include <fg/ops.h>

PetscClassId  FG_CLASSID_Ops;
PetscLogEvent FG_EVENT_Advection, FG_EVENT_Diffusion, FG_EVENT_Divergence, FG_EVENT_Gradient, FG_EVENT_FillBoundary, FG_EVENT_GhostUpdate, FG_EVENT_Step;
static PetscBool FGOpsPackageInitialized = PETSC_FALSE;

static PetscErrorCode FGOpsFinalizePackage_Private(void)
{
  PetscFunctionBeginUser;
  FGOpsPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGOpsInitializePackage(void)
{
  PetscFunctionBeginUser;
  if (FGOpsPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  FGOpsPackageInitialized = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("FG Operators", &FG_CLASSID_Ops));
  PetscCall(PetscLogEventRegister("FGStep", FG_CLASSID_Ops, &FG_EVENT_Step));
  PetscCall(PetscLogEventRegister("FGOpAdvection", FG_CLASSID_Ops, &FG_EVENT_Advection));
  PetscCall(PetscLogEventRegister("FGOpDiffusion", FG_CLASSID_Ops, &FG_EVENT_Diffusion));
  PetscCall(PetscLogEventRegister("FGOpDivergence", FG_CLASSID_Ops, &FG_EVENT_Divergence));
  PetscCall(PetscLogEventRegister("FGOpGradient", FG_CLASSID_Ops, &FG_EVENT_Gradient));
  PetscCall(PetscLogEventRegister("FGOpFillBoundary", FG_CLASSID_Ops, &FG_EVENT_FillBoundary));
  PetscCall(PetscLogEventRegister("FGGhostUpdate", FG_CLASSID_Ops, &FG_EVENT_GhostUpdate));
  PetscCall(PetscRegisterFinalize(FGOpsFinalizePackage_Private));
  PetscFunctionReturn(PETSC_SUCCESS);
}
