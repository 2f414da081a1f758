"""Consolidation: what several episodes taught, kept as one semantic record that cites them.

The commuter's weekly abstraction is one: a week of (plan, outcome, reflection) episodes
becomes a pattern. Its monthly merge is another, one level up: the weeks' patterns become one.
Citing the evidence makes a pattern auditable, and invalidating an episode invalidates what
was learnt from it, up to the merged lesson.
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
    return await _pattern(stream, lesson, now, importance, episodes, "episodes")


async def merge(
    stream: MemoryStream,
    patterns: Sequence[str],
    lesson: str,
    now: datetime,
    *,
    importance: float = 8.0,
) -> MemoryRecord:
    """Store `lesson` as a pattern that merges the patterns `patterns` (their ids) at a longer
    horizon (the source's monthly merge, section 4.3), citing them: redundant lessons are
    compressed into one, and each still traces back to its episodes."""
    return await _pattern(stream, lesson, now, importance, patterns, "merges")


async def _pattern(
    stream: MemoryStream,
    lesson: str,
    now: datetime,
    importance: float,
    evidence: Sequence[str],
    counted: str,
) -> MemoryRecord:
    """A pattern record citing `evidence`; its meta counts them under `counted`."""
    return await stream.add(PATTERN, lesson, now, importance, evidence, {counted: len(evidence)})
