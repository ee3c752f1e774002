"""``stonelab sun pass`` and ``stonelab stability`` through typer's CliRunner; the bench entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from sim.sun.cli import app, stability

LAYOUTS = Path(__file__).resolve().parents[2] / "scenarios" / "sun" / "layouts"
runner = CliRunner()


def _stdout_json(result) -> dict:  # noqa: ANN001
    return json.loads(result.stdout)


def test_pass_json_has_the_promised_keys() -> None:
    r = runner.invoke(app, ["pass", str(LAYOUTS / "even-ring.toml"), "--aim", "22.5", "--json"])
    assert r.exit_code == 0, r.output
    d = _stdout_json(r)
    for k in ("penalties", "through_aim_gap", "reached_far_side", "invalid", "sim_time_s", "steps", "wall_s"):
        assert k in d
    assert d["penalties"] and set(d["penalties"][0]) == {"stone", "shape", "cause"}
    assert d["penalties"][0]["cause"] in ("toppled", "pushed_off", "fell_from_support")


def test_pass_records_and_prints_text(tmp_path: Path) -> None:
    rec = tmp_path / "poses.json"
    r = runner.invoke(app, ["pass", str(LAYOUTS / "full-32.toml"), "--aim", "0", "--skill", "expert",
                            "--seed", "2", "--record", str(rec)])
    assert r.exit_code == 0, r.output
    assert "steps" in r.stdout and rec.exists()
    assert json.loads(rec.read_text())["frames"]


@pytest.mark.parametrize("args,needle", [
    (["--aim", "0", "--skill", "pro"], "unknown skill"),
    (["--aim", "0", "--release", "0.05"], "hand span"),
    (["--aim", "0", "--preset", "turbo"], "preset"),
])
def test_bad_input_exits_2_with_a_message(args: list[str], needle: str) -> None:
    r = runner.invoke(app, ["pass", str(LAYOUTS / "even-ring.toml"), *args])
    assert r.exit_code == 2
    assert needle in r.stderr


def test_bad_layout_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[stones]]\nshape = "menhir"\nangle = 0\n', encoding="utf-8")
    r = runner.invoke(app, ["pass", str(bad), "--aim", "0"])
    assert r.exit_code == 2 and "stones[0].shape" in r.stderr


def test_stability_mounts_and_reports_all_three_tests(tmp_path: Path) -> None:
    host = typer.Typer()
    host.command("stability")(stability)
    host.command("noop")(lambda: None)  # a second command keeps typer from collapsing the group
    r = runner.invoke(host, ["stability", str(LAYOUTS / "even-ring.toml"), "--trials", "2", "--step", "45",
                             "--seed", "1", "--json", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    d = _stdout_json(r)
    assert d["settle"]["max_drift_mm"] < 0.2
    assert d["bump"]["min_kick_mps"] is not None and 0.0 < d["bump"]["min_kick_mps"] < 1.0
    aims = d["sweep"]["aims"]
    assert len(aims) == 8 and all(0.0 <= a["p_clean"] <= 1.0 for a in aims)
    assert aims[0]["p_clean"] == 1.0  # through the middle of a wide gap
    assert Path(d["plot"]).exists() and Path(d["plot"]).suffix == ".png"
    # every step announced, and the sweep's progress from 0 % (issue 21: it started at 39 %)
    lines = r.stderr.splitlines()
    assert lines[:2] == ["stability: settle test (10 s simulated)...", "stability: bump test (8 directions)..."]
    sweep = [ln for ln in lines if ln.startswith("aim sweep: ")]
    assert sweep[0].startswith("aim sweep: 0/16 passes (0 %)") and sweep[-1].startswith("aim sweep: 16/16 passes (100 %)")
    r2 = runner.invoke(host, ["stability", str(LAYOUTS / "even-ring.toml"), "--trials", "0"])
    assert r2.exit_code == 2


@pytest.mark.slow
def test_bench_returns_the_three_metrics() -> None:
    from sim.sun.bench import benchmarks

    rows = benchmarks(quick=True)
    metrics = {r["metric"]: r for r in rows}
    assert {"pass_clean_ms", "pass_hit_ms", "pass_overhead_ratio"} <= set(metrics)
    assert all(r["game"] == "sun" and isinstance(r["value"], float) for r in rows)
    assert metrics["pass_hit_ms"]["value"] > metrics["pass_clean_ms"]["value"]
