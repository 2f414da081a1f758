"""Plan steps and the schedule that holds them: day blocks, hour chunks and short actions.

Each level is a flat, time-ordered list of contiguous steps. A coarser step is decomposed only
when its time comes, so the finer lists cover the past and the present, not the future.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from difflib import SequenceMatcher
from typing import Any

from simulacra.mind.town.plan_prompts import PlannedBlock

MIN_STEP = 5
MAX_ACTION = 15
HOUR = 60
NEAR = 0.85  # how close a run of words must come to a place's name to name it


@dataclass(frozen=True)
class PlanStep:
    start: datetime
    duration_min: int
    place: str
    description: str
    object: str | None = None
    object_state: str | None = None

    @functools.cached_property  # asked of every step, every tick, by every agent
    def end(self) -> datetime:
        return self.start + timedelta(minutes=self.duration_min)

    def covers(self, now: datetime) -> bool:
        return self.start <= now < self.end

    def to_dict(self) -> dict[str, Any]:
        return dict(self._data)

    @functools.cached_property  # every checkpoint writes every agent's whole day again
    def _data(self) -> dict[str, Any]:
        return {
            "start": self.start.isoformat(),
            "duration_min": self.duration_min,
            "place": self.place,
            "description": self.description,
            "object": self.object,
            "object_state": self.object_state,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlanStep:
        return cls(
            start=datetime.fromisoformat(data["start"]),
            duration_min=int(data["duration_min"]),
            place=data["place"],
            description=data["description"],
            object=data.get("object"),
            object_state=data.get("object_state"),
        )


def _ends_at(step: PlanStep, cut: datetime) -> PlanStep:
    return replace(step, duration_min=int((cut - step.start).total_seconds() // 60))


def _cut(steps: list[PlanStep], now: datetime) -> list[PlanStep]:
    """The past of a level: steps before `now`, the running one shortened to end at `now`."""
    kept = [s for s in steps if s.end <= now]
    kept += [_ends_at(s, now) for s in steps if s.start < now < s.end]
    return kept


def _at(steps: Sequence[PlanStep], now: datetime) -> PlanStep | None:
    # Steps are contiguous and in time order, and the finer levels end at the present: search
    # from the end.
    return next((s for s in reversed(steps) if s.covers(now)), None)


def holds(steps: Sequence[PlanStep], appointment: PlanStep) -> bool:
    """Whether the plan has the agent at the appointment's place when it starts."""
    return any(s.place == appointment.place and s.covers(appointment.start) for s in steps)


