"""Report section of Knizia's druid Stonehenge: lines won by length, early against full claims.

Reads ``druids_games`` (``lines<L>_<seat>``, ``early_<seat>``, ``full_<seat>``, ``games``) and
``druids_claims`` (one row per megalith placed: line length, seat, early flag, stones on the board).
"""

from __future__ import annotations

from collections import Counter
from typing import cast

import numpy as np
import pandas as pd
from matplotlib.ticker import PercentFormatter

from analysis.catalogue import ratio_interval
from analysis.games import GameReport, has_columns, own_aligned
from analysis.metrics import distribution, proportion
from analysis.plots import Plot, Section, new_figure, seat_color, stacked_bars
from analysis.run_data import RunData
from sim.druids.geometry import LINE_LENGTH


def _lines_per_length() -> dict[int, int]:
    """How many lines of each length the board has (from the rules)."""
    return dict(sorted(Counter(LINE_LENGTH).items()))


def headline(run: RunData) -> tuple[str, str, pd.Series] | None:
    """Early claims per game (claims made before the line was full), for sweeps."""
    own = own_aligned(run)
    if not has_columns(own, "early_0", "early_1"):
        return None
    return ("early_claims", "early claims per game", (own["early_0"] + own["early_1"]).astype(float))


def section(run: RunData) -> Section | None:
    """Lines won by length (per seat, as a share of the board's lines of that length, with t
    intervals over games) and early against full claims by line length."""
    own = own_aligned(run)
    claims = run.detail("claims")
    sec = Section("Druids: lines and claims",
                  "Which lines decide the game, and how often a line is claimed before it is full "
                  "(the early domination rule).")
    per_len = _lines_per_length()
    seats = list(range(run.n_seats))
    if has_columns(own, *(f"lines{L}_{s}" for L in per_len for s in seats)):
        match = own["games"].astype(float).clip(lower=1) if "games" in own else 1.0
        fig, ax = new_figure(7.0, 4.0)
        xs = list(per_len)
        width = 0.8 / max(len(seats), 1)
        rows = []
        for i, s in enumerate(seats):
            stats = [distribution(own[f"lines{L}_{s}"] / (per_len[L] * match)) for L in xs]
            m = np.array([d["mean"] for d in stats])
            lo = np.array([d["lo"] for d in stats])
            hi = np.array([d["hi"] for d in stats])
            pos = np.arange(len(xs)) + (i - (len(seats) - 1) / 2) * width
            ax.bar(pos, m, width=width * 0.95, color=seat_color(s), label=f"seat {s}", zorder=2)
            ax.errorbar(pos, m, yerr=np.vstack([m - lo, hi - m]), fmt="none", ecolor="black", capsize=3, lw=1)
            rows.append((s, m))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.set_ylim(0, 1)
        ax.set_xticks(np.arange(len(xs)), [f"{L} spaces\n({per_len[L]} lines)" for L in xs])
        ax.set_xlabel("line length")
        ax.set_ylabel("share of these lines won per game")
        ax.set_title("Lines won by length")
        ax.grid(axis="x", visible=False)
        ax.legend(fontsize=8, loc="upper right")
        unclaimed = 1 - cast(np.ndarray, sum(m for _, m in rows))  # one array per seat, so never the empty sum 0
        # every length's shares stated, none singled out: a "most" would need its own sized test
        f = ("Share of each length's lines won per game: "
             + "; ".join(f"{L} spaces: " + ", ".join(f"seat {s} {100 * m[j]:.0f} %" for s, m in rows)
                         + f" (unclaimed {100 * unclaimed[j]:.0f} %)" for j, L in enumerate(xs)) + ".")
        sec.plots.append(Plot("druids_lines_by_length", "Lines won by length", fig, f,
                              "Bars: mean share of the board's lines of each length that a seat claimed in a game "
                              "(over all games of a match); whiskers: 95 % intervals; the rest went unclaimed "
                              "when the game ended."))
        sec.findings.append(f)
    if has_columns(claims, "length", "early", "seat") and len(claims):
        lengths = sorted(claims["length"].unique())
        early = [int(((claims["length"] == L) & (claims["early"] == 1)).sum()) for L in lengths]
        full = [int(((claims["length"] == L) & (claims["early"] == 0)).sum()) for L in lengths]
        n_games = max(len(run.games), 1)
        fig = stacked_bars([f"{L} spaces" for L in lengths],
                           [("early (line not yet full)", [e / n_games for e in early]),
                            ("full line", [x / n_games for x in full])],
                           title="Claims by line length: early against full", ylabel="claims per game",
                           xlabel="line length", colors=("#D55E00", "#56B4E9"))
        tot_e, tot = sum(early), sum(early) + sum(full)
        p = proportion(tot_e, tot)
        by_seat = []
        for s in seats:
            cs = claims[claims["seat"] == s]
            q = proportion(int((cs["early"] == 1).sum()), len(cs))
            by_seat.append(f"seat {s} {100 * q['rate']:.0f} %")
        # claims of one game share its players: per length the share of early claims is a ratio
        # clustered by game; a length is named "most" only when its interval, corrected for the
        # lengths compared (Bonferroni), lies above the overall share
        k = max(len(lengths), 1)
        above = []
        for L in lengths:
            sub = claims[claims["length"] == L]
            per = sub.groupby(["point", "game_index"])["early"].agg(["sum", "size"])
            if len(per) >= 2:
                r, lo, _hi, _se = ratio_interval(per["sum"].to_numpy(float), per["size"].to_numpy(float), True,
                                                 confidence=1 - 0.05 / k)
                if lo == lo and lo > p["rate"]:
                    above.append((r, L))
        f = (f"{100 * p['rate']:.0f} % [{100 * p['lo']:.0f}, {100 * p['hi']:.0f}] of the {tot} claims are early, made "
             f"before the line is full ({', '.join(by_seat)}); ")
        if above:
            r, L = max(above)
            f += (f"early claims are clearly more common than overall on lines of {L} spaces ({100 * r:.0f} % of "
                  f"their claims; corrected for comparing {k} lengths, Bonferroni).")
        else:
            f += f"no line length has clearly more early claims than overall (corrected for comparing {k} lengths)."
        sec.plots.append(Plot("druids_claims", "Early against full claims", fig, f,
                              "Mean number of megaliths placed per game on lines of each length, split by whether "
                              "the line was still open (early domination) or full when claimed."))
        sec.findings.append(f)
        tab = pd.DataFrame({"line length": lengths, "early claims": early, "full-line claims": full,
                            "early share": [f"{100 * e / (e + x):.0f} %" if e + x else "n/a" for e, x in zip(early, full)]})
        sec.tables.append(("Claims by line length (all games)", tab))
    return sec if sec.plots else None


class DruidsReport(GameReport):
    """The druids' report: its section and its headline (the other hooks add nothing)."""

    section = staticmethod(section)
    headline = staticmethod(headline)


#: what the druids' plug-in names as its ``report``
REPORT = DruidsReport()
