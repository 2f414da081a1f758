"""The party scenario's measures, read back from events.jsonl: how word of the party spread
(from interviews), who came, and who talked with whom."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from simulacra.runlog import Event


def mentions_all(text: str, groups: Sequence[Sequence[str]]) -> bool:
    """True when `text` contains, for every group, at least one of its words (whole words)."""
    lowered = text.lower()
    return bool(groups) and all(
        any(re.search(rf"(?<!\w){re.escape(w.lower())}(?!\w)", lowered) for w in group)
        for group in groups
    )


def diffusion(
    events: Sequence[Event], question: str, aware_when: Sequence[Sequence[str]]
) -> list[dict[str, Any]]:
    """Per interview time: how many agents answered aware, who, and every answer."""
    by_time: defaultdict[str, dict[str, str]] = defaultdict(dict)
    for event in events:
        if event.kind == "interview" and event.data.get("question") == question:
            by_time[event.t or ""][event.agent or "-"] = str(event.data.get("answer", ""))
    found = []
    for t, answers in sorted(by_time.items()):
        aware = [a for a, text in answers.items() if mentions_all(text, aware_when)]
        found.append({"t": t, "aware": len(aware), "agents": aware, "answers": answers})
    return found


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
