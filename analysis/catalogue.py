"""The catalogue of metrics: every number a study's outputs print about its games is defined here
once, and the terminal summary (:mod:`analysis.summary`), the report (:mod:`analysis.report`),
``stonelab compare`` (:mod:`analysis.compare`), ``stonelab tune``'s targets (:mod:`analysis.tune`),
the export (``stonelab export --table metrics``) read it. docs/compare.md describes the metrics.

A metric (:class:`Metric`) says what it counts, over which unit, its numerator and denominator,
which direction is better, and its words. Its definition is a function of a run giving, per game,
a numerator and a denominator (:func:`per_game`); its value is their ratio of sums, and its
interval is made from the games (:func:`estimate`):

- a **share of games** (each game's numerator 0 or 1 over a denominator 0 or 1, e.g. seat 0's
  sole wins among all games or among decisive games): the Wilson 95 % interval of the games;
- a **mean per game** (denominator 1 in every game, e.g. game length or penalty stones per game):
  the Student-t 95 % interval of the games' values (a non-negative mean's low end clipped at 0;
  a count (:attr:`Metric.count`) that never happened gets the exact Poisson upper bound);
- a **ratio over passes, stones or turns** (a denominator that varies from game to game, e.g.
  stones lost per pass, the share of clean passes): the passes of one game share its layout and
  players, so the game is the sampling unit. The ratio estimator ``R = sum(y) / sum(x)`` has the
  delta-method variance ``sum((y_i - R x_i)^2) / (n (n - 1) mean(x)^2)`` over the n games (Cochran,
  *Sampling Techniques*, 1977, 6.9); a mean gets ``R -+ t se``, a share the Wilson interval of its
  *effective* sample size ``R (1 - R) / se^2`` (the passes divided by the design effect of the
  clustering, never more than the passes): with independent passes this is Wilson over the passes,
  with passes that move together in a game it widens;
- a **fit** (a value that is a model fitted to all the games, not a ratio of per-game sums: the
  spread of the players' Bradley-Terry ratings, ``skill_spread_elo``): the percentile interval of
  the fit redone on :data:`FIT_RESAMPLES` resamples of the distinct games (a bootstrap over games,
  the game the sampled unit; a fixed seed, so one run prints one interval).

**Identical games are counted once.** A game record is its outcome and everything it stored
(scores, winners, length, ending, the lead changes, the game's own columns and detail rows; not
its seed, index, sweep point or wall times). Two games are one game (:func:`game_keys`) when

- their records are equal and they drew from the same random streams (:func:`stream_keys`: the
  study's seed and the game's block of seat rotations): the same game played twice, even where
  the rules draw by chance (the Sun's sweeps play every point on the same streams, common random
  numbers, and mirrored points, e.g. aim noise (1, 0.25) and (0.25, 1) with the seats rotated,
  replay one physics game), or
- their records are equal in a game without chance (``GameSpec.has_chance`` False), whatever the
  seeds: greedy against greedy plays the same record every time, and 240 copies of one game are
  not 240 observations; or where the records hold continuous noise draws (rows in the game
  report's ``GameReport.noise_table``: the Sun's passes store the noise of every throw), since two
  independent draws never agree: a Sun study with perfect hands replays one game per seating.

Every estimate rests on the distinct games: each contributes once (its copies averaged), to the
value and to the interval, and the sample sizes printed are the distinct counts; one distinct game
gives no interval. Where the rules draw by chance, equal records with different seeds are
independent draws that agree, and each counts. Moves are not stored, so games that differ only in
moves no stored column records count as one (the conservative side: an interval too wide, never
too narrow).

A game adds its own metrics through its report's ``GameReport.metrics`` hook
(:mod:`analysis.games.base`); this module names no game.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
import pandas as pd

from analysis.games import game_report
from analysis.metric_spec import Metric
from analysis.metrics import comparisons, win_share
from analysis.stats import count_per_game, wilson
from analysis.strength import stronger_pairs
from analysis.wording import seat_name
from sim.core.errors import InputError
from sim.games import REGISTRY

if TYPE_CHECKING:
    from analysis.run_data import RunData

__all__ = ["Estimate", "Metric", "catalogue", "distinct_records", "distinct_run", "entrant_scores", "estimate", "estimates",
           "format_value", "game_records", "no_spread_words",
           "game_keys", "has_chance", "per_game", "ratio_interval", "rating_spread", "fit_resamples",
           "run_metrics_frame"]

#: how a metric's interval is made, by :attr:`Metric.scheme` (the words every output prints)
INTERVALS = {
    "games share": "Wilson 95 % over the games (identical games once)",
    "game mean": "Student-t 95 % over the games (identical games once)",
    "ratio": "ratio of sums, clustered by game (delta-method variance; identical games once)",
    "fit": "percentile bootstrap 95 % over the games, the fit redone on each resample (identical games once)",
}
#: resamples of the distinct games behind a fit's interval, and their seed (one run, one interval)
FIT_RESAMPLES = 200
FIT_SEED = 0
#: the line every output that prints intervals over passes, stones or turns shows once
CLUSTER_LINE = ("Intervals over passes, stones or turns are clustered by game (the game is the sampled unit: "
                "ratio estimator with its delta-method variance); identical game records count once.")


@dataclass
class Estimate:
    """A metric measured on a run.

    Attributes:
        metric: the metric.
        value: the ratio of sums over the counted games (NaN when no game counts).
        lo, hi: its 95 % interval (:data:`INTERVALS`; NaN when fewer than 2 distinct games leave
            nothing to measure the spread by, and for a mean or a ratio that is not a share when
            every distinct game gave the same value: ``se`` is then 0, "no spread").
        num, den: the sums over the distinct games (copies of one game once).
        games: games of the run the metric reads (denominator above 0).
        distinct: distinct games among them (:func:`game_keys`); the value and interval rest on these.
        se: the standard error (NaN where the interval is not normal-theory: Wilson of a share
            of games has none; tune uses ``(hi - lo) / 2z`` there).
        y, x: per distinct game numerator and denominator (for two-run intervals).
        items: per distinct game what a fit reads (:attr:`Metric.fit`; empty for other metrics).
    """

    metric: Metric
    value: float
    lo: float
    hi: float
    num: float
    den: float
    games: int
    distinct: int
    se: float = float("nan")
    y: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    x: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    items: tuple[Any, ...] = field(default=(), repr=False)

    @property
    def no_spread(self) -> bool:
        """A mean over 2 or more distinct games that did not vary: no interval (not ``[v, v]``)."""
        return self.distinct >= 2 and self.se == 0 and self.lo != self.lo

    @property
    def repeated(self) -> bool:
        """Some games of the run were the same game record."""
        return self.distinct < self.games

    def sample_words(self) -> str:
        """``100 games``, ``3,295 passes in 100 games`` or ``240 games, 1 distinct``: what the
        estimate rests on."""
        games = f"{self.games} {self.metric.unit if self.metric.unit.endswith('game') else 'game'}s"
        if self.metric.scheme == "ratio":
            # the unit's plural ("1,777 passes in 100 games"): the denominator's words are in the "per" column
            unit = {"pass": "passes"}.get(self.metric.unit, self.metric.unit + "s")
            games = f"{self.den:,.0f} {unit} in {self.games} games"
        return games + (f", {self.distinct} distinct" if self.repeated else "")

    def text(self, digits: int = 2) -> str:
        """``33 % [14, 61]`` or ``0.20 [0.17, 0.24]`` (no interval: ``0.20 (no interval: 1 distinct game)``);
        a metric's own :attr:`Metric.decimals` over ``digits``."""
        if self.metric.decimals is not None and not self.metric.share:
            digits = self.metric.decimals
        return format_value(self.value, self.lo, self.hi, self.metric.share, digits, self.distinct)


