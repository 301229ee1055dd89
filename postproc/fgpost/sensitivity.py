"""postproc sensitivity: the gradient fields of a `flowgrad adjoint` output (gradient.h5) or of an
optimization's iteration (optimization/iter_NNNN.h5: the last one of an optimization directory, or
--iteration N; these carry dJ/dchi and the shape sensitivity but no adjoint velocity).

Pictures (3D: the plane --slice, the mid z-plane by default), <out>/sensitivity_<what>.<fmt>:
  dJdchi    dJ/dchi at the cell centres: the face components dJ_dchi_x, dJ_dchi_y[, _z], each the
            mean of a cell's two faces (0.5 (f[i-1] + f[i]), the missing lower boundary face 0), summed
            over the directions (the chain rule for a cell mask that enters its faces as their two-cell
            mean); diverging colours symmetric about 0. Units: J per unit chi (J's own units).
  surface   the surface shape sensitivity along the body outline: shape_sensitivity (dJ per unit
            volume of outward normal displacement, non-zero in the mask's transition band)
            integrated across the band along the outward normal at each point of the outline, over
            +-BAND_CELLS cell widths (bilinear samples, trapezoid rule), with the factor 1 + kappa t
            of the area between parallel curves (kappa the outline's curvature, t the distance
            along the normal): dJ per unit area (2D: length) of the surface moved outward. Its
            integral along the outline is the total of shape_sensitivity, dJ/dr for a circle. The
            outline is coloured by it, with arrows along the outward normal scaled by it (inward
            where negative). The outline, normal and curvature are the design's surface phi = 0,
            grad phi / |grad phi| and its divergence when gradient.h5 has phi (slices.body_outlines);
            else the chi = 0.5 contour and -grad chi, chi from gradient.h5, else from the run
            directory's last fields file of the same grid, else estimated from the support of
            shape_sensitivity (chi-bar H' |grad phi| is non-zero exactly in the mask's transition
            band): 1 inside the band, 0 outside, across the band the relative distance.
  adjoint   the adjoint velocity: |(u_adj, v_adj[, w_adj])| at the cell centres (face values
            interpolated; 3D: the full magnitude) with streamlines of the in-plane components
            (gradient.h5 only).
Colours: dJ/dchi and the surface sensitivity on a diverging map symmetric about 0, the adjoint
speed from 0; --vmin/--vmax fix the range (one end given: symmetric about 0 for the diverging
ones), the colour bar has an arrow at each end the data pass. dJdchi and adjoint reach the
domain's walls, surface is zoomed on the body; --xlim/--ylim zoom any of them (e.g. on the body,
which may cover a small part of the domain).
"""
import argparse
import os

from .slices import parse_pair

import numpy as np

from . import common
from .common import PostprocError
from .slices import (AXES, at_cells, body_outlines, cell_coords, contour_lines, face_sum_at_cells, interp, np_axis,
                     parse_slice, plane)


BAND_CELLS = 4  # the band of chi-bar H'(phi) |grad phi| lies within a few cells of the outline


def add_parser(sub):
    p = sub.add_parser("sensitivity", help="dJ/dchi, surface shape sensitivity, adjoint velocity",
                       description=__doc__.split("\n")[0], epilog="\n".join(__doc__.split("\n")[2:]),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run_dir", help="a flowgrad adjoint output directory (gradient.h5), an optimization's output "
                   "directory (its last optimization/iter_NNNN.h5), or either kind of .h5 file")
    p.add_argument("--iteration", type=int, metavar="N",
                   help="an optimization directory: iteration N (optimization/iter_NNNN.h5) instead of the last")
    p.add_argument("--slice", help="3D: the plane, x=VALUE, y=VALUE or z=VALUE (default: the mid z-plane)")
    p.add_argument("--arrows", type=int, default=40, help="about this many normal arrows (default 40)")
    common.add_view_args(p)
    common.add_figure_args(p)


def iteration_files(run_dir):
    """{iteration: path} of an optimization directory's optimization/iter_NNNN.h5."""
    d = os.path.join(run_dir, "optimization")
    out = {}
    for f in os.listdir(d) if os.path.isdir(d) else []:
        stem = f[5:-3]
        if f.startswith("iter_") and f.endswith(".h5") and stem.isdigit():
            out[int(stem)] = os.path.join(d, f)
    return out


