"""A small scripted town run with a party, a phone call and a correction that cancels the party,
and its evaluation: shared by the evaluation's tests (a few seconds in all)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from simulacra.experiments import load_scenario, run
from simulacra.experiments.evaluate import evaluate
from simulacra.llm import ScriptedModel, load_model
from simulacra.mind.town.scripted import sociable
from simulacra.runlog import RunDir

TOWN = Path(__file__).resolve().parents[2] / "scenarios" / "town.yaml"
PARTY = (
    "I want to host a Valentine's party at Hobbs Cafe today at 17:00 and invite everyone I meet."
)
CANCELLED = "Marta has called off her Valentine's party at Hobbs Cafe."
OVERRIDES = [
    "agents.count=3",
    "clock.duration=3h",
    "clock.checkpoint_every=4",
    "memory.embedder=hashing",
    "interviews=null",
    'world.attendance.start="09:00"',
    'world.attendance.end="10:00"',
    "interventions=["
    f'{{at: "07:30", type: thought, agent: marta_okafor, text: "{PARTY}"}},'
    '{at: "08:00", type: conversation, agents: [marta_okafor, theo_brandt], text: the party},'
    f'{{at: "09:00", type: correction, text: "{CANCELLED}", contradicts: [[party], [hobbs]]}}]',
]
EVALUATE = [
    "evaluation.per_category=1",
    "evaluation.bootstrap=5",
    'evaluation.times=["07:00", "09:50"]',
]


def scripted() -> ScriptedModel:
    return sociable(load_model("scripted"))


@pytest.fixture(scope="session")
def town_run(tmp_path_factory: pytest.TempPathFactory) -> RunDir:
    root = tmp_path_factory.mktemp("evaluate")
    scenario = load_scenario(TOWN, [*OVERRIDES, f"output.root={root}"])
    return run(scenario, model=scripted(), progress=False)


@pytest.fixture(scope="session")
def evaluated(town_run: RunDir) -> dict[str, Any]:
    out = evaluate(town_run.path, EVALUATE, model=scripted(), judge=scripted())
    found: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return found
