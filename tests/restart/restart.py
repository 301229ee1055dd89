#!/usr/bin/python3
"""restart.py [options] SCENARIO: checkpoints, restart and signals of `flowgrad run`, end to end.

Each scenario runs flowgrad under mpiexec in its own work directory (emptied first), checks what
it asserts and exits 1 with "FAIL: ..." otherwise. The measured differences are printed.

  equivalence_2d, equivalence_3d
      2N steps straight (np 2) against N steps + `--resume --set time.steps=2N`: on the same
      ranks (2 -> 2) the final fields must be identical (difference exactly 0); written on 3
      ranks and resumed on 2, within 1e-12 (relative to max|field|). history.csv of the split
      run has the straight run's steps and values. The first half is a finished run extended by
      `--resume --set time.steps=...` (its final checkpoint is the restart point).
  equivalence_body
      the same for a case with a body (--case cases/rotating_cylinder/..., or a stretched grid:
      tests/adjoint/cylinder_stretched.yaml --cells [96,0]): fields and the per-step forces in
      history.csv, bit for bit 2 -> 2 ranks, 1e-12 for 3 -> 2.
  checkpoint_every
      output.checkpoint_every / checkpoint_keep: the right checkpoints are kept; a crash after a
      mid-run checkpoint (the final one deleted) resumes from the newest one left, cuts
      history.csv after it, and ends bit for bit as the straight run. A fresh run in the same
      directory then replaces the checkpoints of the earlier, longer run.
  signal_hook
      -fg_test_raise_signal_at_step K raises SIGUSR1 on the last rank only: every rank stops at
      step K (one Allreduce per step), exit 75, one notice, a checkpoint at K; --resume ends
      bit for bit as the straight run. Then SIGTERM on rank 1 of 3, resumed on 2 ranks.
  signal_kill
      real signals while a longer run is going: `kill -USR1 <mpiexec>` (Open MPI forwards it to
      the ranks), exit 75; resumed, then `kill -TERM` sent to each rank process (as slurmstepd
      does), exit 75; resumed to the end: the final fields equal a straight run's exactly.
  blowup
      a far too large dt with checkpoint_every = 1: exit 3 within a few steps; the newest
      checkpoint is the last good step, complete and finite; resuming from it blows up again at
      the same step (it never starts over, nor continues from a blown-up state).
  slurm
      SLURM_RESTART_COUNT > 0 without --resume: resumes from the newest checkpoint; with none,
      says so and starts from t = 0; with a damaged one, refuses (exit 4).
  signal_edges
      SIGTERM to every rank as soon as its handler is on (while MPI and the case start): exit 75
      with a checkpoint at step 1 that resumes bit for bit; a signal after the final checkpoint:
      exit 0; `flowgrad info` ends by SIGTERM with one line.
  damaged_setup
      checkpoints for the error tests (tests.cmake): good/, trunc/, text/, nodset/, nan/, empty/.
"""
import argparse
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

PLANNER = ["-fg_fftw_planner", "estimate"]  # deterministic FFTW plans: bit-for-bit reruns


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


