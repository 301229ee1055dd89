/*
  Field-file errors are clear errors of the right class, collective (no hang), and leave nothing
  behind: each call runs under an error handler that, like PetscReturnErrorHandler, only returns
  the code (and keeps the message), and the test checks the code and that the message names the
  file (and dataset).

    write into a missing directory / under a regular file        FG_ERR_IO_OPEN
    write over a directory (the rename fails)                     FG_ERR_IO_WRITE, no .tmp left
    sidecar over a directory                                      FG_ERR_IO_WRITE
    invalid, repeated or impossible field names/locations         FG_ERR_INPUT
    read into a grid of another shape or dimension                FG_ERR_INPUT (expected vs found)
    read a missing dataset / an integer dataset                   FG_ERR_IO_READ
    read a missing file, a text file named .h5, a truncated file  FG_ERR_IO_OPEN (or _READ)
    read the metadata of an HDF5 file without it                  FG_ERR_IO_READ
  and afterwards no HDF5 object is open. Files are named io_errors_np<size>_*, so runs at
  different sizes do not collide.

  Sample runs (from the build tree's tests/io):
    mpiexec -n 1 ./io_errors
    mpiexec -n 2 ./io_errors
*/
#include "iotest.h"
#include "../fgtest.h"
#include <stdio.h>
#include <sys/stat.h>


