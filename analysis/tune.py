"""What a design search measures and reports: the metrics of a trial's games, the search's HTML
report and terminal summary, and the winning design written out as a scenario.

**Metrics** (:func:`measure`), each with its standard error (the objective carries its sampling
error, ``sim.core.tune.objective_values``):

- every game: ``draw_share`` (games without a sole winner), ``first_player_edge`` (seat 0's
  sole-win share minus the others' mean: 0 is fair), ``mean_length`` (the game's own length
  unit: actions or turns);
- skill against chance (:mod:`analysis.skill`, when the players differ in declared skill):
  ``skill_index`` (0 a coin flip, 1 skill alone) and ``skill_spread_elo``;
- per player (a target's ``player``, a seat label or tournament entrant): ``score`` (the player's
  mean share of the win per game), and ``beats`` with an ``opponent`` (the player's score in
  pairwise comparisons with that opponent: 0.9 is "beats it nine times in ten");
- the game's own (its report's ``GameReport.metrics`` flagged ``tune``, named in
  ``GameReport.tune_metrics``: for the Sun ``penalties_per_game``, ``field_empty_share``,
  ``clean_pass_*``) and per player (``GameReport.player_metrics``: for the Sun ``penalties``, penalty
  stones of all causes a player loses per game);
- ``param`` with a ``key``: a searched parameter's value (exact), to ask for it small or large.

Every metric is a catalogue metric (:mod:`analysis.catalogue`; ``skill_index`` is ``2 s - 1`` of its
``stronger_score``): its value and interval over the distinct games, the interval clustered by game
for a ratio over passes or comparisons, a bootstrap over games for the rating spread (a fit). Standard errors: the catalogue's, or ``(hi - lo) / (2 z)`` of a share's Wilson
interval (never 0, also at 10 of 10).
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from analysis.catalogue import estimates, no_spread_words, skill_index_of
from analysis.games import game_report
from analysis.games.base import GameReport
from analysis.load import load_run
from analysis.page import PAGE_CSS, png_b64, table_html
from analysis.run_data import RunData
from sim.core.console import console, escape, print_prose
from sim.core.errors import InputError, allowed
from sim.core.outputs import write_atomically
from sim.core.tomlw import to_toml, toml_comment
from sim.core.tune import (PAIR_METRICS, PARAM_METRIC, TrialEstimate, SearchInfo, Target,
                           TrialResult, Tune, default_workers_note, design_raw, pareto_front, plausible_range)

GENERIC_METRICS: tuple[str, ...] = ("draw_share", "first_player_edge", "mean_length", "skill_index",
                                    "skill_spread_elo")
#: the two-sided 95 % normal quantile
Z95 = 1.959963984540054


def _game_report(game: str) -> GameReport:
    """The game's report hooks (a bare :class:`GameReport` when its plug-in cannot be loaded)."""
    try:
        return game_report(game)
    except (ImportError, InputError):
        return GameReport()


def metric_names(game: str) -> tuple[list[str], list[str]]:
    """``(game-level metric names, per-player metric names)`` a target of ``game`` may name."""
    hooks = _game_report(game)
    plain = list(GENERIC_METRICS) + list(hooks.tune_metrics)
    player = ["score", *hooks.player_metrics]
    return plain, player


def check_metrics(tune: Tune, game: str, labels: Sequence[str], source: str) -> None:
    """Every target names a metric the game offers, and players the study seats.

    Raises:
        InputError: the target's key (``tune.targets.N.metric`` or ``.player``) and what is allowed.
    """
    plain, player = metric_names(game)
    for i, t in enumerate(tune.targets):
        base, _, rest = t.metric.partition("[")
        where = f"tune.targets.{i}"
        if base == PARAM_METRIC:
            continue
        if not rest:
            if base in player:
                raise InputError(f"metric {base!r} is one player's: give player = \"...\" (one of "
                                 f"{allowed(labels)})", source=source, key=f"{where}.player")
            if base not in plain:
                raise InputError(f"got {base!r}; allowed: {allowed(plain)}; per player (with player = \"...\"): "
                                 f"{allowed(player)}; {allowed(PAIR_METRICS)} (with player and opponent); "
                                 f"'{PARAM_METRIC}' (with key)", source=source, key=f"{where}.metric")
            continue
        names = rest[:-1].split("|") if base in PAIR_METRICS else [rest[:-1]]
        if base not in PAIR_METRICS and base not in player:
            raise InputError(f"got {base!r} with a player; allowed per player: {allowed(player)}; for the whole "
                             f"game (no player): {allowed(plain)}", source=source, key=f"{where}.metric")
        for k, name in zip(("player", "opponent"), names):
            if name not in labels:
                raise InputError(f"got {name!r}; allowed: the study's players, {allowed(labels)}", source=source,
                                 key=f"{where}.{k}")


