#!/usr/bin/env python3
"""A scalar model of a sharp wall's ghosts (issue 21; docs/bodies.md, "Crossings in a scalar
model"): not flowgrad, a 2D Laplace problem small enough to try a wall treatment in seconds.

  ghost_model.py [--radius R] [--points N] [--orders] [--check]

The problem: Laplace's equation outside a circle of radius r (in cells), u = 0 on it, the exact
solution u = ln(rho/r) + c (rho^2 - r^4/rho^2)/r^2 cos(2 psi) (c = 0.5: a flow-like variation
along the wall) on a square ring of nodes 3 r from the centre. The nodes sit at ((i + ox),
(j + oy)) cells from the centre; (0, 0.5) is the placement of a cylinder centred on a corner of
the MAC grid's cells, as seen by its x-faces (the worst case of the radius sweep). The flux into
the body, F (the discrete flux through the ring: the discrete Laplacian is conservative), is 2 pi
for every r, so F/2pi - 1 and dF/dr are the scheme's errors alone; dF/dr by central differences
(the model is linear and solved directly).

Two wall treatments:

  axis      flowgrad's sharp wall with quadratic ghosts (src/body/mask.c): a node outside whose
            neighbour along an axis lies inside sees, in place of that neighbour, the quadratic
            through the wall (at the level set's linear root along the axis), the node and the
            next node out (the linear ghost where that lies inside). Each direction has its own
            ghost, so a node's neighbours see different extrapolations once it crosses the
            surface.
  shared    one ghost value per inside node G: u_G = sum_d w_d Q_d(phi_G), Q_d the quadratic in
            the level set through the wall (phi = 0) and the first two nodes out from G along
            axis d (outward: the sign of the normal's component), w_d proportional to n_d^2 s(t),
            t = phi of the first node out in cells, s(t) = t^2 (3 - 2 t) up to 1 (the weight
            vanishes, C1, as that node reaches the wall), normalized. A node F outside within a
            cell of the wall is also penalized towards the same profile,
            P (u_F - sum_d w_d Q_d(phi_F)), P = (h/phi_F)^2 (1 - phi_F/h)^2 / h^2: faster than
            1/phi, so that as F reaches the wall its value follows that profile to second order,
            and its neighbours see the same value and slope before and after it crosses.

Prints F's error and its slope's jump across the crossings of the radius range, and a sweep
(deviation from a cubic fit and the slope's error against the fit's slope). --orders: also F's
mean error over four radii per cell at radii R, 2R and 4R (up to 40 cells) and its observed
order, for both. --check: exit 1 unless the shared ghost's largest jump is under a tenth of the
axis ghosts' (the property the model is here to show) and, with --orders, unless its finest
observed order is at least 1.8 (the penalty of the nodes outside keeps the model second order).
"""
import argparse, sys, warnings

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl

C = 0.5   # the cos(2 psi) part of the exact solution
RING = 3.0  # the Dirichlet ring's half-width, in radii


def exact(X, Y, r):
    rho = np.hypot(X, Y)
    return np.log(rho / r) + C * (rho**2 - r**4 / rho**2) / r**2 * (X * X - Y * Y) / rho**2


def flux(r, scheme, ox=0.0, oy=0.5):
    """F for a circle of radius r (cells): the discrete flux through the Dirichlet ring."""
    n = int(np.ceil(RING * r))
    I = np.arange(-n, n + 1)
    X, Y = np.meshgrid(I + ox, I + oy, indexing="ij")
    rho = np.hypot(X, Y)
    phi, nrm = rho - r, (X / rho, Y / rho)
    inside = phi < 0
    ring = np.zeros_like(inside)
    ring[0, :] = ring[-1, :] = ring[:, 0] = ring[:, -1] = True
    unk = ~inside & ~ring
    idx = -np.ones(X.shape, int)
    idx[unk] = np.arange(unk.sum())
    ue = exact(X, Y, r)
    rows, cols, vals, rhs = [], [], [], np.zeros(unk.sum())

    def add(k, coef, node):
        if ring[node]:
            rhs[k] -= coef * ue[node]
        else:
            rows.append(k), cols.append(idx[node]), vals.append(coef)

    def profile(node, pt):
        """sum_d w_d Q_d(pt) at node as (coefficient, node) pairs (shared)."""
        i, j = node
        terms, wsum = [], 0.0
        for d in range(2):
            s = 1 if nrm[d][node] > 0 else -1
            n1 = (i + s, j) if d == 0 else (i, j + s)
            n2 = (i + 2 * s, j) if d == 0 else (i, j + 2 * s)
            p1, p2 = phi[n1], phi[n2]
            if p1 <= 0 or p2 <= 0:
                continue
            t = min(p1, 1.0)
            wd = nrm[d][node] ** 2 * t * t * (3 - 2 * t)
            wsum += wd
            terms += [(wd * pt * (p2 - pt) / (p1 * (p2 - p1)), n1), (wd * pt * (pt - p1) / (p2 * (p2 - p1)), n2)]
        return [(cf / wsum, nd) for cf, nd in terms] if wsum > 0 else []

    for node in zip(*np.nonzero(unk)):
        i, j = node
        k, diag = idx[node], 0.0
        for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nb = (i + di, j + dj)
            diag -= 1
            if not inside[nb]:
                add(k, 1.0, nb)
            elif scheme == "shared":
                for cf, nd in profile(nb, phi[nb]):
                    add(k, cf, nd)
            else:  # axis: the ghost through the wall, the node and the next node out
                th = phi[node] / (phi[node] - phi[nb])
                ff = (i - di, j - dj)
                if not inside[ff]:
                    diag -= 2 * (1 - th) / th
                    add(k, (1 - th) / (1 + th), ff)
                else:
                    diag -= (1 - th) / th
        if scheme == "shared" and phi[node] < 1:
            P = (1 / phi[node]) ** 2 * (1 - phi[node]) ** 2
            diag -= P
            for cf, nd in profile(node, phi[node]):
                add(k, P * cf, nd)
        rows.append(k), cols.append(k), vals.append(diag)
    A = sp.csr_matrix((vals, (rows, cols)), shape=(unk.sum(),) * 2)
    u = ue.copy()
    u[inside] = 0
    u[unk] = spl.spsolve(A, rhs)
    F, N = 0.0, X.shape[0]
    for i, j in zip(*np.nonzero(ring)):
        for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            a, b = i + di, j + dj
            if 0 <= a < N and 0 <= b < N and unk[a, b]:
                F += ue[i, j] - u[a, b]
    return F


