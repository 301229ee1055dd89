"""Families of hostile inputs around a case file (flowgrad fuzzer): paths, files, options, runs.

Output directories (long, odd, special, escaping the working directory: these run one at a time),
case files that are special files, the command line and --set, PETSc and -fg_* options, and
borderline values through `run`, `adjoint` and `check` on tiny two-step cases. Each fam_* appends
to a Gen (fuzz_gen.py); the order of the calls and of the random draws fixes the inputs of a seed.
"""
import copy
import json
import os
import shutil

from fuzz_schema import classify
from fuzz_yaml import Raw, emit_text


def fam_outdir(gen):
    """Output paths: run one at a time, with a check of DIR's parent around each."""
    w = gen.work
    label, tree = gen.bases[0]
    txt = emit_text(tree).replace("steps: 10", "steps: 2")
    a = gen.add_text

    def od(path):
        return txt + "output: {dir: %s}\n" % json.dumps(path)

    def long_dir(n):
        base = os.path.join(w, "long")
        rest = n - len(base) - 1
        parts = []
        while rest > 0:
            k = min(100, rest)
            if rest - k == 1:
                k -= 1
            parts.append("L" * k)
            rest -= k + 1
        p = os.path.join(base, *parts)
        return p[:n] if len(p) > n else p

    for n in (202, 203, 204, 255, 1000, 3000):
        p = long_dir(n)
        a("outdir", "output.dir of %d chars (info)" % len(p), od(p), "any", serial=True)
        a("outdir", "output.dir of %d chars (run)" % len(p), od(p), "any", cmd="run", serial=True)
    p = long_dir(1000)
    gen.add("outdir", "--set output.dir of %d chars (run)" % len(p),
            ["run", gen.write("outdir", txt), "--set", "output.dir=" + p, "-fg_fftw_planner", "estimate"],
            cmd="run", serial=True)
    comp = os.path.join(w, "o", "c" * 256)
    a("outdir", "output.dir with a 256-char component", od(comp), "refuse", serial=True)
    a("outdir", "output.dir with a 256-char component (run)", od(comp), "refuse", cmd="run", serial=True)
    a("outdir", "output.dir with a newline (info)", od(os.path.join(w, "o", "nl\nx")), "any", serial=True)
    a("outdir", "output.dir with a newline (run)", od(os.path.join(w, "o", "nl\nrun")), "any", cmd="run", serial=True)
    a("outdir", "output.dir with '..' inside DIR", od(os.path.join(w, "o", "a", "..", "dotdot")), "any", cmd="run", serial=True)
    a("outdir", "output.dir relative", od("rel/sub"), "any", cmd="run", serial=True)
    a("outdir", "output.dir ''", od(""), "refuse", serial=True)
    a("outdir", "output.dir ' '", od(" "), "any", serial=True)
    a("outdir", "output.dir '.'", od("."), "any", cmd="run", serial=True)
    a("outdir", "output.dir with a tab and a quote", od(os.path.join(w, "o", "t\tq\"'")), "any", cmd="run", serial=True)
    a("outdir", "output.dir with %s %n %d", od(os.path.join(w, "o", "fmt%s%n%d%x")), "any", cmd="run", serial=True)
    a("outdir", "output.dir with ANSI escape", od(os.path.join(w, "o", "esc\x1b[31m")), "any", serial=True)
    # escapes out of the working directory
    par = os.path.dirname(os.path.abspath(w))
    cw = os.path.join(w, "cwd")
    for cmd in ("info", "run"):
        nm = "fgfuzz_escaped_%s_%d" % (cmd, gen.args.seed)
        a("outdir", "name: ../../../%s without output.dir (%s)" % (nm, cmd),
          txt + "name: ../../../%s\n" % nm, "any", cmd=cmd, serial=True, cwd=cw,
          escape_targets=[os.path.join(par, nm)])
    nm = "fgfuzz_escaped_deep_%d" % gen.args.seed
    deep = "../" * 40 + "tmp/" + nm
    a("outdir", "name: ../../(x40)/tmp/%s (run)" % nm, txt + "name: %s\n" % json.dumps(deep), "any",
      cmd="run", serial=True, cwd=cw, escape_targets=["/tmp/" + nm])
    nm = "fgfuzz_escaped_set_%d" % gen.args.seed
    gen.add("outdir", "--set name=../../../%s (run)" % nm,
            ["run", gen.write("outdir", txt), "--set", "name=../../../" + nm, "-fg_fftw_planner", "estimate"],
            cmd="run", serial=True, cwd=cw, escape_targets=[os.path.join(par, nm)])
    a("outdir", "name: '..' (run)", txt + "name: ..\n", "any", cmd="run", serial=True, cwd=cw)
    a("outdir", "name: '/abs/olute' (run)", txt + "name: /fgfuzz_abs\n", "any", cmd="run", serial=True, cwd=cw,
      escape_targets=["/fgfuzz_abs"])
    # special targets
    reg = os.path.join(w, "inputs", "a_regular_file")
    open(reg, "w").write("x\n")
    a("outdir", "output.dir is a regular file", od(reg), "refuse", serial=True)
    a("outdir", "output.dir is a regular file (run)", od(reg), "refuse", cmd="run", serial=True)
    a("outdir", "output.dir under a regular file", od(reg + "/sub"), "refuse", serial=True)
    tgt = os.path.join(w, "o", "symlink_target")
    os.makedirs(tgt, exist_ok=True)
    ln = os.path.join(w, "inputs", "a_symlink_dir")
    _symlink(tgt, ln)
    a("outdir", "output.dir is a symlink to a directory (run)", od(ln), "any", cmd="run", serial=True)
    dang = os.path.join(w, "inputs", "a_dangling_symlink")
    _symlink(os.path.join(w, "o", "nowhere", "x"), dang)
    a("outdir", "output.dir is a dangling symlink (run)", od(dang), "any", cmd="run", serial=True)
    loop = os.path.join(w, "inputs", "a_symlink_loop")
    _symlink(loop, loop)
    a("outdir", "output.dir is a symlink loop", od(loop), "refuse", serial=True)
    a("outdir", "output.dir /dev/null", od("/dev/null"), "refuse", serial=True)
    a("outdir", "output.dir /dev/null (run)", od("/dev/null"), "refuse", cmd="run", serial=True)
    a("outdir", "output.dir /dev/null/x", od("/dev/null/x"), "refuse", serial=True)
    a("outdir", "output.dir /proc/self", od("/proc/self"), "refuse", serial=True)
    a("outdir", "output.dir /proc/fgfuzz/x (run)", od("/proc/fgfuzz/x"), "refuse", cmd="run", serial=True)
    # FFTW wisdom as a special file
    fifo = os.path.join(w, "inputs", "a_fifo_wisdom")
    _mkfifo(fifo)
    gen.add("outdir", "-fg_fftw_wisdom FIFO (run)",
            ["run", gen.write("outdir", od(os.path.join(w, "o", "wis_fifo"))), "-fg_fftw_wisdom", fifo],
            cmd="run", serial=True)
    d = os.path.join(w, "o", "wis_in_dir")

    def mk_wisdom_fifo(d=d):
        os.makedirs(d, exist_ok=True)
        _mkfifo(os.path.join(d, "fftw.wisdom"))
    gen.add("outdir", "<output.dir>/fftw.wisdom is a FIFO (run)",
            ["run", gen.write("outdir", od(d))], cmd="run", serial=True, setup=mk_wisdom_fifo)
    gen.add("outdir", "-fg_fftw_wisdom /dev/zero (run)",
            ["run", gen.write("outdir", od(os.path.join(w, "o", "wis_zero"))), "-fg_fftw_wisdom", "/dev/zero"],
            cmd="run", serial=True)
    gen.add("outdir", "-fg_fftw_wisdom a directory (run)",
            ["run", gen.write("outdir", od(os.path.join(w, "o", "wis_dir"))), "-fg_fftw_wisdom", w],
            cmd="run", serial=True)
    garb = os.path.join(w, "inputs", "a_garbage_wisdom")
    open(garb, "wb").write(b"(fftw-3.3.10 fftw_wisdom\n  (garbage \xff\xfe 1 2 3\n")
    gen.add("outdir", "-fg_fftw_wisdom a garbage file (run)",
            ["run", gen.write("outdir", od(os.path.join(w, "o", "wis_garb"))), "-fg_fftw_wisdom", garb],
            cmd="run", serial=True)
    gen.add("outdir", "-fg_fftw_wisdom /proc/fgfuzz/w (run)",
            ["run", gen.write("outdir", od(os.path.join(w, "o", "wis_proc"))), "-fg_fftw_wisdom", "/proc/fgfuzz/w"],
            cmd="run", serial=True)


