"""The one palette of the Sun's stones, by shape (hex RGB): the replay viewer, the editor,
`stonelab sun show` and the stability plot all draw with it, so a pillar is the same grey-blue in
every picture. It lives with the engine (which imports no viewer); the replay format re-exports it
(sim/sun/viewer/replay/records.py) and stores each body's colour in the file. The seats' colours
(markers and mark areas in the replay viewer) are the report's (``analysis.plots.SEAT_COLORS``,
the Okabe-Ito colours; a test keeps the two equal), so seat 1 is the same orange in the report's
charts and on the table."""

from __future__ import annotations

SHAPE_COLOURS: dict[str, str] = {"pillar": "#8f9cab", "block": "#cbb58d", "slab": "#9a8470"}
#: a stone of a shape the palette does not name (a custom shape)
STONE_COLOUR = "#b4a48e"
#: per seat (seat ``s`` is ``SEAT_COLOURS[s % len]``): the colour of its marker and mark area
SEAT_COLOURS: tuple[str, ...] = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9")
#: an open gap (the ball fits: ``Ring.passable``), drawn along its opening inside the ring (the
#: replay viewer's rules view and the play page's table)
PASSABLE_COLOUR = "#16a34a"
#: a gap the ball does not fit through (too narrow, or a gate too low over it)
BLOCKED_COLOUR = "#c81e1e"
#: the line of a pass as aimed (the replay viewer's rules view and the play page's table)
AIM_COLOUR = "#111111"
