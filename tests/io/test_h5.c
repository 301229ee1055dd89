/*
  The HDF5 foundation of src/io (src/io/h5.c, private header src/io/ioimpl.h) and
  FGIOReadCellField (src/io/fields.c).

    FGH5OpenFile_Internal      create collectively, reopen, a missing file: fid < 0 with HDF5's reason
    FGH5WriteAttr*_Internal    doubles (scalar and 3), int64s, a string: the types of the layout
                               (IEEE F64LE, STD I64LE, fixed-length null-terminated strings)
    FGH5ReadAttrNumbers/String read them back; missing, another size, not a number: not found
                               (never an error); a variable-length string (as h5py writes it)
    FGH5WriteDataset_Internal  1-D and 2-D, written by rank 0 alone (the others pass other values),
                               an empty one; FGH5WriteStringDataset, FGH5WriteLabels
    FGH5ReadArray_Internal     a 1-D dataset; a 2-D one or strings: not found
    FGH5CheckDataset_Internal  ok, missing, a group, not floating point, another shape: status
                               and message
    FGH5Probe_Internal         an HDF5 file, text, empty, a directory, a missing file
    FGCallHDF5Return           a failing call: the class given, the file and the call named
    FGIOReadCellField          reads; a missing file, text, no dataset, another grid: FG_ERR_INPUT
                               with where, what and the file in the message
  and no HDF5 object is left open. Files are named h5_np<size>_*.

  Sample runs (from the build tree's tests/io):
    mpiexec -n 1 ../test_io_h5
    mpiexec -n 2 ../test_io_h5
*/
#define _POSIX_C_SOURCE 200809L /* access under -std=c11 */
#include "../fgtest.h"
#include "iotest.h"
#include "../../src/io/ioimpl.h"
#include <string.h>
#include <unistd.h>

