"""Plots as inline SVG, drawn by matplotlib without pyplot (no global figure state)."""

from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from simulacra.report.budget import BudgetLine

_INK = "#1f2430"
_ACCENT = "#00798c"


@dataclass(frozen=True)
class DiffusionPoint:
    t: datetime | None
    aware: float
    agents: float
    link: str  # into the viewer at this time


def diffusion_svg(
    points: Sequence[DiffusionPoint], skipped: Sequence[tuple[datetime, datetime]] = ()
) -> str:
    """How many knew at each interview, a step line; the line breaks at each span the clock
    skipped (a night), shaded, for nothing was simulated there to carry it across."""
    with plot_style():
        fig = Figure(figsize=(9, 3))
        ax = fig.add_subplot()
        times = [p.t for p in points]
        timed = all(t is not None for t in times)
        first = times[0] if timed else None
        xs = [_hours(t, first) if timed else float(i) for i, t in enumerate(times)]
        aware = [p.aware for p in points]
        gaps = [(_hours(a, first), _hours(b, first)) for a, b in skipped] if timed else []
        for index, (low, high) in enumerate(gaps):
            label = "not simulated (skipped)" if index == 0 else None
            ax.axvspan(low, high, color="#eef0f3", zorder=0, label=label)
        for run in _unbroken(xs, gaps):
            line_xs, line_ys = [xs[i] for i in run], [aware[i] for i in run]
            later = [low for low, _ in gaps if low >= line_xs[-1]]
            if later and run[-1] < len(xs) - 1:  # the day's last count holds until it ends
                line_xs.append(min(later))
                line_ys.append(line_ys[-1])
            first_run = run[0] == 0
            ax.step(line_xs, line_ys, where="post", color=_ACCENT, linewidth=1.6,
                    label="aware of it" if first_run else None)  # fmt: skip
            ax.plot(line_xs[: len(run)], [points[i].agents for i in run], color="#9aa0ad",
                    linestyle="--", label="agents" if first_run else None)  # fmt: skip
        dots = ax.scatter(xs, aware, color=_ACCENT, zorder=3, s=28)
        dots.set_urls([p.link for p in points])  # each point opens the viewer at its time
        ax.set_ylim(0, max([p.agents for p in points] + aware + [1]) * 1.08)
        ax.set_ylabel("agents")
        ax.set_xlabel("simulated time" if timed else "interview round")
        if first is not None:
            days = len({t.date() for t in times if t is not None}) > 1
            ax.xaxis.set_major_formatter(_clock_of(first, days))
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
        tidy_axes(ax)
        return figure_svg(fig)


def _unbroken(xs: Sequence[float], gaps: Sequence[tuple[float, float]]) -> list[list[int]]:
    """The runs of point indices with no skipped span between neighbours."""
    runs: list[list[int]] = []
    for i, x in enumerate(xs):
        if runs and not any(xs[i - 1] <= low and high <= x for low, high in gaps):
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def steps_svg(
    steps: Sequence[int], panels: Sequence[tuple[str, Mapping[str, Sequence[float]]]]
) -> str:
    """Side-by-side panels of named series over the steps, e.g. agents within each fire's reach."""
    with plot_style():
        fig = Figure(figsize=(9, 2.8))
        axes = fig.subplots(1, max(len(panels), 1), squeeze=False)[0]
        for ax, (title, series) in zip(axes, panels, strict=False):
            for index, (name, values) in enumerate(series.items()):
                ys = list(values)[: len(steps)]
                ax.plot(steps[: len(ys)], ys, marker=".", color=f"C{index % 10}", label=name)
            ax.set_title(title, loc="left", fontsize=9)
            ax.set_xlabel("step")
            ax.set_ylim(bottom=0)
            ax.xaxis.get_major_locator().set_params(integer=True)
            if series:
                ax.legend(frameon=False, fontsize=7)
            tidy_axes(ax)
        fig.tight_layout()
        return figure_svg(fig)


