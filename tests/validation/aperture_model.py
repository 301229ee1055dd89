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
  lines      a continuity exact cell by cell (tried in the flow as a prototype, docs/bodies.md):
             a face whose span the wall cuts (its centre within half a span of the wall along its
             tangential line, t the signed distance in spans) gets the integral over the span's
             open part of a quadratic along that line through the wall (u = 0) and the first two
             faces out (blended C1, as t -> 0, from the one through the wall, the face and the next
             face out), less the midpoint correction L^2 P''/24 faded in as t -> 1/2, where the
             span is whole and the flux u_f h: C1 in t, and the plain weights elsewhere;
  lines+ap   the same where the line meets the wall steeply, the apertures where it grazes it
             (blended over |cos| of the line's angle to the normal from 0.2 to 0.4: as a line
             becomes tangent its chord through the body appears with an infinite derivative);
  exact      the flux through the open parts of the four faces by 16-point Gauss over each span
             (a check of the set-up: its floor of ~3e-4 in the cut cells is the quadrature's, whose
             integrand has a kink at the wall).

Prints, per radius, the residuals' rms and largest value over the cut cells and over the full
cells within 1.5 cells of the wall (with plain weights second order: they shrink as 1/R^2; the
apertures weigh open faces within two cells of the wall too). A residual that does not shrink
with R is a continuity the exact flow does not satisfy: the discrete flow must leave it there by
O(h) in its velocity, whatever the momentum equations ask. Measured (2026-11-29): the apertures'
residual is O(1) and does not shrink, in the cut cells (rms 0.064-0.099) and in the full cells
next to them (0.071-0.11), twice the plain weights' in the cut cells. With the centre off the
nodes (--offset 0.3,0.17) the lines' is first order in the cut cells (shear: rms 1.8e-3, 9.3e-4,
4.8e-4 at R = 10, 20, 40; 20-140x below the apertures') and the plain weights' in the full cells
(second order); lines+ap keeps the apertures' error where lines graze the wall (cut cells 4.3e-3
to 2.5e-3, full cells 3.0e-3 to 1.6e-3, largest ~1e-2 at every R). At the symmetric placement
(--offset 0,0, integer R) lines are tangent to the circle and the pure lines' largest residual
is O(1) in the cells where they touch.
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

    def smoothstep(z):
        z = min(max(z, 0.0), 1.0)
        return z * z * (3 - 2 * z)

    def smoother(z):
        z = min(max(z, 0.0), 1.0)
        return z**3 * (10 - 15 * z + 6 * z * z)

    def wall_on_line(a, x, y):
        """(t, side): the nearest wall along the face's tangential axis: t its distance from the face
        in cells, > 0 with the face's centre in the fluid, side the fluid's direction; None if none
        within 3 cells."""
        from scipy.optimize import brentq
        d = 1 - a
        def pt(s):
            z = np.array([x, y], float); z[d] += s; return phi(*z)
        grid = np.linspace(-3, 3, 121)
        vals = np.array([pt(g) for g in grid])
        best = None
        for k in range(120):
            if (vals[k] > 0) != (vals[k + 1] > 0):
                sw = brentq(pt, grid[k], grid[k + 1], xtol=1e-14)
                side = 1 if vals[k + 1] > 0 else -1
                if best is None or abs(sw) < abs(best[0]):
                    best = (sw, side)
        if best is None:
            return None
        sw, side = best
        z = np.array([x, y], float)
        z[d] += sw
        cosw = abs(z[d] - c[d]) / np.hypot(*(z - c))  # |d phi / d e| at the wall: the line's angle
        return -side * sw, side, cosw

    def line_flux(a, x, y, A, graze):
        """The face's mean velocity over its span by the lines scheme (the header), A its aperture;
        graze: where the line meets the wall at a grazing angle, the apertures."""
        p0 = phi(x, y)
        wl = wall_on_line(a, x, y)
        mid = vel(x, y)[a] if p0 > 0 else 0.0
        if wl is None:
            return A * mid if graze else mid
        t, side, cosw = wl
        w = smoothstep((cosw - 0.2) / 0.2) if graze else 1.0
        return w * line_part(a, x, y, t, side, mid) + (1 - w) * A * mid

    def line_part(a, x, y, t, side, mid):
        d = 1 - a
        if t >= 0.5:
            return mid
        if t <= -0.5:
            return 0.0
        def u_at(k):  # the face k cells from f towards the fluid, on the line
            z = np.array([x, y], float); z[d] += side * k; return vel(*z)[a]
        hi = t + 0.5
        def integ(nodes, vals):
            (s1, s2), (v1, v2) = nodes, vals
            M = np.array([[s1, s1 * s1], [s2, s2 * s2]])
            c1, c2 = np.linalg.solve(M, [v1, v2])
            return c1 * hi**2 / 2 + c2 * hi**3 / 3, 2 * c2
        FB, PB = integ((t + 1, t + 2), (u_at(1), u_at(2)))  # through the wall and the two faces out
        FA, PA = integ((t, t + 1), (u_at(0), u_at(1))) if t > 1e-12 else (0.0, 0.0)  # and the face
        b = smoother(t / 0.5)
        g = smoothstep(t / 0.5)
        F, P2 = b * FA + (1 - b) * FB, b * PA + (1 - b) * PB
        return F - g * P2 / 24

    def face(a, x, y):
        """(plain, apertures, lines, lines + apertures, exact) flux of the face of component a at
        (x, y) (outward +)."""
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
        return np.array([u, A * u, line_flux(a, x, y, A, False), line_flux(a, x, y, A, True), ex])

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
    names = ("plain", "apertures", "lines", "lines+ap", "exact")
    print(f"{'flow':>7} {'R':>4} {'cells':>6} " + " ".join(f"{n:>17}" for n in names))
    for kind in ("shear", "stream"):
        for R in radii:
            cut, full = residuals(kind, R, off)
            col = lambda v: f"{np.sqrt((v**2).mean()):.1e} / {np.abs(v).max():.1e}"
            for name, v in (("cut", cut), ("full", full)):
                print(f"{kind:>7} {R:4g} {name:>6} " + " ".join(f"{col(v[:, m]):>17}" for m in range(5)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
