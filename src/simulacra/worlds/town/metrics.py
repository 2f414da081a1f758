"""The party scenario's measures, read back from events.jsonl: who came, who talked with whom,
and how many actions the town rejected."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from simulacra.runlog import Event


def attendance(
    events: Sequence[Event], place: str, start: datetime, end: datetime
) -> dict[str, Any]:
    """Who was at `place` at any tick from `start` to `end`, and when each was first seen."""
    first: dict[str, str] = {}
    for event in events:
        if event.kind != "world" or event.t is None:
            continue
        if not start <= datetime.fromisoformat(event.t) <= end:
            continue
        for agent, where in event.data.get("agents", {}).items():
            if where.get("place") == place and agent not in first:
                first[agent] = event.t
    return {
        "place": place,
        "start": start.isoformat(),
        "end": end.isoformat(),
        "attended": sorted(first),
        "first_seen": dict(sorted(first.items())),
    }


def conversations(events: Sequence[Event]) -> dict[str, int]:
    """How many conversations each pair had, keyed "a|b" (ids sorted)."""
    pairs: Counter[str] = Counter()
    for event in events:
        if event.kind == "conversation":
            pairs["|".join(sorted(event.data.get("participants", [])))] += 1
    return dict(sorted(pairs.items()))


def rejected_actions(events: Sequence[Event]) -> int:
    return sum(1 for e in events if e.kind == "action" and e.data.get("ok") is False)
