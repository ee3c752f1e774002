"""Stonehenge and the Sun as a game of the shared interface, bound to the PyBullet table.

``GAME`` (registry name ``sun``) plays the rules of :mod:`sim.sun.rules.state` on the real table of
:mod:`sim.sun.table.sun_table` through :class:`PhysicsTable`, an adapter implementing the rules' ``Table``
protocol. Scenario tables:

- ``[rules]``: :data:`sim.sun.options.RULE_OPTIONS` (mode, field, placement_fall, ...).
- ``[table]``, ``[ball]``, ``[physics]``, ``[shapes]``: the physical parameters, with docs/sun-physics.md's
  defaults, validated like a layout file (``sim.sun.table.layout.parse_layout``).
- ``[record]``: ``frames`` = none | first | all | failures (per-frame poses of every body, kept in
  the store's ``sun_frames`` table), ``rate_hz``.
- per seat: ``skill`` (a level of ``sim.sun.players.thrower.SKILLS`` or a preset file ``*.toml``) and ``sigma_aim_deg``,
  ``sigma_release_m``, ``sigma_push_mps``, ``sigma_place_m``, ``sigma_place_deg`` (each overrides
  that sigma of the level or preset when >= 0; ``skill-sweep.toml`` sweeps the aim, ``stonelab sensitivity``
  varies them all).

Replays: a game is a pure function of its seed streams (every physics call rebuilds the world from
exact poses), so :func:`record_game` re-plays game ``i`` of a scenario with recording switched on
and gets the very same game.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any, Mapping, Sequence

import numpy as np

from sim.core.errors import InputError, ScenarioError
from sim.core.game import Column, Game, GameConfig, GameDetails, GameSpec, State
from sim.core.options import Option
from sim.sun.endings import SunEnd
from sim.sun.position import BASE, GATE, TOP
from sim.sun.rules import pass_view as V
from sim.sun.actions import Pass
from sim.sun.table.layout import Layout, PhysicsSpec, TableSpec, BallSpec, parse_layout
from sim.sun.table.layout import BALL_RANGES, PHYSICS_RANGES, TABLE_RANGES
from sim.sun.physics import Body, PassResult, Placement, PlaceNoise, PlaceResult, ThrowNoise
from sim.sun.geometry.ring import Geometry
from sim.sun.options import RULE_DEFAULTS, RULE_OPTIONS
from sim.sun.rules.state import SunObservation, SunState
from sim.sun.players.thrower import SKILLS, Thrower, TablePassNoise, TablePlaceNoise
from sim.sun.players.thrower import is_skill_file, load_skill, skill as skill_of

# ------------------------------------------------------------------------------------------------
# Options
# ------------------------------------------------------------------------------------------------


def _float_opts(obj: Any, doc: str, ranges: Mapping[str, tuple[float, float]]) -> tuple[Option, ...]:
    # the same bounds as a layout file's, so `stonelab validate` and `stonelab games` tell the truth
    out = []
    for k, v in vars(obj).items():
        if isinstance(v, float):
            lo, hi = ranges[k]
            out.append(Option(k, float, v, f"{doc} ({k}); docs/sun-physics.md default", min=lo, max=hi))
    return tuple(out)


SECTIONS: dict[str, tuple[Option, ...]] = {
    "table": _float_opts(TableSpec(), "base and ring", TABLE_RANGES),
    "ball": _float_opts(BallSpec(), "ball and string", BALL_RANGES),
    "physics": (Option("preset", str, "fast", "fidelity preset: fast (Monte Carlo) or reference (checking)",
                       choices=("fast", "reference")),) + _float_opts(PhysicsSpec(), "simulation", PHYSICS_RANGES),
    "shapes": tuple(Option(n, dict, {}, f"overrides of the {n} shape: width, depth, height, count, density",
                           check=lambda v: None if isinstance(v, dict) else "a table") for n in ("pillar", "block", "slab")),
    "layout": (
        Option("file", str, "", "a layout TOML (scenarios/sun/layouts/, or one saved by `stonelab sun edit`): its "
               "[table], [ball], [physics] and [shapes] are this scenario's defaults (the scenario's own "
               "tables override them key by key); path relative to the working directory", check=lambda v: _check_layout_file(v)),
        Option("start", str, "empty", "empty: every game starts with all stones in the field (the rule text); "
               "layout: with the layout file's stones, stacks and gates already standing (a mid-game position "
               "to study)", choices=("empty", "layout")),
    ),
    "record": (
        Option("frames", str, "none", "per-frame poses kept in the store: none, first (game 0), all, or "
               "failures (passes with a penalty)", choices=("none", "first", "all", "failures")),
        Option("rate_hz", float, 60.0, "recorded frames per simulated second", min=1.0, max=1000.0),
    ),
}
_SECTION_DEFAULTS: dict[str, dict[str, Any]] = {k: {o.name: o.default for o in opts} for k, opts in SECTIONS.items()}

def _check_skill(value: str) -> str | None:
    """A seat's ``skill``: a level of SKILLS or a readable, valid preset file (None when fine)."""
    if not is_skill_file(value):
        return None if value in SKILLS else f"allowed: {', '.join(map(repr, SKILLS))} or a preset file ending in .toml"
    try:
        load_skill(value)
    except InputError as e:
        return f"{e}"
    return None


