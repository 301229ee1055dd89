/*
  Checksums of the files flowgrad writes (include/fg/io.h, include/fg/checkpoint.h), each 16 hex
  digits in a string attribute, checked whenever the thing is read:

    field dataset    "checksum": a sum over its values, the same for any decomposition (below)
    small vector     "checksum": FNV-1a of its values' bytes (rank 0's values; read whole)
    the file's root  "meta_checksum": FNV-1a of time, step, case_hash and case_name
    /checkpoint      "meta_checksum": the checkpoint's own (src/io/checkpoint.c)

  A damaged file (a flipped bit, a value edited by hand) is refused with FG_ERR_IO_READ naming the
  file and what does not match; a file written before the checksums has none and is read as before.
*/
#include <fg/io.h>
#include "ioimpl.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The checksum of a field (the attribute "checksum" of its dataset, 16 hex digits): the sum, mod
   2^64, over every value of mix(mix(i) ^ bits(value)), i its index in the file (x fastest) and mix
   the SplitMix64 finalizer. A sum of per-value terms is the same for any decomposition (each rank
   adds its box; one MPI_Allreduce), and one flipped bit of a value or of where it sits changes it
   but with probability 2^-64. Collective. */
static uint64_t FGIOMix64_Private(uint64_t z)
{
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* One value's term of that sum: v at index gi of the file. */
uint64_t FGIOChecksumTerm_Internal(uint64_t gi, double v)
{
  uint64_t bits;
  memcpy(&bits, &v, sizeof(bits));
  return FGIOMix64_Private(FGIOMix64_Private(gi) ^ bits);
}

PetscErrorCode FGIOFieldChecksum_Internal(FGGrid grid, const PetscScalar *a, char hex[17])
{
  const FGBox *b   = &grid->box;
  uint64_t     sum = 0, all = 0;
  PetscInt     l   = 0;

  PetscFunctionBeginUser;
  for (PetscInt k = b->lo[2]; k < b->hi[2]; k++)
    for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
      for (PetscInt i = b->lo[0]; i < b->hi[0]; i++, l++) {
        const uint64_t gi = ((uint64_t)k * (uint64_t)grid->n[1] + (uint64_t)j) * (uint64_t)grid->n[0] + (uint64_t)i;
        sum += FGIOChecksumTerm_Internal(gi, (double)a[l]);
      }
  PetscCallMPI(MPI_Allreduce(&sum, &all, 1, MPI_UINT64_T, MPI_SUM, grid->comm));
  snprintf(hex, 17, "%016llx", (unsigned long long)all);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FNV-1a of n doubles' bytes, as 16 hex digits. */
void FGIOVectorChecksum_Internal(const double *v, size_t n, char hex[17])
{
  snprintf(hex, 17, "%016llx", FGHashBytes(FG_HASH_START, v, n * sizeof(double)));
}

/* The root's meta_checksum: time, step, case hash (as written: 16 hex digits) and case name. */
void FGIOMetaChecksum_Internal(double time, long long step, const char *case_hash, const char *case_name, char hex[17])
{
  unsigned long long h = FG_HASH_START;
  h = FGHashBytes(h, &time, sizeof(time));
  h = FGHashBytes(h, &step, sizeof(step));
  h = FGHashBytes(h, case_hash, strlen(case_hash) + 1);
  h = FGHashBytes(h, case_name, strlen(case_name) + 1);
  snprintf(hex, 17, "%016llx", h);
}
