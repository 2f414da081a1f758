"""The mind protocol, and the abilities a mind may add: take a thought, talk, be interviewed.

The engine asks a mind what it does in each phase of a tick; the scenario's interventions
and interviews need the abilities, and a scenario that asks for one its minds lack is refused
before it runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from simulacra.core.world import Action, Address, Observation


@runtime_checkable
class Mind(Protocol):
    id: str

    async def decide(self, phase: str, observation: Observation, now: datetime) -> Action | None:
        """What the agent does in `phase`; None when the phase asks nothing of it."""
        ...

    def state(self) -> dict[str, Any]:
        """JSON-ready state for checkpoints (a memory stream persists on its own)."""
        ...

    def restore(self, state: Mapping[str, Any]) -> None: ...


@runtime_checkable
class Thinker(Protocol):
    async def think(self, text: str, now: datetime, importance: float | None) -> None:
        """Hold `text` as one's own thought (the scenario's `thought` intervention); its
        importance is `importance`, or rated as any memory's when None."""
        ...


@runtime_checkable
class Talker(Protocol):
    async def converse(self, other: Any, now: datetime, topic: str) -> None:
        """Hold a conversation with `other`, a mind of the same kind; this one speaks first."""
        ...


@runtime_checkable
class Answerer(Protocol):
    async def answer(self, address: Address, now: datetime) -> None:
        """Answer `address` (a line someone who is no mind of the run said to
        this one) through one's own dialogue, and remember the exchange; an address without
        a line is this one speaking to them first."""
        ...


@dataclass(frozen=True)
class InterviewAnswer:
    question: str
    answer: str
    memory_ids: tuple[str, ...]
    fallback: bool
    choice: str | None = None  # a closed question's choice
    # The texts of the answer's memories that the agent saw or heard (memory.WITNESSED):
    # what an awareness test checks the answer against, as the source checked its
    # interviews against the memory stream.
    evidence: tuple[str, ...] = ()
    source: str | None = None  # whom a closed question's answer says it heard it from


@runtime_checkable
class Interviewee(Protocol):
    async def interview(
        self,
        question: str,
        now: datetime,
        choices: Sequence[str] = (),
        sources: Sequence[str] = (),
    ) -> InterviewAnswer:
        """Answer from memory, naming the records used; with `choices`, pick one of them,
        and with `sources` (names), name the one it heard it from."""
        ...


@runtime_checkable
class Correctable(Protocol):
    async def correct(
        self,
        text: str,
        contradicts: Sequence[Sequence[str]],
        now: datetime,
        importance: float | None,
    ) -> list[str]:
        """Learn the correction `text`: memories that mention, for every group of words in
        `contradicts`, one of them are invalidated with all that rests on them, and `text` is
        remembered instead. Returns the ids invalidated."""
        ...
