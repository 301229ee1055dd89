/* Private to src/case: the key table's types and the loading context.

   One table of keys (keys.c) drives the parser (parse.c), the defaults and cross-checks
   (validate.c), the resolved YAML (resolved.c) and the Markdown docs (FGCasePrintKeys).

   To add a key: add one FGKeyDef row to the table in keys.c, in the section where it belongs
   (rows of one section stay together; the resolved YAML nests them in table order), with its
   storage in FGCase (include/fg/case.h). A new section needs nothing else: a section is any
   prefix of a key's path. A default that depends on other keys is a `compute` callback, a rule
   that ties keys together is a `check` callback, and a key that exists only under a condition
   (a face's velocity only on lid/inflow faces) has an `applies` callback; all in validate.c.
   Then regenerate the README block (`flowgrad info --keys`; the test case_keys_documented
   tells you when it is stale). */
#ifndef FG_CASEIMPL_H
#define FG_CASEIMPL_H

#include <fg/case.h>
#include <yaml.h>

#define FG_CASE_MAX_BYTES    (1 << 20) /* case files are at most 1 MiB */
#define FG_CASE_MAX_KEYS     256       /* concrete keys, after expanding <face> */
#define FG_CASE_MAX_SECTIONS 64        /* sections seen in one file */
#define FG_CASE_PATH_LEN     64        /* longest dotted path + 1 */
#define FG_CASE_WHERE_LEN    1024      /* "FILE:LINE: KEY" or "--set ARG" (truncated) */

typedef enum { FG_KEY_INT, FG_KEY_REAL, FG_KEY_BOOL, FG_KEY_STRING, FG_KEY_ENUM } FGKeyType;
typedef enum { FG_BOUND_NONE = 0, FG_BOUND_CLOSED, FG_BOUND_OPEN } FGBound;

typedef struct _n_FGCaseCtx *FGCaseCtx;
typedef struct _n_FGKeyRef   FGKeyRef;

/* One row of the key table. */
typedef struct {
  const char        *path;     /* dotted path; "<face>" stands for x_lo, x_hi, y_lo, y_hi, z_lo, z_hi */
  FGKeyType          type;     /* element type */
  PetscBool          list;     /* a list of grid.dim entries; range and choices apply to each */
  const char *const *choices;  /* FG_KEY_ENUM: a PETSc-style names array (names, type, prefix, NULL) */
  PetscBool          required; /* no default: the case must give it */
  PetscBool          multiline; /* FG_KEY_STRING: may hold newlines and tabs (other strings: no control characters) */
  const char        *def;      /* default as YAML text (lists: the default of every entry); NULL: none */
  const char        *defdoc;   /* the default as documented when it is not `def` (computed ones) */
  PetscReal          min, max; /* range (elementwise for lists) */
  FGBound            minb, maxb;
  const char        *doc;      /* one line, Markdown */
  size_t             offset;   /* where it is stored: offsetof(FGCase, ...), or offsetof(FGBoundaryFace, ...) for <face> keys */
  size_t             size;     /* FG_KEY_STRING: the size of the char array */
  const char        *excludes; /* a --set of this key drops this other key if it came from the file */
  PetscErrorCode (*compute)(FGCaseCtx, const FGKeyRef *);                  /* default that depends on other keys */
  PetscErrorCode (*check)(FGCaseCtx, const FGKeyRef *);                    /* cross-check, after all defaults */
  PetscBool (*applies)(FGCaseCtx, const FGKeyRef *, char *why, size_t len); /* NULL: always applies */
} FGKeyDef;

/* A concrete key: a table row, with <face> replaced by one face. */
struct _n_FGKeyRef {
  const FGKeyDef *def;
  char            path[FG_CASE_PATH_LEN];
  PetscInt        axis, side; /* <face> keys: the face (axis 0..2, FG_FACE_LO/HI); -1 otherwise */
  size_t          offset;     /* into FGCase */
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
PETSC_INTERN const char    *FGCaseTypeName_Internal(const FGKeyDef *);
PETSC_INTERN PetscErrorCode FGCaseWhere_Internal(FGCaseCtx, PetscInt, char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseSectionLine_Internal(FGCaseCtx, const char *, int *);

/* parse.c */
PETSC_INTERN PetscErrorCode FGCaseParseText_Internal(FGCaseCtx, const char *, size_t);
PETSC_INTERN PetscErrorCode FGCaseParseSet_Internal(FGCaseCtx, const char *);
PETSC_INTERN PetscErrorCode FGCaseScalar_Internal(FGCaseCtx, const FGKeyRef *, const char *, const char *, size_t, PetscBool, void *);
PETSC_INTERN size_t         FGCaseElementSize_Internal(const FGKeyDef *);
PETSC_INTERN PetscErrorCode FGCaseYAMLRelease_Internal(FGCaseCtx);

/* validate.c */
PETSC_INTERN PetscErrorCode FGCaseValidate_Internal(FGCaseCtx);
PETSC_INTERN PetscErrorCode FGCaseComputeName_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseComputeOutputDir_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseComputeFaceType_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseComputeNu_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseComputeRe_Internal(FGCaseCtx, const FGKeyRef *);
PETSC_INTERN PetscErrorCode FGCaseCheckFaceType_Internal(FGCaseCtx, const FGKeyRef *);
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
PETSC_INTERN PetscBool      FGCaseKeyExists_Internal(FGCaseCtx, const FGKeyRef *);

/* resolved.c */
PETSC_INTERN PetscErrorCode FGCaseResolve_Internal(FGCaseCtx);
PETSC_INTERN PetscErrorCode FGCaseFormatReal_Internal(PetscReal, char *, size_t);

#endif
