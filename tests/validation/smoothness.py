#!/usr/bin/env python3
"""Smoothness of a force in the design (issue 21): sweep one case value across grid cells, and
compare the force and its exact gradient with a smooth fit.

  smoothness.py --flowgrad EXE --case CASE --workdir DIR --key KEY --param NAME --range LO:HI:N
                [--mpiexec MPIEXEC] [--mpiexec-flags F] [--np N] [--jobs J] [--set K=V ...]
                [--degree 3] [--max-dev 5e-4] [--max-grad 0.05] [--min-grad G] [--csv FILE]

For each of N values v of the case key KEY (e.g. body.cyl.radius or body.foil.angle; a KEY with
"{}" is a whole setting with v in place of {}, e.g. "body.cyl.position=[0.3, {}]") from LO to HI, `flowgrad adjoint CASE --set KEY=value` gives J (the case's
objective: a force coefficient) and the exact dJ/dp of the design parameter NAME as
gradient.csv names it (body.cyl.shape.r, body.cyl.shape.y0, body.foil.shape.angle; the script
converts nothing: KEY and NAME must measure the same quantity in the same unit, or pass --scale
for dNAME/dKEY). Then a least-squares polynomial of --degree (3: a smooth cubic) through J over
the sweep, and per point:

  deviation  (J - fit) / mean|J|                     (bound --max-dev: 5e-4, issue 21's 0.05 %)
  gradient   (dJ/dp - fit') / max(|fit'|, floor)     (bound --max-grad: 5 %)

where floor = 0.05 * max|fit'| over the sweep, so that a slope passing through zero is judged
against the sweep's typical slope rather than against zero. Prints a table and the largest of
each; exit 1 when a run fails or a bound is exceeded (--report-only: always exit 0 after a
successful sweep, for baselines). A control, --min-grad G, turns the test around: exit 1 unless
the largest gradient error reaches G (a model that the bounds should reject).

Every point must have the same grid (compared from gradient.h5 when h5py is there; exit 1 if not):
a grid.stretch of type `bodies` follows the swept body, so give such a sweep a fixed `band`.

--no-gradient judges J's deviation only (for a model whose design derivative is not built, such as
body.<body>.line_flux: --param is then not needed and the runs' design may be empty).

--jobs J runs J sweep points at once (each on --np ranks). --set passes further case values to
every run, --options further command-line options (one string). --csv writes the table.
"""
import argparse, concurrent.futures, csv, os, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from fgtest import read_gradient  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--flowgrad", required=True)
ap.add_argument("--case", required=True)
ap.add_argument("--workdir", required=True)
ap.add_argument("--key", required=True)
ap.add_argument("--param", default="")
ap.add_argument("--no-gradient", action="store_true", help="judge J's deviation only (a model without the design derivative: --param not needed)")
ap.add_argument("--range", required=True, help="LO:HI:N")
ap.add_argument("--scale", type=float, default=1.0, help="dNAME/dKEY (1: the same quantity)")
ap.add_argument("--mpiexec", default="")
ap.add_argument("--mpiexec-flags", default="")
ap.add_argument("--np", type=int, default=1)
ap.add_argument("--jobs", type=int, default=1)
ap.add_argument("--set", action="append", default=[])
ap.add_argument("--options", default="", help="further command-line options of every run (one string)")
ap.add_argument("--degree", type=int, default=3)
ap.add_argument("--max-dev", type=float, default=5e-4)
ap.add_argument("--max-grad", type=float, default=0.05)
ap.add_argument("--min-grad", type=float, default=None, help="a control: exit 1 unless the largest gradient error is at least this")
ap.add_argument("--csv", default="")
ap.add_argument("--report-only", action="store_true")
a = ap.parse_args()
if not a.param and not a.no_gradient:
    ap.error("--param is required (or --no-gradient)")

try:
    import numpy as np
except ImportError:
    sys.exit("smoothness.py: needs numpy (apt-get install python3-numpy)")

lo, hi, n = a.range.split(":")
lo, hi, n = float(lo), float(hi), int(n)
if n < a.degree + 2:
    sys.exit(f"smoothness.py: --range needs at least {a.degree + 2} points for a degree-{a.degree} fit")
values = [lo + (hi - lo) * i / (n - 1) for i in range(n)]
os.makedirs(a.workdir, exist_ok=True)


def run(i, v):
    out = os.path.join(a.workdir, f"point_{i:03d}")
    cmd = []
    if a.mpiexec:
        cmd = [a.mpiexec, "-n", str(a.np)] + [x for x in a.mpiexec_flags.replace(";", " ").split() if x]
    setting = a.key.replace("{}", repr(v)) if "{}" in a.key else f"{a.key}={v!r}"
    cmd += [a.flowgrad, "adjoint", a.case, "--set", setting, "--set", "output.dir=" + out,
            "--set", "output.monitor_every=100000", "-fg_fftw_planner", "estimate"]
    for s in a.set:
        cmd += ["--set", s]
    cmd += a.options.split()
    r = subprocess.run(cmd, capture_output=True, text=True)
    row = {"value": v, "code": r.returncode, "J": float("nan"), "grad": float("nan"), "error": ""}
    if r.returncode != 0:
        row["error"] = ((r.stdout + r.stderr).strip().splitlines() or ["(no output)"])[-1]
        return row
    row["J"], grad = read_gradient(out)
    if a.no_gradient:
        pass
    elif a.param in grad:
        row["grad"] = grad[a.param] * a.scale  # dJ/dKEY = dJ/dNAME dNAME/dKEY
    else:
        row["code"], row["error"] = -1, f"no parameter {a.param} in {out}/gradient.csv"
    return row


