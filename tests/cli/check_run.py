#!/usr/bin/env python3
"""check_run.py OUTDIR STEPS DIM: the files of a finished `flowgrad run`.

Checks that case.resolved.yaml, history.csv and the final fields file with its XDMF sidecar
exist; that history.csv has the documented columns, ends at STEPS, and that max|div u| stayed
below 1e-12 (relative to u_ref/h) on every monitored step; that the final fields hold u, v[, w]
and p with the grid's shape and the step/time attributes; and that no .tmp file is left."""
import csv, glob, os, sys
import h5py
import numpy as np

out, steps, dim = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fail = []
for f in ("case.resolved.yaml", "history.csv", f"fields/fields_{steps:06d}.h5", f"fields/fields_{steps:06d}.xmf"):
    if not os.path.isfile(os.path.join(out, f)):
        fail.append(f"missing {f}")
if glob.glob(os.path.join(out, "**", "*.tmp"), recursive=True):
    fail.append("a .tmp file was left behind")
if not fail:
    with open(os.path.join(out, "history.csv")) as fh:
        rows = list(csv.DictReader(fh))
    cols = ["step", "time", "dt", "cfl", "max_div", "kinetic_energy", "wall_time"]
    if list(rows[0].keys()) != cols:
        fail.append(f"history.csv columns {list(rows[0].keys())}, expected {cols}")
    elif int(rows[-1]["step"]) != steps:
        fail.append(f"history.csv ends at step {rows[-1]['step']}, expected {steps}")
    else:
        div = max(float(r["max_div"]) for r in rows)
        if not div <= 1e-12:
            fail.append(f"max|div u| reached {div:.3e} > 1e-12")
        print(f"history.csv: {len(rows)} rows, max|div u| = {div:.2e}")
    with h5py.File(os.path.join(out, f"fields/fields_{steps:06d}.h5"), "r") as h:
        cells = [int(c) for c in h.attrs["cells"]][:dim]
        shape = tuple(reversed(cells))
        for name in ["u", "v", "w"][:dim] + ["p"]:
            if name not in h or h[name].shape != shape:
                fail.append(f"dataset /{name} missing or not of shape {shape}")
            elif not np.all(np.isfinite(h[name][...])):
                fail.append(f"dataset /{name} has non-finite values")
        if int(h.attrs["step"]) != steps:
            fail.append(f"step attribute {h.attrs['step']}, expected {steps}")
if fail:
    print("FAIL: " + "; ".join(fail))
    sys.exit(1)
print("ok")
