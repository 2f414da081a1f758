"""The objects of a town: each one's state (the map's resting state, or the one an action or an
event gave it), who uses it, and the sentences that tell a changed one to whoever sees it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simulacra.worlds.town.map import TownMap

Key = tuple[str, str]  # (place, object)


class Things:
    def __init__(self, town: TownMap) -> None:
        self.resting = {
            (p.name, t.name): t.state for p in town.places for a in p.areas for t in a.objects
        }
        self.area_of = {
            (p.name, t.name): a.name for p in town.places for a in p.areas for t in a.objects
        }
        self.states: dict[Key, str] = dict(self.resting)
        # Each place's objects by name, so a look reads only the place it is at.
        self._at: dict[str, list[str]] = {
            p.name: sorted(t.name for a in p.areas for t in a.objects) for p in town.places
        }
        self.users: dict[Key, str] = {}

    def fixed(self) -> tuple[object, ...]:
        """What the map fixes and never changes: a copy of the world may share it."""
        return (self.resting, self.area_of, self._at)

    def changed_in(self, place: str, area: str) -> list[tuple[str, str]]:
        """(object, sentence) of each object of the area not in its resting state."""
        changed = []
        for name in self._at[place]:
            key = (place, name)
            state = self.states[key]
            if self.area_of[key] == area and state != self.resting[key]:
                changed.append((name, f"the {name} in the {area} of {place} is {state}"))
        return changed

    def changed(self) -> dict[str, str]:
        """ "place: object" -> state of every object not at rest, for a frame."""
        return {
            f"{p}: {o}": s for (p, o), s in sorted(self.states.items()) if s != self.resting[(p, o)]
        }

    def use(self, place: str, thing: str, agent: str, state: str | None) -> None:
        self.users[(place, thing)] = agent
        if state:
            self.states[(place, thing)] = state

    def release(self, place: str, thing: str, agent: str) -> None:
        """The agent stops using the object, which returns to its resting state."""
        key = (place, thing)
        if self.users.get(key) == agent:
            del self.users[key]
            self.states[key] = self.resting[key]

    def snapshot(self) -> dict[str, Any]:
        return {
            "objects": [[p, o, s] for (p, o), s in sorted(self.states.items())],
            "users": [[p, o, a] for (p, o), a in sorted(self.users.items())],
        }

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        self.states = {(p, o): s for p, o, s in snapshot["objects"]}
        self.users = {(p, o): a for p, o, a in snapshot["users"]}
