/*
  The steady adjoint (adjoint.mode: steady; include/fg/adjoint.h).

  Forward. F(x, p) is one time step (FGStepForward_RK3) at a fixed time; the state x is the
  velocity (u, v[, w]) and, with bodies or the implicit viscous term, the pressure, which the step carries incrementally
  (p_n = p_{n-1} + sum of the stages' phi; without bodies p is an output of the step, the last
  stage's phi, and not part of x). From the initial state, time.steps steps (the transient), then
  Newton-Krylov on x = F(x, p):

    (I - F_x) dx = F(x) - x,   x += dx,   until |F(x) - x| <= adjoint.steady_tol |x|

  with PETSc SNES (prefix steady_): GMRES on a MatShell whose action is v - F_x v, F_x v one
  tangent step (FGStepTangent_RK3) about the step recorded from the current x, right-preconditioned
  by the Oseen solve of steady_pc.c (its transpose for the adjoint's GMRES below; defaults and
  measurements at FGSteadyForward_Private), set up once at the end of the transient and kept with
  the steady state for the adjoints at its design (FGSteadyPCGet_Private). The objective is recorded after
  the last step, the one taken from the converged x*, and every term's time functional is that
  step's value (FGObjectiveSetSteady): J = Q(x*, p).
  x* is kept with the solver (FGSteadyState): a forward at the same design again (a flow
  constraint's after the objective's in flowgrad optimize) starts from it and takes only the
  recorded step.

  Adjoint. Write the recorded step as (x, p) -> (y, z): y = F(x, p) the next state, z = f(x, p)
  the step's body forces and (without bodies) the output pressure. J = q(y, z, p) with
  s = dq/dy (FGObjectiveAdjointState at y; without bodies its pressure part is the adjoint of the
  output pressure) and w = dq/dz (FGObjectiveAdjointForces). One adjoint step (FGStepAdjoint_RK3)
  with end-state adjoint a and force weights w gives

    A_x(a, w) = F_x^T a + f_x^T w (start state),   A_p(a, w) = F_p^T a + f_p^T w (parameters).

  At the fixed point y = x* (p) and x*_p = (I - F_x)^{-1} F_p, so

    dJ/dp = q_p + (F_x^T s + f_x^T w)^T x*_p + F_p^T s + f_p^T w
          = q_p + F_p^T (mu + s) + f_p^T w,    mu = (I - F_x^T)^{-1} A_x(s, w)
          = q_p + A_p(mu + s, w).

  So: rhs = A_x(s, w) (one adjoint step); solve (I - F_x^T) mu = rhs with GMRES (prefix
  adjoint_) on a MatShell whose action is v - A_x(v, 0) (one adjoint step of v with no force
  weights, the parameter accumulation discarded); then one more adjoint step A(mu + s, w) gives
  the parameter adjoints (FGParams: FGDesignGradient maps them to g; q_p is the inflow
  adjoint of the objective's boundary values and FGObjectiveAdjointDesign). Its state part is
  A_x(mu + s, w) = F_x^T mu + rhs = mu, the fixed point of the adjoint step: printed as a check of
  the solve. With bodies lambda = mu + s solves (I - F_x^T) lambda = s + f_x^T w = s + A_x(0, w),
  the form "adjoint state = dJ/dx of the steady state" (g = A_p(lambda, w)); the form above also
  covers the output pressure of a step without bodies, which is no state. lambda is dJ/de for a
  steady source e in x = F(x) + e; it is what out->ubar0, pbar0 receive. Memory: a few states, the
  tape of one step and the Krylov basis (GMRES restart, 60 states by default); no history. The
  initial state does not matter (its adjoint is 0: a design block initial.velocity gets g = 0).

  Constant pressure. Without a Dirichlet face in the pressure Poisson problem (no outflow) the
  Poisson solves return zero-mean phi and G c = 0 for a constant c, so with bodies a constant
  added to p passes through the step unchanged: n = (0, 1_p) is in the null space of I - F_x, and
  since the pressure's mean never changes (zero-mean phi) it is also in that of I - F_x^T. Both
  operators carry n as their null space and transpose null space (MatSetNullSpace,
  MatSetTransposeNullSpace): KSP removes it from the right-hand side (whose pressure mean is 0 up
  to round-off anyway: the step keeps the mean of p, and the adjoint step the sum of pbar) and
  from the Krylov vectors, so Newton never moves the mean of p (the initial state fixes it) and mu
  has a zero-mean pressure, which is the one that matters nowhere (a constant pbar enters the
  adjoint step only through the Poisson transpose solve, which annihilates it). Without it,
  Newton's GMRES stalls once the residual is small (tests/adjoint/steady_periodic.yaml: 5000
  iterations without convergence at the fifth Newton iteration, measured). With an outflow face
  the operator is regular and nothing is attached.
*/
#include "steadyimpl.h"

/* Where the Oseen preconditioner is the default: in 2D, when its sparse LU's estimated memory,
   FG_STEADY_LU_BYTES per unknown (cells x 3) shared by the ranks, fits in 3/4 of what each rank
   may use (FGMemoryBudget); where that is not known (-fg_memory_budget 0), up to
   FG_STEADY_LU_MAX_2D unknowns. Measured (MUMPS, 1 rank, peak resident memory of the whole run,
   forward and adjoint): 400 x 100 (1.2e5 unknowns) 2.7e7 entries in the factors (220 per
   unknown), 2.3 s per factorization, 85 ms per solve; 800 x 200 (4.8e5) 2.2 GB; Schäfer-Turek
   2D-1 at D/40 (880 x 150, 4.0e5) 1.74 GB, 4.4 kB per unknown (nested dissection's fill grows
   like log n: 6 kB leaves room to ~1e7). Without it Newton's GMRES needs ~1/(dt mu_min)
   iterations: at D/80 (1760 x 287, 1.5e6 unknowns) 1978 for the first Newton step, whose
   residual then grew 12-fold (with it: 21 per step, 4 steps). In 3D the box stencil's 4 coupled
   fields fill in badly: 32 x 16 x 16 (3.3e4 unknowns) took 4.8e7 entries (1450 per unknown) and
   150 s for forward + adjoint against 3.0 s without a preconditioner (113 GMRES iterations per
   Newton step): in 3D the default is none. */
