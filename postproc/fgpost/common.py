"""What every subcommand shares: reading flowgrad's files, grid coordinates, figures.

Reading
  read_csv(path)              rows of a CSV (# comments skipped, rows cut short dropped) as dicts
  csv_columns(path)           {column: numpy array of floats} of the same
  FieldFile(path)             a field file (fields/*.h5, gradient.h5, optimization/iter_*.h5):
                              .names, .attrs (time, step, dim, cells, lengths, origin, spacing,
                              case_name), .array(name), .location(name), .coords(name) (the
                              coordinates of every element along x, y[, z], by its location)
  case_name(run_dir)          the case's name (case.resolved.yaml, else a field file, else the
                              directory name)
  field_files(run_dir)        fields/fields_NNNNNN.h5 sorted by step
  pick_field_file(run_dir, time=None, step=None)   the file at a chosen time (the nearest) or
                              step; the last one by default
Figures
  new_figure(args, ...)       a figure of the size asked for (--width/--height inches, --dpi)
  save(fig, args, stem)       write <out>/<stem>.<fmt> for every --format (png, svg, pdf);
                              returns the paths; closes nothing (tests read the figure)
  outline(ax, lines)          draws the bodies' outlines (slices.body_outlines: the surface phi = 0)
  add_figure_args(parser)     --out DIR, --format png[,svg,pdf], --dpi, --width, --height
Errors: PostprocError(message) -> the command prints "postproc: error: message", exits 2.
"""
import csv
import glob
import math
import os
import re

import numpy as np


class PostprocError(Exception):
    """Bad input (a missing file, a dataset not there, a bad option): exit 2 with the message."""


# --- files -----------------------------------------------------------------------------------
def read_csv(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(r for r in f if not r.startswith("#")))
    except FileNotFoundError:
        raise PostprocError(f"{path}: no such file")
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise PostprocError(f"{path}: cannot read it as CSV ({e})")
    return [r for r in rows if None not in r.values() and None not in r]


def csv_columns(path):
    rows = read_csv(path)
    if not rows:
        raise PostprocError(f"{path}: no data rows")
    cols = {}
    for k in rows[0]:
        vals = []
        for r in rows:
            try:
                vals.append(float(r[k]))
            except ValueError:
                vals.append(None)
        bad = [i for i, v in enumerate(vals) if v is None]
        if not bad:
            cols[k] = np.array(vals)
        elif len(bad) == len(vals):
            cols[k] = np.array([r[k] for r in rows])  # a text column (names)
        else:
            raise PostprocError(f"{path}: column {k}, data row {bad[0] + 1}: '{rows[bad[0]][k]}' is not a number")
    return cols


def _text(v):
    if isinstance(v, bytes):
        return v.decode("ascii", "replace").rstrip("\0")
    if isinstance(v, np.ndarray) and v.dtype.kind == "S":
        return v.tobytes().decode("ascii", "replace").rstrip("\0")
    return v


def _mix64(z):
    """SplitMix64's finalizer on an array of uint64 (wrapping arithmetic, as in src/io/checksum.c)."""
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def field_checksum(values):
    """The checksum flowgrad writes on a field dataset: the sum mod 2^64 over its values (file
    order) of mix(mix(index) ^ bits(value)), as 16 hex digits."""
    v = np.ascontiguousarray(values, dtype="<f8").ravel()
    with np.errstate(over="ignore"):
        t = _mix64(_mix64(np.arange(v.size, dtype=np.uint64)) ^ v.view(np.uint64))
        return "%016x" % int(t.sum(dtype=np.uint64))


def _fnv1a(h, data):
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def meta_checksum(time, step, case_hash, case_name):
    """The root's meta_checksum: FNV-1a of time (float64), step (int64), case_hash and case_name
    (each with its terminating zero), as 16 hex digits."""
    h = _fnv1a(14695981039346656037, np.float64(time).tobytes() + np.int64(step).tobytes())
    return "%016x" % _fnv1a(h, case_hash.encode() + b"\0" + case_name.encode() + b"\0")


