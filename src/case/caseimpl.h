/* Private to src/case: the key table's types and the loading context.

   One table of keys (keys.c) drives the parser (parse.c), the defaults and cross-checks
   (validate.c, validate_*.c), the resolved YAML (resolved.c) and the Markdown docs
   (FGCasePrintKeys).

   To add a key: add one FGKeyDef row to the table in keys.c, in the section where it belongs
   (rows of one section stay together; the resolved YAML nests them in table order), with its
   storage in FGCase (include/fg/case.h). A new section needs nothing else: a section is any
   prefix of a key's path. A default that depends on other keys is a `compute` callback, a rule
   that ties keys together is a `check` callback, and a key that exists only under a condition
   (a face's velocity only on lid/inflow faces) has an `applies` callback; all in validate.c
   (the case as a whole), validate_body.c (bodies, probes), validate_objective.c (objectives,
   design) or validate_optim.c (the keys of flowgrad optimize).
   A required key with an `applies` callback is required only where it applies.

   Families: a path component in angle brackets stands for the instances of a family (FGKeyFamily
   in keys.c): `<face>` for the six faces of the box, `<body>`, `<probe>`, `<actuator>`,
   `<objective>` for the instances the case file names (body: {cyl: {...}, wing: {...}}). The rows
   of a family are consecutive; their offsets are into the instance's struct (FGBoundaryFace,
   FGBodyCase, ...). The concrete keys (FGKeyRef) exist per instance, made once the file's names
   are known. A key whose validity depends on another key of the same instance (a body's radius on
   its shape, an objective's window on its time) reads that key's value from the instance in its
   `applies` callback (FGCaseInstance_Internal).

   Lists: `list` is one entry per direction (grid.dim); `maxlen` makes a variable-length list of
   minlen..maxlen entries whose count is stored at `count` (a PetscInt), each entry a number or,
   with `tuple` = 2, a pair [x, y] stored flat, or a string (FG_KEY_STRING: each entry a char
   array of `size` bytes, the entries `size` bytes apart: char[maxlen][size]); `same_length` names
   a sibling list that must have as many entries; `entry_where` (with `entry_wherelen` > 0) keeps
   where each entry was given ("FILE:LINE: KEY" with the entry's line, or "--set ARG"), for
   messages about one entry after parsing.

   Then regenerate the README block (`flowgrad info --keys`; the test case_keys_documented
   tells you when it is stale). */
#ifndef FG_CASEIMPL_H
#define FG_CASEIMPL_H

#include <fg/case.h>
#include <yaml.h>

#define FG_CASE_MAX_BYTES    (1 << 20) /* case files are at most 1 MiB */
#define FG_CASE_MAX_KEYS     1024      /* concrete keys, after expanding the families (475 with every family full; room to grow) */
#define FG_CASE_MAX_SECTIONS 96        /* sections seen in one file (about 60 with every family full) */
#define FG_CASE_PATH_LEN     64        /* longest dotted path + 1 */
#define FG_CASE_WHERE_LEN    1024      /* "FILE:LINE: KEY" or "--set ARG" (truncated) */
#define FG_CASE_MAX_NAMES    (FG_CASE_MAX_KEYS + FG_CASE_MAX_SECTIONS) /* keys and sections a case may hold */

typedef enum { FG_KEY_INT, FG_KEY_REAL, FG_KEY_BOOL, FG_KEY_STRING, FG_KEY_ENUM } FGKeyType;
typedef enum { FG_BOUND_NONE = 0, FG_BOUND_CLOSED, FG_BOUND_OPEN } FGBound;

typedef struct _n_FGCaseCtx *FGCaseCtx;
typedef struct _n_FGKeyRef   FGKeyRef;

/* A family of instances with the same keys: the faces of the box, or the bodies, probes or
   actuators the case file names. */
