#!/usr/bin/env python3
"""check_cavity_ghia.py OUTDIR REFDIR [--tol 0.01] [--steps N] [--div-tol 1e-10] [--ke-tol 1e-3]

Lid-driven cavity at Re = 100 (a finished `flowgrad run` in OUTDIR) against Ghia, Ghia & Shin
(1982), Tables I and II (REFDIR/ghia1982_re100_{u,v}_centerline.csv):

  u on the vertical centreline x = 1/2 and v on the horizontal centreline y = 1/2 must be within
  --tol of every tabulated point, the wall points included.

Positions, honestly staggered (MAC grid, n even): u[j, i] lies at (x, y) = ((i+1) h, (j+1/2) h), so
the column i = n/2 - 1 lies exactly on x = 1/2 and needs no interpolation across x; v[j, i] lies at
((i+1/2) h, (j+1) h), so the row j = n/2 - 1 lies exactly on y = 1/2. Along the line the values sit
at the cell-centre positions (k + 1/2) h; the wall values (u = 0 at y = 0 and u = 1 at the lid
y = 1; v = 0 at x = 0 and x = 1) are the boundary conditions, half a cell from the nearest value.
Between those nodes (non-uniform at the ends) the profile is interpolated with the cubic Lagrange
polynomial through the 4 nearest nodes; linear interpolation is printed next to it, so that the
interpolation error can be seen to be far below the tolerance.

Also: the final fields file is at step --steps (if given); max|div u| (history.csv, relative to
u_ref/h) <= --div-tol at every monitored step; and the flow has settled: the kinetic energy
changed by at most --ke-tol (relative) over the last 10 % of the run.
Exit 0 when every check holds, 1 otherwise; prints the table either way."""
import argparse, csv, glob, os, sys
import h5py
import numpy as np


def cubic(xn, yn, x):
    """Cubic Lagrange interpolation through the 4 nodes of xn (sorted) nearest to x."""
    k = int(np.searchsorted(xn, x))
    lo = min(max(k - 2, 0), len(xn) - 4)
    xs, ys = xn[lo:lo + 4], yn[lo:lo + 4]
    val = 0.0
    for a in range(4):
        w = 1.0
        for b in range(4):
            if b != a:
                w *= (x - xs[b]) / (xs[a] - xs[b])
        val += w * ys[a]
    return val


def load_ref(path):
    return np.loadtxt(path, delimiter=",", comments="#", skiprows=2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("refdir")
    ap.add_argument("--tol", type=float, default=0.01)
    ap.add_argument("--steps", type=int)
    ap.add_argument("--div-tol", type=float, default=1e-10)
    ap.add_argument("--ke-tol", type=float, default=1e-3)
    ap.add_argument("--fields", help="fields file (default: the last one in OUTDIR/fields)")
    args = ap.parse_args()
    fail = []

    path = args.fields or sorted(glob.glob(os.path.join(args.outdir, "fields", "fields_*.h5")))[-1]
    with h5py.File(path, "r") as f:
        u, v = f["u"][...], f["v"][...]
        step, t = int(f.attrs["step"]), float(f.attrs["time"])
        L, x0 = f.attrs["lengths"], f.attrs["origin"]
    ny, nx = u.shape
    if nx != ny or nx % 2 or abs(L[0] - 1) > 1e-14 or abs(L[1] - 1) > 1e-14 or abs(x0[0]) + abs(x0[1]) > 0:
        fail.append(f"expected an even n x n grid on [0,1]^2, got {nx} x {ny}, L = {L[:2]}, x0 = {x0[:2]}")
    if args.steps is not None and step != args.steps:
        fail.append(f"the fields file is at step {step}, expected {args.steps}")
    n, h = nx, 1.0 / nx
    pos = np.r_[0.0, (np.arange(n) + 0.5) * h, 1.0]          # wall, values, wall
    ucl = np.r_[0.0, u[:, n // 2 - 1], 1.0]                  # x = 1/2 exactly; lid u = 1
    vcl = np.r_[0.0, v[n // 2 - 1, :], 0.0]                  # y = 1/2 exactly
    print(f"{path}: {n}x{n}, step {step}, t = {t:g}")

    worst = {}
    for name, ref, prof, coord in (("u", "ghia1982_re100_u_centerline.csv", ucl, "y"),
                                   ("v", "ghia1982_re100_v_centerline.csv", vcl, "x")):
        g = load_ref(os.path.join(args.refdir, ref))
        print(f"{name} on the {'vertical' if name == 'u' else 'horizontal'} centreline:")
        print(f"  {coord:>7} {'Ghia':>9} {'flowgrad':>10} {'diff':>10} {'diff(lin)':>10}")
        dmax, dlin = 0.0, 0.0
        for xq, gv in g:
            val = cubic(pos, prof, xq)
            lin = float(np.interp(xq, pos, prof))
            d = val - gv
            dmax, dlin = max(dmax, abs(d)), max(dlin, abs(lin - gv))
            flag = "" if abs(d) <= args.tol else "  <-- over tolerance"
            print(f"  {xq:7.4f} {gv:9.5f} {val:10.5f} {d:10.5f} {lin - gv:10.5f}{flag}")
            if not abs(d) <= args.tol:
                fail.append(f"{name} at {coord} = {xq}: {val:.5f} vs Ghia {gv:.5f} (|diff| {abs(d):.5f} > {args.tol})")
        worst[name] = dmax
        print(f"  max |{name} - Ghia| = {dmax:.5f} (cubic), {dlin:.5f} (linear); tolerance {args.tol}")

    with open(os.path.join(args.outdir, "history.csv")) as fh:
        rows = list(csv.DictReader(fh))
    div = max(float(r["max_div"]) for r in rows)
    print(f"max|div u| h/u_ref over {len(rows)} monitored steps: {div:.2e} (bound {args.div_tol:.0e})")
    if not div <= args.div_tol:
        fail.append(f"max|div u| reached {div:.3e} > {args.div_tol}")
    tt = np.array([float(r["time"]) for r in rows])
    ke = np.array([float(r["kinetic_energy"]) for r in rows])
    k0 = int(np.searchsorted(tt, 0.9 * tt[-1]))
    dke = abs(ke[-1] - ke[k0]) / ke[-1]
    print(f"kinetic energy {ke[-1]:.8e}; relative change over t in [{tt[k0]:g}, {tt[-1]:g}]: {dke:.2e} (bound {args.ke_tol:.0e})")
    if not dke <= args.ke_tol:
        fail.append(f"the flow has not settled: kinetic energy changed by {dke:.2e} over the last 10% of the run")

    print(f"cavity {n}x{n} vs Ghia: max|u - Ghia| = {worst['u']:.4f}, max|v - Ghia| = {worst['v']:.4f} (tolerance {args.tol})")
    if fail:
        print("FAIL: " + "\n      ".join(fail))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
