"""The report of a study: ``RUN/report/`` with PNG and SVG plots and a self-contained report.html.

:func:`build_report` loads the store once (:func:`analysis.load.load_run`), builds the generic
sections (win rates and first-player advantage, length, scores, endings, skill importance, drama
and decisiveness, sweeps) and the game's own sections (the hooks of the
:class:`~analysis.games.base.GameReport` its plug-in declares, e.g. ``sim.sun.report:REPORT``:
:func:`analysis.games.game_report`), saves
each figure as PNG and SVG, and writes ``report.html`` with the PNGs embedded (base64), each with
a plain-language finding, plus the scenario, software version, seed and numbers of games.

Everything is written into a temporary folder beside ``report/`` and renamed at the end, so a
failure leaves the previous report (or nothing) rather than half a report.
"""

from __future__ import annotations

import datetime as _dt
import functools
import html
import json
import os
import shutil
import sys
import tomllib
import traceback
from itertools import combinations
from pathlib import Path
from typing import Any, Callable

import jinja2
import numpy as np
import pandas as pd
from markupsafe import Markup
from matplotlib.ticker import MaxNLocator, PercentFormatter

from analysis import metrics
from analysis.catalogue import (
    CLUSTER_LINE,
    catalogue,
    distinct_run,
    estimate,
    estimates,
    format_value,
    player_scores,
    point_run,
    repeat_note,
    score_unit,
)
from analysis.games import game_report
from analysis.load import load_run
from analysis.page import PAGE_CSS, game_title, png_b64, table_html
from analysis.plots import (
    Plot,
    Section,
    bar_ci,
    histogram,
    lines_ci,
    new_figure_row,
    score_bars,
    seat_color,
    seat_distributions,
)
from analysis.power import judge
from analysis.replays import section as replay_pages
from analysis.run_data import RunData
from analysis.seating import effects, player_finding, seat_finding
from analysis.sensitivity import section as sensitivity_section
from analysis.skill import section as skill_index_section
from analysis.stats import format_p
from analysis.strength import label_strengths, strongest
from analysis.tournament import is_tournament
from analysis.tournament import section as tournament_section
from analysis.wording import (  # noqa: F401 - re-exported: callers that read the report module
    change, ending_meanings, num, pct, pct_ci, plural, point_noun, seat_label, seat_labels, seat_name, short_labels,
    value_text,
)
from sim.core.errors import InputError
from sim.core.outputs import check_replaceable, path_text, remove_stale_temp
from sim.core.provenance import describe_counts
from sim.core.tomlw import to_toml

REPORT_DIR = "report"


# --- generic sections --------------------------------------------------------------------------------
def balance_section(run: RunData, distinct: RunData | None = None) -> Section:
    """Win rate by seat with intervals and the first-player advantage test, over the distinct
    games (``distinct``: :func:`analysis.catalogue.distinct_run` of ``run``, default ``run``)."""
    full = run
    run = distinct if distinct is not None else run
    g, n = run.games, run.n_seats
    sec = Section("Balance between seats")
    rates = metrics.seat_win_rates(g, run.seats, n)
    fpa = metrics.first_player_advantage(g, n)
    # a complete tournament seats every entrant in every seat equally often: seat order is then
    # not mixed with agent strength, so seat 0's share is a fair first-player test
    per_point = full.games.groupby("point").size() if not full.games.empty else pd.Series(dtype=int)
    rotated = is_tournament(full) and len(per_point) == len(full.points) and per_point.nunique() == 1
    same = metrics.seats_same_agent(g) or rotated
    labels = seat_labels(run)
    fig = bar_ci(
        labels, rates["rate"], rates["lo"], rates["hi"], title="Win rate by seat",
        ylabel="sole wins (% of games)", expected=(1 - metrics.endings(g)["draw_rate"]["rate"]) / n if n else None,
        expected_label="equal share of decisive games", colors=[seat_color(s) for s in range(n)],
    )
    eff = effects(g, run.seats, n)
    if same:
        # one player in every seat, or a tournament, whose seatings are its rotations and whose
        # ratings section answers which entrant wins
        eff.differ = False
    verdict = seat_finding(eff, n)
    if rotated and fpa["decisive"]:
        verdict += " Every entrant sat in every seat equally often, so agent strength is balanced across seats."
    who = None if rotated else player_finding(eff)
    sec.plots.append(Plot(
        "win_rate_by_seat", "Win rate by seat", fig, verdict,
        "Bars: share of all games each seat won alone; whiskers: Wilson 95 % intervals; dashed line: the share "
        "each seat would win if no seat had an advantage (draws and shared wins excluded).",
    ))
    sec.findings.append(verdict)
    if who:
        sec.findings.append(who)
    tab = pd.DataFrame({
        "seat": [seat_name(s) for s in rates["seat"]], "agent": [seat_label(run, int(s)) for s in rates["seat"]],
        "games": rates["games"],
        "sole wins": rates["wins"],
        "win rate [95 % CI]": [pct_ci(r, lo, hi) for r, lo, hi in zip(rates["rate"], rates["lo"], rates["hi"])],
        "share of decisive games": [pct(w / fpa["decisive"]) if fpa["decisive"] else "n/a" for w in rates["wins"]],
        "shared wins": rates["shared"],
        "score [95 % CI]": [pct_ci(r, lo, hi) for r, lo, hi in zip(rates["score"], rates["score_lo"], rates["score_hi"])],
    })
    sec.tables.append((f"Wins by seat (all {point_noun(run)}s pooled)" if len(run.points) > 1 else "Wins by seat", tab))
    if who and eff.rotated:
        sec.tables.append(("Wins by player (each in every seat)", pd.DataFrame({
            "player": [r["label"] for r in eff.player], "sole wins": [r["wins"] for r in eff.player],
            "share of decisive games [95 % CI]": [pct_ci(r["rate"], r["lo"], r["hi"]) for r in eff.player],
            "p (exact binomial, equal share)": [format_p(r["p"]) for r in eff.player]})))
    return sec


