"""The Sun's part of ``stonelab compare``: penalty stones per game, the difficulty curve of both runs
and the rules exercised side by side (:mod:`analysis.compare` reaches them through the Sun's report,
:data:`sim.sun.report.REPORT`, whose ``compare_rows`` and ``compare_tables`` hooks they are)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis.catalogue import ratio_interval
from analysis.games import own_aligned
from analysis.run_data import RunData, pooled_run
from analysis.stats import count_per_game, wilson
from sim.sun.report.metrics import pass_widths
from sim.sun.report.rules_exercised import rules_exercised


def compare_rows(a: RunData, b: RunData) -> list[tuple[str, pd.Series, pd.Series]]:
    """Per-game numbers ``stonelab compare`` sets side by side beside the generic ones: penalty
    stones per game, as ``(label, values of A, values of B)``; none when a run lacks them."""
    oa, ob = own_aligned(a), own_aligned(b)
    if "penalty_total" in oa and "penalty_total" in ob:
        return [("penalty stones per game", oa["penalty_total"], ob["penalty_total"])]
    return []


def compare_tables(a: RunData, b: RunData) -> dict[str, pd.DataFrame]:
    """The Sun's own tables of ``stonelab compare``: ``curve``, the difficulty curve of both runs
    (:func:`difficulty_side_by_side`), and ``rules``, the rules exercised side by side
    (:func:`rules_side_by_side`)."""
    return {"curve": difficulty_side_by_side(a, b), "rules": rules_side_by_side(a, b)}


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
