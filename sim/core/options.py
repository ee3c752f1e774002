"""Typed, validated options: rule options of a game, parameters of an agent, sections of a scenario.

An :class:`Option` declares one key: its type, default, allowed range or choices and a doc line.
:func:`validate_options` checks a mapping read from TOML against a tuple of options and returns a
complete dict (defaults filled in), raising :class:`~sim.core.errors.ScenarioError` that names the
file, the key and what is allowed.
"""

from __future__ import annotations

import builtins
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Self, Sequence

from sim.core.errors import ScenarioError, allowed

_TYPE_NAMES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list", dict: "a table"}


@dataclass(frozen=True)
class Option:
    """One validated key.

    Attributes:
        name: the key as written in the file.
        type: ``bool``, ``int``, ``float``, ``str``, ``list`` or ``dict``. An ``int`` is accepted
            where a ``float`` is wanted; a ``bool`` is never accepted as a number, nor ``nan`` or
            ``inf`` as a ``float``.
        default: the value used when the key is absent.
        doc: one line for ``stonelab games`` and error messages.
        choices: the allowed values, if the option is an enumeration.
        min, max: inclusive bounds for numbers (also for list items when ``item_type`` is numeric).
        item_type: for lists, the type every item must have.
        check: an extra validator ``value -> error message or None``.
    """

    name: str
    type: type
    default: Any
    doc: str = ""
    choices: tuple[Any, ...] | None = None
    min: float | None = None
    max: float | None = None
    item_type: builtins.type | None = None  # builtins: the field `type` shadows the name here
    check: Callable[[Any], str | None] | None = field(default=None, compare=False)

    def describe(self) -> str:
        """Human-readable summary of what values are allowed."""
        if self.choices is not None:
            return f"one of {allowed(self.choices)}"
        what = _TYPE_NAMES.get(self.type, self.type.__name__)
        if self.type is list and self.item_type is not None:
            what = f"a list of {_TYPE_NAMES.get(self.item_type, self.item_type.__name__)[2:]}s"
        if self.min is not None and self.max is not None:
            return f"{what} from {self.min} to {self.max}"
        if self.min is not None:
            return f"{what} >= {self.min}"
        if self.max is not None:
            return f"{what} <= {self.max}"
        return what

    def validate(self, value: Any, *, source: str | Path | None = None, key: str | None = None) -> Any:
        """Return ``value`` converted to the option's type, or raise ScenarioError."""
        key = key or self.name
        given = value

        def bad() -> ScenarioError:  # built only when raised: a large sweep validates many values
            return ScenarioError(f"got {given!r}; allowed: {self.describe()}", source=source, key=key)

        value = _coerce(value, self.type, bad)
        if self.type is list and self.item_type is not None:
            value = [self._check_scalar(_coerce(v, self.item_type, bad), bad) for v in value]
        else:
            value = self._check_scalar(value, bad)
        if self.check is not None:
            msg = self.check(value)
            if msg:
                raise ScenarioError(f"got {value!r}; {msg}", source=source, key=key)
        return value

    def _check_scalar(self, value: Any, bad: Callable[[], ScenarioError]) -> Any:
        if self.choices is not None and value not in self.choices:
            raise bad()
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if self.min is not None and value < self.min:
                raise bad()
            if self.max is not None and value > self.max:
                raise bad()
        return value


def _coerce(value: Any, typ: type, bad: Callable[[], ScenarioError]) -> Any:
    if typ is float:
        # nan and inf (valid TOML) pass every bound check, so they are refused here
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise bad()
        return float(value)
    if typ is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad()
        return value
    if not isinstance(value, typ):
        raise bad()
    return value


def validate_options(
    given: Mapping[str, Any] | None,
    options: Sequence[Option],
    *,
    source: str | Path | None = None,
    prefix: str = "",
) -> dict[str, Any]:
    """Validate ``given`` against ``options`` and fill in defaults.

    Args:
        given: the table read from the file (None means empty).
        options: the declared options.
        source: the file, for error messages.
        prefix: the dotted path of the table, e.g. ``"rules"``, for error messages.

    Returns:
        A new dict with every declared option.

    Raises:
        ScenarioError: an unknown key (the message lists the allowed keys) or a bad value.
    """
    given = dict(given or {})
    by_name = {o.name: o for o in options}
    for key in given:
        if key not in by_name:
            full = f"{prefix}.{key}" if prefix else key
            raise ScenarioError(
                f"unknown key; allowed keys here: {allowed(sorted(by_name)) if by_name else 'none'}",
                source=source,
                key=full,
            )
    out: dict[str, Any] = {}
    for opt in options:
        if opt.name in given:  # the full key only for given values: each point of a sweep comes here
            full = f"{prefix}.{opt.name}" if prefix else opt.name
            out[opt.name] = opt.validate(given[opt.name], source=source, key=full)
        else:
            out[opt.name] = opt.default
    return out


class RuleOptions:
    """The base of a game's rule options as one frozen, typed object (its ``options.py``).

    A game declares its options once, as a tuple of :class:`Option`, and a frozen dataclass with
    one annotated field per option, in the same order, no defaults (the options hold them)::

        OPTIONS = (Option("target", int, 10, "total that wins", min=1, max=1000),)

        @dataclass(frozen=True)
        class RaceOptions(RuleOptions, options=OPTIONS):
            target: int

    The rules read them one way: ``RaceOptions.from_rules(config.rules).target``. A list option
    is held as a tuple (the object is frozen and hashable). Defining a subclass whose fields do not
    name its options in order raises TypeError at import.
    """

    #: the declared options, in field order (set by the ``options=`` class keyword)
    OPTIONS: tuple[Option, ...] = ()
    #: validated objects by their given values: a study builds one state per game from a handful
    #: of rule sets, so each set is validated once (bounded: cleared when it passes _CACHE_MAX)
    _cache: dict[Any, Self]
    _CACHE_MAX = 4096

    def __init_subclass__(cls, *, options: tuple[Option, ...] | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if options is None:  # e.g. the class dataclass() rebuilds: keep the parent's declaration
            return
        names = tuple(n for n in cls.__dict__.get("__annotations__", {}))
        declared = tuple(o.name for o in options)
        if names != declared:
            raise TypeError(f"{cls.__name__}: fields {names} must name the options {declared} in order")
        cls.OPTIONS = tuple(options)
        cls._cache = {}

    @classmethod
    def from_rules(cls, rules: Mapping[str, Any] | None = None) -> Self:
        """The validated options for a scenario's ``[rules]`` table (defaults filled in).

        Raises:
            ScenarioError: an unknown key or a bad value, named ``rules.<key>``.
        """
        given = dict(rules or {})
        try:
            # the type is in the key: True == 1, but an int is no valid boolean option
            key: Any = tuple(sorted((k, type(v).__name__, tuple(v) if isinstance(v, list) else v) for k, v in given.items()))
            hash(key)
        except TypeError:  # an unhashable value: validate it (and let validation say what is wrong)
            key = None
        hit = cls._cache.get(key) if key is not None else None
        if hit is not None:
            return hit
        checked = validate_options(given, cls.OPTIONS, prefix="rules")
        made = cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in checked.items()})
        if key is not None:
            if len(cls._cache) >= cls._CACHE_MAX:
                cls._cache.clear()
            cls._cache[key] = made
        return made

    def as_rules(self) -> dict[str, Any]:
        """The options as a scenario's ``[rules]`` table (lists as lists), in declaration order."""
        return {o.name: (list(v) if isinstance(v := getattr(self, o.name), tuple) else v) for o in self.OPTIONS}
