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
  after a barrier rank 0 renames it to <path> and the result is broadcast. Then the sidecar
  (xdmf.c). Errors that every rank sees alike clean up before they are raised; a failure of a
  single HDF5 call on one rank is raised on PETSC_COMM_SELF (flowgrad then aborts the job).
*/
#define _POSIX_C_SOURCE 200809L /* fsync, fileno, O_DIRECTORY under -std=c11 */
#include <fg/io.h>
#include "ioimpl.h"
#include <hdf5.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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
  (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (FGIORegistered) PetscFunctionReturn(PETSC_SUCCESS);
  FGIORegistered = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("flowgrad I/O", &FGIO_CLASSID));
  PetscCall(PetscLogEventRegister("FGIOWrite", FGIO_CLASSID, &FGIO_Write));
  PetscCall(PetscLogEventRegister("FGIORead", FGIO_CLASSID, &FGIO_Read));
  PetscCall(PetscRegisterFinalize(FGIOFinalizePackage_Private));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The innermost entry of HDF5's error stack ("H5FD_mpio_open: MPI_File_open failed: ..."). */
typedef struct {
  char     *buf;
  size_t    len;
  PetscBool done;
} FGIOH5Err;

static herr_t FGIOH5ErrWalk_Private(unsigned n, const H5E_error2_t *e, void *ctx)
{
  FGIOH5Err *w = (FGIOH5Err *)ctx;
  char       minor[128] = "";

  if (w->done) return 0;
  w->done = PETSC_TRUE;
  if (H5Eget_msg(e->min_num, NULL, minor, sizeof(minor)) < 0) minor[0] = '\0';
  snprintf(w->buf, w->len, "%s (%s%s%s)", e->desc && e->desc[0] ? e->desc : "failed", e->func_name ? e->func_name : "?", minor[0] ? ": " : "", minor);
  return 0;
}

void FGIOHDF5Message(char *buf, size_t len)
{
  FGIOH5Err w = {buf, len, PETSC_FALSE};

  snprintf(buf, len, "no HDF5 error detail");
  (void)H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, FGIOH5ErrWalk_Private, &w);
  (void)H5Eclear2(H5E_DEFAULT);
}

/* FGCallHDF5 with an error class, the file and HDF5's own explanation in the message;
   ...Get_Private assigns the result (an hid_t) to var first. */
#define FGIOCheckHDF5_Private(cls, path, func, value) \
  do { \
    long long _fg_s = (long long)(value); \
    if (PetscUnlikely(_fg_s < 0)) { \
      char _fg_m[320]; \
      FGIOHDF5Message(_fg_m, sizeof(_fg_m)); \
      SETERRQ(PETSC_COMM_SELF, cls, "%s: HDF5 call %s failed: %s", path, #func, _fg_m); \
    } \
  } while (0)
#define FGIOCallHDF5_Private(cls, path, func, args)     FGIOCheckHDF5_Private(cls, path, func, func args)
#define FGIOGetHDF5_Private(cls, path, var, func, args) FGIOCheckHDF5_Private(cls, path, func, (var) = func args)
#define FGIOCallW_Private(path, func, args)             FGIOCallHDF5_Private(FG_ERR_IO_WRITE, path, func, args)
#define FGIOCallR_Private(path, func, args)             FGIOCallHDF5_Private(FG_ERR_IO_READ, path, func, args)
#define FGIOGetW_Private(path, var, func, args)         FGIOGetHDF5_Private(FG_ERR_IO_WRITE, path, var, func, args)
#define FGIOGetR_Private(path, var, func, args)         FGIOGetHDF5_Private(FG_ERR_IO_READ, path, var, func, args)

/* rank 0's verdict (ok + message) to every rank */
static PetscErrorCode FGIOShare_Private(MPI_Comm comm, PetscBool *ok, char *msg, size_t len)
{
  int flag = *ok ? 1 : 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Bcast(&flag, 1, MPI_INT, 0, comm));
  *ok = flag ? PETSC_TRUE : PETSC_FALSE;
  if (!*ok) PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)len, MPI_CHAR, 0, comm));
  msg[len - 1] = '\0';
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether every rank has ok set */
static PetscErrorCode FGIOAll_Private(MPI_Comm comm, PetscBool *ok)
{
  int mine = *ok ? 1 : 0, all;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm));
  *ok = all ? PETSC_TRUE : PETSC_FALSE;
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

