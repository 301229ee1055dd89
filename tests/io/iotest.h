/* Shared by the io tests: the test grids, the fields and their values. */
#ifndef FG_IOTEST_H
#define FG_IOTEST_H

#include <flowgrad.h>
#include <hdf5.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  PetscInt    dim, n[3];
  PetscReal   L[3], x0[3];
  PetscBool   periodic[3];
  const char *file;
  PetscBool   stretch[3]; /* stretched directions (the faces: IOTestGridCreate) */
} IOTestGrid;

/* odd sizes and origins, so that slabs and blocks split unevenly and shifts show; the same two
   grids stretched (2D: x and y; 3D: x and z) */
#define IOTEST_NGRIDS 4
static const IOTestGrid IOTestGrids[IOTEST_NGRIDS] = {
  {2, {13, 11, 1}, {2.0, 1.5, 1.0}, {-0.5, 0.25, 0.0}, {PETSC_TRUE, PETSC_FALSE, PETSC_FALSE}, "io_fields_2d.h5", {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}},
  {3, {7, 6, 9}, {1.0, 2.0, 0.7}, {0.1, -1.0, 3.0}, {PETSC_FALSE, PETSC_TRUE, PETSC_FALSE}, "io_fields_3d.h5", {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}},
  {2, {13, 11, 1}, {2.0, 1.5, 1.0}, {-0.5, 0.25, 0.0}, {PETSC_TRUE, PETSC_FALSE, PETSC_FALSE}, "io_fields_2d_stretched.h5", {PETSC_TRUE, PETSC_TRUE, PETSC_FALSE}},
  {3, {7, 6, 9}, {1.0, 2.0, 0.7}, {0.1, -1.0, 3.0}, {PETSC_FALSE, PETSC_TRUE, PETSC_FALSE}, "io_fields_3d_stretched.h5", {PETSC_TRUE, PETSC_FALSE, PETSC_TRUE}},
};

/* the fields of a file: id 0..4; w only in 3D */
#define IOTEST_NFIELDS 5
static const char *const IOTestNames[IOTEST_NFIELDS]     = {"p", "u", "v", "w", "T"};
static const FGLocation  IOTestLocations[IOTEST_NFIELDS] = {FG_LOC_CELL, FG_LOC_FACE_X, FG_LOC_FACE_Y, FG_LOC_FACE_Z, FG_LOC_CELL};

static inline PetscBool IOTestHasField(PetscInt dim, PetscInt id)
{
  return (PetscBool)(dim == 3 || IOTestLocations[id] != FG_LOC_FACE_Z);
}

/* the metadata written */
#define IOTEST_STEP 42
#define IOTEST_HASH 0xfedcba9876543210ULL /* high bit set: unsigned all the way */
#define IOTEST_NAME "io test <&\"'>"      /* needs escaping in XML */
static inline double IOTestTime(void)
{
  return 0.1 + 1.0 / 3.0; /* every mantissa bit in use */
}

/* A value of field id at global index (i,j,k): all values differ (the writer checks) and use
   every mantissa bit. */
static inline double IOTestValue(PetscInt dim, PetscInt id, PetscInt i, PetscInt j, PetscInt k)
{
  return 1.5 + PetscSinReal(1.3 * i + 0.7 * j + 0.11 * k + 0.37 * id + 0.1) + 1e-3 * i + 1e-6 * j + 1e-9 * k + 3.0 * id + 0.5 * dim; /* >= 0.5: no cancellation */
}

static inline PetscErrorCode IOTestGridCreate(const IOTestGrid *tg, FGDecomp decomp, FGGrid *grid)
{
  PetscFunctionBeginUser;
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, tg->dim, tg->n, tg->L, tg->x0, tg->periodic, decomp, grid));
  for (PetscInt d = 0; d < tg->dim; d++) {
    PetscReal f[64];
    if (!tg->stretch[d]) continue;
    for (PetscInt i = 0; i <= tg->n[d]; i++) { /* increasing (the derivative 1 - 0.4 sin(2 pi s) > 0), every mantissa bit in use */
      const PetscReal s = (PetscReal)i / (PetscReal)tg->n[d];
      f[i]              = i == tg->n[d] ? tg->x0[d] + tg->L[d] : tg->x0[d] + tg->L[d] * (s + 0.2 * (PetscCosReal(2 * PETSC_PI * s) - 1) / (2 * PETSC_PI));
    }
    PetscCall(FGGridSetFaces(*grid, d, f));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Number of HDF5 objects (files, datasets, ...) still open in this process. */
static inline PetscErrorCode IOTestOpenHDF5Objects(PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = (PetscInt)H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether a path exists (rank 0's view, shared). */
static inline PetscErrorCode IOTestExists(const char *path, PetscBool *exists)
{
  PetscMPIInt rank;
  int         e = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) e = access(path, F_OK) == 0;
  PetscCallMPI(MPI_Bcast(&e, 1, MPI_INT, 0, PETSC_COMM_WORLD));
  *exists = e ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0 writes a small text file, or (text NULL) makes a directory; a barrier follows. */
static inline PetscErrorCode IOTestMake(const char *path, const char *text)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) {
    if (!text) PetscCall(FGMakeDirectory(path));
    else {
      FILE *fp = fopen(path, "w");
      PetscCheck(fp && fputs(text, fp) >= 0 && fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "test: cannot write %s", path);
    }
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The contents of a small file, read by every rank between two barriers (so that rank 0 neither
   has a write pending nor goes on writing while the others read); "" when missing. Free it. */
static inline PetscErrorCode IOTestReadText(const char *path, char **text)
{
  FILE *fp;
  long  n = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  fp = fopen(path, "rb");
  if (fp && fseek(fp, 0, SEEK_END) == 0) n = ftell(fp);
  PetscCall(PetscCalloc1((size_t)PetscMax(n, 0) + 1, text));
  if (fp) {
    if (fseek(fp, 0, SEEK_SET) != 0 || fread(*text, 1, (size_t)n, fp) != (size_t)n) (*text)[0] = '\0';
    (void)fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* count a failure (per rank; main reduces) */
#define IOTestCheck(cond, fails, ...) \
  do { \
    if (!(cond)) { \
      (*(fails))++; \
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, stderr, "FAIL (%s:%d): ", __FILE__, __LINE__)); \
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, stderr, __VA_ARGS__)); \
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, stderr, "\n")); \
    } \
  } while (0)

/* Run call under FGTestCatchError (tests/fgtest.h, included first) and check with FGTestCheck its
   error code (want; 0: success) and that its message contains must (NULL: anything). */
#define IOTestExpect(call, want, must) \
  do { \
    FGTestCaught   _c = {0, ""}; \
    const char    *_m = (must); \
    PetscErrorCode _e; \
    PetscCall(PetscPushErrorHandler(FGTestCatchError, &_c)); \
    _e = (call); \
    PetscCall(PetscPopErrorHandler()); \
    FGTestCheck(_e == (want), "%s gave error %d, want %d: %s", #call, (int)_e, (int)(want), _c.msg); \
    FGTestCheck(!_m || strstr(_c.msg, _m), "%s: message \"%s\" does not mention \"%s\"", #call, _c.msg, _m ? _m : ""); \
    if (_e) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  ok, error %d: %s\n", (int)_e, _c.msg)); \
  } while (0)

#endif
