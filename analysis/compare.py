"""Compare two studies of the same game: ``stonelab compare RUN_A RUN_B [--html OUT] [--json]``.

Every headline metric of the two runs side by side, the difference **B - A** with its 95 %
interval, a test suited to the metric and a multiple-comparison correction across all tested
metrics:

- **Proportions** (a seat's sole wins, a seat's shared wins, games without a winner, games with a
  shared win; outcomes as :mod:`analysis.metrics` defines them): each rate with its Wilson 95 %
  interval, the difference with Newcombe's hybrid score interval (Newcombe 1998, *Interval
  estimation for the difference between independent proportions*, method 10: built from the two
  Wilson intervals, so it stays sensible at 0 % and 100 %), and the two-sided two-proportion z-test
  with pooled variance (the chi-square test without continuity correction); when an expected cell
  count of the 2 x 2 table is below 5 the z-test's normal approximation is poor, so Fisher's exact
  test is used instead (the row names the test).
- **Per-game numbers** (game length, each seat's final score, the game's own headline number such
  as early claims per game or penalty stones per pass, the Sun's penalty stones per game): means
  with Student-t intervals, the difference of the means with a percentile bootstrap interval
  (:data:`analysis.stats.BOOTSTRAP_RESAMPLES` resamples of each run's games, fixed seed so the output is
  reproducible) and the two-sided Mann-Whitney U test (which asks whether one run's values tend to
  be larger, without assuming a distribution; the bootstrap interval is of the mean).
- **Correction**: Holm's step-down method over every tested row (it controls the family-wise error
  rate, the chance of flagging any difference at all when there is none, without assuming the
  tests are independent). A row is flagged *significant* when its Holm-adjusted p-value is below
  0.05.

A game adds sections of its own (``GameReport.compare_sections``, found through its plug-in; see
:mod:`analysis.games`): the Sun's difficulty curve of both runs in one figure (the chance of a clean
pass by the aim error drawn and by the mark area's width, on bins shared by both runs) and its
rules-exercised table of both side by side. Each has its key in ``--json``; this module names no
game.

Runs of different games or seat counts, missing or damaged run folders and runs without games are
refused with :class:`sim.core.errors.InputError` (exit 2 from the CLI).
"""

from __future__ import annotations

import datetime as _dt
import html
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis.catalogue import CLUSTER_LINE, catalogue, distinct_run, estimate, fit_resamples, repeat_note
from analysis.games import CompareSection, compare_keys, every_compare_key, game_report
from analysis.load import load_run
from analysis.metrics import endings, seat_win_rates
from analysis.page import PAGE_CSS, game_title
from analysis.run_data import RunData
from analysis.stats import (BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, MIN_EXPECTED, bootstrap_mean_diff, holm, mann_whitney_p, newcombe_diff, two_proportion_test)
from analysis.wording import figure_text, interval_text, plural, seat_labels, seat_name
from sim.core.console import console, escape, plain, print_prose
from sim.core.errors import InputError
from sim.core.outputs import check_output_file, path_text, write_atomically
from sim.core.store import STORE_NAME, Store

#: Family-wise error rate of the Holm correction.
ALPHA = 0.05

ROW_COLUMNS = ["group", "metric", "name", "unit", "kind", "games_a", "games_b", "n_a", "a", "a_lo", "a_hi", "n_b", "b", "b_lo", "b_hi",
               "diff", "diff_lo", "diff_hi", "test", "p", "p_holm", "significant"]


# --- the comparison --------------------------------------------------------------------------------
@dataclass
class Comparison:
    """Two runs compared.

    Attributes:
        a, b: the loaded runs (A is the baseline; differences are B - A).
        rows: one row per metric, :data:`ROW_COLUMNS`: ``kind`` is ``proportion`` (values are
            shares 0-1) or ``mean``; ``p_holm`` the Holm-adjusted p-value; ``significant`` is
            ``p_holm < ALPHA``.
        notes: things a reader must know (pooled sweep points, different agents, omitted rows).
        changes: what the scenarios set differently (:func:`scenario_changes`).
        sections: the game's own sections (``GameReport.compare_sections``: the Sun's difficulty
            curve and rules exercised), empty for a game that adds none.
    """

    a: RunData
    b: RunData
    rows: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    sections: list[CompareSection] = field(default_factory=list)
    changes: list[str] = field(default_factory=list)


