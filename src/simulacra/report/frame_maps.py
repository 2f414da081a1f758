"""A frame of a world of places and points (the town, the grid) drawn as a map, from the replay.

One path for both: the replay's screen coordinates (y grows downwards, as the viewer draws it;
a grid's y-up layout arrives mirrored), places as rectangles with their names fitted inside,
markers a frame switches on (fires) with their reach, and agents as dots with their initials,
fanned out where several share a spot. The grid adds who can talk to whom and gender shapes;
the town a list of who is doing what.
"""

from __future__ import annotations

import colorsys
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from matplotlib.axes import Axes
from matplotlib.backend_bases import RendererBase
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, Rectangle
from matplotlib.text import Text
from matplotlib.ticker import FuncFormatter

from simulacra.report.replay_model import Frame, Marker, Replay, RunSummary

# Who may talk to whom, from the agents' cells (x, y as the world counts them).
Neighbours = Callable[[Mapping[str, tuple[int, int]]], Mapping[str, Any]]

DPI = 100
_INK = "#1f2430"
# The viewer's colours, so a frame and the viewer look alike.
_AGENT_COLOURS = (
    "#d1495b",
    "#00798c",
    "#edae49",
    "#66a182",
    "#8e6c8a",
    "#30638e",
    "#e07a5f",
    "#3d405b",
    "#81b29a",
    "#b5838d",
)
_PLACE_COLOURS = {
    "home": "#f3e9d2", "cafe": "#f6d6ad", "park": "#cfe8c4", "college": "#d6e0f5",
    "store": "#f5d0d0", "bar": "#e3d3f0", "library": "#d9ecf2", "school": "#d6e0f5",
    "office": "#e6e6e6",
}  # fmt: skip
_GENDER_MARKERS = {"female": "o", "male": "s"}
_MAP_INCHES = 7.6  # the town's map is this wide; its height follows the town's shape
_LINE_INCHES = 0.22  # a line of the list of who is doing what


@dataclass(frozen=True)
class Painter:
    """How one world's frames are drawn: the figure's size in inches, and the drawing.

    A painter whose frames share a backdrop (the town's map: its places and their names, the
    costly part) also gives `backdrop`, drawn once, returning the axes frames draw on;
    `overlay`, what a frame shows of its agents and extras on those axes; and `caption`, its
    step and time. Frames are then drawn over a copy of the backdrop's pixels instead of from
    nothing, and a frame whose agents and extras are those of the frame before (most of a
    town's day: an action lasts several ticks) takes that frame's pixels and a new caption."""

    size: tuple[float, float]
    draw: Callable[[Figure, Frame], None]
    backdrop: Callable[[Figure], Axes] | None = None
    overlay: Callable[[Axes, Frame], None] | None = None
    caption: Callable[[Figure, Frame], None] | None = None


@dataclass(frozen=True)
class _Dots:
    px: float  # a dot's diameter in pixels
    text: Callable[[str], str]  # agent id -> what its dot says
    marker: Callable[[str], str]  # agent id -> matplotlib marker


def places_painter(replay: Replay) -> Painter:
    """Any world of places whose agents stand at x, y: the map, and who is doing what."""
    colours, fitted = _agent_colours(replay), _Fitted()
    dots = _Dots(16.0, lambda a: replay.agents[a].initials, lambda _a: "o")

    _, _, w, h = replay.bounds
    tall = min(max(_MAP_INCHES * h / w, 3.0), 9.0)
    height = tall + 0.8  # room for the title above and a margin below

    def backdrop(fig: Figure) -> Axes:
        ax = _map_axes(fig, (0.02, 0.2 / height, 0.63, tall / height), replay)
        ax.set_xticks([])  # a town is read by its places, not its coordinates
        ax.set_yticks([])
        _places(ax, replay, {}, fitted)
        return ax

    def overlay(ax: Axes, frame: Frame) -> None:
        fig = ax.get_figure(root=True)
        assert isinstance(fig, Figure)
        _extras(ax, replay, frame, {})
        _agents(ax, replay, frame, colours, dots)
        _who_does_what(fig, replay, frame, colours, height)

    def caption(fig: Figure, frame: Frame) -> None:
        _title(fig, replay, frame)

    def draw(fig: Figure, frame: Frame) -> None:
        overlay(backdrop(fig), frame)
        caption(fig, frame)

    return Painter((12.0, height), draw, backdrop, overlay, caption)


