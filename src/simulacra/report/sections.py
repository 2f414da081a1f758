"""The report's building blocks: a section, a figure, links into the viewer at a step or on an
agent, and readers that take a metrics.json part as the shape a section expects."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from datetime import datetime
from html import escape
from typing import Any
from urllib.parse import quote

from simulacra.report.replay_model import Replay
from simulacra.report.tables import AgentLink

VIEWER = "viewer.html"


def section(title: str, body: str, anchor: str) -> str:
    return f'<section id="{anchor}"><h2>{escape(title)}</h2>{body}</section>\n'


def viewer_link(replay: Replay, step: int | None = None, agent: str | None = None) -> str:
    """viewer.html at `step` (the first frame when None), on `agent` when given."""
    parts = [f"step={step if step is not None else replay.step_of_frame(0)}"]
    if agent is not None:
        parts.append(f"agent={quote(agent, safe='')}")
    return f"{VIEWER}#{'&'.join(parts)}"


def step_at(replay: Replay, t: Any) -> int:
    """The step showing simulated time `t` (an ISO time, or already a step number)."""
    if isinstance(t, int) and not isinstance(t, bool):
        return t
    when = parse_time(t)
    frame = 0
    for i, f in enumerate(replay.frames):
        ft = parse_time(f.t)
        if when is not None and ft is not None and ft <= when:
            frame = i
    return replay.step_of_frame(frame)


def links(replay: Replay, steps: set[str] | None = None) -> AgentLink:
    """Agent ids link to the viewer on that agent; "step N" cells link to that step."""
    steps = steps or set()

    def link(text: str) -> str | None:
        if text in replay.agents:
            return viewer_link(replay, agent=text)
        if text in steps:
            return viewer_link(replay, int(text.split()[1]))
        return None

    return link


def no_link(_text: str) -> None:
    return None


def number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def figure(svg: str, alt: str, caption: str) -> str:
    """An SVG as an image: shown through <img> it cannot run scripts, and its ids cannot clash
    with the page's."""
    uri = "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (
        f'<figure class="plot"><img src="{uri}" alt="{escape(alt)}">'
        f"<figcaption>{escape(caption)}</figcaption></figure>"
    )


def as_mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_rows(value: Any) -> list[Mapping[str, Any]]:
    return [r for r in value if isinstance(r, Mapping)] if isinstance(value, list) else []


def as_numbers(value: Any) -> list[float]:
    return [number(v) for v in value] if isinstance(value, list) else []
