"""The replay file: round trip, validation of truncated/foreign/inconsistent files, converters."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from sim.cli import main
from sim.core.errors import InputError, ReplayError
from sim.sun.viewer.replay import (FORMAT, Replay, ReplayBuilder, concat_replays, from_game_record, from_pose_recording,
                               load_any, load_replay, save_replay, synthetic_replay)


def test_round_trip_keeps_everything(tmp_path: Path, synth: Replay) -> None:
    p = save_replay(synth, tmp_path / "a.npz")
    r = load_replay(p)
    assert r.n_frames == synth.n_frames
    assert [b.as_dict() for b in r.bodies] == [b.as_dict() for b in synth.bodies]
    np.testing.assert_array_equal(r.times, synth.times)
    np.testing.assert_array_equal(r.pos, synth.pos)  # NaN where absent, equal elsewhere
    np.testing.assert_array_equal(r.quat, synth.quat)
    assert [t.as_dict() for t in r.turns] == [t.as_dict() for t in synth.turns]
    assert r.turns[0].penalty_stones == {0}
    assert r.table["pivot"] == synth.table["pivot"]


def test_arrays_are_float32_and_absent_bodies_nan(synth: Replay) -> None:
    assert synth.pos.dtype == np.float32 and synth.quat.dtype == np.float32
    vis = synth.visible()
    k = synth.turns[1].frames[0]
    assert vis[: synth.turns[0].frames[1], 0].all()  # stone 0 there in turn 1
    assert not vis[k:, 0].any()  # ... and gone (a penalty) in turn 2


def test_downsample_keeps_turn_bounds_and_rate(synth: Replay) -> None:
    d = synth.downsample(10.0)
    assert d.n_frames < synth.n_frames
    for tr in d.turns:  # within a turn (not across the pause between turns); one source frame of slack
        assert np.diff(d.times[tr.frames[0]:tr.frames[1]]).max() <= 0.1 + 0.034
    for a, b in zip(synth.turns, d.turns):
        assert d.times[b.frames[0]] == synth.times[a.frames[0]]
        assert d.times[b.frames[1] - 1] == synth.times[a.frames[1] - 1]
    d.validate()


def test_frame_and_turn_lookup(synth: Replay) -> None:
    t1 = synth.turns[1]
    start = float(synth.times[t1.frames[0]])
    assert synth.frame_at(start) == t1.frames[0]
    assert synth.frame_at(-5.0) == 0 and synth.frame_at(1e9) == synth.n_frames - 1
    assert synth.turn_at(t1.frames[0]) is t1
    # the gap between turns belongs to the turn before it
    assert synth.frame_at(start - 0.2) == t1.frames[0] - 1


def _write_npz(path: Path, header: object, **arrays: np.ndarray) -> Path:
    hb = json.dumps(header).encode() if not isinstance(header, bytes) else header
    buf = io.BytesIO()
    np.savez_compressed(buf, header=np.frombuffer(hb, dtype=np.uint8), **arrays)
    path.write_bytes(buf.getvalue())
    return path


def test_truncated_file_is_a_replay_error(tmp_path: Path, synth: Replay) -> None:
    data = save_replay(synth, tmp_path / "a.npz").read_bytes()
    for n in (0, 10, len(data) // 2, len(data) - 30):
        p = tmp_path / f"t{n}.npz"
        p.write_bytes(data[:n])
        with pytest.raises(ReplayError):
            load_replay(p)


def test_foreign_files_are_replay_errors(tmp_path: Path, synth: Replay) -> None:
    (tmp_path / "text.npz").write_text("hello")
    with pytest.raises(ReplayError, match="not an .npz"):
        load_replay(tmp_path / "text.npz")
    buf = io.BytesIO()
    np.savez(buf, x=np.arange(3))
    (tmp_path / "other.npz").write_bytes(buf.getvalue())
    with pytest.raises(ReplayError, match="missing"):
        load_replay(tmp_path / "other.npz")
    h = synth.header()
    arrays = dict(times=synth.times, pos=synth.pos, quat=synth.quat)
    with pytest.raises(ReplayError, match="format"):
        load_replay(_write_npz(tmp_path / "f.npz", {**h, "format": "something.else"}, **arrays))
    with pytest.raises(ReplayError, match="newer"):
        load_replay(_write_npz(tmp_path / "v.npz", {**h, "version": 99}, **arrays))
    with pytest.raises(ReplayError, match="JSON"):
        load_replay(_write_npz(tmp_path / "j.npz", b"\xff{not json", **arrays))
    with pytest.raises(ReplayError):
        load_replay(tmp_path / "missing.npz")


@pytest.mark.parametrize("breakage, match", [
    ("short_pos", "frame counts|shape"),
    ("half_nan", "some coordinates NaN"),
    ("bad_quat", "unit quaternions"),
    ("time_back", "non-decreasing"),
    ("turn_range", "frame range"),
    ("float64", "float32"),
    ("body_size", "positive"),
])
def test_inconsistent_contents_are_named(tmp_path: Path, synth: Replay, breakage: str, match: str) -> None:
    h = synth.header()
    times, pos, quat = synth.times.copy(), synth.pos.copy(), synth.quat.copy()
    if breakage == "short_pos":
        pos = pos[:-1]
    elif breakage == "half_nan":
        pos[3, 1, 0] = np.nan
    elif breakage == "bad_quat":
        quat[2, 1] = [0, 0, 0, 2.0]
    elif breakage == "time_back":
        times[5] = times[4] - 1
    elif breakage == "turn_range":
        h["turns"][0]["frames"] = [0, synth.n_frames + 5]
    elif breakage == "float64":
        pos = pos.astype(np.float64)
    elif breakage == "body_size":
        h["bodies"][0]["size"] = [0.01, -1, 0.02]
    with pytest.raises(ReplayError, match=match):
        load_replay(_write_npz(tmp_path / "x.npz", h, times=times, pos=pos, quat=quat))


def test_cli_exits_2_on_bad_files(tmp_path: Path, synth: Replay, capsys: pytest.CaptureFixture[str]) -> None:
    data = save_replay(synth, tmp_path / "a.npz").read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) // 3])
    (tmp_path / "foreign.json").write_text('{"format": "nope"}')
    for name in ("cut.npz", "foreign.json", "absent.npz"):
        assert main(["replay", "info", str(tmp_path / name)]) == 2
        assert "error:" in capsys.readouterr().err
    assert main(["replay", "info", str(tmp_path / "a.npz")]) == 0
    assert "2 turns" in capsys.readouterr().out
    assert main(["replay", "view", str(tmp_path / "a.npz"), "--viewer", "vr"]) == 2
    assert main(["replay", "video", str(tmp_path / "a.npz"), "--out", str(tmp_path / "v.avi")]) == 2


def test_turn_markdown_says_who_stood_what_where(synth: Replay) -> None:
    md = synth.turns[0].markdown()
    assert "seat 0" in md and "stood a block" in md and "337.5°" in md
    assert "stone 0 (block, toppled)" in md
    assert "no penalty" in synth.turns[1].markdown()


# --- converters from the table's recordings --------------------------------------------------


def test_from_pose_recording_of_a_real_pass(real_pass_recording: dict, tmp_path: Path) -> None:
    rec = real_pass_recording
    r = from_pose_recording(rec)
    stones = [b for b in r.bodies if b.kind == "stone"]
    assert len(stones) == sum(1 for b in rec["bodies"] if b["kind"] == "stone")
    # sizes are the table's (full extents = 2 x half extents), per shape
    for b, src in zip(stones, [b for b in rec["bodies"] if b["kind"] == "stone"]):
        assert b.size == pytest.approx([2 * x for x in src["half_extents"]])
    ball = r.bodies[r.index_of("ball")]
    assert r.table["pivot"][2] > 1.0 and ball.size[0] == pytest.approx(2 * r.table["ball_radius"])
    t = r.turns[0]
    assert t.aim_deg == pytest.approx(10.0)
    pens = [e for e in rec["events"] if e["type"] == "penalty"]
    assert {p["stone"] for p in t.penalties} == {e["stone"] for e in pens}
    assert len(pens) > 0  # aimed into the full ring: something falls (else this test proves little)
    # the ball swings: it moves, and the string length stays the recorded one
    vis = r.visible()[:, r.index_of("ball")]
    bp = r.pos[vis, r.index_of("ball")]
    assert np.ptp(bp[:, 0]) + np.ptp(bp[:, 1]) > 0.2
    L = np.linalg.norm(bp - np.array(r.table["pivot"]), axis=1)
    assert np.ptp(L) < 1e-3
    small = save_replay(r, tmp_path / "p.npz", fps=30)
    assert small.stat().st_size < 200_000
    assert load_any(small).n_frames < r.n_frames


def test_pose_recording_json_loads_directly(tmp_path: Path, real_pass_recording: dict) -> None:
    p = tmp_path / "rec.json"
    p.write_text(json.dumps(real_pass_recording))
    assert load_any(p).n_frames == len(real_pass_recording["frames"])
    bad = dict(real_pass_recording, version=42)
    p.write_text(json.dumps(bad))
    with pytest.raises(ReplayError, match="version"):
        load_any(p)


def test_builder_lays_passes_end_to_end(real_pass_recording: dict) -> None:
    b = ReplayBuilder(gap_s=0.5, meta={"game": "sun"})
    b.add_pass(real_pass_recording, seat=0, player="careful",
               placements=[{"action": "stand", "shape": "block", "stone": 5, "angle_deg": 40.0}])
    b.add_pass(real_pass_recording, seat=1)
    r = b.build()
    n = len(real_pass_recording["frames"])
    assert r.n_frames == 2 * n and [t.frames for t in r.turns] == [(0, n), (n, 2 * n)]
    assert r.times[n] == pytest.approx(r.times[n - 1] + 0.5)
    assert [t.seat for t in r.turns] == [0, 1] and r.meta["game"] == "sun"
    with pytest.raises(ReplayError):
        ReplayBuilder().build()


def test_game_record_groups_calls_into_turns(real_pass_recording: dict) -> None:
    still = {"format": "stonelab.sun.poses", "version": 1, "rate_hz": 60.0,
             "bodies": [b for b in real_pass_recording["bodies"] if b["kind"] == "stone"],
             "events": [{"t": 0.5, "type": "placed", "stone": 3, "standing": True, "cause": None}],
             "frames": [[0.5, [row for row in real_pass_recording["frames"][0][1][:-1]]]]}
    calls = [{"turn": 0, "seat": 0, "kind": "place", "data": still},
             {"turn": 0, "seat": 0, "kind": "pass", "data": json.dumps(real_pass_recording)},
             {"turn": 1, "seat": 1, "kind": "pass", "data": real_pass_recording}]
    r = from_game_record({"game": "sun", "seed": 3, "calls": calls})
    assert len(r.turns) == 2 and r.meta["seed"] == 3
    pl = r.turns[0].placements
    assert pl[0]["stone"] == 3 and pl[0]["action"] == "stand" and not pl[0]["fell"]
    assert r.turns[0].aim_deg == pytest.approx(10.0)
    with pytest.raises(ReplayError):
        from_game_record({"calls": []})


def test_concat_merges_bodies_by_key(synth: Replay) -> None:
    a = synthetic_replay(n_stones=3, seconds=1.0, turns=1)
    b = synthetic_replay(n_stones=5, seconds=1.0, turns=1)
    r = concat_replays([a, b])
    assert len(r.bodies) == 6  # 5 stones + ball
    # stones 3 and 4 are absent during the first part
    assert not r.visible()[: a.n_frames, r.index_of("stone:4")].any()
    assert r.visible()[a.n_frames:, r.index_of("stone:4")].all()


def test_replay_error_is_input_error() -> None:
    assert issubclass(ReplayError, InputError) and FORMAT == "stonelab.replay"
    with pytest.raises(ReplayError):
        synthetic_replay().downsample(0)


@pytest.mark.slow
def test_run_store_gives_kept_frames_or_resimulates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(__file__).resolve().parents[2]
    run = tmp_path / "run"
    assert main(["run", str(root / "scenarios" / "sun" / "classic-2p.toml"), "--games", "2", "--backend", "serial",
                 "--out", str(run), "--no-report"]) == 0
    kept = load_any(run)  # [record] frames = "first": game 0's frames are in the store
    assert kept.meta["game_index"] == 0 and not kept.meta.get("resimulated")
    assert len(kept.turns) >= 2 and any(t.placements for t in kept.turns)
    again = load_any(run, game_index=0)
    np.testing.assert_array_equal(kept.pos, again.pos)
    other = load_any(run / "results.sqlite", game_index=1)  # not kept: re-simulated from its seed
    assert other.meta["resimulated"] and other.n_frames > 10
    with pytest.raises(ReplayError, match="no game 9"):
        load_any(run, game_index=9)
    capsys.readouterr()
    assert main(["replay", "info", str(run), "--game", "-1"]) == 2