def _load(path: str | Path, which: str) -> RunData:
    """Load one run, refusing what cannot be compared (the message names the folder)."""
    p = Path(path)
    if not p.exists():
        raise InputError("no such run folder", source=p, key=which)
    with Store.open(p) as store:  # InputError when there is no store or it is not SQLite
        tables, game = set(store.tables()), store.meta().get("game", "")
    missing = sorted({"games", "seats", "points"} - tables)
    if missing:
        raise InputError(f"the results store lacks the table(s) {', '.join(missing)} (damaged, or not a "
                         "stonehenge-lab run); run the study again", source=p, key=which)
    if not game:
        raise InputError("the results store names no game (damaged, or not a stonehenge-lab run)", source=p, key=which)
    try:
        run = load_run(p)
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001 - a damaged store is bad input, named with its cause
        raise InputError(f"cannot read the results store ({type(e).__name__}: {e}); run the study again",
                         source=p, key=which) from None
    if run.games.empty:
        raise InputError("the run holds no finished games; nothing to compare", source=p, key=which)
    return run


def _flatten(d: Any, prefix: str = "") -> dict[str, Any]:
    """``{"rules": {"x": 1}, "seats": [{"agent": "a"}]} -> {"rules.x": 1, "seats.0.agent": "a"}``."""
    out: dict[str, Any] = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(_flatten(v, f"{prefix}{k}."))
    elif isinstance(d, list) and any(isinstance(x, dict) for x in d):
        for i, v in enumerate(d):
            out.update(_flatten(v, f"{prefix}{i}."))
    else:
        out[prefix.rstrip(".")] = d
    return out


#: Scenario keys that say where and how a study ran, not what it studied.
_NOT_DESIGN = {"out", "backend", "workers", "description"}


def scenario_changes(a: RunData, b: RunData) -> list[str]:
    """What the two runs' scenarios set differently (``rules.face_down: False -> True``), from the
    scenarios the stores recorded; keys one run does not set are shown as ``(default)``; ``games``
    is the games each run holds (per sweep point)."""
    fa, fb = _flatten(a.scenario), _flatten(b.scenario)
    # the games each run holds, not the number its scenario asked for: a played game's folder holds
    # one game whatever its scenario's "games" says (it printed "games: 20 -> 200")
    for f, r in ((fa, a), (fb, b)):
        f["games"] = int(round(len(r.games) / max(1, len(r.points))))
    out = []
    for k in list(fa) + [k for k in fb if k not in fa]:
        if k in _NOT_DESIGN:
            continue
        va, vb = fa.get(k, "(default)"), fb.get(k, "(default)")
        if va != vb:
            out.append(f"{k}: {va!r} -> {vb!r}")
    return out


def _same_run_notes(a: RunData, b: RunData) -> list[str]:
    """A note when A and B are one run (one store), or two runs of one scenario and seed: their
    differences are then zero, or near it, by construction, and say nothing about the game."""
    try:
        same_file = (a.run_dir / STORE_NAME).samefile(b.run_dir / STORE_NAME)
    except OSError:
        same_file = False
    if same_file:
        return [f"Runs A and B are the same run ({a.run_dir}): every difference is zero by construction. Give two "
                "different run folders."]
    fa, fb = a.meta.get("fingerprint"), b.meta.get("fingerprint")
    if fa and fa == fb:
        return [f"Runs A and B are studies of the same scenario with the same seed (fingerprint {fa}): they play "
                "the same games, so their differences are zero where their games overlap. Change one setting or "
                "the seed in one of them."]
    return []


