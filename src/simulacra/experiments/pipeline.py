"""The one run pipeline: a scenario of any world in, a finished run directory out.

`run(scenario)` loads the model and checks the output folder before it creates anything,
then creates the run directory (locked while this process writes it), builds the world and
its minds, drives the engine with checkpoints, writes metrics.json and the report and viewer.
A start that fails leaves no run directory; a run that fails later is marked failed in
run.json with the reason. `resume` continues a stopped run from its last intact checkpoint.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import yaml

from simulacra.core.budget import WALL, Meter, resume_overrides, stop
from simulacra.engine import (
    Checkpoints,
    Clock,
    Control,
    Engine,
    EventRouter,
    Intervention,
    Interventions,
    InterviewPlan,
    Progress,
    ProgressHook,
    console_progress,
)
from simulacra.errors import Interrupted, UserError, explain_os_error
from simulacra.experiments.console_actions import (
    cut_off,
    intervention_of,
    recorded_interventions,
)
from simulacra.experiments.facts import aware_test, knows_by_words, knows_off, planting
from simulacra.experiments.heap import fewer_collections
from simulacra.experiments.kinds import Cast, Services, binding_of
from simulacra.experiments.load import load_scenario
from simulacra.experiments.measures import MemoryTally, budget, diffusion, fallbacks
from simulacra.experiments.models import cache_in_run, load_run_model
from simulacra.experiments.scenario import Scenario
from simulacra.llm import Gateway, Ledger
from simulacra.llm.budget import BudgetReached
from simulacra.memory import WITNESSED
from simulacra.runlog import Event, EventWriter, RunDir, RunLock, fork_point, history
from simulacra.runlog.events import Measured, RunEnded, RunStarted

log = logging.getLogger(__name__)

MEMORY_DB = "memory.sqlite"
CHECKPOINT = "checkpoint"


class RunFailed(UserError):
    """A run that stopped part-way for a reason the user can fix; run.json says why."""


class ResumeError(UserError, ValueError):
    """A run that cannot be resumed (it has completed)."""


class TooManyFallbacks(UserError):
    """A run that completed, but whose model was replaced by the declared fallback more often
    than the scenario's model.max_fallback_rate allows."""

    def __init__(self, message: str, run_dir: RunDir) -> None:
        super().__init__(message)
        self.run_dir = run_dir


def run(
    scenario: Scenario,
    *,
    model: Gateway | None = None,
    progress: bool = True,
    on_progress: ProgressHook | None = None,
    run_name: str | None = None,
    extra_info: dict[str, Any] | None = None,
    control: Control | None = None,
    opened: Callable[[RunDir], None] | None = None,
) -> RunDir:
    """Run a valid scenario into a new run directory under `scenario.output.root`.

    `model` supplies a ready model instead of the scenario's (tests pass a scripted one);
    `progress` draws a bar when a terminal is attached; `on_progress` is called after every
    tick; `run_name` names the directory (default: the scenario's name); `extra_info` joins
    run.json (a sweep records the variant and replicate there); `control` is a live
    console's, and `opened` is told the run directory once the run is set to play. Raises
    TooManyFallbacks after a run whose fallbacks exceed model.max_fallback_rate."""
    spec = model.name if model is not None else scenario.model.spec
    scenario = scenario.model_copy(
        update={"model": scenario.model.model_copy(update={"spec": spec})}
    )
    gateway = model if model is not None else load_run_model(scenario)
    run_dir = RunDir.create(
        scenario.output.root,
        run_name or scenario.name,
        seed=scenario.seed,
        model=spec,
        config=scenario.model_dump(mode="json"),
        extra={"world": scenario.world.kind, "pid": os.getpid(), **(extra_info or {})},
    )
    lock: RunLock | None = None
    writer: EventWriter | None = None
    try:
        lock = run_dir.lock()
        if model is None:
            cache_in_run(gateway, scenario, run_dir)
        gateway.ledger = Ledger()
        writer = run_dir.writer()
        session = _open(run_dir, scenario, gateway, writer, None, control)
    except BaseException:  # a start that fails leaves nothing behind
        if writer is not None:
            writer.abandon()
        if lock is not None:
            lock.release()
        run_dir.discard()
        raise
    try:
        _tell(opened, session)
        return _play(session, progress, on_progress)
    finally:
        lock.release()


