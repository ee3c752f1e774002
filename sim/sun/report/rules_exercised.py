"""The Sun's stone losses and rule events: every lost stone with its canonical cause and level
(:func:`lost_stones`), and the "rules exercised" table (how often every rule event happened per
game, with intervals, per sweep point; :func:`rules_exercised`, :func:`rules_tables`), which the
report's section (:mod:`sim.sun.report.section`) and ``stonelab compare`` show.
"""

from __future__ import annotations

import pandas as pd

from analysis.games import has_columns
from analysis.run_data import RunData
from analysis.stats import count_per_game, wilson
from analysis.wording import point_noun, value_text
from sim.core.scenario import scenario_from_dict
from sim.games import REGISTRY
from sim.sun.endings import SunEnd
from sim.sun.geometry.ring import Geometry
from sim.sun.report.metrics import penalty_causes
from sim.sun.sections import layout_of, start_layout

#: the level a lost stone stood on, by its placement kind
LEVELS = {"stand": "on the base", "stack": "stacked (level 2)", "gate": "gate"}

#: Canonical names of the causes of a lost stone. The table and the rules name the same cause in
#: different words (``fell_from_support`` and ``fell from its support``): every spelling maps to
#: one name here, so a cause is counted once.
CAUSES: dict[str, str] = {
    "pushed_off": "pushed off",
    "toppled": "toppled",
    "fell_from_support": "fell from its support",
    "fell from its support": "fell from its support",
    "fell from support": "fell from its support",
    "left the table": "left the table",
    "left_the_table": "left the table",
}


def cause_name(code: str) -> str:
    """The canonical name of a cause code (:data:`CAUSES`; an unknown code with ``_`` read as
    spaces)."""
    c = str(code).strip()
    return CAUSES.get(c, CAUSES.get(c.replace(" ", "_"), c.replace("_", " ")))



def lost_stones(run: RunData) -> pd.DataFrame:
    """One row per stone lost: ``point, game_index, turn, stone, shape, cause, level`` (``cause``
    by its canonical name, :func:`cause_name`)."""
    passes = run.detail("passes")
    if not has_columns(passes, "causes", "turn"):
        return pd.DataFrame(columns=["point", "game_index", "turn", "stone", "shape", "cause", "level"])
    rows = []
    for pt, gi, turn, causes in passes.loc[passes["causes"].fillna("") != "", ["point", "game_index", "turn", "causes"]].itertuples(index=False):
        for item in str(causes).split(";"):
            bits = item.split(":")
            if len(bits) >= 3 and bits[0].lstrip("-").isdigit():
                rows.append({"point": pt, "game_index": gi, "turn": turn, "stone": int(bits[0]), "shape": bits[1],
                             "cause": cause_name(":".join(bits[2:]))})
    lost = pd.DataFrame(rows, columns=["point", "game_index", "turn", "stone", "shape", "cause"])
    place = run.detail("placements")
    lost["level"] = "unknown"
    if not lost.empty and has_columns(place, "stone", "kind", "turn"):
        ok = place[place["standing"] == 1] if "standing" in place else place
        ok = ok[["point", "game_index", "stone", "turn", "kind"]].rename(columns={"turn": "placed_turn"})
        m = lost.reset_index().merge(ok, on=["point", "game_index", "stone"], how="left")
        m = m[m["placed_turn"].isna() | (m["placed_turn"] <= m["turn"])]
        last = m.sort_values("placed_turn").groupby("index").tail(1).set_index("index")
        lost.loc[last.index, "level"] = last["kind"].map(lambda k: LEVELS.get(k, str(k)) if k == k else "unknown")
    start = start_levels(run)
    if start and not lost.empty:
        # a stone the game started with (``[layout] start = "layout"``) and never placed again
        # stood where the layout file put it
        unknown = lost["level"] == "unknown"
        lost.loc[unknown, "level"] = lost.loc[unknown, "stone"].map(lambda i: start.get(int(i), "unknown"))
    return lost


