"""Sozoikum as a replay: one frame per decision (a simultaneous step, cards or bids revealed
together, is one frame), the stones drawn onto the fire folded into the round's first frame, and
one frame per house built, drawn from the pymunk simulation that judged it, as it stood or fell
(docs/replay-format.md, "Turn-based games"). Plain data, no I/O; the drawing is
``replay_board.js`` next to this file.

Hidden information: a bluff's fists while they are in hand (what :meth:`observation` hides);
everything else, stone shapes included, is public once drawn.
"""

from __future__ import annotations

from typing import Any, Sequence, cast

from sim.core.game import CHANCE, SIMULTANEOUS, Action, Game, GameConfig
from sim.replay.model import NO_SEAT, Frame, Frames, ReplayBook, replay_steps, seat_name
from sim.sozoikum.actions import (
    FIRE, Ally, Announce, Bid, BuildChoice, BuildNoise, Challenge, Dumno, DrawStone, Fist, Pass, Pick, Place,
    PlayCard, Reply, Sealed, Setup, Tiger, Veto,
)
from sim.sozoikum.options import SozoikumOptions
from sim.sozoikum.physics import build_from_seeds
from sim.sozoikum.draw import COLOURS
from sim.sozoikum.house import ROLE_NAMES, ROLES, fallen_roles
from sim.sozoikum.rules import SozoikumState
from sim.sozoikum.shapes import rest_angle, rotate, stone_shape

#: how the words name the cards (docs/rules-sozoikum.md)
CARD_NAMES = {"camp": "Camp", "gems": "Gems", "steal": "Steal", "tiger": "Tiger", "dumno": "Dumnopterix",
              "veto": "Veto"}


def _poly(verts: Any, x: float, y: float, angle: float) -> list[list[float]]:
    """A stone's outline turned by ``angle`` (rad) about its centroid and moved to (x, y), cm."""
    return [[round(float(px) + x, 3), round(float(py) + y, 3)] for px, py in rotate(verts, angle)]


def _resting(seed: int, options: SozoikumOptions) -> list[list[float]]:
    """Stone ``seed``'s outline lying on its longest edge (how a seat holds it), centroid at 0."""
    verts = stone_shape(seed, options.stone_size_min, options.stone_size_max)
    return _poly(verts, 0.0, 0.0, rest_angle(verts))


def _house(state: SozoikumState, seat: int, noise: int, attempt: int) -> dict[str, Any]:
    """The house ``seat`` builds with the plan of ``state`` and placement noise ``noise``: the verdict
    of the game's own pymunk build (:func:`sim.sozoikum.physics.build_from_seeds`) and, for a house
    that fell, the whole fall (the game's build stops once a stone reaches the ground, as
    ``stonelab sozoikum house --png`` does); each stone's outline where it was released and where it
    ended, and whether it fell (:func:`sim.sozoikum.house.fallen_roles`).
    """
    seeds = [state.stones[i] for i in state.plan]
    options = state.options
    verdict = build_from_seeds(seeds, state.skills[seat], noise, options)
    drawn = verdict if verdict.stood else build_from_seeds(seeds, state.skills[seat], noise, options,
                                                           stop_on_fall=False)
    fallen = fallen_roles(drawn, options.house_tolerance, options.house_fall_tilt)
    return {
        "seat": seat, "attempt": attempt, "round": state.round, "stones": list(state.plan), "roles": list(ROLES),
        "stood": verdict.stood, "reason": verdict.reason,
        "placed": [_poly(v, p.x, p.y, p.angle) for v, p in zip(drawn.verts, drawn.placed)],
        "final": [_poly(v, p.x, p.y, p.angle) for v, p in zip(drawn.verts, drawn.final)],
        "displacement": [round(d, 3) for d in drawn.displacement],
        "fell": [r in fallen for r in ROLES],
    }


