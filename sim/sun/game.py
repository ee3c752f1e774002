"""Stonehenge and the Sun as a game of the shared interface, bound to the PyBullet table.

``GAME`` (registry name ``sun``) plays the rules of :mod:`sim.sun.rules.state` on the real table of
:mod:`sim.sun.table.sun_table` through :class:`PhysicsTable`, an adapter implementing the rules' ``Table``
protocol (``sim.sun.physics_table``). Scenario tables: ``[rules]``, :data:`sim.sun.options.RULE_OPTIONS`
(mode, field, placement_fall, ...); the physical ones and the seat options in ``sim.sun.sections``.
The store's columns are declared here, with the spec.

Replays: a game is a pure function of its seed streams (every physics call rebuilds the world from
exact poses), so :func:`record_game` re-plays game ``i`` of a scenario with recording switched on
and gets the very same game.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Mapping, Sequence

import numpy as np

from sim.core.errors import InputError, ScenarioError
from sim.core.game import Column, Game, GameConfig, GameDetails, GameSpec, State
from sim.core.play import play, seat_agents
from sim.core.seeding import game_streams
from sim.sun.actions import Pass
from sim.sun.agents import AGENTS
from sim.sun.endings import SunEnd
from sim.sun.geometry.ring import Geometry
from sim.sun.notation import parse_notation
from sim.sun.options import RULE_DEFAULTS, RULE_OPTIONS
from sim.sun.players.thrower import ThrowNoise
from sim.sun.physics_table import PhysicsTable
from sim.sun.position import GATE, STACK, STAND
from sim.sun.rules import pass_view
from sim.sun.rules.state import SunObservation, SunState
from sim.sun.sections import SEAT_OPTIONS, SECTIONS, check_config, layout_of, start_layout, thrower_of

PASS_COLUMNS: tuple[Column, ...] = (
    Column("seat", "INTEGER", "who passed"),
    Column("turn", "INTEGER", "turn number (0-based)"),
    Column("aim_deg", "REAL", "intended azimuth of the release point"),
    Column("release_m", "REAL", "intended release distance outside the base edge"),
    Column("noise_aim_deg", "REAL", "aim error drawn"),
    Column("noise_release_m", "REAL", "release distance error drawn"),
    Column("noise_push_x_mps", "REAL", "push at release, x"),
    Column("noise_push_y_mps", "REAL", "push at release, y"),
    Column("area_mid_deg", "REAL", "middle of the mark area passed through"),
    Column("area_width_mm", "REAL", "clear width of that mark area"),
    Column("marker_moved", "INTEGER", "the mover's marker moved this turn (after a stand or stack)"),
    Column("forced_move", "INTEGER", "the mover's mark area was impassable at the start of the turn (e.g. an "
           "opponent's gate over it), so the turn had to move the marker"),
    Column("through_mark_area", "INTEGER", "the ball crossed the ring inside the mark area(s)"),
    Column("reached_far_side", "INTEGER", "the ball reached the catch"),
    Column("penalties", "INTEGER", "stones lost in this pass"),
    Column("causes", "TEXT", "id:shape:cause;... of the stones lost"),
    Column("invalid", "INTEGER", "the pass was flagged invalid and re-run at the reference preset"),
    Column("preset", "TEXT", "physics preset"),
    Column("sim_time_s", "REAL", "simulated time"),
    Column("steps", "INTEGER", "simulation steps"),
    Column("wall_s", "REAL", "wall time of the physics"),
)
PLACE_COLUMNS: tuple[Column, ...] = (
    Column("seat", "INTEGER", "who placed"),
    Column("turn", "INTEGER", "turn number"),
    Column("kind", "TEXT", "stand, stack or gate"),
    Column("stone", "INTEGER", "stone id"),
    Column("shape", "TEXT", "shape"),
    Column("angle_deg", "REAL", "angular position aimed at (stands, stacks)"),
    Column("standing", "INTEGER", "it came to rest standing (and a marker move followed where needed)"),
    Column("cause", "TEXT", "why not"),
    Column("knocked", "INTEGER", "other stones lost while it settled"),
    Column("wall_s", "REAL", "wall time of the physics"),
)
FRAME_COLUMNS: tuple[Column, ...] = (
    Column("call", "INTEGER", "physics call number in the game"),
    Column("turn", "INTEGER", "turn number"),
    Column("seat", "INTEGER", "seat acting"),
    Column("kind", "TEXT", "pass or place"),
    Column("data", "TEXT", "the recording (JSON, docs/pose-recording.md)"),
)
RESULT_COLUMNS: tuple[Column, ...] = (
    Column("turns", "INTEGER", "turns played"),
    Column("passes", "INTEGER", "passes made"),
    Column("clean_passes", "INTEGER", "passes without a penalty"),
    Column("penalty_total", "INTEGER", "penalty stones of all seats"),
    Column("invalid_passes", "INTEGER", "passes re-run at the reference preset"),
    Column("failed_placements", "INTEGER", "placements that did not stand"),
    Column("gates", "INTEGER", "gates standing at the end"),
    Column("stones_standing", "INTEGER", "stones on the base at the end"),
    Column("field_left", "INTEGER", "stones left in the field at the end"),
    Column("mode", "TEXT", "standard or orbit"),
    Column("preset", "TEXT", "physics preset"),
    Column("physics_wall_s", "REAL", "wall time spent in physics"),
)



class SunGameState(SunState):
    """A :class:`~sim.sun.rules.state.SunState` whose notation omits the game's default options."""

    DEFAULTS: dict[str, Any] = {
        "rules": RULE_DEFAULTS,
        "sections": {k: {o.name: o.default for o in opts} for k, opts in SECTIONS.items()},
        "seats": {o.name: o.default for o in SEAT_OPTIONS},
    }

    def apply_action(self, action: Any) -> None:
        """As the rules; while recording, tags recordings with the turn and seat and keeps the
        rules' view of each pass with the penalties of its turn (``PhysicsTable.views``). The view
        only reads the state: a recorded game is the same game as an unrecorded one."""
        tab = self.table
        if not (isinstance(tab, PhysicsTable) and tab.record is not None and tab.views is not None):
            super().apply_action(action)
            return
        tab.context.update(turn=self.turn, seat=self.seat, seq=len(tab.record))
        phase, n_place, n_pass = self.phase, len(self.placements), len(self.passes)
        out0 = pass_view.lost_stones(self)
        view = pass_view.pass_view(self, action) if phase == "swing" and isinstance(action, ThrowNoise) \
            and isinstance(self.pending, Pass) else None
        if phase == "settle":
            tab.last_knocked = {}
        super().apply_action(action)
        if phase == "settle" and len(self.placements) > n_place:
            row = self.placements[-1]
            tab.turn_penalties += pass_view.penalties_of_placement(self.shapes, out0, pass_view.lost_stones(self), int(row["stone"]),
                                                           str(row["cause"]), tab.last_knocked)
        elif view is not None and len(self.passes) > n_pass:
            view["penalties"] = tab.turn_penalties + pass_view.penalties_of_pass(str(self.passes[-1]["causes"]))
            tab.turn_penalties = []
            tab.views.append(view)