class Runner:
    def __init__(self, a):
        self.a = a
        self.mpiflags = [f for f in a.mpiflags.split(",") if f]
        self.env = dict(os.environ)
        self.env.pop("SLURM_RESTART_COUNT", None)

    def cmd(self, np_, args):
        return [self.a.mpiexec, self.a.npflag, str(np_)] + self.mpiflags + [self.a.flowgrad, "run", self.a.case] + list(args) + PLANNER

    def run(self, np_, args, code=0, env=None, timeout=120):
        """Run flowgrad; the exit code must be `code`. Returns the output (stdout + stderr)."""
        e = dict(self.env)
        e.update(env or {})
        t0 = time.time()
        p = subprocess.run(self.cmd(np_, args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=e, timeout=timeout)
        print(f"  [np {np_}, {time.time() - t0:.1f} s, exit {p.returncode}] flowgrad run ... {' '.join(args)}")
        if p.returncode != code:
            print(p.stdout)
            raise Fail(f"exit code {p.returncode}, expected {code}: {' '.join(args)}")
        return p.stdout

    def start(self, np_, args, log):
        fh = open(log, "w")
        p = subprocess.Popen(self.cmd(np_, args), stdout=fh, stderr=subprocess.STDOUT, text=True, env=self.env)
        print(f"  [np {np_}, pid {p.pid}] started: flowgrad run ... {' '.join(args)}")
        return p, fh


def once(out, regex, what):
    n = len([l for l in out.splitlines() if re.search(regex, l)])
    if n != 1:
        print(out)
    check(n == 1, f"{n} lines match /{regex}/ ({what}), expected exactly 1")


def final_fields(d, step):
    f = os.path.join(d, "fields", f"fields_{step:06d}.h5")
    check(os.path.isfile(f), f"missing {f}")
    return f


def compare(fa, fb):
    """max over the datasets of max|a - b| / max|a|; also the time and step attributes."""
    worst = 0.0
    with h5py.File(fa, "r") as a, h5py.File(fb, "r") as b:
        check(set(a.keys()) == set(b.keys()), f"{fa} and {fb} hold different datasets")
        check(a.attrs["step"] == b.attrs["step"], f"step {a.attrs['step']} != {b.attrs['step']}")
        check(a.attrs["time"] == b.attrs["time"], f"time {a.attrs['time']!r} != {b.attrs['time']!r} (not bit for bit)")
        for k in a.keys():
            x, y = a[k][...], b[k][...]
            check(x.shape == y.shape, f"/{k}: shapes {x.shape} and {y.shape}")
            scale = np.abs(x).max()
            d = np.abs(x - y).max() / (scale if scale > 0 else 1.0)
            check(np.isfinite(d), f"/{k}: non-finite values")
            worst = max(worst, float(d))
    return worst


def history(d):
    with open(os.path.join(d, "history.csv")) as fh:
        lines = fh.read().splitlines()
    check(lines and lines[0].startswith("step,time,dt,cfl,max_div,kinetic_energy,wall_time"), f"{d}/history.csv: bad header")
    rows = [l.split(",") for l in lines[1:]]
    steps = [int(r[0]) for r in rows]
    check(steps == sorted(set(steps)), f"{d}/history.csv: steps not strictly increasing: {steps}")
    return {int(r[0]): r[1:6] for r in rows}  # step -> time, dt, cfl, max_div, kinetic_energy (as written)


def same_history(da, db):
    ha, hb = history(da), history(db)
    check(sorted(ha) == sorted(hb), f"history.csv steps differ: {sorted(ha)} vs {sorted(hb)}")
    for s in ha:
        check(ha[s] == hb[s], f"history.csv row {s} differs: {ha[s]} vs {hb[s]}")


def checkpoints(d):
    """steps of the complete checkpoints; fails on leftovers of interrupted writes"""
    c = os.path.join(d, "checkpoints")
    left = [f for f in glob.glob(os.path.join(c, "*")) if not re.search(r"/checkpoint_\d{6,}\.h5$", f)]
    check(not left, f"leftover files in {c}: {left}")
    return sorted(int(re.search(r"(\d+)\.h5$", f).group(1)) for f in glob.glob(os.path.join(c, "checkpoint_*.h5")))


def check_checkpoint(d, step):
    """the checkpoint of `step` is complete and finite"""
    f = os.path.join(d, "checkpoints", f"checkpoint_{step:06d}.h5")
    with h5py.File(f, "r") as h:
        check(int(h.attrs["step"]) == step, f"{f}: step attribute {h.attrs['step']}")
        check("checkpoint" in h and h["checkpoint"].attrs["format"] == 2, f"{f}: no /checkpoint group of format 2")
        check(int(h["checkpoint/dt_count"][...].sum()) == step, f"{f}: dt history does not add up to the step")
        for k in ("u", "v", "p"):
            check(np.all(np.isfinite(h[k][...])), f"{f}: /{k} is not finite")
    return f


# ------------------------------------------------------------------------------------------------
def grid_args(dim):
    if dim == 2:
        return ["--set", "grid.cells=[24,16]", "--set", "grid.lengths=[1.5,1]"]
    return ["--set", "grid.cells=[12,12,12]", "--set", "grid.lengths=[1,1,1]", "--set", "boundary.y_hi.velocity=[1,0,0.5]"]


def equivalence(r, w, dim):
    n = 20 if dim == 2 else 5  # multiples of monitor_every: the first half's last row is one of the straight run's
    base = grid_args(dim) + ["--set", "output.monitor_every=5"]
    straight = os.path.join(w, "straight")
    r.run(2, base + ["--set", f"time.steps={2 * n}", "--set", f"output.dir={straight}"])
    ref = final_fields(straight, 2 * n)
    results = {}
    for first, second, tol in ((2, 2, 0.0), (3, 2, 1e-12)):
        d = os.path.join(w, f"split_{first}to{second}")
        r.run(first, base + ["--set", f"time.steps={n}", "--set", f"output.dir={d}"])
        check(checkpoints(d) == [n], f"after the first half: checkpoints {checkpoints(d)}, expected [{n}]")
        out = r.run(second, base + ["--resume", "--set", f"time.steps={2 * n}", "--set", f"output.dir={d}"])
        once(out, rf"^flowgrad run: resuming from .*checkpoint_{n:06d}\.h5: step {n}, .*written on {first} ranks, now {second}", "the resume line")
        diff = compare(ref, final_fields(d, 2 * n))
        print(f"  {dim}D restart {first} -> {second} ranks: max relative difference {diff:.3e} (allowed {tol:g})")
        check(diff <= tol, f"{dim}D restart {first} -> {second} ranks differs by {diff:.3e} > {tol:g}")
        check(checkpoints(d) == [n, 2 * n], f"checkpoints {checkpoints(d)}, expected [{n}, {2 * n}] (checkpoint_keep = 2)")
        if first == second:
            same_history(straight, d)
        results[f"{first}to{second}"] = diff
    return results


def scenario_equivalence_body(r, w):
    """a case with a body (--case): fields and the per-step body columns of history.csv (forces,
    moments, coefficients, control-volume forces; not the running Strouhal number, which each
    process estimates from the lift it has seen) equal a straight run's: bit for bit on the same
    ranks, 1e-12 relative to the largest force from 3 ranks to 2"""
    n = 20
    base = ["--set", f"grid.cells={r.a.cells}", "--set", "time.dt=0.05", "--set", "output.monitor_every=5"]
    if r.a.viscous:
        base += ["--set", f"time.viscous={r.a.viscous}"]
    straight = os.path.join(w, "straight")
    r.run(2, base + ["--set", f"time.steps={2 * n}", "--set", f"output.dir={straight}"])
    ref = final_fields(straight, 2 * n)

    def forces(d):
        with open(os.path.join(d, "history.csv")) as fh:
            rows = [l.split(",") for l in fh.read().splitlines()]
        cols = [i for i, name in enumerate(rows[0]) if re.search(r"_(f[xyz]|m[xyz]|c[dlzm]|cv_f[xyz])$", name)]
        check(cols, f"{d}/history.csv: no body columns in {rows[0]}")
        return {int(row[0]): [float(row[i]) for i in cols] for row in rows[1:]}

    fs = forces(straight)
    check(sorted(fs) == list(range(2 * n + 1)), f"history.csv of a body run must have a row every step: {sorted(fs)}")
    scale = max(abs(v) for row in fs.values() for v in row)
    for first, second, tol in ((2, 2, 0.0), (3, 2, 1e-12)):
        d = os.path.join(w, f"split_{first}to{second}")
        r.run(first, base + ["--set", f"time.steps={n}", "--set", f"output.dir={d}"])
        r.run(second, base + ["--resume", "--set", f"time.steps={2 * n}", "--set", f"output.dir={d}"])
        diff = compare(ref, final_fields(d, 2 * n))
        fd = forces(d)
        check(sorted(fd) == sorted(fs), f"history.csv steps differ: {sorted(fd)}")
        fdiff = max(abs(a - b) for s in fs for a, b in zip(fs[s], fd[s])) / scale
        print(f"  body restart {first} -> {second} ranks: fields {diff:.3e}, forces {fdiff:.3e} (allowed {tol:g})")
        check(diff <= tol and fdiff <= tol, f"body restart {first} -> {second} ranks differs: fields {diff:.3e}, forces {fdiff:.3e} > {tol:g}")


def scenario_equivalence_2d(r, w):
    equivalence(r, w, 2)


def scenario_equivalence_3d(r, w):
    equivalence(r, w, 3)


def scenario_checkpoint_every(r, w):
    base = grid_args(2) + ["--set", "output.monitor_every=5", "--set", "time.steps=20"]
    straight, d = os.path.join(w, "straight"), os.path.join(w, "every")
    r.run(2, base + ["--set", f"output.dir={straight}"])
    out = r.run(2, base + ["--set", "output.checkpoint_every=6", "--set", f"output.dir={d}"])
    for s in (6, 12, 18, 20):
        once(out, rf"^flowgrad run: checkpoint at step {s}, ", f"checkpoint line of step {s}")
    check(checkpoints(d) == [18, 20], f"checkpoints {checkpoints(d)}, expected [18, 20] (every 6, keep 2, and the end)")
    # a crash after step 18: the final checkpoint is lost, history.csv has rows up to 20
    os.remove(os.path.join(d, "checkpoints", "checkpoint_000020.h5"))
    os.remove(final_fields(d, 20))
    check(max(history(d)) == 20, "history.csv should reach step 20 before the resume")
    out = r.run(2, base + ["--set", "output.checkpoint_every=6", "--resume", "--set", f"output.dir={d}"])
    once(out, r"resuming from .*checkpoint_000018\.h5: step 18", "resume from the newest checkpoint left")
    diff = compare(final_fields(straight, 20), final_fields(d, 20))
    print(f"  resumed from the mid-run checkpoint 18: max relative difference {diff:.3e}")
    check(diff == 0.0, f"resumed run differs by {diff:.3e}")
    same_history(straight, d)  # rows 0, 5, 10, 15 kept, 20 rewritten: the same values
    # resumed at time.steps: no step to take; the final fields come from the checkpoint (p too)
    os.remove(final_fields(d, 20))
    out = r.run(2, base + ["--resume", "--set", f"output.dir={d}"])
    once(out, r"^flowgrad run: the checkpoint is at time\.steps = 20: no step to take", "the no-step line")
    diff = compare(final_fields(straight, 20), final_fields(d, 20))
    check(diff == 0.0, f"fields rewritten from the final checkpoint differ by {diff:.3e}")
    check(checkpoints(d) == [18, 20], f"checkpoints {checkpoints(d)}, expected [18, 20]")
    # a fresh run (no --resume) in the same directory replaces the longer run's checkpoints
    out = r.run(2, grid_args(2) + ["--set", "time.steps=10", "--set", f"output.dir={d}"])
    once(out, r"^flowgrad run: note: starting from t = 0; .* holds 2 checkpoint\(s\) of an earlier run \(newest: step 20\)", "the fresh-start note")
    check(checkpoints(d) == [10], f"after a fresh 10-step run: checkpoints {checkpoints(d)}, expected [10]")


def scenario_signal_hook(r, w):
    base = grid_args(2) + ["--set", "output.monitor_every=5", "--set", "time.steps=20"]
    straight = os.path.join(w, "straight")
    r.run(2, base + ["--set", f"output.dir={straight}"])
    ref = final_fields(straight, 20)
    for np1, sig, rank, k, tol in ((2, "USR1", 1, 7, 0.0), (3, "TERM", 1, 13, 1e-12)):
        d = os.path.join(w, f"hook_{sig}")
        out = r.run(np1, base + ["--set", f"output.dir={d}", "-fg_test_raise_signal_at_step", str(k), "-fg_test_raise_signal", sig, "-fg_test_raise_signal_rank", str(rank)], code=75)
        once(out, rf"^flowgrad: stopped on SIG{sig} at step {k}, t = .*; checkpoint written to .*checkpoint_{k:06d}\.h5; rerun with --resume", "the stop notice")
        check("flowgrad: error" not in out, "a stop on a signal is a notice, not an error")
        check(checkpoints(d) == [k], f"checkpoints {checkpoints(d)}, expected [{k}]")
        check_checkpoint(d, k)
        check(max(history(d)) <= k, "history.csv has rows after the stop")
        check(not os.path.exists(os.path.join(d, "fields", "fields_000020.h5")), "a stopped run wrote the final fields")
        r.run(2, base + ["--resume", "--set", f"output.dir={d}"])
        diff = compare(ref, final_fields(d, 20))
        print(f"  SIG{sig} on rank {rank} of {np1} at step {k}, resumed on 2 ranks: max relative difference {diff:.3e} (allowed {tol:g})")
        check(diff <= tol, f"stopped and resumed run differs by {diff:.3e} > {tol:g}")


def wait_for_step(log, p, step, timeout=60):
    """wait until the monitor has printed a step >= step; returns that step"""
    t0 = time.time()
    while time.time() - t0 < timeout:
        with open(log) as fh:
            steps = [int(m.group(1)) for m in re.finditer(r"^step +(\d+)/", fh.read(), re.M)]
        if steps and steps[-1] >= step:
            return steps[-1]
        check(p.poll() is None, f"the run ended (exit {p.returncode}) before step {step}")
        time.sleep(0.02)
    raise Fail(f"no step {step} within {timeout} s")


def rank_pids(mpiexec_pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(mpiexec_pid)], stdout=subprocess.PIPE, text=True).stdout
    return [int(x) for x in out.split()]


