/*
  The table of case-file keys: the one place that says which keys exist, their types, defaults,
  ranges and documentation, and where each is stored in FGCase. The parser accepts exactly these
  keys; --set, validation, the resolved YAML and the Markdown docs (FGCasePrintKeys) all read
  this table. See caseimpl.h for how to add a key.
*/
#include "caseimpl.h"
#include <stddef.h>
#include <string.h>

const char *const FGBCKindNames[]        = {"periodic", "wall", "lid", "slip", "inflow", "outflow", "FGBCKind", "FG_BC_", NULL};
const char *const FGProfileNames[]       = {"uniform", "parabolic", "exact", "FGProfile", "FG_PROFILE_", NULL};
const char *const FGViscousSchemeNames[] = {"auto", "explicit", "implicit", "FGViscousScheme", "FG_VISCOUS_", NULL};
const char *const FGMaskProfileNames[]   = {"quintic", "bspline", "FGMaskProfile", "FG_MASK_", NULL};
const char *const FGWallModelNames[]     = {"band", "sharp", "FGWallModel", "FG_WALL_", NULL};
const char *const FGPoissonTypeNames[]   = {"fftw", "ksp", "FGPoissonType", "FG_POISSON_", NULL};
const char *const FGInitialTypeNames[]   = {"rest", "uniform", "taylor_green", "abc", "kovasznay", "file", "FGInitialType", "FG_IC_", NULL};
const char *const FGBodyShapeNames[]     = {"circle", "ellipse", "fourier", "naca", "cst", "bspline", "sphere", "ellipsoid", "density", "FGBodyShape", "FG_BODY_", NULL};
const char *const FGObjectiveKindNames[] = {"drag", "lift", "side", "moment", "neg_lift_drag", "pressure_drop", "kinetic_energy", "enstrophy", "probe_tracking", "control_cost", "field_tracking", "dissipation", "FGObjectiveKind", "FG_OBJ_", NULL};
const char *const FGObjectiveTimeNames[] = {"average", "final", "instant", "FGObjectiveTime", "FG_OBJ_TIME_", NULL};
const char *const FGObjectiveStatisticNames[] = {"value", "square", "variance", "FGObjectiveStatistic", "FG_OBJ_STAT_", NULL};
const char *const FGAdjointModeNames[]    = {"unsteady", "steady", "FGAdjointMode", "FG_ADJOINT_", NULL};
const char *const FGAdjointStorageNames[] = {"auto", "ram", "disk", "FGAdjointStorage", "FG_STORAGE_", NULL};
const char *const FGConstraintKindNames[]  = {"area", "volume", "centroid", "thickness", "volume_fraction", "lift", "drag", "moment", "FGConstraintKind", "FG_CON_", NULL};
const char *const FGRelationNames[]        = {"eq", "ge", "le", "FGRelation", "FG_REL_", NULL};
const char *const FGPhaseNames[]           = {"fluid", "solid", "FGPhase", "FG_PHASE_", NULL};
const char *const FGOptimizerTypeNames[]   = {"auto", "blmvm", "bqnls", "bncg", "lmvm", "almm", "penalty", "FGOptimizerType", "FG_OPT_", NULL};
const char *const FGStretchTypeNames[]     = {"uniform", "band", "tanh", "faces", "file", "bodies", "FGStretchType", "FG_STRETCH_", NULL};
static const char *const FGFaceNames[6]  = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
static const char *const FGAxisKeyNames[3] = {"x", "y", "z"};

/* The families of instances (see caseimpl.h): the faces, fixed, first (a face key's axis and side
   follow from the face's index), then the instances the case file names. */
#define FG_NAMED(f, n, T) \
  .base = offsetof(FGCase, f), .stride = sizeof(T), .count = offsetof(FGCase, n), .name = offsetof(T, name), .where = offsetof(T, where), .wherelen = sizeof(((T *)0)->where)
static const FGKeyFamily FGCaseFamilies[] = {
  {.token = "<face>", .section = "boundary", .noun = "face", .plural = "faces", .fixed = FGFaceNames, .max = 6, .base = offsetof(FGCase, boundary), .stride = sizeof(FGBoundaryFace)},
  {.token = "<axis>", .section = "grid.stretch", .noun = "direction", .plural = "directions", .fixed = FGAxisKeyNames, .max = 3, .base = offsetof(FGCase, grid.stretch), .stride = sizeof(FGStretchCase)},
  {.token = "<body>", .section = "body", .noun = "body", .plural = "bodies", .max = FG_CASE_MAX_BODIES, FG_NAMED(body, nbodies, FGBodyCase)},
  {.token = "<probe>", .section = "probe", .noun = "probe", .plural = "probes", .max = FG_CASE_MAX_PROBES, FG_NAMED(probe, nprobes, FGProbeCase)},
  {.token = "<actuator>", .section = "actuator", .noun = "actuator", .plural = "actuators", .max = FG_CASE_MAX_ACTUATORS, FG_NAMED(actuator, nactuators, FGActuatorCase)},
  {.token = "<objective>", .section = "objective", .noun = "objective", .plural = "objectives", .max = FG_CASE_MAX_OBJECTIVES, FG_NAMED(objective, nobjectives, FGObjectiveCase)},
  {.token = "<constraint>", .section = "constraints", .noun = "constraint", .plural = "constraints", .max = FG_CASE_MAX_CONSTRAINTS, FG_NAMED(constraint, nconstraints, FGConstraintCase)},
  {.token = "<point>", .section = "points", .noun = "point", .plural = "points", .max = FG_CASE_MAX_CONDITIONS, FG_NAMED(point, npoints, FGPointCase)},
};
#define FG_NFAMILIES (sizeof(FGCaseFamilies) / sizeof(FGCaseFamilies[0]))

#define FG_AT(f)   .offset = offsetof(FGCase, f)
#define FG_STR(f)  .offset = offsetof(FGCase, f), .size = sizeof(((FGCase *)0)->f)
#define FG_FACE(f) .offset = offsetof(FGBoundaryFace, f)
#define FG_GT(a)   .min = (a), .minb = FG_BOUND_OPEN
#define FG_GE(a)   .min = (a), .minb = FG_BOUND_CLOSED
#define FG_BODY(f)     .offset = offsetof(FGBodyCase, f)
#define FG_BODY_STR(f) .offset = offsetof(FGBodyCase, f), .size = sizeof(((FGBodyCase *)0)->f)
/* a variable-length list of lo..hi entries, their number in the PetscInt n */
#define FG_BODY_LIST(f, n, lo, hi) .offset = offsetof(FGBodyCase, f), .count = offsetof(FGBodyCase, n), .minlen = (lo), .maxlen = (hi)
#define FG_PROBE(f)    .offset = offsetof(FGProbeCase, f)
#define FG_ACTUATOR(f) .offset = offsetof(FGActuatorCase, f)
#define FG_OBJ(f)      .offset = offsetof(FGObjectiveCase, f)
#define FG_OBJ_STR(f)  .offset = offsetof(FGObjectiveCase, f), .size = sizeof(((FGObjectiveCase *)0)->f)
#define FG_OBJ_LIST(f, n, lo, hi) .offset = offsetof(FGObjectiveCase, f), .count = offsetof(FGObjectiveCase, n), .minlen = (lo), .maxlen = (hi)
/* a variable-length list of strings f[hi][len] (the entries sizeof(f[0]) apart), their number in n,
   where each entry was given in w[hi][wlen] */
#define FG_STR_LIST(f, n, w, lo, hi) \
  .offset = offsetof(FGCase, f), .size = sizeof(((FGCase *)0)->f[0]), .count = offsetof(FGCase, n), .minlen = (lo), .maxlen = (hi), \
  .entry_where = offsetof(FGCase, w), .entry_wherelen = sizeof(((FGCase *)0)->w[0])

/* design.lower, ...: a list of 0..FG_CASE_MAX_DESIGN strings (numbers or a word) */
#define FG_DESIGN_TEXT(f, n) \
  .offset = offsetof(FGCase, design.f), .size = sizeof(((FGCase *)0)->design.f[0]), .count = offsetof(FGCase, design.n), .minlen = 0, .maxlen = FG_CASE_MAX_DESIGN
#define FG_CON(f)     .offset = offsetof(FGConstraintCase, f)
#define FG_CON_STR(f) .offset = offsetof(FGConstraintCase, f), .size = sizeof(((FGConstraintCase *)0)->f)
#define FG_CON_LIST(f, n, lo, hi) .offset = offsetof(FGConstraintCase, f), .count = offsetof(FGConstraintCase, n), .minlen = (lo), .maxlen = (hi)
#define FG_POINT(f)   .offset = offsetof(FGPointCase, f)
#define FG_STRETCH(f) .offset = offsetof(FGStretchCase, f)
#define FG_STRETCH_STR(f) .offset = offsetof(FGStretchCase, f), .size = sizeof(((FGStretchCase *)0)->f)
#define FG_STRETCH_LIST(f, n, lo, hi) .offset = offsetof(FGStretchCase, f), .count = offsetof(FGStretchCase, n), .minlen = (lo), .maxlen = (hi)