def gradient_path(path, iteration=None):
    """(the .h5 file to draw, the run directory): a file as given; a directory's gradient.h5, else
    (an optimization) its iteration file, the last or --iteration N."""
    if not os.path.exists(path):
        raise PostprocError(f"{path}: no such run directory or file")
    if os.path.isfile(path):
        if iteration is not None:
            raise PostprocError("--iteration: give an optimization directory, not a file")
        run_dir = os.path.dirname(os.path.abspath(path))
        if os.path.basename(run_dir) == "optimization":  # optimization/iter_NNNN.h5: the run is above
            run_dir = os.path.dirname(run_dir)
        return path, run_dir
    g = os.path.join(path, "gradient.h5")
    its = iteration_files(path)
    if iteration is None and os.path.isfile(g):
        return g, path
    if not its:
        raise PostprocError(f"{path}: no gradient.h5 and no optimization/iter_NNNN.h5 "
                            "(the output directory of `flowgrad adjoint` or `flowgrad optimize`?)")
    if iteration is None:
        iteration = max(its)
    if iteration not in its:
        raise PostprocError(f"--iteration {iteration}: no optimization/iter_{iteration:04d}.h5 in {path} "
                            f"(written: {', '.join(str(k) for k in sorted(its))})")
    return its[iteration], path


def _to_plane(arr, coords, axis, value, dim):
    if dim == 2:
        return arr
    return plane(arr, coords, axis, value)[0]


def chi_estimate(s, spacing=None):
    """A cell mask from the support of shape_sensitivity (the mask's transition band); spacing:
    the cell widths in array-axis order (distances in length units on non-square cells)."""
    from scipy import ndimage
    band = s != 0
    filled = ndimage.binary_fill_holes(band)
    inside = filled & ~band
    outside = ~filled
    if not inside.any():
        return filled.astype(float)
    d_out = ndimage.distance_transform_edt(~outside, sampling=spacing)
    d_in = ndimage.distance_transform_edt(~inside, sampling=spacing)
    chi = np.where(inside, 1.0, 0.0)
    chi = np.where(band, d_out / (d_out + d_in), chi)
    return chi


def find_chi(ff, run_dir):
    """(chi at the cell centres, where it came from)."""
    if ff.has("chi"):
        return at_cells(ff, "chi"), ff.path
    files = common.field_files(run_dir)
    if files:
        with common.FieldFile(files[-1]) as f2:
            if f2.has("chi") and f2.attrs["cells"] == ff.attrs["cells"]:
                return at_cells(f2, "chi"), f2.path
    s = ff.array("shape_sensitivity")
    if not np.any(s):
        return None, "none (shape_sensitivity is 0 everywhere)"
    dim = ff.attrs["dim"]
    # distances in length units: the mean cell widths (exact on a uniform grid; on a stretched one
    # the estimate's band is as wide as the local cells make it, which is all it needs to place
    # the outline between the inside and the outside)
    return chi_estimate(s, ff.attrs["spacing"][:dim][::-1]), "the support of shape_sensitivity"


def _outlines(ff, chi, axis, value, a, b):
    """(lines, source) to draw in the plane: the file's surface (body_outlines), else the chi = 0.5
    contour of the chi given."""
    lines, src = body_outlines(ff, axis, value)
    if src in ("outline", "phi") or chi is None:
        return lines, src
    cc = cell_coords(ff)
    return contour_lines(_to_plane(chi, cc, axis, value, ff.attrs["dim"]), cc[a], cc[b], 0.5), "chi"


def _plane_args(ff, args_slice):
    dim = ff.attrs["dim"]
    if dim == 3:
        axis, value = parse_slice(args_slice, ff)
    else:
        if args_slice:
            raise PostprocError("--slice: the field is 2D")
        axis, value = 2, None
    a, b = [d for d in range(3) if d != axis]
    return dim, axis, value, a, b


def _title(ax, case, what, ff, axis, value):
    where = f", {AXES[axis]} = {value:g}" if ff.attrs["dim"] == 3 else ""
    ax.set_title(f"{case}: {what}{where}")


def _vrange(args):
    return getattr(args, "vmin", None), getattr(args, "vmax", None)


def _zoom(args):
    return parse_pair(getattr(args, "xlim", None), "--xlim"), parse_pair(getattr(args, "ylim", None), "--ylim")


def _frame(ax, a, b):
    ax.set_xlabel(f"{AXES[a]} / L")
    ax.set_ylabel(f"{AXES[b]} / L")
    ax.set_aspect("equal")


