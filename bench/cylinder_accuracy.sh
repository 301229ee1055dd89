#!/usr/bin/env bash
# Issue 21's cost line: the steady Re 20 confined cylinder (Schäfer & Turek 2D-1,
# tests/validation/schafer_turek_re20.yaml, the soft skin) to within 0.2 % of its grid-converged
# drag (the benchmark's reference Cd = 5.57953523384) in at most 10 minutes on 2 cores. One run
# at h = D/96 (x uniform with FFTW, y refined around the body; 2112 x 341 cells), the steady
# solver (300 steps from rest, then Newton with the Oseen preconditioner, forced on whatever its
# memory estimate says) and its adjoint, on NP ranks. Prints the wall time, Cd and its error; exits
# 1 when the error exceeds 0.2 % or the wall time 600 s (the machine must be quiet: both cores).
#
#   bash bench/cylinder_accuracy.sh [build-dir]     (default build-dir: build; ~8 minutes on 2 cores)
#
# Environment: NP=2, MPIEXEC, N=96 (h = D/N), CASE (default tests/validation/schafer_turek_re20.yaml;
# tests/validation/schafer_turek_re20_sharp.yaml has a sharp wall, within the band from N=24: N=40).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
exe=$build/flowgrad
[ -x "$exe" ] || { echo "cylinder_accuracy.sh: $exe not found; build first (cmake --build $build)" >&2; exit 2; }
MPIEXEC=${MPIEXEC:-"mpiexec --allow-run-as-root --oversubscribe"}
NP=${NP:-2} N=${N:-96} CASE=${CASE:-$root/tests/validation/schafer_turek_re20.yaml}
[ -f "$CASE" ] || { echo "cylinder_accuracy.sh: CASE=$CASE: no such file" >&2; exit 2; }
[[ "$N" =~ ^[1-9][0-9]*$ && "$NP" =~ ^[1-9][0-9]*$ ]] || { echo "cylinder_accuracy.sh: N and NP must be positive integers (N=$N, NP=$NP)" >&2; exit 2; }
out=$build/bench_cylinder_accuracy
rm -rf "$out"
h=$(python3 -c "print(0.1 / $N)")
start=$(date +%s.%N)
$MPIEXEC -n "$NP" "$exe" adjoint "$CASE" \
  --set "grid.cells=[$((22 * N)), 0]" --set "grid.stretch.y.h_min=$h" --set "output.dir=$out" \
  -fg_fftw_planner estimate -steady_pc_type shell -adjoint_pc_type shell > "$out.log" 2>&1 \
  || { echo "cylinder_accuracy.sh: the run failed (log: $out.log)" >&2; exit 1; }
end=$(date +%s.%N)
python3 - "$out/gradient.csv" "$start" "$end" "$N" "$NP" <<'PY'
import sys
path, t0, t1, n, np_ = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
ref = 5.57953523384
cd = None
for line in open(path):
    if line.startswith("# objective drag ="):
        cd = float(line.split("=")[1])
if cd is None:
    sys.exit("cylinder_accuracy.sh: no drag in " + path)
err, wall = (cd - ref) / ref, t1 - t0
print(f"h = D/{n}, {np_} ranks: Cd {cd:.6f} (reference {ref}), error {100 * err:+.3f} %, wall {wall:.1f} s")
bad = [m for ok, m in ((abs(err) <= 2e-3, f"error {100 * err:+.3f} % > 0.2 %"), (wall <= 600, f"wall {wall:.0f} s > 600 s")) if not ok]
if bad:
    sys.exit("cylinder_accuracy.sh: outside the bands: " + "; ".join(bad))
print("within the bands")
PY
