"""Dotted keys into a raw scenario (``rules.target``, ``seats.1.iterations``): set one, and check a
value in the context of the whole scenario.

Below :mod:`sim.core.scenario` and :mod:`sim.core.sensitivity`: a sweep value and a sensitivity
bound are both checked by setting them and validating the whole scenario, and the validator is
passed in (``validate``), so neither module imports the other for it.
"""

from __future__ import annotations

from typing import Any, Callable

from sim.core.errors import ScenarioError

#: validates a whole raw scenario; raises ScenarioError
Validate = Callable[[dict[str, Any]], object]
#: sets a dotted key in a raw scenario; raises KeyError (message for the user)
SetValue = Callable[[dict[str, Any], str, Any], None]


def check_in_context(trial: dict[str, Any], key: str, value: Any, set_value: SetValue, validate: Validate, *,
                     source: str, where: str) -> None:
    """Set ``key`` to ``value`` in the raw scenario ``trial`` with ``set_value(trial, key, value)``
    and validate the whole scenario with ``validate(trial)``: what a sweep value or a sensitivity
    bound must pass.

    Raises:
        ScenarioError: at ``where``: the key names nothing settable, or the value is not allowed
            there (the inner key and reason quoted).
    """
    try:
        set_value(trial, key, value)
    except KeyError as e:
        raise ScenarioError(str(e.args[0]), source=source, key=where) from None
    try:
        validate(trial)
    except ScenarioError as e:
        inner = f"key '{e.key}': {e.message}" if e.key else e.message
        raise ScenarioError(f"value {value!r} is not allowed: {inner}", source=source, key=where) from None


def set_path(raw: dict[str, Any], dotted: str, value: Any) -> None:
    """Set ``a.b.c`` (list indices as numbers: ``seats.1.iterations``) inside nested tables.

    Raises:
        KeyError: a seat index that names no seat, a path through a non-table, or a path that ends
            on a seat instead of a key inside it (message for the user).
    """
    parts = dotted.split(".")
    node: Any = raw
    for i, part in enumerate(parts[:-1]):
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise KeyError(f"'{'.'.join(parts[: i + 1])}' does not name an existing seat (0 to {len(node) - 1})")
            node = node[int(part)]
        else:
            node = node.setdefault(part, {})
            if not isinstance(node, (dict, list)):
                raise KeyError(f"'{'.'.join(parts[: i + 1])}' is not a table")
    if isinstance(node, list):
        raise KeyError(f"'{dotted}' must name a key inside a seat, e.g. seats.0.iterations")
    node[parts[-1]] = value
