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
"""
import math, os, sys
import h5py
import numpy as np

kind, out, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
with h5py.File(os.path.join(out, "fields", f"fields_{steps:06d}.h5"), "r") as h:
    u, v, t, dx = h["u"][...], h["v"][...], float(h.attrs["time"]), h.attrs["spacing"]
if kind == "flux":
    A, F, U, LY = map(float, sys.argv[4:8])
    expect = U * (1 + A * math.sin(2 * math.pi * F * t)) * LY
    flux = u.sum(axis=0) * dx[1]
    err = np.abs(flux - expect).max() / abs(expect)
    print(f"t = {t}: inflow flux {expect:.15f}, column fluxes {flux.min():.15f} .. {flux.max():.15f}, rel. err {err:.2e}")
    ok = err <= 1e-12
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
