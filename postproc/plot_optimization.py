#!/usr/bin/env python3
"""Plots of a `flowgrad optimize` run: the history and the shapes.

    /usr/bin/python3 postproc/plot_optimization.py OUT_DIR [--format png|svg|pdf] [--iterations 0,5,...]

Reads OUT_DIR/optimization.csv and OUT_DIR/optimization/iter_NNNN.h5 and writes
  OUT_DIR/optimization/history.png  J/J_0 and the largest constraint violation per iteration
                                    (and each constraint row relative to its first value)
  OUT_DIR/optimization/shape.png    the bodies' outline (the surface phi = 0: the iteration file's
                                    outline points in 2D, else the chi = 0.5 contour of the mask) at the
                                    first, the last and any chosen iterations, overlaid; with a
                                    density body the final mask as an image
Prints what it wrote. Needs h5py, numpy and matplotlib (Debian's: run it with /usr/bin/python3).
"""
import argparse, csv, glob, os, re, sys

import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out", help="the run's output directory (output.dir)")
    p.add_argument("--format", default="png", choices=["png", "svg", "pdf"])
    p.add_argument("--iterations", default="", help="comma-separated iterations to overlay (default: first and last)")
    a = p.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import h5py

    hist = os.path.join(a.out, "optimization.csv")
    if not os.path.exists(hist):
        sys.exit(f"plot_optimization: {hist} not found (run flowgrad optimize first)")
    with open(hist) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_optimization: {hist} has no rows")
    fixed = {"iteration", "evaluations", "J", "J_rel", "gradient_norm", "step", "max_violation", "seconds"}
    it = np.array([int(r["iteration"]) for r in rows])
    J = np.array([float(r["J"]) for r in rows])
    viol = np.array([float(r["max_violation"]) for r in rows])
    case = os.path.basename(os.path.normpath(a.out))
    res = os.path.join(a.out, "case.resolved.yaml")
    if os.path.exists(res):
        m = re.search(r"^name: \"?([^\"\n]+)", open(res).read(), re.M)
        case = m.group(1) if m else case
    # constraint rows: the columns between the fixed ones and the design (optimization.h5 names them)
    cons = []
    h5 = os.path.join(a.out, "optimization.h5")
    if os.path.exists(h5):
        with h5py.File(h5, "r") as f:
            if "constraints_names" in f:
                cons = [n.decode() for n in f["constraints_names"][()]]

    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot(it, J / J[0], "o-", color="C0", label="J / J$_0$")
    ax.set_xlabel("iteration")
    ax.set_ylabel("J / J$_0$", color="C0")
    ax.grid(alpha=0.3)
    if cons:
        ax2 = ax.twinx()
        ax2.semilogy(it, np.maximum(viol, 1e-16), "s--", color="C3", label="max violation")
        ax2.set_ylabel("largest constraint violation (relative)", color="C3")
    ax.set_title(f"{case}: J {J[0]:.6g} -> {J[-1]:.6g} ({100 * (J[-1] / J[0] - 1):+.2f}%)")
    fig.tight_layout()
    out1 = os.path.join(a.out, "optimization", f"history.{a.format}")
    fig.savefig(out1, dpi=120)
    plt.close(fig)
    print("wrote", out1)

    files = sorted(glob.glob(os.path.join(a.out, "optimization", "iter_*.h5")))
    if not files:
        return
    byit = {int(re.search(r"iter_(\d+)\.h5$", f).group(1)): f for f in files}
    want = sorted(byit) if not a.iterations else [int(x) for x in a.iterations.split(",")]
    if not a.iterations:
        want = [want[0], want[-1]]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    last = None
    for k, n in enumerate(want):
        if n not in byit:
            sys.exit(f"plot_optimization: no optimization/iter_{n:04d}.h5 (have {sorted(byit)})")
        with h5py.File(byit[n], "r") as f:
            chi = f["chi"][()]
            h, o = f.attrs["spacing"], f.attrs["origin"]
            if chi.ndim == 3:
                chi = chi[chi.shape[0] // 2]
            ny, nx = chi.shape
            x = o[0] + (np.arange(nx) + 0.5) * h[0]
            y = o[1] + (np.arange(ny) + 0.5) * h[1]
            last = (x, y, chi)
            pts = [f[k][()].reshape(-1, 2) for k in sorted(f) if k.startswith("outline_")] if chi.ndim == 2 else []
            if pts:  # the design's surface phi = 0: its exact points
                for q in pts:
                    ax.plot(np.append(q[:, 0], q[0, 0]), np.append(q[:, 1], q[0, 1]), color=f"C{k % 10}", linewidth=1.5)
                ax.plot([], [], color=f"C{k % 10}", label=f"iteration {n}")
            elif chi.min() < 0.5 < chi.max():  # (a uniform 0.5, a density start, has no outline)
                ax.contour(x, y, chi, levels=[0.5], colors=[f"C{k % 10}"], linewidths=1.5)
                ax.plot([], [], color=f"C{k % 10}", label=f"iteration {n}")
    if last is not None:
        x, y, chi = last
        ys, xs = np.nonzero(chi > 0.05)
        if len(xs) and len(xs) < 0.5 * chi.size:  # zoom on the bodies
            pad = 4 * (x[1] - x[0])
            ax.set_xlim(x[xs.min()] - pad, x[xs.max()] + pad)
            ax.set_ylim(y[ys.min()] - pad, y[ys.max()] + pad)
        else:
            im = ax.imshow(chi, origin="lower", extent=[x[0], x[-1], y[0], y[-1]], cmap="Greys", vmin=0, vmax=1, alpha=0.6)
            fig.colorbar(im, ax=ax, label="chi (solid)")
    ax.set_aspect("equal")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.legend(loc="best", fontsize=8)
    ax.set_title(f"{case}: the body outline")
    fig.tight_layout()
    out2 = os.path.join(a.out, "optimization", f"shape.{a.format}")
    fig.savefig(out2, dpi=120)
    plt.close(fig)
    print("wrote", out2)


if __name__ == "__main__":
    main()
