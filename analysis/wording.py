"""Wording of reports, comparisons and findings: percentages, intervals, plurals, seat and agent
labels, and "how a figure moves" sentences. No I/O; shared by analysis/report.py, the game sections
(analysis/games/) and analysis/compare.py, so that a section never imports the report module."""

from __future__ import annotations

from typing import Any

from analysis.load import RunData


def pct(x: float, digits: int = 0) -> str:
    """``0.583 -> '58 %'`` (``'n/a'`` for NaN)."""
    return "n/a" if x != x else f"{100 * x:.{digits}f} %"


def pct_ci(rate: float, lo: float, hi: float) -> str:
    """``'58 % [55, 61]'``: a rate and its 95 % interval in percent (one decimal below 10 %)."""
    if rate != rate:
        return "n/a"
    d = 1 if hi < 0.1 else 0
    return f"{100 * rate:.{d}f} % [{100 * lo:.{d}f}, {100 * hi:.{d}f}]"


def plural(n: int, word: str) -> str:
    """``plural(1, 'draw') -> '1 draw'``, ``plural(0, 'draw') -> '0 draws'``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def num(x: float) -> str:
    """A number with three significant digits (``'n/a'`` for NaN)."""
    if x != x:
        return "n/a"
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:,.0f}"


def point_noun(run: Any) -> str:
    """What a run's points are called: ``"seating"`` in a tournament (a pairing in one seat
    order), ``"sample point"`` in a sensitivity study, else ``"sweep point"`` (``run``: a RunData)."""
    sc = run.scenario if isinstance(getattr(run, "scenario", None), dict) else {}
    if isinstance(sc.get("tournament"), dict):
        return "seating"
    if isinstance(sc.get("sensitivity"), dict):
        return "sample point"
    return "sweep point"


def value_text(v: Any) -> str:
    """A swept or sampled value as a reader wants it: a float to four significant digits
    (``0.4833333333333333`` is ``'0.4833'``, ``2.0`` stays ``'2.0'``), anything else as written."""
    if isinstance(v, float) and not isinstance(v, bool):
        if v != v:
            return "n/a"
        t = f"{v:.4g}"
        return t if any(c in t for c in ".eni") else t + ".0"  # a float stays one: 2.0, not 2
    return str(v)


def change(a: str, b: str, at: tuple[Any, Any] | None = None) -> str:
    """How a figure moves between two settings, as printed: ``'goes from a to b'``, or ``'stays at
    a'`` when both print the same (``'from 100 % to 100 %'`` says nothing); ``at`` names the two
    settings (``'goes from a at 1 to b at 2'``)."""
    if a == b:
        return f"stays at {a}" + (f" from {at[0]} to {at[1]}" if at else "")
    if at:
        return f"goes from {a} at {at[0]} to {b} at {at[1]}"
    return f"goes from {a} to {b}"


def seat_name(s: int) -> str:
    """How a seat is named in the report (0-based, as in the store and the CLI summary)."""
    return f"seat {s}"


def _split_label(label: str) -> tuple[str, list[str]]:
    """``'greedy(a=1, b=2)' -> ('greedy', ['a=1', 'b=2'])``."""
    if label.endswith(")") and "(" in label:
        name, rest = label[:-1].split("(", 1)
        return name, [p.strip() for p in rest.split(",") if p.strip()]
    return label, []


def short_labels(labels: list[str]) -> dict[str, str]:
    """Short display names for agent labels: the agent name, plus only those parameters that
    differ between labels of the same agent (plots stay readable; tables keep the full labels)."""
    parsed = {lab: _split_label(str(lab)) for lab in labels}
    out = {}
    for lab, (name, params) in parsed.items():
        same = [p for n, p in parsed.values() if n == name]
        common = set.intersection(*(set(p) for p in same)) if len(same) > 1 else set(params)
        keep = [p for p in params if p not in common]
        out[lab] = f"{name}({', '.join(keep)})" if keep else name
    return out


def seat_labels(run: RunData, short: bool = True) -> list[str]:
    """``'seat 0: random'`` etc. (a sweep over agents shows every label of the seat); ``short``
    drops agent parameters that all seats share."""
    out = []
    labs_all = run.seats["label"].unique().tolist() if not run.seats.empty else []
    names = short_labels(labs_all) if short else {x: x for x in labs_all}
    for s in range(run.n_seats):
        labs = run.seats.loc[run.seats["seat"] == s, "label"].unique().tolist() if not run.seats.empty else []
        lab = " / ".join(names[x] for x in labs)
        out.append(f"{seat_name(s)}: {lab}" if lab else seat_name(s))
    return out
