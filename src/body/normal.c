/*
  Bodies: the normal penalization of a soft skin (body.<body>.skin_normal; issue 21), its forces,
  tangent and adjoint. penalize.c does the isotropic penalization; this file replaces it in every
  stage when some body penalizes the normal velocity too.

  Why. The soft skin (skin.c) penalizes every component with eta_s = (K h)^2/nu, so that its wall
  moves smoothly with the design; but the flow that the pressure drives against the body enters
  the soft skin, and how much of it does depends on where the surface falls between faces: on the
  confined cylinder a translation by one cell made the lift ripple by as much as its trend, and its
  exact gradient change sign (docs/bodies.md). Penalizing the normal component more stiffly, over a
  band below the skin's centre, stops that flow where the skin's smooth profile still spreads it
  over several faces.

  What. The penalization is the tensor
    P = K I + E n n^T,   K = sum_b chi_b/eta_b (penalize.c),   E = sum_b chi_n,b/eta_b,
  chi_n = (eta/eta_n) G(-phi - shift - depth_n), the skin's profile depth_n below the skin's centre
  (G[6] of the face list; eta_n = skin_normal eta), n the surface's normal at the face
  (FGBodyNormal_Internal: grad phi/|grad phi| on circles and spheres, from a central difference of
  phi on the other shapes). Normal to the surface the flow feels K + E, along it K. On the
  staggered grid the other components are interpolated to a face of component a:
    (n . w)_f = n_a w_a + sum_{d != a} n_d I_d(w_d),
  I_d bilinear in the directions a and d (along a between the cell centres either side of the face,
  along d the two faces of d either side). Each stage solves
    A u** = u* + gdt S,   A = I + gdt (K + E n n^T),
  (the body velocity has no normal part: bodies that neither translate nor have jets, and turn
  only if round) by block Gauss-Seidel over the components: a sweep of component a reads only the
  others, so it is a Jacobi sweep within a and does not depend on the decomposition; until the
  largest update is 1e-14 of the largest value (20-100 sweeps on the cases measured; -info prints
  them). The force on body b is
    F_b,a = sum_faces [chi/eta (u_a - u_s,a) + chi_n/eta n_a (n . u)] dV.
  The tangent solves A du** = du* + gdt dS - (dA) u** (dA: dK, dE and dn, n's derivative in the
  design: dn_a/dx_c,k = -(delta_ak - n_a n_k)/|x - x_c| for circles and spheres, the difference of
  d phi/d theta for the other shapes); the adjoint
  the transposed system A^T lambda = ubar (plus the forces' part), whose sweeps scatter through
  I_d^T; flowgrad check covers both (tests/adjoint/cylinder_normal.yaml, sphere_normal.yaml,
  shapes_normal.yaml).

  Design (measured on the confined cylinder; docs/bodies.md): the normal band adds to the skin
  rather than replacing it in the normal direction. Without the skin's soft normal resistance
  (E = chi_n/eta - the skin's part) the pressure difference across the Schaefer-Turek cylinder was
  2.5x closer to the reference, but the lift under a translation rippled again at the grid's period
  (its exact gradient from 0.06 to 1.68 around a slope of ~1); a normal band 1 or 3 cells deep
  rippled too. The measured choice: skin_normal 10 (not a
  default: 0 keeps the isotropic skin), skin_normal_depth 2 (the default).

  Ghosts. The interpolation reads one layer of ghost faces; the sweeps exchange them only when some
  rank's band reaches its boundary (one MPI_Allreduce decides per solve).
*/
#include "bodyimpl.h"

#define FG_NORMAL_MAXITS 2000
#define FG_NORMAL_RTOL   1e-14
#define FG_NORMAL_HALFWIDTH 0.5 /* the non-round normal's central difference: half-width in cells (FGBodyNormal_Internal) */
#define FG_NORMAL_SOFT      0.5 /* ... and where |D phi| falls below ~this on smooth level sets, it fades */

/* (i,j,k) of owned offset o */
static inline void FGNormalIJK_Private(const FGBox *b, PetscInt o, PetscInt ijk[3])
{
  const PetscInt nx = b->hi[0] - b->lo[0], ny = b->hi[1] - b->lo[1];
  ijk[0] = b->lo[0] + o % nx;
  ijk[1] = b->lo[1] + (o / nx) % ny;
  ijk[2] = b->lo[2] + o / (nx * ny);
}

/* The interpolation of component d to face (i,j,k) of component a: 4 offsets into a ghosted local
   array and their weights. */
static inline void FGNormalStencil_Private(FGGrid g, PetscInt a, PetscInt d, const PetscInt ijk[3], PetscInt c[4], PetscReal w[4])
{
  const FGBox    *b  = &g->box;
  const PetscInt  c0 = FGBoxIndex(b, ijk[0], ijk[1], ijk[2]), sa = b->s[a], sd = b->s[d], ia = ijk[a];
  const PetscReal w0 = (g->ax[a].xc[ia + 1] - g->ax[a].xf[ia]) * g->ax[a].idxc[ia];

  c[0] = c0, c[1] = c0 - sd, c[2] = c0 + sa, c[3] = c0 + sa - sd;
  w[0] = w[1] = 0.5 * w0, w[2] = w[3] = 0.5 * (1 - w0);
}

/* The same in the owned (global Vec) array, for a stencil that stays in the owned box. */
static inline void FGNormalStencilOwned_Private(FGGrid g, PetscInt a, PetscInt d, const PetscInt ijk[3], PetscInt c[4], PetscReal w[4])
{
  const FGBox    *b  = &g->box;
  const PetscInt  c0 = FGBoxOwnedIndex(b, ijk[0], ijk[1], ijk[2]), sa = a ? b->os[a] : 1, sd = d ? b->os[d] : 1, ia = ijk[a];
  const PetscReal w0 = (g->ax[a].xc[ia + 1] - g->ax[a].xf[ia]) * g->ax[a].idxc[ia];

  c[0] = c0, c[1] = c0 - sd, c[2] = c0 + sa, c[3] = c0 + sa - sd;
  w[0] = w[1] = 0.5 * w0, w[2] = w[3] = 0.5 * (1 - w0);
}

