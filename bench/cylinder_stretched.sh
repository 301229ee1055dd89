#!/usr/bin/env bash
# Issue 20, bench (d): the Re 40 cylinder on the grid stretched in y (cases/cylinder_re40/stretched.yaml,
# h = D/24 in the band) against the uniform grid with the same h (cases/cylinder_re40/cylinder_re40.yaml),
# one after the other on the same ranks:
#   uniform    `flowgrad run` to t = 60; its Cd is the final one, and the time to reach it the wall
#              time of the first step after which Cd stays within 0.1 % of it (history.csv)
#   stretched  the same run, time-stepped; its time to reach the uniform grid's Cd the same way
#   steady     the stretched grid, 800 steps (t = 10) then Newton to the steady state
#              (adjoint.mode steady, src/adjoint/steady.c, default options): its forward time
#              (transient + Newton)
# Prints Cd and the times; exit 1 unless the stretched grid, time-stepped or steady, ends within
# 0.1 % of the uniform grid's Cd in at most 1/5 of the uniform grid's time to it.
#
#   bash bench/cylinder_stretched.sh [build-dir]     (~15 minutes on 1 core)
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
def history(run):
    rows = list(csv.DictReader(open(os.path.join(w, run, "history.csv"))))
    return [float(r["cyl_cd"]) for r in rows], [float(r["wall_time"]) for r in rows], [float(r["time"]) for r in rows]
def reach(cd, target):  # the first row after which Cd stays within 0.1 % of target (None: never)
    k = len(cd)
    while k > 0 and abs(cd[k - 1] - target) <= 1e-3 * abs(target):
        k -= 1
    return k if k < len(cd) else None
cd, wt, tt = history("uniform")
cu, ku = cd[-1], reach(cd, cd[-1])
tu = wt[ku]
cd, wt, tt = history("stretched")
cs, ks = cd[-1], reach(cd, cu)
ts = wt[ks] if ks is not None else float("inf")
log = open(os.path.join(w, "steady.log")).read()
J = float(re.search(r"^J = (\S+)", log, re.M).group(1))
tf = float(re.search(r"forward ([0-9.]+) s", log).group(1))
cells = lambda run: re.search(r"^grid: (\d+ x \d+(?: x \d+)?) cells", open(os.path.join(w, run + ".log")).read(), re.M).group(1)
print(f"uniform    h = D/24, {cells('uniform')}: Cd {cu:.5f}, within 0.1 % from t = {tt[ku]:g} at {tu:.1f} s")
when = f"within 0.1 % of the uniform Cd from {ts:.1f} s: {ts / tu:.2f}x" if ks is not None else "never within 0.1 % of the uniform Cd"
print(f"stretched  {cells('stretched')}, time-stepped: Cd {cs:.5f} ({(cs - cu) / cu:+.1e}), {when}")
print(f"steady     {cells('stretched')}, Newton: Cd {J:.5f} ({(J - cu) / cu:+.1e}) in {tf:.1f} s (transient + Newton): {tf / tu:.2f}x")
ok_s = ks is not None and ts <= 0.2 * tu
ok_n = abs(J - cu) <= 1e-3 * abs(cu) and tf <= 0.2 * tu
print("bench (d) (target: within 0.1 % of the uniform Cd in <= 0.2x its time):", "met" if ok_s or ok_n else "NOT met",
      f"(time-stepped {'met' if ok_s else 'not met'}, steady {'met' if ok_n else 'not met'})")
sys.exit(0 if ok_s or ok_n else 1)
PY
