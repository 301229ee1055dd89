/*
  The flowgrad command line, parsed before MPI starts:

    flowgrad run|adjoint|check|optimize|info CASE.yaml [--set key=value ...] [PETSc options]
    flowgrad info --keys
    flowgrad --help | --version

  The case file comes first. From the first argument that starts with a single '-' on, every
  argument that is not a flowgrad --option (--set, --resume, --keys, --help) goes to
  PetscInitialize, values included: -log_view, -poisson_ksp_type cg, -options_file f, ...
*/
#define _POSIX_C_SOURCE 200809L /* realpath, O_CLOEXEC under -std=c11 */
#include <fg/app.h>
#include <fg/sys.h>
#include <fftw3.h>
#include <fg/iofile.h>
#include <mpi.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
  const char *name;
  FGCommand   cmd;
  const char *what;
} fg_commands[] = {
  {"run",      FG_CMD_RUN,      "forward simulation: fields, history, checkpoints"},
  {"adjoint",  FG_CMD_ADJOINT,  "forward + discrete adjoint: gradient and gradient fields"},
  {"check",    FG_CMD_CHECK,    "gradient verification: dot-product, Taylor and FD tests"},
  {"optimize", FG_CMD_OPTIMIZE, "optimization with PETSc TAO"},
  {"info",     FG_CMD_INFO,     "validate the case; print it resolved, the decomposition, a memory estimate"},
};

/* The launcher's rank of this process before MPI_Init (so only one rank prints usage errors). */
int FGLaunchRank(void)
{
  const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
  for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
    const char *v = getenv(vars[i]);
    if (v && *v) return atoi(v);
  }
  return 0;
}

void FGCommandLinePrintHelp(FILE *fp)
{
  fprintf(fp, "flowgrad %s - differentiable incompressible Navier-Stokes solver (MPI, PETSc, FFTW, HDF5)\n\n", FGVersion());
  fprintf(fp, "Usage:\n  mpiexec -n N flowgrad COMMAND CASE.yaml [--set key=value ...] [PETSc options]\n  flowgrad info --keys\n  flowgrad --help | --version\n\nCommands:\n");
  for (size_t i = 0; i < sizeof(fg_commands) / sizeof(fg_commands[0]); i++) fprintf(fp, "  %-9s %s\n", fg_commands[i].name, fg_commands[i].what);
  fprintf(fp, "\nOptions:\n"
              "  --set key=value  override a case-file key (repeatable), e.g. --set flow.re=200\n"
              "                   --set grid.cells=[128,128]\n"
              "  --keys           (info) print every case-file key with type, default and range\n"
              "  --resume         (run) continue from the latest checkpoint in <output.dir>/checkpoints;\n"
              "                   (adjoint) continue the reverse sweep from <output.dir>/adjoint/resume.h5\n"
              "                   (optimize) replay <output.dir>/optimization/evaluations/ and go on\n"
              "                   (automatic when SLURM_RESTART_COUNT > 0)\n"
              "  --resume-from F  (run) continue from checkpoint file F (e.g. an older, intact one when\n"
              "                   the newest is damaged); later checkpoints are replaced as the run goes on\n"
              "  --help, -h       this text\n"
              "  --version        versions of flowgrad and of the libraries it was built with\n"
              "  -<petsc option>  passed to PETSc, e.g. -log_view, -poisson_ksp_monitor\n"
              "\nExit codes:\n"
              "  0  success                      3  numerical failure (NaN, CFL, solver)\n"
              "  1  internal error               4  I/O failure (HDF5, damaged checkpoint)\n"
              "  2  bad input or usage           75 stopped on a signal after a checkpoint (requeue)\n");
}

void FGCommandLinePrintVersion(FILE *fp)
{
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
  int  len = 0;
  MPI_Get_library_version(mpi, &len);
  for (int i = 0; i < len; i++)
    if (mpi[i] == '\n' || mpi[i] == ',') {
      mpi[i] = '\0';
      break;
    }
  fprintf(fp, "flowgrad %s\n", FGVersion());
  fprintf(fp, "  PETSc %d.%d.%d, HDF5 %s, %s, %s\n", PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, FGIOHDF5Version(), fftw_version, mpi);
}