typedef struct {
  const char        *token;   /* the path component that stands for an instance: "<face>", "<body>" */
  const char        *section; /* the section holding the instances: "boundary", "body" */
  const char        *noun;    /* one instance, for messages: "face", "body" */
  const char        *plural;  /* "faces", "bodies" */
  const char *const *fixed;   /* the instances' names when they are fixed (faces); NULL: named by the case file */
  PetscInt           max;     /* at most this many instances */
  size_t             base;    /* the instances are an array at this offset in FGCase ... */
  size_t             stride;  /* ... of structs of this size */
  size_t             count;   /* named families: where the number of instances is stored (PetscInt in FGCase) */
  size_t             name;    /* named families: the instance's name (char[FG_CASE_NAME_LEN]) in its struct */
  size_t             where;   /* named families: "FILE:LINE: section.NAME" in its struct */
  size_t             wherelen; /* the size of that char array */
} FGKeyFamily;

/* One row of the key table. */
typedef struct {
  const char        *path;     /* dotted path; "<face>" stands for x_lo, ..., z_hi, "<body>" for a body's name, ... */
  FGKeyType          type;     /* element type */
  PetscBool          list;     /* a list of grid.dim entries; range and choices apply to each */
  PetscInt           minlen, maxlen; /* maxlen > 0: a list of minlen..maxlen entries (FG_KEY_REAL, FG_KEY_STRING) */
  PetscInt           tuple;    /* variable-length lists: each entry a list of this many numbers (0: a number) */
  size_t             count;    /* variable-length lists: where the number of entries is stored (a PetscInt, like offset) */
  const char        *same_length; /* variable-length lists: the sibling list that must have as many entries */
  size_t             entry_where, entry_wherelen; /* variable-length lists, entry_wherelen > 0: where each entry was given,
                                                     char[maxlen][entry_wherelen] at entry_where (like offset) */
  const char *const *choices;  /* FG_KEY_ENUM: a PETSc-style names array (names, type, prefix, NULL) */
  PetscBool          required; /* no default: the case must give it */
  PetscBool          multiline; /* FG_KEY_STRING: may hold newlines and tabs (other strings: no control characters) */
  const char        *def;      /* default as YAML text (lists: the default of every entry; variable-length lists: "[]"); NULL: none (an optional key without a default is left out of the resolved case unless given) */
  const char        *defdoc;   /* the default as documented when it is not `def` (computed ones) */
  PetscReal          min, max; /* range (elementwise for lists) */
  FGBound            minb, maxb;
  const char        *doc;      /* one line, Markdown */
  size_t             offset;   /* where it is stored: offsetof(FGCase, ...), or offsetof(FGBoundaryFace, ...) for <face> keys, ... */
  size_t             size;     /* FG_KEY_STRING: the size of the char array */
  const char        *excludes; /* a --set of this key drops this other key if it came from the file */
  PetscErrorCode (*compute)(FGCaseCtx, const FGKeyRef *);                  /* default that depends on other keys */
  PetscErrorCode (*check)(FGCaseCtx, const FGKeyRef *);                    /* cross-check, after all defaults */
  PetscBool (*applies)(FGCaseCtx, const FGKeyRef *, char *why, size_t len); /* NULL: always applies */
} FGKeyDef;

/* A concrete key: a table row, with <face>, <body>, ... replaced by one instance. */
struct _n_FGKeyRef {
  const FGKeyDef     *def;
  char                path[FG_CASE_PATH_LEN];
  const FGKeyFamily  *family; /* the row's family, or NULL */
  PetscInt            inst;   /* the instance (0..max-1) of the family; -1 without one */
  PetscInt            axis, side; /* <face> keys: the face (axis 0..2, FG_FACE_LO/HI); -1 otherwise */
  size_t              offset;     /* into FGCase */
  size_t              count;      /* variable-length lists: where the number of entries is, in FGCase */
  size_t              entry_where; /* variable-length lists with entry_wherelen: where the entries' origins are, in FGCase */
};

/* Where a key's value came from. */
typedef struct {
  PetscBool   set;    /* given by the file or by --set */
  PetscInt    n;      /* lists: number of entries given */
  int         line;   /* file line, 1-based (file values) */
  const char *setarg; /* the --set argument (--set values), else NULL */
} FGKeyValue;

