"""The commuter's five prompts as data: template, output model, fallback and renderer.

Compact on purpose: the embedded 135M model must fill the schemas. Purposes:
"commute.weekly", "commute.reflect", "commute.daily", "commute.abstract" and
"commute.merge" (the monthly merge of the weekly lessons, section 4.3).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from simulacra.core import format_hhmm
from simulacra.llm import MaxChars, Message, chat
from simulacra.mind.commuter.plans import WEEKDAYS, DayPlan, PlanRules
from simulacra.mind.commuter.profiles import Commuter

_MAX_TEXT = 200
# A lesson states each mode of its week or weeks: room for three.
_MAX_LESSON = 300
_WORDS = re.compile(r"[A-Za-z]{2,}")
_DEBRIS = re.compile(r"[{}\[\]]")
MIN_WORDS = 3
# A loop: in a text of at least 6 words, one word a third of them ("taxi, taxi, taxi ...").
_LOOP_WORDS, _LOOP_SHARE = 6, 3
# What a reflection or lesson must name of the outcomes it remembers: a mode, a time (a clock
# time or minutes) or a day.
_OUTCOME = re.compile(
    r"\b(?:bus(?:es)?|taxis?|walk(?:s|ed|ing)?|\d{1,2}:\d\d|\d+ ?min(?:utes?)?|days? \d+|"
    r"monday|tuesday|wednesday|thursday|friday)\b",
    re.IGNORECASE,
)
# Completion tokens per purpose: enough for the answer's JSON, no room to ramble.
MAX_TOKENS = {
    "commute.weekly": 112,
    "commute.daily": 32,
    "commute.reflect": 80,
    "commute.abstract": 80,
    "commute.merge": 80,
}


def _sentences(text: str) -> str:
    """One or two sentences about what happened: words, not "{{" or an empty string (either
    would count as a reflection that worked and hide a failure), naming at least one outcome
    (a mode, a time, a day), not advice that could be written without having travelled, and
    not a loop."""
    text = " ".join(text.split())
    if _DEBRIS.search(text) or len(_WORDS.findall(text)) < MIN_WORDS:
        raise ValueError(
            f"{text[:40]!r} says nothing; write one or two sentences of at least {MIN_WORDS} words"
        )
    if not _OUTCOME.search(text):
        raise ValueError(f"{text[:40]!r} names no outcome; say which mode, time or day it is about")
    words = [w.lower() for w in _WORDS.findall(text)]
    top, count = Counter(words).most_common(1)[0]
    if len(words) >= _LOOP_WORDS and count * _LOOP_SHARE > len(words):
        raise ValueError(f"{text[:40]!r} repeats {top!r} {count} times in {len(words)} words")
    return text


def _prose(limit: int) -> str:
    """What constrained decoding may write: a capital first, then prose (no braces, brackets,
    quotes or backslashes), at least a few words' worth."""
    return rf"^[A-Z][^{{}}\[\]\"\\]{{19,{limit - 1}}}$"


# MaxChars bounds constrained decoding at the limit and trims a longer answer instead of failing.
Sentences = Annotated[
    str,
    MaxChars(_MAX_TEXT),
    AfterValidator(_sentences),
    Field(json_schema_extra={"pattern": _prose(_MAX_TEXT)}),
]
Lesson = Annotated[
    str,
    MaxChars(_MAX_LESSON),
    AfterValidator(_sentences),
    Field(json_schema_extra={"pattern": _prose(_MAX_LESSON)}),
]


class Reflection(BaseModel):
    """What went well or badly yesterday and what to change."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    summary: Sentences


class Patterns(BaseModel):
    """The week's lesson, for long-term memory."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pattern: Lesson


SYSTEM = "You are a commuter planning trips in a city. Answer only with JSON matching the schema."

# The identity I of section 4.2. Table 4's "Expectation" (the modes the study measures
# deviation from) is left out unless `show_expectation`: the source gives the model the
# identity, not the answer.
IDENTITY = (
    "I am {label}, {age}, {gender}: {occupation}; income {income_eur} EUR a month "
    "({income}). Priorities: {priorities}. What matters to me: {weights}.{expected}\n"
    "Trip: {home} to {destination}, {distance_km} km. Arrive by {deadline} ({deadline_kind}"
    "{flexibility}). I usually leave at {habit}.\n"
    "Modes allowed: {modes}. Depart between {window}."
)
EXPECTED = " Usual modes: {modes}."

