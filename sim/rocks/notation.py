"""Stonehenge Rocks!: reading a notation back into a state (every field checked), and
:func:`build_position`, a hand-built position for tests, examples and bug reports. No I/O.

The writer is :meth:`sim.rocks.rules.RocksState.to_notation`.
"""

from __future__ import annotations

from typing import Any, Mapping

from sim.core.errors import InputError
from sim.rocks.actions import DECK, DECK_SIZE, NUM_CARDS, SPACES, TRILITHON_CARD, card_text
from sim.rocks.options import OPTIONS, RocksOptions
from sim.rocks.rules import CHANCE_PHASES, DEAL, GUARD_SETUP, PHASE_BY_NAME, PHASE_NAMES, WON, RocksState

def _parse_int(text: str, what: str, lo: int, hi: int) -> int:
    try:
        v = int(text)
    except ValueError:
        raise InputError(f"{what}: {text!r} is not an integer") from None
    if not lo <= v <= hi:
        raise InputError(f"{what}: {v} is outside {lo}..{hi}")
    return v


def _parse_counts(text: str, what: str) -> list[int]:
    counts = [0] * NUM_CARDS
    if text == "-":
        return counts
    for tok in text.split("."):
        card, _, k = tok.partition("x")
        c = TRILITHON_CARD if card == "T" else _parse_int(card, what, 1, SPACES)
        counts[c] += _parse_int(k, what, 1, DECK_SIZE) if k else 1
    return counts


def _parse_fans(text: str, what: str) -> list[int]:
    pile, sep, rest = text.partition(":")
    if not sep:
        raise InputError(f"{what}: expected 'pile:spaces', got {text!r}")
    f = [_parse_int(pile, what, 0, 1000)] + [0] * SPACES
    if rest:
        for tok in rest.split("."):
            s, _, k = tok.partition("x")
            f[_parse_int(s, what, 1, SPACES)] += _parse_int(k, what, 1, 1000) if k else 1
    return f


def _per_seat(text: str, n: int, what: str) -> list[str]:
    parts = text.split("/")
    if len(parts) != n:
        raise InputError(f"{what}: expected {n} seats separated by '/', got {text!r}")
    return parts


_OPTION_BY_NAME = {o.name: o for o in OPTIONS}
_KEYS = ("n", "rules", "turn", "to", "phase", "guard", "guard_moved", "reshuffles", "fans", "box", "tri",
         "shirts", "removed", "hands", "draw", "discard", "out")


