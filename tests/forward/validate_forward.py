#!/usr/bin/env python3
"""Long, on-demand validation of the forward solver (not in CTest: 11 minutes on 2 cores, more when shared).

    python3 tests/forward/validate_forward.py [--build build] [--np 2] [--out /tmp/fg-validate]
                                              [--skip-cavity] [--skip-convergence] [--quick]

(a python3 with h5py and numpy: Debian's /usr/bin/python3 after .ci/install-deps.sh)

Prints its figures and exits 1 if any of them falls outside its band:

  convergence (test_forward_convergence, the CTest program on finer grids; each checks itself):
    tg          2D Taylor-Green, dt ~ h, 32^2 .. 256^2        order >= 1.9 (max and L2, u and v)
    tg_moving   the same carried by a stream, 32^2 .. 256^2   order >= 1.9
    tg ksp      Taylor-Green with the KSP Poisson solver      order >= 1.9 (32^2 .. 128^2)
    abc         3D ABC flow, dt ~ h, 16^3 .. 128^3            order >= 1.9
    tg_moving   time only, 64^2, dt halved 4 times            order >= 2.9
    cavity      time only, 64^2, walls + lid                  order >= 2.9
    and max|div u| h/U <= 1e-10 after every projection in every run.
  lid-driven cavity, Re = 100 (flowgrad run, t = 40, 64^2, 128^2, 256^2):
    steady state: kinetic energy change over t in [35, 40] <= 1e-6 relative (256^2)
    u(x = 1/2), v(y = 1/2) within 0.01 of Ghia et al. (1982) at every point, on 128^2 and 256^2
    grid convergence of the centreline values at the Ghia points: observed order
    log2(|f64 - f128| / |f128 - f256|) (max over the points) >= 1.9; the Richardson-extrapolated
    centreline (f256 + (f256 - f128)/3) is printed against Ghia.
"""
import argparse, csv, glob, os, re, subprocess, sys, time

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from check_cavity_ghia import cubic, load_ref  # noqa: E402

failures = []


def run(cmd, log=None):
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    dt = time.time() - t0
    if log:
        with open(log, "w") as fh:
            fh.write(p.stdout)
    return p.returncode, p.stdout, dt


def convergence(args, mpiexec):
    exe = os.path.join(args.build, "tests", "test_forward_convergence")
    runs = [
        ("tg, dt ~ h", ["-problem", "tg", "-n", "32", "-steps", "20", "-levels", "4"]),
        ("tg_moving, dt ~ h", ["-problem", "tg_moving", "-n", "32", "-steps", "20", "-levels", "4"]),
        ("tg, ksp", ["-problem", "tg", "-poisson", "ksp", "-n", "32", "-steps", "20", "-levels", "3"]),
        ("abc, dt ~ h", ["-problem", "abc", "-n", "16", "-steps", "16", "-levels", "3" if args.quick else "4"]),
        ("tg_moving, time only", ["-problem", "tg_moving", "-mode", "time", "-n", "64", "-steps", "16", "-levels", "5",
                                  "-ref_levels", "4", "-min_order", "2.9"]),
        ("cavity, time only", ["-problem", "cavity", "-mode", "time", "-n", "64", "-steps", "64", "-levels", "3",
                               "-ref_levels", "5", "-min_order", "2.9"]),
    ]
    for name, opts in runs:
        code, out, dt = run(mpiexec + [exe] + opts)
        print(f"\n=== {name} ({' '.join(opts)}; {dt:.0f} s) ===")
        print("\n".join(l for l in out.splitlines() if not l.startswith(("---", "Primary", "mpiexec", "the job", "  Process", "  Exit"))))
        if code != 0:
            failures.append(f"convergence {name}: exit {code}")


def cavity_run(args, mpiexec, n, dt, T, every):
    out = os.path.join(args.out, f"cavity{n}")
    steps = int(round(T / dt))
    cmd = mpiexec + [os.path.join(args.build, "flowgrad"), "run", os.path.join(ROOT, "cases", "cavity", "cavity.yaml"),
                     "--set", f"grid.cells=[{n},{n}]", "--set", f"time.dt={dt}", "--set", f"time.steps={steps}",
                     "--set", f"output.fields_every={int(round(every / dt))}", "--set", f"output.monitor_every={int(round(0.5 / dt))}",
                     "--set", f"output.dir={out}"]
    code, log, wall = run(cmd, os.path.join(args.out, f"cavity{n}.log"))
    m = re.search(r"flowgrad run: (\d+) steps in ([0-9.]+) s, ([0-9.e+]+) cell-steps/s", log)
    print(f"cavity {n}^2: dt {dt}, {steps} steps to t = {T}: exit {code}, " + (f"{m.group(2)} s, {m.group(3)} cell-steps/s" if m else f"{wall:.0f} s"))
    if code != 0:
        failures.append(f"cavity {n}^2 run: exit {code} (log {out}.log)")
        return None
    return out, steps


