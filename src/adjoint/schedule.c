/*
  The checkpoint schedule of the unsteady reverse sweep (include/fg/adjoint.h): which states the
  sweep keeps, where, and how many steps it recomputes, from the memory budget.

  Sizes (all ranks together): a state x_n (u, v[, w] and p) is sigma bytes; a taped step (its
  start state plus the tape of its stage values, FGStepTape, and the moving bodies' placements at
  its three stages) is tau ~ 5 sigma in 2D. With the
  budget B (adjoint.memory, or adjoint.checkpoints states):

    Lt = floor(B / tau) taped steps, Ls = floor(B / sigma) states fit in RAM.

  A segment of L steps whose start state is at hand is reversed, in RAM,
    tapes     (L <= Lt): run it once recording every step's tape, then the adjoint steps alone;
    states    (L <= Ls): run it once keeping the start states, then per step one recomputation
                         with the tape and the adjoint step;
    binomial  (else):    binomial checkpointing with s = Ls states, the segment's start included
                         (Griewank's treeverse/revolve: optimal in the number of recomputed steps
                         for s states, T(L, s) = r L - beta(s + 1, r - 1) with
                         beta(s, r) = C(s + r, s) and r the least with beta(s, r) >= L).

  Storage adjoint.storage:
    ram   one segment, the whole run, from x_0 (which FGDesignSetInitialState rebuilds for free);
    disk  two levels: the forward run writes every K-th state to adjoint/checkpoints/ (parallel
          HDF5); the reverse sweep takes the segments last to first, each recomputed from its disk
          state in RAM as above. K = adjoint.segment, or the longest segment that is reversed as
          tapes (K = Lt; if fewer than 8 tapes fit: as states, K = Ls);
    auto  ram when the whole run fits as tapes or as states (N <= max(Lt, Ls)), else disk.
  The run's last segment is reversed right after the forward run reaches it, so the forward run
  itself is that segment's first pass (with ram storage: its only pass when N <= Lt).

  adjoint.memory auto: half the physical memory of every node the run has ranks on.
*/
#include <fg/adjoint.h>
#include <unistd.h>

/* beta(s, r) = C(s + r, s), saturated at 2^60 (beyond any step count). */
static double FGBeta_Private(PetscInt s, PetscInt r)
{
  double b = 1;
  for (PetscInt i = 1; i <= r; i++) {
    b = b * (double)(s + i) / (double)i;
    if (b > 1.15e18) return 1.15e18;
  }
  return b;
}

/*@C
  FGScheduleBinomialCost - the forward steps that binomial checkpointing with s states (the
  segment's start state included, s >= 1) recomputes to reverse L steps, not counting the one
  taped recomputation per step: T(L, s) (Griewank and Walther, Algorithm 799: revolve).

  Not collective.
@*/
PetscInt64 FGScheduleBinomialCost(PetscInt L, PetscInt s)
{
  PetscInt r = 0;
  if (L <= 1) return 0;
  if (s <= 1) return (PetscInt64)L * (PetscInt64)(L - 1) / 2;
  while (FGBeta_Private(s, r) < (double)L) r++;
  return (PetscInt64)((double)r * (double)L - FGBeta_Private(s + 1, r - 1)); /* exact: < 2^53 */
}

/*@C
  FGScheduleBinomialSplit - where binomial checkpointing with s states (s >= 2) over L >= 2 steps
  stores its next state: the least k in [1, L - 1] with k + T(L - k, s - 1) + T(k, s) = T(L, s).

  Not collective.
@*/
PetscInt FGScheduleBinomialSplit(PetscInt L, PetscInt s)
{
  const PetscInt64 best = FGScheduleBinomialCost(L, s);
  PetscInt         kmin = 1;
  PetscInt64       cmin = -1;
  for (PetscInt k = 1; k < L; k++) {
    PetscInt64 c = k + FGScheduleBinomialCost(L - k, s - 1) + FGScheduleBinomialCost(k, s);
    if (cmin < 0 || c < cmin) cmin = c, kmin = k;
    if (c == best) return k;
  }
  return kmin; /* not reached: the closed form is attained */
}