class SunGame(Game):
    """Stonehenge and the Sun on the PyBullet table."""

    def __init__(self) -> None:
        self.spec = GameSpec(
            name="sun",
            title="Stonehenge and the Sun",
            min_players=2,
            max_players=4,
            has_chance=True,
            hidden_information=False,
            simultaneous=False,
            options=RULE_OPTIONS,
            sections=SECTIONS,
            seat_options=SEAT_OPTIONS,
            result_columns=RESULT_COLUMNS,
            detail_tables={"passes": PASS_COLUMNS, "placements": PLACE_COLUMNS, "frames": FRAME_COLUMNS},
            check=check_config,
            terminations=SunEnd,
            score_unit="penalty stones, fewer wins",
        )
        self.agents = AGENTS

    # --- states ------------------------------------------------------------------------------------
    def _build(self, n: int, rules: Mapping[str, Any], sections: Mapping[str, Mapping[str, Any]],
               seats: Sequence[Mapping[str, Any]], game_index: int | None = None) -> SunGameState:
        layout = layout_of(sections)
        geom = Geometry(layout.table, layout.ball, dict(layout.shapes))
        rec = dict(sections.get("record") or {})
        frames = rec.get("frames", "none")
        # "first": game 0 of the study (each sweep point's game 0); outside a study, record
        keep = frames == "all" or frames == "failures" or (frames == "first" and game_index in (0, None))
        record: list[dict[str, Any]] | None = [] if keep else None
        table = PhysicsTable(layout, record, float(rec.get("rate_hz", 60.0)), failures_only=frames == "failures")
        throwers = [thrower_of(s) for s in seats]
        st = SunGameState.new(n, rules, table=table, geometry=geom, throwers=throwers,
                              sections=sections, seat_cfg=seats)
        start = start_layout(sections)
        if start is not None:
            st.set_position([(x.shape, x.angle_rad, x.level) for x in start.stones],
                            [(x.shape, x.between) for x in start.gates])
        return st  # type: ignore[return-value]

    def new_initial_state(self, config: GameConfig) -> State:
        """The start: empty ring, all stones in the field, markers evenly spaced.

        Raises:
            ScenarioError: inconsistent physical parameters.
        """
        seats = list(config.seats) or [{} for _ in range(config.num_players)]
        defaults = SunGameState.DEFAULTS
        sections = {k: {**defaults["sections"][k], **dict(config.sections.get(k, {}))} for k in SECTIONS}
        seats = [{**defaults["seats"], **dict(s)} for s in seats]
        return self._build(config.num_players, {**RULE_DEFAULTS, **dict(config.rules)}, sections, seats,
                           game_index=config.game_index)

    def from_notation(self, text: str) -> State:
        """Parse a sun notation (see :meth:`sim.sun.rules.state.SunState.to_notation`; read by ``sim.sun.notation.parse_notation``).

        Raises:
            InputError: malformed notation.
        """
        try:
            return parse_notation(text, build=self._build, defaults=SunGameState.DEFAULTS)
        except ScenarioError as e:
            raise InputError(f"malformed sun notation: {e}") from None

    def determinize(self, observation: Any, rng: np.random.Generator) -> State:
        """Exact (no hidden information): a copy of the observed state."""
        if isinstance(observation, SunObservation):
            return observation.state.clone()
        return self.from_notation(observation)

    # --- results -------------------------------------------------------------------------------------
    def details(self, state: State) -> GameDetails:
        """One row per game (RESULT_COLUMNS), per pass, per placement, and recorded frames."""
        s: SunState = state  # type: ignore[assignment]
        passes = [{c.name: row.get(c.name) for c in PASS_COLUMNS} for row in s.passes]
        pl = [{c.name: row.get(c.name) for c in PLACE_COLUMNS} for row in s.placements]
        rows: dict[str, list[dict[str, Any]]] = {"passes": passes, "placements": pl}
        tab = s.table
        if isinstance(tab, PhysicsTable) and tab.record:
            rows["frames"] = [{"call": i, "turn": r.get("turn", -1), "seat": r.get("seat", -1), "kind": r["kind"],
                               "data": json.dumps(r["data"], separators=(",", ":"))} for i, r in enumerate(tab.record)]
        cols = {
            "turns": s.turn, "passes": len(s.passes),
            "clean_passes": sum(1 for r in s.passes if r["penalties"] == 0),
            "penalty_total": sum(s.penalties()),
            "invalid_passes": sum(r["invalid"] for r in s.passes),
            "failed_placements": sum(1 for r in s.placements if not r["standing"]),
            "gates": sum(1 for r in s.role if r == GATE),
            "stones_standing": sum(1 for r in s.role if r in (STAND, STACK)),
            "field_left": len(s.field_stones()),
            "mode": s.rules.mode,
            "preset": (s.sections.get("physics") or {}).get("preset", "fast"),
            "physics_wall_s": sum(r["wall_s"] for r in s.passes) + sum(r["wall_s"] for r in s.placements),
        }
        return GameDetails(cols, rows)


