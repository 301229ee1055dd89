/*
  An optimization problem (include/fg/optim.h): the points (flow conditions) of a case, each a
  solver with its design and objective, the constraint rows, and one evaluation of J, dJ/dp and
  the rows' quantities and gradients at a design p (FGProblemEvaluate).

  Points. Without points.<name> the case itself is the only point. With them, point k is the case
  file loaded again with the command line's --set overrides, then the point's `set` entries, then
  output.dir=<output.dir>/points/<name> (so each point's adjoint files stay apart); every point
  must have the same design (design.parameters, design.time_basis and the design vector's layout).

  Flow rows (lift, drag, moment) have an objective of their own per point
  (FGObjectiveCreateTerms): one more forward run and adjoint per row and point.
*/
#include <fg/optim.h>
#include <fg/io.h>
#include <string.h>

typedef struct {
  const FGCase   *c;
  FGCase         *own; /* the point's case, loaded here with its overrides (NULL: the problem's case) */
  char            name[FG_CASE_NAME_LEN];
  PetscReal       w;
  FGSolver        s;
  FGDesign        d;
  FGObjective     o;
  FGObjectiveCase term[FG_OPT_MAX_ROWS]; /* the flow rows' objective terms (outlive orow) */
  FGObjective     orow[FG_OPT_MAX_ROWS];
} FGPoint;

struct _p_FGProblem {
  MPI_Comm        comm;
  const FGCase   *c;
  PetscInt        K;
  FGPoint         pt[FG_CASE_MAX_CONDITIONS];
  const char     *names[FG_CASE_MAX_CONDITIONS];
  PetscReal       weights[FG_CASE_MAX_CONDITIONS];
  PetscInt        nrows;
  FGConstraintRow row[FG_OPT_MAX_ROWS];
  Vec             gk, cell[2]; /* work: a point's gradient; cell Vecs of point 1's grid */
  FGShape         shape;       /* work: a copy of a body's shape for the geometric rows */
};

