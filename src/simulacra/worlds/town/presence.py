"""Who is where, grouped by place: a look and a position read one place's group instead of
scanning every agent, which made a tick of the town cost agents squared."""

from __future__ import annotations

from typing import Protocol, TypeVar


class Located(Protocol):
    @property
    def place(self) -> str: ...

    @property
    def trip(self) -> object | None: ...


W = TypeVar("W", bound=Located)


class Roster(dict[str, W]):
    """Agents' whereabouts by id (assign an item to change one). `present(place)` lists the
    agents at `place` and not on the way, in id order; it regroups only after a change."""

    def __init__(self, items: dict[str, W] | None = None) -> None:
        super().__init__(items or {})
        self._groups: dict[str, list[tuple[str, W]]] | None = None

    def __setitem__(self, key: str, value: W) -> None:
        super().__setitem__(key, value)
        self._groups = None

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self._groups = None

    def present(self, place: str) -> list[tuple[str, W]]:
        if self._groups is None:
            groups: dict[str, list[tuple[str, W]]] = {}
            for agent, where in sorted(self.items(), key=lambda item: item[0]):
                if where.trip is None:
                    groups.setdefault(where.place, []).append((agent, where))
            self._groups = groups
        return self._groups.get(place, [])
