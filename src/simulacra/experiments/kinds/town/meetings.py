"""When agents meet, read from the plans a pilot logged: a stratum of the estimate.

A meeting (two agents' plan blocks put them at the same place, from the moment the second
arrives) brings its calls in the hour after it: the sights rated, the reaction, the
conversation and its ratings. These come once per meeting, not once per tick, so a pilot
that holds a meeting must not spread it over every tick of the run. Day plans are made at
a day's first tick for the whole day, so a pilot of that tick knows the day's meetings; the
days it did not plan are taken to repeat the last day it did (the routine repeats).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from itertools import combinations

from simulacra.runlog import Event

AFTER = timedelta(hours=1)  # the calls a meeting brings come within this of its start
Block = tuple[datetime, datetime, str]  # start, end, place


def schedules(events: Iterable[Event]) -> dict[str, list[Block]]:
    """Each agent's blocks as its day plans and replans left them (a replan replaces the
    blocks from its first start on)."""
    found: dict[str, list[Block]] = defaultdict(list)
    for event in events:
        if event.kind != "plan" or event.data.get("level") not in ("day", "replan"):
            continue
        agent, items = event.agent, event.data.get("items") or []
        blocks = [_block(item) for item in items if isinstance(item, dict)]
        if agent is None or not blocks:
            continue
        cut = min(start for start, _, _ in blocks)
        kept = [b for b in found[agent] if b[0] < cut]
        found[agent] = [*((s, min(e, cut), p) for s, e, p in kept), *blocks]
    return dict(found)


def meeting_ticks(plans: dict[str, list[Block]], times: Sequence[datetime]) -> list[bool]:
    """Whether each tick falls within an hour of a meeting's start."""
    starts = _meetings(plans)
    if starts and times:
        planned = {s.date() for s in starts}
        last = max(planned)
        by_clock = sorted(
            s - datetime.combine(last, datetime.min.time()) for s in starts if s.date() == last
        )
        for day in sorted({t.date() for t in times} - planned):
            if day > last:  # an unplanned later day repeats the last planned one
                midnight = datetime.combine(day, datetime.min.time())
                starts |= {midnight + offset for offset in by_clock}
    marks = [False] * len(times)
    for start in starts:
        first = bisect.bisect_left(times, start)
        for i in range(first, bisect.bisect_left(times, start + AFTER)):
            marks[i] = True
    return marks


def _meetings(plans: dict[str, list[Block]]) -> set[datetime]:
    """The moments two agents come to be at the same place."""
    found: set[datetime] = set()
    for a, b in combinations(sorted(plans), 2):
        for start_a, end_a, place_a in plans[a]:
            for start_b, end_b, place_b in plans[b]:
                start, end = max(start_a, start_b), min(end_a, end_b)
                if place_a == place_b and start < end and not _continues(plans, a, b, start):
                    found.add(start)
    return found


def _continues(plans: dict[str, list[Block]], a: str, b: str, at: datetime) -> bool:
    """Whether `a` and `b` were already together just before `at` (a new block at the same
    place is no new meeting)."""
    before = at - timedelta(minutes=1)
    where = [_place_at(plans[x], before) for x in (a, b)]
    return where[0] is not None and where[0] == where[1]


def _place_at(blocks: list[Block], at: datetime) -> str | None:
    return next((p for s, e, p in blocks if s <= at < e), None)


def _block(item: dict[str, object]) -> Block:
    start = datetime.fromisoformat(str(item["start"]))
    minutes = item.get("duration_min", 0)
    length = timedelta(minutes=float(minutes) if isinstance(minutes, int | float) else 0.0)
    return (start, start + length, str(item.get("place", "")))
