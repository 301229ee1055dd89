#!/usr/bin/env python3
"""postproc writes SVG and PDF as well as PNG (--format png,svg,pdf), for a field picture and a
line plot: each file exists and is what its name says (a PNG signature; an XML document whose root
is <svg>; a PDF header and end-of-file marker).

  test_formats.py POSTPROC RUN_DIR TMP
"""
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET


def main():
    post, run_dir, tmp = sys.argv[1:4]
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for sub, extra, stem in (("fields", ["--quantities", "pressure"], None), ("history", [], "history_forces")):
        r = subprocess.run([sys.executable, post, sub, run_dir, "--out", tmp, "--format", "png,svg,pdf", *extra],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(r.stdout, end="")
        assert r.returncode == 0, f"postproc {sub} exited {r.returncode}"
        written = [l.split(" ", 1)[1] for l in r.stdout.splitlines() if l.startswith("wrote ")]
        stems = {os.path.splitext(os.path.basename(w))[0] for w in written}
        if stem:
            assert stem in stems, f"{stem} not written"
        for st in stems:
            png, svg, pdf = (os.path.join(tmp, f"{st}.{e}") for e in ("png", "svg", "pdf"))
            with open(png, "rb") as f:
                assert f.read(8) == b"\x89PNG\r\n\x1a\n", f"{png}: not a PNG"
            root = ET.parse(svg).getroot()
            assert root.tag.endswith("svg"), f"{svg}: root element {root.tag}"
            with open(pdf, "rb") as f:
                data = f.read()
            assert data.startswith(b"%PDF-") and b"%%EOF" in data[-64:], f"{pdf}: not a complete PDF"
            print(f"ok: {st}: PNG, SVG ({os.path.getsize(svg)} bytes) and PDF ({len(data)} bytes)")
    print("PASS")


if __name__ == "__main__":
    main()
