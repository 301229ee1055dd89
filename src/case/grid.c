/*
  The grid of a case (include/fg/case.h): grid.dim, cells, lengths, origin and periodic on a DMDA
  (src/grid/grid.c), split into the slabs FFTW-MPI works on (poisson.type fftw) or into PETSc's
  blocks (ksp). Here, not in src/grid/, since the grid module sits below the case.
*/
#include <fg/case.h>

/*@C
  FGGridCreateFromCase - the grid of a validated case. Collective.
@*/
PetscErrorCode FGGridCreateFromCase(MPI_Comm comm, const FGCase *c, FGGrid *grid)
{
  PetscFunctionBeginUser;
  PetscCall(FGGridCreate(comm, c->grid.dim, c->grid.cells, c->grid.lengths, c->grid.origin, c->grid.periodic, c->poisson.type == FG_POISSON_FFTW ? FG_DECOMP_SLAB : FG_DECOMP_BLOCK, grid));
  PetscFunctionReturn(PETSC_SUCCESS);
}
