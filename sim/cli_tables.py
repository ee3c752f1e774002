"""What ``stonelab`` prints as tables on a terminal: the games' options and a run's summary.

Everything from a file (labels, names, paths) goes through :mod:`sim.core.console`'s escaping;
nothing here wraps a name a user copies into a scenario.
"""

from __future__ import annotations

import textwrap
from typing import Any

# the console through its module, looked up at call time: sim.core.console.console is the seam the
# terminal tests replace
from sim.core import console as terminal
from sim.core.console import escape, fit_labels, print_prose
from sim.core.tomlw import toml_value

__all__ = ["pct_ci", "print_games", "print_seat_table", "print_summary"]


def print_games(rows: list[dict[str, Any]]) -> None:
    """One block per game, one line per option: ``rules.max_turns = 500`` (its dotted key and
    default, TOML a scenario can take as it is), then what is allowed and what it means, indented.
    A table squeezed option names into 80 columns with an ellipsis; here a name and its default are
    never cut, and the explanations wrap at the terminal's width (on a pipe they stay one line)."""
    con = terminal.console()
    width = con.width if con.is_terminal else 0

    def say(text: str, indent: int) -> None:
        pad = " " * indent
        lines = textwrap.wrap(text, width - indent, break_long_words=False, break_on_hyphens=False) if width else [text]
        for ln in lines or [""]:
            con.print(pad + escape(ln), highlight=False)

    for r in rows:
        lo, hi = r["players"]
        players = f"{lo}" if lo == hi else f"{lo}-{hi}"
        con.print(f"[bold]{escape(r['name'])}[/bold]: {escape(r['title'])} ({players} players)", highlight=False)
        opts = [(f"rules.{o['name']}", o) for o in r["options"]]
        opts += [(f"{sec}.{o['name']}", o) for sec, os_ in r["sections"].items() for o in os_]
        opts += [(f"seats[].{o['name']}", {**o, "doc": f"per seat: {o['doc']}" if o.get("doc") else "per seat"})
                 for o in r["seat_options"]]
        for key, o in opts:
            say(f"{key} = {toml_value(o['default'])}", 2)
            say(f"allowed: {o['allowed']}", 6)
            say(str(o["doc"]), 6)
        say("agents (seats[].agent):", 2)
        for a in r["agents"]:
            say(f"{a['name']}: {a['doc']}", 4)
        con.print()


def fit_table(heads: list[str], rows: list[list[str]], width: int, drop: list[int] | None = None,
              left: tuple[int, ...] = ()) -> tuple[list[str], list[str]]:
    """A table as plain lines no wider than ``width``: cells are never cut or folded; when the
    table is too wide, the columns named in ``drop`` (indices, first dropped first) are left out
    until it fits. Returns ``(lines, dropped column heads)``. Columns in ``left`` align left."""
    keep = list(range(len(heads)))
    dropped: list[str] = []

    def render(cols: list[int]) -> list[str]:
        w = {c: max([len(heads[c]), *(len(r[c]) for r in rows)]) for c in cols}

        def line(cells: list[str]) -> str:
            return "  ".join(cells[c].ljust(w[c]) if c in left else cells[c].rjust(w[c]) for c in cols).rstrip()

        out = [line(heads), "-" * len(line(["-" * len(h) for h in heads]))]
        return out + [line(r) for r in rows]

    lines = render(keep)
    for c in drop or []:
        if max(map(len, lines)) <= width:
            break
        keep.remove(c)
        dropped.append(heads[c])
        lines = render(keep)
    return lines, dropped


def _width(con: Any) -> int:
    """The width tables fit: the terminal's; rich's 80 when the output is piped or logged (unless
    COLUMNS says otherwise)."""
    return int(con.width)


