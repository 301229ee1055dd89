#!/usr/bin/python3
"""Tests of `postproc report`: the page of each kind of directory holds the key numbers read
from the files (formatted as the page formats them: 8 significant digits), is valid self-contained
HTML5 with <img> elements whose files exist; bad input exits 2; a plotting subcommand that fails
leaves a note and the page is written.

  test_report.py POSTPROC optimization RUN_DIR   (copied to a temporary directory first)
  test_report.py POSTPROC adjoint ADJOINT_DIR
  test_report.py POSTPROC run RUN_DIR
  test_report.py POSTPROC campaign CAMPAIGN_DIR
  test_report.py POSTPROC bad                    not a run directory, a missing one: exit 2
  test_report.py POSTPROC failing RUN_DIR        a copy of postproc/ with a failing `history`
                                                 and a working fake `fields`: notes, exit codes
"""
import csv
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_common import check_page, fnum, run_report  # noqa: E402


def read_rows(path):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(x for x in f if not x.startswith("#"))]


def expect_in_row(page, label, *values):
    rows = page.rows()
    assert label in rows, f"no table row '{label}' (rows: {list(rows)[:20]})"
    for v in values:
        assert v in rows[label], f"row '{label}': {rows[label]} lacks {v}"
    print(f"ok: row {label}: {', '.join(values)}")


def case_name(run_dir):
    with open(os.path.join(run_dir, "case.resolved.yaml")) as f:
        for line in f:
            if line.startswith("name:"):
                return line.split(":", 1)[1].strip().strip('"')
    return None


def test_optimization(postproc, src, tmp):
    d = os.path.join(tmp, "run")
    shutil.copytree(src, d)
    r = run_report(postproc, d, "--title", "Shape <&> test")
    assert r.returncode == 0, f"exit {r.returncode}"
    page = check_page(os.path.join(d, "report", "index.html"), title_contains="Shape <&> test")
    assert "Shape &lt;&amp;&gt; test" in page.source, "the title is not escaped"
    assert len(page.imgs) >= 1, "no plots in the optimization report"
    rows = read_rows(os.path.join(d, "optimization.csv"))
    J0, J = float(rows[0]["J"]), float(rows[-1]["J"])
    expect_in_row(page, "objective J0 (start)", fnum(J0))
    expect_in_row(page, "objective J (end)", fnum(J))
    expect_in_row(page, "J / J0", fnum(J / J0))
    expect_in_row(page, "iterations", rows[-1]["iteration"])
    expect_in_row(page, "evaluations", rows[-1]["evaluations"])
    expect_in_row(page, "wall time of the evaluations (s)", fnum(float(rows[-1]["seconds"])))
    expect_in_row(page, "largest constraint violation (end, relative)", fnum(float(rows[-1]["max_violation"])))
    # the constraint rows (optimization.h5 names them; here 'area', also a column of the CSV)
    import h5py
    with h5py.File(os.path.join(d, "optimization.h5"), "r") as f:
        names = [n.decode() for n in f["constraints_names"][()]]
        c = f["constraints"][()]
    assert names, "the test case has no constraint rows"
    for k, n in enumerate(names):
        expect_in_row(page, n, fnum(float(c[0, k])), fnum(float(c[-1, k])))
        if n in rows[-1]:
            assert fnum(float(rows[-1][n])) == fnum(float(c[-1, k]))
    for r in read_rows(os.path.join(d, "optimization", "result.csv")):
        expect_in_row(page, r["name"], fnum(float(r["initial"])), fnum(float(r["final"])))
    # the last iteration's gradient fields (postproc sensitivity on optimization/iter_NNNN.h5)
    srcs = [i["src"] for i in page.imgs]
    for pic in ("img/sensitivity_dJdchi.png", "img/sensitivity_surface.png"):
        assert pic in srcs, f"no {pic} in the optimization report ({srcs})"
    print("ok: the last iteration's dJ/dchi and surface sensitivity are on the page")
    # no temporary path in the text: the commands name the pictures' final directory
    assert "img.new" not in page.source and ".tmp" not in page.source, "a temporary path in the page"
    assert f"--out {os.path.join(d, 'report', 'img')} " in page.source, "the commands do not name report/img"
    print("ok: no temporary path in the page; the commands name report/img")
    # how it ended: the banner follows optimization/outcome.txt
    with open(os.path.join(d, "optimization", "outcome.txt")) as f:
        outcome = f.read()
    good = "status: converged" in outcome and "(VIOLATED)" not in outcome
    want = '<p class="ok" id="outcome">Converged' if good else '<p class="warn" id="outcome">Warning: the optimization'
    assert want in page.source, f"the outcome banner is not '{want}'"
    expect_in_row(page, "status", "converged" if "status: converged" in outcome else "stopped")
    print(f"ok: the banner says {'converged' if good else 'not converged'}, as outcome.txt does")
    # a run that stopped with a constraint violated (outcome.txt as flowgrad writes it then), and
    # one that never reached its end (no outcome.txt): a visible warning naming the problem
    lines = [ln for ln in outcome.splitlines() if ln.strip().startswith("constraint ")]
    assert lines, "the test optimization has constraint rows"
    bad = lines[0].replace("(holds)", "(VIOLATED)")
    with open(os.path.join(d, "optimization", "outcome.txt"), "w") as f:
        f.write("flowgrad optimize: STOPPED at optimizer.max_iterations after 3 iterations, 5 evaluations (1 s of evaluations)\n"
                + "\n".join([bad] + lines[1:]) + "\nstatus: stopped\nconstraints: VIOLATED\n")
    r = run_report(postproc, d)
    assert r.returncode == 0
    page = check_page(os.path.join(d, "report", "index.html"), title_contains=case_name(d))
    name = bad.strip()[len("constraint "):].split()[0]
    assert '<p class="warn" id="outcome">Warning: the optimization did not converge and constraint VIOLATED: ' + name in page.source, \
        "no warning naming the violated constraint"
    assert "STOPPED at optimizer.max_iterations" in page.source
    os.remove(os.path.join(d, "optimization", "outcome.txt"))
    r = run_report(postproc, d)
    assert r.returncode == 0
    page = check_page(os.path.join(d, "report", "index.html"), title_contains=case_name(d))
    assert '<p class="warn" id="outcome">Warning: no optimization/outcome.txt' in page.source
    print("ok: a violated constraint and a run without an end: a warning at the top of the page")
    # run again: the page is replaced, not appended to
    assert page.source.count("<!DOCTYPE html>") == 1