def format_value(value: float, lo: float, hi: float, share: bool, digits: int = 2, distinct: int | None = None) -> str:
    """A value and its interval as every output prints them: a share in percent (no decimals, one
    when ``digits`` is 3 or more: ``33 % [14, 61]``, ``33.3 % [13.8, 60.9]``), a mean with ``digits``
    decimals (``0.20 [0.17, 0.24]``). Without an interval (NaN) and with ``distinct`` given, the
    reason: ``1.00 (no interval: 1 distinct game)``, or from 2 distinct games on a mean that did
    not vary (:func:`estimate`): ``0.00 (no spread in 214 distinct games)``."""
    if value != value:
        return "n/a"
    pd_ = 1 if digits >= 3 else 0  # a share's decimals: one beside three-decimal means (the report)
    v = f"{100 * value:.{pd_}f} %" if share else f"{value:.{digits}f}"
    if lo != lo or hi != hi:
        if distinct is None:
            return v
        return v + (f" (no interval: {distinct} distinct game{'s' if distinct != 1 else ''})" if distinct < 2
                    else f" ({no_spread_words(distinct)})")
    if share:
        return f"{v} [{100 * lo:.{pd_}f}, {100 * hi:.{pd_}f}]"
    return f"{v} [{lo:.{digits}f}, {hi:.{digits}f}]"


def no_spread_words(distinct: int) -> str:
    """``no spread in 214 distinct games``: why a mean measured on 2 or more distinct games has no
    interval (every game gave the same value: the sample holds no variance to size one by)."""
    return f"no spread in {distinct} distinct games"


# --- game records ----------------------------------------------------------------------------------
#: columns that say where and when a game ran, not what happened in it
_NOT_RECORD = {"point", "game_index", "seq", "seed", "seed_key", "sweep_json", "version", "winners", "labels",
               "players"}


def _record_columns(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if c not in _NOT_RECORD and "wall" not in c and not c.startswith("sweep:")]


def game_records(run: RunData) -> pd.Series:
    """A digest of each game's record (outcome, scores, length, ending, lead changes, the game's
    own columns and detail rows; not seed, index, sweep point or wall times), aligned with
    ``run.games``: two games with one digest played the same game."""
    g = run.games
    if g.empty:
        return pd.Series(dtype=object)
    keys = list(zip(g["point"].astype(int), g["game_index"].astype(int)))
    parts: dict[tuple[int, int], list[str]] = {k: [] for k in keys}

    def add(df: pd.DataFrame) -> None:
        if df.empty or "point" not in df or "game_index" not in df:
            return
        cols = _record_columns(df)
        sort = ["point", "game_index"] + (["seq"] if "seq" in df else [])
        df = df.sort_values(sort)
        text = [repr(row) for row in df[cols].to_numpy(dtype=object).tolist()]
        for (pt, gi), t in zip(zip(df["point"].astype(int), df["game_index"].astype(int)), text):
            if (pt, gi) in parts:
                parts[(pt, gi)].append(t)

    add(g)
    add(run.own)
    for name in sorted(run.details):
        if name != "frames":  # recorded poses: a study may keep them for some games only
            add(run.details[name])
    return pd.Series([hashlib.sha1("\n".join(parts[k]).encode()).hexdigest()[:16] for k in keys], index=g.index)


