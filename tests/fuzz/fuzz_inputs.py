#!/usr/bin/python3
"""Hostile-input fuzzing of the flowgrad command line and case files.

    fuzz_inputs.py --flowgrad BIN --repo REPO --work DIR [--seed N] [--count N] [--jobs N]
                   [--timeout S] [--list-failures]

Generates (deterministically from --seed) at least --count hostile inputs from the repository's
case files (cases/*/*.yaml, tests/case/good.yaml; made small), writes them under DIR/inputs, runs
each one (mostly `flowgrad info`, some `run`, a few `adjoint`/`check`) with a timeout, and judges it:

  * never a signal, a timeout ("hang"), exit 1 (internal error), or any of "Traceback",
    "PETSC ERROR", "(internal error", "AddressSanitizer", "runtime error:", "buffer overflow",
    "Segmentation fault", "core dumped", "MPI_ABORT" in the output;
  * a nonzero exit is 2 or 4 (3, numerical failure, is allowed for run/adjoint of inputs that are
    not known to be invalid), and stderr holds exactly one line containing "error:", which starts
    with "flowgrad: error:" and names something (a key path, a file, a line, an option);
  * an input known to be invalid (expected = refuse) must not exit 0 ("accepted"); a control
    (expected = accept) must exit 0;
  * nothing is created outside DIR: not in the repository, not in DIR's parent (checked around
    every input that plays with paths, which run one at a time).

Prints a table per family and every failure on one line; exits 1 if any input failed.
Every input's files stay under DIR; each runs in its own working directory DIR/c/NNNN (the
path-escaping ones in DIR/cwd, so that `name: ../../../escaped` would land in DIR's parent).
"""
import argparse
import concurrent.futures
import copy
import json
import os
import random
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time

FORBIDDEN = ["Traceback", "PETSC ERROR", "(internal error", "AddressSanitizer", "runtime error:",
             "buffer overflow", "Segmentation fault", "core dumped", "MPI_ABORT",
             "exited on signal", "stack smashing"]

# ----------------------------------------------------------------------------------------------
# A small YAML model: the tree of a case file with every scalar kept as its raw text, so that a
# mutation can put any text (a tag, an alias, garbage) where a value was.


class Raw(str):
    """A scalar (or any flow text) emitted verbatim."""


def from_node(node):
    import yaml
    if isinstance(node, yaml.MappingNode):
        out = {}
        for k, v in node.value:
            out[Raw(k.value)] = from_node(v)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [from_node(v) for v in node.value]
    if node.style in ("'", '"'):
        return Raw(json.dumps(node.value))
    return Raw(node.value)


def load_tree(text):
    import yaml
    return from_node(yaml.compose(text, Loader=yaml.SafeLoader))


