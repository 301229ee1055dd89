"""flowgrad's outputs in the real ParaView: a run, a 3D run, a gradient and an optimization, each
opened as one time series where it is one (CTest io_paraview_outputs).

Usage: pvbatch --force-offscreen-rendering check_paraview_series.py RUN2D RUN3D ADJOINT OPTIMIZE
       xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" pvpython check_paraview_series.py --render RUN2D RUN3D ADJOINT OPTIMIZE
       (-noreset: Xvfb otherwise resets when VTK's OpenGL probe disconnects, and on a loaded
       machine ParaView's next connection can land in the reset: "bad X server connection")

For each of ParaView's XDMF readers (XDMFReader, Xdmf3ReaderS, Xdmf3ReaderT):
  RUN2D/fields/fields.xmf, RUN3D/fields/fields.xmf  one dataset with a time step per field file
      (the files' times); at every step every array's range equals the file's (h5py), the
      cell-centred velocity is one 3-component array, x lies along X and y along Y (2D: the
      cells in the XY plane, z within half a cell of 0); a Stream Tracer seeded in the domain
      follows the velocity (it returns lines) and a Glyph of it makes glyphs;
  ADJOINT/gradient.xmf                              the gradient fields, ranges as in the file;
  OPTIMIZE/optimization/iterations.xmf              one step per iteration file (time = the
      iteration), the ranges of chi and dJ_dchi_x at each.
With --render (pvpython with a display: Debian's ParaView crashes rendering offscreen), also as a
user of the GUI does: each output opened with OpenDataFile (the reader ParaView picks), shown as a
coloured surface in a render view with its default camera and rendered; the 2D run's picture is
the domain seen from +Z, its coloured footprint as wide and tall as x and y are long (a 2D grid in
the YZ plane shows a line), the 3D run's and the gradient's cover part of the picture, and the
animation scene has a time per field file.
The .xmf files are given by their full paths (Xdmf3 cannot open a bare file name: see
src/io/xdmf.c). Exit 1 with a list of problems.
"""
import glob
import os
import sys

import h5py
import numpy as np
from paraview import servermanager as sm
from paraview.simple import Glyph, StreamTracer, XDMFReader, Xdmf3ReaderS, Xdmf3ReaderT
from vtkmodules.numpy_interface import dataset_adapter as dsa

READERS = ("XDMFReader", "Xdmf3ReaderS", "Xdmf3ReaderT")
problems = []


def open_reader(name, xmf):
    if name == "XDMFReader":
        return XDMFReader(FileNames=[xmf])
    return {"Xdmf3ReaderS": Xdmf3ReaderS, "Xdmf3ReaderT": Xdmf3ReaderT}[name](FileName=[xmf])


def blocks(obj):
    it = obj.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        yield it.GetCurrentDataObject()
        it.GoToNextItem()


def arrays(obj):
    """{name: (values, bounds of its block)} of every leaf block's cell and point arrays."""
    out = {}
    for b in blocks(obj):
        w = dsa.WrapDataObject(b)
        for data in (w.CellData, w.PointData):
            for k in data.keys():
                out[k] = (np.asarray(data[k]), b.GetBounds())
    return out


def times_of(r):
    t = r.TimestepValues
    return [float(x) for x in t] if hasattr(t, "__len__") else [float(t)]


def check_step(tag, got, h5path, names=None):
    """Every field dataset of the file (or those named): present, same range; a vector (..., 3)
    as 3 components."""
    with h5py.File(h5path, "r") as h:
        dim = int(h.attrs["dim"])
        for k, ds in h.items():
            if not isinstance(ds, h5py.Dataset) or "location" not in ds.attrs or (names and k not in names):
                continue
            v = ds[...]
            if k not in got:
                problems.append(f"{tag}: no array {k}")
                continue
            a = got[k][0]
            if v.ndim == dim + 1:
                if a.ndim != 2 or a.shape[1] != 3:
                    problems.append(f"{tag}: {k} has shape {a.shape}, want a 3-component vector")
                    continue
                v = v.reshape(-1, 3)
            if a.shape != v.reshape(a.shape).shape or not np.array_equal(a, v.reshape(a.shape)):
                problems.append(f"{tag}: {k}: range {a.min():.6g} .. {a.max():.6g}, file {v.min():.6g} .. {v.max():.6g}")


