"""A small TOML writer (tomllib reads TOML; the standard library writes none): values, keys quoted
where TOML needs it, and whole scenario dicts. Used by the report (the scenario it shows) and the
layout writer (sim/sun/layout.py)."""

from __future__ import annotations

import json
from typing import Any


def toml_value(v: Any) -> str:
    """One TOML value: booleans, integers, floats (Python's shortest round-trip form, always with a
    dot or an exponent), strings (JSON escapes are valid TOML), lists and inline tables."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return repr(v)
    if isinstance(v, float):
        r = repr(v)
        return r if any(c in r for c in ".eEn") else r + ".0"
    if isinstance(v, str):
        # JSON's escapes are TOML's, but JSON leaves DEL (U+007F) raw, which TOML forbids
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(x)}" for k, x in v.items()) + "}"
    return json.dumps(str(v))


def toml_key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)


def to_toml(d: dict[str, Any]) -> str:
    """A TOML rendering of a scenario dict (top-level keys, tables, arrays of tables)."""
    lines = []
    for k, v in d.items():
        if not isinstance(v, dict) and not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v)):
            lines.append(f"{toml_key(k)} = {toml_value(v)}")
    for k, v in d.items():
        if isinstance(v, dict):
            lines += ["", f"[{toml_key(k)}]"] + [f"{toml_key(a)} = {toml_value(b)}" for a, b in v.items()]
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for item in v:
                lines += ["", f"[[{toml_key(k)}]]"] + [f"{toml_key(a)} = {toml_value(b)}" for a, b in item.items()]
    return "\n".join(lines) + "\n"