def resume(
    path: str | Path,
    *,
    model: Gateway | None = None,
    progress: bool = True,
    on_progress: ProgressHook | None = None,
    overrides: Sequence[str] = (),
    control: Control | None = None,
    opened: Callable[[RunDir], None] | None = None,
) -> RunDir:
    """Continue a run from its newest checkpoint that matches its log (from the start if it
    has none); refuse when its log is damaged before every checkpoint. `overrides` may set
    model.budget and model.price only (a run stopped by its budget goes on with a raised one)."""
    sets = resume_overrides(overrides)
    run_dir = RunDir.open(path)
    lock = run_dir.lock()
    try:
        if run_dir.info().get("status") == "completed":
            raise ResumeError(f"{run_dir.path} has already completed; start a new run instead")
        scenario = load_scenario(run_dir.config(), sets)
        if overrides:
            config = scenario.model_dump(mode="json")
            run_dir.config_path.write_text(yaml.safe_dump(config, sort_keys=False), "utf-8")
        gateway = model if model is not None else load_run_model(scenario)
        checkpoints = _checkpoints(run_dir)
        state = checkpoints.load(run_dir.events_path)
        for skipped in checkpoints.skipped:
            log.warning(
                "%s: passed over a checkpoint that the log no longer matches: %s",
                run_dir.path,
                skipped,
            )
        # A live console's interventions, all of them: one sent after the checkpoint fires
        # again when the run gets there, though its lines of the log are cut off below.
        sent = recorded_interventions(scenario, run_dir.events_path)
        again = cut_off(run_dir.events_path, state["offset"] if state else 0)
        if model is None:
            cache_in_run(gateway, scenario, run_dir)
        gateway.ledger = Ledger()
        if state is None and fork_point(run_dir.path) is not None:
            raise ResumeError(
                f"{run_dir.path} is a fork that stopped before its first checkpoint; fork its "
                "parent again (run.json's `parent` names it and the fork point)"
            )
        if state is None:  # killed before its first checkpoint: start again from nothing
            for name in (MEMORY_DB, MEMORY_DB + "-wal", MEMORY_DB + "-shm", "events.jsonl"):
                (run_dir.path / name).unlink(missing_ok=True)
        # The process now running it, and how often it was resumed (a sweep's retries show here).
        resumed = int(run_dir.info().get("resumed", 0)) + 1
        run_dir.set_status("running", pid=os.getpid(), resumed=resumed)
        writer = run_dir.writer(truncate_at=state["offset"] if state else None)
        try:
            session = _open(run_dir, scenario, gateway, writer, state, control, sent)
        except BaseException as exc:
            run_dir.record_failure(writer, exc)
            _raise_stopped(run_dir, exc)
        for action, at in again:  # logged again, as sent: the cut log lost them
            writer.emit(action, t=at)
        _tell(opened, session)
        return _play(session, progress, on_progress)
    finally:
        lock.release()


# --- inside ----------------------------------------------------------------------------------


@dataclass
class _Session:
    """A run ready to play: its directory, scenario, model, log, cast, clock and engine."""

    run_dir: RunDir
    scenario: Scenario
    model: Gateway
    writer: EventWriter
    cast: Cast
    clock: Clock
    engine: Engine


def _checkpoints(run_dir: RunDir, cast: Cast | None = None, every: int = 0) -> Checkpoints:
    return Checkpoints(
        run_dir.path / CHECKPOINT,
        run_dir.path / MEMORY_DB,
        cast.flush if cast is not None else None,
        every,
    )


def _open(
    run_dir: RunDir,
    scenario: Scenario,
    model: Gateway,
    writer: EventWriter,
    state: dict[str, Any] | None,
    control: Control | None = None,
    sent: Sequence[Intervention] = (),
) -> _Session:
    """Build the world and its minds and set the engine at the start or at `state`; `sent`
    are the interventions a console sent before a resume (read back from the log)."""
    kind = binding_of(scenario)
    cast: Cast | None = None
    try:
        if state is not None:
            _checkpoints(run_dir).restore_memory(state)
        router = EventRouter(writer, kind.roster(scenario))
        services = Services(model, router, run_dir.path / MEMORY_DB, scenario, run_dir.path)
        cast = kind.build(scenario, services)
        clock = Clock(scenario.clock.calendar())
        interventions = _interventions(scenario, _cast_names(kind.agents_info(cast)))
        for item in sent:
            interventions.add(item)
        engine = Engine(
            cast.world,
            cast.minds,
            model=model,
            router=router,
            clock=clock,
            seed=scenario.seed,
            interventions=interventions,
            checkpoints=_checkpoints(run_dir, cast, scenario.clock.checkpoint_every),
            checkpoint_every=scenario.clock.checkpoint_every,
            control=control,
        )
        if state is None:
            writer.emit(_start(scenario, cast, model, clock), t=clock.now)
            engine.start()
        else:
            engine.restore(state)
    except BaseException:
        if cast is not None:
            cast.close()
        raise
    return _Session(run_dir, scenario, model, writer, cast, clock, engine)