def check_series(xmf, h5s, kind):
    """A time series: every reader sees a step per file at its time (iterations: the iteration)."""
    for rn in READERS:
        tag = f"{rn} {os.path.relpath(xmf)}"
        r = open_reader(rn, xmf)
        want = []
        for f in h5s:
            with h5py.File(f, "r") as h:
                want.append(float(h.attrs["step"]) if kind == "iterations" else float(h.attrs["time"]))
        got_t = times_of(r)
        if len(got_t) != len(want) or not np.allclose(got_t, want, rtol=1e-12, atol=0):
            problems.append(f"{tag}: times {got_t}, the files' {want}")
            continue
        for t, f in zip(want, h5s):
            r.UpdatePipeline(t)
            got = arrays(sm.Fetch(r))
            check_step(f"{tag} t={t:g}", got, f, None if kind != "iterations" else ("chi", "dJ_dchi_x"))
            if kind == "fields":
                with h5py.File(f, "r") as h:
                    dim, x0, L = int(h.attrs["dim"]), h.attrs["origin"], h.attrs["lengths"]
                    hmin = min(float(np.diff(h[f"{a}_faces"][...]).min()) for a in "xyz"[:dim])
                b = np.asarray(got["p"][1]).reshape(3, 2)
                want_b = np.array([[x0[d], x0[d] + L[d]] for d in range(dim)] + ([[-hmin / 2, hmin / 2]] if dim == 2 else []))
                if not np.allclose(b, want_b, rtol=1e-12, atol=1e-12):
                    problems.append(f"{tag} t={t:g}: the cells' bounds {b.tolist()}, want {want_b.tolist()} (x along X, y along Y)")
        print(f"{tag}: {len(want)} steps checked")


def npoints(obj):
    """The points of a filter's output: a dataset's, or the sum over a multiblock's leaves."""
    return sum(b.GetNumberOfPoints() for b in blocks(obj)) if obj.IsA("vtkMultiBlockDataSet") else obj.GetNumberOfPoints()


def check_filters(xmf):
    """Stream Tracer and Glyph work on the velocity vector as written."""
    r = Xdmf3ReaderS(FileName=[xmf])
    r.UpdatePipeline(times_of(r)[-1])
    st = StreamTracer(Input=r)  # the default seeds: a line across the domain
    st.Vectors = ["CELLS", "velocity"]
    st.UpdatePipeline(times_of(r)[-1])
    n = npoints(sm.Fetch(st))
    if n == 0:
        problems.append(f"{xmf}: Stream Tracer on 'velocity' returned no lines")
    g = Glyph(Input=r, GlyphType="Arrow")
    g.OrientationArray = ["CELLS", "velocity"]
    g.UpdatePipeline(times_of(r)[-1])
    m = npoints(sm.Fetch(g))
    if m == 0:
        problems.append(f"{xmf}: Glyph of 'velocity' made nothing")
    print(f"{os.path.relpath(xmf)}: Stream Tracer {n} points, Glyph {m} points")


def footprint(path, array):
    """Render PATH as the GUI does (OpenDataFile, Surface coloured by ARRAY, reset camera) and
    return (the picture's coloured pixels as a boolean image, the view, the reader)."""
    from paraview.simple import ColorBy, CreateView, GetAnimationScene, OpenDataFile, Render, ResetCamera, Show
    from vtkmodules.numpy_interface import dataset_adapter as dsa2
    from vtkmodules.vtkRenderingCore import vtkWindowToImageFilter
    r = OpenDataFile(path)
    GetAnimationScene().UpdateAnimationUsingDataTimeSteps()
    v = CreateView("RenderView")
    v.ViewSize = [400, 400]
    v.OrientationAxesVisibility = 0
    v.Background = [0, 0, 0]
    v.UseColorPaletteForBackground = 0
    d = Show(r, v)
    d.SetRepresentationType("Surface")
    ColorBy(d, ("CELLS", array))
    ResetCamera(v)
    Render(v)
    w2i = vtkWindowToImageFilter()
    w2i.SetInput(v.GetRenderWindow())
    w2i.ReadFrontBufferOff()
    w2i.Update()
    img = w2i.GetOutput()
    nx, ny, _ = img.GetDimensions()
    rgb = np.asarray(dsa2.WrapDataObject(img).PointData[0]).reshape(ny, nx, -1)[:, :, :3]
    return rgb.astype(int).sum(axis=2) > 30, v, r


