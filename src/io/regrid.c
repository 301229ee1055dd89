/*
  A field written on another grid of the same domain (initial.type: file from a coarser or finer
  run: grid sequencing, e.g. a steady state at h as Newton's start at h/2).

  FGIOReadFieldAnyGrid reads dataset `name` of a flowgrad field file at location loc of this grid.
  When the file's grid is this one (same cells, face coordinates within 1e-12 of the domain) it is
  FGIOReadField, bit for bit. Otherwise the file must hold its face coordinates (/x_faces, ...,
  which every field file of flowgrad has), of the same domain (to 1e-9 of each length); each rank
  reads, collectively, the hyperslab of the file that covers its box (one index of margin; a
  periodic direction whole), and every value of this grid is the multilinear interpolation of the
  file's values of the same location (u on the file's x-faces, ...) at its own position. Where a
  position lies beyond the file's outermost values of that location (within half a cell of a
  non-periodic boundary), the nearest one is taken; along a periodic direction the file's values
  wrap. The result is not divergence free on this grid: the caller projects it.

  The dataset's checksum is checked as FGIOReadField does: every value of the file is counted by
  exactly one rank, the one that owns the cell of this grid its position lies in (clamped to the
  grid), which lies in that rank's hyperslab; the per-value terms sum to the file's checksum for
  any decomposition (src/io/checksum.c).
*/
#include <fg/io.h>
#include "ioimpl.h"

typedef struct {
  PetscInt   dim, n[3];
  PetscReal *xf[3]; /* the file's faces, n + 1 per direction */
} FGFileGrid;

