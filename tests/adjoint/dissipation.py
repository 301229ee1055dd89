#!/usr/bin/env python3
"""The dissipation objective against physics (tests/adjoint/tests.cmake).

At a steady state the net inflow of mechanical energy through the boundary, the objective
P = -sum (p + |u|^2/2) u.n dA over the inflow and outflow faces, equals the power the flow
dissipates: viscous, nu int |grad u|^2 dV (plus the viscous work at the open faces, 0 for a
fully developed flow), and Brinkman, sum chi/eta |u - u_s|^2 dV over the faces. `flowgrad adjoint`
in steady mode (Newton to |F(x) - x| <= 1e-10 |x|) gives P (gradient.csv) and the steady fields
(steady.h5), from which this script computes the dissipation independently.

1. Plane Poiseuille flow (tests/adjoint/dissipation_channel.yaml: 4 x 1, walls, parabolic inflow
   with mean speed U = 1, outflow, nu = 0.05): P against the exact 12 nu U^2 L / H = 2.4 on three
   grids. Measured relative errors -1.52e-2 (32 x 8), -3.92e-3 (64 x 16), -9.83e-4 (128 x 32):
   second order (observed 1.96, 2.00), from the discrete steady profile (the inflow parabola is
   the exact one, the walls' ghost rule is second order). Asserted: order >= 1.8 for both pairs,
   |error| <= 1.2e-3 on the finest grid. The viscous volume integral of the same fields agrees
   with P to 2.0e-4, 5.1e-5, 8.8e-6 (asserted: <= 3e-4, decreasing by >= 3x per refinement).
2. A cylinder in the channel (tests/adjoint/dissipation_cylinder.yaml: Re 10, the Brinkman mask
   of the case, eta 1e-4): P against the viscous plus the Brinkman dissipation, on 64 x 16 and
   128 x 32. Measured |P - D| / P = 1.03e-3, 2.65e-4 (and 7.2e-5 on 256 x 64, not run here: 12 s),
   second order; the Brinkman part is 3.9 % and 1.7 % of P. Asserted: <= 1.5e-3 and <= 4e-4, and
   a ratio >= 3 between the two.

The volume integral: du_a/dx_a at the cell centres; du_a/dx_b (a != b) at the cell edges, from the
boundary rules of the solver (walls: the ghost is minus the interior; the inflow parabola on the
inflow face; zero gradient at the outflow); edges on the boundary count half (trapezoid).
"""
import argparse
import math
import os
import re
import subprocess
import sys

import h5py
import numpy as np


