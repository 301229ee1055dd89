/*
  The case keys of the bodies and probes (body.<name>, probe.<name>): which keys apply to which
  body shape (a circle's radius, a naca body's code, a density body's field), the defaults taken
  from flow (eta, ref_length, ref_speed, ref_area), the checks of a body's shape, semi-axes, NACA
  code and control values in time, and whether a probe has a reference point. These are the
  callbacks of their rows in the key table (keys.c), run by validate.c (steps 5 and 6). Like
  validate.c, every error names the file, line and key and is FG_ERR_INPUT on every rank.
*/
#include "caseimpl.h"
#include <string.h>

static FGBodyCase *FGCaseBody_Private(FGCaseCtx ctx, const FGKeyRef *ref)
{
  return (FGBodyCase *)FGCaseInstance_Internal(ctx, ref);
}

/* Bodies: the keys that apply to some shapes only. */
#define FG_SHAPE(s) (1u << (s))

/* Whether the key applies to its body's shape: one of `shapes`, named in `which` (NULL: every
   shape but density). `why` says why not, or, when it applies, why it is needed (for the
   missing-key message of a required key). */
static PetscBool FGCaseBodyIs_Private(FGCaseCtx ctx, const FGKeyRef *ref, unsigned shapes, const char *which, char *why, size_t len)
{
  const FGBodyCase *b    = FGCaseBody_Private(ctx, ref);
  const char       *leaf = strrchr(ref->path, '.') + 1;

  if (shapes & FG_SHAPE(b->shape)) {
    snprintf(why, len, "required for %s bodies", FGBodyShapeNames[b->shape]);
    return PETSC_TRUE;
  }
  if (which) snprintf(why, len, "%s applies to %s bodies; body.%s is a %s body", leaf, which, b->name, FGBodyShapeNames[b->shape]);
  else snprintf(why, len, "%s does not apply to density bodies (body.%s is a per-cell field)", leaf, b->name);
  return PETSC_FALSE;
}

PetscBool FGCaseAppliesBodySolid_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, ~FG_SHAPE(FG_BODY_DENSITY), NULL, why, len);
}

/* The mask band's keys (mask_width, mask_profile, skin_layer): not with a sharp wall. */
PetscBool FGCaseAppliesBodyBand_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  const FGBodyCase *b    = FGCaseBody_Private(ctx, ref);
  const char       *leaf = strrchr(ref->path, '.') + 1;

  if (!FGCaseAppliesBodySolid_Internal(ctx, ref, why, len)) return PETSC_FALSE;
  if (b->wall == FG_WALL_SHARP) snprintf(why, len, "%s does not apply with a sharp wall (body.%s.wall: sharp has no mask band)", leaf, b->name);
  return (PetscBool)(b->wall != FG_WALL_SHARP);
}

/* The sharp wall's keys (apertures). */
PetscBool FGCaseAppliesBodySharp_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  const FGBodyCase *b    = FGCaseBody_Private(ctx, ref);
  const char       *leaf = strrchr(ref->path, '.') + 1;

  if (!FGCaseAppliesBodySolid_Internal(ctx, ref, why, len)) return PETSC_FALSE;
  if (b->wall != FG_WALL_SHARP) snprintf(why, len, "%s applies with a sharp wall only (body.%s.wall: sharp)", leaf, b->name);
  return (PetscBool)(b->wall == FG_WALL_SHARP);
}

/* apertures weight the Poisson operator face by face: the KSP solver only. */
PetscErrorCode FGCaseCheckBodyApertures_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGBodyCase *b = FGCaseBody_Private(ctx, ref);
  char              where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (!b->apertures || ctx->c->poisson.type == FG_POISSON_KSP) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: true needs poisson.type: ksp (the apertures weight the pressure Poisson operator face by face; the FFTW solver takes constant coefficients only)", where);
}

/* line_flux: with apertures (its grazing lines blend into them) on every body that has them, 2D,
   a body at rest whose rotation and jets are not designed either (the lines' quadratics pass
   through u = 0 at the wall). */
