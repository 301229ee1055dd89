/*
  FGObjectiveCreateTerms: an objective made of terms that are not the case's (a constraint built
  by code from an FGObjectiveCase filled in memory).

  A cylinder in a channel (20 steps) with the case objectives drag and lift. The lift, filled in
  memory as a one-term objective (another name, `where` and weight), must give the case's
  lift term (J_i of the two-term objective) and, through the reverse sweep, the same gradient as
  the one-term objective of the case's own lift entry (to 1e-14; it is the same computation). An
  in-memory term that the objective cannot take (a force kind without a body in a case with two
  bodies) is FG_ERR_INPUT naming its `where`. Registered at 1 and 2 ranks.
*/
#include "../forward/forward_test.h"
#include <fg/adjoint.h>
#include <string.h>

static const char help[] = "FGObjectiveCreateTerms: an objective of terms built in memory.\n";

static const char yaml[] = "grid: {cells: [48, 32], lengths: [6, 4]}\n"
                           "flow: {re: 60}\n"
                           "time: {dt: 0.04, steps: 20}\n"
                           "initial: {type: uniform, velocity: [1, 0]}\n"
                           "boundary:\n"
                           "  x_lo: {type: inflow, velocity: [1, 0]}\n"
                           "  x_hi: {type: outflow}\n"
                           "  y_lo: {type: slip}\n"
                           "  y_hi: {type: slip}\n"
                           "body:\n"
                           "  cyl: {shape: circle, position: [2, 2.1], radius: 0.5, eta: 0.01, rotation_rate: 0.2}\n"
                           "  puck: {shape: circle, position: [4.2, 1.6], radius: 0.3, eta: 0.01}\n"
                           "objective:\n"
                           "  drag: {kind: drag, body: cyl, time: average, window: [0.2, 0.8]}\n"
                           "  lift: {kind: lift, body: cyl, time: average, window: [0.2, 0.8], ramp: 0.1, weight: 0.5}\n"
                           "design:\n"
                           "  parameters: [body.cyl.shape, body.cyl.rotation_rate, flow.nu, flow.inflow_speed]\n"
                           "output: {dir: out/test_objective_terms, monitor_every: 1000}\n";

static PetscErrorCode Main(void)
{
  MPI_Comm        comm = PETSC_COMM_WORLD;
  FGCase         *c;
  FGSolver        s;
  FGDesign        d;
  FGObjective     all, mine, theirs;
  FGObjectiveCase lift; /* filled by code, as a constraint would be */
  Vec             p, g1, g2;
  PetscReal       J, Jl, J1, J2, diff, gn;
  const char     *name;

  PetscFunctionBeginUser;
  PetscCall(FGTestCaseLoad(comm, "terms.yaml", &c, "%s", yaml));
  PetscCall(FGSolverCreate(comm, c, &s));
  PetscCall(FGDesignCreate(s, c, &d));
  PetscCall(FGDesignCreateVec(d, &p));
  PetscCall(VecDuplicate(p, &g1));
  PetscCall(VecDuplicate(p, &g2));
  PetscCall(FGDesignGetValues(d, p));

  PetscCall(PetscMemzero(&lift, sizeof(lift)));
  PetscCall(PetscStrncpy(lift.name, "lift_constraint", sizeof(lift.name)));
  PetscCall(PetscStrncpy(lift.where, "test: constraints.lift", sizeof(lift.where)));
  PetscCall(PetscStrncpy(lift.body, "cyl", sizeof(lift.body)));
  lift.kind      = FG_OBJ_LIFT;
  lift.time      = FG_OBJ_TIME_AVERAGE;
  lift.n_window  = 2;
  lift.window[0] = 0.2, lift.window[1] = 0.8;
  lift.ramp      = 0.1;
  lift.weight    = 1;

  /* the case's objective: J and its lift term */
  PetscCall(FGObjectiveCreate(s, d, &all));
  PetscCall(FGAdjointForward(s, d, all, p, &J));
  PetscCall(FGObjectiveGetTerm(all, 1, &name, &Jl));
  FGTestCheck(!strcmp(name, "lift"), "term 1 is %s, not lift", name);

  /* the lift in memory, weight 1 instead of 0.5: J_1 = 2 (the case's lift term) */
  PetscCall(FGObjectiveCreateTerms(s, d, 1, &lift, &mine));
  PetscCall(FGAdjointCompute(s, d, mine, p, &J1, g1, NULL));
  PetscCall(FGObjectiveGetTerm(mine, 0, &name, &J2));
  FGTestCheck(!strcmp(name, "lift_constraint") && J1 == J2, "in-memory term: %s, J %.17g, term %.17g", name, (double)J1, (double)J2);
  FGTestCheck(J1 != 0 && PetscAbsReal(J1 - 2 * Jl) <= 1e-14 * PetscAbsReal(J1), "the in-memory lift %.17g != 2 x the case's lift term %.17g", (double)J1, (double)Jl);

  /* the case's own lift entry as a one-term objective: the same gradient, times 1/2 */
  PetscCall(FGObjectiveCreateTerms(s, d, 1, &c->objective[1], &theirs));
  PetscCall(FGAdjointCompute(s, d, theirs, p, &J2, g2, NULL));
  FGTestCheck(PetscAbsReal(J2 - Jl) <= 1e-14 * PetscAbsReal(Jl), "the case's lift entry alone: J %.17g != its term %.17g", (double)J2, (double)Jl);
  PetscCall(VecAXPY(g2, -0.5, g1));
  PetscCall(VecNorm(g2, NORM_INFINITY, &diff));
  PetscCall(VecNorm(g1, NORM_INFINITY, &gn));
  FGTestCheck(gn > 0 && diff <= 1e-14 * gn, "gradients differ: |g_case - g_mem/2| = %g, |g_mem| = %g", (double)diff, (double)gn);
  PetscCall(PetscPrintf(comm, "objective terms: J(lift in memory) = %.12e = 2 x %.12e; |g| = %.6e, difference %.2e\n", (double)J1, (double)Jl, (double)gn, (double)diff));

  /* a force kind without a body, in a case with two bodies: an input error naming `where` */
  {
    FGObjectiveCase bad = lift;
    FGObjective     o   = NULL;
    FGTestCaught    err = {0, ""};
    PetscErrorCode  ierr;
    bad.body[0] = 0;
    PetscCall(PetscPushErrorHandler(FGTestCatchError, &err));
    ierr = FGObjectiveCreateTerms(s, d, 1, &bad, &o);
    PetscCall(PetscPopErrorHandler());
    FGTestCheck(ierr == FG_ERR_INPUT && strstr(err.msg, "test: constraints.lift: objective kind lift needs a body"), "no body: error %d '%s'", (int)ierr, err.msg);
    PetscCall(FGObjectiveDestroy(&o));
  }

  PetscCall(FGObjectiveDestroy(&all));
  PetscCall(FGObjectiveDestroy(&mine));
  PetscCall(FGObjectiveDestroy(&theirs));
  PetscCall(VecDestroy(&p));
  PetscCall(VecDestroy(&g1));
  PetscCall(VecDestroy(&g2));
  PetscCall(FGDesignDestroy(&d));
  PetscCall(FGSolverDestroy(&s));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr = FGInitialize(&argc, &argv, help);
  if (!ierr) ierr = Main();
  return FGTestExit(ierr);
}
