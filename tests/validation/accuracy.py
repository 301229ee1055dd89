#!/usr/bin/env python3
"""Grid convergence of body forces (issue 21): one case on a sequence of stretched grids, the
observed order of each quantity and the difference between the two finest grids.

  accuracy.py --flowgrad EXE --case CASE --workdir DIR --length L --levels 20,40,80,160
              [--mode steady|unsteady|mean] [--hkeys grid.stretch.x.h_min,grid.stretch.y.h_min ('': none)]
              [--scale-dt] [--from T] [--reference NAME=VALUE ...] [--set K=V ...]
              [--level-set 'K=V{expr}' ...]
              [--mpiexec M --np N] [--jobs J] [--min-order 1.5] [--max-diff NAME=TOL ...]
              [--csv FILE] [--report-only] [--surface-dp NAME=X1,Y1:X2,Y2 ...] [--sequence STEPS]
              [--reuse]

Level N runs the case with every key of --hkeys (the stretched grid's spacing at the body) set to
L/N, L the body's size (the cylinder's diameter). --scale-dt also divides time.dt by N/N0 and
multiplies time.steps by it (N0 the first level), so that every level ends at the same time.
--level-set passes a case value that depends on the level: each {expr} in it is replaced by the
value of the arithmetic expression expr of N (an integer when it is one), e.g.
--level-set 'grid.cells=[{22*N}, 0]' for a uniform x at h = 2.2/(22 N).
A stretched axis refines only when its growth does too: at a fixed growth g the cells outside the
band keep the ratio g - 1 between neighbours, whose error does not fall with h (2D-1 with the lines:
Cl stopped 2e-5 away, 0.2 %, and drifted from D/40 to D/160); halving every cell of a grid takes g
to sqrt(g), so --level-set 'grid.stretch.y.growth={1.05**(20/N)}' (g = 1.05 at N = 20) makes the
levels refinements of one grid (Cl then at order 2.2; docs/bodies.md).

steady (`adjoint.mode: steady`): `flowgrad adjoint`; the quantities are the case's objective
  terms as gradient.csv's header lists them (e.g. drag, lift, a pressure_drop). With --sequence
  STEPS (grid sequencing) the levels run one after the other, each after the first from the
  previous level's steady state (initial.type file: interpolated to its grid) with STEPS time steps
  before Newton instead of the case's transient; the steady states are the same (Newton's
  tolerance), the cost of the fine levels' transients is gone. At a fixed time.dt Newton's Krylov
  iterations grow with the level (its CFL number): a step that follows it, --level-set
  'time.dt={0.005/N}' with --sequence (or adjoint.steady_dt), keeps them low (docs/adjoint.md).
  In unsteady and mean modes --sequence STEPS starts each level after the first from the previous
  level's last fields (interpolated) and runs it STEPS steps (times N/N1 with --scale-dt: the same
  time at every level); its window is the last stretch of its run as long as the first level's
  (t_end - --from), so the approach to the limit cycle from the coarser state is not in it.
mean: `flowgrad run`; for each body B, B_cd_mean and B_cl_mean, the means of history.csv's rows
  with time >= --from (a flow that settles to a steady state by time stepping: a sphere in 3D).
unsteady: `flowgrad run`; from history.csv's rows with time >= --from, for each body B:
  B_cd_max, B_cl_max (the largest values, refined by a parabola through the peak sample and its
  neighbours) and B_st (the Strouhal number f L / u_ref from Cl's upward mean crossings;
  u_ref from the resolved case).

--reuse (steady): a level whose directory already holds a finished run (its gradient.csv, which
  flowgrad writes last) is read instead of run again, so that a study stopped at its finest level
  resumes there (with --sequence, from the level before it). It does not compare the settings:
  after changing the case or an option, use a new --workdir.

Per quantity q on levels ... N1, N2, N3 (the last three): the observed order
p = log2(|q(N1) - q(N2)| / |q(N2) - q(N3)|) (N doubling; else log of the ratio over log(N3/N2)),
the relative difference of the two finest |q(N3) - q(N2)| / |q(N3)|, and with --reference the
relative error of each level and the order of the last two levels' errors. With two levels
--min-order judges the order against the reference (quantities without one: only --max-diff).
Exit 1 when a run fails or, unless --report-only, an order is
below --min-order or a difference above its --max-diff (NAME=TOL; NAME '*' for the rest).
"""
import argparse, concurrent.futures, csv, math, os, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "postproc"))

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--flowgrad", required=True)
ap.add_argument("--case", required=True)
ap.add_argument("--workdir", required=True)
ap.add_argument("--length", type=float, required=True, help="the body's size L: h_min = L/N")
ap.add_argument("--levels", required=True, help="N1,N2,...: h_min = L/N")
ap.add_argument("--mode", choices=("steady", "unsteady", "mean"), default="steady")
ap.add_argument("--hkeys", default="grid.stretch.x.h_min,grid.stretch.y.h_min")
ap.add_argument("--scale-dt", action="store_true")
ap.add_argument("--from", dest="t_from", type=float, default=None,
                help="unsteady: the window's start time (default: the last third of the run)")
