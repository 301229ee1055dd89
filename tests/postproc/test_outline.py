#!/usr/bin/env python3
"""The body outline in the pictures is the design's surface phi = 0 (issue 21).

  test_outline.py FLOWGRAD RUN_3D_SPHERE TMP

Runs flowgrad (1 step) on a 2D channel with a circle, a rotated ellipse and a NACA 0012 at 12
degrees, h = 1/40 of the chord, and draws `postproc fields`' picture of the fields file; then
draws the 3D sphere run's fields (RUN_3D_SPHERE, the postproc fixture) in the plane through the
centre and in one 0.3 r off it. For each body, the largest distance between the drawn outline and
the exact shape, both ways (every point of the drawn lines, 16 per segment, to the exact curve;
every point of the exact curve to the drawn lines), must be <= h/10. The exact shapes are
computed here from their formulas (circle, ellipse, NACA 4-digit with the closed trailing edge,
sphere sections), not by flowgrad. To show that the measure can fail, the chi = 0.5 contour (what
the pictures drew before) is measured the same way and must be > h/4 off.
"""
import os
import subprocess
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "postproc"))
from fgpost import common, fields, slices  # noqa: E402

H = 1.0 / 40  # the cells' width: 4 x 2 over 160 x 80

CASE = """name: outline_check
grid: {cells: [160, 80], lengths: [4, 2]}
flow: {re: 100, u_ref: 1, l_ref: 1}
time: {dt: 0.005, steps: 1}
initial: {type: uniform, velocity: [1, 0]}
boundary:
  x_lo: {type: inflow, velocity: [1, 0]}
  x_hi: {type: outflow}
  y_lo: {type: slip}
  y_hi: {type: slip}
body:
  disc: {shape: circle, position: [0.7, 1.3], radius: 0.3}
  oval: {shape: ellipse, position: [0.8, 0.5], semi_axes: [0.35, 0.15], angle: 30}
  wing: {shape: naca, naca: "0012", position: [1.8, 1.0], angle: 12, chord: 1.2}
output: {monitor_every: 1, fields_every: 1}
"""


def rot(p, c, deg):
    a = np.radians(deg)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return c + p @ R.T


def exact_2d():
    """Dense points (200k) of each body's exact boundary."""
    t = np.linspace(0, 2 * np.pi, 200000, endpoint=False)
    disc = np.stack([0.7 + 0.3 * np.cos(t), 1.3 + 0.3 * np.sin(t)], axis=1)
    oval = rot(np.stack([0.35 * np.cos(t), 0.15 * np.sin(t)], axis=1), np.array([0.8, 0.5]), 30)
    s = np.linspace(0, 1, 100000) ** 2  # clustered at the leading edge
    yt = 5 * 0.12 * (0.2969 * np.sqrt(s) - 0.1260 * s - 0.3516 * s ** 2 + 0.2843 * s ** 3 - 0.1036 * s ** 4)
    c = 1.2
    prof = np.concatenate([np.stack([s, yt], 1), np.stack([s, -yt], 1)[::-1]]) * c
    wing = rot(prof, np.array([1.8, 1.0]), -12)  # the angle of attack: nose up (clockwise) about the leading edge
    return {"disc": disc, "oval": oval, "wing": wing}


def densify(lines, per=16):
    out = []
    for ln in lines:
        for a, b in zip(ln[:-1], ln[1:]):
            w = np.linspace(0, 1, per, endpoint=False)[:, None]
            out.append(a + w * (b - a))
        out.append(ln[-1:])
    return np.concatenate(out) if out else np.zeros((0, 2))


def hausdorff(drawn, exact):
    """(drawn -> exact, exact -> drawn): the largest nearest-point distances."""
    from scipy.spatial import cKDTree
    d1 = cKDTree(exact).query(drawn)[0].max()
    d2 = cKDTree(drawn).query(exact)[0].max()
    return float(d1), float(d2)


def split(lines, exact):
    """The drawn lines that belong to each body (the nearest exact shape of their first point)."""
    from scipy.spatial import cKDTree
    trees = {k: cKDTree(v) for k, v in exact.items()}
    out = {k: [] for k in exact}
    for ln in lines:
        k = min(trees, key=lambda n: trees[n].query(ln[0])[0])
        out[k].append(ln)
    return out