/* Half the physical memory of every node with ranks of comm, summed. */
static PetscErrorCode FGScheduleAutoMemory_Private(MPI_Comm comm, PetscReal *bytes)
{
  MPI_Comm    node;
  PetscMPIInt nrank;
  double      mine = 0, total;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_rank(node, &nrank));
  if (!nrank) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    mine       = pages > 0 && size > 0 ? 0.5 * (double)pages * (double)size : 4.0 * 1024 * 1024 * 1024;
  }
  PetscCallMPI(MPI_Comm_free(&node));
  PetscCallMPI(MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, comm));
  *bytes = (PetscReal)total;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The kind of a RAM segment of L steps. */
static FGSegmentKind FGScheduleSegmentKind_Private(const FGSchedule *sc, PetscInt L)
{
  if (L <= sc->tapes) return FG_SEGMENT_TAPES;
  if (L <= sc->states) return FG_SEGMENT_STATES;
  return FG_SEGMENT_BINOMIAL;
}

/*@C
  FGScheduleSegmentKind - how a segment of L steps is reversed in RAM.

  Not collective.
@*/
FGSegmentKind FGScheduleSegmentKind(const FGSchedule *sc, PetscInt L)
{
  return FGScheduleSegmentKind_Private(sc, L);
}

/*@C
  FGScheduleSegmentCost - the steps recomputed to reverse a segment of L steps in RAM: with
  first, the segment's first pass is the forward run itself (only its recomputations count).

  Not collective.
@*/
PetscInt64 FGScheduleSegmentCost(const FGSchedule *sc, PetscInt L, PetscBool first)
{
  /* every step is computed once more per use: untaped advances plus one taped run per step;
     when first, the L first computations of its steps are the forward run's */
  switch (FGScheduleSegmentKind_Private(sc, L)) {
  case FG_SEGMENT_TAPES:
    return first ? 0 : L;                                     /* one taped pass */
  case FG_SEGMENT_STATES:
    return (PetscInt64)(L - 1) + L - (first ? L : 0);         /* a pass to x_{L-1}, then each step taped */
  default:
    return FGScheduleBinomialCost(L, sc->states) + L - (first ? L : 0); /* the treeverse's advances, each step taped */
  }
}

