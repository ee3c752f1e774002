"""Replays of *Stonehenge and the Sun*: the replay file, a viser web viewer, PyBullet's GUI and video.

- :mod:`sim.viewer.replay`: the documented replay file (docs/replay-format.md), ``save_replay``,
  ``load_replay`` and converters from the table's pose recordings (``sim.sun.recording.PoseRecorder``);
  a package of records, fileformat, convert, sources and synthetic.
- :mod:`sim.viewer.viser_app`: the live viser viewer and the static export.
- :mod:`sim.viewer.pybullet_gui`: the replay in PyBullet's GUI window.
- :mod:`sim.viewer.video`: MP4/GIF frames from PyBullet's software renderer.
- :mod:`sim.viewer.cli`: ``stonelab replay view|export|serve|video``.
"""

from sim.viewer.replay import (Body, Replay, ReplayBuilder, TurnEvent, from_pose_recording, load_any,
                               load_replay, save_replay)

__all__ = ["Body", "Replay", "ReplayBuilder", "TurnEvent", "from_pose_recording", "load_any", "load_replay",
           "save_replay"]
