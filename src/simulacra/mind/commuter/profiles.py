"""Commuter profiles and the population a scenario draws from them.

A profile is a stylised archetype (the source's Table 4): who the commuter is, what they care
about, which modes they may use, where they live and work, and when they must arrive. A
scenario mixes any number of profiles with a count each (`agents.mix`); every agent of a
profile shares its identity and its trip.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from simulacra.core.times import HHMM_PATTERN


class Sociodemographics(BaseModel):
    """Who the commuter is, in words a language model reads."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    age_band: str
    gender: str = "unspecified"
    occupation: str
    education: str = ""
    household: str = ""
    notes: str = ""


class Profile(BaseModel):
    """One commuter archetype."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str
    identity: Sociodemographics
    income: Literal["low", "middle", "high"]
    modal_priorities: tuple[str, ...] = Field(min_length=1)
    expected_modes: tuple[str, ...] = ()
    allowed_modes: tuple[str, ...] = Field(default=("bus", "taxi", "walk"), min_length=1)
    home: str
    destination: str
    distance_km: float = Field(gt=0)
    deadline: str = Field(pattern=HHMM_PATTERN)
    deadline_kind: Literal["strict", "flexible"] = "strict"

    @field_validator("allowed_modes")
    @classmethod
    def _distinct(cls, modes: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(modes)) != len(modes):
            raise ValueError(f"allowed_modes repeats a mode: {list(modes)}")
        return modes

    @model_validator(mode="after")
    def _distinct_places(self) -> Profile:
        if self.home == self.destination:
            raise ValueError(f"home and destination are both {self.home!r}; a commute needs two")
        return self


@dataclass(frozen=True)
class Commuter:
    """One agent of the population: an id and the profile it was drawn from."""

    id: str
    profile_name: str
    profile: Profile


def build_population(profiles: Mapping[str, Profile], mix: Mapping[str, int]) -> list[Commuter]:
    """Agents in the order of `mix`, ids `<profile>_<n>` numbered from 1 within each profile."""
    people: list[Commuter] = []
    for name, count in mix.items():
        profile = profiles[name]
        width = max(3, len(str(count)))
        people.extend(Commuter(f"{name}_{i:0{width}d}", name, profile) for i in range(1, count + 1))
    return people
