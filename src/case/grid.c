/*
  The grid of a case (include/fg/case.h): grid.dim, cells, lengths, origin and periodic on a DMDA
  (src/grid/grid.c), split into the slabs FFTW-MPI works on (poisson.type fftw) or into PETSc's
  blocks (ksp), with the faces of every stretched direction (grid.stretch.<axis>: the 1-D
  stretchings of src/grid/stretch.c, an inline list or a file). Here, not in src/grid/, since the
  grid module sits below the case.
*/
#include "caseimpl.h"
#include <sys/stat.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Rank 0 reads a text file of numbers ('#' to the end of a line is a comment); every rank gets
   them, or the same message. */
static PetscErrorCode FGCaseReadFaces_Private(MPI_Comm comm, const char *path, PetscInt *n, PetscReal **faces, char *msg, size_t len)
{
  PetscMPIInt rank;
  long long   cnt = 0;
  PetscReal  *f   = NULL;

  PetscFunctionBeginUser;
  *n = 0, *faces = NULL, msg[0] = '\0';
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    struct stat st;
    FILE       *fp  = NULL;
    size_t      cap = 0;
    if (stat(path, &st) != 0) snprintf(msg, len, "cannot read %s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode)) snprintf(msg, len, "%s is not a regular file", path);
    else if (!(fp = fopen(path, "r"))) snprintf(msg, len, "cannot read %s: %s", path, strerror(errno));
    if (fp) {
      char line[4096];
      int  lineno = 0;
      while (!msg[0] && fgets(line, sizeof(line), fp)) {
        char *p = line, *hash = strchr(line, '#');
        lineno++;
        if (hash) *hash = '\0';
        for (;;) {
          char  *end;
          double v;
          while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',') p++;
          if (!*p) break;
          errno = 0;
          v     = strtod(p, &end);
          if (end == p || errno == ERANGE) {
            snprintf(msg, len, "%s:%d: not a number: %.32s", path, lineno, p);
            break;
          }
          if ((size_t)cnt == cap) {
            cap = cap ? 2 * cap : 1024;
            if (cap > 100000001 || !(f = (PetscReal *)realloc(f, cap * sizeof(PetscReal)))) {
              snprintf(msg, len, "%s: more than 1e8 faces", path);
              break;
            }
          }
          f[cnt++] = (PetscReal)v;
          p        = end;
        }
      }
      fclose(fp);
      if (!msg[0] && cnt < 3) snprintf(msg, len, "%s holds %lld face coordinates; a direction needs at least 3 (2 cells)", path, cnt);
    }
    if (msg[0]) cnt = 0;
  }
  PetscCallMPI(MPI_Bcast(msg, (int)len, MPI_CHAR, 0, comm));
  PetscCallMPI(MPI_Bcast(&cnt, 1, MPI_LONG_LONG, 0, comm));
  if (!msg[0]) {
    PetscReal *g;
    PetscCall(PetscMalloc1(cnt, &g));
    if (rank == 0) PetscCall(PetscArraycpy(g, f, cnt));
    PetscCallMPI(MPI_Bcast(g, (int)cnt, MPIU_REAL, 0, comm));
    *faces = g, *n = (PetscInt)cnt - 1;
  }
  free(f);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FGCaseBodyBox - the box of a body along direction d as the case places it at t = 0, from its keys (not from
   src/body/, which sits above the case): exact for circles, spheres, ellipses and ellipsoids; a box
   that holds the others: a Fourier shape within r0 + sum |a_k| + |b_k| of its centre, an airfoil
   within a rectangle about its chord from the code's camber and thickness (NACA) or the
   coefficients' range (CST), turned by the angle, a B-spline within its control points' box (the
   convex hull property). PETSC_FALSE for a density body and for an extruded shape along z
   (tests/body/test_body_box.c checks that it holds each shape's FGShapeBoundingBox). */
PetscBool FGCaseBodyBox(const FGBodyCase *b, PetscInt dim, PetscInt d, PetscReal *lo, PetscReal *hi)
{
  const PetscReal x0 = b->position[d], th = b->angle * PETSC_PI / 180, cs = PetscCosReal(th), sn = PetscSinReal(th);
  PetscReal       r = 0, a[3];

  if (b->shape == FG_BODY_DENSITY) return PETSC_FALSE;
  if (dim == 3 && d == 2 && b->shape != FG_BODY_SPHERE && b->shape != FG_BODY_ELLIPSOID) return PETSC_FALSE;
  switch (b->shape) {
  case FG_BODY_CIRCLE:
  case FG_BODY_SPHERE:
    r = b->radius;
    break;
  case FG_BODY_FOURIER:
    r = b->radius;
    for (PetscInt k = 0; k < b->n_fourier; k++) r += PetscAbsReal(b->fourier_cos[k]) + PetscAbsReal(b->fourier_sin[k]);
    break;
  case FG_BODY_ELLIPSE:
  case FG_BODY_ELLIPSOID: /* (a cos t, b sin t) rotated spans sqrt(a^2 cos^2 + b^2 sin^2) along x */
    for (PetscInt i = 0; i < 3; i++) a[i] = b->semi_axes[PetscMin(i, b->n_semi_axes - 1)];
    r = d == 0 ? PetscSqrtReal(a[0] * a[0] * cs * cs + a[1] * a[1] * sn * sn) : d == 1 ? PetscSqrtReal(a[0] * a[0] * sn * sn + a[1] * a[1] * cs * cs) : a[2];
    break;
  case FG_BODY_NACA:
  case FG_BODY_CST: { /* a rectangle [X0, X1] x [Y0, Y1] in the chord's frame, turned nose up by the angle */
    const PetscReal c = b->chord;
    PetscReal       X0 = 0, X1 = c, Y0, Y1, ex[4], lo2 = PETSC_MAX_REAL, hi2 = -PETSC_MAX_REAL;
    if (b->shape == FG_BODY_NACA) { /* camber m >= 0 and half-thickness <= 0.5001 t (at 30 % chord); the upper
                                       surface's offset along the camber line's normal reaches ahead of the
                                       leading edge by less than 0.2 (m + 0.51 t) c, and not past the trailing edge */
      const PetscReal m = (b->naca[0] - '0') / 100.0, t = ((b->naca[2] - '0') * 10 + (b->naca[3] - '0')) / 100.0;
      Y0 = -0.51 * t * c, Y1 = (m + 0.51 * t) * c, X0 = -0.2 * Y1, X1 = c + 0.1 * Y1;
    } else { /* y = C(x) S(x), the class function C = sqrt(x) (1 - x) <= 0.385, S between its coefficients */
      PetscReal amin = 0, amax = 0;
      for (PetscInt i = 0; i < b->n_cst; i++) amin = PetscMin(amin, PetscMin(b->cst_upper[i], b->cst_lower[i])), amax = PetscMax(amax, PetscMax(b->cst_upper[i], b->cst_lower[i]));
      Y0 = 0.385 * amin * c, Y1 = 0.385 * amax * c;
    }
    for (PetscInt i = 0; i < 4; i++) {
      const PetscReal X = i & 1 ? X1 : X0, Y = i & 2 ? Y1 : Y0;
      ex[i] = d == 0 ? X * cs + Y * sn : -X * sn + Y * cs; /* clockwise by the angle of attack */
    }
    for (PetscInt i = 0; i < 4; i++) lo2 = PetscMin(lo2, ex[i]), hi2 = PetscMax(hi2, ex[i]);
    *lo = x0 + lo2, *hi = x0 + hi2;
    return PETSC_TRUE;
  }
  case FG_BODY_BSPLINE: {
    PetscReal lo2 = PETSC_MAX_REAL, hi2 = -PETSC_MAX_REAL;
    for (PetscInt i = 0; i < b->n_points; i++) {
      const PetscReal X = b->control_points[2 * i], Y = b->control_points[2 * i + 1], v = d == 0 ? X * cs - Y * sn : X * sn + Y * cs;
      lo2 = PetscMin(lo2, v), hi2 = PetscMax(hi2, v);
    }
    *lo = x0 + lo2, *hi = x0 + hi2;
    return PETSC_TRUE;
  }
  default:
    return PETSC_FALSE;
  }
  *lo = x0 - r, *hi = x0 + r;
  return PETSC_TRUE;
}

/*@C
  FGCaseBodiesBand - the band of grid.stretch.<d> type bodies: the box of the case's bodies along
  d (FGCaseBodyBox) widened by margin times its extent on either side and clipped to the
  domain; msg says why there is none (no body bounds d, or a body's box is empty).
@*/
PetscErrorCode FGCaseBodiesBand(const FGCase *c, PetscInt d, PetscReal band[2], char *msg, size_t len)
{
  const PetscReal x0 = c->grid.origin[d], L = c->grid.lengths[d];
  PetscReal       lo = PETSC_MAX_REAL, hi = -PETSC_MAX_REAL, m;

  PetscFunctionBeginUser;
  msg[0] = '\0';
  for (PetscInt b = 0; b < c->nbodies; b++) {
    PetscReal l, h;
    if (!FGCaseBodyBox(&c->body[b], c->grid.dim, d, &l, &h)) continue;
    if (!(h > l) || PetscIsInfOrNanReal(l) || PetscIsInfOrNanReal(h)) {
      snprintf(msg, len, "bodies: body.%s has no extent along %c (its size keys)", c->body[b].name, "xyz"[d]);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    lo = PetscMin(lo, l), hi = PetscMax(hi, h);
  }
  if (!(hi > lo)) {
    snprintf(msg, len, "bodies: no body bounds %c (%s)", "xyz"[d], c->nbodies ? "density bodies and extrusions along z have no box there" : "the case has no body");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  m       = c->grid.stretch[d].margin * (hi - lo);
  band[0] = PetscMax(lo - m, x0), band[1] = PetscMin(hi + m, x0 + L);
  if (!(band[1] > band[0])) snprintf(msg, len, "bodies: the bodies' box along %c, [%g, %g], lies outside the domain [%g, %g]", "xyz"[d], (double)lo, (double)hi, (double)x0, (double)(x0 + L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGCaseGridFaces - the faces of direction d of a case's grid.

  Collective (a file is read on rank 0).

  Output Parameters:
+ n     - the number of cells along d
. faces - its n + 1 face coordinates (PetscFree them), NULL for a uniform direction
- msg   - "" or why grid.stretch.<d> makes no grid (then faces is NULL)
@*/
PetscErrorCode FGCaseGridFaces(MPI_Comm comm, const FGCase *c, PetscInt d, PetscInt *n, PetscReal **faces, char *msg, size_t len)
{
  const FGStretchCase *s  = &c->grid.stretch[d];
  const PetscReal      x0 = c->grid.origin[d], L = c->grid.lengths[d];

  PetscFunctionBeginUser;
  *n = c->grid.cells[d], *faces = NULL, msg[0] = '\0';
  if (d >= c->grid.dim) PetscFunctionReturn(PETSC_SUCCESS);
  switch (s->type) {
  case FG_STRETCH_UNIFORM:
    break;
  case FG_STRETCH_BAND:
    PetscCall(FGStretchBand(x0, L, s->band[0], s->band[1], s->h_min, s->h_max, s->growth, n, faces, msg, len));
    break;
  case FG_STRETCH_BODIES: {
    PetscReal band[2];
    PetscCall(FGCaseBodiesBand(c, d, band, msg, len));
    if (!msg[0]) PetscCall(FGStretchBand(x0, L, band[0], band[1], s->h_min, s->h_max, s->growth, n, faces, msg, len));
  } break;
  case FG_STRETCH_TANH:
    PetscCall(PetscMalloc1(*n + 1, faces));
    PetscCall(FGStretchTanh(x0, L, *n, s->beta, s->cluster, *faces));
    break;
  case FG_STRETCH_FACES:
    *n = s->nfaces - 1;
    PetscCall(PetscMalloc1(s->nfaces, faces));
    PetscCall(PetscArraycpy(*faces, s->faces, s->nfaces));
    break;
  case FG_STRETCH_FILE:
    PetscCall(FGCaseReadFaces_Private(comm, s->file, n, faces, msg, len));
    break;
  }
  if (*faces) {
    char why[256];
    PetscCall(FGGridCheckFaces(*n, *faces, x0, L, why, sizeof(why)));
    if (why[0]) {
      snprintf(msg, len, "%s", why);
      PetscCall(PetscFree(*faces));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool FGCaseStretchIs_Private(FGCaseCtx ctx, const FGKeyRef *ref, FGStretchType type, const char *what, char *why, size_t len)
{
  FGStretchType t = ctx->c->grid.stretch[ref->axis].type;
  if (t == type) return PETSC_TRUE;
  snprintf(why, len, "only %s; grid.stretch.%c.type is %s", what, "xyz"[ref->axis], FGStretchTypeNames[t]);
  return PETSC_FALSE;
}

PetscBool FGCaseAppliesStretchBand_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseStretchIs_Private(ctx, ref, FG_STRETCH_BAND, "a band stretching has a band (type bodies derives it from the bodies)", why, len);
}

PetscBool FGCaseAppliesStretchBodies_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseStretchIs_Private(ctx, ref, FG_STRETCH_BODIES, "a band around the bodies has a margin", why, len);
}

PetscBool FGCaseAppliesStretchBandOrBodies_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  if (ctx->c->grid.stretch[ref->axis].type == FG_STRETCH_BODIES) return PETSC_TRUE;
  return FGCaseStretchIs_Private(ctx, ref, FG_STRETCH_BAND, "a band stretching (band or bodies) has h_min, h_max and growth", why, len);
}

PetscBool FGCaseAppliesStretchTanh_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseStretchIs_Private(ctx, ref, FG_STRETCH_TANH, "a tanh stretching has beta and cluster", why, len);
}

PetscBool FGCaseAppliesStretchFaces_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseStretchIs_Private(ctx, ref, FG_STRETCH_FACES, "type faces takes a list of faces", why, len);
}

PetscBool FGCaseAppliesStretchFile_Internal(FGCaseCtx ctx, const FGKeyRef *ref, char *why, size_t len)
{
  return FGCaseStretchIs_Private(ctx, ref, FG_STRETCH_FILE, "type file reads a file", why, len);
}

/* grid.stretch.<axis>.type: the faces can be made, the count agrees with grid.cells (0 there: the
   stretching's count), and the Poisson solver can take a stretched direction here. */
PetscErrorCode FGCaseCheckStretch_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  FGCase        *c = ctx->c;
  const PetscInt d = ref->axis, kc = FGCaseFind_Internal(ctx, "grid.cells");
  const char     ax = "xyz"[d];
  FGStretchType  t  = c->grid.stretch[d].type;
  char           where[FG_CASE_WHERE_LEN], wcells[FG_CASE_WHERE_LEN], msg[512];
  PetscInt       n;
  PetscReal     *faces;
  PetscBool      derives = (PetscBool)(t == FG_STRETCH_BAND || t == FG_STRETCH_BODIES || t == FG_STRETCH_FACES || t == FG_STRETCH_FILE);

  PetscFunctionBeginUser;
  PetscCall(FGCaseWhere_Internal(ctx, (PetscInt)(ref - ctx->keys), where, sizeof(where)));
  PetscCall(FGCaseWhere_Internal(ctx, kc, wcells, sizeof(wcells)));
  if (!derives) {
    char w[FG_CASE_WHERE_LEN];
    PetscCall(PetscStrncpy(w, wcells, sizeof(w)));
    char *at = strstr(w, ": grid.cells"); /* "FILE:LINE: grid.cells" or "--set ARG": name the entry */
    if (at) snprintf(at, sizeof(w) - (size_t)(at - w), ": grid.cells[%" PetscInt_FMT "]", d);
    else snprintf(w + strlen(w), sizeof(w) - strlen(w), ": grid.cells[%" PetscInt_FMT "]", d);
    PetscCheck(c->grid.cells[d] >= 2, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " is out of range (must be in [2, 1048576]) along %c, which is %s; 0 stands for the count of a band, bodies, faces or file stretching", w, c->grid.cells[d], ax, FGStretchTypeNames[t]);
  }
  if (t == FG_STRETCH_UNIFORM) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(c->poisson.type != FG_POISSON_FFTW || d == ctx->dim - 1, ctx->comm, FG_ERR_INPUT, "%s: %s, but poisson.type fftw transforms %c and so needs it uniform; stretch only %c (the slab direction, solved by the Thomas algorithm), or use poisson.type: ksp (multigrid)", where, FGStretchTypeNames[t], ax, "xyz"[ctx->dim - 1]);
  PetscCall(FGCaseGridFaces(ctx->comm, c, d, &n, &faces, msg, sizeof(msg)));
  if (msg[0]) {
    const char *key = t == FG_STRETCH_BAND ? "band" : t == FG_STRETCH_FACES ? "faces" : t == FG_STRETCH_FILE ? "file" : t == FG_STRETCH_BODIES ? "margin" : "beta";
    PetscInt    k   = FGCaseSibling_Internal(ctx, ref, key);
    if (k >= 0 && ctx->vals[k].set) PetscCall(FGCaseWhere_Internal(ctx, k, where, sizeof(where)));
    SETERRQ(ctx->comm, FG_ERR_INPUT, "%s: %s", where, msg);
  }
  PetscCall(PetscFree(faces));
  if (derives) {
    PetscCheck(n >= 2, ctx->comm, FG_ERR_INPUT, "%s: %s makes %" PetscInt_FMT " cell along %c; at least 2", where, FGStretchTypeNames[t], n, ax);
    PetscCheck(c->grid.cells[d] == 0 || c->grid.cells[d] == n, ctx->comm, FG_ERR_INPUT, "%s: %" PetscInt_FMT " cells along %c, but grid.stretch.%c (%s) makes %" PetscInt_FMT "; give %" PetscInt_FMT " or 0 (the stretching's count)", wcells, c->grid.cells[d], ax, ax, FGStretchTypeNames[t], n, n);
    c->grid.cells[d] = n;
  }
  if (t == FG_STRETCH_BODIES) PetscCall(FGCaseBodiesBand(c, d, c->grid.stretch[d].band, msg, sizeof(msg))); /* for flowgrad info */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGGridCreateFromCase - the grid of a validated case, with its stretched directions. Collective.
@*/
PetscErrorCode FGGridCreateFromCase(MPI_Comm comm, const FGCase *c, FGGrid *grid)
{
  PetscFunctionBeginUser;
  PetscCall(FGGridCreate(comm, c->grid.dim, c->grid.cells, c->grid.lengths, c->grid.origin, c->grid.periodic, c->poisson.type == FG_POISSON_FFTW ? FG_DECOMP_SLAB : FG_DECOMP_BLOCK, grid));
  for (PetscInt d = 0; d < c->grid.dim; d++) {
    PetscInt   n;
    PetscReal *faces;
    char       msg[512];
    if (c->grid.stretch[d].type == FG_STRETCH_UNIFORM) continue;
    PetscCall(FGCaseGridFaces(comm, c, d, &n, &faces, msg, sizeof(msg)));
    PetscCheck(!msg[0] && n == c->grid.cells[d], comm, FG_ERR_INPUT, "grid.stretch.%c: %s", "xyz"[d], msg[0] ? msg : "the faces changed since the case was read");
    PetscCall(FGGridSetFaces(*grid, d, faces));
    PetscCall(PetscFree(faces));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
