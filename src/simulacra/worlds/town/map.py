"""The town map a scenario writes: places with areas and objects, and roads between them; or a
tile map drawn in Tiled (tiled.py), whose agents walk tile by tile instead of along roads."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from simulacra.errors import unknown
from simulacra.worlds.town.tiled import is_tiled, town_fields
from simulacra.worlds.town.tiles import Tile, TileGrid


class ThingSpec(BaseModel):
    """An object in an area. `state` is its resting state, which it returns to when left alone."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    state: str = "idle"
    at: Tile | None = None  # its tile, on a tile map


class AreaSpec(BaseModel):
    """A room or area; on a tile map, `rect` (x, y, w, h in tiles) is the floor it covers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    objects: list[ThingSpec] = Field(default_factory=list)
    rect: tuple[int, int, int, int] | None = None

    def tiles(self) -> list[Tile]:
        if self.rect is None:
            return []
        x, y, w, h = self.rect
        return [(x + i, y + j) for j in range(h) for i in range(w)]

    def tile_of(self, thing: str | None) -> Tile | None:
        """The tile of the object named `thing`, if the area has it and it has one."""
        return next((t.at for t in self.objects if t.name == thing), None) if thing else None

    def holds(self, tile: Tile) -> bool:
        """Whether `tile` is one of `tiles()`, without listing them."""
        if self.rect is None:
            return False
        x, y, w, h = self.rect
        return x <= tile[0] < x + w and y <= tile[1] < y + h


class PlaceSpec(BaseModel):
    """A building or open space; `x, y, w, h` is its rectangle on the drawn map."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    kind: str = Field(min_length=1)
    x: float
    y: float
    w: float = Field(gt=0)
    h: float = Field(gt=0)
    areas: list[AreaSpec] = Field(min_length=1)

    def area(self, name: str) -> AreaSpec | None:
        return next((a for a in self.areas if a.name == name), None)


class RoadSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    between: tuple[str, str]
    minutes: int = Field(ge=1)


class TownMap(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "town"
    width: float = Field(default=100, gt=0)
    height: float = Field(default=100, gt=0)
    places: list[PlaceSpec] = Field(min_length=1)
    roads: list[RoadSpec] = Field(default_factory=list)
    tiles: TileGrid | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_tiled(cls, raw: Any) -> Any:
        """A Tiled map (a .tmj file's JSON) becomes the town's fields."""
        return town_fields(raw) if is_tiled(raw) else raw

    @functools.cached_property  # a plain attribute once computed: a private one costs ~4 us
    def places_by_name(self) -> dict[str, PlaceSpec]:
        """A big town asks for places by name thousands of times a tick."""
        return {p.name: p for p in reversed(self.places)}  # the first of a duplicate

    @property
    def place_names(self) -> list[str]:
        return [p.name for p in self.places]

    def place(self, name: str) -> PlaceSpec | None:
        return self.places_by_name.get(name)

    def problems(self) -> list[tuple[str, str]]:
        """Faults as (field path, message): duplicates, unknown or cut-off places."""
        found: list[tuple[str, str]] = []
        seen: set[str] = set()
        for i, place in enumerate(self.places):
            if place.name in seen:
                found.append((f"places[{i}].name", f'duplicate place "{place.name}"'))
            seen.add(place.name)
            areas: set[str] = set()
            for j, area in enumerate(place.areas):
                if area.name in areas:
                    found.append((f"places[{i}].areas[{j}].name", f'duplicate area "{area.name}"'))
                areas.add(area.name)
            things = [t.name for a in place.areas for t in a.objects]
            for name in sorted({t for t in things if things.count(t) > 1}):
                found.append((f"places[{i}]", f'object "{name}" appears in more than one area'))
        for i, road in enumerate(self.roads):
            for end in road.between:
                if end not in seen:
                    found.append((f"roads[{i}].between", unknown("place", end, self.place_names)))
        if not found:
            found.extend(self._unwalkable() if self.tiles else self._unreachable())
        return found

    def _unwalkable(self) -> list[tuple[str, str]]:
        """On a tile map: each area has a free tile, each object stands on one in its area,
        and every area can be walked to from the first."""
        assert self.tiles is not None
        grid = self.tiles
        found: list[tuple[str, str]] = []
        starts: dict[str, Tile] = {}
        for i, place in enumerate(self.places):
            for j, area in enumerate(place.areas):
                where = f"places[{i}].areas[{j}]"
                free = [t for t in area.tiles() if grid.walkable(t)]
                if not free:
                    found.append((where, f'area "{area.name}" of {place.name} has no free tile'))
                    continue
                starts[f"{place.name}: {area.name}"] = free[0]
                for k, thing in enumerate(area.objects):
                    if thing.at is None or thing.at not in free:
                        found.append(
                            (f"{where}.objects[{k}]", f'object "{thing.name}" is on no free tile')
                        )
        if found or not starts:
            return found
        reached = grid.reachable(next(iter(starts.values())))
        cut_off = [name for name, tile in starts.items() if tile not in reached]
        if cut_off:
            first = next(iter(starts))
            found.append(("tiles.walls", f"no walk from {first} reaches {', '.join(cut_off)}"))
        return found

    def _unreachable(self) -> list[tuple[str, str]]:
        links: dict[str, set[str]] = {p.name: set() for p in self.places}
        for road in self.roads:
            a, b = road.between
            links[a].add(b)
            links[b].add(a)
        first = self.places[0].name
        reached, frontier = {first}, [first]
        while frontier:
            for nxt in links[frontier.pop()] - reached:
                reached.add(nxt)
                frontier.append(nxt)
        cut_off = [p for p in self.place_names if p not in reached]
        if not cut_off:
            return []
        return [("roads", f"no road reaches {', '.join(cut_off)} from {first}; add a road")]


def read_map(path: str | Path) -> dict[str, Any]:
    """The raw map mapping from a YAML file (validated by the scenario loader, not here)."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a town map must be a YAML mapping with places and roads")
    return data
