#!/usr/bin/env bash
# Topology optimization of a channel bend (README.md beside this file), from the repository root:
#   bash cases/topology_bend/run.sh            (NP=2 bash cases/topology_bend/run.sh for 2 ranks)
# 1. the initial density, rho = 0.5 everywhere (out/topology_bend/rho0.h5);
# 2. flowgrad optimize (out/topology_bend/);
# 3. the plots and the outcome: exit 1 unless the dissipated power fell by >= 30 % with the fluid
#    fraction at most 0.5 (to optimizer.constraint_tol).
set -euo pipefail
source "$(dirname "$0")/../example_env.sh"   # the repository root, RUN=(mpiexec -n $NP ...), FLOWGRAD
mkdir -p out/topology_bend
/usr/bin/python3 -c "import h5py, numpy; h5py.File('out/topology_bend/rho0.h5', 'w').create_dataset('rho', data=numpy.full((40, 40), 0.5))"
set -x
"${RUN[@]}" "$FLOWGRAD" optimize cases/topology_bend/topology_bend.yaml "$@"
/usr/bin/python3 postproc/plot_optimization.py out/topology_bend
/usr/bin/python3 postproc/optimization_summary.py out/topology_bend --max-ratio 0.7 --max-violation 1e-3
