#!/usr/bin/env python3
"""flowgrad adjoint under every checkpoint schedule and across interruptions (issue 6).

  schedules.py --flowgrad EXE --case CASE --workdir DIR [--np N --mpiexec MPIEXEC --mpiexec-flags F]
               [--part schedules|resume|all|resume_old --killed-flowgrad OLD_EXE]

schedules: the reference keeps every step's tape in RAM (no recomputation). Against it, to 1e-13
  relative (gradient.csv: J, the terms, every dJ/dp; gradient.h5: every dataset):
    states in RAM (adjoint.checkpoints >= steps), binomial checkpointing in RAM with 3 and 2 states,
    two levels on disk with tapes, with states and with binomial checkpointing per segment.
  The recomputed steps each run reports equal the planned number, and for the RAM schedules the
  number the theory gives: 0 (tapes), N - 1 (states), Griewank's optimum for binomial
  checkpointing, computed here independently by dynamic programming over all split points.
  gradient_time.csv sums over the steps to the gradient (1e-10 of max |dJ/dp|).
resume: against a straight run of the same schedule (same output directory, so the same FFTW
  wisdom): SIGUSR1 during the reverse sweep and during the forward run (exit 75, resume), a
  SIGKILL mid-sweep (the test hook, and a real `kill -9` from outside once resume.h5 exists), with
  disk storage (signals also with RAM storage); each resumed gradient equal to 1e-13. A resume file of another design
  is refused (exit 2), a damaged one exits 4, --resume with nothing to resume exits 2.
resume_old: the sweep killed mid-way (test hook, disk storage) by OLD_EXE, a flowgrad of an earlier
  release, is resumed by this one from the resume.h5 the earlier one wrote; the gradient equal to
  this build's straight run to 1e-13.
"""
import argparse, functools, os, re, shutil, signal, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--flowgrad", required=True)
ap.add_argument("--case", required=True)
ap.add_argument("--workdir", required=True)
ap.add_argument("--np", type=int, default=1)
ap.add_argument("--mpiexec", default="")
ap.add_argument("--mpiexec-flags", default="")
ap.add_argument("--python", default=sys.executable)
ap.add_argument("--part", default="all")
ap.add_argument("--killed-flowgrad", default="", help="resume_old: the flowgrad (an earlier release) that runs until killed")
a = ap.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
N = 120
base = ["--set", f"time.steps={N}", "--set", "objective.drag.window=[2,4.8]", "--set", "objective.lift.window=[2,4.8]",
        "--set", "output.monitor_every=40"]
fails = []


def check(cond, msg):
    print(("ok:   " if cond else "FAIL: ") + msg)
    if not cond:
        fails.append(msg)


def cmd(out, extra, exe=None):
    pre = [a.mpiexec, "-n", str(a.np)] + a.mpiexec_flags.replace(";", " ").split() if a.np > 1 else []
    return pre + [exe or a.flowgrad, "adjoint", a.case, "--set", "output.dir=" + out] + base + list(extra)


def run(out, extra=(), expect=0):
    r = subprocess.run(cmd(out, extra), capture_output=True, text=True)
    if r.returncode != expect:
        print(r.stdout[-3000:], r.stderr[-3000:])
    check(r.returncode == expect, f"{os.path.basename(out)} {' '.join(extra)}: exit {r.returncode} (expected {expect})")
    return r.stdout + r.stderr


