/*
  One-dimensional stretchings: the face coordinates of a non-uniform direction (FGGridSetFaces).

  band   A refined band [a, b] of uniform cells of width h_b (the h_min asked for, adjusted so that
         a whole number of cells fills the band), and on each side of it cells that grow
         geometrically, s_k = min(h_b r^k, h_max), k = 1, 2, ..., out to the domain's end. The
         ratio r <= growth of each side is the one that makes a whole number m of cells end
         exactly on the boundary: m is the fewest cells that reach the boundary at the full
         growth, and r in [1/growth, growth] (below 1 only on a side too short to grow) solves sum_k min(h_b r^k, h_max) = (length of the side) by
         bisection (the sum increases with r). So neighbours differ by at most `growth`, the
         spacing never exceeds h_max, and the count follows from h_min, growth and h_max. As in
         the geometric stretchings of CaNS and of body-fitted practice (growth 1.02-1.1).
  tanh   n cells from the map x(s), s = i/n uniform, of the hyperbolic-tangent families
         (Thompson, Warsi & Mastin; CaNS's gr > 0):
           both   x = (1 + tanh(beta (s - 1/2)) / tanh(beta/2)) / 2     refined at both ends
           lower  x = 1 + tanh(beta (s - 1)) / tanh(beta)              refined at x0
           upper  x = tanh(beta s) / tanh(beta)                        refined at x0 + L
         The map is smooth, so refining n keeps the grid's shape and the growth ratio tends to 1
         (second-order convergence studies).
*/
#include <fg/grid.h>

const char *const FGStretchClusterNames[] = {"both", "lower", "upper", "FGStretchCluster", "FG_CLUSTER_", NULL};

/* sum_{k=1..m} min(hb r^k, hmax) */
static PetscReal FGStretchSideSum_Private(PetscReal hb, PetscReal r, PetscReal hmax, PetscInt m)
{
  PetscReal s = 0, h = hb;
  for (PetscInt k = 1; k <= m; k++) {
    h = PetscMin(h * r, hmax);
    s += h;
  }
  return s;
}