/* clang-format off */
static const FGKeyDef FGCaseKeys[] = {
  {.path = "name", .type = FG_KEY_STRING, FG_STR(name), FG_GE(1), .compute = FGCaseComputeName_Internal,
   .defdoc = "the file name without `.yaml`/`.yml`", .doc = "Case name (default output directory, metadata of output files)"},
  {.path = "description", .type = FG_KEY_STRING, FG_STR(description), .def = "", .multiline = PETSC_TRUE,
   .doc = "Free text, kept in the resolved case"},

  {.path = "grid.dim", .type = FG_KEY_INT, FG_AT(grid.dim), FG_GE(2), .max = 3, .maxb = FG_BOUND_CLOSED,
   .defdoc = "the length of `grid.cells`", .doc = "Number of dimensions; every list below has this many entries (x, y[, z])"},
  {.path = "grid.cells", .type = FG_KEY_INT, .list = PETSC_TRUE, FG_AT(grid.cells), .required = PETSC_TRUE,
   FG_GE(0), .max = 1048576, .maxb = FG_BOUND_CLOSED, .doc = "Cells per direction (at least 2); `0` for a direction whose `grid.stretch` type (`band`, `faces`, `file`) makes the count"},
  {.path = "grid.lengths", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_AT(grid.lengths), .required = PETSC_TRUE, FG_GT(0), .check = FGCaseCheckLengths_Internal,
   .doc = "Domain size per direction (each cell width `length/cells` within [1e-100, 1e100])"},
  {.path = "grid.origin", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_AT(grid.origin), .def = "0", .defdoc = "all `0`",
   .doc = "Lower corner of the domain"},
  {.path = "grid.periodic", .type = FG_KEY_BOOL, .list = PETSC_TRUE, FG_AT(grid.periodic), .def = "false", .defdoc = "all `false`",
   .doc = "Periodic directions (both faces of a periodic direction are `periodic`)"},
  {.path = "grid.stretch.<axis>.type", .type = FG_KEY_ENUM, .choices = FGStretchTypeNames, FG_STRETCH(type), .def = "uniform", .check = FGCaseCheckStretch_Internal,
   .doc = "How the faces along direction `<axis>` (`x`, `y`, `z`) are placed: `uniform`; `band` (a refined band at `h_min`, cells growing by at most `growth` to `h_max` outside it; the count follows); `tanh` (`grid.cells` cells clustered by a tanh map); `faces` (the list `faces`); `file` (a text file of face coordinates); `bodies` (a `band` around the bodies: their box as the case places them, widened by `margin` times its extent on either side). With `poisson.type: fftw` only the last direction (y in 2D, z in 3D) may be stretched"},
  {.path = "grid.stretch.<axis>.band", .type = FG_KEY_REAL, FG_STRETCH_LIST(band, nband, 2, 2), .required = PETSC_TRUE, .applies = FGCaseAppliesStretchBand_Internal,
   .doc = "`band`: the refined interval [a, b] (absolute coordinates, inside the domain)"},
  {.path = "grid.stretch.<axis>.h_min", .type = FG_KEY_REAL, FG_STRETCH(h_min), .required = PETSC_TRUE, FG_GT(0), .applies = FGCaseAppliesStretchBandOrBodies_Internal,
   .doc = "`band`, `bodies`: the spacing in the band (adjusted down so that whole cells fill it)"},
  {.path = "grid.stretch.<axis>.h_max", .type = FG_KEY_REAL, FG_STRETCH(h_max), .required = PETSC_TRUE, FG_GT(0), .applies = FGCaseAppliesStretchBandOrBodies_Internal,
   .doc = "`band`, `bodies`: the largest spacing, reached away from the band"},
  {.path = "grid.stretch.<axis>.growth", .type = FG_KEY_REAL, FG_STRETCH(growth), FG_GT(1), .max = 1.5, .maxb = FG_BOUND_CLOSED, .def = "1.05", .applies = FGCaseAppliesStretchBandOrBodies_Internal,
   .doc = "`band`, `bodies`: the largest ratio of neighbouring cell widths (1.02-1.1 keeps second order)"},
  {.path = "grid.stretch.<axis>.margin", .type = FG_KEY_REAL, FG_STRETCH(margin), FG_GE(0), .max = 100, .maxb = FG_BOUND_CLOSED, .def = "1", .applies = FGCaseAppliesStretchBodies_Internal,
   .doc = "`bodies`: how far the band reaches beyond the bodies' box on either side, in units of the box's extent along `<axis>` (1: the band is three times as wide as the bodies; clipped to the domain)"},
  {.path = "grid.stretch.<axis>.beta", .type = FG_KEY_REAL, FG_STRETCH(beta), .required = PETSC_TRUE, FG_GT(0), .max = 20, .maxb = FG_BOUND_CLOSED, .applies = FGCaseAppliesStretchTanh_Internal,
   .doc = "`tanh`: the strength of the clustering (larger: finer at the refined end(s))"},
  {.path = "grid.stretch.<axis>.cluster", .type = FG_KEY_ENUM, .choices = FGStretchClusterNames, FG_STRETCH(cluster), .def = "both", .applies = FGCaseAppliesStretchTanh_Internal,
   .doc = "`tanh`: refine at `both` ends, the `lower` or the `upper` one"},
  {.path = "grid.stretch.<axis>.faces", .type = FG_KEY_REAL, FG_STRETCH_LIST(faces, nfaces, 3, FG_CASE_MAX_FACES), .required = PETSC_TRUE, .applies = FGCaseAppliesStretchFaces_Internal,
   .doc = "`faces`: the face coordinates, increasing, from the origin to origin + length (at most 1025; more: `file`)"},
  {.path = "grid.stretch.<axis>.file", .type = FG_KEY_STRING, FG_STRETCH_STR(file), FG_GE(1), .required = PETSC_TRUE, .applies = FGCaseAppliesStretchFile_Internal,
   .doc = "`file`: a text file of face coordinates (numbers separated by white space; `#` starts a comment), increasing, from the origin to origin + length"},

  {.path = "flow.nu", .type = FG_KEY_REAL, FG_AT(flow.nu), FG_GT(0), .compute = FGCaseComputeNu_Internal, .excludes = "flow.re",
   .defdoc = "`u_ref*l_ref/re`", .doc = "Kinematic viscosity. Give `nu` or `re` (both only if they agree to 1e-12); a `--set` of one drops the other one from the file"},
  {.path = "flow.re", .type = FG_KEY_REAL, FG_AT(flow.re), FG_GT(0), .compute = FGCaseComputeRe_Internal, .check = FGCaseCheckRe_Internal,
   .excludes = "flow.nu", .defdoc = "`u_ref*l_ref/nu`", .doc = "Reynolds number `u_ref*l_ref/nu`"},
  {.path = "flow.u_ref", .type = FG_KEY_REAL, FG_AT(flow.u_ref), FG_GT(0), .def = "1", .doc = "Reference speed (for `re`)"},
  {.path = "flow.l_ref", .type = FG_KEY_REAL, FG_AT(flow.l_ref), FG_GT(0), .def = "1", .doc = "Reference length (for `re`)"},
  {.path = "flow.force", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_AT(flow.force), .def = "0", .defdoc = "all `0`",
   .doc = "Constant body force per unit mass (e.g. a pressure gradient driving a periodic channel)"},

  {.path = "time.dt", .type = FG_KEY_REAL, FG_AT(time.dt), FG_GT(0), .compute = FGCaseComputeDt_Internal, .excludes = "time.cfl", .defdoc = "from `cfl`",
   .doc = "Time step. Give `dt` or `cfl`"},
  {.path = "time.cfl", .type = FG_KEY_REAL, FG_AT(time.cfl), FG_GT(0), .check = FGCaseCheckCfl_Internal, .excludes = "time.dt",
   .doc = "Target CFL number: sets `dt = cfl / (u_ref sum_d 1/h_min,d)`, fixed for the run (the run's own CFL, printed as it goes, is larger where the flow is faster than `u_ref`)"},
  {.path = "time.viscous", .type = FG_KEY_ENUM, .choices = FGViscousSchemeNames, FG_AT(time.viscous), .def = "auto",
   .doc = "The viscous term: `explicit` (in the RK3 stages), `implicit` (Crank-Nicolson per stage: no viscous step limit; a Helmholtz solve per component and stage), or `auto`: implicit where `dt` exceeds the explicit term's stability limit (`flowgrad info` prints it)"},
  {.path = "time.steps", .type = FG_KEY_INT, FG_AT(time.steps), .required = PETSC_TRUE, FG_GE(0), .doc = "Number of time steps"},
  {.path = "time.cfl_max", .type = FG_KEY_REAL, FG_AT(time.cfl_max), FG_GT(0), .def = "1.5",
   .doc = "Blow-up guard: `run` stops (exit 3) when the CFL number `dt*max(sum(abs(u_d)/h_d))` exceeds this (RK3 with central advection is stable up to sqrt(3)), the forward runs of `adjoint`, `check` and `optimize` when it exceeds twice this (`optimize` then tries a shorter step: docs/optimization.md); faces that a body's penalization holds within a step (`dt*chi/eta >= 1`: inside it) do not count"},

  {.path = "initial.type", .type = FG_KEY_ENUM, .choices = FGInitialTypeNames, FG_AT(initial.type), .def = "rest", .check = FGCaseCheckInitialType_Internal,
   .doc = "Initial velocity: `rest`, `uniform`, `taylor_green` (2D), `abc` (3D), `kovasznay` (2D, steady, with `nu`), or `file` (a flowgrad fields file: its state, on this grid or interpolated from another grid of the same domain)"},
  {.path = "initial.velocity", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_AT(initial.velocity), .def = "0", .defdoc = "all `0`",
   .applies = FGCaseAppliesInitialVelocity_Internal, .doc = "`uniform` only: the velocity"},
  {.path = "initial.amplitude", .type = FG_KEY_REAL, FG_AT(initial.amplitude), .def = "1", .applies = FGCaseAppliesInitialAmplitude_Internal,
   .doc = "`taylor_green` and `abc` only: the velocity amplitude"},
  {.path = "initial.file", .type = FG_KEY_STRING, FG_STR(initial.file), FG_GE(1), .applies = FGCaseAppliesInitialFile_Internal,
   .defdoc = "required for `file`", .doc = "`file` only: the fields file (HDF5: `fields_*.h5`, `steady.h5`) holding u, v[, w] and, read where present, p; written on another grid of the same domain (e.g. a coarser run's steady state: grid sequencing), the fields are interpolated (multilinear) and the velocity projected"},

  {.path = "boundary.<face>.type", .type = FG_KEY_ENUM, .choices = FGBCKindNames, FG_FACE(kind),
   .compute = FGCaseComputeFaceType_Internal, .check = FGCaseCheckFaceType_Internal,
   .defdoc = "`periodic` on a periodic axis, else `wall`",
   .doc = "Boundary condition of face `<face>` = `x_lo`, `x_hi`, `y_lo`, `y_hi`, `z_lo`, `z_hi` (z faces only in 3D)"},
  {.path = "boundary.<face>.velocity", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_FACE(velocity), .def = "0", .defdoc = "all `0`",
   .check = FGCaseCheckFaceVelocity_Internal, .applies = FGCaseAppliesFaceVelocity_Internal,
   .doc = "`lid` and `inflow` faces only: wall velocity of a lid (normal component 0) or inflow velocity"},
  {.path = "boundary.<face>.profile", .type = FG_KEY_ENUM, .choices = FGProfileNames, FG_FACE(profile), .def = "uniform",
   .applies = FGCaseAppliesFaceProfile_Internal, .check = FGCaseCheckFaceProfile_Internal,
   .doc = "`inflow` faces only: `uniform` or `parabolic` (peak = `velocity`) across the face, or `exact`: the boundary values of the analytic `initial.type` (taylor_green, abc, kovasznay; for manufactured-solution runs)"},
  {.path = "boundary.<face>.modulation_amplitude", .type = FG_KEY_REAL, FG_FACE(modulation_amplitude), .def = "0",
   .applies = FGCaseAppliesFaceModulation_Internal,
   .doc = "`inflow` faces (not `exact`): time modulation U(t) = U (1 + A sin(2 pi f t)) of the inflow velocity; A = this"},
  {.path = "boundary.<face>.modulation_frequency", .type = FG_KEY_REAL, FG_FACE(modulation_frequency), FG_GE(0), .def = "0",
   .applies = FGCaseAppliesFaceModulation_Internal, .doc = "`inflow` faces (not `exact`): f of the time modulation (1/time)"},

  {.path = "poisson.type", .type = FG_KEY_ENUM, .choices = FGPoissonTypeNames, FG_AT(poisson.type), .def = "fftw",
   .doc = "Pressure Poisson solver: `fftw` (direct, FFT slabs) or `ksp` (CG + multigrid)"},
  {.path = "poisson.rtol", .type = FG_KEY_REAL, FG_AT(poisson.rtol), FG_GT(0), .max = 1, .maxb = FG_BOUND_OPEN, .def = "1e-10",
   .doc = "`ksp`: relative residual tolerance"},
  {.path = "poisson.max_it", .type = FG_KEY_INT, FG_AT(poisson.max_it), FG_GE(1), .def = "500", .doc = "`ksp`: iteration limit"},

  {.path = "body.<body>.shape", .type = FG_KEY_ENUM, .choices = FGBodyShapeNames, FG_BODY(shape), .required = PETSC_TRUE, .check = FGCaseCheckBodyShape_Internal,
   .doc = "Shape of body `<body>` (a name of your choice: an identifier of at most 31 characters; at most 8 bodies). In 3D the 2D shapes are extruded along z; `sphere` and `ellipsoid` are 3D only; `density` is a per-cell field read from a file"},
  {.path = "body.<body>.position", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_BODY(position), .required = PETSC_TRUE, .applies = FGCaseAppliesBodySolid_Internal,
   .doc = "Centre (`circle`, `ellipse`, `fourier`, `sphere`, `ellipsoid`), leading edge (`naca`, `cst`) or origin of the control points (`bspline`); not for `density`"},
  {.path = "body.<body>.angle", .type = FG_KEY_REAL, FG_BODY(angle), .def = "0", .applies = FGCaseAppliesBodySolid_Internal,
   .doc = "Rotation in degrees, counterclockwise about z through `position`; for `naca` and `cst`: the angle of attack (nose up)"},
  {.path = "body.<body>.radius", .type = FG_KEY_REAL, FG_BODY(radius), .required = PETSC_TRUE, FG_GT(0), .applies = FGCaseAppliesBodyRadius_Internal,
   .doc = "`circle`, `sphere`: the radius; `fourier`: r0 of r(theta) = r0 + sum over k of a_k cos(k theta) + b_k sin(k theta)"},
  {.path = "body.<body>.semi_axes", .type = FG_KEY_REAL, FG_BODY_LIST(semi_axes, n_semi_axes, 1, 3), .required = PETSC_TRUE, FG_GT(0),
   .applies = FGCaseAppliesBodySemiAxes_Internal, .check = FGCaseCheckBodySemiAxes_Internal,
   .doc = "`ellipse`: [a, b]; `ellipsoid`: [a, b, c]: the semi-axes along x, y[, z] before the rotation"},
  {.path = "body.<body>.fourier_cos", .type = FG_KEY_REAL, FG_BODY_LIST(fourier_cos, n_fourier, 0, FG_CASE_MAX_COEFFS), .def = "[]",
   .applies = FGCaseAppliesBodyFourier_Internal, .doc = "`fourier`: the cosine coefficients a_1, ..., a_K of r(theta)"},
  {.path = "body.<body>.fourier_sin", .type = FG_KEY_REAL, FG_BODY_LIST(fourier_sin, n_fourier, 0, FG_CASE_MAX_COEFFS), .def = "[]", .same_length = "fourier_cos",
   .applies = FGCaseAppliesBodyFourier_Internal, .doc = "`fourier`: the sine coefficients b_1, ..., b_K of r(theta), as many as `fourier_cos`"},
  {.path = "body.<body>.naca", .type = FG_KEY_STRING, FG_BODY_STR(naca), .required = PETSC_TRUE, FG_GE(1), .applies = FGCaseAppliesBodyNaca_Internal,
   .check = FGCaseCheckBodyNaca_Internal,
   .doc = "`naca`: the 4-digit code MPTT (e.g. `\"2412\"`): camber M % of the chord at P tenths of the chord (P 1-9 when M > 0), thickness TT % of the chord (01-40)"},
  {.path = "body.<body>.chord", .type = FG_KEY_REAL, FG_BODY(chord), FG_GT(0), .def = "1", .applies = FGCaseAppliesBodyChord_Internal,
   .doc = "`naca`, `cst`: the chord length"},
  {.path = "body.<body>.cst_upper", .type = FG_KEY_REAL, FG_BODY_LIST(cst_upper, n_cst, 1, FG_CASE_MAX_COEFFS), .required = PETSC_TRUE,
   .applies = FGCaseAppliesBodyCst_Internal, .doc = "`cst`: the CST (Kulfan) coefficients of the upper surface"},
  {.path = "body.<body>.cst_lower", .type = FG_KEY_REAL, FG_BODY_LIST(cst_lower, n_cst, 1, FG_CASE_MAX_COEFFS), .required = PETSC_TRUE, .same_length = "cst_upper",
   .applies = FGCaseAppliesBodyCst_Internal, .doc = "`cst`: the CST coefficients of the lower surface, as many as `cst_upper`"},
  {.path = "body.<body>.control_points", .type = FG_KEY_REAL, FG_BODY_LIST(control_points, n_points, 4, FG_CASE_MAX_POINTS), .tuple = 2, .required = PETSC_TRUE,
   .applies = FGCaseAppliesBodyBspline_Internal, .doc = "`bspline`: the control points `[[x, y], ...]` of the closed curve, relative to `position`"},
  {.path = "body.<body>.density_file", .type = FG_KEY_STRING, FG_BODY_STR(density_file), .required = PETSC_TRUE, FG_GE(1),
   .applies = FGCaseAppliesBodyDensity_Internal, .doc = "`density`: the HDF5 file holding the per-cell density field"},
  {.path = "body.<body>.density_dataset", .type = FG_KEY_STRING, FG_BODY_STR(density_dataset), FG_GE(1), .def = "rho",
   .applies = FGCaseAppliesBodyDensity_Internal, .doc = "`density`: the dataset of `density_file`"},
  {.path = "body.<body>.filter_radius", .type = FG_KEY_REAL, FG_BODY(filter_radius), FG_GE(0), .def = "1.5",
   .applies = FGCaseAppliesBodyDensity_Internal, .doc = "`density`: the radius of the smoothing filter, in cells"},
  {.path = "body.<body>.projection_beta", .type = FG_KEY_REAL, FG_BODY(projection_beta), FG_GT(0), .def = "8",
   .applies = FGCaseAppliesBodyDensity_Internal, .doc = "`density`: the sharpness of the tanh projection"},
  {.path = "body.<body>.projection_threshold", .type = FG_KEY_REAL, FG_BODY(projection_threshold), FG_GT(0), .max = 1, .maxb = FG_BOUND_OPEN, .def = "0.5",
   .applies = FGCaseAppliesBodyDensity_Internal, .doc = "`density`: the threshold of the tanh projection"},
  {.path = "body.<body>.wall", .type = FG_KEY_ENUM, .choices = FGWallModelNames, FG_BODY(wall), .def = "band", .applies = FGCaseAppliesBodySolid_Internal,
   .doc = "The body model (issue 21): `band`, the smoothed mask band of `mask_width` (and its soft skin), or `sharp` (experimental), a sharp wall: every face inside the body is penalized with `eta`, and every face outside whose neighbour along an axis lies inside gets the penalty that makes the viscous stencil see the velocity extrapolated linearly through the body's velocity at the surface (second order; docs/bodies.md)"},
  {.path = "body.<body>.apertures", .type = FG_KEY_BOOL, FG_BODY(apertures), .def = "false", .applies = FGCaseAppliesBodySharp_Internal, .check = FGCaseCheckBodyApertures_Internal,
   .doc = "A sharp wall's cut-cell continuity (experimental; needs `poisson.type: ksp`): the projection weights the flux of each face within two cells of the surface across its span by an aperture, C1 in the surface's position, that makes the flux of a linear wall profile exact wherever the surface falls between faces (docs/bodies.md)"},
  {.path = "body.<body>.quadratic_ghost", .type = FG_KEY_BOOL, FG_BODY(quadratic_ghost), .def = "false", .applies = FGCaseAppliesBodySharp_Internal,
   .doc = "A sharp wall's ghost values (experimental): the viscous stencil of a face next to the wall sees the velocity extrapolated quadratically, through the body's velocity at the surface, the face and the next face out, instead of linearly (the next face's part explicit, from the stage's start); its force moves more smoothly as faces cross the surface (docs/bodies.md)"},
  {.path = "body.<body>.line_flux", .type = FG_KEY_BOOL, FG_BODY(line_flux), .def = "false", .applies = FGCaseAppliesBodySharp_Internal, .check = FGCaseCheckBodyLineFlux_Internal,
   .doc = "A sharp wall's line-flux continuity (experimental; 2D, a body at rest, with `apertures: true`): each face whose span the surface cuts takes as its flux the integral over the span's open part of a quadratic along the face's line through the wall, so that the projection's continuity is exact cell by cell to first order, C1 in the surface's position (docs/bodies.md, \"A continuity exact cell by cell: lines\")"},
  {.path = "body.<body>.shared_ghost", .type = FG_KEY_BOOL, FG_BODY(shared_ghost), .def = "false", .applies = FGCaseAppliesBodySharp_Internal, .check = FGCaseCheckBodySharedGhost_Internal,
   .doc = "A sharp wall's shared ghost (experimental; with `line_flux: true`): a face next to the wall sees at its neighbour inside not the velocity extrapolated along the axis that joins them but one profile per inside node, the quadratic in the level set through the wall and the first two faces out along each axis, blended over the axes by the normal, which every neighbour reads alike (its part on other faces explicit, from the stage's start); the faces within a cell of the surface are also relaxed towards their own profile. The force's slope in the design then no longer jumps where faces cross the surface obliquely (docs/bodies.md, \"The shared ghost\")"},
  {.path = "body.<body>.mask_width", .type = FG_KEY_REAL, FG_BODY(mask_width), FG_GT(0), .def = "2", .applies = FGCaseAppliesBodyBand_Internal,
   .doc = "Width of the smoothed Heaviside band of the body's mask (from 0 to 1), in cells (on a stretched grid: of the largest cell width around the body as the case places it)"},
  {.path = "body.<body>.mask_profile", .type = FG_KEY_ENUM, .choices = FGMaskProfileNames, FG_BODY(mask_profile), .def = "quintic", .applies = FGCaseAppliesBodyBand_Internal,
   .doc = "The mask's profile across its band: `quintic` (the C2 smoothed Heaviside) or `bspline` (the integral of the cubic B-spline, C3: its slope sums to one over faces a cell apart, so that sums over the band do not depend on where the surface falls between faces)"},
  {.path = "body.<body>.skin_layer", .type = FG_KEY_REAL, FG_BODY(skin_layer), FG_GE(0), .def = "0", .applies = FGCaseAppliesBodyBand_Internal,
   .doc = "Soft skin (issue 21, experimental): the band penalizes with eta_s = (skin_layer h)^2 / nu (the case's nu), so that its penalization layer sqrt(nu eta_s) spans skin_layer cells, and a stiff core (`eta`, half-width one cell) lies `core_depth` cells below the band's centre; 0: no skin, the band penalizes with `eta`"},
  {.path = "body.<body>.mask_offset", .type = FG_KEY_REAL, FG_BODY(mask_offset), FG_GE(0), .max = 1, .maxb = FG_BOUND_CLOSED, .def = "0.75",
   .applies = FGCaseAppliesBodyStiff_Internal,
   .doc = "Without a soft skin: where the mask band lies: chi = H(-phi - offset*w/2), w the band width: 0 centres it on the surface, 1 puts it inside (chi = 0 outside the body); the default puts the point where the penalty starts to stop the flow (chi ~ 1e-2) on the surface"},
  {.path = "body.<body>.skin_offset", .type = FG_KEY_STRING, FG_BODY_STR(skin_offset), FG_GE(1), .def = "auto", .applies = FGCaseAppliesBodySkin_Internal,
   .check = FGCaseCheckBodySkinOffset_Internal,
   .doc = "With a soft skin: the depth of the band's centre below the surface, in cells (negative: in the fluid), or `auto`: where a model of the discrete penalized layer puts the wall the flow sees on the surface (`flowgrad info` prints it)"},
  {.path = "body.<body>.core_depth", .type = FG_KEY_REAL, FG_BODY(core_depth), FG_GT(0), .def = "4", .applies = FGCaseAppliesBodySkin_Internal,
   .doc = "With a soft skin: the depth of the stiff core's centre below the band's centre, in cells"},
  {.path = "body.<body>.skin_normal", .type = FG_KEY_REAL, FG_BODY(skin_normal), FG_GE(0), .def = "0", .applies = FGCaseAppliesBodySkin_Internal,
   .doc = "With a soft skin (issue 21, experimental): penalize the velocity normal to the surface too, with eta_n = skin_normal * eta, over a band of the skin's width centred `skin_normal_depth` cells below the skin's (the tensor (chi/eta) I + (chi_n/eta_n) n n^T, n the surface's normal): the flow no longer enters the soft skin; 0: none (the skin penalizes isotropically), else >= 1 (no stiffer than the core); 10 is the value studied (docs/bodies.md). Bodies that do not translate and have no jets; circles and spheres may rotate"},
  {.path = "body.<body>.skin_normal_depth", .type = FG_KEY_REAL, FG_BODY(skin_normal_depth), FG_GE(0), .max = 4, .maxb = FG_BOUND_CLOSED, .def = "2", .applies = FGCaseAppliesBodySkin_Internal,
   .doc = "With `skin_normal`: the depth of the normal band's centre below the skin band's centre, in cells"},
  {.path = "body.<body>.eta", .type = FG_KEY_REAL, FG_BODY(eta), FG_GT(0), .compute = FGCaseComputeBodyEta_Internal, .defdoc = "`1e-4*l_ref/u_ref`; `wall: sharp`: at most `1e-3*h^2/nu`",
   .doc = "Penalization time scale: the body drives the flow to its own velocity by the force (mask/eta)(u_body - u). A sharp wall caps its penalty next to the surface at 1/eta, which leaves the faces within about eta nu/h of the surface a weaker wall: its default keeps that window at 1e-3 of a cell (h: the grid's smallest spacing)"},
  {.path = "body.<body>.velocity", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_BODY(velocity), .def = "0", .defdoc = "all `0`",
   .applies = FGCaseAppliesBodySolid_Internal, .doc = "Translation velocity: the body is at `position + velocity t + A sin(2 pi f t)` at time t"},
  {.path = "body.<body>.oscillation_amplitude", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_BODY(oscillation_amplitude), .def = "0", .defdoc = "all `0`",
   .applies = FGCaseAppliesBodySolid_Internal, .doc = "A of the oscillation"},
  {.path = "body.<body>.oscillation_frequency", .type = FG_KEY_REAL, FG_BODY(oscillation_frequency), FG_GE(0), .def = "0",
   .applies = FGCaseAppliesBodySolid_Internal, .doc = "f of the oscillation (1/time)"},
  {.path = "body.<body>.rotation_rate", .type = FG_KEY_REAL, FG_BODY(rotation_rate), .def = "0", .applies = FGCaseAppliesBodySolid_Internal,
   .doc = "Rotation rate in rad per time unit, counterclockwise about z through `position`: Omega(t) = `rotation_rate` + A sin(2 pi f t)"},
  {.path = "body.<body>.rotation_amplitude", .type = FG_KEY_REAL, FG_BODY(rotation_amplitude), .def = "0", .applies = FGCaseAppliesBodySolid_Internal,
   .doc = "A of the rotation rate (rad per time unit)"},
  {.path = "body.<body>.rotation_frequency", .type = FG_KEY_REAL, FG_BODY(rotation_frequency), FG_GE(0), .def = "0", .applies = FGCaseAppliesBodySolid_Internal,
   .doc = "f of the rotation rate (1/time)"},
  {.path = "body.<body>.rotation_rate_values", .type = FG_KEY_REAL, FG_BODY_LIST(rotation_rate_values, n_rate_values, 0, FG_CASE_MAX_TIME_BASIS), .def = "[]",
   .defdoc = "none", .applies = FGCaseAppliesBodySolid_Internal, .check = FGCaseCheckBodyControlValues_Internal,
   .doc = "With `design.time_basis` N >= 2: the rotation rate's N values at t_k = k T/(N-1) (T = steps*dt), in place of `rotation_rate` at every one (the run's control and the design's start), e.g. the column `final` of `flowgrad optimize`'s `optimization/result.csv`"},
  {.path = "body.<body>.jet_angles", .type = FG_KEY_REAL, FG_BODY_LIST(jet_angles, n_jets, 0, FG_CASE_MAX_JETS), .def = "[]",
   .applies = FGCaseAppliesBodyBand_Internal, .doc = "Surface jets: the polar angle of each jet's centre in degrees, in the body's frame, about `position`"},
  {.path = "body.<body>.jet_amplitude", .type = FG_KEY_REAL, FG_BODY_LIST(jet_amplitude, n_jets, 0, FG_CASE_MAX_JETS), .def = "[]", .same_length = "jet_angles",
   .applies = FGCaseAppliesBodySolid_Internal, .doc = "The normal velocity of each jet (+: blowing), as many as `jet_angles`"},
  {.path = "body.<body>.jet_width", .type = FG_KEY_REAL, FG_BODY(jet_width), FG_GT(0), .def = "20", .applies = FGCaseAppliesBodySolid_Internal,
   .doc = "The width of each jet, in degrees"},
  {.path = "body.<body>.jet_frequency", .type = FG_KEY_REAL, FG_BODY(jet_frequency), FG_GE(0), .def = "0", .applies = FGCaseAppliesBodySolid_Internal,
   .doc = "The jets' velocities vary as cos(2 pi f t); f = this (1/time); 0: steady"},
  {.path = "body.<body>.jet_amplitude_values", .type = FG_KEY_REAL, FG_BODY_LIST(jet_amplitude_values, n_jet_values, 0, FG_CASE_MAX_JETS * FG_CASE_MAX_TIME_BASIS), .def = "[]",
   .defdoc = "none", .applies = FGCaseAppliesBodySolid_Internal, .check = FGCaseCheckBodyControlValues_Internal,
   .doc = "With `design.time_basis` N >= 2: every jet's N amplitudes at t_k = k T/(N-1), jet by jet (N values of the first jet, then of the second, ...), in place of `jet_amplitude`; as `rotation_rate_values`"},
  {.path = "body.<body>.ref_length", .type = FG_KEY_REAL, FG_BODY(ref_length), FG_GT(0), .compute = FGCaseComputeBodyRefLength_Internal, .defdoc = "`flow.l_ref`",
   .doc = "Reference length of the moment coefficient, whose reference is `ref_area*ref_length`"},
  {.path = "body.<body>.ref_speed", .type = FG_KEY_REAL, FG_BODY(ref_speed), FG_GT(0), .compute = FGCaseComputeBodyRefSpeed_Internal, .defdoc = "`flow.u_ref`",
   .doc = "Reference speed of the force coefficients `F / (1/2 ref_speed^2 ref_area)`"},
  {.path = "body.<body>.ref_area", .type = FG_KEY_REAL, FG_BODY(ref_area), FG_GT(0), .compute = FGCaseComputeBodyRefArea_Internal,
   .defdoc = "`ref_length` (2D, per unit span), `ref_length^2` (3D)", .doc = "Reference area of the force coefficients"},

  {.path = "probe.<probe>.at", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_PROBE(at), .required = PETSC_TRUE, .check = FGCaseCheckProbePoint_Internal,
   .doc = "Where probe `<probe>` (a name of your choice; at most 16 probes) records the velocity and the pressure"},
  {.path = "probe.<probe>.reference", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_PROBE(reference), .check = FGCaseCheckProbePoint_Internal,
   .doc = "A second point: the probe also records the pressure difference p(at) - p(reference)"},

  {.path = "actuator.<actuator>.center", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_ACTUATOR(center), .required = PETSC_TRUE,
   .doc = "Centre of actuator `<actuator>` (a name of your choice; at most 8), a body force `force exp(-(r/radius)^2) s(t)` at distance r from it"},
  {.path = "actuator.<actuator>.radius", .type = FG_KEY_REAL, FG_ACTUATOR(radius), .required = PETSC_TRUE, FG_GT(0), .doc = "Radius of the Gaussian footprint"},
  {.path = "actuator.<actuator>.force", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_ACTUATOR(force), .required = PETSC_TRUE,
   .doc = "Force per unit mass at the centre"},
  {.path = "actuator.<actuator>.frequency", .type = FG_KEY_REAL, FG_ACTUATOR(frequency), FG_GE(0), .def = "0",
   .doc = "s(t) = sin(2 pi f t); f = this (1/time); 0: steady, s = 1"},

  {.path = "design.time_basis", .type = FG_KEY_INT, FG_AT(design.time_basis), FG_GE(1), .max = FG_CASE_MAX_TIME_BASIS, .maxb = FG_BOUND_CLOSED, .def = "1",
   .doc = "The controls in time (every body's rotation rate and jet amplitudes, every actuator's force; in the run and in the design): 1: constants; N >= 2: piecewise linear through N values at equally spaced times over [0, steps*dt], each one a design entry (all start at the case's value, or at a body's `rotation_rate_values` and `jet_amplitude_values`)"},
  {.path = "design.parameters", .type = FG_KEY_STRING, FG_STR_LIST(design.parameters, design.n, design.where, 0, FG_CASE_MAX_DESIGN), FG_GE(1), .def = "[]",
   .check = FGCaseCheckDesign_Internal,
   .doc = "The design vector of `adjoint`, `check` and `optimize`, by blocks: `flow.nu`, `flow.inflow_speed` (the speed of the inflow faces), `body.<body>.shape` (its shape parameters; not `density`) or one of them, `body.<body>.shape.PARAM` (the shape's name for it: `r`, `x0`, `angle`, ...), `body.<body>.rotation_rate`, `body.<body>.jet_amplitude` (a body with jets), `body.<body>.density` (a `density` body: the per-cell field), `actuator.<actuator>.force`, `initial.velocity` (the initial field); each at most once"},

  {.path = "design.lower", .type = FG_KEY_STRING, FG_DESIGN_TEXT(lower_text, n_lower), FG_GE(1), .def = "[]", .check = FGCaseCheckDesignBounds_Internal,
   .defdoc = "none", .doc = "`optimize`: lower bounds, one per entry of `design.parameters` (or one for all), each applying to every scalar of the entry: a number or `none`"},
  {.path = "design.upper", .type = FG_KEY_STRING, FG_DESIGN_TEXT(upper_text, n_upper), FG_GE(1), .def = "[]", .check = FGCaseCheckDesignBounds_Internal,
   .defdoc = "none", .doc = "`optimize`: upper bounds, like `lower`; lower <= upper"},
  {.path = "design.max_change", .type = FG_KEY_STRING, FG_DESIGN_TEXT(max_change_text, n_max_change), FG_GE(1), .def = "[]", .check = FGCaseCheckDesignBounds_Internal,
   .defdoc = "none", .doc = "`optimize`: each scalar stays within this distance of its initial value (bounds around the start, on top of `lower` and `upper`), like `lower`: a number > 0 or `none`"},
  {.path = "design.scale", .type = FG_KEY_STRING, FG_DESIGN_TEXT(scale_text, n_scale), FG_GE(1), .def = "[]", .check = FGCaseCheckDesignBounds_Internal,
   .defdoc = "`auto`", .doc = "`optimize`: the optimizer works on p/scale: a typical change of each scalar, like `lower`: a number > 0 or `auto` (the grid spacing for a body's position, else the initial |value|, or 1 where it is 0)"},

  {.path = "objective.<objective>.kind", .type = FG_KEY_ENUM, .choices = FGObjectiveKindNames, FG_OBJ(kind), .required = PETSC_TRUE, .check = FGCaseCheckObjectiveKind_Internal,
   .doc = "What objective `<objective>` (a name of your choice; at most 16) measures: `drag`, `lift`, `side` (3D), `moment`: a force coefficient of `body`; `neg_lift_drag`: -T(Cl)/T(Cd) for the time functional T; `pressure_drop`: p(at) - p(reference) of `probe`; `kinetic_energy`, `enstrophy` in `region`; `probe_tracking`: 1/2 (u(probe) - u_obs)^2; `control_cost`: 1/2 the sum of the squares of the design's controls; `field_tracking`: 1/2 the sum of (u - u_target)^2 dV over `region`; `dissipation`: the power the flow dissipates, the net inflow of mechanical energy -sum (p + |u|^2/2) u.n dA over the inflow and outflow faces. The objective J is the sum of `weight` times each"},
  {.path = "objective.<objective>.body", .type = FG_KEY_STRING, FG_OBJ_STR(body), FG_GE(1), .compute = FGCaseComputeObjectiveBody_Internal,
   .check = FGCaseCheckObjectiveBody_Internal, .applies = FGCaseAppliesObjectiveBody_Internal, .defdoc = "the case's only body",
   .doc = "`drag`, `lift`, `side`, `moment`, `neg_lift_drag`: the body (a name under `body`) whose force coefficients are measured"},
  {.path = "objective.<objective>.probe", .type = FG_KEY_STRING, FG_OBJ_STR(probe), .required = PETSC_TRUE, FG_GE(1), .applies = FGCaseAppliesObjectiveProbe_Internal,
   .check = FGCaseCheckObjectiveProbe_Internal, .doc = "`pressure_drop` (a probe with a `reference`) and `probe_tracking`: the probe (a name under `probe`)"},
  {.path = "objective.<objective>.region", .type = FG_KEY_REAL, FG_OBJ_LIST(region, n_region, 4, 6), .applies = FGCaseAppliesObjectiveRegion_Internal,
   .check = FGCaseCheckObjectiveRegion_Internal, .defdoc = "the whole domain",
   .doc = "`kinetic_energy`, `enstrophy`, `field_tracking`: the box to sum over, inside the domain: the lower corner, then the upper corner (`[x0, y0, x1, y1]`; 3D: `[x0, y0, z0, x1, y1, z1]`)"},
  {.path = "objective.<objective>.target", .type = FG_KEY_REAL, .list = PETSC_TRUE, FG_OBJ(target), .applies = FGCaseAppliesObjectiveTracking_Internal,
   .check = FGCaseCheckObjectiveTarget_Internal, .doc = "`probe_tracking`: a constant target velocity at the probe (give `target` or `observations`)"},
  {.path = "objective.<objective>.observations", .type = FG_KEY_STRING, FG_OBJ_STR(observations), FG_GE(1), .applies = FGCaseAppliesObjectiveTracking_Internal,
   .check = FGCaseCheckObjectiveObservations_Internal,
   .doc = "`probe_tracking`: the observed velocity over time, a CSV file with the probe's columns (a `history.csv`; give `target` or `observations`)"},
  {.path = "objective.<objective>.target_file", .type = FG_KEY_STRING, FG_OBJ_STR(target_file), FG_GE(1), .required = PETSC_TRUE, .applies = FGCaseAppliesObjectiveTargetFile_Internal,
   .check = FGCaseCheckObjectiveTargetFile_Internal,
   .doc = "`field_tracking`: the target velocity field, a flowgrad fields file (`u`, `v`[, `w`] on this grid, e.g. `fields/fields_NNNNNN.h5` of another run)"},
  {.path = "objective.<objective>.time", .type = FG_KEY_ENUM, .choices = FGObjectiveTimeNames, FG_OBJ(time), .def = "average", .check = FGCaseCheckObjectiveTime_Internal,
   .doc = "The time functional: the `average` over `window`, the `final` value, or the value at the `instant` `at` (`control_cost`: `average` only)"},
  {.path = "objective.<objective>.window", .type = FG_KEY_REAL, FG_OBJ_LIST(window, n_window, 2, 2), FG_GE(0), .applies = FGCaseAppliesObjectiveAverage_Internal,
   .check = FGCaseCheckObjectiveWindow_Internal, .defdoc = "the whole run", .doc = "`average`: the time window `[t0, t1]`, t0 < t1"},
  {.path = "objective.<objective>.ramp", .type = FG_KEY_REAL, FG_OBJ(ramp), FG_GE(0), .def = "0", .applies = FGCaseAppliesObjectiveAverage_Internal,
   .check = FGCaseCheckObjectiveRamp_Internal,
   .doc = "`average`: a smooth window: sin^2 ramps of this duration at both of its ends (0: a box); at most half the window (`window`, or `steps*dt` without one)"},
  {.path = "objective.<objective>.at", .type = FG_KEY_REAL, FG_OBJ(at), .required = PETSC_TRUE, FG_GE(0), .applies = FGCaseAppliesObjectiveInstant_Internal,
   .check = FGCaseCheckObjectiveAt_Internal, .doc = "`instant`: the time (the step that ends nearest to it), at most `steps*dt`"},
  {.path = "objective.<objective>.statistic", .type = FG_KEY_ENUM, .choices = FGObjectiveStatisticNames, FG_OBJ(statistic), .def = "value", .applies = FGCaseAppliesObjectiveStatistic_Internal,
   .check = FGCaseCheckObjectiveStatistic_Internal,
   .doc = "What the term takes of its quantity q (after every step) with the time functional T: `value` T(q), `square` T(q^2), or `variance` T(q^2) - T(q)^2 (`time: average` only; not with `adjoint.mode: steady`, where it is 0); the term is `weight` times it. Not for `neg_lift_drag` and `control_cost`"},
  {.path = "objective.<objective>.weight", .type = FG_KEY_REAL, FG_OBJ(weight), .def = "1", .check = FGCaseCheckObjectiveWeight_Internal,
   .doc = "The weight of this objective in J (not 0)"},

  {.path = "constraints.<constraint>.kind", .type = FG_KEY_ENUM, .choices = FGConstraintKindNames, FG_CON(kind), .required = PETSC_TRUE, .check = FGCaseCheckConstraintKind_Internal,
   .doc = "`optimize`: what constraint `<constraint>` (a name of your choice; at most 16) holds: `area` (2D) or `volume` (3D) of a shape body, its `centroid` (fixed: one equality per direction), an airfoil's `thickness` (thickness/chord at the chord stations `at`), the `volume_fraction` of a density body, or a force coefficient `lift`, `drag`, `moment` of `body` (evaluated with its own adjoint at every point)"},
  {.path = "constraints.<constraint>.body", .type = FG_KEY_STRING, FG_CON_STR(body), FG_GE(1), .compute = FGCaseComputeConstraintBody_Internal, .check = FGCaseCheckConstraintBody_Internal,
   .defdoc = "the case's only body", .doc = "The body (a name under `body`) it measures"},
  {.path = "constraints.<constraint>.relation", .type = FG_KEY_ENUM, .choices = FGRelationNames, FG_CON(relation), .compute = FGCaseComputeConstraintRelation_Internal,
   .check = FGCaseCheckConstraintRelation_Internal, .defdoc = "`eq` for area, volume, centroid and moment; `ge` for thickness and lift; `le` for volume_fraction and drag",
   .doc = "`eq`: q = value, `ge`: q >= value, `le`: q <= value (`centroid`: `eq` only)"},
  {.path = "constraints.<constraint>.value", .type = FG_KEY_STRING, FG_CON_STR(value_text), FG_GE(1), .def = "initial", .check = FGCaseCheckConstraintValue_Internal,
   .doc = "The value v: a number (`volume_fraction`: in (0, 1); `thickness`: a fraction of the chord), or `initial`: q at the initial design (`centroid`: `initial` only)"},
  {.path = "constraints.<constraint>.at", .type = FG_KEY_REAL, FG_CON_LIST(at, n_at, 1, FG_CASE_MAX_STATIONS), FG_GT(0), .max = 1, .maxb = FG_BOUND_OPEN,
   .required = PETSC_TRUE, .applies = FGCaseAppliesConstraintThickness_Internal, .doc = "`thickness`: the chord stations x/c in (0, 1), one constraint each"},
  {.path = "constraints.<constraint>.phase", .type = FG_KEY_ENUM, .choices = FGPhaseNames, FG_CON(phase), .def = "fluid", .applies = FGCaseAppliesConstraintFraction_Internal,
   .doc = "`volume_fraction`: the phase whose fraction of the domain is constrained: `fluid` (1 - chi) or `solid` (chi), chi the density body's mask at the cells"},
  {.path = "constraints.<constraint>.time", .type = FG_KEY_ENUM, .choices = FGObjectiveTimeNames, FG_CON(time), .def = "average", .applies = FGCaseAppliesConstraintFlow_Internal,
   .check = FGCaseCheckConstraintTime_Internal, .doc = "`lift`, `drag`, `moment`: the time functional of the coefficient, as an objective's `time` (`average` or `final`; `adjoint.mode: steady`: the steady value)"},
  {.path = "constraints.<constraint>.window", .type = FG_KEY_REAL, FG_CON_LIST(window, n_window, 2, 2), FG_GE(0), .applies = FGCaseAppliesConstraintFlow_Internal,
   .check = FGCaseCheckConstraintWindow_Internal, .defdoc = "the whole run", .doc = "`lift`, `drag`, `moment` with `time: average`: the window `[t0, t1]`"},

  {.path = "points.<point>.weight", .type = FG_KEY_REAL, FG_POINT(weight), FG_GT(0), .def = "1",
   .doc = "`optimize`, multipoint: the weight of flow condition `<point>` (a name of your choice; at most 8) in J = sum of weight * J(point)"},
  {.path = "points.<point>.set", .type = FG_KEY_STRING, .offset = offsetof(FGPointCase, set), .size = FG_CASE_SET_LEN, .count = offsetof(FGPointCase, nset), .minlen = 1, .maxlen = FG_CASE_MAX_POINT_SETS,
   FG_GE(3), .required = PETSC_TRUE, .check = FGCaseCheckPointSet_Internal,
   .doc = "The point's flow condition: `--set` overrides of this case, `[\"flow.re=200\", \"body.wing.angle=4\"]` (not of `design`, `constraints`, `optimizer`, `points`, `output`); each point runs in `output.dir/points/<point>`"},

  {.path = "optimizer.type", .type = FG_KEY_ENUM, .choices = FGOptimizerTypeNames, FG_AT(optimizer.type), .def = "auto", .check = FGCaseCheckOptimizerType_Internal,
   .doc = "`optimize`: the PETSc TAO method: `blmvm` (bounded limited-memory BFGS), `bqnls`, `bncg`, `lmvm` (no bounds), `almm` (augmented Lagrangian for constraints, TAO's); `penalty`: flowgrad's augmented-Lagrangian loop around `blmvm` (docs/optimization.md); `auto`: `blmvm` without constraints, `penalty` with (it needs fewer evaluations than `almm`)"},
  {.path = "optimizer.max_iterations", .type = FG_KEY_INT, FG_AT(optimizer.max_iterations), FG_GE(0), .def = "20",
   .doc = "Stop after this many iterations (`almm`: outer iterations; `penalty`: the inner iterations of all its outer iterations)"},
  {.path = "optimizer.max_evaluations", .type = FG_KEY_INT, FG_AT(optimizer.max_evaluations), FG_GE(0), .def = "0",
   .doc = "Stop after this many evaluations of J and its gradient (0: no limit)"},
  {.path = "optimizer.gatol", .type = FG_KEY_REAL, FG_AT(optimizer.gatol), FG_GE(0), .def = "1e-8",
   .doc = "Converged when the projected gradient of J/|J_0| with respect to p/scale is at most this (TAO's gatol)"},
  {.path = "optimizer.grtol", .type = FG_KEY_REAL, FG_AT(optimizer.grtol), FG_GE(0), .def = "1e-8",
   .doc = "Converged when that gradient norm over |J/J_0| is at most this (TAO's grtol)"},
  {.path = "optimizer.constraint_tol", .type = FG_KEY_REAL, FG_AT(optimizer.constraint_tol), FG_GT(0), .def = "1e-3",
   .doc = "A constraint holds when its violation relative to its scale (|value|, or |q| at the start) is at most this"},
  {.path = "optimizer.penalty", .type = FG_KEY_REAL, FG_AT(optimizer.penalty), FG_GT(0), .def = "100",
   .doc = "`almm`, `penalty`: the initial penalty parameter of the augmented Lagrangian (on the constraints relative to their scale)"},
  {.path = "optimizer.fields_every", .type = FG_KEY_INT, FG_AT(optimizer.fields_every), FG_GE(0), .def = "1",
   .doc = "Write the shape/mask and gradient fields (`optimization/iter_NNNN.h5`) every K iterations (0: the first and the last only)"},

  {.path = "adjoint.mode", .type = FG_KEY_ENUM, .choices = FGAdjointModeNames, FG_AT(adjoint.mode), .def = "unsteady",
   .doc = "`unsteady`: the reverse sweep over the time steps; `steady`: the adjoint of the converged steady state x = F(x), solved with KSP (the forward run ends with Newton-Krylov iterations to `adjoint.steady_tol`; every objective is evaluated at the steady state)"},
  {.path = "adjoint.memory", .type = FG_KEY_STRING, FG_STR(adjoint.memory), FG_GE(1), .def = "auto", .check = FGCaseCheckAdjointMemory_Internal,
   .doc = "The memory for the states kept by the reverse sweep, all ranks together: a size such as `512 MiB`, `4 GiB` or `2.5G` (a plain number: MiB), or `auto` (half of each node's physical memory); the solver's own working memory comes on top"},
  {.path = "adjoint.checkpoints", .type = FG_KEY_INT, FG_AT(adjoint.checkpoints), FG_GE(0), .def = "0",
   .doc = "The number of states the reverse sweep keeps in RAM, instead of `adjoint.memory` (0: from `adjoint.memory`); fewer than the steps: binomial checkpointing over the run with `adjoint.storage: ram`, states on disk with `auto` or `disk`"},
  {.path = "adjoint.storage", .type = FG_KEY_ENUM, .choices = FGAdjointStorageNames, FG_AT(adjoint.storage), .def = "auto",
   .doc = "`auto`: states on disk (two levels) only when they do not fit in the memory budget; `ram`: never on disk (binomial checkpointing in RAM instead); `disk`: every `adjoint.segment`-th state on disk (`adjoint/checkpoints/`), and the reverse sweep resumable at every one"},
  {.path = "adjoint.segment", .type = FG_KEY_INT, FG_AT(adjoint.segment), FG_GE(0), .def = "0",
   .doc = "Steps between the disk checkpoints of the reverse sweep (0: the longest segment whose recomputation fits in the memory budget)"},
  {.path = "adjoint.steady_tol", .type = FG_KEY_REAL, FG_AT(adjoint.steady_tol), .min = 0, .minb = FG_BOUND_OPEN, .def = "1e-10",
   .doc = "`steady`: the forward state counts as converged when |F(x) - x| <= steady_tol |x| (one time step F)"},
  {.path = "adjoint.steady_dt", .type = FG_KEY_STRING, FG_STR(adjoint.steady_dt), FG_GE(1), .def = "auto", .check = FGCaseCheckSteadyDt_Internal,
   .doc = "`steady`: the time step of the map F whose fixed point Newton finds and the adjoint solves with, after the transient: a step > 0, or `auto`: `time.dt` halved (at most 10 times) until the state's step number, dt times the largest sum over the directions of (speed + 4 nu/h)/h, is at most 0.25. The steady state is the same (to the tolerances), the Krylov iterations are not: a smaller step makes the Oseen preconditioner closer to I - F_x (docs/adjoint.md)"},
  {.path = "adjoint.fields_every", .type = FG_KEY_INT, FG_AT(adjoint.fields_every), FG_GE(0), .def = "0",
   .doc = "Write the adjoint velocity and pressure every K steps of the reverse sweep (0: only at t = 0)"},

  {.path = "output.dir", .type = FG_KEY_STRING, FG_STR(output.dir), FG_GE(1), .compute = FGCaseComputeOutputDir_Internal,
   .defdoc = "`out/<name>`", .doc = "Output directory (created if missing; must be writable)"},
  {.path = "output.fields_every", .type = FG_KEY_INT, FG_AT(output.fields_every), FG_GE(0), .def = "0",
   .doc = "Write the fields every K steps (0: only at the end)"},
  {.path = "output.monitor_every", .type = FG_KEY_INT, FG_AT(output.monitor_every), FG_GE(1), .def = "10",
   .doc = "Print the monitor line every K steps"},
  {.path = "output.checkpoint_every", .type = FG_KEY_INT, FG_AT(output.checkpoint_every), FG_GE(0), .def = "0",
   .doc = "Write a checkpoint (`checkpoints/checkpoint_NNNNNN.h5`, for `run --resume`) every K steps; 0: only at the end of the run and when stopped by SIGUSR1/SIGTERM"},
  {.path = "output.checkpoint_keep", .type = FG_KEY_INT, FG_AT(output.checkpoint_keep), FG_GE(1), .def = "2",
   .doc = "Keep the newest K checkpoints; older ones are deleted once a newer one is complete"},
};

