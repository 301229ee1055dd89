#!/usr/bin/env bash
# Poisson solve time per grid point: FFT solve vs a bare FFTW r2r forward+inverse pair of the same
# size, kinds and MPI layout, and the KSP solve (CG + GAMG, and CG + hypre BoomerAMG), for
# 2D 1024^2 and 3D 128^3, all-Neumann (cavity) and all-periodic, on 1 and 2 ranks; and all-Neumann
# with the slab direction stretched (FFT + Thomas) and with every direction stretched (KSP), each
# measured right after its uniform row so that the ratio compares like with like.
#
#   bash bench/poisson.sh [build-dir]        (default build-dir: build)
#
# Environment: NPS="1 2" (rank counts), REPS=15 (timed FFT repetitions, after 3 warm-up),
# KSP_REPS=3, KSP_PCS="gamg hypre", KSP=0 to skip the KSP rows, MPIEXEC="mpiexec ...".
# Writes <build-dir>/bench/poisson_bench.csv (or $CSV) and prints the table.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
exe=$build/bench/poisson_bench
csv=${CSV:-$build/bench/poisson_bench.csv}
NPS=${NPS:-"1 2"}
REPS=${REPS:-15}
KSP_REPS=${KSP_REPS:-3}
KSP_PCS=${KSP_PCS:-"gamg hypre"}
MPIEXEC=${MPIEXEC:-"mpiexec --allow-run-as-root --oversubscribe"}
[ -x "$exe" ] || { echo "poisson.sh: $exe not found; build first (cmake --build $build)" >&2; exit 2; }

echo "dim,n,bc,np,solver,reps,median_s,ns_per_point,bare_ns_per_point,solve_over_bare,iterations" > "$csv"
for np in $NPS; do
  for bc in neumann periodic; do
    $MPIEXEC -n "$np" "$exe" -dim 2 -n 1024 -bc "$bc" -reps "$REPS" -warmup 3 -csv "$csv"
    $MPIEXEC -n "$np" "$exe" -dim 3 -n 128 -bc "$bc" -reps "$REPS" -warmup 3 -csv "$csv"
  done
  # one stretched direction (the slab one: Thomas along it), right after the uniform rows
  for dim_n in "2 1024" "3 128"; do
    set -- $dim_n
    $MPIEXEC -n "$np" "$exe" -dim "$1" -n "$2" -bc neumann -reps "$REPS" -warmup 3 -csv "$csv"
    $MPIEXEC -n "$np" "$exe" -dim "$1" -n "$2" -bc neumann -reps "$REPS" -warmup 3 -stretch 2 -csv "$csv"
  done
  if [ "${KSP:-1}" != 0 ]; then
    for pc in $KSP_PCS; do
      $MPIEXEC -n "$np" "$exe" -fft 0 -ksp -dim 2 -n 1024 -bc neumann -ksp_reps "$KSP_REPS" -poisson_pc_type "$pc" -csv "$csv"
      $MPIEXEC -n "$np" "$exe" -fft 0 -ksp -dim 3 -n 128 -bc neumann -ksp_reps "$KSP_REPS" -poisson_pc_type "$pc" -csv "$csv"
    done
    # every direction stretched: the KSP path (CG + GAMG) next to the transform rows above
    $MPIEXEC -n "$np" "$exe" -fft 0 -ksp -dim 2 -n 1024 -bc neumann -ksp_reps "$KSP_REPS" -stretch 2 -csv "$csv"
    $MPIEXEC -n "$np" "$exe" -fft 0 -ksp -dim 3 -n 128 -bc neumann -ksp_reps "$KSP_REPS" -stretch 2 -csv "$csv"
  fi
done
echo
echo "CSV: $csv"
column -t -s, "$csv"
