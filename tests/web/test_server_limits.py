"""Limits of the project's page server (sim/web/server.py) found in review: a silent connection is
closed after the handler's timeout (a slowloris or an idle keep-alive connection held a thread for
ever), the server listens on IPv6 loopback, and only real loopback addresses count as loopback."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from typing import Iterator

import pytest

from sim.web.guard import HostGuard, is_loopback
from sim.web.server import REQUEST_TIMEOUT_S, WebHandler, WebServer, make_server, serve_until_stopped, start_in_thread


class _Hello(WebHandler):
    timeout = 0.5  # the real handler's value is REQUEST_TIMEOUT_S; short here to keep the test quick

    def get(self, path: str) -> None:
        self.send(200, b"hello", "text/plain")


@pytest.fixture
def quick_server() -> Iterator[WebServer]:
    server = make_server(_Hello, "127.0.0.1", 0)
    start_in_thread(server, "test-web-limits")
    yield server
    server.shutdown()
    server.server_close()


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``sock`` (EOF or a reset) within ``seconds``."""
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
        return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def test_the_handler_times_out_silent_connections() -> None:
    assert 0 < REQUEST_TIMEOUT_S <= 120 and WebHandler.timeout == REQUEST_TIMEOUT_S


def test_a_half_sent_request_is_dropped_after_the_timeout(quick_server: WebServer) -> None:
    port = quick_server.server_address[1]
    before = threading.active_count()
    slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
    for s in slow:
        s.sendall(b"GET / HTTP/1.1\r\nHost: ")  # and nothing more: a slowloris
    try:
        assert all(_closed_within(s, 5.0) for s in slow)
    finally:
        for s in slow:
            s.close()
    deadline = time.monotonic() + 5.0
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= before


def test_an_idle_keep_alive_connection_is_closed(quick_server: WebServer) -> None:
    port = quick_server.server_address[1]
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        s.settimeout(5.0)
        assert s.recv(65536).startswith(b"HTTP/1.1 200")
        assert _closed_within(s, 5.0)


def _ipv6_loopback() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def _get_v6(port: int, host_header: str) -> bytes:
    """The whole answer to ``GET /`` over IPv6 loopback with ``Host: host_header``."""
    with socket.create_connection(("::1", port), timeout=5) as s:
        s.sendall(f"GET / HTTP/1.1\r\nHost: {host_header}\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    return answer


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_the_server_listens_on_ipv6_loopback(host: str) -> None:
    server = make_server(_Hello, host, 0)
    start_in_thread(server, "test-web-ipv6")
    try:
        port = server.server_address[1]
        answer = _get_v6(port, f"[::1]:{port}")
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"hello")
        assert _get_v6(port, f"evil.example:{port}").startswith(b"HTTP/1.1 403")  # the guard still refuses
    finally:
        server.shutdown()
        server.server_close()


def test_a_dual_stack_server_accepts_the_ipv4_name_of_a_mapped_address() -> None:
    hosts = HostGuard("::").allowed_hosts("::ffff:192.0.2.7", 8000)
    assert "192.0.2.7:8000" in hosts and "[::ffff:192.0.2.7]:8000" in hosts
    assert "evil.example:8000" not in hosts


@pytest.mark.parametrize("host, loop", [("127.0.0.1", True), ("127.3.4.5", True), ("localhost", True),
                                        ("LOCALHOST", True), ("::1", True), ("[::1]", True),
                                        ("127.0.0.1.example.net", False), ("127.evil", False),
                                        ("0.0.0.0", False), ("::", False), ("192.168.1.2", False), ("", False)])
def test_only_real_loopback_addresses_are_loopback(host: str, loop: bool) -> None:
    assert is_loopback(host) is loop


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_the_replay_page_serves_on_ipv6_loopback() -> None:
    from sim.replay.cli import _page_server

    server = _page_server(b"<p>replay</p>", "::1", 0)
    start_in_thread(server, "test-replay-ipv6")
    try:
        port = server.server_address[1]
        answer = _get_v6(port, f"[::1]:{port}")
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"<p>replay</p>")
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_served_page_stops_on_a_signal_like_ctrl_c(signum: int, code: int) -> None:
    # replay view / replay serve block in serve_until_stopped: Ctrl-C, `kill PID` and a closed
    # terminal all end them with the shell's code for that signal, and the port is let go
    old = signal.signal(signal.SIGINT, signal.default_int_handler)  # a shell may start pytest ignoring it
    server = make_server(_Hello, "127.0.0.1", 0)
    port = server.server_address[1]
    threading.Timer(0.3, os.kill, args=(os.getpid(), signum)).start()
    try:
        assert serve_until_stopped(server) == code
    finally:
        signal.signal(signal.SIGINT, old)
    assert server.socket.fileno() == -1  # closed
    with socket.socket() as probe:  # nothing listens there any more
        assert probe.connect_ex(("127.0.0.1", port)) != 0
