/*
  flowgrad system layer.

  Errors. Every flowgrad function returns a PetscErrorCode. flowgrad replaces PETSc's traceback
  printer with a handler that records the *first* error (its code, message, origin and the
  communicator it was raised on) and lets the code unwind. main() then turns it into one clear
  message and an exit code (FGErrorReport):

    - an error raised on a communicator that spans every rank (PetscCheck(..., PETSC_COMM_WORLD,
      ...) on all ranks alike, as input validation and reduced health checks do) is printed once
      by rank 0; every rank finalizes and exits with the code;
    - an error raised on one rank only (PETSC_COMM_SELF) is printed by that rank with its number
      and the job is ended with MPI_Abort(exit code), since the other ranks may be waiting in a
      collective call.
*/
#define _POSIX_C_SOURCE 200809L /* setenv under -std=c11 */
#include <fg/sys.h>
#include <fftw3-mpi.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
  PetscBool      set;
  PetscErrorCode code;
  PetscBool      collective;
  int            line;
  char           func[128];
  char           file[256];
  char           message[4096];
} FGErrorRecord;

static FGErrorRecord fg_error;

/* PETSc's parsing of an option's value (PetscOptionsStringToReal/Int/Bool/Scalar: "-poisson_ksp_rtol
   foo"): a usage error, and the same on every rank, since every rank reads the same options */
static PetscBool FGErrorIsOptionValue_Private(const char *func)
{
  return (PetscBool)(func && !strncmp(func, "PetscOptionsStringTo", 20));
}

static PetscErrorCode FGErrorHandler_Private(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  if (p == PETSC_ERROR_INITIAL && !fg_error.set) {
    PetscMPIInt csize = 1, wsize = 1;
    fg_error.set  = PETSC_TRUE;
    fg_error.code = n;
    fg_error.line = line;
    if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &csize);
    MPI_Comm_size(PETSC_COMM_WORLD, &wsize);
    /* collective: raised on a communicator that spans every rank *and* of one of flowgrad's error
       classes, which flowgrad raises on all ranks alike (validation, reduced health checks);
       anything else (an unexpected library failure) may be on some ranks only: abort */
    fg_error.collective = (PetscBool)((csize == wsize && FGExitCode(n) != FG_EXIT_INTERNAL) || FGErrorIsOptionValue_Private(func));
    snprintf(fg_error.func, sizeof(fg_error.func), "%s", func ? func : "?");
    snprintf(fg_error.file, sizeof(fg_error.file), "%s", file ? file : "?");
    if (mess && mess[0]) snprintf(fg_error.message, sizeof(fg_error.message), "%s", mess);
    else {
      const char *text = NULL;
      PetscErrorMessage(n, &text, NULL);
      snprintf(fg_error.message, sizeof(fg_error.message), "%s", text ? text : "unknown error");
    }
  }
  return n;
}

/*@C
  FGErrorTake - the error flowgrad's handler recorded (the first one raised since the last take),
  taken back: a caller that goes on after it (flowgrad optimize after a trial design's flow blew
  up) gets its message, and a later error is recorded and reported as the first. Not collective.

  Output Parameters:
+ msg - its message (len bytes at most; "" where none was recorded)
- len - the size of msg
@*/
void FGErrorTake(char *msg, size_t len)
{
  if (len) snprintf(msg, len, "%s", fg_error.set ? fg_error.message : "");
  memset(&fg_error, 0, sizeof(fg_error));
}

/* Error capture: a handler that keeps the first error's message, for callers that turn a
   local (PETSC_COMM_SELF) error into a collective one with context (FGErrorCapturePush). */
typedef struct {
  char  *buf;
  size_t len;
} FGErrorCapture;

static FGErrorCapture fg_capture;

static PetscErrorCode FGErrorCaptureHandler_Private(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  FGErrorCapture *c = (FGErrorCapture *)ctx;
  if (p == PETSC_ERROR_INITIAL && c->buf && !c->buf[0]) snprintf(c->buf, c->len, "%s", mess && mess[0] ? mess : "unknown error");
  return n;
}