ap.add_argument("--reference", action="append", default=[], help="NAME=VALUE")
ap.add_argument("--set", action="append", default=[])
ap.add_argument("--level-set", action="append", default=[], help="K=V with {expr of N} in V")
ap.add_argument("--options", default="", help="further command-line options of every run (one string)")
ap.add_argument("--mpiexec", default="")
ap.add_argument("--mpiexec-flags", default="")
ap.add_argument("--np", type=int, default=1)
ap.add_argument("--jobs", type=int, default=1)
ap.add_argument("--min-order", type=float, default=1.5)
ap.add_argument("--max-diff", action="append", default=[], help="NAME=TOL (relative)")
ap.add_argument("--csv", default="")
ap.add_argument("--report-only", action="store_true")
ap.add_argument("--sequence", type=int, default=0,
                help="each level after the first starts from the previous one's steady state (steady: "
                     "with this many time steps before Newton) or last fields (unsteady, mean: and runs "
                     "this many steps, scaled by --scale-dt); the levels run in order")
ap.add_argument("--reuse", action="store_true",
                help="steady: read a level whose directory holds a finished run instead of running it")
ap.add_argument("--surface-dp", action="append", default=[],
                help="steady: NAME=X1,Y1:X2,Y2, the pressure difference of two surface points, each "
                     "extrapolated from the fluid along the normal (see surface_pressure)")
a = ap.parse_args()

try:
    import numpy as np
    import body_stats  # postproc/body_stats.py: history.csv, the shedding frequency
    from fgpost import common  # postproc/fgpost/common.py: the run's fields files
except ImportError:
    sys.exit("accuracy.py: needs numpy (apt-get install python3-numpy)")


def pairs(option, items):
    """NAME=VALUE items of a repeatable option as a dict of floats; a clear error otherwise."""
    out = {}
    for item in items:
        k, eq, v = item.partition("=")
        try:
            out[k.strip()] = float(v)
        except ValueError:
            eq = ""
        if not eq or not k.strip():
            sys.exit(f"accuracy.py: {option} {item!r}: expected NAME=NUMBER")
    return out


ref, tol = pairs("--reference", a.reference), pairs("--max-diff", a.max_diff)

levels = [int(x) for x in a.levels.split(",") if x.strip()]
if len(levels) < 2 or any(n <= 0 for n in levels) or sorted(levels) != levels:
    sys.exit("accuracy.py: --levels needs two or more increasing positive integers")
os.makedirs(a.workdir, exist_ok=True)


def read_case_value(path, dotted):
    """A scalar of the resolved case (the YAML flowgrad writes: two-space indents, key: value)."""
    want, depth = dotted.split("."), 0
    with open(path) as fh:
        for line in fh:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            ind = (len(line) - len(line.lstrip(" "))) // 2
            key, _, val = line.strip().partition(":")
            if ind == depth and key == want[depth]:
                if depth == len(want) - 1:
                    return float(val.strip().strip('"'))
                depth += 1
            elif ind < depth:
                break
    raise KeyError(dotted)


def peak(y):
    """The largest value of a sampled signal, refined by a parabola through its top three samples."""
    i = int(np.argmax(y))
    if 0 < i < len(y) - 1:
        y0, y1, y2 = y[i - 1], y[i], y[i + 1]
        den = y0 - 2 * y1 + y2
        if den < 0:
            d = 0.5 * (y0 - y2) / den
            return y1 - 0.25 * (y0 - y2) * d
    return float(y[i])


