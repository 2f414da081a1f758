"""The replay: what the viewer and the report need from a run, indexed by frame.

A frame is one `world` event: step 0 is the start state, step N the state after tick N. Every
other event belongs to the frame of the tick it happened in: the first `world` event written
after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from functools import cache
from typing import Any

from simulacra.report.evidence import EvidenceNode


@dataclass(frozen=True)
class Place:
    name: str
    kind: str
    x: float
    y: float
    w: float
    h: float
    capacity: int | None = None  # the most the world lets in (El Farol's seats), where it says


@dataclass(frozen=True)
class Marker:
    """A named point of the world's layout (a fire, a stop) that frames may switch on by name."""

    name: str
    x: float
    y: float
    r: float | None


@dataclass(frozen=True)
class Position:
    place: str
    area: str
    x: float | None
    y: float | None
    action: str


@dataclass(frozen=True)
class Frame:
    step: int
    t: str | None
    agents: dict[str, Position]
    extras: dict[str, Any] = field(default_factory=dict)  # world-specific: fires, occupancy ...


@dataclass(frozen=True)
class Memory:
    id: str
    kind: str
    text: str
    importance: float | None
    importance_source: str
    evidence_ids: tuple[str, ...]
    created_at: str | None
    frame: int
    invalid_frame: int | None = None  # the frame from which the record is invalid
    invalid_reason: str = ""


@dataclass(frozen=True)
class Score:
    id: str
    recency: float
    importance: float
    relevance: float
    total: float


@dataclass(frozen=True)
class Retrieval:
    frame: int
    t: str | None
    query: str
    k: int
    results: tuple[Score, ...]


@dataclass(frozen=True)
class Insight:
    id: str
    text: str
    evidence_ids: tuple[str, ...]
    tree: tuple[EvidenceNode, ...]


@dataclass(frozen=True)
class Reflection:
    frame: int
    t: str | None
    questions: tuple[str, ...]
    insights: tuple[Insight, ...]
    rejected: tuple[str, ...]  # insights not stored, each in words with the reason


@dataclass(frozen=True)
class PlanItem:
    start: str
    duration_min: float
    place: str
    description: str


@dataclass(frozen=True)
class Plan:
    frame: int
    t: str | None
    level: str
    items: tuple[PlanItem, ...]


@dataclass(frozen=True)
class Message:
    frame: int
    t: str | None
    agent: str
    to: tuple[str, ...]
    text: str
    conversation: str
    turn: int


@dataclass(frozen=True)
class Conversation:
    frame: int
    t: str | None
    id: str
    participants: tuple[str, ...]
    topic: str
    turns: int
    ended_by: str


@dataclass(frozen=True)
class Note:
    """A timed line of text: an intervention, an interview answer, a rejected action."""

    frame: int
    t: str | None
    agent: str | None
    kind: str
    text: str
    detail: str = ""


@dataclass(frozen=True)
class DecisionStep:
    """One embodied decision: the model's raw reply (or a baseline's reason), the command the
    world read from it, and what came of it; `image` is the view the model was shown (a data
    URI once the outputs attach it, else its path in the run); `prompt` the messages it was
    sent, where the run kept them ("" otherwise, and for a baseline's rule)."""

    frame: int
    t: str | None
    step: int
    mind: str
    raw: str
    caption: str
    command: str
    parsed: dict[str, Any] | None
    notes: tuple[str, ...]
    outcome: str
    pose_before: dict[str, Any] | None
    pose_after: dict[str, Any] | None
    clamps: tuple[str, ...]
    boundary: str
    latency_s: float | None  # the model call's wall time
    nudged: bool
    image: str
    prompt: str = ""


@dataclass(frozen=True)
class AgentTrack:
    id: str
    name: str
    initials: str
    persona: dict[str, Any]
    memories: tuple[Memory, ...] = ()
    retrievals: tuple[Retrieval, ...] = ()
    reflections: tuple[Reflection, ...] = ()
    plans: tuple[Plan, ...] = ()
    notes: tuple[Note, ...] = ()
    decisions: tuple[DecisionStep, ...] = ()


@dataclass(frozen=True)
class RunSummary:
    scenario: str
    world: str  # the world's kind: town, grid, commute ("" when the run does not say)
    model: str
    seed: int | None
    status: str
    started: float | None
    ended: float | None
    events: int
    tick_minutes: float | None = None  # the clock's tick, from the run's first event
    spend: str = ""  # the model calls and tokens so far and their projected total (cost.py)

    @property
    def scripted(self) -> bool:
        return self.model.split(":", 1)[0] == "scripted"

    @property
    def duration_s(self) -> float | None:
        if self.started is None or self.ended is None:
            return None
        return self.ended - self.started


@dataclass(frozen=True)
class Replay:
    run: RunSummary
    places: tuple[Place, ...]
    # Lists of markers in the layout, by key: "fires" (switched on by name in frames), "stops".
    layers: dict[str, tuple[Marker, ...]]
    bounds: tuple[float, float, float, float]  # x, y, width, height of everything drawn
    frames: tuple[Frame, ...]
    agents: dict[str, AgentTrack]
    messages: tuple[Message, ...]
    conversations: tuple[Conversation, ...]
    notes: tuple[Note, ...]
    overviews: tuple[str, ...] = ()  # an overview image (data URI) per frame, where rendered
    # The layout's `backdrop`: what a world's own viewer script draws under the map (the
    # town's tiles), as the world logged it.
    backdrop: dict[str, Any] = field(default_factory=dict)

    def frame_of_step(self, step: int) -> int:
        """The frame showing `step`, or the last one before it (0 when there is none)."""
        index = 0
        for i, frame in enumerate(self.frames):
            if frame.step > step:
                break
            index = i
        return index

    def step_of_frame(self, frame: int) -> int:
        return self.frames[frame].step if self.frames else 0

    def memories_until(self, agent: str, frame: int) -> tuple[Memory, ...]:
        return tuple(m for m in self.agents[agent].memories if m.frame <= frame)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data for the viewer.

        A retrieval's results are rows `[id, recency, importance, relevance, total]`: they are
        most of a run's replay, and rows make the page about half the size of objects.
        """
        data: dict[str, Any] = _plain(self)
        data["run"]["scripted"] = self.run.scripted
        data["run"]["duration_s"] = self.run.duration_s
        return data


def _plain(value: Any) -> Any:
    # dataclasses.asdict deep-copies every leaf: ten times slower on a 25-agent day.
    if isinstance(value, Score):
        return [value.id, value.recency, value.importance, value.relevance, value.total]
    if is_dataclass(value) and not isinstance(value, type):
        return {name: _plain(getattr(value, name)) for name in _field_names(type(value))}
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))
