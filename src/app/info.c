/*
  flowgrad info: validate a case, print it resolved, its decomposition and a memory estimate.

  Memory estimate (per rank, ghosted arrays, 8-byte reals), for the forward solver:
    fields   dim velocity components x 4 arrays (state, ghosted copy, two RK right-hand sides)
             + pressure, divergence, correction and its ghosted copy -> (4 dim + 4) arrays
    fftw     alloc_local reals x 3 (FFTW's in and out buffers, the precomputed 1/eigenvalues)
    ksp      the assembled 2*dim+1 point matrix (12 bytes a nonzero) x 1.5 for the AMG hierarchy
             + 6 Krylov/preconditioner work vectors
  plus PETSc/MPI/FFTW fixed costs (~50 MiB a rank, not included). Later issues add the adjoint.
*/
#include "appimpl.h"
#include <fg/poisson.h>
#include <fg/step.h>
#include <fg/design.h>
#include <fg/objective.h>
#include <fftw3-mpi.h>
#include <string.h>

/* A warning for each sharp-walled body that turns within 2 cells of radius (FGBodiesGetSharpestTurn)
   or is thinner than a cell somewhere (FGBodiesGetWallGaps): there the wall has gaps, and its
   forces follow where they open (docs/bodies.md: a NACA 0012 at c/32 turned by 0.2 degrees, its
   lift jumped by 30 %). Printed by info, run, adjoint, check and optimize. */
