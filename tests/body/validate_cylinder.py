#!/usr/bin/env python3
"""Long, on-demand validation of the penalized cylinder (issue 4; not in CTest: 77 minutes on 2 shared cores).

    python3 tests/body/validate_cylinder.py [--build build] [--np 2] [--out /tmp/fg-cylinder]
                                            [--skip-re40] [--skip-re100] [--quick]

(a python3 with h5py and numpy: Debian's /usr/bin/python3 after .ci/install-deps.sh)

Runs cases/cylinder_re40 and cases/cylinder_re100 (D = 1 in a 32 x 40 channel, blockage 2.5 %)
with `flowgrad run --set` on several grids and penalization parameters, prints a table per case
and exits 1 if a figure of the finest grid with the default eta falls outside its band:

  Re = 40, t = 60 (steady: Cd changes by < 1e-3 over the last 10 D/U):
      drag coefficient Cd in [1.48, 1.62], recirculation length L/D in [2.0, 2.5]
  Re = 100, t = 160, statistics over t >= 100 (periodic shedding):
      Strouhal number St in [0.160, 0.172], mean Cd in [1.28, 1.42]
  both: the control-volume drag agrees with the penalty drag to 1 %.

Grids: h = D/16, D/24, D/32 (dt = 0.3 h/U); eta = 1e-3, 1e-4 (default), 1e-5 on D/16 (Re = 40).
--quick: D/16 and D/24 only, no eta study.
"""
import argparse, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STATS = os.path.join(ROOT, "postproc", "body_stats.py")
failures = []


def run(cmd, log):
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(log, "w") as fh:
        fh.write(p.stdout)
    return p.returncode, p.stdout, time.time() - t0


def stats(args):
    p = subprocess.run([sys.executable, STATS] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    vals = {}
    for line in p.stdout.splitlines():
        if " = " in line:
            k, v = line.split(" = ", 1)
            try:
                vals[k.strip()] = float(v.split()[0])
            except ValueError:
                vals[k.strip()] = v
    return p.returncode, vals, p.stdout


def flowgrad(a, case, n, eta, tend, tag, extra=()):
    h = 1.0 / n
    dt = 0.3 * h
    steps = int(round(tend / dt))
    out = os.path.join(a.out, tag)
    cmd = ["mpiexec", "--allow-run-as-root", "--oversubscribe", "-n", str(a.np), os.path.join(a.build, "flowgrad"), "run",
           os.path.join(ROOT, "cases", case, case + ".yaml"),
           "--set", "grid.cells=[%d,%d]" % (32 * n, 40 * n), "--set", "time.dt=%.17g" % dt, "--set", "time.steps=%d" % steps,
           "--set", "body.cyl.eta=%g" % eta, "--set", "output.dir=" + out, "--set", "output.monitor_every=%d" % max(1, steps // 20)]
    cmd += list(extra)
    rc, text, secs = run(cmd, out + ".log")
    if rc != 0:
        failures.append("%s: flowgrad exited %d (log %s.log)" % (tag, rc, out))
    return out, secs


def check(name, value, lo, hi):
    ok = lo <= value <= hi
    print("    %-28s %.4f in [%g, %g]: %s" % (name, value, lo, hi, "ok" if ok else "OUTSIDE"))
    if not ok:
        failures.append("%s = %.4f outside [%g, %g]" % (name, value, lo, hi))


def re40(a, grids, etas):
    print("Re = 40, t = 60 (Cd: last step; L/D from the final fields)")
    print("    %-6s %-7s %9s %9s %9s %9s %8s" % ("h", "eta", "Cd", "Cd_cv", "cv/pen-1", "L/D", "wall s"))
    res = {}
    for n, eta in [(n, 1e-4) for n in grids] + [(16, e) for e in etas if e != 1e-4]:
        tag = "re40_n%d_eta%g" % (n, eta)
        out, secs = flowgrad(a, "cylinder_re40", n, eta, 60.0, tag)
        rc, f, _ = stats(["forces", out, "--body", "cyl", "--from", "50", "--steady", "1e-3"])
        if rc:
            failures.append("%s: not steady (Cd drift %.2e over t in [50, 60])" % (tag, f.get("cd_drift", -1)))
        rc2, w, _ = stats(["wake", out, "--body", "cyl", "--center", "10,20", "--diameter", "1"])
        cd, ld = f.get("cd_last", float("nan")), w.get("ld", float("nan"))
        print("    D/%-4d %-7g %9.4f %9.4f %9.1e %9.4f %8.0f" % (n, eta, cd, cd * (1 + f.get("cv_vs_penalty", 0)), f.get("cv_vs_penalty", float("nan")), ld, secs))
        res[(n, eta)] = (cd, ld, f.get("cv_vs_penalty", 1))
    fin = res[(grids[-1], 1e-4)]
    print("  finest grid D/%d, eta 1e-4:" % grids[-1])
    check("Re40 Cd", fin[0], 1.48, 1.62)
    check("Re40 L/D", fin[1], 2.0, 2.5)
    check("Re40 |Cd_cv/Cd - 1|", fin[2], 0, 0.01)


def re100(a, grids):
    print("Re = 100, t = 160 (statistics over t >= 100)")
    print("    %-6s %9s %9s %9s %9s %8s" % ("h", "St", "mean Cd", "Cl ampl", "cv/pen-1", "wall s"))
    res = {}
    for n in grids:
        tag = "re100_n%d" % n
        out, secs = flowgrad(a, "cylinder_re100", n, 1e-4, 160.0, tag)
        rc, f, _ = stats(["forces", out, "--body", "cyl", "--from", "100"])
        st, cd = f.get("st", float("nan")), f.get("cd_mean", float("nan"))
        print("    D/%-4d %9.4f %9.4f %9.4f %9.1e %8.0f" % (n, st, cd, f.get("cl_amplitude", float("nan")), f.get("cv_vs_penalty", float("nan")), secs))
        res[n] = (st, cd, f.get("cv_vs_penalty", 1))
    fin = res[grids[-1]]
    print("  finest grid D/%d:" % grids[-1])
    check("Re100 St", fin[0], 0.160, 0.172)
    check("Re100 mean Cd", fin[1], 1.28, 1.42)
    check("Re100 |Cd_cv/Cd - 1| (mean)", fin[2], 0, 0.01)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--np", type=int, default=2)
    p.add_argument("--out", default="/tmp/fg-cylinder")
    p.add_argument("--skip-re40", action="store_true")
    p.add_argument("--skip-re100", action="store_true")
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    grids = [16, 24] if a.quick else [16, 24, 32]
    t0 = time.time()
    if not a.skip_re40:
        re40(a, grids, [] if a.quick else [1e-3, 1e-4, 1e-5])
    if not a.skip_re100:
        re100(a, grids)
    print("%.0f s; %s" % (time.time() - t0, "FAILED:\n  " + "\n  ".join(failures) if failures else "all figures in their bands"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
