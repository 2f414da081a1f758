"""Travel times between places: shortest paths over the map's roads."""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from simulacra.worlds.town.map import TownMap


@dataclass(frozen=True)
class Route:
    """The places passed through, first to last, and the minutes it takes to walk them."""

    stops: tuple[str, ...]
    minutes: int


class RoadGraph:
    def __init__(self, town: TownMap) -> None:
        self._links: dict[str, dict[str, int]] = {p.name: {} for p in town.places}
        for road in town.roads:
            a, b = road.between
            # Two roads between the same places: the quicker one is the one people take.
            best = min(road.minutes, self._links[a].get(b, road.minutes))
            self._links[a][b] = best
            self._links[b][a] = best
        self._routes: dict[tuple[str, str], Route] = {}

    def route(self, origin: str, destination: str) -> Route:
        """The quickest route; ties go to the alphabetically first path, so routes are stable."""
        key = (origin, destination)
        if key not in self._routes:
            self._routes[key] = self._dijkstra(origin, destination)
        return self._routes[key]

    def minutes(self, origin: str, destination: str) -> int:
        return self.route(origin, destination).minutes

    def _dijkstra(self, origin: str, destination: str) -> Route:
        if origin not in self._links or destination not in self._links:
            raise KeyError(f"no place named {origin!r} or {destination!r} on this map")
        queue: list[tuple[int, tuple[str, ...]]] = [(0, (origin,))]
        done: set[str] = set()
        while queue:
            minutes, stops = heapq.heappop(queue)
            here = stops[-1]
            if here == destination:
                return Route(stops, minutes)
            if here in done:
                continue
            done.add(here)
            for nxt, cost in self._links[here].items():
                if nxt not in done:
                    heapq.heappush(queue, (minutes + cost, (*stops, nxt)))
        raise KeyError(f"no road leads from {origin!r} to {destination!r}")
