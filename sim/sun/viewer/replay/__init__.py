"""The replay file: per-frame poses of every body plus the turn events (format: docs/replay-format.md).

A replay is one ``.npz`` archive (``numpy.savez_compressed``, no pickles) with four members:

- ``header``: UTF-8 JSON as a ``uint8`` array: ``format`` (``"stonelab.replay"``), ``version``, the
  table (base radius and thickness, the string's pivot, the ball's radius), the bodies (key, kind,
  shape, full size along the body's local axes in metres, colour), the turns (seat, placements, the
  marker move, the aim, penalties, outcome, and the frame range ``[start, end)``) and free ``meta``;
- ``times``: ``float32 (F,)`` seconds on the replay's timeline, non-decreasing;
- ``pos``: ``float32 (F, B, 3)`` body centres in metres (world, z up, base top at z = 0); a body
  absent from a frame (not placed yet, removed as a penalty, the ball between passes) is NaN;
- ``quat``: ``float32 (F, B, 4)`` orientations as (x, y, z, w) quaternions, as PyBullet gives them.

:func:`load_replay` validates everything and raises :class:`sim.core.errors.ReplayError` (an
``InputError``: the CLI exits 2) for a truncated, foreign, inconsistent or newer file.

Replays are built from the table's pose recordings (``sim.sun.table.recording.PoseRecorder``, format
``stonelab.sun.poses``, docs/pose-recording.md) by :func:`from_pose_recording` (one pass) or a
:class:`ReplayBuilder` (a whole game: one recording per pass, laid end to end on one timeline).

Modules: :mod:`.records` (the types, constants, colours and the consistency check),
:mod:`.fileformat` (save, load), :mod:`.convert` (pose recordings and game records to replays),
:mod:`.sources` (``load_any``, ``from_store``), :mod:`.synthetic` (a replay without physics). This
package re-exports their public names, so ``from sim.sun.viewer.replay import ...`` keeps working.
"""

from sim.core.quaternions import quat_xyzw_to_wxyz
from sim.sun.viewer.replay.convert import ReplayBuilder, concat_replays, from_game_record, from_pose_recording
from sim.sun.viewer.replay.fileformat import load_replay, replay_from_parts, save_replay
from sim.sun.viewer.replay.overlay import PENALTY_COLOUR, STRING_COLOUR
from sim.sun.viewer.replay.records import (BALL_COLOUR, BASE_COLOUR, DEFAULT_GAP_S, FORMAT, POSE_FORMAT, POSE_VERSIONS,
                                           SHAPE_COLOURS, STONE_COLOUR, VERSION, DrawnBody, Replay, TurnEvent, hex_rgb,
                                           validate_replay)
from sim.sun.viewer.replay.sources import from_store, load_any
from sim.sun.viewer.replay.synthetic import synthetic_replay

__all__ = [
    "BALL_COLOUR", "BASE_COLOUR", "DEFAULT_GAP_S", "FORMAT", "PENALTY_COLOUR", "POSE_FORMAT", "POSE_VERSIONS",
    "SHAPE_COLOURS", "STONE_COLOUR", "STRING_COLOUR", "VERSION", "DrawnBody", "Replay", "ReplayBuilder", "TurnEvent",
    "concat_replays", "from_game_record", "from_pose_recording", "from_store", "hex_rgb", "load_any",
    "load_replay", "quat_xyzw_to_wxyz", "replay_from_parts", "save_replay", "synthetic_replay", "validate_replay",
]
