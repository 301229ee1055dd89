/* flowgrad field output: parallel HDF5 (global arrays, collective) + XDMF sidecars.

   One HDF5 file per output time. Each field is a dataset "/<name>" holding the global array in
   natural order, shape (ny, nx) in 2D and (nz, ny, nx) in 3D (C order, x fastest), written
   collectively, so it reads back on any number of ranks. Attributes:
     on "/":        time (double), step (int), dim (int), cells (int[3], x y z), lengths,
                    origin, spacing (double[3]), case_hash (string, 16 hex digits),
                    case_name (string), flowgrad_version (string)
     on a dataset:  location ("cell", "face_x", "face_y", "face_z")
   The file is written as <path>.tmp and renamed to <path> once complete. The XDMF sidecar
   (<path without .h5>.xmf) describes each field where it lives: cell fields on the cell grid
   (Center="Cell"), face fields as point data on the grid of their face centres. */
#ifndef FG_IO_H
#define FG_IO_H

#include <fg/grid.h>

typedef struct {
  const char *name;     /* dataset name */
  FGLocation  location; /* where the values live */
  Vec         vec;      /* a global Vec of grid->da */
} FGIOField;

typedef struct {
  PetscReal          time;
  PetscInt           step;
  unsigned long long case_hash;
  const char        *case_name;
} FGIOMeta;

PETSC_EXTERN PetscErrorCode FGIOWriteFields(FGGrid, const char *, const FGIOMeta *, PetscInt, const FGIOField[]);
PETSC_EXTERN PetscErrorCode FGIOReadField(FGGrid, const char *, const char *, Vec);
PETSC_EXTERN PetscErrorCode FGIOReadMeta(MPI_Comm, const char *, FGIOMeta *, char *, size_t);

#endif
