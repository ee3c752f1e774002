"""Hostile pages and folders (docs/security.md): a websocket from a foreign page, an editor
page that names paths, values no honest page sends, an export folder with links out of it.

Every server here is real (viser, http.server) and is reached by a real client (``websockets``,
``urllib``) from loopback, as a browser tab of another site would reach it.
"""

from __future__ import annotations

import asyncio
import http.client
import math
import os
import re
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from sim.sun.table.layout import load_layout
from sim.sun.viewer.replay import Replay

ROOT = Path(__file__).resolve().parents[2]
LAYOUTS = ROOT / "scenarios" / "sun" / "layouts"


def _handshake(port: int, origin: str | None, host: str | None = None) -> str:
    """``"open"`` if a viser websocket handshake with this Origin (and Host) succeeds, else the refusal."""
    import viser
    import websockets

    async def go() -> str:
        # the socket goes to 127.0.0.1 whatever the URI names (as after DNS rebinding): the URI
        # gives the Host header
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        try:
            async with websockets.connect(f"ws://{host or f'127.0.0.1:{port}'}", sock=sock, origin=origin,
                                          subprotocols=[f"viser-v{viser.__version__}"], open_timeout=10):
                return "open"
        except websockets.exceptions.InvalidStatus as e:
            return f"refused {e.response.status_code}"
        finally:
            sock.close()

    return asyncio.run(go())


def _assert_guarded(port: int) -> None:
    good = f"http://127.0.0.1:{port}"
    assert _handshake(port, good) == "open"
    assert _handshake(port, f"http://localhost:{port}", f"localhost:{port}") == "open"
    for origin, host in [("http://evil.example", None), (f"http://evil.example:{port}", None), ("null", None),
                         (None, None), (f"http://127.0.0.1:{port + 1}", None), (f"https://127.0.0.1:{port}", None),
                         (f"{good}.evil.example", None),
                         # DNS rebinding: the attacker's name resolves to 127.0.0.1, the browser sends it
                         (f"http://evil.example:{port}", f"evil.example:{port}"),
                         (good, f"evil.example:{port}")]:
        assert _handshake(port, origin, host) == "refused 403", (origin, host)
    # the page itself needs the right Host too
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", "/", headers={"Host": f"evil.example:{port}"})
    assert c.getresponse().status == 403
    c.close()


def test_every_viser_server_refuses_foreign_origins_and_hosts(synth: Replay) -> None:
    from sim.sun.viewer.editor_app import EditorApp, open_editor
    from sim.sun.viewer.viser_app import ReplayViewer

    v = ReplayViewer(synth, port=0)
    try:
        _assert_guarded(v.port)
    finally:
        v.close()
    e = EditorApp(open_editor(LAYOUTS / "gates.toml"), port=0)
    try:
        _assert_guarded(e.port)
    finally:
        e.close()


def test_a_server_that_cannot_be_guarded_is_not_started(monkeypatch: pytest.MonkeyPatch) -> None:
    import sim.web.viser_guard as seam
    from sim.web.guard import HostGuard

    class Ignoring(HostGuard):
        def process_request(self, inner: Any) -> Any:  # as if viser no longer called websockets' serve
            return inner

    with pytest.raises(RuntimeError, match="Origin check"):
        seam.viser_server("127.0.0.1", 0, Ignoring("127.0.0.1"))


def test_the_viser_seam_was_read_against_the_installed_versions() -> None:
    """sim/web/viser_guard.py reaches into viser's and websockets' internals (no public hook exists):
    an upgrade of either fails here, loudly, until that file is read against the new version and
    its TESTED_* lists say so."""
    from sim.web.viser_guard import untested_versions

    assert untested_versions() == [], (
        f"{', '.join(untested_versions())}: sim/web/viser_guard.py patches websockets.asyncio.server.serve while "
        "viser starts and wraps viser's GUI-update handlers; read both against this version, run "
        "tests/web and tests/sun_viewer/test_viewer_security.py, then add it to TESTED_VISER / TESTED_WEBSOCKETS")


# ---- the layout editor's files ---------------------------------------------------------------


