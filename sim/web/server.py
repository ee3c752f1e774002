"""The HTTP side of every page server the project starts (the play page, the turn-based replay
page, an export's folder): one request handler that checks, answers and refuses the same way
(docs/security.md).

- It listens on 127.0.0.1 unless told (:func:`make_server`).
- Every request must name this server in its ``Host``; a ``POST`` must come from one of its pages
  (its ``Origin``), and a request that sends any ``Origin`` must send this server's
  (:class:`~sim.web.guard.HostGuard`).
- Every answer carries the security headers (a content security policy that allows only the
  server's own script, ``nosniff``, no referrer, no caching); a page may name a looser policy for
  one answer (viser's prebuilt client runs inline scripts).
- What it refuses gets one neutral answer per status, as JSON ``{"ok": false, "message": ...}``:
  404 "not found" for anything it does not serve (a missing file, ``..``, a link out of the root,
  a folder, a FIFO or a device, alike), 403 for a foreign ``Host`` or ``Origin``, 405 for another
  method, and http.server's own refusals (431 for a header over 64 KiB, 400 for a malformed
  request line) in the same shape, never a traceback.
- Files are served only by :meth:`WebHandler.send_file`: a regular file whose resolved path is
  inside the root, opened without following a link again.
"""

from __future__ import annotations

import email.utils
import http
import http.server
import ipaddress
import json
import mimetypes
import os
import socket
import stat
import sys
import threading
import urllib.parse
from pathlib import Path
from typing import Any, ClassVar

from sim.core.interrupts import exit_code_of, sigterm_as_interrupt
from sim.web.guard import DEFAULT_HOST, HostGuard
from sim.web.policy import INLINE_ONLY_POLICY, SECURITY_HEADERS, STRICT_POLICY, VISER_CLIENT_POLICY

__all__ = ["INLINE_ONLY_POLICY", "STRICT_POLICY", "VISER_CLIENT_POLICY", "WebHandler", "WebServer", "make_server",
           "start_in_thread", "is_unknown_host", "serve_until_stopped"]

#: the one answer of each refusal: the page learns the status, never why a file was not served
NEUTRAL = {400: "bad request", 403: "refused", 404: "not found", 405: "method not allowed",
           411: "length required", 413: "request too large", 414: "request line too long",
           415: "unsupported content type", 431: "request header too large", 501: "method not allowed"}


#: seconds of silence after which a connection is closed (:attr:`WebHandler.timeout`)
REQUEST_TIMEOUT_S = 30.0


def is_ipv6_literal(host: str) -> bool:
    """Whether ``host`` is an IPv6 address (``::1``, ``[::1]``, ``::``), which needs an IPv6 socket."""
    try:
        return ipaddress.ip_address(host.strip("[]")).version == 6
    except ValueError:
        return False


class WebServer(http.server.ThreadingHTTPServer):
    """A threading HTTP server whose requests are checked by ``guard`` (a :class:`HostGuard` of the
    address it listens on) and whose broken connections are no fault."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[WebHandler]) -> None:
        self.guard = HostGuard(address[0])
        if is_ipv6_literal(address[0]):
            # an IPv6 address (``::1``, ``::``) needs an IPv6 socket: the class's AF_INET cannot bind it
            self.address_family = socket.AF_INET6
        #: requests refused (for tests and the curious)
        self.refused = 0
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Report a request that failed, except a page that went away while it was answered: a closed
        tab or a reload drops its waiting request, which is no fault, and a traceback in the
        person's terminal would bury the program's own lines."""
        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipeError, ConnectionResetError...
            return
        super().handle_error(request, client_address)


