/* Scaffolding shared by the C test programs: a failure counter, FGTestCheck() and the exit
   status. Header-only (static inline); include <flowgrad.h> first. */
#ifndef FG_TEST_H
#define FG_TEST_H

#include <flowgrad.h>

static int fg_test_failures = 0;

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
