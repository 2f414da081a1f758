"""Commuter profiles, and the population a scenario draws from them.

A profile is a stylised archetype (the source's Table 4): what its members do, what they care
about, which modes they may use, where they live and work, and when they must arrive. Each
commuter drawn from it is a person of its own (section 4.2's identity I): an age, a gender, a
monthly income, its own weighting of the profile's priorities, a flexibility and a departure
habit, all drawn from the profile's ranges by a generator seeded with the run's seed and the
commuter's id, so a seed fixes the population and adding agents changes nobody else.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from simulacra.core import crc_seed
from simulacra.core.times import HHMM_PATTERN, format_hhmm, parse_hhmm

PRIORITIES = ("time", "cost", "comfort", "punctuality")
# The share of a month's income a commuter is prepared to spend on the journey to work, over
# 21 working days: a trip's cost is judged against it (about 12% is the household transport
# share in Spanish budget surveys).
TRAVEL_SHARE, WORKING_DAYS = 0.12, 21
# How far one commuter's weights stray from its profile's: a log-normal factor per priority.
_WEIGHT_SPREAD = 0.25


class Sociodemographics(BaseModel):
    """What the members of a profile share, in words a language model reads."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    occupation: str
    education: str = ""
    household: str = ""
    notes: str = ""


class Priorities(BaseModel):
    """How much a commuter cares about door-to-door time, cost, comfort and punctuality; the
    weights are relative (any scale) and normalised to sum to one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    time: float = Field(default=1.0, ge=0)
    cost: float = Field(default=1.0, ge=0)
    comfort: float = Field(default=1.0, ge=0)
    punctuality: float = Field(default=1.0, ge=0)

    @model_validator(mode="after")
    def _some_weight(self) -> Priorities:
        if self.total() <= 0:
            raise ValueError("every weight is 0; give at least one priority a weight above 0")
        return self

    def total(self) -> float:
        return self.time + self.cost + self.comfort + self.punctuality

    def normalised(self) -> dict[str, float]:
        return {name: getattr(self, name) / self.total() for name in PRIORITIES}


def _ordered(pair: tuple[float, float], what: str) -> None:
    if pair[0] > pair[1]:
        raise ValueError(f"{what} range {list(pair)} runs backwards; write [low, high]")


class Profile(BaseModel):
    """One commuter archetype and the ranges its members are drawn from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str
    identity: Sociodemographics
    ages: tuple[int, int] = Field(description="[youngest, oldest]")
    genders: tuple[str, ...] = Field(default=("female", "male"), min_length=1)
    income: Literal["low", "middle", "high"]
    income_eur: tuple[int, int] = Field(description="monthly net income, [low, high] in EUR")
    modal_priorities: tuple[str, ...] = Field(min_length=1)
    weights: Priorities = Priorities()
    expected_modes: tuple[str, ...] = ()
    allowed_modes: tuple[str, ...] = Field(default=("bus", "taxi", "walk"), min_length=1)
    home: str
    destination: str
    distance_km: float = Field(gt=0)
    deadline: str = Field(pattern=HHMM_PATTERN)
    deadline_kind: Literal["strict", "flexible"] = "strict"
    flexibility_min: tuple[int, int] = Field(
        default=(0, 0), description="minutes after the deadline that still do no harm"
    )
    habit: tuple[str, str] = Field(description="the usual departure, [earliest, latest] HH:MM")

    @field_validator("allowed_modes")
    @classmethod
    def _distinct(cls, modes: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(modes)) != len(modes):
            raise ValueError(f"allowed_modes repeats a mode: {list(modes)}")
        return modes

    @model_validator(mode="after")
    def _consistent(self) -> Profile:
        if self.home == self.destination:
            raise ValueError(f"home and destination are both {self.home!r}; a commute needs two")
        _ordered((self.ages[0], self.ages[1]), "ages")
        _ordered((self.income_eur[0], self.income_eur[1]), "income_eur")
        _ordered((self.flexibility_min[0], self.flexibility_min[1]), "flexibility_min")
        if min(self.ages) < 0 or min(self.income_eur) < 0 or min(self.flexibility_min) < 0:
            raise ValueError("ages, income_eur and flexibility_min cannot be negative")
        _ordered((parse_hhmm(self.habit[0]), parse_hhmm(self.habit[1])), "habit")
        return self


@dataclass(frozen=True)
class Person:
    """Who one commuter is, within its profile."""

    age: int
    gender: str
    income_eur: int
    weights: tuple[tuple[str, float], ...]  # (priority, weight), summing to 1
    flexibility_min: int
    habit_min: float  # the usual departure, minutes since midnight

    @property
    def budget_eur(self) -> float:
        """What this commuter is prepared to spend on one trip."""
        return round(self.income_eur * TRAVEL_SHARE / WORKING_DAYS, 2)

    @property
    def habit(self) -> str:
        return format_hhmm(self.habit_min)

    def weight(self, priority: str) -> float:
        return dict(self.weights)[priority]


def draw_person(profile: Profile, rng: random.Random) -> Person:
    """One member of `profile`: each attribute uniform over its range (weights around the
    profile's, departures and flexibility on a 5-minute grid, incomes to 50 EUR)."""
    raw = {
        name: weight * math.exp(rng.gauss(0.0, _WEIGHT_SPREAD))
        for name, weight in profile.weights.normalised().items()
    }
    total = sum(raw.values())
    early, late = parse_hhmm(profile.habit[0]), parse_hhmm(profile.habit[1])
    return Person(
        age=rng.randint(*profile.ages),
        gender=rng.choice(profile.genders),
        income_eur=50 * round(rng.randint(*profile.income_eur) / 50),
        weights=tuple((name, round(w / total, 3)) for name, w in raw.items()),
        flexibility_min=5 * round(rng.randint(*profile.flexibility_min) / 5),
        habit_min=early + 5 * rng.randint(0, int((late - early) // 5)),
    )


@dataclass(frozen=True)
class Commuter:
    """One agent of the population: an id, the profile it was drawn from, and who it is."""

    id: str
    profile_name: str
    profile: Profile
    person: Person


def person_seed(seed: int, agent: str) -> int:
    """A commuter's own seed: fixed by the run's seed and its id, in every process."""
    return crc_seed(seed, agent, "person")


def build_population(
    profiles: Mapping[str, Profile], mix: Mapping[str, int], seed: int
) -> list[Commuter]:
    """Agents in the order of `mix`, ids `<profile>_<n>` numbered from 1 within each profile,
    each a person drawn from its profile with the run's `seed`."""
    people: list[Commuter] = []
    for name, count in mix.items():
        profile = profiles[name]
        width = max(3, len(str(count)))
        for i in range(1, count + 1):
            agent = f"{name}_{i:0{width}d}"
            person = draw_person(profile, random.Random(person_seed(seed, agent)))
            people.append(Commuter(agent, name, profile, person))
    return people
