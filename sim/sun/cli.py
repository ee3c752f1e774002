"""Command line of *Stonehenge and the Sun*: ``stonelab sun pass``, ``stonelab sun calibrate``,
``stonelab sun show`` (a picture of a layout), ``stonelab sun edit`` (the layout editor in the
browser) and ``stonelab stability``.

``app`` is a typer sub-application (mounted as ``stonelab sun``); :func:`stability` is a plain
function with typer defaults, mounted by the main CLI as ``stonelab stability``. Bad input (a
layout file, an option value) prints the message to stderr and exits with code 2.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any, Optional

import numpy as np
import typer

from sim.core.errors import InputError, ScenarioError
from sim.core.files import check_input_file
from sim.core.outputs import check_output_dir, check_output_file
from sim.core.console import console, escape, plain
from sim.sun.players.thrower import DEFAULT_SKILL
from sim.sun.players.thrower import skill as skill_level
from sim.web.guard import local_url

#: How a lost stone's place is named after its shape: a lintel or a stacked stone says so.
ROLE_WORDS = {"gate": " lintel", "stack": " stacked"}
SKILL_HELP = "thrower skill: perfect, expert, steady, casual, child, or a preset .toml"

# Every `stonelab` command loads this module (the plug-in mounts `stonelab sun`), so the commands
# import the table, the calibration and the viewer when they run: those load pybullet (about 0.2 s,
# python -X importtime), scipy and viser, which `stonelab --help` and every other game's command
# would pay otherwise.

app = typer.Typer(help="Stonehenge and the Sun: simulate passes of the ball over a layout.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


LAYOUTS = "scenarios/sun/layouts/*.toml"


def _fail(exc: InputError) -> None:
    typer.echo(f"error: {plain(exc, keep_lines=True)}", err=True)
    raise typer.Exit(2)


def _skill(level: Any, name: str) -> Any:
    """The thrower of a --skill name (the message names the option, not the scenario key)."""
    try:
        return level(name)
    except InputError as e:
        raise InputError(e.message, key="--skill") from None


def _dump(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2) + "\n")


@app.command("pass")
def pass_cmd(
    layout: Path = typer.Argument(..., help="layout TOML file (scenarios/sun/layouts/...)"),
    aim: float = typer.Option(..., "--aim", help="aim azimuth in degrees, counter-clockwise from +x (-360 to 360)"),
    release: Optional[float] = typer.Option(None, "--release",
                                            help="release distance outside the base edge (m); default the hand span"),
    skill: str = typer.Option(DEFAULT_SKILL, "--skill", help=SKILL_HELP),
    seed: int = typer.Option(0, "--seed", min=0, help="seed of the thrower's noise"),
    preset: Optional[str] = typer.Option(None, "--preset", help="fast or reference (default: the layout's)"),
    record: Optional[Path] = typer.Option(None, "--record", help="write per-frame poses (JSON) to this file"),
    record_hz: float = typer.Option(60.0, "--record-hz", help="frames per simulated second when recording"),
    json_out: bool = typer.Option(False, "--json", help="print the result as JSON"),
) -> None:
    """Simulate one pass of the ball over LAYOUT and report the penalties."""
    # start-up: the layout reader and the PyBullet table add 35 ms (pybullet; CPU, python -X importtime)
    from sim.sun.table.layout import load_layout
    from sim.sun.table.recording import PoseRecorder
    from sim.sun.table.sun_table import SunTable

    try:
        if not (math.isfinite(aim) and -360.0 <= aim <= 360.0):
            # 1e308 is finite, but no azimuth: at that size a float holds no fraction of a turn
            raise InputError(f"got {aim:g}; allowed: a number of degrees from -360 to 360", key="--aim")
        aim = aim % 360.0  # one azimuth, one spelling: -90 is 270 (the printed and JSON aim)
        aim = 0.0 if aim >= 360.0 else aim  # -1e-20 % 360 rounds to 360.0
        if record is not None:
            check_output_file(record, "--record")
            if not (math.isfinite(record_hz) and record_hz > 0):
                raise InputError(f"must be a positive number of frames per second, not {record_hz}", key="--record-hz")
        check_input_file(layout, "layout file", ScenarioError, LAYOUTS)  # a FIFO would block the read forever
        lay = load_layout(layout, preset)
        thrower = _skill(skill_level, skill)
        rng = np.random.default_rng(seed)
        noise = thrower.draw_pass(rng)
        rec = PoseRecorder(record_hz) if record is not None else None
        with SunTable.from_layout(lay) as table:
            res = table.pass_ball(math.radians(aim), release, noise, record=rec)
    except InputError as exc:
        _fail(exc)
        return
    if rec is not None and record is not None:
        rec.meta["layout"] = str(layout)
        try:
            rec.save(str(record))
        except OSError as e:
            Path(record).unlink(missing_ok=True)
            _fail(InputError(f"cannot write the recording: {e.strerror or e}", source=record, key="--record"))
    out = res.as_dict()
    out.update({"layout": str(layout), "skill": thrower.name, "seed": seed, "record": str(record) if record else None})
    if json_out:
        _dump(out)
        return
    con = console()
    con.print(f"[bold]{escape(layout)}[/] aim {aim:.1f} deg, release {res.release_m:.3f} m, skill {escape(thrower.name)}, "
              f"seed {seed}, preset {res.preset}")
    if res.penalties:
        for pen in res.penalties:
            con.print(f"  penalty: stone {pen.stone} ({pen.shape}) {pen.cause}")
    else:
        con.print("  clean pass: no stone lost")
    con.print(f"  through aimed gap: {res.through_aim_gap}   reached far side: {res.reached_far_side}   "
              f"invalid: {res.invalid}{' (re-run at reference)' if res.rerun_at_reference else ''}")
    con.print(f"  {res.steps} steps, {res.sim_time_s:.2f} s simulated, {res.wall_s * 1000:.1f} ms wall")
    if record:
        con.print(f"  poses recorded to {escape(record)}")


def stability(
    layout: Path = typer.Argument(..., help="layout TOML file"),
    trials: int = typer.Option(10, "--trials", help="noisy passes per aim in the aim sweep (1 to 10,000)"),
    skill: str = typer.Option(DEFAULT_SKILL, "--skill", help=SKILL_HELP),
    seed: int = typer.Option(0, "--seed", min=0, help="root seed of the aim sweep"),
    json_out: bool = typer.Option(False, "--json", help="print the results as JSON"),
    out: Optional[Path] = typer.Option(None, "--out", help="folder for the polar plot (PNG)"),
    step: float = typer.Option(10.0, "--step", help="degrees between aims in the sweep"),
    preset: Optional[str] = typer.Option(None, "--preset", help="fast or reference (default: the layout's)"),
) -> None:
    """Settle, bump and aim-sweep tests of one Stonehenge-and-the-Sun layout."""
    # start-up: the layout reader and the stability tests add 35 ms (pybullet; CPU, python -X importtime)
    from sim.sun.table.layout import load_layout
    from sim.sun.table.stability import MAX_TRIALS, run_stability

    try:
        if not 1 <= trials <= MAX_TRIALS:
            raise InputError(f"got {trials}; allowed: 1 to {MAX_TRIALS:,} passes per aim", key="--trials")
        if not (0.5 <= step <= 180.0):
            raise InputError(f"must be from 0.5 to 180 degrees, not {step}", key="--step")
        if out is not None:
            check_output_dir(out, "--out")
        check_input_file(layout, "layout file", ScenarioError, LAYOUTS)  # a FIFO would block the read forever
        lay = load_layout(layout, preset)
        thrower = _skill(skill_level, skill)
    except InputError as exc:
        _fail(exc)
        return
    try:
        res = run_stability(lay, trials, thrower, seed, out, step_deg=step, progress=True)
    except OSError as e:
        _fail(InputError(f"cannot write the plot: {e.strerror or e}", source=out, key="--out"))
        return
    if json_out:
        _dump(res)
        return
    # start-up: rich.table adds 7 ms to every command's start-up (CPU, python -X importtime)
    from rich.table import Table

    con = console()
    con.print(f"[bold]{escape(layout)}[/] preset {res['preset']}, skill {escape(thrower.name)}, seed {seed}")
    s = res["settle"]
    con.print(f"settle: largest drift over {s['duration_s']:.0f} s untouched: {s['max_drift_mm']:.3f} mm "
              f"(stone {s['worst_stone']})")
    b = res["bump"]
    if b["min_kick_mps"] is None:
        con.print("bump: no stone falls even at the largest kick tried")
    else:
        lost = ", ".join(f"{x['stone']} {x['cause']}" for x in b["first_lost"])
        con.print(f"bump: smallest kick of the base that loses a stone: {b['min_kick_mps'] * 1000:.0f} mm/s "
                  f"towards {b['direction_deg']:.0f} deg ({lost})")
    # headers are plain text: rich read the "[penalties]" of "E[penalties]" as markup and printed "E"
    tab = Table(title=f"aim sweep: {trials} passes per aim, skill {thrower.name}", title_justify="left")
    for col in ("aim (deg)", "stones lost per pass", "clean passes", "through the gap", "invalid"):
        tab.add_column(col, justify="right")
    for r in res["sweep"]["aims"]:
        tab.add_row(f"{r['aim_deg']:.0f}", f"{r['expected_penalties']:.2f}", f"{r['p_clean'] * 100:.0f} %",
                    f"{r['p_through'] * 100:.0f} %", str(r["invalid"]))
    con.print(tab)
    con.print("aim: release azimuth, counter-clockwise from +x; stones lost per pass: the mean number of "
              "penalties; clean passes: share that lose no stone; through the gap: share through the aimed "
              "gap; invalid: passes the fast preset could not judge, re-run at the reference preset (counted)",
              highlight=False)
    if res["sweep"]["most_lost"]:
        # stone numbers are the table's, as `stonelab sun show` draws them (lintels after the stones)
        con.print("most often lost (share of all passes): " + ", ".join(
            f"stone {m['stone']} ({m['shape']}{ROLE_WORDS.get(m.get('role', ''), '')}, {m['angle_deg']:.0f} deg) "
            f"{m['rate'] * 100:.0f} %" for m in res["sweep"]["most_lost"][:5]), highlight=False)
    if res["plot"]:
        con.print(f"plot: {escape(res['plot'])}")


@app.command("calibrate")
def calibrate_cmd(
    log: Path = typer.Argument(..., help="playtest log CSV (docs/playtest-log.md)"),
    layout: Optional[Path] = typer.Option(None, "--layout",
                                          help="layout TOML whose table, ball, shapes and physics to use "
                                               "(its stones are ignored; the defaults of docs/sun-physics.md)"),
    out: Optional[Path] = typer.Option(None, "--out", help="write the fitted skill preset (TOML) here"),
    fit_mode: str = typer.Option("scale", "--fit",
                                 help="what to fit: scale (the base's aim and push sigmas together), aim, push "
                                      "or aim,push"),
    base: str = typer.Option(DEFAULT_SKILL, "--base",
                             help="skill whose sigmas are kept where the log says nothing (a level or a .toml)"),
    json_out: bool = typer.Option(False, "--json", help="print the result as JSON"),
) -> None:
    """Fit a thrower's sigmas to a playtest LOG by maximum likelihood and report their 95 % intervals."""
    # start-up: the calibration adds 560 ms (scipy, pybullet; CPU, python -X importtime)
    from sim.sun.players.calibrate import fit, write_skill
    from sim.sun.players.playtest_log import read_log
    from sim.sun.table.layout import Layout, load_layout

    try:
        if out is not None:
            check_output_file(out, "--out", (".toml",))
        lay = load_layout(layout) if layout is not None else Layout()
        try:
            base_th = skill_level(base)
        except InputError as err:
            raise InputError(err.message, source=err.source, key="--base") from None
        data = read_log(log, lay.ball.diameter * 1000.0)
        res = fit(data, base_th, fit_mode, lay)
    except InputError as exc:
        _fail(exc)
        return
    if out is not None:
        try:
            write_skill(res, out)
        except OSError as e:
            _fail(InputError(f"cannot write the skill preset: {e.strerror or e}", source=out, key="--out"))
    if json_out:
        d = res.as_dict()
        d["out"] = str(out) if out else None
        _dump(d)
        return
    # start-up: rich.table adds 7 ms to every command's start-up (CPU, python -X importtime)
    from rich.table import Table

    con = console()
    con.print(f"[bold]{escape(log)}[/]: {res.passes} passes, {res.places} placements; fit {res.mode}, "
              f"base {escape(base_th.name)}; {res.physics_passes} physics passes for the outcome tables")
    tab = Table(title="maximum-likelihood estimates, 95 % profile-likelihood intervals")
    for col in ("quantity", "estimate", "95 % interval", "unit"):
        tab.add_column(col)
    for q in res.estimates:
        if q.identifiable:
            ci = f"[{q.low:.4g}, {q.high:.4g}]"
        else:
            ci = f"(kept {q.value:.4g})" if q.low == q.high else f"[{q.low:.4g}, {q.high:.4g}], preset {q.value:.4g}"
        tab.add_row(q.name, q.shown(), ci, q.unit)
    con.print(tab)
    for q in res.estimates:
        if q.note:
            con.print(f"  {q.name}: {escape(q.note)}")
    gof = Table(title="goodness of fit: observed / expected outcomes per width")
    for col in ("width mm", "passes", "clean", "knocked", "pushed off"):
        gof.add_column(col, justify="right")
    for g in res.gof:
        o, x = g["observed"], g["expected"]
        gof.add_row(f"{g['width_mm']:g}", str(g["passes"]),
                    *(f"{o[k]} / {x[k]:.1f}" for k in ("clean", "knocked", "pushed_off")))
    if res.gof:
        con.print(gof)
    if res.gof_p is None:
        con.print(f"Pearson chi-square: too few cells for a test ({res.gof_df} degrees of freedom)")
    else:
        verdict = "the model fits" if res.gof_p >= 0.05 else "the model does NOT fit these counts well"
        con.print(f"Pearson chi-square {res.gof_chi2:.2f} on {res.gof_df} degrees of freedom, p = {res.gof_p:.3f}: "
                  f"{verdict}")
    if res.ratio_p is not None:
        con.print(f"freeing both aim and push: likelihood ratio {res.ratio_lr:.2f}, p = {res.ratio_p:.3f}")
    for w in res.warnings:
        con.print(f"[bold]WARNING[/]: {escape(w)}")
    if out is not None:
        con.print(f"skill preset written to {escape(out)} (name it in a scenario: skill = \"{escape(out)}\")")


