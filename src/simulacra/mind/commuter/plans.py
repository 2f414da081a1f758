"""Travel plans: departure ("HH:MM"), mode and destination per day.

The output models are built per identity (`plan_models`). What the model writes is a
departure and a mode per day: the JSON schema lists only the agent's allowed modes and only
times inside the day's window (so constrained decoding cannot write 18:00 for a morning
commute), and leaves out the destination, which the identity fixes (the plan carries it).
Validation rejects a mode not allowed, another destination or a departure outside the window,
so a failed answer from a model that is not constrained is retried by the Gateway and then
replaced by the fallback.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator
from pydantic.json_schema import SkipJsonSchema

from simulacra.core import Action, DayWindow, format_hhmm, parse_hhmm
from simulacra.core.times import HHMM_PATTERN
from simulacra.mind.commuter.profiles import Commuter, Profile

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
PLAN_DAYS = len(WEEKDAYS)


@dataclass(frozen=True)
class PlanRules:
    """What makes a plan valid for one identity."""

    modes: tuple[str, ...]
    destination: str
    window: DayWindow

    def check(self, plan: DayPlan) -> None:
        if plan.mode not in self.modes:
            raise ValueError(f"mode {plan.mode!r} is not allowed; choose one of {list(self.modes)}")
        if plan.destination != self.destination:
            raise ValueError(f"destination must be {self.destination!r}, not {plan.destination!r}")
        self.window.check(plan.departure)


class DayPlan(BaseModel):
    """One day's plan; `rules` is set on the per-identity subclasses."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    rules: ClassVar[PlanRules | None] = None

    departure: str = Field(pattern=HHMM_PATTERN)
    mode: str
    destination: str

    @model_validator(mode="after")
    def _within_rules(self) -> DayPlan:
        if type(self).rules is not None:
            type(self).rules.check(self)  # type: ignore[union-attr]
        return self

    @property
    def departure_min(self) -> float:
        return parse_hhmm(self.departure)

    def describe(self) -> str:
        return f"{self.mode} at {self.departure} to {self.destination}"


class WeeklyPlan(BaseModel):
    """Monday to Friday, in order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    days: tuple[DayPlan, ...] = Field(min_length=PLAN_DAYS, max_length=PLAN_DAYS)


@dataclass(frozen=True)
class PlanModels:
    day: type[DayPlan]
    week: type[WeeklyPlan]
    rules: PlanRules


def window_pattern(window: DayWindow) -> str:
    """A regular expression of the HH:MM times inside `window` (its end excluded)."""
    first, last = math.ceil(window.start_min), math.ceil(window.end_min) - 1
    choices = []
    for hour in range(first // 60, last // 60 + 1):
        low, high = max(first, 60 * hour) - 60 * hour, min(last, 60 * hour + 59) - 60 * hour
        if (low, high) == (0, 59):
            choices.append(f"{hour:02d}:[0-5][0-9]")
            continue
        for tens in range(low // 10, high // 10 + 1):
            a, b = max(low, 10 * tens) - 10 * tens, min(high, 10 * tens + 9) - 10 * tens
            choices.append(f"{hour:02d}:{tens}[{a}-{b}]")
    return "^(" + "|".join(choices) + ")$"


def plan_models(profile: Profile, window: DayWindow) -> PlanModels:
    """Output models whose schema and validation follow `profile` and `window`."""
    the_rules = PlanRules(tuple(profile.allowed_modes), profile.destination, window)
    enum_modes: list[JsonValue] = list(the_rules.modes)
    times = window_pattern(window)

    class IdentityDayPlan(DayPlan):
        rules: ClassVar[PlanRules | None] = the_rules
        # The pattern is for constrained decoding; validation names the window instead.
        departure: str = Field(pattern=HHMM_PATTERN, json_schema_extra={"pattern": times})
        mode: str = Field(json_schema_extra={"enum": enum_modes})
        destination: SkipJsonSchema[str] = the_rules.destination

    class IdentityWeeklyPlan(WeeklyPlan):
        days: tuple[IdentityDayPlan, ...] = Field(min_length=PLAN_DAYS, max_length=PLAN_DAYS)

    return PlanModels(IdentityDayPlan, IdentityWeeklyPlan, the_rules)


def random_week(models: PlanModels, profile: Profile, rng: random.Random) -> WeeklyPlan:
    """Section 4.4's RandomPlan(I): allowed modes, and departures on a 5-minute grid within
    the profile's preferred departures (its `habit` range), clipped to the day's window."""
    window = models.rules.window
    earliest = max(window.start_min, parse_hhmm(profile.habit[0]))
    latest = min(window.end_min - 5, max(earliest, parse_hhmm(profile.habit[1])))
    slots = [earliest + 5 * k for k in range(int((latest - earliest) // 5) + 1)]
    days = tuple(
        models.day(
            departure=format_hhmm(rng.choice(slots)),
            mode=rng.choice(models.rules.modes),
            destination=profile.destination,
        )
        for _ in WEEKDAYS
    )
    return models.week(days=days)


def trip_action(commuter: Commuter, plan: DayPlan, **extra: Any) -> Action:
    """Today's trip as the commute world books it, with the traveller's priorities, budget and
    flexibility, by which the world scores the trip's satisfaction; `extra` joins the args."""
    person = commuter.person
    return Action(
        "travel",
        plan.describe(),
        target=plan.destination,
        args={
            "mode": plan.mode,
            "departure_min": plan.departure_min,
            "origin": commuter.profile.home,
            "destination": plan.destination,
            "deadline": commuter.profile.deadline,
            "priorities": dict(person.weights),
            "budget_eur": person.budget_eur,
            "flexibility_min": person.flexibility_min,
            "plan": plan.model_dump(),
            **extra,
        },
    )