def start_levels(run: RunData) -> dict[int, str]:
    """Where each stone of the start layout stands, by stone id (``[layout] start = "layout"``;
    empty otherwise, or when the scenario cannot be read back). The ids follow the rules'
    ``set_position``: each layout stone takes the next free stone of its shape, level-1 stones
    first (in the file's order), then level-2 stones, then the gates."""
    lay = run.scenario.get("layout") or {}
    if lay.get("start") != "layout" or not lay.get("file"):
        return {}
    try:
        sections = scenario_from_dict(run.scenario, REGISTRY, source=str(run.run_dir)).sections
        layout, start = layout_of(sections), start_layout(sections)
        shapes = Geometry(layout.table, layout.ball, dict(layout.shapes)).stone_shapes()
    except Exception:  # noqa: BLE001 - a layout file moved or changed since the study: levels stay unknown
        return {}
    if start is None:
        return {}
    free: dict[str, list[int]] = {}
    for i, sh in enumerate(shapes):
        free.setdefault(sh, []).append(i)
    out: dict[int, str] = {}
    for level, word in ((1, LEVELS["stand"]), (2, LEVELS["stack"])):
        for st in start.stones:
            if st.level == level and free.get(st.shape):
                out[free[st.shape].pop(0)] = word
    for g in start.gates:
        if free.get(g.shape):
            out[free[g.shape].pop(0)] = LEVELS["gate"]
    return out


#: the stone-loss causes the physics judges (sim/sun/table/sun_table.py); always listed, even when never seen
LOSS_CAUSES = ("toppled", "pushed_off", "fell_from_support")
LOSS_WORDS = {"toppled": "toppled", "pushed_off": "pushed off", "fell_from_support": "fallen from their support"}
#: the endings the game declares (``SunEnd``, sim/sun/endings.py); always listed, others when seen
ENDINGS = tuple(e.value for e in SunEnd)
#: What each event of the table counts (its "what it counts" column; docs/rules-sun.md)
EVENT_MEANINGS = {
    "stands": "stones placed on the base that came to rest standing",
    "stacks": "stones placed on a standing stone (level 2) that stayed there",
    "gates": "stones laid across two positions as a lintel that stayed there",
    "failed placements": "placements that did not stand, or that the rules refused (e.g. no legal marker move "
                         "for a stone that stood); rules.placement_fall: retry or penalty",
    "passes": "swings of the ball, one per turn",
    "marker moves": "turns on which the mover's marker moved (after a stand or stack)",
    "forced marker moves": "turns that had to move the marker: the mark area was impassable at the start "
                           "(e.g. under an opponent's gate)",
    "stones knocked by a placement": "other stones a placement knocked over (penalties)",
    "stones lost past the placement tries": "the stone in hand, when a failed placement became its placer's penalty "
                                            "(rules.placement_fall = penalty, or past max_place_attempts)",
    "stones lost otherwise": "penalty stones none of the rows above explains (the final scores minus them)",
}
RULES_COLUMNS = ["point", "group", "event", "binary", "total", "games", "per_game", "lo", "hi", "games_with",
                 "share", "share_lo", "share_hi"]


