/* flowgrad field output: parallel HDF5 (global arrays, collective) + XDMF sidecars.

   One HDF5 file per output time. Each field is a dataset "/<name>" holding the global array in
   natural order, shape (ny, nx) in 2D and (nz, ny, nx) in 3D (C order, x fastest), IEEE double
   little-endian, contiguous, written collectively (MPI-IO), so it reads back on any number of
   ranks and any decomposition. Attributes:
     on "/":        time (double), step (int64), dim (int64), cells (int64[3], x y z), lengths,
                    origin, spacing (double[3], x y z; in 2D the z entries are 1, 1, 0, 1),
                    case_hash (string, 16 lower-case hex digits), case_name (string),
                    flowgrad_version (string)
     on a dataset:  location ("cell", "face_x", "face_y", "face_z")
   A vector field (ncomp > 0) is one dataset of shape (ny, nx, 3) / (nz, ny, nx, 3): three
   components always (those not given are 0, e.g. w in 2D), as ParaView and VisIt want vectors.
   Strings are fixed-length, null-terminated ASCII. Field names are 1-64 characters from
   [A-Za-z0-9_.+-] (they appear in HDF5 paths and XML).

   The file is written as <path>.tmp and renamed to <path> once complete, so a crash never leaves
   a partial file under the final name. The XDMF sidecar (<path without .h5>.xmf, also written
   through a .tmp) describes each field where it lives: cell fields on the cell grid
   (Center="Cell"), face fields as point data on the grid of their face centres; it refers to the
   HDF5 file by its base name, so the directory can be moved. */
#ifndef FG_IO_H
#define FG_IO_H

#include <fg/grid.h>

typedef struct {
  const char *name;     /* dataset name */
  FGLocation  location; /* where the values live */
  Vec         vec;      /* a global Vec of grid->da (a scalar field) */
  PetscInt    ncomp;    /* 0: a scalar field (vec); 1-3: a vector field of these components */
  Vec         comp[3];  /* a vector field's components, global Vecs of grid->da (vec unused) */
} FGIOField;

/* A small 1-D dataset "/<name>" (doubles, replicated: every rank passes the same values), and
   with labels a dataset "/<name>_names" of fixed-length strings (one per value, < 128 chars). */
typedef struct {
  const char        *name;
  PetscInt           n;
  const PetscReal   *values;
  const char *const *labels; /* NULL: none */
} FGIOVector;

typedef struct {
  PetscReal          time;
  PetscInt           step;
  unsigned long long case_hash;
  const char        *case_name; /* NULL: ""; at most 255 characters */
  PetscInt           nvectors;  /* optional small datasets written with the fields (gradient tables) */
  const FGIOVector  *vectors;
  PetscBool          no_sidecar; /* no XDMF sidecar (files only flowgrad reads back: the adjoint's checkpoints) */
  PetscBool          time_is_step; /* the sidecar's Time is the step (an optimization's iterations, all
                                     at t = 0: ParaView's time axis runs over the iterations) */
} FGIOMeta;

/* Append a state's fields to a list: u, v[, w] on their faces and p at the cells (adjoint: u_adj,
   v_adj[, w_adj], p_adj). Not collective. */
PETSC_EXTERN PetscErrorCode FGIOAddState(FGGrid, PetscBool, Vec[], Vec, FGIOField[], PetscInt *);
PETSC_EXTERN PetscErrorCode FGIOWriteFields(FGGrid, const char *, const FGIOMeta *, PetscInt, const FGIOField[]);
PETSC_EXTERN PetscErrorCode FGIOReadField(FGGrid, const char *, const char *, Vec);
/* The same from a file of this grid or of another grid of the same domain (interpolated; src/io/regrid.c). */
PETSC_EXTERN PetscErrorCode FGIOReadFieldAnyGrid(FGGrid, const char *, const char *, FGLocation, PetscBool, Vec, PetscBool *, PetscBool *);
/* A cell field from a file the user named: every problem with the file is FG_ERR_INPUT, with the
   caller's context (where, what) in the message. */
PETSC_EXTERN PetscErrorCode FGIOReadCellField(FGGrid, const char *, const char *, const char *, const char *, Vec);
PETSC_EXTERN PetscErrorCode FGIOReadMeta(MPI_Comm, const char *, FGIOMeta *, char *, size_t);
PETSC_EXTERN PetscErrorCode FGIOReadVector(MPI_Comm, const char *, const char *, PetscInt, PetscReal[]);

/* The sidecar alone (FGIOWriteFields calls it): collective, rank 0 writes. */
PETSC_EXTERN PetscErrorCode FGIOWriteXDMF(FGGrid, const char *, const FGIOMeta *, PetscInt, const FGIOField[]);
/* <path without .h5>.xmf (or <path>.xmf when path does not end in .h5); not collective. */
PETSC_EXTERN PetscErrorCode FGIOXDMFPath(const char *, char *, size_t);
PETSC_EXTERN PetscErrorCode FGIOWriteXDMFSeries(MPI_Comm, const char *, const char *, const char *);
/* Whether a field list is valid for the grid (names, uniqueness, locations); not collective. */
PETSC_EXTERN PetscErrorCode FGIOCheckFields(FGGrid, PetscInt, const FGIOField[], PetscBool *, char *, size_t);

#endif
