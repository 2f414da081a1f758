"""A grid run's console moves a fire and adds one: checked in the grid's own names and cells,
fired at the next step through the interventions' path, drawn where it now is, and the run
with the recorded actions scheduled is the same run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.console.driver import ConsoleRun, killed_and_resumed, played
from tests.engine.test_conformance import SCENARIOS, small
from tests.runs import same

from simulacra.cli_console import write_scheduled
from simulacra.errors import UserError
from simulacra.experiments import load_scenario, run
from simulacra.experiments.scenario import Scenario
from simulacra.report.replay import build_replay
from simulacra.runlog import RunDir, compare_runs, read_events
from simulacra.worlds.grid import grid_metrics

MOVED = {"fire": "fire1", "position": [-3, -20]}
ADDED = {"fire": "<b>ember</b>", "position": [20, 20], "intensity": 0.4, "radius": 6}


def _hazard(root: Path, *more: str) -> Scenario:
    return load_scenario(SCENARIOS / "hazard.yaml", [*small("hazard", root), *more])


def _event(change: dict[str, Any]) -> dict[str, Any]:
    return {"action": "intervene", "intervention": {"type": "event", "text": "x", "change": change}}


def _play(console: ConsoleRun) -> None:
    """At step 1 fire1 is moved (it starts at step 3, from its new cell); at step 3 a new fire
    is added; then the run goes on."""
    console.paused_at(1)
    choices = console.call("/console/choices")[1]
    assert choices["types"] == ["event"] and choices["fires"] == ["fire1", "fire2"]
    console.act(who="teacher", **_event(MOVED))
    console.act(who="teacher", action="step")
    console.paused_at(2)
    console.act(who="teacher", action="step")
    console.paused_at(3)
    console.act(who="teacher", **_event(ADDED))
    console.act(who="teacher", action="resume")


def test_a_fire_moved_and_one_added_are_drawn_where_they_are_and_reproduce(
    tmp_path: Path,
) -> None:
    done = played(_hazard(tmp_path / "live"), _play)
    assert isinstance(done, RunDir), done
    events = list(read_events(done.events_path))
    fired = [e.data["change"] for e in events if e.kind == "intervention"]
    assert fired == [MOVED, ADDED]
    frames = {e.data["step"]: e.data for e in events if e.kind == "world"}
    assert frames[2]["fires"] == []  # fire1 starts at step 3, moved or not
    moved = {"name": "fire1", "start_step": 3, "x": -3, "y": -20, "intensity": 0.8, "radius": 15}
    ember = {"name": "<b>ember</b>", "start_step": 3, "x": 20, "y": 20, "intensity": 0.4}
    assert frames[3]["fires"] == [moved, {**ember, "radius": 6.0}]  # sent before step 3
    assert frames[5]["fires"][1] == "fire2"  # the layout's own fire is still a name
    # Agents perceive the fire where it now burns: within its radius of (-3, -20).
    near = [
        a for a, (x, y) in frames[2]["positions"].items() if (x + 3) ** 2 + (y + 20) ** 2 <= 225
    ]
    assert frames[3]["perceived"]["fire1"] == near
    # The viewer draws it there (mirrored, as the grid's y axis points up); measures count it.
    replay = build_replay(events)
    shown = next(f.extras["fires"] for f in replay.frames if f.step == 4)
    assert (shown[0]["x"], shown[0]["y"]) == (-3, 20)
    measured = grid_metrics(events)
    within = measured["agents_within_fire_radius"]["<b>ember</b>"]
    assert len(within) == len(measured["steps"]) and within[:2] == [0, 0]

    # scheduled.yaml, as `simulacra run --console` writes it, runs the same run again.
    again_from = write_scheduled(done.path)
    again = run(
        load_scenario(again_from, ["output.root=" + str(tmp_path / "again")]), progress=False
    )
    found = compare_runs(done.path, again.path)
    assert found.same, found.difference


def test_a_grid_console_run_killed_after_a_fire_moved_resumes_with_it(tmp_path: Path) -> None:
    whole, resumed = killed_and_resumed(_hazard, _play, tmp_path, 5)
    assert same(resumed, whole)  # the moved fire from the checkpoint


def test_a_fire_change_the_grid_cannot_take_is_refused_naming_the_field(tmp_path: Path) -> None:
    console = ConsoleRun(_hazard(tmp_path))
    try:
        console.paused_at(1)
        for change, reason in [
            ({"fire": "fire1", "position": [99, 0]}, "outside the field -25..25"),
            ({"fire": "fire1", "position": [1.5, 0]}, "position: two whole numbers"),
            ({"fire": "fire9", "position": [0, 0]}, "new fire; give its intensity and radius"),
            ({"fire": "fire1", "position": [0, 0], "intensity": 2}, "intensity: a number"),
            ({"place": "cafe", "object": "door", "state": "shut"}, "unknown field 'object'"),
        ]:
            status, answer = console.call("/console/act", _event(change))
            assert status == 400 and reason in answer["error"], (change, answer)
        assert console.call("/console/status")[1]["queued"] == 0
    finally:
        console.close()


def test_a_scenario_schedules_a_fire_move_checked_in_the_grid_words(tmp_path: Path) -> None:
    moved = '{at: "02:00", type: event, text: x, change: {fire: fire1, position: [-3, -20]}}'
    done = run(_hazard(tmp_path, "interventions=[" + moved + "]"), progress=False)
    frames = {e.data["step"]: e.data for e in read_events(done.events_path, {"world"})}
    assert frames[3]["fires"][0]["y"] == -20
    far = moved.replace("[-3, -20]", "[-3, -99]")
    with pytest.raises(UserError, match=r"interventions\[0\]\.change: position: \[-3, -99\]"):
        _hazard(tmp_path, "interventions=[" + far + "]")


def test_a_console_resume_takes_a_raised_budget_and_refuses_other_settings(
    tmp_path: Path,
) -> None:
    def stop(progress: Any) -> None:
        if progress.step == 3:
            raise RuntimeError("the machine went down")

    assert isinstance(played(_hazard(tmp_path), _play, stop), RuntimeError)
    (path,) = tmp_path.iterdir()
    with pytest.raises(UserError, match="do not apply to --resume"):
        ConsoleRun(resume=path, overrides=("seed=3",))
    console = ConsoleRun(resume=path, overrides=("model.budget.calls=1000",), paused=False)
    try:
        done = console.finish()
    finally:
        console.close()
    assert isinstance(done, RunDir), done
    assert done.config()["model"]["budget"]["calls"] == 1000
    assert done.info()["status"] == "completed"
