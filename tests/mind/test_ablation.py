"""The source's ablation conditions switch modules off."""

from __future__ import annotations

from datetime import timedelta

from simulacra.core import Observation
from simulacra.llm import ScriptedModel
from simulacra.mind import Ablation
from simulacra.mind.town import Agent, converse

from .conftest import KLAUS, MONDAY, MakeAgent, calls

NOON = MONDAY + timedelta(hours=12)


async def _pile_up_importance(make: MakeAgent, ablation: Ablation) -> Agent:
    agent = make(ablation=ablation)
    for i in range(16):
        await agent.memory.add("observation", f"something big happened ({i})", NOON, importance=10)
    return agent


async def test_full_agent_reflects_when_importance_piles_up(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    agent = await _pile_up_importance(make_agent, Ablation.FULL)
    await agent.reflect_if_due(NOON)
    assert calls(model, "reflect") >= 1


async def test_no_reflection_means_no_reflection_call_and_no_reflection_record(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    for ablation in (Ablation.NO_REFLECTION, Ablation.NO_REFLECTION_NO_PLANNING):
        agent = await _pile_up_importance(make_agent, ablation)
        assert await agent.reflect_if_due(NOON) == []
        assert all(r.kind != "reflection" for r in agent.memory.recent(100))
    assert calls(model, "reflect") == 0


async def test_no_reflection_keeps_reflections_out_of_interviews(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    agent = make_agent(ablation=Ablation.NO_REFLECTION)
    seen = await agent.memory.add("observation", "Klaus reads about cafes", NOON, importance=3)
    await agent.memory.add("reflection", "Klaus loves cafes", NOON, evidence=[seen.id])
    reply = await agent.interview("What does Klaus love?", NOON)
    assert reply.memory_ids == (seen.id,)


async def test_no_planning_means_no_plan_and_one_step_at_a_time(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    model.on("plan.now", lambda r: {"place": "Park", "activity": "feeding ducks", "minutes": 30})
    agent = make_agent(ablation=Ablation.NO_REFLECTION_NO_PLANNING)
    assert await agent.plan_day(MONDAY) == []
    night = await agent.current_action(MONDAY + timedelta(hours=2))
    assert night.description == "sleeping" and calls(model) == 0  # the routine's night: free
    step = await agent.current_action(NOON)
    assert (step.place, step.start, step.duration_min) == ("Park", NOON, 30)
    assert await agent.current_action(NOON + timedelta(minutes=20)) == step
    assert calls(model, "plan.now") == 1 and calls(model, "plan.daily") == 0
    assert all(r.kind != "plan" for r in agent.memory.recent(100))
    assert await agent.replan(NOON, "rain") == []


async def test_no_memory_means_no_observation_no_dialogue_and_nothing_recalled(
    model: ScriptedModel, make_agent: MakeAgent
) -> None:
    agent = make_agent(ablation=Ablation.NO_MEMORY)
    sights = ("the stove in the kitchen of Isabella's apartment is on",)
    for tick in range(3):
        now = NOON + timedelta(minutes=10 * tick)
        salient = await agent.perceive(now, Observation("isabella", "Isabella's apartment", sights))
        assert salient == []
    await converse(agent, make_agent(KLAUS), NOON, topic="the party", max_turns=2)
    assert len(agent.memory) == 0
    assert await agent.plan_day(MONDAY) == []
    reply = await agent.interview("What did you see today?", NOON)
    assert reply.memory_ids == ()
