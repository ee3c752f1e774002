"""The rules' view in a replay: recorded from the rules, kept through the file, drawn by the viewers.

A seeded game of the README's main job (classic-2p, game 0, which has stones toppled, pushed off
and fallen from their support) is played twice: once as the runner plays it,
watched step by step through the rules' own API (the Ring, ``passable``, ``mark_areas``, the
pending pass, the stored passes), and once recorded for a replay. Every turn's view in the replay
file must say what the rules said.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sim.core.errors import ReplayError
from sim.sun.viewer.replay import from_game_record, load_replay, save_replay
from sim.sun.viewer.replay.overlay import check_rules_view, legend, seat_colour

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "sun" / "classic-2p.toml"


def _scenario() -> Any:
    from sim.core.scenario import load_scenario
    from sim.games import REGISTRY

    return load_scenario(SCENARIO, REGISTRY).points(REGISTRY)[0].scenario


def _watched_game(scenario: Any, game_index: int) -> tuple[dict[tuple[int, int], dict[str, Any]], list[dict[str, Any]]]:
    """The runner's game (no recording), looked at through the rules' API before every throw:
    per (turn, seat) the ring's gap keys and passability, each seat's mark areas and the pass;
    and the passes the rules stored."""
    from sim.core.play import play, seat_agents
    from sim.core.seeding import game_streams
    from sim.sun.game import GAME

    seating = scenario.seating(game_index)
    config = scenario.config(seating.seats)
    from dataclasses import replace

    config = replace(config, game_index=game_index)
    streams = game_streams(scenario.seed, seating.stream_index, config.num_players)
    seen: dict[tuple[int, int], dict[str, Any]] = {}

    def look(st: Any, step: int) -> None:
        if st.phase == "swing":
            ring = st.ring()
            seen[(st.turn, st.seat)] = {
                "keys": [list(k) for k in ring.keys],
                "passable": [ring.passable(i, st.geom) for i in range(ring.n)],
                "areas": [st.mark_areas(s, ring) for s in range(st.num_players)],
                "markers": [list(m) for m in st.markers],
                "aim": st.pending.aim, "release": st.pending.release,
            }

    state = play(GAME, config, seat_agents(GAME, seating.seats, config, streams), streams.chance,
                 before_step=look).state
    return seen, list(state.passes)


#: the words a viewer's penalty label gives each cause
CAUSE_WORDS = {"toppled": "toppled", "fell_from_support": "fell from its support", "pushed_off": "pushed off"}


def falling_stack_turn(rp: Any) -> int:
    """The index of the first turn whose pass left a stone fallen from its support (a stack
    brought down)."""
    for t in rp.turns:
        if "fell_from_support" in {p["cause"] for p in t.penalties if p.get("step") == "pass"}:
            return int(t.index)
    raise AssertionError("no pass with a falling stack in this game")


def turn_at(rp: Any, index: int) -> Any:
    return next(t for t in rp.turns if t.index == index)


def label_texts(turn: Any) -> dict[int, str]:
    """The penalty labels a viewer must show for ``turn``, from its penalty list."""
    return {p["stone"]: f"stone {p['stone']}: {CAUSE_WORDS[p['cause']]}" for p in turn.penalties}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Game 0 of classic-2p recorded (``record_game``), its replay written and read back, and the
    same game watched through the rules."""
    from sim.sun.game import record_game

    sc = _scenario()
    rec = record_game(sc, 0)
    path = save_replay(from_game_record(rec), tmp_path_factory.mktemp("rules") / "game-0.npz")
    seen, passes = _watched_game(sc, 0)
    return {"record": rec, "replay": load_replay(path), "seen": seen, "passes": passes}


def test_every_pass_has_the_rules_view_and_it_is_what_the_rules_said(recorded: dict[str, Any]) -> None:
    rp, seen = recorded["replay"], recorded["seen"]
    with_view = [t for t in rp.turns if t.rules is not None]
    assert len(with_view) == len(seen) == len(recorded["passes"]) > 20
    for t in with_view:
        v = t.rules
        want = seen[(v["turn"], t.seat)]
        gaps = v["ring"]["gaps"]
        assert [g["between"] for g in gaps] == want["keys"], f"turn {t.index}"
        assert [g["passable"] for g in gaps] == want["passable"], f"turn {t.index}"
        assert [[m["gap"] for m in ms] for ms in v["markers"]] == want["areas"], f"turn {t.index}"
        for ms, angles in zip(v["markers"], want["markers"]):
            assert [m["angle_deg"] for m in ms] == pytest.approx([math.degrees(a) % 360 for a in angles], abs=1e-3)
        assert v["pass"]["aim_deg"] == want["aim"] and v["pass"]["release_m"] == want["release"]
    # the ring changes over the game: passable and blocked gaps both appear, and both seats' areas
    flags = {g["passable"] for t in with_view for g in t.rules["ring"]["gaps"]}
    assert flags == {True, False}


