"""Plots of a study (matplotlib, Agg backend) and the small containers a report is made of.

Every plot function returns a :class:`matplotlib.figure.Figure` built without pyplot (no global
state, nothing to close), with labelled axes and units. :class:`Plot` pairs a figure with its
plain-language finding; :class:`Section` groups plots, tables and findings under a heading.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any, Sequence, cast

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib import cm, colors as mcolors  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import PercentFormatter  # noqa: E402

#: Seat colours (colour-blind-friendly Okabe-Ito palette), seat 0 first.
SEAT_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9")
NEUTRAL = "#555555"
ACCENT = "#0072B2"

matplotlib.rcParams.update(
    {
        "font.size": 10,
        "axes.titlesize": 11,
        "axes.titleweight": "bold",
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "legend.frameon": False,
        "svg.fonttype": "none",  # text stays text in the SVG (smaller, searchable)
    }
)


@dataclass
class Plot:
    """One figure of a report.

    Attributes:
        name: file stem of the PNG/SVG (unique within a report).
        title: heading shown above the figure.
        fig: the figure.
        finding: one or two plain-language sentences saying what the figure shows.
        note: how to read it (optional, smaller print).
    """

    name: str
    title: str
    fig: Figure
    finding: str
    note: str = ""


@dataclass
class Section:
    """A part of a report: a heading, its findings, plots and tables (pandas frames)."""

    title: str
    intro: str = ""
    plots: list[Plot] = field(default_factory=list)
    tables: list[tuple[str, pd.DataFrame]] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    #: trusted HTML built by the section itself (every user string escaped there), e.g. replay links
    html: str = ""


def seat_color(s: int) -> str:
    """The colour of seat ``s``."""
    return SEAT_COLORS[s % len(SEAT_COLORS)]


def wrap(text: str, width: int = 22) -> str:
    """Wrap a tick label onto lines of about ``width`` characters (existing line breaks kept)."""
    return "\n".join(textwrap.fill(part, width, break_long_words=False, break_on_hyphens=False)
                     for part in str(text).split("\n"))


def new_figure(width: float = 7.0, height: float = 4.0, polar: bool = False) -> tuple[Figure, Any]:
    """A figure with one axes (polar if asked)."""
    fig = Figure(figsize=(width, height), layout="constrained")
    ax = fig.add_subplot(111, projection="polar" if polar else None)
    return fig, ax


def new_figure_row(ncols: int, width: float, height: float) -> tuple[Figure, list[Any]]:
    """A figure with ``ncols`` axes side by side."""
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(1, ncols)
    return fig, list(np.atleast_1d(axes))


def _pct_axis(ax: Any, axis: str = "y", top: float | None = None) -> None:
    """Percent ticks; with ``top`` the axis runs from 0 to ``top`` (which may exceed 100 % to
    leave room for labels) and ticks stop at 100 %."""
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(PercentFormatter(1.0, decimals=0))
    if top is not None:
        (ax.set_ylim if axis == "y" else ax.set_xlim)(0, top)
        span = min(top, 1.0)
        step = next(s for s in (0.01, 0.02, 0.05, 0.1, 0.2, 0.25) if span / s <= 8)
        (ax.set_yticks if axis == "y" else ax.set_xticks)(np.arange(0, span + 1e-9, step))


def legend_below(fig: Figure, ax: Any, ncols: int = 3) -> None:
    """The axes' legend under the plot, where it hides no data."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside lower center", ncols=min(ncols, len(handles)), fontsize=8)


def _err(rate: Sequence[float], lo: Sequence[float], hi: Sequence[float]) -> np.ndarray:
    r, low, high = (np.asarray(v, dtype=float) for v in (rate, lo, hi))
    return np.vstack([np.clip(r - low, 0, None), np.clip(high - r, 0, None)])


def _rate_top(hi: Sequence[float], expected: float | None = None, room: float = 0.0) -> float:
    """Upper y limit for rates: the highest interval end plus ``room`` (for value labels)."""
    vals = [h for h in hi if h == h] + ([expected] if expected is not None else [])
    m = max(vals) if vals else 1.0
    top = min(1.0, max(0.1, m * 1.1 + 0.02))
    return top + room * top