/*@C
  FGSchedulePlan - the checkpoint schedule of the case for a solver (sizes from its vectors).

  Collective.
@*/
PetscErrorCode FGSchedulePlan(FGSolver s, FGSchedule *sc)
{
  const FGCase  *c   = s->c;
  const PetscInt dim = s->grid->dim, N = c->time.steps;
  PetscInt       nu = 0, nl = 0, np = 0, n;
  Vec            l;
  double         loc[3], glob[3];

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(sc, sizeof(*sc)));
  sc->N = N;
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecGetLocalSize(s->u[a], &n));
    nu += n;
  }
  PetscCall(VecGetLocalSize(s->p, &np));
  PetscCall(DMGetLocalVector(s->grid->da, &l));
  PetscCall(VecGetLocalSize(l, &nl));
  PetscCall(DMRestoreLocalVector(s->grid->da, &l));
  loc[0] = 8.0 * (double)(nu + np);                  /* a state */
  loc[1] = loc[0] + 8.0 * 3.0 * (double)(dim * nl + nu); /* a taped step: state, ul[3][dim] (ghosted), ustar[3][dim] */
  loc[2] = 0;
  PetscCallMPI(MPI_Allreduce(loc, glob, 3, MPI_DOUBLE, MPI_SUM, s->comm));
  sc->state_bytes = (PetscReal)glob[0];
  sc->tape_bytes  = (PetscReal)glob[1];
  { /* and the three placements of the moving bodies it keeps (FGBodiesSetPlacementCapacity) */
    PetscReal pb;
    PetscCall(FGBodiesGetPlacementBytes(s->bodies, &pb));
    sc->tape_bytes += 3 * pb;
  }
  if (c->adjoint.checkpoints > 0) {
    sc->budget = (PetscReal)c->adjoint.checkpoints * sc->state_bytes;
    sc->states = c->adjoint.checkpoints;
    sc->tapes  = 0; /* a number of states asked for: states and binomial checkpointing only */
  } else {
    if (c->adjoint.memory_bytes > 0) sc->budget = c->adjoint.memory_bytes;
    else PetscCall(FGScheduleAutoMemory_Private(s->comm, &sc->budget));
    sc->states = (PetscInt)PetscMin((PetscReal)PETSC_MAX_INT / 4, PetscFloorReal(sc->budget / sc->state_bytes));
    sc->tapes  = (PetscInt)PetscMin((PetscReal)PETSC_MAX_INT / 4, PetscFloorReal(sc->budget / sc->tape_bytes));
  }
  PetscCheck(sc->states >= 1, s->comm, FG_ERR_INPUT, "%s: adjoint.memory: %s holds no state (one state is %.1f MiB, all ranks together): the reverse sweep needs at least one", c->file, c->adjoint.memory, (double)(sc->state_bytes / 1048576.0));
  switch (c->adjoint.storage) {
  case FG_STORAGE_RAM:
    sc->disk = PETSC_FALSE;
    break;
  case FG_STORAGE_DISK:
    sc->disk = PETSC_TRUE;
    break;
  default:
    sc->disk = (PetscBool)(N > PetscMax(sc->tapes, sc->states));
    break;
  }
  if (!sc->disk) sc->segment = PetscMax(N, 1);
  else if (c->adjoint.segment > 0) sc->segment = c->adjoint.segment;
  else sc->segment = sc->tapes >= 8 ? sc->tapes : sc->states;
  sc->segment = PetscMax(1, PetscMin(sc->segment, PetscMax(N, 1)));
  sc->nsegments = N > 0 ? (N + sc->segment - 1) / sc->segment : 0;
  sc->disk_states = sc->disk ? sc->nsegments - 1 : 0; /* x_K, x_2K, ...: x_0 is rebuilt, not stored */
  sc->recomputed  = 0;
  for (PetscInt j = 0; j < sc->nsegments; j++) {
    PetscInt lo = j * sc->segment, hi = PetscMin(N, lo + sc->segment);
    sc->recomputed += FGScheduleSegmentCost(sc, hi - lo, (PetscBool)(j == sc->nsegments - 1));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSchedulePrint - one paragraph on the plan, before the run.

  Collective.
@*/
PetscErrorCode FGSchedulePrint(FGSolver s, const FGSchedule *sc)
{
  static const char *kinds[] = {"every step's tape in RAM", "every start state in RAM, each step recomputed once with its tape", "binomial checkpointing in RAM"};
  const PetscInt     L       = sc->segment;
  const double       MiB     = 1048576.0;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(s->comm, "adjoint: schedule for %" PetscInt_FMT " steps: a state is %.2f MiB, a taped step %.2f MiB; budget %.1f MiB (%s)\n", sc->N, sc->state_bytes / MiB, sc->tape_bytes / MiB, sc->budget / MiB,
                        s->c->adjoint.checkpoints > 0 ? "adjoint.checkpoints" : (s->c->adjoint.memory_bytes > 0 ? "adjoint.memory" : "adjoint.memory auto: half of each node's memory")));
  if (sc->disk) PetscCall(PetscPrintf(s->comm, "adjoint:   two levels: %" PetscInt_FMT " states on disk (every %" PetscInt_FMT " steps), %" PetscInt_FMT " segments, each reversed with %s", sc->disk_states, L, sc->nsegments, kinds[FGScheduleSegmentKind(sc, L)]));
  else PetscCall(PetscPrintf(s->comm, "adjoint:   in RAM: %s", kinds[FGScheduleSegmentKind(sc, PetscMax(sc->N, 1))]));
  if (FGScheduleSegmentKind(sc, sc->disk ? L : PetscMax(sc->N, 1)) == FG_SEGMENT_BINOMIAL) PetscCall(PetscPrintf(s->comm, " (%" PetscInt_FMT " states)", sc->states));
  PetscCall(PetscPrintf(s->comm, "\nadjoint:   planned: %" PetscInt64_FMT " recomputed steps (%.2f per step) besides the forward run and the %" PetscInt_FMT " adjoint steps\n", sc->recomputed, sc->N ? (double)sc->recomputed / (double)sc->N : 0.0, sc->N));
  PetscFunctionReturn(PETSC_SUCCESS);
}
