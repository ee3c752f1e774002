"""The Replays section of a turn-based game's report: the replay pages ``stonelab run`` wrote
(``RUN/replays/game-<i>.html``, :mod:`sim.replay.runs`), linked, and the command that writes any
other game's. Game-neutral: it applies to every game whose plug-in names a turn-by-turn replay.
"""

from __future__ import annotations

import html
import json

from analysis.plots import Section
from analysis.run_data import RunData
from sim.games import REGISTRY
from sim.replay.runs import REPLAYS_DIR, RUN_REPLAY_GAMES, page_name


def section(run: RunData) -> Section | None:
    """Links to the replay pages in the run folder, one row per game, and how to watch any other;
    None for a game without turn-by-turn replays or a run without games."""
    plugin = REGISTRY.find(run.game) if run.game else None
    if plugin is None or plugin.replay is None or run.games.empty:
        return None
    esc = html.escape
    games = run.games.sort_values(["point", "game_index"])
    first = games[games["point"] == 0].head(RUN_REPLAY_GAMES)
    rows = []
    for _, g in first.iterrows():
        idx = int(g["game_index"])
        f = run.run_dir / REPLAYS_DIR / page_name(idx)
        winners = g.get("winners")
        who = ", ".join(f"seat {w}" for w in winners) if isinstance(winners, list) and winners else "draw"
        try:
            scores = ", ".join(f"{float(x):g}" for x in json.loads(g.get("scores_json") or "[]"))
        except (TypeError, ValueError):
            scores = ""
        cell = (f"<a href='../{REPLAYS_DIR}/{esc(f.name)}'>{esc(f.name)}</a>" if f.is_file()
                else f"<code>stonelab replay export {esc(str(run.run_dir))} --game {idx} --out {esc(f.name)}</code>")
        rows.append(f"<tr><td>{idx}</td><td>{esc(who)}</td><td>{esc(scores)}</td><td>{int(g['length'])}</td>"
                    f"<td style='text-align:left'>{cell}</td></tr>")
    last = int(games["game_index"].max())
    sweep = games["point"].nunique() > 1
    body = (
        "<table class='data'><thead><tr><th>game</th><th>winner</th><th>scores by seat</th><th>length</th>"
        "<th>replay</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
        f"<p class='note'>Any other of the {len(games)} games: <code>stonelab replay view {esc(str(run.run_dir))}"
        + (" --point P" if sweep else "") + f" --game N</code> (N from 0 to {last}"
        + (f", P from 0 to {int(games['point'].max())}" if sweep else "")
        + "), or <code>stonelab replay export ... --out FILE.html</code> for a file to share.</p>"
    )
    return Section(
        "Replays",
        "Every game can be watched move by move: the board at each step, each step in words, hidden "
        "information per seat or for all. Each page is one file that opens in a browser, offline; the game is "
        "played again from its seed (a game a person played: from its move record) and checked against the "
        "stored result.",
        html=body,
    )
