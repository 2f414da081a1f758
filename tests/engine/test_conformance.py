"""The conformance test every world kind passes, written once (as PettingZoo's `api_test` is
for every environment): each binding in BINDINGS, on its shipped scenario made small, is
built and observed through the World protocol, runs a phase, takes its state back from a
snapshot, runs twice to the same log and resumes a stopped run to it, is interviewed or
refuses with its reason, writes the metrics its signature and report name, and draws frames,
a report with its own sections and a viewer.

A new world joins by shipping a scenario (scenarios/<name>.yaml, `world.kind: <kind>`) and a
line in SMALL that keeps it short."""

import json
from datetime import datetime
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.runs import latest_checkpoint, same

from simulacra import api
from simulacra.core import Begins, Intervenable, Observation
from simulacra.engine import Clock, Progress
from simulacra.errors import UserError
from simulacra.experiments import load_scenario, resume, run
from simulacra.experiments.interview import interview
from simulacra.experiments.kinds import BINDINGS, Services
from simulacra.experiments.kinds.base import INTERVIEW
from simulacra.experiments.models import load_run_model
from simulacra.report import build_outputs, render_frames, world_report
from simulacra.report.replay import build_replay
from simulacra.runlog import RunDir, read_events

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def _shipped() -> dict[str, str]:
    """Each world kind's shipped scenario with the shortest name (town, not town-2day)."""
    found: dict[str, str] = {}
    for path in sorted(SCENARIOS.glob("*.yaml"), key=lambda p: (len(p.stem), p.stem)):
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        found.setdefault(raw["world"]["kind"], path.stem)
    return found


SHIPPED = _shipped()
# Each world small, with a checkpoint every two ticks and a stop after the third.
SMALL = {
    "town": [
        "agents.count=3",
        "clock.duration=1h",
        'interviews.times=["07:40"]',
        "world.attendance=null",
    ],
    "hazard": ["clock.ticks=5"],
    "commute": [
        "clock.ticks=6",
        "agents.mix={student: 2, factory_worker: 2}",
        "world.city.taxi_strikes=[{days: [3, 4], out_of_service: 0.8}]",
    ],
    "elfarol": ["clock.ticks=6", "agents.count=12"],
    "embodied": ["clock.ticks=5", "world.camera.width=96", "world.camera.height=72"],
}


def _needs_3d(name: str) -> None:
    if name == "embodied" and not all(find_spec(m) for m in ("pxr", "pyvista")):
        pytest.skip("the embodied world needs the 3d extra (usd-core and pyvista)")


def test_every_world_kind_has_a_shipped_scenario_made_small_here() -> None:
    assert set(SHIPPED) == set(BINDINGS)
    assert {SHIPPED[kind] for kind in BINDINGS} == set(SMALL)


def small(name: str, root: Path) -> list[str]:
    return [
        *SMALL[name],
        "model.spec=scripted",
        "memory.embedder=hashing",
        "clock.checkpoint_every=2",
        f"output.root={root}",
        "output.report=false",
        "output.frames=false",
    ]


@pytest.mark.parametrize("kind", sorted(BINDINGS))
def test_a_stopped_run_resumes_to_the_log_of_an_uninterrupted_one(kind: str, tmp_path: Path):
    _needs_3d(kind)
    name = SHIPPED[kind]
    scenario = load_scenario(SCENARIOS / f"{name}.yaml", small(name, tmp_path / "whole"))
    whole = run(scenario, progress=False)
    again = run(scenario, progress=False)
    assert same(again, whole)

    def stop(progress: Progress) -> None:
        if progress.step == 3:
            raise RuntimeError("the machine went down")

    stopped_scenario = load_scenario(SCENARIOS / f"{name}.yaml", small(name, tmp_path / "cut"))
    with pytest.raises(RuntimeError, match="went down"):
        run(stopped_scenario, progress=False, on_progress=stop)
    (stopped,) = [RunDir(p) for p in (tmp_path / "cut").iterdir()]
    assert stopped.info()["status"] == "failed"
    assert latest_checkpoint(stopped)["step"] == 2
    resumed = resume(stopped.path, progress=False)
    assert resumed.info()["status"] == "completed"
    assert same(resumed, whole)


