"""The routine agent, the town's classical baseline: it keeps its persona's routine and passes
on what it hears; it calls no model."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from simulacra.core import Observation
from simulacra.embed import HashingEmbedder
from simulacra.experiments import ScenarioError, interview, load_scenario, run
from simulacra.memory import MemoryStream
from simulacra.mind.town import Persona, RoutineAgent
from simulacra.runlog import read_events

TOWN = Path(__file__).parents[2] / "scenarios" / "town.yaml"
MORNING = datetime(2024, 2, 14, 8, 0)
PLACES = ("Home", "Cafe", "College")


def person(agent: str, lifestyle: str = "", background: str = "") -> RoutineAgent:
    persona = Persona(
        id=agent,
        name=agent.title(),
        age=30,
        traits=["calm"],
        background=background or f"{agent.title()} lives here.",
        lifestyle=lifestyle,
        home="Home",
    )
    return RoutineAgent(persona, MemoryStream(agent, HashingEmbedder()), PLACES)


async def test_it_keeps_its_routine_and_works_where_its_persona_says() -> None:
    ann = person("ann", "Ann wakes up at 6am and goes to bed at 10pm.", "Ann runs the Cafe.")
    at = {
        hour: await ann.decide("act", Observation("ann", "Home"), MORNING.replace(hour=hour))
        for hour in (5, 6, 9, 12, 19, 23)
    }
    assert {h: (a.target, a.description) for h, a in at.items()} == {
        5: ("Home", "sleeping"),
        6: ("Home", "waking up and getting ready"),
        9: ("Cafe", "working"),
        12: ("Cafe", "having lunch"),
        19: ("Home", "having dinner and relaxing at home"),
        23: ("Home", "sleeping"),
    }


async def test_news_passes_on_once_in_a_conversation_and_is_answered_in_interviews() -> None:
    ann, bob, cy = person("ann"), person("bob"), person("cy")
    await ann.think("Party at the Cafe at 17:00.", MORNING, 9)
    here = Observation("ann", "Cafe", nearby_agents=("bob",))
    assert (await ann.decide("decide", here, MORNING)).target == "bob"
    await ann.converse(bob, MORNING, "passing on news")
    answer = await bob.interview("Any party?", MORNING)
    assert answer.answer == "Ann said: Party at the Cafe at 17:00."
    assert answer.memory_ids == (bob.news()[0].record,) and not answer.fallback
    # Told once: neither asks the other again; bob passes it on to someone new.
    assert await ann.decide("decide", here, MORNING) is None
    assert (
        await bob.decide("decide", Observation("bob", "Cafe", nearby_agents=("ann",)), MORNING)
        is None
    )
    await bob.converse(cy, MORNING, "")
    assert [n.said for n in cy.news()] == ["Party at the Cafe at 17:00."]
    assert (await cy.interview("Any party?", MORNING)).answer.startswith("Ann said: Party")
    assert (await person("dee").interview("Any party?", MORNING)).answer == (
        "I have not heard of anything."
    )


def test_a_routine_town_spreads_the_party_news_without_a_model(tmp_path: Path) -> None:
    sets = [
        "model.spec=scripted",
        "memory.embedder=hashing",
        "agents.mind=routine",
        "agents.count=10",  # Marta's husband and a friend among them
        f"output.root={tmp_path}",
        "output.report=false",
    ]
    done = run(load_scenario(TOWN, sets), progress=False)
    assert not list(read_events(done.events_path, {"llm.call"}))
    metrics = json.loads((done.path / "metrics.json").read_text())
    aware = [row["aware"] for row in metrics["diffusion"]]
    assert aware == sorted(aware) and aware[-1] >= 2  # Marta and at least one she told
    talks = list(read_events(done.events_path, {"conversation"}))
    assert talks and all("party" in json.dumps(t.data["turns"]).lower() for t in talks)
    # Interviewed after the run, an agent answers from its saved memory.
    told = metrics["diffusion"][-1]["agents"][-1]
    answer = interview(done.path, told, "Do you know of any party?")
    assert "Valentine's party at Hobbs Cafe" in answer.answer


def test_the_routine_mind_takes_no_ablation() -> None:
    try:
        load_scenario(TOWN, ["agents.mind=routine", "ablation=no_reflection"])
    except ScenarioError as refused:
        assert refused.problems[0].startswith("scenario.ablation: the routine mind calls no")
    else:
        raise AssertionError("a routine town with an ablation was accepted")
