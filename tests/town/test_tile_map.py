"""The town on a tile map: the Tiled map read into its spatial tree, refused with the layer or
region named, walked along the shortest way around walls, and seen within sight."""

from __future__ import annotations

import copy
import json
import re
from collections import deque
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.town.tiny_tiles import ROWS, two_houses

from simulacra.core import Action, Tick
from simulacra.experiments import load_scenario
from simulacra.experiments.load import ScenarioError
from simulacra.worlds.town import TownMap, TownWorld
from simulacra.worlds.town.map import read_map
from simulacra.worlds.town.sight import SightConfig

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
WILLOW = SCENARIOS / "town" / "willow_bend.tmj"
START = datetime(2024, 2, 14, 7, 0)


def tiny() -> TownMap:
    return TownMap.model_validate(two_houses())


def run_ticks(world: TownWorld, count: int) -> list[dict[str, list[list[int]]]]:
    """Play `count` ten-minute ticks in the engine's order (begin, the frame written at the
    tick's end, advance); each frame's tiles walked, by agent."""
    frames = []
    for _ in range(count):
        now = world.now
        ten = timedelta(minutes=10)
        tick = Tick(1, now, now + ten, ten, False, False, False)
        world.begin(tick)
        frame = world.frame()
        frames.append({w["agent"]: w["tiles"] for w in frame.get("walks", [])})
        world.advance(tick)
    return frames