def test_the_replay_penalties_are_the_stored_penalties_with_their_causes(recorded: dict[str, Any]) -> None:
    from sim.sun.rules.pass_view import penalties_of_pass

    rp, passes = recorded["replay"], recorded["passes"]
    with_view = [t for t in rp.turns if t.rules is not None]
    got = [[(p["stone"], p["shape"], p["cause"]) for p in t.penalties if p.get("step") == "pass"] for t in with_view]
    stored = [[(p["stone"], p["shape"], p["cause"]) for p in penalties_of_pass(row["causes"])] for row in passes]
    assert got == stored
    causes = {c for turn in got for _, _, c in turn}
    assert {"toppled", "pushed_off", "fell_from_support"} <= causes
    # the rules' verdict is also the turn's own penalty list (what the viewers colour)
    k = falling_stack_turn(rp)
    i = next(i for i, t in enumerate(with_view) if t.index == k)
    assert {(p["stone"], p["cause"]) for p in turn_at(rp, k).penalties} == {(st, c) for st, _, c in stored[i]}


def test_the_header_has_the_tables_geometry(recorded: dict[str, Any]) -> None:
    from sim.sun.sections import layout_of
    from sim.sun.game import GAME

    tb = recorded["replay"].table
    sections = {k: {o.name: o.default for o in opts} for k, opts in GAME.spec.sections.items()}
    lay = layout_of(sections)
    assert tb["ring_radius"] == lay.table.ring_radius
    assert tb["string_length"] == lay.ball.string_length
    assert tb["pivot"] == pytest.approx([0.0, 0.0, lay.ball.pivot_z])
    assert tb["ball_radius"] == lay.ball.radius
    # the string from the suspension point reaches the recorded ball in every frame it is shown
    j = recorded["replay"].index_of("ball")
    ball = recorded["replay"].pos[:, j]
    shown = np.isfinite(ball).all(axis=1)
    lengths = np.linalg.norm(ball[shown] - np.array(tb["pivot"]), axis=1)
    assert shown.sum() > 100 and np.allclose(lengths, tb["string_length"], atol=2e-3)


def test_the_release_point_is_where_the_rules_aim_names(recorded: dict[str, Any]) -> None:
    tb = recorded["replay"].table
    for t in recorded["replay"].turns:
        if t.rules is None:
            continue
        ps = t.rules["pass"]
        x, y, z = ps["release_point"]
        assert math.hypot(x, y) == pytest.approx(tb["base_radius"] + ps["release_m"], abs=1e-5)
        assert math.degrees(math.atan2(y, x)) % 360 == pytest.approx(ps["aim_deg"] % 360, abs=1e-3)
        # on the string: its distance from the suspension point is the string's length
        assert math.dist((x, y, z), tb["pivot"]) == pytest.approx(tb["string_length"], abs=1e-5)


def test_a_version_1_file_still_loads_without_the_view(tmp_path: Path, synth: Any) -> None:
    import io
    import zipfile

    path = save_replay(synth, tmp_path / "new.npz")
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    header = json.loads(arrays["header"].tobytes().decode("utf-8"))
    assert header["version"] == 2
    header["version"] = 1
    for t in header["turns"]:
        del t["rules"]
    arrays["header"] = np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    old = tmp_path / "old.npz"
    old.write_bytes(buf.getvalue())
    assert zipfile.is_zipfile(old)
    rp = load_replay(old)
    assert len(rp.turns) == 2 and all(t.rules is None for t in rp.turns)
    assert rp.turns[0].penalties[0]["cause"] == "toppled"


def test_a_malformed_view_is_refused_with_where(recorded: dict[str, Any]) -> None:
    good = recorded["replay"].turns[5].rules
    assert check_rules_view(good, "turns[5].rules") == good
    bad = json.loads(json.dumps(good))
    bad["markers"][0][0]["gap"] = 99
    with pytest.raises(ReplayError, match=r"turns\[5\]\.rules\.markers\[0\]\[0\]"):
        check_rules_view(bad, "turns[5].rules")
    bad = json.loads(json.dumps(good))
    bad["ring"]["gaps"][0]["passable"] = "yes"
    with pytest.raises(ReplayError, match="passable"):
        check_rules_view(bad, "turns[5].rules")
    bad = json.loads(json.dumps(good))
    bad["pass"]["release_point"] = [0, 0, float("nan")]
    with pytest.raises(ReplayError, match="finite"):
        check_rules_view(bad, "t")


