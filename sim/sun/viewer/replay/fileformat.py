"""The replay file (``.npz``; format: docs/replay-format.md): :func:`save_replay`,
:func:`load_replay` and :func:`replay_from_parts`, which checks a header and its arrays.
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from pathlib import Path
from typing import Any, Iterable, Mapping, cast

import numpy as np

from sim.core.errors import ReplayError
from sim.core.files import check_input_file
from sim.core.outputs import write_atomically
from sim.sun.viewer.replay.overlay import check_rules_view
from sim.sun.viewer.replay.records import FORMAT, STONE_COLOUR, VERSION, DrawnBody, Replay, TurnEvent, validate_replay

#: the archive's members (docs/replay-format.md)
_REQUIRED = ("header", "times", "pos", "quat")

# --------------------------------------------------------------------------------------------


def save_replay(replay: Replay, path: str | Path, *, fps: float | None = None) -> Path:
    """Validate and write ``replay`` to ``path`` (an ``.npz``), optionally downsampled to ``fps``.

    The file is written to a temporary name and renamed, so a crash never leaves half a replay.
    Returns the path written. Raises :class:`ReplayError` if the replay is inconsistent.
    """
    if fps is not None:
        replay = replay.downsample(fps)
    replay.validate()
    path = Path(path)
    header = json.dumps(replay.header(), separators=(",", ":"), default=_json_default).encode("utf-8")
    buf = io.BytesIO()
    np.savez_compressed(buf, header=np.frombuffer(header, dtype=np.uint8),
                        times=replay.times.astype(np.float32), pos=replay.pos.astype(np.float32),
                        quat=replay.quat.astype(np.float32))
    return write_atomically(path, lambda tmp: tmp.write_bytes(buf.getvalue()))


def load_replay(path: str | Path) -> Replay:
    """Read and validate a replay file.

    Raises:
        ReplayError: the file is missing, truncated, not a replay (foreign), of a newer version,
            or its arrays disagree with its header. The message names the file and the problem.
    """
    path = Path(path)
    src = str(path)
    check_input_file(path, "replay file", ReplayError)  # also refuses a FIFO, whose read would block
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic != b"PK\x03\x04":
        raise ReplayError("not a stonelab replay (not an .npz archive)", source=src)
    try:
        with np.load(path, allow_pickle=False) as z:
            names = set(z.files)
            missing = [k for k in _REQUIRED if k not in names]
            if missing:
                raise ReplayError(f"not a stonelab replay: missing {', '.join(missing)}", source=src)
            raw = {k: z[k] for k in _REQUIRED}
    except ReplayError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError) as e:
        raise ReplayError(f"not a readable replay (truncated or foreign file): {e}", source=src) from None
    try:
        header = json.loads(raw["header"].astype(np.uint8).tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as e:
        raise ReplayError(f"the replay's header is not JSON: {e}", source=src, key="header") from None
    return replay_from_parts(header, raw["times"], raw["pos"], raw["quat"], source=src)


def _floats3(v: Iterable[Any]) -> tuple[float, float, float]:
    """``tuple(float(x) for x in v)``, typed as a 3-tuple (``Replay.validate`` rejects another length)."""
    return cast("tuple[float, float, float]", tuple(float(x) for x in v))


def replay_from_parts(header: Mapping[str, Any], times: np.ndarray, pos: np.ndarray, quat: np.ndarray,
                      source: str | Path | None = None) -> Replay:
    """Build and validate a :class:`Replay` from a header dict and its three arrays."""
    if not isinstance(header, Mapping):
        raise ReplayError("the header is not a JSON object", source=source, key="header")
    fmt = header.get("format")
    if fmt != FORMAT:
        raise ReplayError(f"not a stonelab replay (format {fmt!r}, expected {FORMAT!r})", source=source,
                          key="format")
    ver = header.get("version")
    if not isinstance(ver, int) or ver < 1:
        raise ReplayError(f"bad version {ver!r}", source=source, key="version")
    if ver > VERSION:
        raise ReplayError(f"replay version {ver} is newer than this stonelab reads (up to {VERSION})",
                          source=source, key="version")
    checked_objects(header, "bodies", source)
    checked_objects(header, "turns", source, required=False)
    try:
        bodies = [DrawnBody(key=str(b["key"]), kind=str(b["kind"]), size=_floats3(b["size"]),
                       colour=str(b.get("colour", STONE_COLOUR)), shape=str(b.get("shape", "")),
                       stone=None if b.get("stone") is None else int(b["stone"])) for b in header["bodies"]]
        turns = [TurnEvent(index=int(t["index"]), frames=(int(t["frames"][0]), int(t["frames"][1])),
                           seat=None if t.get("seat") is None else int(t["seat"]), player=str(t.get("player", "")),
                           placements=list(t.get("placements") or []), marker=t.get("marker"),
                           aim_deg=optional_float(t.get("aim_deg")), release_m=optional_float(t.get("release_m")),
                           noise=dict(t.get("noise") or {}), penalties=list(t.get("penalties") or []),
                           outcome=dict(t.get("outcome") or {}), text=str(t.get("text", "")),
                           rules=check_rules_view(t.get("rules"), f"turns[{k}].rules", source))
                 for k, t in enumerate(header.get("turns", []))]
        table = dict(header.get("table") or {})
        meta = dict(header.get("meta") or {})
    except ReplayError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise ReplayError(f"malformed header: {type(e).__name__} {e}", source=source, key="header") from None
    rep = Replay(bodies, np.asarray(times), np.asarray(pos), np.asarray(quat), turns, table, meta)
    validate_replay(rep, source)
    return rep


def optional_float(v: Any) -> float | None:
    """``None`` stays ``None``; anything else becomes a float (raises ValueError, TypeError)."""
    return None if v is None else float(v)



def _json_default(o: Any) -> Any:
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (set, tuple)):
        return list(o)
    return str(o)


# --------------------------------------------------------------------------------------------
# Converters from the table's pose recordings
# --------------------------------------------------------------------------------------------


_JSON_TYPES = {str: "a string", bool: "true or false", int: "a number", float: "a number", dict: "an object",
               list: "a list", type(None): "null"}


def checked_objects(d: Mapping[str, Any], key: str, source: str | Path | None, *, required: bool = True) -> list[Any]:
    """``d[key]`` checked to be a JSON list of objects (each a dict), as the readers index them.

    Raises:
        ReplayError: missing (when ``required``), not a list, or an item that is not an object; the
            message names the key and what it holds (a string where the bodies should be was an
            AttributeError traceback).
    """
    if key not in d:
        if required:
            raise ReplayError("missing; expected a list of objects", source=source, key=key)
        return []
    v = d[key]
    if not isinstance(v, list):
        raise ReplayError(f"must be a list of objects, not {_JSON_TYPES.get(type(v), type(v).__name__)}",
                          source=source, key=key)
    for i, item in enumerate(v):
        if not isinstance(item, Mapping):
            raise ReplayError(f"must be an object, not {_JSON_TYPES.get(type(item), type(item).__name__)}",
                              source=source, key=f"{key}[{i}]")
    return v
