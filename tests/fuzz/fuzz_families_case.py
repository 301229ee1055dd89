"""Families of hostile inputs made by mutating a case file's content (flowgrad fuzzer).

Controls (the small bases, which must be accepted), values of the wrong type, deleted and
duplicated keys, huge/tiny/negative/zero/non-finite numbers, YAML tags and directives, anchors and
alias bombs, deep nesting, binary and invalid UTF-8 bytes, truncated, empty and overlong files,
probes and objective regions outside the domain, and parameter-sweep points. Each fam_* appends
to a Gen (fuzz_gen.py); the order of the calls and of the random draws fixes the inputs of a seed.
"""
import copy
import json
import os
import re

from fuzz_schema import classify, classify_list_swap, schema_of
from fuzz_yaml import Raw, delete, emit, emit_text, flow, get, keypath, leaves, pstr, put, sections


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
    # comments are comments, whatever they hold: a valid case stays valid
    a("nesting", "comment of 100000 '{' at column 0", "#" + "{" * 100000 + "\n" + txt, "accept")
    a("nesting", "comment of 100000 '[' indented", txt.replace("  lengths:", "  #" + "[" * 100000 + "\n  lengths:"), "accept")
    a("nesting", "20000 comment lines of '{' at column 0", ("#{{{{{{{{{{{{{{{{{{{{{{{{{{{{{\n" * 20000) + txt, "accept")
    a("nesting", "40 comment lines '# {' at column 0", ("# {\n" * 40) + txt, "accept")
    a("nesting", "second line a comment of 40 '{'", "# case\n#" + "{" * 40 + "\n" + txt, "accept")
    a("nesting", "40 indented comment lines of '['", txt.replace("  lengths:", "  #[\n" * 40 + "  lengths:"), "accept")
    a("nesting", "quoted description holding 100 '{'", txt + "description: \"" + "{" * 100 + "\"\n", "accept")
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
