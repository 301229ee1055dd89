/*
  Log events of the operators and of the time step (-log_view), registered once per
  PetscInitialize on first use (as PETSc's own packages do).
*/
#include <fg/ops.h>

PetscClassId  FG_CLASSID_Ops;
PetscLogEvent FG_EVENT_Momentum, FG_EVENT_Advection, FG_EVENT_Diffusion, FG_EVENT_Divergence, FG_EVENT_Gradient, FG_EVENT_FillBoundary, FG_EVENT_GhostUpdate, FG_EVENT_Step;
PetscLogEvent FG_EVENT_StepTangent, FG_EVENT_StepAdjoint, FG_EVENT_AdvectionTangent, FG_EVENT_AdvectionAdjoint, FG_EVENT_DiffusionAdjoint, FG_EVENT_DivergenceAdjoint, FG_EVENT_GradientAdjoint, FG_EVENT_FillBoundaryAdjoint;
PetscLogEvent FG_EVENT_BodyBuild, FG_EVENT_BodyPenalize, FG_EVENT_BodyPenalizeTangent, FG_EVENT_BodyPenalizeAdjoint, FG_EVENT_BodyControlVolume;
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
  PetscCall(PetscLogEventRegister("FGOpMomentum", FG_CLASSID_Ops, &FG_EVENT_Momentum));
  PetscCall(PetscLogEventRegister("FGOpAdvection", FG_CLASSID_Ops, &FG_EVENT_Advection));
  PetscCall(PetscLogEventRegister("FGOpDiffusion", FG_CLASSID_Ops, &FG_EVENT_Diffusion));
  PetscCall(PetscLogEventRegister("FGOpDivergence", FG_CLASSID_Ops, &FG_EVENT_Divergence));
  PetscCall(PetscLogEventRegister("FGOpGradient", FG_CLASSID_Ops, &FG_EVENT_Gradient));
  PetscCall(PetscLogEventRegister("FGOpFillBoundary", FG_CLASSID_Ops, &FG_EVENT_FillBoundary));
  PetscCall(PetscLogEventRegister("FGGhostUpdate", FG_CLASSID_Ops, &FG_EVENT_GhostUpdate));
  PetscCall(PetscLogEventRegister("FGStepTangent", FG_CLASSID_Ops, &FG_EVENT_StepTangent));
  PetscCall(PetscLogEventRegister("FGStepAdjoint", FG_CLASSID_Ops, &FG_EVENT_StepAdjoint));
  PetscCall(PetscLogEventRegister("FGOpAdvectionTan", FG_CLASSID_Ops, &FG_EVENT_AdvectionTangent));
  PetscCall(PetscLogEventRegister("FGOpAdvectionAdj", FG_CLASSID_Ops, &FG_EVENT_AdvectionAdjoint));
  PetscCall(PetscLogEventRegister("FGOpDiffusionAdj", FG_CLASSID_Ops, &FG_EVENT_DiffusionAdjoint));
  PetscCall(PetscLogEventRegister("FGOpDivergenceAdj", FG_CLASSID_Ops, &FG_EVENT_DivergenceAdjoint));
  PetscCall(PetscLogEventRegister("FGOpGradientAdj", FG_CLASSID_Ops, &FG_EVENT_GradientAdjoint));
  PetscCall(PetscLogEventRegister("FGOpFillBdryAdj", FG_CLASSID_Ops, &FG_EVENT_FillBoundaryAdjoint));
  PetscCall(PetscLogEventRegister("FGBodyBuild", FG_CLASSID_Ops, &FG_EVENT_BodyBuild));
  PetscCall(PetscLogEventRegister("FGBodyPenalize", FG_CLASSID_Ops, &FG_EVENT_BodyPenalize));
  PetscCall(PetscLogEventRegister("FGBodyPenalizeTan", FG_CLASSID_Ops, &FG_EVENT_BodyPenalizeTangent));
  PetscCall(PetscLogEventRegister("FGBodyPenalizeAdj", FG_CLASSID_Ops, &FG_EVENT_BodyPenalizeAdjoint));
  PetscCall(PetscLogEventRegister("FGBodyControlVol", FG_CLASSID_Ops, &FG_EVENT_BodyControlVolume));
  PetscCall(PetscRegisterFinalize(FGOpsFinalizePackage_Private));
  PetscFunctionReturn(PETSC_SUCCESS);
}
