/*
  flowgrad adjoint CASE [--resume] (include/fg/adjoint.h): the forward run and the reverse sweep
  for the case's objective and design, then in output.dir:
    gradient.csv   name,value,gradient per design scalar, with J and each objective term in
                   comment lines at the top (written to a temporary name, then renamed)
    gradient.h5    (+ gradient.xmf) the fields dJ_dchi_x.. (face fields: dJ/dchi summed over the
                   time steps, the topology sensitivity), shape_sensitivity (cell field: the
                   derivative of J per unit volume with respect to an outward normal displacement
                   of the shape bodies' surfaces; its integral over a circle's band is dJ/dr),
                   u_adj, v_adj[, w_adj], p_adj (the adjoint state at t = 0: u_adj = dJ/du_0), and
                   per density body dJ_drho_<name>; the datasets design, gradient (+ _names) and
                   objective (+ _names) hold the table; attribute time 0
    adjoint/adjoint_NNNNNN.h5 (+ .xmf) the adjoint velocity and pressure every adjoint.fields_every
                   steps of the reverse sweep (0: none besides t = 0 in gradient.h5)
    steady.h5      (+ .xmf; adjoint.mode steady) the steady state u, v[, w], p (usable as
                   initial.type: file); u_adj.. in gradient.h5 are then the steady adjoint state

  The set-up that flowgrad adjoint and flowgrad check (src/app/check.c) share, FGAdjointApp
  (src/app/appimpl.h), is here too.
*/
#include "appimpl.h"
#include <fg/io.h>
#include <fg/iofile.h>
#include <fg/table.h>
#include <stdio.h>
#include <string.h>

/* case.resolved.yaml in output.dir, and FFT plans kept as wisdom there (-fg_fftw_wisdom unless
   given; as flowgrad run does): a resumed sweep or optimization recomputes the states with the
   same plans, bit for bit. */
