"""Open flowgrad XDMF sidecars with ParaView's three XDMF readers and check what they produce.

Usage: pvbatch --force-offscreen-rendering check_paraview.py FILE.xmf [FILE.xmf ...]
(registered with CTest only where pvbatch and h5py are found).

For each reader (XDMFReader, Xdmf3ReaderS, Xdmf3ReaderT) and sidecar: every dataset of the HDF5
file arrives as one array of the same name, as cell data for location "cell" and point data for
the face locations, with values equal (==) to the file's in the file's order (x fastest); its
block spans the cells (x0 .. x0 + L) or the face centres, and every point of the block lies at
the file's coordinates (/x_faces, /x_centres, ...: the cells' corners, or the faces along the
field's direction and the centres along the others; uniform and stretched grids alike);
XDMFReader reports the file's time.

A 2D file is one layer of cells in the XY plane (flowgrad writes a 3D mesh, z in [-hz/2, hz/2]
for the cells, hz the smallest cell width, z = 0 for the face grids' nodes): x must lie along
ParaView's X and y along Y (a 2D XDMF mesh would land in the YZ plane). A vector dataset
(..., 3) arrives as one 3-component array. Paths are made absolute: Xdmf3 (ParaView 5.11)
resolves the HDF5 file against "name.xmf" itself when the .xmf is given without a directory.
"""
import os
import sys

import h5py
import numpy as np
from paraview import servermanager as sm
from paraview.simple import XDMFReader, Xdmf3ReaderS, Xdmf3ReaderT
from vtkmodules.numpy_interface import dataset_adapter as dsa


def text(attr):
    return attr.decode() if isinstance(attr, bytes) else str(attr)


def leaves(mb):
    """(block, name) of every leaf of a multiblock"""
    it = mb.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        yield it.GetCurrentDataObject()
        it.GoToNextItem()


def check(xmf, reader_name):
    problems = []
    xmf = os.path.abspath(xmf)
    with open(xmf) as f:
        h5name = f.read().split('Format="HDF">', 1)[1].split(":", 1)[0]
    h5 = h5py.File(os.path.join(os.path.dirname(xmf), h5name), "r")
    dim = int(h5.attrs["dim"])
    x0 = np.asarray(h5.attrs["origin"], float)[:dim]
    L = np.asarray(h5.attrs["lengths"], float)[:dim]
    if reader_name == "XDMFReader":
        r = XDMFReader(FileNames=[xmf])
    else:
        r = {"Xdmf3ReaderS": Xdmf3ReaderS, "Xdmf3ReaderT": Xdmf3ReaderT}[reader_name](FileName=[xmf])
    r.UpdatePipeline()
    out = sm.Fetch(r)
    arrays = {}
    for block in leaves(out):
        w = dsa.WrapDataObject(block)
        for assoc, data in (("cell", w.CellData), ("point", w.PointData)):
            for name in data.keys():
                arrays[name] = (assoc, np.asarray(data[name]), block.GetBounds(), block)
    coords = [(np.asarray(h5[f"{a}_faces"], float), np.asarray(h5[f"{a}_centres"], float)) for a in "xyz"[:dim]]
    for name, ds in h5.items():
        if ds.ndim == 1 and name[0] in "xyz" and name[1:] in ("_faces", "_centres"):
            continue  # the grid's coordinates: the mesh, checked through the points below
        loc = text(ds.attrs["location"])
        if name not in arrays:
            problems.append(f"{reader_name} {xmf}: no array {name}")
            continue
        assoc, values, bounds, block = arrays[name]
        want_assoc = "cell" if loc == "cell" else "point"
        if assoc != want_assoc:
            problems.append(f"{reader_name} {xmf}: {name} is {assoc} data, want {want_assoc}")
        data = ds[...].reshape(-1, 3) if ds.ndim == dim + 1 else ds[...].ravel()
        if values.shape != data.shape or not np.array_equal(values, data):
            problems.append(f"{reader_name} {xmf}: {name}: values differ from the file (shape {values.shape} vs {data.shape})")
        # the block's points: the file's faces (cell data: the cells' corners) or, for face data,
        # its faces along its own direction and the centres along the others (uniform or
        # stretched: the file's /x_faces, /x_centres, ...)
        if loc == "cell":
            axes = [c[0] for c in coords]
            if not np.allclose([a[0] for a in axes], x0) or not np.allclose([a[-1] for a in axes], x0 + L):
                problems.append(f"{xmf}: the file's faces do not span its origin .. origin + lengths")
        else:
            axes = [coords[d][0][1:] if d == "xyz".index(loc[-1]) else coords[d][1] for d in range(dim)]
        if dim == 2:  # the slab: two layers of nodes about z = 0 for the cells, one at 0 for faces
            hz = min(float(np.diff(c[0]).min()) for c in coords)
            axes = axes + [np.array([-hz / 2, hz / 2]) if loc == "cell" else np.array([0.0])]
        lo, hi = np.array([a[0] for a in axes]), np.array([a[-1] for a in axes])
        b = np.asarray(bounds).reshape(3, 2)
        if not (np.allclose(b[:, 0], lo) and np.allclose(b[:, 1], hi)):
            problems.append(f"{reader_name} {xmf}: {name}: bounds {b.tolist()}, want {lo} .. {hi} (x along X, y along Y)")
        # every point where ParaView puts it (x fastest)
        mesh = np.meshgrid(*axes[::-1], indexing="ij")
        want_pts = np.stack([m.ravel() for m in mesh[::-1]], axis=1)
        pts = np.array([block.GetPoint(i) for i in range(block.GetNumberOfPoints())])
        tol = 1e-12 * max(float(np.max(L)), 1.0)
        if pts.shape[0] != want_pts.shape[0]:
            problems.append(f"{reader_name} {xmf}: {name}: {pts.shape[0]} points, want {want_pts.shape[0]}")
        elif not np.allclose(pts, want_pts, rtol=0, atol=tol):
            problems.append(f"{reader_name} {xmf}: {name}: points differ from the file's coordinates by {np.abs(pts - want_pts).max():.3e}")
    if reader_name == "XDMFReader":
        times = list(r.TimestepValues) if hasattr(r.TimestepValues, "__len__") else [r.TimestepValues]
        if times != [float(h5.attrs["time"])]:
            problems.append(f"{reader_name} {xmf}: times {times}, file {float(h5.attrs['time'])}")
    h5.close()
    return problems


def main(argv):
    problems = []
    for xmf in argv[1:]:
        for reader_name in ("XDMFReader", "Xdmf3ReaderS", "Xdmf3ReaderT"):
            p = check(xmf, reader_name)
            print(f"{xmf} with {reader_name}: {'OK' if not p else 'FAILED'}")
            problems += p
    for p in problems:
        print("FAIL:", p)
    return 1 if problems or len(argv) < 2 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