GAME = SunGame()


def record_game(scenario: Any, game_index: int, rate_hz: float = 60.0) -> dict[str, Any]:
    """Re-play game ``game_index`` of a (sweep-resolved) scenario exactly, recording every physics
    call: ``{"game": ..., "seed": ..., "index": ..., "notation": final, "outcome": ..., "players": [seat
    labels], "geometry": the table's (``pass_view.geometry_view``), "calls": [{turn, seat, kind,
    data}...], "rules": [the rules' view of each pass, ``pass_view.pass_view``, with its turn's
    penalties]}``. The same seed streams and agents as the runner give the same game.

    Raises:
        InputError: the scenario is not a sun scenario.
    """
    if scenario.game != "sun":
        raise InputError(f"not a sun scenario: {scenario.game!r}", key="game")
    seating = scenario.seating(game_index)
    config = scenario.config(seating.seats)
    secs = {k: dict(v) for k, v in config.sections.items()}
    secs["record"] = {"frames": "all", "rate_hz": rate_hz}
    # the runner's seating, configuration and loop, recording on (recording does not change a game)
    config = replace(config, sections=secs, game_index=game_index)
    streams = game_streams(scenario.seed, seating.stream_index, config.num_players)
    state = play(GAME, config, seat_agents(GAME, seating.seats, config, streams), streams.chance,
                 label=f"game {game_index} of {scenario.name}").state
    return game_record(state, [s.label() for s in seating.seats], scenario.seed, game_index)


def game_record(state: Any, players: Sequence[str], seed: int, game_index: int) -> dict[str, Any]:
    """The recording of a game played with ``[record] frames = "all"`` so far, as
    :func:`record_game` returns it (``outcome`` None while the game goes on): what
    ``sim.sun.viewer.replay.convert.from_game_record`` reads. The lists are copies (the game moves
    on).

    Raises:
        InputError: ``state`` is not a state of the Sun.
    """
    tab = getattr(state, "table", None)
    if tab is None or not hasattr(state, "geom"):
        raise InputError(f"not a state of the Sun: {type(state).__name__}", key="state")
    out = state.outcome()
    return {"game": "sun", "seed": seed, "index": game_index, "notation": state.to_notation(),
            "outcome": None if out is None else {"winners": list(out.winners), "scores": list(out.scores)},
            "players": list(players), "geometry": pass_view.geometry_view(state.geom),
            "calls": list(tab.record or []), "rules": list(tab.views or [])}
