"""Generic balance and difficulty metrics of a study, computed from the loaded store frames.

Every function takes the frames of :func:`analysis.load.load_run` (or a slice of them, e.g. one
sweep point) and returns plain numbers or small DataFrames; plots and wording live elsewhere.

Conventions:

- **Outcomes** (one definition for the CLI summary, the report and the export, see
  :func:`outcome`): a game is *decisive* when it has a sole winner, a *shared win* when two or
  more seats win together, a *draw* when no seat wins. A seat's **win** is a sole win
  (``games.winner == seat``). A seat's **score** in a game (:func:`win_share`) is its share of the
  win: 1 for a sole win, 1/k for a win shared by k seats, 1/n for a draw of n seats, 0 for a loss
  (in two-player games: win + half a draw or shared win).
- Intervals are 95 %: Wilson for proportions, Student t for means.
- **Drama and decisiveness** (after Browne, *Automatic Generation and Evaluation of Recombination
  Games*, 2008) read ``games.leads_json``: ``[[action_number, leader], ...]``, one entry each time
  the running leader changes (``-1`` when several seats share the top provisional score).

  * *lead changes*: the number of times the sole leader becomes a different seat (ties are
    skipped: A, tie, A is no change; A, tie, B is one).
  * *decided at*: the fraction of the game's actions played before the final sole winner took the
    lead for good (the action number of the winner's last take-over divided by the game's length);
    1.0 when the winner never led on provisional scores before the end.
  * *comeback*: the winner was behind (another seat sole leader) at some moment.

- **Skill importance** (after Jaffe et al., *Evaluating Competitive Game Balance with Restricted
  Play*, AIIDE 2012): the score of one agent against another, in games where the seats have
  different agents; which agent is *stronger* comes from the scenario (:mod:`analysis.strength`),
  never from the results. A strong agent that barely beats random play means the game rewards
  skill little.
- A score's interval is the Wilson interval of its sum over the games: draws and shared wins make
  a per-game score vary less than a win/loss coin with the same mean, so this is conservative.
"""

from __future__ import annotations

import json
import math
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from analysis.stats import binomial_p, chisquare_uniform, mean_ci, wilson
from analysis.strength import Strength, strongest
from sim.core.game import OUTCOME_KINDS, outcome_kind


def proportion(k: float, n: int) -> dict[str, float]:
    """``{"k", "n", "rate", "lo", "hi"}`` with a Wilson 95 % interval (all NaN when n == 0: no
    data, so nothing to draw). ``k`` may be fractional (a sum of scores); it is kept as given."""
    if n == 0:
        nan = float("nan")
        return {"k": k, "n": 0, "rate": nan, "lo": nan, "hi": nan}
    # sums of shares such as 1/3 + 2/3 can land a hair outside [0, n]
    k = min(max(k, 0), n)
    lo, hi = wilson(k, n)
    return {"k": k, "n": int(n), "rate": k / n, "lo": lo, "hi": hi}


# --- outcomes and win rates --------------------------------------------------------------------
#: The three ways a game can end, as :func:`outcome` names them (defined once, in sim.core.game).
OUTCOMES: tuple[str, ...] = OUTCOME_KINDS
#: ``"sole"``, ``"shared"`` or ``"draw"`` for a game's winners (:func:`sim.core.game.outcome_kind`)
outcome = outcome_kind


def win_share(winners: Sequence[int], seat: int, n_seats: int) -> float:
    """A seat's share of a game's win: 1 for a sole win, 1/k for a win shared by k seats, 1/n for
    a draw (no winner) of ``n_seats`` seats, 0 for a loss. The shares of a game sum to 1.

    Raises:
        ValueError: ``n_seats`` is not positive.
    """
    if n_seats <= 0:
        raise ValueError(f"n_seats must be positive, got {n_seats}")
    if not winners:
        return 1.0 / n_seats
    return 1.0 / len(winners) if seat in winners else 0.0