@pytest.mark.parametrize("kind", sorted(BINDINGS))
def test_each_step_has_its_own_time_and_the_report_ends_where_inspect_does(
    kind: str, tmp_path: Path
):
    _needs_3d(kind)
    name = SHIPPED[kind]
    scenario = load_scenario(SCENARIOS / f"{name}.yaml", small(name, tmp_path))
    done = run(scenario, progress=False)
    frames = [(e.data["step"], e.t) for e in read_events(done.events_path, {"world"})]
    assert [step for step, _ in frames] == list(range(len(frames)))
    times = [datetime.fromisoformat(str(t)) for _, t in frames]
    # Step 0 is the start and step N the world as tick N leaves it, at the tick's end (the
    # commute skips weekends): no two steps share a time.
    ticks = scenario.clock.calendar().times()
    assert times == [ticks[0], *(t + scenario.clock.tick for t in ticks)]
    assert len(set(times)) == len(times)
    (end,) = [e.t for e in read_events(done.events_path, {"run.end"})]
    assert frames[-1][1] == end
    replay = build_replay(read_events(done.events_path))  # what report.html shows
    shown = api.open_run(done.path).events()["t"]  # what `simulacra inspect` shows
    assert (replay.frames[0].t, replay.frames[-1].t) == tuple(
        t.isoformat() for t in (shown.min(), shown.max())
    )


@pytest.mark.parametrize("kind", sorted(BINDINGS))
def test_the_world_keeps_the_protocol_and_takes_its_state_back(kind: str, tmp_path: Path):
    """Built by its binding: a JSON layout naming its kind; every agent observed in every
    phase of the first tick; a snapshot that survives JSON and gives a fresh world the same
    frame. (The run below resolves its phases with what the minds decide.)"""
    _needs_3d(kind)
    binding = BINDINGS[kind]
    scenario = load_scenario(SCENARIOS / f"{SHIPPED[kind]}.yaml", small(SHIPPED[kind], tmp_path))
    assert binding.check(scenario) == []
    model = load_run_model(scenario, cache=None)

    def build() -> Any:
        services = Services(model, None, tmp_path / f"memory-{len(built)}.db", scenario, tmp_path)
        built.append(binding.build(scenario, services))
        return built[-1].world

    built: list[Any] = []
    try:
        world = build()
        layout = json.loads(json.dumps(world.layout()))
        assert layout["kind"] == kind
        tick = Clock(scenario.clock.calendar()).tick
        roster = binding.roster(scenario)
        # Event interventions are offered where the world takes them, and only there.
        assert isinstance(world, Intervenable) is bool(binding.changes)
        if isinstance(world, Begins):
            world.begin(tick)
        phases = list(world.phases(tick))
        assert phases, "a tick has at least one phase"
        for phase in phases:
            for agent in roster if phase.minds else ():
                assert isinstance(world.observe(agent, phase.name, tick), Observation)
        frame = json.loads(json.dumps(world.frame()))
        assert set(frame["agents"]) <= set(roster)
        snapshot = json.loads(json.dumps(world.snapshot()))
        fresh = build()
        fresh.restore(snapshot)
        assert json.loads(json.dumps(fresh.frame())) == frame
    finally:
        for cast in built:
            cast.close()


@pytest.mark.parametrize("kind", sorted(BINDINGS))
def test_the_run_is_measured_interviewed_or_refused_and_drawn(kind: str, tmp_path: Path):
    """A run logs its headline figures; an interview is answered where the
    binding says its minds can be, else refused with the binding's reason; the frames, the
    report (its world's own sections, none of another's) and the viewer are drawn."""
    _needs_3d(kind)
    binding = BINDINGS[kind]
    scenario = load_scenario(SCENARIOS / f"{SHIPPED[kind]}.yaml", small(SHIPPED[kind], tmp_path))
    done = run(scenario, progress=False)
    assert done.info()["status"] == "completed"
    metrics = json.loads((done.path / "metrics.json").read_text(encoding="utf-8"))
    figures = {e.data["name"] for e in read_events(done.events_path, {"metric"})}
    headline = binding.headline(binding.measures(list(read_events(done.events_path)), scenario))
    assert headline, f"{kind}: its measures give no headline figure"
    assert set(headline) <= figures, f"{kind}: its headline figures are not all logged"

    agent = binding.roster(scenario)[0]
    if INTERVIEW in binding.abilities(scenario):
        answer = interview(done.path, agent, "What did you do today?")
        assert answer.answer.strip()
    else:
        with pytest.raises(UserError, match="cannot be interviewed"):
            interview(done.path, agent, "What did you do today?")

    assert render_frames(done.path), f"{kind}: no frame drawn"
    paths = build_outputs(done.path)
    page = paths["report"].read_text(encoding="utf-8")
    own = world_report(kind)
    assert own.kind == kind
    if own.sections is not None:
        for section in own.sections(build_replay(read_events(done.events_path)), metrics):
            heading = section.split("<h2>", 1)[1].split("</h2>", 1)[0]
            assert heading in page
    assert any(key in metrics for key in own.shown) or not own.shown
    assert ("Each agent&#x27;s day" in page) is own.timeline
    assert page.count('<td class="unit">') == len(metrics["summary"])
    assert '<td class="unit"></td>' not in page, f"{kind}: a headline figure has no unit"
    viewer = paths["viewer"].read_text(encoding="utf-8")
    assert "simulacra replay" in viewer
