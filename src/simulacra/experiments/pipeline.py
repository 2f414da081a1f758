"""The one run pipeline: a scenario of any world in, a finished run directory out.

`run(scenario)` creates the run directory, loads the model, builds the world and its minds,
drives the engine with checkpoints, writes metrics.json and the report and viewer. `resume`
continues a stopped run from its last checkpoint; `interview` questions an agent of a run.
"""

from __future__ import annotations

import asyncio
import json
import logging
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from simulacra.core import InterviewAnswer, Interviewee
from simulacra.engine import (
    Checkpoints,
    Clock,
    Engine,
    EventRouter,
    Intervention,
    Interventions,
    InterviewPlan,
    Progress,
    ProgressHook,
    console_progress,
    copy_database,
)
from simulacra.experiments.kinds import Cast, Services, kind_of
from simulacra.experiments.load import load_scenario
from simulacra.experiments.measures import budget, diffusion, fallbacks
from simulacra.experiments.scenario import Scenario
from simulacra.llm import Gateway, Ledger, ScriptedModel
from simulacra.runlog import EventWriter, RunDir, read_events
from simulacra.runlog.events import Measured, RunEnded, RunStarted

log = logging.getLogger(__name__)

MEMORY_DB = "memory.sqlite"
LLM_CACHE = "llm_cache.sqlite"
CHECKPOINT = "checkpoint"


def run(
    scenario: Scenario,
    *,
    model: Gateway | None = None,
    progress: bool = True,
    on_progress: ProgressHook | None = None,
    run_name: str | None = None,
    extra_info: dict[str, Any] | None = None,
) -> RunDir:
    """Run a valid scenario into a new run directory under `scenario.output.root`.

    `model` supplies a ready model instead of the scenario's (tests pass a scripted one);
    `progress` draws a bar when a terminal is attached; `on_progress` is called after every
    tick; `run_name` names the directory (default: the scenario's name); `extra_info` joins
    run.json (a sweep records the variant and replicate there)."""
    spec = model.name if model is not None else scenario.model.spec
    scenario = scenario.model_copy(
        update={"model": scenario.model.model_copy(update={"spec": spec})}
    )
    run_dir = RunDir.create(
        scenario.output.root,
        run_name or scenario.name,
        seed=scenario.seed,
        model=spec,
        config=scenario.model_dump(mode="json"),
        extra={"world": scenario.world.kind, **(extra_info or {})},
    )
    gateway = model if model is not None else load_run_model(scenario, run_dir)
    gateway.ledger = Ledger()
    return _drive(run_dir, scenario, gateway, None, progress, on_progress)


def resume(
    path: str | Path,
    *,
    model: Gateway | None = None,
    progress: bool = True,
    on_progress: ProgressHook | None = None,
) -> RunDir:
    """Continue a run from its last checkpoint (from the start if it has none)."""
    run_dir = RunDir.open(path)
    if run_dir.info().get("status") == "completed":
        raise ValueError(f"{run_dir.path} has already completed; start a new run instead")
    scenario = load_scenario(run_dir.config())
    gateway = model if model is not None else load_run_model(scenario, run_dir)
    gateway.ledger = Ledger()
    state = _checkpoints(run_dir).load()
    if state is None:  # killed before its first checkpoint: start again from nothing
        for name in (MEMORY_DB, MEMORY_DB + "-wal", MEMORY_DB + "-shm", "events.jsonl"):
            (run_dir.path / name).unlink(missing_ok=True)
    run_dir.set_status("running")
    return _drive(run_dir, scenario, gateway, state, progress, on_progress)


