"""postproc control RUN_DIR: the controls of a `flowgrad adjoint` run (rotation rates, jet
amplitudes, actuator forces) and their gradient in time, two panels sharing the time axis.

  control value   from gradient.csv's `value` column (the design): with design.time_basis N >= 2
                  piecewise linear through the N values at t_k = k T/(N - 1) (constant beyond T),
                  with N = 1 constant
  gradient        per step n (drawn over [t_start, t_end]), from gradient_time.csv: the sum over the
                  control's basis coefficients of the part of dJ/dp_k that step n contributes (for
                  jet amplitudes and actuator forces flowgrad's own `NAME(t)` column: dJ/d(the
                  control during step n); for a rotation rate the step's part of dJ/d(a uniform
                  shift of the rate), which also acts later through the rotation angle); with N = 1
                  the column itself. Its sum over the steps is gradient.csv's value less the
                  direct terms of J (control_cost)
Picture (in --out, default RUN_DIR/plots): control.<fmt>
"""
import os
import re

import numpy as np

from . import common
from .common import PostprocError
from .plotdata import get, load_case, require_dir

CONTROL = re.compile(r"^(body\.[^.]+\.(rotation_rate|jet_amplitude\[\d+\])|actuator\.[^.]+\.force\[[a-z0-9]+\])")


def add_parser(sub):
    p = sub.add_parser("control", help="a time-dependent control and its gradient in time",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("run_dir")
    p.add_argument("--rate", action="store_true", help="divide the per-step gradient by dt (a rate per unit time)")
    common.add_figure_args(p)


def read_control(run_dir):
    """(times, controls): times = dict(step, t_start, t_end); controls = {base: dict(names, values,
    grad_steps (n_steps x N), grad_total (N), flowgrad_t (the NAME(t) column or None))}."""
    require_dir(run_dir)
    gt_path = os.path.join(run_dir, "gradient_time.csv")
    g_path = os.path.join(run_dir, "gradient.csv")
    for p in (g_path, gt_path):
        if not os.path.exists(p):
            raise PostprocError(f"{p}: no such file (a flowgrad adjoint output directory?)")
    gt = common.csv_columns(gt_path)
    design = common.read_csv(g_path)
    case = load_case(run_dir)
    N = int(get(case, "design", "time_basis", default=1) or 1)
    controls = {}
    for r in design:
        name = r["name"]
        m = CONTROL.match(name)
        if not m:
            continue
        base, rest = m.group(1), name[len(m.group(1)):]
        if N >= 2:
            mk = re.fullmatch(r"\[(\d+)\]", rest)
            if not mk:
                continue
        elif rest:
            continue
        if name not in gt:
            raise PostprocError(f"{gt_path}: no column '{name}'")
        c = controls.setdefault(base, dict(names=[], values=[], grad_total=[]))
        c["names"].append(name)
        c["values"].append(float(r["value"]))
        c["grad_total"].append(float(r["gradient"]))
    if not controls:
        raise PostprocError(f"{g_path}: no control in the design (body.NAME.rotation_rate, "
                            "body.NAME.jet_amplitude, actuator.NAME.force)")
    for base, c in controls.items():
        c["values"] = np.array(c["values"])
        c["grad_total"] = np.array(c["grad_total"])
        c["grad_steps"] = np.stack([gt[n] for n in c["names"]], axis=1)
        c["flowgrad_t"] = gt.get(base + "(t)")
    times = {k: gt[k] for k in ("step", "t_start", "t_end")}
    return times, controls, N, case


def control_in_time(values, N, T, t):
    if N < 2:
        return np.full_like(t, values[0], dtype=float)
    tk = np.arange(N) * T / (N - 1)
    return np.interp(t, tk, values)


def control_figure(args, times, controls, N, title, rate=False):
    """Returns (fig, data): data[base] = dict(t, value, t_mid, gradient): the control drawn at t
    and the per-step gradient (summed over the basis) at the step midpoints."""
    fig, axes = common.new_figure(args, 2, 1, sharex=True)
    t0, t1 = times["t_start"], times["t_end"]
    T = float(t1[-1])
    t = np.linspace(0.0, T, 401)
    tm = 0.5 * (t0 + t1)
    data = {}
    for i, (base, c) in enumerate(controls.items()):
        col = f"C{i % 10}"
        v = control_in_time(c["values"], N, T, t)
        g = c["grad_steps"].sum(axis=1)
        if rate:
            g = g / (t1 - t0)
        data[base] = dict(t=t, value=v, t_mid=tm, gradient=g)
        axes[0].plot(t, v, color=col, lw=1.5, label=base)
        if N >= 2:
            axes[0].plot(np.arange(N) * T / (N - 1), c["values"], "o", color=col, ms=4)
        what = "dJ/d(control in step n)" if c["flowgrad_t"] is not None else (
            "Σ$_k$ step-n part of dJ/dp$_k$" if N >= 2 else "step-n part of dJ/dp")
        axes[1].plot(tm, g, color=col, lw=1, drawstyle="steps-mid", label=f"{base}: {what}")
    axes[0].set_ylabel("control value\n(rad/time, velocity, force)", fontsize=8)
    axes[0].legend(fontsize=7, loc="best")
    axes[1].axhline(0, color="k", lw=0.5)
    axes[1].set_ylabel("dJ/dp per step" + (" / dt" if rate else ""), fontsize=8)
    axes[1].set_xlabel("t (flowgrad time units)")
    axes[1].legend(fontsize=7, loc="best")
    for a in axes:
        a.grid(alpha=0.3)
    basis = f"{N} values, piecewise linear" if N >= 2 else "constant"
    axes[0].set_title(f"{title}: controls ({basis}) and their gradient in time", fontsize=9)
    fig.tight_layout()
    return fig, data


def run(args):
    times, controls, N, case = read_control(args.run_dir)
    common.formats(args)
    title = common.case_name(args.run_dir)
    fig, data = control_figure(args, times, controls, N, title, args.rate)
    common.save(fig, args, args.run_dir, "control")
    for base, c in controls.items():
        s = c["grad_steps"].sum(axis=0)
        direct = c["grad_total"] - s
        print(f"{base}: {len(c['names'])} value(s) {', '.join(f'{v:.6g}' for v in c['values'])}")
        print(f"  dJ/dp (gradient.csv)          {', '.join(f'{v:.6g}' for v in c['grad_total'])}")
        print(f"  sum over steps (gradient_time) {', '.join(f'{v:.6g}' for v in s)}")
        print(f"  difference (direct terms of J) {', '.join(f'{v:.3g}' for v in direct)}")
    return 0
