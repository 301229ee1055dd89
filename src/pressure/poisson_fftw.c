/*
  Direct pressure Poisson solver: FFTW-MPI real-to-real transforms (the CaNS approach).

  In one direction with n cells of width h, the closed 1D operator
  $(L_1 x)_j = (x_{j+1} - 2x_j + x_{j-1})/h^2$, $j = 0..n-1$, has a complete set of
  eigenvectors that FFTW's real-to-real kinds project onto, with eigenvalues

  $$ \lambda_m = -\frac{4}{h^2} \sin^2\frac{\theta_m}{2}, $$

    boundary (lo-hi)       eigenvector (j = 0..n-1)       theta_m, m = 0..n-1     forward   inverse   N
    periodic               cos, sin of 2 pi m j / n       2 pi min(m, n-m) / n    R2HC      HC2R      n
    Neumann-Neumann        cos(pi m (j+1/2) / n)          pi m / n                REDFT10   REDFT01   2n
    Dirichlet-Dirichlet    sin(pi (m+1) (j+1/2) / n)      pi (m+1) / n            RODFT10   RODFT01   2n
    Neumann-Dirichlet      cos(pi (m+1/2) (j+1/2) / n)    pi (m+1/2) / n          REDFT11   REDFT11   2n
    Dirichlet-Neumann      sin(pi (m+1/2) (j+1/2) / n)    pi (m+1/2) / n          RODFT11   RODFT11   2n

  (checked: each eigenvector is even about the face, $x_{-1} = x_0$, where the face is Neumann
  and odd, $x_{-1} = -x_0$, where it is Dirichlet, so the ghost closure of poisson.c holds
  exactly; FFTW's unnormalized forward-then-inverse pair multiplies by the logical size N; the
  R2HC output m > n/2 holds the sine part of mode n-m, with the same eigenvalue).
  Since $L = \sum_d I \otimes .. \otimes L_{1,d} \otimes .. \otimes I$, the separable transform
  $T$ (one kind per direction) diagonalizes $L$, and

  $$ x = T^{-1} \, \mathrm{diag}\Big(\frac{1}{\sum_d \lambda_{m_d}}\Big) \, T b, \qquad
     T^{-1} = \frac{1}{\prod_d N_d} \, T_{\mathrm{inverse\ kinds}}. $$

  The product of the $1/\lambda$ and $1/\prod N_d$ is precomputed once per point of the local
  spectral block. Without a Dirichlet face, the mode $m = 0$ in every direction has
  $\lambda = 0$: its factor is set to zero. Its coefficient is $\sum_c b_c$ (times a constant),
  so zeroing it *is* the removal of the mean of b, and the result has zero mean: $x = L^+ b$.
  No separate mean removal is done (it would change nothing but the rounding).

  Layout. The grid's slab decomposition is FFTW-MPI's: the row-major array a[k][j][i] (3D) or
  a[j][i] (2D) is distributed along its first (slowest) dimension with FFTW's local_n0, so the
  owned part of a global Vec is FFTW's local input block. The forward plan uses
  FFTW_MPI_TRANSPOSED_OUT, so the spectral block is the array with its first two dimensions
  swapped, [n1][n0][n2] = (y, z, x) in 3D and (x, y) in 2D, distributed along n1 (local_n1 rows
  from local_1_start); the inverse plan takes that layout with FFTW_MPI_TRANSPOSED_IN, so no
  transpose back is needed (two global transposes per solve instead of four).

  Plans (FFTW_MEASURE by default; -fg_fftw_planner estimate|measure|patient|exhaustive), the two
  buffers (fftw_alloc_real(alloc_local)) and the factors are made once in SetUp; a solve copies b
  into the input buffer, runs forward, scales, inverse, and copies out. No allocation or planning
  happens in a solve.

  Tridiagonal along the slab direction (the default when that direction s -- y in 2D, z in 3D --
  is not periodic; -fg_fftw_tridiagonal 0 transforms it too). As in CaNS, only the in-slab
  directions are transformed; each of their modes m_r (eigenvalue lambda_r) leaves one line along
  s, the tridiagonal system

  $$ h_s^{-2} (x_{j-1} - 2 x_j + x_{j+1}) + \lambda_r x_j = \hat b_j, \qquad
     x_{-1} = \sigma_{lo} x_0,\ x_{n_s} = \sigma_{hi} x_{n_s - 1} $$

  ($\sigma = +1$ Neumann, $-1$ Dirichlet), solved by the Thomas algorithm. Scaled by $-h_s^2$ the
  pivots are $r_j > 0$, computed without cancellation from the non-negative $t_j = -\lambda_r h_s^2
  + [j=0](1-\sigma_{lo}) + [j=n_s-1](1-\sigma_{hi})$ as $q_j = t_j + q_{j-1}/(1+q_{j-1})$ ($q_{-1} = 0$),
  $r_j = 1 + q_j$ and $r_{n_s-1} = q_{n_s-1}$: sums of non-negative terms only, so even the small
  last pivot of a nearly singular line (a low in-slab mode, Neumann at both ends) is accurate to
  a few ulps; with $w_j = -1/r_j$ stored, the sweeps are $G_j = (\hat b_j -
  G_{j-1}) w_j$ and $X_j = G_j - w_j X_{j+1}$, and $x = X / (h_s^{-2} \prod N_d)$ after the inverse
  transforms. The one singular line (every in-slab mode 0 with zero eigenvalue, Neumann at both
  ends of s) is solved by its own REDFT10/REDFT01 pair with the zero mode removed, so the result is
  $L^+ b$ as on the other path. Saving a transform pair per solve, this path costs about half (2D)
  or two thirds (3D) of the full transform. Layout: on one rank the lines run down the slab,
  [n_s][in-slab points], and the sweeps are vectorized across the in-slab points; on several ranks
  fftw_mpi_plan_many_transpose turns the slabs [n_s][n_mid][n_in] (distributed along n_s) into
  [n_mid][n_s][n_in] (distributed along n_mid; n_mid = y, n_in = x in 3D; in 2D x is split as
  [nx/B][B], B = 8, 4, 2 or 1 dividing nx, n_mid = nx/B, n_in = B, so that the sweeps vectorize
  over B lines) and back: the same two global transposes as the other path. When the in-slab directions are
  Neumann at both ends with even counts (x in 2D; x and y in 3D), their cosine transforms are
  computed through r2c/c2r FFTs (dct.c; FFTW's REDFT kinds run on scalar code, r2c on SIMD
  codelets: 4x faster here); in 3D plane by plane, each plane's x rows, then the plane transposed
  to [x][y] (the spectral planes stay so: n_mid = x, n_in = y), then its y rows, so that a plane
  stays in cache. -fg_fftw_r2c_dct 0 uses FFTW's REDFT10/REDFT01 instead.

  Stretched slab direction (its cells dxf_j, the distances of centres c_j^{-1} = dxc_j; the
  in-slab directions must be uniform). Multiplied by the widths, each line's system is symmetric:
  $(A_s + \lambda_r V_s) x = V_s \hat b$, $A_s$ the weighted second difference
  $c_j (x_{j+1} - x_j) - c_{j-1} (x_j - x_{j-1})$. Negated it is $M x = \beta$, $\beta_j = -\Delta_j
  \hat b_j$, with the off-diagonals $-c_j$ and the diagonal $c_{j-1} + c_j + t_j$, $t_j = -\lambda_r
  \Delta_j \ge 0$ (+ $c_{-1}(1-\sigma_{lo})$ at $j = 0$, + $c_{n_s-1}(1-\sigma_{hi})$ at the top, no
  coupling beyond). Its pivots again come from sums of non-negative terms: $s_0 = t_0$,
  $s_j = t_j + c_{j-1} s_{j-1} / (c_{j-1} + s_{j-1})$, $r_j = s_j + c_j$ ($r_{n_s-1} = s_{n_s-1}$);
  with $w_j = 1/r_j$ stored the sweeps are $G_j = (\beta_j + c_{j-1} G_{j-1}) w_j$ and
  $X_j = G_j + c_j w_j X_{j+1}$, and $x = X / \prod N_d$. The singular line (all $t_j = 0$) is
  solved with its right-hand side's mean removed and $x_{n_s-1}$ pinned to 0 (then $r_j = c_j$),
  then its mean removed: $A_s^+ V_s \hat b$. So this path returns $S = A^+ V$ (poisson.c).

  Transpose. S is a function of the symmetric L (its inverse, or its pseudo-inverse, which is
  symmetric too), so S^T = S and SolveTranspose is the same solve. tests/poisson checks
  <S b1, b2> = <b1, S^T b2> to 1e-12.
*/
#define _POSIX_C_SOURCE 200809L /* lstat, O_NOFOLLOW, O_CLOEXEC under -std=c11 */
#include "poissonimpl.h"
#include <fg/iofile.h>
#include <fftw3-mpi.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
  unsigned      planner;  /* FFTW_ESTIMATE, FFTW_MEASURE, ... */
  PetscBool     tridiag;  /* transforms across the slabs, Thomas along them (see the header) */
  double       *in, *out; /* two buffers of alloc_local each */
  ptrdiff_t     nin;      /* local input points: local_n0 * n1 * n2 */
  /* all directions transformed */
  fftw_plan     fwd, bwd;
  double       *factor;   /* 1/(lambda prod N_d) over the local spectral block; 0 at the null mode */
  ptrdiff_t     nout;     /* local spectral points: local_n1 * n0 * n2 */
  fftw_r2r_kind kf[3], kb[3]; /* forward and inverse kinds per row-major dimension */
  /* tridiagonal along the slab direction */
  fftw_plan     rf, rb;   /* the transforms of the in-slab directions, every local slab plane */
  FGDCT         dct, dcty; /* x (and in 3D y) Neumann-Neumann with an even count: the in-slab
                             transforms through r2c (dct.c) instead of rf/rb; else NULL */
  double       *plane;    /* 3D with dct: one plane of scratch, ny x nx */
  PetscBool     fast;     /* dct (and dcty) are used */
  PetscBool     planeT;   /* 3D with dct and dcty: the spectral planes are stored [x][y] */
  ptrdiff_t     nmid;     /* the middle dimension of the slab layout [ns][nmid][ninner] */
  ptrdiff_t     ny, nx;   /* 3D: a plane's rows and columns in physical order [y][x] */
  fftw_plan     t1, t2;   /* more than one rank: slab layout -> line layout, and back (else NULL) */
  double       *w;        /* -1/r_j: the scaled inverse pivots, line layout [nouter][ns][ninner] */
  ptrdiff_t     nouter, ns, ninner; /* the line layout */
  PetscReal     scale;    /* 1/(h_s^-2 prod N_d of the in-slab directions) */
  ptrdiff_t     nulloff;  /* offset of the singular line in the line layout; -1: not on this rank */
  fftw_plan     nf, nb;   /* the singular line: 1D REDFT10 / REDFT01 of ns points */
  double       *nbuf[2], *nfac; /* its buffers and its factors h_s^-2/(2 ns lambda_m) (0 at m = 0) */
  PetscBool     stretched; /* the slab direction is stretched: the lines of the header's last part */
  PetscReal    *sdxf, *sc; /* its cell widths dxf_j and couplings c_j = 1/dxc_j, j = 0..ns-1 */
} FGPoisson_FFTW;

