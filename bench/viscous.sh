#!/usr/bin/env bash
# The implicit viscous term's cost (issue 20, bench (b)): time per step of the implicit step
# (Crank-Nicolson per RK3 stage, direct Helmholtz solves) against the explicit step, side by side:
# the two alternate REPEAT times in one job (a shared machine loads both alike), at the same dt
# (the bench's CFL-0.3 step, below the explicit limit: both run; the direct solves cost the same at any
# dt). Prints each run's median time per step and, per case, the median over the alternations of
# implicit / explicit.
#
#   bash bench/viscous.sh [build-dir]      (default build-dir: build; ~2 minutes on 2 cores)
#
# Environment: CASES (default "cavity:2:512 cavity:3:64"), NP=1, REPEAT=3, REPS=5, STEPS=5,
# MPIEXEC. The cavity at Re 1000 (forward_bench -case cavity); the target is <= 1.6.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
exe=$build/bench/forward_bench
[ -x "$exe" ] || { echo "viscous.sh: $exe not found; build first (cmake --build $build)" >&2; exit 2; }
CASES=${CASES:-"cavity:2:512 cavity:3:64"}
NP=${NP:-1}
REPEAT=${REPEAT:-3}
REPS=${REPS:-5}
STEPS=${STEPS:-5}
MPIEXEC=${MPIEXEC:-"mpiexec --allow-run-as-root --oversubscribe"}
step() { # case dim n viscous dt_limit -> median seconds per step
  $MPIEXEC -n "$NP" "$exe" -case "$1" -dim "$2" -n "$3" -viscous "$4" -dt_limit "$5" -breakdown 0 \
    -steps "$STEPS" -reps "$REPS" -warmup 2 | sed -n 's/^step: median \([0-9.e+-]*\) s.*/\1/p'
}
for c in $CASES; do
  IFS=: read -r name dim n <<< "$c"
  ratios=()
  for r in $(seq "$REPEAT"); do
    te=$(step "$name" "$dim" "$n" explicit 0)
    ti=$(step "$name" "$dim" "$n" implicit 0)
    ratios+=("$(python3 -c "print($ti / $te)")")
    echo "$name ${dim}D $n^$dim, $NP rank(s), the CFL-0.3 dt: explicit $te s/step, implicit $ti s/step"
  done
  python3 - "${ratios[@]}" <<'PY'
import statistics, sys
r = [float(x) for x in sys.argv[1:]]
print(f"  implicit / explicit step: median {statistics.median(r):.2f} over {len(r)} alternations ({', '.join(f'{x:.2f}' for x in r)}); target <= 1.6")
PY
done