SEAT_OPTIONS: tuple[Option, ...] = (
    Option("skill", str, "steady", "the thrower's skill level (sim/sun/players/thrower.py) or a skill preset file "
           "ending in .toml (written by `stonelab sun calibrate --out`; path relative to the working directory)",
           check=_check_skill),
    Option("sigma_aim_deg", float, -1.0, "aim noise in degrees overriding the skill's (-1: the skill's)",
           min=-1.0, max=90.0),
    # the other four sigmas, overridable the same way, so a sweep or a sensitivity study can vary
    # each assumption of the player model on its own (docs/sensitivity.md)
    Option("sigma_release_m", float, -1.0, "release distance noise in m overriding the skill's (-1: the skill's)",
           min=-1.0, max=0.5),
    Option("sigma_push_mps", float, -1.0, "sideways push noise in m/s overriding the skill's (-1: the skill's)",
           min=-1.0, max=1.0),
    Option("sigma_place_m", float, -1.0, "placement position noise in m overriding the skill's (-1: the skill's)",
           min=-1.0, max=0.05),
    Option("sigma_place_deg", float, -1.0, "placement yaw noise in degrees overriding the skill's (-1: the skill's)",
           min=-1.0, max=90.0),
)

#: the seat keys that override one sigma of the seat's skill (value >= 0), by Thrower field
SIGMA_KEYS: tuple[str, ...] = ("sigma_aim_deg", "sigma_release_m", "sigma_push_mps", "sigma_place_m",
                               "sigma_place_deg")

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


# ------------------------------------------------------------------------------------------------
# The adapter
# ------------------------------------------------------------------------------------------------

_TABLES: dict[str, Any] = {}


def _check_layout_file(value: str) -> str | None:
    """``[layout] file``: empty, or a layout file that loads (None when fine, else the reason)."""
    if not value:
        return None
    try:
        _layout_file(value)
    except ScenarioError as e:
        return str(e)
    return None


def _layout_file(path: str) -> dict[str, Any]:
    """The raw tables of a layout file, validated as a layout (cached per path and content).

    Raises:
        ScenarioError: the file is missing, not TOML or not a valid layout.
    """
    from sim.core.errors import ScenarioError
    from sim.core.files import read_toml
    from sim.sun.table.layout import load_layout

    load_layout(path)  # the full validation, with the file named in any error
    return read_toml(path, "layout file", ScenarioError)  # the one reader (a byte-order mark is fine)


