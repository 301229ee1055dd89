#!/usr/bin/env bash
# Cost of the discrete adjoint: (forward + adjoint time) / (forward time) and the peak memory of
# both, on 1 and 2 ranks, for the adjoint test cylinder (96x64, 200 steps, 9 design scalars) and
# the shipped cylinder_re100 case cut to 200 steps (768x960 cells, h = D/24).
#
#   bash bench/adjoint.sh [build-dir]          (default build-dir: build; ~3 minutes on 2 cores)
#
# Environment: NPS="1 2", REPS=3, MPIEXEC="mpiexec ...".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
exe=$build/bench/adjoint_bench
NPS=${NPS:-"1 2"}
REPS=${REPS:-3}
MPIEXEC=${MPIEXEC:-"mpiexec --allow-run-as-root --oversubscribe"}
[ -x "$exe" ] || { echo "adjoint.sh: $exe not found; build first (cmake --build $build)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rows=()
for np in $NPS; do
  for spec in "$root/tests/adjoint/cylinder.yaml|output.dir=$out/a" \
              "$root/cases/cylinder_re100/cylinder_re100.yaml|time.steps=200,output.dir=$out/b"; do
    IFS='|' read -r file sets <<< "$spec"
    $MPIEXEC -n "$np" "$exe" -case_file "$file" -set "$sets" -reps "$REPS" -fg_fftw_planner estimate > "$out/run.log"
    grep -v '^adjoint:' "$out/run.log"
    rows+=("$(grep '^CSV,' "$out/run.log")")
  done
done
echo
echo "| case | cells | steps | ranks | forward s | forward + adjoint s | time ratio | forward peak MiB | adjoint peak MiB | memory ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do
  IFS=, read -r _ name cells steps np tf ta rt mf ma rm <<< "$r"
  echo "| $name | $cells | $steps | $np | $tf | $ta | $rt | $mf | $ma | $rm |"
done
