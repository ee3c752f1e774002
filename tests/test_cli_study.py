"""The study options and the interrupt handler every command that runs games shares
(sim/cli_study.py): one declaration, the same options on each command, the same exits."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from sim.cli import app
from sim.cli_study import RESUME_MESSAGE, StudyOptions, study_command, study_interrupts
from sim.core.errors import InputError

STUDY_FLAGS = ["--seed", "--backend", "--workers", "--address", "--out", "--force", "--report", "--json", "--strict"]


def _flags(command: str) -> list[str]:
    """The option flags of a ``stonelab`` command, in the order its help lists them."""
    import typer.main

    cmd = typer.main.get_command(app).commands[command]  # type: ignore[attr-defined]
    return [o for p in cmd.params for o in p.opts if o.startswith("--")]


@pytest.mark.parametrize("command,games", [("run", True), ("tournament", True), ("sensitivity", False)])
def test_every_study_command_takes_the_declared_options(command: str, games: bool) -> None:
    flags = _flags(command)
    declared = (["--games"] if games else []) + STUDY_FLAGS
    assert [f for f in flags if f in declared] == declared  # all of them, in one order
    assert ("--games" in flags) == games


def _toy(**helps: str | None):  # noqa: ANN202 - a typer app with one study command
    toy = typer.Typer()
    seen: list[StudyOptions] = []

    @toy.command()
    @study_command(**helps)  # type: ignore[arg-type]
    def play(name: str = typer.Argument(...), study: StudyOptions = StudyOptions()) -> None:
        seen.append(study)
        typer.echo(name)

    return toy, seen


def test_a_new_command_receives_the_options_as_one_value() -> None:
    toy, seen = _toy(games="games per candidate")
    res = CliRunner().invoke(toy, ["x", "--games", "4", "--seed", "9", "--backend", "serial", "--workers", "2",
                                   "--out", "o", "--force", "--no-report", "--json"])
    assert res.exit_code == 0, res.output
    assert res.output == "x\n"
    assert seen == [StudyOptions(games=4, seed=9, backend="serial", workers=2, out=Path("o"), force=True,
                                 report=False, json_out=True)]
    res = CliRunner().invoke(toy, ["y"])
    assert res.exit_code == 0 and seen[-1] == StudyOptions()
    import typer.main

    helps = {p.name: p.help for p in typer.main.get_command(toy).params}  # type: ignore[attr-defined]
    assert helps["games"] == "games per candidate" and helps["seed"] == "root seed (overrides the file)"


def test_the_declared_limits_hold_on_every_command() -> None:
    toy, _ = _toy()
    for argv in (["x", "--games", "0"], ["x", "--seed", "-1"], ["x", "--workers", "-2"]):
        res = CliRunner().invoke(toy, argv)
        assert res.exit_code == 2, argv


def test_a_command_without_games_has_no_games_option() -> None:
    toy, _ = _toy(games=None)
    assert CliRunner().invoke(toy, ["x", "--games", "3"]).exit_code == 2


def test_a_command_must_declare_study_and_not_reuse_its_names() -> None:
    with pytest.raises(TypeError, match="declares a parameter 'study: StudyOptions'"):
        @study_command()
        def no_study(name: str) -> None: ...
    with pytest.raises(TypeError, match=r"\['seed'\] are study options"):
        @study_command()
        def clash(seed: int = 0, study: StudyOptions = StudyOptions()) -> None: ...


@pytest.mark.parametrize("opts,key", [(StudyOptions(backend="threads"), "--backend"),
                                      (StudyOptions(backend="serial", address="tcp://127.0.0.1:8786"), "--address")])
def test_check_blames_the_option(opts: StudyOptions, key: str) -> None:
    with pytest.raises(InputError) as e:
        opts.check()
    assert e.value.key == key
    StudyOptions(address="tcp://127.0.0.1:8786").check()  # an address alone means dask


@pytest.mark.parametrize("signum,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)])
def test_the_interrupt_handler_exits_with_the_signal_code_and_the_resume_message(
        signum: int, code: int, capsys: pytest.CaptureFixture[str]) -> None:
    # Ctrl-C reaches Python as KeyboardInterrupt only through its own SIGINT handler, which Python does
    # not install when it starts with SIGINT ignored (a background job of a non-interactive shell)
    old_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _interrupt_and_check(signum, code, capsys)
    finally:
        signal.signal(signal.SIGINT, old_int)


def _interrupt_and_check(signum: int, code: int, capsys: pytest.CaptureFixture[str]) -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(typer.Exit) as e, study_interrupts():
        os.kill(os.getpid(), signum)
        for _ in range(1000):  # Python runs a signal handler between bytecodes: a few suffice
            pass
    assert e.value.exit_code == code
    assert capsys.readouterr().err == RESUME_MESSAGE + "\n"
    assert signal.getsignal(signal.SIGTERM) is before  # the handler is put back


def test_work_that_ends_leaves_the_handler_as_it_was() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with study_interrupts():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before


@pytest.mark.slow
def test_closing_the_terminal_stops_a_run_like_sigterm(tmp_path) -> None:
    """SIGHUP (the terminal a run was started from is closed) ends a real run with the
    "interrupted" line and exit 129; the games stored stay and the same command resumes."""
    import subprocess
    import sys
    import time
    from pathlib import Path

    from sim.core.store import Store

    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "sim.cli", "run", str(root / "scenarios" / "druids" / "classic.toml"), "--games",
           "100000", "--backend", "process", "--workers", "2", "--out", str(out), "--no-report"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    n = 0
    while time.time() < deadline and p.poll() is None and n < 200:
        time.sleep(0.2)
        try:
            with Store.open(out) as st:
                n = st.query("SELECT COUNT(*) FROM games")[0][0]
        except Exception:  # noqa: BLE001 - not there yet
            pass
    p.send_signal(signal.SIGHUP)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 129, err
    assert err.rstrip().splitlines()[-1] == RESUME_MESSAGE and "Traceback" not in err
    with Store.open(out) as st:
        assert st.query("SELECT COUNT(*) FROM games")[0][0] >= 200