def dJdchi_figure(args, ff, chi=None, case="", slice_=None):
    """dJ/dchi at the cell centres; returns (fig, {values, x, y, image})."""
    from .fields import extent
    dim, axis, value, a, b = _plane_args(ff, slice_)
    names = ["dJ_dchi_x", "dJ_dchi_y", "dJ_dchi_z"][:dim]
    g = face_sum_at_cells(ff, names)
    cc = cell_coords(ff)
    vals = _to_plane(g, cc, axis, value, dim)
    fig, ax = common.new_figure(args)
    lo, hi = common.color_range(vals, *_vrange(args), symmetric=True)
    im = common.image(ax, vals, cc[a], cc[b], extent(cc[a], cc[b]), cmap="RdBu_r", vmin=lo, vmax=hi)
    common.colorbar(fig, im, ax, "dJ/dχ (cell centres; units of J)", vals)
    common.outline(ax, _outlines(ff, chi, axis, value, a, b)[0], color="0.3", linewidth=0.8)
    _frame(ax, a, b)
    common.view_limits(ax, common.domain_box(ff, a, b), *_zoom(args))
    _title(ax, case, "dJ/dχ (x, y[, z] faces averaged to cells, summed)", ff, axis, value)
    fig.tight_layout()
    return fig, dict(values=vals, x=cc[a], y=cc[b], image=im)


