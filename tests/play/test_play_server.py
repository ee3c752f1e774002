"""The page server checks every request (docs/security.md): Host, Origin, method, path, size, JSON."""

from __future__ import annotations

import http.client
import json
from typing import Iterator

import pytest

from sim.games import REGISTRY
from sim.play.server import MAX_BODY, BadRequest, parse_after, parse_move, start_server
from sim.play.session import seat_view
from sim.play.table import WebTable


@pytest.fixture
def served() -> Iterator[tuple[int, object]]:
    table = WebTable(seat_view(REGISTRY, "druids"), 0, ["you", "<b>random</b>"], "Stonehenge", "druids")
    server, _ = start_server(table, 0)
    try:
        yield server.server_address[1], server
    finally:
        server.shutdown()
        server.server_close()


def _ask(port: int, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
         host: str | None = None) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    conn.putheader("Host", host if host is not None else f"127.0.0.1:{port}")
    for k, v in (headers or {}).items():
        conn.putheader(k, v)
    if body is not None:
        conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, dict(r.getheaders()), data


def _post(port: int, body: bytes, origin: str | None = "self", ctype: str = "application/json", **kw) -> tuple[int, dict]:
    headers = {"Content-Type": ctype}
    if origin is not None:
        headers["Origin"] = f"http://127.0.0.1:{port}" if origin == "self" else origin
    status, _, data = _ask(port, "POST", "/move", body, headers, **kw)
    return status, json.loads(data)


def test_the_page_and_its_state_are_served_with_a_strict_policy(served) -> None:  # noqa: ANN001
    port, _ = served
    status, headers, body = _ask(port, "GET", "/")
    assert status == 200 and b"<script src=\"/play.js\">" in body
    assert "script-src 'self'" in headers["Content-Security-Policy"] and headers["X-Content-Type-Options"] == "nosniff"
    assert _ask(port, "GET", "/play.js")[0] == 200 and _ask(port, "GET", "/play.css")[0] == 200
    status, _, body = _ask(port, "GET", "/state", host=f"localhost:{port}")
    state = json.loads(body)
    assert status == 200 and state["labels"] == ["you", "<b>random</b>"]  # data, shown with textContent
    assert b"innerHTML" not in _ask(port, "GET", "/play.js")[2]


@pytest.mark.parametrize("path", ["/../etc/passwd", "/index.html", "/state/x", "/move", "/state/../", "/turn/3", "/turn/x", "/turn/99999999999"])
def test_other_paths_are_not_found(served, path: str) -> None:  # noqa: ANN001
    assert _ask(served[0], "GET", path)[0] == 404


def test_a_foreign_host_or_origin_is_refused(served) -> None:  # noqa: ANN001
    port, server = served
    assert _ask(port, "GET", "/state", host=f"evil.example:{port}")[0] == 403  # DNS rebinding
    assert _ask(port, "GET", "/state", host="127.0.0.1:1")[0] == 403
    assert _post(port, b'{"decision": 1, "choice": 1}', origin="http://evil.example")[0] == 403
    assert _post(port, b'{"decision": 1, "choice": 1}', origin=None)[0] == 403
    assert _post(port, b'{"decision": 1, "choice": 1}', host=f"evil.example:{port}")[0] == 403
    assert server.refused >= 5


def test_bad_moves_are_refused_before_the_game(served) -> None:  # noqa: ANN001
    port, _ = served
    assert _post(port, b'{"decision": 1, "choice": 1}', ctype="text/plain")[0] == 415
    assert _post(port, b"x" * (MAX_BODY + 1))[0] == 413
    assert _post(port, b"{not json")[0] == 400
    assert _ask(port, "PUT", "/move", b"{}", {"Origin": f"http://127.0.0.1:{port}"})[0] == 405
    # well-formed, but no move is asked: the table says so
    assert _post(port, b'{"decision": 1, "choice": 1}') == (200, {"ok": False, "message": "it is not your turn"})


@pytest.mark.parametrize("body", [
    b"[]", b'{"decision": 1}', b'{"decision": 1, "choice": 1, "x": 2}', b'{"decision": true, "choice": 1}',
    b'{"decision": 1, "choice": true}', b'{"decision": 1, "choice": 0}', b'{"decision": 1, "choice": 1e9}',
    b'{"decision": 1, "choice": "' + b"a" * 200 + b'"}', b'{"decision": 1, "choice": "a\\nb"}',
    b'{"decision": -1, "choice": 1}', b'{"decision": 1, "choice": [1]}', b"\xff\xfe",
])
def test_parse_move_refuses_what_is_not_a_move(body: bytes) -> None:
    with pytest.raises(BadRequest):
        parse_move(body, "application/json")


def test_parse_move_and_after() -> None:
    assert parse_move(b'{"decision": 3, "choice": "Place(a=1)"}', "application/json; charset=utf-8") == (3, "Place(a=1)")
    assert parse_after("/state?after=12") == 12
    assert parse_after("/state?after=-1") is None and parse_after("/state?after=" + "9" * 20) is None
    assert parse_after("/state") is None


def test_a_page_that_goes_away_mid_answer_leaves_no_traceback(served, monkeypatch, capsys) -> None:  # noqa: ANN001
    """A closed tab drops its waiting ``/state?after=N``; the server's late answer meets a closed
    socket. That is no fault: the person's terminal shows no traceback (seen in a manual
    ``stonelab play`` session before the server ignored it), while a real error is still reported."""
    import socket
    import struct
    import time

    import sim.play.server as srv

    port, server = served
    monkeypatch.setattr(srv, "LONG_POLL_S", 0.5)  # the waiting request answers (the same version) in 0.5 s
    version = json.loads(_ask(port, "GET", "/state")[2])["version"]
    for _ in range(3):  # a few times: a reset socket fails the server's write at its first or second try
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(f"GET /state?after={version} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with a reset
        s.close()
    time.sleep(1.5)  # the server's answers have been tried and failed
    assert _ask(port, "GET", "/state")[0] == 200  # it still serves
    err = capsys.readouterr().err
    assert "Traceback" not in err and "BrokenPipe" not in err and "ConnectionReset" not in err, err
    try:
        raise ValueError("a real fault")
    except ValueError:
        server.handle_error(None, ("127.0.0.1", 1))
    assert "ValueError: a real fault" in capsys.readouterr().err


def test_deeply_nested_json_and_the_favicon_get_an_answer(served, capsys) -> None:  # noqa: ANN001
    """1,000 '[' then 1,000 ']' (2,000 bytes, under the limit) made json.loads raise RecursionError:
    the connection closed with no answer and a traceback reached the terminal."""
    port, _ = served
    status, body = _post(port, b"[" * 1000 + b"]" * 1000)
    assert status == 400 and body["ok"] is False
    assert _ask(port, "GET", "/favicon.ico")[0] == 204  # no console error for a missing icon
    assert "Traceback" not in capsys.readouterr().err
