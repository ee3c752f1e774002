"""Report section of Sozoikum: rounds to the first house, gems spent, build attempts and collapses.

Reads ``sozoikum_games`` (``rounds``, ``house_round`` (NULL when nobody built), ``builder``,
``build_attempts``, ``collapses``, ``gems_spent_<seat>``, ``gems_spent_total``),
``sozoikum_seats`` (per seat: ``skill``) and ``sozoikum_builds`` (one row per attempt: ``seat``,
``stood``, ``max_displacement`` in cm).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from analysis.games import GameReport, has_columns, own_aligned
from analysis.metrics import distribution, proportion
from analysis.plots import Plot, Section, bar_ci, histogram, lines_ci, seat_color
from analysis.run_data import RunData
from analysis.wording import seat_labels


def seat_skill(conf: Mapping[str, Any]) -> dict[str, float]:
    """The declared skill of a seat for :mod:`analysis.strength`: its placement ``skill`` (higher
    places more exactly, so is stronger); empty when the value is not a number."""
    v = conf.get("skill", 0.7)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return {}
    return {"a higher placement skill": float(v)}


def headline(run: RunData) -> tuple[str, str, pd.Series] | None:
    """Rounds to the first house, per game (NaN when nobody built), for sweeps."""
    own = own_aligned(run)
    if not has_columns(own, "house_round"):
        return None
    return ("house_round", "rounds to the first house", own["house_round"].astype(float))


def section(run: RunData) -> Section | None:
    """Rounds to the first house, gems spent per seat, and collapses by the builder's skill."""
    own = own_aligned(run)
    if own.empty:
        return None
    sec = Section("Sozoikum: building the house",
                  "How long until someone builds a house that stands, what the stones cost, and how often a "
                  "house falls.")
    n = len(own)
    if "house_round" in own:
        hr = own["house_round"].astype(float)
        built = proportion(int(hr.notna().sum()), n)
        d = distribution(hr, floor=0.0)
        fig = histogram(hr.dropna(), title="Rounds to the first house", xlabel="round in which the first house stood")
        f = (f"A house stood in {100 * built['rate']:.0f} % [{100 * built['lo']:.0f}, {100 * built['hi']:.0f}] of "
             f"games; when one did, it came in round {d['mean']:.1f} on average [{d['lo']:.1f}, {d['hi']:.1f}] "
             f"(median {d['median']:.0f}; 80 % between rounds {d['q10']:.0f} and {d['q90']:.0f}).")
        sec.plots.append(Plot("sozoikum_house_round", "Rounds to the first house", fig, f,
                              "Share of games (among those with a house) by the round the first house stood."))
        sec.findings.append(f)
    cols = [f"gems_spent_{s}" for s in range(run.n_seats)]
    if has_columns(own, *cols):
        ds = [distribution(own[c].astype(float), floor=0.0) for c in cols]
        fig = bar_ci(seat_labels(run), [d["mean"] for d in ds], [d["lo"] for d in ds], [d["hi"] for d in ds],
                     title="Gems spent per game", ylabel="gems paid to the mine per game (mean)", percent=False,
                     colors=[seat_color(s) for s in range(run.n_seats)])
        winner = run.games["winner"].to_numpy()
        spent = own[cols].to_numpy(float)
        w = [spent[i, int(winner[i])] for i in range(n) if winner[i] == winner[i]]
        o = [spent[i, s] for i in range(n) for s in range(run.n_seats) if winner[i] == winner[i] and s != int(winner[i])]
        f = ("Gems spent per game: " + "; ".join(f"seat {s} {d['mean']:.1f} [{d['lo']:.1f}, {d['hi']:.1f}]"
                                                for s, d in enumerate(ds))
             + (f". The house builder spent {np.mean(w):.1f} gems, the others {np.mean(o):.1f} on average." if w and o else "."))
        sec.plots.append(Plot("sozoikum_gems", "Gems spent", fig, f,
                              "Mean gems each seat paid to the mine per game; whiskers: 95 % intervals."))
        sec.findings.append(f)
    builds = run.detail("builds")
    if has_columns(builds, "seat", "stood") and len(builds):
        seats = run.detail("seats")
        b = builds
        if has_columns(seats, "seat", "skill"):
            b = builds.merge(seats[["point", "game_index", "seat", "skill"]], on=["point", "game_index", "seat"], how="left")
        total = proportion(int((b["stood"] == 0).sum()), len(b))
        f = (f"{len(b)} build attempts in {n} games ({len(b) / max(n, 1):.2f} per game); "
             f"{100 * total['rate']:.0f} % [{100 * total['lo']:.0f}, {100 * total['hi']:.0f}] of them collapsed.")
        if "skill" in b and b["skill"].nunique() >= 2:
            levels = sorted(b["skill"].dropna().unique())
            ps = [proportion(int((b.loc[b["skill"] == lv, "stood"] == 0).sum()), int((b["skill"] == lv).sum()))
                  for lv in levels]
            fig = lines_ci([float(x) for x in levels], [("collapse rate", [p["rate"] for p in ps], [p["lo"] for p in ps],
                                                         [p["hi"] for p in ps])],
                           title="Houses that collapse, by the builder's skill",
                           xlabel="builder's placement skill (scenario value, 1 = steadiest)",
                           ylabel="build attempts that collapsed", percent=True, colors=["#D55E00"])
            f += " By skill: " + ", ".join(f"{lv:g}: {100 * p['rate']:.0f} % of {p['n']}" for lv, p in zip(levels, ps)) + "."
            sec.plots.append(Plot("sozoikum_collapses", "Collapses by skill", fig, f,
                                  "Share of build attempts whose house did not stand, by the builder's skill; 95 % "
                                  "Wilson intervals."))
        sec.findings.append(f)
    return sec if (sec.plots or sec.findings) else None


class SozoikumReport(GameReport):
    """Sozoikum's report: its section, its headline and its seats' declared skill (the other hooks
    add nothing)."""

    section = staticmethod(section)
    headline = staticmethod(headline)
    seat_skill = staticmethod(seat_skill)


#: what the Sozoikum plug-in names as its ``report``
REPORT = SozoikumReport()
