"""The Sun's report room: what *Stonehenge and the Sun* adds to its runs' report, to ``stonelab
compare``, to ``stonelab tune`` and to the analyses, as the one :class:`~analysis.games.base.GameReport`
its plug-in names (``report="sim.sun.report:REPORT"``).

Every game's report room is ``sim/<game>/report``; the Sun's is a package, one module per idea:

- :mod:`~sim.sun.report.metrics`: the Sun's catalogue metrics (penalty stones by cause, clean passes
  by mark-area width), each defined once;
- :mod:`~sim.sun.report.rules_exercised`: every lost stone with its cause and level, and how often
  each rule came into play;
- :mod:`~sim.sun.report.section`: the report's section (plots and findings), its headline number,
  the player model, the replays section, the seats' declared skill and the tune winner's layout file;
- :mod:`~sim.sun.report.compare`: the sections ``stonelab compare`` adds, both runs side by side.

It is the one part of the game that implements an analysis hook (it imports ``analysis``), and no
part of the game imports it: the plug-in names it by string (tests/test_imports.py).
"""

from __future__ import annotations

from analysis.games import GameReport
from sim.sun.report.compare import compare_sections
from sim.sun.report.metrics import PLAYER_METRICS, TUNE_METRICS, metrics
from sim.sun.report.section import design_files, headline, player_model, replays_section, seat_skill
# under another name: the package's ``section`` stays the module (``from sim.sun.report import section``)
from sim.sun.report.section import section as report_section

__all__ = ["REPORT", "SunReport"]


class SunReport(GameReport):
    """The Sun's report: every hook, each from the module of its idea."""

    section = staticmethod(report_section)
    headline = staticmethod(headline)
    player_model = staticmethod(player_model)
    replays_section = staticmethod(replays_section)
    seat_skill = staticmethod(seat_skill)
    compare_sections = staticmethod(compare_sections)
    metrics = staticmethod(metrics)
    design_files = staticmethod(design_files)
    tune_metrics = TUNE_METRICS
    player_metrics = PLAYER_METRICS
    noise_table = "passes"  # every pass stores the noise drawn: equal records are one game


#: what the Sun's plug-in names as its ``report``
REPORT = SunReport()
