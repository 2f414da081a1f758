"""The public entry points: run a scenario, resume a killed run, interview an agent of a run."""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import logging
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from simulacra.embed import Embedder, build_embedder
from simulacra.engine import checkpoint
from simulacra.engine.clock import Calendar, Clock
from simulacra.engine.loop import Progress, ProgressHook, Simulation
from simulacra.engine.measures import run_metrics
from simulacra.engine.progress import console_progress
from simulacra.engine.sink import EventRouter
from simulacra.experiments.config import Scenario
from simulacra.experiments.load import validate_scenario
from simulacra.llm import Gateway, Ledger, ScriptedModel, load_model
from simulacra.memory import MemoryStream
from simulacra.mind import Agent, InterviewAnswer
from simulacra.runlog import EventWriter, RunDir
from simulacra.worlds.town.scripted import sociable
from simulacra.worlds.town.world import TownWorld

log = logging.getLogger(__name__)

MEMORY_DB = "memory.sqlite"
LLM_CACHE = "llm_cache.sqlite"
CHECKPOINT = "checkpoint"


def run_scenario(
    scenario: Scenario,
    *,
    model_spec: str | None = None,
    seed: int | None = None,
    progress: bool = True,
    model: Gateway | None = None,
    on_progress: ProgressHook | None = None,
    report: bool = True,
) -> RunDir:
    """Run a validated scenario into a new run directory under `scenario.output.root`.

    `model_spec` and `seed` override the scenario's; `model` supplies a ready model instead
    (tests pass a scripted one). `progress` draws a bar when a terminal is attached;
    `on_progress` is called after every tick; `report` builds report.html and viewer.html.
    """
    spec = model.name if model is not None else (model_spec or scenario.model.spec)
    scenario = scenario.model_copy(
        update={
            "seed": scenario.seed if seed is None else seed,
            "model": scenario.model.model_copy(update={"spec": spec}),
        }
    )
    run = RunDir.create(
        scenario.output.root,
        scenario.name,
        seed=scenario.seed,
        model=spec,
        config=scenario.model_dump(mode="json"),
    )
    gateway = model if model is not None else _load_model(scenario, run)
    gateway.ledger = Ledger()
    return _drive(run, scenario, gateway, None, progress, on_progress, report)


def resume_run(
    path: str | Path,
    *,
    model: Gateway | None = None,
    progress: bool = True,
    on_progress: ProgressHook | None = None,
    report: bool = True,
) -> RunDir:
    """Continue a run from its last checkpoint (from the start if it has none)."""
    run = RunDir.open(path)
    if run.info().get("status") == "completed":
        raise ValueError(f"{run.path} has already completed; start a new run instead")
    scenario = validate_scenario(run.config(), str(run.config_path))
    gateway = model if model is not None else _load_model(scenario, run)
    gateway.ledger = Ledger()
    state = checkpoint.load(run.path / CHECKPOINT)
    if state is None:  # killed before its first checkpoint: start again from nothing
        for name in (MEMORY_DB, MEMORY_DB + "-wal", MEMORY_DB + "-shm", "events.jsonl"):
            (run.path / name).unlink(missing_ok=True)
    run.set_status("running")
    return _drive(run, scenario, gateway, state, progress, on_progress, report)


def interview_agent(
    run_path: str | Path,
    agent_id: str,
    question: str,
    *,
    model: Gateway | None = None,
    now: datetime | None = None,
) -> InterviewAnswer:
    """Ask an agent of a finished (or stopped) run a question, answered from its saved memory
    with the run's model. The run's files are left untouched (a copy of the memory is used)."""
    run = RunDir.open(run_path)
    scenario = validate_scenario(run.config(), str(run.config_path))
    personas = {p.id: p for p in scenario.agents.roster}
    if agent_id not in personas:
        raise KeyError(
            f"{run.path.name} has no agent {agent_id!r}; its agents are: {', '.join(personas)}"
        )
    gateway = model if model is not None else _load_model(scenario, run)
    when = now or _last_tick(scenario)
    with tempfile.TemporaryDirectory(prefix="simulacra-interview-") as scratch:
        copy = Path(scratch) / MEMORY_DB
        checkpoint.copy_database(run.path / MEMORY_DB, copy)
        seed = agent_seed(scenario.seed, agent_id)
        memory = MemoryStream(
            agent_id,
            _embedder(scenario),
            copy,
            model=gateway,
            importance=scenario.memory.importance,
            seed=seed,
        )
        try:
            agent = Agent(
                personas[agent_id], memory, gateway, ablation=scenario.ablation, seed=seed
            )
            return asyncio.run(agent.interview(question, when))
        finally:
            memory.close()


def agent_seed(run_seed: int, agent_id: str) -> int:
    """Each agent's own seed, fixed by the run's seed and its id."""
    digest = hashlib.blake2b(f"{run_seed}|{agent_id}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little") >> 1


# --- inside ----------------------------------------------------------------------------------


def _drive(
    run: RunDir,
    scenario: Scenario,
    model: Gateway,
    state: dict[str, Any] | None,
    progress: bool,
    on_progress: ProgressHook | None,
    report: bool,
) -> RunDir:
    writer = run.writer(truncate_at=state["offset"] if state else None)
    try:
        sim = _build(run, scenario, model, writer, state)
        with _progress_hooks(scenario.name, sim.clock, progress, on_progress) as hook:
            sim.on_progress = hook
            asyncio.run(sim.run())
        metrics = _finish(run, scenario, sim)
    except BaseException as exc:
        run.record_failure(writer, exc)
        raise
    writer.close()
    (run.path / "metrics.json").write_text(_json(metrics), encoding="utf-8")
    run.set_status("completed", ticks=sim.clock.ticks, calls=metrics["budget"]["total"]["calls"])
    if report:
        _build_outputs(run)
    return run


