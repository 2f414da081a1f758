"""The programmatic checker: it runs on every attempt before the model critic.

It reads the harness's record (`record`), never the attempt's own account, and checks:

- the record is intact, and every command it names has its logs, unaltered;
- every command of the final try succeeded, and no log of it holds a Python traceback or a
  SUMO error, even where the command exited 0;
- every delivered file is what a recorded command (or the harness) last wrote, no recorded
  command that failed wrote a delivered file, and no link leads out of the attempt;
- SUMO's outputs parse and record traffic (`empty`: an FCD output of empty timesteps, edge
  data of zeros, is refused), vehicles were inserted, no trip went unrouted, teleports are
  counted; a derived file's figures (a metrics.json) agree with the SUMO
  outputs they summarise (`derived`);
- the episode's task.yaml is there and is the one the harness recorded;
- every required output exists, is a file, not a link, and holds something (XML with
  elements, a CSV with rows, a JSON or YAML document not empty); a PNG is a whole, non-blank image;
- the attempt reproduces (`reproduce`: the recorded commands replayed, SUMO's tools rerun on
  the configurations the outputs name), and every claim of the report, recomputed from the
  reproduced outputs, matches as its type demands (`claims`); every figure in the report's
  prose is a claim's value or the task's own number (`prose`).

The costly reproduction runs only when every other check passed. `simulacra lab check
ATTEMPT_DIR` prints the result as one JSON object and exits 1 when the attempt is rejected.
"""

from __future__ import annotations

import re
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from simulacra.errors import UserError
from simulacra.lab.artifacts import png_problem
from simulacra.lab.claims import number
from simulacra.lab.derived import derived_problems
from simulacra.lab.empty import holds_nothing, unrecorded
from simulacra.lab.episode import Attempt, Report
from simulacra.lab.prose import report_problems
from simulacra.lab.record import CommandRecord, Record, RecordError, digest_file, walk_links
from simulacra.lab.reproduce import deliverables, reproduce
from simulacra.lab.tasks import Task

_SUMO_ERROR = re.compile(r"^Error: .*$", re.MULTILINE)
_TRACEBACK = "Traceback (most recent call last):"
_UNROUTED = re.compile(r"No connection between edge|has no valid route|no valid route", re.I)
_TELEPORT = re.compile(r"Teleporting vehicle", re.I)
_NAMED = ("tripinfo", "statistics", "summary", "fcd")  # names of SUMO's outputs


class NotAnAttempt(UserError):
    """`lab check` was given something that is not an attempt folder."""


@dataclass(frozen=True)
class CheckFinding:
    check: str
    message: str


@dataclass
class CheckReport:
    passed: bool = True
    findings: list[CheckFinding] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    inserted: int | None = None
    teleports: int = 0
    claims: int = 0
    reproduced: dict[str, str] = field(default_factory=dict)

    def fail(self, check: str, message: str) -> None:
        self.passed = False
        self.findings.append(CheckFinding(check, message))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TaskFacts:
    """What the checker needs of the task: its outputs and its own numbers."""

    required: tuple[str, ...] = ()
    given: tuple[str, ...] = ()


def check_attempt(
    folder: Path,
    required_outputs: Sequence[str] | None = None,
    *,
    given: Sequence[str] | None = None,
    reproduce_outputs: bool = True,
    replay_into: Path | None = None,
) -> CheckReport:
    """Check an attempt folder. Required outputs and the task's numbers default to those in
    its episode's task.yaml, which must be the one the harness recorded. The reproduction
    replays into `replay_into` (an empty folder the caller keeps) or into a temporary one."""
    report = CheckReport()
    record = Record(folder)
    try:
        final = record.final_commands()
        recorded_task = record.task_digest()
    except RecordError as exc:
        report.fail("the record is intact", str(exc))
        return report
    report.checks.append("the record is intact")
    facts = _task_facts(folder, recorded_task, report)
    required = tuple(required_outputs) if required_outputs is not None else facts.required
    attempt = Attempt(folder)
    _logs(attempt, record, report)
    _commands(final, report)
    stderr = _stderr(attempt, final)
    _sumo_messages(stderr, report)
    _provenance(attempt, record, report)
    _sumo_outputs(attempt, report)
    _required(folder, required, report)
    written = _report(attempt, report)
    given_numbers = tuple(given) if given is not None else facts.given
    _derived(folder, record, required, given_numbers, report)
    if written is not None:
        for check, message in report_problems(written, folder, given_numbers):
            report.fail(check, message)
    if report.passed and reproduce_outputs:
        if replay_into is not None:
            _reproduce(folder, replay_into, required, written, given_numbers, report)
        else:
            with tempfile.TemporaryDirectory(prefix="simulacra-replay-") as name:
                _reproduce(folder, Path(name), required, written, given_numbers, report)
    return report


