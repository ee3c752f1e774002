"""The PyBullet table of *Stonehenge and the Sun*: build, pass, place, settle, read back, record.

The table keeps two levels of description:

- **pose-level state** (canonical): one :class:`~sim.sun.geometry.stone.Stone` per stone on the table
  (the record the rules share): id, shape, role (``"stand"`` on the base, ``"stack"`` on another
  stone, ``"gate"`` across two positions), the positions it rests on (by their bottom stones), and
  its pose as physics left it. :meth:`SunTable.snapshot` and
  :meth:`SunTable.restore` save and restore it; :meth:`SunTable.copy` builds an independent table.
- **ring view**: :meth:`SunTable.positions` and :meth:`SunTable.gaps` derive the ring (positions,
  gaps, gates' undersides) from the poses, with the geometry of :mod:`sim.sun.table.layout`.

The PyBullet world (:mod:`sim.sun.table.world`) is a disposable rendering of the state, rebuilt from the
poses whenever the state changed since the last build. Every pass and placement therefore starts
from a fresh world built from the poses, so its result is a pure function of (poses, parameters,
command, noise): a copy of the table gives bit-identical results, which is what a planner trying
passes on a copy needs. The pose-level records, what a pass and a placement report
(:class:`TablePass`, :class:`TablePlacement`) and the judging rules live in :mod:`sim.sun.table.state`,
pose recording in :mod:`sim.sun.table.recording`.

A pass (:meth:`SunTable.pass_ball`): the ball is released from rest (plus the thrower's push) at
``base_radius + release`` from the centre in the aim direction; the swing is simulated until the
ball's velocity along the swing direction turns back (the far turning point, where the next player
catches it) or ``max_swing_s``; the ball is removed; the table settles until every stone is at rest
(two consecutive checks) or ``settle_time_limit_s``. Then each stone is judged against its pose
before the pass: ``pushed_off`` (centre beyond the base edge or below its top), ``fell_from_support``
(a stacked stone or gate no longer resting on its supports' tops), ``toppled`` (tilted more than
``topple_tilt_deg``). Penalty stones are removed from the table. A non-finite state or the ball's
energy growing beyond ``energy_tolerance`` flags the pass invalid; it is then re-run from the same
state at the reference preset and the result says so.
"""


from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Iterable

import pybullet as p

from sim.core.errors import InputError
from sim.sun.table.layout import GateSpec, Layout, ShapeSpec, StoneSpec, TAU, wrap_angle
from sim.sun.table.recording import PoseRecorder, record_frame, record_setup
from sim.sun.geometry.ring import Pos, Ring, inside_opening, pose_bottom, position_of, quat_yaw
from sim.sun.geometry.stone import Stone
from sim.sun.table.state import (Cause, Crossing, Penalty, TablePass, TablePlacement, TableSnapshot,
                                 fix_supports, gate_pose, judge, rotation_matrix, top_z)
from sim.sun.players.thrower import ZERO_PASS, ZERO_PLACE, PlaceNoise, ThrowNoise
from sim.sun.table.world import (ANY_BODY, ANY_LINK, REACH_SLACK_M, TableWorld, add_stepping_wall_s, half_diagonal,
                                 horizontal_extent, metres_text, stepping_wall_s)

__all__ = ["Cause", "Crossing", "Penalty", "SunTable", "TablePass", "TablePlacement", "TableSnapshot",
           "stepping_wall_s"]

#: Vertical gap (m) under a placed stone, so that a noisy placement never starts in contact.
PLACE_DROP_M = 0.0002


