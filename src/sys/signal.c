/*
  Stop requests: SIGUSR1 and SIGTERM (SLURM preemption, `#SBATCH --signal=USR1@T`, the time limit,
  `scancel`) ask a run to stop cleanly at the next step boundary.

  The handler only stores the signal number in a `volatile sig_atomic_t` (async-signal safe; no
  I/O, no MPI, no allocation). The time loop calls FGSignalAgree() once per step: one
  MPI_Allreduce(MAX) of the stored numbers, so every rank sees the request at the same step even
  when only one rank (or only the launcher's child on one node) got the signal. The loop then
  writes a checkpoint and stops with FG_ERR_SIGNAL (exit code 75) on every rank.

  In flowgrad (src/main.c) the handlers are in place from the process's start to its exit: they
  go on before MPI_Init (which takes a while; a request then waits for the first step) and again
  after PetscInitialize (PETSc's own handler prints a traceback and aborts); nothing takes them away
  before the process ends, so a request after the last checkpoint only goes unanswered (exit 0).
  A command that has no step to stop at (info, check, a steady adjoint) calls FGSignalSetExit():
  a request then ends the process at once, after one line on rank 0, by the signal itself (the
  shell's 128 + N), and one that came during the start does so there. FGSignalRestore() gives
  the signals back to the handlers they had (for a program that links the library). Other signals
  keep PETSc's handling.
*/
#define _POSIX_C_SOURCE 200809L /* sigaction under -std=c11 */
#include <fg/sys.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t fg_signal_caught = 0;
static volatile sig_atomic_t fg_signal_exit   = 0; /* FGSignalSetExit: end the process on a request */
static char                  fg_signal_line[2][256]; /* its message, per signal (written on rank 0 only) */
static size_t                fg_signal_len[2];
static const int             fg_signals[]     = {SIGUSR1, SIGTERM};
#define FG_NSIGNALS ((int)(sizeof(fg_signals) / sizeof(fg_signals[0])))
static struct sigaction fg_signal_old[FG_NSIGNALS];
static PetscBool        fg_signal_saved = PETSC_FALSE; /* fg_signal_old holds the handlers from before the first install */

/* A request: remember it; in exit mode, say so (one write, async-signal safe) and end by it. */
static void FGSignalHandler_Private(int signo)
{
  fg_signal_caught = (sig_atomic_t)signo;
  if (fg_signal_exit) {
    const int i = signo == SIGTERM;
    if (fg_signal_len[i]) (void)!write(STDERR_FILENO, fg_signal_line[i], fg_signal_len[i]);
    (void)signal(signo, SIG_DFL);
    (void)raise(signo);
  }
}

/*@C
  FGSignalCatch - put the stop-request handler on SIGUSR1 and SIGTERM; plain C, usable before MPI
  and PETSc start. Returns 0, or an errno value. A request caught before stays pending. The
  handlers found at the first call are kept for FGSignalRestore().
@*/
int FGSignalCatch(void)
{
  struct sigaction sa;

  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = FGSignalHandler_Private;
  sa.sa_flags   = SA_RESTART; /* system calls interrupted by a request are restarted */
  if (sigemptyset(&sa.sa_mask)) return errno;
  for (int i = 0; i < FG_NSIGNALS; i++)
    if (sigaction(fg_signals[i], &sa, fg_signal_saved ? NULL : &fg_signal_old[i])) return errno;
  fg_signal_saved = PETSC_TRUE;
  return 0;
}

/*@C
  FGSignalInstall - catch SIGUSR1 and SIGTERM as stop requests (FGSignalAgree sees them).

  Not collective (every rank calls it).

  Notes:
  A request caught before (during the start) stays pending: the time loop stops at its first step.
  Calling it again is harmless; it leaves exit mode (FGSignalSetExit).

.seealso: FGSignalAgree(), FGSignalRestore(), FGSignalSetExit()
@*/
PetscErrorCode FGSignalInstall(void)
{
  int err;

  PetscFunctionBeginUser;
  fg_signal_exit = 0;
  err            = FGSignalCatch();
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_SYS, "cannot install a handler for SIGUSR1/SIGTERM: %s", strerror(err));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSignalSetExit - for a command that cannot stop and resume: from now on SIGUSR1 or SIGTERM
  ends the process at once by that signal, after one line on rank 0 of PETSC_COMM_WORLD
  ("flowgrad: error: stopped by SIGTERM: <why>"); one that came before ends it here.

  Not collective (every rank calls it).

  Input Parameter:
. why - what the user should know, e.g. "flowgrad check keeps no checkpoint; run it again"
@*/
PetscErrorCode FGSignalSetExit(const char *why)
{
  PetscMPIInt rank;
  int         err;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  for (int i = 0; i < 2; i++) {
    fg_signal_len[i] = 0;
    if (rank == 0) {
      int n = snprintf(fg_signal_line[i], sizeof(fg_signal_line[i]), "flowgrad: error: stopped by %s: %s\n", i ? "SIGTERM" : "SIGUSR1", why);
      fg_signal_len[i] = n < 0 ? 0 : PetscMin((size_t)n, sizeof(fg_signal_line[i]) - 1);
    }
  }
  err = FGSignalCatch();
  PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_SYS, "cannot install a handler for SIGUSR1/SIGTERM: %s", strerror(err));
  fg_signal_exit = 1;
  if (fg_signal_caught) FGSignalHandler_Private((int)fg_signal_caught); /* it came during the start */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSignalRestore - give SIGUSR1 and SIGTERM back to the handlers they had before the first
  FGSignalCatch()/FGSignalInstall(), and forget a pending request.

  Not collective.
@*/
PetscErrorCode FGSignalRestore(void)
{
  PetscFunctionBeginUser;
  fg_signal_exit = 0;
  if (!fg_signal_saved) PetscFunctionReturn(PETSC_SUCCESS);
  for (int i = 0; i < FG_NSIGNALS; i++) PetscCheck(sigaction(fg_signals[i], &fg_signal_old[i], NULL) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "cannot restore the handler of %s: %s", FGSignalName(fg_signals[i]), strerror(errno));
  fg_signal_saved  = PETSC_FALSE;
  fg_signal_caught = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSignalAgree - whether any rank got a stop request: one MPI_Allreduce(MAX).

  Collective.

  Input Parameter:
. comm - the communicator of the run

  Output Parameter:
. signo - 0 when no rank got SIGUSR1 or SIGTERM, else the (largest) signal number, the same on
          every rank

.seealso: FGSignalInstall(), FGSignalName()
@*/
PetscErrorCode FGSignalAgree(MPI_Comm comm, int *signo)
{
  int mine = (int)fg_signal_caught;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&mine, signo, 1, MPI_INT, MPI_MAX, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSignalRaise - raise a signal in this process (the test hook -fg_test_raise_signal_at_step).

  Not collective.
@*/
PetscErrorCode FGSignalRaise(int signo)
{
  PetscFunctionBeginUser;
  PetscCheck(raise(signo) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "raise(%s) failed", FGSignalName(signo));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "SIGUSR1", "SIGTERM", or "signal N". */
const char *FGSignalName(int signo)
{
  static char buf[32];
  if (signo == SIGUSR1) return "SIGUSR1";
  if (signo == SIGTERM) return "SIGTERM";
  snprintf(buf, sizeof(buf), "signal %d", signo);
  return buf;
}
