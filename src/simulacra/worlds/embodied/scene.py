"""A scene: the mesh prims of a USD stage as triangles in metres, z up, with their colours.

Any USD file loads (usda, usdc, usdz) through usd-core: every visible mesh prim, placed by
its world transform (`XformCache`), coloured by its `displayColor` or the diffuse colour of a
bound UsdPreviewSurface material, in metres (`metersPerUnit`) with z up (a y-up stage is
turned about x). Prims on the exclusion list are left out with everything under them (the
source leaves out a distant backdrop).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_COLOUR = (0.7, 0.7, 0.7)
USD_SUFFIXES = (".usd", ".usda", ".usdc", ".usdz")


class SceneError(ValueError):
    """A scene that cannot be loaded, or a prim it lacks."""


@dataclass(frozen=True, eq=False)
class Prim:
    """One mesh prim: triangles (`points` (n, 3) metres, z up; `triangles` (m, 3) indices)."""

    path: str
    label: str  # in words, for captions: "logo panel", "rack"
    points: np.ndarray = field(repr=False)
    triangles: np.ndarray = field(repr=False)
    colour: tuple[float, float, float] = DEFAULT_COLOUR

    @property
    def low(self) -> np.ndarray:
        return np.asarray(self.points.min(axis=0))

    @property
    def high(self) -> np.ndarray:
        return np.asarray(self.points.max(axis=0))

    @property
    def centre(self) -> np.ndarray:
        return np.asarray((self.low + self.high) / 2)

    def distance_xy(self, x: float, y: float) -> float:
        """Horizontal distance from (x, y) to the prim's footprint box (0 inside it)."""
        dx = max(self.low[0] - x, 0.0, x - self.high[0])
        dy = max(self.low[1] - y, 0.0, y - self.high[1])
        return float(np.hypot(dx, dy))


@dataclass(frozen=True, eq=False)
class Scene:
    name: str
    prims: tuple[Prim, ...]
    up_axis: str = "Z"
    meters_per_unit: float = 1.0

    def prim(self, path: str) -> Prim:
        for prim in self.prims:
            if prim.path == path:
                return prim
        known = ", ".join(p.path for p in self.prims[:12])
        more = " ..." if len(self.prims) > 12 else ""
        raise SceneError(f"scene {self.name!r} has no mesh prim {path!r}; it has: {known}{more}")

    def index(self, path: str) -> int:
        return self.prims.index(self.prim(path))

    @property
    def low(self) -> np.ndarray:
        return np.asarray(np.min([p.low for p in self.prims], axis=0))

    @property
    def high(self) -> np.ndarray:
        return np.asarray(np.max([p.high for p in self.prims], axis=0))


def label_of(name: str) -> str:
    """Words from a prim's name: "LogoPanel_2" -> "logo panel"."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ").replace("-", " ")
    words = re.sub(r"\s*\d+$", "", words.strip())
    return " ".join(words.lower().split()) or name.lower()


def load_usd(path: str | Path, exclude: Iterable[str] = ()) -> Scene:
    """The scene of a USD file; raises SceneError naming the file and what is wrong."""
    from pxr import Usd

    file = Path(path)
    if file.suffix.lower() not in USD_SUFFIXES:
        raise SceneError(f"{file}: not a USD file; expected one of {', '.join(USD_SUFFIXES)}")
    if not file.is_file():
        raise SceneError(f"{file}: no such file")
    stage = Usd.Stage.Open(str(file))
    if stage is None:
        raise SceneError(f"{file}: usd-core could not open it")
    return scene_of(stage, file.stem, exclude)


def scene_of(stage: Any, name: str, exclude: Iterable[str] = ()) -> Scene:
    """The scene of an open `Usd.Stage`."""
    from pxr import Usd, UsdGeom

    excluded = tuple(p.rstrip("/") for p in exclude)
    meters = float(UsdGeom.GetStageMetersPerUnit(stage)) or 1.0
    up = str(UsdGeom.GetStageUpAxis(stage)).upper()
    cache = UsdGeom.XformCache(Usd.TimeCode.Default())
    prims = []
    for usd_prim in stage.Traverse():
        path = str(usd_prim.GetPath())
        if any(path == e or path.startswith(e + "/") for e in excluded):
            continue
        if not usd_prim.IsA(UsdGeom.Mesh):
            continue
        if UsdGeom.Imageable(usd_prim).ComputeVisibility() == UsdGeom.Tokens.invisible:
            continue
        prim = _mesh(usd_prim, cache, meters, up)
        if prim is not None:
            prims.append(prim)
    if not prims:
        raise SceneError(f"scene {name!r} holds no visible mesh prim once exclusions are applied")
    return Scene(name, tuple(prims), up, meters)


def _mesh(usd_prim: Any, cache: Any, meters: float, up: str) -> Prim | None:
    from pxr import UsdGeom

    mesh = UsdGeom.Mesh(usd_prim)
    raw_points = mesh.GetPointsAttr().Get()
    counts = mesh.GetFaceVertexCountsAttr().Get()
    indices = mesh.GetFaceVertexIndicesAttr().Get()
    if not raw_points or not counts or not indices:
        return None
    points = np.asarray(raw_points, dtype=np.float64)
    matrix = np.asarray(cache.GetLocalToWorldTransform(usd_prim), dtype=np.float64)
    homogeneous = np.hstack([points, np.ones((len(points), 1))])
    world = (homogeneous @ matrix)[:, :3] * meters  # USD transforms row vectors
    if up == "Y":
        world = np.column_stack([world[:, 0], -world[:, 2], world[:, 1]])
    triangles = _fan(np.asarray(counts, dtype=np.int64), np.asarray(indices, dtype=np.int64))
    if len(triangles) == 0:
        return None
    name = usd_prim.GetName()
    display = usd_prim.GetDisplayName() if hasattr(usd_prim, "GetDisplayName") else ""
    label = display.strip().lower() if display else label_of(name)
    return Prim(str(usd_prim.GetPath()), label, world, triangles, _colour(usd_prim))


def _fan(counts: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Polygons as triangles, each fanned from its first vertex."""
    triangles: list[tuple[int, int, int]] = []
    start = 0
    for count in counts.tolist():
        face = indices[start : start + count]
        triangles.extend((face[0], face[i], face[i + 1]) for i in range(1, count - 1))
        start += count
    return np.asarray(triangles, dtype=np.int64).reshape(-1, 3)


def _colour(usd_prim: Any) -> tuple[float, float, float]:
    from pxr import UsdGeom, UsdShade

    colours = UsdGeom.Gprim(usd_prim).GetDisplayColorAttr().Get()
    if colours:
        mean = np.asarray(colours, dtype=np.float64).reshape(-1, 3).mean(axis=0)
        return (float(mean[0]), float(mean[1]), float(mean[2]))
    material, _ = UsdShade.MaterialBindingAPI(usd_prim).ComputeBoundMaterial()
    if material:
        shader = material.ComputeSurfaceSource()[0]
        if shader:
            value = shader.GetInput("diffuseColor")
            colour = value.Get() if value else None
            if colour is not None:
                return (float(colour[0]), float(colour[1]), float(colour[2]))
    return DEFAULT_COLOUR