def cells_painter(
    replay: Replay,
    *,
    capacity: Mapping[str, int],
    intensity: Mapping[str, float],
    neighbours: Neighbours,
) -> Painter:
    """A world of cells (the grid) as its source drew it: places with their occupancy out of
    `capacity`, active markers (fires) with their reach, shaded by `intensity`, agents by
    gender, and a grey line between every pair `neighbours` says may talk."""
    colours, fitted = _agent_colours(replay), _Fitted()
    gender = {a: str(t.persona.get("gender", "")) for a, t in replay.agents.items()}
    dots = _Dots(15.0, lambda a: replay.agents[a].initials, lambda a: _marker(gender.get(a, "")))

    def draw(fig: Figure, frame: Frame) -> None:
        ax = _map_axes(fig, (0.08, 0.05, 0.88, 0.87), replay, y_up=True)
        ax.grid(True, color="#eeeeee", linewidth=0.5)
        occupancy = frame.extras.get("occupancy")
        counts = occupancy if isinstance(occupancy, Mapping) else {}
        notes = {p: f"{counts.get(p, 0)}/{c}" for p, c in capacity.items()}
        _places(ax, replay, notes, fitted)
        _extras(ax, replay, frame, intensity)
        _links(ax, neighbours, frame)
        _agents(ax, replay, frame, colours, dots)
        ax.legend(
            handles=[
                Line2D([], [], marker=m, linestyle="", color="grey", label=g)
                for g, m in _GENDER_MARKERS.items()
            ],
            loc="lower left",
            fontsize=7,
            framealpha=0.8,
        )
        _title(fig, replay, frame)

    return Painter((7.0, 7.0), draw)


def _agent_colours(replay: Replay) -> dict[str, str]:
    return {
        agent: _AGENT_COLOURS[i] if i < len(_AGENT_COLOURS) else _hsl((i * 137.5) % 360, 0.55, 0.45)
        for i, agent in enumerate(replay.agents)
    }


def _place_colour(kind: str) -> str:
    if kind in _PLACE_COLOURS:
        return _PLACE_COLOURS[kind]
    hue = 0
    for char in kind:
        hue = (hue * 31 + ord(char)) % 360
    return _hsl(hue, 0.45, 0.88)


def title_of(replay: Replay, frame: Frame) -> str:
    start = " (the start)" if frame.step == 0 else ""
    return f"{replay.run.scenario} · step {frame.step}{start}{_when(frame, replay.run)}"


def _when(frame: Frame, run: RunSummary) -> str:
    """When the frame's state holds. A step's `world` event carries the time its tick ended,
    the state after it: the tick's span (06:00-07:00 for step 7 of an hourly clock from
    midnight), or its day where a tick is a day."""
    if not frame.t:
        return ""
    ended = datetime.fromisoformat(frame.t)
    tick = run.tick_minutes
    if frame.step == 0 or tick is None:
        return f" · {ended:%Y-%m-%d %H:%M}"
    begun = ended - timedelta(minutes=tick)
    if tick >= 24 * 60:
        return f" · {begun:%Y-%m-%d}"
    clock = "%H:%M:%S" if (tick * 60) % 60 else "%H:%M"
    until = f"{ended:{clock}}" if ended.date() == begun.date() else f"{ended:%Y-%m-%d {clock}}"
    return f" · {begun:%Y-%m-%d {clock}}-{until}"


# ---- the shared drawing ----------------------------------------------------------------


def _map_axes(
    fig: Figure, rect: tuple[float, float, float, float], replay: Replay, *, y_up: bool = False
) -> Axes:
    ax = fig.add_axes(rect)
    x, y, w, h = replay.bounds
    ax.set_xlim(x, x + w)
    ax.set_ylim(y + h, y)  # screen coordinates: y grows downwards
    ax.set_aspect("equal", adjustable="box")
    ax.apply_aspect()
    if y_up:  # the replay mirrored the world; the axis still reads in the world's own y
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{-v + 0:g}"))
    ax.tick_params(labelsize=7, colors="#6b7080")
    return ax


