/*
  The design vector (include/fg/design.h): blocks named by design.parameters, their layout in one
  PETSc Vec, the map p -> forward inputs (FGDesignApply) and the transposed map of the reverse
  sweep's parameter adjoints to g = dJ/dp (FGDesignGradient).

  Layout: rank 0's local part starts with every scalar block, in the order of design.parameters;
  then, on every rank, each field block's owned entries (the grid's global Vec layout). So the
  scalars are one contiguous array that rank 0 broadcasts, and a field block is a plain
  sub-array of the local part.

  The map writes the solver's parameter values (include/fg/solver.h: viscosity, inflow speed,
  actuator coefficients, bodies' parameters, density fields) and applies them
  (FGSolverSetParams); the case is only read. flow.inflow_speed is U = |velocity| of the first
  inflow face with a nonzero velocity; a change of U scales every inflow face's velocity by U/U_0
  (the profile and the modulation stay).
*/
#include <fg/design.h>
#include <string.h>

struct _p_FGDesign {
  FGSolver      s;
  const FGCase *c;
  PetscInt      nblocks;
  FGDesignBlock block[FG_CASE_MAX_DESIGN];
  PetscInt      nscalar, nlocal;
  PetscReal    *scal;    /* the scalars last applied (nscalar) */
  Vec           work[3]; /* field-block views / work (global Vecs of the grid) */
  Vec           u0[3];   /* the initial velocity: the case's, computed once */
  Vec           p0;      /* the initial pressure: 0, or initial.type file's */
  PetscInt      nbt;     /* the controls' basis functions in time */
};

/* Where design scalar j of block b lives in the parameters' scalars (shape, rotation, jets,
   actuator blocks). */
static PetscInt FGDesignParamIndex_Private(FGDesign d, const FGDesignBlock *b, PetscInt j)
{
  const FGParamLayout *L  = &d->s->layout;
  PetscInt             np = 0;

  if (b->kind == FG_DESIGN_ROTATION || b->kind == FG_DESIGN_JETS) (void)FGBodiesGetShapeParameterCount(d->s->bodies, b->index, &np);
  switch (b->kind) {
  case FG_DESIGN_SHAPE:
    return L->body[b->index] + b->first + j;
  case FG_DESIGN_ROTATION:
    return L->body[b->index] + np + j;
  case FG_DESIGN_JETS:
    return L->body[b->index] + np + d->nbt + j;
  case FG_DESIGN_ACTUATOR:
    return L->act + (3 * b->index + j / d->nbt) * L->nbasis + j % d->nbt;
  default:
    return -1;
  }
}

