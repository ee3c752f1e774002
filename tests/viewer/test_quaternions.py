"""The viewer's quaternion helpers against rotations worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.viewer.quaternions import quat_mul, quat_rotate, quat_xyzw_to_wxyz, quat_z_to


def _about_z(angle: float) -> np.ndarray:
    return np.array([0.0, 0.0, math.sin(angle / 2), math.cos(angle / 2)])


def test_rotate_quarter_turn_about_z_takes_x_to_y() -> None:
    assert quat_rotate(_about_z(math.pi / 2), (1.0, 0.0, 0.0)) == pytest.approx([0.0, 1.0, 0.0], abs=1e-12)


def test_product_of_two_quarter_turns_is_a_half_turn() -> None:
    q = quat_mul(_about_z(math.pi / 2), _about_z(math.pi / 2))
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
