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
  options        bad option values (PETSc's start-up, its end, flowgrad's own, a KSP's), a missing
                 value, a recursive or special -options_file, a newline in an argument: exit 2 with
                 exactly one line naming the option.
  memory         a grid whose estimate exceeds the memory budget (the node's, -fg_memory_budget,
                 ulimit -v): exit 2 naming grid.cells before anything is allocated, at once.
  late_errors    what a later command refused and info accepted: an inflow with no outflow face,
                 an unknown shape parameter, an initial file of another domain, a bad
                 points.<p>.set entry, optimizer.type lmvm with constraints: info exits 2 too.
  yaml           tags (!!str in a list, !!python/object, !!set), name: ../../escaped without
                 output.dir (nothing written outside), a comment of 40 '{' in column 0 (accepted).
  postproc       damaged field files (a field of shape (0, 0), one ulp off its checksum, spacing 0):
                 exit 2, one line.
  state_damage   an adjoint's resume file and an optimization's evaluation log, each damaged by one
                 ulp of a stored number or a hand-edited time: --resume refused with exit 4 naming
                 the file and the dataset, never a different gradient or path.

Every refusal must come with exactly one "flowgrad: error:" line, no traceback, no signal.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
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

    def __call__(self, args, np_=1, timeout=60, cwd=None, preexec=None):
        """(exit code, output); a timeout is a hang: exit code None. With preexec (a limit to set),
        flowgrad runs without mpiexec (one rank), so that the limit is its own."""
        cmd = ([] if preexec else [self.a.mpiexec, "-n", str(np_)] + self.mpiflags) + [self.a.flowgrad] + list(args)
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout, env=self.env, cwd=cwd, preexec_fn=preexec)
            out = p.stdout.decode("utf-8", "replace")
            return p.returncode, out
        except subprocess.TimeoutExpired as e:
            return None, (e.stdout or b"").decode("utf-8", "replace")

    def expect(self, tag, args, code, regex, np_=1, timeout=60):
        """exit `code`, exactly one error line, and it matches regex."""
        rc, out = self(args, np_, timeout)
        errs = [l for l in out.splitlines() if "error:" in l.lower()]
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
        if code not in (0, 75):  # 75: a stop on a signal is a notice, not an error
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
    fg.expect("-fg_test_raise_signal_at_step with no value", run + ["-fg_test_raise_signal_at_step", "-fg_fftw_planner", "estimate"], 2, r"-fg_test_raise_signal_at_step needs a value")
    fg.expect("-fg_test_raise_signal_rank -1", run + ["-fg_test_raise_signal_at_step", "1", "-fg_test_raise_signal_rank", "-1"], 2, r"-fg_test_raise_signal_rank -1: must be a rank")
    fg.expect("check -fg_check_fd_step 0", ["check", case, "--set", f"output.dir={w}/oc", "-fg_check_fd_step", "0"], 2, r"-fg_check_fd_step 0\.?: must be > 0")
    fg.expect("check -fg_check_fd_order 3", ["check", case, "--set", f"output.dir={w}/oc", "-fg_check_fd_order", "3"], 2, r"-fg_check_fd_order 3: must be 2 or 4")
    fg.expect("-poisson_ksp_max_it -1", run + ["--set", "poisson.type=ksp", "-poisson_ksp_max_it", "-1"], 2, r"-poisson_ksp_max_it -1: must be >= 1")
    fg.expect("-poisson_ksp_type bogus", run + ["--set", "poisson.type=ksp", "-poisson_ksp_type", "bogus"], 2, r"^flowgrad: error: -poisson_ksp_type bogus: .*bogus")
    rec = os.path.join(w, "rec.opts")
    with open(rec, "w") as fh:
        fh.write(f"-options_file {rec}\n")
    fg.expect("an -options_file that includes itself", ["info", case, "-options_file", rec], 2, r"rec\.opts: it includes itself")
    pipe = os.path.join(w, "pipe.opts")
    fifo(pipe)
    fg.expect("an -options_file that is a FIFO", ["info", case, "-options_file", pipe], 2, r"pipe\.opts: it is a FIFO", timeout=30)
    fg.expect("an -options_file that is a directory", ["info", case, "-options_file", w], 2, r"it is a directory")
    fg.expect("--resume-from a missing file", run + ["--resume-from", os.path.join(w, "nope.h5")], 2, r"--resume-from: cannot open .*nope\.h5: No such file")
    fg.expect("--resume-from a FIFO", run + ["--resume-from", pipe], 2, r"--resume-from: cannot open .*pipe\.opts: it is a FIFO", timeout=30)


