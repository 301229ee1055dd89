/*
  Density-field bodies (topology optimization): a design variable rho_i in [0, 1] per cell i and
  the solid mask

    chi = P(F rho)            (cell centres; "chi = filtered, projected rho")

  with F a linear smoothing filter and P a smooth pointwise projection.

  Filter. F is K passes of the explicit heat-kernel step, applied along every axis in turn,

    rho_i <- rho_i + c (rho_{i+e_d} - 2 rho_i + rho_{i-e_d}),   d = x, y (, z),

  closed at a non-periodic boundary by a zero-flux (Neumann) ghost, rho_{-1} = rho_0 and
  rho_{n} = rho_{n-1}, and wrapped on a periodic axis. Along one axis a step is the 3-point
  kernel [c, 1 - 2c, c], of variance 2c; K steps have variance 2cK. For a radius of R cells

    K = ceil(2 R^2),   c = R^2 / (2K)   (<= 1/4),

  so the kernel has standard deviation exactly R cells along each axis away from the walls (a
  discrete Gaussian for K >> 1) and R = 0 gives K = 0, the identity. R is in cells of each axis;
  with h_x != h_y the physical radius differs per axis. Properties, each tested
  (tests/body/test_density.c):
    - linear and symmetric, F^T = F: each 1D step is a symmetric matrix (with the Neumann ghost
      the end rows are [1 - c, c]), the axes act on different indices so they commute, and a
      product of commuting symmetric matrices is symmetric. The adjoint of the filter is the
      filter (FGDensityMaskAdjoint() uses FGDensityFilter() for F^T).
    - positive (c <= 1/2), so F rho stays in [min rho, max rho], in particular in [0, 1];
    - a constant is preserved exactly in floating point (rho - 2 rho + rho == 0), and with the
      zero-flux walls the mass sum_i rho_i to round-off (rows and columns sum to 1);
    - the result does not depend on the decomposition, bit for bit: every value is computed from
      the same neighbours by the same expression.
  One pass = one ghost exchange (DMGlobalToLocal; ghost width 1, box stencil), the Neumann
  ghosts, then the per-axis sweeps on the local array: the x sweep over the owned x range and
  the ghosted y and z ranges, the y sweep over owned x, y and ghosted z, the z sweep over the
  owned box. The box stencil's corner ghosts make that exact: the product of the 1D kernels is
  the 3x3(x3) tensor kernel, which one exchange covers. Cost: K exchanges and K dim sweeps.

  Projection (Wang, Lazarov & Sigmund 2011, eq. 9):

    P(s)  = (tanh(beta theta) + tanh(beta (s - theta))) / (tanh(beta theta) + tanh(beta (1 - theta)))
    P'(s) = beta (1 - tanh^2(beta (s - theta))) / (tanh(beta theta) + tanh(beta (1 - theta)))

  P(0) = 0, P(1) = 1, monotone; beta -> infinity gives the step at theta, beta = 0 the identity
  (the limit, taken exactly).

  Mask and its transpose-Jacobian. With s = F rho:  chi = P(s),  J^T chibar = F (P'(s) .* chibar).
  The adjoint recomputes s (one filter more than keeping it, and no stale state to get wrong).

  Faces. The solver's velocity u_a of cell i lives on the cell's +a face, between cells i and
  i + e_a; its mask is the average chi_f(i) = (chi(i) + chi(i + e_a)) / 2. On the owned upper
  boundary face (i_a = n_a - 1, non-periodic axis) only cell n_a - 1 is adjacent: chi_f = chi(i).
  The lower boundary face is the ghost index -1 and is not set. The transpose is written as a
  gather (cell i <- its -a and +a faces, through a ghost exchange of chi_f bar) rather than a
  scatter with DMLocalToGlobal(ADD_VALUES), whose sums would be ordered by the decomposition.

  Reading. FGDensityRead() reads the file with FGIOReadCellField(), which checks it on rank 0
  (exists, HDF5, the dataset, floating point, its shape) and shares the verdict, so every rank
  raises the same FG_ERR_INPUT (exit 2), whose message starts with the caller's `where` (the
  case-file key), then reads it collectively; here the values are checked (in [0, 1] up to 1e-12,
  which is clipped; no NaN).
*/
#include <fg/density.h>
#include <fg/io.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FG_DENSITY_SLACK 1e-12 /* FGDensityRead: values in [-slack, 1 + slack] are clipped to [0, 1] */

