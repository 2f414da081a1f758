from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from simulacra.experiments import Scenario, load_scenario
from simulacra.runlog import RunDir

HAZARD = Path(__file__).parents[2] / "scenarios" / "hazard.yaml"


def scenario(
    root: Path,
    people: list[dict[str, Any]],
    *,
    steps: int = 2,
    places: list[dict[str, Any]] | None = None,
    fires: list[dict[str, Any]] | None = None,
    frames: bool = False,
    memory: dict[str, Any] | None = None,
    agents: dict[str, Any] | None = None,
) -> Scenario:
    """A small hand-built grid scenario: explicit agents, no generated ones."""
    return load_scenario(
        {
            "name": "grid-test",
            "seed": 1,
            "model": "scripted",
            "clock": {"tick": "1h", "ticks": steps},
            "world": {
                "kind": "grid",
                "half_size": 10,
                "places": places or [],
                "fires": fires or [],
            },
            "agents": {"count": len(people), "personas": people, **(agents or {})},
            "memory": memory or {},
            "output": {"root": str(root), "frames": frames, "report": False},
        }
    )


_KILLER = textwrap.dedent(
    """
    import json, os, signal, sys
    from simulacra.experiments import load_scenario, run

    def kill(progress):
        if progress.step == int(sys.argv[2]):
            os.kill(os.getpid(), signal.SIGKILL)

    run(load_scenario(sys.argv[1], json.loads(sys.argv[3])), progress=False, on_progress=kill)
    """
)


def run_killed(scenario: Path, overrides: list[str], step: int, root: Path) -> RunDir:
    """Run `scenario` in a subprocess that SIGKILLs itself once tick `step` is done; the run
    directory it leaves behind under `root`."""
    done = subprocess.run(
        [sys.executable, "-c", _KILLER, str(scenario), str(step), json.dumps(overrides)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == -9, done.stderr
    (killed,) = [RunDir(p) for p in root.iterdir() if p.is_dir()]
    return killed
