"""Checkpoints: an agent's state is JSON and restores to the same plan without a call."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from simulacra.llm import ScriptedModel
from simulacra.mind import call_seed
from simulacra.mind.town import Agent

from .conftest import ISABELLA, ISABELLA_DAY, MONDAY, PLACES, MakeAgent, calls


async def test_state_round_trips_through_json(model: ScriptedModel, make_agent: MakeAgent) -> None:
    model.on("plan.daily", lambda r: ISABELLA_DAY)
    agent = make_agent()
    await agent.plan_day(MONDAY)
    nine = MONDAY + timedelta(hours=9)
    step = await agent.current_action(nine)
    state = json.loads(json.dumps(agent.state()))
    before = calls(model)
    again = Agent(ISABELLA, agent.memory, model, places=PLACES, seed=agent.ctx.seed)
    again.restore(state)
    assert again.state() == agent.state()
    assert await again.current_action(nine + timedelta(minutes=1)) == step
    assert calls(model) == before


def test_call_seeds_follow_agent_seed_purpose_and_time() -> None:
    assert call_seed(7, "plan.daily", MONDAY) == call_seed(7, "plan.daily", MONDAY)
    others = {
        call_seed(8, "plan.daily", MONDAY),
        call_seed(7, "plan.hourly", MONDAY),
        call_seed(7, "plan.daily", MONDAY + timedelta(minutes=10)),
        call_seed(7, "plan.daily", MONDAY, salt="1"),
    }
    assert call_seed(7, "plan.daily", MONDAY) not in others and len(others) == 4


def test_a_home_outside_the_world_is_refused(model: ScriptedModel, make_agent: MakeAgent) -> None:
    agent = make_agent()
    with pytest.raises(ValueError, match="known places: Hobbs Cafe"):
        Agent(ISABELLA, agent.memory, model, places=("Hobbs Cafe",))
