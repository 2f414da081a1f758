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

from .conftest import ELFAROL, SCENARIOS, small_elfarol

HAZARD = SCENARIOS / "hazard.yaml"

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


def test_another_seed_is_named_with_the_first_event_and_the_metrics_that_differ(
    twins: tuple[RunDir, RunDir], tmp_path: Path
) -> None:
    reseeded = run(load_scenario(ELFAROL, small_elfarol(tmp_path, "seed=5")), progress=False)
    code, said = diff(twins[0].path, reseeded.path)
    assert code == 1
    assert said.startswith(f"differ: {twins[0].path} and {reseeded.path} settings: seed 1994 != 5")
    # Not the header's seed: the first event after it whose content differs, and where.
    event = said.split("first event that differs: ", 1)[1]
    assert event.startswith("events.jsonl line ") and "(seq 0" not in event
    line = int(event.split()[2])
    first = [
        json.loads(x)
        for x in (
            twins[0].events_path.read_text().splitlines()[line - 1],
            (reseeded.events_path.read_text().splitlines()[line - 1]),
        )
    ]
    assert first[0]["data"] != first[1]["data"]
    # Every headline figure that differs, with both values.
    ours, theirs = (
        json.loads((r.path / "metrics.json").read_text())["summary"] for r in (twins[0], reseeded)
    )
    changed = [k for k in ours if ours[k] != theirs[k]]
    assert changed
    for name in changed:
        assert f"summary.{name} {json.dumps(ours[name])} != {json.dumps(theirs[name])}" in said


def test_runs_of_two_scenarios_say_so(twins: tuple[RunDir, RunDir], tmp_path: Path) -> None:
    quiet = ["model.spec=scripted", f"output.root={tmp_path}", "output.report=false"]
    grid = run(load_scenario(HAZARD, [*quiet, "clock.ticks=2", "output.frames=false"]))
    code, said = diff(twins[0].path, grid.path)
    assert code == 1 and "different scenarios: elfarol and hazard" in said
    assert "settings:" not in said  # every field differs; the names say it


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
    assert code == 1
    assert f"all {len(lines)} agree after the run header" in said
    assert said.endswith("metrics that differ (1): summary.fallback_rate 0.0 != 0.5")


def test_a_folder_that_is_no_run_is_an_error(twins: tuple[RunDir, RunDir], tmp_path: Path) -> None:
    code, said = diff(twins[0].path, tmp_path)
    assert code == 2 and said.startswith(f"error: {tmp_path}: not a run directory")
