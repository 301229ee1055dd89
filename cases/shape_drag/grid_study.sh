#!/usr/bin/env bash
# Is the optimum the flow's, not the grid's? (issue 21; README.md beside this file, "Grid study"):
# shape_drag_skin.yaml optimized on h = D/16 and on h/2 = D/32 (the band's cells, x, and dt halved,
# twice the steps), then postproc/compare_optima.py: exit 1 unless every design scalar of the two
# optima agrees within 2 % of its range. From the repository root (about 1 hour on 2 cores):
#   bash cases/shape_drag/grid_study.sh          (the two runs side by side, one rank each)
set -euo pipefail
source "$(dirname "$0")/../example_env.sh"   # the repository root, RUN=(mpiexec -n $NP ...), FLOWGRAD
case=cases/shape_drag/shape_drag_skin.yaml
mkdir -p out
set -x
"${RUN[@]}" "$FLOWGRAD" optimize "$case" --set output.dir=out/shape_drag_h16 "$@" > out/shape_drag_h16.log 2>&1 &
p16=$!
"${RUN[@]}" "$FLOWGRAD" optimize "$case" --set output.dir=out/shape_drag_h32 "--set" "grid.cells=[640, 0]" \
  --set grid.stretch.y.h_min=0.03125 --set time.dt=0.0125 --set time.steps=1200 "$@" > out/shape_drag_h32.log 2>&1 &
p32=$!
wait "$p16" || { tail -3 out/shape_drag_h16.log; exit 1; }
wait "$p32" || { tail -3 out/shape_drag_h32.log; exit 1; }
/usr/bin/python3 postproc/compare_optima.py out/shape_drag_h16 out/shape_drag_h32 --max-diff 0.02
