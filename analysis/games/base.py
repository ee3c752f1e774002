"""The interface a game's report implements: :class:`GameReport`, every hook with a no-op default,
and :class:`CompareSection`, a section the game adds to ``stonelab compare``.

A game's plug-in names its report as ``report="module:attribute"`` (``GamePlugin.report``), an
instance or a subclass of :class:`GameReport`; :func:`analysis.games.game_report` loads it, and a
game that names none gets this class itself, whose hooks add nothing: its report has the generic
sections only (balance, skill, length and endings, drama, sweeps). A game overrides the hooks it
has something for; the callers (:mod:`analysis.report`, :mod:`analysis.compare`,
:mod:`analysis.sensitivity`, :mod:`analysis.strength`) call every hook of every game.

Every hook takes runs as :class:`analysis.load.RunData`; a hook may raise on a run whose own
columns it cannot read: the report turns the error into a visible note (the other sections stay).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple, Sequence

if TYPE_CHECKING:  # annotations only: the interface needs nothing of the loader or the plots
    import pandas as pd

    from analysis.metric_spec import Metric
    from analysis.run_data import RunData
    from analysis.plots import Section

__all__ = ["CompareSection", "GameReport", "TextLine"]


class TextLine(NamedTuple):
    """One line of a section's terminal text: a heading is printed bold, any other line as it is
    (no markup read in it, never wrapped, so numbers are never cut)."""

    text: str
    heading: bool = False


@dataclass(eq=False)
class CompareSection:
    """One section a game adds to ``stonelab compare`` (:meth:`GameReport.compare_sections`), beside
    the generic metrics: a game subclasses it to say how its table reads in the terminal and on the
    page. A section whose table is empty shows nothing (its ``--json`` key holds an empty list).

    Attributes:
        key: the section's key in ``stonelab compare --json`` (one of the keys its plug-in declares
            in ``GamePlugin.compare_keys``), whose value is ``table``'s rows as records.
        title: the section's heading on the ``--html`` page.
        table: the section's rows, both runs side by side (the game's own columns).
    """

    key: str
    title: str
    table: pd.DataFrame

    def lines(self, width: int) -> list[TextLine]:
        """The section in the terminal, fitted to ``width`` columns; the default shows nothing."""
        return []

    def html(self) -> str:
        """The section's body on the ``--html`` page (below its ``<h2>`` title): HTML with every
        value escaped, plots embedded; the default shows nothing."""
        return ""


class GameReport:
    """What a game adds to its runs' report, to ``stonelab compare`` and to the analyses; each
    hook's default adds nothing."""

    #: the names of the game's :meth:`metrics` flagged ``tune`` (game-wide), known before a game is played
    tune_metrics: tuple[str, ...] = ()
    #: the per-player metrics of :meth:`metrics` (named ``name[player]``) that ``stonelab tune`` may target
    player_metrics: tuple[str, ...] = ()
    #: the detail table whose rows store continuous noise draws (the Sun: ``passes``, the noise of
    #: every throw): two games with equal records and rows there can only be one game played twice,
    #: whatever the random streams (a Sun study with perfect hands replays one game per seating);
    #: None: chance is discrete (dice, a deck) and may repeat a record (analysis/catalogue.py)
    noise_table: str | None = None

    def section(self, run: RunData) -> Section | None:
        """The game's own report section (plots, tables, findings), placed after the skill
        section; None (or an empty section) when its tables are absent or empty."""
        return None

    def headline(self, run: RunData) -> tuple[str, str, pd.Series] | None:
        """One number per game that the sweep section plots against each swept key and
        ``stonelab compare`` compares: ``(name, label, series)``, the series aligned with
        ``run.games``; None: the game has no such number."""
        return None

    def player_model(self, run: RunData) -> str | None:
        """A sentence on what the simulated players are (the report's header row "player
        model"); None: no such row."""
        return None

    def replays_section(self, run: RunData) -> Section | None:
        """The report's last section: which games to watch and how; None: no such section."""
        return None

    def seat_skill(self, conf: Mapping[str, Any]) -> dict[str, float]:
        """The declared strength of a seat (``conf``: its scenario table, sweep values applied)
        as ``{what: value}``, higher values stronger, for :mod:`analysis.strength`; keys that
        cannot be known are left out, and the default knows none."""
        return {}

    def design_files(self, sections: Mapping[str, Mapping[str, Any]], searched: Sequence[str], folder: Path,
                     title: str) -> list[Path]:
        """Files of the game's own formats that ``stonelab tune`` writes into ``folder`` beside the
        winning design's ``best.toml`` (the Sun: a layout file its ``stonelab sun`` commands read).

        Args:
            sections: the winning scenario's validated game sections (``Scenario.sections``).
            searched: the dotted keys the search varied (a game writes nothing when none of its
                own tables was searched).
            folder: the tune folder.
            title: the winning scenario's name, for the files' own name fields.

        Returns:
            The paths written; the default writes none.

        Raises:
            OSError: a file cannot be written.
        """
        return []

    def metrics(self, run: RunData) -> list[Metric]:
        """The game's own metrics for the catalogue (:mod:`analysis.catalogue`): each defined
        once, with its per-game numerator and denominator; the summary, the report, ``stonelab
        compare``, ``tune`` and the export read them there. Empty: none."""
        return []

    def compare_sections(self, a: RunData, b: RunData) -> list[CompareSection]:
        """The game's own sections of ``stonelab compare`` (the Sun: its difficulty curve and the
        rules exercised, both runs side by side), one per key its plug-in declares in
        ``GamePlugin.compare_keys``, in that order; empty: none."""
        return []
