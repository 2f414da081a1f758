"""A run set to play: its world and minds built, its engine set at the start or at a
checkpoint, the interventions it fires (the scenario's and a console's), and the run's first
event. The pipeline (pipeline.py) and a fork (fork.py) open one and play it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from simulacra.engine import (
    Checkpoints,
    Clock,
    Control,
    Engine,
    EventRouter,
    Intervention,
    Interventions,
    InterviewPlan,
)
from simulacra.experiments.console_actions import intervention_of
from simulacra.experiments.facts import aware_test
from simulacra.experiments.kinds import Cast, Services, binding_of
from simulacra.experiments.scenario import Scenario
from simulacra.llm import Gateway
from simulacra.llm.prompt_log import PROMPTS, PromptLog
from simulacra.runlog import EventWriter, RunDir
from simulacra.runlog.events import RunStarted

MEMORY_DB = "memory.sqlite"
CHECKPOINT = "checkpoint"


@dataclass
class Session:
    """A run ready to play: its directory, scenario, model, log, cast, clock and engine."""

    run_dir: RunDir
    scenario: Scenario
    model: Gateway
    writer: EventWriter
    cast: Cast
    clock: Clock
    engine: Engine


def checkpoints_of(run_dir: RunDir, cast: Cast | None = None, every: int = 0) -> Checkpoints:
    return Checkpoints(
        run_dir.path / CHECKPOINT,
        run_dir.path / MEMORY_DB,
        cast.flush if cast is not None else None,
        every,
    )


def open_session(
    run_dir: RunDir,
    scenario: Scenario,
    model: Gateway,
    writer: EventWriter,
    state: dict[str, Any] | None,
    control: Control | None = None,
    sent: Sequence[Intervention] = (),
) -> Session:
    """Build the world and its minds and set the engine at the start or at `state`; `sent`
    are the interventions a console sent before a resume (read back from the log)."""
    kind = binding_of(scenario)
    cast: Cast | None = None
    try:
        if state is not None:
            checkpoints_of(run_dir).restore_memory(state)
        router = EventRouter(writer, kind.roster(scenario))
        services = Services(model, router, run_dir.path / MEMORY_DB, scenario, run_dir.path)
        cast = kind.build(scenario, services)
        clock = Clock(scenario.clock.calendar())
        interventions = _interventions(scenario, cast_names(kind.agents_info(cast)))
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
            checkpoints=checkpoints_of(run_dir, cast, scenario.clock.checkpoint_every),
            checkpoint_every=scenario.clock.checkpoint_every,
            schedule=scenario.clock.schedule,
            control=control,
            prompts=PromptLog(run_dir.path / PROMPTS) if scenario.output.prompts else None,
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
    return Session(run_dir, scenario, model, writer, cast, clock, engine)


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


def cast_names(agents: dict[str, dict[str, Any]]) -> dict[str, str]:
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
