"""What a town action may name: a place of the map, an area of it, an object there; and the
area an action takes place in."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simulacra.errors import unknown
from simulacra.worlds.town.map import TownMap
from simulacra.worlds.town.whereabouts import Whereabouts


def text_of(value: object) -> str | None:
    """An action's argument as text; None for none or an empty one."""
    return str(value) if value not in (None, "") else None


def problem(
    town: TownMap, objects: Mapping[tuple[str, str], str], place: str, args: Mapping[str, Any]
) -> str:
    """Why `place` and the `area` and `object` of `args` name nothing there, or ""."""
    spec = town.place(place)
    if spec is None:
        return unknown("place", place, town.place_names)
    area = text_of(args.get("area"))
    if area and spec.area(area) is None:
        return unknown("area", area, [a.name for a in spec.areas]) + f" (at {place})"
    thing = text_of(args.get("object"))
    if thing and (place, thing) not in objects:
        there = [t.name for a in spec.areas for t in a.objects]
        return unknown("object", thing, there) + f" (at {place})"
    return ""


def area_for(
    town: TownMap,
    area_of: Mapping[tuple[str, str], str],
    place: str,
    args: Mapping[str, Any],
    thing: str | None,
    me: Whereabouts,
) -> str:
    """The object's area, else the one `args` names, else where the agent stands (or, at
    another place, its first area)."""
    if thing:
        return area_of[(place, thing)]
    area = text_of(args.get("area"))
    if area:
        return area
    spec = town.place(place)
    assert spec is not None
    return me.area if place == me.place else spec.areas[0].name