def length_section(run: RunData) -> Section:
    """Game length, score distributions and how games ended."""
    g, n = run.games, run.n_seats
    sec = Section("Length, scores and endings")
    d = metrics.length_summary(g)
    f = (f"A game lasts {num(d['mean'])} actions on average [{num(d['lo'])}, {num(d['hi'])}] (median "
         f"{num(d['median'])}); 80 % of games take between {num(d['q10'])} and {num(d['q90'])} actions.")
    sec.plots.append(Plot("length", "Game length", histogram(
        g["length"], title="Game length", xlabel="game length (player actions, chance excluded)"), f,
        "Share of games by length; solid line: mean, dotted: median."))
    sec.findings.append(f)
    sc = metrics.score_summary(run.seats, n)
    if not run.seats.empty and run.seats["score"].notna().any():
        samples = [run.seats.loc[run.seats["seat"] == s, "score"].to_numpy(float) for s in range(n)]
        integer = bool(np.allclose(run.seats["score"].dropna() % 1, 0))
        unit = score_unit(run.game)
        # one precision for every seat and its interval (3 significant digits printed "3 [2.56, 3.44]")
        parts = [f"{seat_name(int(r.seat))} {format_value(r.mean, r.lo, r.hi, False, 2)}" for r in sc.itertuples()]
        f = f"Mean final score ({unit}): " + "; ".join(parts) + "."
        sec.plots.append(Plot("scores", "Final scores", seat_distributions(
            samples, seat_labels(run), title="Final score by seat", xlabel=f"final score ({unit})", integer=integer),
            f, "Share of games ending with each score, one line per seat; dashed: each seat's mean."))
        sec.findings.append(f)
    e = metrics.endings(g)
    names = list(e["terminations"])
    bits = [f"{pct_ci(v['rate'], v['lo'], v['hi'])} ended by '{k}'" for k, v in e["terminations"].items()]
    f = (f"{'; '.join(bits)}. {plural(e['draws'], 'draw')} and {plural(e['shared'], 'shared win')} "
         f"({pct_ci(e['draw_rate']['rate'], e['draw_rate']['lo'], e['draw_rate']['hi'])} of games without a sole winner).")
    # the shares are said above; what is left to say is what an ending name means, and that these
    # games stopped before the rule text's end
    meanings = ending_meanings(run.game)
    capped = [k for k in names if any(w in k for w in ("cap", "limit", "stalemate", "timeout"))]
    if capped:
        f += " Cut short before the rule text's end: " + "; ".join(
            f"'{k}'" + (f" ({meanings[k]})" if k in meanings else "") for k in capped) + "."
    glossary = "; ".join(f"'{k}': {meanings[k]}" for k in names if k in meanings and k not in capped)
    if len(names) == 1 and e["draws"] + e["shared"] == 0:
        # one way to end and no draws: a bar chart would only show one full bar
        f = (f"All {e['games']} games ended by '{names[0]}'"
             + (f" ({meanings[names[0]]})" if names[0] in meanings else "") + ", each with a sole winner.")
    else:
        fig = bar_ci(
            [*names, "draw or shared win"],
            [e["terminations"][k]["rate"] for k in names] + [e["draw_rate"]["rate"]],
            [e["terminations"][k]["lo"] for k in names] + [e["draw_rate"]["lo"]],
            [e["terminations"][k]["hi"] for k in names] + [e["draw_rate"]["hi"]],
            title="How games ended", ylabel="share of games", xlabel="termination reason (as the game reports it)",
            colors=[M_COL_END] * len(names) + ["#999999"],
        )
        sec.plots.append(Plot("endings", "Endings", fig, f,
                              "Bars: share of games per termination reason, and of games without a sole winner."
                              + (f" Endings: {glossary}." if glossary else "")))
    sec.findings.append(f)
    return sec


M_COL_END = "#009E73"


