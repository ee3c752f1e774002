"""The sun game bound to the real PyBullet table: spec, agents, whole seeded games (slow)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.core.agents import make_agent
from sim.core.game import CHANCE
from sim.core.play import play
from sim.core.seeding import game_streams
from sim.sun.game import GAME
from sim.sun.sections import thrower_of
from sim.sun.players.thrower import SKILLS


def _play(agent: str, seed: int = 5, players: int = 2, upto: int | None = None):
    cfg = GAME.config(players)
    st = game_streams(seed, 0, players)
    agents = [make_agent(GAME, agent, {}, seat=i, rng=st.seats[i], config=cfg) for i in range(players)]
    s = play(GAME, cfg, agents, st.chance, steps=upto).state  # ``upto`` steps, chance included
    return s, st, agents


def test_spec_and_seat_skill():
    assert GAME.spec.name == "sun" and GAME.spec.has_chance
    assert {"random", "careful", "planner"} <= set(GAME.agents)
    assert thrower_of({"skill": "expert", "sigma_aim_deg": -1.0}) == SKILLS["expert"]  # -1: the level's own
    assert thrower_of({"skill": "expert", "sigma_aim_deg": 3.0}).sigma_aim_deg == 3.0
    s = GAME.new_initial_state(GAME.config(3))
    assert s.current_player() == 0 and len(s.markers) == 3


def test_notation_of_a_fresh_game_round_trips():
    s = GAME.new_initial_state(GAME.config(2, mode="orbit", field="random"))
    assert GAME.from_notation(s.to_notation()).to_notation() == s.to_notation()


@pytest.mark.slow
def test_whole_seeded_game_is_identical_when_run_twice():
    a, _, _ = _play("careful")
    b, _, _ = _play("careful")
    assert a.is_terminal()
    assert a.history() == b.history()
    assert a.to_notation() == b.to_notation()
    assert [r["causes"] for r in a.passes] == [r["causes"] for r in b.passes]
    d = GAME.details(a)
    assert d.columns["passes"] == len(d.rows["passes"]) > 0


@pytest.mark.slow
def test_continuing_from_the_notation_is_exact():
    s, st, agents = _play("random", seed=11, upto=60)
    twin = GAME.from_notation(s.to_notation())
    rng_a = np.random.default_rng(1)
    rng_b = np.random.default_rng(1)
    for _ in range(30):
        if s.is_terminal():
            break
        if s.current_player() == CHANCE:
            x = s.sample_chance(rng_a)
            assert twin.sample_chance(rng_b) == x
        else:
            legal = s.legal_actions()
            assert twin.legal_actions() == legal
            x = legal[0]
        s.apply_action(x)
        twin.apply_action(x)
        assert twin.to_notation() == s.to_notation()


@pytest.mark.slow
def test_planner_runs_a_turn():
    s, _, _ = _play("random", seed=2, upto=25)
    if s.is_terminal():
        pytest.skip("game ended early")
    cfg = GAME.config(2)
    p = s.current_player()
    while p == CHANCE:
        s.apply_action(s.sample_chance(np.random.default_rng(0)))
        p = s.current_player()
    agent = make_agent(GAME, "planner", {"candidates": 2, "samples": 1}, seat=p, rng=np.random.default_rng(0), config=cfg)
    before = s.to_notation()
    a = agent.act(s.observation(p), s.legal_actions(p))
    assert s.to_notation() == before  # planning on copies leaves the game alone
    s.apply_action(a)


# --- scenarios that read a layout file ([layout]) -------------------------------------------------------
def _layout_config(tmp_path, start: str, extra: str = ""):
    from pathlib import Path

    from sim.core.scenario import load_scenario
    from sim.games import REGISTRY

    root = Path(__file__).resolve().parents[2]
    f = tmp_path / "s.toml"
    f.write_text(f'game = "sun"\ngames = 1\n[layout]\nfile = "{root}/scenarios/sun/layouts/gates.toml"\n'
                 f'start = "{start}"\n{extra}[[seats]]\nagent = "careful"\n[[seats]]\nagent = "careful"\n')
    return load_scenario(f, REGISTRY).config()


def test_a_game_can_start_from_a_layouts_stones(tmp_path) -> None:
    # [layout] start = "layout": the layout's stones, stacks and gates stand before the first move,
    # with the same ring as the layout file's (the one ring module), and the field holds the rest.
    from sim.sun.table.layout import layout_ring, load_layout
    from sim.sun.position import GATE, STACK, STAND
    from sim.sun.geometry.ring import Geometry

    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    lay = load_layout(root / "scenarios" / "sun" / "layouts" / "gates.toml")
    s = GAME.new_initial_state(_layout_config(tmp_path, "layout"))
    on_table = [i for i, r in enumerate(s.role) if r in (STAND, STACK, GATE)]
    assert len(on_table) == len(lay.stones) + len(lay.gates)
    assert len(s.field_stones()) == 32 - len(on_table)
    geom = Geometry(lay.table, lay.ball, dict(lay.shapes))
    want = layout_ring(lay)
    got = s.ring()
    assert got.n == want.n
    assert sorted(got.passable(i, geom) for i in range(got.n)) == sorted(want.passable(i, geom) for i in range(want.n))
    assert sorted(u is not None for u in got.under) == sorted(u is not None for u in want.under)
    # the empty start is the rule text's, and the default
    e = GAME.new_initial_state(_layout_config(tmp_path, "empty"))
    assert len(e.field_stones()) == 32
    # notation round trip keeps the position
    assert GAME.from_notation(s.to_notation()).to_notation() == s.to_notation()


def test_a_layout_files_physics_are_the_scenarios_defaults(tmp_path) -> None:
    from sim.sun.sections import layout_of

    (tmp_path / "lay.toml").write_text("[table]\npass_clearance = 0.006\n[ball]\ndiameter = 0.03\n")
    cfg = _layout_config(tmp_path, "empty").sections
    sections = {**cfg, "layout": {"file": str(tmp_path / "lay.toml"), "start": "empty"}}
    lay = layout_of(sections)
    assert lay.table.pass_clearance == 0.006 and lay.ball.diameter == 0.03
    # the scenario's own (non-default) value wins over the file's
    sections["table"] = {**cfg["table"], "pass_clearance": 0.008}
    assert layout_of(sections).table.pass_clearance == 0.008


def test_a_bad_layout_file_is_refused_at_load(tmp_path) -> None:
    from sim.core.errors import ScenarioError

    (tmp_path / "bad.toml").write_text('[[stones]]\nshape = "menhir"\nangle = 0\n')
    from sim.core.scenario import load_scenario
    from sim.games import REGISTRY

    f = tmp_path / "s.toml"
    f.write_text(f'game = "sun"\n[layout]\nfile = "{tmp_path}/bad.toml"\n[[seats]]\nagent = "careful"\n'
                 '[[seats]]\nagent = "careful"\n')
    with pytest.raises(ScenarioError) as info:
        load_scenario(f, REGISTRY)
    assert info.value.key == "layout.file" and "menhir" in str(info.value)


def test_a_game_from_a_layout_plays_to_its_end_on_the_table(tmp_path) -> None:
    cfg = _layout_config(tmp_path, "layout")
    st = game_streams(3, 0, 2)
    agents = [make_agent(GAME, "careful", {}, seat=i, rng=st.seats[i], config=cfg) for i in range(2)]
    s = play(GAME, cfg, agents, st.chance).state
    assert s.over in ("field_empty", "stalemate") and s.turn >= 5
