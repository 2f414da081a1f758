"""Each agent's spatial memory, as the world keeps it: the places, areas and objects it knows
(world > sector > arena > object). It starts with the places the agent is given (its home,
the places its persona names) and grows with what it sees; `learned` lists what was added
since the last frame, for the replay to show."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from simulacra.worlds.town.map import PlaceSpec

Tree = dict[str, dict[str, list[str]]]  # place -> area -> objects


class Known:
    def __init__(self) -> None:
        self.trees: dict[str, Tree] = {}
        self.learned: list[dict[str, Any]] = []

    def start(self, agent: str, places: Iterable[PlaceSpec]) -> None:
        for place in places:
            for area in place.areas:
                self.learn(agent, place.name, area.name, [t.name for t in area.objects])

    def learn(self, agent: str, place: str, area: str, objects: Iterable[str]) -> None:
        """Add what the agent sees; an area or objects new to it are listed in `learned`."""
        areas = self.trees.setdefault(agent, {}).setdefault(place, {})
        fresh = area not in areas
        known = areas.setdefault(area, [])
        new = [o for o in dict.fromkeys(objects) if o not in known]
        if fresh or new:
            known.extend(new)
            self.learned.append({"agent": agent, "place": place, "area": area, "objects": new})

    def tree(self, agent: str) -> Tree:
        return _copy(self.trees.get(agent, {}))

    def snapshot(self) -> dict[str, Any]:
        return {"trees": {a: _copy(t) for a, t in self.trees.items()}, "learned": self.learned}

    def restore(self, raw: Mapping[str, Any]) -> None:
        self.trees = {a: _copy(t) for a, t in raw.get("trees", {}).items()}
        self.learned = [dict(e) for e in raw.get("learned", [])]


def _copy(tree: Mapping[str, Mapping[str, list[str]]]) -> Tree:
    return {p: {a: list(o) for a, o in areas.items()} for p, areas in tree.items()}
