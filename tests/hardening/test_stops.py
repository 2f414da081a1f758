"""A run stopped by a signal, plain or with its live console, ends as Ctrl+C ends a plain run
(test_errors.py holds that case and its resume): run.json marks it interrupted, one line on
stderr names the run and the command that continues it, and the exit status says which
signal (130 for SIGINT, 143 for SIGTERM)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simulacra.runlog import RunDir

from .conftest import ELFAROL, run_dirs, sets, small_elfarol

EXIT = {signal.SIGINT: 130, signal.SIGTERM: 143}


def _started(child: subprocess.Popen[str], root: Path, console: bool) -> None:
    """Wait until the run plays: its log is written (and its console's address printed)."""
    deadline = time.monotonic() + 90
    if console:
        assert child.stdout is not None
        printed = ""
        while "console:" not in printed:
            line = child.stdout.readline()
            assert line and time.monotonic() < deadline, f"no console came up: {printed}"
            printed += line
    while not any((p / "events.jsonl").exists() for p in run_dirs(root)):
        assert child.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)


@pytest.mark.parametrize(
    ("sent", "console"),
    [(signal.SIGTERM, False), (signal.SIGINT, True), (signal.SIGTERM, True)],
    ids=["sigterm-plain", "sigint-console", "sigterm-console"],
)
def test_a_signal_marks_the_run_interrupted_and_says_how_to_resume(
    sent: signal.Signals, console: bool, tmp_path: Path
) -> None:
    root = tmp_path / "runs"
    overrides = small_elfarol(root, "agents.count=50", "clock.ticks=500")  # half a minute
    command = [sys.executable, "-c", "from simulacra.cli import main; main()", "run"]
    child = subprocess.Popen(
        [*command, str(ELFAROL), *sets(overrides), *(["--console"] if console else [])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _started(child, root, console)
        child.send_signal(sent)
        _, stderr = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == EXIT[sent], stderr
    (stopped,) = [RunDir(p) for p in run_dirs(root)]
    assert stopped.info()["status"] == "interrupted"
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    assert lines[0].startswith("terminated: " if sent == signal.SIGTERM else "interrupted: ")
    assert f"run {stopped.path} stopped" in lines[0]
    assert lines[0].endswith(f"simulacra run --resume {stopped.path}")
    assert not (stopped.path / "console.url").exists()  # the console stopped with the run
