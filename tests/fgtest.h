/* Scaffolding shared by the C test programs: a failure counter, FGTestCheck() and the exit
   status. Header-only (static inline); include <flowgrad.h> first. */
#ifndef FG_TEST_H
#define FG_TEST_H

#include <flowgrad.h>
#include <stdio.h>

static PETSC_UNUSED int fg_test_failures = 0; /* PETSC_UNUSED: a file may use only the helpers */

/* Record (and print on rank 0) a failed assertion; the condition must be the same on every rank
   (reduced values only). */
#define FGTestCheck(cond, ...) \
  do { \
    if (!(cond)) { \
      fg_test_failures++; \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL (%s:%d): ", __FILE__, __LINE__)); \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, __VA_ARGS__)); \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n")); \
    } \
  } while (0)

/* Catching an error instead of reporting it: push FGTestCatchError with an FGTestCaught as its
   context (PetscPushErrorHandler), call, pop; the first error's code and message are kept. */
typedef struct {
  PetscErrorCode code;
  char           msg[4096];
} FGTestCaught;

static inline PetscErrorCode FGTestCatchError(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  FGTestCaught *c = (FGTestCaught *)ctx;
  (void)comm, (void)line, (void)func, (void)file;
  if (p == PETSC_ERROR_INITIAL && !c->code) {
    c->code = n;
    snprintf(c->msg, sizeof(c->msg), "%s", mess ? mess : "");
  }
  return n;
}

/* e = call (an expression giving a PetscErrorCode) with FGTestCatchError pushed on c (an
   FGTestCaught, zeroed by the caller); the handler is popped whatever the outcome. */
#define FGTestCatch(call, c, e) \
  do { \
    PetscCall(PetscPushErrorHandler(FGTestCatchError, (c))); \
    (e) = (call); \
    PetscCall(PetscPopErrorHandler()); \
  } while (0)

/* The exit status of a test: 0 when every check passed (the same on every rank). */
static inline int FGTestExit(PetscErrorCode ierr)
{
  int code = 0;
  if (ierr) {
    (void)FGErrorReport(ierr, &code);
    if (!code) code = 1;
  } else if (fg_test_failures) {
    code = 1;
  }
  if (FGFinalize()) code = code ? code : 1;
  return code;
}

#endif