def neighbours(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def bfs_distance(rows: list[str], start: tuple[int, int], goal: tuple[int, int]) -> int | None:
    """The fewest steps, by a plain breadth-first search of the rows (the test's own oracle)."""
    seen, queue = {start: 0}, deque([start])
    while queue:
        x, y = queue.popleft()
        if (x, y) == goal:
            return seen[(x, y)]
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            inside = 0 <= ny < len(rows) and 0 <= nx < len(rows[0])
            if inside and rows[ny][nx] != "#" and (nx, ny) not in seen:
                seen[(nx, ny)] = seen[(x, y)] + 1
                queue.append((nx, ny))
    return None


# --- the map ------------------------------------------------------------------------------


def test_willow_bend_keeps_every_place_area_and_object_of_the_sketch() -> None:
    sketch = TownMap.model_validate(read_map(SCENARIOS / "town" / "map.yaml"))
    tiles = TownMap.model_validate(json.loads(WILLOW.read_text(encoding="utf-8")))
    assert tiles.problems() == []
    assert tiles.name == "Willow Bend" and tiles.tiles is not None

    def tree(town: TownMap) -> list[tuple[str, str, str, list[str]]]:
        return [
            (p.name, p.kind, a.name, [t.name for t in a.objects])
            for p in town.places
            for a in p.areas
        ]

    assert tree(tiles) == tree(sketch)
    states = {t.name: t.state for p in tiles.places for a in p.areas for t in a.objects}
    assert states["fountain"] == "running" and states["kiln"] == "cold"


def test_the_spatial_tree_is_read_from_which_rectangle_holds_which() -> None:
    town = tiny()
    west = town.place("West House")
    assert west is not None and west.kind == "home" and (west.w, west.h) == (9, 5)
    assert [(a.name, a.rect) for a in west.areas] == [
        ("bedroom", (1, 1, 3, 3)),
        ("kitchen", (5, 1, 3, 3)),
    ]
    assert [(t.name, t.at) for t in west.areas[1].objects] == [("stove", (7, 1))]
    assert town.tiles is not None and town.tiles.walls == [r.replace(".", ".") for r in ROWS]


@pytest.mark.parametrize(
    ("break_it", "named"),
    [
        (lambda m: m["layers"].pop(1), 'no layer named "collisions"'),
        (lambda m: m["layers"].pop(2), 'no layer named "sectors"'),
        (lambda m: m["layers"][0].update(type="objectgroup"), 'layer "floor" must be a tile'),
        (lambda m: m["layers"][1]["data"].pop(), 'layer "collisions": 113 tiles'),
        (lambda m: m["layers"][2]["objects"][0].update(name=""), 'layer "sectors": object'),
        (lambda m: m["layers"][2]["objects"][0].update(properties=[]), '"West House" has no kind'),
        (lambda m: m["layers"][3]["objects"][1].update(x=400), 'area "kitchen" lies inside no'),
        (lambda m: m["layers"][4]["objects"][0].update(y=400), 'object "bed" lies inside no'),
    ],
)
def test_a_map_missing_a_layer_or_a_region_is_refused_naming_it(break_it, named) -> None:  # type: ignore[no-untyped-def]
    broken = copy.deepcopy(two_houses())
    break_it(broken)
    with pytest.raises(ValueError, match=named):
        TownMap.model_validate(broken)


def test_an_area_walled_off_is_a_fault_naming_it() -> None:
    walled = two_houses()
    rows = [*ROWS]
    rows[2] = rows[2][:14] + "#" + rows[2][15:]  # the east house's inner door
    walled["layers"][1]["data"] = [2 if c == "#" else 0 for row in rows for c in row]
    faults = TownMap.model_validate(walled).problems()
    assert faults == [
        ("tiles.walls", "no walk from West House: bedroom reaches East House: bedroom")
    ]


def test_a_user_map_is_run_with_set_world_map_and_a_broken_one_refused(tmp_path: Path) -> None:
    good, bad = tmp_path / "mine.tmj", tmp_path / "broken.tmj"
    good.write_text(json.dumps(two_houses()), encoding="utf-8")
    broken = two_houses()
    del broken["layers"][3]
    bad.write_text(json.dumps(broken), encoding="utf-8")
    personas = [
        {
            "id": "ann",
            "name": "Ann",
            "age": 30,
            "home": "West House",
            "traits": ["calm"],
            "background": "Ann lives in the west house.",
        }
    ]
    raw = {
        "name": "tiny",
        "clock": {"start": "2024-02-14T07:00", "tick": "10m", "duration": "1h"},
        "world": {"kind": "town", "map": "town/willow_bend.tmj"},
        "agents": {"mind": "routine", "personas": personas},
    }
    scenario = load_scenario(raw, [f"world.map={good}"], base=SCENARIOS)
    assert scenario.world.map.place_names == ["West House", "East House"]  # type: ignore[union-attr]
    assert scenario.world.sight == SightConfig(radius=4, bandwidth=3, retention=5)  # type: ignore[union-attr]
    with pytest.raises(
        ScenarioError, match=re.escape('scenario.world.map: the map has no layer named "arenas"')
    ):
        load_scenario(raw, [f"world.map={bad}"], base=SCENARIOS)


# --- walking ------------------------------------------------------------------------------

FREE = sorted((x, y) for y, row in enumerate(ROWS) for x, c in enumerate(row) if c != "#")


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(FREE), st.sampled_from(FREE))
def test_a_path_is_shortest_and_steps_tile_by_tile_on_free_tiles(start, goal) -> None:  # type: ignore[no-untyped-def]
    grid = tiny().tiles
    assert grid is not None
    path = grid.path(start, goal)
    assert path is not None
    assert len(path) == bfs_distance(ROWS, start, goal)
    for a, b in zip((start, *path), path, strict=False):
        assert neighbours(a, b) and ROWS[b[1]][b[0]] != "#"
    assert (path[-1] if path else start) == goal


def test_an_agent_walks_out_the_front_door_along_the_street_and_in_the_other() -> None:
    world = TownWorld(tiny(), START, seconds_per_tile=60)  # a minute a tile: ticks split walks
    world.add_agent("ann", "Ann", "West House")
    assert world.agents["ann"].tile == (2, 2)  # the bedroom's middle
    outcome = world.apply(
        "ann", Action("do", "cooking", target="East House", args={"object": "stove"})
    )
    # Out the bedroom's door (2,4), along the street, in the kitchen's door (15,4) to (17,3).
    assert outcome.ok and outcome.facts["tiles"] == bfs_distance(ROWS, (2, 2), (17, 3)) == 20
    assert outcome.facts["travel_minutes"] == 20
    walks = run_ticks(world, 3)
    steps = [tuple(t) for frame in walks for t in frame.get("ann", [])]
    assert [len(frame.get("ann", [])) for frame in walks] == [10, 10, 0]  # ten a tick
    assert (2, 4) in steps and (15, 4) in steps  # through the doors: no wall crossed
    assert all(ROWS[y][x] != "#" for x, y in steps)
    assert all(neighbours(a, b) for a, b in zip([(2, 2), *steps], steps, strict=False))
    me = world.agents["ann"]
    assert (me.place, me.area, me.tile, me.trip) == ("East House", "kitchen", (17, 3), None)
    assert world.position("ann") == (17.5, 3.5)


