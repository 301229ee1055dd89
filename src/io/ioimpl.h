/* Private to src/io: the HDF5 foundation (h5.c) and the rank-0 file helpers (agree.c) that the
   field files, checkpoints and tables share.

   HDF5 errors. Every HDF5 call whose failure is a bug or an I/O failure goes through FGCallHDF5
   (or FGCallHDF5Return, which also keeps the result): a negative return (herr_t, htri_t, hid_t,
   hssize_t) raises the given FG_ERR_IO_* class on PETSC_COMM_SELF with a message that names the
   file and carries HDF5's own explanation (FGIOHDF5Message):

     "<path>: HDF5 call H5Dwrite failed: <HDF5's innermost error> (<function>: <minor message>)"

   Checks of what a file holds (a dataset missing, of the wrong type or shape, an attribute
   missing) are not errors here: the readers below report found/not found or a reason, so that the
   caller can agree on one verdict across the ranks and raise a collective error with context. */
#ifndef FG_IOIMPL_H
#define FG_IOIMPL_H

#include <fg/sys.h>
#include <fg/grid.h>
#include <hdf5.h>
#include <stdint.h>

/* The innermost entry of HDF5's error stack ("H5FD_mpio_open: MPI_File_open failed: ..."),
   into buf; then the stack is cleared. Call it right after the failing HDF5 call. */
PETSC_INTERN void FGIOHDF5Message(char *, size_t);

#define FGCheckHDF5_Private(cls, path, func, value) \
  do { \
    long long _fg_s = (long long)(value); \
    if (PetscUnlikely(_fg_s < 0)) { \
      char _fg_m[320]; \
      FGIOHDF5Message(_fg_m, sizeof(_fg_m)); \
      SETERRQ(PETSC_COMM_SELF, cls, "%s: HDF5 call %s failed: %s", path, #func, _fg_m); \
    } \
  } while (0)
/* FGCallHDF5(FG_ERR_IO_WRITE, path, H5Dclose, (dset)); */
#define FGCallHDF5(cls, path, func, args) FGCheckHDF5_Private(cls, path, func, func args)
/* FGCallHDF5Return(FG_ERR_IO_READ, path, dset, H5Dopen2, (fid, name, H5P_DEFAULT)); */
#define FGCallHDF5Return(cls, path, var, func, args) FGCheckHDF5_Private(cls, path, func, (var) = func args)

/* h5.c: files */
PETSC_INTERN void           FGH5Quiet_Internal(void);
PETSC_INTERN void           FGH5Probe_Internal(const char *, char *, size_t, PetscBool *);
PETSC_INTERN PetscErrorCode FGH5OpenFile_Internal(MPI_Comm, const char *, unsigned, hid_t *, char *, size_t);

/* h5.c: attributes (writers raise FG_ERR_IO_WRITE; readers never raise for what the file holds) */
PETSC_INTERN PetscErrorCode FGH5WriteAttrDoubles_Internal(const char *, hid_t, const char *, hsize_t, const double[]);
PETSC_INTERN PetscErrorCode FGH5WriteAttrInt64s_Internal(const char *, hid_t, const char *, hsize_t, const long long[]);
PETSC_INTERN PetscErrorCode FGH5WriteAttrString_Internal(const char *, hid_t, const char *, const char *);
PETSC_INTERN PetscErrorCode FGH5ReadAttrNumbers_Internal(hid_t, const char *, hid_t, hssize_t, void *, PetscBool *);
PETSC_INTERN PetscErrorCode FGH5ReadString_Internal(hid_t, const char *, PetscBool, char **, PetscBool *);

/* h5.c: small datasets written whole (by rank 0 of the file's communicator), read whole */
#define FG_H5_LABEL_LEN 128 /* fixed length of the strings of a label dataset ("<name>_names") */
PETSC_INTERN PetscErrorCode FGH5WriteDataset_Internal(MPI_Comm, const char *, hid_t, const char *, hid_t, hid_t, int, const hsize_t[], const void *);
PETSC_INTERN PetscErrorCode FGH5WriteStringDataset_Internal(MPI_Comm, const char *, hid_t, const char *, const char *);
PETSC_INTERN PetscErrorCode FGH5WriteLabels_Internal(MPI_Comm, const char *, hid_t, const char *, hsize_t, const char *const[]);
PETSC_INTERN PetscErrorCode FGH5ReadArray_Internal(hid_t, const char *, hid_t, size_t, void **, hsize_t *, PetscBool *);

/* h5.c: whether a dataset is floating point of a given shape */
typedef enum { FG_H5_DATASET_OK = 0, FG_H5_DATASET_MISSING, FG_H5_DATASET_NOT_DATASET, FG_H5_DATASET_NOT_FLOAT, FG_H5_DATASET_NO_SHAPE, FG_H5_DATASET_SHAPE } FGH5DatasetStatus;
PETSC_INTERN PetscErrorCode FGH5CheckDataset_Internal(hid_t, const char *, int, const hsize_t[], const char *, FGH5DatasetStatus *, char *, size_t);

/* fields.c: open a field file to read, collectively (FG_ERR_IO_OPEN, agreed, when it cannot be) */
PETSC_INTERN PetscErrorCode FGIOOpenRead_Internal(MPI_Comm, const char *, hid_t *);
/* agree.c: rank 0's parts of a rename */
PETSC_INTERN void FGIODirectoryOf_Internal(const char *, char *, size_t);
PETSC_INTERN void FGIOSyncDirectory_Internal(const char *);
PETSC_INTERN void FGIORenameLocal_Internal(const char *, const char *, char *, size_t);

/* Checksums (src/io/checksum.c). */
PETSC_INTERN PetscErrorCode FGIOFieldChecksum_Internal(FGGrid, const PetscScalar *, char[17]);
PETSC_INTERN uint64_t       FGIOChecksumTerm_Internal(uint64_t, double);
PETSC_INTERN void           FGIOVectorChecksum_Internal(const double *, size_t, char[17]);
PETSC_INTERN void           FGIOMetaChecksum_Internal(double, long long, const char *, const char *, char[17]);

/* What a checkpoint's meta_checksum covers (include/fg/checkpoint.h). */
typedef struct {
  double             time;
  long long          step, dim, cells[3], format;
  double             lengths[3], origin[3];
  const char        *restart_hash, *restart_keys;
  long long          ndt;
  const long long   *dt_count;
  const double      *dt_value;
  const char        *field_sums[4]; /* the checksums of u, v, w (3D), p */
} FGCkptMeta;
PETSC_INTERN unsigned long long FGCheckpointMetaChecksum_Internal(const FGCkptMeta *);

#endif
