"""Report section of Stonehenge and the Sun: how hard the pass is, and where and what it costs.

Reads ``sun_passes`` (one row per pass: seat, turn, noise drawn, mark area position and width,
penalties, ``causes`` as ``id:shape:cause;...``, invalid flag), ``sun_placements`` (to tell a lost
stone's level: standing on the base, stacked, or a gate) and ``sun_games``. A *clean* pass loses no
stone (as the engine's ``clean_passes`` counts). The thrower's noise level of a seat comes from the
scenario (``skill`` and ``sigma_aim_deg`` of the seat, with sweep values applied).
"""

from __future__ import annotations

import html
import json
import math
import tomllib
from dataclasses import replace as dc_replace
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from analysis.catalogue import estimates, format_value, ratio_interval
from analysis.games import has_columns
from analysis.metrics import kaplan_meier
from analysis.plots import (Plot, Section, lines_ci, new_figure, new_figure_row, polar_bars, seat_color, stacked_bars,
                            ticks_with_n)
from analysis.run_data import RunData
from analysis.wording import change, plural
from sim.core.errors import InputError, ScenarioError
from sim.core.files import read_toml
from sim.core.outputs import write_atomically
from sim.sun.players.thrower import SKILLS, load_skill
from sim.sun.report.metrics import CAUSE_WORDS, pass_widths, penalty_causes
from sim.sun.report.rules_exercised import LEVELS, lost_stones, rules_tables
from sim.sun.sections import SEAT_OPTIONS, layout_of, start_layout, thrower_of
from sim.sun.table.layout import dump_layout_toml, parse_layout
from sim.sun.viewer.runs import REPLAYS_DIR, VIEWER_DIR, replay_name

SECTOR_DEG = 15.0

#: The fewest passes a group (a noise level, a group of turns, a mark-area sector) must hold to be
#: named in a finding ("... cost the most", "by turn 30 it is ..."): a share estimated from 30
#: passes is within about +-18 points (95 %), from 4 passes within +-50. Smaller groups are still
#: plotted, with their number of passes printed beside them, but never headline a finding.
MIN_PASSES = 30


def headline(run: RunData) -> tuple[str, str, pd.Series] | None:
    """Stones lost to the ball per pass, per game, for sweeps (the catalogue's
    ``ball_stones_per_pass``: placements' losses are not a pass's)."""
    c = penalty_causes(run)
    if c.empty or c["passes"].isna().all():
        return None
    return ("ball_stones_per_pass", "stones lost to the ball per pass",
            pd.Series(c["ball"].to_numpy(float) / c["passes"].where(c["passes"] > 0).to_numpy(float)))


def _preset_aim(path: str) -> float:
    """The aim sigma (degrees) of a skill preset file, NaN if it cannot be read now."""
    try:
        return float(load_skill(path).sigma_aim_deg)
    except Exception:  # noqa: BLE001 - a report never fails on a preset moved since the study
        return float("nan")


def _fit_note(path: str) -> str:
    """``fitted to LOG: sigma_aim_deg 1.1 [0.8, 1.5], ...`` from a preset file's ``[fit]`` table."""
    try:
        fit = read_toml(path, "skill preset file").get("fit") or {}
    except InputError:
        return ""
    items = []
    for k, v in fit.items():
        if isinstance(v, dict) and {"value", "low", "high"} <= set(v):
            tag = "" if v.get("identifiable", True) else " (not identifiable)"
            items.append(f"{k} {v['value']:.3g} [{v['low']:.3g}, {v['high']:.3g}]{tag}")
    if not items:
        return ""
    return f" (fitted to {fit.get('source', 'a playtest log')}, 95 % intervals: {', '.join(items)})"


def _skill_sigmas() -> dict[str, float]:
    return {k: float(v.sigma_aim_deg) for k, v in SKILLS.items()}


#: Thrower skill levels, weakest first (sim/sun/players/thrower.py SKILLS; each level's five noise
#: standard deviations are no larger than the previous level's).
SKILL_ORDER: tuple[str, ...] = ("child", "casual", "steady", "expert", "perfect")


def seat_skill(conf: Mapping[str, Any]) -> dict[str, float]:
    """The declared skill of a seat, as keys where higher is stronger (for
    :mod:`analysis.strength`): ``smaller aim noise`` (minus the aim sigma in degrees, the seat's
    ``sigma_aim_deg`` or its skill's) and ``a higher skill level`` (rank in :data:`SKILL_ORDER`,
    which sets the other four noises). Keys that cannot be known are left out."""
    skill = str(conf.get("skill", "steady"))
    out: dict[str, float] = {}
    if skill in SKILL_ORDER:
        out["a higher skill level"] = float(SKILL_ORDER.index(skill))
    try:
        sigma = float(conf.get("sigma_aim_deg", -1.0))
    except (TypeError, ValueError):
        return out
    if sigma < 0:
        sigma = _skill_sigmas().get(skill, float("nan"))
    if math.isfinite(sigma):
        out["smaller aim noise"] = -sigma
    return out


def _edge_labels(edges: np.ndarray) -> list[str]:
    """``'0.0–0.3'`` labels of the groups between consecutive edges (|degrees|, never negative),
    with the fewest decimals (1 to 3) that print neighbouring edges differently."""
    e = np.maximum(np.asarray(edges, dtype=float), 0.0)
    for d in (1, 2, 3):
        txt = [f"{x:.{d}f}" for x in e]
        if len(set(txt)) == len(txt):
            break
    return [f"{txt[i]}–{txt[i + 1]}" for i in range(len(txt) - 1)]