@app.command("show")
def show_cmd(
    layout: Path = typer.Argument(..., help="layout TOML file (scenarios/sun/layouts/...)"),
    png: Path = typer.Option(..., "--png", help="write the picture (PNG) here"),
) -> None:
    """Draw LAYOUT from above and in 3-D (no physics, about a second): stones at true size by shape,
    stacks, gates, and every gap marked passable or not with its width."""
    # start-up: the layout reader and the layout picture add 33 ms, matplotlib more when drawing (CPU, python -X importtime)
    from sim.sun.table.layout import load_layout
    from sim.sun.viewer.layout_plot import plot_layout

    try:
        check_output_file(png, "--png", (".png",))
        lay = load_layout(layout)
    except InputError as exc:
        _fail(exc)
        return
    try:
        out = plot_layout(lay, png, layout.stem)
    except OSError as e:
        Path(png).unlink(missing_ok=True)
        _fail(InputError(f"cannot write the picture: {e.strerror or e}", source=png, key="--png"))
        return
    typer.echo(f"layout picture: {out}")


@app.command("edit")
def edit_cmd(
    layout: Optional[Path] = typer.Argument(None, help="layout TOML to open; a new file name starts an empty "
                                                       "layout that Save writes there"),
    host: str = typer.Option("127.0.0.1", "--host",
                             help="address to listen on; anything but 127.0.0.1 opens it to that network"),
    port: int = typer.Option(8080, "--port", help="TCP port (the next free one if taken)"),
    out: Optional[Path] = typer.Option(None, "--out", help="existing folder the page saves into and loads "
                                                          "from (default: the layout's folder, else the "
                                                          "current one); the page names files, not paths"),
) -> None:
    """Edit a layout in the browser (viser): add, stack, gate, move, delete stones, each change checked
    like a layout file; settle, pass and aim-sweep it with the engine's physics; save it as TOML in
    one folder (docs/security.md)."""
    # start-up: the 3-D viewer's server adds 17 ms, viser more when it starts (CPU, python -X importtime)
    from sim.sun.viewer.viser_app import check_host, serve_until_interrupted, start_server

    try:
        if not (1 <= port <= 65535):
            raise InputError(f"port must be 1..65535, not {port}", key="--port")
        check_host(host, port)
        # start-up: the layout editor adds 66 ms (the table, the viewer; CPU, python -X importtime)
        from sim.sun.viewer.editor_app import open_editor, start_editor

        if out is not None and not out.is_dir():
            raise InputError("not an existing folder (the editor creates no folders)", source=out, key="--out")
        ed = open_editor(layout)
        app_ = start_server(lambda: start_editor(ed, host, port, out), host, port, "editor")
    except InputError as exc:
        _fail(exc)
        return
    what = f"{layout}" if layout is not None and layout.exists() else "a new layout"
    serve_until_interrupted(app_, f"layout editor: {local_url(host, app_.port)}  editing {what}; saves in "
                                  f"{app_.files.folder}; Ctrl-C stops")


# Until the main CLI mounts it, ``python -m sim.sun.cli stability ...`` also works.
app.command("stability")(stability)

if __name__ == "__main__":  # pragma: no cover
    app()