def compare_runs(path_a: str | Path, path_b: str | Path) -> Comparison:
    """Compare run B with run A (both run folders or ``results.sqlite`` files).

    Raises:
        InputError: a missing or damaged run, a run without games, runs of different games or
            different seat counts.
    """
    a, b = _load(path_a, "RUN_A"), _load(path_b, "RUN_B")
    if a.game != b.game:
        raise InputError(f"run A is a study of {a.game!r}, run B of {b.game!r}; only runs of the same game can be "
                         "compared", source=f"{a.run_dir} vs {b.run_dir}")
    if a.n_seats != b.n_seats or a.games["num_players"].nunique() > 1 or b.games["num_players"].nunique() > 1:
        sa = sorted(a.games["num_players"].unique().tolist())
        sb = sorted(b.games["num_players"].unique().tolist())
        raise InputError(f"run A has {'/'.join(map(str, sa))} seats, run B {'/'.join(map(str, sb))}; only runs with "
                         "one and the same seat count can be compared (a seat's rate means something else "
                         "with another number of players)", source=f"{a.run_dir} vs {b.run_dir}")
    notes: list[str] = _same_run_notes(a, b)
    for tag, r in (("A", a), ("B", b)):
        if len(r.points) > 1:
            notes.append(f"Run {tag} is a sweep of {len(r.points)} points; its games are pooled over the points here "
                         f"(compare single points by running them as separate studies).")
    n = a.n_seats
    wa, wb = seat_win_rates(a.games, a.seats, n), seat_win_rates(b.games, b.seats, n)
    for s in range(n):
        if wa.iloc[s]["label"] != wb.iloc[s]["label"]:
            notes.append(f"{seat_name(s).capitalize()} plays {wa.iloc[s]['label']} in run A and {wb.iloc[s]['label']} "
                         "in run B: its differences mix the change of agent with any change of rules.")
    # start-up: scipy.stats (analysis.seating, through analysis.power) adds 1.9 s to a refused
    # comparison (no such folder, two games), which takes 3.5 s without (python -X importtime, load 11-17)
    from analysis.seating import effects, player_finding, seat_finding

    # the findings count each distinct game once, as the rows do (analysis/catalogue.py)
    da, db = distinct_run(a), distinct_run(b)
    fa, fb = effects(da.games, da.seats, n), effects(db.games, db.seats, n)
    for tag, eff in (("A", fa), ("B", fb)):
        notes.append(f"Run {tag}: " + " ".join(x for x in (seat_finding(eff, n), player_finding(eff)) if x))
    for tag, r in (("A", a), ("B", b)):
        rep = repeat_note(r)
        if rep:
            notes.append(f"Run {tag}: {rep}")
    rows = [metric_row(m, a, b) for m in compare_metrics(a, b)]
    ea, eb = endings(da.games), endings(db.games)
    if ea["shared"] + eb["shared"] == 0:
        rows = [r for r in rows if not r["metric"].startswith("shared-win rate")]
        notes.append("No game of either run ended in a shared win, so shared-win rates are left out.")
    rows = [r for r in rows if r["n_a"] or r["n_b"]]
    if any(r["unit"] not in ("game", "decisive game") for r in rows):
        notes.append(CLUSTER_LINE)
    game = game_report(a.game)  # the game's own tables (none by default)
    df = pd.DataFrame(rows)
    df["p_holm"] = holm(df["p"].tolist())
    df["significant"] = df["p_holm"] < ALPHA
    comp = Comparison(a=a, b=b, rows=df[ROW_COLUMNS], notes=notes, changes=scenario_changes(a, b))
    comp.sections = game.compare_sections(distinct_run(a), distinct_run(b))  # identical games once, as in the rows
    declared = compare_keys(a.game)
    if [s.key for s in comp.sections] != declared:
        raise InputError(f"game {a.game!r}: its report's compare sections {[s.key for s in comp.sections]} are not "
                         f"the keys its plug-in declares (compare_keys {declared}); docs/game-interface.md",
                         key="compare_keys")
    return comp


# --- the catalogue's metrics, A against B ---------------------------------------------------------------
def compare_metrics(a: RunData, b: RunData) -> list[Any]:
    """The catalogue metrics (:mod:`analysis.catalogue`) of either run, each once (A's order, then
    B's own), left out when neither run measures it."""
    out: dict[str, Any] = {}
    for m in [*catalogue(a), *catalogue(b)]:
        out.setdefault(m.name, m)
    return list(out.values())


def _cluster_bootstrap_ratio(ya: np.ndarray, xa: np.ndarray, yb: np.ndarray, xb: np.ndarray,
                             confidence: float = 0.95) -> tuple[float, float]:
    """Percentile interval of ``R_b - R_a`` (``R = sum(y) / sum(x)``) with each run's games
    resampled (a cluster bootstrap over games; fixed seed: the same runs print the same interval)."""
    rng = np.random.default_rng(BOOTSTRAP_SEED)

    def ratios(y: np.ndarray, x: np.ndarray) -> np.ndarray:
        idx = rng.integers(0, y.size, size=(BOOTSTRAP_RESAMPLES, y.size))
        sx = x[idx].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return y[idx].sum(axis=1) / sx

    d = ratios(yb, xb) - ratios(ya, xa)
    d = d[np.isfinite(d)]
    tail = (1 - confidence) / 2 * 100
    lo, hi = np.percentile(d, [tail, 100 - tail]) if d.size else (float("nan"), float("nan"))
    return float(lo), float(hi)