/* Does the stencil of face (i,j,k) of component a leave the owned box? */
static inline PetscBool FGNormalNeedsGhosts_Private(FGGrid g, PetscInt a, const PetscInt ijk[3])
{
  if (ijk[a] + 1 >= g->box.hi[a]) return PETSC_TRUE;
  for (PetscInt d = 0; d < g->dim; d++)
    if (d != a && ijk[d] - 1 < g->box.lo[d]) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* The vector m of the normal band's tensor E m m^T at x (gx = grad phi there). Round bodies
   (circles, spheres): m = n = grad phi/|grad phi|, whose derivative in the centre is closed-form
   (FGNormalLinearize_Private). Other shapes: from the central difference D = D phi of half-width
   e = FG_NORMAL_HALFWIDTH h along each axis, so that m's derivative in the design is the same
   difference of d phi/d p, exact for the m the forward uses (grad phi's would need the level
   set's second derivatives). The normal band reaches deep into the body, where the normal is not
   defined, and m must fade there rather than flip:
   - curves (NACA, CST, B-spline), signed distances: m = D itself. |D| = 1 where the normal is
     defined and falls to 0 within e of the medial axis (a thin section's camber line, its
     trailing edge, inside the leading edge's curvature), where the closest point and n jump
     from one side to the other. (A unit n there made the lift's exact derivative in the angle of
     attack of a NACA 0012 at c/64 20x too small: the flipping faces' derivative.)
   - smooth level sets (ellipse, Fourier, ellipsoid), whose |grad phi| is 1 on the surface
     (ellipse) or near it (Fourier: sqrt(1 + (r'/r)^2)) but need not fall at the centre:
     m = c D/sqrt(|D|^2 + d^2), d = FG_NORMAL_SOFT, c = sqrt(1 + d^2) (|m| = 1 where |D| = 1), which
     fades where D -> 0. (A unit n jumped on a face at the centre of a Fourier circle, where D = 0
     by symmetry, as soon as the shape left the circle: J jumped by 4e-5 relative.) */
static inline PetscBool FGNormalIsCurve_Private(const FGBodyItem *it)
{
  return (PetscBool)(it->bc->shape == FG_BODY_NACA || it->bc->shape == FG_BODY_CST || it->bc->shape == FG_BODY_BSPLINE);
}

/* D = D phi at x, and with dD (not NULL) its derivative in theta_b: dD[d][k], k < np + nbasis (the
   shape's parameters; the rotation's basis through the shape angle, sa its sign) */
static PetscErrorCode FGNormalDifference_Private(const FGBodyItem *it, PetscInt dim, const PetscReal x[], const PetscReal *bPhi, PetscReal D[3], PetscReal (*dD)[FG_BODY_MAX_PARAMS])
{
  const PetscReal e = FG_NORMAL_HALFWIDTH * it->h, sa = it->airfoil ? -1.0 : 1.0;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < dim; d++) {
    PetscReal xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]}, pp, pm, g[3], gpp[FG_SHAPE_MAX_PARAMS], gpm[FG_SHAPE_MAX_PARAMS];
    xp[d] += e, xm[d] -= e;
    PetscCall(FGShapeLevelSet(it->shape, xp, &pp, g, dD ? gpp : NULL));
    PetscCall(FGShapeLevelSet(it->shape, xm, &pm, g, dD ? gpm : NULL));
    D[d] = (pp - pm) / (2 * e);
    if (!dD) continue;
    for (PetscInt k = 0; k < it->np; k++) dD[d][k] = (gpp[k] - gpm[k]) / (2 * e);
    for (PetscInt k = 0; k < it->nbasis; k++) dD[d][it->np + k] = (gpp[dim] - gpm[dim]) / (2 * e) * sa * bPhi[k];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGBodyNormal_Internal(const FGBodyItem *it, PetscInt dim, const PetscReal x[], const PetscReal gx[], PetscReal n[3])
{
  PetscReal D[3] = {0, 0, 0}, s = 0, w;

  PetscFunctionBeginUser;
  if (FG_JET_EXACT(it))
    for (PetscInt d = 0; d < dim; d++) D[d] = gx[d];
  else PetscCall(FGNormalDifference_Private(it, dim, x, NULL, D, NULL));
  for (PetscInt d = 0; d < dim; d++) s += D[d] * D[d];
  if (FG_JET_EXACT(it)) w = s > 0 ? 1 / PetscSqrtReal(s) : 0;
  else if (FGNormalIsCurve_Private(it)) w = 1;
  else w = PetscSqrtReal((1 + FG_NORMAL_SOFT * FG_NORMAL_SOFT) / (s + FG_NORMAL_SOFT * FG_NORMAL_SOFT));
  for (PetscInt d = 0; d < 3; d++) n[d] = d < dim ? w * D[d] : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode FGNormalWork_Private(FGBodies B)
{
  PetscFunctionBeginUser;
  PetscCall(FGBodiesWork_Internal(B));
  for (PetscInt a = 0; a < B->g->dim; a++)
    if (!B->X[a]) {
      PetscCall(VecDuplicate(B->K[a], &B->X[a]));
      PetscCall(VecDuplicate(B->K[a], &B->D[a]));
      PetscCall(VecDuplicate(B->K[a], &B->R[a]));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The diagonal of A, 1 + gdt (K + sum_b E n_a^2), into B->D (K in B->K: FGBodiesKS_Internal). Returns
   whether the sweeps must exchange ghosts. Collective. */
static PetscErrorCode FGNormalDiagonal_Private(FGBodies B, PetscReal gdt, PetscBool *ghosts)
{
  FGGrid      g = B->g;
  PetscMPIInt need = 0;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    PetscScalar *D;
    PetscCall(VecCopy(B->K[a], B->D[a]));
    PetscCall(VecScale(B->D[a], gdt));
    PetscCall(VecShift(B->D[a], 1.0));
    PetscCall(VecGetArray(B->D[a], &D));
    for (PetscInt b = 0; b < B->nb; b++) {
      const FGFaceList *l = &B->b[b].f[a];
      for (PetscInt f = 0; f < l->n; f++) {
        const PetscReal *G = l->geo + FG_FACE_GEO * f, *n = l->nrm + 3 * f;
        PetscInt         ijk[3];
        if (G[6] == 0) continue;
        D[l->off[f]] += gdt * G[6] / B->b[b].bc->eta * n[a] * n[a];
        FGNormalIJK_Private(&g->box, l->off[f], ijk);
        if (!need && FGNormalNeedsGhosts_Private(g, a, ijk)) need = 1;
      }
    }
    PetscCall(VecRestoreArray(B->D[a], &D));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_INT, MPI_MAX, g->comm));
  *ghosts = (PetscBool)(need != 0);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Solve A x = b (x holds b on entry), or A^T x = b; B->D the diagonal (FGNormalDiagonal_Private). */
static PetscErrorCode FGNormalSolve_Private(FGBodies B, PetscReal gdt, PetscBool ghosts, PetscBool transpose, Vec x[])
{
  FGGrid         g = B->g;
  const PetscInt dim = g->dim;
  Vec            L[3] = {NULL, NULL, NULL}, Bv[3];
  PetscInt       it;
  PetscReal      r[2] = {0, 0};

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < dim; a++) {
    Bv[a] = B->R[a];
    PetscCall(VecCopy(x[a], Bv[a]));
    PetscCall(DMGetLocalVector(g->da, &L[a]));
    PetscCall(VecSet(L[a], 0.0));
    if (!transpose) PetscCall(DMGlobalToLocal(g->da, x[a], INSERT_VALUES, L[a]));
    else PetscCall(VecSet(B->W[a], 0.0)); /* the scatter's accumulator (the forward sweeps leave b in it) */
  }
  for (it = 0; it < FG_NORMAL_MAXITS; it++) {
    r[0] = r[1] = 0; /* the largest update, the largest value */
    for (PetscInt a = 0; a < dim; a++) {
      PetscScalar       *X, *Lx[3];
      const PetscScalar *Bb, *D;
      PetscCall(VecGetArray(x[a], &X));
      PetscCall(VecGetArrayRead(Bv[a], &Bb));
      PetscCall(VecGetArrayRead(B->D[a], &D));
      for (PetscInt d = 0; d < dim; d++) PetscCall(VecGetArray(L[d], &Lx[d]));
      if (!transpose) {
        /* x_a = (b_a - gdt sum_b E n_a sum_{d != a} n_d I_d(x_d)) / D_a on the listed faces */
        PetscScalar *Ra;
        PetscCall(VecGetArray(B->W[a], &Ra));
        for (PetscInt b = 0; b < B->nb; b++) {
          const FGFaceList *l = &B->b[b].f[a];
          for (PetscInt f = 0; f < l->n; f++) Ra[l->off[f]] = Bb[l->off[f]];
        }
        for (PetscInt b = 0; b < B->nb; b++) {
          const FGFaceList *l   = &B->b[b].f[a];
          const PetscReal   eta = B->b[b].bc->eta;
          for (PetscInt f = 0; f < l->n; f++) {
            const PetscReal *G = l->geo + FG_FACE_GEO * f, *n = l->nrm + 3 * f;
            PetscInt         ijk[3];
            PetscReal        s = 0;
            if (G[6] == 0) continue;
            FGNormalIJK_Private(&g->box, l->off[f], ijk);
            for (PetscInt d = 0; d < dim; d++) {
              PetscInt  c[4];
              PetscReal wt[4], v = 0;
              if (d == a) continue;
              FGNormalStencil_Private(g, a, d, ijk, c, wt);
              for (PetscInt q = 0; q < 4; q++) v += wt[q] * PetscRealPart(Lx[d][c[q]]);
              s += n[d] * v;
            }
            Ra[l->off[f]] -= gdt * G[6] / eta * n[a] * s;
          }
        }
        for (PetscInt b = 0; b < B->nb; b++) {
          const FGFaceList *l = &B->b[b].f[a];
          for (PetscInt f = 0; f < l->n; f++) {
            const PetscInt o = l->off[f];
            PetscInt       ijk[3];
            PetscReal      nw = PetscRealPart(Ra[o] / D[o]);
            FGNormalIJK_Private(&g->box, o, ijk);
            r[0] = PetscMax(r[0], PetscAbsReal(nw - PetscRealPart(X[o]))), r[1] = PetscMax(r[1], PetscAbsReal(nw));
            X[o] = nw, Lx[a][FGBoxIndex(&g->box, ijk[0], ijk[1], ijk[2])] = nw;
          }
        }
        PetscCall(VecRestoreArray(B->W[a], &Ra));
      } else {
        /* x_a = (b_a - sum_{d != a} (C_{d<-a})^T x_d) / D_a, C_{d<-a} at a listed face of d: gdt E n_d n_a I_a.
           Without ghosts the scatter stays in the owned array, and only the faces it reaches and the
           listed ones are visited; with them it goes through the ghosted array and DMLocalToGlobal. */
        PetscScalar *C;
        if (ghosts) {
          PetscCall(VecSet(L[a], 0.0));
          PetscCall(VecGetArray(L[a], &Lx[a])); /* (restored below with the others) */
        } else PetscCall(VecGetArray(B->W[a], &C)); /* 0 on entry (and left so) */
        for (PetscInt pass = 0; pass < 3; pass++) { /* scatter; then (no ghosts) update the reached faces; then zero them */
          if (pass > 0 && ghosts) break;
          for (PetscInt d = 0; d < dim; d++) {
            const PetscScalar *Xd;
            if (d == a) continue;
            PetscCall(VecGetArrayRead(x[d], &Xd));
            for (PetscInt b = 0; b < B->nb; b++) {
              const FGFaceList *l   = &B->b[b].f[d];
              const PetscReal   eta = B->b[b].bc->eta;
              for (PetscInt f = 0; f < l->n; f++) {
                const PetscReal *G = l->geo + FG_FACE_GEO * f, *n = l->nrm + 3 * f;
                PetscInt         ijk[3], c[4];
                PetscReal        wt[4], z;
                if (G[6] == 0) continue;
                FGNormalIJK_Private(&g->box, l->off[f], ijk);
                z = gdt * G[6] / eta * n[d] * n[a] * PetscRealPart(Xd[l->off[f]]);
                if (ghosts) {
                  FGNormalStencil_Private(g, d, a, ijk, c, wt);
                  for (PetscInt q = 0; q < 4; q++) Lx[a][c[q]] += wt[q] * z;
                  continue;
                }
                FGNormalStencilOwned_Private(g, d, a, ijk, c, wt);
                for (PetscInt q = 0; q < 4; q++) {
                  if (pass == 0) C[c[q]] += wt[q] * z;
                  else if (pass == 1) {
                    const PetscReal nw = PetscRealPart((Bb[c[q]] - C[c[q]]) / D[c[q]]);
                    r[0] = PetscMax(r[0], PetscAbsReal(nw - PetscRealPart(X[c[q]]))), r[1] = PetscMax(r[1], PetscAbsReal(nw));
                    X[c[q]] = nw;
                  } else C[c[q]] = 0;
                }
              }
            }
            PetscCall(VecRestoreArrayRead(x[d], &Xd));
          }
          if (pass == 0 && !ghosts) /* the listed faces of a (D != 1), reached or not */
            for (PetscInt b = 0; b < B->nb; b++) {
              const FGFaceList *l = &B->b[b].f[a];
              for (PetscInt f = 0; f < l->n; f++) {
                const PetscInt  o  = l->off[f];
                const PetscReal nw = PetscRealPart((Bb[o] - C[o]) / D[o]);
                r[0] = PetscMax(r[0], PetscAbsReal(nw - PetscRealPart(X[o]))), r[1] = PetscMax(r[1], PetscAbsReal(nw));
                X[o] = nw;
              }
            }
        }
        if (!ghosts) PetscCall(VecRestoreArray(B->W[a], &C));
        else {
          PetscInt nloc;
          PetscCall(VecRestoreArray(L[a], &Lx[a]));
          PetscCall(VecSet(B->W[a], 0.0));
          PetscCall(DMLocalToGlobal(g->da, L[a], ADD_VALUES, B->W[a]));
          PetscCall(VecGetArray(L[a], &Lx[a]));
          PetscCall(VecGetArray(B->W[a], &C));
          PetscCall(VecGetLocalSize(x[a], &nloc));
          for (PetscInt i = 0; i < nloc; i++)
            if (C[i] != 0 || D[i] != 1) {
              const PetscReal nw = PetscRealPart((Bb[i] - C[i]) / D[i]);
              r[0] = PetscMax(r[0], PetscAbsReal(nw - PetscRealPart(X[i]))), r[1] = PetscMax(r[1], PetscAbsReal(nw));
              X[i] = nw;
            }
          PetscCall(VecRestoreArray(B->W[a], &C));
        }
      }
      for (PetscInt d = 0; d < dim; d++) PetscCall(VecRestoreArray(L[d], &Lx[d]));
      PetscCall(VecRestoreArrayRead(B->D[a], &D));
      PetscCall(VecRestoreArrayRead(Bv[a], &Bb));
      PetscCall(VecRestoreArray(x[a], &X));
      if (!transpose && ghosts) PetscCall(DMGlobalToLocal(g->da, x[a], INSERT_VALUES, L[a]));
    }
    if (ghosts) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, r, 2, MPIU_REAL, MPIU_MAX, g->comm)); /* else the ranks' bands are independent */
    if (r[0] <= FG_NORMAL_RTOL * r[1]) break;
  }
  for (PetscInt a = 0; a < dim; a++) PetscCall(DMRestoreLocalVector(g->da, &L[a]));
  PetscCall(PetscInfo(NULL, "normal penalization%s: %" PetscInt_FMT " sweeps%s (update %g of the largest value)\n", transpose ? " (transpose)" : "", it + 1, ghosts ? ", ghosts exchanged" : "", (double)(r[0] / PetscMax(r[1], PETSC_SMALL))));
  PetscCheck(it < FG_NORMAL_MAXITS, g->comm, PETSC_ERR_NOT_CONVERGED, "the normal penalization's solve did not converge in %d sweeps (update %g of the largest value)", FG_NORMAL_MAXITS, (double)(r[0] / PetscMax(r[1], PETSC_SMALL)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The base of a stage: K, S (and each face's u_s) of every component at t, B->D, and
   X = A^{-1} (u* + gdt S), the penalized velocity (into X[], global). */
static PetscErrorCode FGNormalBase_Private(FGBodies B, PetscReal t, PetscReal gdt, Vec ustar[], Vec X[], PetscBool *ghosts)
{
  PetscFunctionBeginUser;
  PetscCall(FGNormalWork_Private(B));
  for (PetscInt a = 0; a < B->g->dim; a++) {
    PetscCall(FGBodiesKS_Internal(B, a, t));
    if (X[a] != ustar[a]) PetscCall(VecCopy(ustar[a], X[a]));
    PetscCall(VecAXPY(X[a], gdt, B->S[a]));
  }
  PetscCall(FGNormalDiagonal_Private(B, gdt, ghosts));
  PetscCall(FGNormalSolve_Private(B, gdt, *ghosts, PETSC_FALSE, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Ghosted local copies of global Vecs (every component); restore with FGNormalLocalRestore_Private. */
static PetscErrorCode FGNormalLocal_Private(FGBodies B, Vec X[], Vec L[], const PetscScalar *l[])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < B->g->dim; a++) {
    PetscCall(DMGetLocalVector(B->g->da, &L[a]));
    PetscCall(DMGlobalToLocal(B->g->da, X[a], INSERT_VALUES, L[a]));
    PetscCall(VecGetArrayRead(L[a], &l[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode FGNormalLocalRestore_Private(FGBodies B, Vec L[], const PetscScalar *l[])
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < B->g->dim; a++) {
    PetscCall(VecRestoreArrayRead(L[a], &l[a]));
    PetscCall(DMRestoreLocalVector(B->g->da, &L[a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The moment arm: M_m += (r x F)_m for a force fa along a at x (r = x - x_c), and its derivative
   in x_c (dxc: the placement's perturbation, with fa's own perturbation dfa). */
static inline void FGNormalMoment_Private(PetscInt a, const PetscReal x[], const PetscReal xc[], PetscReal fa, PetscReal M[3])
{
  for (PetscInt m = 0; m < 3; m++) {
    PetscInt i1 = (m + 1) % 3, i2 = (m + 2) % 3;
    if (a == i2) M[m] += (x[i1] - xc[i1]) * fa;
    if (a == i1) M[m] -= (x[i2] - xc[i2]) * fa;
  }
}

/* The derivatives of E = chi_n/eta and of n at listed face f of component a in theta_b (nt entries
   each; dn[d * nt + i]): chi_n through phi (shape parameters; the angle through the rotation's
   basis); n of a round body through the centre (circles: x and y; spheres: x, y, z), the vector m
   of any other shape through dD, the difference of d phi/d theta (FGBodyNormal_Internal): dm = dD
   on the curves, c (dD - D (D . dD)/r^2)/r with r = sqrt(|D|^2 + d^2) on the smooth level sets. */
static PetscErrorCode FGNormalLinearize_Private(FGBodyItem *it, PetscInt dim, PetscInt a, PetscInt f, const FGBodyAt *at, PetscReal dE[], PetscReal dn[])
{
  const FGFaceList *l  = &it->f[a];
  const PetscInt    np = it->np, nt = FG_BODY_NTHETA(it), nb = it->nbasis;
  const PetscReal  *x  = l->x + 3 * f, *G = l->geo + FG_FACE_GEO * f, *n = l->nrm + 3 * f, eta = it->bc->eta;
  const PetscReal   sa = it->airfoil ? -1.0 : 1.0; /* d(shape angle)/d(theta) */

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < nt; i++) dE[i] = 0;
  for (PetscInt i = 0; i < dim * nt; i++) dn[i] = 0;
  if (G[7] != 0) {
    PetscReal phi, gx[3], gp[FG_SHAPE_MAX_PARAMS];
    PetscCall(FGShapeLevelSet(it->shape, x, &phi, gx, gp));
    for (PetscInt k = 0; k < np; k++) dE[k] = -G[7] / eta * gp[k];
    for (PetscInt k = 0; k < nb; k++) dE[np + k] = -G[7] / eta * gp[dim] * sa * at->bPhi[k];
  }
  if (FG_JET_EXACT(it)) {
    const PetscInt nd  = it->bc->shape == FG_BODY_CIRCLE ? 2 : dim;
    PetscReal      rho = 0;
    for (PetscInt d = 0; d < nd; d++) rho += (x[d] - at->xc[d]) * (x[d] - at->xc[d]);
    rho = PetscSqrtReal(rho);
    if (rho > 0)
      for (PetscInt d = 0; d < nd; d++)
        for (PetscInt k = 0; k < nd; k++) dn[d * nt + k] = -((d == k ? 1.0 : 0.0) - n[d] * n[k]) / rho;
  } else {
    PetscReal D[3] = {0, 0, 0}, s = 0, dD[3][FG_BODY_MAX_PARAMS];
    PetscCall(FGNormalDifference_Private(it, dim, x, at->bPhi, D, dD));
    if (FGNormalIsCurve_Private(it)) /* m = D */
      for (PetscInt d = 0; d < dim; d++)
        for (PetscInt k = 0; k < np + nb; k++) dn[d * nt + k] = dD[d][k];
    else { /* m = c D/r, r = sqrt(|D|^2 + d^2): dm = c (dD - D (D . dD)/r^2)/r */
      const PetscReal d2 = FG_NORMAL_SOFT * FG_NORMAL_SOFT, c = PetscSqrtReal(1 + d2);
      PetscReal       r;
      for (PetscInt d = 0; d < dim; d++) s += D[d] * D[d];
      r = PetscSqrtReal(s + d2);
      for (PetscInt k = 0; k < np + nb; k++) {
        PetscReal DdD = 0;
        for (PetscInt d = 0; d < dim; d++) DdD += D[d] * dD[d][k];
        for (PetscInt d = 0; d < dim; d++) dn[d * nt + k] = c * (dD[d][k] - D[d] * DdD / (r * r)) / r;
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* w interpolated to listed face f of component a, component by component (wb[a] = w_a itself) */
static inline void FGNormalValues_Private(FGGrid g, PetscInt a, PetscInt o, const PetscScalar *const w[], PetscReal wb[3])
{
  PetscInt ijk[3];
  FGNormalIJK_Private(&g->box, o, ijk);
  for (PetscInt d = 0; d < 3; d++) wb[d] = 0;
  for (PetscInt d = 0; d < g->dim; d++) {
    if (d == a) wb[d] = PetscRealPart(w[a][FGBoxIndex(&g->box, ijk[0], ijk[1], ijk[2])]);
    else {
      PetscInt  c[4];
      PetscReal wt[4];
      FGNormalStencil_Private(g, a, d, ijk, c, wt);
      for (PetscInt q = 0; q < 4; q++) wb[d] += wt[q] * PetscRealPart(w[d][c[q]]);
    }
  }
}

/* Forward: the stage's implicit update and forces (FGBodiesPenalize's, bodies placed at t). */
PetscErrorCode FGBodiesPenalizeNormal_Internal(FGBodies B, PetscReal t, PetscReal gamma, PetscReal dt, Vec u[])
{
  FGGrid             g = B->g;
  const PetscInt     dim = g->dim;
  const PetscReal    gdt = gamma * dt;
  PetscBool          ghosts;
  Vec                L[3];
  const PetscScalar *w[3];

  PetscFunctionBeginUser;
  PetscCall(FGNormalBase_Private(B, t, gdt, u, u, &ghosts));
  PetscCall(FGNormalLocal_Private(B, u, L, w));
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem *it = &B->b[b];
    PetscReal   xc[3], V[3], th, om, F[3] = {0, 0, 0}, M[3] = {0, 0, 0};
    FGBodyState_Internal(it, dim, t, xc, V, &th, &om);
    for (PetscInt a = 0; a < dim; a++) {
      const FGFaceList *l = &it->f[a];
      for (PetscInt f = 0; f < l->n; f++) {
        const PetscReal *G = l->geo + FG_FACE_GEO * f, *n = l->nrm + 3 * f, eta = it->bc->eta;
        PetscReal        wb[3], nw = 0, fa;
        FGNormalValues_Private(g, a, l->off[f], w, wb);
        for (PetscInt d = 0; d < dim; d++) nw += n[d] * wb[d];
        fa = (l->chi[f] / eta * (wb[a] - l->us[f]) + G[6] / eta * n[a] * nw) * l->vol[f];
        F[a] += fa;
        FGNormalMoment_Private(a, l->x + 3 * f, xc, fa, M);
      }
    }
    for (PetscInt m = 0; m < 3; m++) it->acc[m] += gamma * F[m], it->acc[3 + m] += gamma * M[m];
  }
  PetscCall(FGNormalLocalRestore_Private(B, L, w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The perturbations of chi, u_s (component a), E and n at listed face f of body it in the direction
   th of theta_b (NULL: none), plus dcf, a density body's mask perturbation there. */
static PetscErrorCode FGNormalFaceDirection_Private(FGBodies B, FGBodyItem *it, PetscInt a, PetscInt f, PetscReal t, const FGBodyAt *at, const PetscReal *th, PetscReal dcf, PetscReal *dc, PetscReal *du_s, PetscReal *de, PetscReal dnv[3])
{
  const PetscInt   dim = B->g->dim, nt = FG_BODY_NTHETA(it);
  const PetscReal *G   = it->f[a].geo + FG_FACE_GEO * f;
  PetscReal        dchi[FG_BODY_MAX_PARAMS], dus[FG_BODY_MAX_PARAMS], dE[FG_BODY_MAX_PARAMS], dn[3 * FG_BODY_MAX_PARAMS];

  PetscFunctionBeginUser;
  *dc = dcf, *du_s = 0, *de = 0, dnv[0] = dnv[1] = dnv[2] = 0;
  if (!th) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGBodyFaceLinearize_Internal(B, it, a, f, t, at, NULL, NULL, dchi, dus));
  for (PetscInt i = 0; i < nt; i++) *dc += dchi[i] * th[i], *du_s += dus[i] * th[i];
  if (G[6] == 0 && G[7] == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGNormalLinearize_Private(it, dim, a, f, at, dE, dn));
  for (PetscInt i = 0; i < nt; i++) {
    *de += dE[i] * th[i];
    for (PetscInt e = 0; e < dim; e++) dnv[e] += dn[e * nt + i] * th[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tangent (FGBodiesPenalizeTangent's, bodies placed at t): A du** = du* + gdt dS - (dA) u**. */
PetscErrorCode FGBodiesPenalizeTangentNormal_Internal(FGBodies B, PetscReal t, PetscReal gamma, PetscReal dt, Vec ustar[], PetscReal *const dtheta[], Vec (*dchif)[3], Vec du[], PetscReal dacc[])
{
  FGGrid             g = B->g;
  const PetscInt     dim = g->dim;
  const PetscReal    gdt = gamma * dt;
  PetscBool          ghosts;
  Vec                L[3], Ld[3];
  const PetscScalar *w[3], *wd[3];

  PetscFunctionBeginUser;
  PetscCall(FGNormalBase_Private(B, t, gdt, ustar, B->X, &ghosts));
  PetscCall(FGNormalLocal_Private(B, B->X, L, w));
  /* the right-hand side du* + gdt dS - (dA) u** on the listed faces */
  for (PetscInt a = 0; a < dim; a++) {
    PetscScalar *d;
    PetscCall(VecGetArray(du[a], &d));
    for (PetscInt b = 0; b < B->nb; b++) {
      FGBodyItem        *it = &B->b[b];
      FGFaceList        *l  = &it->f[a];
      const PetscInt     nt = it->dens ? 0 : FG_BODY_NTHETA(it);
      const PetscScalar *dcf = NULL;
      FGBodyAt           at;
      if (!(nt && dtheta && dtheta[b]) && !(it->dens && dchif && dchif[b][a])) continue;
      FGBodyAt_Internal(it, dim, t, &at);
      if (it->dens && dchif && dchif[b][a]) PetscCall(VecGetArrayRead(dchif[b][a], &dcf));
      for (PetscInt f = 0; f < l->n; f++) {
        const PetscInt   o = l->off[f];
        const PetscReal *n = l->nrm + 3 * f, eta = it->bc->eta, E = l->geo[FG_FACE_GEO * f + 6] / eta;
        PetscReal        dc, du_s, de, dnv[3], wb[3], nw = 0, dnw = 0;
        PetscCall(FGNormalFaceDirection_Private(B, it, a, f, t, &at, nt && dtheta ? dtheta[b] : NULL, dcf ? PetscRealPart(dcf[o]) : 0, &dc, &du_s, &de, dnv));
        FGNormalValues_Private(g, a, o, w, wb);
        for (PetscInt e = 0; e < dim; e++) nw += n[e] * wb[e], dnw += dnv[e] * wb[e];
        d[o] += gdt * ((dc * l->us[f] + l->chi[f] * du_s) / eta - dc / eta * wb[a]); /* gdt (dS - dK u**) */
        d[o] -= gdt * (de * n[a] * nw + E * (dnv[a] * nw + n[a] * dnw));
      }
      if (dcf) PetscCall(VecRestoreArrayRead(dchif[b][a], &dcf));
    }
    PetscCall(VecRestoreArray(du[a], &d));
  }
  PetscCall(FGNormalSolve_Private(B, gdt, ghosts, PETSC_FALSE, du));
  /* the forces' perturbation */
  if (dacc) {
    PetscCall(FGNormalLocal_Private(B, du, Ld, wd));
    for (PetscInt b = 0; b < B->nb; b++) {
      FGBodyItem    *it = &B->b[b];
      const PetscInt nt = it->dens ? 0 : FG_BODY_NTHETA(it);
      FGBodyAt       at;
      FGBodyAt_Internal(it, dim, t, &at);
      for (PetscInt a = 0; a < dim; a++) {
        FGFaceList        *l   = &it->f[a];
        const PetscScalar *dcf = NULL;
        if (it->dens && dchif && dchif[b][a]) PetscCall(VecGetArrayRead(dchif[b][a], &dcf));
        for (PetscInt f = 0; f < l->n; f++) {
          const PetscInt   o = l->off[f];
          const PetscReal *x = l->x + 3 * f, *n = l->nrm + 3 * f, eta = it->bc->eta, E = l->geo[FG_FACE_GEO * f + 6] / eta;
          const PetscReal *th = nt && dtheta ? dtheta[b] : NULL;
          PetscReal        dc, du_s, de, dnv[3], dxc[3] = {0, 0, 0}, wb[3], db[3], nw = 0, dnw = 0, ndw = 0, fa, dfa;
          PetscReal        M[3] = {0, 0, 0}, dM[3] = {0, 0, 0};
          PetscCall(FGNormalFaceDirection_Private(B, it, a, f, t, &at, th, dcf ? PetscRealPart(dcf[o]) : 0, &dc, &du_s, &de, dnv));
          for (PetscInt k = 0; th && k < dim; k++) dxc[k] = th[k];
          FGNormalValues_Private(g, a, o, w, wb);
          FGNormalValues_Private(g, a, o, wd, db);
          for (PetscInt e = 0; e < dim; e++) nw += n[e] * wb[e], dnw += dnv[e] * wb[e], ndw += n[e] * db[e];
          fa  = (l->chi[f] / eta * (wb[a] - l->us[f]) + E * n[a] * nw) * l->vol[f];
          dfa = (dc / eta * (wb[a] - l->us[f]) + l->chi[f] / eta * (db[a] - du_s) + de * n[a] * nw + E * (dnv[a] * nw + n[a] * (dnw + ndw))) * l->vol[f];
          dacc[6 * b + a] += gamma * dfa;
          /* d(r x F) = r x dF - dxc x F */
          FGNormalMoment_Private(a, x, at.xc, dfa, dM);
          {
            const PetscReal zero[3] = {0, 0, 0};
            FGNormalMoment_Private(a, dxc, zero, fa, M);
          }
          for (PetscInt m = 0; m < 3; m++) dacc[6 * b + 3 + m] += gamma * (dM[m] - M[m]);
        }
        if (dcf) PetscCall(VecRestoreArrayRead(dchif[b][a], &dcf));
      }
    }
    PetscCall(FGNormalLocalRestore_Private(B, Ld, wd));
  }
  PetscCall(FGNormalLocalRestore_Private(B, L, w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Adjoint (FGBodiesPenalizeAdjoint's, bodies placed at t): the forces' part adds to ubar (the
   adjoint of u**), lambda = A^{-T} ubar is that of u*, and the parameters get lambda^T (gdt dS -
   (dA) u**) plus the forces' explicit parts. */
PetscErrorCode FGBodiesPenalizeAdjointNormal_Internal(FGBodies B, PetscReal t, PetscReal gamma, PetscReal dt, Vec ustar[], const PetscReal wacc[], Vec ubar[], PetscReal *const thetabar[], Vec chibar[], Vec sens[], Vec (*chifbar)[3])
{
  FGGrid             g = B->g;
  const PetscInt     dim = g->dim;
  const PetscReal    gdt = gamma * dt;
  PetscBool          ghosts;
  Vec                L[3], Lb[3];
  const PetscScalar *w[3];
  PetscReal          dchi[FG_BODY_MAX_PARAMS], dus[FG_BODY_MAX_PARAMS], dE[FG_BODY_MAX_PARAMS], dn[3 * FG_BODY_MAX_PARAMS];

  PetscFunctionBeginUser;
  PetscCall(FGNormalBase_Private(B, t, gdt, ustar, B->X, &ghosts));
  PetscCall(FGNormalLocal_Private(B, B->X, L, w));
  /* 1. the forces' adjoint into that of u** (through the interpolation: ghosted, then added) */
  if (wacc) {
    PetscScalar *lb[3];
    for (PetscInt d = 0; d < dim; d++) {
      PetscCall(DMGetLocalVector(g->da, &Lb[d]));
      PetscCall(VecSet(Lb[d], 0.0));
      PetscCall(VecGetArray(Lb[d], &lb[d]));
    }
    for (PetscInt b = 0; b < B->nb; b++) {
      FGBodyItem *it = &B->b[b];
      PetscReal   xc[3], V[3], th, om;
      FGBodyState_Internal(it, dim, t, xc, V, &th, &om);
      for (PetscInt a = 0; a < dim; a++) {
        const FGFaceList *l = &it->f[a];
        for (PetscInt f = 0; f < l->n; f++) {
          const PetscInt   o = l->off[f];
          const PetscReal *x = l->x + 3 * f, *n = l->nrm + 3 * f, eta = it->bc->eta, E = l->geo[FG_FACE_GEO * f + 6] / eta;
          const PetscReal *wt6 = wacc + 6 * b;
          PetscReal        gw = wt6[a];
          PetscInt         ijk[3];
          for (PetscInt m = 0; m < 3; m++) {
            PetscInt i1 = (m + 1) % 3, i2 = (m + 2) % 3;
            if (a == i2) gw += wt6[3 + m] * (x[i1] - xc[i1]);
            if (a == i1) gw -= wt6[3 + m] * (x[i2] - xc[i2]);
          }
          gw *= gamma * l->vol[f];
          FGNormalIJK_Private(&g->box, o, ijk);
          lb[a][FGBoxIndex(&g->box, ijk[0], ijk[1], ijk[2])] += gw * (l->chi[f] / eta + E * n[a] * n[a]);
          if (E != 0)
            for (PetscInt d = 0; d < dim; d++) {
              PetscInt  c[4];
              PetscReal wt[4];
              if (d == a) continue;
              FGNormalStencil_Private(g, a, d, ijk, c, wt);
              for (PetscInt q = 0; q < 4; q++) lb[d][c[q]] += wt[q] * gw * E * n[a] * n[d];
            }
        }
      }
    }
    for (PetscInt d = 0; d < dim; d++) {
      PetscCall(VecRestoreArray(Lb[d], &lb[d]));
      PetscCall(DMLocalToGlobal(g->da, Lb[d], ADD_VALUES, ubar[d]));
      PetscCall(DMRestoreLocalVector(g->da, &Lb[d]));
    }
  }
  /* 2. lambda = A^{-T} ubar: the adjoint of u* (and, times gdt, of S) */
  PetscCall(FGNormalSolve_Private(B, gdt, ghosts, PETSC_TRUE, ubar));
  /* 3. per face: the adjoints of chi, u_s, E and n, then one linearization each */
  for (PetscInt a = 0; a < dim; a++) {
    const PetscScalar *lam;
    PetscScalar       *cb = NULL, *sb = NULL;
    PetscCall(VecGetArrayRead(ubar[a], &lam));
    if (chibar) PetscCall(VecGetArray(chibar[a], &cb));
    if (sens) PetscCall(VecGetArray(sens[a], &sb));
    for (PetscInt b = 0; b < B->nb; b++) {
      FGBodyItem    *it = &B->b[b];
      FGFaceList    *l  = &it->f[a];
      const PetscInt nt = it->dens ? 0 : FG_BODY_NTHETA(it);
      PetscScalar   *cfb = NULL;
      FGBodyAt       at;
      FGBodyAt_Internal(it, dim, t, &at);
      if (it->dens && chifbar && chifbar[b][a]) PetscCall(VecGetArray(chifbar[b][a], &cfb));
      for (PetscInt f = 0; f < l->n; f++) {
        const PetscInt   o = l->off[f];
        const PetscReal *x = l->x + 3 * f, *n = l->nrm + 3 * f, *G = l->geo + FG_FACE_GEO * f, eta = it->bc->eta, E = G[6] / eta;
        const PetscReal  lm = PetscRealPart(lam[o]);
        PetscReal        wb[3], nw = 0, cbf, usb, Eb, nb[3] = {0, 0, 0}, xcb[3] = {0, 0, 0}, s;
        FGNormalValues_Private(g, a, o, w, wb);
        for (PetscInt e = 0; e < dim; e++) nw += n[e] * wb[e];
        /* the implicit equation: Sb = gdt lambda, Kb = -gdt lambda u**, and the tensor's -gdt lambda_a (dE n_a (n.w) + E d(n_a (n.w))) */
        cbf = (-gdt * lm * wb[a] + gdt * lm * l->us[f]) / eta;
        usb = gdt * lm * l->chi[f] / eta;
        s   = -gdt * lm;
        if (wacc) { /* the force fa = (chi/eta (w_a - u_s) + E n_a (n.w)) dV and its moment */
          const PetscReal *wt6 = wacc + 6 * b;
          const PetscReal  fa  = (l->chi[f] / eta * (wb[a] - l->us[f]) + E * n[a] * nw) * l->vol[f];
          PetscReal        gw  = wt6[a];
          for (PetscInt m = 0; m < 3; m++) {
            PetscInt i1 = (m + 1) % 3, i2 = (m + 2) % 3;
            if (a == i2) gw += wt6[3 + m] * (x[i1] - at.xc[i1]), xcb[i1] -= wt6[3 + m] * fa;
            if (a == i1) gw -= wt6[3 + m] * (x[i2] - at.xc[i2]), xcb[i2] += wt6[3 + m] * fa;
          }
          gw *= gamma * l->vol[f];
          cbf += gw * (wb[a] - l->us[f]) / eta;
          usb -= gw * l->chi[f] / eta;
          s += gw;
        }
        Eb = s * n[a] * nw; /* the adjoints of E and n from s (E n_a (n.w)) */
        nb[a] += s * E * nw;
        for (PetscInt e = 0; e < dim; e++) nb[e] += s * E * n[a] * wb[e];
        if (cb) cb[o] += cbf;
        if (sb && !it->dens) sb[o] += (cbf * G[4] + Eb * G[7] / eta) * G[5];
        if (cfb) cfb[o] += cbf;
        if (nt && thetabar && thetabar[b]) {
          PetscCall(FGBodyFaceLinearize_Internal(B, it, a, f, t, &at, NULL, NULL, dchi, dus));
          for (PetscInt i = 0; i < nt; i++) thetabar[b][i] += dchi[i] * cbf + dus[i] * usb;
          if (E != 0 || G[7] != 0) {
            PetscCall(FGNormalLinearize_Private(it, dim, a, f, &at, dE, dn));
            for (PetscInt i = 0; i < nt; i++) {
              thetabar[b][i] += dE[i] * Eb;
              for (PetscInt e = 0; e < dim; e++) thetabar[b][i] += dn[e * nt + i] * nb[e];
            }
          }
          for (PetscInt k = 0; k < dim; k++) thetabar[b][k] += gamma * xcb[k];
        }
      }
      if (cfb) PetscCall(VecRestoreArray(chifbar[b][a], &cfb));
    }
    if (chibar) PetscCall(VecRestoreArray(chibar[a], &cb));
    if (sens) PetscCall(VecRestoreArray(sens[a], &sb));
    PetscCall(VecRestoreArrayRead(ubar[a], &lam));
  }
  PetscCall(FGNormalLocalRestore_Private(B, L, w));
  PetscFunctionReturn(PETSC_SUCCESS);
}
