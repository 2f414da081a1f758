"""`simulacra diff RUN_A RUN_B`: two runs agree, wall-clock fields, latencies and byte
offsets aside, or the first difference is named by file, line and field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.experiments import load_scenario, run
from simulacra.runlog import RunDir

from .conftest import ELFAROL, small_elfarol

runner = CliRunner()


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunDir, RunDir]:
    root = tmp_path_factory.mktemp("twins")
    first, second = (
        run(load_scenario(ELFAROL, small_elfarol(root / name)), progress=False)
        for name in ("a", "b")
    )
    return first, second


def diff(a: Path, b: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["diff", str(a), str(b)])
    return result.exit_code, " ".join(result.output.split())


def copy(run_dir: RunDir, to: Path) -> Path:
    return Path(shutil.copytree(run_dir.path, to / "copy"))


def test_two_runs_of_one_seed_are_the_same(twins: tuple[RunDir, RunDir]) -> None:
    code, said = diff(twins[0].path, twins[1].path)
    events = sum(1 for _ in twins[0].events_path.open())
    assert code == 0 and said.startswith(f"same: {events} events and metrics.json agree")


def test_wall_clock_fields_latencies_and_offsets_are_ignored(
    twins: tuple[RunDir, RunDir], tmp_path: Path
) -> None:
    other = copy(twins[1], tmp_path)
    lines = []
    for line in (other / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        event["wall"] += 1000
        for key in ("latency_s", "offset"):
            if key in event["data"]:
                event["data"][key] += 7
        lines.append(json.dumps(event))
    (other / "events.jsonl").write_text("\n".join(lines) + "\n")
    assert diff(twins[0].path, other)[0] == 0


def test_the_first_difference_is_named_by_line_and_field(
    twins: tuple[RunDir, RunDir], tmp_path: Path
) -> None:
    reseeded = run(load_scenario(ELFAROL, small_elfarol(tmp_path, "seed=5")), progress=False)
    code, said = diff(twins[0].path, reseeded.path)
    assert code == 1
    assert said.startswith("differ at events.jsonl line 1 (seq 0, run at 2000-01-06T21:00:00)")
    assert said.endswith("data.seed: 1994 != 5")


def test_a_shorter_log_and_other_metrics_are_differences(
    twins: tuple[RunDir, RunDir], tmp_path: Path
) -> None:
    cut = copy(twins[1], tmp_path / "cut")
    lines = (cut / "events.jsonl").read_bytes().splitlines(keepends=True)
    (cut / "events.jsonl").write_bytes(b"".join(lines[:-2]))
    code, said = diff(twins[0].path, cut)
    assert code == 1 and f"line {len(lines) - 1}" in said and '"(no more events)"' in said

    changed = copy(twins[1], tmp_path / "changed")
    metrics = json.loads((changed / "metrics.json").read_text())
    metrics["summary"]["fallback_rate"] = 0.5
    (changed / "metrics.json").write_text(json.dumps(metrics))
    code, said = diff(twins[0].path, changed)
    assert code == 1 and said.startswith(
        "differ at metrics.json: summary.fallback_rate: 0.0 != 0.5"
    )


def test_a_folder_that_is_no_run_is_an_error(twins: tuple[RunDir, RunDir], tmp_path: Path) -> None:
    code, said = diff(twins[0].path, tmp_path)
    assert code == 2 and said.startswith(f"error: {tmp_path}: not a run directory")