def layout_of(sections: Mapping[str, Mapping[str, Any]]) -> Layout:
    """A stone-less layout carrying the scenario's physical parameters (validated by the layout
    loader): a ``[layout] file``'s tables, overridden key by key by the scenario's own.

    Raises:
        ScenarioError: an impossible combination (e.g. the ring outside the base).
    """
    base = _layout_file(str(sections["layout"]["file"])) if (sections.get("layout") or {}).get("file") else {}
    data: dict[str, Any] = {}
    for k in ("table", "ball", "physics"):
        # the sections arrive filled with defaults: a scenario value overrides the file's only where
        # the scenario set it away from the default (so it cannot set a file's value back to it)
        merged = {**dict(base.get(k) or {}), **{kk: v for kk, v in dict(sections.get(k) or {}).items()
                                                 if v != _SECTION_DEFAULTS[k].get(kk)}}
        if merged:
            data[k] = merged
    shapes = {n: dict(v) for n, v in (base.get("shapes") or {}).items() if v}
    for n, v in (sections.get("shapes") or {}).items():
        if v:
            shapes[n] = {**shapes.get(n, {}), **dict(v)}
    if shapes:
        data["shapes"] = shapes
    return parse_layout(data)


def start_layout(sections: Mapping[str, Mapping[str, Any]]) -> Layout | None:
    """The layout whose stones a game starts with (``[layout] start = "layout"``), else None.

    Raises:
        ScenarioError: the file is not a valid layout.
    """
    lay = sections.get("layout") or {}
    if lay.get("start") != "layout" or not lay.get("file"):
        return None
    from sim.sun.table.layout import load_layout

    return load_layout(str(lay["file"]))


def check_config(config: GameConfig) -> tuple[str, str] | None:
    """The scenario's physical tables together (GameSpec.check): what one key alone cannot tell,
    e.g. the ring outside the base, a string too short, an unknown key of a ``[shapes.*]`` table."""
    try:
        layout_of(config.sections)
    except ScenarioError as e:
        return e.key or "", e.message
    return None


#: Wall seconds spent inside :class:`PhysicsTable`'s ``place`` and ``throw`` by this process (the
#: physics side of the rules' Table protocol: loading the poses, PyBullet, reading back, judging),
#: for the game-overhead benchmark (``sim.sun.game_bench``): read with :func:`table_wall_s`.
_TABLE_WALL = [0.0]


def table_wall_s() -> float:
    """Wall seconds this process has spent inside the PyBullet table's place and throw calls."""
    return _TABLE_WALL[0]


#: parameter sets whose table a process keeps: a sensitivity study's every point has its own, and
#: each table holds a PyBullet connection (about 10 MB), so the cache must not grow with the study
_TABLES_KEPT = 4


def _sun_table(layout: Layout, key: str | None = None) -> Any:
    """One SunTable (one PyBullet connection) per process and parameter set, reused by every game;
    the least recently used of more than :data:`_TABLES_KEPT` is closed (games of one point run
    back to back in a worker, and every physics call restores the table from poses)."""
    from sim.sun.table.sun_table import SunTable

    key = repr(layout) if key is None else key  # ``key``: repr(layout), when the caller kept it
    t = _TABLES.pop(key, None)
    if t is None:
        while len(_TABLES) >= _TABLES_KEPT:
            old = _TABLES.pop(next(iter(_TABLES)))
            old.close()
        t = SunTable(layout, ())
    _TABLES[key] = t  # (re)inserted last: dict order is the use order
    return t


