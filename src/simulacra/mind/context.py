"""What every faculty of one agent shares: who it is, its memory, its model and its log.

Model calls go through `ask`, which labels them (purpose, agent) and derives their seed from the
agent's seed, the purpose and the simulated time, so that reruns repeat themselves exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Generic, Protocol, TypeVar

from pydantic import BaseModel

from simulacra.core import derived_seed
from simulacra.llm import DEFAULT_CONTEXT_TOKENS, LanguageModel, Request, chat
from simulacra.memory import MemoryRecord, MemoryStream, Retrieved
from simulacra.memory.scoring import prompt_room
from simulacra.mind.ablation import Ablation
from simulacra.mind.provenance import LABEL_TOKENS, label
from simulacra.runlog import EventSink
from simulacra.runlog.events import Payload

T = TypeVar("T", bound=BaseModel)


class Identity(Protocol):
    """Who a mind speaks as: what interviews and dialogue need of any persona."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    def summary(self) -> str: ...


P = TypeVar("P", bound=Identity)


@dataclass(frozen=True)
class Answer(Generic[T]):
    """A validated model answer; `fallback` says the declared fallback stood in for it."""

    value: T
    text: str
    fallback: bool


def call_seed(agent_seed: int, purpose: str, now: datetime, salt: str = "") -> int:
    """A seed fixed by (agent seed, purpose, simulated time): reruns ask the same questions.
    `salt` tells apart several calls of one purpose at one time (the turns of a dialogue)."""
    return derived_seed(agent_seed, purpose, now.isoformat(), salt)


def clock(moment: datetime) -> str:
    return f"{moment.hour:02d}:{moment.minute:02d}"  # strftime costs ten times as much


def end_of_day(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)


# What memory_lines adds to each record's text, in approx_tokens: "- ", the provenance label
# and a line break, and with ids "[marta_okafor-00012] " too.
LINE_TOKENS = 1 + LABEL_TOKENS
ID_LINE_TOKENS = LINE_TOKENS + 6

# How many records each purpose retrieves at most, before what the window holds caps it. The
# source's numbers (50 for what one agent thinks of another and for an interview, 15 for an
# utterance, 30 for reflection's evidence and for planning) suit streams that grow every 10
# seconds; a town agent here writes about 45 records a day (10-minute ticks, its own steps
# and what it sees within four tiles), so 50 is all of a day's, and with them the scripted
# two-day town had returned every candidate in 21% of retrievals after its first hour.
# Ours: 30 for a relationship, 10 for a conversation's memories (retrieved once, not per
# utterance) and for a reaction, 30 for the rest; 50 for an interview, which its own token
# cap limits (docs/town.md, "Departures").
RECALL_K = {
    "converse.relation": 30,
    "converse.turn": 10,
    "react.decide": 10,
    "interview.answer": 50,
}
DEFAULT_RECALL_K = 30


def memory_lines(found: Sequence[Retrieved], *, with_ids: bool = False) -> str:
    """Retrieved memories as prompt lines, best first as retrieval ranked them, each with
    where it came from (`provenance.label`)."""
    if not found:
        return "(nothing comes to mind)"
    ids = (f"[{r.record.id}] " for r in found) if with_ids else ("" for _ in found)
    return "\n".join(
        f"- {tag}[{label(r.record)}] {r.record.text}" for tag, r in zip(ids, found, strict=True)
    )


# Stable parts first: one system message for every faculty, then the persona, then the task
# (fixed per purpose), then the situation. All of an agent's calls share the persona prefix
# and its calls of one purpose the task too, which llama.cpp-style servers keep in their KV
# cache; prompt processing is most of a small model's time on a CPU.
CHARACTER_SYSTEM = (
    "You simulate one character of a small-town simulation. Do the task given after the "
    "character's description and reply only in JSON."
)


@dataclass(frozen=True)
class MindContext(Generic[P]):
    persona: P
    memory: MemoryStream
    model: LanguageModel
    ablation: Ablation
    sink: EventSink | None
    seed: int
    system: str = CHARACTER_SYSTEM  # what the model is told it does, before every task

    @property
    def id(self) -> str:
        return self.persona.id

    @property
    def context_tokens(self) -> int:
        """The model's window, which a prompt and its answer must fit."""
        window = getattr(self.model, "context_tokens", None)
        return window if isinstance(window, int) else DEFAULT_CONTEXT_TOKENS

    def room(self, task: str, situation: str, max_tokens: int) -> int:
        """The tokens left for memories in a prompt of `task` and `situation` (its memories
        left out) whose answer takes up to `max_tokens`."""
        summary = self.persona.summary()
        return prompt_room(self.context_tokens, max_tokens, self.system, summary, task, situation)

    async def ask(
        self,
        purpose: str,
        now: datetime,
        task: str,
        situation: str,
        output: type[T],
        fallback: T,
        *,
        max_tokens: int = 256,
        salt: str = "",
        probe: bool = False,
    ) -> Answer[T]:
        request = Request(
            messages=chat(self.system, f"{self.persona.summary()}\n\nTask: {task}\n\n{situation}"),
            output=output,
            fallback=fallback,
            max_tokens=max_tokens,
            seed=call_seed(self.seed, purpose, now, salt),
            purpose=purpose,
            agent=self.id,
            probe=probe,
        )
        completion = await self.model.complete(request)
        value = completion.value
        if not isinstance(value, output):
            return Answer(fallback, completion.text, True)
        return Answer(value, completion.text, completion.fallback)

    def recall(
        self,
        query: str,
        now: datetime,
        purpose: str,
        room: int,
        *,
        with_ids: bool = False,
        exclude: Sequence[str] = (),
    ) -> list[Retrieved]:
        """What this agent's ablation lets it remember (nothing without memory), but the
        kinds in `exclude`: the purpose's top-k records (`RECALL_K`), fewer where `room`
        tokens (see `room`) hold fewer, best first. Nothing counts as accessed until a
        prompt shows it (`shown`, `mark_shown`)."""
        kinds = self.ablation.recalled_kinds
        if kinds == ():
            return []
        return self.memory.retrieve(
            query,
            now,
            k=RECALL_K.get(purpose, DEFAULT_RECALL_K),
            kinds=kinds,
            token_budget=room,
            purpose=purpose,
            record_access=False,
            per_record=ID_LINE_TOKENS if with_ids else LINE_TOKENS,
            exclude=exclude,
        )

    def mark_shown(self, records: Sequence[MemoryRecord], now: datetime) -> None:
        """Count the records a prompt shows as accessed now, as the source counts those it
        retrieved: recency follows what the agent was given to think with."""
        self.memory.mark_accessed((r.id for r in records), now)

    def shown(self, found: Sequence[Retrieved], now: datetime) -> str:
        """`found` as a prompt's memory lines, counted as accessed now."""
        self.mark_shown([r.record for r in found], now)
        return memory_lines(found)

    def situation(
        self,
        purpose: str,
        query: str,
        now: datetime,
        task: str,
        template: str,
        max_tokens: int,
        fields: Mapping[str, str],
    ) -> str:
        """`template` filled with `fields` and, as {memories}, the top-ranked memories for
        `query` that fit the window beside the rest of the prompt (`task`, the persona, the
        answer's `max_tokens`)."""
        room = self.room(task, template.format(memories="", **fields), max_tokens)
        found = self.recall(query, now, purpose, room)
        return template.format(memories=self.shown(found, now), **fields)

    def emit(self, payload: Payload, now: datetime) -> None:
        if self.sink is not None:
            self.sink.emit(payload, t=now, agent=self.id)