def _tell(opened: Callable[[RunDir], None] | None, session: _Session) -> None:
    """Tell `opened` the run is set to play (a console starts serving it); a fault there
    marks the run failed, as one in the run would."""
    if opened is None:
        return
    try:
        opened(session.run_dir)
    except BaseException as exc:
        session.cast.close()
        session.run_dir.record_failure(session.writer, exc)
        _raise_stopped(session.run_dir, exc)


def _play(session: _Session, progress: bool, on_progress: ProgressHook | None) -> RunDir:
    """Drive the engine to the end and write what is read back from the log; on any failure
    mark the run failed (or interrupted) before raising."""
    run_dir, scenario, writer, clock = (
        session.run_dir,
        session.scenario,
        session.writer,
        session.clock,
    )
    cast: Cast | None = session.cast
    meter = Meter(run_dir, scenario.model, session.model)
    session.engine.over_budget = meter.watch()
    try:
        with _progress_hooks(scenario, clock, progress, on_progress) as hook:
            session.engine.on_progress = hook
            with fewer_collections():
                asyncio.run(session.engine.run())
        session.cast.close()
        cast = None
        metrics = _measure(run_dir, scenario, writer, clock)
        (run_dir.path / "metrics.json").write_text(
            json.dumps(metrics, indent=2, ensure_ascii=False), encoding="utf-8"
        )
        end = clock.now
        for name, value in metrics["summary"].items():
            writer.emit(Measured(name=name, value=value), t=end)
        writer.emit(RunEnded(status="completed"), t=end)
        writer.close()
        run_dir.set_status(
            "completed",
            ticks=clock.ticks,
            calls=metrics["budget"]["total"]["calls"],
            summary=metrics["summary"],
            spent=meter.spent().as_dict(),
            **{WALL: round(meter.wall_s(), 3)},
        )
    except BudgetReached as reached:
        session.cast.close()
        stopped = stop(run_dir, writer, meter, reached.limit)
        _build_outputs(run_dir, scenario)  # the report of what it did and spent so far
        raise stopped from None
    except BaseException as exc:
        if cast is not None:
            cast.close()
        run_dir.record_failure(writer, exc)
        _raise_stopped(run_dir, exc)
    _build_outputs(run_dir, scenario)
    _check_fallbacks(run_dir, scenario, metrics)
    return run_dir


def _raise_stopped(run_dir: RunDir, exc: BaseException) -> NoReturn:
    """Raise what a run that stopped on `exc` raises: RunFailed, naming the run and how to
    continue it, for a failure the user can fix (a full disk, an unreachable model);
    Interrupted, naming them too, for Ctrl+C; `exc` itself for anything else (a bug)."""
    if isinstance(exc, KeyboardInterrupt):
        raise Interrupted(
            f"run {run_dir.path} stopped; run.json marks it interrupted; continue it from its "
            f"last checkpoint: simulacra run --resume {run_dir.path}"
        ) from None
    if isinstance(exc, UserError):
        reason = str(exc)
    elif isinstance(exc, OSError):
        reason = explain_os_error(exc)
    elif isinstance(exc, sqlite3.Error):
        reason = f"the memory database failed: {exc} (is the disk full?)"
    else:
        raise exc
    raise RunFailed(
        f"run {run_dir.path} stopped: {reason}\n  run.json marks it failed; once that is "
        f"fixed, continue it: simulacra run --resume {run_dir.path}"
    ) from exc


def _check_fallbacks(run_dir: RunDir, scenario: Scenario, metrics: dict[str, Any]) -> None:
    share, limit = metrics["fallbacks"]["rate"], scenario.model.max_fallback_rate
    if share <= limit:
        return
    calls = metrics["budget"]["total"]["calls"]
    spec = scenario.model.spec
    raise TooManyFallbacks(
        f"run {run_dir.path} finished, but {share:.0%} of its {calls} model calls "
        f"({metrics['fallbacks']['total']}) were answered by the declared fallback, more than "
        f"model.max_fallback_rate ({limit:.0%}): its results say little about the model "
        f"{spec}. Check the model (simulacra models check {spec!r}), or raise "
        "model.max_fallback_rate",
        run_dir,
    )