def _outcome_counts(r: Any) -> str:
    """``'3 won, 12 shared wins, 0 draws, 5 lost'`` for a skill-importance row."""
    return (f"{r['wins']} won, {plural(int(r['shared']), 'shared win')}, {plural(int(r['draws']), 'draw')}, "
            f"{r['losses']} lost")


def skill_section(run: RunData) -> Section | None:
    """Skill importance (Jaffe et al. 2012): each agent's score against the other agents, the
    stronger agent taken from the scenario's declared order (:mod:`analysis.strength`)."""
    strengths = label_strengths(run.game, run.scenario, run.points, run.sweep_keys, run.seats)
    sk = metrics.skill_importance(run.games, run.seats, strengths)
    if sk.empty:
        return None
    sec = Section(
        "Skill importance",
        "After Jaffe et al. (AIIDE 2012): how well a stronger agent does against a weaker one. An agent's score "
        "is its share of the wins: 1 for a win, half for a draw or a win shared by two, 0 for a loss. Which "
        "agent is stronger comes from the scenario (agent, search effort, the seat's skill, or a seat's "
        "'strength'), never from the results. A score near the no-skill share means luck decides; near 100 % "
        "means the game rewards skill.",
    )
    names = short_labels(sk["label"].tolist())
    found = []
    rows_lab: list[str] = []
    hl: list[bool] = []
    shown: list[int] = []
    for pairing, grp in sk.groupby("pairing", sort=False):
        labs = pairing.split(" vs ")
        short_pair = " vs ".join(names.get(x, x) for x in labs)
        # two agents: one bar says it all (the other's score is its complement), the declared
        # stronger one's when there is one
        plot_rows = grp[grp["stronger"]] if len(labs) == 2 and grp["stronger"].any() else \
            (grp.iloc[:1] if len(labs) == 2 else grp)
        for idx, r in zip(plot_rows.index, plot_rows.itertuples()):
            others = " and ".join(names.get(x, x) for x in labs if x != r.label)
            rows_lab.append(("stronger: " if r.stronger else "") + f"{names[r.label]} against {others}")
            hl.append(bool(r.stronger))
            shown.append(idx)
        strong = grp[grp["stronger"]]
        if len(strong):
            row = strong.iloc[0]
            others = " and ".join(names.get(x, x) for x in labs if x != row["label"])
            exp = row["expected"]
            ci = pct_ci(row["score"], row["lo"], row["hi"])
            j = judge(int(row["games"]), row["lo"], row["hi"], exp)
            if j.kind == "higher":
                verdict = f"the game rewards skill {j.word}"
            elif j.kind == "lower":
                verdict = "the declared stronger agent does worse: check the agent or the rules"
            elif j.kind == "too few":
                verdict = j.text
            else:
                verdict = "no detectable skill effect: luck or the seat decides"
            found.append(f"Pairing {short_pair}: {names[row['label']]}, stronger by {row['why']}, scores {ci} "
                         f"against {others} over {int(row['games'])} games ({_outcome_counts(row)}; no-skill "
                         f"score {pct(exp)}): {verdict}.")
        else:
            row = grp.iloc[0]
            exp = row["expected"]
            ci = pct_ci(row["score"], row["lo"], row["hi"])
            j = judge(int(row["games"]), row["lo"], row["hi"], exp)
            differ = (j.text if j.kind == "too few" else
                      "the scores differ beyond their intervals" if j.effect else "no detectable difference")
            # two of the agents may still be ordered between themselves (the skill index counts such
            # pairs): say so, so that "no order" here and "the stronger player" there do not clash

            pair_orders = []
            for x, y in combinations(labs, 2):
                best, why = strongest([x, y], strengths)
                if best is not None:
                    worse = y if best == x else x
                    pair_orders.append(f"{names.get(best, best)} over {names.get(worse, worse)} ({'; '.join(why)})")
            order_words = ("the scenario declares no agent stronger than all the others" if pair_orders else
                           "the scenario declares no order") + f" ({row['why']})"
            pairwise = (f"; between two of them it does: {', '.join(pair_orders)} (the skill index below counts "
                        "those pairs)") if pair_orders else ", so no agent is called stronger"
            found.append(f"Pairing {short_pair}: {order_words}{pairwise}; {names[row['label']]} scores {ci} over "
                         f"{int(row['games'])} games ({_outcome_counts(row)}; no-skill score {pct(exp)}): {differ}.")
    if len(found) > 2:
        # many pairings: say first what they add up to, then each one
        strong = sk[sk["stronger"]]
        up = int((strong["lo"] > strong["expected"]).sum())
        down = int((strong["hi"] < strong["expected"]).sum())
        unordered = len(found) - len(strong)
        lead = (f"Of {len(found)} pairings, the declared stronger agent scores above its no-skill share beyond "
                f"chance in {up}, below it in {down}, within chance in {len(strong) - up - down}")
        found.insert(0, lead + (f"; {unordered} have no declared order." if unordered else "."))
    pl = sk.loc[shown]
    fig = score_bars(rows_lab, (pl["wins"] / pl["games"]).tolist(), pl["score"].tolist(), pl["lo"].tolist(),
                     pl["hi"].tolist(), pl["expected"].tolist(), pl["games"].astype(int).tolist(),
                     title="Score of each agent against the others", xlabel="score (share of the wins)",
                     highlight=hl)
    f = " ".join(found)
    sec.plots.append(Plot("skill", "Skill importance", fig, f,
                          "One bar per pairing (per agent when more than two agents meet): with two agents, the "
                          "declared stronger one's score (the other's is the rest), or the first-named one's when the "
                          "scenario declares no order. Solid: share of games won outright; light: share earned from "
                          "draws and shared wins; the bar ends at the score; whiskers: Wilson 95 % interval "
                          "(conservative with draws); dashed: the score if skill did not matter (its seats / all "
                          "seats); n: games. Blue: the declared stronger agent; grey: no declared order."))
    sec.findings.append(f)
    tab = pd.DataFrame({
        "pairing": sk["pairing"], "agent": sk["label"],
        "declared stronger": ["yes" if r.stronger else ("no" if r.ordered else "no order declared")
                              for r in sk.itertuples()],
        "games": sk["games"], "won": sk["wins"], "shared wins": sk["shared"], "draws": sk["draws"],
        "lost": sk["losses"],
        "score [95 % CI]": [pct_ci(r, lo, hi) for r, lo, hi in zip(sk["score"], sk["lo"], sk["hi"])],
        "no-skill score": [pct(x) for x in sk["expected"]],
    })
    sec.tables.append(("Agent against agent", tab))
    return sec


