#!/usr/bin/env python3
"""Run `flowgrad optimize` for a test, then check_optimization.py on its output (tests/optim/tests.cmake).

  run.py --flowgrad F --mpiexec M --mpiexec-flags "A;B" --np N --case C --out DIR [--log FILE]
         [--count REGEX MIN MAX ...] [--check MODE ARGS...] -- FLOWGRAD_ARGS...
The flowgrad output goes to stdout (without the per-evaluation lines) and to --log when given;
each --count asserts that between MIN and MAX lines of the output match REGEX (re.M); the check
runs on DIR (or on the log, mode tao-gradient).
"""
import argparse, os, re, subprocess, sys

argv = sys.argv[1:]
fg_args = argv[argv.index("--") + 1:] if "--" in argv else []
argv = argv[:argv.index("--")] if "--" in argv else argv
p = argparse.ArgumentParser()
p.add_argument("--flowgrad", required=True)
p.add_argument("--mpiexec", required=True)
p.add_argument("--mpiexec-flags", default="")
p.add_argument("--np", type=int, default=1)
p.add_argument("--case", required=True)
p.add_argument("--out", required=True)
p.add_argument("--log")
p.add_argument("--count", nargs=3, action="append", default=[], metavar=("REGEX", "MIN", "MAX"))
p.add_argument("--check", nargs=argparse.REMAINDER, default=[])
a = p.parse_args(argv)
flags = [f for f in re.split(r"[;\s]+", a.mpiexec_flags) if f]
cmd = [a.mpiexec, "-n", str(a.np)] + flags + [a.flowgrad, "optimize", a.case, "--set", f"output.dir={a.out}", "-fg_fftw_planner", "estimate"] + fg_args
print("$", " ".join(cmd), flush=True)
r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
if a.log:
    open(a.log, "w").write(r.stdout)
print("\n".join(l for l in r.stdout.splitlines() if not re.match(r"^ *eval |^steady|Newton", l)))
if r.returncode:
    sys.exit(f"FAIL: flowgrad optimize exited {r.returncode}")
for rx, lo, hi in a.count:
    n = len(re.findall(rx, r.stdout, re.M))
    print(f"{n} lines match {rx!r} (expected {lo} to {hi})")
    if not int(lo) <= n <= int(hi):
        sys.exit(f"FAIL: {n} lines match {rx!r}, expected {lo} to {hi}")
if a.check:
    mode, rest = a.check[0], a.check[1:]
    target = a.log if mode == "tao-gradient" else a.out
    sys.exit(subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_optimization.py"), mode, target] + rest).returncode)
