#!/usr/bin/python3
"""Hostile-input fuzzing of the flowgrad command line and case files.

    fuzz_inputs.py --flowgrad BIN --repo REPO --work DIR [--seed N] [--count N] [--jobs N]
                   [--timeout S] [--commands LIST] [--dry-run] [--list-failures]

Generates (deterministically from --seed) at least --count hostile inputs from the repository's
case files (cases/*/*.yaml, tests/case/good.yaml; made small), writes them under DIR/inputs, runs
each one (mostly `flowgrad info`, some `run`, a few `adjoint`/`check`) with a timeout, and judges it:

  * never a signal, a timeout ("hang"), exit 1 (internal error), or any of "Traceback",
    "PETSC ERROR", "(internal error", "AddressSanitizer", "runtime error:", "buffer overflow",
    "Segmentation fault", "core dumped", "MPI_ABORT" in the output;
  * a nonzero exit is 2 or 4 (3, numerical failure, is allowed for run/adjoint of inputs that are
    not known to be invalid), and stderr holds exactly one line containing "error:", which starts
    with "flowgrad: error:" and names something (a key path, a file, a line, an option);
  * an input known to be invalid (expected = refuse) must not exit 0 ("accepted"); a control
    (expected = accept) must exit 0;
  * nothing is created outside DIR: not in the repository, not in DIR's parent (checked around
    every input that plays with paths, which run one at a time).

--commands LIST (comma-separated subset of info,run,adjoint,check; default all) keeps only the
inputs whose command is in LIST, e.g. `--commands info` for the parser alone under an
AddressSanitizer build. Every input is still generated (same files, same numbers, same random
draws as without it); the others are just not run. --dry-run lists the (kept) inputs, runs none.

Prints a table per family and every failure on one line; exits 1 if any input failed.
Every input's files stay under DIR; each runs in its own working directory DIR/c/NNNN (the
path-escaping ones in DIR/cwd, so that `name: ../../../escaped` would land in DIR's parent).

This file is the command line, the runner, the verdicts and the report; the inputs come from
fuzz_yaml.py (the YAML model), fuzz_schema.py (the key table and expected verdicts), fuzz_gen.py
(Inp, Gen, the base cases), fuzz_families_case.py and fuzz_families_env.py (the families).
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fuzz_families_case import (HUGE, NEGATIVE, NONFINITE, TINY, ZERO, fam_anchors,  # noqa: E402
                                fam_binary, fam_control, fam_delete, fam_duplicate, fam_empty,
                                fam_long, fam_nesting, fam_points, fam_probes, fam_tags,
                                fam_truncated, fam_type_swap, fam_utf8, fam_values)
from fuzz_families_env import fam_cli, fam_outdir, fam_petsc, fam_run, fam_special  # noqa: E402
from fuzz_gen import Gen, make_bases  # noqa: E402
from fuzz_proc import run_bounded  # noqa: E402
from fuzz_schema import load_schema  # noqa: E402

COMMANDS = ("info", "run", "adjoint", "check")

FORBIDDEN = ["Traceback", "PETSC ERROR", "(internal error", "AddressSanitizer", "runtime error:",
             "buffer overflow", "Segmentation fault", "core dumped", "MPI_ABORT",
             "exited on signal", "stack smashing"]


# ----------------------------------------------------------------------------------------------
# Runner

def names_something(line, inp):
    body = line.split("flowgrad: error:", 1)[-1]
    if re.search(r"[A-Za-z_][\w<>\[\]]*\.[A-Za-z_][\w<>\[\]]*", body):
        return True          # a key path (grid.cells) or a file name (x.yaml)
    if re.search(r":\d+", body):
        return True          # a line number
    if re.search(r"(^|[\s'\"(`])--?[A-Za-z]", body):
        return True          # an option
    if "/" in body:
        return True          # a path
    if re.search(r"\b(command|argument|case file|option)\b", body):
        return True
    return False


def snapshot_tree(root, exclude):
    out = set()
    for dp, dns, fns in os.walk(root):
        if dp == root and ".git" in dns:
            dns.remove(".git")
        dns[:] = [d for d in dns if os.path.abspath(os.path.join(dp, d)) != exclude]
        for n in dns + fns:
            out.add(os.path.join(dp, n))
    return out


def listdir_set(d):
    try:
        return set(os.listdir(d))
    except OSError:
        return set()


def run_one(inp, args, env):
    cwd = inp.cwd or os.path.join(args.work, "c", "%04d" % inp.id)
    os.makedirs(cwd, exist_ok=True)
    if inp.setup:
        inp.setup()
    argv = [os.fsencode(args.flowgrad)] + [a if isinstance(a, bytes) else os.fsencode(a) for a in inp.argv]
    env = dict(env)
    if env.get("OMPI_MCA_ess_singleton_isolated") == "1":
        # Singletons without an orted all share the session directory .../jf.0/1 under TMPDIR;
        # a private TMPDIR keeps concurrent inputs from removing each other's.
        tmp = os.path.join(args.work, "c", "%04d" % inp.id, "tmp")
        os.makedirs(tmp, exist_ok=True)
        env["TMPDIR"] = tmp
    rc, out, err, timed_out, dt = run_bounded(argv, cwd, env, inp.timeout or args.timeout)
    return judge(inp, rc, out, err, timed_out, dt)


def judge(inp, rc, out, err, timed_out, dt):
    res = {"rc": rc, "time": dt, "fail": None, "msg": "", "outcome": None}
    errlines = [l for l in err.splitlines() if "error:" in l]
    res["msg"] = (errlines[0] if errlines else (err.strip().splitlines() or out.strip().splitlines()[-1:] or [""])[0])[:200]
    runlike = inp.cmd in ("run", "adjoint", "check")
    if timed_out:
        res["fail"] = "hang"
        res["msg"] = "no exit after %.0f s" % dt
        return res
    if rc < 0 or rc > 128:
        res["fail"] = "signal"
        res["msg"] = "killed by signal %d; %s" % (-rc if rc < 0 else rc - 128, res["msg"])
        return res
    both = out + "\n" + err
    bad = [s for s in FORBIDDEN if s in both]
    if rc == 1:
        res["fail"] = "exit1"
        return res
    if bad:
        res["fail"] = "crash-text"
        res["msg"] = "output holds %r; %s" % (bad[0], res["msg"])
        return res
    if rc == 0:
        res["outcome"] = "accepted"
        if inp.expected == "refuse":
            res["fail"] = "accepted"
            res["msg"] = "exit 0 for an invalid input"
        return res
    res["outcome"] = "refused"
    allowed = {2, 4} | ({3} if runlike and inp.expected != "refuse" else set())
    if rc not in allowed:
        res["fail"] = "exit%d" % rc
        return res
    if len(errlines) != 1:
        res["fail"] = "messages"
        res["msg"] = "%d lines with 'error:' on stderr; first: %s" % (len(errlines), res["msg"])
        return res
    if not errlines[0].startswith("flowgrad: error:"):
        res["fail"] = "message-format"
        return res
    if not names_something(errlines[0], inp):
        res["fail"] = "message-vague"
        return res
    # the message is one line: a newline of the input echoed in it splits it, and the part after
    # the break is a line of its own that flowgrad did not mean to print
    stray = [l for l in err.splitlines() if l.strip() and not l.startswith("flowgrad")]
    if stray:
        res["fail"] = "message-split"
        res["msg"] = "stderr line %r besides the message %s" % (stray[0][:60], res["msg"])
        return res
    if inp.expected == "accept" and not (inp.cmd == "check" and rc == 3):
        res["fail"] = "refused-valid"
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flowgrad", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=600, help="at least this many inputs (default 600)")
    ap.add_argument("--jobs", type=int, default=4, help="inputs run at once (default 4; they mostly wait)")
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--dry-run", action="store_true", help="generate the inputs under DIR, list them, run nothing")
    ap.add_argument("--list-failures", action="store_true",
                    help="also print, per failure, the command that reproduces it and its stderr")
    ap.add_argument("--commands", default=",".join(COMMANDS), metavar="LIST",
                    help="run only the inputs of these commands (comma-separated subset of %s; "
                         "default all)" % ",".join(COMMANDS))
    args = ap.parse_args()
    args.commands = [c.strip() for c in args.commands.split(",") if c.strip()]
    unknown = [c for c in args.commands if c not in COMMANDS]
    if unknown or not args.commands:
        ap.error("--commands: %s is not a comma-separated subset of %s" %
                 (", ".join(map(repr, unknown)) or "nothing", ",".join(COMMANDS)))
    filtered = set(args.commands) != set(COMMANDS)
    args.flowgrad = os.path.abspath(args.flowgrad)
    args.repo = os.path.abspath(args.repo)
    args.work = os.path.abspath(args.work)
    if os.path.exists(args.work):
        shutil.rmtree(args.work)
    os.makedirs(args.work)
    for d in ("c", "o", "cwd"):
        os.makedirs(os.path.join(args.work, d), exist_ok=True)
    t_start = time.time()
    schema = load_schema(args.repo)
    gen = Gen(args, schema)
    make_bases(gen)

    fam_control(gen)
    fam_cli(gen)
    fam_petsc(gen)
    fam_special(gen)
    fam_empty(gen)
    fam_long(gen)
    fam_nesting(gen)
    fam_anchors(gen)
    fam_utf8(gen)
    fam_binary(gen, 8)
    fam_tags(gen, 30)
    fam_probes(gen)
    fam_points(gen)
    fam_outdir(gen)
    fam_run(gen, 40)
    fam_duplicate(gen, 16)
    fixed = len(gen.inputs)
    # the random families fill up to --count
    rest = max(args.count - fixed, 240)
    share = [("type_swap", 0.25), ("delete_key", 0.12), ("huge", 0.14), ("tiny", 0.09),
             ("negative", 0.1), ("zero", 0.08), ("nonfinite", 0.12), ("truncated", 0.10)]
    for fam, f in share:
        k = max(8, int(round(rest * f)))
        if fam == "type_swap":
            fam_type_swap(gen, k)
        elif fam == "delete_key":
            fam_delete(gen, k)
        elif fam == "truncated":
            fam_truncated(gen, k)
        else:
            fam_values(gen, fam, {"huge": HUGE, "tiny": TINY, "negative": NEGATIVE, "zero": ZERO,
                                  "nonfinite": NONFINITE}[fam], k)
    # every input is generated whatever --commands says, so that the kept ones are the same
    inputs = [i for i in gen.inputs if i.cmd in args.commands]
    kept = " (of %d generated; commands %s)" % (len(gen.inputs), ",".join(args.commands)) if filtered else ""
    t_gen = time.time() - t_start
    if args.dry_run:
        for i in inputs:
            print("%04d %-13s %-7s %-6s %s" % (i.id, i.family, i.cmd, i.expected, one_line(i.desc, 100)))
        print("%d inputs%s generated under %s in %.1f s" % (len(inputs), kept, args.work, t_gen))
        return

    env = dict(os.environ)
    env["OMPI_MCA_odls_base_sigkill_timeout"] = "0"
    env.setdefault("OMPI_MCA_ess_singleton_isolated", "1")
    env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"

    parent = os.path.dirname(args.work)
    repo_before = snapshot_tree(args.repo, args.work)
    par_before = listdir_set(parent)
    esc_before = {t: os.path.lexists(t) for i in inputs for t in i.escape_targets}

    par_inputs = [i for i in inputs if not i.serial]
    ser_inputs = [i for i in inputs if i.serial]
    # The inputs that play with paths run one at a time (a check of DIR's parent around each), in
    # a thread of their own beside the pool of the others (whose paths all lie under DIR).
    def serial_phase():
        for i in ser_inputs:
            run_serial(i)

    notes = []

    def related(i, name):
        """Whether a new entry of DIR's parent named name can come from input i."""
        blob = b""
        for x in i.argv:
            xb = x if isinstance(x, bytes) else os.fsencode(x)
            blob += xb + b"\n"
            if xb.startswith(os.fsencode(gen.idir)) and os.path.isfile(xb):
                try:
                    with open(xb, "rb") as f:
                        blob += f.read(2 << 20)
                except OSError:
                    pass
        return os.fsencode(name) in blob

    def run_serial(i):
        before = listdir_set(parent)
        i.result = run_one(i, args, env)
        new = sorted(listdir_set(parent) - before)
        escaped = [t for t in i.escape_targets if os.path.lexists(t) and not esc_before.get(t)]
        mine = [os.path.join(parent, n) for n in new if related(i, n)]
        notes.extend(os.path.join(parent, n) for n in new if not related(i, n))
        bad = sorted(set(mine + escaped))
        if bad:
            i.result["fail"] = "escaped"
            i.result["msg"] = "created outside %s: %s" % (args.work, ", ".join(bad))
            for pth in escaped:     # remove what this input made outside DIR (known names only)
                try:
                    shutil.rmtree(pth) if os.path.isdir(pth) and not os.path.islink(pth) else os.unlink(pth)
                except OSError:
                    pass

    st = threading.Thread(target=serial_phase)
    st.start()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs - 1)) as ex:
        futs = {ex.submit(run_one, i, args, env): i for i in par_inputs}
        for f in concurrent.futures.as_completed(futs):
            futs[f].result = f.result()
    st.join()
    with open(os.path.join(args.work, "results.tsv"), "w") as f:
        for i in inputs:
            r = i.result
            f.write("%04d\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%s\n" % (
                i.id, i.family, i.cmd, i.expected, r["rc"], r["fail"] or "-", r["time"],
                one_line(i.desc, 120), one_line(r["msg"], 200)))
    repo_new = sorted(snapshot_tree(args.repo, args.work) - repo_before)
    par_new = sorted(listdir_set(parent) - par_before)
    wall = time.time() - t_start

    # report (every family, in the order generated; one that --commands emptied shows 0)
    fams = []
    for i in gen.inputs:
        if i.family not in fams:
            fams.append(i.family)
    print("flowgrad fuzz: %d inputs%s (seed %d), %s, %.0f s (generation %.1f s)" %
          (len(inputs), kept, args.seed, args.flowgrad, wall, t_gen))
    print("%-14s %6s %8s %9s %9s" % ("family", "count", "refused", "accepted", "failures"))
    tot = [0, 0, 0, 0]
    for fam in fams:
        its = [i for i in inputs if i.family == fam]
        c = len(its)
        ref = sum(1 for i in its if i.result["outcome"] == "refused")
        acc = sum(1 for i in its if i.result["outcome"] == "accepted")
        fl = sum(1 for i in its if i.result["fail"])
        for k, v in enumerate((c, ref, acc, fl)):
            tot[k] += v
        print("%-14s %6d %8d %9d %9d" % (fam, c, ref, acc, fl))
    print("%-14s %6d %8d %9d %9d" % ("total", *tot))
    kinds = {}
    fails = [i for i in inputs if i.result["fail"]]
    for i in fails:
        kinds[i.result["fail"]] = kinds.get(i.result["fail"], 0) + 1
    if fails:
        print("\nfailures by kind: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items(), key=lambda x: -x[1])))
        print("\nFAILURES (family | input | expected | rc | kind | first message line):")
    order = ["signal", "hang", "escaped", "crash-text", "exit1", "accepted", "exit3", "messages",
             "message-split", "message-format", "message-vague", "refused-valid"]
    fails.sort(key=lambda i: (order.index(i.result["fail"]) if i.result["fail"] in order else 99, i.id))
    for i in fails:
        r = i.result
        print("FAIL %-13s #%04d %s | expected %s | rc %s | %s | %s" %
              (i.family, i.id, one_line(i.desc, 90), i.expected, r["rc"], r["fail"], one_line(r["msg"], 160)))
        if args.list_failures:
            cwd = i.cwd or os.path.join(args.work, "c", "%04d" % i.id)
            argv = [args.flowgrad] + [a.decode("latin-1") if isinstance(a, bytes) else a for a in i.argv]
            cmdline = " ".join(shlex.quote(a) if len(a) < 300 else shlex.quote(a[:60]) + "...(%d chars)" % len(a) for a in argv)
            print("     repro: cd %s && %s" % (shlex.quote(cwd), cmdline))
    extra = 0
    if repo_new:
        extra += 1
        print("FAIL created in the repository during the run: " + ", ".join(repo_new[:20]))
    for n in notes:
        print("note: %s appeared in DIR's parent during a serial input, not named by it (another process?)" % n)
    if par_new and False:
        print("note: new entries in %s during the run (other processes too may make them): %s" %
              (parent, ", ".join(par_new[:20])))
    print("\n%d of %d inputs failed" % (len(fails), len(inputs)))
    sys.exit(1 if fails or extra else 0)


def one_line(s, n):
    s = s.replace("\n", "\\n").replace("\t", "\\t").replace("\x1b", "\\e")
    return s if len(s) <= n else s[: n - 3] + "..."


if __name__ == "__main__":
    main()
