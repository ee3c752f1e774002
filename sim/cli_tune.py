"""``stonelab tune SCENARIO``: search a design toward its targets (the scenario's ``[tune]`` table).

Mounted by :mod:`sim.cli`. The search is :func:`sim.core.tune.search` (Optuna); each trial is a
study through the runner (:func:`sim.core.runner.run_study`, any backend), measured and reported by
:mod:`analysis.tune`. Exit codes as every command: 2 for a bad ``[tune]`` table or option (the key
and what is allowed), 130/143 when stopped (the same command resumes), 1 for a full disk.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Optional

import typer

from sim.cli_study import StudyOptions, study_command, study_interrupts
from sim.core.console import plain
from sim.core.errors import InputError, ScenarioError
from sim.core.outputs import default_run_folder
from sim.core.progress import Progress, announce
from sim.core.store import LOCK_NAME, lock_run_folder
from sim.core.tomlw import to_toml
from sim.games import REGISTRY


def _registry():  # noqa: ANN202
    return REGISTRY


def check_tune_folder(out: Path) -> None:
    """``out`` may hold a search: missing, empty, or a tune folder (``tune.sqlite`` in it).

    Raises:
        InputError: a file, or a folder of other files (nothing a search did not write is replaced).
    """
    # start-up: sim.core.tune adds 25 ms to every command's start-up (CPU, python -X importtime)
    from sim.core.tune import STORAGE_NAME

    if out.exists() and not out.is_dir():
        raise InputError(f"{out} is a file; give a folder", key="--out")
    if out.is_dir() and not (out / STORAGE_NAME).exists():
        others = sorted(p.name for p in out.iterdir() if p.name != LOCK_NAME)
        if others:
            shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
            raise InputError(f"{out} holds other files ({shown}) and no search ({STORAGE_NAME}); give an empty or "
                             "new folder", key="--out")


@study_command(games="games per trial (overrides tune.games)", seed="root seed: the games and the samplers",
               out="tune folder (default runs/<game>/<name>-tune)",
               force="start afresh a folder that holds another search (its trials are deleted)",
               json="print the summary as JSON")
def tune(
    scenario: Path = typer.Argument(..., help="scenario TOML file with a [tune] table (docs/scenarios.md)"),
    trials: Optional[int] = typer.Option(None, "--trials", min=1, help="designs tried (overrides tune.trials)"),
    study: StudyOptions = StudyOptions(),
) -> None:
    """Search rule options, physical sizes and player parameters for the design that meets the
    scenario's targets (its [tune] table): Optuna's samplers and pruning, each trial a small study
    on the same seeds, the best designs re-checked with more games, the winner written as a
    scenario (best.toml) that run and compare read.

    A search killed midway resumes when the same command is given again (its Optuna storage,
    tune.sqlite, and each trial's games are kept in the tune folder).
    """
    # start-up: analysis.tune (pandas, scipy) adds 330 ms, the runner 45 ms, the scenario loader and sim.core.tune
    # 22 ms each to every command's start-up (CPU, python -X importtime)
    from analysis import tune as tune_analysis
    from sim.core.runner import check_workers
    from sim.core.scenario import load_scenario, scenario_from_dict
    from sim.core.tune import SECTION, SUMMARY_NAME

    reg = _registry()
    study.check()
    games_n, seed, backend, workers, address, out = (study.games, study.seed, study.backend, study.workers,
                                                     study.address, study.out)
    sc = load_scenario(scenario, reg)
    if sc.tune is None:
        raise ScenarioError("missing: stonelab tune searches the scenario's [tune] table (docs/scenarios.md, "
                            "'Tuning a design'); the files scenarios/*/tune-*.toml are examples", source=str(scenario),
                            key=SECTION)
    raw = copy.deepcopy(dict(sc.raw))
    given = {"trials": ("--trials", trials), "games": ("--games", games_n)}
    for k, (_, v) in given.items():
        if v is not None:
            raw[SECTION][k] = v
    if seed is not None:
        raw["seed"] = seed
    try:
        sc = scenario_from_dict(raw, reg, source=sc.source, default_name=sc.name)
    except ScenarioError as e:
        for k, (opt, v) in given.items():
            if v is not None and e.key == f"{SECTION}.{k}":
                raise InputError(e.message, key=opt) from None
        if games_n is not None and e.key == f"{SECTION}.recheck_games":  # --games above the file's re-check
            raise InputError(f"got {games_n}; at most the file's tune.recheck_games ({raw[SECTION].get('recheck_games')})"
                             " unless that is raised too", key="--games") from None
        raise
    assert sc.tune is not None
    tn = sc.tune
    labels = list(sc.tournament.labels) if sc.tournament is not None else [s.label() for s in sc.seats]
    tune_analysis.check_metrics(tn, sc.game, labels, sc.source)
    study_backend = backend or ("dask" if address else sc.backend)
    study_workers = workers if workers is not None else sc.workers
    if workers is not None and study_backend != "serial" and not address:
        check_workers(workers, key="--workers")
    folder = Path(out) if out else Path(str(raw["out"]) if raw.get("out") else default_run_folder(sc.game, sc.name,
                                                                                                 "-tune"))
    check_tune_folder(folder)

    with study_interrupts("interrupted: finished trials and games are stored; run the same command again to resume"):
        info, s = run_tune(sc, reg, folder, backend=study_backend, workers=study_workers, address=address,
                           force=study.force, progress=not study.json_out, report=study.report,
                           strict=study.strict)
    if study.json_out:
        typer.echo(tune_analysis.json_text(s), nl=False)
        return
    tune_analysis.print_summary(s)
    typer.echo(plain(f"summary: {folder / SUMMARY_NAME}"))


def run_tune(sc: Any, reg: Any, folder: Path, *, backend: str, workers: int, address: str | None = None,
             force: bool = False, progress: bool = True, report: bool = True,
             strict: bool = False) -> tuple[Any, dict[str, Any]]:
    """Run (or resume) the search of a validated scenario ``sc`` with a ``[tune]`` table into the
    tune folder ``folder``; write ``best.toml``, ``tune.json`` and (``report``) ``report/report.html``.

    Returns:
        ``(SearchInfo, summary dict)``.

    Raises:
        InputError: see :func:`sim.core.tune.search`; FolderBusy when another search holds the folder.
        KeyboardInterrupt: stopped; the same call resumes.
    """
    # start-up: analysis.tune (pandas, scipy) adds 330 ms, the runner 45 ms, the scenario loader and sim.core.tune
    # 22 ms each to every command's start-up (CPU, python -X importtime)
    from analysis import tune as tune_analysis
    from sim.core.runner import run_study
    from sim.core.scenario import scenario_from_dict
    from sim.core.tune import BEST_NAME, SUMMARY_NAME, search

    raw = copy.deepcopy(dict(sc.raw))
    tn = sc.tune

    def make_scenario(design: dict[str, Any], trial_folder: Path) -> Any:
        d = dict(design)
        d.update(backend=backend, workers=workers, out=str(trial_folder))
        return scenario_from_dict(d, reg, source=sc.source, default_name=sc.name)

    def play(trial_sc: Any, tick: Any) -> int:
        return run_study(trial_sc, reg, address=address, progress=False, on_result=lambda r: tick(),
                         strict=strict).played

    def bar(total: int, done_before: int) -> Progress:
        return Progress(total, f"{sc.name} tune", enabled=progress, done_before=done_before)

    with lock_run_folder(folder):
        info = search(raw, tn, out=folder, seed=sc.seed, make_scenario=make_scenario, play=play,
                      measure=tune_analysis.measure, progress=bar, force=force, points=len(sc.points(reg)))
        best_path = None
        files: list[Path] = []
        if info.best:
            values = info.best[0].values
            best_path = tune_analysis.write_winner(raw, values, sc.name, sc.game, folder / BEST_NAME)
            # the winner validated as `stonelab run` reads it: its game sections feed the game's own files
            best_sc = scenario_from_dict(tune_analysis.winner_raw(raw, values, sc.name, sc.game), reg,
                                         source=str(best_path), default_name=sc.name)
            files = tune_analysis.write_design_files(sc.game, best_sc.sections, list(values), folder, best_sc.name)
        s = tune_analysis.summary(info, tn, sc.name, best_path)
        s["design_files"] = [str(f) for f in files]
        if report:
            announce(sc.name, "writing the tune report", enabled=progress)
            s["report"] = str(tune_analysis.write_report(info, tn, s, to_toml(raw), folder))
        tune_analysis.save_json(s, folder / SUMMARY_NAME)
    return info, s