/* The m cell widths of a side of length len next to a band of cells hb (0 cells if len is 0). */
static PetscErrorCode FGStretchSide_Private(PetscReal len, PetscReal hb, PetscReal growth, PetscReal hmax, PetscInt *m, PetscReal **w, char *msg, size_t mlen)
{
  PetscReal lo = 1.0 / growth, hi = growth, s;
  PetscInt  n = 0;

  PetscFunctionBeginUser;
  *m = 0, *w = NULL;
  if (len <= 1e-12 * hb) PetscFunctionReturn(PETSC_SUCCESS);
  for (s = 0; s < len * (1 - 1e-12); n++) {
    if (n >= 100000000) { /* (h_max tiny against a huge side) */
      PetscCheck(msg, PETSC_COMM_SELF, FG_ERR_INPUT, "stretching: more than 1e8 cells");
      snprintf(msg, mlen, "the side of length %g next to the band needs more than 1e8 cells of at most h_max %g", (double)len, (double)hmax);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    s += PetscMin(hb * PetscPowReal(growth, (PetscReal)(n + 1)), hmax);
  }
  if (FGStretchSideSum_Private(hb, lo, hmax, n) > len) { /* even cells shrinking at the full ratio overshoot */
    if (msg) snprintf(msg, mlen, "the side of length %g next to the band cannot hold whole cells that grow from the band's width %g by at most the growth ratio; extend the band to the boundary or move it", (double)len, (double)hb);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt it = 0; it < 200; it++) { /* bisection: sum(r) = len */
    const PetscReal mid = 0.5 * (lo + hi);
    if (FGStretchSideSum_Private(hb, mid, hmax, n) < len) lo = mid;
    else hi = mid;
  }
  PetscCall(PetscMalloc1(n, w));
  {
    PetscReal h = hb, sum = 0;
    for (PetscInt k = 0; k < n; k++) {
      h        = PetscMin(h * hi, hmax);
      (*w)[k] = h;
      sum += h;
    }
    for (PetscInt k = 0; k < n; k++) (*w)[k] *= len / sum; /* the last ulps */
  }
  *m = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGStretchBand - the faces of a direction refined in a band (see the header of stretch.c).

  Not collective.

  Input Parameters:
+ x0, L  - the direction's lower end and length
. a, b   - the band, x0 <= a < b <= x0 + L
. hmin   - the spacing in the band
. hmax   - the largest spacing (>= hmin)
- growth - the largest ratio of neighbouring cells (> 1)

  Output Parameters:
+ n     - the number of cells
. faces - the n + 1 face coordinates (PetscFree them); NULL when msg says why not
- msg   - "" or why these values make no grid (for an input error that names the keys)
@*/
PetscErrorCode FGStretchBand(PetscReal x0, PetscReal L, PetscReal a, PetscReal b, PetscReal hmin, PetscReal hmax, PetscReal growth, PetscInt *n, PetscReal **faces, char *msg, size_t mlen)
{
  PetscInt   nb, ml = 0, mr = 0;
  PetscReal *wl = NULL, *wr = NULL, hb, *f;

  PetscFunctionBeginUser;
  *n = 0, *faces = NULL, msg[0] = '\0';
  if (!(a >= x0 - 1e-12 * L && b <= x0 + L + 1e-12 * L && b > a)) {
    snprintf(msg, mlen, "the band [%g, %g] is not an interval inside the domain [%g, %g]", (double)a, (double)b, (double)x0, (double)(x0 + L));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!(hmin > 0 && hmin <= b - a && hmax >= hmin && growth > 1)) {
    snprintf(msg, mlen, "need 0 < h_min <= the band's width (%g), h_max >= h_min and growth > 1; got h_min %g, h_max %g, growth %g", (double)(b - a), (double)hmin, (double)hmax, (double)growth);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  a  = PetscMax(a, x0), b = PetscMin(b, x0 + L);
  nb = (PetscInt)PetscCeilReal((b - a) / hmin - 1e-9);
  if ((b - a) / hmin > 1e8) {
    snprintf(msg, mlen, "the band holds %g cells of h_min; at most 1e8", (double)((b - a) / hmin));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  hb = (b - a) / (PetscReal)nb;
  PetscCall(FGStretchSide_Private(a - x0, hb, growth, hmax, &ml, &wl, msg, mlen));
  if (!msg[0]) PetscCall(FGStretchSide_Private(x0 + L - b, hb, growth, hmax, &mr, &wr, msg, mlen));
  if (msg[0]) {
    PetscCall(PetscFree(wl));
    PetscCall(PetscFree(wr));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *n = ml + nb + mr;
  PetscCall(PetscMalloc1(*n + 1, &f));
  f[0] = x0;
  for (PetscInt k = 0; k < ml; k++) f[k + 1] = f[k] + wl[ml - 1 - k];
  f[ml] = a;
  for (PetscInt k = 1; k <= nb; k++) f[ml + k] = a + (PetscReal)k * hb;
  f[ml + nb] = b;
  for (PetscInt k = 0; k < mr; k++) f[ml + nb + k + 1] = f[ml + nb + k] + wr[k];
  f[*n] = x0 + L;
  PetscCall(PetscFree(wl));
  PetscCall(PetscFree(wr));
  *faces = f;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGStretchTanh - the n + 1 faces of the hyperbolic-tangent map with strength beta > 0,
  refined as `cluster` says (see the header of stretch.c). Not collective.
@*/
PetscErrorCode FGStretchTanh(PetscReal x0, PetscReal L, PetscInt n, PetscReal beta, FGStretchCluster cluster, PetscReal faces[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i <= n; i++) {
    const PetscReal s = (PetscReal)i / (PetscReal)n;
    PetscReal       x;
    switch (cluster) {
    case FG_CLUSTER_LOWER:
      x = 1.0 + PetscTanhReal(beta * (s - 1.0)) / PetscTanhReal(beta);
      break;
    case FG_CLUSTER_UPPER:
      x = PetscTanhReal(beta * s) / PetscTanhReal(beta);
      break;
    default:
      x = 0.5 * (1.0 + PetscTanhReal(beta * (s - 0.5)) / PetscTanhReal(0.5 * beta));
    }
    faces[i] = x0 + L * x;
  }
  faces[0] = x0, faces[n] = x0 + L;
  PetscFunctionReturn(PETSC_SUCCESS);
}
