import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from tests.runs import same

from simulacra.experiments import InterviewError, interview, load_scenario, run
from simulacra.llm import Request, ScriptedModel, load_model
from simulacra.mind.grid import MessageChoice, MoveChoice
from simulacra.runlog import Event, RunDir, read_events

from .conftest import HAZARD, scenario

_STEP = re.compile(r"^Step: (\d+)$", re.MULTILINE)
_CITED = re.compile(r"^- \[([^\]]+)\] (.*)$", re.MULTILINE)


def events(run_dir: RunDir, kind: str) -> list[Event]:
    return list(read_events(run_dir.events_path, kinds={kind}))


# For runs shorter than the shipped fires' start (steps 3 and 5), which would never burn.
NO_FIRES = "world.fires=[]"


def hazard(root: Path, *extra: str) -> RunDir:
    """The shipped hazard scenario with the scripted model, no report and no frames."""
    quiet = ["model.spec=scripted", f"output.root={root}", "output.report=false"]
    scenario_ = load_scenario(HAZARD, [*quiet, "output.frames=false", *extra])
    return run(scenario_, progress=False)


def scripted(**moves: str) -> tuple[ScriptedModel, list[Request]]:
    """Agent "a" greets; each agent moves as `moves` says (default stay) and notes the step it
    is at. Records every request."""
    model = ScriptedModel()
    seen: list[Request] = []

    def message(request: Request) -> MessageChoice:
        seen.append(request)
        return MessageChoice(message="hello from a" if request.agent == "a" else "")

    def action(request: Request) -> MoveChoice:
        seen.append(request)
        found = _STEP.search(request.messages[-1].content)
        assert found is not None
        note = f"memory of {request.agent} at step {found[1]}"
        direction = moves.get(request.agent or "")
        if direction is None:
            return MoveChoice(action="stay", memory=note)
        return MoveChoice(action="move", direction=direction, memory=note)

    model.on("grid.message", message)
    model.on("grid.action", action)
    return model, seen


def memories_in(request: Request) -> list[str]:
    """The lines of a prompt's PREVIOUS MEMORY section."""
    section = request.messages[-1].content.split("=== PREVIOUS MEMORY ===\n", 1)[1]
    return section.split("\n\n", 1)[0].splitlines()


def test_a_message_reaches_an_agent_that_moves_out_of_range_the_same_step(
    tmp_path: Path,
) -> None:
    # a and b stand exactly 5 apart; b steps away during step 1, so at step 2 they cannot talk.
    model, seen = scripted(b="right")
    people = [
        {"id": "a", "gender": "female", "position": [0, 0]},
        {"id": "b", "gender": "male", "position": [5, 0]},
    ]
    done = run(scenario(tmp_path, people, steps=2), model=model, progress=False)
    delivered = [(e.data["step"], e.agent, e.data["to"]) for e in events(done, "message")]
    assert delivered == [(1, "a", ["b"])]
    b_action_step1 = next(r for r in seen if r.purpose == "grid.action" and r.agent == "b")
    assert "hello from a" in b_action_step1.messages[-1].content
    world = events(done, "world")
    assert [w.data["positions"]["b"] for w in world] == [[5, 0], [6, 0], [7, 0]]


def test_message_prompt_hides_coordinates_and_action_prompt_shows_them(tmp_path: Path) -> None:
    model, seen = scripted()
    people = [
        {"id": "a", "gender": "female", "position": [1, 2]},
        {"id": "b", "gender": "male", "position": [3, 3]},
    ]
    run(scenario(tmp_path, people, steps=1), model=model, progress=False)
    message_b = next(r for r in seen if r.purpose == "grid.message" and r.agent == "b")
    action_b = next(r for r in seen if r.purpose == "grid.action" and r.agent == "b")
    assert "(1, 2)" not in message_b.messages[-1].content
    assert "(3, 3)" not in message_b.messages[-1].content
    assert (
        "Agent a (female) is at (1, 2) and is outside the places" in action_b.messages[-1].content
    )
    assert "Position: (3, 3)" in action_b.messages[-1].content


def test_each_agent_makes_exactly_two_calls_per_step(tmp_path: Path) -> None:
    model, _ = scripted()
    people = [{"id": str(i), "gender": "female", "position": [i, -i]} for i in range(4)]
    run(scenario(tmp_path, people, steps=3), model=model, progress=False)
    assert model.ledger.by_purpose["grid.message"].calls == 4 * 3
    assert model.ledger.by_purpose["grid.action"].calls == 4 * 3
    assert model.ledger.total.calls == 4 * 3 * 2
    assert set(model.ledger.by_agent) == {"0", "1", "2", "3"}
    assert all(tally.calls == 6 for tally in model.ledger.by_agent.values())


