/*
  flowgrad check CASE (include/fg/adjoint.h): the gradient of flowgrad adjoint verified on the case.

  The verification of issue 5 on the case:
    1. dot-product tests of every operator and of the whole step (at the last step):
       |<T v, w> - <v, T^T w>| <= 1e-12 ||T v|| ||w|| (the round-off scale on any grid; the
       difference relative to the values themselves is printed too)
    2. Taylor test along a random direction (6 step sizes eps0 2^-k): the observed order of the
       remainder >= 1.9 for every pair of step sizes after the first (the largest eps may be
       outside the asymptotic range; it is printed, not judged) whose remainders are above the
       round-off floor (1e-11 |J|), and at least 3 such pairs
    3. central differences per design scalar (and the largest-gradient entry of each field
       block), step h = 3e-6 times the scalar's scale (FGDesignScalarScale): relative difference
       <= 1e-6, or both so small that J cannot resolve them (|dJ/dp| h <= 1e-12 max(|J|, the
       largest |dJ/dp_j| scale_j): a derivative that vanishes by symmetry)
  prints a table, and fails (FG_ERR_NUMERIC: exit 3) if any check fails. Options
  (FGAdjointCheckGetOptions, src/adjoint/check.c; -help lists them):
    -fg_check_dot_rtol (1e-12) -fg_check_taylor_eps (1e-3) -fg_check_taylor_order (1.9)
    -fg_check_fd_rtol (1e-6) -fg_check_fd_step (3e-6, relative) -fg_check_fd_order (2; 4: also at
    +-2h, Richardson's extrapolation) -fg_check_seed (1)
  Test hook (marked TEST ONLY in -help): -fg_test_break_adjoint perturbs the adjoint step
  (src/step/rk3.c), so a test can see the check fail.
*/
#include "appimpl.h"
#include <fg/optim.h>