static PetscErrorCode FGProblemAddRow_Private(FGProblem P, const FGConstraintCase *k, PetscInt con, PetscInt point, PetscInt comp)
{
  FGConstraintRow *r;

  PetscFunctionBeginUser;
  PetscCheck(P->nrows < FG_OPT_MAX_ROWS, P->comm, FG_ERR_INPUT, "%s: more than %d constraint rows in all", k->where, FG_OPT_MAX_ROWS);
  r = &P->row[P->nrows++];
  PetscCall(PetscMemzero(r, sizeof(*r)));
  r->kind     = k->kind;
  r->relation = k->relation;
  r->con      = con;
  r->point    = point;
  r->comp     = comp;
  r->scale    = 1;
  if (k->kind == FG_CON_CENTROID) PetscCall(PetscSNPrintf(r->name, sizeof(r->name), "%s.%c", k->name, "xyz"[comp]));
  else if (k->kind == FG_CON_THICKNESS) PetscCall(PetscSNPrintf(r->name, sizeof(r->name), "%s@%g", k->name, (double)k->at[comp]));
  else if (point >= 0 && P->K > 1) PetscCall(PetscSNPrintf(r->name, sizeof(r->name), "%s@%s", k->name, P->pt[point].name));
  else PetscCall(PetscStrncpy(r->name, k->name, sizeof(r->name)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool FGProblemRowIsFlow_Private(const FGConstraintRow *r)
{
  return (PetscBool)(r->kind == FG_CON_LIFT || r->kind == FG_CON_DRAG || r->kind == FG_CON_MOMENT);
}

/*@C
  FGProblemCreate - the points, solvers, designs, objectives and constraint rows of case c;
  (nset, set): the command line's --set overrides (the points' cases are loaded with them).
  Collective; errors are FG_ERR_INPUT naming the file and key.
@*/
PetscErrorCode FGProblemCreate(MPI_Comm comm, const FGCase *c, PetscInt nset, const char *const set[], FGProblem *problem)
{
  FGProblem P;
  PetscInt  nd = -1, nl = -1;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&P));
  *problem = P;
  P->comm  = comm;
  P->c     = c;
  P->K     = c->npoints ? c->npoints : 1;
  for (PetscInt k = 0; k < P->K; k++) {
    FGPoint *pt = &P->pt[k];
    if (!c->npoints) {
      pt->c = c;
      pt->w = 1;
      PetscCall(PetscStrncpy(pt->name, "case", sizeof(pt->name)));
    } else {
      const FGPointCase *pc = &c->point[k];
      const char       **list;
      char               outdir[PETSC_MAX_PATH_LEN + 64];
      PetscInt           n = 0;
      PetscCall(PetscMalloc1(nset + pc->nset + 1, &list));
      for (PetscInt i = 0; i < nset; i++) list[n++] = set[i];
      for (PetscInt i = 0; i < pc->nset; i++) list[n++] = pc->set[i];
      PetscCall(PetscSNPrintf(outdir, sizeof(outdir), "output.dir=%s/points/%s", c->output.dir, pc->name));
      list[n++] = outdir;
      PetscCall(PetscNew(&pt->own));
      PetscCall(FGCaseLoad(comm, c->file, n, list, pt->own));
      pt->c = pt->own;
      PetscCall(PetscFree(list));
      PetscCall(FGCasePrepareOutput(comm, pt->c));
      PetscCall(FGCaseWriteResolved(comm, pt->c));
      pt->w = pc->weight;
      PetscCall(PetscStrncpy(pt->name, pc->name, sizeof(pt->name)));
      /* the same design at every point */
      PetscCheck(pt->c->design.n == c->design.n && pt->c->design.time_basis == c->design.time_basis, comm, FG_ERR_INPUT, "%s: the point's case has another design (design.parameters or design.time_basis differ)", pc->where);
      for (PetscInt i = 0; i < c->design.n; i++) PetscCheck(!strcmp(pt->c->design.parameters[i], c->design.parameters[i]), comm, FG_ERR_INPUT, "%s: the point's case has another design: %s instead of %s", pc->where, pt->c->design.parameters[i], c->design.parameters[i]);
    }
    P->names[k]   = pt->name;
    P->weights[k] = pt->w;
    PetscCall(FGSolverCreate(comm, pt->c, &pt->s));
    PetscCall(FGDesignCreate(pt->s, pt->c, &pt->d));
    PetscCall(FGObjectiveCreate(pt->s, pt->d, &pt->o));
    {
      Vec      v;
      PetscInt N, nloc;
      PetscCall(FGDesignCreateVec(pt->d, &v));
      PetscCall(VecGetSize(v, &N));
      PetscCall(VecGetLocalSize(v, &nloc));
      PetscCall(VecDestroy(&v));
      if (k == 0) nd = N, nl = nloc;
      PetscCheck(N == nd && nloc == nl, comm, FG_ERR_INPUT, "%s: point %s has a design of %" PetscInt_FMT " entries, point %s one of %" PetscInt_FMT " (the points must share the grid and the design)", c->file, pt->name, N, P->pt[0].name, nd);
    }
  }
  /* the points' own design values must be point 1's: the shared design would override a point's
     condition set on a design entry (flow.re with flow.nu in the design, an angle with the shape) */
  if (P->K > 1) {
    Vec       v0, vk;
    PetscInt  ns;
    PetscReal *a, *b;
    PetscCall(FGDesignCreateVec(P->pt[0].d, &v0));
    PetscCall(FGDesignGetValues(P->pt[0].d, v0));
    PetscCall(VecDuplicate(v0, &vk));
    for (PetscInt k = 1; k < P->K; k++) {
      PetscReal diff, nrm;
      PetscCall(FGDesignGetValues(P->pt[k].d, vk));
      PetscCall(FGDesignGetScalars(P->pt[0].d, v0, &ns, &a));
      PetscCall(PetscMalloc1(PetscMax(ns, 1), &b));
      PetscCall(PetscArraycpy(b, a, ns));
      PetscCall(FGDesignGetScalars(P->pt[k].d, vk, &ns, &a));
      for (PetscInt j = 0; j < ns; j++)
        if (a[j] != b[j]) {
          char name[128];
          PetscCall(FGDesignScalarName(P->pt[0].d, j, name, sizeof(name)));
          PetscCall(PetscFree(b));
          SETERRQ(comm, FG_ERR_INPUT, "%s: the point sets design entry %s (%g, the case: %g): the design is shared by the points and would override it; set a condition that is not in design.parameters", c->point[k].where, name, (double)a[j], (double)b[j]);
        }
      PetscCall(PetscFree(b));
      PetscCall(VecAXPY(vk, -1.0, v0));
      PetscCall(VecNorm(vk, NORM_INFINITY, &diff));
      PetscCall(VecNorm(v0, NORM_INFINITY, &nrm));
      PetscCheck(diff <= 0, comm, FG_ERR_INPUT, "%s: the point changes a field block of the design (a density or the initial velocity): the design is shared by the points and would override it", c->point[k].where);
      (void)nrm;
    }
    PetscCall(VecDestroy(&v0));
    PetscCall(VecDestroy(&vk));
  }
  /* the constraint rows */
  for (PetscInt i = 0; i < c->nconstraints; i++) {
    const FGConstraintCase *k   = &c->constraint[i];
    const PetscInt          dim = P->pt[0].s->grid->dim;
    switch (k->kind) {
    case FG_CON_CENTROID:
      for (PetscInt a = 0; a < dim; a++) PetscCall(FGProblemAddRow_Private(P, k, i, -1, a));
      break;
    case FG_CON_THICKNESS:
      for (PetscInt a = 0; a < k->n_at; a++) PetscCall(FGProblemAddRow_Private(P, k, i, -1, a));
      break;
    case FG_CON_LIFT:
    case FG_CON_DRAG:
    case FG_CON_MOMENT:
      for (PetscInt pk = 0; pk < P->K; pk++) {
        FGPoint         *pt = &P->pt[pk];
        FGObjectiveCase *t;
        PetscCheck(P->nrows < FG_OPT_MAX_ROWS, comm, FG_ERR_INPUT, "%s: more than %d constraint rows in all (a flow constraint has one per point)", k->where, FG_OPT_MAX_ROWS);
        t = &pt->term[P->nrows];
        PetscCall(PetscMemzero(t, sizeof(*t)));
        PetscCall(PetscStrncpy(t->name, k->name, sizeof(t->name)));
        PetscCall(PetscStrncpy(t->where, k->where, sizeof(t->where)));
        PetscCall(PetscStrncpy(t->body, k->body, sizeof(t->body)));
        t->kind     = k->kind == FG_CON_LIFT ? FG_OBJ_LIFT : k->kind == FG_CON_DRAG ? FG_OBJ_DRAG : FG_OBJ_MOMENT;
        t->time     = k->time;
        t->n_window = k->n_window;
        t->window[0] = k->window[0];
        t->window[1] = k->window[1];
        t->weight   = 1;
        PetscCall(FGObjectiveCreateTerms(pt->s, pt->d, 1, t, &pt->orow[P->nrows]));
        PetscCall(FGProblemAddRow_Private(P, k, i, pk, 0));
      }
      break;
    case FG_CON_VOLUME_FRACTION: {
      PetscInt             nblk, b = -1;
      const FGDesignBlock *blk;
      PetscCall(FGDesignGetBlocks(P->pt[0].d, &nblk, &blk));
      for (PetscInt j = 0; j < c->nbodies; j++)
        if (!strcmp(c->body[j].name, k->body)) b = j;
      for (PetscInt j = 0; j < nblk; j++)
        if (blk[j].kind == FG_DESIGN_DENSITY && blk[j].index == b) b = -2;
      PetscCheck(b == -2, comm, FG_ERR_INPUT, "%s: body %s's density is not a design parameter (add body.%s.density to design.parameters): its volume fraction cannot change to meet the constraint", k->where, k->body, k->body);
      PetscCall(FGProblemAddRow_Private(P, k, i, -1, 0));
    } break;
    default:
      PetscCall(FGProblemAddRow_Private(P, k, i, -1, 0));
    }
  }
  PetscCall(FGDesignCreateVec(P->pt[0].d, &P->gk));
  PetscCall(VecDuplicate(P->pt[0].s->p, &P->cell[0]));
  PetscCall(VecDuplicate(P->pt[0].s->p, &P->cell[1]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGProblemDestroy(FGProblem *problem)
{
  FGProblem P = *problem;

  PetscFunctionBeginUser;
  if (!P) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < P->K; k++) {
    FGPoint *pt = &P->pt[k];
    for (PetscInt i = 0; i < FG_OPT_MAX_ROWS; i++) PetscCall(FGObjectiveDestroy(&pt->orow[i]));
    PetscCall(FGObjectiveDestroy(&pt->o));
    PetscCall(FGDesignDestroy(&pt->d));
    PetscCall(FGSolverDestroy(&pt->s));
    PetscCall(PetscFree(pt->own));
  }
  PetscCall(FGShapeDestroy(&P->shape));
  PetscCall(VecDestroy(&P->gk));
  PetscCall(VecDestroy(&P->cell[0]));
  PetscCall(VecDestroy(&P->cell[1]));
  PetscCall(PetscFree(*problem));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGProblemGetDesign(FGProblem P, FGDesign *d)
{
  PetscFunctionBeginUser;
  *d = P->pt[0].d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGProblemGetSolver(FGProblem P, PetscInt k, FGSolver *s)
{
  PetscFunctionBeginUser;
  *s = P->pt[k].s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGProblemGetPoints(FGProblem P, PetscInt *K, const char *const **names, const PetscReal **w)
{
  PetscFunctionBeginUser;
  *K = P->K;
  if (names) *names = P->names;
  if (w) *w = P->weights;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGProblemGetRows(FGProblem P, PetscInt *n, FGConstraintRow **rows)
{
  PetscFunctionBeginUser;
  *n    = P->nrows;
  *rows = P->row;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGProblemCreateVec(FGProblem P, Vec *v)
{
  PetscFunctionBeginUser;
  PetscCall(FGDesignCreateVec(P->pt[0].d, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGProblemEvalCreate - an evaluation's Vecs: g, one dq per row, and point 1's dJ/dchi and shape
  sensitivity fields.
@*/
PetscErrorCode FGProblemEvalCreate(FGProblem P, FGEval *e)
{
  FGSolver s = P->pt[0].s;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(e, sizeof(*e)));
  PetscCall(FGDesignCreateVec(P->pt[0].d, &e->g));
  for (PetscInt i = 0; i < P->nrows; i++) PetscCall(VecDuplicate(e->g, &e->dq[i]));
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    PetscCall(VecDuplicate(s->u[a], &e->chibar[a]));
    PetscCall(VecDuplicate(s->u[a], &e->sens[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGProblemEvalDestroy(FGProblem P, FGEval *e)
{
  PetscFunctionBeginUser;
  PetscCall(VecDestroy(&e->g));
  for (PetscInt i = 0; i < FG_OPT_MAX_ROWS; i++) PetscCall(VecDestroy(&e->dq[i]));
  for (PetscInt a = 0; a < 3; a++) {
    PetscCall(VecDestroy(&e->chibar[a]));
    PetscCall(VecDestroy(&e->sens[a]));
  }
  (void)P;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The sample lattice of the geometric rows around a shape: spacing h/4 (h the finest grid
   spacing), anchored at the domain origin, covering the shape's box and its smoothing band. */
static PetscErrorCode FGProblemSampleGrid_Private(FGProblem P, FGShape shape, FGSampleGrid *g, PetscReal *eps)
{
  FGGrid    grid = P->pt[0].s->grid;
  PetscReal lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, hs = PETSC_MAX_REAL;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < grid->dim; d++) hs = PetscMin(hs, grid->ax[d].hmin / 4);
  *eps = 2 * hs;
  PetscCall(FGShapeBoundingBox(shape, lo, hi));
  g->dim = grid->dim;
  for (PetscInt d = 0; d < 3; d++) {
    g->n[d] = 1, g->lo[d] = 0, g->h[d] = 1;
    if (d >= grid->dim) continue;
    {
      const PetscReal o  = grid->x0[d], pad = *eps + 2 * hs;
      const PetscInt  i0 = (PetscInt)PetscFloorReal((lo[d] - pad - o) / hs), i1 = (PetscInt)PetscCeilReal((hi[d] + pad - o) / hs);
      g->lo[d] = o + i0 * hs;
      g->h[d]  = hs;
      g->n[d]  = i1 - i0;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The body's shape at its design placement (t = 0). */
static PetscErrorCode FGProblemShape_Private(FGProblem P, PetscInt b, FGShape *shape, PetscInt *np)
{
  FGSolver  s = P->pt[0].s;
  PetscReal th[FG_BODY_MAX_PARAMS];

  PetscFunctionBeginUser;
  PetscCall(FGBodiesGetShape(s->bodies, b, shape));
  PetscCall(FGShapeDestroy(&P->shape));
  PetscCall(FGShapeDuplicate(*shape, &P->shape)); /* posed at t = 0 here; the body's own shape keeps its placement */
  PetscCall(FGBodiesGetParameters(s->bodies, b, th));
  PetscCall(FGShapeGetNumParameters(P->shape, np));
  PetscCall(FGShapeSetParameters(P->shape, th));
  *shape = P->shape;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* dq (design layout) from the derivatives dth[] of q with respect to body b's shape parameters. */
static PetscErrorCode FGProblemShapeGradient_Private(FGProblem P, PetscInt b, const PetscReal dth[], Vec dq)
{
  PetscInt             nblk;
  const FGDesignBlock *blk;
  PetscScalar         *a;
  PetscMPIInt          rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(P->comm, &rank));
  PetscCall(FGDesignGetBlocks(P->pt[0].d, &nblk, &blk));
  PetscCall(VecSet(dq, 0.0));
  PetscCall(VecGetArray(dq, &a));
  for (PetscInt i = 0; !rank && i < nblk; i++)
    if (blk[i].kind == FG_DESIGN_SHAPE && blk[i].index == b)
      for (PetscInt j = 0; j < blk[i].n; j++) a[blk[i].offset + j] = dth[blk[i].first + j];
  PetscCall(VecRestoreArray(dq, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGProblemGeometricRow_Private(FGProblem P, PetscInt i, PetscBool gradient, FGEval *e)
{
  const FGConstraintRow  *r = &P->row[i];
  const FGConstraintCase *k = &P->c->constraint[r->con];
  FGSolver                s = P->pt[0].s;
  PetscInt                b = -1, np;
  PetscReal               dth[FG_SHAPE_MAX_PARAMS * 3] = {0};
  FGShape                 shape;

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < P->c->nbodies; j++)
    if (!strcmp(P->c->body[j].name, k->body)) b = j;
  PetscCheck(b >= 0, P->comm, FG_ERR_INPUT, "%s: no body %s", k->where, k->body);
  switch (r->kind) {
  case FG_CON_AREA:
  case FG_CON_VOLUME: {
    FGSampleGrid g;
    PetscReal    eps;
    PetscCall(FGProblemShape_Private(P, b, &shape, &np));
    PetscCall(FGProblemSampleGrid_Private(P, shape, &g, &eps));
    PetscCall(FGShapeArea(shape, &g, eps, &e->q[i], dth));
  } break;
  case FG_CON_CENTROID: {
    FGSampleGrid g;
    PetscReal    eps, xc[3], dxc[3 * FG_SHAPE_MAX_PARAMS];
    PetscCall(FGProblemShape_Private(P, b, &shape, &np));
    PetscCall(FGProblemSampleGrid_Private(P, shape, &g, &eps));
    PetscCall(FGShapeCentroid(shape, &g, eps, xc, dxc));
    e->q[i] = xc[r->comp];
    for (PetscInt j = 0; j < np; j++) dth[j] = dxc[r->comp * np + j];
  } break;
  case FG_CON_THICKNESS: {
    PetscReal   th, dt[FG_SHAPE_MAX_PARAMS], chord = 0;
    PetscInt    ic = -1;
    const char *nm;
    PetscCall(FGProblemShape_Private(P, b, &shape, &np));
    PetscCall(FGShapeThickness(shape, k->at[r->comp], &th, dt));
    for (PetscInt j = 0; j < np; j++) {
      PetscCall(FGShapeGetParameterName(shape, j, &nm));
      if (!strcmp(nm, "c")) ic = j;
    }
    PetscCheck(ic >= 0, P->comm, PETSC_ERR_PLIB, "airfoil shape without a chord parameter");
    {
      PetscReal pv[FG_SHAPE_MAX_PARAMS];
      PetscCall(FGShapeGetParameters(shape, pv));
      chord = pv[ic];
    }
    e->q[i] = th / chord; /* thickness / chord */
    for (PetscInt j = 0; j < np; j++) dth[j] = dt[j] / chord;
    dth[ic] -= th / (chord * chord);
  } break;
  case FG_CON_VOLUME_FRACTION: {
    Vec       rho, chi = P->cell[0], bar = P->cell[1];
    FGDensity dens;
    PetscInt  N, nblk;
    PetscReal sum, sign = k->phase == FG_PHASE_SOLID ? 1.0 : -1.0;
    const FGDesignBlock *blk;
    PetscCall(FGBodiesGetDensity(s->bodies, b, &rho, &dens));
    PetscCall(FGDensityMask(dens, rho, chi));
    PetscCall(VecGetSize(chi, &N));
    PetscCall(VecSum(chi, &sum));
    e->q[i] = k->phase == FG_PHASE_SOLID ? sum / N : 1 - sum / N;
    if (gradient) {
      PetscCall(VecSet(bar, sign / N));
      PetscCall(FGDensityMaskAdjoint(dens, rho, bar, chi));
      PetscCall(VecSet(e->dq[i], 0.0));
      PetscCall(FGDesignGetBlocks(P->pt[0].d, &nblk, &blk));
      for (PetscInt j = 0; j < nblk; j++)
        if (blk[j].kind == FG_DESIGN_DENSITY && blk[j].index == b) PetscCall(FGDesignBlockFields(P->pt[0].d, j, e->dq[i], &chi, PETSC_TRUE));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  default:
    SETERRQ(P->comm, PETSC_ERR_PLIB, "not a geometric row");
  }
  if (gradient) PetscCall(FGProblemShapeGradient_Private(P, b, dth, e->dq[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGProblemEvaluate - J, the objective terms at point 1 and the rows' quantities at design p, and
  with `gradient` dJ/dp, dq/dp and point 1's dJ/dchi and shape sensitivity: for each point the
  forward run and adjoint of its objective (FGAdjointCompute; FGAdjointForward without the
  gradient) and of each flow row, then the geometric rows. Stops on SIGUSR1/SIGTERM
  (FG_ERR_SIGNAL) when the case is unsteady. Collective.
@*/
PetscErrorCode FGProblemEvaluate(FGProblem P, Vec p, PetscBool gradient, FGEval *e)
{
  PetscFunctionBeginUser;
  e->gradient = gradient;
  e->J        = 0;
  PetscCall(VecSet(e->g, 0.0));
  for (PetscInt k = 0; k < P->K; k++) {
    FGPoint        *pt = &P->pt[k];
    FGAdjointOutput out;
    PetscReal       Jk;
    PetscCall(PetscMemzero(&out, sizeof(out)));
    out.signals = (PetscBool)(pt->c->adjoint.mode == FG_ADJOINT_UNSTEADY);
    if (k == 0)
      for (PetscInt a = 0; a < pt->s->grid->dim; a++) out.chibar[a] = e->chibar[a], out.sens[a] = e->sens[a];
    if (gradient) {
      PetscCall(FGAdjointCompute(pt->s, pt->d, pt->o, p, &Jk, P->gk, &out));
      PetscCall(VecAXPY(e->g, pt->w, P->gk));
    } else PetscCall(FGAdjointForward(pt->s, pt->d, pt->o, p, &Jk));
    e->Jk[k] = Jk;
    e->J += pt->w * Jk;
    if (k == 0) {
      e->nterms = pt->c->nobjectives;
      for (PetscInt i = 0; i < e->nterms; i++) {
        const char *nm;
        PetscCall(FGObjectiveGetTerm(pt->o, i, &nm, &e->term[i]));
      }
    }
    for (PetscInt i = 0; i < P->nrows; i++) {
      if (P->row[i].point != k) continue;
      PetscCall(PetscMemzero(&out, sizeof(out)));
      out.signals = (PetscBool)(pt->c->adjoint.mode == FG_ADJOINT_UNSTEADY);
      if (gradient) PetscCall(FGAdjointCompute(pt->s, pt->d, pt->orow[i], p, &e->q[i], e->dq[i], &out));
      else PetscCall(FGAdjointForward(pt->s, pt->d, pt->orow[i], p, &e->q[i]));
    }
  }
  PetscCall(FGDesignApply(P->pt[0].d, p));
  for (PetscInt i = 0; i < P->nrows; i++)
    if (!FGProblemRowIsFlow_Private(&P->row[i])) PetscCall(FGProblemGeometricRow_Private(P, i, gradient, e));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGProblemCheckRows - central differences of the geometric constraint rows against their
  gradients at p (flow rows are the adjoint's, which flowgrad check verifies as J): per design
  scalar, step hrel times its scale (FGDesignScalarScale), and per field block its entry with the
  largest |dq/dp|; a difference passes at rtol relative, or when both are below what q resolves
  (|dq/dp| h <= 1e-12 max(|q|, 1)). Prints a table; returns the number of checks and failures.
  Collective.
@*/
PetscErrorCode FGProblemCheckRows(FGProblem P, Vec p, PetscReal hrel, PetscReal rtol, PetscInt *nchecks, PetscInt *nfail)
{
  FGDesign             d = P->pt[0].d;
  FGEval               e, ep;
  Vec                  pp;
  PetscInt             ns, nblk;
  PetscReal           *v;
  const FGDesignBlock *blk;

  PetscFunctionBeginUser;
  *nchecks = *nfail = 0;
  PetscCall(FGProblemEvalCreate(P, &e));
  PetscCall(FGProblemEvalCreate(P, &ep));
  PetscCall(VecDuplicate(p, &pp));
  PetscCall(FGDesignApply(d, p));
  for (PetscInt i = 0; i < P->nrows; i++)
    if (!FGProblemRowIsFlow_Private(&P->row[i])) PetscCall(FGProblemGeometricRow_Private(P, i, PETSC_TRUE, &e));
  PetscCall(PetscPrintf(P->comm, "\n4. constraint rows: central differences (step %g relative) against their gradients, relative tolerance %g\n", (double)hrel, (double)rtol));
  PetscCall(PetscPrintf(P->comm, "   %-18s %-34s %20s %20s %10s\n", "row", "parameter", "gradient", "central difference", "rel"));
  PetscCall(FGDesignGetScalars(d, p, &ns, &v));
  PetscCall(FGDesignGetBlocks(d, &nblk, &blk));
  /* the entries to perturb: every scalar, then one entry per field block and row */
  for (PetscInt i = 0; i < P->nrows; i++) {
    PetscReal gmax = 0; /* the row's largest change over a typical change of one scalar */
    if (FGProblemRowIsFlow_Private(&P->row[i])) continue;
    {
      PetscReal *gs, *pv;
      PetscCall(PetscMalloc1(PetscMax(ns, 1), &pv));
      PetscCall(FGDesignGetScalars(d, p, &ns, &v));
      PetscCall(PetscArraycpy(pv, v, ns));
      PetscCall(FGDesignGetScalars(d, e.dq[i], &ns, &gs));
      for (PetscInt j = 0; j < ns; j++) gmax = PetscMax(gmax, PetscAbsReal(gs[j]) * FGDesignScalarScale(d, j, pv[j]));
      PetscCall(PetscFree(pv));
    }
    for (PetscInt j = -nblk; j < ns; j++) {
      PetscInt    gi = -1; /* the global index of the entry */
      PetscReal   h, g = 0, q[2], fd, mx, rel;
      char        name[128];
      PetscBool   ok, tiny;
      PetscMPIInt rank;
      PetscCallMPI(MPI_Comm_rank(P->comm, &rank));
      if (j < 0) { /* field block -j-1: its entry of largest |dq| */
        const FGDesignBlock *b = &blk[-j - 1];
        PetscInt             lo;
        if (!b->field) continue;
        PetscCall(VecGetOwnershipRange(e.dq[i], &lo, NULL));
        {
          const PetscScalar *a;
          PetscInt           nloc, nc = b->kind == FG_DESIGN_INITIAL ? P->pt[0].s->grid->dim : 1, n1;
          struct {
            double v;
            int    i; /* (MPI_DOUBLE_INT) */
          } in = {-1, -1}, out;
          PetscCall(VecGetLocalSize(P->pt[0].s->p, &n1));
          nloc = nc * n1;
          PetscCall(VecGetArrayRead(e.dq[i], &a));
          for (PetscInt k = 0; k < nloc; k++)
            if (PetscAbsReal(PetscRealPart(a[b->offset + k])) > in.v) in.v = (double)PetscAbsReal(PetscRealPart(a[b->offset + k])), in.i = (int)(lo + b->offset + k);
          PetscCall(VecRestoreArrayRead(e.dq[i], &a));
          PetscCallMPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, P->comm));
          gi = (PetscInt)out.i;
        }
        PetscCall(PetscSNPrintf(name, sizeof(name), "%s[%" PetscInt_FMT "]", b->name, gi));
      } else {
        gi = j; /* scalars: rank 0's first entries */
        PetscCall(FGDesignScalarName(d, j, name, sizeof(name)));
      }
      {
        PetscReal pv = 0;
        PetscInt  lo, hi;
        PetscCall(VecGetOwnershipRange(p, &lo, &hi));
        if (gi >= lo && gi < hi) {
          const PetscScalar *a;
          PetscCall(VecGetArrayRead(p, &a));
          pv = PetscRealPart(a[gi - lo]);
          PetscCall(VecRestoreArrayRead(p, &a));
          PetscCall(VecGetArrayRead(e.dq[i], &a));
          g = PetscRealPart(a[gi - lo]);
          PetscCall(VecRestoreArrayRead(e.dq[i], &a));
        }
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &pv, 1, MPIU_REAL, MPIU_SUM, P->comm));
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &g, 1, MPIU_REAL, MPIU_SUM, P->comm));
        h = hrel * (j < 0 ? 1.0 : FGDesignScalarScale(d, j, pv));
        for (PetscInt side = 0; side < 2; side++) {
          PetscCall(VecCopy(p, pp));
          if (!rank) PetscCall(VecSetValue(pp, gi, side ? -h : h, ADD_VALUES)); /* (once: added up in the assembly) */
          PetscCall(VecAssemblyBegin(pp));
          PetscCall(VecAssemblyEnd(pp));
          PetscCall(FGDesignApply(d, pp));
          PetscCall(FGProblemGeometricRow_Private(P, i, PETSC_FALSE, &ep));
          q[side] = ep.q[i];
        }
      }
      fd   = (q[0] - q[1]) / (2 * h);
      mx   = PetscMax(PetscAbsReal(g), PetscAbsReal(fd));
      rel  = mx > 0 ? PetscAbsReal(g - fd) / mx : 0;
      /* at round-off, or small against the row's largest derivative (a derivative that vanishes
         analytically, like the area's with respect to a translation, is a lattice sum's round-off) */
      tiny = (PetscBool)(mx * h <= 1e-12 * PetscMax(PetscAbsReal(e.q[i]), 1.0) || PetscAbsReal(g - fd) * (h / hrel) <= rtol * gmax);
      ok   = (PetscBool)(rel <= rtol || tiny);
      (*nchecks)++;
      if (!ok) (*nfail)++;
      PetscCall(PetscPrintf(P->comm, "   %-18s %-34s %+20.12e %+20.12e %10.2e  %s\n", P->row[i].name, name, (double)g, (double)fd, (double)rel, ok ? (tiny && rel > rtol ? "ok (both at round-off)" : "ok") : "FAIL"));
    }
  }
  for (PetscInt i = 0; i < P->nrows; i++)
    if (FGProblemRowIsFlow_Private(&P->row[i])) PetscCall(PetscPrintf(P->comm, "   %-18s (a flow row: its gradient is an adjoint's, verified as J's above)\n", P->row[i].name));
  PetscCall(FGDesignApply(d, p));
  PetscCall(VecDestroy(&pp));
  PetscCall(FGProblemEvalDestroy(P, &e));
  PetscCall(FGProblemEvalDestroy(P, &ep));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGProblemSetRowValues - each row's value (the constraint's `value`, or its quantity in e, the
  evaluation at the initial design) and scale.
@*/
PetscErrorCode FGProblemSetRowValues(FGProblem P, const FGEval *e)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < P->nrows; i++) {
    FGConstraintRow        *r = &P->row[i];
    const FGConstraintCase *k = &P->c->constraint[r->con];
    PetscReal               floor_ = 0;
    r->value                         = k->value_initial ? e->q[i] : k->value;
    /* the scale: |v|, not below a size of the quantity (a centroid near the origin, a lift at a
       symmetric start): the body's reference length, 0.01 for force coefficients */
    if (r->kind == FG_CON_CENTROID)
      for (PetscInt b = 0; b < P->c->nbodies; b++)
        if (!strcmp(P->c->body[b].name, k->body)) floor_ = P->c->body[b].ref_length;
    if (FGProblemRowIsFlow_Private(r)) floor_ = 0.01;
    r->scale = PetscMax(PetscAbsReal(r->value), floor_);
    if (r->scale == 0) r->scale = PetscAbsReal(e->q[i]) > 0 ? PetscAbsReal(e->q[i]) : 1.0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* h: >= 0 where an inequality holds, 0 where an equality does (TAO's convention). */
PetscReal FGProblemRowNormalized(const FGConstraintRow *r, PetscReal q)
{
  return (r->relation == FG_REL_LE ? r->value - q : q - r->value) / r->scale;
}

PetscReal FGProblemRowViolation(const FGConstraintRow *r, PetscReal q)
{
  const PetscReal h = FGProblemRowNormalized(r, q);
  return r->relation == FG_REL_EQ ? PetscAbsReal(h) : PetscMax(0.0, -h);
}

/*@C
  FGProblemGetBounds - the bounds and scale of every design entry (design.lower, .upper,
  .max_change around p0, .scale; PETSC_NINFINITY/PETSC_INFINITY where there is none; flow.nu and
  flow.inflow_speed at least 1e-3 of their initial value, so that they stay positive). Errors
  (FG_ERR_INPUT) when p0 is outside its bounds.
@*/
PetscErrorCode FGProblemGetBounds(FGProblem P, Vec p0, Vec lo, Vec hi, Vec scale)
{
  FGDesign             d = P->pt[0].d;
  const FGCase        *c = P->c;
  PetscInt             nblk, nloc, nbad = 0, bad = -1;
  const FGDesignBlock *blk;
  const PetscScalar   *x;
  PetscScalar         *l, *u, *sc;
  PetscMPIInt          rank;
  PetscReal            badv = 0, badb = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(P->comm, &rank));
  PetscCall(FGDesignGetBlocks(d, &nblk, &blk));
  PetscCall(VecGetLocalSize(P->pt[0].s->p, &nloc));
  PetscCall(VecGetArrayRead(p0, &x));
  PetscCall(VecGetArray(lo, &l));
  PetscCall(VecGetArray(hi, &u));
  PetscCall(VecGetArray(scale, &sc));
  for (PetscInt ib = 0; ib < nblk; ib++) {
    const FGDesignBlock *b = &blk[ib];
    PetscInt             e0, n, i = -1; /* i: the block's entry in design.parameters (the blocks are ordered scalars first) */
    for (PetscInt j = 0; j < c->design.n; j++)
      if (!strcmp(c->design.parameters[j], b->name)) i = j;
    PetscCheck(i >= 0, P->comm, PETSC_ERR_PLIB, "design block %s is not in design.parameters", b->name);
    if (b->field) e0 = b->offset, n = (b->kind == FG_DESIGN_INITIAL ? P->pt[0].s->grid->dim : 1) * nloc;
    else if (!rank) e0 = b->offset, n = b->n;
    else continue;
    for (PetscInt j = e0; j < e0 + n; j++) {
      const PetscReal v = PetscRealPart(x[j]);
      PetscReal       L = c->design.has_lower[i] ? c->design.lower[i] : PETSC_NINFINITY, U = c->design.has_upper[i] ? c->design.upper[i] : PETSC_INFINITY;
      if (c->design.has_max_change[i]) L = PetscMax(L, v - c->design.max_change[i]), U = PetscMin(U, v + c->design.max_change[i]);
      if ((b->kind == FG_DESIGN_NU || b->kind == FG_DESIGN_INFLOW) && v > 0) L = PetscMax(L, 1e-3 * v); /* they stay positive */
      l[j] = L, u[j] = U;
      if (c->design.has_scale[i]) sc[j] = c->design.scale[i];
      else sc[j] = b->field ? 1.0 : FGDesignScalarScale(d, j, v);
      if ((v < L || v > U) && !nbad++) bad = i, badv = v, badb = v < L ? L : U;
    }
  }
  PetscCall(VecRestoreArrayRead(p0, &x));
  PetscCall(VecRestoreArray(lo, &l));
  PetscCall(VecRestoreArray(hi, &u));
  PetscCall(VecRestoreArray(scale, &sc));
  {
    PetscInt g[2] = {nbad, bad}, m[2];
    PetscCallMPI(MPI_Allreduce(g, m, 2, MPIU_INT, MPI_MAX, P->comm));
    if (m[0]) {
      PetscReal vb[2] = {bad == m[1] ? badv : -PETSC_MAX_REAL, bad == m[1] ? badb : -PETSC_MAX_REAL}, vm[2];
      PetscCallMPI(MPI_Allreduce(vb, vm, 2, MPIU_REAL, MPI_MAX, P->comm));
      SETERRQ(P->comm, FG_ERR_INPUT, "%s: design.lower/design.upper: the initial value %g of %s is outside its bounds (%g is the bound it passes)", c->design.where[m[1]], (double)vm[0], c->design.parameters[m[1]], (double)vm[1]);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGProblemWriteFields - the iteration's fields (HDF5 + XDMF at path): chi, phi and outline_<body>
  (the bodies' mask, level set and outlines, point 1, at design p; src/body/outline.c), dJ_dchi_x.. and shape_sensitivity of evaluation e (when it has the
  gradient), and per density block rho_<body> and dJ_drho_<body>; the datasets design, gradient
  (+ _names) and constraints (+ _names). Collective.
@*/
PetscErrorCode FGProblemWriteFields(FGProblem P, const char *path, PetscInt iteration, Vec p, const FGEval *e)
{
  FGSolver             s   = P->pt[0].s;
  FGDesign             d   = P->pt[0].d;
  const PetscInt       dim = s->grid->dim;
  FGIOField            f[32];
  FGIOMeta             meta = {0};
  FGIOVector           vecs[3 + FG_CASE_MAX_BODIES];
  FGBodiesOutput       bo;
  PetscInt             nf = 0, nv = 0, ns, nblk, nextra = 0;
  PetscReal           *sv, *pv = NULL, *gv = NULL, qv[FG_OPT_MAX_ROWS];
  char               **names = NULL, fname[2 * FG_CASE_MAX_DESIGN][FG_CASE_NAME_LEN + 16];
  const char          *rnames[FG_OPT_MAX_ROWS];
  const FGDesignBlock *blk;
  Vec                  sens = NULL, extra[2 * FG_CASE_MAX_DESIGN];

  PetscFunctionBeginUser;
  PetscCall(FGDesignApply(d, p));
  PetscCall(FGBodiesOutputAdd(s->bodies, 0.0, s->p, &bo, f, &nf, vecs, &nv));
  if (e->gradient) {
    for (PetscInt a = 0; a < dim; a++) {
      f[nf++] = (FGIOField){.name = (const char *[]){"dJ_dchi_x", "dJ_dchi_y", "dJ_dchi_z"}[a], .location = (FGLocation)(FG_LOC_FACE_X + a), .vec = e->chibar[a]};
    }
    PetscCall(VecDuplicate(s->p, &sens));
    PetscCall(FGGridCellDensity(s->grid, dim, e->sens, sens)); /* per unit volume */
    f[nf++] = (FGIOField){.name = "shape_sensitivity", .location = FG_LOC_CELL, .vec = sens};
  }
  PetscCall(FGDesignGetBlocks(d, &nblk, &blk));
  for (PetscInt i = 0; i < nblk; i++) {
    if (blk[i].kind != FG_DESIGN_DENSITY) continue;
    for (PetscInt w = 0; w < (e->gradient ? 2 : 1); w++) {
      PetscCall(VecDuplicate(s->p, &extra[nextra]));
      PetscCall(FGDesignBlockFields(d, i, w ? e->g : p, &extra[nextra], PETSC_FALSE));
      PetscCall(PetscSNPrintf(fname[nextra], sizeof(fname[0]), "%s_%s", w ? "dJ_drho" : "rho", P->c->body[blk[i].index].name));
      f[nf++] = (FGIOField){.name = fname[nextra], .location = FG_LOC_CELL, .vec = extra[nextra++]};
    }
  }
  PetscCall(FGDesignGetScalars(d, e->g, &ns, &sv));
  PetscCall(PetscMalloc3(PetscMax(ns, 1), &pv, PetscMax(ns, 1), &gv, PetscMax(ns, 1), &names));
  PetscCall(PetscArraycpy(gv, sv, ns));
  PetscCall(FGDesignGetScalars(d, p, &ns, &sv));
  PetscCall(PetscArraycpy(pv, sv, ns));
  for (PetscInt i = 0; i < ns; i++) {
    PetscCall(PetscMalloc1(128, &names[i]));
    PetscCall(FGDesignScalarName(d, i, names[i], 128));
  }
  for (PetscInt i = 0; i < P->nrows; i++) qv[i] = e->q[i], rnames[i] = P->row[i].name;
  if (ns) { /* (HDF5 has no empty datasets here) */
    vecs[nv++] = (FGIOVector){.name = "design", .n = ns, .values = pv, .labels = (const char *const *)names};
    vecs[nv++] = (FGIOVector){.name = "gradient", .n = ns, .values = gv, .labels = (const char *const *)names};
  }
  if (P->nrows) vecs[nv++] = (FGIOVector){.name = "constraints", .n = P->nrows, .values = qv, .labels = rnames};
  meta.time         = 0;
  meta.step         = iteration;
  meta.case_hash    = P->c->hash;
  meta.case_name    = P->c->name;
  meta.nvectors     = nv;
  meta.vectors      = vecs;
  meta.time_is_step = PETSC_TRUE; /* ParaView's time axis: the iterations */
  PetscCall(FGIOWriteFields(s->grid, path, &meta, nf, f));
  for (PetscInt i = 0; i < ns; i++) PetscCall(PetscFree(names[i]));
  PetscCall(PetscFree3(pv, gv, names));
  for (PetscInt i = 0; i < nextra; i++) PetscCall(VecDestroy(&extra[i]));
  PetscCall(VecDestroy(&sens));
  PetscCall(FGBodiesOutputDestroy(&bo));
  PetscFunctionReturn(PETSC_SUCCESS);
}
