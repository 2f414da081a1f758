"""Where a town's agent is: its place, area, action and object, and the trip it is on, with
their form in a checkpoint."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Trip:
    """An agent on the way: where from, where to, and what it will do on arrival; on a tile
    map, `path` holds the tiles it walks, one a movement step."""

    stops: tuple[str, ...]
    departed: datetime
    arrives: datetime
    area: str
    description: str
    object: str | None
    state: str | None
    path: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Whereabouts:
    name: str
    place: str
    area: str
    action: str = ""
    object: str | None = None
    trip: Trip | None = None
    tile: tuple[int, int] | None = None  # where it stands on a tile map

    @property
    def bound(self) -> str | None:
        """Where it is on the way to; None while it is at its place."""
        return None if self.trip is None else self.trip.stops[-1]


def whereabouts_json(w: Whereabouts) -> dict[str, Any]:
    trip = None
    if w.trip is not None:
        t = w.trip
        trip = {
            "stops": list(t.stops),
            "departed": t.departed.isoformat(),
            "arrives": t.arrives.isoformat(),
            "area": t.area,
            "description": t.description,
            "object": t.object,
            "state": t.state,
            "path": [list(step) for step in t.path],
        }
    return {
        "name": w.name,
        "place": w.place,
        "area": w.area,
        "action": w.action,
        "object": w.object,
        "trip": trip,
        "tile": None if w.tile is None else list(w.tile),
    }


def whereabouts_from(raw: dict[str, Any]) -> Whereabouts:
    trip = raw.get("trip")
    return Whereabouts(
        raw["name"],
        raw["place"],
        raw["area"],
        raw["action"],
        raw["object"],
        None
        if trip is None
        else Trip(
            tuple(trip["stops"]),
            datetime.fromisoformat(trip["departed"]),
            datetime.fromisoformat(trip["arrives"]),
            trip["area"],
            trip["description"],
            trip["object"],
            trip["state"],
            tuple((x, y) for x, y in trip.get("path", ())),
        ),
        None if raw.get("tile") is None else (raw["tile"][0], raw["tile"][1]),
    )
