#!/usr/bin/env python3
"""The kink of a force where a face crosses a body's surface (issue 21): the exact gradient just
before and just after the crossing.

  crossing.py --flowgrad EXE --case CASE --workdir DIR --key KEY --param NAME --at V --delta D
              [--set K=V ...] [--options "..."] [--max-jump 0.05] [--min-jump 0]

`flowgrad adjoint CASE --set KEY=V-D` and `KEY=V+D` (run at once) give J and the exact dJ/dNAME
on either side of V, a value of KEY at which some faces cross the surface (e.g. the radius at
which the faces on a circle's axes reach it: the centre's distance to them). Prints both, the
difference quotient (J+ - J-)/(2 D), and the jump |g+ - g-| / |(g+ + g-)/2|: 0 for a force C1 in
the design there, the kink's size otherwise. Exit 1 when a run fails, when the jump exceeds
--max-jump, or when it is below --min-jump (a control: a model known to kink there must show it),
or when the difference quotient lies outside [min(g-, g+), max(g-, g+)] by more than 1e-3 of
their mean (J and its gradient would disagree).

KEY and NAME must measure the same quantity (as in smoothness.py: body.cyl.radius and
body.cyl.shape.r). D must be small against the grid (1e-4 of a cell or so), so that the gradient
changes across the interval by the kink only.
"""
import argparse, concurrent.futures, os, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from fgtest import read_gradient  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--flowgrad", required=True)
ap.add_argument("--case", required=True)
ap.add_argument("--workdir", required=True)
ap.add_argument("--key", required=True)
ap.add_argument("--param", required=True)
ap.add_argument("--at", type=float, required=True)
ap.add_argument("--delta", type=float, required=True)
ap.add_argument("--set", action="append", default=[])
ap.add_argument("--options", default="", help="further command-line options of both runs (one string)")
ap.add_argument("--max-jump", type=float, default=0.05)
ap.add_argument("--min-jump", type=float, default=0.0)
a = ap.parse_args()
if not a.delta > 0:
    sys.exit(f"crossing.py: --delta {a.delta}: must be > 0")
os.makedirs(a.workdir, exist_ok=True)


def run(side):
    v = a.at + side * a.delta
    out = os.path.join(a.workdir, "minus" if side < 0 else "plus")
    cmd = [a.flowgrad, "adjoint", a.case, "--set", f"{a.key}={v!r}", "--set", "output.dir=" + out,
           "--set", "output.monitor_every=100000", "-fg_fftw_planner", "estimate"]
    for s in a.set:
        cmd += ["--set", s]
    cmd += a.options.split()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return v, None, f"exit {r.returncode}: " + ((r.stdout + r.stderr).strip().splitlines() or ["(no output)"])[-1]
    J, grad = read_gradient(out)
    if a.param not in grad:
        return v, None, f"no parameter {a.param} in {out}/gradient.csv"
    return v, (J, grad[a.param]), ""


with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
    (vm, rm, em), (vp, rp, ep) = ex.map(run, (-1, 1))
for v, e in ((vm, em), (vp, ep)):
    if e:
        print(f"FAIL: {a.key} = {v!r}: {e}")
if em or ep:
    sys.exit(1)
(Jm, gm), (Jp, gp) = rm, rp
dq = (Jp - Jm) / (2 * a.delta)
mean = 0.5 * (gm + gp)
jump = abs(gp - gm) / max(abs(mean), 1e-300)
print(f"{a.key} = {a.at!r} -+ {a.delta!r}; J of {a.case}; exact gradient {a.param}")
print(f"  {'value':>16} {'J':>20} {'dJ/dp exact':>16}")
print(f"  {vm:16.10g} {Jm:20.12e} {gm:16.8e}")
print(f"  {vp:16.10g} {Jp:20.12e} {gp:16.8e}")
print(f"difference quotient {dq:.8e}; jump of the exact gradient {jump:.4f} of its mean "
      f"(bounds: at most {a.max_jump}, at least {a.min_jump})")
bad = []
if jump > a.max_jump:
    bad.append(f"the jump {jump:.4f} exceeds {a.max_jump}")
if jump < a.min_jump:
    bad.append(f"the jump {jump:.4f} is below {a.min_jump}")
if dq < min(gm, gp) - 1e-3 * abs(mean) or dq > max(gm, gp) + 1e-3 * abs(mean):
    bad.append(f"the difference quotient {dq:.8e} lies outside the one-sided gradients")
for b in bad:
    print("FAIL:", b)
print("crossing:", "OUTSIDE the bounds" if bad else "ok")
sys.exit(1 if bad else 0)
