"""The page server of ``stonelab play``: the project's page server (:mod:`sim.web.server`) on 127.0.0.1, answering
the one page and its two requests, checking each (docs/security.md).

Routes: ``GET /`` the page, ``GET /play.js`` and ``GET /play.css`` its script and style, ``GET
/board.js`` the game's board drawing (the replay drawing, :mod:`sim.play.board`; empty for a game
without one),
``GET /turn/<turn>`` the 3-D page of that turn's pass (the Sun; a page of viser's client with the
recording embedded, served with a policy that lets its inline scripts run), ``GET /state`` the position as the person's seat sees it (:meth:`WebTable.snapshot`; with
``?after=N`` it waits up to :data:`LONG_POLL_S` seconds for a newer one), ``GET /read?text=T`` what a
typed move reads as by the game's parser (:meth:`WebTable.read`: the page's filter), ``POST
/move`` a move (``{"decision": n, "choice": <number of a listed move> | "<typed move>"}``).

Every request is checked as on every page server (:mod:`sim.web`): it must name this server in its
``Host`` (a site whose name resolves to 127.0.0.1 is refused: DNS rebinding); a ``POST`` must come
from a page of this server (its ``Origin``), with a JSON body of at most :data:`MAX_BODY` bytes; anything else is refused with 4xx and never reaches the
game. The server writes no file: the game's session stores the finished game in the run folder.
"""

from __future__ import annotations

import json
import threading
import urllib.parse

from sim.play.page import PAGE_CSS, PAGE_HTML, PAGE_JS
from sim.play.table import WebTable
from sim.web.server import VISER_CLIENT_POLICY, WebHandler, WebServer, make_server, start_in_thread

#: the largest request body read (a move is a few dozen bytes)
MAX_BODY = 2048
#: the longest typed move passed on to the game
MAX_TYPED = 120
#: seconds a ``GET /state?after=N`` waits for a newer position before it answers the same one
LONG_POLL_S = 10.0
#: the largest move number accepted (larger ones are refused before the game sees them)
MAX_CHOICE = 100_000


class BadRequest(Exception):
    """A request refused before it reaches the game: ``status`` and the reason said to the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def parse_move(body: bytes, content_type: str | None) -> tuple[int, int | str]:
    """``(decision, choice)`` of a move request's body.

    Raises:
        BadRequest: not JSON, not an object of exactly ``decision`` (a whole number) and ``choice``
            (a whole number from 1 or a text of at most :data:`MAX_TYPED` characters).
    """
    if (content_type or "").split(";")[0].strip().lower() != "application/json":
        raise BadRequest(415, "a move is sent as application/json")
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise BadRequest(400, "the move is not JSON") from None
    except RecursionError:  # deeply nested arrays, e.g. 1,000 '[': no move nests at all
        raise BadRequest(400, "a move is {\"decision\": n, \"choice\": move number or typed move}") from None
    if not isinstance(data, dict) or set(data) != {"decision", "choice"}:
        raise BadRequest(400, "a move is {\"decision\": n, \"choice\": move number or typed move}")
    decision, choice = data["decision"], data["choice"]
    if isinstance(decision, bool) or not isinstance(decision, int) or not 0 <= decision <= 10**9:
        raise BadRequest(400, "decision must be a whole number")
    if isinstance(choice, bool) or not isinstance(choice, (int, str)):
        raise BadRequest(400, "choice must be a move number or a typed move")
    if isinstance(choice, int) and not 1 <= choice <= MAX_CHOICE:
        raise BadRequest(400, f"a move number is 1 to {MAX_CHOICE}")
    if isinstance(choice, str) and (len(choice) > MAX_TYPED or any(ord(c) < 32 for c in choice)):
        raise BadRequest(400, f"a typed move is one line of at most {MAX_TYPED} characters")
    return decision, choice


def parse_after(path: str) -> int | None:
    """``N`` of a ``/state?after=N`` request (a whole number of at most 12 digits), else None: any
    other query is answered at once."""
    _, _, query = path.partition("?")
    key, _, value = query.partition("=")
    if key == "after" and value.isdigit() and len(value) <= 12:
        return int(value)
    return None


def parse_text(path: str) -> str | None:
    """The typed move of a ``/read?text=...`` request (one line of at most :data:`MAX_TYPED`
    characters), else None."""
    values = urllib.parse.parse_qs(path.partition("?")[2], max_num_fields=2).get("text", [])
    if len(values) != 1 or len(values[0]) > MAX_TYPED or any(ord(c) < 32 for c in values[0]):
        return None
    return values[0]


class PlayServer(WebServer):
    """The HTTP server of one table (``table``); every request is checked by :mod:`sim.web`."""

    table: WebTable
    #: the game's board drawing script (read once: package data)
    board_js: str


class _Handler(WebHandler):
    server: PlayServer

    def get(self, path: str) -> None:
        if path == "/":
            self.send(200, PAGE_HTML.encode("utf-8"), "text/html; charset=utf-8")
        elif path == "/play.js":
            self.send(200, PAGE_JS.encode("utf-8"), "text/javascript; charset=utf-8")
        elif path == "/board.js":
            self.send(200, self.server.board_js.encode("utf-8"), "text/javascript; charset=utf-8")
        elif path == "/play.css":
            self.send(200, PAGE_CSS.encode("utf-8"), "text/css; charset=utf-8")
        elif path.startswith("/turn/") and path[6:].isdigit() and len(path) <= 12:
            page = self.server.table.turn_page(int(path[6:]))
            if page is None:
                self.refuse(404, "no 3-D view of that turn (not a pass, not made yet, or no longer kept)")
            else:
                self.send(200, page, "text/html; charset=utf-8", VISER_CLIENT_POLICY)
        elif path == "/read":
            text = parse_text(self.path)
            if text is None:
                self.refuse(400, f"a typed move is one line of at most {MAX_TYPED} characters")
            else:
                self.send_json(200, self.server.table.read(text))
        elif path == "/state":
            after = parse_after(self.path)
            self.send_json(200, self.server.table.snapshot(after, LONG_POLL_S if after is not None else 0.0))
        else:
            self.refuse(404)

    def post(self, path: str) -> None:
        if path != "/move":
            self.refuse(404)
            return
        try:
            length = int(self.headers.get("Content-Length") or "-1")
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self.refuse(413 if length > MAX_BODY else 411, f"a move is a body of at most {MAX_BODY} bytes")
            return
        try:
            decision, choice = parse_move(self.rfile.read(length), self.headers.get("Content-Type"))
        except BadRequest as e:
            self.refuse(e.status, str(e))
            return
        self.send_json(200, self.server.table.submit(decision, choice))


def start_server(table: WebTable, port: int = 0, host: str = "127.0.0.1") -> tuple[PlayServer, threading.Thread]:
    """Start serving ``table`` on ``host``:``port`` (0: a free port, read ``server_address``) in a
    daemon thread.

    Raises:
        OSError: the port cannot be listened on.
    """
    board_js = table.board.script() if table.board is not None else ""
    server = make_server(_Handler, host, port, server_class=PlayServer, table=table, board_js=board_js)
    assert isinstance(server, PlayServer)
    return server, start_in_thread(server, "stonelab-play-server")
