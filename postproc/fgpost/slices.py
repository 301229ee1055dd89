"""Helpers of fields, sensitivity and extract: interpolation on the MAC grid, planes of 3D
fields, cell-centre averages, the vorticity, option parsing. (Not a subcommand.)

  interp(arr, coords, pts)      multilinear interpolation (bilinear 2D, trilinear 3D) of an array
                                whose elements lie at the 1D coordinates `coords` (x, y[, z], e.g.
                                FieldFile.coords(name)) at points pts (N, dim), x first; beyond the
                                outermost elements the nearest element's value (constant extrapolation);
                                a point within 1e-9 cells of an element's coordinate gets its value exactly
  field_at(ff, name, pts)       interp of a field of a FieldFile at its own coordinates
  at_cells(ff, name)            a field at the cell centres (face fields interpolated: the mean of the
                                two faces of a cell; the first cell takes its upper face's value)
  plane(arr, coords, axis, v)   the plane axis = v of a 3D (or the line of a 2D) array, linearly
                                interpolated between the two nearest elements along `axis`
  vorticity_edges(ff, normal)   the vorticity component along `normal` on the MAC grid's edges
  body_outlines(ff, axis, v)    the bodies' surfaces {phi = 0} in a plane: (lines, source)
  parse_slice("z=1.5"), parse_pair("a,b"), resolve_input(path, time, step)
"""
import os

import numpy as np

from .common import FieldFile, PostprocError, field_files, pick_field_file

AXES = "xyz"


def np_axis(d, dim):
    """numpy axis of grid direction d (0 = x) in an array shaped (ny, nx) / (nz, ny, nx)."""
    return dim - 1 - d


def _locate(c, x):
    """(lower element index, fraction) of positions x among the increasing coordinates c (n >= 2):
    clipped to [c[0], c[-1]]; a position on an element (up to round-off) gets its value exactly.
    Uniform coordinates keep the arithmetic (x - c0) / h; stretched ones are bisected."""
    n = len(c)
    h = c[1] - c[0]
    if np.allclose(np.diff(c), h, rtol=1e-12, atol=0):
        f = np.clip((x - c[0]) / h, 0.0, n - 1)
        r = np.round(f)
        f = np.where(np.abs(f - r) < 1e-9, r, f)
        i0 = np.minimum(np.floor(f).astype(int), n - 2)
        return i0, f - i0
    xc = np.clip(x, c[0], c[-1])
    i0 = np.clip(np.searchsorted(c, xc, side="right") - 1, 0, n - 2)
    t = (xc - c[i0]) / (c[i0 + 1] - c[i0])
    t = np.where(np.abs(t) < 1e-9, 0.0, np.where(np.abs(t - 1) < 1e-9, 1.0, t))
    return i0, t


def interp(arr, coords, pts):
    arr = np.asarray(arr, dtype=float)
    dim = arr.ndim
    pts = np.atleast_2d(np.asarray(pts, dtype=float))
    if pts.shape[1] != dim:
        raise PostprocError(f"points need {dim} coordinates, got {pts.shape[1]}")
    lo, frac = [], []
    for d in range(dim):
        c = np.asarray(coords[d], dtype=float)
        n = len(c)
        if n == 1:
            lo.append(np.zeros(len(pts), dtype=int))
            frac.append(np.zeros(len(pts)))
            continue
        i0, t = _locate(c, pts[:, d])
        lo.append(i0)
        frac.append(t)
    out = np.zeros(len(pts))
    for corner in range(1 << dim):
        w = np.ones(len(pts))
        idx = []
        for d in range(dim):
            bit = (corner >> d) & 1
            n = arr.shape[np_axis(d, dim)]
            w = w * (frac[d] if bit else 1.0 - frac[d])
            idx.append(np.minimum(lo[d] + bit, n - 1))
        out += w * arr[tuple(idx[::-1])]
    return out


def field_at(ff, name, pts):
    return interp(ff.array(name), ff.coords(name), pts)


def cell_coords(ff):
    """The cell centres along x, y[, z] (stretched grids too: FieldFile.axis)."""
    return [ff.axis(d)[1] for d in range(ff.attrs["dim"])]


def cell_faces(ff):
    """The faces along x, y[, z] (n + 1 each, the lower boundary first)."""
    return [ff.axis(d)[0] for d in range(ff.attrs["dim"])]


