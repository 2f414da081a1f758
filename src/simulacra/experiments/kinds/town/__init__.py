"""The town of the Generative Agents study, bound to the generative agent's mind and to the
routine agent beside it (`agents.mind: routine`, a classical baseline)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, ClassVar

from pydantic import ValidationError

from simulacra.core import Mind
from simulacra.errors import unknown
from simulacra.experiments.explain import explained
from simulacra.experiments.kinds.base import (
    CORRECT,
    INTERVIEW,
    TALK,
    THINK,
    Ability,
    Binding,
    Cast,
    Services,
    agent_seed,
)
from simulacra.experiments.kinds.town.meetings import meeting_ticks, schedules
from simulacra.experiments.scenario import Scenario
from simulacra.llm import ScriptedModel
from simulacra.mind import Ablation
from simulacra.mind.town import Agent, Persona, RoutineAgent
from simulacra.mind.town.places import named
from simulacra.mind.town.scripted import sociable
from simulacra.runlog import Event
from simulacra.worlds.town import TownConfig, TownMap, TownWorld, attendance, conversations
from simulacra.worlds.town.metrics import rejected_actions
from simulacra.worlds.town.visitors import change_problem as visitor_problem


def _town(scenario: Scenario) -> TownConfig:
    assert isinstance(scenario.world, TownConfig)
    return scenario.world


class TownBinding(Binding):
    name = "town"
    reads = frozenset({"world", "conversation", "action"})
    minds = ("generative", "routine")
    baselines = ("routine",)
    ablations = tuple(a.value for a in Ablation)
    changes = (
        "place, object and state (an object of the map changes state); or a visitor: visitor "
        "and place (join, move) or visitor and to (say the text to an agent)"
    )
    signature: ClassVar[dict[str, tuple[str, ...]]] = {
        "diffusion": ("aware_final",),
        "attendance": ("attended",),
        "conversations": ("conversations",),
    }
    pilot_reads = frozenset({"plan"})

    def occasions(self, events: Sequence[Event], times: Sequence[datetime]) -> list[bool]:
        """The hour after two agents meet by their plans (meetings.py)."""
        return meeting_ticks(schedules(events), times)

    def personas(self, scenario: Scenario) -> list[Persona]:
        return [Persona.model_validate(raw) for raw in scenario.agents.personas]

    def roster(self, scenario: Scenario) -> list[str]:
        return [p.id for p in self.personas(scenario)][: scenario.agents.count]

    def abilities(self, scenario: Scenario) -> set[Ability]:
        return {THINK, TALK, INTERVIEW, CORRECT}

    def console_choices(self, scenario: Scenario) -> dict[str, Any]:
        town = _town(scenario).map
        objects = {p.name: [t.name for a in p.areas for t in a.objects] for p in town.places}
        return {"places": town.place_names, "objects": objects}

    def takes_visitors(self, scenario: Scenario) -> bool:
        return not self.is_baseline(scenario)  # the routine agent holds no dialogue to answer

    def check(self, scenario: Scenario) -> list[str]:
        town = _town(scenario).map
        problems = [f"scenario.world.map.{where}: {what}" for where, what in town.problems()]
        raw = scenario.agents.personas
        if not raw:
            problems.append("scenario.agents.personas: the town needs at least one persona")
        ids: list[str] = []
        for i, entry in enumerate(raw):
            try:
                persona = Persona.model_validate(entry)
            except ValidationError as exc:
                problems += explained(
                    exc.errors(), Persona, prefix=f"scenario.agents.personas[{i}]"
                )
                continue
            if persona.home not in town.place_names:
                where = f"scenario.agents.personas[{i}].home"
                problems.append(f"{where}: {unknown('place', persona.home, town.place_names)}")
            if persona.id in ids:
                problems.append(f'scenario.agents.personas[{i}].id: duplicate id "{persona.id}"')
            ids.append(persona.id)
        count = scenario.agents.count
        if count is not None and count > len(raw):
            problems.append(
                f"scenario.agents.count: {count} agents asked for but the roster has {len(raw)}"
            )
        for field in ("profiles", "mix"):
            if getattr(scenario.agents, field):
                problems.append(f"scenario.agents.{field}: the town takes no {field}")
        party = _town(scenario).attendance
        if party is not None:
            where = "scenario.world.attendance"
            if party.place not in town.place_names:
                problems.append(f"{where}.place: {unknown('place', party.place, town.place_names)}")
            off = scenario.off_the_clock(party.start)
            if off:
                problems.append(f"{where}.start: {off}")
            start, end = scenario.when(party.start), scenario.when(party.end)
            if end <= start:
                problems.append(f"{where}.end: {end:%H:%M} is not after start ({start:%H:%M})")
        for i, item in enumerate(scenario.interventions):
            if item.type == "event":
                problems += _change_problems(
                    f"scenario.interventions[{i}].change", item.change, scenario
                )
        return problems

    def trim(self, scenario: Scenario, last: datetime) -> tuple[Scenario, list[str]]:
        party = _town(scenario).attendance
        if party is None or scenario.when(party.start) <= last:
            return scenario, []
        world = _town(scenario).model_copy(update={"attendance": None})
        window = f"{scenario.written(party.start)} to {scenario.written(party.end)}"
        return scenario.model_copy(update={"world": world}), [f"world.attendance ({window})"]

    def build(self, scenario: Scenario, services: Services) -> Cast:
        config = _town(scenario)
        town = config.map
        world = TownWorld(town, scenario.clock.start, config.sight, config.seconds_per_tile)
        ablation = Ablation(self.ablation(scenario) or Ablation.FULL)
        minds: dict[str, Mind] = {}
        for persona in self.personas(scenario)[: scenario.agents.count]:
            stream = services.stream(persona.id, scenario)
            world.add_agent(persona.id, persona.name, persona.home, _named(persona, town))
            if self.is_baseline(scenario):
                sink = services.sink(persona.id)
                minds[persona.id] = RoutineAgent(persona, stream, town.place_names, sink)
                continue
            minds[persona.id] = Agent(
                persona,
                stream,
                services.model,
                ablation=ablation,
                places=town.place_names,
                sink=services.sink(persona.id),
                seed=agent_seed(scenario.seed, persona.id),
            )
        return Cast(world, minds, services)

    def script(self, model: ScriptedModel) -> None:
        sociable(model)  # a scripted town should talk and spread news, not only fall back

    def measures(self, events: Sequence[Event], scenario: Scenario) -> dict[str, Any]:
        party = _town(scenario).attendance
        came = {}
        if party is not None:
            came = attendance(
                events, party.place, scenario.when(party.start), scenario.when(party.end)
            )
        return {
            "attendance": came,
            "conversations": conversations(events),
            "rejected_actions": rejected_actions(events),
        }

    def headline(self, measures: dict[str, Any]) -> dict[str, float]:
        found = {"conversations": float(sum(measures["conversations"].values()))}
        if measures["attendance"]:
            found["attended"] = float(len(measures["attendance"]["attended"]))
        return found


def _named(persona: Persona, town: TownMap) -> list[str]:
    """The places a persona's words name (its workplace, its haunts): it knows them."""
    words = " ".join(
        [persona.background, persona.lifestyle, persona.currently, *persona.relationships.values()]
    )
    return named(words, town.place_names)


def _change_problems(where: str, change: dict[str, Any], scenario: Scenario) -> list[str]:
    town = _town(scenario).map
    if "visitor" in change:
        fault = visitor_problem(change, town.place_names, TOWN.roster(scenario))
        return [f"{where}: {fault}"] if fault else []
    extra = sorted(set(change) - {"place", "object", "state"})
    if extra:
        return [f"{where}: unknown field {extra[0]!r}; a town event takes place, object, state"]
    place, thing, state = change.get("place"), change.get("object"), change.get("state")
    if not (place and thing and state):
        return [f"{where}: an event needs place, object and state"]
    spec = town.place(str(place))
    if spec is None:
        return [f"{where}.place: {unknown('place', str(place), town.place_names)}"]
    things = [t.name for a in spec.areas for t in a.objects]
    if thing not in things:
        return [f"{where}.object: {unknown('object', str(thing), things)} (at {place})"]
    return []


TOWN = TownBinding()
