"""The one palette of the Sun's stones, by shape (hex RGB): the replay viewer, the editor,
`stonelab sun show` and the stability plot all draw with it, so a pillar is the same grey-blue in
every picture. It lives with the engine (which imports no viewer); the replay format re-exports it
(sim/sun/viewer/replay/records.py) and stores each body's colour in the file."""

from __future__ import annotations

SHAPE_COLOURS: dict[str, str] = {"pillar": "#8f9cab", "block": "#cbb58d", "slab": "#9a8470"}
#: a stone of a shape the palette does not name (a custom shape)
STONE_COLOUR = "#b4a48e"