def _catalogue_estimate(e: Any) -> TrialEstimate:
    """A catalogue estimate (analysis/catalogue.py) as tune's: its value, standard error (a
    share's Wilson interval's half-width over z where it has none), distinct games, interval."""
    se = e.se if e.se == e.se else ((e.hi - e.lo) / (2 * Z95) if e.lo == e.lo else float("nan"))
    return TrialEstimate(float(e.value), float(se), int(e.distinct), float(e.lo), float(e.hi), int(e.games))


def measure_run(run: RunData) -> dict[str, TrialEstimate]:
    """Every metric of a loaded run (see the module docstring); a metric a run cannot give (no
    game with that player, no declared skill order) is left out. Every metric is the catalogue's
    (:mod:`analysis.catalogue`, with those measured on request: ``beats[a|b]``, a lone player's
    score), so a target reads the number the report and ``compare`` print, on the distinct games."""
    out: dict[str, TrialEstimate] = {}
    if run.games.empty:
        return out
    every = estimates(run, every=True)
    for name, e in every.items():
        if e.metric.tune and e.distinct > 0:
            out[name] = _catalogue_estimate(e)
    ss = every.get("stronger_score")
    if ss is not None and ss.distinct > 0:
        # the skill index is 2 s - 1 of the catalogue's stronger players' score (analysis/skill.py)
        p, lo, hi, se = skill_index_of(ss)
        if se != se and lo == lo:
            se = (hi - lo) / (2 * Z95)
        out["skill_index"] = TrialEstimate(p, se, ss.distinct, lo, hi, ss.games)
    return out


def measure(run_dir: Path) -> dict[str, TrialEstimate]:
    """:func:`measure_run` of a trial's run folder."""
    return measure_run(load_run(run_dir))


# --- the winner as a scenario ----------------------------------------------------------------------
def winner_raw(raw: Mapping[str, Any], values: Mapping[str, Any], name: str, game: str) -> dict[str, Any]:
    """The winning design as a plain scenario (no ``[tune]``), named ``<name>-best`` with its own
    default run folder, ready for ``stonelab run`` and ``compare``."""
    out = design_raw(raw, values)
    out["name"] = f"{name}-best"
    out.pop("out", None)
    out["description"] = (f"the design stonelab tune found for {name}: "
                          + ", ".join(f"{k} = {v}" for k, v in values.items()))
    return out


def write_winner(raw: Mapping[str, Any], values: Mapping[str, Any], name: str, game: str, path: Path) -> Path:
    """Write :func:`winner_raw` as TOML to ``path`` (whole or not at all)."""
    text = (toml_comment(f"written by stonelab tune for {name}; confirm it with a full study: "
                         f"stonelab run {path}") + "\n" + to_toml(winner_raw(raw, values, name, game)))
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return path


def write_design_files(game: str, sections: Mapping[str, Mapping[str, Any]], searched: Sequence[str],
                       folder: Path, title: str) -> list[Path]:
    """The game's own files for the winning design beside ``best.toml`` (``GameReport.design_files``;
    the Sun: ``best-layout.toml`` when its table, ball or stones were searched).

    Raises:
        OSError: a file cannot be written.
    """
    return list(_game_report(game).design_files(sections, searched, folder, title))


# --- summary -----------------------------------------------------------------------------------------
def _est(m: Mapping[str, Sequence[float]], key: str) -> TrialEstimate | None:
    v = m.get(key)
    if v is None:
        return None
    lo, hi = (float(v[3]), float(v[4])) if len(v) >= 5 and v[3] is not None and v[4] is not None else (math.nan, math.nan)
    games = int(v[5]) if len(v) >= 6 and v[5] is not None else 0
    return TrialEstimate(float(v[0]), float(v[1]) if v[1] is not None else math.nan, int(v[2]), lo, hi, games)


