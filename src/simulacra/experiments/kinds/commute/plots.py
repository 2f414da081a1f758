"""The commute figures as SVG documents, drawn by matplotlib without pyplot (no global state).

- origins and destinations on the corridor by profile, over the bus stops (Figure 4);
- one profile's trips on one day, by mode (Figure 5);
- modal split per profile per day, one small panel per profile (Figure 6);
- mean taxi wait per day, the strike window shaded, in all (Figure 7's bars) and per profile
  with its modal split (Figure 7).
"""

from __future__ import annotations

import contextlib
import io
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from simulacra.worlds.commute import MODES

MODE_COLOURS = {"bus": "#30638e", "taxi": "#edae49", "walk": "#3a9d5d"}
_STRIKE = "#d1495b"
_STOP = "#d1495b"
_PANELS_PER_ROW = 4
_PROFILE_COLOURS = ("#30638e", "#edae49", "#3a9d5d", "#8e5572", "#00798c", "#6b705c")


def origins_svg(rows: Sequence[Mapping[str, Any]], stops: Sequence[float], title: str) -> str:
    """Each agent's home (circle) and destination (square) on the corridor, one band per
    profile, jittered across the band only: distances along the corridor stay true."""
    profiles = list(dict.fromkeys(str(r["profile"]) for r in rows))
    jitter = random.Random(4)  # the same picture for the same run
    with _style():
        fig = Figure(figsize=(9, 1.0 + 0.55 * max(1, len(profiles))))
        ax = fig.add_subplot()
        ax.axhline(0, color="#9aa1ad", linewidth=1)
        ax.scatter(stops, [0] * len(stops), color=_STOP, s=14, zorder=3, label="bus stop")
        for index, profile in enumerate(profiles):
            colour = _PROFILE_COLOURS[index % len(_PROFILE_COLOURS)]
            mine = [r for r in rows if r["profile"] == profile]
            band = index + 1
            for start, end in sorted(
                {(float(r["home_km"]), float(r["destination_km"])) for r in mine}
            ):
                arrow = {"arrowstyle": "->", "color": colour, "alpha": 0.5, "linewidth": 0.8}
                ax.annotate("", xy=(end, band), xytext=(start, band), arrowprops=arrow)
            for key, marker in (("home_km", "o"), ("destination_km", "s")):
                ys = [band + jitter.uniform(-0.3, 0.3) for _ in mine]
                xs = [float(r[key]) for r in mine]
                ax.scatter(xs, ys, color=colour, marker=marker, s=9, alpha=0.6, linewidths=0)
        ax.set_yticks(range(len(profiles) + 1), ["stops", *(p.replace("_", " ") for p in profiles)])
        ax.set_xlabel("km along the corridor (circles: homes; squares: destinations)")
        ax.set_title(title, loc="left", fontsize=10)
        _tidy(ax)
        fig.tight_layout()
        return _svg(fig)


def choices_svg(rows: Sequence[Mapping[str, Any]], stops: Sequence[float], title: str) -> str:
    """One line per trip from home to destination, coloured by the mode chosen."""
    counts = Counter(str(r["mode"]) for r in rows)
    with _style():
        fig = Figure(figsize=(9, 2.8))
        ax = fig.add_subplot()
        ax.scatter(stops, [-1] * len(stops), color=_STOP, s=12, label="bus stop")
        for index, row in enumerate(rows):
            start, end = float(row["home_km"]), float(row["destination_km"])
            colour = MODE_COLOURS.get(str(row["mode"]), "#888888")
            ax.plot([start, end], [index, index], color=colour, linewidth=1.2, alpha=0.8)
            ax.scatter([end], [index], color=colour, s=6)
        handles = [
            Line2D([0], [0], color=MODE_COLOURS[m], label=f"{m} ({counts.get(m, 0)})")
            for m in MODES
        ]
        ax.legend(handles=handles, frameon=False, fontsize=7, loc="upper right")
        ax.set_yticks([])
        ax.set_ylabel("agents")
        ax.set_xlabel("km along the corridor (dots: destinations; red: bus stops)")
        ax.set_title(title, loc="left", fontsize=10)
        _tidy(ax)
        fig.tight_layout()
        return _svg(fig)


def profile_strike_svg(
    split: Mapping[str, Mapping[str, Mapping[str, float]]],
    waits: Mapping[str, Sequence[Mapping[str, Any]]],
    strike_days: Sequence[int],
    title: str,
) -> str:
    """Per profile: its modal split over the days (lines) and its mean taxi wait (bars)."""
    with _style():
        return _svg(profile_strike_figure(split, waits, strike_days, title))


