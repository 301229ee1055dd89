/* The bodies' private data and the functions the files of src/body/ share (include/fg/body.h):

     bodies.c          set-up from the case, parameters theta_b, density fields, getters
     motion.c          rigid motion, the controls' basis in time, jets' time factor
     mask.c            face lists (chi > 0), placements at a time (kept for reuse), density masks,
                       the combined cell mask for output
     penalize.c        the implicit penalization of a stage with its force, its tangent and its
                       adjoint (one linearization shared by both)
     diagnostics.c     the control-volume force balance and the Strouhal frequency (run between
                       steps, when asked for: never inside the step)
     actuator.c        body-force actuators (forward, tangent, adjoint) */
#ifndef FG_BODYIMPL_H
#define FG_BODYIMPL_H

#include <fg/body.h>
#include <fg/density.h>

/* The faces of one velocity component where a body's chi > 0. */
#define FG_FACE_GEO 30
/* A sharp wall's slots in geo: the derivative of chi in the level set at the face's 2 dim axis
   neighbours (index 2 d + side, side 1 the + neighbour; 0 where the neighbour is outside the
   body), minus their sum weighted by |grad phi| there, and the face's grid indices (FGBodySharpWeight_Internal). */
#define FG_GEO_SHARP_DNB  8
#define FG_GEO_SHARP_SENS 14
#define FG_GEO_SHARP_IDX  15
/* With quadratic ghosts (body.<body>.quadratic_ghost): phi at the neighbour inside of index 2 d + side
   where the face's quadratic ghost along d is on (0: off; the next face out lies inside too), and
   |grad phi| there (FGBodySharpGhostXi_Internal). */
#define FG_GEO_QPN 18
#define FG_GEO_QGN 24
typedef struct {
  PetscInt   n, cap;
  PetscInt  *off; /* offset in the owned (global Vec) array */
  PetscReal *x;   /* 3 coordinates per face */
  PetscReal *chi;
  PetscReal *vol; /* the face's control volume (FGGridVolume) */
  PetscReal *us;  /* 1 per face: u_s of this component at the last stage */
  PetscReal *nrm; /* 3 per face (jets, the normal penalization): outward unit normal */
  PetscReal *jet; /* n_jets per face (jets only): footprint times band weight */
  PetscReal *geo; /* FG_FACE_GEO per face (shape bodies): phi, grad phi (3), H'(-phi - delta), |grad phi| where
                     the list was built, as FGShapeLevelSet gives them there (the linearization's); with
                     the normal penalization (normal.c) chi_n and d chi_n / d(-phi); with a sharp
                     wall the slots from FG_GEO_SHARP_DNB */
} FGFaceList;

/* The faces where a body's apertures are < 1 or vary (aperture.c), of one velocity component:
   each face's owned offset, grid indices and position, its factor A and dA/dphi at the
   FG_APERTURE_POINTS points it reads (the face; its two neighbours along each tangential axis). */
#define FG_APERTURE_POINTS 5
typedef struct {
  PetscInt   n, cap;
  PetscInt  *off, *idx;
  PetscReal *x, *A, *dA;
} FGApertureList;

/* The rows of a line-flux continuity's W (lineflux.c) of one velocity component: each row's body,
   global index, owned offset and (up to) 3 global columns (-1: none; column k the k-th face along
   the line outwards), and W's derivative there: dW_k / dphi(y_p) at FG_LF_POINTS points y_p
   (the wall's root, four points around it for its normal, the aperture's five), with the shape's
   dphi/dtheta and |grad phi| at each (kept: the tangent and adjoint steps read them every step). */
#define FG_LF_POINTS 10
typedef struct {
  PetscInt   n, cap, ns; /* ns: the values kept per point, the bodies' largest np + 1 */
  PetscInt  *body, *row, *off, *col;
  PetscReal *s, *w; /* per row: ns FG_LF_POINTS values (point p: dphi/dtheta, then |grad phi|), and w[3 p + k] */
} FGLineFluxList;

/* The shared ghost's design derivative (ghost.c) of one body and velocity component, one entry per
   listed face in the list's order: the face's level-set points (npt, from po in the point pools)
   with dchi/dphi there (wchi), the shape's dphi/dtheta and |grad phi| there (sv, ns = np + 1 per
   point); its explicit term's global row and columns (nc, from co in col) and dX_k/dphi_p (wx,
   nc npt from xo, column-major in the points). */
typedef struct {
  PetscInt   n, cap, ns;
  PetscInt  *npt, *po, *nc, *co, *xo, *row;
  PetscInt   pn, pcap, cn, ccap, xn, xcap; /* the pools' use and sizes */
  PetscInt  *col;
  PetscReal *wchi, *sv, *wx;
} FGSharedList;