WEEKLY = (
    "{identity}\nLessons from past weeks:\n{ltm}\n"
    "Plan Monday to Friday, five days in order: for each day a departure (HH:MM) and a mode."
)

REFLECT = (
    "{identity}\nThe plan of day {day}: {plan}.\nWhat happened: {outcome}.\n"
    "In one or two sentences: what happened (the mode, the times, the day), did the plan "
    "work, and what should change?"
)

DAILY = (
    "{identity}\nThis week so far:\n{stm}\nToday is {weekday}.{environment}\n"
    "Planned for today: {initial}.\nKeep or change today's plan (departure HH:MM, mode)."
)

ABSTRACT = (
    "{identity}\nThis week:\n{stm}\n"
    "State the lesson of this week in one or two sentences: which mode and departure worked."
)

MERGE = (
    "{identity}\nLessons of the past weeks:\n{lessons}\n"
    "Merge them into one lesson of one or two sentences: what held week after week, and which "
    "mode and departure to keep."
)


def render_identity(commuter: Commuter, rules: PlanRules, show_expectation: bool = False) -> str:
    profile, person = commuter.profile, commuter.person
    flexible = person.flexibility_min
    expected = ", ".join(profile.expected_modes) or "none"
    return IDENTITY.format(
        label=_a(profile.label),
        age=person.age,
        gender=person.gender,
        occupation=profile.identity.occupation,
        income_eur=person.income_eur,
        income=profile.income,
        priorities=", ".join(profile.modal_priorities),
        weights=", ".join(f"{k} {w:.0%}" for k, w in person.weights),
        expected=EXPECTED.format(modes=expected) if show_expectation else "",
        home=profile.home,
        destination=profile.destination,
        distance_km=f"{profile.distance_km:g}",
        deadline=profile.deadline,
        deadline_kind=profile.deadline_kind,
        flexibility=f"; up to {flexible} min late does no harm" if flexible else "",
        habit=person.habit,
        modes=", ".join(rules.modes),
        window=f"{format_hhmm(rules.window.start_min)} and {format_hhmm(rules.window.end_min)}",
    )


def _a(label: str) -> str:
    """The label with its indefinite article: "an administrative worker"."""
    return f"{'an' if label[:1].lower() in 'aeiou' else 'a'} {label}"


def weekly_messages(identity: str, ltm: str) -> tuple[Message, ...]:
    return chat(SYSTEM, WEEKLY.format(identity=identity, ltm=ltm))


def reflect_messages(identity: str, day: int, plan: DayPlan, outcome: str) -> tuple[Message, ...]:
    user = REFLECT.format(identity=identity, day=day, plan=plan.describe(), outcome=outcome)
    return chat(SYSTEM, user)


def daily_messages(
    identity: str, stm: str, weekday: int, environment: str, initial: DayPlan
) -> tuple[Message, ...]:
    user = DAILY.format(
        identity=identity,
        stm=stm,
        weekday=WEEKDAYS[weekday % len(WEEKDAYS)],
        environment=f" {environment}" if environment else "",
        initial=initial.describe(),
    )
    return chat(SYSTEM, user)


def abstract_messages(identity: str, stm: str) -> tuple[Message, ...]:
    return chat(SYSTEM, ABSTRACT.format(identity=identity, stm=stm))


def merge_messages(identity: str, lessons: str) -> tuple[Message, ...]:
    return chat(SYSTEM, MERGE.format(identity=identity, lessons=lessons))


# The fallbacks are declared, not judged: built without validation, cut to the field's limit.


def reflection_fallback(outcome: str) -> Reflection:
    """Used, flagged, when the model cannot reflect: the bare facts."""
    return Reflection.model_construct(summary=f"No reflection; the facts: {outcome}"[:_MAX_TEXT])


def patterns_fallback(stm: str) -> Patterns:
    """Used, flagged, when the model cannot abstract: the week's last episode."""
    last = stm.strip().splitlines()[-1] if stm.strip() else "no trips"
    return Patterns.model_construct(pattern=f"No abstraction; last trip: {last}"[:_MAX_LESSON])


def merge_fallback(lessons: str) -> Patterns:
    """Used, flagged, when the model cannot merge: the latest week's lesson stands."""
    latest = lessons.strip().splitlines()[-1] if lessons.strip() else "no lessons"
    return Patterns.model_construct(pattern=f"No merge; latest lesson: {latest}"[:_MAX_LESSON])
