"""postproc optimization RUN_DIR [--iterations 0,5,last]: a `flowgrad optimize` run's history
and body outlines.

Pictures (in --out, default RUN_DIR/plots):
  optimization_history.<fmt>   J and J/J0, TAO's gradient norm (log), and each constraint row
                               relative to its first value with the largest violation (log), per
                               iteration, from optimization.csv; J's objective named (the case's
                               objective terms, case.resolved.yaml) and, for flowgrad's augmented
                               Lagrangian, the end of each outer iteration marked
                               (optimization/outer.csv: a dotted line "outer k, mu")
  optimization_outlines.<fmt>  the bodies' outline (the surface phi = 0 of optimization/iter_NNNN.h5)
                               at the chosen iterations (default: the first and the last written),
                               overlaid; 3D: the middle z plane
"""
import glob
import os
import re

import numpy as np

from . import common
from .common import PostprocError
from .plotdata import get, load_case, parse_list, require_dir
from .slices import body_outlines

FIXED = ("iteration", "evaluations", "J", "J_rel", "gradient_norm", "step", "max_violation", "seconds")


def add_parser(sub):
    p = sub.add_parser("optimization", help="objective, gradient norm and constraints per iteration; body outlines",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("run_dir")
    p.add_argument("--iterations", default="first,last",
                   help="iterations whose outlines to overlay: numbers, 'first', 'last' (default first,last)")
    common.add_figure_args(p)


def read_optimization(run_dir):
    require_dir(run_dir)
    path = os.path.join(run_dir, "optimization.csv")
    if not os.path.exists(path):
        raise PostprocError(f"{path}: no such file (a flowgrad optimize output directory?)")
    cols = common.csv_columns(path)
    for k in ("iteration", "J", "gradient_norm", "max_violation"):
        if k not in cols:
            raise PostprocError(f"{path}: no column '{k}'")
    return cols


def constraint_rows(run_dir, cols):
    """The constraint rows' columns: optimization.h5's constraints_names, else the columns between
    the fixed ones and the design (optimization/result.csv names the design)."""
    h5 = os.path.join(run_dir, "optimization.h5")
    if os.path.exists(h5):
        import h5py
        with h5py.File(h5, "r") as f:
            if "constraints_names" in f:
                names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["constraints_names"][()]]
                return [n for n in names if n in cols]
            return []
    design = set()
    res = os.path.join(run_dir, "optimization", "result.csv")
    if os.path.exists(res):
        design = {r["name"] for r in common.read_csv(res)}
    return [k for k in cols if k not in FIXED and k not in design and "@" not in k.split(".")[0][:1]
            and not k.startswith("J@")]


def objective_label(case):
    """J in words from the case's objective terms: "drag", "drag + 0.5 lift", ... ("" unknown)."""
    obj = get(case, "objective", default=None)
    if not isinstance(obj, dict) or not obj:
        return ""
    parts = []
    for name, term in obj.items():
        w = term.get("weight", 1) if isinstance(term, dict) else 1
        try:
            w = float(w)
        except (TypeError, ValueError):
            w = 1.0
        kind = term.get("kind", "") if isinstance(term, dict) else ""
        what = name if not kind or kind == name else f"{name} ({kind})"
        parts.append((w, what))
    text = ""
    for i, (w, what) in enumerate(parts):
        sign = "−" if w < 0 else ("+" if i else "")
        coef = "" if abs(w) == 1 else f"{abs(w):g} "
        text += (f" {sign} " if i else sign) + coef + what
    if get(case, "points", default=None):
        text += ", summed over the points"
    return text.strip()


def outer_iterations(run_dir):
    """optimization/outer.csv (flowgrad's augmented Lagrangian): [(outer, iteration, penalty)], or
    [] when the run has none."""
    path = os.path.join(run_dir, "optimization", "outer.csv")
    if not os.path.exists(path):
        return []
    out = []
    for r in common.read_csv(path):
        try:
            out.append((int(float(r["outer"])), int(float(r["iteration"])), float(r["penalty"])))
        except (KeyError, ValueError):
            raise PostprocError(f"{path}: not a table of outer, iteration, penalty")
    return out


