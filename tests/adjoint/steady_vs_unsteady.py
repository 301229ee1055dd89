#!/usr/bin/env python3
"""The steady adjoint against the unsteady adjoint of a long run started from the steady state.

  steady_vs_unsteady.py --flowgrad EXE --mpiexec MPIEXEC [--mpiexec-flags ...] --case CASE
                        --steady DIR --workdir DIR [--steps N1,N2] [--rtol R]

DIR (--steady) holds `flowgrad adjoint CASE` in steady mode: gradient.csv and steady.h5 (the
steady state x*). Here `flowgrad adjoint` runs in unsteady mode from x* (initial.type: file: the
velocity and the pressure, so every step repeats x* to round-off),
every objective term at the final time, for N1 and N2 steps. With x_0 fixed, dJ_N/dp =
q_x sum_{k<N} F_x^k F_p (+ the direct terms) tends to the steady gradient
q_x (I - F_x)^{-1} F_p + ... with an error that decays like the slowest mode of F_x^N (an
oscillating wake mode at Re 40, about a factor 10 per 60 time units on this grid: measured).
Only design parameters that do not enter the initial state are compared (shape, nu, inflow).

Checks: J at N1 and N2 is the steady J to 1e-11 (x* is a fixed point of every step: measured
8.6e-16; 7.7e-7 at 1200 steps when the pressure started from 0); each dJ/dp at N2 agrees with the steady one to rtol relative to max(|dJ/dp_k|,
1e-3 max_j |dJ/dp_j|) (an entry that vanishes by symmetry is measured against the largest), and the
largest such difference at N2 is at least 10 times smaller than at N1 (the decay). Prints both.
"""
import argparse, csv, os, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--flowgrad", required=True)
ap.add_argument("--mpiexec", required=True)
ap.add_argument("--mpiexec-flags", default="")
ap.add_argument("--case", required=True)
ap.add_argument("--steady", required=True)
ap.add_argument("--workdir", required=True)
ap.add_argument("--steps", default="800,2400")
ap.add_argument("--rtol", type=float, default=2e-4)
ap.add_argument("--rest", type=int, default=0,
                help="also time-step from the case's own initial state for this many steps: J and the gradient within rtol")
a = ap.parse_args()


def table(out):
    J, rows = None, {}
    with open(os.path.join(out, "gradient.csv")) as f:
        lines = f.readlines()
    for ln in lines:
        if ln.startswith("# J = "):
            J = float(ln.split("=")[1])
    for r in csv.DictReader(ln for ln in lines if not ln.startswith("#")):
        rows[r["name"]] = float(r["gradient"])
    return J, rows


def unsteady(out, steps, sets):
    """`flowgrad adjoint` in unsteady mode for `steps` steps with the extra --set entries: (J, gradient)."""
    cmd = [a.mpiexec, "-n", "1"] + a.mpiexec_flags.replace(";", " ").split() + [a.flowgrad, "adjoint", a.case]
    for kv in ["adjoint.mode=unsteady", f"time.steps={steps}", "output.monitor_every=100000", "output.dir=" + out] + sets:
        cmd += ["--set", kv]
    r = subprocess.run(cmd + ["-fg_fftw_planner", "estimate"], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        sys.exit(f"FAIL: {' '.join(cmd)}: exit {r.returncode}")
    return table(out)


Js, gs = table(a.steady)
gmax = max(abs(v) for v in gs.values())
assert gmax > 0, "the steady gradient is 0"
fails, worst = [], {}
for N in (int(n) for n in a.steps.split(",")):
    Ju, gu = unsteady(os.path.join(a.workdir, f"steady_vs_unsteady_{N}"), N,
                      ["initial.type=file", "initial.file=" + os.path.join(a.steady, "steady.h5")])
    if set(gu) != set(gs):
        sys.exit(f"FAIL: the parameters differ: {sorted(gu)} vs {sorted(gs)}")
    print(f"N = {N} steps: J {Ju:.12e} (steady {Js:.12e}, rel {abs(Ju - Js) / abs(Js):.2e})")
    if abs(Ju - Js) > 1e-11 * abs(Js):
        fails.append(f"J after {N} steps from x* differs from the steady J by {abs(Ju - Js) / abs(Js):.2e} (> 1e-11: x* is no fixed point of the step)")
    worst[N] = 0
    for k in gs:
        rel = abs(gu[k] - gs[k]) / max(abs(gs[k]), 1e-3 * gmax)
        worst[N] = max(worst[N], rel)
        print(f"  {k:32s} unsteady {gu[k]:+.12e}  steady {gs[k]:+.12e}  rel {rel:.2e}")
    print(f"  largest relative difference {worst[N]:.2e}")
if a.rest:
    Jr, gr = unsteady(os.path.join(a.workdir, f"steady_vs_unsteady_rest_{a.rest}"), a.rest, [])
    relJ = abs(Jr - Js) / abs(Js)
    rel = max(abs(gr[k] - gs[k]) / max(abs(gs[k]), 1e-3 * gmax) for k in gs)
    print(f"from the initial state, {a.rest} steps: J {Jr:.12e} (rel {relJ:.2e}), largest gradient difference {rel:.2e}")
    if relJ > a.rtol or rel > a.rtol:
        fails.append(f"time-stepped from the initial state ({a.rest} steps): J differs by {relJ:.2e}, the gradient by {rel:.2e} (> {a.rtol:g})")
N1, N2 = sorted(worst)
if worst[N2] > a.rtol:
    fails.append(f"at {N2} steps the gradients differ by {worst[N2]:.2e} > {a.rtol:g}")
if worst[N2] * 10 > worst[N1]:
    fails.append(f"no decay with the horizon: {worst[N1]:.2e} at {N1} steps, {worst[N2]:.2e} at {N2}")
for f in fails:
    print("FAIL:", f)
print("steady vs unsteady: %s (largest relative difference %.2e at %d steps, %.2e at %d)" % ("FAILED" if fails else "ok", worst[N2], N2, worst[N1], N1))
sys.exit(1 if fails else 0)