@pytest.mark.parametrize("told", [False, True])
def test_a_refused_entry_is_told_to_the_agent_next_step_when_asked(
    tmp_path: Path, told: bool
) -> None:
    cafe = {"name": "cafe", "type": "cafe", "center": [0, 0], "extent": [1, 1], "capacity": 1}
    people = [
        {"id": "a", "gender": "female", "position": [0, 0]},
        {"id": "b", "gender": "male", "position": [2, 0]},
    ]
    model, seen = scripted(b="left")
    extras = {"options": {"grid": {"extras": ["refusal"]}}} if told else None
    setup = scenario(tmp_path, people, places=[cafe], steps=2, agents=extras)
    done = run(setup, model=model, progress=False)
    refused = [e for e in events(done, "action") if not e.data["ok"]]
    assert [(e.data["step"], e.agent) for e in refused] == [(1, "b"), (2, "b")]
    assert "cafe is at capacity (1/1)" in refused[0].data["reason"]
    b_prompts = [r.messages[-1].content for r in seen if r.agent == "b"]
    assert "refused" not in b_prompts[0] and "refused" not in b_prompts[1]
    # The source's prompts say nothing of it; our extra does.
    said = "Your last move was refused: cafe is at capacity (1/1)" in b_prompts[2]
    assert said == told
    assert [w.data["refused"] for w in events(done, "world")[1:]] == [["b"], ["b"]]


def test_only_agents_within_the_radius_are_told_about_a_fire(tmp_path: Path) -> None:
    fire = {"name": "fire1", "start_step": 1, "position": [0, 0], "intensity": 0.8, "radius": 5}
    people = [
        {"id": "a", "gender": "female", "position": [3, 4]},
        {"id": "b", "gender": "male", "position": [4, 4]},
    ]
    model, seen = scripted()
    done = run(scenario(tmp_path, people, fires=[fire], steps=1), model=model, progress=False)
    prompt = {r.agent: r.messages[-1].content for r in seen if r.purpose == "grid.message"}
    assert 'Fire "fire1":\n  Position: (0, 0)\n  Intensity: 0.8' in prompt["a"]
    assert "Your distance: 5.00" in prompt["a"]
    assert "fire1" not in prompt["b"]
    assert events(done, "world")[1].data["perceived"] == {"fire1": ["a"]}


def test_every_call_is_logged_with_its_raw_output(tmp_path: Path) -> None:
    model, _ = scripted()
    people = [{"id": "a", "gender": "female", "position": [0, 0]}]
    done = run(scenario(tmp_path, people, steps=2), model=model, progress=False)
    decisions = events(done, "decision")
    assert [d.data["purpose"] for d in decisions] == ["grid.message", "grid.action"] * 2
    assert [d.data["step"] for d in decisions] == [1, 1, 2, 2]
    assert json.loads(decisions[1].data["raw"])["memory"] == "memory of a at step 1"
    assert decisions[1].data["parsed"]["action"] == "stay" and not decisions[1].data["fallback"]
    assert len(events(done, "llm.call")) == 4
    # Each step's note, as the model wrote it (a bounded memory keeps no file of them).
    notes = [(d.data["step"], d.agent, d.data["parsed"]["memory"]) for d in decisions[1::2]]
    assert notes == [(1, "a", "memory of a at step 1"), (2, "a", "memory of a at step 2")]


def test_bounded_memory_shows_the_last_notes_oldest_first(tmp_path: Path) -> None:
    model, seen = scripted()
    people = [{"id": "a", "gender": "female", "position": [0, 0]}]
    bounded = {"mode": "bounded", "recall": 2}
    run(scenario(tmp_path, people, steps=4, memory=bounded), model=model, progress=False)
    shown = [memories_in(r) for r in seen if r.purpose == "grid.message"]
    assert shown == [
        ["No previous experiences."],
        ["- memory of a at step 1"],
        ["- memory of a at step 1", "- memory of a at step 2"],
        ["- memory of a at step 2", "- memory of a at step 3"],
    ]


def test_an_unscripted_model_falls_back_to_staying_silent(tmp_path: Path) -> None:
    people = [
        {"id": "a", "gender": "female", "position": [0, 0]},
        {"id": "b", "gender": "male", "position": [1, 0]},
    ]
    done = run(scenario(tmp_path, people, steps=1), model=ScriptedModel(), progress=False)
    assert events(done, "message") == []
    assert {e.data["description"] for e in events(done, "action")} == {"stay"}


def test_hazard_runs_are_identical_for_a_seed(tmp_path: Path) -> None:
    first = hazard(tmp_path / "1")
    second = hazard(tmp_path / "2")
    assert same(first, second)
    actions = [e for e in events(first, "decision") if e.data["purpose"] == "grid.action"]
    assert len(actions) == 20 * 7  # Table 1: 140 memory/reasoning records
    assert all({"memory", "reasoning"} <= set(e.data["parsed"]) for e in actions)


def test_another_seed_places_agents_elsewhere(tmp_path: Path) -> None:
    first = hazard(tmp_path, "clock.ticks=1", NO_FIRES)
    other = hazard(tmp_path, "clock.ticks=1", NO_FIRES, "seed=7")
    start = [events(r, "world")[0].data["positions"] for r in (first, other)]
    assert start[0] != start[1]


