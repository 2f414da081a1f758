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
from simulacra.memory import MemoryStream, Retrieved
from simulacra.memory.scoring import prompt_room
from simulacra.mind.ablation import Ablation
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


# What memory_lines adds to each record's text, in approx_tokens: "- " and a line break, and
# with ids "[marta_okafor-00012] " too.
LINE_TOKENS, ID_LINE_TOKENS = 1, 7


def memory_lines(found: Sequence[Retrieved], *, with_ids: bool = False) -> str:
    """Retrieved memories as prompt lines, oldest first so that the story reads in order."""
    records = sorted((r.record for r in found), key=lambda rec: rec.created_at)
    if not records:
        return "(nothing comes to mind)"
    if with_ids:
        return "\n".join(f"- [{rec.id}] {rec.text}" for rec in records)
    return "\n".join(f"- {rec.text}" for rec in records)


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
        touch: bool = True,
    ) -> list[Retrieved]:
        """What this agent's ablation lets it remember (nothing without memory): the
        top-ranked records that fit `room` tokens (see `room`), as the source fills the
        context. `touch=False` reads without counting as an access (an interview's)."""
        kinds = self.ablation.recalled_kinds
        if kinds == ():
            return []
        return self.memory.retrieve(
            query,
            now,
            k=None,
            kinds=kinds,
            token_budget=room,
            purpose=purpose,
            record_access=None if touch else False,
            per_record=ID_LINE_TOKENS if with_ids else LINE_TOKENS,
        )

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
        return template.format(memories=memory_lines(found), **fields)

    def emit(self, payload: Payload, now: datetime) -> None:
        if self.sink is not None:
            self.sink.emit(payload, t=now, agent=self.id)
