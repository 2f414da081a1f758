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
from pathlib import Path
from typing import Any, NoReturn

import yaml

from simulacra.core.budget import WALL, Meter, resume_overrides, stop
from simulacra.engine import (
    Clock,
    Control,
    Progress,
    ProgressHook,
    console_progress,
)
from simulacra.errors import Interrupted, UserError, explain_os_error
from simulacra.experiments.console_actions import (
    cut_off,
    recorded_interventions,
)
from simulacra.experiments.heap import fewer_collections
from simulacra.experiments.kinds import Cast, binding_of
from simulacra.experiments.load import load_scenario
from simulacra.experiments.models import cache_in_run, load_run_model
from simulacra.experiments.run_metrics import measure
from simulacra.experiments.scenario import Scenario
from simulacra.experiments.session import MEMORY_DB, Session, checkpoints_of, open_session
from simulacra.llm import Gateway, Ledger
from simulacra.llm.budget import BudgetReached
from simulacra.runlog import MINDS, EventWriter, RunDir, RunLock, fork_point
from simulacra.runlog.events import Measured, RunEnded

log = logging.getLogger(__name__)


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
        extra={
            "world": scenario.world.kind,
            MINDS: binding_of(scenario).models_used(scenario),
            "pid": os.getpid(),
            **(extra_info or {}),
        },
    )
    lock: RunLock | None = None
    writer: EventWriter | None = None
    try:
        lock = run_dir.lock()
        if model is None:
            cache_in_run(gateway, scenario, run_dir)
        gateway.ledger = Ledger()
        writer = run_dir.writer()
        session = open_session(run_dir, scenario, gateway, writer, None, control)
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
        checkpoints = checkpoints_of(run_dir)
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
            session = open_session(run_dir, scenario, gateway, writer, state, control, sent)
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


def _tell(opened: Callable[[RunDir], None] | None, session: Session) -> None:
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


def _play(session: Session, progress: bool, on_progress: ProgressHook | None) -> RunDir:
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
        metrics = measure(run_dir, scenario, writer, clock)
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
