"""``stonelab play SCENARIO``: take a seat in a game against the scenario's agents (docs/howto.md).

The game loop runs in its own thread; the person answers through a page served on 127.0.0.1
(:mod:`sim.play.server`) or, with ``--tui``, the terminal (:mod:`sim.play.tui`). The finished game
is stored in the run folder like a study's (:mod:`sim.play.session`). Ctrl-C or SIGTERM leaves the
game: nothing of it is stored (exit 130 or 143); a game that ended is stored whole even if a signal
arrives while it is written.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator, Optional

import typer

from sim.core.console import plain
from sim.core.errors import InputError, ReplayError
from sim.core.human import Abandoned
from sim.core.interrupts import exit_code_of, sigterm_as_interrupt
from sim.core.registry import resolve
from sim.games import REGISTRY

#: seconds the page server stays up after the end, for the page to show the result
LINGER_S = 30.0


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM wait (their handler runs after it): the finished game
    is written whole. Outside the main thread the block does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    old = {s: signal.signal(s, lambda signum, frame: caught.append(signum)) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        for s in caught[:1]:
            signal.raise_signal(s)


def play(
    scenario: Path = typer.Argument(..., help="scenario TOML file ([[seats]]; a seat with agent = \"human\", or --seat)"),
    seat: Optional[int] = typer.Option(None, "--seat", min=0, help="the seat you take (0-based); its agent becomes "
                                       "human, the other seats play as the scenario says"),
    port: int = typer.Option(0, "--port", min=0, max=65535, help="port of the page on 127.0.0.1 (0: a free one)"),
    out: Optional[Path] = typer.Option(None, "--out", help="run folder (default runs/<game>/<scenario name>-play); "
                                       "each game played there is added to it"),
    tui: bool = typer.Option(False, "--tui", help="play in this terminal instead of a browser page"),
    skill: Optional[str] = typer.Option(None, "--skill", help="your seat's skill where the game has one: its "
                                        "seat option skill (a preset's name or a number; `stonelab games` lists what "
                                        "each game takes), at which the noise of your moves is drawn"),
) -> None:
    """Play a game yourself against the scenario's agents, in the browser (the address is printed)
    or in the terminal (--tui). The finished game is stored like a study's game, so report, replay
    and compare read it; Ctrl-C leaves the game and stores nothing."""
    # start-up: the session, with the runner and the scenario loader, adds 55 ms to every command's start-up (CPU,
    # python -X importtime)
    from sim.core.scenario import load_scenario
    from sim.play.session import Session, play_scenario

    sc = play_scenario(load_scenario(scenario, REGISTRY), REGISTRY, seat, out=str(out) if out else None, skill=skill)
    session = Session(sc, REGISTRY)
    try:
        with sigterm_as_interrupt(), session.held():
            if tui:
                done = _play_tui(session)
            else:
                done = _play_web(session, port)
            page = _write_replay_page(done) if REGISTRY.plugin(sc.game).replay is not None else None
    except KeyboardInterrupt as e:
        typer.echo("interrupted: the game was left before its end; nothing of it was stored", err=True)
        raise typer.Exit(exit_code_of(e)) from None
    except Abandoned:
        typer.echo("the input ended before the game did; nothing of it was stored", err=True)
        raise typer.Exit(1) from None
    typer.echo(plain(f"game over: {done.summary}"))
    typer.echo(plain(f"stored as game {done.index} in {done.out} (moves: {done.record}); "
                     f"stonelab report {done.out}"))
    if page is not None:
        typer.echo(plain(f"its replay: {page} (or stonelab replay view {done.out} --game {done.index})"))
    if REGISTRY.plugin(sc.game).replays_3d:
        typer.echo(plain(f"watch it in 3-D: stonelab replay view {done.out} --game {done.index}"))


def _write_replay_page(done: Any) -> Path | None:
    """The stored game's replay page in ``RUN/replays/`` (the report links it), played again from
    its move record; None, with a warning, when it cannot be made (the game is stored all the same)."""
    # start-up: the replay pages (jinja2, the runner) add 46 ms to every command's start-up (CPU, python -X importtime)
    from sim.replay.runs import export_game_page

    try:
        return export_game_page(done.out, done.index, registry=REGISTRY)
    except (ReplayError, OSError) as e:
        typer.echo(plain(f"warning: no replay page written ({e}); the game is stored"), err=True)
        return None


def _play_tui(session: Any) -> Any:
    """The game in this terminal; the stored game's :class:`~sim.play.session.Finished`."""
    # start-up: the terminal table adds 51 ms to every command's start-up (CPU, python -X importtime)
    from sim.play.tui import TerminalTable

    table = TerminalTable(session.view, session.human, session.labels, sys.stdin, sys.stdout)
    table.say(plain(f"{session.game.spec.title}: you are seat {session.human}; "
                    + ", ".join(f"seat {i} {lab}" for i, lab in enumerate(session.labels))))
    state, played = session.play(table, before_step=table.observe)
    table.say("")
    table.say(session.view.view(state.observation(session.human))["text"])
    with _signals_held():
        return session.store(state, played)


def _play_web(session: Any, port: int) -> Any:
    """The game on a page; the stored game's :class:`~sim.play.session.Finished`."""
    # start-up: the page's server, table and board (jinja2) add 65 ms to every command's start-up (CPU,
    # python -X importtime)
    from sim.play.board import SeatBoard
    from sim.play.server import start_server
    from sim.play.table import WebTable

    board = SeatBoard.of(session.registry, session.game, session.config(), session.human)
    pages = getattr(session.view, "turn_pages", None)
    turn_pages = resolve(pages)(session.labels, session.scenario.seed, session.index) if pages else None
    table = WebTable(session.view, session.human, session.labels, session.game.spec.title, session.game.spec.name,
                     board=board, turn_pages=turn_pages)
    try:
        server, _thread = start_server(table, port)
    except OSError as e:
        raise InputError(f"cannot serve the page on 127.0.0.1:{port} ({e.strerror or e}); give another --port "
                         "or 0 for a free one", key="--port") from None
    outcome: dict[str, Any] = {}

    def game() -> None:
        try:
            outcome["played"] = session.play(table, before_step=table.observe)
        except Abandoned:
            outcome["left"] = True
        except BaseException as e:  # noqa: BLE001 - handed to the main thread, which raises it
            outcome["error"] = e

    worker = threading.Thread(target=game, name="stonelab-play-game", daemon=True)
    try:
        worker.start()
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        typer.echo(f"play {plain(session.scenario.name)} (game {session.index}) at {url}  (Ctrl-C leaves the game)")
        sys.stdout.flush()
        while worker.is_alive():
            worker.join(0.2)
        if "error" in outcome:
            table.fail(f"the game stopped: {type(outcome['error']).__name__}: {outcome['error']}")
            raise outcome["error"]
        if "left" in outcome:
            raise Abandoned("the table was closed")
        state, played = outcome["played"]
        with _signals_held():
            done = session.store(state, played)
        where = str(done.out)
        if session.registry.plugin(session.scenario.game).replays_3d:
            where += f" (watch it in 3-D: stonelab replay view {done.out} --game {done.index})"
        table.finish(done.summary, where)
        # the page shows the end once it has fetched it; then the server goes
        end = time.monotonic() + LINGER_S
        while table.served < table.version and time.monotonic() < end:
            time.sleep(0.1)
        time.sleep(0.5)
        return done
    finally:
        table.close()
        if worker.ident is not None:
            worker.join(5)
        server.shutdown()
        server.server_close()
