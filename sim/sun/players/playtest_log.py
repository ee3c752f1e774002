"""Playtest logs of *Stonehenge and the Sun* (the CSV of docs/playtest-log.md): the records,
:func:`read_log`, which validates every line, and :func:`simulate_log`, which writes a log from a
known thrower through the physics (the sample file: ``python -m sim.sun.players.playtest_log --write-sample``).
The fit that reads them is :mod:`sim.sun.players.calibrate`.
"""

from __future__ import annotations

import csv
import io
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from sim.core import mathpath
from sim.core.errors import InputError, allowed
from sim.core.files import check_input_file
from sim.core.outputs import write_atomically
from sim.sun.players.calib_physics import WIDTH_RANGE_MM, outcome_of, two_gap_layout
from sim.sun.players.thrower import Thrower, skill
from sim.sun.table.layout import Layout
from sim.sun.table.sun_table import SunTable

#: Outcome classes of a pass, in the order used by arrays.
OUTCOMES = ("clean", "knocked", "pushed_off")

PASS_COLUMNS = ("width_mm", "clearance_mm", "aim_offset_mm", "outcome")
PLACE_COLUMNS = ("intended_x_mm", "intended_y_mm", "actual_x_mm", "actual_y_mm", "intended_yaw_deg",
                 "actual_yaw_deg")
ALL_COLUMNS = ("kind",) + PASS_COLUMNS + PLACE_COLUMNS

@dataclass(frozen=True)
class PassRecord:
    """One logged pass: gap width (mm), intended aim offset from the gap middle at the ring (mm),
    outcome (one of :data:`OUTCOMES`), and the line of the file it came from."""

    width_mm: float
    aim_offset_mm: float
    outcome: str
    line: int = 0


@dataclass(frozen=True)
class PlaceRecord:
    """One logged placement: position error (mm, table frame) and yaw error (degrees, or ``None``)."""

    dx_mm: float
    dy_mm: float
    dyaw_deg: float | None
    line: int = 0


@dataclass
class PlaytestLog:
    """A validated playtest log."""

    source: str
    passes: list[PassRecord] = field(default_factory=list)
    places: list[PlaceRecord] = field(default_factory=list)


def _num(raw: str, src: str, line: int, col: str, lo: float = -math.inf, hi: float = math.inf) -> float:
    try:
        v = float(raw)
    except ValueError:
        raise InputError(f"line {line}, column '{col}': must be a number, not {raw!r}", source=src) from None
    if not math.isfinite(v):
        raise InputError(f"line {line}, column '{col}': must be a finite number, not {raw!r}", source=src)
    if not lo <= v <= hi:
        raise InputError(f"line {line}, column '{col}': must be from {lo:g} to {hi:g}, not {raw}", source=src)
    return v


def read_log(path: str | Path, ball_diameter_mm: float = 35.0) -> PlaytestLog:
    """Read and validate a playtest log (docs/playtest-log.md).

    Args:
        path: the CSV file; lines starting with ``#`` are comments.
        ball_diameter_mm: turns ``clearance_mm`` (room beside the ball) into a width.

    Raises:
        InputError: naming the file, line and column: missing file, empty file, no header,
            unknown or missing columns, unknown kind or outcome, non-numeric, negative or
            out-of-range values, disagreeing width and clearance.
    """
    src = str(path)
    # a FIFO, a socket or a device would block the read (or never end): refused before opening
    p = check_input_file(path, "playtest log", hint="a CSV file, docs/playtest-log.md")
    try:
        # utf-8-sig: a spreadsheet's "CSV UTF-8" starts with a byte-order mark, which is not a column
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("not a UTF-8 text file; a playtest log is CSV (docs/playtest-log.md)", source=src) from None
    except OSError as exc:
        raise InputError(f"cannot read the playtest log: {exc.strerror or exc}", source=src) from None
    # Keep physical line numbers for the messages: comments become empty lines csv skips.
    lines = ["" if ln.lstrip().startswith("#") else ln for ln in text.splitlines()]
    reader = csv.reader(io.StringIO("\n".join(lines)))
    header: list[str] | None = None
    log = PlaytestLog(src)
    for row in reader:
        line = reader.line_num
        if not row or all(not c.strip() for c in row):
            continue
        if header is None:
            header = [c.strip() for c in row]
            for c in header:
                if c not in ALL_COLUMNS:
                    raise InputError(f"line {line}: unknown column {c!r}; allowed: {allowed(ALL_COLUMNS)}", source=src)
            if len(set(header)) != len(header):
                raise InputError(f"line {line}: a column is named twice", source=src)
            if "outcome" not in header and "intended_x_mm" not in header:
                raise InputError(f"line {line}: missing column 'outcome' (passes) or 'intended_x_mm' (placements)",
                                 source=src)
            if "outcome" in header and "width_mm" not in header and "clearance_mm" not in header:
                raise InputError(f"line {line}: missing column 'width_mm' (or 'clearance_mm')", source=src)
            if "intended_x_mm" in header:
                for c in PLACE_COLUMNS[:4]:
                    if c not in header:
                        raise InputError(f"line {line}: missing column {c!r} (placements need intended and actual "
                                         "x and y)", source=src)
            continue
        if len(row) > len(header):
            raise InputError(f"line {line}: {len(row)} fields but the header has {len(header)} columns", source=src)
        cell = {c: (row[i].strip() if i < len(row) else "") for i, c in enumerate(header)}
        kind = cell.get("kind", "") or ("pass" if cell.get("outcome") else "place")
        if kind == "pass":
            log.passes.append(_pass_row(cell, src, line, ball_diameter_mm))
        elif kind == "place":
            log.places.append(_place_row(cell, src, line))
        else:
            raise InputError(f"line {line}, column 'kind': must be 'pass' or 'place', not {kind!r}", source=src)
    if header is None:
        raise InputError("empty playtest log: no header line and no data (docs/playtest-log.md)", source=src)
    if not log.passes and not log.places:
        raise InputError("the playtest log has a header but no passes or placements", source=src)
    return log


