"""Which agent of a pairing is *stronger*, from what the scenario declares, never from the outcome.

A report's skill verdict ("the stronger agent beats the weaker one in x % of games") is only
meaningful when "stronger" is known before the games are played. This module reads it from the
scenario (with sweep values applied), in this order:

1. **An explicit strength.** A seat may state ``strength = <number>`` (higher is stronger). When
   every agent of a pairing states one, it alone decides; when only some do, no claim is made.
2. **Otherwise a partial order over declared, monotone keys** (each compared as "higher is
   stronger"); one agent is stronger than another when it is at least as strong on every key and
   stronger on one (Pareto); keys pointing different ways, or settings with no stated direction,
   leave the pair unordered:

   * the agent's tier (:data:`AGENT_TIERS`): random play < heuristic agents < agents that
     simulate before deciding (tree search, planner, builder).
     Different agents of one tier (e.g. ``mcts`` and ``ismcts``) are not ordered;
   * for the same agent, its search effort (:data:`EFFORT_KEYS`: more iterations, candidates,
     samples or simulations is stronger); any other parameter that differs (e.g. an exploration
     constant or a heuristic weight) leaves the pair unordered;
   * the game's seat skill (its report's ``GameReport.seat_skill``): e.g. the Sun thrower's aim
     noise (smaller is stronger) and skill level (perfect > expert > steady > casual > child),
     Sozoikum's placement skill (higher is stronger).

A label that stands for several configurations (a seat ``name`` reused, or a sweep changing a key
the label does not show) is not ordered either.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Mapping

import pandas as pd

from analysis.games import game_report
from sim.core.errors import InputError
from sim.core.tournament import Tournament
from sim.games import get_game

#: Agent tiers, weakest first: random play; heuristic agents; agents that simulate before they
#: decide (tree search, the Sun's planner, Sozoikum's builder, which is greedy plus simulated
#: builds). An agent not listed has no declared tier (pairs with it are ordered only by an
#: explicit ``strength``).
AGENT_TIERS: dict[str, int] = {
    "random": 0, "uniform": 0,
    "greedy": 1, "careful": 1,
    "mcts": 2, "ismcts": 2, "planner": 2, "builder": 2,
}

#: Agent parameters where more is stronger (search effort), compared between seats of one agent.
EFFORT_KEYS: tuple[str, ...] = ("iterations", "candidates", "samples", "sims", "shortlist")

#: Keys of a seat table that are not agent parameters or game seat options.
SEAT_META_KEYS: tuple[str, ...] = ("agent", "name", "strength")


@dataclass(frozen=True)
class Strength:
    """What a scenario declares about one seat configuration's strength.

    Attributes:
        agent: the agent's registry name.
        explicit: the seat's ``strength`` (higher is stronger), or None.
        effort: search-effort parameters (:data:`EFFORT_KEYS`), higher is stronger.
        skill: the game's seat-skill keys, higher is stronger, with a reader's name for each.
        other: the agent's remaining parameters (must be equal for two seats of one agent to be
            ordered), as sorted ``(key, JSON value)`` pairs.
    """

    agent: str
    explicit: float | None = None
    effort: tuple[tuple[str, float], ...] = ()
    skill: tuple[tuple[str, float], ...] = ()
    other: tuple[tuple[str, str], ...] = ()


def compare(a: Strength | None, b: Strength | None) -> tuple[int | None, list[str]]:
    """Is ``a`` stronger than ``b`` by the declared order?

    Returns:
        ``(+1, reasons)`` when ``a`` is stronger, ``(-1, reasons)`` when ``b`` is, ``(0, [])``
        when they are declared equal, ``(None, [why not])`` when the scenario does not order
        them. ``reasons`` name the keys that decide, e.g. ``["smaller aim noise"]``.
    """
    if a is None or b is None:
        return None, ["one label stands for several configurations"]
    if a.explicit is not None or b.explicit is not None:
        if a.explicit is None or b.explicit is None:
            return None, ["only one of them states a strength"]
        if a.explicit == b.explicit:
            return 0, []
        return (1 if a.explicit > b.explicit else -1), ["the scenario's stated strength"]
    signs: list[tuple[int, str]] = []
    if a.agent != b.agent:
        ta, tb = AGENT_TIERS.get(a.agent), AGENT_TIERS.get(b.agent)
        if ta is None or tb is None or ta == tb:
            x, y = sorted((a.agent, b.agent))  # one wording whichever way round the pair is asked
            return None, [f"no declared order between the agents {x!r} and {y!r}"]
        signs.append((1 if ta > tb else -1, "agent tier (random < heuristic < simulating)"))
    else:
        if a.other != b.other:
            diff = sorted({k for k, _ in set(a.other) ^ set(b.other)})
            return None, [f"they differ in {', '.join(diff)}, which has no declared direction"]
        ea, eb = dict(a.effort), dict(b.effort)
        for k in sorted(set(ea) | set(eb)):
            if k in ea and k in eb and ea[k] != eb[k]:
                signs.append((1 if ea[k] > eb[k] else -1, f"more {k}"))
    sa, sb = dict(a.skill), dict(b.skill)
    for k in sorted(set(sa) & set(sb)):
        if sa[k] != sb[k]:
            signs.append((1 if sa[k] > sb[k] else -1, k))
    if not signs:
        return 0, []
    if all(s > 0 for s, _ in signs):
        return 1, [r for _, r in signs]
    if all(s < 0 for s, _ in signs):
        return -1, [r for _, r in signs]
    up = [r for s, r in signs if s > 0]
    down = [r for s, r in signs if s < 0]
    return None, [f"the declared keys disagree ({', '.join(up)} one way, {', '.join(down)} the other)"]


def strongest(labels: list[str], strengths: Mapping[str, Strength | None]) -> tuple[str | None, list[str]]:
    """The label declared stronger than every other label of a pairing.

    Returns:
        ``(label, reasons)``, or ``(None, [why no label is])``.
    """
    missing = [lab for lab in labels if lab not in strengths]
    if missing:
        return None, ["the stored scenario does not describe the seats of " + ", ".join(missing)]
    why: list[str] = []
    for cand in labels:
        reasons: list[str] = []
        for other in labels:
            if other == cand:
                continue
            sign, r = compare(strengths.get(cand), strengths.get(other))
            if sign != 1:
                if sign is None:
                    why.extend(x for x in r if x not in why)
                break
            reasons.extend(x for x in r if x not in reasons)
        else:
            return cand, reasons
    return None, why or ["the scenario declares them equally strong"]


def _seat_skill(game: str, seat: Mapping[str, Any]) -> dict[str, float]:
    """The seat's declared skill as its game's report reads it (empty when the game's report
    cannot be loaded: the strengths then rest on the agents' effort alone)."""
    try:
        game_rep = game_report(game)
    except InputError:
        return {}
    return game_rep.seat_skill(seat)


def _defaults(game: str, agent: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The agent's parameter defaults and the game's seat-option defaults ({} when unknown)."""
    try:
        g = get_game(game)
    except Exception:  # noqa: BLE001 - a store of a game no longer registered: no defaults
        return {}, {}
    spec = g.agents.get(agent)
    agent_defaults = {o.name: o.default for o in spec.options} if spec is not None else {}
    return agent_defaults, {o.name: o.default for o in g.spec.seat_options}


def seating_tables(scenario: dict[str, Any], players: int) -> list[list[dict[str, Any]]]:
    """The seat tables of every seating of a stored tournament scenario, in point order (the order
    of :meth:`sim.core.tournament.Tournament.seatings`); ``players``: seats per game.

    Here rather than in :mod:`analysis.tournament`, which reads whole runs: strengths are read while
    a run loads (through :mod:`analysis.metrics`), so this module stays below the run loader."""
    t = scenario.get("tournament") or {}
    listed: list[Any] = (t.get("agents") if "agents" in t else scenario.get("seats")) or []
    entrants = [{"agent": e} if isinstance(e, str) else dict(e) for e in listed]
    labels = tuple(str(i) for i in range(len(entrants)))  # only the seatings' order is used
    return [[dict(entrants[i]) for i in seating]
            for seating in Tournament(int(t.get("players", players)), tuple(entrants), labels).seatings()]


def seat_configs(scenario: Mapping[str, Any], points: pd.DataFrame, sweep_keys: list[str],
                 n_seats: int) -> dict[tuple[int, int], dict[str, Any]]:
    """Each ``(point, seat)``'s seat table from the scenario with that point's sweep values set.

    Returns:
        ``{(point, seat): {key: value}}``; points come from ``points`` (point 0 when empty).
    """
    if isinstance(scenario.get("tournament"), dict):
        # a tournament's point k is its k-th seating of the listed entrants
        return {(k, s): conf for k, seating in enumerate(seating_tables(dict(scenario), n_seats))
                for s, conf in enumerate(seating)}
    seats = scenario.get("seats") or []
    pts = points if not points.empty else pd.DataFrame({"point": [0]})
    out: dict[tuple[int, int], dict[str, Any]] = {}
    for _, p in pts.iterrows():
        for s in range(max(n_seats, len(seats))):
            conf: dict[str, Any] = dict(seats[s]) if s < len(seats) and isinstance(seats[s], dict) else {}
            for k in sweep_keys:
                parts = k.split(".")
                if len(parts) == 3 and parts[0] == "seats" and parts[1] == str(s):
                    conf[parts[2]] = p.get(f"sweep:{k}")
            out[(int(p["point"]), s)] = conf
    return out


def profile(game: str, conf: Mapping[str, Any]) -> Strength:
    """The :class:`Strength` of one seat table (defaults filled in from the registry)."""
    agent = str(conf.get("agent", ""))
    agent_defaults, seat_defaults = _defaults(game, agent)
    params = {**agent_defaults, **{k: v for k, v in conf.items() if k in agent_defaults}}
    seat_opts = {**seat_defaults, **{k: v for k, v in conf.items() if k in seat_defaults}}
    # keys the registry does not know (an old store): treated as parameters with no direction
    unknown = {k: v for k, v in conf.items() if k not in SEAT_META_KEYS and k not in params and k not in seat_opts}
    explicit = conf.get("strength")
    effort = tuple(sorted((k, float(v)) for k, v in params.items() if k in EFFORT_KEYS))
    other = tuple(sorted((k, json.dumps(v, sort_keys=True)) for k, v in {**params, **unknown}.items()
                         if k not in EFFORT_KEYS))
    skill = tuple(sorted(_seat_skill(game, seat_opts).items()))
    exp = float(explicit) if isinstance(explicit, (int, float)) and not isinstance(explicit, bool) \
        and math.isfinite(float(explicit)) else None
    return Strength(agent=agent, explicit=exp, effort=effort, skill=skill, other=other)


def label_strengths(game: str, scenario: Mapping[str, Any], points: pd.DataFrame, sweep_keys: list[str],
                    seats: pd.DataFrame) -> dict[str, Strength | None]:
    """The declared strength of every agent label of a run (None for a label that stands for
    several configurations).

    Args:
        game: the registry name of the game.
        scenario: the scenario dict as stored.
        points: the run's points frame (``point`` and ``sweep:<key>`` columns).
        sweep_keys: the swept keys.
        seats: the ``seats`` table (``point, player`` (or ``seat`` in a store without it), ``label`` used).
    """
    if seats.empty:
        return {}
    n_seats = int(seats["seat"].max()) + 1
    confs = seat_configs(scenario, points, sweep_keys, n_seats)
    found: dict[str, set[Strength]] = {}
    # the configuration is the [[seats]] entry's (``player``): rotated seats hold different entries
    who = "player" if "player" in seats else "seat"
    for pt, seat, label in seats[["point", who, "label"]].drop_duplicates().itertuples(index=False):
        conf = confs.get((int(pt), int(seat)))
        if conf is None:
            continue
        found.setdefault(str(label), set()).add(profile(game, conf))
    return {lab: next(iter(s)) if len(s) == 1 else None for lab, s in found.items()}


def stronger_pairs(run: Any) -> set[tuple[str, str]]:
    """The ordered pairs ``(stronger, weaker)`` of player labels of ``run`` whose declared skill
    orders them (:func:`analysis.strength.strongest`), among labels that sat in its games."""
    g = run.games
    if g.empty or "labels" not in g:
        return set()
    labels: list[str] = []
    for labs in g["labels"]:
        for lab in labs:
            if lab not in labels:
                labels.append(lab)
    strengths = label_strengths(run.game, run.scenario, run.points, run.sweep_keys, run.seats)
    out = set()
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            best, _ = strongest([a, b], strengths)
            if best is not None:
                out.add((a, b) if best == a else (b, a))
    return out
