#!/usr/bin/python3
"""Damaged checkpoints: does `flowgrad run --resume` refuse them, or resume silently?

    damage_checkpoint.py --flowgrad BIN --repo REPO --work DIR [--seed N] [--flips N]
                         [--jobs N] [--timeout S] [--case CASE]

Runs a tiny case (cases/cavity/cavity.yaml on 16 x 16 cells, 8 steps, a checkpoint every 4) into
DIR/base, then resumes it to step 12 twice, undamaged (the reference; the two must agree bit for
bit). Then, for each of --flips random single-bit flips anywhere in the newest checkpoint
(checkpoint_000008.h5), and for a few targeted edits made with h5py (the root `time` attribute
set to 123.0, the dt history changed, a value of u changed by one ulp, ...), it copies DIR/base,
damages the copy's checkpoint and resumes it the same way. Verdict per damage:

  refused    exit 4 and exactly one stderr line with "error:", starting "flowgrad: error:" and
             naming the checkpoint file (exit 2 is also taken where the message is one of the
             documented mismatches of docs/output.md: another grid, another case, a step after
             time.steps -- a flipped bit can turn a checkpoint into exactly that); fine
  identical  exit 0 and the final checkpoint, the final fields and history.csv (less wall_time)
             equal the reference's bit for bit (the bit was not used); fine
  silent     exit 0 and a different result: FAILURE
  anything else (another exit code, a signal, a timeout, a traceback, several messages): FAILURE

Prints the counts and every failure (with the HDF5 object the flipped byte belongs to); exits 1 if
any failed. Everything is written under DIR.
"""
import argparse
import concurrent.futures
import csv
import os
import random
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzz_proc import run_bounded  # noqa: E402

FORBIDDEN = ["Traceback", "PETSC ERROR", "(internal error", "AddressSanitizer", "runtime error:",
             "buffer overflow", "Segmentation fault", "core dumped", "MPI_ABORT", "HDF5-DIAG"]
CKPT = "checkpoint_000008.h5"
DOCUMENTED_2 = ["another grid", "written by another case", "after time.steps"]


def sets(outdir, steps):
    return ["--set", "grid.cells=[16,16]", "--set", "time.steps=%d" % steps,
            "--set", "output.checkpoint_every=4", "--set", "output.monitor_every=4",
            "--set", "output.fields_every=0", "--set", "output.dir=" + outdir,
            "-fg_fftw_planner", "estimate"]


def run(args, argv, cwd, env, timeout):
    return run_bounded([args.flowgrad] + argv, cwd, env, timeout)


def result_of(outdir):
    """Everything a resumed run leaves that must repeat bit for bit."""
    import h5py
    import numpy
    res = {}
    for rel in ("checkpoints/checkpoint_000012.h5", "fields/fields_000012.h5"):
        p = os.path.join(outdir, rel)
        if not os.path.exists(p):
            res[rel] = None
            continue
        try:
            with h5py.File(p, "r") as f:
                for name in ("u", "v", "p"):
                    if name in f:
                        res[rel + ":" + name] = numpy.ascontiguousarray(f[name][...]).tobytes()
                for a in ("step", "time"):
                    if a in f.attrs:
                        res[rel + "@" + a] = numpy.asarray(f.attrs[a]).tobytes()
        except Exception as e:  # noqa
            res[rel] = "unreadable: %s" % e
    p = os.path.join(outdir, "history.csv")
    if os.path.exists(p):
        with open(p, newline="") as f:
            rows = list(csv.reader(f))
        if rows:
            keep = [i for i, c in enumerate(rows[0]) if c not in ("wall_time",)]
            res["history"] = [[r[i] for i in keep if i < len(r)] for r in rows]
    return res


def diff(a, b):
    keys = sorted(set(a) | set(b))
    return [k for k in keys if a.get(k) != b.get(k)]


def object_at(path, offset):
    """The HDF5 object whose contiguous data holds byte offset (else 'metadata or free space')."""
    try:
        import h5py
        found = []
        with h5py.File(path, "r") as f:
            def visit(name, obj):
                if isinstance(obj, h5py.Dataset):
                    try:
                        off = obj.id.get_offset()
                        size = obj.id.get_storage_size()
                    except Exception:  # noqa
                        return
                    if off is not None and off <= offset < off + size:
                        found.append("/%s data" % name)
            f.visititems(visit)
        return found[0] if found else "metadata or free space"
    except Exception:  # noqa
        return "?"


