/*
  Velocity boundary conditions on the MAC grid.

  Along a bounded direction d the normal component u_d has its lower boundary face in the ghost
  layer (index -1) and its upper boundary face owned (index n_d - 1). Tangential components
  u_a (a != d) live half a cell off the boundary; their ghost value closes the stencil:

    kind      normal face value u_d       tangential ghost u_a(ghost)
    wall      0                           2*0   - u_a(interior)       (no slip, average 0)
    lid       0                           2*U_a - u_a(interior)       (moving wall)
    slip      0                           u_a(interior)               (zero shear)
    inflow    U_d * profile(x) * m(t)     2*U_a*profile*m(t) - u_a(interior)
    outflow   unknown: u_t + U_c du/dn=0  u_a(interior)               (zero gradient)

  profile = 1 (uniform) or prod_t 4 s_t (1 - s_t), s_t = (x_t - x0_t)/L_t over the tangential
  directions t (parabolic; `velocity` is then the centreline value); m(t) = 1 + A sin(2 pi f t)
  (modulation_amplitude, modulation_frequency). Every rule is linear in u:
  the adjoint of the fill is its transpose.

  profile exact (manufactured/exact solutions): the tangential ghost uses the analytic field at
  the wall, 2*U_a(wall) - u_a(interior); the normal face value is the exact *average* of U_d over
  the face, from the stream function in 2D: u = (psi(y+) - psi(y-))/h_y on an x face,
  v = -(psi(x+) - psi(x-))/h_x on a y face. These averages telescope around the boundary, so the
  net boundary flux is zero to round-off and the all-Neumann pressure problem stays compatible
  (midpoint samples would leave an O(h^2) net flux, hence a mean divergence). In 3D (no stream
  function) the face-centre value is used.
*/
#include <fg/ops.h>

PetscErrorCode FGBoundaryFromCase(const FGCase *c, FGBoundary *bc)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(bc, sizeof(*bc)));
  for (PetscInt d = 0; d < 3; d++)
    for (PetscInt s = 0; s < 2; s++) {
      bc->kind[d][s]    = d < c->grid.dim ? c->boundary[d][s].kind : FG_BC_PERIODIC;
      bc->profile[d][s] = c->boundary[d][s].profile;
      bc->modulation[d][s][0] = c->boundary[d][s].modulation_amplitude;
      bc->modulation[d][s][1] = c->boundary[d][s].modulation_frequency;
      for (PetscInt a = 0; a < 3; a++) bc->velocity[d][s][a] = d < c->grid.dim ? c->boundary[d][s].velocity[a] : 0.0;
    }
  bc->convective_speed = c->flow.u_ref;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void FGOpInteriorFaces(FGGrid g, const FGBoundary *bc, PetscInt a, PetscInt lo[3], PetscInt hi[3])
{
  for (PetscInt d = 0; d < 3; d++) lo[d] = g->box.lo[d], hi[d] = g->box.hi[d];
  if (!g->periodic[a] && hi[a] == g->n[a]) hi[a] = g->n[a] - 1;
}

void FGOpUnknownFaces(FGGrid g, const FGBoundary *bc, PetscInt a, PetscInt lo[3], PetscInt hi[3])
{
  FGOpInteriorFaces(g, bc, a, lo, hi);
  if (!g->periodic[a] && g->box.hi[a] == g->n[a] && bc->kind[a][FG_FACE_HI] == FG_BC_OUTFLOW) hi[a] = g->n[a];
}

/* Time modulation factor 1 + A sin(2 pi f t) of an inflow face. */
static inline PetscReal FGModulation_Private(const FGBoundary *bc, PetscInt d, PetscInt side, PetscReal t)
{
  return 1.0 + bc->modulation[d][side][0] * PetscSinReal(2.0 * PETSC_PI * bc->modulation[d][side][1] * t);
}

static inline FGLocation FGFaceLocation_Private(PetscInt a)
{
  return (FGLocation)(FG_LOC_FACE_X + a);
}

