#!/usr/bin/env bash
# Newton's step (adjoint.steady_dt, src/adjoint/steady_pc.c FGSteadyPCStep): the steady solver and
# its adjoint at the transient's time.dt, at a fixed smaller step and at `auto` (the default: time.dt
# halved until the state's step number is at most 0.25). For each case tests/adjoint/steady_dt.py
# prints J, the gradient's agreement, the Krylov iterations (Newton + adjoint) and the wall time of
# the three runs, and exits nonzero where J or the gradient move by more than Newton's tolerance
# allows (J 1e-9, the gradient 1e-6 relative: the fixed points agree to adjoint.steady_tol, not to
# round-off; on 2D-1 at D/40 the run at time.dt moved J by 7e-11 and the gradient by 1.6e-7 from the
# smaller steps', which agreed to 1e-13) or where a smaller step does not take fewer iterations.
#
#   bash bench/steady_dt.sh [build-dir]      (default build-dir: build; ~6 minutes on 1 core,
#                                             ~15 with D80=1)
#
# Cases: the confined cylinder of tests/adjoint/steady_confined.yaml (400 x 100, time.dt 2e-3);
# Schafer & Turek's 2D-1 with issue 21's built model (sharp wall, apertures, line flux, shared
# ghost; x and y stretched, h_min = D/40, from rest; time.dt 2e-3); with D80=1 the same at D/80;
# the NACA 0012 of cases/naca_lift/naca_lift_skin.yaml (soft skin, c/32, time.dt 0.015; its steady_tol 1e-9, so J within 1e-8).
# Environment: NP=1, MPIEXEC, D80=0.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
exe=$build/flowgrad
[ -x "$exe" ] || { echo "steady_dt.sh: $exe not found; build first (cmake --build $build)" >&2; exit 2; }
MPIEXEC=${MPIEXEC:-"mpiexec --allow-run-as-root --oversubscribe"}
read -r mpiexec flags <<< "$MPIEXEC"
work=$build/bench_steady_dt
mkdir -p "$work"
common=(--flowgrad "$exe" --mpiexec "$mpiexec" "--mpiexec-flags=${flags// /;}" --np "${NP:-1}" --jtol 1e-9 --rtol 1e-6)
lines() { # the built model on 2D-1 at h_min = D/$1, the stretching's growth 1.05^(20/N)
  local h g
  h=$(python3 -c "print(0.1/$1)"); g=$(python3 -c "print(1.05**(20/$1))")
  echo "--set grid.cells=[0,0] --set grid.stretch.x.type=bodies --set grid.stretch.x.h_max=0.04
        --set grid.stretch.x.h_min=$h --set grid.stretch.y.h_min=$h --set grid.stretch.x.growth=$g
        --set grid.stretch.y.growth=$g --set body.cyl.apertures=true --set body.cyl.line_flux=true
        --set body.cyl.shared_ghost=true --set poisson.type=ksp"
}
status=0
one() { # name, case, time.dt, smaller step, extra steady_dt.py arguments...
  local name=$1 case=$2 dt=$3 small=$4; shift 4
  echo "== $name (time.dt $dt; fixed step $small)"
  python3 "$root/tests/adjoint/steady_dt.py" "${common[@]}" --case "$case" --workdir "$work/$name" \
    --time-dt "$dt" --steady-dt "$small" "$@" || status=1
}
one confined "$root/tests/adjoint/steady_confined.yaml" 2e-3 5e-4
# shellcheck disable=SC2046
one re20_lines_d40 "$root/tests/validation/schafer_turek_re20_sharp.yaml" 2e-3 2.5e-4 $(lines 40 | sed 's/^ *//') \
  --options "-poisson_ksp_type preonly -poisson_pc_type cholesky"
if [ "${D80:-0}" = 1 ]; then
  # shellcheck disable=SC2046
  one re20_lines_d80 "$root/tests/validation/schafer_turek_re20_sharp.yaml" 2e-3 1.25e-4 $(lines 80 | sed 's/^ *//') \
    --options "-poisson_ksp_type preonly -poisson_pc_type cholesky"
fi
one naca_skin "$root/cases/naca_lift/naca_lift_skin.yaml" 0.015 3.75e-3 --jtol 1e-8 --set output.monitor_every=100000
exit $status
