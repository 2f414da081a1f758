"""What an agent does: perceive, remember, retrieve, reflect, plan, decide, act, talk, answer
an interview, and each call it makes to a language model."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simulacra.runlog.events.payload import Payload


@dataclass(frozen=True, kw_only=True)
class Observed(Payload):
    """Something new an agent noticed: a person arriving, an event, a change in front of it.
    Everything it saw, news or scenery, is its `memory.add` of kind observation; scenery has
    no `observation` event."""

    KIND = "observation"
    AGENT = "id"
    text: str


@dataclass(frozen=True, kw_only=True)
class PlaceLearned(Payload):
    """A place an agent came to know by being told of it (a line it heard, a thought it was
    given, `text`): its plans may name it from now on. Places it sees are the world's
    `learned`, in its state."""

    KIND = "place.learned"
    AGENT = "id"
    place: str
    text: str


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
    """A retrieval: the query, k (null: as many as fit `token_budget`), each result's `id` and
    normalised `recency`, `importance`, `relevance` and `total`, and what it was for
    (`purpose`: the model call it fills, such as plan.daily or interview.answer); how many
    records were `candidates` (as many results as candidates: nothing was left out) and the
    `recency_spread`, the highest raw recency among them less the lowest (0: recency could
    not tell them apart)."""

    KIND = "retrieval"
    AGENT = "id"
    query: str
    k: int | None
    results: list[dict[str, Any]]
    purpose: str = ""
    token_budget: int | None = None
    candidates: int | None = None
    recency_spread: float | None = None


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
    """A whole conversation: who, about what, every turn (`speaker`, `text`, and `raised`:
    whether the speaker chose to bring up the topic in it), and whether a speaker ended it
    (`decision`), a line already said did (`repeated`) or the turn limit did."""

    KIND = "conversation"
    id: str
    participants: list[str]
    topic: str
    turns: list[dict[str, Any]]
    ended_by: str


@dataclass(frozen=True, kw_only=True)
class Interviewed(Payload):
    """An interview question, the answer, the memory records it used, and for a closed
    question the choice made and, where it asks, whom the agent says it heard it from."""

    KIND = "interview"
    AGENT = "id"
    question: str
    answer: str
    memory_ids: list[str]
    purpose: str = "interview"
    choice: str | None = None
    source: str | None = None


@dataclass(frozen=True, kw_only=True)
class ModelCall(Payload):
    """One model call: purpose, model, tokens (`cached_prompt_tokens` of the prompt served
    from the server's prompt cache, the rest processed), latency, whether the response cache
    answered, the attempts made, whether the fallback stood in, the errors of failed
    attempts, and the hash its prompt is kept under in the run's prompts.jsonl (none where the
    scenario keeps no prompts: `output.prompts: false`)."""

    KIND = "llm.call"
    AGENT = "id or null"
    purpose: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cached_prompt_tokens: int = 0
    latency_s: float
    cached: bool
    attempts: int
    fallback: bool
    error: str | None = None
    prompt: str | None = None
