import gc
import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from tests.runs import latest_checkpoint, same

from simulacra.engine import Progress
from simulacra.experiments import InterviewError, Scenario, interview, load_scenario, resume
from simulacra.experiments import run as run_scenario
from simulacra.llm import ScriptedModel, load_model
from simulacra.memory import rule_importance
from simulacra.mind.town.scripted import sociable
from simulacra.runlog import Event, RunDir, read_events

TOWN = Path(__file__).resolve().parents[2] / "scenarios" / "town.yaml"
PARTY = (
    "I want to host a Valentine's party at Hobbs Cafe today at 17:00 and invite everyone I meet."
)
QUESTION = "Do you know of any party or event happening today? Where and when?"
# A thought for the host at 07:30, a phone call from the host to Theo at 08:00, a smoke alarm
# at Theo's dormitory at 07:40 (he is at home then).
INTERVENTIONS = (
    "interventions=["
    f'{{at: "07:30", type: thought, agent: marta_okafor, text: "{PARTY}"}},'
    '{at: "07:40", type: event, change: {place: Grove Dormitory, object: stove, state: smoking},'
    " text: the smoke alarm goes off in the dormitory},"
    '{at: "08:00", type: conversation, agents: [marta_okafor, theo_brandt], text: the weather}]'
)


def tiny(root: Path, *extra: str) -> list[str]:
    """Three agents, 07:00-10:00, checkpoints every four ticks: a run of a few seconds."""
    return [
        "agents.count=3",
        "clock.duration=3h",
        "clock.checkpoint_every=4",
        "memory.embedder=hashing",
        f"output.root={root}",
        "output.report=false",
        'interviews.times=["07:50", "09:30"]',
        'world.attendance.start="09:00"',
        'world.attendance.end="10:00"',
        INTERVENTIONS,
        *extra,
    ]


def model() -> ScriptedModel:
    return sociable(load_model("scripted"))


def run(root: Path, *extra: str, **options: Any) -> RunDir:
    scenario = load_scenario(TOWN, tiny(root, *extra))
    return run_scenario(scenario, model=model(), progress=False, **options)


def events(run_dir: RunDir, kind: str) -> list[Event]:
    return list(read_events(run_dir.events_path, {kind}))


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> RunDir:
    return run(tmp_path_factory.mktemp("reference"))


def test_a_run_writes_its_directory_and_a_log_that_starts_with_the_map(reference: RunDir) -> None:
    info = reference.info()
    assert info["status"] == "completed" and info["model"] == "scripted"
    first = next(read_events(reference.events_path))
    assert first.kind == "run" and first.data["seed"] == 7
    assert {p["name"] for p in first.data["world"]["places"]} >= {"Hobbs Cafe", "Alder Cottage"}
    assert set(first.data["agents"]) == {"marta_okafor", "theo_brandt", "priya_nair"}
    worlds = events(reference, "world")
    assert [w.data["step"] for w in worlds] == list(range(19))  # the start, then 18 ticks
    assert set(worlds[0].data["agents"]["theo_brandt"]) >= {"place", "area", "x", "y", "action"}
    assert load_scenario(reference.config()).agents.count == 3
    assert (reference.path / "memory.sqlite").exists()


def test_two_runs_with_the_same_seed_write_identical_logs(
    reference: RunDir, tmp_path: Path
) -> None:
    again = run(tmp_path)
    assert same(again, reference)


def test_interventions_fire_at_their_time(reference: RunDir) -> None:
    fired = {(e.t, e.data["type"]) for e in events(reference, "intervention")}
    assert fired == {
        ("2024-02-14T07:30:00", "thought"),
        ("2024-02-14T07:40:00", "event"),
        ("2024-02-14T08:00:00", "conversation"),
    }
    thought = [e for e in events(reference, "memory.add") if e.data["text"] == PARTY]
    # An inner thought, rated like any record (the scripted rating is the keyword rule's),
    # and her own decision whether the day changes: no replan forced on her.
    assert [(e.t, e.agent, e.data["kind"], e.data["importance"]) for e in thought] == [
        ("2024-02-14T07:30:00", "marta_okafor", "thought", float(rule_importance(PARTY)))
    ]
    decided = [e for e in events(reference, "decision") if e.data["purpose"] == "plan.revise"]
    assert [(e.t, e.agent) for e in decided][:1] == [("2024-02-14T07:30:00", "marta_okafor")]
    alarm = [e for e in events(reference, "observation") if "smoke alarm" in e.data["text"]]
    assert [(e.t, e.agent) for e in alarm] == [("2024-02-14T07:40:00", "theo_brandt")]
    # The world as the 07:40 tick leaves it: the frame at its end, 07:50.
    frame = next(e for e in events(reference, "world") if e.t == "2024-02-14T07:50:00")
    assert frame.data["objects"]["Grove Dormitory: stove"] == "smoking"
    calls = [e for e in events(reference, "conversation") if e.t == "2024-02-14T08:00:00"]
    assert calls[0].data["participants"] == ["marta_okafor", "theo_brandt"]


