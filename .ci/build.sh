#!/usr/bin/env bash
# Install missing dependencies (Debian 12, root) and build flowgrad into ${BUILD_DIR:-build}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" ${CMAKE_ARGS:-}
cmake --build "$BUILD_DIR" -j "$(nproc)"
