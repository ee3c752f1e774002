"""The calibration's documented figures, computed: ``python -m sim.sun.players.calib_figures --check`` or
``--write``.

docs/playtest-log.md and docs/sun-physics.md ("What the presets imply") state figures that the
physics produces: where passes through a two-gap ring start losing stones, the chance of a lost
stone per skill level, the physics passes an outcome table takes, and the fit of the sample log
(``scenarios/sun/playtest-sample.csv``, itself written by ``python -m sim.sun.players.playtest_log
--write-sample``). Each such passage sits between ``<!-- figures:NAME -->`` and
``<!-- /figures:NAME -->`` markers; this module renders every passage from a fresh computation.
``--write`` rewrites the passages (and the sample log), ``--check`` exits 1 naming each passage
that differs, so a physics change that moves a figure fails ``tests/sun/test_sun_calibration_docs.py``
until the docs are regenerated.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from sim.core import mathpath
from sim.core.outputs import write_atomically
from sim.sun.players.calib_physics import DIRECTIONS, N_CRN, SMOOTH_MM, STEP_MM, STOP_MM
from sim.sun.players.calibrate import PassModel, fit, outcome_table, push_gain_s
from sim.sun.players.playtest_log import SAMPLE_CALL, SAMPLE_PATH, read_log, sample_log_text
from sim.sun.players.playtest_log import main as sample_main
from sim.sun.players.thrower import skill
from sim.sun.table.layout import Layout

ROOT = Path(__file__).resolve().parents[3]
DOCS = {"playtest": ROOT / "docs" / "playtest-log.md", "physics": ROOT / "docs" / "sun-physics.md"}
#: Widths (mm) of the presets table.
WIDTHS_MM = (42.0, 50.0, 60.0, 80.0)
LEVELS = ("expert", "steady", "casual", "child")
_BLOCK = re.compile(r"^(?P<indent>[ ]*)(?P<open><!-- figures:(?P<name>[a-z-]+) -->\n)(?P<body>.*?)"
                    r"^(?P=indent)(?P<close><!-- /figures:(?P=name) -->)", re.S | re.M)


def _pct(p: float) -> str:
    """A share as the docs write it: two significant figures, at most one decimal."""
    v = 100.0 * p
    if v < 0.05:
        return "0 %"
    return f"{v:.1f} %" if v < 10 else f"{v:.0f} %"


def _mm(values: Sequence[float]) -> str:
    return " / ".join(f"{v:.1f}" for v in values)


def compute() -> tuple[dict[str, str], Any]:
    """Every documented passage, by name, from fresh physics (outcome tables for ``WIDTHS_MM``,
    the sample log and its fit), and the sample's :class:`~sim.sun.players.calibrate.FitResult`. About
    2,000 physics passes."""
    lay = Layout()
    tabs = {w: outcome_table(w, lay) for w in WIDTHS_MM}
    model = PassModel(tabs, lay.table.ring_radius, push_gain_s(lay))
    first = {w: t.first_loss_mm() for w, t in tabs.items()}
    steady = {w: t.steady_loss_mm() for w, t in tabs.items()}
    ball_mm = lay.ball.diameter * 1000.0
    ws = " / ".join(f"{w:g}" for w in WIDTHS_MM)
    out: dict[str, str] = {}
    rows = ["| level | " + " | ".join(f"{w:g} mm" for w in WIDTHS_MM) + " |",
            "| --- |" + " --- |" * len(WIDTHS_MM)]
    for lv in LEVELS:
        th = skill(lv)
        lost = [1.0 - model.probabilities(w, 0.0, th.sigma_aim_deg, th.sigma_push_mps)[0] for w in WIDTHS_MM]
        rows.append(f"| {lv} | " + " | ".join(_pct(p) for p in lost) + " |")
    out["presets"] = (
        f"With two opposite gaps (16 blocks, `calibrate.two_gap_layout`), passes were run along {DIRECTIONS}\n"
        f"directions of the (aim, push) error plane, every {STEP_MM:g} mm of sideways miss at the ring\n"
        f"(`calib_physics.outcome_table`). For gaps of {ws} mm the first lost stone comes at\n"
        f"a median miss of {_mm([float(np.median(first[w])) for w in WIDTHS_MM])} mm (minimum "
        f"{_mm([float(np.min(first[w])) for w in WIDTHS_MM])} mm), and\n"
        f"every pass loses a stone from a median of {_mm([float(np.median(steady[w])) for w in WIDTHS_MM])} mm on "
        "(maximum\n"
        f"{_mm([float(np.max(steady[w])) for w in WIDTHS_MM])} mm); between the two, lost and clean passes "
        "alternate along some directions\n"
        "(the loss is not monotone in the miss). The geometric clearance\n"
        f"is {_mm([(w - ball_mm) / 2 for w in WIDTHS_MM])} mm. The fit's model then gives the chance of "
        f"losing a stone per pass\n(`PassModel.probabilities`, {N_CRN} common random numbers):\n\n"
        + "\n".join(rows) + "\n")
    n_pass = {w: tabs[w].passes for w in WIDTHS_MM}
    out["table-cost"] = (
        f"That is {' / '.join(str(n_pass[w]) for w in WIDTHS_MM)} physics passes for widths of {ws} mm\n"
        f"(rays of {DIRECTIONS} directions, every {STEP_MM:g} mm, each until {STOP_MM:g} mm of misses have\n"
        f"all lost a stone; kernel width {SMOOTH_MM:g} mm). The sideways push drifts the ball\n"
        f"{push_gain_s(lay):.3f} s x push at the ring at the default geometry.\n")
    log = read_log(SAMPLE_PATH)
    res = fit(log, skill(SAMPLE_CALL.skill), "scale", lay, tables=tabs)
    sc = next(e for e in res.estimates if e.name == "scale")
    used = sum(tabs[w].passes for w in {p.width_mm for p in log.passes})
    n_lost = sum(p.outcome != "clean" for p in log.passes)
    out["sample"] = (
        f"- The sample log: {len(log.passes)} passes ({n_lost} lost a stone), {len(log.places)} placements; "
        "`stonelab sun calibrate\n"
        f"  scenarios/sun/playtest-sample.csv` gives scale {_value(sc)} x casual [{sc.low:.2f}, {sc.high:.2f}] "
        "(generated from\n"
        f"  exactly casual), Pearson p = {_p(res.gof_p)}, likelihood ratio of freeing aim and push "
        f"p = {_p(res.ratio_p)};\n"
        f"  {used} physics passes for its tables.\n")
    return out, res


def _value(e: Any) -> str:
    return f"{e.value:.2f}" if e.identifiable else e.shown()


def _p(v: Any) -> str:
    return "n/a" if v is None else f"{v:.2f}"


def render(text: str, passages: dict[str, str]) -> tuple[str, list[str]]:
    """``text`` with each marked passage replaced by ``passages[name]``; also the names that changed."""
    changed: list[str] = []

    def sub(m: re.Match[str]) -> str:
        name, ind = m.group("name"), m.group("indent")
        if name not in passages:
            return m.group(0)
        # a passage inside a list item takes the markers' indentation
        body = "".join(ind + ln if ln.strip() else ln for ln in passages[name].splitlines(keepends=True))
        if m.group("body") != body:
            changed.append(name)
        return ind + m.group("open") + body + ind + m.group("close")

    return _BLOCK.sub(sub, text), changed


def check(passages: dict[str, str] | None = None) -> list[str]:
    """Passages (``file: name``) whose text differs from the computation, and a stale sample log."""
    stale = [] if SAMPLE_PATH.read_text(encoding="utf-8") == sample_log_text() else [f"{SAMPLE_PATH.name}: the log"]
    passages = compute()[0] if passages is None else passages
    found: set[str] = set()
    for doc in DOCS.values():
        text = doc.read_text(encoding="utf-8")
        found |= {m.group("name") for m in _BLOCK.finditer(text)}
        stale += [f"{doc.name}: {n}" for n in render(text, passages)[1]]
    stale += [f"no passage marked {n!r} in the docs" for n in sorted(set(passages) - found)]
    return stale


def main(argv: Sequence[str] | None = None) -> int:
    """``--check`` (exit 1 if a documented figure is stale) or ``--write`` (regenerate them)."""
    if argv is None:
        # the command line: the pinned maths code path first, as stonelab takes it, so that the file
        # written or checked is the same on any x86-64 CPU (sim/core/mathpath.py, docs/reproducibility.md)
        mathpath.pin()
    args = list(sys.argv[1:] if argv is None else argv)
    if args not in (["--check"], ["--write"]):
        print("usage: python -m sim.sun.players.calib_figures --check | --write", file=sys.stderr)
        return 2
    if args == ["--write"]:
        sample_main(["--write-sample"])  # the sample first: the passages fit it
        passages = compute()[0]
        for doc in DOCS.values():
            new, changed = render(doc.read_text(encoding="utf-8"), passages)

            def put(tmp: Path, text: str = new) -> None:
                tmp.write_text(text, encoding="utf-8")

            write_atomically(doc, put)
            print(f"{doc.name}: {', '.join(changed) or 'unchanged'}")
        return 0
    stale = check()
    for s in stale:
        print(f"stale: {s}; run `python -m sim.sun.players.calib_figures --write`", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
