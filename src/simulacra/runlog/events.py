"""The event schema: one JSON object a line in events.jsonl, one class per event kind.

Every line is an envelope (`seq`, `t`, `wall`, `kind`, `agent`) around `data`, the fields of
the kind's class below. Writers emit instances of these classes; readers get them back from
`Event.payload`. docs/events.md is generated from them (`python scripts/events_doc.py`).
One word per concept in every world: `step` is a tick's number (0 is the start state),
`parsed` a validated answer, `to` the recipients of a message.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, Protocol, TypeVar, get_type_hints

P = TypeVar("P", bound="Payload")


@dataclass(frozen=True, kw_only=True)
class Payload:
    """The data of one kind of event. `extra`, where a kind has it, holds what a world adds."""

    KIND: ClassVar[str]
    AGENT: ClassVar[str] = "null"  # what the envelope's `agent` is, for the reference

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "extra":
                data.update(value)
            elif value is not None or f.default is dataclasses.MISSING:
                data[f.name] = value
        return data

    @classmethod
    def from_data(cls: type[P], data: dict[str, Any]) -> P:
        names = {f.name for f in dataclasses.fields(cls)}
        known = {k: v for k, v in data.items() if k in names and k != "extra"}
        if "extra" in names:
            known["extra"] = {k: v for k, v in data.items() if k not in names}
        return cls(**known)


@dataclass(frozen=True, kw_only=True)
class RunStarted(Payload):
    """The run's first event: what runs, on which model, the world's static layout (for the
    viewer: `places` with `name`, `kind`, `x`, `y`, `w`, `h`), each agent's persona, the clock
    (`start`, `end`, `tick_minutes`, `ticks`), the ablation and the mind."""

    KIND = "run"
    scenario: str
    seed: int
    model: str
    world: dict[str, Any]
    agents: dict[str, Any]
    clock: dict[str, Any]
    ablation: str | None = None
    mind: str | None = None


@dataclass(frozen=True, kw_only=True)
class RunEnded(Payload):
    """The run's last event: `completed`, `failed` (with the error) or `interrupted`."""

    KIND = "run.end"
    status: str
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class WorldState(Payload):
    """The world after each tick (step 0: before the first): every agent's `place`, `x`, `y`,
    `action` (and `area` where the world has areas), and the world's own extras (town:
    objects, occupancy; grid: positions, occupancy, fires, started, perceived, refused;
    commute: day, strike, modal split, taxi wait, punctuality; elfarol: week, attendance,
    crowded)."""

    KIND = "world"
    step: int
    agents: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Observed(Payload):
    """Something an agent perceived, and whether it was news to it."""

    KIND = "observation"
    AGENT = "id"
    text: str
    salient: bool


@dataclass(frozen=True, kw_only=True)
class MemoryAdded(Payload):
    """A record written to an agent's memory stream, with its provenance."""

    KIND = "memory.add"
    AGENT = "id"
    id: str
    kind: str
    text: str
    importance: float
    importance_source: str
    evidence_ids: list[str]
    created_at: str


@dataclass(frozen=True, kw_only=True)
class MemoryInvalidated(Payload):
    """A record marked invalid, with the reflections resting on it that fell with it."""

    KIND = "memory.invalidate"
    AGENT = "id"
    id: str
    reason: str
    invalidated: list[str]


@dataclass(frozen=True, kw_only=True)
class Retrieval(Payload):
    """A retrieval: the query, k, and each result's `id` and normalised `recency`,
    `importance`, `relevance` and `total`."""

    KIND = "retrieval"
    AGENT = "id"
    query: str
    k: int
    results: list[dict[str, Any]]


@dataclass(frozen=True, kw_only=True)
class Reflected(Payload):
    """A reflection: its questions, the insights stored (`id`, `text`, `evidence_ids`), and
    the insights rejected for citing unknown records."""

    KIND = "reflection"
    AGENT = "id"
    questions: list[str]
    insights: list[dict[str, Any]]
    rejected: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class Planned(Payload):
    """A plan at one `level` (day, hour, action, replan): items with `start`, `duration_min`,
    `place`, `description`."""

    KIND = "plan"
    AGENT = "id"
    level: str
    items: list[dict[str, Any]]


@dataclass(frozen=True, kw_only=True)
class Decided(Payload):
    """A decision: its purpose, the choice in words, the model's raw text, the `parsed` answer,
    whether the declared fallback stood in, and why earlier attempts failed; a mind's extras
    (commute: the `day` or `week` it concerns). A baseline mind logs its rule's choice with an
    empty `raw`."""

    KIND = "decision"
    AGENT = "id"
    purpose: str
    choice: str
    raw: str
    parsed: dict[str, Any] | None
    fallback: bool
    error: str | None = None
    step: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Acted(Payload):
    """An action a world applied, in the phase of the tick it was taken: whether the world
    took it (else the reason), and the world's facts (town: place, area, object; grid: from,
    to; commute: the trip's outcome)."""

    KIND = "action"
    AGENT = "id"
    step: int
    phase: str
    ok: bool
    description: str | None = None
    reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class MessageSent(Payload):
    """Words from the agent to `to`: a conversation's turn, or a grid message delivered at
    `step`."""

    KIND = "message"
    AGENT = "id (speaker)"
    to: list[str]
    text: str
    conversation: str | None = None
    turn: int | None = None
    step: int | None = None


