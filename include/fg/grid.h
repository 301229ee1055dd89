/* flowgrad grid: a Cartesian 2D/3D tensor-product grid on a PETSc DMDA, MAC (staggered) layout.

   Index (i,j,k) names cell (i,j,k), i in [0,n[0]), etc. (k = 0 only in 2D). Every field is one
   Vec on the same dof-1 DMDA (box stencil, ghost width 1); where a field lives depends on its
   location:
     FG_LOC_CELL    p at the cell centre     (xc_0[i], xc_1[j], ...)
     FG_LOC_FACE_X  u at the cell's +x face  (xf_0[i], xc_1[j], ...)
     FG_LOC_FACE_Y  v at the cell's +y face, FG_LOC_FACE_Z w at the cell's +z face.
   In a non-periodic direction d the face with index n[d]-1 lies on the upper boundary and the
   lower boundary face is the ghost index -1 (as in CaNS).

   Each direction is uniform (spacing h[d] = L[d]/n[d]) or stretched (FGGridSetFaces: any
   increasing face coordinates). The metrics of direction d, FGAxis g->ax[d], indexed by the cell
   or face index from -2 to n[d]+1 (the ghosts mirror the boundary cells, or wrap around where
   periodic):
     xf[i]   the +face of cell i;   xc[i] = (xf[i-1] + xf[i])/2 its centre
     dxf[i]  = xf[i] - xf[i-1], the width of cell i (the control volume of a centre value)
     dxc[i]  = xc[i+1] - xc[i], the distance between the centres across face i (the control
             volume of a face value along d); idxf = 1/dxf, idxc = 1/dxc.
   On a uniform direction dxf = dxc = h exactly, so the operators compute what they computed on
   the uniform grid, bit for bit.

   Decomposition. FG_DECOMP_SLAB splits only the slowest direction (y in 2D, z in 3D) into the
   slabs FFTW-MPI uses, so FFTW works on the DMDA's local arrays as they are; it needs at least one
   plane per rank. FG_DECOMP_BLOCK lets PETSc split every direction (the KSP path).

   Dimension-generic kernels loop over an FGBox with raw arrays and strides:
     for (k = b.lo[2]; k < b.hi[2]; k++) for (j ...) for (i ...) {
       PetscInt c = FGBoxIndex(&b, i, j, k);   a[c + b.s[d]] is the +d neighbour }
*/
#ifndef FG_GRID_H
#define FG_GRID_H

#include <fg/sys.h>
#include <petscdmda.h>

typedef enum { FG_DECOMP_SLAB = 0, FG_DECOMP_BLOCK } FGDecomp;
PETSC_EXTERN const char *const FGDecompNames[];

typedef enum { FG_LOC_CELL = 0, FG_LOC_FACE_X, FG_LOC_FACE_Y, FG_LOC_FACE_Z } FGLocation;
PETSC_EXTERN const char *const FGLocationNames[];

/* Owned and ghosted index ranges of this rank, and the strides of its ghosted local array. */
typedef struct {
  PetscInt lo[3], hi[3];   /* owned cells: [lo, hi) per direction */
  PetscInt glo[3], ghi[3]; /* ghosted local array: [glo, ghi) */
  PetscInt s[3];           /* strides of the ghosted local array: 1, gnx, gnx*gny (0 in 2D z) */
  PetscInt os[3];          /* strides of the owned (global Vec) array */
} FGBox;

/* Offset of (i,j,k) in a ghosted local array (DMGetLocalVector + VecGetArray). */
static inline PetscInt FGBoxIndex(const FGBox *b, PetscInt i, PetscInt j, PetscInt k)
{
  return (i - b->glo[0]) + (j - b->glo[1]) * b->s[1] + (k - b->glo[2]) * b->s[2];
}
/* Offset of (i,j,k) in an owned array (a global Vec's VecGetArray). */
static inline PetscInt FGBoxOwnedIndex(const FGBox *b, PetscInt i, PetscInt j, PetscInt k)
{
  return (i - b->lo[0]) + (j - b->lo[1]) * b->os[1] + (k - b->lo[2]) * b->os[2];
}

/* The metrics of one direction (see above); each pointer addresses index 0 of an array that
   starts at index -2 (FG_AXIS_GHOST). */