def _build(
    run: RunDir,
    scenario: Scenario,
    model: Gateway,
    writer: EventWriter,
    state: dict[str, Any] | None,
) -> Simulation:
    memory_db = run.path / MEMORY_DB
    if state is not None:
        checkpoint.restore_memory(run.path / CHECKPOINT, state, memory_db)
    calendar = _calendar(scenario)
    clock = Clock(calendar)
    world = TownWorld(scenario.world.map, clock.now)
    personas = scenario.agents.roster
    router = EventRouter(writer, [p.id for p in personas])
    embedder = _embedder(scenario)
    places = scenario.world.map.place_names
    agents: dict[str, Agent] = {}
    for persona in personas:
        seed = agent_seed(scenario.seed, persona.id)
        sink = router.sink(persona.id)
        memory = MemoryStream(
            persona.id,
            embedder,
            memory_db,
            model=model,
            importance=scenario.memory.importance,
            events=sink,
            seed=seed,
        )
        if state is None:
            agent = Agent(
                persona,
                memory,
                model,
                ablation=scenario.ablation,
                places=places,
                events=sink,
                seed=seed,
            )
        else:
            agent = Agent.restore(
                state["agents"][persona.id], persona, memory, model, places=places, events=sink
            )
        agents[persona.id] = agent
        world.add_agent(persona.id, persona.name, persona.home)
    sim = Simulation(
        scenario, world, agents, model, router, clock, memory_db, run.path / CHECKPOINT
    )
    if state is None:
        writer.emit(
            "run",
            {
                "scenario": scenario.name,
                "seed": scenario.seed,
                "model": model.name,
                "start": calendar.start.isoformat(),
                "end": calendar.end.isoformat(),
                "tick_minutes": scenario.schedule.tick_minutes,
                "world": world.layout(),
                "agents": {p.id: p.model_dump(mode="json") for p in personas},
            },
        )
    else:
        sim.restore(state)
    return sim


def _finish(run: RunDir, scenario: Scenario, sim: Simulation) -> dict[str, Any]:
    """Close the memories, read the measures back from the log, log the headline ones."""
    for agent in sim.agents.values():
        agent.memory.close()
    sim.writer.flush()
    metrics = run_metrics(run.events_path, scenario, sim.clock.ticks)
    end = sim.clock.now
    if metrics["attendance"]:
        count = len(metrics["attendance"]["attended"])
        sim.writer.emit("metric", {"name": "attended", "value": count}, t=end)
    talks = sum(metrics["conversations"].values())
    sim.writer.emit("metric", {"name": "conversations", "value": talks}, t=end)
    sim.writer.emit("run", {"status": "completed"}, t=end)
    return metrics


def _build_outputs(run: RunDir) -> None:
    """report.html and viewer.html, when the report package provides them; a fault there
    leaves the run complete."""
    report = importlib.import_module("simulacra.report")
    build = getattr(report, "build_outputs", None)
    if build is None:
        log.warning("simulacra.report.build_outputs is not available: no report or viewer")
        return
    try:
        build(run.path)
    except Exception:
        log.exception("building report.html and viewer.html for %s failed", run.path)


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def _calendar(scenario: Scenario) -> Calendar:
    schedule = scenario.schedule
    wake = schedule.wake if schedule.wake is None else scenario.when(schedule.wake).time()
    sleep = schedule.sleep if schedule.sleep is None else scenario.when(schedule.sleep).time()
    return Calendar(
        schedule.start,
        scenario.end,
        timedelta(minutes=schedule.tick_minutes),
        wake,
        sleep,
    )


def _last_tick(scenario: Scenario) -> datetime:
    times = _calendar(scenario).times()
    return times[-1] if times else scenario.end


def _embedder(scenario: Scenario) -> Embedder:
    # One embedder (and one text cache) for every agent: they observe the same sentences.
    return build_embedder(scenario.embedder)


def _load_model(scenario: Scenario, run: RunDir) -> Gateway:
    spec = scenario.model.spec
    options: dict[str, Any] = {
        "attempts": scenario.model.attempts,
        "timeout_s": scenario.model.timeout_s,
        "concurrency": scenario.model.concurrency,
    }
    # The scripted model is free and deterministic: a cache would only make resumed runs
    # report cache hits that an uninterrupted run does not have.
    if spec != "scripted" and not spec.startswith("replay:"):
        options["cache"] = run.path / LLM_CACHE
    model = load_model(spec, **options)
    if isinstance(model, ScriptedModel):
        sociable(model)  # a scripted town should talk and spread news, not only fall back
    return model


@contextmanager
def _progress_hooks(
    title: str, clock: Clock, progress: bool, on_progress: ProgressHook | None
) -> Iterator[ProgressHook | None]:
    if not progress:
        yield on_progress
        return
    with console_progress(title, clock.ticks, clock.index) as bar:
        if bar is None or on_progress is None:
            yield bar or on_progress
            return

        def both(p: Progress) -> None:
            bar(p)
            on_progress(p)

        yield both
