#!/usr/bin/env bash
# Forward-solver throughput (cell-steps/s, time per step) and the per-operator breakdown, on 1 and
# 2 ranks, for the standard cases:
#   2D 1024^2 periodic Taylor-Green, 2D 512^2 lid-driven cavity, 3D 128^3 lid-driven cavity
#   (and 3D 128^3 periodic ABC flow)
#
#   bash bench/forward.sh [build-dir]          (default build-dir: build; ~5 minutes on 2 cores)
#
# Environment: NPS="1 2" (rank counts), REPS=5 (timed repetitions, median), STEPS2D=10 and
# STEPS3D=3 (steps per repetition), WARMUP=3, CASES (default "tg:2:1024 cavity:2:512 cavity:3:128
# tg:3:128"), POISSON=fftw, MPIEXEC="mpiexec ...", CSV (default <build-dir>/bench/forward_bench.csv).
# Prints each run and then the table from the CSV (operator shares are of the instrumented step;
# sum/step = the instrumented step's operator times summed, over the plain step's median).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
exe=$build/bench/forward_bench
csv=${CSV:-$build/bench/forward_bench.csv}
NPS=${NPS:-"1 2"}
REPS=${REPS:-5}
STEPS2D=${STEPS2D:-10}
STEPS3D=${STEPS3D:-3}
WARMUP=${WARMUP:-3}
POISSON=${POISSON:-fftw}
CASES=${CASES:-"tg:2:1024 cavity:2:512 cavity:3:128 tg:3:128"}
MPIEXEC=${MPIEXEC:-"mpiexec --allow-run-as-root --oversubscribe"}
[ -x "$exe" ] || { echo "forward.sh: $exe not found; build first (cmake --build $build)" >&2; exit 2; }

echo "case,dim,n,np,poisson,steps,reps,s_per_step,min_s_per_step,cell_steps_per_s,momentum_s,divergence_s,poisson_s,gradient_s,bcfill_s,ghost_s,update_s,instrumented_sum_s" > "$csv"
for np in $NPS; do
  for c in $CASES; do
    IFS=: read -r name dim n <<< "$c"
    steps=$STEPS2D; [ "$dim" = 3 ] && steps=$STEPS3D
    $MPIEXEC -n "$np" "$exe" -case "$name" -dim "$dim" -n "$n" -steps "$steps" -reps "$REPS" -warmup "$WARMUP" -poisson "$POISSON" -csv "$csv"
    echo
  done
done

# The table: throughput, then each operator's share of the instrumented step.
/usr/bin/env python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ops = ["momentum", "divergence", "poisson", "gradient", "bcfill", "ghost", "update"]
print(f"CSV: {sys.argv[1]}\n")
print("| case | grid | ranks | ms/step (median) | Mcell-steps/s | ms/step (fastest) | " + " | ".join(ops) + " | sum/step |")
print("|---|---|---|---|---|---|" + "---|" * len(ops) + "---|")
for r in rows:
    grid = f"{r['n']}^{r['dim']}"
    s = float(r["s_per_step"]); tot = float(r["instrumented_sum_s"])
    share = " | ".join(f"{100 * float(r[o + '_s']) / tot:.0f}%" if tot > 0 else "" for o in ops)
    print(f"| {r['case']} | {grid} | {r['np']} | {1e3 * s:.2f} | {float(r['cell_steps_per_s']) / 1e6:.1f} | {1e3 * float(r['min_s_per_step']):.2f} | {share} | {tot / s:.2f} |")
PY
