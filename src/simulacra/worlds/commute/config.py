"""The commute section of a scenario: the city, the executor that runs its days, and what
agents are told each day (the strike is never announced: source 6.2)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from simulacra.worlds.commute.city import CityConfig

Executor = Literal["builtin", "sumo"]


class CommuteConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["commute"] = "commute"
    city: CityConfig = CityConfig()
    executor: Executor = Field(
        default="builtin", description="builtin (SimPy) or sumo (Eclipse SUMO, the sumo extra)"
    )
    environment: dict[int, str] = Field(
        default_factory=dict, description="what agents are told on a given working day (from 1)"
    )
    default_environment: str = "A normal working day; no announcements."

    def environment_on(self, day: int) -> str:
        return self.environment.get(day, self.default_environment)
