/*
  Writer half of the field-file round trip (fixture io_fields; the readers are read_fields.c and
  check_xdmf.py).

  On a slab-decomposed grid (run at 3 ranks) write io_fields_2d.h5 and io_fields_3d.h5 (+ .xmf),
  and the same grids stretched (io_fields_{2d,3d}_stretched: their coordinates as /x_faces, ...):
  cell fields p, T and face fields u, v (, w), each value IOTestValue() of its global index.
  Checks:
    1. the values are all different and use the low mantissa bits (the round trip means something);
    2. a second write over the first replaces it (file and sidecar), and leaves no .tmp behind;
    3. the file reads back on the writer's own decomposition bit for bit, with its attributes;
    4. no HDF5 object is left open.

  Sample run (from the build tree's tests/io):
    mpiexec -n 3 ./io_write_fields
*/
#include "iotest.h"

static int CompareDouble(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

/* 1. all values of a file distinct, nearly all with a nonzero low mantissa byte (rank 0, serial) */
static PetscErrorCode CheckValues(const IOTestGrid *tg, PetscInt *fails)
{
  PetscInt total = 0, m = 0, lowzero = 0, dups = 0;
  double  *all;

  PetscFunctionBeginUser;
  for (PetscInt id = 0; id < IOTEST_NFIELDS; id++)
    if (IOTestHasField(tg->dim, id)) total += tg->n[0] * tg->n[1] * tg->n[2];
  PetscCall(PetscMalloc1(total, &all));
  for (PetscInt id = 0; id < IOTEST_NFIELDS; id++) {
    if (!IOTestHasField(tg->dim, id)) continue;
    for (PetscInt k = 0; k < tg->n[2]; k++)
      for (PetscInt j = 0; j < tg->n[1]; j++)
        for (PetscInt i = 0; i < tg->n[0]; i++) {
          double        v = IOTestValue(tg->dim, id, i, j, k);
          unsigned char bytes[sizeof(double)];
          memcpy(bytes, &v, sizeof(v));
          if (bytes[0] == 0) lowzero++; /* little-endian: the lowest mantissa byte */
          all[m++] = v;
        }
  }
  qsort(all, (size_t)total, sizeof(double), CompareDouble);
  for (PetscInt a = 1; a < total; a++)
    if (all[a] == all[a - 1]) dups++;
  IOTestCheck(dups == 0, fails, "%s: %" PetscInt_FMT " repeated values in the test function", tg->file, dups);
  IOTestCheck(lowzero * 50 < total, fails, "%s: %" PetscInt_FMT " of %" PetscInt_FMT " values have a zero low mantissa byte", tg->file, lowzero, total);
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Fill(FGGrid g, PetscInt id, Vec v)
{
  PetscScalar *a;
  FGBox        b = g->box;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayWrite(v, &a));
  for (PetscInt k = b.lo[2]; k < b.hi[2]; k++)
    for (PetscInt j = b.lo[1]; j < b.hi[1]; j++)
      for (PetscInt i = b.lo[0]; i < b.hi[0]; i++) a[FGBoxOwnedIndex(&b, i, j, k)] = IOTestValue(g->dim, id, i, j, k);
  PetscCall(VecRestoreArrayWrite(v, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteOne(const IOTestGrid *tg, PetscInt *fails)
{
  FGGrid      g;
  FGIOField   fields[IOTEST_NFIELDS];
  PetscInt    nf = 0, nobj;
  PetscMPIInt rank;
  FGIOMeta    meta = {0}, old = {0}, got;
  char        xmf[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN + 8], name[256];
  PetscBool   exists = PETSC_FALSE;
  Vec         back;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(IOTestGridCreate(tg, FG_DECOMP_SLAB, &g));
  PetscCall(FGGridView(g, PETSC_VIEWER_STDOUT_WORLD));
  if (rank == 0) PetscCall(CheckValues(tg, fails));
  for (PetscInt id = 0; id < IOTEST_NFIELDS; id++) {
    if (!IOTestHasField(tg->dim, id)) continue;
    fields[nf] = (FGIOField){.name = IOTestNames[id], .location = IOTestLocations[id]};
    PetscCall(DMCreateGlobalVector(g->da, &fields[nf].vec));
    PetscCall(Fill(g, id, fields[nf].vec));
    nf++;
  }

  /* 2. a first write, then the real one over it */
  old.time      = 0.0;
  old.step      = 41;
  old.case_hash = 1;
  old.case_name = "old";
  PetscCall(FGIOWriteFields(g, tg->file, &old, nf - 1, fields));
  meta.time      = IOTestTime();
  meta.step      = IOTEST_STEP;
  meta.case_hash = IOTEST_HASH;
  meta.case_name = IOTEST_NAME;
  PetscCall(FGIOWriteFields(g, tg->file, &meta, nf, fields));
  PetscCall(FGIOXDMFPath(tg->file, xmf, sizeof(xmf)));
  PetscCall(IOTestExists(tg->file, &exists));
  IOTestCheck(exists, fails, "%s not written", tg->file);
  PetscCall(IOTestExists(xmf, &exists));
  IOTestCheck(exists, fails, "%s not written", xmf);
  snprintf(tmp, sizeof(tmp), "%s.tmp", tg->file);
  PetscCall(IOTestExists(tmp, &exists));
  IOTestCheck(!exists, fails, "%s left behind", tmp);
  snprintf(tmp, sizeof(tmp), "%s.tmp", xmf);
  PetscCall(IOTestExists(tmp, &exists));
  IOTestCheck(!exists, fails, "%s left behind", tmp);

  /* 3. read back here */
  PetscCall(FGIOReadMeta(PETSC_COMM_WORLD, tg->file, &got, name, sizeof(name)));
  IOTestCheck(got.time == meta.time && got.step == meta.step && got.case_hash == meta.case_hash && !strcmp(got.case_name, meta.case_name), fails, "%s: attributes read back as time %.17g step %" PetscInt_FMT " hash %016llx name %s", tg->file, (double)got.time, got.step, got.case_hash, got.case_name);
  PetscCall(DMCreateGlobalVector(g->da, &back));
  for (PetscInt f = 0; f < nf; f++) {
    PetscBool same;
    PetscCall(VecSet(back, -1.0));
    PetscCall(FGIOReadField(g, tg->file, fields[f].name, back));
    PetscCall(VecEqual(back, fields[f].vec, &same));
    IOTestCheck(same, fails, "%s: /%s does not read back as written", tg->file, fields[f].name);
  }
  PetscCall(VecDestroy(&back));
  for (PetscInt f = 0; f < nf; f++) PetscCall(VecDestroy(&fields[f].vec));
  PetscCall(FGGridDestroy(&g));

  /* 4. */
  PetscCall(IOTestOpenHDF5Objects(&nobj));
  IOTestCheck(nobj == 0, fails, "%" PetscInt_FMT " HDF5 objects left open", nobj);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt fails = 0, all;

  PetscCall(FGInitialize(&argc, &argv, NULL));
  for (int t = 0; t < IOTEST_NGRIDS; t++) PetscCall(WriteOne(&IOTestGrids[t], &fails));
  PetscCall(MPIU_Allreduce(&fails, &all, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failures\n", all ? "FAIL" : "PASS", all));
  PetscCall(FGFinalize());
  return all ? 1 : 0;
}
