"""What the viewer and the editor trust from a browser page: nothing they did not check.

The servers themselves are guarded by :mod:`sim.web` (``Host`` and ``Origin`` of every request and
websocket handshake: :func:`viser_server`, re-exported here from :mod:`sim.web.viser_guard`). What
lives here is what a page sends and shows:

- :func:`md_text` and :func:`md_code` put text from a file (a seat label, a path, a layout's
  description) into the markdown a page shows as text: no link, image or HTML of it is rendered.
- :func:`page_number` and :func:`page_choice` check a value a GUI handle received. viser casts a
  client's update to the handle's type (``float("nan")`` passes) and lets a client set any
  property, ``min``, ``max`` and ``options`` included, so a handler checks against the bounds and
  choices the code gave, never against the handle's.
"""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

from sim.core.errors import InputError, allowed
from sim.web.viser_guard import viser_server

__all__ = ["md_code", "md_text", "page_choice", "page_number", "put_back", "viser_server"]


# --------------------------------------------------------------------------------------------
# Values from GUI handles
# --------------------------------------------------------------------------------------------


def page_number(value: Any, key: str, lo: float, hi: float, whole: bool = False) -> float:
    """``value`` from a number or slider handle as a finite float in [lo, hi] (a whole number if
    ``whole``).

    Raises:
        InputError: not a number (a bool, a string...), NaN, infinite, out of range, or not whole.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"must be a number, not {type(value).__name__}", key=key)
    v = float(value)
    if not math.isfinite(v) or not lo <= v <= hi:
        raise InputError(f"must be a number from {lo:g} to {hi:g}, not {value!r}", key=key)
    if whole and v != int(v):
        raise InputError(f"must be a whole number, not {value!r}", key=key)
    return v


def page_choice(value: Any, choices: Sequence[str], key: str) -> str:
    """``value`` from a dropdown if it is one of ``choices`` (the code's list, not the handle's).

    Raises:
        InputError: anything else.
    """
    if isinstance(value, str) and value in choices:
        return value
    shown = repr(value)[:60]
    raise InputError(f"{shown} is not one of the choices ({allowed(list(choices)[:8])}"
                     f"{', ...' if len(choices) > 8 else ''})", key=key)


def put_back(handle: Any, value: Any) -> None:
    """Show ``value`` (a valid one) in a GUI handle again, after a refused one, on every client."""
    if type(handle._impl.value) is not type(value):
        # viser casts what it is given to the type the handle holds: a value of another type
        # (never left by viser's own cast, but by code that bypassed it) is replaced first
        handle._impl.value = type(value)()
    handle.value = value


# what starts a markdown or HTML construct: emphasis, code, links and images, HTML tags and
# entities, tables, strikethrough, headings, and ':' '@' of autolinks; parentheses alone link nothing
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#!|~&:@])")


def md_text(value: Any) -> str:
    """``str(value)`` as literal text in markdown: every character that starts a markdown or HTML
    construct is backslash-escaped, line breaks become spaces (a label cannot start a heading)."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(value).splitlines()))


def md_code(text: str, lang: str = "") -> str:
    """``text`` as a fenced code block whose fence is longer than any run of backticks in it (a
    layout's description cannot close the block and continue as markdown)."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}{'' if text.endswith(chr(10)) else chr(10)}{fence}"
