#!/usr/bin/env bash
# Where the test SLURM cannot run, its tests are skipped with the reason: cluster.sh up, run as a
# user who is not root, writes "skip: not root ..." and exits 0, and a SLURM test given that
# cluster directory exits 77 (CTest: skipped) printing the reason.
#   skip_check.sh PYTHON JOBS_PY REPO FLOWGRAD
set -uo pipefail
py=$1 jobs_py=$2 repo=$3 flowgrad=$4
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d /tmp/fg-slurm-skip.XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 0777 "$dir"
if [ "$(id -u)" -eq 0 ]; then
  command -v runuser >/dev/null || { echo "SKIP: runuser not found"; exit 77; }
  runuser -u nobody -- bash "$here/cluster.sh" up "$dir/cluster" || { echo "FAIL: cluster.sh up exited $?"; exit 1; }
else
  bash "$here/cluster.sh" up "$dir/cluster" || { echo "FAIL: cluster.sh up exited $?"; exit 1; }
fi
state=$(cat "$dir/cluster/state")
echo "state: $state"
[[ "$state" == "skip: not root"* ]] || { echo "FAIL: expected 'skip: not root ...'"; exit 1; }
out=$("$py" "$jobs_py" --repo "$repo" --flowgrad "$flowgrad" --work "$dir/work" --cluster "$dir/cluster" forward 2>&1)
rc=$?
echo "$out"
[ $rc -eq 77 ] || { echo "FAIL: a SLURM test exited $rc, expected 77 (skipped)"; exit 1; }
grep -q "^SKIP: SLURM tests: not root" <<< "$out" || { echo "FAIL: the skip message does not give the reason"; exit 1; }
echo "ok: skipped with the reason"
