/*
  Fields read on another grid (FGIOReadFieldAnyGrid, src/io/regrid.c: initial.type file across
  grids). For a 2D grid periodic in x and a 3D grid periodic in y, each written stretched and read
  on a finer uniform grid of the same domain (and the reverse: uniform written, stretched read):

    1. every field (p, u, v[, w]) is f = c + a cos(2 pi x_p / L_p) + linear in the other
       directions, sampled at its own positions (a = 0 but for p and the velocity along the
       periodic direction); read on the other grid it is f at the reader's positions, clamped to
       the file's outermost positions along a non-periodic direction, within the interpolation's
       error bound along the periodic one (h^2/8 max|f''|; the linear part is exact: 1e-12);
       interpolated is true;
    2. read on its own grid it is FGIOReadField's result bit for bit, interpolated false;
    3. a value changed in the file (rank 0, serial HDF5): FG_ERR_IO_READ, "does not match its
       checksum", whatever the decomposition (every value counted once);
    4. a file of another domain, or of another dimension: FG_ERR_INPUT naming the file; a missing
       dataset: FG_ERR_INPUT, or with optional no error and found false;
  and afterwards no HDF5 object is open.

  Sample runs (from the build tree's tests/io):
    mpiexec -n 1 ./io_regrid
    mpiexec -n 3 ./io_regrid
*/
#include "iotest.h"
#include "../fgtest.h"

typedef struct {
  PetscInt  dim, n[3], per;
  PetscReal L[3], x0[3];
  PetscBool stretch[3];
} RGrid;

static const PetscReal RA = 0.7, RB[3] = {0.3, -0.45, 0.2};

/* the periodic part's amplitude: p and the velocity along the periodic direction have one, the
   others are linear (read exactly: a sharper check of the positions) */
static PetscReal RAmp(const RGrid *r, PetscInt id)
{
  return id == 0 || id == r->per + 1 ? RA : 0;
}

/* the test function at position x (per: the periodic direction) */
static PetscReal RValue(const RGrid *r, PetscInt id, const PetscReal x[])
{
  PetscReal v = 1.0 + 0.25 * id + RAmp(r, id) * PetscCosReal(2 * PETSC_PI * (x[r->per] - r->x0[r->per]) / r->L[r->per]);
  for (PetscInt d = 0; d < r->dim; d++)
    if (d != r->per) v += RB[d] * (1 + 0.5 * id) * x[d];
  return v;
}