def game_keys(run: RunData) -> pd.Series:
    """Which game each game of ``run`` is (module docstring), aligned with ``run.games``: equal
    keys are one game. The key is the game record, with the random streams it drew from
    (:func:`stream_keys`) where the rules draw by chance (equal records of one stream: a copy
    under common random numbers; of two streams: two draws)."""
    rec = game_records(run)
    if rec.empty or not has_chance(run):
        return rec
    keyed = rec + "|" + stream_keys(run).to_numpy()
    noisy = _with_noise(run)
    return rec.where(noisy, keyed)


def _with_noise(run: RunData) -> pd.Series:
    """Per game of ``run``: its record holds continuous noise draws (a row in the game report's
    ``noise_table``), so an equal record elsewhere is the same game whatever the streams."""
    no = pd.Series(False, index=run.games.index)
    try:
        table = game_report(run.game).noise_table
    except Exception:  # noqa: BLE001 - a game whose report cannot be loaded: the streams decide
        return no
    rows = run.details.get(table) if table else None
    if rows is None or rows.empty or not {"point", "game_index"} <= set(rows.columns):
        return no
    have = set(zip(rows["point"].astype(int), rows["game_index"].astype(int)))
    keys = zip(run.games["point"].astype(int), run.games["game_index"].astype(int))
    return pd.Series([k in have for k in keys], index=run.games.index)


def stream_keys(run: RunData) -> pd.Series:
    """The random streams each game of ``run`` drew from (``sim.core.seeding``), aligned with
    ``run.games``: the root seed and the stream index, which is the game's index divided by the
    number R of seat orders its point plays (``Scenario.seating``: the R games of a block, one per
    rotation of the seats, meet the same chance; a sweep's points share the streams). R is read
    from the seats table: the distinct orders of ``player`` (the [[seats]] entry) the point's games
    show (the first R games show all R; a point with fewer games has stream index 0 throughout).
    Without a ``player`` column, the stored seed key."""
    g = run.games
    seed = g["seed"].astype(str).to_numpy() if "seed" in g else np.full(len(g), "")
    seats = run.seats
    if seats.empty or not {"player", "seat", "point", "game_index"} <= set(seats.columns):
        col = "seed_key" if "seed_key" in g else None
        return pd.Series(g[col].astype(str).to_numpy() if col else seed, index=g.index)
    order = (seats.sort_values("seat").groupby(["point", "game_index"])["player"]
             .agg(lambda x: tuple(int(v) for v in x)))
    rotations = order.groupby(level="point").nunique().clip(lower=1)
    pts = g["point"].astype(int).to_numpy()
    r = rotations.reindex(pts).fillna(1).astype(int).to_numpy()
    idx = g["game_index"].astype(int).to_numpy() // r
    return pd.Series([f"{a}:{b}" for a, b in zip(seed, idx)], index=g.index)


def distinct_records(run: RunData) -> tuple[int, int]:
    """``(games, distinct games)`` of a run (:func:`game_keys`)."""
    key = _with_records(run)["record"]
    return len(key), int(key.nunique())


def _with_records(run: RunData) -> pd.DataFrame:
    """``point, game_index, record`` of every game, ``record`` its :func:`game_keys` key (cached on
    the run: hashing reads every table)."""
    cache = run.__dict__.setdefault("_catalogue_cache", {})
    if "records" not in cache:
        cache["records"] = pd.DataFrame({"point": run.games["point"].astype(int).to_numpy(),
                                         "game_index": run.games["game_index"].astype(int).to_numpy(),
                                         "record": game_keys(run).to_numpy()})
    return cache["records"]