@dataclass(frozen=True, kw_only=True)
class ConversationHeld(Payload):
    """A whole conversation: who, about what, every turn, and whether a speaker ended it
    (`decision`) or the turn limit did."""

    KIND = "conversation"
    id: str
    participants: list[str]
    topic: str
    turns: list[dict[str, Any]]
    ended_by: str


@dataclass(frozen=True, kw_only=True)
class InterventionFired(Payload):
    """A scenario's intervention: a `thought` (agent: its holder), a world `event` (with the
    world's `change`) or a forced `conversation` (its `agents`)."""

    KIND = "intervention"
    AGENT = "id or null"
    type: str
    text: str
    agents: list[str] | None = None
    change: dict[str, Any] | None = None


@dataclass(frozen=True, kw_only=True)
class Interviewed(Payload):
    """An interview question, the answer, and the memory records it used."""

    KIND = "interview"
    AGENT = "id"
    question: str
    answer: str
    memory_ids: list[str]
    purpose: str = "interview"


@dataclass(frozen=True, kw_only=True)
class ModelCall(Payload):
    """One model call: purpose, model, tokens, latency, whether the cache answered, the
    attempts made, whether the fallback stood in, and the errors of failed attempts."""

    KIND = "llm.call"
    AGENT = "id or null"
    purpose: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cached: bool
    attempts: int
    fallback: bool
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class Measured(Payload):
    """A measure: at interview times (`aware`, with the agents), and each headline figure at
    the end of a run."""

    KIND = "metric"
    name: str
    value: float
    agents: list[str] | None = None


@dataclass(frozen=True, kw_only=True)
class CheckpointSaved(Payload):
    """A checkpoint after `step` ticks; `offset` is events.jsonl's size in bytes before this
    line, `path` the checkpoint folder."""

    KIND = "checkpoint"
    step: int
    offset: int
    path: str


PAYLOADS: dict[str, type[Payload]] = {
    cls.KIND: cls
    for cls in (
        RunStarted,
        RunEnded,
        WorldState,
        Observed,
        MemoryAdded,
        MemoryInvalidated,
        Retrieval,
        Reflected,
        Planned,
        Decided,
        Acted,
        MessageSent,
        ConversationHeld,
        InterventionFired,
        Interviewed,
        ModelCall,
        Measured,
        CheckpointSaved,
    )
}
KINDS = frozenset(PAYLOADS)


@dataclass(frozen=True)
class Event:
    seq: int
    t: str | None  # simulated time, ISO 8601; None for events outside simulated time
    wall: float  # wall-clock seconds since the epoch; ignored when comparing runs
    kind: str
    agent: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def payload(self) -> Payload:
        """The data as its kind's class."""
        cls = PAYLOADS.get(self.kind)
        if cls is None:
            raise ValueError(f"event {self.seq}: unknown kind {self.kind!r}")
        return cls.from_data(self.data)

    def to_json(self) -> str:
        return json.dumps(
            {
                "seq": self.seq,
                "t": self.t,
                "wall": round(self.wall, 6),
                "kind": self.kind,
                "agent": self.agent,
                "data": self.data,
            },
            ensure_ascii=False,
            separators=(",", ":"),
            default=str,
        )

    @classmethod
    def from_json(cls, line: str) -> Event:
        raw = json.loads(line)
        return cls(
            seq=int(raw["seq"]),
            t=raw.get("t"),
            wall=float(raw.get("wall", 0.0)),
            kind=str(raw["kind"]),
            agent=raw.get("agent"),
            data=dict(raw.get("data") or {}),
        )


class EventSink(Protocol):
    """Anything that records events: `EventWriter` is one; tests pass a list-backed one."""

    def emit(
        self,
        payload: Payload,
        *,
        t: datetime | None = None,
        agent: str | None = None,
    ) -> object: ...


def reference() -> str:
    """docs/events.md: the envelope, then one row per kind, from the classes above."""
    lines = [
        "# events.jsonl: the event contract",
        "",
        "Generated from `simulacra.runlog.events` by `python scripts/events_doc.py`; a test keeps",
        "this file and the classes equal.",
        "",
        "One JSON object a line: `seq` (0, 1, 2 ... in write order), `t` (simulated time, ISO",
        "8601, or null), `wall` (wall-clock seconds; ignored when two runs are compared), `kind`,",
        "`agent` (id or null) and `data`, the fields below. A field marked `?` may be absent;",
        "`...` stands for a world's own extras.",
        "",
        "| kind | agent | data | meaning |",
        "| --- | --- | --- | --- |",
    ]
    for kind, cls in PAYLOADS.items():
        hints = get_type_hints(cls)
        shown = []
        for f in dataclasses.fields(cls):
            if f.name == "extra":
                shown.append("...")
                continue
            optional = f.default is not dataclasses.MISSING or (
                f.default_factory is not dataclasses.MISSING
            )
            shown.append(f"`{f.name}`{'?' if optional else ''}: {_type_name(hints[f.name])}")
        meaning = " ".join((cls.__doc__ or "").split())
        lines.append(f"| `{kind}` | {cls.AGENT} | {', '.join(shown)} | {meaning} |")
    return "\n".join(lines) + "\n"


def _type_name(hint: Any) -> str:
    name = str(hint).replace("typing.", "").replace("<class '", "").replace("'>", "")
    return name.replace("|", "\\|")  # a bar would end the table's cell
