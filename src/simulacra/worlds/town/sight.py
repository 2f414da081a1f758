"""What an agent on a tile map perceives: who and what is within its vision radius in its own
area, the nearest few (its attention bandwidth), less what is already among the latest things
it perceived (its retention). The source's values are the defaults: 4 tiles, 3, 5.

The source perceives at every 10-second step; a decision tick here holds many movement steps.
So sight is over the walk since the last look: who came within the radius at the same movement
step, nearest at their closest, as the source's agent would have seen them on its way."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

from simulacra.worlds.town.tiles import Tile

T = TypeVar("T")
Track = Sequence[Tile]  # where one stood after each movement step since the last look


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
        self, me: Track, seen: Iterable[tuple[Track, str | None, T]], told: Callable[[T], str]
    ) -> list[Sighting]:
        """The bandwidth nearest of what came within the radius (its track, who it is about,
        what `told` puts into words), by distance at the closest then text. Only what lies no
        further than the bandwidth-th nearest is put into words: in a crowd the sentences cost
        the most."""
        r = self.sight.radius
        near: list[tuple[int, Tile, str | None, T]] = []
        for track, about, what in seen:
            if (found := closest(me, track, r)) is not None:
                near.append((*found, about, what))
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


def closest(me: Track, there: Track, radius: int) -> tuple[int, Tile] | None:
    """The least squared distance between two tracks at the same movement step, within the
    radius (a square), and where the other stood then; None when never within. A track that
    has ended stays on its last tile."""
    if len(me) == 1 and len(there) == 1:  # nobody walked: the common case, kept cheap
        (x, y), (tx, ty) = me[0], there[0]
        if -radius <= tx - x <= radius and -radius <= ty - y <= radius:
            return ((tx - x) ** 2 + (ty - y) ** 2, (tx, ty))
        return None
    best: tuple[int, Tile] | None = None
    last_me, last_there = len(me) - 1, len(there) - 1
    for k in range(max(len(me), len(there))):
        (x, y), (tx, ty) = me[min(k, last_me)], there[min(k, last_there)]
        if -radius <= tx - x <= radius and -radius <= ty - y <= radius:
            d = (tx - x) ** 2 + (ty - y) ** 2
            if best is None or d < best[0]:
                best = (d, (tx, ty))
    return best