static PetscErrorCode FGFileGridFree_Private(FGFileGrid *f)
{
  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++) PetscCall(PetscFree(f->xf[d]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The file's position of index i along d for location loc (a face: the face above cell i). */
static inline PetscReal FGFilePosition_Private(const FGFileGrid *f, FGLocation loc, PetscInt d, PetscInt i)
{
  const PetscBool onface = (PetscBool)(loc == (FGLocation)(FG_LOC_FACE_X + d));
  return onface ? f->xf[d][i + 1] : 0.5 * (f->xf[d][i] + f->xf[d][i + 1]);
}

/* The bracket of position x among the file's positions along d: x between index *i and *i + 1 with
   weight *w on the upper one. Periodic: *i in [-1, n - 1] (-1 and n wrap); else clamped to the
   outermost position (*i in [0, n - 1], *w 0, or *i = n - 2, *w 1). */
static void FGFileBracket_Private(const FGFileGrid *f, FGLocation loc, PetscInt d, PetscBool periodic, PetscReal L, PetscReal x, PetscInt *i, PetscReal *w)
{
  const PetscInt  n  = f->n[d];
  const PetscReal s0 = FGFilePosition_Private(f, loc, d, 0), s1 = FGFilePosition_Private(f, loc, d, n - 1);
  PetscInt        lo = 0, hi = n - 1;

  if (n == 1) {
    *i = 0, *w = 0;
    return;
  }
  if (x < s0 || x >= s1) {
    if (periodic) { /* between the last and the first, across the seam */
      const PetscReal a = s1 - L, t = x < s0 ? x : x - L;
      *i = -1, *w = (t - a) / (s0 - a);
    } else if (x < s0) *i = 0, *w = 0;
    else *i = n - 2, *w = 1;
    return;
  }
  while (hi - lo > 1) {
    PetscInt m = lo + (hi - lo) / 2;
    if (FGFilePosition_Private(f, loc, d, m) <= x) lo = m;
    else hi = m;
  }
  *i = lo;
  *w = (x - FGFilePosition_Private(f, loc, d, lo)) / (FGFilePosition_Private(f, loc, d, lo + 1) - FGFilePosition_Private(f, loc, d, lo));
}

/* The file's grid (dim, cells, faces) and whether it is this grid. Collective (metadata reads);
   on an error the file is closed. */
static PetscErrorCode FGFileGridRead_Private(FGGrid g, const char *path, hid_t fid, FGFileGrid *f, PetscBool *same)
{
  MPI_Comm  comm = g->comm;
  long long dim = 0, cells[3] = {0, 0, 0};
  PetscBool found;
  hid_t     root;
  char      msg[PETSC_MAX_PATH_LEN + 400] = "";

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(f, sizeof(*f)));
  *same = PETSC_FALSE;
  FGCallHDF5Return(FG_ERR_IO_READ, path, root, H5Gopen2, (fid, "/", H5P_DEFAULT));
  PetscCall(FGH5ReadAttrNumbers_Internal(root, "dim", H5T_NATIVE_LLONG, 1, &dim, &found));
  if (found) PetscCall(FGH5ReadAttrNumbers_Internal(root, "cells", H5T_NATIVE_LLONG, 3, cells, &found));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Gclose, (root));
  if (!found) snprintf(msg, sizeof(msg), "field file %s has no attributes dim and cells (not a flowgrad field file)", path);
  else if (dim != g->dim) snprintf(msg, sizeof(msg), "field file %s holds a %lldD field, the case is %dD", path, dim, (int)g->dim);
  f->dim = g->dim;
  *same  = (PetscBool)!msg[0];
  for (PetscInt d = 0; d < g->dim && !msg[0]; d++) {
    hsize_t n;
    char    nm[16];
    f->n[d] = (PetscInt)cells[d];
    if (cells[d] != g->n[d]) *same = PETSC_FALSE;
    snprintf(nm, sizeof(nm), "%c_faces", "xyz"[d]);
    PetscCall(FGH5ReadArray_Internal(fid, nm, H5T_NATIVE_DOUBLE, sizeof(double), (void **)&f->xf[d], &n, &found));
    if (!found) {
      if (!*same) snprintf(msg, sizeof(msg), "field file %s holds %lld cells along %c, the case %d, and has no face coordinates (/%s) to interpolate them with: it can be read only on its own grid", path, cells[d], "xyz"[d], (int)g->n[d], nm);
      continue;
    }
    if (cells[d] < 1 || n != (hsize_t)cells[d] + 1) {
      snprintf(msg, sizeof(msg), "field file %s: dataset /%s has %llu entries, but the file's grid has %lld cells along %c", path, nm, (unsigned long long)n, cells[d], "xyz"[d]);
      continue;
    }
    for (PetscInt i = 0; i < f->n[d] && !msg[0]; i++)
      if (!(f->xf[d][i + 1] > f->xf[d][i])) snprintf(msg, sizeof(msg), "field file %s: its %c faces do not increase (face %d at %.17g, face %d at %.17g)", path, "xyz"[d], (int)i, f->xf[d][i], (int)i + 1, f->xf[d][i + 1]);
    if (msg[0]) continue;
    if (PetscAbsReal(f->xf[d][0] - g->x0[d]) > 1e-9 * g->L[d] || PetscAbsReal(f->xf[d][f->n[d]] - (g->x0[d] + g->L[d])) > 1e-9 * g->L[d]) {
      snprintf(msg, sizeof(msg), "field file %s covers %c in [%.10g, %.10g], the case's domain [%.10g, %.10g]: a field is interpolated only between grids of the same domain", path, "xyz"[d], f->xf[d][0], f->xf[d][f->n[d]], (double)g->x0[d], (double)(g->x0[d] + g->L[d]));
      continue;
    }
    for (PetscInt i = 0; *same && i <= f->n[d]; i++)
      if (!(PetscAbsReal(f->xf[d][i] - g->ax[d].xf[i - 1]) <= 1e-12 * g->L[d])) *same = PETSC_FALSE;
  }
  if (msg[0]) {
    PetscCall(FGFileGridFree_Private(f));
    FGCallHDF5(FG_ERR_IO_READ, path, H5Fclose, (fid));
  }
  PetscCheck(!msg[0], comm, FG_ERR_INPUT, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGIOReadFieldAnyGrid - read a field of a field file written on this grid or on another grid of
  the same domain (interpolated; see the top of src/io/regrid.c).

  Collective on the grid's communicator.

  Input Parameters:
+ grid     - the grid
. path     - the field file (FGIOWriteFields)
. name     - the dataset
. loc      - where this field lives (FG_LOC_FACE_X for u, ..., FG_LOC_CELL for p)
- optional - a missing dataset is no error (*found false, vec untouched)

  Output Parameters:
+ vec          - a global Vec of grid->da
. found        - (may be NULL unless optional) whether the file has the dataset
- interpolated - (may be NULL) whether the file's grid is another one

  Notes:
  Errors are FG_ERR_INPUT (another dimension or domain, no face coordinates on another grid, the
  dataset of the wrong shape), FG_ERR_IO_OPEN and FG_ERR_IO_READ (a damaged file: its checksum), each
  naming the file.

.seealso: FGIOReadField()
@*/
PetscErrorCode FGIOReadFieldAnyGrid(FGGrid grid, const char *path, const char *name, FGLocation loc, PetscBool optional, Vec vec, PetscBool *found, PetscBool *interpolated)
{
  MPI_Comm          comm = grid->comm;
  const PetscInt    dim  = grid->dim;
  const FGBox      *b    = &grid->box;
  FGFileGrid        f;
  PetscBool         same;
  hid_t             fid, dset, space, memspace, dxpl;
  hsize_t           dims[3], start[3], count[3];
  PetscInt          lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  FGH5DatasetStatus st;
  char              why[400];
  double           *buf;
  PetscScalar      *a;
  uint64_t          sum = 0, all = 0;

  PetscFunctionBeginUser;
  if (found) *found = PETSC_FALSE;
  if (interpolated) *interpolated = PETSC_FALSE;
  FGH5Quiet_Internal();
  PetscCall(FGIOOpenRead_Internal(comm, path, &fid));
  PetscCall(FGFileGridRead_Private(grid, path, fid, &f, &same));

  for (PetscInt d = 0; d < dim; d++) dims[d] = (hsize_t)f.n[dim - 1 - d];
  PetscCall(FGH5CheckDataset_Internal(fid, name, (int)dim, dims, dim == 2 ? "(ny, nx)" : "(nz, ny, nx)", &st, why, sizeof(why)));
  if (st != FG_H5_DATASET_OK || same) {
    PetscCall(FGFileGridFree_Private(&f));
    FGCallHDF5(FG_ERR_IO_READ, path, H5Fclose, (fid));
    if (st == FG_H5_DATASET_MISSING && optional) PetscFunctionReturn(PETSC_SUCCESS);
    PetscCheck(st != FG_H5_DATASET_MISSING && st != FG_H5_DATASET_SHAPE, comm, FG_ERR_INPUT, "field file %s: %s", path, why);
    PetscCheck(st == FG_H5_DATASET_OK, comm, FG_ERR_IO_READ, "field file %s: %s", path, why);
    if (found) *found = PETSC_TRUE;
    PetscCall(FGIOReadField(grid, path, name, vec)); /* this grid's own: bit for bit */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (found) *found = PETSC_TRUE;
  if (interpolated) *interpolated = PETSC_TRUE;

  /* this rank's hyperslab: the file's indices around its positions and its cells (see the top) */
  for (PetscInt d = 0; d < dim; d++) {
    const PetscReal xlo = PetscMin(grid->ax[d].xf[b->lo[d] - 1], FGGridCoordinate(grid, loc, d, b->lo[d]));
    const PetscReal xhi = PetscMax(grid->ax[d].xf[b->hi[d] - 1], FGGridCoordinate(grid, loc, d, b->hi[d] - 1));
    PetscInt        i0, i1;
    PetscReal       w;
    if (grid->periodic[d]) {
      lo[d] = 0, hi[d] = f.n[d];
      continue;
    }
    FGFileBracket_Private(&f, loc, d, PETSC_FALSE, grid->L[d], xlo, &i0, &w);
    FGFileBracket_Private(&f, loc, d, PETSC_FALSE, grid->L[d], xhi, &i1, &w);
    lo[d] = PetscMax(i0 - 1, 0);
    hi[d] = PetscMin(i1 + 3, f.n[d]);
  }
  for (PetscInt d = 0; d < dim; d++) start[d] = (hsize_t)lo[dim - 1 - d], count[d] = (hsize_t)(hi[dim - 1 - d] - lo[dim - 1 - d]);
  PetscCall(PetscMalloc1((size_t)((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2])), &buf));
  FGCallHDF5Return(FG_ERR_IO_READ, path, dset, H5Dopen2, (fid, name, H5P_DEFAULT));
  FGCallHDF5Return(FG_ERR_IO_READ, path, space, H5Dget_space, (dset));
  FGCallHDF5Return(FG_ERR_IO_READ, path, memspace, H5Screate_simple, ((int)dim, count, NULL));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Sselect_hyperslab, (space, H5S_SELECT_SET, start, NULL, count, NULL));
  FGCallHDF5Return(FG_ERR_IO_READ, path, dxpl, H5Pcreate, (H5P_DATASET_XFER));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Pset_dxpl_mpio, (dxpl, H5FD_MPIO_COLLECTIVE));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Dread, (dset, H5T_NATIVE_DOUBLE, memspace, space, dxpl, buf));
  {
    char     *want = NULL, got[17];
    PetscBool has;
    PetscCall(FGH5ReadString_Internal(dset, "checksum", PETSC_FALSE, &want, &has));
    /* the values this rank counts: those whose position lies in a cell it owns */
    for (PetscInt k = lo[2], l = 0; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++, l++) {
          const PetscInt ijk[3] = {i, j, k};
          PetscBool      mine   = PETSC_TRUE;
          for (PetscInt d = 0; d < dim && mine; d++) {
            PetscInt c = FGGridCellOf(grid, d, FGFilePosition_Private(&f, loc, d, ijk[d]));
            c          = PetscMin(PetscMax(c, 0), grid->n[d] - 1);
            mine       = (PetscBool)(c >= b->lo[d] && c < b->hi[d]);
          }
          if (mine) sum += FGIOChecksumTerm_Internal(((uint64_t)k * (uint64_t)f.n[1] + (uint64_t)j) * (uint64_t)f.n[0] + (uint64_t)i, buf[l]);
        }
    PetscCallMPI(MPI_Allreduce(&sum, &all, 1, MPI_UINT64_T, MPI_SUM, comm));
    snprintf(got, sizeof(got), "%016llx", (unsigned long long)all);
    if (has && strcmp(want, got)) {
      PetscCall(PetscFree(want));
      PetscCall(PetscFree(buf));
      PetscCall(FGFileGridFree_Private(&f));
      (void)H5Pclose(dxpl), (void)H5Sclose(memspace), (void)H5Sclose(space), (void)H5Dclose(dset), (void)H5Fclose(fid);
      SETERRQ(comm, FG_ERR_IO_READ, "field file %s: dataset /%s does not match its checksum (the file is damaged)", path, name);
    }
    PetscCall(PetscFree(want));
  }
  FGCallHDF5(FG_ERR_IO_READ, path, H5Pclose, (dxpl));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Sclose, (memspace));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Sclose, (space));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Dclose, (dset));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Fclose, (fid));

  /* multilinear interpolation at this grid's positions */
  PetscCall(VecGetArrayWrite(vec, &a));
  for (PetscInt k = b->lo[2]; k < b->hi[2]; k++)
    for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
      for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) {
        const PetscInt ijk[3] = {i, j, k};
        PetscInt       i0[3]  = {0, 0, 0};
        PetscReal      w[3]   = {0, 0, 0}, v = 0;
        for (PetscInt d = 0; d < dim; d++) FGFileBracket_Private(&f, loc, d, grid->periodic[d], grid->L[d], FGGridCoordinate(grid, loc, d, ijk[d]), &i0[d], &w[d]);
        for (PetscInt corner = 0; corner < (1 << dim); corner++) {
          PetscReal wt = 1;
          PetscInt  off = 0, stride = 1;
          for (PetscInt d = 0; d < dim; d++) {
            const PetscInt up = (corner >> d) & 1;
            PetscInt       s  = i0[d] + up;
            wt *= up ? w[d] : 1 - w[d];
            if (f.n[d] == 1) s = 0;
            else if (grid->periodic[d]) s = (s + f.n[d]) % f.n[d];
            off += (s - lo[d]) * stride;
            stride *= hi[d] - lo[d];
          }
          if (wt != 0) v += wt * buf[off];
        }
        a[FGBoxOwnedIndex(b, i, j, k)] = v;
      }
  PetscCall(VecRestoreArrayWrite(vec, &a));
  PetscCall(PetscFree(buf));
  PetscCall(FGFileGridFree_Private(&f));
  PetscFunctionReturn(PETSC_SUCCESS);
}