def judge(rc, out, err, to, res, ref):
    if to:
        return "hang", "no exit before the timeout"
    if rc < 0 or rc > 128:
        return "signal", "killed by signal %d" % (-rc if rc < 0 else rc - 128)
    both = out + err
    errlines = [l for l in err.splitlines() if "error:" in l]
    first = errlines[0] if errlines else (err.strip().splitlines() or [""])[0]
    bad = [s for s in FORBIDDEN if s in both]
    if bad:
        return "crash-text", "output holds %r; %s" % (bad[0], first)
    if rc == 0:
        d = diff(res, ref)
        if not d:
            return "identical", ""
        return "silent", "exit 0 but differs from the undamaged resume in: " + ", ".join(d[:6])
    if rc not in (2, 4):
        return "exit%d" % rc, first
    if len(errlines) != 1:
        return "messages", "%d lines with 'error:'; first: %s" % (len(errlines), first)
    line = errlines[0]
    if not line.startswith("flowgrad: error:"):
        return "message-format", line
    if CKPT not in line:
        return "message-vague", line
    if rc == 2 and not any(s in line for s in DOCUMENTED_2):
        return "exit2", line
    return ("refused" if rc == 4 else "refused2"), line


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flowgrad", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--flips", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--case", default="cases/cavity/cavity.yaml")
    args = ap.parse_args()
    args.flowgrad = os.path.abspath(args.flowgrad)
    args.work = os.path.abspath(args.work)
    case = os.path.join(os.path.abspath(args.repo), args.case)
    if os.path.exists(args.work):
        shutil.rmtree(args.work)
    os.makedirs(args.work)
    import h5py
    import numpy
    t_start = time.time()
    env = dict(os.environ)
    env["OMPI_MCA_odls_base_sigkill_timeout"] = "0"
    env.setdefault("OMPI_MCA_ess_singleton_isolated", "1")

    def env_for(d):
        e = dict(env)
        if e.get("OMPI_MCA_ess_singleton_isolated") == "1":
            # isolated singletons share TMPDIR/ompi.*/jf.0/1: a private TMPDIR for each run
            tmp = os.path.join(args.work, "tmp", os.path.basename(d))
            os.makedirs(tmp, exist_ok=True)
            e["TMPDIR"] = tmp
        return e

    base = os.path.join(args.work, "base")
    rc, out, err, to, _ = run(args, ["run", case] + sets(base, 8), args.work, env_for(base), 60)
    ck = os.path.join(base, "checkpoints", CKPT)
    if rc != 0 or not os.path.exists(ck):
        print("damage_checkpoint: the base run failed (exit %s):\n%s" % (rc, err[-2000:]))
        sys.exit(2)

    def resume(d):
        return run(args, ["run", case, "--resume"] + sets(d, 12), args.work, env_for(d), args.timeout)

    refs = []
    for k in (1, 2):
        d = os.path.join(args.work, "ref%d" % k)
        shutil.copytree(base, d, symlinks=True)
        rc, out, err, to, _ = resume(d)
        if rc != 0:
            print("damage_checkpoint: the undamaged resume failed (exit %s):\n%s" % (rc, err[-2000:]))
            sys.exit(2)
        refs.append(result_of(d))
    if diff(refs[0], refs[1]):
        print("damage_checkpoint: two undamaged resumes differ (%s): the comparison would mean nothing"
              % ", ".join(diff(refs[0], refs[1])))
        sys.exit(2)
    ref = refs[0]
    size = os.path.getsize(ck)

    # the damages: (label, function(path) -> description)
    rng = random.Random(args.seed)
    damages = []
    for i in range(args.flips):
        bit = rng.randrange(size * 8)

        def flip(p, bit=bit):
            with open(p, "r+b") as f:
                f.seek(bit // 8)
                b = f.read(1)[0]
                f.seek(bit // 8)
                f.write(bytes([b ^ (1 << (bit % 8))]))
            return "bit %d of byte %d (%s)" % (bit % 8, bit // 8, object_at(ck, bit // 8))
        damages.append(("flip", flip))

    def h5edit(fn):
        def do(p):
            with h5py.File(p, "r+") as f:
                return fn(f)
        return do

    def set_attr(name, value, where="/"):
        def fn(f):
            f[where].attrs[name] = value
            return "%s attribute %s := %r" % (where, name, value)
        return fn

    def ulp(name, idx, sign=1):
        def fn(f):
            a = f[name][...]
            old = a[idx]
            a[idx] = numpy.nextafter(old, numpy.inf if sign > 0 else -numpy.inf)
            f[name][...] = a
            return "%s%s %r -> %r (one ulp)" % (name, list(idx), float(old), float(a[idx]))
        return fn

    def set_value(name, idx, value):
        def fn(f):
            a = f[name][...]
            old = a[idx]
            a[idx] = value
            f[name][...] = a
            return "%s%s %r -> %r" % (name, list(idx), old.tolist() if hasattr(old, "tolist") else old, value)
        return fn

    def bump_format(f):
        old = int(f["checkpoint"].attrs["format"])
        f["checkpoint"].attrs["format"] = old + 1
        return "checkpoint attribute format %d -> %d" % (old, old + 1)

    def delete(name):
        def fn(f):
            del f[name]
            return "dataset %s deleted" % name
        return fn

    def truncate(frac):
        def do(p):
            n = int(os.path.getsize(p) * frac)
            with open(p, "r+b") as f:
                f.truncate(n)
            return "truncated to %d bytes" % n
        return do

    def zero_range(start, length):
        def do(p):
            with open(p, "r+b") as f:
                f.seek(start)
                f.write(b"\0" * length)
            return "bytes %d..%d zeroed (%s)" % (start, start + length, object_at(ck, start))
        return do

    with h5py.File(ck, "r") as f:
        shape = f["u"].shape
    mid = tuple(s // 2 for s in shape)
    targeted = [
        h5edit(set_attr("time", 123.0)),
        h5edit(set_attr("time", numpy.nextafter(0.016, 1.0))),
        h5edit(set_attr("step", 9)),
        h5edit(set_value("checkpoint/dt_value", (0,), 0.004)),
        h5edit(ulp("checkpoint/dt_value", (0,))),
        h5edit(set_value("checkpoint/dt_count", (0,), 7)),
        h5edit(ulp("u", mid)),
        h5edit(ulp("v", mid, -1)),
        h5edit(ulp("p", mid)),
        h5edit(set_value("u", mid, numpy.nan)),
        h5edit(set_value("v", mid, numpy.inf)),
        h5edit(set_value("u", mid, 1e300)),
        h5edit(delete("v")),
        h5edit(delete("checkpoint/dt_value")),
        h5edit(set_attr("restart_hash", numpy.bytes_(b"0000000000000000"), "checkpoint")),
        h5edit(bump_format),
        h5edit(set_attr("case_hash", numpy.bytes_(b"ffffffffffffffff"))),
        h5edit(set_attr("cells", numpy.array([16, 17, 1]))),
        h5edit(set_attr("spacing", numpy.array([0.5, 0.5, 1.0]))),
        truncate(0.5),
        truncate(0.0),
        zero_range(0, 8),
    ]
    for t in targeted:
        damages.append(("edit", t))

    fdir = os.path.join(args.work, "damaged")
    os.makedirs(fdir)

    def one(k):
        kind, fn = damages[k]
        d = os.path.join(fdir, "%03d_%s" % (k, kind))
        shutil.copytree(base, d, symlinks=True)
        try:
            desc = fn(os.path.join(d, "checkpoints", CKPT))
        except Exception as e:  # noqa
            return kind, "could not damage: %s" % e, "skipped", "", None
        rc, out, err, to, dt = resume(d)
        res = result_of(d) if rc == 0 and not to else {}
        verdict, msg = judge(rc, out, err, to, res, ref)
        return kind, desc, verdict, msg, rc

    results = [None] * len(damages)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        for k, r in zip(range(len(damages)), ex.map(one, range(len(damages)))):
            results[k] = r
    wall = time.time() - t_start

    ok = ("refused", "refused2", "identical", "skipped")
    print("flowgrad damaged checkpoints: %s, %d random bit flips (seed %d) + %d targeted edits of %s "
          "(%d bytes), %.0f s" % (args.flowgrad, args.flips, args.seed, len(targeted), CKPT, size, wall))
    print("%-8s %6s %8s %9s %10s %9s" % ("damage", "count", "refused", "refused2", "identical", "failures"))
    for kind in ("flip", "edit", "total"):
        rs = [r for r in results if kind in (r[0], "total")]
        n = lambda v: sum(1 for r in rs if r[2] == v)  # noqa
        print("%-8s %6d %8d %9d %10d %9d" % (kind, len(rs), n("refused"), n("refused2"), n("identical"),
                                              sum(1 for r in rs if r[2] not in ok)))
    kinds = {}
    for r in results:
        if r[2] not in ok:
            kinds[r[2]] = kinds.get(r[2], 0) + 1
    if kinds:
        print("failures by kind: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items(), key=lambda x: -x[1])))
    print("(refused: exit 4, one message naming the checkpoint; refused2: exit 2, one message naming it as "
          "another grid/case; identical: exit 0, the same result bit for bit)")
    fails = [(k, r) for k, r in enumerate(results) if r[2] not in ok]
    if fails:
        print("\nFAILURES:")
    for k, (kind, desc, verdict, msg, rc) in fails:
        print("FAIL #%03d %-4s %-10s rc %-4s %s | %s" % (k, kind, verdict, rc, desc, msg[:220]))
    print("\nOK:")
    for k, (kind, desc, verdict, msg, rc) in enumerate(results):
        if verdict in ok:
            print("  #%03d %-4s %-9s %s%s" % (k, kind, verdict, desc, (" | " + msg[:140]) if msg else ""))
    print("\n%d of %d damaged checkpoints failed (repro: copy %s, damage %s, then: %s run %s --resume %s)"
          % (len(fails), len(results), base, "checkpoints/" + CKPT, args.flowgrad, case,
             " ".join(sets("<copy>", 12))))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
