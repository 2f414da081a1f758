"""Where memory events go, and what they say (docs/events.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from simulacra.memory.record import MemoryRecord, Retrieved


def added(record: MemoryRecord) -> dict[str, Any]:
    """The `memory.add` event's data."""
    return {
        "id": record.id,
        "kind": record.kind,
        "text": record.text,
        "importance": record.importance,
        "importance_source": record.importance_source,
        "evidence_ids": list(record.evidence_ids),
        "created_at": record.created_at.isoformat(),
    }


def retrieved(query: str, k: int, found: Sequence[Retrieved]) -> dict[str, Any]:
    """The `retrieval` event's data: the normalised components and total of each result."""
    return {
        "query": query,
        "k": k,
        "results": [
            {
                "id": r.record.id,
                "recency": r.recency,
                "importance": r.importance,
                "relevance": r.relevance,
                "total": r.total,
            }
            for r in found
        ],
    }
