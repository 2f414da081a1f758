"""Draw Willow Bend as a Tiled map (scenarios/town/willow_bend.tmj) and its tile set (a PNG
drawn here), from the sketch scenarios/town/map.yaml: its places, areas, objects and roads.

Each place's rectangle is scaled to tiles; a building gets walls, one room per area split
along its longer side, a doorway between neighbouring rooms and one to the street; open places
(a square, a park) have no walls, and a pond is water. Objects stand along a room's walls on a
furniture tile; roads are drawn as paths between front doors. Run it again to remake the map:

    python scripts/willow_bend_map.py
"""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from matplotlib import image

ROOT = Path(__file__).resolve().parents[1]
SKETCH = ROOT / "scenarios" / "town" / "map.yaml"
OUT = ROOT / "scenarios" / "town" / "willow_bend.tmj"
PNG = OUT.with_name("willow_bend_tiles.png")
SCALE = 1.5  # tiles per unit of the sketch
PX = 16  # pixels a tile
OPEN = {"square", "park"}
# The tile set: kind and colour, in tile id order.
KINDS = [
    ("grass", "#a8d08d"),
    ("path", "#e2cfa4"),
    ("wood floor", "#ecd9b4"),
    ("stone", "#d9d5cc"),
    ("wall", "#5d4c40"),
    ("water", "#86bde6"),
    ("furniture", "#a67a52"),
    ("doorway", "#d8b27a"),
    ("tiled floor", "#f1f2ee"),
    ("flower bed", "#e9a3bf"),
]
TILE = {kind: i for i, (kind, _) in enumerate(KINDS)}
TILED_ROOMS = ("kitchen", "laboratory", "checkout", "bar")


def main() -> None:
    sketch = yaml.safe_load(SKETCH.read_text(encoding="utf-8"))
    tiled = drawn(sketch)
    OUT.write_text(json.dumps(tiled, separators=(",", ":")) + "\n", encoding="utf-8")
    image.imsave(PNG, _tileset_pixels())
    width, height = tiled["width"], tiled["height"]
    print(f"wrote {OUT.relative_to(ROOT)} ({width} x {height} tiles) and {PNG.relative_to(ROOT)}")