struct _n_FGCaseCtx {
  MPI_Comm    comm;
  const char *file; /* the case file's name as given (messages) */
  FGCase     *c;
  PetscInt    dim; /* grid.dim, once known */

  PetscInt   nkeys;
  FGKeyRef   keys[FG_CASE_MAX_KEYS];
  FGKeyValue vals[FG_CASE_MAX_KEYS];

  PetscInt nnames; /* every key and section a file may hold now, in table order (suggestions) */
  struct {
    char      path[FG_CASE_PATH_LEN];
    PetscBool section;
  } names[FG_CASE_MAX_NAMES];

  PetscInt nsec; /* sections met in the file, with their lines */
  struct {
    char path[FG_CASE_PATH_LEN];
    int  line;
  } sec[FG_CASE_MAX_SECTIONS];

  /* libyaml objects in use, released by FGCaseCtxDestroy_Internal whatever happens */
  yaml_parser_t   parser;
  yaml_document_t doc, extra;
  PetscBool       has_parser, has_doc, has_extra;
};

/* keys.c */
PETSC_INTERN PetscErrorCode FGCaseKeysSetUp_Internal(FGCaseCtx);
PETSC_INTERN PetscInt       FGCaseKeyDefCount_Internal(void);
PETSC_INTERN PetscErrorCode FGCaseKeyFind_Internal(FGCaseCtx, const char *, PetscInt *);
PETSC_INTERN PetscErrorCode FGCaseIsSection_Internal(FGCaseCtx, const char *, PetscBool *);
PETSC_INTERN PetscErrorCode FGCaseSuggest_Internal(FGCaseCtx, const char *, char *, size_t);
PETSC_INTERN PetscInt       FGCaseEditDistance_Internal(const char *, const char *);
PETSC_INTERN PetscErrorCode FGCaseRangeString_Internal(const FGKeyDef *, char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseChoicesString_Internal(const FGKeyDef *, const char *, char *, size_t);
PETSC_INTERN PetscInt       FGCaseChoicesCount_Internal(const FGKeyDef *);
PETSC_INTERN PetscErrorCode FGCaseTypeName_Internal(const FGKeyDef *, char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseWhere_Internal(FGCaseCtx, PetscInt, char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseSectionLine_Internal(FGCaseCtx, const char *, int *);
PETSC_INTERN const FGKeyFamily *FGCaseFamilyOfSection_Internal(const char *, size_t);
PETSC_INTERN PetscInt       FGCaseInstanceCount_Internal(FGCaseCtx, const FGKeyFamily *);
PETSC_INTERN const char    *FGCaseInstanceName_Internal(FGCaseCtx, const FGKeyFamily *, PetscInt);
PETSC_INTERN void          *FGCaseInstance_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseInstanceAdd_Internal(FGCaseCtx, const FGKeyFamily *, const char *, size_t, int);
PETSC_INTERN PetscErrorCode FGCaseInstancesString_Internal(FGCaseCtx, const FGKeyFamily *, char *, size_t);

/* parse.c */
PETSC_INTERN PetscErrorCode FGCaseParseText_Internal(FGCaseCtx, const char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseParseSet_Internal(FGCaseCtx, const char *);
PETSC_INTERN PetscErrorCode FGCaseScalar_Internal(FGCaseCtx, const FGKeyRef *, const char *, const char *, size_t, PetscBool, void *);
PETSC_INTERN size_t         FGCaseElementSize_Internal(const FGKeyDef *);
PETSC_INTERN PetscErrorCode FGCaseYAMLRelease_Internal(FGCaseCtx);

/* validate.c: the steps, the case as a whole, and helpers for the validate_*.c */
PETSC_INTERN PetscBool      FGCaseKeyExists_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscInt       FGCaseFind_Internal(FGCaseCtx, const char *);                       /* the key with this path, or -1 */
PETSC_INTERN PetscInt       FGCaseSibling_Internal(FGCaseCtx, const FGKeyRef *, const char *);  /* the key `leaf` of ref's instance or face, or -1 */
PETSC_INTERN const char     FGCaseAxis_Internal[];                                              /* "xyz" */
PETSC_INTERN PetscErrorCode FGCaseValidate_Internal(FGCaseCtx);
PETSC_INTERN PetscErrorCode FGCaseComputeName_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseComputeOutputDir_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseComputeFaceType_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseComputeNu_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseComputeDt_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckCfl_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseComputeRe_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckFaceType_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckStretch_Internal(FGCaseCtx, const FGKeyRef *); /* grid.c */
PETSC_INTERN PetscBool      FGCaseAppliesStretchBand_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesStretchBandOrBodies_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesStretchBodies_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesStretchTanh_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesStretchFaces_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesStretchFile_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseCheckFaceVelocity_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckRe_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscBool      FGCaseAppliesFaceVelocity_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesFaceProfile_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseCheckFaceProfile_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscBool      FGCaseAppliesFaceModulation_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseCheckInitialType_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscBool      FGCaseAppliesInitialVelocity_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesInitialAmplitude_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesInitialFile_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseCheckAdjointMemory_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckSteadyDt_Internal(FGCaseCtx, const FGKeyRef *);
/* validate_body.c: bodies and probes */
PETSC_INTERN PetscBool      FGCaseAppliesBodySolid_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesBodyBand_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesBodySharp_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseCheckBodyApertures_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckBodyLineFlux_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckBodySharedGhost_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscBool      FGCaseAppliesBodyStiff_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesBodySkin_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseCheckBodySkinOffset_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscBool      FGCaseAppliesBodyRadius_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesBodySemiAxes_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesBodyFourier_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesBodyNaca_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesBodyChord_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesBodyCst_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesBodyBspline_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesBodyDensity_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseComputeBodyEta_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseComputeBodyRefLength_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseComputeBodyRefSpeed_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseComputeBodyRefArea_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckBodyShape_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckBodySemiAxes_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckBodyNaca_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckBodyControlValues_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckProbePoint_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckLengths_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckOptimizerType_Internal(FGCaseCtx, const FGKeyRef *);
/* validate_objective.c: objectives and the design */
PETSC_INTERN PetscBool      FGCaseAppliesObjectiveBody_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesObjectiveProbe_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesObjectiveRegion_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesObjectiveTracking_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesObjectiveTargetFile_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseCheckObjectiveTargetFile_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscBool      FGCaseAppliesObjectiveStatistic_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesObjectiveAverage_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesObjectiveInstant_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseComputeObjectiveBody_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckObjectiveKind_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckObjectiveBody_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckObjectiveProbe_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckObjectiveRegion_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckObjectiveTarget_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckObjectiveObservations_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckObjectiveTime_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckObjectiveWindow_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckObjectiveRamp_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckObjectiveAt_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckObjectiveStatistic_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckObjectiveWeight_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckDesign_Internal(FGCaseCtx, const FGKeyRef *);
/* validate_optim.c: the keys of flowgrad optimize */
PETSC_INTERN PetscErrorCode FGCaseCheckDesignBounds_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckConstraintKind_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseComputeConstraintBody_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckConstraintBody_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseComputeConstraintRelation_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckConstraintRelation_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckConstraintValue_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscBool      FGCaseAppliesConstraintThickness_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesConstraintFraction_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscBool      FGCaseAppliesConstraintFlow_Internal(FGCaseCtx, const FGKeyRef *, char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseCheckConstraintTime_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckConstraintWindow_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckPointSet_Internal(FGCaseCtx, const FGKeyRef *);

/* resolved.c */
PETSC_INTERN PetscErrorCode FGCaseResolve_Internal(FGCaseCtx);
PETSC_INTERN PetscErrorCode FGCaseFormatReal_Internal(PetscReal, char *, size_t);

#endif
