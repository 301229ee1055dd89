#!/usr/bin/env python3
"""The measurement of the flow-control example (cases/cylinder_control/run.sh; plain Python 3).

  measure.py values OPT_DIR
      prints the optimized control, OPT_DIR/optimization/result.csv's column `final` of the
      body.<b>.rotation_rate[k] entries, as a YAML list for
      --set body.<b>.rotation_rate_values=[...] (in the order k = 0..N-1)

  measure.py report OUT [--min-reduction 0.8]
      OUT/uncontrolled and OUT/controlled are `flowgrad run`s of cylinder_control.yaml with the
      initial design (no rotation) and with the optimized one; OUT/optimize the optimization.
      Over the objective's window [t0, t1] (the steps n >= 1 whose end time t_n lies in it, as
      the objective takes them) it prints, from each run's history.csv, the lift coefficient's
      standard deviation (the square root of the objective's variance) and its peak-to-peak
      range, their reduction, and the mean lift and drag and the probes' v. It checks that the
      two runs reproduce the optimizer's J at the first and the last iteration to 1e-6 relative
      (every term recomputed from history.csv: time averages of lift, drag and probe_tracking
      with a target, with any statistic, and the control cost of the run's design), and exits 1
      when either amplitude measure fell by less than --min-reduction (or a check failed).
"""
import csv, math, re, sys


def resolved(path):
    """The scalar keys of a case.resolved.yaml (block style, two-space indent) as dotted paths."""
    keys, stack = {}, []
    for line in open(path):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        ind = (len(line) - len(line.lstrip(" "))) // 2
        m = re.match(r"\s*([^:]+):\s*(.*)$", line.rstrip("\n"))
        if not m:
            continue
        stack = stack[:ind] + [m.group(1)]
        if m.group(2):
            keys[".".join(stack)] = m.group(2).strip().strip('"')
    return keys


def numbers(text):
    return [float(x) for x in text.strip("[]").split(",") if x.strip()]


