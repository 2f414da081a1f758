"""The lifelong loop: the curriculum proposes, the agent solves, consolidation writes memory.

`learn` may change memory: episodes go to the library's episodes/, and skills and pages are
written only when an episode gives reusable evidence; a lint runs after every `lint_every`
changes; learning pauses after `idle_limit` iterations without a change. A user's task runs
in one of the source's two modes: `normal` learns from it as `learn` does from its own
tasks (`solve_normal`); `test` freezes memory (its digest is checked before and after) and
writes episodes into the run folder (`solve_frozen`). A killed learning run resumes after its
last finished iteration. A learning run obeys `model.budget` after every iteration, as a run
does after every tick: it stops there, `stopped: budget`, and resumes with a raised budget.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simulacra.core.budget import BudgetStopped, Meter, logged_tally, stop
from simulacra.embed import EmbedderConfig, build_embedder
from simulacra.errors import UserError
from simulacra.lab.agent import Episode, LearningAgent
from simulacra.lab.config import LabConfig, condition
from simulacra.lab.consolidate import consolidate
from simulacra.lab.curriculum import propose
from simulacra.lab.library import Library
from simulacra.lab.lint import lint
from simulacra.lab.tasks import Task
from simulacra.llm import Gateway, LanguageModel
from simulacra.llm.config import ModelConfig
from simulacra.llm.prompt_log import PROMPTS, PromptLog
from simulacra.runlog import RunDir, read_events
from simulacra.runlog.events import (
    EventSink,
    LabIteration,
    LabLint,
    ModelCall,
    RunEnded,
    RunStarted,
)


class FrozenMemoryError(UserError):
    """Test mode changed memory: the digest after differs from the digest before."""


@dataclass(frozen=True)
class LearnOutcome:
    iterations: int
    changes: int
    paused: bool  # stopped by the idle limit


def started_event(
    model: LanguageModel, name: str, config: LabConfig, extra: dict[str, Any]
) -> RunStarted:
    return RunStarted(
        scenario=name,
        seed=config.seed,
        model=model.name,
        world={"kind": "lab", **extra},
        agents={},
        clock={},
    )


def agent_for(
    library: Library | None,
    model: LanguageModel,
    config: LabConfig,
    sink: EventSink,
    name: str,
    run: RunDir | None = None,
) -> LearningAgent:
    """The agent of condition `name`; it keeps its prompts in `run`'s folder unless the config
    says not to (or there is no run)."""
    embedder = build_embedder(EmbedderConfig(kind=config.embedder))
    prompts = PromptLog(run.path / PROMPTS) if run is not None and config.prompts else None
    return LearningAgent(library, model, config, sink, condition(name), embedder, prompts)


async def solve_frozen(agent: LearningAgent, task: Task, episodes: Path, **kwargs: Any) -> Episode:
    """Solve in test mode: memory may be read, never changed."""
    library = agent.library
    before = library.digest() if library is not None else ""
    episode = await agent.solve(task, episodes, mode="test", **kwargs)
    if library is not None and library.digest() != before:
        raise FrozenMemoryError(f"{library.root}: memory changed during a test-mode task")
    return episode


def learn(
    library: Library,
    model: Gateway,
    config: LabConfig,
    run: RunDir,
    iterations: int,
    limits: ModelConfig | None = None,
) -> LearnOutcome:
    """Run (or resume) a learning run in `run` until `iterations`, the idle pause or a limit
    of `limits.budget` (raised as BudgetStopped, after the iteration that reached it)."""
    done, idle = _progress(run)
    library.discard_uncommitted()  # a killed iteration left nothing worth keeping
    if run.events_path.exists():  # what earlier sessions spent counts against the budget
        model.ledger.total = logged_tally(read_events(run.events_path))
        run.set_status("running")
    meter = Meter(run, limits or ModelConfig(), model)  # no budget: nothing to watch
    over_budget = meter.watch()
    writer = run.writer()
    if done == 0 and writer.seq == 0:
        writer.emit(started_event(model, "lab-learn", config, {"library": str(library.root)}))
    agent = agent_for(library, model, config, writer, "full", run)
    if done:
        calls = read_events(run.events_path, {ModelCall.KIND})
        agent.continue_seeds(str(e.data["purpose"]) for e in calls)
    changes = 0
    paused = False
    stopped: BudgetStopped | None = None
    try:
        for number in range(done + 1, iterations + 1):
            task = asyncio.run(propose(agent, library, number))
            episode = asyncio.run(agent.solve(task, library.root / "episodes", mode="learn"))
            changed = asyncio.run(learn_from(agent, library, episode, config, writer))
            changes += len(changed)
            idle = 0 if changed else idle + 1
            writer.emit(
                LabIteration(
                    iteration=number,
                    task=task.id,
                    changed=bool(changed),
                    idle=idle,
                    commit=library.head(),
                )
            )
            writer.flush()
            if idle >= config.idle_limit:
                paused = True
                break
            limit = over_budget() if over_budget is not None and number < iterations else None
            if limit is not None:
                resume = f"simulacra lab learn --resume {run.path} --iterations {iterations}"
                stopped = stop(run, writer, meter, limit, resume)
                break
        if stopped is None:
            writer.emit(RunEnded(status="completed"))
            writer.close()
            run.set_status("completed", paused=paused)
    except BaseException as exc:
        run.record_failure(writer, exc)
        raise
    if stopped is not None:
        raise stopped
    return LearnOutcome(iterations=_progress(run)[0], changes=changes, paused=paused)


async def learn_from(
    agent: LearningAgent, library: Library, episode: Episode, config: LabConfig, sink: EventSink
) -> list[str]:
    """Keep the episode, consolidate what it proved, lint when due; the names changed."""
    verdict = "accepted" if episode.accepted else "rejected"
    library.append_log(f"episode {episode.folder.name}: {verdict}")
    library.commit(f"episode: {episode.task.id} {verdict}")
    changed = await consolidate(agent, library, episode, sink)
    if changed:
        agent.refresh()
        _maybe_lint(library, config, sink)
    return changed


async def solve_normal(
    agent: LearningAgent, task: Task, **kwargs: Any
) -> tuple[Episode, list[str]]:
    """Solve a user's task in normal mode: the episode joins the library, and what it proved
    becomes memory as in learning (not after its budget stopped it). Returns the episode and
    the names memory changed."""
    library = agent.library
    if library is None:
        raise FrozenMemoryError("normal mode needs a library to learn into")
    library.discard_uncommitted()
    episode = await agent.solve(task, library.root / "episodes", mode="normal", **kwargs)
    if episode.stopped is not None:  # stopped by its budget: no more calls, memory unchanged
        library.discard_uncommitted()
        return episode, []
    changed = await learn_from(agent, library, episode, agent.config, agent.sink)
    return episode, changed


def _progress(run: RunDir) -> tuple[int, int]:
    """Iterations finished so far and the idle count after the last, from the run's log."""
    if not run.events_path.exists():
        return 0, 0
    last = None
    for event in read_events(run.events_path):
        if event.kind == LabIteration.KIND:
            last = event.data
    if last is None:
        return 0, 0
    return int(last["iteration"]), int(last["idle"])


def _maybe_lint(library: Library, config: LabConfig, sink: EventSink) -> None:
    pending = library.changes_since_lint()
    if len(pending) < config.lint_every:
        return
    report = lint(library, changed=pending)
    sink.emit(
        LabLint(
            full=False,
            checked=report.checked,
            repairs=[f"{f.artifact}: {f.message}" for f in report.repairs],
            open=[f"{f.artifact}: {f.message}" for f in report.open],
        )
    )
