/*
  The memory budget: a case whose memory estimate exceeds what each rank may use is refused
  before anything is allocated (exit 2, naming grid.cells and the numbers), by every command.

  Estimate (per rank, from the case alone: no grid, no field is created), for the forward solver:
    fields   (4 dim + 4) arrays of the rank's ghosted box (state, ghosted copy, two RK right-hand
             sides; pressure, divergence, correction and its ghosted copy) of 8-byte reals
    grid     the DMDA's own maps, 16 bytes a ghosted cell
    poisson  fftw: FFTW's local allocation x 3 reals (in, out, 1/eigenvalues), from
             fftw_mpi_local_size_many_transposed (which allocates nothing); ksp: the assembled
             2 dim + 1 point matrix (12 bytes a nonzero) x 1.5 for the AMG hierarchy + 6 work vectors
  The rank's box is the largest one: FFTW's slabs of the slowest direction (poisson.type fftw),
  else an even share of the cells; its ghosted size adds one layer of cells on each side. The
  adjoint, the steady solver and the optimizer need more (their tapes and factorizations); the
  estimate is a lower bound for them.

  Budget (per rank): FGMemoryBudget (src/sys/memory.c; -fg_memory_budget MiB, else the node's
  available memory over its ranks). Not known: no check.
*/
#include <fg/app.h>
#include <fg/grid.h>
#include <fftw3-mpi.h>
#include <stdio.h>
#include <string.h>

/*@C
  FGMemoryEstimate - the forward solver's memory on the largest rank, from the case alone (see
  above): fields, grid and Poisson solver, in bytes. Collective (FFTW's sizes).
@*/
PetscErrorCode FGMemoryEstimate(MPI_Comm comm, const FGCase *c, double est[3])
{
  PetscMPIInt size;
  const int   dim = (int)c->grid.dim;
  double      n[3] = {1, 1, 1}, own = 1, ghost = 1, cells = 1;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* a stretched direction given by its faces knows its count only from them: the estimate uses
     grid.cells as given (0 there: one cell), a lower bound */
  for (int d = 0; d < dim; d++) n[d] = PetscMax((double)c->grid.cells[d], 1), cells *= n[d];
  est[1] = 0;
  if (c->poisson.type == FG_POISSON_FFTW) {
    ptrdiff_t nn[3], n0, s0, n1, s1, alloc;
    for (int d = 0; d < dim; d++) nn[d] = (ptrdiff_t)n[dim - 1 - d];
    alloc  = fftw_mpi_local_size_many_transposed(dim, nn, 1, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, comm, &n0, &s0, &n1, &s1);
    est[1] = 3.0 * (double)alloc * 8.0;
    own    = PetscCeilReal(n[dim - 1] / size); /* FFTW's slab: ceil(n/size) planes of the slowest direction */
    ghost  = own + 2;
    for (int d = 0; d < dim - 1; d++) own *= n[d], ghost *= n[d] + 2;
  } else {
    own   = PetscCeilReal(cells / size);
    ghost = own * (1.0 + 2.0 * dim * PetscPowReal(own, -1.0 / dim)); /* a cube's one-cell layer */
    est[1] = 1.5 * (double)(2 * dim + 1) * own * 12.0 + 6.0 * own * 8.0;
  }
  est[0] = (double)(4 * dim + 4) * ghost * 8.0 + 16.0 * ghost;
  est[2] = est[0] + est[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGMemoryCheck - refuse (FG_ERR_INPUT, exit 2) a case whose estimate exceeds the budget, before
  anything is allocated. Collective.
@*/
PetscErrorCode FGMemoryCheck(MPI_Comm comm, const FGCase *c)
{
  double      est[3], budget;
  PetscMPIInt size;
  char        cells[96] = "";

  PetscFunctionBeginUser;
  PetscCall(FGMemoryBudget(comm, &budget));
  if (budget <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGMemoryEstimate(comm, c, est));
  if (est[2] <= budget) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  for (PetscInt d = 0; d < c->grid.dim; d++) {
    size_t u = strlen(cells);
    snprintf(cells + u, sizeof(cells) - u, "%s%" PetscInt_FMT, d ? " x " : "", c->grid.cells[d]);
  }
  SETERRQ(comm, FG_ERR_INPUT, "%s: grid.cells %s needs at least %.0f MiB on the largest of %d ranks (fields %.0f, Poisson %.0f), over its memory budget of %.0f MiB: use more ranks (more nodes), fewer cells, or -fg_memory_budget MiB to set the budget",
          c->file, cells, est[2] / 1048576.0, (int)size, est[0] / 1048576.0, est[1] / 1048576.0, budget / 1048576.0);
}
