"""Each agent's day as a Gantt-like SVG: one bar per agent, a segment per place and action."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from html import escape
from itertools import pairwise

from simulacra.report.replay_model import Replay
from simulacra.report.sections import viewer_link

# Paul Tol's colour-blind-safe schemes (personal.sron.nl/~pault): "muted", then "light"
# without its grey (the grey is "between places"): 17 colours, the shipped town's 16 places
# each its own. Past them a place takes a colour again, hatched, so none shares a fill.
PALETTE = (
    "#cc6677", "#332288", "#ddcc77", "#117733", "#88ccee", "#882255", "#44aa99", "#999933",
    "#aa4499", "#77aadd", "#ee8866", "#eedd88", "#ffaabb", "#99ddff", "#44bb99", "#bbcc33",
    "#aaaa00",
)  # fmt: skip
ON_THE_WAY = "between places"  # a frame with no place: travelling, or outside every place
_PLOT_W, _ROW_H, _GAP, _TOP = 740.0, 20.0, 6.0, 24.0
_NAME_PX = 7.0  # an agent's name, 11 px bold, per character at most (DejaVu Sans' widest)
MAX_ROWS = 60  # a crowd (the commute's hundreds) is shown by its first agents


@dataclass(frozen=True)
class Segment:
    agent: str
    place: str
    action: str
    first: int  # frame index where it starts
    last: int  # frame index where it ends (inclusive)


def segments(replay: Replay, agent: str) -> list[Segment]:
    """Runs of consecutive frames in which `agent` stays at one place doing one thing."""
    out: list[Segment] = []
    for i, frame in enumerate(replay.frames):
        pos = frame.agents.get(agent)
        if pos is None:
            continue
        previous = out[-1] if out else None
        place = pos.place or ON_THE_WAY
        if (
            previous
            and previous.last == i - 1
            and (previous.place, previous.action)
            == (
                place,
                pos.action,
            )
        ):
            out[-1] = Segment(agent, place, pos.action, previous.first, i)
        else:
            out.append(Segment(agent, place, pos.action, i, i))
    return out


def place_colours(replay: Replay) -> dict[str, str]:
    names = [p.name for p in replay.places]
    for frame in replay.frames:
        names += [pos.place or ON_THE_WAY for pos in frame.agents.values()]
    ordered = [name for name in dict.fromkeys(names) if name != ON_THE_WAY]
    colours = {
        name: PALETTE[i] if i < len(PALETTE) else f"url(#hatch-{i})"
        for i, name in enumerate(ordered)
    }
    if ON_THE_WAY in names:
        colours[ON_THE_WAY] = "#d9dbe0"
    return colours


def day_timeline_svg(replay: Replay) -> str:
    if not replay.frames:
        return '<p class="empty">No world frames were logged, so there is no timeline.</p>'
    scale = _Scale.of(replay)
    colours = place_colours(replay)
    agents = list(replay.agents)[:MAX_ROWS]
    parts: list[str] = []
    for row, agent in enumerate(agents):
        y = _TOP + row * (_ROW_H + _GAP)
        name = replay.agents[agent].name
        href = viewer_link(replay, agent=agent)
        parts.append(
            f'<a href="{escape(href)}"><text x="{scale.left - 8}" y="{y + _ROW_H * 0.7}" '
            f'text-anchor="end" class="agent-name">{escape(name)}</text></a>'
        )
        for seg in segments(replay, agent):
            for first, last in scale.unbroken(seg.first, seg.last):  # a skipped night breaks it
                x0, x1 = scale.x_start(first), scale.x(last + 1)
                when = f"{scale.label_start(first)}–{scale.label(last + 1)}"
                tip = f"{name} {when} · {seg.place}: {seg.action or 'idle'}"
                link = viewer_link(replay, replay.step_of_frame(first), agent)
                parts.append(
                    f'<a href="{escape(link)}"><rect x="{x0:.1f}" y="{y}" '
                    f'width="{max(x1 - x0, 1):.1f}" height="{_ROW_H}" '
                    f'fill="{colours.get(seg.place, "#ddd")}" class="segment">'
                    f"<title>{escape(tip)}</title></rect></a>"
                )
    height = _TOP + len(agents) * (_ROW_H + _GAP)
    legend, legend_h = _legend(colours, scale.left, height + 8)
    more = len(replay.agents) - len(agents)
    note = f'<p class="empty">The first {len(agents)} agents; {more} more not shown.</p>'
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="timeline" viewBox="0 0 '
        f'{scale.left + _PLOT_W + 30} {height + 8 + legend_h}" width="100%" role="img" '
        f'aria-label="each agent\'s day">{_hatches(colours)}{scale.axis(height)}'
        f"{scale.skipped(height)}"
        f"{''.join(parts)}{legend}</svg>"
    ) + (note if more else "")


@dataclass(frozen=True)
class _Scale:
    """Frame index -> x, in simulated minutes when every frame has a time, else one unit a frame."""

    start: datetime | None
    minutes: tuple[float, ...]  # each frame's end, after the start's: `minutes[i + 1]` ends i
    starts: tuple[float, ...]  # each frame's own start
    left: float  # where the plot starts: room for the longest name shown

    @classmethod
    def of(cls, replay: Replay) -> _Scale:
        times = [_parse(f.t) for f in replay.frames]
        first = times[0]
        shown = [replay.agents[a].name for a in list(replay.agents)[:MAX_ROWS]]
        left = max(90.0, _NAME_PX * max(map(len, shown), default=0) + 16)
        if first is None or len(times) < 2 or any(t is None for t in times):
            steps = tuple(float(i) for i in range(len(times) + 1))
            return cls(None, steps, steps[:-1], left)
        minutes = [(t - first).total_seconds() / 60 for t in times if t is not None]
        # A frame is the world at its tick's end, so it spans the tick before it; the start
        # (frame 0) has no length. Where the clock skipped time (a night between two days),
        # a frame spans only its tick, and the skipped time is drawn as such.
        tick = replay.run.tick_minutes
        starts = [minutes[0]] + [
            max(before, end - tick) if tick else before for before, end in pairwise(minutes)
        ]
        return cls(first, (minutes[0], *minutes), tuple(starts), left)

    def x_start(self, frame: int) -> float:
        return self.x_of_minute(self.starts[frame])

    def unbroken(self, first: int, last: int) -> list[tuple[int, int]]:
        """The runs of frames first..last with no skipped time between them."""
        runs = [(first, first)]
        for k in range(first + 1, last + 1):
            if self.starts[k] > self.minutes[k]:  # frame k starts after frame k-1 ends
                runs.append((k, k))
            else:
                runs[-1] = (runs[-1][0], k)
        return runs

    def skipped(self, height: float) -> str:
        """Each span the clock skipped (a night), shaded and labelled."""
        parts = []
        for k in range(1, len(self.starts)):
            if self.starts[k] > self.minutes[k]:
                x0, x1 = self.x_of_minute(self.minutes[k]), self.x_of_minute(self.starts[k])
                parts.append(
                    f'<rect x="{x0:.1f}" y="{_TOP - 4}" width="{x1 - x0:.1f}" '
                    f'height="{height - _TOP + 4}" class="skipped"><title>not simulated: '
                    "the clock skips this time</title></rect>"
                    f'<text x="{(x0 + x1) / 2:.1f}" y="{_TOP + 12}" text-anchor="middle" '
                    'class="axis">skipped</text>'
                )
        return "".join(parts)

    def x_of_minute(self, minute: float) -> float:
        span = (self.minutes[-1] - self.minutes[0]) or 1.0
        return self.left + _PLOT_W * (minute - self.minutes[0]) / span

    def x(self, frame: int) -> float:
        return self.x_of_minute(self.minutes[frame])

    @property
    def days(self) -> bool:
        """Over two days or more, the axis counts days, not hours."""
        return self.minutes[-1] - self.minutes[0] >= 2 * 24 * 60

    def label(self, frame: int) -> str:
        """The end of frame `frame - 1` (the start of frame `frame` where no time was skipped)."""
        return self._when(frame, self.minutes[frame])

    def label_start(self, frame: int) -> str:
        return self._when(frame, self.starts[frame])

    def _when(self, frame: int, minute: float) -> str:
        if self.start is None:
            return f"step {frame}"
        when = self.start + timedelta(minutes=minute)
        return f"{when:%d %b %H:%M}" if self.days else f"{when:%H:%M}"

    def axis(self, height: float) -> str:
        if self.start is None:
            return f'<text x="{self.left}" y="{_TOP - 8}" class="axis">steps</text>'
        hours = (self.minutes[-1] - self.minutes[0]) / 60
        if self.days:
            every = timedelta(days=max(1, math.ceil(hours / 24 / 12)))
            mark = self.start.replace(hour=0, minute=0, second=0, microsecond=0)
            shown = "%d %b"
        else:
            every = timedelta(hours=max(1, math.ceil(hours / 12)))
            mark = self.start.replace(minute=0, second=0, microsecond=0)
            shown = "%H:%M"
        end = self.start + timedelta(minutes=self.minutes[-1])
        lines = []
        while mark <= end:
            minute = (mark - self.start).total_seconds() / 60
            if minute >= 0:
                x = self.x_of_minute(minute)
                lines.append(
                    f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{_TOP - 4}" y2="{height}" class="grid"/>'
                    f'<text x="{x:.1f}" y="{_TOP - 8}" text-anchor="middle" class="axis">'
                    f"{mark.strftime(shown)}</text>"
                )
            mark += every
        return "".join(lines)


def _legend(colours: dict[str, str], left: float, top: float) -> tuple[str, float]:
    parts, x, y = [], left, top
    for name, colour in colours.items():
        width = 26 + 6.5 * len(name)
        if x + width > left + _PLOT_W:
            x, y = left, y + 18
        parts.append(
            f'<rect x="{x:.1f}" y="{y}" width="12" height="12" fill="{colour}"/>'
            f'<text x="{x + 16:.1f}" y="{y + 10}" class="legend">{escape(name)}</text>'
        )
        x += width
    return "".join(parts), y - top + 20


def _hatches(colours: dict[str, str]) -> str:
    """A pattern for each place past the palette: its colour again, with white stripes."""
    parts = []
    for fill in colours.values():
        if fill.startswith("url(#hatch-"):
            index = int(fill[len("url(#hatch-") : -1])
            parts.append(
                f'<pattern id="hatch-{index}" width="6" height="6" patternUnits="userSpaceOnUse" '
                f'patternTransform="rotate({45 + 90 * (index // len(PALETTE) % 2)})">'
                f'<rect width="6" height="6" fill="{PALETTE[index % len(PALETTE)]}"/>'
                '<rect width="2" height="6" fill="#fff"/></pattern>'
            )
    return f"<defs>{''.join(parts)}</defs>" if parts else ""


def _parse(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None
