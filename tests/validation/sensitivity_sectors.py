#!/usr/bin/env python3
"""Where on a circle's surface a radius sweep's gradient varies (issue 21; docs/bodies.md,
"Crossings in a scalar model"): splits each point's exact dJ/dr into angular sectors.

  sensitivity_sectors.py WORKDIR --centre X Y [--param body.cyl.shape.r] [--sectors 8]

WORKDIR is a smoothness.py work directory (point_NNN/gradient.h5, one per radius). Each point's
shape_sensitivity (per unit volume; its integral over the band is dJ/dr for a circle) is summed
over the cells whose centres lie in each sector of the angle about the centre (sector k centred
on k 360/S degrees, 0 = +x, counter-clockwise); the sectors' sums add up to the exact dJ/dr
(checked to 1e-12). Per sector: the mean over the sweep and the residual of a cubic fit through
the sweep, as a percentage of the sweep's mean |dJ/dr|: a sector whose residual is large is where
the gradient departs from a smooth trend. Exit 1 if the sums do not add up.
"""
import argparse, glob, os, sys

import h5py
import numpy as np

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("workdir")
ap.add_argument("--centre", type=float, nargs=2, required=True)
ap.add_argument("--param", default="body.cyl.shape.r")
ap.add_argument("--sectors", type=int, default=8)
a = ap.parse_args()

r, g, S = [], [], []
if a.sectors < 1:
    sys.exit(f"sensitivity_sectors: --sectors {a.sectors}: must be at least 1")
for d in sorted(glob.glob(os.path.join(a.workdir, "point_*"))):
    fn = os.path.join(d, "gradient.h5")
    try:
        f = h5py.File(fn, "r")
    except OSError as e:
        sys.exit(f"sensitivity_sectors: {fn}: {e}")
    with f:
        missing = [k for k in ("design_names", "design", "gradient", "shape_sensitivity", "x_faces", "y_faces", "x_centres", "y_centres") if k not in f]
        if missing:
            sys.exit(f"sensitivity_sectors: {fn}: no dataset {missing[0]} (a 2D gradient.h5 of flowgrad adjoint with a shape body)")
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["design_names"][()]]
        if a.param not in names:
            sys.exit(f"sensitivity_sectors: {fn}: no design parameter {a.param} (there: {', '.join(names)})")
        k = names.index(a.param)
        s = f["shape_sensitivity"][()]
        dV = np.outer(np.diff(f["y_faces"][()]), np.diff(f["x_faces"][()]))
        X, Y = np.meshgrid(f["x_centres"][()], f["y_centres"][()])
        r.append(f["design"][()][k]), g.append(f["gradient"][()][k])
    width = 360.0 / a.sectors
    psi = np.degrees(np.arctan2(Y - a.centre[1], X - a.centre[0]))
    sec = (np.floor((psi + 0.5 * width) / width).astype(int)) % a.sectors
    S.append([(s * dV)[sec == q].sum() for q in range(a.sectors)])
if len(r) < 5:
    sys.exit(f"sensitivity_sectors: {a.workdir}: {len(r)} points (point_NNN/gradient.h5), 5 or more needed")
r, g, S = np.array(r), np.array(g), np.array(S)
scale = np.abs(g).mean()
bad = np.abs(S.sum(1) - g).max() / scale
print(f"{len(r)} points, {a.param} over [{r.min():g}, {r.max():g}]; sectors' sum against dJ/dr: {bad:.1e}")
print(f"{'sector':>8} {'mean':>10} {'largest residual':>17}   residual at each point, % of mean |dJ/dr|")
for q in list(range(a.sectors)) + [-1]:
    y = g if q < 0 else S[:, q]
    res = y - np.polyval(np.polyfit(r, y, 3), r)
    label = "all" if q < 0 else f"{q * width:g}"
    print(f"{label:>8} {y.mean():10.4g} {100 * np.abs(res).max() / scale:16.2f}%   " + " ".join(f"{100 * x / scale:+.1f}" for x in res))
sys.exit(1 if bad > 1e-12 else 0)