struct _p_FGDensity {
  FGGrid       grid;
  PetscReal    radius, beta, theta;
  PetscInt     npass; /* K */
  PetscReal    c;     /* per-pass, per-axis coefficient */
  Vec          loc;   /* ghosted local work Vec */
  PetscScalar *sweep; /* dim - 1 ghosted-size buffers between the axis sweeps */
  Vec          s, w;  /* s = F rho; w = P'(s) .* chibar */
};

/* ---------------------------------------------------------------------------------------------
   Log events
   --------------------------------------------------------------------------------------------- */
static PetscBool     FGDensityRegistered = PETSC_FALSE;
static PetscClassId  FGDENSITY_CLASSID;
static PetscLogEvent FGDENSITY_Filter, FGDENSITY_Read;

static PetscErrorCode FGDensityFinalizePackage_Private(void)
{
  PetscFunctionBeginUser;
  FGDensityRegistered = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGDensityInitializePackage_Private(void)
{
  PetscFunctionBeginUser;
  if (FGDensityRegistered) PetscFunctionReturn(PETSC_SUCCESS);
  FGDensityRegistered = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("flowgrad density", &FGDENSITY_CLASSID));
  PetscCall(PetscLogEventRegister("FGDensityFilter", FGDENSITY_CLASSID, &FGDENSITY_Filter));
  PetscCall(PetscLogEventRegister("FGDensityRead", FGDENSITY_CLASSID, &FGDENSITY_Read));
  PetscCall(PetscRegisterFinalize(FGDensityFinalizePackage_Private));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x is a global Vec of the grid's DMDA (its local size is the owned box) */
static PetscErrorCode FGDensityCheckVec_Private(FGGrid g, Vec x, const char *name)
{
  PetscInt m, nloc = 1;

  PetscFunctionBeginUser;
  PetscCheck(x, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "density: %s is NULL", name);
  for (PetscInt d = 0; d < g->dim; d++) nloc *= g->box.hi[d] - g->box.lo[d];
  PetscCall(VecGetLocalSize(x, &m));
  PetscCheck(m == nloc, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "density: %s has local size %" PetscInt_FMT ", not %" PetscInt_FMT "; it must be a global Vec of the grid's DMDA", name, m, nloc);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Projection
   --------------------------------------------------------------------------------------------- */
static inline void FGDensityProject_Private(PetscReal beta, PetscReal theta, PetscReal s, PetscReal *p, PetscReal *dp)
{
  if (beta == 0) {
    if (p) *p = s;
    if (dp) *dp = 1;
  } else {
    const PetscReal a = PetscTanhReal(beta * theta), t = PetscTanhReal(beta * (s - theta));
    const PetscReal den = a + PetscTanhReal(beta * (1 - theta));
    if (p) *p = (a + t) / den;
    if (dp) *dp = beta * (1 - t * t) / den;
  }
}

static PetscErrorCode FGDensityCheckProjection_Private(MPI_Comm comm, PetscReal beta, PetscReal theta)
{
  PetscFunctionBeginUser;
  PetscCheck(beta >= 0 && !PetscIsInfOrNanReal(beta), comm, FG_ERR_INPUT, "density: projection beta %g is not a finite number >= 0", (double)beta);
  PetscCheck(theta >= 0 && theta <= 1, comm, FG_ERR_INPUT, "density: projection threshold %g is not in [0, 1]", (double)theta);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDensityProjection - the smooth projection P(s) and its derivative P'(s).

  Not collective.

  Input Parameters:
+ beta  - sharpness, >= 0 (0: the identity)
. theta - threshold in [0, 1]
- s     - the filtered density

  Output Parameters:
+ p  - P(s) (may be NULL)
- dp - P'(s) (may be NULL)

  Notes:
  P(s) = (tanh(beta theta) + tanh(beta (s - theta))) / (tanh(beta theta) + tanh(beta (1 - theta)))
  (Wang, Lazarov & Sigmund 2011); P(0) = 0, P(1) = 1, increasing. FG_ERR_INPUT for beta < 0 or
  theta outside [0, 1].

.seealso: FGDensityMask(), FGDensitySetProjection()
@*/
PetscErrorCode FGDensityProjection(PetscReal beta, PetscReal theta, PetscReal s, PetscReal *p, PetscReal *dp)
{
  PetscFunctionBeginUser;
  PetscCall(FGDensityCheckProjection_Private(PETSC_COMM_SELF, beta, theta));
  FGDensityProject_Private(beta, theta, s, p, dp);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Create, destroy, view
   --------------------------------------------------------------------------------------------- */

/*@C
  FGDensityCreate - the filter, projection and work space of a density-field body on a grid.

  Collective on the grid's communicator.

  Input Parameters:
+ grid   - the grid (it must outlive the object)
. radius - filter radius R in cells, >= 0 (0: no filter)
. beta   - projection sharpness, >= 0 (0: no projection)
- theta  - projection threshold in [0, 1]

  Output Parameter:
. dens - the object

  Notes:
  The filter is K = ceil(2 R^2) heat-kernel passes of coefficient c = R^2/(2K) per axis (top of
  src/body/density.c), variance R^2 per axis. All work Vecs are made here; the other calls
  allocate nothing. FG_ERR_INPUT for a negative or non-finite radius or an invalid projection.

.seealso: FGDensityDestroy(), FGDensityMask(), FGDensityFilter(), FGDensityRead()
@*/
PetscErrorCode FGDensityCreate(FGGrid grid, PetscReal radius, PetscReal beta, PetscReal theta, FGDensity *dens)
{
  FGDensity d;
  PetscInt  nghost = 1;

  PetscFunctionBeginUser;
  PetscCheck(dens, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "density: NULL output pointer");
  *dens = NULL;
  PetscCall(FGDensityInitializePackage_Private());
  PetscCheck(radius >= 0 && radius < 1e4, grid->comm, FG_ERR_INPUT, "density: filter radius %g is not in [0, 1e4) cells", (double)radius);
  PetscCall(FGDensityCheckProjection_Private(grid->comm, beta, theta));
  PetscCall(PetscNew(&d));
  d->grid   = grid;
  d->radius = radius;
  d->beta   = beta;
  d->theta  = theta;
  d->npass  = (PetscInt)PetscCeilReal(2 * radius * radius);
  d->c      = d->npass ? radius * radius / (2 * (PetscReal)d->npass) : 0;
  for (PetscInt e = 0; e < 3; e++) nghost *= grid->box.ghi[e] - grid->box.glo[e];
  PetscCall(PetscMalloc1((grid->dim - 1) * nghost, &d->sweep));
  PetscCall(DMCreateLocalVector(grid->da, &d->loc));
  PetscCall(DMCreateGlobalVector(grid->da, &d->s));
  PetscCall(VecDuplicate(d->s, &d->w));
  *dens = d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDensityDestroy - free a density object (NULL is fine).

  Collective.
@*/
PetscErrorCode FGDensityDestroy(FGDensity *dens)
{
  PetscFunctionBeginUser;
  if (!dens || !*dens) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree((*dens)->sweep));
  PetscCall(VecDestroy(&(*dens)->loc));
  PetscCall(VecDestroy(&(*dens)->s));
  PetscCall(VecDestroy(&(*dens)->w));
  PetscCall(PetscFree(*dens));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDensitySetProjection - change beta and theta (beta continuation); the filter is unchanged.

  Not collective (every rank must set the same values).

.seealso: FGDensityProjection()
@*/
PetscErrorCode FGDensitySetProjection(FGDensity d, PetscReal beta, PetscReal theta)
{
  PetscFunctionBeginUser;
  PetscCall(FGDensityCheckProjection_Private(PETSC_COMM_SELF, beta, theta));
  d->beta  = beta;
  d->theta = theta;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDensityGetFilter - the filter's number of passes K and per-pass coefficient c.

  Not collective.

  Output Parameters:
+ npass - K = ceil(2 R^2) (may be NULL)
- c     - R^2 / (2K), 0 when K = 0 (may be NULL)
@*/
PetscErrorCode FGDensityGetFilter(FGDensity d, PetscInt *npass, PetscReal *c)
{
  PetscFunctionBeginUser;
  if (npass) *npass = d->npass;
  if (c) *c = d->c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDensityView - one line: radius, passes, projection.

  Collective on the viewer (ASCII viewers only; others print nothing).
@*/
PetscErrorCode FGDensityView(FGDensity d, PetscViewer viewer)
{
  PetscBool ascii;

  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(d->grid->comm, &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "density: filter radius %g cells (%" PetscInt_FMT " passes, c = %.6g), projection beta %g theta %g\n", (double)d->radius, d->npass, (double)d->c, (double)d->beta, (double)d->theta));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Filter
   --------------------------------------------------------------------------------------------- */

/* Zero-flux ghosts of a ghosted local array at the non-periodic boundaries this rank touches:
   ghost plane -1 = plane 0, plane n = plane n-1, over the whole ghosted range of the other axes.
   Axis by axis, so an edge or corner ghost ends up as its reflection in every axis. */
static void FGDensityNeumannGhosts_Private(FGGrid g, PetscScalar *l)
{
  const FGBox *b = &g->box;

  for (PetscInt d = 0; d < g->dim; d++) {
    if (g->periodic[d]) continue;
    for (PetscInt side = 0; side < 2; side++) {
      PetscInt lo[3], hi[3], from;
      if (side == 0 && b->lo[d] != 0) continue;
      if (side == 1 && b->hi[d] != g->n[d]) continue;
      for (PetscInt e = 0; e < 3; e++) lo[e] = b->glo[e], hi[e] = b->ghi[e];
      lo[d] = side == 0 ? -1 : g->n[d];
      hi[d] = lo[d] + 1;
      from  = side == 0 ? b->s[d] : -b->s[d];
      for (PetscInt k = lo[2]; k < hi[2]; k++)
        for (PetscInt j = lo[1]; j < hi[1]; j++) {
          const PetscInt c0 = FGBoxIndex(b, 0, j, k);
          for (PetscInt i = lo[0]; i < hi[0]; i++) l[c0 + i] = l[c0 + i + from];
        }
    }
  }
}

/* One heat step along axis d, out = in + c (in(+e_d) - 2 in + in(-e_d)), on the index range
   axes <= d: owned, axes > d: ghosted. in is a ghosted array; out is ghosted, or owned (the last
   axis, writing the global Vec). */
static void FGDensitySweep_Private(const FGBox *b, PetscInt dim, PetscInt d, PetscReal c, const PetscScalar *in, PetscScalar *out, PetscBool owned)
{
  const PetscInt s = b->s[d];
  PetscInt       lo[3], hi[3];

  for (PetscInt e = 0; e < 3; e++) {
    const PetscBool own = (PetscBool)(e <= d || e >= dim);
    lo[e]               = own ? b->lo[e] : b->glo[e];
    hi[e]               = own ? b->hi[e] : b->ghi[e];
  }
  for (PetscInt k = lo[2]; k < hi[2]; k++)
    for (PetscInt j = lo[1]; j < hi[1]; j++) {
      const PetscInt c0 = FGBoxIndex(b, 0, j, k), o0 = owned ? FGBoxOwnedIndex(b, 0, j, k) : c0;
      for (PetscInt i = lo[0]; i < hi[0]; i++) {
        const PetscInt q = c0 + i;
        out[o0 + i]      = in[q] + c * (in[q + s] - 2.0 * in[q] + in[q - s]);
      }
    }
}

/*@C
  FGDensityFilter - apply the smoothing filter: out = F in.

  Collective.

  Input Parameters:
+ d  - the density object
- in - a cell field (global Vec of grid->da)

  Output Parameter:
. out - F in (may be in itself)

  Notes:
  K passes of the heat step along each axis (top of src/body/density.c), one ghost exchange per
  pass. F is symmetric, so this is also the transpose F^T. Logged as FGDensityFilter.

.seealso: FGDensityCreate(), FGDensityMask()
@*/
PetscErrorCode FGDensityFilter(FGDensity d, Vec in, Vec out)
{
  FGGrid       g = d->grid;
  const FGBox *b = &g->box;
  PetscInt     nghost;

  PetscFunctionBeginUser;
  PetscCall(FGDensityCheckVec_Private(g, in, "filter input"));
  PetscCall(FGDensityCheckVec_Private(g, out, "filter output"));
  if (d->npass == 0) {
    if (out != in) PetscCall(VecCopy(in, out));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscLogEventBegin(FGDENSITY_Filter, 0, 0, 0, 0));
  PetscCall(VecGetLocalSize(d->loc, &nghost));
  for (PetscInt p = 0; p < d->npass; p++) {
    PetscScalar *l, *o;
    PetscCall(DMGlobalToLocal(g->da, p == 0 ? in : out, INSERT_VALUES, d->loc));
    PetscCall(VecGetArray(d->loc, &l));
    FGDensityNeumannGhosts_Private(g, l);
    PetscCall(VecGetArrayWrite(out, &o));
    for (PetscInt a = 0; a < g->dim; a++) {
      const PetscScalar *src  = a == 0 ? l : d->sweep + ((a - 1) % 2) * nghost;
      const PetscBool    last = (PetscBool)(a == g->dim - 1);
      PetscScalar       *dst  = last ? o : d->sweep + (a % 2) * nghost;
      FGDensitySweep_Private(b, g->dim, a, d->c, src, dst, last);
    }
    PetscCall(VecRestoreArrayWrite(out, &o));
    PetscCall(VecRestoreArray(d->loc, &l));
  }
  PetscCall(PetscLogFlops(5.0 * g->dim * d->npass * (double)(b->hi[0] - b->lo[0]) * (b->hi[1] - b->lo[1]) * (b->hi[2] - b->lo[2])));
  PetscCall(PetscLogEventEnd(FGDENSITY_Filter, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Cell mask and its transpose-Jacobian
   --------------------------------------------------------------------------------------------- */

/*@C
  FGDensityMask - the solid mask at the cell centres, chi = P(F rho).

  Collective.

  Input Parameters:
+ d   - the density object
- rho - the density, a cell field (global Vec of grid->da)

  Output Parameter:
. chi - the mask (may be rho itself)

.seealso: FGDensityMaskAdjoint(), FGDensityFaceMask(), FGDensityFilter(), FGDensityProjection()
@*/
PetscErrorCode FGDensityMask(FGDensity d, Vec rho, Vec chi)
{
  const PetscScalar *s;
  PetscScalar       *x;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(FGDensityCheckVec_Private(d->grid, rho, "rho"));
  PetscCall(FGDensityCheckVec_Private(d->grid, chi, "chi"));
  PetscCall(FGDensityFilter(d, rho, d->s));
  PetscCall(VecGetLocalSize(chi, &n));
  PetscCall(VecGetArrayRead(d->s, &s));
  PetscCall(VecGetArrayWrite(chi, &x));
  for (PetscInt i = 0; i < n; i++) FGDensityProject_Private(d->beta, d->theta, s[i], &x[i], NULL);
  PetscCall(VecRestoreArrayWrite(chi, &x));
  PetscCall(VecRestoreArrayRead(d->s, &s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDensityMaskAdjoint - the transpose-Jacobian product of the cell mask:
  rhobar = (d chi / d rho)^T chibar = F^T (P'(F rho) .* chibar).

  Collective.

  Input Parameters:
+ d      - the density object
. rho    - the density at which the Jacobian is taken
- chibar - the adjoint (sensitivity) of chi

  Output Parameter:
. rhobar - the sensitivity with respect to rho (overwritten; may be chibar itself)

  Notes:
  F^T = F. Two filters: F rho again, then F of the product.

.seealso: FGDensityMask(), FGDensityFaceMaskAdjoint()
@*/
PetscErrorCode FGDensityMaskAdjoint(FGDensity d, Vec rho, Vec chibar, Vec rhobar)
{
  const PetscScalar *s, *cb;
  PetscScalar       *w;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(FGDensityCheckVec_Private(d->grid, rho, "rho"));
  PetscCall(FGDensityCheckVec_Private(d->grid, chibar, "chibar"));
  PetscCall(FGDensityCheckVec_Private(d->grid, rhobar, "rhobar"));
  PetscCall(FGDensityFilter(d, rho, d->s));
  PetscCall(VecGetLocalSize(chibar, &n));
  PetscCall(VecGetArrayRead(d->s, &s));
  PetscCall(VecGetArrayRead(chibar, &cb));
  PetscCall(VecGetArrayWrite(d->w, &w));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal dp;
    FGDensityProject_Private(d->beta, d->theta, s[i], NULL, &dp);
    w[i] = dp * cb[i];
  }
  PetscCall(VecRestoreArrayWrite(d->w, &w));
  PetscCall(VecRestoreArrayRead(chibar, &cb));
  PetscCall(VecRestoreArrayRead(d->s, &s));
  PetscCall(FGDensityFilter(d, d->w, rhobar));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Face mask and its transpose
   --------------------------------------------------------------------------------------------- */

/* The owned faces of component a: [lo, hi) interior (two cells), [blo, bhi) the owned upper
   boundary plane of a non-periodic axis (one cell; empty elsewhere). */
static void FGDensityFaceRanges_Private(FGGrid g, PetscInt a, PetscInt lo[3], PetscInt hi[3], PetscInt blo[3], PetscInt bhi[3])
{
  for (PetscInt e = 0; e < 3; e++) lo[e] = blo[e] = g->box.lo[e], hi[e] = bhi[e] = g->box.hi[e];
  blo[a] = bhi[a] = hi[a];
  if (!g->periodic[a] && g->box.hi[a] == g->n[a]) {
    hi[a]  = g->n[a] - 1;
    blo[a] = g->n[a] - 1;
  }
}

static PetscErrorCode FGDensityCheckAxis_Private(FGGrid g, PetscInt a)
{
  PetscFunctionBeginUser;
  PetscCheck(a >= 0 && a < g->dim, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "density: face direction %" PetscInt_FMT " is not in [0, %" PetscInt_FMT ")", a, g->dim);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDensityFaceMask - the mask at the velocity faces of direction a: the average of the two
  adjacent cells.

  Collective.

  Input Parameters:
+ d        - the density object
. chi_cell - the cell mask (FGDensityMask())
- a        - the direction (0: u at +x faces, 1: v at +y faces, 2: w at +z faces)

  Output Parameter:
. chi_face - at the owned +a face of cell i, (chi(i) + chi(i + e_a))/2 (global Vec of grid->da)

  Notes:
  Periodic axes wrap. On a non-periodic axis the owned upper boundary face n_a - 1 gets the one
  adjacent cell's value, chi(n_a - 1); the lower boundary face is the ghost index -1 and is not
  part of a global Vec. Linear; FGDensityFaceMaskAdjoint() is its transpose.

.seealso: FGDensityFaceMaskAdjoint(), FGDensityMask()
@*/
PetscErrorCode FGDensityFaceMask(FGDensity d, Vec chi_cell, PetscInt a, Vec chi_face)
{
  FGGrid             g = d->grid;
  const FGBox       *b = &g->box;
  const PetscInt     s = b->s[a];
  const PetscScalar *c;
  PetscScalar       *f;
  PetscInt           lo[3], hi[3], blo[3], bhi[3];

  PetscFunctionBeginUser;
  PetscCall(FGDensityCheckAxis_Private(g, a));
  PetscCall(FGDensityCheckVec_Private(g, chi_cell, "chi_cell"));
  PetscCall(FGDensityCheckVec_Private(g, chi_face, "chi_face"));
  PetscCall(DMGlobalToLocal(g->da, chi_cell, INSERT_VALUES, d->loc));
  FGDensityFaceRanges_Private(g, a, lo, hi, blo, bhi);
  PetscCall(VecGetArrayRead(d->loc, &c));
  PetscCall(VecGetArrayWrite(chi_face, &f));
  for (PetscInt k = lo[2]; k < hi[2]; k++)
    for (PetscInt j = lo[1]; j < hi[1]; j++) {
      const PetscInt c0 = FGBoxIndex(b, 0, j, k), o0 = FGBoxOwnedIndex(b, 0, j, k);
      for (PetscInt i = lo[0]; i < hi[0]; i++) f[o0 + i] = 0.5 * (c[c0 + i] + c[c0 + i + s]);
    }
  for (PetscInt k = blo[2]; k < bhi[2]; k++)
    for (PetscInt j = blo[1]; j < bhi[1]; j++) {
      const PetscInt c0 = FGBoxIndex(b, 0, j, k), o0 = FGBoxOwnedIndex(b, 0, j, k);
      for (PetscInt i = blo[0]; i < bhi[0]; i++) f[o0 + i] = c[c0 + i];
    }
  PetscCall(VecRestoreArrayWrite(chi_face, &f));
  PetscCall(VecRestoreArrayRead(d->loc, &c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGDensityFaceMaskAdjoint - the transpose of FGDensityFaceMask(): add the face sensitivities
  back to the cells.

  Collective.

  Input Parameters:
+ d            - the density object
. chi_face_bar - sensitivity of the face mask of direction a
- a            - the direction

  Output Parameter:
. chi_cell_bar - the cell sensitivity, to which (d chi_face/d chi_cell)^T chi_face_bar is ADDED
                 (so the directions can be accumulated; zero it first)

  Notes:
  Written as a gather, so that every cell's sum has one order on any decomposition: cell i gets
  w_- fbar(i - e_a) + w_+ fbar(i) from its -a and +a faces, w = 1/2, except w_- = 0 at a
  non-periodic lower boundary (that face is not an output of FGDensityFaceMask()) and w_+ = 1 at
  a non-periodic upper boundary (the face that copies the cell). One ghost exchange of
  chi_face_bar.

.seealso: FGDensityFaceMask(), FGDensityMaskAdjoint()
@*/
PetscErrorCode FGDensityFaceMaskAdjoint(FGDensity d, Vec chi_face_bar, PetscInt a, Vec chi_cell_bar)
{
  FGGrid             g = d->grid;
  const FGBox       *b = &g->box;
  const PetscInt     s = b->s[a];
  const PetscScalar *f;
  PetscScalar       *l, *c;
  PetscInt           lo[3], hi[3], blo[3], bhi[3];

  PetscFunctionBeginUser;
  PetscCall(FGDensityCheckAxis_Private(g, a));
  PetscCall(FGDensityCheckVec_Private(g, chi_face_bar, "chi_face_bar"));
  PetscCall(FGDensityCheckVec_Private(g, chi_cell_bar, "chi_cell_bar"));
  PetscCall(DMGlobalToLocal(g->da, chi_face_bar, INSERT_VALUES, d->loc));
  PetscCall(VecGetArray(d->loc, &l));
  if (!g->periodic[a] && b->lo[a] == 0) { /* the lower boundary face contributes nothing */
    PetscInt glo[3], ghi[3];
    for (PetscInt e = 0; e < 3; e++) glo[e] = b->glo[e], ghi[e] = b->ghi[e];
    glo[a] = -1, ghi[a] = 0;
    for (PetscInt k = glo[2]; k < ghi[2]; k++)
      for (PetscInt j = glo[1]; j < ghi[1]; j++) {
        const PetscInt c0 = FGBoxIndex(b, 0, j, k);
        for (PetscInt i = glo[0]; i < ghi[0]; i++) l[c0 + i] = 0.0;
      }
  }
  f = l;
  FGDensityFaceRanges_Private(g, a, lo, hi, blo, bhi); /* cells: the same split, by their +a face */
  PetscCall(VecGetArray(chi_cell_bar, &c));
  for (PetscInt k = lo[2]; k < hi[2]; k++)
    for (PetscInt j = lo[1]; j < hi[1]; j++) {
      const PetscInt c0 = FGBoxIndex(b, 0, j, k), o0 = FGBoxOwnedIndex(b, 0, j, k);
      for (PetscInt i = lo[0]; i < hi[0]; i++) c[o0 + i] += 0.5 * (f[c0 + i - s] + f[c0 + i]);
    }
  for (PetscInt k = blo[2]; k < bhi[2]; k++)
    for (PetscInt j = blo[1]; j < bhi[1]; j++) {
      const PetscInt c0 = FGBoxIndex(b, 0, j, k), o0 = FGBoxOwnedIndex(b, 0, j, k);
      for (PetscInt i = blo[0]; i < bhi[0]; i++) c[o0 + i] += 0.5 * f[c0 + i - s] + f[c0 + i];
    }
  PetscCall(VecRestoreArray(chi_cell_bar, &c));
  PetscCall(VecRestoreArray(d->loc, &l));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Reading
   --------------------------------------------------------------------------------------------- */

/*@C
  FGDensityRead - read a density field (one value in [0, 1] per cell) from an HDF5 file.

  Collective on the grid's communicator.

  Input Parameters:
+ grid    - the grid (any number of ranks, any decomposition)
. file    - the HDF5 file, e.g. written by FGIOWriteFields()
. dataset - the dataset: shape (ny, nx) in 2D, (nz, ny, nx) in 3D, x fastest, floating point
- where   - what asked for it, the start of every error message (e.g.
            "case.yaml:12: body.topo.density_file"); NULL: "density"

  Output Parameter:
. rho - the density, a global Vec of grid->da (FG_LOC_CELL)

  Notes:
  Bad input is FG_ERR_INPUT (exit 2), raised alike on every rank with a message that starts with
  where and names the file: a missing or unreadable file, not HDF5, no such dataset, not floating
  point, a shape other than the grid's (expected and actual shape given), a value outside [0, 1]
  or NaN (the number of such values and the first, with its cell). Values within 1e-12 of [0, 1]
  are clipped to it. A failure while reading a valid file is FGIOReadField()'s FG_ERR_IO_READ.
  Logged as FGDensityRead.

.seealso: FGDensityCreate(), FGDensityMask(), FGIOReadField()
@*/
PetscErrorCode FGDensityRead(FGGrid grid, const char file[], const char dataset[], const char where[], Vec rho)
{
  MPI_Comm     comm = grid->comm;
  const FGBox *b    = &grid->box;
  PetscInt64   nbad = 0, first = INT64_MAX, gbad, gfirst;
  PetscReal    firstv = 0, gv, mine;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(FGDensityInitializePackage_Private());
  if (!where) where = "density";
  PetscCall(FGDensityCheckVec_Private(grid, rho, "rho"));

  /* 1. the file, checked on rank 0 (every rank raises the same error), read collectively */
  PetscCall(PetscLogEventBegin(FGDENSITY_Read, 0, 0, 0, 0));
  PetscCall(FGIOReadCellField(grid, file, dataset, where, "density file", rho));

  /* 2. values: in [0, 1] up to the slack (clipped), no NaN; report the first bad cell in natural order */
  PetscCall(VecGetArray(rho, &a));
  for (PetscInt k = b->lo[2]; k < b->hi[2]; k++)
    for (PetscInt j = b->lo[1]; j < b->hi[1]; j++)
      for (PetscInt i = b->lo[0]; i < b->hi[0]; i++) {
        PetscScalar *v = &a[FGBoxOwnedIndex(b, i, j, k)];
        if (*v >= -FG_DENSITY_SLACK && *v <= 1 + FG_DENSITY_SLACK) { /* false for NaN */
          *v = PetscClipInterval(*v, 0.0, 1.0);
        } else {
          const PetscInt64 nat = (PetscInt64)i + (PetscInt64)grid->n[0] * ((PetscInt64)j + (PetscInt64)grid->n[1] * k);
          if (nat < first) first = nat, firstv = *v;
          nbad++;
        }
      }
  PetscCall(VecRestoreArray(rho, &a));
  PetscCallMPI(MPI_Allreduce(&nbad, &gbad, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCall(PetscLogEventEnd(FGDENSITY_Read, 0, 0, 0, 0));
  if (gbad) {
    PetscCallMPI(MPI_Allreduce(&first, &gfirst, 1, MPIU_INT64, MPI_MIN, comm));
    mine = first == gfirst ? firstv : 0.0; /* the one owner's value (NaN survives the sum) */
    PetscCallMPI(MPI_Allreduce(&mine, &gv, 1, MPIU_REAL, MPI_SUM, comm));
    {
      const PetscInt64 i = gfirst % grid->n[0], j = (gfirst / grid->n[0]) % grid->n[1], k = gfirst / ((PetscInt64)grid->n[0] * grid->n[1]);
      char             cell[96], value[32];
      if (grid->dim == 2) snprintf(cell, sizeof(cell), "(i, j) = (%lld, %lld)", (long long)i, (long long)j);
      else snprintf(cell, sizeof(cell), "(i, j, k) = (%lld, %lld, %lld)", (long long)i, (long long)j, (long long)k);
      snprintf(value, sizeof(value), "%.17g", (double)gv);
      SETERRQ(comm, FG_ERR_INPUT, "%s: density file %s: dataset /%s has %lld value%s outside [0, 1] or NaN; the first, at cell %s, is %s", where, file, dataset, (long long)gbad, gbad > 1 ? "s" : "", cell, value);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
