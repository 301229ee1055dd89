#!/usr/bin/env python3
"""Grid sequencing of the steady solver: a steady state on h as the start of Newton on h/2.

  steady_sequence.py --flowgrad EXE --mpiexec MPIEXEC [--mpiexec-flags ...] --case CASE
                     --workdir DIR --coarse NX,NY --fine NX,NY --dt DT --steps N [--np 1,2]
                     [--rtol R] [--max-newton K] [--set K=V ...]

Runs `flowgrad adjoint CASE` (adjoint.mode steady) three ways:
  coarse: on --coarse cells (the case's own dt and transient): its steady.h5;
  rest:   on --fine cells from the case's initial state, time.dt DT and the transient that dt
          needs (the case's time.steps times dt_case/DT): the reference;
  seq:    on --fine cells from the coarse steady.h5 (initial.type file: the fields interpolated to
          the fine grid and projected), with only --steps steps of DT before Newton; on each rank
          count of --np.
Checks: each seq run says it interpolated u, v and p; its J and every dJ/dp equal rest's to rtol
(relative to max(|g|, 1e-3 max|g|)); Newton needs at most --max-newton iterations and no more than
rest's. Prints the table.
"""
import argparse, os, re, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from fgtest import read_gradient  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--flowgrad", required=True)
ap.add_argument("--mpiexec", required=True)
ap.add_argument("--mpiexec-flags", default="")
ap.add_argument("--case", required=True)
ap.add_argument("--workdir", required=True)
ap.add_argument("--coarse", required=True)
ap.add_argument("--fine", required=True)
ap.add_argument("--dt", type=float, required=True)
ap.add_argument("--steps", type=int, default=10)
ap.add_argument("--case-dt", type=float, required=True, help="the case's time.dt (its transient is scaled by case-dt/dt)")
ap.add_argument("--case-steps", type=int, required=True, help="the case's time.steps")
ap.add_argument("--np", default="1")
ap.add_argument("--rtol", type=float, default=1e-8)
ap.add_argument("--max-newton", type=int, default=3)
ap.add_argument("--set", action="append", default=[])
a = ap.parse_args()


def run(name, np, sets):
    out = os.path.join(a.workdir, "steady_sequence_" + name)
    cmd = [a.mpiexec, "-n", str(np)] + a.mpiexec_flags.replace(";", " ").split() + [a.flowgrad, "adjoint", a.case]
    for kv in a.set + ["output.dir=" + out, "output.monitor_every=100000"] + sets:
        cmd += ["--set", kv]
    r = subprocess.run(cmd + ["-fg_fftw_planner", "estimate"], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        sys.exit(f"FAIL: {' '.join(cmd)}: exit {r.returncode}")
    m = re.search(r"steady: converged after (\d+) steps and (\d+) Newton iterations", r.stdout)
    if not m:
        print(r.stdout)
        sys.exit(f"FAIL: {name}: no 'steady: converged after' line")
    J, g = read_gradient(out)
    return out, r.stdout, int(m.group(2)), J, g


cx, cy = (int(v) for v in a.coarse.split(","))
fx, fy = (int(v) for v in a.fine.split(","))
coarse, _, nc, Jc, _ = run("coarse", 1, [f"grid.cells=[{cx}, {cy}]"])
rest_steps = int(round(a.case_steps * a.case_dt / a.dt))
_, _, nr, Jr, gr = run("rest", 1, [f"grid.cells=[{fx}, {fy}]", f"time.dt={a.dt}", f"time.steps={rest_steps}"])
gmax = max(abs(v) for v in gr.values())
print(f"coarse {cx} x {cy}: J {Jc:.12e}, {nc} Newton iterations")
print(f"fine {fx} x {fy} from rest, {rest_steps} steps: J {Jr:.12e}, {nr} Newton iterations")
fails = []
for np in (int(v) for v in a.np.split(",")):
    _, log, ns, Js, gs = run(f"seq_np{np}", np, [f"grid.cells=[{fx}, {fy}]", f"time.dt={a.dt}", f"time.steps={a.steps}",
                                                 "initial.type=file", "initial.file=" + os.path.join(coarse, "steady.h5")])
    relJ = abs(Js - Jr) / abs(Jr)
    relg = max(abs(gs[k] - gr[k]) / max(abs(gr[k]), 1e-3 * gmax) for k in gr)
    print(f"fine from the coarse steady state, {a.steps} steps, {np} rank(s): J {Js:.12e} (rel {relJ:.2e}), "
          f"largest gradient difference {relg:.2e}, {ns} Newton iterations")
    if "initial state: u, v and p interpolated from" not in log:
        fails.append(f"np {np}: the log does not say that u, v and p were interpolated")
    if relJ > a.rtol or relg > a.rtol:
        fails.append(f"np {np}: J differs by {relJ:.2e}, the gradient by {relg:.2e} (> {a.rtol:g})")
    if ns > a.max_newton or ns > nr:
        fails.append(f"np {np}: {ns} Newton iterations (at most {a.max_newton} and the {nr} from rest)")
for f in fails:
    print("FAIL:", f)
print("steady sequence:", "FAILED" if fails else "ok")
sys.exit(1 if fails else 0)
