"""What every ``stonelab`` command that runs games shares: its study options, declared once, and
its interrupt handling.

A command that plays a study (``run``, ``sensitivity``, ``tournament``, and any new one) takes the
options ``--games`` (where it has one), ``--seed``, ``--backend``, ``--workers``, ``--address``,
``--out``, ``--force``, ``--report/--no-report`` and ``--json`` by declaring one parameter of type
:class:`StudyOptions` under :func:`study_command`, and plays its games inside
:func:`study_interrupts`::

    from sim.cli_study import StudyOptions, check_replaced_folders, study_command, study_interrupts

    @app.command()  # stonelab's app in sim/cli.py, or a typer app that sim/cli.py mounts
    @study_command(games="games per candidate (overrides the file)", json="print the result as JSON")
    def tune(scenario: Path = typer.Argument(..., help="scenario TOML file"),
             study: StudyOptions = StudyOptions()) -> None:
        study.check()                                   # --backend, --address: exit 2 when wrong
        sc = study.apply(load_scenario(scenario, reg), reg)
        check_replaced_folders(Path(sc.out), study.report)
        with study_interrupts():                        # Ctrl-C: 130, SIGTERM: 143, one message
            info = run_study(sc, reg, force=study.force, address=study.address, progress=True)
        ...                                             # then study.json_out, write_report(...)

This module imports nothing of the command line (``sim.cli``), so a command defined elsewhere
imports it without a cycle; the runner and the scenario loader are imported when first used, so
``stonelab --help`` stays quick.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, TypeVar

import typer

from sim.core.errors import InputError, ReplayError, allowed
from sim.core.interrupts import EXIT_CTRL_C, exit_code_of, sigterm_as_interrupt
from sim.core.progress import announce
from sim.core.store import check_run_folder
from sim.games import REGISTRY
from sim.replay.replays_3d import games_with_3d_replays, replays_3d_of

if TYPE_CHECKING:  # annotations only: loading them is the commands' business
    from sim.core.registry import Registry
    from sim.core.scenario import Scenario

__all__ = ["EXIT_CTRL_C", "EXIT_SIGHUP", "EXIT_SIGTERM", "RESUME_MESSAGE", "STUDY_PARAMETER", "StudyOptions",
           "check_replaced_folders", "study_command", "study_interrupts", "write_report"]

#: What a stopped study says on stderr (Ctrl-C or SIGTERM), whichever command ran it.
RESUME_MESSAGE = "interrupted: finished games are stored; run the same command again to resume"

#: Exit code of a study stopped by Ctrl-C (SIGINT, :data:`~sim.core.interrupts.EXIT_CTRL_C`),
#: SIGTERM or SIGHUP: 128 + the signal, the shell's convention for a process ended by a signal.
EXIT_SIGTERM = 143
EXIT_SIGHUP = 129


@dataclass(frozen=True)
class StudyOptions:
    """The command-line options of a command that runs a study, as one value.

    Each is None (or its default) when not given, so the scenario file's value stands.

    Attributes:
        games: games per point (``--games``; None for a command without the option).
        seed: root seed (``--seed``).
        backend: ``serial``, ``process`` or ``dask`` (``--backend``); checked by :meth:`check`.
        workers: worker processes, 0 for one per core (``--workers``).
        address: a running Dask scheduler (``--address``; implies ``--backend dask``).
        out: the run folder (``--out``).
        force: start the folder afresh (``--force``; :func:`sim.core.runner.run_study`).
        report: write the HTML report at the end (``--report/--no-report``).
        json_out: print the result as JSON (``--json``).
        strict: refuse games played with another maths path or code than this process
            (``--strict``; :func:`sim.core.runner.run_study`).
    """

    games: Optional[int] = None
    seed: Optional[int] = None
    backend: Optional[str] = None
    workers: Optional[int] = None
    address: Optional[str] = None
    out: Optional[Path] = None
    force: bool = False
    report: bool = True
    json_out: bool = False
    strict: bool = False

    def check(self) -> None:
        """Refuse options that are wrong whatever the scenario says, before it is read.

        Raises:
            InputError: ``--backend`` is not one of the backends, ``--address`` is given with
                another backend than ``dask``, or ``--workers`` with ``--address`` (the message
                names the option).
        """
        # start-up: the scenario loader adds 28 ms to every command's start-up (CPU, python -X importtime)
        from sim.core.scenario import BACKENDS

        if self.backend is not None and self.backend not in BACKENDS:
            raise InputError(f"got {self.backend!r}; allowed: {allowed(BACKENDS)}", key="--backend")
        if self.address and self.backend not in (None, "dask"):
            raise InputError("--address needs --backend dask", key="--address")
        if self.address and self.workers is not None:
            raise InputError("--workers counts local worker processes; a cluster's workers are the ones started "
                             "with 'dask worker' at the scheduler, and its size is read from the scheduler: drop "
                             "--workers", key="--workers")

    def apply(self, scenario: Scenario, registry: Registry, *, default_out: str | None = None) -> Scenario:
        """``scenario`` with these options in place of the file's values, re-validated.

        Args:
            scenario: the scenario as loaded (and turned into the command's study).
            registry: the games, for validating the result.
            default_out: the run folder when neither ``--out`` nor the file names one (None: the
                scenario's own default, ``runs/<game>/<name>``).

        Raises:
            InputError: an option's value is not allowed for this scenario (blamed on the option,
                e.g. ``--workers`` for more workers than :func:`sim.core.runner.check_workers`
                allows).
        """
        # start-up: the runner adds 49 ms to every command's start-up (CPU, python -X importtime)
        from sim.core.runner import check_workers

        out = str(self.out) if self.out else (default_out if "out" not in scenario.raw else None)
        sc = scenario.with_overrides(registry, games=self.games, seed=self.seed,
                                     backend=self.backend or ("dask" if self.address else None),
                                     workers=self.workers, out=out)
        if self.workers is not None and sc.backend != "serial" and not self.address:
            check_workers(self.workers, key="--workers")  # blame the option, not the file it overrides
        return sc


# --- declaring the options once ------------------------------------------------------------------
_F = TypeVar("_F", bound=Callable[..., Any])

#: The parameter a study command declares to receive its :class:`StudyOptions`.
STUDY_PARAMETER = "study"


def _declared(games: str | None, seed: str, out: str, force: str, json: str) -> list[inspect.Parameter]:
    """The typer parameters of :class:`StudyOptions`, in the order the help page lists them."""
    def opt(name: str, annotation: Any, info: Any) -> inspect.Parameter:
        return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=annotation)

    params = [opt("games", Optional[int], typer.Option(None, "--games", min=1, help=games))] if games else []
    return params + [
        opt("seed", Optional[int], typer.Option(None, "--seed", min=0, help=seed)),
        opt("backend", Optional[str], typer.Option(None, "--backend", help="serial | process | dask")),
        opt("workers", Optional[int], typer.Option(None, "--workers", min=0,
                                                   help="worker processes (0: one per core; at most 4 per core)")),
        opt("address", Optional[str], typer.Option(None, "--address", help="address of a running Dask scheduler")),
        opt("out", Optional[Path], typer.Option(None, "--out", help=out)),
        opt("force", bool, typer.Option(False, "--force", help=force)),
        opt("report", bool, typer.Option(True, "--report/--no-report", help="write the HTML report at the end")),
        opt("json_out", bool, typer.Option(False, "--json", help=json)),
        opt("strict", bool, typer.Option(False, "--strict", help="refuse games played with another maths path or "
                                         "code than this process's (a Dask worker set up otherwise); "
                                         "see reproducibility.md in docs/")),
    ]


def study_command(
    *,
    games: str | None = "games per sweep point (overrides the file)",
    seed: str = "root seed (overrides the file)",
    out: str = "run folder (default runs/<game>/<scenario name>)",
    force: str = "replace a run folder made by another scenario",
    json: str = "print the result as JSON",
) -> Callable[[_F], _F]:
    """Give a typer command the study options: its parameter ``study: StudyOptions`` becomes the
    options ``--games`` ... ``--json`` on the command line, and the command receives them as one
    :class:`StudyOptions`.

    Put it below ``@app.command()``. The arguments are the help texts that differ between commands
    (``games=None``: the command has no ``--games``); the options' names, types and limits are
    declared here only.

    Raises:
        TypeError: the command has no parameter ``study``, or one of its own parameters has the
            name of a study option (a mistake in the code, found when the module is imported).
    """
    def decorate(fn: _F) -> _F:
        sig = inspect.signature(fn)
        if STUDY_PARAMETER not in sig.parameters:
            raise TypeError(f"{fn.__qualname__}: a study command declares a parameter "
                            f"'{STUDY_PARAMETER}: StudyOptions'")
        declared = _declared(games, seed, out, force, json)
        names = {p.name for p in declared}
        clash = names & set(sig.parameters)
        if clash:
            raise TypeError(f"{fn.__qualname__}: parameters {sorted(clash)} are study options; drop them")
        params: list[inspect.Parameter] = []
        for p in sig.parameters.values():
            if p.name == STUDY_PARAMETER:
                params += declared  # the options stand where the command put its `study`
            else:
                params.append(p.replace(kind=inspect.Parameter.KEYWORD_ONLY))
        hints = typing.get_type_hints(fn)  # evaluated: `from __future__ import annotations` keeps strings

        @functools.wraps(fn)
        def command(**kwargs: Any) -> Any:
            given = {k: kwargs.pop(k) for k in names}
            return fn(**kwargs, study=StudyOptions(**given))

        # typer reads the command's parameters from its signature (inspect prefers __signature__
        # to the wrapped function's) and its type hints
        command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        command.__annotations__ = {**{k: v for k, v in hints.items() if k != STUDY_PARAMETER},
                                   **{p.name: p.annotation for p in declared}}
        return command  # type: ignore[return-value]

    return decorate


# --- the interrupt handler -----------------------------------------------------------------------
@contextlib.contextmanager
def study_interrupts(message: str = RESUME_MESSAGE) -> Iterator[None]:
    """Within the block, Ctrl-C, SIGTERM and SIGHUP stop the study the same way: the finished games
    stay stored, ``message`` (:data:`RESUME_MESSAGE` unless the command stores more than games, as
    ``tune`` does) goes to stderr and the command ends with exit code 130 (Ctrl-C), 143 (SIGTERM,
    e.g. ``kill PID``) or 129 (SIGHUP: the terminal it ran in was closed).

    Raises:
        typer.Exit: on either signal, with that exit code.
    """
    try:
        with sigterm_as_interrupt():
            yield
    except KeyboardInterrupt as e:
        with contextlib.suppress(OSError):  # SIGHUP: the terminal may be gone (EIO)
            typer.echo(message, err=True)
        raise typer.Exit(exit_code_of(e)) from None


# --- the folders a study writes at its end -------------------------------------------------------
def check_replaced_folders(out: Path, report: bool) -> None:
    """Before any game is played: the folders a run replaces at its end (``report/``, the replay
    viewer) hold nothing it did not write, so the run cannot fail, or delete files, after its work.

    Raises:
        InputError: see :func:`sim.core.store.check_run_folder` and
            :func:`analysis.report.check_report_folder`.
    """
    check_run_folder(out)  # a folder of other files first: that message says more
    if report:
        try:
            # start-up: analysis.report (pandas, scipy, matplotlib) adds 1.3 s to every command's start-up (CPU, python -X importtime)
            from analysis.report import check_report_folder
        except ImportError:
            pass
        else:
            check_report_folder(out)

    # every game with 3-D replays checks the folder its export replaces, whatever the run's game
    # (as before the check moved into the plug-ins: a run refuses the same folders it refused)
    for plugin in games_with_3d_replays(REGISTRY):
        try:
            replays = replays_3d_of(plugin)
        except ReplayError:  # that viewer is not installed: it writes nothing either
            continue
        replays.check_viewer_folder(out)


def write_report(run_dir: Path, label: str) -> str | None:
    """Build the run's HTML report (announced on stderr as ``label: writing the report...``);
    returns its path, or None when the report module is not installed."""
    try:
        # start-up: analysis.report adds 1.3 s to every command's start-up (CPU, python -X importtime)
        from analysis.report import build_report
    except ImportError:
        return None
    announce(label, "writing the report")
    return str(build_report(run_dir))