class WebHandler(http.server.BaseHTTPRequestHandler):
    """Checks every request (``Host``, ``Origin``), then hands ``GET``/``HEAD`` to :meth:`get` and
    ``POST`` to :meth:`post` with the path (no query); every other method is 405. ``/favicon.ico``
    is an empty 204 on every server (a browser asks for it; a 404 would be a console error).

    A subclass answers with :meth:`send`, :meth:`send_json`, :meth:`send_file` or :meth:`refuse`.
    """

    server: WebServer
    protocol_version = "HTTP/1.1"
    #: seconds a connection may stay silent (a request sent byte by byte, an idle keep-alive
    #: connection) before it is closed: each holds a thread of its own until then (a page's long
    #: poll waits in the handler, not on the socket, and is not cut by it)
    timeout = REQUEST_TIMEOUT_S
    #: the content security policy of this handler's answers
    policy: ClassVar[str] = STRICT_POLICY

    def version_string(self) -> str:
        """The ``Server`` header: no Python version for a scanner to match."""
        return "stonelab"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # the terminal shows the program's own lines, not one per request

    # ---- answers ------------------------------------------------------------------------------

    def _headers(self, policy: str | None) -> None:
        self.send_header("Content-Security-Policy", policy or self.policy)
        for k, v in SECURITY_HEADERS.items():
            self.send_header(k, v)

    def send(self, status: int, body: bytes, ctype: str, policy: str | None = None) -> None:
        """Answer ``status`` with ``body`` of type ``ctype`` (no body for ``HEAD``), under ``policy``
        (default: the handler's)."""
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self._headers(policy)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, status: int, obj: Any) -> None:
        """Answer ``obj`` as JSON."""
        self.send(status, json.dumps(obj).encode("utf-8"), "application/json; charset=utf-8")

    def refuse(self, status: int, message: str | None = None) -> None:
        """Refuse the request: ``{"ok": false, "message": ...}`` with ``status`` (the neutral
        message of :data:`NEUTRAL` unless one is given), and close the connection."""
        self.server.refused += 1
        self.close_connection = True
        self.send_json(status, {"ok": False, "message": message or NEUTRAL.get(status, "refused")})

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a header too large, a malformed request line) in the same
        neutral shape as every other refusal."""
        if not hasattr(self, "command") or self.command is None:
            self.command = ""  # refused before the request line was read: send a body
        self.refuse(code if code in NEUTRAL else 400)

    def send_file(self, root: Path, url_path: str, index: str = "index.html") -> None:
        """Answer with the file ``url_path`` names under ``root`` (a resolved folder; ``/`` is its
        ``index``): only a regular file whose resolved path is inside ``root``. A folder (never
        listed), ``..``, a link that leads out, a FIFO, a device or a missing file are one 404."""
        rel = urllib.parse.unquote(url_path)
        parts = [x for x in rel.replace("\\", "/").split("/") if x and x != "."]
        if ".." in parts or "\0" in rel:
            self.refuse(404)
            return
        try:
            real = root.joinpath(*parts or [index]).resolve(strict=True)
            if not (real.is_relative_to(root) and stat.S_ISREG(os.stat(real).st_mode)):
                raise FileNotFoundError(url_path)
            # the resolved path, not followed again; non-blocking, should a FIFO be swapped in
            fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except (OSError, RuntimeError, ValueError):
            self.refuse(404)
            return
        with os.fdopen(fd, "rb") as f:
            fs = os.fstat(fd)
            if not stat.S_ISREG(fs.st_mode):
                self.refuse(404)
                return
            body = f.read()
        ctype = mimetypes.guess_type(real.name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype in ("application/javascript", "application/json"):
            ctype += "; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Last-Modified", email.utils.formatdate(fs.st_mtime, usegmt=True))
        self._headers(None)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    # ---- dispatch -----------------------------------------------------------------------------

    def _checked(self, needs_origin: bool) -> bool:
        # a websocket handshake (any Upgrade header) needs its Origin, as on the viser servers
        needs_origin = needs_origin or bool(self.headers.get_all("Upgrade"))
        why = self.server.guard.reason(self.headers, self.connection.getsockname(), needs_origin)
        if why is not None:
            self.refuse(403, f"refused: {why}")
            return False
        return True

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        if not self._checked(False):
            return
        path = self.path.split("?", 1)[0]
        if path == "/favicon.ico":
            self.send(204, b"", "image/x-icon")  # no icon: an empty answer, not a 404 in the page's console
        else:
            self.get(path)

    do_HEAD = do_GET

    def do_POST(self) -> None:  # noqa: N802 - the base class's name
        if self._checked(True):
            self.post(self.path.split("?", 1)[0])

    def _not_allowed(self) -> None:
        self.refuse(405)

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = _not_allowed

    def get(self, path: str) -> None:
        """Answer a checked ``GET`` or ``HEAD`` of ``path`` (the request's path without its query)."""
        self.refuse(404)

    def post(self, path: str) -> None:
        """Answer a checked ``POST`` to ``path`` (its ``Origin`` is this server's)."""
        self.refuse(405)


def make_server(handler: type[WebHandler], host: str = DEFAULT_HOST, port: int = 0,
                server_class: type[WebServer] = WebServer, **attrs: Any) -> WebServer:
    """A :class:`WebServer` (not started) answering with ``handler`` on ``host``:``port`` (0: a free
    port, read ``server_address``); ``attrs`` are set on the server before its first request.

    Raises:
        OSError: the address cannot be listened on (``socket.gaierror`` for an unknown host).
    """
    server = server_class((host.strip("[]") if is_ipv6_literal(host) else host, port), handler)
    for k, v in attrs.items():
        setattr(server, k, v)
    return server


def start_in_thread(server: WebServer, name: str) -> threading.Thread:
    """Serve ``server`` in a daemon thread called ``name`` (stop it with ``shutdown``)."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, name=name, daemon=True)
    thread.start()
    return thread


def is_unknown_host(error: OSError) -> bool:
    """Whether ``error`` (raised by :func:`make_server`) means the host name is unknown."""
    return isinstance(error, socket.gaierror)


def serve_until_stopped(server: http.server.HTTPServer) -> int:
    """Serve ``server`` in this thread until Ctrl-C, SIGTERM or SIGHUP, then close it (also when
    serving fails).

    Returns:
        the exit code of a command stopped that way (:func:`sim.core.interrupts.exit_code_of`:
        130 after Ctrl-C, 128 + the signal otherwise), as a study or a game stopped alike gives.
    """
    try:
        with sigterm_as_interrupt():
            server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt as stop:
        return exit_code_of(stop)
    finally:
        server.server_close()
    return 0  # serve_forever returned: another thread called shutdown()
