"""``stonelab replay``: watch a replay of any game.

``view`` and ``export`` look at what they are given: a run folder of a game played in turns (its
plug-in names a :class:`~sim.replay.model.ReplayBook`) becomes a turn-by-turn replay page, the game
played again from its seed and checked against the store; anything else (a 3-D replay file, a
pose recording, a run of a game with 3-D replays) goes to the 3-D replays of the game that declares
them (its plug-in's ``replays_3d``, ``sim.replay.replays_3d``), whose other commands (the Sun's
``serve``, ``video``, ``info`` and ``convert``) join this group. Bad input
raises an ``InputError``: the ``stonelab`` entry point prints it and exits 2.
"""

from __future__ import annotations

import sys
import threading
import webbrowser
from pathlib import Path
from typing import Any, Optional

import typer

from sim.core.console import plain
from sim.core.errors import InputError, ReplayError
from sim.core.outputs import check_output_file, write_atomically
from sim.games import REGISTRY
from sim.replay.replays_3d import Replays3D, games_with_3d_replays, replays_3d_of
from sim.web.guard import is_loopback, local_url

app = typer.Typer(help="Watch replays of any game: a board step by step, or the 3-D table of the physics games.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

_FILE_HELP = ("a run folder (any game), or for the 3-D replays a replay (.npz), pose recording or game record "
              "(.json)")
_GAME_HELP = "run folder only: the game index (default: 0; 3-D replays: the first game with kept frames, else 0)"
_POINT_HELP = "run folder only: the sweep point"
_IMPORT_HELP = ("run folder only: import the outside agents (module:Class) its scenario names, to play a game again "
                "with them; runs their code, so only for a run you trust")
_SEAT_HELP = ("turn-based games: keep only this seat's hidden information (its hand...) in the page; default: every "
              "seat's, with a selector")


def _is_run(path: Path) -> bool:
    return path.is_dir() or path.suffix in (".sqlite", ".db")


def _turn_based(path: Path) -> bool:
    """Whether ``path`` is a run of a game with turn-by-turn replays; False for a 3-D replay's
    source (a file, or a run of a game with 3-D replays).

    Raises:
        ReplayError: a run of a game this installation lacks, or one with no replays at all.
    """
    if not _is_run(path):
        return False
    # start-up: the replay sources (jinja2, the runner) add 61 ms to every command's start-up (CPU, python -X importtime)
    from sim.replay.source import run_game_name

    game = run_game_name(path)
    plugin = REGISTRY.find(game)
    if plugin is None:
        raise ReplayError(f"the run is of the game {game!r}, which this installation does not have; registered games: "
                          f"{', '.join(REGISTRY.names())}", source=str(path))
    if plugin.replay is not None:
        return True
    if plugin.replays_3d:
        return False
    raise ReplayError(f"the game {game!r} has no replays (its plug-in names neither a turn-by-turn replay nor "
                      "3-D replays)", source=str(path))


def _replays_3d(file: Path) -> Replays3D:
    """The 3-D replays that read ``file``: those of the run's game for a run, else of the one
    registered game that declares 3-D replays.

    Raises:
        ReplayError: no game declares 3-D replays, or more than one does and ``file`` is no run, or
            the viewer is not installed.
    """
    # start-up: the replay sources (jinja2, the runner) add 61 ms to every command's start-up (CPU, python -X importtime)
    from sim.replay.source import run_game_name

    if _is_run(file):
        return replays_3d_of(REGISTRY.plugin(run_game_name(file)))  # _turn_based checked it declares them
    games = games_with_3d_replays(REGISTRY)
    if len(games) != 1:
        raise ReplayError("no registered game has 3-D replays" if not games else
                          "more than one registered game has 3-D replays: give a run folder", source=str(file))
    return replays_3d_of(games[0])


def _page(file: Path, game: Optional[int], point: int, seat: Optional[int], import_agents: bool) -> tuple[str, dict]:
    # start-up: the replay sources add 61 ms to every command's start-up (CPU, python -X importtime)
    from sim.replay.source import page_for, run_replay

    doc = run_replay(file, 0 if game is None else game, point, seats=None if seat is None else [seat],
                     import_agents=import_agents)
    return page_for(doc), doc


@app.command()
def view(file: Path = typer.Argument(..., metavar="FILE", help=_FILE_HELP),
         game: Optional[int] = typer.Option(None, "--game", help=_GAME_HELP),
         point: int = typer.Option(0, "--point", help=_POINT_HELP),
         import_agents: bool = typer.Option(False, "--import-agents", help=_IMPORT_HELP),
         seat: Optional[int] = typer.Option(None, "--seat", help=_SEAT_HELP),
         viewer: str = typer.Option("viser", "--viewer", help="3-D replays: viser (browser) or pybullet (desktop window)"),
         host: str = typer.Option("127.0.0.1", "--host",
                                  help="address to listen on; anything but 127.0.0.1 opens it to that network"),
         port: int = typer.Option(8080, "--port", help="TCP port (turn-based games: 0 picks a free one)"),
         open_browser: bool = typer.Option(False, "--open", help="turn-based games: also open the page in the browser"),
         speed: float = typer.Option(1.0, "--speed", help="playback speed (pybullet)"),
         loop: bool = typer.Option(True, "--loop/--once", help="pybullet: start over at the end")) -> None:
    """Watch a replay: a turn-based game's board step by step in the browser (served on 127.0.0.1,
    the address printed), or a 3-D replay in the viser viewer or PyBullet's window."""
    if not _turn_based(file):
        if seat is not None:
            raise InputError("--seat is for the games played in turns; a 3-D replay hides nothing", key="--seat")
        _replays_3d(file).view(file, game, point, import_agents, viewer, host, port, speed, loop)
        return
    if not (0 <= port <= 65535):
        raise InputError(f"port must be 0..65535 (0: any free port), not {port}", key="--port")
    typer.echo(plain(f"playing {'game 0' if game is None else f'game {game}'} of {file} again from its seed..."),
               err=True)
    text, doc = _page(file, game, point, seat, import_agents)
    httpd = _page_server(text.encode("utf-8"), host, port)
    url = local_url(host, httpd.server_address[1])
    if not is_loopback(host):
        typer.echo(f"warning: listening on {host}: anyone on that network can connect", err=True)
    typer.echo(plain(f"replay: {url}  ({len(doc['frames']) - 1} steps; Ctrl-C stops)"))
    sys.stdout.flush()
    if open_browser:
        threading.Timer(0.3, webbrowser.open, args=(url,)).start()
    # start-up: the web server (http, ssl) adds 19 ms to every command's start-up (CPU, python -X importtime)
    from sim.web.server import serve_until_stopped

    raise typer.Exit(serve_until_stopped(httpd))


def _page_server(body: bytes, host: str, port: int) -> Any:
    """A :class:`sim.web.server.WebServer` (not started) that answers ``/`` (and ``/index.html``)
    with ``body`` and nothing else, checking every request as every page server does
    (:mod:`sim.web`: ``Host``, ``Origin``, security headers, one neutral refusal).

    Raises:
        InputError: it cannot listen there (key ``--host`` or ``--port``).
    """
    # start-up: the web server (http, ssl) adds 19 ms to every command's start-up (CPU, python -X importtime)
    from sim.web.server import INLINE_ONLY_POLICY, WebHandler, is_unknown_host, make_server

    class Page(WebHandler):
        policy = INLINE_ONLY_POLICY  # the page is self-contained: its own inline code, nothing fetched

        def get(self, path: str) -> None:
            if path not in ("/", "/index.html"):
                self.refuse(404)
                return
            self.send(200, body, "text/html; charset=utf-8")

    try:
        return make_server(Page, host, port)
    except OSError as e:
        key = "--host" if is_unknown_host(e) else "--port"
        raise InputError(f"cannot listen on {host}:{port}: {e}", key=key) from None


@app.command()
def export(file: Path = typer.Argument(..., metavar="FILE", help=_FILE_HELP),
           game: Optional[int] = typer.Option(None, "--game", help=_GAME_HELP),
           point: int = typer.Option(0, "--point", help=_POINT_HELP),
           import_agents: bool = typer.Option(False, "--import-agents", help=_IMPORT_HELP),
           seat: Optional[int] = typer.Option(None, "--seat", help=_SEAT_HELP),
           out: Path = typer.Option(..., "--out", help="turn-based games: the HTML file to write; 3-D replays: a folder "
                                                       "(created; or empty, or an earlier export)"),
           fps: float = typer.Option(30.0, "--fps", help="3-D replays: frames per second of the exported timeline")) -> None:
    """Write a replay to share: one self-contained HTML file that plays offline (turn-based games), or
    a static 3-D viewer folder."""
    if not _turn_based(file):
        if seat is not None:
            raise InputError("--seat is for the games played in turns; a 3-D replay hides nothing", key="--seat")
        _replays_3d(file).export(file, game, point, import_agents, out, fps)
        return

    check_output_file(out, "--out", (".html", ".htm"))
    text, doc = _page(file, game, point, seat, import_agents)
    write_atomically(out, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    typer.echo(plain(f"wrote {out} ({len(doc['frames']) - 1} steps, {len(text) // 1024} KiB; opens in any browser, "
                     "no network needed)"))


def _mount_viewer_commands() -> None:
    """The other commands of each game's 3-D viewer (the Sun's serve, video, info, convert) join this
    group unchanged; a name already taken keeps its first command."""
    taken = {info.name or (info.callback.__name__ if info.callback else "") for info in app.registered_commands}
    for plugin in games_with_3d_replays(REGISTRY):
        try:
            viewer_app = replays_3d_of(plugin).app
        except ReplayError:
            continue
        for info in viewer_app.registered_commands:
            name = info.name or (info.callback.__name__ if info.callback else "")
            if name not in ("view", "export") and name not in taken:
                app.registered_commands.append(info)
                taken.add(name)


_mount_viewer_commands()
