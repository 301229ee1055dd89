/*
  The HDF5 foundation of src/io (declared in ioimpl.h): error messages, opening files, attributes,
  small datasets, and the check of a dataset's type and shape. Field files (fields.c), checkpoints
  (checkpoint.c, checkpoint_load.c) and tables (table.c) are written and read with these, so that
  every HDF5 file of flowgrad is opened, checked and reported on in one way.

  Conventions of the files (include/fg/io.h, include/fg/checkpoint.h): numbers are IEEE double or
  64-bit integers, little-endian; strings are fixed-length, null-terminated ASCII (a reader also
  accepts variable-length strings, as h5py writes them); a label dataset ("<name>_names") holds
  fixed-length strings of FG_H5_LABEL_LEN bytes.

  Files shared by the ranks are opened with MPI-IO and collective metadata operations (rank 0
  reads and broadcasts metadata), so every rank sees the same answer to every check of a file's
  contents; a small dataset is written by rank 0 in one collective H5Dwrite in which the other
  ranks select nothing. A file of one process (comm MPI_COMM_NULL) is opened with the default
  driver, without file locking (file systems mounted without flock), and closed with everything
  in it (H5F_CLOSE_STRONG), so that a failed write leaves no object open.
*/
#define _POSIX_C_SOURCE 200809L
#include "ioimpl.h"
#include <fg/iofile.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------
   Errors
   --------------------------------------------------------------------------------------------- */
typedef struct {
  char     *buf;
  size_t    len;
  PetscBool done;
} FGH5ErrWalk;

static herr_t FGH5ErrWalk_Private(unsigned n, const H5E_error2_t *e, void *ctx)
{
  FGH5ErrWalk *w          = (FGH5ErrWalk *)ctx;
  char         minor[128] = "";

  if (w->done) return 0;
  w->done = PETSC_TRUE;
  if (H5Eget_msg(e->min_num, NULL, minor, sizeof(minor)) < 0) minor[0] = '\0';
  snprintf(w->buf, w->len, "%s (%s%s%s)", e->desc && e->desc[0] ? e->desc : "failed", e->func_name ? e->func_name : "?", minor[0] ? ": " : "", minor);
  return 0;
}

void FGIOHDF5Message(char *buf, size_t len)
{
  FGH5ErrWalk w = {buf, len, PETSC_FALSE};

  snprintf(buf, len, "no HDF5 error detail");
  (void)H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, FGH5ErrWalk_Private, &w);
  (void)H5Eclear2(H5E_DEFAULT);
}

/* HDF5's automatic error printing off: flowgrad's messages replace it (every call: another
   library may have turned it back on). */