def crossings(lo, hi, ox=0.0, oy=0.5):
    """The radii in (lo, hi) at which nodes cross the surface (one per distinct distance)."""
    n = int(np.ceil(hi)) + 1
    I = np.arange(-n, n + 1)
    R = np.unique(np.round(np.hypot(*np.meshgrid(I + ox, I + oy)), 9).ravel())
    return R[(R > lo) & (R < hi)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--radius", type=float, default=5.0, help="the range's lower radius, in cells (one cell up)")
    ap.add_argument("--points", type=int, default=21)
    ap.add_argument("--orders", action="store_true")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if not 3 <= a.radius <= 40 or a.points < 5:
        ap.error("--radius must be within [3, 40] cells and --points at least 5")
    warnings.filterwarnings("ignore")
    d, e, lo = 1e-5, 3e-4, a.radius
    slope = lambda r, s: (flux(r + d, s) - flux(r - d, s)) / (2 * d) / (2 * np.pi)
    big = {}
    print(f"radius {lo:g} to {lo + 1:g} cells, nodes at (i, j + 1/2) from the centre; dF/dr per cell, of F = 2 pi")
    print(f"{'crossing r':>12} {'axis: slope before':>19} {'after':>9} {'jump':>9} {'shared: before':>15} {'after':>9} {'jump':>9}")
    for rc in crossings(lo, lo + 1):
        row = []
        for s in ("axis", "shared"):
            b, f = slope(rc - e, s), slope(rc + e, s)
            big[s] = max(big.get(s, 0), abs(f - b))
            row += [b, f, f - b]
        print(f"{rc:12.6f} {row[0]:+19.5f} {row[1]:+9.5f} {row[2]:+9.5f} {row[3]:+15.5f} {row[4]:+9.5f} {row[5]:+9.5f}")
    print(f"largest jump: axis {big['axis']:.5f}, shared {big['shared']:.5f}")
    rs = np.linspace(lo, lo + 1, a.points) + 1e-4  # off the crossings
    print(f"\nsweep of {a.points} radii: F's error, its deviation from a cubic fit, dF/dr against the fit's slope (per cell, of 2 pi)")
    for s in ("axis", "shared"):
        err = np.array([flux(r, s) for r in rs]) / (2 * np.pi) - 1
        g = np.array([slope(r, s) for r in rs])
        p = np.polyfit(rs, err, 3)
        print(f"  {s:7s} mean error {err.mean():+.2e}  deviation {np.abs(err - np.polyval(p, rs)).max():.2e}  slope error {np.abs(g - np.polyval(np.polyder(p), rs)).max():.5f}")
    order = {}
    if a.orders:
        levels = [lo * k for k in (1, 2, 4) if lo * k <= 40]
        if len(levels) < 2:
            ap.error("--orders needs --radius of at most 20 cells")
        print(f"\nF's mean error over 4 radii per cell (off the crossings) at radii {', '.join(f'{x:g}' for x in levels)} cells, and the observed order")
        for s in ("axis", "shared"):
            m = [np.mean([flux(r, s) for r in R + np.linspace(0, 1, 5)[:-1] + 1e-4]) / (2 * np.pi) - 1 for R in levels]
            o = [np.log2(abs(m[k] / m[k + 1])) for k in range(len(m) - 1)]
            order[s] = o[-1]
            print(f"  {s:7s} " + "  ".join(f"{x:+.3e}" for x in m) + "   orders " + " ".join(f"{x:.2f}" for x in o))
    if a.check and not big["shared"] < 0.1 * big["axis"]:
        print("ghost_model: the shared ghost's jumps are not under a tenth of the axis ghosts'")
        return 1
    if a.check and a.orders and not order["shared"] >= 1.8:
        print(f"ghost_model: the shared ghost's observed order {order['shared']:.2f} is under 1.8")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
