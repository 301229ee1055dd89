"""postproc fields: velocity magnitude, vorticity and pressure at an output time, with the body
outline (3D: a slice through a plane, the mid z-plane by default).

What each picture shows (flowgrad's nondimensional units: lengths in L_ref, velocities in U_ref,
pressure in rho U_ref^2):
  speed      |u| / U = sqrt(velocity_x^2 + velocity_y^2 [+ velocity_z^2]) from the cell-centred
             velocity; in 3D the full magnitude (all three components), not the in-plane one
  vorticity  omega L / U, the component normal to the picture (2D: dv/dx - du/dy), computed from
             the face velocities u, v[, w] with the compact MAC stencil AT THE CELL CORNERS
             (the grid's edges in 3D) of the interior: (v[j,i+1]-v[j,i])/hx - (u[j+1,i]-u[j,i])/hy
             at (x0+(i+1)hx, y0+(j+1)hy); not interpolated to the cell centres; colours span
             +-(the 99.5th percentile of |omega|), the peaks at a body's surface saturate
  pressure   p / (rho U^2) as stored (the cell-centred p; defined up to a constant); a diverging
             map about 0
Colours: --vmin/--vmax fix the range (speed from 0, vorticity and pressure symmetric about 0 by
default); the colour bar has an arrow at each end the data pass. --all draws every output time
with one range per quantity over all of them. The axes reach the domain's walls; --xlim/--ylim
zoom.
The body outline is the design's surface phi = 0 (slices.body_outlines: the file's exact outline
points in 2D, the phi = 0 contour in a 3D plane; chi = 0.5 for files without phi).
In 3D the plane's values are linearly interpolated between the two nearest planes of elements.
Pictures: <out>/fields_<quantity>_<step>[_<axis><value>].<fmt>.
"""
import os

import numpy as np

from . import common
from .common import PostprocError
from .slices import (AXES, at_cells, body_outlines, cell_coords, parse_pair, parse_slice, plane, resolve_input,
                     vorticity_edges)

QUANTITIES = {
    "speed": ("speed", "|u| / U"),
    "vorticity": ("vorticity", "ω L / U"),
    "pressure": ("pressure", "p / (ρ U²)"),
}