def metric_row(m: Any, a: RunData, b: RunData) -> dict[str, Any]:
    """One row of the comparison: the metric's estimate in A and in B (the catalogue's, so the
    same numbers as each run's report), ``diff`` = B - A, its interval and test:

    - every test reads the distinct games (copies of one game once; one distinct game: no interval);
    - a share of games whose games count 0 or 1: Newcombe's interval and the two-proportion test;
    - a mean per game (or a share with fractional counts, a score): the bootstrap of the
      difference of means and Mann-Whitney's test;
    - a ratio over passes, stones or turns: a cluster bootstrap over games and a z-test on the
      two delta-method standard errors (the game is the sampled unit);
    - a fit (the rating spread): the fit redone on resamples of each run's distinct games, the
      percentile interval of B - A and a z-test on the two bootstrap standard errors.
    """
    ea, eb = estimate(m, a), estimate(m, b)
    row: dict[str, Any] = {"group": m.group, "metric": m.words, "name": m.name, "unit": m.unit,
                           "kind": "proportion" if m.share else "mean", "n_a": ea.distinct, "a": ea.value,
                           "a_lo": ea.lo, "a_hi": ea.hi, "n_b": eb.distinct, "b": eb.value, "b_lo": eb.lo,
                           "b_hi": eb.hi, "games_a": ea.games, "games_b": eb.games}
    nan = float("nan")
    if ea.distinct == 0 or eb.distinct == 0:
        return {**row, "diff": nan, "diff_lo": nan, "diff_hi": nan, "test": "no games", "p": nan}
    diff = eb.value - ea.value
    binary = all(float(v) in (0.0, 1.0) for v in (*ea.y, *eb.y))
    if m.scheme == "games share" and binary:
        # the trials of the distinct games (copies of one game count once)
        _, lo, hi = newcombe_diff(ea.num, ea.den, eb.num, eb.den)
        p, test = two_proportion_test(round(ea.num), round(ea.den), round(eb.num), round(eb.den))
        if min(ea.distinct, eb.distinct) < 2 and (ea.repeated or eb.repeated):
            lo = hi = nan  # one game played many times: its spread is unknown
    elif min(ea.distinct, eb.distinct) < 2:
        return {**row, "diff": diff, "diff_lo": nan, "diff_hi": nan, "test": "one distinct game", "p": nan}
    elif m.scheme == "ratio":
        # a ratio over passes: the game is the sampled unit (a cluster bootstrap over the distinct
        # games, a z-test on the two delta-method standard errors)
        lo, hi = _cluster_bootstrap_ratio(ea.y, ea.x, eb.y, eb.x)
        se = math.sqrt(ea.se ** 2 + eb.se ** 2)  # NaN when either run's spread is unknown
        test = "z (clustered)"
        if se > 0:
            p = math.erfc(abs(diff) / se / math.sqrt(2))
        else:
            # no spread within either run (or none measurable): a z-test would call any difference
            # certain; the row stays untested, and the bootstrap's [d, d] is no interval either
            p, test, lo, hi = nan, "no spread", nan, nan
    elif m.scheme == "fit":
        # a model fitted to all the games: each run's distinct games resampled, the fit redone
        rng = np.random.default_rng(BOOTSTRAP_SEED)
        ba, bb = fit_resamples(m, ea.items, rng), fit_resamples(m, eb.items, rng)
        se = math.sqrt(ea.se ** 2 + eb.se ** 2)
        k = min(ba.size, bb.size)
        if not se > 0 or k < 2:
            return {**row, "diff": diff, "diff_lo": nan, "diff_hi": nan, "test": "no spread", "p": nan}
        d = bb[:k] - ba[:k]
        lo, hi = (float(q) for q in np.percentile(d, [2.5, 97.5]))
        p, test = math.erfc(abs(diff) / se / math.sqrt(2)), "z (bootstrap)"
    else:
        va, vb = ea.y / ea.x, eb.y / eb.x
        if (np.ptp(va) == 0 and np.ptp(vb) == 0) or (not m.count and (np.ptp(va) == 0 or np.ptp(vb) == 0)):
            # every game of a run gave one value: the bootstrap would take its spread as 0 and
            # print [d, d] or an interval as narrow as the other run alone allows (greedy against
            # greedy: an edge of 1.00 in every game), and a rank test has nothing to rank. A count
            # that never happened in one run (0 in every game) is still compared: its zeros are data
            return {**row, "diff": diff, "diff_lo": nan, "diff_hi": nan, "test": "no spread", "p": nan}
        _, lo, hi = bootstrap_mean_diff(va, vb)
        p, test = mann_whitney_p(va, vb), "Mann-Whitney U"
    return {**row, "diff": diff, "diff_lo": lo, "diff_hi": hi, "test": test, "p": p}


