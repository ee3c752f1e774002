"""The Sun's actions and chance outcomes, with their notation (degrees in actions: designers read them).

Seat actions: :class:`Stand`, :class:`Stack`, :class:`Gate` (placements), :class:`MoveMarker`,
:class:`Pass`. Chance outcomes: :class:`Draw` (random field) and the noises of the physics protocol,
:class:`~sim.sun.players.thrower.PlaceNoise` and :class:`~sim.sun.players.thrower.ThrowNoise` (what the
thrower draws and the table applies). Every one is a
small frozen dataclass with a readable ``str()`` and an exact JSON form (:func:`action_to_json`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, TypeVar

from sim.core.errors import InputError
from sim.sun.players.thrower import PlaceNoise, ThrowNoise


@dataclass(frozen=True, slots=True)
class Stand:
    """Take a stone of ``shape`` from the field and stand it on the base at ``angle`` degrees."""

    shape: str
    angle: float

    def __str__(self) -> str:
        return f"Stand({self.shape} at {self.angle:.2f} deg)"


@dataclass(frozen=True, slots=True)
class Stack:
    """Take a stone of ``shape`` from the field and stack it on the standing stone ``on``."""

    shape: str
    on: int

    def __str__(self) -> str:
        return f"Stack({self.shape} on #{self.on})"


@dataclass(frozen=True, slots=True)
class Gate:
    """Lay standing stone ``stone`` across positions ``a`` and ``b`` (bottom stone ids, ccw order)."""

    stone: int
    a: int
    b: int

    def __str__(self) -> str:
        return f"Gate(#{self.stone} over #{self.a}-#{self.b})"


@dataclass(frozen=True, slots=True)
class MoveMarker:
    """Move marker ``marker`` to the gap on the ``side`` ("ccw" or "cw") of the stone just stood."""

    side: str
    marker: int = 0

    def __str__(self) -> str:
        return f"MoveMarker({self.side}{'' if self.marker == 0 else f', marker {self.marker}'})"


@dataclass(frozen=True, slots=True)
class Pass:
    """Release the ball from rest at azimuth ``aim`` (deg), ``release`` metres outside the base edge;
    it swings through the centre towards ``aim + 180``."""

    aim: float
    release: float

    def __str__(self) -> str:
        return f"Pass(aim {self.aim:.2f} deg, release {self.release:.3f} m)"


@dataclass(frozen=True, slots=True)
class Draw:
    """Chance (random field): the player draws stone ``stone``."""

    stone: int

    def __str__(self) -> str:
        return f"Draw(#{self.stone})"

PlaceAction = Stand | Stack | Gate
"""A seat's placement action (the ``place`` phase; the table is asked a ``physics.Placement``)."""

SunAction = Stand | Stack | Gate | MoveMarker | Pass | Draw | PlaceNoise | ThrowNoise
"""Any action or chance outcome of the Sun."""


# The candidate lists make the same actions turn after turn, and a frozen dataclass is slow to make
# (each field is set through object.__setattr__): the candidates take them from these memos, by
# their fields (of the types the candidates make: str, int, and floats already rounded). Actions
# are immutable, so sharing one between lists and states changes nothing.
_A = TypeVar("_A", Stand, Stack, Gate, Pass, MoveMarker)
_MADE: dict[type, dict[tuple[Any, ...], Any]] = {cls: {} for cls in (Stand, Stack, Gate, Pass, MoveMarker)}
#: entries one class's memo holds before it is emptied (a bound on memory, not on correctness)
ACTION_MEMO_SIZE = 1 << 16
#: per class of :data:`_MADE`, the slots' own setters in field order (the frozen dataclass's
#: ``__init__`` sets its fields through them too, by ``object.__setattr__``)
_SETTERS: dict[type, tuple[Any, ...]] = {cls: tuple(getattr(cls, f.name).__set__ for f in fields(cls)) for cls in _MADE}


def made_once(cls: type[_A], *values: Any) -> _A:
    """``cls(*values)``, made once per value (``cls``: Stand, Stack, Gate, Pass or MoveMarker).

    A new one is made with every field given as the dataclass's ``__init__`` makes it (the
    classes have no ``__post_init__``), each slot set through its own setter, without the
    machinery: the stand samples of every new gap are new actions, a few thousand per 20 playouts."""
    memo = _MADE[cls]
    a: _A | None = memo.get(values)
    if a is None:
        if len(memo) >= ACTION_MEMO_SIZE:
            memo.clear()
        # (written out per field count: a loop over zip(setters, values) costs more than __init__)
        setters = _SETTERS[cls]
        n = len(values)
        if n == 2 and len(setters) == 2:
            a = _NEW(cls)
            put0, put1 = setters
            put0(a, values[0])
            put1(a, values[1])
        elif n == 3 and len(setters) == 3:
            a = _NEW(cls)
            put0, put1, put2 = setters
            put0(a, values[0])
            put1(a, values[1])
            put2(a, values[2])
        else:
            a = cls(*values)  # (a default left out: __init__ fills it in)
        memo[values] = a
    return a


_NEW = object.__new__


def made_memo(cls: type[_A]) -> dict[tuple[Any, ...], _A]:
    """:func:`made_once`'s memo of ``cls``: the action made of values ``v`` is ``memo[v]`` when
    there (the same object ``made_once(cls, *v)`` returns). For loops that ask for many actions of
    one class: a hit read straight from it costs no call."""
    return _MADE[cls]


_ACTIONS: dict[str, type] = {c.__name__: c for c in (Stand, Stack, Gate, MoveMarker, Pass, Draw, PlaceNoise, ThrowNoise)}


def action_to_json(a: SunAction) -> list[Any]:
    """``[name, field values...]`` (exact floats)."""
    return [type(a).__name__, *(getattr(a, f) for f in a.__slots__)]


def action_from_json(v: Any) -> SunAction:
    """Inverse of :func:`action_to_json`.

    Raises:
        InputError: not an action of this game.
    """
    if not isinstance(v, list) or not v or v[0] not in _ACTIONS:
        raise InputError(f"not a sun action: {v!r}")
    try:
        out: SunAction = _ACTIONS[v[0]](*v[1:])
        return out
    except TypeError as e:
        raise InputError(f"bad sun action {v!r}: {e}") from None
