"""One process writes a run at a time: a resume of a live run, or a second resume, is
refused with a clear error, and the log never gets a duplicate seq."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from tests.runs import same

from simulacra.experiments import load_scenario, resume, run
from simulacra.runlog import RunDir, RunLocked, read_events

from .conftest import ELFAROL, run_dirs, simulacra, small_elfarol

# A run (or, given a run directory, a resume) that stops after week 3 until `go` exists.
_PAUSED = textwrap.dedent(
    """
    import json, pathlib, sys, time
    from simulacra.experiments import load_scenario, resume, run

    signal_dir = pathlib.Path(sys.argv[1])

    def pause(progress):
        if progress.step == 3:
            (signal_dir / "paused").touch()
            while not (signal_dir / "go").exists():
                time.sleep(0.05)

    if sys.argv[2] == "run":
        run(load_scenario(sys.argv[3], json.loads(sys.argv[4])), progress=False, on_progress=pause)
    else:
        resume(sys.argv[3], progress=False, on_progress=pause)
    """
)


def _paused(signals: Path, *args: str) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", _PAUSED, str(signals), *args], text=True, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    while not (signals / "paused").exists():
        assert child.poll() is None, child.communicate()[1]
        assert time.monotonic() < deadline, "the child never paused"
        time.sleep(0.05)
    return child


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> RunDir:
    root = tmp_path_factory.mktemp("reference")
    return run(load_scenario(ELFAROL, small_elfarol(root)), progress=False)


def test_a_live_run_cannot_be_resumed_and_a_second_resume_is_refused(
    reference: RunDir, tmp_path: Path
) -> None:
    root, signals = tmp_path / "runs", tmp_path / "signals"
    signals.mkdir()
    writer = _paused(signals, "run", str(ELFAROL), json.dumps(small_elfarol(root)))
    (live,) = [RunDir(p) for p in run_dirs(root)]
    with pytest.raises(RunLocked, match=f"pid {writer.pid}"):
        resume(live.path, progress=False)
    refused = simulacra("run", "--resume", str(live.path))
    assert refused.returncode == 2 and refused.stderr.startswith("error: "), refused.stderr
    assert "being written by another process" in refused.stderr

    # Killed, the run is free again: one resume takes it, a second is refused.
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    (signals / "paused").unlink()
    first = _paused(signals, "resume", str(live.path))
    with pytest.raises(RunLocked, match=f"pid {first.pid}"):
        resume(live.path, progress=False)
    (signals / "go").touch()
    assert first.wait(timeout=120) == 0, first.communicate()[1]

    seqs = [e.seq for e in read_events(live.events_path)]
    assert seqs == list(range(len(seqs)))
    assert same(live, reference)
