"""Checks on whole runs that tests of every world share."""

from __future__ import annotations

from typing import Any

from simulacra.engine import Checkpoints
from simulacra.runlog import RunDir, compare_runs


def same(a: RunDir, b: RunDir) -> bool:
    """True when two runs agree event for event and in their metrics, wall-clock fields
    aside (what `simulacra diff` checks); otherwise the first difference fails the test."""
    found = compare_runs(a.path, b.path)
    assert found.same, f"{a.path.name} and {b.path.name} differ at {found.difference}"
    return True


def latest_checkpoint(run: RunDir) -> dict[str, Any]:
    """The checkpoint a resume of `run` would continue from."""
    state = Checkpoints(run.path / "checkpoint").load(run.events_path)
    assert state is not None, f"{run.path} has no checkpoint"
    return state
