#!/usr/bin/python3
"""The module graph of src/ from its #include lines: no cycle, no edge upwards.

Every source file belongs to the module of its directory (src/<module>/..., src/main.c to
"main"); a public header include/fg/<name>.h belongs to the module that implements it (HEADERS
below: a header missing there is an error, so that a new header is placed deliberately). A file of
module A that includes a header of module B (directly: <fg/x.h>, "x.h" next to it, "../b/x.h")
is an edge A -> B; a public header's own includes are edges of its module too.

Checks, each a failure with the offending files named:
  1. no cycle between modules (DESIGN.md: dependencies run downwards only);
  2. no edge from a lower layer to a higher one (LAYERS below, top first; modules on one layer
     may use each other as long as there is no cycle);
  3. no HDF5 outside src/io/ (no call H5...(), no HDF5 function passed to a check macro, no
     #include <hdf5.h>): the I/O foundation is the only place that talks to HDF5;
  4. no module includes another module's private header (*impl.h, *.inc): private headers are
     for the files of their own folder.

usage: check_includes.py [ROOT]          check ROOT/src and ROOT/include (default: the repository)
       check_includes.py --self-test     the checker on small synthetic trees: one clean, one with
                                         a cycle, one with an upward edge (it must find both)
"""
import os
import re
import sys
import tempfile

# main -> app -> optim -> adjoint -> objective -> design -> step -> solver -> body
#      -> ops / pressure / io / case -> grid -> sys   (viscous beside body)
LAYERS = [["main"], ["app"], ["optim"], ["adjoint"], ["objective"], ["design"], ["step"], ["solver"],
          ["body", "viscous"], ["ops", "pressure", "io", "case"], ["grid"], ["sys"]]

HEADERS = {
    "flowgrad.h": "main",  # the umbrella: for programs, not for the library's modules
    "fg/sys.h": "sys", "fg/grid.h": "grid", "fg/case.h": "case", "fg/ops.h": "ops",
    "fg/poisson.h": "pressure", "fg/io.h": "io", "fg/checkpoint.h": "io", "fg/h5.h": "io",
    "fg/table.h": "io", "fg/iofile.h": "io", "fg/shape.h": "body", "fg/density.h": "body", "fg/body.h": "body",
    "fg/viscous.h": "viscous", "fg/solver.h": "solver", "fg/step.h": "step", "fg/design.h": "design",
    "fg/objective.h": "objective", "fg/adjoint.h": "adjoint", "fg/optim.h": "optim",
    "fg/app.h": "app",
}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def rank_of(layers):
    return {m: i for i, layer in enumerate(layers) for m in layer}


def module_of_source(root, path):
    rel = os.path.relpath(path, os.path.join(root, "src"))
    parts = rel.split(os.sep)
    return "main" if len(parts) == 1 else parts[0]


def collect(root, headers):
    """Edges {(A, B): [files]} and problems (unknown headers)."""
    edges, problems = {}, []

    def add(a, b, where):
        if a != b:
            edges.setdefault((a, b), []).append(where)

    def scan(path, mod, here):
        text = open(path, errors="replace").read()
        for kind, name in INCLUDE.findall(text):
            if kind == "<":
                if name.startswith("fg/") or name == "flowgrad.h":
                    if name not in headers:
                        problems.append(f"{os.path.relpath(path, root)}: <{name}> is not in the header table of {sys.argv[0]}")
                    else:
                        add(mod, headers[name], f"{os.path.relpath(path, root)} -> <{name}>")
                continue
            target = os.path.normpath(os.path.join(here, name))
            if target.startswith(os.path.join(root, "src") + os.sep):
                add(mod, module_of_source(root, target), f"{os.path.relpath(path, root)} -> \"{name}\"")

    src = os.path.join(root, "src")
    for d, _, files in os.walk(src):
        for f in sorted(files):
            if f.endswith((".c", ".h", ".inc")):
                p = os.path.join(d, f)
                scan(p, module_of_source(root, p), d)
    inc = os.path.join(root, "include")
    for d, _, files in os.walk(inc):
        for f in sorted(files):
            if not f.endswith(".h"):
                continue
            p = os.path.join(d, f)
            name = os.path.relpath(p, inc)
            if name not in headers:
                problems.append(f"include/{name} is not in the header table of {sys.argv[0]}")
                continue
            scan(p, headers[name], d)
    return edges, problems


def find_cycle(edges):
    """One cycle of the module graph as a list of modules, or None."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if not state.get(m):
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if not state.get(n):
            c = visit(n)
            if c:
                return c
    return None


H5CALL = re.compile(r"\bH5[A-Z][A-Za-z0-9_]*\s*\(|[(,]\s*H5[A-Z][a-z][A-Za-z0-9_]*\s*,|#\s*include\s*<hdf5\.h>")


def hdf5_calls(root):
    """Files outside src/io/ that call HDF5."""
    found = []
    for d, _, files in os.walk(os.path.join(root, "src")):
        rel = os.path.relpath(d, root)
        if rel == os.path.join("src", "io") or rel.startswith(os.path.join("src", "io") + os.sep):
            continue
        for f in sorted(files):
            if f.endswith((".c", ".h", ".inc")):
                text = re.sub(r"/\*.*?\*/", " ", open(os.path.join(d, f), errors="replace").read(), flags=re.S)
                n = len(H5CALL.findall(text))
                if n:
                    found.append(f"{os.path.join(rel, f)}: {n} HDF5 calls or includes outside src/io/")
    return found


def private_headers(root):
    """Files that include the private header (*impl.h, *.inc) of another module's folder."""
    found = []
    src = os.path.join(root, "src")
    for d, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h", ".inc")):
                continue
            p = os.path.join(d, f)
            for kind, name in INCLUDE.findall(open(p, errors="replace").read()):
                if kind == '"' and (name.endswith("impl.h") or name.endswith(".inc")):
                    target = os.path.normpath(os.path.join(d, name))
                    if os.path.dirname(target) != os.path.normpath(d):
                        found.append(f"{os.path.relpath(p, root)} includes another module's private header \"{name}\"")
    return found


