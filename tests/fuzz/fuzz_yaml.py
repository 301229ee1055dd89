"""A small YAML model for the flowgrad fuzzer (tests/fuzz/fuzz_inputs.py).

The tree of a case file with every scalar kept as its raw text (Raw), so that a mutation can put
any text (a tag, an alias, garbage) where a value was; an emitter back to block/flow YAML; and
helpers to address, change and list the values of a tree by their path (a tuple of keys and list
indices).
"""
import json


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


def pstr(p):
    s = ""
    for x in p:
        s += "[%d]" % x if isinstance(x, int) else ("." if s else "") + str(x)
    return s
