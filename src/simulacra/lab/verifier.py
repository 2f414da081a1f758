"""Verification of a benchmark task: the whole check, a reproduction, and the task's verify.py.

The verifier trusts nothing the loop concluded. It checks the attempt from its record as the
checker does (`checker`), reproducing it into a folder of its own (the recorded commands
replayed, SUMO's tools rerun on the configurations the outputs name) and recomputing the
report's claims from the reproduction; then it runs the task's verify.py, read-only and in
the sandbox, on the reproduced attempt: the figures it checks are the reproduced ones.

A free-text task has no verify.py: its reproduction-based verdict is the whole check with the
outputs its text names required, and it applies only where the text names some (the judge's
verdict, `LearningAgent.judge`, is reported beside it).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from simulacra.lab.checker import check_attempt
from simulacra.lab.sandbox import Sandbox, SandboxLimits
from simulacra.lab.tasks import SuiteTask

_VERIFY_LIMITS = SandboxLimits(wall_s=60, cpu_s=30)


class Verification(BaseModel):
    passed: bool
    checks: list[Any] = Field(default_factory=list)
    error: str | None = None


def verify(suite_task: SuiteTask, attempt: Path) -> Verification:
    task = suite_task.task
    named = task.checkable()
    with tempfile.TemporaryDirectory(prefix="simulacra-verify-") as name:
        replay = Path(name)
        check = check_attempt(attempt, named, given=task.given(), replay_into=replay)
        if not check.passed:
            failed = [
                {"check": f.check, "passed": False, "detail": f.message} for f in check.findings
            ]
            return Verification(passed=False, checks=failed)
        if suite_task.verifier is None:
            missing = None if named else "the task's text names no output to check"
            verdict = Verification(passed=bool(named), error=missing)
        else:
            verdict = run_verify(suite_task, replay)
    checks = [{"check": "reproduces", "passed": True, "detail": check.reproduced}, *verdict.checks]
    return verdict.model_copy(update={"checks": checks})


def run_verify(suite_task: SuiteTask, folder: Path) -> Verification:
    """The task's verify.py on `folder`, read-only, in the sandbox."""
    sandbox = Sandbox(folder, _VERIFY_LIMITS)
    script = suite_task.folder / "verify.py"
    result = sandbox.run(
        f"python {script} .",
        name="verify",
        writable=False,
        pythonpath=[str(suite_task.folder.parent)],
    )
    lines = result.stdout.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    try:
        return Verification.model_validate(json.loads(lines[-1]))
    except (IndexError, json.JSONDecodeError, ValidationError) as exc:
        tail = result.stderr.read_text(encoding="utf-8", errors="replace")[-300:]
        return Verification(passed=False, error=f"verify.py printed no verdict ({exc}): {tail}")
