"""``stonelab replay``: view, export, serve, video, info and convert replays.

Every command reads a replay file (docs/replay-format.md) or a table pose recording (JSON, as
written by ``stonelab sun pass --record``), converted on the fly. A bad file raises
``ReplayError`` (an ``InputError``): the ``stonelab`` entry point prints it and exits 2.
"""

from __future__ import annotations

import json
import socket
import sys
import time
from pathlib import Path
from typing import Optional

import typer

from sim.core.console import plain
from sim.core.errors import InputError
from sim.core.outputs import check_output_dir, check_output_file
from sim.sun.viewer.replay import load_any, save_replay
from sim.web.guard import is_loopback, local_url

app = typer.Typer(help="Watch replays: a viser web viewer, a static export, PyBullet's GUI, video.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

VIEWERS = ("viser", "pybullet")


def _load(path: Path, game: int | None = None, point: int = 0, import_agents: bool = False):  # noqa: ANN202
    """The replay in ``path``. A run whose game is re-simulated imports no outside agent its
    stored scenario names unless ``import_agents`` (docs/security.md)."""
    # start-up: the agents' catalogue adds 3 ms (CPU, python -X importtime)
    from sim.core.agents import outside_agents

    if game is not None and game < 0:
        raise InputError(f"game index must be >= 0, not {game}", key="--game")
    if (game is not None or point) and not path.is_dir() and path.suffix != ".sqlite":
        # a replay or recording file holds one game: a silently ignored --game would mislead
        raise InputError("--game and --point choose a game of a run; give the run folder, not a file", source=path,
                         key="--game" if game is not None else "--point")
    with outside_agents(import_agents):
        return load_any(path, game_index=game, point=point)


_GAME_HELP = "run folder only: the game index (default: the first game with kept frames, else 0)"
_POINT_HELP = "run folder only: the sweep point"
_IMPORT_HELP = ("run folder only: import the outside agents (module:Class) its scenario names, to re-simulate "
                "a game with them; runs their code, so only for a run you trust")


@app.command()
def view(file: Path = typer.Argument(..., metavar="FILE", help="replay (.npz), pose recording or game record (.json), or a run folder"),
         game: Optional[int] = typer.Option(None, "--game", help=_GAME_HELP),
         point: int = typer.Option(0, "--point", help=_POINT_HELP),
         import_agents: bool = typer.Option(False, "--import-agents", help=_IMPORT_HELP),
         viewer: str = typer.Option("viser", "--viewer", help="viser (browser) or pybullet (desktop window)"),
         host: str = typer.Option("127.0.0.1", "--host",
                                  help="address to listen on (viser); anything but 127.0.0.1 opens it to that network"),
         port: int = typer.Option(8080, "--port", help="TCP port (viser)"),
         speed: float = typer.Option(1.0, "--speed", help="playback speed (pybullet)"),
         loop: bool = typer.Option(True, "--loop/--once", help="pybullet: start over at the end")) -> None:
    """Open a replay in the viser web viewer (default) or PyBullet's GUI window."""
    if viewer not in VIEWERS:
        raise InputError(f"unknown viewer {viewer!r}; use 'viser' or 'pybullet'", key="--viewer")
    if not (1 <= port <= 65535):
        raise InputError(f"port must be 1..65535, not {port}", key="--port")
    if file.is_dir() or file.suffix == ".sqlite":
        # a run's game without kept frames is re-simulated first: say so, or the wait looks like a hang
        typer.echo(plain(f"loading {'the first game' if game is None else f'game {game}'} of {file} (re-simulated "
                   "from its seed unless the run kept its frames: a few seconds)..."), err=True)
    rp = _load(file, game, point, import_agents)
    if viewer == "pybullet":
        # start-up: the PyBullet window adds 4 ms and loads pybullet (CPU, python -X importtime)
        from sim.sun.viewer.pybullet_gui import play_in_gui

        play_in_gui(rp, speed=speed, loop=loop)
        return
    # start-up: the 3-D viewer's server adds 13 ms, viser more when it starts (CPU, python -X importtime)
    from sim.sun.viewer.viser_app import check_host, serve_until_interrupted, start_server, start_viewer

    check_host(host, port)
    v = start_server(lambda: start_viewer(rp, host=host, port=port), host, port, "viewer")
    serve_until_interrupted(v, f"replay viewer: {local_url(host, v.port)}  ({len(rp.turns)} turns, "
                               f"{rp.duration:.1f} s; Ctrl-C stops)")


@app.command()
def export(file: Path = typer.Argument(..., metavar="FILE", help="replay (.npz), pose recording or game record (.json), or a run folder"),
         game: Optional[int] = typer.Option(None, "--game", help=_GAME_HELP),
         point: int = typer.Option(0, "--point", help=_POINT_HELP),
         import_agents: bool = typer.Option(False, "--import-agents", help=_IMPORT_HELP),
           out: Path = typer.Option(..., "--out", help="folder to write (created; or empty, or an earlier export)"),
           fps: float = typer.Option(30.0, "--fps", help="frames per second of the exported timeline")) -> None:
    """Write a static viewer folder that plays in a browser from any plain HTTP server."""
    if not (0 < fps <= 240):
        raise InputError(f"fps must be in (0, 240], not {fps}", key="--fps")
    # start-up: the 3-D viewer's export adds 13 ms (CPU, python -X importtime)
    from sim.sun.viewer.viser_app import export_static

    check_output_dir(out, "--out")
    _check_export_folder(out)
    rp = _load(file, game, point, import_agents)
    d = export_static(rp, out, fps=fps)
    typer.echo(plain(f"exported to {d}/ (index.html + replay.viser; standalone.html opens without a server)"))
    typer.echo(plain(f"watch it: stonelab replay serve {d}"))


def _check_export_folder(out: Path) -> None:
    """``out`` is new, empty, or an earlier export (which is replaced): an export writes
    index.html and more, and would overwrite a folder's own files of those names.

    Raises:
        InputError: a folder with other files that is not an export (a few named).
    """
    # start-up: the 3-D viewer's export adds 13 ms (CPU, python -X importtime)
    from sim.sun.viewer.viser_app import EXPORT_INDEX, EXPORT_RECORDING

    if not out.is_dir() or ((out / EXPORT_INDEX).is_file() and (out / EXPORT_RECORDING).is_file()):
        return
    others = sorted(p.name for p in out.iterdir())
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        raise InputError(f"the folder holds other files ({shown}) and is not a replay export; an export writes "
                         f"{EXPORT_INDEX} and more there. Give a new or empty folder", source=out, key="--out")


@app.command()
def serve(directory: Path = typer.Argument(..., metavar="DIR", help="a folder written by `replay export`"),
          host: str = typer.Option("127.0.0.1", "--host", help="address to listen on"),
          port: int = typer.Option(8000, "--port", help="TCP port (0: any free port)")) -> None:
    """Serve an exported replay folder over HTTP and print its address."""
    # start-up: the 3-D viewer's server adds 13 ms (CPU, python -X importtime)
    from sim.sun.viewer.viser_app import check_export_dir, serve_dir
    # start-up: the web server (http, ssl) adds 19 ms to every command's start-up (CPU, python -X importtime)
    from sim.web.server import serve_until_stopped

    if not (0 <= port <= 65535):
        raise InputError(f"port must be 0..65535 (0: any free port), not {port}", key="--port")
    check_export_dir(directory)
    if not is_loopback(host):
        typer.echo(f"warning: listening on {host}: anyone on that network can connect", err=True)
    try:
        httpd = serve_dir(directory, host=host, port=port)
    except OSError as e:
        key = "--host" if isinstance(e, socket.gaierror) else "--port"
        raise InputError(f"cannot listen on {host}:{port}: {e}", key=key) from None
    typer.echo(plain(f"serving {directory} at {local_url(host, httpd.server_address[1])}  (Ctrl-C stops)"))
    sys.stdout.flush()
    raise typer.Exit(serve_until_stopped(httpd))


@app.command()
def video(file: Path = typer.Argument(..., metavar="FILE", help="replay (.npz), pose recording or game record (.json), or a run folder"),
         game: Optional[int] = typer.Option(None, "--game", help=_GAME_HELP),
         point: int = typer.Option(0, "--point", help=_POINT_HELP),
         import_agents: bool = typer.Option(False, "--import-agents", help=_IMPORT_HELP),
          out: Path = typer.Option(..., "--out", help="FILE.mp4 or FILE.gif"),
          fps: float = typer.Option(30.0, "--fps", help="frames per second of the video"),
          width: int = typer.Option(640, "--width", help="pixels"),
          height: int = typer.Option(480, "--height", help="pixels"),
          speed: float = typer.Option(1.0, "--speed", help="replay seconds per video second"),
          turn: int = typer.Option(0, "--turn", help="only this turn (1-based); 0: the whole replay")) -> None:
    """Render the replay to MP4 or GIF with PyBullet's software renderer."""
    # start-up: the video renderer adds 12 ms and loads pybullet (CPU, python -X importtime)
    from sim.sun.viewer.video import render_video

    check_output_file(out, "--out")
    rp = _load(file, game, point, import_agents)
    t0 = time.perf_counter()
    n = render_video(rp, out, fps=fps, size=(width, height), speed=speed, turn=turn or None, progress=True)
    typer.echo(plain(f"wrote {out}: {n} frames in {time.perf_counter() - t0:.1f} s"))


@app.command()
def info(file: Path = typer.Argument(..., metavar="FILE", help="replay (.npz), pose recording or game record (.json), or a run folder"),
         game: Optional[int] = typer.Option(None, "--game", help=_GAME_HELP),
         point: int = typer.Option(0, "--point", help=_POINT_HELP),
         import_agents: bool = typer.Option(False, "--import-agents", help=_IMPORT_HELP),
         json_out: bool = typer.Option(False, "--json", help="print JSON")) -> None:
    """Check a replay and list its bodies and turns."""
    rp = _load(file, game, point, import_agents)
    if json_out:
        sys.stdout.write(json.dumps({"frames": rp.n_frames, "duration_s": rp.duration, "bodies": len(rp.bodies),
                                     "turns": [t.as_dict() for t in rp.turns], "meta": rp.meta},
                                    indent=2, default=str) + "\n")
        return
    typer.echo(plain(f"{file}: {rp.n_frames} frames, {rp.duration:.2f} s, {len(rp.bodies)} bodies, {len(rp.turns)} turns"))
    for t in rp.turns:
        typer.echo(plain(f"  {float(rp.times[t.frames[0]]):7.2f} s  {t.title()}"))


@app.command()
def convert(file: Path = typer.Argument(..., metavar="FILE", help="pose recording or game record (.json), a run folder, or a replay"),
            game: Optional[int] = typer.Option(None, "--game", help=_GAME_HELP),
            point: int = typer.Option(0, "--point", help=_POINT_HELP),
            import_agents: bool = typer.Option(False, "--import-agents", help=_IMPORT_HELP),
            out: Path = typer.Option(..., "--out", help="replay file to write (.npz)"),
            fps: float = typer.Option(30.0, "--fps", help="keep at most this many frames per second")) -> None:
    """Convert a table pose recording into a compact replay file."""
    check_output_file(out, "--out")
    rp = _load(file, game, point, import_agents)
    p = save_replay(rp, out, fps=fps)
    typer.echo(plain(f"wrote {p} ({p.stat().st_size / 1024:.0f} KiB)"))
