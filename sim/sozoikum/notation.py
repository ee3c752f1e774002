"""Sozoikum: reading a notation (the text :meth:`SozoikumState.to_notation` writes) back into a
state, with every field checked. No I/O.
"""

from __future__ import annotations

from typing import Any

from sim.core.errors import InputError
from sim.sozoikum.actions import CARDS, DUMNO, TIGER, VETO
from sim.sozoikum.options import OPTION_BY_NAME
from sim.sozoikum.position import NOTATION_KEYS, PHASES, decode_option, split_ints
from sim.sozoikum.rules import SozoikumEnd, SozoikumState
from sim.sozoikum.shapes import SEED_BOUND


def parse_notation(text: str, *, allow_hidden: bool = False) -> SozoikumState:
    """Parse :meth:`SozoikumState.to_notation` output.

    Args:
        allow_hidden: accept ``?`` for bluff fists (an observation); they become
            ``SozoikumState.HIDDEN``.

    Raises:
        InputError: the text is not a valid Sozoikum notation (the message says what is wrong).
    """
    if not isinstance(text, str):
        raise InputError(f"a notation is a string, got {type(text).__name__}")
    try:
        return _parse(text, allow_hidden)
    except InputError:
        raise
    except (ValueError, KeyError, IndexError, TypeError) as e:
        raise InputError(f"not a valid sozoikum notation ({e}): {text[:200]!r}") from None


def _parse(text: str, allow_hidden: bool) -> SozoikumState:
    tokens = text.split()
    if not tokens or tokens[0] != "sozoikum":
        raise ValueError("must start with 'sozoikum'")
    kv: dict[str, str] = {}
    for tok in tokens[1:]:
        k, sep, v = tok.partition("=")
        if not sep or k in kv:
            raise ValueError(f"bad or repeated field {tok!r}")
        kv[k] = v
    if set(kv) != set(NOTATION_KEYS):
        raise ValueError(f"fields missing or unknown: {sorted(set(NOTATION_KEYS) ^ set(kv))}")
    n = int(kv["n"])
    rules: dict[str, Any] = {}
    for item in kv["rules"].split(","):
        k, _, v = item.partition(":")
        if k not in OPTION_BY_NAME:
            raise ValueError(f"unknown rule {k!r}")
        rules[k] = decode_option(k, v)
    skills = [float(x) for x in kv["skill"].split(",")]
    s = SozoikumState.new(n, rules, skills)
    s._history = []
    s.round = int(kv["round"])
    s.start = int(kv["start"])
    s.phase = kv["phase"]
    if s.phase not in PHASES:
        raise ValueError(f"unknown phase {s.phase!r}")
    s.draws_left = int(kv["draws"])
    s.stones = split_ints(kv["stones"])
    s.fresh = int(kv["fresh"])
    s.back = split_ints(kv["back"])
    s.fire = split_ints(kv["fire"])
    res = kv["res"].split("/")
    if len(res) != n:
        raise ValueError("res needs one list per seat")
    s.reserve = [split_ints(r) for r in res]
    s.gems = split_ints(kv["gems"])
    s.mine = int(kv["mine"])
    s.oneshots = ["" if o == "-" else o for o in kv["oneshots"].split(",")]
    c, _, rule = kv["setup"].partition(":")
    s.cards_on = c == "1"
    s.rule = "" if rule == "-" else rule
    s.played = kv["played"].split(",")
    s.camp = split_ints(kv["camp"])
    s.effects = []
    if kv["effects"] != "-":
        for item in kv["effects"].split(","):
            k, _, b = item.partition(":")
            if k not in (VETO, TIGER, DUMNO):
                raise ValueError(f"unknown effect {k!r}")
            s.effects.append((k, int(b)))
    act, high, hold, out, offer, ref = kv["auction"].split(":")
    s.act, s.high = int(act), int(high)
    s.holders = [] if hold == "-" else [tuple(int(x) for x in h.split("x")) for h in hold.split(".")]  # type: ignore[misc]
    s.out = split_ints(out, ".")
    s.offer = None if offer == "-" else tuple(int(x) for x in offer.split("x"))  # type: ignore[assignment]
    s.refused = ref == "1"
    bid, reb = kv["hidden"].split(":")
    s.bidders = split_ints(bid)
    s.rebids = int(reb)
    fists: list[int | None] = []
    for f in kv["fists"].split(","):
        if f == "?":
            if not allow_hidden:
                raise ValueError("hidden fist in a full notation")
            fists.append(SozoikumState.HIDDEN)
        else:
            fists.append(None if f == "-" else int(f))
    s.fists = fists
    s.ann = [None if a == "-" else int(a) for a in kv["ann"].split(",")]
    s.idx = int(kv["idx"])
    s.chal = split_ints(kv["chal"])
    s.pickers = split_ints(kv["pickers"])
    b, q, plan = kv["build"].split(":")
    s.builder = int(b)
    s.queue = split_ints(q, ".")
    s.plan = split_ints(plan, ".")
    s.spent = split_ints(kv["spent"])
    s.taken = split_ints(kv["taken"])
    s.attempts = split_ints(kv["attempts"])
    s.collapses = split_ints(kv["collapses"])
    w, _, term = kv["end"].partition(":")
    s.winner = int(w)
    s.termination = None if term == "-" else SozoikumEnd(term)  # ValueError names an unknown ending
    s.log = []
    if kv["log"] != "-":
        for item in kv["log"].split(";"):
            r, seat, st, ok, d, ns = item.split(":")
            s.log.append((int(r), int(seat), tuple(int(x) for x in st.split(".")), int(ok), float(d), int(ns)))
    _check_consistency(s)
    return s


