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

  Budget (per rank): -fg_memory_budget MiB when given (0: no check); else the memory this node
  can give, shared by its ranks (MPI_COMM_TYPE_SHARED): the smaller of MemAvailable
  (/proc/meminfo) and the cgroup's limit less its usage (cgroup v2 memory.max/memory.current, or
  v1 memory.limit_in_bytes/usage_in_bytes: SLURM's --mem), divided by the ranks on the node; and
  at most what the address-space limit (ulimit -v) leaves this process. Not known: no check.
*/
#define _POSIX_C_SOURCE 200809L /* getrlimit under -std=c11 */
#include <fg/app.h>
#include <fg/grid.h>
#include <fftw3-mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* A number (bytes) from the first line of a file; "max" or no file: -1. */
static double FGMemoryReadNumber_Private(const char *path)
{
  FILE  *fp = fopen(path, "r");
  char   buf[64];
  double v = -1;
  if (!fp) return -1;
  if (fgets(buf, sizeof(buf), fp) && strncmp(buf, "max", 3)) v = strtod(buf, NULL);
  fclose(fp);
  return v > 0 && v < 1e18 ? v : -1; /* v1's "no limit" is a huge number */
}

/* A "Key: N kB" value of /proc/meminfo or /proc/self/status, in bytes (-1: absent). */
static double FGMemoryProcValue_Private(const char *path, const char *key)
{
  FILE  *fp = fopen(path, "r");
  char   line[256];
  double v   = -1;
  size_t len = strlen(key);
  if (!fp) return -1;
  while (fgets(line, sizeof(line), fp))
    if (!strncmp(line, key, len) && line[len] == ':') {
      v = 1024.0 * strtod(line + len + 1, NULL);
      break;
    }
  fclose(fp);
  return v;
}

/*@C
  FGMemoryBudget - the bytes each rank of comm may use (see above); 0 when not known or not
  checked (-fg_memory_budget 0). The same on every rank. Collective.
@*/
PetscErrorCode FGMemoryBudget(MPI_Comm comm, double *budget)
{
  MPI_Comm  node;
  PetscMPIInt nrank;
  PetscReal mib = -1;
  PetscBool set;
  double    mine = 0;

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "flowgrad: the memory budget (every command)", NULL);
  PetscCall(PetscOptionsReal("-fg_memory_budget", "MiB each rank may use (0: no check; default: the node's available memory over its ranks)", NULL, mib, &mib, &set));
  PetscCall(FGOptionsCheckValue("-fg_memory_budget", set));
  PetscOptionsEnd();
  PetscCheck(!set || (mib >= 0 && !PetscIsInfOrNanReal(mib)), comm, FG_ERR_INPUT, "-fg_memory_budget %g: MiB per rank, >= 0 (0: no check)", (double)mib);
  if (set) {
    *budget = (double)mib * 1048576.0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &nrank));
  PetscCallMPI(MPI_Comm_free(&node));
  {
    double avail = FGMemoryProcValue_Private("/proc/meminfo", "MemAvailable");
    double lim   = FGMemoryReadNumber_Private("/sys/fs/cgroup/memory.max"), used = FGMemoryReadNumber_Private("/sys/fs/cgroup/memory.current");
    struct rlimit rl;
    if (lim < 0) lim = FGMemoryReadNumber_Private("/sys/fs/cgroup/memory/memory.limit_in_bytes"), used = FGMemoryReadNumber_Private("/sys/fs/cgroup/memory/memory.usage_in_bytes");
    if (lim > 0 && (avail < 0 || lim - PetscMax(used, 0) < avail)) avail = lim - PetscMax(used, 0);
    if (avail > 0) mine = avail / (double)nrank;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) { /* ulimit -v: what is left of it */
      double vm   = FGMemoryProcValue_Private("/proc/self/status", "VmSize");
      double left = (double)rl.rlim_cur - PetscMax(vm, 0);
      if (mine <= 0 || left < mine) mine = PetscMax(left, 1);
    }
  }
  PetscCallMPI(MPI_Allreduce(&mine, budget, 1, MPI_DOUBLE, MPI_MIN, comm)); /* the tightest node */
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