def seat_win_rates(games: pd.DataFrame, seats: pd.DataFrame, n_seats: int) -> pd.DataFrame:
    """Sole wins, shared wins and scores per seat, with Wilson 95 % intervals.

    Returns:
        One row per seat: ``seat, label, games, wins, rate, lo, hi`` (sole wins), ``shared``
        (games the seat won together with others), ``draws`` (games nobody won), ``score, score_lo,
        score_hi`` (mean :func:`win_share`); ``label``: the seat's agent labels, joined with " / "
        when a sweep changes them.
    """
    n = len(games)
    cols = ["seat", "label", "games", "wins", "rate", "lo", "hi", "shared", "draws", "score", "score_lo", "score_hi"]
    rows = []
    winners = games["winners"].tolist() if "winners" in games else []
    draws = sum(1 for w in winners if not w)
    for s in range(n_seats):
        wins = sum(1 for w in winners if list(w) == [s])
        shared = sum(1 for w in winners if len(w) > 1 and s in w)
        total = math.fsum(win_share(w, s, n_seats) for w in winners)
        labels = seats.loc[seats["seat"] == s, "label"].unique().tolist() if not seats.empty else []
        p = proportion(wins, n)
        sc = proportion(total, n)
        rows.append({"seat": s, "label": " / ".join(map(str, labels)), "games": n, "wins": wins,
                     "rate": p["rate"], "lo": p["lo"], "hi": p["hi"], "shared": shared, "draws": draws,
                     "score": sc["rate"], "score_lo": sc["lo"], "score_hi": sc["hi"]})
    return pd.DataFrame(rows, columns=cols)


def first_player_advantage(games: pd.DataFrame, n_seats: int) -> dict[str, Any]:
    """Test of seat 0's advantage: exact binomial test of seat 0's wins among decisive games
    against ``1 / n_seats``, and a chi-square test of all seats' wins against equal shares.

    Returns:
        ``{"decisive", "wins", "rate", "lo", "hi", "expected", "p_binomial", "chi2", "p_chi2",
        "counts"}``; rate/interval are seat 0's share of decisive games; ``counts``: each seat's
        sole wins, as :func:`seat_win_rates` counts them (``games`` needs its ``winners`` lists).
    """
    counts = [int(w) for w in seat_win_rates(games, pd.DataFrame(), n_seats)["wins"]]
    decisive = int(sum(counts))
    k = counts[0] if counts else 0
    expected = 1.0 / n_seats if n_seats else float("nan")
    p = proportion(k, decisive)
    chi2, p_chi2 = chisquare_uniform(counts)
    return {
        "decisive": decisive, "wins": k, "rate": p["rate"], "lo": p["lo"], "hi": p["hi"],
        "expected": expected, "p_binomial": binomial_p(k, decisive, expected) if n_seats else 1.0,
        "chi2": chi2, "p_chi2": p_chi2, "counts": counts,
    }


def seats_same_agent(games: pd.DataFrame) -> bool:
    """True when every game's seats have one and the same agent label (so seat effects are
    position effects, not agent effects)."""
    if games.empty:
        return True
    return bool(games["labels"].map(lambda ls: len(set(ls)) <= 1).all())


# --- length, scores, endings -------------------------------------------------------------------
def distribution(values: Iterable[float], floor: float | None = None) -> dict[str, float]:
    """Summary of a numeric sample: ``n, mean, lo, hi`` (t 95 % CI of the mean), ``sd, median,
    q10, q90, min, max`` (NaN where undefined). ``floor`` clips the interval's low end (e.g. 0 for
    counts, which cannot have a negative mean)."""
    x = np.asarray([v for v in values if v is not None], dtype=float)
    x = x[~np.isnan(x)]
    nan = float("nan")
    if x.size == 0:
        return {"n": 0, "mean": nan, "lo": nan, "hi": nan, "sd": nan, "median": nan,
                "q10": nan, "q90": nan, "min": nan, "max": nan}
    m, lo, hi = mean_ci(x.tolist())
    if floor is not None:
        lo = max(lo, floor)
    return {
        "n": int(x.size), "mean": m, "lo": lo, "hi": hi, "sd": float(x.std(ddof=1)) if x.size > 1 else 0.0,
        "median": float(np.median(x)), "q10": float(np.quantile(x, 0.1)), "q90": float(np.quantile(x, 0.9)),
        "min": float(x.min()), "max": float(x.max()),
    }


def length_summary(games: pd.DataFrame) -> dict[str, float]:
    """Distribution of game length (non-chance actions); see :func:`distribution`."""
    return distribution(games["length"] if "length" in games else [])


def score_summary(seats: pd.DataFrame, n_seats: int) -> pd.DataFrame:
    """Per-seat score distribution: one row per seat with the :func:`distribution` fields."""
    rows = []
    for s in range(n_seats):
        d = distribution(seats.loc[seats["seat"] == s, "score"] if not seats.empty else [])
        rows.append({"seat": s, **d})
    return pd.DataFrame(rows)