PetscErrorCode FGCaseCheckBodyLineFlux_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGBodyCase *b = FGCaseBody_Private(ctx, ref);
  const FGCase     *c = ctx->c;
  char              where[FG_CASE_WHERE_LEN], pre[FG_CASE_NAME_LEN + 8];
  PetscBool         moves = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (!b->line_flux) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCheck(b->apertures, ctx->comm, FG_ERR_INPUT, "%s: true needs body.%s.apertures: true (the lines that graze the surface blend into the apertures)", where, b->name);
  PetscCheck(ctx->dim == 2, ctx->comm, FG_ERR_INPUT, "%s: true is 2D only (in 3D a face's open part is two-dimensional: not built)", where);
  for (PetscInt d = 0; d < 3; d++) moves = (PetscBool)(moves || b->velocity[d] != 0 || b->oscillation_amplitude[d] != 0);
  moves = (PetscBool)(moves || b->rotation_rate != 0 || b->rotation_amplitude != 0 || b->n_rate_values || b->n_jets);
  PetscCheck(!moves, ctx->comm, FG_ERR_INPUT, "%s: true needs a body at rest (no velocity, oscillation, rotation or jets: the lines' quadratics pass through u = 0 at the wall)", where);
  for (PetscInt i = 0; i < c->nbodies; i++)
    PetscCheck(!c->body[i].apertures || c->body[i].line_flux, ctx->comm, FG_ERR_INPUT, "%s: true with body.%s.apertures: true but not its line_flux: the lines replace the apertures in the projection, so every body with apertures needs line_flux: true too", where, c->body[i].name);
  snprintf(pre, sizeof(pre), "body.%s.", b->name);
  for (PetscInt i = 0; i < c->design.n; i++) {
    const char *p = c->design.parameters[i];
    PetscCheck(strncmp(p, pre, strlen(pre)) || !strncmp(p + strlen(pre), "shape", 5), ctx->comm, FG_ERR_INPUT, "%s: %s: body.%s.line_flux needs a body at rest; design its shape only", c->design.where[i], p, b->name);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* shared_ghost: with line_flux (so 2D, at rest, with apertures, its shape alone designed), not with
   quadratic_ghost. */
PetscErrorCode FGCaseCheckBodySharedGhost_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGBodyCase *b = FGCaseBody_Private(ctx, ref);
  char              where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (!b->shared_ghost) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCheck(b->line_flux, ctx->comm, FG_ERR_INPUT, "%s: true needs body.%s.line_flux: true (the shared ghost is built and measured with the lines' continuity)", where, b->name);
  PetscCheck(!b->quadratic_ghost, ctx->comm, FG_ERR_INPUT, "%s: true replaces body.%s.quadratic_ghost: set one of them", where, b->name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* mask_offset without a soft skin; skin_offset and core_depth with one. */
PetscBool FGCaseAppliesBodyStiff_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  const FGBodyCase *b = FGCaseBody_Private(ctx, ref);

  if (!FGCaseAppliesBodyBand_Internal(ctx, ref, why, len)) return PETSC_FALSE;
  if (b->skin_layer > 0) snprintf(why, len, "mask_offset does not apply with a soft skin (body.%s.skin_layer > 0): skin_offset places its band", b->name);
  return (PetscBool)(b->skin_layer <= 0);
}

PetscBool FGCaseAppliesBodySkin_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  const FGBodyCase *b    = FGCaseBody_Private(ctx, ref);
  const char       *leaf = strrchr(ref->path, '.') + 1;

  if (!FGCaseAppliesBodySolid_Internal(ctx, ref, why, len)) return PETSC_FALSE;
  if (b->skin_layer <= 0) snprintf(why, len, "%s applies with a soft skin only (body.%s.skin_layer > 0)", leaf, b->name);
  return (PetscBool)(b->skin_layer > 0);
}

/* skin_offset: auto, or a depth in cells in [-3, 3]. */
PetscErrorCode FGCaseCheckBodySkinOffset_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGBodyCase *b = FGCaseBody_Private(ctx, ref);
  char        where[FG_CASE_WHERE_LEN], *end;
  double      x;

  PetscFunctionBeginUser;
  b->skin_offset_auto  = (PetscBool)!strcmp(b->skin_offset, "auto");
  b->skin_offset_cells = 0;
  if (b->skin_offset_auto) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  x = strtod(b->skin_offset, &end);
  PetscCheck(end != b->skin_offset && !*end && x >= -3 && x <= 3, ctx->comm, FG_ERR_INPUT, "%s: '%s': expected auto or a depth in cells in [-3, 3]", where, b->skin_offset);
  b->skin_offset_cells = (PetscReal)x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool FGCaseAppliesBodyRadius_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_CIRCLE) | FG_SHAPE(FG_BODY_SPHERE) | FG_SHAPE(FG_BODY_FOURIER), "circle, sphere and fourier", why, len);
}

PetscBool FGCaseAppliesBodySemiAxes_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_ELLIPSE) | FG_SHAPE(FG_BODY_ELLIPSOID), "ellipse and ellipsoid", why, len);
}

PetscBool FGCaseAppliesBodyFourier_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_FOURIER), "fourier", why, len);
}

PetscBool FGCaseAppliesBodyNaca_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_NACA), "naca", why, len);
}

PetscBool FGCaseAppliesBodyChord_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_NACA) | FG_SHAPE(FG_BODY_CST), "naca and cst", why, len);
}

