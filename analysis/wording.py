"""Wording of reports, comparisons and findings: percentages, intervals, plurals, seat and agent
labels, and "how a figure moves" sentences. No I/O; shared by analysis/report.py, the games' report
rooms (``sim/<game>/report``) and analysis/compare.py, so that a section never imports the report module."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sim.core.errors import InputError
from sim.games import REGISTRY

if TYPE_CHECKING:  # annotations only: the loader exports the catalogue's table, which uses these words
    from analysis.run_data import RunData


def pct(x: float, digits: int = 0) -> str:
    """``0.583 -> '58 %'`` (``'n/a'`` for NaN)."""
    return "n/a" if x != x else f"{100 * x:.{digits}f} %"


def pct_ci(rate: float, lo: float, hi: float) -> str:
    """``'58 % [55, 61]'``: a rate and its 95 % interval in percent (one decimal below 10 %)."""
    if rate != rate:
        return "n/a"
    d = 1 if hi < 0.1 else 0
    return f"{100 * rate:.{d}f} % [{100 * lo:.{d}f}, {100 * hi:.{d}f}]"


def figure_text(x: float, kind: str, signed: bool = False) -> str:
    """A figure as ``stonelab compare`` prints it: a ``proportion`` (0-1) in percent with one decimal
    (``58.3 %``; signed, in percentage points: ``+8.3 pt``), any other kind with three significant
    digits (``97.3``, ``+0.5``); ``'n/a'`` for NaN."""
    if x != x:
        return "n/a"
    if kind == "proportion":
        v = 100 * x
        return f"{v:+.1f} pt" if signed else f"{v:.1f} %"
    return f"{x:+.3g}" if signed else f"{x:.3g}"


def interval_text(lo: float, hi: float, kind: str) -> str:
    """An interval as :func:`figure_text` prints its figure: ``[55.0, 61.2]`` (a ``proportion`` in
    percent) or ``[0.7, 1.8]``; empty when there is none (NaN)."""
    if lo != lo:
        return ""
    if kind == "proportion":
        return f"[{100 * lo:.1f}, {100 * hi:.1f}]"
    return f"[{lo:.3g}, {hi:.3g}]"


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


def _tidy_param(p: str) -> str:
    """``'sigma_aim_deg=1.5000000000000002'`` -> ``'sigma_aim_deg=1.5'``; integers and words unchanged."""
    k, eq, v = p.partition("=")
    if not eq or not ("." in v or "e" in v.lower()):
        return p
    try:
        return f"{k}={value_text(float(v))}"
    except ValueError:
        return p


def tidy_label(label: str) -> str:
    """An agent label with its numbers as a reader wants them (:func:`value_text`):
    ``careful(sigma_aim_deg=1.5000000000000002)`` reads ``careful(sigma_aim_deg=1.5)``."""
    name, params = _split_label(str(label))
    return f"{name}({', '.join(_tidy_param(p) for p in params)})" if params else str(label)


#: More labels than this for one seat (a sweep or a sensitivity study varying its parameters) are
#: summarised by :func:`pooled_label` instead of listed
MAX_LISTED_LABELS = 3


def pooled_label(labels: list[str]) -> str:
    """One seat's labels over a study's points: listed (``a / b``) when there are few, else the
    agent with the parameters that stay and, for those that vary, their range:
    ``careful(skill=steady; 10 variants: sigma_aim_deg 0.25 to 4.0)``."""
    labels = [str(x) for x in dict.fromkeys(labels)]
    if len(labels) <= MAX_LISTED_LABELS:
        return " / ".join(tidy_label(x) for x in labels)
    parsed = [_split_label(x) for x in labels]
    names = list(dict.fromkeys(n for n, _ in parsed))
    values: dict[str, list[str]] = {}
    for _, params in parsed:
        for p in params:
            k, _, v = p.partition("=")
            values.setdefault(k, []).append(v)
    same = {k for k, vs in values.items() if len(set(vs)) == 1 and len(vs) == len(parsed)}
    fixed = [_tidy_param(f"{k}={values[k][0]}") for k in values if k in same]
    varied = []
    for k, vs in values.items():
        if k in same:
            continue
        try:
            nums = sorted(float(v) for v in vs)
            varied.append(f"{k} {value_text(nums[0])} to {value_text(nums[-1])}")
        except ValueError:
            varied.append(f"{k} ({len(set(vs))} values)")
    head = " / ".join(names)
    return (f"{head}(" + ", ".join(fixed) + ("; " if fixed else "") + f"{len(labels)} variants: "
            + ", ".join(varied) + ")")


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
        lab = pooled_label([names[x] for x in labs]) if labs else ""
        out.append(f"{seat_name(s)}: {lab}" if lab else seat_name(s))
    return out


def seat_label(run: RunData, seat: int) -> str:
    """The agent column of the wins table: the seat's labels over the study's points, summarised
    when a sweep or sensitivity study varies them (:func:`pooled_label`)."""
    labs = run.seats.loc[run.seats["seat"] == seat, "label"].unique().tolist() if not run.seats.empty else []
    return pooled_label([str(x) for x in labs]) if labs else ""


def ending_meanings(game: str) -> dict[str, str]:
    """``{termination: what it means}`` as ``game`` declares it (:meth:`Termination.meanings`);
    empty for a game this installation does not know or that says nothing."""
    try:
        if REGISTRY.find(game) is None:
            return {}
        ends = REGISTRY.get(game).spec.terminations
    except InputError:
        return {}
    return dict(ends.meanings())
