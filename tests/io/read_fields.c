/*
  Reader half of the field-file round trip (needs the fixture io_fields from write_fields.c,
  written on 3 ranks with the slab decomposition).

  Read io_fields_2d.h5 and io_fields_3d.h5 (and the _stretched ones, whose face coordinates
  FGIOReadField checks against the grid's) on this number of ranks with the block decomposition
  and check that every value equals IOTestValue() of its global index bit for bit (== and the
  bytes), that the attributes are the ones written, and that no HDF5 object is left open.

  Sample runs (from the build tree's tests/io, after io_write_fields):
    mpiexec -n 1 ./io_read_fields
    mpiexec -n 2 ./io_read_fields
*/
#include "iotest.h"

static PetscErrorCode ReadOne(const IOTestGrid *tg, PetscInt *fails)
{
  FGGrid   g;
  Vec      v;
  FGIOMeta meta;
  char     name[256];
  PetscInt nobj;

  PetscFunctionBeginUser;
  PetscCall(IOTestGridCreate(tg, FG_DECOMP_BLOCK, &g));
  PetscCall(FGGridView(g, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(FGIOReadMeta(PETSC_COMM_WORLD, tg->file, &meta, name, sizeof(name)));
  IOTestCheck(meta.time == IOTestTime(), fails, "%s: time %.17g, wrote %.17g", tg->file, (double)meta.time, IOTestTime());
  IOTestCheck(meta.step == IOTEST_STEP, fails, "%s: step %" PetscInt_FMT ", wrote %d", tg->file, meta.step, IOTEST_STEP);
  IOTestCheck(meta.case_hash == IOTEST_HASH, fails, "%s: case_hash %016llx, wrote %016llx", tg->file, meta.case_hash, IOTEST_HASH);
  IOTestCheck(meta.case_name == name && !strcmp(name, IOTEST_NAME), fails, "%s: case_name \"%s\", wrote \"%s\"", tg->file, name, IOTEST_NAME);

  PetscCall(DMCreateGlobalVector(g->da, &v));
  for (PetscInt id = 0; id < IOTEST_NFIELDS; id++) {
    const PetscScalar *a;
    FGBox              b   = g->box;
    PetscInt           bad = 0, badbits = 0;

    if (!IOTestHasField(tg->dim, id)) continue;
    PetscCall(VecSet(v, -12345.0));
    PetscCall(FGIOReadField(g, tg->file, IOTestNames[id], v));
    PetscCall(VecGetArrayRead(v, &a));
    for (PetscInt k = b.lo[2]; k < b.hi[2]; k++)
      for (PetscInt j = b.lo[1]; j < b.hi[1]; j++)
        for (PetscInt i = b.lo[0]; i < b.hi[0]; i++) {
          double want = IOTestValue(g->dim, id, i, j, k), got = a[FGBoxOwnedIndex(&b, i, j, k)];
          if (!(got == want)) {
            if (!bad) PetscCall(PetscFPrintf(PETSC_COMM_SELF, stderr, "%s:/%s (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT "): read %.17g, want %.17g\n", tg->file, IOTestNames[id], i, j, k, got, want));
            bad++;
          }
          if (memcmp(&got, &want, sizeof(double))) badbits++;
        }
    PetscCall(VecRestoreArrayRead(v, &a));
    IOTestCheck(bad == 0 && badbits == 0, fails, "%s:/%s: %" PetscInt_FMT " values differ, %" PetscInt_FMT " bit patterns differ", tg->file, IOTestNames[id], bad, badbits);
  }
  PetscCall(VecDestroy(&v));
  PetscCall(FGGridDestroy(&g));
  PetscCall(IOTestOpenHDF5Objects(&nobj));
  IOTestCheck(nobj == 0, fails, "%" PetscInt_FMT " HDF5 objects left open", nobj);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt fails = 0, all;

  PetscCall(FGInitialize(&argc, &argv, NULL));
  for (int t = 0; t < IOTEST_NGRIDS; t++) PetscCall(ReadOne(&IOTestGrids[t], &fails));
  PetscCall(MPIU_Allreduce(&fails, &all, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failures\n", all ? "FAIL" : "PASS", all));
  PetscCall(FGFinalize());
  return all ? 1 : 0;
}
