"""Every branch of the town's decisions on one short scripted run: continue, talk, replan,
react and wait, each taken by the stand-in from what its prompt holds.

Five agents, 07:00-10:00. Marta is given the party at 07:30 and meets Theo at the cafe; a
fire breaks out at the cafe's oven at 09:00 (a world event the scenario states); at 09:40 the
kiln that Lena's step uses is being cleaned (another world event). Nothing in the run is told
which branch to take.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from simulacra.experiments import load_scenario
from simulacra.experiments import run as run_scenario
from simulacra.llm import load_model
from simulacra.mind.town.scripted import sociable
from simulacra.runlog import Event, RunDir, read_events

TOWN = Path(__file__).resolve().parents[2] / "scenarios" / "town.yaml"
PARTY = (
    "I want to host a Valentine's party at Hobbs Cafe today at 17:00 and invite everyone I meet."
)
FIRE = "a fire breaks out at the oven of Hobbs Cafe"
KILN = "the kiln in the pottery room of Kiln and Canvas Studio is being cleaned by the caretaker"
SETTINGS = [
    "agents.count=5",
    "clock.duration=3h",
    "memory.embedder=hashing",
    "output.report=false",
    'interviews.times=["09:50"]',
    "interventions=["
    f'{{at: "07:30", type: thought, agent: marta_okafor, text: "{PARTY}"}},'
    '{at: "09:00", type: event, change: {place: Hobbs Cafe, object: oven, state: on fire},'
    f" text: {FIRE}}},"
    '{at: "09:40", type: event,'
    " change: {place: Kiln and Canvas Studio, object: kiln, state: being cleaned},"
    f" text: {KILN}}}]",
]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> RunDir:
    root = tmp_path_factory.mktemp("branches")
    scenario = load_scenario(TOWN, [*SETTINGS, f"output.root={root}"])
    return run_scenario(scenario, model=sociable(load_model("scripted")), progress=False)


def decisions(run: RunDir) -> list[Event]:
    return list(read_events(run.events_path, {"decision"}))


def taken(run: RunDir, choice: str) -> list[tuple[str, str, str]]:
    return [
        ((e.t or "")[11:16], e.agent or "", e.data["purpose"])
        for e in decisions(run)
        if e.data["choice"] == choice
    ]


def test_each_branch_is_taken_on_a_short_scripted_run(run: RunDir) -> None:
    counts = Counter(e.data["choice"] for e in decisions(run))
    assert {"continue", "talk", "replan", "react", "wait"} <= set(counts), counts
    assert not any(e.data["fallback"] for e in decisions(run))


def test_talk_and_replan_follow_the_party_on_marta_s_mind(run: RunDir) -> None:
    # Marta holds the party and sees Theo come in: she talks to him; Theo, told of a party
    # at 17:00 that his day lacks, replans. Marta, whose day has it, carries on.
    assert ("08:30", "marta_okafor", "react.decide") in taken(run, "talk")
    assert ("08:30", "theo_brandt", "plan.revise") in taken(run, "replan")
    assert ("08:30", "marta_okafor", "plan.revise") in taken(run, "continue")


def test_the_fire_is_reacted_to_by_those_at_the_cafe_and_nobody_else(run: RunDir) -> None:
    reacted = taken(run, "react")
    assert {who for _, who, _ in reacted} == {"marta_okafor", "theo_brandt"}
    # Each first at the fire's tick; Marta, gone to the oven, reacts again to what she sees
    # of it there ("the oven ... is on fire"), a sight her first look had not held.
    assert {who: min(at for at, w, _ in reacted if w == who) for _, who, _ in reacted} == {
        "marta_okafor": "09:00",
        "theo_brandt": "09:00",
    }
    # The reaction rewrote the next steps: the reaction first, then the step it interrupted.
    steps = [
        e.data["description"]
        for e in read_events(run.events_path, {"action"})
        if e.agent == "theo_brandt" and (e.t or "") >= "2024-02-14T09:00"
    ]
    assert steps[0].startswith("a fire breaks out") and steps[-1] == "works at Hobbs Cafe"


def test_wait_is_for_the_kiln_lena_s_step_needs_then_she_goes_on(run: RunDir) -> None:
    assert taken(run, "wait") == [("09:40", "lena_kowalski", "react.decide")]
    lena = [
        (e.t[11:16], e.data["description"], e.data.get("object"))
        for e in read_events(run.events_path, {"action"})
        if e.agent == "lena_kowalski" and e.t is not None and e.t >= "2024-02-14T09:30"
    ]
    assert lena == [
        ("09:30", "paints at the kiln", "kiln"),
        ("09:40", "waiting to start paints at the kiln", None),
        ("09:50", "paints at the kiln", "kiln"),
    ]