# --- intervals ---------------------------------------------------------------------------------------
def ratio_interval(y: Sequence[float], x: Sequence[float], share: bool,
                   confidence: float = 0.95, clusters: int | None = None) -> tuple[float, float, float, float]:
    """The ratio ``sum(y) / sum(x)`` of clustered data (one ``y``, ``x`` per cluster) and its
    interval (module docstring): ``(value, lo, hi, se)``.

    A share gets the Wilson interval of its effective sample size ``R (1 - R) / se^2`` (at most
    ``sum(x)``); where the share is 0 or 1 (no spread to measure) that is ``sum(x)``. A mean gets
    ``R -+ t(n - 1) se``, clipped at 0 when every ``y`` is non-negative. Fewer than two clusters:
    no interval (NaN). ``clusters``: the distinct clusters among the n given (repeated games), the
    variance then scaled by ``n / clusters`` (default: all n distinct).

    Raises:
        ValueError: ``y`` and ``x`` differ in length, or ``sum(x)`` is not positive.
    """
    ya, xa = np.asarray(y, dtype=float), np.asarray(x, dtype=float)
    if ya.shape != xa.shape:
        raise ValueError(f"y ({ya.size}) and x ({xa.size}) differ in length")
    sx = float(xa.sum())
    if not sx > 0:
        raise ValueError("the denominators sum to 0: nothing to divide by")
    r = float(ya.sum()) / sx
    n = ya.size
    c = n if clusters is None else int(clusters)
    nan = float("nan")
    if n < 2 or c < 2:
        return (r, nan, nan, nan)
    resid = ya - r * xa
    se = math.sqrt(float((resid ** 2).sum()) / (n * (n - 1))) / (sx / n) * math.sqrt(n / c)
    if share:
        r_ = min(max(r, 0.0), 1.0)
        n_eff = sx * c / n if se == 0 or r_ in (0.0, 1.0) else min(sx * c / n, r_ * (1 - r_) / se ** 2)
        lo, hi = wilson(r_ * n_eff, n_eff, confidence) if n_eff >= 1 else (0.0, 1.0)
        return (r, lo, hi, se)
    # start-up: scipy.special 130 ms (python -X importtime, over pandas and numpy); only a mean's interval reads it
    from scipy.special import stdtrit

    if se == 0:
        # every game gave the same ratio: no variance to size an interval by, and [r, r] would
        # claim an exact value (format_value says "no spread in N distinct games")
        return (r, nan, nan, 0.0)
    half = float(stdtrit(c - 1, 0.5 + confidence / 2)) * se
    lo = r - half
    if (ya >= 0).all():
        lo = max(0.0, lo)
    return (r, lo, r + half, se)


def per_game(metric: Metric, run: RunData) -> pd.DataFrame:
    """The metric's ``point, game_index, num, den, record`` per game of ``run`` (games the
    definition leaves out dropped), in the run's game order."""
    cache = run.__dict__.setdefault("_catalogue_cache", {})
    key = ("values", metric.name)
    if key not in cache:
        v = metric.values(run)
        v = v.assign(point=v["point"].astype(int), game_index=v["game_index"].astype(int))
        cols = ["point", "game_index", "num", "den"] + (["item"] if "item" in v else [])
        m = _with_records(run).merge(v[cols], on=["point", "game_index"], how="left")
        m = m[m["den"].notna() & (m["den"] > 0) & m["num"].notna()]
        cache[key] = m.reset_index(drop=True)
    return cache[key]


def has_chance(run: RunData) -> bool:
    """Whether the rules of ``run``'s game draw by chance (``GameSpec.has_chance``; True for a
    game this installation cannot load: then only copies of one seed count once)."""
    try:
        return REGISTRY.find(run.game) is None or bool(REGISTRY.get(run.game).spec.has_chance)
    except Exception:  # noqa: BLE001 - a game that cannot be loaded: the cautious side
        return True


def distinct_values(metric: Metric, run: RunData) -> pd.DataFrame:
    """The metric's ``record, num, den`` per distinct game of ``run`` (copies of one game averaged:
    they hold one record, and differ at most where the definition reads the sweep point), in the
    order the games were first played."""
    m = per_game(metric, run)
    if m.empty:
        return pd.DataFrame({"record": [], "num": [], "den": []})
    return m.groupby("record", sort=False)[["num", "den"]].mean().reset_index()


def fit_resamples(metric: Metric, items: Sequence[Any], rng: np.random.Generator,
                  resamples: int = FIT_RESAMPLES) -> np.ndarray:
    """A fit metric's value on ``resamples`` resamples (with replacement) of the distinct games'
    ``items``: the bootstrap over games behind its interval, and behind ``compare``'s difference
    (non-finite fits dropped).

    Raises:
        ValueError: ``metric`` is no fit.
    """
    if metric.fit is None:
        raise ValueError(f"{metric.name} is not a fit")
    d = len(items)
    out = [metric.fit([items[i] for i in rng.integers(0, d, d)]) for _ in range(resamples)]
    a = np.asarray(out, dtype=float)
    return a[np.isfinite(a)]


def _fit_estimate(metric: Metric, run: RunData, confidence: float) -> Estimate:
    """A fit metric (:attr:`Metric.fit`) on the distinct games: the fit of their items, the
    percentile interval of :func:`fit_resamples` (none from fewer than 2 distinct games; none when
    every resample gave the value: no spread); cached on the run, as the resamples cost a fit each."""
    cache = run.__dict__.setdefault("_catalogue_cache", {})
    key = ("fit", metric.name, confidence)
    if key in cache:
        return cache[key]
    m = per_game(metric, run)
    nan = float("nan")
    first = m.groupby("record", sort=False).first()
    items = tuple(first["item"])
    y, x = first["num"].to_numpy(float), first["den"].to_numpy(float)
    n, d = int(len(m)), int(len(first))
    assert metric.fit is not None
    value = float(metric.fit(items))
    lo = hi = se = nan
    if d >= 2:
        boots = fit_resamples(metric, items, np.random.default_rng(FIT_SEED))
        if boots.size >= 2:
            se = float(np.std(boots, ddof=1))
            if se > 0:  # every resample gave one value: no interval (format_value says so), not [v, v]
                lo, hi = (float(q) for q in np.quantile(boots, [(1 - confidence) / 2, (1 + confidence) / 2]))
    cache[key] = Estimate(metric, value, lo, hi, float(y.sum()), float(x.sum()), n, d, se, y, x, items)
    return cache[key]


