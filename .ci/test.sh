#!/usr/bin/env bash
# Quick start, second command: install what is missing, build, run the whole test suite.
#   bash .ci/test.sh            (CTest; pass extra ctest arguments, e.g. -R poisson)
#   CTEST_JOBS=N                 tests run side by side on N cores (default: all, nproc); each
#                                MPI test reserves its ranks (PROCESSORS), so none is oversubscribed
#                                beyond the machine
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install-deps.sh --tests   # SLURM and Chromium for the job and report tests
bash .ci/build.sh
BUILD_DIR=${BUILD_DIR:-build}
ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 900 -j "${CTEST_JOBS:-$(nproc)}" "$@"