static PetscErrorCode FGDesignFindName_Private(FGDesign d, const char *name, PetscBool body, PetscInt *idx)
{
  const FGCase *c = d->c;
  PetscInt      n = body ? c->nbodies : c->nactuators;

  PetscFunctionBeginUser;
  *idx = -1;
  for (PetscInt i = 0; i < n; i++) {
    PetscBool eq;
    PetscCall(PetscStrcmp(name, body ? c->body[i].name : c->actuator[i].name, &eq));
    if (eq) *idx = i;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDesignCreate - the design of a case on its solver (after FGSolverCreate). It computes the
  case's initial state once (FGSolverSetInitialCondition), which FGDesignSetInitialState() then
  restores. Errors are FG_ERR_INPUT naming the design entry.
@*/
PetscErrorCode FGDesignCreate(FGSolver s, const FGCase *c, FGDesign *design)
{
  FGDesign       d;
  const PetscInt dim = s->grid->dim;
  PetscInt       nloc, nbt; /* nbt: the controls' basis functions in time */

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&d));
  d->s = s;
  d->c = c;
  *design = d;
  PetscCall(FGBodiesGetTimeBasis(s->bodies, &nbt));
  d->nbt = nbt;
  PetscCall(DMCreateGlobalVector(s->grid->da, &d->work[0]));
  PetscCall(VecGetLocalSize(d->work[0], &nloc));
  for (PetscInt a = 1; a < 3; a++) PetscCall(VecDuplicate(d->work[0], &d->work[a]));
  PetscCall(FGSolverSetInitialCondition(s));
  for (PetscInt a = 0; a < dim; a++) {
    PetscCall(VecDuplicate(s->u[a], &d->u0[a]));
    PetscCall(VecCopy(s->u[a], d->u0[a]));
  }
  PetscCall(VecDuplicate(s->p, &d->p0));
  PetscCall(VecCopy(s->p, d->p0));
  /* the blocks: scalars first */
  for (PetscInt pass = 0; pass < 2; pass++)
    for (PetscInt i = 0; i < c->design.n; i++) {
      const char    *name = c->design.parameters[i], *where = c->design.where[i];
      FGDesignBlock  b;
      char           what[FG_CASE_DESIGN_LEN], *dot, *tail;
      PetscBool      ok = PETSC_TRUE;
      PetscCall(PetscMemzero(&b, sizeof(b)));
      PetscCall(PetscStrncpy(b.name, name, sizeof(b.name)));
      PetscCall(PetscStrncpy(what, name, sizeof(what)));
      if (!strcmp(name, "flow.nu")) {
        b.kind = FG_DESIGN_NU, b.n = 1;
        for (PetscInt k = 0; k < c->nbodies; k++) /* the sharp wall's penalty is nu times the geometry's, fixed when the body is built */
          PetscCheck(c->body[k].wall != FG_WALL_SHARP, s->comm, FG_ERR_INPUT, "%s: flow.nu is not a design parameter with a sharp wall (body.%s.wall: sharp penalizes with the case's nu)", where, c->body[k].name);
      }
      else if (!strcmp(name, "flow.inflow_speed")) {
        b.kind = FG_DESIGN_INFLOW, b.n = 1;
        PetscCheck(s->U0 > 0, s->comm, FG_ERR_INPUT, "%s: flow.inflow_speed: the case has no inflow face with a nonzero velocity", where);
      } else if (!strcmp(name, "initial.velocity")) b.kind = FG_DESIGN_INITIAL, b.n = dim * s->grid->n[0] * s->grid->n[1] * s->grid->n[2], b.field = PETSC_TRUE;
      else if (!strncmp(name, "body.", 5) || !strncmp(name, "actuator.", 9)) {
        PetscBool isbody = (PetscBool)!strncmp(name, "body.", 5);
        char     *nm     = what + (isbody ? 5 : 9);
        dot              = strrchr(nm, '.');
        PetscCheck(dot, s->comm, FG_ERR_INPUT, "%s: '%s' is not a design parameter", where, name);
        *dot = 0, tail = dot + 1;
        if (isbody && strrchr(nm, '.') && !strcmp(strrchr(nm, '.') + 1, "shape")) { /* body.NAME.shape.PARAM */
          char *d2 = strrchr(nm, '.');
          *d2      = 0;
          PetscCall(FGDesignFindName_Private(d, nm, isbody, &b.index));
          PetscCheck(b.index >= 0, s->comm, FG_ERR_INPUT, "%s: '%s': the case has no body '%s'", where, name, nm);
          PetscCheck(c->body[b.index].shape != FG_BODY_DENSITY, s->comm, FG_ERR_INPUT, "%s: '%s': body '%s' is a density body (its design parameter is body.%s.density)", where, name, nm, nm);
          {
            PetscInt np, k = -1;
            char     pn[64], known[512] = "";
            PetscCall(FGBodiesGetShapeParameterCount(s->bodies, b.index, &np));
            for (PetscInt q = 0; q < np; q++) {
              PetscCall(FGBodiesGetParameterName(s->bodies, b.index, q, pn, sizeof(pn)));
              if (!strcmp(pn, tail)) k = q;
              PetscCall(PetscStrlcat(known, q ? ", " : "", sizeof(known)));
              PetscCall(PetscStrlcat(known, pn, sizeof(known)));
            }
            PetscCheck(k >= 0, s->comm, FG_ERR_INPUT, "%s: '%s': shape %s has no parameter '%s' (it has %s)", where, name, FGBodyShapeNames[c->body[b.index].shape], tail, known);
            b.kind = FG_DESIGN_SHAPE, b.n = 1, b.first = k;
          }
          goto placed;
        }
        PetscCall(FGDesignFindName_Private(d, nm, isbody, &b.index));
        PetscCheck(b.index >= 0, s->comm, FG_ERR_INPUT, "%s: '%s': the case has no %s '%s'", where, name, isbody ? "body" : "actuator", nm);
        if (!isbody) {
          PetscCheck(!strcmp(tail, "force"), s->comm, FG_ERR_INPUT, "%s: '%s': an actuator's design parameter is its force", where, name);
          b.kind = FG_DESIGN_ACTUATOR, b.n = dim * nbt;
        } else {
          const FGBodyCase *bc = &c->body[b.index];
          PetscInt          np;
          PetscCall(FGBodiesGetShapeParameterCount(s->bodies, b.index, &np));
          if (!strcmp(tail, "shape")) b.kind = FG_DESIGN_SHAPE, b.n = np, ok = (PetscBool)(bc->shape != FG_BODY_DENSITY);
          else if (!strcmp(tail, "rotation_rate")) b.kind = FG_DESIGN_ROTATION, b.n = nbt, ok = (PetscBool)(bc->shape != FG_BODY_DENSITY);
          else if (!strcmp(tail, "jet_amplitude")) b.kind = FG_DESIGN_JETS, b.n = bc->n_jets * nbt, ok = (PetscBool)(bc->n_jets > 0);
          else if (!strcmp(tail, "density")) {
            b.kind = FG_DESIGN_DENSITY, b.n = s->grid->n[0] * s->grid->n[1] * s->grid->n[2], b.field = PETSC_TRUE;
            ok = (PetscBool)(bc->shape == FG_BODY_DENSITY);
            if (ok && pass == 1) PetscCall(FGBodiesSetDensityDifferentiable(s->bodies, b.index));
          } else SETERRQ(s->comm, FG_ERR_INPUT, "%s: '%s' is not a design parameter (a body has shape, rotation_rate, jet_amplitude or density)", where, name);
          PetscCheck(ok, s->comm, FG_ERR_INPUT, "%s: '%s' does not apply to body '%s' (shape %s%s)", where, name, bc->name, FGBodyShapeNames[bc->shape], bc->n_jets ? ", with jets" : ", no jets");
          if (b.kind == FG_DESIGN_SHAPE || b.kind == FG_DESIGN_ROTATION) {
            PetscBool exact;
            PetscCall(FGBodiesGetParameterSupport(s->bodies, b.index, b.kind == FG_DESIGN_SHAPE ? 0 : np, &exact));
            PetscCheck(exact, s->comm, FG_ERR_INPUT, "%s: '%s': not differentiable for body '%s' (shape %s, %s): circles and spheres only", where, name, bc->name, FGBodyShapeNames[bc->shape], bc->n_jets ? "with jets: their normal's derivative" : bc->wall == FG_WALL_SHARP ? "a sharp wall: a rotation moves its surface" : "skin_normal: a rotation moves its surface");
          }
        }
      } else SETERRQ(s->comm, FG_ERR_INPUT, "%s: '%s' is not a design parameter (see docs/adjoint.md)", where, name);
    placed:
      if (b.kind == FG_DESIGN_SHAPE && b.n == 1) {
        PetscBool exact;
        PetscCall(FGBodiesGetParameterSupport(s->bodies, b.index, 0, &exact));
        PetscCheck(exact, s->comm, FG_ERR_INPUT, "%s: '%s': the derivative of a jet's normal on a %s is not implemented (jets: circles and spheres only)", where, name, FGBodyShapeNames[c->body[b.index].shape]);
      }
      if ((pass == 0) == (PetscBool)!b.field) {
        for (PetscInt j = 0; j < d->nblocks; j++) PetscCheck(strcmp(d->block[j].name, name), s->comm, FG_ERR_INPUT, "%s: '%s' is listed twice", where, name);
        if (b.field) {
          b.offset = d->nlocal;
          d->nlocal += (b.kind == FG_DESIGN_INITIAL ? dim : 1) * nloc;
        } else {
          b.offset = d->nscalar;
          d->nscalar += b.n;
        }
        d->block[d->nblocks++] = b;
      }
    }
  /* rank 0 holds the scalars ahead of its field entries */
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
    if (rank == 0)
      for (PetscInt i = 0; i < d->nblocks; i++)
        if (d->block[i].field) d->block[i].offset += d->nscalar;
    if (rank == 0) d->nlocal += d->nscalar;
  }
  PetscCall(PetscCalloc1(PetscMax(d->nscalar, 1), &d->scal));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGDesignDestroy(FGDesign *design)
{
  PetscFunctionBeginUser;
  if (!*design) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt a = 0; a < 3; a++) {
    PetscCall(VecDestroy(&(*design)->work[a]));
    PetscCall(VecDestroy(&(*design)->u0[a]));
  }
  PetscCall(VecDestroy(&(*design)->p0));
  PetscCall(PetscFree((*design)->scal));
  PetscCall(PetscFree(*design));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGDesignGetBlocks(FGDesign d, PetscInt *n, const FGDesignBlock **blocks)
{
  PetscFunctionBeginUser;
  *n      = d->nblocks;
  *blocks = d->block;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDesignCreateVec - a Vec with the design's layout (values not set).
@*/
PetscErrorCode FGDesignCreateVec(FGDesign d, Vec *p)
{
  PetscFunctionBeginUser;
  PetscCall(VecCreateMPI(d->s->comm, d->nlocal, PETSC_DETERMINE, p));
  PetscCall(PetscObjectSetName((PetscObject)*p, "design"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copy between a field block's entries and global Vecs of the grid (to_vec: block -> Vecs). */
static PetscErrorCode FGDesignField_Private(FGDesign d, const FGDesignBlock *b, PetscScalar *arr, Vec v[], PetscBool to_vec)
{
  PetscInt nloc, nc = b->kind == FG_DESIGN_INITIAL ? d->s->grid->dim : 1;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(d->work[0], &nloc));
  for (PetscInt a = 0; a < nc; a++) {
    PetscScalar *x;
    PetscCall(VecGetArray(v[a], &x));
    if (to_vec) PetscCall(PetscArraycpy(x, arr + b->offset + a * nloc, nloc));
    else PetscCall(PetscArraycpy(arr + b->offset + a * nloc, x, nloc));
    PetscCall(VecRestoreArray(v[a], &x));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDesignBlockFields - copy field block i of the design-layout Vec p to the grid's global Vecs v
  (one per component: density 1, initial.velocity dim), or back with to_design (p is written on
  every rank). Collective.
@*/
PetscErrorCode FGDesignBlockFields(FGDesign d, PetscInt i, Vec p, Vec v[], PetscBool to_design)
{
  PetscScalar *arr;

  PetscFunctionBeginUser;
  PetscCheck(i >= 0 && i < d->nblocks && d->block[i].field, d->s->comm, PETSC_ERR_ARG_OUTOFRANGE, "design block %" PetscInt_FMT " is not a field block", i);
  PetscCall(VecGetArray(p, &arr));
  PetscCall(FGDesignField_Private(d, &d->block[i], arr, v, (PetscBool)!to_design));
  PetscCall(VecRestoreArray(p, &arr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDesignGetValues - the current forward inputs as a design vector (the case's values, or the
  last applied ones). Collective.
@*/
PetscErrorCode FGDesignGetValues(FGDesign d, Vec p)
{
  FGSolver     s = d->s;
  PetscScalar *arr;
  PetscMPIInt  rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCall(VecGetArray(p, &arr));
  for (PetscInt i = 0; i < d->nblocks; i++) {
    const FGDesignBlock *b = &d->block[i];
    if (b->field) {
      if (b->kind == FG_DESIGN_INITIAL) PetscCall(FGDesignField_Private(d, b, arr, d->u0, PETSC_FALSE));
      else PetscCall(FGDesignField_Private(d, b, arr, &s->prm.rho[b->index], PETSC_FALSE));
      continue;
    }
    if (rank) continue;
    for (PetscInt j = 0; j < b->n; j++) {
      switch (b->kind) {
      case FG_DESIGN_NU:
        arr[b->offset + j] = s->prm.v[FG_PARAM_NU];
        break;
      case FG_DESIGN_INFLOW:
        arr[b->offset + j] = s->prm.v[FG_PARAM_INFLOW];
        break;
      default:
        arr[b->offset + j] = s->prm.v[FGDesignParamIndex_Private(d, b, j)];
        break;
      }
    }
  }
  PetscCall(VecRestoreArray(p, &arr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDesignGetScalars - the scalar entries of p on every rank (a pointer into the design; valid
  until the next call). Collective.
@*/
PetscErrorCode FGDesignGetScalars(FGDesign d, Vec p, PetscInt *n, PetscReal **v)
{
  const PetscScalar *arr;
  PetscMPIInt        rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(d->s->comm, &rank));
  PetscCall(VecGetArrayRead(p, &arr));
  if (!rank)
    for (PetscInt i = 0; i < d->nscalar; i++) d->scal[i] = PetscRealPart(arr[i]);
  PetscCall(VecRestoreArrayRead(p, &arr));
  PetscCallMPI(MPI_Bcast(d->scal, (PetscMPIInt)d->nscalar, MPIU_REAL, 0, d->s->comm));
  *n = d->nscalar;
  *v = d->scal;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDesignScalarName - "flow.nu", "body.cyl.shape.r", "body.cyl.jet_amplitude[1]", "actuator.a.force[y]", ...
@*/
PetscErrorCode FGDesignScalarName(FGDesign d, PetscInt i, char name[], size_t len)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < d->nblocks; k++) {
    const FGDesignBlock *b = &d->block[k];
    PetscInt             j = i - b->offset;
    if (b->field || j < 0 || j >= b->n) continue;
    switch (b->kind) {
    case FG_DESIGN_SHAPE: {
      char pn[64];
      PetscCall(FGBodiesGetParameterName(d->s->bodies, b->index, b->first + j, pn, sizeof(pn)));
      if (b->n == 1 && strcmp(strrchr(b->name, '.') + 1, "shape")) PetscCall(PetscStrncpy(name, b->name, len)); /* body.NAME.shape.PARAM */
      else PetscCall(PetscSNPrintf(name, len, "%s.%s", b->name, pn));
    } break;
    case FG_DESIGN_ROTATION: /* with a basis in time: [k], the value at t_k = k T/(nb - 1) */
      if (d->nbt == 1) PetscCall(PetscStrncpy(name, b->name, len));
      else PetscCall(PetscSNPrintf(name, len, "%s[%" PetscInt_FMT "]", b->name, j));
      break;
    case FG_DESIGN_JETS:
      if (d->nbt == 1) PetscCall(PetscSNPrintf(name, len, "%s[%" PetscInt_FMT "]", b->name, j));
      else PetscCall(PetscSNPrintf(name, len, "%s[%" PetscInt_FMT "][%" PetscInt_FMT "]", b->name, j / d->nbt, j % d->nbt));
      break;
    case FG_DESIGN_ACTUATOR:
      if (d->nbt == 1) PetscCall(PetscSNPrintf(name, len, "%s[%c]", b->name, "xyz"[j]));
      else PetscCall(PetscSNPrintf(name, len, "%s[%c][%" PetscInt_FMT "]", b->name, "xyz"[j / d->nbt], j % d->nbt));
      break;
    default:
      PetscCall(PetscStrncpy(name, b->name, len));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  SETERRQ(d->s->comm, PETSC_ERR_ARG_OUTOFRANGE, "no design scalar %" PetscInt_FMT, i);
}

/*@C
  FGDesignIsControl - whether scalar i is a control (a rotation rate, jet amplitude or actuator
  force: what objective kind control_cost measures).
@*/
PetscErrorCode FGDesignIsControl(FGDesign d, PetscInt i, PetscBool *ctl)
{
  PetscFunctionBeginUser;
  *ctl = PETSC_FALSE;
  for (PetscInt k = 0; k < d->nblocks; k++) {
    const FGDesignBlock *b = &d->block[k];
    if (!b->field && i >= b->offset && i < b->offset + b->n) *ctl = (PetscBool)(b->kind == FG_DESIGN_ROTATION || b->kind == FG_DESIGN_JETS || b->kind == FG_DESIGN_ACTUATOR);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDesignApply - set the solver's parameters from p (viscosity, inflow, bodies, actuators,
  density fields) and apply them (FGSolverSetParams); the initial velocity is applied by
  FGDesignSetInitialState. Collective.
@*/
PetscErrorCode FGDesignApply(FGDesign d, Vec p)
{
  FGSolver           s = d->s;
  PetscInt           ns;
  PetscReal         *v;
  const PetscScalar *arr;

  PetscFunctionBeginUser;
  PetscCall(FGDesignGetScalars(d, p, &ns, &v));
  for (PetscInt i = 0; i < d->nblocks; i++) {
    const FGDesignBlock *b = &d->block[i];
    switch (b->kind) {
    case FG_DESIGN_NU:
      PetscCheck(v[b->offset] > 0, s->comm, FG_ERR_INPUT, "design: flow.nu = %g must be positive", (double)v[b->offset]);
      s->prm.v[FG_PARAM_NU] = v[b->offset];
      break;
    case FG_DESIGN_INFLOW:
      s->prm.v[FG_PARAM_INFLOW] = v[b->offset];
      break;
    case FG_DESIGN_SHAPE:
    case FG_DESIGN_ROTATION:
    case FG_DESIGN_JETS:
    case FG_DESIGN_ACTUATOR:
      for (PetscInt j = 0; j < b->n; j++) s->prm.v[FGDesignParamIndex_Private(d, b, j)] = v[b->offset + j];
      break;
    case FG_DESIGN_DENSITY:
      PetscCall(VecGetArrayRead(p, &arr));
      PetscCall(FGDesignField_Private(d, b, (PetscScalar *)arr, &s->prm.rho[b->index], PETSC_TRUE));
      PetscCall(VecRestoreArrayRead(p, &arr));
      break;
    default:
      break;
    }
  }
  PetscCall(FGSolverSetParams(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDesignSetInitialState - put the solver at t = 0 in the initial state: the case's initial
  condition as computed once by FGDesignCreate (so it does not change with the other design
  parameters), or the initial.velocity block of p; the pressure the case's (0, or initial.type
  file's), the stage right-hand sides 0; the blow-up flag (FGSolverCheckFlow) cleared.
@*/
PetscErrorCode FGDesignSetInitialState(FGDesign d, Vec p)
{
  FGSolver s = d->s;

  PetscFunctionBeginUser;
  s->t     = 0;
  s->step  = 0;
  s->blown = PETSC_FALSE;
  PetscCall(VecCopy(d->p0, s->p));
  for (PetscInt a = 0; a < s->grid->dim; a++) {
    PetscCall(VecCopy(d->u0[a], s->u[a]));
    PetscCall(VecSet(s->Hold[a], 0.0));
  }
  for (PetscInt i = 0; i < d->nblocks; i++)
    if (d->block[i].kind == FG_DESIGN_INITIAL) {
      const PetscScalar *arr;
      PetscCall(VecGetArrayRead(p, &arr));
      PetscCall(FGDesignField_Private(d, &d->block[i], (PetscScalar *)arr, s->u, PETSC_TRUE));
      PetscCall(VecRestoreArrayRead(p, &arr));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDesignGradient - g = the transposed design maps applied to the reverse sweep's reduced
  parameter adjoints bar (and, for initial.velocity, the adjoint velocity at t = 0, ubar0);
  g is overwritten. Collective.
@*/
PetscErrorCode FGDesignGradient(FGDesign d, const FGParams *bar, Vec ubar0[], Vec g)
{
  FGSolver     s = d->s;
  PetscScalar *arr;
  PetscMPIInt  rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCall(VecSet(g, 0.0));
  for (PetscInt i = 0; i < d->nblocks; i++) {
    const FGDesignBlock *b = &d->block[i];
    if (b->kind == FG_DESIGN_DENSITY) {
      FGDensity dens;
      Vec       rho;
      PetscCall(FGBodiesGetDensity(s->bodies, b->index, &rho, &dens));
      PetscCall(VecSet(d->work[1], 0.0));
      for (PetscInt a = 0; a < s->grid->dim; a++) PetscCall(FGDensityFaceMaskAdjoint(dens, bar->chif[b->index][a], a, d->work[1])); /* adds */
      PetscCall(FGDensityMaskAdjoint(dens, rho, d->work[1], d->work[0]));
      PetscCall(VecGetArray(g, &arr));
      PetscCall(FGDesignField_Private(d, b, arr, &d->work[0], PETSC_FALSE));
      PetscCall(VecRestoreArray(g, &arr));
    }
    if (b->kind == FG_DESIGN_INITIAL) {
      PetscCall(VecGetArray(g, &arr));
      PetscCall(FGDesignField_Private(d, b, arr, ubar0, PETSC_FALSE));
      PetscCall(VecRestoreArray(g, &arr));
    }
  }
  /* every rank takes the array (a write access invalidates PETSc's cached norms on each rank;
     only rank 0 writes the scalars), so that a later VecNorm is collective everywhere */
  PetscCall(VecGetArray(g, &arr));
  if (!rank) PetscCall(FGDesignGradientScalars(d, bar, arr));
  PetscCall(VecRestoreArray(g, &arr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDesignGradientScalars - the scalar blocks' part of FGDesignGradient: v[i] = dJ/dp_i for the
  design scalars i (at their offsets) from the reduced parameter adjoints.

  Not collective.
@*/
PetscErrorCode FGDesignGradientScalars(FGDesign d, const FGParams *bar, PetscReal v[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < d->nblocks; i++) {
    const FGDesignBlock *b = &d->block[i];
    if (b->field) continue;
    for (PetscInt j = 0; j < b->n; j++) {
      switch (b->kind) {
      case FG_DESIGN_NU:
        v[b->offset + j] = bar->v[FG_PARAM_NU];
        break;
      case FG_DESIGN_INFLOW: /* the adjoint of the relative change dU/U: dJ/dU = it / U */
        v[b->offset + j] = bar->v[FG_PARAM_INFLOW] / d->scal[b->offset];
        break;
      default:
        v[b->offset + j] = bar->v[FGDesignParamIndex_Private(d, b, j)];
        break;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* splitmix64 of an entry's key and the bits of its value */
static unsigned long long FGDesignHashEntry_Private(unsigned long long key, double v)
{
  unsigned long long x;
  memcpy(&x, &v, sizeof(x));
  x ^= 0x9e3779b97f4a7c15ULL * (key + 1);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/*@C
  FGDesignHash - a 64-bit hash of the design vector's values that does not depend on the number
  of ranks, for the adjoint's checkpoint files: the sum over the entries of a hash of each entry's
  key and bits, the key of a scalar its index, of a field entry its block, component and cell
  (i, j, k) in the natural grid order.

  Collective.
@*/
PetscErrorCode FGDesignHash(FGDesign d, Vec p, unsigned long long *hash)
{
  FGGrid             g = d->s->grid;
  const PetscScalar *a;
  PetscInt           xs, ys, zs, xm, ym, zm, nloc;
  PetscMPIInt        rank;
  unsigned long long h = 0, ncell;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(d->s->comm, &rank));
  PetscCall(DMDAGetCorners(g->da, &xs, &ys, &zs, &xm, &ym, &zm));
  nloc  = xm * ym * zm;
  ncell = (unsigned long long)g->n[0] * (unsigned long long)g->n[1] * (unsigned long long)g->n[2];
  PetscCall(VecGetArrayRead(p, &a));
  if (!rank)
    for (PetscInt i = 0; i < d->nscalar; i++) h += FGDesignHashEntry_Private((unsigned long long)i, (double)a[i]);
  for (PetscInt b = 0; b < d->nblocks; b++) {
    const FGDesignBlock *blk = &d->block[b];
    const PetscInt       nc  = blk->kind == FG_DESIGN_INITIAL ? g->dim : 1;
    if (!blk->field) continue;
    for (PetscInt c = 0; c < nc; c++)
      for (PetscInt l = 0; l < nloc; l++) {
        const PetscInt           i = xs + l % xm, j = ys + (l / xm) % ym, k = zs + l / (xm * ym);
        const unsigned long long cell = ((unsigned long long)k * (unsigned long long)g->n[1] + (unsigned long long)j) * (unsigned long long)g->n[0] + (unsigned long long)i;
        h += FGDesignHashEntry_Private(((unsigned long long)(b * 3 + c) + 1) * ncell + cell + (unsigned long long)d->nscalar, (double)a[blk->offset + c * nloc + l]);
      }
  }
  PetscCall(VecRestoreArrayRead(p, &a));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &h, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, d->s->comm));
  *hash = h;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDesignScalarScale - a typical size of design scalar i with value v, for perturbations (finite
  differences, Taylor directions): the grid spacing for a body's placement coordinates (their
  value depends on where the origin is), else |v|, or 1 when v = 0 (an angle, a jet that is off).
@*/
PetscReal FGDesignScalarScale(FGDesign d, PetscInt i, PetscReal v)
{
  const PetscInt dim = d->s->grid->dim;
  for (PetscInt k = 0; k < d->nblocks; k++) {
    const FGDesignBlock *b = &d->block[k];
    if (!b->field && b->kind == FG_DESIGN_SHAPE && i >= b->offset && i < b->offset + b->n && b->first + (i - b->offset) < dim) {
      PetscReal h = 0;
      for (PetscInt e = 0; e < dim; e++) h = PetscMax(h, d->s->grid->ax[e].hmin); /* h; stretched: the finest */
      return h;
    }
  }
  return v != 0 ? PetscAbsReal(v) : 1.0;
}
