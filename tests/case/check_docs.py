#!/usr/bin/python3
"""The documentation holds together (CTest docs_links).

  check_docs.py REPO [FLOWGRAD]

- README.md is at most 400 lines (what a newcomer needs; the reference is in docs/);
- every relative link and image in README.md and docs/*.md points at a file of the repository,
  and every #anchor at a heading of its target (GitHub's heading slugs);
- every document in docs/ is listed in docs/README.md and in README.md's table;
- every case file that README.md and docs/ name (cases/..., tests/....yaml) exists, and with
  FLOWGRAD, `flowgrad info` accepts each one README.md's commands use (exit 0).
Exit 1 with the list of problems.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def slug(h):
    h = re.sub(r"[^\w\- ]", "", h.strip().lower())
    return h.replace(" ", "-")


def anchors(path):
    out, code = set(), False
    with open(path, encoding="utf-8") as f:
        for ln in f:
            if ln.startswith("```"):
                code = not code
            m = re.match(r"^#{1,6} (.*)$", ln)
            if m and not code:
                out.add(slug(m.group(1)))
    return out


def main(repo, flowgrad=None):
    problems = []
    readme = os.path.join(repo, "README.md")
    with open(readme, encoding="utf-8") as f:
        n = sum(1 for _ in f)
    if n > 400:
        problems.append(f"README.md has {n} lines (at most 400: move reference material into docs/)")
    docs = sorted(glob.glob(os.path.join(repo, "docs", "*.md")))
    checked = 0
    for path in [readme] + docs:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)  # links in code blocks are not links
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target):
                continue  # http:, https:, mailto:
            file_, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_)) if file_ else path
            rel = os.path.relpath(path, repo)
            checked += 1
            if not os.path.exists(dest):
                problems.append(f"{rel}: link to {target}: no such file")
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                problems.append(f"{rel}: link to {target}: no heading '#{anchor}' in {os.path.relpath(dest, repo)}")
    for d in docs:
        name = os.path.basename(d)
        if name == "README.md":
            continue
        for index, link in (("docs/README.md", f"({name})"), ("README.md", f"(docs/{name})")):
            with open(os.path.join(repo, index), encoding="utf-8") as f:
                if link not in f.read():
                    problems.append(f"{index} does not list docs/{name}")
    named, used = set(), set()
    for path in [readme] + docs:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        found = set(re.findall(r"(?<![\w/.])((?:cases|tests)/[\w./-]+\.ya?ml)\b", text))
        named |= found
        if path == readme:  # the cases its commands run
            for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
                used |= set(re.findall(r"((?:cases|tests)/[\w./-]+\.ya?ml)", block))
    for c in sorted(named):
        if not os.path.exists(os.path.join(repo, c)):
            problems.append(f"the documentation names {c}, which does not exist")
    if flowgrad:
        with tempfile.TemporaryDirectory() as tmp:
            for c in sorted(used):
                r = subprocess.run([flowgrad, "info", os.path.join(repo, c), "--set", f"output.dir={tmp}/o"],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
                if r.returncode != 0:
                    problems.append(f"README.md runs {c}: flowgrad info exits {r.returncode}: {r.stdout.strip()[-300:]}")
        print(f"flowgrad info accepts the {len(used)} cases README.md's commands run: {', '.join(sorted(used))}")
    for p in problems:
        print("FAIL:", p)
    print(f"README.md {n} lines, {len(docs)} documents, {checked} links checked: "
          + ("OK" if not problems else f"{len(problems)} problems"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
