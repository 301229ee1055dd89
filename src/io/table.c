/*
  Tables (include/fg/table.h): columns with names and number formats, rows of numbers, written as
  CSV (whole and atomically, or streamed a row at a time) and as HDF5 datasets.

  The formats are kept as a conversion and a precision and printed with literal formats
  ("%.*g", "%.*f", "%.*e", "%lld"), so that a column prints exactly what printf(format) prints.
  Everything here that writes a file does it on rank 0 and agrees on the outcome (agree.c): the
  CSV through FGIOWriteTextAtomic, the HDF5 file through a .tmp written with serial HDF5 (h5.c)
  whose failure, captured as a message, becomes a collective FG_ERR_IO_WRITE.
*/
#define _POSIX_C_SOURCE 200809L /* getline under -std=c11 */
#include <fg/table.h>
#include <fg/iofile.h>
#include "ioimpl.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char     *name;
  char      conv;   /* 'g', 'f', 'e', or 'd' (an integer) */
  int       prec;   /* digits after the point (f, e) or significant digits (g) */
  PetscBool hidden; /* not in the CSV */
} FGTableColumn;

typedef struct {
  char      *name;
  PetscInt   first, n; /* the columns */
  PetscBool  matrix;   /* rows x n with "<name>_names"; else one column, 1-D */
  char     **labels;   /* matrix: n labels (NULL: the column names) */
} FGTableDataset;

struct _p_FGTable {
  MPI_Comm        comm;
  char           *label_name; /* the header of the row-label column (NULL: none) */
  PetscInt        ncomments;
  char          **comments;
  PetscInt        ncols;
  FGTableColumn  *cols;
  PetscInt        nrows, caprows;
  PetscReal      *values; /* nrows x ncols, row-major */
  char          **labels; /* one per row when there is a label column */
  PetscInt        ndsets;
  FGTableDataset *dsets;
  FILE           *stream; /* rank 0: the open stream (FGTableStreamOpen) */
};

/*@C
  FGTableCreate - an empty table.

  Collective (the ranks that will write it).

  Input Parameter:
. comm - communicator; rank 0 writes the files, every rank gets the outcome

  Output Parameter:
. t - the table

.seealso: FGTableAddColumn(), FGTableAddRow(), FGTableWriteCSV(), FGTableDestroy()
@*/
PetscErrorCode FGTableCreate(MPI_Comm comm, FGTable *t)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(t));
  (*t)->comm = comm;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGTableDestroy - free a table (and close its stream).

  Not collective.