def drama_section(run: RunData) -> Section | None:
    """Lead changes and when the winner's lasting lead began (Browne's drama and decisiveness)."""
    dr = metrics.drama_frame(run.games)
    s = metrics.drama_summary(dr)
    if s["games"] == 0:
        return None
    d = dr[dr["has_leads"]]
    sec = Section(
        "Drama and decisiveness",
        "After Browne's game-quality measures, from the running leader on provisional scores: how often the "
        "lead changes hands, and how early the final winner takes a lead they never lose.",
    )
    fig, (a1, a2) = new_figure_row(2, 10.0, 3.8)
    x = d["lead_changes"].to_numpy(float)
    bins = np.arange(-0.5, x.max() + 1.5 if x.size else 1.5, 1.0) if (x.size and x.max() <= 60) else 30
    a1.hist(x, bins=bins, weights=np.full(x.size, 1 / max(x.size, 1)), color="#CC79A7", edgecolor="white", zorder=2)
    a1.set_xlabel("lead changes per game (count)")

    a1.xaxis.set_major_locator(MaxNLocator(integer=True))  # counts: no 2.5 ticks
    a1.set_ylabel("share of games")
    a1.set_title("How often the lead changes")
    y = d["decided_at"].dropna().to_numpy(float)
    a2.hist(y, bins=np.linspace(0, 1, 21), weights=np.full(y.size, 1 / max(y.size, 1)), color="#D55E00",
            edgecolor="white", zorder=2)
    a2.set_xlabel("share of the game played before the winner's lasting lead")
    a2.set_ylabel("share of decisive games")
    a2.set_title("When the game is decided")

    for ax in (a1, a2):
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.grid(axis="x", visible=False)
    a2.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    lc, da, cb = s["lead_changes"], s["decided_at"], s["comeback"]
    late = float((y >= 0.9).mean()) if y.size else float("nan")
    # the mean and its interval with one precision (num's three significant digits gave 0.38 [0.258, 0.502])
    f = f"The lead changes {format_value(lc['mean'], lc['lo'], lc['hi'], False, 2)} times per game on average. "
    if y.size:
        f += (f"The final winner takes a lasting lead after {pct(da['median'])} of the game (median); "
              f"in {pct(late)} of decisive games only in the last tenth. "
              f"The winner was behind at some point in {pct_ci(cb['rate'], cb['lo'], cb['hi'])} of decisive games.")
    else:
        f += "No game with recorded leads had a sole winner, so when games are decided cannot be measured."
    sec.plots.append(Plot("drama", "Drama and decisiveness", fig, f,
                          "Left: lead changes per game (ties do not count as a change). Right: share of the game's "
                          "actions played before the eventual sole winner took the lead for good; 100 % means the "
                          "winner was not ahead on provisional scores until the end."))
    sec.findings.append(f)
    return sec


