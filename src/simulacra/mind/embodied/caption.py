"""The caption agent's eyes: what the id pass shows, in a short deterministic sentence.

"the logo panel, 9.9 m away, 6 degrees to the right; racks on the left and on the right"

Each label is said once, largest first: a label seen once with its distance and bearing,
a label seen as several prims with the sides it stands on. The world's `visible` facts
(label, share, distance_m, bearing_deg positive left) are all it reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

AHEAD_DEG = 8.0
MOST = 10


def describe(visible: Sequence[Mapping[str, Any]], most: int = MOST) -> str:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for item in visible:
        groups.setdefault(str(item["label"]), []).append(item)
    order = sorted(groups, key=lambda label: -sum(float(i["share"]) for i in groups[label]))
    parts = []
    for label in order[:most]:
        items = groups[label]
        if len(items) == 1:
            item = items[0]
            distance = float(item["distance_m"])
            parts.append(
                f"the {label}, {distance:.1f} m away, {_angle(float(item['bearing_deg']))}"
            )
        else:
            sides = sorted({_side(float(i["bearing_deg"])) for i in items}, key=_SIDES.index)
            parts.append(f"{_plural(label)} {' and '.join(sides)}")
    return "; ".join(parts) if parts else "nothing you can make out"


_SIDES = ["on the left", "ahead", "on the right"]


def _angle(bearing: float) -> str:
    if abs(bearing) < AHEAD_DEG:
        return "straight ahead"
    side = "left" if bearing > 0 else "right"
    return f"{abs(bearing):.0f} degrees to the {side}"


def _side(bearing: float) -> str:
    if abs(bearing) < AHEAD_DEG:
        return "ahead"
    return "on the left" if bearing > 0 else "on the right"


def _plural(label: str) -> str:
    if label.endswith(("s", "x", "ch", "sh")):
        return label + "es"
    if label.endswith("y") and label[-2:-1] not in "aeiou":
        return label[:-1] + "ies"
    return label + "s"
