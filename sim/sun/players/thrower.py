"""The thrower: how far a real hand strays from the pass or placement it intends (docs/sun-physics.md).

A :class:`Thrower` holds five standard deviations. Named skill levels (:data:`SKILLS`):

=========  =============  ===============  ==============  =============  ===============
level      sigma_aim_deg  sigma_release_m  sigma_push_mps  sigma_place_m  sigma_place_deg
=========  =============  ===============  ==============  =============  ===============
perfect    0              0                0               0              0
expert     0.3            0.005            0.003           0.0005         1.0
steady     0.6            0.01             0.006           0.001          2.0
casual     1.2            0.02             0.012           0.002          4.0
child      2.4            0.03             0.024           0.0035         8.0
=========  =============  ===============  ==============  =============  ===============

docs/sun-physics.md ("The thrower's sigmas") derives each column from published motor-variability
figures (hand tremor, release timing, dart-throwing spread) and says where no figure exists. In
short: each level doubles the one before (weaker dart players vary their throw about twice as
much as stronger ones), ``expert`` sits at about twice the spread of the world's best dart
throwers, and the push is anchored on the hand's tremor velocity.

For scale: at the ring (0.13 m) one degree of aim is 2.3 mm; a sideways push of 0.01 m/s at release
moves the ball about 4.2 mm sideways where it crosses the ring (push x sqrt(1 - (R/A)^2) / omega,
:func:`sim.sun.players.calibrate.push_gain_s`); a normal release meets the ring at about 0.78 m/s.

A preset can also live in a TOML file (``[skill]`` with the five sigmas, see
:func:`load_skill`); :func:`skill` takes a level name or such a path, which is what
``stonelab sun calibrate --out`` writes.

Noise is always drawn as standard normals scaled by the sigmas, in a fixed order and count, so two
throwers of different skill fed the same generator state see *common random numbers*: a study
comparing skills isolates the skill, not the luck.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from sim.core.errors import InputError, allowed
from sim.core.files import read_toml
from sim.core.tomlw import toml_comment, toml_value


@dataclass(frozen=True, slots=True)
class PlaceNoise:
    """The errors of one placement: along (m, tangentially; for a gate: along its length), across
    (m, radially) the ring and in yaw (rad, about the vertical). The rules carry it as a chance
    outcome and the PyBullet table applies it as it is; its ``str()`` shows mm and degrees."""

    along: float = 0.0
    across: float = 0.0
    yaw_rad: float = 0.0

    def __str__(self) -> str:
        return (f"PlaceNoise({self.along * 1000:+.2f} mm, {self.across * 1000:+.2f} mm, "
                f"{math.degrees(self.yaw_rad):+.2f} deg)")


@dataclass(frozen=True, slots=True)
class ThrowNoise:
    """The errors of one pass: in aim (deg, added to the intended azimuth; degrees because the
    games' notation stores it so), release (m, added to the intended release distance) and the
    push at release (m/s, the ball's horizontal velocity, world x and y)."""

    aim: float = 0.0
    release: float = 0.0
    push_x: float = 0.0
    push_y: float = 0.0

    def __str__(self) -> str:
        return (f"ThrowNoise(aim {self.aim:+.3f} deg, release {self.release * 1000:+.1f} mm, "
                f"push {self.push_x * 1000:+.1f},{self.push_y * 1000:+.1f} mm/s)")

    def as_dict(self) -> dict[str, float]:
        """JSON-friendly form (the keys ``stonelab sun pass --json`` prints)."""
        return {"aim_deg": self.aim, "release_m": self.release, "push_x_mps": self.push_x, "push_y_mps": self.push_y}


#: The five standard deviations of a :class:`Thrower`, in the order of its fields.
SIGMA_KEYS = ("sigma_aim_deg", "sigma_release_m", "sigma_push_mps", "sigma_place_m", "sigma_place_deg")
#: Largest value a preset file may give each sigma (beyond these a "hand" is not a hand).
SIGMA_LIMITS = {"sigma_aim_deg": 45.0, "sigma_release_m": 0.2, "sigma_push_mps": 0.5, "sigma_place_m": 0.05,
                "sigma_place_deg": 90.0}

#: Ranges considered for each sigma in the derivation (docs/sun-physics.md, "The thrower's sigmas"),
#: (low, high): where no published figure pins a sigma down, these bound what a human hand does;
#: a sensitivity study of the thrower should sweep them.
SIGMA_RANGES = {"sigma_aim_deg": (0.15, 5.0), "sigma_release_m": (0.002, 0.06), "sigma_push_mps": (0.001, 0.05),
                "sigma_place_m": (0.0002, 0.005), "sigma_place_deg": (0.5, 15.0)}

ZERO_PASS = ThrowNoise()
ZERO_PLACE = PlaceNoise()


@dataclass(frozen=True)
class Thrower:
    """A skill level: standard deviations of the errors of a pass and of a placement.

    Attributes:
        name: the level's name (``"custom"`` for explicit numbers).
        sigma_aim_deg: aim azimuth error (degrees).
        sigma_release_m: release distance error (m).
        sigma_push_mps: horizontal push at release, per axis (m/s).
        sigma_place_m: placement position error, along and across the ring (m).
        sigma_place_deg: placement yaw error (degrees).
    """

    name: str = "custom"
    sigma_aim_deg: float = 0.0
    sigma_release_m: float = 0.0
    sigma_push_mps: float = 0.0
    sigma_place_m: float = 0.0
    sigma_place_deg: float = 0.0

    def __post_init__(self) -> None:
        for k in SIGMA_KEYS:
            v = getattr(self, k)
            if isinstance(v, bool) or not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0.0):
                raise InputError(f"{k} must be a finite number >= 0, not {v!r}", key=k)

    def as_dict(self) -> dict[str, Any]:
        """The name and the five sigmas."""
        return {k: getattr(self, k) for k in ("name",) + SIGMA_KEYS}

    def draw_pass(self, rng: np.random.Generator) -> ThrowNoise:
        """Draw the errors of one pass (always four normals, see module docstring)."""
        z = rng.standard_normal(4)
        # the aim error is drawn in radians and carried in degrees, the unit the notation stores:
        # the stored games hold exactly these numbers, so this order of operations is part of them
        return ThrowNoise(aim=math.degrees(math.radians(self.sigma_aim_deg) * float(z[0])),
                          release=self.sigma_release_m * float(z[1]),
                          push_x=self.sigma_push_mps * float(z[2]), push_y=self.sigma_push_mps * float(z[3]))

    def draw_place(self, rng: np.random.Generator) -> PlaceNoise:
        """Draw the errors of one placement (always three normals)."""
        z = rng.standard_normal(3)
        return PlaceNoise(along=self.sigma_place_m * float(z[0]), across=self.sigma_place_m * float(z[1]),
                          yaw_rad=math.radians(self.sigma_place_deg) * float(z[2]))


SKILLS: dict[str, Thrower] = {
    "perfect": Thrower("perfect"),
    "expert": Thrower("expert", 0.3, 0.005, 0.003, 0.0005, 1.0),
    "steady": Thrower("steady", 0.6, 0.01, 0.006, 0.001, 2.0),
    "casual": Thrower("casual", 1.2, 0.02, 0.012, 0.002, 4.0),
    "child": Thrower("child", 2.4, 0.03, 0.024, 0.0035, 8.0),
}

#: The hand every tool assumes when none is named (``stonelab stability``, ``stonelab sun pass``,
#: the editor's Pass and Aim sweep, ``stonelab sun calibrate --base``): a casual player, the hand a
#: family game is played with. ``perfect`` throws no noise, so its aim sweep repeats one pass.
DEFAULT_SKILL = "casual"


def is_skill_file(name: str) -> bool:
    """Whether a skill value names a preset file (it ends in ``.toml``) rather than a level."""
    return name.lower().endswith(".toml")


def skill(name: str, base_dir: str | Path | None = None) -> Thrower:
    """The named skill level, or the preset in a TOML file when ``name`` ends in ``.toml``.

    Args:
        name: a key of :data:`SKILLS` or a path to a preset file (:func:`load_skill`).
        base_dir: folder a relative preset path is resolved against (a scenario's folder);
            default the current directory.

    Raises:
        InputError: for an unknown name (the message lists the levels) or a bad preset file.
    """
    if is_skill_file(name):
        p = Path(name)
        if base_dir is not None and not p.is_absolute():
            p = Path(base_dir) / p
        return load_skill(p)
    try:
        return SKILLS[name]
    except KeyError:
        raise InputError(f"unknown skill {name!r}; allowed: {allowed(SKILLS)} or a preset file ending in .toml",
                         key="skill") from None


def load_skill(path: str | Path) -> Thrower:
    """Read a skill preset file: a ``[skill]`` table with ``name`` (optional) and the five sigmas.

    Every sigma must be present (a preset states the whole hand), a number from 0 to its
    :data:`SIGMA_LIMITS` value; other keys are refused. A ``[fit]`` table (written by
    ``stonelab sun calibrate``) is allowed and ignored.

    Raises:
        InputError: naming the file and key: missing file, not TOML, no ``[skill]`` table, a
            missing, unknown, non-numeric, negative or too large value.
    """
    p = Path(path)
    data = read_toml(p, "skill preset file", InputError, ".toml, written by `stonelab sun calibrate --out`")
    for k in data:
        if k not in ("skill", "fit"):
            raise InputError("unknown top-level key; allowed: 'skill' or 'fit'", source=p, key=k)
    sec = data.get("skill")
    if not isinstance(sec, dict):
        raise InputError("missing the [skill] table with the five sigmas", source=p, key="skill")
    for k in sec:
        if k != "name" and k not in SIGMA_KEYS:
            raise InputError(f"unknown key; allowed: 'name' or {allowed(SIGMA_KEYS)}", source=p, key=f"skill.{k}")
    name = sec.get("name", p.stem)
    if not isinstance(name, str) or not name:
        raise InputError(f"must be a non-empty string, not {name!r}", source=p, key="skill.name")
    vals = []
    for k in SIGMA_KEYS:
        if k not in sec:
            raise InputError("missing; a preset gives all five sigmas", source=p, key=f"skill.{k}")
        v = sec[k]
        hi = SIGMA_LIMITS[k]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (math.isfinite(v) and 0.0 <= v <= hi):
            raise InputError(f"must be a number from 0 to {hi:g}, not {v!r}", source=p, key=f"skill.{k}")
        vals.append(float(v))
    return Thrower(name, *vals)


def dump_skill_toml(thrower: Thrower, comments: Sequence[str] = ()) -> str:
    """A skill preset file's text for ``thrower`` (read back by :func:`load_skill`)."""
    lines = [toml_comment(c) for c in comments]  # one line each, whatever the text holds
    lines += ["[skill]", f"name = {toml_value(thrower.name)}"]
    lines += [f"{k} = {float(getattr(thrower, k))!r}" for k in SIGMA_KEYS]
    return "\n".join(lines) + "\n"