def sweep_section(run: RunData, headline: tuple[str, str, pd.Series] | None) -> Section | None:
    """For each swept key, the headline metrics against its values, as a table and a plot."""
    if not run.sweep_keys or len(run.points) < 2 or run.games.empty:
        return None
    extra = {headline[0]: headline[2]} if headline else None
    eff = metrics.sweep_effects(run.games, run.sweep_keys, run.n_seats, extra)
    sec = Section("Sweep", "Each swept key against the headline metrics, the other keys pooled. "
                           "Shaded bands and whiskers: 95 % intervals.")
    n = run.n_seats
    for key in run.sweep_keys:
        e = eff[eff["key"] == key]
        if len(e) < 2:
            continue
        vals = e["value"].tolist()
        # the player effect at each value of the key (does this rule change how much skill matters?)
        col = f"sweep:{key}"
        keyed = run.points[col].map(lambda v: json.dumps(v, sort_keys=True)) if col in run.points else None
        per_value = []
        skill_at = []  # the catalogue's stronger_score at each value: the skill effect
        if keyed is not None:
            for v in vals:
                pts = run.points.loc[keyed == json.dumps(v, sort_keys=True), "point"].tolist()
                sub = point_run(run, pts)
                per_value.append({x.metric.group: x for x in player_scores(sub)})
                skill_at.append(estimates(sub, ["stronger_score"]).get("stronger_score"))
        has_skill = any(x is not None and x.distinct > 0 for x in skill_at)
        # a player's line needs two values of the key: a label that names the swept value itself
        # (a seat's sigma) sits at one value only, a dot that says nothing about the effect
        players = [] if has_skill else sorted(p for p in {p for d in per_value for p in d}
                                              if sum(p in d for d in per_value) >= 2)
        panels = (3 if headline else 2) + (1 if players or has_skill else 0)
        fig, axes = new_figure_row(panels, 4.2 * panels, 3.8)
        lines_ci(vals, [(seat_name(s), e[f"win_{s}"], e[f"win_{s}_lo"], e[f"win_{s}_hi"]) for s in range(n)],
                 title="Win rate by seat", xlabel=key, ylabel="sole wins (% of games)", percent=True, ax=axes[0])
        lines_ci(vals, [("mean length", e["length"], e["length_lo"], e["length_hi"])], title="Game length",
                 xlabel=key, ylabel="mean length (actions)", colors=["#444444"], ax=axes[1])
        if headline:
            name, label, _ = headline
            lines_ci(vals, [(label, e[name], e[f"{name}_lo"], e[f"{name}_hi"])], title=label, xlabel=key,
                     ylabel=label, colors=["#D55E00"], ax=axes[2])
        if has_skill:
            nan = float("nan")
            ok = [x is not None and x.distinct > 0 for x in skill_at]
            lines_ci(vals, [("declared-stronger player's score", [x.value if o else nan for x, o in zip(skill_at, ok)],
                             [x.lo if o else nan for x, o in zip(skill_at, ok)],
                             [x.hi if o else nan for x, o in zip(skill_at, ok)])],
                     title="Player effect: the stronger's score", xlabel=key,
                     ylabel="score against the weaker (%)", percent=True,
                     colors=["#0072B2"], ax=axes[-1])
            axes[-1].axhline(0.5, color="#888888", lw=1, ls="--")
        elif players:
            nan = float("nan")
            series = [(pl, [d[pl].value if pl in d else nan for d in per_value],
                       [d[pl].lo if pl in d else nan for d in per_value],
                       [d[pl].hi if pl in d else nan for d in per_value]) for pl in players]
            lines_ci(vals, series, title="Player effect: score by player", xlabel=key,
                     ylabel="share of the win (% of games)", percent=True, ax=axes[-1])
        fig.suptitle(f"Effect of {key}", fontweight="bold")
        first, last = e.iloc[0], e.iloc[-1]
        parts = [f"{seat_name(0)}'s sole-win rate "
                 + change(pct_ci(first['win_0'], first['win_0_lo'], first['win_0_hi']),
                          pct_ci(last['win_0'], last['win_0_lo'], last['win_0_hi']))]
        parts.append("its score " + change(pct(first["score_0"]), pct(last["score_0"])))
        parts.append("mean length " + change(num(first['length']), num(last['length'])) + " actions")
        if headline:
            parts.append(f"{headline[1]} " + change(num(first[headline[0]]), num(last[headline[0]])))
        if has_skill:
            fs, ls_ = next(x for x in skill_at if x is not None and x.distinct > 0), \
                next(x for x in reversed(skill_at) if x is not None and x.distinct > 0)
            parts.append("the declared-stronger player's score against the weaker " + change(fs.text(), ls_.text()))
        changed = "win rates differ beyond their intervals" if (
            first["win_0_lo"] > last["win_0_hi"] or last["win_0_lo"] > first["win_0_hi"]) else \
            "the win-rate intervals overlap"
        f = (f"Sweeping {key} from {value_text(first['value'])} to {value_text(last['value'])}: " + "; ".join(parts)
             + f" ({changed}).")
        safe = "".join(ch if ch.isalnum() else "_" for ch in key)
        sec.plots.append(Plot(f"sweep_{safe}", f"Effect of {key}", fig, f,
                              "Each point pools all games at that value of the key."
                              + (" Player effect: the declared-stronger player's score against the weaker "
                                 "(the catalogue's stronger_score, clustered by game); dashed: 50 %, skill does "
                                 "not matter." if has_skill else "")))
        sec.findings.append(f)
    pp = metrics.per_point(run.games, run.points, n)
    tab = pd.DataFrame({"point": pp["point"]})
    for k in run.sweep_keys:
        tab[k] = pp[f"sweep:{k}"].map(value_text)
    tab["games"] = pp["games"]
    for s in range(n):
        tab[f"{seat_name(s)} wins"] = [pct_ci(r, lo, hi) for r, lo, hi in zip(pp[f"win_{s}"], pp[f"win_{s}_lo"], pp[f"win_{s}_hi"])]
    for s in range(n):
        tab[f"{seat_name(s)} score"] = [pct_ci(r, lo, hi) for r, lo, hi in
                                        zip(pp[f"score_{s}"], pp[f"score_{s}_lo"], pp[f"score_{s}_hi"])]
    by_point = [{x.metric.group: x for x in player_scores(point_run(run, int(pt)))} for pt in pp["point"]]
    for pl in sorted({p for d in by_point for p in d}):
        tab[f"{pl} score"] = [pct_ci(d[pl].value, d[pl].lo, d[pl].hi) if pl in d else "" for d in by_point]
    # the player effect per point: the declared-stronger player's score against the weaker
    skill_pt = [estimates(point_run(run, int(pt)), ["stronger_score"]).get("stronger_score") for pt in pp["point"]]
    if any(x is not None for x in skill_pt):
        tab["stronger player's score"] = [x.text() if x is not None else "no declared order" for x in skill_pt]
    tab["no sole winner"] = [pct_ci(r, lo, hi) for r, lo, hi in zip(pp["draw"], pp["draw_lo"], pp["draw_hi"])]
    tab["mean length"] = [f"{num(m)} [{num(lo)}, {num(hi)}]" for m, lo, hi in zip(pp["length"], pp["length_lo"], pp["length_hi"])]
    if headline:
        name, label, series = headline
        col = []
        for pt in pp["point"]:
            d = metrics.distribution(series[(run.games["point"] == pt).values])
            col.append(f"{num(d['mean'])} [{num(d['lo'])}, {num(d['hi'])}]")
        tab[label] = col
    sec.tables.append(("Headline metrics per sweep point", tab))
    return sec