/* Inflow profile factor at the position (i,j,k) of component a, tangential to direction d. */
static PetscReal FGProfile_Private(FGGrid g, const FGBoundary *bc, PetscInt d, PetscInt side, PetscInt a, const PetscInt idx[3])
{
  PetscReal f = 1.0;
  if (bc->profile[d][side] != FG_PROFILE_PARABOLIC) return 1.0;
  for (PetscInt t = 0; t < g->dim; t++) {
    PetscReal s;
    if (t == d) continue;
    s = (FGGridCoordinate(g, FGFaceLocation_Private(a), t, idx[t]) - g->x0[t]) / g->L[t];
    f *= 4.0 * s * (1.0 - s);
  }
  return f;
}

/* Position of the value of component a with index idx, moved onto the boundary plane (d, side). */
static void FGWallPoint_Private(FGGrid g, PetscInt d, PetscInt side, PetscInt a, const PetscInt idx[3], PetscReal x[3])
{
  for (PetscInt t = 0; t < 3; t++) x[t] = t < g->dim ? FGGridCoordinate(g, FGFaceLocation_Private(a), t, idx[t]) : 0.0;
  x[d] = g->x0[d] + (side == FG_FACE_HI ? g->L[d] : 0.0);
}

/* Value of the normal component on boundary face (d, side) at the position idx, time t. */
static PetscReal FGNormalValue_Private(FGGrid g, const FGBoundary *bc, PetscInt d, PetscInt side, const PetscInt idx[3], PetscReal t)
{
  if (bc->kind[d][side] != FG_BC_INFLOW) return 0.0;
  if (bc->profile[d][side] == FG_PROFILE_EXACT) {
    PetscReal x[3];
    FGWallPoint_Private(g, d, side, d, idx, x);
    if (g->dim == 2 && bc->exact.stream) { /* exact face average of the normal velocity */
      const PetscInt  tt = 1 - d;
      const PetscReal hm = 0.5 * g->ax[tt].dxf[idx[tt]];
      PetscReal       xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
      xp[tt] += hm, xm[tt] -= hm;
      return (d == 0 ? 1.0 : -1.0) * (bc->exact.stream(xp, t, bc->exact.nu, bc->exact.c) - bc->exact.stream(xm, t, bc->exact.nu, bc->exact.c)) / g->ax[tt].dxf[idx[tt]];
    }
    return bc->exact.velocity(d, x, t, bc->exact.nu, bc->exact.c);
  }
  return bc->velocity[d][side][d] * FGProfile_Private(g, bc, d, side, d, idx) * FGModulation_Private(bc, d, side, t);
}

/*@C
  FGOpGhostCoefficient - the coefficient cf of the ghost rule v(ghost) = cf v(interior neighbour)
  + data of component a beyond face (d, side) (the table above): -1 for a tangential component
  at a wall, lid or inflow, +1 at a slip or outflow face; for the normal component (a == d) +1 at
  a lower outflow face and 0 at the other lower faces (the ghost is the boundary face, data only),
  +1 beyond the upper boundary face (a ghost no stencil reads). Not collective.
@*/
PetscReal FGOpGhostCoefficient(const FGBoundary *bc, PetscInt d, PetscInt side, PetscInt a)
{
  const FGBCKind kind = bc->kind[d][side];
  if (a == d) return side == FG_FACE_LO && kind != FG_BC_OUTFLOW ? 0.0 : 1.0;
  return kind == FG_BC_SLIP || kind == FG_BC_OUTFLOW ? 1.0 : -1.0;
}

