"""An embodied run killed mid-way resumes from its checkpoint to the log an uninterrupted
run writes: the world's poses and counters, the random walker's generator and the caption
agent's history all come back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.grid.conftest import run_killed

from simulacra.experiments import load_scenario, resume, run
from simulacra.runlog import read_events

SCENARIO = Path("scenarios/embodied.yaml")
WALL_CLOCK = ("latency_s", "offset")


def _overrides(root: Path, mind: str) -> list[str]:
    return [
        f"agents.mind={mind}",
        "model.spec=scripted",
        "clock.ticks=6",
        "clock.checkpoint_every=2",
        "world.camera.width=96",
        "world.camera.height=72",
        f"output.root={root}",
        "output.report=false",
    ]


def _comparable(path: Path) -> list[tuple[Any, ...]]:
    rows = []
    for e in read_events(path):
        data = {k: v for k, v in e.data.items() if k not in WALL_CLOCK}
        rows.append((e.seq, e.t, e.kind, e.agent, json.dumps(data, sort_keys=True)))
    return rows


def test_the_random_walker_picks_up_its_generator_where_it_stopped() -> None:
    from simulacra.mind.embodied import RandomWalker

    walker = RandomWalker("agent", seed=5)
    for _ in range(3):
        walker.choose({})
    saved = json.loads(json.dumps(walker.state()))
    ahead = [walker.choose({}) for _ in range(4)]
    again = RandomWalker("agent", seed=5)
    again.restore(saved)
    assert [again.choose({}) for _ in range(4)] == ahead


@pytest.mark.parametrize("mind", ["caption"])
def test_a_killed_run_resumes_to_the_same_log(tmp_path: Path, renders: None, mind: str) -> None:
    reference = run(load_scenario(SCENARIO, _overrides(tmp_path / "ref", mind)), progress=False)
    (tmp_path / "killed").mkdir()
    killed = run_killed(SCENARIO, _overrides(tmp_path / "killed", mind), 3, tmp_path / "killed")
    assert killed.info()["status"] == "running"
    resumed = resume(killed.path, progress=False)
    assert resumed.info()["status"] == "completed"
    assert _comparable(resumed.events_path) == _comparable(reference.events_path)