class FieldFile:
    """A flowgrad field file, read with h5py (global arrays in natural order, see README.md,
    'HDF5 layout'). Arrays are numpy arrays shaped (ny, nx) in 2D, (nz, ny, nx) in 3D."""

    def __init__(self, path):
        import h5py
        self.path = path
        try:
            self._h = h5py.File(path, "r")
        except (OSError, FileNotFoundError) as e:
            raise PostprocError(f"{path}: cannot open as HDF5 ({e})")
        a = self._h.attrs
        try:
            self.attrs = {
                "time": float(a["time"]), "step": int(a["step"]), "dim": int(a["dim"]),
                "cells": [int(c) for c in a["cells"]], "lengths": [float(c) for c in a["lengths"]],
                "origin": [float(c) for c in a["origin"]], "spacing": [float(c) for c in a["spacing"]],
                "case_name": _text(a["case_name"]) if "case_name" in a else "",
            }
        except (KeyError, OSError, ValueError, TypeError) as e:
            raise PostprocError(f"{path}: not a readable flowgrad field file ({e})")
        if "meta_checksum" in a and "case_hash" in a:  # files since the checksums (docs/output.md, "Integrity")
            if _text(a["meta_checksum"]) != meta_checksum(self.attrs["time"], self.attrs["step"], _text(a["case_hash"]), self.attrs["case_name"]):
                raise PostprocError(f"{path}: not a readable flowgrad field file: its time, step, case_hash and case_name "
                                    f"do not match its meta_checksum (the file is damaged)")
        dim = self.attrs["dim"]
        at = self.attrs
        if dim not in (2, 3) or len(at["cells"]) < dim or len(at["spacing"]) < dim or len(at["origin"]) < dim:
            raise PostprocError(f"{path}: not a readable flowgrad field file (dim {dim}, cells {at['cells']})")
        for d in range(dim):  # a damaged or hand-made file: every later step divides by these
            if at["cells"][d] < 1 or not (np.isfinite(at["spacing"][d]) and at["spacing"][d] > 0) or not np.isfinite(at["origin"][d]):
                raise PostprocError(f"{path}: not a readable flowgrad field file: along {'xyz'[d]}, {at['cells'][d]} cells, "
                                    f"spacing {at['spacing'][d]:g}, origin {at['origin'][d]:g} (cells >= 1, spacing > 0 and finite)")
        want = tuple(at["cells"][:dim][::-1])
        self.names = []
        for k in self._h:
            d = self._h[k]
            if not (hasattr(d, "shape") and d.ndim == dim):
                continue
            if "location" in d.attrs and d.shape != want:  # a field (it has a location) of another shape
                raise PostprocError(f"{path}: field /{k} has shape {d.shape}, but the file's grid ({at['cells'][:dim]} cells) "
                                    f"needs {want}: the file is damaged")
            if d.shape == want:  # (a file written before the location attribute: by its shape)
                self.names.append(k)
        # a vector field (shape (..., 3), e.g. the cell-centred velocity): its components are
        # fields too, NAME_x, NAME_y[, NAME_z] (the names files before the vector used)
        self._comps = {}
        for k in list(self._h):
            d = self._h[k]
            if hasattr(d, "shape") and d.ndim == dim + 1 and d.shape[-1] == 3:
                for c in range(dim):
                    n = f"{k}_{'xyz'[c]}"
                    if n not in self.names:
                        self.names.append(n)
                        self._comps[n] = (k, c)

    def close(self):
        self._h.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def has(self, name):
        return name in self.names

    def array(self, name):
        if name not in self.names:
            raise PostprocError(f"{self.path}: no field '{name}' (fields: {', '.join(self.names)})")
        if name in self._comps:
            k, c = self._comps[name]
            return self._h[k][..., c]
        d = self._h[name]
        try:
            v = d[...]
        except (OSError, ValueError) as e:
            raise PostprocError(f"{self.path}: not a readable flowgrad field file: dataset /{name}: {e}")
        if "checksum" in d.attrs and _text(d.attrs["checksum"]) != field_checksum(v):
            raise PostprocError(f"{self.path}: not a readable flowgrad field file: dataset /{name} does not match "
                                f"its checksum (the file is damaged; a field rewritten on purpose needs its attribute "
                                f"'checksum' rewritten too: fgpost.common.field_checksum)")
        return v

    def axis(self, d):
        """(faces (n + 1, the lower boundary first), centres (n)) along direction d: the file's
        /x_faces, /x_centres (uniform and stretched grids), or from origin and spacing in a file
        written without them."""
        ax = "xyz"[d]
        if f"{ax}_faces" in self._h and f"{ax}_centres" in self._h:
            return np.asarray(self._h[f"{ax}_faces"][...], float), np.asarray(self._h[f"{ax}_centres"][...], float)
        x0, h, n = self.attrs["origin"][d], self.attrs["spacing"][d], self.attrs["cells"][d]
        return x0 + np.arange(n + 1) * h, x0 + (np.arange(n) + 0.5) * h

    def dataset(self, name):
        """A non-field dataset (e.g. gradient.h5's 'gradient', 'design_names')."""
        if name not in self._h:
            raise PostprocError(f"{self.path}: no dataset '{name}'")
        v = self._h[name][...]
        if v.dtype.kind == "S":
            return [_text(x) for x in v]
        return v

    def location(self, name):
        return _text(self._h[self._comps.get(name, (name,))[0]].attrs.get("location", b"cell"))

    def coords(self, name):
        """Coordinates of the elements of field `name` along x, y[, z] (1D arrays), from its
        location: x0 + (i + 1/2) h, or x0 + (i + 1) h along a face field's own direction."""
        loc = self.location(name)
        dim = self.attrs["dim"]
        shape = self._h[self._comps.get(name, (name,))[0]].shape[:dim][::-1]  # x first
        out = []
        for d in range(dim):
            ax = "xyz"[d]
            if f"{ax}_faces" in self._h:  # stretched grids too
                g = self._h
                c = g[f"{ax}_faces"][1:] if loc == "face_" + ax else g[f"{ax}_centres"][...]
                out.append(np.asarray(c[: shape[d]], dtype=float))
                continue
            x0, h = self.attrs["origin"][d], self.attrs["spacing"][d]
            shift = 1.0 if loc == "face_" + "xyz"[d] else 0.5
            out.append(x0 + (np.arange(shape[d]) + shift) * h)
        return out


