#!/usr/bin/env bash
# Quick start, first command: install what is missing, build, and run the main job on a small
# default case: a shape optimization (cases/shape_drag/quick.yaml: the drag of a body at Re 40
# minimized at fixed area, steady adjoint, PETSc TAO; about 25 s) on 2 MPI ranks, then its plots,
# and a last line that says whether it converged with its constraint holding (exit 1 if not).
# Output goes to out/shape_drag_quick/: optimization.csv/.h5 (the history), optimization/result.csv
# (the final design), optimization/iter_NNNN.h5 (+ .xmf: shapes and gradient fields for ParaView)
# and an HTML report with its plots, report/index.html and report/img/ (postproc/postproc report).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/build.sh
BUILD_DIR=${BUILD_DIR:-build}
MPIEXEC_FLAGS=(-n 2)
[ "$(id -u)" -eq 0 ] && MPIEXEC_FLAGS+=(--allow-run-as-root)
[ "$(nproc)" -lt 2 ] && MPIEXEC_FLAGS+=(--oversubscribe)
set -x
mpiexec "${MPIEXEC_FLAGS[@]}" "$BUILD_DIR/flowgrad" optimize cases/shape_drag/quick.yaml "$@"
/usr/bin/python3 postproc/postproc report out/shape_drag_quick
/usr/bin/python3 postproc/optimization_summary.py out/shape_drag_quick --require-converged
