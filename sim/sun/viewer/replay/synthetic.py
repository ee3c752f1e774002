"""A replay made without physics, for unit tests and demos (:func:`synthetic_replay`)."""

from __future__ import annotations

import math

import numpy as np

from sim.core.quaternions import quat_multiply, quat_rotate, quat_yaw
from sim.sun.viewer.replay.convert import concat_replays
from sim.sun.viewer.replay.records import BALL_COLOUR, SHAPE_COLOURS, DrawnBody, Replay, TurnEvent

def synthetic_replay(n_stones: int = 8, seconds: float = 3.0, fps: float = 30.0, turns: int = 1,
                     ring_radius: float = 0.13, string_m: float = 2.0) -> Replay:
    """A small replay made without physics: a ring of blocks, a pendulum swinging through a gap.

    In each turn the ball swings across the table; the first stone of the ring topples over in the
    first turn and is gone in the next ones (a penalty). For unit tests and demos only.
    """
    he = (0.0075, 0.015, 0.025)
    bodies = [DrawnBody(f"stone:{i}", "stone", (2 * he[0], 2 * he[1], 2 * he[2]), SHAPE_COLOURS["block"], "block", i)
              for i in range(n_stones)]
    bodies.append(DrawnBody("ball", "ball", (0.035,) * 3, BALL_COLOUR, "ball", None))
    pivot = np.array([0.0, 0.0, string_m + 0.0275])
    nper = max(2, int(round(seconds * fps)))
    parts = []
    for k in range(turns):
        t = np.arange(nper) / fps
        pos = np.full((nper, len(bodies), 3), np.nan)
        quat = np.zeros((nper, len(bodies), 4))
        quat[..., 3] = 1.0
        for i in range(n_stones):
            a = 2 * math.pi * (i + 0.5) / n_stones
            if i == 0 and k > 0:
                continue
            pos[:, i] = [ring_radius * math.cos(a), ring_radius * math.sin(a), he[2]]
            yaw = a
            quat[:, i] = quat_yaw(yaw)
            if i == 0 and k == 0:
                # topple outward about the outer bottom edge over the second half of the pass
                tilt = np.clip((t - seconds / 2) / (seconds / 4), 0, 1) * (math.pi / 2)
                for j, th in enumerate(tilt):
                    ax = np.array([-math.sin(a), math.cos(a), 0.0])  # tangent: tipping outward
                    q = np.r_[ax * math.sin(th / 2), math.cos(th / 2)]
                    quat[j, i] = quat_multiply(q, quat_yaw(yaw))
                    edge = np.array([(ring_radius + he[0]) * math.cos(a), (ring_radius + he[0]) * math.sin(a), 0])
                    rel = np.array([-he[0] * math.cos(a), -he[0] * math.sin(a), he[2]])
                    pos[j, i] = edge + quat_rotate(q, rel)
        aim = 2 * math.pi * k / max(turns, 1)
        amp = 0.35
        phase = np.cos(math.pi * t / seconds)  # from +amp to -amp over the pass
        x = amp * phase * math.cos(aim)
        y = amp * phase * math.sin(aim)
        z = pivot[2] - np.sqrt(string_m ** 2 - (amp * phase) ** 2)
        pos[:, -1] = np.stack([x, y, z], axis=1)
        turn = TurnEvent(0, (0, nper), seat=k % 2, player="synthetic", aim_deg=math.degrees(aim), release_m=0.2,
                         placements=[{"action": "stand", "shape": "block", "stone": n_stones - 1,
                                      "angle_deg": 360.0 * (n_stones - 0.5) / n_stones}],
                         penalties=[{"stone": 0, "shape": "block", "cause": "toppled"}] if k == 0 else [])
        parts.append(Replay(bodies, t.astype(np.float32), pos.astype(np.float32), quat.astype(np.float32), [turn],
                            {"base_radius": 0.15, "base_thickness": 0.02, "pivot": pivot.tolist(),
                             "ball_radius": 0.0175}, {"synthetic": True}))
    return concat_replays(parts) if turns > 1 else parts[0]