def distinct_games(metrics: Mapping[str, Sequence[float]]) -> int | None:
    """The distinct games a trial's measurements rest on (the catalogue's count, every game-wide
    metric's ``n``; a searched parameter's value is exact and counts none); None without any."""
    ns = [int(v[2]) for k, v in metrics.items() if not k.startswith(PARAM_METRIC + "[") and len(v) >= 3
          and v[2] is not None]
    return max(ns) if ns else None


def target_rows(tune: Tune, t: TrialResult) -> list[dict[str, Any]]:
    """Per target of design ``t``: its estimate (re-checked where re-checked), interval and verdict."""
    metrics = t.recheck.get("metrics") or t.metrics
    rows = []
    for tg in tune.targets:
        e = _est(metrics, tg.metric)
        if e is None and tg.metric.startswith(PARAM_METRIC + "["):
            e = TrialEstimate(float(t.values[tg.metric[len(PARAM_METRIC) + 1:-1]]), 0.0, 1)
        if e is None:
            rows.append({"metric": tg.metric, "target": tg.describe(), "estimate": float("nan"), "lo": float("nan"),
                         "hi": float("nan"), "verdict": "not measured"})
            continue
        if e.n < 2 and not tg.metric.startswith(PARAM_METRIC + "["):
            # one distinct game (a deterministic game repeated): nothing measures the spread
            rows.append({"metric": tg.metric, "target": tg.describe(), "estimate": e.mean, "lo": float("nan"),
                         "hi": float("nan"), "n": e.n, "games": e.games,
                         "verdict": f"{e.n} distinct game: no interval (identical games count once)"})
            continue
        if e.se == 0 and e.lo != e.lo and not tg.metric.startswith(PARAM_METRIC + "["):
            # every distinct game gave the same value: no interval to claim (not [v, v]); the
            # verdict reads the value alone
            rows.append({"metric": tg.metric, "target": tg.describe(), "estimate": e.mean, "lo": float("nan"),
                         "hi": float("nan"), "n": e.n, "games": e.games,
                         "verdict": f"{tg.verdict(e.mean, e.mean, e.mean)} ({no_spread_words(e.n)}: no interval)"})
            continue
        se = e.se if e.se == e.se else 0.0
        lo, hi = TrialEstimate(e.mean, se, e.n, e.lo, e.hi).interval(tune.conf_level)
        rows.append({"metric": tg.metric, "target": tg.describe(), "estimate": e.mean, "lo": lo, "hi": hi, "n": e.n,
                     "games": e.games, "verdict": tg.verdict(lo, e.mean, hi)})
    return rows


def summary(info: SearchInfo, tune: Tune, scenario_name: str, best_path: Path | None) -> dict[str, Any]:
    """The search as JSON: trials, the best designs with their targets, the Pareto front."""
    complete = [t for t in info.trials if t.state == "complete"]
    best = info.best[0] if info.best else None
    out: dict[str, Any] = {
        "scenario": scenario_name,
        "out": str(info.out),
        "objectives": [{"name": n, "direction": d} for n, d in zip(info.objective_names, info.directions)],
        "trials": {"asked": tune.trials, "complete": len(complete),
                   "pruned": sum(t.state == "pruned" for t in info.trials),
                   "infeasible": sum(t.state == "infeasible" for t in info.trials)},
        "games_per_trial": tune.games * info.points, "recheck_games": tune.recheck_games * info.points,
        "played": info.played, "wall_s": info.wall_s, "resumed": info.resumed,
        "best": [{"trial": b.number, "values": b.values, "objectives": b.recheck.get("objectives") or b.objectives,
                  "objective_se": b.recheck.get("objective_se") or b.objective_se,
                  "games": info.points * b.recheck.get("games", b.games),
                  "distinct_games": distinct_games(b.recheck.get("metrics") or b.metrics),
                  "targets": target_rows(tune, b)}
                 for b in info.best],
        "importance": info.importance,
        "best_scenario": str(best_path) if best_path else None,
        "design_files": [],
    }
    if best is not None and len(info.directions) >= 1:
        out["parameter_intervals"] = {k: list(v) for k, v in plausible_range(info.trials, best, tune).items()}
    if len(info.directions) >= 2:
        out["pareto_front"] = [{"trial": t.number, "values": t.values, "objectives": t.objectives}
                               for t in pareto_front(info.trials, info.directions)]
    return out


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        if not math.isfinite(x):
            return "n/a" if x != x else ("inf" if x > 0 else "-inf")
        return f"{x:.4g}"
    return str(x)


