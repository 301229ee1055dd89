/*
  Bodies: Brinkman volume penalization, rigid motion, surface jets, forces (include/fg/body.h).

  Mask: chi = H_eps(-phi - delta), eps = mask_width h_max / 2, delta = mask_offset eps (the band's
  centre lies at phi = -delta: inside the surface for delta > 0; see README.md, "Bodies").

  Each body keeps, per velocity component a, the list of its owned interior faces where chi > 0
  (the body and its smoothing band; a bounding box limits the search), with the face position,
  chi, and for jets the outward normal and the jet footprints. A body whose geometry changes in
  time (translation, oscillation, rotation of a shape that is not a circle or sphere) rebuilds its
  lists at every stage time; the others build them once.

  Penalization in a stage (t = the stage's end time, g dt its weight):
    K_a = sum_b chi_b/eta_b,  S_a = sum_b (chi_b/eta_b) u_s,b     (sparse, then dense work Vecs)
    u_a <- (u_a + g dt S_a) / (1 + g dt K_a)                      (every owned face: exact where K = 0)
    F_b += g sum_faces (chi_b/eta_b)(u_a - u_s,b,a) dV            (the stage's force, weight g)
  Overlapping bodies are penalized jointly (one implicit solve per face).

  Body velocity:  u_s = V(t) + Omega(t) e_z x (x - x_c(t)) + sum_j A_j(t) f_j(x) n(x)
    x_c(t)   = position + velocity t + oscillation_amplitude sin(2 pi f_o t)
    V(t)     = velocity + 2 pi f_o oscillation_amplitude cos(2 pi f_o t)
    Omega(t) = rotation_rate + rotation_amplitude sin(2 pi f_r t),  theta(t) = int_0^t Omega
    jets: f_j = c_j(psi) w(phi), psi the polar angle of x about x_c in the body frame,
          c_j = cos^2(pi (psi - psi_j)/W) for |psi - psi_j| < W/2 (W = jet_width), else 0,
          w = (1 - ((phi + delta)/eps)^2)^2 in the band (1 at its centre, 0 off it),
          n = grad phi/|grad phi|, A_j(t) = jet_amplitude_j (jet_frequency 0) or times cos(2 pi f_j t).
  The jets live in the smoothing band only, so their velocity has no divergence deep in the body.

  Control volume (cross-check of the penalty force): a box of cells around the body (its bounding
  box widened by half its size, at least 3 cells, clipped 2 cells from non-periodic walls; a
  periodic direction the box spans whole has no faces there). With density 1,
    F = f V_box - d/dt sum_box u dV - sum_faces (u_a u_n + p n_a - nu du_a/dn) dA
  with second-order face-centre interpolation of the end-of-step state, and d/dt from the
  momentum in the box at the step's start and end.
*/
#include <fg/body.h>
#include <fg/density.h>

typedef struct {
  PetscInt   n, cap;
  PetscInt  *off; /* offset in the owned (global Vec) array */
  PetscReal *x;   /* 3 coordinates per face */
  PetscReal *chi;
  PetscReal *us;  /* 1 per face: u_s of this component at the last stage */
  PetscReal *nrm; /* 3 per face (jets only): outward unit normal */
  PetscReal *jet; /* n_jets per face (jets only): footprint times band weight */
  PetscReal *geo; /* 6 per face (shape bodies): phi, grad phi (3), H'(-phi - delta), |grad phi| where
                     the list was built, as FGShapeLevelSet gives them there (the linearization's) */
} FGFaceList;

/* A body's placement at one time, kept for reuse (FGBodyPlace_Private): the adjoint step places
   the body at the stage times its forward step placed it at (just before, when the step is
   recomputed for its tape: 3 kept placements suffice; when a run of L steps was taped, 3 L:
   FGBodiesSetPlacementCapacity). */
#define FG_BODY_PLACEMENTS 3
typedef struct {
  PetscBool  valid;
  PetscReal  t, volume;
  FGFaceList f[3];
  PetscInt   boxlo[3], boxhi[3];
  PetscBool  boxwhole[3];
} FGBodyPlacement;

typedef struct {
  const FGBodyCase *bc;
  FGShape           shape;
  PetscBool         airfoil, moving;
  PetscReal         eps, shift, reach, angle0; /* band half-width and centre (phi = -shift); how far outside
                                                   the bounding box chi may be > 0; the shape's angle at t = 0 (radians) */
  FGFaceList        f[3];
  PetscReal         tbuilt;
  PetscInt          boxlo[3], boxhi[3]; /* control volume around the body as last placed, cells [lo, hi) */
  PetscBool         boxwhole[3];        /* the box spans a periodic direction whole: no faces there */
  PetscInt          cvlo[3], cvhi[3];   /* the box of this step (frozen by FGBodiesBeginStep) */
  PetscBool         cvwhole[3];
  PetscReal         acc[7];           /* force[3], moment[3], volume (local, this step) */
  PetscReal         cv0[3];           /* momentum in the box at the step's start (local) */
  FGBodyForces      out;
  /* density bodies: rho, chi at cells and at one face component, the chi-weighted centroid */
  FGDensity         dens;
  Vec               rho, chic, chif;
  PetscReal         centroid[3];
  /* design overrides of the case's values (FGBodiesSetParameters): position offset; rotation rate and jet
     amplitudes as coefficients of the controls' basis in time (nbasis of them over [0, T]) */
  PetscReal         dpos[3], ratec[FG_MAX_TIME_BASIS], jetc[FG_CASE_MAX_JETS][FG_MAX_TIME_BASIS];
  PetscInt          nbasis;
  PetscReal         T;
  PetscInt          np;       /* shape parameters (0 for density bodies) */
  PetscBool         allfaces; /* density bodies: list every interior face (rho is being differentiated) */
  FGBodyPlacement  *kept; /* moving bodies: earlier placements, for reuse (nkept of them, round robin) */
  PetscInt          nkept, nextkept;
} FGBodyItem;

struct _p_FGBodies {
  FGGrid            g;
  const FGBoundary *bc;
  const FGCase     *c;
  PetscInt          nb;
  FGBodyItem       *b;
  Vec               K[3], S[3];
  Vec               W[3], Z[3]; /* tangent and adjoint work (made on first use) */
  PetscReal         dV;
  const PetscReal  *actc; /* the solver's actuator amplitudes in time (FGActuatorAmplitude), for the control volume */
};

static const char *const FGAxisNames = "xyz";

/*@C
  FGBodyMotion - reference point x_c(t), velocity V(t), rotation angle theta(t) since t = 0
  (radians, ccw) and rate Omega(t) of a body's rigid motion.
@*/
void FGBodyMotion(const FGBodyCase *bc, PetscInt dim, PetscReal t, PetscReal xc[3], PetscReal V[3], PetscReal *theta, PetscReal *omega)
{
  const PetscReal wo = 2 * PETSC_PI * bc->oscillation_frequency, wr = 2 * PETSC_PI * bc->rotation_frequency;

  for (PetscInt d = 0; d < 3; d++) xc[d] = V[d] = 0;
  for (PetscInt d = 0; d < dim; d++) {
    xc[d] = bc->position[d] + bc->velocity[d] * t + bc->oscillation_amplitude[d] * PetscSinReal(wo * t);
    V[d]  = bc->velocity[d] + wo * bc->oscillation_amplitude[d] * PetscCosReal(wo * t);
  }
  *omega = bc->rotation_rate + bc->rotation_amplitude * PetscSinReal(wr * t);
  *theta = bc->rotation_rate * t + (wr > 0 ? bc->rotation_amplitude * (1 - PetscCosReal(wr * t)) / wr : 0);
}

/* The time factor of a body's jets: cos(2 pi f t), or 1 when steady. */
static inline PetscReal FGJetSignal_Private(const FGBodyCase *bc, PetscReal t)
{
  return bc->jet_frequency > 0 ? PetscCosReal(2 * PETSC_PI * bc->jet_frequency * t) : 1.0;
}

/*@C
  FGTimeBasis - the controls' basis in time at t: phi_k(t) and Phi_k(t) = int_0^t phi_k, k < nb.
  nb = 1: phi_0 = 1, Phi_0 = t. nb >= 2: hat functions on the nodes t_k = k T/(nb - 1), the first
  and the last held constant outside [0, T] (so sum_k phi_k = 1 everywhere).
@*/
void FGTimeBasis(PetscInt nb, PetscReal T, PetscReal t, PetscReal phi[], PetscReal Phi[])
{
  if (nb <= 1) {
    phi[0] = 1.0;
    Phi[0] = t;
    return;
  }
  {
    const PetscReal h = T / (PetscReal)(nb - 1);
    for (PetscInt k = 0; k < nb; k++) {
      const PetscReal tk = k * h, s = (t - tk) / h;
      /* phi_k = max(0, 1 - |s|), with the ends extended */
      if (k == 0 && s < 0) phi[k] = 1;
      else if (k == nb - 1 && s > 0) phi[k] = 1;
      else phi[k] = PetscAbsReal(s) < 1 ? 1 - PetscAbsReal(s) : 0;
      /* Phi_k: the integral from 0 to t of that function */
      {
        PetscReal in = 0, a = PetscMax(tk - h, 0), b;
        if (k == 0) { /* phi_0 = 1 before 0 (not integrated: t >= 0), 1 - t/h on [0, h] */
          b = PetscMin(t, h);
          if (b > 0) in = b - 0.5 * b * b / h;
        } else {
          b = PetscMin(t, tk); /* the rising half on [tk - h, tk] */
          if (b > a) in += 0.5 * (b - a) * (b - a) / h;
          if (t > tk) {
            if (k == nb - 1) in += t - tk; /* held at 1 beyond T */
            else {
              const PetscReal c = PetscMin(t, tk + h) - tk; /* the falling half */
              in += c - 0.5 * c * c / h;
            }
          }
        }
        Phi[k] = in;
      }
    }
  }
}

/* A jet's amplitude A_j(t) (without the signal cos(2 pi f t)): sum_k c_jk phi_k(t). */
static inline PetscReal FGJetAmplitude_Private(const FGBodyItem *it, PetscInt j, const PetscReal phi[])
{
  PetscReal A = 0;
  for (PetscInt k = 0; k < it->nbasis; k++) A += it->jetc[j][k] * phi[k];
  return A;
}

