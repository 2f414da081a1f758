"""A town map drawn in Tiled (its JSON map format, .tmj), read into the town map's fields.

The layers a town needs (https://doc.mapeditor.org/en/stable/reference/json-map-format/):
- `floor`, a tile layer: what each tile looks like (its tile's `colour` property draws it);
- `collisions`, a tile layer: a non-empty tile is a wall, water or anything not walked on;
- `sectors`, an object layer of named rectangles: the places (property or class `kind`);
- `arenas`, named rectangles inside a sector: its rooms or areas;
- `objects`, named rectangles inside an arena: what agents use (property `state`: its
  resting state).
The spatial tree (world > sector > arena > object) is read from which rectangle lies inside
which. A map missing a layer, a name or a containing region is refused with it named.
pytiled-parser reads only from a file, and the scenario loader reads named files into the
scenario's mapping (so `--set` reaches them and a run's config.yaml holds its map); three kinds
of layer are read here instead.
"""

from __future__ import annotations

import base64
import gzip
import zlib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from simulacra.worlds.town.tiles import PALETTE_CHARS

GID_MASK = 0x0FFFFFFF  # the top bits of a gid flip the tile; which tile it is lies below


class Property(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str
    value: Any = None


class TiledObject(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: int = 0
    name: str = ""
    type: str = ""  # called `class` since Tiled 1.9
    klass: str = Field("", alias="class")
    x: float
    y: float
    width: float = 0
    height: float = 0
    properties: list[Property] = Field(default_factory=list)

    def prop(self, name: str) -> Any:
        return next((p.value for p in self.properties if p.name == name), None)


class Layer(BaseModel):
    model_config = ConfigDict(extra="ignore")

    type: Literal["tilelayer", "objectgroup", "imagelayer", "group"]
    name: str
    width: int = 0
    height: int = 0
    data: list[int] | str | None = None
    encoding: str = "csv"
    compression: str = ""
    objects: list[TiledObject] = Field(default_factory=list)


class TileInfo(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: int
    properties: list[Property] = Field(default_factory=list)


class Tileset(BaseModel):
    model_config = ConfigDict(extra="ignore")

    firstgid: int = 1
    name: str = ""
    tiles: list[TileInfo] = Field(default_factory=list)


class TiledMap(BaseModel):
    model_config = ConfigDict(extra="ignore")

    type: Literal["map"] = "map"
    orientation: Literal["orthogonal"] = "orthogonal"
    width: int = Field(gt=0)
    height: int = Field(gt=0)
    tilewidth: int = Field(gt=0)
    tileheight: int = Field(gt=0)
    layers: list[Layer]
    tilesets: list[Tileset] = Field(default_factory=list)
    properties: list[Property] = Field(default_factory=list)


def is_tiled(raw: object) -> bool:
    return isinstance(raw, dict) and "layers" in raw and "tilewidth" in raw


def town_fields(raw: dict[str, Any]) -> dict[str, Any]:
    """The town map's fields (places, areas, objects, tiles) of a Tiled map; ValueError naming
    the layer, region or field at fault."""
    try:
        tiled = TiledMap.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"not a Tiled orthogonal map: {where}: {first['msg']}") from None
    floor = _tiles(tiled, "floor")
    walls = _tiles(tiled, "collisions")
    tw, th = tiled.tilewidth, tiled.tileheight

    def rect(layer: str, obj: TiledObject) -> tuple[int, int, int, int]:
        if not obj.name.strip():
            raise ValueError(f'layer "{layer}": object {obj.id} has no name')
        x, y = round(obj.x / tw), round(obj.y / th)
        w, h = max(1, round(obj.width / tw)), max(1, round(obj.height / th))
        return x, y, w, h

    sectors = [(o, rect("sectors", o)) for o in _objects(tiled, "sectors")]
    arenas = [(o, rect("arenas", o)) for o in _objects(tiled, "arenas")]
    things = [(o, rect("objects", o)) for o in _objects(tiled, "objects")]
    if not sectors:
        raise ValueError('layer "sectors": no places; draw a named rectangle for each')
    places: list[dict[str, Any]] = []
    areas_of: list[list[tuple[TiledObject, tuple[int, int, int, int]]]] = []
    for obj, r in sectors:
        kind = obj.prop("kind") or obj.klass or obj.type
        if not kind:
            raise ValueError(f'layer "sectors": place "{obj.name}" has no kind (a property)')
        x, y, w, h = r
        places.append({"name": obj.name, "kind": str(kind), "x": x, "y": y, "w": w, "h": h})
        areas_of.append([])
    for obj, r in arenas:
        inside = [i for i, (_, s) in enumerate(sectors) if _within(r, s)]
        if not inside:
            raise ValueError(f'layer "arenas": area "{obj.name}" lies inside no place (sectors)')
        areas_of[inside[0]].append((obj, r))
    for place, areas in zip(places, areas_of, strict=True):
        if not areas:
            raise ValueError(f'layer "arenas": place "{place["name"]}" has no area inside it')
        place["areas"] = [{"name": o.name, "rect": list(r), "objects": []} for o, r in areas]
    for obj, r in things:
        found = [
            area for place in places for area in place["areas"] if _within(r, tuple(area["rect"]))
        ]
        if not found:
            raise ValueError(f'layer "objects": object "{obj.name}" lies inside no area (arenas)')
        state = obj.prop("state")
        thing: dict[str, Any] = {"name": obj.name, "at": [r[0], r[1]]}
        if state:
            thing["state"] = str(state)
        found[0]["objects"].append(thing)
    name = next((p.value for p in tiled.properties if p.name == "name"), None)
    colours = _colours(tiled)
    used = sorted({g for g in floor if g})
    if len(used) > len(PALETTE_CHARS):
        raise ValueError(f'layer "floor": more than {len(PALETTE_CHARS)} kinds of tile')
    char = {g: PALETTE_CHARS[i] for i, g in enumerate(used)}
    width = tiled.width
    rows = range(tiled.height)
    return {
        "name": str(name or "town"),
        "width": width,
        "height": tiled.height,
        "places": places,
        "tiles": {
            "floor": [
                "".join(char.get(g, " ") for g in floor[y * width : (y + 1) * width]) for y in rows
            ],
            "palette": [colours.get(g, "#c8c8c8") for g in used],
            "walls": [
                "".join("#" if g else "." for g in walls[y * width : (y + 1) * width]) for y in rows
            ],
        },
    }


def _within(inner: tuple[int, ...], outer: tuple[int, ...]) -> bool:
    x, y, w, h = inner
    ox, oy, ow, oh = outer
    return ox <= x and oy <= y and x + w <= ox + ow and y + h <= oy + oh


def _layer(tiled: TiledMap, name: str, kind: str) -> Layer:
    found = next((layer for layer in tiled.layers if layer.name == name), None)
    what = "a tile layer" if kind == "tilelayer" else "an object layer"
    if found is None:
        names = ", ".join(layer.name for layer in tiled.layers) or "none"
        raise ValueError(f'the map has no layer named "{name}" ({what}); its layers: {names}')
    if found.type != kind:
        raise ValueError(f'layer "{name}" must be {what}, not a {found.type}')
    return found


def _objects(tiled: TiledMap, name: str) -> list[TiledObject]:
    return _layer(tiled, name, "objectgroup").objects


def _tiles(tiled: TiledMap, name: str) -> list[int]:
    """A tile layer's gids, row by row, decoded as the format allows (csv or base64, with
    zlib or gzip), flip bits dropped."""
    layer = _layer(tiled, name, "tilelayer")
    data = layer.data
    if isinstance(data, str):
        packed = base64.b64decode(data)
        if layer.compression == "zlib":
            packed = zlib.decompress(packed)
        elif layer.compression == "gzip":
            packed = gzip.decompress(packed)
        elif layer.compression:
            raise ValueError(f'layer "{name}": compression "{layer.compression}" is not read')
        data = [int.from_bytes(packed[i : i + 4], "little") for i in range(0, len(packed), 4)]
    if data is None or len(data) != tiled.width * tiled.height:
        count = 0 if data is None else len(data)
        raise ValueError(f'layer "{name}": {count} tiles for a {tiled.width} x {tiled.height} map')
    return [g & GID_MASK for g in data]


def _colours(tiled: TiledMap) -> dict[int, str]:
    """Each tile's `colour` property, by gid: how the viewer draws a tile."""
    found: dict[int, str] = {}
    for tileset in tiled.tilesets:
        for tile in tileset.tiles:
            colour = next((p.value for p in tile.properties if p.name == "colour"), None)
            if isinstance(colour, str):
                found[tileset.firstgid + tile.id] = colour
    return found
