#!/usr/bin/env python3
"""adjoint.steady_dt: Newton's map and the steady adjoint at a smaller step than the transient's.

  steady_dt.py --flowgrad EXE --mpiexec MPIEXEC [--mpiexec-flags F] --case CASE --workdir DIR
               --steady-dt DT [--np N] [--rtol R]

Runs `flowgrad adjoint CASE` (adjoint.mode steady) twice, with the default (time.dt) and with
adjoint.steady_dt = DT. The steady state does not depend on the step, so J must agree to 1e-12 and
each dJ/dp to rtol relative to max(|dJ/dp_k|, 1e-3 max_j |dJ/dp_j|); the run with DT must say which
step Newton took, and its Newton and adjoint Krylov iterations together must be fewer (the Oseen
preconditioner inverts a backward-Euler step, closer to I - F_x at a smaller step). Prints both.
"""
import argparse, os, re, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--flowgrad", required=True)
ap.add_argument("--mpiexec", required=True)
ap.add_argument("--mpiexec-flags", default="")
ap.add_argument("--case", required=True)
ap.add_argument("--workdir", required=True)
ap.add_argument("--steady-dt", type=float, required=True)
ap.add_argument("--np", type=int, default=1)
ap.add_argument("--rtol", type=float, default=1e-8)
a = ap.parse_args()


def run(tag, sets):
    out = os.path.join(a.workdir, "steady_dt_" + tag)
    cmd = [a.mpiexec, "-n", str(a.np)] + [x for x in re.split(r"[;\s]+", a.mpiexec_flags) if x]
    cmd += [a.flowgrad, "adjoint", a.case, "--set", "output.dir=" + out, "-fg_fftw_planner", "estimate"] + sets
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    J, g = None, {}
    with open(os.path.join(out, "gradient.csv")) as fh:
        for line in fh:
            if line.startswith("# J ="):
                J = float(line.split("=")[1])
            elif not line.startswith("#") and not line.startswith("name,"):
                name, _, grad = line.strip().split(",")
                g[name] = float(grad)
    its = sum(int(m) for m in re.findall(r"KSP \((?:steady|adjoint)_\) CONVERGED_\w+ in (\d+) iterations", r.stdout))
    return J, g, its, r.stdout


J0, g0, its0, _ = run("default", [])
J1, g1, its1, log1 = run("small", ["--set", f"adjoint.steady_dt={a.steady_dt!r}"])
fail = []
if "Newton's map steps dt = " not in log1:
    fail.append("the run with adjoint.steady_dt does not say which step Newton took")
dJ = abs(J1 - J0) / abs(J0)
if not dJ <= 1e-12:
    fail.append(f"J differs by {dJ:.2e} relative (bound 1e-12)")
scale = 1e-3 * max(abs(v) for v in g0.values())
worst = max(abs(g1[k] - g0[k]) / max(abs(g0[k]), scale) for k in g0)
if not worst <= a.rtol:
    fail.append(f"the gradient differs by {worst:.2e} (bound {a.rtol:g})")
if not its1 < its0:
    fail.append(f"{its1} Krylov iterations at adjoint.steady_dt = {a.steady_dt:g}, not fewer than {its0} at time.dt")
print(f"J {J0:.13e} and {J1:.13e} ({dJ:.1e}); gradient within {worst:.1e}; Krylov iterations (Newton + adjoint) {its0} at time.dt, {its1} at {a.steady_dt:g}")
if fail:
    print("FAIL: " + "; ".join(fail))
    sys.exit(1)
