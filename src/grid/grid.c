/*
  The Cartesian MAC grid on a PETSc DMDA (see include/fg/grid.h for the layout).

  Slab decomposition. FFTW-MPI distributes the first (slowest) array dimension of a row-major
  array: for our cell-indexed arrays a[k][j][i] that is z in 3D and y in 2D. We ask FFTW for its
  local sizes (fftw_mpi_local_size_many_transposed, the call the r2r plans use) and give them to
  the DMDA as its ownership ranges along that direction, so a DMDA global Vec's local array *is*
  FFTW's local input block and no data moves between layouts.
*/
#include <fg/grid.h>
#include <fftw3-mpi.h>

const char *const FGDecompNames[]   = {"slab", "block", "FGDecomp", "FG_DECOMP_", NULL};
const char *const FGLocationNames[] = {"cell", "face_x", "face_y", "face_z", "FGLocation", "FG_LOC_", NULL};

/* FFTW's slab sizes along the slowest direction (every rank computes the same array). */
static PetscErrorCode FGGridSlabSizes_Private(MPI_Comm comm, PetscInt dim, const PetscInt n[], PetscInt *sizes)
{
  ptrdiff_t   nn[3], local_n0, local_0_start, local_n1, local_1_start;
  PetscMPIInt size;
  PetscInt    mine;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  for (PetscInt d = 0; d < dim; d++) nn[d] = (ptrdiff_t)n[dim - 1 - d]; /* row-major: slowest first */
  (void)fftw_mpi_local_size_many_transposed((int)dim, nn, 1, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, comm, &local_n0, &local_0_start, &local_n1, &local_1_start);
  mine = (PetscInt)local_n0;
  PetscCallMPI(MPI_Allgather(&mine, 1, MPIU_INT, sizes, 1, MPIU_INT, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGGridSlabCheck - whether FFTW's slab decomposition gives every rank at least one plane.

  Collective. On failure `msg` explains why (for a validation error that names the key).
@*/
PetscErrorCode FGGridSlabCheck(MPI_Comm comm, PetscInt dim, const PetscInt n[], PetscBool *ok, char *msg, size_t len)
{
  PetscMPIInt size;
  PetscInt   *sizes;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMalloc1(size, &sizes));
  PetscCall(FGGridSlabSizes_Private(comm, dim, n, sizes));
  PetscInt with = 0;
  for (PetscMPIInt r = 0; r < size; r++)
    if (sizes[r] >= 1) with++;
  *ok = (PetscBool)(with == size);
  if (!*ok && msg)
    snprintf(msg, len, "the FFT Poisson solver splits %c (%" PetscInt_FMT " cells) into slabs, and FFTW gives planes to only %" PetscInt_FMT " of the %d ranks; run on at most %" PetscInt_FMT " ranks or use poisson.type: ksp", "xyz"[dim - 1], n[dim - 1], with, (int)size, with);
  PetscCall(PetscFree(sizes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGGridCreate - create a uniform MAC grid.

  Collective.

  Input Parameters:
+ comm     - communicator
. dim      - 2 or 3
. n        - cells per direction (dim entries)
. L        - domain lengths
. x0       - lower corner (NULL: the origin)
. periodic - periodic per direction
- decomp   - FG_DECOMP_SLAB (FFTW) or FG_DECOMP_BLOCK (PETSc decides)
@*/
PetscErrorCode FGGridCreate(MPI_Comm comm, PetscInt dim, const PetscInt n[], const PetscReal L[], const PetscReal x0[], const PetscBool periodic[], FGDecomp decomp, FGGrid *grid)
{
  FGGrid         g;
  DMBoundaryType bt[3];
  PetscMPIInt    size;
  PetscInt      *slab = NULL;
  PetscInt       xs, ys, zs, xm, ym, zm, gxs, gys, gzs, gxm, gym, gzm;

  PetscFunctionBeginUser;
  PetscCheck(dim == 2 || dim == 3, comm, FG_ERR_INPUT, "grid dimension must be 2 or 3, got %" PetscInt_FMT, dim);
  PetscCall(PetscNew(&g));
  g->comm   = comm;
  g->dim    = dim;
  g->decomp = decomp;
  for (PetscInt d = 0; d < 3; d++) {
    g->n[d]        = d < dim ? n[d] : 1;
    g->L[d]        = d < dim ? L[d] : 1.0;
    g->x0[d]       = (d < dim && x0) ? x0[d] : 0.0;
    g->periodic[d] = d < dim ? periodic[d] : PETSC_FALSE;
    g->h[d]        = g->L[d] / (PetscReal)g->n[d];
    bt[d]          = g->periodic[d] ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_GHOSTED;
    PetscCheck(g->n[d] >= 1, comm, FG_ERR_INPUT, "grid: %" PetscInt_FMT " cells along %c", g->n[d], "xyz"[d]);
    PetscCheck(g->L[d] > 0, comm, FG_ERR_INPUT, "grid: length %g along %c", (double)g->L[d], "xyz"[d]);
  }
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (decomp == FG_DECOMP_SLAB) {
    PetscBool ok;
    char      msg[512];
    PetscCall(FGGridSlabCheck(comm, dim, g->n, &ok, msg, sizeof(msg)));
    PetscCheck(ok, comm, FG_ERR_INPUT, "%s", msg);
    PetscCall(PetscMalloc1(size, &slab));
    PetscCall(FGGridSlabSizes_Private(comm, dim, g->n, slab));
  }
  if (dim == 2) {
    PetscInt py = decomp == FG_DECOMP_SLAB ? size : PETSC_DECIDE;
    PetscInt px = decomp == FG_DECOMP_SLAB ? 1 : PETSC_DECIDE;
    PetscCall(DMDACreate2d(comm, bt[0], bt[1], DMDA_STENCIL_BOX, g->n[0], g->n[1], px, py, 1, 1, NULL, slab, &g->da));
  } else {
    PetscInt pz = decomp == FG_DECOMP_SLAB ? size : PETSC_DECIDE;
    PetscInt pxy = decomp == FG_DECOMP_SLAB ? 1 : PETSC_DECIDE;
    PetscCall(DMDACreate3d(comm, bt[0], bt[1], bt[2], DMDA_STENCIL_BOX, g->n[0], g->n[1], g->n[2], pxy, pxy, pz, 1, 1, NULL, NULL, slab, &g->da));
  }
  g->isuniform = PETSC_TRUE;
  for (PetscInt d = 0; d < 3; d++) PetscCall(FGGridSetFaces(g, d, NULL));
  PetscCall(DMSetOptionsPrefix(g->da, "fg_grid_"));
  PetscCall(DMSetUp(g->da));
  PetscCall(PetscFree(slab));
  /* no DMDASetUniformCoordinates: positions are analytic (FGGridCoordinate), and a coordinate
     DM would cost several grid-sized vectors */
  PetscCall(DMDAGetInfo(g->da, NULL, NULL, NULL, NULL, &g->nproc[0], &g->nproc[1], &g->nproc[2], NULL, NULL, NULL, NULL, NULL, NULL));
  if (dim == 2) g->nproc[2] = 1;
  PetscCall(DMDAGetCorners(g->da, &xs, &ys, &zs, &xm, &ym, &zm));
  PetscCall(DMDAGetGhostCorners(g->da, &gxs, &gys, &gzs, &gxm, &gym, &gzm));
  if (dim == 2) {
    zs = 0, zm = 1, gzs = 0, gzm = 1;
  }
  g->box.lo[0] = xs, g->box.hi[0] = xs + xm, g->box.glo[0] = gxs, g->box.ghi[0] = gxs + gxm;
  g->box.lo[1] = ys, g->box.hi[1] = ys + ym, g->box.glo[1] = gys, g->box.ghi[1] = gys + gym;
  g->box.lo[2] = zs, g->box.hi[2] = zs + zm, g->box.glo[2] = gzs, g->box.ghi[2] = gzs + gzm;
  g->box.s[0] = 1, g->box.s[1] = gxm, g->box.s[2] = dim == 3 ? gxm * gym : 0;
  g->box.os[0] = 1, g->box.os[1] = xm, g->box.os[2] = dim == 3 ? xm * ym : 0;
  *grid = g;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGGridAxisFree_Private(FGAxis *ax)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(ax->mem));
  ax->xf = ax->xc = ax->dxf = ax->dxc = ax->idxf = ax->idxc = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGGridCheckFaces - whether n + 1 face coordinates describe a direction: finite, strictly
  increasing, from x0 to x0 + L (to 1e-12 L). On failure `msg` says why.

  Not collective.
@*/
PetscErrorCode FGGridCheckFaces(PetscInt n, const PetscReal f[], PetscReal x0, PetscReal L, char *msg, size_t len)
{
  PetscFunctionBeginUser;
  if (msg && len) msg[0] = '\0';
  for (PetscInt i = 0; i <= n; i++)
    if (!PetscIsNormalReal(f[i]) && f[i] != 0) {
      if (msg) snprintf(msg, len, "face %" PetscInt_FMT " is %g, not a finite number", i, (double)f[i]);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  if (PetscAbsReal(f[0] - x0) > 1e-12 * L || PetscAbsReal(f[n] - (x0 + L)) > 1e-12 * L) {
    if (msg) snprintf(msg, len, "the faces run from %.17g to %.17g, not over the domain [%.17g, %.17g]", (double)f[0], (double)f[n], (double)x0, (double)(x0 + L));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt i = 0; i < n; i++)
    if (!(f[i + 1] - f[i] > 1e-9 * L)) {
      if (msg) snprintf(msg, len, "faces %" PetscInt_FMT " and %" PetscInt_FMT " (%.17g, %.17g) %s", i, i + 1, (double)f[i], (double)f[i + 1], f[i + 1] <= f[i] ? "are not increasing" : "make a degenerate cell (width below 1e-9 of the length)");
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGGridSetFaces - make direction d stretched with the given face coordinates, or uniform.

  Logically collective (every rank passes the same faces).

  Input Parameters:
+ g     - the grid
. d     - the direction
- faces - n[d] + 1 increasing coordinates from x0[d] to x0[d] + L[d] (the lower boundary face
          first), or NULL: uniform (h = L/n)

  Notes:
  The metrics (include/fg/grid.h) are made for the ghost indices too: mirrored about a
  non-periodic boundary, wrapped around a periodic one. Bad faces are FG_ERR_INPUT
  (FGGridCheckFaces says why). Call before the grid's solvers and fields are made.
@*/
PetscErrorCode FGGridSetFaces(FGGrid g, PetscInt d, const PetscReal faces[])
{
  FGAxis        *ax = &g->ax[d];
  const PetscInt n = g->n[d], G = FG_AXIS_GHOST, m = n + 2 * G;
  PetscReal     *a;

  PetscFunctionBeginUser;
  PetscCheck(d >= 0 && d < 3, g->comm, PETSC_ERR_ARG_OUTOFRANGE, "grid: no direction %" PetscInt_FMT, d);
  PetscCheck(!faces || d < g->dim, g->comm, FG_ERR_INPUT, "grid: a %" PetscInt_FMT "D grid has no direction %c to stretch", g->dim, "xyz"[d]);
  if (faces) {
    char msg[256];
    PetscCall(FGGridCheckFaces(n, faces, g->x0[d], g->L[d], msg, sizeof(msg)));
    PetscCheck(!msg[0], g->comm, FG_ERR_INPUT, "grid: stretched %c: %s", "xyz"[d], msg);
  }
  PetscCall(FGGridAxisFree_Private(ax));
  PetscCall(PetscMalloc1(6 * m, &a));
  ax->mem = a;
  ax->xf = a + G, ax->xc = a + m + G, ax->dxf = a + 2 * m + G, ax->dxc = a + 3 * m + G, ax->idxf = a + 4 * m + G, ax->idxc = a + 5 * m + G;
  g->uniform[d] = (PetscBool)!faces;
  if (!faces) {
    const PetscReal h = g->h[d] = g->L[d] / (PetscReal)n;
    for (PetscInt i = -G; i < n + G; i++) {
      ax->xf[i] = g->x0[d] + ((PetscReal)i + 1.0) * h;
      ax->xc[i] = g->x0[d] + ((PetscReal)i + 0.5) * h;
      ax->dxf[i] = ax->dxc[i] = h;
      ax->idxf[i] = ax->idxc[i] = 1.0 / h;
    }
    ax->hmin = ax->hmax = h, ax->growth = 1.0;
  } else {
    for (PetscInt i = 0; i < n; i++) ax->dxf[i] = faces[i + 1] - faces[i];
    for (PetscInt i = 1; i <= G; i++) { /* ghosts: wrapped or mirrored */
      const PetscInt lo = g->periodic[d] ? ((n - i) % n + n) % n : PetscMin(i - 1, n - 1);
      const PetscInt hi = g->periodic[d] ? (i - 1) % n : PetscMax(n - i, 0);
      ax->dxf[-i]        = ax->dxf[lo];
      ax->dxf[n - 1 + i] = ax->dxf[hi];
    }
    ax->xf[-1] = faces[0];
    for (PetscInt i = 0; i < n; i++) ax->xf[i] = faces[i + 1];
    ax->xf[-2] = ax->xf[-1] - ax->dxf[-1];
    for (PetscInt i = n; i < n + G; i++) ax->xf[i] = ax->xf[i - 1] + ax->dxf[i];
    ax->hmin = PETSC_MAX_REAL, ax->hmax = 0, ax->growth = 1.0;
    for (PetscInt i = -G; i < n + G; i++) {
      ax->xc[i]   = ax->xf[i] - 0.5 * ax->dxf[i];
      ax->dxc[i]  = i + 1 < n + G ? 0.5 * (ax->dxf[i] + ax->dxf[i + 1]) : ax->dxf[i];
      ax->idxf[i] = 1.0 / ax->dxf[i];
      ax->idxc[i] = 1.0 / ax->dxc[i];
      if (i >= 0 && i < n) {
        ax->hmin = PetscMin(ax->hmin, ax->dxf[i]), ax->hmax = PetscMax(ax->hmax, ax->dxf[i]);
        if (i > 0) ax->growth = PetscMax(ax->growth, PetscMax(ax->dxf[i] / ax->dxf[i - 1], ax->dxf[i - 1] / ax->dxf[i]));
      }
    }
    g->h[d] = g->L[d] / (PetscReal)n;
  }
  g->isuniform = PETSC_TRUE;
  for (PetscInt e = 0; e < 3; e++)
    if (!g->uniform[e]) g->isuniform = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGGridCellVolume - the volume (area in 2D) of cell (i, j, k).
@*/
PetscReal FGGridCellVolume(FGGrid g, PetscInt i, PetscInt j, PetscInt k)
{
  PetscReal v = g->ax[0].dxf[i] * g->ax[1].dxf[j];
  return g->dim == 3 ? v * g->ax[2].dxf[k] : v;
}

/*@C
  FGGridWidth - the width along d of the control volume of index i of a field at loc: dxc[i] for
  a face normal to d, dxf[i] otherwise (h on a uniform direction; 1 for d >= dim). i in [-2, n+1].
@*/
PetscReal FGGridWidth(FGGrid g, FGLocation loc, PetscInt d, PetscInt i)
{
  if (d >= g->dim) return 1;
  if (g->uniform[d]) return g->h[d];
  return loc == (FGLocation)(FG_LOC_FACE_X + d) ? g->ax[d].dxc[i] : g->ax[d].dxf[i];
}

/*@C
  FGGridVolume - the control volume (area in 2D) of index idx of a field at loc: the product of
  FGGridWidth over the directions (on a uniform grid prod h, the same double for every index).
@*/
PetscReal FGGridVolume(FGGrid g, FGLocation loc, const PetscInt idx[])
{
  PetscReal v = 1;
  for (PetscInt d = 0; d < g->dim; d++) v *= FGGridWidth(g, loc, d, idx[d]);
  return v;
}

/*@C
  FGGridFloor - the largest index i in [-2, n+1] of a field at loc with coordinate(loc, d, i) <= x
  (-3 when x lies below them all): a bisection of the coordinates on a stretched direction.
@*/
PetscInt FGGridFloor(FGGrid g, FGLocation loc, PetscInt d, PetscReal x)
{
  const PetscReal *c  = loc == (FGLocation)(FG_LOC_FACE_X + d) ? g->ax[d].xf : g->ax[d].xc;
  PetscInt         lo = -FG_AXIS_GHOST - 1, hi = g->n[d] + FG_AXIS_GHOST; /* c[lo] <= x < c[hi], the ends virtual */

  if (g->uniform[d]) return (PetscInt)PetscMin(PetscMax(PetscFloorReal((x - FGGridCoordinate(g, loc, d, 0)) / g->h[d]), -FG_AXIS_GHOST - 1.0), g->n[d] + FG_AXIS_GHOST - 1.0);
  while (hi - lo > 1) {
    PetscInt m = lo + (hi - lo) / 2;
    if (c[m] <= x) lo = m;
    else hi = m;
  }
  return lo;
}

/*@C
  FGGridIndexRange - a range [lo, hi) of indices of a field at loc along d that holds every index
  whose coordinate lies in [xlo, xhi] (with a margin of one index; not clipped to the grid).
@*/
void FGGridIndexRange(FGGrid g, FGLocation loc, PetscInt d, PetscReal xlo, PetscReal xhi, PetscInt *lo, PetscInt *hi)
{
  if (g->uniform[d]) {
    const PetscReal c0 = FGGridCoordinate(g, loc, d, 0);
    *lo                = (PetscInt)PetscMax(PetscFloorReal((xlo - c0) / g->h[d]), -FG_AXIS_GHOST - 1.0);
    *hi                = (PetscInt)PetscMin(PetscCeilReal((xhi - c0) / g->h[d]) + 1, g->n[d] + FG_AXIS_GHOST + 1.0);
  } else {
    *lo = FGGridFloor(g, loc, d, xlo);
    *hi = FGGridFloor(g, loc, d, xhi) + 2;
  }
}

/*@C
  FGGridCellOf - the cell along d that holds x: i with xf[i-1] <= x < xf[i] (may lie outside
  [0, n) when x does; within [-3, n+2]).
@*/
PetscInt FGGridCellOf(FGGrid g, PetscInt d, PetscReal x)
{
  if (g->uniform[d]) return (PetscInt)PetscMin(PetscMax(PetscFloorReal((x - g->x0[d]) / g->h[d]), -FG_AXIS_GHOST - 1.0), g->n[d] + FG_AXIS_GHOST);
  return FGGridFloor(g, (FGLocation)(FG_LOC_FACE_X + d), d, x) + 1;
}

/*@C
  FGGridSpacingIn - the largest width along d of the cells that overlap [xlo, xhi] (h on a
  uniform direction).
@*/
PetscReal FGGridSpacingIn(FGGrid g, PetscInt d, PetscReal xlo, PetscReal xhi)
{
  PetscReal h = 0;
  PetscInt  lo, hi;

  if (g->uniform[d]) return g->h[d];
  lo = PetscMax(FGGridCellOf(g, d, xlo), 0);
  hi = PetscMin(FGGridCellOf(g, d, xhi), g->n[d] - 1);
  for (PetscInt i = lo; i <= hi; i++) h = PetscMax(h, g->ax[d].dxf[i]);
  return h > 0 ? h : g->ax[d].hmax;
}

/*@C
  FGGridCellDensity - y = (x_0 + ... + x_{n-1}) / V at each cell, V the cell's volume: sums over
  cells made densities (y a global Vec of the grid, cell-centred). Collective.
@*/
PetscErrorCode FGGridCellDensity(FGGrid g, PetscInt n, const Vec x[], Vec y)
{
  const FGBox *b  = &g->box;
  PetscReal    dV = 1;
  PetscScalar *a;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < g->dim; d++) dV *= g->h[d];
  PetscCall(VecSet(y, 0.0));
  for (PetscInt i = 0; i < n; i++) PetscCall(VecAXPY(y, g->isuniform ? 1.0 / dV : 1.0, x[i]));
  if (g->isuniform) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArray(y, &a));
  for (PetscInt k = b->lo[2]; k < b->hi[2]; k++)
    for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
      for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) {
        const PetscInt idx[3] = {i, j, k};
        a[FGBoxOwnedIndex(b, i, j, k)] /= FGGridVolume(g, FG_LOC_CELL, idx);
      }
  PetscCall(VecRestoreArray(y, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGGridMinSpacing - the smallest cell width over all directions.
@*/
PetscReal FGGridMinSpacing(FGGrid g)
{
  PetscReal h = PETSC_MAX_REAL;
  for (PetscInt d = 0; d < g->dim; d++) h = PetscMin(h, g->ax[d].hmin);
  return h;
}

/*@C
  FGGridCreateStarDM - a DMDA with a star stencil of width 1 and exactly the layout (ownership
  ranges) of the grid's DMDA, for assembled operators: the grid's DMDA has a box stencil, whose
  preallocation would store 9 or 27 entries per row. Its Vecs have the grid's layout. prefix: its
  options prefix (NULL: none). Collective.
@*/
PetscErrorCode FGGridCreateStarDM(FGGrid g, const char prefix[], DM *da)
{
  const PetscInt *l[3] = {NULL, NULL, NULL};
  DMBoundaryType  bt[3];

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < 3; d++) bt[d] = g->periodic[d] ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_GHOSTED;
  if (g->dim == 2) {
    PetscCall(DMDAGetOwnershipRanges(g->da, &l[0], &l[1], NULL));
    PetscCall(DMDACreate2d(g->comm, bt[0], bt[1], DMDA_STENCIL_STAR, g->n[0], g->n[1], g->nproc[0], g->nproc[1], 1, 1, l[0], l[1], da));
  } else {
    PetscCall(DMDAGetOwnershipRanges(g->da, &l[0], &l[1], &l[2]));
    PetscCall(DMDACreate3d(g->comm, bt[0], bt[1], bt[2], DMDA_STENCIL_STAR, g->n[0], g->n[1], g->n[2], g->nproc[0], g->nproc[1], g->nproc[2], 1, 1, l[0], l[1], l[2], da));
  }
  if (prefix) PetscCall(DMSetOptionsPrefix(*da, prefix));
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGGridDestroy(FGGrid *grid)
{
  PetscFunctionBeginUser;
  if (!*grid) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(DMDestroy(&(*grid)->da));
  for (PetscInt d = 0; d < 3; d++) PetscCall(FGGridAxisFree_Private(&(*grid)->ax[d]));
  PetscCall(PetscFree(*grid));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGGridCoordinate - coordinate along direction d of index i for a field at location loc.
@*/
PetscReal FGGridCoordinate(FGGrid g, FGLocation loc, PetscInt d, PetscInt i)
{
  PetscBool onface = (PetscBool)((loc == FG_LOC_FACE_X && d == 0) || (loc == FG_LOC_FACE_Y && d == 1) || (loc == FG_LOC_FACE_Z && d == 2));
  if (g->uniform[d] || i < -FG_AXIS_GHOST || i >= g->n[d] + FG_AXIS_GHOST) return g->x0[d] + ((PetscReal)i + (onface ? 1.0 : 0.5)) * g->h[d];
  return onface ? g->ax[d].xf[i] : g->ax[d].xc[i];
}

/*@C
  FGGridView - print the grid and its decomposition (collective).
@*/
PetscErrorCode FGGridView(FGGrid g, PetscViewer viewer)
{
  PetscMPIInt size;
  PetscInt    nloc = 1, lo, hi;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(g->comm, &size));
  for (PetscInt d = 0; d < g->dim; d++) nloc *= g->box.hi[d] - g->box.lo[d];
  PetscCall(MPIU_Allreduce(&nloc, &lo, 1, MPIU_INT, MPI_MIN, g->comm));
  PetscCall(MPIU_Allreduce(&nloc, &hi, 1, MPIU_INT, MPI_MAX, g->comm));
  {
    char line[512], *q = line;
    /* plain snprintf: PETSc's printf writes 1.0 as "1." */
    q += snprintf(q, sizeof(line), "grid: %" PetscInt_FMT, g->n[0]);
    for (PetscInt d = 1; d < g->dim; d++) q += snprintf(q, sizeof(line) - (size_t)(q - line), " x %" PetscInt_FMT, g->n[d]);
    q += snprintf(q, sizeof(line) - (size_t)(q - line), " cells, domain %g", (double)g->L[0]);
    for (PetscInt d = 1; d < g->dim; d++) q += snprintf(q, sizeof(line) - (size_t)(q - line), " x %g", (double)g->L[d]);
    q += snprintf(q, sizeof(line) - (size_t)(q - line), ", h = %g", (double)g->ax[0].hmin);
    if (!g->uniform[0]) q += snprintf(q, sizeof(line) - (size_t)(q - line), "..%g", (double)g->ax[0].hmax);
    for (PetscInt d = 1; d < g->dim; d++) {
      q += snprintf(q, sizeof(line) - (size_t)(q - line), " x %g", (double)g->ax[d].hmin);
      if (!g->uniform[d]) q += snprintf(q, sizeof(line) - (size_t)(q - line), "..%g", (double)g->ax[d].hmax);
    }
    q += snprintf(q, sizeof(line) - (size_t)(q - line), ", periodic");
    for (PetscInt d = 0; d < g->dim; d++) q += snprintf(q, sizeof(line) - (size_t)(q - line), " %c:%s", "xyz"[d], g->periodic[d] ? "yes" : "no");
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s\n", line));
    for (PetscInt d = 0; d < g->dim; d++)
      if (!g->uniform[d]) PetscCall(PetscViewerASCIIPrintf(viewer, "  %c stretched: %" PetscInt_FMT " cells, h_min %g, h_max %g, largest growth ratio %.4f\n", "xyz"[d], g->n[d], (double)g->ax[d].hmin, (double)g->ax[d].hmax, (double)g->ax[d].growth));
    q = line;
    q += snprintf(q, sizeof(line), "decomposition: %s, %d ranks as %" PetscInt_FMT, FGDecompNames[g->decomp], (int)size, g->nproc[0]);
    for (PetscInt d = 1; d < g->dim; d++) q += snprintf(q, sizeof(line) - (size_t)(q - line), " x %" PetscInt_FMT, g->nproc[d]);
    q += snprintf(q, sizeof(line) - (size_t)(q - line), ", %" PetscInt_FMT "..%" PetscInt_FMT " cells per rank", lo, hi);
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s\n", line));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGGridGatherNatural - gather a global Vec of the grid to rank 0 in natural (i fastest) order.

  Collective.

  Output Parameter:
. seq - a sequential Vec holding the whole grid on rank 0, of length 0 on the other ranks
        (destroy it); for comparisons across decompositions and rank counts
@*/
PetscErrorCode FGGridGatherNatural(FGGrid g, Vec x, Vec *seq)
{
  Vec        nat;
  VecScatter sc;

  PetscFunctionBeginUser;
  PetscCall(DMDACreateNaturalVector(g->da, &nat));
  PetscCall(DMDAGlobalToNaturalBegin(g->da, x, INSERT_VALUES, nat));
  PetscCall(DMDAGlobalToNaturalEnd(g->da, x, INSERT_VALUES, nat));
  PetscCall(VecScatterCreateToZero(nat, &sc, seq));
  PetscCall(VecScatterBegin(sc, nat, *seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, nat, *seq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&nat));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGGridGlobalIndex - the index of cell (or face) idx in the grid's global Vecs (PETSc's ordering:
  rank by rank, x fastest within each rank's box), for any idx in the domain, owned or not; a
  periodic direction's index wraps. -1 outside the domain. For assembling operators whose stencil
  reaches further than the DMDA's ghosts (MatSetValues with global indices). From the ownership
  ranges, in O(ranks along an axis): the DMDA's AO (DMDAGetAO) maps the same, but its basic type
  keeps the whole grid's map on every rank and its memory-scalable one maps collectively.

  Not collective.
@*/
PetscInt FGGridGlobalIndex(FGGrid g, const PetscInt idx[])
{
  const PetscInt *l[3] = {NULL, NULL, NULL};
  PetscInt        p[3] = {0, 0, 0}, s[3] = {0, 0, 0}, w[3] = {1, 1, 1}, off = 0, loc;

  if (g->dim == 2) (void)DMDAGetOwnershipRanges(g->da, &l[0], &l[1], NULL);
  else (void)DMDAGetOwnershipRanges(g->da, &l[0], &l[1], &l[2]);
  for (PetscInt d = 0; d < g->dim; d++) {
    PetscInt i = idx[d];
    if (g->periodic[d]) i = ((i % g->n[d]) + g->n[d]) % g->n[d];
    if (i < 0 || i >= g->n[d]) return -1;
    while (i >= s[d] + l[d][p[d]]) s[d] += l[d][p[d]++];
    s[d] = i - s[d]; /* the offset in the owner's box */
    w[d] = l[d][p[d]];
  }
  /* the ranks before the owner: whole z-planes of ranks, then whole y-rows, then x-neighbours */
  for (PetscInt k = 0; k < p[2]; k++) off += g->n[0] * g->n[1] * l[2][k];
  for (PetscInt j = 0; j < p[1]; j++) off += g->n[0] * l[1][j] * w[2];
  for (PetscInt i = 0; i < p[0]; i++) off += l[0][i] * w[1] * w[2];
  loc = s[0] + w[0] * (s[1] + w[1] * s[2]);
  return off + loc;
}
