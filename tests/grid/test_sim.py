import json
from pathlib import Path
from typing import Any

from simulacra.llm import Request, ScriptedModel, load_model
from simulacra.runlog import Event, read_events
from simulacra.worlds.grid import MessageChoice, MoveChoice, run_grid, run_hazard

from .conftest import scenario

HAZARD = Path(__file__).parents[2] / "scenarios" / "hazard.yaml"
QUIET: dict[str, Any] = {"frames": False, "report": False}


def events(run_path: Path, kind: str) -> list[Event]:
    return list(read_events(run_path / "events.jsonl", kinds={kind}))


def comparable(run_path: Path) -> list[dict[str, Any]]:
    out = []
    for event in read_events(run_path / "events.jsonl"):
        data = {k: v for k, v in event.data.items() if k != "latency_s"}
        out.append({"seq": event.seq, "kind": event.kind, "agent": event.agent, "data": data})
    return out


def scripted(**moves: str) -> tuple[ScriptedModel, list[Request]]:
    """Agent "a" greets; each agent moves as `moves` says (default stay). Records every request."""
    model = ScriptedModel()
    seen: list[Request] = []

    def message(request: Request) -> MessageChoice:
        seen.append(request)
        return MessageChoice(message="hello from a" if request.agent == "a" else "")

    def action(request: Request) -> MoveChoice:
        seen.append(request)
        direction = moves.get(request.agent or "")
        if direction is None:
            return MoveChoice(action="stay", memory=f"memory of {request.agent}")
        return MoveChoice(action="move", direction=direction, memory="moved")

    model.on("grid.message", message)
    model.on("grid.action", action)
    return model, seen


async def test_a_message_reaches_an_agent_that_moves_out_of_range_the_same_step(
    tmp_path: Path,
) -> None:
    # a and b stand exactly 5 apart; b steps away during step 1, so at step 2 they cannot talk.
    model, seen = scripted(b="right")
    people = [
        {"id": "a", "gender": "female", "position": [0, 0]},
        {"id": "b", "gender": "male", "position": [5, 0]},
    ]
    run = await run_grid(scenario(people, steps=2), model, root=tmp_path)
    delivered = [
        (e.data["step"], e.agent, e.data["recipient"]) for e in events(run.path, "message")
    ]
    assert delivered == [(1, "a", "b")]
    b_action_step1 = next(r for r in seen if r.purpose == "grid.action" and r.agent == "b")
    assert "hello from a" in b_action_step1.messages[-1].content
    world = events(run.path, "world")
    assert [w.data["positions"]["b"] for w in world] == [[5, 0], [6, 0], [7, 0]]


async def test_message_prompt_hides_coordinates_and_action_prompt_shows_them(
    tmp_path: Path,
) -> None:
    model, seen = scripted()
    people = [
        {"id": "a", "gender": "female", "position": [1, 2]},
        {"id": "b", "gender": "male", "position": [3, 3]},
    ]
    await run_grid(scenario(people, steps=1), model, root=tmp_path)
    message_b = next(r for r in seen if r.purpose == "grid.message" and r.agent == "b")
    action_b = next(r for r in seen if r.purpose == "grid.action" and r.agent == "b")
    assert "(1, 2)" not in message_b.messages[-1].content
    assert "(3, 3)" not in message_b.messages[-1].content
    assert "agent a (female) at (1, 2)" in action_b.messages[-1].content
    assert "position: (3, 3)" in action_b.messages[-1].content


async def test_each_agent_makes_exactly_two_calls_per_step(tmp_path: Path) -> None:
    model, _ = scripted()
    people = [{"id": str(i), "gender": "female", "position": [i, -i]} for i in range(4)]
    await run_grid(scenario(people, steps=3), model, root=tmp_path)
    assert model.ledger.by_purpose["grid.message"].calls == 4 * 3
    assert model.ledger.by_purpose["grid.action"].calls == 4 * 3
    assert model.ledger.total.calls == 4 * 3 * 2
    assert all(tally.calls == 6 for tally in model.ledger.by_agent.values())


async def test_a_refused_entry_is_told_to_the_agent_next_step(tmp_path: Path) -> None:
    cafe = {"name": "cafe", "type": "cafe", "center": [0, 0], "extent": [1, 1], "capacity": 1}
    people = [
        {"id": "a", "gender": "female", "position": [0, 0]},
        {"id": "b", "gender": "male", "position": [2, 0]},
    ]
    model, seen = scripted(b="left")
    run = await run_grid(scenario(people, places=[cafe], steps=2), model, root=tmp_path)
    refused = [e for e in events(run.path, "action") if not e.data["ok"]]
    assert [(e.data["step"], e.agent) for e in refused] == [(1, "b"), (2, "b")]
    assert "cafe is at capacity (1/1)" in refused[0].data["reason"]
    b_prompts = [r.messages[-1].content for r in seen if r.agent == "b"]
    assert "refused" not in b_prompts[0] and "refused" not in b_prompts[1]
    assert "last step your move was refused: cafe is at capacity (1/1)" in b_prompts[2]
    assert [w.data["refused"] for w in events(run.path, "world")[1:]] == [["b"], ["b"]]


