"""Agents shared by every game, and agent construction from a scenario seat.

A game lists its agents in ``Game.agents`` (name -> :class:`~sim.core.game.AgentSpec`); the
generic ones here (``random``, ``mcts``, ``ismcts``) can be listed by any game.

An *outside agent* is named by its import path instead, ``agent = "mypkg.mymodule:MyAgent"``
(:func:`outside_agent`): a class with an ``act(observation, legal_actions)`` method, or an
``AgentSpec`` object. It is imported and checked when the scenario loads (docs/game-interface.md),
unless the caller only looks at a file or a run: inside ``outside_agents(False)`` (``stonelab
validate`` and ``stonelab replay`` without ``--import-agents``) an import path is checked for its
shape only and never imported, since importing runs the module's code (docs/security.md).
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from sim.core.errors import ScenarioError, allowed
from sim.core.game import Action, AgentSpec, Game, GameConfig, require_legal_actions
from sim.core.human import HUMAN
from sim.core.mcts import SearchAgent
from sim.core.options import Option


class RandomAgent:
    """Picks a legal action uniformly at random with its own generator."""

    def __init__(self, *, game: Game, seat: int, rng: np.random.Generator, config: GameConfig) -> None:
        self.seat = seat
        self.rng = rng

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        """A uniformly random legal action.

        Raises:
            ValueError: no legal action was offered.
        """
        require_legal_actions(self.seat, legal_actions)
        return legal_actions[int(self.rng.integers(len(legal_actions)))]


RANDOM = AgentSpec("random", RandomAgent, (), "uniformly random legal action")


def _search_agent(determinize_each: bool):  # noqa: ANN202 - returns a factory
    def factory(*, game: Game, seat: int, rng: np.random.Generator, config: GameConfig, **params: Any):  # noqa: ANN202
        return SearchAgent(game=game, seat=seat, rng=rng, config=config, determinize_each=determinize_each, **params)

    return factory


SEARCH_OPTIONS: tuple[Option, ...] = (
    Option("iterations", int, 200, "search iterations per decision", min=1, max=1_000_000),
    Option("exploration", float, 1.4, "UCB exploration constant c", min=0.0, max=100.0),
    Option(
        "rollout_limit", int, 2000,
        "actions per random rollout; a cut rollout is won by the running leader (provisional scores)",
        min=1, max=1_000_000,
    ),
    Option("rollout_agent", str, "random", "the game's agent that plays rollouts (e.g. greedy); random by default"),
)

def check_rollout_agent(game: Game, params: Mapping[str, Any]) -> tuple[str, str] | None:
    """The rollout agent must be one of the game's non-search agents."""
    name = params.get("rollout_agent", "random")
    choices = [a for a in game.agents if a not in ("mcts", "ismcts")]
    if name not in choices:
        return "rollout_agent", f"got {name!r}; allowed: {allowed(choices)}"
    return None


MCTS = AgentSpec(
    "mcts",
    _search_agent(determinize_each=False),
    SEARCH_OPTIONS,
    "UCT Monte Carlo tree search with random rollouts (determinized over hidden information)",
    check=check_rollout_agent,
)
ISMCTS = AgentSpec(
    "ismcts",
    _search_agent(determinize_each=True),
    SEARCH_OPTIONS,
    "information-set MCTS: a new determinization of hidden cards each iteration",
    check=check_rollout_agent,
)


#: what a class's ``__init__`` may ask for by keyword; the runner gives each of them
_CONTEXT = ("game", "seat", "rng", "config")
#: outside agents resolved in this process, by import path (a worker resolves each once)
_OUTSIDE: dict[str, AgentSpec] = {}


#: whether an outside agent is imported when named (False: a look at a file or a run; see the module docstring)
_IMPORT_OUTSIDE: ContextVar[bool] = ContextVar("import_outside_agents", default=True)
#: the flag that lets a look at a file or a run import the outside agents it names
IMPORT_FLAG = "--import-agents"


@contextmanager
def outside_agents(imported: bool) -> Iterator[None]:
    """Within the block, outside agents are imported when named (``imported``) or not at all:
    :func:`check_outside_ref` checks their path's shape, and building one raises."""
    token = _IMPORT_OUTSIDE.set(imported)
    try:
        yield
    finally:
        _IMPORT_OUTSIDE.reset(token)


def outside_agents_imported() -> bool:
    """Whether outside agents are imported here (see :func:`outside_agents`)."""
    return _IMPORT_OUTSIDE.get()


def check_outside_ref(ref: str, *, source: str | None = None, key: str = "agent") -> None:
    """Check the shape of an outside agent's import path (``package.module:ClassName``) without
    importing anything.

    Raises:
        ScenarioError: a malformed path.
    """
    module_name, _, attr = ref.partition(":")
    if not module_name or not attr or not all(p.isidentifier() for p in (*module_name.split("."), *attr.split("."))):
        raise ScenarioError(f"got {ref!r}; an outside agent is 'package.module:ClassName'", source=source, key=key)


class _OutsideProblem(Exception):
    """Why an import path does not name a usable agent (turned into a ScenarioError by the caller)."""