def sample_words(r: Mapping[str, Any], games: int) -> str:
    """What a target row's estimate rests on, where that is not every game of the design:
    ``" (40 distinct of 72 games)"`` (copies counted once), ``" (48 of 72 games)"`` (a player's
    metric reads the games it played, all distinct), ``" (the design's own value)"`` (a searched
    parameter); '' when it reads all ``games``, each distinct; ``" (on 50 distinct games)"`` for
    a search stored before the games a metric reads were kept."""
    n, g = r.get("n"), r.get("games") or 0
    if r["metric"].startswith(PARAM_METRIC + "["):
        return " (the design's own value)"
    if not isinstance(n, int) or n <= 0:
        return ""
    if not g:
        # a search stored before "games" was kept: how many games the metric read is not known,
        # so whether some were copies is not either
        return f" (on {n} distinct games)" if n < games else ""
    if n < g:
        return f" ({n} distinct of {g} games)"
    return f" ({g} of {games} games)" if g < games else ""


def print_summary(s: Mapping[str, Any]) -> None:
    """The terminal summary of a search."""
    con = console()  # prose wraps at the width (80 when piped); paths and commands stay one line
    tr = s["trials"]
    print_prose(con, f"tune {s['scenario']}: {tr['complete']} trials complete, {tr['pruned']} pruned, "
                     f"{tr['infeasible']} infeasible, of {tr['asked']}; {s['games_per_trial']} games a trial, the "
                     f"best re-checked with {s['recheck_games']}; played now {s['played']} games, wall "
                     f"{s['wall_s']:.1f} s")
    for rank, b in enumerate(s["best"], 1):
        vals = ", ".join(f"{k} = {_fmt(v)}" for k, v in b["values"].items())
        # an objective whose games did not vary has no spread to give a "± 0" (a claim of exactness)
        objs = ", ".join(f"{o['name']} {_fmt(v)} " + ("(no spread)" if e == 0 else f"± {_fmt(Z95 * e)}") for o, v, e in
                         zip(s["objectives"], b["objectives"], b["objective_se"] or [float("nan")] * 9))
        d = b.get("distinct_games")
        on = f"{b['games']} games" + (f", {d} distinct" if isinstance(d, int) and d < int(b["games"]) else "")
        print_prose(con, f"{rank}. trial {b['trial']}: {vals}  ({objs}; {on})", indent="   ")
        for r in b["targets"]:
            rest = sample_words(r, int(b["games"]))
            exact = r["metric"].startswith(PARAM_METRIC + "[")  # the design's own value: no interval to give
            iv = f" [{_fmt(r['lo'])}, {_fmt(r['hi'])}]" if r["lo"] == r["lo"] and not exact else ""
            print_prose(con, f"{r['metric']}: {_fmt(r['estimate'])}{iv}{rest}, target {r['target']}: {r['verdict']}",
                        first="   - ", indent="     ")
    if s.get("parameter_intervals"):
        parts = []
        for k, (lo, hi) in s["parameter_intervals"].items():
            parts.append(f"{k} {' or '.join(map(str, lo))}" if hi is None else f"{k} {_fmt(lo)} to {_fmt(hi)}")
        print_prose(con, "designs as good as the best (intervals overlap): " + "; ".join(parts), indent="  ")
    if s.get("pareto_front"):
        print_prose(con, f"Pareto front: {len(s['pareto_front'])} designs (trials "
                         f"{', '.join(str(t['trial']) for t in s['pareto_front'])})", indent="  ")
    for obj, imp in (s.get("importance") or {}).items():
        print_prose(con, f"importance for {obj}: " + ", ".join(f"{k} {100 * v:.0f} %" for k, v in imp.items()),
                    indent="  ")
    if s.get("best_scenario"):
        con.print(f"winner: {escape(s['best_scenario'])}  (stonelab run {escape(s['best_scenario'])})")
    for f in s.get("design_files") or ():
        con.print(f"the winner in the game's own format: {escape(f)}")
    if s.get("report"):
        con.print(f"report: {escape(s['report'])}")


