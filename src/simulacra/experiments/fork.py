"""Counterfactual branches: a child run that is its parent up to a fork point and then goes
on with one change (an intervention, a new model, or nothing).

The child restores the parent's newest checkpoint at or before the fork point and replays
the steps from there to the fork point with the parent's model calls answered from its
record (the scripted model answers again, for free; a served model's answers come from the
parent's response cache, and a call the parent never made is refused, never sent). What the
replay logs is checked against the parent's log and then dropped: the child's events.jsonl
holds only what comes after the fork point, and run.json names the parent and the fork point
(runlog/lineage.py reads the whole history back). The child keeps the parent's random
streams (common random numbers); a replicate draws fresh ones from the fork point on.
"""

from __future__ import annotations

import asyncio
import copy
import os
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from simulacra.core import derived_seed
from simulacra.engine import Engine, ProgressHook
from simulacra.engine.checkpoint import copy_database
from simulacra.experiments.fork_plan import STATE, ForkError, Plan, plan
from simulacra.experiments.kinds import binding_of
from simulacra.experiments.models import cache_in_run, load_run_model
from simulacra.experiments.pipeline import _play
from simulacra.experiments.session import MEMORY_DB, open_session
from simulacra.llm import Gateway, Ledger, SqliteCache
from simulacra.llm.cache import LayeredCache
from simulacra.llm.replay import ReplayBackend, logged_model
from simulacra.llm.spec import model_name
from simulacra.runlog import MINDS, Event, EventWriter, RunDir, history, read_events
from simulacra.runlog.compare import without_wall
from simulacra.runlog.lineage import HEADER, PARENT

FORK = "fork"  # run.json: what the child changed, and its replicate


def fork(
    parent: str | Path,
    *,
    at: int | str | datetime,
    sets: Sequence[str] = (),
    interventions: Sequence[Mapping[str, Any]] = (),
    replicates: int = 0,
    model: Gateway | None = None,
    progress: bool = True,
    on_progress: ProgressHook | None = None,
) -> list[RunDir]:
    """Fork `parent` at `at` (a step, or the time a tick starts) with `sets` (model.* and
    output.* settings) and `interventions` (scenario entries, at the fork point or later),
    and run the child to the end; `replicates` more children draw fresh random numbers from
    the fork point on. `model` answers both the replay and the child (tests pass a scripted
    one). Returns the child first, then the replicates. Refuses, before anything runs, a
    branch that cannot be made (ForkError)."""
    if replicates < 0:
        raise ForkError(f"--replicates {replicates}: give 0 or more")
    made = plan(parent, at, sets=sets, interventions=interventions)
    return [
        branch(made, replicate, model, progress, on_progress) for replicate in range(replicates + 1)
    ]


def branch(
    made: Plan,
    replicate: int,
    model: Gateway | None = None,
    progress: bool = True,
    on_progress: ProgressHook | None = None,
) -> RunDir:
    """Make and run one child of a plan; replicate 0 keeps the parent's random numbers."""
    scenario = made.scenario
    before = model if model is not None else _recorded_model(made)
    after = None if model is not None else _child_model(made)
    step = made.point.step
    suffix = f"-r{replicate}" if replicate else ""
    run_dir = RunDir.create(
        scenario.output.root,
        f"{scenario.name}-fork{step}{suffix}",
        seed=scenario.seed,
        model=scenario.model.spec,
        config=scenario.model_dump(mode="json"),
        extra={
            "world": scenario.world.kind,
            MINDS: binding_of(scenario).models_used(scenario),
            "pid": os.getpid(),
            PARENT: made.point.as_info(),
            FORK: {"changes": list(made.changes), "replicate": replicate},
        },
    )
    lock = run_dir.lock()
    writer: EventWriter | None = None
    try:
        if after is not None:
            cache_in_run(after, scenario, run_dir)
            if made.cache is not None and isinstance(after.cache, SqliteCache):
                after.cache = LayeredCache(after.cache, [SqliteCache(made.cache, readonly=True)])
        before.ledger = Ledger()
        before.reseed = None  # one model given for several branches: only a replicate reseeds
        # The replayed steps' events are numbered as the parent numbered them.
        writer = EventWriter(run_dir.events_path, first_seq=made.start_seq)
        state = _restored(made, run_dir)
        session = open_session(run_dir, scenario, before, writer, state)
        try:
            if scenario.world != made.owner_scenario.world:
                _own_header(made, run_dir, session.cast.world.layout())
            _reach(session.engine, made, run_dir)
        except BaseException:
            session.cast.close()
            raise
        writer.restart(made.point.seq)  # the parent's log holds all that came before
        if after is not None:
            before.become(after)
        if replicate:
            before.reseed = lambda seed: derived_seed(seed, FORK, step, replicate)
            session.engine.rng.seed(derived_seed(scenario.seed, FORK, step, replicate))
    except BaseException:  # a fork that cannot be made leaves nothing behind
        if writer is not None:
            writer.abandon()
        lock.release()
        run_dir.discard()
        raise
    try:
        return _play(session, progress, on_progress)
    finally:
        lock.release()


