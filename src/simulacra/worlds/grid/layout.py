"""The grid's static geometry: the field, its places, the fires as the scenario (or an
intervention, fires.py) places them, and the rule of who can talk to whom."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from simulacra.worlds.grid.fires import Cell, Fire


@dataclass(frozen=True)
class Place:
    """A rectangle of cells: `center` plus or minus `extent` (half-widths), edges included."""

    name: str
    type: str
    center: Cell
    extent: Cell
    capacity: int

    @property
    def x_range(self) -> tuple[int, int]:
        return self.center[0] - self.extent[0], self.center[0] + self.extent[0]

    @property
    def y_range(self) -> tuple[int, int]:
        return self.center[1] - self.extent[1], self.center[1] + self.extent[1]

    def contains(self, cell: Cell) -> bool:
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        return x0 <= cell[0] <= x1 and y0 <= cell[1] <= y1

    def facts(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "center": list(self.center),
            "x_range": list(self.x_range),
            "y_range": list(self.y_range),
            "capacity": self.capacity,
        }


@dataclass(frozen=True)
class FireSighting:
    fire: Fire
    distance: float


def euclidean(a: Cell, b: Cell) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def chebyshev(a: Cell, b: Cell) -> float:
    return float(max(abs(a[0] - b[0]), abs(a[1] - b[1])))


@dataclass(frozen=True)
class Layout:
    """The static world: field, places, fires and the communication rule."""

    half_size: int
    places: tuple[Place, ...] = ()
    fires: tuple[Fire, ...] = ()
    communication_distance: float = 5.0
    communication_metric: str = "euclidean"

    def place_at(self, cell: Cell) -> Place | None:
        return self._cells.get(cell)

    @cached_property
    def _cells(self) -> dict[Cell, Place]:
        """Each cell inside a place, and the place (the first listed, where two overlap)."""
        found: dict[Cell, Place] = {}
        for place in reversed(self.places):
            (x0, x1), (y0, y1) = place.x_range, place.y_range
            for x in range(x0, x1 + 1):
                for y in range(y0, y1 + 1):
                    found[(x, y)] = place
        return found

    def clamp(self, cell: Cell) -> Cell:
        h = self.half_size
        return min(max(cell[0], -h), h), min(max(cell[1], -h), h)

    def inside_field(self, cell: Cell) -> bool:
        return self.clamp(cell) == cell

    def can_communicate(self, a: Cell, b: Cell) -> bool:
        """Close enough, and on the same side of every place boundary: both outside all places
        or both in the same place."""
        measure = chebyshev if self.communication_metric == "chebyshev" else euclidean
        if measure(a, b) > self.communication_distance:
            return False
        return self.place_at(a) == self.place_at(b)

    def neighbours(self, positions: Mapping[str, Cell]) -> dict[str, tuple[str, ...]]:
        """Each agent's communicable agents, in the order of `positions`."""
        ids = list(positions)
        return {
            a: tuple(b for b in ids if b != a and self.can_communicate(positions[a], positions[b]))
            for a in ids
        }

    def perceived_fires(self, cell: Cell, step: int) -> tuple[FireSighting, ...]:
        """Active fires whose radius reaches `cell` (distance <= radius, Euclidean)."""
        sightings = (FireSighting(f, euclidean(cell, f.position)) for f in self.fires)
        return tuple(s for s in sightings if s.fire.active(step) and s.distance <= s.fire.radius)

    def with_fire(self, fire: Fire) -> Layout:
        """This layout with `fire` in place of its namesake, or after the others when new."""
        if any(f.name == fire.name for f in self.fires):
            return replace(
                self, fires=tuple(fire if f.name == fire.name else f for f in self.fires)
            )
        return replace(self, fires=(*self.fires, fire))

    def to_dict(self) -> dict[str, Any]:
        """The static layout as the `run` event carries it; `x, y, w, h` are the lower-left cell
        and the size in cells, for viewers that draw rectangles."""
        return {
            "kind": "grid",
            "y_axis": "up",  # "up" (y+1) is north: viewers drawing y downwards mirror it
            "half_size": self.half_size,
            "communication": {
                "distance": self.communication_distance,
                "metric": self.communication_metric,
            },
            "places": [
                {
                    "name": p.name,
                    "kind": p.type,
                    "x": p.x_range[0],
                    "y": p.y_range[0],
                    "w": 2 * p.extent[0] + 1,
                    "h": 2 * p.extent[1] + 1,
                    "center": list(p.center),
                    "extent": list(p.extent),
                    "capacity": p.capacity,
                    "areas": [],
                }
                for p in self.places
            ],
            "fires": [
                {
                    "name": f.name,
                    "start_step": f.start_step,
                    "position": list(f.position),
                    "intensity": f.intensity,
                    "radius": f.radius,
                }
                for f in self.fires
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Layout:
        comm = data.get("communication", {})
        return cls(
            half_size=int(data["half_size"]),
            places=tuple(
                Place(
                    p["name"], p["kind"], cell_of(p["center"]), cell_of(p["extent"]), p["capacity"]
                )
                for p in data.get("places", ())
            ),
            fires=tuple(
                Fire(
                    f["name"], f["start_step"], cell_of(f["position"]), f["intensity"], f["radius"]
                )
                for f in data.get("fires", ())
            ),
            communication_distance=float(comm.get("distance", 5.0)),
            communication_metric=str(comm.get("metric", "euclidean")),
        )


def cell_of(value: Any) -> Cell:
    return int(value[0]), int(value[1])