/* A stalled linear solve (src/sys/ksp.c) counts as converged at |r| <= this |b|: Newton's, since
   an inexact step with |r| <= 1e-3 |b| still converges (linearly, three digits per iteration; the
   steady state is decided by |F(x) - x| alone); the adjoint's, since mu's error is the gradient's. */
#define FG_STEADY_STALL_NEWTON  1e-3
#define FG_STEADY_STALL_ADJOINT 1e-8
#define FG_STEADY_LU_BYTES  6.0e3
#define FG_STEADY_LU_MAX_2D 1.0e6

typedef struct {
  FGSolver   s;
  FGStepTape T;
  PetscInt   dim, nloc; /* components; local size of one field */
  PetscBool  withp;     /* the pressure is part of the state (bodies, or the implicit viscous term) */
  Vec        u[3], p;   /* work: unpacked */
  FGSteadyPC pc;        /* the Oseen preconditioner, the steady state's (FGSteadyState.pc); NULL: another PC was chosen */
  /* Newton (SNES): the fixed time and step of F, the objective it records, the tolerance, the
     monitor; the last residual's norms and iteration; work */
  PetscReal   t, tol, rn, xn;
  PetscInt    N, its;
  PetscBool   every;
  FGObjective o;
  Vec         R;
} FGSteadyCtx;

