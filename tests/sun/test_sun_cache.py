"""The rules' one cache (sim/sun/rules/cache.py) answers as if there were none, at every step of random games.

A state keeps what it derives from its position (the ring, the bodies, the candidate list and what
their checks share) in one :class:`~sim.sun.rules.cache.SunCache`, emptied by its one invalidation after
every change of the position. If a change forgot it, a cached answer would describe the position
as it was: here, before every step of random games over the rule variants, the live state's answers
are compared with those of the same position on an empty cache (a cache-free recomputation).
"""

from __future__ import annotations

import numpy as np
from sun_variants import variant_state

from sim.core.play import play_random
from sim.sun.rules.cache import SunCache
from sim.sun.game import GAME
from sim.sun.geometry.ring import Ring
from sim.sun.rules.state import SunState


def _ring_fields(ring: Ring) -> tuple[object, ...]:
    return (ring.pos, ring.angles, ring.n, ring.start, ring.end, ring.width, ring.under, ring.keys, ring.index,
            ring.lintels)


def _answers(s: SunState) -> tuple[object, ...]:
    """What the agents and the turns ask of a state: the ring, the bodies, the candidates, the exact
    stand intervals of every shape the mover may place, and the mover's pass arcs."""
    ring = s.ring()
    intervals = [s.stand_intervals(shape) for shape in s.available_shapes()] if s.phase == "place" else []
    return (_ring_fields(ring), s.bodies(), s.legal_actions(), intervals,
            s.pass_arcs() if not ring.empty and not s.is_terminal() else [])


def _uncached(s: SunState) -> SunState:
    """The same position and configuration on an empty cache (no memo, no earlier ring to reuse)."""
    c = s.clone()
    c.cache = SunCache()
    return c


def test_cached_answers_equal_a_cache_free_recomputation_at_every_step() -> None:
    checked = warm = 0

    def visit(s: SunState, _step: int) -> None:
        nonlocal checked, warm
        warm += s.cache.ring is not None  # an answer kept from before the step (the cache at work)
        assert _answers(s) == _answers(_uncached(s)), s.to_notation()
        checked += 1

    for seed in range(1200, 1212):
        try:
            play_random(GAME, None, np.random.default_rng(seed), state=variant_state(seed), leads=False,
                        before_step=visit)
        except ValueError as e:  # orbit mode can leave a seat without a legal pass (a known gap in the rules)
            if "no legal action" not in str(e):
                raise
    assert checked >= 500
    assert warm >= checked // 4  # the comparison ran on warm caches, not only on freshly emptied ones


def test_invalidate_empties_every_answer_of_the_position() -> None:
    s = variant_state(0)  # open field: a placement phase with candidates
    s.legal_actions()
    s.bodies()
    assert s.cache.ring is not None and s.cache.legal is not None and s.cache.bodies is not None
    s.cache.invalidate()
    assert (s.cache.ring, s.cache.bodies, s.cache.legal, s.cache.place_facts, s.cache.stand_facts,
            s.cache.pass_arcs) == (None, None, None, None, None, None)
