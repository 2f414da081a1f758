"""Movement on the walkable floor: limits clamp and are recorded, walls and the floor's
edge stop a walk and are recorded, and geodesic distances."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from simulacra.worlds.embodied import Command, LimitsConfig
from simulacra.worlds.embodied.motion import move
from simulacra.worlds.embodied.render import View

LIMITS = LimitsConfig(move_m=2.0, turn_deg=90.0, pitch_step_deg=30.0, pitch_deg=60.0)
START = View(4.0, 20.1, 180.0, 0.0)


@pytest.fixture(scope="module")
def walkable(module_scene: Any) -> Any:
    from simulacra.worlds.embodied.walkable import Walkable

    return Walkable(module_scene, cell=0.1, radius=0.25)


def test_a_long_step_is_clamped_to_the_limit_and_recorded(walkable: Any) -> None:
    moved = move(START, Command(forward_m=5.0), LIMITS, walkable)
    assert moved.moved_m == pytest.approx(2.0)
    assert moved.view.x == pytest.approx(2.0)
    assert moved.clamps == ("move 5.00 m to 2 m (limits.move_m)",)


def test_turn_and_gaze_are_clamped_and_recorded(walkable: Any) -> None:
    moved = move(START, Command(turn_deg=-135.0, pitch_deg=80.0), LIMITS, walkable)
    assert moved.view.yaw == pytest.approx(90.0)  # 180 - 90
    assert moved.view.pitch == pytest.approx(30.0)
    assert len(moved.clamps) == 2
    higher = move(moved.view, Command(pitch_deg=30.0), LIMITS, walkable)
    again = move(higher.view, Command(pitch_deg=30.0), LIMITS, walkable)
    assert again.view.pitch == pytest.approx(60.0)
    assert again.clamps == ("gaze +90 deg to +60 (limits.pitch_deg)",)


def test_a_wall_stops_the_walk_as_a_collision(walkable: Any) -> None:
    # Facing the racks on the port side (-y), 1.6 m from them: a 2 m walk stops short.
    moved = move(View(1.7, 20.1, 270.0, 0.0), Command(forward_m=2.0), LIMITS, walkable)
    assert moved.boundary == "collision"
    assert moved.blocked_by == "rack"
    assert 1.0 < moved.moved_m < 2.0
    assert walkable.is_free(moved.view.x, moved.view.y)


def test_the_floor_edge_stops_the_walk_as_a_bound(tmp_path: Any) -> None:
    from simulacra.worlds.embodied.scene import scene_of
    from simulacra.worlds.embodied.walkable import Walkable

    from .scenes import open_floor

    walkable = Walkable(scene_of(open_floor(), "open"), cell=0.1, radius=0.25)
    moved = move(View(1.0, 1.0, 0.0, 0.0), Command(forward_m=2.0), LIMITS, walkable)
    assert moved.boundary == "bound"
    assert moved.view.x < 2.0


def test_stay_and_unreadable_commands_leave_the_pose(walkable: Any) -> None:
    assert move(START, Command(stay=True), LIMITS, walkable).view == START
    assert move(START, Command(readable=False), LIMITS, walkable).view == START


@settings(max_examples=60, deadline=None)
@given(
    st.floats(-20, 20),
    st.floats(-20, 20),
    st.floats(-720, 720),
    st.floats(-200, 200),
)
@example(0.0, 2.0, 0.25, 0.0)  # a sideways step whose last free point rounded into a rack
def test_clamps_hold_for_any_command(
    walkable: Any, forward: float, right: float, turn: float, pitch: float
) -> None:
    command = Command(forward_m=forward, right_m=right, turn_deg=turn, pitch_deg=pitch)
    moved = move(START, command, LIMITS, walkable)
    assert moved.moved_m <= LIMITS.move_m + 1e-6
    travelled = math.hypot(moved.view.x - START.x, moved.view.y - START.y)
    assert travelled <= LIMITS.move_m + 1e-3  # poses are kept to 0.1 mm
    assert abs(moved.turned_deg) <= LIMITS.turn_deg
    assert abs(moved.view.pitch) <= LIMITS.pitch_deg
    assert walkable.is_free(moved.view.x, moved.view.y)


def test_the_oracles_route_goes_round_walls(flat_scene: Any) -> None:
    from simulacra.worlds.embodied.shipped import SHIPPED
    from simulacra.worlds.embodied.walkable import Geodesic, Walkable

    walkable = Walkable(flat_scene, cell=0.1, radius=0.25)
    task = SHIPPED["flat"].tasks["plant_far"]  # from the bedroom, through a door
    geodesic = Geodesic(walkable, flat_scene.index(task.target), 1.5)
    points = geodesic.waypoints(task.start.x, task.start.y)
    straight = flat_scene.prim(task.target).distance_xy(task.start.x, task.start.y) - 1.5
    assert sum(math.dist(a, b) for a, b in itertools.pairwise(points)) > straight + 0.5
    assert all(walkable.clear_line(a, b) for a, b in itertools.pairwise(points))
    assert geodesic.at_goal(*points[-1])


def test_a_translation_said_before_a_turn_is_walked_in_the_old_heading(flat_scene: Any) -> None:
    from simulacra.worlds.embodied import interpret
    from simulacra.worlds.embodied.walkable import Walkable

    walkable = Walkable(flat_scene, cell=0.1, radius=0.25)
    start = View(3.0, 2.0, 0.0, 0.0)  # facing +x in the living room
    first = move(start, interpret("move forward 1 m, then turn left 90 degrees"), LIMITS, walkable)
    assert (first.view.x, first.view.y, first.view.yaw) == pytest.approx((4.0, 2.0, 90.0))
    assert first.describe(interpret("move forward 1 m, then turn left 90 degrees")).startswith(
        "moved 1.00 m, turned left 90 deg"
    )
    then = move(start, interpret("turn left 90 degrees, then move forward 1 m"), LIMITS, walkable)
    assert (then.view.x, then.view.y, then.view.yaw) == pytest.approx((3.0, 3.0, 90.0))