def estimate(metric: Metric, run: RunData, confidence: float = 0.95) -> Estimate:
    """The metric measured on ``run`` (module docstring): value and interval over its distinct
    games (copies of one game count once)."""
    m = per_game(metric, run)
    nan = float("nan")
    if m.empty:
        return Estimate(metric, nan, nan, nan, 0.0, 0.0, 0, 0)
    if metric.fit is not None:
        return _fit_estimate(metric, run, confidence)
    dv = distinct_values(metric, run)
    y, x = dv["num"].to_numpy(float), dv["den"].to_numpy(float)
    n, d = int(len(m)), int(len(dv))
    ys, xs = float(y.sum()), float(x.sum())
    value = ys / xs
    se = nan
    lo = hi = nan
    if metric.scheme == "games share":
        k = min(max(value, 0.0), 1.0) * xs
        if xs >= 1 and not (d < 2 and d < n):  # one game played many times: no interval
            lo, hi = wilson(k, xs, confidence)
    elif metric.scheme == "game mean":
        vals = y / x
        if d < 2:
            pass
        elif metric.count and (vals == 0).all():
            # an event that never happened in d games: the exact Poisson upper bound
            _, lo, hi = count_per_game([0.0] * d, confidence)
        else:
            # start-up: scipy.special 130 ms (python -X importtime, over pandas and numpy), as above
            from scipy.special import stdtrit

            se = float(np.std(vals, ddof=1) / math.sqrt(d))
            if se > 0:  # no spread in d games: no interval (format_value says so), not [v, v]
                half = float(stdtrit(d - 1, 0.5 + confidence / 2)) * se
                lo, hi = value - half, value + half
                if (y >= 0).all():
                    lo = max(0.0, lo)
    else:
        value, lo, hi, se = ratio_interval(y, x, metric.share, confidence)
    if metric.bounds is not None and lo == lo:
        # a t interval of a bounded mean may leave its range (the edge of 5 games: [-0.92, 1.12])
        lo, hi = max(lo, metric.bounds[0]), min(hi, metric.bounds[1])
    return Estimate(metric, value, lo, hi, ys, xs, n, d, se, y, x)


# --- the generic metrics ---------------------------------------------------------------------------
def score_unit(game: str) -> str:
    """What a seat's final score counts in ``game`` (its spec's ``score_unit``; ``"points"`` for a
    game this installation does not know)."""
    try:
        return REGISTRY.get(game).spec.score_unit if REGISTRY.find(game) is not None else "points"
    except InputError:  # a registered game that cannot be loaded: the unit is cosmetic
        return "points"



def _frame(run: RunData, num: Sequence[float] | pd.Series, den: Sequence[float] | pd.Series | float = 1.0) -> pd.DataFrame:
    g = run.games
    den_ = np.full(len(g), float(den)) if isinstance(den, (int, float)) else np.asarray(den, dtype=float)
    return pd.DataFrame({"point": g["point"].to_numpy(), "game_index": g["game_index"].to_numpy(),
                         "num": np.asarray(num, dtype=float), "den": den_})


def _winners(run: RunData) -> list[list[int]]:
    return [list(w) for w in run.games["winners"]] if "winners" in run.games else []


def _seat_metrics(run: RunData) -> list[Metric]:
    unit = score_unit(run.game).split(",")[0]
    out: list[Metric] = []
    for s in range(run.n_seats):
        seat = seat_name(s)

        def sole(r: RunData, s: int = s) -> pd.DataFrame:
            return _frame(r, [1.0 if w == [s] else 0.0 for w in _winners(r)],
                          [1.0 if s < k else 0.0 for k in r.games["num_players"]])

        def shared(r: RunData, s: int = s) -> pd.DataFrame:
            return _frame(r, [1.0 if len(w) > 1 and s in w else 0.0 for w in _winners(r)],
                          [1.0 if s < k else 0.0 for k in r.games["num_players"]])

        def score(r: RunData, s: int = s) -> pd.DataFrame:
            return _frame(r, [win_share(w, s, int(k)) if s < k else 0.0 for w, k in
                              zip(_winners(r), r.games["num_players"])],
                          [1.0 if s < k else 0.0 for k in r.games["num_players"]])

        def final(r: RunData, s: int = s) -> pd.DataFrame:
            col = f"score_{s}"
            v = pd.to_numeric(r.games[col], errors="coerce") if col in r.games else pd.Series(np.nan, index=r.games.index)
            return _frame(r, v.fillna(0.0), v.notna().astype(float))

        out += [
            Metric(f"sole_win_rate[{seat}]", "sole-win rate", f"games {seat} won alone", "games",
                   "game", "neither", True, sole, group=seat),
            Metric(f"shared_win_rate[{seat}]", "shared-win rate", f"games {seat} won with others",
                   "games", "game", "neither", True, shared, group=seat),
            Metric(f"score[{seat}]", "score (share of the win)",
                   f"{seat}'s share of each game's win (1 alone, 1/k shared by k, 1/n a draw of n)", "games",
                   "game", "neither", True, score, group=seat),
            Metric(f"final_score[{seat}]", f"final score ({unit})", f"{seat}'s final score in {unit}",
                   "games", "game", "neither", False, final, group=seat),
        ]

    def first_edge(r: RunData) -> pd.DataFrame:
        w = _winners(r)
        return _frame(r, [1.0 if x == [0] else 0.0 for x in w], [1.0 if len(x) == 1 else 0.0 for x in w])

    out.append(Metric(f"seat_effect[{seat_name(0)}]", f"seat effect: {seat_name(0)}'s share of decisive games",
                      f"decisive games {seat_name(0)} won", "decisive games (a sole winner)", "decisive game",
                      "neither", True, first_edge))
    return out


