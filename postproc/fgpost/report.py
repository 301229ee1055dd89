"""postproc report RUN_DIR: one self-contained HTML page with the plots and the key numbers.

The kind of directory is told by what it holds:
  campaign       campaign.json (jobs/campaign): the summary table (summary.csv, else gathered)
  optimization   optimization.csv: how it ended (optimization/outcome.txt: converged or stopped
                 and why, each constraint's final status; a warning at the top when it did not
                 converge or a constraint is violated), J0, J, J/J0, gradient norm, constraints,
                 iterations, evaluations, seconds, the design (optimization/result.csv); the last
                 iteration's gradient fields (postproc sensitivity)
  adjoint        gradient.csv or gradient.h5: J, the objective terms, the gradient table
  run            history.csv (and fields/): steps, time, wall time, the bodies' mean Cd, Cl
The plots come from the other subcommands (postproc SUB RUN_DIR --out <report>/img --format
png), each run in a subprocess; one that is not installed or fails leaves a visible note on the
page, and the page is written all the same (for an optimization without `postproc
optimization`, plot_optimization.py is the fallback; for a campaign, its summary.png).
The page: <out>/index.html (default RUN_DIR/report/), images as img/NAME.png (relative paths),
inline CSS, no scripts, no external resources. Written atomically.
Exit 0 when the page holds numbers or plots, 1 when nothing could be produced, 2 on bad input.
"""
import datetime
import html
import json
import math
import os
import shlex
import shutil
import struct
import subprocess
import sys
import time

from .common import PostprocError, case_name, make_dir, read_csv

HERE = os.path.dirname(os.path.abspath(__file__))
POSTPROC_DIR = os.path.dirname(HERE)
POSTPROC = os.path.join(POSTPROC_DIR, "postproc")

SUBCOMMAND_TIMEOUT = 600  # seconds per plotting subcommand

# plotting subcommands per kind: (subcommand, the file in the run directory it needs)
PLOTS = {
    "optimization": [("optimization", "optimization.csv"), ("sensitivity", "optimization")],
    "adjoint": [("sensitivity", "gradient.h5"), ("control", "gradient_time.csv")],
    "run": [("history", "history.csv"), ("fields", "fields")],
    "campaign": [("campaign", "campaign.json")],
}

