"""The commute section of a scenario: the city, the executor that runs its days, and what
agents are told on the days something is said (the strike is never announced, and a day with
nothing said is not called normal either: source 6.2, agents perceived the disruption only
through their waits and outcomes)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from simulacra.worlds.commute.city import CityConfig

Executor = Literal["builtin", "sumo"]


class CommuteFigures(BaseModel):
    """What a run's report draws beyond Table 5: Figure 5 (each agent of `choices_profile`
    on `choices_day`: origin, destination and chosen mode) and the Appendix B weekly trace of
    `trace_agent`, or else of the first agent of `trace_profile` (default: the first
    profile)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    choices_profile: str | None = Field(default=None, description="default: the first profile")
    choices_day: int = Field(default=14, ge=1, description="or the last day of a shorter run")
    trace_profile: str | None = Field(default=None, description="default: the first profile")
    trace_agent: str | None = Field(default=None, description="an agent id; wins over the profile")


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
    default_environment: str = Field(
        default="",
        description="what agents are told on a day `environment` names not; empty: nothing",
    )
    figures: CommuteFigures = CommuteFigures()

    def environment_on(self, day: int) -> str:
        return self.environment.get(day, self.default_environment)
