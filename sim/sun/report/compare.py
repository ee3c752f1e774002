"""The Sun's sections of ``stonelab compare``: the difficulty curve of both runs and the rules
exercised side by side (:func:`compare_sections`, the hook :mod:`analysis.compare` reaches through
the Sun's report, :data:`sim.sun.report.REPORT`), each with its words in the terminal and on the
page. The Sun's per-game numbers (penalty stones per game...) are catalogue metrics
(:mod:`sim.sun.report.metrics`), compared with the generic ones."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis.catalogue import ratio_interval
from analysis.games import CompareSection, TextLine
from analysis.page import png_b64, table_html
from analysis.plots import lines_ci, new_figure_row, ticks_with_n
from analysis.run_data import RunData, pooled_run
from analysis.stats import count_per_game, wilson
from analysis.wording import figure_text, interval_text
from sim.sun.report.metrics import pass_widths
from sim.sun.report.rules_exercised import rules_exercised

#: the keys of the Sun's sections in ``stonelab compare --json`` (the plug-in's ``compare_keys``)
DIFFICULTY_KEY = "sun_difficulty"
RULES_KEY = "sun_rules_exercised"


def compare_sections(a: RunData, b: RunData) -> list[CompareSection]:
    """The Sun's own sections of ``stonelab compare`` (GameReport.compare_sections): the difficulty
    curve of both runs (:func:`difficulty_side_by_side`) and the rules exercised side by side
    (:func:`rules_side_by_side`)."""
    return [DifficultySection(DIFFICULTY_KEY, "Stonehenge and the Sun: difficulty curve", difficulty_side_by_side(a, b)),
            RulesSection(RULES_KEY, "Rules exercised", rules_side_by_side(a, b))]


#: the curve's two axes: (its ``by``, the unit of its bins, its words)
CURVE_AXES = (("aim error", "°", "aim error drawn"), ("area width", " mm", "mark-area width"))


class DifficultySection(CompareSection):
    """The chance of a clean pass of both runs by the aim error drawn and by the mark area's
    width: a figure and a table on the page, one line per bin in the terminal."""

    def lines(self, width: int) -> list[TextLine]:
        out = []
        curve = self.table
        for by, unit, words in CURVE_AXES:
            cv = curve[curve["by"] == by]
            if cv.empty:
                continue
            out.append(TextLine(f"Sun: chance of a clean pass by {words} (A / B; passes)", heading=True))
            for bin_, g in cv.groupby("bin", sort=False):
                ra, rb = g[g["run"] == "A"].iloc[0], g[g["run"] == "B"].iloc[0]
                out.append(TextLine(f"  {bin_}{'' if bin_ == 'empty ring' else unit}: A "
                                    f"{figure_text(ra['rate'], 'proportion')} of {ra['passes']}   B "
                                    f"{figure_text(rb['rate'], 'proportion')} of {rb['passes']}"))
        return out

    def html(self) -> str:
        curve = self.table
        _png, b64 = png_b64(difficulty_figure(curve))
        parts = ["<figure>"
                 f"<img alt='difficulty curve of both runs' src='data:image/png;base64,{b64}'>"
                 "<p class='note'>Share of passes that lose no stone, by the aim error the thrower drew and by "
                 "the width of the mark area (passes over an empty ring, the whole ring one area, are its last "
                 "bin); bins are the quintiles of both runs' passes together; whiskers and bands: 95 % "
                 "intervals clustered by game (identical games once); n under each bin: passes of A / B. Not part of the "
                 "corrected family of tests.</p></figure>"]
        tab = curve.assign(**{
            "clean [95 %]": [f"{figure_text(r, 'proportion')} {interval_text(lo, hi, 'proportion')}"
                             for r, lo, hi in zip(curve["rate"], curve["lo"], curve["hi"])]})
        wide = tab.pivot_table(index=["by", "bin"], columns="run", values=["clean [95 %]", "passes"],
                               aggfunc="first", sort=False)
        wide.columns = [f"{v} {r}" for v, r in wide.columns]
        parts.append("<h3>Clean passes by bin</h3>" + table_html(wide.reset_index()))
        return "\n".join(parts)


class RulesSection(CompareSection):
    """How often each rule came into play in both runs (:func:`rules_side_by_side`): one row per
    event, its rate per game (a share of games for the endings) with its interval."""

    def cells(self) -> list[tuple[str, str, str]]:
        """``(event, A, B)`` as the terminal shows them."""
        return [(str(r.event), rules_cell(r.a_per_game, r.a_lo, r.a_hi, r.a_games_with, r.a_games, r.binary),
                 rules_cell(r.b_per_game, r.b_lo, r.b_hi, r.b_games_with, r.b_games, r.binary))
                for r in self.table.itertuples()]

    def lines(self, width: int) -> list[TextLine]:
        return [TextLine("Sun: rules exercised (per game [95 %])"), *map(TextLine, rules_lines(self.cells(), width))]

    def html(self) -> str:
        rules = self.table
        df = pd.DataFrame({
            "event": rules["event"],
            "A per game [95 %]": [rules_cell(r.a_per_game, r.a_lo, r.a_hi, r.a_games_with, r.a_games, r.binary)
                                  for r in rules.itertuples()],
            "A games with it": [f"{int(k)} of {int(n)}" if k == k else "" for k, n in
                                zip(rules["a_games_with"], rules["a_games"])],
            "B per game [95 %]": [rules_cell(r.b_per_game, r.b_lo, r.b_hi, r.b_games_with, r.b_games, r.binary)
                                  for r in rules.itertuples()],
            "B games with it": [f"{int(k)} of {int(n)}" if k == k else "" for k, n in
                                zip(rules["b_games_with"], rules["b_games"])],
        })
        return ("<p class='note'>How often each rule came into play, per game with its 95 % interval (endings: "
                "share of games, Wilson); sweep points pooled.</p>" + table_html(df))


def rules_lines(cells: list[tuple[str, str, str]], width: int = 80) -> list[str]:
    """The rules-exercised rows as text, ``event  A  B``: the numbers right-aligned in columns as
    wide as their widest cell, never cut or folded; an event name too long for the room the
    numbers leave goes on a line of its own, the numbers on the next (as compare's metric lines)."""
    wa = max([len("A"), *(len(c[1]) for c in cells)])
    wb = max([len("B"), *(len(c[2]) for c in cells)])
    room = max(width - wa - wb - 4, 12)
    we = min(max([len("event"), *(len(c[0]) for c in cells)]), room)
    out = [f"{'event':<{we}}  {'A':>{wa}}  {'B':>{wb}}", "-" * min(width, we + wa + wb + 4)]
    for ev, a, b in cells:
        if len(ev) > we:
            out.append(ev)
            ev = ""
        out.append(f"{ev:<{we}}  {a:>{wa}}  {b:>{wb}}".rstrip())
    return out


def rules_cell(m: float, lo: float, hi: float, k: float, n: float, binary: bool) -> str:
    """One run's figure of an event: a share of games in percent with its interval and count
    (``83 % [55, 95] (10 of 12)``) or a rate per game (``1.25 [0.70, 1.80]``); "not recorded" for NaN."""
    if m != m:
        return "not recorded"
    if binary:
        return f"{100 * m:.0f} % [{100 * lo:.0f}, {100 * hi:.0f}] ({int(k)} of {int(n)})"
    return f"{m:.2f} [{lo:.2f}, {hi:.2f}]"


def difficulty_figure(curve: pd.DataFrame) -> Figure:
    """One figure, both runs: clean-pass chance by aim error (left) and by area width (right)."""
    bys = [b for b in ("aim error", "area width") if (curve["by"] == b).any()]
    fig, axes = new_figure_row(len(bys), 5.2 * len(bys), 4.0)
    axes = list(np.atleast_1d(axes))
    for ax, by in zip(axes, bys):
        c = curve[curve["by"] == by]
        bins = list(dict.fromkeys(c["bin"]))
        series = []
        for tag in ("A", "B"):
            g = c[c["run"] == tag].set_index("bin").reindex(bins)
            series.append((f"run {tag}", g["rate"].tolist(), g["lo"].tolist(), g["hi"].tolist()))
        xlabel = "aim error drawn (|degrees|, quintiles of both runs)" if by == "aim error" else \
            "mark area width (mm, quintiles of both runs; empty ring last)"
        lines_ci(bins, series, title=f"Clean pass by {by}", xlabel=xlabel, ylabel="passes losing no stone",
                 percent=True, colors=["#0072B2", "#D55E00"], ax=ax, categorical=True)
        na = c[c["run"] == "A"].set_index("bin").reindex(bins)["passes"]
        nb = c[c["run"] == "B"].set_index("bin").reindex(bins)["passes"]
        ticks_with_n(ax, list(range(len(bins))), bins, [f"{int(x)}/{int(y)}" for x, y in zip(na, nb)])  # type: ignore[misc]
    return fig


#: Bins of the Sun's difficulty curve (quantiles of both runs' passes together).
CURVE_BINS = 5


def difficulty_side_by_side(a: RunData, b: RunData) -> pd.DataFrame:
    """The chance of a clean pass (no stone lost) of both runs, by the aim error drawn
    (|``noise_aim_deg``|, degrees) and by the mark area's width (:func:`pass_widths`, mm).

    The bins are the quintiles of both runs' passes pooled, so the two curves share their x. The
    passes over an empty ring (the whole ring one area: no finite width) are the width curve's
    last bin, "empty ring", so every pass with a marked area is in one bin. Each bin's interval is
    clustered by game (:func:`analysis.catalogue.ratio_interval`: the passes of one game share its
    layout and players).

    Returns:
        Rows ``by`` ("aim error" or "area width"), ``bin`` (label), ``lo_edge, hi_edge``, ``run``
        ("A"/"B"), ``passes, clean, rate, lo, hi`` (95 %, clustered by game); empty when a run has
        no passes.
    """
    pa, pb = a.detail("passes"), b.detail("passes")
    cols = ["by", "bin", "lo_edge", "hi_edge", "run", "passes", "clean", "rate", "lo", "hi"]
    if pa.empty or pb.empty or "penalties" not in pa or "penalties" not in pb:
        return pd.DataFrame(columns=cols)
    out = []
    for by, col in (("aim error", "noise_aim_deg"), ("area width", "area_width_mm")):
        if col not in pa or col not in pb:
            continue
        if by == "aim error":
            xa, xb = pa[col].astype(float).abs(), pb[col].astype(float).abs()
        else:
            xa, xb = pass_widths(pa), pass_widths(pb)
        both = pd.concat([xa, xb])
        both = both[np.isfinite(both)]
        empty = bool(np.isinf(xa).any() or np.isinf(xb).any())
        if both.empty and not empty:
            continue
        edges = np.unique(np.quantile(both, np.linspace(0, 1, CURVE_BINS + 1))) if not both.empty else np.zeros(0)
        if edges.size == 1:
            edges = np.array([edges[0], edges[0]])
        digits = 0 if by == "area width" else 1
        bins = [(f"{edges[i]:.{digits}f}–{edges[i + 1]:.{digits}f}", float(edges[i]), float(edges[i + 1]))
                for i in range(edges.size - 1)]
        for tag, x, p in (("A", xa, pa), ("B", xb, pb)):
            # right-closed bins, the lowest including its left edge (every finite pass lands in one bin)
            xs = x.to_numpy()
            idx = np.clip(np.searchsorted(edges, xs, side="left") - 1, 0, max(edges.size - 2, 0)) \
                if edges.size else np.zeros(len(xs), dtype=int)
            clean = (p["penalties"].to_numpy() == 0)
            finite = np.isfinite(xs)
            sels = [(lab, lo_e, hi_e, finite & (idx == i)) for i, (lab, lo_e, hi_e) in enumerate(bins)]
            if empty:
                sels.append(("empty ring", math.inf, math.inf, np.isinf(xs)))
            for lab, lo_e, hi_e, sel in sels:
                k, m = int(clean[sel].sum()), int(sel.sum())
                rate = lo = hi = math.nan
                if m:
                    per = pd.DataFrame({"g": list(zip(p.loc[sel, "point"], p.loc[sel, "game_index"])),
                                        "clean": clean[sel].astype(float)}).groupby("g")["clean"].agg(["sum", "size"])
                    rate, lo, hi, _se = ratio_interval(per["sum"].to_numpy(float), per["size"].to_numpy(float), True)
                    if lo != lo:  # one game: nothing measures the spread between games
                        lo, hi = 0.0, 1.0
                out.append({"by": by, "bin": lab, "lo_edge": lo_e, "hi_edge": hi_e, "run": tag, "passes": m,
                            "clean": k, "rate": rate, "lo": lo, "hi": hi})
    return pd.DataFrame(out, columns=cols)


def rules_side_by_side(a: RunData, b: RunData) -> pd.DataFrame:
    """The rules-exercised table (:func:`rules_exercised`) of both runs, sweep points pooled,
    one row per event in A's order (events seen only in B appended).

    Returns:
        ``group, event, binary`` and per run ``X`` in ("a", "b"): ``X_per_game, X_lo, X_hi``,
        ``X_games_with, X_games`` (NaN / 0 when the run lacks the event).
    """
    ta, tb = rules_exercised(pooled_run(a)), rules_exercised(pooled_run(b))
    keep = ["group", "event", "binary", "per_game", "lo", "hi", "games_with", "games"]
    ta, tb = ta[keep], tb[keep]
    m = ta.merge(tb, on=["group", "event", "binary"], how="outer", suffixes=("_a", "_b"), sort=False)
    order = list(ta["event"]) + [e for e in tb["event"] if e not in set(ta["event"])]
    m["_o"] = m["event"].map({e: i for i, e in enumerate(order)})
    m = m.sort_values("_o").drop(columns="_o").reset_index(drop=True)
    m = m.rename(columns={f"{c}_{t}": f"{t}_{c}" for c in keep[3:] for t in ("a", "b")})
    # the table lists a failure cause or an ending only when some game of the run had it: in the
    # other run it happened in none of its games (0, with the interval of 0 events), not "unknown"
    for t, run in (("a", a), ("b", b)):
        n = len(run.games)
        dynamic = m[f"{t}_per_game"].isna() & (m["event"].str.startswith("failed placements: ")
                                               | m["event"].str.startswith("ending: "))
        if dynamic.any():
            hi_count = count_per_game([0.0] * n)[2]
            hi_share = wilson(0, n)[1]
            m.loc[dynamic, f"{t}_per_game"] = 0.0
            m.loc[dynamic, f"{t}_lo"] = 0.0
            m.loc[dynamic, f"{t}_hi"] = np.where(m.loc[dynamic, "binary"].astype(bool), hi_share, hi_count)
            m.loc[dynamic, f"{t}_games_with"] = 0
            m.loc[dynamic, f"{t}_games"] = n
    for c in ("a_games_with", "a_games", "b_games_with", "b_games"):
        m[c] = m[c].astype("Int64")  # counts: NaN (not recorded) without turning them into floats
    return m
