"""``stonelab sozoikum ...``: Sozoikum tools for designers.

``stonelab sozoikum house --stones 19,16,17,18,15 --seed 1 --png house.png`` builds one house in
the pymunk simulation and draws it (released poses left, settled poses right, stones coloured by
role, displacement arrows; a stone that fell (beyond the tolerance, tilted past the fall tilt, or a
top stone / the roof on the ground) is hatched) so a designer can see why a house fell. The text
lists each stone's displacement and tilt, which fell and why, and whether the house came to rest.

``--stones`` are **shape seeds** (the seed a stone gets when it is drawn from the bag: the
``sozoikum_builds.stones`` column of a run lists them as ``A1.A2.B1.B2.roof``; dots or commas both
work), in role order wall A bottom, wall A top, wall B bottom, wall B top, roof. With ``--best``
any number of five or more seeds may be given and the builder agent's simulated choice picks the
assignment. ``--rule key=value`` sets rule options (e.g. ``--rule wall_gap=3``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import numpy as np
import typer

from sim.core.console import plain
from sim.core.errors import InputError, ScenarioError
from sim.core.outputs import check_output_file
from sim.sozoikum.options import OPTIONS, SozoikumOptions

if TYPE_CHECKING:
    from sim.sozoikum.options import SozoikumOptions

app = typer.Typer(help="Sozoikum tools: draw a house build.", no_args_is_help=True)


@app.callback()
def _group() -> None:
    """Sozoikum tools for designers."""


def parse_stones(text: str) -> list[int]:
    """Shape seeds from ``"12,7,33,5,9"`` or ``"12.7.33.5.9"``.

    Raises:
        InputError: not a list of integers in [0, 2**32).
    """
    parts = [p for p in text.replace(".", ",").replace(" ", "").split(",") if p]
    try:
        seeds = [int(p) for p in parts]
    except ValueError:
        raise InputError(f"got {text!r}; allowed: shape seeds separated by commas, e.g. 19,16,17,18,15", key="--stones") from None
    if any(not 0 <= s < 2**32 for s in seeds):
        raise InputError(f"got {text!r}; shape seeds are integers from 0 to 2**32 - 1", key="--stones")
    return seeds


_BOOLS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}
DRAWING_SUFFIXES = (".png", ".svg", ".pdf")


def parse_rules(items: list[str]) -> SozoikumOptions:
    """Rule options from ``key=value`` strings, validated like a scenario's ``[rules]``.

    Raises:
        InputError: malformed item, unknown key or bad value.
    """
    raw: dict[str, Any] = {}
    types = {o.name: o.type for o in OPTIONS}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise InputError(f"got {item!r}; allowed: key=value", key="--rule")
        typ = types.get(key)
        if typ is bool:
            if value.lower() not in _BOOLS:
                raise InputError(f"got {item!r}; {key} takes true or false (also 1/0, yes/no)", key="--rule")
            raw[key] = _BOOLS[value.lower()]
            continue
        try:
            if typ is int:
                raw[key] = int(value)
            elif typ is float:
                raw[key] = float(value)
            elif typ is list:
                raw[key] = value.split("+")
            else:
                raw[key] = value
        except ValueError:
            raise InputError(f"got {value!r} for {key}", key="--rule") from None
    try:
        return SozoikumOptions.from_rules(raw)
    except ScenarioError as e:
        raise InputError(f"{(e.key or '').removeprefix('rules.')}: {e.message}", key="--rule") from None


@app.command()
def house(
    stones: str = typer.Option(..., "--stones", help="shape seeds A1,A2,B1,B2,roof (or 5+ seeds with --best)"),
    seed: int = typer.Option(1, "--seed", min=0, max=2**31 - 1, help="placement noise seed"),
    skill: float = typer.Option(0.7, "--skill", min=0.0, max=1.0, help="builder's placement skill"),
    png: Optional[Path] = typer.Option(None, "--png", help="write the drawing here (.png, .svg, .pdf)"),
    best: bool = typer.Option(False, "--best", help="let the builder agent choose the assignment"),
    rule: list[str] = typer.Option([], "--rule", help="rule option key=value (repeatable)"),
    hold: float = typer.Option(0.0, "--hold", min=0.0, max=600.0, help="simulate this many seconds more after settling"),
    json_out: bool = typer.Option(False, "--json", help="print the result as JSON"),
) -> None:
    """Build one house in the 2-D simulation, print the verdict, optionally draw it."""
    # start-up: the rules and the house add 14 ms to every command's start-up (the game's commands are mounted for --help; CPU, python -X importtime)
    from sim.sozoikum.physics import ROLES, build_from_seeds
    from sim.sozoikum.rules import SozoikumState

    seeds = parse_stones(stones)
    rules = parse_rules(rule)
    if png is not None:
        check_output_file(png, "--png", DRAWING_SUFFIXES)
    if rules.size_problem():
        raise InputError("stone_size_min must not exceed stone_size_max", key="--rule")
    if best:
        if len(seeds) < 5:
            raise InputError(f"--best needs at least 5 seeds, got {len(seeds)}", key="--stones")
        # start-up: the agents add 22 ms to every command's start-up (CPU, python -X importtime)
        from sim.sozoikum.agents import simulate_plan

        state = SozoikumState.new(2, rules, [skill, skill])
        for x in seeds:
            state.stones.append(x)
            state.reserve[0].append(len(state.stones) - 1)
        plan = simulate_plan(state, 0, np.random.default_rng(seed), candidates=6, sims=3)
        seeds = [state.stones[i] for i in plan]
    elif len(seeds) != 5:
        raise InputError(f"need exactly 5 seeds (A1,A2,B1,B2,roof), got {len(seeds)}; or use --best", key="--stones")

    verdict = build_from_seeds(seeds, skill, seed, rules, hold_time=hold)  # exactly as in a game
    summary = {
        "stones": dict(zip(ROLES, seeds)),
        "skill": skill,
        "noise_seed": seed,
        "stood": verdict.stood,
        "reason": verdict.reason,
        "displacement_cm": dict(zip(ROLES, (round(d, 4) for d in verdict.displacement))),
        "tilt_deg": dict(zip(ROLES, (round(a, 2) for a in verdict.tilt))),
        "on_ground": list(verdict.grounded),
        "tolerance_cm": rules.house_tolerance,
        "fall_tilt_deg": rules.house_fall_tilt,
        "at_rest": verdict.at_rest,
        "sim_time_s": round(verdict.sim_time, 3),
    }
    if png is not None:
        # start-up: the drawing and the house model add 10 ms to every command's start-up (CPU, python -X importtime)
        from sim.sozoikum.draw import draw_house

        # draw the whole fall (the game stops simulating when a stone reaches the ground)
        full = build_from_seeds(seeds, skill, seed, rules, hold_time=hold, stop_on_fall=False)
        title = f"stones {','.join(map(str, seeds))}  skill {skill:g}  seed {seed}"
        try:
            draw_house(full, png, title=title, tolerance=rules.house_tolerance, fall_tilt=rules.house_fall_tilt, verdict=verdict)
        except OSError as e:
            raise InputError(f"cannot write {png}: {e}", key="--png") from None
        summary["png"] = str(png)
    if json_out:
        typer.echo(json.dumps(summary, indent=2))
        return
    typer.echo(f"house {' '.join(f'{r}={s}' for r, s in zip(ROLES, seeds))}  skill {skill:g}  noise seed {seed}")
    for r, d, a in zip(ROLES, verdict.displacement, verdict.tilt):
        why = [w for w, bad in (("moved too far", d > rules.house_tolerance),
                                ("tilted too far", a > rules.house_fall_tilt),
                                ("on the ground", r in verdict.grounded)) if bad]
        flag = f"  FELL ({', '.join(why)})" if why else ""
        typer.echo(f"  {r:5s} moved {d:6.3f} cm  tilted {a:5.1f} deg{flag}")
    rest = "at rest" if verdict.at_rest else "not at rest"
    typer.echo(("STANDS" if verdict.stood else f"COLLAPSED ({verdict.reason})") + f" after {verdict.sim_time:.2f} s simulated ({rest})")
    if png is not None:
        typer.echo(plain(f"drawing: {png}"))
