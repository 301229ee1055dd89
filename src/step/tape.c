/*
  The step's tape (include/fg/step.h): what FGStepForward_RK3 records for its tangent and adjoint
  (each stage's ghosted start velocity and its predicted velocity before the penalization; with
  the implicit viscous term, the divergence its pressure update used and the solve's output; with
  a sharp wall's apertures, the end state ghosted, and with both the projections' inputs; with its
  line flux, each projection's phi too), and
  the work vectors of the linearized steps. A taped run of many steps keeps one tape per step,
  sharing one set of work vectors (FGStepTapeDuplicate).
*/
#include <fg/step.h>

/* A tape with its recorded vectors (the stage values), without work vectors. */
static PetscErrorCode FGStepTapeCreateRecord_Private(FGSolver s, FGStepTape *tape)
{
  FGStepTape T;
  DM         da = s->grid->da;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&T));
  for (PetscInt a = 0; a < s->grid->dim; a++)
    for (PetscInt k = 0; k < 3; k++) {
      PetscCall(DMCreateLocalVector(da, &T->ul[k][a]));
      PetscCall(DMCreateGlobalVector(da, &T->ustar[k][a]));
    }
  if (s->viscous)
    for (PetscInt k = 0; k < 3; k++) {
      PetscCall(DMCreateGlobalVector(da, &T->div[k]));
      for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(DMCreateGlobalVector(da, &T->uvis[k][a]));
    }
  {
    Vec *Al;
    Mat *Wm;
    PetscCall(FGBodiesGetLineFlux(s->bodies, &Wm));
    for (PetscInt k = 0; Wm && k < 3; k++) PetscCall(DMCreateGlobalVector(da, &T->phik[k]));
    PetscCall(FGBodiesGetApertures(s->bodies, &Al));
    for (PetscInt a = 0; Al && a < s->grid->dim; a++) {
      PetscCall(DMCreateLocalVector(da, &T->uend[a]));
      for (PetscInt k = 0; s->viscous && k < 3; k++) PetscCall(DMCreateLocalVector(da, &T->upin[k][a]));
    }
  }
  *tape = T;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGStepTapeCreate - a tape: the recorded stage values of one step, and the work vectors of the
  tangent and adjoint steps.

  Collective.

.seealso: FGStepTapeDuplicate()
@*/
PetscErrorCode FGStepTapeCreate(FGSolver s, FGStepTape *tape)
{
  FGStepTape T;
  DM         da = s->grid->da;

  PetscFunctionBeginUser;
  PetscCall(FGStepTapeCreateRecord_Private(s, &T));
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    PetscCall(DMCreateLocalVector(da, &T->wl[a]));
    PetscCall(DMCreateGlobalVector(da, &T->wH[a]));
    PetscCall(DMCreateGlobalVector(da, &T->wHo[a]));
  }
  PetscCall(DMCreateGlobalVector(da, &T->wdiv));
  PetscCall(DMCreateGlobalVector(da, &T->wphi));
  PetscCall(DMCreateLocalVector(da, &T->wphil));
  if (T->uend[0])
    for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(DMCreateLocalVector(da, &T->wA[a]));
  *tape = T;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGStepTapeDuplicate - a tape with its own recorded values that shares the work vectors of
  another (a reference each), for keeping the tapes of many steps: only one tangent or adjoint
  step may run at a time among tapes that share work.

  Collective.
@*/
PetscErrorCode FGStepTapeDuplicate(FGSolver s, FGStepTape work, FGStepTape *tape)
{
  FGStepTape T;

  PetscFunctionBeginUser;
  PetscCall(FGStepTapeCreateRecord_Private(s, &T));
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    T->wl[a]  = work->wl[a];
    T->wH[a]  = work->wH[a];
    T->wHo[a] = work->wHo[a];
    PetscCall(PetscObjectReference((PetscObject)T->wl[a]));
    PetscCall(PetscObjectReference((PetscObject)T->wH[a]));
    PetscCall(PetscObjectReference((PetscObject)T->wHo[a]));
  }
  for (PetscInt a = 0; a < 3; a++) {
    T->wA[a] = work->wA[a];
    if (T->wA[a]) PetscCall(PetscObjectReference((PetscObject)T->wA[a]));
  }
  T->wdiv  = work->wdiv;
  T->wphi  = work->wphi;
  T->wphil = work->wphil;
  PetscCall(PetscObjectReference((PetscObject)T->wdiv));
  PetscCall(PetscObjectReference((PetscObject)T->wphi));
  PetscCall(PetscObjectReference((PetscObject)T->wphil));
  *tape = T;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGStepTapeDestroy(FGStepTape *tape)
{
  FGStepTape T = *tape;

  PetscFunctionBeginUser;
  if (!T) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt a = 0; a < 3; a++) {
    for (PetscInt k = 0; k < 3; k++) {
      PetscCall(VecDestroy(&T->ul[k][a]));
      PetscCall(VecDestroy(&T->ustar[k][a]));
      PetscCall(VecDestroy(&T->uvis[k][a]));
      PetscCall(VecDestroy(&T->upin[k][a]));
    }
    PetscCall(VecDestroy(&T->uend[a]));
    PetscCall(VecDestroy(&T->phik[a]));
    PetscCall(VecDestroy(&T->wA[a]));
    PetscCall(VecDestroy(&T->div[a]));
    PetscCall(VecDestroy(&T->wl[a]));
    PetscCall(VecDestroy(&T->wH[a]));
    PetscCall(VecDestroy(&T->wHo[a]));
  }
  PetscCall(VecDestroy(&T->wdiv));
  PetscCall(VecDestroy(&T->wphi));
  PetscCall(VecDestroy(&T->wphil));
  PetscCall(PetscFree(*tape));
  PetscFunctionReturn(PETSC_SUCCESS);
}
