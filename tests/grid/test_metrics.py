import pytest

from simulacra.runlog import Event
from simulacra.worlds.grid import Fire, Layout, grid_metrics
from simulacra.worlds.grid.metrics import fires_mentioned

LAYOUT = Layout(10, fires=(Fire("fire1", 1, (0, 0), 0.8, 2.0),), communication_distance=3.0)


def world(step: int, positions: dict[str, list[int]], perceived: dict[str, list[str]]) -> Event:
    data = {"step": step, "positions": positions, "occupancy": {}, "perceived": perceived}
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
    assert metrics["messages_per_step"] == [2, 1]
    assert metrics["senders_per_step"] == [2, 1]
    assert metrics["agents_within_fire_radius"] == {"fire1": [1, 1]}
    assert metrics["clustering"]["communication_components"] == [1, 1]
    assert metrics["clustering"]["mean_nearest_neighbour_distance"] == [3.0, 3.0]
    assert metrics["headline"] == {
        "steps": 2,
        "messages": 3,
        "agents_within_any_fire_radius_at_end": 1,
        "agents_in_places_at_end": 0,
        "warned_by_message_only": 2,
        "max_warning_hops": 2,
    }


def test_events_of_another_world_are_refused() -> None:
    with pytest.raises(ValueError, match="not a grid run's events"):
        grid_metrics([Event(0, None, 0.0, "run", None, {"scenario": "town"})])


def test_a_message_warns_only_about_fires_its_sender_knows() -> None:
    assert fires_mentioned("smoke to the north", ["fire1", "fire2"]) == {"fire1", "fire2"}
    assert fires_mentioned("fire2 is close", ["fire1", "fire2"]) == {"fire2"}
    assert fires_mentioned("nice cafe", ["fire1"]) == set()
    assert fires_mentioned("fire everywhere", []) == set()