def test_the_diffusion_metric_comes_from_interviews(reference: RunDir) -> None:
    metrics = json.loads((reference.path / "metrics.json").read_text())
    asked = events(reference, "interview")
    assert {e.data["question"] for e in asked} == {QUESTION}
    answers: dict[str, dict[str, str]] = {}
    for e in asked:
        answers.setdefault(e.t or "", {})[e.agent or ""] = e.data["answer"]
    assert [d["t"] for d in metrics["diffusion"]] == ["2024-02-14T07:50:00", "2024-02-14T09:30:00"]
    assert [d["answers"] for d in metrics["diffusion"]] == [answers[t] for t in sorted(answers)]
    for entry in metrics["diffusion"]:
        told = [a for a, text in entry["answers"].items() if "party at hobbs cafe" in text.lower()]
        assert entry["agents"] == told and entry["aware"] == len(told)
    # The host knows from her thought; Theo heard it on the phone at 08:00; anyone else who
    # knows by 09:30 was told in a conversation that mentioned the party.
    first, second = metrics["diffusion"]
    assert first["agents"] == ["marta_okafor"]
    assert {"marta_okafor", "theo_brandt"} <= set(second["agents"])
    for agent in set(second["agents"]) - {"marta_okafor", "theo_brandt"}:
        assert any(
            agent in e.data["participants"] and "party" in json.dumps(e.data["turns"])
            for e in events(reference, "conversation")
            if (e.t or "") < second["t"]
        )
    logged = [e.data["value"] for e in events(reference, "metric") if e.data["name"] == "aware"]
    assert logged == [first["aware"], second["aware"]]


def test_attendance_conversations_and_budget_are_read_from_the_log(reference: RunDir) -> None:
    metrics = json.loads((reference.path / "metrics.json").read_text())
    present = {
        agent
        for e in events(reference, "world")
        if "2024-02-14T09:00:00" <= (e.t or "") <= "2024-02-14T10:00:00"
        for agent, where in e.data["agents"].items()
        if where["place"] == "Hobbs Cafe"
    }
    assert metrics["attendance"]["attended"] == sorted(present)
    assert metrics["conversations"]["marta_okafor|theo_brandt"] >= 1
    calls = events(reference, "llm.call")
    budget = metrics["budget"]
    assert budget["total"]["calls"] == len(calls)
    assert sum(v["calls"] for v in budget["by_purpose"].values()) == len(calls)
    assert budget["per_agent_day"]["theo_brandt"]["2024-02-14"]["calls"] == sum(
        1 for e in calls if e.agent == "theo_brandt"
    )
    assert budget["calls_per_agent_hour"] == round(len(calls) / (3 * 3), 3)


_KILLER = textwrap.dedent(
    """
    import json, os, signal, sys
    from simulacra.experiments import load_scenario, run
    from simulacra.llm import load_model
    from simulacra.mind.town.scripted import sociable

    def kill(progress):
        if progress.step == int(sys.argv[2]):
            os.kill(os.getpid(), signal.SIGKILL)

    scenario = load_scenario(sys.argv[1], json.loads(sys.argv[3]))
    model = sociable(load_model("scripted"))
    run(scenario, model=model, progress=False, on_progress=kill)
    """
)