def _symlink(src, dst):
    try:
        if os.path.lexists(dst):
            os.unlink(dst)
        os.symlink(src, dst)
    except OSError:
        pass


def _mkfifo(p):
    try:
        if os.path.lexists(p):
            os.unlink(p)
        os.mkfifo(p)
    except OSError:
        pass


def fam_special(gen):
    a = gen.add
    ins = gen.idir
    a("special_file", "case file is a directory", ["info", ins], expected="refuse")
    fifo = os.path.join(ins, "a_fifo_case.yaml")
    _mkfifo(fifo)
    a("special_file", "case file is a FIFO (nobody writes)", ["info", fifo], expected="refuse")
    a("special_file", "case file /dev/zero", ["info", "/dev/zero"], expected="refuse")
    a("special_file", "case file /dev/urandom", ["info", "/dev/urandom"], expected="refuse")
    a("special_file", "case file /dev/null", ["info", "/dev/null"], expected="refuse")
    a("special_file", "case file does not exist", ["info", os.path.join(ins, "nope.yaml")], expected="refuse")
    dang = os.path.join(ins, "a_dangling.yaml")
    _symlink(os.path.join(ins, "nowhere.yaml"), dang)
    a("special_file", "case file a dangling symlink", ["info", dang], expected="refuse")
    loop = os.path.join(ins, "a_loop.yaml")
    _symlink(loop, loop)
    a("special_file", "case file a symlink loop", ["info", loop], expected="refuse")
    a("special_file", "case file path of 5000 chars", ["info", os.path.join(ins, *(["p" * 99] * 50)) + ".yaml"], expected="refuse")
    a("special_file", "case file name of 300 chars", ["info", os.path.join(ins, "n" * 300 + ".yaml")], expected="refuse")
    a("special_file", "case file ''", ["info", ""], expected="refuse")
    a("special_file", "case file /proc/self/status", ["info", "/proc/self/status"], expected="refuse")
    a("special_file", "case file /proc/self/mem", ["info", "/proc/self/mem"], expected="refuse")
    a("special_file", "case file /etc/passwd", ["info", "/etc/passwd"], expected="refuse")
    a("special_file", "case file /dev/stdin (empty)", ["info", "/dev/stdin"], expected="refuse")
    label, tree = gen.bases[0]
    good = gen.write("special_file", emit_text(tree))
    ln = os.path.join(ins, "a_symlink_case.yaml")
    _symlink(good, ln)
    a("special_file", "case file a symlink to a good case", ["info", ln], expected="any")
    odd = os.path.join(ins, "odd name\nwith newline.yaml")
    shutil.copy(good, odd)
    a("special_file", "case file name with a newline", ["info", odd], expected="any")
    noext = os.path.join(ins, "noext")
    shutil.copy(good, noext)
    a("special_file", "case file without .yaml", ["info", noext], expected="any")
    a("special_file", "case file named '-x.yaml' via ./", ["info", "./-x.yaml"], expected="refuse")
    a("special_file", "case file: a checkpoint-like HDF5 file", ["info", os.path.join(ins, "rho_topology_bend.h5")], expected="refuse")