# --- output ----------------------------------------------------------------------------------------
def verdict(r: Any) -> str:
    """One line on a row: what changed from A to B and whether it survives the correction."""
    if r.p != r.p:
        test = str(getattr(r, "test", ""))
        if test == "one distinct game":
            return "not tested (one distinct game: no spread to measure)"
        if test == "no spread":
            return "not tested (no spread within the runs)"
        return "not tested (no data)"
    if r.significant:
        return "differs (Holm-corrected)"
    if r.p < ALPHA:
        return "p < 0.05 alone, not after correction"
    need = power_need(r)
    if need is not None:
        # "no difference" only where a difference of 10 points would likely have shown (analysis/power.py)
        # start-up: scipy.stats (analysis.power) 1.9 s, as in compare_runs
        from analysis.power import too_few

        return too_few(int(min(r.n_a, r.n_b)), _pooled(r), two_sample=True)
    return "no detectable difference"


def _pooled(r: Any) -> float:
    """The share both runs of a proportion row hold together (0.5 where a run has none)."""
    return (r.a * r.n_a + r.b * r.n_b) / max(r.n_a + r.n_b, 1) if r.a == r.a and r.b == r.b else 0.5


def power_need(r: Any) -> int | None:
    """Distinct games per run a proportion row would need to find a difference of 10 points at
    80 % power (:func:`analysis.power.games_needed`), where the runs hold fewer; None where they
    hold enough, or the row is not a share. The verdict's "too few" (the HTML's words, the
    terminal's number)."""
    if r.kind != "proportion":
        return None
    # start-up: scipy.stats (analysis.power) 1.9 s, as in compare_runs
    from analysis.power import games_needed

    need = games_needed(_pooled(r), two_sample=True)
    return need if min(r.n_a, r.n_b) < need else None


def summary_line(comp: Comparison) -> str:
    """How many metrics differ after the correction, named."""
    sig = comp.rows[comp.rows["significant"]]
    tested = int(comp.rows["p"].notna().sum())
    if sig.empty:
        return (f"No metric differs between the runs after Holm's correction over {tested} tests "
                f"(family-wise error rate {ALPHA:.0%}).")
    names = "; ".join(f"{r.group}: {r.metric} {figure_text(r.diff, r.kind, True)}" for r in sig.itertuples())
    return f"{len(sig)} of {tested} metrics differ after Holm's correction (B - A): {names}."


def _run_line(tag: str, r: RunData) -> str:
    return (f"{tag}: {r.run_dir} - scenario {r.meta.get('name', '?')}, {plural(len(r.games), 'game')}, seed "
            f"{r.meta.get('seed', '?')}; {'; '.join(seat_labels(r, short=False))}")


def to_json(comp: Comparison) -> dict[str, Any]:
    """The comparison as plain JSON types (NaN becomes null)."""
    def clean(v: Any) -> Any:
        if v is pd.NA:
            return None
        if isinstance(v, (float, np.floating)):
            return None if v != v else float(v)
        if isinstance(v, (np.integer,)):
            return int(v)
        if isinstance(v, np.bool_):
            return bool(v)
        return v

    def records(df: pd.DataFrame) -> list[dict[str, Any]]:
        return [{k: clean(v) for k, v in row.items()} for row in df.to_dict(orient="records")]

    return {
        "game": comp.a.game,
        "a": {"run": str(comp.a.run_dir), "scenario": comp.a.meta.get("name", ""), "games": len(comp.a.games)},
        "b": {"run": str(comp.b.run_dir), "scenario": comp.b.meta.get("name", ""), "games": len(comp.b.games)},
        "difference": "B - A", "correction": "Holm", "alpha": ALPHA,
        "scenario_changes": comp.changes, "rows": records(comp.rows), "notes": comp.notes, "summary": summary_line(comp),
        # every registered game's sections (another game's empty): any two runs' JSON has the same keys
        **{k: [] for k in every_compare_key()}, **{s.key: records(s.table) for s in comp.sections},
    }


