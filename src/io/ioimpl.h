/* Private helpers shared by the I/O files (src/io/). */
#ifndef FG_IOIMPL_H
#define FG_IOIMPL_H

#include <petscsys.h>

/* The innermost entry of HDF5's error stack ("H5FD_mpio_open: MPI_File_open failed: ..."),
   into buf; then the stack is cleared. Call it right after the failing HDF5 call. */
PETSC_INTERN void FGIOHDF5Message(char *, size_t);

#endif
