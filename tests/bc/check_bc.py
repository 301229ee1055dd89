#!/usr/bin/env python3
"""Boundary data and forcing, checked on the fields of a finished `flowgrad run`.

  check_bc.py flux OUTDIR STEPS A F U LY
      inflow U(t) = U (1 + A sin(2 pi F t)) on x_lo, outflow on x_hi, walls in y: u is discretely
      divergence free, so the flux through every column of x faces equals U(t) LY at the final
      time t (read from the file) to 1e-12 relative.
  check_bc.py poiseuille OUTDIR STEPS FORCE NU LY
      periodic channel driven by a body force, run to t = 20 (the slowest transient decays as
      exp(-pi^2 nu t / LY^2), 3e-9 of the initial deficit): u equals the *discrete* steady
      solution at every face to 1e-8 relative. With the no-slip ghost u_ghost = -u_interior, the
      discrete steady solution of nu D2 u = -f is the parabola f y (LY - y) / (2 nu) plus the
      constant f h^2 / (8 nu) (the parabola satisfies the interior equations exactly, and the
      constant makes the ghost relation hold). v vanishes (<= 1e-12 of u).
  check_bc.py poiseuille_stretched OUTDIR STEPS FORCE NU LY
      the same on a stretched wall-normal grid (the faces from the file's /y_faces): u equals
      the discrete steady solution of the finite-volume operator, solved here as a tridiagonal
      system, to 1e-12 relative (run to t = 40, past the slowest mode's decay: round-off); and that
      solution is second-order close to the parabola (printed, and checked to 0.25 h_max^2 f / nu;
      the cell-centred finite-volume Laplacian on unequal cells does not hold a parabola exactly).
"""
import math, os, sys
import h5py
import numpy as np

kind, out, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
with h5py.File(os.path.join(out, "fields", f"fields_{steps:06d}.h5"), "r") as h:
    u, v, t, dx = h["u"][...], h["v"][...], float(h.attrs["time"]), h.attrs["spacing"]
    yf = h["y_faces"][...] if "y_faces" in h else None
if kind == "flux":
    A, F, U, LY = map(float, sys.argv[4:8])
    expect = U * (1 + A * math.sin(2 * math.pi * F * t)) * LY
    flux = u.sum(axis=0) * dx[1]
    err = np.abs(flux - expect).max() / abs(expect)
    print(f"t = {t}: inflow flux {expect:.15f}, column fluxes {flux.min():.15f} .. {flux.max():.15f}, rel. err {err:.2e}")
    ok = err <= 1e-12
elif kind == "poiseuille_stretched":
    FORCE, NU, LY = map(float, sys.argv[4:7])
    dxf = np.diff(yf)
    yc = 0.5 * (yf[1:] + yf[:-1])
    n = len(dxf)
    # nu/dxf_j [ (u_{j+1}-u_j)/dxc_j - (u_j-u_{j-1})/dxc_{j-1} ] = -f, ghosts -u mirrored (dxc = dxf at walls)
    dxc = np.concatenate(([dxf[0]], 0.5 * (dxf[1:] + dxf[:-1]), [dxf[-1]]))  # dxc[-1], dxc[0..n-2], dxc[n-1]
    A = np.zeros((n, n))
    for j in range(n):
        cm, cp = 1.0 / dxc[j], 1.0 / dxc[j + 1]
        A[j, j] -= (cp + cm) / dxf[j]
        if j > 0: A[j, j - 1] += cm / dxf[j]
        else: A[j, j] -= cm / dxf[j]       # ghost = -u_0
        if j < n - 1: A[j, j + 1] += cp / dxf[j]
        else: A[j, j] -= cp / dxf[j]       # ghost = -u_{n-1}
    udisc = np.linalg.solve(NU * A, -FORCE * np.ones(n))
    umax = FORCE * LY * LY / (8 * NU)
    rel = np.abs(u - udisc[:, None]).max() / umax
    vmax = np.abs(v).max()
    par = FORCE * yc * (LY - yc) / (2 * NU)
    epar = np.abs(udisc - par).max()
    bound = 0.25 * dxf.max() ** 2 * FORCE / NU  # the FV operator's second-order offset (measured 0.125 h_max^2 f / nu on 16 tanh cells)
    print(f"t = {t}: {n} stretched cells (h {dxf.min():.4g}..{dxf.max():.4g}): max|u - u_discrete| / u_max = {rel:.2e}; "
          f"max|v| = {vmax:.2e}; discrete vs parabola {epar:.2e} (bound {bound:.2e})")
    ok = rel <= 1e-12 and vmax <= 1e-12 * umax and epar <= bound
else:
    FORCE, NU, LY = map(float, sys.argv[4:7])
    ny, h = u.shape[0], dx[1]
    y = (np.arange(ny) + 0.5) * h
    udisc = FORCE * y * (LY - y) / (2 * NU) + FORCE * h * h / (8 * NU)
    umax = FORCE * LY * LY / (8 * NU)
    rel = np.abs(u - udisc[:, None]).max() / umax
    vmax = np.abs(v).max()
    print(f"t = {t}: max|u - u_discrete| / u_max = {rel:.2e} (u_max {umax}); max|v| = {vmax:.2e}")
    ok = rel <= 1e-8 and vmax <= 1e-12 * umax
print("ok" if ok else "FAIL")
sys.exit(0 if ok else 1)
