/*
  XDMF sidecars: a small XML file next to each field file that tells ParaView (and VisIt) what the
  HDF5 datasets are. (Debian's VTK 9.1 vtkHDFReader crashes on 2D ImageData, hence XDMF.)

  Every mesh is 3D: a 2D grid is one layer of cells in the XY plane (z in [-hz/2, hz/2], hz its
  smallest cell width; the face grids' nodes at z = 0), because ParaView puts a 2D XDMF mesh in
  its YZ plane (x along Y). A uniform grid is a 3DCoRectMesh: node dimensions, origin and spacing,
  all listed slowest direction first ("nz ny nx", "z0 y0 x0", "hz hy hx"). The file holds a
  spatial collection with one uniform grid per location that has fields:

    cell     nodes = cell corners: Dimensions n+1, Origin x0, Spacing h; attributes Center="Cell"
    face_x   nodes = the face centres themselves: Dimensions n (the data's shape), Origin shifted
             to (x0 + h, y0 + h/2, z0 + h/2) (see FGGridCoordinate), attributes Center="Node";
             face_y and face_z alike.

  A grid with a stretched direction is a 3DRectMesh with VXVYVZ geometry instead: the nodes'
  coordinates per direction, x first, inline (the cell grid's nodes are the faces; a face grid's
  are the faces along its own direction and the centres along the others).

  Each attribute's DataItem is Format="HDF", NumberType="Float" Precision="8", Dimensions = the
  dataset's shape (2D: with a leading 1; a vector field: AttributeType="Vector" and a trailing 3),
  text "<base name of the .h5>:/<name>" (relative to the .xmf, so the pair can be moved together;
  the Xdmf3 readers, given a .xmf path without a directory, look for "<name>.xmf<base name>": open
  it as ./name.xmf or by its full path). Rank 0 writes it atomically (FGIOWriteTextAtomic:
  <xmf>.tmp, synced, renamed into place). FGIOWriteXDMFSeries gathers a directory's sidecars into
  one temporal collection.
*/
#include <fg/io.h>
#include <fg/iofile.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*@C
  FGIOXDMFPath - the sidecar's name for a field file: <path without .h5>.xmf.

  Not collective.

  Input Parameters:
+ path - the HDF5 file name
- len  - length of xmf

  Output Parameter:
