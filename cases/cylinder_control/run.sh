#!/usr/bin/env bash
# The flow-control example end to end (README.md beside this file), from the repository root:
#
#   bash cases/cylinder_control/run.sh            # 1 rank
#   NP=2 bash cases/cylinder_control/run.sh       # 2 ranks
#
# 1. flowgrad run develop.yaml: the shedding cylinder from a uniform flow to t = 81
# 2. flowgrad optimize cylinder_control.yaml from that state: Omega(t) (16 values over 18 time units)
# 3. flowgrad run cylinder_control.yaml with no rotation (the initial design) and with the optimized
#    Omega(t) (body.cyl.rotation_rate_values from optimization/result.csv)
# 4. measure.py: the lift fluctuation over the objective window, before and after
#
# Environment: CASE (default cylinder_control.yaml beside this script; cylinder_control_wake.yaml is
# the variant), FLOWGRAD (default build/flowgrad if it exists, else flowgrad on PATH), PYTHON
# (python3), OUT (out/cylinder_control), NP (1), MPIEXEC (mpiexec) and MPIEXEC_FLAGS (as root:
# --allow-run-as-root; --oversubscribe on fewer than NP cores), MIN_REDUCTION (0.8); DEVELOP_SET
# and CONTROL_SET: more arguments (--set ...) for step 1 and for every command of steps 2-3 (the
# test optim_cylinder_control_script runs a reduced version so). FFTW plans with `estimate`:
# deterministic, so the runs reproduce the optimizer's evaluations to round-off.
# Exit 0 when the lift-fluctuation amplitude fell by at least MIN_REDUCTION (standard deviation and
# peak to peak), 1 when not; a failing command's exit code otherwise.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -z "${FLOWGRAD:-}" ]; then
  if [ -x build/flowgrad ]; then FLOWGRAD=build/flowgrad; else FLOWGRAD=flowgrad; fi
fi
PYTHON=${PYTHON:-python3}
CASE=${CASE:-$here/cylinder_control.yaml}
OUT=${OUT:-out/cylinder_control}
NP=${NP:-1}
MIN_REDUCTION=${MIN_REDUCTION:-0.8}
read -r -a dev_set <<< "${DEVELOP_SET:-}"
read -r -a ctl_set <<< "${CONTROL_SET:-}"
MPIEXEC=${MPIEXEC:-mpiexec}
if [ -z "${MPIEXEC_FLAGS+x}" ]; then
  MPIEXEC_FLAGS=""
  [ "$(id -u)" -eq 0 ] && MPIEXEC_FLAGS="--allow-run-as-root"
  [ "$(nproc)" -lt "$NP" ] && MPIEXEC_FLAGS="$MPIEXEC_FLAGS --oversubscribe"
fi
fg() {
  if [ "$NP" -gt 1 ]; then
    # shellcheck disable=SC2086
    "$MPIEXEC" -n "$NP" $MPIEXEC_FLAGS "$FLOWGRAD" "$@" -fg_fftw_planner estimate
  else
    "$FLOWGRAD" "$@" -fg_fftw_planner estimate
  fi
}
SECONDS=0

echo "== 1/4 develop the shedding: $OUT/develop"
fg run "$here/develop.yaml" --set "output.dir=$OUT/develop" "${dev_set[@]}"
steps=$(sed -n 's/^  steps: //p' "$OUT/develop/case.resolved.yaml")
start=$(printf '%s/develop/fields/fields_%06d.h5' "$OUT" "$steps") # the last step's fields (fields_002700.h5)
echo "== 2/4 optimize the rotation rate from $start: $OUT/optimize"
fg optimize "$CASE" --set "initial.file=$start" --set "output.dir=$OUT/optimize" "${ctl_set[@]}" | grep -v -E '^(adjoint|  eval)'
echo "== 3/4 the initial and the optimized design: $OUT/uncontrolled, $OUT/controlled"
fg run "$CASE" --set "initial.file=$start" --set "output.dir=$OUT/uncontrolled" "${ctl_set[@]}" | tail -n 1
values=$("$PYTHON" "$here/measure.py" values "$OUT/optimize")
fg run "$CASE" --set "initial.file=$start" --set "output.dir=$OUT/controlled" "${ctl_set[@]}" \
  --set "body.cyl.rotation_rate_values=$values" | tail -n 1
echo "== 4/4 measure"
status=0
"$PYTHON" "$here/measure.py" report "$OUT" --min-reduction "$MIN_REDUCTION" || status=$?
echo "cylinder_control: wall time ${SECONDS} s on $NP rank(s)"
exit $status
