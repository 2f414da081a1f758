"""Verification by reproduction: do it again and compare.

Two reruns, both in the sandbox under the limits the attempt ran with:

- The replay (the critic's "reruns are reproducible"): a fresh folder gets what the harness
  wrote, entry by entry from the record, and runs every recorded command in order. Each
  command must succeed or fail as it did, and every delivered output must come out the same.
- The SUMO rerun (grounding): every delivered file that a SUMO tool wrote names the tool and
  its configuration in its header, and the verifier runs that tool itself on that
  configuration, on the attempt's own inputs, and compares. A file of a kind only SUMO writes
  (a network, a simulation output) without a SUMO header is not SUMO's work.
- A run steered through TraCI depends on the script that steered it, so SUMO cannot rerun it
  alone. Its output is accepted only where the record shows, from outside the sandbox, the
  command that made it running a SUMO process on the port its header names, holding the file
  open for writing, and nothing but SUMO writing it (`steering_problem`); the replay reruns
  that command and must show the same of its own copy.

"The same" is `artifacts.agree`: identical bytes, SUMO's generation times and wall-clock
figures aside, within one unit of the last decimal for SUMO's files when bytes differ.
"""

from __future__ import annotations

import shlex
import shutil
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from simulacra.lab.artifacts import SumoHeader, agree, sumo_header, sumo_shape, xml_root
from simulacra.lab.observe import SIMULATORS, Process
from simulacra.lab.record import (
    UNWALKED,
    CommandRecord,
    HarnessRecord,
    Record,
    snapshot,
)
from simulacra.lab.sandbox import CommandResult, Sandbox, SandboxLimits, sumo_home

SUMO_BINARIES = frozenset(
    {
        "sumo",
        "netgenerate",
        "netconvert",
        "duarouter",
        "jtrrouter",
        "od2trips",
        "dfrouter",
        "marouter",
        "polyconvert",
        "activitygen",
    }
)
_TIMING = ("wall-clock", "CPU limit")  # limits whose outcome a rerun need not repeat


@dataclass(frozen=True)
class Difference:
    path: str
    message: str


@dataclass
class Reproduction:
    """What the reruns found; `folder` holds the replayed attempt while it lives."""

    folder: Path
    differences: list[Difference] = field(default_factory=list)
    agreed: dict[str, str] = field(default_factory=dict)  # path -> how it agreed
    reran: list[str] = field(default_factory=list)  # the SUMO tools the verifier ran
    replayed: dict[int, CommandResult] = field(default_factory=dict)  # by the record's seq

    @property
    def passed(self) -> bool:
        return not self.differences


def deliverables(attempt: Path, required: Sequence[str] = ()) -> list[str]:
    """The files an attempt delivers: everything under outputs/, and what the task requires."""
    outputs = attempt / "outputs"
    found = [str(p.relative_to(attempt)) for p in sorted(outputs.rglob("*")) if p.is_file()]
    return sorted({*found, *(r for r in required if (attempt / r).is_file())})


def reproduce(attempt: Path, into: Path, required: Sequence[str] = ()) -> Reproduction:
    """Replay the attempt into `into` (an empty folder), rerun its SUMO tools, compare.
    Raises RecordError when the attempt has no intact record."""
    record = Record(attempt)
    entries = record.entries()
    limits = record.limits()
    result = Reproduction(into)
    _replay(record, entries, into, limits, result)
    paths = deliverables(attempt, required)
    inside = attempt.resolve()
    for path in paths:
        delivered, replayed = attempt / path, into / path
        target = delivered.resolve()
        if delivered.is_symlink() or inside not in target.parents:
            result.differences.append(Difference(path, f"a link to {target}, not a file"))
            continue
        if not replayed.is_file():
            result.differences.append(Difference(path, "the replay did not produce it"))
            continue
        sumo = sumo_header(delivered) is not None
        verdict = agree(delivered.read_bytes(), replayed.read_bytes(), sumo=sumo)
        if verdict.same:
            result.agreed[path] = f"replay: {verdict.how}"
        else:
            result.differences.append(Difference(path, f"the replay's copy {verdict.how}"))
    _rerun_sumo(attempt, record, paths, limits, result)
    return result


