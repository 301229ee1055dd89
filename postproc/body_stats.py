#!/usr/bin/env python3
"""Flow measurements of a flowgrad run with bodies, from its output directory.

    python3 postproc/body_stats.py forces OUT --body NAME [--from T] [--steady TOL]
    python3 postproc/body_stats.py wake OUT --body NAME --center X,Y --diameter D [--fields FILE]

forces: from OUT/history.csv (columns NAME_cd, NAME_cl, NAME_cv_fx, NAME_fx): over the rows with
  time >= T (default: the second half of the run) the mean, min, max of Cd and Cl, the relative
  difference between the penalty and the control-volume drag, and the Strouhal number
  St = f L/U, with f from the upward crossings of the mean of Cl (at least 3, interpolated
  linearly; 0 when Cl's peak-to-peak amplitude is below 2e-4: steady) and L, U the body's
  ref_length and ref_speed (--lref, --uref; default 1).
  --steady TOL also checks that Cd changed by less than TOL (relative) over the window.
  Prints key = value lines.

wake: the recirculation length behind a body in a stream along +x: from the last fields file
  (or --fields), u interpolated to the line y = Y, the first point x > X + D/2 where u turns from
  negative to positive; prints L/D = (x_s - X - D/2)/D (0 when there is no reversed flow).

Exit status 1 when a requested figure cannot be formed (too short a window, no crossing).
"""
import argparse, csv, glob, os, sys

import numpy as np


def read_history(out):
    path = os.path.join(out, "history.csv")
    with open(path) as fh:
        rows = list(csv.reader(fh))
    head, data = rows[0], rows[1:]
    cols = {name: np.array([float(r[i]) for r in data if len(r) == len(head)]) for i, name in enumerate(head)}
    return cols


def frequency(t, y):
    """(f, crossings): upward crossings of mean(y) over the samples, interpolated."""
    m = y.mean()
    if y.max() - y.min() < 2e-4:  # a steady signal: round-off wiggles are no oscillation
        return 0.0, 0
    s = y - m
    idx = np.nonzero((s[:-1] < 0) & (s[1:] >= 0))[0]
    tc = t[idx] + (-s[idx]) / (s[idx + 1] - s[idx]) * (t[idx + 1] - t[idx])
    if len(tc) < 3:
        return 0.0, len(tc)
    return (len(tc) - 1) / (tc[-1] - tc[0]), len(tc)


def cmd_forces(a):
    h = read_history(a.out)
    name = a.body
    for k in ("_cd", "_cl", "_fx", "_cv_fx"):
        if name + k not in h:
            sys.exit("body_stats: no column %s%s in %s/history.csv" % (name, k, a.out))
    t = h["time"]
    t0 = a.t_from if a.t_from is not None else 0.5 * t[-1]
    w = t >= t0
    if w.sum() < 4:
        sys.exit("body_stats: fewer than 4 rows with time >= %g" % t0)
    cd, cl, fx, cv = h[name + "_cd"][w], h[name + "_cl"][w], h[name + "_fx"][w], h[name + "_cv_fx"][w]
    f, n = frequency(t[w], cl)
    print("window = %.6g %.6g" % (t[w][0], t[w][-1]))
    print("rows = %d" % w.sum())
    print("cd_last = %.6f" % cd[-1])
    print("cd_mean = %.6f" % cd.mean())
    print("cd_min = %.6f" % cd.min())
    print("cd_max = %.6f" % cd.max())
    print("cl_mean = %.6f" % cl.mean())
    print("cl_amplitude = %.6f" % (0.5 * (cl.max() - cl.min())))
    print("cv_vs_penalty = %.3e" % (abs(cv.mean() - fx.mean()) / abs(fx.mean())))
    print("crossings = %d" % n)
    print("st = %.6f" % (f * a.lref / a.uref))
    if a.steady is not None:
        drift = abs(cd[-1] - cd[0]) / abs(cd[-1])
        print("cd_drift = %.3e" % drift)
        if drift > a.steady:
            print("body_stats: Cd changed by %.3e > %.1e over the window: not steady" % (drift, a.steady), file=sys.stderr)
            return 1
    return 0


def cmd_wake(a):
    import h5py

    files = sorted(glob.glob(os.path.join(a.out, "fields", "fields_*.h5")))
    path = a.fields or (files[-1] if files else None)
    if not path:
        sys.exit("body_stats: no fields file in %s/fields" % a.out)
    X, Y = (float(v) for v in a.center.split(","))
    D = a.diameter
    with h5py.File(path, "r") as f:
        u = f["u"][...]

        def axis(d):  # (faces, centres) along d: the file's coordinates (stretched grids too)
            ax = "xyz"[d]
            if ax + "_faces" in f:
                return f[ax + "_faces"][...], f[ax + "_centres"][...]
            x0, h, n = f.attrs["origin"][d], f.attrs["spacing"][d], f.attrs["cells"][d]
            return x0 + np.arange(n + 1) * h, x0 + (np.arange(n) + 0.5) * h

        if u.ndim == 3:  # 3D: the plane through the centre (the nearest cell centre along z)
            zc = axis(2)[1]
            k = int(np.argmin(np.abs(zc - a.z))) if a.z is not None else u.shape[0] // 2
            u = u[k]
        xf, yc = axis(0)[0], axis(1)[1]
    # u[j, i] at x = xf[i + 1] (the cell's upper face), y = yc[j]
    j = int(np.clip(np.searchsorted(yc, Y, side="right") - 1, 0, len(yc) - 2))
    w = (Y - yc[j]) / (yc[j + 1] - yc[j])
    line = (1 - w) * u[j] + w * u[j + 1]
    x = xf[1:]
    rear = X + 0.5 * D
    sel = np.nonzero(x > rear)[0]
    xs = None
    for i in sel[:-1]:
        if line[i] < 0 <= line[i + 1]:
            xs = x[i] + (0 - line[i]) / (line[i + 1] - line[i]) * (x[i + 1] - x[i])
            break
    if xs is None:
        if line[sel[0]] >= 0:
            print("L/D = 0 (no reversed flow behind the body)")
            print("ld = 0")
            return 0
        sys.exit("body_stats: the reversed flow does not end inside the domain")
    print("fields = %s" % path)
    print("ld = %.5f" % ((xs - rear) / D))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("forces")
    f.add_argument("out")
    f.add_argument("--body", required=True)
    f.add_argument("--from", dest="t_from", type=float)
    f.add_argument("--steady", type=float)
    f.add_argument("--lref", type=float, default=1.0)
    f.add_argument("--uref", type=float, default=1.0)
    w = sub.add_parser("wake")
    w.add_argument("out")
    w.add_argument("--body", required=True)
    w.add_argument("--center", required=True)
    w.add_argument("--diameter", type=float, required=True)
    w.add_argument("--fields")
    w.add_argument("--z", type=float)
    a = p.parse_args()
    return cmd_forces(a) if a.cmd == "forces" else cmd_wake(a)


if __name__ == "__main__":
    sys.exit(main())