def seat_noise(run: RunData) -> pd.DataFrame:
    """Per (point, seat): the skill name and the aim noise sigma in degrees the scenario gave it."""
    seats = run.scenario.get("seats") or []
    sig = _skill_sigmas()
    rows = []
    pts = run.points if not run.points.empty else pd.DataFrame({"point": [0]})
    for _, p in pts.iterrows():
        for s in range(max(run.n_seats, len(seats))):
            conf: dict[str, Any] = dict(seats[s]) if s < len(seats) else {}
            for k in run.sweep_keys:
                parts = k.split(".")
                if len(parts) == 3 and parts[0] == "seats" and parts[1] == str(s):
                    conf[parts[2]] = p.get(f"sweep:{k}")
            skill = str(conf.get("skill", "steady"))
            sigma = float(conf.get("sigma_aim_deg", -1.0))
            if sigma < 0:
                sigma = sig.get(skill, float("nan"))
            if math.isnan(sigma):  # a preset file: its own sigmas
                sigma = _preset_aim(skill)
            rows.append({"point": int(p["point"]), "seat": s, "skill": skill, "sigma_aim_deg": sigma})
    return pd.DataFrame(rows)





def stone_lives(run: RunData) -> pd.DataFrame:
    """One row per stone stood in a game: ``point, game_index, stone, shape, placed_turn, turns,
    lost`` - how many turns it stood from its first standing placement until it was lost
    (``lost`` = 1) or the game ended (``lost`` = 0, censored), for survival curves."""
    cols = ["point", "game_index", "stone", "shape", "placed_turn", "turns", "lost"]
    place = run.detail("placements")
    passes = run.detail("passes")
    if not has_columns(place, "stone", "turn", "shape") or not has_columns(passes, "turn") or place.empty:
        return pd.DataFrame(columns=cols)
    ok = place[place["standing"] == 1] if "standing" in place else place
    first = ok.sort_values("turn").groupby(["point", "game_index", "stone"], as_index=False).first()
    first = first[["point", "game_index", "stone", "shape", "turn"]].rename(columns={"turn": "placed_turn"})
    end = passes.groupby(["point", "game_index"], as_index=False)["turn"].max().rename(columns={"turn": "end_turn"})
    lost = lost_stones(run)[["point", "game_index", "stone", "turn"]].rename(columns={"turn": "lost_turn"})
    lost = lost.groupby(["point", "game_index", "stone"], as_index=False)["lost_turn"].min()
    m = first.merge(end, on=["point", "game_index"], how="left").merge(lost, on=["point", "game_index", "stone"],
                                                                       how="left")
    m["lost"] = m["lost_turn"].notna().astype(int)
    m["turns"] = np.where(m["lost"] == 1, m["lost_turn"] - m["placed_turn"], m["end_turn"] - m["placed_turn"])
    m = m[m["turns"].notna() & (m["turns"] >= 0)]
    return m[cols].reset_index(drop=True)



