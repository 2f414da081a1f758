"""Where things are drawn: area rectangles inside places and agents' points inside areas."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from simulacra.worlds.town.map import PlaceSpec, TownMap


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)

    def spot(self, index: int, count: int) -> tuple[float, float]:
        """The `index`-th of `count` points spread over a grid inside the rectangle."""
        columns = max(1, int(count**0.5 + 0.999))
        rows = max(1, -(-count // columns))
        column, row = index % columns, index // columns
        return (
            round(self.x + self.w * (column + 0.5) / columns, 2),
            round(self.y + self.h * (row + 0.5) / rows, 2),
        )


def area_rects(place: PlaceSpec) -> dict[str, Rect]:
    """Areas split the place along its longer side, in the order the map lists them."""
    n = len(place.areas)
    rects: dict[str, Rect] = {}
    for i, area in enumerate(place.areas):
        if place.w >= place.h:
            rects[area.name] = Rect(place.x + place.w * i / n, place.y, place.w / n, place.h)
        else:
            rects[area.name] = Rect(place.x, place.y + place.h * i / n, place.w, place.h / n)
    return rects


def along(points: list[tuple[float, float]], fraction: float) -> tuple[float, float]:
    """The point `fraction` of the way along a polyline (by length)."""
    if len(points) == 1:
        return points[0]
    legs = [((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5 for (x0, y0), (x1, y1) in pairwise(points)]
    remaining = max(0.0, min(1.0, fraction)) * sum(legs)
    for (x0, y0), (x1, y1), length in zip(points, points[1:], legs, strict=False):
        if remaining <= length and length > 0:
            share = remaining / length
            return (round(x0 + (x1 - x0) * share, 2), round(y0 + (y1 - y0) * share, 2))
        remaining -= length
    return points[-1]


def static_layout(town: TownMap) -> dict[str, Any]:
    """The map as the viewer draws it: places, their areas and objects, and the roads."""
    places = []
    for place in town.places:
        rects = area_rects(place)
        areas = [
            {
                "name": area.name,
                "x": round(rects[area.name].x, 2),
                "y": round(rects[area.name].y, 2),
                "w": round(rects[area.name].w, 2),
                "h": round(rects[area.name].h, 2),
                "objects": [{"name": t.name, "state": t.state} for t in area.objects],
            }
            for area in place.areas
        ]
        places.append(
            {
                "name": place.name,
                "kind": place.kind,
                "x": place.x,
                "y": place.y,
                "w": place.w,
                "h": place.h,
                "areas": areas,
            }
        )
    roads = [{"between": list(r.between), "minutes": r.minutes} for r in town.roads]
    drawn = {
        "kind": "town",
        "name": town.name,
        "width": town.width,
        "height": town.height,
        "places": places,
        "roads": roads,
    }
    if town.tiles is not None:
        drawn["backdrop"] = backdrop(town)
    return drawn


def backdrop(town: TownMap) -> dict[str, Any]:
    """A tile map as the town's viewer draws it: the floor's rows and colours, and where each
    area and object is (tiles)."""
    assert town.tiles is not None
    return {
        "floor": town.tiles.floor,
        "palette": town.tiles.palette,
        "areas": [
            {"place": p.name, "name": a.name, "rect": list(a.rect)}
            for p in town.places
            for a in p.areas
            if a.rect is not None
        ],
        "objects": [
            {"place": p.name, "name": t.name, "at": list(t.at)}
            for p in town.places
            for a in p.areas
            for t in a.objects
            if t.at is not None
        ],
    }