def print_summary(s: dict[str, Any]) -> None:
    """The run summary: per seat (and per player when seats rotate), or for a sweep one row per
    point with the player effect; then the game's own metrics from the catalogue, one line each
    (analysis/catalogue.py). Everything fits 80 columns when piped: columns are dropped (and
    named), numbers never cut."""
    # start-up: analysis.wording adds 1.5 ms to every command's start-up (CPU, python -X importtime)
    from analysis.wording import value_text

    con = terminal.console()
    width = _width(con)
    title = f"{s['scenario']} ({s['game']}): {s['games']} games, seed {s['seed']}"
    if s.get("distinct_games") is not None and s["distinct_games"] < s["games"]:
        title += f" ({s['distinct_games']} distinct: identical games count once in every figure and interval)"
    if not s.get("points"):
        print_seat_table(con, title, s["seats"])
        _print_players(con, s.get("players") or [], width)
    else:
        # one row per sweep point: the swept values, each seat's sole wins and score, each
        # player's score (does the rule change how much skill matters?), shared wins and draws
        keys = list(s["points"][0]["values"])
        players = [p["player"] for p in s["points"][0].get("players") or []]
        heads = ["point", *(f"k{i + 1}" if len(keys) > 1 else k.rsplit(".", 1)[-1] for i, k in enumerate(keys)),
                 "games"]
        heads += [h for r in s["seats"] for h in (f"s{r['seat']} wins", f"s{r['seat']} score")]
        skill = any(p.get("stronger") for p in s["points"])
        heads += [f"p{i} score" for i in range(len(players))] + (["stronger"] if skill else []) + ["shared", "draws"]
        rows = []
        for p in s["points"]:
            cells = [str(p["point"]), *(value_text(p["values"].get(k)) for k in keys), str(p["games"])]
            for r in p["seats"]:
                cells += [str(r["wins"]), f"{100 * r['score']:.0f} %"]
            by = {x["player"]: x for x in p.get("players") or []}
            cells += [pct_ci(by[pl]["score"], *by[pl]["score_ci95"]) if pl in by else "" for pl in players]
            if skill:
                st = p.get("stronger")
                cells.append(pct_ci(st["value"], *st["ci95"]) if st and st["value"] is not None else "no order")
            cells += [str(p["shared_wins"]), str(p["draws"])]
            rows.append(cells)
        n_k = len(keys)
        first_seat = 2 + n_k
        # dropped first: draws, shared, then the seats' win counts (their scores stay), then seat scores
        drop = [len(heads) - 1, len(heads) - 2, *range(first_seat, first_seat + 2 * len(s["seats"]), 2),
                *range(first_seat + 1, first_seat + 2 * len(s["seats"]), 2)]
        lines, dropped = fit_table(heads, rows, width, drop, left=tuple(range(1, 1 + n_k)))
        print_prose(con, f"{title}, {len(s['points'])} sweep points")
        for ln in lines:
            con.print(escape(ln), highlight=False)
        if len(keys) > 1:
            for i, k in enumerate(keys):
                con.print(f"k{i + 1}: {escape(k)}", highlight=False)
        else:
            con.print(f"{escape(heads[1])}: {escape(keys[0])}", highlight=False)
        for i, pl in enumerate(players):
            con.print(f"p{i}: {escape(pl)}", highlight=False)
        print_prose(con, "s0, s1, ...: seat 0, seat 1, ...; wins: sole wins; score: share of the win (a shared win "
                    "or draw of two counts half); "
                    + ("p0, p1, ...: each player's score with its 95 % interval (the player effect); " if players else "")
                    + ("stronger: the declared-stronger player's score against the weaker with its 95 % interval "
                       "(the player effect: 50 % means skill does not matter; no order: the point's players are "
                       "declared equal); " if skill else "")
                    + (f"left out to fit {width} columns: {', '.join(dropped)}; " if dropped else "")
                    + "intervals and all columns in --json and the report")
    _print_metrics(con, s.get("metrics") or [])
    print_prose(con, f"draws (no winner): {s['draws']}   shared wins: {s['shared_wins']}   mean length: "
                     f"{s['mean_length']:.1f} actions")
    con.print(f"played now: {s['played']} (already stored: {s['resumed_skipped']})   wall: {s['wall_s']:.1f} s")
    # paths and commands to copy: escaped (a '[' in a path is text) and never wrapped (see sim.core.console)
    width = _width(con)

    def paths(*parts: str) -> None:
        # one line when the parts fit the width, else one part a line (each part stays whole)
        parts = tuple(p for p in parts if p)
        if len("   ".join(parts)) <= width:
            con.print(escape("   ".join(parts)), highlight=False)
        else:
            for p in parts:
                con.print(escape(p), highlight=False, soft_wrap=True)

    paths(f"results: {s['out']}/results.sqlite", f"report: {s['report']}" if s.get("report") else "")
    pages = [f for f in s.get("replays") or [] if f.endswith(".html")]
    if pages:
        # a turn-based game's replay pages open in any browser as they are
        paths(f"replays: {pages[0]}" + (f" and {len(pages) - 1} more beside it" if len(pages) > 1 else ""),
              "(open in a browser; any other game: stonelab replay view RUN --game N)")
    elif s.get("replays"):
        paths(f"replay: {s['replays'][0]}", f"watch: stonelab replay view {s['replays'][0]}",
              f"share: {s['replay_viewer']}/standalone.html" if s.get("replay_viewer") else "")