def scenario_memory(fg, a, w):
    case = small_case(a, os.path.join(w, "c.yaml"))
    t0 = time.time()
    fg.expect("info on 32768 x 32768", ["info", case, "--set", "grid.cells=[32768,32768]"], 2, r"grid\.cells 32768 x 32768 needs at least \d+ MiB on the largest of 1 ranks .*over its memory budget of \d+ MiB")
    fg.expect("run on 1024^3", ["run", case, "--set", "grid.cells=[1024,1024,1024]", "--set", "grid.lengths=[1,1,1]", "--set", "boundary.y_hi.velocity=[1,0,0]", "--set", f"output.dir={w}/o"], 2, r"grid\.cells 1024 x 1024 x 1024 needs at least")
    fg.expect("-fg_memory_budget 1 (MiB) on 256 x 256", ["info", case, "--set", "grid.cells=[256,256]", "-fg_memory_budget", "1"], 2, r"over its memory budget of 1 MiB")
    fg.expect("-fg_memory_budget 0: no check", ["info", case, "-fg_memory_budget", "0"], 0, "")
    fg.expect("-fg_memory_budget -3", ["info", case, "-fg_memory_budget", "-3"], 2, r"-fg_memory_budget -3")
    dt = time.time() - t0
    print(f"  five refusals/answers in {dt:.1f} s")
    if dt > 60:
        fail(f"the memory checks took {dt:.0f} s: something was allocated first")
    # under an address-space limit (ulimit -v 3 GiB): refused with exit 2, not PETSc's malloc failure
    rc, out = fg(["info", case, "--set", "grid.cells=[8192,8192]"], preexec=lambda: __import__("resource").setrlimit(__import__("resource").RLIMIT_AS, (3 << 30, 3 << 30)))
    errs = [l for l in out.splitlines() if "error:" in l.lower()]
    if rc != 2 or len(errs) != 1 or "grid.cells 8192 x 8192" not in errs[0] or BAD_OUTPUT.search(out):
        fail(f"info on 8192 x 8192 under ulimit -v 3 GiB: exit {rc}: {out[-800:]}")
    else:
        print(f"  ok  ulimit -v 3 GiB, 8192 x 8192: exit 2: {errs[0][:140]}")