def _board(s: SozoikumState, houses: dict[int, int]) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The public position (fists only as "in hand") and each seat's fist."""
    n = s.num_players
    board = {
        "round": s.round, "start": s.start, "phase": s.phase, "rule": s.rule, "cards_on": s.cards_on,
        "fire": list(s.fire), "reserve": [list(r) for r in s.reserve], "gems": list(s.gems), "mine": s.mine,
        "bag": s.bag_size(), "oneshots": list(s.oneshots), "played": list(s.played), "camp": list(s.camp),
        "high": s.high, "holders": [list(h) for h in s.holders], "ann": list(s.ann),
        "fists": [f is not None for f in s.fists], "builder": s.builder, "plan": list(s.plan),
        "attempts": list(s.attempts), "collapses": list(s.collapses), "winner": s.winner,
        "houses": {str(k): v for k, v in houses.items()},
    }
    hidden = {p: {"fist": s.fists[p]} for p in range(n) if s.fists[p] is not None}
    return board, hidden


def _stones(ids: Sequence[int]) -> str:
    return ", ".join(f"s{i}" for i in ids)


def _gems(k: int) -> str:
    return f"{k} gem" if k == 1 else f"{k} gems"


def _changes(before: SozoikumState, after: SozoikumState) -> str:
    """What the step moved, seat by seat: stones won or lost, gems paid or taken."""
    parts = []
    for p in range(after.num_players):
        got = [i for i in after.reserve[p] if i not in before.reserve[p]]
        lost = [i for i in before.reserve[p] if i not in after.reserve[p]]
        dg = after.gems[p] - before.gems[p]
        bits = ([f"takes {_stones(got)}"] if got else []) + ([f"loses {_stones(lost)}"] if lost else []) + \
            ([f"{'gets' if dg > 0 else 'pays'} {_gems(abs(dg))}"] if dg else [])
        if bits:
            parts.append(f"{seat_name(p)} " + ", ".join(bits))
    return "; ".join(parts)


def _describe(before: SozoikumState, seat: int, a: Any) -> str:
    """A decision in words (before its consequences, which :func:`_changes` adds)."""
    who = seat_name(seat)
    if seat == SIMULTANEOUS:
        joint = dict(cast("Sequence[tuple[int, Action]]", a))
        kind = type(next(iter(joint.values())))
        if kind is PlayCard:
            return "cards revealed: " + ", ".join(f"{seat_name(s)} {CARD_NAMES[cast(PlayCard, x).card]}"
                                                  for s, x in sorted(joint.items()))
        if kind is Sealed:
            return "hidden bids revealed: " + ", ".join(f"{seat_name(s)} {cast(Sealed, x).amount}"
                                                        for s, x in sorted(joint.items()))
        names = [seat_name(s) for s in sorted(joint)]
        return ", ".join(names[:-1]) + " and " + names[-1] + " each hide gems in a fist"
    if isinstance(a, Setup):
        return (f"{who}, the start player, plays the round " + ("with cards" if a.cards else "without cards")
                + f"; the stones are gathered by {a.rule}")
    if isinstance(a, Veto):
        return f"{who} plays Veto: {seat_name(a.target)} leaves the camp"
    if isinstance(a, Tiger):
        return f"{who} plays Tiger, takes stone s{a.stone} from {seat_name(a.target)}"
    if isinstance(a, Dumno):
        where = "the fire" if a.target == FIRE else seat_name(a.target)
        return f"{who} plays Dumnopterix: stone s{a.stone} of {where} goes back to the bag"
    if isinstance(a, Bid):
        return f"{who} bids {_gems(a.amount)} for the fire"
    if isinstance(a, Ally):
        return f"{who} offers to join the standing bid with {_gems(a.amount)}"
    if isinstance(a, Reply):
        return f"{who} {'accepts' if a.accept else 'refuses'} the coalition"
    if isinstance(a, Pass):
        return f"{who} passes"
    if isinstance(a, Announce):
        return f"{who} announces {_gems(a.amount)}"
    if isinstance(a, Challenge):
        return f"{who} {'challenges the highest announcement' if a.challenge else 'lets the highest announcement stand'}"
    if isinstance(a, Pick):
        return f"{who} picks stone s{a.stone} from the fire"
    if isinstance(a, BuildChoice):
        return f"{who} {'starts to build its house' if a.build else 'does not build this round'}"
    if isinstance(a, Place):
        return f"{who} lays stone s{a.stone} as {ROLE_NAMES[a.role]}"
    return f"{who}: {a}"


