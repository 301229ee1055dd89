/*
  Stop requests: SIGUSR1 and SIGTERM (SLURM preemption, `#SBATCH --signal=USR1@T`, the time limit,
  `scancel`) ask a run to stop cleanly at the next step boundary.

  The handler only stores the signal number in a `volatile sig_atomic_t` (async-signal safe; no
  I/O, no MPI, no allocation). The time loop calls FGSignalAgree() once per step: one
  MPI_Allreduce(MAX) of the stored numbers, so every rank sees the request at the same step even
  when only one rank (or only the launcher's child on one node) got the signal. The loop then
  writes a checkpoint and stops with FG_ERR_SIGNAL (exit code 75) on every rank.

  FGSignalInstall() replaces the handlers PETSc installed for these two signals (PETSc's handler
  prints a traceback and aborts) and FGSignalRestore() puts them back. Other signals keep PETSc's
  handling.
*/
#define _POSIX_C_SOURCE 200809L /* sigaction under -std=c11 */
#include <fg/sys.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t fg_signal_caught = 0;
static const int             fg_signals[]     = {SIGUSR1, SIGTERM};
#define FG_NSIGNALS ((int)(sizeof(fg_signals) / sizeof(fg_signals[0])))
static struct sigaction fg_signal_old[FG_NSIGNALS];
static PetscBool        fg_signal_installed = PETSC_FALSE;

static void FGSignalHandler_Private(int signo)
{
  fg_signal_caught = (sig_atomic_t)signo;
}

/*@C
  FGSignalInstall - catch SIGUSR1 and SIGTERM as stop requests.

  Not collective (every rank calls it).

  Notes:
  Clears any earlier request. Calling it twice is harmless. The handler is installed with
  SA_RESTART, so system calls interrupted by the signal are restarted.

.seealso: FGSignalAgree(), FGSignalRestore()
@*/
PetscErrorCode FGSignalInstall(void)
{
  struct sigaction sa;

  PetscFunctionBeginUser;
  fg_signal_caught = 0;
  if (fg_signal_installed) PetscFunctionReturn(PETSC_SUCCESS);
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = FGSignalHandler_Private;
  sa.sa_flags   = SA_RESTART;
  PetscCheck(sigemptyset(&sa.sa_mask) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "sigemptyset failed");
  for (int i = 0; i < FG_NSIGNALS; i++) PetscCheck(sigaction(fg_signals[i], &sa, &fg_signal_old[i]) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "cannot install a handler for %s: %s", FGSignalName(fg_signals[i]), strerror(errno));
  fg_signal_installed = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSignalRestore - give SIGUSR1 and SIGTERM back to the handlers they had before FGSignalInstall().

  Not collective.
@*/
PetscErrorCode FGSignalRestore(void)
{
  PetscFunctionBeginUser;
  if (!fg_signal_installed) PetscFunctionReturn(PETSC_SUCCESS);
  for (int i = 0; i < FG_NSIGNALS; i++) PetscCheck(sigaction(fg_signals[i], &fg_signal_old[i], NULL) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "cannot restore the handler of %s: %s", FGSignalName(fg_signals[i]), strerror(errno));
  fg_signal_installed = PETSC_FALSE;
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