def _own_header(made: Plan, run_dir: RunDir, layout: dict[str, Any]) -> None:
    """The parent's header with the child's world layout, which history reads in its place:
    a world setting changed at the fork (a fire moved) is where measures and the viewer
    look for it. (The settings a world lets change are static ones: Binding.forkable.)"""
    (start,) = history(made.owner.path, {"run"}, end=made.point.offset)
    header = {**start.data, "world": layout}
    (run_dir.path / HEADER).write_bytes(orjson.dumps(header, option=orjson.OPT_NON_STR_KEYS))


def _restored(made: Plan, run_dir: RunDir) -> dict[str, Any] | None:
    """The owner's checkpoint, its memories copied into the child's own database."""
    if made.start is None:
        return None
    memory = made.start.get("memory")
    if memory:
        copy_database(made.owner.path / STATE / memory, run_dir.path / MEMORY_DB)
    # A copy: a world may keep and change what it restored from, and a plan makes several.
    return {**copy.deepcopy(made.start), "memory": None}


def _reach(engine: Engine, made: Plan, run_dir: RunDir) -> None:
    """Run the steps from the checkpoint to the fork point, saving no checkpoint of them,
    and check that they logged what the parent logged."""
    saved, engine.checkpoints = engine.checkpoints, None

    async def steps() -> None:
        while engine.clock.index < made.point.step:
            await engine.step()

    asyncio.run(steps())
    engine.checkpoints = saved
    engine.writer.write()
    ours = _comparable(read_events(run_dir.events_path))
    theirs = _comparable(_between(made.owner.events_path, made.start_offset, made.point.offset))
    if ours != theirs:
        where = next(
            (i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b),
            min(len(ours), len(theirs)),
        )
        shown = ours[where] if where < len(ours) else "(no more events)"
        raise ForkError(
            f"replaying {made.owner.path} from step "
            f"{made.start['step'] if made.start else 0} to the fork point (step "
            f"{made.point.step}) logged other events than it did, from its event {where}: "
            f"{str(shown)[:300]}. Either a setting given to the fork acts before the fork "
            "point (set it for later steps only, or fork later), or the code, the "
            "configuration or the world's data changed since the parent ran, so no fork of it "
            "can share its prefix: run the scenario again"
        )


def _between(log: Path, start: int, end: int) -> list[Event]:
    """The events of `log` between two byte offsets (both at a line's end)."""
    with log.open("rb") as fh:
        fh.seek(start)
        blob = fh.read(end - start)
    return [Event.from_json(line) for line in blob.splitlines()]


def _comparable(events: Iterable[Event]) -> list[tuple[Any, ...]]:
    """Events as the replay must match them: wall-clock fields aside, without the
    checkpoints the parent took (the replay takes none) and the run's header (the child's
    history keeps the parent's; a world setting changed at the fork shows in the layout it
    records), and a call's `cached` aside (the replay's are all answered from the record)."""
    return [
        (e.t, e.kind, e.agent, {k: v for k, v in without_wall(e.data).items() if k != "cached"})
        for e in events
        if e.kind not in ("checkpoint", "run")
    ]


def _recorded_model(made: Plan) -> Gateway:
    """The model that answers the steps before the fork point as the parent was answered."""
    config = made.owner_scenario.model
    if made.cache is None:  # scripted (free and deterministic) or itself a replay
        return load_run_model(made.owner_scenario)
    cache = SqliteCache(made.cache, readonly=True)
    name = logged_model(made.owner.path) or model_name(config.spec)
    backend = ReplayBackend(made.owner.path, cache, config.spec, name)
    return Gateway(
        backend,
        cache=cache,
        attempts=config.attempts,
        concurrency=config.concurrency,
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        context_tokens=config.context_tokens,
    )


def _child_model(made: Plan) -> Gateway | None:
    """The model from the fork point on; None where the recorded one goes on (scripted)."""
    spec = made.scenario.model.spec
    if made.cache is None and spec == made.owner_scenario.model.spec:
        return None
    return load_run_model(made.scenario)
