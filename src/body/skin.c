/*
  Bodies: the soft skin's offset (body.<body>.skin_layer; docs/bodies.md, "Bodies").

  With a soft skin the band penalizes with eta_s = (K h)^2 / nu, K = skin_layer: its layer
  sqrt(nu eta_s) spans K cells, so the wall that the flow sees is not where the mask crosses a
  threshold but a smooth average over the band's faces, displaced from the band's centre by a
  length of order K h (Hester, Vasil & Burns, JCP 2021: the displacement length of a penalized
  boundary layer). FGBodySkinOffset finds the depth of the band's centre that puts that wall on
  the surface, from the discrete problem rather than the continuum one (whose displacement
  differs from the sampled mask's by a few hundredths of a cell, an O(h) error left in the forces):

  Model: a flat surface at x = 0, solid below, and the tangential velocity of a steady shear flow
  along one line of faces normal to it, x_i = (i - M + s) h, s in [0, 1) the surface's position
  between faces. In units of h,

    u_{i+1} - 2 u_i + u_{i-1} = q_i u_i,   q_i = G(d_i - c) / K^2 + G_1(d_i - c - core) Q_c,

  d_i = -x_i the depth, c the band's centre, G the band's profile (half-width eps), G_1 the core's
  (half-width one cell), Q_c = h^2 / (nu eta) the stiff core's; u_0 = 0 deep in the solid
  (M = 80 cells), u_n - u_{n-1} = 1 far out in the fluid (N = 160 cells). The wall the flow sees
  is where the far field's line u = x - x_w vanishes: x_w(c, s) = x_n - u_n. Averaged over ns = 64
  positions s it is affine in c with slope -1 up to the sampling (moving the band by c is moving
  the faces by c), so c <- c + mean x_w(c) finds the c with mean x_w = 0 in a few steps; the spread of x_w over s
  (the ripple) is what remains of the staircase on a grid-aligned surface.
*/
#include "bodyimpl.h"

#define FG_SKIN_M  80
#define FG_SKIN_N  160
#define FG_SKIN_NS 64

/* x_w(c, s) in cells: the Thomas algorithm on the line (rows 1..n, u_0 = 0). */
static PetscReal FGSkinWall_Private(PetscBool bspline, PetscReal eps, PetscReal K, PetscReal core, PetscReal Qc, PetscReal c, PetscReal s, PetscReal *cp, PetscReal *dp)
{
  const PetscInt n = FG_SKIN_M + FG_SKIN_N;

  for (PetscInt i = 1; i <= n; i++) {
    const PetscReal x = (PetscReal)(i - FG_SKIN_M) + s, d = -x;
    PetscReal       A, B, C, R = 0, G, dG, Gc, dGc, m;
    if (i < n) {
      FGBodyMaskProfile_Internal(bspline, d - c, eps, &G, &dG);
      FGBodyMaskProfile_Internal(bspline, d - c - core, 1.0, &Gc, &dGc);
      A = 1, B = -2 - G / (K * K) - Gc * Qc, C = 1;
    } else A = -1, B = 1, C = 0, R = 1;
    if (i == 1) A = 0; /* u_0 = 0 */
    m     = B - A * (i > 1 ? cp[i - 1] : 0);
    cp[i] = C / m;
    dp[i] = (R - A * (i > 1 ? dp[i - 1] : 0)) / m;
  }
  return ((PetscReal)(n - FG_SKIN_M) + s) - dp[n]; /* u_n = dp_n (the last row has no upper neighbour) */
}

/* The mean and the half-spread of x_w(c, s) over the positions s. */
static void FGSkinWallStats_Private(PetscBool bspline, PetscReal eps, PetscReal K, PetscReal core, PetscReal Qc, PetscReal c, PetscReal *mean, PetscReal *ripple, PetscReal *cp, PetscReal *dp)
{
  PetscReal lo = PETSC_MAX_REAL, hi = PETSC_MIN_REAL, sum = 0;

  for (PetscInt k = 0; k < FG_SKIN_NS; k++) {
    const PetscReal xw = FGSkinWall_Private(bspline, eps, K, core, Qc, c, (PetscReal)k / FG_SKIN_NS, cp, dp);
    sum += xw, lo = PetscMin(lo, xw), hi = PetscMax(hi, xw);
  }
  *mean = sum / FG_SKIN_NS, *ripple = 0.5 * (hi - lo);
}

/*@C
  FGBodySkinOffset - the depth of a soft skin's band centre below the surface that puts the wall
  the discrete flow sees on the surface (see above), in cells (negative: the centre lies in the
  fluid), and the ripple that remains (the half-spread of that wall over the surface's positions
  between faces, in cells). Not collective; the same on every rank.

  Input Parameters:
+ bspline - the band's profile: the cubic B-spline's integral (else the quintic)
. width   - the band's width in cells (mask_width: its half-width is width/2)
. K       - skin_layer: sqrt(nu eta_s) / h
. core    - core_depth: the stiff core's centre below the band's, in cells
- Qc      - h^2 / (nu eta) of the stiff core (0: no core)

  Output Parameters:
+ offset - the band centre's depth in cells
- ripple - the remaining ripple in cells (NULL: not wanted)
@*/
PetscErrorCode FGBodySkinOffset(PetscBool bspline, PetscReal width, PetscReal K, PetscReal core, PetscReal Qc, PetscReal *offset, PetscReal *ripple)
{
  PetscReal *cp, *dp, c = 0, m, r;

  PetscFunctionBeginUser;
  PetscCheck(width > 0 && K > 0 && core > 0 && Qc >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "FGBodySkinOffset: width %g, K %g, core %g, Qc %g", (double)width, (double)K, (double)core, (double)Qc);
  PetscCall(PetscMalloc2(FG_SKIN_M + FG_SKIN_N + 1, &cp, FG_SKIN_M + FG_SKIN_N + 1, &dp));
  for (PetscInt it = 0; it < 8; it++) { /* mean x_w(c) ~ mean x_w(0) - c: c += mean x_w(c) */
    FGSkinWallStats_Private(bspline, 0.5 * width, K, core, Qc, c, &m, &r, cp, dp);
    if (PetscAbsReal(m) < 1e-10) break;
    c += m;
  }
  PetscCall(PetscFree2(cp, dp));
  *offset = c;
  if (ripple) *ripple = r;
  PetscFunctionReturn(PETSC_SUCCESS);
}