class PhysicsTable:
    """The rules' :class:`~sim.sun.physics.Table` on the PyBullet table (``sim.sun.table.sun_table.SunTable``).

    Every call loads the given bodies into the table with ``restore`` (the world is rebuilt from
    the exact poses), so results depend only on the bodies, the request and the noise.
    Workarounds of the table API: a new stone gets the rules' id by restoring with ``next_id`` set
    to it; a gate is laid as a new stone of the gate's shape (``make_gate(shape=...)``) because the
    rules have already taken the stone off the ring.

    Args:
        layout: the physical parameters.
        record: None, or a list that receives one dict per physics call with a pose recording.
        rate_hz: recording rate.
        failures_only: keep only recordings of calls that lost a stone.
    """

    def __init__(self, layout: Layout, record: list[dict[str, Any]] | None = None, rate_hz: float = 60.0,
                 failures_only: bool = False) -> None:
        self.layout = layout
        self._key = repr(layout)  # the table cache's key, once (a layout never changes)
        self.record = record
        self.rate_hz = rate_hz
        self.failures_only = failures_only
        self.context: dict[str, Any] = {}
        #: while recording: the rules' view of each pass (``sim.sun.rules.pass_view.pass_view``, its
        #: penalties filled in), for the replay viewer; never stored in a run's store
        self.views: list[dict[str, Any]] | None = [] if record is not None else None
        #: while recording: the penalties of the turn so far (placement steps), and the stones the
        #: last placement knocked over with the table's cause
        self.turn_penalties: list[dict[str, Any]] = []
        self.last_knocked: dict[int, str] = {}

    def simulator(self) -> "PhysicsTable":
        """A non-recording twin (for planners trying passes)."""
        return PhysicsTable(self.layout)

    def _load(self, bodies: Sequence[Body], next_id: int) -> Any:
        from sim.sun.table.state import Role, StoneState, TableSnapshot

        t = _sun_table(self.layout, self._key)
        by_id = {b.id: b for b in bodies}
        states = []
        role: Role
        sup: tuple[int, ...]
        for b in bodies:
            if not b.support:
                role, sup = "stand", ()
            elif len(b.support) == 1:
                role, sup = "stack", b.support
            else:
                role, sup = "gate", tuple(_top_id(by_id, x) for x in b.support)
            states.append(StoneState(b.id, b.shape, role, sup, _vec3(b.pose[:3]), _quat(b.pose[3:])))
        t.restore(TableSnapshot(tuple(states), next_id))
        return t

    def _bodies(self, t: Any, was: Mapping[int, Body], extra: Body | None = None) -> tuple[Body, ...]:
        out = []
        for s in t.stones():
            old = was.get(s.id, extra if extra is not None and extra.id == s.id else None)
            sup = old.support if old is not None else ()
            out.append(Body(s.id, s.shape, (*s.pos, *s.quat), sup))
        return tuple(out)

    def place(self, bodies: Sequence[Body], placement: Placement, noise: PlaceNoise) -> PlaceResult:
        """See :meth:`sim.sun.physics.Table.place`."""
        t0 = time.perf_counter()
        try:
            return self._place(bodies, placement, noise)
        finally:
            _TABLE_WALL[0] += time.perf_counter() - t0

    def _place(self, bodies: Sequence[Body], placement: Placement, noise: PlaceNoise) -> PlaceResult:
        t = self._load(bodies, placement.stone)
        n = TablePlaceNoise(noise.along, noise.across, noise.yaw_rad)
        if placement.kind == "stand":
            res = t.stand_stone(placement.shape, placement.angle, n)
            sup: tuple[int, ...] = ()
        elif placement.kind == "stack":
            res = t.stack_stone(placement.shape, placement.on, n)
            sup = (placement.on,)
        else:
            res = t.make_gate(placement.between, shape=placement.shape, noise=n)
            sup = placement.between
        if res.standing and res.stone != placement.stone:
            raise RuntimeError(f"table gave the new stone id {res.stone}, expected {placement.stone}")
        was = {b.id: b for b in bodies}
        out = self._bodies(t, was, Body(placement.stone, placement.shape, (0.0,) * 7, sup))
        knocked = tuple((x.stone, x.cause) for x in res.disturbed)
        self.last_knocked = dict(knocked)
        if self.record is not None and (not self.failures_only or knocked or not res.standing):
            from sim.sun.table.recording import still_recording

            data = still_recording(t.stones(), t.shapes, self.rate_hz, res.sim_time_s,
                                   {"stone": res.stone, "standing": bool(res.standing), "cause": res.cause})
            self.record.append({**self.context, "kind": "place", "data": data})
        return PlaceResult(bool(res.standing), out, knocked, res.sim_time_s, res.wall_s)

    def throw(self, bodies: Sequence[Body], aim: float, release: float, noise: ThrowNoise) -> PassResult:
        """See :meth:`sim.sun.physics.Table.throw`."""
        t0 = time.perf_counter()
        try:
            return self._throw(bodies, aim, release, noise)
        finally:
            _TABLE_WALL[0] += time.perf_counter() - t0

    def _throw(self, bodies: Sequence[Body], aim: float, release: float, noise: ThrowNoise) -> PassResult:
        from sim.sun.table.recording import PoseRecorder

        t = self._load(bodies, max((b.id for b in bodies), default=-1) + 1)
        n = TablePassNoise(math.radians(noise.aim), noise.release, (noise.push_x, noise.push_y))
        rec = PoseRecorder(self.rate_hz) if self.record is not None else None
        res = t.pass_ball(aim, release, n, record=rec)
        was = {b.id: b for b in bodies}
        out = self._bodies(t, was)
        pens = tuple((x.stone, x.cause) for x in res.penalties)
        if rec is not None and (not self.failures_only or pens):
            self.record.append({**self.context, "kind": "pass", "data": rec.to_dict()})  # type: ignore[union-attr]
        return PassResult(pens, out, tuple(c.angle for c in res.crossings), bool(res.through_aim_gap),
                            bool(res.reached_far_side), bool(res.invalid), res.sim_time_s, res.steps, res.wall_s,
                            res.preset)


