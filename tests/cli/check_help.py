#!/usr/bin/env python3
"""check_help.py SRC_DIR -- COMMAND...: `flowgrad CMD CASE -help` lists every -fg_* option.

The options are found in the sources: every PetscOptions{Bool,Int,Real,String,EList,Enum}("-fg_...",
"description", ...) call under SRC_DIR/src registers one, inside a PetscOptionsBegin block. Checks:
  - no -fg_* option is read outside such a block (PetscOptionsGet*(..., "-fg_...")): -help would
    not list it;
  - every registered option appears in the output of COMMAND, on a line with its description;
  - every test hook is named -fg_test_* and its description starts with "TEST ONLY"; every
    option whose description says TEST ONLY is named -fg_test_*;
  - COMMAND exits 0 (as PETSc programs do with -help, the command runs as usual).
Exit 1 with the failures listed, 0 otherwise."""
import glob, os, re, subprocess, sys

src, cmd = sys.argv[1], sys.argv[sys.argv.index("--") + 1:]
REG = re.compile(r'PetscOptions(?:Bool|Int|Real|String|EList|Enum)\(\s*"(-fg_[a-z0-9_]+)"\s*,\s*"((?:[^"\\]|\\.)*)"', re.S)
GET = re.compile(r'PetscOptionsGet(?:Bool|Int|Real|String|EList|IntArray|RealArray)\([^;]*"(-fg_[a-z0-9_]+)"')
fail, opts = [], {}
for path in sorted(glob.glob(os.path.join(src, "src", "**", "*.c"), recursive=True)):
    text = open(path).read()
    for name, desc in REG.findall(text):
        opts[name] = desc
    for name in GET.findall(text):
        fail.append(f"{os.path.relpath(path, src)}: {name} is read with PetscOptionsGet*, outside a PetscOptionsBegin block")
if len(opts) < 10:
    fail.append(f"only {len(opts)} -fg_* options found in {src}/src: the pattern no longer matches the code?")
for name, desc in opts.items():
    test_name, test_desc = name.startswith("-fg_test_"), desc.startswith("TEST ONLY")
    if test_name != test_desc:
        fail.append(f"{name}: a test hook must be named -fg_test_* and described 'TEST ONLY: ...' (name and description disagree)")
r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
if r.returncode != 0:
    fail.append(f"{' '.join(cmd)} exited {r.returncode}")
lines = r.stdout.splitlines()
for name, desc in sorted(opts.items()):
    head = desc[:40]
    if not any(re.search(re.escape(name) + r"\b", l) and head in l for l in lines):
        fail.append(f"{name} is not listed with its description ('{head}...') by -help")
print(f"check_help: {len(opts)} -fg_* options registered: {', '.join(sorted(opts))}")
for f in fail:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
