"""What an agent on a tile map perceives: who and what is within its vision radius in its own
area, the nearest few (its attention bandwidth), less what is already among the latest things
it perceived (its retention). The source's values are the defaults: 4 tiles, 3, 5."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

from simulacra.worlds.town.tiles import Tile

T = TypeVar("T")


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

    def nearest(
        self, me: Tile, seen: Iterable[tuple[Tile, str | None, T]], told: Callable[[T], str]
    ) -> list[Sighting]:
        """The bandwidth nearest of what is within the radius (tile, who it is about, what
        `told` puts into words), by distance then text. Only what lies no further than the
        bandwidth-th nearest is put into words: in a crowd the sentences cost the most."""
        x, y, r = me[0], me[1], self.sight.radius
        near = [
            ((tx - x) ** 2 + (ty - y) ** 2, (tx, ty), about, what)
            for (tx, ty), about, what in seen
            if -r <= tx - x <= r and -r <= ty - y <= r
        ]
        if len(near) > self.sight.bandwidth:
            cut = heapq.nsmallest(self.sight.bandwidth, (d for d, *_ in near))[-1]
            near = [n for n in near if n[0] <= cut]
        worded = [(d, told(what), tile, about) for d, tile, about, what in near]
        worded.sort(key=lambda n: (n[0], n[1]))
        kept = worded[: self.sight.bandwidth]
        return [Sighting(tile, about, text) for _, text, tile, about in kept]

    def fresh(self, agent: str, texts: Sequence[str]) -> list[str]:
        """The texts not among the agent's latest `retention`; those become its latest."""
        latest = self.recent.get(agent, [])
        new = [t for t in texts if t not in latest]
        if self.sight.retention:
            self.recent[agent] = (latest + new)[-self.sight.retention :]
        return new
