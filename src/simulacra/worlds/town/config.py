"""The town section of a scenario: its map and, for the party study, when to count who came."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from simulacra.core import Moment
from simulacra.worlds.town.map import TownMap


class AttendanceConfig(BaseModel):
    """Who is at `place` at any tick from `start` to `end` counts as having come."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    place: str
    start: Moment
    end: Moment


class TownConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["town"] = "town"
    map: TownMap
    attendance: AttendanceConfig | None = None
