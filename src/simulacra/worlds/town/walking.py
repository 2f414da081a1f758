"""Where an agent stands on a tile map and how it walks there: the tile an activity takes (its
object's, or the free one nearest it when someone holds that; else a free one near the middle
of its area; never one someone holds while one is free), the steps of a walk in a tick, and a
walk within its place to the activity's tile."""

from __future__ import annotations

import math
from collections.abc import Set
from dataclasses import replace
from datetime import datetime, timedelta

from simulacra.worlds.town.map import AreaSpec, TownMap
from simulacra.worlds.town.presence import Roster
from simulacra.worlds.town.tiles import Tile, TileGrid
from simulacra.worlds.town.whereabouts import Trip, Whereabouts


def spot(grid: TileGrid, area: AreaSpec, thing: str | None, taken: Set[Tile]) -> Tile:
    """The object's tile, unless somebody holds it: then the free tile of its area nearest the
    object that nobody holds (beside it first), so that two using one object in turn do not
    stand on one tile. Without an object, the free tile nearest the area's middle that nobody
    holds. When every tile is held, the object's tile or the nearest of all."""
    at = area.tile_of(thing)
    if at is not None and at not in taken:
        return at
    if at is not None:
        mx, my = float(at[0]), float(at[1])
    else:
        assert area.rect is not None
        x, y, w, h = area.rect
        mx, my = x + (w - 1) / 2, y + (h - 1) / 2
    things = {t.at for t in area.objects}
    free = [t for t in area.tiles() if grid.walkable(t) and t not in things]
    free = free or [t for t in area.tiles() if grid.walkable(t)]
    free.sort(key=lambda t: ((t[0] - mx) ** 2 + (t[1] - my) ** 2, t[1], t[0]))
    return next((t for t in free if t not in taken), at or free[0])


def area_of(town: TownMap, place: str, area: str) -> AreaSpec:
    spec = town.place(place)
    found = spec.area(area) if spec is not None else None
    assert found is not None, f"{place}: {area}"
    return found


def walk_minutes(steps: int, seconds_per_tile: float) -> int:
    """A walk's length in whole minutes (at least one for any step)."""
    return math.ceil(steps * seconds_per_tile / 60)


def arrival(departed: datetime, steps: int, seconds_per_tile: float) -> datetime:
    return departed + timedelta(seconds=steps * seconds_per_tile)


def progress(trip: Trip, now: datetime, seconds_per_tile: float) -> int:
    """How many of the trip's steps are walked by `now`."""
    walked = (now - trip.departed).total_seconds() / seconds_per_tile
    return min(len(trip.path), max(0, int(walked + 1e-9)))


def walked(trip: Trip, then: datetime, now: datetime, seconds_per_tile: float) -> list[Tile]:
    """The tiles of the trip's path walked between `then` and `now`, one a movement step."""
    return list(
        trip.path[progress(trip, then, seconds_per_tile) : progress(trip, now, seconds_per_tile)]
    )


def taken(agents: Roster[Whereabouts], place: str) -> set[Tile]:
    """Tiles at `place` that someone stands on or walks to."""
    held = {w.tile for _, w in agents.present(place) if w.tile is not None}
    # Only those bound for it: a tick of departures scanning everyone cost agents squared.
    held |= {w.trip.path[-1] for w in agents.heading(place) if w.trip and w.trip.path}
    return held


def step_within(
    grid: TileGrid,
    town: TownMap,
    me: Whereabouts,
    area: str,
    thing: str | None,
    agents: Roster[Whereabouts],
) -> tuple[Whereabouts, list[Tile]]:
    """Where the agent stands once it has walked, within its place, to the activity's tile, and
    the tiles it walked (none when it is there already or no way leads there)."""
    assert me.tile is not None
    spec = area_of(town, me.place, area)
    at = spec.tile_of(thing)
    if (at is None and spec.holds(me.tile)) or me.tile == at:
        return me, []  # the common case, each tick of an activity: nothing else to work out
    goal = spot(grid, spec, thing, taken(agents, me.place) - {me.tile})
    path = grid.path(me.tile, goal)
    if not path:
        return me, []
    return replace(me, tile=goal), list(path)
