"""Playtest logs of *Stonehenge and the Sun* (the CSV of docs/playtest-log.md): the records and
:func:`read_log`, which validates every line. The fit that reads them is :mod:`sim.sun.calibrate`.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

from sim.core.errors import InputError, allowed

#: Outcome classes of a pass, in the order used by arrays.
OUTCOMES = ("clean", "knocked", "pushed_off")
#: The log's widths must lie in this range (mm): below it the ball cannot pass at all and above
#: it the test ring of 16 blocks has no room.
WIDTH_RANGE_MM = (5.0, 120.0)

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
    p = Path(path)
    src = str(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no such playtest log", source=src) from None
    except IsADirectoryError:
        raise InputError("is a folder; give a playtest log (CSV)", source=src) from None
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
