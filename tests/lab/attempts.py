"""Attempts built as the agent builds them: the harness places the task's files and the
skills, records every command it runs in the sandbox, and writes the report. A test gives the
commands (real work, or a fabrication) and the report."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from simulacra.lab.claims import Claim, Measure
from simulacra.lab.episode import Attempt, Report
from simulacra.lab.library import SEED
from simulacra.lab.record import Recorder, record_folder
from simulacra.lab.sandbox import SandboxLimits
from simulacra.lab.tasks import SuiteTask, load_suite, place_files

LIMITS = SandboxLimits(wall_s=90, cpu_s=60)
SUITE = {t.task.id: t for t in load_suite("v1")}
RUN = "python skills/run-simulation/scripts/simulate.py --net outputs/grid.net.xml "
SIMULATE = f"{RUN}--routes outputs/routes.rou.xml --end 1500 --out outputs"
ANALYSE = (
    "python skills/analyze-tripinfo/scripts/tripinfo_stats.py --tripinfo outputs/tripinfo.xml "
    "--out outputs/metrics.json"
)
GRID = "python skills/create-grid-network/scripts/grid.py --grid {grid} --length {length} "
GRID_4 = GRID.format(grid=4, length=150) + "--lanes 1 --lights no --out outputs/grid.net.xml"
TRIPS = (
    "python skills/generate-random-trips/scripts/trips.py --net outputs/grid.net.xml "
    "--period 2 --end 600 --seed 1 --out outputs/routes.rou.xml"
)
PLOT = (
    "python skills/plot-summary/scripts/plot_summary.py --summary outputs/summary.xml "
    "--out outputs/running.png"
)
SIMULATE_900 = f"{RUN}--routes outputs/routes.rou.xml --end 900 --out outputs"


def claim(name: str, value: float | str, artifact: str, measure: str, **fields: str) -> Claim:
    return Claim(name=name, value=value, artifact=artifact, measure=Measure(measure), **fields)


def build(
    root: Path,
    task_id: str,
    commands: Sequence[str],
    *,
    claims: Sequence[Claim] = (),
    summary: str = "Ran the commands; every required output was produced.",
    scripts: Mapping[str, str] | None = None,
    suite_task: SuiteTask | None = None,
) -> Path:
    """An attempt of a suite task with these commands and this report; its folder."""
    suite_task = suite_task or SUITE[task_id]
    episode = root / f"episode-{task_id}"
    episode.mkdir(parents=True)
    (episode / "task.yaml").write_text(yaml.safe_dump(suite_task.task.record()), "utf-8")
    attempt = Attempt.create(episode, 1)
    recorder = Recorder(attempt.folder, LIMITS)
    place_files(suite_task, attempt.folder)
    recorder.note("the task's files")
    shutil.copytree(SEED / "skills", attempt.folder / "skills", dirs_exist_ok=True)
    recorder.note("the skills loaded")
    for relative, text in (scripts or {}).items():
        (attempt.folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (attempt.folder / relative).write_text(text, encoding="utf-8")
    if scripts:
        recorder.note("the scripts of try 1")
    for k, command in enumerate(commands, start=1):
        recorder.run(command, inner=1, name=f"1-{k}")
    attempt.write_report(Report(summary=summary, success=True, claims=list(claims)))
    recorder.note("the report")
    return attempt.folder


def scripted(
    root: Path,
    task_id: str,
    script: str,
    *,
    before: Sequence[str] = (),
    args: str = "",
    claims: Sequence[Claim] = (),
    suite_task: SuiteTask | None = None,
) -> Path:
    """An attempt whose own code is one script (`scripts/attempt.py`, run with `args`) after
    the commands `before`: how a test makes an attempt's fabrication, or its real work."""
    command = f"python scripts/attempt.py {args}".strip()
    return build(
        root,
        task_id,
        [*before, command],
        claims=claims,
        scripts={"scripts/attempt.py": script},
        suite_task=suite_task,
    )


def copy(attempt: Path, root: Path) -> Path:
    """A copy of an attempt with its record, to tamper with."""
    target = root / attempt.parent.name
    shutil.copytree(attempt.parent, target, symlinks=True)
    return target / attempt.name


def rewrite_record(attempt: Path, change: Mapping[int, Mapping[str, object]]) -> None:
    """Rewrite record entries (by seq) and, as a careful forger would, the digest chain."""
    path = record_folder(attempt) / "record.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    prev = "0" * 64
    out = []
    for entry in lines:
        entry |= change.get(entry["seq"], {})
        entry["prev"] = prev
        text = json.dumps(entry, separators=(",", ":"))
        prev = hashlib.sha256(text.encode()).hexdigest()
        out.append(text)
    path.write_text("\n".join(out) + "\n")
    (path.parent / "head").write_text(prev + "\n")