def endings(games: pd.DataFrame) -> dict[str, Any]:
    """How games ended.

    Returns:
        ``{"games", "decisive", "draws", "shared", "draw_rate" (proportion dict of draws or
        shared wins), "terminations": {reason: proportion dict}}``. A *draw* has no winner, a
        *shared* win several.
    """
    n = len(games)
    nw = games["winners"].map(len) if n else pd.Series(dtype=int)
    draws = int((nw == 0).sum())
    shared = int((nw > 1).sum())
    terms = games["termination"].value_counts() if n else pd.Series(dtype=int)
    return {
        "games": n, "decisive": int((nw == 1).sum()), "draws": draws, "shared": shared,
        "draw_rate": proportion(draws + shared, n),
        "terminations": {str(k): proportion(int(v), n) for k, v in terms.items()},
    }


# --- skill importance ------------------------------------------------------------------------------
SKILL_COLUMNS: tuple[str, ...] = (
    "pairing", "label", "agent", "stronger", "ordered", "why", "games", "wins", "shared", "draws", "losses",
    "score", "lo", "hi", "expected",
)


def skill_importance(games: pd.DataFrame, seats: pd.DataFrame,
                     strengths: Mapping[str, Strength | None] | None = None) -> pd.DataFrame:
    """Each agent's score against the other agents, for each pairing of different agents.

    Only games whose seats hold at least two different agent labels count. Per game an agent
    *wins* when the winners are its seats only, *shares* a win when its seats and another agent's
    win together, *draws* when nobody wins, else *loses*. Its score is the summed
    :func:`win_share` of its seats; ``expected``, its score under no skill effect, is its seats /
    seats in the game (averaged over the games).

    Args:
        games: the games frame (``labels``, ``winners``).
        seats: the seats table (label to agent name).
        strengths: each label's declared strength (:func:`analysis.strength.label_strengths`);
            without it no agent is called stronger.

    Returns:
        One row per (pairing, label): ``pairing`` (labels joined by " vs "), ``label``, ``agent``
        (base agent name), ``stronger`` (True for the label the scenario declares stronger than
        every other of the pairing), ``ordered`` (the pairing has such a label), ``why`` (the
        declared keys that decide, or why nothing does), ``games, wins, shared, draws, losses``,
        ``score, lo, hi`` (mean score, Wilson 95 % interval), ``expected``; empty when every game
        has one agent on all seats.
    """
    cols = list(SKILL_COLUMNS)
    if games.empty:
        return pd.DataFrame(columns=cols)
    agent_of: dict[str, str] = {}
    if not seats.empty:
        for lab, ag in seats[["label", "agent"]].drop_duplicates().itertuples(index=False):
            agent_of.setdefault(str(lab), str(ag))
    acc: dict[tuple[str, ...], dict[str, list[float]]] = {}
    for labels, winners in zip(games["labels"], games["winners"]):
        if len(set(labels)) < 2:
            continue
        key = tuple(sorted(set(labels)))
        # games, wins, shared, draws, losses, score sum, expected sum
        d = acc.setdefault(key, {lab: [0, 0, 0, 0, 0, 0.0, 0.0] for lab in key})
        n = len(labels)
        for lab in key:
            mine = [s for s in range(n) if labels[s] == lab]
            row = d[lab]
            row[0] += 1
            won = [w for w in winners if w in mine]
            if not winners:
                row[3] += 1
            elif len(won) == len(winners):
                row[1] += 1
            elif won:
                row[2] += 1
            else:
                row[4] += 1
            row[5] += math.fsum(win_share(winners, s, n) for s in mine)
            row[6] += len(mine) / n
    rows = []
    for key, d in acc.items():
        best, why = strongest(list(key), strengths or {}) if strengths is not None else \
            (None, ["no strengths were given"])
        for lab in key:
            g, w, sh, dr, lo_, sc, e = d[lab]
            p = proportion(sc, int(g))
            rows.append({"pairing": " vs ".join(key), "label": lab, "agent": agent_of.get(lab, lab),
                         "stronger": lab == best, "ordered": best is not None, "why": "; ".join(why),
                         "games": int(g), "wins": int(w), "shared": int(sh), "draws": int(dr), "losses": int(lo_),
                         "score": p["rate"], "lo": p["lo"], "hi": p["hi"], "expected": e / g if g else float("nan")})
    return pd.DataFrame(rows, columns=cols)