def labels_of(run: RunData) -> list[str]:
    """The player labels of ``run``, in order of first appearance."""
    out: list[str] = []
    for ls in run.games["labels"] if "labels" in run.games else []:
        for lab in ls:
            if lab not in out:
                out.append(lab)
    return out


def _player_metrics(run: RunData) -> list[Metric]:
    """A player's score (share of the win) per game it played, for every label; listed when
    two or more labels share the run (rotated seats, or different players in one game), in the
    order the players first sit (the terminal's p0, p1, ... follow it)."""
    labels = labels_of(run)
    out = []
    for lab in labels:
        def score(r: RunData, lab: str = lab) -> pd.DataFrame:
            num, den = [], []
            for ls, w in zip(r.games["labels"], _winners(r)):
                mine = [s for s, x in enumerate(ls) if x == lab]
                num.append(math.fsum(win_share(w, s, len(ls)) for s in mine))
                den.append(1.0 if mine else 0.0)
            return _frame(r, num, den)

        out.append(Metric(f"score[{lab}]", "score (share of the win)",
                          f"{lab}'s share of each game's win, its seats summed", "games it played", "game",
                          "neither", True, score, group=lab, tune=True, listed=len(labels) >= 2))
    return out


def _pair_frame(run: RunData, keep: Any) -> pd.DataFrame:
    """Per game, ``num`` = the sum of ``keep(a, b, s)`` over the game's pairwise comparisons
    (:func:`analysis.tournament.comparisons`, ``s`` = a's score against b) that ``keep`` does not
    answer None, ``den`` = their number."""
    num, den = [], []
    for ls, w in zip(run.games["labels"], _winners(run)):
        got = [keep(a, b, s) for a, b, s in comparisons(ls, w) if a != b]
        got = [v for v in got if v is not None]
        num.append(math.fsum(got))
        den.append(float(len(got)))
    return _frame(run, num, den)


def _pair_metrics(run: RunData) -> list[Metric]:
    """``beats[a|b]``: player a's score in its pairwise comparisons with player b (1 a win over
    b, 1/2 a tie, 0 a loss; comparisons of two seats that both lost to a third left out), a
    share over comparisons clustered by game; measured on request (``stonelab tune``), not listed."""
    labels = labels_of(run)
    out = []
    for a in labels:
        for b in labels:
            if a == b:
                continue

            def keep(x: str, y: str, s: float, a: str = a, b: str = b) -> float | None:
                return s if (x, y) == (a, b) else (1.0 - s) if (x, y) == (b, a) else None

            out.append(Metric(f"beats[{a}|{b}]", f"score against {b}", f"{a}'s score in its comparisons with {b}",
                              "comparisons", "comparison", "neither", True,
                              lambda r, keep=keep: _pair_frame(r, keep), group=a, tune=True, listed=False))
    return out


def _entrant_metrics(run: RunData) -> list[Metric]:
    """``pair_score[a]``: player a's score over all its pairwise comparisons with other players
    (1 a win, 1/2 a tie, 0 a loss; two seats that both lost to a third not compared), a share
    over comparisons clustered by game: the tournament's per-entrant "score" (share of
    comparisons won, :mod:`analysis.tournament`); measured on request, not listed."""
    out = []
    for a in labels_of(run):
        def keep(x: str, y: str, s: float, a: str = a) -> float | None:
            return s if x == a else (1.0 - s) if y == a else None

        out.append(Metric(f"pair_score[{a}]", "share of comparisons won",
                          f"{a}'s score over its comparisons with every other player", "comparisons",
                          "comparison", "neither", True, lambda r, keep=keep: _pair_frame(r, keep), group=a,
                          tune=True, listed=False))
    return out


def entrant_scores(run: RunData) -> dict[str, Estimate]:
    """Each player's ``pair_score`` estimate (:func:`_entrant_metrics`) by label: what the
    tournament prints as an entrant's score."""
    return {m.name[len("pair_score["):-1]: estimate(m, run) for m in _entrant_metrics(run)} \
        if not run.games.empty else {}


def rating_spread(items: Sequence[Sequence[tuple[str, str, float]]]) -> float:
    """The standard deviation (over the players, ddof 0) of the Bradley-Terry ratings, in Elo
    points, fitted to the pairwise comparisons ``(a, b, a's score against b)`` of the games
    ``items`` (:func:`analysis.bradley_terry.fit_bradley_terry`: maximum likelihood, with one
    virtual draw per pair that met where the likelihood has no finite maximum); players without
    comparisons left out. NaN with fewer than 2 such players."""
    # start-up: analysis.bradley_terry loads scipy.optimize (about 0.3 s); only a fit reads it
    from analysis.bradley_terry import ELO_PER_NAT, Pairwise, fit_bradley_terry

    labels = sorted({lab for comps in items for a, b, _ in comps for lab in (a, b)})
    if len(labels) < 2:
        return float("nan")
    idx = {lab: i for i, lab in enumerate(labels)}
    w = np.zeros((len(labels), len(labels)))
    for comps in items:
        for a, b, s in comps:
            w[idx[a], idx[b]] += s
            w[idx[b], idx[a]] += 1.0 - s
    r = fit_bradley_terry(Pairwise(labels, w, w + w.T, np.zeros(len(labels), dtype=int)))
    st = np.asarray(r.strength, dtype=float)
    st = st[np.isfinite(st)]
    return float(np.std(st) * ELO_PER_NAT) if st.size >= 2 else float("nan")


