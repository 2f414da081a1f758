"""Task suites: a task is a folder with task.yaml and verify.py.

task.yaml: `id`, `tier` (1-4), `category` (one of the six workflow areas), `text`, `inputs`
(parameters), `files` (files of the task folder placed in the attempt's outputs/ before it
starts), `required_outputs`. verify.py reads an attempt's artifacts and prints one JSON line,
`{"passed": bool, "checks": [...]}`; `verifier` runs it on the reproduced attempt. A program,
never a model, verifies a benchmark task.
"""

from __future__ import annotations

import shutil
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from simulacra.errors import UserError

SUITES = Path(__file__).parent / "suites"
TaskId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")]


class Category(StrEnum):
    """The workflow areas the curriculum covers and the suites span."""

    network = "network"
    demand = "demand"
    simulation = "simulation"
    signals = "signals"
    calibration = "calibration"
    analysis = "analysis"


class TaskError(UserError):
    """A task or suite folder that does not load."""


class Task(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: TaskId
    tier: int = Field(ge=1, le=4)
    category: Category
    text: str = Field(min_length=1)
    inputs: dict[str, str | int | float] = Field(default_factory=dict)
    files: list[str] = Field(default_factory=list)
    required_outputs: list[str] = Field(min_length=1)

    def record(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def given(self) -> tuple[str, ...]:
        """The texts whose numbers the task itself states: a report may repeat them."""
        values = [str(v) for v in self.inputs.values()]
        return (
            self.text,
            *values,
            *(p for v in values for p in v.split(",")),
            *self.required_outputs,
        )


class SuiteTask(BaseModel):
    """A task with its folder (for files and verify.py)."""

    task: Task
    folder: Path


def load_task(folder: Path) -> SuiteTask:
    path = folder / "task.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        task = Task.model_validate(data)
    except FileNotFoundError as exc:
        raise TaskError(f"{folder}: no task.yaml") from exc
    except (yaml.YAMLError, ValidationError) as exc:
        raise TaskError(f"{path}: {exc}") from exc
    if not (folder / "verify.py").is_file():
        raise TaskError(f"{folder}: no verify.py; a benchmark task needs its verifier")
    for name in task.files:
        if not (folder / name).is_file():
            raise TaskError(f"{path}: files: {name} is not in the task folder")
    return SuiteTask(task=task, folder=folder)


def suite_path(suite: str | Path) -> Path:
    """A suite folder, or the name of a shipped suite (`simulacra.lab/suites/<name>`)."""
    path = Path(suite)
    if path.is_dir():
        return path.resolve()  # verify.py runs from the attempt folder
    shipped = SUITES / str(suite)
    if shipped.is_dir():
        return shipped
    names = ", ".join(sorted(p.name for p in SUITES.iterdir() if p.is_dir()))
    raise TaskError(f"suite {suite}: no such folder, and no shipped suite by that name ({names})")


def load_suite(suite: str | Path) -> list[SuiteTask]:
    root = suite_path(suite)
    tasks = [load_task(p) for p in sorted(root.iterdir()) if (p / "task.yaml").exists()]
    if not tasks:
        raise TaskError(f"{root}: holds no task folder (each needs task.yaml and verify.py)")
    ids = [t.task.id for t in tasks]
    if len(set(ids)) != len(ids):
        raise TaskError(f"{root}: task ids repeat: {sorted(i for i in ids if ids.count(i) > 1)}")
    return sorted(tasks, key=lambda t: (t.task.tier, t.task.id))


def place_files(suite_task: SuiteTask, attempt: Path) -> None:
    """Put the task's given files into the attempt's outputs/."""
    for name in suite_task.task.files:
        shutil.copy2(suite_task.folder / name, attempt / "outputs" / Path(name).name)
