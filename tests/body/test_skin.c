/*
  The soft skin's calibration (src/body/skin.c, FGBodySkinOffset):

  1. The band centre it finds agrees with an independent implementation of the same
     one-dimensional model (a Python script of the issue 21 design study, its own profiles and
     solver; values in cells): B-spline band of width 4 at K = 0.75 -0.448, at K = 1 -0.758,
     width 4.5 at K = 0.75 -0.37; quintic band of width 6 at K = 1 -0.189 (to 0.005 cells).
  2. The stiff core, 4 cells below the band's centre, does not move it: Qc = 500 and 5e4 agree to
     1e-3 cells (the flow has died out before it reaches the core).
  3. The ripple left on a grid-aligned surface: below 0.004 cells for those soft skins, and above
     0.1 cells for a stiff band (K = 0.045, today's default penalization of the confined cylinder:
     the staircase the soft skin removes).
*/
#include <fg/body.h>

static PetscInt fails = 0;

static PetscErrorCode Expect_Private(PetscBool ok, const char *what)
{
  PetscFunctionBeginUser;
  if (!ok) fails++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: %s\n", ok ? "ok" : "FAILED", what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const struct {
    PetscBool bspline;
    PetscReal width, K, ref;
  } c[] = {{PETSC_TRUE, 4, 0.75, -0.448}, {PETSC_TRUE, 4, 1.0, -0.758}, {PETSC_TRUE, 4.5, 0.75, -0.37}, {PETSC_FALSE, 6, 1.0, -0.189}};
  char msg[256];

  PetscCall(FGInitialize(&argc, &argv, NULL));
  for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
    PetscReal off, rip, off2;
    PetscCall(FGBodySkinOffset(c[i].bspline, c[i].width, c[i].K, 4, 500, &off, &rip));
    PetscCall(FGBodySkinOffset(c[i].bspline, c[i].width, c[i].K, 4, 5e4, &off2, NULL));
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s width %g, K %g: centre %.4f cells (reference %.3f)", c[i].bspline ? "bspline" : "quintic", (double)c[i].width, (double)c[i].K, (double)off, (double)c[i].ref));
    PetscCall(Expect_Private((PetscBool)(PetscAbsReal(off - c[i].ref) <= 0.005), msg));
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "  the core's stiffness: Qc 500 -> 5e4 moves it by %.1e cells", (double)PetscAbsReal(off2 - off)));
    PetscCall(Expect_Private((PetscBool)(PetscAbsReal(off2 - off) <= 1e-3), msg));
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "  ripple %.1e cells (<= 4e-3)", (double)rip));
    PetscCall(Expect_Private((PetscBool)(rip <= 4e-3), msg));
  }
  {
    PetscReal off, rip;
    PetscCall(FGBodySkinOffset(PETSC_FALSE, 2, 0.045, 4, 500, &off, &rip));
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "stiff quintic band of width 2 (K 0.045): ripple %.2f cells (> 0.1: a staircase)", (double)rip));
    PetscCall(Expect_Private((PetscBool)(rip > 0.1), msg));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failures\n", fails ? "FAIL" : "PASS", fails));
  PetscCall(FGFinalize());
  return fails ? 1 : 0;
}