def check(root, layers=LAYERS, headers=HEADERS, out=sys.stdout):
    """0 when the tree is clean; the number of problems otherwise (printed)."""
    edges, problems = collect(root, headers)
    problems += hdf5_calls(root)
    problems += private_headers(root)
    rank = rank_of(layers)
    for (a, b), where in sorted(edges.items()):
        if a not in rank or b not in rank:
            problems.append(f"module '{a if a not in rank else b}' is not in the layer table ({where[0]})")
        elif rank[a] > rank[b]:
            problems.append(f"upward edge {a} -> {b} (layer {rank[a]} -> {rank[b]}): " + "; ".join(where))
    cycle = find_cycle(edges)
    if cycle:
        hops = [f"{x} -> {y} ({edges[(x, y)][0]})" for x, y in zip(cycle, cycle[1:])]
        problems.append("cycle " + " -> ".join(cycle) + ": " + "; ".join(hops))
    mods = sorted({m for e in edges for m in e})
    print(f"check_includes: {len(mods)} modules, {len(edges)} edges, {len(problems)} problems", file=out)
    for p in problems:
        print("  " + p, file=out)
    return len(problems)


def self_test():
    """The checker on synthetic trees: it must pass a clean one and fail a cycle and an upward edge."""
    top = tempfile.TemporaryDirectory(prefix="fg_includes_")  # the synthetic trees, removed at exit
    layers = [["app"], ["solver"], ["body", "io"], ["grid"]]
    headers = {"fg/app.h": "app", "fg/solver.h": "solver", "fg/body.h": "body", "fg/io.h": "io", "fg/grid.h": "grid"}

    def tree(files):
        d = tempfile.mkdtemp(dir=top.name)
        for path, text in files.items():
            p = os.path.join(d, path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, "w").write(text)
        return d

    clean = {"include/fg/solver.h": "#include <fg/body.h>\n", "include/fg/body.h": "#include <fg/grid.h>\n",
             "include/fg/io.h": "#include <fg/grid.h>\n", "include/fg/grid.h": "", "include/fg/app.h": "",
             "src/app/run.c": "#include <fg/app.h>\n#include <fg/solver.h>\n",
             "src/solver/solver.c": "#include <fg/solver.h>\n#include <fg/io.h>\n",
             "src/body/body.c": '#include "bodyimpl.h"\n', "src/body/bodyimpl.h": "#include <fg/body.h>\n#include <fg/io.h>\n",
             "src/io/io.c": "#include <fg/io.h>\n", "src/grid/grid.c": "#include <fg/grid.h>\n"}
    cyclic = dict(clean)
    cyclic["src/io/io.c"] = "#include <fg/io.h>\n#include <fg/body.h>\n"  # io <-> body: same layer, a cycle
    upward = dict(clean)
    upward["src/body/body.c"] = '#include "bodyimpl.h"\n#include "../solver/solverimpl.h"\n'
    upward["src/solver/solverimpl.h"] = ""
    hdf5 = dict(clean)
    hdf5["src/solver/solver.c"] = "#include <fg/solver.h>\n#include <fg/io.h>\nvoid f(void) { H5Fclose(fid); }\n"
    hdf5["src/io/io.c"] = "#include <fg/io.h>\nvoid g(void) { H5Fclose(fid); } /* allowed here */\n"
    hdf5b = dict(clean)
    hdf5b["src/solver/solver.c"] = "#include <fg/solver.h>\n#include <hdf5.h>\nvoid f(void) { FGCallHDF5(FG_ERR_IO_READ, path, H5Dclose, (d)); }\n"
    private = dict(clean)
    private["src/solver/solver.c"] = '#include <fg/solver.h>\n#include "../io/ioimpl.h"\n'
    private["src/io/ioimpl.h"] = "#include <fg/io.h>\n"
    ok = True
    results = {}
    for name, files, want in (("clean", clean, 0), ("cycle", cyclic, 1), ("upward", upward, 1), ("hdf5 outside io", hdf5, 1),
                              ("hdf5 through a macro and an include", hdf5b, 1), ("another module's private header", private, 1)):
        with open(os.devnull, "w") as null:
            n = check(tree(files), layers, headers, out=null)
        results[name] = n
        good = (n == 0) if want == 0 else (n > 0)
        print(f"self-test {name}: {n} problems ({'as expected' if good else 'WRONG'})")
        ok = ok and good
    # the cycle tree must be reported as a cycle, the upward one as an upward edge
    import io
    buf = io.StringIO()
    check(tree(cyclic), layers, headers, out=buf)
    ok = ok and "cycle body -> io -> body" in buf.getvalue()
    buf = io.StringIO()
    check(tree(upward), layers, headers, out=buf)
    ok = ok and "upward edge body -> solver" in buf.getvalue()
    print("self-test:", "passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
        sys.exit(self_test())
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    sys.exit(1 if check(root) else 0)
