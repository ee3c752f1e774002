"""viser's servers behind the project's guard: the one place that reaches into viser's and
websockets' internals (docs/security.md).

viser (1.1) has no option to check a websocket handshake or to restrict what a page may change, and
neither a public hook of viser nor one of websockets reaches the server viser starts in its own
thread. So this seam:

- :func:`viser_server` replaces ``websockets.asyncio.server.serve`` for exactly the call viser's
  constructor makes (under a lock), wrapping the ``process_request`` hook viser passes with
  :meth:`HostGuard.process_request <sim.web.guard.HostGuard.process_request>`, and refuses to start
  a server it could not guard (a viser that starts its websocket server another way).
- :func:`values_only` wraps viser's handler of GUI updates so a page can change only an input's
  ``value`` (viser applies any property a client names, its callback list included).

Both were read against :data:`TESTED_VISER` and :data:`TESTED_WEBSOCKETS`; tests/sun_viewer's
security test fails on any other version, so that an upgrade is read against this file before it
lands (a proxy in front of viser would need its own websocket relay: more code than the seam).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import threading
from typing import Any, Callable

from sim.web.guard import HostGuard

#: the viser versions (major, minor) this seam was read against
TESTED_VISER = ((1, 1),)
#: the websockets major versions this seam was read against
TESTED_WEBSOCKETS = (16,)

_serve_lock = threading.Lock()  # one guarded start at a time: the hook is installed for its duration


def _major_minor(version: str) -> tuple[int, int]:
    parts = (version.split(".") + ["0", "0"])[:2]
    return int("".join(c for c in parts[0] if c.isdigit()) or 0), int("".join(c for c in parts[1] if c.isdigit()) or 0)


def untested_versions() -> list[str]:
    """The installed viser / websockets versions this seam was not read against (empty when both
    were): each as ``"viser X.Y.Z"``."""
    # start-up: viser adds 180 ms and websockets 37 ms, paid only by a viewer (CPU, python -X importtime)
    import viser
    import websockets

    out = []
    if _major_minor(viser.__version__) not in TESTED_VISER:
        out.append(f"viser {viser.__version__}")
    if _major_minor(websockets.__version__)[0] not in TESTED_WEBSOCKETS:
        out.append(f"websockets {websockets.__version__}")
    return out


def viser_server(host: str, port: int, guard: HostGuard | None = None) -> Any:
    """A started ``viser.ViserServer`` on ``host``:``port`` (viser moves on to the next port when
    one is taken: read ``get_port()``), its banner silenced, its requests checked by ``guard``
    (a new :class:`HostGuard` of ``host`` if None), kept on the server as ``stonelab_guard``.

    Raises:
        RuntimeError: viser started its websocket server without the hook, or handles GUI updates
            in a way :func:`values_only` does not know (the server is stopped).
        OSError: the port cannot be listened on.
    """
    # start-up: viser adds 180 ms and websockets 37 ms, paid only by a viewer (CPU, python -X importtime)
    import viser
    import websockets.asyncio.server as ws_server

    checked = guard or HostGuard(host)
    original = ws_server.serve

    class _GuardedServe(original):  # type: ignore[misc, valid-type]
        def __init__(self, handler: Any, *args: Any, process_request: Any = None, **kwargs: Any) -> None:
            super().__init__(handler, *args, process_request=checked.process_request(process_request), **kwargs)

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
    # start-up: viser adds 180 ms, paid only by a viewer (CPU, python -X importtime)
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