def _per_game_counts(run: RunData) -> tuple[pd.DataFrame, list[tuple[str, str, bool]]]:
    """The count of every rule event in every stored game (games without detail rows count 0).

    Returns:
        (counts, rows): ``counts`` has ``point, game_index`` and one column per event; ``rows`` is
        ``(group, event, binary)`` in table order (``binary``: at most once per game, an ending).
        Events whose source column the store lacks (older runs) are left out.
    """
    keys = run.games[["point", "game_index"]].astype(int).reset_index(drop=True)
    counts = keys.copy()
    rows: list[tuple[str, str, bool]] = []

    def add(group: str, event: str, per_game: pd.Series | None, binary: bool = False) -> None:
        """``per_game``: a Series indexed by (point, game_index); missing games count 0."""
        if per_game is None:
            counts[event] = 0
        else:
            idx = pd.MultiIndex.from_frame(keys)
            counts[event] = per_game.reindex(idx).fillna(0).to_numpy(float)
        rows.append((group, event, binary))

    def by_game(df: pd.DataFrame, values: pd.Series | None = None) -> pd.Series:
        v = values if values is not None else pd.Series(1.0, index=df.index)
        return v.astype(float).groupby([df["point"].astype(int), df["game_index"].astype(int)]).sum()

    place = run.detail("placements")
    if has_columns(place, "kind", "standing"):
        ok = place[place["standing"] == 1]
        for kind, label in (("stand", "stands"), ("stack", "stacks"), ("gate", "gates")):
            sub = ok[ok["kind"] == kind]
            add("placements that stood", label, by_game(sub))
        bad = place[place["standing"] != 1]
        add("placements that did not stand or were refused", "failed placements", by_game(bad))
        if "cause" in bad:
            for cause in sorted(set(bad["cause"].fillna("").astype(str)) - {""}):
                add("placements that did not stand or were refused", f"failed placements: {cause}",
                    by_game(bad[bad["cause"] == cause]))
    passes = run.detail("passes")
    if has_columns(passes, "turn"):
        add("turns", "passes", by_game(passes))
        for col, label in (("marker_moved", "marker moves"), ("forced_move", "forced marker moves")):
            if col in passes:
                add("turns", label, by_game(passes, passes[col].fillna(0)))
    if has_columns(passes, "causes"):
        lost = lost_stones(run)
        # lost_stones names causes canonically (cause_name); the rows keep the table's codes' order
        canon = {cause_name(c): c for c in LOSS_CAUSES}
        seen = sorted(set(lost["cause"]) - set(canon))
        for name in (*canon, *seen):
            code = canon.get(name, name)
            add("penalty stones", f"stones {LOSS_WORDS.get(code, name.replace('_', ' '))} in a pass",
                by_game(lost[lost["cause"] == name]))
    if has_columns(place, "knocked"):
        add("penalty stones", "stones knocked by a placement", by_game(place, place["knocked"].fillna(0)))
    if has_columns(place, "standing", "turn", "seat"):
        c = penalty_causes(run)
        idx = pd.MultiIndex.from_frame(c[["point", "game_index"]].astype(int))
        add("penalty stones", "stones lost past the placement tries", pd.Series(c["tries"].to_numpy(float), index=idx))
        if (c["other"] > 0).any() and (c["other"] >= 0).all():  # (a hand-made store may hold less)
            add("penalty stones", "stones lost otherwise", pd.Series(c["other"].to_numpy(float), index=idx))
    if "termination" in run.games:
        g = run.games
        seen_end = sorted(set(g["termination"].dropna().astype(str)) - set(ENDINGS))
        for end in (*ENDINGS, *seen_end):
            add("endings", f"ending: {end}", by_game(g[g["termination"] == end]), binary=True)
    return counts, rows


def rules_exercised(run: RunData) -> pd.DataFrame:
    """How often each rule of the Sun came into play, per sweep point (one row per point and event).

    Events: placements that came to rest standing by kind (stands, stacks, gates) and failed ones
    (by cause), passes, marker moves and forced marker moves (``sun_passes.marker_moved`` /
    ``forced_move``), penalty stones by cause (``sun_passes.causes``) and stones knocked by
    placements (``sun_placements.knocked``), and the games' endings (``games.termination``).

    Columns: ``point, group, event, binary`` (an ending: at most once per game), ``total`` (events
    in all the point's games), ``games``, ``per_game`` with its 95 % interval ``lo, hi``
    (:func:`analysis.stats.count_per_game`; for endings the Wilson interval of the share),
    ``games_with`` (games where it happened at least once) and ``share`` with its Wilson 95 %
    interval ``share_lo, share_hi``. Empty when no game is stored.
    """
    if run.games.empty:
        return pd.DataFrame(columns=RULES_COLUMNS)
    counts, rows = _per_game_counts(run)
    out = []
    for point, g in counts.groupby("point", sort=True):
        n = len(g)
        for group, event, binary in rows:
            x = g[event].to_numpy(float)
            k = int((x > 0).sum())
            s_lo, s_hi = wilson(k, n)
            if binary:
                mean, lo, hi = k / n, s_lo, s_hi
            else:
                mean, lo, hi = count_per_game(x)
            out.append({"point": int(point), "group": group, "event": event, "binary": binary,
                        "total": int(round(x.sum())), "games": n, "per_game": mean, "lo": lo, "hi": hi,
                        "games_with": k, "share": k / n, "share_lo": s_lo, "share_hi": s_hi})
    return pd.DataFrame(out, columns=RULES_COLUMNS)


def event_meaning(event: str) -> str:
    """What a row of the rules-exercised table counts, in words (:data:`EVENT_MEANINGS`, the
    endings' own meanings, the pass-loss causes)."""
    if event in EVENT_MEANINGS:
        return EVENT_MEANINGS[event]
    if event.startswith("ending: "):
        return "games that ended so: " + SunEnd.meanings().get(event[len("ending: "):], "an ending the game reported")
    if event.startswith("failed placements: "):
        return f"failed placements with this cause: {event[len('failed placements: '):]}"
    if event.startswith("stones ") and event.endswith(" in a pass"):
        return f"stones {event[len('stones '):-len(' in a pass')]} by a pass (each a penalty of the passer)"
    return ""