def test_adjoint(postproc, src, tmp):
    out = os.path.join(tmp, "report")
    r = run_report(postproc, src, "--out", out)
    assert r.returncode == 0, f"exit {r.returncode}"
    page = check_page(os.path.join(out, "index.html"), title_contains=case_name(src))
    J = None
    with open(os.path.join(src, "gradient.csv")) as f:
        for line in f:
            if line.startswith("# J ="):
                J = float(line.split("=", 1)[1])
    assert J is not None
    expect_in_row(page, "objective J", fnum(J))
    grads = read_rows(os.path.join(src, "gradient.csv"))
    assert grads
    for g in grads:
        expect_in_row(page, g["name"], fnum(float(g["value"])), fnum(float(g["gradient"])))


def test_run(postproc, src, tmp):
    out = os.path.join(tmp, "report")
    r = run_report(postproc, src, "--out", out)
    assert r.returncode == 0, f"exit {r.returncode}"
    page = check_page(os.path.join(out, "index.html"), title_contains=case_name(src))
    rows = read_rows(os.path.join(src, "history.csv"))
    last = rows[-1]
    expect_in_row(page, "steps", last["step"])
    expect_in_row(page, "time", fnum(float(last["time"])))
    expect_in_row(page, "wall time (s)", fnum(float(last["wall_time"])))
    bodies = [k[:-3] for k in rows[0] if k.endswith("_cd") and k[:-3] + "_cl" in rows[0]]
    assert bodies, "the test run has no bodies"
    t0 = 0.5 * float(last["time"])
    win = [x for x in rows if float(x["time"]) >= t0]
    for b in bodies:
        cd = sum(float(x[b + "_cd"]) for x in win) / len(win)
        cl = sum(float(x[b + "_cl"]) for x in win) / len(win)
        cells = page.rows()[b]
        assert abs(float(cells[0]) / cd - 1) < 1e-7, f"{b}: mean Cd {cells[0]}, expected {cd}"
        assert abs(float(cells[1]) - cl) < 1e-7 * max(1.0, abs(cl)), f"{b}: mean Cl {cells[1]}, expected {cl}"
        print(f"ok: {b}: mean Cd {cells[0]} (expected {cd:.10g}), mean Cl {cells[1]} (expected {cl:.10g})")


