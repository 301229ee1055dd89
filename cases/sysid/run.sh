#!/usr/bin/env bash
# System identification example (README.md beside this file), from the repository root:
#   bash cases/sysid/run.sh            (NP=2 bash cases/sysid/run.sh for 2 ranks)
# 1. the "measurements": flowgrad run at nu = 0.01, U = 1 (out/sysid_truth/history.csv);
# 2. flowgrad optimize from nu = 0.013, U = 0.7 on the probes' records (out/sysid/);
# 3. the recovered values against the truth: exit 1 unless both are within 1 %.
set -euo pipefail
source "$(dirname "$0")/../example_env.sh"   # the repository root, RUN=(mpiexec -n $NP ...), FLOWGRAD
set -x
"${RUN[@]}" "$FLOWGRAD" run cases/sysid/truth.yaml
"${RUN[@]}" "$FLOWGRAD" optimize cases/sysid/sysid.yaml "$@"
/usr/bin/python3 postproc/plot_optimization.py out/sysid
/usr/bin/python3 postproc/optimization_summary.py out/sysid --max-ratio 1e-4 --expect flow.nu=0.01:0.01 --expect flow.inflow_speed=1:0.01