# --- drama and decisiveness --------------------------------------------------------------------
def lead_stats(leads: list[list[int]], length: int, winner: int | None) -> dict[str, float]:
    """Browne's measures for one game (definitions in the module docstring).

    Returns:
        ``{"lead_changes", "decided_at", "comeback"}``; ``decided_at`` and ``comeback`` are NaN
        for a game without a sole winner or without recorded leads.
    """
    sole = [who for _, who in leads if who >= 0]
    collapsed = [x for i, x in enumerate(sole) if i == 0 or x != sole[i - 1]]
    changes = max(len(collapsed) - 1, 0)
    nan = float("nan")
    if winner is None or not leads:
        return {"lead_changes": float(changes), "decided_at": nan, "comeback": nan}
    if leads[-1][1] == winner:
        decided = leads[-1][0] / length if length > 0 else 1.0
    else:
        decided = 1.0
    comeback = float(any(who >= 0 and who != winner for _, who in leads))
    return {"lead_changes": float(changes), "decided_at": min(max(decided, 0.0), 1.0), "comeback": comeback}


def drama_frame(games: pd.DataFrame) -> pd.DataFrame:
    """Per game: ``point, game_index, lead_changes, decided_at, comeback, has_leads``."""
    rows = []
    if games.empty:
        return pd.DataFrame(columns=["point", "game_index", "lead_changes", "decided_at", "comeback", "has_leads"])
    for pt, gi, lj, length, winner in zip(games["point"], games["game_index"], games["leads_json"],
                                          games["length"], games["winner"]):
        leads = json.loads(lj) if isinstance(lj, str) and lj else []
        w = None if winner is None or (isinstance(winner, float) and math.isnan(winner)) else int(winner)
        rows.append({"point": pt, "game_index": gi, **lead_stats(leads, int(length), w), "has_leads": bool(leads)})
    return pd.DataFrame(rows)


def drama_summary(drama: pd.DataFrame) -> dict[str, Any]:
    """Summary of :func:`drama_frame`: ``games`` (with leads), ``lead_changes`` and ``decided_at``
    (:func:`distribution` dicts), ``comeback`` (proportion dict over decisive games)."""
    d = drama[drama["has_leads"]] if not drama.empty else drama
    decisive = d["comeback"].dropna() if not d.empty else pd.Series(dtype=float)
    return {
        "games": int(len(d)),
        "lead_changes": distribution(d["lead_changes"] if not d.empty else [], floor=0.0),
        "decided_at": distribution(d["decided_at"] if not d.empty else []),
        "comeback": proportion(int(decisive.sum()), int(len(decisive))),
    }


# --- sweeps ---------------------------------------------------------------------------------------
def _seat_columns(g: pd.DataFrame, n_seats: int) -> dict[str, float]:
    """``win_<s>, win_<s>_lo, win_<s>_hi`` (sole wins) and ``score_<s>, score_<s>_lo, score_<s>_hi``
    of each seat, from :func:`seat_win_rates` (one computation of win rates for every table)."""
    out: dict[str, float] = {}
    for r in seat_win_rates(g, pd.DataFrame(), n_seats).itertuples():
        s = r.seat
        out.update({f"win_{s}": r.rate, f"win_{s}_lo": r.lo, f"win_{s}_hi": r.hi,
                    f"score_{s}": r.score, f"score_{s}_lo": r.score_lo, f"score_{s}_hi": r.score_hi})
    return out


def sweep_effects(
    games: pd.DataFrame, sweep_keys: list[str], n_seats: int, extra: dict[str, pd.Series] | None = None
) -> pd.DataFrame:
    """The headline metrics for each value of each swept key (other keys pooled).

    Args:
        games: the games frame (with ``sweep:<key>`` columns).
        sweep_keys: the swept keys.
        n_seats: seats.
        extra: optional per-game numeric series (indexed like ``games``) named by metric, e.g. a
            game's headline column; their means get t intervals.

    Returns:
        One row per (key, value): ``key, value, games``, per seat ``win_<s>, win_<s>_lo,
        win_<s>_hi`` (sole wins) and ``score_<s>, score_<s>_lo, score_<s>_hi`` (share of the win),
        ``draw, draw_lo, draw_hi`` (no sole winner), ``length, length_lo, length_hi`` and for each
        extra metric ``<m>, <m>_lo, <m>_hi``.
    """
    rows = []
    for key in sweep_keys:
        col = f"sweep:{key}"
        if col not in games:
            continue
        # group on the JSON text so lists and mixed types group cleanly, keep first-seen order
        keyed = games[col].map(lambda v: json.dumps(v, sort_keys=True))
        order = list(dict.fromkeys(keyed))
        try:
            order.sort(key=lambda t: (0, float(json.loads(t))))
        except (TypeError, ValueError):
            pass
        for kv in order:
            sel = keyed == kv
            g = games[sel]
            row: dict[str, Any] = {"key": key, "value": json.loads(kv), "games": int(len(g))}
            row.update(_seat_columns(g, n_seats))
            e = endings(g)["draw_rate"]
            row.update({"draw": e["rate"], "draw_lo": e["lo"], "draw_hi": e["hi"]})
            d = distribution(g["length"], floor=0.0)
            row.update({"length": d["mean"], "length_lo": d["lo"], "length_hi": d["hi"]})
            for name, series in (extra or {}).items():
                d = distribution(series[sel.values] if len(series) == len(sel) else [])
                row.update({name: d["mean"], f"{name}_lo": d["lo"], f"{name}_hi": d["hi"]})
            rows.append(row)
    return pd.DataFrame(rows)


