#!/usr/bin/env bash
# NACA 0012 drag minimization at lift >= initial (README.md beside this file), from the repository root:
#   bash cases/naca_lift/run.sh           (NP=2 bash cases/naca_lift/run.sh for 2 ranks)
# flowgrad optimize (out/naca_lift/), the plots, and the outcome: exit 1 unless the drag fell
# (by at least 1 %) with the lift at least its initial value (to 0.1 %).
set -euo pipefail
source "$(dirname "$0")/../example_env.sh"   # the repository root, RUN=(mpiexec -n $NP ...), FLOWGRAD
set -x
# the adjoint GMRES to 1e-8 (the default 1e-12 is more than an optimization needs)
"${RUN[@]}" "$FLOWGRAD" optimize cases/naca_lift/naca_lift.yaml -adjoint_ksp_rtol 1e-8 "$@"
/usr/bin/python3 postproc/plot_optimization.py out/naca_lift
/usr/bin/python3 postproc/optimization_summary.py out/naca_lift --max-ratio 0.99 --at-least lift:0.999