def drawn(sketch: dict[str, Any]) -> dict[str, Any]:
    """The sketch's places, areas, objects and roads as a Tiled map (its JSON)."""
    width, height = round(sketch["width"] * SCALE), round(sketch["height"] * SCALE)
    floor = np.full((height, width), TILE["grass"], dtype=int)
    walls = np.zeros((height, width), dtype=bool)
    sectors: list[dict[str, Any]] = []
    arenas: list[dict[str, Any]] = []
    things: list[dict[str, Any]] = []
    doors: dict[str, tuple[int, int]] = {}
    centre = (width / 2, height / 2)
    for place in sketch["places"]:
        x, y = round(place["x"] * SCALE), round(place["y"] * SCALE)
        w, h = round(place["w"] * SCALE), round(place["h"] * SCALE)
        sectors.append(_box(place["name"], (x, y, w, h), kind=place["kind"]))
        rooms = _rooms(place, (x, y, w, h), floor, walls, centre, doors)
        for area, room in zip(place["areas"], rooms, strict=True):
            arenas.append(_box(area["name"], room))
            spots = _along_walls(room, floor, walls)
            for i, thing in enumerate(area.get("objects", [])):
                tx, ty = spots[(i * len(spots)) // max(1, len(area["objects"]))]
                floor[ty, tx] = TILE["furniture"]
                extra = {"state": thing["state"]} if "state" in thing else {}
                things.append(_box(thing["name"], (tx, ty, 1, 1), **extra))
    for road in sketch["roads"]:
        _path(doors[road["between"][0]], doors[road["between"][1]], floor, walls)
    return _tiled(sketch["name"], floor, walls, sectors, arenas, things)


def _rooms(
    place: dict[str, Any],
    rect: tuple[int, int, int, int],
    floor: Any,
    walls: Any,
    centre: tuple[float, float],
    doors: dict[str, tuple[int, int]],
) -> list[tuple[int, int, int, int]]:
    """Draw the place; its rooms' floors (x, y, w, h), in the order of its areas."""
    x, y, w, h = rect
    n = len(place["areas"])
    wide = w >= h
    below = y + h / 2 < centre[1]
    right = x + w / 2 < centre[0]
    if place["kind"] in OPEN:
        ground = TILE["stone"] if place["kind"] == "square" else TILE["grass"]
        floor[y : y + h, x : x + w] = ground
        rooms = [_part(rect, i, n, wide, gap=0) for i in range(n)]
        for area, room in zip(place["areas"], rooms, strict=True):
            if area["name"] == "pond":  # water in the middle, a shore to stand on
                rx, ry, rw, rh = room
                floor[ry + 2 : ry + rh - 2, rx + 2 : rx + rw - 2] = TILE["water"]
                walls[ry + 2 : ry + rh - 2, rx + 2 : rx + rw - 2] = True
            if area["name"] in ("garden", "market stalls"):
                rx, ry, rw, rh = room
                floor[ry + 1 : ry + rh - 1 : 3, rx + 1 : rx + rw - 1] = TILE["flower bed"]
        doors[place["name"]] = (x + w // 2, y + h if below else y - 1)
        return rooms
    floor[y : y + h, x : x + w] = TILE["wall"]
    walls[y : y + h, x : x + w] = True
    inner = (x + 1, y + 1, w - 2, h - 2)
    rooms = [_part(inner, i, n, wide, gap=1) for i in range(n)]
    for area, (rx, ry, rw, rh) in zip(place["areas"], rooms, strict=True):
        kind = "tiled floor" if area["name"].endswith(TILED_ROOMS) else "wood floor"
        floor[ry : ry + rh, rx : rx + rw] = TILE[kind]
        walls[ry : ry + rh, rx : rx + rw] = False
    for a, _ in pairwise(rooms):  # a doorway two tiles wide between each room and the next
        if wide:
            dx, dy = a[0] + a[2], a[1] + a[3] // 2 - 1
            _open(floor, walls, [(dx, dy), (dx, dy + 1)])
        else:
            dx, dy = a[0] + a[2] // 2 - 1, a[1] + a[3]
            _open(floor, walls, [(dx, dy), (dx + 1, dy)])
    rx, ry, rw, rh = rooms[n // 2]
    if wide:  # the front door faces the middle of the town
        dy = y + h - 1 if below else y
        front = [(rx + rw // 2 - 1, dy), (rx + rw // 2, dy)]
        doors[place["name"]] = (front[0][0], dy + (1 if below else -1))
    else:
        dx = x + w - 1 if right else x
        front = [(dx, ry + rh // 2 - 1), (dx, ry + rh // 2)]
        doors[place["name"]] = (dx + (1 if right else -1), front[0][1])
    _open(floor, walls, front)
    return rooms


def _part(
    rect: tuple[int, int, int, int], i: int, n: int, wide: bool, gap: int
) -> tuple[int, int, int, int]:
    """The i-th of n parts of `rect` along its longer side, `gap` tiles of wall between."""
    x, y, w, h = rect
    length = w if wide else h
    start = round(i * (length + gap) / n)
    end = round((i + 1) * (length + gap) / n) - gap
    return (x + start, y, end - start, h) if wide else (x, y + start, w, end - start)


def _open(floor: Any, walls: Any, tiles: list[tuple[int, int]]) -> None:
    for tx, ty in tiles:
        floor[ty, tx] = TILE["doorway"]
        walls[ty, tx] = False


def _along_walls(room: tuple[int, int, int, int], floor: Any, walls: Any) -> list[tuple[int, int]]:
    """Free tiles of the room that touch a wall and no doorway, clockwise from the top left."""
    x, y, w, h = room
    ring = (
        [(x + i, y) for i in range(w)]
        + [(x + w - 1, y + j) for j in range(1, h)]
        + [(x + w - 1 - i, y + h - 1) for i in range(1, w)]
        + [(x, y + h - 1 - j) for j in range(1, h - 1)]
    )

    def by_door(tx: int, ty: int) -> bool:
        near = [(tx + dx, ty + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
        return any(floor[ny, nx] == TILE["doorway"] for nx, ny in near)

    return [(tx, ty) for tx, ty in ring if not walls[ty, tx] and not by_door(tx, ty)]


def _path(a: tuple[int, int], b: tuple[int, int], floor: Any, walls: Any) -> None:
    """A path of two legs (across, then down) on the grass between two front doors."""
    (ax, ay), (bx, by) = a, b
    step_x = 1 if bx >= ax else -1
    step_y = 1 if by >= ay else -1
    legs = [(x, ay) for x in range(ax, bx + step_x, step_x)]
    legs += [(bx, y) for y in range(ay, by + step_y, step_y)]
    for tx, ty in legs:
        inside = 0 <= ty < floor.shape[0] and 0 <= tx < floor.shape[1]
        if inside and floor[ty, tx] == TILE["grass"] and not walls[ty, tx]:
            floor[ty, tx] = TILE["path"]


def _box(name: str, rect: tuple[int, int, int, int], **props: str) -> dict[str, Any]:
    x, y, w, h = rect
    return {
        "name": name,
        "x": x * PX,
        "y": y * PX,
        "width": w * PX,
        "height": h * PX,
        "properties": [{"name": k, "type": "string", "value": v} for k, v in props.items()],
    }


def _tiled(name: str, floor: Any, walls: Any, *groups: list[dict[str, Any]]) -> dict[str, Any]:
    height, width = floor.shape
    layers: list[dict[str, Any]] = [
        _tile_layer(1, "floor", (floor + 1).ravel().tolist(), width, height),
        _tile_layer(
            2, "collisions", np.where(walls, TILE["wall"] + 1, 0).ravel().tolist(), width, height
        ),
    ]
    next_id = 1
    for i, (layer, objects) in enumerate(
        zip(("sectors", "arenas", "objects"), groups, strict=True)
    ):
        for obj in objects:
            obj.update({"id": next_id, "rotation": 0, "type": "", "visible": True})
            next_id += 1
        layers.append(
            {
                "id": i + 3,
                "name": layer,
                "type": "objectgroup",
                "draworder": "topdown",
                "objects": objects,
                "opacity": 1,
                "visible": True,
                "x": 0,
                "y": 0,
            }
        )
    tiled = {
        "type": "map",
        "version": "1.10",
        "tiledversion": "1.10.2",
        "orientation": "orthogonal",
        "renderorder": "right-down",
        "infinite": False,
        "width": width,
        "height": height,
        "tilewidth": PX,
        "tileheight": PX,
        "nextlayerid": len(layers) + 1,
        "nextobjectid": next_id,
        "properties": [{"name": "name", "type": "string", "value": name}],
        "layers": layers,
        "tilesets": [
            {
                "firstgid": 1,
                "name": "willow_bend",
                "image": PNG.name,
                "imagewidth": PX * len(KINDS),
                "imageheight": PX,
                "tilewidth": PX,
                "tileheight": PX,
                "tilecount": len(KINDS),
                "columns": len(KINDS),
                "margin": 0,
                "spacing": 0,
                "tiles": [
                    {
                        "id": i,
                        "properties": [
                            {"name": "kind", "type": "string", "value": kind},
                            {"name": "colour", "type": "string", "value": colour},
                        ],
                    }
                    for i, (kind, colour) in enumerate(KINDS)
                ],
            }
        ],
    }
    return tiled


def _tile_layer(i: int, name: str, data: list[int], width: int, height: int) -> dict[str, Any]:
    return {
        "id": i,
        "name": name,
        "type": "tilelayer",
        "width": width,
        "height": height,
        "data": data,
        "opacity": 1,
        "visible": True,
        "x": 0,
        "y": 0,
    }


def _tileset_pixels() -> Any:
    """Each tile its colour, with a little drawing: planks on wood, a grid on tiles, ripples
    on water, a darker rim on walls and furniture."""
    strip = np.zeros((PX, PX * len(KINDS), 3))
    for i, (kind, colour) in enumerate(KINDS):
        rgb = np.array([int(colour[k : k + 2], 16) / 255 for k in (1, 3, 5)])
        tile = np.tile(rgb, (PX, PX, 1))
        if kind == "wood floor":
            tile[::4, :, :] *= 0.9
        elif kind in ("tiled floor", "stone"):
            tile[::8, :, :] *= 0.88
            tile[:, ::8, :] *= 0.88
        elif kind == "water":
            tile[5::6, 2:12, :] *= 1.1
        elif kind in ("wall", "furniture"):
            tile[[0, -1], :, :] *= 0.75
            tile[:, [0, -1], :] *= 0.75
        elif kind == "grass":
            tile[3::7, 4::5, :] *= 0.85
        strip[:, i * PX : (i + 1) * PX, :] = np.clip(tile, 0, 1)
    return strip


if __name__ == "__main__":
    main()
