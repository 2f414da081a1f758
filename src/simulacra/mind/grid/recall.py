"""What a grid agent remembers between steps: the source's bounded history, or (optionally) the
memory stream with three-factor retrieval.

Bounded: the last `memory.recall` notes the agent asked to keep, oldest first (the source keeps
"bounded histories" and gives no number; the shipped scenario shows 5). Stream: every note,
fire sighting and received message goes into a `MemoryStream` (importance by the keyword rule,
so that a step still costs two model calls per agent), and the prompt shows the
`memory.recall` records that best answer the agent's current situation.
Received messages are kept apart, the last `memory.messages` of them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from simulacra.memory import MemoryStream


class Recall(Protocol):
    def recall(self, now: datetime, situation: str) -> tuple[str, ...]: ...

    async def remember(
        self, now: datetime, note: str, heard: Sequence[str], seen: Sequence[str]
    ) -> None:
        """Keep this step's note (the agent's own words), messages heard and fires seen."""
        ...

    def notes(self) -> list[str]:
        """What a checkpoint keeps (a stream persists on its own)."""
        ...


class BoundedRecall:
    """The last `size` (the scenario's `memory.recall`) notes; messages and sightings are not
    kept here (the prompt carries received messages in their own bounded history)."""

    def __init__(self, size: int, notes: Sequence[str] = ()) -> None:
        self.size = size
        self._notes: deque[str] = deque(notes, maxlen=size)

    def recall(self, now: datetime, situation: str) -> tuple[str, ...]:
        return tuple(self._notes)

    async def remember(
        self, now: datetime, note: str, heard: Sequence[str], seen: Sequence[str]
    ) -> None:
        if note.strip():
            self._notes.append(note.strip())

    def notes(self) -> list[str]:
        return list(self._notes)


class StreamRecall:
    """One agent's `MemoryStream`; retrieval by recency, importance and relevance."""

    def __init__(self, stream: MemoryStream, size: int) -> None:
        self.stream = stream
        self.size = size

    def recall(self, now: datetime, situation: str) -> tuple[str, ...]:
        if self.size == 0 or len(self.stream) == 0:
            return ()
        found = self.stream.retrieve(situation, now, k=self.size)
        return tuple(r.record.text for r in found)

    async def remember(
        self, now: datetime, note: str, heard: Sequence[str], seen: Sequence[str]
    ) -> None:
        for kind, texts in (("observation", seen), ("dialogue", heard), ("plan", [note])):
            kept = [t.strip() for t in texts if t.strip()]
            if kept:
                await self.stream.add_many(kind, kept, now)

    def notes(self) -> list[str]:
        return []
