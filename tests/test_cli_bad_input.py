"""Bad input to every `stonelab` command: exit code 2, one message naming the file, the key or
the option and what is allowed, no traceback, and nothing half-written.

Every case fails before any game, pass or house is simulated, so the whole file runs in seconds.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from cli_scenarios import druids_scenario

from sim.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCEN = ROOT / "scenarios"
LAYOUT = SCEN / "sun" / "layouts" / "even-ring.toml"

DRUIDS = druids_scenario(3)

SHIPPED = {
    "druids": SCEN / "druids" / "classic.toml",
    "rocks": SCEN / "rocks" / "classic-3p.toml",
    "sozoikum": SCEN / "sozoikum" / "classic-4p.toml",
    "sun": SCEN / "sun" / "classic-2p.toml",
}


def bad(capsys, argv: list[str], *needles: str) -> str:
    """Run ``stonelab argv``; assert exit code 2, a one-paragraph message with every needle, no traceback."""
    rc = main(argv)
    cap = capsys.readouterr()
    assert rc == 2, (rc, cap.out, cap.err)
    err = cap.err
    assert "Traceback" not in err + cap.out
    for n in needles:
        assert n in err, (n, err)
    return err


def edited(tmp_path: Path, game: str, change, name: str = "bad.toml") -> Path:  # noqa: ANN001
    """A copy of the game's shipped scenario with ``change(text) -> text`` applied."""
    text = SHIPPED[game].read_text(encoding="utf-8")
    new = change(text)
    assert new != text
    p = tmp_path / name
    p.write_text(new, encoding="utf-8")
    return p


def add_under(section: str, line: str):  # noqa: ANN201
    """``change`` that adds ``line`` under ``[section]`` (creating the table at the end if absent)."""
    def change(text: str) -> str:
        if f"\n[{section}]" in text:
            return text.replace(f"\n[{section}]", f"\n[{section}]\n{line}", 1)
        return text + f"\n[{section}]\n{line}\n"
    return change


def sub(pattern: str, repl: str):  # noqa: ANN201
    return lambda text: re.sub(pattern, repl, text, count=1, flags=re.M)


# --- scenarios: what already worked (kept working) -------------------------------------------------
@pytest.mark.parametrize("game", sorted(SHIPPED))
@pytest.mark.parametrize("change,needles", [
    (add_under("rules", "nope = 3"), ["key 'rules.nope'", "unknown key", "allowed keys here"]),
    (sub(r"^games = \d+", 'games = "ten"'), ["key 'games'", "got 'ten'", "an integer from 1"]),
    (sub(r"^seed = \d+", "seed = -1"), ["key 'seed'", "got -1"]),
    (sub(r'^backend = "\w+"', 'backend = "gpu"'), ["key 'backend'", "'serial', 'process' or 'dask'"]),
    (sub(r'agent = "\w+"', 'agent = "alphazero"'), ["key 'seats[0].agent'", "unknown agent 'alphazero'"]),
    (lambda t: t + '\n[sweep]\n"rules.zzz" = [1, 2]\n', ["key 'sweep.rules.zzz'", "key 'rules.zzz'"]),
    (lambda t: t + '\n[sweep]\n"seats.9.x" = [1, 2]\n', ["key 'sweep.seats.9.x'", "does not name an existing seat"]),
    (lambda t: t + '\n[sweep]\ngames = [1, 2]\n', ["key 'sweep.games'", "cannot be swept"]),
    (lambda t: t + "\n[rules\n", ["not valid TOML"]),
], ids=["rule-key", "type", "range", "backend", "agent", "sweep-key", "sweep-seat", "sweep-study", "toml"])
def test_broken_scenario_of_every_game_is_refused(tmp_path: Path, capsys, game: str, change, needles) -> None:  # noqa: ANN001
    p = edited(tmp_path, game, change)
    err = bad(capsys, ["validate", str(p)], str(p), *needles)
    assert err.count(str(p)) == 1  # the file once, not repeated by nested messages
    assert err.startswith("error: ") and err.count("\n") == 1


