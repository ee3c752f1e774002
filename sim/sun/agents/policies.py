"""Agents for Stonehenge and the Sun: ``random``, ``careful`` and ``planner``.

Each plays with its seat's skill (the thrower's noise is chance, drawn by the game from the seat's
``skill``); the planner also uses that skill when it imagines its own passes.

- ``random``: any legal placement and marker move, uniformly; passes aim at the middle of the mark
  area from a hand span out (uniformly inside it when the area is wider than a half turn, where
  the middle's line would leave through the stones opposite).
- ``careful`` (a documented heuristic, deterministic):
  1. *Pass*: among aims across the mark area (41 per arc), the one whose line has the most clearance
     at both ring crossings (the mark area and the far side), released a hand span out.
  2. *Marker*: the move after which that best pass clearance is largest.
  3. *Placement*: every legal placement gets a quick score (the best pass clearance it would leave
     through a gap touching the new stone, far side included; gates score the current mark area's
     clearance plus a bonus per opponent mark area they block); the best ``shortlist`` are then
     played out nominally (no noise, on a geometric table): placement, best marker move, best
     pass. The score is that pass clearance, plus a small bonus for each passable gap left free
     for later turns; stacks on a position of the same width are preferred to unstable ones (a
     wider stone on a narrower one loses a little).
- ``planner``: takes careful's best ``candidates`` placements and, for each, simulates ``samples``
  noisy turns on a copy of the table (its own skill's placement and pass noise, careful's marker
  and aim); it plays the turn with the fewest expected penalties (ties: careful's order). At the
  pass it likewise tries careful's best ``candidates`` aims.

What they measure on the ring (pass clearances, mark areas, previews of a placement, the bump
chance, the room bonus) is in :mod:`sim.sun.agents.measures`. Within one placement decision every value
that depends only on the position (not on the candidate) is computed once
(:class:`sim.sun.agents.base._Turn`). After a placement that failed (the seat places again in the
same turn), careful, aggressive and planner choose among the candidates away from that spot
(:mod:`sim.sun.agents.memory`), as a person would, instead of making the same choice on the same position.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from sim.core.agents import RANDOM
from sim.core.game import CHANCE, AgentSpec, Game, GameConfig
from sim.core.options import Option
from sim.sun.actions import Gate, Pass, Stack, Stand
from sim.sun.agents.base import OPP_CAP, OPP_FLOOR, AgentBase
from sim.sun.agents.base import opponents_clearance as _opponents_clearance
from sim.sun.physics import ScriptedTable
from sim.sun.players.thrower import PlaceNoise
from sim.sun.geometry.ring import Pos, gap_width
from sim.sun.rules.state import SunState
from sim.sun.agents.measures import (
                                     Preview,
                                     QuickRing,
                                     area_clear,
                                     best_aim,
                                     free_gaps,
                                     free_gaps_of,
                                     narrowing_stands,
                                     prefetch_areas,
                                     )
from sim.sun.geometry.specs import TAU

FUTURE_BONUS = 0.0005  # m of clearance per free passable gap: a tie-breaker
BLOCK_BONUS = 0.003  # m per opponent mark area a gate makes impassable
UNSTABLE_STACK = 0.002  # m lost for a wider stone on a narrower one
#: A stone set down where the hand's noise would make it touch a neighbour risks knocking that
#: neighbour over: each agent weighs the chance of touching (the placement's along-the-ring noise,
#: the seat's ``sigma_place_m``, against the clear gap to each neighbour) at this many metres of
#: pass clearance, so that a steadier hand may place closer (docs/rules-sun.md, "Agents").
BUMP_COST = 0.02
#: The aggressive agent: own pass clearance beyond OWN_CAP (m; 15 mm is a 65 mm gap for a 35 mm ball:
#: with 6 mm it gave up so much of its own safety that it lost 74 of 100 games to careful, see
#: docs/rules-sun.md) is worth nothing more to it, and an
#: opponent's clearance counts between -OPP_FLOOR and OPP_CAP (m, sim.sun.agents.base); a gate that
#: closes an opponent's area is worth GATE_SPITE (m) per area, times the ``spite`` option.
OWN_CAP = 0.015
GATE_SPITE = 0.02



class RandomSunAgent(AgentBase):
    """Uniform legal placement and marker move; passes aim at the middle of the mark area."""

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        """See the module docstring."""
        if not legal_actions:
            raise ValueError(f"seat {self.seat}: no legal action")
        st = self._state(observation)
        if st.phase == "pass":
            arcs = st.pass_arcs()
            s, e = arcs[0]
            span = min(e - s, TAU)
            # the middle of a narrow area; in an area wider than a half turn the middle's line would
            # leave through the stones opposite, so a uniform aim in the area instead
            f = 0.5 if span < math.pi else float(self.rng.random())
            return Pass(math.degrees((s + f * span) % TAU) % 360.0, st.geom.min_release)
        return legal_actions[int(self.rng.integers(len(legal_actions)))]


class CarefulAgent(AgentBase):
    """The careful heuristic of the module docstring.

    Args:
        shortlist: placements played out nominally after the quick score.
    """

    def __init__(self, *, shortlist: int = 6, **kw: Any) -> None:
        super().__init__(**kw)
        self.shortlist = shortlist

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        """See the module docstring."""
        if not legal_actions:
            raise ValueError(f"seat {self.seat}: no legal action")
        st = self._state(observation)
        if st.phase == "pass":
            _, p, _ = best_aim(st)
            return p if p is not None else legal_actions[0]
        if st.phase == "marker":
            return self.best_marker(st, legal_actions)[1]
        self.tries.start(st)
        a = self.rank_placements(st, legal_actions)[0][1]
        self.tries.note(a)
        return a

    def best_marker(self, st: SunState, moves: Sequence[Any]) -> tuple[float, Any]:
        """(score, move) of the best marker move."""
        best: tuple[float, Any] = (-math.inf, moves[0])
        if st.rules.mode == "standard" and st.phase == "marker":
            ring = st.ring()
            k = ring.index[st.anchor_stone()]  # type: ignore[index]
            marks = []
            for m in moves:
                gi = k if m.side == "ccw" else (k - 1) % ring.n
                mk = [list(ms) for ms in st.markers]
                mk[st.seat][m.marker] = ring.middle(gi)
                marks.append(mk)
            # every move's mark area in one vectorised call (the same numbers as one call each)
            prefetch_areas(ring, st.geom, [(mk[st.seat][0], 21) for mk in marks])
            for m, mk in zip(moves, marks):
                sc = area_clear(ring, st.geom, mk[st.seat][0], 21) + \
                    FUTURE_BONUS * free_gaps_of(ring, st.geom, mk, st.seat)
                if sc > best[0]:
                    best = (sc, m)
            return best
        for m in moves:
            c = st.clone()
            c.apply_action(m)
            sc = best_aim(c, 21)[0] + FUTURE_BONUS * free_gaps(c)
            if sc > best[0]:
                best = (sc, m)
        return best

    def quick_score(self, st: SunState, a: Any) -> float:
        """A fast geometric estimate of how good placement ``a`` is (m of pass clearance)."""
        ring = st.ring()
        g = st.geom
        if ring.empty or st.is_free_turn():
            return self._aim9(st)
        if isinstance(a, Gate):
            ka = ring.index.get(a.a)
            blocked = sum(1 for _, _, _, gi in self._opp_gaps(st) if gi is not None and (gi == ka) and ring.passable(gi, g))
            return self._aim9(st) + BLOCK_BONUS * blocked - 0.001
        if isinstance(a, Stand):
            i, new, (wl, wr) = self._sides(st, ring, a)
            left, right = ring.pos[i], ring.pos[(i + 1) % ring.n]
            # the widths computed once per stand (the bump chance reads them too); a one-stone
            # ring's stand has its neighbour on both sides (never the same id as the new stone)
            sides: list[tuple[Pos, Pos, float | None]] = [(left, new, wl), (new, right, wr)]
        else:
            k = ring.index[a.on]
            p = ring.pos[k]
            new = st.stacked_pos(p, a.shape)  # the stack's footprint, as the rules see it
            sides = [(ring.pos[k - 1], new, None), (new, ring.pos[(k + 1) % ring.n], None)]
        best = -math.inf
        for p, q, w0 in sides:
            w = w0 if w0 is not None else (gap_width(p, q) if p.id != q.id else math.inf)
            if w < g.pass_width:
                continue
            sep = (q.angle - p.angle) % TAU
            mid = p.angle + 0.5 * sep
            best = max(best, min(0.5 * w - g.ball.radius if math.isfinite(w) else 1.0,
                                 ring.clearance_at(mid + math.pi, g)))
        if isinstance(a, Stack):
            base = g.shapes[st.shapes[a.on]]
            if g.shapes[a.shape].width > base.width + 1e-9:
                best -= UNSTABLE_STACK
        return best - BUMP_COST * self._bump(st, a) + self._room(st, a)

    def quick_scores(self, st: SunState, cands: Sequence[Any]) -> list[float]:
        """:meth:`quick_score` of each candidate, the very same numbers (tests/sun/test_sun_agents.py
        checks it), with the ring read once as plain floats (:class:`QuickRing`): the ranking's hot
        loop, a few thousand candidates a game."""
        return self._quick_all(st, cands)[0]

    def _quick_all(self, st: SunState, cands: Sequence[Any]
                   ) -> tuple[list[float], list[tuple[int, float, float, float] | None]]:
        """(careful's quick score, and for a stand on a non-empty ring its :meth:`QuickRing.stand`
        sides, else None) per candidate."""
        ring = st.ring()
        if ring.empty:
            return [self._aim9(st)] * len(cands), [None] * len(cands)
        g = st.geom
        qr = QuickRing(st)
        first = st.is_free_turn()
        shapes = g.shapes
        room = {sh: self._room(st, Stand(sh, 0.0)) for sh in shapes}  # by shape: its width only
        scores: list[float] = []
        sides: list[tuple[int, float, float, float] | None] = []
        t = self._memo(st)
        memo = t.bump if t is not None else None
        for a in cands:
            is_stand = isinstance(a, Stand)
            sd, bump, best = qr.stand_best(a.angle, shapes[a.shape]) if is_stand else (None, 0.0, 0.0)
            sides.append(sd)
            if first or not (is_stand or isinstance(a, Stack)):
                # gates and first turns: nothing per candidate to save (careful's own score, also
                # for a subclass that adds to it)
                scores.append(CarefulAgent.quick_score(self, st, a))
                continue
            if sd is not None:
                if memo is not None:  # the shortlist's exact scores read it again
                    memo[id(a)] = (a, bump)
            else:
                best = qr.best_side(qr.stack_pairs(ring.index[a.on], shapes[a.shape]))
                bump = 0.0
                if shapes[a.shape].width > shapes[st.shapes[a.on]].width + 1e-9:
                    best -= UNSTABLE_STACK
            scores.append(best - BUMP_COST * bump + room[a.shape])
        return scores, sides

    def preview_score(self, st: SunState, a: Any, pv: Preview) -> float:
        """Careful's score of placement ``a`` followed by ``pv``'s marker move (m of pass clearance)."""
        g = st.geom
        sc = area_clear(pv.ring, g, pv.markers[st.seat][0], 21) + \
            FUTURE_BONUS * free_gaps_of(pv.ring, g, pv.markers, st.seat)
        if isinstance(a, Stack) and g.shapes[a.shape].width > g.shapes[st.shapes[a.on]].width + 1e-9:
            sc -= UNSTABLE_STACK
        if isinstance(a, Gate):
            sc += BLOCK_BONUS * self._blocked_pv(st, pv) - 0.001
        return sc - BUMP_COST * self._bump(st, a) + self._room(st, a)

    def _blocked_pv(self, st: SunState, pv: Preview) -> int:
        # opponents' areas passable before and not after (a gate over them)
        ring0 = st.ring()
        n = 0
        for s_, k, _, g0 in self._opp_gaps(st):
            if k >= len(pv.markers[s_]):
                continue
            if g0 is not None and ring0.passable(g0, st.geom):
                g1 = pv.ring.gap_of_angle(pv.markers[s_][k])
                if g1 is None or not pv.ring.passable(g1, st.geom):
                    n += 1
        return n

    def exact_score(self, st: SunState, a: Any) -> tuple[float, Any, Any]:
        """Play placement ``a`` out nominally: (score, best marker move or None, None).

        Standard mode scores each legal marker move on a preview of the ring (no copy of the
        state); orbit mode plays the turn out on a copy with the scripted table."""
        pvs = self._previews(st, a)
        if pvs is not None:
            # the previews share one ring: their mark areas in one vectorised call (unless the
            # decision's _prefetch did it already)
            if pvs and self._memo(st) is None:
                prefetch_areas(pvs[0].ring, st.geom, [(pv.markers[st.seat][0], 21) for pv in pvs])
            best: tuple[float, Any, Any] = (-math.inf, None, None)
            for pv in pvs:
                sc = self.preview_score(st, a, pv)
                if sc > best[0]:
                    best = (sc, pv.move, None)
            return best
        c = st.clone()
        c.table = ScriptedTable(st.geom)
        try:
            c.apply_action(a)
            c.apply_action(PlaceNoise())
        except ValueError:
            return -math.inf, None, None
        move = None
        if c.phase == "marker":
            legal = c.legal_actions()
            if not legal:
                return -math.inf, None, None
            _, move = self.best_marker(c, legal)
            c.apply_action(move)
        if c.phase != "pass":
            return -math.inf, None, None
        sc, p, _ = best_aim(c, 21)
        sc += FUTURE_BONUS * free_gaps(c)
        if isinstance(a, Stack):
            if st.geom.shapes[a.shape].width > st.geom.shapes[st.shapes[a.on]].width + 1e-9:
                sc -= UNSTABLE_STACK
        if isinstance(a, Gate):
            sc += BLOCK_BONUS * self._blocked(st, c) - 0.001
        sc += self._room(st, a) - BUMP_COST * self._bump(st, a)
        return sc, move, p

    def _blocked(self, before: SunState, after: SunState) -> int:
        n = 0
        for s_ in range(before.num_players):
            if s_ == before.seat:
                continue
            for m in before.markers[s_]:
                g0 = before.ring().gap_of_angle(m)
                g1 = after.ring().gap_of_angle(m)
                if g0 is not None and before.ring().passable(g0, before.geom) and (
                        g1 is None or not after.ring().passable(g1, after.geom)):
                    n += 1
        return n

    def rank_placements(self, st: SunState, legal: Sequence[Any]) -> list[tuple[float, Any]]:
        """Placements best first: quick score, then the shortlist played out nominally (away from
        this turn's failed placements, :meth:`_untried`)."""
        legal = self._untried(st, legal)
        with self._deciding(st):
            quick = sorted(((sc, k) for k, sc in enumerate(self.quick_scores(st, legal))), key=lambda t: (-t[0], t[1]))
            short = [legal[k] for _, k in quick[: self.shortlist]]
            self._prefetch(st, short, opponents=False)
            exact = [(self.exact_score(st, a)[0], k, a) for k, a in enumerate(short)]
        exact.sort(key=lambda t: (-t[0], t[1]))
        return [(sc, a) for sc, _, a in exact]


class AggressiveAgent(CarefulAgent):
    """Plays to make the opponents' passes harder while keeping its own pass safe.

    It scores a placement like ``careful`` but caps its own pass clearance at :data:`OWN_CAP`
    (a safe pass is safe enough) and adds ``spite`` times the loss of clearance it inflicts on the
    opponents' mark areas: standing a stone inside an opponent's area to narrow it, stacking beside
    it, laying a gate over it (which forces the opponent's marker to move, as in the rule text's
    example). Its own pass and marker moves are careful's.

    Args:
        shortlist: placements played out nominally after the quick score.
        spite: weight of the opponents' lost clearance against its own (1 = a millimetre taken from
            an opponent is worth a millimetre of its own, up to the caps).
    """

    def __init__(self, *, shortlist: int = 8, spite: float = 1.0, **kw: Any) -> None:
        super().__init__(shortlist=shortlist, **kw)
        self.spite = spite

    def quick_score(self, st: SunState, a: Any) -> float:
        """Careful's quick score (capped) plus the clearance it takes from the opponents, estimated
        from the two gaps a stand leaves inside an opponent's area (m)."""
        own = super().quick_score(st, a)
        if own == -math.inf:
            return own
        own = min(own, OWN_CAP)
        ring = st.ring()
        if ring.empty or not isinstance(a, (Stand, Gate)):
            return own
        if isinstance(a, Gate):
            return own + self.spite * GATE_SPITE * self._gate_hits(st, a)
        i, new, (wl, wr) = self._sides(st, ring, a)
        return own + self.spite * self._narrowed(st, i, new.angle, wl, wr)

    def _narrowed(self, st: SunState, i: int, ang: float, wl: float, wr: float) -> float:
        """Clearance (m, clipped) taken from the opponents' areas in gap ``i`` by a stand at
        ``ang`` (rad) that leaves clear widths ``wl`` and ``wr`` (m) beside it."""
        ring, r = st.ring(), st.geom.ball.radius
        left = ring.angles[i]
        gain = 0.0
        for _, _, m, gi in self._opp_gaps(st):
            if gi != i:
                continue
            before = min(OPP_CAP, max(-OPP_FLOOR, 0.5 * ring.width[i] - r))
            # the part of the area on the marker's side of the new stone
            w = wl if (m - left) % TAU < (ang - left) % TAU else wr
            after = min(OPP_CAP, max(-OPP_FLOOR, 0.5 * w - r))
            gain += before - after
        return gain

    def quick_scores(self, st: SunState, cands: Sequence[Any]) -> list[float]:
        """:meth:`quick_score` of each candidate, the very same numbers (see careful's)."""
        own_all, sides = self._quick_all(st, cands)
        empty = st.ring().empty
        # the gaps holding an opponent's marker: a stand elsewhere narrows nothing (0.0, as
        # _narrowed's sum over no marker)
        opp = set() if empty else {gi for _, _, _, gi in self._opp_gaps(st)}
        out: list[float] = []
        for a, own, sd in zip(cands, own_all, sides):
            if own == -math.inf:
                out.append(own)
            elif sd is not None:  # a stand
                out.append(min(own, OWN_CAP) + self.spite * (self._narrowed(st, *sd) if sd[0] in opp else 0.0))
            elif isinstance(a, Gate) and not empty:
                out.append(min(own, OWN_CAP) + self.spite * GATE_SPITE * self._gate_hits(st, a))
            else:
                out.append(min(own, OWN_CAP))
        return out

    def narrowing_stands(self, st: SunState) -> list[Stand]:
        """:func:`sim.sun.agents.measures.narrowing_stands`: legal stands that leave an opponent's mark
        area just passable or just impassable."""
        return narrowing_stands(st)

    def rank_placements(self, st: SunState, legal: Sequence[Any]) -> list[tuple[float, Any]]:
        """Careful's ranking over the legal candidates plus :meth:`narrowing_stands`, the latter
        always played out nominally."""
        with self._deciding(st):
            legal_set = set(legal)
            extra = [a for a in self.narrowing_stands(st) if a not in legal_set]
            if self.tries.failed(st):  # away from this turn's failed spots, the extras included
                left = set(map(id, self._untried(st, list(legal) + extra)))
                legal, extra = [a for a in legal if id(a) in left], [a for a in extra if id(a) in left]
            allc = list(legal) + extra
            quick = sorted(((sc, k) for k, sc in enumerate(self.quick_scores(st, allc))), key=lambda t: (-t[0], t[1]))
            keep = [k for _, k in quick[: self.shortlist]]
            kept = set(keep)
            keep += [len(legal) + j for j in range(len(extra)) if len(legal) + j not in kept]
            self._prefetch(st, [allc[k] for k in keep], opponents=True)
            exact = [(self.exact_score(st, allc[k])[0], k, allc[k]) for k in keep]
        exact.sort(key=lambda t: (-t[0], t[1]))
        return [(sc, a) for sc, _, a in exact]

    def _gate_hits(self, st: SunState, a: Gate) -> int:
        key_gap = st.ring().index.get(a.a)
        if key_gap is None:
            return 0
        return sum(1 for _, _, _, gi in self._opp_gaps(st) if gi == key_gap)

    def exact_score(self, st: SunState, a: Any) -> tuple[float, Any, Any]:
        """Play ``a`` out nominally: own best pass clearance (capped), plus ``spite`` times the
        opponents' lost clearance and the areas a gate closes; the best marker move by that score."""
        pvs = self._previews(st, a)
        if pvs is None:  # orbit mode: careful's play-out on a copy, then the opponents' loss
            sc, move, p = super().exact_score(st, a)
            if sc == -math.inf:
                return sc, move, p
            c = st.clone()
            c.table = ScriptedTable(st.geom)
            c.apply_action(a)
            c.apply_action(PlaceNoise())
            if c.phase == "marker" and move is not None:
                c.apply_action(move)
            lost = self._opp_clear(st, st.seat) - _opponents_clearance(c, st.seat)
            own = min(sc, OWN_CAP)
            if isinstance(a, Gate):
                own += self.spite * GATE_SPITE * self._blocked(st, c)
            return own + self.spite * lost, move, p
        before = self._opp_clear(st, st.seat)
        # the previews share one ring: every mark area scored below in one vectorised call (unless
        # the decision's _prefetch did it already)
        if pvs and self._memo(st) is None:
            prefetch_areas(pvs[0].ring, st.geom, [(pv.markers[st.seat][0], 21) for pv in pvs]
                            + [(pv.markers[o][0], 9) for pv in pvs for o in range(st.num_players) if o != st.seat])
        best: tuple[float, Any, Any] = (-math.inf, None, None)
        for pv in pvs:
            own = min(self.preview_score(st, a, pv), OWN_CAP)
            after = sum(min(OPP_CAP, max(-OPP_FLOOR, area_clear(pv.ring, st.geom, pv.markers[o][0], 9)))
                        for o in range(st.num_players) if o != st.seat)
            sc = own + self.spite * (before - after)
            if isinstance(a, Gate):
                sc += self.spite * GATE_SPITE * self._blocked_pv(st, pv)
            if sc > best[0]:
                best = (sc, pv.move, None)
        return best


class PlannerAgent(CarefulAgent):
    """Careful's candidates, each tried ``samples`` times with noise on a copy of the table.

    Args:
        candidates: turns (or aims) simulated per decision.
        samples: noisy simulations per candidate.
    """

    def __init__(self, *, candidates: int = 4, samples: int = 3, **kw: Any) -> None:
        super().__init__(**kw)
        self.candidates = candidates
        self.samples = samples
        self._aggressive: AggressiveAgent | None = None

    def _sim_state(self, st: SunState) -> SunState:
        c = st.clone()
        sim = getattr(c.table, "simulator", None)
        if sim is not None:
            c.table = sim()
        return c

    def _expected(self, st: SunState, first: Any) -> float:
        total = 0.0
        for _ in range(self.samples):
            c = self._sim_state(st)
            pen0 = c.penalties()[self.seat]
            c.apply_action(first)
            guard = 0
            while not c.is_terminal() and guard < 12:
                guard += 1
                p = c.current_player()
                if p == CHANCE:
                    was_swing = c.phase == "swing"
                    c.apply_action(c.sample_chance(self.rng))
                    if was_swing:
                        break
                    continue
                if p != self.seat:
                    break
                legal = c.legal_actions()
                if not legal:
                    break
                if c.phase == "pass":
                    c.apply_action(best_aim(c)[1])
                elif c.phase == "marker":
                    c.apply_action(self.best_marker(c, legal)[1])
                else:  # a failed placement: choose again, carefully
                    c.apply_action(super().rank_placements(c, legal)[0][1])
            total += c.penalties()[self.seat] - pen0 + (0.0 if c.phase != "place" else 0.25)
        return total / self.samples

    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        """See the module docstring."""
        if not legal_actions:
            raise ValueError(f"seat {self.seat}: no legal action")
        st = self._state(observation)
        if st.phase == "marker":
            return self.best_marker(st, legal_actions)[1]
        if st.phase == "pass":
            _, _, tried = best_aim(st, want_all=True)
            aims: list[float] = []
            for _, a in tried:
                if all(abs((a - b + math.pi) % TAU - math.pi) > math.radians(1.0) for b in aims):
                    aims.append(a)
                if len(aims) >= self.candidates:
                    break
            options = [Pass(math.degrees(a) % 360.0, st.geom.min_release) for a in aims] or [legal_actions[0]]
        else:
            self.tries.start(st)
            options = [a for _, a in self.rank_placements(st, legal_actions)[: self.candidates]]
            if self._aggressive is None:
                self._aggressive = AggressiveAgent(game=self.game, seat=self.seat, rng=self.rng, config=self.config,
                                                   shortlist=self.shortlist)
                self._aggressive.tries = self.tries  # one memory of this seat's failed placements
            for _, a in self._aggressive.rank_placements(st, legal_actions)[: max(1, self.candidates // 2)]:
                if a not in options:
                    options.append(a)
        if len(options) == 1:
            choice = options[0]
        else:
            scored = [(self._expected(st, a), k, a) for k, a in enumerate(options)]
            scored.sort(key=lambda t: (t[0], t[1]))
            choice = scored[0][2]
        if st.phase == "place":
            self.tries.note(choice)
        return choice


def _factory(cls: type) -> Any:
    def make(*, game: Game, seat: int, rng: np.random.Generator, config: GameConfig, **params: Any) -> Any:
        return cls(game=game, seat=seat, rng=rng, config=config, **params)

    return make


AGENTS: dict[str, AgentSpec] = {
    "random": AgentSpec("random", _factory(RandomSunAgent), (),
                        "uniform legal placement and marker move; aims at the middle of the mark area"),
    "careful": AgentSpec("careful", _factory(CarefulAgent), (
        Option("shortlist", int, 6, "placements played out nominally after the quick score", min=1, max=1000),),
        "keeps its mark areas wide and passable, stacks where safe, aims for clearance at both crossings"),
    "aggressive": AgentSpec("aggressive", _factory(AggressiveAgent), (
        Option("shortlist", int, 8, "placements played out nominally after the quick score", min=1, max=1000),
        Option("spite", float, 1.0, "weight of the clearance taken from opponents against its own (0 plays "
               "like careful with a capped safety margin)", min=0.0, max=100.0),),
        "keeps its own pass safe, then narrows opponents' mark areas, stacks beside them and gates over them"),
    "planner": AgentSpec("planner", _factory(PlannerAgent), (
        Option("candidates", int, 4, "turns (and aims) simulated per decision", min=1, max=100),
        Option("samples", int, 3, "noisy simulations per candidate", min=1, max=1000),
        Option("shortlist", int, 6, "placements played out nominally before simulating", min=1, max=1000),),
        "simulates careful's best turns with noise on a copy of the table; fewest expected penalties"),
    "uniform": AgentSpec("uniform", RANDOM.factory, RANDOM.options, "uniformly random legal action (passes too)"),
}