# --- game sections -------------------------------------------------------------------------------
def _guarded(what: str, fn: Callable[[], Any], errors: list[str]) -> Any:
    """Run one part of the report; a failure becomes a visible note instead of no report at all
    (the per-game columns evolve with the games)."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - reported in the page and on stderr
        msg = f"{what} could not be built: {type(e).__name__}: {e}"
        print(f"report: {msg}\n{traceback.format_exc()}", file=sys.stderr)
        errors.append(msg)
        return None


def metrics_section(run: RunData) -> Section | None:
    """The catalogue measured on the run (:mod:`analysis.catalogue`): one row per metric with its
    value, interval, what it counts over what, the games it rests on and how its interval is made;
    the same numbers ``stonelab compare``, the summary and the export print."""
    rows = []
    nb = "\u00a0"  # a value and its interval stay on one line
    short = {"games share": "Wilson over games", "game mean": "t over games", "ratio": "ratio, clustered by game",
             "fit": "fit, bootstrap over games"}
    for e in estimates(run).values():
        m = e.metric
        rows.append({"metric": m.title, "value [95 %]": e.text(3).replace(" ", nb), "counts": m.numerator,
                     "per": m.denominator, "sample": e.sample_words(),
                     "better": {"higher": "higher", "lower": "lower"}.get(m.direction, ""),
                     "interval": short[m.scheme]})
    if not rows:
        return None
    sec = Section("Metrics", "Every number this report, the terminal summary, stonelab compare, tune and the export "
                  "print about the games, each defined once (docs/compare.md): what it counts, over what, on how "
                  "many games, and how its 95 % interval is made: Wilson's over the games for a share of games, "
                  "Student's t over the games for a mean per game, and for a ratio over passes the ratio of sums "
                  "clustered by game (delta-method variance: the game is the sampled unit); a fit to all the games (the "
                  "rating spread) gets the percentile bootstrap over the games."
                  + (f" All {point_noun(run)}s pooled." if len(run.points) > 1 else ""))
    sec.tables.append(("Metrics", pd.DataFrame(rows)))
    rep = repeat_note(run)
    if rep:
        sec.findings.append(rep)
    if any(estimate(m, run).metric.scheme == "ratio" for m in catalogue(run)):
        sec.findings.append(CLUSTER_LINE)
    return sec


def build_sections(run: RunData) -> tuple[list[Section], list[str]]:
    """All sections of a run's report, in reading order, and any errors met building them."""
    errors: list[str] = []
    if run.games.empty:
        return [], errors
    game = game_report(run.game)
    headline = _guarded("the game's headline metric", lambda: game.headline(run), errors)
    # the pooled sections read each distinct game once, as the catalogue counts (identical games:
    # analysis/catalogue.py); the sweep's per-point figures keep every point's games
    dr = distinct_run(run)
    builders: list[tuple[str, Callable[[], Any]]] = [
        ("balance", lambda: balance_section(run, dr)),
        ("metrics", lambda: metrics_section(run)),
        ("skill importance", lambda: skill_section(dr)),
        (f"the {run.game} section", lambda: game.section(dr)),
        ("length and endings", lambda: length_section(dr)),
        ("drama", lambda: drama_section(dr)),
        ("sweep", lambda: sweep_section(run, headline)),
        # the game's own replays section (the Sun's 3-D viewer), else the turn-based replay pages
        # that sim.replay wrote (analysis.replays: None for a run without them)
        (f"the {run.game} replays", lambda: game.replays_section(run) or replay_pages(run)),
        ("skill against chance", lambda: skill_against_chance(dr)),
    ]
    if is_tournament(run):
        # a tournament's points are seatings, not a swept key: its own section replaces the sweep's
        builders = [b for b in builders if b[0] != "sweep"]
        builders.insert(0, ("tournament", lambda: tournament_section(run)))
    if "sensitivity" in run.scenario:
        # a sensitivity study's points are samples, not a grid: its own section replaces the sweep's
        builders = [b for b in builders if b[0] != "sweep"]
        builders.insert(0, ("sensitivity", lambda: sensitivity_section(run)))
    sections = []
    for what, fn in builders:
        sec = _guarded(f"the {what} section" if not what.startswith("the ") else what, fn, errors)
        if sec is not None and (sec.plots or sec.tables or sec.findings or sec.html):
            sections.append(sec)
    return sections, errors