def test_seat_colours_are_the_reports() -> None:
    from analysis.plots import SEAT_COLORS

    assert [seat_colour(s) for s in range(len(SEAT_COLORS))] == list(SEAT_COLORS)
    words = [w for _, _, w in legend({0: "careful", 1: "aggressive"})]
    assert words[0].startswith("seat 0 (careful)") and any("pushed off" in w for w in words)


def test_the_scene_draws_the_turns_view(recorded: dict[str, Any]) -> None:
    """The viewer's nodes for the falling stack's turn on a real viser scene: a gap arc per gap
    (green or red), both seats' areas and markers where the view puts them, the aim line from the
    release point, and the penalty labels with their causes."""
    from sim.sun.viewer.guard import viser_server
    from sim.sun.viewer.rules_scene import RulesNodes
    from sim.sun.viewer.viser_app import LOCALHOST, free_port

    k = falling_stack_turn(recorded["replay"])
    rp = recorded["replay"].turn_range(k, k + 1)
    server = viser_server(LOCALHOST, free_port())
    try:
        stones = {b.stone: f"/bodies/{b.key.replace(':', '_')}" for b in rp.bodies if b.stone is not None}
        for name in stones.values():
            server.scene.add_frame(name, show_axes=False)
        nodes = RulesNodes.build(server.scene, rp, stones)
        nodes.show_turn(rp.turns[0], 0)
        view = rp.turns[0].rules
        bands = {tuple(int(x) for x in h.color): h for h in nodes.turn_nodes if h.name.startswith("/rules/band_")}
        green, red, blue, orange = (0x16, 0xA3, 0x4A), (0xC8, 0x1E, 0x1E), (0x00, 0x72, 0xB2), (0xE6, 0x9F, 0x00)
        assert set(bands) == {green, red, blue, orange}
        # one band (two triangles or more) per gap of each kind, one per seat's mark area
        n_green = sum(g["passable"] for g in view["ring"]["gaps"])
        n_red = len(view["ring"]["gaps"]) - n_green
        assert 0 < n_green and 0 < n_red
        assert len(bands[green].faces) >= 2 * n_green and len(bands[red].faces) >= 2 * n_red
        for s, col in ((0, blue), (1, orange)):
            g = view["ring"]["gaps"][view["markers"][s][0]["gap"]]
            ang = np.degrees(np.arctan2(bands[col].vertices[:, 1], bands[col].vertices[:, 0])) % 360
            assert ang.min() == pytest.approx(g["start_deg"] % 360, abs=0.01)
        for s in (0, 1):
            h = nodes.markers[s][0]
            a = math.degrees(math.atan2(h.position[1], h.position[0])) % 360
            assert h.visible and a == pytest.approx(view["markers"][s][0]["angle_deg"], abs=1e-4)
        aim = np.asarray(next(h for h in nodes.turn_nodes if h.name == "/rules/aim").points)
        assert np.allclose(aim[0, 0, :2], view["pass"]["release_point"][:2], atol=1e-6)
        labels = {sid: lab.text for sid, lab in nodes.causes.items() if lab.visible}
        assert labels == label_texts(rp.turns[0]) and labels
    finally:
        server.stop()


def read_viser_recording(data: bytes) -> list[dict[str, Any]]:
    """The messages of a ``.viser`` recording (viser's scene serializer: an 8-byte size, then zstd
    of an 8-byte length, the msgpack messages and their binary buffers)."""
    import msgspec
    import zstandard

    inner = zstandard.ZstdDecompressor().decompress(data[8:], max_output_size=int.from_bytes(data[:8], "little"))
    n = int.from_bytes(inner[:8], "little")
    return [m for _, m in msgspec.msgpack.decode(inner[8:8 + n])["messages"]]


def _check_export_has_the_rules_view(folder: Path, labels: set[str], seats: int = 2) -> None:
    msgs = read_viser_recording((folder / "replay.viser").read_bytes())
    names = {(m.get("type"), m.get("name")) for m in msgs}
    for s in range(seats):
        assert ("FrameMessage", f"/rules/marker_{s}_0") in names
    assert any(t == "MeshMessage" and n.startswith("/rules/band_") for t, n in names)
    assert ("LineSegmentsMessage", "/rules/aim") in names and ("IcosphereMessage", "/rules/release") in names
    texts = {m["updates"]["text"] for m in msgs if m.get("type") == "SceneNodeUpdateMessage"
             and str(m.get("name", "")).endswith("/cause") and "text" in m.get("updates", {})}
    assert labels <= texts and labels
    # the string is drawn from the suspension point while the ball swings
    assert any(m.get("name") == "/bodies/string" and "points" in m.get("updates", {}) for m in msgs)
    for page in ("index.html", "standalone.html"):
        html = (folder / page).read_text(encoding="utf-8")
        assert "stonelab-legend" in html and "What the rules see" in html and "gap the ball cannot pass" in html


