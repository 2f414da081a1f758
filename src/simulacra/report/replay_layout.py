"""A world's static layout on the screen: places and marker layers in coordinates whose y
grows downwards (a world whose y axis points up is mirrored, its frames with it), and the
bounds of everything drawn."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from simulacra.report.replay_model import Frame, Marker, Place

# A world drawn flatter than this (the commute's corridor) gets room above and below it.
_MIN_ASPECT = 0.3


@dataclass(frozen=True)
class Screen:
    places: tuple[Place, ...]
    layers: dict[str, tuple[Marker, ...]]
    frames: tuple[Frame, ...]
    bounds: tuple[float, float, float, float]  # x, y, width, height


def on_screen(world: Any, frames: tuple[Frame, ...]) -> Screen:
    """`world` is the `run` event's layout; `frames` are mirrored when its y axis points up."""
    places, layers = _places(world), _layers(world)
    if _in_cells(world):  # a place's x, y name its corner cell, drawn from the cell's edge
        places = tuple(replace(p, x=p.x - 0.5, y=p.y - 0.5) for p in places)
    if isinstance(world, Mapping) and world.get("y_axis") == "up":
        places, layers, frames = _flip_y(places, layers, frames)
    return Screen(places, layers, frames, _bounds(places, layers, frames, world))


def _flip_y(
    places: tuple[Place, ...],
    layers: dict[str, tuple[Marker, ...]],
    frames: tuple[Frame, ...],
) -> tuple[tuple[Place, ...], dict[str, tuple[Marker, ...]], tuple[Frame, ...]]:
    """Mirror a world whose y axis points up (a grid) into screen coordinates, y down."""
    flipped_frames = tuple(
        replace(
            frame,
            agents={
                a: replace(pos, y=None if pos.y is None else -pos.y)
                for a, pos in frame.agents.items()
            },
            extras={k: _flip_points(v) for k, v in frame.extras.items()},
        )
        for frame in frames
    )
    return (
        tuple(replace(p, y=-(p.y + p.h)) for p in places),
        {k: tuple(replace(m, y=-m.y) for m in v) for k, v in layers.items()},
        flipped_frames,
    )


def _flip_points(value: Any) -> Any:
    """A frame's list of points (a fire an intervention moved), mirrored; anything else as is."""
    if not isinstance(value, list):
        return value
    return [
        {**item, "y": -item["y"]}
        if isinstance(item, Mapping) and _num(item.get("y")) is not None
        else item
        for item in value
    ]


def _in_cells(world: Any) -> bool:
    """A grid's coordinates name cells (their centres), not points of a continuous plane: a
    layout with a `half_size` spans -half_size..half_size in cells."""
    return isinstance(world, Mapping) and _num(world.get("half_size")) is not None


def _places(world: Any) -> tuple[Place, ...]:
    raw_places = world.get("places") if isinstance(world, Mapping) else None
    places = []
    for raw in _dicts(raw_places):
        x, y, w, h = (_num(raw.get(key)) for key in ("x", "y", "w", "h"))
        if x is None or y is None:
            continue  # a place with no position cannot be drawn
        capacity = _num(raw.get("capacity"))
        name, kind = _text(raw.get("name")), _text(raw.get("kind"))
        places.append(
            Place(name, kind, x, y, w or 1.0, h or 1.0, None if capacity is None else int(capacity))
        )
    return tuple(places)


def _layers(world: Any) -> dict[str, tuple[Marker, ...]]:
    """Lists of named points in the layout, e.g. fires: [{name, position: [x, y], radius}]."""
    layers = {}
    for key, value in world.items() if isinstance(world, Mapping) else ():
        markers = [_marker(raw) for raw in _dicts(value)] if key != "places" else []
        found = tuple(m for m in markers if m is not None)
        if found:
            layers[str(key)] = found
    return layers


def _marker(raw: Mapping[str, Any]) -> Marker | None:
    point = raw.get("position")
    pair = point if isinstance(point, list) and len(point) == 2 else [raw.get("x"), raw.get("y")]
    x, y = _num(pair[0]), _num(pair[1])
    if x is None or y is None:
        return None
    radius = _num(raw.get("r", raw.get("radius")))
    return Marker(_text(raw.get("name")), x, y, radius)


def _bounds(
    places: tuple[Place, ...],
    layers: Mapping[str, tuple[Marker, ...]],
    frames: tuple[Frame, ...],
    world: Any,
) -> tuple[float, float, float, float]:
    xs: list[float] = []
    ys: list[float] = []
    for place in places:
        xs += [place.x, place.x + place.w]
        ys += [place.y, place.y + place.h]
    for markers in layers.values():
        xs += [m.x for m in markers]
        ys += [m.y for m in markers]
    for frame in frames:
        for pos in frame.agents.values():
            if pos.x is not None and pos.y is not None:
                xs.append(pos.x)
                ys.append(pos.y)
        for value in frame.extras.values():
            for point in _dicts(value):
                px, py = _num(point.get("x")), _num(point.get("y"))
                if px is not None and py is not None:
                    xs.append(px)
                    ys.append(py)
    if isinstance(world, Mapping) and _num(world.get("width")) and _num(world.get("height")):
        xs += [0.0, float(world["width"])]
        ys += [0.0, float(world["height"])]
    half = _num(world.get("half_size")) if _in_cells(world) else None
    if half:  # a grid's whole field, each cell drawn from its centre +- 0.5
        xs += [-half - 0.5, half + 0.5]
        ys += [-half - 0.5, half + 0.5]
    if not xs:
        return (0.0, 0.0, 100.0, 100.0)
    width, height = max(max(xs) - min(xs), 1.0), max(max(ys) - min(ys), 1.0)
    pad = 0.04 * max(width, height)
    top = min(ys) - pad
    if height < width * _MIN_ASPECT:
        top -= (width * _MIN_ASPECT - height) / 2
        height = width * _MIN_ASPECT
    return (min(xs) - pad, top, width + 2 * pad, height + 2 * pad)


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _dicts(value: Any) -> list[Mapping[str, Any]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _text(value: Any) -> str:
    return "" if value is None else str(value)