/* The forward and inverse FFTW kinds of one direction with boundary pair (lo, hi). */
static PetscErrorCode FGPoissonFFTWKinds_Private(FGPoissonBC lo, FGPoissonBC hi, fftw_r2r_kind *kf, fftw_r2r_kind *kb)
{
  PetscFunctionBeginUser;
  if (lo == FG_PBC_PERIODIC) *kf = FFTW_R2HC, *kb = FFTW_HC2R;
  else if (lo == FG_PBC_NEUMANN && hi == FG_PBC_NEUMANN) *kf = FFTW_REDFT10, *kb = FFTW_REDFT01;
  else if (lo == FG_PBC_DIRICHLET && hi == FG_PBC_DIRICHLET) *kf = FFTW_RODFT10, *kb = FFTW_RODFT01;
  else if (lo == FG_PBC_NEUMANN && hi == FG_PBC_DIRICHLET) *kf = FFTW_REDFT11, *kb = FFTW_REDFT11;
  else *kf = FFTW_RODFT11, *kb = FFTW_RODFT11; /* Dirichlet-Neumann */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* theta_m/2 of mode m of an n-cell direction with boundary pair (lo, hi); see the table above. */
static PetscReal FGPoissonFFTWHalfTheta_Private(FGPoissonBC lo, FGPoissonBC hi, PetscInt n, PetscInt m)
{
  if (lo == FG_PBC_PERIODIC) return PETSC_PI * (PetscReal)PetscMin(m, n - m) / (PetscReal)n;
  if (lo == FG_PBC_NEUMANN && hi == FG_PBC_NEUMANN) return 0.5 * PETSC_PI * (PetscReal)m / (PetscReal)n;
  if (lo == FG_PBC_DIRICHLET && hi == FG_PBC_DIRICHLET) return 0.5 * PETSC_PI * (PetscReal)(m + 1) / (PetscReal)n;
  return 0.5 * PETSC_PI * ((PetscReal)m + 0.5) / (PetscReal)n; /* mixed */
}

/*@C
  FGPoissonFFTWGetOptions - the FFTW solver's options, in one PetscOptionsBegin block (so -help
  lists them); FGPoissonSetUp reads them once. Collective.

  Options Database Keys:
+ -fg_fftw_planner <measure>   - FFTW planner rigour: estimate, measure, patient or exhaustive
. -fg_fftw_wisdom <file>       - FFTW wisdom file, read before planning and written after
. -fg_fftw_tridiagonal <true>  - the Thomas algorithm along a non-periodic slab direction
- -fg_fftw_r2c_dct <true>      - cosine transforms through SIMD r2c FFTs
@*/
PetscErrorCode FGPoissonFFTWGetOptions(MPI_Comm comm, FGPoissonFFTWOptions *o)
{
  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(o, sizeof(*o)));
  PetscCall(PetscStrncpy(o->planner, "measure", sizeof(o->planner)));
  o->tridiagonal = PETSC_TRUE;
  o->r2c_dct     = PETSC_TRUE;
  PetscOptionsBegin(comm, NULL, "flowgrad: FFTW pressure Poisson solver (poisson.type fftw)", NULL);
  PetscCall(PetscOptionsString("-fg_fftw_planner", "FFTW planner rigour: estimate, measure, patient or exhaustive", NULL, o->planner, o->planner, sizeof(o->planner), NULL));
  PetscCall(PetscOptionsString("-fg_fftw_wisdom", "FFTW wisdom file: plans read from it and saved to it (run, adjoint, optimize: <output.dir>/fftw.wisdom by default)", NULL, o->wisdom, o->wisdom, sizeof(o->wisdom), NULL));
  PetscCall(PetscOptionsBool("-fg_fftw_tridiagonal", "Thomas algorithm along a non-periodic slab direction (false: transforms in every direction)", NULL, o->tridiagonal, &o->tridiagonal, NULL));
  PetscCall(PetscOptionsBool("-fg_fftw_r2c_dct", "Neumann cosine transforms through SIMD r2c FFTs (false: FFTW's REDFT kinds)", NULL, o->r2c_dct, &o->r2c_dct, NULL));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -fg_fftw_planner: read as a string and checked here, so a bad value is a clear input error on
   every rank (PetscOptionsGetEList raises it on PETSC_COMM_SELF). */
static PetscErrorCode FGPoissonFFTWPlanner_Private(MPI_Comm comm, const char *name, unsigned *flags)
{
  const char *const names[] = {"estimate", "measure", "patient", "exhaustive"};
  const unsigned    value[] = {FFTW_ESTIMATE, FFTW_MEASURE, FFTW_PATIENT, FFTW_EXHAUSTIVE};
  PetscBool         found   = PETSC_FALSE;

  PetscFunctionBeginUser;
  for (int i = 0; i < 4; i++)
    if (!strcmp(name, names[i])) {
      *flags = value[i];
      found  = PETSC_TRUE;
    }
  PetscCheck(found, comm, FG_ERR_INPUT, "-fg_fftw_planner %s: unknown planner (estimate, measure, patient, exhaustive)", name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FFTW wisdom (-fg_fftw_wisdom FILE; `flowgrad run` sets <output.dir>/fftw.wisdom). Plans found
   by FFTW_MEASURE depend on timings, so two processes can pick different algorithms and round
   differently (~1e-15). To make every run that shares a wisdom file compute alike (a resumed run
   continues bit for bit), the planner always plans from the same state: all ranks forget their
   wisdom and import one text, broadcast from rank 0 -- the file's at the start; after measuring,
   the wisdom gathered from all ranks, from which the plans are then made again (cheap with
   wisdom; a fresh run would otherwise execute per-rank choices its file does not describe).
   Rank 0 writes the file atomically. A missing file only costs the measuring. */
/* Every rank: forget the wisdom and import `text` (significant on rank 0 only; NULL: none). */
static PetscErrorCode FGPoissonFFTWWisdomSet_Private(MPI_Comm comm, const char *text)
{
  PetscMPIInt rank;
  int         len = 0;
  char       *buf;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && text) len = (int)strlen(text) + 1;
  PetscCallMPI(MPI_Bcast(&len, 1, MPI_INT, 0, comm));
  if (!len) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc1(len, &buf));
  if (rank == 0) PetscCall(PetscMemcpy(buf, text, (size_t)len));
  PetscCallMPI(MPI_Bcast(buf, len, MPI_CHAR, 0, comm));
  fftw_forget_wisdom();
  (void)fftw_import_wisdom_from_string(buf);
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0: the text of a wisdom file (*text NULL: none yet, or empty; free() it), or why it is
   refused (why[0] != 0). The file is replaced after planning, so it must be absent or FFTW's own:
   a symbolic link, a FIFO (whose open would block), a device or any other file (a case file given
   by mistake) is refused, never read through or replaced. */
static void FGPoissonFFTWWisdomRead_Private(const char *path, char **text, char *why, size_t len)
{
  struct stat st;
  int         fd;
  char       *buf = NULL;
  ssize_t     n   = 0;

  *text  = NULL;
  why[0] = '\0';
  if (lstat(path, &st) != 0) {
    if (errno != ENOENT) snprintf(why, len, "%s", strerror(errno));
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(why, len, "it is %s, not a regular file; flowgrad writes its FFTW wisdom there: give another file", FGFileKind(st.st_mode));
    return;
  }
  if (st.st_size >= (1L << 26)) {
    snprintf(why, len, "%lld bytes, not FFTW wisdom (which flowgrad would write over it): give another file", (long long)st.st_size);
    return;
  }
  if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)) < 0 || !(buf = (char *)malloc((size_t)st.st_size + 1))) {
    snprintf(why, len, "%s", fd < 0 ? strerror(errno) : "out of memory");
    if (fd >= 0) (void)close(fd);
    return;
  }
  for (ssize_t r; n < (ssize_t)st.st_size && (r = read(fd, buf + n, (size_t)st.st_size - (size_t)n)) > 0;) n += r;
  (void)close(fd);
  buf[n] = '\0';
  if (n > 0 && strncmp(buf, "(fftw-", 6)) {
    snprintf(why, len, "the file is not FFTW wisdom, and flowgrad would write its wisdom over it: give another file, or remove it");
    free(buf);
    return;
  }
  if (n > 0) *text = buf;
  else free(buf);
}

