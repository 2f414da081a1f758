"""The one prompt an El Farol agent answers each week: go to the bar or stay home.

It shows what Arthur's agents knew: how many decide, how many the bar holds before it is
crowded, and the attendance of the weeks remembered. Every agent sees the same numbers; what
sets the agents apart is the sampling, each with its own seed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, Field, field_validator

from simulacra.llm import MaxChars, Message, chat

PURPOSE = "elfarol.choose"

SYSTEM = """\
You are one of {agents} people in a small town. Every Thursday evening the bar El Farol plays \
Irish music. Each of you decides alone whether to go; no one knows what the others will do.
The evening is enjoyable when at most {seats} people go; when more go the bar is crowded, and \
you would rather have stayed home.
Answer with one JSON object and nothing else."""

USER = """\
Week {week}

## Attendance in the weeks you remember, oldest first
{history}

## Task
Decide whether you go to the bar this week or stay home.

JSON fields: "reason" (string: why, in one sentence), "choice" ("go" or "stay")."""


class Choice(StrEnum):
    GO = "go"
    STAY = "stay"


class BarChoice(BaseModel):
    """The answer to the prompt: the reason first, so that a model reasons before it chooses."""

    reason: Annotated[str, MaxChars(160)] = ""
    choice: Choice = Field(description="go to the bar or stay home")

    @field_validator("choice", mode="before")
    @classmethod
    def _lower_case(cls, value: Any) -> Any:
        # Small models write "Go" or " stay"; the meaning is unambiguous.
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("reason", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value


FALLBACK = BarChoice(choice=Choice.STAY, reason="(fallback: no valid reply)")


@dataclass(frozen=True)
class Week:
    """Everything an agent is told in one week."""

    week: int
    agents: int
    seats: int
    history: tuple[int, ...]  # attendance, oldest first

    @classmethod
    def of(cls, facts: Mapping[str, Any]) -> Week:
        """The view from the El Farol world's observation facts (its module docstring)."""
        return cls(
            week=int(facts["week"]),
            agents=int(facts["agents"]),
            seats=int(facts["seats"]),
            history=tuple(int(n) for n in facts["history"]),
        )


def _history(week: Week) -> str:
    if not week.history:
        return "none yet: this is the first week"
    lines = []
    for ago, went in zip(range(len(week.history), 0, -1), week.history, strict=True):
        verdict = "crowded" if went > week.seats else "enjoyable"
        lines.append(f"- {ago} week{'s' if ago > 1 else ''} ago: {went} went ({verdict})")
    return "\n".join(lines)


def choose_prompt(week: Week) -> tuple[Message, ...]:
    system = SYSTEM.format(agents=week.agents, seats=week.seats)
    return chat(system, USER.format(week=week.week, history=_history(week)))
