"""Inputs of the flowgrad fuzzer (tests/fuzz/fuzz_inputs.py) and the generator that holds them.

Inp is one hostile input (argv after the binary, the expected verdict, the command, whether it
runs alone); Gen writes input files under DIR/inputs, numbers the inputs and carries the seeded
random generator; make_bases turns the repository's case files into small base cases (and tiny
two-step ones for `run`) that the families mutate.
"""
import copy
import json
import os
import random

from fuzz_schema import schema_of
from fuzz_yaml import Raw, emit_text, get, leaves, load_tree


class Inp:
    def __init__(self, **kw):
        self.family = kw["family"]
        self.desc = kw["desc"]
        self.argv = kw["argv"]              # list of str/bytes after the binary
        self.expected = kw.get("expected", "any")
        self.cmd = kw.get("cmd", "info")
        self.serial = kw.get("serial", False)
        self.cwd = kw.get("cwd")
        self.timeout = kw.get("timeout")
        self.escape_targets = kw.get("escape_targets", [])
        self.setup = kw.get("setup")        # callable run just before the input (serial)
        self.id = None
        self.result = None


class Gen:
    def __init__(self, args, schema):
        self.args = args
        self.schema = schema
        self.rng = random.Random(args.seed)
        self.work = args.work
        self.idir = os.path.join(self.work, "inputs")
        os.makedirs(self.idir, exist_ok=True)
        self.inputs = []
        self.bases = []       # (label, tree) for info
        self.run_bases = []   # (label, tree) for run (tiny, few steps)

    # -- helpers
    def path(self, name):
        return os.path.join(self.idir, name)

    def next_id(self):
        return len(self.inputs)

    def write(self, family, content, suffix=".yaml"):
        n = self.next_id()
        p = self.path("%04d_%s%s" % (n, family, suffix))
        data = content.encode("utf-8", "surrogateescape") if isinstance(content, str) else content
        with open(p, "wb") as f:
            f.write(data)
        return p

    def add(self, family, desc, argv, **kw):
        inp = Inp(family=family, desc=desc, argv=argv, **kw)
        inp.id = self.next_id()
        self.inputs.append(inp)
        return inp

    def add_text(self, family, desc, text, expected, cmd="info", extra=(), **kw):
        p = self.write(family, text)
        pre = ["-fg_fftw_planner", "estimate"] if cmd in ("run", "adjoint", "check") else []
        return self.add(family, desc, [cmd, p] + list(extra) + pre, expected=expected, cmd=cmd, **kw)

    def add_tree(self, family, desc, tree, expected, cmd="info", extra=(), **kw):
        return self.add_text(family, desc, emit_text(tree), expected, cmd=cmd, extra=extra, **kw)

    def pick_base(self):
        return self.rng.choice(self.bases)

    def numeric_leaves(self, tree):
        out = []
        for p in leaves(tree):
            k = schema_of(self.schema, p)
            if k is None or k.kind not in ("int", "real"):
                continue
            v = get(tree, p)
            if isinstance(v, list):
                continue
            out.append(p)
        return out


# ----------------------------------------------------------------------------------------------
# Bases: the repository's cases, small


def smallify(tree, label, gen):
    g = tree.get("grid", {})
    cells = g.get("cells")
    if isinstance(cells, list):
        nums = [int(c) for c in cells]
        target = 32 if len(nums) == 2 else 12
        big = max(nums) or 1
        if big > target:
            g["cells"] = [Raw(str(0 if c == 0 else max(4, round(c * target / big)))) for c in nums]
    if "initial" in tree and isinstance(tree["initial"], dict) and tree["initial"].get("type") == "file":
        dim = len(g.get("cells", [0, 0]))
        tree["initial"] = {Raw("type"): Raw("uniform"),
                           Raw("velocity"): [Raw("1")] + [Raw("0")] * (dim - 1)}
    for name, obj in list(tree.get("objective", {}).items()):
        if isinstance(obj, dict) and "observations" in obj:
            del obj["observations"]
            obj[Raw("target")] = [Raw("0"), Raw("0")]
    for name, body in list(tree.get("body", {}).items()):
        if isinstance(body, dict) and "density_file" in body:
            c = [int(x) for x in g["cells"]]
            p = os.path.join(gen.idir, "rho_%s.h5" % label)
            try:
                import h5py
                import numpy
                with h5py.File(p, "w") as f:
                    f.create_dataset("rho", data=numpy.full((c[1], c[0]), 0.5))
            except Exception as e:  # noqa
                print("fuzz_inputs: warning: cannot write %s: %s" % (p, e))
            body["density_file"] = Raw(json.dumps(p))
    return tree


def make_bases(gen):
    repo = gen.args.repo
    files = [os.path.join(repo, "tests", "case", "good.yaml")]
    cdir = os.path.join(repo, "cases")
    for d in sorted(os.listdir(cdir)):
        dd = os.path.join(cdir, d)
        if os.path.isdir(dd):
            files += [os.path.join(dd, f) for f in sorted(os.listdir(dd)) if f.endswith(".yaml")]
    for f in files:
        label = os.path.splitext(os.path.basename(f))[0]
        if any(label == b[0] for b in gen.bases):
            label = os.path.basename(os.path.dirname(f)) + "_" + label
        tree = smallify(load_tree(open(f, encoding="utf-8").read()), label, gen)
        gen.bases.append((label, tree))
    # run bases: tiny grids, 2 steps
    want = {"good": None, "cavity": None, "taylor_green": None, "channel": None,
            "kovasznay": None, "abc": None, "cylinder_re40": [24, 30], "naca0012": [32, 24]}
    for label, tree in gen.bases:
        if label in want:
            t = copy.deepcopy(tree)
            if want[label]:
                t["grid"]["cells"] = [Raw(str(c)) for c in want[label]]
            if len(t["grid"]["cells"]) == 3:
                t["grid"]["cells"] = [Raw("8")] * 3
            t["time"]["steps"] = Raw("2")
            t.setdefault(Raw("output"), {})
            t["output"]["monitor_every"] = Raw("1")
            gen.run_bases.append((label, t))
