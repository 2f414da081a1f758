"""Perception and reaction: routine sights cost nothing; salient ones get one decision."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulacra.core import Observation
from simulacra.llm import Request, ScriptedModel
from simulacra.memory import rule_importance
from simulacra.mind.town import converse
from simulacra.mind.town.react_prompts import NOBODY, NOTHING
from simulacra.mind.town.schedule import PlanStep
from simulacra.mind.town.scripted import offered
from simulacra.runlog import EventWriter, read_events

from .conftest import ISABELLA, ISABELLA_DAY, KLAUS, MONDAY, MakeAgent, calls

NOON = MONDAY + timedelta(hours=12)
CAFE = "Hobbs Cafe"
SCENERY = ("the coffee machine in the kitchen of Hobbs Cafe is brewing",)
KLAUS_ARRIVES = "Klaus Mueller is in the cafe of Hobbs Cafe: reading a book"


def _talk(request: Request) -> dict[str, object]:
    return {"choice": "talk", "target": offered(request, "target")[0], "about": NOTHING}


async def _klaus_arrives(
    model: ScriptedModel, make_agent: MakeAgent
) -> tuple[Any, datetime, list[Any]]:
    """Isabella at the cafe, then Klaus coming in ten minutes later; the model would talk."""
    model.on("react.decide", _talk)
    agent = make_agent()
    await agent.perceive(NOON, Observation("isabella", CAFE, SCENERY))
    later = NOON + timedelta(minutes=10)
    seen = Observation("isabella", CAFE, (*SCENERY, KLAUS_ARRIVES), ("klaus",))
    return agent, later, await agent.perceive(later, seen)


async def test_routine_observations_cost_one_rating_and_no_decision(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    model.on("plan.daily", lambda r: ISABELLA_DAY)
    agent = make_agent()
    await agent.plan_day(MONDAY)
    before = calls(model)
    for tick in range(12):
        now = NOON + timedelta(minutes=10 * tick)
        salient = await agent.perceive(now, Observation("isabella", CAFE, SCENERY))
        decision = await agent.react(now, salient, nearby=())
        assert decision.choice == "continue" and not decision.fallback
    # The first look's sights are rated together, in one call; nothing else is asked.
    assert calls(model) == before + 1
    assert calls(model, "react.decide") == 0
    observations = [r for r in agent.memory.recent(50) if r.kind == "observation"]
    assert [r.text for r in observations] == list(SCENERY)  # stored once, not every tick
    assert {r.importance_source for r in observations} == {"scripted"}


async def test_a_salient_observation_gives_a_decision(
    model: ScriptedModel, make_agent: MakeAgent, events: EventWriter
) -> None:
    agent, later, salient = await _klaus_arrives(model, make_agent)
    assert [r.text for r in salient] == [KLAUS_ARRIVES]
    decision = await agent.react(later, salient, nearby=("klaus",))
    assert (decision.choice, decision.target) == ("talk", "klaus")
    assert calls(model, "react.decide") == 1
    events.flush()
    (logged,) = [e for e in read_events(events.path) if e.kind == "decision"]
    assert logged.data["choice"] == "talk" and logged.data["raw"]
    assert logged.agent == "isabella"
    # Only the news is an observation event; the scenery is in the log as its memory alone.
    noticed = [e.data["text"] for e in read_events(events.path, {"observation"})]
    assert noticed == [KLAUS_ARRIVES]
    stored = [e.data["text"] for e in read_events(events.path, {"memory.add"})]
    assert SCENERY[0] in stored and KLAUS_ARRIVES in stored


async def test_someone_talked_to_recently_is_not_worth_a_call(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    model.on("react.decide", _talk)
    isabella, klaus = make_agent(), make_agent(KLAUS)
    await converse(isabella, klaus, NOON, topic="the weather", max_turns=2)
    later = NOON + timedelta(minutes=30)
    await isabella.perceive(later, Observation("isabella", "Park", ()))
    salient = await isabella.perceive(
        later + timedelta(minutes=10),
        Observation(
            "isabella", "Park", ("Klaus Mueller is in the lawn of Park: jogging",), ("klaus",)
        ),
    )
    assert salient  # Klaus appearing is news ...
    decision = await isabella.react(later, salient, nearby=("klaus",))
    assert decision.choice == "continue"  # ... but they just talked: no call
    assert calls(model, "react.decide") == 0


async def test_a_replan_decision_rebuilds_the_rest_of_the_day(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    model.on("plan.daily", lambda r: ISABELLA_DAY)
    model.on(
        "react.decide",
        lambda r: {"choice": "replan", "target": NOBODY, "about": offered(r, "about")[0]},
    )
    agent = make_agent()
    await agent.plan_day(MONDAY)
    fire = Observation("isabella", CAFE, (), (), {"events": ["a fire breaks out in Hobbs Cafe"]})
    salient = await agent.perceive(NOON, fire)
    assert salient and salient[0].meta["event"] is True
    decision = await agent.react(NOON, salient, nearby=())
    assert decision.choice == "replan"
    assert calls(model, "plan.replan") == 1
    assert agent.planner.schedule.block_at(NOON) is not None


async def test_each_viewer_of_a_shared_sight_records_whom_it_names_but_itself(
    make_agent: MakeAgent,
) -> None:
    # Both see the same sentences at one place; the names each agent goes by come from the
    # world (`names`), as the town gives them.
    isabella, klaus = make_agent(ISABELLA), make_agent(KLAUS)
    waving = "Klaus Mueller is at Hobbs Cafe (counter): waving at Isabella Rodriguez"
    kettle = "the kettle in the kitchen of Hobbs Cafe is boiling"
    for agent, other in ((isabella, KLAUS), (klaus, ISABELLA)):
        seen = Observation(
            agent.id, CAFE, (waving, kettle), (other.id,), {"names": {other.id: other.name}}
        )
        await agent.perceive(NOON, seen)
    about = {
        agent.id: {r.text: r.meta["about"] for r in agent.memory.recent(10)}
        for agent in (isabella, klaus)
    }
    assert about == {
        "isabella": {waving: ["klaus"], kettle: []},
        "klaus": {waving: ["isabella"], kettle: []},
    }


async def test_talk_is_offered_only_when_someone_is_free_to_talk_to(
    model: ScriptedModel, make_agent: MakeAgent, events: EventWriter
) -> None:
    asked: list[Request] = []

    def react(request: Request) -> dict[str, object]:
        asked.append(request)
        return {"choice": "react", "target": NOBODY, "about": NOTHING}

    agent, later, salient = await _klaus_arrives(model, make_agent)
    model.on("react.decide", react)
    decision = await agent.react(later, salient, nearby=())  # Klaus has left: nobody to talk to
    assert (decision.choice, decision.target, decision.fallback) == ("react", None, False)
    (request,) = asked
    assert offered(request, "choice") == ["continue", "react", "replan"]
    events.flush()
    (logged,) = [e for e in read_events(events.path) if e.kind == "decision"]
    said = {"choice": "react", "target": NOBODY, "about": NOTHING}
    assert json.loads(logged.data.pop("raw")) == said  # the model's answer, kept as it came
    assert logged.data == {
        "purpose": "react.decide",
        "choice": "react",
        "parsed": said,
        "fallback": False,
    }


@pytest.mark.parametrize(("uses", "offers_wait"), [("coffee machine", True), ("kettle", False)])
async def test_wait_is_offered_only_when_what_the_step_uses_is_seen_busy(
    model: ScriptedModel, make_agent: MakeAgent, uses: str, offers_wait: bool
) -> None:
    # The coffee machine breaks: one whose step uses it may wait for it; one at the kettle
    # has nothing to wait for (offered wait for a fire at an oven it did not use, SmolLM2-135M
    # waited).
    asked: list[Request] = []

    def look(request: Request) -> dict[str, object]:
        asked.append(request)
        return {"choice": "continue", "target": NOBODY, "about": NOTHING}

    model.on("react.decide", look)
    agent = make_agent()
    agent.current = PlanStep(NOON, 60, CAFE, "making the morning drinks", object=uses)
    broken = "the coffee machine in the kitchen of Hobbs Cafe is broken"
    news = Observation("isabella", CAFE, (), (), {"events": [broken]})
    salient = await agent.perceive(NOON, news)
    await agent.react(NOON, salient, nearby=())
    (request,) = asked
    assert ("wait" in offered(request, "choice")) is offers_wait


async def test_whom_and_what_about_are_choices_from_the_people_present_and_the_memories(
    model: ScriptedModel, make_agent: MakeAgent, events: EventWriter
) -> None:
    asked: list[Request] = []

    def invite(request: Request) -> dict[str, object]:
        asked.append(request)
        party = next(t for t in offered(request, "about") if "party" in t)
        return {"choice": "talk", "target": "Klaus Mueller", "about": party}

    model.on("react.decide", invite)
    agent = make_agent()
    await agent.think("I am hosting a party at Hobbs Cafe at 17:00 today.", NOON)
    later = NOON + timedelta(minutes=10)
    names = {"names": {"klaus": "Klaus Mueller"}}
    seen = Observation("isabella", CAFE, (KLAUS_ARRIVES,), ("klaus",), names)
    decision = await agent.react(later, await agent.perceive(later, seen), ("klaus",))
    assert (decision.choice, decision.target) == ("talk", "klaus")
    assert decision.reason == "I am hosting a party at Hobbs Cafe at 17:00 today."
    (request,) = asked
    assert offered(request, "target") == ["Klaus Mueller", NOBODY]
    assert request.output is not None  # with someone free to talk to, talk is a choice
    assert "talk" in request.output.model_json_schema()["properties"]["choice"]["enum"]
    assert offered(request, "about")[-1] == NOTHING
    # The raw answer is logged with the decision; a name not offered is no decision.
    events.flush()
    (logged,) = [e for e in read_events(events.path) if e.kind == "decision"]
    assert '"Klaus Mueller"' in logged.data["raw"]
    model.on("react.decide", lambda r: {"choice": "talk", "target": "Ada", "about": NOTHING})
    again = later + timedelta(minutes=10)
    ada = Observation("isabella", CAFE, ("Ada is in the cafe of Hobbs Cafe: waving",), ("ada",))
    refused = await agent.react(again, await agent.perceive(again, ada), ("ada",))
    assert refused.choice == "continue" and refused.fallback


async def test_naming_someone_is_the_decision_to_talk_and_nobody_is_to_carry_on(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    agent = make_agent()
    answers = iter(
        [
            {"target": "klaus", "about": NOTHING, "choice": "continue"},
            {"target": NOBODY, "about": NOTHING, "choice": "talk"},
        ]
    )
    model.on("react.decide", lambda r: next(answers))
    decisions = []
    for minutes in (10, 20):
        now = NOON + timedelta(minutes=minutes)
        sight = f"Klaus Mueller is in the cafe of Hobbs Cafe: reading page {minutes}"
        seen = Observation("isabella", CAFE, (sight,), ("klaus",))
        decision = await agent.react(now, await agent.perceive(now, seen), ("klaus",))
        decisions.append((decision.choice, decision.target))
    assert decisions == [("talk", "klaus"), ("continue", None)]


BREWING = "Isabella Rodriguez is at Hobbs Cafe (cafe): brewing coffee"
SERVING = "Isabella Rodriguez is at Hobbs Cafe (cafe): serving customers"
SLEEPING = "Isabella Rodriguez is at Hobbs Cafe (cafe): sleeping"


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from([BREWING, SERVING, SLEEPING]), max_size=8))
def test_the_agent_perceives_itself_once_a_step_without_a_call(
    model: ScriptedModel, make_agent: MakeAgent, steps: list[str]
) -> None:
    """The source's agent perceives its own event: each change of step is a record, counted
    toward reflection as any sight is, never news and never rated by a call (the rule's)."""
    agent = make_agent()
    before = calls(model)

    async def look() -> None:
        for tick, doing in enumerate(steps):
            now = NOON + timedelta(minutes=10 * tick)
            seen = Observation("isabella", CAFE, (), facts={"doing": doing})
            assert await agent.perceive(now, seen) == []  # nothing to react to

    asyncio.run(look())
    assert calls(model) == before
    changes = [d for i, d in enumerate(steps) if i == 0 or steps[i - 1] != d]
    records = [r for r in agent.memory.recent(10) if r.kind == "observation"]
    assert [r.text for r in records] == changes  # once a step, not once a tick
    assert all(r.importance == rule_importance(r.text) for r in records)
    assert agent.memory.since_reflection == sum(r.importance for r in records)