def unsteady_quantities(out, window=None):
    """window: the window's length, counted back from the run's end (a sequenced level)."""
    col = body_stats.read_history(out)
    t = col["time"]
    if window is not None:
        t0 = t[-1] - window
    else:
        t0 = a.t_from if a.t_from is not None else t[-1] * 2.0 / 3.0
    w = t >= t0
    q = {}
    if a.mode == "mean":
        for name in col:
            if name.endswith("_cl") and name[:-3] + "_cd" in col:
                b = name[:-3]
                if not w.any():
                    raise RuntimeError(f"no rows of history.csv after t = {t0:g}")
                q[b + "_cd_mean"] = float(np.mean(col[b + "_cd"][w]))
                q[b + "_cl_mean"] = float(np.mean(col[b + "_cl"][w]))
        return q
    for name in col:
        if not name.endswith("_cl"):
            continue
        b = name[:-3]
        cd, cl = col[b + "_cd"][w], col[b + "_cl"][w]
        f, crossings = body_stats.frequency(t[w], cl)
        if crossings < 3 or f <= 0:
            raise RuntimeError(f"{b}: fewer than 3 periods of Cl after t = {t0:g}")
        try:
            uref = read_case_value(os.path.join(out, "case.resolved.yaml"), "flow.u_ref")
        except (OSError, KeyError, ValueError):
            uref = 1.0
        q[b + "_cd_max"] = peak(cd)
        q[b + "_cl_max"] = peak(cl)
        q[b + "_st"] = f * a.length / uref
    return q


def bilinear(xc, yc, f, x, y):
    """f (cell centres xc, yc; f[j, i]) interpolated bilinearly at (x, y)."""
    i = min(max(int(np.searchsorted(xc, x)) - 1, 0), len(xc) - 2)
    j = min(max(int(np.searchsorted(yc, y)) - 1, 0), len(yc) - 2)
    s, t = (x - xc[i]) / (xc[i + 1] - xc[i]), (y - yc[j]) / (yc[j + 1] - yc[j])
    return ((1 - s) * (1 - t) * f[j, i] + s * (1 - t) * f[j, i + 1]
            + (1 - s) * t * f[j + 1, i] + s * t * f[j + 1, i + 1])


def surface_pressure(h5, x, y):
    """The pressure at the surface point (x, y) of a 2D steady state, from the fluid: the normal n
    is grad phi there (central differences of the level set phi over a cell), and p is sampled
    bilinearly at 1.5, 2.5 and 3.5 cells h out along n (h the larger spacing there, so that no
    sample's cells reach into the body), then extrapolated to the surface by the parabola through
    the three (weights 35/8, -21/4, 15/8). A penalized body's pressure inside is not the flow's, so
    a probe at the surface that interpolates across it measures neither side's."""
    import h5py
    with h5py.File(h5, "r") as f:
        xc, yc, p, phi = f["x_centres"][:], f["y_centres"][:], f["p"][:], f["phi"][:]
    i, j = int(np.searchsorted(xc, x)), int(np.searchsorted(yc, y))
    h = max(xc[i] - xc[i - 1], yc[j] - yc[j - 1])
    n = np.array([bilinear(xc, yc, phi, x + h, y) - bilinear(xc, yc, phi, x - h, y),
                  bilinear(xc, yc, phi, x, y + h) - bilinear(xc, yc, phi, x, y - h)])
    n /= np.linalg.norm(n)
    s = [bilinear(xc, yc, p, x + d * h * n[0], y + d * h * n[1]) for d in (1.5, 2.5, 3.5)]
    return 35 / 8 * s[0] - 21 / 4 * s[1] + 15 / 8 * s[2]


def surface_dp(out):
    q = {}
    for item in a.surface_dp:
        name, _, pts = item.partition("=")
        try:
            (x1, y1), (x2, y2) = [[float(c) for c in pt.split(",")] for pt in pts.split(":")]
        except ValueError:
            sys.exit(f"accuracy.py: --surface-dp {item!r}: expected NAME=X1,Y1:X2,Y2")
        h5 = os.path.join(out, "steady.h5")
        q[name.strip()] = surface_pressure(h5, x1, y1) - surface_pressure(h5, x2, y2)
    return q


