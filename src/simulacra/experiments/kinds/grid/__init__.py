"""The grid hazard world of SD-AgentFoundry-2D, bound to the grid agent's mind and to the rule
agent beside it (`agents.mind: rule`, a classical baseline)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from simulacra.core import Mind
from simulacra.experiments.explain import explained
from simulacra.experiments.kinds.base import INTERVIEW, Ability, Binding, Cast, Services
from simulacra.experiments.scenario import Scenario
from simulacra.llm import ScriptedModel
from simulacra.mind.grid import (
    BoundedRecall,
    GridAgent,
    GridIdentity,
    GridOptions,
    RuleAgent,
    StreamRecall,
    script_grid_agents,
)
from simulacra.runlog import Event
from simulacra.worlds.grid import (
    GridConfig,
    GridPerson,
    GridWorld,
    build_world,
    grid_metrics,
    layout_from_config,
    roster,
)
from simulacra.worlds.grid.fires import change_problem as fire_problem

DEFAULT_AGENTS = 20
DEFAULT_RECALL = 5


def _grid(scenario: Scenario) -> GridConfig:
    assert isinstance(scenario.world, GridConfig)
    return scenario.world


def _people(scenario: Scenario) -> list[GridPerson]:
    return [GridPerson.model_validate(raw) for raw in scenario.agents.personas]


class GridBinding(Binding):
    name = "grid"
    # The fires are read as the world runs: each starts at its step, from where the scenario
    # puts it, unless an `event` moves it (worlds/grid/fires.py).
    forkable: ClassVar[tuple[str, ...]] = ("world.fires",)
    changes = (
        "fire and position (a fire moved there), with intensity and radius for a new fire "
        "(it burns from the step it is placed at)"
    )
    reads = frozenset({"run", "message", "world"})
    shares: ClassVar[dict[str, float]] = {"away_share": 1.0, "change_rate": 1.0}
    minds = ("grid", "rule")
    baselines = ("rule",)
    options: ClassVar[dict[str, type[BaseModel]]] = {"grid": GridOptions}
    memory_modes = ("bounded", "stream")
    signature: ClassVar[dict[str, tuple[str, ...]]] = {
        "warnings and hops": (
            "messages_heard",
            "message_deliveries",
            "warned_by_message_only",
            "max_warning_hops",
        ),
        "exposure to fire": ("mean_exposure", "agents_within_any_fire_radius_at_end"),
        "clustering": ("nearest_neighbour_at_end", "components_at_end", "agents_in_places_at_end"),
        "movement": (
            "moves_away_from_fire",
            "moves_towards_fire",
            "away_share",
            "places_entered",
            "change_rate",
        ),
    }

    def count(self, scenario: Scenario) -> int:
        return scenario.agents.count or max(DEFAULT_AGENTS, len(scenario.agents.personas))

    def roster(self, scenario: Scenario) -> list[str]:
        return roster(_people(scenario), self.count(scenario))

    def _world(self, scenario: Scenario) -> GridWorld:
        return build_world(_grid(scenario), _people(scenario), self.count(scenario), scenario.seed)

    def console_choices(self, scenario: Scenario) -> dict[str, Any]:
        grid = _grid(scenario)
        return {"fires": [f.name for f in grid.fires], "half_size": grid.half_size}

    def abilities(self, scenario: Scenario) -> set[Ability]:
        remembers = self.memory_mode(scenario) == "stream" and not self.is_baseline(scenario)
        return {INTERVIEW} if remembers else set()

    def check(self, scenario: Scenario) -> list[str]:
        problems: list[str] = []
        grid = _grid(scenario)
        h = grid.half_size
        ids: list[str] = []
        for i, raw in enumerate(scenario.agents.personas):
            try:
                person = GridPerson.model_validate(raw)
            except ValidationError as exc:
                problems += explained(
                    exc.errors(), GridPerson, prefix=f"scenario.agents.personas[{i}]"
                )
                continue
            if person.position is not None and max(map(abs, person.position)) > h:
                problems.append(
                    f"scenario.agents.personas[{i}].position: {list(person.position)} is outside "
                    f"the field -{h}..{h}"
                )
            if person.id in ids:
                problems.append(f'scenario.agents.personas[{i}].id: duplicate id "{person.id}"')
            ids.append(person.id)
        count = scenario.agents.count
        if count is not None and count < len(scenario.agents.personas):
            problems.append(
                f"scenario.agents.count: {count}, but personas lists "
                f"{len(scenario.agents.personas)} agents"
            )
        for field in ("profiles", "mix"):
            if getattr(scenario.agents, field):
                problems.append(f"scenario.agents.{field}: the grid takes no {field}")
        outside = [(i, f.name) for i, f in enumerate(grid.fires) if max(map(abs, f.position)) > h]
        for i, name in outside:
            problems.append(
                f"scenario.world.fires[{i}].position: {name} is outside the field -{h}..{h}"
            )
        names = [f.name for f in grid.fires]
        for i, item in enumerate(scenario.interventions):
            fault = fire_problem(item.change, names, h) if item.type == "event" else ""
            if fault:
                problems.append(f"scenario.interventions[{i}].change: {fault}")
        layout = layout_from_config(grid)
        cells = ((x, y) for x in range(-h, h + 1) for y in range(-h, h + 1))
        if not problems and all(layout.place_at(cell) is not None for cell in cells):
            problems.append(
                "scenario.world.places: they cover the whole field; agents need cells outside them"
            )
        return problems

    def trim(self, scenario: Scenario, last: datetime) -> tuple[Scenario, list[str]]:
        grid, ticks = _grid(scenario), len(scenario.clock.calendar().times())
        late = [fire for fire in grid.fires if fire.start_step > ticks]
        if not late:
            return scenario, []
        fires = tuple(fire for fire in grid.fires if fire.start_step <= ticks)
        world = grid.model_copy(update={"fires": fires})
        said = [f"world.fires {fire.name} (from step {fire.start_step})" for fire in late]
        return scenario.model_copy(update={"world": world}), said

    def build(self, scenario: Scenario, services: Services) -> Cast:
        world = self._world(scenario)
        size = DEFAULT_RECALL if scenario.memory.recall is None else scenario.memory.recall
        stream_mode = self.memory_mode(scenario) == "stream"
        options = self.mind_options(scenario)
        minds: dict[str, Mind] = {}
        for index, agent in enumerate(world.agents):
            if not isinstance(options, GridOptions):  # the rule agent: no model, no memory
                minds[agent] = RuleAgent(agent, scenario.seed, services.sink(agent))
                continue
            persona = world.personas[agent]
            identity = GridIdentity(agent, persona.gender, persona.details)
            recall: BoundedRecall | StreamRecall
            if stream_mode:
                stream = services.stream(agent, scenario, importance="rule")
                recall = StreamRecall(stream, size)
            else:
                recall = BoundedRecall(size)
            minds[agent] = GridAgent(
                identity,
                services.model,
                recall,
                index=index,
                seed=scenario.seed,
                messages=scenario.memory.messages,
                sink=services.sink(agent),
                extras=options.extras,
            )
        return Cast(world, minds, services)

    def agents_info(self, cast: Cast) -> dict[str, dict[str, Any]]:
        assert isinstance(cast.world, GridWorld)
        return {a: {"name": a, **p.to_dict()} for a, p in cast.world.personas.items()}

    def script(self, model: ScriptedModel) -> None:
        script_grid_agents(model)  # a scripted grid shows movement and warnings, not fallbacks

    def measures(self, events: Sequence[Event], scenario: Scenario) -> dict[str, Any]:
        return grid_metrics(events)

    def headline(self, measures: dict[str, Any]) -> dict[str, float]:
        return {k: float(v) for k, v in measures["headline"].items()}


GRID = GridBinding()
