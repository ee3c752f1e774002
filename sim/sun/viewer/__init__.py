"""Replays of *Stonehenge and the Sun*: the replay file, a viser web viewer, PyBullet's GUI and video.

- :mod:`sim.sun.viewer.replay`: the documented replay file (docs/replay-format.md), ``save_replay``,
  ``load_replay`` and converters from the table's pose recordings (``sim.sun.table.recording.PoseRecorder``);
  a package of records, fileformat, convert, sources and synthetic.
- :mod:`sim.sun.viewer.viser_app`: the live viser viewer and the static export.
- :mod:`sim.sun.viewer.pybullet_gui`: the replay in PyBullet's GUI window.
- :mod:`sim.sun.viewer.video`: MP4/GIF frames from PyBullet's software renderer.
- :mod:`sim.sun.viewer.cli`: ``stonelab replay view|export|serve|video``.
"""

from sim.sun.viewer.replay import (DrawnBody, Replay, ReplayBuilder, TurnEvent, from_pose_recording, load_any,
                                   load_replay, save_replay)

__all__ = ["DrawnBody", "Replay", "ReplayBuilder", "TurnEvent", "from_pose_recording", "load_any", "load_replay",
           "save_replay"]