def test_hazard_run_writes_world_events_frames_and_metrics(tmp_path: Path) -> None:
    scenario_ = load_scenario(
        HAZARD,
        [
            "model.spec=scripted",
            f"output.root={tmp_path}",
            "clock.ticks=3",
            "world.fires.1.start_step=3",
        ],
    )
    assert scenario_.output.frames and scenario_.output.report
    done = run(scenario_, progress=False)
    world = events(done, "world")
    assert [w.data["step"] for w in world] == [0, 1, 2, 3]
    assert len(world[0].data["agents"]) == 20
    assert all(s["place"] is None for s in world[0].data["agents"].values())
    assert set(world[-1].data["occupancy"]) == {"cafe", "library"}
    assert world[-1].data["fires"] == ["fire1", "fire2"]
    assert world[-2].data["fires"] == []
    frames = sorted(p.name for p in (done.path / "frames").iterdir())
    assert frames == ["step_000.png", "step_001.png", "step_002.png", "step_003.png"]
    metrics = json.loads((done.path / "metrics.json").read_text())
    assert metrics["steps"] == [1, 2, 3]
    assert metrics["budget"]["by_purpose"]["grid.action"]["calls"] == 60
    assert done.info()["status"] == "completed"
    assert (done.path / "report.html").is_file() and (done.path / "viewer.html").is_file()
    assert [e.data for e in events(done, "run.end")] == [{"status": "completed"}]


def test_a_ready_model_replaces_the_scenarios_and_is_recorded(tmp_path: Path) -> None:
    quiet = [f"output.root={tmp_path}", "output.report=false", "output.frames=false"]
    scenario_ = load_scenario(HAZARD, [*quiet, "clock.ticks=1", NO_FIRES])
    assert scenario_.model.spec == "embedded"
    ready = load_model("scripted")
    assert isinstance(ready, ScriptedModel)
    done = run(scenario_, model=ready, progress=False)
    assert done.info()["model"] == "scripted"
    assert done.config()["model"]["spec"] == "scripted"
    assert events(done, "run")[0].data["model"] == "scripted"


def stream_run(root: Path, model: ScriptedModel) -> RunDir:
    """a stands 1 cell from fire1 and b 3 cells: both see it; three steps, memory stream."""
    fire = {"name": "fire1", "start_step": 1, "position": [0, 0], "intensity": 0.8, "radius": 5}
    people = [
        {"id": "a", "gender": "female", "position": [1, 0]},
        {"id": "b", "gender": "male", "position": [3, 0]},
    ]
    memory = {"mode": "stream", "embedder": "hashing", "recall": 4}
    return run(
        scenario(root, people, fires=[fire], steps=3, memory=memory), model=model, progress=False
    )


def test_stream_memory_mode_retrieves_from_the_memory_stream(tmp_path: Path) -> None:
    model, seen = scripted()
    done = stream_run(tmp_path, model)
    added = events(done, "memory.add")
    assert {e.data["kind"] for e in added} == {"observation", "dialogue", "plan"}
    assert all(e.data["importance_source"] == "rule" for e in added)
    assert len(events(done, "retrieval")) == 2 * 2  # each agent at steps 2 and 3
    a_step3 = [r for r in seen if r.agent == "a" and r.purpose == "grid.message"][-1]
    remembered = a_step3.messages[-1].content.split("=== PREVIOUS MEMORY ===")[1]
    assert "- fire1 at (0, 0), intensity 0.8, radius 5, 1.00 cells from me" in remembered
    assert len(memories_in(a_step3)) == 4
    assert model.ledger.total.calls == 2 * 2 * 3  # the stream adds no model calls
    assert (done.path / "memory.sqlite").is_file()


def test_a_grid_agent_with_a_memory_stream_can_be_interviewed(tmp_path: Path) -> None:
    model, _ = scripted()
    done = stream_run(tmp_path, model)
    db = done.path / "memory.sqlite"
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    asked: list[str] = []

    def answer(request: Request) -> dict[str, Any]:
        prompt = request.messages[-1].content
        asked.append(prompt)
        cited = [i for i, text in _CITED.findall(prompt) if "fire1" in text]
        return {"answer": "Yes: fire1 burns near me.", "memory_ids": cited}

    model.on("interview.answer", answer)
    reply = interview(done.path, "a", "Do you know of any fire?", model=model)
    assert reply.answer == "Yes: fire1 burns near me." and not reply.fallback
    assert reply.memory_ids and all(i.startswith("a-") for i in reply.memory_ids)
    [prompt] = asked
    assert prompt.startswith("Agent a (female) on a two-dimensional grid.")
    cited = dict(_CITED.findall(prompt))
    assert all("fire1" in cited[i] for i in reply.memory_ids)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before  # the run is left untouched
    with pytest.raises(InterviewError, match="no agent 'nobody'"):
        interview(done.path, "nobody", "Do you know of any fire?", model=model)


def test_a_grid_agent_with_bounded_memory_cannot_be_interviewed(tmp_path: Path) -> None:
    done = hazard(tmp_path, "clock.ticks=1", NO_FIRES)
    with pytest.raises(InterviewError, match=r"--set memory\.mode=stream to interview them"):
        interview(done.path, "0", "Do you know of any fire?", model=ScriptedModel())