def _point_label(run: RunData, point: int) -> str:
    """``point 2 (rules.x = 3, seats.0.skill = casual)`` for a sweep, '' for a study without one."""
    if len(run.points) <= 1:
        return ""
    row = run.points[run.points["point"] == point]
    vals = ", ".join(f"{k} = {value_text(row.iloc[0][f'sweep:{k}'])}" for k in run.sweep_keys if not row.empty)
    return f"{point_noun(run)} {point}" + (f" ({vals})" if vals else "")


def rules_tables(run: RunData) -> tuple[list[tuple[str, pd.DataFrame]], list[str]]:
    """The "Rules exercised" table of each sweep point, and findings: the share of games with
    stacks, gates and forced marker moves and the endings (all games pooled), and a flag naming
    every event that happened in no game (of a sweep point)."""
    tab = rules_exercised(run)
    if tab.empty:
        return [], []
    tables = []
    for point, t in tab.groupby("point", sort=True):
        n = int(t["games"].iloc[0])
        never = t["total"] == 0
        # one cell per figure with its interval, kept on one line (no-break spaces): the table
        # has to fit the page beside the event names
        nb = "\u00a0"
        df = pd.DataFrame({
            "event": t["event"], f"total in {n} games": t["total"],
            "per game [95 %]": [f"{m:.2f}{nb}[{lo:.2f},{nb}{hi:.2f}]" for m, lo, hi in zip(t["per_game"], t["lo"], t["hi"])],
            "games with it": [f"{k}{nb}of{nb}{n}" for k in t["games_with"]],
            "share of games [95 %]": [f"{100 * s:.0f}{nb}%{nb}[{100 * lo:.0f},{nb}{100 * hi:.0f}]"
                                      for s, lo, hi in zip(t["share"], t["share_lo"], t["share_hi"])],
            "what it counts": [("never happened; " if nv else "") + event_meaning(ev)
                               for ev, nv in zip(t["event"], never)],
        })
        label = _point_label(run, int(point))
        tables.append(("Rules exercised" + (f": {label}" if label else ""), df.reset_index(drop=True)))
    findings = []
    n_all = len(run.games)
    pooled = tab.groupby("event", sort=False).agg(total=("total", "sum"), k=("games_with", "sum"))
    bits = []
    for ev in ("stacks", "gates", "forced marker moves"):
        if ev in pooled.index:
            k = int(pooled.loc[ev, "k"])
            lo, hi = wilson(k, n_all)
            bits.append(f"{ev} in {100 * k / n_all:.0f} % [{100 * lo:.0f}, {100 * hi:.0f}] "
                        f"({pooled.loc[ev, 'total'] / n_all:.2f} per game)")
    ends = [e for e in pooled.index if e.startswith("ending: ") and pooled.loc[e, "k"] > 0]
    if bits or ends:
        f = (f"Rules exercised in {n_all} games" + (f" (all {point_noun(run)}s)" if len(run.points) > 1 else "") + ": "
             + "; ".join(bits) + ("; " if bits and ends else "")
             + ("endings: " + ", ".join(f"{e[len('ending: '):]} {100 * pooled.loc[e, 'k'] / n_all:.0f} %"
                                        for e in ends) if ends else "") + ".")
        findings.append(f)
    # the flag: events that happened in no game at all; in a sweep, also those missing at only
    # some points (each point's table marks them), counted so the sentence stays short
    n_points = int(tab["point"].nunique())
    zero_at = tab[tab["total"] == 0].groupby("event", sort=False)["point"].nunique()
    never = [ev for ev, k in zero_at.items() if k == n_points]
    some = sorted(((ev, int(k)) for ev, k in zero_at.items() if k < n_points), key=lambda x: -x[1])
    if never:
        findings.append(f"Never happened in any of the {n_all} games: {', '.join(never)}. A rule that never comes "
                        "into play either does not matter in this study or the model does not play the game as the "
                        "rule text intends (check the players and the rule options).")
    if some:
        noun = point_noun(run)
        findings.append(f"Never happened at some {noun}s (see each {noun}'s table): "
                        + ", ".join(f"{ev} ({k} of {n_points} {noun}s)" for ev, k in some) + ".")
    return tables, findings