def laid_over(steps: Sequence[PlanStep], appointment: PlanStep) -> list[PlanStep]:
    """`steps` with `appointment` in them: a step it overlaps is cut short at its start and
    goes on after its end."""
    kept = []
    for s in steps:
        if s.end <= appointment.start or s.start >= appointment.end:
            kept.append(s)
            continue
        if s.start < appointment.start:
            kept.append(_ends_at(s, appointment.start))
        if s.end > appointment.end:
            minutes = int((s.end - appointment.end).total_seconds() // 60)
            kept.append(replace(s, start=appointment.end, duration_min=minutes))
    return sorted([*kept, appointment], key=lambda s: s.start)


@dataclass
class Schedule:
    """One day's plan at three levels; only the day level reaches into the future."""

    blocks: list[PlanStep] = field(default_factory=list)
    hours: list[PlanStep] = field(default_factory=list)
    actions: list[PlanStep] = field(default_factory=list)

    def block_at(self, now: datetime) -> PlanStep | None:
        return _at(self.blocks, now)

    def hour_at(self, now: datetime) -> PlanStep | None:
        return _at(self.hours, now)

    def action_at(self, now: datetime) -> PlanStep | None:
        return _at(self.actions, now)

    def remaining(self, now: datetime) -> list[PlanStep]:
        """The blocks still ahead, the running one starting at `now`."""
        ahead = [s for s in self.blocks if s.start >= now]
        running = [
            replace(s, start=now, duration_min=int((s.end - now).total_seconds() // 60))
            for s in self.blocks
            if s.start < now < s.end
        ]
        return running + ahead

    def cut_at(self, now: datetime) -> None:
        """Keep the past (and the running steps up to `now`); forget what was ahead."""
        self.blocks = _cut(self.blocks, now)
        self.cut_steps_at(now)

    def cut_steps_at(self, now: datetime) -> None:
        """Keep the day's blocks; forget the hours and actions ahead of `now`."""
        self.hours = _cut(self.hours, now)
        self.actions = _cut(self.actions, now)

    def keep_day_of(self, now: datetime) -> None:
        """Drop earlier days so that the state stays one day long."""
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
        self.blocks = [s for s in self.blocks if s.end > midnight]
        self.hours = [s for s in self.hours if s.end > midnight]
        self.actions = [s for s in self.actions if s.end > midnight]

    def to_dict(self) -> dict[str, Any]:
        return {
            "blocks": [s.to_dict() for s in self.blocks],
            "hours": [s.to_dict() for s in self.hours],
            "actions": [s.to_dict() for s in self.actions],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Schedule:
        return cls(
            blocks=[PlanStep.from_dict(s) for s in data.get("blocks", [])],
            hours=[PlanStep.from_dict(s) for s in data.get("hours", [])],
            actions=[PlanStep.from_dict(s) for s in data.get("actions", [])],
        )


def resolve_place(text: str, places: Sequence[str], home: str) -> tuple[str, bool]:
    """The known place a model's text names, or home; the flag says whether it was known."""
    if not places:
        return (text.strip() or home), bool(text.strip())
    found = _known_place(text.strip().lower().removeprefix("the ").strip(), tuple(places))
    return (home, False) if found is None else (found, True)


def places_named(text: str, places: Sequence[str]) -> list[str]:
    """The places `text` names, in the order of `places`, a misspelt one too ("Hobbes Cafe"
    for Hobbs Cafe, as SmolLM2-135M passes it on): a run of as many words that nearly
    matches."""
    words = re.findall(r"[\w'’]+", text.lower())
    found = []
    for place in places:
        size = len(place.split())
        runs = (" ".join(words[i : i + size]) for i in range(len(words) - size + 1))
        if any(SequenceMatcher(None, run, place.lower()).ratio() >= NEAR for run in runs):
            found.append(place)
    return found


@functools.lru_cache(maxsize=4096)  # a big town's agents name the same few places of one map
def _known_place(wanted: str, places: tuple[str, ...]) -> str | None:
    lowered = [(p.lower(), p) for p in places]
    exact = next((p for low, p in lowered if low == wanted), None)
    if exact is not None:
        return exact
    named = sorted((p for low, p in lowered if low in wanted), key=len, reverse=True)
    if named:
        return named[0]
    within = [p for low, p in lowered if wanted and wanted in low]
    return within[0] if len(within) == 1 else None


def parse_clock(day: datetime, text: str) -> datetime:
    hour, minute = text.split(":")
    return day.replace(hour=int(hour), minute=int(minute), second=0, microsecond=0)


def blocks_from(
    items: Iterable[PlannedBlock],
    start: datetime,
    end: datetime,
    places: Sequence[str],
    home: str,
    lead: PlannedBlock | None = None,
    limit: int = 8,
) -> tuple[list[PlanStep], int]:
    """Contiguous blocks covering [start, end) from a model's list, and how many places were
    unknown (each replaced by home). Out-of-range times are clipped, near-duplicates dropped.
    When the list begins after `start`, `lead` fills the gap (sleep before a day that starts
    at 7, the running activity before a new plan) if that stays within `limit` blocks;
    otherwise the first block is moved back to `start`."""
    midnight = start.replace(hour=0, minute=0, second=0, microsecond=0)
    timed = sorted(((parse_clock(midnight, b.start), b) for b in items), key=lambda p: p[0])
    kept: list[tuple[datetime, PlannedBlock]] = []
    for planned, block in timed:
        at = max(planned, start)
        if at >= end:
            continue
        if kept and at == start == kept[-1][0]:
            kept[-1] = (at, block)  # of several blocks already begun, the latest one is running
        elif not kept or at - kept[-1][0] >= timedelta(minutes=MIN_STEP):
            kept.append((at, block))
    if kept and kept[0][0] > start:
        if lead is not None and len(kept) < limit:
            kept.insert(0, (start, lead))
        else:
            kept[0] = (start, kept[0][1])
    steps: list[PlanStep] = []
    unknown = 0
    for i, (at, block) in enumerate(kept):
        until = kept[i + 1][0] if i + 1 < len(kept) else end
        place, known = resolve_place(block.place, places, home)
        unknown += not known
        minutes = int((until - at).total_seconds() // 60)
        steps.append(PlanStep(at, minutes, place, block.activity.strip() or "resting"))
    return steps, unknown


def split_hours(total: int) -> list[int]:
    """Hour-long chunks covering `total` minutes; a remainder under 5 minutes joins the last."""
    chunks = [HOUR] * (total // HOUR)
    rest = total % HOUR
    if rest >= MIN_STEP or not chunks:
        chunks.append(rest)
    else:
        chunks[-1] += rest
    return chunks


def fit_durations(wanted: Sequence[int], total: int) -> list[int]:
    """Durations of 5-15 minutes summing exactly to `total` (at least 5), following `wanted`
    as closely as possible and then filling with 15-minute steps."""
    out: list[int] = []
    left = total
    queue = list(wanted)
    while left > 0:
        want = queue.pop(0) if queue else MAX_ACTION
        allowed = [
            d
            for d in range(MIN_STEP, min(MAX_ACTION, left) + 1)
            if left - d == 0 or left - d >= MIN_STEP
        ]
        if not allowed:  # only when total < 5: one short step rather than none
            out.append(left)
            break
        out.append(min(allowed, key=lambda d: (abs(d - want), -d)))
        left -= out[-1]
    return out
