#!/usr/bin/env python3
"""Damaged and odd input to postproc: each case exits 2 with one 'postproc: error:' message and no
Python traceback, and leaves no temporary file.

  test_bad_input.py POSTPROC RUN_DIR TMP      (RUN_DIR: a run with fields/ and history.csv)
"""
import glob
import os
import shutil
import subprocess
import sys

import h5py


def main():
    post, run_dir, tmp = sys.argv[1:4]
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    # a small copy: the last fields file and the history
    run = os.path.join(tmp, "run")
    os.makedirs(os.path.join(run, "fields"))
    last = sorted(glob.glob(os.path.join(run_dir, "fields", "fields_*.h5")))[-1]
    shutil.copy(last, os.path.join(run, "fields"))
    shutil.copy(os.path.join(run_dir, "history.csv"), run)
    # damaged copies
    corrupt = os.path.join(tmp, "corrupt")
    shutil.copytree(run, corrupt)
    fld = glob.glob(os.path.join(corrupt, "fields", "*.h5"))[0]
    with h5py.File(fld, "r") as h:  # 16 bytes of garbage in the middle of /p's values
        off = h["p"].id.get_offset() + h["p"].id.get_storage_size() // 2
    with open(fld, "r+b") as f:
        f.seek(off)
        f.write(b"\xff" * 16)
    text = os.path.join(tmp, "text")
    shutil.copytree(run, text)
    with open(os.path.join(text, "history.csv")) as f:
        lines = f.readlines()
    mid = lines[len(lines) // 2].rstrip("\n").split(",")
    mid[1] = "abc"  # the time of a row, not a number
    lines[len(lines) // 2] = ",".join(mid) + "\n"
    with open(os.path.join(text, "history.csv"), "w") as f:
        f.writelines(lines)
    binary = os.path.join(tmp, "binary")
    shutil.copytree(run, binary)
    with open(os.path.join(binary, "history.csv"), "wb") as f:
        f.write(bytes(range(256)) * 8)
    nan = os.path.join(tmp, "nan")
    shutil.copytree(run, nan)
    with open(os.path.join(nan, "history.csv")) as f:
        lines = f.readlines()
    head = lines[0].strip().split(",")
    col = head.index(next(h for h in head if h.endswith("_cl")))
    row = lines[-5].strip().split(",")
    row[col] = "nan"
    lines[-5] = ",".join(row) + "\n"
    with open(os.path.join(nan, "history.csv"), "w") as f:
        f.writelines(lines)
    afile = os.path.join(tmp, "a_file")
    open(afile, "w").close()
    out = os.path.join(tmp, "out")
    cases = [
        (["fields", corrupt, "--out", out], "not a readable flowgrad field file|damaged or unexpected"),
        (["history", text, "--out", out], "column time, data row [0-9]+: 'abc' is not a number"),
        (["history", binary, "--out", out], "cannot read it as CSV|damaged or unexpected|no data rows"),
        (["history", nan, "--out", out], "non-finite time or Cl value"),
        (["fields", run, "--out", afile], "exists and is not a directory"),
        (["fields", run, "--time", "nan", "--out", out], "--time nan: not a finite number"),
        (["extract", run, "--field", "p", "--all", "-o", tmp], "is a directory"),
        (["extract", run, "--field", "p", "--line", "0,0:1,nan", "-o", os.path.join(tmp, "l.csv")], "finite numbers"),
        (["fields", run, "--slice", "=1.5", "--out", out], "--slice"),
        (["report", afile], "no such directory"),
    ]
    for args, expect in cases:
        r = subprocess.run([sys.executable, post, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        err = r.stderr
        import re
        assert r.returncode == 2, f"{args}: exit {r.returncode}, expected 2\n{err}"
        assert "Traceback" not in err, f"{args}: a traceback:\n{err}"
        assert err.count("postproc: error:") == 1, f"{args}: expected one 'postproc: error:' line:\n{err}"
        assert re.search(expect, err), f"{args}: the message does not match '{expect}':\n{err}"
        print(f"ok: {' '.join(args[:1])} ... -> exit 2: {err.strip().splitlines()[-1]}")
    left = [p for p in glob.glob(os.path.join(tmp, "**", "*.tmp*"), recursive=True)]
    assert not left, f"temporary files left: {left}"
    print("PASS")


if __name__ == "__main__":
    main()