/* An -options_file that PETSc can read as it starts: a regular file (a FIFO would block it, a
   device never end), of at most 1 MiB, text, whose own -options_file lines (followed here, up to
   8 deep) never include a file that includes it (PETSc recurses until its stack overflows).
   Returns 0, or FG_EXIT_INPUT with a message. */
#define FG_OPTFILE_MAX   (1 << 20)
#define FG_OPTFILE_DEPTH 8
static int FGCheckOptionsFile_Private(const char *path, char stack[][PATH_MAX], int depth, char *msg, size_t len)
{
  struct stat st;
  char        real[PATH_MAX], *text;
  int         fd, code = 0;
  ssize_t     n = 0;

  if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 || fstat(fd, &st) != 0) {
    snprintf(msg, len, "-options_file %s: cannot read it: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return FG_EXIT_INPUT;
  }
  if (!S_ISREG(st.st_mode) || st.st_size > FG_OPTFILE_MAX) {
    if (!S_ISREG(st.st_mode)) snprintf(msg, len, "-options_file %s: it is %s, not a file of options", path, FGFileKind(st.st_mode));
    else snprintf(msg, len, "-options_file %s: %lld bytes, more than a file of options holds (1 MiB)", path, (long long)st.st_size);
    close(fd);
    return FG_EXIT_INPUT;
  }
  if (!realpath(path, real)) snprintf(real, sizeof(real), "%s", path);
  for (int d = 0; d < depth; d++)
    if (!strcmp(stack[d], real)) {
      snprintf(msg, len, "-options_file %s: it includes itself (through -options_file)", path);
      close(fd);
      return FG_EXIT_INPUT;
    }
  if (depth >= FG_OPTFILE_DEPTH) {
    snprintf(msg, len, "-options_file %s: options files nested more than %d deep", path, FG_OPTFILE_DEPTH);
    close(fd);
    return FG_EXIT_INPUT;
  }
  snprintf(stack[depth], PATH_MAX, "%s", real);
  if (!(text = (char *)malloc((size_t)st.st_size + 1))) {
    close(fd);
    snprintf(msg, len, "out of memory");
    return FG_EXIT_INTERNAL;
  }
  for (ssize_t r; n < (ssize_t)st.st_size && (r = read(fd, text + n, (size_t)st.st_size - (size_t)n)) > 0;) n += r;
  close(fd);
  text[n] = '\0';
  if (memchr(text, '\0', (size_t)n)) {
    snprintf(msg, len, "-options_file %s: not a text file (a NUL byte)", path);
    free(text);
    return FG_EXIT_INPUT;
  }
  for (char *tok = strtok(text, " \t\r\n"), *prev = NULL; tok && !code; prev = tok, tok = strtok(NULL, " \t\r\n")) {
    if (prev && !strcmp(prev, "-options_file")) {
      code = FGCheckOptionsFile_Private(tok, stack, depth + 1, msg, len); /* as PETSc: relative to the working directory */
    }
  }
  free(text);
  return code;
}

