/* flowgrad: umbrella header. */
#ifndef FLOWGRAD_H
#define FLOWGRAD_H

#include <fg/sys.h>
#include <fg/case.h>
#include <fg/grid.h>
#include <fg/poisson.h>
#include <fg/io.h>
#include <fg/iofile.h>
#include <fg/table.h>
#include <fg/checkpoint.h>
#include <fg/shape.h>
#include <fg/density.h>
#include <fg/adjoint.h>

#endif