def print_table(comp: Comparison, html_path: Path | None = None) -> None:
    """Print the comparison as a rich table, then the notes and the runs (file paths and commands
    on lines of their own, never wrapped, so they can be copied)."""

    # labels, names and paths come from the runs' files: escaped for markup (sim/core/console.py);
    # notes and legends wrap at the width (print_prose), paths and commands stay one line
    con = console()
    width = con.width  # the terminal's; 80 when piped (rich), unless COLUMNS says otherwise
    print_prose(con, f"compare ({comp.a.game}): B - A with 95 % intervals; verdict after Holm's correction")
    for line in metric_lines(comp, width):
        con.print(escape(line), highlight=False)
    print_prose(con, "B - A of a share in percentage points. verdict: differs * = Holm-corrected p < 0.05; too "
                     "few (N) = fewer distinct games than finding a 10-point difference needs at 80 % power (N "
                     "per run would); tests and p-values: --json and --html; metric names: docs/compare.md.")
    for lab, k in player_keys(comp).items():
        con.print(f"{k}: {escape(lab)}", highlight=False)
    for sec in comp.sections:
        if sec.table.empty:
            continue
        for row in sec.lines(width):
            if row.heading:
                con.print(f"[bold]{escape(row.text)}[/]")
            else:
                con.print(row.text, markup=False, highlight=False, soft_wrap=True)
    print_prose(con, summary_line(comp))
    print_prose(con, "scenario changes A -> B: " + ("; ".join(comp.changes) if comp.changes else "none (same scenario)"),
                indent="  ")
    for note in comp.notes:
        print_prose(con, f"note: {note}", indent="  ")
    for tag, run in (("A", comp.a), ("B", comp.b)):
        # the folder whole on its line (to copy), what it holds wrapped below it at the width
        head, _, rest = _run_line(tag, run).partition(" - ")
        con.print(plain(head), soft_wrap=True, markup=False, highlight=False)
        print_prose(con, rest, first="  ", indent="  ")
    if html_path is not None:
        con.print(f"html: {plain(html_path)}", soft_wrap=True, markup=False, highlight=False)


def short_verdict(r: Any) -> str:
    """The verdict of :func:`verdict` in a few words, for the terminal's one line per metric."""
    v = verdict(r)
    if v.startswith("too few"):
        return f"too few ({power_need(r)})"
    return {"differs (Holm-corrected)": "differs *", "p < 0.05 alone, not after correction": "p<.05 alone",
            "no detectable difference": "no diff.", "not tested (no data)": "no data",
            "not tested (one distinct game: no spread to measure)": "1 distinct",
            "not tested (no spread within the runs)": "no spread"}.get(v, v)


def metric_lines(comp: Comparison, width: int = 80) -> list[str]:
    """The comparison as text, one line per metric: ``metric  A  B  B-A [95 %]  verdict``, the
    verdict the HTML's (``too few (194)``: the distinct games per run a 10-point difference needs
    at 80 % power, :func:`power_need`). The metric is named by its words where they fit beside the
    numbers, else by its catalogue name (players as ``p0, p1, ...``: :func:`player_keys`); shares
    lose their decimal, means below 1 their third, where that is what it takes to fit. Only where
    even that does not fit (a terminal far narrower than 80 columns) does a name go on a line of
    its own, the numbers on the next: numbers are never cut or folded."""
    keys = player_keys(comp)
    rows = list(comp.rows.itertuples())

    def words(r: Any) -> str:
        if str(r.group).startswith("seat ") or r.group == "game":
            return f"{_short_group(r.group)} {r.metric}".strip()
        return f"{keys.get(r.group, r.group)}: {r.metric}"

    def key(r: Any) -> str:
        name = str(r.name)
        for lab, k in keys.items():
            name = name.replace(f"[{lab}]", f"[{k}]")
        return name

    def numbers(r: Any, fine: bool) -> tuple[str, str, str]:
        if r.kind == "proportion":
            dp = 1 if fine else 0
            a, b = (f"{100 * x:.{dp}f} %" if x == x else "n/a" for x in (r.a, r.b))
            d = f"{100 * r.diff:+.{dp}f}" if r.diff == r.diff else "n/a"
            if r.diff_lo == r.diff_lo:
                d += f" [{100 * r.diff_lo:.{dp}f}, {100 * r.diff_hi:.{dp}f}]"
            return a, b, d
        # one number of decimals per row, set by the values' size: 0.150 and 0.162, 98.3 and 93.3
        big = max(abs(x) for x in (r.a, r.b, 0.0) if x == x)
        k = 0 if big >= 100 else 1 if big >= 10 else 2 if big >= 1 or not fine else 3
        a, b = (f"{x:.{k}f}" if x == x else "n/a" for x in (r.a, r.b))
        d = (f"{r.diff:+.{k}f} [{r.diff_lo:.{k}f}, {r.diff_hi:.{k}f}]" if r.diff_lo == r.diff_lo
             else (f"{r.diff:+.{k}f}" if r.diff == r.diff else "n/a"))
        return a, b, d

    verdicts = [short_verdict(r) for r in rows]

    def layout(fine: bool, named: Any) -> tuple[list[tuple[str, str, str, str, str]], list[int]]:
        cells = [(named(r), *numbers(r, fine), v) for r, v in zip(rows, verdicts)]
        ws = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(("metric", "A", "B", "B - A [95 %]",
                                                                                 "verdict"))]
        return cells, ws

    choice = None
    for fine in (True, False):
        for named in (words, key):
            cells, ws = layout(fine, named)
            if sum(ws) + 8 <= width:
                choice = (cells, ws)
                break
        if choice:
            break
    cells, ws = choice or layout(False, key)
    wn, wa, wb, wd, wv = ws
    nums = wa + wb + wd + wv + 8
    wn = min(wn, max(12, width - nums))

    def line(n: str, a: str, b: str, d: str, v: str) -> str:
        return f"{n:<{wn}}  {a:>{wa}}  {b:>{wb}}  {d:>{wd}}  {v}".rstrip()

    out = [line("metric", "A", "B", "B - A [95 %]", "verdict")]
    out.append("-" * min(width, wn + nums))
    for n, a, b, d, v in cells:
        if len(n) > wn:
            out.append(n)
            n = ""
        out.append(line(n, a, b, d, v))
    return out