def fam_cli(gen):
    label, tree = gen.bases[0]
    good = gen.write("cli", emit_text(tree))
    w = gen.work
    a = gen.add
    o = ["--set", "output.dir=" + os.path.join(w, "o", "cli")]
    a("cli", "no arguments", [], expected="refuse")
    a("cli", "unknown command", ["runn", good], expected="refuse")
    a("cli", "command only", ["info"], expected="refuse")
    a("cli", "two case files", ["info", good, good], expected="refuse")
    a("cli", "--help", ["--help"], expected="any")
    a("cli", "--version extra", ["--version", "x"], expected="any")
    a("cli", "info --keys extra", ["info", "--keys", "x"], expected="any")
    for opt in ["--bogus", "--resum", "--Set", "---set", "--", "--set=", "--set=time.dt=1", "-", "--resume=1", "--seT"]:
        a("cli", "unknown option %r" % opt, ["info", good, opt] + o,
          expected="any" if opt.startswith("--set=time") else "refuse")
    a("cli", "--set without a value", ["info", good, "--set"], expected="refuse")
    a("cli", "--resume with info", ["info", good, "--resume"] + o, expected="any")
    sets = ["a", "=", "==", "grid.cells=[", "grid.cells=]", "time.dt=", "time.dt= ", "=1", ".=1",
            "grid..cells=1", "grid.cells.x=1", "grid.cells[0]=8", "time.dt=0.01\ntime.steps=5",
            "time.dt=1\n", "time.steps=1e3", "time.dt=!!str 0.01", "time.dt=!!float 0.01",
            "time.dt=*a", "grid={cells: [8,8]}", "body.new.shape=circle", "time.dt=.nan", "time.dt=1e309",
            "time.steps=2147483648", "time.steps=9223372036854775808", "grid.cells=[16,16,16,16]",
            "time.dt=[0.01]", "time.dt={a: 1}", "time.dt=0.01 # comment", "time.dt=0.01, 0.02",
            "time.dt='0.01'", "time.dt=\x1b[31m", "poisson.type=fftw\x7f", "time=5", "time.=5",
            "=time.dt", " time.dt=0.01", "time.dt =0.01", "TIME.DT=0.01", "time.dt=&a 0.01",
            "time.dt=--- 0.01", "time.dt=... ", "time.dt=%YAML 1.1", "output.dir=",
            "grid.cells=[16, 16]\x00"]
    exp_any = {"grid.cells[0]=8", "time.dt=1\n", "time.dt=0.01 # comment", " time.dt=0.01",
               "time.dt =0.01", "time.dt=&a 0.01", "time.dt=--- 0.01"}
    for s in sets:
        if "\x00" in s:
            continue
        a("cli", "--set %r" % s[:60], ["info", good, "--set", s] + o,
          expected="any" if s in exp_any else "refuse")
    a("cli", "--set name with a newline", ["info", good, "--set", "name=a\nb"] + o, expected="any")
    a("cli", "--set time.dt= 100000 digits", ["info", good, "--set", "time.dt=" + "1" * 100000] + o, expected="refuse")
    a("cli", "--set description= 100000 chars", ["info", good, "--set", "description=" + "x" * 100000] + o, expected="any")
    a("cli", "--set key of 100000 chars", ["info", good, "--set", "k" * 100000 + "=1"] + o, expected="refuse")
    a("cli", "--set invalid UTF-8 value", ["info", good, "--set", b"description=caf\xe9"] + o, expected="refuse")
    a("cli", "--set invalid UTF-8 key", ["info", good, "--set", b"gr\xffid.cells=[8,8]"] + o, expected="refuse")
    a("cli", "500 --set options", ["info", good] + ["--set", "time.steps=3"] * 500 + o, expected="any")
    a("cli", "case file after a PETSc option", ["info", "-log_view", good], expected="refuse")
    a("cli", "--set before the case file", ["info", "--set", "time.steps=3", good], expected="any")


