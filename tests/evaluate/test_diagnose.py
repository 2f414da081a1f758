"""`simulacra diagnose` and `simulacra trace` on scripted town runs: a run made to fail in each
of the source's ways is found out, with the events that show it; a sound run is clear."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.experiments import load_scenario, run
from simulacra.experiments.diagnose import diagnose
from simulacra.experiments.diagnose.trace import trace
from simulacra.llm import Request, ScriptedModel, load_model
from simulacra.mind.town.react_prompts import NOBODY, NOTHING
from simulacra.mind.town.scripted import sociable
from simulacra.runlog import RunDir

from .conftest import CANCELLED, PARTY, TOWN

QUESTION = "Do you know of any party or event happening today? Where and when?"
FIRE = "The oven in the kitchen of Hobbs Cafe is on fire!"
BASE = [
    "agents.count=3",
    "clock.duration=4h",
    "memory.embedder=hashing",
    "memory.importance=10",  # every record weighs 10, and 50 of what was seen and heard
    "memory.reflect_at=50",  # sets off a reflection: agents reflect within the hour
    'world.attendance.start="10:00"',
    'world.attendance.end="11:00"',
    f'interviews={{times: ["09:00", "10:30"], question: "{QUESTION}", '
    "aware_when: [[party], [hobbs, cafe]]}",
]
TOLD = (
    f'{{at: "07:30", type: thought, agent: marta_okafor, text: "{PARTY}"}},'
    '{at: "08:00", type: conversation, agents: [marta_okafor, theo_brandt], text: the party}'
)
FAULTS = [
    *BASE,
    "interventions=["
    + TOLD
    + f',{{at: "09:30", type: correction, text: "{CANCELLED}", contradicts: [[party], [hobbs]]}}'
    + f',{{at: "09:40", type: event, text: "{FIRE}", '
    "change: {place: Hobbs Cafe, object: oven, state: on fire}}]",
]


def faulty() -> ScriptedModel:
    """A town that fails as the source's table says agents fail."""
    model: ScriptedModel = sociable(load_model("scripted"))
    model.on("react.decide", lambda r: {"choice": "continue", "target": NOBODY, "about": NOTHING})

    def interview(request: Request) -> dict[str, Any]:
        if request.agent == "theo_brandt":
            return {"answer": "No, I have not heard of anything happening.", "memory_ids": []}
        return {"answer": "Yes: Marta's party is at Hobbs Cafe at 17:00.", "memory_ids": []}

    model.on("interview.answer", interview)
    model.on(
        "reflect.insights",
        lambda r: {
            "insights": [{"text": "Marta will meet Zorro at 23:00 tonight", "evidence": [1]}]
        },
    )
    lunches = [
        {"start": "07:00", "place": "Hobbs Cafe", "activity": "having lunch"},
        {"start": "08:00", "place": "Hobbs Cafe", "activity": "working"},
        {"start": "12:00", "place": "Hobbs Cafe", "activity": "having lunch"},
        {"start": "13:00", "place": "Hobbs Cafe", "activity": "working"},
        {"start": "22:00", "place": "Alder Cottage", "activity": "sleeping"},
    ]
    model.on("plan.daily", lambda r: {"blocks": lunches})
    party = [{"start": "09:30", "place": "Hobbs Cafe", "activity": "getting ready for the party"}]
    model.on("plan.replan", lambda r: {"blocks": party})
    return model


@pytest.fixture(scope="module")
def faulty_run(tmp_path_factory: pytest.TempPathFactory) -> RunDir:
    root = tmp_path_factory.mktemp("faulty")
    scenario = load_scenario(TOWN, [*FAULTS, f"output.root={root}"])
    return run(scenario, model=faulty(), progress=False)


@pytest.fixture(scope="module")
def found(faulty_run: RunDir) -> dict[str, Any]:
    out = diagnose(faulty_run.path, model=faulty())
    modes: dict[str, Any] = {m["key"]: m for m in json.loads(out.read_text())["modes"]}
    return modes


