"""The planning prompts as data: templates, output models and the fallbacks they declare.

Each task is fixed per purpose; `MindContext.ask` puts it after the persona and before the
situation, so that a serving engine reuses the cached prompt prefix across calls.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from typing import Annotated, Literal

from pydantic import BaseModel, Field, create_model

from simulacra.llm import MaxChars

CLOCK = r"^([01]?[0-9]|2[0-3]):[0-5][0-9]$"
MAX_BLOCKS = 8  # a plan's blocks at most, the day's and a replan's


class PlannedBlock(BaseModel):
    start: str = Field(pattern=CLOCK, description="24-hour clock time, HH:MM")
    place: Annotated[str, MaxChars(32)]
    activity: Annotated[str, MaxChars(36)]


class DailyPlanOutput(BaseModel):
    blocks: list[PlannedBlock] = Field(min_length=5, max_length=MAX_BLOCKS)


class ReplanOutput(BaseModel):
    blocks: list[PlannedBlock] = Field(min_length=1, max_length=MAX_BLOCKS)


class HourlyOutput(BaseModel):
    activities: list[Annotated[str, MaxChars(36)]] = Field(min_length=1, max_length=24)


MAX_ACTIONS = 6
NONE = "none"  # an enum's answer for no object, no appointment time or place
STATE_CHARS = 24  # an object's state: a few words ("brewing coffee")


class ActionsOutput(BaseModel):
    """The hour's steps as short phrases, without minutes (the hour is shared among them in
    5-15 minute steps), then the one object of the place the hour uses (`NONE`; an enum of
    the objects the agent knows there, plan_check.using) and what it is doing meanwhile, its
    state ("brewing coffee"), which the source asks in a call of its own per action. Once an
    hour, not once a step: on the same prompts SmolLM2-135M wrote 55 completion tokens a
    call for bare phrases, 127 with an object and state in every step, 78 so (docs/town.md)."""

    actions: list[Annotated[str, MaxChars(36)]] = Field(min_length=1, max_length=MAX_ACTIONS)
    object: str
    state: Annotated[str, MaxChars(STATE_CHARS)]


class NextStepOutput(BaseModel):
    place: Annotated[str, MaxChars(32)]
    activity: Annotated[str, MaxChars(36)]
    minutes: int = Field(ge=5, le=60)


THOUGHT_CHARS = 120
CLOCK_OR_NONE = rf"^(([01]?[0-9]|2[0-3]):[0-5][0-9]|{NONE})$"


class RevisionOutput(BaseModel):
    """What the news means for the character's plans (a thought it keeps), the appointment it
    gives them if any (what, when, where: the place one of theirs, `revision_output`), then
    the decision it leads to: the reason before the choice. All required: with a default,
    constrained decoding let SmolLM2-135M close the object after the thought, so the default
    decided every time (5 of 5 revisions in the demo "continue", none chosen)."""

    # 120 characters, one sentence: at 200, SmolLM2-135M's thoughts on the demo day ran to
    # 107 tokens of reply and were cut at the revision's 96 (both of Marta's fell back).
    thought: Annotated[str, MaxChars(THOUGHT_CHARS)]
    what: Annotated[str, MaxChars(36)]
    start: str = Field(pattern=CLOCK_OR_NONE, description="HH:MM or none")
    place: Annotated[str, MaxChars(32)]
    plans: Literal["continue", "replan"]


@cache
def revision_output(places: tuple[str, ...], times: tuple[str, ...]) -> type[RevisionOutput]:
    """A revision whose place is one of `places` and whose start one of `times` (those the
    news names), or none: asked for a time, SmolLM2-135M wrote 20:00 for a party it had just
    read was at 17:00, and offered the map it named Alder Cottage for a party at the cafe;
    asked to choose, it cannot name a time nobody said or a place nobody named."""
    where = StrEnum("Where", {f"p{i}": v for i, v in enumerate((*places, NONE))})  # type: ignore[misc]
    when = StrEnum("When", {f"t{i}": v for i, v in enumerate((*times, NONE))})  # type: ignore[misc]
    model: type[RevisionOutput] = create_model(
        "RevisionOutput", __base__=RevisionOutput, start=(when, ...), place=(where, ...)
    )
    return model


class DaySummaryOutput(BaseModel):
    summary: Annotated[str, MaxChars(400)]


DAILY_SYSTEM = (
    "You plan one day of a character in a town simulation. Reply in JSON with 5 to 8 blocks in "
    "time order. Each block has a start time (HH:MM, 24-hour clock), a place taken exactly from "
    "the list of places, and a short activity. Keep every appointment or promise the character "
    "remembers, at its time and place. The last block runs until midnight."
)

DAILY_EXAMPLE = " {name}'s usual day, for the form of the reply: {routine}"

DAILY_USER = """Places: {places}
Yesterday: {yesterday}
What {name} remembers about today's plans and commitments:
{memories}

