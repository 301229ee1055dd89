#!/usr/bin/env bash
# Issue 20, bench (d): the Re 40 cylinder on the grid stretched in y (cases/cylinder_re40/stretched.yaml,
# h = D/24 in the band) against the uniform grid with the same h (cases/cylinder_re40/cylinder_re40.yaml),
# one after the other on the same ranks:
#   uniform    `flowgrad run` to t = 60; the time to reach its Cd is the wall time of the first step
#              after which Cd stays within 0.1 % of the final value (history.csv)
#   stretched  the same, time-stepped (reference)
#   steady     the stretched grid, 800 steps (t = 10) then Newton to the steady state
#              (adjoint.mode steady, src/adjoint/steady.c): its forward time (transient + Newton)
# Prints Cd and the times; exit 1 when the steady Cd differs from the uniform one by more than
# 0.1 % or its time exceeds 1/5 of the uniform grid's.
#
#   bash bench/cylinder_stretched.sh [build-dir]     (~25 minutes on 1 core)
#
# Environment: NP=1, MPIEXEC, WORK (default <build-dir>/bench_cylinder_stretched), EXTRA (options
# for the steady run, e.g. "-steady_snes_lag_preconditioner -2").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
exe=$build/flowgrad
[ -x "$exe" ] || { echo "cylinder_stretched.sh: $exe not found; build first (cmake --build $build)" >&2; exit 2; }
NP=${NP:-1}
MPIEXEC=${MPIEXEC:-"mpiexec --allow-run-as-root --oversubscribe"}
WORK=${WORK:-$build/bench_cylinder_stretched}
mkdir -p "$WORK"
cases=$root/cases/cylinder_re40
$MPIEXEC -n "$NP" "$exe" run "$cases/cylinder_re40.yaml" --set output.dir="$WORK/uniform" --set output.monitor_every=1000 > "$WORK/uniform.log"
$MPIEXEC -n "$NP" "$exe" run "$cases/stretched.yaml" --set output.dir="$WORK/stretched" --set output.monitor_every=1000 > "$WORK/stretched.log"
# shellcheck disable=SC2086
$MPIEXEC -n "$NP" "$exe" adjoint "$cases/stretched.yaml" --set adjoint.mode=steady --set time.steps=800 \
  --set "design.parameters=[flow.nu]" --set output.dir="$WORK/steady" --set output.monitor_every=1000 ${EXTRA:-} > "$WORK/steady.log"
python3 - "$WORK" <<'PY'
import csv, re, sys, os
w = sys.argv[1]
def reach(run):
    rows = list(csv.DictReader(open(os.path.join(w, run, "history.csv"))))
    cd = [float(r["cyl_cd"]) for r in rows]; wt = [float(r["wall_time"]) for r in rows]
    final, k = cd[-1], len(cd) - 1
    while k > 0 and abs(cd[k - 1] - final) <= 1e-3 * abs(final):
        k -= 1
    return final, wt[k], float(rows[k]["time"]), wt[-1]
cu, tu, su, Tu = reach("uniform")
cs, ts, ss, Ts = reach("stretched")
log = open(os.path.join(w, "steady.log")).read()
J = float(re.search(r"^J = (\S+)", log, re.M).group(1))
tf = float(re.search(r"forward ([0-9.]+) s", log).group(1))
print(f"uniform    h = D/24, 768 x 960: Cd {cu:.5f}, within 0.1 % from t = {su:g} at {tu:.1f} s (t = 60 at {Tu:.1f} s)")
print(f"stretched  768 x 254, time-stepped: Cd {cs:.5f} ({(cs - cu) / cu:+.1e}), within 0.1 % from t = {ss:g} at {ts:.1f} s: {ts / tu:.2f}x")
print(f"steady     768 x 254, Newton: Cd {J:.5f} ({(J - cu) / cu:+.1e}) in {tf:.1f} s (transient + Newton): {tf / tu:.2f}x  (target <= 0.2, Cd to 0.1 %)")
ok = abs(J - cu) <= 1e-3 * abs(cu) and tf <= 0.2 * tu
print("bench (d):", "met" if ok else "NOT met")
sys.exit(0 if ok else 1)
PY
