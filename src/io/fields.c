/*
  Field files: one parallel HDF5 file per output time (layout in include/fg/io.h).

  Why raw HDF5 rather than PetscViewerHDF5 + VecView. PETSc 3.18's VecView on a dof-1 DMDA does
  produce the right dataset, (nz, ny, nx) with no time or dof dimension, but (a) it transfers
  independently unless -viewer_hdf5_collective is set, (b) its HDF5 failures are PETSC_ERR_LIB
  ("internal error", exit 1) with messages that name neither file nor dataset, where flowgrad
  wants FG_ERR_IO_* (exit 4) and messages that do, and (c) it has no array attributes, so the
  attributes need the HDF5 API anyway. The direct version is short: each rank owns the box
  grid->box of the global array, which is one hyperslab of the dataset, and the owned part of a
  DMDA global Vec is that box in C order (x fastest), so

      file hyperslab: start = (lo_z, lo_y, lo_x), count = (hi - lo) reversed   (2D: drop z)
      memory:         the Vec's array, count elements, contiguous

  and every rank passes its piece to one collective H5Dwrite/H5Dread (MPI-IO, H5FD_MPIO_COLLECTIVE).
  Metadata reads and writes are collective too (H5Pset_all_coll_metadata_ops,
  H5Pset_coll_metadata_write): rank 0 reads and broadcasts, so every rank sees the same answer
  and the outcome of every check below is the same on every rank, which is what allows raising
  the error on the grid's communicator (one message, exit code, no hang).

  Atomic write: <path>.tmp is created, filled, flushed (MPI_File_sync) and closed collectively;
  then FGIORename() renames it to <path> (rank 0, after a barrier; the verdict is agreed). Then the
  sidecar (xdmf.c). Errors that every rank sees alike clean up before they are raised; a failure
  of a single HDF5 call on one rank is raised on PETSC_COMM_SELF (flowgrad then aborts the job).
  The HDF5 plumbing (checks, attributes, small datasets, the check of a dataset's shape) is h5.c's.
*/
#define _POSIX_C_SOURCE 200809L /* access under -std=c11 */
#include <fg/io.h>
#include <fg/iofile.h>
#include "ioimpl.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE)
  #error "flowgrad field I/O expects real double PetscScalar"
#endif

static PetscBool     FGIORegistered = PETSC_FALSE;
static PetscClassId  FGIO_CLASSID;
static PetscLogEvent FGIO_Write, FGIO_Read;

static PetscErrorCode FGIOFinalizePackage_Private(void)
{
  PetscFunctionBeginUser;
  FGIORegistered = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Log events (once per PetscInitialize) and HDF5's automatic error printing off (every call: our
   messages replace it, and another library may have turned it back on). */
static PetscErrorCode FGIOSetUp_Private(void)
{
  PetscFunctionBeginUser;
  FGH5Quiet_Internal();
  if (FGIORegistered) PetscFunctionReturn(PETSC_SUCCESS);
  FGIORegistered = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("flowgrad I/O", &FGIO_CLASSID));
  PetscCall(PetscLogEventRegister("FGIOWrite", FGIO_CLASSID, &FGIO_Write));
  PetscCall(PetscLogEventRegister("FGIORead", FGIO_CLASSID, &FGIO_Read));
  PetscCall(PetscRegisterFinalize(FGIOFinalizePackage_Private));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Global shape, this rank's start and count, slowest first (HDF5 order). */
static void FGIOShape_Private(FGGrid grid, hsize_t dims[3], hsize_t start[3], hsize_t count[3])
{
  for (PetscInt d = 0; d < grid->dim; d++) {
    PetscInt a = grid->dim - 1 - d;
    dims[d]    = (hsize_t)grid->n[a];
    start[d]   = (hsize_t)grid->box.lo[a];
    count[d]   = (hsize_t)(grid->box.hi[a] - grid->box.lo[a]);
  }
}

/* The names of the dimensions of a field's dataset, slowest first. */
static const char *FGIOAxes_Private(FGGrid grid)
{
  return grid->dim == 2 ? "(ny, nx)" : "(nz, ny, nx)";
}

