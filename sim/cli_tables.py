"""What ``stonelab`` prints as tables on a terminal: the games' options and a run's summary.

Everything from a file (labels, names, paths) goes through :mod:`sim.core.console`'s escaping;
nothing here wraps a name a user copies into a scenario.
"""

from __future__ import annotations

from typing import Any

__all__ = ["pct_ci", "print_games", "print_seat_table", "print_summary"]


def print_games(rows: list[dict[str, Any]]) -> None:
    """One block per game, one line per option: ``rules.max_turns = 500`` (its dotted key and
    default, TOML a scenario can take as it is), then what is allowed and what it means, indented.
    A table squeezed option names into 80 columns with an ellipsis; here a name and its default are
    never cut, and the explanations wrap at the terminal's width (on a pipe they stay one line)."""
    import textwrap

    from sim.core.console import console, escape
    from sim.core.tomlw import toml_value

    con = console()
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
        opts += [(f"seats[].{o['name']}", {**o, "doc": "per seat"}) for o in r["seat_options"]]
        for key, o in opts:
            say(f"{key} = {toml_value(o['default'])}", 2)
            say(f"allowed: {o['allowed']}", 6)
            say(str(o["doc"]), 6)
        say("agents (seats[].agent):", 2)
        for a in r["agents"]:
            say(f"{a['name']}: {a['doc']}", 4)
        con.print()


def print_summary(s: dict[str, Any]) -> None:
    """The run summary as tables: per seat, or for a sweep per point (pooling points would put
    different agents under one seat label)."""
    from rich.table import Table

    from analysis.wording import value_text
    from sim.core.console import console, escape

    con = console()
    title = f"{escape(s['scenario'])} ({s['game']}): {s['games']} games, seed {s['seed']}"
    if not s.get("points"):
        print_seat_table(con, title, s["seats"])
    else:
        # one row per sweep point: the swept values, then each seat's sole wins and score
        keys = list(s["points"][0]["values"])
        from rich import box

        # light borders: ten columns of a 2-seat, 2-key sweep fit an 80-column terminal
        t = Table(title=f"{title}, {len(s['points'])} sweep points", title_justify="left", box=box.SIMPLE_HEAD,
                  pad_edge=False)
        t.add_column("point", justify="right")
        for k in keys:
            t.add_column(escape(k.removeprefix("seats.")), justify="right", overflow="fold")
        t.add_column("games", justify="right")
        for r in s["seats"]:  # short headers: a 2-seat sweep of two keys fits 80 columns
            t.add_column(f"s{r['seat']} wins", justify="right")
            t.add_column(f"s{r['seat']} score", justify="right")
        t.add_column("shared", justify="right", min_width=6)
        t.add_column("draws", justify="right")
        for p in s["points"]:
            cells = [str(p["point"]), *(escape(value_text(p["values"].get(k))) for k in keys), str(p["games"])]
            for r in p["seats"]:
                cells += [str(r["wins"]), f"{100 * r['score']:.0f} %"]
            cells += [str(p["shared_wins"]), str(p["draws"])]
            t.add_row(*cells)
        con.print(t)
        con.print("s0, s1, ...: seat 0, seat 1, ...; wins: sole wins; score: share of the win (a shared win or "
                  "draw of two counts half); intervals in --json and the report")
    con.print(f"draws (no winner): {s['draws']}   shared wins: {s['shared_wins']}   mean length: "
              f"{s['mean_length']:.1f} actions")
    con.print(f"played now: {s['played']} (already stored: {s['resumed_skipped']})   wall: {s['wall_s']:.1f} s")
    # paths and commands to copy: escaped (a '[' in a path is text) and never wrapped (see sim.core.console)
    con.print(f"results: {escape(s['out'])}/results.sqlite"
              + (f"   report: {escape(s['report'])}" if s.get("report") else ""))
    pages = [f for f in s.get("replays") or [] if f.endswith(".html")]
    if pages:
        # a turn-based game's replay pages open in any browser as they are
        con.print(f"replays: {escape(pages[0])}" + (f" and {len(pages) - 1} more beside it" if len(pages) > 1 else "")
                  + "   (open in a browser; any other game: stonelab replay view RUN --game N)")
    elif s.get("replays"):
        con.print(
            f"replay: {escape(s['replays'][0])}   watch: stonelab replay view {escape(s['replays'][0])}"
            + (f"   share: {escape(s['replay_viewer'])}/standalone.html" if s.get("replay_viewer") else "")
        )


def print_seat_table(con: Any, title: str, seats: list[dict[str, Any]]) -> None:
    """One row per seat: sole wins (a count), their rate and the score, each with its 95 % interval
    in its own column. A seat label too long for the terminal would wrap inside its cell and break
    a name a user copies into a scenario, so then the table shows the agent's name and the full
    labels follow, one line each (never wrapped, see :mod:`sim.core.console`)."""
    from rich import box

    from sim.core.console import print_labelled_table

    heads = ["seat", "sole wins", "rate [95 % CI]", "shared wins", "score [95 % CI]"]
    rows = [[str(r["seat"]), str(r["wins"]), pct_ci(r["win_rate"], *r["ci95"]), str(r["shared_wins"]),
             pct_ci(r["score"], *r["score_ci95"])] for r in seats]
    # light borders (as the sweep table)
    print_labelled_table(con, heads, rows, [str(r["label"]) for r in seats], "agent",
                         [f"seat {r['seat']}" for r in seats], title=title, title_justify="left",
                         box=box.SIMPLE_HEAD, show_edge=False)

def pct_ci(rate: float, lo: float, hi: float) -> str:
    """``'23 % [13, 37]'``: a rate and its 95 % interval in percent."""
    return f"{100 * rate:.0f} % [{100 * lo:.0f}, {100 * hi:.0f}]"