def budget_svg(lines: Sequence[BudgetLine]) -> str:
    with plot_style():
        height = 1.0 + 0.28 * len(lines)
        fig = Figure(figsize=(9, height))
        calls_ax, tokens_ax = fig.subplots(1, 2, sharey=True)
        names = [line.key for line in lines][::-1]
        calls_ax.barh(names, [line.calls for line in lines][::-1], color=_ACCENT)
        calls_ax.set_xlabel("calls")
        prompt = [line.prompt_tokens for line in lines][::-1]
        tokens_ax.barh(names, prompt, color="#30638e", label="prompt")
        tokens_ax.barh(
            names,
            [line.completion_tokens for line in lines][::-1],
            left=prompt,
            color="#edae49",
            label="completion",
        )
        tokens_ax.set_xlabel("tokens")
        tokens_ax.legend(loc="lower right", frameon=False)
        for ax in (calls_ax, tokens_ax):
            tidy_axes(ax)
        fig.tight_layout()
        return figure_svg(fig)


def ratings_svg(rows: Sequence[Mapping[str, Any]], published: Mapping[str, float]) -> str:
    """TrueSkill mu per condition with its bootstrap interval; the source's mu as a diamond."""
    with plot_style():
        fig = Figure(figsize=(9, 0.9 + 0.42 * len(rows)))
        ax = fig.add_subplot()
        names = [str(r["condition"]) for r in rows][::-1]
        ys = list(range(len(names)))
        for y, row in zip(ys, rows[::-1], strict=True):
            low, high = row.get("low"), row.get("high")
            if low is not None and high is not None:
                ax.plot([low, high], [y, y], color=_ACCENT, linewidth=3, alpha=0.35)
            ax.plot([row["mu"]], [y], "o", color=_ACCENT)
            if row["condition"] in published:
                ax.plot([published[row["condition"]]], [y], "D", color="#edae49")
        ax.set_yticks(ys, names)
        ax.set_xlabel("TrueSkill mu (o ours with 95% interval, \u25c6 the source's)")
        tidy_axes(ax)
        return figure_svg(fig)


def intervals_svg(
    names: Sequence[str],
    rows: Sequence[tuple[str, Mapping[str, Mapping[str, Any] | None]]],
    marked: Collection[str] = (),
) -> str:
    """A panel per figure: each row's (variant's) mean as a dot and its interval as a bar,
    the rows in the table's order, top down; a hollow dot where the interval was made by a
    `marked` method (replicates that all agree: experiments/stats.py)."""
    with plot_style():
        across = max(1, min(len(names), 3))
        down = max(1, math.ceil(len(names) / across))
        fig = Figure(figsize=(9, (0.7 + 0.32 * len(rows)) * down))
        axes = fig.subplots(down, across, squeeze=False, sharey=True)
        ys = list(range(len(rows)))
        for index, ax in enumerate(axes.flat):
            if index >= len(names):
                ax.set_visible(False)
                continue
            name = names[index]
            for y, (_label, figures) in zip(ys, rows, strict=True):
                value = figures.get(name)
                if not value:
                    continue
                low, high = value.get("low"), value.get("high")
                if low is not None and high is not None:
                    ax.plot([low, high], [y, y], color=_ACCENT, linewidth=3, alpha=0.35)
                counted = value.get("method") in marked
                ax.plot(
                    [value["mean"]],
                    [y],
                    "o",
                    color=_ACCENT,
                    fillstyle="none" if counted else "full",
                )
            ax.set_yticks(ys, [label for label, _ in rows])
            ax.set_ylim(len(rows) - 0.5, -0.5)
            ax.set_title(name.replace("_", " "), loc="left", fontsize=9)
            tidy_axes(ax)
        fig.tight_layout()
        return figure_svg(fig)


def over_time_svg(times: Sequence[str], series: Mapping[str, Sequence[float]], ylabel: str) -> str:
    """Named series at interview times: network density, or each fact's share aware."""
    with plot_style():
        fig = Figure(figsize=(9, 2.8))
        ax = fig.add_subplot()
        labels = [t.replace("T", " ")[:16] for t in times]
        for index, (name, values) in enumerate(series.items()):
            ax.plot(labels, list(values), marker="o", color=f"C{index % 10}", label=name)
        ax.set_ylim(0, 1.02)
        ax.set_ylabel(ylabel)
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
        tidy_axes(ax)
        return figure_svg(fig)


