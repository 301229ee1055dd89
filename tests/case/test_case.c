/*
  Unit test of the case module (src/case): good cases parse to the right values with every
  default filled in, --set overrides, the resolved YAML round-trips to the same case and hash,
  and every class of input error is FG_ERR_INPUT, on every rank, with the expected
  "FILE:LINE: KEY: ..." text.

  Sample runs:
    mpiexec -n 1 ./test_case
    mpiexec -n 3 ./test_case
*/
#include <fg/case.h>
#include "../../src/case/caseimpl.h" /* the key table size */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static PetscMPIInt rank, size;
static PetscInt    nfail, nchecks;
static char        errmsg[4096];

/* Records the first message of an error instead of printing a traceback. */
static PetscErrorCode RecordError(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  if (p == PETSC_ERROR_INITIAL) snprintf(errmsg, sizeof(errmsg), "%s", mess ? mess : "");
  return n;
}

#define CHECK(cond, ...) \
  do { \
    nchecks++; \
    if (!(cond)) { \
      nfail++; \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] FAIL line %d: %s: ", (int)rank, __LINE__, #cond)); \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, __VA_ARGS__)); \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n")); \
    } \
  } while (0)

#define CLOSE(a, b) (PetscAbsReal((PetscReal)(a) - (PetscReal)(b)) <= 1e-14 * PetscMax(1.0, PetscAbsReal((PetscReal)(b))))

/* Load text that must be valid. */
static PetscErrorCode LoadOK(int line, const char *name, const char *text, PetscInt nset, const char *const sets[], FGCase *c)
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  errmsg[0] = '\0';
  PetscCall(PetscPushErrorHandler(RecordError, NULL));
  ierr = FGCaseLoadString(PETSC_COMM_WORLD, name, text, nset, sets, c);
  PetscCall(PetscPopErrorHandler());
  nchecks++;
  if (ierr) {
    nfail++;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] FAIL line %d: unexpected error %d: %s\n", (int)rank, line, (int)ierr, errmsg));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The outcome of a load, and its message. */
static PetscErrorCode Expect(int line, PetscErrorCode ierr, PetscErrorCode code, const char *expect)
{
  PetscFunctionBeginUser;
  nchecks++;
  if (ierr != code || !strstr(errmsg, expect)) {
    nfail++;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] FAIL line %d: expected error %d with \"%s\"\n       got error %d: \"%s\"\n", (int)rank, line, (int)code, expect, (int)ierr, errmsg));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Load text that must fail with FG_ERR_INPUT and a message containing `expect`. */
static PetscErrorCode LoadBad(int line, const char *text, PetscInt nset, const char *const sets[], const char *expect)
{
  FGCase        *c;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&c));
  errmsg[0] = '\0';
  PetscCall(PetscPushErrorHandler(RecordError, NULL));
  ierr = FGCaseLoadString(PETSC_COMM_WORLD, "t.yaml", text, nset, sets, c);
  PetscCall(PetscPopErrorHandler());
  PetscCall(Expect(line, ierr, FG_ERR_INPUT, expect));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define BAD(text, expect)             LoadBad(__LINE__, text, 0, NULL, expect)
#define BADSET(text, n, sets, expect) LoadBad(__LINE__, text, n, sets, expect)

/* Whether two instances (bodies, probes, actuators) are the same but for where they were given. */
static PetscBool SameInstances(const void *a, const void *b, size_t bytes, size_t where, size_t wherelen)
{
  return (PetscBool)(!memcmp(a, b, where) && !memcmp((const char *)a + where + wherelen, (const char *)b + where + wherelen, bytes - where - wherelen));
}

/* Whether two cases are the same case (every key, the resolved text and the hash). */
static PetscBool SameCase(const FGCase *a, const FGCase *b)
{
  if (a->nbodies != b->nbodies || a->nprobes != b->nprobes || a->nactuators != b->nactuators || a->nobjectives != b->nobjectives) return PETSC_FALSE;
  for (PetscInt i = 0; i < a->nbodies; i++)
    if (!SameInstances(&a->body[i], &b->body[i], sizeof(a->body[i]), offsetof(FGBodyCase, where), sizeof(a->body[i].where))) return PETSC_FALSE;
  for (PetscInt i = 0; i < a->nprobes; i++)
    if (!SameInstances(&a->probe[i], &b->probe[i], sizeof(a->probe[i]), offsetof(FGProbeCase, where), sizeof(a->probe[i].where))) return PETSC_FALSE;
  for (PetscInt i = 0; i < a->nactuators; i++)
    if (!SameInstances(&a->actuator[i], &b->actuator[i], sizeof(a->actuator[i]), offsetof(FGActuatorCase, where), sizeof(a->actuator[i].where))) return PETSC_FALSE;
  for (PetscInt i = 0; i < a->nobjectives; i++)
    if (!SameInstances(&a->objective[i], &b->objective[i], sizeof(a->objective[i]), offsetof(FGObjectiveCase, where), sizeof(a->objective[i].where))) return PETSC_FALSE;
  if (a->design.n != b->design.n || memcmp(a->design.parameters, b->design.parameters, sizeof(a->design.parameters)) || a->adjoint.fields_every != b->adjoint.fields_every) return PETSC_FALSE;
  if (strcmp(a->name, b->name) || strcmp(a->description, b->description)) return PETSC_FALSE;
  if (memcmp(&a->grid, &b->grid, sizeof(a->grid)) || memcmp(&a->flow, &b->flow, sizeof(a->flow)) || memcmp(&a->time, &b->time, sizeof(a->time))) return PETSC_FALSE;
  if (memcmp(a->boundary, b->boundary, sizeof(a->boundary)) || memcmp(&a->poisson, &b->poisson, sizeof(a->poisson))) return PETSC_FALSE;
  if (strcmp(a->output.dir, b->output.dir) || a->output.fields_every != b->output.fields_every || a->output.monitor_every != b->output.monitor_every) return PETSC_FALSE;
  return (PetscBool)(!strcmp(a->resolved, b->resolved) && a->hash == b->hash);
}

