#!/usr/bin/env python3
"""adjoint.steady_dt: Newton's map and the steady adjoint at a smaller step than the transient's.

  steady_dt.py --flowgrad EXE --mpiexec MPIEXEC [--mpiexec-flags F] --case CASE --workdir DIR
               --time-dt T --steady-dt DT [--np N] [--rtol R] [--jtol Q] [--set KEY=VALUE ...]
               [--options "PETSC OPTIONS"]

Runs `flowgrad adjoint CASE` (adjoint.mode steady) three times: with adjoint.steady_dt = T (the
case's time.dt), = DT, and auto (the default). The steady state does not depend on the step, so J
must agree to jtol (default 1e-12; Newton's tolerance adjoint.steady_tol bounds it in general) and each dJ/dp to rtol relative to max(|dJ/dp_k|, 1e-3 max_j |dJ/dp_j|); the
runs with DT and auto must say which step Newton took (auto: a power-of-two fraction of T, with a
step number of at most 0.25 there), and their Newton and adjoint Krylov iterations together must be
fewer than at T (the Oseen preconditioner inverts a backward-Euler step, closer to I - F_x at a
smaller step). Prints all three.
"""
import argparse, os, re, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--flowgrad", required=True)
ap.add_argument("--mpiexec", required=True)
ap.add_argument("--mpiexec-flags", default="")
ap.add_argument("--case", required=True)
ap.add_argument("--workdir", required=True)
ap.add_argument("--time-dt", type=float, required=True)
ap.add_argument("--steady-dt", type=float, required=True)
ap.add_argument("--np", type=int, default=1)
ap.add_argument("--rtol", type=float, default=1e-8)
ap.add_argument("--jtol", type=float, default=1e-12)
ap.add_argument("--set", action="append", default=[], help="a case key for every run (KEY=VALUE)")
ap.add_argument("--options", default="", help="PETSc options for every run")
a = ap.parse_args()


wall = {}


def run(tag, sets):
    out = os.path.join(a.workdir, "steady_dt_" + tag)
    cmd = [a.mpiexec, "-n", str(a.np)] + [x for x in re.split(r"[;\s]+", a.mpiexec_flags) if x]
    cmd += [a.flowgrad, "adjoint", a.case, "--set", "output.dir=" + out, "-fg_fftw_planner", "estimate"]
    for kv in a.set:
        cmd += ["--set", kv]
    cmd += a.options.split() + sets
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall[tag] = time.time() - t0
    with open(out + ".log", "w") as fh:
        fh.write(r.stdout + r.stderr)
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


J0, g0, its0, _ = run("time_dt", ["--set", f"adjoint.steady_dt={a.time_dt!r}"])
J1, g1, its1, log1 = run("small", ["--set", f"adjoint.steady_dt={a.steady_dt!r}"])
J2, g2, its2, log2 = run("auto", [])
fail = []
if "Newton's map steps dt = " not in log1:
    fail.append("the run with adjoint.steady_dt does not say which step Newton took")
m = re.search(r"Newton's map steps dt = (\S+) = time\.dt/(\d+) \(adjoint\.steady_dt auto: the step number (\S+) at time\.dt, (\S+) at this step\)", log2)
if not m:
    fail.append("the auto run does not say which step Newton took")
else:
    dt2, k2, sig0, sig2 = float(m.group(1)), int(m.group(2)), float(m.group(3)), float(m.group(4))
    if not (abs(dt2 * k2 - a.time_dt) <= 1e-12 * a.time_dt and sig2 <= 0.25 and (k2 == 1 or 2 * sig2 > 0.25)):
        fail.append(f"auto took dt = {dt2:g} = time.dt/{k2} at step number {sig2:g}: not the largest halving with one <= 0.25")
scale = 1e-3 * max(abs(v) for v in g0.values())
worst = 0
for tag, J, g, its in (("steady_dt = %g" % a.steady_dt, J1, g1, its1), ("auto", J2, g2, its2)):
    dJ = abs(J - J0) / abs(J0)
    if not dJ <= a.jtol:
        fail.append(f"{tag}: J differs by {dJ:.2e} relative (bound {a.jtol:g})")
    w = max(abs(g[k] - g0[k]) / max(abs(g0[k]), scale) for k in g0)
    worst = max(worst, w)
    if not w <= a.rtol:
        fail.append(f"{tag}: the gradient differs by {w:.2e} (bound {a.rtol:g})")
    if not its < its0:
        fail.append(f"{tag}: {its} Krylov iterations, not fewer than {its0} at time.dt")
print(f"J {J0:.13e} at time.dt, {J1:.13e} at {a.steady_dt:g}, {J2:.13e} auto" + (f" (dt = time.dt/{k2}, step number {sig0:.3g} -> {sig2:.3g})" if m else ""))
print(f"gradients within {worst:.1e}; Krylov iterations (Newton + adjoint) {its0} at time.dt, {its1} at {a.steady_dt:g}, {its2} auto")
print(f"wall time (transient, Newton, adjoint) {wall['time_dt']:.1f} s at time.dt, {wall['small']:.1f} s at {a.steady_dt:g}, {wall['auto']:.1f} s auto")
if fail:
    print("FAIL: " + "; ".join(fail))
    sys.exit(1)
