"""The quaternion helpers (sim/core/quaternions.py) against rotations worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.core.quaternions import (quat_from_matrix, quat_multiply, quat_rotate, quat_xyzw_to_wxyz, quat_yaw,
                                  quat_z_row, quat_z_to)


def _about_z(angle: float) -> np.ndarray:
    return np.array(quat_yaw(angle))


def test_rotate_quarter_turn_about_z_takes_x_to_y() -> None:
    assert quat_rotate(_about_z(math.pi / 2), (1.0, 0.0, 0.0)) == pytest.approx([0.0, 1.0, 0.0], abs=1e-12)


def test_product_of_two_quarter_turns_is_a_half_turn() -> None:
    q = quat_multiply(_about_z(math.pi / 2), _about_z(math.pi / 2))
    assert q == pytest.approx(_about_z(math.pi), abs=1e-12)
    assert quat_rotate(q, (1.0, 0.0, 0.0)) == pytest.approx([-1.0, 0.0, 0.0], abs=1e-12)


@pytest.mark.parametrize("d", [(1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (0.3, -0.4, 2.0), (0.0, 0.0, -1.0)])
def test_z_to_turns_plus_z_onto_the_direction(d: tuple[float, float, float]) -> None:
    q = quat_z_to(np.array(d))
    assert np.linalg.norm(q) == pytest.approx(1.0)
    want = np.array(d) / np.linalg.norm(d)
    assert quat_rotate(q, (0.0, 0.0, 1.0)) == pytest.approx(want, abs=1e-9)


def test_xyzw_to_wxyz_moves_w_first_for_any_leading_shape() -> None:
    q = np.arange(24, dtype=float).reshape(2, 3, 4)
    out = quat_xyzw_to_wxyz(q)
    assert out.shape == q.shape
    assert out[1, 2].tolist() == [23.0, 20.0, 21.0, 22.0]


def test_yaw_quaternion_is_a_turn_about_z() -> None:
    assert quat_yaw(math.pi / 2) == pytest.approx((0.0, 0.0, math.sqrt(0.5), math.sqrt(0.5)), abs=1e-15)


@pytest.mark.parametrize("q", [(0.0, 0.0, 0.0, 1.0), (0.1, -0.7, 0.2, 0.5), (0.9, 0.1, 0.1, 0.05),
                               (0.05, 0.1, 0.95, 0.1), (0.1, 0.96, 0.1, 0.05)])
def test_matrix_round_trip_and_z_row(q: tuple[float, float, float, float]) -> None:
    """Each branch of ``quat_from_matrix`` (trace, then the largest diagonal) gives back the rotation."""
    u = np.array(q) / np.linalg.norm(q)
    m = np.column_stack([quat_rotate(u, e) for e in np.eye(3)])  # columns: images of the local axes
    back = np.array(quat_from_matrix(m))
    assert abs(float(np.dot(back, u))) == pytest.approx(1.0, abs=1e-12)  # q and -q are the same rotation
    assert quat_z_row(u) == pytest.approx(m[2], abs=1e-12)
