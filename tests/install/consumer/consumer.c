/*
  A program outside flowgrad built against an installed libflowgrad (tests/install/check_install.sh
  builds it once through find_package(flowgrad) and once through pkg-config). It loads a case,
  evaluates the case's objective J and its gradient dJ/dp at the case's design p with the
  library's optimization problem (FGProblem: the forward run and the adjoint), and prints

    version <FGVersion()>
    J <J>
    <name> <value> <dJ/dname>       (one line per design scalar)

  for the test to compare with `flowgrad adjoint` on the same case.

    mpiexec -n N consumer CASE.yaml OUTPUT_DIR [PETSc options]
*/
#include <flowgrad.h>
#include <fg/optim.h>

static PetscErrorCode Evaluate(const char *file, const char *outdir)
{
  MPI_Comm    comm = PETSC_COMM_WORLD;
  char        set[PETSC_MAX_PATH_LEN + 16];
  const char *sets[1] = {set};
  FGCase     *c;
  FGProblem   P;
  FGDesign    d;
  FGEval      e;
  Vec         p;
  PetscInt    n;
  PetscReal  *v;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(set, sizeof(set), "output.dir=%s", outdir));
  PetscCall(PetscNew(&c));
  PetscCall(FGCaseLoad(comm, file, 1, sets, c));
  PetscCall(FGCasePrepareOutput(comm, c));
  PetscCall(FGProblemCreate(comm, c, 1, sets, &P));
  PetscCall(FGProblemGetDesign(P, &d));
  PetscCall(FGProblemCreateVec(P, &p));
  PetscCall(FGDesignGetValues(d, p));
  PetscCall(FGProblemEvalCreate(P, &e));
  PetscCall(FGProblemEvaluate(P, p, PETSC_TRUE, &e));

  PetscCall(PetscPrintf(comm, "version %s\nJ %.17g\n", FGVersion(), (double)e.J));
  {
    PetscReal *pv, *gv;
    PetscInt   ng;
    PetscCall(FGDesignGetScalars(d, p, &n, &v)); /* a pointer into the design: copied */
    PetscCall(PetscMalloc1(n, &pv));
    PetscCall(PetscArraycpy(pv, v, n));
    PetscCall(FGDesignGetScalars(d, e.g, &ng, &gv));
    PetscCheck(ng == n, comm, PETSC_ERR_PLIB, "%" PetscInt_FMT " design values, %" PetscInt_FMT " gradient entries", n, ng);
    for (PetscInt i = 0; i < n; i++) {
      char name[256];
      PetscCall(FGDesignScalarName(d, i, name, sizeof(name)));
      PetscCall(PetscPrintf(comm, "%s %.17g %.17g\n", name, (double)pv[i], (double)gv[i]));
    }
    PetscCall(PetscFree(pv));
  }
  PetscCall(VecDestroy(&p));
  PetscCall(FGProblemEvalDestroy(P, &e));
  PetscCall(FGProblemDestroy(&P));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;
  int            code = 0;

  if (argc < 3) {
    fprintf(stderr, "usage: consumer CASE.yaml OUTPUT_DIR [PETSc options]\n");
    return 2;
  }
  ierr = FGInitialize(&argc, &argv, NULL); /* PetscInitialize with flowgrad's error handling */
  if (ierr) return 1;
  ierr = Evaluate(argv[1], argv[2]);
  if (ierr) (void)FGErrorReport(ierr, &code); /* one message, the documented exit code */
  if (FGFinalize()) code = code ? code : 1;
  return code;
}
