"""What memory events say (docs/events.md)."""

from __future__ import annotations

from collections.abc import Sequence

from simulacra.memory.record import MemoryRecord, Retrieved
from simulacra.runlog.events import MemoryAdded
from simulacra.runlog.events import Retrieval as RetrievalEvent
from simulacra.runlog.stamp import stamp


def added(record: MemoryRecord) -> MemoryAdded:
    """The `memory.add` event."""
    return MemoryAdded(
        id=record.id,
        kind=record.kind,
        text=record.text,
        importance=record.importance,
        importance_source=record.importance_source,
        evidence_ids=list(record.evidence_ids),
        created_at=stamp(record.created_at),
    )


def retrieved(
    query: str,
    k: int | None,
    found: Sequence[Retrieved],
    purpose: str = "",
    budget: int | None = None,
    candidates: int | None = None,
    recency_spread: float | None = None,
) -> RetrievalEvent:
    """The `retrieval` event: the normalised components and total of each result, how many
    records were candidates and how far apart their raw recency lay."""
    return RetrievalEvent(
        query=query,
        k=k,
        purpose=purpose,
        token_budget=budget,
        candidates=candidates,
        recency_spread=None if recency_spread is None else round(recency_spread, 6),
        results=[
            {
                "id": r.record.id,
                "recency": r.recency,
                "importance": r.importance,
                "relevance": r.relevance,
                "total": r.total,
            }
            for r in found
        ],
    )