/*@C
  FGErrorCapturePush - Until FGErrorCapturePop(), errors are not reported but return their code,
  and the first one's message is copied to buf (emptied here). Not nested.

  Usage:
    FGErrorCapturePush(msg, sizeof(msg)); ierr = Something(); FGErrorCapturePop();
    PetscCheck(!ierr, comm, FG_ERR_INPUT, "%s: %s", where, msg);
@*/
PetscErrorCode FGErrorCapturePush(char *buf, size_t len)
{
  PetscFunctionBeginUser;
  buf[0]         = '\0';
  fg_capture.buf = buf;
  fg_capture.len = len;
  PetscCall(PetscPushErrorHandler(FGErrorCaptureHandler_Private, &fg_capture));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGErrorCapturePop(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPopErrorHandler());
  fg_capture.buf = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's own errors in PetscInitialize and PetscFinalize (a bad option value, a -log_view file
   that cannot be opened) come before flowgrad's handler is on, or after it is off, and PETSc
   prints them as a traceback through PetscErrorPrintf. Around those two calls that printer keeps
   the error's text instead (the lines between the traceback's "Error Message" rule and its "See
   https://petsc.org" line, joined), for one line of flowgrad's (FGInitializeMessage). */
static char fg_startup_msg[1024];
static int  fg_startup_state; /* 0: before the message, 1: in it, 2: after it */

static PetscErrorCode FGStartupErrorPrintf_Private(const char format[], ...)
{
  char    line[1024];
  size_t  n, have;
  va_list ap;

  va_start(ap, format);
  (void)vsnprintf(line, sizeof(line), format, ap);
  va_end(ap);
  n = strlen(line);
  while (n && (line[n - 1] == '\n' || line[n - 1] == ' ')) line[--n] = '\0';
  if (strstr(line, "Error Message")) fg_startup_state = fg_startup_state ? fg_startup_state : 1;
  else if (fg_startup_state == 1 && (!strncmp(line, "See ", 4) || strstr(line, "petsc.org"))) fg_startup_state = 2;
  else if (fg_startup_state == 1 && n) {
    have = strlen(fg_startup_msg);
    (void)snprintf(fg_startup_msg + have, sizeof(fg_startup_msg) - have, "%s%s", have ? ": " : "", line);
  }
  return PETSC_SUCCESS;
}

static void FGStartupCapture_Private(PetscBool on)
{
  static PetscErrorCode (*saved)(const char[], ...) = NULL;
  if (on) {
    fg_startup_msg[0] = '\0', fg_startup_state = 0;
    saved             = PetscErrorPrintf;
    PetscErrorPrintf  = FGStartupErrorPrintf_Private;
  } else if (saved) PetscErrorPrintf = saved, saved = NULL;
}

/*@C
  FGInitializeMessage - the text of the error that made FGInitialize or FGFinalize fail ("" if
  none): PETSc's own error in PetscInitialize or PetscFinalize, which it did not print.
@*/
const char *FGInitializeMessage(void)
{
  return fg_startup_msg;
}