async def test_only_agents_within_the_radius_are_told_about_a_fire(tmp_path: Path) -> None:
    fire = {"name": "fire1", "start_step": 1, "position": [0, 0], "intensity": 0.8, "radius": 5}
    people = [
        {"id": "a", "gender": "female", "position": [3, 4]},
        {"id": "b", "gender": "male", "position": [4, 4]},
    ]
    model, seen = scripted()
    run = await run_grid(scenario(people, fires=[fire], steps=1), model, root=tmp_path)
    prompt = {r.agent: r.messages[-1].content for r in seen if r.purpose == "grid.message"}
    assert '"fire1": position (0, 0); intensity 0.8' in prompt["a"]
    assert "your distance 5.00" in prompt["a"]
    assert "fire1" not in prompt["b"]
    assert events(run.path, "world")[1].data["perceived"] == {"fire1": ["a"]}


async def test_every_call_is_logged_with_its_raw_output(tmp_path: Path) -> None:
    model, _ = scripted()
    people = [{"id": "a", "gender": "female", "position": [0, 0]}]
    run = await run_grid(scenario(people, steps=2), model, root=tmp_path)
    decisions = events(run.path, "decision")
    assert [d.data["purpose"] for d in decisions] == ["grid.message", "grid.action"] * 2
    assert json.loads(decisions[1].data["raw"])["memory"] == "memory of a"
    assert decisions[1].data["parsed"]["action"] == "stay" and not decisions[1].data["fallback"]
    assert len(events(run.path, "llm.call")) == 4
    records = [json.loads(line) for line in (run.path / "memory.jsonl").read_text().splitlines()]
    assert [(r["step"], r["agent"], r["memory"]) for r in records] == [
        (1, "a", "memory of a"),
        (2, "a", "memory of a"),
    ]


async def test_an_unscripted_model_falls_back_to_staying_silent(tmp_path: Path) -> None:
    people = [
        {"id": "a", "gender": "female", "position": [0, 0]},
        {"id": "b", "gender": "male", "position": [1, 0]},
    ]
    run = await run_grid(scenario(people, steps=1), ScriptedModel(), root=tmp_path)
    assert events(run.path, "message") == []
    assert {e.data["description"] for e in events(run.path, "action")} == {"stay"}


def test_hazard_runs_are_identical_for_a_seed(tmp_path: Path) -> None:
    first = run_hazard(HAZARD, model="scripted", **QUIET, root=tmp_path / "1")
    second = run_hazard(HAZARD, model="scripted", **QUIET, root=tmp_path / "2")
    assert comparable(first.path) == comparable(second.path)
    memory = (first.path / "memory.jsonl").read_text()
    assert memory == (second.path / "memory.jsonl").read_text()
    assert len(memory.splitlines()) == 20 * 7  # Table 1: 140 memory/reasoning records


def test_another_seed_places_agents_elsewhere(tmp_path: Path) -> None:
    first = run_hazard(HAZARD, model="scripted", steps=0, **QUIET, root=tmp_path)
    other = run_hazard(HAZARD, model="scripted", steps=0, seed=7, **QUIET, root=tmp_path)
    start = [events(r.path, "world")[0].data["positions"] for r in (first, other)]
    assert start[0] != start[1]


def test_hazard_run_writes_world_events_frames_and_metrics(tmp_path: Path) -> None:
    run = run_hazard(HAZARD, model="scripted", steps=3, root=tmp_path)
    world = events(run.path, "world")
    assert [w.data["step"] for w in world] == [0, 1, 2, 3]
    assert len(world[0].data["agents"]) == 20
    assert all(s["place"] is None for s in world[0].data["agents"].values())
    assert set(world[-1].data["occupancy"]) == {"cafe", "library"}
    assert world[-1].data["fires"] == ["fire1"]
    frames = sorted(p.name for p in (run.path / "frames").iterdir())
    assert frames == ["step_000.png", "step_001.png", "step_002.png", "step_003.png"]
    metrics = json.loads((run.path / "metrics.json").read_text())
    assert metrics["steps"] == [1, 2, 3]
    assert metrics["llm"]["by_purpose"]["grid.action"]["calls"] == 60
    assert run.info()["status"] == "completed"
    assert (run.path / "report.html").is_file() and (run.path / "viewer.html").is_file()
    assert events(run.path, "run")[-1].data == {"status": "completed"}


def test_load_model_scripted_is_what_the_scenario_names(tmp_path: Path) -> None:
    run = run_hazard(HAZARD, model=load_model("scripted"), steps=1, **QUIET, root=tmp_path)
    assert run.info()["model"] == "scripted"
    assert run.config()["model"]["spec"] == "scripted"


async def test_stream_memory_mode_retrieves_from_the_memory_stream(tmp_path: Path) -> None:
    fire = {"name": "fire1", "start_step": 1, "position": [0, 0], "intensity": 0.8, "radius": 5}
    people = [
        {"id": "a", "gender": "female", "position": [1, 0]},
        {"id": "b", "gender": "male", "position": [3, 0]},
    ]
    base = scenario(people, fires=[fire], steps=3)
    memory = base.memory.model_copy(update={"mode": "stream", "embedder": "hashing", "size": 4})
    model, seen = scripted()
    run = await run_grid(base.model_copy(update={"memory": memory}), model, root=tmp_path)
    added = events(run.path, "memory.add")
    assert {e.data["kind"] for e in added} == {"observation", "dialogue", "plan"}
    assert len(events(run.path, "retrieval")) == 2 * 2  # each agent at steps 2 and 3
    a_step3 = [r for r in seen if r.agent == "a" and r.purpose == "grid.message"][-1]
    remembered = a_step3.messages[-1].content.split("## Your memories")[1]
    assert "- fire1 at (0, 0), intensity 0.8, radius 5, 1.00 cells from me" in remembered
    assert model.ledger.total.calls == 2 * 2 * 3  # the stream adds no model calls
    assert (run.path / "memory.sqlite").is_file()
