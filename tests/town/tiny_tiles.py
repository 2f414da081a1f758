"""Small Tiled maps drawn in a test: rows of characters ("#" a wall), named rectangles."""

from __future__ import annotations

from typing import Any

PX = 8


def tiled(
    rows: list[str],
    sectors: list[tuple[str, str, tuple[int, int, int, int]]],
    arenas: list[tuple[str, tuple[int, int, int, int]]],
    objects: list[tuple[str, tuple[int, int]]] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    """A Tiled map's JSON: `sectors` (name, kind, x y w h in tiles), `arenas`, `objects`."""
    width, height = len(rows[0]), len(rows)
    walls = [2 if c == "#" else 0 for row in rows for c in row]

    def box(name: str, rect: tuple[int, int, int, int], **props: str) -> dict[str, Any]:
        x, y, w, h = rect
        return {
            "name": name,
            "x": x * PX,
            "y": y * PX,
            "width": w * PX,
            "height": h * PX,
            "properties": [{"name": k, "type": "string", "value": v} for k, v in props.items()],
        }

    def group(name: str, objects: list[dict[str, Any]]) -> dict[str, Any]:
        return {"type": "objectgroup", "name": name, "objects": objects}

    return {
        "type": "map",
        "orientation": "orthogonal",
        "width": width,
        "height": height,
        "tilewidth": PX,
        "tileheight": PX,
        "properties": [{"name": "name", "type": "string", "value": "tiny"}],
        "layers": [
            {
                "type": "tilelayer",
                "name": "floor",
                "width": width,
                "height": height,
                "data": [w or 1 for w in walls],
            },
            {
                "type": "tilelayer",
                "name": "collisions",
                "width": width,
                "height": height,
                "data": walls,
            },
            group("sectors", [box(n, r, kind=k) for n, k, r in sectors]),
            group("arenas", [box(n, r) for n, r in arenas]),
            group("objects", [box(n, (x, y, 1, 1)) for n, (x, y) in objects]),
        ],
        "tilesets": [
            {
                "firstgid": 1,
                "tiles": [
                    {"id": 0, "properties": [{"name": "colour", "value": "#eeeeee"}]},
                    {"id": 1, "properties": [{"name": "colour", "value": "#333333"}]},
                ],
            }
        ],
    }


# Two houses side by side: each two rooms joined by a one-tile door, one front door each,
# a street below. West: rooms x 1-3 and 5-7; east: rooms x 11-13 and 15-17.
ROWS = [
    "###################",
    "#...#...#.#...#...#",
    "#.......#.#.......#",
    "#...#...#.#...#...#",
    "##.######.#####.###",
    "...................",
]
SECTORS = [("West House", "home", (0, 0, 9, 5)), ("East House", "home", (10, 0, 9, 5))]
ARENAS = [
    ("bedroom", (1, 1, 3, 3)),
    ("kitchen", (5, 1, 3, 3)),
    ("bedroom", (11, 1, 3, 3)),
    ("kitchen", (15, 1, 3, 3)),
]
OBJECTS = [("bed", (1, 1)), ("stove", (7, 1)), ("bed", (11, 1)), ("stove", (17, 3))]


def two_houses() -> dict[str, Any]:
    return tiled(ROWS, SECTORS, ARENAS, OBJECTS)
