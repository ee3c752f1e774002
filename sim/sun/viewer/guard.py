"""What the viewer and the editor trust from a browser page: nothing they did not check.

Two defences live here, shared by every viser server the project starts (the replay viewer, the
layout editor, the static export's recorder):

- :func:`viser_server` starts a ``viser.ViserServer`` whose websocket handshake is refused (HTTP
  403) unless its ``Origin`` is a page of this very server (``http://127.0.0.1:PORT``,
  ``http://localhost:PORT``, ``http://[::1]:PORT``, or the address given with ``--host``) and
  whose ``Host`` header names this server too. A web page open in the same browser can otherwise
  open a websocket to ``127.0.0.1`` and press the buttons (cross-site websocket hijacking), and a
  page whose own name resolves to 127.0.0.1 (DNS rebinding) sends its own name as ``Host``. Plain
  HTTP requests (viser's client files) need the right ``Host`` too. A handshake without an
  ``Origin`` is refused as well: every browser sends one, and a program on this machine that
  leaves it out is not one of the pages served here.
- :func:`md_text` and :func:`md_code` put text from a file (a seat label, a path, a layout's
  description) into the markdown a page shows as text: no link, image or HTML of it is rendered.
- :func:`page_number` and :func:`page_choice` check a value a GUI handle received. viser casts a
  client's update to the handle's type (``float("nan")`` passes) and lets a client set any
  property, ``min``, ``max`` and ``options`` included, so a handler checks against the bounds and
  choices the code gave, never against the handle's.

viser has no option for the handshake check; :func:`viser_server` wraps the ``process_request``
hook that viser hands to ``websockets.asyncio.server.serve`` (read once per connection), and
refuses to start a server it could not guard (a future viser that starts its websocket server
another way), rather than serve one open to any page.
"""

from __future__ import annotations

import contextlib
import dataclasses
import http
import io
import ipaddress
import math
import re
import threading
from typing import Any, Callable, Sequence

from sim.core.errors import InputError, allowed

#: Names under which a browser on this machine reaches a loopback server.
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

_serve_lock = threading.Lock()  # one guarded start at a time: the hook is installed for its duration


def _host_name(host: str) -> str:
    """``host`` as it appears in a URL: an IPv6 address in brackets, names lower-case."""
    h = host.strip().lower()
    try:
        if ipaddress.ip_address(h.strip("[]")).version == 6:
            return f"[{h.strip('[]')}]"
    except ValueError:
        pass
    return h


class HandshakeGuard:
    """Decides, per request, whether its ``Host`` (and for a websocket its ``Origin``) is this server.

    Args:
        host: the address the server was asked to listen on (``--host``); besides the loopback
            names, it and the local address a connection arrived at are accepted as host names
            (so ``--host 0.0.0.0`` works from another machine by its IP), never any other name.
    """

    def __init__(self, host: str) -> None:
        self.names = {*LOOPBACK_NAMES}
        if host not in ("0.0.0.0", "::", ""):
            self.names.add(_host_name(host))
        #: set once the hook is in viser's websocket server (see :func:`viser_server`)
        self.installed = False
        #: how many requests were refused (for tests and the curious)
        self.refused = 0

    def allowed_hosts(self, local_ip: str | None, port: int) -> set[str]:
        """``name:port`` values a ``Host`` header may take for a connection that arrived at
        ``local_ip`` on ``port`` (the bare name too on port 80)."""
        names = set(self.names)
        if local_ip:
            names.add(_host_name(local_ip))
        out = {f"{n}:{port}" for n in names}
        if port == 80:
            out |= names
        return out

    def reason(self, headers: Any, local: tuple[Any, ...] | None, is_websocket: bool) -> str | None:
        """Why a request with these ``headers`` (``get_all`` of a header gives its values) arriving at the
        socket address ``local`` is refused, or None to let it through."""
        if not local or len(local) < 2:
            return "unknown local address"
        hosts = self.allowed_hosts(str(local[0]), int(local[1]))
        got_host = headers.get_all("Host") or []  # a websockets ``Headers`` or an ``http.client`` message
        if len(got_host) != 1 or got_host[0].strip().lower() not in hosts:
            return "Host header is not this server"
        if is_websocket:
            origin = headers.get_all("Origin") or []
            if len(origin) != 1 or origin[0].strip().lower() not in {f"http://{h}" for h in hosts}:
                return "Origin is not a page of this server"
        return None

    def wrap(self, inner: Callable[..., Any] | None) -> Callable[..., Any]:
        """A ``process_request`` hook: refuse with 403, else hand on to viser's own (``inner``)."""

        def process_request(connection: Any, request: Any) -> Any:
            # any Upgrade header counts (whatever its case or count): the Origin rule then applies
            is_ws = bool(request.headers.get_all("Upgrade"))
            why = self.reason(request.headers, connection.local_address, is_ws)
            if why is not None:
                self.refused += 1
                return connection.respond(http.HTTPStatus.FORBIDDEN, f"refused: {why}\n")
            return inner(connection, request) if inner is not None else None

        self.installed = True
        return process_request


