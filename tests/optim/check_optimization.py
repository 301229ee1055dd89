#!/usr/bin/env python3
"""Checks of `flowgrad optimize` output (tests/optim/tests.cmake).

  history RUN_DIR [--min-decrease F] [--max-violation V] [--min-iterations N]
      optimization.csv: J at the last row is at most (1 - F) J_0, every constraint row's violation
      at the last row (the max_violation column) is at most V, and the file has at least N + 1
      rows; optimization.h5 holds the same J and design as the CSV.
  same RUN_A RUN_B --rtol R
      the two runs end at the same design (optimization/result.csv, column final) and J, to R
      relative (scaled by the largest |entry|), and their histories have the same length.
  multipoint RUN_DIR
      J = sum_k w_k J@k on every row (the weights from case.resolved.yaml's points).
  tao-gradient LOG --max R
      every "||G - Gfd||/||G|| = x" line of TAO's gradient test (2-norm) has x <= R; at least one.
"""
import argparse, csv, re, sys
import numpy as np


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def history(a):
    h = rows(f"{a.run}/optimization.csv")
    if len(h) < a.min_iterations + 1:
        fail(f"{len(h)} rows, expected at least {a.min_iterations + 1}")
    J0, J1 = float(h[0]["J"]), float(h[-1]["J"])
    viol = float(h[-1]["max_violation"])
    print(f"J_0 = {J0:.10g}, J = {J1:.10g} ({100 * (J1 / J0 - 1):+.3f}%), max violation {viol:.3e}, {len(h) - 1} iterations")
    if J1 > (1 - a.min_decrease) * J0:
        fail(f"J fell by {100 * (1 - J1 / J0):.3f}%, expected at least {100 * a.min_decrease:.3f}%")
    if viol > a.max_violation:
        fail(f"constraint violation {viol:.3e} > {a.max_violation:.3e}")
    import h5py
    with h5py.File(f"{a.run}/optimization.h5", "r") as f:
        J = f["J"][()]
        if len(J) != len(h) or np.max(np.abs(J - np.array([float(r["J"]) for r in h]))) > 1e-14 * abs(J0):
            fail("optimization.h5 J differs from optimization.csv")
        names = [n.decode() for n in f["design_names"][()]]
        d = f["design"][()]
        for k, n in enumerate(names):
            col = np.array([float(r[n]) for r in h])
            if np.max(np.abs(d[:, k] - col)) > 1e-14 * max(1.0, np.max(np.abs(col))):
                fail(f"optimization.h5 design {n} differs from the CSV")
    print("ok")


def same(a):
    ra, rb = rows(f"{a.run}/optimization/result.csv"), rows(f"{a.other}/optimization/result.csv")
    xa = np.array([float(r["final"]) for r in ra])
    xb = np.array([float(r["final"]) for r in rb])
    ha, hb = rows(f"{a.run}/optimization.csv"), rows(f"{a.other}/optimization.csv")
    Ja, Jb = float(ha[-1]["J"]), float(hb[-1]["J"])
    dx = np.max(np.abs(xa - xb)) / max(np.max(np.abs(xa)), 1e-300) if len(xa) else 0.0  # (a design of field blocks only: no scalars)
    dJ = abs(Ja - Jb) / abs(Ja)
    print(f"final design: max relative difference {dx:.3e}; J {Ja:.15g} vs {Jb:.15g} ({dJ:.3e}); iterations {len(ha) - 1} vs {len(hb) - 1}")
    if len(ha) != len(hb):
        fail("the histories differ in length")
    if dx > a.rtol or dJ > a.rtol:
        fail(f"difference above {a.rtol}")
    print("ok")


def multipoint_simple(a):
    text = open(f"{a.run}/case.resolved.yaml").read()
    m = re.search(r"^points:\n((?:  .*\n)+)", text, re.M)
    if not m:
        fail("no points in case.resolved.yaml")
    weights, name = {}, None
    for line in m.group(1).splitlines():
        if re.match(r"^  \w", line):
            name = line.strip().rstrip(":")
        w = re.match(r"^    weight: (.*)$", line)
        if w:
            weights[name] = float(w.group(1))
    h = rows(f"{a.run}/optimization.csv")
    worst = 0.0
    for r in h:
        s = sum(w * float(r[f"J@{k}"]) for k, w in weights.items())
        worst = max(worst, abs(s - float(r["J"])) / abs(float(r["J"])))
    print(f"points {weights}: |J - sum w_k J_k| / |J| <= {worst:.3e} over {len(h)} rows")
    if worst > 1e-13:
        fail("J is not the weighted sum of the points' objectives")
    print("ok")


def tao_gradient(a):
    vals = [float(x) for x in re.findall(r"2-norm \|\|G - Gfd\|\|/\|\|G\|\| = ([0-9.eE+-]+)", open(a.run).read())]
    print(f"{len(vals)} gradient tests: ||G - Gfd||/||G|| = " + ", ".join(f"{v:.2e}" for v in vals))
    if not vals:
        fail("no TAO gradient test in the log")
    if max(vals) > a.max:
        fail(f"{max(vals):.3e} > {a.max}")
    print("ok")


p = argparse.ArgumentParser()
p.add_argument("mode", choices=["history", "same", "multipoint", "tao-gradient"])
p.add_argument("run")
p.add_argument("other", nargs="?")
p.add_argument("--min-decrease", type=float, default=0.0)
p.add_argument("--max-violation", type=float, default=1e-3)
p.add_argument("--min-iterations", type=int, default=1)
p.add_argument("--rtol", type=float, default=1e-8)
p.add_argument("--max", type=float, default=1e-5)
a = p.parse_args()
{"history": history, "same": same, "multipoint": multipoint_simple, "tao-gradient": tao_gradient}[a.mode](a)
