from datetime import datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from simulacra.core import Action, Tick
from simulacra.worlds.grid import Fire, GridWorld, Layout, Place, Traits

CAFE = Place("cafe", "cafe", (-15, 0), (5, 5), 2)
LIBRARY = Place("library", "library", (15, 0), (5, 5), 10)
LAYOUT = Layout(half_size=25, places=(CAFE, LIBRARY), communication_distance=5.0)


def world(**positions: tuple[int, int]) -> GridWorld:
    return GridWorld(LAYOUT, {a: Traits("female") for a in positions}, positions)


def tick(step: int, last: int = 10) -> Tick:
    hour = timedelta(hours=1)
    now = datetime(2000, 1, 1) + (step - 1) * hour
    return Tick(step, now, now + hour, hour, step == 1, step == last, step == last)


def test_agents_in_the_same_place_can_talk() -> None:
    assert LAYOUT.can_communicate((-15, 0), (-12, 2))


def test_agents_across_a_place_boundary_cannot_talk_even_when_adjacent() -> None:
    # (-10, 0) is the cafe's right edge, (-9, 0) the cell just outside it.
    assert LAYOUT.place_at((-10, 0)) == CAFE and LAYOUT.place_at((-9, 0)) is None
    assert not LAYOUT.can_communicate((-10, 0), (-9, 0))


def test_agents_in_different_places_cannot_talk() -> None:
    layout = Layout(
        25, (Place("a", "cafe", (0, 0), (1, 1), 5), Place("b", "cafe", (3, 0), (1, 1), 5))
    )
    assert not layout.can_communicate((1, 0), (2, 0))


def test_agents_both_outside_within_range_can_talk() -> None:
    assert LAYOUT.can_communicate((0, 0), (3, 4))  # Euclidean distance exactly 5


def test_agents_both_outside_out_of_range_cannot_talk() -> None:
    assert not LAYOUT.can_communicate((0, 0), (4, 4))  # Euclidean 5.66 > 5


def test_chebyshev_metric_measures_the_larger_axis() -> None:
    layout = Layout(25, communication_distance=4, communication_metric="chebyshev")
    assert layout.can_communicate((0, 0), (4, 4))
    assert not layout.can_communicate((0, 0), (5, 0))


def test_neighbours_are_symmetric_and_keep_agent_order() -> None:
    w = world(a=(0, 0), b=(20, 20), c=(2, 0), d=(-12, 0))
    links = w.neighbours()
    assert links == {"a": ("c",), "b": (), "c": ("a",), "d": ()}


def test_a_full_place_refuses_entry_and_the_agent_stays() -> None:
    w = world(a=(-15, 0), b=(-14, 0), c=(-9, 0))
    outcome = w.apply("c", Action("move", target="left"))
    assert not outcome.ok
    assert "cafe is at capacity (2/2)" in outcome.reason
    assert w.positions["c"] == (-9, 0)


def test_moving_inside_a_full_place_is_allowed() -> None:
    w = world(a=(-15, 0), b=(-14, 0))
    assert w.apply("a", Action("move", target="up")).ok
    assert w.positions["a"] == (-15, 1)


def test_a_place_freed_earlier_in_the_step_admits_the_next_agent() -> None:
    w = world(a=(-10, 0), b=(-14, 0), c=(-9, 3))
    assert w.apply("a", Action("move", target="right")).ok  # a leaves the cafe
    assert w.apply("c", Action("move", target="left")).ok  # ... so c may enter
    assert w.occupancy()["cafe"] == 2


def test_moves_are_clamped_at_the_field_edge() -> None:
    w = world(a=(25, -25))
    assert w.apply("a", Action("move", target="right")).reason == "at the field boundary"
    assert w.apply("a", Action("move", target="down")).ok
    assert w.positions["a"] == (25, -25)


def test_fire_is_perceived_exactly_at_its_radius_and_not_beyond() -> None:
    fire = Fire("fire1", 3, (0, 0), 0.8, 5.0)
    layout = Layout(25, fires=(fire,))
    assert [s.distance for s in layout.perceived_fires((3, 4), 3)] == [5.0]
    assert layout.perceived_fires((4, 4), 3) == ()