def test_campaign(postproc, src, tmp):
    out = os.path.join(tmp, "report")
    r = run_report(postproc, src, "--out", out)
    assert r.returncode == 0, f"exit {r.returncode}"
    with open(os.path.join(src, "campaign.json")) as f:
        meta = json.load(f)
    page = check_page(os.path.join(out, "index.html"), title_contains=meta["name"])
    expect_in_row(page, "points", str(len(meta["points"])))
    summ = read_rows(os.path.join(src, "summary.csv"))
    assert len(summ) == len(meta["points"])
    for s in summ:
        vals = [s["status"]] + [fnum(float(s[k])) for k in ("kinetic_energy", "time") if k in s]
        expect_in_row(page, s["point"], *vals)
    assert len(page.imgs) >= 1, "no plot in the campaign report (summary.png at least)"


def test_bad(postproc, tmp):
    for d, msg in ((tmp, "not a flowgrad output directory"), (os.path.join(tmp, "nothing"), "no such directory")):
        r = run_report(postproc, d)
        assert r.returncode == 2, f"{d}: exit {r.returncode}, expected 2"
        assert f"postproc: error: {d}: {msg}" in r.stderr, f"{d}: message {r.stderr!r}"
        assert not os.path.exists(os.path.join(tmp, "report")), "a page was written for bad input"
        print(f"ok: {d}: exit 2, '{msg}'")


FAKE_FIELDS = '''
import os
from .common import PostprocError
def add_parser(sub):
    p = sub.add_parser("fields")
    p.add_argument("run_dir"); p.add_argument("--out"); p.add_argument("--format", default="png")
def run(args):
    import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(4, 3), dpi=50); ax.plot([0, 1], [1, 0], "r-")
    os.makedirs(args.out, exist_ok=True); path = os.path.join(args.out, "fake_fields.png")
    fig.savefig(path); print(f"wrote {path}")
'''
FAKE_HISTORY = '''
def add_parser(sub):
    p = sub.add_parser("history")
    p.add_argument("run_dir"); p.add_argument("--out"); p.add_argument("--format", default="png")
def run(args):
    raise RuntimeError("fake history failure")
'''


def test_failing(postproc, src, tmp):
    # a copy of postproc/ where `history` fails and `fields` works (fakes), on a copy of the run
    # directory without its fields (small): the page is written with a note about `history`
    pp = os.path.join(tmp, "postproc")
    shutil.copytree(os.path.dirname(os.path.abspath(postproc)), pp,
                    ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    with open(os.path.join(pp, "fgpost", "fields.py"), "w") as f:
        f.write(FAKE_FIELDS)
    with open(os.path.join(pp, "fgpost", "history.py"), "w") as f:
        f.write(FAKE_HISTORY)
    d = os.path.join(tmp, "run")
    os.makedirs(os.path.join(d, "fields"))
    for name in ("history.csv", "case.resolved.yaml"):
        shutil.copy(os.path.join(src, name), d)
    r = run_report(os.path.join(pp, "postproc"), d)
    assert r.returncode == 0, f"exit {r.returncode}"
    page = check_page(os.path.join(d, "report", "index.html"))
    assert [im["src"] for im in page.imgs] == ["img/fake_fields.png"], page.imgs
    assert any("postproc history failed (exit 1)" in n and "fake history failure" in n for n in page.notes), page.notes
    print("ok: the failing subcommand is noted, the working one's plot is shown")
    # nothing at all: history.csv without rows and the failing history -> exit 1, page written
    shutil.rmtree(os.path.join(d, "fields"))
    with open(os.path.join(d, "history.csv")) as f:
        header = f.readline()
    with open(os.path.join(d, "history.csv"), "w") as f:
        f.write(header)
    r = run_report(os.path.join(pp, "postproc"), d)
    assert r.returncode == 1, f"exit {r.returncode}, expected 1 (nothing produced)"
    page = check_page(os.path.join(d, "report", "index.html"))
    assert not page.imgs and "No key numbers could be read." in page.text and "No plots could be made." in page.text
    assert any("key numbers could not be read" in n for n in page.notes), page.notes
    print("ok: nothing produced: exit 1, the page says so")


def main():
    postproc, kind, *rest = sys.argv[1:]
    tmp = tempfile.mkdtemp(prefix=f"fg_report_{kind}_")
    try:
        if kind == "bad":
            test_bad(postproc, tmp)
        else:
            src = os.path.abspath(rest[0])
            if not os.path.isdir(src):
                sys.exit(f"test_report: {src}: no such directory (run the fixture first)")
            {"optimization": test_optimization, "adjoint": test_adjoint, "run": test_run,
             "campaign": test_campaign, "failing": test_failing}[kind](postproc, src, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"PASS: report {kind}")


if __name__ == "__main__":
    main()
