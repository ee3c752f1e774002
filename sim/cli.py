"""The ``stonelab`` command (typer).

Exit codes: 0 success, 1 the work failed (a full disk: one ``error:`` line), 2 bad input (a
scenario, layout, replay or option: the message names the file, the key and what is allowed;
nothing is written; also a run folder another run holds, a store another program holds locked, a
damaged store, or an ``--out`` folder of other files), 130 a run stopped by Ctrl-C, 143 a run
stopped by SIGTERM, 141 output into a closed pipe (quietly, as other Unix tools).
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import inspect
import json
import shlex
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape as markup_escape
from typer.models import ParameterInfo

from sim.cli_study import StudyOptions, check_replaced_folders, study_command, study_interrupts, write_report
from sim.cli_tables import print_games, print_summary
from sim.core import mathpath
from sim.core.console import console, escape, plain, print_prose, quiet_broken_pipe
from sim.core.errors import MACHINE_ERRNOS, InputError, ReplayError, WorkError, allowed
from sim.core.outputs import check_output_file, default_run_folder, path_text, write_atomically
from sim.core.progress import announce
from sim.core.registry import resolve
from sim.core.store import Store, run_in_progress
from sim.games import REGISTRY
from sim.replay.replays_3d import replays_3d_of

app = typer.Typer(
    name="stonelab",
    help="stonehenge-lab: simulate four stone-themed games, run Monte Carlo studies, read reports, watch replays.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _registry():  # noqa: ANN202
    return REGISTRY


def _print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=_json_default) + "\n")


def _json_default(o: Any) -> Any:
    if hasattr(o, "item"):
        return o.item()
    if isinstance(o, (set, tuple)):
        return list(o)
    return str(o)


# --- games -----------------------------------------------------------------------------------
@app.command()
def games(json_out: bool = typer.Option(False, "--json", help="print JSON")) -> None:
    """List the games, their players, rule options with defaults, and agents."""
    reg = _registry()
    rows = []
    for name in reg.names():
        g = reg.get(name)
        s = g.spec
        rows.append(
            {
                "name": s.name,
                "title": s.title,
                "players": [s.min_players, s.max_players],
                "chance": s.has_chance,
                "hidden_information": s.hidden_information,
                "simultaneous": s.simultaneous,
                "options": [
                    {"name": o.name, "default": o.default, "allowed": o.describe(), "doc": o.doc} for o in s.options
                ],
                "sections": {
                    sec: [{"name": o.name, "default": o.default, "allowed": o.describe(), "doc": o.doc} for o in opts]
                    for sec, opts in s.sections.items()
                },
                "seat_options": [{"name": o.name, "default": o.default, "allowed": o.describe(), "doc": o.doc}
                                 for o in s.seat_options],
                "agents": [
                    {"name": a.name, "doc": a.doc, "options": [{"name": o.name, "default": o.default} for o in a.options]}
                    for a in g.agents.values()
                ],
            }
        )
    if json_out:
        _print_json({"games": rows})
        return
    print_games(rows)


# --- validate --------------------------------------------------------------------------------
@app.command()
def validate(scenario: Path = typer.Argument(..., help="scenario TOML file"),
             import_agents: bool = typer.Option(False, "--import-agents",
                                                help="also import and check outside agents (module:Class): "
                                                     "runs their code, so only for a file you trust")) -> None:
    """Check a scenario file without running it or any code it names (exit 2 and a message if it
    is wrong); docs/security.md."""
    # start-up: the scenario loader adds 28 ms to every command's start-up (CPU, python -X importtime)
    from sim.core.agents import outside_agents
    from sim.core.scenario import load_scenario

    reg = _registry()
    with outside_agents(import_agents):
        sc = load_scenario(scenario, reg)
        pts = sc.points(reg)
    named = [s.agent for s in sc.seats] + [str(e.get("agent")) for e in (sc.tournament.entrants if sc.tournament else ())]
    outside = sorted({a for a in named if ":" in a})
    if sc.tournament is not None:
        t = sc.tournament
        typer.echo(plain(f"{scenario}: ok - {sc.game} tournament of {len(t.labels)} entrants ({', '.join(t.labels)}) "
                         f"in {t.players}-player games: {len(pts)} seatings x {sc.games} games, seed {sc.seed}, "
                         f"backend {sc.backend}, out {sc.out}"))
    else:
        typer.echo(plain(
            f"{scenario}: ok - {sc.game}, {sc.num_players} seats ({', '.join(s.label() for s in sc.seats)}), "
            f"{sc.games} games x {len(pts)} sweep point(s), seed {sc.seed}, backend {sc.backend}, out {sc.out}"
            + (f"; the seats rotate through {len(sc.seat_orders)} seat orders" if len(sc.seat_orders) > 1 else "")
        ))
    if outside and not import_agents:
        typer.echo(f"note: outside agent(s) {plain(', '.join(outside))} not imported (that would run their code): "
                   "their names are well-formed, their parameters unchecked; --import-agents checks them")


# --- run -------------------------------------------------------------------------------------
@app.command()
@study_command(force="start the folder afresh: deletes another scenario's stored games; a damaged store is "
                     "moved aside, not deleted; a folder of other files (no run) is refused even so",
               json="print the summary as JSON")
def run(
    scenario: Path = typer.Argument(..., help="scenario TOML file"),
    study: StudyOptions = StudyOptions(),
) -> None:
    """Run a study: play the games, store each as it finishes, print a summary, write the report.

    A run killed midway resumes when the same command is given again. Ctrl-C or SIGTERM stops it
    (exit 130 or 143), keeping the finished games; one run writes to a folder at a time.
    """
    # start-up: analysis (pandas, scipy) adds 340 ms and the runner 49 ms to every command's start-up (CPU, python -X importtime)
    from analysis.summary import summarize
    from sim.core.runner import run_study
    from sim.core.scenario import load_scenario

    reg = _registry()
    study.check()
    sc = study.apply(load_scenario(scenario, reg), reg)
    check_replaced_folders(Path(sc.out), study.report)
    with study_interrupts():
        info = run_study(sc, reg, force=study.force, address=study.address, progress=True, strict=study.strict)
    with Store.open(info.out) as store:
        summary = summarize(store, wall_s=info.wall_s)
    summary["played"] = info.played
    summary["resumed_skipped"] = info.skipped
    replays = _export_replays(info.out, sc.name)
    if replays is not None:
        summary["replays"] = [str(f) for f in replays.files]
        summary["replay_viewer"] = str(replays.viewer) if replays.viewer else None
    if study.report:
        summary["report"] = write_report(info.out, sc.name)
    if study.json_out:
        _print_json(summary)
    else:
        print_summary(summary)


# --- sensitivity -------------------------------------------------------------------------------
@app.command()
@study_command(games=None, seed="root seed: sample points and games", out="run folder (default: runs/GAME/ then NAME-sensitivity, GAME and NAME the scenario's)",
               force="replace a run folder made by another scenario or plan", json="print the indices as JSON")
def sensitivity(
    scenario: Path = typer.Argument(..., help="scenario TOML file (its [sensitivity] section, or the game's default inputs)"),
    method: Optional[str] = typer.Option(None, "--method", help="morris (quick screening) | sobol (thorough)"),
    trajectories: Optional[int] = typer.Option(None, "--trajectories", min=2, help="Morris trajectories"),
    samples: Optional[int] = typer.Option(None, "--samples", min=2, help="Sobol' base samples (a power of 2)"),
    games_per_point: Optional[int] = typer.Option(None, "--games-per-point", min=1, help="games per sample point"),
    study: StudyOptions = StudyOptions(),
) -> None:
    """Global sensitivity analysis (SALib): how much each uncertain input moves the headline outputs.

    Plays every sample point through the runner (any backend; a killed study resumes when the same
    command is given again), then writes RUN/sensitivity.json and the report's "What the conclusions
    depend on" section.
    """
    # start-up: analysis.sensitivity (SALib, pandas) adds 690 ms to every command's start-up (CPU, python -X importtime)
    from analysis.load import load_run
    from analysis.sensitivity import analyse, sentence, to_json
    from sim.core.runner import run_study
    from sim.core.scenario import load_scenario
    from sim.core.sensitivity import METHODS

    reg = _registry()
    study.check()
    if method is not None and method not in METHODS:
        raise InputError(f"got {method!r}; allowed: {allowed(METHODS)}", key="--method")
    sc = load_scenario(scenario, reg)
    default_out = None if "sensitivity" in sc.raw else default_run_folder(sc.game, sc.name, "-sensitivity")
    sc = sc.with_plan(reg, method=method, trajectories=trajectories, samples=samples, games_per_point=games_per_point)
    sc = study.apply(sc, reg, default_out=default_out)
    check_replaced_folders(Path(sc.out), study.report)
    with study_interrupts():
        info = run_study(sc, reg, force=study.force, address=study.address, progress=True, strict=study.strict)
    announce(sc.name, "computing the sensitivity indices")
    plan, results = analyse(load_run(info.out))
    data = to_json(plan, results)
    data.update({"out": str(info.out), "games": info.total, "played": info.played,
                 "resumed_skipped": info.skipped, "wall_s": info.wall_s})

    text = json.dumps(data, indent=2) + "\n"  # whole or not at all (a full disk leaves the old file)
    write_atomically(info.out / "sensitivity.json", lambda tmp: tmp.write_text(text, encoding="utf-8"))
    if study.report:
        data["report"] = write_report(info.out, sc.name)
    if study.json_out:
        _print_json(data)
        return
    con = console()
    # sentences wrap at the width (80 when piped) between words, never inside "0.5 s" or a path
    print_prose(con, f"{plan.method}: {len(plan.inputs)} inputs, {plan.n_points()} points, {info.total} games "
                     f"(played now {info.played}, already stored {info.skipped}), wall {info.wall_s:.1f} s")
    for r in results:
        print_prose(con, sentence(r), first="- ", indent="  ")
    parts = [f"indices: {info.out}/sensitivity.json"] + ([f"report: {data['report']}"] if data.get("report") else [])
    for line in ["   ".join(parts)] if len("   ".join(parts)) <= con.width else parts:
        con.print(escape(line), highlight=False, soft_wrap=True)


def _export_replays(run_dir: Path, label: str):  # noqa: ANN202 - RunReplays | RunPages | None
    """The first games' replay pages of a turn-based game (``sim.replay.runs``), or the first game's
    3-D replay and its static viewer, by the game's plug-in (``replays_3d``; announced on stderr as
    ``label: writing the replays of games 0, 1, 2...``: each game is played again from its seed)."""
    # start-up: the replay pages (jinja2) add 81 ms to every command's start-up (CPU, python -X importtime)
    from sim.replay.runs import export_run_pages, has_turn_replays
    from sim.replay.source import run_game_name

    if has_turn_replays(run_dir):
        return export_run_pages(run_dir, announce=lambda games: announce(
            label, f"writing the replay{'s' if len(games) > 1 else ''} of game{'s' if len(games) > 1 else ''} "
            + ", ".join(map(str, games))))
    plugin = REGISTRY.find(run_game_name(run_dir))
    if plugin is None or plugin.replays_3d is None:
        return None
    try:
        replays = replays_3d_of(plugin)
    except ReplayError:  # the viewer is not installed: the run stands without its replay
        return None
    if replays.has_replays(run_dir):
        announce(label, "recording the replay of game 0")
    return replays.export_run_replays(run_dir)


# --- tournament ------------------------------------------------------------------------------
@app.command()
@study_command(games="games per seating (overrides the file)",
               out="run folder (default: runs/GAME/ then NAME, or NAME-tournament for a scenario without a [tournament] table)",
               json="print the ratings as JSON")
def tournament(
    scenario: Path = typer.Argument(..., help="scenario TOML file ([tournament] table, or its seats as the entrants)"),
    study: StudyOptions = StudyOptions(),
) -> None:
    """Round-robin of agents: every pairing in every seat order, then Bradley-Terry ratings.

    The entrants come from the scenario's [tournament] table (docs/scenarios.md), or else its
    seats. Resumes like run: the same command again plays only the games not stored yet.
    """
    # start-up: analysis.tournament (pandas, scipy) adds 930 ms to every command's start-up (CPU, python -X importtime)
    from analysis import tournament as tournament_analysis
    from sim.core.runner import run_study
    from sim.core.scenario import load_scenario

    reg = _registry()
    study.check()
    sc = study.apply(load_scenario(scenario, reg).as_tournament(reg), reg)
    check_replaced_folders(Path(sc.out), study.report)
    with study_interrupts():
        info = run_study(sc, reg, force=study.force, address=study.address, progress=True, strict=study.strict)
    summary = tournament_analysis.summary(info.out)
    summary.update(scenario=sc.name, game=sc.game, out=str(info.out), played=info.played,
                   resumed_skipped=info.skipped, wall_s=info.wall_s)
    if study.report:
        summary["report"] = write_report(info.out, sc.name)
    if study.json_out:
        _print_json(summary)
        return
    tournament_analysis.print_summary(summary)
    typer.echo(f"{sc.game}, {len(sc.points(reg))} seatings x {sc.games} games; played now: {info.played} (already "
               f"stored: {info.skipped}); wall: {info.wall_s:.1f} s")
    parts = [f"results: {info.out}/results.sqlite"] + ([f"report: {summary['report']}"] if summary.get("report") else [])
    # one line when it fits 80 columns, else one path a line (each stays whole, to copy)
    for line in ["   ".join(parts)] if len("   ".join(parts)) <= 80 else parts:
        typer.echo(plain(line))


# --- export ----------------------------------------------------------------------------------
@app.command()
def export(
    run_dir: Path = typer.Argument(..., metavar="RUN", help="run folder (or its results.sqlite)"),
    fmt: Optional[str] = typer.Option(None, "--format", help="csv | parquet (default: from --out's ending, else csv)"),
    table: str = typer.Option("games", "--table", help="'games' (one wide row per game), 'metrics' (the catalogue: every metric with its interval, docs/compare.md) or any store table"),
    out: Optional[Path] = typer.Option(None, "--out", help="output file ending in .csv or .parquet (default RUN/export/<table>.<format>)"),
    force: bool = typer.Option(False, "--force", help="replace an earlier export at the default path"),
) -> None:
    """Write a run's results as CSV or Parquet for other tools."""
    # start-up: analysis.load (pandas) adds 335 ms to every command's start-up (CPU, python -X importtime)
    from analysis.load import EXPORT_FORMATS, export_table

    if fmt is None:
        ending = out.suffix.lower().lstrip(".") if out is not None else ""
        fmt = ending if ending in EXPORT_FORMATS else "csv"
    if fmt not in EXPORT_FORMATS:
        raise InputError(f"got {fmt!r}; allowed: {allowed(EXPORT_FORMATS)}", key="--format")
    _warn_if_running(run_dir, "the export holds only the games stored so far")
    path = export_table(run_dir, table, fmt, out, force=force)
    typer.echo(plain(path))