CSS = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.5em; }
p.meta { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }
td.num { text-align: right; font-family: monospace; }
th { background: #f0f0f0; }
p.note { background: #fff4d6; border-left: 4px solid #e0a800; padding: 0.4em 0.8em; }
p.warn { background: #fde2e2; border-left: 4px solid #c62828; padding: 0.4em 0.8em; font-weight: bold; }
p.ok { background: #e3f4e3; border-left: 4px solid #2e7d32; padding: 0.4em 0.8em; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }
figcaption { color: #555; font-size: 0.9em; }
code { background: #f4f4f4; padding: 0 0.2em; }
"""


def add_parser(sub):
    p = sub.add_parser("report", help="one HTML page per run directory: the plots and the key numbers",
                       description=__doc__.split("\n")[0], epilog="\n".join(__doc__.split("\n")[1:]),
                       formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    p.add_argument("run_dir", help="a flowgrad run, adjoint or optimize directory, or a campaign directory")
    p.add_argument("--out", help="directory of the page (default RUN_DIR/report); images go to OUT/img")
    p.add_argument("--title", help="the page's title (default: the case's name)")
    return p


# --- helpers ---------------------------------------------------------------------------------
def esc(s):
    return html.escape(str(s), quote=True)


def fnum(v):
    """A number as shown on the page: integers as they are, floats with 8 significant digits."""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return f"{v:.8g}"
    return str(v)


def _isnum(v):
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return True
    try:
        float(v)
        return True
    except (TypeError, ValueError):
        return False


def png_size(path):
    """(width, height) from a PNG's IHDR chunk, or None."""
    try:
        with open(path, "rb") as f:
            head = f.read(24)
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def campaign_module():
    if POSTPROC_DIR not in sys.path:
        sys.path.insert(0, POSTPROC_DIR)
    import campaign  # postproc/campaign.py: summarize(), job_status()
    return campaign


def detect_kind(d):
    if os.path.exists(os.path.join(d, "campaign.json")):
        return "campaign"
    if os.path.exists(os.path.join(d, "optimization.csv")):
        return "optimization"
    if os.path.exists(os.path.join(d, "gradient.csv")) or os.path.exists(os.path.join(d, "gradient.h5")):
        return "adjoint"
    if os.path.exists(os.path.join(d, "history.csv")):
        return "run"
    return None


class Table:
    def __init__(self, title, header, rows, caption=""):
        self.title, self.header, self.rows, self.caption = title, header, rows, caption

    def html(self):
        out = [f"<h3>{esc(self.title)}</h3>" if self.title else ""]
        out.append("<table>")
        if self.caption:
            out.append(f"<caption>{esc(self.caption)}</caption>")
        out.append("<thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in self.header) + "</tr></thead>")
        out.append("<tbody>")
        for r in self.rows:
            cells = []
            for v in r:
                cls = ' class="num"' if _isnum(v) and not isinstance(v, str) else ""
                cells.append(f"<td{cls}>{esc(fnum(v))}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
        return "\n".join(x for x in out if x)


# --- key numbers by kind ---------------------------------------------------------------------
def read_outcome(d):
    """optimization/outcome.txt (flowgrad optimize's last words): (first line, status, constraints
    status, constraint lines), or None when the run did not reach its end."""
    try:
        with open(os.path.join(d, "optimization", "outcome.txt"), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    first = lines[0].split(": ", 1)[1] if lines and ": " in lines[0] else (lines[0] if lines else "")
    status = next((ln.split(": ", 1)[1] for ln in lines if ln.startswith("status: ")), "unknown")
    cons = next((ln.split(": ", 1)[1] for ln in lines if ln.startswith("constraints: ")), "unknown")
    rows = [ln.strip()[len("constraint "):] for ln in lines if ln.strip().startswith("constraint ")]
    return first, status, cons, rows


def outcome_banner(d):
    """(css class, text) of the line at the top of an optimization's page."""
    o = read_outcome(d)
    if o is None:
        return "warn", ("Warning: no optimization/outcome.txt: the optimization did not reach its end "
                        "(stopped by a signal or an error, or still running); the numbers are its last iteration's")
    first, status, cons, rows = o
    bad = [r for r in rows if r.endswith("(VIOLATED)")]
    if status == "converged" and not bad:
        held = "every constraint holds" if rows else "no constraints"
        return "ok", f"Converged; {held}. flowgrad optimize: {first}"
    what = [] if status == "converged" else ["did not converge"]
    if bad:
        what.append("constraint VIOLATED: " + "; ".join(bad))
    return "warn", "Warning: the optimization " + " and ".join(what) + f". flowgrad optimize: {first}"


def numbers_optimization(d, notes):
    cm = campaign_module()
    s = cm.summarize_optimize(d)
    rows = list(read_csv(os.path.join(d, "optimization.csv")))
    J0, J = s["J0"], s["J"]
    key = [("objective J0 (start)", J0), ("objective J (end)", J),
           ("J / J0", J / J0 if J0 else float("nan")),
           ("iterations", s["iterations"]), ("evaluations", s["evaluations"])]
    if "gradient_norm" in s:
        key.append(("gradient norm (end)", s["gradient_norm"]))
    if "max_violation" in s:
        key.append(("largest constraint violation (end, relative)", s["max_violation"]))
    if "seconds" in s:
        key.append(("wall time of the evaluations (s)", s["seconds"]))
    tables = [Table("", ["quantity", "value"], key)]
    o = read_outcome(d)
    if o is not None:
        first, status, cons, rows_ = o
        tables.append(Table("How it ended", ["", "flowgrad optimize said"],
                            [("flowgrad optimize", first), ("status", status), ("constraints", cons)]
                            + [("constraint", r) for r in rows_]))

    # constraint rows: optimization.h5 names them; else the optimization.csv columns that are
    # neither the fixed ones nor design entries
    design = []
    res = os.path.join(d, "optimization", "result.csv")
    if os.path.exists(res):
        design = read_csv(res)
    cons = []
    h5 = os.path.join(d, "optimization.h5")
    try:
        import h5py
        if os.path.exists(h5):
            with h5py.File(h5, "r") as f:
                if "constraints_names" in f and "constraints" in f:
                    names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["constraints_names"][()]]
                    c = f["constraints"][()]
                    for k, n in enumerate(names):
                        cons.append((n, float(c[0, k]), float(c[-1, k])))
    except (ImportError, OSError, KeyError, IndexError) as e:
        notes.append(f"constraints from optimization.h5 not read ({e}); taken from optimization.csv")
        cons = []
    if not cons and rows:
        fixed = {"iteration", "evaluations", "J", "J_rel", "gradient_norm", "step", "max_violation", "seconds"}
        dnames = {r["name"] for r in design}
        for k in rows[0]:
            if k not in fixed and k not in dnames:
                try:
                    cons.append((k, float(rows[0][k]), float(rows[-1][k])))
                except ValueError:
                    pass
    if cons:
        tables.append(Table("Constraints", ["constraint", "start", "final", "final / start"],
                            [(n, a, b, b / a if a else float("nan")) for n, a, b in cons]))
    if design:
        tables.append(Table("Design", ["entry", "initial", "final", "lower", "upper"],
                            [(r["name"], *(float(r[k]) if _isnum(r.get(k)) else r.get(k, "")
                                           for k in ("initial", "final", "lower", "upper"))) for r in design]))
    return tables


def numbers_adjoint(d, notes):
    tables = []
    csvp = os.path.join(d, "gradient.csv")
    if os.path.exists(csvp):
        s = campaign_module().summarize_adjoint(d)
        key = [("objective J", s["J"])]
        key += [(f"objective term {k}", v) for k, v in s.items()
                if k not in ("kind", "main", "J") and not k.startswith("dJ/d")]
        tables.append(Table("", ["quantity", "value"], key))
        rows = read_csv(csvp)
        tables.append(Table("Gradient", ["design entry", "value", "dJ/d(entry)"],
                            [(r["name"], float(r["value"]), float(r["gradient"])) for r in rows]))
        return tables
    from .common import FieldFile
    with FieldFile(os.path.join(d, "gradient.h5")) as ff:
        names = ff.dataset("design_names") if "design_names" in ff._h else []
        grad = ff.dataset("gradient") if "gradient" in ff._h else []
        vals = ff.dataset("design") if "design" in ff._h else []
        if "objective" in ff._h:
            obj = ff.dataset("objective")
            onames = ff.dataset("objective_names") if "objective_names" in ff._h else []
            key = [(f"objective term {n}", float(v)) for n, v in zip(onames, obj)]
            tables.append(Table("", ["quantity", "value"], key))
    if len(names):
        tables.append(Table("Gradient", ["design entry", "value", "dJ/d(entry)"],
                            [(n, float(v), float(g)) for n, v, g in zip(names, vals, grad)]))
    notes.append("no gradient.csv: the numbers are read from gradient.h5")
    return tables


def numbers_run(d, notes):
    s = campaign_module().summarize_run(d, 0.5)
    key = [("steps", s["steps"]), ("time", s["time"]), ("wall time (s)", s["wall_time"]),
           ("kinetic energy (end)", s["kinetic_energy"])]
    tables = [Table("", ["quantity", "value"], key)]
    bodies = sorted({k[:-8] for k in s if k.endswith("_cd_mean")})
    if bodies:
        rows = []
        for b in bodies:
            rows.append((b, s[b + "_cd_mean"], s[b + "_cl_mean"], s[b + "_cl_amp"], s.get(b + "_st", "")))
        tables.append(Table("Forces (over the second half of the run)",
                            ["body", "mean Cd", "mean Cl", "Cl amplitude", "Strouhal (end)"], rows))
    return tables


def numbers_campaign(d, notes):
    with open(os.path.join(d, "campaign.json")) as f:
        meta = json.load(f)
    info = [("campaign", meta.get("name", "")), ("case", meta.get("case", "")), ("job", meta.get("job", "")),
            ("swept keys", ", ".join(meta.get("keys", []))), ("points", len(meta.get("points", [])))]
    tables = [Table("Campaign", ["quantity", "value"], info)]
    summ = os.path.join(d, "summary.csv")
    if os.path.exists(summ):
        rows = read_csv(summ)
        header = list(rows[0]) if rows else []
        body = [[float(r[h]) if _isnum(r[h]) and h not in ("point", "rc") else r[h] for h in header] for r in rows]
        tables.append(Table("Summary (summary.csv)", header, body))
    else:
        cm = campaign_module()
        keys = meta.get("keys", [])
        header, body, cols = ["point", *keys, "status"], [], []
        sums = []
        for p in meta.get("points", []):
            state, _ = cm.job_status(p["dir"])
            try:
                s = cm.summarize(p["dir"])
            except (OSError, ValueError, KeyError):
                s = {}
            s = {k: v for k, v in s.items() if k not in ("kind", "main")}
            cols += [k for k in s if k not in cols]
            sums.append((p, state, s))
        for p, state, s in sums:
            body.append([p["name"], *(p["set"].get(k, "") for k in keys), state, *(s.get(c, "") for c in cols)])
        tables.append(Table("Summary (gathered: no summary.csv)", header + cols, body))
        notes.append("no summary.csv in the campaign directory (campaign.py gather writes it): "
                     "the table is gathered from the points")
    return tables


NUMBERS = {"optimization": numbers_optimization, "adjoint": numbers_adjoint,
           "run": numbers_run, "campaign": numbers_campaign}


# --- plots -----------------------------------------------------------------------------------
def run_plot(sub, d, img, notes, commands):
    """Run `postproc SUB d --out img --format png`; returns the PNGs it wrote."""
    if not os.path.exists(os.path.join(HERE, sub + ".py")):
        notes.append(f"postproc {sub} is not available in this installation: its plots are left out")
        return []
    cmd = [sys.executable, POSTPROC, sub, d, "--out", img, "--format", "png"]
    commands.append(cmd)
    env = dict(os.environ, MPLBACKEND="Agg")
    before = {f: os.path.getmtime(os.path.join(img, f)) for f in os.listdir(img)}
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=SUBCOMMAND_TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        notes.append(f"postproc {sub} took longer than {SUBCOMMAND_TIMEOUT} s: its plots are left out")
        return []
    except OSError as e:
        notes.append(f"postproc {sub} could not be started ({e}): its plots are left out")
        return []
    pngs = []
    for line in r.stdout.splitlines():
        if line.startswith("wrote ") and line.endswith(".png"):
            p = line[6:].strip()
            if not os.path.isabs(p):
                p = os.path.abspath(p)
            if os.path.exists(p) and os.path.dirname(os.path.realpath(p)) == os.path.realpath(img):
                pngs.append(p)
    if not pngs:  # no "wrote" lines: what it left in img/ since it started
        pngs = sorted(os.path.join(img, f) for f in os.listdir(img)
                      if f.endswith(".png") and before.get(f) != os.path.getmtime(os.path.join(img, f)))
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or ["(no message)"])[-1]
        notes.append(f"postproc {sub} failed (exit {r.returncode}): {last}"
                     + (f"; {len(pngs)} of its plots are shown" if pngs else ""))
    return pngs


def fallback_plots(kind, d, img, notes, commands):
    out = []
    if kind == "optimization":
        script = os.path.join(POSTPROC_DIR, "plot_optimization.py")
        cmd = [sys.executable, script, d, "--format", "png"]
        commands.append(cmd)
        t0 = time.time()
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=SUBCOMMAND_TIMEOUT,
                               env=dict(os.environ, MPLBACKEND="Agg"))
        except (subprocess.TimeoutExpired, OSError) as e:
            notes.append(f"plot_optimization.py failed ({e})")
            return out
        if r.returncode != 0:
            last = (r.stderr.strip().splitlines() or ["(no message)"])[-1]
            notes.append(f"plot_optimization.py failed (exit {r.returncode}): {last}")
        for stem in ("history", "shape"):
            src = os.path.join(d, "optimization", stem + ".png")
            if os.path.exists(src) and os.path.getmtime(src) >= t0 - 1:
                dst = os.path.join(img, f"optimization_{stem}.png")
                shutil.copyfile(src, dst)
                out.append(dst)
        if out:
            notes.append("the optimization plots come from plot_optimization.py (the fallback)")
    elif kind == "campaign":
        src = os.path.join(d, "summary.png")
        if os.path.exists(src):
            dst = os.path.join(img, "campaign_summary.png")
            shutil.copyfile(src, dst)
            out.append(dst)
            notes.append("the campaign plot is the campaign's summary.png (campaign.py gather)")
    return out


# --- the page --------------------------------------------------------------------------------
def render(title, kind, d, tables, figures, notes, commands, banner=None):
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
    o = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
         '<meta name="viewport" content="width=device-width, initial-scale=1">',
         f"<title>{esc(title)}: flowgrad {esc(kind)} report</title>",
         f"<style>{CSS}</style>", "</head>", "<body>",
         f"<h1>{esc(title)}</h1>",
         f'<p class="meta">flowgrad {esc(kind)} directory <code>{esc(os.path.abspath(d))}</code>; '
         f"report written {esc(now)}</p>"]
    if banner:
        o.append(f'<p class="{banner[0]}" id="outcome">{esc(banner[1])}</p>')
    for n in notes:
        o.append(f'<p class="note">Note: {esc(n)}</p>')
    o.append('<h2 id="numbers">Key numbers</h2>')
    if tables:
        o += [t.html() for t in tables]
    else:
        o.append('<p class="note">No key numbers could be read.</p>')
    o.append('<h2 id="plots">Plots</h2>')
    if not figures:
        o.append('<p class="note">No plots could be made.</p>')
    for rel, (w, h), caption in figures:
        o.append("<figure>")
        o.append(f'<img src="{esc(rel)}" alt="{esc(caption)}" width="{w}" height="{h}">')
        o.append(f"<figcaption>{esc(caption)}</figcaption>")
        o.append("</figure>")
    if commands:
        o.append('<h2 id="commands">Commands</h2>')
        o.append("<ul>")
        for c in commands:
            o.append(f"<li><code>{esc(shlex.join(c))}</code></li>")
        o.append("</ul>")
    o += ["</body>", "</html>", ""]
    return "\n".join(o)


def last_iteration_has_shape(d):
    """Whether the last optimization/iter_NNNN.h5 holds the shape sensitivity and dJ/dchi."""
    from .sensitivity import iteration_files
    its = iteration_files(d)
    if not its:
        return False
    try:
        import h5py
        with h5py.File(its[max(its)], "r") as f:
            return "shape_sensitivity" in f and "dJ_dchi_x" in f
    except (ImportError, OSError):
        return False


def has_control(d):
    """Whether gradient.csv lists a control (a rotation rate, jet amplitude or actuator force)."""
    from .control import CONTROL
    try:
        return any(CONTROL.match(r.get("name", "")) for r in read_csv(os.path.join(d, "gradient.csv")))
    except PostprocError:
        return False


def run(args):
    d = args.run_dir
    if not os.path.isdir(d):
        raise PostprocError(f"{d}: no such directory")
    kind = detect_kind(d)
    if kind is None:
        raise PostprocError(f"{d}: not a flowgrad output directory (no optimization.csv, gradient.csv, "
                            "gradient.h5, history.csv or campaign.json)")
    out = make_dir(os.path.abspath(args.out or os.path.join(d, "report")))
    # this report's pictures go to a new directory, swapped in with the page at the end: an earlier
    # page stays whole until then, and nothing else in img/ is touched before the swap
    final_img = os.path.join(out, "img")
    img = os.path.join(out, f"img.new.{os.getpid()}")
    shutil.rmtree(img, ignore_errors=True)
    os.makedirs(img)

    notes, commands = [], []
    # key numbers
    try:
        tables = NUMBERS[kind](d, notes)
    except (OSError, ValueError, KeyError, IndexError, PostprocError, json.JSONDecodeError) as e:
        tables = []
        notes.append(f"the key numbers could not be read: {e}")
    if kind == "campaign":
        try:
            with open(os.path.join(d, "campaign.json")) as f:
                meta = json.load(f)
            default_title = f"{meta.get('case', '')}: campaign {meta.get('name', '')}"
        except (OSError, ValueError):
            default_title = os.path.basename(os.path.abspath(d))
    else:
        try:
            default_title = case_name(d)
        except PostprocError:
            default_title = os.path.basename(os.path.abspath(d))
    title = args.title or default_title

    # plots
    pngs = []
    for sub, needs in PLOTS[kind]:
        if sub == "control" and not has_control(d):
            continue  # every unsteady adjoint writes gradient_time.csv; a control is a design entry
        if sub == "sensitivity" and kind == "optimization" and not last_iteration_has_shape(d):
            continue  # a density (topology) design: no shape sensitivity to draw
        if os.path.exists(os.path.join(d, needs)):
            pngs += run_plot(sub, d, img, notes, commands)
    if not pngs:
        pngs += fallback_plots(kind, d, img, notes, commands)
    figures, seen = [], set()
    for p in pngs:
        name = os.path.basename(p)
        size = png_size(p)
        if name in seen or size is None:
            continue
        seen.add(name)
        caption = os.path.splitext(name)[0].replace("_", " ")
        figures.append(("img/" + name, size, caption))

    # the commands as they would be typed again: the pictures' final directory, not this run's
    # temporary one
    commands = [[final_img if a == img else a for a in c] for c in commands]
    banner = outcome_banner(d) if kind == "optimization" else None
    if banner:
        print(f"report: {banner[1]}")
    page = render(title, kind, d, tables, figures, notes, commands, banner)
    path = os.path.join(out, "index.html")
    tmp = path + f".tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    old = final_img + f".old.{os.getpid()}"
    if os.path.isdir(final_img):
        os.rename(final_img, old)
    os.rename(img, final_img)
    os.replace(tmp, path)
    shutil.rmtree(old, ignore_errors=True)
    print(f"wrote {path}")
    for n in notes:
        print(f"postproc report: note: {n}", file=sys.stderr)
    print(f"report: {kind} directory, {len(tables)} tables, {len(figures)} plots")
    if not tables and not figures:
        print("postproc report: nothing could be produced (see the notes)", file=sys.stderr)
        return 1
    return 0
