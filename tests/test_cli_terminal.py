"""What a newcomer reads on a terminal: every help page shows the bracketed words its
docstrings and option helps wrote; `stonelab games` and the run summary keep names whole at 80
columns and on a pipe."""

from __future__ import annotations

import re
from typing import Any, Iterator

import pytest

from sim.cli import app, main

BOX = str.maketrans("", "", "│╭╮╰╯─┃━┏┓┗┛┡┩╇┳┻┣┫╋")


def _commands() -> Iterator[tuple[list[str], Any]]:
    """(path, click command) of every command and group under ``stonelab``."""
    import typer.main

    def walk(path: list[str], cmd: Any) -> Iterator[tuple[list[str], Any]]:
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from walk([*path, name], sub)

    yield from walk([], typer.main.get_command(app))


def _flat(text: str) -> str:
    return " ".join(text.translate(BOX).split())


def _written(cmd: Any) -> list[str]:
    """The help texts of ``cmd`` as its source wrote them (docstring, parameter helps)."""
    texts = [cmd.help or ""] + [getattr(p, "help", None) or "" for p in cmd.params]
    return [t.replace("\\[", "[") for t in texts]


COMMANDS = list(_commands())


def test_the_walk_finds_every_command() -> None:
    names = {" ".join(p) for p, _ in COMMANDS}
    assert {"games", "run", "sensitivity", "stability", "sun", "replay", "replay view"} <= names


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "stonelab")
def test_help_keeps_bracketed_words(path: list[str], capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """rich read '[sensitivity]' in a docstring as markup and printed '(its  section'."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("TERMINAL_WIDTH", raising=False)
    cmd = dict((tuple(p), c) for p, c in COMMANDS)[tuple(path)]
    assert main([*path, "--help"]) == 0
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 80
    shown = _flat(out)
    for text in _written(cmd):
        for word in re.findall(r"\[[^\[\]\n]+\]", text):
            assert _flat(word) in shown, f"stonelab {' '.join(path)} --help lost {word!r}"


def test_help_paragraphs_are_rewrapped(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A docstring's own line breaks ended lines mid-sentence ('resumes when the same' / 'command')."""
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["run", "--help"]) == 0
    lines = [ln.strip() for ln in capsys.readouterr().out.splitlines()]
    assert not any(ln.endswith("SIGTERM stops it") for ln in lines)


def _games_keys() -> list[str]:
    """Every option's dotted key as `stonelab games --json` lists it."""
    import json

    from sim.cli import games

    keys: list[str] = []
    for g in json.loads(_capture(lambda: games(json_out=True)))["games"]:
        keys += [f"rules.{o['name']}" for o in g["options"]]
        keys += [f"{sec}.{o['name']}" for sec, opts in g["sections"].items() for o in opts]
        keys += [f"seats[].{o['name']}" for o in g["seat_options"]]
    return keys


def _capture(fn: Any) -> str:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn()
    return buf.getvalue()


@pytest.mark.parametrize("terminal", [False, True], ids=["pipe", "terminal"])
def test_games_shows_every_option_whole_at_80_columns(terminal: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table cut 74 cells at 80 columns ('rules.early_domin…'); each key is now one whole line."""
    import io

    from rich.console import Console

    import sim.core.console as C
    from sim.cli import games

    buf = io.StringIO()
    monkeypatch.setattr(C, "console", lambda stderr=False: Console(file=buf, width=80, force_terminal=terminal,
                                                                    soft_wrap=True, color_system=None))
    games(json_out=False)
    lines = buf.getvalue().splitlines()
    keys = _games_keys()
    assert len(keys) > 60
    starts = {ln.split(" = ")[0].strip() for ln in lines if " = " in ln}
    for key in keys:
        assert key in starts, key
    assert "…" not in buf.getvalue()
    if terminal:
        assert max(map(len, lines)) <= 80
    else:  # a pipe: one line per explanation, however long
        assert any(len(ln) > 80 for ln in lines)


def test_games_defaults_are_toml(monkeypatch: pytest.MonkeyPatch) -> None:
    """The line `rules.face_down = false` is what a scenario file takes (dotted keys are TOML)."""
    import tomllib

    out = _capture(lambda: main(["games"]))
    pairs = [ln.strip() for ln in out.splitlines() if ln.startswith("  rules.")]
    assert "rules.face_down = false" in pairs
    for ln in pairs:
        tomllib.loads(ln)


def test_no_option_explanation_names_a_default_other_than_its_own() -> None:
    """Issue 29, item 9: Sozoikum's house_fall_tilt read "(default: 3 sd of a stone's top-face
    slant, 6.9 deg)" beside a default of 20.0. Every explanation that names a default names the
    option's own."""
    import json
    import re

    from sim.cli import games

    seen = 0
    for g in json.loads(_capture(lambda: games(json_out=True)))["games"]:
        for o in g["options"] + [x for opts in g["sections"].values() for x in opts]:
            doc = str(o.get("doc", ""))
            for m in re.finditer(r"default(?:s to|:| is)?[^0-9;)]{0,60}?(-?[0-9]+(?:\.[0-9]+)?)", doc):
                assert float(m.group(1)) == pytest.approx(float(o["default"])), (g["name"], o["name"], doc)
            seen += 1
    assert seen > 60
    tilt = next(o for g in json.loads(_capture(lambda: games(json_out=True)))["games"] if g["name"] == "sozoikum"
                for o in g["options"] if o["name"] == "house_fall_tilt")
    assert tilt["default"] == 20.0 and "default" not in tilt["doc"]