def fam_petsc(gen):
    rb = dict(gen.run_bases)
    tree = rb["good"]
    run = gen.write("petsc", emit_text(tree))
    w = gen.work
    a = gen.add
    est = ["-fg_fftw_planner", "estimate"]

    def rn(desc, opts, exp="refuse", base=run, cmd="run"):
        a("petsc", desc, [cmd, base] + opts, expected=exp, cmd=cmd)
    a("petsc", "info -log_view :/proc/nope", ["info", run, "-log_view", ":/proc/nope"], expected="refuse")
    rn("run -log_view :/proc/nope", ["-log_view", ":/proc/nope"] + est)
    rn("run -log_view ascii:/proc/nope:ascii_info_detail", ["-log_view", "ascii:/proc/nope:ascii_info_detail"] + est)
    rn("-fg_test_raise_signal_at_step abc", ["-fg_test_raise_signal_at_step", "abc"] + est)
    rn("-fg_test_raise_signal_at_step -5", ["-fg_test_raise_signal_at_step", "-5"] + est)
    rn("-fg_test_raise_signal_at_step 1e40", ["-fg_test_raise_signal_at_step", "1e40"] + est)
    rn("-fg_test_raise_signal_at_step (no value)", ["-fg_test_raise_signal_at_step"] + est)
    rn("-fg_test_raise_signal_rank 99 (1 rank)", ["-fg_test_raise_signal_at_step", "1", "-fg_test_raise_signal_rank", "99"] + est, exp="any")
    rn("-fg_test_raise_signal_rank -1", ["-fg_test_raise_signal_at_step", "1", "-fg_test_raise_signal_rank", "-1"] + est)
    rn("-fg_test_raise_signal KILL9", ["-fg_test_raise_signal_at_step", "1", "-fg_test_raise_signal", "KILL9"] + est)
    rn("-fg_fftw_planner bogus", ["-fg_fftw_planner", "bogus"])
    rn("-fg_fftw_planner ''", ["-fg_fftw_planner", ""])
    rn("-fg_viscous_solver nope (explicit viscous term: unused)", ["-fg_viscous_solver", "nope"] + est, exp="any")
    rn("-fg_viscous_solver nope (time.viscous implicit)", ["--set", "time.viscous=implicit", "-fg_viscous_solver", "nope"] + est)
    rn("-fg_fftw_tridiagonal maybe", ["-fg_fftw_tridiagonal", "maybe"] + est)
    a("petsc", "-options_file missing", ["info", run, "-options_file", os.path.join(w, "nope.opts")], expected="refuse")
    a("petsc", "-options_file a directory", ["info", run, "-options_file", w], expected="refuse")
    a("petsc", "-options_file /dev/zero", ["info", run, "-options_file", "/dev/zero"], expected="refuse")
    binf = os.path.join(gen.idir, "a_binary.opts")
    open(binf, "wb").write(bytes(gen.rng.randrange(256) for _ in range(300)))
    a("petsc", "-options_file binary garbage", ["info", run, "-options_file", binf], expected="refuse")
    rec = os.path.join(gen.idir, "a_recursive.opts")
    open(rec, "w").write("-options_file %s\n" % rec)
    a("petsc", "-options_file including itself", ["info", run, "-options_file", rec], expected="refuse")
    fifo = os.path.join(gen.idir, "a_fifo.opts")
    _mkfifo(fifo)
    a("petsc", "-options_file a FIFO", ["info", run, "-options_file", fifo], expected="refuse")
    a("petsc", "-options_file (no value)", ["info", run, "-options_file"], expected="refuse")
    rn("-poisson_ksp_type bogus (poisson ksp)", ["--set", "poisson.type=ksp", "-poisson_ksp_type", "bogus"] + est)
    rn("-poisson_ksp_max_it -1 (poisson ksp)", ["--set", "poisson.type=ksp", "-poisson_ksp_max_it", "-1"] + est)
    rn("-poisson_pc_type nothing (poisson ksp)", ["--set", "poisson.type=ksp", "-poisson_pc_type", "nothing"] + est)
    rn("-help", ["-help"] + est, exp="any")
    rn("unused -fg_penalty_inner_its -3 (run)", ["-fg_penalty_inner_its", "-3"] + est, exp="any")
    cav = dict(gen.run_bases)["cavity"]
    chk = gen.write("petsc", emit_text(cav))
    for opt, val in [("-fg_check_dot_rtol", "-1"), ("-fg_check_taylor_order", "abc"),
                     ("-fg_check_fd_step", "0"), ("-fg_check_fd_rtol", ".nan"), ("-fg_check_taylor_eps", "0")]:
        rn("check %s %s" % (opt, val), [opt, val] + est, base=chk, cmd="check")
    rn("check -fg_check_seed 12345 (valid)", ["-fg_check_seed", "12345"] + est, exp="any", base=chk, cmd="check")
    rn("adjoint -fg_test_adjoint_kill_at abc", ["-fg_test_adjoint_kill_at", "abc"] + est, base=chk, cmd="adjoint")