def frames(game: Game, config: GameConfig, history: Sequence[tuple[int, Action]], *,
           partial: bool = False) -> Frames:
    """The frames of a game (see the module docstring).

    Raises:
        IllegalActionError: the history does not apply.
        ValueError: the history does not end the game and ``partial`` is false (a game in progress,
            shown on the play page, is partial: its ``Frames.outcome`` is None).
        ValueError: a house built again does not give the verdict the rules logged.
    """
    first = game.new_initial_state(config)
    assert isinstance(first, SozoikumState)
    out: list[Frame] = []
    builds: list[dict[str, Any]] = []
    houses: dict[int, int] = {}  # per seat, its last build (index into ``builds``)
    state: SozoikumState = first
    drawn: list[int] = []  # stones put on the fire since the last frame
    for before, seat, action, after in replay_steps(game, config, history):
        assert isinstance(before, SozoikumState) and isinstance(after, SozoikumState)
        state = after
        if seat == CHANCE and isinstance(action, DrawStone):
            drawn += [i for i in after.fire if i not in before.fire]
            # the round's draws end at the start player's choice: one frame for them
            if after.phase != "draw":
                board, hidden = _board(after, houses)
                text = f"round {after.round} begins, {seat_name(after.start)} starts: " + (
                    f"{len(drawn)} stone{'s' if len(drawn) > 1 else ''} from the bag onto the fire ({_stones(drawn)})"
                    if drawn else "the bag is empty")
                more = _changes(before, after)
                out.append(Frame(after.round, NO_SEAT, text + (f"; {more}" if more else ""), board, hidden))
                drawn = []
            continue
        if seat == CHANCE and isinstance(action, BuildNoise):
            b = before.builder
            house = _house(before, b, action.seed, before.attempts[b] + 1)
            logged = after.log[-1]
            if bool(logged[3]) != house["stood"]:
                raise ValueError(f"the house of {seat_name(b)} in round {logged[0]} built again "
                                 f"{'stands' if house['stood'] else 'falls'}, but the game logged the opposite")
            houses[b] = len(builds)
            builds.append(house)
            board, hidden = _board(after, houses)
            text = (f"{seat_name(b)} builds its house with {_stones(house['stones'])}: "
                    + ("it stands, and wins" if house["stood"] else f"it collapses ({house['reason']})"))
            out.append(Frame(before.round, b, text, board, hidden))
            continue
        text = _describe(before, seat, action)
        more = _changes(before, after)
        board, hidden = _board(after, houses)
        if seat == SIMULTANEOUS and isinstance(dict(action)[next(iter(dict(action)))], Fist):
            for s, x in action:
                hidden.setdefault(s, {})["note"] = f"hides {_gems(cast(Fist, x).amount)}"
        if after.phase == "over" and after.winner < 0:
            more = (more + "; " if more else "") + f"round {after.options.max_rounds} is over: no house stood, a draw"
        out.append(Frame(before.round, NO_SEAT if seat == SIMULTANEOUS else seat,
                         text + (f"; {more}" if more else ""), board, hidden))
    if out and out[0].turn != 0:
        board0, hidden0 = _board(first, {})
        out.insert(0, Frame(0, NO_SEAT, f"the game begins: {first.num_players} players, {first.bag_size()} stones in "
                            f"the bag, {first.gems[0]} gems each, {first.mine} in the mine", board0, hidden0))
    outcome = state.outcome()
    if outcome is None and not partial:
        raise ValueError("the history does not end the game")
    setup = {
        "shapes": {str(i): _resting(seed, state.options) for i, seed in enumerate(state.stones)},
        "builds": builds, "role_colours": dict(COLOURS), "role_names": dict(ROLE_NAMES),
        "wall_gap": state.options.wall_gap, "turn_name": "round", "start_gems": state.options.start_gems,
        "one_shot_names": {"T": "Tiger", "D": "Dumnopterix", "V": "Veto"}, "card_names": dict(CARD_NAMES),
    }
    return Frames(out, outcome, setup)


REPLAY = ReplayBook(frames=frames, board_js="replay_board.js", module=__name__)