def _pass_row(cell: dict[str, str], src: str, line: int, ball_mm: float) -> PassRecord:
    outcome = cell.get("outcome", "")
    if outcome not in OUTCOMES:
        raise InputError(f"line {line}, column 'outcome': must be {allowed(OUTCOMES)}, not {outcome!r}", source=src)
    width = clearance = None
    if cell.get("width_mm"):
        width = _num(cell["width_mm"], src, line, "width_mm", 0.0)
    if cell.get("clearance_mm"):
        clearance = _num(cell["clearance_mm"], src, line, "clearance_mm", -ball_mm)
    if width is None and clearance is None:
        raise InputError(f"line {line}, column 'width_mm': empty; a pass needs the gap's width (or clearance_mm)",
                         source=src)
    if width is None:
        width = (clearance or 0.0) + ball_mm
    elif clearance is not None and abs(width - ball_mm - clearance) > 0.5:
        raise InputError(f"line {line}, column 'clearance_mm': {clearance:g} mm disagrees with width_mm {width:g} "
                         f"minus the ball's {ball_mm:g} mm", source=src)
    lo, hi = WIDTH_RANGE_MM
    if not lo <= width <= hi:
        raise InputError(f"line {line}, column 'width_mm': must be from {lo:g} to {hi:g} mm, not {width:g}", source=src)
    aim = _num(cell["aim_offset_mm"], src, line, "aim_offset_mm", -60.0, 60.0) if cell.get("aim_offset_mm") else 0.0
    return PassRecord(width, aim, outcome, line)


def _place_row(cell: dict[str, str], src: str, line: int) -> PlaceRecord:
    v = {}
    for c in PLACE_COLUMNS[:4]:
        if not cell.get(c):
            raise InputError(f"line {line}, column {c!r}: empty; a placement needs intended and actual x and y",
                             source=src)
        v[c] = _num(cell[c], src, line, c, -1000.0, 1000.0)
    dyaw = None
    if cell.get("intended_yaw_deg") or cell.get("actual_yaw_deg"):
        iy = _num(cell.get("intended_yaw_deg", ""), src, line, "intended_yaw_deg", -360.0, 360.0)
        ay = _num(cell.get("actual_yaw_deg", ""), src, line, "actual_yaw_deg", -360.0, 360.0)
        dyaw = (ay - iy + 180.0) % 360.0 - 180.0
    return PlaceRecord(v["actual_x_mm"] - v["intended_x_mm"], v["actual_y_mm"] - v["intended_y_mm"], dyaw, line)


# --------------------------------------------------------------------------------------------
# Writing a log from a known thrower (the sample file)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SampleCall:
    """The sample log's thrower (a skill level), widths (mm), passes per width, seed, placements
    and aim offsets (mm)."""

    skill: str = "casual"
    widths_mm: tuple[float, ...] = (42.0, 50.0, 60.0)
    passes_per_width: int = 40
    seed: int = 12
    places: int = 20
    aim_offsets_mm: tuple[float, ...] = (0.0, 0.0, 3.0, -3.0)


SAMPLE_CALL = SampleCall()
SAMPLE_PATH = Path(__file__).resolve().parents[3] / "scenarios" / "sun" / "playtest-sample.csv"


