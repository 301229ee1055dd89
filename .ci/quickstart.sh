#!/usr/bin/env bash
# Quick start, first command: install what is missing, build, and run the main job on the
# default case (cases/cavity/cavity.yaml) on 2 MPI ranks. Output goes to out/cavity/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/build.sh
BUILD_DIR=${BUILD_DIR:-build}
MPIEXEC_FLAGS=(-n 2)
[ "$(id -u)" -eq 0 ] && MPIEXEC_FLAGS+=(--allow-run-as-root)
[ "$(nproc)" -lt 2 ] && MPIEXEC_FLAGS+=(--oversubscribe)
set -x
mpiexec "${MPIEXEC_FLAGS[@]}" "$BUILD_DIR/flowgrad" run cases/cavity/cavity.yaml "$@"
