"""``stonelab replay view|export`` for the turn-based games: the page written, the run's first games'
pages and the report's links, and every bad input refused with exit code 2 and a clear message."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from sim.cli import main
from tests.replay.conftest import make_run


def _data(html: str) -> dict:
    return json.loads(re.search(r"""id=["']replay-data["']>(.*?)</script>""", html, re.S)[1])


@pytest.mark.parametrize("game", ["druids", "rocks", "sozoikum"])
def test_export_writes_one_self_contained_page(runs: dict[str, Path], tmp_path: Path, game: str, capsys) -> None:
    out = tmp_path / "page.html"
    assert main(["replay", "export", str(runs[game]), "--game", "1", "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    html = out.read_text(encoding="utf-8")
    # offline: nothing fetched from anywhere (no src=, href= to a network, no fetch/XHR)
    assert not re.search(r"(src|href)\s*=\s*['\"]?(https?:)?//", html)
    assert "fetch(" not in html and "XMLHttpRequest" not in html
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    doc = _data(html)
    assert doc["format"] == "stonelab.turns" and doc["game"] == game and doc["run"]["game_index"] == 1
    assert "window.StonelabBoard" in html


def test_run_writes_the_first_games_pages_and_the_report_links_them(tmp_path: Path) -> None:
    run = make_run(tmp_path, "druids", report=True)
    pages = sorted(p.name for p in (run / "replays").iterdir())
    assert pages == ["game-0.html", "game-1.html", "game-2.html"]
    report = (run / "report" / "report.html").read_text(encoding="utf-8")
    section = report[report.index("<h2>Replays</h2>"):]
    for p in pages:
        assert f"href='../replays/{p}'" in section
    assert "--game N" in section


def test_hostile_labels_are_escaped_in_the_page(tmp_path: Path) -> None:
    evil = "x<script>alert(1)<img src=x onerror=alert(1)>&\u2028"
    root = tmp_path / "evil<b>"
    root.mkdir()
    sc = root / "s.toml"
    sc.write_text(f'name = {json.dumps(evil)}\ngame = "druids"\ngames = 1\nseed = 1\nbackend = "serial"\n'
                  '[[seats]]\nagent = "random"\n[[seats]]\nagent = "random"\n', encoding="utf-8")
    run = root / "run"
    assert main(["run", str(sc), "--out", str(run), "--no-report"]) == 0
    out = tmp_path / "p.html"
    assert main(["replay", "export", str(run), "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "<img src=x" not in html and "<script>alert" not in html and "\u2028" not in html
    assert "evil<b>" not in html  # the folder's name too, in the title and the data
    assert evil in _data(html)["title"]


@pytest.mark.parametrize("args, message", [
    (["--game", "99"], "has no game 99 at sweep point 0; its games there are 0..2"),
    (["--game", "-1"], "game index must be >= 0"),
    (["--point", "3"], "no games at sweep point 3"),
    (["--seat", "2"], "seat 2 is not in the game; its seats are 0..1"),
])
def test_bad_options_exit_2(runs: dict[str, Path], tmp_path: Path, capsys, args: list[str], message: str) -> None:
    rc = main(["replay", "export", str(runs["druids"]), "--out", str(tmp_path / "x.html"), *args])
    err = capsys.readouterr().err
    assert rc == 2 and message in err, err
    assert not (tmp_path / "x.html").exists()


def test_out_must_be_an_html_file(runs: dict[str, Path], tmp_path: Path, capsys) -> None:
    assert main(["replay", "export", str(runs["druids"]), "--out", str(tmp_path / "x.txt")]) == 2
    assert "--out" in capsys.readouterr().err


def test_a_run_of_an_unknown_game_exits_2(runs: dict[str, Path], tmp_path: Path, capsys) -> None:
    run = tmp_path / "foreign"
    shutil.copytree(runs["druids"], run)
    con = sqlite3.connect(run / "results.sqlite")
    with con:
        con.execute("UPDATE meta SET value = 'chess' WHERE key = 'game'")
    con.close()
    for cmd in ("export", "view"):
        rc = main(["replay", cmd, str(run), "--out" if cmd == "export" else "--port", str(tmp_path / "x.html")
                   if cmd == "export" else "0"])
        err = capsys.readouterr().err
        assert rc == 2 and "the game 'chess', which this installation does not have" in err, err


def test_not_a_run_folder_exits_2(tmp_path: Path, capsys) -> None:
    assert main(["replay", "export", str(tmp_path), "--out", str(tmp_path / "x.html")]) == 2
    assert "not a run folder" in capsys.readouterr().err


def test_view_serves_the_page_on_loopback(runs: dict[str, Path], capsys, monkeypatch) -> None:
    """``view`` prints the address and serves the page there, nothing else; Ctrl-C ends it."""
    import http.server

    served: dict = {}
    real = http.server.ThreadingHTTPServer.serve_forever

    def serve(self, *a, **k):  # noqa: ANN001, ANN002, ANN003 - the server's own signature
        served["addr"] = self.server_address
        t = threading.Thread(target=real, args=(self,), daemon=True)
        t.start()
        time.sleep(0.2)
        base = f"http://127.0.0.1:{self.server_address[1]}"
        with urllib.request.urlopen(base + "/", timeout=10) as r:  # noqa: S310 - loopback
            served["page"] = r.read().decode("utf-8")
        try:
            urllib.request.urlopen(base + "/results.sqlite", timeout=10)  # noqa: S310 - loopback
        except urllib.error.HTTPError as e:
            served["other"] = e.code
        self.shutdown()
        raise KeyboardInterrupt

    monkeypatch.setattr(http.server.ThreadingHTTPServer, "serve_forever", serve)
    assert main(["replay", "view", str(runs["rocks"]), "--port", "0"]) == 130  # Ctrl-C's code, as every command
    out = capsys.readouterr().out
    assert served["addr"][0] == "127.0.0.1"
    assert f"replay: http://127.0.0.1:{served['addr'][1]}/" in out
    assert _data(served["page"])["game"] == "rocks"
    assert served["other"] == 404


def test_sun_only_options_and_seat_are_checked(runs: dict[str, Path], tmp_path: Path, capsys) -> None:
    # --seat on a 3-D replay file: refused (a 3-D replay hides nothing)
    f = tmp_path / "r.npz"
    f.write_bytes(b"not a replay")
    assert main(["replay", "export", str(f), "--seat", "0", "--out", str(tmp_path / "d")]) == 2
    assert "--seat" in capsys.readouterr().err
