/*
  Rank independence of the body forces (issue 4): every case runs twice in one MPI job, first on
  PETSC_COMM_SELF by rank 0 alone, then on PETSC_COMM_WORLD, and after every step the penalty
  force, moment and control-volume force of every body must agree:

      max_steps |F_np - F_1| / max_steps |F_1| <= -tol (1e-12)     per body, per component

  relative to the largest force (moments: force times ref_length; cv forces: the largest cv
  force) of that body over the steps, so that a component that vanishes by symmetry is not
  measured against its own round-off; every body must feel a nonzero force.

  and at the end u, v[, w], p as in tests/forward/test_forward_ranks.c. Cases:
    cylinder  2D cylinder in a channel (inflow, outflow, slip walls), rotating, with two surface
              jets and a body-force actuator in its wake
    pitching  2D NACA 2412 at 6 degrees that heaves (oscillation: its mask is rebuilt every stage)
              next to a fixed ellipse (two bodies, one moving)
    sphere    3D sphere in a duct (inflow, outflow, slip walls)
  Registered at np = 2 and 4.
*/
#include "../forward/forward_test.h"

static const char help[] = "Body forces: the same on any number of ranks.\n";

typedef struct {
  const char *name;
  const char *yaml;
} BodyCase;

static const BodyCase cases[] = {
  {"cylinder", "grid: {cells: [96, 64], lengths: [12, 8]}\n"
               "flow: {re: 100}\n"
               "time: {dt: 0.02, steps: 60}\n"
               "initial: {type: uniform, velocity: [1, 0]}\n"
               "boundary: {x_lo: {type: inflow, velocity: [1, 0]}, x_hi: {type: outflow}, y_lo: {type: slip}, y_hi: {type: slip}}\n"
               "body: {cyl: {shape: circle, position: [4, 4.1], radius: 0.5, rotation_rate: 0.5,\n"
               "             jet_angles: [90, 270], jet_amplitude: [0.2, -0.1], jet_frequency: 1}}\n"
               "actuator: {push: {center: [6, 4.3], radius: 0.4, force: [0, 0.5], frequency: 0.7}}\n"},
  {"pitching", "grid: {cells: [96, 64], lengths: [6, 4]}\n"
               "flow: {re: 200}\n"
               "time: {dt: 0.01, steps: 40}\n"
               "initial: {type: uniform, velocity: [1, 0]}\n"
               "boundary: {x_lo: {type: inflow, velocity: [1, 0]}, x_hi: {type: outflow}, y_lo: {type: slip}, y_hi: {type: slip}}\n"
               "body: {wing: {shape: naca, naca: \"2412\", position: [1.5, 2], angle: 6, oscillation_amplitude: [0, 0.1], oscillation_frequency: 2},\n"
               "       rock: {shape: ellipse, position: [4.2, 1.7], semi_axes: [0.3, 0.15], angle: 20}}\n"},
  {"sphere", "grid: {cells: [32, 24, 24], lengths: [4, 3, 3]}\n"
             "flow: {re: 50}\n"
             "time: {dt: 0.03, steps: 30}\n"
             "initial: {type: uniform, velocity: [1, 0, 0]}\n"
             "boundary: {x_lo: {type: inflow, velocity: [1, 0, 0]}, x_hi: {type: outflow}, y_lo: {type: slip}, y_hi: {type: slip}, z_lo: {type: slip}, z_hi: {type: slip}}\n"
             "body: {ball: {shape: sphere, position: [1.3, 1.5, 1.45], radius: 0.5}}\n"},
};

#define NQ 9 /* per body and step: force[3], moment[3], cv_force[3] */

