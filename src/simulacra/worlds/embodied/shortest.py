"""SPL's shortest path: a length that no walk an agent can make beats.

The region. An agent walks in straight legs checked at half-cell samples (`Walkable.walk`),
so every point of a walked path lies within a quarter cell of a free cell. The path is taken
over that region: the free cells, each grown by a quarter cell on every side.

The goal. A walk succeeds within `reach` of the target's footprint where the target shows in
the view. Whether it shows depends on where the agent looks, so the goal keeps every point
within reach from which the target could show: all but those behind a wall, a prim that
rises from the floor above both the eye and the target (through one, no line of sight
reaches any part of the target), on the floor plan, to every point of the target's outline.
The goal is sampled on a lattice of a quarter cell, and the last leg is shortened by the
lattice's half diagonal, so that a point of the goal between samples is not missed.

The search. In a polygon a shortest path bends only at reflex corners (Lozano-Perez and
Wesley, 1979): it is an A* search over the region's reflex corners, each leg a straight line
the region holds, ending with a leg to the goal. A leg counts as held when points every
eighth of a cell along it all lie in the region: a leg the region holds always passes, and
one that clips a corner between two samples only makes the path shorter, never longer. The
heuristic, the crow-flies distance to the goal's hull, never overestimates, so the first
path the search completes is the shortest.
"""

from __future__ import annotations

import heapq
import math
from functools import cached_property

import numpy as np

from simulacra.worlds.embodied.scene import Prim
from simulacra.worlds.embodied.walkable import NOTHING, Walkable

_EPS = 1e-9
_START, _GOAL = -1, -2
_BATCH = 64  # goal samples tried at once, nearest first