# --- plots ---------------------------------------------------------------------------------------------
# Each plot function imports analysis.plots itself, not the module's top: matplotlib adds 1.1 s to
# every `stonelab tune`, and only a search with a report draws (python -X importtime, load 11).
def history_plot(info: SearchInfo, tune: Tune) -> Any:
    """The search history: each trial's first objective with its interval, pruned trials at their
    half-way value, the best so far as a line, the re-checks as diamonds."""
    from analysis.plots import new_figure  # start-up: matplotlib 1.1 s, see above history_plot

    fig, ax = new_figure(7.5, 4.0)
    name = info.objective_names[0]
    sign = 1.0 if info.directions[0] == "minimize" else -1.0
    comp = [t for t in info.trials if t.state == "complete" and t.objectives]
    if comp:
        x = [t.number for t in comp]
        y = [t.objectives[0] for t in comp]
        e = [Z95 * (t.objective_se[0] if t.objective_se and t.objective_se[0] == t.objective_se[0] else 0.0)
             for t in comp]
        ax.errorbar(x, y, yerr=e, fmt="o", color="#0072B2", ms=4, lw=0.8, capsize=2, label="trial (95 % interval)")
        best, line = math.inf, []
        for t in comp:
            best = min(best, sign * t.objectives[0])
            line.append(sign * best)
        ax.step(x, line, where="post", color="#D55E00", lw=1.5, label="best so far")
    rc = [t for t in info.best if t.recheck.get("objectives")]
    if rc:
        ax.errorbar([t.number for t in rc], [t.recheck["objectives"][0] for t in rc],
                    yerr=[Z95 * t.recheck["objective_se"][0] for t in rc], fmt="D", color="#009E73", ms=6,
                    capsize=3, label=f"re-checked ({tune.recheck_games * info.points} games)")
    pr = [t for t in info.trials if t.state == "pruned"]
    if pr:
        ax.plot([t.number for t in pr], [np.nan] * len(pr), "x", color="#999999", label=f"pruned ({len(pr)})")
        for t in pr:
            ax.axvline(t.number, color="#dddddd", lw=0.8, zorder=0)
    ax.set_xlabel("trial")
    ax.set_ylabel(name if name != "distance" else "distance from the targets (0: all met)")
    ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    return fig


def params_plot(info: SearchInfo, tune: Tune) -> Any:
    """The first objective against each numeric parameter (up to four), one panel each."""
    from analysis.plots import new_figure_row  # start-up: matplotlib 1.1 s, see above history_plot

    keys = [p for p in tune.params if not p.choices][:4]
    if not keys:
        return None
    fig, axes = new_figure_row(len(keys), 3.2 * len(keys), 3.2)
    comp = [t for t in info.trials if t.state == "complete" and t.objectives]
    for ax, p in zip(axes, keys):
        ax.errorbar([t.values[p.key] for t in comp], [t.objectives[0] for t in comp],
                    yerr=[Z95 * (t.objective_se[0] if t.objective_se else 0.0) for t in comp], fmt="o", ms=4,
                    lw=0.7, capsize=2, color="#0072B2")
        if p.log:
            ax.set_xscale("log")
        ax.set_xlabel(p.key)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(info.objective_names[0])
    return fig


def pareto_plot(info: SearchInfo) -> Any:
    """The first two objectives of every complete trial, the Pareto front joined."""
    from analysis.plots import new_figure  # start-up: matplotlib 1.1 s, see above history_plot

    fig, ax = new_figure(6.0, 4.5)
    comp = [t for t in info.trials if t.state == "complete" and len(t.objectives) >= 2]
    ax.scatter([t.objectives[0] for t in comp], [t.objectives[1] for t in comp], s=18, color="#999999",
               label="trial")
    front = sorted(pareto_front(info.trials, info.directions), key=lambda t: t.objectives[0])
    ax.plot([t.objectives[0] for t in front], [t.objectives[1] for t in front], "o-", color="#D55E00",
            label="Pareto front")
    at: dict[tuple[float, float], list[str]] = {}  # trials of one design (or equal results) share a label
    for t in front:
        at.setdefault((t.objectives[0], t.objectives[1]), []).append(str(t.number))
    for (x, y), nums in at.items():
        ax.annotate(", ".join(nums), (x, y), fontsize=7, xytext=(4, 4), textcoords="offset points")
    ax.set_xlabel(f"{info.objective_names[0]} ({info.directions[0]})")
    ax.set_ylabel(f"{info.objective_names[1]} ({info.directions[1]})")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return fig