def viser_server(host: str, port: int, guard: HandshakeGuard | None = None) -> Any:
    """A started ``viser.ViserServer`` on ``host``:``port`` (viser moves on to the next port when
    one is taken: read ``get_port()``), its banner silenced, its requests checked by ``guard``
    (a new :class:`HandshakeGuard` of ``host`` if None), kept on the server as ``stonelab_guard``.

    Raises:
        RuntimeError: viser started its websocket server without the hook, or handles GUI updates
            in a way :func:`values_only` does not know (the server is stopped).
        OSError: the port cannot be listened on.
    """
    import viser
    import websockets.asyncio.server as ws_server

    checked = guard or HandshakeGuard(host)
    original = ws_server.serve

    class _GuardedServe(original):  # type: ignore[misc, valid-type]
        def __init__(self, handler: Any, *args: Any, process_request: Any = None, **kwargs: Any) -> None:
            super().__init__(handler, *args, process_request=checked.wrap(process_request), **kwargs)

    with _serve_lock:
        # viser calls ``websockets.asyncio.server.serve`` in its server thread while its
        # constructor waits for the port: the hook is in place exactly for that call
        ws_server.serve = _GuardedServe  # type: ignore[misc]
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # viser's banner: the caller prints the URL
                server = viser.ViserServer(host=host, port=port, verbose=False)
        finally:
            ws_server.serve = original  # type: ignore[misc]
    try:
        if not checked.installed:
            raise RuntimeError("this viser version starts its websocket server another way: the Origin check "
                               "cannot be installed, so the server was not started")
        values_only(server)
    except RuntimeError:
        with contextlib.redirect_stdout(io.StringIO()):
            server.stop()
        raise
    server.stonelab_guard = checked
    return server


def values_only(server: Any) -> None:
    """Let clients change only the ``value`` of the server's GUI inputs. viser applies any
    property a client's update names (``options``, ``min``, ``disabled``, even the handle's
    callback list), so a page could disable a widget's handler or widen its limits; the server
    alone sets those. An update naming nothing but other properties is dropped.

    Raises:
        RuntimeError: viser registers its GUI updates another way (the guard cannot be applied).
    """
    from viser import _messages

    iface = server.gui._websock_interface
    handlers = iface._incoming_handlers.get(_messages.GuiUpdateMessage)
    if not handlers:
        raise RuntimeError("this viser version handles GUI updates another way: cannot restrict them")

    def wrap(inner: Callable[..., Any]) -> Callable[..., Any]:
        async def only_value(client_id: Any, message: Any) -> None:
            updates = {k: v for k, v in message.updates.items() if k == "value"}
            if updates:
                await inner(client_id, dataclasses.replace(message, updates=updates))
        return only_value

    iface._incoming_handlers[_messages.GuiUpdateMessage] = [wrap(h) for h in handlers]


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