PetscErrorCode FGAppSetUpOutput_Internal(MPI_Comm comm, const FGCase *c)
{
  PetscBool set;
  char      path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(FGCaseWriteResolved(comm, c));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-fg_fftw_wisdom", &set));
  if (!set && c->poisson.type == FG_POISSON_FFTW) {
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/fftw.wisdom", c->output.dir));
    PetscCall(PetscOptionsSetValue(NULL, "-fg_fftw_wisdom", path));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The set-up of flowgrad adjoint and check: output.dir, the solver, design, objective, p and g;
   prints the case's steps, objective and design. */
PetscErrorCode FGAdjointAppCreate_Internal(MPI_Comm comm, const FGCase *c, FGAdjointApp *A)
{
  PetscInt             nblk;
  const FGDesignBlock *blk;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(A, sizeof(*A)));
  A->c = c;
  PetscCall(FGAppSetUpOutput_Internal(comm, c));
  PetscCall(FGSolverCreate(comm, c, &A->s));
  PetscCall(FGAppWarnBodies_Internal(comm, c, A->s->bodies));
  PetscCall(FGDesignCreate(A->s, c, &A->d));
  PetscCall(FGObjectiveCreate(A->s, A->d, &A->o));
  PetscCall(FGDesignCreateVec(A->d, &A->p));
  PetscCall(VecDuplicate(A->p, &A->g));
  PetscCall(FGDesignGetValues(A->d, A->p));
  PetscCall(FGDesignGetBlocks(A->d, &nblk, &blk));
  PetscCall(PetscPrintf(comm, "%s: %" PetscInt_FMT " steps of dt %g; objective:", c->name, c->time.steps, (double)c->time.dt));
  for (PetscInt i = 0; i < c->nobjectives; i++) PetscCall(PetscPrintf(comm, " %s%s (%s, %s, weight %g)", i ? "+" : "", c->objective[i].name, FGObjectiveKindNames[c->objective[i].kind], FGObjectiveTimeNames[c->objective[i].time], (double)c->objective[i].weight));
  PetscCall(PetscPrintf(comm, "\n%s: design:", c->name));
  if (!nblk) PetscCall(PetscPrintf(comm, " (none: design.parameters is empty; the gradient fields are still written)"));
  for (PetscInt i = 0; i < nblk; i++) PetscCall(PetscPrintf(comm, " %s (%" PetscInt_FMT ")", blk[i].name, blk[i].n));
  PetscCall(PetscPrintf(comm, "\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGAdjointAppDestroy_Internal(FGAdjointApp *A)
{
  PetscFunctionBeginUser;
  PetscCall(VecDestroy(&A->p));
  PetscCall(VecDestroy(&A->g));
  PetscCall(FGObjectiveDestroy(&A->o));
  PetscCall(FGDesignDestroy(&A->d));
  PetscCall(FGSolverDestroy(&A->s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  FGAdjointApp *A;
  PetscInt      every;
} FGAdjointMonitorCtx;

static PetscErrorCode FGAdjointWriteState_Private(FGSolver s, const char *path, PetscInt step, PetscReal t, Vec ubar[], Vec pbar)
{
  FGIOField f[4];
  FGIOMeta  meta = {0};
  PetscInt  nf   = 0;

  PetscFunctionBeginUser;
  PetscCall(FGIOAddState(s->grid, PETSC_TRUE, ubar, pbar, f, &nf));
  meta.time      = t;
  meta.step      = step;
  meta.case_hash = s->c->hash;
  meta.case_name = s->c->name;
  PetscCall(FGIOWriteFields(s->grid, path, &meta, nf, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGAdjointMonitor_Private(FGSolver s, PetscInt n, PetscReal t, Vec ubar[], Vec pbar, void *ctx)
{
  FGAdjointMonitorCtx *m = (FGAdjointMonitorCtx *)ctx;
  char                 path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  if (!m->every || n % m->every || n == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/adjoint", s->c->output.dir));
  {
    PetscBool ok;
    char      msg[PETSC_MAX_PATH_LEN + 128];
    PetscCall(FGIOMakeDirectory(s->comm, path, msg, sizeof(msg), &ok));
    PetscCheck(ok, s->comm, FG_ERR_INPUT, "%s", msg); /* the class FGMakeDirectory gives: exit 2, as before */
  }
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/adjoint/adjoint_%06" PetscInt_FMT ".h5", s->c->output.dir, n));
  PetscCall(FGAdjointWriteState_Private(s, path, n, t, ubar, pbar));
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/adjoint", s->c->output.dir));
  PetscCall(FGIOWriteXDMFSeries(s->comm, path, "adjoint_", "adjoint")); /* adjoint/adjoint.xmf */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* gradient.csv: J and each objective term in comment lines, then name,value,gradient per design
   scalar (FGTableWriteCSV: rank 0, atomically). */
static PetscErrorCode FGAdjointWriteCSV_Private(FGAdjointApp *A, PetscReal J)
{
  PetscInt  ns;
  PetscReal *v, *gv;
  FGTable   t;
  char      path[PETSC_MAX_PATH_LEN], line[256];

  PetscFunctionBeginUser;
  PetscCall(FGDesignGetScalars(A->d, A->g, &ns, &gv));
  PetscCall(PetscMalloc1(PetscMax(ns, 1), &v));
  PetscCall(PetscArraycpy(v, gv, ns)); /* the gradient's scalars (the next call reuses the buffer) */
  PetscCall(FGDesignGetScalars(A->d, A->p, &ns, &gv));
  PetscCall(FGTableCreate(A->s->comm, &t));
  PetscCall(PetscSNPrintf(line, sizeof(line), "J = %.17g", (double)J));
  PetscCall(FGTableAddComment(t, line));
  for (PetscInt i = 0; i < A->c->nobjectives; i++) {
    const char *nm;
    PetscReal   val;
    PetscCall(FGObjectiveGetTerm(A->o, i, &nm, &val));
    PetscCall(PetscSNPrintf(line, sizeof(line), "objective %s = %.17g", nm, (double)val));
    PetscCall(FGTableAddComment(t, line));
  }
  PetscCall(FGTableSetLabelColumn(t, "name"));
  PetscCall(FGTableAddColumn(t, "value", "%.17g"));
  PetscCall(FGTableAddColumn(t, "gradient", "%.17g"));
  for (PetscInt i = 0; i < ns; i++) {
    char      nm[128];
    PetscReal row[2] = {gv[i], v[i]};
    PetscCall(FGDesignScalarName(A->d, i, nm, sizeof(nm)));
    PetscCall(FGTableAddRow(t, nm, row));
  }
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/gradient.csv", A->c->output.dir));
  PetscCall(FGTableWriteCSV(t, path));
  PetscCall(FGTableDestroy(&t));
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* gradient_time.csv: rank 0, atomically; row n: the part of each design scalar's gradient that
   step n's adjoint contributes, then for every control in time (design.time_basis > 1) that is an
   actuator force component or a jet amplitude, the sum over its basis coefficients: dJ/d(the
   control's value during step n), since the hat functions sum to 1 (a rotation rate is left out:
   its coefficients also move the angle, their integral). */
static PetscErrorCode FGAdjointWriteGradientTime_Private(FGAdjointApp *A, const FGAdjointOutput *out)
{
  PetscInt             ns, nblk, nbt = A->c->design.time_basis, nctl = 0, *ctl;
  PetscReal           *v, *row, dt = A->c->time.dt;
  const FGDesignBlock *blk;
  FGTable              t;
  char                 path[PETSC_MAX_PATH_LEN], nm[128 + 8];

  PetscFunctionBeginUser;
  PetscCall(FGDesignGetScalars(A->d, A->p, &ns, &v));
  if (!out->gtime || !ns) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGDesignGetBlocks(A->d, &nblk, &blk));
  PetscCall(PetscMalloc1(ns, &ctl)); /* at most one control per design scalar */
  for (PetscInt i = 0; nbt > 1 && i < nblk; i++) /* the first scalar of each control's nbt coefficients */
    if (blk[i].kind == FG_DESIGN_ACTUATOR || blk[i].kind == FG_DESIGN_JETS)
      for (PetscInt j = 0; j < blk[i].n; j += nbt) ctl[nctl++] = blk[i].offset + j;
  PetscCall(FGTableCreate(A->s->comm, &t));
  PetscCall(FGTableAddComment(t, "the part of dJ/dp that each step's adjoint contributes (sum over the steps: the gradient,"));
  PetscCall(FGTableAddComment(t, "less the terms of J that depend on p directly); divide by dt for a rate per unit time"));
  PetscCall(FGTableAddColumn(t, "step", FG_TABLE_INT));
  PetscCall(FGTableAddColumn(t, "t_start", "%.17g"));
  PetscCall(FGTableAddColumn(t, "t_end", "%.17g"));
  for (PetscInt i = 0; i < ns; i++) {
    PetscCall(FGDesignScalarName(A->d, i, nm, 128));
    PetscCall(FGTableAddColumn(t, nm, "%.17g"));
  }
  for (PetscInt c = 0; c < nctl; c++) { /* NAME[..][0] -> NAME[..](t) */
    char *br;
    PetscCall(FGDesignScalarName(A->d, ctl[c], nm, 128));
    br = strrchr(nm, '[');
    if (br) *br = '\0';
    PetscCall(PetscStrlcat(nm, "(t)", sizeof(nm)));
    PetscCall(FGTableAddColumn(t, nm, "%.17g"));
  }
  PetscCall(PetscMalloc1(3 + ns + nctl, &row));
  for (PetscInt n = 1; n <= out->gtime_n; n++) {
    const PetscReal *g = out->gtime + (n - 1) * ns;
    row[0] = (PetscReal)n, row[1] = (n - 1) * dt, row[2] = n * dt;
    for (PetscInt i = 0; i < ns; i++) row[3 + i] = g[i];
    for (PetscInt c = 0; c < nctl; c++) {
      PetscReal sum = 0;
      for (PetscInt k = 0; k < nbt; k++) sum += g[ctl[c] + k];
      row[3 + ns + c] = sum;
    }
    PetscCall(FGTableAddRow(t, NULL, row));
  }
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/gradient_time.csv", A->c->output.dir));
  PetscCall(FGTableWriteCSV(t, path));
  PetscCall(FGTableDestroy(&t));
  PetscCall(PetscFree(row));
  PetscCall(PetscFree(ctl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGAdjointMain - flowgrad adjoint CASE [--resume].
@*/
PetscErrorCode FGAdjointMain(MPI_Comm comm, const FGCase *c, PetscBool resume)
{
  FGAdjointApp        A;
  FGAdjointOutput     out;
  FGAdjointMonitorCtx mon;
  FGSolver            s;
  PetscInt            dim, ns, nb, nblk, nf = 0;
  PetscReal           J, *sv, *gvals = NULL;
  Vec                 sens, extra[FG_CASE_MAX_BODIES];
  FGIOField           f[16 + 2];
  FGIOMeta            meta = {0};
  FGIOVector          vecs[3 + FG_CASE_MAX_BODIES];
  FGBodiesOutput      bo, sbo;
  PetscInt            nv = 3;
  char              **names = NULL, path[PETSC_MAX_PATH_LEN], fieldnames[FG_CASE_MAX_BODIES][FG_CASE_NAME_LEN + 16];
  const char         *onames[FG_CASE_MAX_OBJECTIVES];
  PetscReal           ovals[FG_CASE_MAX_OBJECTIVES], *pvals = NULL;
  const FGDesignBlock *blk;
  PetscLogDouble      w0, w1;

  PetscFunctionBeginUser;
  PetscCall(FGAdjointAppCreate_Internal(comm, c, &A));
  s   = A.s;
  dim = s->grid->dim;
  PetscCall(FGBodiesGetCount(s->bodies, &nb));
  PetscCall(PetscMemzero(&out, sizeof(out)));
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecDuplicate(s->u[a], &out.chibar[a]));
    PetscCall(VecDuplicate(s->u[a], &out.sens[a]));
    PetscCall(VecDuplicate(s->u[a], &out.ubar0[a]));
  }
  PetscCall(VecDuplicate(s->p, &out.pbar0));
  mon.A       = &A;
  mon.every   = c->adjoint.fields_every;
  out.monitor = FGAdjointMonitor_Private;
  out.ctx     = &mon;
  if (c->adjoint.mode == FG_ADJOINT_UNSTEADY) { /* the steady adjoint is not resumable: short, no history */
    PetscInt slurm;
    PetscCall(FGSlurmRestartCount(comm, &slurm));
    out.resume          = (PetscBool)(resume || slurm > 0);
    out.resume_required = resume;
    out.signals         = PETSC_TRUE;
    out.gradient_time   = PETSC_TRUE;
    PetscCall(FGSignalInstall());
  } else {
    PetscCheck(!resume, comm, FG_ERR_INPUT, "--resume: adjoint.mode steady does not stop and resume (it keeps no history); rerun it without --resume");
    PetscCall(FGSignalSetExit("a steady adjoint keeps no checkpoint; run it again"));
  }
  PetscCall(PetscTime(&w0));
  PetscCall(FGAdjointCompute(s, A.d, A.o, A.p, &J, A.g, &out));
  PetscCall(PetscTime(&w1));

  /* the table */
  PetscCall(FGDesignGetScalars(A.d, A.g, &ns, &sv));
  PetscCall(PetscMalloc3(PetscMax(ns, 1), &gvals, PetscMax(ns, 1), &pvals, PetscMax(ns, 1), &names));
  PetscCall(PetscArraycpy(gvals, sv, ns));
  PetscCall(FGDesignGetScalars(A.d, A.p, &ns, &sv));
  PetscCall(PetscArraycpy(pvals, sv, ns));
  PetscCall(PetscPrintf(comm, "\nJ = %.12e   (forward + adjoint: %.1f s)\n", (double)J, (double)(w1 - w0)));
  for (PetscInt i = 0; i < c->nobjectives; i++) {
    PetscCall(FGObjectiveGetTerm(A.o, i, &onames[i], &ovals[i]));
    PetscCall(PetscPrintf(comm, "  %-24s %.12e\n", onames[i], (double)ovals[i]));
  }
  if (ns) PetscCall(PetscPrintf(comm, "\n%-40s %20s %20s\n", "parameter", "value", "dJ/dp"));
  for (PetscInt i = 0; i < ns; i++) {
    PetscCall(PetscMalloc1(128, &names[i]));
    PetscCall(FGDesignScalarName(A.d, i, names[i], 128));
    PetscCall(PetscPrintf(comm, "%-40s %20.12e %20.12e\n", names[i], (double)pvals[i], (double)gvals[i]));
  }
  PetscCall(FGAdjointWriteCSV_Private(&A, J));
  PetscCall(FGAdjointWriteGradientTime_Private(&A, &out));
  PetscCall(PetscFree(out.gtime));
  if (c->adjoint.mode == FG_ADJOINT_STEADY) { /* the steady state (the solver holds F(x*) = x*) */
    FGIOField  sf[6];
    FGIOVector svec[FG_CASE_MAX_BODIES];
    FGIOMeta   smeta = {0};
    PetscInt   nsf = 0, nsv = 0;
    PetscCall(FGIOAddState(s->grid, PETSC_FALSE, s->u, s->p, sf, &nsf));
    PetscCall(FGBodiesOutputAdd(s->bodies, s->t, s->p, &sbo, sf, &nsf, svec, &nsv));
    smeta.nvectors  = nsv;
    smeta.vectors   = svec;
    smeta.time      = s->t;
    smeta.step      = s->step;
    smeta.case_hash = c->hash;
    smeta.case_name = c->name;
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/steady.h5", c->output.dir));
    PetscCall(FGIOWriteFields(s->grid, path, &smeta, nsf, sf));
    PetscCall(FGBodiesOutputDestroy(&sbo));
    PetscCall(PetscPrintf(comm, "wrote the steady state to %s (+ .xmf)\n", path));
  }

  /* gradient.h5: the fields */
  for (PetscInt a = 0; a < dim; a++) {
    f[nf++] = (FGIOField){.name = (const char *[]){"dJ_dchi_x", "dJ_dchi_y", "dJ_dchi_z"}[a], .location = (FGLocation)(FG_LOC_FACE_X + a), .vec = out.chibar[a]};
  }
  { /* shape sensitivity per cell: the sum over the cell's + faces, per unit volume */
    PetscCall(VecDuplicate(s->p, &sens));
    PetscCall(FGGridCellDensity(s->grid, dim, out.sens, sens));
    f[nf++] = (FGIOField){.name = "shape_sensitivity", .location = FG_LOC_CELL, .vec = sens};
  }
  PetscCall(FGIOAddState(s->grid, PETSC_TRUE, out.ubar0, out.pbar0, f, &nf));
  PetscCall(FGBodiesOutputAdd(s->bodies, 0.0, s->p, &bo, f, &nf, vecs, &nv)); /* the design's bodies, placed at t = 0 */
  PetscCall(FGDesignGetBlocks(A.d, &nblk, &blk));
  for (PetscInt b = 0; b < FG_CASE_MAX_BODIES; b++) extra[b] = NULL;
  for (PetscInt i = 0; i < nblk; i++) {
    const PetscScalar *ga;
    PetscScalar       *x;
    PetscInt           nloc;
    if (blk[i].kind != FG_DESIGN_DENSITY) continue;
    PetscCall(VecDuplicate(s->p, &extra[blk[i].index]));
    PetscCall(VecGetLocalSize(s->p, &nloc));
    PetscCall(VecGetArrayRead(A.g, &ga));
    PetscCall(VecGetArray(extra[blk[i].index], &x));
    PetscCall(PetscArraycpy(x, ga + blk[i].offset, nloc));
    PetscCall(VecRestoreArray(extra[blk[i].index], &x));
    PetscCall(VecRestoreArrayRead(A.g, &ga));
    PetscCall(PetscSNPrintf(fieldnames[blk[i].index], sizeof(fieldnames[0]), "dJ_drho_%s", c->body[blk[i].index].name));
    f[nf++] = (FGIOField){.name = fieldnames[blk[i].index], .location = FG_LOC_CELL, .vec = extra[blk[i].index]};
  }
  vecs[0].name     = "design";
  vecs[0].n        = ns;
  vecs[0].values   = pvals;
  vecs[0].labels   = (const char *const *)names;
  vecs[1].name     = "gradient";
  vecs[1].n        = ns;
  vecs[1].values   = gvals;
  vecs[1].labels   = (const char *const *)names;
  vecs[2].name     = "objective";
  vecs[2].n        = c->nobjectives;
  vecs[2].values   = ovals;
  vecs[2].labels   = onames;
  meta.time        = 0;
  meta.step        = 0;
  meta.case_hash   = c->hash;
  meta.case_name   = c->name;
  meta.nvectors    = nv;
  meta.vectors     = vecs;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/gradient.h5", c->output.dir));
  PetscCall(FGIOWriteFields(s->grid, path, &meta, nf, f));
  PetscCall(FGBodiesOutputDestroy(&bo));
  PetscCall(PetscPrintf(comm, "\nwrote %s/gradient.csv, %s%s (+ .xmf)\n", c->output.dir, ns ? "gradient_time.csv, " : "", path));

  for (PetscInt i = 0; i < ns; i++) PetscCall(PetscFree(names[i]));
  PetscCall(PetscFree3(gvals, pvals, names));
  for (PetscInt b = 0; b < FG_CASE_MAX_BODIES; b++) PetscCall(VecDestroy(&extra[b]));
  PetscCall(VecDestroy(&sens));
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecDestroy(&out.chibar[a]));
    PetscCall(VecDestroy(&out.sens[a]));
    PetscCall(VecDestroy(&out.ubar0[a]));
  }
  PetscCall(VecDestroy(&out.pbar0));
  (void)nb;
  PetscCall(FGAdjointAppDestroy_Internal(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
