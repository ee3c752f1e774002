"""The human agent, the moves a person chooses, a game through the page's table, and the stored run."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from play_helpers import ROOT, engine_game, playable
from sim.cli import main
from sim.core.agents import make_agent
from sim.core.errors import InputError, ScenarioError
from sim.core.human import Abandoned, HumanAgent, seated
from sim.core.scenario import load_scenario
from sim.core.store import Store
from sim.games import REGISTRY
from sim.play.session import Refused, Session, play_scenario, resolve_choice, seat_view
from sim.play.table import WebTable


class _Scripted:
    """A channel answering with the first legal action, counting the questions."""

    def __init__(self) -> None:
        self.asked = 0

    def choose(self, seat, observation, legal_actions):  # noqa: ANN001, ANN201 - the Channel protocol
        self.asked += 1
        return legal_actions[0]


def test_a_human_agent_asks_its_channel_and_nobody_else() -> None:
    game = REGISTRY.get("druids")
    config = game.config(2)
    with pytest.raises(ScenarioError, match="stonelab play"):
        make_agent(game, "human", {}, seat=0, rng=np.random.default_rng(0), config=config)
    channel = _Scripted()
    with seated(channel):
        agent = make_agent(game, "human", {}, seat=0, rng=np.random.default_rng(0), config=config)
    assert isinstance(agent, HumanAgent)
    state = game.new_initial_state(config)
    assert agent.act(state.observation(0), state.legal_actions()) == state.legal_actions()[0]
    assert channel.asked == 1
    with pytest.raises(ValueError):
        agent.act(state.observation(0), [])


def _human_file(tmp_path: Path) -> Path:
    text = (ROOT / "scenarios" / "druids" / "classic.toml").read_text(encoding="utf-8")
    path = tmp_path / "human.toml"
    path.write_text(text.replace('agent = "random"', 'agent = "human"', 1), encoding="utf-8")
    return path


def test_validate_accepts_a_human_seat_and_a_study_refuses_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = _human_file(tmp_path)
    assert main(["validate", str(path)]) == 0
    assert "human" in capsys.readouterr().out
    assert main(["run", str(path), "--out", str(tmp_path / "run"), "--games", "2", "--backend", "serial"]) == 2
    err = capsys.readouterr().err
    assert "key 'seats[0].agent'" in err and "stonelab play" in err
    assert not (tmp_path / "run").exists()
    assert main(["tournament", str(path), "--out", str(tmp_path / "t"), "--games", "2", "--backend", "serial"]) == 2


def test_play_scenario_puts_one_person_in_a_fixed_seat(tmp_path: Path) -> None:
    sc = playable("druids/classic.toml", 1, tmp_path / "out")
    assert [s.agent for s in sc.seats] == ["random", "human"]
    assert sc.seat_order == "fixed" and sc.out == str(tmp_path / "out")
    base = load_scenario(ROOT / "scenarios" / "druids" / "classic.toml", REGISTRY)
    assert play_scenario(base, REGISTRY, 0).out.endswith("classic-play")
    with pytest.raises(InputError, match="seats 0 to 1"):
        play_scenario(base, REGISTRY, 2)
    with pytest.raises(InputError, match="--seat"):
        play_scenario(base, REGISTRY, None)
    sweep = load_scenario(ROOT / "scenarios" / "rocks" / "sweep-target.toml", REGISTRY)
    with pytest.raises(ScenarioError, match="sweep"):
        play_scenario(sweep, REGISTRY, 0)
    sun = load_scenario(ROOT / "scenarios" / "sun" / "classic-2p.toml", REGISTRY)
    assert play_scenario(sun, REGISTRY, 0).sections["record"]["frames"] == "all"  # a person's game keeps its frames
    assert play_scenario(sun, REGISTRY, 0, skill="expert").seats[0].seat_options["skill"] == "expert"
    with pytest.raises(InputError, match="key '--skill'"):
        play_scenario(sun, REGISTRY, 0, skill="superhuman")
    with pytest.raises(InputError, match="druids seats have no skill"):
        play_scenario(base, REGISTRY, 0, skill="expert")
    soz = load_scenario(ROOT / "scenarios" / "sozoikum" / "bluff.toml", REGISTRY)
    assert play_scenario(soz, REGISTRY, 0, skill="0.9").seats[0].seat_options["skill"] == 0.9
    with pytest.raises(InputError, match="key '--skill'"):
        play_scenario(soz, REGISTRY, 0, skill="2")


def test_a_choice_is_a_number_or_a_move_and_an_illegal_move_says_the_rule() -> None:
    game = REGISTRY.get("druids")
    view = seat_view(REGISTRY, "druids")
    state = game.new_initial_state(game.config(2))
    state.apply_action(view.parse("a1"))
    legal = state.legal_actions()
    assert resolve_choice(1, legal, state, 1, view) == legal[0]
    assert resolve_choice("2", legal, state, 1, view) == legal[1]
    assert resolve_choice(" place( b = 3 ) ", legal, state, 1, view) == view.parse("b3")
    assert resolve_choice("B3", legal, state, 1, view) == view.parse("b3")
    with pytest.raises(Refused, match="there is no move 0"):
        resolve_choice(0, legal, state, 1, view)
    with pytest.raises(Refused, match="is not a move"):
        resolve_choice("castle kingside", legal, state, 1, view)
    with pytest.raises(Refused, match=r"Place\(a=2\) is not allowed: point a is taken"):
        resolve_choice("a2", legal, state, 1, view)
    state.apply_action(view.parse("b6"))
    state.apply_action(view.parse("c6"))  # b6 was seat 1's only 6
    with pytest.raises(Refused, match="holds no stone of value 6"):
        resolve_choice("d6", state.legal_actions(), state, 1, view)


def _web_game(sc, moves: list, fail_after: int | None = None):  # noqa: ANN001, ANN202
    """Play ``sc`` through a WebTable, the test answering as the page would."""
    session = Session(sc, REGISTRY)
    table = WebTable(session.view, session.human, session.labels, "t", sc.game)
    out: dict = {}

    def game() -> None:
        with session.held():
            try:
                state, played = session.play(table, before_step=table.observe)
            except Abandoned:
                out["left"] = True
                return
            out["done"] = session.store(state, played)

    th = threading.Thread(target=game, daemon=True)
    th.start()
    answered = 0
    while th.is_alive():
        snap = table.snapshot(after=table.version - 1, wait_s=1.0)
        if not snap["your_turn"]:
            time.sleep(0.005)
            continue
        if fail_after is not None and answered == fail_after:
            table.close()
            break
        for choice in moves[answered] if answered < len(moves) else [1]:
            verdict = table.submit(snap["decision"], choice)
            out.setdefault("verdicts", []).append(verdict)
        answered += 1
    th.join(30)
    return out, table


def test_a_game_through_the_table_is_stored_as_the_engine_plays_it(tmp_path: Path) -> None:
    sc = playable("druids/classic.toml", 0, tmp_path / "run")
    # decision 2: a typed move on a taken point (refused), then the first listed move
    out, table = _web_game(sc, [[1], ["a2", 1]])
    refused = [v for v in out["verdicts"] if not v["ok"]]
    assert refused == [{"ok": False, "message": "Place(a=2) is not allowed: point a is taken"}]
    done = out["done"]
    expected, asked = engine_game(sc)
    with Store.open(done.out) as store:
        (scores, winners, length, term, labels), = store.query(
            "SELECT scores_json, winners_json, length, termination, agents_json FROM games")
        cols = store.query("SELECT * FROM druids_games")
    assert (json.loads(scores), json.loads(winners), length, term) == (
        expected.scores, expected.winners, expected.length, expected.termination)
    assert json.loads(labels)[0] == "human"
    assert len(cols) == 1
    record = json.loads(done.record.read_text())
    assert len([s for s in record["steps"] if s["seat"] == 0]) == len(asked)
    assert table.snapshot()["view"]["text"].endswith("the game is over")
    # a second game goes into the same folder as game 1
    out2, _ = _web_game(playable("druids/classic.toml", 0, tmp_path / "run"), [])
    assert out2["done"].index == 1
    with Store.open(tmp_path / "run") as store:
        assert store.query("SELECT game_index FROM games ORDER BY game_index") == [(0,), (1,)]
    # report reads it like a study's run
    from analysis.report import build_report

    assert Path(build_report(tmp_path / "run")).is_file()


def test_a_game_left_before_its_end_stores_nothing(tmp_path: Path) -> None:
    sc = playable("rocks/greedy-vs-random.toml", 0, tmp_path / "left")
    out, table = _web_game(sc, [], fail_after=3)
    assert out.get("left") and "done" not in out
    assert not (tmp_path / "left").exists()
    assert table.submit(1, 1) == {"ok": False, "message": "the game is over"}


def test_a_stale_or_early_move_never_reaches_the_game() -> None:
    table = WebTable(seat_view(REGISTRY, "druids"), 0, ["you", "random"], "t", "druids")
    assert table.submit(1, 1) == {"ok": False, "message": "it is not your turn"}


@pytest.mark.parametrize("sig, code", [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_signal_leaves_the_game_and_stores_nothing(tmp_path: Path, sig: str, code: int) -> None:
    import os
    import re
    import signal
    import subprocess
    import sys
    import urllib.request

    out = tmp_path / "left"
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", "play", str(ROOT / "scenarios" / "druids" / "classic.toml"),
                             "--seat", "1", "--out", str(out)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            # SIGINT as Ctrl-C sends it, even when this suite runs with SIGINT ignored (a
                            # background job of a non-interactive shell), which the child would inherit
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+/", proc.stdout.readline())[0]  # type: ignore[union-attr, index]
        with urllib.request.urlopen(url + "state", timeout=10) as r:
            assert "view" in json.load(r)
        assert (out / ".stonelab.lock").exists()  # the folder is held while the game runs
        proc.send_signal(getattr(signal, sig))
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert "nothing of it was stored" in err and "Traceback" not in err
    assert not out.exists()


def test_the_end_is_said_in_the_games_words() -> None:
    """'ended: eight_megaliths' read as a code: the game's own meaning is said."""
    from sim.druids.rules import DruidsEnd
    from sim.play.session import outcome_words

    meaning = DruidsEnd.meanings()["eight_megaliths"]
    text = outcome_words([1], [5, 8], ["random", "you"], "megaliths", "eight_megaliths", meaning)
    assert text == f"seat 1 (you) wins; scores (megaliths): 5, 8; it ended as {meaning}"
    assert "ended: eight_megaliths" in outcome_words([1], [5, 8], ["a", "b"], "megaliths", "eight_megaliths")
