"""Questioning an agent of a finished (or stopped) run, from a copy of its memory.

The run's files are left as they are: the memory is read from a copy, and answers are not
cached in the run.
"""

from __future__ import annotations

import asyncio
import tempfile
from datetime import datetime
from pathlib import Path

from simulacra.core import InterviewAnswer, Interviewee
from simulacra.engine import copy_database
from simulacra.errors import UserError
from simulacra.experiments.kinds import Services, binding_of
from simulacra.experiments.kinds.base import INTERVIEW
from simulacra.experiments.load import load_scenario
from simulacra.experiments.models import load_run_model
from simulacra.llm import Gateway, ModelUnreachable, check_spec
from simulacra.runlog import RunDir

MEMORY_DB = "memory.sqlite"


class InterviewError(UserError, ValueError):
    """An interview that cannot be held: no such agent, no memory, an empty question."""


def interview(
    path: str | Path,
    agent: str,
    question: str,
    *,
    model: Gateway | str | None = None,
    now: datetime | None = None,
) -> InterviewAnswer:
    """Ask an agent of a run a question, answered from its saved memory with the run's model,
    or `model` (a model spec or a ready model) when the run's is gone."""
    if not question.strip():
        raise InterviewError("the question is empty; ask the agent something")
    run_dir = RunDir.open(path)
    scenario = load_scenario(run_dir.config())
    kind = binding_of(scenario)
    roster = kind.roster(scenario)
    if agent not in roster:
        shown = ", ".join(roster[:20]) + (" ..." if len(roster) > 20 else "")
        raise InterviewError(f"{run_dir.path.name} has no agent {agent!r}; its agents are: {shown}")
    memory = run_dir.path / MEMORY_DB
    if INTERVIEW not in kind.abilities(scenario) or not memory.exists():
        raise InterviewError(
            f"{run_dir.path.name} cannot be interviewed: {kind.why_no_interviews(scenario)}"
        )
    if isinstance(model, Gateway):
        gateway = model
    else:
        # One call that never reaches the model is enough to say so.
        spec = check_spec(model) if model is not None else scenario.model.spec
        gateway = load_run_model(scenario, spec=spec, cache=None, unreachable_after=1)
    with tempfile.TemporaryDirectory(prefix="simulacra-interview-") as scratch:
        copy = Path(scratch) / MEMORY_DB
        copy_database(memory, copy)
        cast = kind.build(scenario, Services(gateway, None, copy, scenario))
        try:
            mind = cast.minds[agent]
            assert isinstance(mind, Interviewee)  # the world kind says its minds can
            when = now or scenario.clock.calendar().times()[-1]
            return asyncio.run(mind.interview(question, when))
        except ModelUnreachable as exc:
            raise InterviewError(
                f"{exc}\n  to answer with another model instead, give one: --model SPEC"
            ) from exc
        finally:
            cast.close()