def field_files(run_dir):
    files = glob.glob(os.path.join(run_dir, "fields", "fields_*.h5"))
    def step(f):
        m = re.search(r"fields_(\d+)\.h5$", f)
        return int(m.group(1)) if m else -1
    return sorted((f for f in files if step(f) >= 0), key=step)


def pick_field_file(run_dir, time=None, step=None):
    files = field_files(run_dir)
    if not files:
        raise PostprocError(f"{run_dir}: no fields/fields_NNNNNN.h5 (a flowgrad run directory?)")
    if step is not None:
        for f in files:
            if f.endswith(f"fields_{step:06d}.h5"):
                return f
        steps = [re.search(r"(\d+)\.h5$", f).group(1).lstrip("0") or "0" for f in files]
        raise PostprocError(f"{run_dir}: no field file at step {step} (steps: {', '.join(steps)})")
    if time is not None:
        if not math.isfinite(time):
            raise PostprocError(f"--time {time}: not a finite number")
        best, dist = None, math.inf
        for f in files:
            with FieldFile(f) as ff:
                d = abs(ff.attrs["time"] - time)
            if d < dist:
                best, dist = f, d
        return best
    return files[-1]


def case_name(run_dir):
    path = os.path.join(run_dir, "case.resolved.yaml")
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r"^name:\s*\"?([^\"#\n]*)\"?", line)
                if m and m.group(1).strip():
                    return m.group(1).strip()
    except OSError:
        pass
    files = field_files(run_dir)
    if files:
        with FieldFile(files[-1]) as ff:
            if ff.attrs["case_name"]:
                return ff.attrs["case_name"]
    return os.path.basename(os.path.abspath(run_dir))


