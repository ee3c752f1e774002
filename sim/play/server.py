"""The page server of ``stonelab play``: the standard library's HTTP server on 127.0.0.1, answering
the one page and its two requests, checking each (docs/security.md).

Routes: ``GET /`` the page, ``GET /play.js`` and ``GET /play.css`` its script and style, ``GET
/board.js`` the game's board drawing (the replay drawing, :mod:`sim.play.board`; empty for a game
without one),
``GET /turn/<turn>`` the 3-D page of that turn's pass (the Sun; a page of viser's client with the
recording embedded, served with a policy that lets its inline scripts run), ``GET /state`` the position as the person's seat sees it (:meth:`WebTable.snapshot`; with
``?after=N`` it waits up to :data:`LONG_POLL_S` seconds for a newer one), ``POST
/move`` a move (``{"decision": n, "choice": <number of a listed move> | "<typed move>"}``).

Every request must name this server in its ``Host`` (a site whose name resolves to 127.0.0.1 is
refused: DNS rebinding); a ``POST`` must come from a page of this server (its ``Origin``) with a
JSON body of at most :data:`MAX_BODY` bytes; anything else is refused with 4xx and never reaches the
game. The server writes no file: the game's session stores the finished game in the run folder.
"""

from __future__ import annotations

import http
import http.server
import json
import sys
import threading
from typing import Any

from sim.play.page import PAGE_CSS, PAGE_HTML, PAGE_JS
from sim.play.table import WebTable
from sim.sun.viewer.guard import HandshakeGuard

#: the largest request body read (a move is a few dozen bytes)
MAX_BODY = 2048
#: the longest typed move passed on to the game
MAX_TYPED = 120
#: seconds a ``GET /state?after=N`` waits for a newer position before it answers the same one
LONG_POLL_S = 10.0
#: the largest move number accepted (larger ones are refused before the game sees them)
MAX_CHOICE = 100_000

_SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                               "img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

#: the policy of a pass's 3-D page: viser's prebuilt client runs inline scripts and workers from blob:
#: URLs; it still fetches nothing from elsewhere and cannot be framed by another site
_TURN_PAGE_HEADERS = {
    **_SECURITY_HEADERS,
    "Content-Security-Policy": "default-src 'self' data: blob:; script-src 'self' 'unsafe-inline' 'unsafe-eval' "
                               "blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; worker-src "
                               "'self' blob:; connect-src 'self' data: blob:; frame-ancestors 'self'; base-uri 'none'; "
                               "form-action 'none'",
}


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


class PlayServer(http.server.ThreadingHTTPServer):
    """The HTTP server of one table (``table``), checking ``Host`` and ``Origin`` with ``guard``."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], table: WebTable) -> None:
        self.table = table
        #: the game's board drawing script (read once: package data)
        self.board_js = table.board.script() if table.board is not None else ""
        self.guard = HandshakeGuard(address[0])
        #: requests refused (for tests and the curious)
        self.refused = 0
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Report a request that failed, except a page that went away while it was answered: a closed
        tab or a reload drops its waiting ``/state`` request, which is no fault, and a traceback in
        the person's terminal would bury the game's own lines."""
        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipeError, ConnectionResetError...
            return
        super().handle_error(request, client_address)


class _Handler(http.server.BaseHTTPRequestHandler):
    server: PlayServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # the terminal shows the game, not a line per request

    def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or _SECURITY_HEADERS).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode("utf-8"), "application/json; charset=utf-8")

    def _refuse(self, status: int, message: str) -> None:
        self.server.refused += 1
        self.close_connection = True
        self._json(status, {"ok": False, "message": message})

    def _checked(self, needs_origin: bool) -> bool:
        why = self.server.guard.reason(self.headers, self.connection.getsockname(), needs_origin)
        if why is not None:
            self._refuse(403, f"refused: {why}")
            return False
        return True

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        if not self._checked(False):
            return
        path = self.path.split("?", 1)[0]
        if path == "/":
            self._send(200, PAGE_HTML.encode("utf-8"), "text/html; charset=utf-8")
        elif path == "/play.js":
            self._send(200, PAGE_JS.encode("utf-8"), "text/javascript; charset=utf-8")
        elif path == "/board.js":
            self._send(200, self.server.board_js.encode("utf-8"), "text/javascript; charset=utf-8")
        elif path == "/play.css":
            self._send(200, PAGE_CSS.encode("utf-8"), "text/css; charset=utf-8")
        elif path.startswith("/turn/") and path[6:].isdigit() and len(path) <= 12:
            page = self.server.table.turn_page(int(path[6:]))
            if page is None:
                self._refuse(404, "no 3-D view of that turn (not a pass, not made yet, or no longer kept)")
            else:
                self._send(200, page, "text/html; charset=utf-8", _TURN_PAGE_HEADERS)
        elif path == "/state":
            after = parse_after(self.path)
            self._json(200, self.server.table.snapshot(after, LONG_POLL_S if after is not None else 0.0))
        else:
            self._refuse(404, "not found")

    do_HEAD = do_GET

    def do_POST(self) -> None:  # noqa: N802
        if not self._checked(True):
            return
        if self.path != "/move":
            self._refuse(404, "not found")
            return
        try:
            length = int(self.headers.get("Content-Length") or "-1")
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self._refuse(413 if length > MAX_BODY else 411, f"a move is a body of at most {MAX_BODY} bytes")
            return
        try:
            decision, choice = parse_move(self.rfile.read(length), self.headers.get("Content-Type"))
        except BadRequest as e:
            self._refuse(e.status, str(e))
            return
        self._json(200, self.server.table.submit(decision, choice))

    def _not_allowed(self) -> None:
        self._refuse(405, "only GET and POST /move")

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_allowed


def start_server(table: WebTable, port: int = 0, host: str = "127.0.0.1") -> tuple[PlayServer, threading.Thread]:
    """Start serving ``table`` on ``host``:``port`` (0: a free port, read ``server_address``) in a
    daemon thread.

    Raises:
        OSError: the port cannot be listened on.
    """
    server = PlayServer((host, port), table)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                              name="stonelab-play-server", daemon=True)
    thread.start()
    return server, thread