def _summary(labels: list[str]) -> dict[str, Any]:
    seats = [{"seat": i, "agent": lab.split("(")[0], "label": lab, "wins": w, "win_rate": w / 100,
              "ci95": [0.45, 0.64], "shared_wins": 0, "score": w / 100, "score_ci95": [0.45, 0.64]}
             for i, (lab, w) in enumerate(zip(labels, [55, 45]))]
    return {"scenario": "s", "game": "rocks", "games": 100, "seed": 0, "draws": 0, "shared_wins": 0,
            "mean_length": 80.0, "played": 100, "resumed_skipped": 0, "wall_s": 1.0, "out": "/tmp/r", "seats": seats}


@pytest.mark.parametrize("width", [80, 200])
def test_run_summary_keeps_agent_labels_whole(width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent column wrapped 'greedy(tshirt_wei' / 'ght=10.0,' at 80 columns and the cells read
    '55: 55 % [45, 64]'."""
    import io

    from rich.console import Console

    import sim.core.console as C
    from sim.cli_tables import print_summary as _print_summary

    buf = io.StringIO()
    monkeypatch.setattr(C, "console", lambda stderr=False: Console(file=buf, width=width, soft_wrap=True,
                                                                    color_system=None))
    long = "greedy(tshirt_weight=10.0, setup_weight=4.0, guard_weight=20.0)"
    _print_summary(_summary([long, "random"]))
    out = buf.getvalue()
    lines = out.splitlines()
    assert any(long in ln for ln in lines)
    assert "55: " not in out
    row = next(ln for ln in lines if ln.split()[:1] == ["0"])
    assert re.search(r" 55 +55 % \[45, 64\] ", row), row  # sole wins, then their rate and interval
    table = [ln for ln in lines if "%" in ln or "seat" in ln]
    assert max(map(len, table)) <= width
    if width == 80:  # too long for the cell: the agent's name in the table, the label in full below
        assert row.split()[1] == "greedy" and f"seat 0: {long}" in lines
    else:
        assert long in row


def test_tournament_ratings_keep_entrant_names_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entrant column folded 'greedy(tshirt_weight=10.0,' over three lines at 80 columns."""
    import io

    from rich.console import Console

    import analysis.tournament
    from analysis.tournament import print_summary

    buf = io.StringIO()
    # the console print_summary reads: the module imports sim.core.console's at its top
    monkeypatch.setattr(analysis.tournament, "console", lambda stderr=False: Console(file=buf, width=80,
                                                                                     soft_wrap=True, color_system=None))
    long = "greedy(tshirt_weight=10.0, setup_weight=4.0, guard_weight=20.0)"
    print_summary({"prior": 0, "connected": True, "ratings": [
        {"rank": 1, "entrant": long, "rating": 264.0, "ci95": [18.0, 511.0], "score": 1.0, "games": 10},
        {"rank": 2, "entrant": "random", "rating": -264.0, "ci95": [-511.0, -18.0], "score": 0.0, "games": 10}]})
    lines = buf.getvalue().splitlines()
    assert f"1: {long}" in lines and max(len(ln) for ln in lines if "│" in ln) <= 80
    assert not any("guard_weight" in ln for ln in lines if "│" in ln)


def test_a_rotated_seat_names_every_player_it_held_when_labels_are_cut() -> None:
    """With rotated seats a seat's label is 'careful(...) / aggressive(...)': cut to names, both
    stay (naming only the first made the table say seat 0 was the careful player)."""
    from sim.core.console import fit_labels

    cells, full = fit_labels(["careful(skill=casual) / aggressive(skill=casual)",
                              "aggressive(skill=casual) / careful(skill=casual)"], 20)
    assert not full and cells == ["careful / aggressive", "aggressive / careful"]
