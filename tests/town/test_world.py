from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulacra.core import Action, Tick
from simulacra.experiments import load_scenario
from simulacra.worlds.town import RoadGraph, TownMap, TownWorld
from simulacra.worlds.town.map import read_map

MAP = Path(__file__).resolve().parents[2] / "scenarios" / "town" / "map.yaml"
START = datetime(2024, 2, 14, 7, 0)
TOWN = TownMap.model_validate(read_map(MAP))
ROADS = RoadGraph(TOWN)


@pytest.fixture
def town() -> TownMap:
    return TOWN


@pytest.fixture
def world(town: TownMap) -> TownWorld:
    w = TownWorld(town, START)
    w.add_agent("marta", "Marta Okafor", "Alder Cottage")
    w.add_agent("daniel", "Daniel Okafor", "Alder Cottage")
    w.add_agent("theo", "Theo Brandt", "Grove Dormitory")
    return w


def go(place: str | None, description: str = "", **args: str) -> Action:
    return Action("do", description or "doing something", target=place, args=args)


def advance(world: TownWorld, minutes: int) -> None:
    """Move the world's clock on by `minutes`, as the engine does at the end of a tick."""
    now = world.now
    later = now + timedelta(minutes=minutes)
    world.advance(Tick(1, now, later, timedelta(minutes=minutes), False, False, False))


def tick(start: bool = False, end: bool = False, last: bool = False) -> Tick:
    return Tick(1, START, START + timedelta(minutes=10), timedelta(minutes=10), start, end, last)


def test_the_shipped_map_has_no_faults(town: TownMap) -> None:
    assert town.problems() == []
    assert {"home", "cafe", "college", "store", "park", "bar"} <= {p.kind for p in town.places}


def test_travel_time_is_the_quickest_route_over_the_roads(town: TownMap) -> None:
    roads = RoadGraph(town)
    route = roads.route("Alder Cottage", "Hobbs Cafe")
    # Via Birch House 3 + 6 = 9 beats Hazel House and Ivy House 3 + 3 + 4 = 10.
    assert route.stops == ("Alder Cottage", "Birch House", "Hobbs Cafe")
    assert route.minutes == 9
    assert roads.minutes("Hobbs Cafe", "Hobbs Cafe") == 0


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_travel_times_are_symmetric_and_obey_the_triangle_inequality(data: st.DataObject) -> None:
    a, b, c = (data.draw(st.sampled_from(TOWN.place_names)) for _ in range(3))
    assert ROADS.minutes(a, b) == ROADS.minutes(b, a)
    assert ROADS.minutes(a, c) <= ROADS.minutes(a, b) + ROADS.minutes(b, c)


def test_an_agent_is_on_the_way_for_the_travel_minutes_then_arrives(world: TownWorld) -> None:
    outcome = world.apply("marta", go("Hobbs Cafe", "opening the cafe", object="espresso machine"))
    assert outcome.ok and outcome.facts["travel_minutes"] == 9
    assert world.frame()["agents"]["marta"]["place"] is None
    assert world.look("marta").place == "on the way to Hobbs Cafe"
    advance(world, 5)
    midway = world.frame()["agents"]["marta"]
    assert midway["place"] is None and midway["action"] == "walking to Hobbs Cafe"
    advance(world, 5)
    arrived = world.frame()["agents"]["marta"]
    assert (arrived["place"], arrived["area"], arrived["action"]) == (
        "Hobbs Cafe",
        "cafe",
        "opening the cafe",
    )
    cafe = next(p for p in world.layout()["places"] if p["name"] == "Hobbs Cafe")
    assert cafe["x"] <= arrived["x"] <= cafe["x"] + cafe["w"]


def test_an_unknown_place_is_rejected_with_a_reason(world: TownWorld) -> None:
    outcome = world.apply("marta", go("Hobs Cafe"))
    assert not outcome.ok
    assert 'unknown place "Hobs Cafe"' in outcome.reason
    assert 'did you mean "Hobbs Cafe"' in outcome.reason
    assert world.agents["marta"].place == "Alder Cottage"


def test_an_object_that_is_not_there_is_rejected_with_what_is_there(world: TownWorld) -> None:
    outcome = world.apply("marta", go("Alder Cottage", object="espresso machine"))
    assert not outcome.ok
    assert 'unknown object "espresso machine"' in outcome.reason
    assert "stove" in outcome.reason


def test_an_unknown_action_kind_is_rejected(world: TownWorld) -> None:
    outcome = world.apply("marta", Action("fly", target="Hobbs Cafe"))
    assert not outcome.ok and "fly" in outcome.reason


def test_using_an_object_changes_its_state_until_the_agent_stops(world: TownWorld) -> None:
    assert world.apply("marta", go(None, "cooking breakfast", object="stove", state="cooking")).ok
    assert world.frame()["objects"] == {"Alder Cottage: stove": "cooking"}
    assert world.apply("marta", go(None, "reading", object="sofa")).ok
    assert "Alder Cottage: stove" not in world.frame()["objects"]


def test_an_object_in_use_by_someone_else_is_rejected(world: TownWorld) -> None:
    assert world.apply("marta", go(None, "cooking", object="stove", state="cooking")).ok
    outcome = world.apply("daniel", go(None, "frying eggs", object="stove", state="frying"))
    assert not outcome.ok and "in use by Marta Okafor" in outcome.reason