def bar_ci(
    labels: Sequence[str],
    rate: Sequence[float],
    lo: Sequence[float],
    hi: Sequence[float],
    *,
    title: str,
    ylabel: str,
    xlabel: str = "",
    expected: float | Sequence[float] | None = None,
    expected_label: str = "no effect",
    colors: Sequence[str] | None = None,
    percent: bool = True,
    annotate: bool = True,
) -> Figure:
    """Bars with 95 % interval whiskers, an optional dashed reference line (or one per bar) and
    the value printed on each bar."""
    n = len(labels)
    fig, ax = new_figure(max(5.0, min(11.0, 2.2 + 0.9 * n)), 4.0)
    x = np.arange(n)
    ax.bar(x, rate, color=list(colors) if colors else ACCENT, alpha=0.85, width=0.6, zorder=2)
    ax.errorbar(x, rate, yerr=_err(rate, lo, hi), fmt="none", ecolor="black", capsize=5, lw=1.2, zorder=3,
                label="95 % interval")
    if expected is not None:
        if np.ndim(expected) == 0:
            ref = float(cast(float, expected))
            ax.axhline(ref, color=NEUTRAL, ls="--", lw=1, zorder=1,
                       label=f"{expected_label} ({100 * ref:.0f} %)" if percent else expected_label)
        else:
            for i, e in enumerate(cast(Sequence[float], expected)):
                ax.hlines(e, i - 0.35, i + 0.35, color=NEUTRAL, ls="--", lw=1.2, zorder=4,
                          label=expected_label if i == 0 else None)
    ax.set_xticks(x, [wrap(s) for s in labels])
    ax.set_ylabel(ylabel)
    if xlabel:
        ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", visible=False)
    if percent:
        _pct_axis(ax, "y", _rate_top(hi, None if expected is None else float(np.max(expected)), 0.1 if annotate else 0))
    if annotate:
        for xi, r, h in zip(x, rate, hi):
            if r == r:
                ax.annotate(f"{100 * r:.0f} %" if percent else f"{r:.3g}", (xi, h), xytext=(0, 4),
                            textcoords="offset points", ha="center", va="bottom", fontsize=9)
    legend_below(fig, ax)
    return fig


def histogram(
    values: Sequence[float] | np.ndarray,
    *,
    title: str,
    xlabel: str,
    ylabel: str = "share of games",
    integer: bool = True,
    color: str = ACCENT,
    markers: bool = True,
) -> Figure:
    """A histogram in shares (percent of the sample), integer-aligned bins for counts, with
    mean and median marked."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    fig, ax = new_figure(7.0, 3.8)
    if x.size == 0:
        ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center")
        ax.set_title(title)
        return fig
    lo, hi = float(x.min()), float(x.max())
    if integer and hi - lo <= 80:
        bins = np.arange(lo - 0.5, hi + 1.5, 1.0)
    else:
        bins = np.histogram_bin_edges(x, bins=min(40, max(5, int(np.sqrt(x.size)))))
        if integer:
            bins = np.unique(np.floor(bins) + 0.5) if len(np.unique(np.floor(bins))) > 2 else bins
    ax.hist(x, bins=bins, weights=np.full(x.size, 1.0 / x.size), color=color, alpha=0.8, zorder=2,
            edgecolor="white", linewidth=0.5)
    if markers:
        ax.axvline(float(x.mean()), color="black", lw=1.3, label=f"mean {x.mean():.3g}")
        ax.axvline(float(np.median(x)), color="black", lw=1.3, ls=":", label=f"median {np.median(x):.3g}")
        ax.legend(loc="upper right", fontsize=8)
    _pct_axis(ax, "y")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="x", visible=False)
    return fig


def seat_distributions(
    samples: Sequence[np.ndarray], labels: Sequence[str], *, title: str, xlabel: str, integer: bool = True
) -> Figure:
    """Overlaid step histograms, one per seat, in shares of games, with each seat's mean marked."""
    fig, ax = new_figure(7.0, 3.8)
    allx = np.concatenate([np.asarray(s, dtype=float) for s in samples]) if samples else np.array([])
    allx = allx[~np.isnan(allx)]
    if allx.size == 0:
        ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center")
        ax.set_title(title)
        return fig
    lo, hi = float(allx.min()), float(allx.max())
    if integer and hi - lo <= 80:
        bins = np.arange(lo - 0.5, hi + 1.5, 1.0)
    else:
        bins = np.histogram_bin_edges(allx, bins=min(40, max(5, int(np.sqrt(allx.size)))))
    for s, (x, lab) in enumerate(zip(samples, labels)):
        x = np.asarray(x, dtype=float)
        x = x[~np.isnan(x)]
        if x.size == 0:
            continue
        c = seat_color(s)
        ax.hist(x, bins=bins, weights=np.full(x.size, 1.0 / x.size), histtype="step", lw=2, color=c,
                label=f"{lab}: mean {x.mean():.3g}", zorder=2)
        ax.axvline(float(x.mean()), color=c, lw=1, ls="--")
    _pct_axis(ax, "y")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of games")
    ax.set_title(title)
    legend_below(fig, ax, 2)
    return fig