def game_comparisons(run: RunData) -> pd.DataFrame:
    """Per game of ``run``: ``item`` its pairwise comparisons of two different players as
    ``(a, b, a's score against b)`` (:func:`analysis.metrics.comparisons`), ``num`` and ``den``
    their number (what the rating spread's fit reads)."""
    items = [tuple((a, b, float(s)) for a, b, s in comparisons(ls, w) if a != b)
             for ls, w in zip(run.games["labels"], _winners(run))]
    f = _frame(run, [len(i) for i in items], [len(i) for i in items])
    f["item"] = items
    return f


def _skill_metrics(run: RunData) -> list[Metric]:
    """``stronger_score``: the declared-stronger players' score ``s`` against the declared-weaker
    ones over their pairwise comparisons (1 a win, 1/2 a tie), a share over comparisons clustered
    by game (Wilson on the effective sample: inside [0, 1] also when every comparison went one
    way); the skill index of :mod:`analysis.skill` and ``stonelab tune`` is ``2 s - 1`` of it.
    ``skill_spread_elo``: the spread of all the players' Bradley-Terry ratings
    (:func:`rating_spread`), a fit with a bootstrap interval over the distinct games.
    None when no two players differ in declared skill."""
    pairs = stronger_pairs(run)
    if not pairs:
        return []

    def keep(x: str, y: str, s: float) -> float | None:
        return s if (x, y) in pairs else (1.0 - s) if (y, x) in pairs else None

    def values(r: RunData) -> pd.DataFrame:
        return _pair_frame(r, keep)

    if not (values(run)["den"] > 0).any():
        return []
    return [Metric("stronger_score", "declared-stronger players' score against weaker ones (skill index: 2 x - 1)",
                   "the declared-stronger player's score in its comparisons with a weaker one",
                   "comparisons of a stronger with a weaker player", "comparison", "higher", True, values),
            Metric("skill_spread_elo", "rating spread (sd of the players' Bradley-Terry ratings, Elo)",
                   "the standard deviation of the players' Bradley-Terry ratings, fitted to every pairwise comparison",
                   "comparisons of two players", "comparison", "higher", False, game_comparisons, tune=True,
                   decimals=0, fit=rating_spread)]


def skill_index_of(e: Estimate) -> tuple[float, float, float, float]:
    """``(p, lo, hi, se)`` of the skill index ``2 s - 1`` from the ``stronger_score`` estimate."""
    return (2 * e.value - 1, 2 * e.lo - 1, 2 * e.hi - 1, 2 * e.se)


def _game_metrics(run: RunData) -> list[Metric]:
    def no_winner(r: RunData) -> pd.DataFrame:
        return _frame(r, [1.0 if not w else 0.0 for w in _winners(r)])

    def shared(r: RunData) -> pd.DataFrame:
        return _frame(r, [1.0 if len(w) > 1 else 0.0 for w in _winners(r)])

    def no_sole(r: RunData) -> pd.DataFrame:
        return _frame(r, [1.0 if len(w) != 1 else 0.0 for w in _winners(r)])

    def first_edge(r: RunData) -> pd.DataFrame:
        vals = []
        for w, k in zip(_winners(r), r.games["num_players"]):
            k = int(k)
            others = sum(1.0 for s in range(1, k) if w == [s]) / max(k - 1, 1)
            vals.append((1.0 if w == [0] else 0.0) - others)
        return _frame(r, vals)

    def length(r: RunData) -> pd.DataFrame:
        return _frame(r, pd.to_numeric(r.games["length"], errors="coerce").fillna(0.0))

    # the edge lies in [-1 / (k - 1), 1] for k seats: widest for the fewest seats of the run
    k_min = int(run.games["num_players"].min()) if "num_players" in run.games and len(run.games) else 2

    return [
        Metric("draw_rate", "draw rate (no winner)", "games nobody won", "games", "game", "neither", True, no_winner),
        Metric("shared_win_share", "shared-win rate (2+ winners)", "games two or more seats won together", "games",
               "game", "neither", True, shared),
        Metric("draw_share", "games without a sole winner", "games with no winner or a shared win", "games", "game",
               "neither", True, no_sole, tune=True, sensitivity=True),
        Metric("first_player_edge", "first-player edge (seat 0's sole-win share minus the others' mean)",
               "seat 0's sole win (1) minus the other seats' sole wins over their number", "games", "game", "neither",
               False, first_edge, tune=True, sensitivity=True, bounds=(-1.0 / max(k_min - 1, 1), 1.0)),
        Metric("mean_length", "game length (actions)", "non-chance actions of the game", "games", "game", "neither",
               False, length, tune=True),
    ]