def history_figure(args, cols, rows, title, objective="", outer=()):
    """Returns (fig, data) with data: iteration, J, J_rel (J/J0), gradient_norm, max_violation,
    constraints {row: q/q0 - 1 (q - q0 where q0 = 0)}, outer [(k, iteration, penalty)]."""
    it = cols["iteration"]
    J = cols["J"]
    data = dict(iteration=it, J=J, J_rel=J / J[0], gradient_norm=cols["gradient_norm"],
                max_violation=cols["max_violation"], constraints={}, outer=list(outer))
    fig, axes = common.new_figure(args, 3, 1, sharex=True)
    ax = axes[0]
    ax.plot(it, J, "o-", color="C0", ms=3, label="J")
    ax.set_ylabel(f"J = {objective}" if objective else "J", color="C0", fontsize=8 if objective else None)
    ax2 = ax.twinx()
    ax2.plot(it, data["J_rel"], "s--", color="C1", ms=3, label="J / J$_0$")
    ax2.set_ylabel("J / J$_0$", color="C1")
    axes[1].semilogy(it, np.maximum(data["gradient_norm"], 1e-300), "o-", color="C2", ms=3)
    axes[1].set_ylabel("|g| (TAO, of J/|J$_0$| in p/scale)", fontsize=8)
    ax = axes[2]
    if rows:
        for i, r in enumerate(rows):
            q = cols[r]
            rel = q / q[0] - 1 if q[0] != 0 else q - q[0]
            data["constraints"][r] = rel
            ax.plot(it, rel, "o-", ms=3, color=f"C{(i + 3) % 10}", label=r)
        ax.set_ylabel("q / q$_0$ − 1", fontsize=8)
        ax.legend(fontsize=7, loc="upper left")
        ax3 = ax.twinx()
        ax3.semilogy(it, np.maximum(data["max_violation"], 1e-16), "k:", marker="x", ms=4, label="max violation")
        ax3.set_ylabel("max violation (relative)", fontsize=8)
        ax3.legend(fontsize=7, loc="upper right")
    else:
        ax.text(0.5, 0.5, "no constraint rows", transform=ax.transAxes, ha="center", va="center")
        ax.set_yticks([])
    axes[2].set_xlabel("iteration" + (" (dotted: the end of an outer iteration of the augmented Lagrangian)"
                                      if outer else ""), fontsize=8 if outer else None)
    for a in axes:
        a.grid(alpha=0.3)
        for k, i, mu in outer:
            a.axvline(i, color="0.4", ls=":", lw=1)
    for k, i, mu in outer:
        axes[0].annotate(f"outer {k}, μ = {mu:g}", (i, 1.0), xycoords=("data", "axes fraction"),
                         xytext=(-3, -10), textcoords="offset points", ha="right", fontsize=7, color="0.3")
    change = 100 * (J[-1] - J[0]) / abs(J[0]) if J[0] else float("nan")  # a fall is negative, also for J0 < 0
    axes[0].set_title(f"{title}: J {J[0]:.6g} → {J[-1]:.6g} ({change:+.2f} %), "
                      f"{int(it[-1])} iterations", fontsize=9)
    fig.tight_layout()
    return fig, data


def iter_files(run_dir):
    files = glob.glob(os.path.join(run_dir, "optimization", "iter_*.h5"))
    out = {}
    for f in files:
        m = re.search(r"iter_(\d+)\.h5$", f)
        if m:
            out[int(m.group(1))] = f
    return dict(sorted(out.items()))


