/*
  The memory each rank may use (FGMemoryBudget): the memory budget of every command
  (src/app/memory.c) and the steady solver's choice of preconditioner (src/adjoint/steady.c).

  Budget (per rank): -fg_memory_budget MiB when given (0: no check); else the memory this node
  can give, shared by its ranks (MPI_COMM_TYPE_SHARED): the smaller of MemAvailable
  (/proc/meminfo) and the cgroup's limit less its usage (cgroup v2 memory.max/memory.current, or
  v1 memory.limit_in_bytes/usage_in_bytes: SLURM's --mem), divided by the ranks on the node; and
  at most what the address-space limit (ulimit -v) leaves this process.
*/
#define _POSIX_C_SOURCE 200809L /* getrlimit under -std=c11 */
#include <fg/sys.h>
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