/* A body's placement at one time, kept for reuse (FGBodyPlace_Internal): the adjoint step places
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
  PetscReal         h, eps, shift, reach, angle0; /* the mask's spacing; band half-width and centre (phi = -shift); how far outside
                                                   the bounding box chi may be > 0; the shape's angle at t = 0 (radians) */
  PetscBool         bspline; /* the mask's profile: the cubic B-spline's integral (else the quintic FGHeaviside) */
  PetscBool         sharp;   /* a sharp wall (wall: sharp; FGBodySharpWeight_Internal) */
  PetscReal         nu;      /* the case's viscosity (a sharp wall's penalty is proportional to it) */
  PetscReal         skin_n, depth_n; /* normal penalization (normal.c): eta / eta_n (0: none); the normal band's centre below the skin's */
  PetscReal         skin, core; /* soft skin (skin > 0): chi = skin G_eps(s) + G_h(s - core), skin = eta / eta_s (FGBodyMaskWeight_Internal) */
  PetscReal         skinauto, skinripple; /* soft skin: FGBodySkinOffset's band centre and ripple, in cells */
  PetscReal         corefrac; /* soft skin: the stiff core's volume over the shape's (a thin body: < 1/2) */
  FGBodyWallGaps    gaps;     /* a sharp wall: where the body is thinner than a cell (FGBodySharpWeight_Internal) */
  FGFaceList        f[3];
  PetscReal         tbuilt;
  PetscInt          boxlo[3], boxhi[3]; /* control volume around the body as last placed, cells [lo, hi) */
  PetscBool         boxwhole[3];        /* the box spans a periodic direction whole: no faces there */
  PetscInt          cvlo[3], cvhi[3];   /* the box of the step being checked (frozen by FGBodiesControlVolumeBegin) */
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
  FGApertureList    ap[3];  /* a sharp wall's apertures (body.<body>.apertures; aperture.c) */
  FGSharedList      sg[3];  /* its shared ghost's design derivative (body.<body>.shared_ghost; ghost.c) */
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
  PetscBool         normal;     /* some body penalizes the normal velocity (normal.c) */
  Vec               X[3], D[3], R[3]; /* its work (made on first use): the penalized velocity, the diagonal, a sum */
  PetscReal         dV;
  PetscBool         apertures;          /* some body has apertures (aperture.c) */
  PetscBool         ghost;              /* some body has quadratic ghosts (FGBodySharpGhostXi_Internal) */
  Vec               A[3], Al[3], dA[3]; /* their product over the bodies (global, ghosted), and work */
  PetscBool         lineflux;           /* some body has the line-flux continuity (lineflux.c) */
  Mat               Wm[3], dWm[3];      /* its W - I per velocity component, and W's tangent (same pattern) */
  Mat               Wone[3], Wbar[3], Wt[3]; /* W's pattern with ones; the adjoint of W's entries; work */
  FGLineFluxList    lf[3];              /* its rows' design derivatives per component */
  PetscBool         shared;             /* some body has the shared ghost (ghost.c) */
  Mat               Xm[3], Xone[3], dXm[3], Xt[3]; /* its explicit term's coefficients per velocity component; their pattern with ones; their tangent; work */
  Vec               Eg[3], Ug[3], dEg[3]; /* work: the term, an owned velocity, the term's tangent */
};

#define FG_JET_EXACT(it)   ((it)->bc->shape == FG_BODY_CIRCLE || (it)->bc->shape == FG_BODY_SPHERE)
#define FG_BODY_NTHETA(it) ((it)->np + (it)->nbasis * (1 + (it)->bc->n_jets)) /* shape, rate, jets */

/* The time factor of a body's jets: cos(2 pi f t), or 1 when steady. */
static inline PetscReal FGJetSignal_Internal(const FGBodyCase *bc, PetscReal t)
{
  return bc->jet_frequency > 0 ? PetscCosReal(2 * PETSC_PI * bc->jet_frequency * t) : 1.0;
}

/* A jet's amplitude A_j(t) (without the signal cos(2 pi f t)): sum_k c_jk phi_k(t). */
static inline PetscReal FGJetAmplitude_Internal(const FGBodyItem *it, PetscInt j, const PetscReal phi[])
{
  PetscReal A = 0;
  for (PetscInt k = 0; k < it->nbasis; k++) A += it->jetc[j][k] * phi[k];
  return A;
}

/* penalize.c: a body's motion and the controls' basis at one time; the pieces the normal penalization shares */
typedef struct {
  PetscReal xc[3], V[3], th, om, bphi[FG_MAX_TIME_BASIS], bPhi[FG_MAX_TIME_BASIS];
} FGBodyAt;
PETSC_INTERN void           FGBodyAt_Internal(const FGBodyItem *, PetscInt, PetscReal, FGBodyAt *);
PETSC_INTERN PetscErrorCode FGBodyFaceLinearize_Internal(FGBodies, FGBodyItem *, PetscInt, PetscInt, PetscReal, const FGBodyAt *, const PetscReal *, PetscReal *, PetscReal *, PetscReal *);
PETSC_INTERN PetscErrorCode FGBodiesKS_Internal(FGBodies, PetscInt, PetscReal);
PETSC_INTERN PetscErrorCode FGBodiesWork_Internal(FGBodies);

