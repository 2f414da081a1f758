"""The harness's record of an attempt, kept where the attempt's own code cannot write.

```
<episode>/attempt-N/              the attempt: the sandbox's only writable folder
<episode>/record/attempt-N/
  record.jsonl                    one entry a line, each carrying the digest of the line before
  head                            the digest of the last line
  files/<seq>/...                 a copy of what the harness wrote at entry <seq>
```
Only the harness (`Recorder`) writes the record. An entry is `harness` (files the harness put
into the attempt: the task's files, the skills, the plan's scripts, the report; copies kept
for a replay) or `command` (one sandboxed command: its inner try, exit code, the limit that
stopped it, its logs with their digests, and the files it created, changed or removed, each
with its digest). After every command the attempt is walked again (`logs/` and `home/` aside)
and compared with the walk before, so each file is attributed to the command that wrote it;
a link is recorded as `link:<target>`, never followed. The chain of line digests makes an
edit of the record after the fact visible; the replay (`reproduce`) catches one that rewrote
the chain as well.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from simulacra.lab.observe import Process
from simulacra.lab.sandbox import Sandbox, SandboxLimits

GENESIS = "0" * 64
NO_COMMAND = "the plan had no command"
UNWALKED = ("logs", "home")  # logs are recorded with their command; home/ holds caches


class RecordError(Exception):
    """A record that is missing, does not parse, or was altered after it was written."""


class HarnessRecord(BaseModel):
    """Files the harness wrote into the attempt (`what` says which), with their digests."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["harness"] = "harness"
    seq: int
    prev: str
    what: str
    files: dict[str, str] = Field(default_factory=dict)
    limits: SandboxLimits | None = None  # on the first entry: what every command ran under
    task: str | None = None  # on the first entry: the digest of the episode's task.yaml


class CommandRecord(BaseModel):
    """One command the sandbox ran, and what it did to the attempt."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["command"] = "command"
    seq: int = 0
    prev: str = GENESIS
    inner: int = Field(description="the inner try (1-5) that ran it")
    command: str
    exit_code: int
    duration_s: float
    stopped: str | None = None
    stdout: str = ""
    stderr: str = ""
    logs: dict[str, str] = Field(default_factory=dict)
    created: dict[str, str] = Field(default_factory=dict)
    changed: dict[str, str] = Field(default_factory=dict)
    removed: list[str] = Field(default_factory=list)
    # Seen from outside the sandbox while it ran (`observe`): the processes, and the kernel's
    # account of each file written, created, moved or deleted. `observed` is False where the
    # account is incomplete (an older record, or the kernel's queue overflowed).
    processes: list[Process] = Field(default_factory=list)
    writes: dict[str, list[str]] = Field(default_factory=dict)
    observed: bool = False

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.stopped is None

    @property
    def ran(self) -> bool:
        """False for the stand-in entry of a plan that had no command."""
        return self.stopped != NO_COMMAND

    def wrote(self) -> dict[str, str]:
        return {**self.created, **self.changed}


Entry = Annotated[HarnessRecord | CommandRecord, Field(discriminator="kind")]
_ENTRY: TypeAdapter[HarnessRecord | CommandRecord] = TypeAdapter(Entry)


def record_folder(attempt: Path) -> Path:
    return attempt.parent / "record" / attempt.name


def digest_file(path: Path) -> str:
    with path.open("rb") as fh:
        return "sha256:" + hashlib.file_digest(fh, "sha256").hexdigest()


def snapshot(root: Path) -> dict[str, str]:
    """Every file and link under `root` (logs/ and home/ aside): path -> digest or link."""
    found: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        if here == root:
            dirs[:] = [d for d in dirs if d not in UNWALKED]
        for name in [*files, *dirs]:
            path = here / name
            relative = str(path.relative_to(root))
            if path.is_symlink():
                found[relative] = f"link:{os.readlink(path)}"
            elif name in files:
                found[relative] = digest_file(path) if path.is_file() else "special"
    return found


class Record:
    """Reads an attempt's record; `entries()` raises RecordError on any damage."""

    def __init__(self, attempt: Path) -> None:
        self.attempt = attempt
        self.folder = record_folder(attempt)
        self.path = self.folder / "record.jsonl"
        self.head = self.folder / "head"

    def exists(self) -> bool:
        return self.path.is_file()

    def entries(self) -> list[HarnessRecord | CommandRecord]:
        if not self.exists():
            raise RecordError(
                f"{self.path}: no harness record; only attempts the lab ran can be checked"
            )
        entries: list[HarnessRecord | CommandRecord] = []
        prev = GENESIS
        for number, line in enumerate(self.path.read_bytes().splitlines(), start=1):
            try:
                entry = _ENTRY.validate_json(line)
            except ValidationError as exc:
                raise RecordError(f"{self.path}: line {number} is not a record entry") from exc
            if entry.prev != prev or entry.seq != number:
                raise RecordError(
                    f"{self.path}: line {number} does not follow the line before it "
                    "(the record was altered after the harness wrote it)"
                )
            prev = hashlib.sha256(line).hexdigest()
            entries.append(entry)
        head = self.head.read_text(encoding="utf-8").strip() if self.head.is_file() else ""
        if head != prev:
            raise RecordError(
                f"{self.path}: its last line is not the one the harness wrote last "
                "(the record was altered after the harness wrote it)"
            )
        return entries

    def commands(self) -> list[CommandRecord]:
        return [e for e in self.entries() if isinstance(e, CommandRecord)]

    def final_commands(self) -> list[CommandRecord]:
        """The commands of the last inner try: earlier tries were debugging."""
        records = self.commands()
        last = max((r.inner for r in records), default=0)
        return [r for r in records if r.inner == last]

    def limits(self) -> SandboxLimits:
        first = next(iter(self.entries()), None)
        if isinstance(first, HarnessRecord) and first.limits is not None:
            return first.limits
        return SandboxLimits()

    def task_digest(self) -> str | None:
        """The digest of the episode's task.yaml when the harness created the attempt."""
        first = next(iter(self.entries()), None)
        return first.task if isinstance(first, HarnessRecord) else None

    def copies(self, entry: HarnessRecord) -> Path:
        """The folder holding the copies of what the harness wrote at `entry`."""
        return self.folder / "files" / str(entry.seq)

    def producers(self) -> dict[str, HarnessRecord | CommandRecord]:
        """For each path that exists at the end, the last entry that wrote it."""
        last: dict[str, HarnessRecord | CommandRecord] = {}
        for entry in self.entries():
            if isinstance(entry, HarnessRecord):
                last.update(dict.fromkeys(entry.files, entry))
            else:
                last.update(dict.fromkeys(entry.wrote(), entry))
                for path in entry.removed:
                    last.pop(path, None)
        return last

    def final_digests(self) -> dict[str, str]:
        """Each path's digest as the record last saw it."""
        state: dict[str, str] = {}
        for entry in self.entries():
            if isinstance(entry, HarnessRecord):
                state.update(entry.files)
            else:
                state.update(entry.wrote())
                for path in entry.removed:
                    state.pop(path, None)
        return state


