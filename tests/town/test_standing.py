"""Where agents stand on a tile map: one who uses an object someone else stands at takes the
free tile nearest it, so that no two agents who stand still share a tile while their area has
one free (the viewer draws each on its own tile; two on one tile covered each other's names)."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.town.tiny_tiles import two_houses

from simulacra.core import Action, Tick
from simulacra.worlds.town import TownMap, TownWorld

START = datetime(2024, 2, 14, 7, 0)
TEN = timedelta(minutes=10)
STOVE = (7, 1)  # the West House's stove, in the corner of its kitchen (x 5-7, y 1-3)


def world_of(*names: str) -> TownWorld:
    world = TownWorld(TownMap.model_validate(two_houses()), START)
    for name in names:
        world.add_agent(name.lower(), name, "West House")
    return world


def do(world: TownWorld, agent: str, **args: str) -> None:
    assert world.apply(agent, Action("do", "cooking", args=args)).ok


def beside(tile: tuple[int, int] | None, at: tuple[int, int]) -> bool:
    return tile is not None and abs(tile[0] - at[0]) + abs(tile[1] - at[1]) == 1


def test_who_uses_an_object_another_stands_at_takes_the_free_tile_beside_it() -> None:
    world = world_of("Ann", "Bob", "Cat", "Dan")
    do(world, "ann", object="stove")
    assert world.agents["ann"].tile == STOVE
    do(world, "ann")  # done with the stove, she stays where she stood
    do(world, "bob", object="stove")
    do(world, "bob")
    do(world, "cat", object="stove")
    tiles = [world.agents[a].tile for a in ("ann", "bob", "cat")]
    assert tiles[0] == STOVE and len(set(tiles)) == 3
    # Beside the stove, the nearer first: (6, 1) and (7, 2), both one step from it.
    assert beside(tiles[1], STOVE) and beside(tiles[2], STOVE)
    assert world.agents["cat"].object == "stove"
    # Once nobody stands at the stove, the next to use it stands at it.
    do(world, "ann", area="bedroom")
    do(world, "cat")
    do(world, "dan", object="stove")
    assert world.agents["dan"].tile == STOVE


# One agent's action: a place (None: where it is), an object there or none, or another room.
CHOICES = st.tuples(
    st.sampled_from(["ann", "bob", "cat", "dan"]),
    st.sampled_from([None, "West House", "East House"]),
    st.sampled_from([{"object": "stove"}, {"object": "bed"}, {}, {"area": "kitchen"}]),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(CHOICES, max_size=4), min_size=1, max_size=8))
def test_no_two_standing_agents_share_a_tile_while_their_area_has_one_free(
    ticks: list[list[tuple[str, str | None, dict[str, str]]]],
) -> None:
    """Four agents in two houses, each area nine tiles: whatever they do, tick after tick, no
    two who stand (not on their way) are on one tile."""
    world = world_of("Ann", "Bob", "Cat", "Dan")
    now = START
    for actions in ticks:
        tick = Tick(1, now, now + TEN, TEN, False, False, False)
        world.begin(tick)
        chosen = {a: Action("do", "busy", target=place, args=args) for a, place, args in actions}
        world.resolve("act", chosen, tick)
        world.advance(tick)
        now += TEN
        standing = Counter(w.tile for _, w in world.agents.items() if w.trip is None)
        assert [t for t, n in standing.items() if n > 1] == []