/* the outcome of one call: its code one of want1/want2, its message containing must1 and must2 */
static PetscErrorCode Expect(const char *call, PetscErrorCode e, const FGTestCaught *c, PetscErrorCode want1, PetscErrorCode want2, const char *must1, const char *must2, PetscInt *fails)
{
  PetscFunctionBeginUser;
  IOTestCheck(e == want1 || e == want2, fails, "%s gave error %d (want %d or %d): %s", call, (int)e, (int)want1, (int)want2, c->msg);
  IOTestCheck(!must1 || strstr(c->msg, must1), fails, "%s: message \"%s\" does not mention \"%s\"", call, c->msg, must1 ? must1 : "");
  IOTestCheck(!must2 || strstr(c->msg, must2), fails, "%s: message \"%s\" does not mention \"%s\"", call, c->msg, must2 ? must2 : "");
  if (e) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  ok, error %d: %s\n", (int)e, c->msg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* run call under FGTestCatchError (a PetscReturnErrorHandler that keeps the message) and check it */
#define EXPECT(call, want1, want2, must1, must2) \
  do { \
    FGTestCaught   _c = {0, ""}; \
    PetscErrorCode _e; \
    FGTestCatch(call, &_c, _e); \
    PetscCall(Expect(#call, _e, &_c, want1, want2, must1, must2, fails)); \
  } while (0)

/* rank 0 writes a small file with these bytes (a barrier follows) */
static PetscErrorCode WriteBytes(const char *path, const void *bytes, size_t n)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) {
    FILE *fp = fopen(path, "wb");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "test: cannot write %s", path);
    PetscCheck(fwrite(bytes, 1, n, fp) == n && fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "test: cannot write %s", path);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rank 0 copies the first half of a file */
static PetscErrorCode Truncate(const char *from, const char *to)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) {
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char  buf[1 << 16];
    long  size;
    PetscCheck(in && out, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "test: cannot copy %s", from);
    PetscCheck(fseek(in, 0, SEEK_END) == 0 && (size = ftell(in)) > 0 && fseek(in, 0, SEEK_SET) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "test: %s", from);
    size /= 2;
    PetscCheck(size <= (long)sizeof(buf) && fread(buf, 1, (size_t)size, in) == (size_t)size && fwrite(buf, 1, (size_t)size, out) == (size_t)size, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "test: copy %s", from);
    PetscCheck(fclose(in) == 0 && fclose(out) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "test: copy %s", from);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rank 0 writes an HDF5 file that is not a flowgrad field file: int dataset /p and double /q of
   shape (6, 8), no attributes */
static PetscErrorCode WritePlainHDF5(const char *path)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) {
    hsize_t dims[2] = {6, 8};
    int     ints[48];
    double  reals[48];
    hid_t   fid, space, dset;
    for (int i = 0; i < 48; i++) ints[i] = i, reals[i] = 0.5 * i;
    fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    PetscCheck(fid >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "test: cannot create %s", path);
    space = H5Screate_simple(2, dims, NULL);
    PetscCheck(space >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "test: H5Screate_simple");
    dset = H5Dcreate2(fid, "p", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    PetscCheck(dset >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "test: H5Dcreate2");
    PetscCheck(H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ints) >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "test: H5Dwrite");
    PetscCheck(H5Dclose(dset) >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "test: H5Dclose");
    dset = H5Dcreate2(fid, "q", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    PetscCheck(dset >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "test: H5Dcreate2");
    PetscCheck(H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, reals) >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "test: H5Dwrite");
    PetscCheck(H5Dclose(dset) >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "test: H5Dclose");
    PetscCheck(H5Sclose(space) >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "test: H5Sclose");
    PetscCheck(H5Fclose(fid) >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "test: H5Fclose");
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MakeDirectory(const char *path)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) PetscCall(FGMakeDirectory(path));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Run(PetscInt *fails)
{
  const PetscInt  n2[2] = {8, 6}, n2b[2] = {8, 7}, n3[3] = {8, 6, 2};
  const PetscReal L[3]  = {1, 1, 1};
  const PetscBool per[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
  FGGrid          g, gb, g3;
  Vec             p, pb, p3;
  FGIOField       fields[3];
  FGIOMeta        meta = {.time = 0.5, .step = 3, .case_hash = 0x1234ULL, .case_name = "errors", .nvectors = 0, .vectors = NULL, .no_sidecar = PETSC_FALSE}, got;
  PetscMPIInt     size;
  PetscBool       exists = PETSC_FALSE;
  PetscInt        nobj;
  char            pre[64], path[256], path2[PETSC_MAX_PATH_LEN], name[64];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  snprintf(pre, sizeof(pre), "io_errors_np%d_", (int)size);
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, 2, n2, L, NULL, per, FG_DECOMP_BLOCK, &g));
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, 2, n2b, L, NULL, per, FG_DECOMP_SLAB, &gb));
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, 3, n3, L, NULL, per, FG_DECOMP_BLOCK, &g3));
  PetscCall(DMCreateGlobalVector(g->da, &p));
  PetscCall(DMCreateGlobalVector(gb->da, &pb));
  PetscCall(DMCreateGlobalVector(g3->da, &p3));
  PetscCall(VecSet(p, 1.5));
  fields[0] = (FGIOField){.name = "p", .location = FG_LOC_CELL, .vec = p};
  fields[1] = (FGIOField){.name = "u", .location = FG_LOC_FACE_X, .vec = p};

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "writes that must fail:\n"));
  snprintf(path, sizeof(path), "%snodir/x.h5", pre);
  EXPECT(FGIOWriteFields(g, path, &meta, 2, fields), FG_ERR_IO_OPEN, FG_ERR_IO_OPEN, path, NULL);
  snprintf(path, sizeof(path), "%splainfile", pre);
  PetscCall(WriteBytes(path, "text\n", 5));
  snprintf(path, sizeof(path), "%splainfile/x.h5", pre);
  EXPECT(FGIOWriteFields(g, path, &meta, 2, fields), FG_ERR_IO_OPEN, FG_ERR_IO_OPEN, path, "not a directory");
  snprintf(path, sizeof(path), "%sisdir.h5", pre);
  PetscCall(MakeDirectory(path));
  EXPECT(FGIOWriteFields(g, path, &meta, 2, fields), FG_ERR_IO_WRITE, FG_ERR_IO_WRITE, path, NULL);
  snprintf(path2, sizeof(path2), "%s.tmp", path);
  PetscCall(IOTestExists(path2, &exists));
  IOTestCheck(!exists, fails, "%s left behind", path2);
  snprintf(path, sizeof(path), "%sxmfdir.xmf", pre);
  PetscCall(MakeDirectory(path));
  snprintf(path, sizeof(path), "%sxmfdir.h5", pre);
  EXPECT(FGIOWriteFields(g, path, &meta, 2, fields), FG_ERR_IO_WRITE, FG_ERR_IO_WRITE, "xmfdir.xmf", NULL);
  fields[2] = (FGIOField){.name = "a/b", .location = FG_LOC_CELL, .vec = p};
  EXPECT(FGIOWriteFields(g, "io_never.h5", &meta, 3, fields), FG_ERR_INPUT, FG_ERR_INPUT, "a/b", NULL);
  fields[2] = (FGIOField){.name = "p", .location = FG_LOC_FACE_Y, .vec = p};
  EXPECT(FGIOWriteFields(g, "io_never.h5", &meta, 3, fields), FG_ERR_INPUT, FG_ERR_INPUT, "twice", NULL);
  fields[2] = (FGIOField){.name = "w", .location = FG_LOC_FACE_Z, .vec = p};
  EXPECT(FGIOWriteFields(g, "io_never.h5", &meta, 3, fields), FG_ERR_INPUT, FG_ERR_INPUT, "location", NULL);
  fields[2] = (FGIOField){.name = "w", .location = FG_LOC_FACE_Y, .vec = pb};
  EXPECT(FGIOWriteFields(g, "io_never.h5", &meta, 3, fields), PETSC_ERR_ARG_SIZ, PETSC_ERR_ARG_SIZ, "w", NULL);
  PetscCall(IOTestExists("io_never.h5", &exists));
  IOTestCheck(!exists, fails, "io_never.h5 written");

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "reads that must fail:\n"));
  snprintf(path, sizeof(path), "%sok.h5", pre);
  PetscCall(FGIOWriteFields(g, path, &meta, 2, fields));
  EXPECT(FGIOReadField(g, path, "p", p), 0, 0, NULL, NULL);
  EXPECT(FGIOReadField(gb, path, "p", pb), FG_ERR_INPUT, FG_ERR_INPUT, path, "/p has shape (6, 8)");
  EXPECT(FGIOReadField(gb, path, "u", pb), FG_ERR_INPUT, FG_ERR_INPUT, "/u", "needs (ny, nx) = (7, 8)");
  EXPECT(FGIOReadField(g3, path, "p", p3), FG_ERR_INPUT, FG_ERR_INPUT, path, "needs (nz, ny, nx) = (2, 6, 8)");
  EXPECT(FGIOReadField(g, path, "nope", p), FG_ERR_IO_READ, FG_ERR_IO_READ, path, "/nope");
  EXPECT(FGIOReadField(g, path, "../p", p), FG_ERR_INPUT, FG_ERR_INPUT, path, "../p");
  EXPECT(FGIOReadField(g, path, "p", pb), PETSC_ERR_ARG_SIZ, PETSC_ERR_ARG_SIZ, NULL, NULL);
  EXPECT(FGIOReadMeta(PETSC_COMM_WORLD, path, &got, name, sizeof(name)), 0, 0, NULL, NULL);
  IOTestCheck(got.time == meta.time && got.step == meta.step && got.case_hash == meta.case_hash && !strcmp(name, "errors"), fails, "metadata of %s", path);

  snprintf(path, sizeof(path), "%smissing.h5", pre);
  EXPECT(FGIOReadField(g, path, "p", p), FG_ERR_IO_OPEN, FG_ERR_IO_OPEN, path, "No such file");
  EXPECT(FGIOReadMeta(PETSC_COMM_WORLD, path, &got, name, sizeof(name)), FG_ERR_IO_OPEN, FG_ERR_IO_OPEN, path, NULL);
  snprintf(path, sizeof(path), "%scorrupt.h5", pre);
  PetscCall(WriteBytes(path, "this is not HDF5\n", 17));
  EXPECT(FGIOReadField(g, path, "p", p), FG_ERR_IO_OPEN, FG_ERR_IO_OPEN, path, "not an HDF5 file");
  EXPECT(FGIOReadMeta(PETSC_COMM_WORLD, path, &got, name, sizeof(name)), FG_ERR_IO_OPEN, FG_ERR_IO_OPEN, path, NULL);
  snprintf(path, sizeof(path), "%sok.h5", pre);
  snprintf(path2, sizeof(path2), "%struncated.h5", pre);
  PetscCall(Truncate(path, path2));
  EXPECT(FGIOReadField(g, path2, "p", p), FG_ERR_IO_OPEN, FG_ERR_IO_READ, path2, NULL);
  snprintf(path, sizeof(path), "%splain.h5", pre);
  PetscCall(WritePlainHDF5(path));
  EXPECT(FGIOReadField(g, path, "p", p), FG_ERR_IO_READ, FG_ERR_IO_READ, path, "not floating point");
  EXPECT(FGIOReadField(g, path, "q", p), 0, 0, NULL, NULL);
  EXPECT(FGIOReadMeta(PETSC_COMM_WORLD, path, &got, name, sizeof(name)), FG_ERR_IO_READ, FG_ERR_IO_READ, path, "attribute time");
  EXPECT(FGIOReadField(g, "", "p", p), FG_ERR_IO_OPEN, FG_ERR_IO_OPEN, NULL, NULL);

  PetscCall(VecDestroy(&p));
  PetscCall(VecDestroy(&pb));
  PetscCall(VecDestroy(&p3));
  PetscCall(FGGridDestroy(&g));
  PetscCall(FGGridDestroy(&gb));
  PetscCall(FGGridDestroy(&g3));
  PetscCall(IOTestOpenHDF5Objects(&nobj));
  IOTestCheck(nobj == 0, fails, "%" PetscInt_FMT " HDF5 objects left open", nobj);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt fails = 0, all;

  PetscCall(FGInitialize(&argc, &argv, NULL));
  PetscCall(Run(&fails));
  PetscCall(MPIU_Allreduce(&fails, &all, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failures\n", all ? "FAIL" : "PASS", all));
  PetscCall(FGFinalize());
  return all ? 1 : 0;
}