class Recorder:
    """Runs an attempt's commands in the sandbox and writes the record; the only writer."""

    def __init__(self, attempt: Path, limits: SandboxLimits | None = None) -> None:
        self.attempt = attempt.resolve()
        self.sandbox = Sandbox(self.attempt, limits)
        self.record = Record(self.attempt)
        self.record.folder.mkdir(parents=True, exist_ok=True)
        self._seq = 0
        self._prev = GENESIS
        self._state = snapshot(self.attempt)
        task = self.attempt.parent / "task.yaml"
        self.note(
            "attempt created",
            limits=self.sandbox.limits,
            task=digest_file(task) if task.is_file() else None,
        )

    def note(
        self, what: str, *, limits: SandboxLimits | None = None, task: str | None = None
    ) -> HarnessRecord:
        """Record what the harness has just written into the attempt, with copies."""
        after = snapshot(self.attempt)
        files = {p: d for p, d in after.items() if self._state.get(p) != d}
        entry = HarnessRecord(
            seq=self._seq + 1, prev=self._prev, what=what, files=files, limits=limits, task=task
        )
        copies = self.record.copies(entry)
        for relative in files:
            target = copies / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(self.attempt / relative, target, follow_symlinks=False)
        self._append(entry)
        self._state = after
        return entry

    def run(self, command: str, *, inner: int, name: str) -> CommandRecord:
        result = self.sandbox.run(command, name=name)
        after = snapshot(self.attempt)
        before = self._state
        logs = {
            str(p.relative_to(self.attempt)): digest_file(p) for p in (result.stdout, result.stderr)
        }
        entry = CommandRecord(
            seq=self._seq + 1,
            prev=self._prev,
            inner=inner,
            command=command,
            exit_code=result.exit_code,
            duration_s=round(result.duration_s, 3),
            stopped=result.stopped,
            stdout=str(result.stdout.relative_to(self.attempt)),
            stderr=str(result.stderr.relative_to(self.attempt)),
            logs=logs,
            created={p: d for p, d in after.items() if p not in before},
            changed={p: d for p, d in after.items() if p in before and before[p] != d},
            removed=sorted(p for p in before if p not in after),
            processes=list(result.processes),
            writes=result.writes,
            observed=result.writes_complete,
        )
        self._append(entry)
        self._state = after
        return entry

    def empty(self, inner: int) -> CommandRecord:
        """The stand-in entry of a plan that had no command: a failed try."""
        entry = CommandRecord(
            seq=self._seq + 1,
            prev=self._prev,
            inner=inner,
            command="(none)",
            exit_code=1,
            duration_s=0.0,
            stopped=NO_COMMAND,
        )
        self._append(entry)
        return entry

    def _append(self, entry: HarnessRecord | CommandRecord) -> None:
        line = entry.model_dump_json().encode()
        with self.record.path.open("ab") as fh:
            fh.write(line + b"\n")
        self._seq = entry.seq
        self._prev = hashlib.sha256(line).hexdigest()
        self.record.head.write_text(self._prev + "\n", encoding="utf-8")


def walk_links(root: Path) -> Iterator[tuple[str, Path]]:
    """(path, where it leads) for every link under `root` whose target lies outside it."""
    inside = root.resolve()
    for folder, dirs, files in os.walk(root):
        for name in [*files, *dirs]:
            path = Path(folder) / name
            if path.is_symlink():
                target = path.resolve()
                if target != inside and inside not in target.parents:
                    yield str(path.relative_to(root)), target
