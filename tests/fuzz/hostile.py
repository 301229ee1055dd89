"""Hostile input, one finding at a time (issue 23): what once crashed, hung, destroyed a file or
was silently wrong, each in a scenario that fails on the code before the fix.

Usage: hostile.py --flowgrad BIN --mpiexec MPIEXEC [--mpiflags=a,b] --repo REPO --work DIR SCENARIO

  long_path      an output directory of 1,000 characters (Open MPI's "lockedfile" component
                 aborted every HDF5 open at 204): run on 1 and 2 ranks and an adjoint complete.
  special_files  -fg_fftw_wisdom naming a case file, a symbolic link or a FIFO, and a FIFO at
                 <output.dir>/fftw.wisdom: exit 2 at once naming the file, nothing replaced; a
                 FIFO as initial.file or as the case file: exit 2, no hang; a stale symbolic link
                 at a field file's temporary name is replaced, not written through.
  probes         a probe or its reference point outside the domain: exit 2 naming the key (info,
                 run, adjoint); on the wall: accepted.
  options        bad option values (PETSc's start-up, its end, flowgrad's own) and a newline in an
                 argument: exit 2 with exactly one line naming the option.

Every refusal must come with exactly one "flowgrad: error:" line, no traceback, no signal.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import threading
import time

FAILS = []
BAD_OUTPUT = re.compile(r"PETSC ERROR|\(internal error|Traceback|exited on signal|Segmentation|buffer overflow|MPI_ABORT|core dumped")


def fail(what):
    FAILS.append(what)
    print("FAIL:", what)


class Flowgrad:
    def __init__(self, a):
        self.a = a
        self.mpiflags = [f for f in a.mpiflags.split(",") if f]
        self.env = dict(os.environ, OMPI_MCA_odls_base_sigkill_timeout="0")
        self.env.pop("SLURM_RESTART_COUNT", None)

    def __call__(self, args, np_=1, timeout=60):
        """(exit code, output); a timeout is a hang: exit code None."""
        cmd = [self.a.mpiexec, "-n", str(np_)] + self.mpiflags + [self.a.flowgrad] + list(args)
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, env=self.env)
            out = p.stdout.decode("utf-8", "replace")
            return p.returncode, out
        except subprocess.TimeoutExpired as e:
            return None, (e.stdout or b"").decode("utf-8", "replace")

    def expect(self, tag, args, code, regex, np_=1, timeout=60):
        """exit `code`, exactly one error line, and it matches regex."""
        rc, out = self(args, np_, timeout)
        errs = [l for l in out.splitlines() if "error" in l.lower()]
        ok = True
        if rc is None:
            fail(f"{tag}: no answer within {timeout} s (a hang)")
            return out
        if rc != code:
            ok = False
            fail(f"{tag}: exit {rc}, expected {code}")
        if BAD_OUTPUT.search(out):
            ok = False
            fail(f"{tag}: the output tells of a crash or a traceback")
        if code != 0:
            if len(errs) != 1:
                ok = False
                fail(f"{tag}: {len(errs)} error lines, expected 1")
            elif not re.search(regex, errs[0]):
                ok = False
                fail(f"{tag}: the message does not match /{regex}/")
        if not ok:
            print(out[-3000:])
        else:
            print(f"  ok  {tag}: exit {rc}" + (f": {errs[0][:160]}" if code and errs else ""))
        return out


def small_case(a, path, extra=""):
    with open(path, "w") as fh:
        fh.write("name: small\ngrid: {cells: [16, 12], lengths: [1.0, 0.75]}\nflow: {re: 100}\n"
                 "time: {dt: 2.0e-3, steps: 4}\nboundary: {y_hi: {type: lid, velocity: [1.0, 0.0]}}\n"
                 "objective: {energy: {kind: kinetic_energy, time: final}}\ndesign: {parameters: [flow.nu]}\n" + extra)
    return path


def scenario_long_path(fg, a, w):
    deep = os.path.join(w, "long")
    while len(deep) < 1000:
        deep = os.path.join(deep, "d" * min(120, 1000 - len(deep) - 1))
    case = small_case(a, os.path.join(w, "c.yaml"))
    print(f"  output directory of {len(deep)} characters")
    for np_ in (1, 2):
        d = os.path.join(deep, f"run{np_}")
        fg.expect(f"run on {np_} rank(s)", ["run", case, "--set", f"output.dir={d}", "--set", "output.fields_every=2"], 0, "", np_)
        for f in ("checkpoints/checkpoint_000004.h5", "fields/fields_000002.h5", "fields/fields.xmf", "history.csv"):
            if not os.path.isfile(os.path.join(d, f)):
                fail(f"run on {np_} rank(s): no {f} under the long directory")
    fg.expect("adjoint on 2 ranks", ["adjoint", case, "--set", f"output.dir={os.path.join(deep, 'adj')}"], 0, "", 2)
    if not os.path.isfile(os.path.join(deep, "adj", "gradient.h5")):
        fail("adjoint: no gradient.h5 under the long directory")


def fifo(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path):
        os.remove(path)
    os.mkfifo(path)


def scenario_special_files(fg, a, w):
    case = small_case(a, os.path.join(w, "c.yaml"))
    victim = os.path.join(w, "victim.yaml")
    shutil.copy(case, victim)
    before = open(victim, "rb").read()
    out = os.path.join(w, "o")
    fg.expect("-fg_fftw_wisdom naming a case file", ["run", case, "--set", f"output.dir={out}", "-fg_fftw_wisdom", victim], 2, r"-fg_fftw_wisdom .*victim\.yaml: .*not FFTW wisdom")
    if open(victim, "rb").read() != before:
        fail("-fg_fftw_wisdom naming a case file: the file was changed")
    link = os.path.join(w, "link.wisdom")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(victim, link)
    fg.expect("-fg_fftw_wisdom naming a symbolic link", ["run", case, "--set", f"output.dir={out}", "-fg_fftw_wisdom", link], 2, r"link\.wisdom: it is a symbolic link")
    if not os.path.islink(link) or open(victim, "rb").read() != before:
        fail("-fg_fftw_wisdom naming a symbolic link: the link or its target was changed")
    pipe = os.path.join(w, "pipe.wisdom")
    fifo(pipe)
    fg.expect("-fg_fftw_wisdom naming a FIFO", ["run", case, "--set", f"output.dir={out}", "-fg_fftw_wisdom", pipe], 2, r"pipe\.wisdom: it is a FIFO", timeout=30)
    o2 = os.path.join(w, "o2")
    fifo(os.path.join(o2, "fftw.wisdom"))
    for cmd in ("run", "adjoint", "check"):
        fg.expect(f"{cmd} with a FIFO at output.dir/fftw.wisdom", [cmd, case, "--set", f"output.dir={o2}"], 2, r"fftw\.wisdom: it is a FIFO", timeout=30)
    init = os.path.join(w, "init.h5")
    fifo(init)
    fg.expect("info with a FIFO as initial.file", ["info", case, "--set", "initial.type=file", "--set", f"initial.file={init}"], 2, r"initial\.file.*FIFO", timeout=30)
    cf = os.path.join(w, "case_fifo.yaml")
    fifo(cf)
    fg.expect("a FIFO as the case file", ["info", cf], 2, r"case_fifo\.yaml: it is a FIFO", timeout=30)
    fg.expect("a directory as the case file", ["info", w], 2, r"directory", timeout=30)
    # a stale symbolic link at a field file's temporary name: replaced, the target untouched
    o3 = os.path.join(w, "o3")
    os.makedirs(os.path.join(o3, "fields"), exist_ok=True)
    tmp = os.path.join(o3, "fields", "fields_000002.h5.tmp")
    if os.path.lexists(tmp):
        os.remove(tmp)
    os.symlink(victim, tmp)
    fg.expect("a symbolic link at fields_000002.h5.tmp", ["run", case, "--set", f"output.dir={o3}", "--set", "output.fields_every=2"], 0, "")
    if open(victim, "rb").read() != before:
        fail("a symbolic link at a temporary name: its target was written through")


def scenario_probes(fg, a, w):
    case = small_case(a, os.path.join(w, "c.yaml"), "probe: {far: {at: [0.5, 0.5]}}\n")
    for cmd in ("info", "run", "adjoint"):
        fg.expect(f"{cmd}: probe at (-100, 4.3)", [cmd, case, "--set", "probe.far.at=[-100, 4.3]", "--set", f"output.dir={w}/o"], 2, r"probe\.far\.at[=:].*the point lies outside the domain: x = -100 is not within \[0, 1\]")
    fg.expect("info: probe at (8, 2147483648)", ["info", case, "--set", "probe.far.at=[8, 2147483648]"], 2, r"probe\.far\.at[=:].*outside the domain: x = 8 ")
    fg.expect("info: probe at (1e308, 1e308)", ["info", case, "--set", "probe.far.at=[1e308, 1e308]"], 2, r"probe\.far\.at[=:].*outside the domain")
    fg.expect("info: reference outside", ["info", case, "--set", "probe.far.reference=[0.5, 0.76]"], 2, r"probe\.far\.reference[=:].*y = 0\.76 is not within \[0, 0\.75\]")
    fg.expect("info: probe on the wall", ["info", case, "--set", "probe.far.at=[1.0, 0.75]"], 0, "")


def scenario_options(fg, a, w):
    case = small_case(a, os.path.join(w, "c.yaml"))
    run = ["run", case, "--set", f"output.dir={w}/o"]
    fg.expect("-fg_test_raise_signal_at_step abc", run + ["-fg_test_raise_signal_at_step", "abc"], 2, r"-fg_test_raise_signal_at_step abc: .*no integer value")
    fg.expect("-log_view :/proc/nope", run + ["-log_view", ":/proc/nope/x"], 2, r"-log_view :/proc/nope/x: .*Cannot open")
    fg.expect("-log_view with a bad format", run + ["-log_view", "ascii:log.txt:nosuchformat"], 2, r"PETSc options: .*nosuchformat")
    fg.expect("-malloc_dump abc", run + ["-malloc_dump", "abc"], 2, r"PETSc options: .*abc")
    fg.expect("-fg_fftw_planner bogus", run + ["-fg_fftw_planner", "bogus"], 2, r"-fg_fftw_planner bogus")
    fg.expect("a newline in --set", ["info", case, "--set", "output.dir=/proc/a\nb"], 2, r"output\.dir=/proc/a\\nb")
    fg.expect("a newline in an option", ["info", case, "--bogus\nx"], 2, r"unknown option '--bogus\\nx'")
    fg.expect("2 ranks: -fg_test_raise_signal_at_step abc", run + ["-fg_test_raise_signal_at_step", "abc"], 2, r"-fg_test_raise_signal_at_step abc", np_=2)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flowgrad", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--mpiflags", default="")
    ap.add_argument("--repo", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("scenario", choices=[n[len("scenario_"):] for n in globals() if n.startswith("scenario_")])
    a = ap.parse_args()
    w = os.path.abspath(a.work)
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    t0 = time.time()
    globals()["scenario_" + a.scenario](Flowgrad(a), a, w)
    print(f"{a.scenario}: {len(FAILS)} failures, {time.time() - t0:.1f} s")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