def scenario_late_errors(fg, a, w):
    case = small_case(a, os.path.join(w, "c.yaml"))
    ch = os.path.join(w, "ch.yaml")
    with open(ch, "w") as fh:
        fh.write("name: ch\ngrid: {cells: [16, 8], lengths: [2.0, 1.0]}\nflow: {re: 100}\ntime: {dt: 1.0e-3, steps: 2}\n"
                 "boundary: {x_lo: {type: inflow, velocity: [1.0, 0.0]}}\n")
    fg.expect("info: an inflow with no outflow face", ["info", ch], 2, r"ch\.yaml: the boundary velocities carry a net flux of 1 into the domain, and no face is an outflow")
    quick = os.path.join(a.repo, "cases", "shape_drag", "quick.yaml")
    fg.expect("info: an unknown shape parameter", ["info", quick, "--set", "design.parameters=[body.cyl.shape.r0, body.cyl.shape.zz, body.cyl.shape.a4]"], 2, r"shape fourier has no parameter 'zz'")
    fg.expect("info: optimizer.type lmvm with constraints", ["info", quick, "--set", "optimizer.type=lmvm"], 2, r"optimizer\.type=lmvm: lmvm cannot handle constraints")
    fg.expect("info: optimizer.type blmvm with constraints", ["info", quick, "--set", "optimizer.type=blmvm"], 2, r"blmvm cannot handle constraints")
    src = os.path.join(w, "src")
    fg.expect("a run on 1 x 1 (its fields: the initial file below)", ["run", case, "--set", f"output.dir={src}", "--set", "time.steps=2", "--set", "output.fields_every=2"], 0, "")
    f = os.path.join(src, "fields", "fields_000002.h5")
    fg.expect("info: an initial file of another domain", ["info", case, "--set", "grid.lengths=[2,1.5]", "--set", "initial.type=file", "--set", f"initial.file={f}"], 2, r"fields_000002\.h5 covers x in \[0, 1\], the case's domain \[0, 2\]: a field is interpolated only between grids of the same domain")
    out = fg.expect("run: an initial file of another grid (interpolated)", ["run", case, "--set", "grid.cells=[6,4]", "--set", f"output.dir={os.path.join(w, 'regrid')}", "--set", "time.steps=1", "--set", "initial.type=file", "--set", f"initial.file={f}"], 0, r"initial state: u, v and p interpolated from .*fields_000002\.h5 \(another grid\) and projected")
    if not re.search(r"initial state: u, v and p interpolated from .*fields_000002\.h5 \(another grid\) and projected", out):
        fail("run: an initial file of another grid: no 'interpolated' line in its output")
    pts = small_case(a, os.path.join(w, "pts.yaml"), "points:\n  low: {set: ['flow.re=abc']}\n")
    fg.expect("info: a bad points.<p>.set entry", ["info", pts], 2, r"pts\.yaml:\d+: points\.low\.set: flow\.re=abc: expected a real number")


def scenario_yaml(fg, a, w):
    case = small_case(a, os.path.join(w, "c.yaml"))
    fg.expect("!!str in a list", ["info", case, "--set", "grid.cells=[!!str 16, 12]"], 2, r"YAML tags are not supported \(!!str\)")
    fg.expect("!!python/object", ["info", case, "--set", "time.dt=!!python/object:os.system 1"], 2, r"YAML tags are not supported \(!!python/object:os.system\)")
    tagged = small_case(a, os.path.join(w, "tagged.yaml"), "output: !!map {monitor_every: 2}\n")
    fg.expect("!!map on a section", ["info", tagged], 2, r"tagged\.yaml:\d+: output: YAML tags are not supported \(!!map\)")
    cwd = os.path.join(w, "a", "b", "cwd")
    os.makedirs(cwd, exist_ok=True)
    esc = small_case(a, os.path.join(w, "esc.yaml"))
    before = set(os.listdir(w))
    rc, out = fg(["run", esc, "--set", "name=../../../escaped"], cwd=cwd)
    if rc != 2 or "name: '../../../escaped'" not in out or set(os.listdir(w)) != before or os.path.exists(os.path.join(w, "escaped")):
        fail(f"name: ../../../escaped: exit {rc}, or something was written outside out/: {out[-600:]}")
    else:
        print("  ok  name: ../../../escaped refused, nothing written")
    braces = os.path.join(w, "braces.yaml")
    with open(case) as fh:
        text = fh.read()
    with open(braces, "w") as fh:
        fh.write("# " + "{" * 40 + "\n#" + "{" * 40 + "\n" + text)
    fg.expect("a comment of 40 '{' in column 0", ["info", braces], 0, "")