static void FGIOShapeString_Private(int ndims, const hsize_t *dims, char *buf, size_t len)
{
  size_t k = 0;

  buf[0] = '\0';
  k += (size_t)snprintf(buf + k, len - k, "(");
  for (int d = 0; d < ndims && k < len; d++) k += (size_t)snprintf(buf + k, len - k, "%s%llu", d ? ", " : "", (unsigned long long)dims[d]);
  if (k < len) snprintf(buf + k, len - k, ")");
}

/* Whether every field's Vec has this rank's box as its local size (a Vec of grid->da). */
static PetscErrorCode FGIOCheckVecs_Private(FGGrid grid, PetscInt nfields, const FGIOField fields[])
{
  PetscInt  nloc = 1, bad = -1, worst;
  PetscBool ok;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < grid->dim; d++) nloc *= grid->box.hi[d] - grid->box.lo[d];
  for (PetscInt f = 0; f < nfields; f++) {
    PetscInt m = -1;
    if (fields[f].vec) PetscCall(VecGetLocalSize(fields[f].vec, &m));
    if (m != nloc && bad < 0) bad = f;
  }
  ok = (PetscBool)(bad < 0);
  PetscCall(FGIOAll_Private(grid->comm, &ok));
  if (ok) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MPIU_Allreduce(&bad, &worst, 1, MPIU_INT, MPI_MAX, grid->comm));
  SETERRQ(grid->comm, PETSC_ERR_ARG_SIZ, "field %s: the Vec is missing or is not a global Vec of the grid's DMDA", fields[worst].name);
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
   Attributes
   --------------------------------------------------------------------------------------------- */
