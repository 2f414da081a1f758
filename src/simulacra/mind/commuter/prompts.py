"""The commuter's five prompts as data: template, output model, fallback and renderer.

Compact on purpose: the embedded 135M model must fill the schemas. Purposes:
"commute.weekly", "commute.reflect", "commute.daily", "commute.abstract" and
"commute.merge" (the monthly merge of the weekly lessons, section 4.3).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict

from simulacra.core import format_hhmm
from simulacra.llm import MaxChars, Message, chat
from simulacra.mind.commuter.plans import WEEKDAYS, DayPlan, PlanRules
from simulacra.mind.commuter.profiles import Commuter

_MAX_TEXT = 300


def _one_or_two_sentences(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        raise ValueError("empty; write one or two sentences")
    return text


# MaxChars bounds constrained decoding at the limit and trims a longer answer instead of failing.
Sentences = Annotated[str, MaxChars(_MAX_TEXT), AfterValidator(_one_or_two_sentences)]


class Reflection(BaseModel):
    """What went well or badly yesterday and what to change."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    summary: Sentences


class Patterns(BaseModel):
    """The week's lesson, for long-term memory."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pattern: Sentences


SYSTEM = "You are a commuter planning trips in a city. Answer only with JSON matching the schema."

IDENTITY = (
    "I am a {label}, {age}, {gender}: {occupation}; income {income_eur} EUR a month "
    "({income}). Priorities: {priorities}. What matters to me: {weights}. "
    "Usual modes: {expected}.\n"
    "Trip: {home} to {destination}, {distance_km} km. Arrive by {deadline} ({deadline_kind}"
    "{flexibility}). I usually leave at {habit}.\n"
    "Modes allowed: {modes}. Depart between {window}."
)

WEEKLY = (
    "{identity}\nLessons from past weeks:\n{ltm}\n"
    "Plan Monday to Friday: for each day a departure (HH:MM), a mode and the destination."
)

REFLECT = (
    "{identity}\nYesterday's plan: {plan}.\nWhat happened: {outcome}.\n"
    "In one or two sentences: did the plan work, and what should change?"
)

DAILY = (
    "{identity}\nThis week so far:\n{stm}\nToday is {weekday}. {environment}\n"
    "Planned for today: {initial}.\nKeep or change today's plan (departure HH:MM, mode, "
    "destination)."
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


def render_identity(commuter: Commuter, rules: PlanRules) -> str:
    profile, person = commuter.profile, commuter.person
    flexible = person.flexibility_min
    return IDENTITY.format(
        label=profile.label,
        age=person.age,
        gender=person.gender,
        occupation=profile.identity.occupation,
        income_eur=person.income_eur,
        income=profile.income,
        priorities=", ".join(profile.modal_priorities),
        weights=", ".join(f"{k} {w:.0%}" for k, w in person.weights),
        expected=", ".join(profile.expected_modes) or "none",
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


def weekly_messages(identity: str, ltm: str) -> tuple[Message, ...]:
    return chat(SYSTEM, WEEKLY.format(identity=identity, ltm=ltm))


def reflect_messages(identity: str, plan: DayPlan, outcome: str) -> tuple[Message, ...]:
    return chat(SYSTEM, REFLECT.format(identity=identity, plan=plan.describe(), outcome=outcome))


def daily_messages(
    identity: str, stm: str, weekday: int, environment: str, initial: DayPlan
) -> tuple[Message, ...]:
    user = DAILY.format(
        identity=identity,
        stm=stm,
        weekday=WEEKDAYS[weekday % len(WEEKDAYS)],
        environment=environment,
        initial=initial.describe(),
    )
    return chat(SYSTEM, user)


def abstract_messages(identity: str, stm: str) -> tuple[Message, ...]:
    return chat(SYSTEM, ABSTRACT.format(identity=identity, stm=stm))


def merge_messages(identity: str, lessons: str) -> tuple[Message, ...]:
    return chat(SYSTEM, MERGE.format(identity=identity, lessons=lessons))


def reflection_fallback(outcome: str) -> Reflection:
    """Used, flagged, when the model cannot reflect: the bare facts."""
    return Reflection(summary=f"No reflection; the facts: {outcome}")


def patterns_fallback(stm: str) -> Patterns:
    """Used, flagged, when the model cannot abstract: the week's last episode."""
    last = stm.strip().splitlines()[-1] if stm.strip() else "no trips"
    return Patterns(pattern=f"No abstraction; last trip: {last}")


def merge_fallback(lessons: str) -> Patterns:
    """Used, flagged, when the model cannot merge: the latest week's lesson stands."""
    latest = lessons.strip().splitlines()[-1] if lessons.strip() else "no lessons"
    return Patterns(pattern=f"No merge; latest lesson: {latest}")