/* The resolved text must load again (under the same name) to the same case. */
static PetscErrorCode RoundTrip(int line, const char *name, const FGCase *c)
{
  FGCase *r;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&r));
  PetscCall(LoadOK(line, name, c->resolved, 0, NULL, r));
  nchecks++;
  if (!SameCase(c, r)) {
    nfail++;
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] FAIL line %d: round trip differs\n--- first\n%s--- again\n%s", (int)rank, line, c->resolved, r->resolved));
  }
  PetscCall(PetscFree(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define G2 "grid:\n  cells: [8, 8]\n  lengths: [1, 1]\n"
#define OK_IC "grid: {cells: [8, 8], lengths: [1, 1], periodic: [true, true]}\nflow: {re: 10}\ntime: {dt: 0.1, steps: 5}\n"
#define F2 "flow:\n  re: 10\n"
#define T2 "time:\n  dt: 0.1\n  steps: 5\n"
#define OK2 G2 F2 T2 /* lines 1-8 */

static const char cavity[] = "# the lid-driven cavity\n"
                             "grid:\n"
                             "  cells: [64, 64]\n"
                             "  lengths: [1.0, 1.0]\n"
                             "flow:\n"
                             "  re: 100\n"
                             "time:\n"
                             "  dt: 2.0e-3\n"
                             "  steps: 500\n"
                             "boundary:\n"
                             "  y_hi:\n"
                             "    type: lid\n"
                             "    velocity: [1.0, 0.0]\n"
                             "output:\n"
                             "  fields_every: 100\n";

static const char channel3d[] = "name: channel\n"
                                "description: \"a periodic channel\\nwith an inflow\"\n"
                                "grid:\n"
                                "  dim: 3\n"
                                "  cells: [32, 16, 8]\n"
                                "  lengths: [6.283185307179586, 6.283185307179586, 6.283185307179586]\n"
                                "  origin: [0, -1, 0.5]\n"
                                "  periodic: [true, false, true]\n"
                                "flow: {nu: 1.0e-3, u_ref: 1.5, l_ref: 2}\n"
                                "time: {dt: 0.01, steps: 0, cfl_max: 0.8}\n"
                                "initial: {type: abc, amplitude: 0.5}\n"
                                "boundary:\n"
                                "  y_lo: {type: inflow, velocity: [0, 2.5, 0.25], profile: uniform, modulation_amplitude: 0.1, modulation_frequency: 2}\n"
                                "  y_hi: {type: outflow}\n"
                                "  z_lo: {type: periodic}\n"
                                "poisson: {type: ksp, rtol: 1e-8, max_it: 50}\n"
                                "output: {dir: /tmp/flowgrad-channel, fields_every: 0, monitor_every: 1}\n";

static PetscErrorCode TestGood(void)
{
  FGCase *c;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&c));
  /* 2D, defaults */
  PetscCall(LoadOK(__LINE__, "cases/cavity/cavity.yaml", cavity, 0, NULL, c));
  CHECK(!strcmp(c->name, "cavity"), "name %s", c->name);
  CHECK(!strcmp(c->file, "cases/cavity/cavity.yaml"), "file %s", c->file);
  CHECK(!strcmp(c->description, ""), "description %s", c->description);
  CHECK(c->grid.dim == 2, "dim %d", (int)c->grid.dim);
  CHECK(c->grid.cells[0] == 64 && c->grid.cells[1] == 64 && c->grid.cells[2] == 1, "cells");
  CHECK(c->grid.lengths[0] == 1.0 && c->grid.lengths[1] == 1.0, "lengths");
  CHECK(c->grid.origin[0] == 0 && c->grid.origin[1] == 0, "origin");
  CHECK(!c->grid.periodic[0] && !c->grid.periodic[1], "periodic");
  CHECK(c->flow.re == 100 && CLOSE(c->flow.nu, 0.01) && c->flow.u_ref == 1 && c->flow.l_ref == 1, "flow %g %g", (double)c->flow.re, (double)c->flow.nu);
  CHECK(c->time.dt == 2.0e-3 && c->time.steps == 500 && c->time.cfl_max == 1.5 && c->time.cfl == 0 && c->time.viscous == FG_VISCOUS_AUTO, "time");
  CHECK(c->initial.type == FG_IC_REST, "initial.type");
  CHECK(strstr(c->resolved, "initial:\n  type: rest\nboundary:\n") != NULL, "resolved initial:\n%s", c->resolved);
  CHECK(c->boundary[0][0].kind == FG_BC_WALL && c->boundary[0][1].kind == FG_BC_WALL && c->boundary[1][0].kind == FG_BC_WALL, "walls");
  CHECK(c->boundary[1][1].kind == FG_BC_LID && c->boundary[1][1].velocity[0] == 1.0 && c->boundary[1][1].velocity[1] == 0.0, "lid");
  CHECK(c->boundary[1][1].profile == FG_PROFILE_UNIFORM, "profile");
  CHECK(c->poisson.type == FG_POISSON_FFTW && c->poisson.rtol == 1e-10 && c->poisson.max_it == 500, "poisson");
  CHECK(!strcmp(c->output.dir, "out/cavity") && c->output.fields_every == 100 && c->output.monitor_every == 10, "output %s", c->output.dir);
  CHECK(strstr(c->output.dir_from, "output.dir (default)") != NULL, "dir_from %s", c->output.dir_from);
  CHECK(strstr(c->resolved, "boundary:\n  x_lo:\n    type: wall\n") != NULL, "resolved nesting:\n%s", c->resolved);
  CHECK(strstr(c->resolved, "  y_hi:\n    type: lid\n    velocity: [1, 0]\n") != NULL, "resolved lid:\n%s", c->resolved);
  CHECK(!strstr(c->resolved, "z_lo") && !strstr(c->resolved, "profile"), "resolved has keys that do not apply:\n%s", c->resolved);
  CHECK(strstr(c->resolved, "  nu: 0.01\n  re: 100\n") != NULL, "resolved nu, re:\n%s", c->resolved);
  CHECK(c->hash != 0, "hash");
  PetscCall(RoundTrip(__LINE__, "cases/cavity/cavity.yaml", c));
  /* the same text under another name: another default name, output dir and hash */
  {
    FGCase *d;
    PetscCall(PetscNew(&d));
    PetscCall(LoadOK(__LINE__, "box.yml", cavity, 0, NULL, d));
    CHECK(!strcmp(d->name, "box") && !strcmp(d->output.dir, "out/box") && d->hash != c->hash, "name from .yml: %s", d->name);
    PetscCall(PetscFree(d));
  }

  /* 3D, every key given, nu -> re */
  PetscCall(LoadOK(__LINE__, "c3.yaml", channel3d, 0, NULL, c));
  CHECK(!strcmp(c->name, "channel") && !strcmp(c->description, "a periodic channel\nwith an inflow"), "name %s", c->name);
  CHECK(c->grid.dim == 3 && c->grid.cells[0] == 32 && c->grid.cells[1] == 16 && c->grid.cells[2] == 8, "cells");
  CHECK(c->grid.lengths[0] == 6.283185307179586 && c->grid.lengths[2] == 6.283185307179586, "lengths");
  CHECK(c->grid.origin[1] == -1 && c->grid.origin[2] == 0.5, "origin");
  CHECK(c->grid.periodic[0] && !c->grid.periodic[1] && c->grid.periodic[2], "periodic");
  CHECK(c->flow.nu == 1e-3 && CLOSE(c->flow.re, 1.5 * 2 / 1e-3), "re %g", (double)c->flow.re);
  CHECK(c->time.steps == 0 && c->time.cfl_max == 0.8, "time");
  CHECK(c->initial.type == FG_IC_ABC && c->initial.amplitude == 0.5, "initial");
  CHECK(strstr(c->resolved, "initial:\n  type: abc\n  amplitude: 0.5\nboundary:\n") != NULL, "resolved initial:\n%s", c->resolved);
  CHECK(c->boundary[0][0].kind == FG_BC_PERIODIC && c->boundary[0][1].kind == FG_BC_PERIODIC, "x periodic");
  CHECK(c->boundary[2][0].kind == FG_BC_PERIODIC && c->boundary[2][1].kind == FG_BC_PERIODIC, "z periodic");
  CHECK(c->boundary[1][0].kind == FG_BC_INFLOW && c->boundary[1][0].profile == FG_PROFILE_UNIFORM && c->boundary[1][0].velocity[1] == 2.5 && c->boundary[1][0].velocity[2] == 0.25, "inflow");
  CHECK(c->boundary[1][0].modulation_amplitude == 0.1 && c->boundary[1][0].modulation_frequency == 2, "modulation");
  CHECK(c->boundary[1][1].kind == FG_BC_OUTFLOW, "outflow");
  CHECK(c->poisson.type == FG_POISSON_KSP && c->poisson.rtol == 1e-8 && c->poisson.max_it == 50, "poisson");
  CHECK(!strcmp(c->output.dir, "/tmp/flowgrad-channel") && c->output.monitor_every == 1, "output");
  CHECK(strstr(c->output.dir_from, "c3.yaml:17: output.dir") != NULL, "dir_from %s", c->output.dir_from);
  CHECK(strstr(c->resolved, "description: \"a periodic channel\\nwith an inflow\"\n") != NULL, "resolved description:\n%s", c->resolved);
  CHECK(strstr(c->resolved, "lengths: [6.283185307179586, 6.283185307179586, 6.283185307179586]\n") != NULL, "resolved reals:\n%s", c->resolved);
  CHECK(strstr(c->resolved, "  z_hi:\n    type: periodic\n") != NULL, "resolved z faces:\n%s", c->resolved);
  CHECK(strstr(c->resolved, "  y_lo:\n    type: inflow\n    velocity: [0, 2.5, 0.25]\n    profile: uniform\n    modulation_amplitude: 0.1\n    modulation_frequency: 2\n") != NULL, "resolved inflow:\n%s", c->resolved);
  PetscCall(RoundTrip(__LINE__, "c3.yaml", c));

  /* nu and re both given and agreeing; YAML anchors, aliases and comments are fine */
  PetscCall(LoadOK(__LINE__, "agree.yaml",
                   "grid: {cells: &n [8, 8], lengths: [2, 2]}  # comment\n"
                   "flow: {nu: 0.02, re: 100, l_ref: 2}\n"
                   "time: {dt: 1, steps: 1}\n",
                   0, NULL, c));
  CHECK(c->flow.nu == 0.02 && c->flow.re == 100, "nu/re");
  /* time.cfl sets dt = cfl / (u_ref sum_d 1/h_min,d): 0.5 / (2 (4 + 8)) with y stretched to
     h_min 0.125 (faces 0, 0.125, 0.375, 1), u_ref 2; the scheme of the viscous term */
  PetscCall(LoadOK(__LINE__, "cfl.yaml",
                   "grid: {cells: [4, 3], lengths: [1, 1], stretch: {y: {type: faces, faces: [0, 0.125, 0.375, 1]}}}\n"
                   "flow: {nu: 0.01, u_ref: 2}\n"
                   "time: {cfl: 0.5, steps: 1, viscous: implicit}\n",
                   0, NULL, c));
  CHECK(CLOSE(c->time.dt, 0.5 / 24.0) && c->time.cfl == 0.5 && c->time.viscous == FG_VISCOUS_IMPLICIT, "cfl: dt %.17g", (double)c->time.dt);
  PetscCall(RoundTrip(__LINE__, "cfl.yaml", c));
  /* initial conditions: only the keys of the chosen type */
  PetscCall(LoadOK(__LINE__, "ic.yaml", OK_IC "initial:\n  type: uniform\n  velocity: [1, -0.5]\n", 0, NULL, c));
  CHECK(c->initial.type == FG_IC_UNIFORM && c->initial.velocity[0] == 1 && c->initial.velocity[1] == -0.5 && c->initial.velocity[2] == 0, "uniform");
  CHECK(strstr(c->resolved, "initial:\n  type: uniform\n  velocity: [1, -0.5]\nboundary:") != NULL, "resolved:\n%s", c->resolved);
  PetscCall(RoundTrip(__LINE__, "ic.yaml", c));
  /* initial.file must exist when the case is validated */
  if (rank == 0) {
    FILE *fp;
    PetscCall(FGMakeDirectory("out/a/fields"));
    fp = fopen("out/a/fields/fields_000100.h5", "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot create out/a/fields/fields_000100.h5");
    fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(LoadOK(__LINE__, "ic.yaml", OK_IC "initial:\n  type: file\n  file: out/a/fields/fields_000100.h5\n", 0, NULL, c));
  CHECK(c->initial.type == FG_IC_FILE && !strcmp(c->initial.file, "out/a/fields/fields_000100.h5"), "file");
  PetscCall(RoundTrip(__LINE__, "ic.yaml", c));
  PetscCall(LoadOK(__LINE__, "ic.yaml", OK_IC "initial: {type: taylor_green}\n", 0, NULL, c));
  CHECK(c->initial.type == FG_IC_TAYLOR_GREEN && c->initial.amplitude == 1, "taylor_green");
  /* a BOM, CRLF line ends, non-ASCII UTF-8 text */
  PetscCall(LoadOK(__LINE__, "crlf.yaml",
                   "\xef\xbb\xbfname: caf\xc3\xa9\r\n"
                   "description: \"\xce\xbd = 0.1 \xe2\x80\x94 \\\"quoted\\\"\"\r\n"
                   "grid: {cells: [8, 8], lengths: [1, 1], periodic: [true, true]}\r\n"
                   "flow: {nu: 0.1}\r\ntime: {dt: 1, steps: 1}\r\n",
                   0, NULL, c));
  CHECK(!strcmp(c->name, "caf\xc3\xa9") && !strcmp(c->description, "\xce\xbd = 0.1 \xe2\x80\x94 \"quoted\""), "utf-8 %s / %s", c->name, c->description);
  CHECK(c->boundary[0][0].kind == FG_BC_PERIODIC && c->boundary[1][1].kind == FG_BC_PERIODIC, "periodic box");
  PetscCall(RoundTrip(__LINE__, "crlf.yaml", c));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestSet(void)
{
  FGCase *c;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&c));
  {
    const char *sets[] = {"flow.re=200",        "grid.cells=[32,48]", "poisson.type=ksp", "time.steps=10", "time.steps=20", " output.monitor_every = 5", "boundary.x_lo.type=inflow",
                          "boundary.x_lo.velocity=[1, 0]", "boundary.x_lo.profile=parabolic", "description=\"swept\"", "grid.periodic=[false, false]", "output.dir=/tmp/fg out"};
    PetscCall(LoadOK(__LINE__, "cavity.yaml", cavity, (PetscInt)(sizeof(sets) / sizeof(sets[0])), sets, c));
    CHECK(c->flow.re == 200 && CLOSE(c->flow.nu, 1.0 / 200), "re %g", (double)c->flow.re);
    CHECK(c->grid.cells[0] == 32 && c->grid.cells[1] == 48, "cells");
    CHECK(c->poisson.type == FG_POISSON_KSP, "poisson.type");
    CHECK(c->time.steps == 20, "later --set wins: %d", (int)c->time.steps);
    CHECK(c->output.monitor_every == 5, "a key absent from the file");
    CHECK(c->boundary[0][0].kind == FG_BC_INFLOW && c->boundary[0][0].velocity[0] == 1 && c->boundary[0][0].profile == FG_PROFILE_PARABOLIC, "face added");
    CHECK(!strcmp(c->description, "swept") && !strcmp(c->output.dir, "/tmp/fg out"), "strings %s %s", c->description, c->output.dir);
    CHECK(!strcmp(c->output.dir_from, "--set output.dir=/tmp/fg out"), "dir_from %s", c->output.dir_from);
    PetscCall(RoundTrip(__LINE__, "cavity.yaml", c));
  }
  {
    /* a --set of nu replaces re given by the file; also from a resolved case that has both */
    const char *sets[] = {"flow.nu=0.001"};
    FGCase     *r;
    PetscCall(LoadOK(__LINE__, "cavity.yaml", cavity, 1, sets, c));
    CHECK(c->flow.nu == 0.001 && CLOSE(c->flow.re, 1000), "nu replaces re: re %g", (double)c->flow.re);
    PetscCall(PetscNew(&r));
    PetscCall(LoadOK(__LINE__, "cavity.yaml", c->resolved, 1, (const char *const[]){"flow.re=50"}, r));
    CHECK(r->flow.re == 50 && CLOSE(r->flow.nu, 0.02), "re replaces nu of the resolved case: nu %g", (double)r->flow.nu);
    PetscCall(PetscFree(r));
  }
  {
    /* a 2D case made 3D by --set */
    const char *sets[] = {"grid.cells=[8,8,8]", "grid.lengths=[1,1,1]", "boundary.y_hi.velocity=[1,0,0.5]", "boundary.z_hi.type=slip"};
    PetscCall(LoadOK(__LINE__, "cavity.yaml", cavity, 4, sets, c));
    CHECK(c->grid.dim == 3 && c->boundary[2][0].kind == FG_BC_WALL && c->boundary[2][1].kind == FG_BC_SLIP && c->boundary[1][1].velocity[2] == 0.5, "3D by --set");
    PetscCall(RoundTrip(__LINE__, "cavity.yaml", c));
  }
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}


