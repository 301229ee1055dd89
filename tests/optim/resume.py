#!/usr/bin/env python3
"""flowgrad optimize killed mid-way and resumed (tests/optim/tests.cmake).

Runs the case three times on NP ranks: uninterrupted (ref), killed with SIGKILL on every rank right
after the K-th evaluation (-fg_test_optimize_kill_at K), then `--resume` in the killed run's
directory. Checks that the killed run died, that the resumed run replayed exactly the K logged
evaluations (no evaluation is repeated) and computed the rest, and that it ends at the same design
and J as the reference to --rtol (check_optimization.py same).

With --killed-flowgrad OLD the killed run is OLD's (e.g. a build of the previous release): the
resumed run must replay a log written by it (the format of eval_NNNNNN.h5 kept).
"""
import argparse, os, re, subprocess, sys

p = argparse.ArgumentParser()
p.add_argument("--flowgrad", required=True)
p.add_argument("--mpiexec", required=True)
p.add_argument("--mpiexec-flags", default="")
p.add_argument("--np", type=int, default=1)
p.add_argument("--case", required=True)
p.add_argument("--kill-at", type=int, required=True)
p.add_argument("--signal", action="store_true", help="stop with SIGUSR1 (exit 75) instead of SIGKILL")
p.add_argument("--workdir", required=True)
p.add_argument("--rtol", type=float, default=1e-8)
p.add_argument("--python", default=sys.executable)
p.add_argument("--killed-flowgrad", help="the flowgrad of the killed run (default: --flowgrad)")
p.add_argument("--tag", help="the runs' directory prefix (default optim_resume_np<NP>)")
a, extra = p.parse_known_args()


def run(outdir, *args, expect=0, exe=None):
    cmd = [a.mpiexec, "-n", str(a.np)] + [f for f in re.split(r"[;\s]+", a.mpiexec_flags) if f] + [exe or a.flowgrad, "optimize", a.case, "--set", f"output.dir={outdir}", "-fg_fftw_planner", "estimate"] + extra + list(args)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=a.workdir)
    print(f"$ {' '.join(cmd)}\n  exit {r.returncode}")
    if expect is not None and r.returncode != expect:
        print(r.stdout[-4000:])
        sys.exit(f"FAIL: exit {r.returncode}, expected {expect}")
    return r


tag = a.tag or f"optim_resume_np{a.np}"
ref = run(f"{tag}_ref")
if a.signal:  # SIGUSR1 on every rank after the K-th evaluation: exit 75 with the notice
    tag += "_signal"
    ref = run(f"{tag}_ref")
    killed = run(f"{tag}_kill", "-fg_test_optimize_signal_at", str(a.kill_at), expect=75)
    if f"stopped by SIGUSR1 after evaluation {a.kill_at - 1}" not in killed.stdout:
        print(killed.stdout[-3000:])
        sys.exit("FAIL: no stop notice")
else:
    killed = run(f"{tag}_kill", "-fg_test_optimize_kill_at", str(a.kill_at), expect=None, exe=a.killed_flowgrad)
    if killed.returncode == 0:
        sys.exit("FAIL: the killed run exited 0")
    if f"SIGKILL after evaluation {a.kill_at - 1}" not in killed.stdout:
        print(killed.stdout[-3000:])
        sys.exit("FAIL: the test hook did not fire")
res = run(f"{tag}_kill", "--resume")
replayed = len(re.findall(r"from the log", res.stdout))
computed = len(re.findall(r"^  eval +\d+: (?:.*\((?:J and gradient|J only), [0-9.]+ s\)|failed: the flow blew up \([0-9.]+ s\))$", res.stdout, re.M))
total = len(re.findall(r"^  eval ", ref.stdout, re.M))
print(f"reference: {total} evaluations; resumed run: {replayed} replayed from the log, {computed} computed")
if f"replaying {a.kill_at} logged evaluations" not in res.stdout or replayed != a.kill_at:
    sys.exit(f"FAIL: expected {a.kill_at} evaluations replayed")
if replayed + computed != total:
    sys.exit("FAIL: the resumed run did not take the reference's path (evaluation counts differ)")
r = subprocess.run([a.python, os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_optimization.py"), "same",
                    os.path.join(a.workdir, f"{tag}_ref"), os.path.join(a.workdir, f"{tag}_kill"), "--rtol", str(a.rtol)], text=True)
sys.exit(r.returncode)
