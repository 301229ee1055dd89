/*
  XDMF sidecars: a small XML file next to each field file that tells ParaView (and VisIt) what the
  HDF5 datasets are. (Debian's VTK 9.1 vtkHDFReader crashes on 2D ImageData, hence XDMF.)

  A uniform grid is an XDMF CoRectMesh: node dimensions, origin and spacing, all listed slowest
  direction first ("nz ny nx", "z0 y0 x0", "hz hy hx"; 2D drops z). The file holds a spatial
  collection with one uniform grid per location that has fields:

    cell     nodes = cell corners: Dimensions n+1, Origin x0, Spacing h; attributes Center="Cell"
    face_x   nodes = the face centres themselves: Dimensions n (the data's shape), Origin shifted
             to (x0 + h, y0 + h/2, z0 + h/2) (see FGGridCoordinate), attributes Center="Node";
             face_y and face_z alike.

  A grid with a stretched direction is a RectMesh with VXVY(VZ) geometry instead: the nodes'
  coordinates per direction, x first, inline (the cell grid's nodes are the faces; a face grid's
  are the faces along its own direction and the centres along the others).

  Each attribute's DataItem is Format="HDF", NumberType="Float" Precision="8", Dimensions = the
  dataset's shape, text "<base name of the .h5>:/<name>" (relative to the .xmf, so the pair can
  be moved together). Rank 0 writes it atomically (FGIOWriteTextAtomic: <xmf>.tmp, synced,
  renamed into place).
*/
#include <fg/io.h>
#include <fg/iofile.h>
#include <stdio.h>
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

/* One uniform grid: the nodes of location loc and its fields. */
static void FGXDMFPutGrid_Private(FILE *fp, FGGrid grid, FGLocation loc, double time, const char *h5base, PetscInt nfields, const FGIOField fields[])
{
  PetscInt  dim  = grid->dim;
  PetscBool cell = (PetscBool)(loc == FG_LOC_CELL);
  double    origin[3], spacing[3];

  for (PetscInt d = 0; d < 3; d++) {
    /* cell grid: the corner; face grids: the first face centre (FGGridCoordinate of index 0) */
    origin[d]  = cell ? (double)grid->x0[d] : (double)FGGridCoordinate(grid, loc, d, 0);
    spacing[d] = (double)grid->h[d];
  }
  fprintf(fp, "      <Grid Name=\"%s\" GridType=\"Uniform\">\n", FGLocationNames[loc]);
  fprintf(fp, "        <Time Value=\"%.17g\"/>\n", time);
  if (!grid->isuniform) { /* a rectilinear mesh: the node coordinates per direction, x first */
    fprintf(fp, "        <Topology TopologyType=\"%dDRectMesh\" Dimensions=\"", (int)dim);
    FGXDMFPutInts_Private(fp, dim, grid->n, cell ? 1 : 0);
    fprintf(fp, "\"/>\n");
    fprintf(fp, "        <Geometry GeometryType=\"%s\">\n", dim == 2 ? "VXVY" : "VXVYVZ");
    for (PetscInt d = 0; d < dim; d++) {
      const FGAxis  *ax   = &grid->ax[d];
      const PetscBool face = (PetscBool)(cell || loc == (FGLocation)(FG_LOC_FACE_X + d));
      const PetscInt  n    = grid->n[d] + (cell ? 1 : 0);
      const PetscReal *x   = cell ? ax->xf - 1 : face ? ax->xf : ax->xc;
      fprintf(fp, "          <DataItem Dimensions=\"%" PetscInt_FMT "\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">", n);
      for (PetscInt i = 0; i < n; i++) fprintf(fp, "%s%.17g", i ? " " : "", (double)x[i]);
      fprintf(fp, "</DataItem>\n");
    }
    fprintf(fp, "        </Geometry>\n");
  } else {
  fprintf(fp, "        <Topology TopologyType=\"%dDCoRectMesh\" Dimensions=\"", (int)dim);
  FGXDMFPutInts_Private(fp, dim, grid->n, cell ? 1 : 0);
  fprintf(fp, "\"/>\n");
  fprintf(fp, "        <Geometry GeometryType=\"%s\">\n", dim == 2 ? "ORIGIN_DXDY" : "ORIGIN_DXDYDZ");
  fprintf(fp, "          <DataItem Name=\"Origin\" Dimensions=\"%d\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">", (int)dim);
  FGXDMFPutReals_Private(fp, dim, origin);
  fprintf(fp, "</DataItem>\n");
  fprintf(fp, "          <DataItem Name=\"Spacing\" Dimensions=\"%d\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">", (int)dim);
  FGXDMFPutReals_Private(fp, dim, spacing);
  fprintf(fp, "</DataItem>\n");
  fprintf(fp, "        </Geometry>\n");
  }
  for (PetscInt f = 0; f < nfields; f++) {
    if (fields[f].location != loc) continue;
    fprintf(fp, "        <Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"%s\">\n", fields[f].name, cell ? "Cell" : "Node");
    fprintf(fp, "          <DataItem Dimensions=\"");
    FGXDMFPutInts_Private(fp, dim, grid->n, 0);
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

  PetscFunctionBeginUser;
  fprintf(fp, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
  fprintf(fp, "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n");
  fprintf(fp, "<Xdmf xmlns:xi=\"http://www.w3.org/2001/XInclude\" Version=\"3.0\">\n");
  fprintf(fp, "  <Domain>\n");
  fprintf(fp, "    <Grid Name=\"");
  FGXDMFPutEscaped_Private(fp, cname);
  fprintf(fp, "\" GridType=\"Collection\" CollectionType=\"Spatial\">\n");
  fprintf(fp, "      <Time Value=\"%.17g\"/>\n", (double)x->meta->time);
  fprintf(fp, "      <Information Name=\"step\" Value=\"%lld\"/>\n", (long long)x->meta->step);
  fprintf(fp, "      <Information Name=\"case_hash\" Value=\"%016llx\"/>\n", x->meta->case_hash);
  fprintf(fp, "      <Information Name=\"flowgrad_version\" Value=\"%s\"/>\n", FGVersion());
  for (int loc = FG_LOC_CELL; loc <= FG_LOC_FACE_Z; loc++) {
    PetscBool any = (PetscBool)(loc == FG_LOC_CELL); /* the cell grid even without fields: the domain */
    for (PetscInt f = 0; f < x->nfields; f++)
      if ((int)x->fields[f].location == loc) any = PETSC_TRUE;
    if (any) FGXDMFPutGrid_Private(fp, x->grid, (FGLocation)loc, (double)x->meta->time, h5base, x->nfields, x->fields);
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
