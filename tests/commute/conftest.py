from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from simulacra.experiments import Scenario, load_scenario
from simulacra.runlog import RunDir

SCENARIO = Path(__file__).parents[2] / "scenarios" / "commute.yaml"
# One agent of each of the four profiles.
ONE_EACH = (
    "agents.mix={student: 1, administrative_worker: 1, elderly_resident: 1, factory_worker: 1}"
)
# The scripted model, and an embedder that needs no model files (the commuter's stream is
# only embedded when an interview retrieves from it).
OFFLINE = ("model.spec=scripted", "memory.embedder=hashing")
# For runs shorter than the shipped strike (days 11-15), which would never reach it.
NO_STRIKE = "world.city.taxi_strikes=[]"


def commute(*overrides: str) -> Scenario:
    """The shipped scenario, offline, with `overrides`."""
    return load_scenario(SCENARIO, [*OFFLINE, *overrides])


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
