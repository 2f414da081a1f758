"""What one agent knows of the town, as its plans may use it: place > area > objects (the
source's sector > arena > object). The world reports what the agent has seen (its `known`
fact, worlds/town/known.py); a place the agent was told of (a line it heard, a thought it
was given) it knows by name, with no area or object yet, as the mind reads the telling: the
world does not hear what is said. Plans choose among these places only (their output models
list them as enums), so a model cannot send the agent to a place it does not know.

Until the world reports a tree (a world that keeps no spatial memory), the agent knows every
place of the map and no objects but those it sees where it is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from simulacra.core import mentions

Tree = dict[str, dict[str, list[str]]]  # place -> area -> objects


class KnownPlaces:
    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)  # the map's places: those a telling can name
        self.tree: Tree | None = None

    def seen(self, tree: Mapping[str, Mapping[str, Sequence[str]]]) -> None:
        """Take in the world's account of what the agent has seen; places told of stay."""
        known = self.tree if self.tree is not None else {}
        for place, areas in tree.items():
            have = known.setdefault(place, {})
            for area, things in areas.items():
                held = have.setdefault(area, [])
                held.extend(t for t in things if t not in held)
        self.tree = known

    def told(self, text: str) -> list[str]:
        """The places of the map `text` names that the agent did not know: it knows them now."""
        if self.tree is None:
            return []
        new = [p for p in named(text, self.names) if p not in self.tree]
        for place in new:
            self.tree[place] = {}
        return new

    def places(self) -> tuple[str, ...]:
        """The places it knows, in the map's order."""
        if self.tree is None:
            return self.names
        return tuple(p for p in self.names if p in self.tree)

    def objects(self, place: str) -> list[str] | None:
        """The objects it knows at `place` (None: the world keeps no spatial memory)."""
        if self.tree is None:
            return None
        return [t for things in self.tree.get(place, {}).values() for t in things]

    def to_dict(self) -> dict[str, Any] | None:
        return None if self.tree is None else {p: dict(a) for p, a in self.tree.items()}

    def restore(self, raw: Mapping[str, Any] | None) -> None:
        self.tree = None
        if raw is not None:
            self.seen(raw)


def named(text: str, places: Sequence[str]) -> list[str]:
    """The places of `places` that `text` names, each as a whole name in any case: "Workplace
    12" names Workplace 12, not Workplace 1."""
    return [p for p in places if mentions(text, (p,))]
