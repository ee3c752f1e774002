"""The style every page of the lab shares: the report (:mod:`analysis.report`), ``stonelab compare
--html`` (:mod:`analysis.compare`) and the design search's page (:mod:`analysis.tune`) take their
style sheet, tables, embedded figures and game titles from here, so that none of those pages
imports another one's module.
"""

from __future__ import annotations

import base64
import io
import zlib
from typing import Any

import pandas as pd

from sim.games import get_game

#: Resolution of the PNG figures embedded in a page and saved beside the report (dots per inch).
PNG_DPI = 120

#: The style sheet of the report page, shared by the other pages in its style (``stonelab compare --html``).
PAGE_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:980px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
h3{margin-bottom:.3em}
.meta td{padding:2px 12px 2px 0;vertical-align:top}.meta td:first-child{color:#666}
.finding{background:#f3f7fb;border-left:4px solid #0072B2;padding:.5em .8em;margin:.4em 0 .3em}
.note{color:#666;font-size:.88em;margin-top:.2em}
figure{margin:1.2em 0 2em}figure img{max-width:100%;height:auto;border:1px solid #eee}
table.data{border-collapse:collapse;font-size:.9em;margin:.5em 0 1.5em}
table.data th,table.data td{border:1px solid #ddd;padding:3px 8px;text-align:right}
table.data th{background:#f5f5f5}table.data td:first-child,table.data th:first-child{text-align:left}
pre{background:#f7f7f7;padding:.8em;overflow-x:auto;font-size:.85em}
.error{background:#fff3f3;border-left:4px solid #c00;padding:.5em .8em}
ul.key li{margin:.3em 0}
.files{font-size:.85em;color:#666}
"""


def table_html(df: pd.DataFrame) -> str:
    """A frame as a report table: numbers right-aligned (the page's style), and columns of prose
    (text cells over 25 characters on average, e.g. "what it counts") left-aligned, as text reads."""
    prose = [i + 1 for i, c in enumerate(df.columns)
             if i > 0 and (df[c].dtype == object or pd.api.types.is_string_dtype(df[c])) and len(df)
             and df[c].astype(str).str.len().mean() > 25]
    if not prose:
        return df.to_html(index=False, escape=True, classes="data", border=0, na_rep="n/a")
    tid = f"t{zlib.crc32(df.to_json().encode()):08x}"
    rule = ",".join(f"#{tid} {cell}:nth-child({k})" for k in prose for cell in ("td", "th"))
    return (f"<style>{rule}{{text-align:left}}</style>"
            + df.to_html(index=False, escape=True, classes="data", border=0, na_rep="n/a", table_id=tid))


def png_b64(fig: Any) -> tuple[bytes, str]:
    """A matplotlib figure as PNG bytes (at :data:`PNG_DPI`) and as base64 text for an ``<img>``."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=PNG_DPI)
    data = buf.getvalue()
    return data, base64.b64encode(data).decode("ascii")


def game_title(game: str) -> str:
    """The game's published title from the registry (the name when unavailable)."""
    try:
        return get_game(game).spec.title
    except Exception:  # noqa: BLE001 - a title is cosmetic
        return game
