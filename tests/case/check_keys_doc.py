#!/usr/bin/python3
"""The block of case-file keys in docs/case-files.md must be the output of `flowgrad info --keys`.

usage: check_keys_doc.py [--update] docs/case-files.md -- COMMAND [ARGS...]

Runs COMMAND (e.g. `flowgrad info --keys`) and compares its output with the lines between the
`<!-- BEGIN case-keys` and `<!-- END case-keys -->` marker lines of the file. With --update, it
rewrites the block instead (then commit the file).
"""
import difflib
import subprocess
import sys

BEGIN = "<!-- BEGIN case-keys"
END = "<!-- END case-keys -->"


def main(argv):
    update = bool(argv) and argv[0] == "--update"
    if update:
        argv = argv[1:]
    if len(argv) < 3 or argv[1] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    readme, cmd = argv[0], argv[2:]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    if run.returncode != 0:
        print(f"FAIL: {' '.join(cmd)} exited with {run.returncode}\n{run.stdout}{run.stderr}")
        return 1
    generated = run.stdout.strip("\n").split("\n")
    with open(readme, encoding="utf-8") as f:
        lines = f.read().split("\n")
    begin = [i for i, l in enumerate(lines) if l.startswith(BEGIN)]
    end = [i for i, l in enumerate(lines) if l.strip() == END]
    if len(begin) != 1 or len(end) != 1 or begin[0] >= end[0]:
        print(f"FAIL: {readme} needs one '{BEGIN} ...' line and, after it, one '{END}' line")
        return 1
    b, e = begin[0], end[0]
    block = lines[b + 1:e]
    while block and not block[0].strip():
        block = block[1:]
    while block and not block[-1].strip():
        block = block[:-1]
    if block == generated:
        print(f"ok: {readme} documents the {sum(l.startswith('| `') for l in generated)} keys of `{' '.join(cmd)}`")
        return 0
    if update:
        with open(readme, "w", encoding="utf-8") as f:
            f.write("\n".join(lines[:b + 1] + generated + lines[e:]))
        print(f"updated {readme}")
        return 0
    print(f"FAIL: the case-keys block of {readme} is stale; regenerate it with")
    print(f"  /usr/bin/python3 {sys.argv[0]} --update {readme} -- {' '.join(cmd)}")
    sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in block], [l + "\n" for l in generated], readme, "flowgrad info --keys"))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