@pytest.fixture
def editor_in(tmp_path: Path):  # noqa: ANN201
    """An editor page on gates.toml copied into ``tmp_path/work``, and a sibling project whose
    files it must not touch (``tmp_path/other``)."""
    from sim.sun.viewer.editor_app import EditorApp, open_editor

    work, other = tmp_path / "work", tmp_path / "other"
    work.mkdir()
    other.mkdir()
    (work / "gates.toml").write_bytes((LAYOUTS / "gates.toml").read_bytes())
    (other / "pyproject.toml").write_text('[project]\nname = "secret-project"\n', encoding="utf-8")
    (other / "layout.toml").write_bytes((LAYOUTS / "gates.toml").read_bytes())
    app = EditorApp(open_editor(work / "gates.toml"), port=0)
    try:
        yield app, work, other
    finally:
        app.close()


def _tree(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): (p.read_bytes() if p.is_file() else b"<dir>")
            for p in sorted(d.rglob("*")) if not p.is_symlink()}


def test_editor_saves_only_plain_names_in_its_folder(editor_in: Any, tmp_path: Path) -> None:
    app, work, other = editor_in
    (work / "out-link.toml").symlink_to(other / "layout.toml")
    before = _tree(tmp_path)
    hostile = [str(other / "pyproject.toml"), "../other/pyproject.toml", "../other/new.toml", "sub/new.toml",
               "/tmp/x.toml", "..toml", ".hidden.toml", "a\\b.toml", "new.txt", "new.toml\n", "new\x00.toml",
               "~/x.toml", "", " ", "out-link.toml", "x" * 200 + ".toml", 42, None, ["a.toml"]]
    for name in hostile:
        app.path._impl.value = name  # what a client's update message sets, bypassing viser's cast
        assert app.do_save() is False, name
        assert app.message.startswith("refused:"), name
    assert _tree(tmp_path) == before  # nothing written, no folder made, the link's target untouched
    # an existing file it did not open is not overwritten either
    (work / "notes.toml").write_text("keep = 1\n", encoding="utf-8")
    app.path._impl.value = "notes.toml"
    assert app.do_save() is False and "already exists" in app.message
    assert (work / "notes.toml").read_text(encoding="utf-8") == "keep = 1\n"
    # a plain new name, and the opened file itself, are written
    app.path._impl.value = "my-ring_2.toml"
    assert app.do_save() and load_layout(work / "my-ring_2.toml").stones
    app.path._impl.value = "gates.toml"
    assert app.do_save()
    assert sorted(p.name for p in work.iterdir()) == ["gates.toml", "my-ring_2.toml", "notes.toml", "out-link.toml"]


def test_editor_loads_only_from_its_folder_and_says_nothing_of_other_files(editor_in: Any) -> None:
    app, work, other = editor_in
    (work / "out-link.toml").symlink_to(other / "layout.toml")
    (work / "unreadable.toml").write_bytes((LAYOUTS / "gates.toml").read_bytes())
    os.chmod(work / "unreadable.toml", 0)
    (work / "pyproject.toml").write_text('[project]\nname = "secret-project"\n[tool.x]\ny = 1\n', encoding="utf-8")
    os.mkfifo(work / "fifo.toml")
    (work / "dir.toml").mkdir()
    (work / "loop.toml").symlink_to(work / "loop.toml")
    root = os.geteuid() == 0  # root reads a mode-0 file: then it is an ordinary layout
    answers = {}
    for name in ("missing.toml", "out-link.toml", "fifo.toml", "dir.toml", "loop.toml", str(other / "layout.toml"),
                 "../other/layout.toml", "pyproject.toml", *(() if root else ("unreadable.toml",))):
        app.path._impl.value = name
        assert app.do_load() is False, name
        answers[name] = app.message
        assert "secret" not in app.message and "project" not in app.message.replace("pyproject", "")
    gone = {n: a.replace(n, "NAME") for n, a in answers.items() if n.endswith(".toml") and "/" not in n}
    assert len({gone[n] for n in ("missing.toml", "out-link.toml", "fifo.toml", "dir.toml", "loop.toml",
                                  *(() if root else ("unreadable.toml",)))}) == 1
    assert "not a valid layout" in answers["pyproject.toml"]
    # the page lists the folder's own layout files, not the link out
    assert "out-link.toml" not in app.file_select.options and "gates.toml" in app.file_select.options
    # a file of the folder loads, and may then be saved over
    (work / "other-ring.toml").write_bytes((LAYOUTS / "full-32.toml").read_bytes())
    app.path._impl.value = "other-ring.toml"
    assert app.do_load(), app.message
    assert len(app.editor.layout.stones) == len(load_layout(LAYOUTS / "full-32.toml").stones)
    assert app.do_save(), app.message