def player_keys(comp: Comparison) -> dict[str, str]:
    """``{label: "p0", ...}``: the players of both runs (a row's group that names no seat and is
    not ``game``), in the order of the scenario's [[seats]] entries (A's, then labels only B has),
    as the run summary numbers them."""
    order: list[str] = []
    for run in (comp.a, comp.b):
        seats = run.seats
        if seats.empty or "label" not in seats:
            continue
        who = "player" if "player" in seats else "seat"
        for lab in seats.groupby("label")[who].min().sort_values(kind="stable").index:
            if lab not in order:
                order.append(str(lab))
    groups = {str(g) for g in comp.rows["group"]} if not comp.rows.empty else set()
    players = [lab for lab in order if lab in groups]
    return {lab: f"p{i}" for i, lab in enumerate(players)}


#: Short names of the tests for the terminal table.
SHORT_TESTS = {"two-proportion z": "z", "Fisher exact": "Fisher", "Mann-Whitney U": "MW U",
               "z-test (no variation)": "none"}


def _short_group(group: str) -> str:
    """``seat 0 -> s0``, ``game -> ''``: the terminal table's metric names stay narrow."""
    return "s" + group.removeprefix("seat ") if group.startswith("seat ") else ""


def _p_cell(p: float) -> str:
    """A p-value for the table: ``<0.001``, ``0.0042``, ``0.41``."""
    if p != p:
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.2g}"


def run_names(a: RunData, b: RunData) -> tuple[str, str]:
    """Names that tell the two runs apart: their scenario names, and when those are the same (two
    runs of one scenario, e.g. before and after a change) each with the shortest end of its run
    folder's path that differs: ``classic-2p (before/classic-2p)``."""
    na, nb = (str(r.meta.get("name", r.run_dir.name)) for r in (a, b))
    if na != nb:
        return na, nb
    pa, pb = Path(a.run_dir).resolve().parts, Path(b.run_dir).resolve().parts
    for k in range(1, max(len(pa), len(pb)) + 1):
        sa, sb = "/".join(pa[-k:]), "/".join(pb[-k:])
        if sa != sb:
            return f"{na} ({sa})", f"{nb} ({sb})"
    return f"{na} (A)", f"{nb} (B, the same run)"


