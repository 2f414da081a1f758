"""Task suites: a task is a folder with task.yaml and, for a structured task, verify.py.

task.yaml: `id`, `tier` (1-4), `category` (one of the six workflow areas), `text`, `inputs`
(parameters), `files` (files of the task folder placed in the attempt's outputs/ before it
starts), `required_outputs`. verify.py reads an attempt's artifacts and prints one JSON line,
`{"passed": bool, "checks": [...]}`; `verifier` runs it on the reproduced attempt.

A free-text task is the source's own format: a prompt (`text`) and optional `files`, with no
`inputs` and no `required_outputs`, and no verify.py. It is verified two ways, reported
apart: by reproduction, where its text names outputs to check (`outputs/...`), and by a
judge model reading the episodic record (`judge`).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from simulacra.errors import UserError

SUITES = Path(__file__).parent / "suites"
TaskId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")]
_NAMED = re.compile(r"(?<![\w/])outputs/[\w.\-/]+\.\w+")  # an output a task's text names


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
    required_outputs: list[str] = Field(default_factory=list)

    def record(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @property
    def free(self) -> bool:
        """A free-text task: a prompt and its files, no structured inputs or outputs."""
        return not self.required_outputs and not self.inputs

    def checkable(self) -> list[str]:
        """The outputs to check: the required ones, or those a free text names (its own
        given files aside)."""
        if self.required_outputs:
            return list(self.required_outputs)
        given = {f"outputs/{Path(f).name}" for f in self.files}
        named = (m.rstrip(".,;:") for m in _NAMED.findall(self.text))
        return [m for m in dict.fromkeys(named) if m not in given]

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

    @property
    def verifier(self) -> Path | None:
        """Its verify.py; a free-text task has none (reproduction and a judge verify it)."""
        path = self.folder / "verify.py"
        return path if path.is_file() else None


def load_task(folder: Path) -> SuiteTask:
    path = folder / "task.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        task = Task.model_validate(data)
    except FileNotFoundError as exc:
        raise TaskError(f"{folder}: no task.yaml") from exc
    except (yaml.YAMLError, ValidationError) as exc:
        raise TaskError(f"{path}: {exc}") from exc
    if not task.required_outputs and task.inputs:
        raise TaskError(f"{path}: inputs without required_outputs; a free-text task has neither")
    if task.required_outputs and not (folder / "verify.py").is_file():
        raise TaskError(f"{folder}: no verify.py; a task with required outputs needs its verifier")
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
    place([suite_task.folder / name for name in suite_task.task.files], attempt)


def place(files: Sequence[Path], attempt: Path) -> None:
    """Copy given files (a suite task's, or a user's `lab solve --file`) into outputs/."""
    for path in files:
        shutil.copy2(path, attempt / "outputs" / path.name)