def add_parser(sub):
    p = sub.add_parser("fields", help="velocity magnitude, vorticity, pressure (3D: a slice)",
                       description=__doc__.split("\n")[0], epilog="\n".join(__doc__.split("\n")[2:]),
                       formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    p.add_argument("run_dir", help="a flowgrad run directory (fields/fields_NNNNNN.h5) or a field .h5 file")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--time", type=float, help="the output nearest to this time")
    g.add_argument("--step", type=int, help="the output of this step")
    p.add_argument("--quantities", default="speed,vorticity,pressure",
                   help="comma-separated: speed, vorticity, pressure (default all three)")
    g.add_argument("--all", action="store_true",
                   help="every output time, all with one colour range per quantity (over all of them, "
                        "unless --vmin/--vmax fix it): frames of a movie")
    p.add_argument("--slice", help="3D: the plane, x=VALUE, y=VALUE or z=VALUE (default: the mid z-plane)")
    common.add_view_args(p)
    common.add_figure_args(p)


def quantity_plane(ff, quantity, axis=2, value=None):
    """(values (nb, na), coords along a, coords along b, in-plane axes (a, b)) of a quantity:
    2D the whole field, 3D the plane axis = value."""
    dim = ff.attrs["dim"]
    if quantity == "speed":
        comps = ["velocity_x", "velocity_y", "velocity_z"][:dim]
        vals = np.sqrt(sum(ff.array(c) ** 2 for c in comps))
        coords = cell_coords(ff)
    elif quantity == "vorticity":
        for c in ["u", "v", "w"][:dim]:
            ff.array(c)  # a clear error when missing
        vals, coords = vorticity_edges(ff, normal=axis if dim == 3 else 2)
    elif quantity == "pressure":
        vals = ff.array("p")
        coords = ff.coords("p")
    else:
        raise PostprocError(f"unknown quantity '{quantity}' (use {', '.join(QUANTITIES)})")
    if dim == 2:
        return vals, coords[0], coords[1], (0, 1)
    v2, (ca, cb) = plane(vals, coords, axis, value)
    a, b = [d for d in range(3) if d != axis]
    return v2, ca, cb, (a, b)


def chi_plane(ff, axis=2, value=None):
    if not ff.has("chi"):
        return None
    chi = at_cells(ff, "chi")
    if ff.attrs["dim"] == 2:
        return chi
    return plane(chi, cell_coords(ff), axis, value)[0]


def extent(ca, cb):
    ha = ca[1] - ca[0] if len(ca) > 1 else 1.0
    hb = cb[1] - cb[0] if len(cb) > 1 else 1.0
    return [ca[0] - ha / 2, ca[-1] + ha / 2, cb[0] - hb / 2, cb[-1] + hb / 2]


# colour maps: vorticity and pressure diverge about 0 (vorticity to the 99.5th percentile of |w|,
# the rest clipped: the shear layers at a body would wash out the wake); speed from 0
MAPS = {"speed": ("viridis", False, None), "vorticity": ("RdBu_r", True, 99.5), "pressure": ("RdBu_r", True, None)}


def quantity_range(quantity, vals, vmin=None, vmax=None):
    """The colour range of a quantity's values (--vmin/--vmax where given)."""
    cmap, symmetric, pct = MAPS[quantity]
    if quantity == "speed" and vmin is None:
        vmin = 0.0
    return common.color_range(vals, vmin, vmax, symmetric, pct)


def fields_figure(args, ff, quantity, axis=2, value=None, case="", xlim=None, ylim=None, vrange=None):
    """One picture of `quantity`; returns (fig, data) with data = {values, x, y, axes, chi, outlines,
    image}: the array drawn (values[j, i] at (x[i], y[j])) and the outlines drawn (body_outlines).
    vrange: the colour range (default: quantity_range of these values and --vmin/--vmax); the axes
    reach the domain's walls unless xlim/ylim zoom."""
    vals, ca, cb, (a, b) = quantity_plane(ff, quantity, axis, value)
    fig, ax = common.new_figure(args)
    lo, hi = vrange or quantity_range(quantity, vals, getattr(args, "vmin", None), getattr(args, "vmax", None))
    im = common.image(ax, vals, ca, cb, extent(ca, cb), aspect="equal", cmap=MAPS[quantity][0], vmin=lo, vmax=hi)
    label = QUANTITIES[quantity][1]
    if quantity == "vorticity" and ff.attrs["dim"] == 3:
        label = f"ω_{AXES[axis]} L / U"
    common.colorbar(fig, im, ax, label, vals)
    chi = chi_plane(ff, axis, value)
    lines, _ = body_outlines(ff, axis, value)
    common.outline(ax, lines)
    ax.set_xlabel(f"{AXES[a]} / L")
    ax.set_ylabel(f"{AXES[b]} / L")
    common.view_limits(ax, common.domain_box(ff, a, b), xlim, ylim)
    where = f", {AXES[axis]} = {value:g}" if ff.attrs["dim"] == 3 else ""
    ax.set_title(f"{case}: {quantity}, t = {ff.attrs['time']:.4g}{where}")
    fig.tight_layout()
    return fig, dict(values=vals, x=ca, y=cb, axes=(a, b), chi=chi, outlines=lines, image=im)


def base_dir(path):
    """The run directory of an input: itself, or the directory of a file (above fields/)."""
    if os.path.isdir(path):
        return path
    d = os.path.dirname(os.path.abspath(path))
    return os.path.dirname(d) if os.path.basename(d) == "fields" else d


def run(args):
    import matplotlib.pyplot as plt
    if getattr(args, "all", False):
        if os.path.isfile(args.run_dir):
            raise PostprocError("--all: give a run directory, not a file")
        paths = common.field_files(args.run_dir)
        if not paths:
            raise PostprocError(f"{args.run_dir}: no fields/fields_NNNNNN.h5 (a flowgrad run directory?)")
    else:
        paths = [resolve_input(args.run_dir, args.time, args.step)]
    run_dir = base_dir(args.run_dir)
    quantities = [q.strip() for q in args.quantities.split(",") if q.strip()]
    for q in quantities:
        if q not in QUANTITIES:
            raise PostprocError(f"--quantities: unknown quantity '{q}' (use {', '.join(QUANTITIES)})")
    if not quantities:
        raise PostprocError("--quantities: none given")
    xlim, ylim = parse_pair(args.xlim, "--xlim"), parse_pair(args.ylim, "--ylim")
    common.formats(args)
    common.color_range([0.0], args.vmin, args.vmax)  # an empty range is bad input before any picture
    ranges = {}
    if len(paths) > 1:  # one colour range per quantity over every time: the values of all of them
        for q in quantities:
            lo, hi = [], []
            for path in paths:
                with common.FieldFile(path) as ff:
                    axis, value = parse_slice(args.slice, ff) if ff.attrs["dim"] == 3 else (2, None)
                    r = quantity_range(q, quantity_plane(ff, q, axis, value)[0], args.vmin, args.vmax)
                lo.append(r[0])
                hi.append(r[1])
            ranges[q] = (min(lo), max(hi)) if not MAPS[q][1] else (-max(hi), max(hi))
            print(f"{q}: one colour range over {len(paths)} times: {ranges[q][0]:.6g} .. {ranges[q][1]:.6g}")
    for path in paths:
        with common.FieldFile(path) as ff:
            dim = ff.attrs["dim"]
            if dim == 2 and args.slice:
                raise PostprocError("--slice: the field is 2D")
            axis, value = parse_slice(args.slice, ff) if dim == 3 else (2, None)
            case = ff.attrs["case_name"] or common.case_name(run_dir)
            for q in quantities:
                fig, _ = fields_figure(args, ff, q, axis, value, case, xlim, ylim, ranges.get(q))
                stem = f"fields_{q}_{ff.attrs['step']:06d}"
                if dim == 3:
                    stem += f"_{AXES[axis]}{value:g}"
                common.save(fig, args, run_dir, stem)
                plt.close(fig)
    return 0
