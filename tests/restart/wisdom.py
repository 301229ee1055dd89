#!/usr/bin/env python3
"""FFTW wisdom makes a resumed run plan like the run it continues (default planner, measure).

    wisdom.py FLOWGRAD CASE OUTDIR [--mpiexec "mpiexec ..."]

1. A: 2N steps straight (writes A/fftw.wisdom, checked to exist and to be FFTW wisdom).
2. B: N steps with A's wisdom (copied into B), then --resume to 2N: B reads its own wisdom.
3. The final fields of A and B are bit-identical (u, v, p), with FFTW_MEASURE plans throughout.
"""
import os, shlex, shutil, subprocess, sys
import h5py
import numpy as np

args = sys.argv[1:]
mpiexec = "mpiexec --allow-run-as-root --oversubscribe"
if "--mpiexec" in args:
    i = args.index("--mpiexec"); mpiexec = args[i + 1]; del args[i:i + 2]
flowgrad, case, out = args[0], args[1], args[2]
N = 20
common = ["--set", "grid.cells=[48,32]", "--set", "output.fields_every=0", "--set", f"output.monitor_every={N}"]

def run(outdir, steps, extra=()):
    cmd = shlex.split(mpiexec) + ["-n", "2", flowgrad, "run", case] + common + ["--set", f"time.steps={steps}", "--set", f"output.dir={outdir}"] + list(extra)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout, r.stderr); print(f"FAIL: {' '.join(cmd)} exited {r.returncode}"); sys.exit(1)

a, b = os.path.join(out, "wisdom_a"), os.path.join(out, "wisdom_b")
for d in (a, b):
    shutil.rmtree(d, ignore_errors=True)
run(a, 2 * N)
wf = os.path.join(a, "fftw.wisdom")
if not os.path.isfile(wf) or not open(wf).read().startswith("(fftw-3"):
    print(f"FAIL: {wf} missing or not FFTW wisdom"); sys.exit(1)
os.makedirs(b)
shutil.copy(wf, os.path.join(b, "fftw.wisdom"))
run(b, N)
run(b, 2 * N, ["--resume"])
fa = h5py.File(os.path.join(a, "fields", f"fields_{2*N:06d}.h5"), "r")
fb = h5py.File(os.path.join(b, "fields", f"fields_{2*N:06d}.h5"), "r")
diff = {k: float(np.abs(fa[k][...] - fb[k][...]).max()) for k in ("u", "v", "p")}
print(f"straight vs {N} + resume + {N} steps, FFTW measure plans from shared wisdom: max|diff| = {diff}")
if any(v != 0.0 for v in diff.values()):
    print("FAIL: not bit-identical"); sys.exit(1)
print("ok")
