/*
  Tables (src/io/table.c, include/fg/table.h).

    CSV        comments, a label column, the column formats (%.17g, %.6f, %.8g, %.3e, %lld), a
               hidden column: the file equals the text printf gives
    optimization.csv / .h5
               the table reproduces, byte for byte and dataset for dataset, the files that the
               optimizer wrote with its own code before it wrote them with a table
               (src/optim/output.c, FGOptHistoryCreate_Private): its writers FGOptWriteCSV_Private
               and FGOptWriteH5_Private are kept here as the reference of the format, with K = 1
               point (the J@ columns hidden, J_points still written) and K = 2
    default    a table without datasets: the matrix "table" and "table_names"
    stream     a new file, rows flushed as they come; reopened with keep = 2: the rows up to step 2
               kept, later rows and a line cut by a kill dropped, the new header written
    errors     a missing directory: FG_ERR_IO_WRITE naming the file (CSV, HDF5, stream), nothing
               left; a bad format: PETSC_ERR_ARG_WRONG
  Files are named table_np<size>_*.

  Sample runs (from the build tree's tests/io):
    mpiexec -n 1 ../test_io_table
    mpiexec -n 2 ../test_io_table
*/
#define _POSIX_C_SOURCE 200809L /* open_memstream, access under -std=c11 */
#include "../fgtest.h"
#include "iotest.h"
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static PetscErrorCode CheckText(const char *path, const char *want)
{
  char *got;

  PetscFunctionBeginUser;
  PetscCall(IOTestReadText(path, &got));
  FGTestCheck(!strcmp(got, want), "%s:\n--- got\n%s--- want\n%s---", path, got, want);
  PetscCall(PetscFree(got));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   optimization.csv and .h5: the optimizer's writers before FGTable (the reference), on plain arrays
   --------------------------------------------------------------------------------------------- */
typedef struct {
  PetscInt  nhist, K, nrows, ns;
  PetscInt  it[3], evals[3];
  PetscReal J[3], gnorm[3], step[3], viol[3], seconds[3];
  PetscReal hJk[3 * 2], hq[3 * 1], hp[3 * 2];
} OptHistory;

static const char *const OptPoints[2] = {"re100", "re200"};
static const char *const OptRows[1]   = {"area"};
static const char *const OptNames[2]  = {"cyl.radius", "cyl.omega[0]"};

static void OptHistoryFill(OptHistory *O, PetscInt K)
{
  memset(O, 0, sizeof(*O));
  O->nhist = 3, O->K = K, O->nrows = 1, O->ns = 2;
  for (PetscInt r = 0; r < 3; r++) {
    O->it[r] = r, O->evals[r] = 1 + 2 * r;
    O->J[r] = 1.0 / (3.0 + r), O->gnorm[r] = 0.1 / (1 + r * r), O->step[r] = r ? 0.5 / r : 0, O->viol[r] = 1e-3 * r, O->seconds[r] = 12.3456789 * (r + 1);
    for (PetscInt k = 0; k < K; k++) O->hJk[r * K + k] = O->J[r] * (1 + 0.1 * k) + 1e-17;
    O->hq[r] = 0.7 - 0.01 * r;
    O->hp[2 * r] = 0.5 + 1.0 / 7.0 * r, O->hp[2 * r + 1] = -2.0 / 3.0 * r;
  }
}

/* FGOptWriteCSV_Private's text */
static void OptReferenceCSV(const OptHistory *O, FILE *f)
{
  fprintf(f, "iteration,evaluations,J,J_rel,gradient_norm,step,max_violation,seconds");
  for (PetscInt k = 0; O->K > 1 && k < O->K; k++) fprintf(f, ",J@%s", OptPoints[k]);
  for (PetscInt i = 0; i < O->nrows; i++) fprintf(f, ",%s", OptRows[i]);
  for (PetscInt i = 0; i < O->ns; i++) fprintf(f, ",%s", OptNames[i]);
  fprintf(f, "\n");
  for (PetscInt r = 0; r < O->nhist; r++) {
    fprintf(f, "%" PetscInt_FMT ",%" PetscInt_FMT ",%.17g,%.17g,%.17g,%.17g,%.17g,%.3f", O->it[r], O->evals[r], (double)O->J[r], (double)(O->J[r] / (O->J[0] != 0 ? O->J[0] : 1.0)), (double)O->gnorm[r], (double)O->step[r], (double)O->viol[r], (double)O->seconds[r]);
    for (PetscInt k = 0; O->K > 1 && k < O->K; k++) fprintf(f, ",%.17g", (double)O->hJk[r * O->K + k]);
    for (PetscInt i = 0; i < O->nrows; i++) fprintf(f, ",%.17g", (double)O->hq[r * O->nrows + i]);
    for (PetscInt i = 0; i < O->ns; i++) fprintf(f, ",%.17g", (double)O->hp[r * O->ns + i]);
    fprintf(f, "\n");
  }
}

static void OptH5Write(hid_t fid, const char *name, int rank, hsize_t n0, hsize_t n1, const double *v)
{
  hsize_t dims[2] = {n0, n1};
  hid_t   sp = H5Screate_simple(rank, dims, NULL), ds = H5Dcreate2(fid, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (n0 > 0 && (rank == 1 || n1 > 0)) (void)H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  H5Dclose(ds);
  H5Sclose(sp);
}

static void OptH5Names(hid_t fid, const char *name, hsize_t n, const char *const src[])
{
  hsize_t dims[1] = {n};
  char    names[4][128];
  hid_t   t = H5Tcopy(H5T_C_S1), sp, ds;
  memset(names, 0, sizeof(names));
  for (hsize_t i = 0; i < n; i++) snprintf(names[i], 128, "%s", src[i]);
  H5Tset_size(t, 128);
  sp = H5Screate_simple(1, dims, NULL);
  ds = H5Dcreate2(fid, name, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (n) (void)H5Dwrite(ds, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, names);
  H5Dclose(ds);
  H5Sclose(sp);
  H5Tclose(t);
}

/* FGOptWriteH5_Private's file (rank 0) */
static void OptReferenceH5(const OptHistory *O, const char *path)
{
  const hsize_t n = (hsize_t)O->nhist;
  double        col[7 * 3];
  hid_t         fid = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  for (PetscInt r = 0; r < O->nhist; r++) {
    col[r] = (double)O->it[r], col[n + r] = (double)O->evals[r], col[2 * n + r] = O->J[r], col[3 * n + r] = O->gnorm[r];
    col[4 * n + r] = O->step[r], col[5 * n + r] = O->viol[r], col[6 * n + r] = O->seconds[r];
  }
  OptH5Write(fid, "iteration", 1, n, 1, col);
  OptH5Write(fid, "evaluations", 1, n, 1, col + n);
  OptH5Write(fid, "J", 1, n, 1, col + 2 * n);
  OptH5Write(fid, "gradient_norm", 1, n, 1, col + 3 * n);
  OptH5Write(fid, "step", 1, n, 1, col + 4 * n);
  OptH5Write(fid, "max_violation", 1, n, 1, col + 5 * n);
  OptH5Write(fid, "seconds", 1, n, 1, col + 6 * n);
  OptH5Write(fid, "J_points", 2, n, (hsize_t)O->K, O->hJk);
  OptH5Write(fid, "constraints", 2, n, (hsize_t)O->nrows, O->hq);
  OptH5Write(fid, "design", 2, n, (hsize_t)O->ns, O->hp);
  OptH5Names(fid, "constraints_names", (hsize_t)O->nrows, OptRows);
  OptH5Names(fid, "design_names", (hsize_t)O->ns, OptNames);
  OptH5Names(fid, "J_points_names", (hsize_t)O->K, OptPoints);
  H5Fclose(fid);
}

/* The same with a table, as src/optim/output.c builds it (FGOptHistoryCreate_Private). */
static PetscErrorCode OptTable(const OptHistory *O, FGTable *t)
{
  static const char *const head[8] = {"iteration", "evaluations", "J", "J_rel", "gradient_norm", "step", "max_violation", "seconds"};
  static const char *const fmt[8]  = {FG_TABLE_INT, FG_TABLE_INT, "%.17g", "%.17g", "%.17g", "%.17g", "%.17g", "%.3f"};
  const PetscInt           P = 8, Q = P + O->K, S = Q + O->nrows;
  PetscReal                row[16];

  PetscFunctionBeginUser;
  PetscCall(FGTableCreate(PETSC_COMM_WORLD, t));
  for (PetscInt i = 0; i < 8; i++) PetscCall(FGTableAddColumn(*t, head[i], fmt[i]));
  for (PetscInt k = 0; k < O->K; k++) {
    char nm[160];
    snprintf(nm, sizeof(nm), "J@%s", OptPoints[k]);
    PetscCall(FGTableAddColumn(*t, nm, "%.17g"));
    PetscCall(FGTableSetColumnHidden(*t, P + k, (PetscBool)(O->K <= 1)));
  }
  for (PetscInt i = 0; i < O->nrows; i++) PetscCall(FGTableAddColumn(*t, OptRows[i], "%.17g"));
  for (PetscInt i = 0; i < O->ns; i++) PetscCall(FGTableAddColumn(*t, OptNames[i], "%.17g"));
  for (PetscInt i = 0; i < 8; i++)
    if (i != 3) PetscCall(FGTableAddDataset(*t, head[i], i, 1, PETSC_FALSE, NULL));
  PetscCall(FGTableAddDataset(*t, "J_points", P, O->K, PETSC_TRUE, OptPoints));
  PetscCall(FGTableAddDataset(*t, "constraints", Q, O->nrows, PETSC_TRUE, NULL));
  PetscCall(FGTableAddDataset(*t, "design", S, O->ns, PETSC_TRUE, NULL));
  for (PetscInt r = 0; r < O->nhist; r++) {
    row[0] = (PetscReal)O->it[r], row[1] = (PetscReal)O->evals[r], row[2] = O->J[r], row[3] = O->J[r] / (O->J[0] != 0 ? O->J[0] : 1.0);
    row[4] = O->gnorm[r], row[5] = O->step[r], row[6] = O->viol[r], row[7] = O->seconds[r];
    for (PetscInt k = 0; k < O->K; k++) row[P + k] = O->hJk[r * O->K + k];
    for (PetscInt i = 0; i < O->nrows; i++) row[Q + i] = O->hq[r * O->nrows + i];
    for (PetscInt i = 0; i < O->ns; i++) row[S + i] = O->hp[r * O->ns + i];
    PetscCall(FGTableAddRow(*t, NULL, row));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dataset name of a and b: the same type, shape and bytes */
static PetscBool SameDataset(hid_t fa, hid_t fb, const char *name)
{
  hid_t     da = H5Dopen2(fa, name, H5P_DEFAULT), db = H5Dopen2(fb, name, H5P_DEFAULT), ta, tb, sa, sb;
  hsize_t   na[2] = {0, 0}, nb[2] = {0, 0};
  PetscBool same = PETSC_FALSE;
  if (da < 0 || db < 0) return PETSC_FALSE;
  ta = H5Dget_type(da), tb = H5Dget_type(db), sa = H5Dget_space(da), sb = H5Dget_space(db);
  if (H5Tequal(ta, tb) > 0 && H5Sget_simple_extent_ndims(sa) == H5Sget_simple_extent_ndims(sb) && H5Sget_simple_extent_dims(sa, na, NULL) >= 0 && H5Sget_simple_extent_dims(sb, nb, NULL) >= 0 && na[0] == nb[0] && na[1] == nb[1]) {
    size_t bytes = H5Tget_size(ta) * (size_t)H5Sget_simple_extent_npoints(sa);
    char  *a = calloc(bytes + 1, 1), *b = calloc(bytes + 1, 1);
    same     = (PetscBool)(bytes == 0 || (H5Dread(da, ta, H5S_ALL, H5S_ALL, H5P_DEFAULT, a) >= 0 && H5Dread(db, tb, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) >= 0 && !memcmp(a, b, bytes)));
    free(a);
    free(b);
  }
  H5Tclose(ta), H5Tclose(tb), H5Sclose(sa), H5Sclose(sb), H5Dclose(da), H5Dclose(db);
  return same;
}

static PetscErrorCode TestOptimization(const char *pre, PetscInt K)
{
  OptHistory  O;
  FGTable     t;
  PetscMPIInt rank;
  char        path[256], ref[256], *want = NULL;
  size_t      len = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "optimization.csv and .h5, K = %" PetscInt_FMT "\n", K));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  OptHistoryFill(&O, K);
  PetscCall(OptTable(&O, &t));
  snprintf(path, sizeof(path), "%soptimization_K%d.csv", pre, (int)K);
  PetscCall(FGTableWriteCSV(t, path));
  {
    FILE *f = open_memstream(&want, &len);
    OptReferenceCSV(&O, f);
    (void)fclose(f);
  }
  PetscCall(CheckText(path, want));
  free(want);

  snprintf(path, sizeof(path), "%soptimization_K%d.h5", pre, (int)K);
  snprintf(ref, sizeof(ref), "%sreference_K%d.h5", pre, (int)K);
  PetscCall(FGTableWriteHDF5(t, path));
  if (rank == 0) OptReferenceH5(&O, ref);
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  {
    static const char *const names[] = {"iteration", "evaluations", "J", "gradient_norm", "step", "max_violation", "seconds", "J_points", "constraints", "design", "constraints_names", "design_names", "J_points_names"};
    hid_t                    fa = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), fb = H5Fopen(ref, H5F_ACC_RDONLY, H5P_DEFAULT);
    H5G_info_t               ia, ib;
    FGTestCheck(fa >= 0 && fb >= 0, "cannot open %s or %s", path, ref);
    if (fa >= 0 && fb >= 0) {
      FGTestCheck(H5Gget_info(fa, &ia) >= 0 && H5Gget_info(fb, &ib) >= 0 && ia.nlinks == ib.nlinks && ia.nlinks == 13, "%s: %llu objects, the reference %llu", path, (unsigned long long)ia.nlinks, (unsigned long long)ib.nlinks);
      for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) FGTestCheck(SameDataset(fa, fb, names[i]), "%s: dataset /%s differs from the reference", path, names[i]);
    }
    if (fa >= 0) H5Fclose(fa);
    if (fb >= 0) H5Fclose(fb);
  }
  PetscCall(FGTableDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   CSV formats, labels, the default HDF5 form
   --------------------------------------------------------------------------------------------- */
static PetscErrorCode TestCSV(const char *pre)
{
  FGTable         t;
  const PetscReal r0[4] = {1.0 / 3.0, 2.5, 123456.789123456, 1e-300}, r1[4] = {-7, 1e20, 0.125, -0.0};
  char            path[256], want[1024];
  PetscInt        nrows, ncols;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "CSV\n"));
  PetscCall(FGTableCreate(PETSC_COMM_WORLD, &t));
  PetscCall(FGTableAddComment(t, "J = 0.5"));
  PetscCall(FGTableAddComment(t, "a second line"));
  PetscCall(FGTableSetLabelColumn(t, "name"));
  PetscCall(FGTableAddColumn(t, "value", NULL));
  PetscCall(FGTableAddColumn(t, "wall", "%.6f"));
  PetscCall(FGTableAddColumn(t, "st", "%.8g"));
  PetscCall(FGTableAddColumn(t, "tiny", "%.3e"));
  PetscCall(FGTableAddRow(t, "a[0]", r0));
  PetscCall(FGTableAddRow(t, "b", r1));
  PetscCall(FGTableGetSize(t, &nrows, &ncols));
  FGTestCheck(nrows == 2 && ncols == 4, "size %" PetscInt_FMT " x %" PetscInt_FMT, nrows, ncols);
  snprintf(path, sizeof(path), "%scsv.csv", pre);
  PetscCall(FGTableWriteCSV(t, path));
  snprintf(want, sizeof(want), "# J = 0.5\n# a second line\nname,value,wall,st,tiny\na[0],%.17g,%.6f,%.8g,%.3e\nb,%.17g,%.6f,%.8g,%.3e\n", r0[0], r0[1], r0[2], r0[3], r1[0], r1[1], r1[2], r1[3]);
  PetscCall(CheckText(path, want));

  /* the default HDF5 form: "table" (rows x columns) and "table_names" */
  snprintf(path, sizeof(path), "%scsv.h5", pre);
  PetscCall(FGTableWriteHDF5(t, path));
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  {
    hid_t   fid = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d, s, ty;
    double  v[8];
    char    names[4][128];
    hsize_t dims[2] = {0, 0};
    FGTestCheck(fid >= 0, "cannot open %s", path);
    if (fid >= 0) {
      d = H5Dopen2(fid, "table", H5P_DEFAULT), s = H5Dget_space(d);
      FGTestCheck(H5Sget_simple_extent_dims(s, dims, NULL) == 2 && dims[0] == 2 && dims[1] == 4 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 && !memcmp(v, r0, sizeof(r0)) && !memcmp(v + 4, r1, sizeof(r1)), "%s: /table is not the table", path);
      H5Sclose(s), H5Dclose(d);
      d = H5Dopen2(fid, "table_names", H5P_DEFAULT), ty = H5Dget_type(d);
      FGTestCheck(H5Tget_size(ty) == 128 && H5Dread(d, ty, H5S_ALL, H5S_ALL, H5P_DEFAULT, names) >= 0 && !strcmp(names[0], "value") && !strcmp(names[3], "tiny"), "%s: /table_names", path);
      H5Tclose(ty), H5Dclose(d), H5Fclose(fid);
    }
  }
  IOTestExpect(FGTableAddColumn(t, "late", NULL), PETSC_ERR_ORDER, "has rows already");
  PetscCall(FGTableDestroy(&t));

  PetscCall(FGTableCreate(PETSC_COMM_WORLD, &t));
  IOTestExpect(FGTableAddColumn(t, "bad", "%s"), PETSC_ERR_ARG_WRONG, "column bad");
  IOTestExpect(FGTableAddColumn(t, "bad", "%.17gx"), PETSC_ERR_ARG_WRONG, "column bad");
  PetscCall(FGTableDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Stream
   --------------------------------------------------------------------------------------------- */
static PetscErrorCode TestStream(const char *pre)
{
  FGTable     t;
  PetscMPIInt rank;
  char        path[256], want[1024], row[128];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "stream\n"));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  snprintf(path, sizeof(path), "%shistory.csv", pre);
  PetscCall(FGTableCreate(PETSC_COMM_WORLD, &t));
  PetscCall(FGTableAddColumn(t, "step", FG_TABLE_INT));
  PetscCall(FGTableAddColumn(t, "time", "%.17g"));
  PetscCall(FGTableAddColumn(t, "wall_time", "%.6f"));
  PetscCall(FGTableStreamOpen(t, path, -1));
  want[0] = '\0';
  strcat(want, "step,time,wall_time\n");
  for (PetscInt s = 1; s <= 4; s++) {
    const PetscReal v[3] = {(PetscReal)s, 0.1 * s, 0.25 * s};
    PetscCall(FGTableStreamRow(t, NULL, v));
    snprintf(row, sizeof(row), "%" PetscInt_FMT ",%.17g,%.6f\n", s, 0.1 * s, 0.25 * s);
    strcat(want, row);
    PetscCall(CheckText(path, want)); /* flushed at once */
  }
  PetscCall(FGTableStreamClose(t));
  if (rank == 0) { /* a line cut by a kill */
    FILE *fp = fopen(path, "a");
    if (fp) {
      fputs("5,0.5", fp);
      (void)fclose(fp);
    }
  }
  /* resumed at step 2, with a new column: the new header, rows 1 and 2 as they were, then new rows */
  PetscCall(FGTableDestroy(&t));
  PetscCall(FGTableCreate(PETSC_COMM_WORLD, &t));
  PetscCall(FGTableAddColumn(t, "step", FG_TABLE_INT));
  PetscCall(FGTableAddColumn(t, "time", "%.17g"));
  PetscCall(FGTableAddColumn(t, "wall_time", "%.6f"));
  PetscCall(FGTableAddColumn(t, "extra", "%.8g"));
  PetscCall(FGTableStreamOpen(t, path, 2));
  {
    const PetscReal v[4] = {3, 0.3, 9.5, 1.0 / 3.0};
    PetscCall(FGTableStreamRow(t, NULL, v));
    snprintf(want, sizeof(want), "step,time,wall_time,extra\n1,%.17g,%.6f\n2,%.17g,%.6f\n3,%.17g,%.6f,%.8g\n", 0.1, 0.25, 0.2, 0.5, 0.3, 9.5, 1.0 / 3.0);
  }
  PetscCall(FGTableDestroy(&t)); /* closes the stream */
  PetscCall(CheckText(path, want));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestErrors(const char *pre)
{
  FGTable         t;
  const PetscReal v[1] = {1};
  char            path[256];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "errors\n"));
  PetscCall(FGTableCreate(PETSC_COMM_WORLD, &t));
  PetscCall(FGTableAddColumn(t, "x", NULL));
  PetscCall(FGTableAddRow(t, NULL, v));
  snprintf(path, sizeof(path), "%snodir/t.csv", pre);
  IOTestExpect(FGTableWriteCSV(t, path), FG_ERR_IO_WRITE, "nodir/t.csv: open failed");
  IOTestExpect(FGTableStreamOpen(t, path, -1), FG_ERR_IO_WRITE, "nodir/t.csv: open failed");
  snprintf(path, sizeof(path), "%snodir/t.h5", pre);
  IOTestExpect(FGTableWriteHDF5(t, path), FG_ERR_IO_WRITE, "cannot write table_np");
  IOTestExpect(FGTableAddDataset(t, "y", 0, 2, PETSC_FALSE, NULL), PETSC_ERR_ARG_OUTOFRANGE, "dataset y");
  PetscCall(FGTableDestroy(&t));
  FGTestCheck(access(path, F_OK) != 0, "%s written", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  PetscMPIInt    size;
  char           pre[64];

  PetscCall(FGInitialize(&argc, &argv, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  snprintf(pre, sizeof(pre), "table_np%d_", (int)size);
  ierr = TestCSV(pre);
  if (!ierr) ierr = TestOptimization(pre, 1);
  if (!ierr) ierr = TestOptimization(pre, 2);
  if (!ierr) ierr = TestStream(pre);
  if (!ierr) ierr = TestErrors(pre);
  if (!ierr) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %d failures\n", fg_test_failures ? "FAIL" : "PASS", fg_test_failures));
  return FGTestExit(ierr);
}