def simulate_log(thrower: Thrower, widths_mm: Iterable[float], passes_per_width: int, seed: int,
                 places: int = 0, base: Layout | None = None, aim_offsets_mm: Sequence[float] = (0.0,)) -> str:
    """A playtest log (CSV text) of ``thrower`` through the real physics.

    Pass ``i`` at each width draws its noise from ``default_rng(SeedSequence(seed, spawn_key=(w_index, i)))``
    and runs a full :meth:`SunTable.pass_ball` (release error and the push along the swing
    included, which the fit's model leaves out) from the settled two-gap table; aim offsets
    cycle through ``aim_offsets_mm``. Placements add the thrower's placement noise to random
    intended positions on the ring; yaws are written in [0, 360) degrees, as :func:`read_log` reads them.
    """
    lay0 = base or Layout()
    R = lay0.table.ring_radius
    out = io.StringIO()
    wr = csv.writer(out, lineterminator="\n")
    wr.writerow(["kind", "width_mm", "aim_offset_mm", "outcome"] + list(PLACE_COLUMNS))
    for wi, w in enumerate(widths_mm):
        lay = two_gap_layout(w / 1000.0, lay0)
        with SunTable.from_layout(lay) as t:
            start = t.snapshot()
            for i in range(passes_per_width):
                rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(wi, i)))
                off = aim_offsets_mm[i % len(aim_offsets_mm)]
                t.restore(start)
                res = t.pass_ball(off / 1000.0 / R, None, thrower.draw_pass(rng))
                wr.writerow(["pass", f"{w:g}", f"{off:g}", outcome_of(res)] + [""] * len(PLACE_COLUMNS))
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(9999,)))
    for _ in range(places):
        a = float(rng.uniform(0, 2 * math.pi))
        yaw = math.degrees(a)
        pn = thrower.draw_place(rng)
        ix, iy = R * math.cos(a), R * math.sin(a)
        # along the ring and across it, as the table applies them
        ax = ix - pn.along * math.sin(a) + pn.across * math.cos(a)
        ay = iy + pn.along * math.cos(a) + pn.across * math.sin(a)
        wr.writerow(["place", "", "", "", f"{ix * 1000:.3f}", f"{iy * 1000:.3f}", f"{ax * 1000:.3f}",
                     f"{ay * 1000:.3f}", f"{_yaw360(yaw):.3f}", f"{_yaw360(yaw + math.degrees(pn.yaw_rad)):.3f}"])
    return out.getvalue()


def _yaw360(deg: float) -> float:
    """``deg`` wrapped into [0, 360) (also after rounding to the 3 decimals written)."""
    w = deg % 360.0
    return 0.0 if round(w, 3) >= 360.0 else w


def sample_log_text() -> str:
    """The sample log's text: a comment naming the exact call, then :func:`simulate_log`'s CSV."""
    c = SAMPLE_CALL
    th = skill(c.skill)
    head = [
        "# Sample playtest log (docs/playtest-log.md). NOT a real playtest: generated through the physics by",
        "# `python -m sim.sun.players.playtest_log --write-sample`, which calls",
        f"# sim.sun.players.playtest_log.simulate_log(skill({c.skill!r}), {list(c.widths_mm)}, {c.passes_per_width}, "
        f"seed={c.seed}, places={c.places},",
        f"#                                   aim_offsets_mm={c.aim_offsets_mm}) with the {c.skill!r} preset",
        "# of sim/sun/players/thrower.py (" + ", ".join(f"{k} {v:g}" for k, v in th.as_dict().items() if k != "name") + ").",
        "# Regenerate it after any change to the physics; tests/sun/test_sun_calibration_docs.py fails until then.",
    ]
    body = simulate_log(th, c.widths_mm, c.passes_per_width, c.seed, places=c.places, aim_offsets_mm=c.aim_offsets_mm)
    return "\n".join(head) + "\n" + body


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m sim.sun.players.playtest_log --write-sample | --check-sample``: write the sample log, or
    check that the file is what the physics gives now (exit 1 if not)."""
    if argv is None:
        # the command line: the pinned maths code path first, as stonelab takes it, so that the file
        # written or checked is the same on any x86-64 CPU (sim/core/mathpath.py, docs/reproducibility.md)
        mathpath.pin()
    args = list(sys.argv[1:] if argv is None else argv)
    if args not in (["--write-sample"], ["--check-sample"]):
        print("usage: python -m sim.sun.players.playtest_log --write-sample | --check-sample", file=sys.stderr)
        return 2
    text = sample_log_text()
    if args == ["--write-sample"]:
        write_atomically(SAMPLE_PATH, lambda tmp: tmp.write_text(text, encoding="utf-8"))
        print(f"wrote {SAMPLE_PATH}")
        return 0
    if SAMPLE_PATH.read_text(encoding="utf-8") != text:
        print(f"{SAMPLE_PATH} is stale: the physics now gives another log; run "
              "`python -m sim.sun.players.playtest_log --write-sample`", file=sys.stderr)
        return 1
    print(f"{SAMPLE_PATH} is what the physics gives")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
