"""Consolidation: what several episodes taught, kept as one semantic record that cites them.

The commuter's weekly abstraction is one: a week of (plan, outcome, reflection) episodes
becomes a pattern. Citing the episodes as evidence makes the pattern auditable, and
invalidating an episode invalidates what was learnt from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from simulacra.memory.record import MemoryRecord
from simulacra.memory.stream import MemoryStream

PATTERN = "pattern"


async def consolidate(
    stream: MemoryStream,
    episodes: Sequence[str],
    lesson: str,
    now: datetime,
    *,
    importance: float = 6.0,
) -> MemoryRecord:
    """Store `lesson` as a pattern citing the records `episodes` (their ids)."""
    return await stream.add(
        PATTERN,
        lesson,
        now,
        importance=importance,
        evidence=episodes,
        meta={"episodes": len(episodes)},
    )
