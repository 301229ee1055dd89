#!/usr/bin/python3
"""No source file under src/ longer than MAX lines (issue 19: one concern per file; a file that
grows past this has taken on a second job and should be cut along its concerns).

usage: check_length.py [ROOT] [MAX]     (default: this repository, 800)"""
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 800
sizes = []
for d, _, files in os.walk(os.path.join(root, "src")):
    for f in files:
        if f.endswith((".c", ".h", ".inc")):
            p = os.path.join(d, f)
            sizes.append((sum(1 for _ in open(p, errors="replace")), os.path.relpath(p, root)))
sizes.sort(reverse=True)
over = [(n, p) for n, p in sizes if n > limit]
print(f"check_length: {len(sizes)} files, the longest: " + ", ".join(f"{p} {n}" for n, p in sizes[:3]))
for n, p in over:
    print(f"  {p}: {n} lines > {limit}")
sys.exit(1 if over or not sizes else 0)
