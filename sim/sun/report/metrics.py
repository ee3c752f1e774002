"""The Sun's metrics for the catalogue (:mod:`analysis.catalogue`), each defined once.

**Penalty stones by cause.** A seat's final score is its penalty stones; every one of them has one
of these causes, and the rows sum to the final scores (:func:`penalty_causes`):

- *lost to the ball*: stones a pass knocked off (``sun_passes.penalties``);
- *knocked by a placement*: other stones lost while a placed stone settled
  (``sun_placements.knocked``);
- *past the placement tries*: the stone in hand itself, when a placement failed and the rules made
  it a penalty (``rules.placement_fall = "penalty"``: every failed placement;
  ``"retry"``: the ``max_place_attempts``-th failed placement of a turn and every one after);
- *other*: what the three leave of the final scores (a support that gave way under a gate laid
  back, or a stone a placement pushed out of the field), a row only when some game has it.

"Per pass" counts the ball's stones only: a placement's losses are not a pass's.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from analysis.games import has_columns, own_aligned
from analysis.metric_spec import Metric
from analysis.run_data import RunData
from sim.sun.options import RULE_DEFAULTS

__all__ = ["CAUSE_WORDS", "GAP_BINS_MM", "PLAYER_METRICS", "TUNE_METRICS", "clean_pass_name", "metrics", "pass_widths",
           "penalty_causes"]

#: the causes of a penalty stone, in the order the outputs list them, with their words
CAUSE_WORDS: dict[str, str] = {
    "ball": "stones lost to the ball",
    "knocked": "stones knocked by a placement",
    "tries": "stones lost past the placement tries",
    "other": "stones lost otherwise",
}

#: gap-width bins (mm) of the clean-pass chance: the ball is 35 mm and needs 39 mm with the pass
#: clearance; the speed and calibration measurements used 42-80 mm gaps; an empty ring or a wide-open area is the
#: last bin
GAP_BINS_MM: tuple[float, ...] = (0.0, 60.0, 100.0, 150.0, math.inf)


def clean_pass_name(lo: float, hi: float) -> str:
    """The metric name of the clean-pass chance through gaps of ``lo`` to ``hi`` mm."""
    return f"clean_pass_{int(lo)}_{'inf' if not math.isfinite(hi) else int(hi)}mm"


def pass_widths(passes: pd.DataFrame) -> pd.Series:
    """The clear width (mm) of the mark area each pass went through: ``inf`` for a pass over an
    empty ring (the whole ring one area: the rules store no finite width, but the area's middle),
    NaN only where the marker named no area (no middle either)."""
    w = pd.to_numeric(passes["area_width_mm"], errors="coerce").astype(float)
    if "area_mid_deg" in passes:
        w = w.where(w.notna() | passes["area_mid_deg"].isna(), math.inf)
    return w


def _rules_at(run: RunData) -> dict[int, dict[str, Any]]:
    """Each sweep point's ``[rules]`` (scenario values over the defaults, sweep values applied)."""
    base = {**RULE_DEFAULTS, **dict(run.scenario.get("rules") or {})}
    out: dict[int, dict[str, Any]] = {}
    pts = run.points if not run.points.empty else pd.DataFrame({"point": [0]})
    for _, p in pts.iterrows():
        conf = dict(base)
        for k in run.sweep_keys:
            if k.startswith("rules."):
                conf[k[len("rules."):]] = p.get(f"sweep:{k}")
        out[int(p["point"])] = conf
    return out


def penalty_causes(run: RunData) -> pd.DataFrame:
    """Penalty stones of every game by cause (module docstring): ``point, game_index, total,
    ball, knocked, tries, other, passes`` (``total``: the seats' final scores summed)."""
    g = run.games
    keys = g[["point", "game_index"]].astype(int).reset_index(drop=True)
    idx = pd.MultiIndex.from_frame(keys)
    score_cols = [c for c in g.columns if c.startswith("score_") and c[len("score_"):].isdigit()]
    total = g[score_cols].apply(pd.to_numeric, errors="coerce").fillna(0.0).sum(axis=1).to_numpy(float)
    out = keys.copy()
    out["total"] = total

    def by_game(df: pd.DataFrame, col: str | None) -> np.ndarray:
        if df.empty:
            return np.zeros(len(keys))
        v = df[col].fillna(0).astype(float) if col else pd.Series(1.0, index=df.index)
        s = v.groupby([df["point"].astype(int), df["game_index"].astype(int)]).sum()
        return s.reindex(idx).fillna(0.0).to_numpy(float)

    passes, place = run.detail("passes"), run.detail("placements")
    out["ball"] = by_game(passes, "penalties") if has_columns(passes, "penalties") else 0.0
    out["passes"] = by_game(passes, None) if has_columns(passes, "turn") else np.nan
    out["knocked"] = by_game(place, "knocked") if has_columns(place, "knocked") else 0.0
    tries = np.zeros(len(keys))
    if has_columns(place, "standing", "turn", "seat"):
        rules = _rules_at(run)
        bad = place.sort_values(["point", "game_index", "seq"] if "seq" in place else ["point", "game_index"])
        bad = bad[bad["standing"] != 1]
        # the k-th failed placement of a turn (k from 1): the rules' own count of attempts
        k = bad.groupby(["point", "game_index", "turn", "seat"]).cumcount() + 1
        mode = bad["point"].astype(int).map(lambda p: str(rules.get(p, rules.get(0, {})).get("placement_fall")))
        most = bad["point"].astype(int).map(lambda p: int(rules.get(p, rules.get(0, {})).get("max_place_attempts", 4)))
        lost = bad[(mode == "penalty") | (k >= most)]
        tries = by_game(lost, None)
    out["tries"] = tries
    out["other"] = out["total"] - out["ball"] - out["knocked"] - out["tries"]
    return out


def _causes(run: RunData) -> pd.DataFrame:
    cache = run.__dict__.setdefault("_catalogue_cache", {})
    if "sun_causes" not in cache:
        cache["sun_causes"] = penalty_causes(run)
    return cache["sun_causes"]


def _frame(c: pd.DataFrame, num: Any, den: Any = 1.0) -> pd.DataFrame:
    return pd.DataFrame({"point": c["point"], "game_index": c["game_index"], "num": num, "den": den})


def metrics(run: RunData) -> list[Metric]:
    """The Sun's metrics (module docstring): penalty stones per game, all and by cause; stones
    lost to the ball per pass; the share of clean passes, overall and by the mark area's width;
    games ending with the field empty."""
    passes = run.detail("passes")
    if not has_columns(passes, "penalties") and not has_columns(own_aligned(run), "penalty_total"):
        return []
    out = [Metric("penalties_per_game", "penalty stones per game (all causes)",
                  "penalty stones of all seats (the final scores summed)", "games", "game", "lower", False,
                  lambda r: _frame(_causes(r), _causes(r)["total"]), tune=True, sensitivity=True, count=True)]
    causes = _causes(run)
    for cause, words in CAUSE_WORDS.items():
        if cause == "other" and not (causes["other"] != 0).any():
            continue
        out.append(Metric(f"{cause}_penalties_per_game", f"{words} per game", words, "games", "game", "lower",
                          False, lambda r, c=cause: _frame(_causes(r), _causes(r)[c]), count=True))
    if has_columns(passes, "penalties", "turn"):
        out.append(Metric("ball_stones_per_pass", "stones lost to the ball per pass",
                          "stones lost to the ball (placements' losses not counted)", "passes", "pass", "lower",
                          False, lambda r: _frame(_causes(r), _causes(r)["ball"], _causes(r)["passes"])))
        out.append(Metric("clean_pass_share", "clean passes (no stone lost)", "passes that lost no stone",
                          "passes", "pass", "higher", True, lambda r: _clean(r, None)))
    if has_columns(passes, "penalties", "area_width_mm"):
        for lo, hi in zip(GAP_BINS_MM[:-1], GAP_BINS_MM[1:]):
            what = f"{lo:.0f}-{hi:.0f} mm" if math.isfinite(hi) else f"{lo:.0f} mm or more"
            if lo == 0:
                what = f"under {hi:.0f} mm"
            out.append(Metric(clean_pass_name(lo, hi), f"clean-pass chance, mark areas {what} wide",
                              f"passes through mark areas {what} wide that lost no stone",
                              f"passes through mark areas {what} wide", "pass", "higher", True,
                              lambda r, lo=lo, hi=hi: _clean(r, (lo, hi)), tune=True, sensitivity=True))
    if has_columns(own_aligned(run), "field_left"):
        def empty(r: RunData) -> pd.DataFrame:
            own = own_aligned(r)
            left = pd.to_numeric(own["field_left"], errors="coerce")
            return _frame(own, (left == 0).astype(float), left.notna().astype(float))

        out.append(Metric("field_empty_share", "games ending with the field empty",
                          "games whose field was empty at the end", "games", "game", "neither", True, empty,
                          tune=True, sensitivity=True))
    return out + _player_penalties(run)


def _player_penalties(run: RunData) -> list[Metric]:
    """``penalties[player]``: penalty stones a player lost per game it played (all causes: its
    seats' final scores summed), listed when two or more players share the run."""
    if "labels" not in run.games:
        return []
    labels = sorted({lab for ls in run.games["labels"] for lab in ls})
    out = []
    for lab in labels:
        def values(r: RunData, lab: str = lab) -> pd.DataFrame:
            g = r.games
            num, den = [], []
            for i, ls in enumerate(g["labels"]):
                mine = [s for s, x in enumerate(ls) if x == lab]
                sc = [pd.to_numeric(g[f"score_{s}"].iloc[i], errors="coerce") if f"score_{s}" in g else np.nan
                      for s in mine]
                ok = bool(mine) and all(v == v for v in sc)
                num.append(float(sum(sc)) if ok else 0.0)
                den.append(1.0 if ok else 0.0)
            return pd.DataFrame({"point": g["point"].to_numpy(), "game_index": g["game_index"].to_numpy(),
                                 "num": num, "den": den})

        out.append(Metric(f"penalties[{lab}]", "penalty stones per game (all causes)",
                          f"penalty stones {lab} lost (its seats' final scores)", "games it played", "game", "lower",
                          False, values, group=lab, tune=True, listed=len(labels) >= 2, count=True))
    return out


def _clean(run: RunData, width: tuple[float, float] | None) -> pd.DataFrame:
    """Clean passes and passes per game (through mark areas of ``width`` mm, lo inclusive)."""
    p = run.detail("passes")
    keys = run.games[["point", "game_index"]].astype(int).reset_index(drop=True)
    if width is not None:
        w = pass_widths(p)
        p = p[(w >= width[0]) & ((w < width[1]) | ((w == math.inf) & (width[1] == math.inf)))]
    grp = [p["point"].astype(int), p["game_index"].astype(int)]
    clean = (p["penalties"] == 0).astype(float).groupby(grp).sum()
    n = pd.Series(1.0, index=p.index).groupby(grp).sum()
    idx = pd.MultiIndex.from_frame(keys)
    return _frame(keys, clean.reindex(idx).fillna(0.0).to_numpy(), n.reindex(idx).fillna(0.0).to_numpy())


#: the names of the Sun's catalogue metrics (:func:`metrics`) flagged ``tune``: what a
#: `stonelab tune` target may name before any game is played (a test holds the two lists equal)
TUNE_METRICS: tuple[str, ...] = ("penalties_per_game", "field_empty_share",
                                 *(clean_pass_name(lo, hi) for lo, hi in zip(GAP_BINS_MM[:-1], GAP_BINS_MM[1:])))
#: the Sun's per-player catalogue metrics: ``penalties[player]`` = penalty stones a player lost per game
#: (all causes: its seats' final scores)
PLAYER_METRICS: tuple[str, ...] = ("penalties",)
