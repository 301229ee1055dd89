#!/usr/bin/env bash
# The implicit viscous term's cost (issue 20, bench (b)): time per step of the implicit step
# (Crank-Nicolson per RK3 stage) against the explicit step, side by side: the runs alternate
# REPEAT times in one job (a shared machine loads them alike), at the same dt (the bench's CFL-0.3
# step, below the explicit limit: both run; the solves cost the same at any dt). Each Helmholtz
# solver of SOLVERS (-fg_viscous_solver) is timed; the first is the one judged. Prints each run's
# median time per step and, per case and solver, the median over the alternations of
# implicit / explicit; exit 1 when the judged solver's median is above 1.6 in a case.
#
#   bash bench/viscous.sh [build-dir]      (default build-dir: build; ~4 minutes on 2 cores)
#
# Environment: CASES (default "cavity:2:512 cavity:3:64"), SOLVERS (default "af direct"), NP=1,
# REPEAT=7, REPS=5, STEPS=5, MPIEXEC. The cavity at Re 1000 (forward_bench -case cavity).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
exe=$build/bench/forward_bench
[ -x "$exe" ] || { echo "viscous.sh: $exe not found; build first (cmake --build $build)" >&2; exit 2; }
CASES=${CASES:-"cavity:2:512 cavity:3:64"}
SOLVERS=${SOLVERS:-"af direct"}
NP=${NP:-1}
REPEAT=${REPEAT:-7}
REPS=${REPS:-5}
STEPS=${STEPS:-5}
MPIEXEC=${MPIEXEC:-"mpiexec --allow-run-as-root --oversubscribe"}
step() { # case dim n viscous solver -> median seconds per step
  $MPIEXEC -n "$NP" "$exe" -case "$1" -dim "$2" -n "$3" -viscous "$4" -fg_viscous_solver "$5" -dt_limit 0 -breakdown 0 \
    -steps "$STEPS" -reps "$REPS" -warmup 2 | sed -n 's/^step: median \([0-9.e+-]*\) s.*/\1/p'
}
status=0
for c in $CASES; do
  IFS=: read -r name dim n <<< "$c"
  declare -A ratios=()
  for r in $(seq "$REPEAT"); do
    te=$(step "$name" "$dim" "$n" explicit af)
    line="$name ${dim}D $n^$dim, $NP rank(s), the CFL-0.3 dt: explicit $te s/step"
    for v in $SOLVERS; do
      ti=$(step "$name" "$dim" "$n" implicit "$v")
      ratios[$v]="${ratios[$v]:-} $(python3 -c "print($ti / $te)")"
      line="$line, implicit ($v) $ti"
    done
    echo "$line"
  done
  first=1
  for v in $SOLVERS; do
    # shellcheck disable=SC2086
    python3 - "$v" "$first" ${ratios[$v]} <<'PY' || status=1
import statistics, sys
v, judged, r = sys.argv[1], sys.argv[2] == "1", [float(x) for x in sys.argv[3:]]
m = statistics.median(r)
verdict = ("met" if m <= 1.6 else "NOT MET") if judged else "(not judged)"
print(f"  implicit ({v}) / explicit step: median {m:.2f} over {len(r)} alternations ({', '.join(f'{x:.2f}' for x in r)}); target <= 1.6: {verdict}")
sys.exit(1 if judged and m > 1.6 else 0)
PY
    first=0
  done
  unset ratios
done
exit $status