def test_run_of_a_broken_scenario_writes_nothing(tmp_path: Path, capsys) -> None:
    p = edited(tmp_path, "druids", add_under("rules", "nope = 3"))
    bad(capsys, ["run", str(p), "--out", str(tmp_path / "run")], "rules.nope")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("change,needles", [
    (sub(r'^preset = "fast"', 'preset = "slow"'), ["key 'physics.preset'", "'fast' or 'reference'"]),
    (add_under("physics", "gravity = -1"), ["key 'physics.gravity'"]),
    (sub(r'^frames = "first"', 'frames = "some"'), ["key 'record.frames'", "'none', 'first', 'all' or 'failures'"]),
])
def test_sun_physics_section(tmp_path: Path, capsys, change, needles: list[str]) -> None:  # noqa: ANN001
    p = edited(tmp_path, "sun", change)
    bad(capsys, ["validate", str(p)], str(p), *needles)


# --- scenarios: what was fixed ----------------------------------------------------------------------
@pytest.mark.parametrize("section,line,needles", [
    # each of these passed `validate` and failed in the first game, without the file's name
    ("table", "ring_radius = 0.2", ["key 'table.ring_radius'", "inside the base", "0.15"]),
    ("table", "base_radius = 0", ["key 'table.base_radius'", "a number from 0.01 to 5.0"]),
    ("ball", "diameter = 0", ["key 'ball.diameter'", "a number from 0.001 to 1.0"]),
    ("ball", "string_length = 0.3", ["key 'ball.string_length'", "longer than table.base_radius + table.hand_span"]),
    ("physics", "restitution = 5", ["key 'physics.restitution'", "from 0.0 to 1.0"]),
    ("shapes", "pillar = { heigth = 0.07 }", ["key 'shapes.pillar.heigth'", "'width', 'depth', 'height'"]),
    # TOML's nan and inf passed every bound check
    ("table", "base_radius = nan", ["key 'table.base_radius'", "got nan"]),
    ("physics", "gravity = inf", ["key 'physics.gravity'", "got inf"]),
])
def test_sun_physical_tables_are_checked_on_load(tmp_path: Path, capsys, section: str, line: str,
                                                  needles: list[str]) -> None:
    p = edited(tmp_path, "sun", add_under(section, line))
    bad(capsys, ["validate", str(p)], str(p), *needles)
    bad(capsys, ["run", str(p), "--games", "1", "--backend", "serial", "--out", str(tmp_path / "run")], str(p))
    assert not (tmp_path / "run").exists()


def test_sun_sweep_value_checked_with_the_other_tables(tmp_path: Path, capsys) -> None:
    # used to play the first sweep point, then fail at the second, leaving a half-written run
    p = edited(tmp_path, "sun", lambda t: t + '\n[sweep]\n"table.ring_radius" = [0.13, 0.5]\n')
    bad(capsys, ["validate", str(p)], str(p), "key 'sweep.table.ring_radius'", "value 0.5 is not allowed",
        "inside the base")


def test_nan_is_refused_in_any_float_option(tmp_path: Path, capsys) -> None:
    p = edited(tmp_path, "druids", sub(r"^cost = 0.03", "cost = nan"))
    bad(capsys, ["validate", str(p)], "key 'seats[1].cost'", "got nan")


def test_sozoikum_stone_sizes_must_agree(tmp_path: Path, capsys) -> None:
    p = edited(tmp_path, "sozoikum", add_under("rules", "stone_size_min = 9.0\nstone_size_max = 4.0"))
    bad(capsys, ["validate", str(p)], str(p), "key 'rules.stone_size_min'", "must not exceed")


@pytest.mark.parametrize("name", ["../../elsewhere", "a/b", ".."])
def test_run_name_is_a_folder_name(tmp_path: Path, capsys, name: str) -> None:
    p = edited(tmp_path, "druids", sub(r'^name = "[^"]*"', f'name = "{name}"'))
    bad(capsys, ["validate", str(p)], "key 'name'", "no '/'")


def test_unknown_game_names_the_key_once(tmp_path: Path, capsys) -> None:
    p = edited(tmp_path, "rocks", sub(r'^game = "\w+"', 'game = "chess"'))
    err = bad(capsys, ["validate", str(p)], "unknown game 'chess'", "'druids', 'rocks', 'sozoikum' or 'sun'")
    assert err.count("key 'game'") == 1


