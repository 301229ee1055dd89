#!/usr/bin/python3
"""Tests of postproc history, optimization, control, campaign (tests/postproc/plots.cmake).

  test_plots.py history RUN_DIR BODY ST_LO ST_HI
  test_plots.py history_nobody RUN_DIR                 (a run without bodies: history_run only)
  test_plots.py optimization RUN_DIR ITERATIONS       (e.g. 0,2,last)
  test_plots.py control RUN_DIR
  test_plots.py campaign CAMPAIGN_DIR
  test_plots.py errors KIND DIR ARG...                 bad input: exit 2 with the message

Each runs the subcommand (through postproc/postproc's main, pictures into a temporary --out),
checks the PNGs (size width*dpi x height*dpi, not blank: pngcheck.check_png) and compares the
plotted arrays (the figure's own line data, and what the figure functions return) with the
files. The data directories are read only.
"""
import contextlib
import io
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "postproc"))
sys.path.insert(0, HERE)
import importlib.machinery  # noqa: E402

from pngcheck import check_png  # noqa: E402
from fgpost import common  # noqa: E402

postproc = importlib.machinery.SourceFileLoader("postproc_cli", os.path.join(ROOT, "postproc", "postproc")).load_module()

W, H, DPI = 6.0, 4.0, 80


class Args:
    def __init__(self, out, **kw):
        self.out, self.format, self.dpi, self.width, self.height = out, "png", DPI, W, H
        self.__dict__.update(kw)


def cli(*argv):
    """(rc, stdout, stderr) of postproc/postproc ARGV."""
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        try:
            rc = postproc.main([str(a) for a in argv])
        except SystemExit as x:
            rc = x.code
    return rc, o.getvalue(), e.getvalue()


def run_ok(out, *argv, stems):
    rc, so, se = cli(*argv, "--out", out, "--dpi", DPI, "--width", W, "--height", H)
    print(so, end="")
    assert rc == 0, f"postproc {' '.join(map(str, argv))}: exit {rc}: {se}"
    for s in stems:
        check_png(os.path.join(out, s + ".png"), int(W * DPI), int(H * DPI))
    return so


def lines_of(ax):
    return [(ln.get_label(), np.asarray(ln.get_xdata(), float), np.asarray(ln.get_ydata(), float))
            for ln in ax.get_lines()]


def same(a, b, what):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape and np.array_equal(a, b), f"{what}: plotted data differ from the file"
    print(f"ok: {what}: {a.size} values equal the file")