@*/
PetscErrorCode FGTableDestroy(FGTable *t)
{
  FGTable T = *t;

  PetscFunctionBeginUser;
  if (!T) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(FGTableStreamClose(T));
  for (PetscInt i = 0; i < T->ncomments; i++) PetscCall(PetscFree(T->comments[i]));
  for (PetscInt i = 0; i < T->ncols; i++) PetscCall(PetscFree(T->cols[i].name));
  for (PetscInt i = 0; T->labels && i < T->nrows; i++) PetscCall(PetscFree(T->labels[i]));
  for (PetscInt i = 0; i < T->ndsets; i++) {
    for (PetscInt j = 0; T->dsets[i].labels && j < T->dsets[i].n; j++) PetscCall(PetscFree(T->dsets[i].labels[j]));
    PetscCall(PetscFree(T->dsets[i].labels));
    PetscCall(PetscFree(T->dsets[i].name));
  }
  PetscCall(PetscFree(T->label_name));
  PetscCall(PetscFree(T->comments));
  PetscCall(PetscFree(T->cols));
  PetscCall(PetscFree(T->values));
  PetscCall(PetscFree(T->labels));
  PetscCall(PetscFree(T->dsets));
  PetscCall(PetscFree(*t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGTableAddComment - a line "# text" above the CSV header (in the order added).

  Not collective.
@*/
PetscErrorCode FGTableAddComment(FGTable t, const char *text)
{
  PetscFunctionBeginUser;
  PetscCall(PetscRealloc(sizeof(char *) * (size_t)(t->ncomments + 1), &t->comments));
  PetscCall(PetscStrallocpy(text, &t->comments[t->ncomments++]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGTableSetLabelColumn - give every row a label (a string), printed as the first CSV column under
  the header name; FGTableAddRow() then takes a label. Before any row.

  Not collective.
@*/
PetscErrorCode FGTableSetLabelColumn(FGTable t, const char *name)
{
  PetscFunctionBeginUser;
  PetscCheck(t->nrows == 0, PETSC_COMM_SELF, PETSC_ERR_ORDER, "FGTableSetLabelColumn: the table has rows already");
  PetscCall(PetscFree(t->label_name));
  PetscCall(PetscStrallocpy(name, &t->label_name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "%.17g" -> ('g', 17); "%lld" or "%d" -> ('d', 0); "%g" -> ('g', 6); anything else: false */
static PetscBool FGTableParseFormat_Private(const char *fmt, char *conv, int *prec)
{
  const char *s = fmt;
  char       *end;

  if (!fmt) fmt = s = "%.17g";
  if (!strcmp(fmt, "%lld") || !strcmp(fmt, "%d")) {
    *conv = 'd', *prec = 0;
    return PETSC_TRUE;
  }
  if (*s++ != '%') return PETSC_FALSE;
  *prec = 6;
  if (*s == '.') {
    long p = strtol(s + 1, &end, 10);
    if (end == s + 1 || p < 0 || p > 40) return PETSC_FALSE;
    *prec = (int)p;
    s     = end;
  }
  if ((*s != 'g' && *s != 'f' && *s != 'e') || s[1]) return PETSC_FALSE;
  *conv = *s;
  return PETSC_TRUE;
}

/*@C
  FGTableAddColumn - append a column. Before any row.

  Not collective.

  Input Parameters:
+ t      - the table
. name   - its name (CSV header, HDF5 label)
- format - how its numbers are printed: NULL or "%.17g" (exact doubles), "%.6f", "%.8g", "%.3e",
           ... (g, f or e with a precision), or FG_TABLE_INT ("%lld": as an integer)

.seealso: FGTableSetColumnHidden(), FGTableAddRow()
@*/
PetscErrorCode FGTableAddColumn(FGTable t, const char *name, const char *format)
{
  FGTableColumn *c;

  PetscFunctionBeginUser;
  PetscCheck(t->nrows == 0 && !t->stream, PETSC_COMM_SELF, PETSC_ERR_ORDER, "FGTableAddColumn: the table has rows already");
  PetscCall(PetscRealloc(sizeof(FGTableColumn) * (size_t)(t->ncols + 1), &t->cols));
  c = &t->cols[t->ncols];
  PetscCall(PetscMemzero(c, sizeof(*c)));
  PetscCheck(FGTableParseFormat_Private(format, &c->conv, &c->prec), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "FGTableAddColumn: column %s: format \"%s\" is not one of %%lld, %%d, %%[.N]g, %%[.N]f, %%[.N]e", name, format);
  PetscCall(PetscStrallocpy(name, &c->name));
  t->ncols++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGTableSetColumnHidden - leave a column out of the CSV (it stays in the HDF5 datasets).

  Not collective.
@*/
PetscErrorCode FGTableSetColumnHidden(FGTable t, PetscInt col, PetscBool hidden)
{
  PetscFunctionBeginUser;
  PetscCheck(col >= 0 && col < t->ncols, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "FGTableSetColumnHidden: no column %" PetscInt_FMT, col);
  t->cols[col].hidden = hidden;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGTableGetSize - the number of rows and of columns.

  Not collective.
@*/
PetscErrorCode FGTableGetSize(FGTable t, PetscInt *nrows, PetscInt *ncols)
{
  PetscFunctionBeginUser;
  if (nrows) *nrows = t->nrows;
  if (ncols) *ncols = t->ncols;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGTableAddRow - append a row.

  Not collective (call it on every rank with the same values: rank 0's are written).

  Input Parameters:
+ t      - the table
. label  - the row's label (with a label column; else ignored, may be NULL)
- values - one value per column
@*/
PetscErrorCode FGTableAddRow(FGTable t, const char *label, const PetscReal values[])
{
  PetscFunctionBeginUser;
  PetscCheck(!t->label_name || label, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "FGTableAddRow: the table has a label column; the row needs a label");
  if (t->nrows == t->caprows) {
    t->caprows = PetscMax(16, 2 * t->caprows);
    PetscCall(PetscRealloc(sizeof(PetscReal) * (size_t)t->caprows * (size_t)PetscMax(t->ncols, 1), &t->values));
    if (t->label_name) PetscCall(PetscRealloc(sizeof(char *) * (size_t)t->caprows, &t->labels));
  }
  if (t->ncols) PetscCall(PetscArraycpy(t->values + t->nrows * t->ncols, values, t->ncols));
  if (t->label_name) PetscCall(PetscStrallocpy(label, &t->labels[t->nrows]));
  t->nrows++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   CSV
   --------------------------------------------------------------------------------------------- */

static void FGTablePutRow_Private(FILE *fp, FGTable t, const char *label, const PetscReal v[])
{
  PetscBool first = PETSC_TRUE;

  if (t->label_name) {
    fputs(label ? label : "", fp);
    first = PETSC_FALSE;
  }
  for (PetscInt i = 0; i < t->ncols; i++) {
    const FGTableColumn *c = &t->cols[i];
    if (c->hidden) continue;
    if (!first) fputc(',', fp);
    first = PETSC_FALSE;
    switch (c->conv) {
    case 'd':
      fprintf(fp, "%lld", (long long)v[i]);
      break;
    case 'f':
      fprintf(fp, "%.*f", c->prec, (double)v[i]);
      break;
    case 'e':
      fprintf(fp, "%.*e", c->prec, (double)v[i]);
      break;
    default:
      fprintf(fp, "%.*g", c->prec, (double)v[i]);
    }
  }
  fputc('\n', fp);
}

/* The comment lines and the header. */
static void FGTablePutHead_Private(FILE *fp, FGTable t)
{
  PetscBool first = PETSC_TRUE;

  for (PetscInt i = 0; i < t->ncomments; i++) fprintf(fp, "# %s\n", t->comments[i]);
  if (t->label_name) {
    fputs(t->label_name, fp);
    first = PETSC_FALSE;
  }
  for (PetscInt i = 0; i < t->ncols; i++) {
    if (t->cols[i].hidden) continue;
    fprintf(fp, "%s%s", first ? "" : ",", t->cols[i].name);
    first = PETSC_FALSE;
  }
  fputc('\n', fp);
}

static PetscErrorCode FGTableWriteCSV_Private(FILE *fp, void *ctx)
{
  FGTable t = (FGTable)ctx;

  PetscFunctionBeginUser;
  FGTablePutHead_Private(fp, t);
  for (PetscInt r = 0; r < t->nrows; r++) FGTablePutRow_Private(fp, t, t->labels ? t->labels[r] : NULL, t->values + r * t->ncols);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGTableWriteCSV - write the table as a CSV file, atomically.

  Collective.

  Input Parameters:
+ t    - the table
- path - the file (replaced)

  Notes:
  Comment lines, the header, the rows (rank 0's). Through FGIOWriteTextAtomic(): <path>.tmp,
  synced, renamed; FG_ERR_IO_WRITE on every rank on failure.

.seealso: FGTableStreamOpen(), FGTableWriteHDF5()
@*/
PetscErrorCode FGTableWriteCSV(FGTable t, const char *path)
{
  PetscFunctionBeginUser;
  PetscCall(FGIOWriteTextAtomic(t->comm, path, NULL, FGTableWriteCSV_Private, t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   Stream
   --------------------------------------------------------------------------------------------- */
typedef struct {
  FGTable     t;
  const char *old; /* the file whose rows are kept (NULL: none) */
  PetscInt    keep;
} FGTableKeep;

/* The head, then the rows of the old file (its first line, the header, dropped) whose first field
   is an integer <= keep, complete lines only (a line cut by a kill is dropped). */
static PetscErrorCode FGTableWriteKept_Private(FILE *fp, void *ctx)
{
  FGTableKeep *k = (FGTableKeep *)ctx;
  FILE        *in;
  char        *line = NULL;
  size_t       cap  = 0;
  ssize_t      n;

  PetscFunctionBeginUser;
  FGTablePutHead_Private(fp, k->t);
  if (!k->old || !(in = fopen(k->old, "r"))) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscBool head = PETSC_TRUE; (n = getline(&line, &cap, in)) > 0; head = PETSC_FALSE) {
    char     *end;
    long long step = strtoll(line, &end, 10);
    if (!head && end != line && *end == ',' && line[n - 1] == '\n' && step <= (long long)k->keep) fputs(line, fp);
  }
  free(line);
  (void)fclose(in);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGTableStreamOpen - start a CSV file that rows are appended to as they come (FGTableStreamRow()),
  e.g. a run's history.

  Collective.

  Input Parameters:
+ t    - the table (its comments and columns; its rows are not written)
. path - the file
- keep - < 0: a new file; >= 0: keep the rows of the existing file whose first column is an
         integer <= keep (a resumed run keeps the rows up to its checkpoint's step), after the
         table's own head (the old file's first line, its header, is replaced)

  Notes:
  The head and the kept rows are written atomically (FGIOWriteTextAtomic()); then rank 0 opens the
  file to append to it. A failure is FG_ERR_IO_WRITE on every rank. Close with
  FGTableStreamClose() or FGTableDestroy().

.seealso: FGTableStreamRow(), FGTableStreamClose(), FGTableWriteCSV()
@*/
PetscErrorCode FGTableStreamOpen(FGTable t, const char *path, PetscInt keep)
{
  FGTableKeep k = {t, keep < 0 ? NULL : path, keep};
  PetscMPIInt rank;
  PetscBool   ok;
  char        msg[PETSC_MAX_PATH_LEN + 128] = "";

  PetscFunctionBeginUser;
  PetscCheck(!t->stream, PETSC_COMM_SELF, PETSC_ERR_ORDER, "FGTableStreamOpen: the table has an open stream");
  PetscCall(FGIOWriteTextAtomic(t->comm, path, NULL, FGTableWriteKept_Private, &k));
  PetscCallMPI(MPI_Comm_rank(t->comm, &rank));
  if (rank == 0 && !(t->stream = fopen(path, "a"))) snprintf(msg, sizeof(msg), "cannot append to %s: %s", path, strerror(errno));
  PetscCall(FGIOAgree(t->comm, msg, sizeof(msg), &ok));
  PetscCheck(ok, t->comm, FG_ERR_IO_WRITE, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGTableStreamRow - append a row to the open stream and flush it (rank 0; elsewhere nothing).

  Not collective.

  Input Parameters:
+ t      - the table
. label  - the row's label (with a label column)
- values - one value per column

  Notes:
  The row is not kept in the table. Output errors are not reported here (a run does not stop for
  its history file).
@*/
PetscErrorCode FGTableStreamRow(FGTable t, const char *label, const PetscReal values[])
{
  PetscFunctionBeginUser;
  if (!t->stream) PetscFunctionReturn(PETSC_SUCCESS);
  FGTablePutRow_Private(t->stream, t, label, values);
  (void)fflush(t->stream);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGTableStreamClose - close the stream (if open).

  Not collective.
@*/
PetscErrorCode FGTableStreamClose(FGTable t)
{
  PetscFunctionBeginUser;
  if (t->stream) (void)fclose(t->stream);
  t->stream = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   HDF5
   --------------------------------------------------------------------------------------------- */

/*@C
  FGTableAddDataset - a dataset of the HDF5 form of the table (FGTableWriteHDF5()).

  Not collective.

  Input Parameters:
+ t      - the table
. name   - the dataset
. first  - its first column
. n      - its number of columns
. matrix - PETSC_TRUE: a 2-D dataset (rows, n) and "<name>_names" with the labels of its columns;
           PETSC_FALSE: one column (n = 1) as a 1-D dataset of the rows
- labels - (matrix) the n labels; NULL: the column names

  Notes:
  Datasets are written in the order added, then the label datasets. A table without datasets is
  written as one matrix "table" of all its columns.
@*/
PetscErrorCode FGTableAddDataset(FGTable t, const char *name, PetscInt first, PetscInt n, PetscBool matrix, const char *const labels[])
{
  FGTableDataset *d;

  PetscFunctionBeginUser;
  PetscCheck(first >= 0 && n >= 0 && first + n <= t->ncols && (matrix || n == 1), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "FGTableAddDataset: dataset %s: columns %" PetscInt_FMT "..%" PetscInt_FMT " of %" PetscInt_FMT "%s", name, first, first + n - 1, t->ncols, matrix ? "" : " (a 1-D dataset is one column)");
  PetscCall(PetscRealloc(sizeof(FGTableDataset) * (size_t)(t->ndsets + 1), &t->dsets));
  d = &t->dsets[t->ndsets++];
  PetscCall(PetscMemzero(d, sizeof(*d)));
  PetscCall(PetscStrallocpy(name, &d->name));
  d->first  = first;
  d->n      = n;
  d->matrix = matrix;
  if (matrix && labels) {
    PetscCall(PetscCalloc1(PetscMax(n, 1), &d->labels));
    for (PetscInt i = 0; i < n; i++) PetscCall(PetscStrallocpy(labels[i], &d->labels[i]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rank 0: the datasets into tmp (serial HDF5); *fid is left open (>= 0) only on failure. */
static PetscErrorCode FGTableWriteHDF5Local_Private(FGTable t, const char *tmp, hid_t *fid)
{
  FGTableDataset  all = {(char *)"table", 0, t->ncols, PETSC_TRUE, NULL};
  FGTableDataset *ds  = t->ndsets ? t->dsets : &all;
  PetscInt        nd  = t->ndsets ? t->ndsets : 1;
  double         *buf;
  char            why[320];

  PetscFunctionBeginUser;
  PetscCall(FGH5OpenFile_Internal(MPI_COMM_NULL, tmp, H5F_ACC_TRUNC, fid, why, sizeof(why)));
  PetscCheck(*fid >= 0, PETSC_COMM_SELF, FG_ERR_IO_WRITE, "cannot create %s: %s", tmp, why);
  PetscCall(PetscMalloc1(PetscMax(t->nrows * t->ncols, 1), &buf));
  for (PetscInt i = 0; i < nd; i++) {
    hsize_t dims[2] = {(hsize_t)t->nrows, (hsize_t)ds[i].n};
    for (PetscInt r = 0; r < t->nrows; r++)
      for (PetscInt j = 0; j < ds[i].n; j++) buf[r * ds[i].n + j] = (double)t->values[r * t->ncols + ds[i].first + j];
    PetscCall(FGH5WriteDataset_Internal(MPI_COMM_NULL, tmp, *fid, ds[i].name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, ds[i].matrix ? 2 : 1, dims, buf));
  }
  PetscCall(PetscFree(buf));
  for (PetscInt i = 0; i < nd; i++) {
    char         lname[PETSC_MAX_PATH_LEN];
    const char **names;
    if (!ds[i].matrix) continue;
    PetscCall(PetscMalloc1(PetscMax(ds[i].n, 1), &names));
    for (PetscInt j = 0; j < ds[i].n; j++) names[j] = ds[i].labels ? ds[i].labels[j] : t->cols[ds[i].first + j].name;
    snprintf(lname, sizeof(lname), "%s_names", ds[i].name);
    PetscCall(FGH5WriteLabels_Internal(MPI_COMM_NULL, tmp, *fid, lname, (hsize_t)ds[i].n, names));
    PetscCall(PetscFree(names));
  }
  FGCallHDF5(FG_ERR_IO_WRITE, tmp, H5Fclose, (*fid));
  *fid = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGTableWriteHDF5 - write the table's datasets (FGTableAddDataset()) to an HDF5 file, atomically.

  Collective.

  Input Parameters:
+ t    - the table
- path - the file (replaced)

  Notes:
  Rank 0 writes <path>.tmp with serial HDF5 (IEEE double datasets; labels as fixed-length strings
  of 128 bytes), closes it and renames it to <path>. A failure, HDF5's or the rename's, removes
  the .tmp and is FG_ERR_IO_WRITE on every rank, with HDF5's message.

.seealso: FGTableAddDataset(), FGTableWriteCSV()
@*/
PetscErrorCode FGTableWriteHDF5(FGTable t, const char *path)
{
  PetscMPIInt rank;
  PetscBool   ok;
  char        msg[2 * PETSC_MAX_PATH_LEN + 512] = "";

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(t->comm, &rank));
  if (rank == 0) {
    char           tmp[PETSC_MAX_PATH_LEN + 8], why[PETSC_MAX_PATH_LEN + 400];
    hid_t          fid = -1;
    PetscErrorCode ierr;

    if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) snprintf(msg, sizeof(msg), "cannot write %s: path too long", path);
    else {
      PetscCall(FGErrorCapturePush(why, sizeof(why)));
      ierr = FGTableWriteHDF5Local_Private(t, tmp, &fid);
      PetscCall(FGErrorCapturePop());
      if (fid >= 0) (void)H5Fclose(fid); /* closes every object in it (H5F_CLOSE_STRONG) */
      if (ierr) {
        (void)remove(tmp);
        snprintf(msg, sizeof(msg), "cannot write %s: %s", path, why[0] ? why : "HDF5 failed");
      } else FGIORenameLocal_Internal(tmp, path, msg, sizeof(msg));
    }
  }
  PetscCall(FGIOAgree(t->comm, msg, sizeof(msg), &ok));
  PetscCheck(ok, t->comm, FG_ERR_IO_WRITE, "%s", msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}