def test_scenario_path_that_is_a_folder_or_binary(tmp_path: Path, capsys) -> None:
    bad(capsys, ["validate", str(tmp_path)], "is a folder")
    png = tmp_path / "x.toml"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    bad(capsys, ["run", str(png)], "not a UTF-8 text file")
    bad(capsys, ["validate", str(tmp_path / "absent.toml")], "no such scenario file")


def test_seats_count_wording(tmp_path: Path, capsys) -> None:
    p = edited(tmp_path, "druids", lambda t: t.split("[[seats]]")[0] + '[[seats]]\nagent = "random"\n')
    bad(capsys, ["validate", str(p)], "1 seats; druids takes 2 players")


# --- run: command-line options and the run folder ------------------------------------------------
@pytest.fixture
def druids_file(tmp_path: Path) -> Path:
    p = tmp_path / "study.toml"
    p.write_text(DRUIDS, encoding="utf-8")
    return p


def test_run_backend_option_is_named(capsys, druids_file: Path, tmp_path: Path) -> None:
    err = bad(capsys, ["run", str(druids_file), "--backend", "gpu", "--out", str(tmp_path / "r")],
              "key '--backend'", "'serial', 'process' or 'dask'")
    assert str(druids_file) not in err  # the file is right; the option is wrong
    assert not (tmp_path / "r").exists()


def test_run_usage_errors(capsys, druids_file: Path) -> None:
    for opt in (["--games", "0"], ["--seed", "-1"], ["--workers", "-1"]):
        bad(capsys, ["run", str(druids_file), *opt], opt[0])


@pytest.mark.parametrize("where", ["file", "file/sub"])
def test_run_folder_that_cannot_be_made(capsys, druids_file: Path, tmp_path: Path, where: str) -> None:
    (tmp_path / "file").write_text("x")
    bad(capsys, ["run", str(druids_file), "--out", str(tmp_path / where), "--no-report"], str(tmp_path / where))
    assert (tmp_path / "file").read_text() == "x"


