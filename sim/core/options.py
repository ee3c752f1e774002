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
from typing import Any, Callable, Mapping, Sequence

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