. xmf - the sidecar's name (<path>.xmf when path does not end in .h5)
@*/
PetscErrorCode FGIOXDMFPath(const char *path, char *xmf, size_t len)
{
  size_t n;

  PetscFunctionBeginUser;
  PetscCheck(path && path[0], PETSC_COMM_SELF, FG_ERR_INPUT, "field output: empty file name");
  n = strlen(path);
  if (n > 3 && !strcmp(path + n - 3, ".h5")) n -= 3;
  PetscCheck(n + 5 <= len, PETSC_COMM_SELF, FG_ERR_INPUT, "field output: file name too long: %s", path);
  snprintf(xmf, len, "%.*s.xmf", (int)n, path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* s with XML's five special characters escaped */
static void FGXDMFPutEscaped_Private(FILE *fp, const char *s)
{
  for (; *s; s++) {
    switch (*s) {
    case '&':
      fputs("&amp;", fp);
      break;
    case '<':
      fputs("&lt;", fp);
      break;
    case '>':
      fputs("&gt;", fp);
      break;
    case '"':
      fputs("&quot;", fp);
      break;
    case '\'':
      fputs("&apos;", fp);
      break;
    default:
      fputc(*s, fp);
    }
  }
}

/* "a b c" slowest first, from per-direction values (x y z order) */
static void FGXDMFPutReals_Private(FILE *fp, PetscInt dim, const double v[])
{
  for (PetscInt d = dim - 1; d >= 0; d--) fprintf(fp, "%s%.17g", d == dim - 1 ? "" : " ", v[d]);
}

static void FGXDMFPutInts_Private(FILE *fp, PetscInt dim, const PetscInt v[], PetscInt add)
{
  for (PetscInt d = dim - 1; d >= 0; d--) fprintf(fp, "%s%" PetscInt_FMT, d == dim - 1 ? "" : " ", v[d] + add);
}

/* The thickness of a 2D grid's slab of cells: its smallest cell width (so that it looks flat and
   takes no part in a picture's scale). */
static double FGXDMFSlab_Private(FGGrid grid)
{
  double hz = PETSC_MAX_REAL;
  for (PetscInt d = 0; d < grid->dim; d++)
    for (PetscInt i = 0; i < grid->n[d]; i++) hz = PetscMin(hz, (double)grid->ax[d].dxf[i]);
  return hz;
}

/* One uniform grid: the nodes of location loc and its fields. Always a 3D mesh: a 2D grid is one
   layer of cells in the XY plane, z in [-hz/2, hz/2] (the cell grid) or its nodes at z = 0 (the
   face grids), so that ParaView shows x along X and y along Y (a 2D XDMF mesh lands in its YZ
   plane); its datasets (ny, nx) are read as (1, ny, nx). */
static void FGXDMFPutGrid_Private(FILE *fp, FGGrid grid, FGLocation loc, double time, const char *h5base, PetscInt nfields, const FGIOField fields[])
{
  const PetscInt  dim  = grid->dim;
  const PetscBool cell = (PetscBool)(loc == FG_LOC_CELL);
  const double    hz   = dim == 2 ? FGXDMFSlab_Private(grid) : 0;
  PetscInt        nodes[3], data[3];
  double          origin[3], spacing[3];

  for (PetscInt d = 0; d < 3; d++) {
    if (d < dim) {
      nodes[d]   = grid->n[d] + (cell ? 1 : 0);
      data[d]    = grid->n[d];
      /* cell grid: the corner; face grids: the first face centre (FGGridCoordinate of index 0) */
      origin[d]  = cell ? (double)grid->x0[d] : (double)FGGridCoordinate(grid, loc, d, 0);
      spacing[d] = (double)grid->h[d];
    } else { /* 2D: the slab */
      nodes[d] = cell ? 2 : 1, data[d] = 1;
      origin[d] = cell ? -0.5 * hz : 0.0, spacing[d] = hz;
    }
  }
  fprintf(fp, "      <Grid Name=\"%s\" GridType=\"Uniform\">\n", FGLocationNames[loc]);
  fprintf(fp, "        <Time Value=\"%.17g\"/>\n", time);
  fprintf(fp, "        <Topology TopologyType=\"%s\" Dimensions=\"", grid->isuniform ? "3DCoRectMesh" : "3DRectMesh");
  FGXDMFPutInts_Private(fp, 3, nodes, 0);
  fprintf(fp, "\"/>\n");
  if (!grid->isuniform) { /* a rectilinear mesh: the node coordinates per direction, x first */
    fprintf(fp, "        <Geometry GeometryType=\"VXVYVZ\">\n");
    for (PetscInt d = 0; d < 3; d++) {
      fprintf(fp, "          <DataItem Dimensions=\"%" PetscInt_FMT "\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">", nodes[d]);
      if (d < dim) {
        const FGAxis    *ax   = &grid->ax[d];
        const PetscBool  face = (PetscBool)(cell || loc == (FGLocation)(FG_LOC_FACE_X + d));
        const PetscReal *x    = cell ? ax->xf - 1 : face ? ax->xf : ax->xc;
        for (PetscInt i = 0; i < nodes[d]; i++) fprintf(fp, "%s%.17g", i ? " " : "", (double)x[i]);
      } else {
        for (PetscInt i = 0; i < nodes[d]; i++) fprintf(fp, "%s%.17g", i ? " " : "", origin[d] + i * hz);
      }
      fprintf(fp, "</DataItem>\n");
    }
    fprintf(fp, "        </Geometry>\n");
  } else {
    fprintf(fp, "        <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n");
    fprintf(fp, "          <DataItem Name=\"Origin\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">");
    FGXDMFPutReals_Private(fp, 3, origin);
    fprintf(fp, "</DataItem>\n");
    fprintf(fp, "          <DataItem Name=\"Spacing\" Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">");
    FGXDMFPutReals_Private(fp, 3, spacing);
    fprintf(fp, "</DataItem>\n");
    fprintf(fp, "        </Geometry>\n");
  }
  for (PetscInt f = 0; f < nfields; f++) {
    if (fields[f].location != loc) continue;
    fprintf(fp, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"%s\">\n", fields[f].name, fields[f].ncomp ? "Vector" : "Scalar", cell ? "Cell" : "Node");
    fprintf(fp, "          <DataItem Dimensions=\"");
    FGXDMFPutInts_Private(fp, 3, data, 0);
    if (fields[f].ncomp) fprintf(fp, " 3");
    fprintf(fp, "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">");
    FGXDMFPutEscaped_Private(fp, h5base);
    fprintf(fp, ":/%s</DataItem>\n", fields[f].name);
    fprintf(fp, "        </Attribute>\n");
  }
  fprintf(fp, "      </Grid>\n");
}

typedef struct {
  FGGrid           grid;
  const char      *h5path;
  const FGIOMeta  *meta;
  PetscInt         nfields;
  const FGIOField *fields;
} FGXDMFContext;

/* The sidecar's text (rank 0, through FGIOWriteTextAtomic). */
static PetscErrorCode FGXDMFWrite_Private(FILE *fp, void *ctx)
{
  const FGXDMFContext *x     = (const FGXDMFContext *)ctx;
  const char          *slash = strrchr(x->h5path, '/'), *h5base = slash ? slash + 1 : x->h5path;
  const char          *cname = x->meta->case_name && x->meta->case_name[0] ? x->meta->case_name : "fields";
  const double         time  = x->meta->time_is_step ? (double)x->meta->step : (double)x->meta->time;

  PetscFunctionBeginUser;
  fprintf(fp, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
  fprintf(fp, "<Xdmf xmlns:xi=\"http://www.w3.org/2001/XInclude\" Version=\"3.0\">\n");
  fprintf(fp, "  <Domain>\n");
  fprintf(fp, "    <Grid Name=\"");
  FGXDMFPutEscaped_Private(fp, cname);
  fprintf(fp, "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n");
  fprintf(fp, "      <Time Value=\"%.17g\"/>\n", time);
  fprintf(fp, "      <Information Name=\"step\" Value=\"%lld\"/>\n", (long long)x->meta->step);
  if (x->meta->time_is_step) fprintf(fp, "      <Information Name=\"time_axis\" Value=\"step\"/>\n");
  fprintf(fp, "      <Information Name=\"case_hash\" Value=\"%016llx\"/>\n", x->meta->case_hash);
  fprintf(fp, "      <Information Name=\"flowgrad_version\" Value=\"%s\"/>\n", FGVersion());
  for (int loc = FG_LOC_CELL; loc <= FG_LOC_FACE_Z; loc++) {
    PetscBool any = (PetscBool)(loc == FG_LOC_CELL); /* the cell grid even without fields: the domain */
    for (PetscInt f = 0; f < x->nfields; f++)
      if ((int)x->fields[f].location == loc) any = PETSC_TRUE;
    if (any) FGXDMFPutGrid_Private(fp, x->grid, (FGLocation)loc, time, h5base, x->nfields, x->fields);
  }
  fprintf(fp, "    </Grid>\n");
  fprintf(fp, "  </Domain>\n");
  fprintf(fp, "</Xdmf>\n");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGIOWriteXDMF - write the XDMF sidecar of a field file.

  Collective on the grid's communicator (rank 0 writes).

  Input Parameters:
+ grid    - the grid
. h5path  - the HDF5 field file the sidecar describes (its base name is written, relative)
. meta    - time, step, case hash and name (rank 0's)
. nfields - number of fields
- fields  - the fields in the file (only names and locations are used)

  Notes:
  Writes FGIOXDMFPath(h5path) with FGIOWriteTextAtomic() (a .tmp file, synced, renamed).
  FGIOWriteFields() calls it; call it alone to (re)write a sidecar. FG_ERR_IO_WRITE on failure, on
  every rank.

  Open the .xmf in ParaView with the "Xdmf3ReaderS" (or "XDMF Reader"): a multiblock of one
  uniform grid per location (cell, face_x, ...).

.seealso: FGIOWriteFields(), FGIOXDMFPath(), FGIOWriteTextAtomic()
@*/
PetscErrorCode FGIOWriteXDMF(FGGrid grid, const char *h5path, const FGIOMeta *meta, PetscInt nfields, const FGIOField fields[])
{
  PetscBool     ok = PETSC_TRUE;
  char          xmf[PETSC_MAX_PATH_LEN], msg[2 * PETSC_MAX_PATH_LEN + 200] = "";
  FGXDMFContext x  = {grid, h5path, meta, nfields, fields};

  PetscFunctionBeginUser;
  PetscCall(FGIOCheckFields(grid, nfields, fields, &ok, msg, sizeof(msg)));
  PetscCheck(ok, grid->comm, FG_ERR_INPUT, "%s", msg);
  PetscCheck(h5path && h5path[0] && strlen(h5path) + 10 < sizeof(xmf), grid->comm, FG_ERR_INPUT, "field output: empty or too long file name");
  PetscCall(FGIOXDMFPath(h5path, xmf, sizeof(xmf)));
  PetscCall(FGIOWriteTextAtomic(grid->comm, xmf, "the XDMF sidecar", FGXDMFWrite_Private, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------------------------------------
   A time series: the sidecars of a directory in one temporal collection
   --------------------------------------------------------------------------------------------- */

typedef struct {
  long long number;
  char      name[256];
} FGXDMFEntry;

static int FGXDMFEntryCompare_Private(const void *a, const void *b)
{
  const long long x = ((const FGXDMFEntry *)a)->number, y = ((const FGXDMFEntry *)b)->number;
  return x < y ? -1 : x > y;
}

typedef struct {
  const char  *name;
  PetscInt     n;
  FGXDMFEntry *e;
} FGXDMFSeries;

static PetscErrorCode FGXDMFSeriesWrite_Private(FILE *fp, void *ctx)
{
  const FGXDMFSeries *x = (const FGXDMFSeries *)ctx;

  PetscFunctionBeginUser;
  fprintf(fp, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
  fprintf(fp, "<Xdmf xmlns:xi=\"http://www.w3.org/2001/XInclude\" Version=\"3.0\">\n");
  fprintf(fp, "  <Domain>\n");
  fprintf(fp, "    <Grid Name=\"");
  FGXDMFPutEscaped_Private(fp, x->name);
  fprintf(fp, "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (PetscInt i = 0; i < x->n; i++) {
    fprintf(fp, "      <xi:include href=\"");
    FGXDMFPutEscaped_Private(fp, x->e[i].name);
    fprintf(fp, "\" xpointer=\"xpointer(//Xdmf/Domain/Grid)\"/>\n");
  }
  fprintf(fp, "    </Grid>\n");
  fprintf(fp, "  </Domain>\n");
  fprintf(fp, "</Xdmf>\n");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  FGIOWriteXDMFSeries - one XDMF file that ParaView opens as a single time-dependent dataset: a
  temporal collection of every sidecar <dir>/<prefix><digits>.xmf, in the order of their numbers,
  each included (XInclude) where it is, so the series costs one line per output.

  Collective (rank 0 scans the directory and writes).

  Input Parameters:
+ comm   - the ranks that write together
. dir    - the directory of the sidecars (and of the series)
. prefix - the sidecars' prefix ("fields_", "iter_", ...)
- series - the series' name: the file <dir>/<series>.xmf, and its grid's name

  Notes:
  Written atomically (FGIOWriteTextAtomic); call it after each new output. The series lives next
  to its sidecars because XDMF readers resolve an included file's HDF5 references against the
  including file's directory. Each step keeps its own Time (FGIOMeta.time_is_step: the iteration).

.seealso: FGIOWriteXDMF(), FGIOWriteFields()
@*/
PetscErrorCode FGIOWriteXDMFSeries(MPI_Comm comm, const char *dir, const char *prefix, const char *series)
{
  FGXDMFSeries x = {series, 0, NULL};
  PetscMPIInt  rank;
  char         path[PETSC_MAX_PATH_LEN];
  size_t       np = strlen(prefix);

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank) {
    DIR           *d = opendir(dir);
    struct dirent *de;
    PetscInt       cap = 0;
    while (d && (de = readdir(d))) {
      const char *s = de->d_name;
      size_t      n = strlen(s), k = np;
      if (n < np + 5 || strncmp(s, prefix, np) || strcmp(s + n - 4, ".xmf") || n >= sizeof(x.e[0].name)) continue;
      while (k < n - 4 && s[k] >= '0' && s[k] <= '9') k++;
      if (k != n - 4 || k == np) continue; /* <prefix><digits>.xmf only */
      if (x.n == cap) {
        cap = cap ? 2 * cap : 64;
        PetscCall(PetscRealloc(sizeof(FGXDMFEntry) * (size_t)cap, &x.e));
      }
      x.e[x.n].number = strtoll(s + np, NULL, 10);
      snprintf(x.e[x.n].name, sizeof(x.e[x.n].name), "%s", s);
      x.n++;
    }
    if (d) closedir(d);
    if (x.n) qsort(x.e, (size_t)x.n, sizeof(FGXDMFEntry), FGXDMFEntryCompare_Private);
  }
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s.xmf", dir, series));
  PetscCall(FGIOWriteTextAtomic(comm, path, "the XDMF time series", FGXDMFSeriesWrite_Private, &x));
  PetscCall(PetscFree(x.e));
  PetscFunctionReturn(PETSC_SUCCESS);
}
