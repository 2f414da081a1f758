"""A frame of the commute: the corridor with its zones and bus stops, the agents at their zones
(stacked by the mode of today's trip), and the day's figures in words."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from simulacra.experiments.kinds.commute.plots import MODE_COLOURS
from simulacra.report.frame_maps import Painter, title_of
from simulacra.report.replay_model import Frame, Replay

_AT_HOME = "no trip yet"
_COLOURS = {**MODE_COLOURS, _AT_HOME: "#c9ccd3"}
_BAR_KM = 0.22
_INK = "#1f2430"


def commute_painter(replay: Replay) -> Painter:
    zones = {p.name: p.x + p.w / 2 for p in replay.places}
    stops = replay.layers.get("stops", ())
    xs = [*zones.values(), *(m.x for m in stops)] or [0.0, 1.0]
    left, right = min(xs) - 0.4, max(xs) + 0.4
    # One scale for every frame, so a video shows crowds grow and shrink.
    tallest = max(
        (max(_at_zones(frame, zones).values(), default=0) for frame in replay.frames), default=1
    )
    top = max(tallest, 1) * 1.18

    def draw(fig: Figure, frame: Frame) -> None:
        ax = fig.add_axes((0.06, 0.36, 0.92, 0.52))
        ax.set_xlim(left, right)
        ax.set_ylim(-0.42 * top, top)
        _corridor(ax, zones, [m.x for m in stops], top)
        _crowds(ax, frame, zones)
        ax.set_xlabel("km along the corridor", fontsize=8, color="#6b7080", labelpad=2)
        ax.set_ylabel("agents", fontsize=8, color="#6b7080")
        ax.set_yticks([t for t in ax.get_yticks() if 0 <= t <= tallest])
        ax.spines["left"].set_bounds(0, tallest)
        ax.tick_params(labelsize=7, colors="#6b7080")
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.legend(
            handles=[
                *(Patch(color=c, label=m) for m, c in _COLOURS.items()),
                Line2D([], [], marker="o", linestyle="", color=_INK, label="zone"),
                Line2D(
                    [],
                    [],
                    marker="s",
                    linestyle="-",
                    color="#30638e",
                    markerfacecolor="white",
                    label="bus line and stops",
                ),
            ],
            loc="upper left",
            ncols=len(_COLOURS) + 2,
            fontsize=7,
            frameon=False,
        )
        _day_in_words(fig.add_axes((0.06, 0.02, 0.92, 0.2)), frame.extras)
        strike = " · taxi strike" if frame.extras.get("strike") else ""
        day = frame.extras.get("day")
        heading = (
            f"{title_of(replay, frame)} · day {day}{strike}" if day else title_of(replay, frame)
        )
        fig.suptitle(heading, x=0.02, y=0.98, ha="left", va="top", fontsize=11, color=_INK)

    return Painter((12.0, 5.2), draw)


def _corridor(ax: Axes, zones: Mapping[str, float], stops: list[float], top: float) -> None:
    line = -0.1 * top
    if stops:
        ax.plot([min(stops), max(stops)], [line, line], color="#30638e", linewidth=3, alpha=0.5)
        ax.plot(
            stops, [line] * len(stops), "s", color="white", markeredgecolor="#30638e", markersize=5
        )
    for name, x in zones.items():
        ax.plot([x], [line], "o", color=_INK, markersize=5, zorder=3)
        ax.annotate(
            name.replace("_", " "),
            (x, line),
            xytext=(0, -8),
            textcoords="offset points",
            rotation=28,
            ha="right",
            va="top",
            fontsize=8,
            color=_INK,
        )


def _crowds(ax: Axes, frame: Frame, zones: Mapping[str, float]) -> None:
    """One bar a zone: how many agents are there, split by how they came today."""
    by_zone: dict[str, Counter[str]] = {}
    for pos in frame.agents.values():
        zone = pos.place if pos.place in zones else _nearest(zones, pos.x)
        if zone is not None:
            by_zone.setdefault(zone, Counter())[pos.action or _AT_HOME] += 1
    for zone, modes in by_zone.items():
        x, base = zones[zone], 0
        for mode, colour in _COLOURS.items():
            count = modes.get(mode, 0)
            if count:
                ax.bar(x, count, bottom=base, width=_BAR_KM, color=colour, edgecolor="white")
                base += count
        rest = sum(c for m, c in modes.items() if m not in _COLOURS)
        if rest:
            ax.bar(x, rest, bottom=base, width=_BAR_KM, color="#7768ae", edgecolor="white")
            base += rest
        ax.annotate(
            str(base),
            (x, base),
            xytext=(0, 2),
            textcoords="offset points",
            ha="center",
            fontsize=8,
            color=_INK,
        )


def _day_in_words(ax: Axes, facts: Mapping[str, Any]) -> None:
    ax.set_axis_off()
    if not facts.get("day"):
        lines = ["Before the first day: everyone is at home."]
    else:
        split = facts.get("modal_split")
        shares = split if isinstance(split, Mapping) else {}
        punctual = facts.get("punctuality")
        arrived = punctual if isinstance(punctual, Mapping) else {}
        wait = facts.get("taxi_wait_min")
        lines = [
            f"trips: {_count(arrived.get('trips'))}  ·  "
            + "  ·  ".join(f"{m} {_percent(v)}" for m, v in shares.items()),
            f"taxi trips: {_count(facts.get('taxi_trips'))}  ·  mean taxi wait: "
            f"{'—' if wait is None else f'{float(wait):.1f} min'}  ·  taxis in service: "
            f"{_count(facts.get('taxis_in_service'))}",
            "arrivals: "
            + "  ·  ".join(
                f"{k.replace('_', ' ')} {_percent(arrived.get(k))}"
                for k in ("early", "on_time", "late", "incomplete")
            ),
        ]
    for row, line in enumerate(lines):
        ax.text(0, 1 - row * 0.33, line, fontsize=9, va="top", color=_INK)


def _at_zones(frame: Frame, zones: Mapping[str, float]) -> Counter[str]:
    return Counter(p.place for p in frame.agents.values() if p.place in zones)


def _nearest(zones: Mapping[str, float], x: float | None) -> str | None:
    if x is None or not zones:
        return None
    return min(zones, key=lambda name: abs(zones[name] - x))


def _count(value: Any) -> str:
    return f"{float(value):g}" if isinstance(value, int | float) else "—"


def _percent(value: Any) -> str:
    return f"{float(value):.0f}%" if isinstance(value, int | float) else "—"