static PetscErrorCode RGridCreate(const RGrid *r, FGDecomp decomp, FGGrid *g)
{
  PetscBool periodic[3] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};

  PetscFunctionBeginUser;
  periodic[r->per] = PETSC_TRUE;
  PetscCall(FGGridCreate(PETSC_COMM_WORLD, r->dim, r->n, r->L, r->x0, periodic, decomp, g));
  for (PetscInt d = 0; d < r->dim; d++) {
    PetscReal f[64];
    if (!r->stretch[d]) continue;
    for (PetscInt i = 0; i <= r->n[d]; i++) {
      const PetscReal s = (PetscReal)i / (PetscReal)r->n[d];
      f[i]              = i == r->n[d] ? r->x0[d] + r->L[d] : r->x0[d] + r->L[d] * (s + 0.25 * (PetscCosReal(2 * PETSC_PI * s) - 1) / (2 * PETSC_PI));
    }
    PetscCall(FGGridSetFaces(*g, d, f));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char *const RNames[4] = {"p", "u", "v", "w"};
static FGLocation        RLoc(PetscInt id)
{
  return id == 0 ? FG_LOC_CELL : (FGLocation)(FG_LOC_FACE_X + id - 1);
}

static PetscErrorCode Fill(const RGrid *r, FGGrid g, PetscInt id, Vec v)
{
  PetscScalar *a;
  const FGBox *b = &g->box;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt k = b->lo[2]; k < b->hi[2]; k++)
    for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
      for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) {
        const PetscInt ijk[3] = {i, j, k};
        PetscReal      x[3]   = {0, 0, 0};
        for (PetscInt d = 0; d < r->dim; d++) x[d] = FGGridCoordinate(g, RLoc(id), d, ijk[d]);
        a[FGBoxOwnedIndex(b, i, j, k)] = RValue(r, id, x);
      }
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 1: the values read on grid g (file grid fg) against f, clamped along the non-periodic directions */
static PetscErrorCode Compare(const RGrid *r, FGGrid g, FGGrid fg, PetscInt id, Vec v, const char *what, PetscInt *fails)
{
  const PetscScalar *a;
  const FGBox       *b    = &g->box;
  const PetscReal    k    = 2 * PETSC_PI / r->L[r->per];
  PetscReal          hmax = 0, err = 0, all, bound;
  const FGLocation   loc  = RLoc(id);

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i + 1 < fg->n[r->per]; i++) hmax = PetscMax(hmax, FGGridCoordinate(fg, loc, r->per, i + 1) - FGGridCoordinate(fg, loc, r->per, i));
  hmax = PetscMax(hmax, FGGridCoordinate(fg, loc, r->per, 0) + r->L[r->per] - FGGridCoordinate(fg, loc, r->per, fg->n[r->per] - 1)); /* across the seam */
  bound = hmax * hmax / 8 * k * k * RAmp(r, id) * (1 + 1e-9) + 1e-12;
  PetscCall(VecGetArrayRead(v, &a));
  for (PetscInt kk = b->lo[2]; kk < b->hi[2]; kk++)
    for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
      for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) {
        const PetscInt ijk[3] = {i, j, kk};
        PetscReal      x[3]   = {0, 0, 0};
        for (PetscInt d = 0; d < r->dim; d++) {
          x[d] = FGGridCoordinate(g, loc, d, ijk[d]);
          if (d != r->per) x[d] = PetscMin(PetscMax(x[d], FGGridCoordinate(fg, loc, d, 0)), FGGridCoordinate(fg, loc, d, fg->n[d] - 1));
        }
        err = PetscMax(err, PetscAbsReal(a[FGBoxOwnedIndex(b, i, j, kk)] - RValue(r, id, x)));
      }
  PetscCall(VecRestoreArrayRead(v, &a));
  PetscCall(MPIU_Allreduce(&err, &all, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  IOTestCheck(all <= bound, fails, "%s: /%s read on the other grid is off by %.3g (bound %.3g)", what, RNames[id], (double)all, (double)bound);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s /%s: largest error %.3e (bound %.3e)\n", what, RNames[id], (double)all, (double)bound));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define EXPECT(call, want, must) \
  do { \
    FGTestCaught   _c = {0, ""}; \
    PetscErrorCode _e; \
    FGTestCatch(call, &_c, _e); \
    IOTestCheck(_e == (want), fails, "%s gave error %d (want %d): %s", #call, (int)_e, (int)(want), _c.msg); \
    IOTestCheck(strstr(_c.msg, (must) ? (must) : ""), fails, "%s: message \"%s\" does not mention \"%s\"", #call, _c.msg, (must) ? (must) : ""); \
    if (_e) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  ok, error %d: %s\n", (int)_e, _c.msg)); \
  } while (0)

/* rank 0 adds 1e-13 to the first value of dataset name (serial HDF5) */
static PetscErrorCode Damage(const char *path, const char *name)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) {
    hid_t   f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), d, s, m;
    hsize_t one = 1, zero[3] = {0, 0, 0}, cnt[3] = {1, 1, 1};
    double  v;
    PetscCheck(f >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "test: cannot open %s", path);
    d = H5Dopen2(f, name, H5P_DEFAULT);
    s = H5Dget_space(d);
    m = H5Screate_simple(1, &one, NULL);
    PetscCheck(H5Sselect_hyperslab(s, H5S_SELECT_SET, zero, NULL, cnt, NULL) >= 0 && H5Dread(d, H5T_NATIVE_DOUBLE, m, s, H5P_DEFAULT, &v) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "test: read %s", path);
    v += 1e-13;
    PetscCheck(H5Dwrite(d, H5T_NATIVE_DOUBLE, m, s, H5P_DEFAULT, &v) >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "test: write %s", path);
    H5Sclose(m), H5Sclose(s), H5Dclose(d), H5Fclose(f);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* write the fields of grid w to path, read them on grid r2 and check 1 and 2 */
static PetscErrorCode RoundTrip(const RGrid *w, const RGrid *r2, const char *path, PetscInt *fails)
{
  FGGrid      gw, gr;
  FGIOField   fields[4];
  PetscInt    nf = w->dim + 1;
  FGIOMeta    meta = {.time = 0.5, .step = 3, .case_hash = 7, .case_name = "regrid"};
  Vec         back;
  PetscMPIInt size;
  char        what[64];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(RGridCreate(w, FG_DECOMP_SLAB, &gw));
  PetscCall(RGridCreate(r2, FG_DECOMP_BLOCK, &gr));
  for (PetscInt id = 0; id < nf; id++) {
    fields[id] = (FGIOField){.name = RNames[id], .location = RLoc(id)};
    PetscCall(DMCreateGlobalVector(gw->da, &fields[id].vec));
    PetscCall(Fill(w, gw, id, fields[id].vec));
  }
  PetscCall(FGIOWriteFields(gw, path, &meta, nf, fields));
  PetscCall(DMCreateGlobalVector(gr->da, &back));
  snprintf(what, sizeof(what), "%s (%dD, %d ranks)", path, (int)w->dim, (int)size);
  for (PetscInt id = 0; id < nf; id++) {
    PetscBool found = PETSC_FALSE, interp = PETSC_FALSE, same;
    Vec       own;
    PetscCall(FGIOReadFieldAnyGrid(gr, path, RNames[id], RLoc(id), PETSC_FALSE, back, &found, &interp));
    IOTestCheck(found && interp, fails, "%s: /%s found %d, interpolated %d (want 1, 1)", what, RNames[id], (int)found, (int)interp);
    PetscCall(Compare(w, gr, gw, id, back, what, fails));
    /* 2 */
    PetscCall(DMCreateGlobalVector(gw->da, &own));
    PetscCall(FGIOReadFieldAnyGrid(gw, path, RNames[id], RLoc(id), PETSC_FALSE, own, &found, &interp));
    PetscCall(VecEqual(own, fields[id].vec, &same));
    IOTestCheck(same && found && !interp, fails, "%s: /%s on its own grid: equal %d, found %d, interpolated %d (want 1, 1, 0)", what, RNames[id], (int)same, (int)found, (int)interp);
    PetscCall(VecDestroy(&own));
  }
  /* 3 (after the round trip: the file is damaged for good) */
  PetscCall(Damage(path, RNames[1]));
  EXPECT(FGIOReadFieldAnyGrid(gr, path, RNames[1], RLoc(1), PETSC_FALSE, back, NULL, NULL), FG_ERR_IO_READ, "does not match its checksum");
  EXPECT(FGIOReadFieldAnyGrid(gr, path, RNames[2], RLoc(2), PETSC_FALSE, back, NULL, NULL), 0, NULL);
  PetscCall(VecDestroy(&back));
  for (PetscInt id = 0; id < nf; id++) PetscCall(VecDestroy(&fields[id].vec));
  PetscCall(FGGridDestroy(&gw));
  PetscCall(FGGridDestroy(&gr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    nfail = 0, *fails = &nfail, all, nobj;
  PetscMPIInt size;
  char        f2[64], f3[64], f2b[64], f3b[64];
  /* stretched writers, finer uniform readers (periodic: x in 2D, y in 3D), and the reverse */
  const RGrid w2 = {2, {13, 9, 1}, 0, {2.0, 1.5, 1.0}, {-0.5, 0.25, 0.0}, {PETSC_TRUE, PETSC_TRUE, PETSC_FALSE}};
  const RGrid r2 = {2, {24, 17, 1}, 0, {2.0, 1.5, 1.0}, {-0.5, 0.25, 0.0}, {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}};
  const RGrid w3 = {3, {7, 9, 6}, 1, {1.0, 2.0, 0.7}, {0.1, -1.0, 3.0}, {PETSC_TRUE, PETSC_FALSE, PETSC_TRUE}};
  const RGrid r3 = {3, {11, 14, 10}, 1, {1.0, 2.0, 0.7}, {0.1, -1.0, 3.0}, {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE}};

  PetscCall(FGInitialize(&argc, &argv, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  snprintf(f2, sizeof(f2), "io_regrid_np%d_2d.h5", (int)size);
  snprintf(f3, sizeof(f3), "io_regrid_np%d_3d.h5", (int)size);
  snprintf(f2b, sizeof(f2b), "io_regrid_np%d_2d_back.h5", (int)size);
  snprintf(f3b, sizeof(f3b), "io_regrid_np%d_3d_back.h5", (int)size);
  PetscCall(RoundTrip(&w2, &r2, f2, fails));
  PetscCall(RoundTrip(&w3, &r3, f3, fails));
  PetscCall(RoundTrip(&r2, &w2, f2b, fails));
  PetscCall(RoundTrip(&r3, &w3, f3b, fails));

  /* 4 */
  {
    FGGrid    g;
    Vec       v;
    PetscBool found = PETSC_TRUE;
    RGrid     other = r2;
    other.L[1]      = 1.6; /* another domain */
    PetscCall(RGridCreate(&other, FG_DECOMP_BLOCK, &g));
    PetscCall(DMCreateGlobalVector(g->da, &v));
    EXPECT(FGIOReadFieldAnyGrid(g, f2b, "p", FG_LOC_CELL, PETSC_FALSE, v, NULL, NULL), FG_ERR_INPUT, "a field is interpolated only between grids of the same domain");
    PetscCall(VecDestroy(&v));
    PetscCall(FGGridDestroy(&g));
    PetscCall(RGridCreate(&w3, FG_DECOMP_BLOCK, &g));
    PetscCall(DMCreateGlobalVector(g->da, &v));
    EXPECT(FGIOReadFieldAnyGrid(g, f2b, "p", FG_LOC_CELL, PETSC_FALSE, v, NULL, NULL), FG_ERR_INPUT, "holds a 2D field, the case is 3D");
    PetscCall(VecDestroy(&v));
    PetscCall(FGGridDestroy(&g));
    PetscCall(RGridCreate(&w2, FG_DECOMP_BLOCK, &g));
    PetscCall(DMCreateGlobalVector(g->da, &v));
    EXPECT(FGIOReadFieldAnyGrid(g, f2b, "T", FG_LOC_CELL, PETSC_FALSE, v, NULL, NULL), FG_ERR_INPUT, "no dataset /T");
    EXPECT(FGIOReadFieldAnyGrid(g, f2b, "T", FG_LOC_CELL, PETSC_TRUE, v, &found, NULL), 0, NULL);
    IOTestCheck(!found, fails, "an optional missing dataset was found");
    PetscCall(VecDestroy(&v));
    PetscCall(FGGridDestroy(&g));
  }
  PetscCall(IOTestOpenHDF5Objects(&nobj));
  IOTestCheck(nobj == 0, fails, "%" PetscInt_FMT " HDF5 objects left open", nobj);
  PetscCall(MPIU_Allreduce(&nfail, &all, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failures\n", all ? "FAIL" : "PASS", all));
  PetscCall(FGFinalize());
  return all ? 1 : 0;
}
