"""The key table of docs/case-files.md and the expected verdict of a mutated value.

For the flowgrad fuzzer (tests/fuzz/fuzz_inputs.py): load_schema reads the type, default and
range of every key; classify/classify_scalar/classify_list_swap say whether a value put at a key
is certainly invalid ("refuse") or may be valid ("any"); derived_invalid catches what a whole case
implies that no valid case may (an infinite viscosity, a probe outside the domain, ...).
"""
import copy
import os
import re

from fuzz_yaml import Raw, keypath, put


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
    if e == "any":
        t = copy.deepcopy(tree)
        put(t, path, Raw(raw))
        if derived_invalid(t):
            return "refuse"
    return e


def fnum(x):
    """The float of a plain numeric scalar, else None."""
    if isinstance(x, (list, dict)) or x is None:
        return None
    pn = parse_num(x)
    if pn is None:
        return None
    try:
        return float(pn[0])
    except OverflowError:
        return float("inf") if pn[0] > 0 else float("-inf")


def derived_invalid(t):
    """What a case implies that no valid case may: an infinite or zero viscosity or Reynolds
    number, a zero grid spacing, an infinite domain, a probe or an objective region outside the
    domain."""
    inf = float("inf")
    fl = t.get("flow")
    if isinstance(fl, dict):
        u = fnum(fl.get("u_ref", "1"))
        l = fnum(fl.get("l_ref", "1"))
        for have, other in (("re", "nu"), ("nu", "re")):
            if have in fl and other not in fl:
                x = fnum(fl[have])
                if None not in (u, l, x) and u > 0 and l > 0 and x > 0 and x != inf and u != inf and l != inf:
                    y = u * l / x
                    if y == 0.0 or y == inf:
                        return True
    g = t.get("grid")
    if not isinstance(g, dict):
        return False
    cells, lengths = g.get("cells"), g.get("lengths")
    if not isinstance(cells, list) or not isinstance(lengths, list) or len(cells) != len(lengths):
        return False
    dim = len(cells)
    origin = g.get("origin", ["0"] * dim)
    if not isinstance(origin, list) or len(origin) != dim:
        return False
    lo, hi = [], []
    for d in range(dim):
        L, O = fnum(lengths[d]), fnum(origin[d])
        c = fnum(cells[d])
        if L is None or O is None or c is None or not (0 < L < inf) or abs(O) == inf:
            return False
        if c >= 1 and L / c == 0.0:
            return True
        if abs(O + L) == inf:
            return True
        lo.append(O)
        hi.append(O + L)
    tol = [1e-9 * (h - l_) for l_, h in zip(lo, hi)]

    def outside(pt):
        if not isinstance(pt, list) or len(pt) != dim:
            return False
        xs = [fnum(x) for x in pt]
        if None in xs or any(x != x for x in xs):
            return False
        return any(x < lo[d] - tol[d] or x > hi[d] + tol[d] for d, x in enumerate(xs))
    pr = t.get("probe")
    if isinstance(pr, dict):
        for p in pr.values():
            if isinstance(p, dict) and (outside(p.get("at")) or outside(p.get("reference"))):
                return True
    ob = t.get("objective")
    if isinstance(ob, dict):
        for o in ob.values():
            r = o.get("region") if isinstance(o, dict) else None
            if isinstance(r, list) and len(r) == 2 * dim and (outside(r[:dim]) or outside(r[dim:])):
                return True
    return False


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
