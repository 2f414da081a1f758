"""SPL's shortest path: no walk an agent can make is shorter. It goes round walls, it is the
straight line where nothing stands in the way, and a thousand walks made with the world's
own walker, aimed at the goal from the shipped starts, never beat it."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from simulacra.worlds.embodied.shipped import SHIPPED
from simulacra.worlds.embodied.shortest import ShortestPath
from simulacra.worlds.embodied.walkable import Geodesic, Walkable

EYE, REACH = 1.6, 1.5


def shortest_for(scene: Any, task: str, kind: str = "flat") -> tuple[Walkable, ShortestPath, Any]:
    walkable = Walkable(scene, cell=0.1, radius=0.25)
    spec = SHIPPED[kind].tasks[task]
    return walkable, ShortestPath(walkable, scene.index(spec.target), REACH, EYE), spec


def test_it_goes_round_walls(flat_scene: Any) -> None:
    _, shortest, task = shortest_for(flat_scene, "plant_far")  # from the bedroom, by a door
    straight = flat_scene.prim(task.target).distance_xy(task.start.x, task.start.y) - REACH
    assert shortest.metres(task.start.x, task.start.y) > straight + 0.5


def test_where_nothing_stands_between_it_is_the_straight_line(flat_scene: Any) -> None:
    walkable, shortest, task = shortest_for(flat_scene, "armchair_near")
    prim = flat_scene.prim(task.target)
    for x, y in ((2.5, 2.0), (3.0, 1.2), (task.start.x, task.start.y)):
        assert walkable.is_free(x, y)
        straight = prim.distance_xy(x, y) - REACH
        # Exact but for the goal's sampling: at most its half diagonal shorter.
        assert straight - shortest.slack - 1e-9 <= shortest.metres(x, y) <= straight + 1e-9
    inside = (float(prim.low[0]) - 1.0, float(prim.centre[1]))
    assert shortest.metres(*inside) == 0.0


def test_the_goal_leaves_out_only_what_is_behind_a_wall(flat_scene: Any) -> None:
    walkable, shortest, task = shortest_for(flat_scene, "fridge_far")
    prim = flat_scene.prim(task.target)
    # Within reach of the fridge but beyond the wall beside it: out of the goal.
    beyond = (5.0, 1.0)
    assert prim.distance_xy(*beyond) < REACH and walkable.is_free(*beyond)
    assert not shortest.in_view(np.array([beyond]))[0]
    # As near, in its own room: in.
    before = (8.3, 1.2)
    assert prim.distance_xy(*before) < REACH and walkable.is_free(*before)
    assert shortest.in_view(np.array([before]))[0]


def walk(
    walkable: Walkable, start: tuple[float, float], aims: list[tuple[float, float]]
) -> tuple[float, tuple[float, float]]:
    """The world's walker from `start` towards each aim in turn, 2 m at most a leg (the
    shipped limit), stopping where it is blocked; how far it went and where it ended."""
    x, y = start
    walked = 0.0
    for ax, ay in aims:
        for _ in range(20):
            dx, dy = ax - x, ay - y
            length = math.hypot(dx, dy)
            if length < 1e-6:
                break
            scale = min(1.0, 2.0 / length)
            step = walkable.walk(x, y, dx * scale, dy * scale)
            walked += step.moved_m
            x, y = step.x, step.y
            if step.blocked:
                break
    return walked, (x, y)


@pytest.mark.parametrize(
    ("kind", "task"),
    [("module", "logo"), *(("flat", t) for t in ("armchair_far", "plant_far", "fridge_near"))],
)
def test_no_walk_the_walker_makes_beats_it(
    module_scene: Any, flat_scene: Any, kind: str, task: str
) -> None:
    scene = module_scene if kind == "module" else flat_scene
    walkable, shortest, spec = shortest_for(scene, task, kind)
    start = walkable.nearest_free(spec.start.x, spec.start.y)
    bound = shortest.metres(*start)
    rng = np.random.default_rng(5)
    prim = scene.prim(spec.target)
    free = [walkable.centre(int(i), int(j)) for i, j in np.argwhere(walkable.free)]
    oracle = Geodesic(walkable, scene.index(spec.target), REACH)
    reached = 0
    for attempt in range(300):
        # Off to a random place or two (the first attempt goes straight), then down the
        # oracle's route from wherever the walk stopped: walks near the best and far from it.
        via = [free[rng.integers(len(free))] for _ in range(min(attempt, rng.integers(3)))]
        walked, here = walk(walkable, start, via)
        more, (x, y) = walk(walkable, here, oracle.waypoints(*here)[1:])
        walked += more
        if prim.distance_xy(x, y) <= REACH and shortest.in_view(np.array([[x, y]]))[0]:
            reached += 1
            assert walked >= bound - 1e-9, (via, walked, bound)
    assert reached >= 50  # the check is not vacuous
