#!/usr/bin/env python3
"""The steady solver over a sweep of a cylinder's radius, and on a grid refined twice.

  steady_sweep.py --flowgrad EXE --mpiexec MPIEXEC [--mpiexec-flags F] [--np N] --case CASE
                  --workdir DIR [--cells NX,NY] [--radii LO:HI:N] [--max-its M] [--refine]
                  [--max-growth G]

Runs `flowgrad adjoint CASE` (adjoint.mode: steady; a body named cyl) for N radii from LO to HI,
on the case's grid or --cells, and prints a table: the radius, the Newton iterations, the largest
number of Krylov iterations of a Newton step (KSP steady_), the adjoint's (KSP adjoint_), J, dJ/dr
from the adjoint and the slope of J between neighbouring radii (central differences of the sweep;
they differ where J is not smooth in r: issue 21's subject, printed, not asserted here).

Checks (exit 1 on failure): every run exits 0; every Newton step and the adjoint solve take at
most --max-its Krylov iterations. With --refine the middle radius runs again on twice the cells
in each direction (4x the cells, dt halved) and the largest Krylov count there must be at most
--max-growth times the one on the base grid.

The full validation (issue 20: 400 x 100, 21 radii from 0.045 to 0.055, at most 100 iterations,
at most 2x that at 4x the cells) is bench/steady_sweep.sh; CTest runs it on 100 x 25.
"""
import argparse, os, re, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from fgtest import read_gradient  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--flowgrad", required=True)
ap.add_argument("--mpiexec", required=True)
ap.add_argument("--mpiexec-flags", default="")
ap.add_argument("--np", type=int, default=1)
ap.add_argument("--case", required=True)
ap.add_argument("--workdir", required=True)
ap.add_argument("--cells", default="")
ap.add_argument("--radii", default="0.045:0.055:21")
ap.add_argument("--max-its", type=int, default=100)
ap.add_argument("--refine", action="store_true")
ap.add_argument("--max-growth", type=float, default=2.0)
a = ap.parse_args()

KSP_NEWTON = re.compile(r"^steady:   KSP \(steady_\) (\S+) in (\d+) iterations", re.M)
KSP_ADJ = re.compile(r"^steady adjoint: KSP \(adjoint_\) (\S+) in (\d+) iterations", re.M)
NEWTON = re.compile(r"^steady: converged after \d+ steps and (\d+) Newton iterations", re.M)


def case_value(path, key):
    """A scalar of a flow-style mapping line such as 'time: {dt: 2.0e-3, steps: 300}'."""
    with open(path) as f:
        m = re.search(r"\b" + key + r":\s*([-+0-9.eE]+)", f.read())
    return float(m.group(1)) if m else None


def run(tag, radius, cells, dt):
    out = os.path.join(a.workdir, f"steady_sweep_{tag}")
    cmd = [a.mpiexec, "-n", str(a.np)] + [x for x in a.mpiexec_flags.replace(";", " ").split() if x] + [
        a.flowgrad, "adjoint", a.case, "--set", f"body.cyl.radius={radius!r}", "--set", "output.dir=" + out,
        "--set", "output.monitor_every=1000", "-fg_fftw_planner", "estimate"]
    if cells:
        cmd += ["--set", "grid.cells=[" + cells + "]"]
    if dt:
        cmd += ["--set", f"time.dt={dt!r}", "--set", f"time.steps={int(round(steps * base_dt / dt))}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    text = r.stdout + r.stderr
    newton = [int(m.group(2)) for m in KSP_NEWTON.finditer(text)]
    adj = [int(m.group(2)) for m in KSP_ADJ.finditer(text)]
    nm = NEWTON.search(text)
    row = {"radius": radius, "code": r.returncode, "newton": int(nm.group(1)) if nm else -1,
           "ksp": max(newton) if newton else -1, "adj": max(adj) if adj else -1, "J": float("nan"), "dJdr": float("nan")}
    if r.returncode != 0:
        row["error"] = (text.strip().splitlines() or ["(no output)"])[-1]
        return row
    row["J"], grad = read_gradient(out)
    row["dJdr"] = grad.get("body.cyl.shape.r", float("nan"))
    return row


lo, hi, n = a.radii.split(":")
lo, hi, n = float(lo), float(hi), int(n)
radii = [lo + (hi - lo) * i / (n - 1) for i in range(n)] if n > 1 else [lo]
base_dt = case_value(a.case, "dt")
steps = case_value(a.case, "steps")
os.makedirs(a.workdir, exist_ok=True)

rows, fails = [], []
for i, r in enumerate(radii):
    rows.append(run(f"{i:02d}", r, a.cells, None))
print(f"{'radius':>9} {'exit':>4} {'Newton':>6} {'KSP max':>7} {'adjoint':>7} {'J':>16} {'dJ/dr adjoint':>14} {'dJ/dr sweep':>12}")
for i, row in enumerate(rows):
    slope = float("nan")
    if 0 < i < len(rows) - 1:
        slope = (rows[i + 1]["J"] - rows[i - 1]["J"]) / (rows[i + 1]["radius"] - rows[i - 1]["radius"])
    print(f"{row['radius']:9.6f} {row['code']:4d} {row['newton']:6d} {row['ksp']:7d} {row['adj']:7d} {row['J']:16.10f} {row['dJdr']:14.6e} {slope:12.4e}")
    if row["code"] != 0:
        fails.append(f"radius {row['radius']}: exit {row['code']}: {row.get('error', '')}")
    elif row["ksp"] > a.max_its or row["adj"] > a.max_its or row["ksp"] < 0 or row["adj"] < 0:
        fails.append(f"radius {row['radius']}: {row['ksp']} Krylov iterations in a Newton step, {row['adj']} in the adjoint (at most {a.max_its})")

if a.refine:
    mid = rows[len(rows) // 2]
    if a.cells:
        nx, ny = (int(v) for v in a.cells.split(","))
    else:
        with open(a.case) as f:
            m = re.search(r"cells:\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]", f.read())
        nx, ny = int(m.group(1)), int(m.group(2))
    fine = run("refined", mid["radius"], f"{2 * nx},{2 * ny}", base_dt / 2)
    print(f"refined ({2 * nx} x {2 * ny}, dt {base_dt / 2:g}) at radius {mid['radius']:.6f}: exit {fine['code']}, "
          f"{fine['newton']} Newton iterations, at most {fine['ksp']} Krylov iterations per Newton step "
          f"({mid['ksp']} on {nx} x {ny}: ratio {fine['ksp'] / max(mid['ksp'], 1):.2f}), adjoint {fine['adj']} ({mid['adj']})")
    if fine["code"] != 0:
        fails.append(f"refined: exit {fine['code']}: {fine.get('error', '')}")
    elif fine["ksp"] > a.max_growth * mid["ksp"] or fine["adj"] > a.max_growth * mid["adj"]:
        fails.append(f"refined: {fine['ksp']} / {fine['adj']} Krylov iterations against {mid['ksp']} / {mid['adj']}: more than {a.max_growth}x")

for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