static PetscErrorCode Write(const char *path)
{
  PetscMPIInt       rank;
  hid_t             fid, grp;
  char              why[320];
  const double      d3[3] = {0.1, 1.0 / 3.0, -2.5e-300}, one = 0.5;
  const long long   i3[3] = {7, -1, 1LL << 40};
  const char *const labels[3] = {"alpha", "b", "a label of some length"};
  double            v[12];
  const hsize_t     n5 = 5, n0 = 0, f2[2] = {3, 4};

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  for (int i = 0; i < 12; i++) v[i] = rank == 0 ? 1.5 * i + 1.0 / 7.0 : -1.0; /* only rank 0's count */
  PetscCall(FGH5OpenFile_Internal(PETSC_COMM_WORLD, path, H5F_ACC_TRUNC, &fid, why, sizeof(why)));
  FGTestCheck(fid >= 0, "cannot create %s: %s", path, why);
  PetscCall(FGH5WriteAttrDoubles_Internal(path, fid, "one", 1, &one));
  PetscCall(FGH5WriteAttrDoubles_Internal(path, fid, "three", 3, d3));
  PetscCall(FGH5WriteAttrInt64s_Internal(path, fid, "ints", 3, i3));
  PetscCall(FGH5WriteAttrString_Internal(path, fid, "name", "a <name>"));
  FGCallHDF5Return(FG_ERR_IO_WRITE, path, grp, H5Gcreate2, (fid, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  PetscCall(FGH5WriteDataset_Internal(PETSC_COMM_WORLD, path, grp, "v", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n5, v));
  PetscCall(FGH5WriteDataset_Internal(PETSC_COMM_WORLD, path, grp, "empty", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n0, v));
  PetscCall(FGH5WriteDataset_Internal(PETSC_COMM_WORLD, path, grp, "f", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, f2, v));
  PetscCall(FGH5WriteStringDataset_Internal(PETSC_COMM_WORLD, path, grp, "text", "line 1\nline 2\n"));
  PetscCall(FGH5WriteLabels_Internal(PETSC_COMM_WORLD, path, grp, "v_names", 3, labels));
  FGCallHDF5(FG_ERR_IO_WRITE, path, H5Gclose, (grp));
  FGCallHDF5(FG_ERR_IO_WRITE, path, H5Fclose, (fid));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  if (rank == 0) { /* a variable-length string attribute, as h5py writes one */
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR), a;
    const char *vs = "variable";
    H5Tset_size(t, H5T_VARIABLE);
    a = H5Acreate2(f, "vlen", t, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, &vs);
    H5Aclose(a), H5Sclose(s), H5Tclose(t), H5Fclose(f);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a failing HDF5 call through FGCallHDF5Return */
static PetscErrorCode OpenMissing(hid_t loc, const char *path)
{
  hid_t d;

  PetscFunctionBeginUser;
  FGCallHDF5Return(FG_ERR_IO_READ, path, d, H5Dopen2, (loc, "nope", H5P_DEFAULT));
  (void)H5Dclose(d);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Read(const char *path)
{
  hid_t             fid, grp;
  char              why[320], msg[256], *s;
  double            d3[3], one = 0;
  long long         i3[3];
  void             *arr;
  hsize_t           n, want[2] = {3, 4}, wrong[2] = {4, 3}, want3[3] = {1, 3, 4};
  PetscBool         found;
  FGH5DatasetStatus st;

  PetscFunctionBeginUser;
  PetscCall(FGH5OpenFile_Internal(PETSC_COMM_WORLD, path, H5F_ACC_RDONLY, &fid, why, sizeof(why)));
  FGTestCheck(fid >= 0, "cannot open %s: %s", path, why);
  PetscCall(FGH5ReadAttrNumbers_Internal(fid, "one", H5T_NATIVE_DOUBLE, 1, &one, &found));
  FGTestCheck(found && one == 0.5, "attribute one");
  PetscCall(FGH5ReadAttrNumbers_Internal(fid, "three", H5T_NATIVE_DOUBLE, 3, d3, &found));
  FGTestCheck(found && d3[0] == 0.1 && d3[1] == 1.0 / 3.0 && d3[2] == -2.5e-300, "attribute three");
  PetscCall(FGH5ReadAttrNumbers_Internal(fid, "ints", H5T_NATIVE_LLONG, 3, i3, &found));
  FGTestCheck(found && i3[0] == 7 && i3[1] == -1 && i3[2] == 1LL << 40, "attribute ints");
  PetscCall(FGH5ReadAttrNumbers_Internal(fid, "three", H5T_NATIVE_DOUBLE, 2, d3, &found));
  FGTestCheck(!found, "attribute three read as 2 values");
  PetscCall(FGH5ReadAttrNumbers_Internal(fid, "name", H5T_NATIVE_DOUBLE, 1, d3, &found));
  FGTestCheck(!found, "a string read as a number");
  PetscCall(FGH5ReadAttrNumbers_Internal(fid, "nope", H5T_NATIVE_DOUBLE, 1, d3, &found));
  FGTestCheck(!found, "a missing attribute found");
  PetscCall(FGH5ReadString_Internal(fid, "name", PETSC_FALSE, &s, &found));
  FGTestCheck(found && !strcmp(s, "a <name>"), "attribute name: \"%s\"", s ? s : "(null)");
  PetscCall(PetscFree(s));
  PetscCall(FGH5ReadString_Internal(fid, "vlen", PETSC_FALSE, &s, &found));
  FGTestCheck(found && !strcmp(s, "variable"), "variable-length attribute: \"%s\"", s ? s : "(null)");
  PetscCall(PetscFree(s));
  PetscCall(FGH5ReadString_Internal(fid, "one", PETSC_FALSE, &s, &found));
  FGTestCheck(!found && !s, "a number read as a string");
  {
    hid_t a = H5Aopen(fid, "ints", H5P_DEFAULT), ty = H5Aget_type(a), b = H5Aopen(fid, "three", H5P_DEFAULT), tb = H5Aget_type(b), c = H5Aopen(fid, "name", H5P_DEFAULT), tc = H5Aget_type(c);
    FGTestCheck(H5Tequal(ty, H5T_STD_I64LE) > 0 && H5Tequal(tb, H5T_IEEE_F64LE) > 0 && H5Tget_class(tc) == H5T_STRING && H5Tget_size(tc) == 9 && H5Tget_strpad(tc) == H5T_STR_NULLTERM, "attribute types");
    H5Tclose(ty), H5Tclose(tb), H5Tclose(tc), H5Aclose(a), H5Aclose(b), H5Aclose(c);
  }

  grp = H5Gopen2(fid, "g", H5P_DEFAULT);
  PetscCall(FGH5ReadArray_Internal(grp, "v", H5T_NATIVE_DOUBLE, sizeof(double), &arr, &n, &found));
  FGTestCheck(found && n == 5 && ((double *)arr)[4] == 1.5 * 4 + 1.0 / 7.0, "dataset v (rank 0's values)");
  PetscCall(PetscFree(arr));
  PetscCall(FGH5ReadArray_Internal(grp, "empty", H5T_NATIVE_DOUBLE, sizeof(double), &arr, &n, &found));
  FGTestCheck(found && n == 0, "dataset empty");
  PetscCall(PetscFree(arr));
  PetscCall(FGH5ReadArray_Internal(grp, "f", H5T_NATIVE_DOUBLE, sizeof(double), &arr, &n, &found));
  FGTestCheck(!found && !arr, "a 2-D dataset read as 1-D");
  PetscCall(FGH5ReadArray_Internal(grp, "v_names", H5T_NATIVE_DOUBLE, sizeof(double), &arr, &n, &found));
  FGTestCheck(!found, "strings read as numbers");
  PetscCall(FGH5ReadString_Internal(grp, "text", PETSC_TRUE, &s, &found));
  FGTestCheck(found && !strcmp(s, "line 1\nline 2\n"), "dataset text");
  PetscCall(PetscFree(s));
  {
    hid_t d = H5Dopen2(grp, "v_names", H5P_DEFAULT), ty = H5Dget_type(d);
    char  lab[3][FG_H5_LABEL_LEN];
    FGTestCheck(H5Tget_size(ty) == FG_H5_LABEL_LEN && H5Dread(d, ty, H5S_ALL, H5S_ALL, H5P_DEFAULT, lab) >= 0 && !strcmp(lab[2], "a label of some length"), "dataset v_names");
    H5Tclose(ty), H5Dclose(d);
  }

  PetscCall(FGH5CheckDataset_Internal(grp, "f", 2, want, "(ny, nx)", &st, msg, sizeof(msg)));
  FGTestCheck(st == FG_H5_DATASET_OK && !msg[0], "dataset f: %s", msg);
  PetscCall(FGH5CheckDataset_Internal(grp, "f", 2, wrong, "(ny, nx)", &st, msg, sizeof(msg)));
  FGTestCheck(st == FG_H5_DATASET_SHAPE && !strcmp(msg, "dataset /f has shape (3, 4), but the grid needs (ny, nx) = (4, 3)"), "another shape: %s", msg);
  PetscCall(FGH5CheckDataset_Internal(grp, "f", 3, want3, "(nz, ny, nx)", &st, msg, sizeof(msg)));
  FGTestCheck(st == FG_H5_DATASET_SHAPE && !strcmp(msg, "dataset /f has shape (3, 4), but the grid needs (nz, ny, nx) = (1, 3, 4)"), "another dimension: %s", msg);
  PetscCall(FGH5CheckDataset_Internal(grp, "nope", 2, want, "(ny, nx)", &st, msg, sizeof(msg)));
  FGTestCheck(st == FG_H5_DATASET_MISSING && !strcmp(msg, "no dataset /nope"), "missing: %s", msg);
  PetscCall(FGH5CheckDataset_Internal(fid, "g", 2, want, "(ny, nx)", &st, msg, sizeof(msg)));
  FGTestCheck(st == FG_H5_DATASET_NOT_DATASET && !strcmp(msg, "/g is not a dataset"), "a group: %s", msg);
  PetscCall(FGH5CheckDataset_Internal(grp, "v_names", 2, want, "(ny, nx)", &st, msg, sizeof(msg)));
  FGTestCheck(st == FG_H5_DATASET_NOT_FLOAT && !strcmp(msg, "dataset /v_names is not floating point"), "strings: %s", msg);

  IOTestExpect(OpenMissing(grp, path), FG_ERR_IO_READ, "HDF5 call H5Dopen2 failed: ");
  FGCallHDF5(FG_ERR_IO_READ, path, H5Gclose, (grp));
  FGCallHDF5(FG_ERR_IO_READ, path, H5Fclose, (fid));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Probe(const char *pre, const char *h5)
{
  char      path[256], why[256];
  PetscBool syserr;
  hid_t     fid;

  PetscFunctionBeginUser;
  FGH5Probe_Internal(h5, why, sizeof(why), &syserr);
  FGTestCheck(!why[0], "%s: %s", h5, why);
  snprintf(path, sizeof(path), "%stext.h5", pre);
  PetscCall(IOTestMake(path, "not HDF5 at all, but long enough to be looked at\n"));
  FGH5Probe_Internal(path, why, sizeof(why), &syserr);
  FGTestCheck(!syserr && !strcmp(why, "not an HDF5 file"), "%s: %s", path, why);
  snprintf(path, sizeof(path), "%sempty.h5", pre);
  PetscCall(IOTestMake(path, ""));
  FGH5Probe_Internal(path, why, sizeof(why), &syserr);
  FGTestCheck(!syserr && !strcmp(why, "not an HDF5 file (empty)"), "%s: %s", path, why);
  snprintf(path, sizeof(path), "%sdir.h5", pre);
  PetscCall(IOTestMake(path, NULL));
  FGH5Probe_Internal(path, why, sizeof(why), &syserr);
  FGTestCheck(!syserr && !strcmp(why, "not a regular file"), "%s: %s", path, why);
  snprintf(path, sizeof(path), "%smissing.h5", pre);
  FGH5Probe_Internal(path, why, sizeof(why), &syserr);
  FGTestCheck(syserr && strstr(why, "No such file"), "%s: %s", path, why);
  PetscCall(FGH5OpenFile_Internal(MPI_COMM_NULL, path, H5F_ACC_RDONLY, &fid, why, sizeof(why)));
  FGTestCheck(fid < 0 && why[0], "%s opened", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CellField(const char *pre)
{
  const PetscInt  n[2] = {8, 6}, n3[3] = {8, 6, 2};
  const PetscReal L[3] = {1, 1, 1};
  const PetscBool per[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
  FGGrid          g, g3;
  Vec             p, q, p3;
  FGIOField       f;
  FGIOMeta        meta = {.time = 0.5, .step = 3, .case_hash = 0x1234ULL, .case_name = "h5", .nvectors = 0, .vectors = NULL, .no_sidecar = PETSC_TRUE};
  PetscBool       eq;
  char            path[256], text[512];
  const char     *where = "case.yaml:3: initial.file";

  PetscFunctionBeginUser;
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, 2, n, L, NULL, per, FG_DECOMP_BLOCK, &g));
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, 3, n3, L, NULL, per, FG_DECOMP_BLOCK, &g3));
  PetscCall(DMCreateGlobalVector(g->da, &p));
  PetscCall(DMCreateGlobalVector(g3->da, &p3));
  PetscCall(VecDuplicate(p, &q));
  PetscCall(VecSetRandom(p, NULL));
  f = (FGIOField){.name = "rho", .location = FG_LOC_CELL, .vec = p};
  snprintf(path, sizeof(path), "%scell.h5", pre);
  PetscCall(FGIOWriteFields(g, path, &meta, 1, &f));
  PetscCall(FGIOReadCellField(g, path, "rho", where, "initial file", q));
  PetscCall(VecEqual(p, q, &eq));
  FGTestCheck(eq, "%s: /rho read back differs", path);
  IOTestExpect(FGIOReadCellField(g, path, "nope", where, "initial file", q), FG_ERR_INPUT, ": initial file h5_np");
  IOTestExpect(FGIOReadCellField(g, path, "nope", where, "initial file", q), FG_ERR_INPUT, "cell.h5: no dataset /nope");
  IOTestExpect(FGIOReadCellField(g3, path, "rho", where, "initial file", p3), FG_ERR_INPUT, "needs (nz, ny, nx) = (2, 6, 8) (one value per cell)");
  IOTestExpect(FGIOReadCellField(g, path, "a/b", where, "initial file", q), FG_ERR_INPUT, "invalid dataset name");
  IOTestExpect(FGIOReadCellField(g, "", "rho", where, "initial file", q), FG_ERR_INPUT, "case.yaml:3: initial.file: empty initial file name");
  snprintf(path, sizeof(path), "%snothere.h5", pre);
  snprintf(text, sizeof(text), "%s: cannot open initial file %s: No such file", where, path);
  IOTestExpect(FGIOReadCellField(g, path, "rho", where, "initial file", q), FG_ERR_INPUT, text);
  snprintf(path, sizeof(path), "%stext.h5", pre);
  IOTestExpect(FGIOReadCellField(g, path, "rho", where, "initial file", q), FG_ERR_INPUT, "text.h5 is not a readable HDF5 file: ");
  PetscCall(VecDestroy(&p));
  PetscCall(VecDestroy(&q));
  PetscCall(VecDestroy(&p3));
  PetscCall(FGGridDestroy(&g));
  PetscCall(FGGridDestroy(&g3));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  PetscMPIInt    size;
  char           pre[64], path[128];

  PetscCall(FGInitialize(&argc, &argv, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  snprintf(pre, sizeof(pre), "h5_np%d_", (int)size);
  snprintf(path, sizeof(path), "%sfile.h5", pre);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "write, read, check %s\n", path));
  ierr = Write(path);
  if (!ierr) ierr = Read(path);
  if (!ierr) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "probe\n"));
  if (!ierr) ierr = Probe(pre, path);
  if (!ierr) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FGIOReadCellField\n"));
  if (!ierr) ierr = CellField(pre);
  if (!ierr) {
    long nobj = (long)H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);
    FGTestCheck(nobj == 0, "%ld HDF5 objects left open", nobj);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %d failures\n", fg_test_failures ? "FAIL" : "PASS", fg_test_failures));
  }
  return FGTestExit(ierr);
}