def at_cells(ff, name):
    """The field at the cell centres: cell fields as they are; a face field along d is the mean of
    a cell's lower and upper faces (face i-1 and i), the first cell along d the upper face's
    value (the lower boundary face is not stored)."""
    arr = ff.array(name)
    loc = ff.location(name)
    if loc == "cell":
        return arr
    d = "xyz".index(loc[-1])
    ax = np_axis(d, arr.ndim)
    lower = np.concatenate([np.take(arr, [0], axis=ax), np.take(arr, np.arange(arr.shape[ax] - 1), axis=ax)], axis=ax)
    return 0.5 * (lower + arr)


def face_sum_at_cells(ff, names):
    """Sum over directions of face fields, each averaged to cell centres as 0.5 (f[i-1] + f[i])
    with the missing lower boundary face counted as 0: the chain rule for a cell value that enters
    its faces as their two-cell mean (used for dJ/dchi)."""
    total = None
    for name in names:
        arr = ff.array(name)
        d = "xyz".index(ff.location(name)[-1])
        ax = np_axis(d, arr.ndim)
        z = np.zeros_like(np.take(arr, [0], axis=ax))
        lower = np.concatenate([z, np.take(arr, np.arange(arr.shape[ax] - 1), axis=ax)], axis=ax)
        c = 0.5 * (lower + arr)
        total = c if total is None else total + c
    return total


def plane(arr, coords, axis, value):
    """(values, in-plane coords) of the plane `axis` = value: arrays shaped (nb, na) with the
    in-plane directions a < b (x,y for a z-plane; x,z for y; y,z for x), linear interpolation
    along `axis` between the two nearest elements (the nearest one beyond the outermost)."""
    dim = arr.ndim
    c = np.asarray(coords[axis])
    ax = np_axis(axis, dim)
    if len(c) == 1:
        vals = np.take(arr, 0, axis=ax)
    else:
        i0, t = _locate(c, np.array([value], dtype=float))
        i0, t = int(i0[0]), float(t[0])
        vals = (1 - t) * np.take(arr, i0, axis=ax) + t * np.take(arr, i0 + 1, axis=ax)
    rest = [coords[d] for d in range(dim) if d != axis]
    return vals, rest


def in_plane_axes(axis, dim):
    return [d for d in range(dim) if d != axis]


def vorticity_edges(ff, normal=2):
    """The vorticity component along direction `normal` (2D: normal = 2, omega = dv/dx - du/dy)
    from the face velocities, with the compact MAC stencil at the grid's edges (2D: the cell
    corners): omega_z[j, i] = (v[j, i+1] - v[j, i]) / (xc[i+1] - xc[i]) - (u[j+1, i] - u[j, i]) /
    (yc[j+1] - yc[j]) at (xf[i], yf[j]) for the interior corners (i < nx-1, j < ny-1) (uniform: h
    and x0 + (i+1) h); in 3D at the cell centres along the normal. Returns (omega, coords x, y[, z])."""
    dim = ff.attrs["dim"]
    names = ["u", "v", "w"]
    a, b = [d for d in range(3) if d != normal]
    if dim == 2 and normal != 2:
        raise PostprocError("2D: only the vorticity normal to the plane (z)")
    sign = -1.0 if normal == 1 else 1.0  # omega_y = du/dz - dw/dx
    va, vb = ff.array(names[a]), ff.array(names[b])
    xc, xf = cell_coords(ff), cell_faces(ff)
    axa, axb = np_axis(a, dim), np_axis(b, dim)

    def per(dx, d):  # 1/dx shaped to broadcast along array axis np_axis(d)
        shape = [1] * dim
        shape[np_axis(d, dim)] = len(dx)
        return (1.0 / dx).reshape(shape)

    # the differences of centre values across the interior faces, over the centres' distance
    dvb = np.diff(vb, axis=axa) * per(np.diff(xc[a]), a)
    dva = np.diff(va, axis=axb) * per(np.diff(xc[b]), b)
    dvb = np.take(dvb, np.arange(vb.shape[axb] - 1), axis=axb)
    dva = np.take(dva, np.arange(va.shape[axa] - 1), axis=axa)
    om = sign * (dvb - dva)
    coords = []
    for d in range(dim):
        coords.append(xf[d][1:-1] if d in (a, b) else xc[d])  # the interior faces; the centres
    return om, coords