def test_agents_perceive_people_at_their_place_and_object_states_in_their_area(
    world: TownWorld,
) -> None:
    world.apply("marta", go(None, "cooking breakfast", object="stove", state="cooking"))
    world.apply("daniel", go(None, "making coffee", area="kitchen"))
    seen = world.look("daniel")
    assert seen.nearby_agents == ("marta",)
    assert "Marta Okafor is at Alder Cottage (kitchen): cooking breakfast" in seen.texts
    assert "the stove in the kitchen of Alder Cottage is cooking" in seen.texts
    assert seen.facts["names"] == {"marta": "Marta Okafor"}
    assert "stove" in seen.facts["objects"]
    assert world.look("theo").nearby_agents == ()
    # Each sees itself as others see it (the source's agent perceives its own event).
    assert seen.facts["doing"] == "Daniel Okafor is at Alder Cottage (kitchen): making coffee"
    assert "Daniel Okafor" not in " ".join(seen.texts)


def test_a_world_event_is_announced_to_those_present_until_the_clock_moves(
    world: TownWorld,
) -> None:
    assert world.set_object("Alder Cottage", "stove", "on fire").ok
    world.announce("Alder Cottage", "smoke pours out of the kitchen")
    assert world.look("daniel").facts["events"] == ["smoke pours out of the kitchen"]
    assert world.look("theo").facts["events"] == []
    advance(world, 10)
    assert world.look("daniel").facts["events"] == []
    assert world.frame()["objects"] == {"Alder Cottage: stove": "on fire"}


def test_snapshot_and_restore_give_back_the_same_world(world: TownWorld, town: TownMap) -> None:
    world.apply("marta", go("Hobbs Cafe", object="oven", state="baking"))
    world.apply("daniel", go(None, "cooking", object="stove", state="cooking"))
    advance(world, 4)
    copy = TownWorld(town, START)
    copy.restore(world.snapshot())
    assert copy.snapshot() == world.snapshot()
    assert copy.frame() == world.frame()


def test_map_faults_name_the_field_and_the_fix(town: TownMap) -> None:
    raw = town.model_dump()
    raw["roads"].append({"between": ["Hobbs Cafe", "Moon Base"], "minutes": 3})
    raw["places"].append({**raw["places"][0], "name": "Lonely Hut"})
    problems = TownMap.model_validate(raw).problems()
    assert any(path.startswith("roads[") and "Moon Base" in msg for path, msg in problems)
    raw["roads"].pop()
    problems = TownMap.model_validate(raw).problems()
    assert problems == [("roads", "no road reaches Lonely Hut from Alder Cottage; add a road")]


def test_a_scenario_with_a_map_fault_is_refused(town: TownMap) -> None:
    raw_map = town.model_dump()
    raw_map["places"].append({**raw_map["places"][1]})
    scenario = {
        "name": "t",
        "world": {"kind": "town", "map": raw_map},
        "agents": {
            "personas": [
                {
                    "id": "a",
                    "name": "A",
                    "age": 1,
                    "traits": [],
                    "background": "",
                    "home": "Alder Cottage",
                }
            ]
        },
        "clock": {"start": "2024-02-14T07:00", "duration": "1h"},
    }
    with pytest.raises(ValueError, match=r"scenario.world.map.places\[16\].name: duplicate place"):
        load_scenario(scenario)


def test_a_tick_plans_at_the_day_start_and_sums_up_at_its_end_but_the_last(
    world: TownWorld,
) -> None:
    names = lambda t: [p.name for p in world.phases(t)]  # noqa: E731
    assert names(tick()) == ["decide", "act", "reflect"]
    assert names(tick(start=True)) == ["plan", "decide", "act", "reflect"]
    assert names(tick(end=True)) == ["decide", "act", "reflect", "summarize"]
    assert names(tick(end=True, last=True))[-1] == "reflect"
    assert {p.name: p.order for p in world.phases(tick())}["act"] == "seeded"


def test_talkers_are_paired_once_each_and_only_with_someone_at_their_place(
    world: TownWorld,
) -> None:
    ask = {
        "marta": Action("talk", "the party", target="daniel"),
        "daniel": Action("talk", "breakfast", target="marta"),
        "theo": Action("talk", "music", target="marta"),  # he is at his dormitory
    }
    resolution = world.resolve("decide", ask, tick())
    assert [(e.first, e.second, e.topic) for e in resolution.encounters] == [
        ("marta", "daniel", "the party")
    ]
    seen = world.observe("daniel", "act", tick())
    assert seen.facts == {"talking_with": "marta", "partner_name": "Marta Okafor"}
    assert world.observe("theo", "act", tick()).facts == {}
    advance(world, 10)
    assert world.observe("daniel", "act", tick()).facts == {}


def test_the_act_phase_logs_an_action_once_until_it_changes(world: TownWorld) -> None:
    cooking = go(None, "cooking", object="stove", state="cooking")
    first = world.resolve("act", {"marta": cooking}, tick()).outcomes["marta"]
    again = world.resolve("act", {"marta": cooking}, tick()).outcomes["marta"]
    assert first.logged and first.facts["object"] == "stove" and not again.logged
    refused = world.resolve("act", {"daniel": cooking}, tick()).outcomes["daniel"]
    assert not refused.ok and refused.logged and "in use by Marta Okafor" in refused.reason
    assert world.frame()["agents"]["daniel"]["action"] == "cooking"  # without the stove
    assert world.agents["daniel"].object is None