def test_sun_edit_out_must_be_an_existing_folder(tmp_path: Path) -> None:
    from sim.cli import main

    assert main(["sun", "edit", str(tmp_path / "new.toml"), "--out", str(tmp_path / "nope")]) == 2
    assert main(["sun", "edit", str(tmp_path / "nope" / "new.toml")]) == 2
    assert list(tmp_path.iterdir()) == []


# ---- values no honest page sends ---------------------------------------------------------------

BAD_NUMBERS = [math.nan, math.inf, -math.inf, 1e300, -1e300, "12", "abc", None, True, [1.0], {"a": 1}]


def _send(handle: Any, value: Any) -> None:
    """Set ``value`` on a GUI handle as a client's update would (no cast) and run its callbacks."""
    from viser import GuiEvent

    handle._impl.value = value
    for cb in handle._impl.update_cb:
        cb(GuiEvent(client=None, client_id=None, target=handle))


def test_replay_viewer_refuses_hostile_values_and_keeps_playing(synth: Replay) -> None:
    from sim.sun.viewer.viser_app import ReplayViewer

    v = ReplayViewer(synth, port=0)
    try:
        for bad in ["3x", "x", "", "1e9x", "nanx", 7, None, 2.0, ["1x"]]:
            _send(v.speed, bad)
            assert v.speed.value == "1x" and v._speed == 1.0, bad
        for bad in BAD_NUMBERS:
            _send(v.time_slider, bad)
            assert math.isfinite(v._time) and synth.times[0] <= v._time <= synth.times[-1], bad
        for bad in ["turn 99", 3, None, ""]:
            _send(v.turn_select, bad)
        _send(v.time_slider, -5.0)  # out of range: clamped
        assert v._time == pytest.approx(float(synth.times[0]))
        _send(v.speed, "4x")
        assert v._speed == 4.0
        v.play()
        time.sleep(0.3)
        assert v._thread.is_alive() and v._time > float(synth.times[0])  # the player survived
    finally:
        v.close()


def _refused(handle: Any, bad: Any, do: Any) -> None:
    """With ``bad`` in the page's input ``handle``, the action ``do`` refuses (returns False);
    the input gets its good value back either way."""
    good = handle._impl.value
    handle._impl.value = bad
    try:
        assert do() is False, (handle.label, bad)
    finally:
        handle._impl.value = good


def test_editor_handlers_refuse_hostile_values(editor_in: Any) -> None:
    app, work, _ = editor_in
    n_stones = len(app.editor.layout.stones)
    threads_before = threading.active_count()
    for handle, do in [(app.angle, app.do_add), (app.angle, app.do_move), (app.aim, app.do_pass),
                       (app.seed, app.do_pass), (app.trials, app.do_sweep), (app.step, app.do_sweep)]:
        if do is app.do_move:
            app.select(0)
        for bad in BAD_NUMBERS + ([-1, 0.5, 2**40] if handle in (app.seed, app.trials) else []):
            _refused(handle, bad, do)
            assert app.message.startswith("refused:")
    for handle, do in [(app.shape, app.do_add), (app.gate_shape, app.do_gate), (app.skill, app.do_pass),
                       (app.gap_select, app.do_gate), (app.gate_select, app.do_delete_gate)]:
        for bad in ["nope", "", 3, None, "gate 99: slab", "gate x", ["slab"]]:
            _refused(handle, bad, do)
    for bad in ["99: block at 0.0000 deg", "x: y", 5, None, ["0"]]:
        _send(app.stone_select, bad)
        assert app.selected is None
        assert app.do_delete() is False
    for bad in ["../x.toml", 3, None]:
        _send(app.file_select, bad)
        assert app.path.value == "gates.toml"
    assert len(app.editor.layout.stones) == n_stones  # nothing changed
    assert threading.active_count() <= threads_before + 1