/* Number of entries of the key table (a <face> entry counts once), for the tests. */
PetscInt FGCaseKeyDefCount_Internal(void)
{
  return (PetscInt)(sizeof(FGCaseKeys) / sizeof(FGCaseKeys[0]));
}
/* clang-format on */

/* The family whose token is in the row's path, or NULL. */
static const FGKeyFamily *FGKeyFamily_Private(const FGKeyDef *def)
{
  for (size_t f = 0; f < FG_NFAMILIES; f++)
    if (strstr(def->path, FGCaseFamilies[f].token)) return &FGCaseFamilies[f];
  return NULL;
}

/* The family of instances named by the case file under this top-level section (len bytes), or NULL. */
const FGKeyFamily *FGCaseFamilyOfSection_Internal(const char *section, size_t len)
{
  for (size_t f = 0; f < FG_NFAMILIES; f++)
    if (!FGCaseFamilies[f].fixed && strlen(FGCaseFamilies[f].section) == len && !strncmp(FGCaseFamilies[f].section, section, len)) return &FGCaseFamilies[f];
  return NULL;
}

PetscInt FGCaseInstanceCount_Internal(FGCaseCtx ctx, const FGKeyFamily *fam)
{
  return fam->fixed ? fam->max : *(const PetscInt *)((const char *)ctx->c + fam->count);
}

