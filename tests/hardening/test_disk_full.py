"""A disk that refuses writes: the log keeps whole lines, a start that fails leaves nothing, a
run that fails later is marked failed with the reason (even when the log cannot record it),
and it resumes to the log of a run that never failed.

The refusal is the kernel's: a child process runs under RLIMIT_FSIZE, so a write past the
limit is cut short and the next one fails with EFBIG, as on a full disk."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from simulacra.experiments import load_scenario, resume, run
from simulacra.runlog import RunDir, read_events

from .conftest import ELFAROL, run_dirs, sets, simulacra, small_elfarol

_WRITER = textwrap.dedent(
    """
    import resource, signal, sys
    from simulacra.runlog import EventWriter, RunDir
    from simulacra.runlog.events import WorldState

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    limit = int(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    run = RunDir.create(sys.argv[1], "full", seed=0, model="scripted", config={})
    writer = run.writer()
    # "stop": events of about 200 bytes flushed seven at a time; "record": events of about
    # 100 bytes flushed one at a time, so the room left is less than a `run.end` line needs.
    batch, pad = (7, "x" * 100) if sys.argv[3] == "stop" else (1, "")
    step = 0
    try:
        while True:
            for _ in range(batch):
                writer.emit(WorldState(step=step, agents={}, extra={"pad": pad}))
                step += 1
            writer.flush()
    except OSError as exc:
        print(writer.offset, flush=True)
        if sys.argv[3] == "record":
            run.record_failure(writer, exc)
    """
)


def _write_until_full(root: Path, limit: int, then: str) -> tuple[int, RunDir]:
    done = subprocess.run(
        [sys.executable, "-c", _WRITER, str(root), str(limit), then],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    (path,) = run_dirs(root)
    return int(done.stdout), RunDir(path)


def test_a_write_the_disk_refuses_part_way_leaves_only_whole_lines(tmp_path: Path) -> None:
    offset, run_dir = _write_until_full(tmp_path, 20_480, "stop")
    log = run_dir.events_path.read_bytes()
    # The refused batch was cut back: the log ends where the last whole flush ended.
    assert len(log) == offset <= 20_480
    assert log.endswith(b"\n")
    steps = [e.data["step"] for e in read_events(run_dir.events_path)]
    assert steps == list(range(len(steps))) and len(steps) > 50


def test_a_failure_the_log_cannot_record_is_still_written_to_run_json(tmp_path: Path) -> None:
    # The disk refuses the log's `run.end` line too; run.json says both.
    _, run_dir = _write_until_full(tmp_path, 20_480, "record")
    info = run_dir.info()
    assert info["status"] == "failed"
    assert "File too large" in info["error"]
    assert "the log could not record it" in info["error"]
    assert run_dir.events_path.read_bytes().endswith(b"\n")
    assert not any(e.kind == "run.end" for e in read_events(run_dir.events_path))


def test_a_start_the_disk_refuses_leaves_no_run_directory(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    done = simulacra("run", str(ELFAROL), *sets(small_elfarol(root)), file_limit=100, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and "File too large" in done.stderr
    assert "Traceback" not in done.stderr
    assert not root.exists()


def test_a_run_stopped_by_a_full_disk_is_marked_failed_and_resumes_to_the_same_log(
    tmp_path: Path,
) -> None:
    reference = run(load_scenario(ELFAROL, small_elfarol(tmp_path / "ref")), progress=False)
    size = reference.events_path.stat().st_size
    root = tmp_path / "runs"
    done = simulacra(
        "run", str(ELFAROL), *sets(small_elfarol(root)), file_limit=size // 2, cwd=tmp_path
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: run ") and "File too large" in done.stderr
    assert "simulacra run --resume" in done.stderr and "Traceback" not in done.stderr
    (failed,) = [RunDir(p) for p in run_dirs(root)]
    info = failed.info()
    assert info["status"] == "failed" and "File too large" in info["error"]
    assert failed.events_path.read_bytes().endswith(b"\n")
    assert len(list(read_events(failed.events_path))) > 0

    resumed = resume(failed.path, progress=False)
    assert resumed.info()["status"] == "completed"
    same = simulacra("diff", str(reference.path), str(resumed.path))
    assert same.returncode == 0, same.stdout + same.stderr
    assert same.stdout.startswith("same: ")
    assert (
        json.loads((resumed.path / "metrics.json").read_text())["summary"]
        == (reference.info()["summary"])
    )