def _start(scenario: Scenario, cast: Cast, model: Gateway, clock: Clock) -> RunStarted:
    calendar = clock.calendar
    kind = binding_of(scenario)
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


def _measure(
    run_dir: RunDir, scenario: Scenario, writer: EventWriter, clock: Clock
) -> dict[str, Any]:
    """Read the measures back from the log; `summary` holds the headline ones."""
    writer.flush()
    kind = binding_of(scenario)
    agents = len(kind.roster(scenario))
    # One pass over the log (a 1,000-agent day writes 170 MB): the calls are summed as they
    # are read (a 10,000-agent month logs 490,000 of them); what the measures read is kept
    # (the embodied world's read the calls too).
    wanted = {"run", "interview"} | kind.reads
    plan = scenario.interviews
    # An interview's answer is judged against what it rests on: the records of what its agent
    # saw or heard.
    evidence = plan is not None and bool(plan.aware_when)
    events: list[Event] = []
    memory = MemoryTally()
    models: set[str] = set()  # what answered, by the name each call logged

    def calls() -> Iterator[Event]:
        read = {"llm.call", "memory.add", "reflection"} | wanted
        for event in history(run_dir.path, read):  # a fork's: its parent's prefix too
            if event.kind in wanted:
                events.append(event)
            if event.kind == "llm.call":
                models.add(str(event.data.get("model", "")))
                yield event
            else:
                memory.add(event)
                if evidence and event.kind == "memory.add" and event.data["kind"] in WITNESSED:
                    events.append(event)

    spent = budget(calls(), agents, clock.ticks, clock.calendar.tick)
    days = len({t.date() for t in clock.calendar.times()})
    metrics: dict[str, Any] = {
        "budget": spent,
        "fallbacks": fallbacks(spent),
        "models": sorted(models - {""}),
        "memory": memory.result(agents * days),
    }
    if plan is not None and plan.aware_when:
        names = _names(events)
        test = aware_test(scenario, plan.aware_when, names, plan.off_when)
        groups, off = plan.aware_when, plan.off_when

        def told(text: str, speaker: str) -> bool:
            return knows_by_words(text, groups, names.get(speaker, speaker))

        def said_off(text: str) -> bool:
            return knows_off(text, off)

        planted = planting(scenario, groups, names)
        owner = planted.owner if planted is not None else None
        metrics["diffusion"] = diffusion(
            events, plan.question, test, told, owner, said_off if off else None
        )
    metrics |= kind.measures(events, scenario)
    summary = kind.headline(metrics)
    if metrics.get("diffusion"):
        last = metrics["diffusion"][-1]
        summary["aware_final"] = float(last["aware"])
        if "off" in last:  # who knows the fact is called off: apart from the aware
            summary["off_final"] = float(last["off"])
    summary["calls_per_agent_tick"] = spent["calls_per_agent_tick"]
    summary["fallback_rate"] = metrics["fallbacks"]["rate"]
    metrics["summary"] = summary
    return metrics


def _names(events: list[Event]) -> dict[str, str]:
    """Each agent's name, from the run's first event."""
    start = next((e for e in events if e.kind == "run"), None)
    return _cast_names(start.data.get("agents", {}) if start is not None else {})


def _cast_names(agents: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {a: str(info.get("name") or a) for a, info in agents.items()}


def _interventions(scenario: Scenario, names: dict[str, str]) -> Interventions:
    items = [intervention_of(scenario, item) for item in scenario.interventions]
    plan = scenario.interviews
    interviews = None
    if plan is not None:
        groups = tuple(tuple(group) for group in plan.aware_when)
        interviews = InterviewPlan(
            tuple(scenario.when(t) for t in plan.times),
            plan.question,
            groups,
            aware_test(scenario, groups, names, plan.off_when) if groups else None,
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


@contextmanager
def _progress_hooks(
    scenario: Scenario, clock: Clock, progress: bool, on_progress: ProgressHook | None
) -> Iterator[ProgressHook | None]:
    if not progress:
        yield on_progress
        return
    with console_progress(
        scenario.name, clock.ticks, clock.index, clock.calendar.tick, scenario.model.price
    ) as bar:
        if bar is None or on_progress is None:
            yield bar or on_progress
            return

        def both(p: Progress) -> None:
            bar(p)
            on_progress(p)

        yield both