# --- HTML ------------------------------------------------------------------------------------------


#: scenario keys a command line sets for where and how a study runs, not what it plays: a file
#: that differs from the stored scenario only there is the study's file
_RUN_KEYS = ("out", "backend", "workers")


def scenario_text(run: RunData) -> tuple[str, str]:
    """The scenario as TOML and where it came from: the original file when it still parses to
    what the store recorded, apart from where and how the study ran (``--out``, the backend:
    :data:`_RUN_KEYS`; comments kept), else a rendering of the stored scenario that names the keys
    that differ from the file now (set on the command line, e.g. ``--games``, or edited since)."""
    src = run.meta.get("source", "")
    if not src:
        return to_toml(run.scenario), "as stored in the run"
    if not Path(src).is_file():
        return to_toml(run.scenario), f"{src} (as stored in the run; the file is not found from here)"
    try:
        text = Path(src).read_text(encoding="utf-8-sig")  # as sim.core.files.read_toml reads it

        def norm(d: Any) -> Any:
            return json.loads(json.dumps(d, sort_keys=True, default=str))

        found, stored = norm(tomllib.loads(text)), norm(run.scenario)
        differ = sorted(k for k in set(found) | set(stored) if k not in _RUN_KEYS and found.get(k) != stored.get(k))
        if not differ:
            return text, f"{src}"
        return to_toml(run.scenario), (f"{src} (as stored in the run: {', '.join(differ)} differ from the file now, "
                                       "set on the command line or edited since)")
    except (OSError, ValueError):
        return to_toml(run.scenario), f"{src} (as stored in the run; the file does not read as TOML now)"


def _player_model(run: RunData) -> str | None:
    """The game's statement of its player model (its report's ``player_model``), if any."""
    game = game_report(run.game)
    return _guarded("the player model", lambda: game.player_model(run), [])


def render(run: RunData, sections: list[Section], errors: list[str], out: Path) -> str:
    """Save every figure (PNG, SVG) into ``out`` and return the report's HTML."""
    meta = run.meta
    name = meta.get("name", run.run_dir.name)
    n_points = max(len(run.points), 1)
    versions = sorted(set(run.games["version"].dropna().astype(str))) if "version" in run.games else []
    per_point = run.games.groupby("point").size() if not run.games.empty else pd.Series(dtype=int)
    planned = meta.get("games", "?")
    rows = [
        ("game", f"{game_title(run.game)} ({run.game})"),
        ("scenario", f"{name}" + (f": {run.scenario.get('description')}" if run.scenario.get("description") else "")),
        ("games stored", f"{len(run.games)}" + (
            f" over {n_points} {point_noun(run)}s ("
            + (f"{per_point.min()}" if per_point.min() == per_point.max() else f"{per_point.min()}-{per_point.max()}")
            + f" each; {planned} planned each)" if n_points > 1 else f" ({planned} planned)")),
        ("seats", "; ".join(seat_labels(run, short=False)) or "n/a"),
        *([("player model", model)] if (model := _player_model(run)) else []),
        ("root seed", meta.get("seed", "?")),
        ("software version", ", ".join(versions) or meta.get("version", "?")),
        *([("played by", played_by)] if (played_by := _played_by(run)) else []),
        ("store", str(run.run_dir / "results.sqlite")),
        ("generated", _dt.datetime.now().strftime("%Y-%m-%d %H:%M")),
    ]
    if played_by and ", " in played_by:  # games played in more than one way: not bit for bit one study
        errors = [f"The games of this study were played in more than one way (maths path/code fingerprint): "
                  f"{played_by}. Results are comparable statistically, not bit for bit (docs/reproducibility.md).",
                  *errors]

    used: set[str] = set()
    shown = []
    for sec in sections:
        figures = []
        for p in sec.plots:
            stem = p.name
            i = 2
            while stem in used:
                stem, i = f"{p.name}_{i}", i + 1
            used.add(stem)
            png, b64 = png_b64(p.fig)
            (out / f"{stem}.png").write_bytes(png)
            p.fig.savefig(out / f"{stem}.svg", format="svg")
            figures.append({"title": p.title, "b64": b64, "finding": p.finding, "note": p.note, "stem": stem})
        # tables (pandas' escaped HTML) and a section's own HTML are markup made here; every other
        # value is text, escaped by the template
        shown.append({"title": sec.title, "intro": sec.intro, "findings": sec.findings, "figures": figures,
                      "tables": [(caption, Markup(table_html(df))) for caption, df in sec.tables],
                      "html": Markup(sec.html) if sec.html else ""})
    text, src = scenario_text(run)
    return _report_template().render(name=name, css=Markup(PAGE_CSS), game_title=game_title(run.game),
                                   rows=[(k, str(v)) for k, v in rows], errors=errors, sections=shown,
                                   scenario_source=src, scenario_text=text)