Today is {date}. Plan {name}'s day from {start} until midnight."""

REPLAN_SYSTEM = (
    "Something has changed for a character in a town simulation. Rewrite the rest of their "
    "day. Reply in JSON with 1 to 8 blocks in time order, each with a start time (HH:MM, "
    "24-hour clock), a place taken exactly from the list of places, and a short activity. "
    "Keep appointments and promises the character remembers."
)

REPLAN_EXAMPLE = " {name}'s plan so far, for the form of the reply: {plan}"

REPLAN_USER = """Places: {places}
The plan so far for the rest of the day:
{remaining}
What {name} remembers:
{memories}

It is {now} on {date}. What changed: {reason}
Plan {name}'s day from {now} until midnight."""

REVISE_SYSTEM = (
    "A character in a town simulation has just learned something. Say in one sentence, in "
    "the first person, what it means for their plans; then the appointment it gives them, if "
    "any: what it is in a few words, its start time (HH:MM) and its place from the list, or "
    "none and none; then decide: continue with the plan, or replan the rest of today. "
    "Replan only when the rest of today must change. Reply in JSON."
)

REVISE_USER = """{name}'s plan for the rest of today ({date}):
{remaining}
What {name} remembers:
{memories}

It is {now}. What just happened:
{news}
What does this mean for {name}'s plans, and does the rest of the day change?"""

REACT_WINDOW_SYSTEM = (
    "A character interrupts what they were doing to react to something. Rewrite their next "
    "steps, from now to the end of the window given: 2 to 6 short actions in order, the "
    "reaction first, then what they do after it. Reply in JSON with the list of actions, "
    "then the one object here they use (or none) and what that object is doing meanwhile."
)

REACT_WINDOW_USER = """{name} is at {place}. Objects here: {objects}
{name} was doing: {activity}
Reaction: {reaction}
From {start} to {end} ({minutes} minutes): list the actions."""

HOURLY_SYSTEM = (
    "You break one block of a character's daily plan into hour-long parts. Reply in JSON with "
    "one short activity per hour, in order."
)

HOURLY_USER = """{name} plans: {activity} at {place}, from {start} to {end} ({hours} hours).
Give {hours} activities, one for each hour."""

ACTIONS_SYSTEM = (
    "You break a character's plan for the coming hour into 3 to 6 concrete actions of 5 to "
    "15 minutes each, in order. Reply in JSON with a list of short actions, then the one "
    "object here they use (or none) and what that object is doing meanwhile (the espresso "
    "machine is: brewing coffee), empty when none."
)

ACTIONS_USER = """{name} is at {place}. Objects here: {objects}
From {start} to {end} ({minutes} minutes) {name} plans: {activity}
List the actions."""

NEXT_STEP_SYSTEM = (
    "A character in a town simulation decides what to do next, without a plan. Reply in JSON "
    "with a place taken exactly from the list of places, a short activity, and how many "
    "minutes it takes (5 to 60)."
)

NEXT_STEP_USER = """Places: {places}
What {name} remembers:
{memories}

It is {now} on {date}. What does {name} do next?"""

SUMMARY_SYSTEM = (
    "Summarise a character's day in two or three sentences, in the third person. Mention "
    "anything they promised or plan to do on coming days, with its time and place."
)

SUMMARY_USER = """{name}'s plan today was:
{plan}
What {name} remembers of today:
{memories}

Summarise {name}'s day ({date})."""
