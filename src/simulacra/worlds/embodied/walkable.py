"""Walkable space from the scene's floor: an occupancy grid, movement along it with
collisions and bounds, and the route the oracle follows (SPL's shortest path is shortest.py).

The floor is the lowest level of up-facing horizontal surfaces whose area is at least half
the largest level's. A cell is floor when such a surface lies under its centre; an obstacle
when any surface reaches into the body's band (0.1 m to 1.8 m above the floor) there. A cell
is free when it is floor and no obstacle lies within the agent's radius.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from simulacra.worlds.embodied.scene import Prim, Scene

BODY = (0.1, 1.8)  # the body's band above the floor, metres
NOTHING = -1

# Dijkstra's neighbours: the 8 of the king and the 8 of the knight, so that grid paths stay
# within 3% of straight lines.
_STEPS = [(dx, dy) for dx in (-2, -1, 0, 1, 2) for dy in (-2, -1, 0, 1, 2)
          if (dx, dy) != (0, 0) and math.gcd(abs(dx), abs(dy)) == 1]  # fmt: skip


@dataclass(frozen=True)
class Step:
    """What a straight walk came to: where it ended, how far it went, and what stopped it
    (`blocked`: "collision" with a prim, "bound" at the floor's edge, or None)."""

    x: float
    y: float
    moved_m: float
    blocked: str | None = None
    by: str | None = None  # the label of the prim walked into


class Walkable:
    """The occupancy grid of one scene (see the module's docstring)."""

    def __init__(self, scene: Scene, *, cell: float, radius: float) -> None:
        self.scene, self.cell, self.radius = scene, cell, radius
        floor_prims, self.floor_z = _floor(scene)
        lows = np.min([p.low for p in floor_prims], axis=0)
        highs = np.max([p.high for p in floor_prims], axis=0)
        self.x0, self.y0 = float(lows[0]), float(lows[1])
        self.nx = max(1, math.ceil((highs[0] - self.x0) / cell))
        self.ny = max(1, math.ceil((highs[1] - self.y0) / cell))
        self.floor = np.zeros((self.nx, self.ny), dtype=bool)
        self.owner = np.full((self.nx, self.ny), NOTHING, dtype=np.int32)  # prim per obstacle
        for prim in floor_prims:
            self._fill(prim, self.floor, up_only=True)
        band = (self.floor_z + BODY[0], self.floor_z + BODY[1])
        for index, prim in enumerate(scene.prims):
            if prim.high[2] < band[0] or prim.low[2] > band[1]:
                continue
            mask = np.zeros_like(self.floor)
            self._fill(prim, mask, band=band)
            self.owner[mask] = index
        self.blocked = self.owner != NOTHING
        self.free = self.floor & ~_dilate(self.blocked, radius / cell)

    # --- cells and points ---------------------------------------------------------------

    def cell_of(self, x: float, y: float) -> tuple[int, int]:
        return math.floor((x - self.x0) / self.cell), math.floor((y - self.y0) / self.cell)

    def centre(self, i: int, j: int) -> tuple[float, float]:
        return self.x0 + (i + 0.5) * self.cell, self.y0 + (j + 0.5) * self.cell

    def inside(self, i: int, j: int) -> bool:
        return bool(0 <= i < self.nx and 0 <= j < self.ny)

    def is_free(self, x: float, y: float) -> bool:
        i, j = self.cell_of(x, y)
        return self.inside(i, j) and bool(self.free[i, j])

    def nearest_free(self, x: float, y: float) -> tuple[float, float]:
        """The free point nearest (x, y): itself when free, else a free cell's centre."""
        if self.is_free(x, y):
            return x, y
        cells = np.argwhere(self.free)
        if len(cells) == 0:
            raise ValueError(f"scene {self.scene.name!r} has no free floor for an agent")
        centres = np.column_stack([self.x0 + (cells[:, 0] + 0.5) * self.cell,
                                   self.y0 + (cells[:, 1] + 0.5) * self.cell])  # fmt: skip
        best = int(np.argmin(np.hypot(centres[:, 0] - x, centres[:, 1] - y)))
        return float(centres[best, 0]), float(centres[best, 1])

    # --- movement -----------------------------------------------------------------------

    def walk(self, x: float, y: float, dx: float, dy: float) -> Step:
        """Walk from (x, y) by (dx, dy) in a straight line, stopping before the first cell
        that is not free."""
        length = math.hypot(dx, dy)
        if length == 0.0:
            return Step(x, y, 0.0)
        samples = max(1, math.ceil(length / (self.cell / 2)))
        last = (x, y)
        for k in range(1, samples + 1):
            # Kept to 0.1 mm, as poses are: the point checked is the point the agent stands on
            # (unrounded, a point just short of a cell's edge could round onto it).
            px, py = round(x + dx * k / samples, 4), round(y + dy * k / samples, 4)
            if not self.is_free(px, py):
                moved = length * (k - 1) / samples
                blocked, by = self._what_blocks(px, py)
                return Step(last[0], last[1], moved, blocked, by)
            last = (px, py)
        return Step(last[0], last[1], length)

    def _what_blocks(self, x: float, y: float) -> tuple[str, str | None]:
        i, j = self.cell_of(x, y)
        if not self.inside(i, j) or not self.floor[i, j]:
            return "bound", None
        r = math.ceil(self.radius / self.cell) + 1
        near = self.owner[max(i - r, 0) : i + r + 1, max(j - r, 0) : j + r + 1]
        owners = near[near != NOTHING]
        if len(owners) == 0:
            return "bound", None
        values, counts = np.unique(owners, return_counts=True)
        return "collision", self.scene.prims[int(values[np.argmax(counts)])].label

    def clear_line(self, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """Whether a body can walk straight from a to b (the samples `walk` takes)."""
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        samples = max(1, math.ceil(length / (self.cell / 2)))
        t = np.arange(1, samples + 1) / samples
        i = np.floor((a[0] + (b[0] - a[0]) * t - self.x0) / self.cell).astype(int)
        j = np.floor((a[1] + (b[1] - a[1]) * t - self.y0) / self.cell).astype(int)
        inside = (i >= 0) & (i < self.nx) & (j >= 0) & (j < self.ny)
        return bool(inside.all() and self.free[i, j].all())

    def sight(self, a: tuple[float, float], target: int) -> bool:
        """Whether nothing but the target's own cells stands between a and the target's
        footprint, on the floor plan (heights are not looked at)."""
        prim = self.scene.prims[target]
        bx = min(max(a[0], prim.low[0]), prim.high[0])
        by = min(max(a[1], prim.low[1]), prim.high[1])
        length = math.hypot(bx - a[0], by - a[1])
        samples = max(1, math.ceil(length / (self.cell / 2)))
        for k in range(1, samples):
            i, j = self.cell_of(a[0] + (bx - a[0]) * k / samples, a[1] + (by - a[1]) * k / samples)
            if not self.inside(i, j):
                return False
            owner = int(self.owner[i, j])
            if owner not in (NOTHING, target):
                return False
        return True

    # --- rasterising --------------------------------------------------------------------

    def _fill(
        self,
        prim: Prim,
        mask: np.ndarray,
        *,
        up_only: bool = False,
        band: tuple[float, float] | None = None,
    ) -> None:
        tris = prim.points[prim.triangles]  # (m, 3 corners, xyz)
        if up_only:
            normals = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
            lengths = np.linalg.norm(normals, axis=1)
            level = np.abs(tris[:, :, 2].mean(axis=1) - self.floor_z) < 0.05
            tris = tris[(np.abs(normals[:, 2]) > 0.9 * np.maximum(lengths, 1e-12)) & level]
        elif band is not None:
            z = tris[:, :, 2]
            tris = tris[(z.max(axis=1) >= band[0]) & (z.min(axis=1) <= band[1])]
        for tri in tris:
            self._triangle(tri[:, :2], mask)

    def _triangle(self, corners: np.ndarray, mask: np.ndarray) -> None:
        """Mark the cells whose centres lie in the triangle's footprint, and the cells its
        edges pass through (a wall's footprint is a line)."""
        c = self.cell
        lo = np.floor((corners.min(axis=0) - (self.x0, self.y0)) / c).astype(int)
        hi = np.floor((corners.max(axis=0) - (self.x0, self.y0)) / c).astype(int)
        i0, j0 = max(lo[0], 0), max(lo[1], 0)
        i1, j1 = min(hi[0], self.nx - 1), min(hi[1], self.ny - 1)
        if i0 > i1 or j0 > j1:
            return
        xs = self.x0 + (np.arange(i0, i1 + 1) + 0.5) * c
        ys = self.y0 + (np.arange(j0, j1 + 1) + 0.5) * c
        px, py = np.meshgrid(xs, ys, indexing="ij")
        (ax, ay), (bx, by), (cx, cy) = corners
        det = (by - cy) * (ax - cx) + (cx - bx) * (ay - cy)
        if abs(det) > 1e-12:
            u = ((by - cy) * (px - cx) + (cx - bx) * (py - cy)) / det
            v = ((cy - ay) * (px - cx) + (ax - cx) * (py - cy)) / det
            inside = (u >= -1e-9) & (v >= -1e-9) & (u + v <= 1 + 1e-9)
            mask[i0 : i1 + 1, j0 : j1 + 1] |= inside
        for k in range(3):
            a, b = corners[k], corners[(k + 1) % 3]
            n = max(2, math.ceil(float(np.hypot(*(b - a))) / (c / 3)) + 1)
            pts = a + np.outer(np.linspace(0.0, 1.0, n), b - a)
            ii = np.floor((pts[:, 0] - self.x0) / c).astype(int)
            jj = np.floor((pts[:, 1] - self.y0) / c).astype(int)
            ok = (ii >= 0) & (ii < self.nx) & (jj >= 0) & (jj < self.ny)
            mask[ii[ok], jj[ok]] = True


class Geodesic:
    """The route the oracle follows: walking distances to a target over the free cells
    (Dijkstra on 16 neighbours, cell centre to cell centre) and the way down them.

    The goal is every free cell within `reach` of the target's footprint that sees it. A grid
    route runs up to 3% longer than the straight line and starts from a cell's centre, so its
    lengths are not SPL's shortest path (shortest.py)."""

    def __init__(self, walkable: Walkable, target: int, reach: float) -> None:
        self.walkable, self.target = walkable, target
        w = walkable
        prim = w.scene.prims[target]
        self.goal = np.zeros_like(w.free)
        for i, j in np.argwhere(w.free):
            x, y = w.centre(int(i), int(j))
            if prim.distance_xy(x, y) <= reach - w.cell * 0.75 and w.sight((x, y), target):
                self.goal[i, j] = True
        if not self.goal.any():
            raise ValueError(
                f"no free floor within {reach} m of {prim.path} that sees it; the target "
                "cannot be reached in this scene"
            )
        self.distance = _dijkstra(w.free, self.goal, w.cell)

    def at_goal(self, x: float, y: float) -> bool:
        w = self.walkable
        i, j = w.cell_of(x, y)
        return w.inside(i, j) and bool(self.goal[i, j])

    def waypoints(self, x: float, y: float) -> list[tuple[float, float]]:
        """The route from (x, y) with its corners only: each point the furthest one of the
        cell route that can be walked to in a straight line from the one before."""
        route = self.route(x, y)
        points = [(x, y)]
        if self.at_goal(x, y):
            return points
        k = -1  # at (x, y) itself, inside route[0]'s cell
        while k < len(route) - 1:
            here = points[-1]
            reach = k + 1
            for m in range(len(route) - 1, k, -1):
                if self.walkable.clear_line(here, route[m]):
                    reach = m
                    break
            points.append(route[reach])
            k = reach
        return [(round(px, 3), round(py, 3)) for px, py in points]

    def route(self, x: float, y: float, limit: int = 400) -> list[tuple[float, float]]:
        """Cell centres from (x, y) down the distance field to the goal."""
        w = self.walkable
        i, j = w.cell_of(*w.nearest_free(x, y))
        path = [w.centre(i, j)]
        for _ in range(limit):
            if self.goal[i, j] or not math.isfinite(self.distance[i, j]):
                break
            best = (self.distance[i, j], i, j)
            for dx, dy in _STEPS:
                a, b = i + dx, j + dy
                if not w.inside(a, b) or self.distance[a, b] >= best[0]:
                    continue
                crossed = [(i + ox, j + oy) for ox, oy in _crossed(dx, dy)]
                if all(w.inside(c, d) and w.free[c, d] for c, d in crossed):
                    best = (self.distance[a, b], a, b)
            if (best[1], best[2]) == (i, j):
                break
            i, j = best[1], best[2]
            path.append(w.centre(i, j))
        return path


def _floor(scene: Scene) -> tuple[list[Prim], float]:
    levels: dict[float, float] = {}
    owners: dict[float, set[int]] = {}
    for index, prim in enumerate(scene.prims):
        tris = prim.points[prim.triangles]
        normals = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
        lengths = np.linalg.norm(normals, axis=1)
        up = normals[:, 2] > 0.9 * np.maximum(lengths, 1e-12)
        flat = np.ptp(tris[:, :, 2], axis=1) < 0.01
        for tri, area in zip(tris[up & flat], lengths[up & flat] / 2, strict=True):
            z = round(float(tri[:, 2].mean()), 2)
            levels[z] = levels.get(z, 0.0) + float(area)
            owners.setdefault(z, set()).add(index)
    if not levels:
        raise ValueError(f"scene {scene.name!r} has no horizontal surface to walk on")
    biggest = max(levels.values())
    z = min(level for level, area in levels.items() if area >= biggest / 2)
    return [scene.prims[i] for i in sorted(owners[z])], z


def _dilate(mask: np.ndarray, radius_cells: float) -> np.ndarray:
    r = math.ceil(radius_cells)
    out = mask.copy()
    for dx in range(-r, r + 1):
        for dy in range(-r, r + 1):
            if dx * dx + dy * dy <= radius_cells * radius_cells + 1e-9:
                out |= _shift(mask, dx, dy, False)
    return out


def _shift(grid: np.ndarray, dx: int, dy: int, fill: Any) -> np.ndarray:
    """out[i, j] = grid[i - dx, j - dy], `fill` where that falls outside."""
    out = np.full_like(grid, fill)
    nx, ny = grid.shape
    xs, xd = (slice(0, nx - dx), slice(dx, nx)) if dx >= 0 else (slice(-dx, nx), slice(0, nx + dx))
    ys, yd = (slice(0, ny - dy), slice(dy, ny)) if dy >= 0 else (slice(-dy, ny), slice(0, ny + dy))
    out[xd, yd] = grid[xs, ys]
    return out


@cache
def _crossed(dx: int, dy: int) -> list[tuple[int, int]]:
    """The cells a move from cell (0, 0) to (dx, dy) passes between its ends (a diagonal
    counts both cells beside its corner, so no path cuts a blocked corner)."""
    if abs(dx) == 1 and abs(dy) == 1:
        return [(dx, 0), (0, dy)]
    cells = set()
    for t in np.linspace(0.0, 1.0, 201)[1:-1]:
        cells.add((math.floor(0.5 + dx * t), math.floor(0.5 + dy * t)))
    return sorted(cells - {(0, 0), (dx, dy)})


def _dijkstra(free: np.ndarray, goal: np.ndarray, cell: float) -> np.ndarray:
    """Distances to the goal cells over free cells, by repeated relaxation over the 16
    neighbour moves, each allowed only through free cells (numpy does a sweep at once)."""
    distance = np.where(goal, 0.0, np.inf)
    moves = []
    for dx, dy in _STEPS:
        passable = free & _shift(free, dx, dy, False)
        for ox, oy in _crossed(dx, dy):
            passable &= _shift(free, dx - ox, dy - oy, False)
        moves.append((dx, dy, cell * math.hypot(dx, dy), passable))
    for _ in range(free.size):
        before = distance.copy()
        for dx, dy, cost, passable in moves:
            reached = np.where(passable, _shift(distance, dx, dy, np.inf) + cost, np.inf)
            np.minimum(distance, reached, out=distance)
        if np.array_equal(before, distance):
            break
    return distance
