"""postproc extract: a field to CSV: all its values, a plane (a line in 2D), or a line profile.

  postproc extract RUN_DIR_OR_H5 --field NAME [--time T | --step N] --all -o OUT.csv
      columns i,j[,k],x,y[,z],value: every element at its own coordinates (FieldFile.coords: a
      face field at its faces), x fastest
  ... --slice z=VALUE -o OUT.csv
      columns x,y,z,value (2D: x,y,value): the plane (2D: the line) axis = VALUE at the field's own
      in-plane coordinates, linearly interpolated between the two nearest element planes
  ... --line x0,y0[,z0]:x1,y1[,z1] [--points N] -o OUT.csv
      columns s,x,y[,z],value: N equally spaced points (default 101) from the first point to the
      second, s the distance from the first; bilinear (2D) / trilinear (3D) interpolation between
      the field's own element coordinates, so that on a line through element positions the values
      are the file's exactly; between the outermost elements and the domain boundary the nearest
      element's value. Points outside the domain are an error.
RUN_DIR_OR_H5: a run directory (its fields at --time/--step, the last by default; an adjoint output
directory without fields/: its gradient.h5) or any field .h5 file. Numbers are written with 17
significant digits (exact doubles).
"""
import argparse
import csv
import os

import numpy as np

from . import common
from .common import PostprocError
from .slices import AXES, interp, parse_slice, plane, resolve_input


def add_parser(sub):
    p = sub.add_parser("extract", help="a field, a slice or a line profile to CSV",
                       description=__doc__.split("\n")[0], epilog="\n".join(__doc__.split("\n")[2:]),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run_dir", metavar="RUN_DIR_OR_H5", help="a run directory or a field .h5 file")
    p.add_argument("--field", required=True, help="the field's name (e.g. p, u, velocity_x, shape_sensitivity)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--time", type=float, help="the output nearest to this time")
    g.add_argument("--step", type=int, help="the output of this step")
    w = p.add_mutually_exclusive_group(required=True)
    w.add_argument("--line", help="x0,y0[,z0]:x1,y1[,z1]: a line profile")
    w.add_argument("--slice", help="x=VALUE, y=VALUE or z=VALUE: a plane (a line in 2D)")
    w.add_argument("--all", action="store_true", help="every value with its coordinates")
    p.add_argument("--points", type=int, default=101, help="points along --line (default 101)")
    p.add_argument("-o", "--output", required=True, help="the CSV file to write")


def parse_line(text, dim):
    try:
        a, b = text.split(":")
        p0 = np.array([float(x) for x in a.split(",")])
        p1 = np.array([float(x) for x in b.split(",")])
    except ValueError:
        raise PostprocError(f"--line {text}: use x0,y0{',z0' if dim == 3 else ''}:x1,y1{',z1' if dim == 3 else ''}")
    if len(p0) != dim or len(p1) != dim:
        raise PostprocError(f"--line {text}: a {dim}D field needs {dim} coordinates per point")
    if not (np.all(np.isfinite(p0)) and np.all(np.isfinite(p1))):
        raise PostprocError(f"--line {text}: the coordinates must be finite numbers")
    return p0, p1


def line_profile(ff, name, p0, p1, npts):
    """(s, points (N, dim), values) along the line p0 -> p1."""
    dim = ff.attrs["dim"]
    if npts < 2:
        raise PostprocError("--points: at least 2")
    lo = np.array(ff.attrs["origin"][:dim])
    hi = lo + np.array(ff.attrs["lengths"][:dim])
    tol = 1e-9 * np.max(hi - lo)
    for p in (p0, p1):
        if np.any(p < lo - tol) or np.any(p > hi + tol):
            raise PostprocError(f"line point {','.join(f'{x:g}' for x in p)} outside the domain "
                                f"[{', '.join(f'{a:g}..{b:g}' for a, b in zip(lo, hi))}]")
    t = np.linspace(0.0, 1.0, npts)
    pts = p0[None, :] + t[:, None] * (p1 - p0)[None, :]
    pts[-1] = p1
    s = t * np.linalg.norm(p1 - p0)
    vals = interp(ff.array(name), ff.coords(name), pts)
    return s, pts, vals


def all_values(ff, name):
    """(index columns, coordinate columns, values) of every element, x fastest."""
    arr = ff.array(name)
    coords = ff.coords(name)
    grids = np.meshgrid(*[np.arange(len(c)) for c in coords[::-1]], indexing="ij")  # k, j, i
    idx = [g.ravel() for g in grids[::-1]]  # i, j[, k]
    xyz = [coords[d][idx[d]] for d in range(len(coords))]
    return idx, xyz, arr.ravel()


def slice_values(ff, name, axis, value):
    """(coordinate columns x, y[, z], values) of the plane axis = value."""
    arr = ff.array(name)
    coords = ff.coords(name)
    vals, rest = plane(arr, coords, axis, value)
    dims = [d for d in range(ff.attrs["dim"]) if d != axis]
    if len(rest) == 1:
        cols = {dims[0]: rest[0]}
        flat = vals.ravel()
    else:
        B, A = np.meshgrid(rest[1], rest[0], indexing="ij")
        cols = {dims[0]: A.ravel(), dims[1]: B.ravel()}
        flat = vals.ravel()
    cols[axis] = np.full(flat.shape, float(value))
    return [cols[d] for d in range(ff.attrs["dim"])], flat


def write_csv(path, header, columns):
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise PostprocError(f"-o {path}: no directory {d}")
    if os.path.isdir(path):
        raise PostprocError(f"-o {path}: is a directory (give a file name)")
    tmp = path + ".tmp"
    try:
        with open(tmp, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            for row in zip(*columns):
                w.writerow([repr(int(v)) if isinstance(v, (np.integer, int)) else f"{float(v):.17g}" for v in row])
        os.replace(tmp, path)
    except OSError as e:
        raise PostprocError(f"-o {path}: cannot write: {e.strerror}")
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    print(f"wrote {path} ({len(columns[0])} rows)")


def run(args):
    path = resolve_input(args.run_dir, args.time, args.step, prefer="gradient.h5")
    with common.FieldFile(path) as ff:
        dim = ff.attrs["dim"]
        ff.array(args.field)  # error if missing
        names = list(AXES[:dim])
        if args.line:
            p0, p1 = parse_line(args.line, dim)
            s, pts, vals = line_profile(ff, args.field, p0, p1, args.points)
            write_csv(args.output, ["s"] + names + ["value"], [s] + [pts[:, d] for d in range(dim)] + [vals])
        elif args.slice:
            axis, value = parse_slice(args.slice, ff)
            xyz, vals = slice_values(ff, args.field, axis, value)
            write_csv(args.output, names + ["value"], xyz + [vals])
        else:
            idx, xyz, vals = all_values(ff, args.field)
            write_csv(args.output, list("ijk"[:dim]) + names + ["value"], idx + xyz + [vals])
    return 0