class SunTable(TableWorld):
    """A Stonehenge-and-the-Sun table simulated in its own PyBullet DIRECT connection.

    Use :meth:`from_layout`; close with :meth:`close` (or a ``with`` block).
    """

    #: The ball flies the part of a swing before it nears the base in a world of its own (fast
    #: preset, see TableWorld.flight_world); False: in the table's world (tests compare the two).
    fly_apart: bool = True

    def __init__(self, layout: Layout, stones: Iterable[Stone] = (), next_id: int | None = None) -> None:
        super().__init__(layout)
        self._states = {s.id: s for s in sorted(stones, key=lambda s: s.id)}
        self._next_id = next_id if next_id is not None else (max(self._states, default=-1) + 1)
        #: ring positions by their stones' exact (id, shape, pose): see :meth:`positions`
        self._pos_memo: dict[tuple, Pos] = {}

    # ---- construction ---------------------------------------------------------------------

    @classmethod
    def from_layout(cls, layout: Layout, preset: str | None = None, settle_s: float = 0.5) -> "SunTable":
        """Build a table with the layout's stones at their nominal poses, then let it settle.

        Stones built in exact contact shift by up to 0.3 mm in the first 0.1 s (contacts finding
        their depth), then stay put; the settled poses are the table's starting state, so later
        drift measures creep, not that start-up transient.

        Args:
            layout: a validated layout.
            preset: ``"fast"`` or ``"reference"``; default the layout's ``[physics] preset``.
            settle_s: simulated time (s) with every stone awake before reading the poses back; 0
                keeps the nominal poses.

        Raises:
            ScenarioError: for an unknown preset.
        """
        if preset is not None:
            layout = layout.with_preset(preset)
        R = layout.table.ring_radius
        states: list[Stone] = []
        by_index: dict[int, Stone] = {}
        for i, s in enumerate(layout.stones):
            shp = layout.shapes[s.shape]
            a = s.angle_rad
            if s.level == 1:
                st = Stone(i, s.shape, "stand", (), (R * math.cos(a), R * math.sin(a), 0.5 * shp.height, *quat_yaw(a)))
            else:
                below = next(j for j, t in enumerate(layout.stones)
                             if t.level == 1 and abs(((t.angle_deg - s.angle_deg + 180) % 360) - 180) <= 1e-6)
                h1 = layout.shapes[layout.stones[below].shape].height
                st = Stone(i, s.shape, "stack", (below,),
                           (R * math.cos(a), R * math.sin(a), h1 + 0.5 * shp.height, *quat_yaw(a)))
            by_index[i] = st
        # Level-2 stones sit on the level-1 stone; gates rest on the top of each position.
        top_of = {i: i for i, s in enumerate(layout.stones) if s.level == 1}
        for st in by_index.values():
            if st.role == "stack":
                top_of[st.on[0]] = st.id
        states.extend(by_index.values())
        n = len(layout.stones)
        table = cls(layout, states, n + len(layout.gates))
        for k, g in enumerate(layout.gates):
            sup = (top_of[g.between[0]], top_of[g.between[1]])
            pos, quat = table._gate_pose(g.shape, sup, ZERO_PLACE, drop=0.0)
            table._states[n + k] = Stone(n + k, g.shape, "gate", (g.between[0], g.between[1]), (*pos, *quat))
        table._states = dict(sorted(table._states.items()))
        if settle_s > 0 and table._states:
            table.wake_all()
            table.step(int(round(settle_s * table.physics.hz)))
            for sid, (pos, quat) in table.read_poses().items():
                table._states[sid] = replace(table._states[sid], pose=(*pos, *quat))
            table._dirty = True
        return table

    def __enter__(self) -> "SunTable":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- state --------------------------------------------------------------------------

    def stones(self) -> list[Stone]:
        """The stones on the table (pose-level state), by id."""
        return list(self._states.values())

    def stone(self, stone_id: int) -> Stone:
        """One stone's state.

        Raises:
            KeyError: no such stone on the table.
        """
        return self._states[stone_id]

    def stone_poses(self) -> dict[int, tuple[tuple[float, float, float], tuple[float, float, float, float]]]:
        """Position and orientation of every stone, by id."""
        return {k: (s.pos, s.quat) for k, s in self._states.items()}

    def snapshot(self) -> TableSnapshot:
        """An immutable copy of the pose-level state (cheap; no physics)."""
        return TableSnapshot(tuple(self._states.values()), self._next_id)

    def restore(self, snap: TableSnapshot) -> None:
        """Return to a snapshot; the world is rebuilt before the next simulation."""
        self._states = {s.id: s for s in snap.stones}
        self._next_id = snap.next_id
        self._dirty = True

    def copy(self, preset: str | None = None) -> "SunTable":
        """An independent table (own PyBullet connection) with the same state; close it when done."""
        layout = self.layout if preset is None else self.layout.with_preset(preset)
        return SunTable(layout, self._states.values(), self._next_id)

    def remove_stone(self, stone_id: int) -> Stone:
        """Take a stone off the table (the rules layer's decision); returns its last state.

        Stones resting on it lose it as a support (physics decides at the next simulation).

        Raises:
            KeyError: no such stone.
        """
        st = self._states.pop(stone_id)
        self._dirty = True
        return st

    # ---- ring view ------------------------------------------------------------------------

    def positions(self) -> list[Pos]:
        """The ring positions from the current poses, sorted by angle (``Pos.ids`` bottom first)."""
        on: dict[int, list[Stone]] = {}
        for s in self._states.values():
            if s.role == "stack" and s.on:
                on.setdefault(s.on[0], []).append(s)
        out = []
        for s in self._states.values():
            if s.role != "stand":
                continue
            stones = [s, *on.get(s.id, [])]
            # the footprint of its stones as they stand: the rules' view (``SunCache._new_pos``);
            # kept by the stones' exact poses (most positions are unchanged from one call to the next)
            key = tuple((t.id, t.shape, t.pose) for t in stones)
            q = self._pos_memo.get(key)
            if q is None:
                if len(self._pos_memo) > 512:
                    self._pos_memo.clear()
                q = self._pos_memo[key] = position_of(
                    s.id, [(t.pose, self.shapes[t.shape]) for t in stones], stones[-1].id if len(stones) > 1 else -1)
            out.append(q)
        out.sort(key=lambda q: q.angle)
        return out

    def gaps(self, positions: list[Pos] | None = None) -> Ring:
        """The ring (``sim.sun.geometry.ring.Ring``: gaps, widths, gates' undersides) from the current poses.
        A gate is keyed by the bottom stone ids of its supports, counter-clockwise first."""
        pos = self.positions() if positions is None else positions
        n = len(pos)
        k_of = {i: k for k, q in enumerate(pos) for i in q.ids}
        gates: dict[tuple[int, int], float] = {}
        for s in self._states.values():
            if s.role == "gate" and len(s.on) == 2 and all(x in k_of for x in s.on):
                ka, kb = k_of[s.on[0]], k_of[s.on[1]]
                if (ka + 1) % n != kb or (n == 2 and (pos[kb].angle - pos[ka].angle) % TAU > math.pi):
                    ka, kb = kb, ka  # counter-clockwise first; with two positions, across the short gap
                # the lintel's lowest point as it lies (tilted too), as the rules take it
                gates[(pos[ka].id, pos[kb].id)] = pose_bottom(s.pose, self.shapes[s.shape])
        return Ring(pos, gates)

    def to_layout(self) -> Layout:
        """The layout-level description of the table as it stands now (angles read from the poses).

        Level-1 stones come first (by angle), then stacks at their support's angle, then gates
        between the level-1 stones of their positions. The result is not re-validated: stones moved
        by physics may sit closer than a layout file allows. ``layout.dump_layout_toml`` writes it.
        """
        pos = self.positions()
        index: dict[int, int] = {}
        stones: list[StoneSpec] = []
        for q in pos:
            index[q.ids[0]] = len(stones)
            stones.append(StoneSpec(self._states[q.ids[0]].shape, math.degrees(q.angle), 1))
        for q in pos:
            for sid in q.ids[1:]:
                index[sid] = len(stones)
                stones.append(StoneSpec(self._states[sid].shape, math.degrees(q.angle), 2))
        bottom = {i: q.ids[0] for q in pos for i in q.ids}
        gates = [GateSpec(s.shape, (index[bottom[s.on[0]]], index[bottom[s.on[1]]]))
                 for s in self._states.values()
                 if s.role == "gate" and len(s.on) == 2 and all(i in bottom for i in s.on)]
        return replace(self.layout, stones=tuple(stones), gates=tuple(gates))

    def top_of(self, stone_id: int) -> int:
        """The id of the top stone of the position whose level-1 stone is ``stone_id`` (or itself)."""
        for s in self._states.values():
            if s.role == "stack" and s.on and s.on[0] == stone_id:
                return s.id
        return stone_id


    def pass_ball(self, aim_rad: float, release_m: float | None = None, noise: ThrowNoise = ZERO_PASS,
                  record: PoseRecorder | None = None, remove_penalties: bool = True,
                  judge_gaps: bool = True) -> TablePass:
        """Release the ball from rest at an aim and release distance, simulate, judge, read back.

        Args:
            aim_rad: intended azimuth of the release point (rad); the ball swings through the centre
                towards ``aim + pi``.
            release_m: intended horizontal distance of the release point outside the base edge (m);
                default, and least allowed, the hand span.
            noise: the thrower's errors (:meth:`Thrower.draw_pass`), added to aim and release, and a
                push at release.
            record: a recorder to fill with per-frame poses.
            remove_penalties: take penalty stones off the table (the rules' default).
            judge_gaps: work out ``through_aim_gap`` and ``through_opposite_gap`` (they need the
                ring of the start poses); False leaves both False, for a caller that judges the
                crossings itself (the rules' adapter, ``sim.sun.physics_table``).

        Returns:
            A :class:`TablePass`; the table's state is updated to the stones' new poses.

        Raises:
            InputError: aim not finite, release shorter than the hand span, or the release point
                beyond the string's reach.
        """
        t0 = time.perf_counter()
        if not math.isfinite(aim_rad):
            raise InputError(f"aim must be a finite angle, not {aim_rad!r}", key="aim")
        hand = self.table.hand_span
        release = hand if release_m is None else float(release_m)
        if not math.isfinite(release) or release < hand - 1e-12:
            raise InputError(f"release must be at least the hand span ({hand} m) outside the base edge, not "
                             f"{metres_text(release)} m", key="release")
        if self.table.base_radius + release >= self.ball.string_length:
            raise InputError(f"release {metres_text(release)} m outside the base edge puts the ball beyond the string's "
                             f"reach; allowed: from {hand} m to less than "
                             f"{self.ball.string_length - self.table.base_radius:.3f} m", key="release")
        start = self.snapshot()
        res = self._run_pass(aim_rad, release, noise, record, remove_penalties, judge_gaps)
        if res.invalid and self.preset != "reference":
            # Re-run the same pass from the same state at the reference preset (docs/sun-physics.md).
            with SunTable(self.layout.with_preset("reference"), start.stones, start.next_id) as ref:
                res2 = ref._run_pass(aim_rad, release, noise, None, remove_penalties, judge_gaps)
                res2.invalid = True
                res2.rerun_at_reference = True
                self._states = dict(ref._states)
                self._next_id = ref._next_id
                self._dirty = True
                res = res2
        res.wall_s = time.perf_counter() - t0
        return res

    def _run_pass(self, aim_rad: float, release: float, noise: ThrowNoise, record: PoseRecorder | None,
                  remove_penalties: bool, judge_gaps: bool = True) -> TablePass:
        t, ball = self.table, self.ball
        start_states = dict(self._states)
        # the ring of the start poses, for the through-gap verdicts only (the rules' adapter judges
        # the crossings itself: about 0.6 ms a pass it need not pay)
        start_pos = self.positions() if judge_gaps else []
        start_gaps = self.gaps(start_pos) if judge_gaps else None
        a = aim_rad + math.radians(noise.aim)
        rho0 = t.base_radius + release + noise.release
        # A hand never lets go over the base: a release error that large is clamped to one ball
        # diameter outside the edge (and the string must stay slanted).
        rho = max(t.base_radius + ball.diameter, min(rho0, 0.95 * ball.string_length))
        # The active set: the stones on the ball's line, grown by contact (world.load_active).
        seed: set[int] | None = self._pass_seed(a)
        while True:
            active = self.load_active(seed)
            self._touched = set()
            res = self._swing(aim_rad, release, noise, None, a, rho)
            if not self._touched:
                break
            seed = set(active or ()) | self.neighbours(self._touched)
        if record is not None:
            # the same run again, recorded: recording reads between steps and changes nothing
            self.load_active(set(active) if active is not None else None)
            res = self._swing(aim_rad, release, noise, record, a, rho)
        R = t.ring_radius
        if res.invalid:
            self._dirty = True
            return res

        # Judge and read back.
        new_states, penalties, bad = self._read_and_judge(start_states)
        if bad:
            res.invalid = True
            self._dirty = True
            return res
        if record is not None:
            for pen in penalties:
                record.event(res.sim_time_s, "penalty", stone=pen.stone, cause=pen.cause)
        res.penalties = penalties
        if remove_penalties:
            for pen in penalties:
                new_states.pop(pen.stone, None)
        self._states = fix_supports(new_states, self.shapes)
        self._dirty = True
        res.final = list(self._states.values())

        if start_gaps is None:
            return res
        inbound = [x for x in res.crossings if x.inbound]
        outbound = [x for x in res.crossings if not x.inbound]
        aim_gap = start_gaps.gap_of_angle(wrap_angle(aim_rad))
        opp_gap = start_gaps.gap_of_angle(wrap_angle(aim_rad + math.pi))
        # "Through" means the centre crossed the opening at least a ball radius from either side, so
        # a ball forcing its way through a gap narrower than itself does not count.
        margin = ball.radius / R
        res.through_aim_gap = bool(inbound) and (not start_pos or inside_opening(start_gaps, aim_gap, inbound[0].angle, margin))
        res.through_opposite_gap = bool(outbound) and (not start_pos or inside_opening(start_gaps, opp_gap, outbound[0].angle, margin))
        return res

    def _pass_seed(self, a: float) -> set[int]:
        """The stones a pass at azimuth ``a`` (rad, noise included) is aimed into: those whose
        footprint's bounding circle (centre and half-diagonal) comes within a ball radius of the
        ball's line through the centre. Not the stones beside it: one loaded dynamic and never
        touched is woken all the same (Bullet joins the ball's island to every body whose bounding
        box the ball's overlaps) and settles anew by micrometres, and the rules then build their
        ring again (docs/sun-physics.md, "The world"). A stone the push's drift brings the ball to
        is found by contact and joins on a rerun."""
        ca, sa = math.cos(a), math.sin(a)
        r = self.ball.radius
        out = set()
        for sid, s in self._states.items():
            shp = self.shapes[s.shape]
            if abs(s.pos[0] * sa - s.pos[1] * ca) <= r + 0.5 * math.hypot(shp.width, shp.depth):
                out.add(sid)
        return out

    def _swing(self, aim_rad: float, release: float, noise: ThrowNoise, record: PoseRecorder | None,
               a: float, rho: float) -> TablePass:
        """Release, swing to the catch and settle on the loaded world (steps, crossings, catch);
        cut short with ``_touched`` filled when a moving body touches a static stone."""
        c = self._cid
        ph, t, ball = self.physics, self.table, self.ball
        res = TablePass(aim_rad, release, noise, preset=self.preset)
        body = self.spawn_ball(a, rho, (noise.push_x, noise.push_y))
        dirx, diry = -math.cos(a), -math.sin(a)  # the swing direction, through the centre
        m, g = ball.mass, ph.gravity
        pos0 = p.getLinkState(body, 0, computeLinkVelocity=1, physicsClientId=c)
        e0 = 0.5 * m * sum(v * v for v in pos0[6]) + m * g * pos0[0][2]
        e_low = m * g * (ball.pivot_z - ball.string_length)
        e_tol = ph.energy_tolerance * max(e0 - e_low, 1e-6) + 1e-7

        hz = ph.hz
        chunk = max(1, hz // 30)  # read the ball about every 1/30 s: the hot loop is stepSimulation
        frame_every = 0
        if record is not None:
            # Recording reads frames between the checks, never changes when the checks happen:
            # a recorded pass is the same pass as an unrecorded one (a study's game and its replay).
            frame_every = max(1, round(hz / record.rate_hz))
            record_setup(record, preset=self.preset, dt=ph.dt, table=t, ball=ball,
                         stones=[(sid, s.shape) for sid, s in self._states.items()], shapes=self.shapes)
            record_frame(record, 0.0, c, self._bodies, body)
            record.event(0.0, "release", aim_deg=math.degrees(a), horizontal_m=rho)
        max_steps = int(ph.max_swing_s * hz)
        min_steps = int(0.1 * hz)
        R = t.ring_radius
        # beyond this distance from the axis (m) the ball clears the base's edge and everything on it
        gone_r = t.base_radius + ball.radius + ph.contact_threshold
        px, py = pos0[0][0], pos0[0][1]
        prev_r = math.hypot(px, py)
        step = p.stepSimulation
        get = p.getLinkState
        contacts = p.getContactPoints
        any_body, any_link = ANY_BODY, ANY_LINK
        static_ids = self._static_ids
        watch = bool(static_ids)
        awake = False  # a dynamic stone touched by the ball: the frontier is watched from then on
        frontier = self.frontier_touched
        steps = 0
        invalid = False
        vx = vy = 0.0
        z = pos0[0][2]
        clock = time.perf_counter
        # the ball moves at most about 30 mm in a chunk: further out than this, nothing asleep can
        # be touched before the next chunk, and the chunk is stepped without the per-step watch
        far_r = gone_r + 0.04
        # In flight (until the ball first comes within far_r): nothing on the table can be touched
        # and, stones loaded asleep (the fast preset), nothing else moves, so the ball flies in a
        # world of its own (TableWorld.flight_world), where a step costs about half as much; it
        # lands in the table's world, its joint state handed over, before it can touch anything.
        flying = self.fly_apart and ph.sleeping and prev_r >= far_r
        cur_c, cur_b = self.flight_world() if flying else (c, body)
        while True:
            if flying:
                t_step = clock()
                if frame_every:
                    for k in range(1, chunk + 1):
                        step(cur_c)
                        if (steps + k) % frame_every == 0:
                            record_frame(record, (steps + k) / hz, c, self._bodies, cur_b, ball_client=cur_c)
                else:
                    for _ in range(chunk):
                        step(cur_c)
                add_stepping_wall_s(clock() - t_step)
            elif watch and (awake or prev_r < far_r):
                spent = 0.0
                for k in range(1, chunk + 1):
                    t_step = clock()
                    step(c)
                    spent += clock() - t_step
                    for pt in contacts(body, any_body, any_link, any_link, c):
                        if pt[2] in static_ids:
                            self._touched.add(static_ids[pt[2]])
                        else:
                            awake = True
                    if awake:
                        frontier()
                    if frame_every and (steps + k) % frame_every == 0:
                        record_frame(record, (steps + k) / hz, c, self._bodies, body)
                add_stepping_wall_s(spent)
                if awake:  # the frontier was asked after the last step: the rest of the statics now
                    self.beyond_frontier_touched()
                if self._touched:
                    res.steps = steps + chunk
                    self.remove_ball()
                    return res
            elif frame_every:
                for k in range(1, chunk + 1):
                    t_step = clock()
                    step(c)
                    add_stepping_wall_s(clock() - t_step)
                    if (steps + k) % frame_every == 0:
                        record_frame(record, (steps + k) / hz, c, self._bodies, body)
            else:
                t_step = clock()
                for _ in range(chunk):
                    step(c)
                add_stepping_wall_s(clock() - t_step)
            steps += chunk
            s = get(cur_b, 0, 1, 0, cur_c)  # link 0 with its velocity (positional: a call per chunk)
            (x, y, z), (vx, vy, vz) = s[0], s[6]
            e = 0.5 * m * (vx * vx + vy * vy + vz * vz) + m * g * z
            if not (math.isfinite(e) and math.isfinite(x) and math.isfinite(y)) or e > e0 + e_tol:
                invalid = True
                break
            r = math.hypot(x, y)
            if (r - R) * (prev_r - R) < 0.0:
                f = (prev_r - R) / (prev_r - r)
                cx, cy = px + f * (x - px), py + f * (y - py)
                res.crossings.append(Crossing(wrap_angle(math.atan2(cy, cx)), r < prev_r, (steps - chunk * (1 - f)) / hz))
            px, py, prev_r = x, y, r
            if flying and r < far_r:
                self.land_flight()
                flying, cur_c, cur_b = False, c, body
            if steps >= min_steps and vx * dirx + vy * diry <= 0.0:
                break
            if r > gone_r and x * dirx + y * diry > 0.0 and x * vx + y * vy > 0.0:
                # Off the base on the far side and moving away: nothing on the table can meet the
                # ball again before it turns back, so it is caught here (the stones settle on).
                break
            if steps >= max_steps:
                break
        res.swing_steps = steps
        res.catch_pos = (px, py, z)
        res.reached_far_side = (not invalid and px * dirx + py * diry > 0.0 and prev_r > t.base_radius)
        self.remove_ball()
        if record is not None:
            record.event(steps / hz, "catch", pos=[px, py, z])
        if not invalid:
            settle_steps, settled = self._settle(record, steps, awake=awake)
            steps += settle_steps
            res.settled = settled
        res.steps = steps
        res.sim_time_s = steps / hz
        res.invalid = invalid
        return res

    def settle(self, max_s: float | None = None) -> tuple[int, bool]:
        """Let the table settle (no ball) and read the poses back, without judging.

        Returns:
            (steps, settled).
        """
        self.ensure_world()
        if max_s is not None:
            saved = self.physics
            self.physics = replace(saved, settle_time_limit_s=max_s)
        try:
            n, ok = self._settle(None, 0)
        finally:
            if max_s is not None:
                self.physics = saved
        for sid, b in self._bodies.items():
            pos, quat = p.getBasePositionAndOrientation(b, physicsClientId=self._cid)
            self._states[sid] = replace(self._states[sid], pose=(*pos, *quat))
        self._dirty = True
        return n, ok

    def shake(self, vx: float, vy: float, remove_penalties: bool = True) -> tuple[list[Penalty], bool]:
        """Jerk the base: every stone gets horizontal velocity (vx, vy) relative to the base at once
        (a base jerked by (-vx, -vy), seen from the base), then the table settles and is judged.

        Returns:
            (penalties, settled). The state is updated like after a pass.
        """
        self.ensure_world()
        before = dict(self._states)
        self.wake_all()
        for b in self._bodies.values():
            p.resetBaseVelocity(b, [vx, vy, 0.0], [0.0, 0.0, 0.0], physicsClientId=self._cid)
        _, settled = self._settle(None, 0)
        new_states, penalties, bad = self._read_and_judge(before)
        if bad:
            raise RuntimeError("non-finite state after a shake")
        if remove_penalties:
            for pen in penalties:
                new_states.pop(pen.stone, None)
        self._states = fix_supports(new_states, self.shapes)
        self._dirty = True
        return penalties, settled

    # ---- judging ------------------------------------------------------------------------

    def _read_and_judge(self, before: dict[int, Stone]
                        ) -> tuple[dict[int, Stone], list[Penalty], bool]:
        """Read every stone's pose; judge each against ``before``. Returns (states, penalties, non-finite)."""
        c = self._cid
        now: dict[int, Stone] = {}
        get, finite = p.getBasePositionAndOrientation, math.isfinite
        static = self._static_ids
        for sid, b in self._bodies.items():
            s = self._states[sid]
            if b in static:  # loaded static: it has not moved
                now[sid] = s
                continue
            pos, quat = get(b, physicsClientId=c)  # tuples already
            if not all(map(finite, pos + quat)):
                return {}, [], True
            now[sid] = Stone(s.id, s.shape, s.role, s.on, pos + quat)
        penalties = []
        for sid, st in now.items():
            cause = judge(st, before.get(sid, st), now, self._states, self.shapes, self.table)
            if cause is not None:
                penalties.append(Penalty(sid, st.shape, cause))
        return now, penalties, False

    # ---- placement ------------------------------------------------------------------------

    def place_stone(self, shape: str, angle_rad: float, level: int = 1, noise: PlaceNoise = ZERO_PLACE) -> TablePlacement:
        """Stand a new stone on the base (level 1) or stack it on the position at ``angle_rad`` (level 2).

        Raises:
            InputError: unknown shape or level, or no position at that angle to stack on.
        """
        if level == 1:
            return self.stand_stone(shape, angle_rad, noise)
        if level == 2:
            pos = self.positions()
            best = min(pos, key=lambda q: abs((q.angle - angle_rad + math.pi) % TAU - math.pi), default=None)
            if best is None or abs((best.angle - angle_rad + math.pi) % TAU - math.pi) > math.radians(3.0):
                raise InputError(f"no standing stone at {math.degrees(angle_rad):.1f} degrees to stack on", key="angle")
            return self.stack_stone(shape, best.ids[0], noise)
        raise InputError(f"level must be 1 or 2, not {level!r}", key="level")

    def stand_stone(self, shape: str, angle_rad: float, noise: PlaceNoise = ZERO_PLACE,
                    stone_id: int | None = None) -> TablePlacement:
        """Stand a new stone on the base with its centre on the ring at ``angle_rad``, plus noise.

        ``stone_id`` gives the new stone a chosen id (the rules layer's); default the next free id.

        Raises:
            InputError: unknown shape, or ``stone_id`` already on the table.
        """
        shp = self._shape(shape)
        R = self.table.ring_radius
        along, across = noise.along, noise.across
        ca, sa = math.cos(angle_rad), math.sin(angle_rad)
        pos = ((R + across) * ca - along * sa, (R + across) * sa + along * ca, 0.5 * shp.height + PLACE_DROP_M)
        st = Stone(self._new_id(stone_id), shape, "stand", (), (*pos, *quat_yaw(angle_rad + noise.yaw_rad)))
        return self._place(st)

    def stack_stone(self, shape: str, on: int, noise: PlaceNoise = ZERO_PLACE,
                    stone_id: int | None = None) -> TablePlacement:
        """Stack a new stone on the standing stone ``on`` (which must carry nothing), plus noise.

        Raises:
            InputError: unknown shape, no such stone, the stone is not a free standing stone, or
                ``stone_id`` already on the table.
        """
        shp = self._shape(shape)
        sup = self._states.get(on)
        if sup is None or sup.role != "stand" or self.top_of(on) != on:
            raise InputError(f"stone {on} is not a standing stone with nothing on it", key="on")
        yaw = math.atan2(rotation_matrix(sup.quat)[1, 0], rotation_matrix(sup.quat)[0, 0])
        cy, sy = math.cos(yaw), math.sin(yaw)
        top = top_z(sup, self.shapes)
        pos = (sup.pos[0] + noise.across * cy - noise.along * sy, sup.pos[1] + noise.across * sy + noise.along * cy,
               top + 0.5 * shp.height + PLACE_DROP_M)
        st = Stone(self._new_id(stone_id), shape, "stack", (on,), (*pos, *quat_yaw(yaw + noise.yaw_rad)))
        return self._place(st)

    def make_gate(self, between: tuple[int, int], stone: int | None = None, shape: str | None = None,
                  noise: PlaceNoise = ZERO_PLACE, stone_id: int | None = None) -> TablePlacement:
        """Lay a stone across the tops of two positions (the gate's ``on``: their bottom stones).

        Args:
            between: two stone ids, each the level-1 stone or the top of a position.
            stone: an existing free standing stone (or stack top) to take and lay across (the rules'
                way); or ``None`` with ``shape`` to add a new stone (building layouts).
            shape: the new stone's shape when ``stone`` is ``None``.
            noise: placement errors: along the gate, across it, yaw.
            stone_id: id for a new stone (with ``shape``); default the next free id.

        Raises:
            InputError: bad ids, supports not distinct, or neither/both of ``stone`` and ``shape``.
        """
        a, b = between
        if a not in self._states or b not in self._states:
            raise InputError(f"no stones {a} and {b} on the table", key="between")
        if self._states[a].role == "gate" or self._states[b].role == "gate":
            raise InputError(f"a gate rests on two positions, not on the gate {a if self._states[a].role == 'gate' else b}",
                             key="between")
        bottoms = (self._bottom(a), self._bottom(b))
        sup = (self.top_of(bottoms[0]), self.top_of(bottoms[1]))  # the stones it is laid on
        if sup[0] == sup[1]:
            raise InputError("a gate needs two different supports", key="between")
        if (stone is None) == (shape is None):
            raise InputError("give either an existing stone or a shape for the gate", key="stone")
        if stone is not None:
            st0 = self._states.get(stone)
            if st0 is None or st0.role == "gate" or self.top_of(stone) != stone or stone in sup:
                raise InputError(f"stone {stone} cannot be taken for a gate (not a free standing stone or stack top)",
                                 key="stone")
            shape = st0.shape
            self.remove_stone(stone)
            sid = stone
        else:
            assert shape is not None  # exactly one of stone and shape was given (checked above)
            self._shape(shape)  # validates
            sid = self._new_id(stone_id)
        assert shape is not None
        pos, quat = self._gate_pose(shape, sup, noise, drop=PLACE_DROP_M)
        return self._place(Stone(sid, shape, "gate", bottoms, (*pos, *quat)))

    def _stands_as_put(self, placed: Stone, t0: float) -> TablePlacement:
        """The placement of a stone upright on the base with nothing within contact reach: it
        stands where it was put and disturbs nothing (``PhysicsSpec.settle_lone_stands``)."""
        self._next_id = max(self._next_id, placed.id + 1)
        self._states[placed.id] = placed
        self._states = {sid: self._states[sid] for sid in sorted(self._states)}  # by id, as a settle leaves them
        self._dirty = True
        return TablePlacement(placed.id, True, state=placed, wall_s=time.perf_counter() - t0)

    def _on_the_base(self, st: Stone) -> bool:
        """Whether ``st`` stands upright on the base with its whole footprint on the disc."""
        if st.role != "stand" or abs(st.quat[0]) > 1e-12 or abs(st.quat[1]) > 1e-12:
            return False
        return math.hypot(st.pos[0], st.pos[1]) + horizontal_extent(self.shapes[st.shape], st.quat) <= self.table.base_radius

    def _bottom(self, stone_id: int) -> int:
        """The bottom stone of the position ``stone_id`` stands in (itself, or what it is stacked on)."""
        s = self._states[stone_id]
        return s.on[0] if s.role == "stack" else stone_id

    def _new_id(self, stone_id: int | None) -> int:
        if stone_id is None:
            return self._next_id
        if stone_id in self._states or stone_id < 0:
            raise InputError(f"stone id {stone_id} is already on the table (or negative)", key="stone_id")
        return stone_id

    def _gate_pose(self, shape: str, sup: tuple[int, int], noise: PlaceNoise, drop: float
                   ) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
        return gate_pose(self.shapes[shape], self._states[sup[0]], self._states[sup[1]], self.shapes,
                         noise.along, noise.across, noise.yaw_rad, drop)

    def _shape(self, shape: str) -> ShapeSpec:
        try:
            return self.shapes[shape]
        except KeyError:
            raise InputError(f"unknown shape {shape!r}", key="shape") from None

    def _place(self, st: Stone) -> TablePlacement:
        """Add ``st`` to the world, settle, judge it and the others; keep it only if it stands.

        The active set (sim/sun/table/world.py) is the placed stone and what it rests on, grown by
        contact like a pass's. At the fast preset a stone stood on the base alone in its active set
        (nothing within contact reach) is not settled: it stands as put (:meth:`_stands_as_put`),
        decided without loading the world when the stones' horizontal extents already keep every
        other stone out of reach."""
        t0 = time.perf_counter()
        before = dict(self._states)
        self._states[st.id] = st
        placed = replace(st, pose=(st.pose[0], st.pose[1], st.pose[2] - PLACE_DROP_M, *st.pose[3:]))
        lone_stand = not self.physics.settle_lone_stands and self._on_the_base(placed)
        if lone_stand and self.clear_of_others(st.id):  # alone, without a load (the same verdict)
            return self._stands_as_put(placed, t0)
        seed: set[int] | None = {st.id}
        active = self.load_active(seed)
        c = self._cid
        body = self._bodies[st.id]
        # Bullet is asked only about the stones whose bounding spheres (centre and half-diagonal,
        # with a margin) meet the new stone's: two boxes further apart cannot intersect, so the
        # answer is the same and most of the ring costs no query
        reach = half_diagonal(self.shapes[st.shape]) + REACH_SLACK_M
        for sid, other in self._bodies.items():
            if sid == st.id:
                continue
            o = self._states[sid]
            if math.dist(o.pos, st.pos) > reach + half_diagonal(self.shapes[o.shape]):
                continue
            if any(cp[8] < -1e-4 for cp in p.getClosestPoints(body, other, 0.0, physicsClientId=c)):
                self._states = before
                self._dirty = True
                return TablePlacement(st.id, False, "blocked", wall_s=time.perf_counter() - t0)
        if lone_stand and (active == {st.id} or (active is None and len(self._states) == 1)):
            return self._stands_as_put(placed, t0)  # loaded alone: nothing within contact reach
        self._next_id = max(self._next_id, st.id + 1)
        while True:
            # the placed stone starts awake (the others asleep at the fast preset)
            p.changeDynamics(self._bodies[st.id], -1, activationState=p.ACTIVATION_STATE_WAKE_UP, physicsClientId=c)
            self._touched = set()
            steps, _ = self._settle(None, 0)
            if not self._touched:
                break
            active = self.load_active(set(active or ()) | self.neighbours(self._touched))
        before[st.id] = placed
        new_states, penalties, bad = self._read_and_judge(before)
        res = TablePlacement(st.id, True, steps=steps, sim_time_s=steps / self.physics.hz)
        if bad:
            new_states = {k: v for k, v in before.items() if k != st.id}
            res.standing, res.cause = False, "invalid"
        own = [x for x in penalties if x.stone == st.id]
        if own:
            res.standing, res.cause = False, own[0].cause
        res.disturbed = [x for x in penalties if x.stone != st.id]
        for x in penalties:
            new_states.pop(x.stone, None)
        self._states = fix_supports(new_states, self.shapes)
        self._dirty = True
        res.state = self._states.get(st.id)
        res.wall_s = time.perf_counter() - t0
        return res

