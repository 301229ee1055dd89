"""postproc campaign CAMPAIGN_DIR [--metric NAME] [--x KEY] [--regenerate]: a campaign's summary
table (CAMPAIGN_DIR/summary.csv, made by postproc/campaign.py's gather logic when missing or with
--regenerate) printed and drawn, and one metric across the sweep.

Pictures (in --out, default CAMPAIGN_DIR/plots):
  campaign_table.<fmt>    the summary table (point, swept keys, status, the numbers)
  campaign_metric.<fmt>   the metric (default: the main number, J for adjoint/optimize campaigns,
                          the first body's Cd mean for runs with bodies, else the final kinetic
                          energy) against the swept key --x (default the first), points that
                          finished only; one line per value of the other swept keys
"""
import importlib.util
import json
import math
import os

import numpy as np

from . import common
from .common import PostprocError
from .plotdata import require_dir

_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "campaign.py")


def campaign_script():
    """postproc/campaign.py as a module (summary, gather, ...)."""
    spec = importlib.util.spec_from_file_location("fg_campaign_script", _SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def add_parser(sub):
    p = sub.add_parser("campaign", help="a campaign's summary table and a metric across the sweep",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("campaign_dir")
    p.add_argument("--metric", help="a column of summary.csv (default: the main number)")
    p.add_argument("--x", dest="x_key", help="the swept key on the x axis (default: the first)")
    p.add_argument("--regenerate", action="store_true", help="rewrite summary.csv from the points first")
    p.add_argument("--from-fraction", type=float, default=0.5,
                   help="runs: the averaging window, the last fraction of the run (default 0.5)")
    common.add_figure_args(p)


def read_meta(cdir):
    require_dir(cdir, "campaign directory")
    path = os.path.join(cdir, "campaign.json")
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise PostprocError(f"{path}: no such file (not a campaign directory: jobs/campaign makes it)")
    except json.JSONDecodeError as e:
        raise PostprocError(f"{path}: not valid JSON ({e})")


def load_summary(cdir, regenerate=False, from_fraction=0.5):
    """(header, rows) of summary.csv, made first by campaign.py's gather when missing."""
    path = os.path.join(cdir, "summary.csv")
    if regenerate or not os.path.exists(path):
        print(f"postproc campaign: {'rewriting' if regenerate else 'no'} {path}: gathering the points")
        mod = campaign_script()
        try:
            mod.gather(cdir, from_fraction, False)  # returns 1 when a point did not finish: shown below
        except SystemExit as e:
            raise PostprocError(str(e))
    rows = common.read_csv(path)
    if not rows:
        raise PostprocError(f"{path}: no data rows")
    return list(rows[0].keys()), rows


def main_metric(header):
    if "J" in header:
        return "J"
    cds = [h for h in header if h.endswith("_cd_mean")]
    if cds:
        return cds[0]
    if "kinetic_energy" in header:
        return "kinetic_energy"
    raise PostprocError("summary.csv has no J, <body>_cd_mean or kinetic_energy column: use --metric")


def _num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return float("nan")


def table_figure(args, header, rows, title):
    """The table drawn. Returns (fig, cells): the strings shown."""
    fig, ax = common.new_figure(args)
    ax.axis("off")
    cells = [[(f"{_num(r[h]):.6g}" if not math.isnan(_num(r[h])) and h not in ("point", "rc") else r[h])
              for h in header] for r in rows]
    tab = ax.table(cellText=cells, colLabels=header, loc="center", cellLoc="center")
    tab.auto_set_font_size(False)
    tab.set_fontsize(7 if len(header) < 10 else 5)
    tab.auto_set_column_width(list(range(len(header))))
    # the header shaded, each point's status cell green when done, red otherwise
    status_col = header.index("status") if "status" in header else None
    for (i, j), cell in tab.get_celld().items():
        if i == 0:
            cell.set_facecolor("#d9e6f2")
        elif j == status_col:
            cell.set_facecolor("#c8ecc8" if rows[i - 1].get("status") == "done" else "#f4c7c3")
    ax.set_title(f"{title}: summary.csv", fontsize=9)
    fig.tight_layout()
    return fig, cells


def metric_figure(args, rows, keys, x_key, metric, title):
    """metric against x_key (numeric: sorted lines, one per value of the other keys; else the
    points in order). Returns (fig, data): data[label] = (x, y, points)."""
    pts = [r for r in rows if r.get("status") == "done" and not math.isnan(_num(r.get(metric)))]
    if not pts:
        raise PostprocError(f"summary.csv: no finished point with a value of {metric}")
    fig, ax = common.new_figure(args)
    data = {}
    numeric = all(not math.isnan(_num(r[x_key])) for r in pts)
    if numeric:
        groups = {}
        for r in pts:
            label = ", ".join(f"{k}={r[k]}" for k in keys if k != x_key)
            groups.setdefault(label, []).append((_num(r[x_key]), _num(r[metric]), r["point"]))
        for i, (label, xy) in enumerate(groups.items()):
            xy.sort()
            x, y = np.array([a for a, _, _ in xy]), np.array([b for _, b, _ in xy])
            data[label] = (x, y, [p for _, _, p in xy])
            ax.plot(x, y, "o-", color=f"C{i % 10}", label=label or None)
            for a, b, p in xy:
                ax.annotate(f"{b:.4g}", (a, b), textcoords="offset points", xytext=(4, 4), fontsize=7)
        if len(groups) > 1:
            ax.legend(fontsize=8)
        positive = all(v > 0 for v, _, _ in sum(groups.values(), []))
        xs = sorted({v for v, _, _ in sum(groups.values(), [])})
        if positive and len(xs) > 2 and xs[-1] / xs[0] >= 8:
            ax.set_xscale("log")
        ax.set_xlabel(x_key)
    else:
        x = np.arange(len(pts), dtype=float)
        y = np.array([_num(r[metric]) for r in pts])
        data[""] = (x, y, [r["point"] for r in pts])
        ax.plot(x, y, "o")
        ax.set_xticks(x, [f"{r['point']}\n{r[x_key]}" for r in pts], fontsize=7)
        ax.set_xlabel(f"point ({x_key})")
    ax.set_ylabel(metric)
    ax.grid(alpha=0.3)
    ax.set_title(f"{title}: {metric} across the sweep ({len(pts)} of {len(rows)} points finished)", fontsize=9)
    fig.tight_layout()
    return fig, data


def run(args):
    cdir = args.campaign_dir
    meta = read_meta(cdir)
    keys = list(meta.get("keys", []))
    if not 0.0 < args.from_fraction <= 1.0:
        raise PostprocError("--from-fraction must be in (0, 1]")
    common.formats(args)
    header, rows = load_summary(cdir, args.regenerate, args.from_fraction)
    metric = args.metric or main_metric(header)
    if metric not in header:
        raise PostprocError(f"--metric {metric}: not a column of summary.csv (columns: {', '.join(header)})")
    x_key = args.x_key or (keys[0] if keys else "point")
    if x_key not in header:
        raise PostprocError(f"--x {x_key}: not a column of summary.csv (swept keys: {', '.join(keys) or 'none'})")
    title = f"{meta.get('case', '?')}: campaign {meta.get('name', os.path.basename(os.path.abspath(cdir)))} ({meta.get('job', '?')})"
    widths = [max(len(h), *(len(r[h]) for r in rows)) for h in header]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for r in rows:
        print("  ".join(r[h].ljust(w) for h, w in zip(header, widths)))
    fig, _ = table_figure(args, header, rows, title)
    common.save(fig, args, cdir, "campaign_table")
    fig, data = metric_figure(args, rows, keys, x_key, metric, title)
    common.save(fig, args, cdir, "campaign_metric")
    for label, (x, y, pts) in data.items():
        print(f"{metric} against {x_key}{' (' + label + ')' if label else ''}: "
              + ", ".join(f"{p}: {b:.6g}" for p, b in zip(pts, y)))
    return 0
