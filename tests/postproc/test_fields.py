#!/usr/bin/python3
"""Tests of postproc fields / sensitivity / extract (tests/postproc/fields.cmake).

  test_fields.py fields      RUN_DIR_2D RUN_DIR_3D TMP   pictures + plotted arrays vs the files
  test_fields.py vorticity   RUN_DIR_2D RUN_DIR_3D TMP   known fields: solid-body rotation, Taylor-Green
  test_fields.py sensitivity ADJ_DIR_2D ADJ_DIR_3D TMP   pictures, dJ/dchi and outline values vs the file
  test_fields.py view RUN_DIR_2D RUN_DIR_3D TMP         colour ranges, zoom, walls, --all
  test_fields.py sensitivity_iterations OPT_DIR - TMP   an optimization's iteration files
  test_fields.py extract     RUN_DIR_2D RUN_DIR_3D TMP   CSV equals the HDF5 data / an independent interpolation
  test_fields.py errors      RUN_DIR_2D ADJ_DIR_2D TMP   bad input exits 2 with a message
  test_fields.py stretched   RUN_DIR_STRETCHED - TMP     vorticity, picture, interpolation at the file's coordinates
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
POSTPROC = os.path.join(ROOT, "postproc", "postproc")
sys.path.insert(0, os.path.join(ROOT, "postproc"))
sys.path.insert(0, HERE)
from pngcheck import check_png  # noqa: E402
from fgpost import common, extract, fields, sensitivity  # noqa: E402

W, H, DPI = 6.0, 4.0, 50  # pictures of 300 x 200 pixels


def cli(*argv, rc=0):
    r = subprocess.run([sys.executable, POSTPROC, *argv], capture_output=True, text=True)
    if r.returncode != rc:
        raise AssertionError(f"postproc {' '.join(argv)}: exit {r.returncode}, expected {rc}\n{r.stdout}{r.stderr}")
    return r


def fig_args(out):
    return argparse.Namespace(out=out, format="png", dpi=DPI, width=W, height=H)


def last_fields(run):
    return common.field_files(run)[-1]


def read_csv(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0], np.array([[float(x) for x in r] for r in rows[1:]])


def rgi(arr, coords, pts):
    """An independent multilinear interpolation (scipy), coords x first, arr (.., y, x)."""
    from scipy.interpolate import RegularGridInterpolator
    f = RegularGridInterpolator(tuple(coords[::-1]), arr)
    return f(np.asarray(pts)[:, ::-1])


def dJdchi_at_cells(gx, gy):
    """dJ/dchi at the cell centres from its 2D face components, independently of postproc: each
    face value shared by its two cells (the lower boundary face is not stored: 0)."""
    exp = gx / 2 + gy / 2
    exp[:, 1:] += gx[:, :-1] / 2
    exp[1:, :] += gy[:-1, :] / 2
    return exp


def cell_speed(h, dim):
    """|u| at the cell centres of an open field file: the vector 'velocity' (..., 3) (its third
    component 0 in 2D), or the components velocity_x.. of files written before it."""
    if "velocity" in h:
        v = h["velocity"][...]
        assert v.shape[-1] == 3 and v.ndim == dim + 1, f"velocity has shape {v.shape}"
        if dim == 2:
            assert not np.any(v[..., 2]), "a 2D velocity's third component is not 0"
        return np.sqrt(np.sum(v ** 2, axis=-1))
    return np.sqrt(sum(h[f"velocity_{c}"][...] ** 2 for c in "xyz"[:dim]))


def pngs(out, names):
    for n in names:
        check_png(os.path.join(out, n), int(W * DPI), int(H * DPI))


def test_fields(run2, run3, tmp):
    import matplotlib.pyplot as plt
    out = os.path.join(tmp, "fields2d")
    cli("fields", run2, "--out", out, "--dpi", str(DPI), "--width", str(W), "--height", str(H), "--xlim", "5,20")
    f2 = last_fields(run2)
    with h5py.File(f2) as h:
        step = int(h.attrs["step"])
        speed = cell_speed(h, 2)
        p = h["p"][...]
    pngs(out, [f"fields_{q}_{step:06d}.png" for q in ("speed", "vorticity", "pressure")])
    with common.FieldFile(f2) as ff:
        fig, d = fields.fields_figure(fig_args(out), ff, "speed", case="c")
        assert np.array_equal(np.asarray(d["image"].get_array()), speed), "2D speed image != speed from the file"
        assert d["image"].get_extent() == [0.0, 32.0, 0.0, 40.0] or np.allclose(d["image"].get_extent(), [0, 32, 0, 40])
        plt.close(fig)
        fig, d = fields.fields_figure(fig_args(out), ff, "pressure", case="c")
        assert np.array_equal(np.asarray(d["image"].get_array()), p)
        plt.close(fig)
    print("ok: 2D speed and pressure images equal the file's arrays")
    out = os.path.join(tmp, "fields3d")
    cli("fields", run3, "--out", out, "--dpi", str(DPI), "--width", str(W), "--height", str(H))
    f3 = last_fields(run3)
    with h5py.File(f3) as h:
        step = int(h.attrs["step"])
        nz = int(h.attrs["cells"][2])
        sp = cell_speed(h, 3)
        zmid = h.attrs["origin"][2] + h.attrs["lengths"][2] / 2
    pngs(out, [f"fields_{q}_{step:06d}_z{zmid:g}.png" for q in ("speed", "vorticity", "pressure")])
    mid = 0.5 * (sp[nz // 2 - 1] + sp[nz // 2]) if nz % 2 == 0 else sp[nz // 2]
    with common.FieldFile(f3) as ff:
        fig, d = fields.fields_figure(fig_args(out), ff, "speed", 2, zmid, case="c")
        err = np.max(np.abs(np.asarray(d["image"].get_array()) - mid))
        assert err < 1e-14, f"3D mid-plane speed differs by {err}"
        plt.close(fig)
    print(f"ok: 3D mid-plane speed image equals the file's speed (max diff {err:.1e})")


def write_velocity(src, dst, fn):
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as h:
        dim = int(h.attrs["dim"])
        for c, name in enumerate("uvw"[:dim]):
            coords = []
            for d in range(dim):  # the file's coordinates: a face field's faces along c, centres elsewhere
                ax = "xyz"[d]
                coords.append(h[ax + "_faces"][1:] if d == c else h[ax + "_centres"][...])
            grids = np.meshgrid(*coords[::-1], indexing="ij")[::-1]  # x, y[, z] arrays shaped (.., y, x)
            h[name][...] = fn(c, *grids)
            h[name].attrs["checksum"] = common.field_checksum(h[name][...])  # an edited field: its new checksum


def test_vorticity(run2, run3, tmp):
    from fgpost.slices import vorticity_edges
    os.makedirs(tmp, exist_ok=True)
    f2 = os.path.join(tmp, "rot2d.h5")
    om = 0.7
    write_velocity(last_fields(run2), f2, lambda c, x, y: -om * (y - 20) if c == 0 else om * (x - 16))
    with common.FieldFile(f2) as ff:
        w, _ = vorticity_edges(ff)
    err = np.max(np.abs(w - 2 * om))
    assert err < 1e-12, f"solid-body rotation: vorticity error {err}"
    print(f"ok: 2D solid-body rotation, omega = 2 Omega = {2 * om}, max error {err:.1e}")
    k = 2 * np.pi / 8
    f2 = os.path.join(tmp, "tg2d.h5")
    write_velocity(last_fields(run2), f2, lambda c, x, y: np.sin(k * x) * np.cos(k * y) if c == 0
                   else -np.cos(k * x) * np.sin(k * y))
    with common.FieldFile(f2) as ff:
        w, (xc, yc) = vorticity_edges(ff)
        hx = ff.attrs["spacing"][0]
        fig, d = fields.fields_figure(fig_args(tmp), ff, "vorticity", case="tg")
        assert np.array_equal(np.asarray(d["image"].get_array()), w)
    X, Y = np.meshgrid(xc, yc)
    exact = 2 * k * np.sin(k * X) * np.sin(k * Y)
    err = np.max(np.abs(w - exact)) / (2 * k)
    bound = (k * hx) ** 2 / 12  # the centred difference's leading error, relative
    assert err <= 1.01 * bound, f"Taylor-Green: relative vorticity error {err:.2e} > (k h)^2/12 = {bound:.2e}"
    print(f"ok: Taylor-Green vortex (k h = {k * hx:.3f}): max relative vorticity error at the corners "
          f"{err:.2e} <= (k h)^2/12 = {bound:.2e}")
    f3 = os.path.join(tmp, "rot3d.h5")
    write_velocity(last_fields(run3), f3, lambda c, x, y, z: [-om * (y - 1.5), om * (x - 2), 0 * z][c])
    with common.FieldFile(f3) as ff:
        fig, d = fields.fields_figure(fig_args(tmp), ff, "vorticity", 2, 1.5, case="r")
        assert np.max(np.abs(d["values"] - 2 * om)) < 1e-12
        fig, d = fields.fields_figure(fig_args(tmp), ff, "vorticity", 0, 2.0, case="r")
        assert np.max(np.abs(d["values"])) < 1e-12
    write_velocity(last_fields(run3), f3, lambda c, x, y, z: [0 * x, -om * (z - 1.5), om * (y - 1.5)][c])
    with common.FieldFile(f3) as ff:
        fig, d = fields.fields_figure(fig_args(tmp), ff, "vorticity", 0, 2.0, case="r")
        assert np.max(np.abs(d["values"] - 2 * om)) < 1e-12
        fig, d = fields.fields_figure(fig_args(tmp), ff, "vorticity", 1, 1.5, case="r")
        assert np.max(np.abs(d["values"])) < 1e-12
    # about y: u = Omega (z - zc), w = -Omega (x - xc): omega_y = du/dz - dw/dx = +2 Omega (its sign)
    write_velocity(last_fields(run3), f3, lambda c, x, y, z: [om * (z - 1.5), 0 * y, -om * (x - 2)][c])
    with common.FieldFile(f3) as ff:
        fig, d = fields.fields_figure(fig_args(tmp), ff, "vorticity", 1, 1.5, case="r")
        assert np.max(np.abs(d["values"] - 2 * om)) < 1e-12, "omega_y: wrong value or sign"
        fig, d = fields.fields_figure(fig_args(tmp), ff, "vorticity", 2, 1.5, case="r")
        assert np.max(np.abs(d["values"])) < 1e-12
    print("ok: 3D solid-body rotations about z, x and y: omega_z, omega_x, omega_y = 2 Omega on their planes")


def test_sensitivity(adj2, adj3, tmp):
    import matplotlib.pyplot as plt
    from fgpost.slices import cell_coords
    for adj, sfx in ((adj2, ""), (adj3, "_z1.5")):
        out = os.path.join(tmp, "sens" + sfx)
        cli("sensitivity", adj, "--out", out, "--dpi", str(DPI), "--width", str(W), "--height", str(H))
        pngs(out, [f"sensitivity_{s}{sfx}.png" for s in ("dJdchi", "surface", "adjoint")])
    g = os.path.join(adj2, "gradient.h5")
    with h5py.File(g) as h:
        gx, gy, s = h["dJ_dchi_x"][...], h["dJ_dchi_y"][...], h["shape_sensitivity"][...]
        ua, va = h["u_adj"][...], h["v_adj"][...]
    exp = dJdchi_at_cells(gx, gy)
    with common.FieldFile(g) as ff:
        chi, src = sensitivity.find_chi(ff, adj2)
        fig, d = sensitivity.dJdchi_figure(fig_args(tmp), ff, chi, "c")
        assert np.allclose(d["values"], exp, rtol=0, atol=1e-15 * np.abs(exp).max())
        lo, hi = d["image"].get_clim()
        assert lo == -hi and np.isclose(hi, np.abs(exp).max(), rtol=1e-14), "dJ/dchi colours not symmetric about 0"
        plt.close(fig)
        fig, d = sensitivity.surface_figure(fig_args(tmp), ff, chi, "c")
        cc = cell_coords(ff)
        # independently: scipy's bilinear samples of shape_sensitivity along each normal, across
        # the band (+- BAND_CELLS cells), times the area factor 1 + kappa t, integrated with the
        # trapezoid rule
        hb = sensitivity.BAND_CELLS * max(ff.attrs["spacing"][:2])
        tau = np.linspace(-hb, hb, 8 * sensitivity.BAND_CELLS + 1)
        kap = d["curvature"]
        ref = np.trapz(np.stack([rgi(s, cc, d["points"] + t * d["normals"]) * (1 + kap * t) for t in tau], axis=1), tau, axis=1)
        assert len(ref) > 10
        err = np.max(np.abs(d["values"] - ref))
        assert err <= 1e-12 * np.abs(ref).max(), f"outline values differ from the band integral by {err}"
        # the surface density integrates along the outline to the total of shape_sensitivity
        # (dJ per unit displacement of the whole surface), to the outline's discretization
        pts = d["points"]
        seg = np.linalg.norm(np.diff(np.vstack([pts, pts[:1]]), axis=0), axis=1)
        line = float(np.sum(0.5 * (d["values"] + np.roll(d["values"], -1)) * seg))
        area = float(s.sum() * ff.attrs["spacing"][0] * ff.attrs["spacing"][1])
        rel = abs(line - area) / abs(area)
        print(f"outline integral {line:.6g}, area integral of shape_sensitivity {area:.6g} (relative {rel:.2e})")
        # (with the area factor 1 + kappa t the line carrying the values does not matter: 2.7e-4
        # measured on the surface phi = 0; 10 % bound before that factor)
        assert rel < 0.01, f"the outline integral {line} is not the area integral {area}"
        # the outline lies in the mask band (where shape_sensitivity lives); its normals point outward
        c = d["points"].mean(axis=0)
        r = d["points"] - c
        assert np.all(np.sum(r * d["normals"], axis=1) > 0), "normals not outward"
        # the outline is the cylinder's surface (gradient.h5's outline points) and its curvature
        # 1/radius (the divergence of grad phi / |grad phi| by central differences, 4 cells per radius)
        rad = np.linalg.norm(r, axis=1)
        assert np.ptp(rad) <= 1e-6 * rad.mean(), f"outline radius {rad.min()}..{rad.max()}: not the circle's points"
        assert np.max(np.abs(kap * rad - 1)) < 0.1, f"curvature x radius {kap.min() * rad.mean():.3f}..{kap.max() * rad.mean():.3f}, not 1"
        plt.close(fig)
        fig, d = sensitivity.adjoint_figure(fig_args(tmp), ff, chi, "c")
        uc = np.concatenate([ua[:, :1], 0.5 * (ua[:, :-1] + ua[:, 1:])], axis=1)
        vc = np.concatenate([va[:1, :], 0.5 * (va[:-1, :] + va[1:, :])], axis=0)
        assert np.allclose(d["values"], np.hypot(uc, vc), rtol=1e-14, atol=0)
        plt.close(fig)
    print(f"ok: dJ/dchi and |u_adj| images equal the file's (cell averages); {len(ref)} outline points "
          f"(chi from {src}), values = band integrals of shape_sensitivity (max diff {err:.1e}), "
          f"max |value| {np.abs(ref).max():.4g}")


def test_sensitivity_iterations(opt, _unused, tmp):
    """postproc sensitivity on an optimization: its last iteration by default, --iteration N, the
    dJ/dchi image equal to the iteration file's cell averages, no adjoint picture; a missing
    iteration exits 2 naming the ones written."""
    import glob
    import matplotlib.pyplot as plt
    its = sorted(glob.glob(os.path.join(opt, "optimization", "iter_[0-9][0-9][0-9][0-9].h5")))
    assert len(its) >= 2, f"{opt}: the optimization fixture has {len(its)} iteration files"
    for it, extra in ((its[-1], []), (its[0], ["--iteration", "0"])):
        out = os.path.join(tmp, os.path.basename(it)[:-3])
        r = cli("sensitivity", opt, *extra, "--out", out, "--dpi", str(DPI), "--width", str(W), "--height", str(H))
        assert f"gradient fields from {it}" in r.stdout, f"not drawn from {it}:\n{r.stdout}"
        pngs(out, ["sensitivity_dJdchi.png", "sensitivity_surface.png"])
        assert sorted(os.listdir(out)) == ["sensitivity_dJdchi.png", "sensitivity_surface.png"], os.listdir(out)
        assert "no adjoint velocity" in r.stdout
        with h5py.File(it) as h:
            gx, gy = h["dJ_dchi_x"][...], h["dJ_dchi_y"][...]
        exp = dJdchi_at_cells(gx, gy)
        with common.FieldFile(it) as ff:
            chi, src = sensitivity.find_chi(ff, opt)
            assert src == it, f"the outline's chi comes from {src}, not the iteration file"
            fig, d = sensitivity.dJdchi_figure(fig_args(tmp), ff, chi, "c")
            assert np.allclose(d["values"], exp, rtol=0, atol=1e-15 * np.abs(exp).max())
            plt.close(fig)
            fig, d = sensitivity.surface_figure(fig_args(tmp), ff, chi, "c")
            assert len(d["values"]) > 10 and np.any(d["values"] != 0), "no surface sensitivity drawn"
            plt.close(fig)
    r = cli("sensitivity", opt, "--iteration", "9999", "--out", os.path.join(tmp, "bad"), rc=2)
    assert "--iteration 9999: no optimization/iter_9999.h5" in r.stderr + r.stdout, r.stderr
    print(f"ok: an optimization's iterations drawn ({os.path.basename(its[-1])} by default, iter_0000 with "
          "--iteration 0), dJ/dchi = the file's cell averages; a missing iteration: exit 2")


def test_view(run2, run3, tmp):
    """--vmin/--vmax, --xlim/--ylim, the colour bar's arrows, diverging maps about 0, axes wall to
    wall, --all with one range over every time; the same options in sensitivity."""
    import matplotlib.pyplot as plt
    from fgpost import fields as fmod
    f2 = last_fields(run2)
    with common.FieldFile(f2) as ff:
        L, o = ff.attrs["lengths"], ff.attrs["origin"]
        # defaults: the axes reach the walls; pressure and vorticity symmetric about 0
        for q in ("speed", "vorticity", "pressure"):
            fig, d = fmod.fields_figure(fig_args(tmp), ff, q)
            ax = fig.axes[0]
            assert ax.get_xlim() == (o[0], o[0] + L[0]) and ax.get_ylim() == (o[1], o[1] + L[1]), \
                f"{q}: axes {ax.get_xlim()} {ax.get_ylim()} do not reach the walls"
            lo, hi = d["image"].get_clim()
            if q == "speed":
                assert lo == 0 and hi == np.nanmax(d["values"]), f"speed range {lo}..{hi}"
            else:
                assert lo == -hi and hi > 0, f"{q}: range {lo}..{hi} not symmetric about 0"
            want = "both" if q == "vorticity" else "neither"  # vorticity: to the 99.5th percentile
            assert d["image"].colorbar.extend == want, f"{q}: colour bar arrows {d['image'].colorbar.extend}, want {want}"
            plt.close(fig)
        # --vmin/--vmax and --xlim/--ylim: the range and zoom asked for, arrows where data are cut
        a = fig_args(tmp)
        a.vmin, a.vmax = -0.05, 0.02
        fig, d = fmod.fields_figure(a, ff, "pressure", xlim=(8, 14), ylim=(17, 23))
        assert d["image"].get_clim() == (-0.05, 0.02)
        assert fig.axes[0].get_xlim() == (8, 14) and fig.axes[0].get_ylim() == (17, 23)
        p = d["values"]
        want = common.extend_of(p, -0.05, 0.02)
        assert want != "neither" and d["image"].colorbar.extend == want, \
            f"the range cuts p ({p.min():.3g}..{p.max():.3g}): arrows {d['image'].colorbar.extend}, want {want}"
        plt.close(fig)
    out = os.path.join(tmp, "view2")
    cli("fields", run2, "--quantities", "pressure", "--vmin", "-0.05", "--vmax", "0.02", "--xlim", "8,14",
        "--ylim", "17,23", "--out", out, "--dpi", str(DPI), "--width", str(W), "--height", str(H))
    pngs(out, [os.path.basename(f2).replace("fields_", "fields_pressure_").replace(".h5", ".png")])
    r = cli("fields", run2, "--vmin", "1", "--vmax", "0", "--out", os.path.join(tmp, "bad"), rc=2)
    assert "the colour range is empty" in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(tmp, "bad")) or not os.listdir(os.path.join(tmp, "bad"))
    # --all: every output time, one colour range per quantity over all of them
    out = os.path.join(tmp, "all")
    r = cli("fields", run3, "--all", "--quantities", "speed,vorticity", "--out", out)
    files = common.field_files(run3)
    assert len(files) >= 2
    for q in ("speed", "vorticity"):
        lo, hi = [], []
        for f in files:
            with common.FieldFile(f) as ff:
                axis, value = fmod.parse_slice(None, ff)  # the default plane: mid z
                vals = fmod.quantity_plane(ff, q, axis, value)[0]
                r_ = fmod.quantity_range(q, vals)
                lo.append(r_[0])
                hi.append(r_[1])
        want = (min(lo), max(hi)) if q == "speed" else (-max(hi), max(hi))
        line = [ln for ln in r.stdout.splitlines() if ln.startswith(f"{q}: one colour range over {len(files)} times")]
        assert line and line[0].endswith(f"{want[0]:.6g} .. {want[1]:.6g}"), f"{q}: {line} vs {want}"
        for f in files:
            step = int(os.path.basename(f)[7:13])
            assert any(n.startswith(f"fields_{q}_{step:06d}") for n in os.listdir(out)), f"no {q} picture of step {step}"
    print(f"ok: one range over {len(files)} times per quantity (--all)")
    # sensitivity: the same options
    adj = os.path.join(os.path.dirname(run2.rstrip("/")), "postproc_data", "adjoint")
    with common.FieldFile(os.path.join(adj, "gradient.h5")) as ff:
        a = fig_args(tmp)
        a.vmin, a.vmax, a.xlim, a.ylim = None, 0.5, "1.5,5", "2.5,5.5"
        chi, _ = sensitivity.find_chi(ff, adj)
        fig, d = sensitivity.dJdchi_figure(a, ff, chi, "c")
        assert d["image"].get_clim() == (-0.5, 0.5), d["image"].get_clim()
        assert fig.axes[0].get_xlim() == (1.5, 5) and fig.axes[0].get_ylim() == (2.5, 5.5)
        plt.close(fig)
        fig, d = sensitivity.adjoint_figure(fig_args(tmp), ff, chi, "c")
        lo, hi = d["image"].get_clim()
        assert lo == 0 and hi == d["values"].max(), (lo, hi)
        Lx, Ly = ff.attrs["lengths"][:2]
        assert fig.axes[0].get_xlim() == (0, Lx) and fig.axes[0].get_ylim() == (0, Ly), "adjoint: not wall to wall"
        plt.close(fig)
    print("ok: --vmin/--vmax, --xlim/--ylim, arrows on clipped ends, diverging maps about 0, walls")


def test_extract(run2, run3, tmp):
    os.makedirs(tmp, exist_ok=True)
    f2 = last_fields(run2)
    with h5py.File(f2) as h:
        p, u = h["p"][...], h["u"][...]
        x0, hh, n = h.attrs["origin"], h.attrs["spacing"], h.attrs["cells"]
    j = 250
    xc = x0[0] + (np.arange(n[0]) + 0.5) * hh[0]
    yj = x0[1] + (j + 0.5) * hh[1]
    o = os.path.join(tmp, "line.csv")
    cli("extract", run2, "--field", "p", "--line", f"{xc[0]!r},{yj!r}:{xc[-1]!r},{yj!r}", "--points", str(n[0]), "-o", o)
    hdr, a = read_csv(o)
    assert hdr == ["s", "x", "y", "value"], hdr
    err = np.max(np.abs(a[:, 3] - p[j]))
    assert np.array_equal(a[:, 3], p[j]), f"line through cell centres differs from p[{j}] by {err}"
    print(f"ok: line profile through the cell centres of row {j} equals p[{j}, :] (max diff {err:.1e})")
    o = os.path.join(tmp, "line_u.csv")
    cli("extract", f2, "--field", "u", "--line", "9.1,18.3:11.7,21.9", "--points", "37", "-o", o)
    hdr, a = read_csv(o)
    ux = x0[0] + (np.arange(n[0]) + 1.0) * hh[0]
    uy = x0[1] + (np.arange(n[1]) + 0.5) * hh[1]
    ref = rgi(u, [ux, uy], a[:, 1:3])
    err = np.max(np.abs(a[:, 3] - ref))
    assert err < 1e-12, f"bilinear u (faces) differs from scipy's by {err}"
    assert abs(a[-1, 0] - np.hypot(2.6, 3.6)) < 1e-12
    print(f"ok: oblique line of u (face_x): bilinear interpolation = scipy RegularGridInterpolator (max diff {err:.1e})")
    o = os.path.join(tmp, "all.csv")
    cli("extract", run2, "--field", "u", "--all", "-o", o)
    hdr, a = read_csv(o)
    assert hdr == ["i", "j", "x", "y", "value"] and len(a) == u.size
    assert np.array_equal(a[:, 4], u.ravel()) and np.allclose(a[:, 2], ux[a[:, 0].astype(int)], rtol=1e-15)
    print(f"ok: --all: {len(a)} rows equal the file's u at its face coordinates")
    f3 = last_fields(run3)
    with h5py.File(f3) as h:
        w = h["w"][...]
        x0, hh, n = h.attrs["origin"], h.attrs["spacing"], h.attrs["cells"]
    k = 9
    zk = x0[2] + (k + 1.0) * hh[2]  # a face_z plane
    o = os.path.join(tmp, "slice.csv")
    cli("extract", run3, "--field", "w", "--slice", f"z={zk!r}", "-o", o)
    hdr, a = read_csv(o)
    assert hdr == ["x", "y", "z", "value"] and len(a) == n[0] * n[1]
    assert np.array_equal(a[:, 3], w[k].ravel())
    o = os.path.join(tmp, "line3.csv")
    cli("extract", run3, "--field", "w", "--line", "0.3,0.7,0.9:3.1,2.2,2.4", "--points", "23", "-o", o)
    hdr, a = read_csv(o)
    cs = [x0[d] + (np.arange(n[d]) + (1.0 if d == 2 else 0.5)) * hh[d] for d in range(3)]
    err = np.max(np.abs(a[:, 4] - rgi(w, cs, a[:, 1:4])))
    assert hdr == ["s", "x", "y", "z", "value"] and err < 1e-12
    print(f"ok: 3D: the slice z = {zk:g} of w equals w[{k}]; trilinear line = scipy (max diff {err:.1e})")


def test_errors(run2, adj2, tmp):
    os.makedirs(tmp, exist_ok=True)
    o = os.path.join(tmp, "x.csv")
    checks = [
        (("fields", os.path.join(tmp, "no_such_run")), "no such run directory"),
        (("fields", run2, "--step", "7"), "no field file at step 7"),
        (("fields", run2, "--quantities", "speed,foo"), "unknown quantity 'foo'"),
        (("fields", run2, "--slice", "z=1"), "2D"),
        (("extract", run2, "--field", "nope", "--all", "-o", o), "no field 'nope'"),
        (("extract", run2, "--field", "p", "--line", "0,0:99,1", "-o", o), "outside the domain"),
        (("extract", run2, "--field", "p", "--step", "12345", "--all", "-o", o), "no field file at step 12345"),
        (("sensitivity", run2), "no gradient.h5"),
        (("sensitivity", os.path.join(tmp, "nothing")), "no such run directory"),
    ]
    for argv, msg in checks:
        r = cli(*argv, "--out", tmp, rc=2) if argv[0] != "extract" else cli(*argv, rc=2)
        assert msg in r.stderr, f"postproc {' '.join(argv)}: message {r.stderr!r} lacks {msg!r}"
        print(f"ok: exit 2: {r.stderr.strip()}")


def test_stretched(run, _unused, tmp):
    """A run on a grid stretched in y (body_cylinder_re40_stretched): every tool places values at
    the file's coordinates. Linear fields are differenced and interpolated exactly on any grid."""
    from fgpost.slices import field_at, vorticity_edges
    src = last_fields(run)
    with h5py.File(src, "r") as h:
        dy = np.diff(h["y_faces"][...])
        assert dy.max() / dy.min() > 2, f"{src}: not a stretched grid (cell widths {dy.min()}..{dy.max()})"
    om = 0.7
    f2 = os.path.join(tmp, "rot_stretched.h5")
    write_velocity(src, f2, lambda c, x, y: -om * (y - 20) if c == 0 else om * (x - 16))
    with common.FieldFile(f2) as ff:
        w, (xe, ye) = vorticity_edges(ff)
        err = np.max(np.abs(w - 2 * om))
        assert err < 1e-12, f"solid-body rotation on a stretched grid: vorticity error {err}"
        assert np.array_equal(ye, ff.axis(1)[0][1:-1]), "vorticity: not at the interior y faces"
        fig, d = fields.fields_figure(fig_args(tmp), ff, "vorticity", case="s")
        assert np.array_equal(np.asarray(d["image"].get_array()).ravel(), w.ravel()), "picture != vorticity"
        # the picture's cells: edges at the midpoints of the corners (a mesh, not an image)
        assert not hasattr(d["image"], "get_extent"), "a stretched grid drawn as an image (uniform pixels)"
        rng = np.random.default_rng(1)
        pts = np.stack([rng.uniform(1, 30, 50), rng.uniform(2, 38, 50)], axis=1)
        for c, name in enumerate("uv"):
            got = field_at(ff, name, pts)
            want = -om * (pts[:, 1] - 20) if c == 0 else om * (pts[:, 0] - 16)
            e = np.max(np.abs(got - want))
            assert e < 1e-12, f"{name} interpolated on a stretched grid: error {e}"
    print(f"ok: stretched grid (cell widths in y {dy.min():.3g}..{dy.max():.3g}): vorticity of a solid-body "
          f"rotation exact ({err:.1e}), drawn as a mesh, u and v interpolated exactly at 50 points")


if __name__ == "__main__":
    what, a, b, tmp = sys.argv[1:5]
    if os.path.isdir(tmp) and os.path.basename(tmp.rstrip("/")).startswith("postproc_fields"):
        shutil.rmtree(tmp)
    os.makedirs(tmp, exist_ok=True)
    {"fields": test_fields, "vorticity": test_vorticity, "sensitivity": test_sensitivity,
     "sensitivity_iterations": test_sensitivity_iterations, "view": test_view,
     "extract": test_extract, "errors": test_errors, "stretched": test_stretched}[what](a, b, tmp)
