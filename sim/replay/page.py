"""The replay page of a turn-based game: one self-contained HTML file (inline CSS and script, no
network) that steps through a replay's frames and draws each with the game's board script. The
page is a Jinja2 template with autoescape, its style and scripts package data
(``sim/replay/static``), put inline when the page is made.

Everything embedded is escaped: the replay document is JSON in a ``<script type="application/json">``
element with ``<``, ``>``, ``&`` and U+2028/U+2029 written as ``\\u`` escapes (so no text in it can end
the element or start markup), and the page script puts every label and word in as text
(``textContent``), never as markup (docs/security.md). No I/O here.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any, Mapping

import jinja2
from markupsafe import Markup, escape

#: the replay document's format name and version (docs/replay-format.md)
FORMAT = "stonelab.turns"
VERSION = 1

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(obj: Any) -> str:
    """``obj`` as JSON that is safe inside a ``<script>`` element (see the module docstring).

    Raises:
        TypeError, ValueError: ``obj`` is not JSON-serialisable (NaN included).
    """
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return "".join(_JSON_ESCAPES.get(ch, ch) for ch in text)


def board_script(module: str, name: str) -> str:
    """The game's drawing script ``name``, a file next to the module ``module`` (package data).

    Raises:
        FileNotFoundError: no such file.
    """
    package = module.rpartition(".")[0]
    return resources.files(package).joinpath(name).read_text(encoding="utf-8")


def _inline_script(js: str) -> str:
    """A script's text made safe to inline: ``</script`` cannot occur in it (a drawing script
    is ours, but a closing tag in one of its strings would end the element)."""
    return js.replace("</", "<\\/")


def _static(name: str) -> str:
    """The text of ``sim/replay/static/NAME`` (package data)."""
    return resources.files("sim.replay").joinpath("static", name).read_text(encoding="utf-8")


def _text(value: Any) -> Markup:
    """A Jinja2 filter: ``value`` as HTML text, with the line and paragraph separators as references
    too (harmless in HTML text, but nothing of a label should reach the page as written)."""
    return Markup(str(escape(str(value))).replace("\u2028", "&#x2028;").replace("\u2029", "&#x2029;"))


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("sim.replay", "static"), autoescape=True,
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    env.filters["text"] = _text
    return env


_SHELL_JS = _static("board_helpers.js")
_ENV = _environment()


def board_helpers_js() -> str:
    """The helpers every drawing script uses (``svg``, ``svgText``, ``seatColour``): the script
    that must run before a game's ``replay_board.js`` (also on the play page)."""
    return _SHELL_JS


def render_page(doc: Mapping[str, Any], board_js: str) -> str:
    """The whole replay page for the replay document ``doc`` (``title``, ``subtitle``, ``seats``,
    ``view_seats``, ``result.text``, ``frames``: docs/replay-format.md) drawn by ``board_js``.

    Raises:
        TypeError, ValueError: ``doc`` is not JSON-serialisable.
    """
    page = _ENV.get_template("replay.html.j2")
    return page.render(
        title=str(doc.get("title", "replay")), subtitle=str(doc.get("subtitle", "")), css=Markup(_static("replay.css")),
        # the scripts and the data are inlined as they are (made safe for a script element above)
        data=Markup(script_json(doc)), helpers_js=Markup(_inline_script(_SHELL_JS)),
        board_js=Markup(_inline_script(board_js)), page_js=Markup(_inline_script(_static("replay.js"))))
