"""Who is where, grouped by place: a look and a position read one place's group instead of
scanning every agent, which made a tick of the town cost agents squared."""

from __future__ import annotations

from typing import Protocol, TypeVar


class Located(Protocol):
    @property
    def place(self) -> str: ...

    @property
    def trip(self) -> object | None: ...

    @property
    def bound(self) -> str | None: ...


W = TypeVar("W", bound=Located)


class Roster(dict[str, W]):
    """Agents' whereabouts by id (assign an item to change one). `present(place)` lists the
    agents at `place` and not on the way, in id order; `heading(place)` those on the way
    there. A change moves one agent between groups and re-sorts only its places on their
    next read: regrouping everyone after each change made a tick in which ten thousand
    agents set off cost agents squared again."""

    def __init__(self, items: dict[str, W] | None = None) -> None:
        super().__init__(items or {})
        self._groups: dict[tuple[bool, str], dict[str, W]] | None = None
        self._listed: dict[str, list[tuple[str, W]]] = {}

    def __setitem__(self, key: str, value: W) -> None:
        self._leave(key)
        super().__setitem__(key, value)
        self._join(key, value)

    def __delitem__(self, key: str) -> None:
        self._leave(key)
        super().__delitem__(key)

    def present(self, place: str) -> list[tuple[str, W]]:
        listed = self._listed.get(place)
        if listed is None:
            group = self._group(False, place)
            listed = sorted(group.items(), key=lambda item: item[0])
            self._listed[place] = listed
        return listed

    def heading(self, place: str) -> list[W]:
        return list(self._group(True, place).values())

    def _group(self, on_the_way: bool, place: str) -> dict[str, W]:
        if self._groups is None:
            self._groups = {}
            for agent, where in self.items():
                self._join(agent, where)
        return self._groups.get((on_the_way, place), {})

    @staticmethod
    def _key(where: W) -> tuple[bool, str]:
        bound = where.bound
        return (False, where.place) if bound is None else (True, bound)

    def _leave(self, key: str) -> None:
        old = self.get(key)
        if self._groups is not None and old is not None:
            group = self._key(old)
            del self._groups[group][key]
            if not group[0]:
                self._listed.pop(group[1], None)

    def _join(self, key: str, where: W) -> None:
        if self._groups is not None:
            group = self._key(where)
            self._groups.setdefault(group, {})[key] = where
            if not group[0]:
                self._listed.pop(group[1], None)
