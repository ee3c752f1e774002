"""The Sun's part of ``stonelab compare``: penalty stones per game, the difficulty curve of both runs
and the rules exercised side by side (:mod:`analysis.compare` reaches them through the Sun's report
module, :mod:`analysis.games.sun`, which re-exports :func:`compare_rows` and :func:`compare_tables`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.games import own_aligned
from analysis.games.sun_rules import rules_exercised
from analysis.metrics import proportion
from analysis.run_data import RunData, pooled_run
from analysis.stats import count_per_game, wilson


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
    (|``noise_aim_deg``|, degrees) and by the mark area's width (``area_width_mm``, mm).

    The bins are the quintiles of both runs' passes pooled, so the two curves share their x.

    Returns:
        Rows ``by`` ("aim error" or "area width"), ``bin`` (label), ``lo_edge, hi_edge``, ``run``
        ("A"/"B"), ``passes, clean, rate, lo, hi`` (Wilson 95 %); empty when a run has no passes.
    """
    pa, pb = a.detail("passes"), b.detail("passes")
    cols = ["by", "bin", "lo_edge", "hi_edge", "run", "passes", "clean", "rate", "lo", "hi"]
    if pa.empty or pb.empty or "penalties" not in pa or "penalties" not in pb:
        return pd.DataFrame(columns=cols)
    out = []
    for by, col, fn in (("aim error", "noise_aim_deg", np.abs), ("area width", "area_width_mm", lambda x: x)):
        if col not in pa or col not in pb:
            continue
        xa, xb = fn(pa[col].astype(float)), fn(pb[col].astype(float))
        both = pd.concat([xa, xb]).dropna()
        if both.empty:
            continue
        edges = np.unique(np.quantile(both, np.linspace(0, 1, CURVE_BINS + 1)))
        if edges.size < 2:
            edges = np.array([edges[0], edges[0]])
        digits = 0 if by == "area width" else 1
        for tag, x, p in (("A", xa, pa), ("B", xb, pb)):
            # right-closed bins, the lowest including its left edge (every pass lands in one bin)
            idx = np.clip(np.searchsorted(edges, x.to_numpy(), side="left") - 1, 0, edges.size - 2)
            clean = (p["penalties"].to_numpy() == 0)
            ok = x.notna().to_numpy()
            for i in range(edges.size - 1):
                sel = ok & (idx == i)
                k, m = int(clean[sel].sum()), int(sel.sum())
                pr = proportion(k, m)
                out.append({"by": by, "bin": f"{edges[i]:.{digits}f}–{edges[i + 1]:.{digits}f}",
                            "lo_edge": float(edges[i]), "hi_edge": float(edges[i + 1]), "run": tag, "passes": m,
                            "clean": k, "rate": pr["rate"], "lo": pr["lo"], "hi": pr["hi"]})
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