def profile_strike_figure(
    split: Mapping[str, Mapping[str, Mapping[str, float]]],
    waits: Mapping[str, Sequence[Mapping[str, Any]]],
    strike_days: Sequence[int],
    title: str,
) -> Figure:
    """The figure `profile_strike_svg` draws (Figure 7 of the source)."""
    profiles = [p for p in split if p in waits] or list(split) or ["(no trips)"]
    columns = min(2, len(profiles))
    rows = -(-len(profiles) // columns)
    with _style():
        fig = Figure(figsize=(4.6 * columns + 0.6, 2.6 * rows + 0.6))
        axes = fig.subplots(rows, columns, squeeze=False)
        for index, ax in enumerate(axes.flat):
            if index >= len(profiles):
                ax.set_visible(False)
                continue
            profile = profiles[index]
            bars = ax.twinx()
            by_day = waits.get(profile, [])
            days = [int(r["day"]) for r in by_day]
            bars.bar(
                days,
                [float(r.get("mean_wait_min") or 0.0) for r in by_day],
                color="#9aa1ad",
                alpha=0.45,
                width=0.7,
            )
            bars.set_ylabel("taxi wait (min)", fontsize=7)
            _modes(ax, profile, split.get(profile, {}), strike_days)
            ax.set_zorder(bars.get_zorder() + 1)
            ax.patch.set_visible(False)
            ax.set_ylabel("% of trips")
        return _panels(fig, axes, title)


def modal_split_svg(
    split: Mapping[str, Mapping[str, Mapping[str, float]]], strike_days: Sequence[int], title: str
) -> str:
    """`split` is profile -> day (a string, as in metrics.json) -> mode -> percent."""
    profiles = list(split) or ["(no trips)"]
    columns = min(_PANELS_PER_ROW, len(profiles))
    rows = -(-len(profiles) // columns)
    with _style():
        fig = Figure(figsize=(2.6 * columns + 0.8, 2.3 * rows + 0.6))
        axes = fig.subplots(rows, columns, sharey=True, squeeze=False)
        for index, ax in enumerate(axes.flat):
            if index >= len(profiles):
                ax.set_visible(False)
                continue
            _modes(ax, profiles[index], split.get(profiles[index], {}), strike_days)
            if index % columns == 0:
                ax.set_ylabel("% of trips")
        return _svg(_panels(fig, axes, title))


def _modes(
    ax: Axes, profile: str, days: Mapping[str, Mapping[str, float]], strike_days: Sequence[int]
) -> None:
    """One profile's percent of trips by mode over the days, the strike shaded."""
    _shade(ax, strike_days)
    xs = [int(d) for d in days]
    for mode in MODES:
        ys = [days[d].get(mode, 0.0) for d in days]
        ax.plot(xs, ys, color=MODE_COLOURS[mode], linewidth=1.5, marker=".", label=mode)
    ax.set_title(profile.replace("_", " "), fontsize=9)
    ax.set_ylim(-3, 103)
    ax.set_xlabel("day")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # day 3, never day 2.5
    _tidy(ax)


def _panels(fig: Figure, axes: Any, title: str) -> Figure:
    """A figure of panels: its title on top, one legend for all of them at the foot, where
    a long title cannot run into it."""
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncols=4, frameon=False)
    fig.suptitle(title, x=0.01, ha="left", fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 0.95))
    return fig


def taxi_wait_svg(
    by_day: Sequence[Mapping[str, Any]], strike_days: Sequence[int], title: str
) -> str:
    """`by_day` rows carry `day` and `mean_wait_min` (None on a day with no taxi trip)."""
    with _style():
        fig = Figure(figsize=(7.5, 2.8))
        ax = fig.add_subplot()
        _shade(ax, strike_days)
        days = [int(row["day"]) for row in by_day]
        waits = [float(row.get("mean_wait_min") or 0.0) for row in by_day]
        colours = [_STRIKE if d in strike_days else MODE_COLOURS["taxi"] for d in days]
        ax.bar(days, waits, color=colours, width=0.7)
        for row, day in zip(by_day, days, strict=True):
            if row.get("mean_wait_min") is None:
                ax.annotate("no taxi trips", (day, 0), rotation=90, fontsize=7, va="bottom")
        ax.set_ylim(0, max([*waits, 1.0]) * 1.15)  # no taxi trip at all: an empty 0..1 axis
        ax.set_xlabel("day")
        ax.set_ylabel("mean taxi wait (min)")
        ax.set_xticks(days)
        ax.set_title(title, loc="left", fontsize=10)
        _tidy(ax)
        fig.tight_layout()
        return _svg(fig)


def _shade(ax: Axes, strike_days: Sequence[int]) -> None:
    """Each run of consecutive strike days as one shaded band, labelled once."""
    label = "taxi strike"
    for first, last in _runs(sorted(strike_days)):
        ax.axvspan(first - 0.5, last + 0.5, color=_STRIKE, alpha=0.12, linewidth=0, label=label)
        label = "_nolegend_"


def _runs(days: Sequence[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for day in days:
        if runs and day == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], day)
        else:
            runs.append((day, day))
    return runs


def _style() -> contextlib.AbstractContextManager[None]:
    # Text stays text and ids are stable, so the same run draws the same file.
    return matplotlib.rc_context(
        {"svg.fonttype": "none", "svg.hashsalt": "simulacra-commute", "font.size": 8}
    )


def _tidy(ax: Axes) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _svg(fig: Figure) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    return buffer.getvalue()
