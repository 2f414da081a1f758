"""A town's tiles: how each looks (for drawing), which are walls, and the shortest walk between
two tiles on the rest (A*, four neighbours, one tile a step)."""

from __future__ import annotations

import functools
import heapq

from pydantic import BaseModel, ConfigDict, Field, model_validator

# One character a kind of floor tile in `floor`, an index into `palette`.
PALETTE_CHARS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

Tile = tuple[int, int]


class TileGrid(BaseModel):
    """Rows of the map, top first: `floor` draws (one character a tile, an index into
    `palette`'s colours, " " for none), `walls` blocks ("#" blocked, "." free)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    floor: list[str] = Field(min_length=1)
    palette: list[str] = Field(default_factory=list)
    walls: list[str] = Field(min_length=1)

    @model_validator(mode="after")
    def _same_shape(self) -> TileGrid:
        width = len(self.walls[0])
        if any(len(row) != width for row in self.walls + self.floor):
            raise ValueError("tiles: every row of floor and walls must be equally long")
        if len(self.floor) != len(self.walls):
            raise ValueError("tiles: floor and walls must have as many rows")
        return self

    @property
    def width(self) -> int:
        return len(self.walls[0])

    @property
    def height(self) -> int:
        return len(self.walls)

    @functools.cached_property
    def free(self) -> frozenset[Tile]:
        return frozenset(
            (x, y) for y, row in enumerate(self.walls) for x, c in enumerate(row) if c != "#"
        )

    @functools.cached_property
    def numbered(self) -> bytearray:
        """1 for a free tile, by number (x + 1) * (height + 2) + y + 1: the map in a frame of
        walls, so that a tile's neighbours are its number plus or minus one or a column."""
        column = self.height + 2
        found = bytearray((self.width + 2) * column)
        for x, y in self.free:
            found[(x + 1) * column + y + 1] = 1
        return found

    def within(self, tile: Tile) -> bool:
        return 0 <= tile[0] < self.width and 0 <= tile[1] < self.height

    def walkable(self, tile: Tile) -> bool:
        return tile in self.free

    def path(self, start: Tile, goal: Tile) -> tuple[Tile, ...] | None:
        """The tiles after `start` up to `goal`, fewest first; ties go the same way each time.
        None when no walk leads there."""
        return _path(self, start, goal)

    def reachable(self, start: Tile) -> set[Tile]:
        seen, frontier = {start}, [start]
        while frontier:
            x, y = frontier.pop()
            for nxt in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if nxt in self.free and nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        return seen

    def __hash__(self) -> int:  # frozen: the cache below keys on the grid
        return id(self)


@functools.lru_cache(maxsize=65536)  # agents walk the same ways day after day
def _path(grid: TileGrid, start: Tile, goal: Tile) -> tuple[Tile, ...] | None:
    """A* over tile numbers (column by column, a wall all round, so that a number's order is
    its tile's and a step is an addition): the same tiles tried in the same order as over
    (x, y) pairs, at half the cost of making and hashing a pair at every step."""
    if start == goal:
        return ()
    if goal not in grid.free or not grid.within(start):
        return None
    column, is_free = grid.height + 2, grid.numbered
    gx, gy = goal
    target = (gx + 1) * column + gy + 1
    first = (start[0] + 1) * column + start[1] + 1
    moves = ((column, 1, 0), (-column, -1, 0), (1, 0, 1), (-1, 0, -1))
    came: dict[int, int] = {}
    cost = {first: 0}
    queue = [(abs(start[0] - gx) + abs(start[1] - gy), 0, first)]
    while queue:
        _, steps, here = heapq.heappop(queue)
        if here == target:
            walk = [here]
            while walk[-1] in came:
                walk.append(came[walk[-1]])
            return tuple((n // column - 1, n % column - 1) for n in reversed(walk[:-1]))
        if steps > cost[here]:
            continue
        x, y = here // column - 1, here % column - 1
        further = steps + 1
        for step, dx, dy in moves:
            nxt = here + step
            if is_free[nxt] and further < cost.get(nxt, 1 << 30):
                cost[nxt] = further
                came[nxt] = here
                guess = further + abs(x + dx - gx) + abs(y + dy - gy)
                heapq.heappush(queue, (guess, further, nxt))
    return None
