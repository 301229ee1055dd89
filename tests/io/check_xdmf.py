#!/usr/bin/python3
"""Check that an XDMF sidecar written by flowgrad matches its HDF5 field file.

Usage: /usr/bin/python3 check_xdmf.py [--self-test] FILE.xmf [FILE.xmf ...]

For each sidecar:
  - it is well-formed XML with root <Xdmf> and one <Domain>;
  - every DataItem with Format="HDF" names a file that exists relative to the .xmf (a relative
    path, a base name) and a dataset in it whose shape equals Dimensions and whose dtype matches
    NumberType/Precision;
  - every uniform grid is a 3DCoRectMesh (3DRectMesh when stretched), also in 2D: a 2D grid is
    one layer of cells in the XY plane (the cell grid's nodes at z = -hz/2, hz/2, hz the smallest
    cell width; the face grids' at z = 0), so ParaView shows x along X; its topology dimensions
    are the data dimensions + 1 for Center="Cell" attributes and equal to them for Center="Node";
    an attribute's Dimensions are its dataset's shape (2D: with a leading 1); a dataset of shape
    (..., 3) is AttributeType="Vector", any other "Scalar"; a Cell attribute's dataset has
    location "cell", a Node attribute's a face location, and all attributes of a grid share one;
  - the Geometry (ORIGIN_DXDYDZ, values slowest first; VXVYVZ when stretched) agrees with the
    file's origin, spacing and coordinates: the cell grid starts at the origin, a face grid at the
    first face centre (x0 + h along the face's direction, x0 + h/2 along the others);
  - <Time Value> equals the file's time attribute (its step where the collection says
    <Information Name="time_axis" Value="step"/>: an optimization's iterations); every field
    dataset of the file appears exactly once (the 1-D coordinates x_faces, x_centres, ... are
    the mesh, not attributes).
With --self-test it also checks itself: broken copies of each sidecar (wrong dimensions, origin,
file, dataset, precision, time, centring, a dataset left out, truncated XML) must each fail.
Exits 1 with a list of problems, 0 when all is well.
"""
import os
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET

import h5py
import numpy as np

DTYPES = {("Float", "8"): np.dtype("<f8"), ("Float", "4"): np.dtype("<f4"),
          ("Int", "4"): np.dtype("<i4"), ("Int", "8"): np.dtype("<i8")}


def text(attr):
    """An HDF5 string attribute as str."""
    return attr.decode() if isinstance(attr, bytes) else str(attr)


def floats(s):
    return [float(x) for x in s.split()]