/* Run the case on comm, recording the forces of every body after every step (hist[step][body][NQ]). */
static PetscErrorCode RunOn(MPI_Comm comm, FGCase *c, PetscReal *hist, FGSolver *s)
{
  PetscFunctionBeginUser;
  PetscCall(FGSolverCreate(comm, c, s));
  PetscCall(FGSolverSetInitialCondition(*s));
  for (PetscInt k = 0; k < c->time.steps; k++) {
    PetscCall(FGSolverControlVolumeBegin(*s)); /* the control-volume cross-check around the step */
    PetscCall(FGStepForward_RK3(*s, NULL));
    PetscCall(FGSolverControlVolumeEnd(*s));
    for (PetscInt b = 0; b < c->nbodies; b++) {
      FGBodyForces f;
      PetscReal   *h = hist + (k * c->nbodies + b) * NQ;
      PetscCall(FGBodiesGetForces((*s)->bodies, b, &f));
      for (PetscInt d = 0; d < 3; d++) h[d] = f.force[d], h[3 + d] = f.moment[d], h[6 + d] = f.cv_force[d];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunAll(void)
{
  PetscMPIInt rank, size;
  PetscReal   tol = 1e-12;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d ranks against 1: body forces after every step, bound %.0e\n", (int)size, (double)tol));
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    FGCase    *c;
    FGSolver   sw, ss = NULL;
    PetscReal *hw, *hs, worst = 0, fields = 0;
    PetscInt   n;
    char       name[64];

    PetscCall(PetscSNPrintf(name, sizeof(name), "%s.yaml", cases[i].name));
    PetscCall(FGTestCaseLoad(PETSC_COMM_WORLD, name, &c, "name: %s\n%s", cases[i].name, cases[i].yaml));
    n = c->time.steps * c->nbodies * NQ;
    PetscCall(PetscCalloc2(n, &hw, n, &hs));
    if (rank == 0) PetscCall(RunOn(PETSC_COMM_SELF, c, hs, &ss));
    PetscCall(FGTestIdleBarrier(PETSC_COMM_WORLD));
    PetscCall(RunOn(PETSC_COMM_WORLD, c, hw, &sw));
    PetscCallMPI(MPI_Bcast(hs, (PetscMPIInt)n, MPIU_REAL, 0, PETSC_COMM_WORLD));
    for (PetscInt b = 0; b < c->nbodies; b++) {
      PetscReal rel[NQ], scale[3] = {0, 0, 0};
      /* scales: max |F| (forces), max |F| ref_length (moments), max |F_cv| (cv forces) over the steps */
      for (PetscInt k = 0; k < c->time.steps; k++)
        for (PetscInt g = 0; g < 3; g++) {
          const PetscReal *h = hs + (k * c->nbodies + b) * NQ + (g == 1 ? 0 : 3 * g);
          scale[g]           = PetscMax(scale[g], PetscSqrtReal(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]) * (g == 1 ? c->body[b].ref_length : 1.0));
        }
      FGTestCheck(scale[0] > 0 && scale[2] > 0, "%s: body %s feels no force", cases[i].name, c->body[b].name);
      for (PetscInt q = 0; q < NQ; q++) {
        PetscReal dmax = 0;
        for (PetscInt k = 0; k < c->time.steps; k++) {
          PetscInt o = (k * c->nbodies + b) * NQ + q;
          dmax       = PetscMax(dmax, PetscAbsReal(hw[o] - hs[o]));
          if (PetscIsInfOrNanReal(hw[o]) || PetscIsInfOrNanReal(hs[o])) dmax = (PetscReal)INFINITY;
        }
        rel[q] = scale[q / 3] > 0 ? dmax / scale[q / 3] : dmax;
        worst  = PetscMax(worst, rel[q]);
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-9s %-5s force %.1e %.1e %.1e  moment %.1e %.1e %.1e  cv force %.1e %.1e %.1e  (last Cd %.4f)\n", cases[i].name, c->body[b].name, (double)rel[0], (double)rel[1], (double)rel[2], (double)rel[3], (double)rel[4], (double)rel[5], (double)rel[6], (double)rel[7], (double)rel[8],
                            (double)(hs[((c->time.steps - 1) * c->nbodies + b) * NQ] / (0.5 * c->body[b].ref_speed * c->body[b].ref_speed * c->body[b].ref_area))));
    }
    for (PetscInt a = 0; a <= sw->grid->dim; a++) {
      PetscReal r;
      PetscCall(FGTestCompareField(sw, a < sw->grid->dim ? sw->u[a] : sw->p, ss ? (a < ss->grid->dim ? ss->u[a] : ss->p) : NULL, &r));
      fields = PetscMax(fields, r);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-9s fields max|x_np - x_1|/max|x_1| %.1e\n", cases[i].name, (double)fields));
    FGTestCheck(worst <= tol, "%s: the body forces on %d ranks differ from the 1-rank ones by %.3e > %.0e", cases[i].name, (int)size, (double)worst, (double)tol);
    FGTestCheck(fields <= tol, "%s: the fields on %d ranks differ from the 1-rank ones by %.3e > %.0e", cases[i].name, (int)size, (double)fields, (double)tol);
    PetscCall(FGSolverDestroy(&sw));
    PetscCall(FGSolverDestroy(&ss));
    PetscCall(PetscFree2(hw, hs));
    PetscCall(PetscFree(c));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscErrorCode ierr;

  if (FGInitialize(&argc, &argv, help)) return 1;
  ierr = RunAll();
  if (!ierr) ierr = PetscPrintf(PETSC_COMM_WORLD, "%s\n", fg_test_failures ? "FAILED" : "all checks passed");
  return FGTestExit(ierr);
}
