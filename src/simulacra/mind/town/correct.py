"""Correction: a fact the agent held turns out wrong (the party is cancelled), so the memories
that state it are invalidated, with every reflection resting on them, and the correction is
remembered in their place. Retrieval returns only valid records, so later plans, dialogue and
interviews rest on the correction."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from simulacra.core import mentions_all
from simulacra.memory import OBSERVATION
from simulacra.mind.context import MindContext

CORRECTION_IMPORTANCE = 9.0  # under the rule (and when a rating fails)


async def correct(
    ctx: MindContext[Any],
    text: str,
    contradicts: Sequence[Sequence[str]],
    now: datetime,
    importance: float | None,
) -> list[str]:
    """Invalidate what `text` contradicts; return every id invalidated (cascades included)."""
    memory = ctx.memory
    stale = [r.id for r in memory.recent(len(memory)) if mentions_all(r.text, contradicts)]
    gone: list[str] = []
    for record_id in stale:
        if record_id in gone:  # already fell with a record it rests on
            continue
        gone.append(record_id)
        gone += memory.invalidate(record_id, f"corrected: {text}", now)
    meta = {"intervention": "correction", "invalidated": gone}
    await memory.add(OBSERVATION, text, now, importance, meta=meta, rule=CORRECTION_IMPORTANCE)
    return gone
