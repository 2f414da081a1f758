"""The embedded model's run does not depend on how busy the machine is: the same seed writes
the same events with every core taken by another process, even under a wall-clock timeout far
shorter than a call (the in-process model has none: a call ends within its max_tokens)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.experiments import load_scenario, run
from simulacra.runlog import RunDir

from .conftest import SCENARIOS

pytestmark = pytest.mark.slow

BURN = "while True: pass"


def short_town(root: Path) -> list[str]:
    """Two agents of the town for 20 minutes on the embedded model."""
    return [
        "agents.count=2",
        "clock.duration=20m",
        "interventions=[]",
        "world.attendance=null",
        "interviews=null",
        "memory.importance=rule",
        "model.timeout_s=0.5",
        f"output.root={root}",
        "output.report=false",
    ]


@contextmanager
def every_core_busy() -> Iterator[None]:
    burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(os.cpu_count() or 2)]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def run_town(root: Path) -> RunDir:
    return run(load_scenario(SCENARIOS / "town.yaml", short_town(root)), progress=False)


def test_an_embedded_run_writes_the_same_events_on_a_loaded_machine(tmp_path: Path) -> None:
    quiet = run_town(tmp_path / "quiet")
    with every_core_busy():
        loaded = run_town(tmp_path / "loaded")
    said = CliRunner().invoke(app, ["diff", str(quiet.path), str(loaded.path)])
    assert said.exit_code == 0, said.output
    calls = [
        json.loads(line)["data"]
        for line in loaded.events_path.read_text().splitlines()
        if '"kind":"llm.call"' in line
    ]
    assert calls and not any("timed out" in (call.get("error") or "") for call in calls)