def parse_notation(text: str) -> RocksState:
    """Parse :meth:`RocksState.to_notation` output.

    Raises:
        InputError: malformed text, a bad rule option, or an inconsistent position (cards or fans
            not conserved, counts out of range).
    """
    if not isinstance(text, str):
        raise InputError(f"notation must be a string, got {type(text).__name__}")
    toks = text.split()
    if not toks or toks[0] != "rocks":
        raise InputError(f"not a Stonehenge Rocks! notation (must start with 'rocks'): {text!r}")
    kv: dict[str, str] = {}
    for tok in toks[1:]:
        k, sep, v = tok.partition("=")
        if not sep or k not in _KEYS or k in kv:
            raise InputError(f"bad or repeated field {tok!r} in notation; fields: {', '.join(_KEYS)}")
        kv[k] = v
    missing = [k for k in _KEYS if k not in kv]
    if missing:
        raise InputError(f"notation lacks field(s) {', '.join(missing)}")
    n = _parse_int(kv["n"], "n", 2, 5)
    raw: dict[str, Any] = {}
    if kv["rules"]:
        for item in kv["rules"].split(","):
            name, sep, val = item.partition(":")
            opt = _OPTION_BY_NAME.get(name)
            if not sep or opt is None or name in raw:
                raise InputError(f"rules: bad or repeated item {item!r}")
            if opt.type is bool:
                if val not in ("true", "false"):
                    raise InputError(f"rules: {name} must be true or false, got {val!r}")
                raw[name] = val == "true"
            elif opt.type is int:
                raw[name] = _parse_int(val, f"rules.{name}", -(10**9), 10**9)
            else:
                raw[name] = val
    rules = RocksOptions.from_rules(raw)  # ScenarioError (an InputError) for bad values
    st = RocksState(n, rules)
    st.turn = _parse_int(kv["turn"], "turn", 0, rules.max_turns)
    st.to = _parse_int(kv["to"], "to", 0, n - 1)
    if kv["phase"] not in PHASE_BY_NAME:
        raise InputError(f"phase: {kv['phase']!r} is not one of {', '.join(PHASE_NAMES)}")
    st.phase = PHASE_BY_NAME[kv["phase"]]
    st.guard = _parse_int(kv["guard"], "guard", 0, SPACES)
    st.guard_moved = bool(_parse_int(kv["guard_moved"], "guard_moved", 0, 1))
    st.reshuffles = _parse_int(kv["reshuffles"], "reshuffles", 0, 10**9)
    st.fans = [_parse_fans(t, "fans") for t in _per_seat(kv["fans"], n, "fans")]
    st.box = [_parse_int(t, "box", 0, rules.fans_per_player) for t in _per_seat(kv["box"], n, "box")]
    st.tri, st.tri_id = [], []
    for t in _per_seat(kv["tri"], n, "tri"):
        if t == "-":
            st.tri.append(0)
            st.tri_id.append(-1)
        else:
            k, sep, i = t.partition("@")
            if not sep:
                raise InputError(f"tri: expected 'count@trilithon' or '-', got {t!r}")
            st.tri.append(_parse_int(k, "tri", 0, rules.fans_per_player))
            st.tri_id.append(_parse_int(i, "tri", 1, rules.trilithons))
    st.shirts = [_parse_int(t, "shirts", 0, rules.tshirts_per_player) for t in _per_seat(kv["shirts"], n, "shirts")]
    st.removed = [_parse_int(t, "removed", 0, 10**9) for t in _per_seat(kv["removed"], n, "removed")]
    hands = []
    for t in _per_seat(kv["hands"], n, "hands"):
        counts = _parse_counts(t, "hands")
        hands.append([c for c in range(NUM_CARDS) for _ in range(counts[c])])
    st.hands = hands
    st.draw = _parse_counts(kv["draw"], "draw")
    st.disc = _parse_counts(kv["discard"], "discard")
    st.out = _parse_counts(kv["out"], "out")
    st.draw_n, st.disc_n = sum(st.draw), sum(st.disc)
    _check_consistent(st)
    return st


def _check_consistent(st: RocksState) -> None:
    """Raise InputError unless cards and fans are conserved and the position is reachable-shaped."""
    r = st.options
    n = st.num_players
    total = [st.draw[c] + st.disc[c] + st.out[c] + sum(h.count(c) for h in st.hands) for c in range(NUM_CARDS)]
    if total != list(DECK):
        raise InputError("cards are not conserved: hands, draw, discard and out must hold the 65-card deck")
    for p in range(n):
        if len(st.hands[p]) > r.hand_size:
            raise InputError(f"hands: seat {p} holds more than {r.hand_size} cards")
        if sum(st.fans[p]) + st.box[p] + st.tri[p] != r.fans_per_player:
            raise InputError(f"fans: seat {p}'s fans do not add up to {r.fans_per_player}")
        if (st.tri[p] > 0) != (st.tri_id[p] >= 0):
            raise InputError(f"tri: seat {p} has fans on a trilithon it does not own (or owns an empty one)")
    ids = [i for i in st.tri_id if i >= 0]
    if len(set(ids)) != len(ids):
        raise InputError("tri: two seats share a trilithon")
    st.tri_claimed = len(ids)
    if sorted(ids) != list(range(1, len(ids) + 1)):
        raise InputError("tri: trilithons are numbered 1.. in order of claim")
    st.box_total = sum(st.box)
    if st.box_total > r.box_seats:
        raise InputError(f"box: more than {r.box_seats} box seats taken")
    st.occ = [0] + [sum(f[s] for f in st.fans) for s in range(1, NUM_CARDS)]
    setup = st.phase in (DEAL, GUARD_SETUP)
    if setup != (st.guard == 0):
        raise InputError("guard: 0 exactly before the guard is placed at setup")
    if st.phase in CHANCE_PHASES and not st.draw_n:
        raise InputError("a chance node needs a non-empty draw pile")
    if st.phase == GUARD_SETUP and r.guard_setup_trilithon == "reshuffle" and st.draw_n == st.draw[TRILITHON_CARD]:
        raise InputError("the guard's setup draw needs a number card in the draw pile")
    if st.phase == WON and st.points(st.to) < r.target_points:
        raise InputError("phase won but the seat 'to' has fewer than target_points")


