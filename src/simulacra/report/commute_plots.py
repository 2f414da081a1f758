"""The commute figures as SVG documents, drawn by matplotlib without pyplot (no global state).

- modal split per profile per day, one small panel per profile (the source's Figure 6);
- mean taxi wait per day, the strike window shaded (the source's Figure 7).
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from simulacra.worlds.commute import MODES

MODE_COLOURS = {"bus": "#30638e", "taxi": "#edae49", "walk": "#3a9d5d"}
_STRIKE = "#d1495b"
_PANELS_PER_ROW = 4


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
            profile = profiles[index]
            days = split.get(profile, {})
            xs = [int(d) for d in days]
            _shade(ax, strike_days)
            for mode in MODES:
                ys = [days[d].get(mode, 0.0) for d in days]
                ax.plot(xs, ys, color=MODE_COLOURS[mode], linewidth=1.5, marker=".", label=mode)
            ax.set_title(profile.replace("_", " "), fontsize=9)
            ax.set_ylim(-3, 103)
            ax.set_xlabel("day")
            if index % columns == 0:
                ax.set_ylabel("% of trips")
            _tidy(ax)
        handles, labels = axes.flat[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="upper right", ncols=4, frameon=False)
        fig.suptitle(title, x=0.01, ha="left", fontsize=10)
        fig.tight_layout(rect=(0, 0, 1, 0.93))
        return _svg(fig)


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