PetscBool FGCaseAppliesBodyCst_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_CST), "cst", why, len);
}

PetscBool FGCaseAppliesBodyBspline_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_BSPLINE), "bspline", why, len);
}

PetscBool FGCaseAppliesBodyDensity_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseBodyIs_Private(ctx, ref, FG_SHAPE(FG_BODY_DENSITY), "density", why, len);
}

/* The default eta: 1e-4 l_ref/u_ref; a sharp wall's at most FG_SHARP_CAP_WINDOW h^2/nu, h the
   grid's smallest spacing. A sharp wall penalizes a face at a distance phi outside the surface by
   nu w (-phi_nb)/phi (the viscous stencil's extrapolation through the wall, src/body/mask.c),
   capped at 1/eta: the faces within about eta nu/h of the surface (w ~ 1/h^2) see a weaker wall,
   a slip that grows as the grid is refined at fixed eta. The cap's window, eta nu/h^2 of a cell,
   is kept at 1e-3. Measured on Schafer & Turek's 2D-1 at D/80 (sharp wall, x and y stretched):
   windows 3.2e-2, 3.2e-3, 3.2e-4 gave Cd 5.579570, 5.580100, 5.580179 and Cl 0.010551, 0.010636,
   0.010648; at D/160 the window 0.13 of eta = 5e-5 turned Cd's convergence around (5.57706,
   against 5.57964 at a window of 1.3e-3). A smaller window costs Newton's Krylov iterations (17,
   37, 88 at those windows). */
#define FG_SHARP_CAP_WINDOW 1e-3
PetscErrorCode FGCaseComputeBodyEta_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGBodyCase   *b = FGCaseBody_Private(ctx, ref);
  const FGCase *c = ctx->c;
  PetscReal     h = PETSC_MAX_REAL;

  PetscFunctionBeginUser;
  b->eta = 1e-4 * c->flow.l_ref / c->flow.u_ref;
  if (b->wall != FG_WALL_SHARP || !(c->flow.nu > 0)) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt d = 0; d < c->grid.dim; d++) {
    const FGStretchCase *st = &c->grid.stretch[d];
    if (st->type == FG_STRETCH_UNIFORM) {
      if (c->grid.cells[d] > 0) h = PetscMin(h, c->grid.lengths[d] / (PetscReal)c->grid.cells[d]);
    } else if (st->type == FG_STRETCH_BAND || st->type == FG_STRETCH_BODIES) h = PetscMin(h, st->h_min);
    else {
      PetscInt   n;
      PetscReal *f;
      char       msg[256];
      PetscCall(FGCaseGridFaces(ctx->comm, c, d, &n, &f, msg, sizeof(msg))); /* (a bad stretching is reported by its own check) */
      for (PetscInt i = 0; f && !msg[0] && i < n; i++) h = PetscMin(h, f[i + 1] - f[i]);
      PetscCall(PetscFree(f));
    }
  }
  if (h > 0 && h < PETSC_MAX_REAL) b->eta = PetscMin(b->eta, FG_SHARP_CAP_WINDOW * h * h / c->flow.nu);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGCaseComputeBodyRefLength_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  PetscFunctionBeginUser;
  FGCaseBody_Private(ctx, ref)->ref_length = ctx->c->flow.l_ref;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGCaseComputeBodyRefSpeed_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  PetscFunctionBeginUser;
  FGCaseBody_Private(ctx, ref)->ref_speed = ctx->c->flow.u_ref;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 2D: per unit span; after ref_length (table order). */
PetscErrorCode FGCaseComputeBodyRefArea_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGBodyCase *b = FGCaseBody_Private(ctx, ref);

  PetscFunctionBeginUser;
  b->ref_area = ctx->dim == 2 ? b->ref_length : b->ref_length * b->ref_length;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* sphere and ellipsoid are 3D shapes (the 2D ones are extruded in 3D). */
PetscErrorCode FGCaseCheckBodyShape_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGBodyShape shape = FGCaseBody_Private(ctx, ref)->shape;
  char        where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (ctx->dim == 3 || (shape != FG_BODY_SPHERE && shape != FG_BODY_ELLIPSOID)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %s is a 3D shape, and this case is %" PetscInt_FMT "D (use %s)", where, FGBodyShapeNames[shape], ctx->dim, shape == FG_BODY_SPHERE ? "circle" : "ellipse");
}