def check_render(run2, run3, adj):
    """The outputs rendered as the GUI shows them (pvpython under Xvfb)."""
    from paraview.simple import GetTimeKeeper
    for run in (run2, run3):
        h5s = sorted(glob.glob(os.path.join(run, "fields", "fields_[0-9]*.h5")))
        with h5py.File(h5s[-1], "r") as h:
            dim, L = int(h.attrs["dim"]), [float(x) for x in h.attrs["lengths"]]
        on, v, r = footprint(os.path.join(run, "fields", "fields.xmf"), "p")
        tag = f"render {os.path.relpath(run)}"
        nt = len(GetTimeKeeper().TimestepValues)
        if nt != len(h5s):
            problems.append(f"{tag}: the animation has {nt} times, the run {len(h5s)} field files")
        frac = on.mean()
        if frac < 0.15:
            problems.append(f"{tag}: the data cover {100 * frac:.1f} % of the picture")
        if dim == 2:
            cam = np.asarray(v.CameraPosition) - np.asarray(v.CameraFocalPoint)
            rows, cols = np.nonzero(on.any(axis=1))[0], np.nonzero(on.any(axis=0))[0]
            aspect = (cols[-1] - cols[0] + 1) / (rows[-1] - rows[0] + 1)
            if abs(cam[0]) > 1e-9 * abs(cam[2]) or abs(cam[1]) > 1e-9 * abs(cam[2]) or cam[2] <= 0:
                problems.append(f"{tag}: the default camera looks along {cam.tolist()}, want -Z")
            if abs(aspect / (L[0] / L[1]) - 1) > 0.05:
                problems.append(f"{tag}: the picture is {aspect:.3f} as wide as tall, the domain {L[0] / L[1]:.3f}")
            print(f"{tag}: {nt} times, {100 * frac:.1f} % of the picture, aspect {aspect:.3f} (domain {L[0] / L[1]:.3f})")
        else:
            print(f"{tag}: {nt} times, {100 * frac:.1f} % of the picture")
        release(v, r)
    with h5py.File(os.path.join(adj, "gradient.h5"), "r") as h:
        name = next(k for k, ds in h.items() if isinstance(ds, h5py.Dataset) and ds.attrs.get("location", b"") in (b"cell", "cell"))
    on, v, r = footprint(os.path.join(adj, "gradient.xmf"), name)
    if on.mean() < 0.15:
        problems.append(f"render gradient.xmf: the data cover {100 * on.mean():.1f} % of the picture")
    print(f"render gradient.xmf ({name}): {100 * on.mean():.1f} % of the picture")
    release(v, r)


def release(v, r):
    """Close a rendered output (the time keeper then holds the next one's times only)."""
    from paraview.simple import Delete
    Delete(v)
    Delete(r)


def main(argv):
    render = "--render" in argv
    argv = [a for a in argv if a != "--render"]
    run2, run3, adj, opt = (os.path.abspath(a) for a in argv[1:5])
    if render:
        check_render(run2, run3, adj)
    for run in (run2, run3):
        h5s = sorted(glob.glob(os.path.join(run, "fields", "fields_[0-9]*.h5")))
        if len(h5s) < 2:
            problems.append(f"{run}: {len(h5s)} field files, want at least 2")
            continue
        check_series(os.path.join(run, "fields", "fields.xmf"), h5s, "fields")
        check_filters(os.path.join(run, "fields", "fields.xmf"))
    for rn in READERS:
        r = open_reader(rn, os.path.join(adj, "gradient.xmf"))
        r.UpdatePipeline()
        check_step(f"{rn} gradient.xmf", arrays(sm.Fetch(r)), os.path.join(adj, "gradient.h5"))
    its = sorted(glob.glob(os.path.join(opt, "optimization", "iter_[0-9]*.h5")))
    check_series(os.path.join(opt, "optimization", "iterations.xmf"), its, "iterations")
    for p in problems:
        print("FAIL:", p)
    print("PASS" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
