"""Sozoikum: how the rules reach the physics of a build.

:class:`HousePhysics` is the protocol the rules call when a seat builds; :class:`PymunkHouse` is
the game's implementation (the 2-D simulation of :func:`sim.sozoikum.house.build_house`) and
:class:`ScriptedHouse` a deterministic test double. ``docs/rules-sozoikum.md`` ("Physics
boundary") describes the contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol, Sequence

from sim.sozoikum import house as _house
from sim.sozoikum.stones import stone_shape


@dataclass(frozen=True)
class BuildVerdict:
    """What the rules learn from a build: whether the house stood, why not (``reason`` as in
    :class:`sim.sozoikum.house.HouseResult`), and the largest stone displacement (cm)."""

    stood: bool
    reason: str
    max_displacement: float


class HousePhysics(Protocol):
    """What the rules need from physics. Implementations must be deterministic: the same stones,
    skill, noise seed and rules give the same verdict."""

    def build(self, seeds: Sequence[int], skill: float, noise_seed: int, rules: Mapping[str, Any]) -> BuildVerdict:
        """Build the house of stones with shape ``seeds`` (roles A1, A2, B1, B2, roof) and judge it."""
        ...


class PymunkHouse:
    """:class:`HousePhysics` by the 2-D simulation of :func:`sim.sozoikum.house.build_house` (the
    game's physics; stateless)."""

    def build(self, seeds: Sequence[int], skill: float, noise_seed: int, rules: Mapping[str, Any]) -> BuildVerdict:
        """See :meth:`HousePhysics.build`."""
        res = build_from_seeds(seeds, skill, noise_seed, rules)
        return BuildVerdict(res.stood, res.reason, res.max_displacement)


class ScriptedHouse:
    """Deterministic test double of :class:`HousePhysics`: build number ``k`` (counted from 0 over
    every state sharing this object, clones included) stands iff ``k`` is in ``stands``; a
    collapse reports the roof moved ``fall_cm``. ``calls`` records every request
    ``(seeds, skill, noise_seed)``."""

    def __init__(self, stands: Sequence[int] = (), fall_cm: float = 5.0) -> None:
        self.stands = set(stands)
        self.fall_cm = fall_cm
        self.calls: list[tuple[tuple[int, ...], float, int]] = []

    def build(self, seeds: Sequence[int], skill: float, noise_seed: int, rules: Mapping[str, Any]) -> BuildVerdict:
        """See :meth:`HousePhysics.build`."""
        k = len(self.calls)
        self.calls.append((tuple(seeds), skill, noise_seed))
        if k in self.stands:
            return BuildVerdict(True, "stands", 0.0)
        return BuildVerdict(False, f"roof moved {self.fall_cm:.2f} cm", self.fall_cm)


def house_params(rules: Mapping[str, Any], hold_time: float = 0.0) -> _house.HouseParams:
    """The physical build settings of a rule set."""
    return _house.HouseParams(
        tolerance=rules["house_tolerance"],
        fall_tilt=rules["house_fall_tilt"],
        ground_margin=rules["house_ground_margin"],
        wall_gap=rules["wall_gap"],
        friction=rules["stone_friction"],
        noise_cm=rules["placement_noise_cm"],
        noise_deg=rules["placement_noise_deg"],
        hold_time=hold_time,
    )


def build_from_seeds(seeds: Sequence[int], skill: float, noise_seed: int, rules: Mapping[str, Any], hold_time: float = 0.0, trace: bool = False) -> _house.HouseResult:
    """Build the house of stones with shape ``seeds`` (roles A1, A2, B1, B2, roof) under ``rules``."""
    lo, hi = rules["stone_size_min"], rules["stone_size_max"]
    return _house.build_house(
        [stone_shape(x, lo, hi) for x in seeds], skill, noise_seed, house_params(rules, hold_time), trace=trace
    )

