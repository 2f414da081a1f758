"""Interviews in every world: each mind that keeps a memory stream answers, on the scripted
model with a real answer from its own memories; each refusal says how to run the scenario so
that its agents can be interviewed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulacra.experiments import InterviewError, ScenarioError, interview, load_scenario, run

from .conftest import SCENARIOS

QUIET = ["model.spec=scripted", "memory.embedder=hashing", "output.report=false"]
REMEMBERING = {
    "town": ["agents.count=2", "clock.duration=1h"],
    "hazard": ["memory.mode=stream", "clock.ticks=3", "agents.count=4", "output.frames=false"],
    "commute": ["clock.ticks=2", "agents.mix={student: 1, factory_worker: 1}"],
    "elfarol": ["memory.mode=stream", "clock.ticks=3", "agents.count=5"],
}
FORGETTING = {
    "elfarol": (["clock.ticks=2", "agents.count=5"], "--set memory.mode=stream"),
    "hazard": (["clock.ticks=1", "output.frames=false"], "--set memory.mode=stream"),
    "hazard-rule": (
        ["clock.ticks=1", "agents.mind=rule", "output.frames=false"],
        "--set agents.mind=grid --set memory.mode=stream",
    ),
    "commute-logit": (
        ["clock.ticks=1", "agents.mind=logit", "agents.mix={student: 1}"],
        "--set agents.mind=commuter",
    ),
}


@pytest.mark.parametrize("name", sorted(REMEMBERING))
def test_every_mind_that_keeps_a_stream_answers_from_its_own_memories(
    name: str, tmp_path: Path
) -> None:
    scenario = load_scenario(
        SCENARIOS / f"{name}.yaml", [*QUIET, *REMEMBERING[name], f"output.root={tmp_path}"]
    )
    done = run(scenario, progress=False)
    agent = _agents(done.path)[0]
    answer = interview(done.path, agent, "What do you remember of the last days?")
    assert not answer.fallback and answer.answer != "I'm not sure how to answer that."
    assert answer.memory_ids and all(i.startswith(f"{agent}-") for i in answer.memory_ids)


@pytest.mark.parametrize("name", sorted(FORGETTING))
def test_a_refusal_says_how_to_run_it_so_that_agents_can_be_interviewed(
    name: str, tmp_path: Path
) -> None:
    overrides, how = FORGETTING[name]
    path = SCENARIOS / f"{name.split('-')[0]}.yaml"
    done = run(load_scenario(path, [*QUIET, *overrides, f"output.root={tmp_path}"]), progress=False)
    with pytest.raises(InterviewError) as refused:
        interview(done.path, _agents(done.path)[0], "Hello?")
    assert "cannot be interviewed: " in str(refused.value) and how in str(refused.value)
    # The same words refuse a scenario that plans interviews for such minds.
    start = load_scenario(path, overrides).clock.start.isoformat()
    asked = f"interviews={{times: ['{start}'], question: 'Hello?'}}"
    with pytest.raises(ScenarioError) as planned:
        load_scenario(path, [*QUIET, *overrides, asked])
    assert any(how in p for p in planned.value.problems), planned.value.problems


def test_the_embodied_refusal_names_the_minds_that_can_be_interviewed() -> None:
    with pytest.raises(ScenarioError) as planned:
        load_scenario(
            SCENARIOS / "embodied.yaml", ["interviews={times: ['09:00'], question: 'What now?'}"]
        )
    (problem,) = planned.value.problems
    assert problem.startswith("scenario.interviews: cannot be held: an embodied agent keeps")
    assert "the grid's and El Farol's with --set memory.mode=stream" in problem


def _agents(run: Path) -> list[str]:
    with (run / "events.jsonl").open() as log:
        return list(json.loads(log.readline())["data"]["agents"])