def check(xmf):
    problems = []

    def fail(msg):
        problems.append(f"{xmf}: {msg}")

    base = os.path.dirname(os.path.abspath(xmf))
    try:
        root = ET.parse(xmf).getroot()
    except ET.ParseError as e:
        return [f"{xmf}: not well-formed XML: {e}"]
    if root.tag != "Xdmf" or root.get("Version") not in ("2.0", "3.0"):
        fail(f"root is <{root.tag} Version={root.get('Version')}>, want <Xdmf Version=2.0|3.0>")
    domains = root.findall("Domain")
    if len(domains) != 1:
        return problems + [f"{xmf}: {len(domains)} <Domain> elements"]

    # every HDF DataItem: file, dataset, shape, type
    files = {}
    for item in root.iter("DataItem"):
        if item.get("Format") != "HDF":
            continue
        ref = (item.text or "").strip()
        if ":" not in ref:
            fail(f"HDF DataItem text {ref!r} is not FILE:/DATASET")
            continue
        fname, dname = ref.split(":", 1)
        if os.path.isabs(fname) or "/" in fname:
            fail(f"{fname} is not a base name relative to the .xmf")
        path = os.path.join(base, fname)
        if not os.path.isfile(path):
            fail(f"{fname} (from {ref}) does not exist next to the .xmf")
            continue
        f = files.setdefault(path, h5py.File(path, "r"))
        if dname not in f or not isinstance(f[dname], h5py.Dataset):
            fail(f"{ref}: no such dataset")
            continue
        dims = tuple(int(x) for x in item.get("Dimensions", "").split())
        want = (1,) + f[dname].shape if int(f.attrs["dim"]) == 2 else f[dname].shape
        if dims != want:
            fail(f"{ref}: Dimensions {dims} but dataset shape {f[dname].shape} (want {want})")
        want = DTYPES.get((item.get("NumberType"), item.get("Precision")))
        if want is None or f[dname].dtype != want:
            fail(f"{ref}: NumberType={item.get('NumberType')} Precision={item.get('Precision')} but dtype {f[dname].dtype}")
    if len(files) != 1:
        fail(f"the sidecar refers to {len(files)} HDF5 files, want 1")
        return problems
    (h5path, h5), = files.items()
    dim = int(h5.attrs["dim"])
    origin = np.asarray(h5.attrs["origin"], dtype=float)[:dim]
    spacing = np.asarray(h5.attrs["spacing"], dtype=float)[:dim]
    cells = np.asarray(h5.attrs["cells"], dtype=int)[:dim]
    time = float(h5.attrs["time"])
    top_ = domains[0].find("Grid")
    if top_ is not None and any(i.get("Name") == "time_axis" and i.get("Value") == "step" for i in top_.findall("Information")):
        time = float(int(h5.attrs["step"]))  # an optimization's iterations: time = the iteration

    # the coordinates (/x_faces, /x_centres, ...): a stretched file's mesh is rectilinear
    coords, stretched = [], False
    for d in range(dim):
        ax = "xyz"[d]
        if f"{ax}_faces" not in h5 or f"{ax}_centres" not in h5:
            fail(f"no /{ax}_faces or /{ax}_centres")
            return problems
        xf, xc = np.asarray(h5[f"{ax}_faces"], float), np.asarray(h5[f"{ax}_centres"], float)
        coords.append((xf, xc))
        stretched = stretched or not np.allclose(np.diff(xf), spacing[d], rtol=1e-12, atol=0)
    hz = min(float(np.diff(c[0]).min()) for c in coords)  # a 2D grid's slab: its smallest cell

    # the grids
    seen = []
    uniform = [g for g in domains[0].iter("Grid") if g.get("GridType", "Uniform") == "Uniform"]
    if not uniform:
        fail("no uniform grid")
    for grid in uniform:
        gname = grid.get("Name")
        topo, geom = grid.find("Topology"), grid.find("Geometry")
        if topo is None or geom is None:
            fail(f"grid {gname}: no Topology or Geometry")
            continue
        mesh = "3DRectMesh" if stretched else "3DCoRectMesh"
        if topo.get("TopologyType") != mesh:
            fail(f"grid {gname}: TopologyType {topo.get('TopologyType')}, the {dim}D file wants {mesh}")
        tdims3 = tuple(int(x) for x in topo.get("Dimensions", "").split())
        if len(tdims3) != 3:
            fail(f"grid {gname}: topology Dimensions {tdims3}, want 3 numbers")
            continue
        tdims = tdims3[3 - dim:]  # the file's own directions (2D: the slab's z dropped)
        zslab = None  # 2D: the z coordinates of the grid's nodes
        if stretched:  # the coordinates per direction, x first (checked below, once the location is known)
            if geom.get("GeometryType") != "VXVYVZ":
                fail(f"grid {gname}: GeometryType {geom.get('GeometryType')}, want VXVYVZ")
            items = geom.findall("DataItem")
            if len(items) != 3 or any(i.get("Format") != "XML" for i in items):
                fail(f"grid {gname}: Geometry needs 3 XML DataItems (the x, y, z coordinates)")
                continue
            gcoords = [np.array(floats(i.text)) for i in items]
            if any(len(c) != int(i.get("Dimensions", "-1")) for c, i in zip(gcoords, items)):
                fail(f"grid {gname}: a coordinate DataItem's Dimensions is not its count of values")
            if dim == 2:
                zslab = gcoords[2]
            gcoords = gcoords[:dim]
        else:
            if geom.get("GeometryType") != "ORIGIN_DXDYDZ":
                fail(f"grid {gname}: GeometryType {geom.get('GeometryType')}, want ORIGIN_DXDYDZ")
            items = {i.get("Name"): i for i in geom.findall("DataItem")}
            if set(items) != {"Origin", "Spacing"} or any(i.get("Format") != "XML" or i.get("Dimensions") != "3" for i in items.values()):
                fail(f"grid {gname}: Geometry needs XML DataItems Origin and Spacing of 3 values")
                continue
            gorigin3 = np.array(floats(items["Origin"].text)[::-1])  # slowest first -> x y z
            gspacing3 = np.array(floats(items["Spacing"].text)[::-1])
            if dim == 2:
                zslab = gorigin3[2] + gspacing3[2] * np.arange(tdims3[0])
            gorigin, gspacing = gorigin3[:dim], gspacing3[:dim]
            if not np.allclose(gspacing, spacing, rtol=1e-14, atol=0):
                fail(f"grid {gname}: spacing {gspacing} (x y z), file {spacing}")
        t = grid.find("Time")
        if t is None or float(t.get("Value")) != time:
            fail(f"grid {gname}: Time {None if t is None else t.get('Value')}, file {time!r}")
        locations = set()
        for att in grid.findall("Attribute"):
            name, center = att.get("Name"), att.get("Center")
            ds = h5.get(name)
            vector = ds is not None and ds.ndim == dim + 1 and ds.shape[-1] == 3
            if ds is not None and att.get("AttributeType") != ("Vector" if vector else "Scalar"):
                fail(f"grid {gname}: attribute {name} of shape {ds.shape} has AttributeType {att.get('AttributeType')}")
            item = att.find("DataItem")
            ref = (item.text or "").strip() if item is not None else ""
            dname = ref.split(":", 1)[1] if ":" in ref else ""
            if dname.lstrip("/") != name:
                fail(f"grid {gname}: attribute {name} points at {ref}")
            if dname not in h5:
                continue
            seen.append(dname.lstrip("/"))
            shape = h5[dname].shape[:dim]
            loc = text(h5[dname].attrs.get("location", b"?"))
            locations.add(loc)
            if center == "Cell":
                if tdims != tuple(s + 1 for s in shape):
                    fail(f"grid {gname}: topology {tdims} for Cell data {shape} (want +1)")
                if loc != "cell":
                    fail(f"{ref}: Center=Cell but location {loc}")
            elif center == "Node":
                if tdims != shape:
                    fail(f"grid {gname}: topology {tdims} for Node data {shape} (want equal)")
                if loc not in ("face_x", "face_y", "face_z")[:dim]:
                    fail(f"{ref}: Center=Node but location {loc}")
            else:
                fail(f"{ref}: Center={center}")
        if len(locations) > 1:
            fail(f"grid {gname}: attributes of several locations {sorted(locations)}")
        loc = locations.pop() if locations else ("cell" if gname == "cell" else None)
        if loc is None:
            fail(f"grid {gname}: no attributes")
            continue
        if loc == "cell":
            want, wdims = origin, tuple(int(c) + 1 for c in cells[::-1])
        else:
            a = "xyz".index(loc[-1])
            want = origin + spacing * np.array([1.0 if d == a else 0.5 for d in range(dim)])
            wdims = tuple(int(c) for c in cells[::-1])
        if stretched:  # cell grids: the faces (n + 1 points); face grids: their faces along a, the centres elsewhere
            for d in range(dim):
                c = coords[d][0] if loc == "cell" else (coords[d][0][1:] if d == "xyz".index(loc[-1]) else coords[d][1])
                if len(gcoords[d]) != len(c) or not np.array_equal(gcoords[d], c):
                    fail(f"grid {gname} ({loc}): its {'xyz'[d]} coordinates are not the file's /{'xyz'[d]}_{'faces' if loc == 'cell' or d == 'xyz'.index(loc[-1]) else 'centres'}")
        elif not np.allclose(gorigin, want, rtol=1e-14, atol=1e-14):
            fail(f"grid {gname} ({loc}): origin {gorigin} (x y z), want {want}")
        if tdims != wdims:
            fail(f"grid {gname} ({loc}): topology {tdims}, the file's cells give {wdims}")
        if dim == 2:  # the slab: one layer of cells about z = 0, the face nodes at z = 0
            wz = np.array([-hz / 2, hz / 2]) if loc == "cell" else np.array([0.0])
            if zslab is None or len(zslab) != len(wz) or not np.allclose(zslab, wz, rtol=1e-12, atol=1e-300):
                fail(f"grid {gname} ({loc}): z nodes {zslab}, want {wz} (the 2D slab, hz = the smallest cell {hz:g})")
    for d in h5:
        if h5[d].ndim == 1 and d[0] in "xyz" and d[1:] in ("_faces", "_centres"):
            continue  # the grid's coordinates (the mesh's geometry, not a field)
        if seen.count(d) != 1:
            fail(f"dataset /{d} appears {seen.count(d)} times as an attribute")
    # the collection's time and name
    top = domains[0].find("Grid")
    t = top.find("Time") if top is not None else None
    if t is not None and float(t.get("Value")) != time:
        fail(f"collection Time {t.get('Value')}, file {time!r}")
    cname = text(h5.attrs["case_name"])
    if top is not None and top.get("GridType") == "Collection" and cname and top.get("Name") != cname:
        fail(f"collection Name {top.get('Name')!r}, case_name {cname!r}")
    for f in files.values():
        f.close()
    return problems