def fam_run(gen, n):
    """Valid-looking or borderline values through `run` (2 steps): exit 0, or 2/3/4 with a message."""
    rng = gen.rng
    edits = [
        ("output.fields_every", "1"), ("output.checkpoint_every", "1"), ("output.checkpoint_keep", "1"),
        ("output.monitor_every", "1000000"), ("time.steps", "0"), ("time.steps", "1"),
        ("time.dt", "1e308"), ("time.dt", "5e-324"), ("time.dt", "1e-300"), ("time.cfl_max", "1e-300"),
        ("time.cfl_max", "1e308"), ("flow.re", "1e-300"), ("flow.re", "1e300"), ("flow.force", "[1e308, 1e308]"),
        ("poisson.type", "ksp"), ("poisson.max_it", "1"), ("poisson.rtol", "0.999999"), ("poisson.rtol", "1e-300"),
        ("time.viscous", "implicit"), ("time.viscous", "explicit"), ("initial.type", "uniform"),
        ("grid.cells", "[2, 2]"), ("grid.cells", "[3, 5]"), ("grid.lengths", "[1e-300, 1e-300]"),
        ("grid.lengths", "[1e300, 1e300]"), ("grid.origin", "[1e308, 1e308]"), ("grid.origin", "[-1e308, 0]"),
        ("time.dt", "0.5"), ("flow.u_ref", "1e-300"), ("output.checkpoint_keep", "100000"),
    ]
    for i in range(n):
        label, tree = gen.run_bases[i % len(gen.run_bases)]
        t = copy.deepcopy(tree)
        kp, raw = edits[i % len(edits)] if i < len(edits) else rng.choice(edits)
        parts = kp.split(".")
        dim = len(t["grid"]["cells"])
        if raw.startswith("[") and dim == 3:
            raw = raw[:-1] + ", " + raw[1:-1].split(",")[-1].strip() + "]"
        sec = t.setdefault(Raw(parts[0]), {})
        if not isinstance(sec, dict):
            continue
        if kp == "flow.re" and "nu" in sec:
            del sec["nu"]
        if kp == "flow.u_ref" and "nu" in sec:
            continue
        sec[Raw(parts[1])] = Raw(raw)
        exp = classify(gen.schema, t, tuple(parts), raw) if not raw.startswith("[") else "any"
        gen.add_tree("run", "run %s: %s := %s" % (label, kp, raw), t, exp, cmd="run")
    # adjoint on the tiny cavity
    cav = dict(gen.run_bases)["cavity"]
    gen.add_tree("run", "adjoint cavity (2 steps)", cav, "accept", cmd="adjoint")
    gen.add_tree("run", "check cavity (2 steps)", cav, "any", cmd="check")
    t = copy.deepcopy(cav)
    t["design"]["parameters"] = [Raw("flow.nu"), Raw("flow.nu")]
    gen.add_tree("run", "adjoint: design.parameters twice flow.nu", t, "refuse", cmd="adjoint")
    t = copy.deepcopy(cav)
    t["objective"]["energy"]["kind"] = Raw("nope")
    gen.add_tree("run", "adjoint: objective kind nope", t, "refuse", cmd="adjoint")
    t = copy.deepcopy(cav)
    t["adjoint"] = {Raw("memory"): Raw('"1 KiB"')}
    gen.add_tree("run", "adjoint: adjoint.memory 1 KiB", t, "any", cmd="adjoint")
    t = copy.deepcopy(cav)
    t["adjoint"] = {Raw("memory"): Raw('"-5 GiB"')}
    gen.add_tree("run", "adjoint: adjoint.memory -5 GiB", t, "refuse", cmd="adjoint")
    t = copy.deepcopy(cav)
    t["adjoint"] = {Raw("memory"): Raw('"1e400 GiB"')}
    gen.add_tree("run", "adjoint: adjoint.memory 1e400 GiB", t, "refuse", cmd="adjoint")
    t = copy.deepcopy(cav)
    t["adjoint"] = {Raw("storage"): Raw("disk"), Raw("segment"): Raw("1")}
    gen.add_tree("run", "adjoint: storage disk, segment 1", t, "any", cmd="adjoint")
    # --resume into a directory with no / a foreign checkpoint
    good = dict(gen.run_bases)["good"]
    gen.add_tree("run", "run --resume with no checkpoint", good, "refuse", cmd="run", extra=["--resume"])