def _places(ax: Axes, replay: Replay, notes: Mapping[str, str], fitted: _Fitted) -> None:
    scale = _px_per_unit(ax)
    pad = 4.0 / scale
    for place in replay.places:
        ax.add_patch(
            Rectangle(
                (place.x, place.y),
                place.w,
                place.h,
                facecolor=_place_colour(place.kind),
                edgecolor="#8b8f99",
                linewidth=1.0,
                zorder=1,
            )
        )
        label = place.name + (f"\n{notes[place.name]}" if place.name in notes else "")
        _fit_text(ax, (place.x + pad, place.y + pad), label, place.w * scale - 8, (5, 9), fitted)


def _extras(ax: Axes, replay: Replay, frame: Frame, intensity: Mapping[str, float]) -> None:
    """Markers this frame switches on by name (a grid's active fires), or points it lists."""
    for key, value in frame.extras.items():
        if not isinstance(value, list):
            continue
        named = {m.name: m for m in replay.layers.get(key, ())}
        for item in value:
            marker = named.get(item) if isinstance(item, str) else _point(item)
            if marker is None:
                continue
            alpha = 0.12 + 0.2 * intensity.get(marker.name, 0.5)  # the source's shading
            if marker.r:
                ax.add_patch(
                    Circle((marker.x, marker.y), marker.r, color="orangered", alpha=alpha, zorder=2)
                )
            ax.plot(marker.x, marker.y, marker="*", color="red", markersize=14, zorder=3)
            if marker.name:
                ax.annotate(
                    marker.name,
                    (marker.x, marker.y),
                    textcoords="offset points",
                    xytext=(7, -7),
                    fontsize=8,
                    color="#a3271a",
                    zorder=3,
                )


def _links(ax: Axes, neighbours: Neighbours, frame: Frame) -> None:
    # The replay mirrored y for the screen; the world's rule reads the world's own cells.
    cells = {
        a: (round(p.x), -round(p.y))
        for a, p in frame.agents.items()
        if p.x is not None and p.y is not None
    }
    near = neighbours(cells)
    pairs = [
        ((cells[a][0], -cells[a][1]), (cells[b][0], -cells[b][1]))
        for a in near
        for b in near[a]
        if a < b
    ]
    if pairs:
        ax.add_collection(LineCollection(pairs, colors="grey", linewidths=0.8, zorder=4))


def _agents(
    ax: Axes, replay: Replay, frame: Frame, colours: Mapping[str, str], dots: _Dots
) -> None:
    centres = {p.name: (p.x + p.w / 2, p.y + p.h / 2) for p in replay.places}
    spots: dict[str, tuple[float, float]] = {}
    for agent, pos in frame.agents.items():
        if pos.x is not None and pos.y is not None:
            spots[agent] = (pos.x, pos.y)
        elif pos.place in centres:
            spots[agent] = centres[pos.place]
    scale = _px_per_unit(ax)
    placed = _fanned(spots, dots.px / scale)
    shapes: dict[str, list[str]] = {}
    for agent in placed:
        shapes.setdefault(dots.marker(agent), []).append(agent)
    for marker, agents in shapes.items():  # one scatter a shape: a frame draws in one pass
        ax.scatter(
            [placed[a][0] for a in agents],
            [placed[a][1] for a in agents],
            marker=marker,
            s=(dots.px * 72 / DPI) ** 2,
            c=[colours.get(a, "grey") for a in agents],
            edgecolors="white",
            linewidths=0.8,
            zorder=5,
        )
    for agent, (x, y) in placed.items():
        letters = dots.text(agent)
        ax.text(
            x,
            y,
            letters,
            fontsize=dots.px * 0.36 * min(1.0, 2.4 / max(len(letters), 1)),
            fontweight="bold",
            color="white",
            ha="center",
            va="center_baseline",
            zorder=6,
        )


def _fanned(spots: Mapping[str, tuple[float, float]], dot: float) -> dict[str, tuple[float, float]]:
    """Agents sharing a spot on a ring around it, or a sunflower disc when they are many."""
    groups: dict[tuple[float, float], list[str]] = {}
    for agent, spot in spots.items():
        groups.setdefault((round(spot[0], 2), round(spot[1], 2)), []).append(agent)
    out = {}
    for (x, y), agents in groups.items():
        n = len(agents)
        for i, agent in enumerate(agents):
            if n == 1:
                out[agent] = (x, y)
            elif n <= 8:
                r = max(dot * 0.75, dot * 1.1 * n / (2 * math.pi))
                a = 2 * math.pi * i / n - math.pi / 2
                out[agent] = (x + r * math.cos(a), y + r * math.sin(a))
            else:
                r, a = dot * 0.6 * math.sqrt(i + 0.5), i * 2.39996
                out[agent] = (x + r * math.cos(a), y + r * math.sin(a))
    return out


