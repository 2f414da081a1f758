"""El Farol, bound to the El Farol agent's mind: the smallest world kind, and the walkthrough's
example (docs/add-a-world.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from simulacra.core import Mind
from simulacra.experiments.kinds.base import (
    INTERVIEW,
    Ability,
    Binding,
    Cast,
    Services,
    agent_seed,
)
from simulacra.experiments.scenario import Scenario
from simulacra.llm import ScriptedModel
from simulacra.mind.elfarol import ElFarolAgent, Townsperson, script_elfarol
from simulacra.mind.elfarol.agent import WEEK_IMPORTANCE
from simulacra.runlog import Event
from simulacra.worlds.elfarol import ElFarolConfig, ElFarolWorld, elfarol_metrics

DEFAULT_AGENTS = 100  # Arthur's


def _elfarol(scenario: Scenario) -> ElFarolConfig:
    assert isinstance(scenario.world, ElFarolConfig)
    return scenario.world


class ElFarolBinding(Binding):
    name = "elfarol"
    minds = ("elfarol",)
    # bounded: an agent remembers what the world shows (world.memory_weeks); stream: it also
    # writes each week to a memory stream, which interviews answer from.
    memory_modes = ("bounded", "stream")
    reads = frozenset({"run", "world"})
    shares: ClassVar[dict[str, float]] = {"crowded_share": 1.0}
    signature: ClassVar[dict[str, tuple[str, ...]]] = {
        "attendance": ("mean_attendance", "attendance_std", "crowded_share"),
    }

    def roster(self, scenario: Scenario) -> list[str]:
        return [str(i) for i in range(scenario.agents.count or DEFAULT_AGENTS)]

    def abilities(self, scenario: Scenario) -> set[Ability]:
        return {INTERVIEW} if self.memory_mode(scenario) == "stream" else set()

    def check(self, scenario: Scenario) -> list[str]:
        problems: list[str] = []
        for field in ("personas", "profiles", "mix"):
            if getattr(scenario.agents, field):
                problems.append(f"scenario.agents.{field}: El Farol takes no {field}; give a count")
        if scenario.memory.recall is not None:
            problems.append("scenario.memory.recall: El Farol takes world.memory_weeks instead")
        config = _elfarol(scenario)
        agents = scenario.agents.count or DEFAULT_AGENTS
        if config.seats(agents) == 0:
            problems.append(
                f"scenario.world.threshold: {config.threshold} of {agents} agents leaves no room "
                "at the bar; raise the threshold or agents.count"
            )
        weeks = len(config.history) + len(scenario.clock.calendar().times()) - 1
        if config.memory_weeks > weeks:
            problems.append(
                f"scenario.world.memory_weeks: {config.memory_weeks}, but at most {weeks} weeks "
                "are ever known (world.history, then the run's weeks before the last); "
                "lower it or lengthen the run"
            )
        return problems

    def build(self, scenario: Scenario, services: Services) -> Cast:
        roster = self.roster(scenario)
        seats = _elfarol(scenario).seats(len(roster))
        stream = self.memory_mode(scenario) == "stream"
        minds: dict[str, Mind] = {
            agent: ElFarolAgent(
                agent,
                services.model,
                seed=agent_seed(scenario.seed, agent),
                sink=services.sink(agent),
                memory=services.stream(agent, scenario, WEEK_IMPORTANCE) if stream else None,
                identity=Townsperson(agent, len(roster), seats),
            )
            for agent in roster
        }
        return Cast(ElFarolWorld(_elfarol(scenario), roster), minds, services)

    def script(self, model: ScriptedModel) -> None:
        script_elfarol(model)

    def measures(self, events: Sequence[Event], scenario: Scenario) -> dict[str, Any]:
        return {"elfarol": elfarol_metrics(events)}

    def headline(self, measures: dict[str, Any]) -> dict[str, float]:
        return {k: float(v) for k, v in measures["elfarol"]["headline"].items()}


ELFAROL = ElFarolBinding()
