/*
  The bodies' box from the case's keys (FGCaseBodyBox, src/case/grid.c: what grid.stretch.<axis>
  type bodies puts its band around) holds each body's shape: for every body of the given cases
  (every 2D kind, a sphere and an extruded NACA 2412 in 3D) and every direction it bounds,
  lo_case <= lo_shape and hi_case >= hi_shape (FGShapeBoundingBox of the shape the run builds,
  to the 1e-3 it pads a box from boundary samples with; 1e-12 for circles, spheres and ellipses,
  where both are exact and must be equal), and not more than 60 % wider
  than the shape's box on any side (a box that holds everything is no band).

    test_body_box CASE.yaml [CASE.yaml ...]
*/
#include <fg/body.h>
#include <fg/case.h>

int main(int argc, char **argv)
{
  PetscInt fails = 0;

  PetscCall(FGInitialize(&argc, &argv, NULL));
  for (int f = 1; f < argc && argv[f][0] != '-'; f++) {
    FGCase    *c;
    FGGrid     g;
    FGBoundary bnd;
    FGBodies   B;
    PetscCall(PetscNew(&c));
    PetscCall(FGCaseLoad(PETSC_COMM_WORLD, argv[f], 0, NULL, c));
    PetscCall(FGGridCreateFromCase(PETSC_COMM_WORLD, c, &g));
    PetscCall(FGBoundaryFromCase(c, &bnd));
    PetscCall(FGBodiesCreate(g, &bnd, c, &B));
    for (PetscInt b = 0; b < c->nbodies; b++) {
      const FGBodyCase *bc    = &c->body[b];
      const PetscBool   exact = (PetscBool)(bc->shape == FG_BODY_CIRCLE || bc->shape == FG_BODY_SPHERE || bc->shape == FG_BODY_ELLIPSE || bc->shape == FG_BODY_ELLIPSOID);
      FGShape           s;
      PetscReal         slo[3], shi[3];
      PetscCall(FGBodiesGetShape(B, b, &s));
      PetscCall(FGShapeBoundingBox(s, slo, shi));
      for (PetscInt d = 0; d < c->grid.dim; d++) {
        PetscReal       lo, hi, ext, tol, wide;
        const PetscBool has = FGCaseBodyBox(bc, c->grid.dim, d, &lo, &hi);
        PetscBool       ok;
        if (!has) {
          ok = (PetscBool)(c->grid.dim == 3 && d == 2 && shi[2] > 1e300);
          PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-5s %-8s %c: no box (%s)\n", ok ? "ok" : "FAIL", bc->name, "xyz"[d], ok ? "an extrusion along z" : "but the shape is bounded"));
          fails += !ok;
          continue;
        }
        ext = shi[d] - slo[d];
        /* FGShapeBoundingBox widens a sampled shape's box by 1e-3 of its size: allow that much */
        tol  = exact ? 1e-12 * ext : 1.001e-3 * PetscMax(shi[0] - slo[0], shi[1] - slo[1]);
        wide = PetscMax(slo[d] - lo, hi - shi[d]) / ext;
        ok   = (PetscBool)(lo <= slo[d] + tol && hi >= shi[d] - tol && wide <= 0.6 && (!exact || (PetscAbsReal(lo - slo[d]) <= tol && PetscAbsReal(hi - shi[d]) <= tol)));
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-5s %-8s %c: case box [%.6g, %.6g], shape box [%.6g, %.6g], widest side %.3f of the extent%s\n", ok ? "ok" : "FAIL", bc->name, "xyz"[d], (double)lo, (double)hi, (double)slo[d], (double)shi[d], (double)wide, exact ? " (exact)" : ""));
        fails += !ok;
      }
    }
    PetscCall(FGBodiesDestroy(&B));
    PetscCall(FGGridDestroy(&g));
    PetscCall(PetscFree(c));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failures\n", fails ? "FAIL" : "PASS", fails));
  PetscCall(FGFinalize());
  return fails ? 1 : 0;
}