/* Make (or make again) every plan of the chosen path; the buffers exist. Collective. */
static PetscErrorCode FGPoissonFFTWMakePlans_Private(FGPoisson p, const ptrdiff_t nn[], ptrdiff_t local_n0)
{
  FGPoisson_FFTW *f   = (FGPoisson_FFTW *)p->data;
  const FGGrid    g   = p->grid;
  const int       dim = (int)g->dim;
  PetscMPIInt     size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(g->comm, &size));
  if (!f->tridiag) {
    f->fwd = fftw_mpi_plan_many_r2r(dim, nn, 1, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, f->in, f->out, g->comm, f->kf, f->planner | FFTW_MPI_TRANSPOSED_OUT);
    PetscCheck(f->fwd, g->comm, PETSC_ERR_LIB, "Poisson (FFTW): fftw_mpi_plan_many_r2r (forward, transposed out) failed (was fftw_mpi_init() called? FGInitialize() does)");
    f->bwd = fftw_mpi_plan_many_r2r(dim, nn, 1, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, f->out, f->in, g->comm, f->kb, f->planner | FFTW_MPI_TRANSPOSED_IN);
    PetscCheck(f->bwd, g->comm, PETSC_ERR_LIB, "Poisson (FFTW): fftw_mpi_plan_many_r2r (inverse, transposed in) failed");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    /* the in-slab directions: row-major dimensions 1..dim-1, local_n0 planes of nr points */
    int       rn[2] = {(int)nn[1], dim == 3 ? (int)nn[2] : 1};
    const int nr    = rn[0] * rn[1];
    if (f->fast) { /* 2D: the x rows of the slab; 3D: a plane's x rows, and y rows of the transposed plane */
      PetscCall(FGDCTCreate((PetscInt)nn[dim - 1], dim == 3 ? (PetscInt)nn[1] : (PetscInt)local_n0, f->planner, &f->dct));
      if (dim == 3) PetscCall(FGDCTCreate((PetscInt)nn[1], (PetscInt)nn[2], f->planner, &f->dcty));
    } else if (local_n0 > 0) {
      f->rf = fftw_plan_many_r2r(dim - 1, rn, (int)local_n0, f->in, NULL, 1, nr, f->out, NULL, 1, nr, f->kf + 1, f->planner);
      f->rb = fftw_plan_many_r2r(dim - 1, rn, (int)local_n0, f->out, NULL, 1, nr, f->in, NULL, 1, nr, f->kb + 1, f->planner);
      PetscCheck(f->rf && f->rb, PETSC_COMM_SELF, PETSC_ERR_LIB, "Poisson (FFTW): fftw_plan_many_r2r of the in-slab directions failed");
    }
  }
  if (size > 1) { /* [ns][nmid][ninner] over ns <-> [nmid][ns][ninner] over nmid */
    f->t1 = fftw_mpi_plan_many_transpose(nn[0], f->nmid, f->ninner, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, f->out, f->in, g->comm, f->planner);
    f->t2 = fftw_mpi_plan_many_transpose(f->nmid, nn[0], f->ninner, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, f->in, f->out, g->comm, f->planner);
    PetscCheck(f->t1 && f->t2, g->comm, PETSC_ERR_LIB, "Poisson (FFTW): fftw_mpi_plan_many_transpose failed");
  }
  f->nf = fftw_plan_r2r_1d((int)f->ns, f->nbuf[0], f->nbuf[1], FFTW_REDFT10, f->planner);
  f->nb = fftw_plan_r2r_1d((int)f->ns, f->nbuf[1], f->nbuf[0], FFTW_REDFT01, f->planner);
  PetscCheck(f->nf && f->nb, PETSC_COMM_SELF, PETSC_ERR_LIB, "Poisson (FFTW): the 1D plans of the singular line failed");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGPoissonFFTWDestroyPlans_Private(FGPoisson_FFTW *f)
{
  fftw_plan *plans[] = {&f->fwd, &f->bwd, &f->rf, &f->rb, &f->t1, &f->t2, &f->nf, &f->nb};

  PetscFunctionBeginUser;
  PetscCall(FGDCTDestroy(&f->dct));
  PetscCall(FGDCTDestroy(&f->dcty));
  for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++) {
    if (*plans[i]) fftw_destroy_plan(*plans[i]);
    *plans[i] = NULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Write the wisdom text atomically (rank 0); a failure only costs the measuring next time. */
static PetscErrorCode FGPoissonFFTWWisdomWrite_Private(const char *wpath, const char *text)
{
  char  tmp[PETSC_MAX_PATH_LEN + 8];
  FILE *fp;
  int   ok;

  PetscFunctionBeginUser;
  struct stat st;

  snprintf(tmp, sizeof(tmp), "%s.tmp", wpath);
  (void)remove(tmp);     /* a stale one, or a link put there: never written through */
  fp = fopen(tmp, "wx"); /* O_EXCL: a new file */
  ok = fp && fputs(text, fp) >= 0;
  if (fp) ok = (fclose(fp) == 0) && ok;
  ok = ok && !(lstat(wpath, &st) == 0 && !S_ISREG(st.st_mode)) && rename(tmp, wpath) == 0; /* replaces only what was read */
  if (!ok) {
    (void)remove(tmp);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "flowgrad: warning: cannot write FFTW wisdom to %s (the plans will be measured again next time)\n", wpath));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The inverse pivots of the Thomas algorithm of one line, scaled: w_j = -1/r_j (see the header). */
static void FGPoissonFFTWPivots_Private(PetscReal mu, PetscReal slo, PetscReal shi, ptrdiff_t ns, PetscReal *wj, ptrdiff_t stride)
{
  PetscReal q = 0; /* q_{j-1} = r_{j-1} - 1 >= 0, carried itself (never recovered as r - 1) */
  for (ptrdiff_t j = 0; j < ns; j++) {
    const PetscBool last = (PetscBool)(j == ns - 1);
    const PetscReal t    = -mu + (j == 0 ? 1.0 - slo : 0.0) + (last ? 1.0 - shi : 0.0);
    const PetscReal qn   = t + (j > 0 ? q / (1.0 + q) : 0.0);
    const PetscReal r    = last ? qn : 1.0 + qn;
    q                    = qn;
    wj[j * stride]       = r > 0 ? -1.0 / r : 0.0; /* r = 0 only on the singular line, solved apart */
  }
}

/* The same on a stretched slab direction: w_j = 1/r_j for the in-slab eigenvalue lr (see the
   header); the singular line gets w_j = 1/c_j (its pinned solve), w = 1 at the top. */
static void FGPoissonFFTWPivotsStretched_Private(PetscReal lr, PetscReal slo, PetscReal shi, ptrdiff_t ns, const FGAxis *ax, PetscBool null, PetscReal *wj, ptrdiff_t stride)
{
  PetscReal sp = 0;
  for (ptrdiff_t j = 0; j < ns; j++) {
    const PetscBool last = (PetscBool)(j == ns - 1);
    const PetscReal t    = -lr * ax->dxf[j] + (j == 0 ? ax->idxc[-1] * (1.0 - slo) : 0.0) + (last ? ax->idxc[ns - 1] * (1.0 - shi) : 0.0);
    const PetscReal sj   = t + (j > 0 ? ax->idxc[j - 1] * sp / (ax->idxc[j - 1] + sp) : 0.0);
    const PetscReal r    = last ? sj : sj + ax->idxc[j];
    sp                   = sj;
    if (null) wj[j * stride] = last ? 1.0 : 1.0 / ax->idxc[j];
    else wj[j * stride] = 1.0 / r;
  }
}

static PetscErrorCode FGPoissonSetUp_FFTW(FGPoisson p)
{
  FGPoisson_FFTW *f   = (FGPoisson_FFTW *)p->data;
  const FGGrid    g   = p->grid;
  const PetscInt  dim = g->dim;
  ptrdiff_t       nn[3], alloc_local, local_n0, local_0_start, local_n1, local_1_start;
  PetscInt        phys[3]; /* physical direction of row-major dimension a */
  PetscReal      *lam[3] = {NULL, NULL, NULL}, norm = 1.0;
  PetscBool       zero[3]; /* mode 0 of direction d has lambda = 0 */
  FGPoissonFFTWOptions opt;
  PetscBool            wset;
  PetscMPIInt          size, rank;

  PetscFunctionBeginUser;
  PetscCall(FGPoissonFFTWGetOptions(g->comm, &opt));
  PetscCallMPI(MPI_Comm_size(g->comm, &size));
  PetscCallMPI(MPI_Comm_rank(g->comm, &rank));
  for (PetscInt a = 0; a < dim; a++) {
    phys[a] = dim - 1 - a;
    nn[a]   = (ptrdiff_t)g->n[phys[a]];
    PetscCall(FGPoissonFFTWKinds_Private(p->bc[phys[a]][0], p->bc[phys[a]][1], &f->kf[a], &f->kb[a]));
  }
  f->tridiag   = (PetscBool)(opt.tridiagonal && p->bc[dim - 1][0] != FG_PBC_PERIODIC); /* Thomas along the slab direction */
  f->stretched = (PetscBool)!g->uniform[dim - 1];
  for (PetscInt d = 0; d < dim - 1; d++) PetscCheck(g->uniform[d], g->comm, FG_ERR_INPUT, "Poisson (FFTW): %c is stretched, but the FFTW solver transforms it; only %c (the slab direction) may be stretched: use the KSP solver", "xyz"[d], "xyz"[dim - 1]);
  PetscCheck(!f->stretched || p->bc[dim - 1][0] != FG_PBC_PERIODIC, g->comm, FG_ERR_INPUT, "Poisson (FFTW): %c is stretched and periodic; the FFTW solver needs a periodic direction uniform: use the KSP solver", "xyz"[dim - 1]);
  if (f->stretched) f->tridiag = PETSC_TRUE; /* the only path for a stretched slab direction */
  if (f->tridiag) { /* the transposes' layout: [ns][nmid][ninner] <-> [nmid][ns][ninner] */
    PetscBool fast = opt.r2c_dct;
    ptrdiff_t n2[2];
    fast = (PetscBool)(fast && f->kf[dim - 1] == FFTW_REDFT10 && nn[dim - 1] % 2 == 0);          /* x */
    if (dim == 3) fast = (PetscBool)(fast && f->kf[1] == FFTW_REDFT10 && nn[1] % 2 == 0); /* and y */
    f->planeT = (PetscBool)(fast && dim == 3);
    f->ny     = dim == 3 ? nn[1] : 1;
    f->nx     = nn[dim - 1];
    f->ns     = nn[0];
    f->nmid   = f->planeT ? nn[2] : nn[1];
    f->ninner = dim == 3 ? (f->planeT ? nn[1] : nn[2]) : 1;
    if (dim == 2) { /* x as [nx/B][B]: B lines per transposed row, so that the sweeps vectorize */
      for (f->ninner = 8; nn[1] % f->ninner; f->ninner /= 2) {}
      f->nmid = nn[1] / f->ninner;
    }
    n2[0] = f->ns, n2[1] = f->nmid;
    alloc_local = fftw_mpi_local_size_many_transposed(2, n2, f->ninner, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, g->comm, &local_n0, &local_0_start, &local_n1, &local_1_start);
    f->fast = fast;
    if (fast && dim == 3) PetscCall(PetscMalloc1(nn[1] * nn[2], &f->plane));
  } else alloc_local = fftw_mpi_local_size_many_transposed((int)dim, nn, 1, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, g->comm, &local_n0, &local_0_start, &local_n1, &local_1_start);
  /* The grid made its slabs with FFTW's block distribution of nn[0]; check that its DMDA matches. */
  {
    PetscBool match = (PetscBool)((PetscInt)local_0_start == g->box.lo[dim - 1] && (PetscInt)(local_0_start + local_n0) == g->box.hi[dim - 1]);
    for (PetscInt d = 0; d < dim - 1; d++) match = (PetscBool)(match && g->box.lo[d] == 0 && g->box.hi[d] == g->n[d]);
    PetscCheck(match, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Poisson (FFTW): the grid's slab [%" PetscInt_FMT ", %" PetscInt_FMT ") along %c is not FFTW's [%td, %td)", g->box.lo[dim - 1], g->box.hi[dim - 1], "xyz"[dim - 1], local_0_start, local_0_start + local_n0);
  }
  f->nin  = local_n0 * nn[1] * (dim == 3 ? nn[2] : 1);
  f->nout = local_n1 * nn[0] * (dim == 3 ? nn[2] : 1);
  if (f->tridiag && size == 1) { /* one rank: no transposes, the lines run across the whole slab */
    f->nouter = 1;
    f->ninner = (ptrdiff_t)(f->nin / f->ns);
  } else if (f->tridiag) f->nouter = local_n1;
  f->in  = fftw_alloc_real((size_t)PetscMax(alloc_local, 1));
  f->out = fftw_alloc_real((size_t)PetscMax(alloc_local, 1));
  PetscCheck(f->in && f->out, PETSC_COMM_SELF, PETSC_ERR_MEM, "Poisson (FFTW): fftw_alloc_real(%td) failed", alloc_local);
  if (f->tridiag) {
    f->nbuf[0] = fftw_alloc_real((size_t)f->ns);
    f->nbuf[1] = fftw_alloc_real((size_t)f->ns);
    PetscCheck(f->nbuf[0] && f->nbuf[1], PETSC_COMM_SELF, PETSC_ERR_MEM, "Poisson (FFTW): fftw_alloc_real(%td) failed", f->ns);
  }

  PetscCall(FGPoissonFFTWPlanner_Private(g->comm, opt.planner, &f->planner));
  wset = (PetscBool)(opt.wisdom[0] && f->planner != FFTW_ESTIMATE);
  if (wset) {
    char     *text = NULL, why[PETSC_MAX_PATH_LEN + 160] = "";
    PetscBool ok;
    if (rank == 0) FGPoissonFFTWWisdomRead_Private(opt.wisdom, &text, why, sizeof(why));
    PetscCall(FGIOAgree(g->comm, why, sizeof(why), &ok));
    PetscCheck(ok, g->comm, FG_ERR_INPUT, "-fg_fftw_wisdom %s: %s", opt.wisdom, why);
    PetscCall(FGPoissonFFTWWisdomSet_Private(g->comm, text));
    free(text);
  }
  PetscCall(FGPoissonFFTWMakePlans_Private(p, nn, local_n0));
  if (wset) { /* plan again from the wisdom gathered from every rank, then keep it */
    char *text = NULL;
    fftw_mpi_gather_wisdom(g->comm);
    if (rank == 0) text = fftw_export_wisdom_to_string();
    PetscCall(FGPoissonFFTWWisdomSet_Private(g->comm, text));
    PetscCall(FGPoissonFFTWDestroyPlans_Private(f));
    PetscCall(FGPoissonFFTWMakePlans_Private(p, nn, local_n0));
    if (rank == 0 && text) PetscCall(FGPoissonFFTWWisdomWrite_Private(opt.wisdom, text));
    free(text);
  }

  /* 1D eigenvalues per physical direction, and the normalisation prod N_d. */
  for (PetscInt d = 0; d < dim; d++) {
    const PetscInt  n = g->n[d];
    const PetscReal c = -4.0 / (g->h[d] * g->h[d]);
    PetscCall(PetscMalloc1(n, &lam[d]));
    for (PetscInt m = 0; m < n; m++) {
      const PetscReal s = PetscSinReal(FGPoissonFFTWHalfTheta_Private(p->bc[d][0], p->bc[d][1], n, m));
      lam[d][m]         = c * s * s;
    }
    zero[d] = (PetscBool)(p->bc[d][0] == FG_PBC_PERIODIC || (p->bc[d][0] == FG_PBC_NEUMANN && p->bc[d][1] == FG_PBC_NEUMANN));
    if (!f->tridiag || d < dim - 1) norm *= (PetscReal)(p->bc[d][0] == FG_PBC_PERIODIC ? n : 2 * n);
  }

  if (!f->tridiag) { /* factors over the transposed-out block [local_n1 of phys[1]][n0 = phys[0]][n2 = phys[2]] */
    const PetscInt d1 = phys[1], d0 = phys[0], d2 = dim == 3 ? phys[2] : -1;
    const PetscInt n0 = (PetscInt)nn[0], n2 = dim == 3 ? (PetscInt)nn[2] : 1;
    PetscInt       c  = 0;
    PetscCall(PetscMalloc1(PetscMax(f->nout, 1), &f->factor));
    for (PetscInt r = 0; r < (PetscInt)local_n1; r++) {
      const PetscInt m1 = (PetscInt)local_1_start + r;
      for (PetscInt m0 = 0; m0 < n0; m0++) {
        for (PetscInt m2 = 0; m2 < n2; m2++, c++) {
          PetscReal l      = lam[d1][m1] + lam[d0][m0] + (d2 >= 0 ? lam[d2][m2] : 0.0);
          PetscBool isnull = (PetscBool)(zero[d1] && zero[d0] && (d2 < 0 || zero[d2]) && m1 == 0 && m0 == 0 && m2 == 0);
          f->factor[c]     = isnull ? 0.0 : 1.0 / (l * norm);
        }
      }
    }
    PetscCheck(c == (PetscInt)f->nout, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Poisson (FFTW): spectral block size mismatch");
  } else { /* inverse pivots over the line layout [nouter][ns][ninner] */
    const PetscInt  sd  = dim - 1; /* the slab direction */
    const PetscReal ih2 = 1.0 / (g->h[sd] * g->h[sd]);
    const PetscReal slo = p->bc[sd][0] == FG_PBC_NEUMANN ? 1.0 : -1.0, shi = p->bc[sd][1] == FG_PBC_NEUMANN ? 1.0 : -1.0;
    const PetscBool nullable = (PetscBool)(slo > 0 && shi > 0 && zero[0] && (dim == 2 || zero[1]));
    const ptrdiff_t ntot = f->nouter * f->ns * f->ninner;

    f->scale   = f->stretched ? 1.0 / norm : 1.0 / (ih2 * norm);
    f->nulloff = -1;
    if (f->stretched) {
      PetscCall(PetscMalloc2(f->ns, &f->sdxf, f->ns, &f->sc));
      for (ptrdiff_t j = 0; j < f->ns; j++) f->sdxf[j] = g->ax[sd].dxf[j], f->sc[j] = g->ax[sd].idxc[j];
    }
    PetscCall(PetscMalloc1(PetscMax(ntot, 1), &f->w));
    for (ptrdiff_t o = 0; o < f->nouter; o++) {
      for (ptrdiff_t i = 0; i < f->ninner; i++) {
        /* the in-slab mode of this line: (mx) in 2D, (my, mx) in 3D */
        PetscInt  mx, my = 0;
        PetscReal lr;
        if (size == 1 && f->planeT) { /* [x][y] planes */
          mx = (PetscInt)(i / nn[1]);
          my = (PetscInt)(i % nn[1]);
        } else if (size == 1) {
          mx = (PetscInt)(i % nn[dim - 1]);
          my = dim == 3 ? (PetscInt)(i / nn[2]) : 0;
        } else if (f->planeT) {
          mx = (PetscInt)(local_1_start + o);
          my = (PetscInt)i;
        } else if (dim == 3) {
          my = (PetscInt)(local_1_start + o);
          mx = (PetscInt)i;
        } else mx = (PetscInt)((local_1_start + o) * f->ninner + i);
        lr = lam[0][mx] + (dim == 3 ? lam[1][my] : 0.0);
        if (f->stretched) FGPoissonFFTWPivotsStretched_Private(lr, slo, shi, f->ns, &g->ax[sd], (PetscBool)(nullable && mx == 0 && my == 0), f->w + o * f->ns * f->ninner + i, f->ninner);
        else FGPoissonFFTWPivots_Private(lr / ih2, slo, shi, f->ns, f->w + o * f->ns * f->ninner + i, f->ninner);
        if (nullable && mx == 0 && my == 0) f->nulloff = o * f->ns * f->ninner + i;
      }
    }
    if (nullable && !f->stretched) { /* the singular line: its own cosine transform, exactly as the full-transform path */
      PetscCall(PetscMalloc1(f->ns, &f->nfac));
      for (ptrdiff_t m = 0; m < f->ns; m++) f->nfac[m] = m ? ih2 / (2.0 * (PetscReal)f->ns * lam[sd][m]) : 0.0;
    }
  }
  for (PetscInt d = 0; d < dim; d++) PetscCall(PetscFree(lam[d]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Thomas algorithm on every line of the line layout [nouter][ns][ninner], vectorized across
   the ninner lines of a block: G_j = (b_j - G_{j-1}) w_j, then X_j = G_j - w_j X_{j+1}. */
static void FGPoissonFFTWThomas_Private(const FGPoisson_FFTW *f, double *restrict a)
{
  const ptrdiff_t ns = f->ns, ni = f->ninner;
  for (ptrdiff_t o = 0; o < f->nouter; o++) {
    double *restrict       x = a + o * ns * ni;
    const double *restrict w = f->w + o * ns * ni;
    for (ptrdiff_t i = 0; i < ni; i++) x[i] *= w[i];
    for (ptrdiff_t j = 1; j < ns; j++) {
      double *restrict       xj = x + j * ni;
      const double *restrict xp = xj - ni, *restrict wj = w + j * ni;
      for (ptrdiff_t i = 0; i < ni; i++) xj[i] = (xj[i] - xp[i]) * wj[i];
    }
    for (ptrdiff_t j = ns - 2; j >= 0; j--) {
      double *restrict       xj = x + j * ni;
      const double *restrict xn = xj + ni, *restrict wj = w + j * ni;
      for (ptrdiff_t i = 0; i < ni; i++) xj[i] -= wj[i] * xn[i];
    }
  }
}

/* The Thomas sweeps of a stretched slab direction (see the header): beta_j = -dxf_j b_j,
   G_j = (beta_j + c_{j-1} G_{j-1}) w_j, X_j = G_j + c_j w_j X_{j+1}. */
static void FGPoissonFFTWThomasStretched_Private(const FGPoisson_FFTW *f, double *restrict a)
{
  const ptrdiff_t ns = f->ns, ni = f->ninner;
  const double *restrict dx = f->sdxf, *restrict c = f->sc;
  for (ptrdiff_t o = 0; o < f->nouter; o++) {
    double *restrict       x = a + o * ns * ni;
    const double *restrict w = f->w + o * ns * ni;
    for (ptrdiff_t i = 0; i < ni; i++) x[i] = -dx[0] * x[i] * w[i];
    for (ptrdiff_t j = 1; j < ns; j++) {
      double *restrict       xj = x + j * ni;
      const double *restrict xp = xj - ni, *restrict wj = w + j * ni;
      const double           cj = c[j - 1], dj = -dx[j];
      for (ptrdiff_t i = 0; i < ni; i++) xj[i] = (dj * xj[i] + cj * xp[i]) * wj[i];
    }
    for (ptrdiff_t j = ns - 2; j >= 0; j--) {
      double *restrict       xj = x + j * ni;
      const double *restrict xn = xj + ni, *restrict wj = w + j * ni;
      const double           cj = c[j];
      for (ptrdiff_t i = 0; i < ni; i++) xj[i] += cj * wj[i] * xn[i];
    }
  }
}

/* The singular line of a stretched slab direction: beta = -dxf b with its mean removed, rows
   0..ns-2 with x_{ns-1} = 0 (r_j = c_j), then the mean of x removed. */
static void FGPoissonFFTWNullLineStretched_Private(const FGPoisson_FFTW *f, double *a)
{
  double *bt = f->nbuf[0], mean = 0, G = 0;
  for (ptrdiff_t j = 0; j < f->ns; j++) mean += (bt[j] = -f->sdxf[j] * bt[j]);
  mean /= (double)f->ns;
  for (ptrdiff_t j = 0; j < f->ns - 1; j++) bt[j] = G = (bt[j] - mean + (j > 0 ? f->sc[j - 1] * G : 0.0)) / f->sc[j];
  bt[f->ns - 1] = 0;
  for (ptrdiff_t j = f->ns - 2; j >= 0; j--) bt[j] += bt[j + 1];
  mean = 0;
  for (ptrdiff_t j = 0; j < f->ns; j++) mean += bt[j];
  mean /= (double)f->ns;
  for (ptrdiff_t j = 0; j < f->ns; j++) a[f->nulloff + j * f->ninner] = bt[j] - mean;
}

/* The singular line (in-slab mode 0, Neumann at both slab ends): X = h_s^-2 L_1^+ b by its cosine
   transform, in the units of the Thomas result. Its right-hand side is taken before the Thomas
   sweeps (which leave a pinned solution there) and its solution written over theirs. */
static void FGPoissonFFTWNullLineGet_Private(const FGPoisson_FFTW *f, const double *a)
{
  for (ptrdiff_t j = 0; j < f->ns; j++) f->nbuf[0][j] = a[f->nulloff + j * f->ninner];
}

static void FGPoissonFFTWNullLineSolve_Private(const FGPoisson_FFTW *f, double *a)
{
  double *u = f->nbuf[0], *v = f->nbuf[1];
  fftw_execute(f->nf);
  for (ptrdiff_t m = 0; m < f->ns; m++) v[m] *= f->nfac[m];
  fftw_execute(f->nb);
  for (ptrdiff_t j = 0; j < f->ns; j++) a[f->nulloff + j * f->ninner] = u[j];
}

/* dst[c][r] = src[r][c] for a plane of nr x nc (cache blocks of 32 x 32). */
static void FGPoissonFFTWPlaneTranspose_Private(const double *restrict src, double *restrict dst, ptrdiff_t nr, ptrdiff_t nc)
{
  const ptrdiff_t B = 32;
  for (ptrdiff_t r0 = 0; r0 < nr; r0 += B)
    for (ptrdiff_t c0 = 0; c0 < nc; c0 += B) {
      const ptrdiff_t r1 = PetscMin(r0 + B, nr), c1 = PetscMin(c0 + B, nc);
      for (ptrdiff_t r = r0; r < r1; r++)
        for (ptrdiff_t c = c0; c < c1; c++) dst[c * nr + r] = src[r * nc + c];
    }
}

/* x = L^{-1} b (or L^+ b). All directions transformed: copy in, forward, scale by the factors,
   inverse, copy out. Tridiagonal: copy in, transform the in-slab directions, (transpose), Thomas
   along the slab direction, (transpose back), inverse transforms, scale out. */
static PetscErrorCode FGPoissonSolve_FFTW(FGPoisson p, Vec b, Vec x)
{
  FGPoisson_FFTW    *f = (FGPoisson_FFTW *)p->data;
  const PetscScalar *ba;
  PetscScalar       *xa;
  PetscInt           nloc;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(b, &nloc));
  PetscCheck((ptrdiff_t)nloc == f->nin, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Poisson (FFTW): the rhs has %" PetscInt_FMT " local entries, the slab %td", nloc, f->nin);
  PetscCall(PetscLogEventBegin(FG_EVENT_PoissonSolveFFTW, b, x, 0, 0));
  if (!f->tridiag) {
    PetscCall(VecGetArrayRead(b, &ba));
    PetscCall(PetscArraycpy(f->in, ba, nloc));
    PetscCall(VecRestoreArrayRead(b, &ba));
    fftw_execute(f->fwd); /* 1. b_hat = T b (spectral block, transposed) */
    {
      double *restrict       o = f->out; /* 2. x_hat = b_hat / (lambda prod N_d) */
      const double *restrict s = f->factor;
      for (ptrdiff_t i = 0; i < f->nout; i++) o[i] *= s[i];
    }
    fftw_execute(f->bwd); /* 3. x = T_inverse x_hat */
    PetscCall(VecGetArrayWrite(x, &xa));
    PetscCall(PetscArraycpy(xa, f->in, nloc));
    PetscCall(VecRestoreArrayWrite(x, &xa));
  } else {
    double *lines;
    PetscCall(VecGetArrayRead(b, &ba)); /* 1. -> out: the in-slab transforms of every plane */
    if (f->fast && !f->planeT) FGDCTForward(f->dct, ba, f->out);
    else if (f->fast) { /* 3D, plane by plane (in cache): x rows, the plane transposed to [x][y], y rows */
      const ptrdiff_t np = f->nin / (f->ny * f->nx), ps = f->ny * f->nx;
      for (ptrdiff_t q = 0; q < np; q++) {
        FGDCTForward(f->dct, ba + q * ps, f->plane);
        FGPoissonFFTWPlaneTranspose_Private(f->plane, f->out + q * ps, f->ny, f->nx);
        FGDCTForward(f->dcty, f->out + q * ps, f->out + q * ps);
      }
    } else {
      PetscCall(PetscArraycpy(f->in, ba, nloc));
      if (f->rf) fftw_execute(f->rf);
    }
    PetscCall(VecRestoreArrayRead(b, &ba));
    if (f->t1) {
      fftw_execute(f->t1); /* 2. out -> in: the line layout */
      lines = f->in;
    } else lines = f->out;
    if (f->nulloff >= 0) FGPoissonFFTWNullLineGet_Private(f, lines);
    if (f->stretched) FGPoissonFFTWThomasStretched_Private(f, lines); /* 3. along the slab direction */
    else FGPoissonFFTWThomas_Private(f, lines);
    if (f->nulloff >= 0 && f->stretched) FGPoissonFFTWNullLineStretched_Private(f, lines);
    else if (f->nulloff >= 0) FGPoissonFFTWNullLineSolve_Private(f, lines);
    if (f->t2) fftw_execute(f->t2); /* 4. in -> out: the slab layout again */
    PetscCall(VecGetArrayWrite(x, &xa)); /* 5. out -> x: the inverse in-slab transforms, scaled */
    if (f->fast && !f->planeT) FGDCTInverse(f->dct, f->out, xa, f->scale);
    else if (f->fast) {
      const ptrdiff_t np = f->nin / (f->ny * f->nx), ps = f->ny * f->nx;
      for (ptrdiff_t q = 0; q < np; q++) {
        FGDCTInverse(f->dcty, f->out + q * ps, f->plane, 1.0);
        FGPoissonFFTWPlaneTranspose_Private(f->plane, f->in + q * ps, f->nx, f->ny);
        FGDCTInverse(f->dct, f->in + q * ps, xa + q * ps, f->scale);
      }
    } else {
      const double *restrict src = f->in;
      const double           sc  = f->scale;
      if (f->rb) fftw_execute(f->rb);
      for (PetscInt i = 0; i < nloc; i++) xa[i] = sc * src[i];
    }
    PetscCall(VecRestoreArrayWrite(x, &xa));
  }
  p->its = 0;
  PetscCall(PetscLogEventEnd(FG_EVENT_PoissonSolveFFTW, b, x, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* S^T = S: the solve is a function of the symmetric L (see the header), so the transpose solve
   is the same solve. Tested by the dot-product test in tests/poisson. */
static PetscErrorCode FGPoissonSolveTranspose_FFTW(FGPoisson p, Vec b, Vec x)
{
  PetscFunctionBeginUser;
  PetscCall(FGPoissonSolve_FFTW(p, b, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGPoissonDestroy_FFTW(FGPoisson p)
{
  FGPoisson_FFTW *f = (FGPoisson_FFTW *)p->data;

  PetscFunctionBeginUser;
  PetscCall(FGPoissonFFTWDestroyPlans_Private(f));
  if (f->in) fftw_free(f->in);
  if (f->out) fftw_free(f->out);
  if (f->nbuf[0]) fftw_free(f->nbuf[0]);
  if (f->nbuf[1]) fftw_free(f->nbuf[1]);
  PetscCall(PetscFree(f->plane));
  PetscCall(PetscFree(f->factor));
  PetscCall(PetscFree(f->w));
  PetscCall(PetscFree(f->nfac));
  PetscCall(PetscFree2(f->sdxf, f->sc));
  PetscCall(PetscFree(p->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGPoissonCreate_FFTW(FGPoisson p)
{
  FGPoisson_FFTW *f;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&f));
  p->data               = f;
  p->ops.setup          = FGPoissonSetUp_FFTW;
  p->ops.solve          = FGPoissonSolve_FFTW;
  p->ops.solvetranspose = FGPoissonSolveTranspose_FFTW;
  p->ops.settolerances  = NULL;
  p->ops.destroy        = FGPoissonDestroy_FFTW;
  PetscFunctionReturn(PETSC_SUCCESS);
}