def scenario_postproc(fg, a, w):
    import h5py
    import numpy as np
    case = small_case(a, os.path.join(w, "c.yaml"))
    run = os.path.join(w, "run")
    fg.expect("a run to damage", ["run", case, "--set", f"output.dir={run}", "--set", "output.fields_every=2"], 0, "")
    post = [sys.executable, os.path.join(a.repo, "postproc", "postproc")]
    for tag, damage, cmd in (("p of shape (0, 0)", "empty_p", ["fields", "{d}", "--out", "{d}/plots"]),
                             ("one ulp of p (its checksum)", "ulp_p", ["fields", "{d}", "--out", "{d}/plots"]),
                             ("spacing 0", "spacing", ["extract", "{d}", "--field", "p", "--line", "0.1,0.1:0.9,0.5", "-o", "{d}/line.csv"])):
        d = os.path.join(w, damage)
        shutil.copytree(run, d)
        for f in sorted(os.listdir(os.path.join(d, "fields"))):
            if not f.endswith(".h5"):
                continue
            with h5py.File(os.path.join(d, "fields", f), "r+") as h:
                if damage == "ulp_p":
                    v = h["p"][...]
                    v.flat[v.size // 2] = np.nextafter(v.flat[v.size // 2], np.inf)
                    h["p"][...] = v
                elif damage == "empty_p":
                    loc = h["p"].attrs["location"]
                    del h["p"]
                    h.create_dataset("p", shape=(0, 0), dtype="f8").attrs["location"] = loc
                else:
                    h.attrs["spacing"] = np.zeros(3)
                    for ax in "xy":
                        del h[f"{ax}_faces"], h[f"{ax}_centres"]
        p = subprocess.run(post + [c.format(d=d) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        errs = [l for l in p.stdout.splitlines() if "error:" in l.lower()]
        if p.returncode != 2 or "Traceback" in p.stdout or len(errs) != 1:
            fail(f"postproc on a field file with {tag}: exit {p.returncode}:\n{p.stdout[-1500:]}")
        else:
            print(f"  ok  postproc {cmd[0]} on a field file with {tag}: exit 2: {errs[0][:140]}")


def ulp(path, dataset, index=0):
    import h5py
    import numpy as np
    with h5py.File(path, "r+") as h:
        v = h[dataset][...]
        v.flat[index] = np.nextafter(v.flat[index], np.inf)
        h[dataset][...] = v


def scenario_state_damage(fg, a, w):
    import h5py
    case = small_case(a, os.path.join(w, "c.yaml"))
    base = ["adjoint", case, "--set", "time.steps=8", "-fg_fftw_planner", "estimate"]
    for tag, how in (("one ulp of parameter_adjoints", "ulp"), ("time := 123", "time")):
        d = os.path.join(w, f"adj_{how}")
        fg.expect(f"adjoint stopped after step 4 ({tag})", base + ["--set", f"output.dir={d}", "-fg_test_adjoint_signal_at", "4"], 75, "")
        res = os.path.join(d, "adjoint", "resume.h5")
        if not os.path.isfile(res):
            fail(f"no {res}")
            continue
        if how == "ulp":
            ulp(res, "parameter_adjoints")
            fg.expect(f"adjoint --resume, {tag}", base + ["--set", f"output.dir={d}", "--resume"], 4, r"resume\.h5: dataset /parameter_adjoints does not match its checksum")
        else:
            with h5py.File(res, "r+") as h:
                h.attrs["time"] = 123.0
            fg.expect(f"adjoint --resume, {tag}", base + ["--set", f"output.dir={d}", "--resume"], 4, r"resume\.h5: its time, step, case_hash and case_name do not match its meta_checksum")
    quick = os.path.join(a.repo, "cases", "shape_drag", "quick.yaml")
    d = os.path.join(w, "opt")
    opt = ["optimize", quick, "--set", f"output.dir={d}", "--set", "optimizer.max_iterations=1", "-fg_fftw_planner", "estimate"]
    fg.expect("optimize, one iteration", opt, 0, "", timeout=300)
    ev = os.path.join(d, "optimization", "evaluations", "eval_000000.h5")
    if not os.path.isfile(ev):
        fail(f"no {ev}")
        return
    ulp(ev, "head")
    fg.expect("optimize --resume, one ulp of the logged J", opt + ["--resume"], 4, r"eval_000000\.h5: dataset /head does not match its checksum", timeout=300)


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
