"""The engine's promises, checked on every shipped world: a stopped run resumes to the same log
as an uninterrupted one, and two runs with the same seed write the same log."""

from datetime import datetime
from importlib.util import find_spec
from pathlib import Path

import pytest
from tests.runs import latest_checkpoint, same

from simulacra import api
from simulacra.engine import Progress
from simulacra.experiments import load_scenario, resume, run
from simulacra.report.replay import build_replay
from simulacra.runlog import RunDir, read_events

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
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


@pytest.mark.parametrize("name", sorted(SMALL))
def test_a_stopped_run_resumes_to_the_log_of_an_uninterrupted_one(name: str, tmp_path: Path):
    if name == "embodied" and not all(find_spec(m) for m in ("pxr", "pyvista")):
        pytest.skip("the embodied world needs the 3d extra (usd-core and pyvista)")
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


@pytest.mark.parametrize("name", sorted(SMALL))
def test_each_step_has_its_own_time_and_the_report_ends_where_inspect_does(
    name: str, tmp_path: Path
):
    if name == "embodied" and not all(find_spec(m) for m in ("pxr", "pyvista")):
        pytest.skip("the embodied world needs the 3d extra (usd-core and pyvista)")
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
