"""The same hostile requests against every server the project starts (docs/security.md):
the play page, a turn-based replay's page, an exported 3-D viewer's folder (``replay serve``), the
3-D replay viewer and the layout editor (viser). Each is real and is reached over a raw socket from
loopback, as a browser tab of another site, or a rebinding name, would reach it.
"""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ["play", "replay-page", "export-folder", "viewer", "editor"]


def _raw(port: int, request: bytes, timeout: float = 10.0) -> tuple[int | None, bytes]:
    """Send ``request`` as written; the answer's status (None if the server closed without one) and
    its whole text."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        data = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
                if b"\r\n\r\n" in data:
                    head, _, body = data.partition(b"\r\n\r\n")
                    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                                   if line.lower().startswith(b"content-length:")), None)
                    if length is not None and len(body) >= length:
                        break
        except (ConnectionResetError, socket.timeout):
            pass
    if not data.startswith(b"HTTP/1."):
        return None, data
    return int(data.split(b" ", 2)[1]), data


def _get(port: int, path: str, host: str | None = None, extra: str = "") -> tuple[int | None, bytes]:
    return _raw(port, f"GET {path} HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\n{extra}"
                      "Connection: close\r\n\r\n".encode("latin-1"))


@pytest.fixture(params=SERVERS)
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, int, str]]:
    """``(name, port, a path it serves)``; a server that serves a folder gets a link out of it
    (``/passwd`` to /etc/passwd, ``/up`` to the folder above) and a FIFO (``/fifo``) planted."""
    name = request.param
    stop: Any
    if name == "play":
        from sim.games import REGISTRY
        from sim.play.server import start_server
        from sim.play.session import seat_view
        from sim.play.table import WebTable

        table = WebTable(seat_view(REGISTRY, "druids"), 0, ["you", "random"], "Stonehenge", "druids")
        srv, _ = start_server(table, 0)
        port, good = srv.server_address[1], "/"

        def stop() -> None:
            srv.shutdown()
            srv.server_close()
    elif name in ("replay-page", "export-folder"):
        from sim.web.server import start_in_thread

        if name == "replay-page":
            from sim.replay.cli import _page_server

            srv = _page_server(b"<!DOCTYPE html><title>replay</title>", "127.0.0.1", 0)
        else:
            from sim.sun.viewer.replay import synthetic_replay
            from sim.sun.viewer.viser_app import export_static, serve_dir

            out = export_static(synthetic_replay(n_stones=4, seconds=0.5, fps=10.0, turns=1), tmp_path / "exp", fps=10)
            (out / "passwd").symlink_to("/etc/passwd")
            (tmp_path / "secret.txt").write_text("root: the neighbour's file\n", encoding="utf-8")
            (out / "up").symlink_to(tmp_path)
            os.mkfifo(out / "fifo")
            srv = serve_dir(out, port=0)
        start_in_thread(srv, f"test-{name}")
        port, good = srv.server_address[1], "/"

        def stop() -> None:
            srv.shutdown()
            srv.server_close()
    else:
        if name == "viewer":
            from sim.sun.viewer.replay import synthetic_replay
            from sim.sun.viewer.viser_app import ReplayViewer

            app = ReplayViewer(synthetic_replay(n_stones=4, seconds=0.5, fps=10.0, turns=1), port=0)
        else:
            from sim.sun.viewer.editor_app import EditorApp, open_editor

            app = EditorApp(open_editor(ROOT / "scenarios" / "sun" / "layouts" / "gates.toml"), port=0)
        port, good, stop = app.port, "/", app.close
    try:
        yield name, port, good
    finally:
        stop()


def test_a_good_request_is_served_with_the_security_headers(server: tuple[str, int, str]) -> None:
    name, port, good = server
    status, data = _get(port, good)
    assert status == 200, (name, data[:300])
    head = data.partition(b"\r\n\r\n")[0].lower()
    for h in (b"content-security-policy:", b"x-content-type-options: nosniff", b"referrer-policy: no-referrer"):
        assert h in head, (name, h)
    # a page of this server may ask too (a browser sends its Origin with a module script)
    assert _get(port, good, extra=f"Origin: http://127.0.0.1:{port}\r\n")[0] == 200, name


def test_a_foreign_host_or_origin_is_refused(server: tuple[str, int, str]) -> None:
    name, port, good = server
    for host in (f"evil.example:{port}", "127.0.0.1:1", f"127.0.0.1.evil.example:{port}"):
        assert _get(port, good, host=host)[0] == 403, (name, host)  # DNS rebinding
    for origin in ("http://evil.example", f"http://evil.example:{port}", "null", f"https://127.0.0.1:{port}",
                   f"http://127.0.0.1:{port}.evil.example"):
        assert _get(port, good, extra=f"Origin: {origin}\r\n")[0] == 403, (name, origin)
    # a websocket handshake from another site's page (cross-site websocket hijacking)
    ws = ("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n")
    status, _ = _raw(port, f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://evil.example\r\n{ws}\r\n"
                     .encode())
    assert status == 403, name
    # and one without an Origin (no browser's page)
    assert _raw(port, f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{ws}\r\n".encode())[0] in (403, 404), name


@pytest.mark.parametrize("path", ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc/passwd",
                                  "/passwd", "/up/", "/up/secret.txt", "/fifo", "/nope", "/%00"])
def test_nothing_outside_what_it_serves(server: tuple[str, int, str], path: str) -> None:
    name, port, _ = server
    status, data = _get(port, path)
    assert status in (400, 404), (name, path, data[:200])
    assert b"root:" not in data and b"Directory listing" not in data and b"Traceback" not in data, (name, path)


def test_a_huge_header_is_refused_and_the_server_goes_on(server: tuple[str, int, str]) -> None:
    name, port, good = server
    status, data = _get(port, good, extra=f"X-Big: {'a' * 70_000}\r\n")
    assert status is None or 400 <= status < 500, (name, data[:200])
    status, data = _get(port, good, extra="".join(f"X-{i}: {i}\r\n" for i in range(200)))
    assert status is None or 400 <= status < 500, (name, data[:200])
    assert _get(port, good)[0] == 200, name  # still serving
    assert threading.active_count() < 200