# ---- replay serve ------------------------------------------------------------------------------


def test_replay_serve_serves_only_the_exports_own_files(tmp_path: Path, synth: Replay) -> None:
    from sim.sun.viewer.viser_app import EXPORT_RECORDING, export_static, serve_dir

    out = export_static(synth, tmp_path / "exp", fps=10)
    secret = tmp_path / "secret.txt"
    secret.write_text("the neighbour's file\n", encoding="utf-8")
    (out / "passwd").symlink_to("/etc/passwd")
    (out / "root").symlink_to("/")
    (out / "secret").symlink_to(secret)
    (out / "sub").mkdir()
    (out / "sub" / "inner.txt").write_text("inner\n", encoding="utf-8")
    (out / "up").symlink_to(tmp_path)
    os.mkfifo(out / "fifo")
    httpd = serve_dir(out, port=0)
    th = threading.Thread(target=httpd.serve_forever, daemon=True)
    th.start()
    port = httpd.server_address[1]

    def get(path: str, host: str | None = None) -> tuple[int, bytes]:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("GET", path, headers={"Host": host or f"127.0.0.1:{port}"})
        r = c.getresponse()
        body = r.read()
        c.close()
        return r.status, body

    try:
        assert get("/")[0] == 200 and b"playbackPath" in get("/")[1]
        assert get("/" + EXPORT_RECORDING) == (200, (out / EXPORT_RECORDING).read_bytes())
        assert get("/sub/inner.txt") == (200, b"inner\n")
        for path in ["/passwd", "/root/", "/root/etc/passwd", "/secret", "/up/secret.txt", "/sub/", "/sub",
                     "/fifo", "/../secret.txt", "/%2e%2e/secret.txt", "/up/", "/nope", "/root"]:
            status, body = get(path)
            assert status == 404, path
            assert b"root:" not in body and b"neighbour" not in body and b"Directory listing" not in body
        assert get("/", host=f"evil.example:{port}")[0] == 403
    finally:
        httpd.shutdown()
        httpd.server_close()


# ---- text from files in the pages' markdown ----------------------------------------------------


def test_labels_and_descriptions_are_text_in_the_pages_markdown(synth: Replay, tmp_path: Path) -> None:
    import dataclasses

    from sim.sun.viewer.editor_app import EditorApp, open_editor

    evil = "![x](http://evil.example/beacon) <img src=x onerror=alert(1)> [click](javascript:alert(1)) **b**"
    turn = dataclasses.replace(synth.turns[0], player=evil, text="# heading\n" + evil)
    md = turn.markdown()
    for construct in ("![", "<img", "[click]", "](", "**b**", "\n# "):
        assert not re.search(r"(?<!\\)" + re.escape(construct), md), construct  # only escaped ones
    assert "evil.example" in md  # shown, as text
    # a layout description cannot close the code block it is shown in
    src = tmp_path / "d.toml"
    src.write_text(f'description = "```\\n{evil}"\n' + (LAYOUTS / "gates.toml").read_text(encoding="utf-8")
                   .replace("description", "# description"), encoding="utf-8")
    app = EditorApp(open_editor(src), port=0)
    try:
        content = app.toml_md.content
        fence = content.split("toml", 1)[0]
        assert len(fence) > 3 and content.rstrip().endswith(fence) and content.count(fence) == 2
    finally:
        app.close()


def test_a_client_may_change_only_the_value_of_an_input(synth: Replay) -> None:
    from viser import _messages

    from sim.sun.viewer.viser_app import ReplayViewer

    v = ReplayViewer(synth, port=0)
    try:
        iface = v.server.gui._websock_interface
        impl = v.time_slider._impl
        cbs = list(impl.update_cb)

        def send(updates: dict[str, Any]) -> None:
            msg = _messages.GuiUpdateMessage(impl.uuid, updates)
            asyncio.run_coroutine_threadsafe(iface._handle_incoming_message(0, msg),
                                             v.server._websock_server._background_event_loop).result(10)

        send({"update_cb": "x", "is_button": True, "removed": True})
        send({"value": 0.5, "max": 1e9})
        assert impl.update_cb == cbs and not impl.is_button and not impl.removed
        assert impl.value == 0.5 and v.time_slider.max < 1e9
    finally:
        v.close()