/* X = (u, v[, w][, p]) from this rank's parts (VecGetArray on every rank: see the header). */
static PetscErrorCode FGSteadyPack_Private(FGSteadyCtx *c, Vec u[], Vec p, Vec X)
{
  PetscScalar       *x;
  const PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetArray(X, &x));
  for (PetscInt k = 0; k < c->dim + (c->withp ? 1 : 0); k++) {
    Vec v = k < c->dim ? u[k] : p;
    PetscCall(VecGetArrayRead(v, &a));
    PetscCall(PetscArraycpy(x + k * c->nloc, a, c->nloc));
    PetscCall(VecRestoreArrayRead(v, &a));
  }
  PetscCall(VecRestoreArray(X, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGSteadyUnpack_Private(FGSteadyCtx *c, Vec X, Vec u[], Vec p)
{
  const PetscScalar *x;
  PetscScalar       *a;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt k = 0; k < c->dim + (c->withp ? 1 : 0); k++) {
    Vec v = k < c->dim ? u[k] : p;
    PetscCall(VecGetArray(v, &a));
    PetscCall(PetscArraycpy(a, x + k * c->nloc, c->nloc));
    PetscCall(VecRestoreArray(v, &a));
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y = X - F_x X (one tangent step about the tape). */
static PetscErrorCode FGSteadyMultNewton_Private(Mat A, Vec X, Vec Y)
{
  FGSteadyCtx *c;

  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(A, &c));
  PetscCall(FGSteadyUnpack_Private(c, X, c->u, c->p));
  PetscCall(FGStepTangent_RK3(c->s, c->T, NULL, c->u, c->p, NULL));
  PetscCall(FGSteadyPack_Private(c, c->u, c->p, Y));
  PetscCall(VecAYPX(Y, -1.0, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Y = X - F_x^T X (one adjoint step about the tape, no force weights, parameters discarded). */
static PetscErrorCode FGSteadyMultAdjoint_Private(Mat A, Vec X, Vec Y)
{
  FGSteadyCtx *c;

  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(A, &c));
  PetscCall(FGSteadyUnpack_Private(c, X, c->u, c->p));
  if (!c->withp) PetscCall(VecSet(c->p, 0.0)); /* the output pressure's adjoint */
  PetscCall(FGStepAdjoint_RK3(c->s, c->T, NULL, c->u, c->p, NULL));
  PetscCall(FGSteadyPack_Private(c, c->u, c->p, Y));
  PetscCall(VecAYPX(Y, -1.0, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGSteadyPCApplyShell_Private(PC pc, Vec r, Vec y)
{
  FGSteadyCtx *c;

  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &c));
  PetscCall(FGSteadyPCApply(c->pc, r, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGSteadyPCApplyTransposeShell_Private(PC pc, Vec r, Vec y)
{
  FGSteadyCtx *c;

  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &c));
  PetscCall(FGSteadyPCApplyTranspose(c->pc, r, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGSteadyCtxCreate_Private(FGSolver s, FGSteadyCtx *c)
{
  PetscInt nb;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(c, sizeof(*c)));
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  c->s     = s;
  c->dim   = s->grid->dim;
  c->withp = (PetscBool)(nb > 0 || s->viscous); /* the step's pressure is incremental */
  PetscCall(VecGetLocalSize(s->p, &c->nloc));
  for (PetscInt a = 0; a < c->dim; a++) {
    PetscInt n;
    PetscCall(VecGetLocalSize(s->u[a], &n));
    PetscCheck(n == c->nloc, s->comm, PETSC_ERR_PLIB, "the velocity and pressure Vecs differ in local size");
    PetscCall(VecDuplicate(s->u[a], &c->u[a]));
  }
  PetscCall(VecDuplicate(s->p, &c->p));
  PetscCall(FGStepTapeCreate(s, &c->T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGSteadyCtxDestroy_Private(FGSteadyCtx *c)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < c->dim; a++) PetscCall(VecDestroy(&c->u[a]));
  PetscCall(VecDestroy(&c->p));
  PetscCall(FGStepTapeDestroy(&c->T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGSteadyCreateVec_Private(FGSteadyCtx *c, Vec *X)
{
  PetscFunctionBeginUser;
  PetscCall(VecCreateMPI(c->s->comm, (c->dim + (c->withp ? 1 : 0)) * c->nloc, PETSC_DETERMINE, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGSteadyPCContainerDestroy_Private(void *ctx)
{
  FGSteadyPC P = (FGSteadyPC)ctx;

  PetscFunctionBeginUser;
  PetscCall(FGSteadyPCDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Oseen preconditioner of the steady state being converged or kept (FGSteadyState.pc): created
   by the first Krylov solve that asks for it (Newton's; the adjoint's when Newton had none), under
   that solve's prefix, and kept with the state for the rest of its Newton iterations and for every
   adjoint at its design; dropped when another state is converged. */
static PetscErrorCode FGSteadyPCGet_Private(FGSteadyCtx *c, const char *prefix)
{
  FGSolver       s  = c->s;
  FGSteadyState *st = &s->steady;
  void          *P;

  PetscFunctionBeginUser;
  if (c->pc) PetscFunctionReturn(PETSC_SUCCESS);
  if (!st->pc) {
    PetscCall(FGSteadyPCCreate(s, c->withp, prefix, &c->pc));
    PetscCall(PetscContainerCreate(s->comm, &st->pc));
    PetscCall(PetscContainerSetPointer(st->pc, c->pc));
    PetscCall(PetscContainerSetUserDestroy(st->pc, FGSteadyPCContainerDestroy_Private));
  }
  PetscCall(PetscContainerGetPointer(st->pc, &P));
  c->pc = (FGSteadyPC)P;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The MatShell (I - F_x, or I - F_x^T with adjoint) and its GMRES on ksp (Newton's is SNES's):
   right-preconditioned by the Oseen solve (2D, where its LU fits the memory: see above) or by nothing;
   restart 60 (the Krylov basis, 60 states; unpreconditioned on tests/adjoint/steady.yaml restarts
   30, 60 and 100 needed about 600, 470 and 370 iterations, 60 the least time), relative tolerance 1e-12
   (Newton then converges quadratically to round-off, and J is smooth enough in p for central
   differences), at most 5000 iterations, and a stall test (src/sys/ksp.c: a solve whose residual
   has not halved in 400 iterations, or two restarts if more, ends there, accepted where
   |r| <= FG_STEADY_STALL_* |b|); then the options under the prefix. */
static PetscErrorCode FGSteadyKSPCreate_Private(FGSteadyCtx *c, const char *prefix, PetscBool adjoint, Mat *A, KSP ksp)
{
  FGSolver  s = c->s;
  PetscInt  n;
  PetscBool singular = PETSC_FALSE;
  PC        pc;

  PetscFunctionBeginUser;
  n = (c->dim + (c->withp ? 1 : 0)) * c->nloc;
  PetscCall(MatCreateShell(s->comm, n, n, PETSC_DETERMINE, PETSC_DETERMINE, c, A));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, adjoint ? (void (*)(void))FGSteadyMultAdjoint_Private : (void (*)(void))FGSteadyMultNewton_Private));
  if (c->withp) PetscCall(FGPoissonIsSingular(s->poisson, &singular));
  if (s->opt.test_steady_no_nullspace) singular = PETSC_FALSE; /* test hook: the solves then stall (tests/adjoint/steady.cmake) */
  if (singular) { /* the constant pressure (see the header) */
    Vec          z;
    PetscScalar *a;
    MatNullSpace ns;
    PetscCall(FGSteadyCreateVec_Private(c, &z));
    PetscCall(VecGetArray(z, &a));
    for (PetscInt i = 0; i < (c->dim + 1) * c->nloc; i++) a[i] = i < c->dim * c->nloc ? 0.0 : 1.0;
    PetscCall(VecRestoreArray(z, &a));
    PetscCall(VecNormalize(z, NULL));
    PetscCall(MatNullSpaceCreate(s->comm, PETSC_FALSE, 1, &z, &ns));
    PetscCall(MatSetNullSpace(*A, ns));
    PetscCall(MatSetTransposeNullSpace(*A, ns));
    PetscCall(MatNullSpaceDestroy(&ns));
    PetscCall(VecDestroy(&z));
  }
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, *A, *A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGMRESSetRestart(ksp, 60));
  PetscCall(KSPGetPC(ksp, &pc));
  {
    /* the Oseen preconditioner by default in 2D unless its sparse LU would not fit (a kept one is
       factored: it needs no more), else none (-<prefix>pc_type shell: it anyway, iterative inside) */
    PetscReal   unknowns = (PetscReal)(c->dim + 1);
    double      budget, need;
    PetscMPIInt size;
    PetscBool   shell, fits, chosen, kept;
    for (PetscInt d = 0; d < c->dim; d++) unknowns *= (PetscReal)s->grid->n[d];
    PetscCallMPI(MPI_Comm_size(s->comm, &size));
    PetscCall(FGMemoryBudget(s->comm, &budget));
    need = FG_STEADY_LU_BYTES * (double)unknowns / (double)size;
    kept = (PetscBool)(s->steady.pc != NULL);
    fits = kept || (budget > 0 ? (PetscBool)(need <= 0.75 * budget) : (PetscBool)(unknowns <= FG_STEADY_LU_MAX_2D));
    PetscCall(PCSetType(pc, c->dim == 2 && fits ? PCSHELL : PCNONE));
    PetscCall(KSPSetPCSide(ksp, PC_RIGHT));
    PetscCall(KSPSetTolerances(ksp, 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, 5000));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(FGKSPCheckOptions(ksp));
    PetscCall(FGKSPSetStallTest(ksp, PETSC_DEFAULT, adjoint ? FG_STEADY_STALL_ADJOINT : FG_STEADY_STALL_NEWTON));
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCSHELL, &shell));
    PetscCall(PetscOptionsHasName(NULL, prefix, "-pc_type", &chosen));
    if (shell) {
      PetscCall(FGSteadyPCGet_Private(c, prefix));
      PetscCall(PCShellSetContext(pc, c));
      /* the adjoint's operator is I - F_x^T: its preconditioner is M^T */
      PetscCall(PCShellSetApply(pc, adjoint ? FGSteadyPCApplyTransposeShell_Private : FGSteadyPCApplyShell_Private));
      PetscCall(PCShellSetApplyTranspose(pc, adjoint ? FGSteadyPCApplyShell_Private : FGSteadyPCApplyTransposeShell_Private));
      PetscCall(PCShellSetName(pc, "flowgrad Oseen preconditioner (src/adjoint/steady_pc.c)"));
    }
    if (s->c->output.monitor_every > 0) {
      if (shell && kept) {
        const char *pre;
        PetscCall(FGSteadyPCGetOptionsPrefix(c->pc, &pre));
        PetscCall(PetscPrintf(s->comm, "%s: KSP (%s) preconditioned by this steady state's Oseen solve (kept; options -%s*)\n", adjoint ? "steady adjoint" : "steady", prefix, pre));
      } else if (shell)
        PetscCall(PetscPrintf(s->comm, "%s: KSP (%s) preconditioned by the Oseen solve (sparse LU of the steady equations' Jacobian; options -%soseen_*)\n", adjoint ? "steady adjoint" : "steady", prefix, prefix));
      else if (c->dim == 2 && !fits && !chosen)
        PetscCall(PetscPrintf(s->comm, "%s: KSP (%s) without a preconditioner: the Oseen solve's sparse LU (%.3g unknowns on %d rank%s) would need about %.0f MiB per rank, more than 3/4 of the %.0f MiB a rank may use (more ranks, -fg_memory_budget MiB, or -%spc_type shell with an iterative -%soseen_ksp_type)\n",
                              adjoint ? "steady adjoint" : "steady", prefix, (double)unknowns, (int)size, size > 1 ? "s" : "", need / 1048576.0, budget / 1048576.0, prefix, prefix));
      else PetscCall(PetscPrintf(s->comm, "%s: KSP (%s) without a preconditioner (-%spc_type shell: the Oseen solve)\n", adjoint ? "steady adjoint" : "steady", prefix, prefix));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Steady mode needs a step that does not change in time (the fixed point of F). */
static PetscErrorCode FGSteadyCheckCase_Private(FGSolver s)
{
  const FGCase *c = s->c;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < c->nbodies; b++) {
    const FGBodyCase *bc = &c->body[b];
    PetscReal         mv = 0;
    for (PetscInt d = 0; d < c->grid.dim; d++) mv += PetscAbsReal(bc->velocity[d]) + PetscAbsReal(bc->oscillation_amplitude[d]);
    PetscCheck(mv == 0 && bc->rotation_amplitude == 0 && bc->jet_frequency == 0, s->comm, FG_ERR_INPUT,
               "%s: adjoint.mode steady: body.%s moves or varies in time (velocity, oscillation_amplitude, rotation_amplitude or jet_frequency): the time step has no fixed point", c->file, bc->name);
  }
  for (PetscInt i = 0; i < c->nactuators; i++)
    PetscCheck(c->actuator[i].frequency == 0, s->comm, FG_ERR_INPUT, "%s: adjoint.mode steady: actuator.%s.frequency is not 0: the time step has no fixed point", c->file, c->actuator[i].name);
  for (PetscInt d = 0; d < c->grid.dim; d++)
    for (PetscInt f = 0; f < 2; f++)
      PetscCheck(c->boundary[d][f].modulation_amplitude == 0, s->comm, FG_ERR_INPUT, "%s: adjoint.mode steady: an inflow is modulated in time (modulation_amplitude): the time step has no fixed point", c->file);
  PetscCheck(c->design.time_basis <= 1, s->comm, FG_ERR_INPUT, "%s: adjoint.mode steady: design.time_basis is %" PetscInt_FMT ": controls that vary in time have no steady state (use 1)", c->file, c->design.time_basis);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One step from the packed state X at the fixed time t, with the tape, the objective recorded
   after it; R = F(X) - X. */
static PetscErrorCode FGSteadyResidual_Private(FGSteadyCtx *c, FGObjective o, PetscReal t, PetscInt step, Vec X, Vec R)
{
  FGSolver s = c->s;

  PetscFunctionBeginUser;
  PetscCall(FGSteadyUnpack_Private(c, X, s->u, s->p));
  s->t    = t;
  s->step = step;
  PetscCall(FGStepForward_RK3(s, c->T));
  PetscCall(FGObjectiveReset(o));
  PetscCall(FGObjectiveRecord(o));
  PetscCall(FGSteadyPack_Private(c, s->u, s->p, R));
  PetscCall(VecAXPY(R, -1.0, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SNES's function F(X) = X - F_step(X) (the step from X with the tape and the objective). */
static PetscErrorCode FGSteadySNESFunction_Private(SNES snes, Vec X, Vec F, void *ctx)
{
  FGSteadyCtx *c = (FGSteadyCtx *)ctx;

  PetscFunctionBeginUser;
  (void)snes;
  PetscCall(FGSteadyResidual_Private(c, c->o, c->t, c->N, X, F));
  PetscCall(VecScale(F, -1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Jacobian I - F_x at X: the MatShell acts about the tape, so the step from X is recorded
   again (the line search may have evaluated F elsewhere last: one step, against the Krylov
   solve's tens); then the preconditioner's Jacobian at X. */
static PetscErrorCode FGSteadySNESJacobian_Private(SNES snes, Vec X, Mat A, Mat B, void *ctx)
{
  FGSteadyCtx *c = (FGSteadyCtx *)ctx;
  FGSolver     s = c->s;
  PetscInt     lag, it;

  PetscFunctionBeginUser;
  (void)A, (void)B;
  PetscCall(FGSteadyResidual_Private(c, c->o, c->t, c->N, X, c->R));
  /* the Oseen solve is set up at the first Newton iteration only (see FGSteadyForward_Private);
     -steady_snes_lag_preconditioner L > 0: again at every L-th */
  PetscCall(SNESGetLagPreconditioner(snes, &lag));
  PetscCall(SNESGetIterationNumber(snes, &it));
  if (c->pc && (it == 0 || (lag > 0 && it % lag == 0))) {
    PetscCall(FGSteadyUnpack_Private(c, X, c->u, c->p));
    PetscCall(FGSteadyPCSetUp(c->pc, c->u, c->withp ? c->p : s->p, c->t, s->dt));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Converged when |F(x) - x| <= adjoint.steady_tol |x|; the iteration limit and a non-finite
   residual end it too. Prints the monitor line (output.monitor_every > 0), with the Krylov solve
   that led here. */
static PetscErrorCode FGSteadySNESConverged_Private(SNES snes, PetscInt it, PetscReal xnorm, PetscReal gnorm, PetscReal fnorm, SNESConvergedReason *reason, void *ctx)
{
  FGSteadyCtx *c = (FGSteadyCtx *)ctx;
  FGSolver     s = c->s;
  PetscReal    xn;
  PetscInt     maxit;
  Vec          X;

  PetscFunctionBeginUser;
  (void)xnorm, (void)gnorm;
  PetscCall(SNESGetSolution(snes, &X));
  PetscCall(VecNorm(X, NORM_2, &xn));
  PetscCall(SNESGetTolerances(snes, NULL, NULL, NULL, &maxit, NULL));
  c->rn = fnorm, c->xn = xn, c->its = it;
  if (c->every) {
    if (it > 0) {
      KSP                ksp;
      KSPConvergedReason kr;
      PetscInt           kits;
      PetscReal          lambda = 1;
      SNESLineSearch     ls;
      PetscCall(SNESGetKSP(snes, &ksp));
      PetscCall(KSPGetConvergedReason(ksp, &kr));
      PetscCall(KSPGetIterationNumber(ksp, &kits));
      PetscCall(SNESGetLineSearch(snes, &ls));
      PetscBool          stalled;
      PetscReal          rrel;
      PetscCall(SNESLineSearchGetLambda(ls, &lambda));
      PetscCall(FGKSPStallGet(ksp, &stalled, &rrel));
      if (stalled) PetscCall(PetscPrintf(s->comm, "steady:   KSP (steady_) stalled at |r| / |b| = %.2e after %" PetscInt_FMT " iterations (accepted: -steady_ksp_stall_rtol), step length %g\n", (double)rrel, kits, (double)lambda));
      else PetscCall(PetscPrintf(s->comm, "steady:   KSP (steady_) %s in %" PetscInt_FMT " iterations, step length %g\n", KSPConvergedReasons[kr], kits, (double)lambda));
    }
    PetscCall(PetscPrintf(s->comm, "steady: Newton %2" PetscInt_FMT "  |F(x) - x| = %.3e  relative %.3e\n", it, (double)fnorm, (double)(xn > 0 ? fnorm / xn : fnorm)));
  }
  *reason = SNES_CONVERGED_ITERATING;
  if (PetscIsInfOrNanReal(fnorm)) *reason = SNES_DIVERGED_FNORM_NAN;
  else if (fnorm <= c->tol * xn) *reason = SNES_CONVERGED_FNORM_ABS;
  else if (it >= maxit) *reason = SNES_DIVERGED_MAX_IT;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Newton (SNES NEWTONLS, prefix steady_) on x = F(x, p) from X (the end of the transient) to
   adjoint.steady_tol; X holds x*. FG_ERR_NUMERIC where it does not converge. */
static PetscErrorCode FGSteadyNewton_Private(FGSteadyCtx *c, Vec X)
{
  FGSolver            s = c->s;
  Mat                 A;
  KSP                 ksp;
  SNES                snes;
  SNESConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(SNESCreate(s->comm, &snes));
  PetscCall(SNESSetOptionsPrefix(snes, "steady_"));
  PetscCall(SNESSetType(snes, SNESNEWTONLS));
  {
    SNESLineSearch ls;
    PetscCall(SNESGetLineSearch(snes, &ls));
    PetscCall(SNESLineSearchSetType(ls, SNESLINESEARCHBASIC)); /* the full step (see FGSteadyForward_Private) */
  }
  PetscCall(SNESSetFunction(snes, NULL, FGSteadySNESFunction_Private, c));
  PetscCall(SNESGetKSP(snes, &ksp)); /* SNES's own: it carries the Eisenstat-Walker hooks */
  PetscCall(FGSteadyKSPCreate_Private(c, "steady_", PETSC_FALSE, &A, ksp));
  PetscCall(SNESSetJacobian(snes, A, A, FGSteadySNESJacobian_Private, c));
  PetscCall(SNESSetConvergenceTest(snes, FGSteadySNESConverged_Private, c, NULL));
  PetscCall(SNESSetTolerances(snes, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, 25, 10000));
  PetscCall(SNESSetMaxLinearSolveFailures(snes, 1));
  PetscCall(SNESSetLagPreconditioner(snes, -2)); /* set up once, at the end of the transient */
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(SNESSolve(snes, NULL, X));
  PetscCall(SNESGetConvergedReason(snes, &reason));
  if (reason == SNES_DIVERGED_LINEAR_SOLVE) {
    KSPConvergedReason kr;
    PetscInt           its;
    PetscCall(KSPGetConvergedReason(ksp, &kr));
    PetscBool          stalled;
    PetscReal          rrel;
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(FGKSPStallGet(ksp, &stalled, &rrel));
    PetscCheck(!stalled, s->comm, FG_ERR_NUMERIC, "steady: Newton's linear solve (I - F_x) dx = F(x) - x stalled: |r| / |b| = %.2e after %" PetscInt_FMT " iterations, not halved in the last -steady_ksp_stall_its and above -steady_ksp_stall_rtol (options -steady_ksp_*)", (double)rrel, its);
    SETERRQ(s->comm, FG_ERR_NUMERIC, "steady: Newton's linear solve (I - F_x) dx = F(x) - x did not converge: %s after %" PetscInt_FMT " iterations (options -steady_ksp_*)", KSPConvergedReasons[kr], its);
  }
  PetscCheck(reason != SNES_DIVERGED_FNORM_NAN, s->comm, FG_ERR_NUMERIC, "steady: |F(x) - x| is %g at Newton iteration %" PetscInt_FMT " (the run blew up?)", (double)c->rn, c->its);
  PetscCheck(reason != SNES_DIVERGED_MAX_IT, s->comm, FG_ERR_NUMERIC, "steady: Newton did not converge in %" PetscInt_FMT " iterations: |F(x) - x| = %.3e |x| > adjoint.steady_tol = %g (a longer transient, time.steps, or a looser steady_tol; is the flow steady at all?)", c->its,
             (double)(c->xn > 0 ? c->rn / c->xn : c->rn), (double)c->tol);
  PetscCheck(reason > 0, s->comm, FG_ERR_NUMERIC, "steady: Newton failed: %s after %" PetscInt_FMT " iterations, |F(x) - x| = %.3e |x| (options -steady_snes_*)", SNESConvergedReasons[reason], c->its, (double)(c->xn > 0 ? c->rn / c->xn : c->rn));
  PetscCall(SNESDestroy(&snes));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the solver's kept steady state (FGSteadyState) was converged for design p. */
static PetscErrorCode FGSteadySameDesign_Private(FGSolver s, Vec p, PetscBool *same)
{
  PetscInt n, m;

  PetscFunctionBeginUser;
  *same = PETSC_FALSE;
  if (!s->steady.set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetSize(p, &n));
  PetscCall(VecGetSize(s->steady.design, &m));
  if (n == m) PetscCall(VecEqual(p, s->steady.design, same));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Keep X, converged for design p at the fixed time c->t and step c->N, as the solver's steady
   state (FGSteadyState; without bodies or the implicit viscous term p is no state: 0). */
static PetscErrorCode FGSteadyKeep_Private(FGSteadyCtx *c, Vec X, Vec p)
{
  FGSteadyState *st = &c->s->steady;
  PetscInt       n  = -1, m;

  PetscFunctionBeginUser;
  if (!st->p) {
    for (PetscInt a = 0; a < c->dim; a++) PetscCall(VecDuplicate(c->s->u[a], &st->u[a]));
    PetscCall(VecDuplicate(c->s->p, &st->p));
  }
  if (st->design) PetscCall(VecGetSize(st->design, &n));
  PetscCall(VecGetSize(p, &m));
  if (n != m) {
    PetscCall(VecDestroy(&st->design));
    PetscCall(VecDuplicate(p, &st->design));
  }
  PetscCall(FGSteadyUnpack_Private(c, X, st->u, st->p));
  if (!c->withp) PetscCall(VecSet(st->p, 0.0));
  PetscCall(VecCopy(p, st->design));
  st->t    = c->t;
  st->step = c->N;
  st->dt   = c->s->dt;
  st->set  = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The forward part: the steady state x* of design p; on return the tape holds the step from x*,
   the solver its end state F(x*) and the objective that step's values; J.

   At the design of the solver's kept steady state (FGSteadyState: the objective's forward before
   a flow constraint's at one design of flowgrad optimize, or any repeated forward) x* is that
   state, and the one step recorded from it is the only step taken: a cold start would find the
   same x* bit for bit (its |F(x) - x| is printed). Else from the initial state: time.steps steps
   (the transient), then Newton (SNES NEWTONLS, prefix steady_, on the MatShell I - F_x, GMRES
   right-preconditioned by the Oseen solve, steady_pc.c). x* is then kept.

   The Oseen solve is set up (a finite-difference Jacobian by coloring and its sparse LU) at the
   first Newton iteration only, and the adjoints at this design take the same factorization: on
   cases/naca_lift/naca_lift_skin.yaml (c/32) the Krylov iterations did not change (Newton 37, 30,
   28; the adjoints 41, 44) and an optimization's evaluations took 26 % less time (28 % at c/64); on
   tests/adjoint/steady_confined.yaml Newton's took 23-28 instead of 21-23 and the adjoint's 30
   instead of 25, in 14.1 s instead of 19.9 s (docs/adjoint.md). -steady_snes_lag_preconditioner L
   sets it up again every L-th Newton iteration.

   Starting Newton from the previous design's steady state instead was measured and not kept: on
   cases/naca_lift (soft skin, c/32 and c/64) Newton took 3 iterations from either start (TAO's
   designs differ by more than the transient's end from x*): it saves only the transient (5.2 s of
   a 32 s evaluation at c/64), for a result that depends on the order of the evaluations.

   Defaults, measured on tests/adjoint/steady_confined.yaml (100 x 25 and 400 x 100) and
   tests/adjoint/steady.yaml: the full Newton step (line search basic) and linear solves to 1e-12.
   The first Newton step from the end of the transient raises |F(x) - x| (5e-3 to 7e-2 at 100 x 25)
   while it lands near x*, then Newton converges quadratically (4 iterations); a line search on
   |F| (bt, cp, l2: -steady_snes_linesearch_type) refuses that step, takes steps of 0.1 to 0.3 and
   needs 7 to over 25 iterations. Eisenstat-Walker (-steady_snes_ksp_ew), tried with the cp line
   search only, cut the Krylov iterations to 1-3 per Newton step but Newton then stagnated (12
   iterations at 100 x 25, none converging at 400 x 100), each Newton step refactoring the
   preconditioner; with the full step it is not measured. */
static PetscErrorCode FGSteadyForward_Private(FGSteadyCtx *c, FGDesign d, FGObjective o, Vec p, PetscReal *J)
{
  FGSolver       s  = c->s;
  FGSteadyState *st = &s->steady;
  Vec            X;
  PetscBool      kept;

  PetscFunctionBeginUser;
  PetscCall(FGSteadyCheckCase_Private(s));
  PetscCall(FGKSPCheckStallOptions(s->comm, "steady_"));
  PetscCall(FGKSPCheckStallOptions(s->comm, "adjoint_"));
  PetscCall(FGDesignApply(d, p));
  PetscCall(FGDesignSetInitialState(d, p));
  PetscCall(FGSteadySameDesign_Private(s, p, &kept));
  c->o     = o;
  c->tol   = s->c->adjoint.steady_tol;
  c->every = s->c->output.monitor_every > 0;
  if (!kept) { /* the transient (before X: a flow that blows up leaves nothing of this call's) */
    st->set = PETSC_FALSE; /* the kept state and its preconditioner make way for this design's */
    PetscCall(PetscContainerDestroy(&st->pc));
    for (PetscInt n = 0; n < s->c->time.steps; n++) {
      PetscCall(FGStepForward_RK3(s, NULL));
      PetscCall(FGSolverCheckFlow(s));
    }
  }
  PetscCall(FGSteadyCreateVec_Private(c, &X));
  PetscCall(VecDuplicate(X, &c->R));
  if (kept) {
    PetscCall(FGSteadyPack_Private(c, st->u, st->p, X));
    c->t = st->t;
    c->N = st->step;
    s->dt = st->dt; /* Newton's step, as it converged */
  } else {
    c->t = s->t;
    c->N = s->c->time.steps;
    PetscCall(FGSteadyPack_Private(c, s->u, s->p, X));
    PetscCall(FGSteadyPCStep(s, c->every, &s->dt)); /* Newton's step (adjoint.steady_dt) */
    PetscCall(FGSteadyNewton_Private(c, X));
  }

  /* the step from x*: the tape, the end state and the objective; x* kept */
  PetscCall(FGSteadyResidual_Private(c, o, c->t, c->N, X, c->R));
  if (kept) {
    PetscCall(VecNorm(c->R, NORM_2, &c->rn));
    PetscCall(VecNorm(X, NORM_2, &c->xn));
    c->its = 0;
    if (c->every) PetscCall(PetscPrintf(s->comm, "steady: the steady state of this design, kept from its last forward: |F(x) - x| = %.3e |x|\n", (double)(c->xn > 0 ? c->rn / c->xn : c->rn)));
  } else PetscCall(FGSteadyKeep_Private(c, X, p));
  PetscCall(FGObjectiveSetSteady(o, PETSC_TRUE));
  PetscCall(FGObjectiveFinish(o, p, J));
  PetscCheck(!PetscIsInfOrNanReal(*J), s->comm, FG_ERR_NUMERIC, "the objective is %g at the steady state", (double)*J);
  if (c->every && !kept) PetscCall(PetscPrintf(s->comm, "steady: converged after %" PetscInt_FMT " steps and %" PetscInt_FMT " Newton iterations (|F(x) - x| = %.3e |x|), J = %.10e\n", c->N, c->its, (double)(c->xn > 0 ? c->rn / c->xn : c->rn), (double)*J));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&c->R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGAdjointForwardSteady - J(p) at the steady state: apply p, run time.steps steps from the
  initial state, converge x = F(x, p) with Newton-Krylov to adjoint.steady_tol (or, at the design
  of the solver's kept steady state, take that state), evaluate the objective at the step taken
  from the steady state. Collective.

  Errors: FG_ERR_NUMERIC when Newton or its linear solves do not converge; FG_ERR_INPUT when the
  step varies in time.
@*/
PetscErrorCode FGAdjointForwardSteady(FGSolver s, FGDesign d, FGObjective o, Vec p, PetscReal *J)
{
  FGSteadyCtx    c;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(FGSteadyCtxCreate_Private(s, &c));
  ierr = FGSteadyForward_Private(&c, d, o, p, J); /* c freed whatever it returns: optimize may go on */
  PetscCall(FGSteadyCtxDestroy_Private(&c));
  s->dt = s->c->time.dt;
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGAdjointComputeSteady - J(p) and g = dJ/dp at the steady state (see the header for the
  derivation), and optionally (out, NULL members: not wanted):
    chibar, sens   dJ/dchi on the faces and the shape sensitivity of the steady state (the sums
                   over the infinitely many steps of the unsteady view, from one adjoint step)
    ubar0, pbar0   the steady adjoint state lambda = (I - F_x^T)^{-1} dJ/dx* (dJ/de for a steady
                   source e in x = F(x) + e); pbar0 is 0 without bodies (p is no state then)
  out->monitor is not called. Collective.

  The adjoint solve prints its KSP's converged reason and iterations; one that does not converge
  is FG_ERR_NUMERIC (options -adjoint_ksp_*).
@*/
PetscErrorCode FGAdjointComputeSteady(FGSolver s, FGDesign d, FGObjective o, Vec p, PetscReal *J, Vec g, FGAdjointOutput *out)
{
  FGSteadyCtx        c;
  const PetscInt     dim = s->grid->dim;
  PetscInt           nb, its, n;
  PetscInt           every = s->c->output.monitor_every > 0 ? s->c->output.monitor_every : 0;
  Vec                ubar[3], pbar, su[3], sp, B, M, zero[3];
  PetscReal          wacc[6 * FG_CASE_MAX_BODIES], bn, mn, dn, rnorm;
  FGParams           bar;
  Mat                A;
  KSP                ksp;
  KSPConvergedReason reason;
  PetscBool          stalled;
  PetscLogDouble     w0, w1, w2;
  PetscErrorCode     ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&w0));
  PetscCall(FGSteadyCtxCreate_Private(s, &c));
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  ierr = FGSteadyForward_Private(&c, d, o, p, J);
  if (ierr) PetscCall(FGSteadyCtxDestroy_Private(&c)); /* nothing of this call's left: optimize may go on */
  PetscCall(ierr);
  n = s->step; /* the recorded step, from x* */
  PetscCall(PetscTime(&w1));

  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecDuplicate(s->u[a], &ubar[a]));
    PetscCall(VecDuplicate(s->u[a], &su[a]));
    PetscCall(VecSet(su[a], 0.0));
  }
  PetscCall(VecDuplicate(s->p, &pbar));
  PetscCall(VecDuplicate(s->p, &sp));
  PetscCall(VecSet(sp, 0.0));
  PetscCall(FGParamsCreate(&s->layout, &bar));
  PetscCall(FGParamsCreateFaceMasks(&bar, s->bodies, dim));
  if (out)
    for (PetscInt a = 0; a < dim; a++) {
      bar.chibar[a] = out->chibar[a];
      bar.sens[a]   = out->sens[a];
      if (bar.chibar[a]) PetscCall(VecSet(bar.chibar[a], 0.0));
      if (bar.sens[a]) PetscCall(VecSet(bar.sens[a], 0.0));
    }

  /* s = dJ/dy at y = F(x*) (the solver holds it), w = dJ/d(forces); rhs = A_x(s, w) */
  PetscCall(FGObjectiveAdjointState(o, n, su, sp, &bar.v[FG_PARAM_INFLOW]));
  PetscCall(FGObjectiveAdjointForces(o, n, wacc));
  for (PetscInt a = 0; a < dim; a++) PetscCall(VecCopy(su[a], ubar[a]));
  PetscCall(VecCopy(sp, pbar));
  PetscCall(FGStepAdjoint_RK3(s, c.T, wacc, ubar, pbar, NULL));
  PetscCall(FGSteadyCreateVec_Private(&c, &B));
  PetscCall(VecDuplicate(B, &M));
  PetscCall(FGSteadyPack_Private(&c, ubar, pbar, B));

  /* (I - F_x^T) mu = rhs */
  PetscCall(KSPCreate(s->comm, &ksp));
  PetscCall(FGSteadyKSPCreate_Private(&c, "adjoint_", PETSC_TRUE, &A, ksp));
  if (c.pc) { /* the steady state's, set up by Newton; else here, at x* */
    PetscBool ready;
    PetscCall(FGSteadyPCIsSetUp(c.pc, &ready));
    if (!ready) PetscCall(FGSteadyPCSetUp(c.pc, s->u, s->p, c.T->t0, s->dt));
  }
  PetscCall(KSPSolve(ksp, B, M));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm));
  PetscCall(VecNorm(B, NORM_2, &bn));
  PetscCall(FGKSPStallGet(ksp, &stalled, NULL));
  PetscCall(PetscPrintf(s->comm, "steady adjoint: KSP (adjoint_) %s in %" PetscInt_FMT " iterations, |r| / |b| = %.2e\n", stalled ? (reason > 0 ? "stalled (accepted: -adjoint_ksp_stall_rtol)" : "stalled") : KSPConvergedReasons[reason], its, (double)(bn > 0 ? rnorm / bn : rnorm)));
  PetscCheck(!stalled || reason > 0, s->comm, FG_ERR_NUMERIC, "steady adjoint: the KSP solve of (I - F_x^T) mu = dJ/dx stalled: |r| / |b| = %.2e after %" PetscInt_FMT " iterations, not halved in the last -adjoint_ksp_stall_its and above -adjoint_ksp_stall_rtol (options -adjoint_ksp_*)", (double)(bn > 0 ? rnorm / bn : rnorm), its);
  PetscCheck(reason > 0, s->comm, FG_ERR_NUMERIC, "steady adjoint: the KSP solve of (I - F_x^T) mu = dJ/dx did not converge: %s after %" PetscInt_FMT " iterations (options -adjoint_ksp_*: max_it, rtol, gmres_restart)", KSPConvergedReasons[reason], its);

  /* the parameters: A(mu + s, w); its state part is mu again (printed) */
  PetscCall(FGSteadyUnpack_Private(&c, M, ubar, pbar));
  if (!c.withp) PetscCall(VecSet(pbar, 0.0));
  for (PetscInt a = 0; a < dim; a++) PetscCall(VecAXPY(ubar[a], 1.0, su[a]));
  PetscCall(VecAXPY(pbar, 1.0, sp));
  if (out) {
    for (PetscInt a = 0; a < dim; a++)
      if (out->ubar0[a]) PetscCall(VecCopy(ubar[a], out->ubar0[a]));
    if (out->pbar0) {
      if (c.withp) PetscCall(VecCopy(pbar, out->pbar0));
      else PetscCall(VecSet(out->pbar0, 0.0));
    }
  }
  PetscCall(FGStepAdjoint_RK3(s, c.T, wacc, ubar, pbar, &bar));
  PetscCall(FGSteadyPack_Private(&c, ubar, pbar, B));
  PetscCall(VecNorm(M, NORM_2, &mn));
  PetscCall(VecAXPY(B, -1.0, M));
  PetscCall(VecNorm(B, NORM_2, &dn));
  if (every) PetscCall(PetscPrintf(s->comm, "steady adjoint: |mu| = %.6e, |A_x(mu + s, w) - mu| / |mu| = %.2e (the adjoint fixed point)\n", (double)mn, (double)(mn > 0 ? dn / mn : dn)));

  PetscCall(FGParamsReduce(s->comm, &bar));
  for (PetscInt a = 0; a < dim; a++) { /* the initial state's adjoint: it does not change x* */
    PetscCall(VecDuplicate(s->u[a], &zero[a]));
    PetscCall(VecSet(zero[a], 0.0));
  }
  PetscCall(FGDesignGradient(d, &bar, zero, g));
  PetscCall(FGObjectiveAdjointDesign(o, p, g));
  {
    PetscReal gn;
    PetscCall(VecNorm(g, NORM_2, &gn));
    PetscCheck(!PetscIsInfOrNanReal(gn), s->comm, FG_ERR_NUMERIC, "the gradient is not finite (|g| = %g): the steady adjoint failed", (double)gn);
  }
  PetscCall(PetscTime(&w2));
  if (every) PetscCall(PetscPrintf(s->comm, "steady adjoint: forward %.1f s, adjoint %.1f s\n", (double)(w1 - w0), (double)(w2 - w1)));

  PetscCall(FGParamsDestroy(&bar));
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecDestroy(&ubar[a]));
    PetscCall(VecDestroy(&su[a]));
    PetscCall(VecDestroy(&zero[a]));
  }
  PetscCall(VecDestroy(&pbar));
  PetscCall(VecDestroy(&sp));
  PetscCall(VecDestroy(&B));
  PetscCall(VecDestroy(&M));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(FGSteadyCtxDestroy_Private(&c));
  s->dt = s->c->time.dt;
  PetscFunctionReturn(PETSC_SUCCESS);
}