def test_fire_is_not_perceived_before_its_start_step() -> None:
    layout = Layout(25, fires=(Fire("fire1", 3, (0, 0), 0.8, 5.0),))
    assert layout.perceived_fires((0, 0), 2) == ()
    assert len(layout.perceived_fires((0, 0), 3)) == 1


def test_the_frame_reports_fires_that_start_this_step() -> None:
    w = GridWorld(
        Layout(25, fires=(Fire("fire1", 2, (0, 0), 0.8, 5.0),)),
        {"a": Traits("male"), "b": Traits("female")},
        {"a": (9, 9), "b": (3, 4)},
    )
    w.begin(tick(1))
    assert (w.frame()["started"], w.frame()["fires"], w.frame()["perceived"]) == ([], [], {})
    w.advance(tick(1))
    w.begin(tick(2))
    frame = w.frame()
    assert (frame["started"], frame["fires"]) == (["fire1"], ["fire1"])
    assert frame["perceived"] == {"fire1": ["b"]}
    w.advance(tick(2))
    w.begin(tick(3))
    assert (w.frame()["started"], w.frame()["fires"]) == ([], ["fire1"])


def test_a_step_has_a_message_phase_then_an_action_phase() -> None:
    w = world(a=(0, 0), b=(3, 0), c=(20, 20))
    w.begin(tick(1))
    assert [p.name for p in w.phases(tick(1))] == ["message", "action"]
    said = w.resolve("message", {"a": Action("say", "hello")}, tick(1))
    assert [(e.payload.KIND, e.agent, e.payload.to_data()) for e in said.events] == [
        ("message", "a", {"to": ["b"], "text": "hello", "step": 1})
    ]
    heard = w.observe("b", "action", tick(1)).facts["received"]
    assert heard == [{"step": 1, "sender": "a", "text": "hello"}]
    assert "received" not in w.observe("b", "message", tick(1)).facts
    moved = w.resolve("action", {"b": Action("move", "move right", target="right")}, tick(1))
    assert moved.outcomes["b"].ok and moved.outcomes["b"].facts["to"] == [4, 0]


def test_snapshot_and_restore_bring_back_positions_and_refusals() -> None:
    w = world(a=(-15, 0), b=(-14, 0), c=(-9, 0))
    w.begin(tick(1))
    w.resolve("action", {"c": Action("move", "move left", target="left")}, tick(1))
    saved = w.snapshot()
    again = world(a=(0, 0), b=(1, 1), c=(2, 2))
    again.restore(saved)
    assert again.positions == w.positions and again.refusals == w.refusals
    assert again.refusals == {"c": "cafe is at capacity (2/2)"}
    assert again.observe("c", "message", tick(2)).facts["refusal"] == "cafe is at capacity (2/2)"


def test_layout_round_trips_through_the_run_event_dict() -> None:
    layout = Layout(25, (CAFE,), (Fire("f", 3, (1, 2), 0.5, 8.0),), 6.0, "chebyshev")
    assert Layout.from_dict(layout.to_dict()) == layout
    place = layout.to_dict()["places"][0]
    assert (place["x"], place["y"], place["w"], place["h"]) == (-20, -5, 11, 11)


directions = st.sampled_from(["up", "down", "left", "right"])
cells = st.tuples(st.integers(-25, 25), st.integers(-25, 25))


@given(start=cells, moves=st.lists(directions, max_size=60))
def test_agents_never_leave_the_field(start: tuple[int, int], moves: list[str]) -> None:
    w = world(a=start)
    for direction in moves:
        w.apply("a", Action("move", target=direction))
        assert all(abs(c) <= 25 for c in w.positions["a"])


@given(positions=st.lists(cells, min_size=1, max_size=30), moves=st.lists(directions, max_size=30))
def test_no_move_pushes_a_place_over_its_capacity(
    positions: list[tuple[int, int]], moves: list[str]
) -> None:
    outside = [p for p in positions if LAYOUT.place_at(p) is None]
    w = world(**{f"a{i}": p for i, p in enumerate(outside)})
    for i, direction in enumerate(moves):
        if w.agents:
            w.apply(w.agents[i % len(w.agents)], Action("move", target=direction))
    assert w.occupancy()["cafe"] <= CAFE.capacity


@given(a=cells, b=cells)
def test_communication_is_symmetric(a: tuple[int, int], b: tuple[int, int]) -> None:
    assert LAYOUT.can_communicate(a, b) == LAYOUT.can_communicate(b, a)
