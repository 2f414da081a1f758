"""A persona's default routine: the daily plan to fall back on when the model gives none.

Built from the persona alone: sleep and mornings at home, the day at the workplace its text
names (if any), evenings at home, with wake and bed times read from the lifestyle line; and
each visit the lifestyle line times at another place of the map ("has coffee at Hobbs Cafe at
8:30": half an hour; "works at Hobbs Cafe from 8:00 to 12:00"), after which the day resumes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from simulacra.mind.town.persona import Persona
from simulacra.mind.town.plan_prompts import DailyPlanOutput, PlannedBlock

_WAKE = re.compile(r"wakes? up (?:around|at|by)?\s*(\d{1,2})(?::\d\d)?\s*(am|pm)?", re.I)
_BED = re.compile(
    r"(?:goes to bed|goes to sleep|sleeps?) (?:around|at|by)?\s*(\d{1,2})(?::\d\d)?\s*(am|pm)?",
    re.I,
)
_SLEEP_WORDS = ("sleep", "asleep", "in bed")
_SPAN = re.compile(r"\s*from (\d{1,2}):(\d\d) to (\d{1,2}):(\d\d)")
_AT = re.compile(r"\s*at (\d{1,2}):(\d\d)")
VISIT_MINUTES = 30
ACTIVITY_CHARS = 36  # PlannedBlock's


def _hour(match: re.Match[str] | None, default: int) -> int:
    if match is None:
        return default
    hour = int(match.group(1)) % 12 if match.group(2) else int(match.group(1))
    if (match.group(2) or "").lower() == "pm":
        hour += 12
    return hour if 0 <= hour <= 23 else default


def is_sleep(activity: str) -> bool:
    """Sleeping needs no decomposition and no reaction to routine sights."""
    text = activity.lower()
    return any(word in text for word in _SLEEP_WORDS)


def work_place(persona: Persona, places: Sequence[str]) -> str | None:
    """The first place, other than home, that the persona's own words mention."""
    text = f"{persona.background} {persona.lifestyle} {persona.currently}".lower()
    mentioned = [(text.find(p.lower()), p) for p in places if p != persona.home]
    found = sorted((at, p) for at, p in mentioned if at >= 0)
    return found[0][1] if found else None


def wake_hour(persona: Persona) -> int:
    """The hour the persona's lifestyle line says it wakes (7 if it says none), 4-10."""
    return min(max(_hour(_WAKE.search(persona.lifestyle), 7), 4), 10)


def visits(persona: Persona, places: Sequence[str]) -> list[tuple[int, int, str, str]]:
    """(start, end in minutes of the day, place, activity) of each timed visit the lifestyle
    line names at a place of the map other than home."""
    found = []
    for clause in re.split(r"[,;]", persona.lifestyle):
        low = clause.lower()
        place = next((p for p in places if p != persona.home and p.lower() in low), None)
        span, at = _SPAN.search(clause), _AT.search(clause)
        if place is None or (span is None and at is None):
            continue
        if span is not None:
            h1, m1, h2, m2 = (int(g) for g in span.groups())
            start, end, said = h1 * 60 + m1, h2 * 60 + m2, clause.replace(span.group(0), "")
        else:
            assert at is not None
            start = int(at.group(1)) * 60 + int(at.group(2))
            end, said = start + VISIT_MINUTES, clause.replace(at.group(0), "", 1)
        what = said.strip().removeprefix("then ").strip() or "visiting"
        if 0 <= start < end <= 24 * 60:
            found.append((start, end, place, what[:ACTIVITY_CHARS].strip()))
    return sorted(found)


def minutes_of(clock: str) -> int:
    """An "HH:MM" clock as minutes since midnight."""
    hour, minute = clock.split(":")
    return int(hour) * 60 + int(minute)


def clock_of(minutes: int) -> str:
    """Minutes since midnight as "HH:MM", as a plan's blocks write their start."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _with_visits(
    blocks: Sequence[PlannedBlock], timed: Sequence[tuple[int, int, str, str]]
) -> list[PlannedBlock]:
    """`blocks` with each visit laid over them; the block it interrupts resumes after it."""
    bounds = sorted({minutes_of(b.start) for b in blocks} | {t for v in timed for t in v[:2]})
    out: list[PlannedBlock] = []
    for t in bounds:
        if t >= 24 * 60:
            continue
        visit = next((v for v in timed if v[0] <= t < v[1]), None)
        base = [b for b in blocks if minutes_of(b.start) <= t][-1]
        place, activity = (visit[2], visit[3]) if visit else (base.place, base.activity)
        if not out or (out[-1].place, out[-1].activity) != (place, activity):
            out.append(PlannedBlock(start=clock_of(t), place=place, activity=activity))
    return out


def routine_plan(persona: Persona, places: Sequence[str]) -> DailyPlanOutput:
    """Seven blocks from midnight to midnight; the planner clips them to the hours left."""
    wake = wake_hour(persona)
    bed = min(max(_hour(_BED.search(persona.lifestyle), 23), 19), 23)
    home = persona.home
    work = work_place(persona, places)
    day_place = work or home
    day_activity = "working" if work else "going about the day's chores"
    blocks = [
        PlannedBlock(start="00:00", place=home, activity="sleeping"),
        PlannedBlock(start=f"{wake:02d}:00", place=home, activity="waking up and getting ready"),
        PlannedBlock(start=f"{wake + 1:02d}:00", place=day_place, activity=day_activity),
        PlannedBlock(start="12:00", place=day_place, activity="having lunch"),
        PlannedBlock(start="13:00", place=day_place, activity=day_activity),
        PlannedBlock(start="18:00", place=home, activity="having dinner and relaxing at home"),
        PlannedBlock(start=f"{bed:02d}:00", place=home, activity="sleeping"),
    ]
    # A day with visits may hold more than the 8 blocks a model is allowed to plan.
    return DailyPlanOutput.model_construct(blocks=_with_visits(blocks, visits(persona, places)))
