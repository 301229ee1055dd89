#!/usr/bin/env bash
# Drag minimization at fixed area (README.md beside this file), from the repository root:
#   bash cases/shape_drag/run.sh          (NP=2 bash cases/shape_drag/run.sh for 2 ranks)
# flowgrad optimize (out/shape_drag/), the plots, and the outcome: exit 1 unless the drag fell by
# at least 5 % with the area within 0.5 % of the circle's.
set -euo pipefail
source "$(dirname "$0")/../example_env.sh"   # the repository root, RUN=(mpiexec -n $NP ...), FLOWGRAD
set -x
"${RUN[@]}" "$FLOWGRAD" optimize cases/shape_drag/shape_drag.yaml "$@"
/usr/bin/python3 postproc/plot_optimization.py out/shape_drag
/usr/bin/python3 postproc/optimization_summary.py out/shape_drag --max-ratio 0.95 --constraint area:0.005