def render_html(comp: Comparison) -> str:
    """The comparison as a self-contained HTML page (the report's style; plots embedded as PNG)."""
    esc = html.escape
    a, b = comp.a, comp.b
    title = " vs ".join(run_names(a, b))
    meta_rows = [("game", f"{game_title(a.game)} ({a.game})")]
    for tag, r in (("A (baseline)", a), ("B", b)):
        meta_rows.append((f"run {tag}", f"{r.run_dir} - scenario {r.meta.get('name', '?')}"
                          + (f": {r.scenario.get('description')}" if r.scenario.get("description") else "")
                          + f"; {plural(len(r.games), 'game')}, seed {r.meta.get('seed', '?')}, "
                          + "; ".join(seat_labels(r, short=False))))
    meta_rows.append(("scenario changes A → B", "; ".join(comp.changes) if comp.changes else "none (same scenario)"))
    meta_rows.append(("generated", _dt.datetime.now().strftime("%Y-%m-%d %H:%M")))
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{esc(title)}: comparison</title><style>{PAGE_CSS}"
        "tr.sig td{background:#fff4e5}td.sig{color:#b00;font-weight:bold}"
        "table.data td:nth-child(2),table.data th:nth-child(2),table.data td:nth-child(6){text-align:left}"
        "td.g{white-space:nowrap}table.data td:last-child{text-align:left;min-width:10em}"
        ".ci{color:#555;font-size:.85em;white-space:nowrap}</style></head><body>",
        f"<h1>{esc(title)}</h1><p>Two studies of <b>{esc(game_title(a.game))}</b> compared by stonehenge-lab: "
        "every difference is B - A.</p>",
        "<table class='meta'>" + "".join(f"<tr><td>{esc(k)}</td><td>{esc(v)}</td></tr>" for k, v in meta_rows)
        + "</table>",
        f"<p class='finding'>{esc(summary_line(comp))}</p>",
    ]
    for note in comp.notes:
        parts.append(f"<p class='note'>{esc(note)}</p>")
    parts.append("<h2>Headline metrics</h2><table class='data'><thead><tr><th></th><th>metric</th><th>A [95 %]</th>"
                 "<th>B [95 %]</th><th>B - A [95 %]</th><th>test</th><th>p</th><th>p (Holm)</th><th>verdict</th>"
                 "</tr></thead><tbody>")
    for r in comp.rows.itertuples():
        parts.append(
            f"<tr{' class=sig' if r.significant else ''}><td class=g>{esc(r.group)}</td><td>{esc(r.metric)}</td>"
            f"<td>{esc(figure_text(r.a, r.kind))}<br><span class=ci>{esc(interval_text(r.a_lo, r.a_hi, r.kind))}</span></td>"
            f"<td>{esc(figure_text(r.b, r.kind))}<br><span class=ci>{esc(interval_text(r.b_lo, r.b_hi, r.kind))}</span></td>"
            f"<td>{esc(figure_text(r.diff, r.kind, True))}<br><span class=ci>{esc(interval_text(r.diff_lo, r.diff_hi, r.kind))}</span></td>"
            f"<td>{esc(r.test)}</td><td>{esc(_p_cell(r.p))}</td><td>{esc(_p_cell(r.p_holm))}</td>"
            f"<td{' class=sig' if r.significant else ''}>{esc(verdict(r))}</td></tr>")
    parts.append("</tbody></table><p class='note'>n: A "
                 f"{len(a.games)} games, B {len(b.games)} games; pt: percentage points.</p>")
    for sec in comp.sections:
        if not sec.table.empty:
            parts.append(f"<h2>{esc(sec.title)}</h2>" + sec.html())
    parts.append(
        "<h2>Methods</h2><p class='note'>Outcomes as in the study reports: a seat's win is a sole win; a draw has no "
        "winner; a shared win has two or more winners. Proportions: Wilson 95 % intervals; their difference: "
        "Newcombe's hybrid score interval (1998, method 10); test: two-sided pooled two-proportion z-test, or "
        f"Fisher's exact test when an expected cell count is below {MIN_EXPECTED:g}. Per-game numbers: means with "
        f"Student-t 95 % intervals; the difference of means with a percentile bootstrap interval "
        f"({BOOTSTRAP_RESAMPLES} resamples, seed {BOOTSTRAP_SEED}); test: two-sided Mann-Whitney U (scipy). "
        f"Multiple comparisons: Holm's step-down correction over all {int(comp.rows['p'].notna().sum())} tested "
        f"rows, family-wise error rate {ALPHA:.0%}.</p></body></html>")
    return "\n".join(parts)


def write_html(comp: Comparison, out: str | Path) -> Path:
    """Write :func:`render_html` to ``out`` (through a temporary file, so a failure leaves nothing
    half-written).

    Raises:
        InputError: ``out`` is a folder, not an .html file name, or cannot be written.
    """
    path = check_output_file(out, "--html", (".html", ".htm"))
    page = path_text(render_html(comp))  # a run folder's non-UTF-8 byte is shown as \xff
    try:
        write_atomically(path, lambda tmp: tmp.write_text(page, encoding="utf-8"))
    except OSError as e:
        raise InputError(f"cannot write the page there ({e.strerror or e}); give a writable file path",
                         source=path, key="--html") from None
    return path