def test_an_agent_told_of_the_party_who_denies_it_is_a_retrieval_finding(
    found: dict[str, Any],
) -> None:
    (miss, *_) = found["retrieval_miss"]["findings"]
    assert miss["agent"] == "theo_brandt" and miss["t"] == "2024-02-14T09:00:00"
    kinds = [e["kind"] for e in miss["events"]]
    assert kinds[-2:] == ["retrieval", "interview"] and "memory.add" in kinds
    # The retrieval's scores come with it, and the record that stated the party.
    assert miss["detail"]["records"] and miss["detail"]["top"][0]["total"] >= 0
    # Marta, who says yes, is no finding; nor is Theo after the correction (10:30).
    assert [f["agent"] for f in found["retrieval_miss"]["findings"]] == ["theo_brandt"]


def test_an_insight_naming_what_no_source_names_is_an_embellishment(
    found: dict[str, Any],
) -> None:
    findings = found["embellishment"]["findings"]
    assert findings and all("Zorro" in f["detail"]["unsupported"] for f in findings)
    assert all(f["events"][0]["kind"] in ("memory.add", "reflection") for f in findings)


def test_lunch_twice_in_a_plan_is_a_repetition(found: dict[str, Any]) -> None:
    # The scripted plan sleeps at Marta's home: the others' copies of it are refused
    # (plan_check) and their routines run instead.
    plans = [f for f in found["repetition"]["findings"] if "plan lists" in f["summary"]]
    hers = [f for f in plans if f["agent"] == "marta_okafor"]
    assert hers and all("'having lunch' 2 times" in f["summary"] for f in hers)


def test_a_fire_that_changes_no_plan_is_found(found: dict[str, Any]) -> None:
    findings = found["no_reaction"]["findings"]
    assert findings and all(FIRE in f["summary"] for f in findings)
    assert all(f["t"] >= "2024-02-14T08:40:00" for f in findings)


def test_a_plan_that_keeps_a_cancelled_party_is_a_stale_belief(found: dict[str, Any]) -> None:
    findings = found["stale_belief"]["findings"]
    assert findings and all(f["t"] > "2024-02-14T09:30" or "plan" in f["summary"] for f in findings)
    assert any(e["kind"] == "plan" for f in findings for e in f["events"])


def test_a_sound_run_is_clear_of_denials_and_checks_what_it_can(tmp_path: Path) -> None:
    scenario = load_scenario(TOWN, [*BASE, f"interventions=[{TOLD}]", f"output.root={tmp_path}"])
    sound = run(scenario, model=sociable(load_model("scripted")), progress=False)
    modes = {m["key"]: m for m in json.loads(diagnose(sound.path).read_text())["modes"]}
    assert modes["retrieval_miss"]["status"] == "clear"
    assert modes["embellishment"]["status"] == "clear"
    assert modes["no_reaction"]["status"] == modes["stale_belief"]["status"] == "not checked"
    result = CliRunner().invoke(app, ["diagnose", str(sound.path)])
    assert result.exit_code == 0 and "not checked" in result.output


def test_trace_follows_the_party_from_marta_to_theo_and_says_where_it_broke(
    faulty_run: RunDir,
) -> None:
    out = trace(faulty_run.path, "party")
    party = json.loads(out.read_text())["party"]
    rows = {r["agent"]: r for r in party["agents"]}
    assert party["planted"]["owner"] == "marta_okafor"
    theo = [s["held"] for s in rows["theo_brandt"]["stages"]]
    assert theo[:3] == [True, True, True]  # stored, told by Marta, in his memory
    told = rows["theo_brandt"]["stages"][1]
    assert told["event"]["kind"] == "message" and told["event"]["agent"] == "marta_okafor"
    assert rows["priya_nair"]["broke"] == "expressed"  # nobody told Priya
    result = CliRunner().invoke(app, ["trace", str(faulty_run.path), "party"])
    assert result.exit_code == 0 and "never told" in result.output
    assert 'id="trace-party"' in (faulty_run.path / "report.html").read_text()
    unknown = CliRunner().invoke(app, ["trace", str(faulty_run.path), "picnic"])
    assert unknown.exit_code == 2 and "its facts: party" in unknown.output
