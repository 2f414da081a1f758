"""A persona's default routine: the daily plan to fall back on when the model gives none.

Built from the persona alone: sleep and mornings at home, the day at the workplace its text
names (if any), evenings at home, with wake and bed times read from the lifestyle line.
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
    return DailyPlanOutput(blocks=blocks)