/*@C
  FGInitialize - PetscInitialize, FFTW-MPI, and flowgrad's error handler.

  Notes:
  An error in PetscInitialize (a bad value of one of PETSc's start-up options) is not printed:
  FGInitializeMessage() has its text.

  With Open MPI, the shared-file-pointer component "lockedfile" is left out (OMPI_MCA_sharedfp
  = ^lockedfile, unless the environment sets it): its selection, made at every MPI_File_open
  (HDF5 opens each file so), formats the file's directory into a 256-byte buffer and aborts the
  process ("buffer overflow detected") for a path of 204 characters or more (Open MPI 4.1.4,
  Debian 12). flowgrad uses no shared file pointer; the other components remain.
@*/
PetscErrorCode FGInitialize(int *argc, char ***argv, const char *help)
{
  PetscErrorCode ierr;

#if defined(OPEN_MPI) && OPEN_MPI
  (void)setenv("OMPI_MCA_sharedfp", "^lockedfile", 0); /* long paths: see above */
#endif
  FGStartupCapture_Private(PETSC_TRUE);
  ierr = PetscInitialize(argc, argv, NULL, help);
  FGStartupCapture_Private(PETSC_FALSE);
  if (ierr) return ierr;
  PetscFunctionBeginUser;
  fftw_mpi_init();
  memset(&fg_error, 0, sizeof(fg_error));
  PetscCall(PetscPushErrorHandler(FGErrorHandler_Private, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGFinalize - the end of FGInitialize. An error in PetscFinalize (a -log_view file that cannot
  be written) is not printed: FGInitializeMessage() has its text.
@*/
PetscErrorCode FGFinalize(void)
{
  PetscErrorCode ierr;

  fftw_mpi_cleanup();
  ierr = PetscPopErrorHandler();
  if (ierr) return ierr;
  FGStartupCapture_Private(PETSC_TRUE);
  ierr = PetscFinalize();
  FGStartupCapture_Private(PETSC_FALSE);
  return ierr;
}

/*@C
  FGExitCode - the process exit code of an error class (see fg/sys.h)
@*/
int FGExitCode(PetscErrorCode ierr)
{
  switch (ierr) {
  case PETSC_SUCCESS:
    return FG_EXIT_OK;
  case PETSC_ERR_USER_INPUT:
  case PETSC_ERR_ARG_UNKNOWN_TYPE: /* -poisson_ksp_type foo, -poisson_pc_type bar */
    return FG_EXIT_INPUT;
  case PETSC_ERR_NOT_CONVERGED:
  case PETSC_ERR_CONV_FAILED:
  case PETSC_ERR_FP:
    return FG_EXIT_NUMERICAL;
  case PETSC_ERR_FILE_OPEN:
  case PETSC_ERR_FILE_READ:
  case PETSC_ERR_FILE_WRITE:
  case PETSC_ERR_FILE_UNEXPECTED:
    return FG_EXIT_IO;
  case PETSC_ERR_SIG:
    return FG_EXIT_REQUEUE;
  default:
    return FG_EXIT_INTERNAL;
  }
}

const char *FGExitCodeName(int code)
{
  switch (code) {
  case FG_EXIT_OK:
    return "success";
  case FG_EXIT_INPUT:
    return "bad input";
  case FG_EXIT_NUMERICAL:
    return "numerical failure";
  case FG_EXIT_IO:
    return "I/O failure";
  case FG_EXIT_REQUEUE:
    return "stopped on a signal, requeue";
  default:
    return "internal error";
  }
}

/*@C
  FGEscapeLine - text as one line: a newline, carriage return or other control character (from a
  path or a --set value quoted in a message) written as \n, \r or \xNN. Not collective.
@*/
void FGEscapeLine(const char *in, char *out, size_t len)
{
  size_t o = 0;

  if (!len) return;
  for (const unsigned char *p = (const unsigned char *)in; *p && o + 5 < len; p++) {
    if (*p == '\n') out[o++] = '\\', out[o++] = 'n';
    else if (*p == '\r') out[o++] = '\\', out[o++] = 'r';
    else if (*p < 0x20 || *p == 0x7f) o += (size_t)snprintf(out + o, len - o, "\\x%02x", *p);
    else out[o++] = (char)*p;
  }
  out[o] = '\0';
}

/*@C
  FGErrorReport - print the recorded error once and give the exit code.

  Returns PETSC_SUCCESS when the error was collective (every rank should now finalize and exit
  with *code); for an error on one rank only it prints it and calls MPI_Abort (does not return).
@*/
PetscErrorCode FGErrorReport(PetscErrorCode ierr, int *code)
{
  PetscMPIInt rank = 0, size = 1;
  static char what[sizeof(fg_error.message)];

  const PetscBool optval = (PetscBool)(fg_error.set && FGErrorIsOptionValue_Private(fg_error.func));

  *code = optval ? FG_EXIT_INPUT : FGExitCode(fg_error.set ? fg_error.code : ierr);
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  FGEscapeLine(fg_error.set ? fg_error.message : "unknown error", what, sizeof(what)); /* one line, always */
  if (fg_error.set && (fg_error.code == PETSC_ERR_ARG_UNKNOWN_TYPE || optval) && what[0] != '-') { /* "Unable to find requested KSP type bogus", "Input string foo has no numeric value": which option */
    char opt[512] = "";
    if (!FGOptionsFindQuoted(fg_error.message, opt, sizeof(opt)) && opt[0]) {
      const size_t lo = strlen(opt), lw = strlen(what);
      if (lo + 2 + lw < sizeof(what)) { /* "-opt value: " before the message */
        memmove(what + lo + 2, what, lw + 1);
        memcpy(what, opt, lo);
        what[lo] = ':', what[lo + 1] = ' ';
      }
    }
  }
  if (*code == FG_EXIT_REQUEUE && fg_error.set && (fg_error.collective || size == 1)) {
    /* a stop on SIGUSR1/SIGTERM with a checkpoint written is not a failure: a notice, once */
    if (rank == 0) {
      fprintf(stderr, "flowgrad: %s\n", what);
      fflush(stderr);
    }
    return PETSC_SUCCESS;
  }
  if (!fg_error.set || fg_error.collective || size == 1) {
    if (rank == 0) {
      fprintf(stderr, "flowgrad: error: %s\n", what);
      if (*code == FG_EXIT_INTERNAL) fprintf(stderr, "flowgrad: (internal error %d in %s() at %s:%d)\n", (int)fg_error.code, fg_error.func, fg_error.file, fg_error.line);
      fflush(stderr);
    }
    return PETSC_SUCCESS;
  }
  fprintf(stderr, "flowgrad: error on rank %d: %s\n", rank, what);
  if (*code == FG_EXIT_INTERNAL) fprintf(stderr, "flowgrad: (internal error %d in %s() at %s:%d)\n", (int)fg_error.code, fg_error.func, fg_error.file, fg_error.line);
  fflush(stderr);
  MPI_Abort(PETSC_COMM_WORLD, *code);
  return PETSC_SUCCESS;
}

/*@C
  FGMakeDirectory - mkdir -p (not collective; call it on one rank). Errors are FG_ERR_INPUT:
  the output location comes from the case file or the command line.
@*/
PetscErrorCode FGMakeDirectory(const char *path)
{
  char   buf[PETSC_MAX_PATH_LEN];
  size_t len;

  PetscFunctionBeginUser;
  PetscCheck(path && path[0], PETSC_COMM_SELF, FG_ERR_INPUT, "empty directory name");
  len = strlen(path);
  PetscCheck(len < sizeof(buf), PETSC_COMM_SELF, FG_ERR_INPUT, "directory name too long: %s", path);
  memcpy(buf, path, len + 1);
  for (size_t i = 1; i <= len; i++) {
    if (buf[i] == '/' || buf[i] == '\0') {
      char        c = buf[i];
      struct stat st;
      buf[i] = '\0';
      if (stat(buf, &st) != 0) {
        PetscCheck(mkdir(buf, 0777) == 0 || errno == EEXIST, PETSC_COMM_SELF, FG_ERR_INPUT, "cannot create directory %s: %s", buf, strerror(errno));
      } else PetscCheck(S_ISDIR(st.st_mode), PETSC_COMM_SELF, FG_ERR_INPUT, "%s exists and is not a directory", buf);
      buf[i] = c;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGFileKind - what a file of this st_mode is, for a message: "a directory", "a FIFO", "a character
  device", "a block device", "a socket", "a symbolic link", "a regular file" or "a special file".
  Not collective.
@*/
const char *FGFileKind(unsigned mode)
{
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISREG(mode)) return "a regular file";
  return "a special file";
}

/*@C
  FGHashBytes - FNV-1a, 64 bits, of n bytes, continuing from h (start with FG_HASH_START). Not
  collective. For checksums of metadata, not for security.
@*/
unsigned long long FGHashBytes(unsigned long long h, const void *bytes, size_t n)
{
  const unsigned char *b = (const unsigned char *)bytes;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

/*@C
  FGOptionsCheckValue - after PetscOptionsInt/Real(name, ..., &set) in an options block: an option
  given without a value (which PETSc takes as not given) is FG_ERR_INPUT naming it. Not collective
  (the options are the same on every rank).
@*/
PetscErrorCode FGOptionsCheckValue(const char *name, PetscBool set)
{
  PetscBool has;

  PetscFunctionBeginUser;
  if (set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscOptionsHasName(NULL, NULL, name, &has));
  PetscCheck(!has, PETSC_COMM_SELF, FG_ERR_INPUT, "%s needs a value", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOptionsFindQuoted - the option whose value a message quotes (PETSc's "Input string abc has no
  integer value", "Unable to find requested KSP type bogus" name the value only): "-name value",
  or "" when no option's value appears in it. Not collective.
@*/
PetscErrorCode FGOptionsFindQuoted(const char *msg, char *opt, size_t len)
{
  char *all, *prev = NULL;

  PetscFunctionBeginUser;
  opt[0] = '\0';
  PetscCall(PetscOptionsGetAll(NULL, &all)); /* "-a 1 -b abc ..." */
  for (char *tok = all, *end; *tok; tok = end) {
    while (*tok == ' ') tok++;
    for (end = tok; *end && *end != ' '; end++) {}
    if (*end) *end++ = '\0';
    if (!*tok) break;
    if (prev && prev[0] == '-' && tok[0] != '-' && strstr(msg, tok)) {
      PetscCall(PetscSNPrintf(opt, len, "%s %s", prev, tok));
      break;
    }
    prev = tok;
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}