void FGH5Quiet_Internal(void)
{
  (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* ---------------------------------------------------------------------------------------------
   Files
   --------------------------------------------------------------------------------------------- */

/* Whether path looks like an HDF5 file, without HDF5 (H5Fis_hdf5 takes a file lock, which fails
   on file systems mounted without flock): a regular file with the HDF5 signature where the format
   puts it (offset 0, 512, 1024, ...). reason: empty when it does; else why not, with syserr set
   when the reason is a system error (strerror text: missing, unreadable). Not collective. */
void FGH5Probe_Internal(const char *path, char *reason, size_t len, PetscBool *syserr)
{
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char              buf[8];
  struct stat                st;
  FILE                      *fp;
  int                        found = 0;

  reason[0] = '\0';
  *syserr   = PETSC_FALSE;
  if (stat(path, &st) != 0 || (S_ISREG(st.st_mode) && !(fp = fopen(path, "rb")))) {
    *syserr = PETSC_TRUE;
    snprintf(reason, len, "%s", strerror(errno));
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(reason, len, "not a regular file");
    return;
  }
  for (long long off = 0; !found && off + 8 <= (long long)st.st_size; off = off ? 2 * off : 512) {
    if (fseek(fp, (long)off, SEEK_SET) != 0 || fread(buf, 1, 8, fp) != 8) break;
    found = !memcmp(buf, sig, 8);
  }
  (void)fclose(fp);
  if (!found) snprintf(reason, len, st.st_size ? "not an HDF5 file" : "not an HDF5 file (empty)");
}

/*
  Open (flags H5F_ACC_RDONLY or H5F_ACC_RDWR) or create (H5F_ACC_TRUNC: created or emptied) an
  HDF5 file. comm: the ranks that open it together (MPI-IO, collective metadata), or
  MPI_COMM_NULL for this process alone. *fid < 0 when HDF5 cannot open it, and detail says why
  (HDF5's message); an error is raised only when the property list cannot be made (FG_ERR_IO_OPEN).
  A created file gets the root attribute flowgrad_version (FGVersion()).

  Special files: a file to open must be a regular file (a FIFO would block the open, a device
  would be read), else *fid < 0 and detail says what it is; a name to create that holds
  something other than a regular file (a symbolic link, a FIFO, a device: a stale temporary name)
  loses that entry first (rank 0, then a barrier), so the new file never goes through it.
*/
PetscErrorCode FGH5OpenFile_Internal(MPI_Comm comm, const char *path, unsigned flags, hid_t *fid, char *detail, size_t len)
{
  hid_t       fapl;
  struct stat st;
  PetscMPIInt rank = 0;

  PetscFunctionBeginUser;
  FGH5Quiet_Internal();
  if (comm != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!(flags & H5F_ACC_TRUNC) && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    *fid = -1;
    snprintf(detail, len, "not a regular file (%s)", FGFileKind(st.st_mode));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (flags & H5F_ACC_TRUNC) {
    if (rank == 0 && lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) (void)unlink(path);
    if (comm != MPI_COMM_NULL) PetscCallMPI(MPI_Barrier(comm));
  }
  FGCallHDF5Return(FG_ERR_IO_OPEN, path, fapl, H5Pcreate, (H5P_FILE_ACCESS));
  if (comm != MPI_COMM_NULL) {
    FGCallHDF5(FG_ERR_IO_OPEN, path, H5Pset_fapl_mpio, (fapl, comm, MPI_INFO_NULL));
    FGCallHDF5(FG_ERR_IO_OPEN, path, H5Pset_all_coll_metadata_ops, (fapl, 1));
    FGCallHDF5(FG_ERR_IO_OPEN, path, H5Pset_coll_metadata_write, (fapl, 1));
  } else {
    FGCallHDF5(FG_ERR_IO_OPEN, path, H5Pset_fclose_degree, (fapl, H5F_CLOSE_STRONG));
#if H5_VERSION_GE(1, 10, 7)
    FGCallHDF5(FG_ERR_IO_OPEN, path, H5Pset_file_locking, (fapl, 0, 1)); /* file systems without flock */
#endif
  }
  if (flags & H5F_ACC_TRUNC) *fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  else *fid = H5Fopen(path, flags, fapl);
  if (*fid < 0) FGIOHDF5Message(detail, len); /* before any other HDF5 call clears the stack */
  else if (len) detail[0] = '\0';
  FGCallHDF5(FG_ERR_IO_OPEN, path, H5Pclose, (fapl));
  /* every file flowgrad writes says which flowgrad wrote it */
  if (*fid >= 0 && (flags & H5F_ACC_TRUNC)) PetscCall(FGH5WriteAttrString_Internal(path, *fid, "flowgrad_version", FGVersion()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Attributes
   --------------------------------------------------------------------------------------------- */

/* A fixed-length, null-terminated ASCII string type of size bytes. */
static PetscErrorCode FGH5StringType_Private(const char *path, size_t size, hid_t *type)
{
  PetscFunctionBeginUser;
  FGCallHDF5Return(FG_ERR_IO_WRITE, path, *type, H5Tcopy, (H5T_C_S1));
  FGCallHDF5(FG_ERR_IO_WRITE, path, H5Tset_size, (*type, size));
  FGCallHDF5(FG_ERR_IO_WRITE, path, H5Tset_strpad, (*type, H5T_STR_NULLTERM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An attribute of n values (n == 1: a scalar) of file type ftype from memory type mtype. */
static PetscErrorCode FGH5WriteAttr_Private(const char *path, hid_t loc, const char *name, hid_t ftype, hid_t mtype, hsize_t n, const void *v)
{
  hid_t space, attr;

  PetscFunctionBeginUser;
  if (n == 1) FGCallHDF5Return(FG_ERR_IO_WRITE, path, space, H5Screate, (H5S_SCALAR));
  else FGCallHDF5Return(FG_ERR_IO_WRITE, path, space, H5Screate_simple, (1, &n, NULL));
  FGCallHDF5Return(FG_ERR_IO_WRITE, path, attr, H5Acreate2, (loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT));
  FGCallHDF5(FG_ERR_IO_WRITE, path, H5Awrite, (attr, mtype, v));
  FGCallHDF5(FG_ERR_IO_WRITE, path, H5Aclose, (attr));
  FGCallHDF5(FG_ERR_IO_WRITE, path, H5Sclose, (space));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Attributes of loc (a file, group or dataset of path; every rank of the file writes the same
   value): n doubles (IEEE little-endian; n == 1: a scalar), n 64-bit integers, a string (fixed
   length strlen + 1, null-terminated). FG_ERR_IO_WRITE on failure. */
PetscErrorCode FGH5WriteAttrDoubles_Internal(const char *path, hid_t loc, const char *name, hsize_t n, const double v[])
{
  PetscFunctionBeginUser;
  PetscCall(FGH5WriteAttr_Private(path, loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGH5WriteAttrInt64s_Internal(const char *path, hid_t loc, const char *name, hsize_t n, const long long v[])
{
  PetscFunctionBeginUser;
  PetscCall(FGH5WriteAttr_Private(path, loc, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, n, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGH5WriteAttrString_Internal(const char *path, hid_t loc, const char *name, const char *value)
{
  hid_t type;

  PetscFunctionBeginUser;
  PetscCall(FGH5StringType_Private(path, strlen(value) + 1, &type));
  PetscCall(FGH5WriteAttr_Private(path, loc, name, type, type, 1, value));
  FGCallHDF5(FG_ERR_IO_WRITE, path, H5Tclose, (type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Read a numeric attribute of n elements (integer or floating point in the file, converted to
   memtype); found is false, and nothing is raised, when it is missing, of another kind or size,
   or cannot be read. */
PetscErrorCode FGH5ReadAttrNumbers_Internal(hid_t loc, const char *name, hid_t memtype, hssize_t n, void *v, PetscBool *found)
{
  hid_t attr, space, type;

  PetscFunctionBeginUser;
  *found = PETSC_FALSE;
  if (H5Aexists(loc, name) <= 0 || (attr = H5Aopen(loc, name, H5P_DEFAULT)) < 0) {
    (void)H5Eclear2(H5E_DEFAULT);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  space = H5Aget_space(attr);
  type  = H5Aget_type(attr);
  if (space >= 0 && type >= 0 && H5Sget_simple_extent_npoints(space) == n && (H5Tget_class(type) == H5T_INTEGER || H5Tget_class(type) == H5T_FLOAT)) *found = (PetscBool)(H5Aread(attr, memtype, v) >= 0);
  if (type >= 0) (void)H5Tclose(type);
  if (space >= 0) (void)H5Sclose(space);
  (void)H5Aclose(attr);
  (void)H5Eclear2(H5E_DEFAULT);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Read a string attribute (dataset false) or scalar string dataset (dataset true) into a new
   buffer *s (PetscFree it; NULL when not found). Fixed-length (up to 16 MiB) or variable-length
   strings; found is false, and nothing is raised, when it is missing, not a string or unreadable. */
PetscErrorCode FGH5ReadString_Internal(hid_t loc, const char *name, PetscBool dataset, char **s, PetscBool *found)
{
  hid_t  obj, type, mem = -1;
  htri_t isvar;
  size_t size;

  PetscFunctionBeginUser;
  *s     = NULL;
  *found = PETSC_FALSE;
  if ((dataset ? H5Lexists(loc, name, H5P_DEFAULT) : H5Aexists(loc, name)) <= 0 || (obj = dataset ? H5Dopen2(loc, name, H5P_DEFAULT) : H5Aopen(loc, name, H5P_DEFAULT)) < 0) {
    (void)H5Eclear2(H5E_DEFAULT);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  type = dataset ? H5Dget_type(obj) : H5Aget_type(obj);
  if (type >= 0 && H5Tget_class(type) == H5T_STRING && (isvar = H5Tis_variable_str(type)) >= 0 && (mem = H5Tcopy(H5T_C_S1)) >= 0) {
    if (isvar) { /* e.g. rewritten by h5py */
      char *v = NULL;
      if (H5Tset_size(mem, H5T_VARIABLE) >= 0 && (dataset ? H5Dread(obj, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) : H5Aread(obj, mem, &v)) >= 0) {
        PetscCall(PetscStrallocpy(v ? v : "", s));
        *found = PETSC_TRUE;
      }
      if (v) (void)H5free_memory(v);
    } else if ((size = H5Tget_size(type)) > 0 && size < (1u << 24)) {
      PetscCall(PetscCalloc1(size + 1, s));
      if (H5Tset_size(mem, size + 1) >= 0 && H5Tset_strpad(mem, H5T_STR_NULLTERM) >= 0) *found = (PetscBool)((dataset ? H5Dread(obj, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, *s) : H5Aread(obj, mem, *s)) >= 0);
      (*s)[size] = '\0';
    }
  }
  if (mem >= 0) (void)H5Tclose(mem);
  if (type >= 0) (void)H5Tclose(type);
  (void)(dataset ? H5Dclose(obj) : H5Aclose(obj));
  (void)H5Eclear2(H5E_DEFAULT);
  if (!*found) PetscCall(PetscFree(*s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Small datasets
   --------------------------------------------------------------------------------------------- */

/*
  Dataset name of loc, of file type ftype and shape dims[ndims] (ndims 0: a scalar), written whole
  from v (memory type mtype). comm: the file's communicator (every rank calls; rank 0's values are
  written in one collective H5Dwrite in which the others select nothing), or MPI_COMM_NULL for a
  file of this process alone. An empty dataset is created and nothing written. FG_ERR_IO_WRITE
  naming path on failure.
*/
PetscErrorCode FGH5WriteDataset_Internal(MPI_Comm comm, const char *path, hid_t loc, const char *name, hid_t ftype, hid_t mtype, int ndims, const hsize_t dims[], const void *v)
{
  hid_t       space, dset, sel, dxpl;
  PetscMPIInt rank = 0;

  PetscFunctionBeginUser;
  if (comm != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (ndims == 0) FGCallHDF5Return(FG_ERR_IO_WRITE, path, space, H5Screate, (H5S_SCALAR));
  else FGCallHDF5Return(FG_ERR_IO_WRITE, path, space, H5Screate_simple, (ndims, dims, NULL));
  FGCallHDF5Return(FG_ERR_IO_WRITE, path, dset, H5Dcreate2, (loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (H5Sget_simple_extent_npoints(space) > 0) { /* the same on every rank */
    if (comm == MPI_COMM_NULL) FGCallHDF5(FG_ERR_IO_WRITE, path, H5Dwrite, (dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    else {
      FGCallHDF5Return(FG_ERR_IO_WRITE, path, sel, H5Scopy, (space));
      if (rank != 0) FGCallHDF5(FG_ERR_IO_WRITE, path, H5Sselect_none, (sel));
      FGCallHDF5Return(FG_ERR_IO_WRITE, path, dxpl, H5Pcreate, (H5P_DATASET_XFER));
      FGCallHDF5(FG_ERR_IO_WRITE, path, H5Pset_dxpl_mpio, (dxpl, H5FD_MPIO_COLLECTIVE));
      FGCallHDF5(FG_ERR_IO_WRITE, path, H5Dwrite, (dset, mtype, sel, sel, dxpl, v));
      FGCallHDF5(FG_ERR_IO_WRITE, path, H5Pclose, (dxpl));
      FGCallHDF5(FG_ERR_IO_WRITE, path, H5Sclose, (sel));
    }
  }
  FGCallHDF5(FG_ERR_IO_WRITE, path, H5Dclose, (dset));
  FGCallHDF5(FG_ERR_IO_WRITE, path, H5Sclose, (space));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A scalar dataset holding one string (fixed length strlen + 1, null-terminated). */
PetscErrorCode FGH5WriteStringDataset_Internal(MPI_Comm comm, const char *path, hid_t loc, const char *name, const char *value)
{
  hid_t type;

  PetscFunctionBeginUser;
  PetscCall(FGH5StringType_Private(path, strlen(value) + 1, &type));
  PetscCall(FGH5WriteDataset_Internal(comm, path, loc, name, type, type, 0, NULL, value));
  FGCallHDF5(FG_ERR_IO_WRITE, path, H5Tclose, (type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A 1-D dataset of n labels, fixed-length strings of FG_H5_LABEL_LEN bytes (a longer label is
   cut to FG_H5_LABEL_LEN - 1 characters). */
PetscErrorCode FGH5WriteLabels_Internal(MPI_Comm comm, const char *path, hid_t loc, const char *name, hsize_t n, const char *const labels[])
{
  char *buf;
  hid_t type;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(FG_H5_LABEL_LEN * PetscMax((size_t)n, 1), &buf));
  for (hsize_t i = 0; i < n; i++) snprintf(buf + FG_H5_LABEL_LEN * i, FG_H5_LABEL_LEN, "%s", labels[i]);
  PetscCall(FGH5StringType_Private(path, FG_H5_LABEL_LEN, &type));
  PetscCall(FGH5WriteDataset_Internal(comm, path, loc, name, type, type, 1, &n, buf));
  FGCallHDF5(FG_ERR_IO_WRITE, path, H5Tclose, (type));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Read a 1-D numeric dataset whole (on every rank that calls) into a new array *v (PetscFree it)
   of *n elements of size elsize (memory type memtype); found is false, and nothing is raised, when
   it is missing, not 1-D integer or floating point, or unreadable. */
PetscErrorCode FGH5ReadArray_Internal(hid_t loc, const char *name, hid_t memtype, size_t elsize, void **v, hsize_t *n, PetscBool *found)
{
  hid_t dset, space, type;

  PetscFunctionBeginUser;
  *v     = NULL;
  *n     = 0;
  *found = PETSC_FALSE;
  if (H5Lexists(loc, name, H5P_DEFAULT) <= 0 || (dset = H5Dopen2(loc, name, H5P_DEFAULT)) < 0) {
    (void)H5Eclear2(H5E_DEFAULT);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  space = H5Dget_space(dset);
  type  = H5Dget_type(dset);
  if (space >= 0 && type >= 0 && H5Sget_simple_extent_ndims(space) == 1 && (H5Tget_class(type) == H5T_INTEGER || H5Tget_class(type) == H5T_FLOAT) && H5Sget_simple_extent_dims(space, n, NULL) == 1 && *n < ((hsize_t)1 << 40)) {
    PetscCall(PetscMalloc(elsize * (size_t)(*n > 0 ? *n : 1), v));
    *found = (PetscBool)(*n == 0 || H5Dread(dset, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, *v) >= 0);
  }
  if (type >= 0) (void)H5Tclose(type);
  if (space >= 0) (void)H5Sclose(space);
  (void)H5Dclose(dset);
  (void)H5Eclear2(H5E_DEFAULT);
  if (!*found) PetscCall(PetscFree(*v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   The check of a dataset
   --------------------------------------------------------------------------------------------- */

static void FGH5ShapeString_Private(int ndims, const hsize_t *dims, char *buf, size_t len)
{
  size_t k = (size_t)snprintf(buf, len, "(");
  for (int d = 0; d < ndims && k < len; d++) k += (size_t)snprintf(buf + k, len - k, "%s%llu", d ? ", " : "", (unsigned long long)dims[d]);
  if (k < len) snprintf(buf + k, len - k, ")");
}

/*
  Whether loc has a floating-point dataset name of shape want[ndims] (slowest first). *st says
  what is wrong, and msg (empty when nothing is) says it in words, naming the dataset:
    FG_H5_DATASET_MISSING      "no dataset /u"
    FG_H5_DATASET_NOT_DATASET  "/u is not a dataset"
    FG_H5_DATASET_NOT_FLOAT    "dataset /u is not floating point"
    FG_H5_DATASET_NO_SHAPE     "cannot read the shape of dataset /u: <HDF5's message>"
    FG_H5_DATASET_SHAPE        "dataset /u has shape (7, 8), but the grid needs <axes> = (6, 8)"
  (axes: the names of the dimensions, e.g. "(ny, nx)"). Nothing is raised for what the file holds;
  every object opened is closed. Collective when loc's file is (metadata reads only).
*/
PetscErrorCode FGH5CheckDataset_Internal(hid_t loc, const char *name, int ndims, const hsize_t want[], const char *axes, FGH5DatasetStatus *st, char *msg, size_t len)
{
  hid_t   dset, type = -1, space = -1;
  hsize_t got[H5S_MAX_RANK];
  int     nd = -1;
  char    detail[320], sw[96], sg[96];

  PetscFunctionBeginUser;
  *st    = FG_H5_DATASET_OK;
  msg[0] = '\0';
  if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) {
    *st = FG_H5_DATASET_MISSING;
    snprintf(msg, len, "no dataset /%s", name);
  } else if ((dset = H5Dopen2(loc, name, H5P_DEFAULT)) < 0) {
    *st = FG_H5_DATASET_NOT_DATASET;
    snprintf(msg, len, "/%s is not a dataset", name);
  } else {
    type = H5Dget_type(dset);
    if (type < 0 || H5Tget_class(type) != H5T_FLOAT) {
      *st = FG_H5_DATASET_NOT_FLOAT;
      snprintf(msg, len, "dataset /%s is not floating point", name);
    } else if ((space = H5Dget_space(dset)) < 0 || (nd = H5Sget_simple_extent_ndims(space)) < 0 || nd > H5S_MAX_RANK || H5Sget_simple_extent_dims(space, got, NULL) < 0) {
      FGIOHDF5Message(detail, sizeof(detail));
      *st = FG_H5_DATASET_NO_SHAPE;
      snprintf(msg, len, "cannot read the shape of dataset /%s: %s", name, detail);
    } else {
      PetscBool same = (PetscBool)(nd == ndims);
      for (int d = 0; same && d < nd; d++) same = (PetscBool)(got[d] == want[d]);
      if (!same) {
        FGH5ShapeString_Private(ndims, want, sw, sizeof(sw));
        FGH5ShapeString_Private(nd, got, sg, sizeof(sg));
        *st = FG_H5_DATASET_SHAPE;
        snprintf(msg, len, "dataset /%s has shape %s, but the grid needs %s = %s", name, sg, axes, sw);
      }
    }
    if (space >= 0) (void)H5Sclose(space);
    if (type >= 0) (void)H5Tclose(type);
    (void)H5Dclose(dset);
  }
  (void)H5Eclear2(H5E_DEFAULT);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGIOHDF5Version - the version of the HDF5 library flowgrad was built with, "MAJOR.MINOR.RELEASE"
  (for --version: the library's macros stay inside src/io).
@*/
const char *FGIOHDF5Version(void)
{
  static char v[32];
  snprintf(v, sizeof(v), "%d.%d.%d", H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE);
  return v;
}