class ShortestPath:
    """Shortest walks from a point to a target's goal (see the module's docstring)."""

    def __init__(self, walkable: Walkable, target: int, reach: float, eye_m: float) -> None:
        self.walkable, self.target, self.reach = walkable, target, reach
        prim = walkable.scene.prims[target]
        self.low, self.high = prim.low[:2].astype(float), prim.high[:2].astype(float)
        self.grow = walkable.cell / 4  # how far a walked leg strays from the free cells
        self.step = walkable.cell / 8  # samples along a leg
        self.lattice = walkable.cell / 4
        self.slack = self.lattice / math.sqrt(2)
        self.walls = _walls(walkable, prim, eye_m)
        self.corners = self._corners()
        self.goals = self._goals()
        self._sight: dict[int, np.ndarray] = {}  # corner -> the corners in its sight
        self._legs: dict[int, float] = {}  # corner -> its last leg

    # --- the region ---------------------------------------------------------------------

    def inside(self, points: np.ndarray) -> np.ndarray:
        """Which of (n, 2) `points` lie in the grown region (its edges included)."""
        w, g = self.walkable, self.grow
        found = np.zeros(len(points), dtype=bool)
        for dx in (-g, g):
            for dy in (-g, g):
                i = np.floor((points[:, 0] + dx * (1 + _EPS) - w.x0) / w.cell).astype(int)
                j = np.floor((points[:, 1] + dy * (1 + _EPS) - w.y0) / w.cell).astype(int)
                ok = (i >= 0) & (i < w.nx) & (j >= 0) & (j < w.ny)
                hit = np.zeros(len(points), dtype=bool)
                hit[ok] = w.free[i[ok], j[ok]]
                found |= hit
        return found

    def _corners(self) -> np.ndarray:
        """The region's reflex corners: three of the four quarters around them inside, or two
        opposite ones (a pinch). Its sides lie on the grid's lines moved by a quarter cell."""
        w, g = self.walkable, self.grow
        xs = w.x0 + np.arange(w.nx + 1) * w.cell
        ys = w.y0 + np.arange(w.ny + 1) * w.cell
        px, py = np.meshgrid(np.concatenate([xs - g, xs + g]), np.concatenate([ys - g, ys + g]))
        points = np.column_stack([px.ravel(), py.ravel()])
        probes = [np.array([sx, sy]) * g / 2 for sx in (-1, 1) for sy in (-1, 1)]
        quarters = [self.inside(points + probe) for probe in probes]
        count = np.sum(quarters, axis=0)
        pinch = (count == 2) & ((quarters[0] & quarters[3]) | (quarters[1] & quarters[2]))
        return np.asarray(points[(count == 3) | pinch])

    # --- the goal -----------------------------------------------------------------------

    def to_hull(self, points: np.ndarray) -> np.ndarray:
        """Each point's crow-flies distance to the points within reach of the footprint."""
        dx = np.maximum(np.maximum(self.low[0] - points[:, 0], 0.0), points[:, 0] - self.high[0])
        dy = np.maximum(np.maximum(self.low[1] - points[:, 1], 0.0), points[:, 1] - self.high[1])
        return np.asarray(np.maximum(np.hypot(dx, dy) - self.reach, 0.0))

    def _goals(self) -> np.ndarray:
        """The goal's samples: lattice points within reach, in the region, not behind a wall."""
        h, r = self.lattice, self.reach
        xs = np.arange(math.floor((self.low[0] - r) / h), math.ceil((self.high[0] + r) / h) + 1)
        ys = np.arange(math.floor((self.low[1] - r) / h), math.ceil((self.high[1] + r) / h) + 1)
        px, py = np.meshgrid(xs * h, ys * h, indexing="ij")
        points = np.column_stack([px.ravel(), py.ravel()])
        goal = (self.to_hull(points) <= 0) & self.inside(points)
        goal[goal] = self.in_view(points[goal])
        # A walk from outside reaches the goal at its edge: the samples with a neighbour out.
        grid = np.pad(goal.reshape(len(xs), len(ys)), 1)
        inner = grid[:-2, 1:-1] & grid[2:, 1:-1] & grid[1:-1, :-2] & grid[1:-1, 2:]
        return np.asarray(points[goal & ~inner.ravel()])

    def in_view(self, points: np.ndarray) -> np.ndarray:
        """Which points may see the target: a corner of the grid cell each lies in sees some
        point of its outline past every wall (see the module's docstring)."""
        w = self.walkable
        i = np.floor((points[:, 0] - w.x0) / w.cell).astype(int)
        j = np.floor((points[:, 1] - w.y0) / w.cell).astype(int)
        seen = np.zeros(len(points), dtype=bool)
        for di in (0, 1):
            for dj in (0, 1):
                a, b = np.clip(i + di, 0, w.nx), np.clip(j + dj, 0, w.ny)
                seen |= self.view[a, b]
        return seen

    @cached_property
    def view(self) -> np.ndarray:
        """Per grid corner (nx + 1, ny + 1): whether a straight line on the floor plan reaches
        some point of the target's outline without crossing a wall (corners beyond reach and
        its last cell are left out)."""
        w = self.walkable
        view = np.zeros((w.nx + 1, w.ny + 1), dtype=bool)
        xs = w.x0 + np.arange(w.nx + 1) * w.cell
        ys = w.y0 + np.arange(w.ny + 1) * w.cell
        px, py = np.meshgrid(xs, ys, indexing="ij")
        near = self.to_hull(np.column_stack([px.ravel(), py.ravel()])) <= w.cell * 1.5
        near = near.reshape(view.shape)
        if not self.walls.any():
            return near
        outline = _outline(self.low, self.high, w.cell / 2)
        corners = np.argwhere(near)
        points = np.column_stack([xs[corners[:, 0]], ys[corners[:, 1]]])
        # The nearest point of the outline first: most corners see it, and need no more.
        nearest = np.clip(points, self.low, self.high)
        seen = np.asarray(~self._walled(points, nearest[:, None, :]).any(axis=1))
        rest = np.flatnonzero(~seen)
        if len(rest):
            every = np.broadcast_to(outline, (len(rest), *outline.shape))
            blocked = self._walled(points[rest], every)
            seen[rest] = (~blocked).any(axis=1)
        view[corners[:, 0], corners[:, 1]] = seen
        return view

    def _walled(self, points: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """For each point (n, 2) and each of its ends (n, m, 2): whether the line between
        crosses a wall cell, sampled every half cell (the end itself left out)."""
        w = self.walkable
        found = np.zeros(ends.shape[:2], dtype=bool)
        for start in range(0, len(points), 256):
            p, e = points[start : start + 256], ends[start : start + 256]
            lengths = np.hypot(*(e - p[:, None]).transpose(2, 0, 1))
            samples = max(2, math.ceil(float(lengths.max(initial=0.0)) / (w.cell / 2)) + 1)
            ts = np.linspace(0.0, 1.0, samples)[:-1]
            along = p[:, None, None] + ts[None, None, :, None] * (e - p[:, None])[:, :, None]
            i = np.floor((along[..., 0] - w.x0) / w.cell).astype(int)
            j = np.floor((along[..., 1] - w.y0) / w.cell).astype(int)
            ok = (i >= 0) & (i < w.nx) & (j >= 0) & (j < w.ny)
            walled = np.zeros(i.shape, dtype=bool)
            walled[ok] = self.walls[i[ok], j[ok]]
            found[start : start + 256] = walled.any(axis=2)
        return found

    def _last_leg(self, p: np.ndarray) -> float:
        """The shortest straight leg from p to the goal, less the lattice's half diagonal
        (inf: none in sight)."""
        if self.to_hull(p[None])[0] <= 0 and self.in_view(p[None])[0]:
            return 0.0  # already there
        if len(self.goals) == 0:
            return math.inf
        lengths = np.hypot(*(self.goals - p).T)
        order = np.argsort(lengths)
        for start in range(0, len(order), _BATCH):
            batch = order[start : start + _BATCH]
            clear = self._clear(p, self.goals[batch])
            if clear.any():
                return max(0.0, float(lengths[batch[int(np.argmax(clear))]]) - self.slack)
        return math.inf

    # --- sight and search ---------------------------------------------------------------

    def _clear(self, p: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """Whether the region holds each straight leg from p to `targets`."""
        if len(targets) == 0:
            return np.zeros(0, dtype=bool)
        lengths = np.hypot(*(targets - p).T)
        samples = max(2, math.ceil(float(lengths.max()) / self.step) + 1)
        ts = np.linspace(0.0, 1.0, samples)
        points = p[None, None, :] + ts[None, :, None] * (targets - p)[:, None, :]
        held = self.inside(points.reshape(-1, 2)).reshape(len(targets), samples)
        return np.asarray(held.all(axis=1))

    def _in_sight(self, p: np.ndarray) -> np.ndarray:
        if len(self.corners) == 0:
            return np.zeros(0, dtype=int)
        return np.flatnonzero(self._clear(p, self.corners))

    def _leg_of(self, corner: int) -> float:
        if corner not in self._legs:
            self._legs[corner] = self._last_leg(self.corners[corner])
        return self._legs[corner]

    def _sight_of(self, corner: int) -> np.ndarray:
        if corner not in self._sight:
            self._sight[corner] = self._in_sight(self.corners[corner])
        return self._sight[corner]

    def metres(self, x: float, y: float) -> float:
        """The shortest walk from (x, y) to the goal; inf where none leads."""
        start = np.array([x, y], dtype=float)
        if not self.inside(start[None])[0]:
            return math.inf
        corners = self.corners
        best: dict[int, float] = {_START: 0.0}
        heap = [(self._heuristic(start[None])[0], 0.0, _START)]
        done: set[int] = set()
        while heap:
            _, cost, node = heapq.heappop(heap)
            if node == _GOAL:
                return round(cost, 4)
            if node in done:
                continue
            done.add(node)
            here = start if node == _START else corners[node]
            leg = self._last_leg(here) if node == _START else self._leg_of(node)
            if math.isfinite(leg):
                heapq.heappush(heap, (cost + leg, cost + leg, _GOAL))
            seen = self._in_sight(here) if node == _START else self._sight_of(node)
            if len(seen) == 0:
                continue
            lengths = np.hypot(*(corners[seen] - here).T)
            ahead = self._heuristic(corners[seen])
            for k, length, h in zip(seen.tolist(), lengths.tolist(), ahead.tolist(), strict=True):
                total = cost + length
                if k not in done and total < best.get(k, math.inf):
                    best[k] = total
                    heapq.heappush(heap, (total + h, total, k))
        return math.inf

    def _heuristic(self, points: np.ndarray) -> np.ndarray:
        return np.maximum(self.to_hull(points) - self.slack, 0.0)


def _walls(walkable: Walkable, target: Prim, eye_m: float) -> np.ndarray:
    """The cells of prims that rise from the floor above the eye and the target."""
    scene = walkable.scene
    above = max(walkable.floor_z + eye_m, float(target.high[2]))
    tall = [
        k
        for k, prim in enumerate(scene.prims)
        if prim is not target and prim.low[2] <= walkable.floor_z + 0.1 and prim.high[2] >= above
    ]
    cells = np.isin(walkable.owner, tall) & (walkable.owner != NOTHING)
    return np.asarray(cells)


def _outline(low: np.ndarray, high: np.ndarray, spacing: float) -> np.ndarray:
    """Points every `spacing` around the box low..high (its corners included)."""
    (lx, ly), (hx, hy) = low, high
    nx = max(1, math.ceil((hx - lx) / spacing))
    ny = max(1, math.ceil((hy - ly) / spacing))
    xs, ys = np.linspace(lx, hx, nx + 1), np.linspace(ly, hy, ny + 1)
    sides = [
        np.column_stack([xs, np.full_like(xs, ly)]),
        np.column_stack([xs, np.full_like(xs, hy)]),
        np.column_stack([np.full_like(ys, lx), ys]),
        np.column_stack([np.full_like(ys, hx), ys]),
    ]
    return np.unique(np.concatenate(sides), axis=0)
