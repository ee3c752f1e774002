"""Whether a request comes to this server from one of its own pages: the ``Host`` and ``Origin``
checks shared by every server the project starts (docs/security.md).

A web page open in the same browser can send requests to a server on ``127.0.0.1`` (cross-site
request forgery, cross-site websocket hijacking), and a page whose own name resolves to 127.0.0.1
(DNS rebinding) sends its own name as ``Host``. :class:`HostGuard` therefore accepts a request only
when its one ``Host`` header names this server (a loopback name, the address given with ``--host``,
or the local address the connection arrived at, with the port), and, when an ``Origin`` is required
(a websocket handshake, a ``POST``) or sent at all, only when that one ``Origin`` is a page of this
server (``http://`` + an accepted host).
"""

from __future__ import annotations

import http
import ipaddress
from typing import Any, Callable

from sim.web.policy import SECURITY_HEADERS, VISER_CLIENT_POLICY

#: Names under which a browser on this machine reaches a loopback server.
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

#: The address every server listens on unless told otherwise (``--host``).
DEFAULT_HOST = "127.0.0.1"


def host_name(host: str) -> str:
    """``host`` as it appears in a URL: an IPv6 address in brackets, names lower-case."""
    h = host.strip().lower()
    try:
        if ipaddress.ip_address(h.strip("[]")).version == 6:
            return f"[{h.strip('[]')}]"
    except ValueError:
        pass
    return h


def local_url(host: str, port: int) -> str:
    """The address to open in a browser on this machine for a server listening on ``host``:``port``:
    every interface (``0.0.0.0``, ``::``) as ``127.0.0.1``, an IPv6 address in brackets."""
    shown = DEFAULT_HOST if host.strip() in ("0.0.0.0", "::", "[::]") else host_name(host)
    return f"http://{shown}:{port}/"


def is_loopback(host: str) -> bool:
    """True for an address only this machine reaches: ``localhost`` or a loopback IP address
    (``127.0.0.0/8``, ``::1``, with or without brackets). A name that merely starts with ``127.``
    (``127.0.0.1.example.net``, which any DNS may point anywhere) is not one."""
    h = host.strip().lower()
    if h == "localhost":
        return True
    try:
        return ipaddress.ip_address(h.strip("[]")).is_loopback
    except ValueError:
        return False


class HostGuard:
    """Decides, per request, whether its ``Host`` (and its ``Origin``) is this server.

    Args:
        host: the address the server was asked to listen on (``--host``); besides the loopback
            names, it and the local address a connection arrived at are accepted as host names
            (so ``--host 0.0.0.0`` works from another machine by its IP), never any other name.
    """

    def __init__(self, host: str) -> None:
        self.names = {*LOOPBACK_NAMES}
        if host not in ("0.0.0.0", "::", ""):
            self.names.add(host_name(host))
        #: set once the hook is in a websocket server (see :meth:`process_request`)
        self.installed = False
        #: how many requests were refused (for tests and the curious)
        self.refused = 0

    def allowed_hosts(self, local_ip: str | None, port: int) -> set[str]:
        """``name:port`` values a ``Host`` header may take for a connection that arrived at
        ``local_ip`` on ``port`` (the bare name too on port 80)."""
        names = set(self.names)
        if local_ip:
            names.add(host_name(local_ip))
            # a dual-stack socket (``--host ::``) sees an IPv4 client at ``::ffff:a.b.c.d``; its
            # browser names the IPv4 address
            try:
                mapped = ipaddress.ip_address(local_ip.split("%")[0]).ipv4_mapped  # type: ignore[union-attr]
            except (ValueError, AttributeError):
                mapped = None
            if mapped is not None:
                names.add(str(mapped))
        out = {f"{n}:{port}" for n in names}
        if port == 80:
            out |= names
        return out

    def reason(self, headers: Any, local: tuple[Any, ...] | None, needs_origin: bool) -> str | None:
        """Why a request with these ``headers`` (``get_all`` of a header gives its values: an
        ``http.client`` message or a websockets ``Headers``) arriving at the socket address
        ``local`` is refused, or None to let it through. ``needs_origin``: the request must carry
        an ``Origin`` (a websocket handshake, a request that changes something); any request that
        carries one must carry this server's."""
        if not local or len(local) < 2:
            return "unknown local address"
        hosts = self.allowed_hosts(str(local[0]), int(local[1]))
        got_host = headers.get_all("Host") or []
        if len(got_host) != 1 or got_host[0].strip().lower() not in hosts:
            return "Host header is not this server"
        origin = headers.get_all("Origin") or []
        if needs_origin or origin:
            if len(origin) != 1 or origin[0].strip().lower() not in {f"http://{h}" for h in hosts}:
                return "Origin is not a page of this server"
        return None

    def process_request(self, inner: Callable[..., Any] | None) -> Callable[..., Any]:
        """A ``process_request`` hook for ``websockets.asyncio.server.serve``: refuse with 403 (an
        ``Origin`` is required of a websocket handshake), else hand on to ``inner`` (the server's
        own hook, e.g. viser's static files), whose answers get the security headers of every page
        server (:mod:`sim.web.policy`; the policy of viser's client)."""

        def process_request(connection: Any, request: Any) -> Any:
            # any Upgrade header counts (whatever its case or count): the Origin rule then applies
            is_ws = bool(request.headers.get_all("Upgrade"))
            why = self.reason(request.headers, connection.local_address, is_ws)
            if why is not None:
                self.refused += 1
                response = connection.respond(http.HTTPStatus.FORBIDDEN, f"refused: {why}\n")
            else:
                response = inner(connection, request) if inner is not None else None
            if response is not None:  # an answer instead of a handshake: the headers of every answer
                response.headers["Content-Security-Policy"] = VISER_CLIENT_POLICY
                for k, v in SECURITY_HEADERS.items():
                    response.headers[k] = v
            return response

        self.installed = True
        return process_request