def parse_slice(text, ff):
    """'z=1.5' -> (axis, value), checked against the domain; default (None): the mid z-plane."""
    a = ff.attrs
    if text is None:
        return 2, a["origin"][2] + 0.5 * a["lengths"][2]
    try:
        name, val = text.split("=")
        name = name.strip().lower()
        if len(name) != 1:
            raise ValueError(name)
        axis = AXES.index(name)
        value = float(val)
        if not np.isfinite(value):
            raise ValueError(val)
    except ValueError:
        raise PostprocError(f"--slice {text}: use x=VALUE, y=VALUE or z=VALUE")
    if axis >= a["dim"]:
        raise PostprocError(f"--slice {text}: a {a['dim']}D field has no {AXES[axis]} direction")
    lo, hi = a["origin"][axis], a["origin"][axis] + a["lengths"][axis]
    if not lo <= value <= hi:
        raise PostprocError(f"--slice {text}: outside the domain ({AXES[axis]} in [{lo:g}, {hi:g}])")
    return axis, value


def parse_pair(text, opt):
    if text is None:
        return None
    try:
        a, b = (float(x) for x in text.split(","))
        if not (np.isfinite(a) and np.isfinite(b)):
            raise ValueError(text)
    except ValueError:
        raise PostprocError(f"{opt} {text}: use two numbers, e.g. {opt} 0,4")
    if not a < b:
        raise PostprocError(f"{opt} {text}: the first number must be smaller")
    return a, b


def resolve_input(path, time=None, step=None, prefer=None):
    """A field file from a path: a .h5 file itself, or a run directory (its fields at --time/--step,
    the last one by default; without fields/, the directory's `prefer` file, e.g. gradient.h5)."""
    if not os.path.exists(path):
        raise PostprocError(f"{path}: no such run directory or file")
    if os.path.isfile(path):
        if time is not None or step is not None:
            raise PostprocError(f"{path}: --time/--step apply to a run directory, not to a file")
        return path
    if prefer and os.path.isfile(os.path.join(path, prefer)) and not field_files(path) \
            and time is None and step is None:
        return os.path.join(path, prefer)
    return pick_field_file(path, time=time, step=step)


def open_field(path):
    return FieldFile(path)


def seg_title_time(ff):
    return f"t = {ff.attrs['time']:.4g} (step {ff.attrs['step']})"


def contour_lines(z, x, y, level):
    """The level-`level` contour of z[j, i] at (x[i], y[j]): a list of (k, 2) arrays (contourpy,
    what matplotlib draws with; marching squares with linear interpolation)."""
    import contourpy
    if min(z.shape) < 2:
        return []
    gen = contourpy.contour_generator(np.asarray(x, float), np.asarray(y, float), np.asarray(z, float), line_type="Separate")
    return [ln for ln in gen.lines(level) if len(ln) >= 2]


def body_outlines(ff, axis=2, value=None):
    """The bodies' outlines in a plane of a field file (3D: the plane `axis` = value; 2D: the file's
    x-y plane): (lines, source), lines a list of (k, 2) arrays in the plane's coordinates, source
    one of "outline", "phi", "chi", or None without bodies. In order of preference:
      outline  the exact surface points /outline_<body> (2D; closed here by repeating the first)
      phi      the phi = 0 contour of the level set /phi (3D planes; a signed distance for circles,
               spheres and curves, so the contour is the surface to O(h^2 / radius))
      chi      the chi = 0.5 contour of the mask: files without phi (older ones, density bodies),
               which lies inside the surface by the mask's shift (0.75 cells by default)."""
    dim = ff.attrs["dim"]
    if dim == 2:
        names = sorted(k for k in ff._h if k.startswith("outline_") and ff._h[k].ndim == 1)
        if names:
            lines = []
            for k in names:
                xy = np.asarray(ff._h[k][...], float).reshape(-1, 2)
                lines.append(np.vstack([xy, xy[:1]]))
            return lines, "outline"
    for name, level in (("phi", 0.0), ("chi", 0.5)):
        if not ff.has(name):
            continue
        v = at_cells(ff, name)
        cc = cell_coords(ff)
        if dim == 3:
            if value is None:
                value = 0.5 * (cc[axis][0] + cc[axis][-1])
            v, (ca, cb) = plane(v, cc, axis, value)
        else:
            ca, cb = cc[0], cc[1]
        return contour_lines(v, ca, cb, level), name
    return [], None