def _vec3(v: Sequence[float]) -> tuple[float, float, float]:
    """``tuple(v)`` for three numbers, typed as a 3-tuple."""
    x, y, z = v
    return (x, y, z)


def _quat(v: Sequence[float]) -> tuple[float, float, float, float]:
    """``tuple(v)`` for four numbers, typed as a 4-tuple."""
    x, y, z, w = v
    return (x, y, z, w)


def _top_id(by_id: Mapping[int, Body], bottom: int) -> int:
    for b in by_id.values():
        if b.support == (bottom,):
            return b.id
    return bottom


# ------------------------------------------------------------------------------------------------
# The game
# ------------------------------------------------------------------------------------------------


def thrower_of(seat: Mapping[str, Any]) -> Thrower:
    """The thrower of a seat: its skill level or preset file, with each of :data:`SIGMA_KEYS` overridden when >= 0.

    Raises:
        InputError: unknown skill, or a bad preset file.
    """
    th = skill_of(str(seat.get("skill", "steady")))
    given = {k: float(v) for k in SIGMA_KEYS if (v := seat.get(k, -1.0)) is not None and v >= 0}
    if given:
        from dataclasses import replace

        th = replace(th, name="custom", **given)
    return th


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
        out0 = V.lost_stones(self)
        view = V.pass_view(self, action) if phase == "swing" and isinstance(action, ThrowNoise) \
            and isinstance(self.pending, Pass) else None
        if phase == "settle":
            tab.last_knocked = {}
        super().apply_action(action)
        if phase == "settle" and len(self.placements) > n_place:
            row = self.placements[-1]
            tab.turn_penalties += V.penalties_of_placement(self.shapes, out0, V.lost_stones(self), int(row["stone"]),
                                                           str(row["cause"]), tab.last_knocked)
        elif view is not None and len(self.passes) > n_pass:
            view["penalties"] = tab.turn_penalties + V.penalties_of_pass(str(self.passes[-1]["causes"]))
            tab.turn_penalties = []
            tab.views.append(view)


class SunGame(Game):
    """Stonehenge and the Sun on the PyBullet table."""

    def __init__(self) -> None:
        from sim.sun.agents import policies as A

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
        self.agents = A.AGENTS
        self._table_override: Any = None

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
        table = self._table_override or PhysicsTable(layout, record, float(rec.get("rate_hz", 60.0)),
                                                     failures_only=frames == "failures")
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
        """Parse a sun notation (see :meth:`sim.sun.rules.state.SunState.to_notation`).

        Raises:
            InputError: malformed notation.
        """
        try:
            return SunGameState.parse(text, self._build)
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
            "stones_standing": sum(1 for r in s.role if r in (BASE, TOP)),
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
    labels], "geometry": the table's (``rules_view.geometry_view``), "calls": [{turn, seat, kind,
    data}...], "rules": [the rules' view of each pass, ``rules_view.pass_view``, with its turn's
    penalties]}``. The same seed streams and agents as the runner give the same game.

    Raises:
        InputError: the scenario is not a sun scenario.
    """
    from dataclasses import replace

    from sim.core.play import play, seat_agents
    from sim.core.seeding import game_streams

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
            "players": list(players), "geometry": V.geometry_view(state.geom),
            "calls": list(tab.record or []), "rules": list(tab.views or [])}