/* An ellipse has two semi-axes, an ellipsoid three. */
PetscErrorCode FGCaseCheckBodySemiAxes_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGBodyCase *b = FGCaseBody_Private(ctx, ref);
  char              where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (b->shape != FG_BODY_ELLIPSE && b->shape != FG_BODY_ELLIPSOID) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  if (b->shape == FG_BODY_ELLIPSE) PetscCheck(b->n_semi_axes == 2, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " entries, but an ellipse has 2 semi-axes [a, b]", where, b->n_semi_axes);
  else PetscCheck(b->n_semi_axes == 3, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " entries, but an ellipsoid has 3 semi-axes [a, b, c]", where, b->n_semi_axes);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A NACA 4-digit code MPTT: camber M % of the chord at P tenths of the chord, thickness TT %. */
PetscErrorCode FGCaseCheckBodyNaca_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGBodyCase *b = FGCaseBody_Private(ctx, ref);
  const char       *s = b->naca;
  char              where[FG_CASE_WHERE_LEN];
  PetscBool         digits = (PetscBool)(strlen(s) == 4);
  int               m, p, t;

  PetscFunctionBeginUser;
  if (b->shape != FG_BODY_NACA) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  for (size_t i = 0; digits && i < 4; i++) digits = (PetscBool)(s[i] >= '0' && s[i] <= '9');
  PetscCheck(digits, ctx->comm, FG_ERR_INPUT, "%s: \"%s\" is not a NACA 4-digit code: expected 4 digits MPTT, e.g. \"2412\"", where, s);
  m = s[0] - '0', p = s[1] - '0', t = 10 * (s[2] - '0') + (s[3] - '0');
  PetscCheck(m == 0 || p >= 1, ctx->comm, FG_ERR_INPUT, "%s: \"%s\": a cambered airfoil (M = %d) needs the position of its maximum camber, P, in 1..9 tenths of the chord", where, s, m);
  PetscCheck(t >= 1 && t <= 40, ctx->comm, FG_ERR_INPUT, "%s: \"%s\": the thickness TT = %02d %% of the chord must be in 01..40", where, s, t);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rotation_rate_values, jet_amplitude_values: the control's values at the nodes of the time basis,
   so they need design.time_basis >= 2 and N values per control (rotation: N; jets: n_jets N). */
PetscErrorCode FGCaseCheckBodyControlValues_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  const FGBodyCase *b    = FGCaseBody_Private(ctx, ref);
  const PetscBool   jets = (PetscBool)!strcmp(strrchr(ref->path, '.') + 1, "jet_amplitude_values");
  const PetscInt    n    = jets ? b->n_jet_values : b->n_rate_values, N = ctx->c->design.time_basis;
  const PetscInt    want = jets ? b->n_jets * N : N;
  char              where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (!n) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCheck(N >= 2, ctx->comm, FG_ERR_INPUT, "%s: values in time need design.time_basis >= 2 (it is %" PetscInt_FMT "; a constant control is body.%s.%s)", where, N, b->name, jets ? "jet_amplitude" : "rotation_rate");
  if (jets) PetscCheck(n == want, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " entries, expected %" PetscInt_FMT ": design.time_basis = %" PetscInt_FMT " values for each of the %" PetscInt_FMT " jets (jet_angles), jet by jet", where, n, want, N, b->n_jets);
  else PetscCheck(n == want, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " entries, expected design.time_basis = %" PetscInt_FMT, where, n, N);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A probe's point (at, reference) lies in the domain, walls included (to round-off): outside it a
   probe would record values extrapolated from the nearest cells. */
PetscErrorCode FGCaseCheckProbePoint_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGProbeCase    *pr  = (FGProbeCase *)FGCaseInstance_Internal(ctx, ref);
  const PetscBool rf  = (PetscBool)!strcmp(strrchr(ref->path, '.') + 1, "reference");
  const FGCase   *c   = ctx->c;
  const PetscReal *x  = rf ? pr->reference : pr->at;
  char            where[FG_CASE_WHERE_LEN];

  PetscFunctionBeginUser;
  if (rf) pr->has_reference = ctx->vals[ref - ctx->keys].set; /* an optional key without a default */
  if (!ctx->vals[ref - ctx->keys].set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  for (PetscInt d = 0; d < ctx->dim; d++) {
    const PetscReal x0 = c->grid.origin[d], x1 = c->grid.origin[d] + c->grid.lengths[d], tol = 1e-12 * c->grid.lengths[d];
    char            sx[32], s0[32], s1[32];
    if (x[d] >= x0 - tol && x[d] <= x1 + tol) continue;
    PetscCall(FGCaseFormatReal_Internal(x[d], sx, sizeof(sx)));
    PetscCall(FGCaseFormatReal_Internal(x0, s0, sizeof(s0)));
    PetscCall(FGCaseFormatReal_Internal(x1, s1, sizeof(s1)));
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: the point lies outside the domain: %c = %s is not within [%s, %s]", where, FGCaseAxis_Internal[d], sx, s0, s1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