def build_position(
    num_players: int = 2,
    *,
    rules: Mapping[str, Any] | None = None,
    to: int = 0,
    phase: str = "start",
    turn: int = 0,
    guard: int = 1,
    guard_moved: bool = False,
    fans: Mapping[int, Mapping[int, int]] | None = None,
    box: Mapping[int, int] | None = None,
    tri: Mapping[int, int] | None = None,
    shirts: Mapping[int, int] | None = None,
    hands: Mapping[int, list[int | str]] | None = None,
    discard: list[int | str] | None = None,
    draw: list[int | str] | None = None,
) -> RocksState:
    """A hand-built position for tests, examples and bug reports.

    Args:
        fans: seat -> {space: count} of fans in the festival area; the rest of the seat's fans
            (after ``box`` and ``tri``) are in its pile.
        box, tri: seat -> fans in box seats / on its trilithon (trilithons are numbered by seat
            order among the seats that have one).
        shirts: seat -> T-shirts taken.
        hands, discard, draw: cards as numbers 1-30 or ``"T"`` (or 0) for a trilithon card.
            Cards not placed go to the draw pile; when ``draw`` is given they go to the discard pile.
        phase: a phase name (``start``, ``moved``, ``seated``, ``guarded``, ``refill``, ...).

    Raises:
        InputError: an impossible position (too many cards or fans, bad phase...).
    """
    r = RocksOptions.from_rules(rules)
    st = RocksState(num_players, r)
    if phase not in PHASE_BY_NAME:
        raise InputError(f"phase: {phase!r} is not one of {', '.join(PHASE_NAMES)}")
    st.phase = PHASE_BY_NAME[phase]
    st.to, st.turn, st.guard, st.guard_moved = to, turn, guard, guard_moved

    def card(c: int | str) -> int:
        if c in ("T", 0):
            return TRILITHON_CARD
        if isinstance(c, int) and 1 <= c <= SPACES:
            return c
        raise InputError(f"not a card: {c!r}")

    left = list(DECK)

    def take(cards: list[int | str]) -> list[int]:
        out = [card(c) for c in cards]
        for c in out:
            left[c] -= 1
            if left[c] < 0:
                raise InputError(f"more copies of card {card_text(c)} than the deck holds")
        return out

    n = num_players
    st.hands = [take(list((hands or {}).get(p, []))) for p in range(n)]
    st.disc = [0] * NUM_CARDS
    for c in take(list(discard or [])):
        st.disc[c] += 1
    st.draw = [0] * NUM_CARDS
    if draw is not None:
        for c in take(list(draw)):
            st.draw[c] += 1
        for c in range(NUM_CARDS):
            st.disc[c] += left[c]
    else:
        st.draw = left
    st.draw_n, st.disc_n = sum(st.draw), sum(st.disc)
    st.box = [int((box or {}).get(p, 0)) for p in range(n)]
    st.tri = [int((tri or {}).get(p, 0)) for p in range(n)]
    nxt = 0
    for p in range(n):
        if st.tri[p]:
            nxt += 1
            st.tri_id[p] = nxt
    st.shirts = [int((shirts or {}).get(p, 0)) for p in range(n)]
    for p in range(n):
        f = [0] * NUM_CARDS
        for s, k in dict((fans or {}).get(p, {})).items():
            if not 1 <= s <= SPACES:
                raise InputError(f"fans: no festival space {s}")
            f[s] += k
        f[0] = r.fans_per_player - sum(f) - st.box[p] - st.tri[p]
        if f[0] < 0:
            raise InputError(f"fans: seat {p} has more than {r.fans_per_player} fans")
        st.fans[p] = f
    _check_consistent(st)
    return st
