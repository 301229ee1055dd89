#!/usr/bin/env python3
"""Key numbers of flowgrad run directories, and a campaign's summary table and plot.

  campaign.py summary RUN_DIR [--from-fraction F]
      print the key numbers of one run directory (a `flowgrad run`, `adjoint` or `optimize`
      output directory) as `name = value` lines.
  campaign.py gather CAMPAIGN_DIR [--from-fraction F] [--no-plot]
      read CAMPAIGN_DIR/campaign.json (written by jobs/campaign), take each point's status
      (<point dir>/job.status) and key numbers, write CAMPAIGN_DIR/summary.csv (one row per point:
      point, the swept keys, status, exit code, the numbers) and summary.png (the main number
      against the first swept key, points that finished only), print the table. Exit 1 when a
      point did not finish.

Key numbers, by what the directory holds:
  optimize (optimization.csv): iterations, evaluations, J0, J, J_rel, gradient_norm,
      max_violation, seconds, and each design entry's final value (optimization/result.csv).
  adjoint (gradient.csv): J, each objective term, and dJ/d<p> per design entry.
  run (history.csv): steps, time, wall_time, kinetic_energy (last row), and per body
      <b>_cd_mean, <b>_cl_mean, <b>_cl_amp (half the peak-to-peak lift coefficient) over the
      last part of the run (t >= (1 - F) t_end, F = --from-fraction, default 0.5), and <b>_st
      (the Strouhal number at the end).
The main number (plotted): J for optimize and adjoint, the first body's Cd mean for a run with
bodies, else the final kinetic energy.

Run with /usr/bin/python3 (Debian's numpy and matplotlib).
"""
import argparse
import csv
import json
import math
import os
import sys

MAX_DESIGN_COLUMNS = 32  # more design entries (field blocks) are not tabulated