# --- figures ---------------------------------------------------------------------------------
FORMATS = ("png", "svg", "pdf")


def add_figure_args(p, default_out=None):
    p.add_argument("--out", default=default_out,
                   help="directory for the pictures (default: a 'plots' directory in the run directory)")
    p.add_argument("--format", default="png",
                   help="comma-separated formats: png, svg, pdf (default png)")
    p.add_argument("--dpi", type=int, default=100, help="pixels per inch of the PNG (default 100)")
    p.add_argument("--width", type=float, default=8.0, help="figure width in inches (default 8)")
    p.add_argument("--height", type=float, default=5.0, help="figure height in inches (default 5)")


def add_view_args(p):
    """--vmin/--vmax (the colour range) and --xlim/--ylim (the zoom) of a field picture."""
    p.add_argument("--vmin", type=float, help="the lower end of the colour scale (values below it: an arrow on the colour bar)")
    p.add_argument("--vmax", type=float, help="the upper end of the colour scale (values above it: an arrow on the colour bar)")
    p.add_argument("--xlim", help="a,b: the horizontal range shown (default: the whole domain, wall to wall)")
    p.add_argument("--ylim", help="a,b: the vertical range shown (default: the whole domain, wall to wall)")


def color_range(vals, vmin=None, vmax=None, symmetric=False, percentile=None):
    """(vmin, vmax) of a colour scale: the given ends, else the data's (finite values; |v| up to its
    percentile when given); symmetric: -m .. m about 0 (a diverging map), where one end given sets
    m. PostprocError when vmin >= vmax."""
    v = np.asarray(vals, float)
    v = v[np.isfinite(v)]
    if symmetric:
        if vmin is None and vmax is None:
            m = float(np.percentile(np.abs(v), percentile)) if (percentile and v.size) else (float(np.abs(v).max()) if v.size else 1.0)
            m = m or (float(np.abs(v).max()) if v.size else 0.0) or 1.0
            lo, hi = -m, m
        else:
            lo = vmin if vmin is not None else -abs(vmax)
            hi = vmax if vmax is not None else abs(vmin)
    else:
        lo = vmin if vmin is not None else (float(v.min()) if v.size else 0.0)
        hi = vmax if vmax is not None else (float(v.max()) if v.size else 1.0)
        if lo == hi and vmin is None and vmax is None:
            lo, hi = lo - 0.5 * (abs(lo) or 1.0), hi + 0.5 * (abs(hi) or 1.0)
    if not lo < hi:
        raise PostprocError(f"--vmin {lo:g} --vmax {hi:g}: the colour range is empty (vmin must be below vmax)")
    return lo, hi


def extend_of(vals, lo, hi):
    """The colour bar's arrows: 'min', 'max', 'both' or 'neither', as the data go below lo / above hi."""
    v = np.asarray(vals, float)
    v = v[np.isfinite(v)]
    below, above = bool(v.size and v.min() < lo), bool(v.size and v.max() > hi)
    return "both" if below and above else "min" if below else "max" if above else "neither"


def colorbar(fig, im, ax, label, vals):
    """A colour bar with arrows at the ends the data pass (values clipped by the range)."""
    lo, hi = im.get_clim()
    return fig.colorbar(im, ax=ax, label=label, extend=extend_of(vals, lo, hi))


