"""``stonelab sun pass`` and ``stonelab stability`` through typer's CliRunner; the bench entry point."""

from __future__ import annotations

import json
import re
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
    # every step announced, and the sweep's progress from 0 % (it once started at 39 %)
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
    # where a game's time goes (seconds per game): every part measured, none negative
    split = ("game_stepping_s", "game_build_s", "game_table_other_s", "game_rules_s", "game_agents_s")
    assert set(split) <= set(metrics)
    assert all(metrics[k]["value"] >= 0.0 for k in split)
    assert metrics["game_stepping_s"]["value"] > 0.0 and metrics["game_agents_s"]["value"] > 0.0
    # the games in CPU seconds too (what a loaded machine does not inflate)
    assert metrics["game_cpu_s"]["unit"] == "s" and metrics["game_cpu_s"]["value"] > 0.0


def _figures(monkeypatch: pytest.MonkeyPatch) -> list:
    """Figures saved while the test runs (matplotlib's savefig, kept open to read back)."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    saved: list = []
    real = Figure.savefig

    def keep(self, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        saved.append(self)
        return real(self, *a, **k)

    monkeypatch.setattr(Figure, "savefig", keep)
    return saved


def test_sun_show_numbers_every_stone_the_table_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`stonelab stability` named 'stone 13 (slab, ...)', a lintel `sun show` left unnumbered."""
    from sim.sun.table.layout import load_layout
    from sim.sun.table.sun_table import SunTable
    from sim.sun.viewer.layout_plot import plot_layout

    lay = load_layout(LAYOUTS / "gates.toml")
    figs = _figures(monkeypatch)
    plot_layout(lay, tmp_path / "g.png")
    texts = {t.get_text() for ax in figs[0].axes for t in ax.texts}
    with SunTable.from_layout(lay) as t:
        ids = [s.id for s in t.snapshot().stones]
    assert len(ids) == len(lay.stones) + len(lay.gates)
    for i in ids:
        assert str(i) in texts or f"x2\n({i})" in texts, i


def test_stability_plot_uses_the_one_stone_palette(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The aim-sweep plot drew pillars brown and blocks grey; `sun show` and the viewer the reverse."""
    from matplotlib.colors import to_hex

    from sim.sun.table.layout import load_layout
    from sim.sun.table.stability import plot_sweep
    from sim.sun.viewer.replay.records import SHAPE_COLOURS  # what the viewer and `sun show` use

    lay = load_layout(LAYOUTS / "gates.toml")
    sweep = {"step_deg": 90.0, "aims": [{"aim_deg": a, "expected_penalties": 0.5, "p_clean": 0.5} for a in (0, 90)]}
    figs = _figures(monkeypatch)
    plot_sweep(lay, sweep, tmp_path / "s.png")
    marks = {to_hex(ln.get_color()) for ax in figs[0].axes for ln in ax.lines if ln.get_marker() == "s"}
    assert marks == {SHAPE_COLOURS[s.shape] for s in lay.stones}
    legend = {t.get_text() for lg in figs[0].legends for t in lg.get_texts()}
    assert {s.shape for s in lay.stones} <= legend


def test_stability_text_explains_its_columns_and_units(tmp_path: Path) -> None:
    host = typer.Typer()
    host.command("stability")(stability)
    host.command("noop")(lambda: None)
    r = runner.invoke(host, ["stability", str(LAYOUTS / "gates.toml"), "--trials", "1", "--step", "90"],
                      env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "stones lost per pass" in out and "E[penalties]" not in out and "┃    E ┃" not in out
    assert "stones lost per pass: the mean number of penalties" in out
    assert re.search(r"bump: .* \d+ mm/s towards", out)
    # the howto gives the kick in the unit the screen prints
    howto = (Path(__file__).parents[2] / "docs" / "howto.md").read_text(encoding="utf-8")
    assert "fall (m/s" not in howto and "mm/s" in howto.split("## Edit a layout")[0]