def scenario_signal_kill(r, w):
    steps = 1500
    base = ["--set", "grid.cells=[48,48]", "--set", f"time.steps={steps}", "--set", "output.monitor_every=20"]
    straight, d = os.path.join(w, "straight"), os.path.join(w, "killed")
    r.run(2, base + ["--set", f"output.dir={straight}"])
    stops = []
    for how in ("USR1 to mpiexec", "TERM to each rank"):
        log = os.path.join(w, f"log_{len(stops)}.txt")
        p, fh = r.start(2, base + ["--set", f"output.dir={d}"] + (["--resume"] if stops else []), log)
        try:
            seen = wait_for_step(log, p, (stops[-1] if stops else 0) + 100)
            if how.startswith("USR1"):
                os.kill(p.pid, signal.SIGUSR1)  # Open MPI's mpiexec forwards SIGUSR1 to the ranks
            else:
                pids = rank_pids(p.pid)
                check(len(pids) == 2, f"expected 2 rank processes under mpiexec {p.pid}, found {pids}")
                for pid in pids:
                    os.kill(pid, signal.SIGTERM)
            rc = p.wait(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
            fh.close()
        with open(log) as f:
            out = f.read()
        print(f"  {how} after step {seen}: exit {rc}")
        if rc != 75:
            print(out)
        check(rc == 75, f"{how}: exit code {rc}, expected 75")
        m = re.search(r"^flowgrad: stopped on SIG(USR1|TERM) at step (\d+), ", out, re.M)
        check(m, f"{how}: no stop notice")
        once(out, r"^flowgrad: stopped on SIG", "the stop notice")
        k = int(m.group(2))
        check(k >= seen and k < steps, f"stopped at step {k}, outside ({seen}, {steps})")
        check(checkpoints(d)[-1] == k, f"newest checkpoint {checkpoints(d)}, expected step {k}")
        check_checkpoint(d, k)
        stops.append(k)
    r.run(2, base + ["--resume", "--set", f"output.dir={d}"])
    diff = compare(final_fields(straight, steps), final_fields(d, steps))
    print(f"  stopped at steps {stops}, resumed twice: max relative difference {diff:.3e}")
    check(diff == 0.0, f"differs by {diff:.3e}")
    same_history(straight, d)


def catches(pid, signo, exe):
    """whether process pid runs exe and has a handler on signo (its /proc status SigCgt mask); a
    child of mpiexec not yet through exec() has mpiexec's handlers and would lose it at exec()"""
    try:
        if os.path.realpath(f"/proc/{pid}/exe") != os.path.realpath(exe):
            return False
        with open(f"/proc/{pid}/status") as fh:
            mask = next(l for l in fh if l.startswith("SigCgt:")).split()[1]
    except (OSError, StopIteration):
        return False
    return bool(int(mask, 16) & (1 << (signo - 1)))


def signal_at_start(p, nranks, signo, exe, timeout=30):
    """send signo to every rank process of mpiexec p as soon as it has its handler on, i.e. while
    it starts (MPI_Init, PetscInitialize, the case, FFTW plans); returns the ranks' pids"""
    t0, sent = time.time(), set()
    while len(sent) < nranks:
        check(time.time() - t0 < timeout and p.poll() is None, f"the ranks did not start (sent to {sorted(sent)})")
        for pid in rank_pids(p.pid):
            if pid not in sent and catches(pid, signo, exe):
                os.kill(pid, signo)
                sent.add(pid)
        time.sleep(0.0005)
    return sorted(sent)


def scenario_signal_edges(r, w):
    """SIGTERM while the ranks start (before the first step) stops at step 1 with a checkpoint
    (exit 75) that resumes to the straight run; a signal after the final checkpoint is ignored
    (exit 0, the run complete); `info` (nothing to stop cleanly) ends by the signal with one line."""
    base = grid_args(2) + ["--set", "output.monitor_every=5", "--set", "time.steps=12"]
    straight = os.path.join(w, "straight")
    r.run(2, base + ["--set", f"output.dir={straight}"])
    ref = final_fields(straight, 12)
    d = os.path.join(w, "early")
    log = os.path.join(w, "early.txt")
    p, fh = r.start(2, base + ["--set", f"output.dir={d}"], log)
    try:
        pids = signal_at_start(p, 2, signal.SIGTERM, r.a.flowgrad)
        rc = p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
        fh.close()
    out = open(log).read()
    print(f"  SIGTERM to ranks {pids} as they started: exit {rc}")
    check(rc == 75, f"exit {rc}, expected 75:\n{out}")
    once(out, r"^flowgrad: stopped on SIGTERM at step 1, t = .*; checkpoint written to .*checkpoint_000001\.h5", "the stop notice")
    check(checkpoints(d) == [1], f"checkpoints {checkpoints(d)}, expected [1]")
    r.run(2, base + ["--resume", "--set", f"output.dir={d}"])
    diff = compare(ref, final_fields(d, 12))
    print(f"  resumed from step 1: max relative difference {diff:.3e} to the straight run")
    check(diff == 0.0, f"resumed run differs by {diff:.3e}")
    d0 = os.path.join(w, "hook0")
    out = r.run(2, base + ["--set", f"output.dir={d0}", "-fg_test_raise_signal_at_step", "0", "-fg_test_raise_signal", "TERM"], code=75)
    once(out, r"^flowgrad: stopped on SIGTERM at step 1, ", "the stop notice of a request raised during the start")
    check(checkpoints(d0) == [1], f"checkpoints {checkpoints(d0)}, expected [1]")
    print("  SIGTERM raised in-process during the start (before the solver exists): exit 75 at step 1")
    late = os.path.join(w, "late")
    out = r.run(2, base + ["--set", f"output.dir={late}", "-fg_test_raise_signal_at_step", "12", "-fg_test_raise_signal", "TERM"])
    check("error" not in out and "stopped" not in out, f"a signal after the final checkpoint was answered:\n{out}")
    check(checkpoints(late) == [12] and compare(ref, final_fields(late, 12)) == 0.0, "the run with a late signal is not the straight run")
    print("  SIGTERM after the final checkpoint: exit 0, the run complete")
    p = subprocess.Popen([r.a.flowgrad, "info", r.a.case], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=r.env)
    t0 = time.time()
    while not catches(p.pid, signal.SIGTERM, r.a.flowgrad):
        check(time.time() - t0 < 30 and p.poll() is None, "flowgrad info did not start")
        time.sleep(0.0005)
    os.kill(p.pid, signal.SIGTERM)
    out, _ = p.communicate(timeout=60)
    print(f"  SIGTERM to flowgrad info as it started: exit {p.returncode}")
    check(p.returncode == -signal.SIGTERM, f"info: exit {p.returncode}, expected to end by SIGTERM:\n{out}")
    once(out, r"^flowgrad: error: stopped by SIGTERM: ", "info's line")
    check("PETSC ERROR" not in out, f"a PETSc traceback:\n{out}")


def scenario_blowup(r, w):
    for name, extra, msg in (
        ("nan", ["--set", "time.dt=0.3", "--set", "time.cfl_max=1e300", "--set", "time.viscous=explicit"], r"the solution blew up \(NaN\) at step (\d+)"),
        ("cfl", ["--set", "time.dt=0.14"], r"CFL number [0-9.]+ exceeds time\.cfl_max = 1\.5 at step (\d+)"),
    ):
        d = os.path.join(w, name)
        args = ["--set", "grid.cells=[16,16]", "--set", "time.steps=50", "--set", "output.monitor_every=1000",
                "--set", "output.checkpoint_every=1", "--set", "output.checkpoint_keep=3", "--set", f"output.dir={d}"] + extra
        out = r.run(2, args, code=3)
        once(out, msg, "the blow-up message")
        k = int(re.search(msg, out).group(1))
        check(2 <= k <= 10, f"blew up at step {k}, expected within a few steps")
        once(out, rf"; the last checkpoint, .*checkpoint_{k - 1:06d}\.h5, is intact", "the last good checkpoint named")
        check(checkpoints(d) == [k - 3, k - 2, k - 1], f"checkpoints {checkpoints(d)}, expected the 3 steps before {k}")
        check_checkpoint(d, k - 1)
        # resuming continues from the last good step and fails at the same step again
        out = r.run(2, args + ["--resume"], code=3)
        once(out, rf"resuming from .*checkpoint_{k - 1:06d}\.h5: step {k - 1},", "resume from the last good checkpoint")
        once(out, msg.replace(r"(\d+)", str(k)), "the same blow-up")
        print(f"  {name}: blew up at step {k}; checkpoint {k - 1} intact; resumed and blew up at step {k} again")


def scenario_slurm(r, w):
    base = grid_args(2) + ["--set", "output.monitor_every=5", "--set", "time.steps=12"]
    d = os.path.join(w, "job")
    slurm = {"SLURM_RESTART_COUNT": "1"}
    out = r.run(2, base + ["--set", f"output.dir={d}", "-fg_test_raise_signal_at_step", "4"], code=75, env=slurm)
    once(out, r"^flowgrad run: SLURM_RESTART_COUNT = 1, but .*/checkpoints holds no checkpoint: starting from t = 0", "the t = 0 line")
    out = r.run(2, base + ["--set", f"output.dir={d}"], env={"SLURM_RESTART_COUNT": "2"})
    once(out, r"^flowgrad run: resuming from .*checkpoint_000004\.h5: step 4, .*\(SLURM_RESTART_COUNT > 0\)", "the automatic resume")
    check(checkpoints(d) == [4, 12], f"checkpoints {checkpoints(d)}")
    # without SLURM_RESTART_COUNT and --resume: a fresh start, never a silent resume
    out = r.run(2, base + ["--set", f"output.dir={d}", "--set", "time.steps=3"])
    check("resuming" not in out, "resumed without --resume or SLURM_RESTART_COUNT")
    # a damaged newest checkpoint is refused, even on the automatic path
    with open(os.path.join(d, "checkpoints", "checkpoint_000003.h5"), "w") as fh:
        fh.write("not a checkpoint\n")
    out = r.run(2, base + ["--set", f"output.dir={d}"], code=4, env=slurm)
    once(out, r"checkpoint .*checkpoint_000003\.h5 is damaged or not a flowgrad checkpoint: not an HDF5 file", "the refusal")


def scenario_damaged_setup(r, w):
    good = os.path.join(w, "good")
    r.run(2, ["--set", "grid.cells=[16,16]", "--set", "time.steps=20", "--set", "output.checkpoint_every=5", "--set", f"output.dir={good}"])
    check(checkpoints(good) == [15, 20], f"checkpoints {checkpoints(good)}")
    for name in ("trunc", "text", "nodset", "nan"):
        shutil.copytree(good, os.path.join(w, name))
        f = os.path.join(w, name, "checkpoints", "checkpoint_000020.h5")
        if name == "trunc":
            os.truncate(f, os.path.getsize(f) // 2)
        elif name == "text":
            with open(f, "w") as fh:
                fh.write("this is not a checkpoint\n")
        elif name == "nodset":
            with h5py.File(f, "a") as h:
                del h["v"]
        else:
            with h5py.File(f, "a") as h:
                u = h["u"][...]
                u[3, 5] = np.nan
                h["u"][...] = u
    os.makedirs(os.path.join(w, "empty"))
    print(f"  made {sorted(os.listdir(w))} in {w}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--npflag", default="-n")
    ap.add_argument("--mpiflags", default="", help="extra mpiexec flags, comma-separated")
    ap.add_argument("--flowgrad", required=True)
    ap.add_argument("--case", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--cells", default="[128,96]", help="equivalence_body: grid.cells (0 where the case's stretching makes the count)")
    ap.add_argument("--viscous", default=None, help="equivalence_body: time.viscous")
    ap.add_argument("scenario", choices=[n[len("scenario_"):] for n in globals() if n.startswith("scenario_")])
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    t0 = time.time()
    try:
        globals()["scenario_" + a.scenario](Runner(a), a.work)
    except (Fail, subprocess.TimeoutExpired) as e:
        print(f"FAIL: {a.scenario}: {e}")
        return 1
    print(f"ok: {a.scenario} ({time.time() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
