# Sourced by the example scripts (cases/*/run.sh): go to the repository root and set
#   RUN=(mpiexec -n NP ...)   NP from the environment (default 1); --allow-run-as-root as root,
#                             --oversubscribe when NP exceeds the cores
#   FLOWGRAD                  build/flowgrad unless set
# shellcheck shell=bash
cd "$(dirname "${BASH_SOURCE[0]}")/.."
NP=${NP:-1}
RUN=(mpiexec -n "$NP")
[ "$(id -u)" -eq 0 ] && RUN+=(--allow-run-as-root)
[ "$(nproc)" -lt "$NP" ] && RUN+=(--oversubscribe)
FLOWGRAD=${FLOWGRAD:-build/flowgrad}