def catalogue(run: RunData, every: bool = False) -> list[Metric]:
    """Every metric of ``run``: the generic ones (per seat, per player when labels differ, per
    game, the skill index when players differ in declared skill) and the game's own (its report's
    ``metrics`` hook). ``every``: also those measured on request only (:attr:`Metric.listed`
    False: ``pair_score[a]``, ``beats[a|b]``, a lone player's score), as ``stonelab tune`` and
    the tournament read them."""
    if run.games.empty:
        return []
    hooks = game_report(run.game)
    out = [*_seat_metrics(run), *_player_metrics(run), *_game_metrics(run), *_skill_metrics(run),
           *hooks.metrics(run)]
    head = hooks.headline(run)
    if head is not None and head[0] not in {m.name for m in out}:
        # a game's headline number that its metrics do not hold already: a mean per game
        name, words = head[0], head[1]

        def values(r: RunData, hooks: Any = hooks) -> pd.DataFrame:
            h = hooks.headline(r)
            v = pd.to_numeric(pd.Series(h[2]), errors="coerce").to_numpy(float) if h is not None else np.full(len(r.games), np.nan)
            return _frame(r, np.nan_to_num(v), (~np.isnan(v)).astype(float))

        # "... per game" headlines count events (druids' early claims, Rocks' guard removals)
        out.append(Metric(name, words, words, "games", "game", "neither", False, values,
                          count=words.endswith("per game")))
    if every:
        out += _entrant_metrics(run) + _pair_metrics(run)
    return [m for m in out if every or m.listed]


def estimates(run: RunData, names: Sequence[str] | None = None, every: bool = False) -> dict[str, Estimate]:
    """:func:`estimate` of every catalogue metric of ``run`` (or of those ``names``), by name;
    ``every``: :func:`catalogue`'s."""
    out = {}
    for m in catalogue(run, every):
        if names is None or m.name in names:
            out[m.name] = estimate(m, run)
    return out


def run_metrics_frame(run: RunData) -> pd.DataFrame:
    """The catalogue measured on ``run`` as a table (``stonelab export --table metrics``, the
    report's "Metrics" table): one row per metric with its definition, value and interval."""
    rows: list[dict[str, Any]] = []
    for e in estimates(run).values():
        m = e.metric
        rows.append({"metric": m.name, "words": m.words, "group": m.group, "value": e.value, "lo": e.lo, "hi": e.hi,
                     "numerator": m.numerator, "num": e.num, "denominator": m.denominator, "den": e.den,
                     "unit": m.unit, "games": e.games, "distinct_games": e.distinct, "direction": m.direction,
                     "share": m.share, "interval": INTERVALS[m.scheme]})
    return pd.DataFrame(rows)


def point_run(run: RunData, point: int | Sequence[int]) -> RunData:
    """``run`` restricted to one sweep point, or to several (every table that names games)."""

    keep = {int(point)} if isinstance(point, (int, np.integer)) else {int(p) for p in point}

    def one(df: pd.DataFrame) -> pd.DataFrame:
        if df.empty or "point" not in df:
            return df
        return df[df["point"].astype(int).isin(keep)].reset_index(drop=True)

    sub = dataclasses.replace(run, games=one(run.games), seats=one(run.seats), own=one(run.own),
                              details={k: one(v) for k, v in run.details.items()},
                              points=run.points[run.points["point"].astype(int).isin(keep)]
                              if not run.points.empty else run.points)
    sub.__dict__.pop("_catalogue_cache", None)
    return sub


def distinct_run(run: RunData) -> RunData:
    """``run`` with each distinct game once (:func:`game_keys`: the first copy of each), in every
    table that names games: what the report's pooled sections and ``compare``'s findings read, so
    that they count what the catalogue counts. ``run`` itself when no game repeats."""
    if run.games.empty:
        return run
    rec = _with_records(run)
    first = rec[~rec["record"].duplicated()]
    if len(first) == len(rec):
        return run

    keep = set(zip(first["point"], first["game_index"]))

    def one(df: pd.DataFrame) -> pd.DataFrame:
        if df.empty or "point" not in df or "game_index" not in df:
            return df
        pairs = zip(df["point"].astype(int), df["game_index"].astype(int))
        return df[[k in keep for k in pairs]].reset_index(drop=True)

    sub = dataclasses.replace(run, games=one(run.games), seats=one(run.seats), own=one(run.own),
                              details={k: one(v) for k, v in run.details.items()})
    sub.__dict__.pop("_catalogue_cache", None)
    return sub


def player_scores(run: RunData) -> list[Estimate]:
    """Each player's score (share of the win) when the seats hold different players: the player
    effect, one estimate per player label."""
    return [estimate(m, run) for m in _player_metrics(run) if m.listed] if not run.games.empty else []


def repeat_note(run: RunData) -> str:
    """A sentence when games repeat (``240 games, 1 distinct: ...``), '' when every game differs."""
    if run.games.empty:
        return ""
    n, d = distinct_records(run)
    if d == n:
        return ""
    return (f"{n} games, {d} distinct: identical games (the same record, and the same random streams where the rules draw "
            "by chance) count once in every figure and interval.")


def to_json(e: Estimate) -> dict[str, Any]:
    """An estimate as plain JSON (NaN as null)."""
    def f(x: float) -> float | None:
        return None if x != x else float(x)

    return {"metric": e.metric.name, "words": e.metric.words, "value": f(e.value), "ci95": [f(e.lo), f(e.hi)],
            "games": e.games, "distinct_games": e.distinct, "per": e.metric.denominator, "share": e.metric.share,
            "interval": INTERVALS[e.metric.scheme], "decimals": e.metric.decimals}