def test_a_tick_s_frame_shows_a_walker_where_the_tick_leaves_it() -> None:
    """The engine writes a tick's frame before `advance` walks the agents; the frame is
    stamped at the tick's end, so it shows them as the tick leaves them (attendance reads it:
    one who arrives in a party's last tick is there)."""
    world = TownWorld(tiny(), START, seconds_per_tile=60)  # 20 tiles: two ticks' walk
    world.add_agent("ann", "Ann", "West House")
    world.apply("ann", Action("do", "cooking", target="East House", args={"object": "stove"}))
    seen = []
    for _ in range(2):
        now, ten = world.now, timedelta(minutes=10)
        tick = Tick(1, now, now + ten, ten, False, False, False)
        world.begin(tick)
        ann = world.frame()["agents"]["ann"]
        (tiles,) = [w["tiles"] for w in world.frame().get("walks", []) if w["agent"] == "ann"]
        world.advance(tick)
        # Where the frame put her is where the walk has brought her, its last tile walked.
        assert (ann["x"], ann["y"]) == world.position("ann")
        assert tuple(tiles[-1]) == world.agents["ann"].tile
        seen.append(ann["place"])
    assert seen == [None, "East House"]  # on the way as the first tick ends; there by the second


def test_moving_to_another_room_is_walked_within_the_tick() -> None:
    world = TownWorld(tiny(), START)
    world.add_agent("ann", "Ann", "West House")
    assert world.apply("ann", Action("do", "cooking", args={"object": "stove"})).ok
    (walk,) = world.frame()["walks"]
    walked = [tuple(t) for t in walk["tiles"]]
    assert walked[-1] == (7, 1) and (4, 2) in walked  # through the inner door
    assert world.agents["ann"].area == "kitchen"


# --- sight --------------------------------------------------------------------------------


def seen_by(world: TownWorld, agent: str) -> tuple[list[str], list[str]]:
    look = world.look(agent)
    return sorted(look.nearby_agents), list(look.texts)


def test_sight_takes_the_nearest_in_the_same_area_within_the_radius() -> None:
    rows = ["#" * 14, "#" + "." * 12 + "#", "#" + "." * 12 + "#", "#" * 14]
    hall = {
        "sectors": [("Hall", "cafe", (0, 0, 14, 4))],
        "arenas": [("west", (1, 1, 8, 2)), ("east", (9, 1, 4, 2))],
    }
    from tests.town.tiny_tiles import tiled

    town = TownMap.model_validate(tiled(rows, hall["sectors"], hall["arenas"]))
    world = TownWorld(town, START, SightConfig(radius=4, bandwidth=2, retention=5))
    for i in range(6):
        world.add_agent(f"a{i}", f"A{i}", "Hall")
    # Everyone starts near the west area's middle; put them where the test wants them.
    spots = {"a0": (1, 1), "a1": (2, 1), "a2": (3, 2), "a3": (5, 1), "a4": (8, 1), "a5": (9, 1)}
    for agent, tile in spots.items():
        area = "east" if tile[0] >= 9 else "west"
        world.agents[agent] = world.agents[agent].__class__(
            f"A{agent[1]}", "Hall", area, "standing", tile=tile
        )
    # a0 at (1,1): a1 one away, a2 two, a3 four (the radius), a4 seven (too far), a5 in the
    # east area. A bandwidth of 2 keeps a1 and a2.
    who, texts = seen_by(world, "a0")
    assert who == ["a1", "a2"]
    assert texts == ["A1 is at Hall (west): standing", "A2 is at Hall (west): standing"]
    # The same sights again are among its five latest: not perceived again, still in sight.
    who, texts = seen_by(world, "a0")
    assert who == ["a1", "a2"] and texts == []
    wide = TownWorld(town, START, SightConfig(radius=20, bandwidth=10, retention=0))
    wide.agents = world.agents
    assert seen_by(wide, "a0")[0] == ["a1", "a2", "a3", "a4"]  # never the other area's a5