#define FG_AXIS_GHOST 2
typedef struct {
  PetscReal *xf, *xc, *dxf, *dxc, *idxf, *idxc;
  PetscReal *mem; /* the one allocation behind them */
  PetscReal  hmin, hmax, growth; /* smallest and largest cell width; largest ratio of neighbours */
} FGAxis;

typedef struct _p_FGGrid *FGGrid;
struct _p_FGGrid {
  MPI_Comm  comm;
  PetscInt  dim;
  PetscInt  n[3];        /* cells per direction; n[2] = 1 in 2D */
  PetscReal L[3];        /* domain lengths */
  PetscReal x0[3];       /* lower corner */
  PetscReal h[3];        /* the spacing L/n of a uniform direction; of a stretched one, the mean */
  PetscBool uniform[3];  /* direction d is uniform (dxf = dxc = h) */
  PetscBool isuniform;   /* every direction is */
  FGAxis    ax[3];       /* the metrics per direction */
  PetscBool periodic[3];
  FGDecomp  decomp;
  PetscInt  nproc[3];    /* ranks per direction */
  DM        da;          /* dof 1, box stencil, width 1 */
  FGBox     box;
};

PETSC_EXTERN PetscErrorCode FGGridCreate(MPI_Comm, PetscInt, const PetscInt[], const PetscReal[], const PetscReal[], const PetscBool[], FGDecomp, FGGrid *);
PETSC_EXTERN PetscErrorCode FGGridSetFaces(FGGrid, PetscInt, const PetscReal[]);
PETSC_EXTERN PetscErrorCode FGGridCheckFaces(PetscInt, const PetscReal[], PetscReal, PetscReal, char *, size_t);
/* 1-D stretchings (src/grid/stretch.c) */
typedef enum { FG_CLUSTER_BOTH = 0, FG_CLUSTER_LOWER, FG_CLUSTER_UPPER } FGStretchCluster;
PETSC_EXTERN const char *const FGStretchClusterNames[];
PETSC_EXTERN PetscErrorCode FGStretchBand(PetscReal, PetscReal, PetscReal, PetscReal, PetscReal, PetscReal, PetscReal, PetscInt *, PetscReal **, char *, size_t);
PETSC_EXTERN PetscErrorCode FGStretchTanh(PetscReal, PetscReal, PetscInt, PetscReal, FGStretchCluster, PetscReal[]);
PETSC_EXTERN PetscReal      FGGridCellVolume(FGGrid, PetscInt, PetscInt, PetscInt);
PETSC_EXTERN PetscReal      FGGridMinSpacing(FGGrid);
PETSC_EXTERN PetscReal      FGGridWidth(FGGrid, FGLocation, PetscInt, PetscInt);
PETSC_EXTERN PetscReal      FGGridVolume(FGGrid, FGLocation, const PetscInt[]);
PETSC_EXTERN PetscInt       FGGridFloor(FGGrid, FGLocation, PetscInt, PetscReal);
PETSC_EXTERN void           FGGridIndexRange(FGGrid, FGLocation, PetscInt, PetscReal, PetscReal, PetscInt *, PetscInt *);
PETSC_EXTERN PetscInt       FGGridCellOf(FGGrid, PetscInt, PetscReal);
PETSC_EXTERN PetscReal      FGGridSpacingIn(FGGrid, PetscInt, PetscReal, PetscReal);
PETSC_EXTERN PetscErrorCode FGGridCellDensity(FGGrid, PetscInt, const Vec[], Vec);
PETSC_EXTERN PetscErrorCode FGGridCreateStarDM(FGGrid, const char[], DM *);
PETSC_EXTERN PetscErrorCode FGGridDestroy(FGGrid *);
PETSC_EXTERN PetscErrorCode FGGridView(FGGrid, PetscViewer);
PETSC_EXTERN PetscErrorCode FGGridSlabCheck(MPI_Comm, PetscInt, const PetscInt[], PetscBool *, char *, size_t);
PETSC_EXTERN PetscReal      FGGridCoordinate(FGGrid, FGLocation, PetscInt, PetscInt);
PETSC_EXTERN PetscErrorCode FGGridGatherNatural(FGGrid, Vec, Vec *);
PETSC_EXTERN PetscInt       FGGridGlobalIndex(FGGrid, const PetscInt[]);

#endif