static PetscErrorCode FGIOWriteAttrDouble_Private(const char *path, hid_t loc, const char *name, hsize_t n, const double *v)
{
  hid_t space, attr;

  PetscFunctionBeginUser;
  if (n == 1) FGIOGetW_Private(path, space, H5Screate, (H5S_SCALAR));
  else FGIOGetW_Private(path, space, H5Screate_simple, (1, &n, NULL));
  FGIOGetW_Private(path, attr, H5Acreate2, (loc, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT));
  FGIOCallW_Private(path, H5Awrite, (attr, H5T_NATIVE_DOUBLE, v));
  FGIOCallW_Private(path, H5Aclose, (attr));
  FGIOCallW_Private(path, H5Sclose, (space));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGIOWriteAttrInt_Private(const char *path, hid_t loc, const char *name, hsize_t n, const long long *v)
{
  hid_t space, attr;

  PetscFunctionBeginUser;
  if (n == 1) FGIOGetW_Private(path, space, H5Screate, (H5S_SCALAR));
  else FGIOGetW_Private(path, space, H5Screate_simple, (1, &n, NULL));
  FGIOGetW_Private(path, attr, H5Acreate2, (loc, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT));
  FGIOCallW_Private(path, H5Awrite, (attr, H5T_NATIVE_LLONG, v));
  FGIOCallW_Private(path, H5Aclose, (attr));
  FGIOCallW_Private(path, H5Sclose, (space));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGIOWriteAttrString_Private(const char *path, hid_t loc, const char *name, const char *value)
{
  hid_t space, type, attr;

  PetscFunctionBeginUser;
  FGIOGetW_Private(path, type, H5Tcopy, (H5T_C_S1));
  FGIOCallW_Private(path, H5Tset_size, (type, strlen(value) + 1));
  FGIOCallW_Private(path, H5Tset_strpad, (type, H5T_STR_NULLTERM));
  FGIOGetW_Private(path, space, H5Screate, (H5S_SCALAR));
  FGIOGetW_Private(path, attr, H5Acreate2, (loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT));
  FGIOCallW_Private(path, H5Awrite, (attr, type, value));
  FGIOCallW_Private(path, H5Aclose, (attr));
  FGIOCallW_Private(path, H5Sclose, (space));
  FGIOCallW_Private(path, H5Tclose, (type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Readers: *found is false (and nothing is read) when the attribute is missing or not of the
   expected kind (a number of n elements, a string). */
static PetscErrorCode FGIOReadAttrNumber_Private(const char *path, hid_t loc, const char *name, hid_t memtype, hssize_t n, void *v, PetscBool *found)
{
  htri_t exists;
  hid_t  attr, space, type;

  PetscFunctionBeginUser;
  *found = PETSC_FALSE;
  FGIOGetR_Private(path, exists, H5Aexists, (loc, name));
  if (!exists) PetscFunctionReturn(PETSC_SUCCESS);
  FGIOGetR_Private(path, attr, H5Aopen, (loc, name, H5P_DEFAULT));
  FGIOGetR_Private(path, space, H5Aget_space, (attr));
  FGIOGetR_Private(path, type, H5Aget_type, (attr));
  {
    hssize_t    npoints = H5Sget_simple_extent_npoints(space);
    H5T_class_t cls     = H5Tget_class(type);
    if (npoints == n && (cls == H5T_FLOAT || cls == H5T_INTEGER)) {
      FGIOCallR_Private(path, H5Aread, (attr, memtype, v));
      *found = PETSC_TRUE;
    }
  }
  FGIOCallR_Private(path, H5Tclose, (type));
  FGIOCallR_Private(path, H5Sclose, (space));
  FGIOCallR_Private(path, H5Aclose, (attr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGIOReadAttrString_Private(const char *path, hid_t loc, const char *name, char *buf, size_t len, PetscBool *found)
{
  htri_t exists, isvar;
  hid_t  attr, type, memtype;

  PetscFunctionBeginUser;
  *found = PETSC_FALSE;
  FGIOGetR_Private(path, exists, H5Aexists, (loc, name));
  if (!exists) PetscFunctionReturn(PETSC_SUCCESS);
  FGIOGetR_Private(path, attr, H5Aopen, (loc, name, H5P_DEFAULT));
  FGIOGetR_Private(path, type, H5Aget_type, (attr));
  if (H5Tget_class(type) == H5T_STRING) {
    FGIOGetR_Private(path, isvar, H5Tis_variable_str, (type));
    FGIOGetR_Private(path, memtype, H5Tcopy, (H5T_C_S1));
    if (isvar) { /* e.g. rewritten by h5py */
      char *s = NULL;
      FGIOCallR_Private(path, H5Tset_size, (memtype, H5T_VARIABLE));
      FGIOCallR_Private(path, H5Aread, (attr, memtype, &s));
      snprintf(buf, len, "%s", s ? s : "");
      if (s) (void)H5free_memory(s);
    } else {
      size_t size = H5Tget_size(type);
      char  *s;
      PetscCheck(size > 0, PETSC_COMM_SELF, FG_ERR_IO_READ, "%s: attribute %s has an empty string type", path, name);
      PetscCall(PetscCalloc1(size + 1, &s));
      FGIOCallR_Private(path, H5Tset_size, (memtype, size + 1));
      FGIOCallR_Private(path, H5Tset_strpad, (memtype, H5T_STR_NULLTERM));
      FGIOCallR_Private(path, H5Aread, (attr, memtype, s));
      snprintf(buf, len, "%s", s);
      PetscCall(PetscFree(s));
    }
    FGIOCallR_Private(path, H5Tclose, (memtype));
    *found = PETSC_TRUE;
  }
  FGIOCallR_Private(path, H5Tclose, (type));
  FGIOCallR_Private(path, H5Aclose, (attr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Open
   --------------------------------------------------------------------------------------------- */
static PetscErrorCode FGIOFileAccess_Private(MPI_Comm comm, const char *path, hid_t *fapl)
{
  PetscFunctionBeginUser;
  FGIOGetHDF5_Private(FG_ERR_IO_OPEN, path, *fapl, H5Pcreate, (H5P_FILE_ACCESS));
  FGIOCallHDF5_Private(FG_ERR_IO_OPEN, path, H5Pset_fapl_mpio, (*fapl, comm, MPI_INFO_NULL));
  FGIOCallHDF5_Private(FG_ERR_IO_OPEN, path, H5Pset_all_coll_metadata_ops, (*fapl, 1));
  FGIOCallHDF5_Private(FG_ERR_IO_OPEN, path, H5Pset_coll_metadata_write, (*fapl, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 1 when the file has the HDF5 signature where the format puts it (offset 0, 512, 1024, ...), 0
   when not, -1 (errno set) when it cannot be read. Like H5Fis_hdf5, but without its file lock,
   which fails on file systems mounted without flock (some Lustre/NFS). */
static int FGIOIsHDF5_Private(const char *path, long long size)
{
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char              buf[8];
  FILE                      *fp = fopen(path, "rb");
  int                        found = 0;

  if (!fp) return -1;
  for (long long off = 0; !found && off + 8 <= size; off = off ? 2 * off : 512) {
    if (fseek(fp, (long)off, SEEK_SET) != 0 || fread(buf, 1, 8, fp) != 8) break;
    found = !memcmp(buf, sig, 8);
  }
  (void)fclose(fp);
  return found;
}

/* Open an existing field file read-only, collectively; FG_ERR_IO_OPEN (on comm) naming the path
   when it is missing, not a file or not HDF5. */
static PetscErrorCode FGIOOpenRead_Private(MPI_Comm comm, const char *path, hid_t *fid)
{
  PetscMPIInt rank;
  PetscBool   ok = PETSC_TRUE;
  char        msg[PETSC_MAX_PATH_LEN + 400] = "";
  hid_t       fapl;

  PetscFunctionBeginUser;
  PetscCheck(path && path[0], comm, FG_ERR_IO_OPEN, "field file: empty file name");
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    struct stat st;
    if (stat(path, &st) != 0) {
      ok = PETSC_FALSE;
      snprintf(msg, sizeof(msg), "cannot open field file %s: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
      ok = PETSC_FALSE;
      snprintf(msg, sizeof(msg), "cannot open field file %s: not a regular file", path);
    } else {
      int is = FGIOIsHDF5_Private(path, (long long)st.st_size);
      if (is <= 0) {
        ok = PETSC_FALSE;
        if (is == 0) snprintf(msg, sizeof(msg), "cannot open field file %s: not an HDF5 file", path);
        else snprintf(msg, sizeof(msg), "cannot open field file %s: %s", path, strerror(errno));
      }
    }
  }
  PetscCall(FGIOShare_Private(comm, &ok, msg, sizeof(msg)));
  PetscCheck(ok, comm, FG_ERR_IO_OPEN, "%s", msg);

  PetscCall(FGIOFileAccess_Private(comm, path, &fapl));
  *fid = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  if (*fid < 0) FGIOHDF5Message(msg, sizeof(msg));
  FGIOCallHDF5_Private(FG_ERR_IO_OPEN, path, H5Pclose, (fapl));
  ok = (PetscBool)(*fid >= 0);
  PetscCall(FGIOAll_Private(comm, &ok));
  PetscCheck(ok, comm, FG_ERR_IO_OPEN, "cannot open field file %s: %s", path, msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Write
   --------------------------------------------------------------------------------------------- */

/* The directory that will hold path exists and is writable (rank 0 looks; the verdict is shared). */
static PetscErrorCode FGIOCheckDirectory_Private(MPI_Comm comm, const char *path)
{
  PetscMPIInt rank;
  PetscBool   ok = PETSC_TRUE;
  char        msg[2 * PETSC_MAX_PATH_LEN + 200] = "";

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    char        dir[PETSC_MAX_PATH_LEN];
    const char *slash = strrchr(path, '/');
    struct stat st;

    if (!slash) snprintf(dir, sizeof(dir), ".");
    else if (slash == path) snprintf(dir, sizeof(dir), "/");
    else snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
    if (stat(dir, &st) != 0) {
      ok = PETSC_FALSE;
      snprintf(msg, sizeof(msg), "cannot write field file %s: directory %s: %s", path, dir, strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
      ok = PETSC_FALSE;
      snprintf(msg, sizeof(msg), "cannot write field file %s: %s is not a directory", path, dir);
    } else if (access(dir, W_OK | X_OK) != 0) {
      ok = PETSC_FALSE;
      snprintf(msg, sizeof(msg), "cannot write field file %s: directory %s is not writable: %s", path, dir, strerror(errno));
    }
  }
  PetscCall(FGIOShare_Private(comm, &ok, msg, sizeof(msg)));
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
  char                msg[PETSC_MAX_PATH_LEN + 400] = "", tmp[PETSC_MAX_PATH_LEN];
  hsize_t             dims[3], start[3], count[3];
  hid_t               fapl, fid, root, dcpl, dxpl, filespace, memspace, sel;
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
  PetscCall(FGIOFileAccess_Private(comm, tmp, &fapl));
  fid = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (fid < 0) FGIOHDF5Message(msg, sizeof(msg));
  FGIOCallHDF5_Private(FG_ERR_IO_OPEN, tmp, H5Pclose, (fapl));
  ok = (PetscBool)(fid >= 0);
  PetscCall(FGIOAll_Private(comm, &ok));
  PetscCheck(ok, comm, FG_ERR_IO_OPEN, "cannot create field file %s: %s", tmp, msg);

  /* 2. attributes of "/" */
  FGIOGetW_Private(tmp, root, H5Gopen2, (fid, "/", H5P_DEFAULT));
  for (PetscInt d = 0; d < 3; d++) {
    ivec[d]    = (long long)grid->n[d];
    lengths[d] = (double)grid->L[d];
    origin[d]  = (double)grid->x0[d];
    spacing[d] = (double)grid->h[d];
  }
  snprintf(hex, sizeof(hex), "%016llx", hash);
  PetscCall(FGIOWriteAttrDouble_Private(tmp, root, "time", 1, &time));
  PetscCall(FGIOWriteAttrInt_Private(tmp, root, "step", 1, &step));
  {
    long long dim = (long long)grid->dim;
    PetscCall(FGIOWriteAttrInt_Private(tmp, root, "dim", 1, &dim));
  }
  PetscCall(FGIOWriteAttrInt_Private(tmp, root, "cells", 3, ivec));
  PetscCall(FGIOWriteAttrDouble_Private(tmp, root, "lengths", 3, lengths));
  PetscCall(FGIOWriteAttrDouble_Private(tmp, root, "origin", 3, origin));
  PetscCall(FGIOWriteAttrDouble_Private(tmp, root, "spacing", 3, spacing));
  PetscCall(FGIOWriteAttrString_Private(tmp, root, "case_hash", hex));
  PetscCall(FGIOWriteAttrString_Private(tmp, root, "case_name", name));
  PetscCall(FGIOWriteAttrString_Private(tmp, root, "flowgrad_version", FG_VERSION_STRING));
  FGIOCallW_Private(tmp, H5Gclose, (root));

  /* 3. one dataset per field; each rank writes its box as a hyperslab, collectively */
  FGIOShape_Private(grid, dims, start, count);
  FGIOGetW_Private(tmp, filespace, H5Screate_simple, ((int)grid->dim, dims, NULL));
  FGIOGetW_Private(tmp, memspace, H5Screate_simple, ((int)grid->dim, count, NULL));
  FGIOGetW_Private(tmp, sel, H5Scopy, (filespace));
  FGIOCallW_Private(tmp, H5Sselect_hyperslab, (sel, H5S_SELECT_SET, start, NULL, count, NULL));
  FGIOGetW_Private(tmp, dcpl, H5Pcreate, (H5P_DATASET_CREATE));
  FGIOCallW_Private(tmp, H5Pset_layout, (dcpl, H5D_CONTIGUOUS));
  FGIOCallW_Private(tmp, H5Pset_alloc_time, (dcpl, H5D_ALLOC_TIME_EARLY));
  FGIOCallW_Private(tmp, H5Pset_fill_time, (dcpl, H5D_FILL_TIME_NEVER)); /* every element is written */
  FGIOGetW_Private(tmp, dxpl, H5Pcreate, (H5P_DATASET_XFER));
  FGIOCallW_Private(tmp, H5Pset_dxpl_mpio, (dxpl, H5FD_MPIO_COLLECTIVE));
  for (PetscInt f = 0; f < nfields; f++) {
    const PetscScalar *a;
    hid_t dset;
    FGIOGetW_Private(tmp, dset, H5Dcreate2, (fid, fields[f].name, H5T_IEEE_F64LE, filespace, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    PetscCall(FGIOWriteAttrString_Private(tmp, dset, "location", FGLocationNames[fields[f].location]));
    PetscCall(VecGetArrayRead(fields[f].vec, &a));
    FGIOCallW_Private(tmp, H5Dwrite, (dset, H5T_NATIVE_DOUBLE, memspace, sel, dxpl, a));
    PetscCall(VecRestoreArrayRead(fields[f].vec, &a));
    FGIOCallW_Private(tmp, H5Dclose, (dset));
  }
  /* 3b. small replicated vectors (rank 0's values; every rank takes part in the collective calls) */
  for (PetscInt v = 0; meta && v < meta->nvectors; v++) {
    const FGIOVector *vec = &meta->vectors[v];
    hsize_t           nv  = (hsize_t)vec->n, zero = 0;
    hid_t             vspace, vsel, vmem, dset;
    FGIOGetW_Private(tmp, vspace, H5Screate_simple, (1, &nv, NULL));
    FGIOGetW_Private(tmp, vsel, H5Scopy, (vspace));
    FGIOGetW_Private(tmp, vmem, H5Screate_simple, (1, rank == 0 ? &nv : &zero, NULL));
    if (rank) FGIOCallW_Private(tmp, H5Sselect_none, (vsel));
    FGIOGetW_Private(tmp, dset, H5Dcreate2, (fid, vec->name, H5T_IEEE_F64LE, vspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (nv) FGIOCallW_Private(tmp, H5Dwrite, (dset, H5T_NATIVE_DOUBLE, vmem, vsel, dxpl, vec->values)); /* (an empty one: created, nothing to write) */
    FGIOCallW_Private(tmp, H5Dclose, (dset));
    if (vec->labels) {
      char  lname[160], *buf;
      hid_t st;
      PetscCall(PetscCalloc1(128 * PetscMax(vec->n, 1), &buf));
      for (PetscInt i = 0; i < vec->n; i++) snprintf(buf + 128 * i, 128, "%s", vec->labels[i]);
      snprintf(lname, sizeof(lname), "%s_names", vec->name);
      FGIOGetW_Private(tmp, st, H5Tcopy, (H5T_C_S1));
      FGIOCallW_Private(tmp, H5Tset_size, (st, 128));
      FGIOCallW_Private(tmp, H5Tset_strpad, (st, H5T_STR_NULLTERM));
      FGIOGetW_Private(tmp, dset, H5Dcreate2, (fid, lname, st, vspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
      if (nv) FGIOCallW_Private(tmp, H5Dwrite, (dset, st, vmem, vsel, dxpl, buf));
      FGIOCallW_Private(tmp, H5Dclose, (dset));
      FGIOCallW_Private(tmp, H5Tclose, (st));
      PetscCall(PetscFree(buf));
    }
    FGIOCallW_Private(tmp, H5Sclose, (vmem));
    FGIOCallW_Private(tmp, H5Sclose, (vsel));
    FGIOCallW_Private(tmp, H5Sclose, (vspace));
  }
  FGIOCallW_Private(tmp, H5Pclose, (dxpl));
  FGIOCallW_Private(tmp, H5Pclose, (dcpl));
  FGIOCallW_Private(tmp, H5Sclose, (sel));
  FGIOCallW_Private(tmp, H5Sclose, (memspace));
  FGIOCallW_Private(tmp, H5Sclose, (filespace));
  FGIOCallW_Private(tmp, H5Fflush, (fid, H5F_SCOPE_GLOBAL)); /* MPI_File_sync: on disk before the rename */
  FGIOCallW_Private(tmp, H5Fclose, (fid));

  /* 4. complete: rank 0 renames it to its final name */
  PetscCallMPI(MPI_Barrier(comm));
  ok = PETSC_TRUE;
  if (rank == 0) {
    if (rename(tmp, path) != 0) {
      ok = PETSC_FALSE;
      snprintf(msg, sizeof(msg), "cannot rename %s to %s: %s", tmp, path, strerror(errno));
      (void)remove(tmp);
    } else {
      char        dir[PETSC_MAX_PATH_LEN];
      const char *slash = strrchr(path, '/');
      int         fd;
      if (!slash) snprintf(dir, sizeof(dir), ".");
      else snprintf(dir, sizeof(dir), "%.*s", (int)(slash == path ? 1 : slash - path), path);
      fd = open(dir, O_RDONLY | O_DIRECTORY);
      if (fd >= 0) { /* make the rename durable; best effort */
        (void)fsync(fd);
        (void)close(fd);
      }
    }
  }
  PetscCall(FGIOShare_Private(comm, &ok, msg, sizeof(msg)));
  PetscCheck(ok, comm, FG_ERR_IO_WRITE, "%s", msg);

  /* 5. the sidecar */
  shared.time      = (PetscReal)time;
  shared.step      = (PetscInt)step;
  shared.case_hash = hash;
  shared.case_name = name;
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
  grid's. Every message names the file and the dataset. A dataset of another floating-point type
  is converted by HDF5; a double dataset is read bit for bit. Logged as the event FGIORead.

.seealso: FGIOWriteFields(), FGIOReadMeta()
@*/
PetscErrorCode FGIOReadField(FGGrid grid, const char *path, const char *name, Vec vec)
{
  MPI_Comm     comm = grid->comm;
  hid_t        fid, dset, space, type, memspace, dxpl;
  htri_t       exists;
  hsize_t      dims[3], start[3], count[3], fdims[H5S_MAX_RANK];
  int          ndims;
  H5T_class_t  cls;
  PetscBool    ok;
  char         want[128], found[128];
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(FGIOSetUp_Private());
  PetscCall(PetscLogEventBegin(FGIO_Read, 0, 0, 0, 0));
  PetscCheck(FGIONameOK_Private(name), comm, FG_ERR_INPUT, "field file %s: invalid dataset name \"%.80s\"", path ? path : "(null)", name ? name : "(null)");
  {
    FGIOField field = {name, FG_LOC_CELL, vec};
    PetscCall(FGIOCheckVecs_Private(grid, 1, &field));
  }
  PetscCall(FGIOOpenRead_Private(comm, path, &fid));

  FGIOGetR_Private(path, exists, H5Lexists, (fid, name, H5P_DEFAULT));
  if (!exists) {
    FGIOCallR_Private(path, H5Fclose, (fid));
    SETERRQ(comm, FG_ERR_IO_READ, "field file %s has no dataset /%s", path, name);
  }
  dset = H5Dopen2(fid, name, H5P_DEFAULT);
  if (dset < 0) {
    FGIOCallR_Private(path, H5Fclose, (fid));
    SETERRQ(comm, FG_ERR_IO_READ, "field file %s: /%s is not a dataset", path, name);
  }
  FGIOGetR_Private(path, space, H5Dget_space, (dset));
  FGIOGetR_Private(path, type, H5Dget_type, (dset));
  cls   = H5Tget_class(type);
  FGIOGetR_Private(path, ndims, H5Sget_simple_extent_ndims, (space));
  PetscCheck(ndims <= H5S_MAX_RANK, PETSC_COMM_SELF, FG_ERR_IO_READ, "field file %s: dataset /%s has %d dimensions", path, name, ndims);
  FGIOCallR_Private(path, H5Sget_simple_extent_dims, (space, fdims, NULL));
  FGIOShape_Private(grid, dims, start, count);
  ok = (PetscBool)(ndims == (int)grid->dim);
  for (int d = 0; ok && d < ndims; d++)
    if (fdims[d] != dims[d]) ok = PETSC_FALSE;
  FGIOShapeString_Private((int)grid->dim, dims, want, sizeof(want));
  FGIOShapeString_Private(ndims, fdims, found, sizeof(found));
  if (!ok || cls != H5T_FLOAT) {
    FGIOCallR_Private(path, H5Tclose, (type));
    FGIOCallR_Private(path, H5Sclose, (space));
    FGIOCallR_Private(path, H5Dclose, (dset));
    FGIOCallR_Private(path, H5Fclose, (fid));
    PetscCheck(cls == H5T_FLOAT, comm, FG_ERR_IO_READ, "field file %s: dataset /%s is not floating point", path, name);
    SETERRQ(comm, FG_ERR_INPUT, "field file %s: dataset /%s has shape %s, but the grid needs %s = %s; the file belongs to another grid", path, name, found, grid->dim == 2 ? "(ny, nx)" : "(nz, ny, nx)", want);
  }

  FGIOGetR_Private(path, memspace, H5Screate_simple, ((int)grid->dim, count, NULL));
  FGIOCallR_Private(path, H5Sselect_hyperslab, (space, H5S_SELECT_SET, start, NULL, count, NULL));
  FGIOGetR_Private(path, dxpl, H5Pcreate, (H5P_DATASET_XFER));
  FGIOCallR_Private(path, H5Pset_dxpl_mpio, (dxpl, H5FD_MPIO_COLLECTIVE));
  PetscCall(VecGetArrayWrite(vec, &a));
  FGIOCallR_Private(path, H5Dread, (dset, H5T_NATIVE_DOUBLE, memspace, space, dxpl, a));
  PetscCall(VecRestoreArrayWrite(vec, &a));
  FGIOCallR_Private(path, H5Pclose, (dxpl));
  FGIOCallR_Private(path, H5Sclose, (memspace));
  FGIOCallR_Private(path, H5Tclose, (type));
  FGIOCallR_Private(path, H5Sclose, (space));
  FGIOCallR_Private(path, H5Dclose, (dset));
  FGIOCallR_Private(path, H5Fclose, (fid));
  PetscCall(PetscLogEventEnd(FGIO_Read, 0, 0, 0, 0));
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
  char        hex[64] = "", cname[PETSC_MAX_PATH_LEN] = "";
  PetscBool   found[4], ok;
  const char *missing = NULL;

  PetscFunctionBeginUser;
  PetscCall(FGIOSetUp_Private());
  PetscCall(FGIOOpenRead_Private(comm, path, &fid));
  FGIOGetR_Private(path, root, H5Gopen2, (fid, "/", H5P_DEFAULT));
  PetscCall(FGIOReadAttrNumber_Private(path, root, "time", H5T_NATIVE_DOUBLE, 1, &time, &found[0]));
  PetscCall(FGIOReadAttrNumber_Private(path, root, "step", H5T_NATIVE_LLONG, 1, &step, &found[1]));
  PetscCall(FGIOReadAttrString_Private(path, root, "case_hash", hex, sizeof(hex), &found[2]));
  PetscCall(FGIOReadAttrString_Private(path, root, "case_name", cname, sizeof(cname), &found[3]));
  FGIOCallR_Private(path, H5Gclose, (root));
  FGIOCallR_Private(path, H5Fclose, (fid));
  for (int i = 0; i < 4 && !missing; i++)
    if (!found[i]) missing = (const char *[]){"time", "step", "case_hash", "case_name"}[i];
  PetscCheck(!missing, comm, FG_ERR_IO_READ, "field file %s: attribute %s is missing or malformed (not a flowgrad field file?)", path, missing);
  meta->time      = (PetscReal)time;
  meta->step      = (PetscInt)step;
  ok = (PetscBool)(strlen(hex) == 16);
  for (int i = 0; ok && i < 16; i++) ok = (PetscBool)((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f') || (hex[i] >= 'A' && hex[i] <= 'F'));
  PetscCheck(ok, comm, FG_ERR_IO_READ, "field file %s: attribute case_hash is \"%s\", not 16 hex digits", path, hex);
  meta->case_hash = strtoull(hex, NULL, 16);
  if (name && len) snprintf(name, len, "%s", cname);
  meta->case_name = name && len ? name : NULL;
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

  PetscFunctionBeginUser;
  PetscCall(FGIOSetUp_Private());
  PetscCheck(FGIONameOK_Private(name), comm, FG_ERR_INPUT, "field file %s: invalid dataset name \"%.80s\"", path, name);
  PetscCall(FGIOOpenRead_Private(comm, path, &fid));
  FGIOGetR_Private(path, exists, H5Lexists, (fid, name, H5P_DEFAULT));
  if (exists > 0) dset = H5Dopen2(fid, name, H5P_DEFAULT);
  if (dset >= 0) {
    FGIOGetR_Private(path, space, H5Dget_space, (dset));
    ndims = H5Sget_simple_extent_ndims(space);
    len   = H5Sget_simple_extent_npoints(space);
    FGIOCallR_Private(path, H5Sclose, (space));
    if (ndims == 1 && len == (hssize_t)n && n > 0) FGIOCallR_Private(path, H5Dread, (dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values));
    FGIOCallR_Private(path, H5Dclose, (dset));
  }
  FGIOCallR_Private(path, H5Fclose, (fid));
  PetscCheck(dset >= 0, comm, FG_ERR_IO_READ, "%s has no dataset /%s (damaged, or not written by this version?)", path, name);
  PetscCheck(ndims == 1 && len == (hssize_t)n, comm, FG_ERR_IO_READ, "%s: dataset /%s has %lld values, expected %" PetscInt_FMT " (damaged, or written for another case?)", path, name, (long long)len, n);
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
  for (PetscInt a = 0; a < grid->dim; a++) f[(*nf)++] = (FGIOField){names[adjoint ? 1 : 0][a], (FGLocation)(FG_LOC_FACE_X + a), u[a]};
  f[(*nf)++] = (FGIOField){names[adjoint ? 1 : 0][3], FG_LOC_CELL, p};
  PetscFunctionReturn(PETSC_SUCCESS);
}
