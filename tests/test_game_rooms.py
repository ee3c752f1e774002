"""The game folders rhyme: the same rooms with the same meanings in every game (docs/game-interface.md).

Each game keeps its rule options in ``options.py`` as one :class:`~sim.core.options.RuleOptions`
whose declaration is the spec's, its actions in ``actions.py``, the state in ``rules.py`` (which
declares the ending enum the spec names), the notation reader in ``notation.py``, the spec and the
binding in ``game.py``, and ``agents.py``, ``plugin.py``, ``bench.py``; a game with physics reaches
it through a named boundary, so importing its rules loads no physics engine.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from sim.core.game import Termination
from sim.core.options import RuleOptions
from sim.games import get_game

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("options", "actions", "rules", "notation", "game", "agents", "plugin", "bench")
GAMES = ("druids", "rocks", "sozoikum", "sun")


@pytest.mark.parametrize("name", GAMES)
def test_every_room_is_there(name: str) -> None:
    folder = ROOT / "sim" / name
    # a room is a module, or a package when it outgrew one file (the Sun's rules and agents)
    missing = [room for room in ROOMS if not ((folder / f"{room}.py").is_file()
                                              or (folder / room / "__init__.py").is_file())]
    assert not missing, f"sim/{name} lacks {missing}"


@pytest.mark.parametrize("name", GAMES)
def test_options_are_one_frozen_object_declared_once(name: str) -> None:
    module = importlib.import_module(f"sim.{name}.options")
    kinds = [v for v in vars(module).values()
             if isinstance(v, type) and issubclass(v, RuleOptions) and v is not RuleOptions]
    assert len(kinds) == 1, f"sim.{name}.options should define one RuleOptions, found {kinds}"
    spec = get_game(name).spec
    assert kinds[0].OPTIONS == spec.options  # the spec declares the very options the object holds
    assert kinds[0].from_rules({}).as_rules() == spec.default_rules()


@pytest.mark.parametrize("name", GAMES)
def test_the_rules_declare_the_endings_the_spec_names(name: str) -> None:
    rules = importlib.import_module(f"sim.{name}.rules")
    ends = get_game(name).spec.terminations
    assert issubclass(ends, Termination) and vars(rules).get(ends.__name__) is ends
    # the Sun names its endings in their own room (sim/sun/endings.py): its position and notation
    # need them too, and the rules import both
    assert ends.__module__ in (rules.__name__, f"sim.{name}.endings")


def test_importing_sozoikum_rules_loads_no_physics_engine() -> None:
    code = "import sys, sim.sozoikum.rules; assert 'pymunk' not in sys.modules, 'pymunk loaded'"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert done.returncode == 0, done.stderr
