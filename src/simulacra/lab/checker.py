"""The programmatic checker: it runs on every attempt before the model critic.

Checks: every command of the final try exited 0; SUMO's stderr has no error; tripinfo,
statistics and summary outputs exist, parse and are not empty; vehicles were inserted; no trip
was left unrouted; teleports are counted; every claim of the report matches its artifact;
every required output exists and is not empty. `simulacra lab check ATTEMPT_DIR` prints the
result as one JSON object.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from simulacra.lab.claims import disagreement
from simulacra.lab.episode import Attempt

_SUMO_ERROR = re.compile(r"^Error: .*$", re.MULTILINE)
_UNROUTED = re.compile(r"No connection between edge|has no valid route|no valid route", re.I)
_TELEPORT = re.compile(r"Teleporting vehicle", re.I)
_OUTPUT_ROOTS = {"tripinfo": "tripinfo", "statistics": "vehicles", "summary": "step"}


@dataclass(frozen=True)
class Finding:
    check: str
    message: str


@dataclass
class CheckReport:
    passed: bool = True
    findings: list[Finding] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    inserted: int | None = None
    teleports: int = 0
    claims: int = 0

    def fail(self, check: str, message: str) -> None:
        self.passed = False
        self.findings.append(Finding(check, message))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def check_attempt(folder: Path, required_outputs: Sequence[str] | None = None) -> CheckReport:
    """Check an attempt folder. Required outputs default to those in its episode's task.yaml."""
    attempt = Attempt(folder)
    report = CheckReport()
    if required_outputs is None:
        required_outputs = _task_outputs(folder)
    _commands(attempt, report)
    stderr = _stderr(attempt)
    _sumo_messages(stderr, report)
    _sumo_outputs(attempt, report)
    _claims(attempt, report)
    _required(folder, required_outputs, report)
    return report


def _commands(attempt: Attempt, report: CheckReport) -> None:
    report.checks.append("commands exited 0")
    commands = attempt.final_commands()
    if not commands:
        report.fail("commands exited 0", "the attempt ran no command")
    for record in commands:
        if record.exit_code != 0 or record.stopped:
            why = record.stopped or f"exit code {record.exit_code}"
            report.fail("commands exited 0", f"`{record.command[:120]}` failed: {why}")


def _stderr(attempt: Attempt) -> str:
    texts = []
    for record in attempt.final_commands():
        path = attempt.folder / record.stderr
        if record.stderr and path.is_file():
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(texts)


def _sumo_messages(stderr: str, report: CheckReport) -> None:
    report.checks += ["SUMO reported no error", "no unrouted trips", "teleports counted"]
    for line in _SUMO_ERROR.findall(stderr)[:5]:
        report.fail("SUMO reported no error", line.strip()[:200])
    unrouted = [line for line in stderr.splitlines() if _UNROUTED.search(line)]
    if unrouted:
        report.fail("no unrouted trips", f"{len(unrouted)} unrouted: {unrouted[0].strip()[:160]}")
    report.teleports = len(_TELEPORT.findall(stderr))


def _sumo_outputs(attempt: Attempt, report: CheckReport) -> None:
    report.checks += ["SUMO outputs not empty", "vehicles inserted"]
    for relative, size in attempt.outputs():
        name = Path(relative).name
        kind = next((k for k in _OUTPUT_ROOTS if name.startswith(k) and name.endswith(".xml")), "")
        if not kind:
            continue
        if size == 0:
            report.fail("SUMO outputs not empty", f"{relative} is empty")
            continue
        try:
            root = ET.parse(attempt.folder / relative).getroot()
        except ET.ParseError as exc:
            report.fail("SUMO outputs not empty", f"{relative} is not valid XML: {exc}")
            continue
        elements = list(root.iter(_OUTPUT_ROOTS[kind]))
        if not elements:
            report.fail("SUMO outputs not empty", f"{relative} has no <{_OUTPUT_ROOTS[kind]}>")
        if kind == "statistics" and elements:
            inserted = int(elements[0].get("inserted", "0"))
            report.inserted = (report.inserted or 0) + inserted
            teleports = root.find("teleports")
            if teleports is not None:
                report.teleports = max(report.teleports, int(teleports.get("total", "0")))
        if kind == "tripinfo" and report.inserted is None:
            report.inserted = len(elements) or None
    if report.inserted == 0:
        report.fail("vehicles inserted", "the simulation inserted no vehicle")


def _claims(attempt: Attempt, report: CheckReport) -> None:
    report.checks.append("claims match artifacts")
    try:
        written = attempt.report()
    except (ValidationError, ValueError) as exc:
        report.fail("claims match artifacts", f"report.json is not a valid report: {exc}")
        return
    if written is None:
        report.fail("claims match artifacts", "the attempt wrote no report.json")
        return
    report.claims = len(written.claims)
    for claim in written.claims:
        problem = disagreement(claim, attempt.folder)
        if problem:
            report.fail("claims match artifacts", problem)


def _required(folder: Path, required: Sequence[str], report: CheckReport) -> None:
    report.checks.append("required outputs exist")
    for relative in required:
        path = folder / relative
        if not path.is_file():
            report.fail("required outputs exist", f"{relative} is missing")
        elif path.stat().st_size == 0:
            report.fail("required outputs exist", f"{relative} is empty")


def _task_outputs(folder: Path) -> list[str]:
    task = folder.parent / "task.yaml"
    if not task.exists():
        return []
    data = yaml.safe_load(task.read_text(encoding="utf-8")) or {}
    return [str(p) for p in data.get("required_outputs", [])]