def surface_figure(args, ff, chi, case="", slice_=None, arrows=40):
    """The outline coloured by the surface sensitivity; returns (fig, {points (N, 2) in-plane,
    values, normals (N, 2)}); values = shape_sensitivity integrated across the band along the
    normal at each point (see the module's docstring)."""
    import matplotlib.collections as mcoll
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm  # noqa: F401  (symmetric norm below)
    dim, axis, value, a, b = _plane_args(ff, slice_)
    cc = cell_coords(ff)
    fig, ax = common.new_figure(args)
    _frame(ax, a, b)
    _title(ax, case, "surface shape sensitivity", ff, axis, value)
    data = dict(points=np.zeros((0, 2)), values=np.zeros(0), normals=np.zeros((0, 2)), curvature=np.zeros(0))
    segs, src = _outlines(ff, chi, axis, value, a, b)
    if not segs:
        ax.text(0.5, 0.5, "no body outline in this plane", ha="center", transform=ax.transAxes)
        return fig, data
    # the points, each once (an outline's closing point repeats its first)
    pts = np.concatenate([sg[:-1] if src == "outline" else sg for sg in segs])
    # normals, curvature and samples in the full dimension (3D: a slice off the body's centre
    # cuts the band obliquely, so the in-plane normal would integrate across a wider band);
    # the outward normal grad phi (or -grad chi) normalized, the curvature its divergence
    s_full = ff.array("shape_sensitivity")
    lev = at_cells(ff, "phi") if src in ("outline", "phi") else -chi

    def unit(field):
        g = [np.gradient(field, c, axis=np_axis(d, dim)) if len(c) > 1 else np.zeros_like(field) for d, c in enumerate(cc)]
        nrm = np.sqrt(sum(q ** 2 for q in g))
        return [q / np.maximum(nrm, 1e-300) for q in g]
    grads = unit(lev)
    div = sum(np.gradient(q, c, axis=np_axis(d, dim)) if len(c) > 1 else np.zeros_like(q) for d, (q, c) in enumerate(zip(grads, cc)))

    def lift(q):
        P = np.zeros((len(q), dim))
        P[:, a], P[:, b] = q[:, 0], q[:, 1]
        if dim == 3:
            P[:, axis] = value
        return P

    def normals(P):
        m = np.stack([interp(g, cc, P) for g in grads], axis=1)
        return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-300)
    h = max(float(np.max(np.diff(ff.axis(d)[0]))) for d in range(dim))  # the largest cell width

    def across(q):
        """shape_sensitivity integrated across the band along the normal at each point of q, with
        the area factor 1 + kappa t."""
        P = lift(q)
        m = normals(P)
        kap = interp(div, cc, P)
        tau = np.linspace(-BAND_CELLS * h, BAND_CELLS * h, 8 * BAND_CELLS + 1)
        samples = np.stack([interp(s_full, cc, P + t * m) * (1 + kap * t) for t in tau], axis=1)
        return np.trapz(samples, tau, axis=1)
    n = normals(lift(pts))[:, [a, b]]  # drawn: the normal's in-plane part
    vals = across(pts)
    lo, hi = common.color_range(vals, *_vrange(args), symmetric=True)
    vmax = max(abs(lo), abs(hi))  # the arrows' scale
    norm = plt.Normalize(lo, hi)
    lines = []
    lv = []
    for sg in segs:
        sv = across(sg)
        lines.extend(np.stack([sg[:-1], sg[1:]], axis=1))
        lv.extend(0.5 * (sv[:-1] + sv[1:]))
    lc = mcoll.LineCollection(lines, cmap="RdBu_r", norm=norm, linewidths=3)
    lc.set_array(np.asarray(lv))
    ax.add_collection(lc)
    common.colorbar(fig, lc, ax, "dJ per unit " + ("length" if dim == 2 else "area") + " moved outward", vals)
    every = max(1, len(pts) // max(arrows, 1))
    sel = slice(0, None, every)
    span = max(np.ptp(pts[:, 0]), np.ptp(pts[:, 1]), 1e-12)
    ax.quiver(pts[sel, 0], pts[sel, 1], n[sel, 0] * vals[sel], n[sel, 1] * vals[sel], vals[sel],
              cmap="RdBu_r", norm=norm, angles="xy", scale_units="xy", scale=vmax / (0.4 * span), width=0.004)
    pad = 0.6 * span
    common.view_limits(ax, ((pts[:, 0].min() - pad, pts[:, 0].max() + pad),
                            (pts[:, 1].min() - pad, pts[:, 1].max() + pad)), *_zoom(args))
    fig.tight_layout()
    return fig, dict(points=pts, values=vals, normals=n, curvature=interp(div, cc, lift(pts)))


def adjoint_figure(args, ff, chi=None, case="", slice_=None):
    """|adjoint velocity| at the cell centres + streamlines; returns (fig, {values, x, y, ua, ub})."""
    from .fields import extent
    dim, axis, value, a, b = _plane_args(ff, slice_)
    names = ["u_adj", "v_adj", "w_adj"][:dim]
    cc = cell_coords(ff)
    comps = [_to_plane(at_cells(ff, nm), cc, axis, value, dim) for nm in names]
    mag = np.sqrt(sum(c ** 2 for c in comps))
    ua, ub = comps[a], comps[b]
    fig, ax = common.new_figure(args)
    vmin, vmax = _vrange(args)
    lo, hi = common.color_range(mag, 0.0 if vmin is None else vmin, vmax)
    im = common.image(ax, mag, cc[a], cc[b], extent(cc[a], cc[b]), cmap="magma", vmin=lo, vmax=hi)
    common.colorbar(fig, im, ax, "|u†| (adjoint velocity, dJ per unit velocity source)", mag)
    if np.any(ua) or np.any(ub):
        xa, xb = cc[a], cc[b]
        if not (common._uniform(xa) and common._uniform(xb)):  # streamplot wants equal spacing: resample
            xa, xb = np.linspace(xa[0], xa[-1], len(xa)), np.linspace(xb[0], xb[-1], len(xb))
            P = np.stack([g.ravel() for g in np.meshgrid(xa, xb)], axis=1)
            ua, ub = (interp(q, [cc[a], cc[b]], P).reshape(len(xb), len(xa)) for q in (ua, ub))
        ax.streamplot(xa, xb, ua, ub, color="w", linewidth=0.6, density=1.2, arrowsize=0.7)
    common.outline(ax, _outlines(ff, chi, axis, value, a, b)[0], color="c")
    _frame(ax, a, b)
    common.view_limits(ax, common.domain_box(ff, a, b), *_zoom(args))
    _title(ax, case, "adjoint velocity", ff, axis, value)
    fig.tight_layout()
    return fig, dict(values=mag, x=cc[a], y=cc[b], ua=ua, ub=ub, image=im)


def run(args):
    import matplotlib.pyplot as plt
    path, run_dir = gradient_path(args.run_dir, getattr(args, "iteration", None))
    common.formats(args)
    with common.FieldFile(path) as ff:
        for nm in ["shape_sensitivity", "dJ_dchi_x"]:
            if not ff.has(nm):
                raise PostprocError(f"{path}: no field '{nm}' (a gradient.h5 of `flowgrad adjoint` or an "
                                    "optimization/iter_NNNN.h5 of `flowgrad optimize`?)")
        adjoint = all(ff.has(nm) for nm in ["u_adj", "v_adj", "w_adj"][:ff.attrs["dim"]])
        case = ff.attrs["case_name"] or common.case_name(run_dir)
        print(f"gradient fields from {path}")
        chi, src = find_chi(ff, run_dir)
        print(f"body outline from {src}")
        sfx = ""
        if ff.attrs["dim"] == 3:
            axis, value = parse_slice(args.slice, ff)
            sfx = f"_{AXES[axis]}{value:g}"
        pictures = [("dJdchi", lambda: dJdchi_figure(args, ff, chi, case, args.slice)),
                    ("surface", lambda: surface_figure(args, ff, chi, case, args.slice, args.arrows))]
        if adjoint:
            pictures.append(("adjoint", lambda: adjoint_figure(args, ff, chi, case, args.slice)))
        else:
            print("no adjoint velocity in this file (an optimization's iteration): no sensitivity_adjoint picture")
        for stem, fn in pictures:
            fig, _ = fn()
            common.save(fig, args, run_dir, f"sensitivity_{stem}{sfx}")
            plt.close(fig)
    return 0
