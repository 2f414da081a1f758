"""What an agent remembers between steps: the source's bounded history, or (optionally) the
memory stream with three-factor retrieval.

Bounded: the last `size` notes the agent asked to keep, oldest first. Stream: every note,
fire sighting and received message goes into a `MemoryStream` (one SQLite file per run,
importance by the keyword rule so that a step still costs two model calls per agent), and the
prompt shows the `size` records that best answer the agent's current situation. A grid step
counts as one simulated hour from `EPOCH` for recency.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from simulacra.memory import EventSink, MemoryStream

EPOCH = datetime(2000, 1, 1)


def step_time(step: int) -> datetime:
    return EPOCH + timedelta(hours=step)


class Recall(Protocol):
    def recall(self, step: int, situation: str) -> tuple[str, ...]: ...

    async def remember(
        self, step: int, note: str, heard: Sequence[str], seen: Sequence[str]
    ) -> None:
        """Keep this step's note (the agent's own words), messages heard and fires seen."""
        ...

    def close(self) -> None: ...


class BoundedRecall:
    """The last `size` notes; messages and sightings are not kept here (the prompt carries
    received messages in their own bounded history)."""

    def __init__(self, size: int) -> None:
        self.notes: deque[str] = deque(maxlen=size)

    def recall(self, step: int, situation: str) -> tuple[str, ...]:
        return tuple(self.notes)

    async def remember(
        self, step: int, note: str, heard: Sequence[str], seen: Sequence[str]
    ) -> None:
        if note.strip():
            self.notes.append(note.strip())

    def close(self) -> None:
        return None


class StreamRecall:
    """One agent's `MemoryStream`; retrieval by recency, importance and relevance."""

    def __init__(self, stream: MemoryStream, size: int) -> None:
        self.stream = stream
        self.size = size

    def recall(self, step: int, situation: str) -> tuple[str, ...]:
        if self.size == 0 or len(self.stream) == 0:
            return ()
        found = self.stream.retrieve(situation, step_time(step), k=self.size)
        return tuple(r.record.text for r in found)

    async def remember(
        self, step: int, note: str, heard: Sequence[str], seen: Sequence[str]
    ) -> None:
        now = step_time(step)
        for kind, texts in (("observation", seen), ("dialogue", heard), ("plan", [note])):
            kept = [t.strip() for t in texts if t.strip()]
            if kept:
                await self.stream.add_many(kind, kept, now)

    def close(self) -> None:
        self.stream.close()


def stream_recalls(
    agents: Sequence[str], size: int, embedder_kind: str, db: Path, events: EventSink, seed: int
) -> dict[str, Recall]:
    """A stream per agent, all in one SQLite file, sharing one embedder."""
    from simulacra.embed import default_embedder
    from simulacra.memory import MemoryStream

    embedder = default_embedder(embedder_kind)
    return {
        agent: StreamRecall(
            MemoryStream(agent, embedder, db, importance="rule", events=events, seed=seed), size
        )
        for agent in agents
    }
