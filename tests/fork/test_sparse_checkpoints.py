"""A run keeps its last checkpoints and, over the whole run, every SPARSE-th: a fork far from
the end replays from the nearest of those, not from the start."""

from pathlib import Path

from simulacra.engine.checkpoint import KEEP, SPARSE, Checkpoints
from simulacra.runlog import prefix_digest


def _saved(folder: Path, every: int, steps: int, told: int) -> list[int]:
    """The steps kept of checkpoints every `every` ticks to `steps`, `told` the interval."""
    log = folder / "events.jsonl"
    log.write_bytes(b"")
    checkpoints = Checkpoints(folder / "checkpoint", every=told)
    for step in range(every, steps + 1, every):
        checkpoints.save({"step": step, "offset": 0, "digest": prefix_digest(log, 0)})
    return sorted(int(p.stem.removeprefix("state-")) for p in checkpoints.folder.glob("state-*"))


def test_the_older_checkpoints_at_a_multiple_of_sparse_intervals_are_kept(tmp_path: Path) -> None:
    every, last = 3, 3 * 20
    kept = _saved(tmp_path, every, last, every)
    newest = list(range(last - every * (KEEP - 1), last + 1, every))
    sparse = list(range(SPARSE * every, last - every * KEEP + 1, SPARSE * every))
    assert kept == sorted(set(sparse) | set(newest))
    # No step of the run is more than SPARSE intervals past a kept checkpoint.
    assert all(any(0 <= s - k <= SPARSE * every for k in [0, *kept]) for s in range(last + 1))


def test_without_the_interval_only_the_last_checkpoints_are_kept(tmp_path: Path) -> None:
    assert _saved(tmp_path, 1, 12, 0) == list(range(13 - KEEP, 13))
