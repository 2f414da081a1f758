"""The El Farol section of a scenario: how crowded the bar may get, and how many weeks of
attendance an agent is shown."""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class ElFarolConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["elfarol"] = "elfarol"
    threshold: float = Field(
        default=0.6, gt=0.0, le=1.0, description="share of agents the bar holds uncrowded"
    )
    memory_weeks: int = Field(default=5, ge=1, description="weeks of attendance an agent is shown")
    history: tuple[Annotated[float, Field(ge=0.0, le=1.0)], ...] = Field(
        default=(), description="attendance of the weeks before the run, oldest first, as shares"
    )

    def past_attendance(self, agents: int) -> list[int]:
        """`history` as head counts of `agents`."""
        return [math.floor(share * agents + 0.5) for share in self.history]

    def seats(self, agents: int) -> int:
        """Attendance up to which the bar is enjoyable: `threshold` of `agents`, rounded down."""
        return math.floor(self.threshold * agents + 1e-9)  # 0.29 * 100 is 28.999...