def _replay(
    record: Record,
    entries: Sequence[HarnessRecord | CommandRecord],
    into: Path,
    limits: SandboxLimits,
    result: Reproduction,
) -> None:
    sandbox = Sandbox(into, limits)
    for entry in entries:
        if isinstance(entry, HarnessRecord):
            copies = record.copies(entry)
            for relative in entry.files:
                source, target = copies / relative, into / relative
                if not source.is_file() and not source.is_symlink():
                    result.differences.append(
                        Difference(relative, "the record's copy of what the harness wrote is gone")
                    )
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target, follow_symlinks=False)
            continue
        if not entry.ran:
            continue
        name = Path(entry.stdout).stem or f"replay-{entry.seq}"
        rerun = sandbox.run(entry.command, name=name)
        result.replayed[entry.seq] = rerun
        timing = any(t in (entry.stopped or "") for t in _TIMING)
        if rerun.ok != entry.ok and not timing:
            said = "succeeded" if entry.ok else f"failed ({entry.stopped or entry.exit_code})"
            now = "succeeds" if rerun.ok else f"fails ({rerun.stopped or rerun.exit_code})"
            result.differences.append(
                Difference(
                    f"command {entry.seq}",
                    f"`{entry.command[:120]}` {now} on the replay; the record says it {said}",
                )
            )


def _rerun_sumo(
    attempt: Path,
    record: Record,
    paths: Sequence[str],
    limits: SandboxLimits,
    result: Reproduction,
) -> None:
    producers = record.producers()
    digests = snapshot(attempt)
    groups: dict[SumoHeader, list[str]] = {}
    for path in paths:
        file = attempt / path
        header = sumo_header(file)
        if header is None:
            shape = sumo_shape(file)
            if shape is not None:
                result.differences.append(
                    Difference(path, f"a SUMO file ({shape}) that no SUMO tool wrote (no header)")
                )
            continue
        producer = producers.get(path)
        given = isinstance(producer, HarnessRecord) and producer.files.get(path) == digests[path]
        if given:
            continue  # a task's own file
        if header.controlled:
            _steered(path, header, producer, result)
            continue
        groups.setdefault(header, []).append(path)
    for header, members in groups.items():
        command = _tool_command(header)
        if command is None:
            for path in members:
                if sumo_shape(attempt / path) is not None:
                    result.differences.append(
                        Difference(path, f"written by {header.tool}, which is not a SUMO tool")
                    )
            continue
        _rerun(attempt, header, command, members, limits, result)


def _steered(
    path: str,
    header: SumoHeader,
    producer: HarnessRecord | CommandRecord | None,
    result: Reproduction,
) -> None:
    """A TraCI run's output: the record's evidence for it, then the replay's for its copy."""
    if not isinstance(producer, CommandRecord):
        result.differences.append(
            Difference(path, "its header claims a TraCI-steered SUMO run, but no command wrote it")
        )
        return
    problem = steering_problem(
        path, header, producer.processes, producer.writes, complete=producer.observed
    )
    rerun = result.replayed.get(producer.seq)
    copy = sumo_header(result.folder / path)
    if problem is None and (rerun is None or copy is None or not copy.controlled):
        problem = "the replay of the command that steered SUMO did not steer it again"
    elif problem is None and rerun is not None and copy is not None:
        again = steering_problem(
            path, copy, rerun.processes, rerun.writes, complete=rerun.writes_complete
        )
        problem = None if again is None else f"on the replay: {again}"
    if problem is not None:
        result.differences.append(Difference(path, problem))
        return
    earlier = result.agreed.get(path, "")
    result.agreed[path] = f"{earlier}; SUMO steered through TraCI, seen in the record".lstrip("; ")


def steering_problem(
    path: str,
    header: SumoHeader,
    processes: Sequence[Process],
    writes: dict[str, list[str]],
    *,
    complete: bool,
) -> str | None:
    """Why the command did not make `path` by steering SUMO as its header says, or None: a
    SUMO process listening on the header's port ran and held the file open for writing, and
    only SUMO processes wrote it: after an optional creation, the kernel saw as many writers
    (openings not closed unwritten, and closes after writing) as SUMO processes that held it,
    and no move or deletion."""
    port = header.port
    if port is None:
        return "its header claims TraCI control but names no port"
    if not complete:
        return "the record holds no complete account of what the command that made it ran"
    steered = [p for p in processes if p.name in SIMULATORS and p.option("remote-port") == port]
    if not steered:
        return (
            f"its header claims a SUMO run steered through TraCI on port {port}, but the "
            "command that made it ran no SUMO process on that port"
        )
    if not any(path in p.writing for p in steered):
        return f"the SUMO process on port {port} did not hold it open for writing"
    holders = sum(path in p.writing for p in processes if p.name in SIMULATORS)
    events = writes.get(path, [])
    rest = events[1:] if events[:1] == ["created"] else events
    writers = rest.count("opened") - rest.count("read")
    moved = {"created", "moved in", "moved away", "deleted"} & set(rest)
    if moved or writers != holders or rest.count("written") != holders:
        seen = ", ".join(events) or "nothing"
        return f"something besides SUMO wrote it: the command's events on it were {seen}"
    return None