def _check_consistency(s: SozoikumState) -> None:
    """Reject notations whose parts contradict each other (raises ValueError)."""
    n = s.num_players
    for name in ("gems", "oneshots", "played", "fists", "ann", "spent", "taken", "attempts", "collapses"):
        if len(getattr(s, name)) != n:
            raise ValueError(f"{name} needs {n} entries")
    if any(p != "-" and p not in CARDS for p in s.played):
        raise ValueError("unknown card in played")
    if any(set(o) - set("TDV") for o in s.oneshots):
        raise ValueError("one-shot cards are T, D, V")
    ids = s.back + s.fire + [i for r in s.reserve for i in r]
    if sorted(ids) != list(range(len(s.stones))) or len(s.stones) + s.fresh > s.options.bag_stones or s.fresh < 0:
        raise ValueError("every drawn stone must be in exactly one place (bag, fire or a reserve)")
    if any(not 0 <= x < SEED_BOUND for x in s.stones):
        raise ValueError("stone seed out of range")
    if min(s.gems) < 0 or s.mine < 0:
        raise ValueError("negative gems")
    seats = set(range(n))
    if not 0 <= s.start < n or not set(s.camp) <= seats or s.round < 1:
        raise ValueError("bad seat or round")
    cp = s.current_player()
    if cp >= n or (cp >= 0 and s.phase in ("decide", "place") and cp not in seats):
        raise ValueError("bad seat to move")
    if s.phase == "effect" and not s.effects:
        raise ValueError("effect phase without effects")
    if s.phase == "announce" and not 0 <= s.idx < len(s.camp):
        raise ValueError("announcement index out of range")
    if s.phase == "challenge" and not s.chal:
        raise ValueError("challenge phase without challengers")
    if s.phase == "pick" and (not s.pickers or not s.fire):
        raise ValueError("pick phase without pickers")
    if s.phase == "reply" and (s.offer is None or len(s.holders) != 1):
        raise ValueError("reply phase without an offer")
    if s.phase in ("decide", "place", "noise") and not 0 <= s.builder < n:
        raise ValueError("building phase without a builder")
    if s.phase == "auction" and s.act not in seats:
        raise ValueError("auction without a bidder to act")
    if s.phase == "hidden" and not s.bidders:
        raise ValueError("hidden bid without bidders")