static PetscErrorCode TestErrors(void)
{
  PetscFunctionBeginUser;
  /* keys */
  PetscCall(BAD("grid:\n  cells: [4, 4]\n  lengths: [1, 1]\n  cels: 3\n", "t.yaml:4: grid.cels: unknown key (did you mean grid.cells?)"));
  PetscCall(BAD("grids:\n  cells: [4, 4]\n", "t.yaml:1: grids: unknown key (did you mean grid?)"));
  PetscCall(BAD(OK2 "dt: 0.1\n", "t.yaml:9: dt: unknown key (did you mean time.dt?)"));
  PetscCall(BAD(OK2 "body:\n  shape: circle\n", "t.yaml:10: body.shape: expected a section (the keys of body shape), got a scalar 'circle'; body: holds named bodies"));
  PetscCall(BAD(OK2 "bodies: {}\n", "t.yaml:9: bodies: unknown key (top-level keys: name, description, grid, flow, time, initial, boundary, poisson, body, probe, actuator, design, objective, constraints, points, optimizer, adjoint, output)"));
  PetscCall(BAD(OK2 "grid.dim: 2\n", "t.yaml:9: grid.dim: unknown key (dotted keys are for --set"));
  PetscCall(BAD(OK2 "boundary:\n  x_lo:\n    kind: wall\n", "t.yaml:11: boundary.x_lo.kind: unknown key"));
  PetscCall(BAD(OK2 "? [a, b]\n: 1\n", "t.yaml:9: a key must be a name, got a list"));
  PetscCall(BAD(G2 "  cells: [4, 4]\n" F2 T2, "t.yaml:4: grid.cells: duplicate key (first at line 2)"));
  PetscCall(BAD(OK2 "grid:\n  dim: 2\n", "t.yaml:9: grid: duplicate key (first at line 1)"));
  /* types */
  PetscCall(BAD(G2 F2 "time:\n  dt: 0.1\n  steps: many\n", "t.yaml:8: time.steps: expected an integer, got 'many'"));
  PetscCall(BAD(G2 F2 "time:\n  dt: \"0.1\"\n  steps: 5\n", "t.yaml:7: time.dt: expected a real number, got the quoted string \"0.1\""));
  PetscCall(BAD(G2 F2 "time:\n  dt: 0.1\n  steps: '5'\n", "t.yaml:8: time.steps: expected an integer, got the quoted string \"5\""));
  PetscCall(BAD(G2 F2 "time:\n  dt: 0.1\n  steps: 1.5\n", "time.steps: expected an integer, got '1.5'"));
  PetscCall(BAD(G2 F2 "time:\n  dt: 0.1\n  steps: 0x10\n", "time.steps: expected an integer, got '0x10'"));
  PetscCall(BAD(G2 F2 "time:\n  dt: 0.1\n  steps: 10abc\n", "time.steps: expected an integer, got '10abc'"));
  PetscCall(BAD(G2 F2 "time:\n  dt: 0.1\n  steps: 99999999999\n", "time.steps: 99999999999 does not fit in an integer (integer overflow)"));
  PetscCall(BAD(G2 F2 "time:\n  dt: 1.0x\n  steps: 5\n", "t.yaml:7: time.dt: expected a real number, got '1.0x'"));
  PetscCall(BAD(G2 F2 "time:\n  dt: nan\n  steps: 5\n", "t.yaml:7: time.dt: 'nan': not a finite number"));
  PetscCall(BAD(G2 F2 "time:\n  dt: .inf\n  steps: 5\n", "time.dt: '.inf': not a finite number"));
  PetscCall(BAD(G2 F2 "time:\n  dt: 1e999\n  steps: 5\n", "time.dt: 1e999 is too large for a double"));
  PetscCall(BAD(G2 F2 "time:\n  dt: 0x1p3\n  steps: 5\n", "time.dt: expected a real number, got '0x1p3'"));
  PetscCall(BAD(G2 F2 "time:\n  dt:\n  steps: 5\n", "t.yaml:7: time.dt: no value (expected a real number)"));
  PetscCall(BAD(G2 F2 "time:\n  dt: [0.1]\n  steps: 5\n", "t.yaml:7: time.dt: expected a real number, got a list"));
  PetscCall(BAD(G2 F2 "time:\n  dt: !custom 0.1\n  steps: 5\n", "t.yaml:7: time.dt: YAML tags are not supported"));
  PetscCall(BAD(OK2 "grid2: 1\n", "grid2: unknown key (did you mean grid?)"));
  PetscCall(BAD("grid:\n  cells: [8, 8]\n  lengths: [1, 1]\n  periodic: [yes, no]\n" F2 T2, "t.yaml:4: grid.periodic[0]: expected true or false, got 'yes'"));
  PetscCall(BAD("grid:\n  cells: [8, 8]\n  lengths: [1, 1]\n  periodic: [\"true\", false]\n" F2 T2, "grid.periodic[0]: expected true or false, got the quoted string \"true\""));
  PetscCall(BAD("grid:\n  cells: 64\n  lengths: [1, 1]\n" F2 T2, "t.yaml:2: grid.cells: expected a list of integers, one per direction (e.g. [64, 64]), got a scalar '64'"));
  PetscCall(BAD("grid:\n  cells:\n    - 8\n    - [8]\n  lengths: [1, 1]\n" F2 T2, "t.yaml:4: grid.cells[1]: expected an integer, got a list"));
  PetscCall(BAD(OK2 "poisson:\n  type: fft\n", "t.yaml:10: poisson.type: expected one of fftw, ksp; got 'fft' (did you mean fftw?)"));
  PetscCall(BAD(OK2 "name:\n", "t.yaml:9: name: no value (expected a string; write \"\" for an empty string)"));
  PetscCall(BAD(OK2 "name: \"\"\n", "t.yaml:9: name: must not be empty"));
  PetscCall(BAD(OK2 "name: \"a\\0b\"\n", "t.yaml:9: name: the value holds a NUL character"));
  PetscCall(BAD(OK2 "name: \"a\\nb\"\n", "t.yaml:9: name: control character 0x0a in the string"));
  {
    char text[1024];
    snprintf(text, sizeof(text), OK2 "name: %0300d\n", 7);
    PetscCall(BAD(text, "t.yaml:9: name: too long (300 bytes; at most 255)"));
  }
  /* ranges */
  PetscCall(BAD("grid:\n  cells: [-4, 8]\n  lengths: [1, 1]\n" F2 T2, "t.yaml:2: grid.cells[0]: -4 is out of range (must be in [0, 1048576])"));
  PetscCall(BAD("grid:\n  cells: [8, 0]\n  lengths: [1, 1]\n" F2 T2, "t.yaml:2: grid.cells[1]: 0 is out of range (must be in [2, 1048576])"));
  PetscCall(BAD("grid:\n  cells: [8, 2000000]\n  lengths: [1, 1]\n" F2 T2, "grid.cells[1]: 2000000 is out of range (must be in [0, 1048576])"));
  PetscCall(BAD("grid:\n  cells: [8, 8]\n  lengths: [1, -1]\n" F2 T2, "t.yaml:3: grid.lengths[1]: -1 is out of range (must be > 0)"));
  PetscCall(BAD(G2 F2 "time:\n  dt: 0\n  steps: 5\n", "t.yaml:7: time.dt: 0 is out of range (must be > 0)"));
  PetscCall(BAD(G2 F2 "time:\n  dt: -1e-3\n  steps: 5\n", "time.dt: -1e-3 is out of range (must be > 0)"));
  PetscCall(BAD(G2 F2 "time:\n  dt: 0.1\n  steps: -1\n", "time.steps: -1 is out of range (must be >= 0)"));
  PetscCall(BAD(OK2 "poisson:\n  rtol: 1\n", "t.yaml:10: poisson.rtol: 1 is out of range (must be in (0, 1))"));
  PetscCall(BAD(OK2 "poisson:\n  max_it: 0\n", "poisson.max_it: 0 is out of range (must be >= 1)"));
  PetscCall(BAD("grid:\n  dim: 4\n  cells: [8, 8]\n  lengths: [1, 1]\n" F2 T2, "t.yaml:2: grid.dim: 4 is out of range (must be in [2, 3])"));
  /* list lengths and dimension */
  PetscCall(BAD("grid:\n  cells: [8, 8]\n  lengths: [1, 1, 1]\n" F2 T2, "t.yaml:3: grid.lengths: 3 entries, but grid.cells has 2 (from t.yaml:2: grid.cells; one entry per direction)"));
  PetscCall(BAD("grid:\n  dim: 3\n  cells: [8, 8]\n  lengths: [1, 1]\n" F2 T2, "t.yaml:3: grid.cells: 2 entries, but grid.dim is 3"));
  PetscCall(BAD("grid:\n  cells: [8, 8, 8, 8]\n  lengths: [1, 1]\n" F2 T2, "t.yaml:2: grid.cells: 4 entries; at most 3 (one per direction)"));
  PetscCall(BAD("grid:\n  cells: [8]\n  lengths: [1]\n" F2 T2, "t.yaml:2: grid.cells: 1 entry, but a case has 2 or 3 dimensions"));
  PetscCall(BAD("grid:\n  cells: []\n  lengths: [1]\n" F2 T2, "t.yaml:2: grid.cells: empty list"));
  /* structure */
  PetscCall(BAD(OK2 "output: out\n", "t.yaml:9: output: expected a section (a mapping of keys), got a scalar"));
  PetscCall(BAD("grid:\n" F2 T2, "t.yaml:1: grid: expected a section (a mapping of keys), got no value"));
  PetscCall(BAD("- grid\n- flow\n", "t.yaml:1: the case file must be a mapping of keys (grid:, flow:, time:, ...), got a list"));
  PetscCall(BAD("just a line\n", "t.yaml:1: the case file must be a mapping of keys (grid:, flow:, time:, ...), got a scalar"));
  /* missing keys */
  PetscCall(BAD(G2 F2 "time:\n  steps: 5\n", "t.yaml:6: time.dt: missing required key: give time.dt or time.cfl (section time has neither)"));
  PetscCall(BAD(G2 F2 "time:\n  dt: 0.1\n  cfl: 0.5\n  steps: 5\n", "t.yaml:8: time.cfl: 0.5 gives time.dt = 0.03125, but t.yaml:7: time.dt is 0.10000000000000001: give time.dt or time.cfl (both only if they agree to 1e-12)"));
  PetscCall(BAD(G2 F2 "time:\n  cfl: 0\n  steps: 5\n", "t.yaml:7: time.cfl: 0 is out of range (must be > 0)"));
  PetscCall(BAD(G2 F2 "time:\n  dt: 0.1\n  steps: 5\n  viscous: semi\n", "t.yaml:9: time.viscous"));
  PetscCall(BAD(G2 F2, "t.yaml: time.steps: missing required key (the file has no section time)"));
  PetscCall(BAD("grid:\n  cells: [8, 8]\n" F2 T2, "t.yaml:1: grid.lengths: missing required key (section grid has no lengths)"));
  PetscCall(BAD(G2 T2 "flow:\n  u_ref: 2\n", "t.yaml:7: flow.nu: missing required key: give flow.nu or flow.re (section flow has neither)"));
  PetscCall(BAD(G2 T2, "t.yaml: flow.nu: missing required key: give flow.nu or flow.re (the file has no section flow)"));
  PetscCall(BAD(G2 T2 "flow:\n  re: 100\n  nu: 0.02\n", "t.yaml:8: flow.re: re = 100 disagrees with nu = 0.02 (from t.yaml:9: flow.nu)"));
  /* YAML and text */
  PetscCall(BAD("grid:\n  cells: [8, 8\n  lengths: [1, 1]\n", "t.yaml:3:"));
  PetscCall(BAD("grid:\n  cells: [8, 8\n  lengths: [1, 1]\n", "YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence at line 2)"));
  PetscCall(BAD("grid:\n\tcells: [8, 8]\n", "t.yaml:2:1: YAML syntax error: found character that cannot start any token"));
  PetscCall(BAD("grid: {cells: *nope}\n", "YAML syntax error: found undefined alias"));
  PetscCall(BAD(OK2 "---\nname: other\n", "t.yaml:9: a second YAML document; a case file holds exactly one"));
  PetscCall(BAD("", "t.yaml:1: empty case file (no keys)"));
  PetscCall(BAD("# only a comment\n\n", "t.yaml:1: empty case file (no keys, only comments or blank lines)"));
  PetscCall(BAD(OK2 "name: caf\xe9\n", "t.yaml:9: not UTF-8 text: invalid byte 0xe9 at offset"));
  PetscCall(BAD(OK2 "name: a\x01z\n", "t.yaml:9: not a text file: control character 0x01 at offset"));
  PetscCall(BAD("\x7f" "ELF\x02\x01\x01", "t.yaml:1: not a text file: control character 0x7f at offset 0"));
  /* cross-checks */
  PetscCall(BAD("grid:\n  cells: [8, 8]\n  lengths: [1, 1]\n  periodic: [true, false]\n" F2 T2 "boundary:\n  x_lo:\n    type: wall\n", "t.yaml:12: boundary.x_lo.type: wall, but x is periodic (grid.periodic), so both x faces must be periodic (or omitted)"));
  PetscCall(BAD(OK2 "boundary:\n  y_lo: {type: periodic}\n", "t.yaml:10: boundary.y_lo.type: periodic, but y is not a periodic direction"));
  PetscCall(BAD(OK2 "boundary:\n  z_lo:\n    type: wall\n", "t.yaml:11: boundary.z_lo.type: z faces exist only in 3D cases, and this case is 2D"));
  PetscCall(BAD(OK2 "boundary:\n  z_hi: {}\n", "t.yaml:10: boundary.z_hi: this face exists only in 3D cases, and this case is 2D"));
  PetscCall(BAD(OK2 "boundary:\n  y_lo:\n    velocity: [1, 0]\n", "t.yaml:11: boundary.y_lo.velocity: only lid and inflow faces have a velocity; this face is wall (the default: set its type)"));
  PetscCall(BAD(OK2 "boundary:\n  y_lo:\n    type: slip\n    velocity: [1, 0]\n", "t.yaml:12: boundary.y_lo.velocity: only lid and inflow faces have a velocity; this face is slip"));
  PetscCall(BAD(OK2 "boundary:\n  y_hi: {type: lid, velocity: [1, 0], profile: parabolic}\n", "t.yaml:10: boundary.y_hi.profile: only inflow faces have a profile; this face is lid"));
  PetscCall(BAD(OK2 "boundary:\n  y_hi: {type: lid, velocity: [1, 0.5]}\n", "t.yaml:10: boundary.y_hi.velocity: a lid moves in its own plane: the normal (y) component must be 0, got 0.5"));
  PetscCall(BAD(OK2 "boundary:\n  y_hi: {type: lid, velocity: [1, 0, 0]}\n", "t.yaml:10: boundary.y_hi.velocity: 3 entries, but grid.cells has 2"));
  PetscCall(BAD(OK2 "initial:\n  amplitude: 2\n", "t.yaml:10: initial.amplitude: only taylor_green and abc have an amplitude; initial.type is rest"));
  PetscCall(BAD(OK2 "initial:\n  type: abc\n", "t.yaml:10: initial.type: abc is a 3D initial condition, and this case is 2D"));
  PetscCall(BAD(OK2 "initial:\n  type: file\n", "t.yaml:10: initial.type: file, but initial.file is missing (required for type file)"));
  PetscCall(BAD(OK2 "time:\n  cfl_max: 0\n", "t.yaml:9: time: duplicate key (first at line 6)"));
  PetscCall(BAD(G2 F2 "time:\n  dt: 0.1\n  steps: 5\n  cfl_max: 0\n", "t.yaml:9: time.cfl_max: 0 is out of range (must be > 0)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bodies, probes and actuators: named instances, variable-length lists, shape-dependent keys. */
static const char bodies2d[] = "grid:\n"                                   /* 1 */
                               "  cells: [64, 32]\n"
                               "  lengths: [20, 10]\n"
                               "flow: {re: 100, u_ref: 2, l_ref: 0.5}\n"
                               "time: {dt: 0.01, steps: 1}\n"              /* 5 */
                               "body:\n"
                               "  cyl:\n"
                               "    shape: circle\n"
                               "    position: [10, 5]\n"
                               "    radius: 0.5\n"                         /* 10 */
                               "    velocity: [0.25, 0]\n"
                               "    rotation_rate: 1.5\n"
                               "    jet_angles: [90, 270]\n"
                               "    jet_amplitude: [0.1, -0.1]\n"
                               "  wing:\n"                                  /* 15 */
                               "    shape: naca\n"
                               "    naca: 0012\n"
                               "    position: [5, 4]\n"
                               "    angle: 4\n"
                               "  spline:\n"                                /* 20 */
                               "    shape: bspline\n"
                               "    position: [3, 3]\n"
                               "    control_points: [[0, 0], [1, 0.2], [1, 1],\n"
                               "                     [0, 1], [-0.5, 0.5]]\n"
                               "  foil:\n"                                  /* 25 */
                               "    shape: cst\n"
                               "    position: [14, 5]\n"
                               "    chord: 2\n"
                               "    cst_upper: [0.2, 0.25, 0.2]\n"
                               "    cst_lower: [-0.1, -0.12, -0.1]\n"     /* 30 */
                               "  star:\n"
                               "    shape: fourier\n"
                               "    position: [16, 8]\n"
                               "    radius: 0.8\n"
                               "    fourier_cos: [0, 0.1, 0, 0.05]\n"     /* 35 */
                               "    fourier_sin: [0.02, 0, 0, 0]\n"
                               "  egg: {shape: ellipse, position: [7, 7], semi_axes: [0.6, 0.3], eta: 1e-3, ref_area: 2}\n"
                               "probe:\n"
                               "  wake:\n"
                               "    at: [12, 5]\n"                         /* 40 */
                               "  dp:\n"
                               "    at: [9.4, 5]\n"
                               "    reference: [10.6, 5]\n"
                               "actuator:\n"
                               "  push:\n"                                  /* 45 */
                               "    center: [11, 5.5]\n"
                               "    radius: 0.3\n"
                               "    force: [0, 0.1]\n";

static const char bodies3d[] = "grid: {cells: [16, 16, 8], lengths: [4, 4, 2], periodic: [false, false, true]}\n"
                               "flow: {re: 100, l_ref: 2}\n"
                               "time: {dt: 0.01, steps: 1}\n"
                               "body:\n"
                               "  ball: {shape: sphere, position: [1, 1, 1], radius: 0.25, oscillation_amplitude: [0, 0.1, 0], oscillation_frequency: 0.5}\n"
                               "  wing: {shape: naca, naca: \"2412\", position: [2, 2, 0], angle: -2.5, chord: 0.5}\n"
                               "  egg: {shape: ellipsoid, position: [3, 3, 1], semi_axes: [0.3, 0.2, 0.1]}\n"
                               "  rho: {shape: density, density_file: rho.h5, projection_beta: 16}\n"
                               "probe: {p: {at: [1, 2, 1]}}\n";

static PetscErrorCode TestBodies(void)
{
  FGCase           *c;
  const FGBodyCase *b;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&c));
  PetscCall(LoadOK(__LINE__, "bodies.yaml", bodies2d, 0, NULL, c));
  CHECK(c->nbodies == 6 && c->nprobes == 2 && c->nactuators == 1, "counts %d %d %d", (int)c->nbodies, (int)c->nprobes, (int)c->nactuators);
  CHECK(!strcmp(c->body[0].name, "cyl") && !strcmp(c->body[1].name, "wing") && !strcmp(c->body[2].name, "spline") && !strcmp(c->body[3].name, "foil") && !strcmp(c->body[4].name, "star") && !strcmp(c->body[5].name, "egg"), "names in file order");
  CHECK(!strcmp(c->body[0].where, "bodies.yaml:7: body.cyl") && !strcmp(c->body[5].where, "bodies.yaml:37: body.egg"), "where %s / %s", c->body[0].where, c->body[5].where);
  b = &c->body[0];
  CHECK(b->shape == FG_BODY_CIRCLE && b->position[0] == 10 && b->position[1] == 5 && b->position[2] == 0 && b->radius == 0.5 && b->angle == 0, "circle");
  CHECK(b->velocity[0] == 0.25 && b->rotation_rate == 1.5 && b->oscillation_frequency == 0 && b->mask_width == 2, "circle motion");
  CHECK(b->n_jets == 2 && b->jet_angles[0] == 90 && b->jet_angles[1] == 270 && b->jet_amplitude[1] == -0.1 && b->jet_width == 20 && b->jet_frequency == 0, "jets");
  CHECK(CLOSE(b->eta, 1e-4 * 0.5 / 2) && b->ref_length == 0.5 && b->ref_speed == 2 && b->ref_area == 0.5, "computed defaults: eta %g, ref_area %g", (double)b->eta, (double)b->ref_area);
  b = &c->body[1];
  CHECK(b->shape == FG_BODY_NACA && !strcmp(b->naca, "0012") && b->angle == 4 && b->chord == 1 && b->position[0] == 5, "naca %s", b->naca);
  b = &c->body[2];
  CHECK(b->shape == FG_BODY_BSPLINE && b->n_points == 5, "bspline n_points %d", (int)b->n_points);
  CHECK(b->control_points[0] == 0 && b->control_points[2] == 1 && b->control_points[3] == 0.2 && b->control_points[8] == -0.5 && b->control_points[9] == 0.5 && b->control_points[10] == 0, "control points");
  b = &c->body[3];
  CHECK(b->shape == FG_BODY_CST && b->n_cst == 3 && b->cst_upper[1] == 0.25 && b->cst_lower[2] == -0.1 && b->chord == 2, "cst");
  b = &c->body[4];
  CHECK(b->shape == FG_BODY_FOURIER && b->radius == 0.8 && b->n_fourier == 4 && b->fourier_cos[3] == 0.05 && b->fourier_sin[0] == 0.02, "fourier");
  b = &c->body[5];
  CHECK(b->shape == FG_BODY_ELLIPSE && b->n_semi_axes == 2 && b->semi_axes[0] == 0.6 && b->semi_axes[1] == 0.3 && b->eta == 1e-3 && b->ref_area == 2, "ellipse");
  CHECK(b->n_jets == 0 && b->n_fourier == 0 && b->n_points == 0, "empty lists");
  CHECK(!strcmp(c->probe[0].name, "wake") && c->probe[0].at[0] == 12 && !c->probe[0].has_reference, "probe wake");
  CHECK(!strcmp(c->probe[1].name, "dp") && c->probe[1].has_reference && c->probe[1].reference[0] == 10.6 && !strcmp(c->probe[1].where, "bodies.yaml:41: probe.dp"), "probe dp");
  CHECK(!strcmp(c->actuator[0].name, "push") && c->actuator[0].center[1] == 5.5 && c->actuator[0].radius == 0.3 && c->actuator[0].force[1] == 0.1 && c->actuator[0].frequency == 0, "actuator");
  /* the resolved case: the keys of each shape only, lists in flow style, no reference without one */
  CHECK(strstr(c->resolved, "poisson:\n") < strstr(c->resolved, "\nbody:\n  cyl:\n    shape: circle\n    position: [10, 5]\n    angle: 0\n    radius: 0.5\n    wall: band\n    mask_width: 2\n"), "resolved cyl:\n%s", c->resolved);
  CHECK(strstr(c->resolved, "    naca: \"0012\"\n    chord: 1\n") != NULL, "resolved naca");
  CHECK(strstr(c->resolved, "    control_points: [[0, 0], [1, 0.2], [1, 1], [0, 1], [-0.5, 0.5]]\n") != NULL, "resolved control points");
  CHECK(strstr(c->resolved, "    fourier_cos: [0, 0.1, 0, 0.05]\n    fourier_sin: [0.02, 0, 0, 0]\n") != NULL, "resolved fourier");
  CHECK(strstr(c->resolved, "    jet_angles: [90, 270]\n    jet_amplitude: [0.1, -0.1]\n") && strstr(c->resolved, "    jet_angles: []\n"), "resolved jets");
  CHECK(strstr(c->resolved, "probe:\n  wake:\n    at: [12, 5]\n  dp:\n    at: [9.4, 5]\n    reference: [10.6, 5]\nactuator:\n  push:\n"), "resolved probes");
  CHECK(!strstr(c->resolved, "density") && !strstr(c->resolved, "cyl:\n    shape: circle\n    position: [10, 5]\n    angle: 0\n    radius: 0.5\n    semi"), "resolved keys that do not apply");
  PetscCall(RoundTrip(__LINE__, "bodies.yaml", c));
  {
    /* --set of a body's keys */
    const char *sets[] = {"body.cyl.radius=0.75", "body.spline.control_points=[[0,0],[2,0],[2,2],[0,2]]", "body.star.fourier_cos=[0.1]", "body.star.fourier_sin=[0.2]", "probe.wake.at=[1, 2]"};
    FGCase     *d;
    PetscCall(PetscNew(&d));
    PetscCall(LoadOK(__LINE__, "bodies.yaml", bodies2d, 5, sets, d));
    CHECK(d->body[0].radius == 0.75 && d->body[2].n_points == 4 && d->body[2].control_points[2] == 2 && d->body[2].control_points[8] == 0 && d->body[2].control_points[9] == 0, "--set lists");
    CHECK(d->body[4].n_fourier == 1 && d->body[4].fourier_cos[0] == 0.1 && d->body[4].fourier_cos[1] == 0 && d->probe[0].at[1] == 2, "--set fourier");
    CHECK(d->hash != c->hash, "another hash");
    PetscCall(RoundTrip(__LINE__, "bodies.yaml", d));
    PetscCall(PetscFree(d));
  }

  /* 3D: sphere, an extruded naca, an ellipsoid, a density body */
  PetscCall(LoadOK(__LINE__, "b3.yaml", bodies3d, 0, NULL, c));
  CHECK(c->nbodies == 4 && c->nprobes == 1 && c->nactuators == 0, "3D counts");
  CHECK(c->body[0].shape == FG_BODY_SPHERE && c->body[0].position[2] == 1 && c->body[0].oscillation_amplitude[1] == 0.1 && c->body[0].ref_area == 4, "sphere: ref_area %g", (double)c->body[0].ref_area);
  CHECK(c->body[1].shape == FG_BODY_NACA && !strcmp(c->body[1].naca, "2412") && c->body[1].chord == 0.5 && c->body[1].angle == -2.5, "naca 3D");
  CHECK(c->body[2].n_semi_axes == 3 && c->body[2].semi_axes[2] == 0.1, "ellipsoid");
  CHECK(c->body[3].shape == FG_BODY_DENSITY && !strcmp(c->body[3].density_file, "rho.h5") && !strcmp(c->body[3].density_dataset, "rho") && c->body[3].projection_beta == 16 && c->body[3].filter_radius == 1.5 && c->body[3].projection_threshold == 0.5, "density");
  CHECK(strstr(c->resolved, "  rho:\n    shape: density\n    density_file: \"rho.h5\"\n    density_dataset: \"rho\"\n") != NULL, "resolved density:\n%s", c->resolved);
  PetscCall(RoundTrip(__LINE__, "b3.yaml", c));

  /* no bodies; an empty body section */
  PetscCall(LoadOK(__LINE__, "t.yaml", OK2 "body: {}\nprobe: {}\n", 0, NULL, c));
  CHECK(c->nbodies == 0 && c->nprobes == 0 && !strstr(c->resolved, "body") && !strstr(c->resolved, "probe"), "empty sections");

  /* the most of everything: 8 bodies of 64 control points, 16 probes, 8 actuators, fit and round-trip */
  {
    char *text;
    PetscCall(PetscMalloc1(65536, &text));
    snprintf(text, 65536, "%s", OK2 "body:\n");
    for (int i = 0; i < FG_CASE_MAX_BODIES; i++) {
      size_t used = strlen(text);
      snprintf(text + used, 65536 - used, "  spline_with_a_long_name_%d:\n    shape: bspline\n    position: [0.5, 0.5]\n    control_points: [", i);
      for (int p = 0; p < FG_CASE_MAX_POINTS; p++) {
        used = strlen(text);
        snprintf(text + used, 65536 - used, "%s[%.17g, %.17g]", p ? ", " : "", 0.1 * cos(2 * PETSC_PI * p / FG_CASE_MAX_POINTS) - 1.0 / 3, 0.1 * sin(2 * PETSC_PI * p / FG_CASE_MAX_POINTS) + 1.0 / 7);
      }
      used = strlen(text);
      snprintf(text + used, 65536 - used, "]\n    jet_angles: [1, 2, 3, 4, 5, 6, 7, 8]\n    jet_amplitude: [1, 2, 3, 4, 5, 6, 7, 8]\n");
    }
    PetscCall(PetscStrlcat(text, "probe:\n", 65536));
    for (int i = 0; i < FG_CASE_MAX_PROBES; i++) {
      size_t used = strlen(text);
      snprintf(text + used, 65536 - used, "  p%d: {at: [0.1, 0.2], reference: [0.3, 0.4]}\n", i);
    }
    PetscCall(PetscStrlcat(text, "actuator:\n", 65536));
    for (int i = 0; i < FG_CASE_MAX_ACTUATORS; i++) {
      size_t used = strlen(text);
      snprintf(text + used, 65536 - used, "  a%d: {center: [0.1, 0.2], radius: 0.1, force: [1, 0], frequency: 2}\n", i);
    }
    PetscCall(LoadOK(__LINE__, "max.yaml", text, 0, NULL, c));
    CHECK(c->nbodies == FG_CASE_MAX_BODIES && c->nprobes == FG_CASE_MAX_PROBES && c->nactuators == FG_CASE_MAX_ACTUATORS && c->body[7].n_points == FG_CASE_MAX_POINTS, "max counts");
    PetscCall(RoundTrip(__LINE__, "max.yaml", c));
    PetscCall(PetscFree(text));
  }
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define B2 OK2 "body:\n" /* the bodies start at line 10 */
static PetscErrorCode TestBodyErrors(void)
{
  PetscFunctionBeginUser;
  /* names and structure */
  PetscCall(BAD(B2 "  2nd: {shape: circle}\n", "t.yaml:10: body: '2nd' is not a valid body name: a name is an identifier"));
  PetscCall(BAD(B2 "  a-b: {shape: circle}\n", "t.yaml:10: body: 'a-b' is not a valid body name"));
  PetscCall(BAD(B2 "  abcdefghijabcdefghijabcdefghijab: {shape: circle}\n", "t.yaml:10: body: the body name 'abcdefghijabcdefghijabcdefghijab' is too long (32 characters; at most 31)"));
  PetscCall(BAD(B2 "  cyl: circle\n", "t.yaml:10: body.cyl: expected a section (the keys of body cyl), got a scalar 'circle'"));
  PetscCall(BAD(B2 "  cyl:\n", "t.yaml:10: body.cyl: expected a section (the keys of body cyl), got no value"));
  PetscCall(BAD(OK2 "body: [cyl]\n", "t.yaml:9: body: expected a section (a mapping of keys), got a list"));
  PetscCall(BAD(OK2 "probe:\n  p: {at: [1, 1]}\n  p: {at: [2, 2]}\n", "t.yaml:11: probe.p: duplicate key (first at line 10)"));
  {
    char text[4096];
    snprintf(text, sizeof(text), OK2 "actuator:\n");
    for (int i = 0; i <= FG_CASE_MAX_ACTUATORS; i++) {
      size_t used = strlen(text);
      snprintf(text + used, sizeof(text) - used, "  a%d: {center: [0, 0], radius: 1, force: [1, 0]}\n", i);
    }
    PetscCall(BAD(text, "t.yaml:18: actuator.a8: too many actuators (at most 8)"));
  }
  /* keys */
  PetscCall(BAD(B2 "  cyl:\n    shape: circle\n    position: [1, 1]\n    radus: 1\n", "t.yaml:13: body.cyl.radus: unknown key (did you mean body.cyl.radius?)"));
  PetscCall(BAD(B2 "  cyl:\n    position: [1, 1]\n", "t.yaml:10: body.cyl.shape: missing required key (section body.cyl has no shape)"));
  PetscCall(BAD(B2 "  cyl:\n    shape: circle\n    position: [1, 1]\n", "t.yaml:10: body.cyl.radius: missing required key (section body.cyl has no radius; required for circle bodies)"));
  PetscCall(BAD(B2 "  cyl:\n    shape: circle\n    radius: 1\n", "t.yaml:10: body.cyl.position: missing required key (section body.cyl has no position; required for circle bodies)"));
  PetscCall(BAD(B2 "  w: {shape: naca, naca: \"0012\", position: [1, 1], radius: 1}\n", "t.yaml:10: body.w.radius: radius applies to circle, sphere and fourier bodies; body.w is a naca body"));
  PetscCall(BAD(B2 "  d: {shape: density, density_file: a.h5, position: [1, 1]}\n", "t.yaml:10: body.d.position: position does not apply to density bodies"));
  PetscCall(BAD(B2 "  d: {shape: density, density_file: a.h5, jet_angles: [1]}\n", "t.yaml:10: body.d.jet_angles: jet_angles does not apply to density bodies"));
  PetscCall(BAD(B2 "  s: {shape: sphere, position: [1, 1], radius: 1}\n", "t.yaml:10: body.s.shape: sphere is a 3D shape, and this case is 2D (use circle)"));
  PetscCall(BAD(B2 "  s: {shape: ellipsoid, position: [1, 1], semi_axes: [1, 1, 1]}\n", "t.yaml:10: body.s.shape: ellipsoid is a 3D shape, and this case is 2D (use ellipse)"));
  PetscCall(BAD(B2 "  c: {shape: circle, position: [1, 1, 1], radius: 1}\n", "t.yaml:10: body.c.position: 3 entries, but grid.cells has 2"));
  PetscCall(BAD(B2 "  c: {shape: circle, position: [1, 1], radius: 0}\n", "t.yaml:10: body.c.radius: 0 is out of range (must be > 0)"));
  /* naca codes */
  PetscCall(BAD(B2 "  w:\n    shape: naca\n    naca: \"0000\"\n    position: [1, 1]\n", "t.yaml:12: body.w.naca: \"0000\": the thickness TT = 00 % of the chord must be in 01..40"));
  PetscCall(BAD(B2 "  w:\n    shape: naca\n    naca: 0050\n    position: [1, 1]\n", "t.yaml:12: body.w.naca: \"0050\": the thickness TT = 50 % of the chord must be in 01..40"));
  PetscCall(BAD(B2 "  w:\n    shape: naca\n    naca: 12\n    position: [1, 1]\n", "t.yaml:12: body.w.naca: \"12\" is not a NACA 4-digit code: expected 4 digits MPTT"));
  PetscCall(BAD(B2 "  w:\n    shape: naca\n    naca: 00a2\n    position: [1, 1]\n", "t.yaml:12: body.w.naca: \"00a2\" is not a NACA 4-digit code"));
  PetscCall(BAD(B2 "  w:\n    shape: naca\n    naca: \"2012\"\n    position: [1, 1]\n", "t.yaml:12: body.w.naca: \"2012\": a cambered airfoil (M = 2) needs the position of its maximum camber, P, in 1..9"));
  PetscCall(BAD(B2 "  w:\n    shape: naca\n    position: [1, 1]\n", "t.yaml:10: body.w.naca: missing required key (section body.w has no naca; required for naca bodies)"));
  /* variable-length lists */
  PetscCall(BAD(B2 "  b:\n    shape: bspline\n    position: [1, 1]\n    control_points: [[0, 0], [1, 0],\n      [1, 1, 2], [0, 1]]\n", "t.yaml:14: body.b.control_points[2]: 3 numbers, but a point has 2 coordinates [x, y]"));
  PetscCall(BAD(B2 "  b:\n    shape: bspline\n    position: [1, 1]\n    control_points: [[0, 0], [1, 0], 1, [0, 1]]\n", "t.yaml:13: body.b.control_points[2]: expected a point [x, y], got a scalar"));
  PetscCall(BAD(B2 "  b:\n    shape: bspline\n    position: [1, 1]\n    control_points: [[0, 0], [1, 0], [0, 1]]\n", "t.yaml:13: body.b.control_points: 3 points; at least 4"));
  PetscCall(BAD(B2 "  b:\n    shape: bspline\n    position: [1, 1]\n    control_points: [[0, 0], [1, x], [1, 1], [0, 1]]\n", "t.yaml:13: body.b.control_points[1][1]: expected a real number, got 'x'"));
  PetscCall(BAD(B2 "  b:\n    shape: bspline\n    position: [1, 1]\n    control_points: 4\n", "t.yaml:13: body.b.control_points: expected a list of points [x, y]"));
  PetscCall(BAD(B2 "  f:\n    shape: fourier\n    position: [1, 1]\n    radius: 1\n    fourier_cos: [1, 2, 3]\n    fourier_sin: [1, 2]\n", "t.yaml:15: body.f.fourier_sin: 2 entries, but body.f.fourier_cos has 3 (from t.yaml:14: body.f.fourier_cos); they must have as many"));
  PetscCall(BAD(B2 "  f:\n    shape: fourier\n    position: [1, 1]\n    radius: 1\n    fourier_sin: [1]\n", "t.yaml:14: body.f.fourier_sin: 1 entry, but body.f.fourier_cos is not given (it must have as many)"));
  PetscCall(BAD(B2 "  f: {shape: fourier, position: [1, 1], radius: 1, fourier_cos: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}\n", "t.yaml:10: body.f.fourier_cos: 25 entries; at most 24"));
  PetscCall(BAD(B2 "  f: {shape: cst, position: [1, 1], cst_upper: [1, 2], cst_lower: [1]}\n", "t.yaml:10: body.f.cst_lower: 1 entry, but body.f.cst_upper has 2"));
  PetscCall(BAD(B2 "  f: {shape: cst, position: [1, 1], cst_upper: [], cst_lower: []}\n", "t.yaml:10: body.f.cst_upper: empty list; at least 1 entry"));
  PetscCall(BAD(B2 "  c: {shape: circle, position: [1, 1], radius: 1, jet_angles: [0, 90, 180]}\n", "t.yaml:10: body.c.jet_angles: 3 entries, but body.c.jet_amplitude is not given"));
  PetscCall(BAD(B2 "  c: {shape: circle, position: [1, 1], radius: 1, jet_angles: [0, 1, 2, 3, 4, 5, 6, 7, 8], jet_amplitude: [0]}\n", "t.yaml:10: body.c.jet_angles: 9 entries; at most 8"));
  PetscCall(BAD(B2 "  e: {shape: ellipse, position: [1, 1], semi_axes: [1, 2, 3]}\n", "t.yaml:10: body.e.semi_axes: 3 entries, but an ellipse has 2 semi-axes [a, b]"));
  PetscCall(BAD(B2 "  e: {shape: ellipse, position: [1, 1], semi_axes: [1, -2]}\n", "t.yaml:10: body.e.semi_axes[1]: -2 is out of range (must be > 0)"));
  /* probes and actuators */
  PetscCall(BAD(OK2 "probe:\n  p:\n    reference: [1, 1]\n", "t.yaml:10: probe.p.at: missing required key (section probe.p has no at)"));
  PetscCall(BAD(OK2 "probe:\n  p: {at: [1, 1], reference: [1]}\n", "t.yaml:10: probe.p.reference: 1 entry, but grid.cells has 2"));
  PetscCall(BAD(OK2 "actuator:\n  a: {center: [1, 1], radius: 1, force: [1, 0], frequency: -1}\n", "t.yaml:10: actuator.a.frequency: -1 is out of range (must be >= 0)"));
  PetscCall(BAD(OK2 "actuator:\n  a: {center: [1, 1], force: [1, 0]}\n", "t.yaml:10: actuator.a.radius: missing required key (section actuator.a has no radius)"));
  /* --set */
  PetscCall(BADSET(B2 "  c: {shape: circle, position: [1, 1], radius: 1}\n", 1, (const char *const[]){"body.d.radius=2"}, "--set body.d.radius=2: the case has no body d (its bodies: c)"));
  PetscCall(BADSET(OK2 "body: {}\n", 1, (const char *const[]){"body.d.radius=2"}, "--set body.d.radius=2: the case has no bodies (its body section, line 9, is empty"));
  PetscCall(BADSET(OK2, 1, (const char *const[]){"probe.p.at=[1,1]"}, "--set probe.p.at=[1,1]: the case has no probe section (--set changes the probes of the case file; it does not add any)"));
  PetscCall(BADSET(B2 "  c: {shape: circle, position: [1, 1], radius: 1}\n", 1, (const char *const[]){"body.c.radus=2"}, "--set body.c.radus=2: unknown key (did you mean body.c.radius?)"));
  PetscCall(BADSET(B2 "  c: {shape: circle, position: [1, 1], radius: 1}\n", 1, (const char *const[]){"body.c=2"}, "--set body.c=2: body.c is a section, not a key"));
  PetscCall(BADSET(B2 "  c: {shape: circle, position: [1, 1], radius: 1}\n", 1, (const char *const[]){"body.c.shape=naca"}, "t.yaml:10: body.c.radius: radius applies to circle, sphere and fourier bodies; body.c is a naca body"));
  PetscCall(BADSET(B2 "  c: {shape: circle, position: [1, 1], radius: 1}\n", 1, (const char *const[]){"body.c.shape=sphere"}, "--set body.c.shape=sphere: sphere is a 3D shape, and this case is 2D (use circle)"));
  PetscCall(BADSET(B2 "  c: {shape: circle, position: [1, 1], radius: 1}\n", 1, (const char *const[]){"body.c.radius=-1"}, "--set body.c.radius=-1: -1 is out of range (must be > 0)"));
  PetscCall(BADSET(B2 "  c: {shape: bspline, position: [1, 1], control_points: [[0,0],[1,0],[1,1],[0,1]]}\n", 1, (const char *const[]){"body.c.control_points=[[0,0],[1,0],[1,1],[0]]"}, "--set body.c.control_points=[[0,0],[1,0],[1,1],[0]]: body.c.control_points[3]: 1 number, but a point has 2 coordinates"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TestSetErrors(void)
{
  PetscFunctionBeginUser;
  PetscCall(BADSET(OK2, 1, (const char *const[]){"grid.cels=4"}, "--set grid.cels=4: unknown key (did you mean grid.cells?)"));
  PetscCall(BADSET(OK2, 1, (const char *const[]){"time.dt=abc"}, "--set time.dt=abc: expected a real number, got 'abc'"));
  PetscCall(BADSET(OK2, 1, (const char *const[]){"time.dt"}, "--set time.dt: expected KEY=VALUE (no '=')"));
  PetscCall(BADSET(OK2, 1, (const char *const[]){"=4"}, "--set =4: expected KEY=VALUE (no key before '=')"));
  PetscCall(BADSET(OK2, 1, (const char *const[]){"grid=4"}, "--set grid=4: grid is a section, not a key"));
  PetscCall(BADSET(OK2, 1, (const char *const[]){"grid.cells=[4,"}, "--set grid.cells=[4,: YAML syntax error in the value"));
  PetscCall(BADSET(OK2, 1, (const char *const[]){"grid.cells=[0,4]"}, "--set grid.cells=[0,4]: grid.cells[0]: 0 is out of range (must be in [2, 1048576])"));
  PetscCall(BADSET(OK2, 1, (const char *const[]){"grid.cells=32,32"}, "--set grid.cells=32,32: expected a list of integers"));
  PetscCall(BADSET(OK2, 1, (const char *const[]){"time.steps=\"5\""}, "--set time.steps=\"5\": expected an integer, got the quoted string \"5\""));
  PetscCall(BADSET(OK2, 1, (const char *const[]){"time.dt="}, "--set time.dt=: no value (expected a real number)"));
  PetscCall(BADSET(OK2, 1, (const char *const[]){"name=a: b"}, "--set name=a: b: expected a string, got a mapping"));
  PetscCall(BADSET(OK2, 1, (const char *const[]){"name=a\n---\nb"}, "the value holds more than one YAML document"));
  PetscCall(BADSET(OK2, 1, (const char *const[]){"boundary.x_lo.type=periodic"}, "--set boundary.x_lo.type=periodic: periodic, but x is not a periodic direction"));
  PetscCall(BADSET(OK2, 1, (const char *const[]){"boundary.z_lo.type=wall"}, "--set boundary.z_lo.type=wall: z faces exist only in 3D cases"));
  PetscCall(BADSET(OK2, 2, ((const char *const[]){"grid.dim=3", "grid.lengths=[1,1,1]"}), "t.yaml:2: grid.cells: 2 entries, but grid.dim is 3 (from --set grid.dim=3"));
  PetscCall(BADSET(G2 T2 "flow:\n  re: 10\n  nu: 0.1\n", 1, (const char *const[]){"flow.u_ref=2"}, "t.yaml:8: flow.re: re = 10 disagrees with nu = 0.1 (from t.yaml:9: flow.nu)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Objectives, the design vector and the adjoint's keys (issue 5). */
static const char objectives2d[] = "grid: {cells: [64, 32], lengths: [20, 10]}\n"  /* 1 */
                                   "flow: {re: 100}\n"
                                   "time: {dt: 0.01, steps: 200}\n"
                                   "boundary:\n"
                                   "  x_lo: {type: inflow, velocity: [1, 0]}\n"     /* 5 */
                                   "  x_hi: {type: outflow}\n"
                                   "body:\n"
                                   "  cyl: {shape: circle, position: [5, 5], radius: 0.5, jet_angles: [90, 270], jet_amplitude: [0.1, -0.1]}\n"
                                   "probe:\n"
                                   "  dp: {at: [4.4, 5], reference: [5.6, 5]}\n"   /* 10 */
                                   "  wake: {at: [8, 5]}\n"
                                   "actuator:\n"
                                   "  push: {center: [7, 5.5], radius: 0.3, force: [0, 0.1]}\n"
                                   "design:\n"
                                   "  parameters:\n"                                /* 15 */
                                   "    - body.cyl.shape\n"
                                   "    - flow.nu\n"
                                   "    - actuator.push.force\n"
                                   "    - flow.inflow_speed\n"
                                   "    - body.cyl.jet_amplitude\n"                 /* 20 */
                                   "    - initial.velocity\n"
                                   "objective:\n"
                                   "  cd:\n"
                                   "    kind: drag\n"
                                   "    window: [0.5, 1.5]\n"                       /* 25 */
                                   "    ramp: 0.25\n"
                                   "    weight: 2\n"
                                   "  cl: {kind: lift, body: cyl, time: final, weight: -0.5}\n"
                                   "  dp: {kind: pressure_drop, probe: dp, time: instant, at: 1.5}\n"
                                   "  ke: {kind: kinetic_energy, region: [6, 3, 12, 7]}\n" /* 30 */
                                   "  ens: {kind: enstrophy}\n"
                                   "  track: {kind: probe_tracking, probe: wake, target: [1, 0]}\n"
                                   "  cost: {kind: control_cost, weight: 1.0e-3}\n"
                                   "adjoint:\n"
                                   "  fields_every: 25\n";                          /* 35 */

static PetscErrorCode TestObjectives(void)
{
  FGCase                *c;
  const FGObjectiveCase *o;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&c));
  PetscCall(LoadOK(__LINE__, "obj.yaml", objectives2d, 0, NULL, c));
  CHECK(c->nobjectives == 7, "nobjectives %d", (int)c->nobjectives);
  o = &c->objective[0];
  CHECK(!strcmp(o->name, "cd") && !strcmp(o->where, "obj.yaml:23: objective.cd") && o->kind == FG_OBJ_DRAG, "cd: %s %s", o->name, o->where);
  CHECK(!strcmp(o->body, "cyl"), "cd: the only body by default: '%s'", o->body);
  CHECK(o->time == FG_OBJ_TIME_AVERAGE && o->n_window == 2 && o->window[0] == 0.5 && o->window[1] == 1.5 && o->ramp == 0.25 && o->weight == 2, "cd: time functional");
  CHECK(o->n_region == 0 && o->n_target == 0 && !o->probe[0] && !o->observations[0], "cd: keys of other kinds");
  o = &c->objective[1];
  CHECK(o->kind == FG_OBJ_LIFT && !strcmp(o->body, "cyl") && o->time == FG_OBJ_TIME_FINAL && o->n_window == 0 && o->ramp == 0 && o->weight == -0.5, "cl");
  o = &c->objective[2];
  CHECK(o->kind == FG_OBJ_PRESSURE_DROP && !strcmp(o->probe, "dp") && !o->body[0] && o->time == FG_OBJ_TIME_INSTANT && o->at == 1.5 && o->weight == 1, "dp");
  o = &c->objective[3];
  CHECK(o->kind == FG_OBJ_KINETIC_ENERGY && o->n_region == 4 && o->region[0] == 6 && o->region[1] == 3 && o->region[2] == 12 && o->region[3] == 7, "ke region");
  CHECK(o->time == FG_OBJ_TIME_AVERAGE && o->n_window == 0, "ke: the whole run");
  o = &c->objective[4];
  CHECK(o->kind == FG_OBJ_ENSTROPHY && o->n_region == 0, "ens: the whole domain");
  o = &c->objective[5];
  CHECK(o->kind == FG_OBJ_PROBE_TRACKING && !strcmp(o->probe, "wake") && o->n_target == 2 && o->target[0] == 1 && o->target[1] == 0 && !o->observations[0], "track");
  o = &c->objective[6];
  CHECK(o->kind == FG_OBJ_CONTROL_COST && o->time == FG_OBJ_TIME_AVERAGE && o->weight == 1e-3, "cost");
  CHECK(c->design.n == 6, "design.n %d", (int)c->design.n);
  CHECK(!strcmp(c->design.parameters[0], "body.cyl.shape") && !strcmp(c->design.parameters[1], "flow.nu") && !strcmp(c->design.parameters[2], "actuator.push.force"), "design names");
  CHECK(!strcmp(c->design.parameters[3], "flow.inflow_speed") && !strcmp(c->design.parameters[4], "body.cyl.jet_amplitude") && !strcmp(c->design.parameters[5], "initial.velocity") && !c->design.parameters[6][0], "design names");
  CHECK(!strcmp(c->design.where[0], "obj.yaml:16: design.parameters") && !strcmp(c->design.where[5], "obj.yaml:21: design.parameters") && !c->design.where[6][0], "design where: %s / %s", c->design.where[0], c->design.where[5]);
  CHECK(c->adjoint.fields_every == 25, "adjoint.fields_every %d", (int)c->adjoint.fields_every);
  /* the resolved case: the keys of each kind and time functional only, the computed body, no window without one */
  CHECK(strstr(c->resolved, "design:\n  time_basis: 1\n  parameters: [\"body.cyl.shape\", \"flow.nu\", \"actuator.push.force\", \"flow.inflow_speed\", \"body.cyl.jet_amplitude\", \"initial.velocity\"]\n  lower: []\n  upper: []\n  max_change: []\n  scale: []\nobjective:\n") != NULL, "resolved design:\n%s", c->resolved);
  CHECK(strstr(c->resolved, "objective:\n  cd:\n    kind: drag\n    body: \"cyl\"\n    time: average\n    window: [0.5, 1.5]\n    ramp: 0.25\n    statistic: value\n    weight: 2\n  cl:\n    kind: lift\n    body: \"cyl\"\n    time: final\n    statistic: value\n    weight: -0.5\n") != NULL, "resolved cd, cl:\n%s", c->resolved);
  CHECK(strstr(c->resolved, "  dp:\n    kind: pressure_drop\n    probe: \"dp\"\n    time: instant\n    at: 1.5\n    statistic: value\n    weight: 1\n  ke:\n    kind: kinetic_energy\n    region: [6, 3, 12, 7]\n    time: average\n    ramp: 0\n    statistic: value\n    weight: 1\n  ens:\n    kind: enstrophy\n    time: average\n") != NULL, "resolved dp, ke, ens:\n%s", c->resolved);
  CHECK(strstr(c->resolved, "  track:\n    kind: probe_tracking\n    probe: \"wake\"\n    target: [1, 0]\n    time: average\n") != NULL, "resolved track");
  CHECK(strstr(c->resolved, "  cost:\n") && !strstr(strstr(c->resolved, "  cost:\n"), "statistic"), "resolved cost: no statistic (control_cost has none)");
  CHECK(c->objective[0].statistic == FG_OBJ_STAT_VALUE && c->objective[6].statistic == FG_OBJ_STAT_VALUE, "statistic: value by default");
  CHECK(strstr(c->resolved, "\nadjoint:\n  mode: unsteady\n  memory: \"auto\"\n  checkpoints: 0\n  storage: auto\n  segment: 0\n  steady_tol: 1e-10\n  steady_dt: \"auto\"\n  fields_every: 25\noutput:\n") != NULL, "resolved adjoint:\n%s", c->resolved);
  PetscCall(RoundTrip(__LINE__, "obj.yaml", c));
  {
    /* --set of the design vector (a list of strings, like the lists of numbers) and of objectives */
    const char *sets[] = {"design.parameters=[flow.nu, body.cyl.rotation_rate]", "objective.cl.kind=moment", "objective.ke.region=[0, 0, 20, 10]", "adjoint.fields_every=0"};
    FGCase     *d;
    PetscCall(PetscNew(&d));
    PetscCall(LoadOK(__LINE__, "obj.yaml", objectives2d, 4, sets, d));
    CHECK(d->design.n == 2 && !strcmp(d->design.parameters[0], "flow.nu") && !strcmp(d->design.parameters[1], "body.cyl.rotation_rate"), "--set design: %d", (int)d->design.n);
    CHECK(!d->design.parameters[2][0] && !d->design.parameters[5][0] && !d->design.where[2][0], "--set design: the entries past the list are cleared");
    CHECK(!strcmp(d->design.where[0], "--set design.parameters=[flow.nu, body.cyl.rotation_rate]") && !strcmp(d->design.where[1], d->design.where[0]), "--set design where: %s", d->design.where[0]);
    CHECK(d->objective[1].kind == FG_OBJ_MOMENT && d->objective[3].region[2] == 20 && d->adjoint.fields_every == 0, "--set objectives");
    CHECK(strstr(d->resolved, "design:\n  time_basis: 1\n  parameters: [\"flow.nu\", \"body.cyl.rotation_rate\"]\n") != NULL, "resolved --set design:\n%s", d->resolved);
    PetscCall(RoundTrip(__LINE__, "obj.yaml", d));
    PetscCall(LoadOK(__LINE__, "obj.yaml", objectives2d, 1, (const char *const[]){"design.parameters=[body.cyl.shape.r, body.cyl.shape.x0]"}, d));
    CHECK(d->design.n == 2 && !strcmp(d->design.parameters[0], "body.cyl.shape.r") && !strcmp(d->design.parameters[1], "body.cyl.shape.x0"), "one shape parameter at a time");
    PetscCall(LoadOK(__LINE__, "obj.yaml", objectives2d, 1, (const char *const[]){"design.parameters=[]"}, d));
    CHECK(d->design.n == 0 && !d->design.parameters[0][0] && strstr(d->resolved, "design:\n  time_basis: 1\n  parameters: []\n"), "--set an empty design");
    PetscCall(PetscFree(d));
  }

  /* a case without them: an empty design, adjoint defaults, no objective section */
  PetscCall(LoadOK(__LINE__, "cavity.yaml", cavity, 0, NULL, c));
  CHECK(c->nobjectives == 0 && c->design.n == 0 && c->adjoint.fields_every == 0, "defaults");
  CHECK(strstr(c->resolved, "\ndesign:\n  time_basis: 1\n  parameters: []\n  lower: []\n  upper: []\n  max_change: []\n  scale: []\noptimizer:\n  type: auto\n  max_iterations: 20\n  max_evaluations: 0\n  gatol: 1e-08\n  grtol: 1e-08\n  constraint_tol: 0.001\n  penalty: 100\n  fields_every: 1\nadjoint:\n  mode: unsteady\n  memory: \"auto\"\n  checkpoints: 0\n  storage: auto\n  segment: 0\n  steady_tol: 1e-10\n  steady_dt: \"auto\"\n  fields_every: 0\noutput:\n") && !strstr(c->resolved, "objective") && !strstr(c->resolved, "\nconstraints:") && !strstr(c->resolved, "\npoints:"), "resolved defaults:\n%s", c->resolved);

  /* probe_tracking against observations (a file that exists; its contents are the objective's business) */
  if (rank == 0) {
    FILE *fp;
    PetscCall(FGMakeDirectory("out/obs"));
    fp = fopen("out/obs/history.csv", "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot create out/obs/history.csv");
    fputs("step,time\n", fp);
    fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscCall(LoadOK(__LINE__, "t.yaml", OK2 "probe: {p: {at: [0.5, 0.5]}}\nobjective:\n  t: {kind: probe_tracking, probe: p, observations: out/obs/history.csv, time: instant, at: 0.5}\n", 0, NULL, c));
  CHECK(c->objective[0].n_target == 0 && !strcmp(c->objective[0].observations, "out/obs/history.csv") && c->objective[0].at == 0.5, "observations");
  PetscCall(RoundTrip(__LINE__, "t.yaml", c));
  /* 3D: side; the body named among several; a 3D region; an instant at the very end of the run */
  PetscCall(LoadOK(__LINE__, "b3.yaml", bodies3d, 1, (const char *const[]){"time.steps=30"}, c));
  {
    char text[2048];
    snprintf(text, sizeof(text), "%sobjective:\n  cs: {kind: side, body: egg, time: instant, at: 0.3}\n  e: {kind: enstrophy, region: [0, 0, 0, 4, 4, 2]}\ndesign: {parameters: [body.rho.density, body.wing.shape, body.ball.rotation_rate]}\n", bodies3d);
    PetscCall(LoadOK(__LINE__, "b3.yaml", text, 1, (const char *const[]){"time.steps=30"}, c));
    CHECK(c->nobjectives == 2 && c->objective[0].kind == FG_OBJ_SIDE && !strcmp(c->objective[0].body, "egg") && c->objective[1].n_region == 6 && c->objective[1].region[5] == 2, "3D objectives");
    CHECK(c->design.n == 3 && !strcmp(c->design.where[2], "b3.yaml:13: design.parameters"), "3D design: %s", c->design.where[2]);
    PetscCall(RoundTrip(__LINE__, "b3.yaml", c));
  }
  /* an empty objective section */
  PetscCall(LoadOK(__LINE__, "t.yaml", OK2 "objective: {}\n", 0, NULL, c));
  CHECK(c->nobjectives == 0 && !strstr(c->resolved, "objective"), "empty objective section");

  /* the most of them: 16 objectives with long names, 16 design parameters */
  {
    char *text;
    PetscCall(PetscMalloc1(16384, &text));
    snprintf(text, 16384, "%s", OK2 "boundary: {x_lo: {type: inflow, velocity: [1, 0]}, x_hi: {type: outflow}}\nbody:\n");
    for (int i = 0; i < 7; i++) {
      size_t used = strlen(text);
      snprintf(text + used, 16384 - used, "  body_with_a_long_name_%d: {shape: circle, position: [0.5, 0.5], radius: 0.1}\n", i);
    }
    PetscCall(PetscStrlcat(text, "design:\n  parameters: [flow.nu, flow.inflow_speed", 16384));
    for (int i = 0; i < 7; i++) {
      size_t used = strlen(text);
      snprintf(text + used, 16384 - used, ",\n    body.body_with_a_long_name_%d.shape, body.body_with_a_long_name_%d.rotation_rate", i, i);
    }
    PetscCall(PetscStrlcat(text, "]\nobjective:\n", 16384));
    for (int i = 0; i < FG_CASE_MAX_OBJECTIVES; i++) {
      size_t used = strlen(text);
      snprintf(text + used, 16384 - used, "  objective_with_a_long_name_%d: {kind: moment, body: body_with_a_long_name_%d, window: [0.1, 0.4], ramp: 0.1, weight: 0.5}\n", i, i % 7);
    }
    PetscCall(LoadOK(__LINE__, "max.yaml", text, 0, NULL, c));
    CHECK(c->nobjectives == FG_CASE_MAX_OBJECTIVES && c->design.n == FG_CASE_MAX_DESIGN, "max counts %d %d", (int)c->nobjectives, (int)c->design.n);
    CHECK(!strcmp(c->design.parameters[15], "body.body_with_a_long_name_6.rotation_rate") && !strcmp(c->design.where[15], "max.yaml:26: design.parameters"), "max design: %s", c->design.where[15]);
    PetscCall(RoundTrip(__LINE__, "max.yaml", c));
    PetscCall(PetscFree(text));
  }
  PetscCall(PetscFree(c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define O2 OK2 "body:\n  c: {shape: circle, position: [0.5, 0.5], radius: 0.1}\nprobe:\n  p: {at: [0.2, 0.5]}\n  q: {at: [0.2, 0.5], reference: [0.8, 0.5]}\nobjective:\n" /* the objectives start at line 15 */
static PetscErrorCode TestObjectiveErrors(void)
{
  PetscFunctionBeginUser;
  /* kinds and the keys they have */
  PetscCall(BAD(O2 "  o: {kind: dragg}\n", "t.yaml:15: objective.o.kind: expected one of drag, lift, side, moment, neg_lift_drag, pressure_drop, kinetic_energy, enstrophy, probe_tracking, control_cost, field_tracking, dissipation; got 'dragg' (did you mean drag?)"));
  PetscCall(BAD(O2 "  o: {weight: 2}\n", "t.yaml:15: objective.o.kind: missing required key (section objective.o has no kind)"));
  PetscCall(BAD(O2 "  o: {kind: side}\n", "t.yaml:15: objective.o.kind: side is the force coefficient along z, and this case is 2D"));
  PetscCall(BAD(O2 "  o: {kind: drag, radius: 1}\n", "t.yaml:15: objective.o.radius: unknown key"));
  PetscCall(BAD(O2 "  o: {kind: kinetic_energy, body: c}\n", "t.yaml:15: objective.o.body: body applies to drag, lift, side, moment and neg_lift_drag objectives; objective.o is a kinetic_energy objective"));
  PetscCall(BAD(O2 "  o: {kind: drag, probe: p}\n", "t.yaml:15: objective.o.probe: probe applies to pressure_drop and probe_tracking objectives; objective.o is a drag objective"));
  PetscCall(BAD(O2 "  o: {kind: lift, region: [0, 0, 1, 1]}\n", "t.yaml:15: objective.o.region: region applies to kinetic_energy, enstrophy and field_tracking objectives; objective.o is a lift objective"));
  PetscCall(BAD(O2 "  o: {kind: enstrophy, target: [1, 0]}\n", "t.yaml:15: objective.o.target: target applies to probe_tracking objectives; objective.o is a enstrophy objective"));
  /* bodies */
  PetscCall(BAD(OK2 "objective:\n  o: {kind: moment}\n", "t.yaml:10: objective.o.body: a moment objective measures the force on a body, and the case has no bodies"));
  PetscCall(BAD(OK2 "body:\n  a: {shape: circle, position: [0.5, 0.5], radius: 0.1}\n  b: {shape: circle, position: [0.2, 0.5], radius: 0.1}\nobjective:\n  o:\n    kind: neg_lift_drag\n",
                "t.yaml:13: objective.o.body: missing required key: the case has 2 bodies (a, b); name the one whose force the neg_lift_drag objective measures"));
  PetscCall(BAD(O2 "  o: {kind: drag, body: d}\n", "t.yaml:15: objective.o.body: the case has no body d (its bodies: c)"));
  PetscCall(BADSET(O2 "  o: {kind: drag}\n", 1, (const char *const[]){"objective.o.body=e"}, "--set objective.o.body=e: the case has no body e (its bodies: c)"));
  /* probes */
  PetscCall(BAD(O2 "  o: {kind: pressure_drop}\n", "t.yaml:15: objective.o.probe: missing required key (section objective.o has no probe; required for pressure_drop objectives)"));
  PetscCall(BAD(O2 "  o: {kind: pressure_drop, probe: x}\n", "t.yaml:15: objective.o.probe: the case has no probe x (its probes: p, q)"));
  PetscCall(BAD(OK2 "objective:\n  o: {kind: probe_tracking, probe: x, target: [1, 0]}\n", "t.yaml:10: objective.o.probe: the case has no probe x: it has no probes"));
  PetscCall(BAD(O2 "  o: {kind: pressure_drop, probe: p}\n", "t.yaml:15: objective.o.probe: pressure_drop is p(at) - p(reference) of the probe, and probe.p has no reference point (give probe.p.reference)"));
  PetscCall(BAD(O2 "  o: {kind: probe_tracking, probe: q}\n", "t.yaml:15: objective.o.target: missing required key (objective.o has neither target nor observations; probe_tracking needs one)"));
  PetscCall(BAD(O2 "  o:\n    kind: probe_tracking\n    probe: q\n    target: [1, 0]\n    observations: a.csv\n", "t.yaml:19: objective.o.observations: give target or observations, not both (target from t.yaml:18: objective.o.target)"));
  PetscCall(BAD(O2 "  o: {kind: probe_tracking, probe: q, observations: no/such/history.csv}\n", "t.yaml:15: objective.o.observations: cannot open no/such/history.csv: No such file or directory"));
  PetscCall(BAD(O2 "  o: {kind: probe_tracking, probe: q, target: [1, 0, 0]}\n", "t.yaml:15: objective.o.target: 3 entries, but grid.cells has 2"));
  /* regions */
  PetscCall(BAD(O2 "  o: {kind: kinetic_energy, region: [0, 0, 1]}\n", "t.yaml:15: objective.o.region: 3 entries; at least 4"));
  PetscCall(BAD(O2 "  o: {kind: kinetic_energy, region: [0, 0, 0, 1, 1, 1]}\n", "t.yaml:15: objective.o.region: 6 entries, but a region in 2D is the lower corner, then the upper corner: 4 numbers"));
  PetscCall(BAD(O2 "  o: {kind: kinetic_energy, region: [0, 0.5, 1, 0.5]}\n", "t.yaml:15: objective.o.region: the lower corner must be below the upper corner, and in y it is not (0.5 >= 0.5)"));
  PetscCall(BAD(O2 "  o: {kind: enstrophy, region: [-0.1, 0, 1, 1]}\n", "t.yaml:15: objective.o.region: the region reaches outside the domain in x: [-0.1, 1] is not within [0, 1]"));
  /* time functionals */
  PetscCall(BAD(O2 "  o: {kind: enstrophy, time: later}\n", "t.yaml:15: objective.o.time: expected one of average, final, instant; got 'later'"));
  PetscCall(BAD(O2 "  o:\n    kind: enstrophy\n    time: instant\n", "t.yaml:15: objective.o.at: missing required key (section objective.o has no at; required for time instant)"));
  PetscCall(BAD(O2 "  o: {kind: enstrophy, time: instant, at: 0.6}\n", "t.yaml:15: objective.o.at: 0.6 is after the end of the run (steps*dt = 0.5)"));
  PetscCall(BAD(O2 "  o: {kind: enstrophy, at: 0.1}\n", "t.yaml:15: objective.o.at: at applies to time instant only; objective.o has time average (the default)"));
  PetscCall(BAD(O2 "  o: {kind: enstrophy, time: final, window: [0, 1]}\n", "t.yaml:15: objective.o.window: window applies to time average only; objective.o has time final"));
  PetscCall(BAD(O2 "  o: {kind: enstrophy, time: instant, at: 0.1, ramp: 0}\n", "t.yaml:15: objective.o.ramp: ramp applies to time average only; objective.o has time instant"));
  PetscCall(BAD(O2 "  o: {kind: enstrophy, window: [0.3, 0.3]}\n", "t.yaml:15: objective.o.window: [0.3, 0.3]: the window [t0, t1] must end after it starts (t0 < t1)"));
  PetscCall(BAD(O2 "  o: {kind: enstrophy, window: [-0.1, 0.3]}\n", "t.yaml:15: objective.o.window[0]: -0.1 is out of range (must be >= 0)"));
  PetscCall(BAD(O2 "  o: {kind: enstrophy, window: [0.3]}\n", "t.yaml:15: objective.o.window: 1 entry; at least 2"));
  PetscCall(BAD(O2 "  o: {kind: enstrophy, window: [0.1, 0.3], ramp: 0.11}\n", "t.yaml:15: objective.o.ramp: 0.11: the two ramps take 2*ramp, longer than the window [0.1, 0.3] (length 0.2)"));
  PetscCall(BAD(O2 "  o: {kind: enstrophy, ramp: 0.3}\n", "t.yaml:15: objective.o.ramp: 0.3: the two ramps take 2*ramp, longer than the run (steps*dt = 0.5, the window without one)"));
  PetscCall(BAD(O2 "  o: {kind: enstrophy, ramp: -1}\n", "t.yaml:15: objective.o.ramp: -1 is out of range (must be >= 0)"));
  PetscCall(BAD(O2 "  o: {kind: control_cost, time: final}\n", "t.yaml:15: objective.o.time: final, but control_cost is an integral of the controls over the window: its time is average"));
  PetscCall(BAD(O2 "  o: {kind: control_cost, time: instant}\n", "t.yaml:15: objective.o.time: instant, but control_cost is an integral of the controls over the window: its time is average"));
  PetscCall(BAD(O2 "  o: {kind: control_cost, time: instant, at: 0.1}\n", "t.yaml:15: objective.o.at: at does not apply to control_cost objectives (always a time average)"));
  PetscCall(BAD(O2 "  o: {kind: enstrophy, weight: 0}\n", "t.yaml:15: objective.o.weight: 0: a weight must not be zero (leave the objective out instead)"));
  /* names and counts */
  PetscCall(BAD(O2 "  1st: {kind: enstrophy}\n", "t.yaml:15: objective: '1st' is not a valid objective name"));
  {
    char text[4096];
    snprintf(text, sizeof(text), O2);
    for (int i = 0; i <= FG_CASE_MAX_OBJECTIVES; i++) {
      size_t used = strlen(text);
      snprintf(text + used, sizeof(text) - used, "  e%d: {kind: enstrophy}\n", i);
    }
    PetscCall(BAD(text, "t.yaml:31: objective.e16: too many objectives (at most 16)"));
  }
  PetscCall(BADSET(O2 "  o: {kind: enstrophy}\n", 1, (const char *const[]){"objective.x.weight=2"}, "--set objective.x.weight=2: the case has no objective x (its objectives: o)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define D2 OK2 "body:\n  c: {shape: circle, position: [0.5, 0.5], radius: 0.1}\n  rho: {shape: density, density_file: rho.h5}\ndesign:\n" /* the design starts at line 13 */
static PetscErrorCode TestDesignErrors(void)
{
  PetscFunctionBeginUser;
  PetscCall(BAD(D2 "  parameters: [flow.mu]\n", "t.yaml:13: design.parameters: unknown design parameter 'flow.mu' (did you mean flow.nu?)"));
  PetscCall(BAD(D2 "  parameters: [body.c.shap]\n", "t.yaml:13: design.parameters: unknown design parameter 'body.c.shap' (did you mean body.c.shape?)"));
  PetscCall(BAD(D2 "  parameters: [grid.lengths]\n", "t.yaml:13: design.parameters: unknown design parameter 'grid.lengths' (the design parameters: flow.nu, flow.inflow_speed, body.NAME.shape, body.NAME.shape.PARAM, body.NAME.rotation_rate, body.NAME.jet_amplitude, body.NAME.density, actuator.NAME.force, initial.velocity)"));
  PetscCall(BAD(D2 "  parameters: [body.c.shape.1x]\n", "t.yaml:13: design.parameters: unknown design parameter 'body.c.shape.1x'"));
  PetscCall(BAD(D2 "  parameters: [body.c.rotation_rate.x]\n", "t.yaml:13: design.parameters: unknown design parameter 'body.c.rotation_rate.x'"));
  PetscCall(BAD(D2 "  parameters: [body.rho.shape.r]\n", "t.yaml:13: design.parameters: body.rho.shape.r: body.rho is a density body"));
  PetscCall(BAD(D2 "  parameters: [body.d.shape.r]\n", "t.yaml:13: design.parameters: body.d.shape.r: the case has no body d (its bodies: c, rho)"));
  PetscCall(BAD(D2 "  parameters:\n    - body.c.shape.r\n    - body.c.rotation_rate\n    - body.c.shape\n", "t.yaml:16: design.parameters: body.c.shape.r and body.c.shape overlap (entries 1 and 3): body.c.shape holds every parameter of the shape"));
  PetscCall(BAD(D2 "  parameters:\n    - flow.nu\n    - body.d.shape\n", "t.yaml:15: design.parameters: body.d.shape: the case has no body d (its bodies: c, rho)"));
  PetscCall(BAD(OK2 "design:\n  parameters: [body.d.rotation_rate]\n", "t.yaml:10: design.parameters: body.d.rotation_rate: the case has no body d: it has no bodies"));
  PetscCall(BAD(D2 "  parameters: [body.c.density]\n", "t.yaml:13: design.parameters: body.c.density: body.c is a circle body; only a density body has a per-cell density to design"));
  PetscCall(BAD(D2 "  parameters: [body.rho.shape]\n", "t.yaml:13: design.parameters: body.rho.shape: body.rho is a density body (a per-cell field; its design parameter is body.rho.density)"));
  PetscCall(BAD(D2 "  parameters: [body.rho.rotation_rate]\n", "t.yaml:13: design.parameters: body.rho.rotation_rate: body.rho is a density body"));
  PetscCall(BAD(D2 "  parameters: [body.c.jet_amplitude]\n", "t.yaml:13: design.parameters: body.c.jet_amplitude: body.c has no jets (body.c.jet_angles is empty)"));
  PetscCall(BAD(D2 "  parameters: [actuator.a.force]\n", "t.yaml:13: design.parameters: actuator.a.force: the case has no actuator a: it has no actuators"));
  PetscCall(BAD(D2 "  parameters: [flow.inflow_speed]\n", "t.yaml:13: design.parameters: flow.inflow_speed: the case has no inflow face with a nonzero velocity to scale"));
  PetscCall(BAD(D2 "  parameters:\n    - body.rho.density\n    - flow.nu\n    - body.rho.density\n", "t.yaml:16: design.parameters: body.rho.density is listed twice (entries 1 and 3)"));
  PetscCall(BAD(D2 "  parameters: flow.nu\n", "t.yaml:13: design.parameters: expected a list of strings (e.g. [a, b]), got a scalar 'flow.nu'"));
  PetscCall(BAD(D2 "  parameters: [[flow.nu]]\n", "t.yaml:13: design.parameters[0]: expected a string, got a list"));
  PetscCall(BAD(D2 "  parameters: [\"\"]\n", "t.yaml:13: design.parameters[0]: must not be empty"));
  PetscCall(BAD(D2 "  parameters: [body.a_very_long_body_name_that_is_long.rotation_rate_of_it_and_more]\n", "t.yaml:13: design.parameters[0]: too long (68 bytes; at most 63)"));
  PetscCall(BAD(D2 "  parameters: [flow.nu, initial.velocity, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o]\n", "t.yaml:13: design.parameters: 17 entries; at most 16"));
  PetscCall(BAD(D2 "  params: [flow.nu]\n", "t.yaml:13: design.params: unknown key (keys of design: time_basis, parameters, lower, upper, max_change, scale)"));
  PetscCall(BADSET(D2 "  parameters: [flow.nu]\n", 1, (const char *const[]){"design.parameters=[flow.nu,flow.nu]"}, "--set design.parameters=[flow.nu,flow.nu]: flow.nu is listed twice (entries 1 and 2)"));
  PetscCall(BADSET(D2 "  parameters: [flow.nu]\n", 1, (const char *const[]){"design.parameters=[body.c.density]"}, "--set design.parameters=[body.c.density]: body.c.density: body.c is a circle body"));
  PetscCall(BAD(OK2 "adjoint:\n  fields_every: -1\n", "t.yaml:10: adjoint.fields_every: -1 is out of range (must be >= 0)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* FGCaseLoad from files, FGCasePrepareOutput and FGCaseWriteResolved. */
static PetscErrorCode TestFiles(void)
{
  FGCase        *c, *r;
  PetscErrorCode ierr;
  char           file[256], dir[256], big[256], bin[256];

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&c));
  PetscCall(PetscNew(&r));
  snprintf(file, sizeof(file), "test_case_np%d.yaml", (int)size);
  snprintf(dir, sizeof(dir), "test_case_np%d.out/sub", (int)size);
  snprintf(big, sizeof(big), "test_case_np%d_big.yaml", (int)size);
  snprintf(bin, sizeof(bin), "test_case_np%d_bin.yaml", (int)size);
  if (rank == 0) {
    FILE *fp = fopen(file, "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", file);
    fputs(cavity, fp);
    fclose(fp);
    fp = fopen(big, "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", big);
    for (int i = 0; i < 20000; i++) fputs("# a comment line that pads the file beyond the limit of 1 MiB ...\n", fp);
    fclose(fp);
    fp = fopen(bin, "wb");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", bin);
    fwrite("name: x\n\0\0\0\1\2", 1, 13, fp);
    fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));

  /* a file reads like the same text */
  {
    const char *sets[1];
    char        set[300];
    snprintf(set, sizeof(set), "output.dir=%s", dir);
    sets[0] = set;
    PetscCall(PetscPushErrorHandler(RecordError, NULL));
    ierr = FGCaseLoad(PETSC_COMM_WORLD, file, 1, sets, c);
    PetscCall(PetscPopErrorHandler());
    PetscCall(Expect(__LINE__, ierr, 0, ""));
    PetscCall(LoadOK(__LINE__, file, cavity, 1, sets, r));
    CHECK(SameCase(c, r), "file and string differ");
    snprintf(set, sizeof(set), "test_case_np%d", (int)size);
    CHECK(!strcmp(c->name, set), "name %s", c->name);
  }
  /* output directory and resolved case */
  PetscCall(FGCasePrepareOutput(PETSC_COMM_WORLD, c));
  PetscCall(FGCaseWriteResolved(PETSC_COMM_WORLD, c));
  {
    char path[300];
    snprintf(path, sizeof(path), "%s/case.resolved.yaml", dir);
    PetscCall(PetscPushErrorHandler(RecordError, NULL));
    ierr = FGCaseLoad(PETSC_COMM_WORLD, path, 0, NULL, r);
    PetscCall(PetscPopErrorHandler());
    PetscCall(Expect(__LINE__, ierr, 0, ""));
    CHECK(!strcmp(r->resolved, c->resolved) && r->hash == c->hash, "resolved file differs");
    if (rank == 0) {
      struct stat st;
      snprintf(path, sizeof(path), "%s/case.resolved.yaml.tmp", dir);
      CHECK(stat(path, &st) != 0, "the .tmp file is left behind");
    }
  }
  /* output directory errors */
  {
    const char *sets[] = {"output.dir=/proc/fg-no/x"};
    PetscCall(LoadOK(__LINE__, "t.yaml", cavity, 1, sets, r));
    PetscCall(PetscPushErrorHandler(RecordError, NULL));
    ierr = FGCasePrepareOutput(PETSC_COMM_WORLD, r);
    PetscCall(PetscPopErrorHandler());
    PetscCall(Expect(__LINE__, ierr, FG_ERR_INPUT, "--set output.dir=/proc/fg-no/x: cannot use /proc/fg-no/x as the output directory: cannot create directory /proc/fg-no"));
    PetscCall(PetscPushErrorHandler(RecordError, NULL));
    ierr = FGCaseWriteResolved(PETSC_COMM_WORLD, r);
    PetscCall(PetscPopErrorHandler());
    PetscCall(Expect(__LINE__, ierr, FG_ERR_IO_WRITE, "cannot write the resolved case /proc/fg-no/x/case.resolved.yaml: open failed"));
  }
  {
    char text[1024];
    snprintf(text, sizeof(text), OK2 "output:\n  dir: %s/below\n", file); /* a path under a regular file */
    PetscCall(LoadOK(__LINE__, "t.yaml", text, 0, NULL, r));
    PetscCall(PetscPushErrorHandler(RecordError, NULL));
    ierr = FGCasePrepareOutput(PETSC_COMM_WORLD, r);
    PetscCall(PetscPopErrorHandler());
    PetscCall(Expect(__LINE__, ierr, FG_ERR_INPUT, "t.yaml:10: output.dir: cannot use"));
    PetscCall(Expect(__LINE__, ierr, FG_ERR_INPUT, "exists and is not a directory"));
  }
  /* file errors */
  {
    struct {
      const char *file, *expect;
    } bad[] = {
      {"no-such-case.yaml", "no-such-case.yaml: cannot open the case file: No such file or directory"},
      {".",                 ".: is a directory, not a case file"                                     },
      {"/dev/null",         "/dev/null: it is a character device, not a case file"                   },
      {big,                 "too large ("                                                            },
      {bin,                 ":2: not a text file: NUL byte at offset 8 (a binary file?)"             },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      PetscCall(PetscPushErrorHandler(RecordError, NULL));
      ierr = FGCaseLoad(PETSC_COMM_WORLD, bad[i].file, 0, NULL, r);
      PetscCall(PetscPopErrorHandler());
      PetscCall(Expect(__LINE__, ierr, FG_ERR_INPUT, bad[i].expect));
    }
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  if (rank == 0) {
    char path[300];
    snprintf(path, sizeof(path), "%s/case.resolved.yaml", dir);
    (void)remove(path);
    (void)remove(dir);
    snprintf(path, sizeof(path), "test_case_np%d.out", (int)size);
    (void)remove(path);
    (void)remove(file);
    (void)remove(big);
    (void)remove(bin);
  }
  PetscCall(PetscFree(c));
  PetscCall(PetscFree(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Markdown table: one row per table key, with the columns the README shows. */
static PetscErrorCode TestPrintKeys(void)
{
  FILE  *fp;
  static char text[131072];
  size_t n;
  int    rows = 0;

  PetscFunctionBeginUser;
  if (rank != 0) PetscFunctionReturn(PETSC_SUCCESS);
  fp = tmpfile();
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "tmpfile() failed");
  PetscCall(FGCasePrintKeys(fp));
  rewind(fp);
  n       = fread(text, 1, sizeof(text) - 1, fp);
  text[n] = '\0';
  fclose(fp);
  for (const char *p = strstr(text, "\n| `"); p; p = strstr(p + 1, "\n| `")) rows++;
  CHECK(strstr(text, "| key | type | default | range | description |\n|---|---|---|---|---|\n") != NULL, "header:\n%s", text);
  CHECK(strstr(text, "| `grid.cells` | int list | **required** | [0, 1048576] | Cells per direction (at least 2); `0` for a direction whose `grid.stretch` type (`band`, `faces`, `file`) makes the count |\n") != NULL, "grid.cells row:\n%s", text);
  CHECK(strstr(text, "| `poisson.rtol` | real | `1e-10` | (0, 1) |") != NULL, "rtol row");
  CHECK(strstr(text, "| `boundary.<face>.type` | enum | `periodic` on a periodic axis, else `wall` | `periodic`, `wall`, `lid`, `slip`, `inflow`, `outflow` |") != NULL, "face row");
  CHECK(strstr(text, "| `body.<body>.control_points` | list of [x, y], 4-64 points | **required** where it applies |") != NULL, "control_points row");
  CHECK(strstr(text, "| `body.<body>.eta` | real | `1e-4*l_ref/u_ref`; `wall: sharp`: at most `1e-3*h^2/nu` | > 0 |") != NULL, "eta row");
  CHECK(strstr(text, "| `body.<body>.fourier_cos` | real list, 0-24 entries | `[]` |") != NULL, "fourier_cos row");
  CHECK(strstr(text, "| `probe.<probe>.reference` | real list | none |") != NULL, "reference row");
  CHECK(strstr(text, "| `design.parameters` | string list, 0-16 entries | `[]` | non-empty |") != NULL, "design row");
  CHECK(strstr(text, "| `objective.<objective>.window` | real list, 2 entries | the whole run | >= 0 |") != NULL, "window row");
  CHECK(strstr(text, "| `objective.<objective>.at` | real | **required** where it applies | >= 0 |") != NULL, "at row");
  CHECK(rows == (int)FGCaseKeyDefCount_Internal(), "%d rows for %d keys in the table", rows, (int)FGCaseKeyDefCount_Internal());
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt total[2], mine[2];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(TestGood());
  PetscCall(TestSet());
  PetscCall(TestErrors());
  PetscCall(TestSetErrors());
  PetscCall(TestBodies());
  PetscCall(TestBodyErrors());
  PetscCall(TestObjectives());
  PetscCall(TestObjectiveErrors());
  PetscCall(TestDesignErrors());
  PetscCall(TestFiles());
  PetscCall(TestPrintKeys());
  mine[0] = nfail, mine[1] = nchecks;
  PetscCallMPI(MPI_Allreduce(mine, total, 2, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_case: %" PetscInt_FMT " checks on %d ranks, %" PetscInt_FMT " failed\n", total[1], (int)size, total[0]));
  PetscCall(PetscFinalize());
  return total[0] ? 1 : 0;
}
