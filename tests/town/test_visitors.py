"""A visitor in the town: seen by those at the same place as they see each other, heard by
all there, answered only by the agent spoken to when that agent is there; kept in a
checkpoint."""

from __future__ import annotations

from datetime import timedelta

from tests.town.test_world import START, TOWN

from simulacra.core import Address, Tick
from simulacra.worlds.town import TownWorld
from simulacra.worlds.town.visitors import change_problem

TICK = Tick(1, START, START + timedelta(minutes=10), timedelta(minutes=10), True, False, False)
VERA = {"visitor": "Vera", "description": "a tall woman in a green coat"}


def _world() -> TownWorld:
    world = TownWorld(TOWN, START)
    world.add_agent("marta", "Marta Okafor", "Alder Cottage")
    world.add_agent("theo", "Theo Brandt", "Grove Dormitory")
    return world


def test_a_visitor_is_seen_heard_and_answered_where_they_are() -> None:
    world = _world()
    world.intervene({**VERA, "place": "Alder Cottage", "text": "Vera arrives"}, TICK)
    here, there = world.look("marta"), world.look("theo")
    seen = "Vera (a tall woman in a green coat) is at Alder Cottage: visiting"
    assert seen in here.texts and seen not in there.texts
    assert "person" not in " ".join(here.texts)
    assert "visitor:vera" not in here.nearby_agents  # talk targets stay agents
    said = world.intervene({"visitor": "Vera", "to": "marta", "text": "Is the cafe open?"}, TICK)
    assert list(said.addresses) == [
        Address("marta", "visitor:vera", "Vera", VERA["description"], "Is the cafe open?")
    ]
    assert 'Vera says to Marta Okafor: "Is the cafe open?"' in world.look("marta").facts["events"]
    # Theo is elsewhere: everyone at Alder Cottage hears it, and nobody answers.
    far = world.intervene({"visitor": "Vera", "to": "theo", "text": "Hello?"}, TICK)
    assert not far.addresses
    assert 'Vera says to Theo Brandt: "Hello?"' in world.look("marta").facts["events"]
    assert not world.look("theo").facts["events"]


def test_a_visitor_moves_keeps_their_description_and_survives_a_checkpoint() -> None:
    world = _world()
    world.intervene({**VERA, "place": "Alder Cottage", "text": "Vera arrives"}, TICK)
    world.intervene({"visitor": "Vera", "place": "Grove Dormitory", "text": "Vera walks in"}, TICK)
    assert any(t.startswith("Vera (a tall woman") for t in world.look("theo").texts)
    assert world.frame()["visitors"][0]["place"] == "Grove Dormitory"
    copy = _world()
    copy.restore(world.snapshot())
    assert copy.frame()["visitors"] == world.frame()["visitors"]
    assert "visitors" not in _world().frame()  # a run without visitors logs as before


def test_a_malformed_visitor_change_is_named() -> None:
    places, agents = TOWN.place_names, ["marta"]
    assert change_problem({"visitor": "", "place": "Alder Cottage"}, places, agents)
    assert "either place" in change_problem({"visitor": "Vera"}, places, agents)
    assert "no place" in change_problem({"visitor": "Vera", "place": "Atlantis"}, places, agents)
    assert "no agent" in change_problem({"visitor": "Vera", "to": "zed"}, places, agents)
    assert "unknown field" in change_problem({"visitor": "V", "fly": 1}, places, agents)
    assert change_problem({"visitor": "Vera", "to": "marta"}, places, agents) == ""
