#!/usr/bin/env python3
"""Grid sequencing checked against runs from rest (issue 21): accuracy.py once with its levels run
independently and once with --sequence, the same quantities on the finest level required to agree.

  sequence_check.py --sequence STEPS --tol REL --workdir DIR -- ACCURACY.PY ARGUMENTS...

The arguments after -- go to both runs (without --workdir, --csv or --sequence). Exit 1 when a
quantity of the finest level differs by more than REL (relative to the unsequenced value), or
when either study fails; the table lists both values and their difference.
"""
import argparse, csv, os, subprocess, sys

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--sequence", type=int, required=True)
ap.add_argument("--tol", type=float, required=True)
ap.add_argument("--workdir", required=True)
ap.add_argument("rest", nargs=argparse.REMAINDER)
a = ap.parse_args()
rest = a.rest[1:] if a.rest and a.rest[0] == "--" else a.rest
if not rest:
    sys.exit("sequence_check.py: give accuracy.py's arguments after --")
for opt in ("--workdir", "--csv", "--sequence"):
    if any(x == opt or x.startswith(opt + "=") for x in rest):
        sys.exit(f"sequence_check.py: {opt} is set here, not among accuracy.py's arguments")
acc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "accuracy.py")


def study(tag, extra):
    d = os.path.join(a.workdir, tag)
    os.makedirs(d, exist_ok=True)
    out = os.path.join(d, "accuracy.csv")
    r = subprocess.run([sys.executable, acc, "--workdir", d, "--csv", out, "--report-only"] + extra + rest)
    if r.returncode != 0:
        sys.exit(f"sequence_check.py: the {tag} study failed (exit {r.returncode})")
    with open(out) as fh:
        rows = list(csv.reader(fh))
    last = len(rows[0]) - 5  # quantity, levels..., order, finest_diff, reference, order_vs_reference
    return rows[0][last], dict((row[0], float(row[last])) for row in rows[1:])


level, cold = study("from_rest", [])
_, warm = study("sequenced", ["--sequence", str(a.sequence)])
bad = []
print(f"{'quantity':>14s} {level + ' from rest':>18s} {level + ' sequenced':>18s} {'difference':>11s}")
for name, v in cold.items():
    w = warm.get(name)
    if w is None:
        bad.append(f"{name}: missing from the sequenced study")
        continue
    d = abs(w - v) / abs(v) if v != 0 else abs(w)
    print(f"{name:>14s} {v:18.10g} {w:18.10g} {d:11.2e}")
    if not d <= a.tol:
        bad.append(f"{name}: {d:.2e} > {a.tol:g}")
if bad:
    print("sequenced and from rest differ:\n  " + "\n  ".join(bad))
    sys.exit(1)
print(f"sequenced and from rest agree within {a.tol:g}")