/*@C
  FGCheckMain - flowgrad check CASE.
@*/
PetscErrorCode FGCheckMain(MPI_Comm comm, const FGCase *c)
{
  FGAdjointApp A;
  FGSolver     s;
  FGAdjointCheckOptions o;
  PetscReal    J, dot_rtol, teps, torder, fd_rtol, fd_step;
  PetscInt     seed, nfail = 0, nchecks = 0, nres, N = c->time.steps;
  PetscRandom  rnd;
  PetscMPIInt  rank;
  FGDotResult  dres[FG_DOT_MAX_TESTS];
  FGFDResult  *fres;
  PetscReal    eps[6], rem[6], rem1[6], gd;

  PetscFunctionBeginUser;
  PetscCall(FGAdjointCheckGetOptions(comm, &o));
  dot_rtol = o.dot_rtol, teps = o.taylor_eps, torder = o.taylor_order, fd_rtol = o.fd_rtol, fd_step = o.fd_step, seed = o.seed;
  PetscCheck(N >= 1, comm, FG_ERR_INPUT, "%s: time.steps: the check needs at least one step", c->file);
  PetscCheck(c->design.n > 0, comm, FG_ERR_INPUT, "%s: design.parameters is empty: flowgrad check has no gradient to verify (list the design parameters; see docs/adjoint.md)", c->file);
  PetscCall(FGAdjointAppCreate_Internal(comm, c, &A));
  s = A.s;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
  PetscCall(PetscRandomSetSeed(rnd, (unsigned long)(seed + 7919 * rank)));
  PetscCall(PetscRandomSeed(rnd));

  PetscCall(FGAdjointCompute(s, A.d, A.o, A.p, &J, A.g, NULL));
  PetscCall(PetscPrintf(comm, "\nJ = %.15e\n", (double)J));

  /* 1. dot products at the last step */
  {
    FGStepTape T;
    PetscCall(FGDesignApply(A.d, A.p));
    PetscCall(FGDesignSetInitialState(A.d, A.p));
    for (PetscInt n = 0; n < N - 1; n++) PetscCall(FGStepForward_RK3(s, NULL));
    PetscCall(FGStepTapeCreate(s, &T));
    PetscCall(FGStepForward_RK3(s, T));
    PetscCall(FGAdjointDotTests(s, T, rnd, &nres, dres));
    PetscCall(FGStepTapeDestroy(&T));
    PetscCall(PetscPrintf(comm, "\n1. dot-product tests <T v, w> = <v, T^T w> at step %" PetscInt_FMT ": |difference| / (||T v|| ||w||) <= %g\n", N, (double)dot_rtol));
    PetscCall(PetscPrintf(comm, "   %-40s %22s %22s %9s %9s\n", "", "<T v, w>", "<v, T^T w>", "rel", "rel/norms"));
    for (PetscInt i = 0; i < nres; i++) {
      PetscBool ok = (PetscBool)(dres[i].relnorm <= dot_rtol);
      nchecks++, nfail += ok ? 0 : 1;
      PetscCall(PetscPrintf(comm, "   %-40s %+.15e %+.15e  %.2e  %.2e  %s\n", dres[i].name, (double)dres[i].lhs, (double)dres[i].rhs, (double)dres[i].rel, (double)dres[i].relnorm, ok ? "ok" : "FAIL"));
    }
  }
  /* 2. Taylor test */
  {
    PetscInt  above = 0;
    PetscBool ok    = PETSC_TRUE;
    PetscReal floor_ = 1e-11 * PetscMax(PetscAbsReal(J), 1e-300);
    PetscCall(FGAdjointTaylor(s, A.d, A.o, A.p, J, A.g, rnd, teps, 6, eps, rem, rem1, &gd));
    PetscCall(PetscPrintf(comm, "\n2. Taylor test along a random direction d (g.d = %.10e): remainder r = |J(p + eps d) - J(p) - eps g.d|\n", (double)gd));
    PetscCall(PetscPrintf(comm, "   %12s %16s %8s %16s %8s\n", "eps", "r", "order", "|J(p+eps d)-J|", "order"));
    for (PetscInt k = 0; k < 6; k++) {
      PetscReal o2 = k ? PetscLog2Real(rem[k - 1] / rem[k]) : 0, o1 = k ? PetscLog2Real(rem1[k - 1] / rem1[k]) : 0;
      if (k >= 2 && rem[k] > floor_) {
        above++;
        if (o2 < torder) ok = PETSC_FALSE;
      }
      if (k) PetscCall(PetscPrintf(comm, "   %12.4e %16.6e %8.3f %16.6e %8.3f\n", (double)eps[k], (double)rem[k], (double)o2, (double)rem1[k], (double)o1));
      else PetscCall(PetscPrintf(comm, "   %12.4e %16.6e %8s %16.6e %8s\n", (double)eps[k], (double)rem[k], "", (double)rem1[k], ""));
    }
    if (above < 3) ok = PETSC_FALSE;
    nchecks++, nfail += ok ? 0 : 1;
    PetscCall(PetscPrintf(comm, "   observed order >= %g for the %" PetscInt_FMT " pairs after the first with r above round-off (%.1e; at least 3): %s\n", (double)torder, above, (double)floor_, ok ? "ok" : "FAIL"));
  }
  /* 3. central differences */
  {
    PetscInt  ns, nblk;
    PetscReal *v, gmax = 0;
    const FGDesignBlock *blk;
    PetscCall(FGDesignGetScalars(A.d, A.p, &ns, &v));
    PetscCall(FGDesignGetBlocks(A.d, &nblk, &blk));
    PetscCall(PetscMalloc1(ns + nblk + 1, &fres));
    PetscCall(FGAdjointFD(s, A.d, A.o, A.p, A.g, fd_step, o.fd_order, &nres, fres));
    for (PetscInt i = 0; i < nres; i++) gmax = PetscMax(gmax, PetscMax(PetscAbsReal(fres[i].adjoint), PetscAbsReal(fres[i].fd)) * fres[i].scale);
    PetscCall(PetscPrintf(comm, "\n3. central differences (step %g relative%s) against the adjoint, relative tolerance %g\n", (double)fd_step, o.fd_order == 4 ? ", fourth order: +-h and +-2h" : "", (double)fd_rtol));
    PetscCall(PetscPrintf(comm, "   %-36s %20s %20s %10s\n", "parameter", "adjoint", "central difference", "rel"));
    for (PetscInt i = 0; i < nres; i++) {
      const FGFDResult *r  = &fres[i];
      PetscReal         mx = PetscMax(PetscAbsReal(r->adjoint), PetscAbsReal(r->fd)), rel = mx > 0 ? PetscAbsReal(r->adjoint - r->fd) / mx : 0;
      /* both at round-off: the change of J over the step h, mx h, below what J can resolve
         (1e-12 of |J| or of the largest change per unit relative change of a parameter) */
      PetscBool tiny = (PetscBool)(mx * r->step <= 1e-12 * PetscMax(PetscAbsReal(J), gmax));
      PetscBool ok   = (PetscBool)(rel <= fd_rtol || tiny);
      nchecks++, nfail += ok ? 0 : 1;
      PetscCall(PetscPrintf(comm, "   %-36s %+20.12e %+20.12e %10.2e  %s\n", r->name, (double)r->adjoint, (double)r->fd, (double)rel, ok ? (tiny && rel > fd_rtol ? "ok (both at round-off)" : "ok") : "FAIL"));
    }
    PetscCall(PetscFree(fres));
  }
  /* 4. the geometric constraint rows of flowgrad optimize */
  if (c->nconstraints) {
    FGProblem P;
    PetscInt  nc, nf;
    PetscCall(FGProblemCreate(comm, c, 0, NULL, &P));
    PetscCall(FGProblemCheckRows(P, A.p, fd_step, fd_rtol, &nc, &nf));
    PetscCall(FGProblemDestroy(&P));
    nchecks += nc, nfail += nf;
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(FGAdjointAppDestroy_Internal(&A));
  PetscCall(PetscPrintf(comm, "\nflowgrad check: %" PetscInt_FMT " checks, %" PetscInt_FMT " failed\n", nchecks, nfail));
  PetscCheck(!nfail, comm, FG_ERR_NUMERIC, "flowgrad check: %" PetscInt_FMT " of %" PetscInt_FMT " checks failed", nfail, nchecks);
  PetscFunctionReturn(PETSC_SUCCESS);
}