def _who_does_what(
    fig: Figure, replay: Replay, frame: Frame, colours: Mapping[str, str], height: float
) -> None:
    """Beside the map, as figure text (an axes would double the time a frame takes)."""
    lines = int((height - 0.8) / _LINE_INCHES)
    agents = list(replay.agents)
    shown = agents[: lines - 1] if len(agents) > lines else agents
    top, step = (height - 0.65) / height, _LINE_INCHES / height
    for row, agent in enumerate(shown):
        track, pos = replay.agents[agent], frame.agents.get(agent)
        doing = "not on the map"
        if pos is not None:
            doing = f"{pos.action or 'idle'} ({pos.place or 'between places'})"
        y = top - row * step
        fig.text(0.67, y, "●", color=colours.get(agent, "grey"), fontsize=11, va="center")
        fig.text(0.688, y, _cut(f"{track.name}: {doing}", 58), fontsize=8, va="center", color=_INK)
    if len(shown) < len(agents):
        more = f"… and {len(agents) - len(shown)} more"
        fig.text(0.688, top - len(shown) * step, more, fontsize=8, va="center")


def _title(fig: Figure, replay: Replay, frame: Frame) -> None:
    # Figure text, not suptitle: suptitle keeps one text object from frame to frame.
    top = 1 - 0.12 / fig.get_figheight()
    fig.text(0.02, top, title_of(replay, frame), ha="left", va="top", fontsize=11, color=_INK)


_Fitted = dict[tuple[str, float], tuple[str, float]]  # (label, width px) -> (text, size)


def _fit_text(
    ax: Axes,
    at: tuple[float, float],
    label: str,
    width_px: float,
    sizes: tuple[float, float],
    fitted: _Fitted,
) -> None:
    """`label` at its largest size up to sizes[1] that fits `width_px`; when even sizes[0] is
    too wide, its first line is wrapped at the space nearest its middle. Fits are remembered
    in `fitted`: places do not change from frame to frame, and measuring text is slow."""
    text = ax.text(
        *at,
        label,
        fontsize=sizes[1],
        ha="left",
        va="top",
        color="#2c3140",
        zorder=2.5,
        fontweight="bold",
        clip_on=True,
    )
    key = (label, round(width_px, 1))
    if key not in fitted:
        fitted[key] = _fit(text, _renderer(ax), label, width_px, sizes)
    wrapped, size = fitted[key]
    text.set_text(wrapped)
    text.set_fontsize(size)


def _fit(
    text: Text, renderer: RendererBase, label: str, width_px: float, sizes: tuple[float, float]
) -> tuple[str, float]:
    smallest, largest = sizes

    def size_of(candidate: str) -> float:
        text.set_text(candidate)
        text.set_fontsize(largest)
        width = text.get_window_extent(renderer).width
        return largest if width <= width_px else largest * width_px / width

    size = size_of(label)
    first, _, rest = label.partition("\n")
    if size < smallest and " " in first:
        middle = len(first) / 2
        cut = min((i for i, c in enumerate(first) if c == " "), key=lambda i: abs(i - middle))
        label = first[:cut] + "\n" + first[cut + 1 :] + ("\n" + rest if rest else "")
        size = size_of(label)
    return label, max(size, smallest)


def _point(item: Any) -> Marker | None:
    if not isinstance(item, Mapping):
        return None
    x, y, r = item.get("x"), item.get("y"), item.get("r", item.get("radius"))
    if not isinstance(x, int | float) or not isinstance(y, int | float):
        return None
    label = str(item.get("label") or item.get("name") or "")
    return Marker(label, float(x), float(y), float(r) if isinstance(r, int | float) else None)


def _marker(gender: str) -> str:
    return _GENDER_MARKERS.get(gender, "^")


def _renderer(ax: Axes) -> RendererBase:
    return ax.figure.canvas.get_renderer()  # type: ignore[attr-defined,no-any-return]


def _px_per_unit(ax: Axes) -> float:
    (x0, _), (x1, _) = ax.transData.transform([(0.0, 0.0), (1.0, 0.0)])
    return float(abs(x1 - x0))


def _hsl(hue: float, saturation: float, lightness: float) -> str:
    r, g, b = colorsys.hls_to_rgb(hue / 360, lightness, saturation)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