/*@C
  FGOpZeroInteriorFaces - set the interior faces (FGOpInteriorFaces) of each component of the
  global Vecs u to 0, keeping the boundary and outflow faces. Not collective.
@*/
PetscErrorCode FGOpZeroInteriorFaces(FGGrid g, const FGBoundary *bc, Vec u[])
{
  const FGBox *bx = &g->box;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar *v;
    PetscInt     lo[3], hi[3];
    FGOpInteriorFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArray(u[a], &v));
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        if (hi[0] > lo[0]) PetscCall(PetscArrayzero(v + FGBoxOwnedIndex(bx, lo[0], j, k), hi[0] - lo[0]));
    PetscCall(VecRestoreArray(u[a], &v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpInteriorFromLocal - w_U = the owned interior faces of the ghosted ul, and with uk non-NULL
  w_K = uk_K (the boundary and outflow faces), in one pass; with uk NULL w's other faces are kept.
  Not collective.
@*/
PetscErrorCode FGOpInteriorFromLocal(FGGrid g, const FGBoundary *bc, Vec ul[], Vec uk[], Vec w[])
{
  const FGBox *bx = &g->box;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *x, *z = NULL;
    PetscScalar       *y;
    PetscInt           lo[3], hi[3];
    const PetscInt     nx = bx->hi[0] - bx->lo[0];
    FGOpInteriorFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArrayRead(ul[a], &x));
    if (uk) PetscCall(VecGetArrayRead(uk[a], &z));
    PetscCall(VecGetArray(w[a], &y));
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++) {
        const PetscInt o = FGBoxOwnedIndex(bx, bx->lo[0], j, k);
        if (j < lo[1] || j >= hi[1] || k < lo[2] || k >= hi[2]) { /* a row of boundary faces */
          if (z) PetscCall(PetscArraycpy(y + o, z + o, nx));
          continue;
        }
        if (hi[0] > lo[0]) PetscCall(PetscArraycpy(y + o + (lo[0] - bx->lo[0]), x + FGBoxIndex(bx, lo[0], j, k), hi[0] - lo[0]));
        if (z && hi[0] < bx->hi[0]) PetscCall(PetscArraycpy(y + o + (hi[0] - bx->lo[0]), z + o + (hi[0] - bx->lo[0]), bx->hi[0] - hi[0]));
      }
    PetscCall(VecRestoreArray(w[a], &y));
    if (uk) PetscCall(VecRestoreArrayRead(uk[a], &z));
    PetscCall(VecRestoreArrayRead(ul[a], &x));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpBoundaryFacesToLocal - the owned boundary and outflow faces (those off FGOpInteriorFaces) of
  the ghosted wl = u's. Not collective.
@*/
PetscErrorCode FGOpBoundaryFacesToLocal(FGGrid g, const FGBoundary *bc, Vec u[], Vec wl[])
{
  const FGBox *bx = &g->box;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *x;
    PetscScalar       *y;
    PetscInt           lo[3], hi[3];
    FGOpInteriorFaces(g, bc, a, lo, hi);
    if (g->periodic[a] || hi[a] == bx->hi[a]) continue; /* no boundary face of a owned here: no access (not collective) */
    PetscCall(VecGetArrayRead(u[a], &x));
    PetscCall(VecGetArray(wl[a], &y));
    for (PetscInt d = 0; d < 3; d++) lo[d] = bx->lo[d], hi[d] = d == a ? hi[d] : bx->hi[d];
    lo[a] = hi[a], hi[a] = bx->hi[a]; /* the plane of boundary faces */
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) y[FGBoxIndex(bx, i, j, k)] = x[FGBoxOwnedIndex(bx, i, j, k)];
    PetscCall(VecRestoreArray(wl[a], &y));
    PetscCall(VecRestoreArrayRead(u[a], &x));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpCopyBoundaryPlanes - dst = src (ghosted, each component) on the planes of faces next to the
  physical boundaries that this rank holds: index 0 and n_d - 1 along each non-periodic d, over
  the whole ghosted extent of the other directions. They are what FGOpFillBoundary reads to set
  the ghosts beyond them; O(n^(d-1)) work. Not collective.
@*/
PetscErrorCode FGOpCopyBoundaryPlanes(FGGrid g, Vec src[], Vec dst[])
{
  const FGBox *bx = &g->box;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *x;
    PetscScalar       *y;
    PetscCall(VecGetArrayRead(src[a], &x));
    PetscCall(VecGetArray(dst[a], &y));
    for (PetscInt d = 0; d < g->dim; d++) {
      if (g->periodic[d]) continue;
      for (PetscInt side = 0; side < 2; side++) {
        const PetscInt inner = side ? g->n[d] - 1 : 0;
        PetscInt       lo[3], hi[3];
        if (side ? bx->hi[d] != g->n[d] : bx->lo[d] != 0) continue;
        for (PetscInt e = 0; e < 3; e++) lo[e] = bx->glo[e], hi[e] = bx->ghi[e];
        lo[d] = inner, hi[d] = inner + 1;
        for (PetscInt k = lo[2]; k < hi[2]; k++)
          for (PetscInt j = lo[1]; j < hi[1]; j++) {
            const PetscInt c = FGBoxIndex(bx, lo[0], j, k);
            if (d == 0) y[c] = x[c];
            else PetscCall(PetscArraycpy(y + c, x + c, hi[0] - lo[0]));
          }
      }
    }
    PetscCall(VecRestoreArray(dst[a], &y));
    PetscCall(VecRestoreArrayRead(src[a], &x));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpInteriorToLocalAdd - the transpose of FGOpInteriorFromLocal's interior part: the owned
  interior faces of the ghosted ul += w_U. Not collective.
@*/
PetscErrorCode FGOpInteriorToLocalAdd(FGGrid g, const FGBoundary *bc, Vec w[], Vec ul[])
{
  const FGBox *bx = &g->box;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *x;
    PetscScalar       *y;
    PetscInt           lo[3], hi[3];
    FGOpInteriorFaces(g, bc, a, lo, hi);
    PetscCall(VecGetArrayRead(w[a], &x));
    PetscCall(VecGetArray(ul[a], &y));
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++) {
        PetscScalar       *yy = y + FGBoxIndex(bx, lo[0], j, k);
        const PetscScalar *xx = x + FGBoxOwnedIndex(bx, lo[0], j, k);
        for (PetscInt i = 0; i < hi[0] - lo[0]; i++) yy[i] += xx[i];
      }
    PetscCall(VecRestoreArray(ul[a], &y));
    PetscCall(VecRestoreArrayRead(w[a], &x));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rule of one ghost value of component a at idx beyond face (d, side), time t:
     v(ghost) = cf v(interior neighbour) + data,
   with `inflow` the part of data that scales with the inflow velocity (FGOpFillBoundaryTangent). */
static void FGGhostRule_Private(FGGrid g, const FGBoundary *bc, PetscInt d, PetscInt side, PetscInt a, const PetscInt idx[3], PetscReal t, PetscReal *cf, PetscReal *data, PetscReal *inflow)
{
  const FGBCKind kind = bc->kind[d][side];

  *cf = FGOpGhostCoefficient(bc, d, side, a), *data = 0, *inflow = 0;
  if (a == d) {
    if (side == FG_FACE_LO && kind != FG_BC_OUTFLOW) *data = FGNormalValue_Private(g, bc, d, side, idx, t);
  } else if (kind != FG_BC_SLIP && kind != FG_BC_OUTFLOW) {
    PetscReal ut = bc->velocity[d][side][a];
    if (kind == FG_BC_INFLOW && bc->profile[d][side] == FG_PROFILE_EXACT) {
      PetscReal x[3];
      FGWallPoint_Private(g, d, side, a, idx, x);
      ut = bc->exact.velocity(a, x, t, bc->exact.nu, bc->exact.c);
    } else if (kind == FG_BC_INFLOW) ut *= FGProfile_Private(g, bc, d, side, a, idx) * FGModulation_Private(bc, d, side, t);
    if (kind == FG_BC_WALL) ut = 0.0;
    *data = 2.0 * ut;
  }
  if (kind == FG_BC_INFLOW && bc->profile[d][side] != FG_PROFILE_EXACT) *inflow = *data;
}

typedef enum { FG_FILL_FORWARD, FG_FILL_TANGENT, FG_FILL_ADJOINT } FGFillMode;

/* The ghost fill in one of three modes (see FGOpFillBoundary, ...Tangent, ...Adjoint). */
static PetscErrorCode FGFill_Private(FGGrid g, const FGBoundary *bc, PetscReal t, FGFillMode mode, PetscReal ds, PetscReal *dsbar, Vec ul[])
{
  const FGBox *b = &g->box;
  PetscScalar *arr[3];
  PetscReal    sbar = 0;

  PetscFunctionBeginUser;
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(mode == FG_FILL_ADJOINT ? FG_EVENT_FillBoundaryAdjoint : FG_EVENT_FillBoundary, 0, 0, 0, 0));
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecGetArray(ul[a], &arr[a]));
  /* forward and tangent fill x, then y, then z; the adjoint runs the same layers backwards */
  for (PetscInt dd = 0; dd < g->dim; dd++) {
    const PetscInt d = mode == FG_FILL_ADJOINT ? g->dim - 1 - dd : dd;
    if (g->periodic[d]) continue;
    for (PetscInt ss = 0; ss < 2; ss++) {
      const PetscInt side  = mode == FG_FILL_ADJOINT ? 1 - ss : ss;
      const PetscInt ghost = side == FG_FACE_LO ? -1 : g->n[d];
      const PetscInt inner = side == FG_FACE_LO ? 0 : g->n[d] - 1; /* nearest interior index */
      PetscInt       lo[3], hi[3], idx[3];
      if (side == FG_FACE_LO ? b->lo[d] != 0 : b->hi[d] != g->n[d]) continue;
      for (PetscInt e = 0; e < 3; e++) lo[e] = b->glo[e], hi[e] = b->ghi[e];
      lo[d] = ghost, hi[d] = ghost + 1;
      for (PetscInt a = 0; a < g->dim; a++) {
        PetscScalar   *v  = arr[a];
        const PetscInt sd = b->s[d];
        for (idx[2] = lo[2]; idx[2] < hi[2]; idx[2]++)
          for (idx[1] = lo[1]; idx[1] < hi[1]; idx[1]++)
            for (idx[0] = lo[0]; idx[0] < hi[0]; idx[0]++) {
              const PetscInt c  = FGBoxIndex(b, idx[0], idx[1], idx[2]);
              const PetscInt ci = c + (inner - ghost) * sd; /* the interior neighbour across the boundary */
              PetscReal      cf, data, inflow;
              FGGhostRule_Private(g, bc, d, side, a, idx, t, &cf, &data, &inflow);
              switch (mode) {
              case FG_FILL_FORWARD:
                v[c] = cf != 0 ? cf * v[ci] + data : data; /* (no 0 * garbage from an unset corner) */
                break;
              case FG_FILL_TANGENT:
                v[c] = cf != 0 ? cf * v[ci] + ds * inflow : ds * inflow;
                break;
              case FG_FILL_ADJOINT:
                v[ci] += cf * v[c];
                sbar += inflow * PetscRealPart(v[c]);
                v[c] = 0;
                break;
              }
            }
      }
    }
  }
  for (PetscInt a = 0; a < g->dim; a++) PetscCall(VecRestoreArray(ul[a], &arr[a]));
  if (dsbar) *dsbar += sbar;
  PetscCall(PetscLogEventEnd(mode == FG_FILL_ADJOINT ? FG_EVENT_FillBoundaryAdjoint : FG_EVENT_FillBoundary, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpFillBoundary - fill the ghost layer of the local velocity ul[] on the physical boundaries at
  time t (periodic and inter-rank ghosts come from DMGlobalToLocal before). Directions are filled
  in the order x, y, z over the whole ghosted extent, so every ghost (corners included) has a
  value that does not depend on the decomposition.
@*/
PetscErrorCode FGOpFillBoundary(FGGrid g, const FGBoundary *bc, PetscReal t, Vec ul[])
{
  PetscFunctionBeginUser;
  PetscCall(FGFill_Private(g, bc, t, FG_FILL_FORWARD, 0, NULL, ul));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpFillBoundaryTangent - the tangent of the fill: the same rules with the boundary data
  replaced by its derivative, ds times the inflow data (ds: a relative change of every inflow
  velocity, U -> U (1 + ds); 0 for the homogeneous fill).
@*/
PetscErrorCode FGOpFillBoundaryTangent(FGGrid g, const FGBoundary *bc, PetscReal t, PetscReal ds, Vec dul[])
{
  PetscFunctionBeginUser;
  PetscCall(FGFill_Private(g, bc, t, FG_FILL_TANGENT, ds, NULL, dul));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpFillBoundaryAdjoint - the transpose of FGOpFillBoundaryTangent: each physical ghost's adjoint
  moves to its interior neighbour (times the rule's coefficient) and is zeroed, in the reverse
  order of the fill; with dsbar non-NULL, *dsbar += the local part of the inflow-scale adjoint.
  Inter-rank and periodic ghosts are left for DMLocalToGlobal(ADD_VALUES).
@*/
PetscErrorCode FGOpFillBoundaryAdjoint(FGGrid g, const FGBoundary *bc, PetscReal t, Vec ulbar[], PetscReal *dsbar)
{
  PetscFunctionBeginUser;
  PetscCall(FGFill_Private(g, bc, t, FG_FILL_ADJOINT, 0, dsbar, ulbar));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Prescribed owned boundary faces (FGOpSetBoundaryFaces) in one of the three modes. */
static PetscErrorCode FGBoundaryFaces_Private(FGGrid g, const FGBoundary *bc, PetscReal t, FGFillMode mode, PetscReal ds, PetscReal *dsbar, Vec u[])
{
  const FGBox *b    = &g->box;
  PetscReal    sbar = 0;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < g->dim; d++) {
    PetscScalar *a;
    PetscInt     lo[3], hi[3], idx[3];
    PetscBool    scaled = (PetscBool)(bc->kind[d][FG_FACE_HI] == FG_BC_INFLOW && bc->profile[d][FG_FACE_HI] != FG_PROFILE_EXACT);
    if (g->periodic[d] || bc->kind[d][FG_FACE_HI] == FG_BC_OUTFLOW) continue;
    for (PetscInt e = 0; e < 3; e++) lo[e] = b->lo[e], hi[e] = b->hi[e];
    lo[d] = g->n[d] - 1;
    if (b->hi[d] != g->n[d]) hi[d] = lo[d]; /* not this rank's face: no entries, but the access below is on
                                              every rank (a write access drops PETSc's cached norms, which
                                              must stay alike on all ranks for a later VecNorm) */
    PetscCall(VecGetArray(u[d], &a));
    for (idx[2] = lo[2]; idx[2] < hi[2]; idx[2]++)
      for (idx[1] = lo[1]; idx[1] < hi[1]; idx[1]++)
        for (idx[0] = lo[0]; idx[0] < hi[0]; idx[0]++) {
          const PetscInt  o = FGBoxOwnedIndex(b, idx[0], idx[1], idx[2]);
          const PetscReal v = FGNormalValue_Private(g, bc, d, FG_FACE_HI, idx, t);
          switch (mode) {
          case FG_FILL_FORWARD:
            a[o] = v;
            break;
          case FG_FILL_TANGENT:
            a[o] = scaled ? ds * v : 0;
            break;
          case FG_FILL_ADJOINT:
            if (scaled) sbar += v * PetscRealPart(a[o]);
            a[o] = 0;
            break;
          }
        }
    PetscCall(VecRestoreArray(u[d], &a));
  }
  if (dsbar) *dsbar += sbar;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpSetBoundaryFaces - set the prescribed owned boundary faces (upper faces of bounded
  directions, except outflow) of the global velocity to their boundary values at time t.
@*/
PetscErrorCode FGOpSetBoundaryFaces(FGGrid g, const FGBoundary *bc, PetscReal t, Vec u[])
{
  PetscFunctionBeginUser;
  PetscCall(FGBoundaryFaces_Private(g, bc, t, FG_FILL_FORWARD, 0, NULL, u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpSetBoundaryFacesTangent - du = ds times the inflow value on those faces (0 elsewhere there).
@*/
PetscErrorCode FGOpSetBoundaryFacesTangent(FGGrid g, const FGBoundary *bc, PetscReal t, PetscReal ds, Vec du[])
{
  PetscFunctionBeginUser;
  PetscCall(FGBoundaryFaces_Private(g, bc, t, FG_FILL_TANGENT, ds, NULL, du));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpSetBoundaryFacesAdjoint - the transpose: ubar on those faces goes to *dsbar (local part) and
  is zeroed (the values there do not depend on the state).
@*/
PetscErrorCode FGOpSetBoundaryFacesAdjoint(FGGrid g, const FGBoundary *bc, PetscReal t, Vec ubar[], PetscReal *dsbar)
{
  PetscFunctionBeginUser;
  PetscCall(FGBoundaryFaces_Private(g, bc, t, FG_FILL_ADJOINT, 0, dsbar, ubar));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpOutflow - right-hand side of the convective outflow condition on upper outflow faces:
    rhs_d(n_d - 1) = -U_c (u_d(n_d - 1) - u_d(n_d - 2)) / dxf_d(n_d - 1)   (h_d when uniform)
@*/
PetscErrorCode FGOpOutflow(FGGrid g, const FGBoundary *bc, Vec ul[], Vec rhs[])
{
  const FGBox *b = &g->box;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < g->dim; d++) {
    const PetscScalar *v;
    PetscScalar       *r;
    PetscInt           lo[3], hi[3];
    const PetscReal    coef = g->uniform[d] ? -bc->convective_speed / g->h[d] : -bc->convective_speed * g->ax[d].idxf[g->n[d] - 1];
    if (g->periodic[d] || bc->kind[d][FG_FACE_HI] != FG_BC_OUTFLOW) continue;
    for (PetscInt e = 0; e < 3; e++) lo[e] = b->lo[e], hi[e] = b->hi[e];
    lo[d] = g->n[d] - 1;
    if (b->hi[d] != g->n[d]) hi[d] = lo[d]; /* not this rank's face: the write access on every rank all the same */
    PetscCall(VecGetArrayRead(ul[d], &v));
    PetscCall(VecGetArray(rhs[d], &r));
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) {
          PetscInt c = FGBoxIndex(b, i, j, k);
          r[FGBoxOwnedIndex(b, i, j, k)] = coef * (v[c] - v[c - b->s[d]]);
        }
    PetscCall(VecRestoreArrayRead(ul[d], &v));
    PetscCall(VecRestoreArray(rhs[d], &r));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpOutflowTangent - linear: the outflow right-hand side of dul.
@*/
PetscErrorCode FGOpOutflowTangent(FGGrid g, const FGBoundary *bc, Vec dul[], Vec rhs[])
{
  PetscFunctionBeginUser;
  PetscCall(FGOpOutflow(g, bc, dul, rhs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGOpOutflowAdjoint - the transpose of FGOpOutflow: ulbar += (its rows)^T rbar on the outflow faces.
@*/
PetscErrorCode FGOpOutflowAdjoint(FGGrid g, const FGBoundary *bc, Vec rbar[], Vec ulbar[])
{
  const FGBox *b = &g->box;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < g->dim; d++) {
    const PetscScalar *r;
    PetscScalar       *v;
    PetscInt           lo[3], hi[3];
    const PetscReal    coef = g->uniform[d] ? -bc->convective_speed / g->h[d] : -bc->convective_speed * g->ax[d].idxf[g->n[d] - 1];
    if (g->periodic[d] || bc->kind[d][FG_FACE_HI] != FG_BC_OUTFLOW) continue;
    for (PetscInt e = 0; e < 3; e++) lo[e] = b->lo[e], hi[e] = b->hi[e];
    lo[d] = g->n[d] - 1;
    if (b->hi[d] != g->n[d]) hi[d] = lo[d]; /* not this rank's face: the write access on every rank all the same */
    PetscCall(VecGetArray(ulbar[d], &v));
    PetscCall(VecGetArrayRead(rbar[d], &r));
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) {
          const PetscInt  c  = FGBoxIndex(b, i, j, k);
          const PetscReal rb = coef * r[FGBoxOwnedIndex(b, i, j, k)];
          v[c] += rb;
          v[c - b->s[d]] -= rb;
        }
    PetscCall(VecRestoreArrayRead(rbar[d], &r));
    PetscCall(VecRestoreArray(ulbar[d], &v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
