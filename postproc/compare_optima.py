#!/usr/bin/env python3
"""Do two `flowgrad optimize` runs of one problem end at the same design? (issue 21: the optimum
on h and on h/2 must be the flow's, not the grid's.)

    /usr/bin/python3 postproc/compare_optima.py OUT_A OUT_B [--max-diff 0.02]

Reads each run's last iterate (optimization.csv) and the design's bounds from OUT_A's
case.resolved.yaml: a parameter's range is upper - lower, or 2 max_change where the design is
bounded by its change from the start. Prints, per design scalar, both final values and their
difference as a fraction of the range, and J at the start and the end of each run; exits 1 when a
difference exceeds --max-diff (default 0.02: 2 % of the range); exit 2, with one line naming the
file, when a run's files are missing or damaged or the runs' parameters differ.
"""
import argparse, csv, json, os, re, sys


def die(msg):
    print(f"compare_optima.py: {msg}", file=sys.stderr)
    sys.exit(2)


def last_row(out):
    path = os.path.join(out, "optimization.csv")
    try:
        with open(path) as f:
            rows = list(csv.DictReader(f))
        for r in (rows[0], rows[-1]) if rows else ():
            float(r["J"]), int(r["iteration"])
    except (OSError, KeyError, TypeError, ValueError, csv.Error) as e:
        die(f"{path}: cannot read the iterations ({type(e).__name__}: {e})")
    if not rows:
        die(f"{path}: no iterations")
    return rows[0], rows[-1]


def design_block(out):
    """parameters, lower, upper, max_change from the design: block of OUT's case.resolved.yaml"""
    path = os.path.join(out, "case.resolved.yaml")
    block, inside = {}, False
    try:
        with open(path) as f:
            for ln in f:
                if re.match(r"^design:\s*$", ln):
                    inside = True
                    continue
                if inside and re.match(r"^\S", ln):
                    break
                m = re.match(r"^  (parameters|lower|upper|max_change):\s*(\[.*\])\s*$", ln) if inside else None
                if m:
                    block[m.group(1)] = json.loads(m.group(2))
    except (OSError, ValueError) as e:
        die(f"{path}: cannot read the design ({type(e).__name__}: {e})")
    if "parameters" not in block:
        die(f"{path}: no design.parameters")
    return block


def ranges(block, names):
    n, lo, hi, mc = len(names), block.get("lower", []), block.get("upper", []), block.get("max_change", [])
    if lo and hi:
        lo, hi = [float(v) for v in lo], [float(v) for v in hi]
        lo, hi = (lo * n if len(lo) == 1 else lo), (hi * n if len(hi) == 1 else hi)
        return [h - l for l, h in zip(lo, hi)]
    if mc:
        mc = [float(v) for v in mc]
        return [2 * v for v in (mc * n if len(mc) == 1 else mc)]
    die("the design has neither lower/upper nor max_change: no range to compare against")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--max-diff", type=float, default=0.02)
    a = p.parse_args()
    block = design_block(a.a)
    first_a, end_a = last_row(a.a)
    first_b, end_b = last_row(a.b)
    names = [k for k in end_a if k.startswith(("body.", "flow.", "actuator.", "boundary."))]
    missing = [k for k in names if k not in end_b]
    if missing or not names:
        die(f"the runs' design parameters differ ({', '.join(missing) or 'none found'})")
    rng = ranges(block, names)
    try:
        [float(e[k]) for e in (end_a, end_b) for k in names]
    except (TypeError, ValueError) as e:
        die(f"a final design value is not a number ({e})")
    print(f"{'parameter':32} {'A: ' + os.path.basename(os.path.normpath(a.a)):>16} {'B: ' + os.path.basename(os.path.normpath(a.b)):>16} {'range':>9} {'|A-B|/range':>12}")
    worst, bad = 0.0, []
    for k, r in zip(names, rng):
        va, vb = float(end_a[k]), float(end_b[k])
        d = abs(va - vb) / r
        worst = max(worst, d)
        if d > a.max_diff:
            bad.append(k)
        print(f"{k:32} {va:16.6g} {vb:16.6g} {r:9.4g} {d:12.4f}{'  OUTSIDE' if d > a.max_diff else ''}")
    for tag, f0, f1, out in (("A", first_a, end_a, a.a), ("B", first_b, end_b, a.b)):
        print(f"{tag}: J {float(f0['J']):.6g} -> {float(f1['J']):.6g} ({100 * (float(f1['J']) / float(f0['J']) - 1):+.2f} %) "
              f"in {f1['iteration']} iterations, {f1['evaluations']} evaluations ({out})")
    print(f"largest difference: {100 * worst:.2f} % of the range (bound {100 * a.max_diff:g} %)")
    if bad:
        print("compare_optima.py: OUTSIDE the bound:", ", ".join(bad))
        sys.exit(1)
    print("compare_optima.py: the optima agree")


if __name__ == "__main__":
    main()