def interview(
    path: str | Path,
    agent: str,
    question: str,
    *,
    model: Gateway | None = None,
    now: datetime | None = None,
) -> InterviewAnswer:
    """Ask an agent of a run a question, answered from its saved memory with the run's model
    (or `model`). The run's files are left untouched: the memory is read from a copy."""
    run_dir = RunDir.open(path)
    scenario = load_scenario(run_dir.config())
    kind = kind_of(scenario)
    roster = kind.roster(scenario)
    if agent not in roster:
        raise KeyError(
            f"{run_dir.path.name} has no agent {agent!r}; its agents are: {', '.join(roster)}"
        )
    memory = run_dir.path / MEMORY_DB
    if not memory.exists():
        raise ValueError(
            f"{run_dir.path.name} keeps no memory stream, so its agents cannot be interviewed"
        )
    gateway = model if model is not None else load_run_model(scenario, run_dir)
    with tempfile.TemporaryDirectory(prefix="simulacra-interview-") as scratch:
        copy = Path(scratch) / MEMORY_DB
        copy_database(memory, copy)
        cast = kind.build(scenario, Services(gateway, None, copy, scenario))
        try:
            mind = cast.minds[agent]
            if not isinstance(mind, Interviewee):
                raise ValueError(
                    f"the {kind.name} world's {kind.mind(scenario)} minds cannot be interviewed"
                )
            when = now or _last_tick(scenario)
            return asyncio.run(mind.interview(question, when))
        finally:
            cast.close()


def load_run_model(scenario: Scenario, run_dir: RunDir) -> Gateway:
    """The scenario's model, caching answers in the run (but for the scripted model, which is
    free and deterministic, and a replay, which reads its own run's cache); a scripted model
    gets the world's responders."""
    spec = scenario.model.spec
    cached = spec != "scripted" and not spec.startswith("replay:")
    cache = run_dir.path / LLM_CACHE if cached and scenario.model.cache is None else None
    model = (
        scenario.model.load()
        if cache is None
        else scenario.model.model_copy(update={"cache": cache}).load()
    )
    if isinstance(model, ScriptedModel):
        kind_of(scenario).script(model)
    return model


# --- inside ----------------------------------------------------------------------------------


def _checkpoints(run_dir: RunDir, cast: Cast | None = None) -> Checkpoints:
    return Checkpoints(
        run_dir.path / CHECKPOINT,
        run_dir.path / MEMORY_DB,
        cast.flush if cast is not None else None,
    )


def _drive(
    run_dir: RunDir,
    scenario: Scenario,
    model: Gateway,
    state: dict[str, Any] | None,
    progress: bool,
    on_progress: ProgressHook | None,
) -> RunDir:
    writer = run_dir.writer(truncate_at=state["offset"] if state else None)
    kind = kind_of(scenario)
    cast: Cast | None = None
    try:
        if state is not None:
            _checkpoints(run_dir).restore_memory(state)
        router = EventRouter(writer, kind.roster(scenario))
        services = Services(model, router, run_dir.path / MEMORY_DB, scenario, run_dir.path)
        cast = kind.build(scenario, services)
        clock = Clock(scenario.clock.calendar())
        engine = Engine(
            cast.world,
            cast.minds,
            model=model,
            router=router,
            clock=clock,
            seed=scenario.seed,
            interventions=_interventions(scenario),
            checkpoints=_checkpoints(run_dir, cast),
            checkpoint_every=scenario.clock.checkpoint_every,
        )
        if state is None:
            writer.emit(_start(scenario, cast, model, clock), t=clock.now)
            engine.start()
        else:
            engine.restore(state)
        with _progress_hooks(scenario, clock, progress, on_progress) as hook:
            engine.on_progress = hook
            asyncio.run(engine.run())
        cast.close()
        cast = None
        metrics = _finish(run_dir, scenario, writer, clock)
    except BaseException as exc:
        if cast is not None:
            cast.close()
        run_dir.record_failure(writer, exc)
        raise
    writer.close()
    (run_dir.path / "metrics.json").write_text(
        json.dumps(metrics, indent=2, ensure_ascii=False), encoding="utf-8"
    )
    run_dir.set_status(
        "completed",
        ticks=clock.ticks,
        calls=metrics["budget"]["total"]["calls"],
        summary=metrics["summary"],
    )
    _build_outputs(run_dir, scenario)
    return run_dir


