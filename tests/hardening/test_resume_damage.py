"""Resume never continues from a damaged log: each checkpoint records the digest of the log
up to its offset; a resume takes the newest checkpoint the log still matches, or refuses and
changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.grid.conftest import run_killed
from tests.runs import same

from simulacra.engine import CheckpointError
from simulacra.experiments import load_scenario, resume, run
from simulacra.runlog import EventWriter, RunDir

from .conftest import ELFAROL, simulacra, small_elfarol


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> RunDir:
    root = tmp_path_factory.mktemp("reference")
    return run(load_scenario(ELFAROL, small_elfarol(root)), progress=False)


def killed_at_week_7(root: Path) -> RunDir:
    """Checkpoints after weeks 2, 4 and 6 (the last three are kept), killed after week 7."""
    killed = run_killed(ELFAROL, small_elfarol(root), 7, root)
    assert _states(killed) == [6, 4, 2]
    return killed


def _states(run_dir: RunDir) -> list[int]:
    folder = run_dir.path / "checkpoint"
    return [int(p.stem.removeprefix("state-")) for p in sorted(folder.glob("state-*.json"))][::-1]


def _files(run_dir: RunDir) -> dict[Path, bytes]:
    """Every file of a run but its lock (which holds the pid of its last holder)."""
    return {
        p: p.read_bytes() for p in run_dir.path.rglob("*") if p.is_file() and p.name != "run.lock"
    }


def _offset(run_dir: RunDir, step: int) -> int:
    path = run_dir.path / "checkpoint" / f"state-{step:06d}.json"
    return int(json.loads(path.read_text())["offset"])


def test_a_log_cut_short_resumes_from_the_earlier_checkpoint_it_still_matches(
    reference: RunDir, tmp_path: Path
) -> None:
    killed = killed_at_week_7(tmp_path)
    cut = (_offset(killed, 4) + _offset(killed, 6)) // 2
    with killed.events_path.open("r+b") as log:
        log.truncate(cut)
    resumed = resume(killed.path, progress=False)
    assert resumed.info()["status"] == "completed"
    assert same(resumed, reference)
    done = simulacra("diff", str(reference.path), str(resumed.path))
    assert done.returncode == 0 and done.stdout.startswith("same: "), done.stdout + done.stderr


def test_a_log_changed_before_a_checkpoint_does_not_match_it(
    reference: RunDir, tmp_path: Path
) -> None:
    killed = killed_at_week_7(tmp_path)
    data = bytearray(killed.events_path.read_bytes())
    at = _offset(killed, 6) - 10  # same length, one byte different, inside week 5 or 6
    data[at] = ord("X") if data[at] != ord("X") else ord("Y")
    killed.events_path.write_bytes(bytes(data))
    resumed = resume(killed.path, progress=False)
    assert same(resumed, reference)


@pytest.mark.parametrize("damage", ["empty", "first_line"])
def test_a_log_damaged_before_every_checkpoint_is_refused_and_left_as_it_is(
    damage: str, tmp_path: Path
) -> None:
    killed = killed_at_week_7(tmp_path)
    if damage == "empty":
        killed.events_path.write_bytes(b"")
    else:
        data = killed.events_path.read_bytes()
        killed.events_path.write_bytes(data.replace(b'"seq":0', b'"seq":9', 1))
    before = _files(killed)
    with pytest.raises(CheckpointError, match="no checkpoint matches the event log") as refused:
        resume(killed.path, progress=False)
    assert "state-000006.json" in str(refused.value) and "state-000002.json" in str(refused.value)
    assert _files(killed) == before
    done = simulacra("run", "--resume", str(killed.path))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and "no checkpoint matches" in done.stderr
    assert f"simulacra run {killed.path / 'config.yaml'}" in done.stderr.replace("\n", " ")


def test_the_writer_refuses_to_continue_beyond_the_end_of_the_log(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(b'{"seq":0}\n')
    with pytest.raises(ValueError, match="holds only 10 bytes"):
        EventWriter(path, truncate_at=500)
    assert path.read_bytes() == b'{"seq":0}\n'