def centrelines(path):
    with h5py.File(path, "r") as f:
        u, v, t = f["u"][...], f["v"][...], float(f.attrs["time"])
    n = u.shape[1]
    pos = np.r_[0.0, (np.arange(n) + 0.5) / n, 1.0]
    return pos, np.r_[0.0, u[:, n // 2 - 1], 1.0], np.r_[0.0, v[n // 2 - 1, :], 0.0], t


def cavity(args, mpiexec):
    ref = os.path.join(HERE, "reference")
    gu = load_ref(os.path.join(ref, "ghia1982_re100_u_centerline.csv"))
    gv = load_ref(os.path.join(ref, "ghia1982_re100_v_centerline.csv"))
    # dt: CFL <= 0.2 and diffusion number nu dt 8/h^2 <= 2.1 (RK3 is stable to 2.51 on the real axis)
    T = 40.0
    grids = [(64, 2e-3), (128, 1.25e-3), (256, 4e-4)]
    if args.quick:
        grids, T = [(32, 4e-3), (64, 2e-3), (128, 1.25e-3)], 20.0
    vals = {}
    print(f"\n=== lid-driven cavity, Re = 100, to t = {T:g} ({args.np} ranks) ===")
    for n, dt in grids:
        r = cavity_run(args, mpiexec, n, dt, T, 5.0)
        if r is None:
            continue
        out, steps = r
        files = sorted(glob.glob(os.path.join(out, "fields", "fields_*.h5")))
        pos, uc, vc, t = centrelines(files[-1])
        vals[n] = (np.array([cubic(pos, uc, y) for y in gu[:, 0]]), np.array([cubic(pos, vc, x) for x in gv[:, 0]]))
        # steadiness: kinetic energy and the fields between t - 5 and t
        with open(os.path.join(out, "history.csv")) as fh:
            rows = list(csv.DictReader(fh))
        tt = np.array([float(r["time"]) for r in rows])
        ke = np.array([float(r["kinetic_energy"]) for r in rows])
        div = max(float(r["max_div"]) for r in rows)
        k0 = int(np.searchsorted(tt, tt[-1] - 5.0 - 1e-9))
        dke = abs(ke[-1] - ke[k0]) / ke[-1]
        times = []
        for fn in files:
            with h5py.File(fn) as f:
                times.append(float(f.attrs["time"]))
        prev = files[int(np.argmin(np.abs(np.array(times) - (t - 5.0))))]
        with h5py.File(prev) as f0, h5py.File(files[-1]) as f1:
            du = max(np.abs(f1[c][...] - f0[c][...]).max() for c in ("u", "v"))
            t0 = float(f0.attrs["time"])
        du_ghia, dv_ghia = np.abs(vals[n][0] - gu[:, 1]).max(), np.abs(vals[n][1] - gv[:, 1]).max()
        print(f"  {n}^2: t = {t:g}; KE {ke[-1]:.8e}, relative KE change over [{tt[k0]:g}, {tt[-1]:g}] {dke:.2e}, "
              f"max|u(t) - u({t0:g})| {du:.2e}; max|div u| h/U {div:.2e}; max|u - Ghia| {du_ghia:.4f}, max|v - Ghia| {dv_ghia:.4f}")
        if not div <= 1e-10:
            failures.append(f"cavity {n}^2: max|div u| {div:.2e} > 1e-10")
        if n >= 128 and not (du_ghia <= 0.01 and dv_ghia <= 0.01):
            failures.append(f"cavity {n}^2: max|u - Ghia| {du_ghia:.4f}, max|v - Ghia| {dv_ghia:.4f} (band 0.01)")
        if n == max(g for g, _ in grids) and not dke <= 1e-6:
            failures.append(f"cavity {n}^2: not steady, relative KE change {dke:.2e} over the last 5 time units (band 1e-6)")
    ns = sorted(vals)
    if len(ns) == 3:
        a, b, c = ns
        print(f"\n  centreline values at the Ghia points on {a}^2, {b}^2, {c}^2 (cubic interpolation, exact x = 1/2, y = 1/2):")
        for k, (g, name, coord) in enumerate(((gu, "u", "y"), (gv, "v", "x"))):
            fa, fb, fc = vals[a][k], vals[b][k], vals[c][k]
            rich = fc + (fc - fb) / 3.0
            print(f"  {coord:>7} {'Ghia':>9} {str(a) + '^2':>9} {str(b) + '^2':>9} {str(c) + '^2':>9} {'Richardson':>10} {'Rich-Ghia':>9}")
            for i in range(len(g)):
                print(f"  {g[i, 0]:7.4f} {g[i, 1]:9.5f} {fa[i]:9.5f} {fb[i]:9.5f} {fc[i]:9.5f} {rich[i]:10.5f} {rich[i] - g[i, 1]:9.5f}")
            d1, d2 = np.abs(fa - fb).max(), np.abs(fb - fc).max()
            order = np.log2(d1 / d2)
            print(f"  {name}: max|f{a} - f{b}| = {d1:.2e}, max|f{b} - f{c}| = {d2:.2e}: observed order {order:.2f} (band >= 1.9); "
                  f"max|{name}_{c} - Ghia| {np.abs(fc - g[:, 1]).max():.4f}, max|{name}_Richardson - Ghia| {np.abs(rich - g[:, 1]).max():.4f}\n")
            if not order >= 1.9:
                failures.append(f"cavity: centreline {name} converges at order {order:.2f} < 1.9")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--out", default="/tmp/fg-validate")
    ap.add_argument("--mpiexec", default="mpiexec --allow-run-as-root --oversubscribe")
    ap.add_argument("--skip-cavity", action="store_true")
    ap.add_argument("--skip-convergence", action="store_true")
    ap.add_argument("--quick", action="store_true", help="smaller grids (a few minutes), for trying the script")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    os.makedirs(args.out, exist_ok=True)
    mpiexec = args.mpiexec.split() + ["-n", str(args.np)]
    t0 = time.time()
    if not args.skip_convergence:
        convergence(args, mpiexec)
    if not args.skip_cavity:
        cavity(args, mpiexec)
    print(f"\nvalidate_forward: {time.time() - t0:.0f} s")
    if failures:
        print("OUTSIDE THE BAND:\n  " + "\n  ".join(failures))
        return 1
    print("every figure inside its band")
    return 0


if __name__ == "__main__":
    sys.exit(main())