def pick_iterations(run_dir, text):
    files = iter_files(run_dir)
    if not files:
        raise PostprocError(f"{run_dir}/optimization: no iter_NNNN.h5 files")
    have = list(files)
    want = []
    for w in parse_list(text):
        if w == "first":
            n = have[0]
        elif w == "last":
            n = have[-1]
        else:
            try:
                n = int(w)
            except ValueError:
                raise PostprocError(f"--iterations: '{w}' is not an iteration number, 'first' or 'last'")
        if n not in files:
            raise PostprocError(f"no optimization/iter_{n:04d}.h5 (iterations written: "
                                f"{', '.join(str(h) for h in have)})")
        if n not in want:
            want.append(n)
    if not want:
        raise PostprocError("--iterations: empty")
    return [(n, files[n]) for n in want]


def read_chi(path):
    """(x, y, chi) of an iter file: cell centres; 3D: the middle z plane."""
    with common.FieldFile(path) as ff:
        chi = ff.array("chi")
        x, y = ff.coords("chi")[:2]
    if chi.ndim == 3:
        chi = chi[chi.shape[0] // 2]
    return x, y, chi


def outlines_figure(args, picked, title):
    """Returns (fig, data): data[iteration] = list of (k, 2) arrays, the outlines drawn (the
    design's surface phi = 0, slices.body_outlines; chi = 0.5 in files without phi)."""
    fig, ax = common.new_figure(args)
    data = {}
    box = None
    srcs = set()
    for k, (n, path) in enumerate(picked):
        x, y, chi = read_chi(path)
        with common.FieldFile(path) as ff:
            segs, src = body_outlines(ff)
        srcs.add(src)
        common.outline(ax, segs, color=f"C{k % 10}", linewidth=1.5)
        data[n] = segs
        ax.plot([], [], color=f"C{k % 10}", label=f"iteration {n}" + ("" if segs else " (no outline)"))
        ys, xs = np.nonzero(chi > 0.05)
        if len(xs) and len(xs) < 0.5 * chi.size:
            b = (x[xs.min()], x[xs.max()], y[ys.min()], y[ys.max()])
            box = b if box is None else (min(box[0], b[0]), max(box[1], b[1]), min(box[2], b[2]), max(box[3], b[3]))
    if box is not None:
        pad = 4 * (x[1] - x[0])
        ax.set_xlim(box[0] - pad, box[1] + pad)
        ax.set_ylim(box[2] - pad, box[3] + pad)
    ax.set_aspect("equal")
    ax.set_xlabel("x (flowgrad length units)")
    ax.set_ylabel("y (flowgrad length units)")
    ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    ax.set_title(f"{title}: body outline" + (" (χ = 0.5)" if srcs == {"chi"} else " (φ = 0)"), fontsize=9)
    fig.tight_layout()
    return fig, data


def run(args):
    cols = read_optimization(args.run_dir)
    picked = pick_iterations(args.run_dir, args.iterations)  # bad input before any picture
    common.formats(args)
    title = common.case_name(args.run_dir)
    rows = constraint_rows(args.run_dir, cols)
    objective = objective_label(load_case(args.run_dir))
    outer = outer_iterations(args.run_dir)
    fig, data = history_figure(args, cols, rows, title, objective, outer)
    common.save(fig, args, args.run_dir, "optimization_history")
    fig, _ = outlines_figure(args, picked, title)
    common.save(fig, args, args.run_dir, "optimization_outlines")
    J = data["J"]
    print(f"iterations {int(data['iteration'][-1])}: J {J[0]:.10g} -> {J[-1]:.10g} (J/J0 {data['J_rel'][-1]:.6g}), "
          f"|g| {data['gradient_norm'][0]:.3g} -> {data['gradient_norm'][-1]:.3g}, "
          f"max violation {data['max_violation'][-1]:.3g}")
    if objective:
        print(f"  J = {objective}")
    for k, i, mu in outer:
        print(f"  outer iteration {k} of the augmented Lagrangian ended at iteration {i} (penalty {mu:g})")
    for r in rows:
        print(f"  constraint {r}: {cols[r][0]:.8g} -> {cols[r][-1]:.8g}")
    return 0