def history(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def window_stats(rows, t0, t1, col):
    q = [float(r[col]) for r in rows if int(r["step"]) >= 1 and t0 - 1e-9 <= float(r["time"]) <= t1 + 1e-9]
    mean = sum(q) / len(q)
    var = sum((x - mean) ** 2 for x in q) / len(q)
    return {"n": len(q), "mean": mean, "var": var, "std": math.sqrt(var), "p2p": max(q) - min(q)}


def control_values(opt):
    with open(f"{opt}/optimization/result.csv") as f:
        rows = list(csv.DictReader(f))
    ctl = [(r["name"], float(r["final"])) for r in rows if re.match(r"body\.\w+\.rotation_rate\[\d+\]$", r["name"])]
    return ctl


def values(a):
    ctl = control_values(a[0])
    if not ctl:
        sys.exit(f"{a[0]}/optimization/result.csv has no body.<b>.rotation_rate[k] entries")
    print("[" + ",".join(repr(v) for _, v in ctl) + "]")


def weights(rows, t0, t1, ramp):
    """The objective's time-average weights omega_n over the steps n >= 1 (src/objective/objective.c)."""
    w = []
    for r in rows:
        t = float(r["time"])
        if int(r["step"]) < 1 or t < t0 - 1e-12 * (1 + abs(t0)) or t > t1 + 1e-12 * (1 + abs(t1)):
            w.append(0.0)
        elif ramp > 0:
            w.append(math.sin(0.5 * math.pi * min(1.0, (t - t0) / ramp, (t1 - t) / ramp)) ** 2)
        else:
            w.append(1.0)
    s = sum(w)
    return [x / s for x in w]


def term(k, o, rows, theta, T):
    """J_i of objective o computed from a run's history.csv (None for a kind this does not know)."""
    g = lambda key, default=None: k.get(f"objective.{o}.{key}", default)
    kind, weight = g("kind"), float(g("weight"))
    t0, t1 = numbers(g("window")) if g("window") else (0.0, T)
    if kind == "control_cost":
        return weight * 0.5 * (t1 - t0) * sum(x * x for x in theta)
    if g("time") != "average":
        return None
    if kind in ("lift", "drag"):
        q = [float(r[f"{g('body')}_{'cl' if kind == 'lift' else 'cd'}"]) for r in rows]
    elif kind == "probe_tracking" and g("target"):
        tg = numbers(g("target"))
        q = [0.5 * sum((float(r[f"{g('probe')}_{c}"]) - tg[d]) ** 2 for d, c in enumerate("uvw"[:len(tg)])) for r in rows]
    else:
        return None
    w = weights(rows, t0, t1, float(g("ramp", "0")))
    m = sum(wi * qi for wi, qi in zip(w, q))
    stat = g("statistic", "value")
    S = m if stat == "value" else sum(wi * (qi - (m if stat == "variance" else 0)) ** 2 for wi, qi in zip(w, q))
    return weight * S


def report(a):
    out = a[0]
    min_red = float(a[a.index("--min-reduction") + 1]) if "--min-reduction" in a else 0.8
    k = resolved(f"{out}/optimize/case.resolved.yaml")
    T = float(k["time.dt"]) * int(k["time.steps"])
    objs = sorted({p.split(".")[1] for p in k if p.startswith("objective.")})
    lift = [o for o in objs if k[f"objective.{o}.kind"] == "lift" and k.get(f"objective.{o}.statistic") == "variance"]
    if len(lift) != 1:
        sys.exit("expected one lift objective with statistic variance")
    lo = lift[0]
    body = k[f"objective.{lo}.body"]
    t0, t1 = numbers(k[f"objective.{lo}.window"]) if f"objective.{lo}.window" in k else (0.0, T)
    opt = history(f"{out}/optimize/optimization.csv")
    ctl = [v for _, v in control_values(f"{out}/optimize")]
    runs = {"uncontrolled": history(f"{out}/uncontrolled/history.csv"), "controlled": history(f"{out}/controlled/history.csv")}
    probe = [c[:-2] for c in runs["uncontrolled"][0] if c.endswith("_v")]
    s = {name: window_stats(r, t0, t1, f"{body}_cl") for name, r in runs.items()}
    ok = True
    print(f"lift coefficient of {body} over the objective window [{t0:g}, {t1:g}] ({s['controlled']['n']} steps), flowgrad run of the initial and the optimized design:")
    print(f"  {'':14s} {'std(Cl)':>10s} {'peak-to-peak':>13s} {'mean Cl':>9s} {'mean Cd':>9s}" + "".join(f" {'std(' + p + '_v)':>14s}" for p in probe))
    for name, r in runs.items():
        cd = window_stats(r, t0, t1, f"{body}_cd")
        pv = [window_stats(r, t0, t1, f"{p}_v")["std"] for p in probe]
        print(f"  {name:14s} {s[name]['std']:10.5f} {s[name]['p2p']:13.5f} {s[name]['mean']:+9.4f} {cd['mean']:9.4f}" + "".join(f" {v:14.4f}" for v in pv))
    red_std = 1 - s["controlled"]["std"] / s["uncontrolled"]["std"]
    red_p2p = 1 - s["controlled"]["p2p"] / s["uncontrolled"]["p2p"]
    print(f"  lift-fluctuation amplitude reduction: {100 * red_std:.1f} % (standard deviation), {100 * red_p2p:.1f} % (peak to peak)")
    # the runs against the optimizer's own evaluations (J at iteration 0 and at the last one)
    for name, row, theta in (("uncontrolled", opt[0], [0.0] * len(ctl)), ("controlled", opt[-1], ctl)):
        parts = [term(k, o, runs[name], theta, T) for o in objs]
        if None in parts:
            print(f"  {name}: J not checked (an objective this script does not compute)")
            continue
        J, Jopt = sum(parts), float(row["J"])
        rel = abs(J - Jopt) / abs(Jopt)
        print(f"  {name}: J from the run {J:.10e}, optimization.csv iteration {row['iteration']} {Jopt:.10e} (relative difference {rel:.1e})")
        if rel > 1e-6:
            print(f"FAIL: the {name} run does not reproduce the optimizer's J")
            ok = False
    if min(red_std, red_p2p) < min_red:
        print(f"FAIL: the lift fluctuation fell by less than {100 * min_red:.0f} %")
        ok = False
    print("ok" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if len(sys.argv) < 3 or sys.argv[1] not in ("values", "report"):
    sys.exit(__doc__)
{"values": values, "report": report}[sys.argv[1]](sys.argv[2:])