def read_csv(path):
    """Rows of a CSV file (# comments skipped); a row with missing fields (a file cut short by a
    killed job) is dropped."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(row for row in f if not row.startswith("#")))
    return [r for r in rows if None not in r.values() and None not in r]


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return float("nan")


def summarize_optimize(d):
    rows = read_csv(os.path.join(d, "optimization.csv"))
    if not rows:
        raise ValueError(f"{d}/optimization.csv has no rows")
    first, last = rows[0], rows[-1]
    out = {"kind": "optimize"}
    out["iterations"] = int(num(last["iteration"]))
    out["evaluations"] = int(num(last["evaluations"]))
    out["J0"] = num(first["J"])
    for k in ("J", "J_rel", "gradient_norm", "max_violation", "seconds"):
        if k in last:
            out[k] = num(last[k])
    res = os.path.join(d, "optimization", "result.csv")
    if os.path.exists(res):
        design = read_csv(res)
        if len(design) <= MAX_DESIGN_COLUMNS:
            for r in design:
                out[r["name"]] = num(r["final"])
    out["main"] = "J"
    return out


def summarize_adjoint(d):
    path = os.path.join(d, "gradient.csv")
    out = {"kind": "adjoint"}
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            body = line[1:].strip()
            if "=" in body:
                name, value = body.rsplit("=", 1)
                name = name.strip()
                if name == "J":
                    out["J"] = num(value)
                elif name.startswith("objective "):
                    out[name.split()[1]] = num(value)
    if "J" not in out:
        raise ValueError(f"{path} has no '# J = ...' line")
    rows = read_csv(path)
    if len(rows) <= MAX_DESIGN_COLUMNS:
        for r in rows:
            out["dJ/d" + r["name"]] = num(r["gradient"])
    out["main"] = "J"
    return out


def summarize_run(d, from_fraction):
    rows = read_csv(os.path.join(d, "history.csv"))
    if not rows:
        raise ValueError(f"{d}/history.csv has no rows")
    last = rows[-1]
    out = {"kind": "run", "steps": int(num(last["step"])), "time": num(last["time"]),
           "wall_time": num(last["wall_time"]), "kinetic_energy": num(last["kinetic_energy"])}
    bodies = [k[:-3] for k in rows[0] if k.endswith("_cd") and k[:-3] + "_cl" in rows[0]]
    t_end = out["time"]
    t0 = (1.0 - from_fraction) * t_end
    window = [r for r in rows if num(r["time"]) >= t0] or [last]
    for b in bodies:
        cd = [num(r[b + "_cd"]) for r in window]
        cl = [num(r[b + "_cl"]) for r in window]
        out[b + "_cd_mean"] = sum(cd) / len(cd)
        out[b + "_cl_mean"] = sum(cl) / len(cl)
        out[b + "_cl_amp"] = 0.5 * (max(cl) - min(cl))
        if b + "_st" in last:
            out[b + "_st"] = num(last[b + "_st"])
    out["main"] = bodies[0] + "_cd_mean" if bodies else "kinetic_energy"
    return out


def summarize(d, from_fraction=0.5):
    """Key numbers of a run directory (dict; 'kind' and 'main' name its kind and main number)."""
    if os.path.exists(os.path.join(d, "optimization.csv")):
        return summarize_optimize(d)
    if os.path.exists(os.path.join(d, "gradient.csv")):
        return summarize_adjoint(d)
    if os.path.exists(os.path.join(d, "history.csv")):
        return summarize_run(d, from_fraction)
    raise FileNotFoundError(f"{d}: no optimization.csv, gradient.csv or history.csv")


def job_status(d):
    """(state, rc) from <d>/job.status, written by the job scripts; ('missing', '') without it."""
    try:
        with open(os.path.join(d, "job.status")) as f:
            fields = dict(w.split("=", 1) for w in f.read().split() if "=" in w)
    except FileNotFoundError:
        return "missing", ""
    except OSError as e:
        return f"unreadable ({e.strerror})", ""
    return fields.get("state", "unknown"), fields.get("rc", "")


def fmt(v):
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    return str(v)


def gather(cdir, from_fraction, plot):
    meta_path = os.path.join(cdir, "campaign.json")
    try:
        with open(meta_path) as f:
            meta = json.load(f)
    except FileNotFoundError:
        sys.exit(f"campaign.py: {meta_path} not found: not a campaign directory (jobs/campaign makes it)")
    except json.JSONDecodeError as e:
        sys.exit(f"campaign.py: {meta_path}: not valid JSON: {e}")
    keys = meta["keys"]
    table, columns, main, bad = [], [], None, []
    for p in meta["points"]:
        state, rc = job_status(p["dir"])
        row = {"point": p["name"], **{k: p["set"][k] for k in keys}, "status": state, "rc": rc}
        try:
            s = summarize(p["dir"], from_fraction)
            if s["kind"] == meta["job"]:
                main = main or s["main"]
            elif state == "done":
                raise ValueError(f"{p['dir']} holds a {s['kind']} result, not the {meta['job']} result")
            for k, v in s.items():
                if k in ("kind", "main"):
                    continue
                row[k] = v
                if k not in columns:
                    columns.append(k)
        except (OSError, ValueError, KeyError) as e:
            if state == "done":
                row["status"] = state = "incomplete"
            print(f"campaign.py: point {p['name']}: {e}", file=sys.stderr)
        if state != "done":
            bad.append(p["name"])
        table.append(row)
    header = ["point", *keys, "status", "rc", *columns]
    tmp = os.path.join(cdir, "summary.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for row in table:
            w.writerow([fmt(row.get(h, "")) for h in header])
    os.replace(tmp, os.path.join(cdir, "summary.csv"))

    print(f"campaign {meta['name']} ({meta['job']} of {meta['case']}): {len(table)} points, "
          f"{len(table) - len(bad)} done")
    shown = ["point", *keys, "status", *([main] if main else [])]
    widths = [max(len(h), *(len(fmt(r.get(h, ""))[:14]) for r in table)) for h in shown]
    print("  ".join(h.ljust(n) for h, n in zip(shown, widths)))
    for r in table:
        cells = []
        for h, n in zip(shown, widths):
            v = r.get(h, "")
            cells.append((f"{v:.6g}" if isinstance(v, float) else str(v)).ljust(n))
        print("  ".join(cells))
    print(f"table: {os.path.join(cdir, 'summary.csv')}")
    if plot and main:
        try:
            plot_summary(cdir, meta, table, keys, main)
        except ImportError as e:
            print(f"campaign.py: no plot: {e} (Debian: python3-matplotlib; run with /usr/bin/python3)",
                  file=sys.stderr)
    if bad:
        print(f"campaign.py: {len(bad)} point(s) did not finish: {', '.join(bad)} "
              "(see their job.log and the campaign's logs/)", file=sys.stderr)
        return 1
    return 0


def plot_summary(cdir, meta, table, keys, main):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = [r for r in table if r["status"] == "done" and isinstance(r.get(main), float) and not math.isnan(r[main])]
    if not pts:
        return
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=100)
    x_key = keys[0] if keys else None
    numeric = x_key is not None and all(not math.isnan(num(r[x_key])) for r in pts)
    if numeric:
        groups = {}
        for r in pts:
            label = ", ".join(f"{k}={r[k]}" for k in keys[1:])
            groups.setdefault(label, []).append((num(r[x_key]), r[main]))
        for label, xy in groups.items():
            xy.sort()
            ax.plot([a for a, _ in xy], [b for _, b in xy], "o-", label=label or None)
        ax.set_xlabel(x_key)
        if len(groups) > 1:
            ax.legend(fontsize=8)
    else:
        ax.plot(range(len(pts)), [r[main] for r in pts], "o")
        ax.set_xticks(range(len(pts)), [r["point"] for r in pts], rotation=30, ha="right", fontsize=8)
        ax.set_xlabel("point")
    ax.set_ylabel(main)
    ax.set_title(f"{meta['case']}: {meta['name']} ({meta['job']})")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out = os.path.join(cdir, "summary.png")
    fig.savefig(out + ".tmp.png")
    os.replace(out + ".tmp.png", out)
    plt.close(fig)
    print(f"plot: {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("summary", help="key numbers of one run directory")
    s.add_argument("run_dir")
    s.add_argument("--from-fraction", type=float, default=0.5)
    g = sub.add_parser("gather", help="a campaign's summary.csv and summary.png")
    g.add_argument("campaign_dir")
    g.add_argument("--from-fraction", type=float, default=0.5)
    g.add_argument("--no-plot", action="store_true")
    a = ap.parse_args()
    if not 0.0 < a.from_fraction <= 1.0:
        ap.error("--from-fraction must be in (0, 1]")
    if a.cmd == "summary":
        try:
            s = summarize(a.run_dir, a.from_fraction)
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"campaign.py: {e}")
        state, rc = job_status(a.run_dir)
        print(f"run directory {a.run_dir} ({s['kind']}; job state {state}{' rc ' + rc if rc else ''})")
        for k, v in s.items():
            if k not in ("kind", "main"):
                print(f"  {k} = {fmt(v)}")
        return 0
    return gather(a.campaign_dir, a.from_fraction, not a.no_plot)


if __name__ == "__main__":
    sys.exit(main())