def _logs(attempt: Attempt, record: Record, report: CheckReport) -> None:
    report.checks.append("every command has its logs")
    for entry in record.commands():
        for relative, recorded in entry.logs.items():
            path = attempt.folder / relative
            if not path.is_file():
                report.fail(
                    "every command has its logs", f"{relative} of `{_short(entry)}` is missing"
                )
            elif digest_file(path) != recorded:
                report.fail("every command has its logs", f"{relative} changed after its command")


def _commands(final: Sequence[CommandRecord], report: CheckReport) -> None:
    report.checks.append("commands exited 0")
    if not final:
        report.fail("commands exited 0", "the attempt ran no command")
    for entry in final:
        if not entry.ok:
            why = entry.stopped or f"exit code {entry.exit_code}"
            report.fail("commands exited 0", f"`{_short(entry)}` failed: {why}")


def _stderr(attempt: Attempt, final: Sequence[CommandRecord]) -> str:
    texts = []
    for entry in final:
        path = attempt.folder / entry.stderr
        if entry.stderr and path.is_file():
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(texts)


def _sumo_messages(stderr: str, report: CheckReport) -> None:
    report.checks += ["no crash in the logs", "SUMO reported no error", "no unrouted trips"]
    if _TRACEBACK in stderr:
        line = stderr[stderr.index(_TRACEBACK) :].strip().splitlines()[-1]
        report.fail("no crash in the logs", f"a Python traceback: {line[:200]}")
    for line in _SUMO_ERROR.findall(stderr)[:5]:
        report.fail("SUMO reported no error", line.strip()[:200])
    unrouted = [line for line in stderr.splitlines() if _UNROUTED.search(line)]
    if unrouted:
        report.fail("no unrouted trips", f"{len(unrouted)} unrouted: {unrouted[0].strip()[:160]}")
    report.teleports = len(_TELEPORT.findall(stderr))


def _provenance(attempt: Attempt, record: Record, report: CheckReport) -> None:
    check = "a recorded command wrote every output"
    report.checks += [check, "no link leads out of the attempt"]
    for path, target in walk_links(attempt.folder):
        report.fail("no link leads out of the attempt", f"{path} leads to {target}")
    recorded = record.final_digests()
    producers = record.producers()
    for path in [*deliverables(attempt.folder), "report.json"]:
        file = attempt.folder / path
        if file.is_symlink() or not file.is_file():
            continue
        digest = digest_file(file)
        if recorded.get(path) != digest:
            what = "no recorded command wrote it" if path not in recorded else "it changed since"
            report.fail(check, f"{path}: {what}")
            continue
        producer = producers[path]
        if isinstance(producer, CommandRecord) and not producer.ok:
            report.fail(check, f"{path} was written by `{_short(producer)}`, which failed")


def _sumo_outputs(attempt: Attempt, report: CheckReport) -> None:
    check = "SUMO outputs not empty"
    report.checks += [check, "vehicles inserted", "images are images"]
    for relative, size in attempt.outputs():
        path = attempt.folder / relative
        if path.is_symlink():
            continue
        if relative.endswith(".png"):
            problem = png_problem(path.read_bytes())
            if problem:
                report.fail("images are images", f"{relative}: {problem}")
        if not relative.endswith(".xml"):
            continue
        # A file named as SUMO names an output must be one; any output SUMO wrote (known by
        # its root) must record traffic, whatever its name.
        named = Path(relative).name.startswith(_NAMED)
        if size == 0:
            if named:
                report.fail(check, f"{relative} is empty")
            continue
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as exc:
            if named:
                report.fail(check, f"{relative} is not valid XML: {exc}")
            continue
        problem = unrecorded(path)
        if problem:
            report.fail(check, f"{relative} {problem}")
        if root.tag == "statistics" and (vehicles := root.find("vehicles")) is not None:
            _statistics(relative, root, vehicles, report)
        if root.tag == "tripinfos" and report.inserted is None:
            report.inserted = len(list(root.iter("tripinfo"))) or None
    if report.inserted == 0:
        report.fail("vehicles inserted", "the simulation inserted no vehicle")