def self_test(xmf):
    """The checker must reject broken sidecars: mutate copies of xmf (next to a copy of its HDF5
    file, in a scratch directory) and expect each to fail."""
    src = ET.parse(xmf).getroot()
    h5name = next(i.text.strip().split(":", 1)[0] for i in src.iter("DataItem") if i.get("Format") == "HDF")

    def first(root, pred):
        return next(e for e in root.iter() if pred(e))

    def hdf_item(r):
        return first(r, lambda e: e.tag == "DataItem" and e.get("Format") == "HDF")

    def grid(r, name):
        return first(r, lambda e: e.tag == "Grid" and e.get("Name") == name)

    def origin(r, name):
        """the Origin item; of a rectilinear (stretched) mesh, its x coordinates"""
        g = grid(r, name).find("Geometry")
        items = g.findall("DataItem")
        return next((i for i in items if i.get("Name") == "Origin"), items[0])

    def m_dims(r):
        i = hdf_item(r)
        i.set("Dimensions", " ".join(i.get("Dimensions").split()[::-1]))

    def m_topo(r):
        t = grid(r, "cell").find("Topology")
        t.set("Dimensions", " ".join(str(int(x) - 1) for x in t.get("Dimensions").split()))

    def m_face_origin(r):
        origin(r, "face_x").text = origin(r, "cell").text

    def m_origin_order(r):
        o = origin(r, "cell")
        o.text = " ".join(o.text.split()[::-1])

    def m_file(r):
        i = hdf_item(r)
        i.text = "missing.h5:" + i.text.split(":", 1)[1]

    def m_dataset(r):
        i = hdf_item(r)
        i.text = i.text + "_missing"

    def m_precision(r):
        hdf_item(r).set("Precision", "4")

    def m_time(r):
        t = grid(r, "cell").find("Time")
        t.set("Value", repr(float(t.get("Value")) + 1.0))

    def m_center(r):
        first(grid(r, "face_x"), lambda e: e.tag == "Attribute").set("Center", "Cell")

    def m_drop(r):
        g = grid(r, "cell")
        g.remove(g.findall("Attribute")[-1])

    mutations = [m_dims, m_topo, m_face_origin, m_origin_order, m_file, m_dataset, m_precision,
                 m_time, m_center, m_drop]
    failures = []
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(xmf))) as tmp:
        shutil.copy(os.path.join(os.path.dirname(os.path.abspath(xmf)), h5name), tmp)
        for m in mutations + ["not xml"]:
            path = os.path.join(tmp, "mutant.xmf")
            if m == "not xml":
                with open(xmf) as f:
                    text_ = f.read()
                with open(path, "w") as f:
                    f.write(text_[: len(text_) // 2])
                name = "truncated XML"
            else:
                root = ET.parse(xmf).getroot()
                m(root)
                ET.ElementTree(root).write(path)
                name = m.__name__
            if not check(path):
                failures.append(f"{xmf}: self-test: the mutation {name} was not detected")
    print(f"{xmf}: self-test: {len(mutations) + 1 - len(failures)} of {len(mutations) + 1} mutations detected")
    return failures


def main(argv):
    args = argv[1:]
    selftest = "--self-test" in args
    args = [a for a in args if a != "--self-test"]
    if not args:
        print(__doc__)
        return 2
    problems = []
    for xmf in args:
        p = check(xmf)
        problems += p
        print(f"{xmf}: {'OK' if not p else 'FAILED'}")
        if selftest and not p:
            problems += self_test(xmf)
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