def _start(scenario: Scenario, cast: Cast, model: Gateway, clock: Clock) -> RunStarted:
    calendar = clock.calendar
    kind = kind_of(scenario)
    return RunStarted(
        scenario=scenario.name,
        seed=scenario.seed,
        model=model.name,
        world=cast.world.layout(),
        agents=kind.agents_info(cast),
        clock={
            "start": calendar.start.isoformat(),
            "end": calendar.end.isoformat(),
            "tick_minutes": calendar.tick.total_seconds() / 60,
            "ticks": clock.ticks,
        },
        ablation=kind.ablation(scenario),
        mind=kind.mind(scenario),
    )


def _finish(
    run_dir: RunDir, scenario: Scenario, writer: EventWriter, clock: Clock
) -> dict[str, Any]:
    """Read the measures back from the log and log the headline ones."""
    writer.flush()
    kind = kind_of(scenario)
    events = list(read_events(run_dir.events_path, {"llm.call", "interview"} | kind.reads))
    agents = len(kind.roster(scenario))
    spent = budget(events, agents, clock.ticks, clock.calendar.tick)
    metrics: dict[str, Any] = {"budget": spent, "fallbacks": fallbacks(spent)}
    plan = scenario.interviews
    if plan is not None and plan.aware_when:
        metrics["diffusion"] = diffusion(events, plan.question, plan.aware_when)
    metrics |= kind.measures(events, scenario)
    summary = kind.headline(metrics)
    if metrics.get("diffusion"):
        summary["aware_final"] = float(metrics["diffusion"][-1]["aware"])
    summary["calls_per_agent_tick"] = spent["calls_per_agent_tick"]
    summary["fallback_rate"] = metrics["fallbacks"]["rate"]
    metrics["summary"] = summary
    end = clock.now
    for name, value in summary.items():
        writer.emit(Measured(name=name, value=value), t=end)
    writer.emit(RunEnded(status="completed"), t=end)
    return metrics


def _interventions(scenario: Scenario) -> Interventions:
    items = [
        Intervention(
            scenario.when(item.at),
            item.type,
            item.text,
            tuple(item.who),
            item.change,
            item.importance,
            tuple(tuple(group) for group in item.contradicts),
        )
        for item in scenario.interventions
    ]
    plan = scenario.interviews
    interviews = None
    if plan is not None:
        interviews = InterviewPlan(
            tuple(scenario.when(t) for t in plan.times),
            plan.question,
            tuple(tuple(group) for group in plan.aware_when),
        )
    return Interventions(items, interviews)


def _build_outputs(run_dir: RunDir, scenario: Scenario) -> None:
    """report.html and viewer.html (and frames where asked); a fault there leaves the run
    complete."""
    if not (scenario.output.report or scenario.output.frames):
        return
    from simulacra.report import build_outputs, render_frames

    try:
        if scenario.output.report:
            build_outputs(run_dir.path)
        if scenario.output.frames:
            render_frames(run_dir.path)
    except Exception:
        log.exception("building the report, viewer or frames of %s failed", run_dir.path)


def _last_tick(scenario: Scenario) -> datetime:
    times = scenario.clock.calendar().times()
    return times[-1]


@contextmanager
def _progress_hooks(
    scenario: Scenario, clock: Clock, progress: bool, on_progress: ProgressHook | None
) -> Iterator[ProgressHook | None]:
    if not progress:
        yield on_progress
        return
    with console_progress(scenario.name, clock.ticks, clock.index, clock.calendar.tick) as bar:
        if bar is None or on_progress is None:
            yield bar or on_progress
            return

        def both(p: Progress) -> None:
            bar(p)
            on_progress(p)

        yield both
