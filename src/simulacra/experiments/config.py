"""A scenario as its YAML file declares it, validated before anything loads.

Times may be written "17:00" (on the schedule's start date) or as a full date and time.
Durations may be written "14h", "90m", "1d 2h" or as a number of minutes.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from simulacra.embed import EmbedderConfig
from simulacra.mind.ablation import Ablation
from simulacra.mind.persona import Persona
from simulacra.worlds.town.map import TownMap

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(d|h|m|min)\b")


def _moment(value: Any) -> Any:
    """A time of day or a date and time; YAML reads an unquoted 17:00 as 1020 (base 60)."""
    if isinstance(value, datetime | time):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 24 * 60:
        return time(value // 60, value % 60)
    if isinstance(value, str):
        text = value.strip()
        for parse in (time.fromisoformat, datetime.fromisoformat):
            try:
                return parse(text)
            except ValueError:
                continue
    raise ValueError(
        f'expected a time like "17:00" or a date and time like 2024-02-14T17:00, got {value!r}'
    )


def _duration(value: Any) -> Any:
    if isinstance(value, timedelta):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return timedelta(minutes=value)
    if isinstance(value, str) and value.strip().upper().startswith("P"):
        return value.strip()  # ISO 8601 ("PT14H"), as a resolved config writes it
    if isinstance(value, str):
        text = value.strip().lower()
        parts = _DURATION_PART.findall(text)
        if parts and _DURATION_PART.sub("", text).strip() == "":
            unit = {"d": 1440, "h": 60, "m": 1, "min": 1}
            return timedelta(minutes=sum(float(n) * unit[u] for n, u in parts))
    raise ValueError(f'expected a duration like "14h", "90m" or "1d 2h", got {value!r}')


Moment = Annotated[datetime | time, BeforeValidator(_moment)]
Duration = Annotated[timedelta, BeforeValidator(_duration)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ModelConfig(_Strict):
    spec: str = "embedded"
    timeout_s: float = Field(default=60.0, gt=0)
    attempts: int = Field(default=3, ge=1)
    concurrency: int = Field(default=4, ge=1)


class WorldConfig(_Strict):
    kind: Literal["town"] = "town"
    map: TownMap


class AgentsConfig(_Strict):
    """The roster, and how many of it (the first `count`) take part."""

    personas: list[Persona] = Field(min_length=1)
    count: int | None = Field(default=None, ge=1)

    @property
    def roster(self) -> list[Persona]:
        return self.personas[: self.count]


class ScheduleConfig(_Strict):
    start: datetime
    duration: Duration
    tick_minutes: int = Field(default=10, ge=1, le=1440)
    checkpoint_every: int = Field(default=6, ge=1)
    wake: Moment | None = None
    sleep: Moment | None = None


class InterventionConfig(_Strict):
    """An inner thought, a world event (an object changes state) or a forced conversation."""

    at: Moment
    type: Literal["thought", "event", "conversation"]
    text: str = Field(min_length=1)
    agent: str | None = None
    agents: list[str] = Field(default_factory=list)
    place: str | None = None
    object: str | None = None
    state: str | None = None
    importance: int = Field(default=9, ge=1, le=10)

    @property
    def who(self) -> list[str]:
        return ([self.agent] if self.agent else []) + self.agents


class InterviewConfig(_Strict):
    """Questions put to every agent at fixed times; `aware_when` decides who knows.

    An answer counts as aware when, for every group of words in `aware_when`, it contains at
    least one of them (case-insensitive).
    """

    times: list[Moment] = Field(min_length=1)
    question: str = Field(min_length=1)
    aware_when: list[list[str]] = Field(default_factory=lambda: [["party"]], min_length=1)


class AttendanceConfig(_Strict):
    place: str
    start: Moment
    end: Moment


class MemoryConfig(_Strict):
    # "model" rates each memory 1-10 as the source does; "rule" or a fixed number save calls.
    importance: Literal["model", "rule"] | float = "model"


class OutputConfig(_Strict):
    root: str = "runs"


class Scenario(_Strict):
    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    description: str = ""
    seed: int = 0
    model: ModelConfig = Field(default_factory=ModelConfig)
    embedder: EmbedderConfig = Field(default_factory=EmbedderConfig)
    world: WorldConfig
    agents: AgentsConfig
    schedule: ScheduleConfig
    interventions: list[InterventionConfig] = Field(default_factory=list)
    interviews: InterviewConfig | None = None
    attendance: AttendanceConfig | None = None
    ablation: Ablation = Ablation.FULL
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    output: OutputConfig = Field(default_factory=OutputConfig)

    @property
    def end(self) -> datetime:
        return self.schedule.start + self.schedule.duration

    def when(self, moment: datetime | time) -> datetime:
        """A time of day means that time on the schedule's first day."""
        if isinstance(moment, datetime):
            return moment
        return datetime.combine(self.first_day, moment)

    @property
    def first_day(self) -> date:
        return self.schedule.start.date()