def print_seat_table(con: Any, title: str, seats: list[dict[str, Any]]) -> None:
    """One row per seat: sole wins (a count), their rate and the score, each with its 95 % interval
    in its own column, and the seat's agent. Labels and numbers are never cut: an agent label too
    long for the terminal (80 columns when piped) is shortened to the agent's name, and when even
    that does not fit the column is left out; the full labels follow, one line each."""
    width = _width(con)
    heads = ["seat", "sole wins", "rate [95 %]", "shared", "score [95 %]"]
    rows = [[str(r["seat"]), str(r["wins"]), pct_ci(r["win_rate"], *r["ci95"]), str(r["shared_wins"]),
             pct_ci(r["score"], *r["score_ci95"])] for r in seats]
    labels = [str(r["label"]) for r in seats]
    base, _ = fit_table(heads, rows, 10_000)
    room = width - max(map(len, base)) - 2
    cells, full = fit_labels(labels, room)
    show = max(map(len, cells), default=0) <= room
    if show:
        heads = [heads[0], "agent", *heads[1:]]
        rows = [[r[0], c, *r[1:]] for r, c in zip(rows, cells)]
    lines, _ = fit_table(heads, rows, width, left=(1,) if show else ())
    print_prose(con, title)
    for ln in lines:
        con.print(escape(ln), highlight=False)
    if not (show and full):
        for r, lab in zip(seats, labels):
            con.print(f"seat {r['seat']}: {escape(lab)}", highlight=False)


def _print_players(con: Any, players: list[dict[str, Any]], width: int) -> None:
    """Per player (seats rotate): its score with the 95 % interval over the games it played."""
    if not players:
        return
    rows = [[f"p{i}", pct_ci(p["score"], *p["score_ci95"]), str(p["games"])] for i, p in enumerate(players)]
    lines, _ = fit_table(["player", "score [95 %]", "games"], rows, width)
    print_prose(con, "per player score (share of the win; seats rotate; p0, p1, ...: the scenario's players):")
    for ln in lines:
        con.print(escape(ln), highlight=False)
    for i, p in enumerate(players):
        con.print(f"p{i}: {escape(p['player'])}", highlight=False)


def _print_metrics(con: Any, metrics: list[dict[str, Any]]) -> None:
    """The game-wide metrics of the catalogue, one line each: words, value [95 %], sample."""
    # start-up: analysis.catalogue (pandas) adds 375 ms to every command's start-up (CPU, python -X importtime)
    from analysis.catalogue import CLUSTER_LINE, INTERVALS, format_value

    game_own = [m for m in metrics if m["metric"] not in ("draw_rate", "shared_win_share", "draw_share", "mean_length")]
    if not game_own:
        return
    con.print("metrics (docs/compare.md: what each counts; 95 % intervals):", highlight=False)
    for m in game_own:
        share = bool(m.get("share"))
        v = m["value"] if m["value"] is not None else float("nan")
        lo, hi = (x if x is not None else float("nan") for x in m["ci95"])
        digits = m["decimals"] if m.get("decimals") is not None else 2  # the metric's own (whole Elo points)
        text = format_value(v, lo, hi, share, digits, m.get("distinct_games"))
        print_prose(con, f"{m['words']}: {text}", first="  ", indent="    ")
    if any(m.get("interval") == INTERVALS["ratio"] for m in game_own):
        print_prose(con, CLUSTER_LINE, first="  ", indent="  ")


def pct_ci(rate: float, lo: float | None, hi: float | None) -> str:
    """``'23 % [13, 37]'``: a rate and its 95 % interval in percent (``'100 % (no interval)'``
    where none was computed: one distinct game)."""
    if lo is None or hi is None or lo != lo or hi != hi:
        return f"{100 * rate:.0f} % (no interval)"
    return f"{100 * rate:.0f} % [{100 * lo:.0f}, {100 * hi:.0f}]"