def outside_agent(ref: str, *, source: str | None = None, key: str = "agent") -> AgentSpec:
    """The agent named by the import path ``ref`` (``"package.module:Attribute"``).

    ``Attribute`` (dotted for a nested name) is either an :class:`AgentSpec` or a class with an
    ``act(observation, legal_actions)`` method. The class is built with the keywords of
    ``game, seat, rng, config`` that its ``__init__`` names (all of them if it takes ``**kwargs``)
    plus the seat's parameters, which it declares as a class attribute ``OPTIONS`` (a tuple of
    :class:`~sim.core.options.Option`; none when absent). The folder ``stonelab`` runs in is put on
    ``sys.path`` (after what is there), so a module beside the scenario's working folder imports
    without installing it; process workers inherit the path.

    Raises:
        ScenarioError: a malformed path, a module that cannot be imported (or raises on import), a
            missing attribute, or an object that is not an agent class or ``AgentSpec``; one line
            naming ``source``, ``key`` and the path. Inside ``outside_agents(False)``: always (a
            well-formed path is not imported).
    """
    if ref in _OUTSIDE:
        return _OUTSIDE[ref]
    check_outside_ref(ref, source=source, key=key)
    if not outside_agents_imported():
        raise ScenarioError(f"agent {ref!r} is code from outside stonelab, named by this file; it is not imported "
                            f"(importing runs it) unless you pass {IMPORT_FLAG}, if you trust the file",
                            source=source, key=key)
    try:
        spec = _resolve_outside(ref)
    except _OutsideProblem as e:
        raise ScenarioError(str(e), source=source, key=key) from None
    _OUTSIDE[ref] = spec
    return spec


def _resolve_outside(ref: str) -> AgentSpec:
    module_name, _, attr = ref.partition(":")  # well-formed: check_outside_ref
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        # a designer's module in the working folder: the console script's sys.path lacks it
        sys.path.append(cwd)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        raise _OutsideProblem(f"agent {ref!r}: module {module_name!r} not found ({e}); it must be importable "
                              "from the working folder or PYTHONPATH") from None
    except Exception as e:  # noqa: BLE001 - any failure inside the user's module is bad input here
        raise _OutsideProblem(f"agent {ref!r}: importing module {module_name!r} failed: {type(e).__name__}: {e}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise _OutsideProblem(f"agent {ref!r}: module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if isinstance(obj, AgentSpec):
        return AgentSpec(ref, obj.factory, obj.options, obj.doc, check=obj.check)
    if not inspect.isclass(obj):
        raise _OutsideProblem(f"agent {ref!r}: {type(obj).__name__} {attr!r} is not an agent; give a class with an "
                              "act(observation, legal_actions) method or an AgentSpec")
    act = getattr(obj, "act", None)
    if not callable(act):
        raise _OutsideProblem(f"agent {ref!r}: class {attr!r} has no act(observation, legal_actions) method")
    try:
        # unbound: self plus the two arguments the runner passes
        inspect.signature(act).bind(None, None, None)
    except TypeError:
        raise _OutsideProblem(f"agent {ref!r}: {attr}.act must take (observation, legal_actions)") from None
    except ValueError:
        pass  # a builtin without a signature: trust it
    options = tuple(getattr(obj, "OPTIONS", ()) or ())
    if not all(isinstance(o, Option) for o in options):
        raise _OutsideProblem(f"agent {ref!r}: {attr}.OPTIONS must be a tuple of sim.core.options.Option")
    return AgentSpec(ref, _class_factory(obj, ref, attr, options), options,
                     (inspect.getdoc(obj) or "outside agent").splitlines()[0])


def _class_factory(cls: type, ref: str, attr: str, options: tuple[Option, ...]) -> Any:
    """A factory passing the context keywords ``cls.__init__`` names (checked now, not per game)."""
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    takes_all = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    wanted = tuple(k for k in _CONTEXT if takes_all or k in params)
    given = set(_CONTEXT) | {o.name for o in options}
    for name, p in params.items():
        if (p.default is inspect.Parameter.empty and p.kind not in (inspect.Parameter.VAR_POSITIONAL,
                                                                   inspect.Parameter.VAR_KEYWORD)
                and name not in given):
            raise _OutsideProblem(f"agent {ref!r}: {attr}() needs argument {name!r}, which stonelab does not give; "
                                  f"it may take {allowed(_CONTEXT)} and the seat keys it declares in OPTIONS")

    def factory(*, game: Game, seat: int, rng: np.random.Generator, config: GameConfig, **kw: Any) -> Any:
        context = {"game": game, "seat": seat, "rng": rng, "config": config}
        return cls(**{k: context[k] for k in wanted}, **kw)

    return factory


def agent_spec(game: Game, name: str, *, source: str | None = None, key: str = "agent") -> AgentSpec:
    """The agent ``name`` of ``game``, the shared ``human`` (a person, :mod:`sim.core.human`), or
    the outside agent ``name`` names by import path (``"package.module:Class"``, :func:`outside_agent`).

    Raises:
        ScenarioError: the game has no such agent (the message lists the game's agents), or the
            import path does not name a usable agent.
    """
    if ":" in name:
        return outside_agent(name, source=source, key=key)
    if name == HUMAN.name and name not in game.agents:
        return HUMAN  # every game: a person at the table (stonelab play)
    if name not in game.agents:
        raise ScenarioError(
            f"unknown agent {name!r} for game {game.spec.name!r}; allowed: {allowed([*game.agents, HUMAN.name])}, "
            "or an outside agent by import path 'package.module:ClassName'",
            source=source,
            key=key,
        )
    return game.agents[name]


def make_agent(
    game: Game,
    name: str,
    params: Mapping[str, Any],
    *,
    seat: int,
    rng: np.random.Generator,
    config: GameConfig,
) -> Any:
    """Build the agent ``name`` for ``seat`` with validated ``params``.

    Raises:
        ScenarioError: unknown agent or bad parameter.
    """
    return agent_spec(game, name).build(game, params, seat=seat, rng=rng, config=config)
