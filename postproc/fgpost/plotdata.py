"""Helpers of the history, optimization, control and campaign subcommands (not in common.py).

  load_case(run_dir)          case.resolved.yaml as a dict ({} when missing or unreadable)
  body_refs(case, body)       (ref_length, ref_speed, ref_area) of a body, flowgrad's defaults
  require_dir(path)           PostprocError unless path is a directory
  parse_list(text)            "0,5,last" -> ["0", "5", "last"]
"""
import os

from .common import PostprocError


def require_dir(path, what="run directory"):
    if not os.path.isdir(path):
        raise PostprocError(f"{path}: no such {what}")


def load_case(run_dir):
    path = os.path.join(run_dir, "case.resolved.yaml")
    try:
        import yaml
        with open(path) as f:
            case = yaml.safe_load(f)
        return case if isinstance(case, dict) else {}
    except (OSError, ImportError):
        return {}
    except Exception:  # a damaged file: the defaults
        return {}


def _get(d, *keys, default=None):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d


def body_refs(case, body):
    """(L, U, A, from_case): the body's ref_length, ref_speed, ref_area (flowgrad's defaults:
    flow.l_ref, flow.u_ref, ref_length per unit span in 2D, ref_length^2 in 3D) and whether the
    case file said so."""
    b = _get(case, "body", body, default=None)
    l_ref = float(_get(case, "flow", "l_ref", default=1.0) or 1.0)
    u_ref = float(_get(case, "flow", "u_ref", default=1.0) or 1.0)
    dim = len(_get(case, "grid", "cells", default=[0, 0]) or [0, 0])
    if not isinstance(b, dict):
        return l_ref, u_ref, (l_ref if dim != 3 else l_ref ** 2), False
    L = float(b.get("ref_length", l_ref))
    U = float(b.get("ref_speed", u_ref))
    A = float(b.get("ref_area", L if dim != 3 else L * L))
    return L, U, A, True


def get(case, *keys, default=None):
    return _get(case, *keys, default=default)


def parse_list(text):
    return [w.strip() for w in str(text).split(",") if w.strip()]
