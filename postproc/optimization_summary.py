#!/usr/bin/env python3
"""The outcome of a `flowgrad optimize` run, checked against bands (the example cases' scripts).

    /usr/bin/python3 postproc/optimization_summary.py OUT_DIR [--require-converged] [--max-ratio R]
        [--max-violation V] [--constraint NAME:TOL ...] [--expect PARAM=VALUE:RTOL ...]

Prints how the run ended (optimization/outcome.txt: converged or stopped, and whether every
constraint holds), J at the start and at the end (optimization.csv), every constraint row's final
value against its start (optimization.h5) and the final design (optimization/result.csv); then
checks
  --require-converged      the optimizer converged with every constraint within its tolerance
  --max-ratio R            J_final / J_0 <= R (e.g. 0.95: J fell by at least 5 %)
  --max-violation V        the largest relative constraint violation at the end <= V
  --constraint NAME:TOL    |q_final / q_0 - 1| <= TOL for row NAME (e.g. area:0.005)
  --at-least NAME:F        q_final >= F q_0 for row NAME (e.g. lift:0.999: the lift kept to 0.1 %)
  --expect PARAM=VALUE:RTOL  |p_final / VALUE - 1| <= RTOL for design scalar PARAM
and exits 1 naming what is outside its band (0 when everything is inside).
"""
import argparse, csv, os, sys

import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--require-converged", action="store_true")
    p.add_argument("--max-ratio", type=float)
    p.add_argument("--max-violation", type=float)
    p.add_argument("--constraint", action="append", default=[])
    p.add_argument("--at-least", action="append", default=[])
    p.add_argument("--expect", action="append", default=[])
    a = p.parse_args()
    import h5py

    status, constraints, ended = None, None, None
    try:
        with open(os.path.join(a.out, "optimization", "outcome.txt")) as f:
            lines = f.read().splitlines()
        ended = lines[0].split(": ", 1)[1] if lines and ": " in lines[0] else None
        for ln in lines:
            if ln.startswith("status: "):
                status = ln.split(": ", 1)[1]
            elif ln.startswith("constraints: "):
                constraints = ln.split(": ", 1)[1]
    except OSError:
        pass
    with open(os.path.join(a.out, "optimization.csv")) as f:
        rows = list(csv.DictReader(f))
    J0, J1 = float(rows[0]["J"]), float(rows[-1]["J"])
    viol = float(rows[-1]["max_violation"])
    print(f"{a.out}: {len(rows) - 1} iterations, {rows[-1]['evaluations']} evaluations, {float(rows[-1]['seconds']):.0f} s of evaluations")
    print(f"  J: {J0:.10g} -> {J1:.10g}  ({100 * (J1 / J0 - 1):+.3f} %)")
    q = {}
    with h5py.File(os.path.join(a.out, "optimization.h5"), "r") as f:
        if "constraints_names" in f:
            names = [n.decode() for n in f["constraints_names"][()]]
            c = f["constraints"][()]
            for k, n in enumerate(names):
                q[n] = (c[0, k], c[-1, k])
                print(f"  constraint {n}: {c[0, k]:.10g} -> {c[-1, k]:.10g}  ({100 * (c[-1, k] / c[0, k] - 1):+.4f} %)")
    print(f"  largest constraint violation (relative to its scale): {viol:.3e}")
    design = {}
    with open(os.path.join(a.out, "optimization", "result.csv")) as f:
        for r in csv.DictReader(f):
            design[r["name"]] = (float(r["initial"]), float(r["final"]))
            print(f"  {r['name']}: {float(r['initial']):.8g} -> {float(r['final']):.8g}")
    if status is None:
        print("OUTCOME: unknown (no optimization/outcome.txt: the run did not reach its end)")
    else:
        verdict = "converged" if status == "converged" else "did NOT converge"
        held = {"all hold": "every constraint holds", "none": "no constraints",
                "VIOLATED": "a constraint is VIOLATED"}.get(constraints, constraints)
        print(f"OUTCOME: the optimization {verdict}; {held} ({ended})")
    bad = []
    if a.require_converged and status != "converged":
        bad.append("the optimization did not converge with every constraint holding"
                   if status else "no outcome: the run did not reach its end")
    if a.max_ratio is not None and not J1 <= a.max_ratio * J0:
        bad.append(f"J_final/J_0 = {J1 / J0:.6f} > {a.max_ratio}")
    if a.max_violation is not None and not viol <= a.max_violation:
        bad.append(f"constraint violation {viol:.3e} > {a.max_violation}")
    for s in a.constraint:
        n, tol = s.rsplit(":", 1)
        if n not in q:
            bad.append(f"no constraint row {n}")
        elif not abs(q[n][1] / q[n][0] - 1) <= float(tol):
            bad.append(f"{n}: {q[n][1] / q[n][0] - 1:+.3e} from its start, band {tol}")
    for s in a.at_least:
        n, f = s.rsplit(":", 1)
        if n not in q:
            bad.append(f"no constraint row {n}")
        elif not q[n][1] >= float(f) * q[n][0]:
            bad.append(f"{n}: {q[n][1]:.8g} < {f} x {q[n][0]:.8g}")
    for s in a.expect:
        n, rest = s.split("=", 1)
        val, tol = (float(x) for x in rest.split(":"))
        if n not in design:
            bad.append(f"no design scalar {n}")
            continue
        err = design[n][1] / val - 1
        print(f"  {n}: {design[n][1]:.8g} vs {val:.8g}: {100 * err:+.4f} % (band {100 * float(tol):g} %)")
        if not abs(err) <= tol:
            bad.append(f"{n} = {design[n][1]:.8g}, {100 * err:+.3f} % from {val:g}")
    if bad:
        print("OUTSIDE THE BAND: " + "; ".join(bad))
        sys.exit(1)
    checked = a.require_converged or a.max_ratio is not None or a.max_violation is not None or \
        a.constraint or a.at_least or a.expect
    print("within the bands" if checked else "(no bands given: nothing checked)")


if __name__ == "__main__":
    main()
