"""The page of ``stonelab play``: one HTML file, its script and its style, package data in
``sim/play/static`` (``play.html``, ``play.js``, ``play.css``) read once with importlib.resources
and served by :mod:`sim.play.server`; nothing is fetched from elsewhere.

The script long-polls ``/state`` and draws what it gets with ``textContent`` only, so a label, a
move's notation or a reason cannot become markup. The board area is one function,
``drawBoard(snapshot)``: the game's replay drawing (``/board.js``, ``StonelabBoard.draw``) of the
frame the server built for the person's seat (:mod:`sim.play.board`), with the game's view of the
position as text (``SeatView.view``) below it, or alone for a game without a drawing. A game
whose view carries its own ``drawing`` (the Sun's table, :mod:`sim.sun.seat_drawing`) is drawn from
it instead: SVG elements of a fixed list of tags and attributes, set with ``setAttribute`` (a
value, never markup), its candidate moves clickable.
"""

from __future__ import annotations

import importlib.resources


def _read(name: str) -> str:
    """The text of ``sim/play/static/NAME`` (package data: installed with the package).

    Raises:
        FileNotFoundError: the installation lacks it (pyproject.toml's package-data).
    """
    return (importlib.resources.files("sim.play") / "static" / name).read_text(encoding="utf-8")


#: the page, its style and its script, as served
PAGE_HTML = _read("play.html")
PAGE_CSS = _read("play.css")
PAGE_JS = _read("play.js")
