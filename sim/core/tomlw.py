"""A small TOML writer (tomllib reads TOML; the standard library writes none): values, keys quoted
where TOML needs it, comments, and whole scenario dicts. Used by the report (the scenario it shows),
the layout writer (sim/sun/table/layout.py) and the skill preset writer (sim/sun/players/thrower.py).

Every text that goes into a written TOML file goes through :func:`toml_value`, :func:`toml_key`
or :func:`toml_comment`: a file name or a label can hold a newline or another control character,
which would otherwise end a comment early or break a string, and the file would not load."""

from __future__ import annotations

import json
import re
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
        return json.dumps(_scalars(v), ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(x)}" for k, x in v.items()) + "}"
    return json.dumps(str(v))


def toml_key(k: str) -> str:
    """A TOML key: bare when TOML allows it (ASCII letters, digits, ``_`` and ``-``), else quoted."""
    return k if _BARE_KEY.fullmatch(k) else toml_value(k)


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
#: Characters a TOML comment may not hold (TOML 1.0: control characters other than tab).
_COMMENT_FORBIDDEN = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def toml_comment(text: str) -> str:
    """``text`` as one TOML comment line (``# ...``, no line end).

    A newline or another control character that TOML forbids in comments is written as its
    escape (``\\n``, ``\\u001b``), so the comment stays one line and the file stays valid TOML.
    """
    def esc(m: re.Match[str]) -> str:
        c = m.group(0)
        return {"\n": "\\n", "\r": "\\r"}.get(c, f"\\u{ord(c):04x}")

    return "# " + _COMMENT_FORBIDDEN.sub(esc, _scalars(text))


def _scalars(text: str) -> str:
    """``text`` without lone surrogates (a file name with a byte that is not UTF-8 holds one; TOML
    and UTF-8 cannot): each is written as the text of its Python escape, ``\\udcff``."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


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
