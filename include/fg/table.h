/* flowgrad tables (src/io/table.c): named columns of numbers, one row per record, written as CSV
   and, where wanted, as HDF5 datasets.

   CSV. Lines "# <comment>" first, then the header (the column names, comma-separated, after the
   row-label column when there is one), then one line per row. Each column has a printf format for
   its numbers: "%.17g" (the default: every double exactly), "%.6f", "%.8g", ... (conversions g,
   f, e with a precision), or FG_TABLE_INT ("%lld": the value as an integer). A hidden column is in
   the HDF5 datasets but not in the CSV. Written whole and atomically (FGTableWriteCSV), or streamed
   a row at a time, flushed after each row, to a file that survives a kill (FGTableStream*).

   HDF5. FGTableWriteHDF5 writes, by rank 0 alone, a file of datasets (IEEE double): each dataset
   added with FGTableAddDataset is a range of columns, either one column as a 1-D dataset of the
   rows, or a matrix (rows x columns) with the labels of its columns in "<name>_names" (fixed-length
   strings of 128 bytes). A table with no dataset added is written as one matrix "table" with
   "table_names". Atomic too (a .tmp, renamed).

   Rows are kept on every rank (the caller adds the same values everywhere); rank 0's are written,
   and every rank gets the outcome: a failure is FG_ERR_IO_WRITE on every rank. */
#ifndef FG_TABLE_H
#define FG_TABLE_H

#include <fg/sys.h>

typedef struct _p_FGTable *FGTable;

#define FG_TABLE_INT "%lld" /* a column of integers */

PETSC_EXTERN PetscErrorCode FGTableCreate(MPI_Comm, FGTable *);
PETSC_EXTERN PetscErrorCode FGTableDestroy(FGTable *);
PETSC_EXTERN PetscErrorCode FGTableAddComment(FGTable, const char *);
PETSC_EXTERN PetscErrorCode FGTableSetLabelColumn(FGTable, const char *);
PETSC_EXTERN PetscErrorCode FGTableAddColumn(FGTable, const char *, const char *);
PETSC_EXTERN PetscErrorCode FGTableSetColumnHidden(FGTable, PetscInt, PetscBool);
PETSC_EXTERN PetscErrorCode FGTableGetSize(FGTable, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode FGTableAddRow(FGTable, const char *, const PetscReal[]);
PETSC_EXTERN PetscErrorCode FGTableWriteCSV(FGTable, const char *);

PETSC_EXTERN PetscErrorCode FGTableAddDataset(FGTable, const char *, PetscInt, PetscInt, PetscBool, const char *const[]);
PETSC_EXTERN PetscErrorCode FGTableWriteHDF5(FGTable, const char *);

PETSC_EXTERN PetscErrorCode FGTableStreamOpen(FGTable, const char *, PetscInt);
PETSC_EXTERN PetscErrorCode FGTableStreamRow(FGTable, const char *, const PetscReal[]);
PETSC_EXTERN PetscErrorCode FGTableStreamClose(FGTable);

#endif