# --- bench -----------------------------------------------------------------------------------
@app.command()
def bench(
    game_names: Optional[list[str]] = typer.Argument(None, metavar="[GAME]...", help="games to measure (default: all)"),
    quick: bool = typer.Option(False, "--quick", help="fewer repetitions (a smoke test, noisier figures)"),
    json_out: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Measure performance: random-playout speed of each game and each game's own figures."""
    # start-up: the benchmarks load every game's bench module, 10 ms and more (CPU, python -X importtime)
    from analysis.bench import run_benchmarks

    reg = _registry()
    names = game_names or reg.names()
    for n in names:
        reg.get(n)  # unknown names are bad input (exit 2)
    results = run_benchmarks(names, quick=quick, progress=not json_out)
    if json_out:
        _print_json({"results": results})
        return
    # start-up: rich.table adds 7 ms to every command's start-up (CPU, python -X importtime)
    from rich.table import Table

    t = Table(title="stonelab bench (one core; medians)", title_justify="left")
    for c in ("game", "metric", "value", "unit"):
        t.add_column(c, justify="right" if c == "value" else "left")
    for r in results:
        v = r["value"]
        t.add_row(r["game"], r["metric"], f"{v:,.3f}" if abs(v) < 100 else f"{v:,.0f}", r["unit"])
    console().print(t)


# --- report ----------------------------------------------------------------------------------
@app.command()
def report(run_dir: Path = typer.Argument(..., metavar="RUN", help="run folder")) -> None:
    """Rebuild the plots and the HTML report of a run from its store."""
    try:
        # start-up: analysis.report (pandas, scipy, matplotlib) adds 1.3 s to every command's start-up (CPU, python -X importtime)
        from analysis.report import build_report
    except ImportError:
        typer.echo("the report module is not installed in this version", err=True)
        raise typer.Exit(1) from None
    _warn_if_running(run_dir, "this report shows only the games stored so far (the run writes its own report "
                              "when it ends)")
    typer.echo(plain(build_report(run_dir)))


def _warn_if_running(run: Path, what: str) -> None:
    """A line on stderr when a run is writing to the run folder ``run`` (or its store) now: what is
    read is the games stored so far (``what`` says what that means here)."""
    pid = run_in_progress(run.parent if run.is_file() else run)
    if pid is not None:
        typer.echo(f"warning: a run (pid {pid}) is writing to {plain(path_text(run))} now; {what}", err=True)


# --- compare ---------------------------------------------------------------------------------
@app.command()
def compare(
    run_a: Path = typer.Argument(..., metavar="RUN_A", help="baseline run folder (or its results.sqlite)"),
    run_b: Path = typer.Argument(..., metavar="RUN_B", help="run folder compared with it (differences are B - A)"),
    html_out: Optional[Path] = typer.Option(None, "--html", help="also write a self-contained HTML page here"),
    json_out: bool = typer.Option(False, "--json", help="print the comparison as JSON"),
) -> None:
    """Compare two studies of the same game: each headline metric side by side, B - A with its
    95 % interval and a test, Holm-corrected across metrics (docs/compare.md)."""
    # start-up: analysis.compare (pandas, scipy) adds 285 ms to every command's start-up (CPU, python -X importtime)
    from analysis.compare import compare_runs, print_table, to_json, write_html

    if html_out is not None:
        check_output_file(html_out, "--html", (".html", ".htm"))  # before minutes of work, not after
    for run in (run_a, run_b):
        _warn_if_running(run, "the comparison uses only the games stored so far")
    comp = compare_runs(run_a, run_b)
    written = write_html(comp, html_out) if html_out is not None else None
    if json_out:
        obj = to_json(comp)
        obj["html"] = str(written) if written else None
        _print_json(obj)
    else:
        print_table(comp, written)


# --- tune: the design search (its own module: sim/cli_tune.py) -----------------------------------
from sim.cli_tune import tune as _tune_command  # noqa: E402 - mounted here, beside the other commands

app.command(name="tune")(_tune_command)


# --- command groups the games bring (their plug-ins' ``commands``), then the replay group ------------
def _mount() -> None:
    """Mount each registered game's sub-apps (a ``typer.Typer`` as a group, a function as one
    command), then the ``replay`` group (``sim.replay.cli``). A plug-in that cannot be loaded is left out with
    a warning on stderr, so one broken installed game does not take the whole tool down."""
    reg = _registry()
    mounts: list[tuple[str, str]] = []
    for game in reg.names():
        try:
            mounts += list(reg.plugin(game).commands.items())
        except InputError as e:
            sys.stderr.write(f"stonelab: warning: {e}\n")
    for name, ref in mounts:
        try:
            obj = resolve(ref)
        except (ImportError, AttributeError, ValueError) as e:
            sys.stderr.write(f"stonelab: warning: command {name!r} ({ref}) left out: {type(e).__name__}: {e}\n")
            continue
        if isinstance(obj, typer.Typer):
            app.add_typer(obj, name=name)
        else:
            app.command(name=name)(obj)
    replay = importlib.import_module("sim.replay.cli")  # every game's replays; the 3-D ones through it
    app.add_typer(replay.app, name="replay")


_mount()

from sim.play.cli import play as _play  # noqa: E402 - a command of its own module, mounted with the others

app.command(name="play")(_play)


def _help_as_written(text: str) -> str:
    """A docstring or help string as typer's rich help should show it: rich markup escaped (typer
    parses it, so ``[sensitivity]`` vanished from a help page) and each paragraph one line, as in
    click's plain help (typer kept a docstring's line breaks after its first paragraph, which at
    80 columns broke lines mid-sentence); ``\\b`` paragraphs keep their lines, as in click."""
    paras = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(markup_escape(p if p.startswith("\b") else " ".join(p.split("\n"))) for p in paras)


def _plain_help(group: typer.Typer) -> None:
    """Apply :func:`_help_as_written` to every command, group and parameter help of ``group``,
    mounted plugins' commands included (typer reads these when it builds each help page)."""
    if isinstance(group.info.help, str):
        group.info.help = _help_as_written(group.info.help)
    for ci in group.registered_commands:
        doc = ci.help if isinstance(ci.help, str) else (ci.callback.__doc__ if ci.callback else None)
        if doc:
            ci.help = _help_as_written(doc)
        for p in inspect.signature(ci.callback).parameters.values() if ci.callback else ():
            if isinstance(p.default, ParameterInfo) and isinstance(p.default.help, str):
                p.default.help = _help_as_written(p.default.help)
    for gi in group.registered_groups:
        if isinstance(gi.help, str):
            gi.help = _help_as_written(gi.help)
        if gi.typer_instance is not None:
            _plain_help(gi.typer_instance)


_plain_help(app)


def main(argv: Optional[list[str]] = None) -> int:
    """Entry point of the ``stonelab`` console script; returns the exit code.

    Every user error ends the same way: one ``error:`` paragraph on stderr and exit code 2. That
    covers :class:`InputError` from any command (a bad scenario, layout, replay or option) and the
    usage errors typer finds itself (a missing argument, ``--aim north``), which typer would
    otherwise print in a box. Help pages keep typer's rich formatting. A failure of the machine (a
    full disk: :class:`WorkError` or such an ``OSError``) is one ``error:`` line and exit 1; output
    into a closed pipe ends quietly (exit 141).

    Called with ``argv`` None (the command line: the console script, ``python -m sim.cli``), it
    first makes the process take the pinned maths code path (:func:`sim.core.mathpath.pin`, which
    may re-exec it) so that a seeded study stores the same bits on any x86-64 CPU; called with a
    list (tests, other programs) it leaves the process as it is.
    """
    if argv is None:
        try:
            mathpath.pin()
        except ValueError as e:
            sys.stderr.write(f"error: {e}\n")
            return 2
    for stream in (sys.stdout, sys.stderr):
        # a path with a byte that is not UTF-8 (Python holds it as a lone surrogate) is printed as
        # the bytes it has, as other Unix tools do, instead of failing with UnicodeEncodeError
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="surrogateescape")  # type: ignore[union-attr]
    try:
        rc = app(args=argv, prog_name="stonelab", standalone_mode=False)
        sys.stdout.flush()  # here, not at exit: a closed pipe is then caught below
    except BrokenPipeError:
        return quiet_broken_pipe()
    except SystemExit as e:
        # typer (click) turns a closed pipe into a silent exit 1; keep the cause, end quietly
        if isinstance(e.__context__, OSError) and e.__context__.errno == errno.EPIPE:
            return quiet_broken_pipe()
        raise
    except InputError as e:
        # a file name's non-UTF-8 byte shown as \xff; a value from a file may hold escape sequences
        sys.stderr.write(f"error: {plain(path_text(str(e)), keep_lines=True)}\n")
        return 2
    except WorkError as e:
        # start-up: the Dask front end adds 5 ms to every command's start-up (CPU, python -X importtime)
        from sim.core.cluster import ClusterError

        resume = ""
        if isinstance(e, ClusterError):  # the cluster, not the study: once it is mended, the same command resumes
            resume = "; to resume: stonelab " + shlex.join(sys.argv[1:] if argv is None else argv)
        sys.stderr.write(f"error: {plain(path_text(str(e)))}{plain(path_text(resume))}\n")
        return 1
    except OSError as e:
        if e.errno not in MACHINE_ERRNOS:
            raise
        # the machine, not the input or the code: a full disk or an I/O error while writing
        where = f"{e.filename}: " if e.filename else ""
        sys.stderr.write(f"error: {where}{e.strerror or e}; free some space or check the disk, then give the "
                         "same command again\n")
        return 1
    except typer.Abort:
        sys.stderr.write("aborted\n")
        return 130
    except typer.Exit as e:
        return e.exit_code
    except Exception as e:
        # typer vendors click, so its usage errors are duck-typed: ClickException has these two
        if hasattr(e, "format_message") and hasattr(e, "exit_code"):
            msg = e.format_message()
            if msg:  # empty: no arguments at all, and typer has printed the help already
                ctx = getattr(e, "ctx", None)
                hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
                sys.stderr.write(f"error: {msg}{hint}\n")
            return int(e.exit_code)
        raise
    return rc if isinstance(rc, int) else 0


if __name__ == "__main__":
    sys.exit(main())
