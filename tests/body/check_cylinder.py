#!/usr/bin/env python3
"""Check a cylinder run (cases/cylinder_re40, cylinder_re100) against bands; exit 1 outside.

    check_cylinder.py OUT [--from T] [--steady TOL] [--cd LO HI] [--cdmean LO HI] [--ld LO HI]
                          [--st LO HI] [--cv TOL] [--center X,Y] [--like OTHER TOL]

Uses postproc/body_stats.py (forces over t >= T from history.csv; L/D from the last fields file).
--cv: |mean control-volume drag / mean penalty drag - 1| <= TOL.
--like: Cd (last), and L/D with --ld, within a relative TOL of those of the run OTHER (e.g. the
same flow on a stretched grid against the uniform one with its h_min).
"""
import argparse, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
STATS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "postproc", "body_stats.py")


def stats(args):
    p = subprocess.run([sys.executable, STATS] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(p.stdout, end="")
    vals = {}
    for line in p.stdout.splitlines():
        if " = " in line:
            k, v = line.split(" = ", 1)
            try:
                vals[k.strip()] = float(v.split()[0])
            except ValueError:
                pass
    return p.returncode, vals


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--from", dest="t_from", type=float)
    p.add_argument("--steady", type=float)
    p.add_argument("--cd", type=float, nargs=2)
    p.add_argument("--cdmean", type=float, nargs=2)
    p.add_argument("--ld", type=float, nargs=2)
    p.add_argument("--st", type=float, nargs=2)
    p.add_argument("--cv", type=float)
    p.add_argument("--center", default="10,20")
    p.add_argument("--like", nargs=2, metavar=("OTHER", "TOL"))
    a = p.parse_args()
    bad = []
    args = ["forces", a.out, "--body", "cyl"]
    if a.t_from is not None:
        args += ["--from", str(a.t_from)]
    if a.steady is not None:
        args += ["--steady", str(a.steady)]
    rc, f = stats(args)
    if rc:
        bad.append("body_stats forces exited %d" % rc)
    checks = [("Cd (last)", "cd_last", a.cd), ("mean Cd", "cd_mean", a.cdmean), ("St", "st", a.st)]
    if a.cv is not None:
        checks.append(("|Cd_cv/Cd - 1|", "cv_vs_penalty", (0.0, a.cv)))
    if a.ld:
        rc, w = stats(["wake", a.out, "--body", "cyl", "--center", a.center, "--diameter", "1"])
        if rc:
            bad.append("body_stats wake exited %d" % rc)
        f.update(w)
        checks.append(("L/D", "ld", a.ld))
    for name, key, band in checks:
        if band is None:
            continue
        v = f.get(key)
        ok = v is not None and band[0] <= v <= band[1]
        print("%-16s %s in [%g, %g]: %s" % (name, "%.4f" % v if v is not None else "missing", band[0], band[1], "ok" if ok else "FAIL"))
        if not ok:
            bad.append(name)
    if a.like:
        other, tol = a.like[0], float(a.like[1])
        rc, o = stats(["forces", other, "--body", "cyl"] + (["--from", str(a.t_from)] if a.t_from is not None else []))
        if a.ld:
            rc2, w = stats(["wake", other, "--body", "cyl", "--center", a.center, "--diameter", "1"])
            rc = rc or rc2
            o.update(w)
        if rc:
            bad.append("body_stats on %s failed" % other)
        for name, key in [("Cd (last)", "cd_last")] + ([("L/D", "ld")] if a.ld else []):
            v, r = f.get(key), o.get(key)
            ok = v is not None and r is not None and r != 0 and abs(v / r - 1) <= tol
            print("%-16s %s vs %s of %s: relative %s <= %g: %s" % (name, v, r, other, "%.2e" % abs(v / r - 1) if ok or (v and r) else "-", tol, "ok" if ok else "FAIL"))
            if not ok:
                bad.append(name + " like " + other)
    print("FAILED: " + ", ".join(bad) if bad else "all checks passed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