def steady_quantities(out):
    q = {}
    with open(os.path.join(out, "gradient.csv")) as fh:
        for line in fh:
            if not line.startswith("#"):
                break
            if line.startswith("# objective "):
                name, _, val = line[len("# objective "):].partition("=")
                q[name.strip()] = float(val)
    if not q:
        raise RuntimeError("no objective terms in gradient.csv")
    q.update(surface_dp(out))
    return q


def level_value(text, n):
    """text with each {expr} replaced by the value of expr (N: the level; arithmetic only)."""
    out, i = "", 0
    while True:
        j = text.find("{", i)
        if j < 0:
            return out + text[i:]
        k = text.find("}", j)
        if k < 0:
            sys.exit(f"accuracy.py: --level-set {text!r}: no closing brace")
        expr = text[j + 1:k]
        if not set(expr) <= set("N0123456789.+-*/() "):
            sys.exit(f"accuracy.py: --level-set {text!r}: only arithmetic of N inside braces")
        v = eval(expr, {"__builtins__": {}}, {"N": n})  # noqa: S307 (checked: digits, N, operators)
        out += text[i:j] + (str(int(v)) if float(v).is_integer() else repr(float(v)))
        i = k + 1


def last_fields(out):
    """The fields file a run wrote last (fgpost.common.field_files: ordered by step)."""
    files = common.field_files(out)
    if not files:
        raise OSError(f"no fields file in {os.path.join(out, 'fields')}")
    return files[-1]


def run(n, start="", window=None):
    """Level n (start: a steady.h5 or fields file to start from, --sequence; window: unsteady)."""
    out = os.path.abspath(os.path.join(a.workdir, f"level_{n:04d}"))
    cmd = []
    if a.mpiexec:
        cmd = [a.mpiexec, "-n", str(a.np)] + [x for x in a.mpiexec_flags.replace(";", " ").split() if x]
    cmd += [a.flowgrad, "adjoint" if a.mode == "steady" else "run", a.case, "--set", "output.dir=" + out]
    for k in a.hkeys.split(","):
        if k.strip():
            cmd += ["--set", f"{k.strip()}={a.length / n!r}"]
    if a.scale_dt:
        r = n / levels[0]
        dt = read_case_value(base_resolved, "time.dt")
        steps = read_case_value(base_resolved, "time.steps")
        cmd += ["--set", f"time.dt={dt / r!r}", "--set", f"time.steps={int(round(steps * r))}"]
    for s in a.set:
        cmd += ["--set", s]
    for s in a.level_set:
        cmd += ["--set", level_value(s, n)]
    if start:
        steps = a.sequence
        if a.mode != "steady" and a.scale_dt:
            steps = int(round(a.sequence * n / levels[0]))
        cmd += ["--set", "initial.type=file", "--set", "initial.file=" + start, "--set", f"time.steps={steps}"]
    cmd += a.options.split()
    if a.reuse and os.path.isfile(os.path.join(out, "gradient.csv")):
        print(f"level {n}: reusing the finished run in {out}", flush=True)
        try:
            return n, steady_quantities(out), ""
        except (OSError, RuntimeError, ValueError, KeyError) as e:
            return n, None, str(e)
    with open(out + ".log", "w") as log:
        r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        return n, None, f"exit {r.returncode} (log: {out}.log)"
    try:
        return n, (steady_quantities(out) if a.mode == "steady" else unsteady_quantities(out, window)), ""
    except (OSError, RuntimeError, ValueError, KeyError) as e:
        return n, None, str(e)


