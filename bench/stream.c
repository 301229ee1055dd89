/*
  STREAM triad: a[i] = b[i] + s * c[i], the memory bandwidth the forward step is compared with
  (bench/run.sh, bench/summary.py).

  Each rank of the run (usually 1: `./stream`; `mpiexec -n P ./stream` gives the bandwidth of P
  processes at once) owns three arrays of -n doubles, by default at least 4 times its last-level
  cache each (the STREAM rule; the cache size read from /sys/devices/system/cpu/cpu0/cache, at
  least 10 M doubles = 80 MB per array). After one untimed triad, -reps (10) timed ones: a
  repetition's time is the slowest rank's (barrier before, MPI_MAX after); the bandwidth counts
  24 bytes per element (read b and c, write a; no write-allocate traffic, as STREAM counts), summed
  over the ranks. It prints the median and the best repetition and a machine-readable line

    CSV,stream,<ranks>,<elements per rank>,<MiB per array>,<reps>,<median s>,<best s>,<GB/s median>,<GB/s best>

  and, with -csv FILE, appends the same row to FILE (a header first when FILE is empty or new):
  ranks,elements_per_rank,array_mib,reps,median_s,best_s,gb_per_s,best_gb_per_s.

    ./stream [-n ELEMENTS] [-reps R] [-csv FILE]

  Plain MPI (no PETSc calls), so `mpicc -O3 -o stream bench/stream.c` builds it too.
*/
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the last-level cache of cpu0 in bytes (the highest cache level under sysfs), 0 if unknown */
static long LastLevelCache_Private(void)
{
  long best = 0;
  int  bestlevel = -1;
  for (int i = 0; i < 8; i++) {
    char  path[128], buf[64];
    FILE *f;
    int   level = -1;
    long  size  = 0;
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    if (!(f = fopen(path, "r"))) continue;
    if (fscanf(f, "%d", &level) != 1) level = -1;
    fclose(f);
    snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    if (!(f = fopen(path, "r"))) continue;
    if (fgets(buf, sizeof(buf), f)) {
      char *end;
      size = strtol(buf, &end, 10);
      if (*end == 'K') size *= 1024;
      else if (*end == 'M') size *= 1024 * 1024;
    }
    fclose(f);
    if (level > bestlevel && size > 0) {
      bestlevel = level;
      best      = size;
    }
  }
  return best;
}

static int CompareDouble_Private(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
  long        n = 0, llc;
  int         reps = 10, rank, size, bad = 0;
  const char *csvname = NULL;
  double     *a, *b, *c, *t, s = 3.0, tmed, tbest, gb, gbbest;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atol(argv[++i]);
    else if (!strcmp(argv[i], "-reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-csv") && i + 1 < argc) csvname = argv[++i];
    else {
      if (!rank) fprintf(stderr, "usage: stream [-n ELEMENTS] [-reps R] [-csv FILE]\n");
      MPI_Finalize();
      return 2;
    }
  }
  llc = LastLevelCache_Private();
  if (n <= 0) {
    n = 10 * 1000 * 1000;
    if (4 * llc / (long)sizeof(double) > n) n = 4 * llc / (long)sizeof(double);
  }
  if (reps < 1) reps = 1;
  a = malloc((size_t)n * sizeof(double));
  b = malloc((size_t)n * sizeof(double));
  c = malloc((size_t)n * sizeof(double));
  t = malloc((size_t)reps * sizeof(double));
  if (!a || !b || !c || !t) {
    fprintf(stderr, "stream: cannot allocate 3 x %ld doubles\n", n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (long i = 0; i < n; i++) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  for (int r = -1; r < reps; r++) { /* r = -1: untimed warm-up */
    double t0, dt;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
    dt = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r >= 0) t[r] = dt;
    s = (r & 1) ? 3.0 : 2.0; /* a new scalar each time: the loop cannot be hoisted */
  }
  /* the check (also keeps the stores): a = b + s c with the scalar of the last repetition */
  s = ((reps - 1) & 1) ? 2.0 : 3.0;
  for (long i = 0; i < n; i += 4093)
    if (a[i] != 1.0 + s * 2.0) bad = 1;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  qsort(t, (size_t)reps, sizeof(double), CompareDouble_Private);
  tmed   = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
  tbest  = t[0];
  gb     = 24.0 * (double)n * size / tmed / 1e9;
  gbbest = 24.0 * (double)n * size / tbest / 1e9;
  if (!rank) {
    double mib = (double)n * sizeof(double) / 1048576.0;
    printf("stream: triad a = b + s c, %d rank(s), 3 x %ld doubles (%.0f MiB per array; last-level cache %.0f MiB), %d repetitions\n", size, n, mib, (double)llc / 1048576.0, reps);
    printf("stream: median %.4e s (%.2f GB/s), best %.4e s (%.2f GB/s), 24 bytes per element%s\n", tmed, gb, tbest, gbbest, bad ? "; CHECK FAILED" : "");
    printf("CSV,stream,%d,%ld,%.1f,%d,%.6e,%.6e,%.3f,%.3f\n", size, n, mib, reps, tmed, tbest, gb, gbbest);
    if (csvname) {
      FILE *f = fopen(csvname, "a");
      if (!f) {
        fprintf(stderr, "stream: cannot open %s\n", csvname);
        bad = 1;
      } else {
        fseek(f, 0, SEEK_END);
        if (ftell(f) == 0) fprintf(f, "ranks,elements_per_rank,array_mib,reps,median_s,best_s,gb_per_s,best_gb_per_s\n");
        fprintf(f, "%d,%ld,%.1f,%d,%.6e,%.6e,%.3f,%.3f\n", size, n, mib, reps, tmed, tbest, gb, gbbest);
        fclose(f);
      }
    }
  }
  free(a);
  free(b);
  free(c);
  free(t);
  MPI_Finalize();
  return bad;
}
