"""The Sun's physics adapter: the rules' :class:`~sim.sun.physics.Table` protocol on the PyBullet table
(:class:`PhysicsTable`), with the process's cache of tables (one PyBullet connection per parameter
set) and the wall time spent inside it.
"""

from __future__ import annotations

import time
from typing import Any, Mapping, Sequence

from sim.sun.geometry.stone import Stone
from sim.sun.physics import PassResult, Placement, PlaceResult
from sim.sun.players.thrower import PlaceNoise, ThrowNoise
from sim.sun.table.layout import Layout

# The table's own modules (sun_table, state, recording) import pybullet, about 0.2 s of start-up
# (python -X importtime): they are imported where the table is first used, so importing the game
# (stonelab games, the notation, the rules' tests) does not pay for it.

_TABLES: dict[str, Any] = {}


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
    # start-up: the PyBullet table (pybullet, the table's state and recording) adds 16 ms (python -X importtime,
    # cumulative) to a process that plays the rules alone (random playouts, the scripted table, a report)
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

    Every call hands the rules' stones to the table with ``restore``: the table keeps those very
    records as its state (one record of a stone on both sides, nothing converted) and rebuilds the
    world from their exact poses, so results depend only on the stones, the request and the noise.
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

    def _load(self, bodies: Sequence[Stone], next_id: int) -> Any:
        """The table, its state the rules' stones (the table keeps the very records it is given)."""
        # start-up: the table's state loads pybullet, 5 ms (python -X importtime, cumulative)
        from sim.sun.table.state import TableSnapshot

        t = _sun_table(self.layout, self._key)
        t.restore(TableSnapshot(tuple(bodies), next_id))
        return t

    def _bodies(self, t: Any, was: Mapping[int, Stone]) -> tuple[Stone, ...]:
        """The table's stones; a stone that did not move (most: only a call's active set is
        simulated) is handed back as the very record it came in as, so that the rules keep its
        pose object and whatever they worked out from it (``SunState._set_bodies``)."""
        out = []
        for s in t.stones():
            old = was.get(s.id)
            out.append(old if old is not None and (old is s or old.pose == s.pose) else s)
        return tuple(out)

    def place(self, bodies: Sequence[Stone], placement: Placement, noise: PlaceNoise) -> PlaceResult:
        """See :meth:`sim.sun.physics.Table.place`."""
        t0 = time.perf_counter()
        try:
            return self._place(bodies, placement, noise)
        finally:
            _TABLE_WALL[0] += time.perf_counter() - t0

    def _place(self, bodies: Sequence[Stone], placement: Placement, noise: PlaceNoise) -> PlaceResult:
        t = self._load(bodies, placement.stone)
        if placement.kind == "stand":
            res = t.stand_stone(placement.shape, placement.angle, noise)
        elif placement.kind == "stack":
            res = t.stack_stone(placement.shape, placement.on, noise)
        else:
            res = t.make_gate(placement.between, shape=placement.shape, noise=noise)
        if res.standing and res.stone != placement.stone:
            raise RuntimeError(f"table gave the new stone id {res.stone}, expected {placement.stone}")
        was = {b.id: b for b in bodies}
        out = self._bodies(t, was)
        knocked = tuple((x.stone, x.cause) for x in res.disturbed)
        self.last_knocked = dict(knocked)
        if self.record is not None and (not self.failures_only or knocked or not res.standing):
            # start-up: the recording loads pybullet, 5 ms (python -X importtime, cumulative)
            from sim.sun.table.recording import still_recording

            data = still_recording(t.stones(), t.shapes, self.rate_hz, res.sim_time_s,
                                   {"stone": res.stone, "standing": bool(res.standing), "cause": res.cause})
            self.record.append({**self.context, "kind": "place", "data": data})
        return PlaceResult(bool(res.standing), out, knocked, res.sim_time_s, res.wall_s)

    def throw(self, bodies: Sequence[Stone], aim: float, release: float, noise: ThrowNoise) -> PassResult:
        """See :meth:`sim.sun.physics.Table.throw`."""
        t0 = time.perf_counter()
        try:
            return self._throw(bodies, aim, release, noise)
        finally:
            _TABLE_WALL[0] += time.perf_counter() - t0

    def _throw(self, bodies: Sequence[Stone], aim: float, release: float, noise: ThrowNoise) -> PassResult:
        t = self._load(bodies, max((b.id for b in bodies), default=-1) + 1)
        # start-up: the recording loads pybullet, 5 ms (python -X importtime, cumulative)
        from sim.sun.table.recording import PoseRecorder

        rec = PoseRecorder(self.rate_hz) if self.record is not None else None
        # judge_gaps=False: the rules judge the mark area from the crossings and read the table's
        # through_aim_gap only when there are none, and then it is False (the ball never entered
        # the ring), so the ring of the start poses that verdict needs is not worked out
        res = t.pass_ball(aim, release, noise, record=rec, judge_gaps=False)
        was = {b.id: b for b in bodies}
        out = self._bodies(t, was)
        pens = tuple((x.stone, x.cause) for x in res.penalties)
        if rec is not None and (not self.failures_only or pens):
            self.record.append({**self.context, "kind": "pass", "data": rec.to_dict()})  # type: ignore[union-attr]
        return PassResult(pens, out, tuple(c.angle for c in res.crossings), bool(res.through_aim_gap),
                            bool(res.reached_far_side), bool(res.invalid), res.sim_time_s, res.steps, res.wall_s,
                            res.preset)