def flow(v):
    if isinstance(v, dict):
        return "{" + ", ".join("%s: %s" % (k, flow(x)) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(flow(x) for x in v) + "]"
    return str(v)


def emit(tree, indent=0):
    pad = " " * indent
    lines = []
    for k, v in tree.items():
        if isinstance(v, dict) and v and not getattr(v, "flow", False):
            lines.append("%s%s:" % (pad, k))
            lines.extend(emit(v, indent + 2))
        else:
            lines.append("%s%s: %s" % (pad, k, flow(v)))
    return lines


def emit_text(tree):
    return "\n".join(emit(tree)) + "\n"


def get(tree, path):
    for p in path:
        tree = tree[p]
    return tree


def put(tree, path, value):
    get(tree, path[:-1])[path[-1]] = value


def delete(tree, path):
    del get(tree, path[:-1])[path[-1]]


def leaves(tree, prefix=()):
    """Paths of every scalar or list value, and of every scalar inside a list."""
    out = []
    if isinstance(tree, dict):
        for k, v in tree.items():
            out.extend(leaves(v, prefix + (k,)))
    elif isinstance(tree, list):
        out.append(prefix)
        for i, v in enumerate(tree):
            if not isinstance(v, (dict, list)):
                out.append(prefix + (i,))
    else:
        out.append(prefix)
    return out


def sections(tree, prefix=()):
    out = []
    if isinstance(tree, dict):
        for k, v in tree.items():
            if isinstance(v, dict):
                out.append(prefix + (k,))
                out.extend(sections(v, prefix + (k,)))
    return out


def keypath(path):
    return ".".join(str(p) for p in path if not isinstance(p, int))


# ----------------------------------------------------------------------------------------------
# The key table of docs/case-files.md: type, default and range of every key.

class Key:
    def __init__(self, pattern, typ, default, rng):
        self.pattern = pattern
        rx = re.escape(pattern)
        rx = re.sub(r"\\<[^>]*\\>|<[^>]*>", r"[^.]+", rx)
        self.rx = re.compile("^" + rx + "$")
        m = re.match(r"(int|real|bool|string|enum)( list)?(?:, (\d+)(?:-(\d+))? entries)?", typ)
        self.kind = m.group(1) if m else "string"
        self.is_list = bool(m and m.group(2))
        if typ.startswith("list of"):
            self.kind, self.is_list = "real", True
        self.nmin = int(m.group(3)) if m and m.group(3) else None
        self.nmax = int(m.group(4)) if m and m.group(4) else self.nmin
        self.required = default.strip().startswith("**required**") and "where" not in default
        self.range = rng.strip()
        self.enum = re.findall(r"`([^`]*)`", rng) if self.kind == "enum" else []
        self.lo = self.hi = None
        self.lo_open = self.hi_open = False
        r = self.range
        m = re.match(r"^([\[(])\s*([-0-9.e+]+),\s*([-0-9.e+]+)\s*([\])])$", r)
        if m:
            self.lo, self.hi = float(m.group(2)), float(m.group(3))
            self.lo_open, self.hi_open = m.group(1) == "(", m.group(4) == ")"
        m = re.match(r"^(>=|>)\s*([-0-9.e+]+)$", r)
        if m:
            self.lo, self.lo_open = float(m.group(2)), m.group(1) == ">"
        self.nonempty = "non-empty" in r

    def in_range(self, x):
        if self.lo is not None and (x < self.lo or (self.lo_open and x == self.lo)):
            return False
        if self.hi is not None and (x > self.hi or (self.hi_open and x == self.hi)):
            return False
        return True


def load_schema(repo):
    keys = []
    text = open(os.path.join(repo, "docs", "case-files.md"), encoding="utf-8").read()
    block = text.split("<!-- BEGIN case-keys", 1)[1].split("<!-- END case-keys", 1)[0]
    for line in block.splitlines():
        m = re.match(r"^\| `([^`]+)` \| ([^|]*) \| ([^|]*) \| ([^|]*) \|", line)
        if m:
            keys.append(Key(m.group(1), m.group(2).strip(), m.group(3), m.group(4)))
    if len(keys) < 50:
        raise SystemExit("fuzz_inputs: could not read the key table of docs/case-files.md")
    return keys


def schema_of(schema, path):
    kp = keypath(path)
    for k in schema:
        if k.rx.match(kp):
            return k
    return None


NUM_RX = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
INT_RX = re.compile(r"^[-+]?[0-9]+$")


def parse_num(raw):
    """(value, is_int) of a plain YAML scalar, or None if it is no number flowgrad should take."""
    s = str(raw).strip()
    if s in (".nan", ".NaN", ".NAN"):
        return float("nan"), False
    if s in (".inf", "+.inf", ".Inf", "+.Inf", ".INF", "+.INF"):
        return float("inf"), False
    if s in ("-.inf", "-.Inf", "-.INF"):
        return float("-inf"), False
    if INT_RX.match(s):
        return int(s), True
    if NUM_RX.match(s):
        return float(s), False
    return None


def classify_scalar(key, raw, list_elem=False):
    """'refuse' if raw is certainly invalid for key, else 'any'."""
    if key is None:
        return "any"
    s = str(raw).strip()
    if s.startswith("!") or s.startswith("*") or s.startswith("&"):
        return "refuse" if s.startswith("!") else "any"
    if s.startswith("[") or s.startswith("{"):
        return "refuse"
    if s in ("~", "null", "Null", "NULL", ""):
        return "refuse"
    if key.kind in ("int", "real"):
        pn = parse_num(s)
        if pn is None:
            return "any" if re.match(r"^[-+]?0[xob][0-9a-fA-F]+$", s) or "_" in s else "refuse"
        v, is_int = pn
        if v != v or v in (float("inf"), float("-inf")):
            return "refuse"
        if key.kind == "int":
            if not is_int:
                return "refuse" if float(v) != int(v) else "any"
            if v > 2**31 - 1 or v < -2**31:
                return "refuse"
        try:
            fv = float(v)
        except OverflowError:
            fv = float("inf") if v > 0 else float("-inf")
        if fv in (float("inf"), float("-inf")) or not key.in_range(fv):
            return "refuse"
        if key.pattern == "grid.cells" and v == 1:
            return "refuse"
        return "any"
    if key.kind == "bool":
        return "any" if s in ("true", "false") else "refuse"
    if key.kind == "enum":
        return "any" if s in key.enum else "refuse"
    if key.kind == "string":
        if key.nonempty and s in ('""', "''"):
            return "refuse"
        return "any"
    return "any"


def classify(schema, tree, path, raw):
    """Expected verdict when the value at path becomes raw (a scalar text)."""
    key = schema_of(schema, path)
    if key is None:
        return "any"
    elem = isinstance(path[-1], int)
    if key.is_list and not elem:
        # a scalar where a list is expected
        s = str(raw).strip()
        if not s.startswith("[") and not s.startswith("*"):
            return "refuse"
        return "any"
    e = classify_scalar(key, raw, elem)
    if e == "refuse":
        return e
    # derived quantities that would overflow
    pn = parse_num(raw)
    if pn is not None:
        try:
            v = float(pn[0])
        except OverflowError:
            v = float("inf")
        kp = keypath(path)
        if kp in ("flow.re", "flow.nu") and 0 < abs(v) < 5.562684646268003e-309:
            return "refuse"   # nu = u_ref*l_ref/re (or re from nu) is infinite
        if kp == "grid.lengths" and 0 < v and v / 1048576 == 0.0:
            cells = tree.get("grid", {}).get("cells", [])
            n = max([int(c) for c in cells if INT_RX.match(str(c))] or [2])
            if v / n == 0.0:
                return "refuse"   # the grid spacing is 0
    return e


# ----------------------------------------------------------------------------------------------
# Inputs


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


# ----------------------------------------------------------------------------------------------
# Families

TYPE_SWAPS_NUM = ["abc", '"1.0"', "'2'", "[1, 2]", "{a: 1}", "true", "false", "~", "''", "1.0.0",
                  "12abc", "1,5", "=1", "0x10", "1_000", "- 1", "yes", "\"\"", "[]", "{}", "0b101",
                  "1e", "e5", "--1", "1 2", ".", "+"]
TYPE_SWAPS_BOOL = ["yes", "no", "1", "0", "True", "TRUE", "on", '"true"', "[true]", "{}", "~", "1.5"]
TYPE_SWAPS_ENUM = ["42", "[fftw]", "{type: x}", "~", "''", "FFTW", "true", "\"uniform \"", "wall\u00e9"]
TYPE_SWAPS_STR = ["5", "1.5", "true", "[a, b]", "{a: b}", "~", "''"]
TYPE_SWAPS_LIST = ["16", "abc", "{a: 1}", "[]", "[[16, 16]]", "[16, \"16\"]", "~", "true",
                   "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]",
                   "[a, b]", "[1, [2]]", "[{}]"]
TYPE_SWAPS_SECTION = ["5", "abc", "[1, 2]", "~", "true", "''", "[]"]

HUGE = ["1e308", "-1e308", "1.7976931348623157e308", "1e309", "-1e309", "2147483647",
        "2147483648", "-2147483649", "4294967296", "9223372036854775807", "9223372036854775808",
        "-9223372036854775809", "18446744073709551616", "1" + "0" * 400, "1" + "0" * 400 + ".0",
        "1e2147483648", "99999999999999999999999999999999"]
TINY = ["5e-324", "-5e-324", "4.9406564584124654e-324", "1e-320", "2.2250738585072014e-308",
        "1e-300", "1e-400", "-0.0", "0.0000000000000000000000000000000000001"]
NEGATIVE = ["-1", "-0.5", "-16", "-2147483648", "-1e-300", "-3", "-1.5e10"]
ZERO = ["0", "0.0", "-0", "00", "0e0", "+0", "0.", ".0"]
NONFINITE = [".nan", ".NaN", ".NAN", "nan", "NaN", ".inf", "-.inf", "+.inf", ".Inf", "inf",
             "-inf", "Infinity", "1e999", "-1e999", "+.INF", "NAN"]
TAGS = ["!!str {v}", "!!float {v}", "!!int {v}", "!!binary aGVsbG8=", "!!set {{a, b}}",
        "!!python/object:os.system {v}", "!!python/object/apply:os.system [\"touch {work}/pwned\"]",
        "!custom {v}", "!<tag:yaml.org,2002:str> {v}", "!!null ~", "!!bool true", "! {v}",
        "!!timestamp 2001-12-14", "!!omap [{{a: 1}}]", "!e!x {v}"]


def fam_control(gen):
    for label, tree in gen.bases:
        gen.add_tree("control", "base %s (small)" % label, tree, "accept")
    for label, tree in gen.run_bases:
        gen.add_tree("control", "run %s (2 steps)" % label, tree, "accept", cmd="run")


def fam_type_swap(gen, n):
    rng = gen.rng
    for i in range(n):
        label, tree = gen.pick_base()
        t = copy.deepcopy(tree)
        r = rng.random()
        if r < 0.12:
            p = rng.choice(sections(t))
            raw = rng.choice(TYPE_SWAPS_SECTION)
            # a section replaced by a scalar or a list: refused; a null optional section: either
            exp = "any" if (raw == "~" and len(p) == 1 and p[0] not in ("grid", "time")) else "refuse"
            put(t, p, Raw(raw))
            gen.add_tree("type_swap", "%s: section %s := %s" % (label, keypath(p), raw), t, exp)
            continue
        p = rng.choice(leaves(t))
        key = schema_of(gen.schema, p)
        v = get(t, p)
        if isinstance(v, list):
            raw = rng.choice(TYPE_SWAPS_LIST)
            exp = classify_list_swap(key, raw)
        elif key is None:
            raw = rng.choice(TYPE_SWAPS_NUM)
            exp = "any"
        elif key.kind in ("int", "real"):
            raw = rng.choice(TYPE_SWAPS_NUM)
            exp = classify(gen.schema, t, p, raw)
        elif key.kind == "bool":
            raw = rng.choice(TYPE_SWAPS_BOOL)
            exp = "refuse"
        elif key.kind == "enum":
            raw = rng.choice(TYPE_SWAPS_ENUM)
            exp = "refuse"
        else:
            raw = rng.choice(TYPE_SWAPS_STR)
            exp = "refuse" if raw[0] in "[{~" or (raw == "''" and key.nonempty) else "any"
        put(t, p, Raw(raw))
        gen.add_tree("type_swap", "%s: %s := %s" % (label, pstr(p), raw), t, exp)


def classify_list_swap(key, raw):
    """Expected verdict when a list value becomes raw."""
    if key is None:
        return "any"
    if not raw.startswith("["):
        return "refuse"
    per_direction = key.nmin is None
    if raw == "[]":
        return "any" if (key.nmin == 0) else "refuse"
    if raw.startswith("[[") or raw in ("[1, [2]]", "[{}]"):
        return "refuse"
    items = [x.strip() for x in raw[1:-1].split(",")]
    if per_direction and len(items) not in (2, 3):
        return "refuse"
    if key.nmax is not None and len(items) > key.nmax:
        return "refuse"
    if key.nmin is not None and len(items) < key.nmin:
        return "refuse"
    for x in items:
        if classify_scalar(Key(key.pattern, key.kind, "", key.range), x) == "refuse":
            return "refuse"
    return "any"


def pstr(p):
    s = ""
    for x in p:
        s += "[%d]" % x if isinstance(x, int) else ("." if s else "") + str(x)
    return s


def fam_delete(gen, n):
    rng = gen.rng
    # every required key of a base, then random ones
    todo = []
    for label, tree in gen.bases:
        for p in leaves(tree) + sections(tree):
            if isinstance(p[-1], int):
                continue
            key = schema_of(gen.schema, p)
            req = (key is not None and key.required) or keypath(p) in ("grid", "time")
            todo.append((req, label, tree, p))
    req = [x for x in todo if x[0]]
    opt = [x for x in todo if not x[0]]
    rng.shuffle(req)
    rng.shuffle(opt)
    chosen = req[: n // 2] + opt[: n - min(len(req), n // 2)]
    for r, label, tree, p in chosen:
        t = copy.deepcopy(tree)
        delete(t, p)
        exp = "refuse" if r else "any"
        if keypath(p) == "time.dt" and "cfl" not in t.get("time", {}):
            exp = "refuse"
        gen.add_tree("delete_key", "%s: delete %s" % (label, pstr(p)), t, exp)
    # a list entry deleted (per-direction lists)
    for i in range(4):
        label, tree = gen.pick_base()
        t = copy.deepcopy(tree)
        lp = [p for p in leaves(t) if isinstance(get(t, p), list) and len(get(t, p)) >= 2
              and keypath(p).startswith("grid.")]
        if not lp:
            continue
        p = rng.choice(lp)
        get(t, p).pop()
        gen.add_tree("delete_key", "%s: drop the last entry of %s" % (label, pstr(p)), t, "refuse")


def fam_duplicate(gen, n):
    rng = gen.rng
    for i in range(n):
        label, tree = gen.pick_base()
        text = emit_text(tree)
        lines = text.splitlines()
        kind = i % 4
        if kind == 0:     # duplicate one line (a key: value of the same mapping)
            cand = [j for j, l in enumerate(lines) if re.match(r"^\s*[A-Za-z_][\w]*: \S", l)]
            j = rng.choice(cand)
            lines.insert(j + 1, lines[j])
            desc = "line %d repeated: %s" % (j + 1, lines[j].strip()[:40])
        elif kind == 1:   # duplicate with another value
            cand = [j for j, l in enumerate(lines) if re.match(r"^\s*[A-Za-z_][\w]*: \S", l)]
            j = rng.choice(cand)
            k = lines[j].split(":")[0]
            lines.insert(j + 1, k + ": " + lines[j].split(":", 1)[1].strip())
            desc = "key %s repeated right after" % k.strip()
        elif kind == 2:   # a whole section repeated at the end
            secs = [k for k in tree if isinstance(tree[k], dict)]
            s = rng.choice(secs)
            lines += emit({s: tree[s]})
            desc = "section %s repeated at the end" % s
        else:             # duplicate inside a flow mapping
            lines.append("time: {dt: 0.01, steps: 2, steps: 3}" if "time" not in tree else
                         "flow: {re: 100, re: 200}")
            desc = "duplicate inside a flow mapping (and a repeated section)"
        gen.add_text("duplicate_key", "%s: %s" % (label, desc), "\n".join(lines) + "\n", "refuse")
    # same key spelled twice through quoting
    label, tree = gen.bases[0]
    gen.add_text("duplicate_key", "good: \"grid\" and grid", emit_text(tree) + '"grid": {cells: [8, 8]}\n', "refuse")
    gen.add_text("duplicate_key", "good: 'time' and time", emit_text(tree) + "'time': {dt: 1, steps: 1}\n", "refuse")


def fam_values(gen, family, values, n, cmd="info"):
    rng = gen.rng
    for i in range(n):
        label, tree = gen.pick_base()
        t = copy.deepcopy(tree)
        p = rng.choice(gen.numeric_leaves(t))
        raw = values[i % len(values)] if i < len(values) else rng.choice(values)
        exp = classify(gen.schema, t, p, raw)
        put(t, p, Raw(raw))
        gen.add_tree(family, "%s: %s := %s" % (label, pstr(p), raw[:40]), t, exp)


def fam_tags(gen, n):
    rng = gen.rng
    for i in range(n):
        label, tree = gen.pick_base()
        t = copy.deepcopy(tree)
        r = i % 5
        if r == 4:
            secs = [k for k in t if isinstance(t[k], dict)]
            s = rng.choice(secs)
            tag = rng.choice(["!!map", "!foo", "!!python/object:os.system", "!!omap", "!<x>"])
            t[s] = Raw(tag + " " + flow(t[s]))
            gen.add_tree("tags", "%s: %s on section %s" % (label, tag, s), t, "refuse")
            continue
        if r == 3:
            p = rng.choice([q for q in leaves(t) if not isinstance(q[-1], int)])
            parent = get(t, p[:-1])
            new = {(Raw("!!str " + k) if k == p[-1] else k): v for k, v in parent.items()}
            parent.clear()
            parent.update(new)
            gen.add_tree("tags", "%s: !!str on key %s" % (label, pstr(p)), t, "refuse")
            continue
        p = rng.choice(gen.numeric_leaves(t))
        v = get(t, p)
        tag = TAGS[i % len(TAGS)] if i < len(TAGS) else rng.choice(TAGS)
        raw = tag.format(v=v, work=gen.work)
        put(t, p, Raw(raw))
        gen.add_tree("tags", "%s: %s := %s" % (label, pstr(p), raw[:50]), t, "refuse")
    # directives
    label, tree = gen.bases[0]
    txt = emit_text(tree)
    gen.add_text("tags", "good: %TAG directive and a !e! tag",
                 "%TAG !e! tag:example.com,2000:\n---\n" + txt.replace("dt: 1.0e-2", "dt: !e!x 1.0e-2"),
                 "refuse")
    gen.add_text("tags", "good: %YAML 1.1 directive", "%YAML 1.1\n---\n" + txt, "any")
    gen.add_text("tags", "good: %YAML 2.0 directive", "%YAML 2.0\n---\n" + txt, "refuse")
    gen.add_text("tags", "good: unknown %FOO directive", "%FOO bar\n---\n" + txt, "any")


def fam_anchors(gen):
    label, tree = gen.bases[0]
    txt = emit_text(tree)
    a = gen.add_text
    a("anchors", "good: dt anchored, cfl_max an alias of it (valid)",
      txt.replace("dt: 1.0e-2", "dt: &d 1.0e-2\n  cfl_max: *d"), "any")
    a("anchors", "good: undefined alias *nope", txt.replace("dt: 1.0e-2", "dt: *nope"), "refuse")
    a("anchors", "good: self-referencing list description: &a [*a]", txt + "description: &a [*a]\n", "refuse")
    a("anchors", "good: self-referencing map grid.origin: &g {x: *g}",
      txt.replace("  lengths:", "  origin: &g {x: *g}\n  lengths:"), "refuse")
    a("anchors", "good: a section aliased to another (flow: *grid)",
      txt.replace("grid:\n", "grid: &g\n").replace("flow:\n  re: 100\n", "flow: *g\n"), "refuse")
    a("anchors", "good: merge key <<: *x", txt.replace("grid:\n", "grid: &g\n") + "output:\n  <<: *g\n", "refuse")
    a("anchors", "good: alias as a key", txt.replace("dt: 1.0e-2", "dt: &k dt").replace("  steps: 10", "  *k : 1\n  steps: 10"), "refuse")
    a("anchors", "good: anchor on a key", txt.replace("  steps: 10", "  &s steps: 10"), "any")
    for n, w in ((9, 10), (12, 10), (30, 2)):
        lol = ["&l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for k in range(1, n):
            lol.append("&l%d [%s]" % (k, ", ".join(["*l%d" % (k - 1)] * w)))
        a("anchors", "good: billion laughs %d levels x %d in description" % (n, w),
          txt + "description: [" + ", ".join(lol) + "]\n", "refuse")
        a("anchors", "good: billion laughs %d x %d in design.parameters" % (n, w),
          txt + "design:\n  parameters: [" + ", ".join(lol) + "]\n", "refuse")
    # laughs with the bomb in a block mapping under an unknown key, used as a value of a known one
    bomb = "lol0: &b0 [a, a, a, a, a, a, a, a]\n"
    for k in range(1, 25):
        bomb += "lol%d: &b%d [*b%d, *b%d]\n" % (k, k, k - 1, k - 1)
    a("anchors", "good: 2^24 aliases under unknown keys", txt + bomb, "refuse")
    a("anchors", "good: 2^24 aliases, then used by grid.origin",
      "x_anchors: [" + ", ".join(["&b0 [a, a]"] + ["&b%d [*b%d, *b%d]" % (k, k - 1, k - 1) for k in range(1, 25)]) + "]\n" + txt.replace("  lengths:", "  origin: *b24\n  lengths:"), "refuse")


def fam_nesting(gen):
    label, tree = gen.bases[0]
    txt = emit_text(tree)
    a = gen.add_text
    for n in (31, 33, 1000, 100000):
        a("nesting", "grid.origin: %d nested [" % n, txt.replace("  lengths:", "  origin: " + "[" * n + "]" * n + "\n  lengths:"), "refuse")
    a("nesting", "unterminated 100000 [", txt + "description: " + "[" * 100000 + "\n", "refuse")
    a("nesting", "50000 nested {a: ...}", txt + "description: " + "{a: " * 50000 + "1" + "}" * 50000 + "\n", "refuse")
    block = "".join(" " * i + "a:\n" for i in range(1000)) + " " * 1000 + "a: 1\n"
    a("nesting", "1000-deep block mapping (unknown key)", txt + block.replace("a:\n", "x:\n", 1), "refuse")
    block = "description:\n" + "".join(" " * (i + 1) + "a:\n" for i in range(200)) + " " * 201 + "b: 1\n"
    a("nesting", "200-deep block mapping in description", txt + block, "refuse")
    a("nesting", "1000-deep block sequence (- - - ...)", txt + "description:\n  " + "- " * 1000 + "x\n", "refuse")
    a("nesting", "comment of 100000 '{' at column 0", "#" + "{" * 100000 + "\n" + txt, "any")
    a("nesting", "comment of 100000 '[' indented", txt.replace("  lengths:", "  #" + "[" * 100000 + "\n  lengths:"), "any")
    a("nesting", "many comment lines of '{'", ("#{{{{{{{{{{{{{{{{{{{{{{{{{{{{{\n" * 20000) + txt, "any")
    a("nesting", "100000 '{' at column 0 (no #)", "{" * 100000 + "\n" + txt, "refuse")
    a("nesting", "trailing comment after a value with '{'", txt.replace("steps: 10", "steps: 10 # {{{{[[[["), "any")
    a("nesting", "a value '{' unterminated", txt.replace("steps: 10", "steps: {"), "refuse")


def fam_binary(gen, n):
    rng = gen.rng
    label, tree = gen.bases[0]
    txt = emit_text(tree).encode()
    a = gen.add_text
    a("binary", "512 random bytes", bytes(rng.randrange(256) for _ in range(512)), "refuse")
    a("binary", "ELF header", b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 56 + txt, "refuse")
    a("binary", "gzip header", b"\x1f\x8b\x08\x00" + bytes(rng.randrange(256) for _ in range(100)), "refuse")
    a("binary", "NUL byte at the start", b"\x00" + txt, "refuse")
    a("binary", "NUL at the end", txt + b"\x00", "refuse")
    a("binary", "NUL in a comment", txt + b"# abc\x00def\n", "refuse")
    a("binary", "NUL inside a value", txt.replace(b"re: 100", b"re: 10\x000"), "refuse")
    a("binary", "NUL inside a key", txt.replace(b"steps:", b"ste\x00ps:"), "refuse")
    a("binary", "ESC control char in a comment", txt + b"# \x1b[31mred\n", "refuse")
    a("binary", "DEL in a value", txt.replace(b"re: 100", b"re: 1\x7f00"), "refuse")
    a("binary", "C1 control U+0085 in a value", txt.replace(b"re: 100", "re: 1\u00850".encode()), "refuse")
    a("binary", "UTF-8 BOM then the case", b"\xef\xbb\xbf" + txt, "any")
    a("binary", "UTF-16LE with BOM", b"\xff\xfe" + txt.decode().encode("utf-16-le"), "any")
    a("binary", "UTF-32", txt.decode().encode("utf-32"), "refuse")
    a("binary", "tab indentation", txt.replace(b"  cells", b"\tcells"), "refuse")
    a("binary", "CRLF line ends", txt.replace(b"\n", b"\r\n"), "any")
    for i in range(n):
        b = bytearray(txt)
        for k in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        a("binary", "1-4 random bytes replaced (#%d)" % i, bytes(b), "any")


def fam_utf8(gen):
    label, tree = gen.bases[0]
    txt = emit_text(tree).encode()
    a = gen.add_text
    bad = [(b"\xff", "0xff"), (b"\xc0\xaf", "overlong /"), (b"\xed\xa0\x80", "UTF-16 surrogate"),
           (b"\xe2\x82", "truncated 3-byte"), (b"\xf8\x88\x80\x80\x80", "5-byte form"),
           (b"\xf4\x90\x80\x80", "above U+10FFFF"), (b"\x80", "lone continuation"),
           (b"\xe9", "latin-1 e-acute")]
    for seq, what in bad:
        a("invalid_utf8", "%s in a comment" % what, txt + b"# caf" + seq + b"\n", "refuse")
    for seq, what in bad[:4]:
        a("invalid_utf8", "%s in the description" % what, txt + b"description: x" + seq + b"y\n", "refuse")
    a("invalid_utf8", "0xff in a key", txt.replace(b"steps:", b"st\xffeps:"), "refuse")
    a("invalid_utf8", "truncated multibyte at EOF (no newline)", txt + b"description: caf\xc3", "refuse")
    a("invalid_utf8", "valid non-ASCII description", txt + "description: \u00e9t\u00e9 \u6d41 \U0001F300\n".encode(), "any")
    a("invalid_utf8", "valid non-ASCII key", txt + "gr\u00efd: 1\n".encode(), "refuse")
    a("invalid_utf8", "non-ASCII in the name", txt + "name: \u6d41\u4f53\n".encode(), "any")


def fam_truncated(gen, n):
    rng = gen.rng
    for i in range(n):
        label, tree = gen.pick_base()
        txt = emit_text(tree).encode()
        cut = rng.randrange(1, len(txt))
        gen.add_text("truncated", "%s: first %d of %d bytes" % (label, cut, len(txt)), txt[:cut], "any")
    label, tree = gen.bases[0]
    txt = emit_text(tree) + "description: caf\u00e9\n"
    b = txt.encode()
    gen.add_text("truncated", "cut inside a UTF-8 character", b[: b.index(b"\xc3") + 1], "refuse")
    gen.add_text("truncated", "cut inside a flow list", emit_text(tree).replace("[16, 16]", "[16, 1").split("[16, 1")[0] + "[16, 1", "refuse")
    gen.add_text("truncated", "cut inside a quoted string", emit_text(tree) + 'description: "abc', "refuse")


def fam_empty(gen):
    for text, what in [("", "empty file"), ("\n", "one newline"), ("   \n\n  \n", "blanks"),
                       ("\t\n", "a tab"), ("# only a comment\n", "only a comment"),
                       ("---\n", "'---'"), ("...\n", "'...'"), ("---\n...\n", "empty document"),
                       ("~\n", "null"), ("null\n", "'null'"), ("{}\n", "empty mapping"),
                       ("[]\n", "empty list"), ('""\n', "empty string"), ("0\n", "a number"),
                       ("\xef\xbb\xbf", "only a BOM"), ("---\n---\n", "two empty documents"),
                       ("grid:\n", "one empty section"), ("grid: {}\nflow: {}\ntime: {}\n", "empty sections")]:
        data = text.encode("latin-1") if "\xef" in text else text.encode()
        gen.add_text("empty", what, data, "refuse")


def fam_long(gen):
    label, tree = gen.bases[0]
    txt = emit_text(tree)
    a = gen.add_text
    w = gen.work
    a("long", "top-level key of 100000 chars", txt + "k" * 100000 + ": 1\n", "refuse")
    a("long", "key of 5000 chars in grid", txt.replace("  lengths:", "  " + "c" * 5000 + ": 1\n  lengths:"), "refuse")
    a("long", "name of 300 chars", txt + "name: " + "n" * 300 + "\n", "any")
    a("long", "name of 300 chars (run)", txt.replace("steps: 10", "steps: 1") + "name: " + "n" * 300 + "\n", "any", cmd="run")
    a("long", "name of 100000 chars", txt + "name: " + "n" * 100000 + "\n", "any")
    a("long", "description of 900 KB", txt + "description: " + "d" * 900000 + "\n", "any")
    a("long", "real of 5000 digits (overflows)", txt.replace("re: 100", "re: 1" + "0" * 5000 + ".0"), "refuse")
    a("long", "real 0.000...1 with 5000 zeros (underflows to 0)", txt.replace("re: 100", "re: 0." + "0" * 5000 + "1"), "refuse")
    a("long", "real with 5000 significant digits", txt.replace("re: 100", "re: 100." + "1" * 5000), "any")
    a("long", "int of 5000 digits", txt.replace("steps: 10", "steps: " + "9" * 5000), "refuse")
    a("long", "enum value of 100000 chars", txt + "poisson: {type: " + "f" * 100000 + "}\n", "refuse")
    a("long", "grid.cells with 100000 entries", txt.replace("cells: [16, 16]", "cells: [" + ", ".join(["16"] * 100000) + "]"), "refuse")
    a("long", "a line of 2 MB", txt + "# " + "x" * 2000000 + "\n", "refuse")
    a("long", "exactly 1 MiB", (txt + "#" * (1048576 - len(txt) - 1) + "\n"), "any")
    a("long", "1 MiB + 1 byte", (txt + "#" * (1048576 - len(txt)) + "\n"), "refuse")
    a("long", "body name of 31 chars", txt + "body:\n  " + "b" * 31 + ": {shape: circle, position: [0.5, 0.5], radius: 0.1}\n", "any")
    a("long", "body name of 32 chars", txt + "body:\n  " + "b" * 32 + ": {shape: circle, position: [0.5, 0.5], radius: 0.1}\n", "refuse")
    a("long", "body name of 100000 chars", txt + "body:\n  " + "b" * 100000 + ": {shape: circle, position: [0.5, 0.5], radius: 0.1}\n", "refuse")
    a("long", "probe name of 5000 chars", txt + "probe:\n  " + "p" * 5000 + ": {at: [0.5, 0.5]}\n", "refuse")
    a("long", "output.dir of 5000 chars (> PATH_MAX)", txt + "output: {dir: %s}\n" % json.dumps(os.path.join(w, "o", *(["d" * 99] * 50))), "refuse")


def fam_outdir(gen):
    """Output paths: run one at a time, with a check of DIR's parent around each."""
    w = gen.work
    label, tree = gen.bases[0]
    txt = emit_text(tree).replace("steps: 10", "steps: 2")
    a = gen.add_text

    def od(path):
        return txt + "output: {dir: %s}\n" % json.dumps(path)

    def long_dir(n):
        base = os.path.join(w, "long")
        rest = n - len(base) - 1
        parts = []
        while rest > 0:
            k = min(100, rest)
            if rest - k == 1:
                k -= 1
            parts.append("L" * k)
            rest -= k + 1
        p = os.path.join(base, *parts)
        return p[:n] if len(p) > n else p

    for n in (203, 204, 255, 1000, 3000):
        p = long_dir(n)
        a("outdir", "output.dir of %d chars (info)" % len(p), od(p), "any", serial=True)
        a("outdir", "output.dir of %d chars (run)" % len(p), od(p), "any", cmd="run", serial=True)
    p = long_dir(1000)
    gen.add("outdir", "--set output.dir of %d chars (run)" % len(p),
            ["run", gen.write("outdir", txt), "--set", "output.dir=" + p, "-fg_fftw_planner", "estimate"],
            cmd="run", serial=True)
    comp = os.path.join(w, "o", "c" * 256)
    a("outdir", "output.dir with a 256-char component", od(comp), "refuse", serial=True)
    a("outdir", "output.dir with a 256-char component (run)", od(comp), "refuse", cmd="run", serial=True)
    a("outdir", "output.dir with a newline (info)", od(os.path.join(w, "o", "nl\nx")), "any", serial=True)
    a("outdir", "output.dir with a newline (run)", od(os.path.join(w, "o", "nl\nrun")), "any", cmd="run", serial=True)
    a("outdir", "output.dir with '..' inside DIR", od(os.path.join(w, "o", "a", "..", "dotdot")), "any", cmd="run", serial=True)
    a("outdir", "output.dir relative", od("rel/sub"), "any", cmd="run", serial=True)
    a("outdir", "output.dir ''", od(""), "refuse", serial=True)
    a("outdir", "output.dir ' '", od(" "), "any", serial=True)
    a("outdir", "output.dir '.'", od("."), "any", cmd="run", serial=True)
    a("outdir", "output.dir with a tab and a quote", od(os.path.join(w, "o", "t\tq\"'")), "any", cmd="run", serial=True)
    a("outdir", "output.dir with %s %n %d", od(os.path.join(w, "o", "fmt%s%n%d%x")), "any", cmd="run", serial=True)
    a("outdir", "output.dir with ANSI escape", od(os.path.join(w, "o", "esc\x1b[31m")), "any", serial=True)
    # escapes out of the working directory
    par = os.path.dirname(os.path.abspath(w))
    cw = os.path.join(w, "cwd")
    for cmd in ("info", "run"):
        nm = "fgfuzz_escaped_%s_%d" % (cmd, gen.args.seed)
        a("outdir", "name: ../../../%s without output.dir (%s)" % (nm, cmd),
          txt + "name: ../../../%s\n" % nm, "any", cmd=cmd, serial=True, cwd=cw,
          escape_targets=[os.path.join(par, nm)])
    nm = "fgfuzz_escaped_deep_%d" % gen.args.seed
    deep = "../" * 40 + "tmp/" + nm
    a("outdir", "name: ../../(x40)/tmp/%s (run)" % nm, txt + "name: %s\n" % json.dumps(deep), "any",
      cmd="run", serial=True, cwd=cw, escape_targets=["/tmp/" + nm])
    nm = "fgfuzz_escaped_set_%d" % gen.args.seed
    gen.add("outdir", "--set name=../../../%s (run)" % nm,
            ["run", gen.write("outdir", txt), "--set", "name=../../../" + nm, "-fg_fftw_planner", "estimate"],
            cmd="run", serial=True, cwd=cw, escape_targets=[os.path.join(par, nm)])
    a("outdir", "name: '..' (run)", txt + "name: ..\n", "any", cmd="run", serial=True, cwd=cw)
    a("outdir", "name: '/abs/olute' (run)", txt + "name: /fgfuzz_abs\n", "any", cmd="run", serial=True, cwd=cw,
      escape_targets=["/fgfuzz_abs"])
    # special targets
    reg = os.path.join(w, "inputs", "a_regular_file")
    open(reg, "w").write("x\n")
    a("outdir", "output.dir is a regular file", od(reg), "refuse", serial=True)
    a("outdir", "output.dir is a regular file (run)", od(reg), "refuse", cmd="run", serial=True)
    a("outdir", "output.dir under a regular file", od(reg + "/sub"), "refuse", serial=True)
    tgt = os.path.join(w, "o", "symlink_target")
    os.makedirs(tgt, exist_ok=True)
    ln = os.path.join(w, "inputs", "a_symlink_dir")
    _symlink(tgt, ln)
    a("outdir", "output.dir is a symlink to a directory (run)", od(ln), "any", cmd="run", serial=True)
    dang = os.path.join(w, "inputs", "a_dangling_symlink")
    _symlink(os.path.join(w, "o", "nowhere", "x"), dang)
    a("outdir", "output.dir is a dangling symlink (run)", od(dang), "any", cmd="run", serial=True)
    loop = os.path.join(w, "inputs", "a_symlink_loop")
    _symlink(loop, loop)
    a("outdir", "output.dir is a symlink loop", od(loop), "refuse", serial=True)
    a("outdir", "output.dir /dev/null", od("/dev/null"), "refuse", serial=True)
    a("outdir", "output.dir /dev/null (run)", od("/dev/null"), "refuse", cmd="run", serial=True)
    a("outdir", "output.dir /dev/null/x", od("/dev/null/x"), "refuse", serial=True)
    a("outdir", "output.dir /proc/self", od("/proc/self"), "refuse", serial=True)
    a("outdir", "output.dir /proc/fgfuzz/x (run)", od("/proc/fgfuzz/x"), "refuse", cmd="run", serial=True)
    # FFTW wisdom as a special file
    fifo = os.path.join(w, "inputs", "a_fifo_wisdom")
    _mkfifo(fifo)
    gen.add("outdir", "-fg_fftw_wisdom FIFO (run)",
            ["run", gen.write("outdir", od(os.path.join(w, "o", "wis_fifo"))), "-fg_fftw_wisdom", fifo],
            cmd="run", serial=True)
    d = os.path.join(w, "o", "wis_in_dir")

    def mk_wisdom_fifo(d=d):
        os.makedirs(d, exist_ok=True)
        _mkfifo(os.path.join(d, "fftw.wisdom"))
    gen.add("outdir", "<output.dir>/fftw.wisdom is a FIFO (run)",
            ["run", gen.write("outdir", od(d))], cmd="run", serial=True, setup=mk_wisdom_fifo)
    gen.add("outdir", "-fg_fftw_wisdom /dev/zero (run)",
            ["run", gen.write("outdir", od(os.path.join(w, "o", "wis_zero"))), "-fg_fftw_wisdom", "/dev/zero"],
            cmd="run", serial=True)
    gen.add("outdir", "-fg_fftw_wisdom a directory (run)",
            ["run", gen.write("outdir", od(os.path.join(w, "o", "wis_dir"))), "-fg_fftw_wisdom", w],
            cmd="run", serial=True)
    garb = os.path.join(w, "inputs", "a_garbage_wisdom")
    open(garb, "wb").write(b"(fftw-3.3.10 fftw_wisdom\n  (garbage \xff\xfe 1 2 3\n")
    gen.add("outdir", "-fg_fftw_wisdom a garbage file (run)",
            ["run", gen.write("outdir", od(os.path.join(w, "o", "wis_garb"))), "-fg_fftw_wisdom", garb],
            cmd="run", serial=True)
    gen.add("outdir", "-fg_fftw_wisdom /proc/fgfuzz/w (run)",
            ["run", gen.write("outdir", od(os.path.join(w, "o", "wis_proc"))), "-fg_fftw_wisdom", "/proc/fgfuzz/w"],
            cmd="run", serial=True)


def _symlink(src, dst):
    try:
        if os.path.lexists(dst):
            os.unlink(dst)
        os.symlink(src, dst)
    except OSError:
        pass


def _mkfifo(p):
    try:
        if os.path.lexists(p):
            os.unlink(p)
        os.mkfifo(p)
    except OSError:
        pass


def fam_special(gen):
    w = gen.work
    a = gen.add
    ins = gen.idir
    a("special_file", "case file is a directory", ["info", ins], expected="refuse")
    fifo = os.path.join(ins, "a_fifo_case.yaml")
    _mkfifo(fifo)
    a("special_file", "case file is a FIFO (nobody writes)", ["info", fifo], expected="refuse")
    a("special_file", "case file /dev/zero", ["info", "/dev/zero"], expected="refuse")
    a("special_file", "case file /dev/urandom", ["info", "/dev/urandom"], expected="refuse")
    a("special_file", "case file /dev/null", ["info", "/dev/null"], expected="refuse")
    a("special_file", "case file does not exist", ["info", os.path.join(ins, "nope.yaml")], expected="refuse")
    dang = os.path.join(ins, "a_dangling.yaml")
    _symlink(os.path.join(ins, "nowhere.yaml"), dang)
    a("special_file", "case file a dangling symlink", ["info", dang], expected="refuse")
    loop = os.path.join(ins, "a_loop.yaml")
    _symlink(loop, loop)
    a("special_file", "case file a symlink loop", ["info", loop], expected="refuse")
    a("special_file", "case file path of 5000 chars", ["info", os.path.join(ins, *(["p" * 99] * 50)) + ".yaml"], expected="refuse")
    a("special_file", "case file name of 300 chars", ["info", os.path.join(ins, "n" * 300 + ".yaml")], expected="refuse")
    a("special_file", "case file ''", ["info", ""], expected="refuse")
    a("special_file", "case file /proc/self/status", ["info", "/proc/self/status"], expected="refuse")
    a("special_file", "case file /proc/self/mem", ["info", "/proc/self/mem"], expected="refuse")
    a("special_file", "case file /etc/passwd", ["info", "/etc/passwd"], expected="refuse")
    a("special_file", "case file /dev/stdin (empty)", ["info", "/dev/stdin"], expected="refuse")
    label, tree = gen.bases[0]
    good = gen.write("special_file", emit_text(tree))
    ln = os.path.join(ins, "a_symlink_case.yaml")
    _symlink(good, ln)
    a("special_file", "case file a symlink to a good case", ["info", ln], expected="any")
    odd = os.path.join(ins, "odd name\nwith newline.yaml")
    shutil.copy(good, odd)
    a("special_file", "case file name with a newline", ["info", odd], expected="any")
    noext = os.path.join(ins, "noext")
    shutil.copy(good, noext)
    a("special_file", "case file without .yaml", ["info", noext], expected="any")
    a("special_file", "case file named '-x.yaml' via ./", ["info", "./-x.yaml"], expected="refuse")
    a("special_file", "case file: a checkpoint-like HDF5 file", ["info", os.path.join(ins, "rho_topology_bend.h5")], expected="refuse")


def fam_probes(gen):
    rng = gen.rng
    a = gen.add_tree
    for label, tree in gen.bases:
        g = tree["grid"]
        if not isinstance(g.get("lengths"), list):
            continue
        L = [float(x) for x in g["lengths"]]
        O = [float(x) for x in g.get("origin", ["0"] * len(L))]
        dim = len(L)
        if dim not in (2, 3):
            continue
        mids = [o + l / 2 for o, l in zip(O, L)]

        def with_probe(at, ref=None, name="fz"):
            t = copy.deepcopy(tree)
            pr = t.setdefault(Raw("probe"), {})
            d = {Raw("at"): [Raw(x) for x in at]}
            if ref is not None:
                d[Raw("reference")] = [Raw(x) for x in ref]
            pr[Raw(name)] = d
            return t
        k = rng.randrange(dim)
        outside = list(map(repr, mids))
        if rng.random() < 0.5:
            outside[k] = repr(O[k] + L[k] * rng.choice([1.5, 2.0, 10.0]))
            a("probes", "%s: probe beyond the upper side of %s" % (label, "xyz"[k]), with_probe(outside), "refuse")
        else:
            outside[k] = repr(O[k] - L[k] * 0.25)
            a("probes", "%s: probe below the origin in %s" % (label, "xyz"[k]), with_probe(outside), "refuse")
        if label in ("good", "naca0012"):
            a("probes", "%s: probe at 1e308" % label, with_probe(["1e308"] * dim), "refuse")
            a("probes", "%s: probe at -1e308" % label, with_probe(["-1e308"] * dim), "refuse")
            a("probes", "%s: reference outside" % label, with_probe(list(map(repr, mids)), [repr(O[0] - 1)] + list(map(repr, mids[1:]))), "refuse")
            a("probes", "%s: probe at the origin corner" % label, with_probe(list(map(repr, O))), "any")
            a("probes", "%s: probe at the upper corner" % label, with_probe([repr(o + l) for o, l in zip(O, L)]), "any")
            a("probes", "%s: probe with %d entries" % (label, dim + 1), with_probe(list(map(repr, mids)) + ["0"]), "refuse")
            a("probes", "%s: probe with 1 entry" % label, with_probe([repr(mids[0])]), "refuse")
            a("probes", "%s: probe at nan" % label, with_probe([".nan"] * dim), "refuse")
            a("probes", "%s: probe name with a dot" % label, with_probe(list(map(repr, mids)), name="a.b"), "refuse")
            t = copy.deepcopy(tree)
            t[Raw("objective")] = {Raw("ke"): {Raw("kind"): Raw("kinetic_energy"),
                                              Raw("region"): [Raw(repr(x)) for x in O] + [Raw(repr(o + 2 * l)) for o, l in zip(O, L)]}}
            a("probes", "%s: objective region beyond the domain" % label, t, "refuse")
            t = copy.deepcopy(tree)
            t[Raw("actuator")] = {Raw("fz"): {Raw("center"): [Raw("1e308")] * dim, Raw("radius"): Raw("0.1"),
                                             Raw("force"): [Raw("1")] + [Raw("0")] * (dim - 1)}}
            a("probes", "%s: actuator centred at 1e308" % label, t, "any")
    # via --set on a case with a probe
    for label, tree in gen.bases:
        if "probe" in tree and label in ("naca0012", "truth", "cylinder_control"):
            p = gen.write("probes", emit_text(tree))
            name = list(tree["probe"].keys())[0]
            gen.add("probes", "%s: --set probe.%s.at outside" % (label, name),
                    ["info", p, "--set", "probe.%s.at=[-5,-5%s]" % (name, ",-5" if len(tree["grid"]["cells"]) == 3 else "")],
                    expected="refuse")
            gen.add("probes", "%s: --set probe.%s.at=[1e308,...] (run)" % (label, name),
                    ["run", p, "--set", "time.steps=1", "--set", "grid.cells=[16,16]", "--set",
                     "probe.%s.at=[1e308,1e308]" % name, "-fg_fftw_planner", "estimate"],
                    expected="refuse", cmd="run") if len(tree["grid"]["cells"]) == 2 else None


def fam_points(gen):
    label, tree = [b for b in gen.bases if b[0] == "cavity"][0]
    a = gen.add_tree

    def pts(sets, weight=None):
        t = copy.deepcopy(tree)
        d = {Raw("set"): [Raw(json.dumps(s)) for s in sets]}
        if weight is not None:
            d[Raw("weight")] = Raw(weight)
        t[Raw("points")] = {Raw("p1"): d}
        return t
    a("points", "points.p1.set valid (flow.re=200)", pts(["flow.re=200"]), "any")
    for s in ["a", "=", "grid.cells=[", "output.dir=/tmp/x", "points.p1.weight=2",
              "design.parameters=[flow.nu]", "flow.re=abc", "flow.re=.nan", "nokey=1", "flow.re=200\nflow.nu=1",
              "probe.x.at=[9,9]", "grid.cells=[16,16]=", "flow.re=!!str 5"]:
        a("points", "points.p1.set [%r]" % s, pts([s]), "refuse")
    a("points", "points.p1.set []", pts([]), "refuse")
    a("points", "points.p1.set of 17 entries", pts(["flow.re=100"] * 17), "refuse")
    a("points", "points.p1.weight 0", pts(["flow.re=200"], "0"), "refuse")
    a("points", "points.p1.weight -1", pts(["flow.re=200"], "-1"), "refuse")
    a("points", "points.p1.weight nan", pts(["flow.re=200"], ".nan"), "refuse")
    t = copy.deepcopy(tree)
    t[Raw("points")] = {Raw("p%d" % i): {Raw("set"): [Raw('"flow.re=100"')]} for i in range(9)}
    a("points", "9 points (at most 8)", t, "refuse")


def fam_cli(gen):
    label, tree = gen.bases[0]
    good = gen.write("cli", emit_text(tree))
    w = gen.work
    a = gen.add
    o = ["--set", "output.dir=" + os.path.join(w, "o", "cli")]
    a("cli", "no arguments", [], expected="refuse")
    a("cli", "unknown command", ["runn", good], expected="refuse")
    a("cli", "command only", ["info"], expected="refuse")
    a("cli", "two case files", ["info", good, good], expected="refuse")
    a("cli", "--help", ["--help"], expected="any")
    a("cli", "--version extra", ["--version", "x"], expected="any")
    a("cli", "info --keys extra", ["info", "--keys", "x"], expected="any")
    for opt in ["--bogus", "--resum", "--Set", "---set", "--", "--set=", "--set=time.dt=1", "-", "--resume=1", "--seT"]:
        a("cli", "unknown option %r" % opt, ["info", good, opt] + o,
          expected="any" if opt.startswith("--set=time") else "refuse")
    a("cli", "--set without a value", ["info", good, "--set"], expected="refuse")
    a("cli", "--resume with info", ["info", good, "--resume"] + o, expected="any")
    sets = ["a", "=", "==", "grid.cells=[", "grid.cells=]", "time.dt=", "time.dt= ", "=1", ".=1",
            "grid..cells=1", "grid.cells.x=1", "grid.cells[0]=8", "time.dt=0.01\ntime.steps=5",
            "time.dt=1\n", "time.steps=1e3", "time.dt=!!str 0.01", "time.dt=!!float 0.01",
            "time.dt=*a", "grid={cells: [8,8]}", "body.new.shape=circle", "time.dt=.nan", "time.dt=1e309",
            "time.steps=2147483648", "time.steps=9223372036854775808", "grid.cells=[16,16,16,16]",
            "time.dt=[0.01]", "time.dt={a: 1}", "time.dt=0.01 # comment", "time.dt=0.01, 0.02",
            "time.dt='0.01'", "time.dt=\x1b[31m", "poisson.type=fftw\x7f", "time=5", "time.=5",
            "=time.dt", " time.dt=0.01", "time.dt =0.01", "TIME.DT=0.01", "time.dt=&a 0.01",
            "time.dt=--- 0.01", "time.dt=... ", "time.dt=%YAML 1.1", "output.dir=",
            "grid.cells=[16, 16]\x00"]
    exp_any = {"grid.cells[0]=8", "time.dt=1\n", "time.dt=0.01 # comment", " time.dt=0.01",
               "time.dt =0.01", "time.dt=&a 0.01", "time.dt=--- 0.01"}
    for s in sets:
        if "\x00" in s:
            continue
        a("cli", "--set %r" % s[:60], ["info", good, "--set", s] + o,
          expected="any" if s in exp_any else "refuse")
    a("cli", "--set name with a newline", ["info", good, "--set", "name=a\nb"] + o, expected="any")
    a("cli", "--set time.dt= 100000 digits", ["info", good, "--set", "time.dt=" + "1" * 100000] + o, expected="refuse")
    a("cli", "--set description= 100000 chars", ["info", good, "--set", "description=" + "x" * 100000] + o, expected="any")
    a("cli", "--set key of 100000 chars", ["info", good, "--set", "k" * 100000 + "=1"] + o, expected="refuse")
    a("cli", "--set invalid UTF-8 value", ["info", good, "--set", b"description=caf\xe9"] + o, expected="refuse")
    a("cli", "--set invalid UTF-8 key", ["info", good, "--set", b"gr\xffid.cells=[8,8]"] + o, expected="refuse")
    a("cli", "500 --set options", ["info", good] + ["--set", "time.steps=3"] * 500 + o, expected="any")
    a("cli", "case file after a PETSc option", ["info", "-log_view", good], expected="refuse")
    a("cli", "--set before the case file", ["info", "--set", "time.steps=3", good], expected="any")


def fam_petsc(gen):
    rb = dict(gen.run_bases)
    tree = rb["good"]
    run = gen.write("petsc", emit_text(tree))
    w = gen.work
    a = gen.add
    est = ["-fg_fftw_planner", "estimate"]

    def rn(desc, opts, exp="refuse", base=run, cmd="run"):
        a("petsc", desc, [cmd, base] + opts, expected=exp, cmd=cmd)
    a("petsc", "info -log_view :/proc/nope", ["info", run, "-log_view", ":/proc/nope"], expected="refuse")
    rn("run -log_view :/proc/nope", ["-log_view", ":/proc/nope"] + est)
    rn("run -log_view ascii:/proc/nope:ascii_info_detail", ["-log_view", "ascii:/proc/nope:ascii_info_detail"] + est)
    rn("-fg_test_raise_signal_at_step abc", ["-fg_test_raise_signal_at_step", "abc"] + est)
    rn("-fg_test_raise_signal_at_step -5", ["-fg_test_raise_signal_at_step", "-5"] + est)
    rn("-fg_test_raise_signal_at_step 1e40", ["-fg_test_raise_signal_at_step", "1e40"] + est)
    rn("-fg_test_raise_signal_at_step (no value)", ["-fg_test_raise_signal_at_step"] + est)
    rn("-fg_test_raise_signal_rank 99 (1 rank)", ["-fg_test_raise_signal_at_step", "1", "-fg_test_raise_signal_rank", "99"] + est, exp="any")
    rn("-fg_test_raise_signal_rank -1", ["-fg_test_raise_signal_at_step", "1", "-fg_test_raise_signal_rank", "-1"] + est)
    rn("-fg_test_raise_signal KILL9", ["-fg_test_raise_signal_at_step", "1", "-fg_test_raise_signal", "KILL9"] + est)
    rn("-fg_fftw_planner bogus", ["-fg_fftw_planner", "bogus"])
    rn("-fg_fftw_planner ''", ["-fg_fftw_planner", ""])
    rn("-fg_viscous_solver nope (explicit viscous term: unused)", ["-fg_viscous_solver", "nope"] + est, exp="any")
    rn("-fg_viscous_solver nope (time.viscous implicit)", ["--set", "time.viscous=implicit", "-fg_viscous_solver", "nope"] + est)
    rn("-fg_fftw_tridiagonal maybe", ["-fg_fftw_tridiagonal", "maybe"] + est)
    a("petsc", "-options_file missing", ["info", run, "-options_file", os.path.join(w, "nope.opts")], expected="refuse")
    a("petsc", "-options_file a directory", ["info", run, "-options_file", w], expected="refuse")
    a("petsc", "-options_file /dev/zero", ["info", run, "-options_file", "/dev/zero"], expected="refuse")
    binf = os.path.join(gen.idir, "a_binary.opts")
    open(binf, "wb").write(bytes(gen.rng.randrange(256) for _ in range(300)))
    a("petsc", "-options_file binary garbage", ["info", run, "-options_file", binf], expected="refuse")
    rec = os.path.join(gen.idir, "a_recursive.opts")
    open(rec, "w").write("-options_file %s\n" % rec)
    a("petsc", "-options_file including itself", ["info", run, "-options_file", rec], expected="refuse")
    fifo = os.path.join(gen.idir, "a_fifo.opts")
    _mkfifo(fifo)
    a("petsc", "-options_file a FIFO", ["info", run, "-options_file", fifo], expected="refuse")
    a("petsc", "-options_file (no value)", ["info", run, "-options_file"], expected="refuse")
    rn("-poisson_ksp_type bogus (poisson ksp)", ["--set", "poisson.type=ksp", "-poisson_ksp_type", "bogus"] + est)
    rn("-poisson_ksp_max_it -1 (poisson ksp)", ["--set", "poisson.type=ksp", "-poisson_ksp_max_it", "-1"] + est)
    rn("-poisson_pc_type nothing (poisson ksp)", ["--set", "poisson.type=ksp", "-poisson_pc_type", "nothing"] + est)
    rn("-help", ["-help"] + est, exp="any")
    rn("unused -fg_penalty_inner_its -3 (run)", ["-fg_penalty_inner_its", "-3"] + est, exp="any")
    cav = dict(gen.run_bases)["cavity"]
    chk = gen.write("petsc", emit_text(cav))
    for opt, val in [("-fg_check_dot_rtol", "-1"), ("-fg_check_taylor_order", "abc"),
                     ("-fg_check_fd_step", "0"), ("-fg_check_fd_rtol", ".nan"), ("-fg_check_taylor_eps", "0")]:
        rn("check %s %s" % (opt, val), [opt, val] + est, base=chk, cmd="check")
    rn("check -fg_check_seed 12345 (valid)", ["-fg_check_seed", "12345"] + est, exp="any", base=chk, cmd="check")
    rn("adjoint -fg_test_adjoint_kill_at abc", ["-fg_test_adjoint_kill_at", "abc"] + est, base=chk, cmd="adjoint")


def fam_run(gen, n):
    """Valid-looking or borderline values through `run` (2 steps): exit 0, or 2/3/4 with a message."""
    rng = gen.rng
    edits = [
        ("output.fields_every", "1"), ("output.checkpoint_every", "1"), ("output.checkpoint_keep", "1"),
        ("output.monitor_every", "1000000"), ("time.steps", "0"), ("time.steps", "1"),
        ("time.dt", "1e308"), ("time.dt", "5e-324"), ("time.dt", "1e-300"), ("time.cfl_max", "1e-300"),
        ("time.cfl_max", "1e308"), ("flow.re", "1e-300"), ("flow.re", "1e300"), ("flow.force", "[1e308, 1e308]"),
        ("poisson.type", "ksp"), ("poisson.max_it", "1"), ("poisson.rtol", "0.999999"), ("poisson.rtol", "1e-300"),
        ("time.viscous", "implicit"), ("time.viscous", "explicit"), ("initial.type", "uniform"),
        ("grid.cells", "[2, 2]"), ("grid.cells", "[3, 5]"), ("grid.lengths", "[1e-300, 1e-300]"),
        ("grid.lengths", "[1e300, 1e300]"), ("grid.origin", "[1e308, 1e308]"), ("grid.origin", "[-1e308, 0]"),
        ("time.dt", "0.5"), ("flow.u_ref", "1e-300"), ("output.checkpoint_keep", "100000"),
    ]
    for i in range(n):
        label, tree = gen.run_bases[i % len(gen.run_bases)]
        t = copy.deepcopy(tree)
        kp, raw = edits[i % len(edits)] if i < len(edits) else rng.choice(edits)
        parts = kp.split(".")
        dim = len(t["grid"]["cells"])
        if raw.startswith("[") and dim == 3:
            raw = raw[:-1] + ", " + raw[1:-1].split(",")[-1].strip() + "]"
        sec = t.setdefault(Raw(parts[0]), {})
        if not isinstance(sec, dict):
            continue
        if kp == "flow.re" and "nu" in sec:
            del sec["nu"]
        if kp == "flow.u_ref" and "nu" in sec:
            continue
        sec[Raw(parts[1])] = Raw(raw)
        exp = classify(gen.schema, t, tuple(parts), raw) if not raw.startswith("[") else "any"
        gen.add_tree("run", "run %s: %s := %s" % (label, kp, raw), t, exp, cmd="run")
    # adjoint on the tiny cavity
    cav = dict(gen.run_bases)["cavity"]
    gen.add_tree("run", "adjoint cavity (2 steps)", cav, "accept", cmd="adjoint")
    gen.add_tree("run", "check cavity (2 steps)", cav, "any", cmd="check")
    t = copy.deepcopy(cav)
    t["design"]["parameters"] = [Raw("flow.nu"), Raw("flow.nu")]
    gen.add_tree("run", "adjoint: design.parameters twice flow.nu", t, "refuse", cmd="adjoint")
    t = copy.deepcopy(cav)
    t["objective"]["energy"]["kind"] = Raw("nope")
    gen.add_tree("run", "adjoint: objective kind nope", t, "refuse", cmd="adjoint")
    t = copy.deepcopy(cav)
    t["adjoint"] = {Raw("memory"): Raw('"1 KiB"')}
    gen.add_tree("run", "adjoint: adjoint.memory 1 KiB", t, "any", cmd="adjoint")
    t = copy.deepcopy(cav)
    t["adjoint"] = {Raw("memory"): Raw('"-5 GiB"')}
    gen.add_tree("run", "adjoint: adjoint.memory -5 GiB", t, "refuse", cmd="adjoint")
    t = copy.deepcopy(cav)
    t["adjoint"] = {Raw("memory"): Raw('"1e400 GiB"')}
    gen.add_tree("run", "adjoint: adjoint.memory 1e400 GiB", t, "refuse", cmd="adjoint")
    t = copy.deepcopy(cav)
    t["adjoint"] = {Raw("storage"): Raw("disk"), Raw("segment"): Raw("1")}
    gen.add_tree("run", "adjoint: storage disk, segment 1", t, "any", cmd="adjoint")
    # --resume into a directory with no / a foreign checkpoint
    good = dict(gen.run_bases)["good"]
    gen.add_tree("run", "run --resume with no checkpoint", good, "refuse", cmd="run", extra=["--resume"])


# ----------------------------------------------------------------------------------------------
# Runner

def names_something(line, inp):
    body = line.split("flowgrad: error:", 1)[-1]
    if re.search(r"[A-Za-z_][\w<>\[\]]*\.[A-Za-z_][\w<>\[\]]*", body):
        return True          # a key path (grid.cells) or a file name (x.yaml)
    if re.search(r":\d+", body):
        return True          # a line number
    if re.search(r"(^|[\s'\"(`])--?[A-Za-z]", body):
        return True          # an option
    if "/" in body:
        return True          # a path
    if re.search(r"\b(command|argument|case file|option)\b", body):
        return True
    return False


def snapshot_tree(root, exclude):
    out = set()
    for dp, dns, fns in os.walk(root):
        if dp == root and ".git" in dns:
            dns.remove(".git")
        dns[:] = [d for d in dns if os.path.abspath(os.path.join(dp, d)) != exclude]
        for n in dns + fns:
            out.add(os.path.join(dp, n))
    return out


def listdir_set(d):
    try:
        return set(os.listdir(d))
    except OSError:
        return set()


def run_one(inp, args, env):
    cwd = inp.cwd or os.path.join(args.work, "c", "%04d" % inp.id)
    os.makedirs(cwd, exist_ok=True)
    if inp.setup:
        inp.setup()
    argv = [os.fsencode(args.flowgrad)] + [a if isinstance(a, bytes) else os.fsencode(a) for a in inp.argv]
    t0 = time.time()
    to = inp.timeout or args.timeout
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=to)
        timed_out = False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = p.communicate()
        timed_out = True
    dt = time.time() - t0
    return judge(inp, p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                 timed_out, dt)


def judge(inp, rc, out, err, timed_out, dt):
    res = {"rc": rc, "time": dt, "fail": None, "msg": "", "outcome": None}
    errlines = [l for l in err.splitlines() if "error:" in l]
    res["msg"] = (errlines[0] if errlines else (err.strip().splitlines() or out.strip().splitlines()[-1:] or [""])[0])[:200]
    runlike = inp.cmd in ("run", "adjoint", "check")
    if timed_out:
        res["fail"] = "hang"
        res["msg"] = "no exit after %.0f s" % dt
        return res
    if rc < 0 or rc > 128:
        res["fail"] = "signal"
        res["msg"] = "killed by signal %d; %s" % (-rc if rc < 0 else rc - 128, res["msg"])
        return res
    both = out + "\n" + err
    bad = [s for s in FORBIDDEN if s in both]
    if rc == 1:
        res["fail"] = "exit1"
        return res
    if bad:
        res["fail"] = "crash-text"
        res["msg"] = "output holds %r; %s" % (bad[0], res["msg"])
        return res
    if rc == 0:
        res["outcome"] = "accepted"
        if inp.expected == "refuse":
            res["fail"] = "accepted"
            res["msg"] = "exit 0 for an invalid input"
        return res
    res["outcome"] = "refused"
    allowed = {2, 4} | ({3} if runlike and inp.expected != "refuse" else set())
    if rc not in allowed:
        res["fail"] = "exit%d" % rc
        return res
    if len(errlines) != 1:
        res["fail"] = "messages"
        res["msg"] = "%d lines with 'error:' on stderr; first: %s" % (len(errlines), res["msg"])
        return res
    if not errlines[0].startswith("flowgrad: error:"):
        res["fail"] = "message-format"
        return res
    if not names_something(errlines[0], inp):
        res["fail"] = "message-vague"
        return res
    if inp.expected == "accept" and not (inp.cmd == "check" and rc == 3):
        res["fail"] = "refused-valid"
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flowgrad", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=600, help="at least this many inputs (default 600)")
    ap.add_argument("--jobs", type=int, default=4, help="inputs run at once (default 4; they mostly wait)")
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--list-failures", action="store_true",
                    help="also print, per failure, the command that reproduces it and its stderr")
    args = ap.parse_args()
    args.flowgrad = os.path.abspath(args.flowgrad)
    args.repo = os.path.abspath(args.repo)
    args.work = os.path.abspath(args.work)
    if os.path.exists(args.work):
        shutil.rmtree(args.work)
    os.makedirs(args.work)
    for d in ("c", "o", "cwd"):
        os.makedirs(os.path.join(args.work, d), exist_ok=True)
    t_start = time.time()
    schema = load_schema(args.repo)
    gen = Gen(args, schema)
    make_bases(gen)

    fam_control(gen)
    fam_cli(gen)
    fam_petsc(gen)
    fam_special(gen)
    fam_empty(gen)
    fam_long(gen)
    fam_nesting(gen)
    fam_anchors(gen)
    fam_utf8(gen)
    fam_binary(gen, 8)
    fam_tags(gen, 30)
    fam_probes(gen)
    fam_points(gen)
    fam_outdir(gen)
    fam_run(gen, 40)
    fam_duplicate(gen, 16)
    fixed = len(gen.inputs)
    # the random families fill up to --count
    rest = max(args.count - fixed, 240)
    share = [("type_swap", 0.25), ("delete_key", 0.12), ("huge", 0.14), ("tiny", 0.09),
             ("negative", 0.1), ("zero", 0.08), ("nonfinite", 0.12), ("truncated", 0.10)]
    for fam, f in share:
        k = max(8, int(round(rest * f)))
        if fam == "type_swap":
            fam_type_swap(gen, k)
        elif fam == "delete_key":
            fam_delete(gen, k)
        elif fam == "truncated":
            fam_truncated(gen, k)
        else:
            fam_values(gen, fam, {"huge": HUGE, "tiny": TINY, "negative": NEGATIVE, "zero": ZERO,
                                  "nonfinite": NONFINITE}[fam], k)
    inputs = gen.inputs
    t_gen = time.time() - t_start

    env = dict(os.environ)
    env["OMPI_MCA_odls_base_sigkill_timeout"] = "0"
    env.setdefault("OMPI_MCA_ess_singleton_isolated", "1")
    env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"

    parent = os.path.dirname(args.work)
    repo_before = snapshot_tree(args.repo, args.work)
    par_before = listdir_set(parent)
    esc_before = {t: os.path.lexists(t) for i in inputs for t in i.escape_targets}

    par_inputs = [i for i in inputs if not i.serial]
    ser_inputs = [i for i in inputs if i.serial]
    # The inputs that play with paths run one at a time (a check of DIR's parent around each), in
    # a thread of their own beside the pool of the others (whose paths all lie under DIR).
    def serial_phase():
        for i in ser_inputs:
            run_serial(i)

    notes = []

    def related(i, name):
        """Whether a new entry of DIR's parent named name can come from input i."""
        blob = b""
        for x in i.argv:
            xb = x if isinstance(x, bytes) else os.fsencode(x)
            blob += xb + b"\n"
            if xb.startswith(os.fsencode(gen.idir)) and os.path.isfile(xb):
                try:
                    with open(xb, "rb") as f:
                        blob += f.read(2 << 20)
                except OSError:
                    pass
        return os.fsencode(name) in blob

    def run_serial(i):
        before = listdir_set(parent)
        i.result = run_one(i, args, env)
        new = sorted(listdir_set(parent) - before)
        escaped = [t for t in i.escape_targets if os.path.lexists(t) and not esc_before.get(t)]
        mine = [os.path.join(parent, n) for n in new if related(i, n)]
        notes.extend(os.path.join(parent, n) for n in new if not related(i, n))
        bad = sorted(set(mine + escaped))
        if bad:
            i.result["fail"] = "escaped"
            i.result["msg"] = "created outside %s: %s" % (args.work, ", ".join(bad))
            for pth in escaped:     # remove what this input made outside DIR (known names only)
                try:
                    shutil.rmtree(pth) if os.path.isdir(pth) and not os.path.islink(pth) else os.unlink(pth)
                except OSError:
                    pass

    st = threading.Thread(target=serial_phase)
    st.start()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs - 1)) as ex:
        futs = {ex.submit(run_one, i, args, env): i for i in par_inputs}
        for f in concurrent.futures.as_completed(futs):
            futs[f].result = f.result()
    st.join()
    with open(os.path.join(args.work, "results.tsv"), "w") as f:
        for i in inputs:
            r = i.result
            f.write("%04d\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%s\n" % (
                i.id, i.family, i.cmd, i.expected, r["rc"], r["fail"] or "-", r["time"],
                one_line(i.desc, 120), one_line(r["msg"], 200)))
    repo_new = sorted(snapshot_tree(args.repo, args.work) - repo_before)
    par_new = sorted(listdir_set(parent) - par_before)
    wall = time.time() - t_start

    # report
    fams = []
    for i in inputs:
        if i.family not in fams:
            fams.append(i.family)
    print("flowgrad fuzz: %d inputs (seed %d), %s, %.0f s (generation %.1f s)" %
          (len(inputs), args.seed, args.flowgrad, wall, t_gen))
    print("%-14s %6s %8s %9s %9s" % ("family", "count", "refused", "accepted", "failures"))
    tot = [0, 0, 0, 0]
    for fam in fams:
        its = [i for i in inputs if i.family == fam]
        c = len(its)
        ref = sum(1 for i in its if i.result["outcome"] == "refused")
        acc = sum(1 for i in its if i.result["outcome"] == "accepted")
        fl = sum(1 for i in its if i.result["fail"])
        for k, v in enumerate((c, ref, acc, fl)):
            tot[k] += v
        print("%-14s %6d %8d %9d %9d" % (fam, c, ref, acc, fl))
    print("%-14s %6d %8d %9d %9d" % ("total", *tot))
    kinds = {}
    fails = [i for i in inputs if i.result["fail"]]
    for i in fails:
        kinds[i.result["fail"]] = kinds.get(i.result["fail"], 0) + 1
    if fails:
        print("\nfailures by kind: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items(), key=lambda x: -x[1])))
        print("\nFAILURES (family | input | expected | rc | kind | first message line):")
    order = ["signal", "hang", "escaped", "crash-text", "exit1", "accepted", "exit3", "messages",
             "message-format", "message-vague", "refused-valid"]
    fails.sort(key=lambda i: (order.index(i.result["fail"]) if i.result["fail"] in order else 99, i.id))
    for i in fails:
        r = i.result
        print("FAIL %-13s #%04d %s | expected %s | rc %s | %s | %s" %
              (i.family, i.id, one_line(i.desc, 90), i.expected, r["rc"], r["fail"], one_line(r["msg"], 160)))
        if args.list_failures:
            cwd = i.cwd or os.path.join(args.work, "c", "%04d" % i.id)
            argv = [args.flowgrad] + [a.decode("latin-1") if isinstance(a, bytes) else a for a in i.argv]
            cmdline = " ".join(shlex.quote(a) if len(a) < 300 else shlex.quote(a[:60]) + "...(%d chars)" % len(a) for a in argv)
            print("     repro: cd %s && %s" % (shlex.quote(cwd), cmdline))
    extra = 0
    if repo_new:
        extra += 1
        print("FAIL created in the repository during the run: " + ", ".join(repo_new[:20]))
    for n in notes:
        print("note: %s appeared in DIR's parent during a serial input, not named by it (another process?)" % n)
    if par_new and False:
        print("note: new entries in %s during the run (other processes too may make them): %s" %
              (parent, ", ".join(par_new[:20])))
    print("\n%d of %d inputs failed" % (len(fails), len(inputs)))
    sys.exit(1 if fails or extra else 0)


def one_line(s, n):
    s = s.replace("\n", "\\n").replace("\t", "\\t").replace("\x1b", "\\e")
    return s if len(s) <= n else s[: n - 3] + "..."


if __name__ == "__main__":
    main()
