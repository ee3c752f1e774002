"""The play page's board: the game's replay drawing of the position, built server-side from the true
state, sent with the person's seat's hidden part only (the other seats' hands, face-down stones and
fists never reach the page)."""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from play_helpers import ROOT, playable
from sim.core.game import State
from sim.druids.geometry import POINT_NAMES
from sim.games import REGISTRY
from sim.play.board import SeatBoard
from sim.play.server import start_server
from sim.play.session import Session
from sim.play.table import WebTable


def _face_down_druids(tmp_path: Path) -> str:
    text = (ROOT / "scenarios" / "druids" / "classic.toml").read_text(encoding="utf-8")
    path = tmp_path / "face-down.toml"
    path.write_text(text.replace("face_down = false", "face_down = true", 1), encoding="utf-8")
    return str(path)


def _game_through_the_server(path: str, seat: int, out: Path) -> tuple[list[tuple[dict, State]], SeatBoard, dict]:
    """Play ``path`` with the person in ``seat`` (always the last listed move) through the page's
    server; at each of the person's decisions, the ``/state`` JSON as the page gets it and a copy
    of the true state."""
    session = Session(playable(path, seat, out), REGISTRY)
    board = SeatBoard.of(REGISTRY, session.game, session.config(), session.human)
    assert board is not None
    table = WebTable(session.view, session.human, session.labels, "t", session.game.spec.name, board=board)
    server, _ = start_server(table, 0)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    latest: dict[str, State] = {}

    def before(state: State, step: int) -> None:
        table.observe(state, step)
        latest["state"] = state.clone()

    def game() -> None:
        with session.held():
            state, played = session.play(table, before_step=before)
            session.store(state, played)

    th = threading.Thread(target=game, daemon=True)
    th.start()
    seen: list[tuple[dict, State]] = []
    try:
        while th.is_alive():
            snap = table.snapshot(after=table.version - 1, wait_s=1.0)
            if not snap["your_turn"]:
                time.sleep(0.005)
                continue
            with urllib.request.urlopen(f"{url}/state", timeout=10) as r:
                sent = json.load(r)
            seen.append((sent, latest["state"]))
            assert table.submit(snap["decision"], len(snap["legal"]))["ok"]
        th.join(30)
        with urllib.request.urlopen(f"{url}/board.js", timeout=10) as r:
            script = r.read().decode()
        assert "window.StonelabBoard" in script and "window.svgText" in script
        end = table.snapshot()
    finally:
        table.close()
        server.shutdown()
        server.server_close()
    return seen, board, end


@pytest.mark.parametrize("game, seat", [("druids", 1), ("rocks", 0), ("sozoikum", 2)])
def test_the_board_sent_to_a_seat_holds_no_other_seats_secret(tmp_path: Path, game: str, seat: int) -> None:
    path = {"druids": _face_down_druids(tmp_path), "rocks": "rocks/greedy-vs-random.toml",
            "sozoikum": "sozoikum/bluff.toml"}[game]
    seen, board, end = _game_through_the_server(path, seat, tmp_path / "run")
    last = end["board"]["frame"]["text"]
    assert seen and ("win" in last or "draw" in last), last  # the end is drawn too
    secrets = revealed = hidden_steps = 0
    for sent, state in seen:
        full = board.book.frames(board.game, board.config, state.history(), partial=True).frames[-1]
        frame = sent["board"]["frame"]
        # exactly what `replay export --seat S` keeps of the true frame
        assert frame == json.loads(json.dumps(full.as_dict([seat])))
        assert set(frame["hidden"]) <= {str(seat)}
        # "What happened": every step in the replay's words, the seat's own words (notes) and no other's
        frames = board.book.frames(board.game, board.config, state.history(), partial=True).frames
        words = sent["board"]["words"]
        assert len(words) == len(frames) - 1
        for k, (w, f) in enumerate(zip(words, frames[1:])):
            mine = f.hidden.get(seat) or f.hidden.get(str(seat)) or {}  # type: ignore[call-overload]
            if game == "druids" and " places a stone face down on " in f.text:
                # a value turned up since is said in the step that placed it; one still face down never
                # (the value from the true history: what the sent words must match, or never show)
                a = state.history()[k][1]
                if state.is_face_up(a.point):
                    revealed += 1
                    assert w["text"] == f.text.replace(" a stone face down on ", f" a {a.value} on ") \
                        .replace(f" on {POINT_NAMES[a.point]}", f" on {POINT_NAMES[a.point]} (face down; turned up since)", 1)
                    assert w["note"] is None  # public now: no "only you know"
                    continue
                hidden_steps += 1
            assert w["text"] == f.text
            assert w["note"] == mine.get("note"), (w, f.hidden)
        others = {o: h for o, h in full.hidden.items() if o != seat and h}
        secrets += len(others)
        for o, h in others.items():
            if game == "druids":  # the opponent's face-down stones are sent as value 0 (unknown)
                public = {p: v for p, s, v in frame["board"]["stones"]}
                assert all(public[p] == 0 for p, _v in h["stones"])
                assert "hands" not in frame["board"]
            elif game == "rocks":  # another seat's hand: its size only
                assert "hands" not in frame["board"] and frame["board"]["hand_sizes"][o] == len(h["hand"])
            elif "fist" in h:  # sozoikum: another seat's fist is in its hidden part only; the board says who holds one
                assert all(f is None or isinstance(f, bool) for f in frame["board"]["fists"])
    assert secrets > 0  # the other seats did hold secrets: the check is not vacuous
    if game == "druids":  # values were turned up, and others were still face down, while the person decided
        assert revealed > 0 and hidden_steps > 0, (revealed, hidden_steps)
