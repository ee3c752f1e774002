"""What a pass or a stand risks, said before it is played: the play server's answer (the
listed moves' ``risks`` in ``/state``, a typed move's ``risk`` in ``/read``) is the agents' measure
(``sim.sun.agents.measures.pass_risk``, ``stand_risk``, ``bump_chance``) of the position asked,
with the person's skill. Positions come from a rules-only game (no PyBullet)."""

from __future__ import annotations

import json
import threading
import urllib.parse
import urllib.request
from typing import Any, Iterator

import numpy as np
import pytest

from sim.games import REGISTRY
from sim.play.server import start_server
from sim.play.session import seat_view
from sim.play.table import WebTable
from sim.sun.actions import Pass, Stand
from sim.sun.agents.measures import bump_chance, pass_risk, stand_risk
from sim.sun.players.thrower import SKILLS
from sim.sun.rules.state import SunState
from sim.sun.seat import RISK_NAMED


def _position(phase: str, seed: int = 3, least: int = 6) -> SunState:
    """A position of a random rules-only game with casual throwers: the first in ``phase`` on a ring
    of at least ``least`` positions."""
    rng = np.random.default_rng(seed)
    st = SunState.new(2, throwers=[SKILLS["casual"]] * 2)
    while not st.is_terminal():
        if st.current_player() < 0:
            st.apply_action(st.sample_chance(rng))
            continue
        if st.phase == phase and st.ring().n >= least:
            return st
        acts = st.legal_actions()
        st.apply_action(acts[int(rng.integers(len(acts)))])
    raise AssertionError(f"no {phase} position")


@pytest.fixture
def asking() -> Iterator[Any]:
    """A factory: the play server of a table asking the person (seat to act of ``st``) to decide."""
    made: list[tuple[Any, Any, threading.Thread]] = []

    def make(st: SunState) -> str:
        table = WebTable(seat_view(REGISTRY, "sun"), st.seat, ["you", "random"], "the Sun", "sun")
        server, _ = start_server(table, 0)
        t = threading.Thread(target=lambda: _choose(table, st), daemon=True)
        t.start()
        made.append((table, server, t))
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        _get(url + "state?after=0")  # the decision is asked (the long poll answers once it is)
        return url

    yield make
    for table, server, t in made:
        table.close()
        server.shutdown()
        server.server_close()
        t.join(10)


def _choose(table: WebTable, st: SunState) -> None:
    try:
        table.choose(st.seat, st.observation(st.seat), st.legal_actions())
    except Exception:  # noqa: BLE001 - closed at the test's end (Abandoned)
        pass


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.load(r)


def _read(url: str, text: str) -> Any:
    return _get(url + "read?text=" + urllib.parse.quote(text))


def _same_pass(got: dict[str, Any], st: SunState, a: Pass) -> None:
    r = pass_risk(st, a)
    assert got["kind"] == "pass" and got["skill"] == "casual" == r.skill
    assert got["chance"] == pytest.approx(r.chance, abs=1e-4)
    named = [(i, p) for i, p in r.stones if p >= RISK_NAMED]
    assert [s["stone"] for s in got["stones"]] == [i for i, _ in named]
    assert [s["chance"] for s in got["stones"]] == pytest.approx([p for _, p in named], abs=1e-4)
    assert got["touches"] == list(r.touched)
    assert got["flagged"] == (bool(r.touched) or r.chance >= 0.05)
    if r.touched:
        assert got["words"].startswith("Risky pass: this line touches stone #"), got["words"]
    for i in r.touched:
        assert f"stone #{i} ({st.shapes[i]})" in got["words"], got["words"]


def test_the_servers_pass_risk_is_the_agents_measure(asking: Any) -> None:
    st = _position("pass")
    url = asking(st)
    state = _get(url + "state")
    assert state["your_turn"] and state["risks"], state.get("risks")
    for a in st.legal_actions():  # every listed pass
        _same_pass(state["risks"][str(a)], st, a)
    # typed passes all round the table, risky ones among them
    flagged = 0
    for aim in range(0, 360, 20):
        a = Pass(float(aim), 0.25)
        got = _read(url, f"pass {aim} 0.25")
        assert got["read"] == str(a)
        _same_pass(got["risk"], st, a)
        flagged += got["risk"]["flagged"]
    assert 0 < flagged < 18, flagged  # some lines touch a stone, some clear the ring
    # a move of no risk measure
    assert _read(url, "MoveMarker(cw)")["risk"] is None


def test_the_servers_stand_risk_is_the_agents_measure(asking: Any) -> None:
    st = _position("place")
    url = asking(st)
    state = _get(url + "state")
    stands = [a for a in st.legal_actions() if isinstance(a, Stand)]
    assert stands
    for a in stands:
        got = state["risks"][str(a)]
        assert got["kind"] == "stand"
        assert got["chance"] == pytest.approx(bump_chance(st, a), abs=1e-4)
        named = [(i, p) for i, p in stand_risk(st, a) if p >= RISK_NAMED]
        assert [s["stone"] for s in got["stones"]] == [i for i, _ in named]
        assert [s["chance"] for s in got["stones"]] == pytest.approx([p for _, p in named], abs=1e-4)
    # a stand typed right beside a stone: flagged, naming that stone
    p = st.ring().pos[0]
    near = Stand(stands[0].shape, (np.degrees(p.angle) + 9.0) % 360.0)
    got = _read(url, f"stand {near.shape} {near.angle:.4f}")["risk"]
    assert got["chance"] == pytest.approx(bump_chance(st, Stand(near.shape, round(near.angle, 4))), abs=1e-4)
    assert got["flagged"] and f"stone #{got['stones'][0]['stone']}" in got["words"], got


def test_the_pass_risk_is_the_chance_of_a_touch_under_the_skills_noise() -> None:
    """``pass_risk``'s grid against the same model drawn at random: 20,000 aim turns and push
    shifts (normal, the casual preset's sigmas), the line's clearance at both crossings from
    ``Ring.clearances``: the share that touches agrees within 0.02 (sampling error about 0.004)."""
    import math

    from sim.sun.agents.measures import GRAVITY

    st = _position("pass")
    ring, g = st.ring(), st.geom
    th = st.throwers[st.seat]
    rng = np.random.default_rng(11)
    checked = 0
    for aim in range(0, 360, 30):
        a = Pass(float(aim), 0.3)
        drift = g.ball.drift_per_push_s(g.table.base_radius + a.release, g.table.ring_radius, GRAVITY)
        turn = rng.normal(0.0, math.radians(th.sigma_aim_deg), 20_000)
        shift = rng.normal(0.0, th.sigma_push_mps * drift / g.table.ring_radius, 20_000)
        x = math.radians(a.aim) + turn
        c = ring.clearances(np.concatenate([x + shift, x + math.pi - shift]), g)
        share = float(np.mean((c[:20_000] < 0) | (c[20_000:] < 0)))
        assert pass_risk(st, a).chance == pytest.approx(share, abs=0.02), aim
        checked += 0.02 < share < 0.98
    assert checked >= 2  # some aims are neither sure nor clear: the comparison is not only 0 = 0
