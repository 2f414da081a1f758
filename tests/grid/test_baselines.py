"""The rule agent, the grid's classical baseline (flees a fire it sees, warns once, otherwise
keeps its course), and the scripted grid on the source's prompts with and without our extras."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from simulacra.core import Observation
from simulacra.experiments import load_scenario, run
from simulacra.mind.grid import RuleAgent
from simulacra.runlog import read_events
from simulacra.runlog.compare import without_wall

from .conftest import HAZARD, scenario

NOON = datetime(2000, 1, 1, 12)
FIRE = {"name": "fire1", "position": [0, 0], "intensity": 0.8, "radius": 5, "distance": 3.0}


def facts(step: int, position: list[int], **extra: Any) -> dict[str, Any]:
    return {"step": step, "position": position, "half_size": 10, "fires": [], **extra}


async def act(agent: RuleAgent, phase: str, **state: Any) -> Any:
    return await agent.decide(phase, Observation(agent.id, "", facts=facts(**state)), NOON)


async def test_it_flees_the_nearest_fire_it_sees_along_the_farther_axis() -> None:
    agent = RuleAgent("a", seed=1)
    away = await act(agent, "action", step=1, position=[3, 1], fires=[FIRE])
    assert (away.kind, away.target) == ("move", "right")
    # With no fire in sight it keeps the heading it fled along.
    onward = await act(agent, "action", step=2, position=[4, 1])
    assert onward.target == "right"
    # At the field's edge the farther axis is blocked: it flees along the other.
    edge = await act(agent, "action", step=3, position=[10, 2], fires=[FIRE])
    assert edge.target == "up"
    cornered = await act(agent, "action", step=4, position=[10, 10], fires=[FIRE])
    assert cornered.kind == "stay"


async def test_it_keeps_its_course_turns_at_the_edge_and_turns_aside_when_refused() -> None:
    agent = RuleAgent("a", seed=1)
    first = await act(agent, "action", step=1, position=[0, 0])
    second = await act(agent, "action", step=2, position=[0, 0])
    assert first.target == second.target == agent.heading
    agent.heading = "up"
    assert (await act(agent, "action", step=3, position=[0, 10])).target == "down"
    refused = await act(agent, "action", step=4, position=[0, 0], refusal="cafe is at capacity")
    assert refused.target in ("left", "right")


async def test_it_warns_once_per_fire_and_passes_on_one_warning_it_heard() -> None:
    seer, hearer = RuleAgent("a", seed=1), RuleAgent("b", seed=1)
    said = await act(seer, "message", step=1, position=[3, 0], fires=[FIRE])
    assert said.description == "Warning: fire1 at (0, 0)."
    assert await act(seer, "message", step=2, position=[4, 0], fires=[FIRE]) is None
    heard = [{"step": 1, "sender": "a", "text": said.description}]
    await act(hearer, "action", step=1, position=[9, 0], received=heard)
    passed = await act(hearer, "message", step=2, position=[9, 1])
    assert passed.description == "Relayed: fire1 at (0, 0)."
    assert await act(hearer, "message", step=3, position=[9, 2]) is None


def test_a_rule_run_calls_no_model_and_is_measured_like_any_grid_run(tmp_path: Path) -> None:
    fire = {"name": "fire1", "start_step": 1, "position": [0, 0], "intensity": 0.8, "radius": 4}
    people = [
        {"id": "a", "gender": "female", "position": [2, 0]},
        {"id": "b", "gender": "male", "position": [6, 0]},
        {"id": "c", "gender": "male", "position": [9, 0]},
    ]
    setup = scenario(tmp_path, people, fires=[fire], steps=3, agents={"mind": "rule"})
    done = run(setup, progress=False)
    assert not list(read_events(done.events_path, {"llm.call"}))
    said = [
        (e.data["step"], e.agent, e.data["text"])
        for e in read_events(done.events_path, {"message"})
    ]
    assert said[0] == (1, "a", "Warning: fire1 at (0, 0).")
    metrics = done.info()["summary"]
    assert metrics["moves_away_from_fire"] >= 1 and metrics["moves_towards_fire"] == 0
    assert metrics["calls_per_agent_tick"] == 0.0


def test_the_scripted_grid_behaves_alike_on_the_sources_prompts_and_with_our_extras(
    tmp_path: Path,
) -> None:
    def hazard(root: Path, *extra: str) -> Path:
        quiet = [f"output.root={root}", "output.report=false", "output.frames=false"]
        setup = load_scenario(HAZARD, ["model.spec=scripted", *quiet, *extra])
        return run(setup, progress=False).events_path

    def behaviour(events: Path) -> list[Any]:
        # The prompts differ (so do their token counts); what the agents did must not.
        return [
            (e.seq, e.t, e.kind, e.agent, without_wall(e.data))
            for e in read_events(events)
            if e.kind != "llm.call"
        ]

    plain = hazard(tmp_path / "plain")
    extras = hazard(tmp_path / "extras", "agents.options={grid: {extras: [refusal, capacity]}}")
    assert behaviour(plain) == behaviour(extras)
    said = list(read_events(plain, {"message"}))
    assert any(e.data["text"].startswith("Warning: fire1") for e in said)
    assert any(e.data["text"].startswith("Relayed: ") for e in said)
