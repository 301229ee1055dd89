#!/usr/bin/env bash
# accuracy.py --reuse (tests/validation/tests.cmake): a steady study run a second time with --reuse
# reads its two levels instead of running them (the same table, byte for byte), and a level whose
# run did not finish (no gradient.csv) runs again while the other is read.
#   reuse_check.sh PYTHON ACCURACY_PY WORKDIR -- ACCURACY_ARGS...
set -euo pipefail
py=$1 acc=$2 work=$3
shift 3
[ "${1:-}" = "--" ] && shift
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
"$py" "$acc" --workdir "$work/study" --csv "$work/first.csv" "$@" > "$work/first.txt" || fail "the first study failed: $(tail -3 "$work/first.txt")"
"$py" "$acc" --workdir "$work/study" --csv "$work/again.csv" --reuse "$@" > "$work/again.txt" || fail "the reused study failed: $(tail -3 "$work/again.txt")"
n=$(grep -c "reusing the finished run" "$work/again.txt" || true)
[ "$n" = 2 ] || fail "the second study reused $n levels, not 2"
cmp -s "$work/first.csv" "$work/again.csv" || fail "the reused study's table differs from the first's"
last=$(ls -d "$work"/study/level_*/ | tail -1)
last=${last%/}
rm "$last/gradient.csv"
"$py" "$acc" --workdir "$work/study" --csv "$work/third.csv" --reuse "$@" > "$work/third.txt" || fail "the third study failed: $(tail -3 "$work/third.txt")"
n=$(grep -c "reusing the finished run" "$work/third.txt" || true)
[ "$n" = 1 ] || fail "with the finest level's gradient.csv removed the study reused $n levels, not 1"
[ -f "$last/gradient.csv" ] || fail "the finest level was not run again"
cmp -s "$work/first.csv" "$work/third.csv" || fail "the rerun level's figures differ from the first run's"
echo "reuse: 2 levels read back, then 1 read and 1 run again; the same table each time"
