"""El Farol's report: the walkthrough's example of a world's report module
(docs/add-a-world.md).

It shows what the world is about, attendance against the bar's capacity week by week, read
from metrics.json's `elfarol` section, and tells the report layer what to leave out: a week
is a tick, so the common day timeline has nothing to draw, and agents decide alone, so there
are no conversations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from simulacra.report.per_world import WorldReport
from simulacra.report.plots import figure_svg, plot_style, tidy_axes
from simulacra.report.replay_model import Replay
from simulacra.report.sections import as_list, as_mapping, figure, links, number, section
from simulacra.report.tables import rows_table

Metrics = Mapping[str, Any]


def _sections(replay: Replay, metrics: Metrics) -> list[str]:
    bar = as_mapping(metrics.get("elfarol"))
    weeks = [int(number(w)) for w in as_list(bar.get("weeks"))]
    if not weeks:
        return [section("Attendance", '<p class="empty">No week was played.</p>', "attendance")]
    went = [int(number(n)) for n in as_list(bar.get("attendance"))]
    crowded = [bool(c) for c in as_list(bar.get("crowded"))]
    agents, seats = int(number(bar.get("agents"))), int(number(bar.get("seats")))
    headline = as_mapping(bar.get("headline"))
    summary = (
        f"<p>{agents} agents; the evening is enjoyable while at most {seats} go. On average "
        f"{number(headline.get('mean_attendance')):.1f} went (standard deviation "
        f"{number(headline.get('attendance_std')):.1f}); the bar was crowded in "
        f"{sum(crowded)} of {len(weeks)} weeks.</p>"
    )
    svg = _attendance_svg(weeks, went, crowded, agents, seats)
    chart = figure(svg, "attendance per week against the capacity", "Attendance each week")
    rows = [
        {"week": f"week {w}", "went": n, "stayed home": agents - n, "crowded": c}
        for w, n, c in zip(weeks, went, crowded, strict=False)
    ]
    table = rows_table(rows, links(replay))
    body = f"{summary}{chart}<details><summary>Every week</summary>{table}</details>"
    return [section("Attendance against capacity", body, "attendance")]


def _attendance_svg(
    weeks: list[int], went: list[int], crowded: list[bool], agents: int, seats: int
) -> str:
    with plot_style():
        fig = Figure(figsize=(9, 3))
        ax = fig.add_subplot()
        ax.plot(weeks, went, color="#00798c", marker="o", markersize=3, label="went")
        over = [(w, n) for w, n, c in zip(weeks, went, crowded, strict=False) if c]
        if over:
            xs, ys = [w for w, _ in over], [n for _, n in over]
            ax.scatter(xs, ys, color="#d1495b", zorder=3, s=22, label="crowded")
        ax.axhline(seats, color="#9aa0ad", linestyle="--", label=f"capacity ({seats})")
        ax.set_ylim(0, agents)
        ax.set_xlabel("week")
        ax.set_ylabel("agents at the bar")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # agents come whole
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
        tidy_axes(ax)
        return figure_svg(fig)


REPORT = WorldReport(
    "elfarol",
    sections=_sections,
    shown=("elfarol",),
    units={
        "mean_attendance": "agents a week",
        "attendance_std": "agents",
        "crowded_share": "share of weeks (0 to 1)",
    },
    timeline=False,
    conversations=False,
)