def test_a_run_killed_with_sigkill_resumes_to_the_same_log(
    reference: RunDir, tmp_path: Path
) -> None:
    overrides = tiny(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", _KILLER, str(TOWN), "10", json.dumps(overrides)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == -9, done.stderr
    (killed,) = [RunDir(p) for p in tmp_path.iterdir() if p.is_dir()]
    assert killed.info()["status"] == "running"
    state = latest_checkpoint(killed)
    assert state["step"] == 8
    assert (killed.path / "checkpoint" / state["memory"]).exists()
    resumed = resume(killed.path, model=model(), progress=False)
    assert resumed.info()["status"] == "completed"
    assert same(resumed, reference)


def test_a_failed_run_resumes_from_its_checkpoint_to_the_same_log(
    reference: RunDir, tmp_path: Path
) -> None:
    def fail(progress: Progress) -> None:
        if progress.step == 11:
            raise RuntimeError("power cut")

    with pytest.raises(RuntimeError, match="power cut"):
        run(tmp_path, on_progress=fail)
    (failed,) = [RunDir(p) for p in tmp_path.iterdir() if p.is_dir()]
    assert failed.info()["status"] == "failed"
    resumed = resume(failed.path, model=model(), progress=False)
    assert same(resumed, reference)
    with pytest.raises(ValueError, match="already completed"):
        resume(failed.path, model=model(), progress=False)


def test_interviewing_an_agent_answers_from_its_saved_memory(reference: RunDir) -> None:
    db = reference.path / "memory.sqlite"
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    answer = interview(reference.path, "theo_brandt", QUESTION, model=model())
    assert "party" in answer.answer.lower()
    assert answer.memory_ids and all(i.startswith("theo_brandt-") for i in answer.memory_ids)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    with pytest.raises(InterviewError, match="no agent 'nobody'"):
        interview(reference.path, "nobody", QUESTION, model=model())


def test_a_rejected_action_is_logged_with_its_reason_and_the_agent_keeps_to_its_plan(
    tmp_path: Path,
) -> None:
    scripted = model()
    stove = "boiling water on the stove"
    boiling = {"actions": [stove], "object": "stove", "state": "boiling water"}
    scripted.on("plan.actions", lambda request: boiling)
    # Marta and Daniel share Alder Cottage and its one stove.
    scenario: Scenario = load_scenario(TOWN, tiny(tmp_path, "agents.count=6"))
    done = run_scenario(scenario, model=scripted, progress=False)
    refused = [e for e in events(done, "action") if not e.data["ok"]]
    assert refused and "in use by" in refused[0].data["reason"]
    assert refused[0].data["description"] == "boiling water on the stove"
    # The world state after that tick: the refused agent boils water, without the stove.
    frame = next(
        e
        for e in events(done, "world")
        if e.seq > refused[0].seq and e.data["step"] == refused[0].data["step"]
    )
    assert frame.data["agents"][refused[0].agent]["action"] == "boiling water on the stove"
    metrics = json.loads((done.path / "metrics.json").read_text())
    assert metrics["rejected_actions"] == len(refused)


def test_each_simulated_day_is_planned_and_the_night_is_skipped(tmp_path: Path) -> None:
    overrides = [
        "agents.count=2",
        "clock.start=2024-02-14T20:00",
        "clock.duration=14h",
        'clock.wake="07:00"',
        'clock.sleep="21:00"',
        "clock.tick=30m",
        "memory.embedder=hashing",
        f"output.root={tmp_path}",
        "output.report=false",
        "interventions=[]",
        "interviews=null",
        "world.attendance=null",
    ]
    scenario = load_scenario(TOWN, overrides)
    done = run_scenario(scenario, model=model(), progress=False)
    # The start, then the world as each tick leaves it, at the tick's end: the evening's
    # last tick ends at 21:00 and the next begins at 07:00.
    frames = [(e.data["step"], e.t) for e in events(done, "world")]
    assert frames == [
        (0, "2024-02-14T20:00:00"),
        (1, "2024-02-14T20:30:00"),
        (2, "2024-02-14T21:00:00"),
        (3, "2024-02-15T07:30:00"),
        (4, "2024-02-15T08:00:00"),
        (5, "2024-02-15T08:30:00"),
        (6, "2024-02-15T09:00:00"),
        (7, "2024-02-15T09:30:00"),
        (8, "2024-02-15T10:00:00"),
    ]
    days = [(e.t, e.agent) for e in events(done, "plan") if e.data["level"] == "day"]
    assert days == [
        ("2024-02-14T20:00:00", "marta_okafor"),
        ("2024-02-14T20:00:00", "theo_brandt"),
        ("2024-02-15T07:00:00", "marta_okafor"),
        ("2024-02-15T07:00:00", "theo_brandt"),
    ]
    summaries = [e for e in events(done, "llm.call") if e.data["purpose"] == "summarize.day"]
    assert {(e.t, e.agent) for e in summaries} == {
        ("2024-02-14T20:30:00", "marta_okafor"),
        ("2024-02-14T20:30:00", "theo_brandt"),
    }


def test_a_run_collects_garbage_less_often_and_restores_the_settings(tmp_path: Path) -> None:
    before = gc.get_threshold()
    seen: list[tuple[int, int, int]] = []
    run(tmp_path, on_progress=lambda _: seen.append(gc.get_threshold()))
    assert seen and all(t[0] > before[0] for t in seen)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