def corridor() -> TownWorld:
    """One long room, 30 tiles: a stool at each end and one in the middle; sight of 4 tiles,
    nothing retained."""
    from tests.town.tiny_tiles import tiled

    rows = ["#" * 32, "#" + "." * 30 + "#", "#" + "." * 30 + "#", "#" * 32]
    town = TownMap.model_validate(
        tiled(
            rows,
            [("Hall", "cafe", (0, 0, 32, 4))],
            [("hall", (1, 1, 30, 2))],
            [("west stool", (1, 1)), ("east stool", (30, 1)), ("middle stool", (15, 2))],
        )
    )
    world = TownWorld(town, START, SightConfig(radius=4, bandwidth=3, retention=0))
    for agent in ("a", "b"):
        world.add_agent(agent, agent.upper(), "Hall")
    return world


def walk_to(world: TownWorld, agent: str, stool: str) -> None:
    assert world.apply(agent, Action("do", "sitting", args={"object": stool})).ok


def seated(world: TownWorld) -> TownWorld:
    """A at the west stool and B at the middle one, a tick after they walked there."""
    ten = timedelta(minutes=10)
    walk_to(world, "a", "west stool")
    walk_to(world, "b", "middle stool")
    world.advance(Tick(1, START, START + ten, ten, False, False, False))
    world.advance(Tick(2, START + ten, START + 2 * ten, ten, False, False, False))
    return world


def test_sight_is_over_the_walk_since_the_last_look_at_the_same_steps() -> None:
    ten = timedelta(minutes=10)
    world = seated(corridor())
    assert world.look("a").nearby_agents == ()  # 14 tiles apart: out of sight
    # A walks the corridor's length past B, who sits: it saw B on its way, though it ends
    # 15 tiles from B (perceived at every step, as the source does).
    walk_to(world, "a", "east stool")
    world.advance(Tick(3, START + 2 * ten, START + 3 * ten, ten, False, False, False))
    assert world.look("a").nearby_agents == ("b",)
    assert world.look("b").nearby_agents == ("a",)
    # Both walk east at once, A from the west end, B from the middle: A treads where B sat,
    # but B is 14 tiles ahead at every step, so neither sees the other.
    world = seated(corridor())
    walk_to(world, "b", "east stool")  # B first, to leave its stool free for A
    walk_to(world, "a", "middle stool")
    world.advance(Tick(3, START + 2 * ten, START + 3 * ten, ten, False, False, False))
    assert world.look("a").nearby_agents == () and world.look("b").nearby_agents == ()


# --- spatial memory -------------------------------------------------------------------------


def test_an_agent_knows_its_home_and_named_places_and_learns_what_it_sees() -> None:
    world = TownWorld(tiny(), START, seconds_per_tile=60)
    world.add_agent("ann", "Ann", "West House")
    world.add_agent("bob", "Bob", "East House", knows=["West House", "Nowhere"])
    assert world.known.tree("ann") == {"West House": {"bedroom": ["bed"], "kitchen": ["stove"]}}
    assert set(world.known.tree("bob")) == {"East House", "West House"}
    assert [(e["agent"], e["place"], e["area"]) for e in world.frame()["learned"]][:2] == [
        ("ann", "West House", "bedroom"),
        ("ann", "West House", "kitchen"),
    ]
    ann = TownWorld(tiny(), START)
    ann.add_agent("ann", "Ann", "West House")
    assert ann.apply(
        "ann", Action("do", "visiting", target="East House", args={"area": "kitchen"})
    ).ok
    run_ticks(ann, 1)
    ann.frame()
    before = ann.known.tree("ann")
    assert "East House" not in before  # arrived, but not yet looked around
    look = ann.look("ann")  # in the kitchen's middle (16, 2): the stove at (17, 3) is in sight
    assert look.facts["known"]["East House"] == {"kitchen": ["stove"]}
    assert ann.frame()["learned"] == [
        {"agent": "ann", "place": "East House", "area": "kitchen", "objects": ["stove"]}
    ]