# --- history ---------------------------------------------------------------------------------
def test_history(run_dir, body, st_lo, st_hi):
    from fgpost import history
    out = tempfile.mkdtemp(prefix="fg_plots_history_")
    try:
        so = run_ok(out, "history", run_dir, "--body", body, stems=["history_forces", "history_spectrum"])
        cols = common.csv_columns(os.path.join(run_dir, "history.csv"))
        case = history.load_case(run_dir)
        a = Args(out)
        fig, data = history.forces_figure(a, cols, [body], case, "t")
        t = cols["time"]
        axes = fig.axes
        got = {lab: (x, y) for ax in axes for lab, x, y in lines_of(ax)}
        same(got[f"{body}: C$_d$ (penalty force)"][1], cols[body + "_cd"], f"{body}_cd line")
        same(got[f"{body}: C$_d$ (penalty force)"][0], t, "time axis")
        same([y for lab, x, y in lines_of(axes[1])][0], cols[body + "_cl"], f"{body}_cl line")
        same([y for lab, x, y in lines_of(axes[2])][0], cols[body + "_cm"], f"{body}_cm line")
        if body + "_cv_fx" in cols:
            L, U, A, _ = history.body_refs(case, body)
            cv = [y for lab, x, y in lines_of(axes[0]) if "control-volume" in lab][0]
            same(cv, cols[body + "_cv_fx"] / (0.5 * U * U * A), f"{body}_cv_fx / (1/2 U^2 A) line")
            d = abs(cv[len(cv) // 2:].mean() / cols[body + "_cd"][len(cv) // 2:].mean() - 1)
            print(f"ok: control-volume vs penalty mean drag over the second half: {d:.2e} relative")
            assert d < 0.05
        # the spectrum peak against an independent FFT of the CSV's Cl (second half, uniform dt here)
        t0 = 0.5 * t[-1]
        w = t >= t0
        y = cols[body + "_cl"][w]
        h = np.diff(t[w])
        assert np.ptp(h) < 1e-9 * h.mean(), "the test data have a uniform time step"
        n = y.size
        P = np.abs(np.fft.fft(y - y.mean(), 8 * n)) ** 2
        f = np.fft.fftfreq(8 * n, h.mean())
        pos = f > 0
        f_ref = f[pos][np.argmax(P[pos])]
        L, U, _, _ = history.body_refs(case, body)
        fig, sd = history.spectrum_figure(a, cols, [body], case, t0, "t")
        st = sd[body]["st_peak"]
        assert abs(st - f_ref * L / U) < 1e-12, f"spectrum peak St {st} != numpy FFT {f_ref * L / U}"
        print(f"ok: spectrum peak St = {st:.6f} equals numpy's FFT of {body}_cl ({f_ref * L / U:.6f})")
        assert f"St = {st:.6f}" in so, "the peak is printed"
        assert st_lo <= st <= st_hi, f"St {st} outside [{st_lo}, {st_hi}]"
        # cross-checks: flowgrad's own NAME_st at the end and the zero crossings (body_stats.py)
        ln = lines_of(fig.axes[0])[0]
        same(ln[2], sd[body]["power"], "spectrum line (returned arrays)")
        sys.path.insert(0, os.path.join(ROOT, "postproc"))
        import body_stats
        fc, _ = body_stats.frequency(t[w], y)
        print(f"   flowgrad's {body}_st at the end {cols[body + '_st'][-1]:.6f}, zero crossings {fc * L / U:.6f}, "
              f"resolution {sd[body]['st'][1]:.2g}")
        assert abs(st - fc * L / U) <= sd[body]["st"][1] + 1e-12 + 0.01 * st
    finally:
        shutil.rmtree(out, ignore_errors=True)


# --- optimization ----------------------------------------------------------------------------
def test_optimization(run_dir, iterations):
    from fgpost import optimization as opt
    out = tempfile.mkdtemp(prefix="fg_plots_optim_")
    try:
        run_ok(out, "optimization", run_dir, "--iterations", iterations,
               stems=["optimization_history", "optimization_outlines"])
        rows = common.read_csv(os.path.join(run_dir, "optimization.csv"))
        J = np.array([float(r["J"]) for r in rows])
        a = Args(out)
        cols = opt.read_optimization(run_dir)
        cons = opt.constraint_rows(run_dir, cols)
        fig, data = opt.history_figure(a, cols, cons, "t")
        same(lines_of(fig.axes[0])[0][2], J, "J line")
        same(lines_of(fig.axes[0])[0][1], [float(r["iteration"]) for r in rows], "iteration axis")
        rel = [ln for ax in fig.axes for ln in lines_of(ax) if ln[0] == "J / J$_0$"][0][2]
        assert np.allclose(rel, [float(r["J_rel"]) for r in rows], rtol=1e-12, atol=0), "J/J0 = J_rel column"
        print("ok: J/J0 line equals optimization.csv's J_rel to 1e-12")
        same(lines_of(fig.axes[1])[0][2], [float(r["gradient_norm"]) for r in rows], "gradient norm line")
        for c in cons:
            q = np.array([float(r[c]) for r in rows])
            assert np.allclose(data["constraints"][c], q / q[0] - 1, rtol=0, atol=1e-15)
            print(f"ok: constraint row {c}: q/q0 - 1 from the column")
        picked = opt.pick_iterations(run_dir, iterations)
        fig, segs = opt.outlines_figure(a, picked, "t")
        for n, path in picked:
            import h5py
            with h5py.File(path, "r") as f:  # the drawn outlines are the file's exact surface points
                names = sorted(k for k in f if k.startswith("outline_"))
                ref = [np.asarray(f[k][()]).reshape(-1, 2) for k in names]
            assert len(ref) == len(segs[n]) and len(ref) > 0, f"iteration {n}: {len(segs[n])} outlines drawn, {len(ref)} in the file"
            for r, s in zip(ref, segs[n]):
                same(s, np.vstack([r, r[:1]]), f"outline at iteration {n} ({os.path.basename(path)})")
        print(f"   J {J[0]:.8g} -> {J[-1]:.8g} over {len(rows) - 1} iterations")
        # J's objective named from the case, the augmented Lagrangian's outer iterations marked
        from fgpost.plotdata import load_case
        case = load_case(run_dir)
        label = opt.objective_label(case)
        names = list(case["objective"])
        assert label and all(n in label for n in names), f"J's label '{label}' does not name the objectives {names}"
        outer = opt.outer_iterations(run_dir)
        fig, data = opt.history_figure(a, cols, cons, "t", label, outer)
        assert fig.axes[0].get_ylabel() == f"J = {label}", fig.axes[0].get_ylabel()
        if case.get("optimizer", {}).get("type") == "penalty":
            assert outer, "a penalty run without optimization/outer.csv"
            its = [float(r["iteration"]) for r in rows]
            for k, i, mu in outer:
                assert i in its, f"outer iteration {k} ends at iteration {i}, not a row of optimization.csv"
                for ax in fig.axes[:3]:
                    xs = [ln.get_xdata()[0] for ln in ax.get_lines() if ln.get_linestyle() == ":" and
                          len(ln.get_xdata()) == 2 and ln.get_xdata()[0] == ln.get_xdata()[1]]
                    assert i in xs, f"no dotted line at iteration {i} (outer {k})"
            texts = [t.get_text() for t in fig.axes[0].texts]
            for k, i, mu in outer:
                assert f"outer {k}, μ = {mu:g}" in texts, f"outer {k} is not labelled ({texts})"
            print(f"ok: J = {label}; {len(outer)} outer iterations marked at {[i for _, i, _ in outer]}")
    finally:
        shutil.rmtree(out, ignore_errors=True)


# --- control ---------------------------------------------------------------------------------
def test_control(run_dir):
    from fgpost import control
    out = tempfile.mkdtemp(prefix="fg_plots_control_")
    try:
        run_ok(out, "control", run_dir, stems=["control"])
        gt = common.csv_columns(os.path.join(run_dir, "gradient_time.csv"))
        grad = {r["name"]: (float(r["value"]), float(r["gradient"])) for r in common.read_csv(os.path.join(run_dir, "gradient.csv"))}
        times, ctl, N, case = control.read_control(run_dir)
        fig, data = control.control_figure(Args(out), times, ctl, N, "t")
        lines = {lab.split(":")[0]: (x, y) for lab, x, y in lines_of(fig.axes[1]) if lab.startswith(("body", "actuator"))}
        T = gt["t_end"][-1]
        # direct terms: control_cost = weight (t1 - t0)/2 sum theta^2 -> weight T theta_k
        cost_w = sum(float(o.get("weight", 1)) for o in (case.get("objective") or {}).values()
                     if isinstance(o, dict) and o.get("kind") == "control_cost")
        for base, c in ctl.items():
            names = c["names"]
            g = sum(gt[n] for n in names)
            same(lines[base][1], g, f"{base}: gradient line = sum of gradient_time.csv's columns {names[0]}..")
            same(lines[base][0], 0.5 * (gt["t_start"] + gt["t_end"]), f"{base}: step midpoints")
            if base + "(t)" in gt:
                assert np.allclose(g, gt[base + "(t)"], rtol=1e-12, atol=1e-15)
                print(f"ok: {base}: the sum over the basis equals flowgrad's '{base}(t)' column "
                      f"(max difference {np.abs(g - gt[base + '(t)']).max():.1e})")
            for n in names:
                v, total = grad[n]
                s = gt[n].sum()
                direct = cost_w * T * v
                err = abs(total - s - direct)
                assert err <= 1e-10 * max(1.0, abs(total)), f"{n}: gradient {total} != sum {s} + direct {direct}"
            print(f"ok: {base}: per value, gradient.csv = sum over the steps + control_cost's weight*T*theta "
                  f"(weight {cost_w:g}, T {T:g})")
            # the control line: the design values at t_k (constant with N = 1)
            x, v = data[base]["t"], data[base]["value"]
            vals = np.array([grad[n][0] for n in names])
            if N >= 2:
                tk = np.arange(N) * T / (N - 1)
                assert np.allclose(np.interp(tk, x, v), vals, atol=1e-12), f"{base}: control line through the values"
            else:
                assert np.all(v == vals[0]), f"{base}: a constant control drawn constant"
            same([ln[2] for ln in lines_of(fig.axes[0]) if ln[0] == base][0], v, f"{base}: control line")
    finally:
        shutil.rmtree(out, ignore_errors=True)


# --- campaign --------------------------------------------------------------------------------
def test_campaign(cdir):
    from fgpost import campaign
    out = tempfile.mkdtemp(prefix="fg_plots_campaign_")
    try:
        so = run_ok(out, "campaign", cdir, stems=["campaign_table", "campaign_metric"])
        rows = common.read_csv(os.path.join(cdir, "summary.csv"))
        meta = campaign.read_meta(cdir)
        key = meta["keys"][0]
        header, srows = campaign.load_summary(cdir)
        metric = campaign.main_metric(header)
        fig, data = campaign.metric_figure(Args(out), srows, meta["keys"], key, metric, "t")
        done = sorted((float(r[key]), float(r[metric])) for r in rows if r["status"] == "done")
        ln = lines_of(fig.axes[0])[0]
        same(ln[1], [a for a, _ in done], f"campaign x ({key})")
        same(ln[2], [b for _, b in done], f"campaign points ({metric})")
        for r in rows:
            assert r["point"] in so, "the table is printed"
        fig, cells = campaign.table_figure(Args(out), header, srows, "t")
        assert len(cells) == len(rows)
        # summary.csv missing: made by campaign.py's gather (in a copy: the data are read only)
        copy = os.path.join(out, "copy")
        shutil.copytree(cdir, copy, ignore=shutil.ignore_patterns("summary.*", "plots"))
        run_ok(os.path.join(out, "p2"), "campaign", copy, "--metric", "wall_time", stems=["campaign_metric"])
        again = common.read_csv(os.path.join(copy, "summary.csv"))
        assert [r["point"] for r in again] == [r["point"] for r in rows]
        for r, s in zip(again, rows):
            assert r[metric] == s[metric], f"regenerated {metric} differs"
        print("ok: a missing summary.csv is regenerated, the same numbers")
    finally:
        shutil.rmtree(out, ignore_errors=True)


# --- bad input -------------------------------------------------------------------------------
def test_errors(kind, *args):
    out = tempfile.mkdtemp(prefix="fg_plots_err_")
    try:
        cases = {
            "history": [(["history", "/nonexistent/run"], "no such run directory"),
                        (["history", args[0], "--body", "nobody"], "no body 'nobody'"),
                        (["history", args[0], "--from", "1e9"], "fewer than 8 rows"),
                        (["history", args[0], "--format", "gif"], "--format gif")],
            "optimization": [(["optimization", "/nonexistent/run"], "no such run directory"),
                             (["optimization", args[0], "--iterations", "0,999"], "no optimization/iter_0999.h5"),
                             (["optimization", args[0], "--iterations", "x"], "not an iteration number")],
            "control": [(["control", "/nonexistent/run"], "no such run directory"),
                        (["control", args[0]], "gradient")],
            "campaign": [(["campaign", "/nonexistent/campaign"], "no such campaign directory"),
                         (["campaign", args[0], "--metric", "nothing"], "--metric nothing"),
                         (["campaign", args[0], "--x", "flow.zz"], "--x flow.zz")],
        }[kind]
        for argv, msg in cases:
            rc, so, se = cli(*argv, "--out", out)
            assert rc == 2, f"postproc {' '.join(argv)}: exit {rc}, expected 2 ({se})"
            assert se.startswith("postproc: error:") and msg in se, f"message: {se!r}, expected {msg!r}"
            print(f"ok: exit 2: {se.strip()}")
        assert not [f for f in os.listdir(out) if f.endswith(".png")], "no picture on bad input"
    finally:
        shutil.rmtree(out, ignore_errors=True)


def test_history_nobody(run_dir):
    """A run without bodies: history_run only, its lines equal history.csv's columns."""
    from fgpost import history
    out = tempfile.mkdtemp(prefix="fg_plots_history_nobody_")
    try:
        so = run_ok(out, "history", run_dir, stems=["history_run"])
        assert sorted(os.listdir(out)) == ["history_run.png"], f"only history_run.png: {os.listdir(out)}"
        assert "no bodies in history.csv" in so, "it says why there are no force pictures"
        cols = common.csv_columns(os.path.join(run_dir, "history.csv"))
        fig, data = history.run_figure(Args(out), cols, "t")
        assert len(fig.axes) == 3, f"{len(fig.axes)} panels, want kinetic energy, CFL, divergence"
        for ax, col in zip(fig.axes, ("kinetic_energy", "cfl", "max_div")):
            (_, x, y), = lines_of(ax)
            same(x, cols["time"], f"{col}: time axis")
            same(np.nan_to_num(y), cols[col], f"{col} line")
        assert fig.axes[2].get_yscale() == "log", "the divergence on a log scale"
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main(argv):
    kind, rest = argv[0], argv[1:]
    if kind == "history":
        test_history(rest[0], rest[1], float(rest[2]), float(rest[3]))
    elif kind == "history_nobody":
        test_history_nobody(rest[0])
    elif kind == "optimization":
        test_optimization(rest[0], rest[1])
    elif kind == "control":
        test_control(rest[0])
    elif kind == "campaign":
        test_campaign(rest[0])
    elif kind == "errors":
        test_errors(rest[0], *rest[1:])
    else:
        raise SystemExit(f"test_plots.py: unknown test {kind}")
    print("PASS")


if __name__ == "__main__":
    main(sys.argv[1:])