def run(args, case, outdir, sets):
    cmd = [args.flowgrad, "adjoint", case, "--set", "output.dir=" + outdir] + sum((["--set", s] for s in sets), []) + ["-fg_fftw_planner", "estimate"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.exit("FAIL: %s exited %d:\n%s" % (" ".join(cmd), r.returncode, r.stdout[-3000:]))
    with open(os.path.join(outdir, "gradient.csv")) as f:
        for line in f:
            m = re.match(r"# objective power = (\S+)", line)
            if m:
                return float(m.group(1))
    sys.exit("FAIL: no objective power in %s/gradient.csv" % outdir)


def resolved_body(outdir):
    """position, radius, mask_width, mask_offset, eta of the case's one body (case.resolved.yaml)."""
    text = open(os.path.join(outdir, "case.resolved.yaml")).read()
    body = text[text.index("\nbody:\n"):]
    def get(key):
        return re.search(r"\n    %s: (.+)" % key, body).group(1)
    pos = [float(x) for x in get("position").strip("[]").split(",")]
    return pos, float(get("radius")), float(get("mask_width")), float(get("mask_offset")), float(get("eta"))


def heaviside(s, eps):
    """The solver's C^2 quintic smoothed Heaviside (src/body/shape.c)."""
    r = np.clip(s / eps, -1.0, 1.0)
    return 0.5 + r * (15.0 / 16 + r * r * (-5.0 / 8 + r * r * 3.0 / 16))


def dissipation(outdir, nu, peak, body=None):
    """Viscous (and Brinkman) dissipation of steady.h5: walls at y, a parabolic inflow of peak
    `peak` at x_lo, an outflow at x_hi."""
    with h5py.File(os.path.join(outdir, "steady.h5"), "r") as f:
        u, v = f["u"][...], f["v"][...]
        x0, h = f.attrs["origin"], f.attrs["spacing"]
    ny, nx = u.shape
    hx, hy = h[0], h[1]
    yc = x0[1] + (np.arange(ny) + 0.5) * hy
    s = (yc - x0[1]) / (ny * hy)
    ue = np.hstack([(peak * 4 * s * (1 - s))[:, None], u])  # u on the x faces, the inflow face first
    ve = np.vstack([np.zeros((1, nx)), v])                   # v on the y faces, the wall first
    half = lambda n: np.r_[0.5, np.ones(n - 2), 0.5]
    D = np.sum(((ue[:, 1:] - ue[:, :-1]) / hx) ** 2 + ((ve[1:] - ve[:-1]) / hy) ** 2) * hx * hy
    ug = np.vstack([-ue[:1], ue, -ue[-1:]])                  # walls: ghost = -interior
    D += np.sum(((ug[1:] - ug[:-1]) / hy) ** 2 * half(ny + 1)[:, None] * half(nx + 1)[None, :]) * hx * hy
    vg = np.hstack([-ve[:, :1], ve, ve[:, -1:]])             # inflow: v = 0 there; outflow: zero gradient
    D += np.sum(((vg[:, 1:] - vg[:, :-1]) / hx) ** 2 * half(ny + 1)[:, None] * half(nx + 1)[None, :]) * hx * hy
    D *= nu
    B = 0.0
    if body:
        (cx, cy), r, width, offset, eta = body
        eps = 0.5 * width * max(hx, hy)
        for a, w in ((0, u), (1, v)):
            xs = x0[0] + (np.arange(nx) + (1.0 if a == 0 else 0.5)) * hx
            ys = x0[1] + (np.arange(ny) + (0.5 if a == 0 else 1.0)) * hy
            X, Y = np.meshgrid(xs, ys)
            chi = heaviside(-(np.hypot(X - cx, Y - cy) - r) - offset * eps, eps)
            B += np.sum(chi / eta * w ** 2) * hx * hy
    return D, B


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flowgrad", required=True)
    ap.add_argument("--channel", required=True)
    ap.add_argument("--cylinder", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    failed = []

    def check(cond, msg):
        print(("ok    " if cond else "FAIL  ") + msg)
        if not cond:
            failed.append(msg)

    # 1. Poiseuille: P = 12 nu U^2 L / H
    nu, U, L, H = 0.05, 1.0, 4.0, 1.0
    exact = 12 * nu * U * U * L / H
    errs, gaps = [], []
    for nx, ny, dt, steps in ((32, 8, 0.01, 200), (64, 16, 0.0025, 800), (128, 32, 0.0006, 2000)):
        out = os.path.join(args.workdir, "poiseuille_%d" % nx)
        P = run(args, args.channel, out, ["grid.cells=[%d,%d]" % (nx, ny), "time.dt=%g" % dt, "time.steps=%d" % steps])
        D, _ = dissipation(out, nu, 1.5 * U)
        errs.append(P / exact - 1)
        gaps.append(abs(P - D) / P)
        print("poiseuille %4d x %-3d P = %.10f  exact %.10f  error %+.3e   viscous %.10f  |P - D|/P %.2e" % (nx, ny, P, exact, errs[-1], D, gaps[-1]))
    for i in range(2):
        order = math.log2(abs(errs[i]) / abs(errs[i + 1]))
        check(order >= 1.8, "Poiseuille: order %.2f >= 1.8 (grids %d, %d)" % (order, 32 << i, 64 << i))
        check(gaps[i + 1] * 3 <= gaps[i], "Poiseuille: |P - viscous| shrinks by >= 3 (%.2e -> %.2e)" % (gaps[i], gaps[i + 1]))
    check(abs(errs[-1]) <= 1.2e-3, "Poiseuille: |P / exact - 1| = %.2e <= 1.2e-3 on 128 x 32" % abs(errs[-1]))
    check(gaps[0] <= 3e-4, "Poiseuille: |P - viscous| / P = %.2e <= 3e-4 on 32 x 8" % gaps[0])

    # 2. a cylinder: P = viscous + Brinkman
    gaps = []
    for nx, ny, dt, steps, tol in ((64, 16, 0.04, 100, 1.5e-3), (128, 32, 0.01, 400, 4e-4)):
        out = os.path.join(args.workdir, "cylinder_%d" % nx)
        P = run(args, args.cylinder, out, ["grid.cells=[%d,%d]" % (nx, ny), "time.dt=%g" % dt, "time.steps=%d" % steps])
        D, B = dissipation(out, 0.05, 1.5, resolved_body(out))
        gaps.append(abs(P - D - B) / P)
        print("cylinder   %4d x %-3d P = %.10f  viscous %.10f + Brinkman %.10f = %.10f  |P - D|/P %.2e" % (nx, ny, P, D, B, D + B, gaps[-1]))
        check(gaps[-1] <= tol, "cylinder %d x %d: |P - (viscous + Brinkman)| / P = %.2e <= %g" % (nx, ny, gaps[-1], tol))
    check(gaps[1] * 3 <= gaps[0], "cylinder: the difference shrinks by >= 3 (%.2e -> %.2e)" % (gaps[0], gaps[1]))

    if failed:
        sys.exit("FAIL: %d of the checks" % len(failed))
    print("dissipation: all checks passed")


if __name__ == "__main__":
    main()
