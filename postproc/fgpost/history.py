"""postproc history RUN_DIR [--body NAME] [--from T]: the run's health, force coefficients over
time and the Strouhal spectrum of the lift, from RUN_DIR/history.csv.

Pictures (in --out, default RUN_DIR/plots):
  history_run.<fmt>       the kinetic energy, the CFL number and the largest divergence after
                          the projection (log scale) against time: every run, with or without
                          bodies
  (with bodies, in history.csv as NAME_cd, NAME_cl:)
  history_forces.<fmt>    Cd (and the control-volume drag coefficient NAME_cv_fx / (1/2 U^2 A)
                          when the column is there), Cl and Cm of each body against time
  history_spectrum.<fmt>  the periodogram |FFT(Cl - mean)|^2 of the lift over t >= --from
                          (default: the second half of the run), against St = f L/U with L, U the
                          body's ref_length and ref_speed (case.resolved.yaml; 1 by default); the
                          peak marked and printed
"""
import os

import numpy as np

from . import common
from .common import PostprocError
from .plotdata import body_refs, load_case, require_dir

PAD = 8  # zero padding of the FFT: the frequency grid is 1 / (PAD * window length)


def add_parser(sub):
    p = sub.add_parser("history", help="force coefficients over time; the Strouhal spectrum of the lift",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("run_dir")
    p.add_argument("--body", help="one body (default: every body in history.csv)")
    p.add_argument("--from", dest="t_from", type=float,
                   help="the spectrum's window starts here (default: half the run's end time)")
    common.add_figure_args(p)


def read_history(run_dir):
    require_dir(run_dir)
    path = os.path.join(run_dir, "history.csv")
    if not os.path.exists(path):
        raise PostprocError(f"{path}: no such file (a flowgrad run directory?)")
    return common.csv_columns(path)


def bodies_of(cols, body=None):
    names = [k[:-3] for k in cols if k.endswith("_cd") and k[:-3] + "_cl" in cols]
    if body is not None:
        if body not in names:
            raise PostprocError(f"no body '{body}' in history.csv (bodies: {', '.join(names) or 'none'})")
        return [body]
    if not names:
        raise PostprocError("history.csv has no body columns (NAME_cd, NAME_cl)")
    return names


def lift_spectrum(t, cl, t_from, L=1.0, U=1.0):
    """The periodogram of Cl over t >= t_from: (St, power, st_peak, f_peak, window (t0, t1), n).
    The samples are taken as they are when the time step is uniform; otherwise Cl is interpolated
    linearly onto a uniform grid with the mean step. Mean removed, no taper, zero padded to PAD
    times the length; power = |rfft|^2 / n. St = f L / U. The peak excludes f = 0."""
    w = t >= t_from
    tw, y = t[w], cl[w]
    n = len(tw)
    if n < 8:
        raise PostprocError(f"fewer than 8 rows with time >= {t_from:g} (the run ends at t = {t[-1]:g})")
    bad = ~(np.isfinite(tw) & np.isfinite(y))
    if bad.any():
        raise PostprocError(f"history.csv: {int(bad.sum())} non-finite time or Cl value(s) in the window "
                            f"(first at t = {tw[np.argmax(bad)]:g}): no spectrum")
    dt = np.diff(tw)
    if np.ptp(dt) > 1e-9 * dt.mean():
        tu = tw[0] + np.arange(n) * (tw[-1] - tw[0]) / (n - 1)
        y = np.interp(tu, tw, y)
        tw = tu
    h = (tw[-1] - tw[0]) / (n - 1)
    spec = np.abs(np.fft.rfft(y - y.mean(), n=PAD * n)) ** 2 / n
    f = np.fft.rfftfreq(PAD * n, d=h)
    st = f * L / U
    if np.ptp(y) < 1e-12:
        return st, spec, float("nan"), float("nan"), (tw[0], tw[-1]), n
    k = 1 + int(np.argmax(spec[1:]))
    return st, spec, float(st[k]), float(f[k]), (tw[0], tw[-1]), n


def forces_figure(args, cols, bodies, case, title):
    """Cd (+ control-volume Cd), Cl, Cm against time. Returns (fig, data): data[(body, what)] =
    (t, y), what in cd, cd_cv, cl, cm."""
    fig, axes = common.new_figure(args, 3, 1, sharex=True)
    t = cols["time"]
    data = {}
    for i, b in enumerate(bodies):
        c = f"C{i % 10}"
        data[(b, "cd")] = (t, cols[b + "_cd"])
        axes[0].plot(t, cols[b + "_cd"], color=c, lw=1, label=f"{b}: C$_d$ (penalty force)")
        if b + "_cv_fx" in cols:
            L, U, A, _ = body_refs(case, b)
            cv = cols[b + "_cv_fx"] / (0.5 * U * U * A)
            data[(b, "cd_cv")] = (t, cv)
            axes[0].plot(t, cv, color=c, lw=1, ls="--", alpha=0.7,
                         label=f"{b}: control-volume C$_d$ = cv_fx / (½ U² A)")
        data[(b, "cl")] = (t, cols[b + "_cl"])
        axes[1].plot(t, cols[b + "_cl"], color=c, lw=1, label=b)
        if b + "_cm" in cols:
            data[(b, "cm")] = (t, cols[b + "_cm"])
            axes[2].plot(t, cols[b + "_cm"], color=c, lw=1, label=b)
    # the first steps of an impulsive start have huge forces: clip the drag axis to the rest
    cd_all = np.concatenate([data[k][1][len(t) // 10:] for k in data if k[1] in ("cd", "cd_cv")])
    if cd_all.size and np.all(np.isfinite(cd_all)):
        lo, hi = cd_all.min(), cd_all.max()
        pad = 0.1 * (hi - lo) or 0.1 * abs(hi) or 1.0
        axes[0].set_ylim(lo - pad, hi + pad)
    axes[0].set_ylabel("C$_d$ (-)")
    axes[1].set_ylabel("C$_l$ (-)")
    axes[2].set_ylabel("C$_m$ (-)")
    axes[2].set_xlabel("t (flowgrad time units, L$_{ref}$/U$_{ref}$)")
    axes[0].legend(fontsize=7, loc="best")
    if len(bodies) > 1:
        axes[1].legend(fontsize=7, loc="best")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[0].set_title(f"{title}: force coefficients (drag axis clipped to the last 90 % of the run)",
                      fontsize=9)
    fig.tight_layout()
    return fig, data


def spectrum_figure(args, cols, bodies, case, t_from, title):
    """The lift periodogram per body. Returns (fig, data): data[body] = dict(st, power, st_peak,
    f_peak, window, n, L, U)."""
    fig, ax = common.new_figure(args)
    t = cols["time"]
    data = {}
    refs = []
    for i, b in enumerate(bodies):
        L, U, _, known = body_refs(case, b)
        st, pw, stp, fp, win, n = lift_spectrum(t, cols[b + "_cl"], t_from, L, U)
        data[b] = dict(st=st, power=pw, st_peak=stp, f_peak=fp, window=win, n=n, L=L, U=U)
        ax.plot(st, pw, color=f"C{i % 10}", lw=1, label=b)
        if np.isfinite(stp):
            k = int(np.argmin(np.abs(st - stp)))
            ax.plot([stp], [pw[k]], "o", color=f"C{i % 10}")
            ax.annotate(f"St = {stp:.4f}", (stp, pw[k]), textcoords="offset points", xytext=(6, 4), fontsize=8)
        refs.append(f"{b}: L = {L:g}, U = {U:g}" + ("" if known else " (defaults)"))
    peaks = [d["st_peak"] for d in data.values() if np.isfinite(d["st_peak"])]
    ax.set_xlim(0, max(5 * max(peaks), 1.0) if peaks else 2.0)
    ax.set_xlabel("St = f L$_{ref}$ / U$_{ref}$ (" + "; ".join(refs) + ", from the case's ref_length, ref_speed)",
                  fontsize=8)
    ax.set_ylabel("|FFT(C$_l$ − mean)|² / n")
    win = next(iter(data.values()))["window"]
    ax.set_title(f"{title}: spectrum of the lift coefficient, t in [{win[0]:.4g}, {win[1]:.4g}]", fontsize=9)
    ax.grid(alpha=0.3)
    if len(bodies) > 1:
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig, data


RUN_COLUMNS = [("kinetic_energy", "kinetic energy", False), ("cfl", "CFL number", False),
               ("max_div", "max |div u| after the projection", True)]


def run_figure(args, cols, title):
    """The run's health against time: one panel per column of RUN_COLUMNS that history.csv has.
    Returns (fig, data): data[column] = (t, y)."""
    have = [c for c in RUN_COLUMNS if c[0] in cols]
    if not have:
        raise PostprocError("history.csv has none of the columns " + ", ".join(c[0] for c in RUN_COLUMNS))
    fig, axes = common.new_figure(args, len(have), 1, sharex=True)
    axes = np.atleast_1d(axes)
    t, data = cols["time"], {}
    for ax, (col, label, log) in zip(axes, have):
        y = cols[col]
        data[col] = (t, y)
        if log and np.any(y > 0):
            ax.semilogy(t, np.where(y > 0, y, np.nan), lw=1, color="C0", label=label)
        else:
            ax.plot(t, y, lw=1, color="C0", label=label)
        ax.set_ylabel(label, fontsize=8)
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("t (flowgrad time units, L$_{ref}$/U$_{ref}$)")
    axes[0].set_title(f"{title}: the run", fontsize=9)
    fig.tight_layout()
    return fig, data


def run(args):
    cols = read_history(args.run_dir)
    for k in ("time",):
        if k not in cols:
            raise PostprocError(f"{args.run_dir}/history.csv: no column '{k}'")
    common.formats(args)
    title = common.case_name(args.run_dir)
    has_bodies = any(k.endswith("_cd") and k[:-3] + "_cl" in cols for k in cols)
    if not has_bodies and args.body is None:  # a run without bodies: its health only
        fig, data = run_figure(args, cols, title)
        common.save(fig, args, args.run_dir, "history_run")
        t = cols["time"]
        for col, (_, y) in data.items():
            print(f"{col}: {y[0]:.6g} at t = {t[0]:.6g} -> {y[-1]:.6g} at t = {t[-1]:.6g} (max {np.nanmax(y):.6g})")
        print("no bodies in history.csv: no force or spectrum pictures")
        return 0
    bodies = bodies_of(cols, args.body)
    case = load_case(args.run_dir)
    t = cols["time"]
    t_from = args.t_from if args.t_from is not None else 0.5 * t[-1]
    if np.count_nonzero(t >= t_from) < 8:  # bad input before any picture
        raise PostprocError(f"fewer than 8 rows with time >= {t_from:g} (the run ends at t = {t[-1]:g})")
    fig, _ = run_figure(args, cols, title)
    common.save(fig, args, args.run_dir, "history_run")
    fig, _ = forces_figure(args, cols, bodies, case, title)
    common.save(fig, args, args.run_dir, "history_forces")
    fig, data = spectrum_figure(args, cols, bodies, case, t_from, title)
    common.save(fig, args, args.run_dir, "history_spectrum")
    for b, d in data.items():
        w = cols[b + "_cl"][t >= t_from]
        print(f"{b}: Cd mean {cols[b + '_cd'][t >= t_from].mean():.6g}, Cl mean {w.mean():.6g}, "
              f"Cl amplitude {0.5 * np.ptp(w):.6g} over t in [{d['window'][0]:.6g}, {d['window'][1]:.6g}] ({d['n']} rows)")
        if np.isfinite(d["st_peak"]):
            print(f"{b}: lift spectrum peak St = {d['st_peak']:.6f} (f = {d['f_peak']:.6f}, L = {d['L']:g}, "
                  f"U = {d['U']:g}; resolution dSt = L/(U T) = {d['L'] / (d['U'] * (d['window'][1] - d['window'][0])):.2g}, "
                  f"the zero-padded grid {d['st'][1]:.2g})")
        else:
            print(f"{b}: the lift does not oscillate over the window: no spectrum peak")
    return 0
