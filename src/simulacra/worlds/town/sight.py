"""What an agent on a tile map perceives: who and what is within its vision radius in its own
area, the nearest few (its attention bandwidth), less what is already among the latest things
it perceived (its retention). The source's values are the defaults: 4 tiles, 3, 5."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from simulacra.worlds.town.tiles import Tile


class SightConfig(BaseModel):
    """`radius` in tiles (a square around the agent), `bandwidth` the nearest events kept,
    `retention` how many of the latest perceived events are not perceived again."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    radius: int = Field(default=4, ge=0)
    bandwidth: int = Field(default=3, ge=1)
    retention: int = Field(default=5, ge=0)


@dataclass(frozen=True)
class Sighting:
    """Something the agent could perceive: who it is about (an agent id, or None for an
    object) and the sentence that tells it."""

    tile: Tile
    about: str | None
    text: str


@dataclass
class Attention:
    """Each agent's latest perceived sentences, to leave out what it has just perceived."""

    sight: SightConfig
    recent: dict[str, list[str]] = field(default_factory=dict)

    def within(self, me: Tile, there: Tile) -> bool:
        return max(abs(me[0] - there[0]), abs(me[1] - there[1])) <= self.sight.radius

    def nearest(self, me: Tile, seen: Sequence[Sighting]) -> list[Sighting]:
        """The bandwidth nearest of what is within the radius, by distance then text."""
        near = [s for s in seen if self.within(me, s.tile)]
        near.sort(key=lambda s: ((s.tile[0] - me[0]) ** 2 + (s.tile[1] - me[1]) ** 2, s.text))
        return near[: self.sight.bandwidth]

    def fresh(self, agent: str, texts: Sequence[str]) -> list[str]:
        """The texts not among the agent's latest `retention`; those become its latest."""
        latest = self.recent.get(agent, [])
        new = [t for t in texts if t not in latest]
        if self.sight.retention:
            self.recent[agent] = (latest + new)[-self.sight.retention :]
        return new