def view_limits(ax, box, xlim=None, ylim=None):
    """The axes' ranges: --xlim/--ylim, else the domain box ((a0, a1), (b0, b1)), wall to wall."""
    ax.set_xlim(*(xlim or box[0]))
    ax.set_ylim(*(ylim or box[1]))


def domain_box(ff, a, b):
    """((lo, hi) along axis a, (lo, hi) along axis b): the domain's walls, from the file."""
    o, L = ff.attrs["origin"], ff.attrs["lengths"]
    return (float(o[a]), float(o[a] + L[a])), (float(o[b]), float(o[b] + L[b]))


def formats(args):
    fmts = [f.strip().lower() for f in args.format.split(",") if f.strip()]
    bad = [f for f in fmts if f not in FORMATS]
    if bad or not fmts:
        raise PostprocError(f"--format {args.format}: use png, svg and/or pdf")
    return fmts


def new_figure(args, nrows=1, ncols=1, **kw):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if args.width <= 0 or args.height <= 0 or args.dpi <= 0:
        raise PostprocError("--width, --height and --dpi must be positive")
    return plt.subplots(nrows, ncols, figsize=(args.width, args.height), dpi=args.dpi, **kw)


def make_dir(d, opt="--out"):
    """mkdir -p d, or PostprocError naming the option when d is a file or cannot be made."""
    if os.path.exists(d) and not os.path.isdir(d):
        raise PostprocError(f"{opt} {d}: exists and is not a directory")
    try:
        os.makedirs(d, exist_ok=True)
    except OSError as e:
        raise PostprocError(f"{opt} {d}: cannot create it: {e.strerror}")
    return d


def out_dir(args, run_dir):
    return make_dir(args.out or os.path.join(run_dir, "plots"))


def save(fig, args, run_dir, stem):
    """Write the figure as <out>/<stem>.<fmt> for each --format (atomically); returns the paths."""
    d = out_dir(args, run_dir)
    paths = []
    for fmt in formats(args):
        path = os.path.join(d, f"{stem}.{fmt}")
        tmp = path + ".tmp." + fmt
        fig.savefig(tmp, dpi=args.dpi, format=fmt)
        os.replace(tmp, path)
        paths.append(path)
        print(f"wrote {path}")
    return paths


def _edges(c):
    """Cell edges around the points c: the midpoints, and the ends as far beyond as the midpoints
    next to them are inside."""
    c = np.asarray(c, dtype=float)
    if len(c) == 1:
        return np.array([c[0] - 0.5, c[0] + 0.5])
    mid = 0.5 * (c[1:] + c[:-1])
    return np.concatenate([[c[0] - (mid[0] - c[0])], mid, [c[-1] + (c[-1] - mid[-1])]])


def _uniform(c):
    return len(c) < 3 or np.allclose(np.diff(c), c[1] - c[0], rtol=1e-9, atol=0)


def image(ax, vals, ca, cb, extent, aspect=None, **kw):
    """vals[j, i] drawn as cells around (ca[i], cb[j]): an image (imshow with this extent) where
    both directions are uniform, else a mesh of quadrilaterals with the cells' true edges (an image
    would put a stretched grid's values at the wrong places)."""
    if _uniform(ca) and _uniform(cb):
        if aspect:
            kw["aspect"] = aspect
        return ax.imshow(vals, origin="lower", extent=extent, interpolation="nearest", **kw)
    im = ax.pcolormesh(_edges(ca), _edges(cb), vals, shading="flat", **kw)
    ax.set_aspect(aspect or "equal")
    return im


def outline(ax, lines, **kw):
    """Draws the bodies' outlines (slices.body_outlines: (k, 2) arrays in the plane's coordinates)
    as lines; returns the Line2D artists."""
    style = dict(color="k", linewidth=1.2)
    style.update(kw)
    return [ax.plot(ln[:, 0], ln[:, 1], **style)[0] for ln in (lines or [])]
