"""Object states made by actions: the model writes, in the action it already decides, what
the object it uses is doing ("brewing coffee"); the rule's "in use" stands in where it wrote
none; whoever sees the object perceives that state, and nobody beyond sight does."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.town.tiny_tiles import tiled

from simulacra.core import Tick
from simulacra.embed import HashingEmbedder
from simulacra.llm import Request, ScriptedModel, load_model
from simulacra.memory import MemoryStream
from simulacra.mind.town import Agent, Persona
from simulacra.mind.town.scripted import sociable
from simulacra.runlog import EventWriter
from simulacra.worlds.town import TownMap, TownWorld
from simulacra.worlds.town.sight import SightConfig

START = datetime(2024, 2, 14, 9, 0)
ROWS = ["#" * 12, "#" + "." * 10 + "#", "#" + "." * 10 + "#", "#" * 12]
CAFE = TownMap.model_validate(
    tiled(
        ROWS,
        [("Cafe", "cafe", (0, 0, 12, 4))],
        [("counter", (1, 1, 10, 2))],
        [("espresso machine", (1, 1)), ("cash register", (10, 2))],
    )
)
MARTA = Persona(
    id="marta",
    name="Marta Okafor",
    age=38,
    traits=["warm"],
    background="Marta runs the Cafe.",
    lifestyle="Wakes at 6:30 and works at the Cafe until 18:00.",
    home="Cafe",
)
DAY = {
    "blocks": [
        {"start": "00:00", "place": "Cafe", "activity": "sleeping"},
        {"start": "07:00", "place": "Cafe", "activity": "waking up"},
        {"start": "09:00", "place": "Cafe", "activity": "counting the cash"},
        {"start": "10:00", "place": "Cafe", "activity": "serving coffee"},
        {"start": "22:00", "place": "Cafe", "activity": "sleeping"},
    ]
}


def _tick(at: datetime) -> Tick:
    return Tick(1, at, at + timedelta(minutes=10), timedelta(minutes=10), False, False, False)


def _world() -> TownWorld:
    world = TownWorld(CAFE, START, SightConfig(radius=4, bandwidth=3, retention=0))
    for agent, name, tile in (("marta", "Marta", (3, 1)), ("theo", "Theo", (4, 2))):
        world.add_agent(agent, name, "Cafe")
        world.agents[agent] = world.agents[agent].__class__(
            name, "Cafe", "counter", "standing", tile=tile
        )
    return world


@pytest.fixture
def model() -> ScriptedModel:
    scripted = load_model("scripted")
    assert isinstance(scripted, ScriptedModel)
    scripted.on("plan.daily", lambda r: DAY)
    return scripted


async def _marta(model: ScriptedModel, tmp_path: Path, world: TownWorld) -> Agent:
    sink = EventWriter(tmp_path / "events.jsonl")
    memory = MemoryStream("marta", HashingEmbedder(), model=model, sink=sink)
    agent = Agent(MARTA, memory, model, places=CAFE.place_names, sink=sink)
    await agent.decide("plan", world.observe("marta", "plan", _tick(START)), START)
    await agent.decide("decide", world.observe("marta", "decide", _tick(START)), START)
    return agent


async def test_the_state_the_model_writes_is_the_objects_and_others_in_sight_perceive_it(
    model: ScriptedModel, tmp_path: Path
) -> None:
    prompts: list[str] = []
    states = iter(["brewing coffee", ""])  # the first hour's state, then none written

    def actions(request: Request) -> dict[str, Any]:
        prompts.append(request.messages[-1].text)
        return {
            "actions": ["brewing coffee", "ringing up an order"],
            "object": "espresso machine",
            "state": next(states),
        }

    model.on("plan.actions", actions)
    world = _world()
    marta = await _marta(model, tmp_path, world)
    # The objects she knows at the Cafe, her home, are those her actions may use.
    assert "Objects here: espresso machine, cash register\n" in prompts[0]
    assert marta.current is not None
    assert (marta.current.object, marta.current.object_state) == (
        "espresso machine",
        "brewing coffee",
    )
    # Her act carries the state to the world; Theo, three tiles from the machine, sees it.
    act = await marta.decide("act", world.observe("marta", "act", _tick(START)), START)
    assert act is not None
    world.resolve("act", {"marta": act}, _tick(START))
    assert "the espresso machine in the counter of Cafe is brewing coffee" in (
        world.look("theo").texts
    )
    # Out of his sight (eight tiles away), he does not.
    world.agents["theo"] = world.agents["theo"].__class__(
        "Theo", "Cafe", "counter", "standing", tile=(9, 2)
    )
    assert not any("espresso" in t for t in world.look("theo").texts)
    # The hour's object and state hold for each of its actions.
    hour = {(s.object, s.object_state) for s in marta.planner.schedule.actions}
    assert hour == {("espresso machine", "brewing coffee")}
    # The next hour the model wrote no state: the rule's.
    later = await marta.planner.current_action(START + timedelta(hours=1), ["espresso machine"])
    assert (later.object, later.object_state) == ("espresso machine", "in use")


async def test_the_stand_in_writes_the_state_from_the_activity_and_the_object_it_offers(
    model: ScriptedModel, tmp_path: Path
) -> None:
    sociable(model)
    model.on("plan.daily", lambda r: DAY)
    world = _world()
    marta = await _marta(model, tmp_path, world)
    assert marta.current is not None
    # "counting the cash": the register shares a word with it; its state is the activity's.
    assert marta.current.object == "cash register"
    assert marta.current.object_state == "counting the cash"
    assert model.ledger.total.fallbacks == 0
