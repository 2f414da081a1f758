"""The harness's record: what each command wrote, kept where the attempt cannot write it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulacra.lab.record import (
    CommandRecord,
    HarnessRecord,
    Record,
    Recorder,
    RecordError,
    record_folder,
    snapshot,
    walk_links,
)
from simulacra.lab.sandbox import SandboxLimits, bwrap_path

pytestmark = pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap")
LIMITS = SandboxLimits(wall_s=20, cpu_s=10)


@pytest.fixture
def recorder(tmp_path: Path) -> Recorder:
    attempt = tmp_path / "episode" / "attempt-1"
    (attempt / "outputs").mkdir(parents=True)
    return Recorder(attempt, LIMITS)


def test_each_command_is_recorded_with_what_it_created_changed_and_removed(
    recorder: Recorder,
) -> None:
    (recorder.attempt / "outputs" / "given.txt").write_text("given")
    placed = recorder.note("the task's files")
    assert list(placed.files) == ["outputs/given.txt"]
    first = recorder.run("echo a > outputs/a.txt && echo b > outputs/b.txt", inner=1, name="1-1")
    second = recorder.run("echo c >> outputs/a.txt && rm outputs/b.txt", inner=1, name="1-2")
    assert set(first.created) == {"outputs/a.txt", "outputs/b.txt"} and not first.changed
    assert set(second.changed) == {"outputs/a.txt"} and second.removed == ["outputs/b.txt"]
    assert all(d.startswith("sha256:") for d in {**first.created, **second.changed}.values())
    assert set(first.logs) == {"logs/1-1.out", "logs/1-1.err"}
    record = Record(recorder.attempt)
    assert [type(e) for e in record.entries()] == [
        HarnessRecord,
        HarnessRecord,
        CommandRecord,
        CommandRecord,
    ]
    assert set(record.final_digests()) == {"outputs/given.txt", "outputs/a.txt"}
    assert record.producers()["outputs/a.txt"].seq == second.seq
    assert record.limits() == LIMITS
    assert (record.copies(placed) / "outputs" / "given.txt").read_text() == "given"


def test_the_record_lies_outside_the_attempt_and_the_sandbox_cannot_write_it(
    recorder: Recorder,
) -> None:
    folder = record_folder(recorder.attempt)
    assert recorder.attempt not in folder.parents and folder.is_dir()
    before = (folder / "record.jsonl").read_bytes()
    result = recorder.run(f"echo forged >> {folder}/record.jsonl", inner=1, name="1-1")
    assert not result.ok
    assert (folder / "record.jsonl").read_bytes().startswith(before)
    assert all(e.command != "forged" for e in Record(recorder.attempt).commands())


def test_a_link_is_recorded_as_a_link_and_found_when_it_leads_out(recorder: Recorder) -> None:
    entry = recorder.run(
        "ln -s /etc/hostname outputs/out.txt && ln -s a outputs/in", inner=1, name="1-1"
    )
    assert entry.created["outputs/out.txt"] == "link:/etc/hostname"
    assert [path for path, _ in walk_links(recorder.attempt)] == ["outputs/out.txt"]


def test_an_empty_plan_is_a_failed_try_without_logs(recorder: Recorder) -> None:
    entry = recorder.empty(inner=2)
    assert not entry.ok and not entry.ran and not entry.logs
    assert Record(recorder.attempt).final_commands() == [entry]


def test_a_removed_reordered_or_edited_line_breaks_the_chain(recorder: Recorder) -> None:
    recorder.run("true", inner=1, name="1-1")
    recorder.run("true", inner=1, name="1-2")
    path = record_folder(recorder.attempt) / "record.jsonl"
    lines = path.read_text().splitlines()
    for broken in (
        [lines[0], *lines[2:]],
        [lines[0], lines[2], lines[1]],
        [*lines[:-1], json.dumps(json.loads(lines[-1]) | {"exit_code": 1})],
        [*lines, "not json"],
    ):
        path.write_text("\n".join(broken) + "\n")
        with pytest.raises(RecordError):
            Record(recorder.attempt).entries()


def test_an_attempt_without_a_record_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="no harness record"):
        Record(tmp_path / "attempt-1").entries()


def test_a_snapshot_skips_logs_and_home_and_never_follows_links(tmp_path: Path) -> None:
    for part in ("logs", "home", "outputs"):
        (tmp_path / part).mkdir()
        (tmp_path / part / "f").write_text(part)
    (tmp_path / "outputs" / "up").symlink_to(tmp_path)
    found = snapshot(tmp_path)
    assert set(found) == {"outputs/f", "outputs/up"} and found["outputs/up"].startswith("link:")
