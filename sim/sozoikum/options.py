"""Sozoikum: the rule options (scenario table ``[rules]``), :class:`SozoikumOptions`, their
validated, frozen form that the rules, the physics boundary, the agents and the notation read, and
the seat option. No I/O.

``docs/rules-sozoikum.md`` explains each choice.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.core.options import Option, RuleOptions

GATHERING_RULES: tuple[str, ...] = ("auction", "hidden", "bluff")
MAX_PLAYERS = 5


def _check_rules_list(value: list) -> str | None:
    if not value:
        return "at least one gathering rule is needed"
    bad = [v for v in value if v not in GATHERING_RULES]
    if bad:
        return f"unknown gathering rule(s) {bad}; allowed: {', '.join(GATHERING_RULES)}"
    if len(set(value)) != len(value):
        return "a gathering rule is listed twice"
    return None


OPTIONS: tuple[Option, ...] = (
    Option("bag_stones", int, 40, "stones in the bag at the start", min=5, max=500),
    Option("mine_gems", int, 60, "gems in the mine at the start", min=0, max=10_000),
    Option("start_gems", int, 10, "gems each player starts with", min=0, max=1000),
    Option("gather_gems", int, 5, "gems the 'gather gems' card takes from the mine", min=0, max=1000),
    Option("fire_draw", int, 2, "stones the start player puts on the fire each round", min=1, max=10),
    Option(
        "card_play",
        str,
        "choice",
        "'choice': the start player decides each round whether cards are played; 'always'; 'never'",
        choices=("choice", "always", "never"),
    ),
    Option(
        "gathering_rules",
        list,
        list(GATHERING_RULES),
        "gathering rules the start player may choose from (auction, hidden, bluff)",
        item_type=str,
        check=_check_rules_list,
    ),
    Option(
        "beneficiary",
        str,
        "last",
        "who benefits from an odd count of steal/tiger/dumnopterix/veto cards: the player 'last' "
        "(furthest) or 'first' (nearest) from the start player in turn order",
        choices=("last", "first"),
    ),
    Option("coalitions", bool, True, "auction: a player may join the standing bid as a two-player coalition"),
    Option("hidden_rebids", int, 3, "hidden bid: rebids after a tie of more than two before the stones stay", min=0, max=20),
    Option("announce_max", int, 20, "bluff: the highest announcement allowed (gems)", min=1, max=1000),
    Option("max_rounds", int, 60, "rounds before the game ends as a draw", min=1, max=10_000),
    Option("house_tolerance", float, 1.0, "cm a stone's centroid may end from where it was released", min=0.01, max=50.0),
    Option(
        "house_fall_tilt",
        float,
        20.0,
        "degrees a stone may end turned from lying flat on its longest edge (for scale: 3 sd of a "
        "stone's top-face slant is 6.9 deg)",
        min=5.0,
        max=90.0,
    ),
    Option(
        "house_ground_margin",
        float,
        0.1,
        "cm above the ground within which a top stone or the roof touches it (and fell); between "
        "pymunk's resting overlap (0.02) and the lowest bottom stone (0.9 at the default sizes)",
        min=0.02,
        max=0.5,
    ),
    Option("wall_gap", float, 2.0, "cm between the two walls (the door)", min=0.1, max=30.0),
    Option("stone_size_min", float, 3.0, "cm, smallest stone (largest extent)", min=0.5, max=50.0),
    Option("stone_size_max", float, 8.0, "cm, largest stone (largest extent)", min=0.5, max=50.0),
    Option("stone_friction", float, 0.7, "friction coefficient of stone on stone and on the ground", min=0.0, max=3.0),
    Option("placement_noise_cm", float, 1.0, "placement offset sd (cm) at skill 0; scaled by 1 - skill", min=0.0, max=20.0),
    Option("placement_noise_deg", float, 6.0, "placement turn sd (degrees) at skill 0; scaled by 1 - skill", min=0.0, max=90.0),
)

SEAT_OPTIONS: tuple[Option, ...] = (
    Option("skill", float, 0.7, "the builder's placement skill: 1 places exactly, 0 with full noise", min=0.0, max=1.0),
)

#: option name -> option, for the notation codec
OPTION_BY_NAME = {o.name: o for o in OPTIONS}


@dataclass(frozen=True)
class SozoikumOptions(RuleOptions, options=OPTIONS):
    """The validated rule options of a game (build with :meth:`from_rules`; lengths in cm, angles
    in degrees), shared read-only by every state of that game and its observations."""

    bag_stones: int
    mine_gems: int
    start_gems: int
    gather_gems: int
    fire_draw: int
    card_play: str
    gathering_rules: tuple[str, ...]
    beneficiary: str
    coalitions: bool
    hidden_rebids: int
    announce_max: int
    max_rounds: int
    house_tolerance: float
    house_fall_tilt: float
    house_ground_margin: float
    wall_gap: float
    stone_size_min: float
    stone_size_max: float
    stone_friction: float
    placement_noise_cm: float
    placement_noise_deg: float

    def size_problem(self) -> tuple[str, str] | None:
        """``(key, message)`` when the stone size range is empty (one option alone cannot tell),
        else None: the one check the scenario loader and the state's constructor share."""
        if self.stone_size_min > self.stone_size_max:
            return "rules.stone_size_min", f"got {self.stone_size_min}; must not exceed rules.stone_size_max ({self.stone_size_max})"
        return None