def acquaintance_svg(
    agents: Sequence[str], before: Iterable[Sequence[str]], after: Iterable[Sequence[str]]
) -> str:
    """Agents on a circle; who knows whom at the start (grey) and acquaintances made since
    (coloured), an arrow from the one who said it knows the other."""
    with plot_style():
        fig = Figure(figsize=(6.5, 6.5))
        ax = fig.add_subplot()
        n = max(len(agents), 1)
        at = {
            a: (math.cos(2 * math.pi * i / n), math.sin(2 * math.pi * i / n))
            for i, a in enumerate(agents)
        }
        old = {tuple(e) for e in before}
        for edges, colour, width in (
            (old, "#c4c8d0", 0.7),
            ({tuple(e) for e in after} - old, _ACCENT, 1.2),
        ):
            for a, b in sorted(edges):
                if a in at and b in at:
                    (x0, y0), (x1, y1) = at[a], at[b]
                    ax.annotate(
                        "",
                        (x1, y1),
                        (x0, y0),
                        arrowprops={
                            "arrowstyle": "->",
                            "color": colour,
                            "lw": width,
                            "shrinkA": 6,
                            "shrinkB": 6,
                        },
                    )
        for agent, (x, y) in at.items():
            ax.plot([x], [y], "o", color=_INK, markersize=5)
            ax.annotate(agent, (x * 1.08, y * 1.08), ha="center", va="center", fontsize=7)
        ax.set_xlim(-1.35, 1.35)
        ax.set_ylim(-1.35, 1.35)
        ax.set_aspect("equal")
        ax.axis("off")
        return figure_svg(fig)


def branches_svg(
    series: Mapping[str, tuple[Sequence[tuple[datetime, float]], Sequence[tuple[datetime, float]]]],
    fork: datetime | None,
) -> str:
    """A panel per figure over simulated time: the parent's dashed, the fork's solid, and a
    line at the fork point."""
    with plot_style():
        fig = Figure(figsize=(9, 2.6))
        axes = fig.subplots(1, max(len(series), 1), squeeze=False)[0]
        first = min((p[0][0] for pair in series.values() for p in pair if p), default=None)
        for ax, (name, (parent, child)) in zip(axes, series.items(), strict=False):
            for points, style, label in ((parent, "--", "parent"), (child, "-", "this run")):
                xs = [_hours(t, first) for t, _ in points]
                ax.step(
                    xs,
                    [v for _, v in points],
                    style,
                    where="post",
                    label=label,
                    color=_ACCENT if style == "-" else "#9aa0ad",
                    linewidth=1.4,
                )
            if fork is not None:
                ax.axvline(_hours(fork, first), color=_INK, linewidth=0.8, linestyle=":")
            ax.set_title(name)
            if first is not None:
                ax.xaxis.set_major_formatter(_clock_of(first, False))
            tidy_axes(ax)
        axes[-1].legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
        return figure_svg(fig)


def plot_style() -> contextlib.AbstractContextManager[None]:
    # Text stays text (smaller, selectable) and ids are stable, so a report is reproducible.
    return matplotlib.rc_context(
        {"svg.fonttype": "none", "svg.hashsalt": "simulacra", "font.size": 9}
    )


def _hours(t: datetime | None, first: datetime | None) -> float:
    """Hours since midnight of the first day: simple numbers for matplotlib's axis."""
    if t is None or first is None:
        return 0.0
    midnight = first.replace(hour=0, minute=0, second=0, microsecond=0)
    return (t - midnight).total_seconds() / 3600


def _clock_of(first: datetime, days: bool) -> Callable[[float, float], str]:
    """An axis label for hours since the first day's midnight: the clock time, with the day
    where the plot spans more than one ("14 Feb 16:00")."""
    midnight = first.replace(hour=0, minute=0, second=0, microsecond=0)

    def label(hours: float, _position: float) -> str:
        t = midnight + timedelta(minutes=round(hours * 60))
        return f"{t:%d %b %H:%M}" if days else f"{t:%H:%M}"

    return label


def tidy_axes(ax: Axes) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(colors=_INK)


def figure_svg(fig: Figure) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]  # drop the XML prolog and doctype: it sits inside HTML