/*@C
  FGCommandLineParse - split argv into the flowgrad command, case file, --set pairs and PETSc
  options. Not collective (runs before MPI). Returns 0, or FG_EXIT_INPUT with a message.
@*/
int FGCommandLineParse(int argc, char **argv, FGCommandLine *cl, char *msg, size_t len)
{
  int       i     = 1;
  PetscBool petsc = PETSC_FALSE; /* past the first PETSc option */

  memset(cl, 0, sizeof(*cl));
  cl->petsc_argv = (char **)calloc((size_t)argc + 1, sizeof(char *));
  if (!cl->petsc_argv) {
    snprintf(msg, len, "out of memory");
    return FG_EXIT_INTERNAL;
  }
  cl->petsc_argv[cl->petsc_argc++] = argv[0];
  if (argc < 2) {
    snprintf(msg, len, "no command given (try flowgrad --help)");
    return FG_EXIT_INPUT;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "-help") || !strcmp(argv[1], "help")) {
    cl->help = PETSC_TRUE;
    return 0;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-version")) {
    cl->version = PETSC_TRUE;
    return 0;
  }
  for (size_t c = 0; c < sizeof(fg_commands) / sizeof(fg_commands[0]); c++)
    if (!strcmp(argv[1], fg_commands[c].name)) {
      cl->command      = fg_commands[c].cmd;
      cl->command_name = fg_commands[c].name;
    }
  if (cl->command == FG_CMD_NONE) {
    snprintf(msg, len, "unknown command '%s' (commands: run, adjoint, check, optimize, info; try flowgrad --help)", argv[1]);
    return FG_EXIT_INPUT;
  }
  for (i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      cl->help = PETSC_TRUE;
    } else if (!strcmp(a, "--set") || !strncmp(a, "--set=", 6)) {
      const char *kv = a[5] == '=' ? a + 6 : (i + 1 < argc ? argv[++i] : NULL);
      if (!kv) {
        snprintf(msg, len, "--set needs an argument key=value");
        return FG_EXIT_INPUT;
      }
      if (cl->nset >= FG_CLI_MAX_SET) {
        snprintf(msg, len, "too many --set arguments (at most %d)", FG_CLI_MAX_SET);
        return FG_EXIT_INPUT;
      }
      cl->set[cl->nset++] = kv;
    } else if (!strcmp(a, "--keys") && cl->command == FG_CMD_INFO) {
      cl->keys = PETSC_TRUE;
    } else if (!strcmp(a, "--resume-from") || !strncmp(a, "--resume-from=", 14)) {
      const char *f = a[13] == '=' ? a + 14 : (i + 1 < argc ? argv[++i] : NULL);
      if (cl->command != FG_CMD_RUN) {
        snprintf(msg, len, "--resume-from applies to flowgrad run only");
        return FG_EXIT_INPUT;
      }
      if (!f || !f[0]) {
        snprintf(msg, len, "--resume-from needs a checkpoint file");
        return FG_EXIT_INPUT;
      }
      cl->resume      = PETSC_TRUE;
      cl->resume_from = f;
    } else if (!strcmp(a, "--resume")) {
      if (cl->command != FG_CMD_RUN && cl->command != FG_CMD_ADJOINT && cl->command != FG_CMD_OPTIMIZE) {
        snprintf(msg, len, "--resume applies to flowgrad run, adjoint and optimize only");
        return FG_EXIT_INPUT;
      }
      cl->resume = PETSC_TRUE;
    } else if (!strncmp(a, "--", 2)) {
      snprintf(msg, len, "unknown option '%s' (try flowgrad --help)", a);
      return FG_EXIT_INPUT;
    } else if (a[0] == '-' && a[1] != '\0') {
      /* a PETSc option; from here on, every argument that is not a flowgrad --option is PETSc's
         (values included, negative numbers too), so the case file must come before */
      cl->petsc_argv[cl->petsc_argc++] = argv[i];
      petsc = PETSC_TRUE;
      if (!strcmp(a, "-options_file")) { /* PETSc would abort on a missing file, hang on a FIFO, recurse for ever */
        static char stack[FG_OPTFILE_DEPTH + 1][PATH_MAX];
        int         code;
        if (i + 1 >= argc || argv[i + 1][0] == '-') {
          snprintf(msg, len, "-options_file needs a file name");
          return FG_EXIT_INPUT;
        }
        if ((code = FGCheckOptionsFile_Private(argv[i + 1], stack, 0, msg, len))) return code;
      }
    } else if (petsc) {
      cl->petsc_argv[cl->petsc_argc++] = argv[i];
    } else if (!cl->case_file) {
      cl->case_file = a;
    } else {
      snprintf(msg, len, "unexpected argument '%s' (one case file per run)", a);
      return FG_EXIT_INPUT;
    }
  }
  if (!cl->help && !cl->keys && !cl->case_file) {
    snprintf(msg, len, "flowgrad %s: no case file given (usage: flowgrad %s CASE.yaml [--set key=value ...] [PETSc options]; the case file comes before the PETSc options)", cl->command_name, cl->command_name);
    return FG_EXIT_INPUT;
  }
  return 0;
}