/* Whether every field's Vec has this rank's box as its local size (a Vec of grid->da). */
static PetscErrorCode FGIOCheckVecs_Private(FGGrid grid, PetscInt nfields, const FGIOField fields[])
{
  PetscInt  nloc = 1;
  PetscBool ok;
  char      msg[256] = "";

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < grid->dim; d++) nloc *= grid->box.hi[d] - grid->box.lo[d];
  for (PetscInt f = 0; f < nfields && !msg[0]; f++) {
    const PetscInt nc = fields[f].ncomp;
    if (nc < 0 || nc > 3) {
      snprintf(msg, sizeof(msg), "field %.64s: %d components (0: scalar, or 1-3)", fields[f].name, (int)nc);
      break;
    }
    for (PetscInt c = 0; c < PetscMax(nc, 1) && !msg[0]; c++) {
      Vec      v = nc ? fields[f].comp[c] : fields[f].vec;
      PetscInt m = -1;
      if (v) PetscCall(VecGetLocalSize(v, &m));
      if (m != nloc) snprintf(msg, sizeof(msg), "field %.64s: the Vec is missing or is not a global Vec of the grid's DMDA", fields[f].name);
    }
  }
  PetscCall(FGIOAgree(grid->comm, msg, sizeof(msg), &ok));
  PetscCheck(ok, grid->comm, PETSC_ERR_ARG_SIZ, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool FGIONameOK_Private(const char *name)
{
  size_t n;

  if (!name) return PETSC_FALSE;
  n = strlen(name);
  if (n < 1 || n > 64 || !strcmp(name, ".") || !strcmp(name, "..")) return PETSC_FALSE;
  for (size_t i = 0; i < n; i++) {
    char c = name[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '+' || c == '-')) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

/*@C
  FGIOCheckFields - whether a list of fields can be written for this grid.

  Not collective.

  Input Parameters:
+ grid    - the grid
. nfields - number of fields
- fields  - the fields

  Output Parameters:
+ ok  - whether the list is valid
- msg - (when not ok) why, of length len

  Notes:
  Names are 1-64 characters from [A-Za-z0-9_.+-] and unique; face_z exists only in 3D. The Vecs
  are not looked at (FGIOWriteFields checks their sizes).

.seealso: FGIOWriteFields()
@*/
PetscErrorCode FGIOCheckFields(FGGrid grid, PetscInt nfields, const FGIOField fields[], PetscBool *ok, char *msg, size_t len)
{
  PetscFunctionBeginUser;
  *ok = PETSC_FALSE;
  if (nfields < 0 || (nfields > 0 && !fields)) {
    if (msg) snprintf(msg, len, "field output: %" PetscInt_FMT " fields", nfields);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt f = 0; f < nfields; f++) {
    const char *name = fields[f].name;
    if (!FGIONameOK_Private(name)) {
      if (msg) snprintf(msg, len, "field output: invalid field name \"%.80s\" (use 1-64 characters from A-Z a-z 0-9 _ . + -)", name ? name : "(null)");
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if ((int)fields[f].location < (int)FG_LOC_CELL || (int)fields[f].location > (int)FG_LOC_FACE_Z || (grid->dim == 2 && fields[f].location == FG_LOC_FACE_Z)) {
      if (msg) snprintf(msg, len, "field output: field %s has location %d, which a %dD grid does not have", name, (int)fields[f].location, (int)grid->dim);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    for (PetscInt g = 0; g < f; g++) {
      if (!strcmp(fields[g].name, name)) {
        if (msg) snprintf(msg, len, "field output: field name %s appears twice", name);
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
  }
  *ok = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Open
   --------------------------------------------------------------------------------------------- */
/* Open an existing field file read-only, collectively; FG_ERR_IO_OPEN (on comm) naming the path
   when it is missing, not a file or not HDF5. */
PetscErrorCode FGIOOpenRead_Internal(MPI_Comm comm, const char *path, hid_t *fid)
{
  PetscMPIInt rank;
  PetscBool   ok, syserr;
  char        msg[PETSC_MAX_PATH_LEN + 400] = "", why[320];

  PetscFunctionBeginUser;
  PetscCheck(path && path[0], comm, FG_ERR_IO_OPEN, "field file: empty file name");
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    FGH5Probe_Internal(path, why, sizeof(why), &syserr);
    if (why[0]) snprintf(msg, sizeof(msg), "cannot open field file %s: %s", path, why);
  }
  PetscCall(FGIOAgree(comm, msg, sizeof(msg), &ok));
  PetscCheck(ok, comm, FG_ERR_IO_OPEN, "%s", msg);

  PetscCall(FGH5OpenFile_Internal(comm, path, H5F_ACC_RDONLY, fid, why, sizeof(why)));
  if (*fid < 0) snprintf(msg, sizeof(msg), "cannot open field file %s: %s", path, why);
  PetscCall(FGIOAgree(comm, msg, sizeof(msg), &ok));
  if (!ok && *fid >= 0) (void)H5Fclose(*fid);
  PetscCheck(ok, comm, FG_ERR_IO_OPEN, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Write
   --------------------------------------------------------------------------------------------- */

/* The directory that will hold path exists and is writable (rank 0 looks; the verdict is shared). */
static PetscErrorCode FGIOCheckDirectory_Private(MPI_Comm comm, const char *path)
{
  PetscMPIInt rank;
  PetscBool   ok;
  char        msg[2 * PETSC_MAX_PATH_LEN + 200] = "";

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    char        dir[PETSC_MAX_PATH_LEN];
    struct stat st;

    FGIODirectoryOf_Internal(path, dir, sizeof(dir));
    if (stat(dir, &st) != 0) snprintf(msg, sizeof(msg), "cannot write field file %s: directory %s: %s", path, dir, strerror(errno));
    else if (!S_ISDIR(st.st_mode)) snprintf(msg, sizeof(msg), "cannot write field file %s: %s is not a directory", path, dir);
    else if (access(dir, W_OK | X_OK) != 0) snprintf(msg, sizeof(msg), "cannot write field file %s: directory %s is not writable: %s", path, dir, strerror(errno));
  }
  PetscCall(FGIOAgree(comm, msg, sizeof(msg), &ok));
  PetscCheck(ok, comm, FG_ERR_IO_OPEN, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every rank writes what rank 0 has: HDF5 attributes must be identical on every rank. */
static PetscErrorCode FGIOShareMeta_Private(MPI_Comm comm, const FGIOMeta *in, double *time, long long *step, unsigned long long *hash, char *name, size_t len)
{
  PetscMPIInt rank;
  long long   n = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  *time = (double)in->time;
  *step = (long long)in->step;
  *hash = in->case_hash;
  PetscCallMPI(MPI_Bcast(time, 1, MPI_DOUBLE, 0, comm));
  PetscCallMPI(MPI_Bcast(step, 1, MPI_LONG_LONG, 0, comm));
  PetscCallMPI(MPI_Bcast(hash, 1, MPI_UNSIGNED_LONG_LONG, 0, comm));
  if (rank == 0) n = in->case_name ? (long long)strlen(in->case_name) : 0;
  PetscCallMPI(MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm));
  PetscCheck(n < (long long)len, comm, FG_ERR_INPUT, "field output: case name longer than %d characters", (int)len - 1);
  PetscCall(PetscMemzero(name, len));
  if (rank == 0 && n) PetscCall(PetscMemcpy(name, in->case_name, (size_t)n));
  if (n) PetscCallMPI(MPI_Bcast(name, (PetscMPIInt)n, MPI_CHAR, 0, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A vector field: one dataset of shape (dims..., 3) (slowest first); component c is this rank's
   box at index c of the last dimension (a strided selection), written collectively; components
   beyond ncomp are written as 0. */
static PetscErrorCode FGIOWriteVectorField_Private(FGGrid grid, const char *tmp, hid_t fid, hid_t dcpl, hid_t dxpl, const FGIOField *field)
{
  hsize_t      dims[4], start[4], count[4];
  hid_t        filespace, memspace, dset;
  const int    rank = (int)grid->dim + 1;
  PetscInt     nloc = 1;
  PetscScalar *zero = NULL;

  PetscFunctionBeginUser;
  FGIOShape_Private(grid, dims, start, count);
  dims[grid->dim] = 3, start[grid->dim] = 0, count[grid->dim] = 1;
  for (PetscInt d = 0; d < grid->dim; d++) nloc *= (PetscInt)count[d];
  FGCallHDF5Return(FG_ERR_IO_WRITE, tmp, filespace, H5Screate_simple, (rank, dims, NULL));
  FGCallHDF5Return(FG_ERR_IO_WRITE, tmp, memspace, H5Screate_simple, (rank, count, NULL));
  FGCallHDF5Return(FG_ERR_IO_WRITE, tmp, dset, H5Dcreate2, (fid, field->name, H5T_IEEE_F64LE, filespace, H5P_DEFAULT, dcpl, H5P_DEFAULT));
  PetscCall(FGH5WriteAttrString_Internal(tmp, dset, "location", FGLocationNames[field->location]));
  if (field->ncomp < 3) PetscCall(PetscCalloc1(PetscMax(nloc, 1), &zero));
  for (PetscInt c = 0; c < 3; c++) {
    const PetscScalar *a = zero;
    start[grid->dim] = (hsize_t)c;
    FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Sselect_hyperslab, (filespace, H5S_SELECT_SET, start, NULL, count, NULL));
    if (c < field->ncomp) PetscCall(VecGetArrayRead(field->comp[c], &a));
    FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Dwrite, (dset, H5T_NATIVE_DOUBLE, memspace, filespace, dxpl, a));
    if (c < field->ncomp) PetscCall(VecRestoreArrayRead(field->comp[c], &a));
  }
  PetscCall(PetscFree(zero));
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Dclose, (dset));
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Sclose, (memspace));
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Sclose, (filespace));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGIOWriteFields - write fields of a grid to one HDF5 file (global arrays) and its XDMF sidecar.

  Collective on the grid's communicator.

  Input Parameters:
+ grid    - the grid
. path    - the file to write, conventionally ending in .h5 (replaced if it exists)
. meta    - time, step, case hash and name (rank 0's values are written)
. nfields - number of fields
- fields  - name, location and global Vec (of grid->da) of each field

  Notes:
  Layout in include/fg/io.h. The file is written as <path>.tmp with collective MPI-IO, flushed,
  closed, and renamed to <path> by rank 0; then FGIOWriteXDMF() writes <path without .h5>.xmf.
  Errors: FG_ERR_INPUT for an invalid field list, FG_ERR_IO_OPEN when the file cannot be created
  (missing or unwritable directory), FG_ERR_IO_WRITE when writing or renaming fails.
  Logged as the event FGIOWrite.

.seealso: FGIOReadField(), FGIOReadMeta(), FGIOWriteXDMF()
@*/
PetscErrorCode FGIOWriteFields(FGGrid grid, const char *path, const FGIOMeta *meta, PetscInt nfields, const FGIOField fields[])
{
  MPI_Comm            comm = grid->comm;
  PetscMPIInt         rank;
  PetscBool           ok;
  char                msg[PETSC_MAX_PATH_LEN + 400] = "", tmp[PETSC_MAX_PATH_LEN], why[320];
  hsize_t             dims[3], start[3], count[3];
  hid_t               fid, root, dcpl, dxpl, filespace, memspace, sel;
  double              time;
  long long           step, ivec[3];
  unsigned long long  hash;
  char                name[256], hex[17];
  double              lengths[3], origin[3], spacing[3];
  FGIOMeta            shared = {0};

  PetscFunctionBeginUser;
  PetscCall(FGIOSetUp_Private());
  PetscCall(PetscLogEventBegin(FGIO_Write, 0, 0, 0, 0));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(path && path[0], comm, FG_ERR_INPUT, "field output: empty file name");
  PetscCheck(strlen(path) + 5 < sizeof(tmp), comm, FG_ERR_INPUT, "field output: file name too long: %s", path);
  PetscCall(FGIOCheckFields(grid, nfields, fields, &ok, msg, sizeof(msg)));
  PetscCheck(ok, comm, FG_ERR_INPUT, "%s", msg);
  PetscCall(FGIOCheckVecs_Private(grid, nfields, fields));
  PetscCall(FGIOShareMeta_Private(comm, meta, &time, &step, &hash, name, sizeof(name)));
  snprintf(tmp, sizeof(tmp), "%s.tmp", path);
  PetscCall(FGIOCheckDirectory_Private(comm, path));

  /* 1. create <path>.tmp (collective) */
  PetscCall(FGH5OpenFile_Internal(comm, tmp, H5F_ACC_TRUNC, &fid, why, sizeof(why)));
  if (fid < 0) snprintf(msg, sizeof(msg), "cannot create field file %s: %s", tmp, why);
  PetscCall(FGIOAgree(comm, msg, sizeof(msg), &ok));
  if (!ok && fid >= 0) (void)H5Fclose(fid);
  PetscCheck(ok, comm, FG_ERR_IO_OPEN, "%s", msg);

  /* 2. attributes of "/" */
  FGCallHDF5Return(FG_ERR_IO_WRITE, tmp, root, H5Gopen2, (fid, "/", H5P_DEFAULT));
  for (PetscInt d = 0; d < 3; d++) {
    ivec[d]    = (long long)grid->n[d];
    lengths[d] = (double)grid->L[d];
    origin[d]  = (double)grid->x0[d];
    spacing[d] = (double)grid->h[d];
  }
  snprintf(hex, sizeof(hex), "%016llx", hash);
  PetscCall(FGH5WriteAttrDoubles_Internal(tmp, root, "time", 1, &time));
  PetscCall(FGH5WriteAttrInt64s_Internal(tmp, root, "step", 1, &step));
  {
    long long dim = (long long)grid->dim;
    PetscCall(FGH5WriteAttrInt64s_Internal(tmp, root, "dim", 1, &dim));
  }
  PetscCall(FGH5WriteAttrInt64s_Internal(tmp, root, "cells", 3, ivec));
  PetscCall(FGH5WriteAttrDoubles_Internal(tmp, root, "lengths", 3, lengths));
  PetscCall(FGH5WriteAttrDoubles_Internal(tmp, root, "origin", 3, origin));
  PetscCall(FGH5WriteAttrDoubles_Internal(tmp, root, "spacing", 3, spacing));
  PetscCall(FGH5WriteAttrString_Internal(tmp, root, "case_hash", hex));
  PetscCall(FGH5WriteAttrString_Internal(tmp, root, "case_name", name));
  {
    char msum[17];
    FGIOMetaChecksum_Internal(time, step, hex, name, msum);
    PetscCall(FGH5WriteAttrString_Internal(tmp, root, "meta_checksum", msum));
  }
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Gclose, (root));
  { /* the coordinates: /x_faces (n + 1, the lower boundary first), /x_centres (n), ... (1-D) */
    const hid_t grp = fid;
    for (PetscInt d = 0; d < grid->dim; d++) {
      const FGAxis *ax = &grid->ax[d];
      char          nm[16];
      hsize_t       nf = (hsize_t)grid->n[d] + 1, nc = (hsize_t)grid->n[d];
      snprintf(nm, sizeof(nm), "%c_faces", "xyz"[d]);
      PetscCall(FGH5WriteDataset_Internal(comm, tmp, grp, nm, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &nf, ax->xf - 1));
      snprintf(nm, sizeof(nm), "%c_centres", "xyz"[d]);
      PetscCall(FGH5WriteDataset_Internal(comm, tmp, grp, nm, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &nc, ax->xc));
    }
  }

  /* 3. one dataset per field; each rank writes its box as a hyperslab, collectively */
  FGIOShape_Private(grid, dims, start, count);
  FGCallHDF5Return(FG_ERR_IO_WRITE, tmp, filespace, H5Screate_simple, ((int)grid->dim, dims, NULL));
  FGCallHDF5Return(FG_ERR_IO_WRITE, tmp, memspace, H5Screate_simple, ((int)grid->dim, count, NULL));
  FGCallHDF5Return(FG_ERR_IO_WRITE, tmp, sel, H5Scopy, (filespace));
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Sselect_hyperslab, (sel, H5S_SELECT_SET, start, NULL, count, NULL));
  FGCallHDF5Return(FG_ERR_IO_WRITE, tmp, dcpl, H5Pcreate, (H5P_DATASET_CREATE));
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Pset_layout, (dcpl, H5D_CONTIGUOUS));
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Pset_alloc_time, (dcpl, H5D_ALLOC_TIME_EARLY));
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Pset_fill_time, (dcpl, H5D_FILL_TIME_NEVER)); /* every element is written */
  FGCallHDF5Return(FG_ERR_IO_WRITE, tmp, dxpl, H5Pcreate, (H5P_DATASET_XFER));
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Pset_dxpl_mpio, (dxpl, H5FD_MPIO_COLLECTIVE));
  for (PetscInt f = 0; f < nfields; f++) {
    const PetscScalar *a;
    hid_t dset;
    if (fields[f].ncomp) { /* a vector: (..., 3), each component a strided hyperslab */
      PetscCall(FGIOWriteVectorField_Private(grid, tmp, fid, dcpl, dxpl, &fields[f]));
      continue;
    }
    char sum[17];
    PetscCall(VecGetArrayRead(fields[f].vec, &a));
    PetscCall(FGIOFieldChecksum_Internal(grid, a, sum));
    FGCallHDF5Return(FG_ERR_IO_WRITE, tmp, dset, H5Dcreate2, (fid, fields[f].name, H5T_IEEE_F64LE, filespace, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    PetscCall(FGH5WriteAttrString_Internal(tmp, dset, "location", FGLocationNames[fields[f].location]));
    PetscCall(FGH5WriteAttrString_Internal(tmp, dset, "checksum", sum));
    FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Dwrite, (dset, H5T_NATIVE_DOUBLE, memspace, sel, dxpl, a));
    PetscCall(VecRestoreArrayRead(fields[f].vec, &a));
    FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Dclose, (dset));
  }
  /* 3b. small replicated vectors (rank 0's values; every rank takes part in the collective calls) */
  for (PetscInt v = 0; meta && v < meta->nvectors; v++) {
    const FGIOVector *vec = &meta->vectors[v];
    hsize_t           nv  = (hsize_t)vec->n;
    char              vsum[17] = "";
    hid_t             dset;
    PetscCall(FGH5WriteDataset_Internal(comm, tmp, fid, vec->name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &nv, vec->values));
    if (rank == 0) FGIOVectorChecksum_Internal(vec->values, (size_t)vec->n, vsum); /* rank 0's values were written */
    PetscCallMPI(MPI_Bcast(vsum, 17, MPI_CHAR, 0, comm));
    FGCallHDF5Return(FG_ERR_IO_WRITE, tmp, dset, H5Dopen2, (fid, vec->name, H5P_DEFAULT));
    PetscCall(FGH5WriteAttrString_Internal(tmp, dset, "checksum", vsum));
    FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Dclose, (dset));
    if (vec->labels) {
      char lname[160];
      snprintf(lname, sizeof(lname), "%s_names", vec->name);
      PetscCall(FGH5WriteLabels_Internal(comm, tmp, fid, lname, nv, vec->labels));
    }
  }
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Pclose, (dxpl));
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Pclose, (dcpl));
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Sclose, (sel));
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Sclose, (memspace));
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Sclose, (filespace));
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Fflush, (fid, H5F_SCOPE_GLOBAL)); /* MPI_File_sync: on disk before the rename */
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Fclose, (fid));

  /* 4. complete: rank 0 renames it to its final name */
  PetscCall(FGIORename(comm, tmp, path));

  /* 5. the sidecar */
  shared.time      = (PetscReal)time;
  shared.step      = (PetscInt)step;
  shared.case_hash = hash;
  shared.case_name = name;
  shared.time_is_step = (PetscBool)(meta && meta->time_is_step);
  if (!meta || !meta->no_sidecar) PetscCall(FGIOWriteXDMF(grid, path, &shared, nfields, fields));
  PetscCall(PetscLogEventEnd(FGIO_Write, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Read
   --------------------------------------------------------------------------------------------- */

/*@C
  FGIOReadField - read one field of a field file into a global Vec of the grid.

  Collective on the grid's communicator.

  Input Parameters:
+ grid - the grid (any number of ranks, any decomposition)
. path - the HDF5 file written by FGIOWriteFields()
- name - the dataset

  Output Parameter:
. vec - a global Vec of grid->da

  Notes:
  Errors: FG_ERR_IO_OPEN when the file is missing or not HDF5; FG_ERR_IO_READ when the dataset
  is missing or not floating point, or reading fails; FG_ERR_INPUT when its shape is not the
  grid's, or its face coordinates (/x_faces, ..., where it has them) are not. Every message names the file and the dataset. A dataset of another floating-point type
  is converted by HDF5; a double dataset is read bit for bit. Logged as the event FGIORead.

.seealso: FGIOWriteFields(), FGIOReadMeta()
@*/
/* Whether the file's coordinates (/x_faces, ...) are the grid's (to 1e-12 of the domain length);
   a file without them (written by another tool, or before flowgrad wrote them) is taken to be on
   the grid its shape matches. why: the first difference, empty when none. */
static PetscErrorCode FGIOCheckCoordinates_Private(FGGrid grid, hid_t fid, char *why, size_t len)
{
  PetscFunctionBeginUser;
  why[0] = 0;
  for (PetscInt d = 0; d < grid->dim && !why[0]; d++) {
    const FGAxis *ax = &grid->ax[d];
    double       *xf;
    hsize_t       n;
    PetscBool     found;
    char          nm[16];
    snprintf(nm, sizeof(nm), "%c_faces", "xyz"[d]);
    PetscCall(FGH5ReadArray_Internal(fid, nm, H5T_NATIVE_DOUBLE, sizeof(double), (void **)&xf, &n, &found));
    if (!found) continue;
    if (n != (hsize_t)grid->n[d] + 1) snprintf(why, len, "dataset /%s has %llu faces, but the grid has %" PetscInt_FMT, nm, (unsigned long long)n, grid->n[d] + 1);
    else
      for (PetscInt i = 0; i <= grid->n[d]; i++)
        if (!(PetscAbsReal((PetscReal)xf[i] - ax->xf[i - 1]) <= 1e-12 * grid->L[d])) {
          snprintf(why, len, "its %c face %" PetscInt_FMT " lies at %.17g, the grid's at %.17g (another grid)", "xyz"[d], i, xf[i], (double)ax->xf[i - 1]);
          break;
        }
    PetscCall(PetscFree(xf));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGIOReadField(FGGrid grid, const char *path, const char *name, Vec vec)
{
  MPI_Comm          comm = grid->comm;
  hid_t             fid, dset, space, memspace, dxpl;
  hsize_t           dims[3], start[3], count[3];
  FGH5DatasetStatus st;
  char              why[400];
  PetscScalar      *a;

  PetscFunctionBeginUser;
  PetscCall(FGIOSetUp_Private());
  PetscCall(PetscLogEventBegin(FGIO_Read, 0, 0, 0, 0));
  PetscCheck(FGIONameOK_Private(name), comm, FG_ERR_INPUT, "field file %s: invalid dataset name \"%.80s\"", path ? path : "(null)", name ? name : "(null)");
  {
    FGIOField field = {.name = name, .location = FG_LOC_CELL, .vec = vec};
    PetscCall(FGIOCheckVecs_Private(grid, 1, &field));
  }
  PetscCall(FGIOOpenRead_Internal(comm, path, &fid));

  /* the dataset and its shape (metadata is read collectively: the same verdict on every rank) */
  FGIOShape_Private(grid, dims, start, count);
  PetscCall(FGH5CheckDataset_Internal(fid, name, (int)grid->dim, dims, FGIOAxes_Private(grid), &st, why, sizeof(why)));
  if (st != FG_H5_DATASET_OK) {
    FGCallHDF5(FG_ERR_IO_READ, path, H5Fclose, (fid));
    PetscCheck(st != FG_H5_DATASET_SHAPE, comm, FG_ERR_INPUT, "field file %s: %s; the file belongs to another grid", path, why);
    SETERRQ(comm, FG_ERR_IO_READ, "field file %s: %s", path, why);
  }
  PetscCall(FGIOCheckCoordinates_Private(grid, fid, why, sizeof(why)));
  if (why[0]) {
    FGCallHDF5(FG_ERR_IO_READ, path, H5Fclose, (fid));
    SETERRQ(comm, FG_ERR_INPUT, "field file %s: %s", path, why);
  }

  /* each rank reads its box, collectively */
  FGCallHDF5Return(FG_ERR_IO_READ, path, dset, H5Dopen2, (fid, name, H5P_DEFAULT));
  FGCallHDF5Return(FG_ERR_IO_READ, path, space, H5Dget_space, (dset));
  FGCallHDF5Return(FG_ERR_IO_READ, path, memspace, H5Screate_simple, ((int)grid->dim, count, NULL));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Sselect_hyperslab, (space, H5S_SELECT_SET, start, NULL, count, NULL));
  FGCallHDF5Return(FG_ERR_IO_READ, path, dxpl, H5Pcreate, (H5P_DATASET_XFER));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Pset_dxpl_mpio, (dxpl, H5FD_MPIO_COLLECTIVE));
  PetscCall(VecGetArrayWrite(vec, &a));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Dread, (dset, H5T_NATIVE_DOUBLE, memspace, space, dxpl, a));
  { /* the checksum, where the file has one (every field file since format 2 of the checkpoints) */
    char     *want = NULL, got[17];
    PetscBool has;
    PetscCall(FGH5ReadString_Internal(dset, "checksum", PETSC_FALSE, &want, &has));
    if (has) PetscCall(FGIOFieldChecksum_Internal(grid, a, got));
    if (has && strcmp(want, got)) {
      PetscCall(PetscFree(want));
      PetscCall(VecRestoreArrayWrite(vec, &a));
      (void)H5Pclose(dxpl), (void)H5Sclose(memspace), (void)H5Sclose(space), (void)H5Dclose(dset), (void)H5Fclose(fid);
      SETERRQ(comm, FG_ERR_IO_READ, "field file %s: dataset /%s does not match its checksum (the file is damaged)", path, name);
    }
    PetscCall(PetscFree(want));
  }
  PetscCall(VecRestoreArrayWrite(vec, &a));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Pclose, (dxpl));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Sclose, (memspace));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Sclose, (space));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Dclose, (dset));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Fclose, (fid));
  PetscCall(PetscLogEventEnd(FGIO_Read, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGIOReadCellField - read a cell-centred field from a file the user named (an input): every
  problem with the file is bad input.

  Collective on the grid's communicator.

  Input Parameters:
+ grid    - the grid (any number of ranks, any decomposition)
. file    - the HDF5 file
. dataset - the dataset: floating point, shape (ny, nx) in 2D, (nz, ny, nx) in 3D, x fastest
. where   - what asked for it, the start of every message (e.g.
            "case.yaml:12: body.topo.density_file")
- what    - what the file is, for the messages (e.g. "density file")

  Output Parameter:
. vec - a global Vec of grid->da

  Notes:
  Rank 0 looks at the file first (a regular file, HDF5, the dataset, floating point, the grid's
  shape; serial HDF5 without file locking) and the verdict is agreed, so that a bad file is
  FG_ERR_INPUT (exit 2) on every rank, with a message "<where>: <what> <file>...", e.g.
  "cannot open density file f.h5: No such file or directory", "density file f.h5 is not a
  readable HDF5 file: <HDF5's reason>", "density file f.h5: no dataset /rho", "density file f.h5:
  dataset /rho has shape (17, 24), but the grid needs (ny, nx) = (18, 24) (one value per cell)".
  Then FGIOReadField() reads it (a failure while reading a valid file is its FG_ERR_IO_READ). The
  values are not looked at.

.seealso: FGIOReadField()
@*/
PetscErrorCode FGIOReadCellField(FGGrid grid, const char *file, const char *dataset, const char *where, const char *what, Vec vec)
{
  MPI_Comm    comm = grid->comm;
  PetscMPIInt rank;
  PetscBool   ok;
  char        msg[PETSC_MAX_PATH_LEN + 800] = "";

  PetscFunctionBeginUser;
  PetscCall(FGIOSetUp_Private());
  PetscCheck(file && file[0], comm, FG_ERR_INPUT, "%s: empty %s name", where, what);
  PetscCheck(FGIONameOK_Private(dataset), comm, FG_ERR_INPUT, "%s: %s %s: invalid dataset name \"%.80s\" (use 1-64 characters from A-Z a-z 0-9 _ . + -)", where, what, file, dataset ? dataset : "(null)");
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    struct stat       st;
    hid_t             fid;
    hsize_t           dims[3], start[3], count[3];
    FGH5DatasetStatus status;
    char              why[400];

    if (stat(file, &st) != 0) snprintf(msg, sizeof(msg), "%s: cannot open %s %s: %s", where, what, file, strerror(errno));
    else if (!S_ISREG(st.st_mode)) snprintf(msg, sizeof(msg), "%s: cannot open %s %s: not a regular file", where, what, file);
    else { /* an error here is rank 0's alone: captured into the agreed message, never raised while the others wait */
      char           err[400] = "";
      PetscErrorCode ierr;
      PetscCall(FGErrorCapturePush(err, sizeof(err)));
      ierr = FGH5OpenFile_Internal(MPI_COMM_NULL, file, H5F_ACC_RDONLY, &fid, why, sizeof(why));
      if (!ierr && fid < 0) snprintf(msg, sizeof(msg), "%s: %s %s is not a readable HDF5 file: %s", where, what, file, why);
      else if (!ierr) {
        FGIOShape_Private(grid, dims, start, count);
        ierr = FGH5CheckDataset_Internal(fid, dataset, (int)grid->dim, dims, FGIOAxes_Private(grid), &status, why, sizeof(why));
        if (!ierr && status != FG_H5_DATASET_OK) snprintf(msg, sizeof(msg), "%s: %s %s: %s%s", where, what, file, why, status == FG_H5_DATASET_SHAPE ? " (one value per cell)" : "");
        if (!ierr && status == FG_H5_DATASET_OK) ierr = FGIOCheckCoordinates_Private(grid, fid, why, sizeof(why));
        if (!ierr && !msg[0] && why[0]) snprintf(msg, sizeof(msg), "%s: %s %s: %s", where, what, file, why);
        (void)H5Fclose(fid);
      }
      PetscCall(FGErrorCapturePop());
      if (ierr) snprintf(msg, sizeof(msg), "%s: cannot read %s %s: %s", where, what, file, err[0] ? err : "HDF5 failed");
    }
  }
  PetscCall(FGIOAgree(comm, msg, sizeof(msg), &ok));
  PetscCheck(ok, comm, FG_ERR_INPUT, "%s", msg);
  PetscCall(FGIOReadField(grid, file, dataset, vec));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGIOReadMeta - read the time, step, case hash and case name of a field file.

  Collective on comm.

  Input Parameters:
+ comm - communicator
. path - the HDF5 file
. name - buffer for the case name (may be NULL)
- len  - its length

  Output Parameter:
. meta - time, step, case_hash; case_name points to name (NULL when name is NULL)

  Notes:
  FG_ERR_IO_OPEN when the file is missing or not HDF5, FG_ERR_IO_READ when an attribute is
  missing or malformed (not a flowgrad field file). A case name longer than len - 1 is cut.

.seealso: FGIOWriteFields(), FGIOReadField()
@*/
PetscErrorCode FGIOReadMeta(MPI_Comm comm, const char *path, FGIOMeta *meta, char *name, size_t len)
{
  hid_t       fid, root;
  double      time = 0;
  long long   step = 0;
  char       *hex = NULL, *cname = NULL, *msum = NULL, want[17];
  PetscBool   found[4], ok, hasm;
  const char *missing = NULL;
  char        bad[64] = "";

  PetscFunctionBeginUser;
  PetscCall(FGIOSetUp_Private());
  PetscCall(FGIOOpenRead_Internal(comm, path, &fid));
  FGCallHDF5Return(FG_ERR_IO_READ, path, root, H5Gopen2, (fid, "/", H5P_DEFAULT));
  PetscCall(FGH5ReadAttrNumbers_Internal(root, "time", H5T_NATIVE_DOUBLE, 1, &time, &found[0]));
  PetscCall(FGH5ReadAttrNumbers_Internal(root, "step", H5T_NATIVE_LLONG, 1, &step, &found[1]));
  PetscCall(FGH5ReadString_Internal(root, "case_hash", PETSC_FALSE, &hex, &found[2]));
  PetscCall(FGH5ReadString_Internal(root, "case_name", PETSC_FALSE, &cname, &found[3]));
  PetscCall(FGH5ReadString_Internal(root, "meta_checksum", PETSC_FALSE, &msum, &hasm));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Gclose, (root));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Fclose, (fid));
  for (int i = 0; i < 4 && !missing; i++)
    if (!found[i]) missing = (const char *[]){"time", "step", "case_hash", "case_name"}[i];
  ok = (PetscBool)(!missing && strlen(hex) == 16);
  for (int i = 0; ok && i < 16; i++) ok = (PetscBool)((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f') || (hex[i] >= 'A' && hex[i] <= 'F'));
  if (!missing && ok) {
    meta->time      = (PetscReal)time;
    meta->step      = (PetscInt)step;
    meta->case_hash = strtoull(hex, NULL, 16);
    if (name && len) snprintf(name, len, "%s", cname);
    meta->case_name = name && len ? name : NULL;
  } else if (!missing) snprintf(bad, sizeof(bad), "%.40s", hex);
  if (!missing && hasm) FGIOMetaChecksum_Internal(time, step, hex, cname, want); /* files written before it have none */
  ok   = (PetscBool)(ok && (!hasm || !strcmp(msum, want)));
  hasm = (PetscBool)(hasm && !missing && strcmp(msum, want));
  PetscCall(PetscFree(hex));
  PetscCall(PetscFree(cname));
  PetscCall(PetscFree(msum));
  PetscCheck(!missing, comm, FG_ERR_IO_READ, "field file %s: attribute %s is missing or malformed (not a flowgrad field file?)", path, missing);
  PetscCheck(!hasm, comm, FG_ERR_IO_READ, "field file %s: its time, step, case_hash and case_name do not match its meta_checksum (the file is damaged)", path);
  PetscCheck(ok, comm, FG_ERR_IO_READ, "field file %s: attribute case_hash is \"%s\", not 16 hex digits", path, bad);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGIOReadVector - read a small 1-D dataset written as an FGIOVector (FGIOMeta.vectors).

  Collective on comm (every rank reads the whole dataset; it is small).

  Input Parameters:
+ comm - communicator
. path - the HDF5 file
. name - the dataset
- n    - the number of values expected

  Output Parameter:
. values - n values

  Notes:
  FG_ERR_IO_READ when the dataset is missing, not floating point or not of length n (a damaged or
  foreign file).

.seealso: FGIOWriteFields()
@*/
PetscErrorCode FGIOReadVector(MPI_Comm comm, const char *path, const char *name, PetscInt n, PetscReal values[])
{
  hid_t    fid, dset = -1, space;
  htri_t   exists;
  hssize_t len = -1;
  int      ndims = -1;
  PetscBool has = PETSC_FALSE, bad = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(FGIOSetUp_Private());
  PetscCheck(FGIONameOK_Private(name), comm, FG_ERR_INPUT, "field file %s: invalid dataset name \"%.80s\"", path, name);
  PetscCall(FGIOOpenRead_Internal(comm, path, &fid));
  FGCallHDF5Return(FG_ERR_IO_READ, path, exists, H5Lexists, (fid, name, H5P_DEFAULT));
  if (exists > 0) dset = H5Dopen2(fid, name, H5P_DEFAULT);
  if (dset >= 0) {
    FGCallHDF5Return(FG_ERR_IO_READ, path, space, H5Dget_space, (dset));
    ndims = H5Sget_simple_extent_ndims(space);
    len   = H5Sget_simple_extent_npoints(space);
    FGCallHDF5(FG_ERR_IO_READ, path, H5Sclose, (space));
    if (ndims == 1 && len == (hssize_t)n && n > 0) FGCallHDF5(FG_ERR_IO_READ, path, H5Dread, (dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values));
    if (ndims == 1 && len == (hssize_t)n) { /* its checksum, where it has one */
      char *want = NULL, got[17];
      PetscCall(FGH5ReadString_Internal(dset, "checksum", PETSC_FALSE, &want, &has));
      if (has) FGIOVectorChecksum_Internal(values, (size_t)n, got);
      bad = (PetscBool)(has && strcmp(want, got));
      PetscCall(PetscFree(want));
    }
    FGCallHDF5(FG_ERR_IO_READ, path, H5Dclose, (dset));
  }
  FGCallHDF5(FG_ERR_IO_READ, path, H5Fclose, (fid));
  PetscCheck(dset >= 0, comm, FG_ERR_IO_READ, "%s has no dataset /%s (damaged, or not written by this version?)", path, name);
  PetscCheck(ndims == 1 && len == (hssize_t)n, comm, FG_ERR_IO_READ, "%s: dataset /%s has %lld values, expected %" PetscInt_FMT " (damaged, or written for another case?)", path, name, (long long)len, n);
  PetscCheck(!bad, comm, FG_ERR_IO_READ, "%s: dataset /%s does not match its checksum (the file is damaged)", path, name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGIOAddState - append a state's fields to a field list: the velocity components on their faces
  and the pressure at the cells, named u, v[, w], p (adjoint: u_adj, v_adj[, w_adj], p_adj).

  Not collective.
@*/
PetscErrorCode FGIOAddState(FGGrid grid, PetscBool adjoint, Vec u[], Vec p, FGIOField f[], PetscInt *nf)
{
  static const char *names[2][4] = {{"u", "v", "w", "p"}, {"u_adj", "v_adj", "w_adj", "p_adj"}};

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < grid->dim; a++) f[(*nf)++] = (FGIOField){.name = names[adjoint ? 1 : 0][a], .location = (FGLocation)(FG_LOC_FACE_X + a), .vec = u[a]};
  f[(*nf)++] = (FGIOField){.name = names[adjoint ? 1 : 0][3], .location = FG_LOC_CELL, .vec = p};
  PetscFunctionReturn(PETSC_SUCCESS);
}