def _statistics(relative: str, root: ET.Element, vehicles: ET.Element, report: CheckReport) -> None:
    inserted = _whole(vehicles.get("inserted", "0"))
    if inserted is None:
        report.fail("vehicles inserted", f"{relative}: inserted={vehicles.get('inserted')!r}")
        return
    report.inserted = (report.inserted or 0) + inserted
    teleports = root.find("teleports")
    total = _whole(teleports.get("total", "0")) if teleports is not None else 0
    report.teleports = max(report.teleports, total or 0)


def _whole(text: str) -> int | None:
    value = number(text)
    return int(value) if value is not None and value.is_integer() and value >= 0 else None


def _required(folder: Path, required: Sequence[str], report: CheckReport) -> None:
    report.checks.append("required outputs exist")
    for relative in required:
        path = folder / relative
        if path.is_symlink():
            report.fail("required outputs exist", f"{relative} is a link, not a file")
        elif not path.is_file():
            report.fail("required outputs exist", f"{relative} is missing")
        elif path.stat().st_size == 0:
            report.fail("required outputs exist", f"{relative} is empty")
        elif problem := holds_nothing(path):
            report.fail("required outputs exist", f"{relative} {problem}")


def _derived(
    folder: Path, record: Record, required: Sequence[str], given: Sequence[str], report: CheckReport
) -> None:
    check = "derived files agree with SUMO's outputs"
    report.checks.append(check)
    # The task's own files are data the attempt was given, not figures it derived.
    made = record.producers()
    paths = [p for p in deliverables(folder, required) if isinstance(made.get(p), CommandRecord)]
    for problem in derived_problems(folder, paths, given, sources=deliverables(folder, required)):
        report.fail(check, problem)


def _report(attempt: Attempt, report: CheckReport) -> Report | None:
    report.checks += ["claims match artifacts", "the report's figures are claims"]
    try:
        written = attempt.report()
    except (ValidationError, OSError) as exc:
        report.fail("claims match artifacts", f"report.json is not a valid report: {exc}")
        return None
    if written is None:
        report.fail("claims match artifacts", "the attempt wrote no report.json")
        return None
    report.claims = len(written.claims)
    return written


def _reproduce(
    folder: Path,
    into: Path,
    required: Sequence[str],
    written: Report | None,
    given: Sequence[str],
    report: CheckReport,
) -> None:
    report.checks.append("the attempt reproduces")
    try:
        found = reproduce(folder, into, required)
    except RecordError as exc:
        report.fail("the attempt reproduces", str(exc))
        return
    for difference in found.differences:
        report.fail("the attempt reproduces", f"{difference.path}: {difference.message}")
    report.reproduced = found.agreed
    if written is not None and found.passed:
        # A claimed figure must be the figure the reproduced output gives.
        for check, message in report_problems(written, into, given):
            report.fail(check, f"on the reproduction: {message}")


def _short(entry: CommandRecord) -> str:
    return entry.command[:120]


def _task_facts(folder: Path, recorded: str | None, report: CheckReport) -> TaskFacts:
    """The task as its episode's task.yaml states it. Without it, or with one other than the
    harness recorded, the checker cannot know what was asked: a finding, never a pass."""
    check = "the task is the one recorded"
    report.checks.append(check)
    path = folder.parent / "task.yaml"
    if not path.is_file():
        report.fail(check, f"{path.name} is missing: what the task required is unknown")
        return TaskFacts()
    if recorded is not None and digest_file(path) != recorded:
        report.fail(check, f"{path.name} changed since the harness recorded it")
    try:
        task = Task.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError) as exc:
        report.fail(check, f"{path.name} is not a task: {str(exc)[:200]}")
        return TaskFacts()
    return TaskFacts(tuple(task.checkable()), task.given())