base_resolved = ""
if a.scale_dt:  # the case's dt and steps as flowgrad resolves them (with --set)
    base_resolved = os.path.join(a.workdir, "base.resolved.yaml")
    cmd = [a.flowgrad, "info", a.case] + sum((["--set", s] for s in a.set), [])
    cmd += sum((["--set", f"{k.strip()}={a.length / levels[0]!r}"] for k in a.hkeys.split(",") if k.strip()), [])
    cmd += sum((["--set", level_value(s, levels[0])] for s in a.level_set), [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"accuracy.py: flowgrad info failed: {r.stderr.strip()}")
    with open(base_resolved, "w") as fh:
        fh.write(r.stdout.split("\n# decomposition")[0])

for item in a.set:  # a --set of a level's own key would undo the refinement
    if item.partition("=")[0].strip() in [k.strip() for k in a.hkeys.split(",") if k.strip()]:
        sys.exit(f"accuracy.py: --set {item!r} sets an --hkeys key, which each level sets to L/N")
if a.reuse and a.mode != "steady":
    sys.exit("accuracy.py: --reuse reads steady levels only (an unsteady run leaves no mark of having finished)")
if a.sequence < 0:
    sys.exit("accuracy.py: --sequence needs a positive number of steps")
if a.sequence:  # in order, each from the one before
    results, prev, window = {}, "", None
    for n in levels:
        _, q, err = run(n, prev, window)
        results[n] = (q, err)
        if q is None:
            break
        out = os.path.abspath(os.path.join(a.workdir, f"level_{n:04d}"))
        if a.mode == "steady":
            prev = os.path.join(out, "steady.h5")
            continue
        try:
            prev = last_fields(out)
            if window is None:  # the first level's window, kept for the rest
                t = body_stats.read_history(out)["time"]
                window = t[-1] - (a.t_from if a.t_from is not None else t[-1] * 2.0 / 3.0)
                if a.sequence * read_case_value(os.path.join(out, "case.resolved.yaml"), "time.dt") <= window:
                    sys.exit(f"accuracy.py: --sequence {a.sequence}: the following levels' runs would be "
                             f"no longer than the window ({window:g})")
        except (OSError, KeyError, ValueError) as e:
            results[n] = (None, str(e))
            break
else:
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        results = dict((n, (q, err)) for n, q, err in ex.map(run, levels))

bad = [f"level {n}: {err}" for n, (q, err) in results.items() if q is None]
if bad:
    print("\n".join(bad))
    sys.exit(1)

names = list(results[levels[0]][0].keys())

print(f"{'quantity':>14s} " + " ".join(f"{'L/' + str(n):>14s}" for n in levels) + f" {'order':>7s} {'finest diff':>12s}")
fail, rows = [], []
for name in names:
    v = [results[n][0][name] for n in levels]
    rat = math.log(levels[-1] / levels[-2])
    order = float("nan")
    if len(levels) >= 3:
        d1, d2 = abs(v[-3] - v[-2]), abs(v[-2] - v[-1])
        order = math.log(d1 / d2) / rat if d1 > 0 and d2 > 0 else float("inf")
    diff = abs(v[-1] - v[-2]) / abs(v[-1]) if v[-1] != 0 else float("inf")
    print(f"{name:>14s} " + " ".join(f"{x:14.8g}" for x in v) + f" {order:7.2f} {diff:12.3e}")
    ref_order = float("nan")
    if name in ref:
        e = [(x - ref[name]) / ref[name] for x in v]
        ref_order = math.log(abs(e[-2]) / abs(e[-1])) / rat if e[-1] != 0 and e[-2] != 0 else float("inf")
        print(f"{'error':>14s} " + " ".join(f"{x:+14.3e}" for x in e) + f" {ref_order:7.2f}   (against the reference {ref[name]:.10g})")
    # the order judged: over the last three levels, or with two levels against the reference
    judged = order if len(levels) >= 3 else ref_order
    if (len(levels) >= 3 or name in ref) and not judged >= a.min_order:
        fail.append(f"{name}: order {judged:.2f} < {a.min_order}")
    t = tol.get(name, tol.get("*"))
    if t is not None and not diff <= t:
        fail.append(f"{name}: two finest differ by {diff:.3e} > {t:g}")
    rows.append([name] + v + [order, diff, ref.get(name, ""), ref_order])

if a.csv:
    with open(a.csv, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["quantity"] + [f"L/{n}" for n in levels] + ["order", "finest_diff", "reference", "order_vs_reference"])
        w.writerows(rows)
if fail and not a.report_only:
    print("outside the bands:\n  " + "\n  ".join(fail))
    sys.exit(1)
print("within the bands" if not fail else "outside the bands (--report-only): " + "; ".join(fail))
