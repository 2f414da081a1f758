"""Episodic memory: one folder per task, one sub-folder per attempt, everything on disk.

```
<time>-<task>/task.yaml
<time>-<task>/attempt-N/
  skills/        the skills the attempt loaded, copied so that it reruns alone
  scripts/       the scripts the action agent wrote
  outputs/       the artifacts
  logs/          stdout and stderr of every command (read-only inside the sandbox)
  report.json    the action agent's report with its machine-readable claims
  verdicts.json  the checker's, the critic's and (on a benchmark) the verifier's verdicts
<time>-<task>/record/attempt-N/   the harness's record of the attempt (`record`): every
               command and what it wrote, out of the sandbox's reach
<time>-<task>/retrieval.json      the candidates retrieval offered and those loaded
```
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from simulacra.lab.claims import Claim
from simulacra.lab.record import CommandRecord, Record
from simulacra.llm import MaxChars


class Report(BaseModel):
    """What the action agent says it did: `success` is its own claim, checked by others."""

    model_config = ConfigDict(extra="forbid")

    summary: Annotated[str, MaxChars(1500)] = Field(description="what was done and found")
    success: bool = Field(description="whether every required output was produced")
    claims: list[Claim] = Field(default_factory=list, max_length=20)
    limitations: Annotated[str, MaxChars(600)] = ""


def new_episode(parent: Path, task_id: str, task: dict[str, Any]) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    slug = re.sub(r"[^a-z0-9-]+", "-", task_id.lower()).strip("-")[:48] or "task"
    folder = parent / f"{stamp}-{slug}"
    n = 1
    while folder.exists():
        n += 1
        folder = parent / f"{stamp}-{slug}-{n}"
    folder.mkdir(parents=True)
    (folder / "task.yaml").write_text(yaml.safe_dump(task, sort_keys=False), encoding="utf-8")
    return folder


class Attempt:
    """An attempt folder and its record files."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def create(cls, episode: Path, number: int) -> Attempt:
        folder = episode / f"attempt-{number}"
        for part in ("skills", "scripts", "outputs", "logs", "home"):
            (folder / part).mkdir(parents=True, exist_ok=True)
        return cls(folder)

    def final_commands(self) -> list[CommandRecord]:
        """The commands of the last inner try, from the harness's record."""
        return Record(self.folder).final_commands()

    def echoed(self, record: CommandRecord) -> list[str]:
        """The `$ ...` lines of a command's stdout: the calls its script says it made."""
        path = self.folder / record.stdout
        if not record.stdout or not path.is_file():
            return []
        text = path.read_text(encoding="utf-8", errors="replace")
        return [line for line in text.splitlines() if line.startswith("$ ")]

    def write_report(self, report: Report) -> None:
        (self.folder / "report.json").write_text(report.model_dump_json(indent=2), "utf-8")

    def report(self) -> Report | None:
        path = self.folder / "report.json"
        if not path.exists():
            return None
        return Report.model_validate_json(path.read_text(encoding="utf-8"))

    def write_json(self, name: str, data: Any) -> None:
        text = json.dumps(data, indent=2, sort_keys=True, default=str)
        (self.folder / name).write_text(text, encoding="utf-8")

    def read_json(self, name: str) -> Any:
        path = self.folder / name
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None

    def outputs(self) -> list[tuple[str, int]]:
        """(path relative to the attempt, bytes) of every artifact."""
        root = self.folder / "outputs"
        return [
            (str(p.relative_to(self.folder)), p.stat().st_size)
            for p in sorted(root.rglob("*"))
            if p.is_file()
        ]