class Args:
    width, height, dpi = 6.0, 4.0, 60
    format = "png"


def check(label, lines, exact, bound, fails, worse=None, h=H):
    if not lines:
        print(f"FAIL {label}: no outline drawn")
        fails.append(label)
        return
    d1, d2 = hausdorff(densify(lines), exact)
    ok = max(d1, d2) <= bound if worse is None else max(d1, d2) > worse
    what = f"<= h/10 = {bound:.2e}" if worse is None else f"> {worse:.2e} (the measure sees the old outline)"
    print(f"{'ok  ' if ok else 'FAIL'} {label}: drawn -> exact {d1:.2e}, exact -> drawn {d2:.2e} ({max(d1, d2) / h:.3f} h); {what}")
    if not ok:
        fails.append(label)


def main():
    flowgrad, sphere_run, tmp = sys.argv[1:4]
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(tmp, exist_ok=True)
    case = os.path.join(tmp, "outline.yaml")
    with open(case, "w") as f:
        f.write(CASE)
    subprocess.run([flowgrad, "run", case, "--set", f"output.dir={tmp}/run"], check=True, stdout=subprocess.DEVNULL)
    fails = []
    exact = exact_2d()
    path = common.field_files(os.path.join(tmp, "run"))[-1]
    with common.FieldFile(path) as ff:
        fig, data = fields.fields_figure(Args(), ff, "vorticity")
        drawn = [np.stack([ln.get_xdata(), ln.get_ydata()], axis=1) for ln in fig.axes[0].lines]
        plt.close(fig)
        assert len(drawn) == len(data["outlines"]) == 3, f"{len(drawn)} lines drawn, expected the 3 bodies'"
        by = split(drawn, exact)
        for k in exact:
            check(f"2D {k}", by[k], exact[k], H / 10, fails)
        # the level set alone (what a 3D plane uses): the phi = 0 contour of the cell values
        cc = slices.cell_coords(ff)
        pl = slices.contour_lines(slices.at_cells(ff, "phi"), cc[0], cc[1], 0.0)
        byp = split(pl, exact)
        for k in ("disc", "oval"):  # smooth curves; the trailing edge's corner is what the points are for
            check(f"2D {k}, phi = 0 contour", byp[k], exact[k], H / 10, fails)
        old = split(slices.contour_lines(slices.at_cells(ff, "chi"), cc[0], cc[1], 0.5), exact)
        check("2D disc, chi = 0.5 contour", old["disc"], exact["disc"], H / 10, fails, worse=H / 4)

    # 3D: the sphere run of the postproc fixture, planes z = z0 and z0 + 0.3 r
    with common.FieldFile(common.field_files(sphere_run)[-1]) as ff:
        import h5py
        with h5py.File(ff.path) as h:
            assert "phi" in h, f"{ff.path}: no phi"
        hs = max(float(np.max(np.diff(ff.axis(d)[0]))) for d in range(3))
        r, c0 = 0.5, np.array([1.5, 1.5, 1.5])  # tests/postproc/fields.cmake's sphere
        for dz in (0.0, 0.3 * r):
            fig, data = fields.fields_figure(Args(), ff, "vorticity", axis=2, value=c0[2] + dz)
            drawn = [np.stack([ln.get_xdata(), ln.get_ydata()], axis=1) for ln in fig.axes[0].lines]
            plt.close(fig)
            rho = np.sqrt(r * r - dz * dz)
            t = np.linspace(0, 2 * np.pi, 100000, endpoint=False)
            ex = np.stack([c0[0] + rho * np.cos(t), c0[1] + rho * np.sin(t)], axis=1)
            check(f"3D sphere (h = {hs:g}), z = z0 + {dz:g}", drawn, ex, hs / 10, fails, h=hs)
    if fails:
        print(f"FAILED: {', '.join(fails)}")
        return 1
    print("ok: every drawn outline is the exact shape to h/10")
    return 0


if __name__ == "__main__":
    sys.exit(main())