def lines_ci(
    x: Sequence[Any],
    series: Sequence[tuple[str, Sequence[float], Sequence[float], Sequence[float]]],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    percent: bool = False,
    colors: Sequence[str] | None = None,
    expected: float | None = None,
    expected_label: str = "",
    ax: Any = None,
    categorical: bool | None = None,
) -> Figure:
    """Lines with shaded 95 % intervals: one series per ``(label, value, lo, hi)``.

    Non-numeric ``x`` values are spaced evenly and labelled. Draws on ``ax`` when given, else on a
    new figure; returns the figure drawn on (one signature serves both: no overloads to keep alike).
    """
    if ax is None:
        fig, ax = new_figure(7.0, 4.0)
    else:
        fig = ax.figure
    if categorical is None:
        try:
            xs = np.asarray([float(v) for v in x])
            categorical = False
        except (TypeError, ValueError):
            categorical = True
    if categorical:
        xs = np.arange(len(x))
        ax.set_xticks(xs, [str(v) for v in x])
    else:
        xs = np.asarray([float(v) for v in x])
    for i, (lab, v, lo, hi) in enumerate(series):
        c = colors[i] if colors else seat_color(i)
        va, loa, hia = (np.asarray(a, dtype=float) for a in (v, lo, hi))
        ok = np.isfinite(va)  # points without data are skipped; the line joins the others
        ax.plot(xs[ok], va[ok], marker="o", color=c, label=lab, lw=1.8, ms=5, zorder=3)
        ax.fill_between(xs[ok], loa[ok], hia[ok], color=c, alpha=0.18, lw=0, zorder=2)
        ax.errorbar(xs[ok], va[ok], yerr=_err(va[ok], loa[ok], hia[ok]), fmt="none", ecolor=c, capsize=3, lw=1,
                    zorder=3)
    if expected is not None:
        ax.axhline(expected, color=NEUTRAL, ls="--", lw=1, label=expected_label or None)
    if percent:
        tops = [h for _, _, _, hi in series for h in hi if h == h]
        _pct_axis(ax, "y", _rate_top(tops, expected, room=0.04))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if len(series) > 1 or expected is not None:
        ax.legend(fontsize=8, loc="best")
    return fig


def ticks_with_n(ax: Any, xs: Sequence[float], labels: Sequence[str], ns: Sequence[int], fontsize: float = 8) -> None:
    """X ticks at ``xs`` labelled with their label and, under it, ``n=<count>`` (the sample behind
    each point), so a point resting on a handful of cases is seen as such."""
    ax.set_xticks([float(x) for x in xs], [f"{lab}\nn={n}" for lab, n in zip(labels, ns)], fontsize=fontsize)


