from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulacra.core import Action, Intervenable, Tick
from simulacra.worlds.elfarol import BAR, HOME, ElFarolConfig, ElFarolWorld

TEN = [str(i) for i in range(10)]


def tick(step: int) -> Tick:
    week = timedelta(days=7)
    now = datetime(2000, 1, 6, 21) + (step - 1) * week
    return Tick(step, now, now + week, week, True, True, False)


def world(
    threshold: float = 0.6, memory_weeks: int = 5, history: tuple[float, ...] = ()
) -> ElFarolWorld:
    config = ElFarolConfig(threshold=threshold, memory_weeks=memory_weeks, history=history)
    return ElFarolWorld(config, TEN)


def week(w: ElFarolWorld, step: int, going: set[str]) -> dict[str, Any]:
    """Play one week in which the agents in `going` go and the rest stay home."""
    w.begin(tick(step))
    (phase,) = w.phases(tick(step))
    actions = {a: Action("go" if a in going else "stay") for a in w.agents}
    w.resolve(phase.name, actions, tick(step))
    frame = w.frame()
    w.advance(tick(step))
    return frame


def test_one_week_is_one_phase_in_which_every_agent_chooses() -> None:
    (phase,) = world().phases(tick(1))
    assert phase.name == "choose" and phase.minds


@pytest.mark.parametrize(
    ("threshold", "agents", "seats"), [(0.6, 100, 60), (0.6, 10, 6), (0.29, 100, 29), (0.65, 10, 6)]
)
def test_seats_are_the_threshold_share_of_the_agents_rounded_down(
    threshold: float, agents: int, seats: int
) -> None:
    assert ElFarolConfig(threshold=threshold).seats(agents) == seats


def test_the_bar_is_enjoyable_up_to_its_seats_and_crowded_beyond() -> None:
    w = world(threshold=0.6)  # 6 of 10
    first, second = week(w, 1, set(TEN[:6])), week(w, 2, set(TEN[:7]))
    assert (first["week"], first["attendance"], first["crowded"]) == (1, 6, False)
    assert (second["week"], second["attendance"], second["crowded"]) == (2, 7, True)


def test_an_action_outcome_tells_the_agent_where_it_was_and_how_full_the_bar() -> None:
    w = world()
    w.begin(tick(1))
    (phase,) = w.phases(tick(1))
    resolution = w.resolve(phase.name, {"0": Action("go"), "1": Action("stay")}, tick(1))
    assert resolution.outcomes["0"].ok
    assert resolution.outcomes["0"].facts == {"place": BAR, "attendance": 1, "crowded": False}
    assert resolution.outcomes["1"].facts["place"] == HOME


def test_an_unknown_action_is_refused_and_the_agent_stays_home() -> None:
    w = world()
    w.begin(tick(1))
    (phase,) = w.phases(tick(1))
    outcome = w.resolve(phase.name, {"0": Action("dance")}, tick(1)).outcomes["0"]
    assert not outcome.ok and "unknown action 'dance'" in outcome.reason
    assert w.frame()["attendance"] == 0 and w.where["0"] == HOME


def test_an_agent_sees_the_seats_and_only_its_last_memory_weeks_of_attendance() -> None:
    w = world(memory_weeks=3, history=(0.1, 0.2, 0.3, 0.4))
    facts = w.observe("0", "choose", tick(1)).facts
    assert facts == {"week": 1, "agents": 10, "seats": 6, "history": [2, 3, 4]}
    week(w, 1, {"0", "1", "2", "3", "4"})
    assert w.observe("0", "choose", tick(2)).facts["history"] == [3, 4, 5]


def test_before_the_first_week_no_attendance_is_reported() -> None:
    frame = world().frame()
    assert frame["attendance"] is None and frame["crowded"] is None
    assert {a["place"] for a in frame["agents"].values()} == {HOME}


def test_each_agent_is_drawn_inside_the_place_it_is_in() -> None:
    w = world()
    places = {p["name"]: p for p in w.layout()["places"]}
    assert set(places) == {BAR, HOME} and places[BAR]["capacity"] == 6
    frame = week(w, 1, {"0", "5", "9"})
    for agent, spot in frame["agents"].items():
        place = places[spot["place"]]
        assert spot["place"] == (BAR if agent in {"0", "5", "9"} else HOME)
        assert place["x"] < spot["x"] < place["x"] + place["w"]
        assert place["y"] < spot["y"] < place["y"] + place["h"]


def test_a_snapshot_restores_the_history_and_who_went() -> None:
    w = world(history=(0.4,))
    week(w, 1, {"0", "1"})
    copy = world()
    copy.restore(w.snapshot())
    assert copy.history == [4, 2] and copy.where == w.where and copy.week == 1


def test_the_world_takes_no_event_interventions() -> None:
    assert not isinstance(world(), Intervenable)


@given(st.lists(st.sampled_from(["go", "stay", "dance", None]), min_size=10, max_size=10))
def test_attendance_is_the_number_of_go_actions(choices: list[str | None]) -> None:
    w = world()
    w.begin(tick(1))
    (phase,) = w.phases(tick(1))
    actions = {a: Action(c) for a, c in zip(TEN, choices, strict=True) if c is not None}
    outcomes = w.resolve(phase.name, actions, tick(1)).outcomes
    going = choices.count("go")
    frame = w.frame()
    assert frame["attendance"] == going == w.history[-1]
    assert frame["crowded"] == (going > w.seats)
    assert sum(a["place"] == BAR for a in frame["agents"].values()) == going
    assert set(outcomes) == set(actions)
