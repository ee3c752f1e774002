"""The ball's free approach (sim/sun/table/free_swing.py): the exact pendulum against closed-form
mechanics and against Bullet stepping the same approach, and the hand-over to Bullet."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pybullet as p
import pytest
from scipy.special import ellipk

from sim.sun.players.thrower import ThrowNoise
from sim.sun.table.free_swing import FreeApproach, FreeSwing
from sim.sun.table.layout import load_layout, parse_layout
from sim.sun.table.sun_table import SunTable

LAYOUTS = Path(__file__).resolve().parents[2] / "scenarios" / "sun" / "layouts"


def _swing_of(t: SunTable) -> FreeSwing:
    info = p.getDynamicsInfo(t._ball_body, 0, physicsClientId=t.client)
    b = t.ball
    return FreeSwing((0.0, 0.0, b.pivot_z), b.string_length, info[0], info[2][0], t.physics.gravity)


def _released(t: SunTable, aim: float, rho: float, push: tuple[float, float]) -> tuple[int, tuple]:
    body = t.spawn_ball(aim, rho, push)
    js = p.getJointStateMultiDof(body, 0, physicsClientId=t.client)
    return body, FreeSwing.from_joint(js[0], js[1])


@pytest.mark.parametrize("length,amp", [(2.0, 10.08), (1.0, 30.0)])
def test_free_swing_period_and_energy_match_closed_form(length: float, amp: float) -> None:
    # Released from rest, the exact equations are a planar pendulum with gravity scaled by
    # m L^2 / (I_c + m L^2): period 4 sqrt(L / g') K(sin^2(amp / 2)). Integrated with the pass's
    # own step (hz/30 Bullet steps), the period must be right to 2e-5 (the crossings are interpolated
    # linearly) and the energy constant to 1e-5 of the swing's (Bullet's wobble: 1e-2).
    lay = parse_layout({"ball": {"string_length": length}})
    with SunTable.from_layout(lay) as t:
        t.ensure_world()
        sw = _swing_of(t)
        _, s = _released(t, 0.3, length * math.sin(math.radians(amp)), (0.0, 0.0))
        h = (t.physics.hz // 30) / t.physics.hz
        g_eff = sw.k * length * length
        assert g_eff == pytest.approx(t.physics.gravity / (1 + 0.4 * (t.ball.radius / length) ** 2), rel=1e-12)
        expected = 4 * math.sqrt(length / g_eff) * ellipk(math.sin(math.radians(amp) / 2) ** 2)
        # the energy conserved: the body's about the pivot, 1/2 (I_c + m L^2) w^2 + m g z (the pass's
        # check counts the centre's 1/2 m v^2, 3e-5 of it less at these sizes)
        inertia = sw.mass * sw.gravity / sw.k

        def energy(s: tuple) -> float:
            return 0.5 * inertia * sum(w * w for w in s[4:]) + sw.mass * sw.gravity * sw.centre(s)[0][2]

        e0 = energy(s)
        e_low = sw.mass * sw.gravity * (sw.pivot[2] - length)
        d_prev, times, energies = None, [], []
        for i in range(1, int(3.2 * expected / h)):
            s = sw.advance(s, h)
            (x, y, _), _v = sw.centre(s)
            d = x * math.cos(0.3) + y * math.sin(0.3)
            if d_prev is not None and d_prev * d < 0:
                times.append((i - 1) * h + h * d_prev / (d_prev - d))
            d_prev = d
            energies.append(energy(s))
            across = -x * math.sin(0.3) + y * math.cos(0.3)
            assert abs(across) < 1e-12
        # the crossings are interpolated linearly over 33 ms: average over many half periods
        measured = (times[-1] - times[0]) / ((len(times) - 1) / 2)
        assert abs(measured / expected - 1) < 2e-5, (measured, expected)
        assert max(abs(e - e0) for e in energies) / (e0 - e_low) < 1e-5


def test_free_swing_converges_with_its_step() -> None:
    # One step per chunk against 16: the approach's error is far below a micrometre.
    lay = load_layout(LAYOUTS / "empty.toml")
    with SunTable.from_layout(lay) as t:
        t.ensure_world()
        sw = _swing_of(t)
        _, s0 = _released(t, 1.0, 0.35, (0.03, -0.02))
        h = (t.physics.hz // 30) / t.physics.hz
        a, b = s0, s0
        for _ in range(15):
            a = sw.advance(a, h)
            for _ in range(16):
                b = sw.advance(b, h / 16)
        assert np.linalg.norm(np.subtract(sw.centre(a)[0], sw.centre(b)[0])) < 1e-7
        assert np.linalg.norm(np.subtract(sw.centre(a)[1], sw.centre(b)[1])) < 1e-6


@pytest.mark.parametrize("preset", ["fast", "reference"])
def test_free_swing_against_bullet_stepping_the_same_approach(preset: str) -> None:
    # Bullet's multibody integrator is semi-implicit Euler: its velocity follows the exact one to
    # O(dt), its position lags the exact one by about v dt / 2 (half a step of travel: 1.4 mm at
    # 240 Hz after 0.5 s, 0.35 mm at 1 kHz). So the exact state handed over must lie within
    # 0.6 v dt of Bullet's position and within the first-order velocity error, and both differences
    # shrink with dt (the fast preset's against the reference's): they are Bullet's error, not ours.
    lay = load_layout(LAYOUTS / "empty.toml", preset)
    with SunTable.from_layout(lay) as t:
        t.ensure_world()
        sw = _swing_of(t)
        body, s = _released(t, 0.7, 0.35, (0.03, -0.02))
        hz = t.physics.hz
        chunk = hz // 30
        for _ in range(15):  # 0.5 s: the free approach of a pass on full-32 is 10-14 chunks
            s = sw.advance(s, chunk / hz)
            for _ in range(chunk):
                p.stepSimulation(physicsClientId=t.client)
        xb, vb = t.ball_state()
        (xe, ve) = (np.array(v) for v in sw.centre(s))
        dt, speed = 1.0 / hz, float(np.linalg.norm(ve))
        lag = xb - xe
        assert np.linalg.norm(lag) < 0.6 * speed * dt, (lag, speed * dt)
        # the lag is along the motion: Bullet's ball is where the exact one was half a step before
        half = np.array(sw.centre(sw.advance(s, -0.5 * dt))[0])
        assert np.linalg.norm(xb - half) < 0.1 * speed * dt
        assert np.linalg.norm(vb - ve) < 0.25 * 9.81 * dt  # a fraction of one step's velocity change
        js = p.getJointStateMultiDof(body, 0, physicsClientId=t.client)
        # the joint's own state: the string stays at length L and the spin about it at 0
        sb = FreeSwing.from_joint(js[0], js[1])
        assert abs(np.dot(sb[4:], np.subtract(sw.centre(sb)[0], sw.pivot))) < 1e-9


def test_a_handover_of_bullets_own_state_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # Skipping Bullet's free steps is exact: handing Bullet the joint state it would have reached
    # itself (read from a twin table stepping the same approach, set bit for bit) gives a pass
    # identical bit for bit to the pass Bullet stepped throughout, hits, reruns and all. The free
    # approach differs from that only by the integrator (the test above).
    raw: dict[tuple, tuple[list[float], list[float]]] = {}
    to_joint = FreeSwing.to_joint
    monkeypatch.setattr(FreeSwing, "to_joint", staticmethod(lambda s: raw.get(s) or to_joint(s)))
    lay = load_layout(LAYOUTS / "full-32.toml", "fast")
    with SunTable.from_layout(lay) as t, SunTable.from_layout(lay) as twin:
        snap = t.snapshot()
        for aim_deg, push in ((0.0, (0.0, 0.0)), (30.0, (0.01, -0.02)), (97.0, (-0.02, 0.0))):
            aim = math.radians(aim_deg)
            noise = ThrowNoise(push_x=push[0], push_y=push[1])
            t.restore(snap)
            t.free_approach = False
            ref = t.pass_ball(aim, None, noise)
            # Bullet's own states at the chunks of the real approach
            t.restore(snap)
            t.load_active(t._pass_seed(aim, noise))
            real = t._free_approach()
            twin.restore(snap)
            twin.load_active(None)
            rho = t.table.base_radius + t.table.hand_span
            body, s0 = _released(twin, aim, rho, push)
            real.start(s0)
            n = 1
            while real.state(n) is not None:
                n += 1
            assert n > 5, aim_deg  # the approach is long enough to matter
            chunk = twin.physics.hz // 30
            states = [s0]
            for _ in range(n - 1):
                for _ in range(chunk):
                    p.stepSimulation(physicsClientId=twin.client)
                js = p.getJointStateMultiDof(body, 0, physicsClientId=twin.client)
                states.append(FreeSwing.from_joint(js[0], js[1]))
                raw[states[-1]] = (list(js[0]), list(js[1]))  # the joint's own bits (no round trip)
            twin.remove_ball()
            bullets = FreeApproach(real.swing, real.h, real.boxes_centre, real.boxes_half, real.reach_m)
            bullets.states, bullets.blocked = states, True
            t.restore(snap)
            t.free_approach = True
            t._free_approach = lambda: bullets  # type: ignore[method-assign]
            try:
                got = t.pass_ball(aim, None, noise)
            finally:
                del t._free_approach
            assert (got.steps, got.swing_steps, got.penalties, got.crossings, got.catch_pos) == (
                ref.steps, ref.swing_steps, ref.penalties, ref.crossings, ref.catch_pos), aim_deg
            assert [(s.id, s.pos, s.quat) for s in got.final] == [(s.id, s.pos, s.quat) for s in ref.final]


def test_the_approach_stops_clear_of_every_stone() -> None:
    # Where Bullet takes over, the ball's bounding box (grown by the contact threshold) is clear
    # of every stone's: nothing was paired with it, no island merged, no stone woken meanwhile.
    lay = load_layout(LAYOUTS / "full-32.toml", "fast")
    with SunTable.from_layout(lay) as t:
        for aim_deg in range(0, 360, 15):
            aim = math.radians(aim_deg)
            t.load_active(t._pass_seed(aim, ThrowNoise()))
            ap = t._free_approach()
            _, s0 = _released(t, aim, t.table.base_radius + t.table.hand_span, (0.0, 0.0))
            t.remove_ball()
            ap.start(s0)
            n = 1
            while ap.state(n) is not None:
                n += 1
            assert 8 <= n - 1 <= 16, aim_deg
            (x, y, z), _v = ap.swing.centre(ap.states[-1])
            for sid, b in t._bodies.items():
                lo, hi = p.getAABB(b, physicsClientId=t.client)
                gap = max(max(lo[0] - x, x - hi[0]), max(lo[1] - y, y - hi[1]), max(lo[2] - z, z - hi[2]))
                assert gap > ap.reach_m, (aim_deg, sid, gap)
