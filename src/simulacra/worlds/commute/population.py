"""Commuter profiles (YAML) and the population a scenario builds from them.

A profile is a stylised archetype (the source's Table 4): who the commuter is, what they care
about, which modes they may use, where they live and work, and when they must arrive. A
scenario mixes any number of profiles with a count each; every agent of a profile shares its
identity and its trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from simulacra.worlds.commute.times import HHMM_PATTERN

Mode = Literal["bus", "taxi", "walk"]
MODES: tuple[Mode, ...] = ("bus", "taxi", "walk")


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
    expected_modes: tuple[Mode, ...] = ()
    allowed_modes: tuple[Mode, ...] = Field(default=MODES, min_length=1)
    home: str
    destination: str
    distance_km: float = Field(gt=0)
    deadline: str = Field(pattern=HHMM_PATTERN)
    deadline_kind: Literal["strict", "flexible"] = "strict"

    @field_validator("allowed_modes")
    @classmethod
    def _distinct(cls, modes: tuple[Mode, ...]) -> tuple[Mode, ...]:
        if len(set(modes)) != len(modes):
            raise ValueError(f"allowed_modes repeats a mode: {list(modes)}")
        return modes

    @model_validator(mode="after")
    def _distinct_places(self) -> Profile:
        if self.home == self.destination:
            raise ValueError(f"home and destination are both {self.home!r}; a commute needs two")
        return self


class ProfileBook(BaseModel):
    """The profiles file: `profiles: {name: Profile}`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    profiles: dict[str, Profile] = Field(min_length=1)

    def get(self, name: str) -> Profile:
        if name not in self.profiles:
            known = ", ".join(sorted(self.profiles))
            raise KeyError(f"unknown profile {name!r}; known profiles: {known}")
        return self.profiles[name]


class ProfileCount(BaseModel):
    """One line of a scenario's population: which profile, how many agents."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    profile: str
    count: int = Field(ge=0)


@dataclass(frozen=True)
class Commuter:
    """One agent of the population: an id and the profile it was drawn from."""

    id: str
    profile_name: str
    profile: Profile


def load_profiles(path: str | Path) -> ProfileBook:
    """Read and validate a profiles YAML file."""
    with Path(path).open(encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    return ProfileBook.model_validate(data)


def build_population(book: ProfileBook, mix: Sequence[ProfileCount]) -> list[Commuter]:
    """Agents in the order of `mix`, ids `<profile>_<n>` numbered from 1 within each profile."""
    people: list[Commuter] = []
    for line in mix:
        profile = book.get(line.profile)
        width = max(3, len(str(line.count)))
        people.extend(
            Commuter(f"{line.profile}_{i:0{width}d}", line.profile, profile)
            for i in range(1, line.count + 1)
        )
    ids = [p.id for p in people]
    if len(set(ids)) != len(ids):
        raise ValueError("the population names a profile twice; give each profile one line")
    return people