def recomputed(log):
    m = re.search(r"^adjoint: done: \d+ adjoint steps, (\d+) recomputed steps \(planned (\d+)", log, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def same(ref, dirs, rtol=1e-13):
    r = subprocess.run([a.python, os.path.join(here, "compare_gradients.py"), "--fields", "--rtol", str(rtol), ref] + dirs, capture_output=True, text=True)
    print(r.stdout, r.stderr, end="")
    check(r.returncode == 0, f"{', '.join(os.path.basename(d) for d in dirs)}: the gradient equals {os.path.basename(ref)}'s to {rtol:g}")


@functools.lru_cache(maxsize=None)
def treeverse(L, s):
    """Fewest untaped forward steps to reverse L steps holding s states (the start's included)."""
    if L <= 1:
        return 0
    if s <= 1:
        return L * (L - 1) // 2
    return min(k + treeverse(L - k, s - 1) + treeverse(k, s) for k in range(1, L))


def wd(name):
    d = os.path.join(a.workdir, name)
    shutil.rmtree(d, ignore_errors=True)
    return d


sys.setrecursionlimit(10000)
if a.part in ("schedules", "all"):
    ref = wd("tapes")
    log = run(ref, ["--set", "adjoint.storage=ram"])
    check("every step's tape in RAM" in log, "reference: tapes in RAM")
    check(recomputed(log) == (0, 0), f"tapes in RAM: recomputed {recomputed(log)} = (0, 0)")
    runs = {
        "states": (["--set", "adjoint.storage=ram", "--set", f"adjoint.checkpoints={N}"], "every start state in RAM", N - 1),
        "binomial3": (["--set", "adjoint.storage=ram", "--set", "adjoint.checkpoints=3"], "binomial checkpointing in RAM (3 states)", treeverse(N, 3)),
        "binomial2": (["--set", "adjoint.storage=ram", "--set", "adjoint.checkpoints=2"], "binomial checkpointing in RAM (2 states)", treeverse(N, 2)),
        "disk_tapes": (["--set", "adjoint.storage=disk", "--set", "adjoint.segment=17"], "two levels: 7 states on disk (every 17 steps), 8 segments, each reversed with every step's tape", None),
        "disk_states": (["--set", "adjoint.storage=disk", "--set", "adjoint.checkpoints=25"], "two levels: 4 states on disk (every 25 steps), 5 segments, each reversed with every start state", None),
        "disk_binomial": (["--set", "adjoint.storage=disk", "--set", "adjoint.segment=50", "--set", "adjoint.checkpoints=4"], "each reversed with binomial checkpointing in RAM (4 states)", None),
        "auto_disk": (["--set", "adjoint.memory=8 MiB"], "segments, each reversed with every step's tape", None),
    }
    dirs = []
    for name, (extra, plan, expect) in runs.items():
        d = wd(name)
        dirs.append(d)
        log = run(d, extra)
        got, planned = recomputed(log)
        check(plan in log, f"{name}: the plan says '{plan}'")
        check(got is not None and got == planned, f"{name}: recomputed {got} steps as planned ({planned})")
        if expect is not None:
            check(got == expect, f"{name}: recomputed {got} = {expect} (theory)")
        check(not os.listdir(os.path.join(d, "adjoint", "checkpoints")), f"{name}: the finished sweep removed its state files")
    same(ref, dirs)
    # the gradient in time sums to the gradient
    import csv
    rows = [r for r in csv.reader(l for l in open(os.path.join(ref, "gradient_time.csv")) if not l.startswith("#"))]
    head, body = rows[0], rows[1:]
    grad = {r[0]: float(r[2]) for r in csv.reader(l for l in open(os.path.join(ref, "gradient.csv")) if not l.startswith("#")) if r[0] != "name"}
    check(len(body) == N and [int(r[0]) for r in body] == list(range(1, N + 1)), f"gradient_time.csv has the {N} steps")
    gmax = max(abs(v) for v in grad.values())
    worst = max(abs(sum(float(r[j]) for r in body) - grad[head[j]]) for j in range(3, len(head)))
    check(worst <= 1e-10 * gmax, f"gradient_time.csv sums to gradient.csv: largest difference {worst:.2e} (<= 1e-10 max|g| = {1e-10 * gmax:.2e})")
    # controls in time: the jet amplitudes piecewise linear through 3 values; the column
    # NAME(t) = dJ/d(the amplitude during step n) sums over the steps to dJ/d(a constant amplitude)
    d = wd("time_basis")
    run(d, ["--set", "design.time_basis=3"])
    rows = [r for r in csv.reader(l for l in open(os.path.join(d, "gradient_time.csv")) if not l.startswith("#"))]
    head, body = rows[0], rows[1:]
    for j in range(2):
        name = f"body.cyl.jet_amplitude[{j}]"
        col = head.index(name + "(t)")
        coef = [head.index(f"{name}[{k}]") for k in range(3)]
        parts = max(abs(float(r[col]) - sum(float(r[k]) for k in coef)) for r in body)
        total = sum(float(r[col]) for r in body)
        check(parts <= 1e-14 * gmax and abs(total - grad[name]) <= 1e-10 * gmax,
              f"{name}(t): the sum of its coefficients per step; over the steps {total:.12e} = dJ/d(constant amplitude) {grad[name]:.12e}")

if a.part in ("resume", "all"):
    disk = ["--set", "adjoint.storage=disk", "--set", "adjoint.segment=25"]
    ram = ["--set", "adjoint.storage=ram", "--set", "adjoint.checkpoints=5"]
    for name, sched in (("disk", disk), ("ram", ram)):
        straight = wd("straight_" + name)
        run(straight, sched)
        cases = [("usr1_reverse", ["-fg_test_adjoint_signal_at", "60"], 75),
                 ("usr1_forward", ["-fg_test_adjoint_signal_at", "-70"], 75)]
        if name == "disk":  # with RAM storage only a signal saves the sweep (README)
            cases.append(("kill_reverse", ["-fg_test_adjoint_kill_at", "40"], None))
        for what, hook, code in cases:
            d = wd(f"{what}_{name}")
            shutil.copytree(straight, d)
            for f in ("gradient.csv", "gradient.h5", "gradient.xmf", "gradient_time.csv"):
                os.remove(os.path.join(d, f))
            r = subprocess.run(cmd(d, sched + hook), capture_output=True, text=True)
            if code is None:
                check(r.returncode != 0 and "SIGKILL at step 40" in r.stdout, f"{what} ({name}): killed (exit {r.returncode})")
            else:
                check(r.returncode == code, f"{what} ({name}): exit {r.returncode} (expected {code})")
            check(not os.path.exists(os.path.join(d, "gradient.csv")), f"{what} ({name}): no gradient.csv from the stopped run")
            log = run(d, sched + ["--resume"])
            check("resuming the" in log, f"{what} ({name}): the rerun resumed")
            same(straight, [d])
    # a real SIGKILL from outside, once the first resume.h5 exists
    d = wd("kill9")
    shutil.copytree(os.path.join(a.workdir, "straight_disk"), d)
    for f in ("gradient.csv", "gradient.h5", "gradient.xmf", "gradient_time.csv"):
        os.remove(os.path.join(d, f))
    p = subprocess.Popen(cmd(d, disk + ["--set", "output.monitor_every=1"]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    rp = os.path.join(d, "adjoint", "resume.h5")
    t0 = time.time()
    while not os.path.exists(rp) and p.poll() is None and time.time() - t0 < 120:
        time.sleep(0.01)
    # every process of the run: mpiexec's ranks are not in its process group
    mine = "output.dir=" + d
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and mine in open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace").split("\0"):
                os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
    p.wait()
    check(os.path.exists(rp), "kill -9: resume.h5 existed when the sweep was killed")
    check(not os.path.exists(os.path.join(d, "gradient.csv")), "kill -9: the killed run wrote no gradient")
    run(d, disk + ["--resume"])
    same(os.path.join(a.workdir, "straight_disk"), [d])
    # refused resumes
    d = os.path.join(a.workdir, "usr1_reverse_disk")
    run(d, disk + ["-fg_test_adjoint_signal_at", "60"], expect=75)
    log = run(d, disk + ["--set", "flow.re=101", "--resume"], expect=2)
    check("was written for another case" in log, "a resume file of another case is refused")
    with open(os.path.join(d, "adjoint", "resume.h5"), "r+b") as f:
        f.truncate(2000)
    log = run(d, disk + ["--resume"], expect=4)
    d = wd("nothing")
    log = run(d, disk + ["--resume"], expect=2)
    check("nothing to resume" in log, "--resume with nothing to resume is an error")

if a.part == "resume_old":
    if not a.killed_flowgrad:
        sys.exit("schedules.py: --part resume_old needs --killed-flowgrad")
    disk = ["--set", "adjoint.storage=disk", "--set", "adjoint.segment=25"]
    straight = wd("old_straight")
    run(straight, disk)
    d = wd("old_kill_reverse")
    shutil.copytree(straight, d)
    for f in ("gradient.csv", "gradient.h5", "gradient.xmf", "gradient_time.csv"):
        os.remove(os.path.join(d, f))
    r = subprocess.run(cmd(d, disk + ["-fg_test_adjoint_kill_at", "40"], exe=a.killed_flowgrad), capture_output=True, text=True)
    check(r.returncode != 0 and "SIGKILL at step 40" in r.stdout, f"{a.killed_flowgrad}: killed (exit {r.returncode})")
    check(os.path.exists(os.path.join(d, "adjoint", "resume.h5")), "the earlier flowgrad left adjoint/resume.h5")
    log = run(d, disk + ["--resume"])
    check("resuming the" in log, "this flowgrad resumed the earlier one's sweep")
    same(straight, [d])

print(f"\n{len(fails)} failure(s)")
sys.exit(1 if fails else 0)
