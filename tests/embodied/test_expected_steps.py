"""What the estimate learns from an embodied pilot's progress (`expected_steps`): the
decisions the pilot made and those the whole run will make."""

from __future__ import annotations

from typing import Any

from simulacra.runlog import Event
from simulacra.worlds.embodied import expected_steps

TICKS = 10  # the run's


def _log(shortest: dict[str, float], last: dict[str, dict[str, Any]], step: int) -> list[Event]:
    run = {"scenario": "e", "seed": 0, "model": "scripted", "agents": {}, "clock": {}}
    run["world"] = {"kind": "embodied", "geodesic_m": shortest}
    return [
        Event(0, "2000-01-01T09:00:00", 0.0, "run", None, run),
        Event(1, "2000-01-01T09:00:00", 0.0, "world", None, {"step": step, "agents": last}),
    ]


def test_an_agent_goes_on_at_its_pace_then_stops() -> None:
    # 8 m to go, 2 m closed per decision over 2 decisions: 2 more moves, then its stop.
    events = _log({"a": 8.0}, {"a": {"steps": 2, "geodesic_m": 4.0, "done": True}}, step=2)
    assert expected_steps(events, TICKS) == (2, 2 + 2 + 1)


def test_an_agent_that_stopped_before_the_last_tick_has_decided_all_it_will() -> None:
    events = _log({"a": 8.0}, {"a": {"steps": 3, "geodesic_m": 0.5, "done": True}}, step=5)
    assert expected_steps(events, TICKS) == (3, 3)


def test_an_agent_that_closed_nothing_goes_on_to_the_last_tick() -> None:
    agents = {"a": {"steps": 4, "geodesic_m": 8.0}, "b": {"steps": 4, "geodesic_m": 1.0}}
    events = _log({"a": 8.0, "b": 30.0}, agents, step=4)
    # b: 29 m in 4 decisions, 1 m left: one move and its stop; far slower would be capped.
    assert expected_steps(events, TICKS) == (8, TICKS + 4 + 1 + 1)
    slow = _log({"a": 100.0}, {"a": {"steps": 4, "geodesic_m": 99.0}}, step=4)
    assert expected_steps(slow, TICKS) == (4, TICKS)


def test_a_log_of_another_world_says_nothing() -> None:
    run = {"scenario": "t", "seed": 0, "model": "m", "world": {}, "agents": {}, "clock": {}}
    assert expected_steps([Event(0, "2000-01-01T09:00:00", 0.0, "run", None, run)], TICKS) is None
