"""``GAME``: Knizia's druid *Stonehenge* as the registry serves it (spec, agents, constructors).

Rule options (scenario table ``[rules]``): ``tie_loser``, ``early_domination``, ``face_down``,
``match_games``; see :mod:`sim.druids.options` and ``docs/rules-druids.md``.

Store columns (table ``druids_games``): megaliths and noted remaining megaliths per seat, lines
won by length per seat, early against full claims per seat. Detail tables: ``druids_claims``
(one row per megalith placed) and ``druids_matchgames`` (one row per game of a match).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.agents import ISMCTS, MCTS, RANDOM
from sim.core.errors import InputError
from sim.core.game import Column, Game, GameConfig, GameDetails, GameSpec
from sim.druids.agents import GREEDY
from sim.druids.geometry import LINE_DIRECTION, LINE_LENGTH, LINE_NAMES
from sim.druids.notation import parse_notation
from sim.druids.options import OPTIONS, DruidsOptions
from sim.druids.pieces import MEGALITHS
from sim.druids.rules import HIDDEN, DruidsEnd, DruidsObservation, DruidsState, record_megaliths, record_winner

_LENGTHS = sorted(set(LINE_LENGTH))

RESULT_COLUMNS: tuple[Column, ...] = (
    Column("games", "INTEGER", "games played (match_games)"),
    Column("megaliths_0", "INTEGER", "megaliths seat 0 placed, summed over the match"),
    Column("megaliths_1", "INTEGER", "megaliths seat 1 placed, summed over the match"),
    Column("noted_0", "INTEGER", "remaining megaliths noted against seat 0 when it lost (match score, lower wins)"),
    Column("noted_1", "INTEGER", "remaining megaliths noted against seat 1 when it lost"),
    *(
        Column(f"lines{n}_{s}", "INTEGER", f"lines of length {n} won by seat {s}")
        for s in (0, 1)
        for n in _LENGTHS
    ),
    Column("early_0", "INTEGER", "seat 0's claims made before the line was full"),
    Column("early_1", "INTEGER", "seat 1's claims made before the line was full"),
    Column("full_0", "INTEGER", "seat 0's claims of full lines"),
    Column("full_1", "INTEGER", "seat 1's claims of full lines"),
    Column("stones", "INTEGER", "stones on the board when the last game ended"),
)

DETAIL_TABLES = {
    "claims": (
        Column("game", "INTEGER", "game of the match (0-based)"),
        Column("line", "TEXT", "line letter A..O"),
        Column("direction", "INTEGER", "line direction 0..2"),
        Column("length", "INTEGER", "spaces on the line"),
        Column("seat", "INTEGER", "seat that placed the megalith"),
        Column("early", "INTEGER", "1 if claimed before the line was full"),
        Column("ply", "INTEGER", "stones on the board when claimed"),
    ),
    "matchgames": (
        Column("game", "INTEGER", "game of the match (0-based)"),
        Column("first", "INTEGER", "seat that placed first"),
        Column("winner", "INTEGER", "seat that placed its 8th megalith"),
        Column("megaliths_0", "INTEGER", "megaliths seat 0 placed in this game"),
        Column("megaliths_1", "INTEGER", "megaliths seat 1 placed in this game"),
        Column("stones", "INTEGER", "stones on the board at the end"),
    ),
}


SPEC = GameSpec(
    name="druids",
    title="Stonehenge (Reiner Knizia, Blatz 1994)",
    min_players=2,
    max_players=2,
    has_chance=False,
    # the face-down variant hides stone values (the face-up game hides nothing)
    hidden_information=True,
    simultaneous=False,
    options=OPTIONS,
    result_columns=RESULT_COLUMNS,
    detail_tables=DETAIL_TABLES,
    terminations=DruidsEnd,
    score_unit="megaliths placed",
)


class DruidsGame(Game):
    """The druid game: a two-seat, no-chance game with an optional hidden-information variant."""

    spec = SPEC
    agents = {
        "random": RANDOM,
        "greedy": GREEDY,
        "mcts": MCTS,
        "ismcts": ISMCTS,
    }

    def new_initial_state(self, config: GameConfig) -> DruidsState:
        """A fresh match from validated ``config.rules``.

        Raises:
            InputError: the config does not seat exactly 2 players; ScenarioError: a rule option
                is unknown or out of range.
        """
        if config.num_players != 2:
            raise InputError(f"druids is a 2-player game, got {config.num_players} players", key="seats")
        return DruidsState(DruidsOptions.from_rules(config.rules))

    def from_notation(self, text: str) -> DruidsState:
        """Parse a notation (:func:`sim.druids.notation.parse_notation`).

        Raises:
            InputError: malformed or inconsistent text.
        """
        return parse_notation(text)

    def determinize(self, observation: DruidsObservation, rng: np.random.Generator) -> DruidsState:
        """A full state consistent with ``observation``.

        Face up it is exact. Face down, the opponent's hidden stones get values drawn without
        replacement from the opponent's unseen stones (those face down on the board and in hand;
        a uniform random split), the rest is their hand.

        Raises:
            InputError: the observation is not a druids observation.
        """
        if not isinstance(observation, DruidsObservation):
            raise InputError(f"not a druids observation: {type(observation).__name__}")
        values = list(observation.values)
        hidden = [i for i, v in enumerate(values) if v == HIDDEN]
        if hidden:
            pool = observation.opponent_pool()
            pick = rng.permutation(len(pool))
            for j, i in enumerate(hidden):
                values[i] = pool[int(pick[j])]
        return DruidsState.from_parts(observation.options, observation.records, list(zip(observation.order, values)))

    def details(self, state: DruidsState) -> GameDetails:  # type: ignore[override]
        """Store columns and rows of a finished (or running) match: see module docstring."""
        cols: dict[str, Any] = {c.name: 0 for c in RESULT_COLUMNS}
        claims_rows: list[dict[str, Any]] = []
        game_rows: list[dict[str, Any]] = []
        records = state.records()
        cols["games"] = len(records)
        for g, rec in enumerate(records):
            meg = record_megaliths(rec)
            w = record_winner(rec)
            for s in (0, 1):
                cols[f"megaliths_{s}"] += meg[s]
                if w is not None and s != w:
                    cols[f"noted_{s}"] += MEGALITHS - meg[s]
            for L, seat, early, ply in rec:
                cols[f"lines{LINE_LENGTH[L]}_{seat}"] += 1
                cols[f"{'early' if early else 'full'}_{seat}"] += 1
                claims_rows.append(
                    {
                        "game": g,
                        "line": LINE_NAMES[L],
                        "direction": LINE_DIRECTION[L],
                        "length": LINE_LENGTH[L],
                        "seat": seat,
                        "early": int(early),
                        "ply": ply,
                    }
                )
            game_rows.append(
                {
                    "game": g,
                    "first": g & 1,
                    "winner": w,
                    "megaliths_0": meg[0],
                    "megaliths_1": meg[1],
                    "stones": rec[-1][3] if rec else 0,
                }
            )
        cols["stones"] = len(state.moves())
        return GameDetails(columns=cols, rows={"claims": claims_rows, "matchgames": game_rows})


GAME = DruidsGame()
