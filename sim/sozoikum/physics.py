"""Sozoikum: the physics boundary, the one way the rules and the agents reach a build's physics.

:class:`HousePhysics` is the protocol the rules call when a seat builds. Its implementations:
:class:`PymunkHouse`, the game's (the 2-D simulation of :func:`sim.sozoikum.house.build_house`);
:class:`QuickHouse`, the search's shortcut (a quality rating and a hashed coin, no simulation);
:class:`ScriptedHouse`, a deterministic test double. :func:`build_from_seeds` is the simulated
build the builder agent and the ``stonelab sozoikum house`` command ask for directly, and
:func:`house_quality` the rating the agents rank houses by. ``docs/rules-sozoikum.md`` ("Physics
boundary") describes the contract.

The house module imports pymunk only when its first world is made, so importing the rules (which
import this module) loads no physics engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from sim.sozoikum import house as _house
from sim.sozoikum.options import SozoikumOptions
from sim.sozoikum.shapes import StoneInfo, stone_info, stone_shape

#: the roles of a house, in the order the rules assign stones to them (and a build takes seeds)
ROLES: tuple[str, ...] = _house.ROLES


@dataclass(frozen=True)
class BuildVerdict:
    """What the rules learn from a build: whether the house stood, why not (``reason`` as in
    :class:`sim.sozoikum.house.HouseResult`), and the largest stone displacement (cm; -1 for
    :class:`QuickHouse`, which moves no stone)."""

    stood: bool
    reason: str
    max_displacement: float


class HousePhysics(Protocol):
    """What the rules need from physics. Implementations must be deterministic: the same stones,
    skill, noise seed and options give the same verdict."""

    def build(self, seeds: Sequence[int], skill: float, noise_seed: int, options: SozoikumOptions) -> BuildVerdict:
        """Build the house of stones with shape ``seeds`` (roles A1, A2, B1, B2, roof) and judge it."""
        ...


class PymunkHouse:
    """:class:`HousePhysics` by the 2-D simulation of :func:`sim.sozoikum.house.build_house` (the
    game's physics; stateless)."""

    def build(self, seeds: Sequence[int], skill: float, noise_seed: int, options: SozoikumOptions) -> BuildVerdict:
        """See :meth:`HousePhysics.build`."""
        res = build_from_seeds(seeds, skill, noise_seed, options)
        return BuildVerdict(res.stood, res.reason, res.max_displacement)


class QuickHouse:
    """:class:`HousePhysics` without physics, for search rollouts, where a pymunk build per rollout
    would be too slow (about 3 ms): the house stands iff ``u < quality * (0.5 + 0.5 * skill)``,
    ``quality`` being :func:`house_quality` and ``u`` in [0, 1) hashed from the noise seed
    (stateless)."""

    def build(self, seeds: Sequence[int], skill: float, noise_seed: int, options: SozoikumOptions) -> BuildVerdict:
        """See :meth:`HousePhysics.build`; the displacement is -1 (no stone moved)."""
        lo, hi = options.stone_size_min, options.stone_size_max
        stood = quick_verdict([stone_info(x, lo, hi) for x in seeds], skill, noise_seed, options.wall_gap)
        return BuildVerdict(stood, "stands" if stood else "quick verdict: falls", -1.0)


class ScriptedHouse:
    """Deterministic test double of :class:`HousePhysics`: build number ``k`` (counted from 0 over
    every state sharing this object, clones included) stands iff ``k`` is in ``stands``; a
    collapse reports the roof moved ``fall_cm``. ``calls`` records every request
    ``(seeds, skill, noise_seed)``."""

    def __init__(self, stands: Sequence[int] = (), fall_cm: float = 5.0) -> None:
        self.stands = set(stands)
        self.fall_cm = fall_cm
        self.calls: list[tuple[tuple[int, ...], float, int]] = []

    def build(self, seeds: Sequence[int], skill: float, noise_seed: int, options: SozoikumOptions) -> BuildVerdict:
        """See :meth:`HousePhysics.build`."""
        k = len(self.calls)
        self.calls.append((tuple(seeds), skill, noise_seed))
        if k in self.stands:
            return BuildVerdict(True, "stands", 0.0)
        return BuildVerdict(False, f"roof moved {self.fall_cm:.2f} cm", self.fall_cm)


#: the game's physics, shared: both implementations are stateless
PYMUNK_HOUSE = PymunkHouse()
#: the search's shortcut, shared
QUICK_HOUSE = QuickHouse()


def house_params(options: SozoikumOptions, hold_time: float = 0.0) -> _house.HouseParams:
    """The physical build settings of a rule set (``hold_time`` s of further simulation)."""
    return _house.HouseParams(
        tolerance=options.house_tolerance,
        fall_tilt=options.house_fall_tilt,
        ground_margin=options.house_ground_margin,
        wall_gap=options.wall_gap,
        friction=options.stone_friction,
        noise_cm=options.placement_noise_cm,
        noise_deg=options.placement_noise_deg,
        hold_time=hold_time,
    )


def build_from_seeds(seeds: Sequence[int], skill: float, noise_seed: int, options: SozoikumOptions,
                     hold_time: float = 0.0, trace: bool = False, stop_on_fall: bool = True) -> _house.HouseResult:
    """Build the house of stones with shape ``seeds`` (roles A1, A2, B1, B2, roof) under ``options``
    in the pymunk simulation: as in a game, or with ``trace`` (keep every step's poses) and
    ``stop_on_fall=False`` (simulate the whole fall) for a drawing.

    Raises:
        ValueError: not five seeds, or ``skill`` outside [0, 1].
    """
    lo, hi = options.stone_size_min, options.stone_size_max
    return _house.build_house(
        [stone_shape(x, lo, hi) for x in seeds], skill, noise_seed, house_params(options, hold_time), trace=trace,
        stop_on_fall=stop_on_fall,
    )


# --- a cheap model of the build, for search rollouts and agents' first guesses ---------------


def house_quality(infos: Sequence[StoneInfo], wall_gap: float) -> float:
    """A rough chance in [0, 1] that a noise-free build of these stones (ROLES order) stands.

    Not physics: a product of three factors read off the stones' resting measures,

    * reach: how far the roof reaches over each wall, ``(roof width - wall_gap) / 2``; no reach
      (roof shorter than the door plus 0.3 cm a side) is 0, 1.5 cm or more is 1;
    * level: walls of equal height (the sums of their stones' heights) keep the roof level; a
      difference of half the roof's width or more is 0;
    * seats: the flatter the tops of the bottom stones, the better the top stones sit
      (``0.4 + 0.6 * min(top_flat)``), and the same for the wall tops under the roof.
    """
    a1, a2, b1, b2, roof = infos
    reach = (roof.width - wall_gap) / 2.0
    f_reach = min(1.0, max(0.0, (reach - 0.3) / 1.2))
    dh = abs((a1.height + a2.height) - (b1.height + b2.height))
    f_level = max(0.0, 1.0 - dh / (0.5 * roof.width))
    f_seat = (0.4 + 0.6 * min(a1.top_flat, b1.top_flat)) * (0.7 + 0.3 * min(a2.top_flat, b2.top_flat))
    return f_reach * f_level * f_seat


def quick_verdict(infos: Sequence[StoneInfo], skill: float, seed: int, wall_gap: float) -> bool:
    """:class:`QuickHouse`'s deterministic coin: stands iff ``u < quality * (0.5 + 0.5 * skill)``,
    where ``u`` in [0, 1) is hashed from the noise seed."""
    u = ((seed * 2654435761) % 2**32) / 2**32
    return u < house_quality(infos, wall_gap) * (0.5 + 0.5 * skill)