def polar_bars(
    angles_deg: Sequence[float],
    widths_deg: Sequence[float],
    values: Sequence[float],
    *,
    title: str,
    value_label: str,
    labels: Sequence[str] | None = None,
    faded: Sequence[bool] | None = None,
    faded_label: str = "",
) -> Figure:
    """Bars around a circle (0 degrees at +x, counter-clockwise, as seen from above the table),
    coloured and sized by value, with a colour bar naming the value and unit. ``labels`` (e.g.
    sample sizes) are printed on a ring just outside the largest bar, one per bar, so they never
    pile up at the centre; ``faded`` bars (e.g. too few cases for a finding) are drawn pale and
    hatched, explained by ``faded_label`` under the plot."""
    fig, ax = new_figure(6.0, 5.6, polar=True)
    v = np.asarray(values, dtype=float)
    vmax = float(np.nanmax(v)) if v.size and np.isfinite(np.nanmax(v)) and np.nanmax(v) > 0 else 1.0
    norm = mcolors.Normalize(0, vmax)
    cmap = matplotlib.colormaps["viridis"]
    fade = list(faded) if faded is not None else [False] * len(v)
    for ang, wid, val, fd in zip(angles_deg, widths_deg, np.nan_to_num(v), fade):
        ax.bar(np.radians(ang), val, width=np.radians(wid), bottom=0.0, color=cmap(norm(val)), edgecolor="white",
               lw=0.5, alpha=0.3 if fd else 0.9, hatch="///" if fd else None)
    ax.set_theta_zero_location("E")
    ax.set_theta_direction(1)
    ax.set_rlabel_position(105.0)  # radial labels on a 15-degree sector edge, clear of the rim labels
    ax.tick_params(axis="y", labelsize=7, colors="#666666")
    ax.set_title(title, pad=14)
    ax.set_ylim(0, vmax * 1.05)
    if labels is not None:
        for ang, lab in zip(angles_deg, labels):
            ax.annotate(lab, (np.radians(ang), vmax * 1.05), xytext=(0, 0), textcoords="offset points", fontsize=6.5,
                        ha="center", va="center", color=NEUTRAL, annotation_clip=False,
                        xycoords="data", bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8})
    if faded_label and any(fade):
        fig.text(0.02, 0.01, faded_label, fontsize=8, color=NEUTRAL)
    fig.colorbar(cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, label=value_label, shrink=0.75, pad=0.1)
    return fig


def stacked_bars(
    labels: Sequence[str],
    parts: Sequence[tuple[str, Sequence[float]]],
    *,
    title: str,
    ylabel: str,
    xlabel: str = "",
    colors: Sequence[str] | None = None,
) -> Figure:
    """Stacked bars: one bar per label, one stacked part per ``(name, values)``."""
    fig, ax = new_figure(max(5.0, min(11.0, 2.5 + 0.9 * len(labels))), 4.0)
    x = np.arange(len(labels))
    bottom = np.zeros(len(labels))
    palette = colors or ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442")
    for i, (name, vals) in enumerate(parts):
        v = np.asarray(vals, dtype=float)
        ax.bar(x, v, bottom=bottom, label=name, color=palette[i % len(palette)], width=0.6, zorder=2)
        bottom += np.nan_to_num(v)
    ax.set_xticks(x, labels)
    ax.set_ylabel(ylabel)
    if xlabel:
        ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", visible=False)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def score_bars(
    labels: Sequence[str],
    wins: Sequence[float],
    score: Sequence[float],
    lo: Sequence[float],
    hi: Sequence[float],
    expected: Sequence[float],
    n: Sequence[int],
    *,
    title: str,
    xlabel: str,
    highlight: Sequence[bool] | None = None,
) -> Figure:
    """Horizontal bars, one row per label (long labels never overlap): the solid part is the
    share won outright, the light part the share earned from draws and shared wins, the bar's end
    the score; whiskers: its 95 % interval; a dashed tick: its share with no skill effect; the
    number of games at the right. Highlighted rows (e.g. the declared stronger agent) are drawn in
    the accent colour, the others in grey."""
    k = len(labels)
    fig, ax = new_figure(8.5, max(2.4, 0.9 + 0.42 * k))
    y = np.arange(k)[::-1]
    hl = list(highlight) if highlight is not None else [True] * k
    solid = [ACCENT if h else "#888888" for h in hl]
    w = np.nan_to_num(np.asarray(wins, dtype=float))
    sc = np.asarray(score, dtype=float)
    ax.barh(y, w, color=solid, height=0.62, zorder=2, label="won outright")
    ax.barh(y, np.clip(np.nan_to_num(sc) - w, 0, None), left=w, color=solid, alpha=0.35, height=0.62, zorder=2,
            label="share of draws and shared wins")
    ax.errorbar(sc, y, xerr=_err(score, lo, hi), fmt="none", ecolor="black", capsize=4, lw=1.1, zorder=3,
                label="95 % interval")
    for i, (yi, e) in enumerate(zip(y, expected)):
        ax.vlines(e, yi - 0.4, yi + 0.4, color=NEUTRAL, ls="--", lw=1.2, zorder=4,
                  label="score with no skill effect" if i == 0 else None)
    for yi, ni in zip(y, n):
        ax.annotate(f"n = {ni}", (1.0, yi), xytext=(6, 0), textcoords="offset points", va="center", fontsize=8,
                    annotation_clip=False)
    ax.set_yticks(y, [wrap(s, 48) for s in labels], fontsize=8)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xlim(0, 1)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="y", visible=False)
    legend_below(fig, ax, 4)
    return fig