/* Does the rotation rate vanish at all times? */
static PetscBool FGBodyRateZero_Private(const FGBodyItem *it)
{
  for (PetscInt k = 0; k < it->nbasis; k++)
    if (it->ratec[k] != 0) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* The motion of a listed body (with the design's overrides of position and rotation rate); a
   density body's reference point is its centroid. */
static void FGBodyState_Private(const FGBodyItem *it, PetscInt dim, PetscReal t, PetscReal xc[3], PetscReal V[3], PetscReal *th, PetscReal *om)
{
  PetscReal phi[FG_MAX_TIME_BASIS], Phi[FG_MAX_TIME_BASIS], r = 0, R = 0;

  FGBodyMotion(it->bc, dim, t, xc, V, th, om);
  for (PetscInt d = 0; d < dim; d++) xc[d] += it->dpos[d];
  /* the rate r(t) = sum_k c_k phi_k(t) replaces the case's constant rate, its integral R(t) the angle
     rate t (one basis function: r = c_0, R = c_0 t, exactly) */
  FGTimeBasis(it->nbasis, it->T, t, phi, Phi);
  for (PetscInt k = 0; k < it->nbasis; k++) r += it->ratec[k] * phi[k], R += it->ratec[k] * Phi[k];
  *om += r - it->bc->rotation_rate;
  *th += R - it->bc->rotation_rate * t;
  if (it->dens)
    for (PetscInt d = 0; d < dim; d++) xc[d] = it->centroid[d];
}

/* ---------------------------------------------------------------------------------------------
   Setup */

static PetscErrorCode FGBodyShapeCreate_Private(const FGBodyCase *bc, PetscInt dim, FGShape *shape, PetscBool *airfoil)
{
  static const FGShapeKind kinds[] = {FG_SHAPE_CIRCLE, FG_SHAPE_ELLIPSE, FG_SHAPE_FOURIER, FG_SHAPE_NACA4, FG_SHAPE_CST, FG_SHAPE_BSPLINE, FG_SHAPE_SPHERE, FG_SHAPE_ELLIPSOID};
  FGShapeKind              kind  = kinds[bc->shape];
  PetscInt                 n = 0, np, nq, np0;
  PetscReal                p[FG_SHAPE_MAX_PARAMS], *q;

  PetscFunctionBeginUser;
  switch (bc->shape) {
  case FG_BODY_FOURIER:
    n = bc->n_fourier;
    break;
  case FG_BODY_CST:
    n = bc->n_cst - 1; /* Bernstein order */
    break;
  case FG_BODY_BSPLINE:
    n = bc->n_points;
    break;
  default:
    break;
  }
  if (dim == 3 && bc->shape <= FG_BODY_BSPLINE) PetscCall(FGShapeCreateExtruded(kind, n, shape));
  else PetscCall(FGShapeCreate(kind, n, shape));
  PetscCall(FGShapeSetName(*shape, bc->name));
  PetscCall(FGShapeGetNumParameters(*shape, &np));
  *airfoil = (PetscBool)(bc->shape == FG_BODY_NACA || bc->shape == FG_BODY_CST);
  np0      = dim + 1;
  nq       = np - np0;
  for (PetscInt d = 0; d < dim; d++) p[d] = bc->position[d];
  p[dim] = bc->angle * PETSC_PI / 180; /* the shape's "aoa" of an airfoil is the same nose-up angle */
  q      = p + np0;
  switch (bc->shape) {
  case FG_BODY_CIRCLE:
  case FG_BODY_SPHERE:
    q[0] = bc->radius;
    break;
  case FG_BODY_ELLIPSE:
  case FG_BODY_ELLIPSOID:
    for (PetscInt i = 0; i < nq; i++) q[i] = bc->semi_axes[i];
    break;
  case FG_BODY_FOURIER:
    q[0] = bc->radius;
    for (PetscInt k = 0; k < n; k++) q[1 + k] = bc->fourier_cos[k], q[1 + n + k] = bc->fourier_sin[k];
    break;
  case FG_BODY_NACA: {
    const char *code = bc->naca;
    q[0] = (code[0] - '0') / 100.0;
    q[1] = (code[1] - '0') / 10.0;
    q[2] = ((code[2] - '0') * 10 + (code[3] - '0')) / 100.0;
    q[3] = bc->chord;
  } break;
  case FG_BODY_CST:
    q[0] = bc->chord;
    for (PetscInt i = 0; i < bc->n_cst; i++) q[1 + i] = bc->cst_upper[i], q[1 + bc->n_cst + i] = bc->cst_lower[i];
    break;
  case FG_BODY_BSPLINE:
    for (PetscInt i = 0; i < 2 * n; i++) q[i] = bc->control_points[i];
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "body '%s': shape %s has no level set", bc->name, FGBodyShapeNames[bc->shape]);
  }
  PetscCall(FGShapeSetParameters(*shape, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Is the geometry time-dependent? */
static PetscBool FGBodyMoves_Private(const FGBodyCase *bc, PetscReal rate) /* rate: nonzero if it ever is */
{
  /* a rotating circle or sphere keeps its mask, but not its jets (they turn with the body) */
  PetscBool rot = (PetscBool)((rate != 0 || bc->rotation_amplitude != 0) && ((bc->shape != FG_BODY_CIRCLE && bc->shape != FG_BODY_SPHERE) || bc->n_jets > 0));
  for (PetscInt d = 0; d < 3; d++)
    if (bc->velocity[d] != 0 || (bc->oscillation_amplitude[d] != 0 && bc->oscillation_frequency != 0)) return PETSC_TRUE;
  return rot;
}

/* Room for n faces, keeping the first l->n. */
static PetscErrorCode FGFaceListReserve_Private(FGFaceList *l, PetscInt n, PetscInt njets)
{
  FGFaceList o = *l;
  PetscInt   nj = PetscMax(njets, 1);

  PetscFunctionBeginUser;
  if (n <= l->cap) PetscFunctionReturn(PETSC_SUCCESS);
  l->cap = PetscMax(n, 2 * o.cap);
  PetscCall(PetscMalloc6(l->cap, &l->off, 3 * l->cap, &l->x, l->cap, &l->chi, l->cap, &l->us, 3 * l->cap, &l->nrm, l->cap * nj, &l->jet));
  PetscCall(PetscMalloc1(6 * l->cap, &l->geo));
  PetscCall(PetscArraycpy(l->geo, o.geo, 6 * o.n));
  PetscCall(PetscFree(o.geo));
  PetscCall(PetscArraycpy(l->off, o.off, o.n));
  PetscCall(PetscArraycpy(l->x, o.x, 3 * o.n));
  PetscCall(PetscArraycpy(l->chi, o.chi, o.n));
  PetscCall(PetscArraycpy(l->us, o.us, o.n));
  PetscCall(PetscArraycpy(l->nrm, o.nrm, 3 * o.n));
  PetscCall(PetscArraycpy(l->jet, o.jet, nj * o.n));
  PetscCall(PetscFree6(o.off, o.x, o.chi, o.us, o.nrm, o.jet));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Owned index range [lo, hi) of component a's faces (interior ones) whose position lies in [xlo, xhi]. */
static void FGFaceRange_Private(FGBodies B, PetscInt a, const PetscReal xlo[], const PetscReal xhi[], PetscInt lo[3], PetscInt hi[3])
{
  FGGrid g = B->g;

  FGOpInteriorFaces(g, B->bc, a, lo, hi);
  for (PetscInt d = 0; d < g->dim; d++) {
    PetscReal c0 = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, 0), l, h;
    if (xlo[d] <= PETSC_MIN_REAL || xhi[d] >= PETSC_MAX_REAL) continue;
    l     = PetscFloorReal((xlo[d] - c0) / g->h[d]);
    h     = PetscCeilReal((xhi[d] - c0) / g->h[d]) + 1;
    lo[d] = PetscMax(lo[d], (PetscInt)PetscMax(l, -1.0));
    hi[d] = PetscMin(hi[d], (PetscInt)PetscMin(h, (PetscReal)g->n[d] + 1));
    if (hi[d] < lo[d]) hi[d] = lo[d];
  }
}

/* Set the shape's placement (position and angle) to the body's at time t; the centre and the
   body-frame angle (the shape's angle, ccw). */
static PetscErrorCode FGBodyShapeAt_Private(FGBodyItem *it, PetscInt dim, PetscReal t, PetscReal xc[3], PetscReal *thb)
{
  PetscReal V[3], th, om, p[FG_SHAPE_MAX_PARAMS];

  PetscFunctionBeginUser;
  FGBodyState_Private(it, dim, t, xc, V, &th, &om);
  PetscCall(FGShapeGetParameters(it->shape, p));
  for (PetscInt d = 0; d < dim; d++) p[d] = xc[d];
  p[dim] = it->airfoil ? it->angle0 - th : it->angle0 + th;
  *thb   = it->airfoil ? -p[dim] : p[dim];
  PetscCall(FGShapeSetParameters(it->shape, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Place the shape at time t and collect its faces. Collective (the inside-the-domain check). */
static PetscErrorCode FGBodyBuild_Private(FGBodies B, FGBodyItem *it, PetscReal t)
{
  FGGrid            g  = B->g;
  const FGBodyCase *bc = it->bc;
  const PetscInt    dim = g->dim, nj = bc->n_jets;
  PetscReal         xc[3], lo[3], hi[3], bl[3], bh[3];
  PetscReal         thb; /* the body-frame angle: the shape's angle (ccw) */
  char              msg[512] = "";

  PetscFunctionBeginUser;
  PetscCall(FGBodyShapeAt_Private(it, dim, t, xc, &thb));
  PetscCall(FGShapeBoundingBox(it->shape, bl, bh));

  /* the body and the part of its band outside it (phi < eps - delta) strictly inside the domain
     (every rank computes the same) */
  const PetscReal out = PetscMax(it->eps - it->shift, 0);
  for (PetscInt d = 0; d < dim && !msg[0]; d++) {
    if (bl[d] <= PETSC_MIN_REAL) continue; /* extruded */
    if (bl[d] - out <= g->x0[d] || bh[d] + out >= g->x0[d] + g->L[d]) {
      char when[64] = "";
      if (t != 0) PetscCall(PetscSNPrintf(when, sizeof(when), " at t = %g (its motion took it there)", (double)t));
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "the body spans %c in [%g, %g]%s%s, not inside the domain [%g, %g]", FGAxisNames[d], (double)(bl[d] - out), (double)(bh[d] + out), out > 0 ? " with its mask band" : "", when, (double)g->x0[d], (double)(g->x0[d] + g->L[d])));
    }
  }
  PetscCheck(!msg[0], g->comm, FG_ERR_INPUT, "%s: %s", bc->where, msg);
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_BodyBuild, 0, 0, 0, 0)); /* (after the check: an invalid placement may be caught) */

  /* where to look for chi > 0: phi < eps - delta, which reaches past the body when the band sticks
     out (delta < eps) and further where |grad phi| < 1 (Fourier, ellipse): the box widened by 2 eps + h */
  for (PetscInt d = 0; d < 3; d++) {
    lo[d] = d < dim ? bl[d] - it->reach : 0;
    hi[d] = d < dim ? bh[d] + it->reach : 0;
  }
  it->out.volume = 0;
  for (PetscInt a = 0; a < dim; a++) {
    FGFaceList *l = &it->f[a];
    PetscInt    flo[3], fhi[3];
    FGFaceRange_Private(B, a, lo, hi, flo, fhi);
    l->n = 0;
    for (PetscInt k = flo[2]; k < fhi[2]; k++)
      for (PetscInt j = flo[1]; j < fhi[1]; j++)
        for (PetscInt i = flo[0]; i < fhi[0]; i++) {
          const PetscInt idx[3] = {i, j, k};
          PetscReal      x[3]   = {0, 0, 0}, phi, gx[3], chi, dH;
          for (PetscInt d = 0; d < dim; d++) x[d] = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]);
          PetscCall(FGShapeLevelSet(it->shape, x, &phi, gx, NULL));
          PetscCall(FGHeaviside(-phi - it->shift, it->eps, &chi, &dH)); /* the band at -shift */
          if (chi <= 0) continue;
          PetscCall(FGFaceListReserve_Private(l, l->n + 1, nj));
          l->off[l->n] = FGBoxOwnedIndex(&g->box, i, j, k);
          for (PetscInt d = 0; d < 3; d++) l->x[3 * l->n + d] = x[d];
          l->chi[l->n] = chi;
          {
            PetscReal *G = l->geo + 6 * l->n, g2 = 0;
            G[0] = phi;
            for (PetscInt d = 0; d < 3; d++) G[1 + d] = d < dim ? gx[d] : 0;
            G[4] = dH;
            for (PetscInt d = 0; d < dim; d++) g2 += gx[d] * gx[d];
            G[5] = PetscSqrtReal(g2);
          }
          if (nj) {
            PetscReal gn = 0, r = (phi + it->shift) / it->eps, w = PetscAbsReal(r) < 1 ? (1 - r * r) * (1 - r * r) : 0;
            PetscReal psi = PetscAtan2Real(x[1] - xc[1], x[0] - xc[0]) - thb, W = bc->jet_width * PETSC_PI / 180;
            for (PetscInt d = 0; d < dim; d++) gn += gx[d] * gx[d];
            gn = PetscSqrtReal(gn);
            for (PetscInt d = 0; d < 3; d++) l->nrm[3 * l->n + d] = d < dim && gn > 0 ? gx[d] / gn : 0;
            for (PetscInt jj = 0; jj < nj; jj++) {
              PetscReal del = PetscFmodReal(psi - bc->jet_angles[jj] * PETSC_PI / 180, 2 * PETSC_PI);
              if (del > PETSC_PI) del -= 2 * PETSC_PI;
              if (del < -PETSC_PI) del += 2 * PETSC_PI;
              l->jet[nj * l->n + jj] = PetscAbsReal(del) < W / 2 ? PetscSqr(PetscCosReal(PETSC_PI * del / W)) * w : 0;
            }
          }
          if (a == 0) it->out.volume += chi * B->dV;
          l->n++;
        }
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &it->out.volume, 1, MPIU_REAL, MPIU_SUM, g->comm));

  /* control volume: the bounding box widened by half its size (at least 3 cells) */
  {
    PetscReal size = 0;
    for (PetscInt d = 0; d < dim; d++)
      if (bl[d] > PETSC_MIN_REAL) size = PetscMax(size, bh[d] - bl[d]);
    for (PetscInt d = 0; d < 3; d++) {
      it->boxlo[d] = 0, it->boxhi[d] = d < dim ? g->n[d] : 1;
      it->boxwhole[d] = PETSC_TRUE;
      if (d >= dim || bl[d] <= PETSC_MIN_REAL) continue;
      {
        PetscReal m  = PetscMax(0.5 * size, 3 * g->h[d]);
        PetscInt  cl = (PetscInt)PetscFloorReal((bl[d] - m - g->x0[d]) / g->h[d]);
        PetscInt  ch = (PetscInt)PetscCeilReal((bh[d] + m - g->x0[d]) / g->h[d]);
        if (g->periodic[d] && cl <= 0 && ch >= g->n[d]) continue; /* whole periodic span */
        it->boxwhole[d] = PETSC_FALSE;
        it->boxlo[d]    = PetscMax(cl, 2);
        it->boxhi[d]    = PetscMin(ch, g->n[d] - 2);
      }
    }
  }
  it->tbuilt = t;
  PetscCall(PetscLogEventEnd(FG_EVENT_BodyBuild, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Exchange the body's current placement with a kept one. */
static void FGBodySwapPlacement_Private(FGBodyItem *it, FGBodyPlacement *k)
{
  FGBodyPlacement cur;
  cur.valid  = PETSC_TRUE;
  cur.t      = it->tbuilt;
  cur.volume = it->out.volume;
  for (PetscInt d = 0; d < 3; d++) cur.f[d] = it->f[d], cur.boxlo[d] = it->boxlo[d], cur.boxhi[d] = it->boxhi[d], cur.boxwhole[d] = it->boxwhole[d];
  it->tbuilt     = k->t;
  it->out.volume = k->volume;
  for (PetscInt d = 0; d < 3; d++) it->f[d] = k->f[d], it->boxlo[d] = k->boxlo[d], it->boxhi[d] = k->boxhi[d], it->boxwhole[d] = k->boxwhole[d];
  *k = cur;
}

/* Forget the kept placements (the body's parameters changed). */
static void FGBodyForgetPlacements_Private(FGBodyItem *it)
{
  for (PetscInt i = 0; i < it->nkept; i++) it->kept[i].valid = PETSC_FALSE;
}

static PetscErrorCode FGBodyPlacementFree_Private(FGBodyPlacement *k)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < 3; a++) {
    FGFaceList *l = &k->f[a];
    PetscCall(PetscFree6(l->off, l->x, l->chi, l->us, l->nrm, l->jet));
    PetscCall(PetscFree(l->geo));
  }
  PetscCall(PetscMemzero(k, sizeof(*k)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesSetPlacementCapacity - how many earlier placements each moving body keeps for reuse
  (at least 3; the reverse sweep asks for 3 L + 1 while it reverses L taped steps, so that the
  adjoint steps find every stage's placement instead of building it again).

  Not collective.
@*/
PetscErrorCode FGBodiesSetPlacementCapacity(FGBodies B, PetscInt n)
{
  PetscFunctionBeginUser;
  n = PetscMax(n, FG_BODY_PLACEMENTS);
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem *it = &B->b[b];
    if (!it->moving || n == it->nkept) continue;
    for (PetscInt i = n; i < it->nkept; i++) PetscCall(FGBodyPlacementFree_Private(&it->kept[i]));
    PetscCall(PetscRealloc(sizeof(FGBodyPlacement) * (size_t)n, &it->kept));
    if (n > it->nkept) PetscCall(PetscArrayzero(it->kept + it->nkept, n - it->nkept));
    it->nkept    = n;
    it->nextkept = it->nextkept % n;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetPlacementBytes - the memory of one placement of all moving bodies (their face lists
  as now), summed over the ranks: what each kept placement costs.

  Collective.
@*/
PetscErrorCode FGBodiesGetPlacementBytes(FGBodies B, PetscReal *bytes)
{
  double mine = 0;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < B->nb; b++) {
    const FGBodyItem *it = &B->b[b];
    if (!it->moving) continue;
    for (PetscInt a = 0; a < 3; a++) mine += (double)it->f[a].n * (double)(sizeof(PetscInt) + sizeof(PetscReal) * (3 + 1 + 1 + 3 + PetscMax(it->bc->n_jets, 1) + 6));
  }
  PetscCallMPI(MPI_Allreduce(&mine, bytes, 1, MPI_DOUBLE, MPI_SUM, B->g->comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A moving body placed at time t: the current placement, a kept one (the same doubles: every
   rank takes the same branch, and a placement is a function of t and the body's parameters), or
   a new build into the oldest kept one's memory, the current placement kept in its stead. */
static PetscErrorCode FGBodyPlace_Private(FGBodies B, FGBodyItem *it, PetscReal t)
{
  PetscReal xc[3], thb;

  PetscFunctionBeginUser;
  if (!it->moving || it->tbuilt == t) PetscFunctionReturn(PETSC_SUCCESS);
  if (!it->nkept) {
    PetscCall(PetscCalloc1(FG_BODY_PLACEMENTS, &it->kept));
    it->nkept = FG_BODY_PLACEMENTS;
  }
  for (PetscInt i = 0; i < it->nkept; i++)
    if (it->kept[i].valid && it->kept[i].t == t) {
      FGBodySwapPlacement_Private(it, &it->kept[i]);
      PetscCall(FGBodyShapeAt_Private(it, B->g->dim, t, xc, &thb));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  FGBodySwapPlacement_Private(it, &it->kept[it->nextkept]); /* the current one kept; its lists reused */
  it->nextkept = (it->nextkept + 1) % it->nkept;
  PetscCall(FGBodyBuild_Private(B, it, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A density body: chi = P(F rho) at cells from it->rho, each component's interior faces, the
   centroid, and the control volume around the solid (chi > 1/2). Collective. */
static PetscErrorCode FGBodyDensityMasks_Private(FGBodies B, FGBodyItem *it)
{
  FGGrid            g   = B->g;
  const FGBox      *bx  = &g->box;
  const FGBodyCase *bc  = it->bc;
  const PetscInt    dim = g->dim;
  PetscReal         loc[7] = {0, 0, 0, 0, 0, 0, 0}, ext[6];
  const PetscScalar *c;

  PetscFunctionBeginUser;
  PetscCall(FGDensityMask(it->dens, it->rho, it->chic));
  /* centroid and extent of the solid */
  for (PetscInt d = 0; d < 3; d++) ext[d] = PETSC_MAX_REAL, ext[3 + d] = PETSC_MIN_REAL;
  PetscCall(VecGetArrayRead(it->chic, &c));
  for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
    for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
      for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
        const PetscInt  idx[3] = {i, j, k};
        const PetscReal w      = PetscRealPart(c[FGBoxOwnedIndex(bx, i, j, k)]);
        loc[0] += w * B->dV;
        for (PetscInt d = 0; d < dim; d++) {
          PetscReal x = FGGridCoordinate(g, FG_LOC_CELL, d, idx[d]);
          loc[1 + d] += w * x * B->dV;
          if (w > 0.5) ext[d] = PetscMin(ext[d], x - g->h[d]), ext[3 + d] = PetscMax(ext[3 + d], x + g->h[d]);
        }
      }
  PetscCall(VecRestoreArrayRead(it->chic, &c));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, loc, 4, MPIU_REAL, MPIU_SUM, g->comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, ext, 3, MPIU_REAL, MPIU_MIN, g->comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, ext + 3, 3, MPIU_REAL, MPIU_MAX, g->comm));
  PetscCheck(loc[0] > 0, g->comm, FG_ERR_INPUT, "%s: the density field %s:/%s has no solid (chi = P(F rho) is 0 everywhere)", bc->where, bc->density_file, bc->density_dataset);
  it->out.volume = loc[0];
  for (PetscInt d = 0; d < dim; d++) it->centroid[d] = loc[1 + d] / loc[0];
  /* the faces */
  for (PetscInt a = 0; a < dim; a++) {
    FGFaceList        *l = &it->f[a];
    const PetscScalar *cf;
    PetscInt           lo[3], hi[3];
    PetscCall(FGDensityFaceMask(it->dens, it->chic, a, it->chif));
    FGOpInteriorFaces(g, B->bc, a, lo, hi);
    PetscCall(VecGetArrayRead(it->chif, &cf));
    l->n = 0;
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) {
          const PetscInt  idx[3] = {i, j, k}, o = FGBoxOwnedIndex(bx, i, j, k);
          const PetscReal chi    = PetscRealPart(cf[o]);
          /* with rho a design variable, every interior face, also where chi = 0: a change of rho
             makes chi nonzero wherever the filter carries it, and the linearized penalization
             needs those faces (in the forward step a face with chi = 0 changes nothing: K = S = 0
             there); otherwise only the faces with chi > 0 */
          if (chi <= 0 && !it->allfaces) continue;
          PetscCall(FGFaceListReserve_Private(l, l->n + 1, 0));
          l->off[l->n] = o;
          for (PetscInt d = 0; d < 3; d++) l->x[3 * l->n + d] = d < dim ? FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]) : 0;
          l->chi[l->n] = chi;
          l->n++;
        }
    PetscCall(VecRestoreArrayRead(it->chif, &cf));
  }
  /* the control volume: the solid's box widened by half its size */
  for (PetscInt d = 0; d < 3; d++) {
    it->boxlo[d] = 0, it->boxhi[d] = d < dim ? g->n[d] : 1;
    it->boxwhole[d] = PETSC_TRUE;
    if (d >= dim || ext[d] > ext[3 + d]) continue;
    {
      PetscReal m  = PetscMax(0.5 * (ext[3 + d] - ext[d]), 3 * g->h[d]);
      PetscInt  cl = (PetscInt)PetscFloorReal((ext[d] - m - g->x0[d]) / g->h[d]);
      PetscInt  ch = (PetscInt)PetscCeilReal((ext[3 + d] + m - g->x0[d]) / g->h[d]);
      if (g->periodic[d] && cl <= 0 && ch >= g->n[d]) continue;
      it->boxwhole[d] = PETSC_FALSE;
      it->boxlo[d]    = PetscMax(cl, 2);
      it->boxhi[d]    = PetscMin(ch, g->n[d] - 2);
    }
  }
  it->tbuilt = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A density body: read rho, make the filter and the masks. Collective. */
static PetscErrorCode FGBodyBuildDensity_Private(FGBodies B, FGBodyItem *it)
{
  FGGrid            g  = B->g;
  const FGBodyCase *bc = it->bc;

  PetscFunctionBeginUser;
  PetscCall(DMCreateGlobalVector(g->da, &it->rho));
  PetscCall(VecDuplicate(it->rho, &it->chic));
  PetscCall(VecDuplicate(it->rho, &it->chif));
  PetscCall(FGDensityRead(g, bc->density_file, bc->density_dataset, bc->where, it->rho));
  PetscCall(FGDensityCreate(g, bc->filter_radius, bc->projection_beta, bc->projection_threshold, &it->dens));
  PetscCall(FGBodyDensityMasks_Private(B, it));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetDensity - a density body's rho (a global cell Vec owned by the bodies; NULL for a
  shape body) and its filter/projection.
@*/
PetscErrorCode FGBodiesGetDensity(FGBodies B, PetscInt b, Vec *rho, FGDensity *dens)
{
  PetscFunctionBeginUser;
  if (rho) *rho = B->b[b].rho;
  if (dens) *dens = B->b[b].dens;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesSetDensityDifferentiable - make a density body list every interior face (not only those
  with chi > 0), as its linearization with respect to rho needs; rebuilds its masks (collective).
@*/
PetscErrorCode FGBodiesSetDensityDifferentiable(FGBodies B, PetscInt b)
{
  FGBodyItem *it = &B->b[b];

  PetscFunctionBeginUser;
  PetscCheck(it->dens, B->g->comm, PETSC_ERR_ARG_WRONG, "body %s is not a density body", it->bc->name);
  it->allfaces = PETSC_TRUE;
  PetscCall(FGBodyDensityMasks_Private(B, it));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesSetDensity - replace a density body's rho and rebuild its masks (collective).
@*/
PetscErrorCode FGBodiesSetDensity(FGBodies B, PetscInt b, Vec rho)
{
  FGBodyItem *it = &B->b[b];

  PetscFunctionBeginUser;
  PetscCheck(it->dens, B->g->comm, PETSC_ERR_ARG_WRONG, "body %s is not a density body", it->bc->name);
  PetscCall(VecCopy(rho, it->rho));
  PetscCall(FGBodyDensityMasks_Private(B, it));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesCreate - the bodies of a case on a grid: shapes, validation (FG_ERR_INPUT naming the
  case file's body entry), inside-the-domain check, face lists at t = 0. Collective.
@*/
PetscErrorCode FGBodiesCreate(FGGrid g, const FGBoundary *bnd, const FGCase *c, FGBodies *bodies)
{
  FGBodies  B;
  PetscReal hmax = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&B));
  B->g  = g;
  B->bc = bnd;
  B->c  = c;
  B->nb = c->nbodies;
  B->dV = 1;
  for (PetscInt d = 0; d < g->dim; d++) {
    B->dV *= g->h[d];
    hmax = PetscMax(hmax, g->h[d]);
  }
  PetscCall(PetscCalloc1(PetscMax(B->nb, 1), &B->b));
  *bodies = B;
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem       *it = &B->b[b];
    const FGBodyCase *bc = &c->body[b];
    char              msg[1024];
    PetscErrorCode    ierr;

    it->bc = bc;
    if (bc->shape == FG_BODY_DENSITY) {
      PetscCall(FGBodyBuildDensity_Private(B, it));
      continue;
    }
    PetscCall(FGErrorCapturePush(msg, sizeof(msg)));
    ierr = FGBodyShapeCreate_Private(bc, g->dim, &it->shape, &it->airfoil);
    if (!ierr) ierr = FGShapeValidate(it->shape);
    PetscCall(FGErrorCapturePop());
    PetscCheck(!ierr, g->comm, ierr == FG_ERR_INPUT ? FG_ERR_INPUT : ierr, "%s: %s", bc->where, msg);
    it->eps    = 0.5 * bc->mask_width * hmax;
    it->shift  = bc->mask_offset * it->eps;
    it->reach  = 2 * it->eps + hmax;
    it->nbasis = PetscMax(c->design.time_basis, 1);
    it->T      = (PetscReal)c->time.steps * c->time.dt;
    for (PetscInt k = 0; k < it->nbasis; k++) { /* the case's constants, or its values in time (validated: nbasis each) */
      it->ratec[k] = bc->n_rate_values ? bc->rotation_rate_values[k] : bc->rotation_rate;
      for (PetscInt j = 0; j < bc->n_jets; j++) it->jetc[j][k] = bc->n_jet_values ? bc->jet_amplitude_values[j * it->nbasis + k] : bc->jet_amplitude[j];
    }
    it->moving = FGBodyMoves_Private(bc, FGBodyRateZero_Private(it) ? 0.0 : 1.0);
    PetscCall(FGShapeGetNumParameters(it->shape, &it->np));
    {
      PetscReal p[FG_SHAPE_MAX_PARAMS];
      PetscCall(FGShapeGetParameters(it->shape, p));
      it->angle0 = p[g->dim];
    }
    PetscCall(FGBodyBuild_Private(B, it, 0.0));
  }
  if (B->nb)
    for (PetscInt a = 0; a < g->dim; a++) {
      PetscCall(DMCreateGlobalVector(g->da, &B->K[a]));
      PetscCall(VecDuplicate(B->K[a], &B->S[a]));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGBodiesDestroy(FGBodies *bodies)
{
  FGBodies B = *bodies;

  PetscFunctionBeginUser;
  if (!B) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt b = 0; b < B->nb; b++) {
    for (PetscInt a = 0; a < 3; a++) {
      PetscCall(PetscFree6(B->b[b].f[a].off, B->b[b].f[a].x, B->b[b].f[a].chi, B->b[b].f[a].us, B->b[b].f[a].nrm, B->b[b].f[a].jet));
      PetscCall(PetscFree(B->b[b].f[a].geo));
    }
    for (PetscInt i = 0; i < B->b[b].nkept; i++) PetscCall(FGBodyPlacementFree_Private(&B->b[b].kept[i]));
    PetscCall(PetscFree(B->b[b].kept));
    PetscCall(FGShapeDestroy(&B->b[b].shape));
    PetscCall(FGDensityDestroy(&B->b[b].dens));
    PetscCall(VecDestroy(&B->b[b].rho));
    PetscCall(VecDestroy(&B->b[b].chic));
    PetscCall(VecDestroy(&B->b[b].chif));
  }
  for (PetscInt a = 0; a < 3; a++) {
    PetscCall(VecDestroy(&B->K[a]));
    PetscCall(VecDestroy(&B->S[a]));
    PetscCall(VecDestroy(&B->W[a]));
    PetscCall(VecDestroy(&B->Z[a]));
  }
  PetscCall(PetscFree(B->b));
  PetscCall(PetscFree(B));
  *bodies = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGBodiesGetCount(FGBodies B, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = B ? B->nb : 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGBodiesGetName(FGBodies B, PetscInt b, const char **name)
{
  PetscFunctionBeginUser;
  *name = B->b[b].bc->name;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGBodiesGetShape(FGBodies B, PetscInt b, FGShape *shape)
{
  PetscFunctionBeginUser;
  *shape = B->b[b].shape;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   The step */

/* Forward declaration: the momentum in a body's control volume. */
static PetscErrorCode FGBodyBoxMomentum_Private(FGBodies, const FGBodyItem *, Vec[], PetscReal[3]);

/*@C
  FGBodiesBeginStep - zero the force accumulators; fix each body's control volume for the step
  (around the body at time t, the step's start) and note the momentum in it of the state u
  (global Vecs).
@*/
PetscErrorCode FGBodiesBeginStep(FGBodies B, PetscReal t, Vec u[])
{
  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem *it = &B->b[b];
    PetscCall(FGBodyPlace_Private(B, it, t));
    /* the control volume of this step: around the body at its start */
    for (PetscInt d = 0; d < 3; d++) it->cvlo[d] = it->boxlo[d], it->cvhi[d] = it->boxhi[d], it->cvwhole[d] = it->boxwhole[d];
    PetscCall(PetscArrayzero(it->acc, 6));
    PetscCall(FGBodyBoxMomentum_Private(B, it, u, it->cv0));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Forward declaration: K, S and the faces' u_s of one component at time t (with the linearized penalization). */
static PetscErrorCode FGBodiesKS_Private(FGBodies, PetscInt, PetscReal);

/*@C
  FGBodiesPenalize - the implicit penalization of one RK3 stage, u <- (u + g dt S)/(1 + g dt K),
  and the stage's force, weighted by g, added to each body's step force.

  Input Parameters:
+ B     - the bodies
. t     - the stage's end time (body position and velocity)
. gamma - the stage's weight alpha_k + beta_k
. dt    - the step
- u     - the predicted velocity (global Vecs), penalized in place
@*/
PetscErrorCode FGBodiesPenalize(FGBodies B, PetscReal t, PetscReal gamma, PetscReal dt, Vec u[])
{
  const PetscInt  dim = B->g->dim;
  const PetscReal gdt = gamma * dt;

  PetscFunctionBeginUser;
  if (!B || !B->nb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_BodyPenalize, 0, 0, 0, 0));
  for (PetscInt b = 0; b < B->nb; b++)
    PetscCall(FGBodyPlace_Private(B, &B->b[b], t));
  for (PetscInt a = 0; a < dim; a++) {
    PetscScalar *K, *S, *ua;
    PetscInt     nloc;
    /* 1. K and S, and u_s of each listed face */
    PetscCall(FGBodiesKS_Private(B, a, t));
    PetscCall(VecGetArray(B->K[a], &K));
    PetscCall(VecGetArray(B->S[a], &S));
    /* 2. the implicit update (where K = 0 it leaves u as it is, exactly) */
    PetscCall(VecGetLocalSize(u[a], &nloc));
    PetscCall(VecGetArray(u[a], &ua));
    for (PetscInt i = 0; i < nloc; i++) ua[i] = (ua[i] + gdt * S[i]) / (1 + gdt * K[i]);
    /* 3. the stage force and moment on each body */
    for (PetscInt b = 0; b < B->nb; b++) {
      FGBodyItem *it = &B->b[b];
      FGFaceList *l  = &it->f[a];
      PetscReal   xc[3], V[3], th, om, F = 0, M[3] = {0, 0, 0};
      FGBodyState_Private(it, dim, t, xc, V, &th, &om);
      for (PetscInt f = 0; f < l->n; f++) {
        const PetscReal *x  = l->x + 3 * f;
        const PetscReal  fa = l->chi[f] / it->bc->eta * (ua[l->off[f]] - l->us[f]) * B->dV;
        F += fa;
        /* M = r x F, r = x - x_c, F along a */
        for (PetscInt m = 0; m < 3; m++) {
          PetscInt i1 = (m + 1) % 3, i2 = (m + 2) % 3; /* M_m = r_i1 F_i2 - r_i2 F_i1 */
          if (a == i2) M[m] += (x[i1] - xc[i1]) * fa;
          if (a == i1) M[m] -= (x[i2] - xc[i2]) * fa;
        }
      }
      it->acc[a] += gamma * F;
      for (PetscInt m = 0; m < 3; m++) it->acc[3 + m] += gamma * M[m];
    }
    PetscCall(VecRestoreArray(u[a], &ua));
    PetscCall(VecRestoreArray(B->S[a], &S));
    PetscCall(VecRestoreArray(B->K[a], &K));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_BodyPenalize, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesEndStep - reduce the step's forces and moments (one MPI_Allreduce), form the coefficients.
@*/
PetscErrorCode FGBodiesEndStep(FGBodies B, PetscReal t)
{
  PetscReal buf[6 * FG_CASE_MAX_BODIES];

  PetscFunctionBeginUser;
  if (!B || !B->nb) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt b = 0; b < B->nb; b++) PetscCall(PetscArraycpy(buf + 6 * b, B->b[b].acc, 6));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, buf, (PetscMPIInt)(6 * B->nb), MPIU_REAL, MPIU_SUM, B->g->comm));
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem      *it = &B->b[b];
    const PetscReal  q  = 0.5 * it->bc->ref_speed * it->bc->ref_speed * it->bc->ref_area;
    for (PetscInt d = 0; d < 3; d++) {
      it->out.force[d]  = buf[6 * b + d];
      it->out.moment[d] = buf[6 * b + 3 + d];
      it->out.coeff[d]  = it->out.force[d] / q;
    }
    it->out.cm = it->out.moment[2] / (q * it->bc->ref_length);
  }
  (void)t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode FGBodiesGetForces(FGBodies B, PetscInt b, FGBodyForces *f)
{
  PetscFunctionBeginUser;
  *f = B->b[b].out;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Control volume */

/* Momentum sum_box u_a dV of component a (local part), the trapezoidal rule along a: the a-faces
   inside the box with weight 1, those on its two surfaces (face indices cvlo-1, cvhi-1) with 1/2. */
static PetscErrorCode FGBodyBoxMomentum_Private(FGBodies B, const FGBodyItem *it, Vec u[], PetscReal M[3])
{
  FGGrid       g  = B->g;
  const FGBox *bx = &g->box;

  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < g->dim; a++) {
    const PetscScalar *ua;
    PetscInt           lo[3], hi[3];
    M[a] = 0;
    for (PetscInt d = 0; d < 3; d++) {
      PetscBool surf = (PetscBool)(d == a && !it->cvwhole[d]);
      lo[d]          = PetscMax(it->cvlo[d] - (surf ? 1 : 0), bx->lo[d]);
      hi[d]          = PetscMin(it->cvhi[d], bx->hi[d]);
    }
    PetscCall(VecGetArrayRead(u[a], &ua));
    for (PetscInt k = lo[2]; k < hi[2]; k++)
      for (PetscInt j = lo[1]; j < hi[1]; j++)
        for (PetscInt i = lo[0]; i < hi[0]; i++) {
          const PetscInt  idx[3] = {i, j, k};
          const PetscReal w      = !it->cvwhole[a] && (idx[a] == it->cvlo[a] - 1 || idx[a] == it->cvhi[a] - 1) ? 0.5 : 1.0;
          M[a] += w * ua[FGBoxOwnedIndex(bx, i, j, k)] * B->dV;
        }
    PetscCall(VecRestoreArrayRead(u[a], &ua));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesControlVolume - the control-volume force on each body's box (see the file's comment).

  Input Parameters:
+ B     - the bodies
. t     - the time at the step's end
. dt    - the step just taken
. nu    - viscosity
. u     - velocity at the step's end (global Vecs; the start's momentum is from FGBodiesBeginStep())
. ul    - the same, ghosted with boundary values (FGSolverFillGhosts)
- pl    - pressure at its end, ghosted (DMGlobalToLocal)
  (the constant flow.force enters as f V_box, the actuators as sum_box f dV)
@*/
PetscErrorCode FGBodiesControlVolume(FGBodies B, PetscReal t, PetscReal dt, PetscReal nu, Vec u[], Vec ul[], Vec pl)
{
  FGGrid             g  = B->g;
  const FGBox       *bx = &g->box;
  const PetscInt     dim = g->dim;
  const PetscScalar *U[3], *P;
  PetscReal          buf[3 * FG_CASE_MAX_BODIES];

  PetscFunctionBeginUser;
  if (!B || !B->nb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_BodyControlVolume, 0, 0, 0, 0));
  for (PetscInt a = 0; a < dim; a++) PetscCall(VecGetArrayRead(ul[a], &U[a]));
  PetscCall(VecGetArrayRead(pl, &P));
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem *it = &B->b[b];
    PetscReal   M1[3] = {0, 0, 0}, flux[3] = {0, 0, 0};
    PetscCall(FGBodyBoxMomentum_Private(B, it, u, M1));
    /* surface fluxes: faces normal to d at face index cvlo[d]-1 (outward -e_d) and cvhi[d]-1 (+e_d) */
    for (PetscInt d = 0; d < dim; d++) {
      const PetscReal dA = B->dV / g->h[d];
      if (it->cvwhole[d]) continue;
      for (PetscInt side = 0; side < 2; side++) {
        const PetscInt  fi  = side ? it->cvhi[d] - 1 : it->cvlo[d] - 1;
        const PetscReal sgn = side ? 1.0 : -1.0;
        PetscInt        lo[3], hi[3];
        if (fi < bx->lo[d] || fi >= bx->hi[d]) continue;
        for (PetscInt e = 0; e < 3; e++) lo[e] = PetscMax(it->cvlo[e], bx->lo[e]), hi[e] = PetscMin(it->cvhi[e], bx->hi[e]);
        lo[d] = fi, hi[d] = fi + 1;
        for (PetscInt k = lo[2]; k < hi[2]; k++)
          for (PetscInt j = lo[1]; j < hi[1]; j++)
            for (PetscInt i = lo[0]; i < hi[0]; i++) {
              const PetscInt  c  = FGBoxIndex(bx, i, j, k), sd = bx->s[d];
              const PetscReal un = U[d][c], pf = 0.5 * (P[c] + P[c + sd]);
              for (PetscInt a = 0; a < dim; a++) {
                PetscReal ua, dua;
                if (a == d) {
                  ua  = un;
                  dua = (U[d][c + sd] - U[d][c - sd]) / (2 * g->h[d]);
                } else {
                  const PetscInt sa = bx->s[a];
                  ua  = 0.25 * (U[a][c] + U[a][c + sd] + U[a][c - sa] + U[a][c + sd - sa]);
                  dua = 0.5 * ((U[a][c + sd] - U[a][c]) + (U[a][c + sd - sa] - U[a][c - sa])) / g->h[d];
                }
                flux[a] += sgn * (ua * un + (a == d ? pf : 0.0) - nu * dua) * dA;
              }
            }
      }
    }
    /* body-force actuators: sum_box f dV (trapezoidal along a, as the momentum) */
    for (PetscInt n = 0; n < B->c->nactuators; n++)
      for (PetscInt a = 0; a < dim; a++) {
        PetscInt lo[3], hi[3];
        for (PetscInt d = 0; d < 3; d++) {
          lo[d] = PetscMax(it->cvlo[d] - (d == a && !it->cvwhole[d] ? 1 : 0), bx->lo[d]);
          hi[d] = PetscMin(it->cvhi[d], bx->hi[d]);
        }
        for (PetscInt k = lo[2]; k < hi[2]; k++)
          for (PetscInt j = lo[1]; j < hi[1]; j++)
            for (PetscInt i = lo[0]; i < hi[0]; i++) {
              const PetscInt idx[3] = {i, j, k};
              PetscReal      x[3]   = {0, 0, 0}, w;
              for (PetscInt d = 0; d < dim; d++) x[d] = FGGridCoordinate(g, (FGLocation)(FG_LOC_FACE_X + a), d, idx[d]);
              w = !it->cvwhole[a] && (idx[a] == it->cvlo[a] - 1 || idx[a] == it->cvhi[a] - 1) ? 0.5 : 1.0;
              if (B->actc) { /* the amplitude at t from the controls' basis */
                FGActuatorCase ac = B->c->actuator[n];
                ac.force[a]       = FGActuatorAmplitude(B->actc, PetscMax(B->c->design.time_basis, 1), (PetscReal)B->c->time.steps * B->c->time.dt, n, a, t);
                flux[a] -= w * FGActuatorValue(&ac, dim, a, x, t) * B->dV;
              } else flux[a] -= w * FGActuatorValue(&B->c->actuator[n], dim, a, x, t) * B->dV;
            }
      }
    for (PetscInt a = 0; a < dim; a++) buf[3 * b + a] = -(M1[a] - it->cv0[a]) / dt - flux[a];
    for (PetscInt a = dim; a < 3; a++) buf[3 * b + a] = 0;
  }
  PetscCall(VecRestoreArrayRead(pl, &P));
  for (PetscInt a = 0; a < dim; a++) PetscCall(VecRestoreArrayRead(ul[a], &U[a]));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, buf, (PetscMPIInt)(3 * B->nb), MPIU_REAL, MPIU_SUM, g->comm));
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem *it   = &B->b[b];
    PetscReal   ncell = 1;
    for (PetscInt d = 0; d < dim; d++) ncell *= (PetscReal)(it->cvhi[d] - it->cvlo[d]);
    for (PetscInt a = 0; a < 3; a++) it->out.cv_force[a] = buf[3 * b + a] + (a < dim ? B->c->flow.force[a] * ncell * B->dV : 0);
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_BodyControlVolume, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool FGInBox_Private(PetscInt dim, const PetscReal x[], const PetscReal lo[], const PetscReal hi[])
{
  for (PetscInt d = 0; d < dim; d++)
    if (x[d] < lo[d] || x[d] > hi[d]) return PETSC_FALSE;
  return PETSC_TRUE;
}

/*@C
  FGBodiesCellMask - the combined mask 1 - prod_b (1 - chi_b) at the cell centres, at time t
  (for output and postprocessing).
@*/
PetscErrorCode FGBodiesCellMask(FGBodies B, PetscReal t, Vec chi)
{
  FGGrid       g  = B->g;
  const FGBox *bx = &g->box;
  PetscScalar *m;

  PetscFunctionBeginUser;
  PetscCall(VecSet(chi, 0.0));
  PetscCall(VecGetArray(chi, &m));
  for (PetscInt b = 0; b < B->nb; b++) {
    FGBodyItem        *it   = &B->b[b];
    const PetscScalar *chic = NULL;
    PetscReal          bl[3], bh[3];
    PetscCall(FGBodyPlace_Private(B, it, t));
    if (it->dens) PetscCall(VecGetArrayRead(it->chic, &chic));
    else {
      PetscCall(FGShapeBoundingBox(it->shape, bl, bh));
      for (PetscInt d = 0; d < g->dim; d++) bl[d] -= it->reach, bh[d] += it->reach;
    }
    for (PetscInt k = bx->lo[2]; k < bx->hi[2]; k++)
      for (PetscInt j = bx->lo[1]; j < bx->hi[1]; j++)
        for (PetscInt i = bx->lo[0]; i < bx->hi[0]; i++) {
          const PetscInt idx[3] = {i, j, k};
          PetscReal      x[3]   = {0, 0, 0}, c;
          PetscInt       o      = FGBoxOwnedIndex(bx, i, j, k);
          for (PetscInt d = 0; d < g->dim; d++) x[d] = FGGridCoordinate(g, FG_LOC_CELL, d, idx[d]);
          if (it->dens) c = chic[o];
          else if (!FGInBox_Private(g->dim, x, bl, bh)) c = 0; /* chi = 0 outside the body */
          else {
            PetscReal phi, dH;
            PetscCall(FGShapeLevelSet(it->shape, x, &phi, NULL, NULL));
            PetscCall(FGHeaviside(-phi - it->shift, it->eps, &c, &dH));
          }
          m[o] = 1 - (1 - m[o]) * (1 - c);
        }
    if (it->dens) PetscCall(VecRestoreArrayRead(it->chic, &chic));
  }
  PetscCall(VecRestoreArray(chi, &m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGSignalFrequency - the dominant frequency of an oscillating signal y(t) from its upward
  crossings of its mean, both taken over the second half of the samples (the first half is a
  transient); 0 when that half has fewer than 3 crossings or a peak-to-peak amplitude below 2e-4
  (a steady signal: round-off wiggles are no oscillation).

  Not Collective

  Input Parameters:
+ n - number of samples
. t - increasing times
- y - values

  Output Parameter:
. f - (crossings - 1) / (time between the first and the last crossing), crossing times
      interpolated linearly
@*/
PetscErrorCode FGSignalFrequency(PetscInt n, const PetscReal t[], const PetscReal y[], PetscReal *f)
{
  PetscInt  i0 = n / 2, nc = 0;
  PetscReal m = 0, lo = PETSC_MAX_REAL, hi = PETSC_MIN_REAL, tfirst = 0, tlast = 0;

  PetscFunctionBeginUser;
  *f = 0;
  if (n - i0 < 4) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = i0; i < n; i++) {
    m += y[i];
    lo = PetscMin(lo, y[i]);
    hi = PetscMax(hi, y[i]);
  }
  m /= (PetscReal)(n - i0);
  if (hi - lo < 2e-4) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = i0; i + 1 < n; i++)
    if (y[i] < m && y[i + 1] >= m) {
      PetscReal tc = t[i] + (m - y[i]) / (y[i + 1] - y[i]) * (t[i + 1] - t[i]);
      if (!nc) tfirst = tc;
      tlast = tc;
      nc++;
    }
  if (nc >= 3 && tlast > tfirst) *f = (PetscReal)(nc - 1) / (tlast - tfirst);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Parameters, tangent and adjoint of the penalization

   The parameters of body b: theta_b = [its shape's parameters (placement first: x0, y0[, z0],
   angle, then the kind's), rotation_rate, jet_amplitude_1..n_jets]. The penalization of a stage
   depends on them through chi (the shape; the rotation turns a non-round shape: the angle is
   angle0 + rate t) and through u_s (placement, rotation rate, jets). The jets' footprint turns
   and moves with the body, and its normal n = grad phi / |grad phi| is differentiated exactly
   for circles and spheres only; FGBodiesGetParameterSupport() says which parameters have an exact
   derivative. */

#define FG_JET_EXACT(it)   ((it)->bc->shape == FG_BODY_CIRCLE || (it)->bc->shape == FG_BODY_SPHERE)
#define FG_BODY_NTHETA(it) ((it)->np + (it)->nbasis * (1 + (it)->bc->n_jets)) /* shape, rate, jets */

/*@C
  FGBodiesGetParameterCount - the number of scalar parameters theta_b of body b (0 for a density body).
@*/
PetscErrorCode FGBodiesGetParameterCount(FGBodies B, PetscInt b, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = B->b[b].dens ? 0 : FG_BODY_NTHETA(&B->b[b]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetShapeParameterCount - the number of shape parameters (placement included) of body b.
@*/
PetscErrorCode FGBodiesGetShapeParameterCount(FGBodies B, PetscInt b, PetscInt *n)
{
  PetscFunctionBeginUser;
  *n = B->b[b].dens ? 0 : B->b[b].np;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesSetActuatorControls - the actuator amplitudes (FGSolver.actc) the control-volume balance
  uses (NULL: the case's constant forces).
@*/
PetscErrorCode FGBodiesSetActuatorControls(FGBodies B, const PetscReal *actc)
{
  PetscFunctionBeginUser;
  B->actc = actc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetTimeBasis - the number of basis functions in time of the controls (design.time_basis).
@*/
PetscErrorCode FGBodiesGetTimeBasis(FGBodies B, PetscInt *nb)
{
  PetscFunctionBeginUser;
  *nb = PetscMax(B->c->design.time_basis, 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetParameterName - the name of parameter i of body b: the shape's name for it, or
  "rotation_rate", or "jet_amplitude[j]", with "[k]" appended for basis coefficient k when the
  controls have a basis in time (buffer of len bytes).
@*/
PetscErrorCode FGBodiesGetParameterName(FGBodies B, PetscInt b, PetscInt i, char name[], size_t len)
{
  const FGBodyItem *it = &B->b[b];

  PetscFunctionBeginUser;
  if (i < it->np) {
    const char *pn;
    PetscCall(FGShapeGetParameterName(it->shape, i, &pn));
    PetscCall(PetscStrncpy(name, pn, len));
  } else if (i < it->np + it->nbasis) {
    if (it->nbasis == 1) PetscCall(PetscStrncpy(name, "rotation_rate", len));
    else PetscCall(PetscSNPrintf(name, len, "rotation_rate[%" PetscInt_FMT "]", i - it->np));
  } else {
    const PetscInt q = i - it->np - it->nbasis;
    if (it->nbasis == 1) PetscCall(PetscSNPrintf(name, len, "jet_amplitude[%" PetscInt_FMT "]", q));
    else PetscCall(PetscSNPrintf(name, len, "jet_amplitude[%" PetscInt_FMT "][%" PetscInt_FMT "]", q / it->nbasis, q % it->nbasis));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetParameterSupport - whether the derivative with respect to parameter i of body b is
  exact (PETSC_FALSE: the shape and rotation of a non-round body with jets, whose jet normals
  would need second derivatives of the level set).
@*/
PetscErrorCode FGBodiesGetParameterSupport(FGBodies B, PetscInt b, PetscInt i, PetscBool *ok)
{
  const FGBodyItem *it = &B->b[b];

  PetscFunctionBeginUser;
  *ok = (PetscBool)(it->bc->n_jets == 0 || FG_JET_EXACT(it) || i >= it->np + it->nbasis);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesGetParameters - theta_b of body b (at t = 0).
@*/
PetscErrorCode FGBodiesGetParameters(FGBodies B, PetscInt b, PetscReal theta[])
{
  FGBodyItem *it = &B->b[b];
  PetscReal   p[FG_SHAPE_MAX_PARAMS];

  PetscFunctionBeginUser;
  if (it->dens) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGShapeGetParameters(it->shape, p));
  for (PetscInt d = 0; d < B->g->dim; d++) p[d] = it->bc->position[d] + it->dpos[d];
  p[B->g->dim] = it->angle0;
  for (PetscInt i = 0; i < it->np; i++) theta[i] = p[i];
  for (PetscInt k = 0; k < it->nbasis; k++) {
    theta[it->np + k] = it->ratec[k];
    for (PetscInt j = 0; j < it->bc->n_jets; j++) theta[it->np + it->nbasis * (1 + j) + k] = it->jetc[j][k];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesSetParameters - set theta_b of body b and rebuild its mask at t = 0 (collective: the
  inside-the-domain check). Errors (an invalid shape) are FG_ERR_INPUT naming the body.
@*/
PetscErrorCode FGBodiesSetParameters(FGBodies B, PetscInt b, const PetscReal theta[])
{
  FGBodyItem    *it  = &B->b[b];
  const PetscInt dim = B->g->dim;
  PetscReal      p[FG_SHAPE_MAX_PARAMS];
  char           msg[1024];
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  if (it->dens) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < it->np; i++) p[i] = theta[i];
  for (PetscInt d = 0; d < dim; d++) it->dpos[d] = theta[d] - it->bc->position[d];
  it->angle0 = theta[dim];
  for (PetscInt k = 0; k < it->nbasis; k++) {
    it->ratec[k] = theta[it->np + k];
    for (PetscInt j = 0; j < it->bc->n_jets; j++) it->jetc[j][k] = theta[it->np + it->nbasis * (1 + j) + k];
  }
  it->moving = FGBodyMoves_Private(it->bc, FGBodyRateZero_Private(it) ? 0.0 : 1.0);
  PetscCall(FGErrorCapturePush(msg, sizeof(msg)));
  ierr = FGShapeSetParameters(it->shape, p);
  if (!ierr) ierr = FGShapeValidate(it->shape);
  PetscCall(FGErrorCapturePop());
  PetscCheck(!ierr, B->g->comm, FG_ERR_INPUT, "%s: with the design's parameters: %s", it->bc->where, msg);
  FGBodyForgetPlacements_Private(it);
  PetscCall(FGBodyBuild_Private(B, it, 0.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* chi and u_s (component a) of listed face f of body it at time t (the body placed at t), and
   their derivatives with respect to theta_b (dchi, dus of FG_BODY_NTHETA entries). The rotation
   enters through Omega(t) = sum_k c_k phi_k(t) (the rigid velocity) and through the angle
   int_0^t Omega = sum_k c_k Phi_k(t) (a non-round mask, the jets' footprint): each coefficient c_k
   gets phi_k(t) times the first part and Phi_k(t) times the second. */
typedef struct {
  PetscReal xc[3], V[3], th, om, bphi[FG_MAX_TIME_BASIS], bPhi[FG_MAX_TIME_BASIS];
} FGBodyAt;

/* A body's motion and the controls' basis at time t (FGBodyState_Private, FGTimeBasis), once for
   all its faces. */
static void FGBodyAt_Private(const FGBodyItem *it, PetscInt dim, PetscReal t, FGBodyAt *at)
{
  FGBodyState_Private(it, dim, t, at->xc, at->V, &at->th, &at->om);
  FGTimeBasis(it->nbasis, it->T, t, at->bphi, at->bPhi);
}

/* at: the body at t (FGBodyAt_Private). phi and grad phi are the face list's (the same evaluation
   at the same placement); d phi/d theta is evaluated only where something multiplies it: in the
   band of chi (H' != 0) or of the jets. Elsewhere every term it enters is a product with an exact
   zero, so it is left 0. */
static PetscErrorCode FGBodyFaceLinearize_Private(FGBodies B, FGBodyItem *it, PetscInt a, PetscInt f, PetscReal t, const FGBodyAt *at, PetscReal *dchi, PetscReal *dus)
{
  const FGBodyCase *bc = it->bc;
  const PetscInt    dim = B->g->dim, np = it->np, nj = bc->n_jets, nb = it->nbasis, nt = FG_BODY_NTHETA(it);
  const PetscReal  *x   = it->f[a].x + 3 * f, *G = it->f[a].geo + 6 * f;
  const PetscReal   sa  = it->airfoil ? -1.0 : 1.0; /* d(shape angle)/d(theta), theta the rotation angle */
  const PetscReal  *xc = at->xc, th = at->th, om = at->om, *bphi = at->bphi, *bPhi = at->bPhi;
  PetscReal         phi = G[0], gx[3] = {G[1], G[2], G[3]}, gp[FG_SHAPE_MAX_PARAMS], dH = G[4];
  PetscReal         chi_th, us_om = 0, us_th = 0; /* d chi / d theta, d u_s / d Omega, d u_s / d theta */

  PetscFunctionBeginUser;
  if (dH != 0 || (nj && PetscAbsReal((phi + it->shift) / it->eps) < 1)) PetscCall(FGShapeLevelSet(it->shape, x, &phi, gx, gp));
  else
    for (PetscInt k = 0; k < np; k++) gp[k] = 0;
  for (PetscInt i = 0; i < nt; i++) dchi[i] = dus[i] = 0;
  for (PetscInt k = 0; k < np; k++) dchi[k] = -dH * gp[k];
  chi_th = -dH * gp[dim] * sa; /* the shape angle is angle0 + sa theta(t) */
  /* rigid rotation Omega e_z x (x - x_c): d/d Omega, d/d x_c */
  if (a == 0) us_om = -(x[1] - xc[1]), dus[1] = om;
  if (a == 1) us_om = x[0] - xc[0], dus[0] = -om;
  if (nj) {
    const PetscReal W = bc->jet_width * PETSC_PI / 180, sig = FGJetSignal_Private(bc, t);
    const PetscReal r = (phi + it->shift) / it->eps, inband = PetscAbsReal(r) < 1 ? 1.0 : 0.0;
    const PetscReal w = inband * (1 - r * r) * (1 - r * r), dw = inband * (-4 * r * (1 - r * r) / it->eps); /* d w / d phi */
    const PetscReal thb = it->airfoil ? -(it->angle0 - th) : it->angle0 + th; /* body-frame angle */
    const PetscReal rx = x[0] - xc[0], ry = x[1] - xc[1], rr = rx * rx + ry * ry;
    const PetscReal psi = PetscAtan2Real(ry, rx) - thb;
    PetscReal       gn = 0, n[3] = {0, 0, 0}, dn[3] = {0, 0, 0}; /* n and d n_a / d x_c */
    for (PetscInt d = 0; d < dim; d++) gn += gx[d] * gx[d];
    gn = PetscSqrtReal(gn);
    for (PetscInt d = 0; d < dim; d++) n[d] = gn > 0 ? gx[d] / gn : 0;
    if (FG_JET_EXACT(it)) { /* n = (x - x_c)/|x - x_c|: d n_a / d x_c,k = -(delta_ak - n_a n_k)/|x - x_c|, over the
                               axes the level set depends on (an extruded circle in 3D: x and y only) */
      const PetscInt nd  = bc->shape == FG_BODY_CIRCLE ? 2 : dim;
      PetscReal      rho = 0;
      for (PetscInt d = 0; d < nd; d++) rho += (x[d] - xc[d]) * (x[d] - xc[d]);
      rho = PetscSqrtReal(rho);
      for (PetscInt k = 0; k < nd; k++) dn[k] = rho > 0 && a < nd ? -((a == k ? 1.0 : 0.0) - n[a] * n[k]) / rho : 0;
    }
    for (PetscInt j = 0; j < nj; j++) {
      PetscReal del = PetscFmodReal(psi - bc->jet_angles[j] * PETSC_PI / 180, 2 * PETSC_PI), c = 0, dc = 0;
      if (del > PETSC_PI) del -= 2 * PETSC_PI;
      if (del < -PETSC_PI) del += 2 * PETSC_PI;
      if (PetscAbsReal(del) < W / 2) {
        c  = PetscSqr(PetscCosReal(PETSC_PI * del / W));
        dc = -(PETSC_PI / W) * PetscSinReal(2 * PETSC_PI * del / W); /* d c / d psi */
      }
      {
        const PetscReal A = FGJetAmplitude_Private(it, j, bphi) * sig;
        /* shape parameters through phi (band weight), the placement through psi and n, the angle through psi */
        for (PetscInt k = 0; k < np; k++) dus[k] += A * c * dw * gp[k] * n[a];
        if (rr > 0) {
          dus[0] += A * dc * (ry / rr) * w * n[a];
          dus[1] += A * dc * (-rx / rr) * w * n[a];
        }
        for (PetscInt k = 0; k < dim; k++) dus[k] += A * c * w * dn[k];
        dus[dim] += A * dc * (-(it->airfoil ? -1.0 : 1.0)) * w * n[a];
        us_th += A * dc * (-1) * w * n[a]; /* psi = atan2 - theta_b, theta_b = +-angle0 + theta */
        for (PetscInt k = 0; k < nb; k++) dus[np + nb * (1 + j) + k] += bphi[k] * sig * c * w * n[a];
      }
    }
  }
  for (PetscInt k = 0; k < nb; k++) {
    dchi[np + k] = chi_th * bPhi[k];
    dus[np + k]  = us_om * bphi[k] + us_th * bPhi[k];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *s += chibar H'(-phi - delta) |grad phi| at x (the body placed at the current time): an outward
   normal displacement V_n of the level sets changes phi by -V_n |grad phi|, so chi by
   H' |grad phi| V_n. */
static inline void FGBodyAddSensitivity_Private(const FGFaceList *l, PetscInt f, PetscReal chibar, PetscScalar *s)
{
  const PetscReal *G = l->geo + 6 * f; /* H' and |grad phi| at the face, from the list's build */

  *s += chibar * G[4] * G[5];
}

static PetscErrorCode FGBodiesWork_Private(FGBodies B)
{
  PetscFunctionBeginUser;
  for (PetscInt a = 0; a < B->g->dim; a++)
    if (!B->W[a]) {
      PetscCall(VecDuplicate(B->K[a], &B->W[a]));
      PetscCall(VecDuplicate(B->K[a], &B->Z[a]));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* K and S of component a at time t into B->K[a], B->S[a] (and each listed face's u_s). */
static PetscErrorCode FGBodiesKS_Private(FGBodies B, PetscInt a, PetscReal t)
{
  const PetscInt dim = B->g->dim;
  PetscScalar   *K, *S;

  PetscFunctionBeginUser;
  PetscCall(VecSet(B->K[a], 0.0));
  PetscCall(VecSet(B->S[a], 0.0));
  PetscCall(VecGetArray(B->K[a], &K));
  PetscCall(VecGetArray(B->S[a], &S));
  for (PetscInt b = 0; b < B->nb; b++) {
    const FGBodyCase *bc = B->b[b].bc;
    FGFaceList       *l  = &B->b[b].f[a];
    PetscReal         xc[3], V[3], th, om, A[FG_CASE_MAX_JETS];
    FGBodyState_Private(&B->b[b], dim, t, xc, V, &th, &om);
    {
      PetscReal phi[FG_MAX_TIME_BASIS], Phi[FG_MAX_TIME_BASIS];
      FGTimeBasis(B->b[b].nbasis, B->b[b].T, t, phi, Phi);
      for (PetscInt j = 0; j < bc->n_jets; j++) A[j] = FGJetAmplitude_Private(&B->b[b], j, phi) * FGJetSignal_Private(bc, t);
    }
    for (PetscInt f = 0; f < l->n; f++) {
      const PetscReal *x = l->x + 3 * f, k = l->chi[f] / bc->eta;
      PetscReal        us = V[a] + (a == 0 ? -om * (x[1] - xc[1]) : a == 1 ? om * (x[0] - xc[0]) : 0.0);
      for (PetscInt j = 0; j < bc->n_jets; j++) us += A[j] * l->jet[bc->n_jets * f + j] * l->nrm[3 * f + a];
      l->us[f] = us;
      K[l->off[f]] += k;
      S[l->off[f]] += k * us;
    }
  }
  PetscCall(VecRestoreArray(B->K[a], &K));
  PetscCall(VecRestoreArray(B->S[a], &S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGBodiesPenalizeTangent - the tangent of FGBodiesPenalize at the predicted velocity ustar (its
  input, global Vecs): du holds d(u*) on entry and d(u**) on return, for the parameter
  perturbations dtheta[b] (theta_b layout; NULL: none) and, for density bodies, dchif[b][a]
  (the perturbation of the face mask of component a; NULL: none). With dacc non-NULL,
  dacc[6 b + m] += the stage's (gamma-weighted, local) force and moment perturbations.
@*/
PetscErrorCode FGBodiesPenalizeTangent(FGBodies B, PetscReal t, PetscReal gamma, PetscReal dt, Vec ustar[], const PetscReal *const dtheta[], Vec *const dchif[], Vec du[], PetscReal dacc[])
{
  const PetscInt  dim = B->g->dim;
  const PetscReal gdt = gamma * dt;
  PetscReal       dchi[FG_BODY_MAX_PARAMS], dus[FG_BODY_MAX_PARAMS];

  PetscFunctionBeginUser;
  if (!B || !B->nb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_BodyPenalizeTangent, 0, 0, 0, 0));
  PetscCall(FGBodiesWork_Private(B));
  for (PetscInt b = 0; b < B->nb; b++)
    PetscCall(FGBodyPlace_Private(B, &B->b[b], t));
  for (PetscInt a = 0; a < dim; a++) {
    PetscScalar       *dK, *dS, *d;
    const PetscScalar *K, *S, *us0;
    PetscInt           nloc;
    PetscCall(FGBodiesKS_Private(B, a, t));
    PetscCall(VecSet(B->W[a], 0.0));
    PetscCall(VecSet(B->Z[a], 0.0));
    PetscCall(VecGetArrayRead(B->K[a], &K));
    PetscCall(VecGetArrayRead(B->S[a], &S));
    PetscCall(VecGetArrayRead(ustar[a], &us0));
    PetscCall(VecGetArray(B->W[a], &dK));
    PetscCall(VecGetArray(B->Z[a], &dS));
    PetscCall(VecGetArray(du[a], &d));
    /* dK, dS, and the force perturbation (which needs u** and d(u**): done after the update) */
    for (PetscInt b = 0; b < B->nb; b++) {
      FGBodyItem        *it = &B->b[b];
      FGFaceList        *l  = &it->f[a];
      const PetscScalar *dcf = NULL;
      const PetscInt     nt  = it->dens ? 0 : FG_BODY_NTHETA(it);
      FGBodyAt           at;
      FGBodyAt_Private(it, dim, t, &at);
      if (it->dens && dchif && dchif[b]) PetscCall(VecGetArrayRead(dchif[b][a], &dcf));
      for (PetscInt f = 0; f < l->n; f++) {
        PetscReal dc = 0, du_s = 0;
        if (nt && dtheta && dtheta[b]) {
          PetscCall(FGBodyFaceLinearize_Private(B, it, a, f, t, &at, dchi, dus));
          for (PetscInt i = 0; i < nt; i++) dc += dchi[i] * dtheta[b][i], du_s += dus[i] * dtheta[b][i];
        }
        if (dcf) dc += PetscRealPart(dcf[l->off[f]]);
        dK[l->off[f]] += dc / it->bc->eta;
        dS[l->off[f]] += (dc * l->us[f] + l->chi[f] * du_s) / it->bc->eta;
      }
      if (dcf) PetscCall(VecRestoreArrayRead(dchif[b][a], &dcf));
    }
    PetscCall(VecGetLocalSize(du[a], &nloc));
    for (PetscInt i = 0; i < nloc; i++) {
      if (K[i] != 0) {
        const PetscReal den = 1 + gdt * K[i], uss = (us0[i] + gdt * S[i]) / den;
        d[i]                = (d[i] + gdt * dS[i] - gdt * uss * dK[i]) / den;
      } else { /* the denominator is 1 exactly: the same values without the two divisions */
        const PetscReal uss = us0[i] + gdt * S[i];
        d[i]                = d[i] + gdt * dS[i] - gdt * uss * dK[i];
      }
    }
    if (dacc)
      for (PetscInt b = 0; b < B->nb; b++) {
        FGBodyItem        *it = &B->b[b];
        FGFaceList        *l  = &it->f[a];
        const PetscScalar *dcf = NULL;
        const PetscInt     nt  = it->dens ? 0 : FG_BODY_NTHETA(it);
        PetscReal          xc[3], V[3], th, om;
        FGBodyAt           at;
        FGBodyState_Private(it, dim, t, xc, V, &th, &om);
        FGBodyAt_Private(it, dim, t, &at);
        if (it->dens && dchif && dchif[b]) PetscCall(VecGetArrayRead(dchif[b][a], &dcf));
        for (PetscInt f = 0; f < l->n; f++) {
          const PetscInt   o   = l->off[f];
          const PetscReal *x   = l->x + 3 * f;
          const PetscReal  uss = (us0[o] + gdt * S[o]) / (1 + gdt * K[o]), eta = it->bc->eta;
          PetscReal        dc = 0, du_s = 0, dxc[3] = {0, 0, 0}, fa, dfa;
          if (nt && dtheta && dtheta[b]) {
            PetscCall(FGBodyFaceLinearize_Private(B, it, a, f, t, &at, dchi, dus));
            for (PetscInt i = 0; i < nt; i++) dc += dchi[i] * dtheta[b][i], du_s += dus[i] * dtheta[b][i];
            for (PetscInt k = 0; k < dim; k++) dxc[k] = dtheta[b][k];
          }
          if (dcf) dc += PetscRealPart(dcf[o]);
          fa  = l->chi[f] / eta * (uss - l->us[f]) * B->dV;
          dfa = (dc * (uss - l->us[f]) + l->chi[f] * (PetscRealPart(d[o]) - du_s)) / eta * B->dV;
          dacc[6 * b + a] += gamma * dfa;
          for (PetscInt m = 0; m < 3; m++) {
            PetscInt i1 = (m + 1) % 3, i2 = (m + 2) % 3;
            if (a == i2) dacc[6 * b + 3 + m] += gamma * ((x[i1] - xc[i1]) * dfa - dxc[i1] * fa);
            if (a == i1) dacc[6 * b + 3 + m] -= gamma * ((x[i2] - xc[i2]) * dfa - dxc[i2] * fa);
          }
        }
        if (dcf) PetscCall(VecRestoreArrayRead(dchif[b][a], &dcf));
      }
    PetscCall(VecRestoreArray(du[a], &d));
    PetscCall(VecRestoreArray(B->Z[a], &dS));
    PetscCall(VecRestoreArray(B->W[a], &dK));
    PetscCall(VecRestoreArrayRead(ustar[a], &us0));
    PetscCall(VecRestoreArrayRead(B->S[a], &S));
    PetscCall(VecRestoreArrayRead(B->K[a], &K));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_BodyPenalizeTangent, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The adjoint of listed face f's stage force fa = chi/eta (u** - u_s) dV and its moment about x_c,
   weighted by gamma, for the accumulator weights w (6 per body): fb = dJ/dfa, and the parts of
   the adjoints of chi, u_s and x_c through fa and r = x - x_c. */
static inline void FGBodyForceAdjoint_Private(FGBodies B, const FGBodyItem *it, PetscInt a, PetscInt f, const PetscReal xc[], PetscReal gamma, PetscReal gdt, const PetscScalar *K, const PetscScalar *S, const PetscScalar *us0, const PetscReal w[], PetscReal *fb, PetscReal *cbf, PetscReal *usb, PetscReal xcb[3])
{
  const FGFaceList *l   = &it->f[a];
  const PetscInt    o   = l->off[f];
  const PetscReal  *x   = l->x + 3 * f, eta = it->bc->eta;
  const PetscReal   uss = PetscRealPart((us0[o] + gdt * S[o]) / (1 + gdt * K[o]));
  const PetscReal   fa  = l->chi[f] / eta * (uss - l->us[f]) * B->dV;
  PetscReal         g   = w[a];

  for (PetscInt m = 0; m < 3; m++) xcb[m] = 0;
  for (PetscInt m = 0; m < 3; m++) {
    PetscInt i1 = (m + 1) % 3, i2 = (m + 2) % 3;
    if (a == i2) g += w[3 + m] * (x[i1] - xc[i1]), xcb[i1] -= w[3 + m] * fa;
    if (a == i1) g -= w[3 + m] * (x[i2] - xc[i2]), xcb[i2] += w[3 + m] * fa;
  }
  g *= gamma;
  *fb  = g;
  *cbf = g * (uss - l->us[f]) / eta * B->dV;
  *usb = -g * l->chi[f] / eta * B->dV;
}

/*@C
  FGBodiesPenalizeAdjoint - the transpose of FGBodiesPenalizeTangent: ubar holds the adjoint of
  u** on entry and that of u* on return; wacc[6 b + m] (NULL: none) is the adjoint of the step's
  force and moment accumulators of body b (the same on every rank); thetabar[b] += the local part
  of the parameters' adjoint (NULL: not wanted); chibar[a] (NULL: not wanted) += the adjoint of
  the summed face masks; sens[a] (NULL: not wanted) += for shape bodies that adjoint times
  dchi/dn = H'(-phi - delta), the derivative of chi under an outward normal displacement of the
  surface (summed over the faces it is the derivative with respect to a uniform one, e.g. a
  circle's radius); and for density bodies chifbar[b][a] += the adjoint of their face masks.
@*/
PetscErrorCode FGBodiesPenalizeAdjoint(FGBodies B, PetscReal t, PetscReal gamma, PetscReal dt, Vec ustar[], const PetscReal wacc[], Vec ubar[], PetscReal *const thetabar[], Vec chibar[], Vec sens[], Vec *const chifbar[])
{
  const PetscInt  dim = B->g->dim;
  const PetscReal gdt = gamma * dt;
  PetscReal       dchi[FG_BODY_MAX_PARAMS], dus[FG_BODY_MAX_PARAMS];

  PetscFunctionBeginUser;
  if (!B || !B->nb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGOpsInitializePackage());
  PetscCall(PetscLogEventBegin(FG_EVENT_BodyPenalizeAdjoint, 0, 0, 0, 0));
  PetscCall(FGBodiesWork_Private(B));
  for (PetscInt b = 0; b < B->nb; b++)
    PetscCall(FGBodyPlace_Private(B, &B->b[b], t));
  for (PetscInt a = 0; a < dim; a++) {
    PetscScalar       *Kb, *Sb, *ub, *cb = NULL, *sb = NULL;
    const PetscScalar *K, *S, *us0;
    PetscInt           nloc;
    PetscCall(FGBodiesKS_Private(B, a, t));
    PetscCall(VecGetArrayRead(B->K[a], &K));
    PetscCall(VecGetArrayRead(B->S[a], &S));
    PetscCall(VecGetArrayRead(ustar[a], &us0));
    PetscCall(VecGetArray(B->W[a], &Kb));
    PetscCall(VecGetArray(B->Z[a], &Sb));
    PetscCall(VecGetArray(ubar[a], &ub));
    if (chibar) PetscCall(VecGetArray(chibar[a], &cb));
    if (sens) PetscCall(VecGetArray(sens[a], &sb));
    PetscCall(VecGetLocalSize(ubar[a], &nloc));
    /* 1. the forces fa = chi/eta (u** - u_s) dV (weighted by gamma): their adjoint adds to that of
          u** before the implicit update's adjoint divides it; their chi and u_s parts are added in 2 */
    if (wacc)
      for (PetscInt b = 0; b < B->nb; b++) {
        FGBodyItem *it = &B->b[b];
        FGFaceList *l  = &it->f[a];
        PetscReal   xc[3], V[3], th, om, fb, cbf, usb, xcb[3];
        FGBodyState_Private(it, dim, t, xc, V, &th, &om);
        for (PetscInt f = 0; f < l->n; f++) {
          FGBodyForceAdjoint_Private(B, it, a, f, xc, gamma, gdt, K, S, us0, wacc + 6 * b, &fb, &cbf, &usb, xcb);
          ub[l->off[f]] += fb * l->chi[f] / it->bc->eta * B->dV;
        }
      }
    /* 2. the implicit update u** = (u* + gdt S)/(1 + gdt K): the adjoints of K and S on the listed
          faces (the only ones 3 reads; a face two bodies list gets the same values twice), then
          ubar /= 1 + gdt K where K != 0 (elsewhere that is 1 exactly: ubar stays as it is) */
    for (PetscInt b = 0; b < B->nb; b++) {
      const FGFaceList *l = &B->b[b].f[a];
      for (PetscInt f = 0; f < l->n; f++) {
        const PetscInt  o   = l->off[f];
        const PetscReal den = 1 + gdt * K[o], uss = (us0[o] + gdt * S[o]) / den;
        Sb[o] = gdt * ub[o] / den;
        Kb[o] = -gdt * uss * ub[o] / den;
      }
    }
    for (PetscInt i = 0; i < nloc; i++)
      if (K[i] != 0) ub[i] = ub[i] / (1 + gdt * K[i]);
    /* 3. per face: chi and u_s adjoints of both parts, then one linearization */
    for (PetscInt b = 0; b < B->nb; b++) {
      FGBodyItem    *it = &B->b[b];
      FGFaceList    *l  = &it->f[a];
      const PetscInt nt = it->dens ? 0 : FG_BODY_NTHETA(it);
      PetscScalar   *cfb = NULL;
      PetscReal      xc[3], V[3], th, om;
      FGBodyAt       at;
      FGBodyState_Private(it, dim, t, xc, V, &th, &om);
      FGBodyAt_Private(it, dim, t, &at);
      if (it->dens && chifbar && chifbar[b]) PetscCall(VecGetArray(chifbar[b][a], &cfb));
      for (PetscInt f = 0; f < l->n; f++) {
        const PetscInt o   = l->off[f];
        PetscReal      cbf = (PetscRealPart(Kb[o]) + PetscRealPart(Sb[o]) * l->us[f]) / it->bc->eta;
        PetscReal      usb = PetscRealPart(Sb[o]) * l->chi[f] / it->bc->eta, xcb[3] = {0, 0, 0};
        if (wacc) {
          PetscReal fb, fc, fu;
          FGBodyForceAdjoint_Private(B, it, a, f, xc, gamma, gdt, K, S, us0, wacc + 6 * b, &fb, &fc, &fu, xcb);
          cbf += fc, usb += fu;
        }
        if (cb) cb[o] += cbf;
        if (sb && !it->dens) FGBodyAddSensitivity_Private(l, f, cbf, &sb[o]);
        if (cfb) cfb[o] += cbf;
        if (nt && thetabar && thetabar[b]) {
          PetscCall(FGBodyFaceLinearize_Private(B, it, a, f, t, &at, dchi, dus));
          for (PetscInt i = 0; i < nt; i++) thetabar[b][i] += dchi[i] * cbf + dus[i] * usb;
          for (PetscInt k = 0; k < dim; k++) thetabar[b][k] += gamma * xcb[k];
        }
      }
      if (cfb) PetscCall(VecRestoreArray(chifbar[b][a], &cfb));
    }
    if (chibar) PetscCall(VecRestoreArray(chibar[a], &cb));
    if (sens) PetscCall(VecRestoreArray(sens[a], &sb));
    PetscCall(VecRestoreArray(ubar[a], &ub));
    PetscCall(VecRestoreArray(B->Z[a], &Sb));
    PetscCall(VecRestoreArray(B->W[a], &Kb));
    PetscCall(VecRestoreArrayRead(ustar[a], &us0));
    PetscCall(VecRestoreArrayRead(B->S[a], &S));
    PetscCall(VecRestoreArrayRead(B->K[a], &K));
  }
  PetscCall(PetscLogEventEnd(FG_EVENT_BodyPenalizeAdjoint, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