/* aperture.c */
PETSC_INTERN PetscErrorCode FGBodiesApertureBuild_Internal(FGBodies);
PETSC_INTERN PetscErrorCode FGApertureListFree_Internal(FGApertureList *);
PETSC_INTERN PetscErrorCode FGBodyApertureAt_Internal(FGGrid, FGShape, PetscInt, const PetscInt[], const PetscReal[], PetscReal, const PetscReal[], PetscReal *, PetscReal[], PetscReal[][3]);
PETSC_INTERN PetscErrorCode FGBodiesLineFluxBuild_Internal(FGBodies);
PETSC_INTERN PetscErrorCode FGLineFluxListFree_Internal(FGLineFluxList *);
PETSC_INTERN PetscErrorCode FGBodySharedGhostChi_Internal(FGBodies, FGBodyItem *, PetscInt, const PetscInt[], const PetscReal[], PetscReal *);
PETSC_INTERN PetscErrorCode FGBodiesSharedGhostBuild_Internal(FGBodies);
PETSC_INTERN PetscErrorCode FGBodiesSharedGhostApply_Internal(FGBodies, PetscInt, Vec, Vec);
PETSC_INTERN PetscErrorCode FGBodiesSharedGhostApplyTranspose_Internal(FGBodies, PetscInt, Vec, Vec);
PETSC_INTERN PetscErrorCode FGBodiesSharedGhostTangentAdd_Internal(FGBodies, PetscInt, Vec, PetscReal *const[], Vec);
PETSC_INTERN PetscErrorCode FGBodiesSharedGhostAdjointAdd_Internal(FGBodies, PetscInt, Vec, Vec, PetscReal *const[], Vec);
PETSC_INTERN void           FGBodySharedGhostDchi_Internal(const FGBodyItem *, PetscInt, PetscInt, PetscReal[]);
PETSC_INTERN PetscErrorCode FGSharedListFree_Internal(FGSharedList *);

/* normal.c */
PETSC_INTERN PetscErrorCode FGBodyNormal_Internal(const FGBodyItem *, PetscInt, const PetscReal[], const PetscReal[], PetscReal[3]);
PETSC_INTERN PetscErrorCode FGBodiesPenalizeNormal_Internal(FGBodies, PetscReal, PetscReal, PetscReal, Vec[]);
PETSC_INTERN PetscErrorCode FGBodiesPenalizeTangentNormal_Internal(FGBodies, PetscReal, PetscReal, PetscReal, Vec[], PetscReal *const[], Vec (*)[3], Vec[], PetscReal[]);
PETSC_INTERN PetscErrorCode FGBodiesPenalizeAdjointNormal_Internal(FGBodies, PetscReal, PetscReal, PetscReal, Vec[], const PetscReal[], Vec[], PetscReal *const[], Vec[], Vec[], Vec (*)[3]);

/* motion.c */
PETSC_INTERN PetscBool FGBodyRateZero_Internal(const FGBodyItem *);
PETSC_INTERN PetscBool FGBodyMoves_Internal(const FGBodyCase *, PetscReal);
PETSC_INTERN void      FGBodyState_Internal(const FGBodyItem *, PetscInt, PetscReal, PetscReal[3], PetscReal[3], PetscReal *, PetscReal *);

/* mask.c */
PETSC_INTERN void           FGBodyMaskProfile_Internal(PetscBool, PetscReal, PetscReal, PetscReal *, PetscReal *);
PETSC_INTERN void           FGBodyMaskWeight_Internal(const FGBodyItem *, PetscReal, PetscReal *, PetscReal *);
PETSC_INTERN PetscErrorCode FGBodySharpWeight_Internal(FGBodies, FGBodyItem *, PetscInt, const PetscInt[], const PetscReal[], PetscReal, PetscReal *, PetscReal *, PetscBool *);
PETSC_INTERN void           FGBodyFaceRange_Internal(FGBodies, PetscInt, const PetscReal[], const PetscReal[], PetscInt[3], PetscInt[3]);
PETSC_INTERN void           FGBodySharpGhostXi_Internal(FGBodies, const FGBodyItem *, PetscInt, PetscInt, PetscInt, PetscReal *, PetscReal *, PetscReal *, PetscInt *);
PETSC_INTERN void           FGBodySharpNeighbour_Internal(FGGrid, PetscInt, const PetscInt[], PetscInt, PetscInt, const PetscReal[], PetscReal[]);
PETSC_INTERN PetscErrorCode FGBodyBuild_Internal(FGBodies, FGBodyItem *, PetscReal);
PETSC_INTERN PetscErrorCode FGBodyPlace_Internal(FGBodies, FGBodyItem *, PetscReal);
PETSC_INTERN void           FGBodyForgetPlacements_Internal(FGBodyItem *);
PETSC_INTERN PetscErrorCode FGBodyPlacementFree_Internal(FGBodyPlacement *);
PETSC_INTERN PetscErrorCode FGFaceListFree_Internal(FGFaceList *);
PETSC_INTERN PetscErrorCode FGBodyDensityMasks_Internal(FGBodies, FGBodyItem *);

#endif