PetscErrorCode FGAppWarnBodies_Internal(MPI_Comm comm, const FGCase *c, FGBodies B)
{
  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < c->nbodies; b++) {
    FGBodyWallGaps gp;
    char           box[160] = "", *e = box;
    PetscReal      turn, at[3];
    PetscCall(FGBodiesGetSharpestTurn(B, b, &turn, at));
    if (turn < 2) {
      for (PetscInt d = 0; d < c->grid.dim; d++) {
        PetscCall(PetscSNPrintf(e, sizeof(box) - (size_t)(e - box), "%s%.4g", d ? ", " : "", (double)at[d]));
        e += strlen(e);
      }
      PetscCall(PetscPrintf(comm, "%s: warning: the sharp wall turns faster than the grid resolves: its smallest radius of curvature is %.2g cells (near (%s)); under about 2 its forces follow where the grid cuts it (an ellipse turned by 2 degrees: its lift 0.21 %% off a smooth fit with 0.6 cells at its tips, 0.008 %% with 3.3); refine the grid there\n", c->body[b].name, (double)turn, box));
      e = box;
    }
    PetscCall(FGBodiesGetWallGaps(B, b, &gp));
    if (!gp.n) continue;
    for (PetscInt d = 0; d < c->grid.dim; d++) {
      PetscCall(PetscSNPrintf(e, sizeof(box) - (size_t)(e - box), "%s%c in [%.4g, %.4g]", d ? ", " : "", "xyz"[d], (double)gp.lo[d], (double)gp.hi[d]));
      e += strlen(e);
    }
    PetscCall(PetscPrintf(comm, "%s: warning: the sharp wall has gaps: %" PetscInt_FMT " pairs of neighbouring faces lie outside the body with the body between them (%s), where it is thinner than a cell; the flow crosses it there and its forces follow the grid (refine the grid around it, or wall: band)\n", c->body[b].name, gp.n, box));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGInfoMemory_Private(FGGrid g, const FGCase *c, double *mine)
{
  PetscInt  nghost = 1, nown = 1;
  const int dim    = (int)g->dim;

  PetscFunctionBeginUser;
  for (int d = 0; d < dim; d++) {
    nghost *= g->box.ghi[d] - g->box.glo[d];
    nown *= g->box.hi[d] - g->box.lo[d];
  }
  mine[0] = (double)(4 * dim + 4) * (double)nghost * 8.0;
  if (c->poisson.type == FG_POISSON_FFTW) {
    ptrdiff_t nn[3], n0, s0, n1, s1, alloc;
    for (int d = 0; d < dim; d++) nn[d] = (ptrdiff_t)g->n[dim - 1 - d];
    alloc   = fftw_mpi_local_size_many_transposed(dim, nn, 1, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, g->comm, &n0, &s0, &n1, &s1);
    mine[1] = 3.0 * (double)alloc * 8.0;
  } else {
    mine[1] = 1.5 * (double)(2 * dim + 1) * (double)nown * 12.0 + 6.0 * (double)nown * 8.0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGInfo - print the resolved case, the grid decomposition and a memory estimate. Collective.
@*/
PetscErrorCode FGInfo(MPI_Comm comm, const FGCase *c)
{
  FGGrid      g;
  FGPoissonBC pbc[3][2];
  double      mine[3], maxr[3], sum[3];
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscPrintf(comm, "flowgrad %s: case '%s' from %s (hash %016llx)\n", FGVersion(), c->name, c->file, c->hash));
  PetscCall(PetscPrintf(comm, "\n# resolved case (written as case.resolved.yaml by run/adjoint/optimize)\n%s\n", c->resolved));
  PetscCall(FGGridCreateFromCase(comm, c, &g));
  PetscCall(PetscPrintf(comm, "# decomposition\n"));
  PetscCall(FGGridView(g, PETSC_VIEWER_STDOUT_(comm)));
  for (PetscInt d = 0; d < g->dim; d++)
    if (c->grid.stretch[d].type == FG_STRETCH_BODIES) PetscCall(PetscPrintf(comm, "  %c: the band around the bodies (margin %g): [%g, %g]\n", "xyz"[d], (double)c->grid.stretch[d].margin, (double)c->grid.stretch[d].band[0], (double)c->grid.stretch[d].band[1]));
  PetscCall(FGPoissonBCFromCase(c, pbc));
  PetscCall(PetscPrintf(comm, "pressure Poisson: %s, boundaries", FGPoissonTypeNames[c->poisson.type]));
  for (PetscInt d = 0; d < g->dim; d++) PetscCall(PetscPrintf(comm, " %c %s/%s", "xyz"[d], FGPoissonBCNames[pbc[d][0]], FGPoissonBCNames[pbc[d][1]]));
  PetscCall(PetscPrintf(comm, "\n"));

  {
    const PetscReal  lim = FGViscousTimeStepLimit(g, c->flow.nu);
    const PetscBool  imp = FGViscousIsImplicit(c, g);
    char             from[64] = "";
    FGBoundary       vbc;
    FGViscousOptions vo;
    PetscCall(FGBoundaryFromCase(c, &vbc));
    PetscCall(FGViscousGetOptions(comm, &vo));
    if (c->time.cfl > 0) PetscCall(PetscSNPrintf(from, sizeof(from), " (from time.cfl = %g)", (double)c->time.cfl));
    PetscCall(PetscPrintf(comm, "time step: dt = %.6g%s, the explicit viscous term's stability limit %.4g (dt / limit = %.3g); viscous term: %s%s%s%s\n", (double)c->time.dt, from, (double)lim, (double)(c->time.dt / lim),
                          imp ? "implicit (Crank-Nicolson per stage, " : "explicit", imp ? FGViscousDescription(FGViscousTypeFor(g, &vbc, vo.type)) : "", imp ? ")" : "", !imp && c->time.dt > lim ? "  ** EXCEEDED: the run will blow up (time.viscous: implicit) **" : ""));
  }
  if (c->nbodies) { /* set the bodies up: the same checks as a run (shapes, inside the domain, density files) */
    FGBoundary bnd;
    FGBodies   B;
    PetscCall(FGBoundaryFromCase(c, &bnd));
    PetscCall(FGBodiesCreate(g, &bnd, c, &B));
    PetscCall(PetscPrintf(comm, "\n# bodies (Brinkman penalization)\n"));
    for (PetscInt b = 0; b < c->nbodies; b++) {
      const FGBodyCase *bc = &c->body[b];
      FGBodyForces      f;
      PetscReal         h;
      char              hs[64] = "", os[64];
      PetscCall(FGBodiesGetForces(B, b, &f));
      PetscCall(FGBodiesGetMaskSpacing(B, b, &h));
      if (!g->isuniform && h > 0) PetscCall(PetscSNPrintf(hs, sizeof(hs), " of h = %g (the largest cell width around it)", (double)h));
      if (bc->skin_layer > 0) PetscCall(PetscSNPrintf(os, sizeof(os), "with a soft skin"));
      else PetscCall(PetscSNPrintf(os, sizeof(os), "at offset %g", (double)bc->mask_offset));
      if (bc->wall == FG_WALL_SHARP)
        PetscCall(PetscPrintf(comm, "%s: %s, sharp wall%s (the faces inside penalized with eta = %g, dt/eta = %.3g; the faces outside next to them by the %s extrapolation to the surface, with nu = %g), %s %.6g inside, coefficients with ref_speed %g, ref_area %g\n", bc->name, FGBodyShapeNames[bc->shape], bc->line_flux ? " with the line-flux continuity (the cut-cell continuity: each face whose span the surface cuts takes the integral over its open part of a quadratic along its line through the wall; lines that graze the surface, the apertures)" : bc->apertures ? " with apertures (the cut-cell continuity: the flux of the faces within 2 cells of the surface weighted by their open span)" : "", (double)bc->eta, (double)(c->time.dt / bc->eta), bc->shared_ghost ? "shared (one quadratic profile per inside node, which every neighbour reads; the faces within a cell relaxed towards their own)" : bc->quadratic_ghost ? "quadratic (through the next face out)" : "linear", (double)c->flow.nu, g->dim == 2 ? "area" : "volume", (double)f.volume, (double)bc->ref_speed, (double)bc->ref_area));
      else PetscCall(PetscPrintf(comm, "%s: %s, %s mask band %g cells%s %s, eta = %g (dt/eta = %.3g), mask %s %.6g, coefficients with ref_speed %g, ref_area %g\n", bc->name, FGBodyShapeNames[bc->shape], FGMaskProfileNames[bc->mask_profile], (double)bc->mask_width, hs, os, (double)bc->eta, (double)(c->time.dt / bc->eta), g->dim == 2 ? "area" : "volume", (double)f.volume, (double)bc->ref_speed, (double)bc->ref_area));
      if (bc->skin_layer > 0 && h > 0) {
        const PetscReal etas = PetscSqr(bc->skin_layer * h) / c->flow.nu;
        PetscReal       off, rip;
        PetscCall(FGBodiesGetSkinOffset(B, b, &off, &rip));
        PetscCall(PetscPrintf(comm, "%s: soft skin: the band penalizes with eta_s = %g (its layer sqrt(nu eta_s) = %g cells), the stiff core (eta) %g cells below the band's centre\n", bc->name, (double)etas, (double)bc->skin_layer, (double)bc->core_depth));
        { /* the skin's error scale: the flow slips through a layer K h thick, driven along the
             surface by the pressure gradient; measured, it follows Re_h h/L (docs/bodies.md) */
          const PetscReal reh = bc->ref_speed * h / c->flow.nu;
          PetscCall(PetscPrintf(comm, "%s: soft skin: cell Reynolds number Re_h = ref_speed h/nu = %.3g: the skin's error in the forces scales as Re_h h/ref_length = %.2g %% (on cylinders: Cd 0.7-0.8x that at Re 20, peak Cd 1-2x at Re 100)\n", bc->name, (double)reh, (double)(100 * reh * h / bc->ref_length)));
        }
        if (bc->skin_normal > 0) PetscCall(PetscPrintf(comm, "%s: soft skin: the normal velocity penalized too, with eta_n = %g (skin_normal %g) over a band %g cells below the skin's centre (src/body/normal.c)\n", bc->name, (double)(bc->skin_normal * bc->eta), (double)bc->skin_normal, (double)bc->skin_normal_depth));
        if (bc->skin_offset_auto) PetscCall(PetscPrintf(comm, "%s: soft skin: the band's centre %.4f cells below the surface (skin_offset auto: the wall the flow sees on the surface), a ripple of %.1e cells left on a grid-aligned surface\n", bc->name, (double)off, (double)rip));
        else PetscCall(PetscPrintf(comm, "%s: soft skin: the band's centre %g cells below the surface (skin_offset; auto would put it at %.4f)\n", bc->name, (double)bc->skin_offset_cells, (double)off));
        {
          PetscReal frac;
          PetscCall(FGBodiesGetCoreFraction(B, b, &frac));
          PetscCall(PetscPrintf(comm, "%s: soft skin: the stiff core covers %.0f %% of the body's %s\n", bc->name, (double)(100 * frac), g->dim == 2 ? "area" : "volume"));
          if (frac < 0.1) PetscCall(PetscPrintf(comm, "%s: warning: the body is thin against the soft skin's layers: its stiff core covers %.0f %% of it, so the soft band does most of the penalizing and the body lets flow through (on a NACA 0012 at c/32 with core_depth 4 the lift fell 200-fold); reduce core_depth or refine the grid\n", bc->name, (double)(100 * frac)));
        }
        if (rip > 1e-2) PetscCall(PetscPrintf(comm, "%s: warning: the soft skin leaves a ripple of %.2g cells: a band of %g cells with the core %g cells below its centre is too narrow or too shallow for a layer of %g cells to smooth the wall (widen mask_width or deepen core_depth: with skin_layer 0.75, mask_width 4.5 and core_depth 2.5 leave 1.4e-3)\n", bc->name, (double)rip, (double)bc->mask_width, (double)bc->core_depth, (double)bc->skin_layer));
      }
    }
    PetscCall(FGAppWarnBodies_Internal(comm, c, B));
    PetscCall(FGBodiesDestroy(&B));
  }
  { /* the solver set up and its start state made, as every command does before its first step:
       the boundary fluxes, the initial file (its grid), the operators (FFTW plans: estimate unless
       -fg_fftw_planner is given; nothing is written) */
    FGSolver  s;
    PetscBool given;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-fg_fftw_planner", &given));
    if (!given) PetscCall(PetscOptionsSetValue(NULL, "-fg_fftw_planner", "estimate"));
    PetscCall(FGSolverCreate(comm, c, &s));
    PetscCall(FGSolverSetInitialCondition(s));
    if (c->design.n || c->nobjectives) { /* and the design and objective of adjoint/check/optimize */
      FGDesign    d;
      FGObjective o;
      PetscCall(FGDesignCreate(s, c, &d));
      PetscCall(FGObjectiveCreate(s, d, &o));
      PetscCall(FGObjectiveDestroy(&o));
      PetscCall(FGDesignDestroy(&d));
    }
    PetscCall(FGSolverDestroy(&s));
    if (!given) PetscCall(PetscOptionsClearValue(NULL, "-fg_fftw_planner"));
    PetscCall(PetscPrintf(comm, "\nset up as the commands do (solver, initial state, boundary fluxes, design, objective): fine\n"));
  }
  PetscCall(FGInfoMemory_Private(g, c, mine));
  mine[2] = mine[0] + mine[1];
  PetscCall(MPIU_Allreduce(mine, maxr, 3, MPI_DOUBLE, MPI_MAX, comm));
  PetscCall(MPIU_Allreduce(mine, sum, 3, MPI_DOUBLE, MPI_SUM, comm));
  PetscCall(PetscPrintf(comm, "\n# memory estimate (forward run; excludes ~50 MiB/rank of library overhead)\n"));
  PetscCall(PetscPrintf(comm, "fields:  %10.1f MiB total, %10.1f MiB on the largest rank\n", sum[0] / 1048576.0, maxr[0] / 1048576.0));
  PetscCall(PetscPrintf(comm, "poisson: %10.1f MiB total, %10.1f MiB on the largest rank (%s)\n", sum[1] / 1048576.0, maxr[1] / 1048576.0, FGPoissonTypeNames[c->poisson.type]));
  PetscCall(PetscPrintf(comm, "total:   %10.1f MiB total, %10.1f MiB on the largest rank, %d ranks\n", sum[2] / 1048576.0, maxr[2] / 1048576.0, (int)size));
  {
    double budget;
    PetscCall(FGMemoryBudget(comm, &budget));
    if (budget > 0) PetscCall(PetscPrintf(comm, "budget:  %10.1f MiB a rank (-fg_memory_budget, default: the node's available memory over its ranks); checked before anything is allocated\n", budget / 1048576.0));
    else PetscCall(PetscPrintf(comm, "budget:  none (-fg_memory_budget 0, or the node's memory not known)\n"));
  }
  PetscCall(FGGridDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGInfoCheckPoints - load the case of every point of a multi-point problem (points.<p>.set over
  the command line's --set), as flowgrad optimize will, so that info refuses a bad entry there too.
  Collective; an error is FG_ERR_INPUT naming the point and the entry's message.
@*/
PetscErrorCode FGInfoCheckPoints(MPI_Comm comm, const FGCase *c, PetscInt nset, const char *const set[])
{
  FGCase *pc;
  char    msg[1024];

  PetscFunctionBeginUser;
  if (!c->npoints) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&pc));
  for (PetscInt k = 0; k < c->npoints; k++) {
    const FGPointCase *pt = &c->point[k];
    const char       **list;
    PetscInt           n = 0;
    PetscErrorCode     ierr;
    PetscCall(PetscMalloc1(nset + pt->nset + 1, &list));
    for (PetscInt i = 0; i < nset; i++) list[n++] = set[i];
    for (PetscInt i = 0; i < pt->nset; i++) list[n++] = pt->set[i];
    PetscCall(FGErrorCapturePush(msg, sizeof(msg)));
    ierr = FGCaseLoad(comm, c->file, n, list, pc);
    PetscCall(FGErrorCapturePop());
    PetscCall(PetscFree(list));
    if (ierr) PetscCall(PetscFree(pc));
    PetscCheck(!ierr, comm, FG_ERR_INPUT, "%s.set: %s", pt->where, strncmp(msg, "--set ", 6) ? msg : msg + 6);
    ierr = (PetscErrorCode)(pc->design.n != c->design.n || pc->design.time_basis != c->design.time_basis);
    for (PetscInt i = 0; !ierr && i < c->design.n; i++) ierr = (PetscErrorCode)(strcmp(pc->design.parameters[i], c->design.parameters[i]) != 0);
    if (ierr) PetscCall(PetscFree(pc));
    PetscCheck(!ierr, comm, FG_ERR_INPUT, "%s: the point's case has another design (design.parameters or design.time_basis differ)", pt->where);
  }
  PetscCall(PetscFree(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}