def importance_plot(info: SearchInfo) -> Any:
    """Optuna's PED-ANOVA importance per parameter, for each objective."""
    from analysis.plots import new_figure  # start-up: matplotlib 1.1 s, see above history_plot

    if not info.importance:
        return None
    fig, ax = new_figure(6.5, 0.5 + 0.45 * sum(len(v) for v in info.importance.values()))
    labels, vals = [], []
    for obj, imp in info.importance.items():
        for k, v in imp.items():
            labels.append(f"{k}  ({obj})" if len(info.importance) > 1 else k)
            vals.append(100 * v)
    ax.barh(range(len(vals)), vals, color="#0072B2")
    ax.set_yticks(range(len(vals)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("importance (%)")
    ax.set_xlim(0, 100)
    return fig


# --- the HTML report -------------------------------------------------------------------------------------
def write_report(info: SearchInfo, tune: Tune, s: Mapping[str, Any], scenario_text: str, out: Path) -> Path:
    """Write ``out/report/report.html`` (and its PNGs) for a finished search; every label, key and
    value embedded is escaped. Returns the page's path."""
    esc = html.escape
    folder = out / "report"
    folder.mkdir(parents=True, exist_ok=True)
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
             f"<title>{esc(s['scenario'])}: design search</title><style>{PAGE_CSS}</style></head><body>",
             f"<h1>{esc(s['scenario'])}: design search</h1>",
             "<p>Designs tried by stonelab tune (Optuna), each a small study on the same seeds (common random "
             "numbers); the best re-checked with more games before they are reported.</p>"]
    tr = s["trials"]
    meta = [("trials", f"{tr['complete']} complete, {tr['pruned']} pruned, {tr['infeasible']} infeasible, of "
                       f"{tr['asked']}"),
            ("games", f"{s['games_per_trial']} a trial; re-checks {s['recheck_games']}; played in this call "
                      f"{s['played']}"),
            ("sampler", f"{tune.sampler}" + (", median pruning after half the games" if tune.pruning and
                                             len(info.directions) == 1 else "")),
            ("objectives", "; ".join(f"{o['name']} ({o['direction']})" for o in s["objectives"])),
            ("parameters", "; ".join(f"{p.key}: {p.describe()}" for p in tune.params)),
            ("wall time", f"{s['wall_s']:.1f} s in this call" + (" (a resumed search: its part)" if s.get("resumed") else "")
                          + " on "
                          f"{default_workers_note()}"),
            ("winner", s.get("best_scenario") or "none"),
            *([("the winner in the game's own format", ", ".join(s["design_files"]))] if s.get("design_files") else []),
            ("generated", _dt.datetime.now().strftime("%Y-%m-%d %H:%M"))]
    parts.append("<table class='meta'>" + "".join(f"<tr><td>{esc(k)}</td><td>{esc(str(v))}</td></tr>"
                                                  for k, v in meta) + "</table>")
    parts.append("<h2>Best designs</h2>")
    if not s["best"]:
        parts.append("<p class='finding'>No trial completed: no design to report.</p>")
    for rank, b in enumerate(s["best"], 1):
        vals = ", ".join(f"{k} = {_fmt(v)}" for k, v in b["values"].items())
        parts.append(f"<h3>{rank}. trial {b['trial']}: {esc(vals)}</h3>")
        # no interval (one distinct game, or no spread): the verdict says why; "n/a to n/a" said nothing
        df = pd.DataFrame([{"metric": r["metric"], "target": r["target"], "estimate": _fmt(r["estimate"]),
                            f"{100 * tune.conf_level:.0f} % interval": f"{_fmt(r['lo'])} to {_fmt(r['hi'])}"
                            if r["lo"] == r["lo"] else "none (see the verdict)",
                            "verdict": r["verdict"]} for r in b["targets"]])
        parts.append(table_html(df))
        # "met (no spread in 214 distinct games: no interval)" is met: the value alone decides
        met = sum(str(r["verdict"]).startswith("met") for r in b["targets"])
        scored = sum(r["verdict"] != "n/a" for r in b["targets"])
        d = b.get("distinct_games")
        on = f"{int(b['games'])} games" + (f", {d} distinct" if isinstance(d, int) and d < int(b["games"]) else "")
        if scored:
            parts.append(f"<p class='finding'>{met} of {scored} targets met on {on}.</p>")
    if s.get("parameter_intervals"):
        rows = [{"parameter": k, "interval": (", ".join(map(str, lo)) if hi is None else f"{_fmt(lo)} to {_fmt(hi)}")}
                for k, (lo, hi) in s["parameter_intervals"].items()]
        parts.append("<h3>Parameters as good as the best</h3>"
                     "<p class='note'>The values of the trials whose objective interval overlaps the best "
                     "design's: on these games, designs in this range cannot be told from the winner.</p>"
                     + table_html(pd.DataFrame(rows)))
    figs = [("history", "Search history", history_plot(info, tune),
             "Each trial's objective with its 95 % interval; the line is the best so far.")]
    if len(info.directions) >= 2:
        figs.append(("pareto", "Pareto front", pareto_plot(info),
                     "Designs no other design beats on every objective (numbers: trials)."))
    pp = params_plot(info, tune)
    if pp is not None:
        figs.append(("params", "Objective by parameter", pp, "Each trial's objective against its parameter values."))
    ip = importance_plot(info)
    if ip is not None:
        figs.append(("importance", "Which parameters mattered", ip,
                     "Optuna's PED-ANOVA importance (Watanabe et al. 2023): how much the best trials depend on each "
                     "parameter, as shares adding up to 100 %."))
    else:
        parts.append("<p class='note'>Parameter importance needs two or more parameters and four complete "
                     "trials.</p>")
    for stem, title, fig, finding in figs:
        png, b64 = png_b64(fig)
        (folder / f"{stem}.png").write_bytes(png)
        parts.append(f"<h2>{esc(title)}</h2><figure><img alt='{esc(title)}' src='data:image/png;base64,{b64}'>"
                     f"<p class='finding'>{esc(finding)}</p><p class='files'>file: {stem}.png</p></figure>")
    rows = []
    for t in info.trials:
        d = distinct_games(t.metrics)
        rows.append({"trial": t.number, "state": t.state, **{k: _fmt(v) for k, v in t.values.items()},
                     **{n: _fmt(v) for n, v in zip(info.objective_names, t.objectives)}, "games": t.games,
                     "distinct": d if d is not None else "", "note": t.problem})
    parts.append("<h2>All trials</h2><p class='note'>distinct: the distinct games among the trial's games "
                 "(identical game records count once); its figures rest on these.</p>" + table_html(pd.DataFrame(rows)))
    parts.append(f"<h2>Scenario</h2><pre>{esc(scenario_text)}</pre>")
    parts.append("<h2>Methods</h2><p class='note'>Each trial plays games 0 to N-1 of the scenario's seed, so "
                 "two designs meet the same deals and throws. The distance objective is the weighted sum of each "
                 "target's distance from its value or range, in units of its scale; its standard error combines "
                 "the metrics' standard errors (an upper bound). Each metric and its interval is the run "
                 "report's (docs/compare.md), on the distinct games: Wilson's over the games for a share of games, "
                 "Student's t for a mean per game, a ratio clustered by game for shares over passes or "
                 "comparisons, a bootstrap over games for the rating spread. Re-checks extend the trial's own games with more "
                 "games on the same seeds.</p></body></html>")
    page = folder / "report.html"  # as a run's report (analysis/report.py)
    text = "\n".join(parts)
    write_atomically(page, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return page


def json_ready(o: Any) -> Any:
    """``o`` with every NaN or infinite float replaced by None (JSON has neither), tuples as lists
    and numpy scalars as Python numbers."""
    if isinstance(o, dict):
        return {str(k): json_ready(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [json_ready(v) for v in o]
    if hasattr(o, "item") and not isinstance(o, (str, bytes)):
        o = o.item()
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if isinstance(o, (str, int, float, bool)) or o is None:
        return o
    return str(o)


def json_text(s: Mapping[str, Any]) -> str:
    """The summary as JSON text."""
    return json.dumps(json_ready(s), indent=2) + "\n"


def save_json(s: Mapping[str, Any], path: Path) -> None:
    """Write the summary as JSON (whole or not at all)."""
    text = json_text(s)
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


__all__ = ["GENERIC_METRICS", "Target", "check_metrics", "json_text", "measure", "measure_run", "metric_names", "print_summary",
           "summary", "write_report", "write_winner"]