def _tool_command(header: SumoHeader) -> str | None:
    if header.tool in SUMO_BINARIES:
        return header.tool
    home = sumo_home()
    if not header.python_tool or home is None:
        return None
    found = sorted((home / "tools").rglob(header.tool))
    return f"python {shlex.quote(str(found[0]))}" if found else None


def _rerun(
    attempt: Path,
    header: SumoHeader,
    command: str,
    members: Sequence[str],
    limits: SandboxLimits,
    result: Reproduction,
) -> None:
    with tempfile.TemporaryDirectory(prefix="simulacra-rerun-") as name:
        scratch = Path(name)
        _copy_inputs(attempt, scratch, header)
        base = _base(scratch, header.config)
        (base / "rerun.cfg").write_text(header.config, encoding="utf-8")
        before = snapshot(scratch)
        where = shlex.quote(str(base.relative_to(scratch)))
        run = Sandbox(scratch, limits).run(f"cd {where} && {command} -c rerun.cfg", name="rerun")
        result.reran.append(header.tool)
        after = snapshot(scratch)
        written = [p for p, d in after.items() if before.get(p) != d and p != "rerun.cfg"]
        for path in members:
            counterpart = _counterpart(path, written, scratch, attempt)
            if counterpart is None:
                tail = run.stderr.read_text(encoding="utf-8", errors="replace")[-200:].strip()
                result.differences.append(
                    Difference(
                        path,
                        f"rerunning {header.tool} on its configuration did not "
                        f"write it again (exit {run.exit_code}: {tail or 'no message'})",
                    )
                )
                continue
            verdict = agree(
                (attempt / path).read_bytes(), (scratch / counterpart).read_bytes(), sumo=True
            )
            if verdict.same:
                said = f"{header.tool} rerun: {verdict.how}"
                earlier = result.agreed.get(path)
                result.agreed[path] = f"{earlier}; {said}" if earlier else said
            else:
                result.differences.append(
                    Difference(path, f"{header.tool} run on its own configuration {verdict.how}")
                )


def _copy_inputs(attempt: Path, scratch: Path, header: SumoHeader) -> None:
    """Everything the tool may read, without anything this same run wrote."""
    for source in sorted(attempt.rglob("*")):
        relative = source.relative_to(attempt)
        if relative.parts[0] in UNWALKED or source.is_symlink() or not source.is_file():
            continue
        if sumo_header(source) == header:
            continue
        target = scratch / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def _base(scratch: Path, config: str) -> Path:
    """The folder the original run started in: where most of the files it names exist."""
    values = _paths(config)
    folders = [scratch, *sorted((p for p in scratch.rglob("*") if p.is_dir()), key=_depth)]
    return max(folders, key=lambda f: (sum((f / v).is_file() for v in values), -_depth(f)))


def _depth(path: Path) -> int:
    return len(path.parts)


def _paths(config: str) -> list[str]:
    try:
        root = ET.fromstring(config)
    except ET.ParseError:
        return []
    values = [e.get("value", "") for e in root.iter() if e.get("value")]
    return [p for v in values for p in v.split(",") if "." in p and not p.startswith("/")]


def _counterpart(path: str, written: Sequence[str], scratch: Path, attempt: Path) -> str | None:
    """The rerun's file for a delivered one: the same path, else the same name, else the only
    file with the same root element (a script may have moved the tool's output)."""
    if path in written:
        return path
    name = Path(path).name
    same_name = [w for w in written if Path(w).name == name]
    if len(same_name) == 1:
        return same_name[0]
    root = xml_root(attempt / path)
    same_root = [w for w in written if xml_root(scratch / w) == root]
    return same_root[0] if len(same_root) == 1 else None