def per_point(games: pd.DataFrame, points: pd.DataFrame, n_seats: int) -> pd.DataFrame:
    """The headline metrics for each sweep point: ``point``, the swept values, ``games``,
    per-seat sole-win rates and scores with intervals (as :func:`sweep_effects`), the share of
    games without a sole winner and mean length with intervals."""
    rows = []
    for pt in points["point"] if not points.empty else sorted(games["point"].unique()):
        g = games[games["point"] == pt]
        row: dict[str, Any] = {"point": int(pt)}
        if not points.empty:
            row.update({c: points.loc[points["point"] == pt, c].iloc[0] for c in points.columns if c != "point"})
        row["games"] = int(len(g))
        row.update(_seat_columns(g, n_seats))
        e = endings(g)["draw_rate"] if len(g) else proportion(0, 0)
        row.update({"draw": e["rate"], "draw_lo": e["lo"], "draw_hi": e["hi"]})
        d = distribution(g["length"])
        row.update({"length": d["mean"], "length_lo": d["lo"], "length_hi": d["hi"]})
        rows.append(row)
    return pd.DataFrame(rows)


def kaplan_meier(durations: Sequence[float], events: Sequence[int]) -> pd.DataFrame:
    """Kaplan-Meier survival estimate with Greenwood 95 % intervals (log-log transform).

    Args:
        durations: time to the event or to censoring, per subject (e.g. turns a stone stood).
        events: 1 where the event happened (the stone was lost), 0 where observation ended first.

    Returns:
        One row per distinct event time: ``t, at_risk, events, survival, lo, hi``; a first row at
        t = 0 with survival 1. Empty input gives that first row only.

    Raises:
        ValueError: the two sequences differ in length, or an event is not 0 or 1.
    """
    d = np.asarray(durations, dtype=float)
    e = np.asarray(events, dtype=int)
    if d.shape != e.shape:
        raise ValueError(f"durations ({d.size}) and events ({e.size}) differ in length")
    if e.size and not np.isin(e, (0, 1)).all():
        raise ValueError("events must be 0 or 1")
    rows = [{"t": 0.0, "at_risk": int(d.size), "events": 0, "survival": 1.0, "lo": 1.0, "hi": 1.0}]
    s, var_sum = 1.0, 0.0
    for t in np.unique(d[e == 1]):
        n = int((d >= t).sum())
        k = int(((d == t) & (e == 1)).sum())
        s *= 1.0 - k / n
        var_sum += k / (n * (n - k)) if n > k else float("inf")
        if 0.0 < s < 1.0 and math.isfinite(var_sum):
            # log(-log S) interval (Kalbfleisch-Prentice): stays inside (0, 1)
            se = math.sqrt(var_sum) / abs(math.log(s))
            lo, hi = s ** math.exp(1.96 * se), s ** math.exp(-1.96 * se)
        else:
            lo = hi = s
        rows.append({"t": float(t), "at_risk": n, "events": k, "survival": s, "lo": lo, "hi": hi})
    return pd.DataFrame(rows)


def comparisons(labels: Sequence[str], winners: Sequence[int]) -> list[tuple[str, str, float]]:
    """The pairwise comparisons of one game: ``(a, b, score of a against b)`` for seats ``a < b``.

    Args:
        labels: the entrant of each seat.
        winners: the winning seats (none: a draw).
    """
    n = len(labels)
    share = [win_share(list(winners), s, n) for s in range(n)]
    out = []
    for a in range(n):
        for b in range(a + 1, n):
            if share[a] == share[b] == 0.0:
                continue  # both lost to a third seat: no information about the two of them
            out.append((labels[a], labels[b], 1.0 if share[a] > share[b] else 0.5 if share[a] == share[b] else 0.0))
    return out