with concurrent.futures.ThreadPoolExecutor(max_workers=max(a.jobs, 1)) as ex:
    rows = list(ex.map(lambda iv: run(*iv), enumerate(values)))

fails = [f"{a.key} = {r['value']!r}: exit {r['code']}: {r['error']}" for r in rows if r["code"] != 0]
if fails:
    for f in fails:
        print("FAIL:", f)
    sys.exit(1)


def grid_faces(i):
    """The face coordinates of point i's grid (gradient.h5), or None without h5py."""
    try:
        import h5py
    except ImportError:
        return None
    with h5py.File(os.path.join(a.workdir, f"point_{i:03d}", "gradient.h5"), "r") as f:
        return [f[k][...] for k in ("x_faces", "y_faces", "z_faces") if k in f]


# The sweep must keep one grid: a grid.stretch of type `bodies` derives its band from the bodies as
# the case places them, so sweeping a body's key re-grids every point and the force jumps where the
# cell count changes (a NACA angle sweep: Cl jumped by 0.008 inside 0.1 degree).
g0 = grid_faces(0)
if g0 is None:
    print("smoothness.py: note: without h5py (apt-get install python3-h5py) the points' grids are not compared")
else:
    for i in range(1, n):
        gi = grid_faces(i)
        same = len(gi) == len(g0) and all(u.shape == w.shape and np.allclose(u, w, rtol=0, atol=1e-12 * max(1.0, np.abs(w).max())) for u, w in zip(gi, g0))
        if not same:
            print(f"FAIL: the grid at {a.key} = {values[i]:.12g} differs from the one at {values[0]:.12g}: the sweep compares "
                  "different grids (a grid.stretch of type `bodies` follows the bodies: give it a fixed `band`)")
            sys.exit(1)

x = np.array(values)
J = np.array([r["J"] for r in rows])
G = np.array([r["grad"] for r in rows])
xm, xs = 0.5 * (lo + hi), 0.5 * (hi - lo)  # fit in a centred, scaled variable (conditioning)
c = np.polyfit((x - xm) / xs, J, a.degree)
fit = np.polyval(c, (x - xm) / xs)
slope = np.polyval(np.polyder(c), (x - xm) / xs) / xs
mean = np.mean(np.abs(J))
floor = 0.05 * np.max(np.abs(slope))
dev = (J - fit) / mean
gerr = (G - slope) / np.maximum(np.abs(slope), floor)
nb = [(J[i + 1] - J[i - 1]) / (x[i + 1] - x[i - 1]) if 0 < i < n - 1 else float("nan") for i in range(n)]

print(f"{a.key} over [{lo:g}, {hi:g}] in {n} points; J of {a.case}; exact gradient {a.param or '(not judged: --no-gradient)'}; degree-{a.degree} fit")
print(f"{'value':>12} {'J':>16} {'fit dev':>10} {'dJ/dp exact':>13} {'fit slope':>12} {'grad err':>9} {'neighbours':>12}")
for i in range(n):
    print(f"{x[i]:12.7g} {J[i]:16.10f} {dev[i]:+10.2e} {G[i]:13.6e} {slope[i]:12.5e} {gerr[i]:+9.3f} {nb[i]:12.5e}")
md, mg = float(np.max(np.abs(dev))), (0.0 if a.no_gradient else float(np.max(np.abs(gerr))))
print(f"largest deviation from the fit: {md:.2e} of mean|J| (bound {a.max_dev:g}); " +
      ("the gradient not judged (--no-gradient)" if a.no_gradient else f"largest gradient error against the fit's slope: {mg:.3f} (bound {a.max_grad:g})"))
if a.csv:
    with open(a.csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["value", "J", "fit", "deviation", "gradient", "fit_slope", "gradient_error"])
        for i in range(n):
            w.writerow([repr(x[i]), repr(J[i]), repr(fit[i]), repr(dev[i]), repr(G[i]), repr(slope[i]), repr(gerr[i])])
ok = md <= a.max_dev and mg <= a.max_grad
print("smoothness:", "within the bounds" if ok else "OUTSIDE the bounds")
if a.min_grad is not None and not a.no_gradient:  # a control: the gradient error must reach min_grad
    ok = mg >= a.min_grad
    print(f"control: largest gradient error {mg:.3f}", ">=" if ok else "<", f"{a.min_grad:g}", "(as expected)" if ok else "(NOT rejected)")
sys.exit(0 if ok or a.report_only else 1)
