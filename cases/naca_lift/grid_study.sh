#!/usr/bin/env bash
# Is the airfoil's optimum the flow's, not the grid's? (issue 21; README.md beside this file,
# "Grid study"): naca_lift_skin.yaml optimized on h = c/32 and on h/2 = c/64 (the band's cells, x
# and dt halved, twice the steps) side by side, one rank each, then postproc/compare_optima.py:
# exit 1 unless every design scalar of the two optima agrees within 2 % of its range. From the
# repository root (about 1 hour on 2 cores):
#   bash cases/naca_lift/grid_study.sh
set -euo pipefail
source "$(dirname "$0")/../example_env.sh"   # the repository root, RUN=(mpiexec -n $NP ...), FLOWGRAD
case=cases/naca_lift/naca_lift_skin.yaml
mkdir -p out
set -x
"${RUN[@]}" "$FLOWGRAD" optimize "$case" --set output.dir=out/naca_lift_h32 -adjoint_ksp_rtol 1e-8 "$@" > out/naca_lift_h32.log 2>&1 &
p32=$!
"${RUN[@]}" "$FLOWGRAD" optimize "$case" --set output.dir=out/naca_lift_h64 "--set" "grid.cells=[512, 0]" \
  --set grid.stretch.y.h_min=0.015625 --set time.dt=0.0075 --set time.steps=1067 -adjoint_ksp_rtol 1e-8 "$@" > out/naca_lift_h64.log 2>&1 &
p64=$!
wait "$p32" || { tail -3 out/naca_lift_h32.log; exit 1; }
wait "$p64" || { tail -3 out/naca_lift_h64.log; exit 1; }
/usr/bin/python3 postproc/compare_optima.py out/naca_lift_h32 out/naca_lift_h64 --max-diff 0.02
