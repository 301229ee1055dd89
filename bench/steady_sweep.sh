#!/usr/bin/env bash
# The steady solver's validation (issue 20): the confined cylinder of tests/adjoint/steady_confined.yaml
# (400 x 100, radius 0.045 to 0.055 in 21 steps): every radius converges (Newton on SNES, GMRES
# preconditioned by the Oseen solve of src/adjoint/steady_pc.c) with at most 100 Krylov
# iterations per Newton step and in the adjoint; then the middle radius on 800 x 200 (4x the
# cells, dt halved) with at most 2x the Krylov iterations. Prints the table of
# tests/adjoint/steady_sweep.py (J and dJ/dr against the sweep's slope: the staircase of issue 21
# shows there) and exits nonzero outside these bands.
#
#   bash bench/steady_sweep.sh [build-dir]      (default build-dir: build; ~20 minutes on 1 core)
#
# Environment: NP=1, MPIEXEC, RADII (default 0.045:0.055:21), CELLS (default: the case's).
# CTest runs the same script on 100 x 25 (adjoint_steady_sweep).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
exe=$build/flowgrad
[ -x "$exe" ] || { echo "steady_sweep.sh: $exe not found; build first (cmake --build $build)" >&2; exit 2; }
MPIEXEC=${MPIEXEC:-"mpiexec --allow-run-as-root --oversubscribe"}
read -r mpiexec flags <<< "$MPIEXEC"
args=(--flowgrad "$exe" --mpiexec "$mpiexec" "--mpiexec-flags=${flags// /;}" --np "${NP:-1}"
      --case "$root/tests/adjoint/steady_confined.yaml" --workdir "$build/bench_steady_sweep"
      --radii "${RADII:-0.045:0.055:21}" --max-its 100 --refine --max-growth 2)
[ -n "${CELLS:-}" ] && args+=(--cells "$CELLS")
exec python3 "$root/tests/adjoint/steady_sweep.py" "${args[@]}"
