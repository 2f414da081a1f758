"""A population file: commuters listed one by one (`agents.personas`), each a person of its
own with its home and work zones, in place of a mix drawn from the profiles.

A fitted population (`simulacra population fit`, experiments/population.py) is written in this
form. Each row names its profile, which still gives what a row does not: the identity's
words, the allowed modes, the deadline and its kind. The row's zones replace the profile's,
and the trip's length is the city's distance between them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from simulacra.core.times import HHMM_PATTERN, parse_hhmm
from simulacra.mind.commuter.profiles import Commuter, Person, Priorities, Profile


class CommuterPersona(BaseModel):
    """One row of a commute's population file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    profile: str
    home: str = Field(description="the zone the commuter lives in")
    work: str = Field(description="the zone of its work or study: the trip's destination")
    age: int = Field(ge=0, le=120)
    gender: str = Field(min_length=1)
    income_eur: int = Field(ge=0, description="monthly net income in EUR")
    weights: Priorities
    flexibility_min: int = Field(default=0, ge=0)
    habit: str = Field(pattern=HHMM_PATTERN, description="the usual departure, HH:MM")


def persona_of(commuter: Commuter) -> dict[str, Any]:
    """A commuter as a row of the population file (the inverse of `population_of`)."""
    person = commuter.person
    return {
        "id": commuter.id,
        "profile": commuter.profile_name,
        "home": commuter.profile.home,
        "work": commuter.profile.destination,
        "age": person.age,
        "gender": person.gender,
        "income_eur": person.income_eur,
        "weights": dict(person.weights),
        "flexibility_min": person.flexibility_min,
        "habit": person.habit,
    }


def population_of(
    profiles: Mapping[str, Profile],
    personas: Sequence[CommuterPersona],
    distance_km: Callable[[str, str], float],
) -> list[Commuter]:
    """The commuters of a population file, in its order; `distance_km` is the city's."""
    people = []
    for row in personas:
        profile = profiles[row.profile].model_copy(
            update={
                "home": row.home,
                "destination": row.work,
                "distance_km": round(distance_km(row.home, row.work), 3),
            }
        )
        weights = row.weights.normalised()
        person = Person(
            age=row.age,
            gender=row.gender,
            income_eur=row.income_eur,
            weights=tuple((name, round(w, 3)) for name, w in weights.items()),
            flexibility_min=row.flexibility_min,
            habit_min=parse_hhmm(row.habit),
        )
        people.append(Commuter(row.id, row.profile, profile, person))
    return people
