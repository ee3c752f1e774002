"""Report section of Stonehenge Rocks!: points by source and guard removals.

Reads ``rocks_games``: per seat ``seat<i>_box_points``, ``seat<i>_trilithon_points``,
``seat<i>_tshirt_points``, ``seat<i>_guard_removals`` (columns of seats a game does not have are
NULL), and ``turns``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.games import GameReport, has_columns, own_aligned
from analysis.metrics import distribution, proportion
from analysis.plots import Plot, Section, histogram, new_figure
from analysis.run_data import RunData
from analysis.wording import seat_labels

SOURCES = (("box", "box seats (3 each)", "#0072B2"), ("trilithon", "trilithon (2 each)", "#E69F00"),
           ("tshirt", "T-shirts (1 each)", "#009E73"))


def headline(run: RunData) -> tuple[str, str, pd.Series] | None:
    """Guard removals per game (all seats), for sweeps."""
    own = own_aligned(run)
    cols = [f"seat{s}_guard_removals" for s in range(run.n_seats)]
    if not has_columns(own, *cols):
        return None
    return ("guard_removals", "guard removals per game", own[cols].fillna(0).sum(axis=1).astype(float))


def section(run: RunData) -> Section | None:
    """Points by source per seat (stacked means with intervals on the totals), the source mix of
    winners against the others, and guard removals per game."""
    own = own_aligned(run)
    seats = list(range(run.n_seats))
    sec = Section("Stonehenge Rocks!: where the points come from",
                  "Box seats score 3, a fan on one's trilithon 2, a T-shirt 1. The security guard sends fans "
                  "back to the pile.")
    need = [f"seat{s}_{k}_points" for s in seats for k, _, _ in SOURCES]
    if has_columns(own, *need):
        fig, ax = new_figure(7.5, 4.2)
        x = np.arange(len(seats))
        bottom = np.zeros(len(seats))
        means = {}
        for k, lab, col in SOURCES:
            m = np.array([own[f"seat{s}_{k}_points"].mean() for s in seats], dtype=float)
            means[k] = m
            ax.bar(x, m, bottom=bottom, color=col, label=lab, width=0.6, zorder=2)
            bottom += m
        tot = [distribution(sum(own[f"seat{s}_{k}_points"] for k, _, _ in SOURCES)) for s in seats]
        ax.errorbar(x, [d["mean"] for d in tot], yerr=np.vstack([[d["mean"] - d["lo"] for d in tot],
                                                                   [d["hi"] - d["mean"] for d in tot]]),
                    fmt="none", ecolor="black", capsize=5, lw=1.2, zorder=3)
        ax.set_xticks(x, [lab.replace(": ", "\n", 1) for lab in seat_labels(run)])
        ax.set_ylabel("mean points per game")
        ax.set_title("Points by source")
        ax.grid(axis="x", visible=False)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        grand = sum(means[k].sum() for k, _, _ in SOURCES) or 1.0
        mix = ", ".join(f"{lab.split(' (')[0]} {100 * means[k].sum() / grand:.0f} %" for k, lab, _ in SOURCES)
        # winners against the rest: which source separates them
        win_mix = []
        winner = run.games["winner"].to_numpy()
        for k, lab, _ in SOURCES:
            w_pts, o_pts = [], []
            for s in seats:
                col = own[f"seat{s}_{k}_points"].to_numpy(float)
                w_pts.append(col[winner == s])
                o_pts.append(col[(winner != s) & ~np.isnan(col)])
            w = np.concatenate(w_pts) if w_pts else np.array([])
            o = np.concatenate(o_pts) if o_pts else np.array([])
            win_mix.append((lab.split(" (")[0], float(w.mean()) if w.size else float("nan"),
                            float(o.mean()) if o.size else float("nan")))
        # every source's winners-against-others points stated, none singled out as "most" (that
        # would need its own sized test)
        gaps = "; ".join(f"{lab} {w:.1f} against {o:.1f}" for lab, w, o in win_mix if w == w and o == o)
        f = (f"Points come from {mix}. "
             + "Points per game: " + "; ".join(f"seat {s} {num(d['mean'])} [{num(d['lo'])}, {num(d['hi'])}]"
                                              for s, d in zip(seats, tot))
             + (f". Points per game of the winners against the others, by source: {gaps}." if gaps else "."))
        sec.plots.append(Plot("rocks_points_by_source", "Points by source", fig, f,
                              "Stacked: mean points per game from each source; whiskers: 95 % interval of the "
                              "seat's mean total."))
        sec.findings.append(f)
        tab = pd.DataFrame({"source": [w[0] for w in win_mix], "winner's points per game": [f"{w[1]:.2f}" for w in win_mix],
                            "other seats' points per game": [f"{w[2]:.2f}" for w in win_mix]})
        sec.tables.append(("Points by source: winners against the others", tab))
    gcols = [f"seat{s}_guard_removals" for s in seats]
    if has_columns(own, *gcols):
        total = own[gcols].fillna(0).sum(axis=1).to_numpy(float)
        any_p = proportion(int((total > 0).sum()), int(total.size))
        per_seat = [distribution(own[c]) for c in gcols]
        fig = histogram(total, title="Guard removals per game", xlabel="fans sent back by the guard per game (all seats)")
        f = (f"The guard sends back {num(float(total.mean()))} fans per game on average; at least one in "
             f"{100 * any_p['rate']:.0f} % [{100 * any_p['lo']:.0f}, {100 * any_p['hi']:.0f}] of games. Per seat: "
             + ", ".join(f"seat {s} {num(d['mean'])} [{num(d['lo'])}, {num(d['hi'])}]" for s, d in zip(seats, per_seat))
             + ".")
        sec.plots.append(Plot("rocks_guard_removals", "Guard removals", fig, f,
                              "Share of games by the number of fans the guard removed (all seats together)."))
        sec.findings.append(f)
    return sec if sec.plots else None


def num(x: float) -> str:
    """Three significant digits."""
    return "n/a" if x != x else f"{x:.3g}"


class RocksReport(GameReport):
    """Rocks!'s report: its section and its headline (the other hooks add nothing)."""

    section = staticmethod(section)
    headline = staticmethod(headline)


#: what the Rocks! plug-in names as its ``report``
REPORT = RocksReport()
