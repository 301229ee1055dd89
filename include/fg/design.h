/* flowgrad design vector (src/design/design.c).

   Design vector p: one PETSc Vec with named blocks (design.parameters in the case file):
     scalar blocks, held by rank 0:  flow.nu, flow.inflow_speed, body.NAME.shape (the shape's
                                     parameters, placement first), body.NAME.shape.PARAM (one of
                                     them, by its name: x0, r, aoa, ...), body.NAME.rotation_rate,
                                     body.NAME.jet_amplitude, actuator.NAME.force
     field blocks, distributed:      body.NAME.density (rho per cell), initial.velocity (u, v[, w]
                                     on their faces, in the grid's global Vec layout, one component
                                     after the other)
   FGDesignApply() maps p to the solver's parameters (include/fg/solver.h, FGParams) and applies
   them; the reverse sweep's parameter adjoints (FGParams) map back through the transposed maps to
   g = dJ/dp (FGDesignGradient). */
#ifndef FG_DESIGN_H
#define FG_DESIGN_H

#include <fg/solver.h>

typedef enum { FG_DESIGN_NU, FG_DESIGN_INFLOW, FG_DESIGN_SHAPE, FG_DESIGN_ROTATION, FG_DESIGN_JETS, FG_DESIGN_ACTUATOR, FG_DESIGN_DENSITY, FG_DESIGN_INITIAL } FGDesignKind;

typedef struct {
  char         name[FG_CASE_DESIGN_LEN];
  FGDesignKind kind;
  PetscInt     index;  /* the body or actuator */
  PetscInt     first;  /* shape blocks: the first of the body's shape parameters in the block */
  PetscInt     n;      /* entries (global) */
  PetscBool    field;  /* distributed */
  PetscInt     offset; /* scalar blocks: first scalar; field blocks: first entry in this rank's local array */
} FGDesignBlock;

typedef struct _p_FGDesign *FGDesign;
PETSC_EXTERN PetscErrorCode FGDesignCreate(FGSolver, const FGCase *, FGDesign *);
PETSC_EXTERN PetscErrorCode FGDesignDestroy(FGDesign *);
PETSC_EXTERN PetscErrorCode FGDesignCreateVec(FGDesign, Vec *);
PETSC_EXTERN PetscErrorCode FGDesignGetValues(FGDesign, Vec);
PETSC_EXTERN PetscErrorCode FGDesignApply(FGDesign, Vec);
PETSC_EXTERN PetscErrorCode FGDesignSetInitialState(FGDesign, Vec);
PETSC_EXTERN PetscErrorCode FGDesignGetBlocks(FGDesign, PetscInt *, const FGDesignBlock **);
PETSC_EXTERN PetscErrorCode FGDesignBlockFields(FGDesign, PetscInt, Vec, Vec[], PetscBool);
PETSC_EXTERN PetscErrorCode FGDesignGetScalars(FGDesign, Vec, PetscInt *, PetscReal **);
PETSC_EXTERN PetscErrorCode FGDesignScalarName(FGDesign, PetscInt, char[], size_t);
PETSC_EXTERN PetscErrorCode FGDesignGradient(FGDesign, const FGParams *, Vec[], Vec);
PETSC_EXTERN PetscErrorCode FGDesignGradientScalars(FGDesign, const FGParams *, PetscReal[]);
PETSC_EXTERN PetscErrorCode FGDesignHash(FGDesign, Vec, unsigned long long *);
PETSC_EXTERN PetscErrorCode FGDesignIsControl(FGDesign, PetscInt, PetscBool *);
PETSC_EXTERN PetscReal      FGDesignScalarScale(FGDesign, PetscInt, PetscReal);

#endif
