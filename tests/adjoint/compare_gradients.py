#!/usr/bin/env python3
"""Compare the gradient.csv (J, objective terms, dJ/dp) of flowgrad adjoint runs with a reference.

    compare_gradients.py [--rtol R] [--fields] REF_DIR DIR [DIR ...]

Every value of each DIR's gradient.csv must agree with REF_DIR's to R relative to the largest
|value| of its column (default 1e-13); with --fields, the datasets of gradient.h5 as well (relative
to each dataset's largest |value|). Prints the largest difference per directory; exit 1 on failure.
"""
import argparse
import sys


def read_csv(path):
    head, rows = {}, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# "):
                key, _, val = line[2:].partition(" = ")
                head[key] = float(val)
            elif line and not line.startswith("name,"):
                name, val, grad = line.split(",")
                rows.append((name, float(val), float(grad)))
    return head, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rtol", type=float, default=1e-13)
    ap.add_argument("--fields", action="store_true")
    ap.add_argument("ref")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    rh, rr = read_csv(a.ref + "/gradient.csv")
    gscale = max([abs(g) for _, _, g in rr] + [1e-300])
    ok = True
    for d in a.dirs:
        h, r = read_csv(d + "/gradient.csv")
        worst = 0.0
        if set(h) != set(rh) or [x[0] for x in r] != [x[0] for x in rr]:
            print(f"{d}: the table differs in its entries from {a.ref}")
            ok = False
            continue
        for k in rh:
            worst = max(worst, abs(h[k] - rh[k]) / max(abs(rh[k]), 1e-300))
        for (n, v, g), (_, rv, rg) in zip(r, rr):
            if v != rv:
                print(f"{d}: design value {n} differs: {v!r} vs {rv!r}")
                ok = False
            worst = max(worst, abs(g - rg) / gscale)
        if a.fields:
            import h5py
            import numpy as np
            with h5py.File(a.ref + "/gradient.h5", "r") as fr, h5py.File(d + "/gradient.h5", "r") as fd:
                for name in fr:
                    x, y = np.asarray(fr[name][...]), np.asarray(fd[name][...])
                    if x.dtype.kind != "f":
                        continue
                    s = max(float(np.max(np.abs(x))) if x.size else 0.0, 1e-300)
                    worst = max(worst, float(np.max(np.abs(x - y))) / s if x.size else 0.0)
        good = worst <= a.rtol
        ok = ok and good
        print(f"{d}: largest relative difference {worst:.3e} (tolerance {a.rtol:g}): {'ok' if good else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