def test_run_folder_of_another_scenario(capsys, druids_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert main(["run", str(druids_file), "--out", str(out), "--no-report", "--json"]) == 0
    capsys.readouterr()
    druids_file.write_text(DRUIDS.replace("seed = 4", "seed = 5"), encoding="utf-8")
    bad(capsys, ["run", str(druids_file), "--out", str(out)], "another scenario", "--force")


def test_run_refused_before_any_game_leaves_no_store(monkeypatch, capsys, druids_file: Path, tmp_path: Path) -> None:
    # e.g. a Dask scheduler that cannot be reached: the empty store made for the run is taken back
    from sim.core import runner
    from sim.core.errors import InputError

    def refuse(*a, **k):  # noqa: ANN002, ANN003, ANN202
        raise InputError("cannot reach the Dask scheduler", key="--address")
        yield  # pragma: no cover

    monkeypatch.setattr(runner, "iter_results", refuse)
    bad(capsys, ["run", str(druids_file), "--out", str(tmp_path / "r")], "--address")
    assert not (tmp_path / "r").exists()


# --- export, report, bench ------------------------------------------------------------------------
@pytest.fixture
def druids_run(tmp_path: Path, druids_file: Path, capsys) -> Path:
    out = tmp_path / "run"
    assert main(["run", str(druids_file), "--out", str(out), "--no-report", "--json"]) == 0
    capsys.readouterr()
    return out


def test_export_bad_options(capsys, druids_run: Path, tmp_path: Path) -> None:
    bad(capsys, ["export", str(druids_run), "--format", "xlsx"], "key '--format'", "'csv' or 'parquet'")
    err = bad(capsys, ["export", str(druids_run), "--table", "nosuch"], "key '--table'", "'games'", "'meta'")
    assert err.count("'games'") == 1
    (tmp_path / "file").write_text("x")
    bad(capsys, ["export", str(druids_run), "--out", str(tmp_path)], "key '--out'", "is a folder")
    bad(capsys, ["export", str(druids_run), "--out", str(tmp_path / "file" / "g.csv")], "key '--out'", "not a folder")
    assert not list(tmp_path.rglob("*.part"))


def test_export_and_report_of_no_run(capsys, tmp_path: Path) -> None:
    bad(capsys, ["export", str(tmp_path)], str(tmp_path), "no results store")
    bad(capsys, ["report", str(tmp_path)], str(tmp_path), "no results store")
    (tmp_path / "results.sqlite").write_text("not a database")
    bad(capsys, ["report", str(tmp_path)], "results store is damaged or not a stonehenge-lab store",
        str(tmp_path / "results.sqlite"))
    assert not (tmp_path / "report").exists()


def test_bench_unknown_game(capsys) -> None:
    bad(capsys, ["bench", "nosuchgame"], "unknown game 'nosuchgame'", "'druids', 'rocks', 'sozoikum' or 'sun'")


# --- sun pass and stability -----------------------------------------------------------------------
def layout(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "layout.toml"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("text,needles", [
    ('[[stones]]\nshape = "block"\nangle = 10.0\n[[stones]]\nshape = "block"\nangle = 12.0\n',
     ["key 'stones[1].angle'", "overlaps"]),
    ('[[stones]]\nshape = "block"\nangle = 10.0\nlevel = 2\n', ["key 'stones[0].level'", "stacks on nothing"]),
    ('[[stones]]\nshape = "menhir"\nangle = 10.0\n', ["key 'stones[0].shape'", "'pillar', 'block' or 'slab'"]),
    ('[[stones]]\nshape = "pillar"\nangle = 0.0\n[[stones]]\nshape = "pillar"\nangle = 18.0\n'
     '[[stones]]\nshape = "pillar"\nangle = 28.0\n[[gates]]\nshape = "slab"\nbetween = [0, 1]\n',
     ["key 'gates[0].between'", "gate too long"]),
    ('[[stones]]\nshape = "block"\nangle = 0.0\n[[stones]]\nshape = "block"\nangle = 90.0\n'
     '[[gates]]\nshape = "slab"\nbetween = [0, 1]\n', ["key 'gates[0].between'", "gate too short"]),
    ('[physics]\npreset = "slow"\n', ["key 'physics.preset'"]),
    ("[table]\nradius = 0.2\n", ["key 'table.radius'", "'base_radius'"]),
])
def test_sun_pass_bad_layout(tmp_path: Path, capsys, text: str, needles: list[str]) -> None:
    p = layout(tmp_path, text)
    bad(capsys, ["sun", "pass", str(p), "--aim", "0"], str(p), *needles)
    bad(capsys, ["stability", str(p)], str(p), *needles)


def test_sun_layout_file_that_is_not_a_layout(tmp_path: Path, capsys) -> None:
    png = tmp_path / "x.toml"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")  # was a UnicodeDecodeError traceback
    bad(capsys, ["sun", "pass", str(png), "--aim", "0"], str(png), "not a UTF-8 text file")
    bad(capsys, ["stability", str(tmp_path)], str(tmp_path), "is a folder")  # was IsADirectoryError
    bad(capsys, ["sun", "pass", str(tmp_path / "absent.toml"), "--aim", "0"], "no such layout file")


@pytest.mark.parametrize("opts,needles", [
    (["--aim", "nan"], ["key '--aim'"]),
    (["--aim", "0", "--release", "-1"], ["key 'release'", "hand span"]),
    (["--aim", "0", "--skill", "godlike"], ["key '--skill'", "'perfect', 'expert'"]),
    (["--aim", "0", "--preset", "slow"], ["physics.preset", "'fast' or 'reference'"]),
    (["--aim", "0", "--seed", "-1"], ["--seed"]),  # was a numpy traceback
])
def test_sun_pass_bad_options(capsys, opts: list[str], needles: list[str]) -> None:
    bad(capsys, ["sun", "pass", str(LAYOUT), *opts], *needles)


def test_sun_pass_record_path_checked_before_the_pass(tmp_path: Path, capsys) -> None:
    # these were tracebacks after the simulation
    bad(capsys, ["sun", "pass", str(LAYOUT), "--aim", "0", "--record", str(tmp_path)], "key '--record'", "is a folder")
    (tmp_path / "file").write_text("x")
    bad(capsys, ["sun", "pass", str(LAYOUT), "--aim", "0", "--record", str(tmp_path / "file" / "r.json")],
        "key '--record'", "not a folder")
    bad(capsys, ["sun", "pass", str(LAYOUT), "--aim", "0", "--record", str(tmp_path / "r.json"), "--record-hz", "0"],
        "key '--record-hz'")
    assert not (tmp_path / "r.json").exists()


def test_stability_bad_options(tmp_path: Path, capsys) -> None:
    bad(capsys, ["stability", str(LAYOUT), "--trials", "0"], "key '--trials'")
    bad(capsys, ["stability", str(LAYOUT), "--step", "0"], "key '--step'")
    bad(capsys, ["stability", str(LAYOUT), "--seed", "-5"], "--seed")
    (tmp_path / "file").write_text("x")
    bad(capsys, ["stability", str(LAYOUT), "--out", str(tmp_path / "file")], "key '--out'", "is a file")
    bad(capsys, ["stability", str(LAYOUT), "--out", str(tmp_path / "file" / "sub")], "key '--out'")


# --- replay -----------------------------------------------------------------------------------------
@pytest.fixture
def replay_file(tmp_path: Path) -> Path:
    from sim.sun.viewer.replay import save_replay, synthetic_replay

    return save_replay(synthetic_replay(n_stones=4, seconds=1.0, fps=20.0, turns=1), tmp_path / "good.npz")


@pytest.mark.parametrize("cmd", ["view", "info", "export", "video", "convert"])
def test_replay_bad_files(tmp_path: Path, capsys, replay_file: Path, cmd: str) -> None:
    extra = {"export": ["--out", str(tmp_path / "exp")], "video": ["--out", str(tmp_path / "v.gif")],
             "convert": ["--out", str(tmp_path / "c.npz")], "view": ["--port", "8765"]}.get(cmd, [])
    cut = tmp_path / "bad.npz"
    cut.write_bytes(replay_file.read_bytes()[:500])
    png = tmp_path / "picture.npz"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    text = tmp_path / "notes.npz"
    text.write_text("hello")
    folder = tmp_path / "folder"
    folder.mkdir()
    for f, needle in ((tmp_path / "absent.npz", "no such replay file"), (cut, "truncated"),
                      (png, "not a stonelab replay"), (text, "not a stonelab replay"), (folder, "not a run folder")):
        bad(capsys, ["replay", cmd, str(f), *extra], str(f), needle)
    bad(capsys, ["replay", cmd, str(replay_file), "--game", "-1", *extra], "key '--game'")
    assert not (tmp_path / "exp").exists() and not (tmp_path / "v.gif").exists() and not (tmp_path / "c.npz").exists()


def test_replay_of_a_run_without_replays(capsys, druids_run: Path) -> None:
    bad(capsys, ["replay", "info", str(druids_run), "--game", "99"], "3-D replays exist for sun runs only", "'druids'",
        "stonelab replay view RUN --game N")


def test_replay_output_paths_checked_first(tmp_path: Path, capsys, replay_file: Path) -> None:
    (tmp_path / "file").write_text("x")
    under = tmp_path / "file" / "x"
    # these were tracebacks (mkdir under a file)
    bad(capsys, ["replay", "export", str(replay_file), "--out", str(under)], "key '--out'", "not a folder")
    bad(capsys, ["replay", "video", str(replay_file), "--out", str(under) + ".gif"], "key '--out'", "not a folder")
    bad(capsys, ["replay", "convert", str(replay_file), "--out", str(under) + ".npz"], "key '--out'", "not a folder")
    bad(capsys, ["replay", "export", str(replay_file), "--out", str(tmp_path / "file")], "key '--out'", "is a file")
    bad(capsys, ["replay", "video", str(replay_file), "--out", str(tmp_path / "v.avi")], "key '--out'", ".mp4 or .gif")


def test_replay_view_and_serve_options(tmp_path: Path, capsys, replay_file: Path) -> None:
    bad(capsys, ["replay", "view", str(replay_file), "--viewer", "vlc"], "key '--viewer'", "'viser' or 'pybullet'")
    bad(capsys, ["replay", "view", str(replay_file), "--port", "70000"], "key '--port'")
    # an unknown host used to make viser retry forever without a word
    bad(capsys, ["replay", "view", str(replay_file), "--host", "no-such-host.invalid"], "key '--host'")
    bad(capsys, ["replay", "serve", str(tmp_path), "--port", "99999"], "key '--port'")  # was OverflowError
    bad(capsys, ["replay", "serve", str(replay_file)], str(replay_file), "is a file")  # was "no such folder"
    bad(capsys, ["replay", "serve", str(tmp_path / "absent")], "no such folder")
    bad(capsys, ["replay", "serve", str(tmp_path)], "not a replay export", "stonelab replay export")


# --- sozoikum house ---------------------------------------------------------------------------------
HOUSE = ["sozoikum", "house", "--stones", "19,16,17,18,15"]


@pytest.mark.parametrize("stones,needle", [
    ("abc", "shape seeds separated by commas"),
    ("1,2,3,4", "need exactly 5 seeds"),
    ("1,2,3,4,-5", "from 0 to 2**32 - 1"),
])
def test_house_bad_stones(capsys, stones: str, needle: str) -> None:
    bad(capsys, ["sozoikum", "house", "--stones", stones], "key '--stones'", needle)


@pytest.mark.parametrize("rule,needles", [
    ("coalitions=maybe", ["key '--rule'", "true or false"]),  # was silently false
    ("wall_gap=nan", ["key '--rule'", "wall_gap", "got nan"]),  # was accepted
    ("nope=1", ["key '--rule'", "nope", "allowed keys here"]),
    ("wall_gap", ["key '--rule'", "key=value"]),
    ("wall_gap=-3", ["key '--rule'", "from 0.1 to 30.0"]),
])
def test_house_bad_rules(capsys, rule: str, needles: list[str]) -> None:
    err = bad(capsys, [*HOUSE, "--rule", rule], *needles)
    assert "key 'rules." not in err


def test_house_drawing_path_checked_before_the_build(tmp_path: Path, capsys) -> None:
    bad(capsys, [*HOUSE, "--png", str(tmp_path / "h.xyz")], "key '--png'", ".png, .svg or .pdf")  # was a traceback
    bad(capsys, [*HOUSE, "--png", str(tmp_path)], "key '--png'", "is a folder")  # wrote <folder>.png
    assert not list(tmp_path.parent.glob(tmp_path.name + ".png"))


def test_replay_game_option_with_a_single_replay_file_is_refused(tmp_path: Path, capsys) -> None:
    from sim.sun.viewer.replay import save_replay, synthetic_replay

    f = save_replay(synthetic_replay(), tmp_path / "one.npz")
    assert main(["replay", "info", str(f), "--game", "3"]) == 2
    err = capsys.readouterr().err
    assert "give the run folder" in err and "--game" in err


def test_a_wide_stone_overhanging_the_base_edge_is_refused(tmp_path: Path, capsys) -> None:
    lay = tmp_path / "wide.toml"
    # 14 cm ring radius: the outer face (14.75 cm) is inside the 15 cm base, a 6 cm wide block's corners are not
    lay.write_text("[table]\nring_radius = 0.14\n[shapes.block]\nwidth = 0.06\n"
                   "[[stones]]\nshape = \"block\"\nangle = 0.0\nlevel = 1\n")
    assert main(["sun", "pass", str(lay), "--aim", "90"]) == 2
    assert "sticks out over the base edge" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, words",
    [
        (["sun", "pass", "scenarios/sun/layouts/empty.toml", "--aim", "north"], "Invalid value for '--aim'"),
        (["run", "scenarios/druids/classic.toml", "--games", "0"], "Invalid value for '--games'"),
        (["run"], "Missing argument"),
        (["nosuch"], "No such command 'nosuch'"),
    ],
)
def test_typer_usage_errors_are_one_error_line_with_exit_2(capsys, argv: list[str], words: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], err
    assert "╭" not in err and "Traceback" not in err


# --- values that cannot become folders are refused by validate, not by run -------------------
@pytest.mark.parametrize("value,needle", [
    ("a\\u0000b", "NUL"),
    ("a\\u001b[31mred", "control character"),
    ("tab\\there", "control character"),
    ("x" * 201, "at most 200"),
    ("é" * 101, "202 bytes long"),
    (".", "not '.' or '..'"),
])
def test_run_name_that_cannot_be_a_folder(tmp_path: Path, capsys, value: str, needle: str) -> None:
    p = tmp_path / "s.toml"
    p.write_text(f'name = "{value}"\n' + DRUIDS, encoding="utf-8")
    for cmd in (["validate", str(p)], ["run", str(p), "--out", str(tmp_path / "r")]):
        bad(capsys, cmd, str(p), "key 'name'", needle)
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("stem,needle", [("..", "not '.' or '..'"), ("a\x01b", "control character")])
def test_run_named_after_a_file_that_cannot_be_a_folder(tmp_path: Path, capsys, stem: str, needle: str) -> None:
    p = tmp_path / f"{stem}.toml"
    p.write_text(DRUIDS, encoding="utf-8")
    bad(capsys, ["validate", str(p)], "key 'name'", "named after the file", needle, 'set name = "..."')


@pytest.mark.skipif(sys.platform != "linux", reason="file names of raw bytes")
def test_scenario_path_with_a_byte_that_is_not_utf8(tmp_path: Path, capsys) -> None:
    import os
    import sqlite3

    folder = os.fsdecode(os.fsencode(str(tmp_path)) + b"/d\xff")
    os.mkdir(folder)
    named = Path(folder) / "s.toml"
    named.write_text(DRUIDS, encoding="utf-8")
    # the name comes from the file's stem only when the file does not set one: this stem is fine
    assert main(["run", str(named), "--out", str(tmp_path / "r"), "--no-report", "--json"]) == 0
    capsys.readouterr()
    with sqlite3.connect(tmp_path / "r" / "results.sqlite") as con:
        source = dict(con.execute("SELECT key, value FROM meta"))["source"]
    assert source.endswith("d\\xff/s.toml")  # stored as text, the byte spelled out
    stem = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/x\xffy.toml"))
    stem.write_text(DRUIDS, encoding="utf-8")
    for cmd in (["validate", str(stem)], ["run", str(stem), "--out", str(tmp_path / "r2")]):
        bad(capsys, cmd, "key 'name'", "not UTF-8", 'set name = "..."')
    assert not (tmp_path / "r2").exists()  # no half-made store


@pytest.mark.parametrize("value,needle", [("a\\u0000b", "NUL"), ("runs/" + "x" * 256, "at most 255")])
def test_out_that_cannot_be_a_folder(tmp_path: Path, capsys, value: str, needle: str) -> None:
    p = tmp_path / "s.toml"
    p.write_text(f'out = "{value}"\n' + DRUIDS, encoding="utf-8")
    bad(capsys, ["validate", str(p)], str(p), "key 'out'", needle)


def test_validate_refuses_the_worker_counts_run_refuses(tmp_path: Path, capsys) -> None:
    import os

    limit = 4 * (os.cpu_count() or 1)
    p = tmp_path / "s.toml"
    p.write_text("workers = 4096\n" + DRUIDS.replace('backend = "serial"', 'backend = "process"'), encoding="utf-8")
    for cmd in (["validate", str(p)], ["run", str(p), "--out", str(tmp_path / "r")]):
        bad(capsys, cmd, str(p), "key 'workers'", "got 4096", f"to {limit}")
    p.write_text("workers = 4096\n" + DRUIDS, encoding="utf-8")  # serial: the count is unused
    assert main(["validate", str(p)]) == 0


# --- a byte-order mark, and messages that named the wrong thing -------------------------------
def test_toml_files_with_a_byte_order_mark(tmp_path: Path, capsys) -> None:
    from sim.core.files import read_toml

    bom = "\ufeff"
    p = tmp_path / "s.toml"
    p.write_text(bom + DRUIDS, encoding="utf-8")
    assert main(["validate", str(p)]) == 0  # was "Invalid statement (at line 1, column 1)"
    capsys.readouterr()
    lay = tmp_path / "ring.toml"
    lay.write_text(bom + LAYOUT.read_text(encoding="utf-8"), encoding="utf-8")
    sun = tmp_path / "sun.toml"
    sun.write_text(bom + SHIPPED["sun"].read_text(encoding="utf-8") + f'\n[layout]\nfile = "{lay}"\n',
                   encoding="utf-8")
    assert main(["validate", str(sun)]) == 0  # a layout named by a scenario, read twice (checked, then merged)
    capsys.readouterr()
    from sim.sun.table.layout import load_layout
    from sim.sun.players.thrower import load_skill

    assert len(load_layout(lay).stones) > 0
    preset = tmp_path / "hand.toml"
    preset.write_text(bom + '[skill]\nsigma_aim_deg = 1.0\nsigma_release_m = 0.01\nsigma_push_mps = 0.01\n'
                      'sigma_place_m = 0.001\nsigma_place_deg = 2.0\n', encoding="utf-8")
    assert load_skill(preset).sigma_aim_deg == 1.0
    assert read_toml(p, "scenario file")["game"] == "druids"


def test_sensitivity_options_are_blamed_not_the_file(tmp_path: Path, capsys) -> None:
    p = tmp_path / "s.toml"
    p.write_text(DRUIDS, encoding="utf-8")
    for opts, key in ((["--method", "sobol", "--samples", "6"], "--samples"),
                      (["--trajectories", "200000"], "--trajectories"),
                      (["--games-per-point", "100000000"], "--games-per-point")):
        err = bad(capsys, ["sensitivity", str(p), *opts, "--out", str(tmp_path / "r")], f"key '{key}'")
        assert str(p) not in err and "sensitivity." not in err
    assert not (tmp_path / "r").exists()


def test_replay_info_on_an_empty_or_foreign_store(tmp_path: Path, capsys) -> None:
    import sqlite3

    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "results.sqlite").write_bytes(b"")
    (tmp_path / "foreign").mkdir()
    con = sqlite3.connect(tmp_path / "foreign" / "results.sqlite")
    con.execute("CREATE TABLE notes(x)")
    con.commit()
    con.close()
    for run, needle in (("empty", "the file is empty"), ("foreign", "no table meta")):
        for cmd in ("info", "view"):
            err = bad(capsys, ["replay", cmd, str(tmp_path / run)], str(tmp_path / run / "results.sqlite"),
                      "not a stonehenge-lab store", needle)
            assert "None" not in err


