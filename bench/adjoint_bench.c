/*
  Cost of the discrete adjoint: time and peak memory of the forward run alone and of forward +
  adjoint (FGAdjointCompute under the case's checkpoint schedule: adjoint.memory, checkpoints,
  storage, segment), their ratios, and the steps the reverse sweep recomputed.

    -case_file FILE   the case (objective and design as in the file)
    -set KEY=VALUE    a case-file override (comma-separated list for several: -set a=1,b=2)
    -reps N           timed repetitions of each (default 3; median reported), after one warm-up

  Time: the slowest rank's wall time (barrier before, MPI_MAX after). Memory: the peak resident
  set size (getrusage ru_maxrss) of each rank, summed over the ranks and the largest rank; the
  forward figure is taken after the forward runs and before any adjoint run (the peak is
  monotonic), the adjoint one after the adjoint runs. Their difference, less the schedule's
  budget, is the sweep's own working memory (the documented constant of README "Checkpointing"),
  printed in MiB and in states.

  bench/adjoint.sh runs the standard cases.
*/
#include <flowgrad.h>
#include <fg/adjoint.h>
#include <sys/resource.h>

static const char help[] = "Forward + adjoint time and memory over the forward run's.\n";

static PetscErrorCode PeakMemory(MPI_Comm comm, PetscReal *sum, PetscReal *max)
{
  struct rusage ru;
  PetscReal     mb;

  PetscFunctionBeginUser;
  getrusage(RUSAGE_SELF, &ru);
  mb = (PetscReal)ru.ru_maxrss / 1024.0; /* KiB on Linux */
  PetscCallMPI(MPI_Allreduce(&mb, sum, 1, MPIU_REAL, MPIU_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&mb, max, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CmpReal(const void *a, const void *b)
{
  PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return x < y ? -1 : x > y;
}

static PetscErrorCode Main(void)
{
  MPI_Comm    comm = PETSC_COMM_WORLD;
  char        file[PETSC_MAX_PATH_LEN] = "", setbuf[4096] = "", *sets[64];
  PetscInt    nset = 0, reps = 3, np;
  FGCase     *c;
  FGSolver    s;
  FGDesign    d;
  FGObjective o;
  Vec         p, g;
  PetscReal   J, tf[16], ta[16], memf[2], mema[2];
  FGAdjointOutput out;
  FGSchedule  sc;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case_file", file, sizeof(file), NULL));
  PetscCheck(file[0], comm, FG_ERR_INPUT, "adjoint_bench: -case_file FILE is required");
  PetscCall(PetscOptionsGetString(NULL, NULL, "-set", setbuf, sizeof(setbuf), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  reps = PetscMin(PetscMax(reps, 1), 16);
  if (setbuf[0]) { /* split at commas outside brackets */
    char *q = setbuf;
    int   depth = 0;
    sets[nset++] = q;
    for (; *q; q++) {
      if (*q == '[') depth++;
      if (*q == ']') depth--;
      if (*q == ',' && !depth && nset < 64) *q = 0, sets[nset++] = q + 1;
    }
  }
  PetscCall(PetscNew(&c));
  PetscCall(FGCaseLoad(comm, file, nset, (const char *const *)sets, c));
  PetscCall(FGSolverCreate(comm, c, &s));
  PetscCall(FGDesignCreate(s, c, &d));
  PetscCall(FGObjectiveCreate(s, d, &o));
  PetscCall(FGDesignCreateVec(d, &p));
  PetscCall(VecDuplicate(p, &g));
  PetscCall(FGDesignGetValues(d, p));
  PetscCall(VecGetSize(p, &np));
  PetscCallMPI(MPI_Comm_size(comm, &size));

  for (PetscInt r = -1; r < reps; r++) {
    PetscLogDouble t0, t1;
    PetscReal      dt;
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t0));
    PetscCall(FGAdjointForward(s, d, o, p, &J));
    PetscCall(PetscTime(&t1));
    dt = (PetscReal)(t1 - t0);
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPIU_REAL, MPIU_MAX, comm));
    if (r >= 0) tf[r] = dt;
  }
  PetscCall(PeakMemory(comm, &memf[0], &memf[1]));
  for (PetscInt r = -1; r < reps; r++) {
    PetscLogDouble t0, t1;
    PetscReal      dt;
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t0));
    PetscCall(PetscMemzero(&out, sizeof(out)));
    out.signals = PETSC_TRUE; /* as flowgrad adjoint: a stop check per step, resume.h5 per disk segment */
    PetscCall(FGAdjointCompute(s, d, o, p, &J, g, &out));
    PetscCall(PetscTime(&t1));
    dt = (PetscReal)(t1 - t0);
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPIU_REAL, MPIU_MAX, comm));
    if (r >= 0) ta[r] = dt;
  }
  PetscCall(PeakMemory(comm, &mema[0], &mema[1]));
  qsort(tf, (size_t)reps, sizeof(PetscReal), CmpReal);
  qsort(ta, (size_t)reps, sizeof(PetscReal), CmpReal);
  PetscCall(PetscPrintf(comm, "case %s: %" PetscInt_FMT " cells, %" PetscInt_FMT " steps, %d ranks, %" PetscInt_FMT " design entries, J = %.10e\n", c->name, s->grid->n[0] * s->grid->n[1] * s->grid->n[2], c->time.steps, size, np, (double)J));
  PetscCall(PetscPrintf(comm, "  forward            %8.3f s (median of %" PetscInt_FMT ")   peak RSS %8.1f MiB (all ranks), %8.1f MiB (largest rank)\n", (double)tf[reps / 2], reps, (double)memf[0], (double)memf[1]));
  PetscCall(PetscPrintf(comm, "  forward + adjoint  %8.3f s (median of %" PetscInt_FMT ")   peak RSS %8.1f MiB (all ranks), %8.1f MiB (largest rank)\n", (double)ta[reps / 2], reps, (double)mema[0], (double)mema[1]));
  PetscCall(PetscPrintf(comm, "  ratio (forward + adjoint) / forward: time %.2f, peak memory %.2f\n", (double)(ta[reps / 2] / tf[reps / 2]), (double)(mema[0] / memf[0])));
  PetscCall(FGSchedulePlan(s, &sc));
  {
    const char *kind = sc.disk ? "disk" : (const char *[]){"ram-tapes", "ram-states", "ram-binomial"}[FGScheduleSegmentKind(&sc, sc.N)];
    PetscReal   extra, used;
    /* what the schedule can hold at most: the budget, or less when the run needs less */
    if (sc.disk) used = PetscMin(sc.budget, (PetscReal)sc.segment * (FGScheduleSegmentKind(&sc, sc.segment) == FG_SEGMENT_TAPES ? sc.tape_bytes : sc.state_bytes));
    else used = PetscMin(sc.budget, (PetscReal)sc.N * (FGScheduleSegmentKind(&sc, sc.N) == FG_SEGMENT_TAPES ? sc.tape_bytes : sc.state_bytes));
    extra = (mema[0] - memf[0]) - used / 1048576.0;
    PetscCall(PetscPrintf(comm, "  schedule %s: %" PetscInt64_FMT " recomputed steps (planned %" PetscInt64_FMT ", %.2f per step); budget %.1f MiB, of which the schedule fills %.1f MiB\n", kind, out.recomputed, out.planned, (double)out.recomputed / (double)c->time.steps, (double)(sc.budget / 1048576.0), (double)(used / 1048576.0)));
    PetscCall(PetscPrintf(comm, "  peak memory over the forward run's, less what the schedule fills: %.1f MiB = %.1f states (the sweep's working memory)\n", (double)extra, (double)(extra * 1048576.0 / sc.state_bytes)));
    PetscCall(PetscPrintf(comm, "CSV,%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%d,%.6f,%.6f,%.3f,%.1f,%.1f,%.3f,%s,%" PetscInt64_FMT ",%.1f,%.1f,%.2f\n", c->name, s->grid->n[0] * s->grid->n[1] * s->grid->n[2], c->time.steps, size, (double)tf[reps / 2], (double)ta[reps / 2], (double)(ta[reps / 2] / tf[reps / 2]), (double)memf[0], (double)mema[0], (double)(mema[0] / memf[0]), kind, out.recomputed,
                          (double)(sc.budget / 1048576.0), (double)extra, (double)(extra * 1048576.0 / sc.state_bytes)));
  }
  PetscCall(VecDestroy(&p));
  PetscCall(VecDestroy(&g));
  PetscCall(FGObjectiveDestroy(&o));
  PetscCall(FGDesignDestroy(&d));
  PetscCall(FGSolverDestroy(&s));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr = FGInitialize(&argc, &argv, help);
  int            code = 0;
  if (!ierr) ierr = Main();
  if (ierr) (void)FGErrorReport(ierr, &code);
  if (FGFinalize() && !code) code = 1;
  return ierr ? (code ? code : 1) : 0;
}
