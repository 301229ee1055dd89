#!/usr/bin/env python3
"""How consistent is a sharp wall's cut-cell continuity, cell by cell? (issue 21; docs/bodies.md,
"What causes it"): not flowgrad, a check of the continuity's weights on an exact flow, in seconds.

  aperture_model.py [--radii 10,20,40] [--offset OX,OY]

A circle of radius R cells on a unit MAC grid (its centre at OX, OY cells from a corner of the
cells), and an exactly divergence-free field that vanishes on it:

  shear    u = phi t (phi the distance from the wall, t the unit tangent): a wall shear flow;
  stream   u = curl psi, psi = phi^2 sin(theta): a flow around the body with a varying shear.

For every cell the wall cuts, the flux out of it through its four faces as the projection's
divergence weighs them, in units of the wall shear times a cell's area (so that a residual of
order 1 is an O(1) error in that cell's divergence):

  plain      u_f h on the faces outside, 0 on those inside (they hold the body's velocity);
  apertures  A_f u_f h with flowgrad's apertures (src/body/aperture.c: A(t), t the face's distance
             from the wall along its tangential axis over the centred difference of phi there),
             exact for the flux of a column of faces but not of each cell;
  exact      the flux through the open parts of the four faces, integrated (the divergence
             theorem: 0 up to the quadrature, a check of the set-up).

Prints, per radius, the residuals' rms and largest value over the cut cells and over the full
cells within 1.5 cells of the wall (with plain weights second order: they shrink as 1/R^2; the
apertures weigh open faces within two cells of the wall too). A residual that does not shrink
with R is a continuity the exact flow does not satisfy: the discrete flow must leave it there by
O(h) in its velocity, whatever the momentum equations ask. Measured (2026-11-29): the apertures'
residual is O(1) and does not shrink, in the cut cells (rms 0.064-0.099) and in the full cells
next to them (0.071-0.11), twice the plain weights' in the cut cells.
"""
import argparse, sys

import numpy as np


def aperture(t):
    """flowgrad's A(t) (src/body/aperture.c), t >= 0."""
    if t >= 2:
        return 1.0
    if t <= 1:
        return t * (15 / 8 - 0.75 * t)
    s = t - 1
    return (t + 0.75 * s**3 - 11 / 8 * s**2 + 0.5 * s + 0.125) / t


def field(kind, R, c):
    def phi(x, y):
        return np.hypot(x - c[0], y - c[1]) - R

    def vel(x, y):
        rho = np.hypot(x - c[0], y - c[1])
        f, nx, ny = rho - R, (x - c[0]) / rho, (y - c[1]) / rho
        if kind == "shear":
            return np.array([-f * ny, f * nx])
        # psi = f^2 sin(theta) = f^2 ny; u = (d psi/dy, -d psi/dx)
        dpx = 2 * f * nx * ny + f * f * (-nx * ny / rho)
        dpy = 2 * f * ny * ny + f * f * (nx * nx / rho)
        return np.array([dpy, -dpx])

    return phi, vel


def residuals(kind, R, off):
    c = np.array(off, float)
    phi, vel = field(kind, R, c)
    n = int(np.ceil(R)) + 3
    q = np.polynomial.legendre.leggauss(16)

    def face(a, x, y):
        """(plain, apertures, exact) flux of the face of component a at (x, y) (outward +)."""
        p, d = phi(x, y), 1 - a
        e = np.zeros(2)
        e[d] = 1.0
        dp = abs(phi(x + e[0], y + e[1]) - phi(x - e[0], y - e[1]))
        A = aperture(abs(2 * p / dp)) if dp > 0 else 1.0
        u = vel(x, y)[a] if p > 0 else 0.0
        ex = 0.0
        for s, w in zip(*q):  # the open part's flux, Gauss over the face's span
            z = np.array([x, y])
            z[d] += 0.5 * s
            if phi(*z) > 0:
                ex += 0.5 * w * vel(*z)[a]
        return np.array([u, A * u, ex])

    cut, full = [], []
    for i in range(-n, n):
        for j in range(-n, n):
            x, y = i + 0.5, j + 0.5
            corners = [phi(x + sx, y + sy) for sx in (-0.5, 0.5) for sy in (-0.5, 0.5)]
            if max(corners) <= 0 or min(corners) > 1.5:
                continue
            r = face(0, x + 0.5, y) - face(0, x - 0.5, y) + face(1, x, y + 0.5) - face(1, x, y - 0.5)
            (cut if min(corners) < 0 else full).append(r)
    return np.array(cut), np.array(full)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--radii", default="10,20,40")
    ap.add_argument("--offset", default="0,0")
    a = ap.parse_args()
    try:
        radii = [float(r) for r in a.radii.split(",")]
        off = [float(o) for o in a.offset.split(",")]
    except ValueError:
        ap.error(f"--radii and --offset take numbers separated by commas (got {a.radii!r}, {a.offset!r})")
    if len(off) != 2 or not all(3 <= r <= 80 for r in radii):
        ap.error("--offset takes two numbers and every radius must be within [3, 80] cells")
    print("flux out of each cell for an exact divergence-free flow, in wall shear x cell area: rms / largest")
    print(f"{'flow':>7} {'R':>4} {'cut cells':>10} {'plain':>17} {'apertures':>17} {'exact':>17} {'full cells: plain':>19} {'apertures':>17}")
    for kind in ("shear", "stream"):
        for R in radii:
            cut, full = residuals(kind, R, off)
            col = lambda v: f"{np.sqrt((v**2).mean()):.1e} / {np.abs(v).max():.1e}"
            print(f"{kind:>7} {R:4g} {len(cut):10d} {col(cut[:, 0]):>17} {col(cut[:, 1]):>17} {col(cut[:, 2]):>17} {col(full[:, 0]):>19} {col(full[:, 1]):>17}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
