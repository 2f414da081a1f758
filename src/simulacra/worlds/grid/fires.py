"""A fire moved or added mid-run: a grid `event` intervention whose change is `fire` (a name),
`position` ([x, y]), and optionally `intensity` and `radius`. A fire of the layout keeps its
start step and what the change leaves out; a new one burns from the step it is placed at and
needs all four. The world logs the fires so placed in its frames, with their positions, so
that measures and viewers follow them (a fire the layout places stays a name there).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

Cell = tuple[int, int]


@dataclass(frozen=True)
class Fire:
    """A hazard that burns from `start_step` on; perceived at distance <= `radius`."""

    name: str
    start_step: int
    position: Cell
    intensity: float
    radius: float

    def active(self, step: int) -> bool:
        return step >= self.start_step


FIRE_FIELDS = frozenset({"fire", "position", "intensity", "radius"})


def change_problem(change: Mapping[str, Any], fires: list[str], half_size: int) -> str:
    """Why a fire's change is malformed, or "": names and cells in the world's own terms."""
    extra = sorted(set(change) - FIRE_FIELDS)
    if extra:
        return f"unknown field {extra[0]!r}; a grid event takes fire, position, intensity, radius"
    name = change.get("fire")
    if not isinstance(name, str) or not name.strip():
        return f"fire: the name of a fire ({', '.join(fires) or 'none yet'}) or of a new one"
    position = change.get("position")
    if not (
        isinstance(position, list | tuple)
        and len(position) == 2
        and all(isinstance(c, int) and not isinstance(c, bool) for c in position)
    ):
        return f"position: two whole numbers [x, y], got {position!r}"
    if max(map(abs, position)) > half_size:
        return f"position: {list(position)} is outside the field -{half_size}..{half_size}"
    intensity, radius = change.get("intensity"), change.get("radius")
    if name not in fires and (intensity is None or radius is None):
        return f"fire: {name!r} is a new fire; give its intensity and radius too"
    if intensity is not None and not (_number(intensity) and 0.0 <= intensity <= 1.0):
        return f"intensity: a number from 0 to 1, got {intensity!r}"
    if radius is not None and not (_number(radius) and radius > 0):
        return f"radius: a number above 0, got {radius!r}"
    return ""


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def placed(fires: Sequence[Fire], change: Mapping[str, Any], step: int) -> Fire:
    """The fire `change` places at `step`, among `fires` (checked by `change_problem`)."""
    x, y = change["position"]
    known = {f.name: f for f in fires}.get(str(change["fire"]))
    if known is None:
        return Fire(
            str(change["fire"]),
            step,
            (int(x), int(y)),
            float(change["intensity"]),
            float(change["radius"]),
        )
    return replace(
        known,
        position=(int(x), int(y)),
        intensity=float(change.get("intensity", known.intensity)),
        radius=float(change.get("radius", known.radius)),
    )


def written(fire: Fire) -> dict[str, Any]:
    """A placed fire as frames and checkpoints hold it: a point viewers draw."""
    return {
        "name": fire.name,
        "start_step": fire.start_step,
        "x": fire.position[0],
        "y": fire.position[1],
        "intensity": fire.intensity,
        "radius": fire.radius,
    }


def read(raw: Mapping[str, Any]) -> Fire:
    return Fire(
        str(raw["name"]),
        int(raw["start_step"]),
        (int(raw["x"]), int(raw["y"])),
        float(raw["intensity"]),
        float(raw["radius"]),
    )