const char *FGCaseInstanceName_Internal(FGCaseCtx ctx, const FGKeyFamily *fam, PetscInt i)
{
  return fam->fixed ? fam->fixed[i] : (const char *)ctx->c + fam->base + (size_t)i * fam->stride + fam->name;
}

/* The struct of the key's instance (an FGBoundaryFace, FGBodyCase, ...). */
void *FGCaseInstance_Internal(FGCaseCtx ctx, const FGKeyRef *ref)
{
  return (char *)ctx->c + ref->family->base + (size_t)ref->inst * ref->family->stride;
}

/* Append an instance named by the file (the name is already checked: an identifier shorter than
   FG_CASE_NAME_LEN, new, and there is room) given at `line`: its name and where it is. */
PetscErrorCode FGCaseInstanceAdd_Internal(FGCaseCtx ctx, const FGKeyFamily *fam, const char *name, size_t len, int line)
{
  PetscInt *count = (PetscInt *)((char *)ctx->c + fam->count);
  char     *inst;

  PetscFunctionBeginUser;
  PetscCheck(!fam->fixed && *count < fam->max && len < FG_CASE_NAME_LEN, PETSC_COMM_SELF, PETSC_ERR_PLIB, "cannot add %s %.*s", fam->noun, (int)PetscMin(len, 64), name);
  inst = (char *)ctx->c + fam->base + (size_t)*count * fam->stride;
  PetscCall(PetscMemcpy(inst + fam->name, name, len));
  inst[fam->name + len] = '\0';
  snprintf(inst + fam->where, fam->wherelen, "%s:%d: %s.%.*s", ctx->file, line, fam->section, (int)len, name);
  (*count)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "cyl, wing" (the family's instances), or "" without any. */
PetscErrorCode FGCaseInstancesString_Internal(FGCaseCtx ctx, const FGKeyFamily *fam, char *buf, size_t len)
{
  PetscFunctionBeginUser;
  buf[0] = '\0';
  for (PetscInt i = 0; i < FGCaseInstanceCount_Internal(ctx, fam); i++) {
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", i ? ", " : "", FGCaseInstanceName_Internal(ctx, fam, i));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Record a key or section a case may hold (once), for the suggestions. */
static PetscErrorCode FGCaseNameAdd_Private(FGCaseCtx ctx, const char *path, size_t len, PetscBool section)
{
  PetscFunctionBeginUser;
  PetscCheck(len < FG_CASE_PATH_LEN, PETSC_COMM_SELF, PETSC_ERR_PLIB, "key path too long: %.*s", (int)len, path);
  for (PetscInt i = ctx->nnames - 1; i >= 0; i--)
    if (strlen(ctx->names[i].path) == len && !strncmp(ctx->names[i].path, path, len)) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(ctx->nnames < FG_CASE_MAX_NAMES, PETSC_COMM_SELF, PETSC_ERR_PLIB, "too many case keys and sections; raise FG_CASE_MAX_NAMES");
  PetscCall(PetscStrncpy(ctx->names[ctx->nnames].path, path, len + 1));
  ctx->names[ctx->nnames++].section = section;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Add the key of row def for instance inst of its family fam (NULL, -1: a key of its own). */
static PetscErrorCode FGCaseKeyAdd_Private(FGCaseCtx ctx, const FGKeyDef *def, const FGKeyFamily *fam, PetscInt inst)
{
  FGKeyRef *ref;
  size_t    base = 0;

  PetscFunctionBeginUser;
  PetscCheck(ctx->nkeys < FG_CASE_MAX_KEYS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "too many case keys; raise FG_CASE_MAX_KEYS");
  ref         = &ctx->keys[ctx->nkeys++];
  ref->def    = def;
  ref->family = fam;
  ref->inst   = inst;
  ref->axis   = -1;
  ref->side   = -1;
  if (!fam) {
    PetscCheck(strlen(def->path) < sizeof(ref->path), PETSC_COMM_SELF, PETSC_ERR_PLIB, "key path too long: %s", def->path);
    PetscCall(PetscStrncpy(ref->path, def->path, sizeof(ref->path)));
  } else {
    const char *at = strstr(def->path, fam->token);
    int         n  = snprintf(ref->path, sizeof(ref->path), "%.*s%s%s", (int)(at - def->path), def->path, FGCaseInstanceName_Internal(ctx, fam, inst), at + strlen(fam->token));
    PetscCheck(n > 0 && (size_t)n < sizeof(ref->path), PETSC_COMM_SELF, PETSC_ERR_PLIB, "key path too long: %s", def->path);
    if (fam == &FGCaseFamilies[0]) ref->axis = inst / 2, ref->side = inst % 2; /* the faces */
    if (fam == &FGCaseFamilies[1]) ref->axis = inst;                           /* grid.stretch.<axis> */
    base = fam->base + (size_t)inst * fam->stride;
  }
  ref->offset      = base + def->offset;
  ref->count       = base + def->count;
  ref->entry_where = base + def->entry_where;
  /* its sections, then the key itself */
  for (const char *dot = strchr(ref->path, '.'); dot; dot = strchr(dot + 1, '.')) PetscCall(FGCaseNameAdd_Private(ctx, ref->path, (size_t)(dot - ref->path), PETSC_TRUE));
  PetscCall(FGCaseNameAdd_Private(ctx, ref->path, strlen(ref->path), PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Expand the table into concrete keys, once the instances the file names are known: a run of
   rows of a family becomes, instance by instance, one key per row (boundary.x_lo.type,
   boundary.x_lo.velocity, ..., boundary.x_hi.type, ...; body.cyl.shape, ..., body.wing.shape, ...).
   A family's section is known even without instances (`body: {}`). */
PetscErrorCode FGCaseKeysSetUp_Internal(FGCaseCtx ctx)
{
  const size_t n = sizeof(FGCaseKeys) / sizeof(FGCaseKeys[0]);

  PetscFunctionBeginUser;
  ctx->nkeys  = 0;
  ctx->nnames = 0;
  for (size_t i = 0; i < n;) {
    const FGKeyFamily *fam = FGKeyFamily_Private(&FGCaseKeys[i]);
    size_t             j   = i;

    if (!fam) {
      PetscCall(FGCaseKeyAdd_Private(ctx, &FGCaseKeys[i], NULL, -1));
      i++;
      continue;
    }
    while (j < n && FGKeyFamily_Private(&FGCaseKeys[j]) == fam) j++;
    PetscCall(FGCaseNameAdd_Private(ctx, fam->section, strlen(fam->section), PETSC_TRUE));
    for (PetscInt f = 0; f < FGCaseInstanceCount_Internal(ctx, fam); f++)
      for (size_t r = i; r < j; r++) PetscCall(FGCaseKeyAdd_Private(ctx, &FGCaseKeys[r], fam, f));
    i = j;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The concrete key with this path, or -1. */
PetscErrorCode FGCaseKeyFind_Internal(FGCaseCtx ctx, const char *path, PetscInt *k)
{
  PetscFunctionBeginUser;
  *k = -1;
  for (PetscInt i = 0; i < ctx->nkeys; i++)
    if (!strcmp(ctx->keys[i].path, path)) {
      *k = i;
      break;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A section is a proper prefix (ending at a dot) of a key's path, or a family's section. */
PetscErrorCode FGCaseIsSection_Internal(FGCaseCtx ctx, const char *path, PetscBool *is)
{
  PetscFunctionBeginUser;
  *is = PETSC_FALSE;
  for (PetscInt i = 0; i < ctx->nnames; i++)
    if (ctx->names[i].section && !strcmp(ctx->names[i].path, path)) {
      *is = PETSC_TRUE;
      break;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Optimal string alignment distance (Levenshtein with transpositions); strings cut at 127. */
PetscInt FGCaseEditDistance_Internal(const char *a, const char *b)
{
  PetscInt d[128][128];
  PetscInt la = (PetscInt)PetscMin(strlen(a), 127), lb = (PetscInt)PetscMin(strlen(b), 127);

  for (PetscInt i = 0; i <= la; i++) d[i][0] = i;
  for (PetscInt j = 0; j <= lb; j++) d[0][j] = j;
  for (PetscInt i = 1; i <= la; i++)
    for (PetscInt j = 1; j <= lb; j++) {
      PetscInt cost = a[i - 1] == b[j - 1] ? 0 : 1;
      PetscInt v    = PetscMin(PetscMin(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) v = PetscMin(v, d[i - 2][j - 2] + 1);
      d[i][j] = v;
    }
  return d[la][lb];
}

static const char *FGLeaf_Private(const char *path)
{
  const char *dot = strrchr(path, '.');
  return dot ? dot + 1 : path;
}

/* The hint after "unknown key": " (did you mean X?)", or the keys of the enclosing section. */
PetscErrorCode FGCaseSuggest_Internal(FGCaseCtx ctx, const char *path, char *hint, size_t len)
{
  const char *best = NULL, *leafmatch = NULL;
  PetscInt    dbest = PETSC_MAX_INT, plen = (PetscInt)strlen(path);

  PetscFunctionBeginUser;
  hint[0] = '\0';
  /* candidates: every key and every section */
  for (PetscInt i = 0; i < ctx->nnames; i++) {
    const char *cand = ctx->names[i].path;
    PetscInt    d    = FGCaseEditDistance_Internal(path, cand);
    if (d < dbest) dbest = d, best = cand;
    if (!leafmatch && strcmp(cand, path) && !strcmp(FGLeaf_Private(cand), FGLeaf_Private(path))) leafmatch = cand;
  }
  if (best && dbest <= 1) snprintf(hint, len, " (did you mean %s?)", best);
  else if (leafmatch) snprintf(hint, len, " (did you mean %s?)", leafmatch); /* the right name in the wrong section */
  else if (best && dbest <= PetscMax(2, plen / 4)) snprintf(hint, len, " (did you mean %s?)", best);
  else {
    /* list what the enclosing section holds */
    const char *dot    = strrchr(path, '.');
    size_t      parent = dot ? (size_t)(dot - path) + 1 : 0; /* length of "grid." */
    size_t      used;
    PetscInt    nseen = 0;

    if (parent) snprintf(hint, len, " (keys of %.*s: ", (int)parent - 1, path);
    else snprintf(hint, len, " (top-level keys: ");
    for (PetscInt i = 0; i < ctx->nnames; i++) {
      const char *cand = ctx->names[i].path;
      if (strncmp(cand, path, parent) || strchr(cand + parent, '.')) continue; /* not a child of the section */
      used = strlen(hint);
      snprintf(hint + used, len - used, "%s%s", nseen++ ? ", " : "", cand + parent);
    }
    used = strlen(hint);
    if (nseen) snprintf(hint + used, len - used, ")");
    else hint[0] = '\0';
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "FILE:LINE: KEY", "--set ARG", or "FILE: KEY" for a key that was not given. */
PetscErrorCode FGCaseWhere_Internal(FGCaseCtx ctx, PetscInt k, char *buf, size_t len)
{
  const FGKeyValue *v = &ctx->vals[k];

  PetscFunctionBeginUser;
  if (v->set && v->setarg) snprintf(buf, len, "--set %s", v->setarg);
  else if (v->set) snprintf(buf, len, "%s:%d: %s", ctx->file, v->line, ctx->keys[k].path);
  else snprintf(buf, len, "%s: %s", ctx->file, ctx->keys[k].path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The line of a section in the file (0: not in the file). */
PetscErrorCode FGCaseSectionLine_Internal(FGCaseCtx ctx, const char *path, int *line)
{
  PetscFunctionBeginUser;
  *line = 0;
  for (PetscInt s = 0; s < ctx->nsec; s++)
    if (!strcmp(ctx->sec[s].path, path)) {
      *line = ctx->sec[s].line;
      break;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt FGCaseChoicesCount_Internal(const FGKeyDef *def)
{
  PetscInt n = 0;
  if (!def->choices) return 0;
  while (def->choices[n]) n++;
  return n - 2; /* PETSc-style: the names, then the type name and the prefix */
}

/* "a, b, c" (quote = "`" for Markdown). */
PetscErrorCode FGCaseChoicesString_Internal(const FGKeyDef *def, const char *quote, char *buf, size_t len)
{
  PetscInt n = FGCaseChoicesCount_Internal(def);

  PetscFunctionBeginUser;
  buf[0] = '\0';
  for (PetscInt i = 0; i < n; i++) {
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s%s%s", i ? ", " : "", quote, def->choices[i], quote);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void FGBoundString_Private(const FGKeyDef *def, PetscReal v, char *buf, size_t len)
{
  if (def->type == FG_KEY_INT) snprintf(buf, len, "%lld", (long long)v);
  else snprintf(buf, len, "%g", (double)v);
}

/* The allowed range as text: "[2, 1048576]", "(0, 1)", "> 0", ">= 1", "non-empty", or "". */
PetscErrorCode FGCaseRangeString_Internal(const FGKeyDef *def, char *buf, size_t len)
{
  char lo[64], hi[64];

  PetscFunctionBeginUser;
  buf[0] = '\0';
  if (def->type == FG_KEY_STRING) {
    if (def->minb != FG_BOUND_NONE) snprintf(buf, len, "non-empty");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  FGBoundString_Private(def, def->min, lo, sizeof(lo));
  FGBoundString_Private(def, def->max, hi, sizeof(hi));
  if (def->minb && def->maxb) snprintf(buf, len, "%s%s, %s%s", def->minb == FG_BOUND_OPEN ? "(" : "[", lo, hi, def->maxb == FG_BOUND_OPEN ? ")" : "]");
  else if (def->minb) snprintf(buf, len, "%s %s", def->minb == FG_BOUND_OPEN ? ">" : ">=", lo);
  else if (def->maxb) snprintf(buf, len, "%s %s", def->maxb == FG_BOUND_OPEN ? "<" : "<=", hi);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "real", "real list" (grid.dim entries), "real list, 0-24 entries", "real list, 2 entries",
   "string list, 0-16 entries", "list of [x, y], 4-64 points". */
PetscErrorCode FGCaseTypeName_Internal(const FGKeyDef *def, char *buf, size_t len)
{
  static const char *const scalar[] = {"int", "real", "bool", "string", "enum"};

  PetscFunctionBeginUser;
  if (def->maxlen && def->tuple == 2) snprintf(buf, len, "list of [x, y], %" PetscInt_FMT "-%" PetscInt_FMT " points", def->minlen, def->maxlen);
  else if (def->maxlen && def->minlen == def->maxlen) snprintf(buf, len, "%s list, %" PetscInt_FMT " entries", scalar[def->type], def->maxlen);
  else if (def->maxlen) snprintf(buf, len, "%s list, %" PetscInt_FMT "-%" PetscInt_FMT " entries", scalar[def->type], def->minlen, def->maxlen);
  else snprintf(buf, len, "%s%s", scalar[def->type], def->list ? " list" : "");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Print s with the characters that would break a Markdown table cell escaped. */
static PetscErrorCode FGPrintCell_Private(FILE *fp, const char *s)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " "));
  for (const char *p = s; *p; p++) {
    if (*p == '|') PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "|"));
    else PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "%c", *p));
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, " |"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGCasePrintKeys - print every case-file key as a Markdown table (the block of docs/case-files.md).

  Not collective: prints on rank 0 of PETSC_COMM_WORLD only.

  Input Parameter:
. fp - the stream (stdout for `flowgrad info --keys`)

  Notes:
  One row per key of the table in src/case/keys.c: key, type, default, allowed range, description.
  The six boundary faces share the rows `boundary.<face>.*`, the bodies `body.<body>.*` (and so
  on for probes, actuators and objectives). The block of docs/case-files.md between the
  `case-keys` markers is this output; the test case_keys_documented compares them.

.seealso: FGCaseLoad()
@*/
PetscErrorCode FGCasePrintKeys(FILE *fp)
{
  const size_t n = sizeof(FGCaseKeys) / sizeof(FGCaseKeys[0]);

  PetscFunctionBeginUser;
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "Every key a case file may hold (generated from `src/case/keys.c`). Lists have one entry per direction\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "(x, y[, z]: `grid.dim` entries) unless their type gives their length; ranges apply to each entry.\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "`<body>`, `<probe>`, `<actuator>` and `<objective>` stand for names the case file chooses (`body: {cyl: {shape: circle, ...}}`).\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "Any key can be overridden from the command line with `--set key=value` (e.g. `--set flow.re=200`,\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "`--set grid.cells=[128,128]`, `--set body.cyl.radius=0.6` for a body of the file).\n\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "| key | type | default | range | description |\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "|---|---|---|---|---|\n"));
  for (size_t i = 0; i < n; i++) {
    const FGKeyDef *def = &FGCaseKeys[i];
    char            buf[512];

    snprintf(buf, sizeof(buf), "`%s`", def->path);
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "|"));
    PetscCall(FGPrintCell_Private(fp, buf));
    PetscCall(FGCaseTypeName_Internal(def, buf, sizeof(buf)));
    PetscCall(FGPrintCell_Private(fp, buf));
    if (def->required && def->applies) snprintf(buf, sizeof(buf), "**required** where it applies");
    else if (def->required) snprintf(buf, sizeof(buf), "**required**");
    else if (def->defdoc) snprintf(buf, sizeof(buf), "%s", def->defdoc);
    else if (!def->def) snprintf(buf, sizeof(buf), "none");
    else if (def->type == FG_KEY_STRING && !def->maxlen) snprintf(buf, sizeof(buf), "`\"%s\"`", def->def); /* a list of strings: its default is a list */
    else snprintf(buf, sizeof(buf), "`%s`", def->def);
    PetscCall(FGPrintCell_Private(fp, buf));
    if (def->type == FG_KEY_ENUM) PetscCall(FGCaseChoicesString_Internal(def, "`", buf, sizeof(buf)));
    else PetscCall(FGCaseRangeString_Internal(def, buf, sizeof(buf)));
    PetscCall(FGPrintCell_Private(fp, buf));
    PetscCall(FGPrintCell_Private(fp, def->doc));
    PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