def test_the_static_export_contains_the_rules_view(recorded: dict[str, Any], tmp_path: Path) -> None:
    from sim.sun.viewer.viser_app import export_static

    k = falling_stack_turn(recorded["replay"])
    rp = recorded["replay"].turn_range(k - 1, k + 1)
    _check_export_has_the_rules_view(export_static(rp, tmp_path / "export"), set(label_texts(turn_at(rp, k)).values()))


def test_a_replay_without_the_view_says_so(tmp_path: Path, synth: Any) -> None:
    from sim.sun.viewer.rules_scene import legend_html
    from sim.sun.viewer.viser_app import export_static

    synth.meta["players"] = ["<b>x</b>"]
    html = legend_html(synth)
    assert "does not carry the rules' view" in html and "<b>x</b>" not in html
    exp = export_static(synth, tmp_path / "e")
    msgs = read_viser_recording((exp / "replay.viser").read_bytes())
    assert not any(str(m.get("name", "")).startswith("/rules") for m in msgs)
    assert "does not carry the rules" in (exp / "standalone.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_runs_replay_and_viewer_carry_the_rules_view(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``stonelab run``: its store is as before (no view in it), yet its replay and static viewer
    have the rules' view, got by playing game 0 again and checked against the frames it kept; the
    penalties are the stored ones. Kept frames this machine does not reproduce give no view, and
    the replay says why."""
    import shutil
    import sqlite3

    from sim.cli import main
    from sim.sun.viewer.replay import load_any
    from sim.sun.rules.pass_view import penalties_of_pass

    run = tmp_path / "run"
    assert main(["run", str(SCENARIO), "--games", "1", "--backend", "serial", "--out", str(run), "--no-report"]) == 0
    capsys.readouterr()
    rep = load_replay(run / "replays" / "game-0.npz")
    with sqlite3.connect(run / "results.sqlite") as con:
        stored = [r[0] for r in con.execute("SELECT causes FROM sun_passes WHERE game_index = 0 ORDER BY turn")]
        kinds = {r[0] for r in con.execute("SELECT DISTINCT kind FROM sun_frames")}
    assert kinds == {"place", "pass"}  # the store keeps the physics calls only
    with_view = [t for t in rep.turns if t.rules is not None]
    assert len(with_view) == len(stored) > 20
    assert [[(p["stone"], p["cause"]) for p in t.penalties if p["step"] == "pass"] for t in with_view] == \
        [[(p["stone"], p["cause"]) for p in penalties_of_pass(c)] for c in stored]
    _check_export_has_the_rules_view(run / "replays" / "viewer", set(label_texts(turn_at(rep, falling_stack_turn(rep))).values()))

    bad = tmp_path / "bad"
    shutil.copytree(run, bad)
    with sqlite3.connect(bad / "results.sqlite") as con:  # as if another machine had kept other bits
        con.execute("UPDATE sun_frames SET data = replace(data, '\"rate_hz\":30.0', '\"rate_hz\":30.5') "
                    "WHERE call = (SELECT MAX(call) FROM sun_frames)")
    other = load_any(bad)
    assert all(t.rules is None for t in other.turns) and "other frames than the run kept" in other.meta["rules_view_note"]


def test_the_live_viewer_shows_the_view_the_legend_and_the_words(recorded: dict[str, Any]) -> None:
    from sim.sun.viewer.viser_app import start_viewer

    k = falling_stack_turn(recorded["replay"])
    rp = recorded["replay"].turn_range(k - 1, k + 1)
    v = start_viewer(rp, port=0)
    try:
        v.seek(float(rp.times[rp.turns[1].frames[0]]) + 0.3)
        assert v.nodes.rules is not None and v.nodes.rules.shown == k
        assert all(h.visible for h in (v.nodes.rules.markers[0][0], v.nodes.rules.markers[1][0]))
        assert "What the rules see" in v.legend.content and "seat 1 (aggressive" in v.legend.content
        md = v.event_md.content
        assert f"seat {rp.turns[1].seat} (to pass)" in md and "mark area" in md and "fell from its support" in md
    finally:
        v.close()
