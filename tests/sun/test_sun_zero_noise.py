"""Legal placements stand at their intended pose (slow: PyBullet games).

A rule layer that calls a placement legal which cannot stand at its nominal pose misleads every
study: the stone falls whatever the hand. Here seeded games of the careful and aggressive agents
are played on the PyBullet table with shaky hands (``child``: 3.5 mm and 8 deg of placement noise,
so stacks end up shifted and stones turned, the positions the rules used to misread); every
placement an agent chooses is also tried on a copy of the state at zero noise.

Measured on this set (10 games): with the rules' old view of the ring (each position at its
bottom stone's angle, the widest of its shapes) 15 of 396 placements fell at zero noise (3.8 %:
stands beside shifted stack tops, stacks beside them, a gate on turned supports); with the
stones' real footprints (``sim.sun.geometry.ring.footprint``) none of 369. Over a larger set (100 games,
hands steady, casual and child, careful and aggressive seats) the figures were 77 of 3,641
(2.1 %) and 0 of 3,492 (:func:`zero_noise_falls` over seeds 1-20 with PAIRS and ``steady``, and
seeds 1-10 with PAIRS and careful against careful, ``casual`` and ``child``). A fall at zero
noise can still happen where the physics does what no footprint shows (a stone knocked by the
new one's settling, supports that give way under a lintel), hence a bound of 1 % rather than none.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from sim.core.agents import make_agent
from sim.core.game import CHANCE
from sim.core.seeding import game_streams
from sim.sun.game import GAME
from sim.sun.players.thrower import PlaceNoise

SEEDS = range(1, 6)
PAIRS = (("careful", "aggressive"), ("aggressive", "careful"))
MAX_FALL_SHARE = 0.01


def zero_noise_falls(seeds: range, pairs: tuple[tuple[str, str], ...], skill: str) -> tuple[int, int, list[str]]:
    """(placements chosen, those that fall at zero noise, a line on each fall) over the games of
    ``seeds`` for each seat pair, every seat with hand ``skill``."""
    base = GAME.config(2)
    cfg = replace(base, seats=tuple({**x, "skill": skill} for x in base.seats))
    made = fell = 0
    notes: list[str] = []
    for names in pairs:
        for seed in seeds:
            st = game_streams(seed, 0, 2)
            agents = [make_agent(GAME, n, {}, seat=i, rng=st.seats[i], config=cfg) for i, n in enumerate(names)]
            s = GAME.new_initial_state(cfg)
            while not s.is_terminal():
                p = s.current_player()
                if p == CHANCE:
                    s.apply_action(s.sample_chance(st.chance))
                    continue
                a = agents[p].act(s.observation(p), s.legal_actions())
                if s.phase == "place":
                    twin = s.clone()
                    twin.apply_action(a)
                    twin.apply_action(PlaceNoise(0.0, 0.0, 0.0))
                    made += 1
                    if twin.placements[-1]["cause"] == "fell":
                        fell += 1
                        notes.append(f"{names} seed {seed} turn {s.turn}: {a}")
                s.apply_action(a)
    return made, fell, notes


@pytest.mark.slow
def test_placements_the_agents_choose_stand_at_zero_noise() -> None:
    made, fell, notes = zero_noise_falls(SEEDS, PAIRS, "child")
    assert made > 300
    assert fell <= MAX_FALL_SHARE * made, notes
