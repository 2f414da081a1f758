"""The town section of a scenario: its map and, for the party study, when to count who came."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from simulacra.core import Moment
from simulacra.worlds.town.map import TownMap
from simulacra.worlds.town.sight import SightConfig


class AttendanceConfig(BaseModel):
    """Who is at `place` at any tick from `start` to `end` counts as having come."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    place: str
    start: Moment
    end: Moment


class TownConfig(BaseModel):
    """`map`: a sketch of places and roads (YAML) or a Tiled tile map (.tmj). On a tile map
    agents walk a tile every `seconds_per_tile` and perceive by `sight`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["town"] = "town"
    map: TownMap
    attendance: AttendanceConfig | None = None
    sight: SightConfig = SightConfig()
    seconds_per_tile: float = Field(default=10, gt=0)