def section(run: RunData) -> Section | None:
    """Rules exercised, difficulty curve, clean passes by turn, danger per mark area, stones lost,
    invalid passes."""
    sec = Section("Stonehenge and the Sun: rules, passes and stones",
                  "Which rules came into play and how often; how often a pass costs stones, for which hands, as "
                  "the ring fills, and where. A clean pass loses no stone.")
    # first, so that a designer sees at once whether a rule ever mattered (the findings also lead
    # the key findings of the page)
    tables, findings = rules_tables(run)
    sec.tables.extend(tables)
    sec.findings.extend(findings)
    passes = run.detail("passes")
    if not has_columns(passes, "penalties", "seat", "turn") or passes.empty:
        return sec if tables else None
    passes = passes.copy()
    passes["clean"] = (passes["penalties"] == 0).astype(int)
    if not run.seats.empty:
        agent_of = run.seats.drop_duplicates(["point", "seat"])[["point", "seat", "agent"]]
        passes = passes.merge(agent_of, on=["point", "seat"], how="left")
    n_pass = len(passes)

    # 1. difficulty curve against the thrower's noise
    noise = seat_noise(run)
    p = passes.merge(noise, on=["point", "seat"], how="left")
    levels = sorted(p["sigma_aim_deg"].dropna().unique())
    fig, (a1, a2) = new_figure_row(2, 10.0, 3.9)
    if len(levels) >= 2:
        groups = [(lv, p[p["sigma_aim_deg"] == lv]) for lv in levels]
        names = {lv: "/".join(sorted(set(p.loc[p["sigma_aim_deg"] == lv, "skill"]))) for lv in levels}
        xlab = "thrower's aim noise (standard deviation, degrees)"
        xs: list[Any] = [float(lv) for lv in levels]
        what = "thrower aim noise"
        tick = [f"{lv:g}°\n{names[lv]}" for lv in levels]
    else:
        err = passes["noise_aim_deg"].abs() if "noise_aim_deg" in passes else pd.Series(np.zeros(n_pass))
        q = np.unique(np.quantile(err.dropna(), np.linspace(0, 1, 6))) if err.notna().any() else np.array([0, 1])
        edges = q.copy()
        q[-1] += 1e-9
        bins = pd.cut(err, q, include_lowest=True)
        groups = [(iv, passes[bins == iv]) for iv in bins.cat.categories]
        # labels from the quantile edges themselves: pd.cut widens the lowest edge a hair below 0,
        # which printed as "-0.0"; the fewest decimals that keep neighbouring labels apart
        xs = _edge_labels(edges)
        xlab = "aim error drawn in the pass (|degrees|, quintiles)"
        what = "aim error drawn"
        tick = None
    agents = sorted(p["agent"].dropna().unique()) if "agent" in p else []
    dists = [per_pass_mean(g, "penalties") for _, g in groups]
    props = [per_pass_share(g, "clean") for _, g in groups]
    series_a, series_b = [], []
    split = [(None, "all passes")] if len(agents) < 2 else [(a, f"{a} agent") for a in agents]
    for _i, (ag, lab) in enumerate(split):
        ds, ps = [], []
        for _, g in groups:
            gg = g if ag is None else g[g["agent"] == ag]
            ds.append(per_pass_mean(gg, "penalties"))
            ps.append(per_pass_share(gg, "clean"))
        series_a.append((lab, [d["mean"] for d in ds], [d["lo"] for d in ds], [d["hi"] for d in ds]))
        series_b.append((lab, [q_["rate"] for q_ in ps], [q_["lo"] for q_ in ps], [q_["hi"] for q_ in ps]))
    cols = ["#D55E00"] if len(split) == 1 else [seat_color(i) for i in range(len(split))]
    lines_ci(xs, series_a, title="Stones lost to the ball per pass", xlabel=xlab, ylabel="stones lost per pass (mean)",
             colors=cols, ax=a1, categorical=tick is None)
    lines_ci(xs, series_b, title="Chance of a clean pass", xlabel=xlab, ylabel="passes losing no stone",
             percent=True, colors=["#009E73"] if len(split) == 1 else cols, ax=a2, categorical=tick is None)
    ns = [len(g) for _, g in groups]
    for ax in (a1, a2):
        ticks_with_n(ax, xs if tick is not None else list(range(len(xs))), tick if tick is not None else xs, ns)
    a1.set_ylim(bottom=0)
    unit = "°"  # both groupings are angles: the aim error drawn (|degrees|) or the mark area's bearing
    est = estimates(run, ("ball_stones_per_pass", "clean_pass_share"))
    per_pass, clean_est = est["ball_stones_per_pass"], est["clean_pass_share"]
    f = (f"Over {n_pass} passes in {len(run.games)} games a pass costs {per_pass.text()} stones lost to the ball "
         f"(a placement's losses are not a pass's) and {clean_est.text()} of passes are clean (intervals clustered "
         "by game).")
    ok = [i for i, n_ in enumerate(ns) if n_ >= MIN_PASSES]
    if len(ok) >= 2:
        i0, i1 = ok[0], ok[-1]
        first, last = dists[i0], dists[i1]
        f += (f" From the lowest to the highest {what} with at least {MIN_PASSES} passes ({xs[i0]}{unit}, {ns[i0]} "
              f"passes, to {xs[i1]}{unit}, {ns[i1]} passes) the cost per pass "
              + change(f"{first['mean']:.2f} [{first['lo']:.2f}, {first['hi']:.2f}]",
                       f"{last['mean']:.2f} [{last['lo']:.2f}, {last['hi']:.2f}]")
              + " stones, and the share of clean passes "
              + change(f"{100 * props[i0]['rate']:.0f} %", f"{100 * props[i1]['rate']:.0f} %") + ".")
    else:
        f += (f" Fewer than two {what} groups hold {MIN_PASSES} passes, so the curve is shown but not compared "
              f"(groups: {', '.join(str(n_) for n_ in ns)} passes).")
    sec.plots.append(Plot("sun_difficulty", "Difficulty curve", fig, f,
                          "Left: mean stones lost to the ball per pass; right: share of passes that lose no stone; bands "
                          "and whiskers: 95 % intervals clustered by game (the game is the sampled unit). "
                          + ("x: the aim noise each seat's skill gives (scenario)." if tick is not None else
                             "Only one noise level in this study: x is the aim error actually drawn, in five "
                             "equal-count groups.")
                          + f" n: passes per group; findings use groups of at least {MIN_PASSES} passes."))
    sec.findings.append(f)

    # 2. clean pass by turn number
    tmax = int(passes["turn"].max())
    width = max(1, math.ceil((tmax + 1) / 14))
    passes["turn_bin"] = passes["turn"] // width
    tb = []
    for b, g in passes.groupby("turn_bin"):
        if len(g) >= 3:
            tb.append((int(b), per_pass_share(g, "clean"), len(g)))
    if len(tb) >= 2:
        xs2 = [b * width + (width - 1) / 2 for b, _, _ in tb]
        fig = lines_ci(xs2, [("clean passes", [t[1]["rate"] for t in tb], [t[1]["lo"] for t in tb], [t[1]["hi"] for t in tb])],
                       title="Chance of a clean pass as the ring fills",
                       xlabel="turn number (1 = the first turn of the game, as replays count)"
                       + (f", groups of {width} turns" if width > 1 else ""),
                       ylabel="passes losing no stone", percent=True, colors=["#009E73"])
        # the store counts turns from 0; the page, the replays and the terminal game from 1
        ticks_with_n(fig.axes[0], xs2, [str(b * width + 1) if width == 1 else f"{b * width + 1}–{b * width + width}"
                                        for b, _, _ in tb], [t[2] for t in tb], fontsize=7)
        big = [t for t in tb if t[2] >= MIN_PASSES]
        if len(big) >= 2:
            early, late = big[0], big[-1]
            a_ = f"{100 * early[1]['rate']:.0f} % [{100 * early[1]['lo']:.0f}, {100 * early[1]['hi']:.0f}]"
            b_ = f"{100 * late[1]['rate']:.0f} % [{100 * late[1]['lo']:.0f}, {100 * late[1]['hi']:.0f}]"

            def turns(t: tuple[int, Any, int]) -> str:
                return f"turn {t[0] * width + 1}" if width == 1 else f"turns {t[0] * width + 1}-{t[0] * width + width}"

            if a_.split(" [")[0] == b_.split(" [")[0]:
                f = (f"The chance of a clean pass does not change as the ring fills: {a_} on {turns(early)} "
                     f"({early[2]} passes) and {b_} on {turns(late)} ({late[2]} passes).")
            else:
                f = (f"A pass on {turns(early)} is clean {a_} of the time ({early[2]} passes); on {turns(late)} "
                     f"it is {b_} ({late[2]} passes).")
        else:
            f = (f"Fewer than two groups of turns hold {MIN_PASSES} passes, so the chance of a clean pass is shown "
                 "by turn but not compared.")
        sec.plots.append(Plot("sun_clean_by_turn", "Clean passes by turn", fig, f,
                              "Share of passes losing no stone, by turn number (both seats); 95 % intervals clustered by game. "
                              f"Groups with fewer than 3 passes are left out; n: passes per group; findings use "
                              f"groups of at least {MIN_PASSES} passes."))
        sec.findings.append(f)

    # 3. danger per mark area (polar)
    if "area_mid_deg" in passes and passes["area_mid_deg"].notna().any():
        a = passes.dropna(subset=["area_mid_deg"]).copy()
        a["sector"] = ((a["area_mid_deg"] % 360) // SECTOR_DEG).astype(int)
        g = a.groupby("sector").agg(n=("penalties", "size"), mean=("penalties", "mean")).reset_index()
        g = g[g["n"] >= 3]
        if not g.empty:
            centres = g["sector"] * SECTOR_DEG + SECTOR_DEG / 2
            fig = polar_bars(centres, [SECTOR_DEG * 0.95] * len(g), g["mean"],
                             title="Danger by mark-area position (seen from above)",
                             value_label="stones lost per pass (mean)", labels=[str(int(x)) for x in g["n"]],
                             faded=(g["n"] < MIN_PASSES).tolist(),
                             faded_label=f"numbers on the rim: passes per sector; pale, hatched: fewer than "
                                         f"{MIN_PASSES} passes")
            big = g[g["n"] >= MIN_PASSES]
            if big.empty:
                f = (f"No {SECTOR_DEG:.0f}° mark-area sector holds {MIN_PASSES} passes yet (the most: "
                     f"{int(g['n'].max())}), so no sector is singled out.")
            elif float(big["mean"].max()) == 0.0:
                f = (f"No pass through a mark-area sector with at least {MIN_PASSES} passes lost a stone "
                     f"({len(big)} such sectors).")
            else:
                f = _sector_finding(a, big, per_pass)
            if has_columns(a, "area_width_mm") and pass_widths(a).notna().sum() >= 2 * MIN_PASSES:
                # a pass over an empty ring goes through the widest area there is (pass_widths: inf)
                w = a.assign(area_width_mm=pass_widths(a)).dropna(subset=["area_width_mm"])
                med = float(w["area_width_mm"].median())
                narrow, wide = w[w["area_width_mm"] < med], w[w["area_width_mm"] >= med]
                if len(narrow) >= MIN_PASSES and len(wide) >= MIN_PASSES:
                    dn, dw = per_pass_mean(narrow, "penalties"), per_pass_mean(wide, "penalties")
                    nm = format_value(dn["mean"], dn["lo"], dn["hi"], False)
                    wm = format_value(dw["mean"], dw["lo"], dw["hi"], False)
                    apart = dn["lo"] > dw["hi"] or dw["lo"] > dn["hi"]
                    f += (f" Mark areas narrower than {med:.0f} mm cost {nm} stones per pass ({len(narrow)} passes), "
                          f"wider ones {wm} ({len(wide)} passes)"
                          + ("." if apart else ": the intervals overlap, so no difference is shown."))
            sec.plots.append(Plot("sun_danger_polar", "Danger per mark area", fig, f,
                                  f"Bars in {SECTOR_DEG:.0f}° sectors by the middle of the mark area the pass went "
                                  "through (0° = +x, counter-clockwise); length and colour: mean stones lost per pass. "
                                  f"Sectors with fewer than 3 passes are left out; numbers on the rim: passes per "
                                  f"sector; pale, hatched: fewer than {MIN_PASSES} passes, never used in a finding."))
            sec.findings.append(f)

    # 4. stones lost by shape and level
    lost = lost_stones(run)
    n_games = max(len(run.games), 1)
    if not lost.empty:
        shapes = sorted(lost["shape"].unique())
        levels_ = [lv for lv in [*LEVELS.values(), "unknown"] if lv in set(lost["level"])]
        parts = [(lv, [int(((lost["shape"] == sh) & (lost["level"] == lv)).sum()) / n_games for sh in shapes])
                 for lv in levels_]
        fig = stacked_bars(shapes, parts, title="Stones lost to the ball by shape and level", ylabel="stones lost per game",
                           xlabel="stone shape")
        by_shape = lost["shape"].value_counts()
        by_cause = lost["cause"].value_counts()
        f = (_causes_sentence(run) + f" The {len(lost)} stones lost to the ball by shape: "
             + ", ".join(f"{sh} {by_shape[sh] / n_games:.2f}" for sh in by_shape.index)
             + " per game (a count: it grows with how many stones of a shape are played; the survival below is "
             "the risk per stone); how the ball took them: "
             + ", ".join(f"{c} {100 * v / len(lost):.0f} %" for c, v in by_cause.items()) + ". Where they stood: "
             + ", ".join(f"{lv} {100 * (lost['level'] == lv).sum() / len(lost):.0f} %" for lv in levels_) + ".")
        sec.plots.append(Plot("sun_lost_by_shape", "Stones lost to the ball by shape and level", fig, f,
                              "Mean stones lost to the ball per game, by shape, split by where the stone stood when "
                              "it was lost (from the last placement of that stone); a placement's losses are counted "
                              "in the penalty table, not here."))
        sec.findings.append(f)
        tab = lost.groupby(["shape", "level", "cause"]).size().rename("stones").reset_index()
        tab["per game"] = (tab["stones"] / n_games).map(lambda x: f"{x:.2f}")
        sec.tables.append(("Stones lost to the ball by shape, level and cause", tab))
    causes = _causes_table(run)
    if causes is not None:
        # after the rules-exercised tables (which lead the section), before the pass tables
        at = sum(1 for c, _ in sec.tables if c.startswith("Rules exercised"))
        sec.tables.insert(at, ("Penalty stones by cause", causes))
        if lost.empty:
            sec.findings.append(_causes_sentence(run))

    # 5. stone survival (Kaplan-Meier over turns since a stone was stood; stones still up at the
    # end of a game are censored there)
    lives = stone_lives(run)
    if not lives.empty and int(lives["lost"].sum()) >= 3:
        fig, ax = new_figure(7.0, 4.0)
        curves = []
        for i, shape in enumerate(["all stones", *sorted(lives["shape"].unique())]):
            sub = lives if shape == "all stones" else lives[lives["shape"] == shape]
            km = kaplan_meier(sub["turns"].to_numpy(float), sub["lost"].to_numpy(int))
            colour = "#333333" if i == 0 else seat_color(i - 1)
            ax.step(km["t"], 100 * km["survival"], where="post", color=colour, lw=2.2 if i == 0 else 1.4,
                    label=f"{shape} ({len(sub)})")
            if i == 0:
                ax.fill_between(km["t"], 100 * km["lo"], 100 * km["hi"], step="post", color=colour, alpha=0.15,
                                label="95 % interval (all)")
            curves.append((shape, km))
        ax.set_xlabel("turns since the stone was stood")
        ax.set_ylabel("stones still standing (%)")
        ax.set_title("Stone survival")
        # survival is often high: zoom to the curves (in steps of 10 %) rather than show 0-100 %
        low = min(float(km["survival"].min()) for _, km in curves)
        low = min(low, float(curves[0][1]["lo"].min()))
        ax.set_ylim(max(0.0, 10 * math.floor((100 * low - 2) / 10)), 101)
        ax.legend(fontsize=8, loc="lower left")
        km_all = curves[0][1]
        horizon = int(min(20, km_all["t"].max())) if len(km_all) > 1 else 0
        at = km_all[km_all["t"] <= horizon].iloc[-1]
        slo, shi = _survival_interval(lives, horizon)
        f = (f"{int(lives['lost'].sum())} of {len(lives)} stones stood were lost. A stone survives {horizon} turns "
             f"after it is stood with probability {100 * at['survival']:.0f} % [{100 * slo:.0f}, "
             f"{100 * shi:.0f}] (a bootstrap over games: the stones of one game share its players)")
        by = [(sh, km[km["t"] <= horizon].iloc[-1]["survival"]) for sh, km in curves[1:]]
        if len(by) >= 2:
            worst = min(by, key=lambda x: x[1])
            # "the most fragile" only when the shape's interval (clustered by game, Bonferroni over
            # the shapes compared) excludes the overall figure. A risk per stone stood, not a count
            # per game (the shape losing most stones per game may be the one played most): say which,
            # so the two findings do not read as at odds
            wlo, whi = _survival_interval(lives[lives["shape"] == worst[0]], horizon, 1 - 0.05 / len(by))
            if whi == whi and whi < at["survival"]:
                f += (f"; per stone stood, the most fragile shape is the {worst[0]}: {100 * worst[1]:.0f} % "
                      f"[{100 * wlo:.0f}, {100 * whi:.0f}] of them survive {horizon} turns (the interval corrected "
                      f"for comparing {len(by)} shapes, Bonferroni)")
            else:
                f += (f"; no shape survives clearly less than all stones together: the lowest, the {worst[0]}, "
                      f"{100 * worst[1]:.0f} % [{100 * wlo:.0f}, {100 * whi:.0f}] (corrected for comparing "
                      f"{len(by)} shapes, Bonferroni), holds the overall figure" if whi == whi else
                      f"; per stone stood the lowest is the {worst[0]}, {100 * worst[1]:.0f} %, from too few "
                      "games to size")
        f += "."
        sec.plots.append(Plot("sun_stone_survival", "Stone survival", fig, f,
                              "Kaplan-Meier estimate over turns since each stone was first stood; stones still "
                              "standing when their game ended are censored there. Shaded: Greenwood 95 % interval "
                              "of the curve for all stones (log-log), stones taken as independent: narrower than "
                              "the finding's interval, clustered by game. Legend: stones per curve."))
        sec.findings.append(f)

    # 6. invalid passes
    if "invalid" in passes:
        inv = per_pass_share(passes.assign(_inv=(passes["invalid"] == 1).astype(float)), "_inv")
        inv["k"] = int((passes["invalid"] == 1).sum())
        games_inv = int((passes[passes["invalid"] == 1].groupby(["point", "game_index"]).size() > 0).sum())
        f = (f"{inv['k']} of {n_pass} passes ({100 * inv['rate']:.1f} % [{100 * inv['lo']:.1f}, {100 * inv['hi']:.1f}]) "
             f"were flagged invalid by the physics and re-run at the reference preset, in {games_inv} of "
             f"{len(run.games)} games.")
        sec.findings.append(f)
        if inv["k"]:
            by_seat = passes.groupby("seat")["invalid"].agg(["sum", "size"]).reset_index()
            sec.tables.append(("Invalid passes by seat", pd.DataFrame({
                "seat": by_seat["seat"], "passes": by_seat["size"], "invalid": by_seat["sum"].astype(int)})))
    return sec


def _per_pass(passes: pd.DataFrame, col: str, share: bool) -> tuple[float, float, float]:
    """The ratio of ``col`` over the passes of ``passes`` with its interval clustered by game
    (:func:`analysis.catalogue.ratio_interval`): the passes of one game share its layout and players."""
    nan = float("nan")
    if passes.empty:
        return (nan, nan, nan)
    per = passes.groupby(["point", "game_index"])[col].agg(["sum", "size"])
    r, lo, hi, _se = ratio_interval(per["sum"].to_numpy(float), per["size"].to_numpy(float), share=share)
    if lo != lo:  # one game: no spread between games to measure, so no interval
        lo, hi = (0.0, 1.0) if share else (nan, nan)
    return (r, lo, hi)


def per_pass_mean(passes: pd.DataFrame, col: str) -> dict[str, float]:
    """``{"mean", "lo", "hi", "n"}``: the mean of ``col`` per pass, interval clustered by game."""
    r, lo, hi = _per_pass(passes, col, False)
    return {"mean": r, "lo": lo, "hi": hi, "n": len(passes)}


def per_pass_share(passes: pd.DataFrame, col: str) -> dict[str, float]:
    """``{"rate", "lo", "hi", "n"}``: the share of passes with ``col`` 1, interval clustered by game."""
    r, lo, hi = _per_pass(passes, col, True)
    return {"rate": r, "lo": lo, "hi": hi, "n": len(passes)}


def _causes_table(run: RunData) -> pd.DataFrame | None:
    """Penalty stones by cause (the catalogue's rows, :mod:`sim.sun.report.metrics`): total and
    per game with its interval; the causes sum to the final scores."""
    names = ["penalties_per_game", *(f"{c}_penalties_per_game" for c in CAUSE_WORDS)]
    est = estimates(run, names)
    if "penalties_per_game" not in est:
        return None
    rows = []
    for name in names:
        if name in est:
            e = est[name]
            cause = name.removesuffix("_penalties_per_game")
            rows.append({"penalty stones": CAUSE_WORDS.get(cause, "all causes (the final scores summed)"),
                         "stones": int(round(e.num)), "per game [95 %]": e.text(2), "games": e.sample_words()})
    return pd.DataFrame(rows)


def _causes_sentence(run: RunData) -> str:
    """``532 penalty stones in 100 games (5.32 per game [..]): 515 lost to the ball, 4 knocked by a
    placement, 13 past the placement tries`` - the causes sum to the final scores."""
    est = estimates(run)
    tot = est.get("penalties_per_game")
    if tot is None:
        return ""
    bits = [f"{int(round(est[f'{c}_penalties_per_game'].num))} {w.removeprefix('stones ')}"
            for c, w in CAUSE_WORDS.items() if f"{c}_penalties_per_game" in est]
    return (f"{int(round(tot.num))} penalty stones in {tot.sample_words()} ({tot.text(2)} per game, the final scores "
            f"summed): " + ", ".join(bits) + ".")


def _sector_finding(a: pd.DataFrame, big: pd.DataFrame, overall: Any) -> str:
    """The danger-by-sector finding: a sector "costs the most" (or "the least") only when its
    interval, clustered by game like the overall figure's and widened for the number of sectors
    compared (Bonferroni: 1 - 0.05 / k), excludes the overall stones per pass; otherwise the
    sentence says that no sector stands out. The 95 % interval is the one printed. A sector seen
    in fewer than :data:`MIN_SECTOR_GAMES` games is never named."""
    found = []
    k = max(len(big), 1)
    for sec_ in big["sector"]:
        sub = a[a["sector"] == sec_]
        per = sub.groupby(["point", "game_index"])["penalties"].agg(["sum", "size"])
        y, x = per["sum"].to_numpy(float), per["size"].to_numpy(float)
        r, lo, hi, _se = ratio_interval(y, x, share=False)
        # the claim compares k sectors with the overall figure: it holds only when the interval at
        # 1 - 0.05 / k (Bonferroni over the sectors) excludes it; about one of 24 plain 95 %
        # intervals excludes it by chance alone
        _, blo, bhi, bse = ratio_interval(y, x, share=False, confidence=1 - 0.05 / k)
        if bse == 0:
            # every game of the sector lost the same per pass (no interval is printed: "no spread"):
            # from MIN_SECTOR_GAMES games on that value is what the claim compares with the overall
            blo = bhi = r
        if len(per) < MIN_SECTOR_GAMES:
            # the delta-method variance is measured between games: a handful of games (two games
            # whose every pass cost two stones give 2.00 [2.00, 2.00]) does not measure it
            blo = bhi = float("nan")
        found.append((int(sec_), r, lo, hi, len(sub), len(per), blo, bhi))
    ov = overall.value

    def deg(x: int) -> str:
        lo_deg = int(x * SECTOR_DEG)
        return f"{lo_deg}–{lo_deg + int(SECTOR_DEG)}°"

    above = [t for t in found if t[6] == t[6] and t[6] > ov]
    below = [t for t in found if t[7] == t[7] and t[7] < ov]
    base = f"against {overall.text()} overall (the claim corrected for comparing {k} sectors, Bonferroni)"
    parts = []
    # "most" and "least" among the sectors that clearly differ: a sector with a higher mean on few
    # passes may show a longer bar yet not clearly differ (the plot's bars are the means)
    def among(n: int, way: str) -> str:
        return "the only sector that does" if n == 1 else f"the {way} of the {n} sectors that do"

    if above:
        w = max(above, key=lambda t: t[1])
        parts.append(f"passes through mark areas at {deg(w[0])} cost clearly more than overall "
                     f"({among(len(above), 'costliest')}): {format_value(w[1], w[2], w[3], False, 2, w[5])} stones lost to "
                     f"the ball per pass ({w[4]} passes in {w[5]} games), {base}")
    if below:
        b = min(below, key=lambda t: t[1])
        parts.append(f"those at {deg(b[0])} clearly less ({among(len(below), 'cheapest')}): "
                     f"{format_value(b[1], b[2], b[3], False, 2, b[5])} ({b[4]} passes in {plural(b[5], 'game')})")
    if parts:
        return (f"Of the sectors with at least {MIN_PASSES} passes in {MIN_SECTOR_GAMES} games or more, "
                + "; ".join(parts) + ".")
    w = max(found, key=lambda t: t[1])
    return (f"No mark-area sector with at least {MIN_PASSES} passes (in {MIN_SECTOR_GAMES} games or more) costs clearly "
            f"more or less than the overall "
            f"{overall.text()} stones lost to the ball per pass: the costliest, {deg(w[0])}, "
            f"{format_value(w[1], w[2], w[3], False, 2, w[5])} ({w[4]} passes in {plural(w[5], 'game')}), has an interval that holds the overall figure "
            f"once corrected for comparing {k} sectors (Bonferroni).")


def _km_at(d: np.ndarray, e: np.ndarray, horizon: float) -> float:
    """Kaplan-Meier survival at ``horizon`` (the product over event times up to it)."""
    s = 1.0
    for t in np.unique(d[(e == 1) & (d <= horizon)]):
        n = int((d >= t).sum())
        s *= 1.0 - int(((d == t) & (e == 1)).sum()) / n
    return s


def _survival_interval(lives: pd.DataFrame, horizon: float, confidence: float = 0.95,
                       resamples: int = 400) -> tuple[float, float]:
    """The percentile interval (``confidence``, 95 % by default) of the survival at ``horizon``
    from a bootstrap over games (the stones of one game share its layout and players: the game is
    the sampled unit); fixed seed. NaN from fewer than 2 games."""
    keys = list(zip(lives["point"].astype(int), lives["game_index"].astype(int)))
    by: dict[tuple[int, int], list[int]] = {}
    for i, k in enumerate(keys):
        by.setdefault(k, []).append(i)
    groups = [np.asarray(v) for v in by.values()]
    if len(groups) < 2:
        return float("nan"), float("nan")
    d, e = lives["turns"].to_numpy(float), lives["lost"].to_numpy(int)
    rng = np.random.default_rng(20260)
    vals = []
    for _ in range(resamples):
        idx = np.concatenate([groups[j] for j in rng.integers(0, len(groups), len(groups))])
        vals.append(_km_at(d[idx], e[idx], horizon))
    tail = 50 * (1 - confidence)
    lo, hi = np.percentile(vals, [tail, 100 - tail])
    return float(lo), float(hi)


#: fewest games a mark-area sector's passes must come from before a finding may name it (its
#: interval is clustered by game: the spread between a handful of games is not measured)
MIN_SECTOR_GAMES = 10

#: Most games the Replays section lists (the rest are one command away, with their index)
REPLAY_ROWS = 8


def replay_picks(games: pd.DataFrame, limit: int = REPLAY_ROWS) -> list[tuple[Any, str]]:
    """A few games worth watching, each with why: the first game (of each sweep point), the first of each outcome
    (a seat's win, a shared win, a draw) and of each ending, then the games with the most and the
    fewest penalty stones. ``games``: the run's games (``point, game_index, winners, scores_json,
    termination``); at most ``limit`` rows, in the order of the reasons."""
    order = games.sort_values(["point", "game_index"])
    picks: dict[tuple[int, int], tuple[Any, list[str]]] = {}

    def take(row: Any, why: str) -> None:
        """One row per game: a game that is the first of two things says both."""
        key = (int(row["point"]), int(row["game_index"]))
        if key in picks:
            picks[key][1].append(why)
        elif len(picks) < limit:
            picks[key] = (row, [why])

    def outcome(row: Any) -> str:
        w = row.get("winners")
        w = w if isinstance(w, list) else []
        return "draw" if not w else (f"win of seat {w[0]}" if len(w) == 1 else "shared win")

    def penalties(row: Any) -> float:
        try:
            return float(sum(float(x) for x in json.loads(row.get("scores_json") or "[]")))
        except (TypeError, ValueError):
            return float("nan")

    rows = [r for _, r in order.iterrows()]
    if not rows:
        return []
    take(rows[0], "the first game")
    for pt in dict.fromkeys(int(r["point"]) for r in rows[1:]):
        if pt != int(rows[0]["point"]):
            take(next(r for r in rows if int(r["point"]) == pt), f"first game of sweep point {pt}")
    for why in dict.fromkeys(outcome(r) for r in rows):
        take(next(r for r in rows if outcome(r) == why), f"first {why}")
    for end in dict.fromkeys(str(r.get("termination")) for r in rows):
        take(next(r for r in rows if str(r.get("termination")) == end), f"first ended by '{end}'")
    pens = [(penalties(r), -i) for i, r in enumerate(rows) if penalties(r) == penalties(r)]
    if len(pens) > 1:
        hi, lo = max(pens), min(pens, key=lambda x: (x[0], -x[1]))  # ties: the first game
        take(rows[-hi[1]], f"most penalty stones ({hi[0]:g})")
        take(rows[-lo[1]], f"fewest penalty stones ({lo[0]:g})")
    return [(row, "; ".join(why)) for row, why in picks.values()]


def replays_section(run: RunData) -> Section | None:
    """A few games to watch (:func:`replay_picks`): the replay file the run wrote, or the command
    that re-simulates the game exactly from its seed (``sim.sun.viewer.runs``); then how to watch any
    other. The sweep point is a column only when the study has several."""
    games = run.games
    if games.empty:
        return None
    esc = html.escape
    run_dir = run.run_dir
    viewer = run_dir / VIEWER_DIR / "standalone.html"
    sweep = games["point"].nunique() > 1
    rows = []
    for g, why in replay_picks(games):
        point, idx = int(g["point"]), int(g["game_index"])
        f = run_dir / REPLAYS_DIR / replay_name(idx, point)
        winners = g.get("winners")
        who = ", ".join(f"seat {w}" for w in winners) if isinstance(winners, list) and winners else "draw"
        target = f"{run_dir}" + (f" --point {point}" if point else "") + f" --game {idx}"
        cell = (f"<a href='../{REPLAYS_DIR}/{esc(f.name)}'>{esc(f.name)}</a> · " if f.exists() else "")
        scores = g.get("scores_json")
        try:
            pen = ", ".join(f"{float(x):g}" for x in json.loads(scores))
        except (TypeError, ValueError):
            pen = ""
        rows.append(
            f"<tr><td style='text-align:left'>{esc(why)}</td>" + (f"<td>{point}</td>" if sweep else "")
            + f"<td>{idx}</td><td>{esc(who)}</td><td>{esc(pen)}</td>"
            f"<td style='text-align:left'>{cell}<code>stonelab replay view {esc(target)}</code></td></tr>"
        )
    last = int(games["game_index"].max())
    any_game = (f"<p class='note'>Any other of the {len(games)} games: <code>stonelab replay view "
                f"{esc(str(run_dir))}" + (" --point P" if sweep else "") + f" --game N</code> (N from 0 to {last}"
                + (f", P from 0 to {int(games['point'].max())}" if sweep else "") + ").</p>")
    link = (
        f"<p><a href='../{VIEWER_DIR}/standalone.html'>Watch the first game in 3-D</a> (opens in the browser; "
        f"or serve the folder: <code>stonelab replay serve {esc(str(run_dir / VIEWER_DIR))}</code>).</p>"
        if viewer.exists()
        else ""
    )
    body = (
        link
        + "<table class='data'><thead><tr><th>why this game</th>" + ("<th>sweep point</th>" if sweep else "")
        + "<th>game</th><th>winner</th><th>penalties by seat</th>"
        "<th>replay</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>" + any_game
    )
    return Section(
        "Replays",
        "Every game can be watched in 3-D: a few worth a look are listed. Games without a file here are "
        "re-simulated exactly from their seed by the command shown (a few seconds each).",
        html=body,
    )


def player_model(run: RunData) -> str | None:
    """The study's player model for the top of the report: each seat's skill and its sigmas (from
    ``sim.sun.sections.thrower_of``, so overrides and presets count), and what a sweep or sensitivity
    study varies."""
    seats = run.scenario.get("seats") or []
    if not seats:
        return None
    defaults = {o.name: o.default for o in SEAT_OPTIONS}
    parts = []
    for i, seat in enumerate(seats):
        th = thrower_of({**defaults, **dict(seat)})
        skill_name = str(seat.get("skill", defaults.get("skill", "steady")))
        sig = (f"aim {th.sigma_aim_deg:g}°, release {1000 * th.sigma_release_m:g} mm, push "
               f"{1000 * th.sigma_push_mps:g} mm/s, placement {1000 * th.sigma_place_m:g} mm and "
               f"{th.sigma_place_deg:g}°")
        own = " (with overrides)" if th.name != skill_name and not skill_name.endswith(".toml") else ""
        fitted = _fit_note(skill_name) if skill_name.endswith(".toml") else ""
        parts.append(f"seat {i}: {skill_name}{own}{fitted} hand, sigmas {sig}")
    text = "; ".join(parts) + "."
    varied = [k for k in run.sweep_keys if k.startswith("seats.")]
    if varied:
        text += " Varied by the study: " + ", ".join(varied) + " (see the sweep or sensitivity section)."
    return text


#: the scenario tables a layout file holds: a search over any of them writes the winner's layout
LAYOUT_TABLES = ("table", "ball", "physics", "shapes", "layout")
#: the winning design's layout file, beside ``best.toml`` in a tune folder
BEST_LAYOUT = "best-layout.toml"


def design_files(sections: Mapping[str, Mapping[str, Any]], searched: Sequence[str], folder: Path,
                 title: str) -> list[Path]:
    """The winner of a search over the Sun's table, ball, physics or stones as a layout file,
    ``folder/best-layout.toml``, which ``stonelab sun pass``, ``stability``, ``show``, ``edit``
    and a scenario's ``[layout] file`` read (GameReport.design_files).

    The layout carries the winning scenario's physical tables (its ``[layout] file``'s, overridden
    by its own, as a game sees them: :func:`sim.sun.sections.layout_of`) and, when the scenario starts
    from a layout's stones (``[layout] start = "layout"``), those stones and gates too, unless the
    winning stone sizes no longer fit them (then the file has the tables only and its description
    says so). Nothing is written when no key of those tables was searched (and a layout file an
    earlier search left in ``folder`` is removed, so the folder never shows another winner's).

    Raises:
        ScenarioError: the winning tables do not make a valid layout (cannot happen for a design
            the search played).
        OSError: the file cannot be written.
    """
    path = folder / BEST_LAYOUT
    if not any(k.split(".", 1)[0] in LAYOUT_TABLES for k in searched):
        path.unlink(missing_ok=True)  # an earlier search's winner in this folder is not this one's
        return []
    lay = layout_of(sections)
    note = ""
    start = start_layout(sections)
    if start is not None:
        with_stones = dc_replace(lay, stones=start.stones, gates=start.gates)
        try:
            parse_layout(tomllib.loads(dump_layout_toml(with_stones)))
            lay = with_stones
        except ScenarioError as e:
            note = f"; the start layout's stones do not fit these stone sizes ({e.message}), so none are written"
    text = dump_layout_toml(lay, name=title, description=(
        "the table, ball and stones of the design stonelab tune found" + note))
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return [path]
