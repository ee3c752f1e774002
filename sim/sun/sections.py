"""The Sun's scenario sections and seat options: ``[table]``, ``[ball]``, ``[physics]``, ``[shapes]``,
``[layout]`` and ``[record]``, each key an ``Option`` with the bounds of a layout file, the seat
options (``skill`` and the five sigmas), and what a game builds from them: the layout
(:func:`layout_of`, :func:`start_layout`, :func:`check_config`) and a seat's thrower (:func:`thrower_of`).

- ``[table]``, ``[ball]``, ``[physics]``, ``[shapes]``: the physical parameters, with docs/sun-physics.md's
  defaults, validated like a layout file (``sim.sun.table.layout.parse_layout``).
- ``[record]``: ``frames`` = none | first | all | failures (per-frame poses of every body, kept in
  the store's ``sun_frames`` table), ``rate_hz``.
- per seat: ``skill`` (a level of ``sim.sun.players.thrower.SKILLS`` or a preset file ``*.toml``) and ``sigma_aim_deg``,
  ``sigma_release_m``, ``sigma_push_mps``, ``sigma_place_m``, ``sigma_place_deg`` (each overrides
  that sigma of the level or preset when >= 0; ``skill-sweep.toml`` sweeps the aim, ``stonelab sensitivity``
  varies them all).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from sim.core.errors import InputError, ScenarioError
from sim.core.files import read_toml
from sim.core.game import GameConfig
from sim.core.options import Option
# SIGMA_KEYS: the seat keys that override one sigma of the seat's skill (value >= 0), by Thrower field
from sim.sun.players.thrower import SIGMA_KEYS, SKILLS, Thrower, is_skill_file, load_skill
from sim.sun.players.thrower import skill as skill_of
from sim.sun.table.layout import (
    BALL_RANGES,
    PHYSICS_RANGES,
    TABLE_RANGES,
    BallSpec,
    Layout,
    PhysicsSpec,
    TableSpec,
    load_layout,
    parse_layout,
)


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

    return load_layout(str(lay["file"]))


def check_config(config: GameConfig) -> tuple[str, str] | None:
    """The scenario's physical tables together (GameSpec.check): what one key alone cannot tell,
    e.g. the ring outside the base, a string too short, an unknown key of a ``[shapes.*]`` table."""
    try:
        layout_of(config.sections)
    except ScenarioError as e:
        return e.key or "", e.message
    return None



def thrower_of(seat: Mapping[str, Any]) -> Thrower:
    """The thrower of a seat: its skill level or preset file, with each of :data:`SIGMA_KEYS` overridden when >= 0.

    Raises:
        InputError: unknown skill, or a bad preset file.
    """
    th = skill_of(str(seat.get("skill", "steady")))
    given = {k: float(v) for k in SIGMA_KEYS if (v := seat.get(k, -1.0)) is not None and v >= 0}
    if given:
        th = replace(th, name="custom", **given)
    return th

