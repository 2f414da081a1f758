"""Plans choose among the places an agent knows: Lena, who lives at Ivy House and works at
the Kiln and Canvas Studio, has never been to Hobbs Cafe. Her plans cannot send her there,
until someone tells her of a party at Hobbs Cafe at 17:00: then she knows the place, its
name joins the enum her plans choose from, and she goes."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from simulacra.core import Tick
from simulacra.embed import HashingEmbedder
from simulacra.llm import Request, ScriptedModel, load_model
from simulacra.memory import MemoryStream
from simulacra.mind import Ablation
from simulacra.mind.town import Agent, Persona
from simulacra.mind.town.plan_check import checked
from simulacra.mind.town.plan_prompts import DailyPlanOutput
from simulacra.mind.town.scripted import sociable
from simulacra.runlog import EventWriter, read_events
from simulacra.worlds.town import TownMap, TownWorld
from simulacra.worlds.town.map import read_map

MAP = Path(__file__).resolve().parents[2] / "scenarios" / "town" / "willow_bend.tmj"
TOWN = TownMap.model_validate(read_map(MAP))
MORNING = datetime(2024, 2, 14, 7, 0)
LENA = Persona(
    id="lena",
    name="Lena Kowalski",
    age=29,
    traits=["creative"],
    background="Lena is a painter who teaches classes at the Kiln and Canvas Studio.",
    lifestyle="Wakes at 7:00, paints at the Kiln and Canvas Studio, sleeps around 23:00.",
    home="Ivy House",
)
TOLD = "Marta told me: there is a party at Hobbs Cafe at 17:00 today."


def _tick(at: datetime) -> Tick:
    return Tick(1, at, at + timedelta(minutes=10), timedelta(minutes=10), True, False, False)


def _enum(agent: Agent) -> list[str]:
    schema = checked(DailyPlanOutput, agent.planner.rules).model_json_schema()
    return list(schema["$defs"]["Place"]["enum"])


@pytest.fixture
def model() -> ScriptedModel:
    scripted = load_model("scripted")
    assert isinstance(scripted, ScriptedModel)
    return sociable(scripted)


@pytest.fixture
def lena(model: ScriptedModel, tmp_path: Path) -> tuple[Agent, TownWorld, EventWriter]:
    sink = EventWriter(tmp_path / "events.jsonl")
    world = TownWorld(TOWN, MORNING)
    world.add_agent("lena", LENA.name, LENA.home, ["Kiln and Canvas Studio"])
    memory = MemoryStream("lena", HashingEmbedder(), model=model, sink=sink)
    agent = Agent(LENA, memory, model, places=TOWN.place_names, sink=sink)
    return agent, world, sink


async def test_an_agent_plans_only_among_the_places_it_knows_and_learns_one_it_is_told_of(
    model: ScriptedModel, lena: tuple[Agent, TownWorld, EventWriter]
) -> None:
    agent, world, sink = lena
    await agent.decide("plan", world.observe("lena", "plan", _tick(MORNING)), MORNING)
    # What the world says she knows: her home and her studio, nothing else.
    assert _enum(agent) == ["Ivy House", "Kiln and Canvas Studio"]
    assert {b.place for b in agent.planner.schedule.blocks} <= set(_enum(agent))

    # A reply that sends her to Hobbs Cafe is refused by the output model, retried, and the
    # declared fallback (what she had planned) runs instead.
    model.on(
        "plan.replan",
        lambda r: {"blocks": [{"start": "17:00", "place": "Hobbs Cafe", "activity": "party"}]},
    )
    before = model.ledger.total.fallbacks
    await agent.replan(MORNING + timedelta(hours=1), "a whim")
    assert model.ledger.total.fallbacks == before + 1
    assert "Hobbs Cafe" not in {b.place for b in agent.planner.schedule.blocks}

    # Told of the party: she knows the place by name (no rooms yet), and plans to go.
    sociable(model)  # the stand-in's own planner again: it lays appointments over the plan
    noon = MORNING + timedelta(hours=5)
    await agent.think(TOLD, noon)
    assert "Hobbs Cafe" in _enum(agent)
    assert agent.known.tree is not None and agent.known.tree["Hobbs Cafe"] == {}
    at_five = MORNING.replace(hour=17)
    assert agent.planner.schedule.block_at(at_five).place == "Hobbs Cafe"  # type: ignore[union-attr]
    sink.flush()
    learned = [e for e in read_events(sink.path) if e.kind == "place.learned"]
    assert [(e.agent, e.data["place"]) for e in learned] == [("lena", "Hobbs Cafe")]
    # Told again, nothing new is learned.
    assert agent.hear(TOLD, noon) == []


async def test_the_places_the_prompt_lists_are_the_known_ones(
    model: ScriptedModel, lena: tuple[Agent, TownWorld, EventWriter]
) -> None:
    agent, world, _ = lena
    prompts: list[str] = []

    def planner(request: Request) -> dict[str, Any]:
        prompts.append(request.messages[-1].text)
        return {"blocks": []}  # refused (under 5 blocks): the routine runs

    model.on("plan.daily", planner)
    await agent.decide("plan", world.observe("lena", "plan", _tick(MORNING)), MORNING)
    assert prompts and "Places: Ivy House, Kiln and Canvas Studio\n" in prompts[0]


def test_a_walk_past_shows_a_place_and_the_tree_survives_a_checkpoint(
    lena: tuple[Agent, TownWorld, EventWriter],
) -> None:
    agent, world, _ = lena
    agent.known.seen(world.known.tree("lena"))
    world.known.learn("lena", "Town Square", "fountain", ["fountain"])  # she saw it
    agent.known.seen(world.known.tree("lena"))
    assert agent.known.places() == ("Ivy House", "Town Square", "Kiln and Canvas Studio")
    assert agent.known.objects("Town Square") == ["fountain"]
    state = agent.state()
    agent.known.restore(None)
    assert agent.known.places() == tuple(TOWN.place_names)  # no spatial memory: the map
    agent.restore(state)
    assert agent.known.places() == ("Ivy House", "Town Square", "Kiln and Canvas Studio")


async def test_without_planning_the_next_step_is_still_among_the_known_places(
    model: ScriptedModel, tmp_path: Path
) -> None:
    sink = EventWriter(tmp_path / "events.jsonl")
    world = TownWorld(TOWN, MORNING)
    world.add_agent("lena", LENA.name, LENA.home, ["Kiln and Canvas Studio"])
    memory = MemoryStream("lena", HashingEmbedder(), model=model, sink=sink)
    agent = Agent(
        LENA, memory, model, ablation=Ablation.NO_REFLECTION_NO_PLANNING, places=TOWN.place_names
    )
    offered: list[list[str]] = []

    def step(request: Request) -> dict[str, Any]:
        assert request.output is not None
        offered.append(request.output.model_json_schema()["$defs"]["Place"]["enum"])
        return {"place": "Hobbs Cafe", "activity": "a coffee", "minutes": 30}

    model.on("plan.now", step)
    await agent.decide("plan", world.observe("lena", "plan", _tick(MORNING)), MORNING)
    late = MORNING.replace(hour=10)
    await agent.decide("decide", world.observe("lena", "decide", _tick(late)), late)
    # Each attempt offers her two places; the reply naming the cafe is refused every time.
    assert offered and all(o == ["Ivy House", "Kiln and Canvas Studio"] for o in offered)
    assert agent.current is not None and agent.current.place != "Hobbs Cafe"