def test_compare_of_a_run_with_itself_says_so(capsys, druids_run: Path, tmp_path: Path) -> None:
    import json
    import shutil

    assert main(["compare", str(druids_run), str(druids_run), "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any("the same run" in n for n in notes), notes
    shutil.copytree(druids_run, tmp_path / "copy")
    assert main(["compare", str(druids_run), str(tmp_path / "copy"), "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any("same scenario with the same seed" in n for n in notes), notes


def test_run_folder_that_is_not_writable(capsys, druids_file: Path, tmp_path: Path) -> None:
    import os
    import subprocess

    ro = tmp_path / "ro"
    ro.mkdir()
    if os.geteuid() == 0:  # root writes through permissions: a read-only mount stops it
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(ro)], capture_output=True,
                           check=False)
        if r.returncode != 0:
            pytest.skip(f"cannot mount a read-only tmpfs: {r.stderr.decode().strip()}")
    else:
        os.chmod(ro, 0o555)
    try:
        err = bad(capsys, ["run", str(druids_file), "--out", str(ro)], str(ro), "not writable")
        assert "cannot create" not in err
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(ro)], check=False)
        else:
            os.chmod(ro, 0o755)


def test_replay_export_never_writes_over_a_folder_of_other_files(tmp_path: Path, capsys, replay_file: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("my home page", encoding="utf-8")
    bad(capsys, ["replay", "export", str(replay_file), "--out", str(site)], str(site), "key '--out'",
        "holds other files (index.html)", "not a replay export")
    assert (site / "index.html").read_text(encoding="utf-8") == "my home page"
    exp = tmp_path / "exp"
    exp.mkdir()  # empty: fine
    assert main(["replay", "export", str(replay_file), "--out", str(exp)]) == 0
    assert main(["replay", "export", str(replay_file), "--out", str(exp)]) == 0  # an earlier export: replaced


def test_file_paths_in_a_scenario_with_a_nul_byte(tmp_path: Path, capsys) -> None:
    sun = SHIPPED["sun"].read_text(encoding="utf-8")
    p = tmp_path / "layout.toml"
    p.write_text(sun.replace("[[seats]]", '[layout]\nfile = "a\\u0000b.toml"\n\n[[seats]]', 1), encoding="utf-8")
    bad(capsys, ["validate", str(p)], "key 'layout.file'", "NUL byte")  # was ValueError: embedded null byte
    four = (SCEN / "sun" / "4p.toml").read_text(encoding="utf-8")
    p.write_text(re.sub(r'skill = "\w+"', 'skill = "p\\\\u0000.toml"', four, count=1), encoding="utf-8")
    bad(capsys, ["validate", str(p)], "key 'seats[0].skill'", "NUL byte")
