"""The viser viewer: the live server's scene and controls, the static export, and serving it."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from sim.cli import main
from sim.core.errors import InputError
from sim.sun.viewer.replay import PENALTY_COLOUR, Replay, hex_rgb, save_replay
from sim.web.guard import local_url
from sim.sun.viewer.viser_app import (EXPORT_INDEX, EXPORT_RECORDING, EXPORT_STANDALONE, ReplayViewer, check_export_dir,
                                  check_host, export_static, free_port, is_loopback, serve_dir,
                                  serve_until_interrupted, start_server)


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as r:  # noqa: S310 - loopback only
        return r.read()


def test_export_writes_a_playable_folder(tmp_path: Path, synth: Replay) -> None:
    out = export_static(synth, tmp_path / "exp", fps=15)
    rec = (out / EXPORT_RECORDING).read_bytes()
    assert len(rec) > 500
    index = (out / EXPORT_INDEX).read_text()
    assert "playbackPath" in index and EXPORT_RECORDING in index and "<html" in index.lower()
    assert "__VISER_EMBED_DATA__" in (out / EXPORT_STANDALONE).read_text()
    import json

    summary = json.loads((out / "replay.json").read_text())
    assert len(summary["turns"]) == 2 and summary["turns"][1]["start_s"] > 1.9


def test_exported_pages_show_a_loading_notice_before_the_client_script(tmp_path: Path, synth: Replay) -> None:
    """The page stayed blank while viser's client (a megabyte of script in the page's head) unpacked:
    with the CPU slowed tenfold (Chrome's CPU throttling) the first text came after 7.6 s, the
    controls after 10.5 s. The notice comes before that script, so it is painted first."""
    from html.parser import HTMLParser

    out = export_static(synth, tmp_path / "exp", fps=15)
    for name in (EXPORT_INDEX, EXPORT_STANDALONE):
        page = (out / name).read_text()
        notice, client = page.find("Loading the 3-D replay viewer"), page.find("<script data-p=")
        assert 0 < notice < client, name
        assert page.lower().find("<meta charset") < notice  # the charset stays in the first bytes

        class Texts(HTMLParser):
            def __init__(self) -> None:
                super().__init__()
                self.before_script: list[str] = []
                self.scripts = 0

            def handle_starttag(self, tag: str, attrs: list) -> None:  # noqa: ANN001
                self.scripts += tag == "script" and any(k == "data-p" for k, _ in attrs)

            def handle_data(self, data: str) -> None:
                if not self.scripts and data.strip():
                    self.before_script.append(data.strip())

        p = Texts()
        p.feed(page)
        assert "Loading the 3-D replay viewer…" in p.before_script
        assert "stonelab-loading" in page and "notice.remove()" in page  # it goes once the client has mounted
        assert "data-stonelab-ready" in page  # the signal a headless browser waits for


def test_export_size_grows_with_motion_not_with_still_stones(tmp_path: Path, synth: Replay) -> None:
    # only moving bodies are re-sent: a replay with twice the still stones is not twice as big
    from sim.sun.viewer.replay import synthetic_replay
    from sim.sun.viewer.viser_app import record_scene

    small = len(record_scene(synthetic_replay(n_stones=4, seconds=2.0), fps=30))
    big = len(record_scene(synthetic_replay(n_stones=24, seconds=2.0), fps=30))
    assert big < 1.5 * small


def test_serve_dir_serves_the_export_on_localhost(tmp_path: Path, synth: Replay) -> None:
    out = export_static(synth, tmp_path / "exp", fps=10)
    httpd = serve_dir(out, port=0)
    th = threading.Thread(target=httpd.serve_forever, daemon=True)
    th.start()
    try:
        host, port = httpd.server_address[:2]
        assert host == "127.0.0.1"
        base = f"http://127.0.0.1:{port}/"
        assert b"playbackPath" in _get(base)
        assert _get(base + EXPORT_RECORDING) == (out / EXPORT_RECORDING).read_bytes()
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_serve_and_export_refuse_bad_input(tmp_path: Path, synth: Replay) -> None:
    with pytest.raises(InputError, match="not a replay export"):
        check_export_dir(tmp_path)
    assert main(["replay", "serve", str(tmp_path)]) == 2
    assert main(["replay", "serve", str(tmp_path / "nope")]) == 2
    f = save_replay(synth, tmp_path / "a.npz")
    (tmp_path / "file").write_text("x")
    assert main(["replay", "export", str(f), "--out", str(tmp_path / "file")]) == 2
    assert main(["replay", "export", str(f), "--out", str(tmp_path / "e"), "--fps", "0"]) == 2
    assert main(["replay", "export", str(f), "--out", str(tmp_path / "e")]) == 0
    assert (tmp_path / "e" / EXPORT_INDEX).is_file()


def test_loopback_detection() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.7")


def test_the_command_line_serving_helpers(synth: Replay, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # the replay viewer and the layout editor start, print and stop through these
    assert local_url("0.0.0.0", 8080) == "http://127.0.0.1:8080/" and local_url("::", 1) == "http://127.0.0.1:1/"
    assert local_url("192.0.2.7", 80) == "http://192.0.2.7:80/"
    assert local_url("::1", 80) == local_url("[::1]", 80) == "http://[::1]:80/"  # a URL brackets IPv6
    with pytest.raises(InputError) as e:
        check_host("no-such-host.invalid", 8080)
    assert e.value.key == "--host"
    # a port another socket holds: the OSError becomes a one-line error blamed on --port
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        with pytest.raises(InputError) as e:
            start_server(lambda: socket.create_server(("127.0.0.1", port)), "127.0.0.1", port, "viewer")
        assert e.value.key == "--port" and f"127.0.0.1:{port}" in e.value.message
    v = start_server(lambda: ReplayViewer(synth, host="127.0.0.1", port=free_port()), "127.0.0.1", 0, "viewer")
    assert "warning" not in capsys.readouterr().err  # loopback: no network warning
    assert b"<html" in _get(v.url).lower()

    def ctrl_c(_seconds: float) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(time, "sleep", ctrl_c)
    import typer

    with pytest.raises(typer.Exit) as stop:  # Ctrl-C: the command's exit code 130
        serve_until_interrupted(v, f"replay viewer: {local_url('127.0.0.1', v.port)}")
    assert stop.value.exit_code == 130
    assert capsys.readouterr().out.startswith(f"replay viewer: http://127.0.0.1:{v.port}/\n")
    assert v._stop.is_set()  # closed on Ctrl-C: the player thread is told to stop


def test_live_viewer_scrubs_jumps_and_highlights(synth: Replay) -> None:
    v = ReplayViewer(synth, host="127.0.0.1", port=free_port())
    try:
        assert v.server.get_port() == v.port
        assert b"<html" in _get(v.url).lower()
        stone0 = synth.index_of("stone:0")
        # turn 1: stone 0 becomes a penalty: drawn red, and the event says so
        v.seek(float(synth.times[5]))
        assert v.nodes._state[stone0].colour == hex_rgb(PENALTY_COLOUR)
        assert "toppled" in v.event_md.content
        assert v.nodes.handles[synth.index_of("ball")].visible
        # jump to turn 2 from the dropdown: time moves to its first frame, stone 0 is gone
        v.turn_select.value = v._turn_labels[1]
        time.sleep(0.3)  # the callback runs on viser's thread
        t2 = float(synth.times[synth.turns[1].frames[0]])
        assert abs(v._time - t2) < 1e-6
        assert v.event_md.content == synth.turns[1].markdown()
        assert not v.nodes.handles[stone0].visible
        # play advances the clock; pause stops it
        v.play()
        time.sleep(0.5)
        v.pause()
        assert v._time > t2 + 0.1
        # scrub back with the slider
        v.time_slider.value = 0.2
        time.sleep(0.3)
        assert v.nodes.handles[stone0].visible and abs(v._time - 0.2) < 1e-6
    finally:
        v.close()