@functools.cache
def _report_template() -> Any:
    """The report's page: a Jinja2 template with autoescape (analysis/templates/report.html.j2,
    package data)."""
    def text(value: Any) -> Any:
        # values are escaped as the report always escaped them (html.escape: &#x27; for a quote)
        return value if isinstance(value, Markup) else Markup(html.escape(str(value)))

    env = jinja2.Environment(loader=jinja2.PackageLoader("analysis", "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined, finalize=text)
    return env.get_template("report.html.j2")


def _played_by(run: RunData) -> str | None:
    """What played the stored games (maths path/code fingerprint, with counts), or None for a
    store made before that was kept (sim.core.provenance)."""
    g = run.games
    if g.empty or "math_path" not in g or g["math_path"].isna().all():
        return None
    keys = zip(g["math_path"].where(g["math_path"].notna(), None), g["code_fingerprint"].where(
        g["code_fingerprint"].notna(), None))
    counts: dict[tuple[str | None, str | None], int] = {}
    for k in keys:
        counts[k] = counts.get(k, 0) + 1
    return describe_counts(counts)


def check_report_folder(run_dir: str | Path) -> None:
    """``RUN/report`` is missing or holds only what a report writes (report.html, PNG and SVG
    plots): :func:`build_report` replaces it whole, so notes put beside the plots would be lost.

    Raises:
        InputError: it holds other files (named).
    """
    own = lambda f: f.name == "report.html" or f.suffix in (".png", ".svg")  # noqa: E731
    check_replaceable(Path(run_dir) / REPORT_DIR, own, "a report")


def build_report(run_dir: Path) -> Path:
    """Build ``RUN/report/`` (plots as PNG and SVG, ``report.html``) from the run's store.

    Returns:
        The path of ``report.html``.

    Raises:
        InputError: ``run_dir`` holds no results store, the report cannot be written there
            (e.g. a read-only run folder), or ``report/`` holds files a report does not write;
            nothing is left half-written.
        DamagedStore: see :func:`analysis.load.load_run`.
    """
    run = load_run(run_dir)
    base = run.run_dir
    final = base / REPORT_DIR
    check_report_folder(base)
    # what a killed report left (its pid is gone): only folders of exactly these names
    remove_stale_temp(base, (f".{REPORT_DIR}.tmp-", f".{REPORT_DIR}.old-"))
    tmp = base / f".{REPORT_DIR}.tmp-{os.getpid()}"
    try:
        _write_report(run, base, final, tmp)
    except OSError as e:
        raise InputError(f"cannot write the report in this run folder ({e.strerror or e}); make it writable, or "
                         "copy the run folder somewhere writable and report from there", source=base) from None
    return final / "report.html"


def _write_report(run: RunData, base: Path, final: Path, tmp: Path) -> None:
    """Render into ``tmp`` and swap it in as ``final`` (the report folder); ``tmp`` is removed on failure."""
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    try:
        sections, errors = build_sections(run)
        page = render(run, sections, errors, tmp)
        # a run folder named with a byte that is not UTF-8 appears in the page as \xff
        (tmp / "report.html").write_text(path_text(page), encoding="utf-8")
        old = base / f".{REPORT_DIR}.old-{os.getpid()}"
        if final.exists():
            final.rename(old)
        tmp.rename(final)
        if old.exists():
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def skill_against_chance(run: RunData) -> Section | None:
    """The skill index section (:mod:`analysis.skill`) of a study whose players differ in declared skill."""
    return skill_index_section(run)

