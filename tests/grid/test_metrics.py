import pytest

from simulacra.runlog import Event
from simulacra.worlds.grid import Fire, Layout, Place, grid_metrics
from simulacra.worlds.grid.metrics import fires_mentioned

LAYOUT = Layout(10, fires=(Fire("fire1", 1, (0, 0), 0.8, 2.0),), communication_distance=3.0)


def world(
    step: int,
    positions: dict[str, list[int]],
    perceived: dict[str, list[str]],
    actions: dict[str, str] | None = None,
) -> Event:
    agents = {a: {"action": (actions or {}).get(a)} for a in positions}
    data = {
        "step": step,
        "positions": positions,
        "agents": agents,
        "occupancy": {},
        "perceived": perceived,
    }
    return Event(0, None, 0.0, "world", None, data)


def message(step: int, sender: str, recipient: str, text: str) -> Event:
    return Event(0, None, 0.0, "message", sender, {"to": [recipient], "text": text, "step": step})


def test_a_warning_relayed_along_a_chain_counts_its_hops() -> None:
    # a sees the fire; it warns b at step 1; b relays to c at step 2; c never sees it.
    positions = {"a": [0, 0], "b": [3, 0], "c": [6, 0]}
    metrics = grid_metrics(
        [
            Event(0, None, 0.0, "run", None, {"world": LAYOUT.to_dict()}),
            message(1, "a", "b", "fire1 is burning here"),
            message(1, "b", "c", "hello"),
            world(1, positions, {"fire1": ["a"]}),
            message(2, "b", "c", "heard of a fire"),
            world(2, positions, {"fire1": ["a"]}),
        ]
    )
    warnings = metrics["warnings"]["fire1"]
    assert warnings["by_sight"] == {"a": 1}
    assert warnings["by_message"] == {
        "b": {"step": 1, "hops": 1, "from": "a"},
        "c": {"step": 2, "hops": 2, "from": "b"},
    }
    assert warnings["by_message_only"] == ["b", "c"]
    assert warnings["max_hops"] == 2
    assert metrics["deliveries_per_step"] == [2, 1]
    assert metrics["senders_per_step"] == [2, 1]
    assert metrics["agents_within_fire_radius"] == {"fire1": [1, 1]}
    assert metrics["clustering"]["communication_components"] == [1, 1]
    assert metrics["clustering"]["mean_nearest_neighbour_distance"] == [3.0, 3.0]
    assert metrics["headline"] == {
        "steps": 2,
        "message_deliveries": 3,
        "messages_heard": 3,
        "agents_within_any_fire_radius_at_end": 1,
        "mean_exposure": 1.0,
        "agents_in_places_at_end": 0,
        "warned_by_message_only": 2,
        "max_warning_hops": 2,
        "nearest_neighbour_at_end": 3.0,
        "components_at_end": 1,
        "moves_towards_fire": 0,
        "moves_away_from_fire": 0,
        "places_entered": 0,
    }


def test_moves_towards_and_away_from_a_perceived_fire_into_places_and_changes_of_action() -> None:
    layout = Layout(
        10,
        places=(Place("cafe", "cafe", (6, 0), (1, 1), 5),),
        fires=(Fire("fire1", 1, (0, 0), 0.8, 3.0),),
    )
    start = {"a": [2, 0], "b": [0, 2], "c": [4, 0], "d": [9, 9]}
    one = {"a": [3, 0], "b": [0, 1], "c": [5, 0], "d": [9, 9]}
    two = {"a": [3, 1], "b": [0, 1], "c": [5, 1], "d": [9, 8]}
    perceived = {"fire1": ["a", "b"]}  # c and d are outside its radius
    metrics = grid_metrics(
        [
            Event(0, None, 0.0, "run", None, {"world": layout.to_dict()}),
            world(0, start, {}),
            world(1, one, perceived, {"a": "right", "b": "down", "c": "right", "d": "stay"}),
            world(2, two, {"fire1": ["a", "b"]}, {"a": "up", "b": "stay", "c": "up", "d": "down"}),
        ]
    )
    first, second = metrics["movement"]["per_step"]
    # a steps away from the fire, b towards it; c, who does not see it, walks into the cafe.
    assert (first["towards_fire"], first["away_from_fire"]) == (1, 1)
    assert (first["entered_place"], first["moved"], first["stayed"]) == (1, 3, 1)
    assert first["change_share"] is None  # nothing to compare the first step's actions with
    # Every agent changed what it did at step 2; a moved sideways, at a greater distance.
    assert (second["changed_action"], second["change_share"]) == (4, 1.0)
    assert (second["away_from_fire"], second["towards_fire"]) == (1, 0)
    headline = metrics["headline"]
    assert (headline["moves_towards_fire"], headline["moves_away_from_fire"]) == (1, 2)
    assert headline["away_share"] == pytest.approx(2 / 3, abs=1e-4)
    assert headline["change_rate"] == 1.0 and headline["places_entered"] == 1


def test_events_of_another_world_are_refused() -> None:
    with pytest.raises(ValueError, match="not a grid run's events"):
        grid_metrics([Event(0, None, 0.0, "run", None, {"scenario": "town"})])


def test_a_message_warns_only_about_fires_its_sender_knows() -> None:
    assert fires_mentioned("smoke to the north", ["fire1", "fire2"]) == {"fire1", "fire2"}
    assert fires_mentioned("fire2 is close", ["fire1", "fire2"]) == {"fire2"}
    assert fires_mentioned("nice cafe", ["fire1"]) == set()
    assert fires_mentioned("fire everywhere", []) == set()


def test_a_message_heard_by_two_is_two_deliveries_of_one_message() -> None:
    positions = {"a": [0, 0], "b": [3, 0], "c": [0, 3]}
    metrics = grid_metrics(
        [
            Event(0, None, 0.0, "run", None, {"world": LAYOUT.to_dict()}),
            message(1, "a", "b", "hello"),
            message(1, "a", "c", "hello"),
            world(1, positions, {}),
        ]
    )
    assert metrics["deliveries_per_step"] == [2] and metrics["senders_per_step"] == [1]
    headline = metrics["headline"]
    assert (headline["message_deliveries"], headline["messages_heard"]) == (2, 1)


def test_moves_are_measured_from_where_a_moved_fire_was_at_each_step() -> None:
    # a sees fire1 at (0, 0) and steps away from it at step 1; at step 2 the fire is moved
    # to (6, 0), and a steps away from it again: two moves away, none towards (measured from
    # the fire's last cell, the first move would count as towards it).
    def moved(step: int, positions: dict[str, list[int]], x: int) -> Event:
        event = world(step, positions, {"fire1": ["a"]})
        fire = {"name": "fire1", "start_step": 1, "x": x, "y": 0, "intensity": 0.8}
        event.data["fires"] = [{**fire, "radius": 9.0}]
        return event

    metrics = grid_metrics(
        [
            Event(0, None, 0.0, "run", None, {"world": LAYOUT.to_dict()}),
            world(0, {"a": [2, 0]}, {}),
            moved(1, {"a": [3, 0]}, 0),
            moved(2, {"a": [2, 0]}, 6),
        ]
    )
    summary = metrics["movement"]["summary"]
    assert (summary["away_from_fire"], summary["towards_fire"]) == (2, 0)
