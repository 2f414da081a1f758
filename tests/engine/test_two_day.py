"""scenarios/town-2day.yaml: two days, the party planned on the first and held on the second;
killed on the second day, it resumes to the log of an uninterrupted run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.engine.test_run import _KILLER, model
from tests.runs import latest_checkpoint, same

from simulacra.experiments import load_scenario, resume, run
from simulacra.runlog import RunDir, read_events

TWO_DAYS = Path(__file__).resolve().parents[2] / "scenarios" / "town-2day.yaml"


def small(root: Path) -> list[str]:
    """Four agents (Sam, the candidate, is the fourth), hourly ticks: 14 ticks a day, 28 in
    all, a checkpoint every four."""
    return [
        "agents.count=4",
        "clock.tick=60m",
        "clock.checkpoint_every=4",
        "memory.embedder=hashing",
        f"output.root={root}",
        "output.report=false",
    ]


def test_the_two_day_town_plans_both_days_and_resumes_after_a_kill(tmp_path: Path) -> None:
    whole = run(load_scenario(TWO_DAYS, small(tmp_path / "whole")), model=model(), progress=False)
    days = {
        (e.t or "")[:10]
        for e in read_events(whole.events_path, {"plan"})
        if e.data["level"] == "day"
    }
    assert days == {"2024-02-13", "2024-02-14"}
    worlds = [e.t for e in read_events(whole.events_path, {"world"})]
    assert len(worlds) == 29 and "2024-02-13T22:00:00" not in worlds  # the night is skipped
    assert worlds[14:16] == ["2024-02-13T21:00:00", "2024-02-14T08:00:00"]  # each tick's end
    killed_root = tmp_path / "killed"
    done = subprocess.run(
        [sys.executable, "-c", _KILLER, str(TWO_DAYS), "18", json.dumps(small(killed_root))],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == -9, done.stderr
    (killed,) = [RunDir(p) for p in killed_root.iterdir() if p.is_dir()]
    assert latest_checkpoint(killed)["step"] == 16  # the second day's 3rd tick
    resumed = resume(killed.path, model=model(), progress=False)
    assert resumed.info()["status"] == "completed"
    assert same(resumed, whole)
